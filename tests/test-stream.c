// SPDX-License-Identifier: GPL-2.0-only
/* test-stream.c — the record stream codec (stream/stream.h) against its
 * specification (man/kptop-stream.5): round trips of every record type at
 * their limits, a cut at every byte of a stream holding every type,
 * corrupted lengths and counts, unknown types and versions, bad strings,
 * and encoding into short buffers; CRC32C, and the blocks and END record
 * of a saved file (stream/stream-blk.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stream/stream.h"
#include "stream/stream-blk.h"
#include "stream/varint.h"
#include "util/crc32c.h"

#define BIG (256 * 1024)

/* ---- record fixtures ---- */

static uint64_t kframes[KP_MAX_FRAMES], uframes[KP_MAX_FRAMES];
static uint8_t stack_bytes[KP_MAX_STACK_BYTES];
static char long_path[KP_PATH_MAX + 2];
static const uint8_t bid20[KP_BUILD_ID_MAX] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 0xff };
static const struct kp_symbol syms3[] = {
	{ 0x1000, 0x20, "main" }, { 0x1020, 0, "_ZN3foo3barEv" },
	{ 0x1020, 8, "alias" },
};

static void fill_fixtures(void)
{
	size_t i;

	for (i = 0; i < KP_MAX_FRAMES; i++) {
		kframes[i] = 0xffffffff81000000ull + i * 0x10;
		uframes[i] = 0x00007f0000001000ull + i * 0x111;
	}
	for (i = 0; i < sizeof(stack_bytes); i++)
		stack_bytes[i] = (uint8_t)(i * 7 + 3);
	memset(long_path, 0, sizeof(long_path));
	long_path[0] = '/';
	memset(long_path + 1, 'p', KP_PATH_MAX - 1);	/* 4096 bytes */
}

static struct kp_record rec_meta(void)
{
	struct kp_record r = { .type = KP_REC_META };

	r.meta = (struct kp_rec_meta){ "0.1.0", "6.18.0", "host", "x86_64",
		99, 2, 123456789, 1700000000000000000ull, 4096,
		KP_META_KERNEL_STACKS | KP_META_USER_STACKS, NULL, 0, NULL };
	return r;
}

static struct kp_record rec_sample(int kn, int un, int regs, uint32_t stack)
{
	struct kp_record r = { .type = KP_REC_SAMPLE };
	struct kp_rec_sample *s = &r.sample;
	int i;

	s->time_ns = UINT64_MAX;
	s->cgroup_id = 4242;
	s->cpu = 1;
	s->pid = 100;
	s->tid = 101;
	s->gpid = UINT32_MAX;
	s->gtid = 77777;
	s->flags = KP_SAMPLE_USER_MODE | (regs ? KP_SAMPLE_REGS : 0);
	s->kerr = -14;
	s->uerr = INT32_MIN;
	strcpy(s->comm, "fifteen-chars!!");
	s->nr_kframes = (uint16_t)kn;
	s->kframes = kn ? kframes : NULL;
	s->nr_uframes = (uint16_t)un;
	s->uframes = un ? uframes : NULL;
	s->nr_regs = (uint8_t)regs;
	for (i = 0; i < regs && i < KP_MAX_REGS; i++)
		s->regs[i] = 0x8000000000000000ull | (uint64_t)i;
	s->stack_len = stack;
	s->stack = stack ? stack_bytes : NULL;
	return r;
}

/* An off-CPU interval: a sample's fields, then its own. */
static struct kp_record rec_offcpu(int kn, int un, uint32_t count)
{
	struct kp_record r = { .type = KP_REC_OFFCPU };
	struct kp_record s = rec_sample(kn, un, 17, 64);

	r.offcpu.s = s.sample;
	r.offcpu.s.flags = KP_SAMPLE_REGS;
	r.offcpu.off_ns = 10000123;
	r.offcpu.count = count;
	r.offcpu.state = KP_OFF_DISK;
	r.offcpu.waker_pid = 200;
	r.offcpu.waker_tid = UINT32_MAX;
	strcpy(r.offcpu.waker_comm, "kworker/0:1");
	return r;
}

static struct kp_record rec_mmap(const char *path, int bid)
{
	struct kp_record r = { .type = KP_REC_MMAP };

	r.mmap = (struct kp_rec_mmap){ 5, 100, 101, 0x7f0000000000ull, 0x21000,
		0x1000, 5, 2, 8, 1, 1234567, 3, 0, { 0 }, path };
	r.mmap.build_id_len = (uint8_t)bid;
	memcpy(r.mmap.build_id, bid20, (size_t)bid);
	return r;
}

static struct kp_record rec_symtab(uint32_t n, const struct kp_symbol *syms)
{
	struct kp_record r = { .type = KP_REC_SYMTAB };

	r.symtab.path = "/usr/lib/libfoo.so";
	r.symtab.build_id_len = KP_BUILD_ID_MAX;
	memcpy(r.symtab.build_id, bid20, sizeof(bid20));
	r.symtab.nr_syms = n;
	r.symtab.syms = syms;
	return r;
}

static const uint8_t code9[9] = { 0x55, 0x48, 0x89, 0xe5, 0xf7, 0xf9, 0x5d, 0xc3, 0x90 };
static const char *const code_strs[] = { "/src/div.c", "inl_helper" };
static const struct kp_code_line code_lines[] = {
	{ 0, 1, 10, 0 }, { 4, 1, 12, 2 }, { 6, 0, 0, 0 },
};

static struct kp_record rec_code(void)
{
	struct kp_record r = { .type = KP_REC_CODE };

	r.code.path = "/usr/bin/div";
	r.code.build_id_len = KP_BUILD_ID_MAX;
	memcpy(r.code.build_id, bid20, sizeof(bid20));
	r.code.start = 0x1130;
	r.code.vaddr = 0x401130;
	r.code.name = "divloop";
	r.code.len = sizeof(code9);
	r.code.code = code9;
	r.code.nr_strs = 2;
	r.code.strs = code_strs;
	r.code.nr_lines = 3;
	r.code.lines = code_lines;
	return r;
}

static const uint64_t counts12[KP_REC_TYPE_MAX] = { 1, 2, 3, 4, 5, 1ull << 40,
	7, 8, 9, 10, 11, 0 };

/* One record of every type, in a plausible order. */
static size_t every_type(struct kp_record *out)
{
	size_t n = 0;

	out[n++] = rec_meta();
	out[n] = (struct kp_record){ .type = KP_REC_PROCESS };
	out[n++].process = (struct kp_rec_process){ 1, 2, 100, 1, 100, 1000,
		KP_PROC_SNAPSHOT, "bash", "/usr/bin/bash" };
	out[n++] = rec_mmap("/usr/bin/bash", 20);
	out[n] = (struct kp_record){ .type = KP_REC_THREAD };
	out[n++].thread = (struct kp_rec_thread){ 3, 100, 101, "worker" };
	out[n] = (struct kp_record){ .type = KP_REC_CGROUP };
	out[n++].cgroup = (struct kp_rec_cgroup){ 4, 4242, "/user.slice" };
	out[n++] = rec_sample(3, 2, 17, 40);
	out[n] = (struct kp_record){ .type = KP_REC_EXEC };
	out[n++].exec = (struct kp_rec_exec){ 6, 100, 100, "ls", "" };
	out[n] = (struct kp_record){ .type = KP_REC_LOST };
	out[n++].lost = (struct kp_rec_lost){ 7, KP_LOST_QUEUE_FULL, UINT32_MAX, 12 };
	out[n] = (struct kp_record){ .type = KP_REC_EXIT };
	out[n++].exit = (struct kp_rec_exit){ 8, 100, 100 };
	out[n++] = rec_symtab(3, syms3);
	out[n++] = rec_code();
	out[n++] = rec_offcpu(5, 3, 2);
	out[n] = (struct kp_record){ .type = KP_REC_JITGEN };
	out[n++].jitgen = (struct kp_rec_jitgen){ 9, { 100, 1000, 1 } };
	out[n] = (struct kp_record){ .type = KP_REC_CHECK };
	out[n++].check = (struct kp_rec_check){ 123456, 0xdeadbeef };
	out[n] = (struct kp_record){ .type = KP_REC_END };
	out[n++].end = (struct kp_rec_end){ 1ull << 40, KP_REC_TYPE_MAX, counts12 };
	return n;
}

/* ---- helpers ---- */

static size_t enc(const struct kp_record *r, uint8_t *buf, size_t cap)
{
	size_t want = kp_record_encoded_size(r);
	ssize_t n = kp_record_encode(r, buf, cap);

	assert_true(want > 0);
	assert_int_equal(n, (ssize_t)want);
	return (size_t)n;
}

/* Encode recs into buf after a header; record starts go to offs[]. */
static size_t build(const struct kp_record *recs, size_t n, uint8_t *buf,
		    size_t cap, size_t *offs)
{
	size_t len = KP_STREAM_HEADER_LEN, i;

	kp_stream_header_encode(buf);
	for (i = 0; i < n; i++) {
		if (offs)
			offs[i] = len;
		len += enc(&recs[i], buf + len, cap - len);
	}
	if (offs)
		offs[n] = len;
	return len;
}

/* The byte offset an error message names. */
static uint64_t err_offset(const struct kp_err *e)
{
	uint64_t off = UINT64_MAX;

	assert_int_equal(sscanf(e->msg, "offset %" SCNu64, &off), 1);
	return off;
}

/* Decode buf from after its header until __next stops; each record is
 * re-encoded and compared with its bytes. Returns the last rc; *nrec and
 * *end say how many records came out and where decoding stopped. */
