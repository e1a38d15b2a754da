/* SPDX-License-Identifier: GPL-2.0-only */
/* pycode.h — what kptop needs of a CPython interpreter: its symbols in
 * an ELF file, the layout of its structures per version, its code
 * objects read from a process's memory, and the line of an instruction
 * from a code object's line table.
 *
 * The layouts are taken from each version's own headers (3.11:
 * Include/internal/pycore_frame.h, pycore_runtime.h, pycore_interp.h,
 * Include/cpython/pystate.h, code.h, unicodeobject.h; 3.8 to 3.10 their
 * frameobject.h and pycore_pystate.h or pycore_interp.h);
 * tests/py-layout.sh checks them against the installed headers. Nothing
 * here guesses a version from a file name: the version is Py_Version,
 * read from the running process, and before 3.11 (no Py_Version) the API
 * the interpreter exports (kp_py_syms.api).
 *
 * Who calls it: src/pump/python.c. Stateless; every value read from a
 * process or a file is checked before use (a hostile process gets no
 * name or a cut one, never a crash). Errors: 0 or negative errno.
 */
#ifndef KP_SYMBOLS_PYCODE_H
#define KP_SYMBOLS_PYCODE_H

#include <stddef.h>
#include <stdint.h>

#include "util/py-walk.h"

#define KP_PY_OFF_NONE 0xffff	/* the version has no such field */

/* Byte offsets of one interpreter version's structures. */
struct kp_py_layout {
	uint32_t version;		/* major << 8 | minor */
	/* read by the BPF program (collect.h struct kp_collect_py) */
	uint16_t interp_head, tstate_head, ts_next, ts_tid, ts_cframe, ts_frame;
	uint16_t f_code, f_previous, f_instr, f_entry, f_owner;
	uint16_t co_linetable, co_code;	/* co_code: before 3.11 the size read */
	uint8_t frames, tid;		/* util/py-walk.h KP_PY_FRAMES_*, KP_PY_TID_* */
	/* read here, from the code object; co_qualname is co_name before
	 * 3.11, which have no qualified names */
	uint16_t co_firstlineno, co_filename, co_qualname;
	uint16_t str_ascii_data;	/* compact ASCII str: its bytes */
	uint16_t str_utf8_len, str_utf8;	/* compact str: utf8 cache */
	uint16_t str_data;		/* compact non-ASCII str: its data */
};

/* The layout of version (major << 8 | minor), or NULL: not known. */
const struct kp_py_layout *kp_py__layout(uint32_t version);

/* Can kp_py__read_code read with l: the code object's fields before the
 * KP_PY_CODE_HEAD bytes it reads of one (up to co_code), a str's before
 * the KP_PY_STR_HEAD it reads first (a layout from a process may say
 * anything: pydebug.c)? (pylayout.c) */
#define KP_PY_CODE_HEAD 256
#define KP_PY_STR_HEAD 64
int kp_py__layout_fits(const struct kp_py_layout *l);

/* pydebug.c: the layout a running interpreter publishes for
 * out-of-process tools (_Py_DebugOffsets, the first field of _PyRuntime,
 * 3.13), read through memfd (/proc/PID/mem) at runtime, the process's
 * _PyRuntime, for version (major << 8 | minor, from Py_Version). So a
 * build whose structures differ from the one kptop's table was taken
 * from (a debug build, other configure options) is still read right.
 * Checked: the cookie, the version, every offset inside its structure's
 * size, and kp_py__layout_fits. Returns 0, -ENOENT (no offsets: not 3.13, or no cookie), -ENOTSUP
 * (a free-threaded build: its frames are not walked), -EFAULT (a read
 * failed, or an offset or size is out of bounds). */
int kp_py__debug_layout(int memfd, uint64_t runtime, uint32_t version,
			struct kp_py_layout *out);

/* The interpreter symbols of an ELF file (link-time addresses, 0: not
 * there). */
struct kp_py_syms {
	uint64_t runtime;		/* _PyRuntime */
	uint64_t version;		/* Py_Version (3.11 and later) */
	/* before 3.11: the newest of the versions whose API it exports
	 * (PyIter_Send 3.10, PyFrame_GetCode 3.9, Py_BytesMain 3.8), as
	 * major << 8 | minor; 0: none of them */
	uint32_t api;
	uint64_t eval_lo, eval_hi;	/* _PyEval_EvalFrameDefault */
	uint64_t map_vaddr;		/* the link-time address of file offset
					 * pgoff (kp_py__elf_syms's argument) */
};

/* Look the symbols up in the ELF file open at fd (.dynsym, .symtab).
 * Returns 1 when it holds _PyRuntime, 0 when not, or -errno /
 * -KP_EFORMAT. */
int kp_py__elf_syms(int fd, uint64_t pgoff, struct kp_py_syms *out);

/* A code object as read from a process. */
struct kp_py_code {
	uint32_t firstlineno;
	uint64_t linetable_addr;	/* where its line table object is */
	char qualname[256];
	char filename[1024];
	uint8_t *linetable;		/* malloc'd, the caller frees */
	uint32_t linetable_len;
};

/* Read the code object at code through memfd (/proc/PID/mem). Returns 0,
 * -EFAULT (a read failed or a value is out of bounds), -ENOMEM; on an
 * error out->linetable is NULL (nothing to free). */
int kp_py__read_code(int memfd, const struct kp_py_layout *l, uint64_t code,
		     struct kp_py_code *out);

/* The line of instruction index instr (code units) in a line table of
 * version's format (3.11 to 3.13: the location table; 3.10 co_linetable,
 * 3.8 and 3.9 co_lnotab: kptop-stream(5), PYCODE), or 0 when it has none
 * or the table is cut. */
uint32_t kp_py__line(uint32_t version, const uint8_t *lt, size_t len,
		     uint32_t firstlineno, uint32_t instr);

#endif /* KP_SYMBOLS_PYCODE_H */
