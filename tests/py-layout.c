// SPDX-License-Identifier: GPL-2.0-only
/* py-layout.c — built by tests/py-layout.sh against one CPython version's
 * installed headers (Py_BUILD_CORE, for the internal ones) with
 * src/symbols/pylayout.c: prints "ok" when kptop's layout of that version
 * has every offset the headers give, else each one that differs. For
 * 3.8 to 3.10 (PyFrameObject chains), the offsets and the kinds of walk.
 * For 3.13, also built with src/symbols/pydebug.c: the _Py_DebugOffsets of
 * the headers' own type, filled as the interpreter fills them, read back
 * by kptop's reader as the same layout. */
#define Py_BUILD_CORE 1
#include <Python.h>
#if PY_VERSION_HEX >= 0x030b0000
#include <internal/pycore_frame.h>
#else
#include <frameobject.h>
#endif
#if PY_VERSION_HEX >= 0x03090000
#include <internal/pycore_interp.h>
#include <internal/pycore_runtime.h>
#else
#include <internal/pycore_pystate.h>
#endif

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

#if PY_VERSION_HEX >= 0x030d0000 && PY_VERSION_HEX < 0x030e0000
/* The fields kptop reads, as _PyRuntimeState_INIT sets them. */
static void debug_offsets(_Py_DebugOffsets *d)
{
	memset(d, 0, sizeof(*d));
	memcpy(d->cookie, _Py_Debug_Cookie, sizeof(d->cookie));
	d->version = PY_VERSION_HEX;
	d->runtime_state.size = sizeof(_PyRuntimeState);
	d->runtime_state.interpreters_head = offsetof(_PyRuntimeState, interpreters.head);
	d->interpreter_state.size = sizeof(PyInterpreterState);
	d->interpreter_state.threads_head = offsetof(PyInterpreterState, threads.head);
	d->thread_state.size = sizeof(PyThreadState);
	d->thread_state.next = offsetof(PyThreadState, next);
	d->thread_state.current_frame = offsetof(PyThreadState, current_frame);
	d->thread_state.native_thread_id = offsetof(PyThreadState, native_thread_id);
	d->interpreter_frame.size = sizeof(_PyInterpreterFrame);
	d->interpreter_frame.previous = offsetof(_PyInterpreterFrame, previous);
	d->interpreter_frame.executable = offsetof(_PyInterpreterFrame, f_executable);
	d->interpreter_frame.instr_ptr = offsetof(_PyInterpreterFrame, instr_ptr);
	d->interpreter_frame.owner = offsetof(_PyInterpreterFrame, owner);
	d->code_object.size = sizeof(PyCodeObject);
	d->code_object.filename = offsetof(PyCodeObject, co_filename);
	d->code_object.qualname = offsetof(PyCodeObject, co_qualname);
	d->code_object.linetable = offsetof(PyCodeObject, co_linetable);
	d->code_object.firstlineno = offsetof(PyCodeObject, co_firstlineno);
	d->code_object.co_code_adaptive = offsetof(PyCodeObject, co_code_adaptive);
	d->unicode_object.size = sizeof(PyUnicodeObject);
	d->unicode_object.asciiobject_size = sizeof(PyASCIIObject);
}

static void check_debug(const struct kp_py_layout *l)
{
	_Py_DebugOffsets d;
	struct kp_py_layout got;
	int fd = memfd_create("py-layout", MFD_CLOEXEC), rc;

	debug_offsets(&d);
	if (fd < 0 || pwrite(fd, &d, sizeof(d), 4096) != (ssize_t)sizeof(d)) {
		printf("memfd\n");
		bad = 1;
		return;
	}
	rc = kp_py__debug_layout(fd, 4096, l->version, &got);
	close(fd);
	if (rc) {
		printf("kp_py__debug_layout: %d\n", rc);
		bad = 1;
	} else if (memcmp(&got, l, sizeof(got))) {
		printf("the layout read from _Py_DebugOffsets is not kptop's table's\n");
		bad = 1;
	}
}
#endif

int main(void)
{
	unsigned v = PY_MAJOR_VERSION << 8 | PY_MINOR_VERSION;
	const struct kp_py_layout *l = kp_py__layout(v);

	if (!l) {
		printf("kptop has no layout for %d.%d\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
		return 1;
	}
#if PY_VERSION_HEX >= 0x03080000 && PY_VERSION_HEX < 0x030b0000
	/* 3.8 to 3.10: frame objects; the thread's pthread_self; co_name;
	 * a code object read whole */
	CHECK(tstate_head, offsetof(PyInterpreterState, tstate_head));
	CHECK(ts_tid, offsetof(PyThreadState, thread_id));
	CHECK(ts_cframe, KP_PY_OFF_NONE);
	CHECK(ts_frame, offsetof(PyThreadState, frame));
	CHECK(f_code, offsetof(PyFrameObject, f_code));
	CHECK(f_previous, offsetof(PyFrameObject, f_back));
	CHECK(f_instr, offsetof(PyFrameObject, f_lasti));
	CHECK(f_entry, KP_PY_OFF_NONE);
	CHECK(f_owner, KP_PY_OFF_NONE);
#if PY_VERSION_HEX >= 0x030a0000
	CHECK(co_linetable, offsetof(PyCodeObject, co_linetable));
	CHECK(frames, KP_PY_FRAMES_LASTI);
#else
	CHECK(co_linetable, offsetof(PyCodeObject, co_lnotab));
	CHECK(frames, KP_PY_FRAMES_LASTI_BYTES);
#endif
	CHECK(tid, KP_PY_TID_PTHREAD);
	CHECK(co_code, sizeof(PyCodeObject));
	CHECK(co_qualname, offsetof(PyCodeObject, co_name));
#elif PY_VERSION_HEX >= 0x030b0000 && PY_VERSION_HEX < 0x030c0000
	CHECK(tstate_head, offsetof(PyInterpreterState, threads.head));
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
	CHECK(co_qualname, offsetof(PyCodeObject, co_qualname));
#elif PY_VERSION_HEX >= 0x030c0000 && PY_VERSION_HEX < 0x030d0000
	/* 3.12: entries from C are shim frames (no is_entry) */
	CHECK(tstate_head, offsetof(PyInterpreterState, threads.head));
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
	CHECK(co_qualname, offsetof(PyCodeObject, co_qualname));
#elif PY_VERSION_HEX >= 0x030d0000 && PY_VERSION_HEX < 0x030e0000
	/* 3.13: the thread's current frame directly; f_executable */
	CHECK(tstate_head, offsetof(PyInterpreterState, threads.head));
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
	CHECK(co_qualname, offsetof(PyCodeObject, co_qualname));
	check_debug(l);
#else
	printf("no check written for %d.%d\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
	return 1;
#endif
#if PY_VERSION_HEX >= 0x030b0000
	CHECK(frames, KP_PY_FRAMES_INTERP);
	CHECK(tid, KP_PY_TID_NATIVE);
#endif
	/* the same fields in every version */
	CHECK(interp_head, offsetof(_PyRuntimeState, interpreters.head));
	CHECK(ts_next, offsetof(PyThreadState, next));
	CHECK(co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	CHECK(co_filename, offsetof(PyCodeObject, co_filename));
	CHECK(str_ascii_data, sizeof(PyASCIIObject));
	CHECK(str_utf8_len, offsetof(PyCompactUnicodeObject, utf8_length));
	CHECK(str_utf8, offsetof(PyCompactUnicodeObject, utf8));
	CHECK(str_data, sizeof(PyCompactUnicodeObject));
	if (!bad)
		printf("ok\n");
	return bad;
}
