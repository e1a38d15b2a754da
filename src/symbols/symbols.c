// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/symbols.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/debuginfod.h"
#include "symbols/procfs.h"
#include "symbols/symbols-int.h"

static const char *const default_debug_dirs[] = { "/usr/lib/debug", NULL };

static char *dup_or(const char *v, const char *dflt)
{
	return strdup(v ? v : dflt);
}

static int copy_dirs(struct kp_symbols *s, const char *const *dirs)
{
	size_t n = 0;

	if (!dirs)
		dirs = default_debug_dirs;
	while (dirs[n])
		n++;
	s->debug_dirs = calloc(n + 1, sizeof(*s->debug_dirs));
	if (!s->debug_dirs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(s->debug_dirs[i] = strdup(dirs[i])))
			return -ENOMEM;
	return 0;
}

/* The persistent DWARF cache, when asked for: a directory that cannot
 * be used leaves it off, and kp_symbols__cache_status says why. */
static void open_cache(struct kp_symbols *s, const struct kp_symbols_opts *opts)
{
	struct kp_err e = { 0 };
	char dir[4096];
	const char *path = opts->dwarf_cache_dir;

	if (!opts->dwarf_cache)
		return;
	if (!path) {
		if (kp_dwcache__default_dir(dir, sizeof(dir))) {
			snprintf(s->cache_status, sizeof(s->cache_status), "no "
				 "directory for the DWARF cache (set HOME or "
				 "XDG_CACHE_HOME)");
			return;
		}
		path = dir;
	}
	s->dwcache = kp_dwcache__new(path, opts->dwarf_cache_max, s->max_file_size, &e);
	if (!s->dwcache)
		snprintf(s->cache_status, sizeof(s->cache_status), "%s", e.msg);
}

const char *kp_symbols__cache_status(const struct kp_symbols *s)
{
	return s->cache_status[0] ? s->cache_status : NULL;
}

struct kp_symbols *kp_symbols__new(const struct kp_symbols_opts *opts,
				   struct kp_err *err)
{
	static const struct kp_symbols_opts none;
	struct kp_symbols *s = calloc(1, sizeof(*s));

	if (!opts)
		opts = &none;
	if (!s)
		goto out_enomem;
	elf_version(EV_CURRENT);
	s->demangle = !opts->no_demangle;
	s->max_file_size = opts->max_file_size ? opts->max_file_size :
			   KP_DEFAULT_MAX_FILE;
	s->keep_idle = opts->keep_idle_modules ? opts->keep_idle_modules - 1 :
		       KP_IDLE_MODULES;
	s->kallsyms_path = dup_or(opts->kallsyms, "/proc/kallsyms");
	s->proc_root = dup_or(opts->proc_root, "/proc");
	s->jit_dir = dup_or(opts->jit_dir, "/tmp");
	s->jit_budget = opts->jit_budget ? (size_t)opts->jit_budget : KP_JIT_BUDGET;
	s->jit_wait_ms = opts->jit_wait_ms;
	s->max_bytes = (size_t)opts->max_bytes;
	s->dwarf_keep_ns = opts->dwarf_keep_ms ? (opts->dwarf_keep_ms - 1) * 1000000ull :
			   KP_DWARF_KEEP_NS;
	if (!s->kallsyms_path || !s->proc_root || !s->jit_dir ||
	    copy_dirs(s, opts->debug_dirs) != 0)
		goto out_enomem;
	if (opts->debuginfod &&
	    !(s->dbgd = kp_debuginfod__new(s->max_file_size, opts->debuginfod_signal)))
		goto out_enomem;
	open_cache(s, opts);
	return s;
out_enomem:
	kp_symbols__free(s);
	kp_err_set(err, -ENOMEM, "symbols: out of memory");
	errno = ENOMEM;
	return NULL;
}

void kp_symbols__free(struct kp_symbols *s)
{
	if (!s)
		return;
	kp_jit__stop(s);
	kp_debuginfod__free(s->dbgd);
	kp_remote__drop(s);
	kp_symbols__drop_procs(s);
	kp_kallsyms__free(s->kallsyms);
	kp_dwcache__free(s->dwcache);	/* after the modules that borrow it */
	for (size_t i = 0; s->debug_dirs && s->debug_dirs[i]; i++)
		free(s->debug_dirs[i]);
	free(s->debug_dirs);
	free(s->kallsyms_path);
	free(s->proc_root);
	free(s->jit_dir);
	free(s->jit_code);
	free(s);
}