static int decode_all(const uint8_t *buf, size_t len, size_t *nrec,
		      size_t *end, struct kp_err *e, struct kp_decoder_stats *st)
{
	struct kp_decoder *d = kp_decoder__new();
	static uint8_t re[BIG];
	struct kp_record r;
	size_t off = KP_STREAM_HEADER_LEN, used;
	int rc;

	assert_non_null(d);
	kp_decoder__set_minor(d, 0);
	*nrec = 0;
	while ((rc = kp_decoder__next(d, buf + off, len - off, off, &used, &r, e)) == 1) {
		size_t n = enc(&r, re, sizeof(re));

		/* used may include unknown records skipped before this one */
		assert_true(n <= used);
		assert_memory_equal(re, buf + off + used - n, n);
		off += used;
		(*nrec)++;
	}
	if (rc == 0)
		off += used;
	*end = off;
	if (st)
		kp_decoder__stats(d, st);
	kp_decoder__free(d);
	return rc;
}

static void roundtrip(const struct kp_record *in, struct kp_record *out,
		      struct kp_decoder *d, uint8_t *buf)
{
	struct kp_err e = { 0 };
	size_t n = enc(in, buf, BIG), used = 0;

	assert_int_equal(kp_decoder__next(d, buf, n, 0, &used, out, &e), 1);
	assert_int_equal(used, n);
	assert_int_equal(out->type, in->type);
}

/* ---- round trips ---- */

static void test_header(void **state)
{
	uint8_t h[KP_STREAM_HEADER_LEN + 4];
	struct kp_stream_header hd;
	struct kp_err e = { 0 };

	kp_stream_header_encode(h);
	assert_memory_equal(h, "KPTOPSTR\x01\x00\x0c\x00\x01\x00\x10\x00", 16);
	assert_int_equal(kp_stream_header_decode(h, 16, &hd, &e), 0);
	assert_int_equal(hd.major, 1);
	assert_int_equal(hd.minor, KP_STREAM_MINOR);
	assert_int_equal(hd.header_len, 16);
	assert_int_equal(kp_stream_header_decode(h, 15, &hd, &e), KP_ETRUNC);
	h[10] = KP_STREAM_MINOR + 1; h[14] = 20;		/* a later minor with a longer header */
	assert_int_equal(kp_stream_header_decode(h, 20, &hd, &e), 0);
	assert_int_equal(hd.minor, KP_STREAM_MINOR + 1);
	assert_int_equal(hd.header_len, 20);
	h[8] = 2;
	assert_int_equal(kp_stream_header_decode(h, 16, &hd, &e), KP_EVERSION);
	assert_int_equal(err_offset(&e), 8);
	h[8] = 1; h[14] = 15;
	assert_int_equal(kp_stream_header_decode(h, 16, &hd, &e), KP_EFORMAT);
	h[14] = 16; h[12] = 2;
	assert_int_equal(kp_stream_header_decode(h, 16, &hd, &e), KP_EFORMAT);
	h[12] = 1; h[0] = 'k';
	assert_int_equal(kp_stream_header_decode(h, 16, &hd, &e), KP_EFORMAT);
	assert_int_equal(err_offset(&e), 0);
}

static void test_roundtrip_small(void **state)
{
	struct kp_record in[16], out;
	struct kp_decoder *d = kp_decoder__new();
	uint8_t *buf = malloc(BIG);
	size_t n = every_type(in), i;

	assert_non_null(buf);
	for (i = 0; i < n; i++)
		roundtrip(&in[i], &out, d, buf);
	roundtrip(&in[0], &out, d, buf);
	assert_string_equal(out.meta.version, "0.1.0");
	assert_string_equal(out.meta.arch, "x86_64");
	assert_int_equal(out.meta.start_real_ns, 1700000000000000000ull);
	assert_int_equal(out.meta.flags, 3);
	assert_string_equal(out.meta.event, "");	/* cpu-clock: not written */
	assert_int_equal(out.meta.period, 0);
	roundtrip(&in[1], &out, d, buf);
	assert_string_equal(out.process.comm, "bash");
	assert_string_equal(out.process.exe, "/usr/bin/bash");
	assert_int_equal(out.process.uid, 1000);
	roundtrip(&in[6], &out, d, buf);
	assert_string_equal(out.exec.exe, "");
	roundtrip(&in[7], &out, d, buf);
	assert_int_equal(out.lost.cpu, UINT32_MAX);
	assert_int_equal(out.lost.stage, KP_LOST_QUEUE_FULL);
	roundtrip(&in[8], &out, d, buf);
	assert_int_equal(out.exit.tid, 100);
	roundtrip(&in[4], &out, d, buf);
	assert_string_equal(out.cgroup.path, "/user.slice");
	assert_int_equal(out.cgroup.id, 4242);
	roundtrip(&in[3], &out, d, buf);
	assert_string_equal(out.thread.comm, "worker");
	roundtrip(&in[11], &out, d, buf);
	assert_int_equal(out.offcpu.s.nr_kframes, 5);
	assert_int_equal(out.offcpu.s.nr_uframes, 3);
	assert_int_equal(out.offcpu.s.uframes[2], uframes[2]);
	assert_int_equal(out.offcpu.s.nr_regs, 17);
	assert_int_equal(out.offcpu.s.stack_len, 64);
	assert_int_equal(out.offcpu.s.weight, 1);
	assert_string_equal(out.offcpu.s.comm, "fifteen-chars!!");
	assert_int_equal(out.offcpu.off_ns, 10000123);
	assert_int_equal(out.offcpu.count, 2);
	assert_int_equal(out.offcpu.state, KP_OFF_DISK);
	assert_int_equal(out.offcpu.waker_pid, 200);
	assert_int_equal(out.offcpu.waker_tid, UINT32_MAX);
	assert_string_equal(out.offcpu.waker_comm, "kworker/0:1");
	kp_decoder__free(d);
	free(buf);
}

static void test_roundtrip_sample_limits(void **state)
{
	struct kp_decoder *d = kp_decoder__new();
	uint8_t *buf = malloc(BIG);
	struct kp_record in, out;
	int i;

	assert_non_null(buf);
	in = rec_sample(0, 0, 0, 0);
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.sample.nr_kframes, 0);
	assert_int_equal(out.sample.nr_uframes, 0);
	assert_int_equal(out.sample.nr_regs, 0);
	assert_int_equal(out.sample.stack_len, 0);
	assert_null(out.sample.stack);
	assert_int_equal(out.sample.kerr, -14);
	assert_int_equal(out.sample.uerr, INT32_MIN);
	assert_int_equal(out.sample.time_ns, UINT64_MAX);
	assert_int_equal(out.sample.gpid, UINT32_MAX);
	assert_string_equal(out.sample.comm, "fifteen-chars!!");

	in = rec_sample(KP_MAX_FRAMES, KP_MAX_FRAMES, KP_MAX_REGS, KP_MAX_STACK_BYTES);
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.sample.nr_kframes, KP_MAX_FRAMES);
	assert_int_equal(out.sample.nr_uframes, KP_MAX_FRAMES);
	assert_true(((uintptr_t)out.sample.kframes & 7) == 0);
	assert_true(((uintptr_t)out.sample.uframes & 7) == 0);
	assert_memory_equal(out.sample.kframes, kframes, sizeof(kframes));
	assert_memory_equal(out.sample.uframes, uframes, sizeof(uframes));
	assert_int_equal(out.sample.nr_regs, KP_MAX_REGS);
	for (i = 0; i < KP_MAX_REGS; i++)
		assert_int_equal(out.sample.regs[i], in.sample.regs[i]);
	assert_int_equal(out.sample.stack_len, KP_MAX_STACK_BYTES);
	assert_memory_equal(out.sample.stack, stack_bytes, KP_MAX_STACK_BYTES);
	kp_decoder__free(d);
	free(buf);
}

/* An idle sample standing for a run of 250: the weight is the last field,
 * written only above 1, read back as 1 when absent. */
static void test_roundtrip_weight(void **state)
{
	struct kp_decoder *d = kp_decoder__new();
	uint8_t *buf = malloc(BIG);
	struct kp_record in = rec_sample(3, 0, 0, 0), out;
	struct kp_err e = { 0 };
	size_t n1, n250, used;

	assert_non_null(buf);
	in.sample.flags = KP_SAMPLE_IDLE;
	in.sample.weight = 0;			/* zeroed: one sample */
	n1 = kp_record_encoded_size(&in);
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.sample.weight, 1);
	assert_int_equal(buf[n1 - 1], 0);	/* the stack's length ends it */
	in.sample.weight = 1;			/* the same bytes */
	assert_int_equal(kp_record_encoded_size(&in), n1);
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.sample.weight, 1);
	assert_int_equal(buf[n1 - 1], 0);

	in.sample.weight = 250;			/* two more bytes: fa 01 */
	n250 = kp_record_encoded_size(&in);
	assert_int_equal(n250, n1 + 2);
	roundtrip(&in, &out, d, buf);
	assert_memory_equal(buf + n1, "\xfa\x01", 2);
	assert_int_equal(out.sample.weight, 250);
	assert_int_equal(out.sample.time_ns, UINT64_MAX);
	assert_int_equal(out.sample.nr_kframes, 3);
	assert_memory_equal(out.sample.kframes, kframes, 3 * sizeof(kframes[0]));
	in.sample.weight = UINT32_MAX;
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.sample.weight, UINT32_MAX);

	/* A minor-0 stream has no weight: the bytes are damage there. */
	in.sample.weight = 250;
	enc(&in, buf, BIG);
	kp_decoder__set_minor(d, 0);
	assert_int_equal(kp_decoder__next(d, buf, n250, 0, &used, &out, &e), KP_EFORMAT);
	assert_int_equal(err_offset(&e), n1);
	kp_decoder__free(d);
	free(buf);
}

