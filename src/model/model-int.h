/* model-int.h — the model's internal structures, shared by the .c files of src/model/
 * (never included outside src/model/).
 *
 * Layout: everything lives in growable arrays indexed by uint32_t; ids
 * handed out in views are derived from those indices (plus one, so that 0
 * means "none") or hashed from them. Strings live in a pool owned by the
 * model until kp_model__free(): interned (one copy, found by the pool's
 * table), except function names, which only fn_tab finds.
 *
 * Memory (kp_model__mem() breaks it down; bench/model-bench prints it):
 * per distinct stack a 32-byte record and a stk_tab entry; per
 * trie node 20 bytes + 1 of flags; per distinct pc a 16-byte pc key, a
 * 16-byte frame per name (inlined ones too) and a pck_tab entry; per
 * function 12 bytes, its name and a fn_tab entry. Arrays grow by 1.125x
 * past 256 KB (util.c), hash tables keep a load of 0.6-0.75: 11-13
 * bytes per entry. Bitfields are bounded where they are set: modules
 * below KP_MODULE_MAX, cgroups below KP_CGROUP_MAX, pc key frame counts
 * at KP_MAX_INLINE (intern.c), a source line past 2^31 - 1 becomes 0.
 *
 * Distinct stacks: a hash table keyed by a 64-bit hash of the raw sample
 * (process identity, tid, cgroup, flags, kernel pcs, user pcs) points to
 * a fixed-size record (struct kp_stk, 32 bytes; the table keeps the low
 * half of the hash, the record the high half). The pcs themselves are not
 * kept: a new stack is mapped to frames once and hung in the call trie
 * (one trie per process identity; a node's children are a list, searched
 * only when a new stack is hung in; a node with many children, such as
 * the root of a process whose frame-pointer stacks end in junk, has them
 * indexed in a hash table as well), and its record keeps its leaf node,
 * its thread (identity and tid) and its interned cgroup. Two different
 * raw stacks with the same 64-bit hash would share a record: about 1 in
 * 10^7 for a million stacks, accepted for the memory (the pcs are most
 * of a stack's size).
 * Node counts are derived from the per-stack counts for the views, and
 * kept between views (view-cache.c).
 *
 * Errors: 0 or -errno (-ENOMEM). Not thread-safe.
 */
#ifndef KP_MODEL_INT_H
#define KP_MODEL_INT_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

#define KP_NONE UINT32_MAX
#define KP_NS 1000000000ull

/* ---- hashing and growable arrays (util.c) ---- */

static inline uint64_t kp_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static inline uint64_t kp_hash2(uint64_t a, uint64_t b)
{
	return kp_mix64(a * 0x9e3779b97f4a7c15ull + kp_mix64(b + 0x632be59bd9b4e019ull));
}

static inline double kp_fabs(double x)
{
	return x < 0 ? -x : x;
}

uint64_t kp_hash_bytes(const void *p, size_t n, uint64_t seed);

/* Make room for `need` elements of `elsz` bytes in *pp (a T **). */
int kp_grow(void *pp, size_t *cap, size_t need, size_t elsz);
/* Give back the room of *pp past nr elements (and a quarter) when it is
 * more than twice that; a failed realloc leaves it as it was. */
void kp_shrink(void *pp, size_t *cap, size_t nr, size_t elsz);



/* Open addressing, linear probing. A slot holds (hash << 32 | val + 1);
 * 0 is empty. A hash starts probing at hash * n / 2^32, so the table can
 * have any size: past 4096 slots it grows by 1.25x past a load of 3/4
 * (13.3 bytes per entry at worst, 10.7 at best); smaller ones double past
 * 1/2. The table never deletes: callers rebuild it. */
struct kp_htab {
	uint64_t *slots;
	size_t n;	/* slots, 0 when empty */
	size_t nr;
};

static inline size_t kp_htab_pos(const struct kp_htab *h, uint32_t hash)
{
	return (size_t)(((uint64_t)hash * h->n) >> 32);
}

int kp_htab__insert(struct kp_htab *h, uint32_t hash, uint32_t val);
/* Room for `need` entries without growing again. */
int kp_htab__reserve(struct kp_htab *h, size_t need);
void kp_htab__clear(struct kp_htab *h);
void kp_htab__fini(struct kp_htab *h);

