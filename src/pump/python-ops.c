// SPDX-License-Identifier: GPL-2.0-only
/* python-ops.c — the Python resolver (python.h): names of the pseudo
 * module, the merging of Python frames into native stacks (at the frames
 * python-class.c tells apart), and the search for interpreters in the
 * mappings of live processes.
 */
#include "pump/python-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/procfs.h"

/* ---- interpreters in mappings ---- */

/* A file's identity: its build ID (side-band mappings of processes
 * started after kptop carry it instead of the inode), else its inode. */
static uint64_t file_key(const struct kp_rec_mmap *m, uint32_t *dev)
{
	uint64_t h = 0xcbf29ce484222325ull;

	*dev = m->maj << 20 | m->min;
	if (!m->build_id_len)
		return m->ino;
	*dev = UINT32_MAX;
	for (int i = 0; i < m->build_id_len; i++)
		h = (h ^ m->build_id[i]) * 0x100000001b3ull;
	return h;
}

static const struct py_file *file_of(struct kp_python *py, const struct kp_rec_mmap *m)
{
	struct kp_proc_file pf = { "/proc", m->pid, m->addr, m->addr + m->len,
				   m->maj, m->min, m->ino, m->path };
	uint32_t dev;
	uint64_t key = file_key(m, &dev);
	struct py_file *f;
	struct stat st;
	int fd;

	for (size_t i = 0; i < py->nr_files; i++)
		if (py->files[i].ino == key && py->files[i].dev == dev &&
		    py->files[i].pgoff == m->pgoff)
			return &py->files[i];
	fd = kp_procfs__open_mapped(&pf, &st, NULL, 0);
	if (fd < 0)
		return NULL;
	f = &py->files[py->nr_files < KP_PY_FILES ? py->nr_files++ :
		       (key % KP_PY_FILES)];
	memset(f, 0, sizeof(*f));
	f->ino = key;
	f->dev = dev;
	f->pgoff = m->pgoff;
	f->has = kp_py__elf_syms(fd, m->pgoff, &f->syms) == 1;
	close(fd);
	return f;
}

/* 1 when the process has a pid namespace of its own (NSpid: two ids). */
static int own_pidns(uint32_t pid)
{
	char path[64], line[256];
	int own = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "NSpid:", 6)) {
			own = strchr(line + 7, '\t') != NULL ||
			      strchr(line + 7, ' ') != NULL;
			break;
		}
	fclose(f);
	return own;
}

static void tell_bpf(struct kp_python *py, struct py_proc *p, uint64_t runtime)
{
	const struct kp_py_layout *l = p->layout;
	struct kp_collect_py cp = {
		.runtime = runtime, .version = p->version,
		.own_pidns = own_pidns(p->pid),
		.interp_head = l->interp_head, .tstate_head = l->tstate_head,
		.ts_next = l->ts_next, .ts_tid = l->ts_tid,
		.ts_cframe = l->ts_cframe, .ts_frame = l->ts_frame,
		.f_code = l->f_code, .f_previous = l->f_previous,
		.f_instr = l->f_instr, .f_entry = l->f_entry, .f_owner = l->f_owner,
		.co_linetable = l->co_linetable, .co_code = l->co_code,
		.frames = l->frames, .tid = l->tid,
	};

	if (kp_collector__python(py->c, p->pid, &cp) == 0) {
		p->state = KP_PYS_PYTHON;
		if (py->mark_dwarf && kp_collector__mark_dwarf(py->c, p->pid, 1) == 0)
			p->marked = 1;
	}
}

/* The version a process runs: Py_Version (3.11 and later), read from
 * its memory; without one (3.10 and older) the newest version whose API
 * its interpreter defines (kp_py_syms.api); 0 if neither. */
static uint32_t read_version(int memfd, uint64_t addr, uint32_t api)
{
	uint64_t hex = 0;

	if (!addr)
		return api;
	if (pread(memfd, &hex, sizeof(hex), (off_t)addr) != sizeof(hex))
		return 0;
	return (uint32_t)(hex >> 24 & 0xff) << 8 | (uint32_t)(hex >> 16 & 0xff);
}

