/* SPDX-License-Identifier: GPL-2.0-only */
/* intern.h — the interned modules, functions, pc keys and frames, and
 * the symtabs a stream carries (intern.c; m->in). proc.c and feed.c add
 * them as mappings and pcs arrive; every view and writer reads them.
 * Names come through the resolver (or a saved stream's symtabs).
 * Memory: per distinct pc a 16-byte pc key, a 16-byte frame per name
 * (inlined ones too) and a pck_tab entry; per function 12 bytes, its
 * name and a fn_tab entry. Bitfields are bounded where they are set:
 * modules below KP_MODULE_MAX, a key's frames at KP_MAX_INLINE, a source
 * line past 2^31 - 1 becomes 0. Internal to src/model/.
 */
#ifndef KP_MODEL_INTERN_H
#define KP_MODEL_INTERN_H

#include "model/model-util.h"

struct kp_mem;

#define KP_MOD_UNKNOWN 0	/* pcs in no mapping: "[unknown]" */
#define KP_MOD_OTHER 1		/* the [other] pseudo module */
#define KP_MOD_OFFCPU 2		/* off-CPU states and wakers: "[off-cpu]" */
/* A module of frames that name no code (no file, no address). */
static inline int kp_mod_pseudo(uint32_t mod)
{
	return mod <= KP_MOD_OFFCPU;
}

struct kp_model_module {
	const char *name;	/* display name */
	const char *path;	/* mapping path; kernel: "[kernel.kallsyms]" */
	uint32_t maj, min;
	uint64_t ino;
	uint32_t proc;		/* anonymous modules belong to one process (its serial) */
	uint32_t gen;		/* ... and to one generation of its JIT code */
	uint32_t first;		/* its first generation's module (itself but for
				 * a later JIT generation): its functions are
				 * that one's, so they are one row in views */
	uint32_t pid;		/* that process's pid and start: its SYMTAB owner */
	uint64_t pstart;
	uint64_t map_start, map_limit, map_pgoff;	/* first mapping seen */
	uint8_t build_id_len;
	uint8_t build_id[KP_BUILD_ID_MAX];
	uint8_t kernel;
	int32_t symtab;		/* index in m->in.symtabs, -1: none */
	void *held;		/* resolver hold while late keys of it wait */
	uint8_t prefetched;	/* the resolver's prefetch was called */
};

/* A module of anonymous code (JIT code): a user mapping with neither a
 * build ID nor an inode, which kp_intern__module keeps private to its
 * process, and no file name either ("", "//anon", "[anon:...]",
 * "[heap]": a path with neither, as a synthetic stream may give, is
 * still a file's). */
int kp_module_anon(const struct kp_model_module *mod);

/* 12 bytes (packed: 4 would be padding). */
struct kp_func {
	const char *name;
	uint32_t module : 28;
	uint32_t kernel : 1;
	uint32_t unknown : 1;	/* "module+0xoffset": no name was found */
	uint32_t start_line;	/* first line, from the first frame that knew it */
} __attribute__((packed, aligned(4)));

/* A distinct code address: (module, offset). Its names are frames
 * frames[first .. first + n): inlined ones first, the containing
 * function last. n == 0: not named yet (a "late" key, whose module the
 * resolver holds; kp_intern__name_late names it). 16 bytes. */
struct kp_pck {
	uint64_t off;		/* user: file offset; kernel: address */
	uint32_t module : 28;
	uint32_t n : 4;		/* <= KP_MAX_INLINE */
	uint32_t first;
};
#define KP_MODULE_MAX (1u << 28)

/* 16 bytes. */
struct kp_frame {
	uint32_t fn;
	uint32_t pck;		/* KP_NONE for the root and [other] frames */
	uint32_t file;		/* source file: its index in m->strs + 1; 0: none */
	uint32_t line : 31;
	uint32_t inlined : 1;
};

#define KP_FRAME_ROOT 0
#define KP_FRAME_OTHER 1

struct kp_model_symtab {
	const char *path;
	uint8_t build_id_len;
	uint8_t build_id[KP_BUILD_ID_MAX];
	struct kp_symbol *syms;	/* names interned in the pool, sorted */
	size_t nr;
	struct kp_jit_owner owner;	/* pid 0: none (minor 12) */
};

