/* SPDX-License-Identifier: GPL-2.0-only */
/* proc-int.h — processes (identity: pid + start time), their threads,
 * mappings and cgroups (proc.c; m->pr). Fed the non-sample records by
 * kp_model__feed; merge.c merges the exited ones and renumbers them.
 * Internal to src/model/.
 */
#ifndef KP_MODEL_PROC_INT_H
#define KP_MODEL_PROC_INT_H

#include "model/model-util.h"

struct kp_mem;

struct kp_proc {
	uint32_t pid;
	uint64_t start_ns;
	const char *comm, *exe;
	uint32_t root;		/* trie root node */
	uint32_t serial;	/* identity: stable when procs are renumbered */
	uint8_t gone, placeholder, kthread;
	uint8_t merged;		/* the exited processes of one command (merge.c) */
	uint32_t nmerged;	/* merged: how many */
	char *label;		/* merged: "comm xN", the row's name (its own
				 * KP_LABEL_LEN bytes; else comm) */
	struct kp_map_info *maps;	/* sorted by addr, no overlaps */
	uint32_t *map_mod;		/* module of each mapping */
	size_t nr_maps, cap_maps;
	uint32_t jit_gen;		/* its JIT code's generation (jitgen.c) */
	uint32_t npend;			/* its stacks waiting in m->pd.pend */
	uint32_t pend_from;		/* npend: the first one's index */
};

#define KP_LABEL_LEN (KP_COMM_LEN + 16)

struct kp_thread {
	uint32_t proc, tid;
	const char *name;
};

struct kp_cgroup {
	uint64_t id;
	const char *name;	/* path; NULL until a CGROUP record names it */
};

/* Processes, threads and cgroups (proc.c). */
struct kp_procs {
	struct kp_proc *procs;
	size_t nr_procs, cap_procs;
	struct kp_htab pid_tab;		/* pid -> current identity */
	uint32_t next_serial;
	size_t nr_gone;			/* exited, not merged yet */
	size_t nr_merged_rows;		/* merged procs */
	struct kp_htab merged_tab;	/* comm -> its merged proc */
	struct kp_thread *threads;
	size_t nr_threads, cap_threads;
	struct kp_htab thr_tab;
	struct kp_cgroup *cgroups;
	size_t nr_cgroups, cap_cgroups;
	struct kp_htab cg_tab;
};

void kp_proc__fini(struct kp_model *m);
void kp_proc__bytes(const struct kp_procs *pr, struct kp_mem *a);
/* The merged pseudo process of comm (made if new, not in pid_tab). */
uint32_t kp_proc__merged(struct kp_model *m, const char *comm);
/* Rebuild pid_tab, thr_tab and merged_tab after procs or threads were
 * renumbered. */
int kp_proc__reindex(struct kp_model *m);
/* The id of process proc's rows (process view, tree roots). */
uint64_t kp_proc__row_id(const struct kp_model *m, uint32_t proc);
uint32_t kp_proc__for_pid(struct kp_model *m, uint32_t pid, const char *comm,
			  int *created);
/* The process (pid, start_ns) if it is pid's identity now, else KP_NONE. */
uint32_t kp_proc__find(struct kp_model *m, uint32_t pid, uint64_t start_ns);
/* proc's user pcs were just named: if it is gone (a sample that came after
 * its exit), the resolver, which took the process up again to name them,
 * hears process_gone again, else it would keep it for ever; not when the
 * pid has a newer identity (an exec: the same pid and start time). */
void kp_proc__named_late(struct kp_model *m, uint32_t proc);
uint32_t kp_proc__thread(const struct kp_model *m, uint32_t proc, uint32_t tid);
/* The thread (proc, tid), named comm if new; KP_NONE on -ENOMEM. */
uint32_t kp_proc__seen_thread(struct kp_model *m, uint32_t proc, uint32_t tid,
			      const char *comm);
/* The index of cgroup id (interned, unnamed if new); KP_NONE on -ENOMEM. */
uint32_t kp_proc__cgroup(struct kp_model *m, uint64_t id);
const char *kp_proc__cgroup_name(struct kp_model *m, uint64_t id);
/* A CGROUP record: name the cgroup (cgroup.c). */
int kp_proc__on_cgroup(struct kp_model *m, const struct kp_rec_cgroup *r);
int kp_proc__feed(struct kp_model *m, const struct kp_record *r);
const struct kp_map_info *kp_proc__find_map(const struct kp_proc *p,
					    uint64_t pc, uint32_t *mod);

#endif /* KP_MODEL_PROC_INT_H */
