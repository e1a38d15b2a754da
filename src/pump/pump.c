// SPDX-License-Identifier: GPL-2.0-only
/* pump.c — collector bytes → decoder → model, and the stream file while
 * saving. The save writer and the SYMTAB tail are in pump-save.c; the
 * saved-stream reader is in pump-load.c. */
#include "pump/pump.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream/stream.h"
#include "pump/pump-int.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct kp_pump *kp_pump__new(struct kp_collector *c, struct kp_model *m,
			     unsigned spool_s, struct kp_err *err)
{
	struct kp_pump *p = calloc(1, sizeof(*p));

	if (!p)
		goto out_nomem;
	p->c = c;
	p->m = m;
	p->spool_ns = (uint64_t)spool_s * 1000000000u;
	p->spool_max = KP_SPOOL_MAX_BYTES;
	p->dec = kp_decoder__new();
	p->state = kp_ctlstate__new();
	if (!p->dec || !p->state)
		goto out_free;
	return p;
out_free:
	kp_pump__free(p);
out_nomem:
	kp_err_set(err, -ENOMEM, "out of memory setting up the record pump");
	errno = ENOMEM;
	return NULL;
}

void kp_pump__set_spool_max(struct kp_pump *p, uint64_t bytes)
{
	p->spool_max = bytes < KP_SPOOL_MAX_BYTES ? bytes : KP_SPOOL_MAX_BYTES;
}

static void spool_drop_all(struct kp_pump *p)
{
	struct kp_spool_chunk *ch, *next;

	for (ch = p->spool_head; ch; ch = next) {
		next = ch->next;
		free(ch);
	}
	p->spool_head = p->spool_tail = NULL;
	p->spool_bytes = 0;
}

void kp_pump__free(struct kp_pump *p)
{
	if (!p)
		return;
	kp_pump_save_abort(p);
	spool_drop_all(p);
	kp_ctlstate__free(p->state);
	kp_decoder__free(p->dec);
	kp_pump_load_release(p);
	free(p->ctl);
	free(p);
}

/* Fold the control records of the oldest spool chunk into the state and
 * free it. */
static int spool_pop(struct kp_pump *p, struct kp_err *err)
{
	struct kp_spool_chunk *ch = p->spool_head;
	int rc = 0;

	for (uint32_t i = 0; i < ch->nr_ctl && !rc; i++) {
		size_t off = ch->ctl_off[i], used;
		struct kp_record r;

		if (kp_decoder__next(p->dec, ch->data + off, ch->len - off, 0,
				     &used, &r, err) != 1)
			return kp_err_set(err, KP_EFORMAT,
					  "spool: a record decoded before no longer does");
		rc = kp_ctlstate__fold(p->state, &r, ch->data + off, used);
	}
	p->spool_head = ch->next;
	if (!p->spool_head)
		p->spool_tail = NULL;
	p->spool_bytes -= ch->len;
	free(ch);
	return rc ? kp_err_set(err, rc, "out of memory keeping the process table") : 0;
}

