// SPDX-License-Identifier: GPL-2.0-only
/* stream-enc.c — the stream header and the record encoder
 * (man/kptop-stream.5). Runs for every sample in the collector's consumer
 * thread: one walk over the fields sizes and validates, the same walk
 * then writes. No allocation, no global state.
 */
#include "stream/stream.h"

#include <errno.h>
#include <string.h>

#include "stream/varint.h"

_Static_assert(sizeof(KP_STREAM_MAGIC) - 1 == 8, "magic is 8 bytes");
_Static_assert(KP_STREAM_HEADER_LEN == 16, "header layout is 16 bytes");

void kp_stream_header_encode(uint8_t out[KP_STREAM_HEADER_LEN])
{
	memcpy(out, KP_STREAM_MAGIC, 8);
	out[8] = KP_STREAM_MAJOR & 0xff;
	out[9] = KP_STREAM_MAJOR >> 8;
	out[10] = KP_STREAM_MINOR & 0xff;
	out[11] = KP_STREAM_MINOR >> 8;
	out[12] = 1;	/* byte order: little-endian */
	out[13] = 0;	/* flags: reserved */
	out[14] = KP_STREAM_HEADER_LEN & 0xff;
	out[15] = KP_STREAM_HEADER_LEN >> 8;
}

/* ---- one walk over a record's fields, in the order of the format ----
 * Run twice: to size and validate (p == NULL), then to write (p set,
 * into a buffer the first walk showed to be large enough). One list of
 * fields, so sizing and writing cannot disagree. */

struct enc {
	uint8_t *p;	/* NULL: size only */
	size_t n;	/* bytes so far */
	int bad;	/* the record cannot be encoded */
};

static inline void e_u(struct enc *e, uint64_t v)
{
	e->n += kp_varint_len(v);
	if (e->p)
		e->p = kp_varint_put(e->p, v);
}

static inline void e_le64(struct enc *e, uint64_t v)
{
	e->n += 8;
	if (e->p)
		e->p = kp_le64_put(e->p, v);
}

static inline void e_u32(struct enc *e, uint32_t v)
{
	e->n += 4;
	if (e->p) {
		for (int i = 0; i < 4; i++)
			*e->p++ = (uint8_t)(v >> (8 * i));
	}
}

/* A varint length and len raw bytes. */
static inline void e_bytes(struct enc *e, const void *b, size_t len)
{
	e_u(e, len);
	e->n += len;
	if (e->p && len) {
		memcpy(e->p, b, len);
		e->p += len;
	}
}

static inline void e_str(struct enc *e, const char *s, size_t max)
{
	size_t l;

	if (!s) {
		e->bad = 1;
		return;
	}
	l = strnlen(s, max + 1);
	if (l > max)
		e->bad = 1;
	else
		e_bytes(e, s, l);
}

static inline void e_build_id(struct enc *e, uint8_t len, const uint8_t *id)
{
	if (len > KP_BUILD_ID_MAX) {
		e->bad = 1;
		return;
	}
	e->n += 1 + len;
	if (e->p) {
		*e->p++ = len;
		memcpy(e->p, id, len);
		e->p += len;
	}
}

/* A count and n fixed 8-byte little-endian values (the host is LE). */
static inline void e_addrs(struct enc *e, const uint64_t *a, size_t n, size_t max)
{
	if (n > max || (n && !a)) {
		e->bad = 1;
		return;
	}
	e_u(e, n);
	e->n += 8 * n;
	if (e->p && n) {
		memcpy(e->p, a, 8 * n);
		e->p += 8 * n;
	}
}

/* A sample's Python fields (minor 5): status, count, code and info
 * per frame. */