/* A version kptop cannot read: counted once per process, named. */
static void unknown(struct kp_python *py, struct py_proc *p, uint32_t v, int ft)
{
	char *last = py->st.last_unknown;

	p->state = KP_PYS_UNKNOWN;
	py->st.unknown_version++;
	py->st.last_unknown_pid = p->pid;
	if (v)
		snprintf(last, sizeof(py->st.last_unknown), "%u.%u%s", v >> 8, v & 0xff,
			 ft ? " (free-threaded)" : "");
	else	/* no Py_Version, none of 3.8's API: before 3.8 */
		snprintf(last, sizeof(py->st.last_unknown), "3.7 or older");
	if (!py->st.unknown[0])
		snprintf(py->st.unknown, sizeof(py->st.unknown), "%s", last);
}

void kp_py_on_mmap(struct kp_python *py, const struct kp_rec_mmap *m)
{
	const struct py_file *f;
	struct py_proc *p;
	char path[64];
	uint64_t bias;
	int rc;

	if (!(m->prot & PROT_EXEC) || !m->path || m->path[0] != '/' ||
	    (!m->ino && !m->build_id_len))
		return;
	p = kp_py_proc(py, m->pid, 0);
	if (p && p->state != KP_PYS_NONE)
		return;
	f = file_of(py, m);
	if (!f || !f->has || !(p = kp_py_proc(py, m->pid, 1)))
		return;
	bias = m->addr - f->syms.map_vaddr;
	snprintf(path, sizeof(path), "/proc/%u/mem", m->pid);
	if (p->memfd < 0)
		p->memfd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->memfd < 0)
		return;
	p->version = read_version(p->memfd, f->syms.version ? bias + f->syms.version : 0,
				  f->syms.api);
	/* the interpreter's own offsets where it publishes them (3.13),
	 * else kptop's table's for its version */
	rc = kp_py__debug_layout(p->memfd, bias + f->syms.runtime, p->version, &p->own);
	p->layout = rc == 0 ? &p->own : rc == -ENOTSUP ? NULL : kp_py__layout(p->version);
	if (!p->layout)
		unknown(py, p, p->version, rc == -ENOTSUP);
	else
		tell_bpf(py, p, bias + f->syms.runtime);
}

/* ---- merging ---- */

static uint64_t py_pc(const struct kp_python *py, const struct py_proc *p,
		      const uint64_t *f)
{
	uint64_t serial = kp_py_code_find(py, p, f[0], KP_PYF_TOKEN(f[1]));
	uint32_t instr = KP_PYF_INSTR(f[1]);

	if (instr > KP_PY_INSTR_MAX)
		instr = KP_PY_INSTR_MAX;
	return KP_PY_BASE + (serial << 21) + ((uint64_t)instr << 1) + 1;
}

struct merge {
	uint64_t *out;
	int n, max;
	size_t j;			/* next Python frame */
};

static void put(struct merge *g, uint64_t pc)
{
	if (g->n < g->max)
		g->out[g->n++] = pc;
}

/* The Python frames one loop frame ran: up to the next entered from C
 * (all that are left for the outermost loop frame). */
static void put_python(struct kp_python *py, const struct py_proc *p,
		       const struct kp_rec_sample *s, struct merge *g, int last)
{
	while (g->j < s->nr_pyframes) {
		const uint64_t *f = &s->pyframes[2 * g->j++];

		put(g, py_pc(py, p, f));
		if ((f[1] & KP_PYF_ENTRY) && !last)
			break;
	}
}

static int has_module(const struct kp_map_info *maps, size_t n)
{
	const struct kp_map_info *m = kp_py_map_of(maps, n, KP_PY_BASE);

	return m && m->path && !strncmp(m->path, KP_PYTHON_MODULE_PREFIX,
					sizeof(KP_PYTHON_MODULE_PREFIX) - 1);
}