/* Interned modules, functions, pc keys and frames (intern.c). */
struct kp_intern {
	struct kp_model_module *mods;
	size_t nr_mods, cap_mods;
	struct kp_htab mod_tab;
	struct kp_func *fns;
	size_t nr_fns, cap_fns;
	struct kp_htab fn_tab;
	struct kp_pck *pcks;
	size_t nr_pcks, cap_pcks;
	struct kp_htab pck_tab;
	struct kp_frame *frames;
	size_t nr_frames, cap_frames;
	struct kp_model_symtab *symtabs;
	size_t nr_symtabs, cap_symtabs;
	uint32_t *late;			/* pc keys not named yet (n == 0) */
	size_t nr_late, cap_late;
	uint32_t *held;			/* modules with a resolver hold */
	size_t nr_held, cap_held;
	struct kp_htab line_tab;	/* (fn, file, line, inlined) -> frame */
	struct kp_frame_ref *refs;	/* for foreach_stack, made on demand */
	size_t nr_refs, cap_refs;
	uint64_t names_epoch;		/* the resolver's, at the last rename */
	uint64_t jit_epoch;		/* its jit_epoch then */
	uint64_t jit_gen_epoch;		/* its jit_epoch at the last jit check */
};

int kp_intern__init(struct kp_model *m);
void kp_intern__fini(struct kp_model *m);
void kp_intern__bytes(const struct kp_intern *in, struct kp_mem *a);
uint32_t kp_intern__fn(struct kp_model *m, uint32_t module, const char *name);
/* Function fn's first line is line (0: not known) unless one is kept:
 * the first frame that knew it says it. */
void kp_intern__fn_start_line(struct kp_model *m, uint32_t fn, uint32_t line);
/* The pc key of a user pc of process p (ret: a return address, named at
 * pc - 1) or of a kernel address; KP_NONE on -ENOMEM. late: a new key of
 * a file mapping is named later (kp_intern__name_late), its module held
 * by the resolver meanwhile, where the resolver can hold it. */
uint32_t kp_intern__user_pc(struct kp_model *m, uint32_t p, uint64_t pc, int ret,
			    int late);
/* The resolver's prefetch for the modules of user pcs u[0..nu) of
 * process p not prefetched yet (a new stack's; nothing without the op). */
void kp_intern__prefetch(struct kp_model *m, uint32_t p, const uint64_t *u, size_t nu);
/* rename.c: when the resolver's names_epoch grew, name again the keys
 * named only "module+0xoffset" or without a source line (their one
 * frame, in place); when its jit_epoch grew, the JIT keys named only
 * "module+0xoffset" of live processes. 1 when a name changed, 0 when
 * none, -ENOMEM. */
int kp_intern__rename(struct kp_model *m);
/* Name every late pc key and release the resolver's holds. Before any
 * key's frames are read (kp_feed__hang calls it). */
int kp_intern__name_late(struct kp_model *m);
uint32_t kp_intern__kernel_pc(struct kp_model *m, uint64_t pc);
/* The pc key of the one frame named name in the "[off-cpu]" module (a
 * task state or a waker: offcpu.c), found or made; KP_NONE on -ENOMEM. */
uint32_t kp_intern__pseudo(struct kp_model *m, const char *name);
/* The one "[unknown]" frame that stands for callers in no mapping. */
#define KP_JUNK_OFF UINT64_MAX
uint32_t kp_intern__junk(struct kp_model *m);
uint32_t kp_intern__module(struct kp_model *m, const struct kp_map_info *mi,
			   uint32_t proc);
int kp_intern__symtab(struct kp_model *m, const struct kp_rec_symtab *st);
/* symtabs.c: does symtab st belong to module mod (its owner's JIT code
 * of that generation; else build id, else path)?
 * The symbol st gives offset off (its name "": a function without a
 * name starts at its addr), or NULL. */
int kp_intern__symtab_matches(const struct kp_model_symtab *st,
			      const struct kp_model_module *mod);
const struct kp_symbol *kp_intern__symtab_sym(const struct kp_model_symtab *st,
					      uint64_t off);
/* The function "module @0xSTART" of code without a name at file offset
 * start of user module mod (KP_NONE on -ENOMEM); whether function fn is
 * one, and its start. */
uint32_t kp_intern__start_fn(struct kp_model *m, uint32_t mod, uint64_t start);
int kp_intern__fn_start(const struct kp_model *m, uint32_t fn, uint64_t *start);
const char *kp_intern__source(struct kp_model *m, uint32_t frame);
/* The frame that stands for frame's function, source line and
 * inlinedness where pcs are not told apart (merged trees, leaves under
 * [other]): the first one asked for; frame itself for the root and
 * [other] frames; KP_NONE on -ENOMEM. */
uint32_t kp_intern__line_frame(struct kp_model *m, uint32_t frame);

/* The frame that stands for frame's function where only the function
 * counts (a folded stack's leaf: stk.h): the first one asked for, kept
 * in line_tab; KP_NONE on -ENOMEM. */
uint32_t kp_intern__fn_frame(struct kp_model *m, uint32_t frame);

#endif /* KP_MODEL_INTERN_H */
