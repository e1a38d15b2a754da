// SPDX-License-Identifier: GPL-2.0-only
/* stream-dec.c — the stream header check and the record decoder
 * (man/kptop-stream.5). Runs for every record in the main thread.
 *
 * Every length, count and string end is checked against the payload
 * before it is used, by the field readers of stream-rd.h: their error is
 * sticky, so the per-type decoders read straight through and check once
 * at the end. Scratch (NUL-terminated strings, aligned frame and
 * symbol arrays) is a bump area reset for every record; it is sized from
 * the record's own length, only once the whole record is in hand.
 */
#include "stream/stream.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stream/stream-rd.h"
#include "stream/varint.h"

/* Scratch every record type but SYMTAB fits in: four strings of
 * KP_PATH_MAX bytes and two event names (META) or two stacks of frames
 * (SAMPLE, OFFCPU), with room for alignment. SYMTAB needs at most 4
 * bytes per payload byte: each symbol takes >= 10 payload bytes and 24
 * bytes of struct kp_symbol, plus its name and NUL. */
#define SCRATCH_BASE (4 * (KP_PATH_MAX + 1) + 2 * (KP_EVENT_NAME_MAX + 1) + 256)
#define SYMTAB_SCRATCH(plen) (4 * (size_t)(plen) + SCRATCH_BASE)
#define SYM_MIN_BYTES 10	/* addr 8 + size varint 1 + name length 1 */
/* CODE: a string of k >= 2 payload bytes with its first line (minor 8,
 * >= 1 byte) takes a pointer, k bytes and 4 of scratch (8 + k + 4 <=
 * 6 (k + 1)), a line entry of >= 4 bytes 16: at most 6 per payload byte. */
#define CODE_SCRATCH(plen) (6 * (size_t)(plen) + SCRATCH_BASE)
#define CODE_STR_MIN 2		/* length 1 + one byte */
#define CODE_LINE_MIN 4		/* four varints */

_Static_assert(SCRATCH_BASE >= 2 * KP_MAX_FRAMES * 8 + 64, "frames fit");
_Static_assert(sizeof(struct kp_symbol) <= 24, "SYMTAB_SCRATCH bound");
_Static_assert(SCRATCH_BASE >= KP_END_MAX_TYPES * 8 + 64, "END counts fit");
_Static_assert(SCRATCH_BASE >= 4 * KP_MAX_FRAMES * 8 + 96, "Python frames fit");

struct kp_decoder {
	struct kp_rd_scratch sc;
	int strict;		/* trailing payload bytes are damage */
	uint16_t minor;		/* the stream's; KP_STREAM_MINOR until told */
	struct kp_decoder_stats st;
};

static const char *const type_names[KP_REC_TYPE_MAX + 1] = {
	[KP_REC_META] = "META record", [KP_REC_PROCESS] = "PROCESS record",
	[KP_REC_EXEC] = "EXEC record", [KP_REC_EXIT] = "EXIT record",
	[KP_REC_MMAP] = "MMAP record", [KP_REC_SAMPLE] = "SAMPLE record",
	[KP_REC_LOST] = "LOST record", [KP_REC_SYMTAB] = "SYMTAB record",
	[KP_REC_THREAD] = "THREAD record", [KP_REC_CGROUP] = "CGROUP record",
	[KP_REC_CHECK] = "CHECK record", [KP_REC_END] = "END record",
	[KP_REC_CODE] = "CODE record",
	[KP_REC_OFFCPU] = "OFFCPU record",
	[KP_REC_PYCODE] = "PYCODE record",
	[KP_REC_JITGEN] = "JITGEN record",
};

int kp_stream_header_decode(const uint8_t *buf, size_t len,
			    struct kp_stream_header *out, struct kp_err *err)
{
	uint16_t major, minor, hlen;

