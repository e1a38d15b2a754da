// SPDX-License-Identifier: GPL-2.0-only
/* coalesce.c — runs of identical idle samples as one weighted record
 * (see coalesce.h). Runs for every sample in the collector's consumer
 * thread: the check against the held run is a few compares and one
 * memcmp of the kernel frames.
 */
#include "collect/coalesce.h"

#include <stdlib.h>
#include <string.h>

struct run {
	struct kp_record r;		/* the first sample; weight counts the run */
	uint64_t kframes[KP_MAX_FRAMES];	/* r.sample.kframes points here */
	int held;
};

struct kp_coalesce {
	uint32_t nr;
	uint32_t nr_held;	/* flush stops when it has emitted them all */
	struct run runs[];
};

struct kp_coalesce *kp_coalesce__new(uint32_t nr_cpus)
{
	struct kp_coalesce *co = calloc(1, sizeof(*co) +
					(size_t)nr_cpus * sizeof(co->runs[0]));

	if (!co)
		return NULL;
	co->nr = nr_cpus;
	return co;
}

void kp_coalesce__free(struct kp_coalesce *co)
{
	free(co);
}

int kp_coalesce__can_start(const struct kp_rec_sample *s)
{
	return (s->flags & KP_SAMPLE_IDLE) && !s->nr_uframes && !s->nr_regs &&
	       !s->stack_len && s->nr_kframes <= KP_MAX_FRAMES &&
	       kp_sample_weight(s) == 1;
}

int kp_coalesce__joins(const struct kp_rec_sample *run,
		       const struct kp_rec_sample *s)
{
	return kp_coalesce__can_start(s) &&
	       s->time_ns >= run->time_ns &&
	       s->time_ns - run->time_ns < KP_COALESCE_SPAN_NS &&
	       run->weight < UINT32_MAX &&
	       s->cpu == run->cpu && s->pid == run->pid && s->tid == run->tid &&
	       s->gpid == run->gpid && s->gtid == run->gtid &&
	       s->cgroup_id == run->cgroup_id && s->flags == run->flags &&
	       s->kerr == run->kerr && s->uerr == run->uerr &&
	       s->nr_kframes == run->nr_kframes &&
	       !strncmp(s->comm, run->comm, KP_COMM_LEN) &&
	       (!s->nr_kframes ||
		!memcmp(s->kframes, run->kframes, s->nr_kframes * sizeof(uint64_t)));
}

static int emit_run(struct kp_coalesce *co, struct run *h, uint32_t cpu,
		    kp_coalesce_emit_fn emit, void *ctx)
{
	h->held = 0;
	co->nr_held--;
	return emit(ctx, &h->r, cpu);
}

int kp_coalesce__sample(struct kp_coalesce *co, const struct kp_record *r,
			uint32_t cpu, kp_coalesce_emit_fn emit, void *ctx)
{
	const struct kp_rec_sample *s = &r->sample;
	struct run *h;
	int ret = 0;

	if (cpu >= co->nr)
		return emit(ctx, r, cpu);
	h = &co->runs[cpu];
	if (h->held) {
		if (kp_coalesce__joins(&h->r.sample, s)) {
			h->r.sample.weight++;
			return 0;
		}
		ret = emit_run(co, h, cpu, emit, ctx);
	}
	if (!kp_coalesce__can_start(s)) {
		int e = emit(ctx, r, cpu);

		return ret ? ret : e;
	}
	h->r = *r;
	if (s->nr_kframes)
		memcpy(h->kframes, s->kframes, s->nr_kframes * sizeof(uint64_t));
	h->r.sample.kframes = s->nr_kframes ? h->kframes : NULL;
	h->r.sample.weight = 1;
	h->held = 1;
	co->nr_held++;
	return ret;
}

int kp_coalesce__flush(struct kp_coalesce *co, kp_coalesce_emit_fn emit,
		       void *ctx)
{
	int ret = 0, e;

	for (uint32_t i = 0; i < co->nr && co->nr_held; i++) {
		if (!co->runs[i].held)
			continue;
		e = emit_run(co, &co->runs[i], i, emit, ctx);
		if (!ret)
			ret = e;
	}
	return ret;
}
