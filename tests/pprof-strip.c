// SPDX-License-Identifier: GPL-2.0-only
/* pprof-strip.c — for the replay tests: a pprof report (gzip-compressed
 * profile.proto) written out uncompressed without the two fields that
 * describe the run rather than the profile, time_nanos (9) and
 * duration_nanos (10), so that the live report and its replay can be
 * compared byte for byte.
 *   pprof-strip FILE.pb.gz >OUT
 * Exit 0, or 1 with a message when the file is not gzip or not a
 * well-formed top-level message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static unsigned char *slurp(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	unsigned char *buf = NULL, *nb;
	size_t cap = 0;
	int n;

	*len = 0;
	if (!gz)
		return NULL;
	do {
		if (cap - *len < 65536) {
			cap = cap ? 2 * cap : 1 << 20;
			if (!(nb = realloc(buf, cap))) {
				free(buf);
				gzclose(gz);
				return NULL;
			}
			buf = nb;
		}
		n = gzread(gz, buf + *len, (unsigned)(cap - *len));
		if (n > 0)
			*len += (size_t)n;
	} while (n > 0);
	if (n < 0 || gzclose(gz) != Z_OK) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* A varint at *p (below end): 0 and the value, or -1. */
static int varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		unsigned char b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* The end of the field starting at p, or NULL; its number in *field. */
static const unsigned char *field_end(const unsigned char *p,
				      const unsigned char *end, uint64_t *field)
{
	uint64_t key, v;

	if (varint(&p, end, &key))
		return NULL;
	*field = key >> 3;
	switch (key & 7) {
	case 0: return varint(&p, end, &v) ? NULL : p;
	case 1: return end - p >= 8 ? p + 8 : NULL;
	case 2: return varint(&p, end, &v) || v > (uint64_t)(end - p) ? NULL : p + v;
	case 5: return end - p >= 4 ? p + 4 : NULL;
	default: return NULL;
	}
}

int main(int argc, char **argv)
{
	const unsigned char *p, *q, *end;
	unsigned char *buf;
	uint64_t field;
	size_t len;

	if (argc != 2) {
		fprintf(stderr, "usage: pprof-strip FILE.pb.gz\n");
		return 2;
	}
	if (!(buf = slurp(argv[1], &len))) {
		fprintf(stderr, "pprof-strip: %s: cannot read it as gzip\n", argv[1]);
		return 1;
	}
	for (p = buf, end = buf + len; p < end; p = q) {
		if (!(q = field_end(p, end, &field))) {
			fprintf(stderr, "pprof-strip: %s: bad field at byte %zu\n",
				argv[1], (size_t)(p - buf));
			free(buf);
			return 1;
		}
		if (field != 9 && field != 10)
			fwrite(p, 1, (size_t)(q - p), stdout);
	}
	free(buf);
	return fflush(stdout) ? 1 : 0;
}
