// SPDX-License-Identifier: GPL-2.0-only
#include "main/options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/event.h"

enum {
	OPT_BATCH = 256, OPT_FORMAT, OPT_FORCE, OPT_CGROUP, OPT_USER_ONLY,
	OPT_KERNEL_ONLY, OPT_CPU_BUFFER, OPT_QUEUE_LIMIT, OPT_MAX_NODES,
	OPT_SPOOL, OPT_UNWIND, OPT_STACK_BYTES, OPT_WINDOW, OPT_IDLE,
	OPT_MAX_MEMORY, OPT_NO_MOUSE, OPT_FIELD_SEP, OPT_FOLDED_PID, OPT_BASELINE,
	OPT_ANNOTATE,
	OPT_OFF_CPU, OPT_OFF_CPU_MIN, OPT_WEIGHT,
	OPT_NATIVE_PYTHON,
	OPT_PUSH, OPT_APP_NAME, OPT_PUSH_HEADER, OPT_PUSH_BASIC_AUTH, OPT_PUSH_BEARER, OPT_PUSH_CACERT,
	OPT_PUSH_SPOOL, OPT_PUSH_SPOOL_SIZE,
};

static const struct option long_opts[] = {
	{ "batch", no_argument, NULL, OPT_BATCH },
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "field-separator", required_argument, NULL, OPT_FIELD_SEP },
	{ "folded-pid", no_argument, NULL, OPT_FOLDED_PID },
	{ "annotate", required_argument, NULL, OPT_ANNOTATE },
	{ "save", required_argument, NULL, 'w' },
	{ "input", required_argument, NULL, 'i' },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "freq", required_argument, NULL, 'F' },
	{ "event", required_argument, NULL, 'e' },
	{ "count", required_argument, NULL, 'c' },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "off-cpu-min", required_argument, NULL, OPT_OFF_CPU_MIN },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "pid", required_argument, NULL, 'p' },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "user-only", no_argument, NULL, OPT_USER_ONLY },
	{ "kernel-only", no_argument, NULL, OPT_KERNEL_ONLY },
	{ "cpu-buffer", required_argument, NULL, OPT_CPU_BUFFER },
	{ "queue-limit", required_argument, NULL, OPT_QUEUE_LIMIT },
	{ "max-nodes", required_argument, NULL, OPT_MAX_NODES },
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
	{ "spool", required_argument, NULL, OPT_SPOOL },
	{ "unwind", required_argument, NULL, OPT_UNWIND },
	{ "stack-bytes", required_argument, NULL, OPT_STACK_BYTES },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "idle", no_argument, NULL, OPT_IDLE },
	{ "no-mouse", no_argument, NULL, OPT_NO_MOUSE },
	{ "native-python", no_argument, NULL, OPT_NATIVE_PYTHON },
	{ "push", required_argument, NULL, OPT_PUSH },
	{ "app-name", required_argument, NULL, OPT_APP_NAME },
	{ "push-header", required_argument, NULL, OPT_PUSH_HEADER },
	{ "push-basic-auth", required_argument, NULL, OPT_PUSH_BASIC_AUTH },
	{ "push-bearer", required_argument, NULL, OPT_PUSH_BEARER },
	{ "push-cacert", required_argument, NULL, OPT_PUSH_CACERT },
	{ "push-spool", required_argument, NULL, OPT_PUSH_SPOOL },
	{ "push-spool-size", required_argument, NULL, OPT_PUSH_SPOOL_SIZE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static const char short_opts[] = ":bd:n:o:w:i:F:e:c:p:hV";

void kp_options_usage(FILE *f, const char *prog)
{
	fprintf(f,
"Usage: %s [OPTION]...            live view (root)\n"
"       %s --batch [-d SECS] [-n N] [-o FILE] [--format FMT] [OPTION]...\n"
"       %s --batch -n 0 [-d SECS] --push URL [OPTION]...   continuous profiling\n"
"Live, system-wide sampling CPU profiler.\n"
"\n"
"Modes and output:\n"
"  -b, --batch            no screen: sample, then write a report\n"
"  -d, --delay SECS       live: refresh interval (default 2); batch:\n"
"                         seconds per report (default: until SIGINT/SIGTERM)\n"
"  -n, --iterations N     batch: number of reports (default 1; 0: no end)\n"
"  -o, --output FILE      batch: write the report to FILE (default or -: stdout);\n"
"                         with %%n (report number), %%Y%%m%%d-%%H%%M%%S: one file\n"
"                         per report (needed by -n N --format pprof or svg)\n"
"      --format FMT       batch: text (default), tree, folded, pprof, json,\n"
"                         svg (a flame graph), speedscope\n"
"      --field-separator SEP\n"
"                         batch text, tree: table fields apart by SEP, one\n"
"                         punctuation mark or \\t (a tab), unpadded (for awk)\n"
"      --folded-pid       batch folded: comm-PID;... (stackcollapse-perf --pid)\n"
"      --annotate NAME    batch: the source lines and instructions the samples\n"
"                         of each function whose name holds NAME fall on\n"
"      --weight W         what counts weigh: cpu (samples, default), off\n"
"                         (microseconds off the CPU) or wall (on + off;\n"
"                         both need --off-cpu or a stream with off-CPU records)\n"
"  -w, --save FILE        also write the record stream to FILE\n"
"  -i, --input FILE       read a saved stream instead of sampling\n"
"      --force            read a stream owned by another user\n"
"      --baseline FILE    a saved stream to compare with: the live view's\n"
"                         baseline, or a differential --format svg\n"
"\n"
"Pushing (batch; see PUSHING in kptop(1)):\n"
"      --push URL         each interval's profiles to Pyroscope or Parca:\n"
"                         pyroscope://HOST[:PORT], parca://HOST[:PORT],\n"
"                         pyroscope+https://, parca+https://, http(s):// (Pyroscope);\n"
"                         -d defaults to %.0f s; no local report unless -o\n"
"      --app-name NAME    one application for everything sampled (default:\n"
"                         the systemd service or container, else the command)\n"
"      --push-header 'NAME: VALUE'  an HTTP header, e.g. X-Scope-OrgID (repeatable)\n"
"      --push-basic-auth FILE  user:password for basic auth, from FILE (0600)\n"
"      --push-bearer FILE a bearer token, from FILE (0600)\n"
"      --push-cacert FILE trust the CA certificates of FILE (PEM), not the\n"
"                         system's store\n"
"      --push-spool DIR   profiles not pushed yet (default /var/spool/kptop)\n"
"      --push-spool-size SIZE  the spool's limit; the oldest go past it\n"
"                         (default %uM)\n"
"\n"
"Sampling:\n"
"  -F, --freq HZ          samples per second per CPU (default %u)\n"
"  -e, --event EVENT      sample on EVENT, by perf's name (default cpu-clock):\n"
"                         task-clock, page-faults, minor-faults, major-faults,\n"
"                         context-switches, cpu-migrations; cycles,\n"
"                         instructions, cache-misses, branch-misses ...\n"
"                         (hardware: cpu-clock where there is no PMU)\n"
"  -c, --count N          a sample every N events instead of -F (ns for\n"
"                         cpu-clock and task-clock)\n"
"      --off-cpu          also record the time threads spend off their CPU\n"
"                         (blocked, asleep, preempted), from sched_switch\n"
"      --off-cpu-min USECS  a thread's off-CPU intervals are recorded once\n"
"                         they add up to USECS (default %u; 0: each one)\n"
"  -p, --pid PID[,PID...] only these processes\n"
"      --cgroup PATH      only this cgroup (a cgroup2 directory)\n"
"      --user-only        user stacks only\n"
"      --kernel-only      kernel stacks only\n"
"      --cpu-buffer SIZE  per-CPU buffer size (K, M, G suffixes)\n"
"      --queue-limit SIZE central queue limit (default --max-memory/8)\n"
"      --unwind MODE      fp, dwarf or auto (default auto)\n"
"      --stack-bytes N    user stack bytes copied for dwarf (default %u)\n"
"\n"
"Model and view:\n"
"      --max-nodes N      call tree node limit (default %u)\n"
"      --max-memory SIZE  memory budget of kptop as a whole (default %uM)\n"
"      --spool SECS       seconds of records kept for a save (default %u)\n"
"      --window SECS      length of the window time mode (default %u)\n"
"      --idle             show the idle task\n"
"      --native-python    Python processes: the interpreter's native stacks\n"
"      --no-mouse         live: leave the mouse to the terminal (its selection)\n"
"  -h, --help             this help\n"
"  -V, --version          print the version\n"
"\n"
"Exit status: 0 ok, 1 runtime error, 2 usage, 3 no rights to sample,\n"
"4 input file unreadable or damaged. See kptop(1).\n",
		prog, prog, prog, KP_DEFAULT_PUSH_DELAY_S, KP_DEFAULT_PUSH_SPOOL_MB,
		KP_DEFAULT_FREQ, KP_DEFAULT_OFF_CPU_MIN_US, KP_DEFAULT_STACK_BYTES,
		KP_MODEL_DEFAULT_MAX_NODES, KP_DEFAULT_MAX_MEMORY_MB, KP_DEFAULT_SPOOL_S,
		KP_DEFAULT_WINDOW_S);
}

int kp_parse_size(const char *s, size_t *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	}
	if ((*end == 'i' || *end == 'I') && mul > 1)
		end++;
	if ((*end == 'b' || *end == 'B') && end != s)
		end++;
	if (*end || v == 0 || v > SIZE_MAX / mul)
		return -EINVAL;
	*out = (size_t)(v * mul);
	return 0;
}

