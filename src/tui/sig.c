// SPDX-License-Identifier: GPL-2.0-only
/* sig.c — signals to the loop through a signalfd (see sig.h). */
#include "tui/sig.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP };
#define NR_SIGS (int)(sizeof(sigs) / sizeof(sigs[0]))

struct kp_sig {
	int fd;
	sigset_t old_mask;
	struct sigaction old_act[NR_SIGS];
};

/* Runs only in a thread that does not block the signal, i.e. not the
 * loop's: hand the signal to the main thread, which reads it from the fd. */
static void forward(int sig)
{
	int e = errno;

	if (gettid() != getpid())
		tgkill(getpid(), getpid(), sig);
	errno = e;
}

struct kp_sig *kp_sig__new(struct kp_err *err)
{
	struct kp_sig *s = calloc(1, sizeof(*s));
	struct sigaction sa;
	sigset_t mask;
	int rc;

	if (!s) {
		kp_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	sigemptyset(&mask);
	for (int i = 0; i < NR_SIGS; i++)
		sigaddset(&mask, sigs[i]);
	rc = pthread_sigmask(SIG_BLOCK, &mask, &s->old_mask);
	if (rc) {
		kp_err_set(err, -rc, "cannot block signals: %s", strerror(rc));
		free(s);
		errno = rc;
		return NULL;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (int i = 0; i < NR_SIGS; i++)
		sigaction(sigs[i], &sa, &s->old_act[i]);
	s->fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->fd < 0) {
		rc = errno;
		kp_err_set(err, -rc, "signalfd: %s", strerror(rc));
		kp_sig__free(s);
		errno = rc;
		return NULL;
	}
	return s;
}

int kp_sig__fd(const struct kp_sig *s)
{
	return s->fd;
}

int kp_sig__read(struct kp_sig *s)
{
	struct signalfd_siginfo si;
	int what = 0;

	while (read(s->fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		what |= si.ssi_signo == SIGWINCH ? KP_SIG_RESIZE :
			si.ssi_signo == SIGTSTP ? KP_SIG_STOP : KP_SIG_QUIT;
	return what;
}

void kp_sig__free(struct kp_sig *s)
{
	if (!s)
		return;
	if (s->fd >= 0) {
		kp_sig__read(s);	/* drop what arrived while quitting */
		close(s->fd);
	}
	for (int i = 0; i < NR_SIGS; i++)
		sigaction(sigs[i], &s->old_act[i], NULL);
	pthread_sigmask(SIG_SETMASK, &s->old_mask, NULL);
	free(s);
}
