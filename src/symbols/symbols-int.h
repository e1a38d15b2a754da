/* symbols-int.h — private state of a kp_symbols, shared by symbols.c
 * (construction, kernel, stats) and user.c (processes, mappings, module
 * cache, JIT, vdso). Not part of the API: include only from those two.
 */
#ifndef KP_SYMBOLS_SYMBOLS_INT_H
#define KP_SYMBOLS_SYMBOLS_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "symbols/kallsyms.h"
#include "symbols/module.h"
#include "symbols/symbols.h"
#include "symbols/symtab.h"

#define KP_PROC_BUCKETS 1024
#define KP_VDSO_MAX (1u << 20)
#define KP_DEFAULT_MAX_FILE (1ull << 30)
#define KP_MINIDEBUG_MAX (256u << 20)
#define KP_IDLE_MODULES 64	/* unused modules kept loaded (LRU) */
#define KP_JIT_RECHECK_NS 1000000000ull	/* a missing/unchanged map: 1/s */

enum kp_map_kind { MAP_NONE = 0, MAP_FILE, MAP_VDSO, MAP_ANON };

struct kp_modent {
	char key[96];
	uint32_t maj, min;	/* the file's device and inode (0: none) */
	uint64_t ino;
	struct kp_module *mod;
	unsigned refs;
	uint64_t idle_seq;	/* refs == 0: when it became unused */
	struct kp_modent *next;
};

struct kp_pmap {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min;
	enum kp_map_kind kind;
	struct kp_modent *me;	/* NULL: nothing to read (negative cache) */
};

struct kp_proc {
	uint32_t pid;
	uint64_t start;
	struct kp_pmap *maps;
	size_t nr, cap, last;
	struct kp_symtab *jit;
	off_t jit_size;
	uint64_t jit_checked_ns;	/* last look at perf-PID.map */
	struct kp_proc *next;
};

struct kp_symbols {
	char **debug_dirs;
	char *kallsyms_path, *proc_root, *jit_dir;
	uint64_t max_file_size;
	int demangle;
	struct kp_modent *modules;
	size_t nr_idle, keep_idle;	/* unused modules, and how many to keep */
	uint64_t idle_clock;
	struct kp_proc *procs[KP_PROC_BUCKETS];
	struct kp_kallsyms *kallsyms;
	int kallsyms_tried;
	char kstatus[256];
	char namebuf[256];
	struct kp_symbols_stats st;
};

/* user.c */
void kp_symbols__drop_procs(struct kp_symbols *s);
void kp_symbols__drop_proc(struct kp_symbols *s, uint32_t pid, uint64_t start);
const char *kp_symbols__user_module_name(struct kp_symbols *s,
					 const struct kp_sym_map *map);

#endif /* KP_SYMBOLS_SYMBOLS_INT_H */