static void test_roundtrip_paths_symbols(void **state)
{
	struct kp_decoder *d = kp_decoder__new();
	uint8_t *buf = malloc(BIG);
	struct kp_symbol *many = calloc(5000, sizeof(*many));
	struct kp_record in, out;
	uint32_t i;

	assert_non_null(buf);
	assert_non_null(many);
	in = rec_mmap(long_path, KP_BUILD_ID_MAX);
	roundtrip(&in, &out, d, buf);
	assert_int_equal(strlen(out.mmap.path), KP_PATH_MAX);
	assert_string_equal(out.mmap.path, long_path);
	assert_int_equal(out.mmap.build_id_len, KP_BUILD_ID_MAX);
	assert_memory_equal(out.mmap.build_id, bid20, KP_BUILD_ID_MAX);
	assert_int_equal(out.mmap.addr, 0x7f0000000000ull);
	assert_int_equal(out.mmap.pgoff, 0x1000);
	assert_int_equal(out.mmap.ino, 1234567);
	in = rec_mmap("[vdso]", 0);
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.mmap.build_id_len, 0);

	in = rec_symtab(0, NULL);
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.symtab.nr_syms, 0);
	assert_string_equal(out.symtab.path, "/usr/lib/libfoo.so");
	for (i = 0; i < 5000; i++)
		many[i] = (struct kp_symbol){ 0xffffffff81000000ull + 16 * i, i,
			i == 4999 ? long_path : (i & 1) ? "odd_symbol" : "e" };
	in = rec_symtab(5000, many);
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.symtab.nr_syms, 5000);
	for (i = 0; i < 5000; i++) {
		assert_int_equal(out.symtab.syms[i].addr, many[i].addr);
		assert_int_equal(out.symtab.syms[i].size, i);
		assert_string_equal(out.symtab.syms[i].name, many[i].name);
	}
	kp_decoder__free(d);
	free(many);
	free(buf);
}

/* ---- encoder refusals ---- */

static void test_encode_invalid(void **state)
{
	struct kp_record r;
	uint8_t buf[64];
	const struct kp_symbol unsorted[] = { { 2, 0, "b" }, { 1, 0, "a" } };

	r = rec_sample(KP_MAX_FRAMES + 1, 0, 0, 0);
	assert_int_equal(kp_record_encoded_size(&r), 0);
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	r = rec_sample(0, KP_MAX_FRAMES + 1, 0, 0);
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	r = rec_sample(0, 0, KP_MAX_REGS + 1, 0);
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	r = rec_sample(0, 0, 0, KP_MAX_STACK_BYTES + 1);
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	r = rec_sample(0, 0, 0, 0);
	memset(r.sample.comm, 'x', KP_COMM_LEN);	/* no NUL */
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	r = rec_sample(2, 0, 0, 0);
	r.sample.kframes = NULL;
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	r = rec_mmap(long_path, 0);
	assert_true(kp_record_encoded_size(&r) > 0);
	long_path[KP_PATH_MAX] = 'x';		/* 4097 bytes */
	assert_int_equal(kp_record_encoded_size(&r), 0);
	long_path[KP_PATH_MAX] = 0;
	r = rec_mmap("/x", 0);
	r.mmap.build_id_len = KP_BUILD_ID_MAX + 1;
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	r = rec_mmap(NULL, 0);
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	r = (struct kp_record){ .type = KP_REC_THREAD };
	r.thread = (struct kp_rec_thread){ 1, 2, 3, "sixteen-chars-xx" };
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	r = rec_symtab(2, unsorted);
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	r.type = 0;
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	r.type = KP_REC_TYPE_MAX + 1;
	assert_int_equal(kp_record_encoded_size(&r), 0);
}

static void test_encode_enospc(void **state)
{
	struct kp_record recs[16];
	uint8_t buf[512], guard[512];
	size_t n = every_type(recs), i, cap, need;

	memset(guard, 0xaa, sizeof(guard));
	for (i = 0; i < n; i++) {
		need = kp_record_encoded_size(&recs[i]);
		assert_true(need > 0 && need < sizeof(buf));
		for (cap = 0; cap < need; cap++) {
			memset(buf, 0xaa, sizeof(buf));
			assert_int_equal(kp_record_encode(&recs[i], buf, cap), -ENOSPC);
			assert_memory_equal(buf, guard, sizeof(buf));
		}
		assert_int_equal(kp_record_encode(&recs[i], buf, need), (ssize_t)need);
	}
}

/* ---- damage ---- */

static void test_truncation_every_byte(void **state)
{
	struct kp_record recs[16];
	static uint8_t buf[4096];
	size_t offs[17], n = every_type(recs), len, cut, nrec, end, want;
	struct kp_stream_header hd;
	struct kp_err e;

	len = build(recs, n, buf, sizeof(buf), offs);
	assert_int_equal(decode_all(buf, len, &nrec, &end, &e, NULL), 0);
	assert_int_equal(nrec, n);
	assert_int_equal(end, len);
	for (cut = 0; cut <= len; cut++) {
		if (cut < KP_STREAM_HEADER_LEN) {
			assert_int_equal(kp_stream_header_decode(buf, cut, &hd, &e),
					 KP_ETRUNC);
			continue;
		}
		for (want = 0; want < n && offs[want + 1] <= cut; want++)
			;
		assert_int_equal(decode_all(buf, cut, &nrec, &end, &e, NULL), 0);
		assert_int_equal(nrec, want);		/* all before the cut */
		assert_int_equal(end, offs[want]);	/* stops at the cut record */
	}
}

/* Split an encoded record into type, payload start and payload length. */
static void envelope_of(const uint8_t *rec, size_t reclen, uint64_t *type,
			size_t *hdr, uint64_t *plen)
{
	int k = kp_varint_get(rec, rec + reclen, type);
	int m = kp_varint_get(rec + k, rec + reclen, plen);

	assert_true(k > 0 && m > 0);
	*hdr = (size_t)(k + m);
}

/* Copy the record at rec to out with its envelope length set to plen and
 * its payload unchanged. Returns the new record's length. */
static size_t set_len(const uint8_t *rec, size_t reclen, uint64_t plen,
		      uint8_t *out)
{
	uint64_t type, old;
	size_t hdr;
	uint8_t *p;

	envelope_of(rec, reclen, &type, &hdr, &old);
	p = kp_varint_put(kp_varint_put(out, type), plen);
	memcpy(p, rec + hdr, reclen - hdr);
	return (size_t)(p - out) + reclen - hdr;
}

/* Copy the record at rec to out with its bytes [at, at + flen) replaced
 * by the varint v and the envelope length fixed to match, so that only
 * that field is wrong. Returns the new record's length. */
static size_t patch(const uint8_t *rec, size_t reclen, size_t at, size_t flen,
		    uint64_t v, uint8_t *out)
{
	static uint8_t pay[BIG];
	uint64_t type, plen;
	size_t hdr, n;
	uint8_t *p;

	envelope_of(rec, reclen, &type, &hdr, &plen);
	assert_true(at >= hdr && at + flen <= reclen);
	memcpy(pay, rec + hdr, at - hdr);
	p = kp_varint_put(pay + (at - hdr), v);
	memcpy(p, rec + at + flen, reclen - at - flen);
	n = (size_t)(p - pay) + reclen - at - flen;
	p = kp_varint_put(kp_varint_put(out, type), n);
	memcpy(p, pay, n);
	return (size_t)(p - out) + n;
}

/* Decode one damaged record alone (strict): a clean KP_EFORMAT whose
 * offset lies inside it. */
static void expect_damage(const uint8_t *rec, size_t len, uint64_t base)
{
	struct kp_decoder *d = kp_decoder__new();
	struct kp_record r;
	struct kp_err e = { 0 };
	size_t used = 1;
	uint64_t off;
	int rc;

	kp_decoder__set_minor(d, 0);
	rc = kp_decoder__next(d, rec, len, base, &used, &r, &e);
	if (rc != KP_EFORMAT)
		fail_msg("damaged record decoded: rc %d, %zu bytes", rc, len);
	off = err_offset(&e);
	assert_true(off >= base && off <= base + len);
	assert_int_equal(used, 0);
	kp_decoder__free(d);
}

/* buf with record i (offs[i]..offs[i+1]) replaced by rep. */
static size_t splice(const uint8_t *buf, size_t len, const size_t *offs,
		     size_t i, const uint8_t *rep, size_t replen, uint8_t *out)
{
	memcpy(out, buf, offs[i]);
	memcpy(out + offs[i], rep, replen);
	memcpy(out + offs[i] + replen, buf + offs[i + 1], len - offs[i + 1]);
	return offs[i] + replen + len - offs[i + 1];
}

/* The damaged record i must stop decoding with an error inside it, after
 * every record before it came out intact. */
static void expect_stream_damage(const uint8_t *buf, size_t len,
				 const size_t *offs, size_t i,
				 const uint8_t *rep, size_t replen)
{
	static uint8_t s[8192];
	size_t slen = splice(buf, len, offs, i, rep, replen, s), nrec, end;
	struct kp_err e = { 0 };
	int rc = decode_all(s, slen, &nrec, &end, &e, NULL);
	uint64_t off;

	assert_int_equal(nrec, i);
	if (rc == 0) {		/* only a length that runs off the end */
		assert_true(end == offs[i] && end < slen);
		return;
	}
	assert_int_equal(rc, KP_EFORMAT);
	off = err_offset(&e);
	assert_true(off >= offs[i] && off <= offs[i] + replen);
}

