// SPDX-License-Identifier: GPL-2.0-only
/* pylayout.c — the layouts of the CPython versions kptop reads
 * (pycode.h), apart so that tests/py-layout.sh can build it against a
 * version's installed headers and compare. No dependency but pycode.h.
 */
#include "symbols/pycode.h"

/* ---- layouts, from each version's headers ---- */

/* 3.8 to 3.10: PyFrameObject chains (f_back), a thread found by its
 * pthread_self (thread_id: there is no native_thread_id), code objects
 * read whole (co_code is sizeof(PyCodeObject)), named by co_name.
 * _PyRuntime.interpreters.head, _is.tstate_head, _ts.next / .thread_id
 * / .frame, PyFrameObject.f_code / .f_back / .f_lasti, PyCodeObject
 * .co_linetable (3.10) or .co_lnotab / .co_firstlineno / .co_filename /
 * .co_name; str as 3.11. Only f_lasti moves: 104, 96 in 3.10. */
#define KP_PY_LAYOUT_FRAMEOBJ(v, lasti, kind) {				\
		.version = (v),						\
		.interp_head = 32, .tstate_head = 8,			\
		.ts_next = 8, .ts_tid = 176, .ts_cframe = KP_PY_OFF_NONE,	\
		.ts_frame = 24,						\
		.f_code = 32, .f_previous = 24, .f_instr = (lasti),	\
		.f_entry = KP_PY_OFF_NONE, .f_owner = KP_PY_OFF_NONE,	\
		.co_linetable = 120, .co_code = 176,			\
		.frames = (kind), .tid = KP_PY_TID_PTHREAD,		\
		.co_firstlineno = 40, .co_filename = 104, .co_qualname = 112, \
		.str_ascii_data = 48, .str_utf8_len = 48, .str_utf8 = 56,	\
		.str_data = 72,						\
	}

static const struct kp_py_layout layouts[] = {
	KP_PY_LAYOUT_FRAMEOBJ(0x308, 104, KP_PY_FRAMES_LASTI_BYTES),
	KP_PY_LAYOUT_FRAMEOBJ(0x309, 104, KP_PY_FRAMES_LASTI_BYTES),
	KP_PY_LAYOUT_FRAMEOBJ(0x30a, 96, KP_PY_FRAMES_LASTI),
	{	/* 3.11: _PyRuntime.interpreters.head, _is.threads.head,
		 * _ts.next / .native_thread_id / .cframe,
		 * _PyCFrame.current_frame, _PyInterpreterFrame.f_code /
		 * .previous / .prev_instr / .is_entry / .owner,
		 * PyCodeObject.co_linetable / .co_code_adaptive /
		 * .co_firstlineno / .co_filename / .co_qualname,
		 * PyASCIIObject (48) and PyCompactUnicodeObject (72) */
		.version = 0x30b,
		.interp_head = 40, .tstate_head = 16,
		.ts_next = 8, .ts_tid = 160, .ts_cframe = 56, .ts_frame = 8,
		.f_code = 32, .f_previous = 48, .f_instr = 56, .f_entry = 68,
		.f_owner = 69,
		.co_linetable = 136, .co_code = 184,
		.co_firstlineno = 72, .co_filename = 112, .co_qualname = 128,
		.str_ascii_data = 48, .str_utf8_len = 48, .str_utf8 = 56,
		.str_data = 72,
	},
	{	/* 3.12: the same fields; _PyCFrame lost use_tracing, the
		 * frame starts with f_code, no is_entry (a C entry is a shim
		 * frame, owner FRAME_OWNED_BY_CSTACK), PyASCIIObject lost
		 * wstr (40; compact 56) */
		.version = 0x30c,
		.interp_head = 40, .tstate_head = 72,
		.ts_next = 8, .ts_tid = 144, .ts_cframe = 56, .ts_frame = 0,
		.f_code = 0, .f_previous = 8, .f_instr = 56,
		.f_entry = KP_PY_OFF_NONE, .f_owner = 70,
		.co_linetable = 136, .co_code = 192,
		.co_firstlineno = 68, .co_filename = 112, .co_qualname = 128,
		.str_ascii_data = 40, .str_utf8_len = 40, .str_utf8 = 48,
		.str_data = 56,
	},
	{	/* 3.13: no _PyCFrame (PyThreadState.current_frame), the frame
		 * starts with f_executable and has instr_ptr (the instruction
		 * running, not the one before), shim frames as 3.12 */
		.version = 0x30d,
		.interp_head = 632, .tstate_head = 7344,
		.ts_next = 8, .ts_tid = 160, .ts_cframe = KP_PY_OFF_NONE,
		.ts_frame = 72,
		.f_code = 0, .f_previous = 8, .f_instr = 56,
		.f_entry = KP_PY_OFF_NONE, .f_owner = 70,
		.co_linetable = 136, .co_code = 200,
		.co_firstlineno = 68, .co_filename = 112, .co_qualname = 128,
		.str_ascii_data = 40, .str_utf8_len = 40, .str_utf8 = 48,
		.str_data = 56,
	},
};

int kp_py__layout_fits(const struct kp_py_layout *l)
{
	return l->co_code <= KP_PY_CODE_HEAD && l->co_code >= 8 &&
	       l->co_firstlineno <= l->co_code - 4 && l->co_linetable <= l->co_code - 8 &&
	       l->co_qualname <= l->co_code - 8 && l->co_filename <= l->co_code - 8 &&
	       l->str_utf8_len <= KP_PY_STR_HEAD - 8 && l->str_utf8 <= KP_PY_STR_HEAD - 8;
}

const struct kp_py_layout *kp_py__layout(uint32_t version)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].version == version)
			return &layouts[i];
	return NULL;
}
