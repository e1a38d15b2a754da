/* SPDX-License-Identifier: GPL-2.0-only */
/* options.h — kptop's command line.
 *
 * Owns: the option table (getopt_long), the checks of every value and
 * the --help text. Parsing never loads, opens or starts anything: a bad
 * value is found before the collector exists.
 *
 * Who calls it: main() in src/main/kptop.c, once.
 *
 * Ownership: struct kp_options borrows the argv strings; the pid and
 * push header arrays are allocated and freed by kp_options_fini().
 *
 * Errors: kp_options_parse() returns 0, or KP_EUSAGE with one line in
 * err naming the option and what it accepts (main exits 2), or -ENOMEM.
 * Not thread-safe (getopt's state), called once from main.
 */
#ifndef KP_OPTIONS_H
#define KP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collect/collect.h"
#include "report/report.h"
#include "util/kp_err.h"

/* Exit statuses, documented in kptop(1). */
enum kp_exit {
	KP_EXIT_OK = 0,
	KP_EXIT_RUNTIME = 1,
	KP_EXIT_USAGE = 2,
	KP_EXIT_RIGHTS = 3,
	KP_EXIT_INPUT = 4,
};

#define KP_DEFAULT_SPOOL_S 60
/* --max-memory's default (kptop.c divides it in eighths: model, symbols,
 * spool, queue); its resident size is about this plus 45 MB (libraries,
 * BPF maps, file pages, the heap's free room): under 150 MB. */
#define KP_DEFAULT_MAX_MEMORY_MB 80
#define KP_DEFAULT_OFF_CPU_MIN_US 1000
#define KP_DEFAULT_DELAY_S 2.0
#define KP_DEFAULT_PUSH_DELAY_S 15.0
#define KP_DEFAULT_PUSH_SPOOL_MB 64

struct kp_options {
	int batch;
	double delay_s;		/* -d: live refresh / batch report interval */
	int delay_set;		/* -d given (batch: otherwise run to a signal) */
	unsigned count;		/* -n: reports in batch mode (0: no end) */
	const char *output;	/* -o FILE, NULL = stdout */
	enum kp_format format;	/* --format */
	char field_sep;		/* --field-separator: 0 aligned columns */
	int folded_pid;		/* --folded-pid */
	const char *annotate;	/* --annotate NAME: the annotate report */
	const char *save;	/* -w/--save FILE */
	const char *input;	/* -i FILE */
	const char *baseline;	/* --baseline FILE: a stream to compare with */
	int force;		/* --force: read another user's stream */
	uint32_t freq_hz;	/* -F */
	int freq_set;		/* -F given */
	const char *event;	/* -e, NULL = cpu-clock */
	uint64_t period;	/* -c: a sample every N events; 0 = -F */
	int off_cpu;		/* --off-cpu */
	uint64_t off_cpu_min_us;	/* --off-cpu-min */
	enum kp_weight weight;	/* --weight */
	uint32_t *pids;		/* -p, owned */
	size_t nr_pids;
	const char *cgroup;	/* --cgroup PATH */
	int user_only, kernel_only;
	size_t cpu_buffer;	/* --cpu-buffer, bytes; 0 = collector default */
	size_t queue_limit;	/* --queue-limit, bytes; 0 = default */
	size_t max_nodes;	/* --max-nodes; 0 = model default */
	unsigned spool_s;	/* --spool */
	size_t max_memory;	/* --max-memory, bytes: model and spool */
	enum kp_unwind_mode unwind;	/* --unwind */
	uint32_t stack_bytes;	/* --stack-bytes */
	unsigned window_s;	/* --window */
	int idle;		/* --idle */
	int no_mouse;		/* --no-mouse */
	int native_python;	/* --native-python: no Python frames merged */
	const char *push;	/* --push URL */
	const char *app_name;	/* --app-name */
	const char **push_headers;	/* --push-header, owned array */
	size_t nr_push_headers;
	const char *push_basic_auth;	/* --push-basic-auth FILE */
	const char *push_bearer;	/* --push-bearer FILE */
	const char *push_cacert;	/* --push-cacert FILE */
	const char *push_spool;	/* --push-spool DIR */
	size_t push_spool_size;	/* --push-spool-size, bytes */
	int help, version;
};

/* Fill o from argv (defaults first). */
int kp_options_parse(struct kp_options *o, int argc, char **argv,
		     struct kp_err *err);
void kp_options_fini(struct kp_options *o);

/* The --help text: every option, one per line (tests/man-options.sh
 * checks each appears in the man page). */
void kp_options_usage(FILE *f, const char *prog);

/* Parsers of single values, shared with the tests. 0 or -EINVAL. */
int kp_parse_size(const char *s, size_t *out);		/* 64K, 8M, 1G */
int kp_parse_seconds(const char *s, double *out);	/* > 0, fractional */

#endif /* KP_OPTIONS_H */
