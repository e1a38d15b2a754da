/* SPDX-License-Identifier: GPL-2.0-only */
/* symbols-int.h — private state of a kp_symbols, shared by symbols.c
 * (construction, kernel, stats), user.c (processes, mappings, module
 * cache, vdso), jitcache.c (JIT tables) and remote.c (debuginfod). Not
 * part of the API: include only from those.
 */
#ifndef KP_SYMBOLS_SYMBOLS_INT_H
#define KP_SYMBOLS_SYMBOLS_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "symbols/debuginfod.h"
#include "symbols/dwcache.h"
#include "symbols/jitname.h"
#include "symbols/kallsyms.h"
#include "symbols/module.h"
#include "symbols/symbols.h"
#include "symbols/symtab.h"

#define KP_PROC_BUCKETS 1024
#define KP_VDSO_MAX (1u << 20)
#define KP_JIT_CODE_MAX 65536u	/* bytes of one JIT function annotated */
#define KP_DEFAULT_MAX_FILE (1ull << 30)
#define KP_MINIDEBUG_MAX (256u << 20)
#define KP_IDLE_MODULES 64	/* unused modules kept loaded (LRU) */
#define KP_DWARF_KEEP_NS 2000000000ull	/* DWARF kept 2 s past a lookup */
#define KP_JIT_RECHECK_NS 1000000000ull	/* a missing/unchanged map: 1/s */
#define KP_JIT_COST_FACTOR 50	/* rereads: at most 1/50 of the time */
#define KP_JIT_BUDGET (128u << 20)	/* bytes of all JIT tables together */
#define KP_JIT_BUSY_NS 100000000ull	/* another map being read: retry */
#define KP_JIT_POLL_NS 250000000ull	/* kp_symbols__jit_poll's walks, at most */
#define KP_PARKED_MAX 16	/* fetched debug files waiting for a module */

enum kp_map_kind { MAP_NONE = 0, MAP_FILE, MAP_VDSO, MAP_ANON };

struct kp_modent {
	char key[96];
	uint32_t maj, min;	/* the file's device and inode (0: none) */
	uint64_t ino;
	int64_t size, mtime_s;	/* the file's, when it was read (file_module) */
	long mtime_ns;
	struct kp_module *mod;
	unsigned refs;
	uint64_t idle_seq;	/* refs == 0: when it became unused */
	uint64_t use_seq;	/* when a lookup last used it */
	size_t bytes;		/* kp_module__bytes when last looked at */
	uint64_t dw_ns;		/* DWARF begun: its last lookup; 0: not */
	uint64_t debug_epoch;	/* a debug file came then (remote.c); 0: not */
	struct kp_modent *next;
};

struct kp_pmap {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min;
	enum kp_map_kind kind;
	struct kp_modent *me;	/* NULL: nothing to read (negative cache) */
};

/* The identity of a map file's contents, as far as stat tells. */
struct kp_jitid {
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns;
};

/* One map file's table, shared by the processes whose map it is. */
struct kp_jitent {
	struct kp_jitid id;
	unsigned refs;
	enum kp_jit_runtime runtime;	/* by the names it holds */
	struct kp_jittab *tab;
	struct kp_jitent *next;
};

struct kp_sym_proc {
	uint32_t pid;
	uint64_t start;
	struct kp_pmap *maps;
	size_t nr, cap, last;
	struct kp_jitent *jit;		/* NULL: no map read (yet) */
	uint64_t jit_next_ns;		/* next look at perf-PID.map on a miss */
	uint64_t jit_poll_ns;		/* ... by kp_symbols__jit_poll */
	uint64_t jit_cost_ns;		/* next read, after a slow one */
	int jit_polling;		/* the poll's before runs: no look */
	int jit_refused;		/* jit_refused_id was refused */
	struct kp_jitid jit_refused_id;
	uint32_t jit_nspid;		/* its pid in its own pid namespace */
	int jit_ns;			/* 0: not known yet; 1: our mount
					 * namespace; 2: another (a container) */
	struct kp_sym_proc *next;
};