static int op_python(void *ctx, const struct kp_rec_sample *s, const uint64_t *u,
		     int nu, const struct kp_map_info *maps, size_t nr_maps,
		     uint64_t *out, int max)
{
	struct kp_python *py = ctx;
	const struct py_proc *p = kp_py_proc(py, s->pid, 0);
	struct merge g = { out, 0, max, 0 };
	uint8_t cls[KP_MAX_FRAMES];
	int loops = 0, k = 0;

	if (py->raw || !s->nr_pyframes || !p || p->state != KP_PYS_PYTHON ||
	    !has_module(maps, nr_maps) || nu > KP_MAX_FRAMES)
		return 0;
	if (kp_py_classify(py, p, s, u, nu, maps, nr_maps, cls))
		return 0;
	for (int i = 0; i < nu; i++)
		loops += cls[i] == KP_PYC_EVAL;
	for (int i = 0; i < nu; i++) {
		if (cls[i] == KP_PYC_EVAL)
			put_python(py, p, s, &g, ++k == loops);
		else if (cls[i] != KP_PYC_CALL || k == loops)
			put(&g, u[i]);
	}
	if (!loops) {	/* no loop frame to put them at: at the root */
		py->st.unplaced++;
		put_python(py, p, s, &g, 1);
	}
	py->st.merged++;
	return g.n;
}

/* ---- names of the pseudo module ---- */

static int is_py_map(const struct kp_map_info *map)
{
	return map && map->addr == KP_PY_BASE && map->path &&
	       !strncmp(map->path, KP_PYTHON_MODULE_PREFIX,
			sizeof(KP_PYTHON_MODULE_PREFIX) - 1);
}

/* Name offset off of the pseudo module: 1 frame, or 0 (not known). */
static int py_name(struct kp_python *py, uint64_t off, struct kp_frame_info *out,
		   int max)
{
	uint64_t serial = off >> 21;
	uint32_t instr = (uint32_t)(off & 0x1fffff) >> 1;
	const struct py_code *c;

	if (!serial || serial > py->nr_codes || max < 1)
		return 0;
	c = &py->codes[serial - 1];
	memset(out, 0, sizeof(*out));
	out->name = c->qualname;
	out->file = c->filename;
	out->line = instr ? kp_py__line(c->version, c->linetable, c->linetable_len,
					c->firstlineno, instr - 1) : c->firstlineno;
	out->start_line = c->firstlineno;
	return 1;
}

static int op_symbolize(void *ctx, const struct kp_map_info *map, uint64_t addr,
			struct kp_frame_info *out, int max)
{
	struct kp_python *py = ctx;

	if (is_py_map(map))
		return py_name(py, addr - map->addr + map->pgoff, out, max);
	if (!py->inner.ops->symbolize)
		return 0;
	return py->inner.ops->symbolize(py->inner.ctx, map, addr, out, max);
}

static const char *op_module_name(void *ctx, const struct kp_map_info *map,
				  uint64_t addr)
{
	struct kp_python *py = ctx;

	if (is_py_map(map) || !py->inner.ops->module_name)
		return NULL;	/* the model takes the path: "[python3.11]" */
	return py->inner.ops->module_name(py->inner.ctx, map, addr);
}

static int op_unwind(void *ctx, const struct kp_rec_sample *s,
		     const struct kp_map_info *maps, size_t nr_maps,
		     uint64_t *pcs, int max, int *truncated)
{
	struct kp_python *py = ctx;

	if (!py->inner.ops->unwind)
		return -ENOTSUP;
	return py->inner.ops->unwind(py->inner.ctx, s, maps, nr_maps, pcs, max,
				     truncated);
}

static void op_process_gone(void *ctx, uint32_t pid, uint64_t start_ns)
{
	struct kp_python *py = ctx;

	if (py->inner.ops->process_gone)
		py->inner.ops->process_gone(py->inner.ctx, pid, start_ns);
}

static int op_function(void *ctx, const struct kp_map_info *map, uint64_t addr,
		       const char **name, uint64_t span[2])
{
	struct kp_python *py = ctx;
	struct kp_frame_info fi;

	if (is_py_map(map)) {
		if (span)
			span[0] = span[1] = 0;
		if (py_name(py, addr - map->addr + map->pgoff, &fi, 1) != 1)
			return 0;
		*name = fi.name;
		return 1;
	}
	return py->inner.ops->function(py->inner.ctx, map, addr, name, span);
}

static void *op_hold(void *ctx, const struct kp_map_info *map)
{
	struct kp_python *py = ctx;

	if (is_py_map(map))
		return &py->hold_token;
	return py->inner.ops->hold(py->inner.ctx, map);
}

static int op_symbolize_held(void *ctx, void *held, uint64_t off,
			     struct kp_frame_info *out, int max)
{
	struct kp_python *py = ctx;

