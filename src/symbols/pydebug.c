// SPDX-License-Identifier: GPL-2.0-only
/* pydebug.c — a CPython 3.13 interpreter's own offsets (pycode.h).
 *
 * 3.13 starts _PyRuntime with _Py_DebugOffsets: a cookie, the version
 * (PY_VERSION_HEX), whether the build is free-threaded, then for each
 * structure an out-of-process tool reads, its size and the offsets of
 * its fields, all 64-bit. struct dbg13 below has the same fields in the
 * same order, up to the code object's (tests/py-layout.c checks it
 * against 3.13's headers); the layout of the structure itself changed in
 * 3.14, so only 3.13's is read. The process may be hostile: every offset
 * must lie inside the size its structure gives and under 64 KiB
 * (kp_py_layout holds 16-bit offsets), or nothing is taken.
 */
#include "symbols/pycode.h"

#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define DBG_COOKIE "xdebugpy"
#define DBG_MAX_OFF 0xfff0u		/* below KP_PY_OFF_NONE */

struct dbg13 {
	char cookie[8];
	uint64_t version, free_threaded;
	struct { uint64_t size, finalizing, interpreters_head; } runtime;
	struct {
		uint64_t size, id, next, threads_head, gc, imports_modules, sysdict,
			 builtins, ceval_gil, gil_runtime_state, gil_enabled,
			 gil_locked, gil_holder;
	} interp;
	struct {
		uint64_t size, prev, next, interp, current_frame, thread_id,
			 native_thread_id, datastack_chunk, status;
	} thread;
	struct {
		uint64_t size, previous, executable, instr_ptr, localsplus, owner;
	} frame;
	struct {
		uint64_t size, filename, name, qualname, linetable, firstlineno,
			 argcount, localsplusnames, localspluskinds, co_code_adaptive;
	} code;
	struct { uint64_t size, ob_type; } pyobject;
	struct { uint64_t size, tp_name, tp_repr, tp_flags; } type;
	struct { uint64_t size, ob_item, ob_size; } tuple, list;
	struct { uint64_t size, ma_keys, ma_values; } dict;
	struct { uint64_t size, ob_fval; } float_;
	struct { uint64_t size, lv_tag, ob_digit; } long_;
	struct { uint64_t size, ob_size, ob_sval; } bytes;
	struct { uint64_t size, state, length, asciiobject_size; } unicode;
};

/* off (of a field of width w) inside a structure of size size, and
 * below 64 KiB: its 16-bit value, else KP_PY_OFF_NONE. (The structures
 * may be bigger: an interpreter's state is hundreds of KiB.) */
static uint16_t inside(uint64_t size, uint64_t off, unsigned w)
{
	if (off > DBG_MAX_OFF || off > size || size - off < w)
		return KP_PY_OFF_NONE;
	return (uint16_t)off;
}

/* Every field the walk and the code reader use, or -EFAULT. */
static int fill(const struct dbg13 *d, struct kp_py_layout *l)
{
	uint64_t a = d->unicode.asciiobject_size;
	const struct {
		uint16_t *to;
		uint64_t size, off;	/* its structure's size, its offset */
		unsigned w;		/* the bytes read there */
	} f[] = {
		{ &l->interp_head, d->runtime.size, d->runtime.interpreters_head, 8 },
		{ &l->tstate_head, d->interp.size, d->interp.threads_head, 8 },
		{ &l->ts_next, d->thread.size, d->thread.next, 8 },
		{ &l->ts_tid, d->thread.size, d->thread.native_thread_id, 8 },
		{ &l->ts_frame, d->thread.size, d->thread.current_frame, 8 },
		{ &l->f_code, d->frame.size, d->frame.executable, 8 },
		{ &l->f_previous, d->frame.size, d->frame.previous, 8 },
		{ &l->f_instr, d->frame.size, d->frame.instr_ptr, 8 },
		{ &l->f_owner, d->frame.size, d->frame.owner, 1 },
		{ &l->co_linetable, d->code.size, d->code.linetable, 8 },
		{ &l->co_code, d->code.size, d->code.co_code_adaptive, 2 },
		{ &l->co_firstlineno, d->code.size, d->code.firstlineno, 4 },
		{ &l->co_filename, d->code.size, d->code.filename, 8 },
		{ &l->co_qualname, d->code.size, d->code.qualname, 8 },
		/* a compact str: PyASCIIObject, then (not ASCII) utf8_length
		 * and utf8 (kp_py__layout_fits bounds them), then its data */
		{ &l->str_ascii_data, d->unicode.size, a, 0 },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		*f[i].to = inside(f[i].size, f[i].off, f[i].w);
		if (*f[i].to == KP_PY_OFF_NONE)
			return -EFAULT;
	}
	l->ts_cframe = l->f_entry = KP_PY_OFF_NONE;	/* none in 3.13 */
	l->str_utf8_len = (uint16_t)a;
	l->str_utf8 = (uint16_t)(a + 8);
	l->str_data = (uint16_t)(a + 16);
	return 0;
}

int kp_py__debug_layout(int memfd, uint64_t runtime, uint32_t version,
			struct kp_py_layout *out)
{
	struct dbg13 d;
	struct kp_py_layout l = { .version = version };

	if (version != 0x30d)
		return -ENOENT;
	if (pread(memfd, &d, sizeof(d), (off_t)runtime) != (ssize_t)sizeof(d))
		return -EFAULT;
	if (memcmp(d.cookie, DBG_COOKIE, sizeof(d.cookie)) ||
	    (d.version >> 16 & 0xffff) != (0x300 | (version & 0xff)))
		return -ENOENT;
	if (d.free_threaded)
		return -ENOTSUP;
	if (fill(&d, &l) || !kp_py__layout_fits(&l))
		return -EFAULT;
	*out = l;
	return 0;
}