static void test_corrupt_lengths(void **state)
{
	struct kp_record recs[16];
	static uint8_t buf[4096], rep[8192];
	size_t offs[17], n = every_type(recs), len, i, hdr, rl, k;
	const uint8_t *rec;
	uint64_t type, plen;

	len = build(recs, n, buf, sizeof(buf), offs);
	for (i = 0; i < n; i++) {
		uint64_t bad[6];

		rec = buf + offs[i];
		envelope_of(rec, offs[i + 1] - offs[i], &type, &hdr, &plen);
		k = kp_varint_len(type);
		bad[0] = 0;
		bad[1] = plen - 1;
		bad[2] = plen + 1;
		bad[3] = KP_STREAM_RECORD_MAX;
		bad[4] = 1ull << 40;
		bad[5] = UINT64_MAX;
		for (size_t j = 0; j < 6; j++) {
			rl = set_len(rec, offs[i + 1] - offs[i], bad[j], rep);
			if (j == 2) {	/* swallows the next byte: strict refuses */
				rep[rl] = 0;
				expect_damage(rep, rl + 1, offs[i]);
			} else {
				expect_damage(rep, rl, offs[i]);
			}
			expect_stream_damage(buf, len, offs, i, rep, rl);
		}
		/* A huge length is refused at the length field, unwaited. */
		rl = set_len(rec, offs[i + 1] - offs[i], KP_STREAM_RECORD_MAX, rep);
		{
			struct kp_decoder *d = kp_decoder__new();
			struct kp_err e = { 0 };
			struct kp_record r;
			size_t used;

			assert_int_equal(kp_decoder__next(d, rep, k + 4, 1000, &used,
							  &r, &e), KP_EFORMAT);
			assert_int_equal(err_offset(&e), 1000 + k);
			kp_decoder__free(d);
		}
	}
}

/* Offset (in rec) of the varint after skipping n varints from at. */
static size_t skip_varints(const uint8_t *rec, size_t at, int n)
{
	uint64_t v;

	while (n--)
		at += (size_t)kp_varint_get(rec + at, rec + at + 10, &v);
	return at;
}

static void damage_field(const uint8_t *buf, size_t len, const size_t *offs,
			 size_t i, size_t at, size_t flen, uint64_t good)
{
	const uint64_t vals[] = { 0, good - 1, good + 1, UINT32_MAX, 1ull << 40 };
	static uint8_t rep[8192];
	size_t j, rl;

	for (j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
		if (vals[j] == good)
			continue;
		rl = patch(buf + offs[i], offs[i + 1] - offs[i], at, flen, vals[j], rep);
		expect_damage(rep, rl, 5000);
		expect_stream_damage(buf, len, offs, i, rep, rl);
	}
}

static void test_corrupt_counts(void **state)
{
	struct kp_record recs[16];
	static uint8_t buf[4096];
	size_t offs[17], n = every_type(recs), len, at;
	const uint8_t *s, *t, *m;
	uint64_t v;

	len = build(recs, n, buf, sizeof(buf), offs);
	/* SAMPLE (record 5): 3 kernel, 2 user frames, 17 regs, 40 stack bytes. */
	assert_int_equal(recs[5].type, KP_REC_SAMPLE);
	s = buf + offs[5];
	at = skip_varints(s, 0, 12);			/* envelope + 10 fields */
	damage_field(buf, len, offs, 5, at, 1, 15);	/* comm length */
	at += 1 + 15;
	damage_field(buf, len, offs, 5, at, 1, 3);	/* kernel frames */
	at += 1 + 3 * 8;
	damage_field(buf, len, offs, 5, at, 1, 2);	/* user frames */
	at += 1 + 2 * 8;
	damage_field(buf, len, offs, 5, at, 1, 17);	/* registers */
	at += 1 + 17 * 8;
	damage_field(buf, len, offs, 5, at, 1, 40);	/* stack bytes */
	kp_varint_get(s + at, s + at + 1, &v);
	assert_int_equal(v, 40);
	/* SYMTAB (record 9): path, build-id, 3 symbols. */
	t = buf + offs[9];
	at = skip_varints(t, 0, 2);
	damage_field(buf, len, offs, 9, at, 1, 18);	/* path length */
	at += 1 + 18;
	damage_field(buf, len, offs, 9, at, 1, 20);	/* build-id length */
	at += 1 + 20;
	damage_field(buf, len, offs, 9, at, 1, 3);	/* symbol count */
	/* MMAP (record 2): its build-id length, a u8. */
	m = buf + offs[2];
	at = skip_varints(m, 0, 5) + 8;
	at = skip_varints(m, at, 8);
	assert_int_equal(m[at], 20);
	damage_field(buf, len, offs, 2, at, 1, 20);
}

/* ---- unknown types, versions, strings, varints ---- */

static size_t put_raw(uint8_t *p, uint64_t type, const void *pay, size_t n)
{
	uint8_t *q = kp_varint_put(kp_varint_put(p, type), n);

	memcpy(q, pay, n);
	return (size_t)(q - p) + n;
}

static void test_unknown_types(void **state)
{
	struct kp_record recs[16];
	static uint8_t buf[8192];
	size_t offs[17], n = every_type(recs), len = KP_STREAM_HEADER_LEN;
	size_t nrec, end, i;
	struct kp_decoder_stats st;
	struct kp_err e = { 0 };

	kp_stream_header_encode(buf);
	len += put_raw(buf + len, 42, "xyz", 3);
	for (i = 0; i < n; i++) {
		len += enc(&recs[i], buf + len, sizeof(buf) - len);
		if (i == 3)
			len += put_raw(buf + len, 0, "", 0);
		if (i == 5)
			len += put_raw(buf + len, 1000000, "future!", 7);
	}
	len += put_raw(buf + len, KP_REC_TYPE_MAX + 1, "\0\0\0", 3);
	assert_int_equal(decode_all(buf, len, &nrec, &end, &e, &st), 0);
	assert_int_equal(nrec, n);
	assert_int_equal(end, len);	/* the trailing unknown is consumed */
	assert_int_equal(st.records, n);
	assert_int_equal(st.unknown_skipped, 4);
	assert_int_equal(st.bytes, len - KP_STREAM_HEADER_LEN);
	/* An unknown record cut short is a cut, not a skip. */
	assert_int_equal(decode_all(buf, len - 1, &nrec, &end, &e, &st), 0);
	assert_int_equal(nrec, n);
	assert_int_equal(st.unknown_skipped, 3);
	assert_true(end < len - 1);
	(void)offs;
}

/* A reader that gets the stream in chunks of k bytes, keeps what __next
 * did not use and drops *used after every call, as a pipe reader does:
 * it must see the same records and counts as one that has it all. */
static void feed_in_chunks(const uint8_t *s, size_t len, size_t k,
			   size_t want_recs, uint64_t want_unknown)
{
	struct kp_decoder *d = kp_decoder__new();
	static uint8_t win[8192];
	size_t have = 0, in = KP_STREAM_HEADER_LEN, off = in, used, recs = 0;
	struct kp_decoder_stats st;
	struct kp_record r;
	struct kp_err e = { 0 };
	int rc;

	kp_decoder__set_minor(d, 0);
	while (in < len || have) {
		size_t add = len - in < k ? len - in : k;

		memcpy(win + have, s + in, add);
		have += add;
		in += add;
		do {
			rc = kp_decoder__next(d, win, have, off, &used, &r, &e);
			assert_true(rc >= 0);
			memmove(win, win + used, have - used);
			have -= used;
			off += used;
			recs += rc == 1;
		} while (rc == 1);
		if (in == len)
			break;
	}
	assert_int_equal(have, 0);
	assert_int_equal(off, len);
	assert_int_equal(recs, want_recs);
	kp_decoder__stats(d, &st);
	assert_int_equal(st.unknown_skipped, want_unknown);
	kp_decoder__free(d);
}

static void test_chunked_feed(void **state)
{
	struct kp_record recs[16];
	static uint8_t buf[8192];
	size_t n = every_type(recs), len = KP_STREAM_HEADER_LEN, i;
	const size_t ks[] = { 1, 2, 3, 7, 64, 4096 };

	kp_stream_header_encode(buf);
	for (i = 0; i < n; i++) {
		len += put_raw(buf + len, 77, "skip me", 7);
		len += enc(&recs[i], buf + len, sizeof(buf) - len);
	}
	len += put_raw(buf + len, 78, "", 0);
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		feed_in_chunks(buf, len, ks[i], n, n + 1);
}

/* A lenient decoder (later minor) ignores bytes after the fields it knows;
 * a strict one (known minor) refuses them. */
static void test_trailing_bytes(void **state)
{
	struct kp_record r = { .type = KP_REC_EXIT }, out;
	uint8_t rec[64], pay[64];
	struct kp_decoder *d = kp_decoder__new();
	struct kp_err e = { 0 };
	size_t n, used;

	r.exit = (struct kp_rec_exit){ 9, 10, 11 };
	n = enc(&r, rec, sizeof(rec));
	memcpy(pay, rec + 2, n - 2);
	memcpy(pay + n - 2, "new", 3);
	n = put_raw(rec, KP_REC_EXIT, pay, n - 2 + 3);
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &out, &e), 1);
	assert_int_equal(used, n);
	assert_int_equal(out.exit.tid, 11);
	kp_decoder__set_minor(d, KP_STREAM_MINOR + 1);	/* a later minor: lenient */
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &out, &e), 1);
	kp_decoder__set_minor(d, KP_STREAM_MINOR);
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &out, &e), KP_EFORMAT);
	assert_int_equal(err_offset(&e), n - 3);
	kp_decoder__free(d);
}

