/* SPDX-License-Identifier: GPL-2.0-only */
/* model.h — live call trees from the record stream, and the views drawn
 * from them.
 *
 * Owns: processes (identity = pid + start time; exec starts a new one),
 * their threads and mappings, interned frames (module + offset), per
 * process call trees with self/total counts, the time mode (cumulative,
 * decaying, sliding window), the baseline, filters and the node limit.
 *
 * Who calls it: src/main/kptop.c (batch, reports) and src/tui/. It is plain C:
 * no I/O of its own. Frame names and DWARF unwinding come through the
 * resolver the caller hands in (src/symbols/ in kptop, fakes in tests).
 *
 * Ownership: the model copies what it keeps out of the records it is fed.
 * Views are snapshots owned by the caller (kp_view__free); their strings
 * stay valid until the model is freed. Not thread-safe: one thread feeds
 * and reads it.
 *
 * Errors: 0 or negative errno (-ENOMEM); the model never exits.
 *
 * Cost: memory grows with distinct stacks (a 40-byte record each, keyed
 * by a 64-bit hash of the raw sample: pcs are not kept) and trie nodes
 * (20 bytes each, bounded by max_nodes), not with samples. Samples are
 * counted in batches of 64: every reader below (views, summary, foreach,
 * refresh, time mode, zero, baseline) and every non-SAMPLE record counts
 * the pending ones first, so nothing is ever seen half-counted, and a new
 * stack's frames are named (resolver called) before any later record is
 * applied (an EXIT's process_gone comes after its frames were named).
 *
 * Inside (src/model/): struct kp_model (model-int.h) is one sub-struct
 * per part, each with its own header: the generic containers
 * (model-util.h), interned modules, functions, pc keys and frames
 * (intern.h), processes (proc-int.h), the call trie (trie.h), the
 * distinct stacks (stk.h), the batch and the pending stacks (feed.h,
 * pending.h), the time modes (time-int.h), the baseline, the summary,
 * the filter, the view cache, merging (merge.h) and the memory breakdown
 * (mem.h). Everything lives in growable arrays indexed by uint32_t; ids
 * handed out in views are those indices plus one (0: none) or hashed
 * from them. A sample is keyed by a hash of its raw stack: a new stack
 * is named once and hung in its process's trie, its pcs are not kept.
 * Node counts are derived from the stacks' counts for the views and kept
 * between views. Strings stay in the model's pool until kp_model__free.
 *
 * Words used in the model's code (model-int.h and its .c files):
 *  pc key (pck)   a distinct code address: module + offset, named once
 *                 into one or more frames (inlined ones first).
 *  late key       a pc key not named yet; the resolver holds its module
 *                 until kp_intern__name_late names it.
 *  hang           put a new stack into its process's call trie (walk down
 *                 from the root, adding nodes); a hung stack has a leaf.
 *  pending        deferred mode: a new stack is counted at once but hung
 *                 later (pending.c), when a reader needs the trie.
 *  settle         count the batched samples and hang every pending stack:
 *                 what every reader does first (kp_feed__settle).
 *  fold           the node limit: cut the coldest paths; a cut stack
 *                 becomes root -> "[other]" -> its leaf (fold.c).
 *  merge          an exited process's tree goes into its command's tree
 *                 (a stack hung after its process exited goes there
 *                 at once: kp_feed__hang).
 *  dup / redup    a node whose function is already on its path (a
 *                 recursion): counted once in a function's total; redup
 *                 recomputes that flag after nodes were renumbered.
 */
#ifndef KP_MODEL_H
#define KP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "stream/record.h"

/* ---- the resolver: names and unwinding, supplied by the caller ---- */

/* A mapping of a process, as the model knows it from MMAP records. */
struct kp_map_info {
	uint32_t pid;
	uint64_t proc_start_ns;		/* process identity with pid */
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint8_t build_id_len;
	uint8_t build_id[KP_BUILD_ID_MAX];
	const char *path;
};

/* The path of Python's pseudo module ("[python3.11]": a mapping that
 * src/pump/python.h makes, whose addresses stand for Python code) starts
 * so. Its addresses mean the same in every process, so it is one module
 * for all of them, as the kernel's [vdso] is. */
