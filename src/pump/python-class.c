// SPDX-License-Identifier: GPL-2.0-only
/* python-class.c — which native frames of a Python process's stack are
 * the interpreter loop and its call machinery (python-int.h,
 * kp_py_classify), for the merge in python-ops.c. Classes come from the
 * function names the inner resolver gives, cached per process and pc.
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

/* The function holding pc (a return address unless leaf): its class. */
static int name_pc(struct kp_python *py, const struct kp_map_info *map,
		   uint64_t pc)
{
	struct kp_frame_info fi[8];
	const char *name = NULL;
	int n;

	if (py->inner.ops->function &&
	    py->inner.ops->function(py->inner.ctx, map, pc, &name, NULL) == 1)
		return name_class(name);
	if (!py->inner.ops->symbolize)
		return KP_PYC_OTHER;
	n = py->inner.ops->symbolize(py->inner.ctx, map, pc, fi, 8);
	return n > 0 ? name_class(fi[n - 1].name) : KP_PYC_OTHER;
}

static int classify(struct kp_python *py, uint32_t pid, uint64_t pc, int ret,
		    const struct kp_map_info *maps, size_t nr_maps)
{
	const struct kp_map_info *map;
	size_t h;

	if (!py->cls) {
		py->cls = calloc(KP_PY_CLASSES, sizeof(*py->cls));
		if (!py->cls)
			return KP_PYC_OTHER;
	}
	if (py->nr_cls > KP_PY_CLASSES / 2) {	/* full: start again */
		memset(py->cls, 0, KP_PY_CLASSES * sizeof(*py->cls));
		py->nr_cls = 0;
	}
	h = ((pc ^ (uint64_t)pid << 40) * 0x9e3779b97f4a7c15ull >> 40) & (KP_PY_CLASSES - 1);
	for (; py->cls[h].pid; h = (h + 1) & (KP_PY_CLASSES - 1))
		if (py->cls[h].pid == pid && py->cls[h].pc == pc)
			return py->cls[h].cls;
	map = kp_py_map_of(maps, nr_maps, pc);
	py->cls[h].pid = pid;
	py->cls[h].pc = pc;
	py->cls[h].cls = (uint8_t)(map ? name_pc(py, map, ret ? pc - 1 : pc) : KP_PYC_OTHER);
	py->nr_cls++;
	return py->cls[h].cls;
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

int kp_py_classify(struct kp_python *py, const struct py_proc *p,
		   const struct kp_rec_sample *s, const uint64_t *u, int nu,
		   const struct kp_map_info *maps, size_t nr_maps, uint8_t *cls)
{
	(void)p;
	for (int i = 0; i < nu; i++)
		cls[i] = (uint8_t)classify(py, s->pid, u[i], i > 0, maps, nr_maps);
	class_trampolines(cls, u, nu, maps, nr_maps);
	return 0;
}
