// SPDX-License-Identifier: GPL-2.0-only
/* pprof.c — the pprof report: a gzip-compressed profile.proto
 * (github.com/google/pprof/proto/profile.proto) readable by
 * `go tool pprof`, Pyroscope and Parca.
 *
 * Sample types samples/count and cpu/nanoseconds (count * 1e9 / freq),
 * period_type cpu/nanoseconds. One mapping per distinct (file, build-id,
 * range); one location per distinct (mapping, address, inline chain), its
 * lines innermost first; one function per (name, file), with its first
 * line (start_line) where DWARF, a save or a Python code object gave
 * it. Every mapping has has_functions set: pprof never re-symbolizes
 * what kptop named.
 *
 * Addresses are link-time ones where the module's file is here to say
 * how (info->link_bias): a mapping's start and limit are its offset's
 * link-time address and that plus its length, and a location's address
 * its file offset's link-time address. go tool pprof -disasm compares
 * them with the file's symbols as they are (its ObjAddr is the
 * identity), and pprof's binutils tools find a base of 0 for such a
 * mapping, so both annotate; a system-wide profile merges processes of
 * one binary at several load addresses anyway. Else run-time addresses
 * in the first mapping of the module seen. */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/pb.h"
#include "report/report-int.h"
#include "stream/lost.h"

/* profile.proto field numbers. */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4,
	P_FUNCTION = 5, P_STRING_TABLE = 6, P_TIME_NANOS = 9,
	P_DURATION_NANOS = 10, P_PERIOD_TYPE = 11, P_PERIOD = 12, P_COMMENT = 13,
	P_DEFAULT_SAMPLE_TYPE = 14,
	VT_TYPE = 1, VT_UNIT = 2,
	S_LOCATION_ID = 1, S_VALUE = 2, S_LABEL = 3,
	L_KEY = 1, L_STR = 2, L_NUM = 3, L_NUM_UNIT = 4,
	M_ID = 1, M_START = 2, M_LIMIT = 3, M_OFFSET = 4, M_FILENAME = 5,
	M_BUILD_ID = 6, M_HAS_FUNCTIONS = 7, M_HAS_FILENAMES = 8,
	M_HAS_LINE_NUMBERS = 9, M_HAS_INLINE_FRAMES = 10,
	LOC_ID = 1, LOC_MAPPING_ID = 2, LOC_ADDRESS = 3, LOC_LINE = 4,
	LN_FUNCTION_ID = 1, LN_LINE = 2,
	F_ID = 1, F_NAME = 2, F_SYSTEM_NAME = 3, F_FILENAME = 4, F_START_LINE = 5,
};

#define KERNEL_MAP_START 0xffff000000000000ULL

/* One Mapping message in pp->mappings, for the order they are written. */
struct pp_map {
	size_t off, len;
	uint64_t file;		/* its filename's string id */
	int linked;		/* addresses are link-time: file offset + bias */
	uint64_t bias;
};

struct pp {
	struct kp_intern *strs, *funcs, *maps, *locs;
	struct kp_intern *bids;	/* path -> string id of its looked-up build ID */
	struct kp_pb samples, mappings, locations, functions;
	struct kp_pb tmp, sub, scratch;
	const struct kp_report_info *info;
	uint64_t period_ns;
	int wall;		/* --weight wall: values cpu and off_cpu too */
	uint64_t *locids, *key;
	size_t cap;
	struct pp_map *mapv;	/* the mappings, in order of ids */
	size_t nr_mapv, cap_mapv;
	uint64_t *exe_samples;	/* by string id of an executable */
	size_t cap_exe;
	uint64_t main_file;	/* string id of the main binary, 0 none */
	int rc;
};

static uint64_t str(struct pp *pp, const char *s)
{
	uint64_t id = kp_intern__count(pp->strs);
	int rc;

	if (!s)
		s = "";
	rc = kp_intern__get(pp->strs, s, strlen(s), &id);
	if (rc < 0)
		pp->rc = rc;
	return id;
}

/* Intern key in t; on a new entry *is_new = 1. Ids start at 1. */
static uint64_t intern_id(struct pp *pp, struct kp_intern *t, const void *key,
			  size_t len, int *is_new)
{
	uint64_t id = kp_intern__count(t) + 1;
	int rc = kp_intern__get(t, key, len, &id);

	if (rc < 0)
		pp->rc = rc;
	*is_new = rc == 1;
	return id;
}

