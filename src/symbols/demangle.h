/* SPDX-License-Identifier: GPL-2.0-only */
/* demangle.h — C++ (Itanium) and Rust (legacy and v0) demangling.
 *
 * Uses libiberty's cplus_demangle (Debian libiberty-dev): it is the
 * demangler of binutils, gdb and perf's fallback, kept up to date with GCC
 * and rustc, handles Itanium C++ and both Rust manglings in one call, and
 * its cp-demangle.c carries the LGPL linking exception. __cxa_demangle
 * would only cover C++.
 *
 * kp_demangle() returns a malloc'd string the caller frees, or NULL when
 * name is not mangled (or is too hostile to demangle). Thread-safe, no
 * state.
 */
#ifndef KP_SYMBOLS_DEMANGLE_H
#define KP_SYMBOLS_DEMANGLE_H

/* 1 if name looks like a C++ or Rust mangled name. */
int kp_is_mangled(const char *name);
char *kp_demangle(const char *name);

#endif /* KP_SYMBOLS_DEMANGLE_H */