#define KP_PYTHON_MODULE_PREFIX "[python"

/* Is mi anonymous code (JIT code: neither a build ID nor an inode, not
 * the kernel's [vdso] or [vsyscall] nor Python's pseudo module, and no
 * file name: "", "//anon", "[anon:...]", "[heap]")? The rule by which
 * the model keeps such a mapping's module private to its process. */
int kp_map_info_anon(const struct kp_map_info *mi);

/* One name for one frame. Strings must live as long as the resolver. */
struct kp_frame_info {
	const char *name;	/* demangled function name; NULL: unknown */
	const char *mangled;	/* mangled name, or NULL if not mangled */
	const char *file;	/* source file, or NULL */
	uint32_t line;		/* 0 if unknown */
	uint32_t start_line;	/* the function's first line, 0 if unknown */
	int inlined;		/* 1: an inlined frame inside the next one */
	/* name NULL and start_known 1: a function without a name that
	 * starts at file offset start of its module (its FDE in the file's
	 * .eh_frame: stripped code), shown as "module @0xSTART" */
	int start_known;
	uint64_t start;
};

/* One machine instruction, for annotate (the resolver's disasm op). */
enum kp_insn_type { KP_INSN_T_OTHER = 0, KP_INSN_T_JUMP, KP_INSN_T_CALL, KP_INSN_T_RET };
struct kp_insn_info {
	uint64_t addr;		/* link-time address */
	uint32_t size;
	enum kp_insn_type type;
	uint64_t target;	/* a direct jump's or call's target, 0: none */
	const char *text;	/* "mnemonic operands"; valid during the call */
};

