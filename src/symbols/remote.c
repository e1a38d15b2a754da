// SPDX-License-Identifier: GPL-2.0-only
/* remote.c — debug files fetched from debuginfod servers for the
 * modules of a kp_symbols (see symbols-int.h).
 *
 * A fetch is asked for a module that has no debug information (no DWARF
 * of its own, nothing under the debug dirs): when it is opened, or
 * before, when its code is first sampled (kp_symbols__prefetch, which
 * reads only the file's ELF headers), so that a batch run that names
 * frames after sampling finds the file fetched. Before each lookup, and
 * when asked for the epoch, the fetches that ended are taken: a file is
 * added to every module of its build-id that wants one, or parked until
 * such a module is opened (a few, the oldest closed first: it is in the
 * cache for a fetch again); the epoch counts the files added.
 */
#include "symbols/symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/debuginfo.h"
#include "symbols/debuginfod.h"
#include "symbols/symbols-int.h"

static int same_id(const struct kp_elf_info *i, const uint8_t *id, uint8_t len)
{
	return i->build_id_len == len && !memcmp(i->build_id, id, len);
}

/* Add fd (taken) to module e, keeping the byte count right. */
static int add_to(struct kp_symbols *s, struct kp_modent *e, int fd)
{
	int err = kp_module__add_debug(e->mod, fd, s->max_file_size);

	if (err)
		return err;
	s->mod_bytes -= e->bytes;
	e->bytes = kp_module__bytes(e->mod);
	s->mod_bytes += e->bytes;
	e->debug_epoch = ++s->debug_epoch;
	return 0;
}

/* Add r->fd (taken) to the modules of its build-id that want it, each a
 * descriptor of its own: 1 when one took it, 0 when none wants it now
 * (the caller keeps r->fd), -errno when it was refused (r->fd closed). */
static int add_to_modules(struct kp_symbols *s, const struct kp_debuginfod_result *r)
{
	int rc = 0;

	for (struct kp_modent *e = s->modules; e; e = e->next) {
		int fd, err;

		if (!same_id(kp_module__info(e->mod), r->id, r->id_len) ||
		    !kp_module__wants_debug(e->mod))
			continue;
		fd = fcntl(r->fd, F_DUPFD_CLOEXEC, 0);
		err = fd < 0 ? -errno : add_to(s, e, fd);
		if (err) {
			rc = rc > 0 ? rc : err;
			break;
		}
		rc = 1;
	}
	if (rc)
		close(r->fd);
	return rc;
}

static void park(struct kp_symbols *s, const struct kp_debuginfod_result *r)
{
	if (s->nr_parked == KP_PARKED_MAX) {	/* the oldest goes */
		close(s->parked[0].fd);
		memmove(&s->parked[0], &s->parked[1],
			(KP_PARKED_MAX - 1) * sizeof(s->parked[0]));
		s->nr_parked--;
	}
	s->parked[s->nr_parked++] = *r;
}

void kp_remote__poll(struct kp_symbols *s)
{
	struct kp_debuginfod_result r;

	if (!s->dbgd)
		return;
	while (kp_debuginfod__take(s->dbgd, &r) == 1) {
		int rc = r.fd >= 0 ? add_to_modules(s, &r) : r.fd;

		if (rc < 0) {
			s->st.debuginfod_failed++;
			if (rc == -KP_EBUILDID || rc == -KP_EFORMAT)
				s->st.debug_rejected++;
			continue;
		}
		s->st.debuginfod_done++;
		if (rc == 0)
			park(s, &r);
	}
}

/* The parked file of m's build-id, if any, added to m now. */
static int unpark(struct kp_symbols *s, struct kp_module *m)
{
	const struct kp_elf_info *i = kp_module__info(m);

	for (size_t k = 0; k < s->nr_parked; k++) {
		int fd = s->parked[k].fd;

		if (!same_id(i, s->parked[k].id, s->parked[k].id_len))
			continue;
		memmove(&s->parked[k], &s->parked[k + 1],
			(s->nr_parked - k - 1) * sizeof(s->parked[0]));
		s->nr_parked--;
		if (kp_module__add_debug(m, fd, s->max_file_size) == 0) {
			s->debug_epoch++;
			return 1;
		}
		s->st.debug_rejected++;
		return 0;
	}
	return 0;
}

void kp_remote__ask(struct kp_symbols *s, struct kp_module *m)
{
	const struct kp_elf_info *i = kp_module__info(m);

	if (!s->dbgd || !kp_module__wants_debug(m))
		return;
	kp_remote__poll(s);
	if (unpark(s, m))
		return;
	/* a failed want (ENOMEM) only costs the names */
	(void)kp_debuginfod__want(s->dbgd, i->build_id, i->build_id_len);
}

void kp_remote__drop(struct kp_symbols *s)
{
	while (s->nr_parked)
		close(s->parked[--s->nr_parked].fd);
}

/* Does the file of map, read up to its ELF headers, want a debug file
 * that is not here? Its build-id in info when it does. */
static int file_wants_debug(struct kp_symbols *s, const struct kp_sym_map *map,
			    struct kp_elf_info *info)
{
	struct kp_debug_query q = {
		.debug_dirs = (const char *const *)s->debug_dirs,
		.proc_root = s->proc_root, .pid = map->pid, .bin_path = map->path,
		.bin = info, .max_size = s->max_file_size,
		.build_id_only = 1,	/* no debuglink: its CRC reads whole files */
	};
	struct kp_debug_result r;
	struct stat st;
	int fd = kp_symbols__open_map(s, map, &st, NULL, 0), want = 0;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf = (uint64_t)st.st_size <= s->max_file_size ?
	      elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (elf && kp_elf__info(elf, info) == 0 && !info->has_debug_info &&
	    info->build_id_len) {
		want = kp_debug__find(&q, &r) != 0;
		if (!want)
			close(r.fd);
	}
	elf_end(elf);
	close(fd);
	return want;
}

void kp_symbols__prefetch(struct kp_symbols *s, const struct kp_sym_map *map)
{
	struct kp_elf_info info;

	if (!s->dbgd || !map->path || map->path[0] != '/')
		return;
	kp_remote__poll(s);
	memset(&info, 0, sizeof(info));
	if (map->build_id_len) {	/* opened already: asked then, or not needed */
		for (struct kp_modent *e = s->modules; e; e = e->next)
			if (same_id(kp_module__info(e->mod), map->build_id, map->build_id_len))
				return;
	}
	if (file_wants_debug(s, map, &info))
		(void)kp_debuginfod__want(s->dbgd, info.build_id, info.build_id_len);
}

int kp_symbols__fetching(const struct kp_symbols *s)
{
	return s->dbgd != NULL;
}

uint64_t kp_symbols__debug_epoch(struct kp_symbols *s)
{
	kp_remote__poll(s);
	return s->debug_epoch;
}

uint64_t kp_symbols__held_epoch(struct kp_symbols *s, struct kp_sym_held *h)
{
	(void)s;
	return ((const struct kp_modent *)h)->debug_epoch;
}
