// SPDX-License-Identifier: GPL-2.0-only
/* py-layout.c — built by tests/py-layout.sh against one CPython version's
 * installed headers (Py_BUILD_CORE, for the internal ones) with
 * src/symbols/pylayout.c: prints "ok" when kptop's layout of that version
 * has every offset the headers give, else each one that differs. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#include <internal/pycore_interp.h>
#include <internal/pycore_runtime.h>

#include <stddef.h>
#include <stdio.h>

#include "symbols/pycode.h"

static int bad;

static void check(const char *what, unsigned kptop, size_t headers)
{
	if (kptop == headers)
		return;
	printf("%s: kptop %u, the headers %zu\n", what, kptop, headers);
	bad = 1;
}

#define CHECK(field, expr) check(#field, l->field, (expr))

int main(void)
{
	unsigned v = PY_MAJOR_VERSION << 8 | PY_MINOR_VERSION;
	const struct kp_py_layout *l = kp_py__layout(v);

	if (!l) {
		printf("kptop has no layout for %d.%d\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
		return 1;
	}
#if PY_VERSION_HEX >= 0x030b0000 && PY_VERSION_HEX < 0x030c0000
	CHECK(interp_head, offsetof(_PyRuntimeState, interpreters.head));
	CHECK(tstate_head, offsetof(PyInterpreterState, threads.head));
	CHECK(ts_next, offsetof(PyThreadState, next));
	CHECK(ts_tid, offsetof(PyThreadState, native_thread_id));
	CHECK(ts_cframe, offsetof(PyThreadState, cframe));
	CHECK(ts_frame, offsetof(_PyCFrame, current_frame));
	CHECK(f_code, offsetof(_PyInterpreterFrame, f_code));
	CHECK(f_previous, offsetof(_PyInterpreterFrame, previous));
	CHECK(f_instr, offsetof(_PyInterpreterFrame, prev_instr));
	CHECK(f_entry, offsetof(_PyInterpreterFrame, is_entry));
	CHECK(f_owner, offsetof(_PyInterpreterFrame, owner));
	CHECK(co_linetable, offsetof(PyCodeObject, co_linetable));
	CHECK(co_code, offsetof(PyCodeObject, co_code_adaptive));
	CHECK(co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	CHECK(co_filename, offsetof(PyCodeObject, co_filename));
	CHECK(co_qualname, offsetof(PyCodeObject, co_qualname));
	CHECK(str_ascii_data, sizeof(PyASCIIObject));
	CHECK(str_utf8_len, offsetof(PyCompactUnicodeObject, utf8_length));
	CHECK(str_utf8, offsetof(PyCompactUnicodeObject, utf8));
	CHECK(str_data, sizeof(PyCompactUnicodeObject));
#elif PY_VERSION_HEX >= 0x030c0000 && PY_VERSION_HEX < 0x030d0000
	/* 3.12: entries from C are shim frames (no is_entry) */
	CHECK(interp_head, offsetof(_PyRuntimeState, interpreters.head));
	CHECK(tstate_head, offsetof(PyInterpreterState, threads.head));
	CHECK(ts_next, offsetof(PyThreadState, next));
	CHECK(ts_tid, offsetof(PyThreadState, native_thread_id));
	CHECK(ts_cframe, offsetof(PyThreadState, cframe));
	CHECK(ts_frame, offsetof(_PyCFrame, current_frame));
	CHECK(f_code, offsetof(_PyInterpreterFrame, f_code));
	CHECK(f_previous, offsetof(_PyInterpreterFrame, previous));
	CHECK(f_instr, offsetof(_PyInterpreterFrame, prev_instr));
	CHECK(f_entry, KP_PY_OFF_NONE);
	CHECK(f_owner, offsetof(_PyInterpreterFrame, owner));
	CHECK(co_linetable, offsetof(PyCodeObject, co_linetable));
	CHECK(co_code, offsetof(PyCodeObject, co_code_adaptive));
	CHECK(co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	CHECK(co_filename, offsetof(PyCodeObject, co_filename));
	CHECK(co_qualname, offsetof(PyCodeObject, co_qualname));
	CHECK(str_ascii_data, sizeof(PyASCIIObject));
	CHECK(str_utf8_len, offsetof(PyCompactUnicodeObject, utf8_length));
	CHECK(str_utf8, offsetof(PyCompactUnicodeObject, utf8));
	CHECK(str_data, sizeof(PyCompactUnicodeObject));
#elif PY_VERSION_HEX >= 0x030d0000 && PY_VERSION_HEX < 0x030e0000
	/* 3.13: the thread's current frame directly; f_executable */
	CHECK(interp_head, offsetof(_PyRuntimeState, interpreters.head));
	CHECK(tstate_head, offsetof(PyInterpreterState, threads.head));
	CHECK(ts_next, offsetof(PyThreadState, next));
	CHECK(ts_tid, offsetof(PyThreadState, native_thread_id));
	CHECK(ts_cframe, KP_PY_OFF_NONE);
	CHECK(ts_frame, offsetof(PyThreadState, current_frame));
	CHECK(f_code, offsetof(_PyInterpreterFrame, f_executable));
	CHECK(f_previous, offsetof(_PyInterpreterFrame, previous));
	CHECK(f_instr, offsetof(_PyInterpreterFrame, instr_ptr));
	CHECK(f_entry, KP_PY_OFF_NONE);
	CHECK(f_owner, offsetof(_PyInterpreterFrame, owner));
	CHECK(co_linetable, offsetof(PyCodeObject, co_linetable));
	CHECK(co_code, offsetof(PyCodeObject, co_code_adaptive));
	CHECK(co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	CHECK(co_filename, offsetof(PyCodeObject, co_filename));
	CHECK(co_qualname, offsetof(PyCodeObject, co_qualname));
	CHECK(str_ascii_data, sizeof(PyASCIIObject));
	CHECK(str_utf8_len, offsetof(PyCompactUnicodeObject, utf8_length));
	CHECK(str_utf8, offsetof(PyCompactUnicodeObject, utf8));
	CHECK(str_data, sizeof(PyCompactUnicodeObject));
#else
	printf("no check written for %d.%d\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
	return 1;
#endif
	if (!bad)
		printf("ok\n");
	return bad;
}