static uint64_t func_id(struct pp *pp, const struct kp_frame_ref *fr)
{
	uint64_t key[2] = { str(pp, fr->name), str(pp, fr->file) };
	int is_new;
	uint64_t id = intern_id(pp, pp->funcs, key, sizeof(key), &is_new);

	if (is_new) {
		kp_pb_reset(&pp->tmp);
		kp_pb_uint(&pp->tmp, F_ID, id);
		kp_pb_uint(&pp->tmp, F_NAME, key[0]);
		kp_pb_uint(&pp->tmp, F_SYSTEM_NAME, key[0]);
		kp_pb_uint(&pp->tmp, F_FILENAME, key[1]);
		if (fr->start_line)
			kp_pb_uint(&pp->tmp, F_START_LINE, fr->start_line);
		kp_pb_msg(&pp->functions, P_FUNCTION, &pp->tmp);
	}
	return id;
}

static uint64_t hex_str(struct pp *pp, const uint8_t *id, unsigned len)
{
	char hex[2 * KP_BUILD_ID_MAX + 1];
	unsigned n = id && len <= KP_BUILD_ID_MAX ? len : 0;

	for (unsigned i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * n] = '\0';
	return str(pp, hex);
}

/* The mapping's build ID: its record's, else the caller's look-up of
 * the file (once per path). */
static uint64_t build_id_str(struct pp *pp, const struct kp_frame_ref *fr)
{
	uint8_t id[KP_BUILD_ID_MAX], len = 0;
	uint64_t sid = 0;
	int rc;

	if (fr->build_id && fr->build_id_len)
		return hex_str(pp, fr->build_id, fr->build_id_len);
	if (!pp->info || !pp->info->build_id || !fr->path || fr->path[0] != '/')
		return 0;
	rc = kp_intern__get(pp->bids, fr->path, strlen(fr->path), &sid);
	if (rc < 0)
		pp->rc = rc;
	if (rc != 1)
		return sid;	/* known (0: none) */
	if (pp->info->build_id(pp->info->build_id_ctx, fr->path, id, &len) == 0)
		sid = hex_str(pp, id, len);
	kp_intern__set(pp->bids, kp_intern__count(pp->bids) - 1, sid);
	return sid;
}

static void kernel_build_id(struct pp *pp, uint64_t *sid)
{
	const struct kp_report_info *i = pp->info;

	*sid = i && i->kernel_build_id_len ?
	       hex_str(pp, i->kernel_build_id, i->kernel_build_id_len) : 0;
}

/* Remember where mapping message of id lies in pp->mappings. */
static void note_map(struct pp *pp, size_t off, uint64_t file, int linked,
		     uint64_t bias)
{
	if (pp->nr_mapv == pp->cap_mapv) {
		size_t cap = pp->cap_mapv ? 2 * pp->cap_mapv : 16;
		struct pp_map *v = realloc(pp->mapv, cap * sizeof(*v));

		if (!v) {
			pp->rc = -ENOMEM;
			return;
		}
		pp->mapv = v;
		pp->cap_mapv = cap;
	}
	pp->mapv[pp->nr_mapv++] = (struct pp_map){ off, pp->mappings.len - off, file,
						   linked, bias };
}

