// SPDX-License-Identifier: GPL-2.0-only
/* python-class.c — which native frames of a Python process's stack are
 * the interpreter loop and its call machinery (python-int.h,
 * kp_py_classify), for the merge in python-ops.c. Classes come from the
 * function names the inner resolver gives, cached: return addresses per
 * process and pc, leaves per function extent, a thread's outer frames
 * from its last stack.
 */
#include "pump/python-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const call_fns[] = {
	"_PyEval_Vector", "_PyFunction_Vectorcall", "_PyObject_VectorcallTstate",
	"PyObject_Vectorcall", "_PyObject_FastCallDictTstate",
	"_PyObject_Call_Prepend", "_PyObject_Call", "PyObject_Call",
	"_PyObject_MakeTpCall", "method_vectorcall", "slot_tp_call",
	"slot_tp_init", "type_call", "_PyVectorcall_Call", "PyVectorcall_Call",
	"cfunction_call", "cfunction_vectorcall_O", "cfunction_vectorcall_NOARGS",
	"cfunction_vectorcall_FASTCALL", "cfunction_vectorcall_FASTCALL_KEYWORDS",
	"vectorcall_method", "_PyObject_Vectorcall", "PyObject_CallOneArg",
	"py_trampoline_evaluator",	/* -X perf: calls the loop through a trampoline */
	/* 3.8 to 3.10 */
	"function_code_fastcall", "_PyEval_EvalCode", "_PyEval_EvalCodeWithName",
	"_PyFunction_FastCallDict", "call_function", "PyEval_EvalFrameEx",
	"_PyEval_EvalFrame", "_PyObject_FastCallDict", "PyObject_VectorcallDict",
	"method_vectorcall_O", "method_vectorcall_NOARGS",
	"method_vectorcall_FASTCALL", "method_vectorcall_FASTCALL_KEYWORDS",
};

static int name_class(const char *name)
{
	if (!name)
		return KP_PYC_OTHER;
	if (!strcmp(name, "_PyEval_EvalFrameDefault"))
		return KP_PYC_EVAL;
	for (size_t i = 0; i < sizeof(call_fns) / sizeof(call_fns[0]); i++)
		if (!strcmp(name, call_fns[i]))
			return KP_PYC_CALL;
	return KP_PYC_OTHER;
}

const struct kp_map_info *kp_py_map_of(const struct kp_map_info *maps, size_t n,
				     uint64_t pc)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc < maps[mid].addr)
			hi = mid;
		else if (pc - maps[mid].addr >= maps[mid].len)
			lo = mid + 1;
		else
			return &maps[mid];
	}
	return NULL;
}

/* The function holding pc (a return address unless leaf): its class;
 * span as the resolver's function op gives it (0 and 0: not known). */
static int name_pc(struct kp_python *py, const struct kp_map_info *map,
		   uint64_t pc, uint64_t span[2])
{
	struct kp_frame_info fi[8];
	const char *name = NULL;
	int n;

	span[0] = span[1] = 0;
	if (py->inner.ops->function &&
	    py->inner.ops->function(py->inner.ctx, map, pc, &name, span) == 1)
		return name_class(name);
	span[0] = span[1] = 0;
	if (!py->inner.ops->symbolize)
		return KP_PYC_OTHER;
	n = py->inner.ops->symbolize(py->inner.ctx, map, pc, fi, 8);
	return n > 0 ? name_class(fi[n - 1].name) : KP_PYC_OTHER;
}

/* The class of a leaf pc from the functions leaves fell in lately, or 0. */
static int range_class(const struct kp_python *py, const struct py_proc *p,
		       uint64_t pc)
{
	for (int i = 0; i < KP_PY_RANGES; i++) {
		const struct py_range *r = &py->ranges[i];

		if (r->pid == p->pid && r->gen == p->gen && pc >= r->lo && pc < r->hi)
			return r->cls;
	}
	return 0;
}

/* A leaf's function (span around pc, inside map) kept with its class. */
static void add_range(struct kp_python *py, const struct py_proc *p,
		      const struct kp_map_info *map, uint64_t pc,
		      const uint64_t span[2], int cls)
{
	struct py_range *r = &py->ranges[py->next_range++ % KP_PY_RANGES];

	r->lo = span[0] <= pc - map->addr ? pc - span[0] : map->addr;
	r->hi = span[1] <= map->addr + map->len - pc ? pc + span[1]
						       : map->addr + map->len;
	r->pid = p->pid;
	r->gen = p->gen;
	r->cls = (uint8_t)cls;
}

