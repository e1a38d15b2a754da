/* SPDX-License-Identifier: GPL-2.0-only */
/* debuginfod.h — separate debug files fetched by build ID from the
 * servers in $DEBUGINFOD_URLS (libdebuginfod), by a thread of their own,
 * so that a server that is slow or down never holds up the thread that
 * names frames (the live view's, or the batch loop's).
 *
 * Owns: the fetcher thread (started with the first fetch; every signal
 * blocked in it but the wake signal), its libdebuginfod client, the
 * queue of build IDs to fetch, the results not taken yet (each an fd the
 * taker closes), and the build IDs that failed (never asked again in
 * this run). The files land in libdebuginfod's cache, the directory in
 * $DEBUGINFOD_CACHE_PATH, which the caller checked and set before any
 * thread ran (kp_debuginfod__cache_dir). The fetcher opens nothing else
 * and knows nothing of modules: the taker checks that the file is an ELF
 * file with the build ID it asked for (debuginfo.h) before it uses it.
 *
 * Who calls it: remote.c, from the one thread that uses the kp_symbols;
 * kp_debuginfod__cache_dir: main, before threads start. Errors: 0 or
 * -errno; the constructor NULL with errno.
 */
#ifndef KP_SYMBOLS_DEBUGINFOD_H
#define KP_SYMBOLS_DEBUGINFOD_H

#include <stddef.h>
#include <stdint.h>

#include "util/kp_err.h"

#define KP_DEBUGINFOD_ID_MAX 20

struct kp_debuginfod_result {
	uint8_t id[KP_DEBUGINFOD_ID_MAX];
	uint8_t id_len;
	int fd;		/* >= 0: the file (the taker closes it); else -errno */
};

struct kp_debuginfod;

/* max_size: bigger files are refused (0: no bound). wake_signal: a
 * signal whose handler does nothing, that main installed (0: none):
 * sent to the fetcher when it must stop, it ends the wait of a transfer
 * at once (else the transfer notices within a second). */
struct kp_debuginfod *kp_debuginfod__new(uint64_t max_size, int wake_signal);
/* Cancels the fetch in progress and waits for the fetcher up to 2 s
 * (a few ms with a wake signal); past that it is left to end alone and
 * frees what it holds itself. Results not taken are closed. */
void kp_debuginfod__free(struct kp_debuginfod *d);

/* Fetch the debug file of build ID id[0..len): 1 when queued, 0 when it
 * is queued, in flight, waiting to be taken or failed before, -errno.
 * Never blocks on the network. */
int kp_debuginfod__want(struct kp_debuginfod *d, const uint8_t *id, size_t len);
/* A finished fetch: 1 with *out filled (taken), 0 when none is ready.
 * Cheap when none is: no lock is taken. */
int kp_debuginfod__take(struct kp_debuginfod *d, struct kp_debuginfod_result *out);
/* Fetches asked for whose result was not taken yet. */
uint64_t kp_debuginfod__pending(struct kp_debuginfod *d);

/* The cache directory libdebuginfod is to use: $DEBUGINFOD_CACHE_PATH
 * when set, else kptop's own (/var/cache/kptop/debuginfod for root,
 * else $XDG_CACHE_HOME/kptop/debuginfod or ~/.cache/kptop/debuginfod),
 * made if missing and checked as util/safedir.h says. Its real path in
 * buf. 0, or -errno with a message naming the directory; *from_env
 * says whether the path came from $DEBUGINFOD_CACHE_PATH. */
int kp_debuginfod__cache_dir(char *buf, size_t len, int *from_env,
			     struct kp_err *err);

#endif /* KP_SYMBOLS_DEBUGINFOD_H */