static void expect_bad_payload(uint32_t type, const void *pay, size_t n,
			       uint64_t want_off)
{
	uint8_t rec[8192];
	size_t len = put_raw(rec, type, pay, n);

	expect_damage(rec, len, 100);
	if (want_off != UINT64_MAX) {
		struct kp_decoder *d = kp_decoder__new();
		struct kp_err e = { 0 };
		struct kp_record r;
		size_t used;

		assert_int_equal(kp_decoder__next(d, rec, len, 100, &used, &r, &e),
				 KP_EFORMAT);
		assert_int_equal(err_offset(&e), 100 + (len - n) + want_off);
		assert_non_null(strstr(e.msg, " record: "));	/* names the type */
		kp_decoder__free(d);
	}
}

static void test_bad_strings(void **state)
{
	static uint8_t pay[8192];
	size_t n;

	/* THREAD: time 1, pid 2, tid 3, comm. */
	memcpy(pay, "\x01\x02\x03\x04" "a\0bc", 8);
	expect_bad_payload(KP_REC_THREAD, pay, 8, 5);	/* the NUL */
	memcpy(pay, "\x01\x02\x03\x10" "0123456789abcdef", 20);
	expect_bad_payload(KP_REC_THREAD, pay, 20, 3);	/* comm of 16 */
	memcpy(pay, "\x01\x02\x03\x0f" "0123456789abcde", 19);
	{	/* 15 is fine */
		uint8_t rec[64];
		size_t len = put_raw(rec, KP_REC_THREAD, pay, 19), used;
		struct kp_decoder *d = kp_decoder__new();
		struct kp_record r;

		assert_int_equal(kp_decoder__next(d, rec, len, 0, &used, &r, NULL), 1);
		assert_string_equal(r.thread.comm, "0123456789abcde");
		kp_decoder__free(d);
	}
	/* CGROUP: time 0, id 0, a path of 4097 bytes. */
	pay[0] = 0;
	pay[1] = 0;
	n = (size_t)(kp_varint_put(pay + 2, KP_PATH_MAX + 1) - pay);
	memset(pay + n, 'p', KP_PATH_MAX + 1);
	expect_bad_payload(KP_REC_CGROUP, pay, n + KP_PATH_MAX + 1, 2);
	/* SAMPLE comm with a NUL: ten 1-byte fields, then the comm. */
	memset(pay, 0, 10);
	memcpy(pay + 10, "\x03" "a\0b" "\0\0\0\0", 8);
	expect_bad_payload(KP_REC_SAMPLE, pay, 18, 12);
}

static void test_bad_varints(void **state)
{
	uint8_t pay[32], rec[32];
	struct kp_decoder *d = kp_decoder__new();
	struct kp_record r;
	struct kp_err e = { 0 };
	size_t used;

	/* EXIT time_ns as an 11-byte varint. */
	memset(pay, 0x80, 10);
	pay[10] = 0;
	memcpy(pay + 11, "\x01\x01", 2);
	expect_bad_payload(KP_REC_EXIT, pay, 13, 0);
	/* A 10th byte over 1 overflows 64 bits. */
	memset(pay, 0xff, 9);
	pay[9] = 2;
	expect_bad_payload(KP_REC_EXIT, pay, 12, 0);
	/* pid = 2^32 does not fit a varint32. */
	memcpy(pay, "\x01\x80\x80\x80\x80\x10\x01", 7);
	expect_bad_payload(KP_REC_EXIT, pay, 7, 1);
	/* An envelope type of 11 bytes is damage; one cut short is a cut. */
	memset(rec, 0x80, 11);
	assert_int_equal(kp_decoder__next(d, rec, 11, 50, &used, &r, &e), KP_EFORMAT);
	assert_int_equal(err_offset(&e), 50);
	assert_int_equal(kp_decoder__next(d, rec, 5, 50, &used, &r, &e), 0);
	assert_int_equal(used, 0);
	memcpy(rec, "\x04\x80\x80", 3);		/* length varint cut */
	assert_int_equal(kp_decoder__next(d, rec, 3, 50, &used, &r, &e), 0);
	assert_int_equal(kp_decoder__next(d, rec, 0, 50, &used, &r, &e), 0);
	kp_decoder__free(d);
}

/* SAMPLE's weight: 0 and over 32 bits are damage at the weight; bytes
 * after it are a later minor's (lenient) or damage (strict). */
static void test_bad_weight(void **state)
{
	struct kp_record in = rec_sample(1, 0, 0, 0), out;
	struct kp_decoder *d = kp_decoder__new();
	struct kp_err e = { 0 };
	uint8_t rec[256], pay[256];
	size_t n = enc(&in, rec, sizeof(rec)), p = n - 2, len, used;

	assert_int_equal(rec[1], p);		/* a one-byte length */
	memcpy(pay, rec + 2, p);
	pay[p] = 0;				/* weight 0 */
	len = put_raw(rec, KP_REC_SAMPLE, pay, p + 1);
	expect_bad_payload(KP_REC_SAMPLE, pay, p + 1, p);
	assert_int_equal(kp_decoder__next(d, rec, len, 0, &used, &out, &e), KP_EFORMAT);
	assert_non_null(strstr(e.msg, "weight 0"));
	memcpy(pay + p, "\x80\x80\x80\x80\x10", 5);	/* 2^32 */
	expect_bad_payload(KP_REC_SAMPLE, pay, p + 5, p);

	/* weight 7, no Python frames (minor 5: status 1, count 0), then a
	 * later field */
	memcpy(pay + p, "\x07\x01\x00" "new", 6);
	len = put_raw(rec, KP_REC_SAMPLE, pay, p + 6);
	kp_decoder__set_minor(d, KP_STREAM_MINOR + 1);
	assert_int_equal(kp_decoder__next(d, rec, len, 0, &used, &out, &e), 1);
	assert_int_equal(used, len);
	assert_int_equal(out.sample.weight, 7);
	kp_decoder__set_minor(d, KP_STREAM_MINOR);
	assert_int_equal(kp_decoder__next(d, rec, len, 0, &used, &out, &e), KP_EFORMAT);
	assert_int_equal(err_offset(&e), 2 + p + 3);
	kp_decoder__free(d);
}

/* OFFCPU: a count of 0 is refused by the encoder and the decoder. */
static void test_offcpu_count(void **state)
{
	struct kp_record in = rec_offcpu(1, 1, 1), out;
	struct kp_decoder *d = kp_decoder__new();
	struct kp_err e = { 0 };
	uint8_t rec[1024];
	size_t n = enc(&in, rec, sizeof(rec)), used;

	(void)state;
	/* the tail: count 1, state 2, waker_pid 200 (2 bytes), waker_tid
	 * UINT32_MAX (5), waker_comm (1 + 11) */
	assert_int_equal(rec[n - 21], 1);
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &out, &e), 1);
	assert_int_equal(out.offcpu.count, 1);
	rec[n - 21] = 0;
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &out, &e), KP_EFORMAT);
	assert_non_null(strstr(e.msg, "count 0"));
	assert_int_equal(err_offset(&e), n - 21);
	in.offcpu.count = 0;
	assert_int_equal(kp_record_encoded_size(&in), 0);
	kp_decoder__free(d);
}

/* Bit 7 of the flags (minor 7): an OFFCPU record's interrupt waker,
 * kept; not a bit before minor 7, nor ever in a SAMPLE record. */
static void test_waker_irq_flag(void **state)
{
	struct kp_record in = rec_offcpu(1, 1, 1), out;
	struct kp_decoder *d = kp_decoder__new();
	struct kp_err e = { 0 };
	uint8_t rec[1024];
	size_t n, used;

	(void)state;
	in.offcpu.s.flags |= KP_SAMPLE_WAKER_IRQ;
	n = enc(&in, rec, sizeof(rec));
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &out, &e), 1);
	assert_true(out.offcpu.s.flags & KP_SAMPLE_WAKER_IRQ);
	kp_decoder__set_minor(d, 6);
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &out, &e), 1);
	assert_false(out.offcpu.s.flags & KP_SAMPLE_WAKER_IRQ);
	kp_decoder__set_minor(d, KP_STREAM_MINOR);
	in = rec_sample(1, 2, 0, 0);
	in.sample.flags |= KP_SAMPLE_WAKER_IRQ;
	n = enc(&in, rec, sizeof(rec));
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &out, &e), 1);
	assert_false(out.sample.flags & KP_SAMPLE_WAKER_IRQ);
	kp_decoder__free(d);
}

/* Bit 8 of the flags (minor 10): a SAMPLE's speculative stack copy,
 * kept; not a bit before minor 10, nor ever in an OFFCPU record. */
static void test_spec_flag(void **state)
{
	struct kp_record in = rec_sample(1, 2, 0, 0), out;
	struct kp_decoder *d = kp_decoder__new();
	struct kp_err e = { 0 };
	uint8_t rec[1024];
	size_t n, used;

	(void)state;
	in.sample.flags |= KP_SAMPLE_SPEC;
	n = enc(&in, rec, sizeof(rec));
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &out, &e), 1);
	assert_true(out.sample.flags & KP_SAMPLE_SPEC);
	kp_decoder__set_minor(d, 9);
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &out, &e), 1);
	assert_false(out.sample.flags & KP_SAMPLE_SPEC);
	kp_decoder__set_minor(d, KP_STREAM_MINOR);
	in = rec_offcpu(1, 1, 1);
	in.offcpu.s.flags |= KP_SAMPLE_SPEC;
	n = enc(&in, rec, sizeof(rec));
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &out, &e), 1);
	assert_false(out.offcpu.s.flags & KP_SAMPLE_SPEC);
	kp_decoder__free(d);
}