/* The class of pc in process p. A leaf (ret 0) is looked for among the
 * kept functions first and its own pc never enters the table when its
 * function's extent is known: a leaf is a new pc of a long function
 * (the interpreter loop) at nearly every sample, each a cache miss in
 * the table and a slot taken. */
static int classify(struct kp_python *py, const struct py_proc *p, uint64_t pc,
		    int ret, const struct kp_map_info *maps, size_t nr_maps)
{
	const struct kp_map_info *map;
	uint64_t span[2];
	size_t h;
	int cls;

	if (!ret && (cls = range_class(py, p, pc)))
		return cls;
	if (py->nr_cls > KP_PY_CLASSES / 2) {	/* full: start again */
		memset(py->cls, 0, KP_PY_CLASSES * sizeof(*py->cls));
		memset(py->last, 0, KP_PY_LAST * sizeof(*py->last));
		py->nr_cls = 0;
	}
	h = ((pc ^ (uint64_t)p->pid << 40) * 0x9e3779b97f4a7c15ull >> 40) & (KP_PY_CLASSES - 1);
	for (; py->cls[h].pid; h = (h + 1) & (KP_PY_CLASSES - 1))
		if (py->cls[h].pid == p->pid && py->cls[h].pc == pc)
			return py->cls[h].cls;
	if (!(map = kp_py_map_of(maps, nr_maps, pc)))
		return KP_PYC_OTHER;
	cls = name_pc(py, map, ret ? pc - 1 : pc, span);
	if (!ret && span[1]) {
		add_range(py, p, map, pc, span, cls);
		return cls;
	}
	py->cls[h].pid = p->pid;
	py->cls[h].pc = pc;
	py->cls[h].cls = (uint8_t)cls;
	py->nr_cls++;
	return cls;
}

/* -X perf's trampolines: code in anonymous memory called by
 * py_trampoline_evaluator that calls the loop are call machinery too
 * (told by place, not by name: a replay has no perf map to name them). */
static void class_trampolines(uint8_t *cls, const uint64_t *u, int nu,
			      const struct kp_map_info *maps, size_t nr_maps)
{
	for (int i = 1; i + 1 < nu; i++) {
		const struct kp_map_info *m;

		if (cls[i] != KP_PYC_OTHER || cls[i - 1] != KP_PYC_EVAL ||
		    cls[i + 1] != KP_PYC_CALL)
			continue;
		m = kp_py_map_of(maps, nr_maps, u[i]);
		if (m && kp_map_info_anon(m))
			cls[i] = KP_PYC_CALL;
	}
}

/* The classes of u[0..nu) (u[0] the leaf) into cls: the outer frames
 * the thread's last stack shares taken from it (never its leaf, whose
 * class is its own pc's, not a return address's), the others classified.
 * 0, or -ENOMEM. */
int kp_py_classify(struct kp_python *py, const struct py_proc *p,
		   const struct kp_rec_sample *s, const uint64_t *u, int nu,
		   const struct kp_map_info *maps, size_t nr_maps, uint8_t *cls)
{
	struct py_last *l;
	int same = 0, i;

	if (nu <= 0)
		return 0;	/* no native frames (a stream's sample): none kept */
	if (!py->cls && !(py->cls = calloc(KP_PY_CLASSES, sizeof(*py->cls))))
		return -ENOMEM;
	if (!py->last && !(py->last = calloc(KP_PY_LAST, sizeof(*py->last))))
		return -ENOMEM;
	l = &py->last[s->tid % KP_PY_LAST];
	if (l->pid == p->pid && l->gen == p->gen && l->tid == s->tid)
		while (same < nu - 1 && same < l->n - 1 &&
		       u[nu - 1 - same] == l->pc[l->n - 1 - same])
			same++;
	for (i = 0; i < nu - same; i++)
		cls[i] = (uint8_t)classify(py, p, u[i], i > 0, maps, nr_maps);
	for (; i < nu; i++)	/* l emptied meanwhile (the table was full): looked up */
		cls[i] = l->pid ? l->cls[i - nu + l->n]
				: (uint8_t)classify(py, p, u[i], 1, maps, nr_maps);
	l->pid = p->pid;
	l->gen = p->gen;
	l->tid = s->tid;
	l->n = nu;
	memcpy(l->pc, u, (size_t)nu * sizeof(*u));
	memcpy(l->cls, cls, (size_t)nu);
	class_trampolines(cls, u, nu, maps, nr_maps);
	return 0;
}