	if (held == &py->hold_token)
		return py_name(py, off, out, max);
	return py->inner.ops->symbolize_held(py->inner.ctx, held, off, out, max);
}

static void op_release(void *ctx, void *held)
{
	struct kp_python *py = ctx;

	if (held != &py->hold_token)
		py->inner.ops->release(py->inner.ctx, held);
}

static void op_prefetch(void *ctx, const struct kp_map_info *map)
{
	struct kp_python *py = ctx;

	if (!is_py_map(map))
		py->inner.ops->prefetch(py->inner.ctx, map);
}

static uint64_t op_names_epoch(void *ctx, void *held)
{
	struct kp_python *py = ctx;

	if (held == &py->hold_token)
		return 0;
	return py->inner.ops->names_epoch(py->inner.ctx, held);
}

static void op_jit_poll(void *ctx, void (*before)(void *bctx, uint32_t pid, uint64_t start),
			void *bctx)
{
	struct kp_python *py = ctx;

	py->inner.ops->jit_poll(py->inner.ctx, before, bctx);
}

static uint64_t op_jit_epoch(void *ctx)
{
	struct kp_python *py = ctx;

	return py->inner.ops->jit_epoch(py->inner.ctx);
}

/* Annotate: a Python frame has no machine code of its own. */
static int op_code(void *ctx, const struct kp_map_info *map, uint64_t off,
		   struct kp_rec_code *out, const char **why)
{
	struct kp_python *py = ctx;

	if (is_py_map(map)) {
		*why = "a Python function has no machine code";
		return 0;
	}
	return py->inner.ops->code(py->inner.ctx, map, off, out, why);
}

static int op_disasm(void *ctx, const uint8_t *code, size_t len, uint64_t vaddr,
		     int (*cb)(void *cbctx, const struct kp_insn_info *in),
		     void *cbctx)
{
	struct kp_python *py = ctx;

	return py->inner.ops->disasm(py->inner.ctx, code, len, vaddr, cb, cbctx);
}

/* The unwinder's JIT code: the inner resolver's. */
static void op_code_fed(void *ctx, const struct kp_rec_code *c)
{
	struct kp_python *py = ctx;

	py->inner.ops->code_fed(py->inner.ctx, c);
}

static int op_unwind_codes(void *ctx, int (*cb)(void *cbctx, const struct kp_rec_code *c),
			   void *cbctx)
{
	struct kp_python *py = ctx;

	return py->inner.ops->unwind_codes(py->inner.ctx, cb, cbctx);
}

static const struct kp_resolver_ops python_ops = {
	.symbolize = op_symbolize,
	.module_name = op_module_name,
	.unwind = op_unwind,
	.process_gone = op_process_gone,
	.function = op_function,
	.hold = op_hold,
	.symbolize_held = op_symbolize_held,
	.release = op_release,
	.prefetch = op_prefetch,
	.names_epoch = op_names_epoch,
	.jit_epoch = op_jit_epoch,
	.jit_poll = op_jit_poll,
	.python = op_python,
	.code = op_code,
	.disasm = op_disasm,
	.code_fed = op_code_fed,
	.unwind_codes = op_unwind_codes,
};

void kp_py_ops_init(struct kp_python *py)
{
	const struct kp_resolver_ops *in = py->inner.ops;

	py->ops = python_ops;
	if (!in->function)
		py->ops.function = NULL;
	if (!in->hold || !in->symbolize_held || !in->release) {
		py->ops.hold = NULL;
		py->ops.symbolize_held = NULL;
		py->ops.release = NULL;
	}
	if (!in->prefetch)
		py->ops.prefetch = NULL;
	if (!in->names_epoch)
		py->ops.names_epoch = NULL;
	if (!in->jit_epoch)
		py->ops.jit_epoch = NULL;
	if (!in->jit_poll)
		py->ops.jit_poll = NULL;
	if (!in->unwind)
		py->ops.unwind = NULL;
	if (!in->code)
		py->ops.code = NULL;
	if (!in->disasm)
		py->ops.disasm = NULL;
	if (!in->code_fed)
		py->ops.code_fed = NULL;
	if (!in->unwind_codes)
		py->ops.unwind_codes = NULL;
}

struct kp_resolver kp_python__resolver(struct kp_python *py)
{
	struct kp_resolver r = { &py->ops, py };

	return r;
}