static void test_unsorted_symbols(void **state)
{
	struct kp_record r = rec_symtab(3, syms3);
	uint8_t rec[256];
	size_t n = enc(&r, rec, sizeof(rec)), at;

	/* The second symbol's address is after envelope, path, build-id,
	 * count, the first symbol (8 + 1 + 5). Make it lower than the first. */
	at = 2 + 1 + 18 + 1 + 20 + 1 + 8 + 1 + 5;
	assert_int_equal(rec[at], 0x20);
	rec[at + 1] = 0x00;			/* 0x1020 -> 0x0020 */
	expect_damage(rec, n, 0);
}

static void test_roundtrip_code(void **state)
{
	struct kp_decoder *d = kp_decoder__new();
	uint8_t *buf = malloc(BIG);
	static uint8_t big[KP_CODE_MAX + 1];
	struct kp_record in = rec_code(), out;

	assert_non_null(buf);
	roundtrip(&in, &out, d, buf);
	assert_string_equal(out.code.path, "/usr/bin/div");
	assert_int_equal(out.code.build_id_len, KP_BUILD_ID_MAX);
	assert_int_equal(out.code.start, 0x1130);
	assert_int_equal(out.code.vaddr, 0x401130);
	assert_string_equal(out.code.name, "divloop");
	assert_int_equal(out.code.len, 9);
	assert_memory_equal(out.code.code, code9, 9);
	assert_int_equal(out.code.nr_strs, 2);
	assert_string_equal(out.code.strs[1], "inl_helper");
	assert_int_equal(out.code.nr_lines, 3);
	assert_memory_equal(out.code.lines, code_lines, sizeof(code_lines));
	/* the limits: KP_CODE_MAX bytes pass, one more does not */
	in.code.code = big;
	in.code.len = KP_CODE_MAX;
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.code.len, KP_CODE_MAX);
	in.code.len = KP_CODE_MAX + 1;
	assert_int_equal(kp_record_encode(&in, buf, BIG), -EINVAL);
	in.code.len = 0;
	assert_int_equal(kp_record_encode(&in, buf, BIG), -EINVAL);
	kp_decoder__free(d);
	free(buf);
}

/* in's encoding in a stream of minor old, which has not its last fields
 * (bytes after the last it knows: damage), and cut by its last byte in
 * this build's: both refused. */
static void refused_old_and_cut(struct kp_decoder *d, const struct kp_record *in,
				uint8_t *buf, uint16_t old)
{
	struct kp_record out;
	struct kp_err e = { 0 };
	size_t n = enc(in, buf, BIG), used;

	kp_decoder__set_minor(d, old);
	assert_int_equal(kp_decoder__next(d, buf, n, 0, &used, &out, &e), KP_EFORMAT);
	kp_decoder__set_minor(d, KP_STREAM_MINOR);
	assert_true(buf[1] > 1 && buf[1] < 0x80);	/* a one-byte payload length */
	buf[1]--;
	assert_int_equal(kp_decoder__next(d, buf, n - 1, 0, &used, &out, &e), KP_EFORMAT);
}

/* A CODE record's optional fields' test: a decoder, a buffer, rec_code()
 * in in, its size without them, and its round trip in out. */
struct code_case {
	struct kp_decoder *d;
	uint8_t *buf;
	struct kp_record in, out;
	size_t plain;
};

static void code_case(struct code_case *c)
{
	c->d = kp_decoder__new();
	c->buf = malloc(BIG);
	assert_non_null(c->d);
	assert_non_null(c->buf);
	c->in = rec_code();
	c->plain = kp_record_encoded_size(&c->in);
	roundtrip(&c->in, &c->out, c->d, c->buf);
}

/* Minor 8: a CODE record's first lines, written only when known, read
 * back, and refused when cut or in a stream of minor 7. */
static void test_code_start_lines(void **state)
{
	static const uint32_t sl[2] = { 0, 21 };
	struct code_case c;

	(void)state;
	code_case(&c);
	assert_int_equal(c.out.code.start_line, 0);
	assert_null(c.out.code.str_lines);
	c.in.code.str_lines = (const uint32_t[2]){ 0, 0 };
	assert_int_equal(kp_record_encoded_size(&c.in), c.plain);	/* none known */
	c.in.code.start_line = 7;
	c.in.code.str_lines = sl;
	assert_int_equal(kp_record_encoded_size(&c.in), c.plain + 3);
	roundtrip(&c.in, &c.out, c.d, c.buf);
	assert_int_equal(c.out.code.start_line, 7);
	assert_non_null(c.out.code.str_lines);
	assert_int_equal(c.out.code.str_lines[0], 0);
	assert_int_equal(c.out.code.str_lines[1], 21);
	/* minor 7 has no such fields; the last string's first line cut off */
	refused_old_and_cut(c.d, &c.in, c.buf, 7);
	kp_decoder__free(c.d);
	free(c.buf);
}

/* Minor 11: a CODE record's eh_frame (JIT code's CFI) and its address,
 * read back with the first lines written before it (zeros when none is
 * known); refused when empty, cut, too long or in a stream of minor 10. */
static void test_code_eh_frame(void **state)
{
	static const uint8_t eh[6] = { 0x14, 0, 0, 0, 0, 0 };
	static uint8_t big[KP_JIT_EH_MAX + 1];
	struct code_case c;

	(void)state;
	code_case(&c);
	assert_int_equal(c.out.code.eh_len, 0);
	assert_null(c.out.code.eh_frame);
	c.in.code.eh_frame = eh;
	c.in.code.eh_len = sizeof(eh);
	c.in.code.eh_vaddr = 0x7f0000001010ull;
	/* start_line and two str_lines (3 bytes), then 1 + 6 + 8 */
	assert_int_equal(kp_record_encoded_size(&c.in), c.plain + 3 + 1 + 6 + 8);
	roundtrip(&c.in, &c.out, c.d, c.buf);
	assert_int_equal(c.out.code.start_line, 0);
	assert_int_equal(c.out.code.eh_len, sizeof(eh));
	assert_memory_equal(c.out.code.eh_frame, eh, sizeof(eh));
	assert_true(c.out.code.eh_vaddr == 0x7f0000001010ull);
	assert_int_equal(c.out.code.len, 9);
	/* minor 10 has no such fields; eh_vaddr cut short */
	refused_old_and_cut(c.d, &c.in, c.buf, 10);
	/* the limits: KP_JIT_EH_MAX bytes pass, one more does not */
	c.in.code.eh_frame = big;
	c.in.code.eh_len = KP_JIT_EH_MAX;
	roundtrip(&c.in, &c.out, c.d, c.buf);
	assert_int_equal(c.out.code.eh_len, KP_JIT_EH_MAX);
	c.in.code.eh_len = KP_JIT_EH_MAX + 1;
	assert_int_equal(kp_record_encode(&c.in, c.buf, BIG), -EINVAL);
	c.in.code.eh_len = 1;
	c.in.code.eh_frame = NULL;
	assert_int_equal(kp_record_encode(&c.in, c.buf, BIG), -EINVAL);
	kp_decoder__free(c.d);
	free(c.buf);
}

/* A CODE record written field by field: lines[] as given, unchecked. */
static size_t raw_code(uint8_t *rec, uint32_t len, uint32_t nr_strs,
		       const char *str, const uint32_t (*lines)[4], uint32_t nl)
{
	uint8_t pl[256], *p = pl;

	p = kp_varint_put(p, 1);
	*p++ = 'x';
	*p++ = 0;			/* no build-id */
	p = kp_varint_put(p, 0x1000);
	p = kp_le64_put(p, 0x401000);
	p = kp_varint_put(p, 1);
	*p++ = 'f';
	p = kp_varint_put(p, len);
	memset(p, 0x90, len);
	p += len;
	p = kp_varint_put(p, nr_strs);
	for (uint32_t i = 0; i < nr_strs; i++) {
		p = kp_varint_put(p, strlen(str));
		memcpy(p, str, strlen(str));
		p += strlen(str);
	}
	p = kp_varint_put(p, nl);
	for (uint32_t i = 0; i < nl; i++)
		for (int k = 0; k < 4; k++)
			p = kp_varint_put(p, lines[i][k]);
	rec[0] = KP_REC_CODE;
	rec[1] = (uint8_t)(p - pl);
	memcpy(rec + 2, pl, (size_t)(p - pl));
	return (size_t)(p - pl) + 2;
}

static void test_bad_code(void **state)
{
	static const uint32_t ok[2][4] = { { 0, 1, 3, 0 }, { 2, 0, 0, 1 } };
	static const uint32_t order[2][4] = { { 2, 1, 3, 0 }, { 2, 0, 0, 0 } };
	static const uint32_t past[1][4] = { { 4, 1, 3, 0 } };
	static const uint32_t file[1][4] = { { 0, 2, 3, 0 } };
	static const uint32_t inl[1][4] = { { 0, 0, 0, 2 } };
	struct kp_decoder *d = kp_decoder__new();
	struct kp_err e = { 0 };
	struct kp_record r;
	uint8_t rec[300];
	size_t n, used;

	(void)state;
	n = raw_code(rec, 4, 1, "a.c", ok, 2);
	assert_int_equal(kp_decoder__next(d, rec, n, 0, &used, &r, &e), 1);
	assert_int_equal(r.code.lines[1].inlined, 1);
	kp_decoder__free(d);
	expect_damage(rec, raw_code(rec, 4, 1, "a.c", order, 2), 0);
	expect_damage(rec, raw_code(rec, 4, 1, "a.c", past, 1), 0);
	expect_damage(rec, raw_code(rec, 4, 1, "a.c", file, 1), 0);
	expect_damage(rec, raw_code(rec, 4, 1, "a.c", inl, 1), 0);
	expect_damage(rec, raw_code(rec, 0, 1, "a.c", NULL, 0), 0);	/* no code */
	expect_damage(rec, raw_code(rec, 4, 1, "", NULL, 0), 0);	/* empty string */
	expect_damage(rec, raw_code(rec, 1, 1, "a.c", ok, 2), 0);	/* more lines than bytes */
}

