// SPDX-License-Identifier: GPL-2.0-only
/* dwcache.c — the persistent cache of inflated DWARF (see dwcache.h). */
#include "symbols/dwcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbols/elfread.h"
#include "util/safedir.h"

#define KP_DWCACHE_TAG "CACHEDIR.TAG"
#define KP_DWCACHE_SUFFIX ".debug"
#define KP_DWCACHE_MAX_SCNS 64		/* debug sections copied at most */
#define KP_DWCACHE_STALE_S 600		/* a temporary file that old: its writer died */
#define KP_DWCACHE_NAME 64

struct kp_dwcache {
	int dfd;			/* the directory, checked */
	uint64_t max_bytes, max_file;
	unsigned tmp_seq;
	struct kp_dwcache_stats st;
};

/* https://bford.info/cachedir/: backup tools leave the directory out. */
static const char tag_text[] =
	"Signature: 8a477f597d28d172789f06886806bc55\n"
	"# This file is a cache directory tag created by kptop: inflated DWARF\n"
	"# of the binaries it named, by build ID; it can be deleted any time.\n";

static void write_tag(int dfd)
{
	int fd = openat(dfd, KP_DWCACHE_TAG, O_WRONLY | O_CREAT | O_EXCL |
			O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return;		/* there already (or not: only a hint) */
	if (write(fd, tag_text, sizeof(tag_text) - 1) < 0)
		(void)unlinkat(dfd, KP_DWCACHE_TAG, 0);
	close(fd);
}

/* The directory as opened: still ours and private (it was checked by
 * path just before). */
static int check_open(int dfd, const char *path, struct kp_err *err)
{
	struct stat st;

	if (fstat(dfd, &st))
		return kp_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return kp_err_set(err, -EPERM, "%s: changed while it was checked; "
				  "refusing to use it as the DWARF cache", path);
	return 0;
}

struct kp_dwcache *kp_dwcache__new(const char *dir, uint64_t max_bytes,
				   uint64_t max_file, struct kp_err *err)
{
	struct kp_dwcache *c;
	char real[PATH_MAX];
	int rc;

	rc = kp_safedir__private(dir, KP_DWCACHE_TAG, "the DWARF cache", real,
				 sizeof(real), err);
	if (rc) {
		errno = -rc;
		return NULL;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		kp_err_set(err, -ENOMEM, "the DWARF cache: out of memory");
		errno = ENOMEM;
		return NULL;
	}
	c->dfd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rc = c->dfd < 0 ? kp_err_set(err, -errno, "%s: %s", real, strerror(errno)) :
	     check_open(c->dfd, real, err);
	if (rc) {
		kp_dwcache__free(c);
		errno = -rc;
		return NULL;
	}
	write_tag(c->dfd);
	c->max_bytes = max_bytes ? max_bytes : KP_DWCACHE_DEFAULT_MAX;
	c->max_file = max_file ? max_file : 1ull << 30;
	return c;
}

void kp_dwcache__free(struct kp_dwcache *c)
{
	if (!c)
		return;
	if (c->dfd >= 0)
		close(c->dfd);
	free(c);
}

int kp_dwcache__default_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (geteuid() == 0)
		n = snprintf(buf, len, "/var/cache/kptop/dwarf");
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/kptop/dwarf", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.cache/kptop/dwarf", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void kp_dwcache__stats(const struct kp_dwcache *c, struct kp_dwcache_stats *out)
{
	if (c)
		*out = c->st;
	else
		memset(out, 0, sizeof(*out));
}

/* HEXID.debug; -EINVAL for an empty or overlong id. */
static int name_of(const uint8_t *id, size_t len, char *buf, size_t size)
{
	size_t n = 0;

	if (!len || len > KP_ELF_BUILD_ID_MAX || size < len * 2 + sizeof(KP_DWCACHE_SUFFIX))
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		n += (size_t)snprintf(buf + n, size - n, "%02x", id[i]);
	snprintf(buf + n, size - n, "%s", KP_DWCACHE_SUFFIX);
	return 0;
}

/* The name of section scn, or NULL. */
static const char *scn_name(Elf *elf, size_t shstrndx, Elf_Scn *scn, GElf_Shdr *sh)
{
	if (!gelf_getshdr(scn, sh))
		return NULL;
	return elf_strptr(elf, shstrndx, sh->sh_name);
}

int kp_dwcache__worth(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	int compressed = 0;

	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n = scn_name(elf, shstrndx, scn, &sh);

		if (!n)
			continue;
		if (!strncmp(n, ".zdebug", 7))
			return 0;	/* the old GNU compression: not cached */
		if (!strncmp(n, ".debug_", 7) && (sh.sh_flags & SHF_COMPRESSED))
			compressed = 1;
	}
	return compressed;
}