	if (!buf || len < KP_STREAM_HEADER_LEN)
		return kp_err_set(err, KP_ETRUNC,
				  "offset %zu: stream header cut short (%d bytes needed)",
				  buf ? len : 0, KP_STREAM_HEADER_LEN);
	if (memcmp(buf, KP_STREAM_MAGIC, 8))
		return kp_err_set(err, KP_EFORMAT,
				  "offset 0: not a kptop stream (bad magic)");
	major = (uint16_t)(buf[8] | buf[9] << 8);
	minor = (uint16_t)(buf[10] | buf[11] << 8);
	hlen = (uint16_t)(buf[14] | buf[15] << 8);
	if (buf[12] != 1)
		return kp_err_set(err, KP_EFORMAT,
				  "offset 12: byte-order mark %u is not 1 (little-endian)",
				  buf[12]);
	if (major != KP_STREAM_MAJOR)
		return kp_err_set(err, KP_EVERSION,
				  "offset 8: stream version %u.%u: this kptop reads major version %d only",
				  major, minor, KP_STREAM_MAJOR);
	if (hlen < KP_STREAM_HEADER_LEN)
		return kp_err_set(err, KP_EFORMAT,
				  "offset 14: header length %u is below %d",
				  hlen, KP_STREAM_HEADER_LEN);
	if (out) {
		out->major = major;
		out->minor = minor;
		out->header_len = hlen;
	}
	return 0;
}

struct kp_decoder *kp_decoder__new(void)
{
	struct kp_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->sc.buf = malloc(SCRATCH_BASE);
	if (!d->sc.buf) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	d->sc.cap = SCRATCH_BASE;
	d->minor = KP_STREAM_MINOR;
	return d;
}

void kp_decoder__free(struct kp_decoder *d)
{
	if (!d)
		return;
	free(d->sc.buf);
	free(d);
}

void kp_decoder__stats(const struct kp_decoder *d, struct kp_decoder_stats *out)
{
	if (d && out)
		*out = d->st;
}

void kp_decoder__set_minor(struct kp_decoder *d, uint16_t minor)
{
	if (!d)
		return;
	d->strict = minor <= KP_STREAM_MINOR;
	d->minor = minor;
}

/* ---- records ---- */

/* minor: the stream's; the optional event fields came with minor 4. */
static void dec_meta(struct rd *r, struct kp_rec_meta *m, uint16_t minor)
{
	m->version = get_str(r, KP_PATH_MAX, "version");
	m->kernel = get_str(r, KP_PATH_MAX, "kernel");
	m->hostname = get_str(r, KP_PATH_MAX, "hostname");
	m->arch = get_str(r, KP_PATH_MAX, "arch");
	m->freq_hz = get_u32(r, "freq_hz");
	m->ncpus = get_u32(r, "ncpus");
	m->start_mono_ns = get_u64(r, "start_mono_ns");
	m->start_real_ns = get_u64(r, "start_real_ns");
	m->page_size = get_u32(r, "page_size");
	m->flags = get_u32(r, "flags");
	m->event = m->event_asked = "";
	if (minor < 4 || r->rc || r->p == r->end)
		return;		/* absent: cpu-clock at freq_hz */
	m->event = get_str(r, KP_EVENT_NAME_MAX, "event");
	m->period = get_u64(r, "period");
	m->event_asked = get_str(r, KP_EVENT_NAME_MAX, "event_asked");
}

static void dec_process(struct rd *r, struct kp_rec_process *p)
{
	p->time_ns = get_u64(r, "time_ns");
	p->start_ns = get_u64(r, "start_ns");
	p->pid = get_u32(r, "pid");
	p->ppid = get_u32(r, "ppid");
	p->gpid = get_u32(r, "gpid");
	p->uid = get_u32(r, "uid");
	p->flags = get_u32(r, "flags");
	p->comm = get_str(r, KP_COMM_LEN - 1, "comm");
	p->exe = get_str(r, KP_PATH_MAX, "exe");
}

static void dec_exec(struct rd *r, struct kp_rec_exec *e)
{
	e->time_ns = get_u64(r, "time_ns");
	e->pid = get_u32(r, "pid");
	e->tid = get_u32(r, "tid");
	e->comm = get_str(r, KP_COMM_LEN - 1, "comm");
	e->exe = get_str(r, KP_PATH_MAX, "exe");
}

