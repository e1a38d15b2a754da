/* SPDX-License-Identifier: GPL-2.0-only */
/* python-int.h — the insides of src/pump/python.c (records, processes,
 * code objects), python-ops.c (the resolver ops, the merging, the search
 * for interpreters in mappings) and python-class.c (the native frames'
 * classes). Private to those files. */
#ifndef KP_PUMP_PYTHON_INT_H
#define KP_PUMP_PYTHON_INT_H

#include "pump/python.h"
#include "symbols/pycode.h"

#define KP_PY_PROCS 4096		/* processes tracked (open addressing) */
#define KP_PY_VERSIONS 16		/* module names, by minor version */
#define KP_PY_CLASSES 65536		/* native pcs classified, at most */
#define KP_PY_FILES 256			/* files looked at for _PyRuntime */
#define KP_PY_RANGES 8			/* leaves' functions kept (python-class.c) */
#define KP_PY_LAST 8			/* threads' last stacks kept classified */
/* The pseudo module: bit 63, the serial from bit 21, instruction * 2 + 1 */
#define KP_PY_BASE (1ull << 63)
#define KP_PY_LEN (1ull << 62)
#define KP_PY_INSTR_MAX ((1u << 20) - 1)

enum { KP_PYS_NONE = 0, KP_PYS_PYTHON, KP_PYS_UNKNOWN };

struct py_proc {
	uint32_t pid;			/* 0: free */
	uint32_t gen;			/* this process's generation */
	uint8_t state;			/* KP_PYS_* */
	uint8_t mapped;			/* the pseudo module is in the model */
	uint8_t marked;			/* marked for DWARF stack copies */
	uint8_t sampled;		/* a sample of it had Python frames */
	uint32_t nkeys;			/* its entries in keys */
	uint32_t version;		/* major << 8 | minor */
	const struct kp_py_layout *layout;	/* &own, or kptop's table's */
	struct kp_py_layout own;	/* the interpreter's own (_Py_DebugOffsets) */
	int memfd;			/* /proc/PID/mem, -1: none */
};

/* A code object's names, one for each distinct content (version,
 * names, first line, line table): the same function in a thousand short
 * processes is one entry, so its pc keys, frames and names in the model
 * are one too. Its serial (index + 1) is the pseudo module's offset;
 * never freed before kp_python__free (the model holds its strings). */
struct py_code {
	uint64_t hash;			/* of the content */
	uint32_t version, firstlineno;
	char *qualname, *filename;
	uint8_t *linetable;
	uint32_t linetable_len;
};

/* A code object of one process: (pid, gen, address, token) -> serial.
 * Dropped once its process is gone (python-code.c). */
struct py_key {
	uint64_t code;
	uint32_t pid, gen, token;
	uint32_t serial;
};

/* A native pc's class, cached (python-class.c): KP_PYC_* */
struct py_cls {
	uint64_t pc;
	uint32_t pid;			/* 0: free */
	uint8_t cls;
};
enum { KP_PYC_OTHER = 1, KP_PYC_EVAL, KP_PYC_CALL };

/* A thread's last native stack and its classes (slot tid % KP_PY_LAST):
 * its next sample takes the classes of the outer frames it shares from
 * there instead of the table (a cache miss each). Emptied with the table. */
struct py_last {
	uint32_t pid, gen, tid;		/* pid 0: empty */
	int n;
	uint64_t pc[KP_MAX_FRAMES];
	uint8_t cls[KP_MAX_FRAMES];
};

/* A function a leaf pc fell in: [lo, hi) of process pid (generation
 * gen) and its class (python-class.c). pid 0: empty. */
struct py_range {
	uint64_t lo, hi;
	uint32_t pid, gen;
	uint8_t cls;
};

/* A file looked at for _PyRuntime (its build ID's hash, dev UINT32_MAX,
 * or device and inode; the mapping's offset), and what it holds. */
struct py_file {
	uint64_t ino, pgoff;
	uint32_t dev;
	int has;			/* 1: an interpreter */
	struct kp_py_syms syms;
};

struct kp_python {
	struct kp_resolver inner;
	struct kp_resolver_ops ops;
	struct kp_collector *c;		/* live; NULL: a saved stream */
	int mark_dwarf;			/* mark Python processes for DWARF */
	int raw;
	uint32_t gen;
	struct py_proc procs[KP_PY_PROCS];
	struct py_code *codes;		/* by serial - 1 */
	size_t nr_codes, cap_codes;
	uint32_t *cslots;		/* content hash -> serial */
	size_t cap_cslots;
	struct py_key *keys;		/* the code objects of processes */
	size_t nr_keys, cap_keys, dead_keys;
	uint32_t *kslots;		/* hash of (pid, gen, code, token) -> index + 1 */
	size_t cap_kslots;
	struct py_cls *cls;		/* KP_PY_CLASSES slots */
	size_t nr_cls;
	struct py_range ranges[KP_PY_RANGES];
	struct py_last *last;		/* KP_PY_LAST, allocated with cls */
	unsigned next_range;		/* the one replaced next */
	struct py_file files[KP_PY_FILES];
	size_t nr_files;
	char modules[KP_PY_VERSIONS][16];
	int hold_token;			/* &hold_token: the pseudo module held */
	struct kp_python_stats st;
};

struct py_proc *kp_py_proc(struct kp_python *py, uint32_t pid, int add);
/* python-class.c: the mapping of maps[0..n) (sorted) holding pc, or NULL. */
const struct kp_map_info *kp_py_map_of(const struct kp_map_info *maps, size_t n,
				     uint64_t pc);
/* python-class.c: the KP_PYC_* class of each of u[0..nu) (u[0] the
 * leaf) of process p's sample s into cls; 0, or -ENOMEM. */
int kp_py_classify(struct kp_python *py, const struct py_proc *p,
		   const struct kp_rec_sample *s, const uint64_t *u, int nu,
		   const struct kp_map_info *maps, size_t nr_maps, uint8_t *cls);
/* python-code.c: the serial of process p's code object (address, token),
 * 0 if not known; add (or replace) its names from its PYCODE record;
 * the keys of processes gone (nkeys of p's) given back now and then;
 * every live key's record to emit; all freed. 0 or -ENOMEM. */
uint32_t kp_py_code_find(const struct kp_python *py, const struct py_proc *p,
			 uint64_t code, uint32_t token);
int kp_py_code_add(struct kp_python *py, struct py_proc *p,
		   const struct kp_rec_pycode *rec);
void kp_py_code_gone(struct kp_python *py, uint32_t nkeys);
int kp_py_code_foreach(struct kp_python *py, kp_python_emit emit, void *ctx);
void kp_py_code_free(struct kp_python *py);
const char *kp_py_module(struct kp_python *py, uint32_t version);
/* An executable mapping of a live process: is it an interpreter? */
void kp_py_on_mmap(struct kp_python *py, const struct kp_rec_mmap *m);
void kp_py_ops_init(struct kp_python *py);

#endif /* KP_PUMP_PYTHON_INT_H */