struct kp_resolver_ops {
	/* Name the code at `addr`: for a user frame map != NULL and addr is
	 * the virtual address in that mapping; for a kernel frame map == NULL
	 * and addr is the kernel address. Fill out[0..max): inlined frames
	 * first (innermost), the containing function last. Return the number
	 * filled (0: nothing known, shown as module+0xoffset; a user frame
	 * whose function has no name but a known start: one frame, name
	 * NULL, start_known 1) or -errno. */
	int (*symbolize)(void *ctx, const struct kp_map_info *map,
			 uint64_t addr, struct kp_frame_info *out, int max);
	/* Module display name for a mapping or the kernel (map == NULL and
	 * addr a kernel address: "[kernel]" or "[modname]"). May be NULL:
	 * then the model uses the basename of map->path. */
	const char *(*module_name)(void *ctx, const struct kp_map_info *map,
				   uint64_t addr);
	/* Unwind a sample that carries regs and stack bytes (KP_SAMPLE_REGS)
	 * using the process's mappings. Fill pcs[0..max) innermost first;
	 * return the count or -errno; set *truncated when it stopped early.
	 * May be NULL: then samples keep their frame-pointer user stack. */
	int (*unwind)(void *ctx, const struct kp_rec_sample *s,
		      const struct kp_map_info *maps, size_t nr_maps,
		      uint64_t *pcs, int max, int *truncated);
	/* Forget everything cached for an exited process. May be NULL. */
	void (*process_gone)(void *ctx, uint32_t pid, uint64_t start_ns);
	/* Only the name of the function holding user address addr of map
	 * (symbolize's last frame), cheaply: no DWARF where a symbol table
	 * names it. 1 with *name set (kept as symbolize's names), 0 unknown,
	 * or -errno. May be NULL. The model never calls it: it is for
	 * resolvers that judge stacks as they come (src/pump/autodwarf.c,
	 * python-ops.c). span, when not NULL: the function's bytes before
	 * addr and from addr to its end, 0 and 0 when not known. */
	int (*function)(void *ctx, const struct kp_map_info *map, uint64_t addr,
			const char **name, uint64_t span[2]);
	/* Names for later (may all be NULL: then the model names at once).
	 * hold: keep what names the code of map (its module) after the
	 * process is gone or remapped it; a handle, or NULL to name now.
	 * symbolize_held: as symbolize, for file offset off of a held
	 * module. release: every hold once, before the resolver is freed. */
	void *(*hold)(void *ctx, const struct kp_map_info *map);
	int (*symbolize_held)(void *ctx, void *held, uint64_t off,
			      struct kp_frame_info *out, int max);
	void (*release)(void *ctx, void *held);
	/* The first new stack with code of a file mapping's module (once
	 * per module), as samples come, before its frames are named: the
	 * resolver may start, in the background, what naming that code
	 * will need (fetching its debug file); it never waits. May be
	 * NULL. */
	void (*prefetch)(void *ctx, const struct kp_map_info *map);
	/* A count that grows when the resolver can name code better than
	 * before (a debug file came for a module); with held (a handle of
	 * hold), the count when that module's names got better (0: never).
	 * When it has grown, kp_model__refresh names again, through hold
	 * and symbolize_held, the pc keys named only "module+0xoffset" or
	 * without a source line of the modules that got better since: their
	 * one frame takes the containing function and line named now. May
	 * be NULL. */
	uint64_t (*names_epoch)(void *ctx, void *held);
	/* A count that grows when a process's JIT map was read (again):
	 * kp_model__refresh then asks symbolize again about the JIT keys
	 * (anonymous code) named only "module+0xoffset", through a mapping
	 * of their process while it lives. May be NULL. */
	uint64_t (*jit_epoch)(void *ctx);
	/* Look again at the JIT maps of live processes that are due (each
	 * at most once a second; jit_epoch grows when one is read again),
	 * calling before for a process whose map changed, before it is read
	 * (it may call symbolize, which still gives the old names):
	 * kp_model__jit_check calls it. May be NULL. */
	void (*jit_poll)(void *ctx, void (*before)(void *bctx, uint32_t pid, uint64_t start),
			 void *bctx);
	/* Annotate (both may be NULL: then only per-address counts). code:
	 * the function holding file offset off of map's module, as a CODE
	 * record (kptop-stream(5)): its bytes, link-time address and the
	 * source line of each instruction; borrowed until the next call. 1
	 * filled; 0 with *why a one-line reason; -errno. disasm: call cb
	 * for each instruction of code[0..len) at link-time address vaddr;
	 * 0, cb's non-zero return, or -errno. */
	int (*code)(void *ctx, const struct kp_map_info *map, uint64_t off,
		    struct kp_rec_code *out, const char **why);
	int (*disasm)(void *ctx, const uint8_t *code, size_t len, uint64_t vaddr,
		      int (*cb)(void *cbctx, const struct kp_insn_info *in),
		      void *cbctx);
	/* JIT code that unwind steps over by its instructions (both may be
	 * NULL): code_fed gets each CODE record the model is fed (a
	 * replay's anonymous code is what the saved run stepped by);
	 * unwind_codes calls cb with each function so used, as a CODE
	 * record, for a save (kp_model__foreach_code), and returns cb's
	 * first non-zero return, else 0. */
	void (*code_fed)(void *ctx, const struct kp_rec_code *c);
	int (*unwind_codes)(void *ctx, int (*cb)(void *cbctx, const struct kp_rec_code *c),
			    void *cbctx);
	/* A sample with Python frames (py_status set): its user stack
	 * u[0..nu) (innermost first, as unwound) with the Python frames put
	 * in the place of the interpreter's loop, as pcs of a mapping of the
	 * process, into out[0..max). Returns the count, or 0 to keep u. May
	 * be NULL (src/pump/python.h). */
	int (*python)(void *ctx, const struct kp_rec_sample *s, const uint64_t *u,
		      int nu, const struct kp_map_info *maps, size_t nr_maps,
		      uint64_t *out, int max);
};

struct kp_resolver {
	const struct kp_resolver_ops *ops;
	void *ctx;
};

/* ---- the model ---- */

enum kp_time_mode {
	KP_TIME_CUMULATIVE = 0,	/* since the last zero */
	KP_TIME_DECAY = 1,	/* each kp_model__refresh() multiplies by 7/8
				 * (a stack below 0.01 drops to 0) */
	KP_TIME_WINDOW = 2,	/* the last window_s seconds */
};
#define KP_DEFAULT_WINDOW_S 10	/* window_s 0 */