static int spool_expire(struct kp_pump *p, uint64_t now, struct kp_err *err)
{
	int rc;

	while (p->spool_head && (p->spool_head->t_ns + p->spool_ns < now ||
				 p->spool_bytes > p->spool_max)) {
		rc = spool_pop(p, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Keep a copy of buf in the spool, with the offsets of its control
 * records (ctl[0..nr_ctl)). */
static int spool_add(struct kp_pump *p, const uint8_t *buf, size_t len,
		     const uint32_t *ctl, uint32_t nr_ctl, uint64_t now)
{
	size_t sz = sizeof(struct kp_spool_chunk) + nr_ctl * sizeof(uint32_t) + len;
	struct kp_spool_chunk *ch = malloc(sz);

	if (!ch)
		return -ENOMEM;
	ch->next = NULL;
	ch->t_ns = now;
	ch->len = len;
	ch->nr_ctl = nr_ctl;
	ch->ctl_off = (uint32_t *)(ch + 1);
	ch->data = (uint8_t *)(ch->ctl_off + nr_ctl);
	memcpy(ch->ctl_off, ctl, nr_ctl * sizeof(uint32_t));
	memcpy(ch->data, buf, len);
	if (p->spool_tail)
		p->spool_tail->next = ch;
	else
		p->spool_head = ch;
	p->spool_tail = ch;
	p->spool_bytes += len;
	return 0;
}

static int note_ctl(struct kp_pump *p, uint32_t off)
{
	if (p->nr_ctl == p->cap_ctl) {
		size_t cap = p->cap_ctl ? 2 * p->cap_ctl : 256;
		uint32_t *n = realloc(p->ctl, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->ctl = n;
		p->cap_ctl = cap;
	}
	p->ctl[p->nr_ctl++] = off;
	return 0;
}

/* Decode buf[0..len) (whole records) into the model; remember where the
 * control records are for the spool, or fold them at once without one. */
static int take_chunk(struct kp_pump *p, const uint8_t *buf, size_t len,
		      struct kp_err *err)
{
	size_t off = 0, used;
	struct kp_record r;
	int rc, n = 0;

	p->nr_ctl = 0;
	while (off < len) {
		rc = kp_decoder__next(p->dec, buf + off, len - off,
				      p->live_off + off, &used, &r, err);
		if (rc == 0)
			rc = kp_err_set(err, KP_ETRUNC, "collector handed a cut record "
					"at byte %zu of a chunk", off);
		if (rc < 0)
			return rc;
		kp_pump_note_meta(p, &r);
		rc = kp_python__record(p->py, &r, kp_pump_py_emit, p);
		if (rc == 0)
			rc = kp_model__feed(p->m, &r);
		if (rc == 0 && kp_ctlstate__wants(r.type))
			rc = p->spool_ns ? note_ctl(p, (uint32_t)off)
					 : kp_ctlstate__fold(p->state, &r, buf + off, used);
		if (rc)
			return kp_err_set(err, rc, "feeding the model: %s",
					  kp_strerror(rc));
		off += used;
		n++;
	}
	p->live_off += len;
	return n;
}

/* One JITGEN record r (encoded in buf[0..len)): fed to the model, saved,
 * and spooled as the collector's control records are. */
static int take_jitgen(struct kp_pump *p, const struct kp_record *r,
		       const uint8_t *buf, size_t len, struct kp_err *err)
{
	static const uint32_t at0 = 0;
	int rc = kp_model__feed(p->m, r);

	if (rc)
		return kp_err_set(err, rc, "feeding the model: %s", kp_strerror(rc));
	rc = kp_pump_save_bytes(p, buf, len, err);
	if (rc)
		return rc;
	rc = p->spool_ns ? spool_add(p, buf, len, &at0, 1, mono_ns())
			 : kp_ctlstate__fold(p->state, r, buf, len);
	return rc ? kp_err_set(err, rc, "out of memory in the spool") : 0;
}

/* JIT code that processes replaced since the last chunk (the model's
 * check): a JITGEN record each, before the chunk that follows. */
static int jit_gens(struct kp_pump *p, struct kp_err *err)
{
	struct kp_rec_jitgen g[KP_PUMP_JITGENS];
	int n = kp_model__jit_check(p->m, g, KP_PUMP_JITGENS), rc = 0;

	if (n < 0)
		return kp_err_set(err, n, "looking for replaced JIT code: %s",
				  kp_strerror(n));
	for (int i = 0; i < n && !rc; i++) {
		struct kp_record r = { .type = KP_REC_JITGEN, .jitgen = g[i] };
		uint8_t buf[64];
		ssize_t len = kp_record_encode(&r, buf, sizeof(buf));

		rc = len < 0 ? kp_err_set(err, (int)len, "encoding a JITGEN record: %s",
					  kp_strerror((int)len))
			     : take_jitgen(p, &r, buf, (size_t)len, err);
	}
	return rc;
}

/* The records of one peek: fed, saved and spooled. */
static int take_bytes(struct kp_pump *p, const uint8_t *buf, size_t len,
		      struct kp_err *err)
{
	uint64_t now;
	int n, rc;

	rc = jit_gens(p, err);
	if (rc)
		return rc;
	n = take_chunk(p, buf, len, err);
	if (n < 0)
		return n;
	rc = kp_pump_save_bytes(p, buf, len, err);
	if (rc)
		return rc;
	if (!p->spool_ns)
		return n;
	now = mono_ns();
	if (spool_add(p, buf, len, p->ctl, p->nr_ctl, now))
		return kp_err_set(err, -ENOMEM, "out of memory in the spool");
	rc = spool_expire(p, now, err);
	return rc ? rc : n;
}

/* Read the queue's oldest records in place, then let them go. */
static int run_once(struct kp_pump *p, int timeout_ms, struct kp_err *err)
{
	const void *buf;
	ssize_t len = kp_collector__peek(p->c, &buf, timeout_ms);
	int n;

	if (len < 0)
		return kp_err_set(err, (int)len, "reading the collector's queue: %s",
				  kp_strerror((int)len));
	if (len == 0)
		return 0;
	n = take_bytes(p, buf, (size_t)len, err);
	kp_collector__consume(p->c);
	return n;
}

/* Give the heap's free pages back to the system, every KP_PUMP_TRIM_NS
 * of live collection: glibc returns only the top of an arena by itself,
 * and what the spool, the queue's chunks, the model's merges and folds
 * and the symbols' DWARF evictions free lies in the middle of it (20 to
 * 30 MB of 100 under a churn of short processes). A trim takes 0.3
 * to 22 ms there (median 1.6 ms), but what it gives back is mostly
 * taken again within seconds, one page fault a page: every 5 s, those
 * faults were 12% of kptop's CPU under churn (note-18); every 30 s the
 * heap's peak is still given back and kptop's CPU is a quarter lower. */
static void trim_heap(struct kp_pump *p)
{
	uint64_t now = mono_ns();

	if (now < p->trim_at)
		return;
	p->trim_at = now + KP_PUMP_TRIM_NS;
	malloc_trim(0);
}

int kp_pump__run(struct kp_pump *p, int timeout_ms, struct kp_err *err)
{
	uint64_t t0 = 0;
	int n, total = 0;

	if (!p->c)
		return 0;
	/* The first read waits; then take what is queued, for a bounded
	 * number of reads and time, so that the caller (the live view, the
	 * batch loop's deadline) keeps its rhythm. */
	for (int i = 0; i < KP_PUMP_MAX_READS; i++) {
		n = run_once(p, i ? 0 : timeout_ms, err);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		total += n;
		if (i == 0)
			t0 = mono_ns();
		else if (mono_ns() - t0 > KP_PUMP_BUDGET_NS)
			break;
	}
	trim_heap(p);
	return total;
}

void kp_pump__set_python(struct kp_pump *p, struct kp_python *py)
{
	p->py = py;
}

int kp_pump_py_emit(void *ctx, const struct kp_record *r)
{
	struct kp_pump *p = ctx;
	struct kp_err err = { 0 };
	uint8_t *buf;
	ssize_t n;
	size_t need;
	int rc;

	if (r->type != KP_REC_PYCODE)
		return kp_model__feed(p->m, r);
	if (!p->save)
		return 0;
	need = kp_record_encoded_size(r);
	if (!need)
		return -EINVAL;
	buf = malloc(need);
	if (!buf)
		return -ENOMEM;
	n = kp_record_encode(r, buf, need);
	rc = n < 0 ? (int)n : kp_pump_save_bytes(p, buf, (size_t)n, &err);
	free(buf);
	return rc;
}

void kp_pump_note_meta(struct kp_pump *p, const struct kp_record *r)
{
	if (r->type != KP_REC_META)
		return;
	p->info.freq_hz = r->meta.freq_hz;
	p->info.ncpus = r->meta.ncpus;
	p->info.start_mono_ns = r->meta.start_mono_ns;
	p->info.start_real_ns = r->meta.start_real_ns;
	snprintf(p->info.hostname, sizeof(p->info.hostname), "%s",
		 r->meta.hostname ? r->meta.hostname : "");
}

void kp_pump__info(const struct kp_pump *p, struct kp_pump_info *out)
{
	*out = p->info;
	out->spool_bytes = p->spool_bytes;
	out->live_bytes = p->live_off;
}
