/* SPDX-License-Identifier: GPL-2.0-only */
/* jitname.h — what managed runtimes write as the name of their generated
 * code, taken apart: the function, its source file and line, and the
 * runtime.
 *
 *   V8 (node --perf-basic-prof):  "JS:*name /path/file.js:12:5"
 *        (also LazyCompile:, Function:, Script:, Eval:; the mark before
 *        the name, * ~ ^ +, says the tier; an empty name is anonymous)
 *        "Builtin:ArrayPush", "BytecodeHandler:...", "Stub:...": V8, kept
 *        whole
 *   Java (jcmd PID Compiler.perfmap): "void pkg.Class.method(int)"
 *        gives "pkg.Class.method(int)"
 *   CPython 3.12+ (-X perf):      "py::qualname:/path/file.py"
 * Anything else is kept whole, runtime unknown.
 *
 * Who calls it: user.c (a JIT frame's name), jitcache.c (a table's
 * runtime), tests. Pure functions: no allocation, thread-safe.
 */
#ifndef KP_SYMBOLS_JITNAME_H
#define KP_SYMBOLS_JITNAME_H

#include <stddef.h>
#include <stdint.h>

enum kp_jit_runtime {
	KP_JIT_UNKNOWN = 0,
	KP_JIT_NODE,
	KP_JIT_JAVA,
	KP_JIT_PYTHON,
};

struct kp_jitname {
	char fn[256];		/* the function (truncated if longer) */
	char file[256];		/* its source file, "" if not given */
	uint32_t line;		/* 0 if not given */
	enum kp_jit_runtime runtime;
};

/* Take raw apart into out (always filled: fn is raw itself when it has
 * none of the forms above). */
void kp_jitname__parse(const char *raw, struct kp_jitname *out);

/* The module name of a runtime's code: "[jit:node]", "[jit:java]",
 * "[jit:python]", or "[jit]". */
const char *kp_jitname__module(enum kp_jit_runtime rt);

#endif /* KP_SYMBOLS_JITNAME_H */