static uint64_t map_id(struct pp *pp, const struct kp_frame_ref *fr)
{
	uint64_t key[5];
	int is_new;
	uint64_t id;

	if (!fr->kernel && !fr->path)
		return 0;	/* no mapping known */
	key[0] = str(pp, fr->kernel ? "[kernel.kallsyms]" : fr->path);
	if (fr->kernel)
		kernel_build_id(pp, &key[1]);
	else
		key[1] = build_id_str(pp, fr);
	key[2] = fr->kernel ? KERNEL_MAP_START : fr->map_start;
	key[3] = fr->kernel ? UINT64_MAX : fr->map_limit;
	key[4] = fr->kernel ? 0 : fr->map_pgoff;
	id = intern_id(pp, pp->maps, key, sizeof(key), &is_new);
	if (is_new) {
		size_t off = pp->mappings.len;
		uint64_t bias = 0;
		int linked = !fr->kernel && !fr->jit && fr->path[0] == '/' &&
			     pp->info && pp->info->link_bias &&
			     pp->info->link_bias(pp->info->build_id_ctx, fr->path,
						 fr->map_pgoff, &bias) == 0;
		uint64_t start = linked ? fr->map_pgoff + bias : key[2];

		kp_pb_reset(&pp->tmp);
		kp_pb_uint(&pp->tmp, M_ID, id);
		kp_pb_uint(&pp->tmp, M_START, start);
		kp_pb_uint(&pp->tmp, M_LIMIT, start + (key[3] - key[2]));
		kp_pb_uint(&pp->tmp, M_OFFSET, key[4]);
		kp_pb_uint(&pp->tmp, M_FILENAME, key[0]);
		kp_pb_uint(&pp->tmp, M_BUILD_ID, key[1]);
		kp_pb_uint(&pp->tmp, M_HAS_FUNCTIONS, 1);
		kp_pb_uint(&pp->tmp, M_HAS_FILENAMES, 1);
		kp_pb_uint(&pp->tmp, M_HAS_LINE_NUMBERS, 1);
		kp_pb_uint(&pp->tmp, M_HAS_INLINE_FRAMES, 1);
		kp_pb_msg(&pp->mappings, P_MAPPING, &pp->tmp);
		note_map(pp, off, key[0], linked, bias);
	}
	return id;
}

/* The address of fr in mapping id (see the top). */
static uint64_t address_of(const struct pp *pp, const struct kp_frame_ref *fr,
			   uint64_t id)
{
	const struct pp_map *pm = id && id <= pp->nr_mapv ? &pp->mapv[id - 1] : NULL;

	if (fr->kernel || !fr->path)
		return fr->addr;
	if (pm && pm->linked)
		return fr->addr + pm->bias;
	return fr->map_start + (fr->addr - fr->map_pgoff);
}

/* frames[hi] (innermost) down to frames[lo] (the function they are
 * inlined into) form one location. */
static uint64_t loc_id(struct pp *pp, const struct kp_frame_ref *const *f,
		       size_t hi, size_t lo)
{
	size_t n = 0, nlines = hi - lo + 1;
	uint64_t *key = pp->key;
	int is_new;
	uint64_t id;

	key[n++] = map_id(pp, f[lo]);
	key[n++] = address_of(pp, f[lo], key[0]);
	for (size_t i = hi + 1; i-- > lo;) {
		key[n++] = func_id(pp, f[i]);
		key[n++] = f[i]->line;
	}
	id = intern_id(pp, pp->locs, key, n * sizeof(*key), &is_new);
	if (!is_new)
		return id;
	kp_pb_reset(&pp->tmp);
	kp_pb_uint(&pp->tmp, LOC_ID, id);
	kp_pb_uint(&pp->tmp, LOC_MAPPING_ID, key[0]);
	kp_pb_uint(&pp->tmp, LOC_ADDRESS, key[1]);
	for (size_t l = 0; l < nlines; l++) {
		kp_pb_reset(&pp->sub);
		kp_pb_uint(&pp->sub, LN_FUNCTION_ID, key[2 + 2 * l]);
		kp_pb_uint(&pp->sub, LN_LINE, key[3 + 2 * l]);
		kp_pb_msg(&pp->tmp, LOC_LINE, &pp->sub);
	}
	kp_pb_msg(&pp->locations, P_LOCATION, &pp->tmp);
	return id;
}

static int reserve(struct pp *pp, size_t depth)
{
	size_t need = 2 * depth + 4;
	uint64_t *a, *b;

	if (need <= pp->cap)
		return 0;
	a = realloc(pp->locids, need * sizeof(*a));
	if (!a)
		return -ENOMEM;
	pp->locids = a;
	b = realloc(pp->key, need * sizeof(*b));
	if (!b)
		return -ENOMEM;
	pp->key = b;
	pp->cap = need;
	return 0;
}

/* A label: string s, else number num in unit (or NULL). */
static void add_label(struct pp *pp, const char *key, const char *s, uint64_t num,
		      const char *unit)
{
	kp_pb_reset(&pp->sub);
	kp_pb_uint(&pp->sub, L_KEY, str(pp, key));
	if (s)
		kp_pb_uint(&pp->sub, L_STR, str(pp, s));
	else
		kp_pb_uint(&pp->sub, L_NUM, num);
	if (!s && unit)
		kp_pb_uint(&pp->sub, L_NUM_UNIT, str(pp, unit));
	kp_pb_msg(&pp->tmp, S_LABEL, &pp->sub);
}

