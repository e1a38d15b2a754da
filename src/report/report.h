/* SPDX-License-Identifier: GPL-2.0-only */
/* report.h — batch reports of a model: text, tree, folded, pprof, json,
 * svg, speedscope.
 *
 * Owns: the output formats. Each format lives in its own file
 * (text.c, tree.c, folded.c, pprof.c, json.c, svg.c, speedscope.c);
 * kp_report__write()
 * dispatches on the format.
 *
 * Who calls it: src/main/kptop.c in batch mode, after the model has been fed
 * everything collected (or read from a stream file). Tests feed a model
 * hand-built records and a fake resolver.
 *
 * Ownership: the caller owns the FILE, the model and the info; the
 * report only reads them (it builds views and frees them again) and
 * writes to the FILE. It never closes the FILE.
 *
 * Errors: 0 or negative errno (-EIO when the FILE reports an error,
 * -ENOMEM) with a one-line message in err. Not thread-safe with respect
 * to the model (it reads it). Plain C and zlib: no curses, no libbpf.
 */
#ifndef KP_REPORT_H
#define KP_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "stream/record.h"
#include "util/kp_err.h"

enum kp_format {
	KP_FORMAT_TEXT = 0,	/* header + flat function table */
	KP_FORMAT_TREE,		/* top-down call tree, indented */
	KP_FORMAT_FOLDED,	/* comm;root;...;leaf COUNT */
	KP_FORMAT_PPROF,	/* gzip-compressed profile.proto */
	KP_FORMAT_JSON,		/* flat table and counters */
	KP_FORMAT_SVG,		/* flame graph, differential with a baseline */
	KP_FORMAT_SPEEDSCOPE,	/* speedscope's JSON: a profile per process, thread */
	KP_FORMAT_MAX,
};

/* "text" ... "speedscope" <-> enum; parse returns -EINVAL for an unknown name. */
const char *kp_format_name(enum kp_format f);
int kp_format_parse(const char *name, enum kp_format *out);

/* A live run's sample counts: the collector's (copied in by the caller:
 * the report layer never includes collect.h), and for the stages the
 * collector does not count (unwind) the model's LOST records. */
struct kp_report_counts {
	uint64_t taken, delivered;
	uint64_t lost[KP_LOST_STAGE_MAX + 1];	/* by stage; KP_LOST_STACK:
						 * kernel + user */
	uint64_t stack_err_kernel, stack_err_user;
	/* --off-cpu: on, scheduler switches seen, off-CPU intervals ended
	 * and their nanoseconds (recorded, held or lost: lost[KP_LOST_OFFCPU]);
	 * records that waited for a whole user stack, and those that had it
	 * (collect.h kp_collect_stats) */
	int off_on;
	uint64_t off_switches, off_intervals, off_ns;
	uint64_t off_stack_wanted, off_stack_copied;
};

/* What the report says about the run beyond the model's contents.
 * have_collector == 0 means the records came from a file and the drops
 * are those of the model's LOST records. */