static void dec_exit(struct rd *r, struct kp_rec_exit *e)
{
	e->time_ns = get_u64(r, "time_ns");
	e->pid = get_u32(r, "pid");
	e->tid = get_u32(r, "tid");
}

static void dec_thread(struct rd *r, struct kp_rec_thread *t)
{
	t->time_ns = get_u64(r, "time_ns");
	t->pid = get_u32(r, "pid");
	t->tid = get_u32(r, "tid");
	t->comm = get_str(r, KP_COMM_LEN - 1, "comm");
}

static void dec_mmap(struct rd *r, struct kp_rec_mmap *m)
{
	m->time_ns = get_u64(r, "time_ns");
	m->pid = get_u32(r, "pid");
	m->tid = get_u32(r, "tid");
	m->addr = get_addr(r, "addr");
	m->len = get_u64(r, "len");
	m->pgoff = get_u64(r, "pgoff");
	m->prot = get_u32(r, "prot");
	m->flags = get_u32(r, "flags");
	m->maj = get_u32(r, "maj");
	m->min = get_u32(r, "min");
	m->ino = get_u64(r, "ino");
	m->ino_generation = get_u64(r, "ino_generation");
	m->build_id_len = get_build_id(r, m->build_id);
	m->path = get_str(r, KP_PATH_MAX, "path");
}

/* A sample's Python fields (minor 5). */
static void dec_python(struct rd *r, struct kp_rec_sample *s)
{
	const uint8_t *at = r->p;
	uint64_t *f = NULL;
	uint32_t n;

	s->py_status = get_u32(r, "Python status");
	if (!r->rc && (s->py_status == KP_PY_NONE || s->py_status > KP_PY_STATUS_MAX))
		fail(r, at, "Python status %u is not 1 to %d", s->py_status,
		     KP_PY_STATUS_MAX);
	at = r->p;
	n = get_u32(r, "Python frame count");
	if (!r->rc && n > KP_MAX_PYFRAMES)
		fail(r, at, "Python frame count %u is over the limit %d", n,
		     KP_MAX_PYFRAMES);
	if (!r->rc && (uint64_t)n * 16 > (uint64_t)(r->end - r->p))
		fail(r, at, "Python frame count %u runs past the end of the record", n);
	if (!r->rc && n)
		f = take(r, (size_t)n * 16, 8);
	if (r->rc || !f)
		return;
	memcpy(f, r->p, (size_t)n * 16);	/* little-endian host */
	for (uint32_t i = 0; i < n; i++)
		if (f[2 * i + 1] & KP_PYF_RESERVED) {
			fail(r, r->p + 16 * i + 8, "Python frame %u sets reserved bits", i);
			return;
		}
	r->p += (size_t)n * 16;
	s->nr_pyframes = (uint16_t)n;
	s->pyframes = f;
}

static void dec_pycode(struct rd *r, struct kp_rec_pycode *c)
{
	const uint8_t *at;
	size_t n;

	c->time_ns = get_u64(r, "time_ns");
	c->pid = get_u32(r, "pid");
	c->code = get_addr(r, "code");
	at = r->p;
	c->token = get_u32(r, "token");
	if (!r->rc && c->token >= (1u << 24))
		fail(r, at, "token 0x%x is over 24 bits", c->token);
	c->version = get_u32(r, "version");
	c->firstlineno = get_u32(r, "firstlineno");
	c->qualname = get_str(r, KP_PATH_MAX, "qualname");
	c->filename = get_str(r, KP_PATH_MAX, "filename");
	c->linetable = get_span(r, KP_PY_LINETABLE_MAX, &n, "linetable");
	c->linetable_len = (uint32_t)n;
	if (!n)
		c->linetable = NULL;
}

