// SPDX-License-Identifier: GPL-2.0-only
/* python.c — Python processes, their code objects and the merging of
 * their frames into native stacks (python.h). The resolver ops are in
 * python-ops.c.
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

/* ---- processes ---- */

static uint32_t pid_slot(uint32_t pid)
{
	return (pid * 2654435761u) & (KP_PY_PROCS - 1);
}

struct py_proc *kp_py_proc(struct kp_python *py, uint32_t pid, int add)
{
	uint32_t h = pid_slot(pid);
	struct py_proc *free_slot = NULL;

	if (!pid)
		return NULL;
	for (int i = 0; i < KP_PY_PROCS; i++, h = (h + 1) & (KP_PY_PROCS - 1)) {
		struct py_proc *p = &py->procs[h];

		if (p->pid == pid)
			return p;
		if (!p->pid) {
			free_slot = p;
			break;
		}
	}
	if (!add || !free_slot)
		return NULL;
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->pid = pid;
	free_slot->gen = ++py->gen;
	free_slot->memfd = -1;
	return free_slot;
}

/* Free slot p, moving back the entries after it that probed past it
 * (linear probing without tombstones: lookups stay short however many
 * processes came and went). */
static void proc_drop(struct kp_python *py, struct py_proc *p)
{
	uint32_t hole = (uint32_t)(p - py->procs), j = hole, home;

	memset(p, 0, sizeof(*p));
	for (;;) {
		j = (j + 1) & (KP_PY_PROCS - 1);
		if (!py->procs[j].pid)
			return;
		home = pid_slot(py->procs[j].pid);
		/* j stays if its home lies cyclically in (hole, j] */
		if (hole < j ? (home > hole && home <= j) : (home > hole || home <= j))
			continue;
		py->procs[hole] = py->procs[j];
		memset(&py->procs[j], 0, sizeof(py->procs[j]));
		hole = j;
	}
}

/* The process exited or exec'd: what it was is forgotten. */
static void proc_gone(struct kp_python *py, uint32_t pid)
{
	struct py_proc *p = kp_py_proc(py, pid, 0);
	uint32_t nkeys;

	if (!p)
		return;
	if (p->memfd >= 0)
		close(p->memfd);
	if (p->state == KP_PYS_PYTHON && py->c)
		(void)kp_collector__python(py->c, pid, NULL);
	if (p->marked && py->c)
		(void)kp_collector__mark_dwarf(py->c, pid, 0);
	nkeys = p->nkeys;
	proc_drop(py, p);
	kp_py_code_gone(py, nkeys);
}

/* ---- records ---- */

/* The pseudo module of p's interpreter, into the model (once). */
static int send_module(struct kp_python *py, struct py_proc *p, uint64_t t,
		       kp_python_emit emit, void *ctx)
{
	struct kp_record r = { .type = KP_REC_MMAP };

	if (p->mapped || !emit)
		return 0;
	r.mmap.time_ns = t;
	r.mmap.pid = r.mmap.tid = p->pid;
	r.mmap.addr = KP_PY_BASE;
	r.mmap.len = KP_PY_LEN;
	r.mmap.prot = PROT_READ | PROT_EXEC;
	r.mmap.path = kp_py_module(py, p->version);
	p->mapped = 1;
	return emit(ctx, &r);
}

/* Read a new code object of a live process and send its PYCODE record.
 * Validated: its line table must still be the one the sample saw. */
static int read_code(struct kp_python *py, struct py_proc *p, uint64_t t,
		     uint64_t code, uint32_t token, kp_python_emit emit, void *ctx)
{
	struct kp_record r = { .type = KP_REC_PYCODE };
	struct kp_py_code pc;
	int rc;

	if (p->memfd < 0 || !p->layout ||
	    kp_py__read_code(p->memfd, p->layout, code, &pc) ||
	    ((pc.linetable_addr >> 4) & 0xffffff) != token) {
		if (p->memfd >= 0 && p->layout)
			free(pc.linetable);
		py->st.code_unreadable++;
		return 0;
	}
	r.pycode = (struct kp_rec_pycode){
		.time_ns = t, .pid = p->pid, .code = code, .token = token,
		.version = p->version, .firstlineno = pc.firstlineno,
		.qualname = pc.qualname, .filename = pc.filename,
		.linetable_len = pc.linetable_len, .linetable = pc.linetable,
	};
	rc = kp_py_code_add(py, p, &r.pycode);
	if (!rc)
		py->st.codes++;
	if (!rc && emit)
		rc = emit(ctx, &r);
	free(pc.linetable);
	return rc;
}

