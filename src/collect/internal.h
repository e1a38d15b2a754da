/* SPDX-License-Identifier: GPL-2.0-only */
/* internal.h — the collector's state, shared by collect.c (thread, queue,
 * control) and bpfload.c (options, rights, BPF program, perf events,
 * counters). Collect-internal: never included outside src/collect/.
 *
 * Locking: every field below the lock is touched only with c->lock held
 * once the consumer thread runs.
 */
#ifndef KP_COLLECT_INTERNAL_H
#define KP_COLLECT_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "collect/collect.h"
#include "collect/emit.h"
#include "collect/queue.h"

struct kptop_bpf;
struct ring_buffer;
struct bpf_link;
struct kp_sideband;
struct kp_coalesce;
struct kp_event;
struct kp_offcpu;

struct kp_collector {
	struct kp_collect_opts o;	/* with defaults filled in */
	int nr_cpus;			/* online CPUs sampled */
	int *cpus;			/* their numbers */
	int nr_possible;
	const struct kp_event *event;	/* sampled (after any fallback) */
	const struct kp_event *asked;	/* asked for, when it fell back */
	struct kptop_bpf *skel;
	struct kp_offcpu *off;		/* off-CPU program (offcpu.c), or NULL */
	int *ev_fds;			/* sampling events, owned by links */
	struct bpf_link **links;
	int *rb_fds;			/* per-CPU ring buffers */
	struct ring_buffer *rb;
	int cgroup_fd;
	struct kp_queue *q;
	int stop_fd;
	pthread_t thread;
	int thread_started;

	pthread_mutex_t lock;
	struct kp_sideband *sb;
	struct kp_emit emit;
	struct kp_coalesce *co;		/* idle runs of the pass being drained */
	int sampling;
	uint64_t marked;
	uint64_t *qdrop;		/* [nr_possible] queue-full drops */
	uint64_t *cycle_bytes;		/* [nr_possible] drained this cycle */
	uint64_t *sb_lost;		/* [nr_cpus] side-band losses */
	uint64_t *reported;		/* [KP_LOST_STAGE_MAX+1][nr_possible] */
	uint64_t *cnt_buf;		/* [nr_possible][KP_CNT_MAX] */
};

/* bpfload.c */
int kp_collect__setup(struct kp_collector *c, const struct kp_collect_opts *o,
		      struct kp_err *err);
int kp_collect__open_bpf(struct kp_collector *c,
			 int (*on_sample)(void *ctx, void *data, size_t size),
			 struct kp_err *err);
int kp_collect__attach(struct kp_collector *c, struct kp_err *err);
/* The idle ranges from opts.idle_text into the loaded program (before
 * kp_collect__attach). */
void kp_collect__set_idle(struct kp_collector *c);
void kp_collect__close_bpf(struct kp_collector *c);
/* Sum the per-CPU BPF counters into sum[KP_CNT_MAX] (c->cnt_buf keeps the
 * per-CPU values). */
void kp_collect__read_counters(struct kp_collector *c, uint64_t *sum);
/* kptop's own pid namespace, for the BPF programs' ids (bpfload.c): 1
 * with its device and inode when it is not the initial one (the global
 * ids are then not kptop's), 0 otherwise. */
int kp_collect__pidns(uint64_t *dev, uint64_t *ino);
/* LOST records for every (stage, cpu) counter that moved. */
void kp_collect__emit_lost(struct kp_collector *c);

/* offcpu.c: the off-CPU program, opened after the sample rings exist
 * (its rings join c->rb), attached or detached by __enable (under the
 * lock once the consumer runs); counters summed into
 * sum[KP_OFF_CNT_MAX]; __lost: a CPU's lost intervals as last summed. */
int kp_offcpu__open(struct kp_collector *c, struct kp_err *err);
int kp_offcpu__enable(struct kp_collector *c, int on);
int kp_offcpu__on(const struct kp_collector *c);
void kp_offcpu__counters(struct kp_collector *c, uint64_t *sum);
uint64_t kp_offcpu__lost(const struct kp_collector *c, int cpu);
void kp_offcpu__close(struct kp_collector *c);

#endif /* KP_COLLECT_INTERNAL_H */
