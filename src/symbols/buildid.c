// SPDX-License-Identifier: GPL-2.0-only
/* buildid.c — build IDs read from disk (see buildid.h). */
#include "symbols/buildid.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elfread.h"
#include "util/kp_err.h"

#define NOTES_MAX 4096u	/* /sys/kernel/notes is some hundred bytes */

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

int kp_buildid__notes(const uint8_t *buf, size_t n, uint8_t *out, uint8_t *len)
{
	size_t off = 0;

	while (n - off >= 12) {
		uint32_t h[3];	/* namesz, descsz, type */
		size_t name, desc;

		memcpy(h, buf + off, sizeof(h));
		name = off + 12;
		if (h[0] > n - name || align4(h[0]) > n - name)
			return -KP_EFORMAT;
		desc = name + align4(h[0]);
		if (h[1] > n - desc || align4(h[1]) > n - desc)
			return -KP_EFORMAT;
		if (h[2] == NT_GNU_BUILD_ID && h[0] == 4 && !memcmp(buf + name, "GNU", 4)) {
			if (h[1] == 0 || h[1] > KP_BUILDID_MAX)
				return -KP_EFORMAT;
			memcpy(out, buf + desc, h[1]);
			*len = (uint8_t)h[1];
			return 0;
		}
		off = desc + align4(h[1]);
	}
	return -KP_ENOSYM;
}

/* A read-only descriptor of a regular file at path, or a negative errno. */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* The ELF file at path, opened (*fd, *elf: the caller ends both), or
 * -errno / -KP_EFORMAT with nothing open. */
static int elf_open(const char *path, int *fd, Elf **elf)
{
	*fd = open_regular(path);
	if (*fd < 0)
		return *fd;
	elf_version(EV_CURRENT);
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (*elf && elf_kind(*elf) == ELF_K_ELF)
		return 0;
	elf_end(*elf);
	close(*fd);
	return -KP_EFORMAT;
}

int kp_buildid__file(const char *path, uint8_t *out, uint8_t *len)
{
	uint8_t id[KP_ELF_BUILD_ID_MAX];
	Elf *elf;
	int fd, rc = elf_open(path, &fd, &elf);

	if (rc)
		return rc;
	rc = kp_elf__build_id(elf, id, len);
	if (rc == 0 && (*len == 0 || *len > KP_BUILDID_MAX))
		rc = -KP_EFORMAT;
	if (rc == 0)
		memcpy(out, id, *len);
	elf_end(elf);
	close(fd);
	return rc;
}

int kp_buildid__file_bias(const char *path, uint64_t off, uint64_t *bias)
{
	struct kp_elf_info info;
	Elf *elf;
	int fd, rc = elf_open(path, &fd, &elf);

	if (rc)
		return rc;
	rc = kp_elf__info(elf, &info);
	for (size_t i = 0; rc == 0 && i < info.nr_loads; i++) {
		const struct kp_elf_load *l = &info.loads[i];

		/* a mapping starts at the page holding its segment's start */
		if (off >= (l->offset & ~(uint64_t)4095) && off < l->offset + l->filesz) {
			*bias = l->vaddr - l->offset;
			break;
		}
		if (i + 1 == info.nr_loads)
			rc = -KP_ENOSYM;
	}
	if (rc == 0 && info.nr_loads == 0)
		rc = -KP_ENOSYM;
	elf_end(elf);
	close(fd);
	return rc;
}

int kp_buildid__kernel(uint8_t *out, uint8_t *len)
{
	uint8_t buf[NOTES_MAX];
	ssize_t n;
	int fd = open_regular("/sys/kernel/notes"), rc;

	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf));
	rc = n < 0 ? -errno : kp_buildid__notes(buf, (size_t)n, out, len);
	close(fd);
	return rc;
}
