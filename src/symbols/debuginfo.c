// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/debuginfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>
#include <zlib.h>

#include "symbols/procfs.h"
#include "util/kp_err.h"

enum { CHECK_BUILD_ID = 1, CHECK_CRC = 2 };

int kp_debug__crc32(int fd, uint64_t max, uint32_t *crc)
{
	unsigned char buf[65536];
	uint64_t total = 0;
	uLong c = crc32(0L, Z_NULL, 0);
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), (off_t)total)) > 0) {
		total += (uint64_t)n;
		if (total > max)
			return -EFBIG;
		c = crc32(c, buf, (uInt)n);
	}
	if (n < 0)
		return -errno;
	*crc = (uint32_t)c;
	return 0;
}

/* Is fd an ELF file we may use for q's binary? */
static int check_candidate(const struct kp_debug_query *q, int fd, int checks)
{
	struct stat st;
	uint8_t id[KP_ELF_BUILD_ID_MAX];
	uint8_t id_len = 0;
	uint32_t crc;
	Elf *elf;
	int ok;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > q->max_size)
		return -EINVAL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -KP_EFORMAT;
	ok = elf_kind(elf) == ELF_K_ELF;
	if (ok && q->bin->build_id_len) {
		ok = kp_elf__build_id(elf, id, &id_len) == 0 &&
		     id_len == q->bin->build_id_len &&
		     memcmp(id, q->bin->build_id, id_len) == 0;
		if (!ok) {
			elf_end(elf);
			return -KP_EBUILDID;
		}
	}
	elf_end(elf);
	if (!ok)
		return -KP_EFORMAT;
	if ((checks & CHECK_CRC) &&
	    (kp_debug__crc32(fd, q->max_size, &crc) != 0 ||
	     crc != q->bin->debuglink_crc))
		return -KP_EBUILDID;
	return 0;
}

int kp_debug__check(int fd, const struct kp_elf_info *bin, uint64_t max_size)
{
	struct kp_debug_query q = { .bin = bin, .max_size = max_size };

	if (!bin->build_id_len)
		return -KP_EBUILDID;	/* nothing to tell it is the right one */
	return check_candidate(&q, fd, CHECK_BUILD_ID);
}

static int try_fd(const struct kp_debug_query *q, int fd, int checks,
		  struct kp_debug_result *r)
{
	int err;

	if (fd < 0)
		return fd;
	err = check_candidate(q, fd, checks);
	if (err) {
		if (err == -KP_EBUILDID)
			r->rejected++;
		close(fd);
		return err;
	}
	r->fd = fd;
	return 0;
}

static int host_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);

	return fd < 0 ? -errno : fd;
}

static int by_build_id(const struct kp_debug_query *q, struct kp_debug_result *r)
{
	const struct kp_elf_info *b = q->bin;
	char hex[2 * KP_ELF_BUILD_ID_MAX + 1], path[4096];

	if (b->build_id_len < 2)
		return -ENOENT;
	for (unsigned i = 0; i < b->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", b->build_id[i]);
	for (size_t i = 0; q->debug_dirs && q->debug_dirs[i]; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug",
				     q->debug_dirs[i], hex, hex + 2) >= sizeof(path))
			continue;
		/* the store itself uses symlinks: follow them on the host */
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

		if (fd >= 0 && try_fd(q, fd, CHECK_BUILD_ID, r) == 0) {
			r->via = KP_DEBUG_VIA_BUILD_ID;
			return 0;
		}
	}
	return -ENOENT;
}

static int debuglink_name_ok(const char *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0;
}

static int by_debuglink(const struct kp_debug_query *q, struct kp_debug_result *r)
{
	const char *name = q->bin->debuglink;
	char dir[4096], path[8192], clean[4096];
	char *slash;
	int checks = CHECK_BUILD_ID | CHECK_CRC;

	if (!debuglink_name_ok(name) || !q->bin_path || q->bin_path[0] != '/')
		return -ENOENT;
	kp_procfs__strip_deleted(q->bin_path, clean, sizeof(clean));
	snprintf(dir, sizeof(dir), "%s", clean);
	slash = strrchr(dir, '/');
	*slash = '\0';		/* "" for a binary in / */
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (try_fd(q, kp_procfs__open_in_root(q->proc_root, q->pid, path), checks, r) == 0)
		goto found;
	snprintf(path, sizeof(path), "%s/.debug/%s", dir, name);
	if (try_fd(q, kp_procfs__open_in_root(q->proc_root, q->pid, path), checks, r) == 0)
		goto found;
	for (size_t i = 0; q->debug_dirs && q->debug_dirs[i]; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s%s/%s", q->debug_dirs[i],
				     dir, name) >= sizeof(path))
			continue;
		if (try_fd(q, host_open(path), checks, r) == 0)
			goto found;
	}
	return -ENOENT;
found:
	r->via = KP_DEBUG_VIA_DEBUGLINK;
	return 0;
}

int kp_debug__find(const struct kp_debug_query *q, struct kp_debug_result *r)
{
	r->fd = -1;
	r->via = 0;
	r->rejected = 0;
	if (by_build_id(q, r) == 0)
		return 0;
	if (!q->build_id_only && q->bin->debuglink[0] && by_debuglink(q, r) == 0)
		return 0;
	return -ENOENT;
}

int kp_debug__unxz(const void *in, size_t len, size_t cap, void **out,
		   size_t *out_len)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t size = len * 4 < cap ? len * 4 + 4096 : cap;
	uint8_t *buf = malloc(size), *nb;
	lzma_ret ret;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	if (lzma_stream_decoder(&strm, 256u << 20, 0) != LZMA_OK) {
		free(buf);
		return -ENOMEM;
	}
	strm.next_in = in;
	strm.avail_in = len;
	strm.next_out = buf;
	strm.avail_out = size;
	for (;;) {
		ret = lzma_code(&strm, LZMA_FINISH);
		if (ret == LZMA_STREAM_END)
			break;
		if (ret != LZMA_OK && ret != LZMA_BUF_ERROR) {
			err = ret == LZMA_MEM_ERROR ? -ENOMEM : -KP_EFORMAT;
			goto out_err;
		}
		if (strm.avail_out) {	/* input ended before the stream did */
			err = -KP_EFORMAT;
			goto out_err;
		}
		if (size >= cap) {
			err = -E2BIG;
			goto out_err;
		}
		size = size * 2 < cap ? size * 2 : cap;
		nb = realloc(buf, size);
		if (!nb) {
			err = -ENOMEM;
			goto out_err;
		}
		buf = nb;
		strm.next_out = buf + strm.total_out;
		strm.avail_out = size - strm.total_out;
	}
	*out = buf;
	*out_len = strm.total_out;
	lzma_end(&strm);
	return 0;
out_err:
	lzma_end(&strm);
	free(buf);
	return err;
}