/* Samples by executable: the one with most is the main binary. */
static void count_exe(struct pp *pp, const char *exe, uint64_t n)
{
	uint64_t id;

	if (!exe || exe[0] != '/')
		return;
	id = str(pp, exe);
	if (id >= pp->cap_exe) {
		size_t cap = 2 * id + 16;
		uint64_t *a = realloc(pp->exe_samples, cap * sizeof(*a));

		if (!a) {
			pp->rc = -ENOMEM;
			return;
		}
		memset(a + pp->cap_exe, 0, (cap - pp->cap_exe) * sizeof(*a));
		pp->exe_samples = a;
		pp->cap_exe = cap;
	}
	pp->exe_samples[id] += n;
}

/* The mappings, the main binary's first: pprof takes mapping[0] for the
 * program profiled (its "File:" header). */
static uint64_t main_exe(const struct pp *pp)
{
	uint64_t best = 0, main_file = 0;

	for (size_t i = 0; i < pp->cap_exe; i++)
		if (pp->exe_samples[i] > best) {
			best = pp->exe_samples[i];
			main_file = i;
		}
	return main_file;
}

static void write_mappings(struct pp *pp, struct kp_pb *out)
{
	uint64_t main_file = pp->main_file;
	size_t first = pp->nr_mapv;

	for (size_t i = 0; i < pp->nr_mapv && main_file; i++)
		if (pp->mapv[i].file == main_file) {
			first = i;
			break;
		}
	if (first < pp->nr_mapv)
		kp_pb_raw(out, pp->mappings.buf + pp->mapv[first].off,
			  pp->mapv[first].len);
	for (size_t i = 0; i < pp->nr_mapv; i++)
		if (i != first)
			kp_pb_raw(out, pp->mappings.buf + pp->mapv[i].off,
				  pp->mapv[i].len);
}

/* The model's stacks, those info->keep keeps. */
static int foreach_kept(struct kp_model *m, struct pp *pp,
			int (*cb)(void *ctx, const struct kp_stack_visit *v))
{
	return kp_model__foreach_stack_if(m, pp->info ? pp->info->keep : NULL,
					  pp->info ? pp->info->keep_ctx : NULL, cb, pp);
}

/* First pass: samples by executable, for the main binary. */
static int count_sample(void *ctx, const struct kp_stack_visit *v)
{
	struct pp *pp = ctx;
	long long n = llround(v->count);

	if (n > 0)
		count_exe(pp, v->exe, (uint64_t)n);
	return pp->rc;
}

/* Second pass: the main binary's mappings made first, so that they get
 * the first ids: mapping ids are 1, 2, ... in the order written (Parca
 * refuses a profile otherwise). */
static int main_maps(void *ctx, const struct kp_stack_visit *v)
{
	struct pp *pp = ctx;

	size_t len = 0;
	const char *exe = kp_intern__key(pp->strs, pp->main_file, &len);

	if (llround(v->count) <= 0 || !exe)
		return pp->rc;
	/* Any stack's frames in it: a process may have run it before an
	 * exec, or another process of the same profile may. */
	for (size_t i = 0; i < v->depth; i++)
		if (v->frames[i]->path && !v->frames[i]->kernel &&
		    !strncmp(v->frames[i]->path, exe, len) && !v->frames[i]->path[len])
			map_id(pp, v->frames[i]);
	return pp->rc;
}