static void e_python(struct enc *e, const struct kp_rec_sample *s)
{
	size_t n = s->nr_pyframes;

	if (s->py_status > KP_PY_STATUS_MAX || n > KP_MAX_PYFRAMES ||
	    (n && !s->pyframes)) {
		e->bad = 1;
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (s->pyframes[2 * i + 1] & KP_PYF_RESERVED)
			e->bad = 1;
	e_u(e, s->py_status);
	e_u(e, n);
	e->n += 16 * n;
	if (e->p && n) {
		memcpy(e->p, s->pyframes, 16 * n);	/* little-endian host */
		e->p += 16 * n;
	}
}

static void e_pycode(struct enc *e, const struct kp_rec_pycode *c)
{
	e_u(e, c->time_ns);
	e_u(e, c->pid);
	e_le64(e, c->code);
	e_u(e, c->token);
	e_u(e, c->version);
	e_u(e, c->firstlineno);
	e_str(e, c->qualname, KP_PATH_MAX);
	e_str(e, c->filename, KP_PATH_MAX);
	if (c->linetable_len > KP_PY_LINETABLE_MAX ||
	    (c->linetable_len && !c->linetable) || c->token >= (1u << 24))
		e->bad = 1;
	else
		e_bytes(e, c->linetable, c->linetable_len);
}

/* SAMPLE's fields but its weight (shared with OFFCPU). */
static void e_sample_body(struct enc *e, const struct kp_rec_sample *s)
{
	e_u(e, s->time_ns);
	e_u(e, s->cgroup_id);
	e_u(e, s->cpu);
	e_u(e, s->pid);
	e_u(e, s->tid);
	e_u(e, s->gpid);
	e_u(e, s->gtid);
	e_u(e, s->flags);
	e_u(e, kp_zigzag(s->kerr));
	e_u(e, kp_zigzag(s->uerr));
	e_str(e, s->comm, KP_COMM_LEN - 1);
	e_addrs(e, s->kframes, s->nr_kframes, KP_MAX_FRAMES);
	e_addrs(e, s->uframes, s->nr_uframes, KP_MAX_FRAMES);
	e_addrs(e, s->regs, s->nr_regs, KP_MAX_REGS);
	if (s->stack_len > KP_MAX_STACK_BYTES || (s->stack_len && !s->stack))
		e->bad = 1;
	else
		e_bytes(e, s->stack, s->stack_len);
}

static void e_sample(struct enc *e, const struct kp_rec_sample *s)
{
	e_sample_body(e, s);
	/* absent means 1 (minor 1); written before Python fields (minor 5) */
	if (s->weight > 1 || s->py_status)
		e_u(e, kp_sample_weight(s));
	if (s->py_status)
		e_python(e, s);
	else if (s->nr_pyframes)
		e->bad = 1;
}

static void e_offcpu(struct enc *e, const struct kp_rec_offcpu *o)
{
	e_sample_body(e, &o->s);
	if (!o->count)
		e->bad = 1;
	e_u(e, o->off_ns);
	e_u(e, o->count);
	e_u(e, o->state);
	e_u(e, o->waker_pid);
	e_u(e, o->waker_tid);
	e_str(e, o->waker_comm, KP_COMM_LEN - 1);
}

static void e_mmap(struct enc *e, const struct kp_rec_mmap *m)
{
	e_u(e, m->time_ns);
	e_u(e, m->pid);
	e_u(e, m->tid);
	e_le64(e, m->addr);
	e_u(e, m->len);
	e_u(e, m->pgoff);
	e_u(e, m->prot);
	e_u(e, m->flags);
	e_u(e, m->maj);
	e_u(e, m->min);
	e_u(e, m->ino);
	e_u(e, m->ino_generation);
	e_build_id(e, m->build_id_len, m->build_id);
	e_str(e, m->path, KP_PATH_MAX);
}

static void e_symtab(struct enc *e, const struct kp_rec_symtab *t)
{
	uint32_t i;

	e_str(e, t->path, KP_PATH_MAX);
	e_build_id(e, t->build_id_len, t->build_id);
	e_u(e, t->nr_syms);
	if (t->nr_syms && !t->syms) {
		e->bad = 1;
		return;
	}
	for (i = 0; i < t->nr_syms && !e->bad; i++) {
		if (i && t->syms[i].addr < t->syms[i - 1].addr)
			e->bad = 1;	/* the format says sorted */
		e_le64(e, t->syms[i].addr);
		e_u(e, t->syms[i].size);
		e_str(e, t->syms[i].name, KP_PATH_MAX);
		if (e->n > KP_STREAM_RECORD_MAX)
			e->bad = 1;
	}
	if (t->owner.pid) {	/* minor 12: anonymous code of one process */
		e_u(e, t->owner.pid);
		e_u(e, t->owner.start_ns);
		e_u(e, t->owner.gen);
	}
}

static void e_jitgen(struct enc *e, const struct kp_rec_jitgen *g)
{
	if (!g->owner.pid || !g->owner.gen)
		e->bad = 1;
	e_u(e, g->time_ns);
	e_u(e, g->owner.pid);
	e_u(e, g->owner.start_ns);
	e_u(e, g->owner.gen);
}

static void e_end(struct enc *e, const struct kp_rec_end *t)
{
	if (t->nr_types > KP_END_MAX_TYPES || (t->nr_types && !t->counts)) {
		e->bad = 1;
		return;
	}
	e_u(e, t->samples);
	e_u(e, t->nr_types);
	for (uint32_t i = 0; i < t->nr_types; i++)
		e_u(e, t->counts[i]);
}

/* The checks a reader makes (kptop-stream(5), "13 CODE"). */
static int code_ok(const struct kp_rec_code *c)
{
	if (!c->len || c->len > KP_CODE_MAX || !c->code ||
	    (c->nr_strs && !c->strs) || (c->nr_lines && !c->lines) ||
	    c->nr_lines > c->len || c->eh_len > KP_JIT_EH_MAX || (c->eh_len && !c->eh_frame))
		return 0;
	for (uint32_t i = 0; i < c->nr_strs; i++)
		if (!c->strs[i] || !c->strs[i][0])
			return 0;
	for (uint32_t i = 0; i < c->nr_lines; i++) {
		const struct kp_code_line *l = &c->lines[i];

		if (l->off >= c->len || (i && l->off <= c->lines[i - 1].off) ||
		    l->file > c->nr_strs || l->inlined > c->nr_strs)
			return 0;
	}
	return 1;
}

/* 1 when c knows a first line: the minor-8 fields are written (a record
 * without them reads as one of minor 3 to 7). */
static int code_starts(const struct kp_rec_code *c)
{
	if (c->start_line)
		return 1;
	for (uint32_t i = 0; c->str_lines && i < c->nr_strs; i++)
		if (c->str_lines[i])
			return 1;
	return 0;
}

static void e_code(struct enc *e, const struct kp_rec_code *c)
{
	if (!code_ok(c)) {
		e->bad = 1;
		return;
	}
	e_str(e, c->path, KP_PATH_MAX);
	e_build_id(e, c->build_id_len, c->build_id);
	e_u(e, c->start);
	e_le64(e, c->vaddr);
	e_str(e, c->name, KP_PATH_MAX);
	e_bytes(e, c->code, c->len);
	e_u(e, c->nr_strs);
	for (uint32_t i = 0; i < c->nr_strs; i++)
		e_str(e, c->strs[i], KP_PATH_MAX);
	e_u(e, c->nr_lines);
	for (uint32_t i = 0; i < c->nr_lines; i++) {
		e_u(e, c->lines[i].off);
		e_u(e, c->lines[i].file);
		e_u(e, c->lines[i].line);
		e_u(e, c->lines[i].inlined);
	}
	if (code_starts(c) || c->eh_len) {	/* minor 8 */
		e_u(e, c->start_line);
		for (uint32_t i = 0; i < c->nr_strs; i++)
			e_u(e, c->str_lines ? c->str_lines[i] : 0);
	}
	if (c->eh_len) {		/* minor 11 */
		e_bytes(e, c->eh_frame, c->eh_len);
		e_le64(e, c->eh_vaddr);
	}
	if (e->n > KP_STREAM_RECORD_MAX)
		e->bad = 1;
}

static void e_meta(struct enc *e, const struct kp_rec_meta *m)
{
	e_str(e, m->version, KP_PATH_MAX);
	e_str(e, m->kernel, KP_PATH_MAX);
	e_str(e, m->hostname, KP_PATH_MAX);
	e_str(e, m->arch, KP_PATH_MAX);
	e_u(e, m->freq_hz);
	e_u(e, m->ncpus);
	e_u(e, m->start_mono_ns);
	e_u(e, m->start_real_ns);
	e_u(e, m->page_size);
	e_u(e, m->flags);
	/* minor 4, optional: absent means cpu-clock at freq_hz */
	if ((m->event && *m->event && strcmp(m->event, "cpu-clock")) ||
	    m->period || (m->event_asked && *m->event_asked)) {
		e_str(e, m->event ? m->event : "", KP_EVENT_NAME_MAX);
		e_u(e, m->period);
		e_str(e, m->event_asked ? m->event_asked : "", KP_EVENT_NAME_MAX);
	}
}

static void e_payload(struct enc *e, const struct kp_record *r)
{
	switch (r->type) {
	case KP_REC_SAMPLE: e_sample(e, &r->sample); break;
	case KP_REC_OFFCPU: e_offcpu(e, &r->offcpu); break;
	case KP_REC_META: e_meta(e, &r->meta); break;
	case KP_REC_PROCESS:
		e_u(e, r->process.time_ns);
		e_u(e, r->process.start_ns);
		e_u(e, r->process.pid);
		e_u(e, r->process.ppid);
		e_u(e, r->process.gpid);
		e_u(e, r->process.uid);
		e_u(e, r->process.flags);
		e_str(e, r->process.comm, KP_COMM_LEN - 1);
		e_str(e, r->process.exe, KP_PATH_MAX);
		break;
	case KP_REC_EXEC:
		e_u(e, r->exec.time_ns);
		e_u(e, r->exec.pid);
		e_u(e, r->exec.tid);
		e_str(e, r->exec.comm, KP_COMM_LEN - 1);
		e_str(e, r->exec.exe, KP_PATH_MAX);
		break;
	case KP_REC_EXIT:
		e_u(e, r->exit.time_ns);
		e_u(e, r->exit.pid);
		e_u(e, r->exit.tid);
		break;
	case KP_REC_THREAD:
		e_u(e, r->thread.time_ns);
		e_u(e, r->thread.pid);
		e_u(e, r->thread.tid);
		e_str(e, r->thread.comm, KP_COMM_LEN - 1);
		break;
	case KP_REC_MMAP: e_mmap(e, &r->mmap); break;
	case KP_REC_LOST:
		e_u(e, r->lost.time_ns);
		e_u(e, r->lost.stage);
		e_u(e, r->lost.cpu);
		e_u(e, r->lost.count);
		break;
	case KP_REC_SYMTAB: e_symtab(e, &r->symtab); break;
	case KP_REC_CHECK:
		e_u(e, r->check.length);
		e_u32(e, r->check.crc32c);
		break;
	case KP_REC_END: e_end(e, &r->end); break;
	case KP_REC_CODE: e_code(e, &r->code); break;
	case KP_REC_PYCODE: e_pycode(e, &r->pycode); break;
	case KP_REC_JITGEN: e_jitgen(e, &r->jitgen); break;
	case KP_REC_CGROUP:
		e_u(e, r->cgroup.time_ns);
		e_u(e, r->cgroup.id);
		e_str(e, r->cgroup.path, KP_PATH_MAX);
		break;
	default:
		e->bad = 1;
	}
}

/* Payload size of r, or SIZE_MAX if r cannot be encoded. */
static size_t payload_size(const struct kp_record *r)
{
	struct enc e = { NULL, 0, 0 };

	e_payload(&e, r);
	return e.bad ? SIZE_MAX : e.n;
}

static size_t total_size(uint32_t type, size_t plen)
{
	size_t total;

	if (plen == SIZE_MAX)
		return 0;
	total = kp_varint_len(type) + kp_varint_len(plen) + plen;
	return total > KP_STREAM_RECORD_MAX ? 0 : total;
}

size_t kp_record_encoded_size(const struct kp_record *r)
{
	if (!r)
		return 0;
	return total_size(r->type, payload_size(r));
}

ssize_t kp_record_encode(const struct kp_record *r, uint8_t *buf, size_t cap)
{
	struct enc e = { NULL, 0, 0 };
	size_t plen, total;

	if (!r)
		return -EINVAL;
	plen = payload_size(r);
	total = total_size(r->type, plen);
	if (!total)
		return -EINVAL;
	if (total > cap || !buf)
		return -ENOSPC;
	e.p = kp_varint_put(buf, r->type);
	e.p = kp_varint_put(e.p, plen);
	e_payload(&e, r);
	if (e.bad || e.n != plen || (size_t)(e.p - buf) != total)
		return -EINVAL;	/* sizing and writing disagree: a codec bug */
	return (ssize_t)total;
}