struct kp_model_opts {
	size_t max_nodes;		/* 0 = default (KP_MODEL_DEFAULT_MAX_NODES) */
	struct kp_resolver resolver;	/* ops may be NULL: no names */
	/* 1: a new stack is counted at once but named (resolver symbolize,
	 * module_name) and hung in the trie only when a view, report or
	 * refresh needs it, or when 8 MiB of stacks wait; its user frames
	 * are named before its process's mappings change or it goes away. Answers are the same;
	 * naming leaves the sampling path. The unwind op still runs as
	 * samples come (it needs their stack bytes). */
	int defer_stacks;
	/* 1: the structure the views share (per trie node its function's
	 * list and its (function, process) pair, per function a zero row)
	 * is extended as stacks are hung, not at the next view, so the first
	 * view of a large model costs what a later one does. For a caller
	 * that views again and again (the live view); a batch run, which
	 * views at most once, saves the memory until then. */
	int eager_views;
	/* The model's memory budget in bytes (0: none): past it exited
	 * processes are merged at once and the node limit is lowered (the
	 * coldest paths folded) until the model fits again. */
	size_t max_bytes;
	/* Merge exited processes once this many wait (0: the default,
	 * KP_MODEL_MERGE_AT). Their call trees, stacks and threads go into
	 * one pseudo process per command ("sh x231004": pid 0, the count in
	 * kp_row.nr_procs of process and tree rows) and their mappings are
	 * freed; counts are kept. */
	size_t merge_at;
	/* 1: stacks are told apart by the CPU their samples ran on as well
	 * (kp_stack_visit.cpu: pprof's cpu label); a thread that moves
	 * between CPUs has a stack per CPU. 0: cpu is -1. */
	int by_cpu;
};
#define KP_MODEL_DEFAULT_MAX_NODES 1000000
#define KP_MODEL_MERGE_AT 1024

struct kp_model;

/* Identities: EXEC starts a new identity with the same pid and start
 * time (the resolver hears process_gone for the old one first); PROCESS
 * with another start time starts one too (pid reuse); a PROCESS for a
 * placeholder (made by a SAMPLE/MMAP/THREAD of an unknown pid) adopts it.
 * The node limit: when the trie passes max_nodes, the coldest paths (by
 * current + baseline count per node freed) are cut until a sixteenth
 * is free; their stacks are counted under an "[other]" child of their
 * process's root, each keeping its leaf function for the views' function
 * counts and the whole-stack output (fold.c). */
struct kp_model *kp_model__new(const struct kp_model_opts *opts);
void kp_model__free(struct kp_model *m);

/* Feed one decoded record. SYMTAB records name frames of their module (a
 * saved stream carries its own names): the resolver's frames for an
 * address are kept only when they end in the function the SYMTAB names
 * there (the file read now is the one sampled: its inlined frames and
 * lines are the live run's too), else the SYMTAB's name stands. */
int kp_model__feed(struct kp_model *m, const struct kp_record *r);

/* JIT code replaced (jitgen.h): has the resolver look again at the JIT
 * maps that are due (jit_poll), and when one was read, finds the live
 * processes one of whose named JIT addresses the resolver names
 * otherwise now. Each is given in out[0..max) as a JITGEN record of its
 * next generation, which the caller feeds back (kp_model__feed applies
 * it) and saves, before the records that follow. Returns how many, or
 * -ENOMEM. The pump calls it between chunks of live records. */
int kp_model__jit_check(struct kp_model *m, struct kp_rec_jitgen *out, size_t max);

/* Called once per refresh with the newest time seen (or the clock):
 * applies the decay or expires the window, and names frames again when
 * the resolver's names got better (names_epoch). */
void kp_model__refresh(struct kp_model *m, uint64_t now_ns);

/* To CUMULATIVE: every sample since the zero or mark counts again. To
 * DECAY: the current counts start decaying. To WINDOW (window_s 0: the
 * last one, else KP_DEFAULT_WINDOW_S): the window starts empty; it is exact to one second
 * and older samples (by their time) are not counted. */
void kp_model__set_time_mode(struct kp_model *m, enum kp_time_mode mode,
			     unsigned window_s);