static void load_kernel(struct kp_symbols *s)
{
	if (s->kallsyms_tried)
		return;
	s->kallsyms_tried = 1;
	s->kallsyms = kp_kallsyms__load(s->kallsyms_path);
	if (!s->kallsyms) {
		snprintf(s->kstatus, sizeof(s->kstatus),
			 "kernel frames unnamed: cannot read %s: %s",
			 s->kallsyms_path, strerror(errno));
		return;
	}
	s->st.kernel_symbols = kp_kallsyms__count(s->kallsyms);
	if (kp_kallsyms__restricted(s->kallsyms)) {
		s->st.kernel_restricted = 1;
		snprintf(s->kstatus, sizeof(s->kstatus),
			 "kernel frames shown as [kernel]: kptr_restrict hides "
			 "kernel addresses in %s (run as root, or set "
			 "kernel.kptr_restrict=0)", s->kallsyms_path);
	}
}

const char *kp_symbols__kernel_status(struct kp_symbols *s)
{
	load_kernel(s);
	return s->kstatus[0] ? s->kstatus : NULL;
}

size_t kp_symbols__idle_text(struct kp_symbols *s, uint64_t (*r)[2], size_t max)
{
	load_kernel(s);
	if (!s->kallsyms || kp_kallsyms__restricted(s->kallsyms))
		return 0;
	return kp_kallsyms__idle_text(s->kallsyms, r, max);
}

int kp_symbols__kernel(struct kp_symbols *s, uint64_t addr,
		       struct kp_sym_frame *out)
{
	const char *name;

	s->st.lookups++;
	load_kernel(s);
	name = s->kallsyms ? kp_kallsyms__lookup(s->kallsyms, addr) : NULL;
	if (!name) {
		s->st.unnamed++;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->name = name;
	s->st.named++;
	return 1;
}

const char *kp_symbols__module_name(struct kp_symbols *s,
				    const struct kp_sym_map *map, uint64_t addr)
{
	if (map)
		return kp_symbols__user_module_name(s, map);
	load_kernel(s);
	return s->kallsyms ? kp_kallsyms__module(s->kallsyms, addr) : "[kernel]";
}

void kp_symbols__process_gone(struct kp_symbols *s, uint32_t pid,
			      uint64_t proc_start)
{
	kp_symbols__drop_proc(s, pid, proc_start);
}

int kp_symbols__open_map(const struct kp_symbols *s, const struct kp_sym_map *map,
			 struct stat *st, char *buf, size_t len)
{
	struct kp_proc_file f = {
		.proc_root = s->proc_root, .pid = map->pid, .start = map->start,
		.end = map->end, .maj = map->maj, .min = map->min,
		.ino = map->ino, .path = map->path,
	};
	int fd = kp_procfs__open_mapped(&f, st, buf, len);

	if (fd < 0 && f.pid && (map->ino || map->build_id_len)) {
		f.pid = 0;	/* gone: the host's file, if it is the mapped one */
		fd = kp_procfs__open_mapped(&f, st, buf, len);
	}
	return fd;
}

/* As for names, so for unwinding: a replay, or a process that exited
 * before its samples were read, unwinds from the host's file when it is
 * the mapped one (the unwinder checks a build-id once it reads it). */
int kp_symbols__safe_path(struct kp_symbols *s, const struct kp_sym_map *map,
			  char *buf, size_t len)
{
	struct stat st;
	int fd = kp_symbols__open_map(s, map, &st, buf, len);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

void kp_symbols__stats(const struct kp_symbols *s, struct kp_symbols_stats *out)
{
	const struct kp_modent *e;

	*out = s->st;
	out->modules_idle = s->nr_idle;
	out->debuginfod_pending = s->dbgd ? kp_debuginfod__pending(s->dbgd) : 0;
	out->debuginfod = s->dbgd != NULL;
	if (s->dwcache) {
		struct kp_dwcache_stats c;

		kp_dwcache__stats(s->dwcache, &c);
		out->dwcache_hits = c.hits;
		out->dwcache_stored = c.stored;
		out->dwcache_failed = c.failed;
	}
	out->bytes = 0;
	for (e = s->modules; e; e = e->next) {
		out->bytes += kp_module__bytes(e->mod);
		out->dwarf_begun += (uint64_t)kp_module__dwarf_begun(e->mod);
		out->dwarf_trimmed += kp_module__dwarf_trims(e->mod);
	}
}