/* First slot of `hash`'s probe sequence whose value satisfies eq, or
 * NULL. The value in a slot s is (uint32_t)*s - 1. */
#define KP_HTAB_FIND(h, hash32, val, cond, found)			\
	do {								\
		(found) = NULL;						\
		if ((h)->n == 0)					\
			break;						\
		size_t i_ = kp_htab_pos((h), (hash32));			\
		for (;;) {						\
			uint64_t s_ = (h)->slots[i_];			\
			if (s_ == 0)					\
				break;					\
			if ((uint32_t)(s_ >> 32) == (hash32)) {		\
				(val) = (uint32_t)s_ - 1;		\
				if (cond) {				\
					(found) = &(h)->slots[i_];	\
					break;				\
				}					\
			}						\
			if (++i_ == (h)->n)				\
				i_ = 0;					\
		}							\
	} while (0)

/* String pool: NUL-terminated, never freed before the model; interned
 * (one copy, found by a table) or only stored (function names: their
 * table is the model's fn_tab). */
struct kp_strpool {
	char **chunks;
	size_t nr_chunks, cap_chunks;
	char *cur;
	size_t left;
	const char **strs;
	size_t nr, cap;
	struct kp_htab tab;
	size_t bytes;
};

const char *kp_strpool__intern(struct kp_strpool *p, const char *s);
/* The index of interned s in p->strs, or KP_NONE (-ENOMEM). */
uint32_t kp_strpool__intern_idx(struct kp_strpool *p, const char *s);
const char *kp_strpool__store(struct kp_strpool *p, const char *s, size_t len);
const char *kp_strpool__printf(struct kp_strpool *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kp_strpool__fini(struct kp_strpool *p);

/* ---- modules, functions, frames (intern.c) ---- */

#define KP_MOD_UNKNOWN 0	/* pcs in no mapping: "[unknown]" */
#define KP_MOD_OTHER 1		/* the [other] pseudo module */

struct kp_model_module {
	const char *name;	/* display name */
	const char *path;	/* mapping path; kernel: "[kernel.kallsyms]" */
	uint32_t maj, min;
	uint64_t ino;
	uint32_t proc;		/* anonymous modules belong to one process (its serial) */
	uint64_t map_start, map_limit, map_pgoff;	/* first mapping seen */
	uint8_t build_id_len;
	uint8_t build_id[KP_BUILD_ID_MAX];
	uint8_t kernel;
	int32_t symtab;		/* index in m->symtabs, -1: none */
	void *held;		/* resolver hold while late keys of it wait */
};

/* 12 bytes (packed: 4 would be padding). */
struct kp_func {
	const char *name;
	uint32_t module : 28;
	uint32_t kernel : 1;
	uint32_t unknown : 1;	/* "module+0xoffset": no name was found */
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
};

/* ---- processes (proc.c) ---- */

struct kp_proc {
	uint32_t pid;
	uint64_t start_ns;
	const char *comm, *exe;
	uint32_t root;		/* trie root node */
	uint32_t serial;	/* identity: stable when procs are renumbered */
	uint8_t gone, placeholder, kthread;
	uint8_t merged;		/* the exited processes of one command (merge.c) */
	uint32_t nmerged;	/* merged: how many */
	char *label;		/* merged: "comm xN", the row's name (its own
				 * KP_LABEL_LEN bytes; else comm) */
	struct kp_map_info *maps;	/* sorted by addr, no overlaps */
	uint32_t *map_mod;		/* module of each mapping */
	size_t nr_maps, cap_maps;
	uint32_t npend;			/* its stacks waiting in m->pend */
	uint32_t pend_from;		/* npend: the first one's index */
};

#define KP_LABEL_LEN (KP_COMM_LEN + 16)

struct kp_thread {
	uint32_t proc, tid;
	const char *name;
};

struct kp_cgroup {
	uint64_t id;
	const char *name;	/* path; NULL until a CGROUP record names it */
};

/* ---- the call trie (tree.c) ---- */

struct kp_node {
	uint32_t parent;	/* KP_NONE for a root */
	uint32_t frame;
	uint32_t proc;
	uint32_t child, next;	/* first child, next sibling (KP_NONE: none) */
};
#define KP_NODE_DUP 1u		/* an ancestor has the same function */
#define KP_NODE_OTHER 2u	/* an [other] node */
#define KP_NODE_WIDE 4u		/* its children are in m->wide_tab too */
#define KP_WIDE_AT 16		/* children searched in a list before that */

/* ---- distinct stacks (feed.c) ---- */

/* 32 bytes. The 64-bit hash of the raw sample is split: its low half is
 * the record's hash in stk_tab, its high half is kept here. The process
 * identity and tid are the thread's; the cgroup id is interned. */
struct kp_stk {
	uint32_t key;		/* high half of the raw sample's hash */
	uint32_t thr;		/* m->threads: process identity and tid */
	uint32_t leaf;		/* trie node */
	uint32_t cgroup : 28;	/* m->cgroups */
	uint32_t flags : 4;	/* KP_STK_* */
	double cur;		/* count in the time mode */
	uint64_t samples;	/* raw samples since the zero or the mark */
};
#define KP_STK_IDLE 1u
#define KP_STK_FOLDED 2u	/* its leaf is an [other] node */
#define KP_STK_MERGED 4u	/* cold folded stacks merged: never sampled */
#define KP_STK_DIRTY 8u		/* changed since the last view (view-cache.c) */
#define KP_CGROUP_MAX (1u << 28)	/* interned cgroups */

/* ---- stacks not hung in the trie yet (pending.c) ---- */

/* A new stack in deferred mode: counted in m->stks (leaf KP_NONE), its
 * pcs at m->ppcs[off..]: nk kernel pcs, innermost first, then nu user
 * pcs, innermost first; or, once user_named, nu user pc keys (root
 * first, kp_feed__user_pcks) in their place. */
struct kp_pend {
	uint32_t stk;
	uint32_t off;
	uint16_t nk, nu;
	uint8_t user_named;
};
#define KP_PEND_MAX_BYTES (8u << 20)	/* then every waiting stack is hung */

/* ---- time (time.c) ---- */

/* A stack's samples in one second of the window: 8 bytes. n is 32-bit
 * because one weighted sample record may stand for many samples (runs of
 * idle samples: some 250 each; a file may say up to 2^32 - 1), and a
 * narrower count would split such a record into many entries. */
struct kp_went {
	uint32_t stk;
	uint32_t n;
};

struct kp_wbucket {
	uint64_t sec;
	struct kp_went *e;	/* freed when the bucket expires */
	size_t nr, cap;
	uint8_t used;
};

struct kp_window {
	struct kp_wbucket *b;
	size_t nb;
	uint64_t now_ns;	/* newest time seen */
	uint32_t *slot;		/* per stack: index of its last entry, in
				 * whichever bucket (checked before use) */
	size_t cap;
};

/* ---- filters (filter.c) ---- */

struct kp_filt {
	struct kp_filter f;	/* strings point to the copies below */
	char *comm, *module, *name;
	regex_t re;
	int have_re;
	uint32_t module_idx_gen;
	uint8_t *fn_match;	/* per function: 0 unknown, 1 no, 2 yes */
	size_t cap_fn_match, nr_fn_match;
};

/* ---- scratch buffers, reused by every view (util.c) ---- */

enum kp_sc {
	KP_SC_EFF, KP_SC_PM, KP_SC_VMAP, KP_SC_MARK, KP_SC_KEYS, KP_SC_KEYS2,
	KP_SC_MAX,
};

struct kp_scratch {
	void *p;
	size_t cap;
};

struct kp_model;
/* Scratch buffer `slot` of at least `bytes` (zeroed if zero), owned by
 * the model and valid until the next call for the same slot; NULL on
 * -ENOMEM. */
void *kp_scratch(struct kp_model *m, enum kp_sc slot, size_t bytes, int zero);
void kp_scratch__fini(struct kp_model *m);

/* Sort keys: k ascending, ties by i ascending (stable radix sort). */
struct kp_skey {
	uint64_t k;
	uint32_t i;
};
int kp_sort_keys(struct kp_model *m, struct kp_skey *a, size_t n);
/* A key that sorts doubles >= 0 in descending order. */
static inline uint64_t kp_desc_key(double d)
{
	uint64_t b;

	if (!(d > 0))
		d = 0;
	__builtin_memcpy(&b, &d, sizeof(b));
	return ~b;
}

/* ---- counts kept between views (view-cache.c) ---- */

struct kp_vnode {		/* per trie node, for the filter and time mode */
	double self, total;	/* counts ending at / through the node */
	uint64_t samp, sself;	/* raw samples through / ending at the node */
	uint32_t pair;		/* its (function, process) pair; KP_NONE: a root */
	uint32_t fn_next;	/* next node of the same function */
};

struct kp_vpair {		/* a function in a process */
	uint32_t fn, proc;
	uint32_t live;		/* its live first-call nodes */
};

struct kp_vfn {			/* per function: the flat view's row */
	double self, total, bself, btotal;
	uint64_t samp;
	uint64_t psum;		/* sum of the processes it runs in ... */
	uint32_t nprocs;	/* ... and their number */
	uint32_t head;		/* its first node (list by fn_next) */
};

struct kp_vdirty {		/* a stack's counts as of the last view */
	uint32_t stk;
	double cur;
	uint64_t samples;
};

struct kp_vcache {
	size_t nr_nodes, nr_fns;	/* covered by the arrays below */
	struct kp_vnode *n;
	double *bself, *btotal;		/* per node, with a baseline */
	size_t nr_base;			/* nodes bself/btotal cover */
	struct kp_vfn *f;
	size_t cap_n, cap_b, cap_f;
	struct kp_htab pair_tab;	/* (fn, proc) -> pair */
	struct kp_vpair *pairs;
	size_t nr_pairs, cap_pairs;
	uint32_t *eff;		/* the filter's preparation (filter.c) */
	uint8_t *pm;
	size_t nr_prep, cap_eff, cap_pm;
	const char **comm;	/* process comms the counts were taken with */
	size_t nr_comm, cap_comm;
	double vtotal, vbase;
	int counts_ok;		/* the counts match the model: log changes */
	struct kp_vdirty *log;	/* stacks changed since (KP_STK_DIRTY) */
	size_t nr_log, cap_log;
};

/* ---- the model ---- */

/* The summary's sums over every stack (kp_model__summary), kept so a
 * refresh does not walk every stack: a counted sample adds to them (whole
 * numbers, exact in any order); a change to many stacks (decay, a time
 * mode, zero, a fold) clears ok, and the next summary sums again. */
struct kp_sums {
	double total, idle;
	uint64_t folded;
	int ok;
};

static inline void kp_sums__add(struct kp_sums *u, const struct kp_stk *s,
				double dcur, uint64_t dsamples)
{
	if (!u->ok)
		return;
	if (s->flags & KP_STK_IDLE)
		u->idle += dcur;
	else
		u->total += dcur;
	if (s->flags & KP_STK_FOLDED)
		u->folded += dsamples;
}

struct kp_model {
	struct kp_resolver res;
	size_t max_nodes;
	struct kp_strpool strs;

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
	struct kp_frame_ref *refs;	/* for foreach_stack, made on demand */
	size_t nr_refs, cap_refs;

	struct kp_proc *procs;
	size_t nr_procs, cap_procs;
	struct kp_htab pid_tab;		/* pid -> current identity */
	uint32_t next_serial;
	size_t nr_gone;			/* exited, not merged yet */
	size_t merge_at;		/* merge when nr_gone reaches it */
	size_t nr_merged_rows;		/* merged procs */
	struct kp_htab merged_tab;	/* comm -> its merged proc */
	size_t max_bytes;		/* kp_model_opts.max_bytes, 0: none */
	uint64_t flushes;		/* counted batches, to check memory now and then */
	struct kp_thread *threads;
	size_t nr_threads, cap_threads;
	struct kp_htab thr_tab;
	struct kp_cgroup *cgroups;
	size_t nr_cgroups, cap_cgroups;
	struct kp_htab cg_tab;

	struct kp_node *nodes;
	uint8_t *nflags;
	size_t nr_nodes, cap_nodes, cap_nflags;
	size_t nr_other;
	size_t fold_at;			/* fold when nr_nodes exceeds it */
	struct kp_htab wide_tab;	/* (parent, frame) -> child, for WIDE parents */

	struct kp_stk *stks;
	size_t nr_stk, cap_stk;
	struct kp_htab stk_tab;
	double *base;			/* per stack, with a baseline */
	size_t cap_base;
	int has_base;

	enum kp_time_mode mode;
	unsigned window_s;
	struct kp_window win;

	struct kp_filt filt;
	struct kp_vcache vc;

	struct kp_batch *batch;		/* samples not yet counted (feed.c) */
	int defer;			/* kp_model_opts.defer_stacks */
	int eager_views;		/* kp_model_opts.eager_views */
	struct kp_pend *pend;		/* new stacks not hung yet (pending.c) */
	size_t nr_pend, cap_pend;
	uint64_t *ppcs;			/* their pcs */
	size_t nr_ppcs, cap_ppcs;
	struct kp_scratch sc[KP_SC_MAX];
	struct kp_model_summary sum;	/* counters kept as they come */
	struct kp_sums sums;
	uint64_t upcs[KP_MAX_FRAMES];
};

static inline struct kp_stk *kp_stk(const struct kp_model *m, uint32_t i)
{
	return &m->stks[i];
}

static inline uint32_t kp_stk_proc(const struct kp_model *m, const struct kp_stk *s)
{
	return m->threads[s->thr].proc;
}

static inline uint32_t kp_stk_tid(const struct kp_model *m, const struct kp_stk *s)
{
	return m->threads[s->thr].tid;
}

static inline uint64_t kp_stk_cgroup(const struct kp_model *m, const struct kp_stk *s)
{
	return m->cgroups[s->cgroup].id;
}

static inline uint32_t kp_node_fn(const struct kp_model *m, uint32_t n)
{
	return m->frames[m->nodes[n].frame].fn;
}

static inline const char *kp_frame_file(const struct kp_model *m,
					const struct kp_frame *f)
{
	return f->file ? m->strs.strs[f->file - 1] : NULL;
}

static inline int kp_frame_kernel(const struct kp_model *m, uint32_t f)
{
	return m->fns[m->frames[f].fn].kernel;
}

/* intern.c */
int kp_intern__init(struct kp_model *m);
void kp_intern__fini(struct kp_model *m);
uint32_t kp_intern__fn(struct kp_model *m, uint32_t module, const char *name);
/* The pc key of a user pc of process p (ret: a return address, named at
 * pc - 1) or of a kernel address; KP_NONE on -ENOMEM. late: a new key of
 * a file mapping is named later (kp_intern__name_late), its module held
 * by the resolver meanwhile, where the resolver can hold it. */
uint32_t kp_intern__user_pc(struct kp_model *m, uint32_t p, uint64_t pc, int ret,
			    int late);
/* Name every late pc key and release the resolver's holds. Before any
 * key's frames are read (kp_feed__hang calls it). */
int kp_intern__name_late(struct kp_model *m);
uint32_t kp_intern__kernel_pc(struct kp_model *m, uint64_t pc);
/* The one "[unknown]" frame that stands for callers in no mapping. */
#define KP_JUNK_OFF UINT64_MAX
uint32_t kp_intern__junk(struct kp_model *m);
uint32_t kp_intern__module(struct kp_model *m, const struct kp_map_info *mi,
			   uint32_t proc);
int kp_intern__symtab(struct kp_model *m, const struct kp_rec_symtab *st);
const char *kp_intern__source(struct kp_model *m, uint32_t frame);

/* proc.c */
void kp_proc__fini(struct kp_model *m);
/* The merged pseudo process of comm (made if new, not in pid_tab). */
uint32_t kp_proc__merged(struct kp_model *m, const char *comm);
/* Rebuild pid_tab, thr_tab and merged_tab after procs or threads were
 * renumbered. */
int kp_proc__reindex(struct kp_model *m);
/* The id of process proc's rows (process view, tree roots). */
uint64_t kp_proc__row_id(const struct kp_model *m, uint32_t proc);
uint32_t kp_proc__for_pid(struct kp_model *m, uint32_t pid, const char *comm,
			  int *created);
/* proc's user pcs were just named: if it is gone (a sample that came after
 * its exit), the resolver, which took the process up again to name them,
 * hears process_gone again, else it would keep it for ever; not when the
 * pid has a newer identity (an exec: the same pid and start time). */
void kp_proc__named_late(struct kp_model *m, uint32_t proc);
uint32_t kp_proc__thread(const struct kp_model *m, uint32_t proc, uint32_t tid);
/* The thread (proc, tid), named comm if new; KP_NONE on -ENOMEM. */
uint32_t kp_proc__seen_thread(struct kp_model *m, uint32_t proc, uint32_t tid,
			      const char *comm);
/* The index of cgroup id (interned, unnamed if new); KP_NONE on -ENOMEM. */
uint32_t kp_proc__cgroup(struct kp_model *m, uint64_t id);
const char *kp_proc__cgroup_name(struct kp_model *m, uint64_t id);
int kp_proc__feed(struct kp_model *m, const struct kp_record *r);
const struct kp_map_info *kp_proc__find_map(const struct kp_proc *p,
					    uint64_t pc, uint32_t *mod);

/* pending.c: new stacks wait (deferred mode) until kp_pend__resolve
 * hangs them all in the trie; kp_pend__name_user names the user pcs of
 * process proc's (its mappings are about to change or go), leaving the
 * rest (kernel names, the trie) for later. */
int kp_pend__push(struct kp_model *m, uint32_t stk, uint32_t proc,
		  const uint64_t *k, uint16_t nk, const uint64_t *u, uint16_t nu);
int kp_pend__resolve(struct kp_model *m);
void kp_pend__name_user(struct kp_model *m, uint32_t proc);
int kp_pend__full(const struct kp_model *m);
size_t kp_pend__bytes(const struct kp_model *m, size_t *used);
void kp_pend__fini(struct kp_model *m);

/* merge.c: the call trees, stacks and threads of exited processes are
 * merged into one pseudo process per command (procs[].merged), and
 * their mappings freed; procs, threads and nodes are renumbered. Only
 * when every stack is hung and no sample waits. */
int kp_merge__gone(struct kp_model *m);
/* Merge if many have exited, fold if the trie is big or the model over
 * its memory budget (feed.c calls it once every stack is hung). */
int kp_merge__tidy(struct kp_model *m, int err);
size_t kp_model__bytes(const struct kp_model *m);

/* tree.c */
uint32_t kp_tree__root(struct kp_model *m, uint32_t proc);
uint32_t kp_tree__child(struct kp_model *m, uint32_t parent, uint32_t frame);
uint32_t kp_tree__child_dup(struct kp_model *m, uint32_t parent, uint32_t frame,
			    int dup);
int kp_tree__fold(struct kp_model *m);
/* Drop the nodes i < old_nr with cut[i] set, keeping the order; renumber
 * parents, stack leaves and process roots into nidx (size nr_nodes). */
void kp_tree__compact(struct kp_model *m, const uint8_t *cut, size_t old_nr,
		      uint32_t *nidx);
uint64_t kp_tree__merged_key(const struct kp_stk *s, uint32_t leaf);
uint32_t *kp_tree__stack_hashes(const struct kp_model *m);
void kp_tree__redup(struct kp_model *m);
void kp_tree__fini(struct kp_model *m);

/* feed.c */
#define KP_BATCH 64
int kp_feed__sample(struct kp_model *m, const struct kp_rec_sample *s);
/* Count the batched samples; every other record calls it first. */
int kp_feed__flush(struct kp_model *m);
/* kp_feed__flush, then hang every waiting stack in the trie (and fold
 * the trie if it passed its bound): every reader calls it first. */
int kp_feed__settle(struct kp_model *m);
/* The leaf node of a new stack (kernel and user pcs, innermost first)
 * hung in process proc's trie; KP_NONE on -ENOMEM. In two steps: the
 * pc keys of the user pcs (named with the process's mappings), root
 * first, at most nu of them, into out (KP_NONE for one without memory;
 * 64-bit to sit in place of the pcs, pending.c; late: see
 * kp_intern__user_pc); then the walk down the trie, user keys and kernel
 * pcs. */
uint32_t kp_feed__stack_leaf(struct kp_model *m, uint32_t proc,
			     const uint64_t *k, size_t nk, const uint64_t *u,
			     size_t nu);
size_t kp_feed__user_pcks(struct kp_model *m, uint32_t proc, const uint64_t *u,
			 size_t nu, uint64_t *out, int late);
uint32_t kp_feed__hang(struct kp_model *m, uint32_t proc, const uint64_t *upck,
		       size_t n, const uint64_t *k, size_t nk);
size_t kp_feed__batch_bytes(const struct kp_model *m);
/* A new stack record, hash: the low half of its 64-bit hash. */
uint32_t kp_stk__new(struct kp_model *m, const struct kp_stk *s, uint32_t hash);
void kp_stk__fini(struct kp_model *m);

/* time.c */
int kp_time__add(struct kp_model *m, uint32_t stk, uint64_t t, uint32_t n);
void kp_time__clear_window(struct kp_model *m);
void kp_time__remap(struct kp_model *m, const uint32_t *remap);
void kp_time__fini(struct kp_model *m);

/* filter.c: per-node preparation for a view or a stack walk. */
struct kp_prep {
	uint32_t *eff;		/* nearest visible node on the path (self);
				 * NULL when nothing is hidden */
	uint8_t *pm;		/* bits of the frame filters matched on the path */
	uint8_t need;		/* bits a stack must have */
	size_t nr;
};
static inline uint32_t kp_eff(const struct kp_prep *p, uint32_t n)
{
	return p->eff ? p->eff[n] : n;
}
int kp_filter__prep(struct kp_model *m, struct kp_prep *p);
/* The preparation the views keep (m->vc), extended to the nodes added
 * since; p points into it. */
int kp_filter__prep_kept(struct kp_model *m, struct kp_prep *p);
/* Has a process's comm changed, under a comm filter, since the comms
 * were kept (kp_filter__comm_keep)? */
int kp_filter__comm_changed(const struct kp_model *m);
int kp_filter__comm_keep(struct kp_model *m);
void kp_filter__prep_free(struct kp_prep *p);
int kp_filter__stack(const struct kp_model *m, const struct kp_prep *p,
		     const struct kp_stk *s);
int kp_filter__visible(const struct kp_model *m, uint32_t frame);
void kp_filter__fini(struct kp_model *m);

/* view-cache.c: the per-node and per-function counts of the views, kept
 * between views and updated from the stacks changed since. */
enum kp_vc_what {
	KP_VC_COUNTS,	/* counts changed wholesale (time mode, zero, baseline) */
	KP_VC_FILTER,	/* ... and the filter */
	KP_VC_NODES,	/* ... and nodes or functions renumbered or renamed */
};
void kp_vcache__invalidate(struct kp_model *m, enum kp_vc_what what);
int kp_vcache__log(struct kp_model *m, uint32_t stk);
/* After KP_VC_NODES: give back the arrays sized for the old nodes. */
void kp_vcache__shrink(struct kp_model *m);
/* Cover the functions and nodes added since (at a view, or as stacks are
 * hung with eager_views); -ENOMEM leaves the rest to the next call. */
int kp_vcache__extend(struct kp_model *m);
/* Call before changing a stack's cur or samples. */
static inline void kp_vcache__touch(struct kp_model *m, uint32_t stk)
{
	if (m->vc.counts_ok && !(m->stks[stk].flags & KP_STK_DIRTY))
		(void)kp_vcache__log(m, stk);	/* on -ENOMEM the counts are redone */
}
/* Does node i count in a view: a count or a baseline through it
 * (btotal NULL without a baseline)? */
static inline int kp_node_live(const struct kp_vnode *n, const double *btotal,
			       uint32_t i)
{
	return n[i].total != 0 || (btotal && btotal[i] != 0);
}
struct kp_agg {			/* the counts for one view (the cache's) */
	const struct kp_vnode *n;	/* per trie node */
	const double *bself, *btotal;	/* per node; NULL without a baseline */
	const struct kp_vfn *f;		/* per function */
	double vtotal, vbase;
};
/* Bring the counts up to date with the model; p gets the filter's
 * preparation (owned by the cache). */
int kp_vcache__update(struct kp_model *m, struct kp_prep *p, struct kp_agg *a);
void kp_vcache__fini(struct kp_model *m);

/* view.c / view-tree.c */
int kp_view__sort_rows(struct kp_model *m, struct kp_row *rows, size_t nr,
		       enum kp_sort sort, double vtotal, double vbase);
int kp_view__process(struct kp_model *m, const struct kp_agg *a, struct kp_view *v);
int kp_view__grouped(struct kp_model *m, const struct kp_prep *p,
		     enum kp_view_kind kind, struct kp_view *v);
int kp_view__tree(struct kp_model *m, const struct kp_view_opts *o,
		  const struct kp_prep *p, const struct kp_agg *a,
		  struct kp_view *v);

#endif /* KP_MODEL_INT_H */