static int on_sample(struct kp_python *py, const struct kp_rec_sample *s,
		     kp_python_emit emit, void *ctx)
{
	struct py_proc *p;
	int rc = 0;

	switch (s->py_status) {
	case KP_PY_NO_THREAD: py->st.no_thread++; break;
	case KP_PY_TRUNC: py->st.truncated++; break;
	case KP_PY_FAULT: py->st.fault++; break;
	}
	if (!s->nr_pyframes || !(p = kp_py_proc(py, s->pid, 0)) ||
	    p->state != KP_PYS_PYTHON)
		return 0;
	if (!p->sampled) {	/* from the samples: a replay counts the same */
		p->sampled = 1;
		py->st.processes++;
	}
	rc = send_module(py, p, s->time_ns, emit, ctx);
	for (uint32_t i = 0; i < s->nr_pyframes && !rc && py->c; i++) {
		uint64_t code = s->pyframes[2 * i];
		uint32_t token = KP_PYF_TOKEN(s->pyframes[2 * i + 1]);

		if (!kp_py_code_find(py, p, code, token))
			rc = read_code(py, p, s->time_ns, code, token, emit, ctx);
	}
	return rc;
}

static int on_pycode(struct kp_python *py, const struct kp_rec_pycode *c)
{
	struct py_proc *p = kp_py_proc(py, c->pid, 1);

	if (!p)
		return 0;
	if (p->state == KP_PYS_NONE) {
		p->state = KP_PYS_PYTHON;
		p->version = c->version;
	}
	if (p->state != KP_PYS_PYTHON)
		return 0;
	return kp_py_code_add(py, p, c);
}

int kp_python__record(struct kp_python *py, const struct kp_record *r,
		      kp_python_emit emit, void *ctx)
{
	if (!py)
		return 0;
	switch (r->type) {
	case KP_REC_SAMPLE:
		return on_sample(py, &r->sample, emit, ctx);
	case KP_REC_MMAP:
		if (py->c)
			kp_py_on_mmap(py, &r->mmap);
		return 0;
	case KP_REC_PYCODE:
		return on_pycode(py, &r->pycode);
	case KP_REC_EXEC:
		proc_gone(py, r->exec.pid);
		return 0;
	case KP_REC_EXIT:
		if (r->exit.pid == r->exit.tid)
			proc_gone(py, r->exit.pid);
		return 0;
	}
	return 0;
}

int kp_python__foreach_code(struct kp_python *py, kp_python_emit emit, void *ctx)
{
	return py ? kp_py_code_foreach(py, emit, ctx) : 0;
}

/* ---- the object ---- */

struct kp_python *kp_python__new(struct kp_resolver inner)
{
	struct kp_python *py;

	if (!inner.ops) {
		errno = EINVAL;
		return NULL;
	}
	py = calloc(1, sizeof(*py));
	if (!py) {
		errno = ENOMEM;
		return NULL;
	}
	py->inner = inner;
	kp_py_ops_init(py);
	return py;
}

void kp_python__free(struct kp_python *py)
{
	if (!py)
		return;
	for (int i = 0; i < KP_PY_PROCS; i++)
		if (py->procs[i].pid && py->procs[i].memfd >= 0)
			close(py->procs[i].memfd);
	kp_py_code_free(py);
	free(py->cls);
	free(py->last);
	free(py);
}

void kp_python__set_collector(struct kp_python *py, struct kp_collector *c,
			      int mark_dwarf)
{
	if (!py)
		return;
	py->c = c;
	py->mark_dwarf = mark_dwarf;
}

void kp_python__set_raw(struct kp_python *py, int raw)
{
	if (py)
		py->raw = !!raw;
}

int kp_python__raw(const struct kp_python *py)
{
	return py ? py->raw : 0;
}

void kp_python__stats(const struct kp_python *py, struct kp_python_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (py)
		*out = py->st;
}

const char *kp_py_module(struct kp_python *py, uint32_t version)
{
	char *m = py->modules[version & (KP_PY_VERSIONS - 1)];

	snprintf(m, sizeof(py->modules[0]), KP_PYTHON_MODULE_PREFIX "%u.%u]", version >> 8 & 0xff,
		 version & 0xff);
	return m;
}
