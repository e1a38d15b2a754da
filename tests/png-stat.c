// SPDX-License-Identifier: GPL-2.0-only
/* png-stat.c — what a PNG screenshot shows, for the tests that render
 * (tests/batch-svg.sh): decodes an 8-bit RGB or RGBA, non-interlaced
 * PNG (what Chromium's --screenshot writes) with zlib and prints
 *   size W H
 *   colours N      distinct colours
 *   warm N         pixels of flamegraph.pl's "hot" colours (red > 150,
 *                  blue < 100, green < red): user boxes
 *   dark N         pixels with every channel below 100: text
 * and then "X Y R G B" for each X Y pair given.
 * Usage: png-stat FILE [X Y]... ; exit 1 on a PNG it cannot read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct img {
	uint32_t w, h;
	int bpp;		/* 3 or 4 */
	unsigned char *px;	/* w * h * bpp, filters undone */
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, k;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			unsigned char *nb = realloc(buf, cap = cap ? 2 * cap : 1 << 20);

			if (!nb)
				break;
			buf = nb;
		}
		k = fread(buf + n, 1, cap - n, f);
		n += k;
	} while (k > 0);
	fclose(f);
	*len = n;
	return buf;
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undo the row filters of raw (h rows of 1 + w * bpp bytes) into px. */
static int unfilter(struct img *im, const unsigned char *raw)
{
	size_t stride = (size_t)im->w * im->bpp;

	for (uint32_t y = 0; y < im->h; y++) {
		const unsigned char *in = raw + y * (stride + 1) + 1;
		unsigned char *out = im->px + y * stride, *up = y ? out - stride : NULL;
		int ft = in[-1];

		for (size_t i = 0; i < stride; i++) {
			int a = i >= (size_t)im->bpp ? out[i - im->bpp] : 0;
			int b = up ? up[i] : 0, c = up && i >= (size_t)im->bpp ? up[i - im->bpp] : 0;
			int v = ft == 0 ? 0 : ft == 1 ? a : ft == 2 ? b :
				ft == 3 ? (a + b) / 2 : ft == 4 ? paeth(a, b, c) : -1;

			if (v < 0)
				return -1;
			out[i] = (unsigned char)(in[i] + v);
		}
	}
	return 0;
}

static int decode(const unsigned char *buf, size_t len, struct img *im)
{
	unsigned char *z = malloc(len), *raw;
	size_t zn = 0, off = 8;
	uLongf rawn;

	if (!z || len < 8 || memcmp(buf, "\x89PNG\r\n\x1a\n", 8))
		return -1;
	while (off + 12 <= len) {
		uint32_t n = be32(buf + off);
		const unsigned char *type = buf + off + 4, *d = buf + off + 8;

		if (n > len - off - 12)
			return -1;
		if (!memcmp(type, "IHDR", 4)) {
			im->w = be32(d);
			im->h = be32(d + 4);
			if (d[8] != 8 || (d[9] != 2 && d[9] != 6) || d[12] != 0)
				return -1;	/* 8-bit RGB(A), not interlaced */
			im->bpp = d[9] == 6 ? 4 : 3;
		} else if (!memcmp(type, "IDAT", 4)) {
			memcpy(z + zn, d, n);
			zn += n;
		}
		off += 12 + n;
	}
	if (!im->w || !im->h || im->w > 20000 || im->h > 20000)
		return -1;
	rawn = (uLongf)im->h * (1 + (uLongf)im->w * im->bpp);
	raw = malloc(rawn);
	im->px = malloc((size_t)im->w * im->h * im->bpp);
	if (!raw || !im->px || uncompress(raw, &rawn, z, zn) != Z_OK ||
	    rawn != (uLongf)im->h * (1 + (uLongf)im->w * im->bpp) || unfilter(im, raw))
		return -1;
	free(raw);
	free(z);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void stats(const struct img *im)
{
	size_t n = (size_t)im->w * im->h, warm = 0, dark = 0, colours = 0;
	uint32_t *rgb = malloc(n * sizeof(*rgb));

	for (size_t i = 0; rgb && i < n; i++) {
		const unsigned char *p = im->px + i * im->bpp;

		rgb[i] = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
		warm += p[0] > 150 && p[2] < 100 && p[1] < p[0];
		dark += p[0] < 100 && p[1] < 100 && p[2] < 100;
	}
	if (rgb) {
		qsort(rgb, n, sizeof(*rgb), cmp_u32);
		for (size_t i = 0; i < n; i++)
			colours += i == 0 || rgb[i] != rgb[i - 1];
	}
	printf("size %u %u\ncolours %zu\nwarm %zu\ndark %zu\n", im->w, im->h, colours,
	       warm, dark);
	free(rgb);
}

int main(int argc, char **argv)
{
	struct img im = { 0 };
	unsigned char *buf;
	size_t len = 0;

	if (argc < 2 || argc % 2) {
		fprintf(stderr, "usage: png-stat FILE [X Y]...\n");
		return 2;
	}
	buf = slurp(argv[1], &len);
	if (!buf || decode(buf, len, &im)) {
		fprintf(stderr, "png-stat: %s: not an 8-bit RGB(A) PNG it can read\n", argv[1]);
		return 1;
	}
	stats(&im);
	for (int i = 2; i + 1 < argc; i += 2) {
		uint32_t x = (uint32_t)atoi(argv[i]), y = (uint32_t)atoi(argv[i + 1]);
		const unsigned char *p;

		if (x >= im.w || y >= im.h) {
			printf("%u %u outside\n", x, y);
			continue;
		}
		p = im.px + ((size_t)y * im.w + x) * im.bpp;
		printf("%u %u %u %u %u\n", x, y, p[0], p[1], p[2]);
	}
	free(buf);
	free(im.px);
	return 0;
}