/* Minor 5: Python frames of a sample and the PYCODE record, round trip
 * and the decoder's checks. */
static void test_python(void **state)
{
	static uint64_t pf[2 * KP_MAX_PYFRAMES + 2];
	static const uint8_t lt[] = { 0xf8, 0x01, 0x80 };
	struct kp_decoder *d = kp_decoder__new();
	static uint8_t buf[BIG];
	struct kp_record in = rec_sample(2, 1, 0, 0), out, c;
	struct kp_err e = { 0 };
	size_t n, used;

	(void)state;
	assert_non_null(d);
	for (int i = 0; i < 2 * KP_MAX_PYFRAMES + 2; i += 2) {
		pf[i] = 0x7f0000001000ull + (uint64_t)i;
		pf[i + 1] = (uint64_t)i | KP_PYF_ENTRY | 0xabcdefull << 40;
	}
	in.sample.py_status = KP_PY_TRUNC;
	in.sample.nr_pyframes = KP_MAX_PYFRAMES;
	in.sample.pyframes = pf;
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.sample.weight, 1);
	assert_int_equal(out.sample.py_status, KP_PY_TRUNC);
	assert_int_equal(out.sample.nr_pyframes, KP_MAX_PYFRAMES);
	assert_memory_equal(out.sample.pyframes, pf, 16 * KP_MAX_PYFRAMES);
	c = (struct kp_record){ .type = KP_REC_PYCODE };
	c.pycode = (struct kp_rec_pycode){ 5, 42, 0x7f0000001000ull, 0xabcdef, 0x30b,
		17, "C.m.<locals>.f", "/a/b.py", sizeof(lt), lt };
	roundtrip(&c, &out, d, buf);
	assert_string_equal(out.pycode.qualname, "C.m.<locals>.f");
	assert_string_equal(out.pycode.filename, "/a/b.py");
	assert_int_equal(out.pycode.token, 0xabcdef);
	assert_int_equal(out.pycode.firstlineno, 17);
	assert_memory_equal(out.pycode.linetable, lt, sizeof(lt));
	/* the encoder refuses: frames without a status, too many, a
	 * reserved bit, a token over 24 bits */
	in.sample.nr_pyframes = KP_MAX_PYFRAMES + 1;
	assert_int_equal(kp_record_encoded_size(&in), 0);
	in.sample.nr_pyframes = 1;
	in.sample.py_status = KP_PY_NONE;
	assert_int_equal(kp_record_encoded_size(&in), 0);
	in.sample.py_status = KP_PY_OK;
	pf[1] |= 1ull << 33;
	assert_int_equal(kp_record_encoded_size(&in), 0);
	pf[1] &= ~(1ull << 33);
	c.pycode.token = 1u << 24;
	assert_int_equal(kp_record_encoded_size(&c), 0);
	/* the decoder refuses the same: a reserved bit, status 0, 5 */
	n = enc(&in, buf, BIG);
	buf[n - 4] |= 0x02;
	assert_true(kp_decoder__next(d, buf, n, 0, &used, &out, &e) < 0);
	assert_non_null(strstr(e.msg, "reserved bits"));
	n = enc(&in, buf, BIG);
	buf[n - 18] = 0;	/* the status, before the count and one frame */
	assert_true(kp_decoder__next(d, buf, n, 0, &used, &out, &e) < 0);
	assert_non_null(strstr(e.msg, "Python status 0"));
	buf[n - 18] = 5;
	assert_true(kp_decoder__next(d, buf, n, 0, &used, &out, &e) < 0);
	/* a stream of minor 2: no Python fields, trailing bytes are damage */
	n = enc(&in, buf, BIG);
	kp_decoder__set_minor(d, 2);
	assert_true(kp_decoder__next(d, buf, n, 0, &used, &out, &e) < 0);
	kp_decoder__free(d);
}

/* Minor 12: JITGEN, and the owner of a SYMTAB of anonymous code. */
static void test_jitgen(void **state)
{
	static const uint8_t zero_pid[] = { 9, 0, 0xe8, 0x07, 1 };
	static const uint8_t zero_gen[] = { 9, 100, 0xe8, 0x07, 0 };
	struct kp_decoder *d = kp_decoder__new();
	static uint8_t buf[BIG];
	struct kp_record in = { .type = KP_REC_JITGEN }, out;
	struct kp_err e = { 0 };
	size_t n, used;

	(void)state;
	assert_non_null(d);
	in.jitgen = (struct kp_rec_jitgen){ 1ull << 40, { 4242, 1ull << 35, 3 } };
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.jitgen.time_ns, 1ull << 40);
	assert_int_equal(out.jitgen.owner.pid, 4242);
	assert_int_equal(out.jitgen.owner.start_ns, 1ull << 35);
	assert_int_equal(out.jitgen.owner.gen, 3);
	in.jitgen.owner.gen = 0;	/* the encoder refuses gen 0, pid 0 */
	assert_int_equal(kp_record_encoded_size(&in), 0);
	in.jitgen.owner = (struct kp_jit_owner){ 0, 1, 1 };
	assert_int_equal(kp_record_encoded_size(&in), 0);
	expect_bad_payload(KP_REC_JITGEN, zero_pid, sizeof(zero_pid), 1);
	expect_bad_payload(KP_REC_JITGEN, zero_gen, sizeof(zero_gen), 4);

	in = rec_symtab(3, syms3);
	in.symtab.path = "//anon";
	in.symtab.build_id_len = 0;
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.symtab.owner.pid, 0);	/* none */
	in.symtab.owner = (struct kp_jit_owner){ 77, 123456789, 2 };
	roundtrip(&in, &out, d, buf);
	assert_int_equal(out.symtab.nr_syms, 3);
	assert_int_equal(out.symtab.owner.pid, 77);
	assert_int_equal(out.symtab.owner.start_ns, 123456789);
	assert_int_equal(out.symtab.owner.gen, 2);
	/* a stream of minor 11 has no owner: those bytes are damage */
	n = enc(&in, buf, BIG);
	kp_decoder__set_minor(d, 11);
	assert_true(kp_decoder__next(d, buf, n, 0, &used, &out, &e) < 0);
	assert_non_null(strstr(e.msg, "after the last field"));
	/* an owner pid of 0 is malformed */
	kp_decoder__set_minor(d, KP_STREAM_MINOR);
	in.symtab.owner.pid = 0;
	n = enc(&in, buf, BIG);
	buf[n++] = 0;	/* pid 0, start 0, gen 0 appended */
	buf[n++] = 0;
	buf[n++] = 0;
	buf[1] += 3;	/* the payload length (one byte: it is short) */
	assert_true(kp_decoder__next(d, buf, n, 0, &used, &out, &e) < 0);
	assert_non_null(strstr(e.msg, "owner pid is 0"));
	kp_decoder__free(d);
}

static void test_decoder_free_null(void **state)
{
	struct kp_decoder_stats st = { 1, 2, 3 };

	kp_decoder__free(NULL);
	kp_decoder__stats(NULL, &st);
	assert_int_equal(st.records, 1);
}

/* ---- CRC32C, blocks, END ---- */

static void test_crc32c(void **state)
{
	static uint8_t b[1024];

	(void)state;
	assert_int_equal(kp_crc32c(0, "123456789", 9), 0xe3069283);
	assert_int_equal(kp_crc32c_sw(0, "123456789", 9), 0xe3069283);
	assert_int_equal(kp_crc32c(kp_crc32c(0, "1234", 4), "56789", 5), 0xe3069283);
	assert_int_equal(kp_crc32c(0, "", 0), 0);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 131 + (i >> 3));
	for (size_t off = 0; off < 9; off++)
		for (size_t len = 0; len + off <= sizeof(b); len += 37)
			assert_int_equal(kp_crc32c(0, b + off, len),
					 kp_crc32c_sw(0, b + off, len));
}

static void test_end_limits(void **state)
{
	static uint64_t counts[KP_END_MAX_TYPES + 1];
	struct kp_record r = { .type = KP_REC_END }, out;
	struct kp_decoder *d = kp_decoder__new();
	struct kp_err e = { 0 };
	uint8_t buf[4096], pay[512];
	size_t n, used, plen = 0;

	(void)state;
	assert_non_null(d);
	r.end = (struct kp_rec_end){ 5, KP_END_MAX_TYPES, counts };
	n = enc(&r, buf, sizeof(buf));
	assert_int_equal(kp_decoder__next(d, buf, n, 0, &used, &out, &e), 1);
	assert_int_equal(out.end.nr_types, KP_END_MAX_TYPES);
	r.end.nr_types++;
	assert_int_equal(kp_record_encode(&r, buf, sizeof(buf)), -EINVAL);
	/* 256 counts on the wire: malformed at the count */
	pay[plen++] = 5;
	plen = (size_t)(kp_varint_put(pay + plen, KP_END_MAX_TYPES + 1) - pay);
	memset(pay + plen, 0, KP_END_MAX_TYPES + 1);
	plen += KP_END_MAX_TYPES + 1;
	n = (size_t)(kp_varint_put(kp_varint_put(buf, KP_REC_END), plen) - buf);
	memcpy(buf + n, pay, plen);
	assert_int_equal(kp_decoder__next(d, buf, n + plen, 100, &used, &out, &e),
			 KP_EFORMAT);
	assert_int_equal(err_offset(&e), 100 + n + 1);
	kp_decoder__free(d);
}