/* Zero the counts; processes, mappings, names and the baseline are kept. */
void kp_model__zero(struct kp_model *m);

/* What a count weighs (--weight): CPU, samples as they come (the
 * default); OFF, off-CPU time, each OFFCPU record counted as its
 * microseconds off the CPU under its stacks, SAMPLE records not counted;
 * WALL, both in microseconds, a SAMPLE as its period (1e6 / freq_hz of
 * the META record). Counts fed before a change keep their weight: the
 * caller zeroes the model with it. */
enum kp_weight { KP_WEIGHT_CPU = 0, KP_WEIGHT_OFF, KP_WEIGHT_WALL, KP_WEIGHT_MAX };
void kp_model__set_weight(struct kp_model *m, enum kp_weight w);
enum kp_weight kp_model__weight(const struct kp_model *m);
/* "cpu", "off", "wall"; parse: -EINVAL for another name. */
const char *kp_weight_name(enum kp_weight w);
int kp_weight_parse(const char *name, enum kp_weight *out);
/* Baseline: mark = take the current counts as the baseline and start a
 * fresh current window; clear = no baseline. Views then carry both. */
void kp_model__baseline_mark(struct kp_model *m);
void kp_model__baseline_clear(struct kp_model *m);
int kp_model__has_baseline(const struct kp_model *m);

/* ---- filters ---- */

struct kp_filter {
	uint32_t pid;			/* 0 = any */
	const char *comm;		/* exact process comm, NULL = any */
	uint64_t cgroup_id;		/* 0 = any */
	const char *module;		/* module display name, NULL = any */
	const char *name;		/* substring of the function name, or */
	int name_is_regex;		/* ... a POSIX extended regex */
	uint64_t focus_fn;		/* function id: only stacks through it; 0 = off */
	int hide_kernel, hide_user;	/* drop those frames from stacks */
	int show_idle;			/* idle samples are hidden unless set */
};
/* Copies what it needs. Returns -EINVAL for a regex that does not compile
 * (the old filter stays). module, name and focus hold for a stack when one
 * of its visible frames matches. */
int kp_model__set_filter(struct kp_model *m, const struct kp_filter *f);

/* ---- views ---- */

enum kp_view_kind {
	KP_VIEW_FLAT = 0,	/* functions: self, total, samples, module, procs */
	KP_VIEW_TOPDOWN,	/* call tree from the roots */
	KP_VIEW_BOTTOMUP,	/* callers of functions, from the leaves up */
	KP_VIEW_PROCESS,	/* one row per process */
	KP_VIEW_THREAD,		/* one row per thread */
	KP_VIEW_CGROUP,		/* one row per cgroup */
	KP_VIEW_MODULE,		/* one row per module */
	KP_VIEW_FLAME,		/* the boxes of a flame graph (view-flame.c) */
	KP_VIEW_KIND_MAX,
};

/* What a function is, for the colours of a flame graph. */
enum kp_frame_kind {
	KP_KIND_USER = 0,
	KP_KIND_KERNEL,
	KP_KIND_JIT,		/* code named from a JIT map (module [jit...]) */
	KP_KIND_PYTHON,		/* Python code (CPython's perf map: [jit:python]) */
	KP_KIND_UNKNOWN,	/* [unknown], module+0xoff, [other] */
	KP_KIND_PROCESS,	/* not a function: a command's box, or the root */
	KP_KIND_MAX,
};

/* Descending, except NAME. DELTA: by the size of the change of share
 * |now/total - base/base_total|, of self in the flat view and of total
 * elsewhere. Ties keep a stable order (by id or function). */
enum kp_sort {
	KP_SORT_SELF = 0, KP_SORT_TOTAL, KP_SORT_NAME, KP_SORT_DELTA,
};