/* SAMPLE's fields but its weight (shared with OFFCPU). */
static void dec_sample_body(struct rd *r, struct kp_rec_sample *s)
{
	size_t n;

	s->time_ns = get_u64(r, "time_ns");
	s->cgroup_id = get_u64(r, "cgroup_id");
	s->cpu = get_u32(r, "cpu");
	s->pid = get_u32(r, "pid");
	s->tid = get_u32(r, "tid");
	s->gpid = get_u32(r, "gpid");
	s->gtid = get_u32(r, "gtid");
	s->flags = get_u32(r, "flags");
	s->kerr = get_i32(r, "kerr");
	s->uerr = get_i32(r, "uerr");
	get_str_into(r, s->comm, KP_COMM_LEN - 1, "comm");
	s->nr_kframes = (uint16_t)get_addrs(r, KP_MAX_FRAMES, NULL, &s->kframes,
					    "kernel frame count");
	s->nr_uframes = (uint16_t)get_addrs(r, KP_MAX_FRAMES, NULL, &s->uframes,
					    "user frame count");
	s->nr_regs = (uint8_t)get_addrs(r, KP_MAX_REGS, s->regs, NULL,
					"register count");
	s->stack = get_span(r, KP_MAX_STACK_BYTES, &n, "stack");
	s->stack_len = (uint32_t)n;
	if (!n)
		s->stack = NULL;	/* points into buf otherwise */
	s->weight = 1;
}

/* minor: the stream's; a minor-0 stream has no weight field. */
static void dec_sample(struct rd *r, struct kp_rec_sample *s, uint16_t minor)
{
	dec_sample_body(r, s);
	s->flags &= ~KP_SAMPLE_WAKER_IRQ;	/* OFFCPU's: never a sample's */
	if (minor < 10)
		s->flags &= ~KP_SAMPLE_SPEC;	/* not a bit then */
	if (minor >= 1 && !r->rc && r->p < r->end) {	/* minor 1: weight */
		const uint8_t *at = r->p;

		s->weight = get_u32(r, "weight");
		if (!r->rc && !s->weight)
			fail(r, at, "weight 0 (a sample stands for at least 1)");
	}
	if (minor >= 5 && !r->rc && r->p < r->end)
		dec_python(r, s);
}

static void dec_offcpu(struct rd *r, struct kp_rec_offcpu *o, uint16_t minor)
{
	const uint8_t *at;

	dec_sample_body(r, &o->s);
	if (minor < 7)
		o->s.flags &= ~KP_SAMPLE_WAKER_IRQ;	/* not a bit then */
	o->s.flags &= ~KP_SAMPLE_SPEC;		/* a sample's: never OFFCPU's */
	o->off_ns = get_u64(r, "off_ns");
	at = r->p;
	o->count = get_u32(r, "count");
	if (!r->rc && !o->count)
		fail(r, at, "count 0 (a record stands for at least 1 interval)");
	o->state = get_u32(r, "state");
	o->waker_pid = get_u32(r, "waker_pid");
	o->waker_tid = get_u32(r, "waker_tid");
	get_str_into(r, o->waker_comm, KP_COMM_LEN - 1, "waker_comm");
}

static void dec_lost(struct rd *r, struct kp_rec_lost *l)
{
	l->time_ns = get_u64(r, "time_ns");
	l->stage = get_u32(r, "stage");
	l->cpu = get_u32(r, "cpu");
	l->count = get_u64(r, "count");
}

