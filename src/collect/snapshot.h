/* SPDX-License-Identifier: GPL-2.0-only */
/* snapshot.h — the /proc and cgroup snapshot taken when collection starts.
 *
 * Emits, through a kp_emit: a PROCESS record for every process (kernel
 * threads included), a THREAD record per task, an MMAP record for every
 * executable mapping, and a CGROUP record for every cgroup2 directory.
 * Processes that vanish mid-read are skipped silently; a process whose
 * maps cannot be read still gets its PROCESS record.
 *
 * Called by the collector once, before its consumer thread starts.
 * Errors: 0, or -errno only when /proc itself cannot be read.
 */
#ifndef KP_COLLECT_SNAPSHOT_H
#define KP_COLLECT_SNAPSHOT_H

#include "collect/emit.h"

int kp_snapshot__procs(struct kp_emit *e);
/* root: the cgroup2 mount, or NULL to find it in /proc/self/mounts
 * (no cgroup2 mounted: no records, returns 0). */
int kp_snapshot__cgroups(struct kp_emit *e, const char *root);

/* Fill comm (KP_COMM_LEN), exe (KP_PATH_MAX; NULL: skipped) and *uid of
 * a live process, best effort: "" / 0 for whatever cannot be read. */
void kp_snapshot__proc_info(uint32_t pid, uint32_t tid, char *comm, char *exe,
			    uint32_t *uid);

#endif /* KP_COLLECT_SNAPSHOT_H */