static int one_sample(void *ctx, const struct kp_stack_visit *v)
{
	struct pp *pp = ctx;
	long long n = llround(v->count);
	uint64_t values[4];
	size_t nloc = 0, i, nv = 2;

	if (n <= 0)
		return 0;
	pp->rc = reserve(pp, v->depth);
	if (pp->rc)
		return pp->rc;
	for (i = v->depth; i-- > 0;) {	/* leaf first */
		size_t lo = i;

		while (lo > 0 && v->frames[lo]->inlined)
			lo--;
		pp->locids[nloc++] = loc_id(pp, v->frames, i, lo);
		i = lo;
	}
	values[0] = (uint64_t)n;
	values[1] = (uint64_t)n * pp->period_ns;
	if (pp->wall) {		/* its part: cpu, off_cpu */
		values[2] = v->offcpu ? 0 : values[1];
		values[3] = v->offcpu ? values[1] : 0;
		nv = 4;
	}
	kp_pb_reset(&pp->tmp);
	kp_pb_packed(&pp->tmp, S_LOCATION_ID, pp->locids, nloc, &pp->scratch);
	kp_pb_packed(&pp->tmp, S_VALUE, values, nv, &pp->scratch);
	add_label(pp, "comm", v->comm && *v->comm ? v->comm : "[unknown]", 0, NULL);
	add_label(pp, "pid", NULL, v->pid, NULL);
	add_label(pp, "tid", NULL, v->tid, NULL);
	if (v->thread && *v->thread)
		add_label(pp, "thread", v->thread, 0, NULL);
	if (v->cgroup && *v->cgroup)
		add_label(pp, "cgroup", v->cgroup, 0, NULL);
	if (v->cpu >= 0)	/* a unit keeps CPU 0: pprof drops a bare 0 */
		add_label(pp, "cpu", NULL, (uint64_t)v->cpu, "cpu");
	kp_pb_msg(&pp->samples, P_SAMPLE, &pp->tmp);
	return pp->rc;
}

static void value_type(struct pp *pp, struct kp_pb *out, unsigned field,
		       const char *type, const char *unit)
{
	kp_pb_reset(&pp->tmp);
	kp_pb_uint(&pp->tmp, VT_TYPE, str(pp, type));
	kp_pb_uint(&pp->tmp, VT_UNIT, str(pp, unit));
	kp_pb_msg(out, field, &pp->tmp);
}

/* The profile's comments (go tool pprof prints them as "Comment:"): the
 * version, the event, the drops by stage, the JIT maps when some were
 * refused. Not the collector's taken/delivered: a replay of the saved
 * stream gives the same profile. Up to 4 string ids into c. */
static size_t comments(struct pp *pp, const struct kp_report_facts *f,
		       const struct kp_report_info *info, uint64_t *c)
{
	char buf[256];
	size_t n = 0, len = 0;

	snprintf(buf, sizeof(buf), "kptop %s, %s, %" PRIu32
		 " CPUs", PACKAGE_VERSION, f->rate, f->ncpus);
	c[n++] = str(pp, buf);
	snprintf(buf, sizeof(buf), "event: %s", f->event);
	c[n++] = str(pp, buf);
	len = (size_t)snprintf(buf, sizeof(buf), "drops:");
	for (unsigned s = 1; s <= KP_LOST_STAGE_MAX && len < sizeof(buf); s++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s %s %" PRIu64,
					s > 1 ? "," : "", kp_lost_stage_name(s),
					f->lost[s]);
	c[n++] = str(pp, buf);
	if (kp_report_jit_note(info, buf, sizeof(buf)))
		c[n++] = str(pp, buf);
	if (kp_report_debuginfod_note(info, buf, sizeof(buf)))
		c[n++] = str(pp, buf);
	return n;
}