static void dec_symtab(struct rd *r, struct kp_rec_symtab *t, uint16_t minor)
{
	const uint8_t *at;
	struct kp_symbol *syms = NULL;
	uint32_t i, n;

	t->path = get_str(r, KP_PATH_MAX, "path");
	t->build_id_len = get_build_id(r, t->build_id);
	at = r->p;
	n = get_u32(r, "symbol count");
	if (!r->rc && n > (uint64_t)(r->end - r->p) / SYM_MIN_BYTES)
		fail(r, at, "symbol count %u runs past the end of the record", n);
	if (!r->rc && n)
		syms = take(r, (size_t)n * sizeof(*syms), 8);
	for (i = 0; i < n && !r->rc; i++) {
		at = r->p;
		syms[i].addr = get_addr(r, "symbol address");
		syms[i].size = get_u64(r, "symbol size");
		syms[i].name = get_str(r, KP_PATH_MAX, "symbol name");
		if (i && syms[i].addr < syms[i - 1].addr)
			fail(r, at, "symbol %u is out of address order", i);
	}
	t->nr_syms = r->rc ? 0 : n;
	t->syms = r->rc ? NULL : syms;
	if (minor >= 12 && !r->rc && r->p < r->end) {	/* its owner */
		at = r->p;
		t->owner.pid = get_u32(r, "owner pid");
		t->owner.start_ns = get_u64(r, "owner start_ns");
		t->owner.gen = get_u32(r, "owner gen");
		if (!r->rc && !t->owner.pid)
			fail(r, at, "owner pid is 0");
	}
}

static void dec_jitgen(struct rd *r, struct kp_rec_jitgen *g)
{
	const uint8_t *at;

	g->time_ns = get_u64(r, "time_ns");
	at = r->p;
	g->owner.pid = get_u32(r, "pid");
	if (!r->rc && !g->owner.pid)
		fail(r, at, "pid is 0");
	g->owner.start_ns = get_u64(r, "start_ns");
	at = r->p;
	g->owner.gen = get_u32(r, "gen");
	if (!r->rc && !g->owner.gen)
		fail(r, at, "gen is 0");
}

static void dec_cgroup(struct rd *r, struct kp_rec_cgroup *c)
{
	c->time_ns = get_u64(r, "time_ns");
	c->id = get_u64(r, "id");
	c->path = get_str(r, KP_PATH_MAX, "path");
}

static void dec_check(struct rd *r, struct kp_rec_check *c)
{
	c->length = get_u64(r, "length");
	c->crc32c = get_le32(r, "crc32c");
}

static void dec_end(struct rd *r, struct kp_rec_end *t)
{
	const uint8_t *at;
	uint64_t *counts = NULL;
	uint32_t n;

	t->samples = get_u64(r, "samples");
	at = r->p;
	n = get_u32(r, "type count");
	if (!r->rc && n > KP_END_MAX_TYPES)
		fail(r, at, "type count %u is over the limit %d", n, KP_END_MAX_TYPES);
	if (!r->rc && n)
		counts = take(r, (size_t)n * sizeof(*counts), 8);
	for (uint32_t i = 0; i < n && !r->rc; i++)
		counts[i] = get_u64(r, "record count");
	t->nr_types = r->rc ? 0 : n;
	t->counts = r->rc ? NULL : counts;
}

static const char *const *dec_code_strs(struct rd *r, uint32_t *nr)
{
	const uint8_t *at = r->p;
	const char **strs = NULL;
	uint32_t n = get_u32(r, "string count");

	if (!r->rc && n > (uint64_t)(r->end - r->p) / CODE_STR_MIN)
		fail(r, at, "string count %u runs past the end of the record", n);
	if (!r->rc && n)
		strs = take(r, (size_t)n * sizeof(*strs), 8);
	for (uint32_t i = 0; i < n && !r->rc; i++) {
		at = r->p;
		strs[i] = get_str(r, KP_PATH_MAX, "string");
		if (!r->rc && !strs[i][0])
			fail(r, at, "string %u is empty", i);
	}
	*nr = r->rc ? 0 : n;
	return r->rc ? NULL : strs;
}