int kp_parse_seconds(const char *s, double *out)
{
	double v;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e7)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_uint(const char *s, unsigned long long max,
		      unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_pids(struct kp_options *o, const char *arg)
{
	const char *p = arg;
	unsigned long long v;
	char buf[32];

	while (*p) {
		size_t n = strcspn(p, ",");
		uint32_t *np;

		if (n == 0 || n >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (parse_uint(buf, INT_MAX, &v) || v == 0)
			return -EINVAL;
		np = realloc(o->pids, (o->nr_pids + 1) * sizeof(*np));
		if (!np)
			return -ENOMEM;
		o->pids = np;
		o->pids[o->nr_pids++] = (uint32_t)v;
		p += n;
		if (*p == ',' && !*++p)
			return -EINVAL;
	}
	return o->nr_pids ? 0 : -EINVAL;
}

/* --field-separator: a tab ("\t", "tab" or itself), or one ASCII
 * punctuation mark but those the rows need: '.' (in numbers), '%' (in
 * the column names) and '#' (which starts the header's lines). */
static int parse_sep(const char *s, char *out)
{
	unsigned char c = (unsigned char)s[0];

	if (!strcmp(s, "\\t") || !strcmp(s, "tab") || !strcmp(s, "\t")) {
		*out = '\t';
		return 0;
	}
	if (!c || s[1] || c >= 0x80 || !ispunct(c) || strchr(".%#", c))
		return -EINVAL;
	*out = (char)c;
	return 0;
}

static int bad(struct kp_err *err, const char *opt, const char *arg,
	       const char *accepted)
{
	return kp_err_set(err, KP_EUSAGE, "invalid value '%s' for %s: %s",
			  arg, opt, accepted);
}

/* Options with a number or a size. Returns 0, 1 (not handled) or an error. */
static int parse_value(struct kp_options *o, int c, const char *arg,
		       struct kp_err *err)
{
	unsigned long long v;
	double d;

	switch (c) {
	case 'd':
		if (kp_parse_seconds(arg, &d))
			return bad(err, "-d", arg, "expected seconds > 0, e.g. 2 or 0.5");
		o->delay_s = d;
		o->delay_set = 1;
		return 0;
	case 'n':
		if (parse_uint(arg, 1000000, &v))
			return bad(err, "-n", arg, "expected a count of reports, "
				   "or 0 for no end");
		o->count = (unsigned)v;
		return 0;
	case 'F':
		if (parse_uint(arg, 1000000, &v) || v == 0)
			return bad(err, "-F", arg, "expected a frequency in Hz >= 1");
		o->freq_hz = (uint32_t)v;
		o->freq_set = 1;
		return 0;
	case 'c':
		if (parse_uint(arg, UINT64_MAX >> 1, &v) || v == 0)
			return bad(err, "-c", arg, "expected a count of events >= 1");
		o->period = (uint64_t)v;
		return 0;
	case OPT_OFF_CPU_MIN:
		if (parse_uint(arg, 60000000, &v))
			return bad(err, "--off-cpu-min", arg,
				   "expected microseconds from 0 to 60000000");
		o->off_cpu_min_us = v;
		return 0;
	case OPT_CPU_BUFFER:
		if (kp_parse_size(arg, &o->cpu_buffer) || o->cpu_buffer < 4096)
			return bad(err, "--cpu-buffer", arg,
				   "expected a size >= 4K, with K, M or G suffix");
		return 0;
	case OPT_QUEUE_LIMIT:
		if (kp_parse_size(arg, &o->queue_limit) || o->queue_limit < 65536)
			return bad(err, "--queue-limit", arg,
				   "expected a size >= 64K, with K, M or G suffix");
		return 0;
	case OPT_MAX_NODES:
		if (parse_uint(arg, SIZE_MAX, &v) || v < 16)
			return bad(err, "--max-nodes", arg, "expected a count >= 16");
		o->max_nodes = (size_t)v;
		return 0;
	case OPT_PUSH_SPOOL_SIZE:
		if (kp_parse_size(arg, &o->push_spool_size) ||
		    o->push_spool_size < (16u << 10))
			return bad(err, "--push-spool-size", arg,
				   "expected a size >= 16K, with K, M or G suffix");
		return 0;
	case OPT_MAX_MEMORY:
		if (kp_parse_size(arg, &o->max_memory) || o->max_memory < (8u << 20))
			return bad(err, "--max-memory", arg,
				   "expected a size >= 8M, with K, M or G suffix");
		return 0;
	case OPT_SPOOL:
		if (parse_uint(arg, 86400, &v))
			return bad(err, "--spool", arg, "expected seconds from 0 to 86400");
		o->spool_s = (unsigned)v;
		return 0;
	case OPT_STACK_BYTES:
		if (parse_uint(arg, KP_MAX_STACK_BYTES, &v) || v < 64)
			return bad(err, "--stack-bytes", arg,
				   "expected bytes from 64 to 65536");
		o->stack_bytes = (uint32_t)v;
		return 0;
	case OPT_WINDOW:
		if (parse_uint(arg, 86400, &v) || v == 0)
			return bad(err, "--window", arg, "expected seconds from 1 to 86400");
		o->window_s = (unsigned)v;
		return 0;
	}
	return 1;
}

static int add_header(struct kp_options *o, const char *arg, struct kp_err *err)
{
	const char **v = realloc(o->push_headers,
				 (o->nr_push_headers + 1) * sizeof(*v));

	if (!v)
		return kp_err_set(err, -ENOMEM, "out of memory");
	o->push_headers = v;
	v[o->nr_push_headers++] = arg;
	return 0;
}

static int push_word(struct kp_options *o, int c, const char *arg,
		     struct kp_err *err)
{
	static const char *const names[] = { "--push", "--app-name",
		"--push-basic-auth", "--push-bearer", "--push-spool", "--push-cacert" };
	unsigned i = c == OPT_PUSH ? 0 : c == OPT_APP_NAME ? 1 :
		     c == OPT_PUSH_BASIC_AUTH ? 2 : c == OPT_PUSH_BEARER ? 3 :
		     c == OPT_PUSH_SPOOL ? 4 : 5;

	if (!*arg)
		return kp_err_set(err, KP_EUSAGE, "empty value for %s", names[i]);
	if (i == 1 && (strlen(arg) > 100 || strspn(arg, "abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != strlen(arg)))
		return bad(err, "--app-name", arg, "expected up to 100 letters, "
			   "digits, '_', '.' or '-'");
	const char **slot[] = { &o->push, &o->app_name, &o->push_basic_auth,
				&o->push_bearer, &o->push_spool, &o->push_cacert };
	*slot[i] = arg;
	return 0;
}

static int parse_word(struct kp_options *o, int c, const char *arg,
		      struct kp_err *err)
{
	int rc;

	switch (c) {
	case OPT_FORMAT:
		if (kp_format_parse(arg, &o->format))
			return bad(err, "--format", arg,
				   "expected text, tree, folded, pprof, json, svg or speedscope");
		return 0;
	case OPT_FIELD_SEP:
		if (parse_sep(arg, &o->field_sep))
			return bad(err, "--field-separator", arg, "expected one "
				   "punctuation mark but . % #, such as , ; or |, "
				   "or \\t for a tab");
		return 0;
	case 'e':
		if (!kp_event_find(arg))
			return kp_err_set(err, KP_EUSAGE, "invalid value '%s' for -e: "
					  "not an event kptop knows; expected one of %s",
					  arg, kp_event_names());
		o->event = arg;
		return 0;
	case OPT_WEIGHT:
		if (kp_weight_parse(arg, &o->weight))
			return bad(err, "--weight", arg, "expected cpu, off or wall");
		return 0;
	case OPT_UNWIND:
		if (!strcmp(arg, "fp"))
			o->unwind = KP_UNWIND_FP;
		else if (!strcmp(arg, "dwarf"))
			o->unwind = KP_UNWIND_DWARF;
		else if (!strcmp(arg, "auto"))
			o->unwind = KP_UNWIND_AUTO;
		else
			return bad(err, "--unwind", arg, "expected fp, dwarf or auto");
		return 0;
	case 'p':
		rc = parse_pids(o, arg);
		if (rc == -ENOMEM)
			return kp_err_set(err, rc, "out of memory");
		if (rc)
			return bad(err, "-p", arg,
				   "expected process ids > 0, separated by commas");
		return 0;
	case OPT_ANNOTATE:
		if (!*arg)
			return kp_err_set(err, KP_EUSAGE, "empty function name for --annotate");
		o->annotate = arg;
		return 0;
	case OPT_PUSH_HEADER:
		return add_header(o, arg, err);
	case OPT_PUSH: case OPT_APP_NAME: case OPT_PUSH_BASIC_AUTH:
	case OPT_PUSH_BEARER: case OPT_PUSH_SPOOL: case OPT_PUSH_CACERT:
		return push_word(o, c, arg, err);
	case 'o': case 'w': case 'i': case OPT_CGROUP: case OPT_BASELINE:
		if (!*arg && c == OPT_BASELINE)
			return kp_err_set(err, KP_EUSAGE, "empty file name for --baseline");
		if (!*arg)
			return kp_err_set(err, KP_EUSAGE, "empty file name for -%c",
					  c == OPT_CGROUP ? '-' : c);
		if (c == OPT_BASELINE) o->baseline = arg;
		if (c == 'o') o->output = arg;
		if (c == 'w') o->save = arg;
		if (c == 'i') o->input = arg;
		if (c == OPT_CGROUP) o->cgroup = arg;
		return 0;
	}
	return 1;
}

static int parse_flag(struct kp_options *o, int c)
{
	switch (c) {
	case 'b': case OPT_BATCH: o->batch = 1; return 0;
	case OPT_FORCE: o->force = 1; return 0;
	case OPT_USER_ONLY: o->user_only = 1; return 0;
	case OPT_KERNEL_ONLY: o->kernel_only = 1; return 0;
	case OPT_IDLE: o->idle = 1; return 0;
	case OPT_NO_MOUSE: o->no_mouse = 1; return 0;
	case OPT_NATIVE_PYTHON: o->native_python = 1; return 0;
	case OPT_FOLDED_PID: o->folded_pid = 1; return 0;
	case OPT_OFF_CPU: o->off_cpu = 1; return 0;
	case 'h': o->help = 1; return 0;
	case 'V': o->version = 1; return 0;
	}
	return 1;
}

static void set_defaults(struct kp_options *o)
{
	memset(o, 0, sizeof(*o));
	o->delay_s = KP_DEFAULT_DELAY_S;
	o->count = 1;
	o->format = KP_FORMAT_TEXT;
	o->freq_hz = KP_DEFAULT_FREQ;
	o->spool_s = KP_DEFAULT_SPOOL_S;
	o->max_memory = (size_t)KP_DEFAULT_MAX_MEMORY_MB << 20;
	o->unwind = KP_UNWIND_AUTO;
	o->stack_bytes = KP_DEFAULT_STACK_BYTES;
	o->window_s = KP_DEFAULT_WINDOW_S;
	o->off_cpu_min_us = KP_DEFAULT_OFF_CPU_MIN_US;
	o->push_spool_size = (size_t)KP_DEFAULT_PUSH_SPOOL_MB << 20;
}

/* -o PATTERN (one file per report) and -n: see kp_report_path. */
static int check_output(const struct kp_options *o, struct kp_err *err)
{
	int has_n = 0;
	int fields = kp_report_path_fields(o->output, &has_n, err);

	if (fields < 0)
		return fields;
	if (fields && !has_n && o->count != 1 && !o->input)
		return kp_err_set(err, KP_EUSAGE, "invalid value '%s' for -o: with "
				  "-n %u the pattern needs %%n (the report number), "
				  "such as %s-%%n", o->output, o->count, o->output);
	if (!fields && o->count != 1 && !o->input &&
	    (o->format == KP_FORMAT_PPROF || o->format == KP_FORMAT_SVG ||
	     o->format == KP_FORMAT_SPEEDSCOPE))
		return kp_err_set(err, KP_EUSAGE, "-n %u --format %s writes one "
				  "file per report: give -o a pattern with %%n, such "
				  "as -o cpu-%%n.%s", o->count, kp_format_name(o->format),
				  o->format == KP_FORMAT_SVG ? "svg" :
				  o->format == KP_FORMAT_PPROF ? "pb.gz" : "speedscope.json");
	return 0;
}

static int check_combination(struct kp_options *o, struct kp_err *err)
{
	if (o->user_only && o->kernel_only)
		return kp_err_set(err, KP_EUSAGE,
				  "--user-only and --kernel-only exclude each other");
	if (o->freq_set && o->period)
		return kp_err_set(err, KP_EUSAGE, "-F and -c exclude each other: -F "
				  "samples HZ times a second, -c every N events");
	if (o->weight != KP_WEIGHT_CPU && !o->off_cpu && !o->input)
		return kp_err_set(err, KP_EUSAGE, "--weight %s counts off-CPU time: "
				  "add --off-cpu", kp_weight_name(o->weight));
	if (o->input && o->off_cpu)
		return kp_err_set(err, KP_EUSAGE, "--off-cpu chooses what to record: "
				  "a stream read with -i holds off-CPU records or not");
	if (o->input && (o->event || o->period))
		return kp_err_set(err, KP_EUSAGE, "-e and -c choose what to sample: "
				  "a stream read with -i says what it sampled");
	if (o->input && o->save)
		return kp_err_set(err, KP_EUSAGE,
				  "-i and -w cannot be combined: the input is a stream already");
	if (!o->batch && o->output)
		return kp_err_set(err, KP_EUSAGE, "-o needs --batch");
	if (o->field_sep && (!o->batch || (o->format != KP_FORMAT_TEXT &&
					   o->format != KP_FORMAT_TREE)))
		return kp_err_set(err, KP_EUSAGE, "--field-separator is for the "
				  "text and tree reports: it needs --batch and "
				  "--format text or tree");
	if (o->folded_pid && (!o->batch || o->format != KP_FORMAT_FOLDED))
		return kp_err_set(err, KP_EUSAGE, "--folded-pid is for the folded "
				  "report: it needs --batch and --format folded");
	if (o->annotate && (!o->batch || o->format != KP_FORMAT_TEXT || o->field_sep))
		return kp_err_set(err, KP_EUSAGE, "--annotate writes a text report: "
				  "it needs --batch, and no --format but text");
	if (o->batch && o->baseline && o->format != KP_FORMAT_SVG)
		return kp_err_set(err, KP_EUSAGE, "--baseline in batch mode needs "
				  "--format svg (a differential flame graph); the "
				  "live view shows it in every view");
	if (o->push && !o->output)
		return 0;	/* no local report */
	return check_output(o, err);
}

/* --push and its companions (see PUSHING in kptop(1)). */
static int check_push(struct kp_options *o, struct kp_err *err)
{
	if (!o->push) {
		if (o->app_name || o->nr_push_headers || o->push_basic_auth ||
		    o->push_bearer || o->push_cacert || o->push_spool || o->push_spool_size !=
		    (size_t)KP_DEFAULT_PUSH_SPOOL_MB << 20)
			return kp_err_set(err, KP_EUSAGE, "--app-name and the "
					  "--push-* options need --push URL");
		return 0;
	}
	if (!o->batch)
		return kp_err_set(err, KP_EUSAGE, "--push needs --batch (as in "
				  "kptop --batch -n 0 --push URL)");
	if (o->input)
		return kp_err_set(err, KP_EUSAGE, "--push samples this machine: "
				  "it cannot be combined with -i");
	if (!o->delay_set) {
		o->delay_s = KP_DEFAULT_PUSH_DELAY_S;
		o->delay_set = 1;
	}
	return 0;
}

static int one_option(struct kp_options *o, int c, char **argv,
		      struct kp_err *err)
{
	int rc;

	if (c == '?' && optopt)
		return kp_err_set(err, KP_EUSAGE, "unknown option '-%c' (see --help)",
				  optopt);
	if (c == '?')
		return kp_err_set(err, KP_EUSAGE, "unknown option '%s' (see --help)",
				  argv[optind - 1]);
	if (c == ':' && optopt < OPT_BATCH && optopt > ' ')
		return kp_err_set(err, KP_EUSAGE, "option '-%c' needs a value", optopt);
	if (c == ':')
		return kp_err_set(err, KP_EUSAGE, "option '%s' needs a value",
				  argv[optind - 1]);
	rc = parse_flag(o, c);
	if (rc <= 0)
		return rc;
	rc = parse_value(o, c, optarg, err);
	if (rc <= 0)
		return rc;
	rc = parse_word(o, c, optarg, err);
	if (rc <= 0)
		return rc;
	return kp_err_set(err, KP_EUSAGE, "unhandled option");
}

int kp_options_parse(struct kp_options *o, int argc, char **argv,
		     struct kp_err *err)
{
	int c, rc;

	set_defaults(o);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		rc = one_option(o, c, argv, err);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return kp_err_set(err, KP_EUSAGE,
				  "unexpected argument '%s' (see --help)", argv[optind]);
	if (o->help || o->version)
		return 0;
	rc = check_push(o, err);
	return rc ? rc : check_combination(o, err);
}

void kp_options_fini(struct kp_options *o)
{
	free(o->pids);
	o->pids = NULL;
	o->nr_pids = 0;
	free(o->push_headers);
	o->push_headers = NULL;
	o->nr_push_headers = 0;
}