struct kp_symbols {
	char **debug_dirs;
	char *kallsyms_path, *proc_root, *jit_dir;
	uint64_t max_file_size;
	int demangle;
	struct kp_modent *modules;
	size_t nr_idle, keep_idle;	/* unused modules, and how many to keep */
	uint64_t idle_clock;
	size_t mod_bytes, max_bytes;	/* modules' bytes (modent.bytes), bound */
	uint64_t dwarf_keep_ns;		/* DWARF kept that long once begun */
	uint64_t use_clock;
	uint64_t clock_ns;		/* CLOCK_MONOTONIC, every 64 lookups */
	uint64_t released_ns;		/* clock_ns at the last page release */
	uint64_t released_seq;		/* use_clock then */
	struct kp_sym_proc *procs[KP_PROC_BUCKETS];
	struct kp_jitent *jits;		/* JIT tables, st.jit_bytes in all */
	size_t jit_budget;
	unsigned jit_wait_ms;		/* 0: maps read in the caller's thread */
	struct kp_jitworker *jit_worker;	/* else by this one */
	struct kp_sym_proc *jit_job_proc;	/* the process of its read (or NULL) */
	int jit_slow;			/* a lookup waited for that read in vain */
	struct kp_jitid jit_over_id;	/* the last map over the budget, */
	size_t jit_over_bytes;		/* with this much held then */
	struct kp_jitid jit_job_id;
	struct kp_debuginfod *dbgd;	/* NULL: no debug files fetched */
	uint64_t debug_epoch;		/* debug files added to modules */
	uint64_t jit_epoch;		/* JIT tables read (jitcache.c) */
	uint64_t jit_poll_ns;		/* the next poll's walk, at the earliest */
	/* fetched files no module wanted when they came (remote.c) */
	struct kp_debuginfod_result parked[KP_PARKED_MAX];
	size_t nr_parked;
	struct kp_dwcache *dwcache;	/* NULL: no persistent DWARF cache */
	char cache_status[KP_ERR_MSG];	/* why not, when it was asked for */
	struct kp_kallsyms *kallsyms;
	int kallsyms_tried;
	char kstatus[256];
	char namebuf[256];
	struct kp_jitname jitname;	/* the last JIT frame's parts */
	uint8_t *jit_code;		/* the last JIT code read (annotate) */
	struct kp_symbols_stats st;
};

/* user.c */
void kp_symbols__drop_procs(struct kp_symbols *s);
void kp_symbols__drop_proc(struct kp_symbols *s, uint32_t pid, uint64_t start);
const char *kp_symbols__user_module_name(struct kp_symbols *s,
					 const struct kp_sym_map *map);
struct stat;
/* The file of a mapping, opened safely (procfs.h), with its stat in *st
 * and, when buf is not NULL, its path. When the process is gone (or its
 * root cannot be entered), the host's file at that path stands for the
 * mapped one if its device and inode are the mapping's (checked by the
 * open) or, for an mmap2 event that gave a build-id instead, if the file
 * has that build-id (the caller checks it once the file is read). An fd
 * the caller closes, or -errno. */
int kp_symbols__open_map(const struct kp_symbols *s, const struct kp_sym_map *map,
			 struct stat *st, char *buf, size_t len);

struct kp_jitworker;

/* remote.c: debug files from debuginfod servers. ask: for module m,
 * just opened, if it wants one (kp_module__wants_debug): a parked file
 * at once, else a fetch; poll: add the fetched ones to the modules
 * waiting for them, or park them (before a lookup); drop: close the
 * parked ones. */
void kp_remote__ask(struct kp_symbols *s, struct kp_module *m);
void kp_remote__poll(struct kp_symbols *s);
void kp_remote__drop(struct kp_symbols *s);

/* jitcache.c: the name of JIT code at addr in process p (its jitdump or
 * perf map read, or read again when need be), or NULL, with its source
 * line where the jitdump gave one (*file NULL if not); and the release of
 * p's table. */
const char *kp_jit__lookup(struct kp_symbols *s, struct kp_sym_proc *p, uint64_t addr,
			   const char **file, uint32_t *line);
void kp_jit__drop(struct kp_symbols *s, struct kp_sym_proc *p);
/* The same name, with the range of the entry naming it (annotate). */
const char *kp_jit__range(struct kp_symbols *s, struct kp_sym_proc *p, uint64_t addr,
			  uint64_t *start, uint64_t *size);
/* p's JIT file read if it has none yet (as a lookup would: at most once
 * a second), so that its mappings' module is named by its runtime. */
void kp_jit__refresh(struct kp_symbols *s, struct kp_sym_proc *p);
/* Stop the reader thread (a read in progress is abandoned). */
void kp_jit__stop(struct kp_symbols *s);

#endif /* KP_SYMBOLS_SYMBOLS_INT_H */