static void dec_code_lines(struct rd *r, struct kp_rec_code *c)
{
	const uint8_t *at = r->p;
	struct kp_code_line *l = NULL;
	uint32_t n = get_u32(r, "line count");

	if (!r->rc && (n > c->len || n > (uint64_t)(r->end - r->p) / CODE_LINE_MIN))
		fail(r, at, "line count %u is over the code's length or the record's", n);
	if (!r->rc && n)
		l = take(r, (size_t)n * sizeof(*l), 8);
	for (uint32_t i = 0; i < n && !r->rc; i++) {
		at = r->p;
		l[i].off = get_u32(r, "line offset");
		l[i].file = get_u32(r, "line file");
		l[i].line = get_u32(r, "line number");
		l[i].inlined = get_u32(r, "line inlined");
		if (r->rc)
			break;
		if (l[i].off >= c->len || (i && l[i].off <= l[i - 1].off))
			fail(r, at, "line %u: offset %u is out of order or past the code", i,
			     l[i].off);
		else if (l[i].file > c->nr_strs || l[i].inlined > c->nr_strs)
			fail(r, at, "line %u names string %u of %u", i,
			     l[i].file > l[i].inlined ? l[i].file : l[i].inlined, c->nr_strs);
	}
	c->nr_lines = r->rc ? 0 : n;
	c->lines = r->rc ? NULL : l;
}

/* The first lines (minor 8): optional, but whole when there. */
static void dec_code_starts(struct rd *r, struct kp_rec_code *c, uint16_t minor)
{
	uint32_t *sl = NULL;

	if (minor < 8 || r->rc || r->p == r->end)
		return;
	c->start_line = get_u32(r, "start line");
	if (!r->rc && c->nr_strs)
		sl = take(r, (size_t)c->nr_strs * sizeof(*sl), 4);
	for (uint32_t i = 0; i < c->nr_strs && !r->rc; i++)
		sl[i] = get_u32(r, "string's first line");
	c->str_lines = r->rc ? NULL : sl;
}

/* JIT code's call frame information (minor 11): optional, after the
 * first lines. */
static void dec_code_eh(struct rd *r, struct kp_rec_code *c, uint16_t minor)
{
	const uint8_t *at = r->p;
	size_t n;

	if (minor < 11 || r->rc || r->p == r->end)
		return;
	c->eh_frame = get_span(r, KP_JIT_EH_MAX, &n, "eh_frame");
	c->eh_len = (uint32_t)n;
	if (!r->rc && !n)
		fail(r, at, "eh_frame is empty");
	c->eh_vaddr = get_addr(r, "eh_vaddr");
	if (r->rc) {
		c->eh_frame = NULL;
		c->eh_len = 0;
	}
}

static void dec_code(struct rd *r, struct kp_rec_code *c, uint16_t minor)
{
	const uint8_t *at;
	size_t n;

	c->path = get_str(r, KP_PATH_MAX, "path");
	c->build_id_len = get_build_id(r, c->build_id);
	c->start = get_u64(r, "start");
	c->vaddr = get_addr(r, "vaddr");
	c->name = get_str(r, KP_PATH_MAX, "name");
	at = r->p;
	c->code = get_span(r, KP_CODE_MAX, &n, "code");
	c->len = (uint32_t)n;
	if (!r->rc && !n)
		fail(r, at, "code is empty");
	c->strs = dec_code_strs(r, &c->nr_strs);
	dec_code_lines(r, c);
	dec_code_starts(r, c, minor);
	dec_code_eh(r, c, minor);
}

static void dec_payload(struct rd *r, struct kp_record *out, uint16_t minor)
{
	switch (out->type) {
	case KP_REC_SAMPLE: dec_sample(r, &out->sample, minor); break;
	case KP_REC_META: dec_meta(r, &out->meta, minor); break;
	case KP_REC_PROCESS: dec_process(r, &out->process); break;
	case KP_REC_EXEC: dec_exec(r, &out->exec); break;
	case KP_REC_EXIT: dec_exit(r, &out->exit); break;
	case KP_REC_THREAD: dec_thread(r, &out->thread); break;
	case KP_REC_MMAP: dec_mmap(r, &out->mmap); break;
	case KP_REC_LOST: dec_lost(r, &out->lost); break;
	case KP_REC_SYMTAB: dec_symtab(r, &out->symtab, minor); break;
	case KP_REC_CGROUP: dec_cgroup(r, &out->cgroup); break;
	case KP_REC_CHECK: dec_check(r, &out->check); break;
	case KP_REC_END: dec_end(r, &out->end); break;
	case KP_REC_CODE: dec_code(r, &out->code, minor); break;
	case KP_REC_OFFCPU: dec_offcpu(r, &out->offcpu, minor); break;
	case KP_REC_PYCODE: dec_pycode(r, &out->pycode); break;
	case KP_REC_JITGEN: dec_jitgen(r, &out->jitgen); break;
	}
}

