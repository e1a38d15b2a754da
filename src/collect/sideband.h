/* SPDX-License-Identifier: GPL-2.0-only */
/* sideband.h — the perf side-band reader: process, exec, exit, thread,
 * mmap and cgroup events of the whole machine, as records.
 *
 * Owns: one PERF_COUNT_SW_DUMMY event per CPU (mmap2, comm, comm_exec,
 * task, cgroup and build_id where the kernel has them; times on
 * CLOCK_MONOTONIC, like bpf_ktime_get_ns) and its mmap ring.
 *
 * Who calls it: the collector, from whichever thread holds its drain lock.
 * kp_sideband__drain turns everything in the rings into records through a
 * kp_emit (FORK -> PROCESS or THREAD, COMM+exec -> EXEC, COMM -> THREAD,
 * EXIT -> EXIT, executable MMAP2 -> MMAP, CGROUP -> CGROUP) and adds the
 * kernel's PERF_RECORD_LOST counts to lost[cpu index], and returns how
 * many events it read. An EXEC's exe is the file of the process's first
 * executable MMAP2 after it in the same drain; /proc/PID/exe only when
 * that is not there.
 * Errors: NULL + errno (message in err) / a count or -errno. Not
 * thread-safe.
 */
#ifndef KP_COLLECT_SIDEBAND_H
#define KP_COLLECT_SIDEBAND_H

#include <stdint.h>

#include "collect/emit.h"
#include "util/kp_err.h"

struct kp_sideband;

/* cpus[0..nr) are the CPU numbers to open events on. */
struct kp_sideband *kp_sideband__new(const int *cpus, int nr, struct kp_err *err);
void kp_sideband__free(struct kp_sideband *sb);
/* The per-CPU event fds (up to max), for poll(2): readable once a ring is
 * a quarter full. Returns how many. */
int kp_sideband__fds(const struct kp_sideband *sb, int *fds, int max);

int kp_sideband__drain(struct kp_sideband *sb, struct kp_emit *e, uint64_t *lost);

#endif /* KP_COLLECT_SIDEBAND_H */
