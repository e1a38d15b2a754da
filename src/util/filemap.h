/* SPDX-License-Identifier: GPL-2.0-only */
/* filemap.h — read-only file pages given back: an ELF image that libelf
 * mapped (ELF_C_READ_MMAP: PROT_READ, MAP_PRIVATE, so never written) is
 * counted in kptop's RSS as far as it was touched (a big library's
 * .eh_frame and symbol table, 5 to 10 MB each); dropping those pages
 * costs a minor fault from the page cache when one is touched again.
 *
 * Who calls it: src/unwind/ (the unwinder's module cache) and
 * src/symbols/module.c (each module's images). Errors: none;
 * kp_filemap__is_file is 0 when in doubt, and then nothing is dropped
 * (an image libelf read into the heap, where a drop would zero it).
 */
#ifndef KP_UTIL_FILEMAP_H
#define KP_UTIL_FILEMAP_H

#include <stddef.h>

/* 1 when [p, p + len) lies in one private, read-only mapping of a file
 * (by /proc/self/maps), else 0. */
int kp_filemap__is_file(const void *p, size_t len);
/* Drop the resident pages of such a mapping (MADV_DONTNEED). */
void kp_filemap__release(void *p, size_t len);

#endif /* KP_UTIL_FILEMAP_H */