/* Make the scratch big enough for a record of this type and payload
 * length; it only grows, and only for SYMTAB and CODE. */
static int reserve(struct kp_decoder *d, uint32_t type, size_t plen)
{
	size_t need = type == KP_REC_SYMTAB ? SYMTAB_SCRATCH(plen) :
		      type == KP_REC_CODE ? CODE_SCRATCH(plen) : SCRATCH_BASE;
	uint8_t *p;

	d->sc.used = 0;
	if (need <= d->sc.cap)
		return 0;
	p = realloc(d->sc.buf, need);
	if (!p)
		return -ENOMEM;
	d->sc.buf = p;
	d->sc.cap = need;
	return 0;
}

/* Read one envelope at r->p. Returns 1 with *type and *plen set (the
 * payload is all there), 0 if the buffer ends first, <0 on a fault. */
static int envelope(struct rd *r, uint32_t *type, size_t *plen)
{
	const uint8_t *at = r->p;
	uint64_t t, n;
	int k, m;

	k = kp_varint_get(at, r->end, &t);
	if (k == 0)
		return 0;
	if (k < 0 || t > UINT32_MAX) {
		fail(r, at, "record type is not a 32-bit varint");
		return r->rc;
	}
	m = kp_varint_get(at + k, r->end, &n);
	if (m == 0)
		return 0;
	if (m < 0 || n > KP_STREAM_RECORD_MAX - (uint64_t)(k + m)) {
		fail(r, at + k, "record length is over the limit %u bytes",
		     KP_STREAM_RECORD_MAX);
		return r->rc;
	}
	if (n > (uint64_t)(r->end - at - k - m))
		return 0;
	r->p = at + k + m;
	*type = (uint32_t)t;
	*plen = (size_t)n;
	return 1;
}

int kp_decoder__next(struct kp_decoder *d, const uint8_t *buf, size_t len,
		     uint64_t base_offset, size_t *used, struct kp_record *out,
		     struct kp_err *err)
{
	struct rd r = { .p = buf, .end = buf + len, .buf = buf,
			.base = base_offset, .sc = &d->sc, .err = err, .what = "record envelope" };
	uint32_t type = 0;
	size_t plen = 0;
	int rc;

	*used = 0;
	if (!buf || !len)
		return 0;
	for (;;) {
		const uint8_t *rec = r.p;

		rc = envelope(&r, &type, &plen);
		if (rc <= 0)
			return rc;
		if (type == 0 || type > KP_REC_TYPE_MAX || !type_names[type]) {
			r.p += plen;	/* unknown: skip by its length */
			d->st.unknown_skipped++;
			d->st.bytes += (size_t)(r.p - rec);
			*used = (size_t)(r.p - buf);
			continue;
		}
		rc = reserve(d, type, plen);
		if (rc < 0)
			return kp_err_set(err, rc, "offset %" PRIu64 ": %s of %zu bytes: out of memory",
					  off_of(&r, rec), type_names[type], plen);
		r.what = type_names[type];
		r.end = r.p + plen;
		memset(out, 0, sizeof(*out));
		out->type = type;
		dec_payload(&r, out, d->minor);
		if (!r.rc && d->strict && r.p != r.end)
			fail(&r, r.p, "%zu bytes after the last field",
			     (size_t)(r.end - r.p));
		if (r.rc)
			return r.rc;
		/* Bytes after the fields this version knows: a later minor's. */
		r.p = r.end;
		d->st.records++;
		d->st.bytes += (size_t)(r.p - rec);
		*used = (size_t)(r.p - buf);
		return 1;
	}
}
