/* stream-enc.c — the stream header and the record encoder
 * (man/kptop-stream.5). Runs for every sample in the collector's consumer
 * thread: one sizing pass that validates, one writing pass with no checks
 * left to do. No allocation, no global state.
 */
#include "model/stream.h"

#include <errno.h>
#include <string.h>

#include "model/varint.h"

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

/* ---- sizing (and validation) ---- */

struct sz {
	size_t n;
	int bad;
};

static inline void sz_u(struct sz *z, uint64_t v)
{
	z->n += kp_varint_len(v);
}

static inline void sz_str(struct sz *z, const char *s, size_t max)
{
	size_t l;

	if (!s) {
		z->bad = 1;
		return;
	}
	l = strnlen(s, max + 1);
	if (l > max)
		z->bad = 1;
	z->n += kp_varint_len(l) + l;
}

static inline void sz_build_id(struct sz *z, uint8_t len)
{
	if (len > KP_BUILD_ID_MAX)
		z->bad = 1;
	z->n += 1 + len;
}

static inline void sz_addrs(struct sz *z, const uint64_t *a, size_t n,
			    size_t max)
{
	if (n > max || (n && !a))
		z->bad = 1;
	z->n += kp_varint_len(n) + 8 * n;
}

static void sz_sample(struct sz *z, const struct kp_rec_sample *s)
{
	sz_u(z, s->time_ns);
	sz_u(z, s->cgroup_id);
	sz_u(z, s->cpu);
	sz_u(z, s->pid);
	sz_u(z, s->tid);
	sz_u(z, s->gpid);
	sz_u(z, s->gtid);
	sz_u(z, s->flags);
	sz_u(z, kp_zigzag(s->kerr));
	sz_u(z, kp_zigzag(s->uerr));
	sz_str(z, s->comm, KP_COMM_LEN - 1);
	sz_addrs(z, s->kframes, s->nr_kframes, KP_MAX_FRAMES);
	sz_addrs(z, s->uframes, s->nr_uframes, KP_MAX_FRAMES);
	sz_addrs(z, s->regs, s->nr_regs, KP_MAX_REGS);
	if (s->stack_len > KP_MAX_STACK_BYTES || (s->stack_len && !s->stack))
		z->bad = 1;
	z->n += kp_varint_len(s->stack_len) + s->stack_len;
}

static void sz_mmap(struct sz *z, const struct kp_rec_mmap *m)
{
	sz_u(z, m->time_ns);
	sz_u(z, m->pid);
	sz_u(z, m->tid);
	z->n += 8;
	sz_u(z, m->len);
	sz_u(z, m->pgoff);
	sz_u(z, m->prot);
	sz_u(z, m->flags);
	sz_u(z, m->maj);
	sz_u(z, m->min);
	sz_u(z, m->ino);
	sz_u(z, m->ino_generation);
	sz_build_id(z, m->build_id_len);
	sz_str(z, m->path, KP_PATH_MAX);
}

static void sz_symtab(struct sz *z, const struct kp_rec_symtab *t)
{
	uint32_t i;

	sz_str(z, t->path, KP_PATH_MAX);
	sz_build_id(z, t->build_id_len);
	sz_u(z, t->nr_syms);
	if (t->nr_syms && !t->syms) {
		z->bad = 1;
		return;
	}
	for (i = 0; i < t->nr_syms && !z->bad; i++) {
		if (i && t->syms[i].addr < t->syms[i - 1].addr)
			z->bad = 1;	/* the format says sorted */
		z->n += 8;
		sz_u(z, t->syms[i].size);
		sz_str(z, t->syms[i].name, KP_PATH_MAX);
		if (z->n > KP_STREAM_RECORD_MAX)
			z->bad = 1;
	}
}

static void sz_meta(struct sz *z, const struct kp_rec_meta *m)
{
	sz_str(z, m->version, KP_PATH_MAX);
	sz_str(z, m->kernel, KP_PATH_MAX);
	sz_str(z, m->hostname, KP_PATH_MAX);
	sz_str(z, m->arch, KP_PATH_MAX);
	sz_u(z, m->freq_hz);
	sz_u(z, m->ncpus);
	sz_u(z, m->start_mono_ns);
	sz_u(z, m->start_real_ns);
	sz_u(z, m->page_size);
	sz_u(z, m->flags);
}