Elf *kp_dwcache__open(struct kp_dwcache *c, const uint8_t *id, size_t len,
		      int *fdp)
{
	uint8_t got[KP_ELF_BUILD_ID_MAX], glen = 0;
	char name[KP_DWCACHE_NAME];
	struct stat st;
	Elf *e = NULL;
	int fd;

	if (name_of(id, len, name, sizeof(name)))
		return NULL;
	fd = openat(c->dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		    O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return NULL;
		goto out_refuse;	/* a link (ELOOP), or worse */
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || (uint64_t)st.st_size > c->max_file)
		goto out_refuse;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || kp_elf__build_id(e, got, &glen) ||
	    glen != len || memcmp(got, id, len))
		goto out_refuse;
	(void)futimens(fd, NULL);	/* used now: the last one evicted */
	c->st.hits++;
	*fdp = fd;
	return e;
out_refuse:
	/* Not ours to use, in a directory that is ours: removed, so that
	 * the next store puts a good one in its place. */
	elf_end(e);
	if (fd >= 0)
		close(fd);
	(void)unlinkat(c->dfd, name, 0);
	c->st.failed++;
	return NULL;
}

/* ---- writing a cached file ---- */

struct kept {
	Elf_Scn *scn;
	const char *name;
	size_t name_off;
};

struct out {
	Elf *src, *dst;
	struct kept k[KP_DWCACHE_MAX_SCNS];
	size_t nk;
	char *names;		/* the new .shstrtab */
	size_t names_len;
	uint8_t note[16 + KP_ELF_BUILD_ID_MAX];
	size_t note_len;
};

/* The debug sections of src to copy, inflated (a no-op for those libdw
 * inflated as it began). */
static int pick(struct out *o, uint64_t max)
{
	size_t shstrndx, total = 0;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(o->src, &shstrndx))
		return -KP_EFORMAT;
	while ((scn = elf_nextscn(o->src, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n = scn_name(o->src, shstrndx, scn, &sh);

		if (!n || strncmp(n, ".debug_", 7) || sh.sh_type == SHT_NOBITS)
			continue;
		if (o->nk == KP_DWCACHE_MAX_SCNS)
			return -E2BIG;
		if ((sh.sh_flags & SHF_COMPRESSED) &&
		    (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh)))
			return -KP_EFORMAT;
		total += sh.sh_size;
		if (total > max)
			return -EFBIG;
		o->k[o->nk].scn = scn;
		o->k[o->nk++].name = n;
	}
	return o->nk ? 0 : -ENODATA;
}

/* "\0.shstrtab\0.note.gnu.build-id\0" and the kept names. */
static int make_names(struct out *o)
{
	static const char head[] = "\0.shstrtab\0.note.gnu.build-id";
	size_t len = sizeof(head), off;

	for (size_t i = 0; i < o->nk; i++)
		len += strlen(o->k[i].name) + 1;
	if (!(o->names = malloc(len)))
		return -ENOMEM;
	memcpy(o->names, head, sizeof(head));
	off = sizeof(head);
	for (size_t i = 0; i < o->nk; i++) {
		size_t n = strlen(o->k[i].name) + 1;

		memcpy(o->names + off, o->k[i].name, n);
		o->k[i].name_off = off;
		off += n;
	}
	o->names_len = len;
	return 0;
}

/* An NT_GNU_BUILD_ID note of id, little-endian (worth() took only such
 * files). */
static void make_note(struct out *o, const uint8_t *id, size_t len)
{
	uint32_t h[3] = { 4, (uint32_t)len, NT_GNU_BUILD_ID };

	memcpy(o->note, h, sizeof(h));
	memcpy(o->note + 12, "GNU", 4);
	memcpy(o->note + 16, id, len);
	o->note_len = 16 + ((len + 3) & ~(size_t)3);
	memset(o->note + 16 + len, 0, o->note_len - 16 - len);
}

static int add_scn(Elf *dst, const GElf_Shdr *tmpl, size_t name, void *buf,
		   size_t size, size_t align)
{
	Elf_Scn *scn = elf_newscn(dst);
	GElf_Shdr sh = *tmpl;
	Elf_Data *d;

	if (!scn || !(d = elf_newdata(scn)))
		return -ENOMEM;
	d->d_buf = buf;
	d->d_size = size;
	d->d_align = align ? align : 1;
	d->d_type = ELF_T_BYTE;
	d->d_off = 0;
	d->d_version = EV_CURRENT;
	sh.sh_name = (GElf_Word)name;
	sh.sh_offset = 0;
	sh.sh_size = size;
	sh.sh_link = sh.sh_info = 0;
	sh.sh_addralign = d->d_align;
	return gelf_update_shdr(scn, &sh) ? 0 : -KP_EFORMAT;
}

static int add_sections(struct out *o)
{
	GElf_Shdr note = { .sh_type = SHT_NOTE };
	GElf_Shdr strs = { .sh_type = SHT_STRTAB };
	int rc = add_scn(o->dst, &note, 11, o->note, o->note_len, 4);

	for (size_t i = 0; !rc && i < o->nk; i++) {
		Elf_Data *d = elf_getdata(o->k[i].scn, NULL);
		GElf_Shdr sh;

		if (!d || !gelf_getshdr(o->k[i].scn, &sh))
			return -KP_EFORMAT;
		rc = add_scn(o->dst, &sh, o->k[i].name_off, d->d_buf, d->d_size,
			     d->d_align);
	}
	if (!rc)
		rc = add_scn(o->dst, &strs, 1, o->names, o->names_len, 1);
	return rc;
}