/* A stream written in blocks of at least block bytes; *nblocks of them. */
static size_t build_blocks(uint8_t *buf, size_t cap, uint64_t block, int *nblocks)
{
	struct kp_record recs[16];
	struct kp_stream_sum sum;
	size_t n = every_type(recs) - 2, len = KP_STREAM_HEADER_LEN;

	kp_stream_header_encode(buf);
	kp_stream_sum__init(&sum, block);
	kp_stream_sum__bytes(&sum, buf, len);
	*nblocks = 1;
	for (size_t i = 0; i < n; i++) {
		size_t k = enc(&recs[i], buf + len, cap - len);

		kp_stream_sum__count(&sum, &recs[i]);
		kp_stream_sum__bytes(&sum, buf + len, k);
		len += k;
		if (kp_stream_sum__due(&sum)) {
			len += kp_stream_sum__check(&sum, buf + len);
			++*nblocks;
		}
	}
	return len + kp_stream_sum__end(&sum, buf + len);
}

/* Walk the blocks of buf; returns how many were sound, *end where the
 * walk stopped, the last rc in *rc. */
static int walk_blocks(const uint8_t *buf, size_t len, size_t *end, int *rc)
{
	struct kp_err e = { 0 };
	size_t pos = 0, skip = KP_STREAM_HEADER_LEN, blen;
	int n = 0;

	while (pos < len) {
		*rc = kp_stream_block(buf + pos, len - pos, skip, pos,
				      KP_STREAM_MINOR, &blen, &e);
		if (*rc != 1)
			break;
		assert_true(blen > skip && blen <= len - pos);
		pos += blen;
		skip = 0;
		n++;
	}
	*end = pos;
	return n;
}

static void test_blocks(void **state)
{
	static uint8_t buf[BIG];
	struct kp_stream_tally t = { 0 }, t0 = { 0 };
	uint64_t counts[KP_REC_TYPE_MAX];
	struct kp_rec_end end_rec = { 0 };
	struct kp_decoder *d = kp_decoder__new();
	struct kp_record r;
	struct kp_err e = { 0 };
	size_t len, end, off = KP_STREAM_HEADER_LEN, used;
	int nb, rc = 0;

	(void)state;
	assert_non_null(d);
	len = build_blocks(buf, sizeof(buf), 64, &nb);
	assert_true(nb >= 3);
	assert_int_equal(walk_blocks(buf, len, &end, &rc), nb);
	assert_int_equal(end, len);
	/* The END record agrees with the records before it. */
	while (kp_decoder__next(d, buf + off, len - off, off, &used, &r, &e) == 1) {
		if (r.type == KP_REC_END) {
			assert_int_equal(kp_stream_tally__check(&t, &r.end, off, &e), 0);
			assert_true(r.end.nr_types <= KP_REC_TYPE_MAX);
			memcpy(counts, r.end.counts, r.end.nr_types * sizeof(*counts));
			end_rec = r.end;
			end_rec.counts = counts;
			t0 = t;
		}
		kp_stream_tally__add(&t, &r);
		off += used;
	}
	assert_int_equal(off, len);
	assert_int_equal(t.counts[KP_REC_CHECK - 1], nb);
	assert_int_equal(t.counts[KP_REC_END - 1], 1);
	t0.counts[KP_REC_SAMPLE - 1]++;
	assert_int_equal(kp_stream_tally__check(&t0, &end_rec, 77, &e), KP_EFORMAT);
	assert_non_null(strstr(e.msg, "offset 77: END record: 1 SAMPLE records, "
			       "but the file holds 2"));
	/* A stream cut anywhere: the blocks before the cut are sound, the one
	 * it cuts is not whole (0); only the END record's absence tells a cut
	 * at a block boundary (the reader's check). */
	for (size_t cut = 0; cut < len; cut++) {
		int whole = walk_blocks(buf, cut, &end, &rc);

		assert_true(end <= cut);
		assert_true(rc == 0 || (rc == 1 && end == cut && whole < nb));
	}
	/* Any byte changed: a walk over the whole file never gets through. */
	for (size_t i = 0; i < len; i++) {
		for (int x = 1; x < 256; x <<= 1) {
			buf[i] ^= (uint8_t)x;
			walk_blocks(buf, len, &end, &rc);
			assert_true(end < len || rc != 1);
			assert_true(end <= i);
			buf[i] ^= (uint8_t)x;
		}
	}
	kp_decoder__free(d);
}

/* A block longer than KP_STREAM_BLOCK_MAX without its CHECK is damage as
 * soon as a record's envelope makes it so, before its payload is read. */
static void test_block_too_long(void **state)
{
	static uint8_t buf[KP_STREAM_BLOCK + 4096];
	struct kp_err e = { 0 };
	size_t at = KP_STREAM_BLOCK + 100, n, blen;

	(void)state;
	n = (size_t)(kp_varint_put(kp_varint_put(buf + at, 42),
				   KP_STREAM_RECORD_MAX - 8) - buf);
	assert_int_equal(kp_stream_block(buf, n, at, 1000, KP_STREAM_MINOR, &blen, &e),
			 KP_EFORMAT);
	assert_int_equal(err_offset(&e), 1000 + at);
	assert_non_null(strstr(e.msg, "no CHECK record"));
	/* the same record at the start of a block: wait for its bytes */
	n = (size_t)(kp_varint_put(kp_varint_put(buf, 42), KP_STREAM_RECORD_MAX - 8) - buf);
	assert_int_equal(kp_stream_block(buf, n, 0, 0, KP_STREAM_MINOR, &blen, &e), 0);
}

/* META's event fields (minor 4, optional): page-faults every 100 and a
 * fallback round-trip; cpu-clock at a frequency writes none (NULL or
 * "cpu-clock" alike) and reads back as "", in minor 2 too; a META cut
 * inside them is refused; a name over 63 bytes is not encoded. */
static void test_meta_event(void **state)
{
	struct kp_decoder *d = kp_decoder__new();
	uint8_t *buf = malloc(BIG);
	struct kp_record in = rec_meta(), old = rec_meta(), out;
	struct kp_err e = { 0 };
	char name[KP_EVENT_NAME_MAX + 2];
	size_t n, n0, used;

	(void)state;
	assert_non_null(buf);
	n0 = enc(&in, buf, BIG);
	in.meta.event = "cpu-clock";
	assert_int_equal(enc(&in, buf, BIG), n0);
	in.meta.event = "page-faults";
	in.meta.period = 100;
	roundtrip(&in, &out, d, buf);
	assert_string_equal(out.meta.event, "page-faults");
	assert_int_equal(out.meta.period, 100);
	assert_string_equal(out.meta.event_asked, "");
	in.meta.event = "cpu-clock";
	in.meta.event_asked = "cycles";
	in.meta.period = 0;
	n = enc(&in, buf, BIG);
	assert_int_equal(n, n0 + 1 + 9 + 1 + 1 + 6);
	roundtrip(&in, &out, d, buf);
	assert_string_equal(out.meta.event, "cpu-clock");
	assert_string_equal(out.meta.event_asked, "cycles");
	assert_int_equal(out.meta.period, 0);
	/* a minor-2 reader does not look for them */
	kp_decoder__set_minor(d, 2);
	n = enc(&old, buf, BIG);
	assert_int_equal(kp_decoder__next(d, buf, n, 0, &used, &out, &e), 1);
	assert_string_equal(out.meta.event, "");
	/* cut before event_asked */
	kp_decoder__set_minor(d, KP_STREAM_MINOR);
	n = enc(&in, buf, BIG);
	buf[1] -= 7;	/* event_asked: 1 + 6 bytes */
	assert_true(kp_decoder__next(d, buf, n - 7, 0, &used, &out, &e) < 0);
	memset(name, 'e', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';	/* 64 bytes */
	in.meta.event = name;
	assert_int_equal(kp_record_encoded_size(&in), 0);
	kp_decoder__free(d);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_end_limits),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_block_too_long),
		cmocka_unit_test(test_roundtrip_small),
		cmocka_unit_test(test_roundtrip_sample_limits),
		cmocka_unit_test(test_roundtrip_weight),
		cmocka_unit_test(test_meta_event),
		cmocka_unit_test(test_roundtrip_paths_symbols),
		cmocka_unit_test(test_encode_invalid),
		cmocka_unit_test(test_encode_enospc),
		cmocka_unit_test(test_truncation_every_byte),
		cmocka_unit_test(test_corrupt_lengths),
		cmocka_unit_test(test_corrupt_counts),
		cmocka_unit_test(test_unknown_types),
		cmocka_unit_test(test_chunked_feed),
		cmocka_unit_test(test_trailing_bytes),
		cmocka_unit_test(test_bad_strings),
		cmocka_unit_test(test_bad_varints),
		cmocka_unit_test(test_bad_weight),
		cmocka_unit_test(test_offcpu_count),
		cmocka_unit_test(test_waker_irq_flag),
		cmocka_unit_test(test_spec_flag),
		cmocka_unit_test(test_unsorted_symbols),
		cmocka_unit_test(test_decoder_free_null),
		cmocka_unit_test(test_roundtrip_code),
		cmocka_unit_test(test_code_start_lines),
		cmocka_unit_test(test_code_eh_frame),
		cmocka_unit_test(test_bad_code),
		cmocka_unit_test(test_python),
		cmocka_unit_test(test_jitgen),
	};

	fill_fixtures();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
