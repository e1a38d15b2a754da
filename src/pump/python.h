/* SPDX-License-Identifier: GPL-2.0-only */
/* python.h — Python functions in the profile: the interpreters found in
 * the records, their code objects named, and their frames merged into
 * the native stacks (issue 24).
 *
 * Owns: a resolver that wraps the real one (as autodwarf.h does), the
 * Python processes (pid -> interpreter version, layout, /proc/PID/mem),
 * the code objects seen (pid, code, token -> a serial, dropped when the
 * process is gone; the serial -> qualified name, file, first line, line
 * table, one for each distinct content, never freed before
 * kp_python__free, so names handed to the model stay valid) and the
 * pseudo module "[pythonX.Y]", one for all processes of that version,
 * whose addresses stand for (code, instruction): bit 63 set, the code's
 * serial from bit 21, the instruction index times 2 plus 1 below.
 *
 * Records (kp_python__record, from the pump, before the model sees them):
 * an executable MMAP of a file with _PyRuntime makes its process a Python
 * process (the version read from its Py_Version; the BPF program told,
 * kp_collector__python); a SAMPLE with Python frames whose code objects
 * are new gets them read from the process (live only) and sent as PYCODE
 * records through emit before the sample; a PYCODE record (a saved
 * stream) is kept; an EXIT of a process forgets it.
 *
 * Merging (the resolver's python op): each native frame of
 * _PyEval_EvalFrameDefault is replaced by the Python frames it ran (the
 * innermost up to the next one entered from C), native call machinery
 * between them (_PyEval_Vector, *Vectorcall*, ..., and -X perf's
 * trampolines, told by their place) dropped; other native
 * frames keep their place. Raw mode (kp_python__set_raw) keeps the native
 * stacks as they are.
 *
 * Who calls it: src/main/kptop.c builds it around the resolver and hands
 * it to the pump; not thread-safe (the model's thread). Errors: NULL with
 * errno, or negative errno.
 */
#ifndef KP_PUMP_PYTHON_H
#define KP_PUMP_PYTHON_H

#include "collect/collect.h"
#include "model/model.h"
#include "stream/record.h"

struct kp_python;

struct kp_python *kp_python__new(struct kp_resolver inner);
void kp_python__free(struct kp_python *py);
/* The wrapping resolver; valid while py lives. */
struct kp_resolver kp_python__resolver(struct kp_python *py);
/* Live: the collector to tell of Python processes (NULL: a saved stream).
 * mark_dwarf: mark them for DWARF stack copies at once (--unwind auto:
 * the interpreters Debian builds have no frame pointers, and their first
 * stacks would stop at the loop), unmarked when they exit. */
void kp_python__set_collector(struct kp_python *py, struct kp_collector *c,
			      int mark_dwarf);
/* 1: native stacks as sampled, no Python frames merged (new stacks). */
void kp_python__set_raw(struct kp_python *py, int raw);
int kp_python__raw(const struct kp_python *py);

typedef int (*kp_python_emit)(void *ctx, const struct kp_record *r);
/* Learn from a record on its way to the model (see above); new records
 * (PYCODE, the pseudo module's MMAP) go to emit first. 0 or -ENOMEM. */
int kp_python__record(struct kp_python *py, const struct kp_record *r,
		      kp_python_emit emit, void *ctx);
/* Every PYCODE record of a live process, for a save that starts. */
int kp_python__foreach_code(struct kp_python *py, kp_python_emit emit, void *ctx);
/* The pseudo module's path starts with KP_PYTHON_MODULE_PREFIX
 * (model.h): a save leaves it out. */

struct kp_python_stats {
	uint64_t processes;		/* processes sampled with Python frames */
	uint64_t unknown_version;	/* ... of a version kptop cannot read */
	uint64_t codes;			/* code objects named */
	uint64_t code_unreadable;	/* code objects that could not be read */
	uint64_t merged;		/* samples given their Python frames */
	uint64_t unplaced;		/* ... with no interpreter loop frame in
					 * the native stack: put at its root */
	uint64_t no_thread, truncated, fault;	/* by the samples' py_status */
	/* (all from the records: a replay of a saved stream counts what the
	 * live run did, but for unknown_version, found live only) */
	char unknown[64];		/* the first unknown version, "3.14" */
	char last_unknown[64];		/* the latest: "3.14" */
	uint32_t last_unknown_pid;	/* ... and its process */
};
void kp_python__stats(const struct kp_python *py, struct kp_python_stats *out);

#endif /* KP_PUMP_PYTHON_H */