struct kp_report_info {
	uint32_t freq_hz;		/* per CPU; 0: take the model's */
	uint32_t ncpus;			/* 0: take the model's */
	double duration_s;		/* sampling time covered by the report */
	uint64_t time_real_ns;		/* CLOCK_REALTIME of the start, 0 unknown */
	const char *source;		/* input file, or NULL when live */
	unsigned index, count;		/* report index (1-based) of count */
	int endless;			/* -n 0: reports without end (count 0) */
	int have_collector;
	/* have_collector: the counts of this report's interval, which the
	 * caller closed with every sample taken in it delivered or dropped
	 * (taken == delivered + bpf-full + cpu-buf + queue-full, delivered ==
	 * the model's samples), and those since sampling started. */
	struct kp_report_counts counts, run;
	/* JIT maps (perf-PID.map) of this run: processes given one, maps
	 * refused (untrusted, too big, over the budget), lines skipped. */
	uint64_t jit_maps, jit_refused, jit_bad_lines;
	/* Python (kptop(1), PYTHON): processes found, samples given their
	 * Python frames, samples whose thread state was not found, whose
	 * chain was cut at the bound, whose read failed; code objects that
	 * could not be read; samples whose frames had no interpreter loop
	 * frame to go in place of; processes of a version kptop cannot read
	 * (py_unknown_version: the first, or NULL). */
	uint64_t py_procs, py_merged, py_no_thread, py_trunc, py_fault;
	uint64_t py_unreadable, py_unplaced, py_unknown;
	const char *py_unknown_version;
	/* Debug files fetched from debuginfod servers ($DEBUGINFOD_URLS;
	 * debuginfod 0: not fetched): fetches not ended yet, ended with a
	 * file, ended without one. */
	int debuginfod;
	uint64_t dbgd_pending, dbgd_done, dbgd_failed;
	/* pprof: the build ID of a mapping that came without one (NULL: not
	 * looked up), 0 when id[0..*len) is filled; and the kernel's. */
	int (*build_id)(void *ctx, const char *path, uint8_t *id, uint8_t *len);
	void *build_id_ctx;
	uint8_t kernel_build_id[KP_BUILD_ID_MAX], kernel_build_id_len;
	/* pprof: the bias (link-time address minus file offset) of the
	 * segment of the file at path holding file offset off, 0 when
	 * *bias is set; NULL or an error: run-time addresses are written. */
	int (*link_bias)(void *ctx, const char *path, uint64_t off, uint64_t *bias);
	const char *event;		/* what was sampled, NULL unknown */
	/* How the text and tree tables are laid out (--field-separator):
	 * 0, columns aligned with blanks; else fields apart by exactly
	 * this one character, unpadded, and the header lines comments. */
	char field_sep;
	/* --folded-pid: folded stacks start "comm-PID" (one line per process
	 * and stack), as stackcollapse-perf --pid does. */
	int folded_pid;
	const char *host;		/* the host sampled, NULL or "" unknown */
	/* pprof: only the stacks keep() returns non-zero for (NULL: all),
	 * for the profile of one application (src/push/); it sees the
	 * stack's process and thread, not its frames (foreach_stack_if). */
	int (*keep)(void *ctx, const struct kp_stack_visit *v);
	void *keep_ctx;
};

/* -o with fields: a batch run writes each report to its own file, named
 * by the pattern with %n the report number (1-based), %Y %m %d %H %M %S
 * the local time the report's sampling started, %% a '%'.
 * kp_report_path_fields: 1 when pattern has a field (*has_n: it has %n),
 * 0 when none, KP_EUSAGE with a message for an unknown field.
 * kp_report_path: the name of report index into buf; -ENAMETOOLONG when
 * it does not fit. Both pure (localtime_r only). */
int kp_report_path_fields(const char *pattern, int *has_n, struct kp_err *err);
int kp_report_path(const char *pattern, unsigned index, uint64_t time_real_ns,
		   char *buf, size_t len, struct kp_err *err);

int kp_report__write(FILE *out, enum kp_format f, struct kp_model *m,
		     const struct kp_report_info *info, struct kp_err *err);

/* --annotate NAME (annotate.c): for every function with samples whose
 * name holds NAME, hottest first, its source lines with samples and
 * their instructions, with each one's share of the function's samples
 * (kp_model__annotate). -ENOENT with a message when none matches. */
int kp_report_annotate(FILE *out, struct kp_model *m, const char *name,
		       const struct kp_report_info *info, struct kp_err *err);

/* One function per format, called by kp_report__write(). */
int kp_report_text(FILE *out, struct kp_model *m,
		   const struct kp_report_info *info, struct kp_err *err);
int kp_report_tree(FILE *out, struct kp_model *m,
		   const struct kp_report_info *info, struct kp_err *err);
int kp_report_folded(FILE *out, struct kp_model *m,
		     const struct kp_report_info *info, struct kp_err *err);
int kp_report_pprof(FILE *out, struct kp_model *m,
		    const struct kp_report_info *info, struct kp_err *err);
int kp_report_json(FILE *out, struct kp_model *m,
		   const struct kp_report_info *info, struct kp_err *err);
int kp_report_svg(FILE *out, struct kp_model *m,
		  const struct kp_report_info *info, struct kp_err *err);
int kp_report_speedscope(FILE *out, struct kp_model *m,
			 const struct kp_report_info *info, struct kp_err *err);

#endif /* KP_REPORT_H */