struct kp_view_opts {
	enum kp_view_kind kind;
	enum kp_sort sort;
	/* Tree views: a row's children are listed only if expanded(id) says
	 * so (NULL: expand everything). */
	int (*expanded)(void *ctx, uint64_t id);
	void *expanded_ctx;
	/* Bottom-up: the function whose callers are listed (0: every leaf).
	 * Each stack counts once, from its outermost call of root_fn; the
	 * process is the last caller; self is set at depth 0 only. */
	uint64_t root_fn;
	/* At most this many rows are made (0 = no limit); the flat and the
	 * grouped views still count every row (kp_view.nr_all), so a caller
	 * can make the rows it shows and ask for more when it scrolls. */
	size_t max_rows;
	/* Flame: the ids of the boxes from a child of the root down to the
	 * box to zoom into (zoom_len 0: none); where the path leaves the
	 * view, the deepest box found on it is the zoom box. Boxes narrower
	 * than min_share of the zoom box are not made (0: every box). */
	const uint64_t *zoom;
	size_t zoom_len;
	double min_share;
};

/* Row ids: flat = fn; tree rows hash the path of function ids from their
 * process row (whose id is the process view's); thread: hash of process
 * and tid; cgroup: the cgroup id; module: its index + 1. Tree rows merge
 * the call sites of a function under the same parent.
 * Flame: one row per box, depth first from the root box "all" (depth 0),
 * then a box per command (its processes together: name and comm are the
 * comm, pid that of its process when it has one, nr_procs how many), then
 * the functions (pid: their command's), siblings by name; ids hash the
 * comm and the path of function ids. x and w place the box: shares of
 * the zoom box's width (its ancestors and itself: 0 and 1). A box's
 * room past its children's is its self, and that of children too narrow
 * to be made (min_share). Boxes with no current count are left out. */
struct kp_row {
	uint64_t id;		/* stable across refreshes: node, function, pid... */
	uint64_t fn;		/* function id (for focus / bottom-up), 0 if none */
	int depth;		/* tree views; 0 elsewhere */
	int has_children;
	double self, total;	/* current counts (fractional under decay) */
	double base_self, base_total;	/* baseline counts, 0 without one */
	uint64_t samples;	/* raw samples behind total, undecayed */
	const char *name;	/* function, comm, cgroup path or module */
	const char *module;	/* module of the function, or NULL */
	const char *source;	/* "file:line" or NULL */
	const char *comm;	/* process/thread views and merged flat view */
	uint32_t pid, tid;
	uint32_t nr_procs;	/* flat view: processes the function runs in
				 * (a merged command's, one by one);
				 * process, thread and tree rows of a merged
				 * command: the processes merged (else 0) */
	int inlined, kernel;
	double x, w;		/* flame: left edge and width (see above) */
	enum kp_frame_kind kind;	/* flame */
};

struct kp_view {
	size_t nr_rows;		/* rows made */
	struct kp_row *rows;
	/* rows in the view: nr_rows, or more when max_rows cut a flat or
	 * grouped view (a tree view stops at max_rows: nr_all = nr_rows) */
	size_t nr_all;
	double total;		/* current samples in the view (after filters) */
	double base_total;	/* baseline samples, 0 without one */
	size_t cap_rows;	/* rows allocated */
	int zoom_depth;		/* flame: depth of the zoom box (0: the root) */
};

/* The counts behind the views (up to about 80 bytes per trie node, 56
 * per function) are kept from one view to the next and updated from the
 * stacks counted since, so a view after new samples costs what changed
 * plus its rows; a new filter, time mode, zero, baseline or decay step
 * has the next view sum every stack again. */
int kp_model__view(struct kp_model *m, const struct kp_view_opts *o,
		   struct kp_view **out);
/* The same, reusing the memory of old (a view the caller is done with, or
 * NULL): old is consumed, also on error, and must not be used again. A
 * view rebuilt at every refresh this way does not fault in fresh pages
 * for its rows (a 100k-row view is 12 MB). */
int kp_model__view_reuse(struct kp_model *m, const struct kp_view_opts *o,
			 struct kp_view *old, struct kp_view **out);
void kp_view__free(struct kp_view *v);

/* ---- whole stacks, for folded and pprof output ---- */

struct kp_frame_ref {
	const char *name;	/* never NULL: "module+0xoff" when unknown */
	const char *module;	/* display name */
	const char *path;	/* mapping path, or NULL (kernel) */
	const uint8_t *build_id; uint8_t build_id_len;
	uint64_t addr;		/* user: file offset in module; kernel: address */
	uint64_t map_start, map_limit, map_pgoff;	/* mapping, 0 for kernel */
	const char *file; uint32_t line;
	uint32_t start_line;	/* the function's first line, 0: not known */
	int inlined, kernel;
	int jit;		/* code in anonymous memory (JIT), named or not */
};