static int write_elf(int fd, Elf *src, const uint8_t *id, size_t len, uint64_t max)
{
	struct out o = { .src = src };
	GElf_Ehdr seh, eh;
	int rc;

	if (!gelf_getehdr(src, &seh))
		return -KP_EFORMAT;
	if ((rc = pick(&o, max)) || (rc = make_names(&o)))
		goto out;
	make_note(&o, id, len);
	rc = -ENOMEM;
	if (!(o.dst = elf_begin(fd, ELF_C_WRITE, NULL)) ||
	    !gelf_newehdr(o.dst, gelf_getclass(src)) || !gelf_getehdr(o.dst, &eh))
		goto out;
	memcpy(eh.e_ident, seh.e_ident, EI_NIDENT);
	eh.e_type = seh.e_type;
	eh.e_machine = seh.e_machine;
	eh.e_version = EV_CURRENT;
	eh.e_flags = seh.e_flags;
	if ((rc = add_sections(&o)) != 0)
		goto out;
	eh.e_shstrndx = (GElf_Half)(o.nk + 2);	/* the note, the sections, it */
	rc = gelf_update_ehdr(o.dst, &eh) && elf_update(o.dst, ELF_C_WRITE) >= 0 ?
	     0 : -EIO;
out:
	elf_end(o.dst);
	free(o.names);
	return rc;
}

/* ---- the bound ---- */

struct ent {
	char name[KP_DWCACHE_NAME];
	struct timespec used;
	uint64_t size;
};

static int older(const void *a, const void *b)
{
	const struct timespec *x = &((const struct ent *)a)->used;
	const struct timespec *y = &((const struct ent *)b)->used;

	if (x->tv_sec != y->tv_sec)
		return x->tv_sec < y->tv_sec ? -1 : 1;
	return (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

/* One directory entry: a cached file into *v, a stale temporary file
 * removed. 0 or -ENOMEM. */
static int scan_one(struct kp_dwcache *c, const char *name, struct ent **v,
		    size_t *n, size_t *cap, uint64_t *total)
{
	size_t len = strlen(name), sl = strlen(KP_DWCACHE_SUFFIX);
	struct stat st;

	if (len >= KP_DWCACHE_NAME ||
	    fstatat(c->dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return 0;
	if (strstr(name, ".tmp.")) {
		if (st.st_mtim.tv_sec + KP_DWCACHE_STALE_S < time(NULL))
			(void)unlinkat(c->dfd, name, 0);
		return 0;
	}
	if (len <= sl || strcmp(name + len - sl, KP_DWCACHE_SUFFIX))
		return 0;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		struct ent *nv = realloc(*v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	memcpy((*v)[*n].name, name, len + 1);
	(*v)[*n].used = st.st_mtim;
	(*v)[(*n)++].size = (uint64_t)st.st_size;
	*total += (uint64_t)st.st_size;
	return 0;
}

/* Within max_bytes: the least recently used files removed first. */
static void evict(struct kp_dwcache *c)
{
	struct ent *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *de;
	int dfd = dup(c->dfd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL)
		if (scan_one(c, de->d_name, &v, &n, &cap, &total))
			break;
	closedir(d);
	if (n > 1)	/* v is NULL when empty: no qsort(NULL, 0) */
		qsort(v, n, sizeof(*v), older);
	for (size_t i = 0; i < n && total > c->max_bytes; i++) {
		if (unlinkat(c->dfd, v[i].name, 0) == 0 || errno == ENOENT) {
			total -= v[i].size;
			c->st.evicted++;
		}
	}
	c->st.bytes = total;
	free(v);
}

int kp_dwcache__store(struct kp_dwcache *c, Elf *elf, const uint8_t *id,
		      size_t len)
{
	char name[KP_DWCACHE_NAME], tmp[KP_DWCACHE_NAME + 32];
	int fd, rc;

	if ((rc = name_of(id, len, name, sizeof(name))) != 0)
		return rc;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d.%u", name, (int)getpid(), c->tmp_seq++);
	fd = openat(c->dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		c->st.failed++;
		return -errno;
	}
	rc = write_elf(fd, elf, id, len, c->max_file < c->max_bytes ?
		       c->max_file : c->max_bytes);
	if (close(fd) && !rc)
		rc = -EIO;
	/* Whole, under its name at once: another kptop reading it sees the
	 * old file or the new one, never a part. */
	if (!rc && renameat(c->dfd, tmp, c->dfd, name))
		rc = -errno;
	if (rc) {
		(void)unlinkat(c->dfd, tmp, 0);
		c->st.failed++;
		return rc;
	}
	c->st.stored++;
	evict(c);
	return 0;
}