/* Assemble the Profile message into out. */
static void assemble(struct pp *pp, struct kp_pb *out,
		     const struct kp_report_facts *f,
		     const struct kp_report_info *info)
{
	uint64_t c[5];
	size_t nc = comments(pp, f, info, c);
	/* -e EVENT that is not a clock: its count (samples x -c's period;
	 * x 1 at a frequency, where the period varies) */
	const char *vt = f->sum.event_count ? f->sum.event : "cpu";
	const char *vu = f->sum.event_count ? "count" : "nanoseconds";
	/* --weight off or wall: the counts are microseconds */
	const char *ct = f->weight == KP_WEIGHT_CPU ? "samples" :
			 f->weight == KP_WEIGHT_OFF ? "off_cpu_us" : "wall_us";

	if (f->weight != KP_WEIGHT_CPU) {
		vt = f->weight == KP_WEIGHT_OFF ? "off_cpu" : "wall";
		vu = "nanoseconds";
	}
	value_type(pp, out, P_SAMPLE_TYPE, ct, f->weight ? "microseconds" : "count");
	value_type(pp, out, P_SAMPLE_TYPE, vt, vu);
	if (pp->wall) {		/* wall's two parts, -sample_index=cpu|off_cpu */
		value_type(pp, out, P_SAMPLE_TYPE, "cpu", "nanoseconds");
		value_type(pp, out, P_SAMPLE_TYPE, "off_cpu", "nanoseconds");
	}
	value_type(pp, out, P_PERIOD_TYPE, vt, vu);
	kp_pb_raw(out, pp->samples.buf, pp->samples.len);
	if (pp->wall)		/* not the last type, off_cpu: wall */
		kp_pb_uint(out, P_DEFAULT_SAMPLE_TYPE, str(pp, "wall"));
	write_mappings(pp, out);
	kp_pb_raw(out, pp->locations.buf, pp->locations.len);
	kp_pb_raw(out, pp->functions.buf, pp->functions.len);
	for (size_t i = 0; i < kp_intern__count(pp->strs); i++) {
		size_t len;
		const void *s = kp_intern__key(pp->strs, i, &len);

		kp_pb_bytes(out, P_STRING_TABLE, s, len);
	}
	kp_pb_uint(out, P_TIME_NANOS, info ? info->time_real_ns : 0);
	kp_pb_uint(out, P_DURATION_NANOS, (uint64_t)llround(f->duration_s * 1e9));
	kp_pb_uint(out, P_PERIOD, pp->period_ns);
	for (size_t i = 0; i < nc; i++)
		kp_pb_uint(out, P_COMMENT, c[i]);
	if (pp->samples.oom || pp->mappings.oom || pp->locations.oom ||
	    pp->functions.oom || pp->tmp.oom || pp->sub.oom || pp->scratch.oom)
		out->oom = 1;
}

static void pp_fini(struct pp *pp)
{
	kp_intern__free(pp->strs);
	kp_intern__free(pp->funcs);
	kp_intern__free(pp->maps);
	kp_intern__free(pp->locs);
	kp_intern__free(pp->bids);
	free(pp->mapv);
	free(pp->exe_samples);
	kp_pb_fini(&pp->samples);
	kp_pb_fini(&pp->mappings);
	kp_pb_fini(&pp->locations);
	kp_pb_fini(&pp->functions);
	kp_pb_fini(&pp->tmp);
	kp_pb_fini(&pp->sub);
	kp_pb_fini(&pp->scratch);
	free(pp->locids);
	free(pp->key);
}

int kp_report_pprof(FILE *out, struct kp_model *m,
		    const struct kp_report_info *info, struct kp_err *err)
{
	struct kp_report_facts f;
	struct pp pp = { 0 };
	struct kp_pb prof = { 0 };
	int rc;

	kp_report_facts(m, info, &f);
	pp.wall = f.weight == KP_WEIGHT_WALL;
	pp.period_ns = f.weight != KP_WEIGHT_CPU ? 1000 :
		       f.sum.period ? f.sum.period : f.sum.event_count ? 1 :
		       f.freq_hz ? (uint64_t)llround(1e9 / f.freq_hz) : 1;
	pp.strs = kp_intern__new();
	pp.funcs = kp_intern__new();
	pp.maps = kp_intern__new();
	pp.locs = kp_intern__new();
	pp.bids = kp_intern__new();
	pp.info = info;
	rc = -ENOMEM;
	if (!pp.strs || !pp.funcs || !pp.maps || !pp.locs || !pp.bids)
		goto out;
	str(&pp, "");		/* string_table[0] must be "" */
	rc = foreach_kept(m, &pp, count_sample);
	pp.main_file = rc || pp.rc ? 0 : main_exe(&pp);
	if (rc == 0 && pp.main_file)
		rc = foreach_kept(m, &pp, main_maps);
	if (rc == 0)
		rc = foreach_kept(m, &pp, one_sample);
	if (rc == 0)
		rc = pp.rc;
	if (rc)
		goto out;
	assemble(&pp, &prof, &f, info);
	rc = prof.oom || pp.rc ? -ENOMEM : kp_gzip_write(out, prof.buf, prof.len);
out:
	if (rc)
		kp_err_set(err, rc, "writing the pprof report: %s", kp_strerror(rc));
	kp_pb_fini(&prof);
	pp_fini(&pp);
	return rc;
}