/* Payload size of r, or SIZE_MAX if r cannot be encoded. */
static size_t payload_size(const struct kp_record *r)
{
	struct sz z = { 0, 0 };

	switch (r->type) {
	case KP_REC_SAMPLE: sz_sample(&z, &r->sample); break;
	case KP_REC_META: sz_meta(&z, &r->meta); break;
	case KP_REC_PROCESS:
		sz_u(&z, r->process.time_ns);
		sz_u(&z, r->process.start_ns);
		sz_u(&z, r->process.pid);
		sz_u(&z, r->process.ppid);
		sz_u(&z, r->process.gpid);
		sz_u(&z, r->process.uid);
		sz_u(&z, r->process.flags);
		sz_str(&z, r->process.comm, KP_COMM_LEN - 1);
		sz_str(&z, r->process.exe, KP_PATH_MAX);
		break;
	case KP_REC_EXEC:
		sz_u(&z, r->exec.time_ns);
		sz_u(&z, r->exec.pid);
		sz_u(&z, r->exec.tid);
		sz_str(&z, r->exec.comm, KP_COMM_LEN - 1);
		sz_str(&z, r->exec.exe, KP_PATH_MAX);
		break;
	case KP_REC_EXIT:
		sz_u(&z, r->exit.time_ns);
		sz_u(&z, r->exit.pid);
		sz_u(&z, r->exit.tid);
		break;
	case KP_REC_THREAD:
		sz_u(&z, r->thread.time_ns);
		sz_u(&z, r->thread.pid);
		sz_u(&z, r->thread.tid);
		sz_str(&z, r->thread.comm, KP_COMM_LEN - 1);
		break;
	case KP_REC_MMAP: sz_mmap(&z, &r->mmap); break;
	case KP_REC_LOST:
		sz_u(&z, r->lost.time_ns);
		sz_u(&z, r->lost.stage);
		sz_u(&z, r->lost.cpu);
		sz_u(&z, r->lost.count);
		break;
	case KP_REC_SYMTAB: sz_symtab(&z, &r->symtab); break;
	case KP_REC_CGROUP:
		sz_u(&z, r->cgroup.time_ns);
		sz_u(&z, r->cgroup.id);
		sz_str(&z, r->cgroup.path, KP_PATH_MAX);
		break;
	default:
		return SIZE_MAX;
	}
	return z.bad ? SIZE_MAX : z.n;
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

/* ---- writing: sizes were checked, every write fits ---- */

static inline uint8_t *put_str(uint8_t *p, const char *s)
{
	size_t l = strlen(s);

	p = kp_varint_put(p, l);
	memcpy(p, s, l);
	return p + l;
}

static inline uint8_t *put_build_id(uint8_t *p, uint8_t len, const uint8_t *id)
{
	*p++ = len;
	memcpy(p, id, len);
	return p + len;
}

static inline uint8_t *put_addrs(uint8_t *p, const uint64_t *a, size_t n)
{
	p = kp_varint_put(p, n);
	if (n)
		memcpy(p, a, 8 * n);	/* little-endian host */
	return p + 8 * n;
}

static uint8_t *put_sample(uint8_t *p, const struct kp_rec_sample *s)
{
	p = kp_varint_put(p, s->time_ns);
	p = kp_varint_put(p, s->cgroup_id);
	p = kp_varint_put(p, s->cpu);
	p = kp_varint_put(p, s->pid);
	p = kp_varint_put(p, s->tid);
	p = kp_varint_put(p, s->gpid);
	p = kp_varint_put(p, s->gtid);
	p = kp_varint_put(p, s->flags);
	p = kp_varint_put(p, kp_zigzag(s->kerr));
	p = kp_varint_put(p, kp_zigzag(s->uerr));
	p = put_str(p, s->comm);
	p = put_addrs(p, s->kframes, s->nr_kframes);
	p = put_addrs(p, s->uframes, s->nr_uframes);
	p = put_addrs(p, s->regs, s->nr_regs);
	p = kp_varint_put(p, s->stack_len);
	if (s->stack_len)
		memcpy(p, s->stack, s->stack_len);
	return p + s->stack_len;
}

static uint8_t *put_mmap(uint8_t *p, const struct kp_rec_mmap *m)
{
	p = kp_varint_put(p, m->time_ns);
	p = kp_varint_put(p, m->pid);
	p = kp_varint_put(p, m->tid);
	p = kp_le64_put(p, m->addr);
	p = kp_varint_put(p, m->len);
	p = kp_varint_put(p, m->pgoff);
	p = kp_varint_put(p, m->prot);
	p = kp_varint_put(p, m->flags);
	p = kp_varint_put(p, m->maj);
	p = kp_varint_put(p, m->min);
	p = kp_varint_put(p, m->ino);
	p = kp_varint_put(p, m->ino_generation);
	p = put_build_id(p, m->build_id_len, m->build_id);
	return put_str(p, m->path);
}

static uint8_t *put_symtab(uint8_t *p, const struct kp_rec_symtab *t)
{
	uint32_t i;

	p = put_str(p, t->path);
	p = put_build_id(p, t->build_id_len, t->build_id);
	p = kp_varint_put(p, t->nr_syms);
	for (i = 0; i < t->nr_syms; i++) {
		p = kp_le64_put(p, t->syms[i].addr);
		p = kp_varint_put(p, t->syms[i].size);
		p = put_str(p, t->syms[i].name);
	}
	return p;
}

static uint8_t *put_meta(uint8_t *p, const struct kp_rec_meta *m)
{
	p = put_str(p, m->version);
	p = put_str(p, m->kernel);
	p = put_str(p, m->hostname);
	p = put_str(p, m->arch);
	p = kp_varint_put(p, m->freq_hz);
	p = kp_varint_put(p, m->ncpus);
	p = kp_varint_put(p, m->start_mono_ns);
	p = kp_varint_put(p, m->start_real_ns);
	p = kp_varint_put(p, m->page_size);
	return kp_varint_put(p, m->flags);
}

static uint8_t *put_payload(uint8_t *p, const struct kp_record *r)
{
	switch (r->type) {
	case KP_REC_SAMPLE: return put_sample(p, &r->sample);
	case KP_REC_META: return put_meta(p, &r->meta);
	case KP_REC_PROCESS:
		p = kp_varint_put(p, r->process.time_ns);
		p = kp_varint_put(p, r->process.start_ns);
		p = kp_varint_put(p, r->process.pid);
		p = kp_varint_put(p, r->process.ppid);
		p = kp_varint_put(p, r->process.gpid);
		p = kp_varint_put(p, r->process.uid);
		p = kp_varint_put(p, r->process.flags);
		p = put_str(p, r->process.comm);
		return put_str(p, r->process.exe);
	case KP_REC_EXEC:
		p = kp_varint_put(p, r->exec.time_ns);
		p = kp_varint_put(p, r->exec.pid);
		p = kp_varint_put(p, r->exec.tid);
		p = put_str(p, r->exec.comm);
		return put_str(p, r->exec.exe);
	case KP_REC_EXIT:
		p = kp_varint_put(p, r->exit.time_ns);
		p = kp_varint_put(p, r->exit.pid);
		return kp_varint_put(p, r->exit.tid);
	case KP_REC_THREAD:
		p = kp_varint_put(p, r->thread.time_ns);
		p = kp_varint_put(p, r->thread.pid);
		p = kp_varint_put(p, r->thread.tid);
		return put_str(p, r->thread.comm);
	case KP_REC_MMAP: return put_mmap(p, &r->mmap);
	case KP_REC_LOST:
		p = kp_varint_put(p, r->lost.time_ns);
		p = kp_varint_put(p, r->lost.stage);
		p = kp_varint_put(p, r->lost.cpu);
		return kp_varint_put(p, r->lost.count);
	case KP_REC_SYMTAB: return put_symtab(p, &r->symtab);
	case KP_REC_CGROUP:
		p = kp_varint_put(p, r->cgroup.time_ns);
		p = kp_varint_put(p, r->cgroup.id);
		return put_str(p, r->cgroup.path);
	}
	return p;	/* not reached: payload_size() refused the type */
}

ssize_t kp_record_encode(const struct kp_record *r, uint8_t *buf, size_t cap)
{
	size_t plen, total;
	uint8_t *p;

	if (!r)
		return -EINVAL;
	plen = payload_size(r);
	total = total_size(r->type, plen);
	if (!total)
		return -EINVAL;
	if (total > cap || !buf)
		return -ENOSPC;
	p = kp_varint_put(buf, r->type);
	p = kp_varint_put(p, plen);
	p = put_payload(p, r);
	if ((size_t)(p - buf) != total)
		return -EINVAL;	/* sizing and writing disagree: a codec bug */
	return (ssize_t)total;
}