struct kp_stack_visit {
	const char *comm;
	uint32_t pid, tid;
	uint64_t cgroup_id;
	const char *thread;	/* the thread's name, "" unknown */
	const char *cgroup;	/* the cgroup's path, NULL until named */
	const char *exe;	/* the process's executable, "" unknown */
	const struct kp_frame_ref *const *frames;	/* root first */
	size_t depth;
	double count;		/* current count (after time mode) */
	uint64_t samples;	/* raw samples */
	int offcpu;		/* off-CPU intervals (in off or wall weight), not
				 * CPU samples */
	int cpu;		/* the CPU (opts.by_cpu), else -1 */
};

/* Call cb for every distinct stack with a non-zero count, honouring the
 * filter. cb returns 0 to go on, non-zero to stop (returned). */
int kp_model__foreach_stack(struct kp_model *m,
			    int (*cb)(void *ctx, const struct kp_stack_visit *v),
			    void *ctx);
/* The same for the stacks keep() returns non-zero for (NULL: all); keep
 * sees the visit before its frames are gathered (frames NULL, depth 0),
 * so that passing over a stack costs no walk of its path. */
int kp_model__foreach_stack_if(struct kp_model *m,
			       int (*keep)(void *kctx, const struct kp_stack_visit *v),
			       void *kctx,
			       int (*cb)(void *ctx, const struct kp_stack_visit *v),
			       void *ctx);

/* Every distinct frame seen, for SYMTAB records at the end of a save:
 * path/build-id of its module, address as in kp_rec_symtab, size 0, its
 * name (the containing function for inlined frames). A return address is
 * given as its call site (offset of pc - 1), as the model looks it up;
 * SYMTAB symbols of size 0 match their exact address only, sized ones
 * their range. Code without a name whose function's start is known
 * ("module @0xSTART") is given as name "" at that start, its size
 * reaching the frame's address (one call per frame: a writer keeps the
 * largest of a start); other frames without a name are left out. owner
 * is the process and generation a JIT (anonymous) module belongs to
 * (its SYMTAB's owner, minor 12); NULL for every other module. */
int kp_model__foreach_symbol(struct kp_model *m,
			     int (*cb)(void *ctx, const char *path,
				       const uint8_t *build_id, uint8_t build_id_len,
				       uint64_t addr, uint64_t size, const char *name,
				       const struct kp_jit_owner *owner),
			     void *ctx);

/* ---- annotate: where in a function the samples fall ---- */

/* One row of an annotation: a source line (the lines of one source line
 * that follow, up to the next source row, are its instructions) or an
 * instruction, or, when the code could not be read, a sampled address. */
enum kp_annot_kind { KP_ANNOT_SOURCE = 0, KP_ANNOT_INSN, KP_ANNOT_ADDR };
struct kp_annot_row {
	enum kp_annot_kind kind;
	/* SOURCE: the line, in file (NULL: not known); inlined: the
	 * function inlined there (NULL: the annotated function's own code).
	 * Its counts are the line's in the whole function (every row of it). */
	const char *file;
	uint32_t line;
	const char *inlined;
	/* INSN and ADDR: file offset and link-time address (ADDR: the
	 * offset only); text, type and target of an instruction. */
	uint64_t off, addr;
	const char *text;
	enum kp_insn_type type;
	uint64_t target;
	double self, base_self;	/* current and baseline samples */
	uint64_t samples;	/* raw */
};

struct kp_annot {
	const char *name;	/* the function */
	uint64_t fn;		/* its id (a row's fn) */
	uint64_t module_id;	/* its module's, for kp_model__annotate_addr */
	const char *module;	/* display name */
	const char *path;	/* its module's file, or NULL (kernel) */
	uint8_t build_id_len;
	uint8_t build_id[KP_BUILD_ID_MAX];
	uint64_t start, vaddr;	/* file offset and address of its code */
	uint32_t len;		/* bytes of code, 0: not read */
	const char *why;	/* the code could not be read: why; else NULL */
	double total, base_total;	/* the function's self samples */
	uint64_t samples;
	/* samples of the function at no instruction of the code shown:
	 * folded by the node limit (the address was cut) or outside it */
	double elsewhere;
	size_t nr_rows;
	struct kp_annot_row *rows;
	size_t hottest;		/* row of the hottest instruction or address */
};

