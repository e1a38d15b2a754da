// SPDX-License-Identifier: GPL-2.0-only
/* offcpu.c — the state and waker frames of an off-CPU interval.
 *
 * An interval (or the intervals one OFFCPU record sums) is counted under
 * the stacks its thread blocked in, then two pseudo frames: the state it
 * left the CPU in ("[S sleeping]", "[D uninterruptible]", "[R preempted]",
 * else "[state 0xN]" with the kernel's bits), and, when a wakeup ended it,
 * the task that woke it ("[woken by COMM PID]"), as bcc's offwaketime
 * shows the waker after the blocked stack, or "[woken by interrupt]" when
 * the wakeup was made in interrupt context (a timer, a finished transfer:
 * the task the interrupt found running did not wake it). So the tree and callers views
 * tell a thread blocked on a pipe from one preempted, and name the thread
 * that released a lock; the flat view lists the wakers by the time they
 * ended. A record of several intervals has the last one's state and waker.
 * The keys of the three common states and of the last wakers are cached
 * (struct kp_off_cache): with --off-cpu-min 0 there is a record per
 * switch, and formatting and looking up the same names each time was a
 * fifth of kptop's CPU per record.
 */
#include "model/offcpu.h"
#include "model/intern.h"
#include "model/feed.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void state_name(uint32_t state, char *buf, size_t len)
{
	switch (state) {
	case KP_OFF_RUNNABLE:
		snprintf(buf, len, "[R preempted]");
		break;
	case KP_OFF_SLEEP:
		snprintf(buf, len, "[S sleeping]");
		break;
	case KP_OFF_DISK:
		snprintf(buf, len, "[D uninterruptible]");
		break;
	default:
		snprintf(buf, len, "[state 0x%x]", state);
	}
}

/* "[woken by COMM PID]" while there are fewer than KP_WAKER_PIDS_MAX of
 * them, else "[woken by COMM]"; "[woken by interrupt]"; 0 when nothing
 * woke it (or who did is not known). */
static int waker_frame(struct kp_model *m, const struct kp_rec_offcpu *r, uint64_t *x)
{
	char comm[KP_COMM_LEN], buf[KP_COMM_LEN + 32];
	size_t before = m->in.nr_pcks;
	uint32_t k;
	int irq = !!(r->s.flags & KP_SAMPLE_WAKER_IRQ);
	int pid = !irq && r->waker_pid && m->fd.waker_pids < KP_WAKER_PIDS_MAX;

	snprintf(comm, sizeof(comm), "%.*s", KP_COMM_LEN - 1, r->waker_comm);
	if (!comm[0])
		return 0;
	if (irq)
		snprintf(buf, sizeof(buf), "[woken by interrupt]");
	else if (pid)
		snprintf(buf, sizeof(buf), "[woken by %s %u]", comm, r->waker_pid);
	else
		snprintf(buf, sizeof(buf), "[woken by %s]", comm);
	k = kp_intern__pseudo(m, buf);
	if (k == KP_NONE)
		return -ENOMEM;
	if (pid && m->in.nr_pcks > before)
		m->fd.waker_pids++;
	*x = k;
	return 1;
}

static uint32_t state_frame(struct kp_model *m, struct kp_off_cache *c, uint32_t state)
{
	char buf[32];
	uint32_t k;

	if (state < 3 && c->state[state])
		return c->state[state] - 1;
	state_name(state, buf, sizeof(buf));
	k = kp_intern__pseudo(m, buf);
	if (k != KP_NONE && state < 3)
		c->state[state] = k + 1;
	return k;
}

/* waker_frame through the cache of the last wakers, by pid and comm. */
static int cached_waker(struct kp_model *m, struct kp_off_cache *c,
			const struct kp_rec_offcpu *r, uint64_t *x)
{
	uint8_t irq = !!(r->s.flags & KP_SAMPLE_WAKER_IRQ);
	uint32_t h = (uint32_t)kp_hash_bytes(r->waker_comm, strnlen(r->waker_comm, KP_COMM_LEN),
					     r->waker_pid ^ (uint32_t)irq << 31);
	__typeof__(c->waker[0]) *e = &c->waker[h % KP_OFF_WAKER_CACHE];
	int n;

	if (e->key && e->pid == r->waker_pid && e->irq == irq &&
	    !strncmp(e->comm, r->waker_comm, KP_COMM_LEN)) {
		*x = e->key - 1;
		return 1;
	}
	n = waker_frame(m, r, x);
	if (n == 1) {
		e->pid = r->waker_pid;
		e->irq = irq;
		memcpy(e->comm, r->waker_comm, KP_COMM_LEN);
		e->key = (uint32_t)*x + 1;
	}
	return n;
}

int kp_offcpu__frames(struct kp_model *m, const struct kp_rec_offcpu *r, uint64_t *x)
{
	struct kp_off_cache *c = m->fd.off;
	uint32_t k;
	int n;

	if (!c && !(c = m->fd.off = calloc(1, sizeof(*c))))
		return -ENOMEM;
	k = state_frame(m, c, r->state);
	if (k == KP_NONE)
		return -ENOMEM;
	x[0] = k;
	n = cached_waker(m, c, r, &x[1]);
	return n < 0 ? n : 1 + n;
}
