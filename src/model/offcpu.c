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
 */
#include "model/offcpu.h"
#include "model/intern.h"
#include "model/feed.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdio.h>

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
	int pid = r->waker_pid && m->fd.waker_pids < KP_WAKER_PIDS_MAX;

	snprintf(comm, sizeof(comm), "%.*s", KP_COMM_LEN - 1, r->waker_comm);
	if (!comm[0])
		return 0;
	if (r->s.flags & KP_SAMPLE_WAKER_IRQ)
		snprintf(buf, sizeof(buf), "[woken by interrupt]");
	else if (pid)
		snprintf(buf, sizeof(buf), "[woken by %s %u]", comm, r->waker_pid);
	else
		snprintf(buf, sizeof(buf), "[woken by %s]", comm);
	k = kp_intern__pseudo(m, buf);
	if (k == KP_NONE)
		return -ENOMEM;
	if (pid && !(r->s.flags & KP_SAMPLE_WAKER_IRQ) && m->in.nr_pcks > before)
		m->fd.waker_pids++;
	*x = k;
	return 1;
}

int kp_offcpu__frames(struct kp_model *m, const struct kp_rec_offcpu *r, uint64_t *x)
{
	char buf[32];
	uint32_t k;
	int n;

	state_name(r->state, buf, sizeof(buf));
	k = kp_intern__pseudo(m, buf);
	if (k == KP_NONE)
		return -ENOMEM;
	x[0] = k;
	n = waker_frame(m, r, &x[1]);
	return n < 0 ? n : 1 + n;
}