/* Annotate function fn (a row's fn: its index + 1): its self samples per
 * instruction (the leaf pc of each stack, module + offset, so processes
 * of one binary add up), in the time mode, with the baseline and the
 * filter; the code of the function holding its hottest address (a
 * CODE record the model was fed, else the resolver's code op),
 * disassembled, with a SOURCE row before each run of instructions of one
 * source line. Samples of exited processes merged by command keep their
 * line but not their instruction (merge.c): they count at the line's
 * first sampled instruction. Strings stay valid until the model is
 * freed. 0, -ENOENT (no such function), -ENOMEM. */
int kp_model__annotate(struct kp_model *m, uint64_t fn, struct kp_annot **out);
/* The annotation of the function at link-time address addr of from's
 * module (a call's target: a function with or without samples), named
 * by the resolver. -ENOENT when nothing names it. */
int kp_model__annotate_addr(struct kp_model *m, const struct kp_annot *from,
			    uint64_t addr, struct kp_annot **out);
/* Count a's instructions again from the model (a refresh of an
 * annotation that has its code: a->len, no a->why), without asking
 * for the code or the disassembly again. 0, -EINVAL (annotate anew),
 * -ENOMEM. */
int kp_model__annotate_recount(struct kp_model *m, struct kp_annot *a);
void kp_annot__free(struct kp_annot *a);

/* Every function with samples whose code the resolver can give (or a
 * CODE record held), hottest first, then the JIT code the unwinder
 * stepped over by its instructions (the resolver's unwind_codes), for
 * CODE records at the end of a save: cb gets each function's code
 * (borrowed for the call). At most max_bytes of code in all. cb returns
 * 0 to go on. */
int kp_model__foreach_code(struct kp_model *m, size_t max_bytes,
			   int (*cb)(void *ctx, const struct kp_rec_code *c),
			   void *ctx);

struct kp_model_summary {
	double total;			/* current non-idle samples (time mode) */
	double idle;			/* current idle samples */
	uint64_t samples;		/* all samples fed since the last zero */
	uint64_t lost[KP_LOST_STAGE_MAX + 1];	/* from LOST records, by stage */
	uint64_t processes, threads, mappings;
	uint64_t nodes, frames, other_nodes;	/* memory bounds */
	uint64_t folded_samples;	/* samples counted under [other] (their
					 * path cut, their function kept) */
	uint64_t merged_procs;		/* exited processes merged by command */
	uint64_t model_bytes;		/* the model's heap (kp_model__mem) */
	uint64_t unwound_dwarf, unwound_fp;	/* how user stacks were unwound */
	uint64_t unknown_pid;		/* samples whose process was unknown */
	uint64_t first_ns, last_ns;	/* time span of the samples fed */
	uint32_t freq_hz, ncpus;	/* from the META record */
	/* META: the sampling event ("cpu-clock" when the stream does not
	 * say), its period (0: sampled at freq_hz), the event asked for
	 * when the event is its fallback ("" if none), and whether the
	 * event counts occurrences rather than nanoseconds. */
	char event[KP_EVENT_NAME_MAX + 1];
	char event_asked[KP_EVENT_NAME_MAX + 1];
	uint64_t period;
	int event_count;
};
void kp_model__summary(const struct kp_model *m, struct kp_model_summary *out);

/* Memory by structure, a diagnostic (bench/model-bench): bytes allocated
 * (array capacity included) and bytes in use, not counting the
 * allocator's own overhead. Fills up to max items; returns how many
 * there are. Names are static strings. */
struct kp_model_mem {
	const char *name;
	size_t bytes, used;
};
size_t kp_model__mem(const struct kp_model *m, struct kp_model_mem *out, size_t max);

#endif /* KP_MODEL_H */
