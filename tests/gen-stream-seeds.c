// SPDX-License-Identifier: GPL-2.0-only
/* gen-stream-seeds.c — writes the seed corpus of the stream fuzz target.
 *
 * Usage: tests/gen-stream-seeds DIR   (e.g. fuzz/corpus/stream)
 * Writes small stream files into DIR: one with every record type, records
 * at their limits, a symbol table, unknown record types, weighted runs of
 * idle samples, a later minor version with a longer header and extra
 * fields, a cut stream, damaged
 * lengths and counts; off-CPU records (minor 4), cut and damaged;
 * a file in blocks with its END record (minor 2),
 * one with a changed byte, one whose END counts are off; CODE records
 * (minor 3), whole and with a line out of order; a symbol table with
 * functions without a name (minor 6); an off-CPU interval an interrupt
 * ended (minor 7). Deterministic: the same bytes on every run. Not run
 * by make check; the files it wrote are checked in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/stream.h"
#include "stream/stream-blk.h"

#define CAP (1u << 20)

struct out {
	uint8_t *buf;
	size_t len;
};

static uint64_t frames[KP_MAX_FRAMES];
static uint8_t stack[4096];
static uint64_t pyframes[2 * KP_MAX_PYFRAMES];
static uint8_t linetable[KP_PY_LINETABLE_MAX];
static char path4096[KP_PATH_MAX + 1];

static int add(struct out *o, const struct kp_record *r)
{
	ssize_t n = kp_record_encode(r, o->buf + o->len, CAP - o->len);

	if (n < 0) {
		fprintf(stderr, "gen-stream-seeds: encode type %u: %s\n", r->type,
			strerror((int)-n));
		return (int)n;
	}
	o->len += (size_t)n;
	return 0;
}

static void raw(struct out *o, const void *p, size_t n)
{
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void header(struct out *o)
{
	o->len = 0;
	kp_stream_header_encode(o->buf);
	o->len = KP_STREAM_HEADER_LEN;
}

static int save(const struct out *o, const char *dir, const char *name, size_t len)
{
	char path[4096];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(o->buf, 1, len, f) != len)
		rc = -errno;
	if (f && fclose(f))
		rc = -errno;
	if (rc)
		fprintf(stderr, "gen-stream-seeds: %s: %s\n", path, strerror(-rc));
	return rc;
}

static struct kp_record meta(void)
{
	struct kp_record r = { .type = KP_REC_META };

	r.meta = (struct kp_rec_meta){ "0.1.0", "6.18.0", "seedhost", "x86_64",
		99, 2, 1000000000, 1764680000000000000ull, 4096, 3, NULL, 0, NULL };
	return r;
}

static struct kp_record sample(uint64_t t, int kn, int un, int regs, uint32_t stk)
{
	struct kp_record r = { .type = KP_REC_SAMPLE };
	int i;

	r.sample = (struct kp_rec_sample){ .time_ns = t, .cgroup_id = 7, .cpu = 1,
		.pid = 100, .tid = 101, .gpid = 100, .gtid = 101,
		.flags = KP_SAMPLE_USER_MODE, .kerr = 0, .uerr = -14,
		.comm = "worker", .nr_kframes = (uint16_t)kn, .kframes = frames,
		.nr_uframes = (uint16_t)un, .uframes = frames + 1,
		.nr_regs = (uint8_t)regs, .stack_len = stk, .stack = stack };
	for (i = 0; i < regs; i++)
		r.sample.regs[i] = 0x7ffc00000000ull + (uint64_t)i * 8;
	if (regs)
		r.sample.flags |= KP_SAMPLE_REGS;
	return r;
}

/* An off-CPU interval (minor 4) with the stacks of sample(). */
static struct kp_record offcpu(uint64_t t, int kn, int un, int regs, uint32_t stk)
{
	struct kp_record r = { .type = KP_REC_OFFCPU };

	r.offcpu.s = sample(t, kn, un, regs, stk).sample;
	r.offcpu.s.flags &= ~KP_SAMPLE_USER_MODE;
	r.offcpu.off_ns = 10000000;
	r.offcpu.count = 1;
	r.offcpu.state = KP_OFF_SLEEP;
	r.offcpu.waker_pid = r.offcpu.waker_tid = 200;
	strcpy(r.offcpu.waker_comm, "feeder");
	return r;
}

/* Every record type once; returns the offset where the SAMPLE starts. */
static int every_type(struct out *o, size_t *sample_at)
{
	static const struct kp_symbol syms[] = {
		{ 0x1000, 0x40, "main" }, { 0x1040, 0x10, "_ZN3foo3barEv" } };
	struct kp_record r[11];
	int i, rc = 0;

	r[0] = meta();
	r[1] = (struct kp_record){ .type = KP_REC_PROCESS, .process = { 1, 2, 100,
		1, 100, 1000, KP_PROC_SNAPSHOT, "bash", "/usr/bin/bash" } };
	r[2] = (struct kp_record){ .type = KP_REC_MMAP, .mmap = { 3, 100, 100,
		0x400000, 0x1000, 0, 5, 2, 8, 1, 42, 0, 4, { 0xde, 0xad, 0xbe, 0xef },
		"/usr/bin/bash" } };
	r[3] = (struct kp_record){ .type = KP_REC_THREAD, .thread = { 4, 100, 101, "worker" } };
	r[4] = (struct kp_record){ .type = KP_REC_CGROUP, .cgroup = { 5, 7, "/user.slice" } };
	r[5] = sample(6, 2, 3, 0, 0);
	r[6] = (struct kp_record){ .type = KP_REC_EXEC, .exec = { 7, 100, 101, "ls", "/usr/bin/ls" } };
	r[7] = (struct kp_record){ .type = KP_REC_LOST, .lost = { 8, KP_LOST_BPF_FULL, 0, 3 } };
	r[8] = (struct kp_record){ .type = KP_REC_EXIT, .exit = { 9, 100, 100 } };
	r[9] = (struct kp_record){ .type = KP_REC_SYMTAB, .symtab = { "/usr/bin/bash",
		4, { 0xde, 0xad, 0xbe, 0xef }, 2, syms } };
	r[10] = offcpu(10, 3, 2, 0, 0);
	for (i = 0; i < 11 && !rc; i++) {
		if (i == 5)
			*sample_at = o->len;
		rc = add(o, &r[i]);
	}
	return rc;
}

/* Records as a saver writes them: counted, checksummed, a CHECK record
 * where a block of 64 bytes or more is due. */
static int add_blocked(struct out *o, struct kp_stream_sum *sum,
		       const struct kp_record *r)
{
	size_t at = o->len;
	int rc = add(o, r);

	if (rc)
		return rc;
	kp_stream_sum__count(sum, r);
	kp_stream_sum__bytes(sum, o->buf + at, o->len - at);
	if (kp_stream_sum__due(sum))
		o->len += kp_stream_sum__check(sum, o->buf + o->len);
	return 0;
}

/* META, samples and an EXIT in blocks, then END and its CHECK; skew is
 * added to END's count of SAMPLE records. *exit_at: where the EXIT is. */
static int blocks_stream(struct out *o, uint64_t skew, size_t *exit_at)
{
	struct kp_stream_sum sum;
	struct kp_record r;
	int i, rc;

	header(o);
	kp_stream_sum__init(&sum, 64);
	kp_stream_sum__bytes(&sum, o->buf, o->len);
	r = meta();
	if ((rc = add_blocked(o, &sum, &r)))
		return rc;
	for (i = 0; i < 6; i++) {
		r = sample(300 + (uint64_t)i, 2, 2, i == 5 ? KP_MAX_REGS : 0,
			   i == 5 ? 64 : 0);
		if ((rc = add_blocked(o, &sum, &r)))
			return rc;
	}
	*exit_at = o->len;
	r = (struct kp_record){ .type = KP_REC_EXIT, .exit = { 9, 100, 100 } };
	if ((rc = add_blocked(o, &sum, &r)))
		return rc;
	sum.t.counts[KP_REC_SAMPLE - 1] += skew;
	o->len += kp_stream_sum__end(&sum, o->buf + o->len);
	return 0;
}

static int blocks(struct out *o, const char *dir)
{
	size_t at = 0;
	int rc;

	if ((rc = blocks_stream(o, 0, &at)) || (rc = save(o, dir, "blocks", o->len)))
		return rc;
	o->buf[at + 3] ^= 0x10;		/* the EXIT's pid */
	if ((rc = save(o, dir, "blocks-bad-crc", o->len)))
		return rc;
	if ((rc = blocks_stream(o, 1, &at)))
		return rc;
	return save(o, dir, "end-counts-off", o->len);
}

/* A CODE record (minor 3) after a sample; then the same with its second
 * line entry's offset below the first's; then one with first lines
 * (minor 8). */
/* Minor 11: JIT code with its call frame information, as a jitdump's
 * unwinding record gives it: a CIE (CFA rsp + 8, the return address at
 * CFA - 8) and an FDE for the 16 bytes at 0x7f1200001000 (CFA rsp + 32
 * after its 4-byte "sub $24,%rsp"), laid out after the code. */
static int code_eh(struct out *o, const char *dir)
{
	static const uint8_t jit[16] = { 0x48, 0x83, 0xec, 0x18, 0x90, 0x90, 0x90, 0x90,
					 0x90, 0x90, 0x90, 0x90, 0x48, 0x83, 0xc4, 0x18 };
	static const uint8_t eh[48] = {
		0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b,
		0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0,		/* CIE */
		0x14, 0, 0, 0, 0x1c, 0, 0, 0, 0xd0, 0xff, 0xff, 0xff, 16, 0, 0, 0,
		0, 0x44, 0x0e, 0x20, 0, 0, 0, 0,		/* FDE */
	};
	struct kp_record r = meta();
	int rc;

	header(o);
	if ((rc = add(o, &r)))
		return rc;
	r = (struct kp_record){ .type = KP_REC_CODE, .code = { .path = "//anon",
		.start = 0x1000, .vaddr = 0x7f1200001000ull, .name = "jit_tramp",
		.len = sizeof(jit), .code = jit, .eh_len = sizeof(eh), .eh_frame = eh,
		.eh_vaddr = 0x7f1200001010ull } };
	if ((rc = add(o, &r)))
		return rc;
	return save(o, dir, "code-eh-frame", o->len);
}

static int code(struct out *o, const char *dir)
{
	static const uint8_t bytes[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x99, 0x48,
		0xf7, 0xf9, 0xeb, 0xf9, 0x5d, 0xc3 };
	static const char *const strs[] = { "/src/div.c", "helper" };
	static const struct kp_code_line lines[] = {
		{ 0, 1, 3, 0 }, { 4, 1, 5, 2 }, { 9, 1, 6, 0 }, { 11, 0, 0, 0 } };
	static const uint32_t str_lines[] = { 0, 14 };
	struct kp_record r = meta();
	size_t at;
	int rc;

	header(o);
	if ((rc = add(o, &r)))
		return rc;
	r = sample(20, 1, 2, 0, 0);
	if ((rc = add(o, &r)))
		return rc;
	at = o->len;
	r = (struct kp_record){ .type = KP_REC_CODE, .code = { "/usr/bin/bash",
		4, { 0xde, 0xad, 0xbe, 0xef }, 0x1000, 0x401000, "divloop",
		sizeof(bytes), bytes, 2, strs, 4, lines } };
	if ((rc = add(o, &r)) || (rc = save(o, dir, "code", o->len)))
		return rc;
	/* the second entry's offset (4) after envelope 2, path 14, build-id
	 * 5, start 2, vaddr 8, name 8, code 14, strings 1 + 11 + 7, count 1,
	 * the first entry 4 */
	at += 2 + 14 + 5 + 2 + 8 + 8 + 14 + 1 + 11 + 7 + 1 + 4;
	if (o->buf[at] != 4)
		return -EINVAL;
	o->buf[at] = 0;
	if ((rc = save(o, dir, "code-line-order", o->len)))
		return rc;
	/* minor 8: the function's first line and the inlined helper's */
	header(o);
	r = meta();
	if ((rc = add(o, &r)))
		return rc;
	r = (struct kp_record){ .type = KP_REC_CODE, .code = { "/usr/bin/bash",
		4, { 0xde, 0xad, 0xbe, 0xef }, 0x1000, 0x401000, "divloop",
		sizeof(bytes), bytes, 2, strs, 4, lines, 2, str_lines } };
	if ((rc = add(o, &r)))
		return rc;
	if ((rc = save(o, dir, "code-start-lines", o->len)))
		return rc;
	return code_eh(o, dir);
}

/* Python 3.10 (minor 9): a PYCODE record of co_name and co_linetable,
 * and a sample whose frames are each entered from C (one call of the
 * loop per frame before 3.11). */
static int python_310(struct out *o, const char *dir)
{
	static const uint8_t lt310[] = { 4, 1, 12, 1, 8, 1, 10, 2, 4, 1 };
	static uint64_t f[4];
	struct kp_record r = meta(), c = { .type = KP_REC_PYCODE };
	int rc;

	c.pycode = (struct kp_rec_pycode){ 20, 100, 0x7f1200002000ull, 0x2345,
		0x30a, 2, "spin", "/srv/app/worker.py", sizeof(lt310), lt310 };
	f[0] = 0x7f1200002000ull;
	f[1] = 9 | KP_PYF_ENTRY | (uint64_t)0x2345 << 40;
	f[2] = 0x7f1200002000ull;
	f[3] = 1 | KP_PYF_ENTRY | (uint64_t)0x2345 << 40;
	header(o);
	if ((rc = add(o, &r)) || (rc = add(o, &c)))
		return rc;
	r = sample(21, 2, 3, 0, 0);
	r.sample.py_status = KP_PY_OK;
	r.sample.nr_pyframes = 2;
	r.sample.pyframes = f;
	if ((rc = add(o, &r)))
		return rc;
	return save(o, dir, "python-310", o->len);
}

/* Python (minor 5): a PYCODE record and samples with Python frames; at
 * the limits (127 frames, a 64 KiB line table); a frame with a reserved
 * bit set (damage). */
static int python(struct out *o, const char *dir)
{
	struct kp_record r = meta(), c = { .type = KP_REC_PYCODE };
	size_t at;
	int i, rc;

	for (i = 0; i < 2 * KP_MAX_PYFRAMES; i += 2) {
		pyframes[i] = 0x7f1200001000ull + (uint64_t)i * 0x100;
		pyframes[i + 1] = (uint64_t)(i + 1) | (i % 6 ? 0 : KP_PYF_ENTRY) |
				  (uint64_t)0x123456 << 40;
	}
	for (size_t k = 0; k < sizeof(linetable); k++)
		linetable[k] = (uint8_t)(k % 3 ? 0x01 : 0xe9);
	c.pycode = (struct kp_rec_pycode){ 20, 100, 0x7f1200001000ull, 0x123456,
		0x30b, 9, "Worker.run", "/srv/app/worker.py", 5, linetable };
	header(o);
	if ((rc = add(o, &r)) || (rc = add(o, &c)))
		return rc;
	r = sample(21, 2, 3, 0, 0);
	r.sample.py_status = KP_PY_OK;
	r.sample.nr_pyframes = 3;
	r.sample.pyframes = pyframes;
	at = o->len;
	if ((rc = add(o, &r)) || (rc = save(o, dir, "python", o->len)))
		return rc;
	o->buf[o->len - 4] |= 0x02;	/* bit 33 of the last frame's info */
	if ((rc = save(o, dir, "python-reserved", o->len)))
		return rc;
	o->len = at;
	r.sample.py_status = KP_PY_TRUNC;
	r.sample.nr_pyframes = KP_MAX_PYFRAMES;
	c.pycode.linetable_len = sizeof(linetable);
	if ((rc = add(o, &c)) || (rc = add(o, &r)))
		return rc;
	if ((rc = save(o, dir, "python-limits", o->len)))
		return rc;
	return python_310(o, dir);
}

/* Minor 12: a process's JIT code replaced at the same address. Samples
 * in its anonymous mapping, a JITGEN, more samples, and a SYMTAB of
 * each generation with its owner; then the JITGEN with gen 0 (damage). */
static int jitgen(struct out *o, const char *dir)
{
	static const struct kp_symbol old[] = { { 0x7f1200001000ull, 0x40, "jit_old" } };
	static const struct kp_symbol new[] = { { 0x7f1200001000ull, 0x40, "jit_new" } };
	struct kp_record r = meta();
	size_t at = 0;
	int i, rc;

	header(o);
	if ((rc = add(o, &r)))
		return rc;
	r = (struct kp_record){ .type = KP_REC_PROCESS, .process = { 1, 2, 100,
		1, 100, 1000, KP_PROC_SNAPSHOT, "node", "/usr/bin/node" } };
	if ((rc = add(o, &r)))
		return rc;
	r = (struct kp_record){ .type = KP_REC_MMAP, .mmap = { 3, 100, 100,
		0x7f1200000000ull, 0x10000, 0x7f1200000000ull, 5, 2, 0, 0, 0, 0, 0, { 0 },
		"//anon" } };
	if ((rc = add(o, &r)))
		return rc;
	for (i = 0; i < 4; i++) {
		if (i == 2) {
			at = o->len;
			r = (struct kp_record){ .type = KP_REC_JITGEN,
				.jitgen = { 30, { 100, 2, 1 } } };
			if ((rc = add(o, &r)))
				return rc;
		}
		frames[1] = 0x7f1200001004ull;
		r = sample(20 + (uint64_t)i * 20, 0, 1, 0, 0);
		if ((rc = add(o, &r)))
			return rc;
	}
	frames[1] = 0xffffffff81000040ull;
	r = (struct kp_record){ .type = KP_REC_SYMTAB, .symtab = { "//anon", 0, { 0 },
		1, old, { 100, 2, 0 } } };
	if ((rc = add(o, &r)))
		return rc;
	r.symtab.syms = new;
	r.symtab.owner.gen = 1;
	if ((rc = add(o, &r)) || (rc = save(o, dir, "jitgen", o->len)))
		return rc;
	o->buf[at + 2 + 1 + 1 + 1] = 0;	/* envelope, time, pid, start: gen */
	return save(o, dir, "jitgen-gen-0", o->len);
}

static int gen(struct out *o, const char *dir)
{
	static const struct kp_symbol many[] = {
		{ 0xffffffff81000000ull, 0x100, "_stext" },
		{ 0xffffffff81000100ull, 0x80, "do_syscall_64" },
		{ 0xffffffff81000180ull, 0, "entry_SYSCALL_64" },
		{ 0xffffffff81000180ull, 0x20, "entry_SYSCALL_64_alias" },
		{ 0xffffffff81200000ull, 0x1000, "schedule" } };
	struct kp_record r;
	size_t at = 0, full;
	int i, rc;

	header(o);
	if ((rc = save(o, dir, "header-only", o->len)))
		return rc;
	/* Every type; then cut inside the sample; then damaged counts. */
	if ((rc = every_type(o, &at)) || (rc = save(o, dir, "every-type", o->len)))
		return rc;
	full = o->len;
	if ((rc = save(o, dir, "cut-in-sample", at + 9)))
		return rc;
	o->buf[at + 2 + 17] = 0x7f;	/* kernel frame count: past the end */
	if ((rc = save(o, dir, "damaged-count", full)))
		return rc;
	o->buf[at + 2 + 17] = 2;
	o->buf[at + 1] = 0x7f;		/* the sample's length */
	if ((rc = save(o, dir, "damaged-length", full)))
		return rc;

	/* Limits: 127 + 127 frames, 17 regs, a stack copy; 4096-byte path. */
	header(o);
	r = sample(10, KP_MAX_FRAMES, KP_MAX_FRAMES - 1, KP_MAX_REGS, sizeof(stack));
	r.sample.flags |= KP_SAMPLE_KTRUNC | KP_SAMPLE_SPEC;	/* minor 10 */
	if ((rc = add(o, &r)))
		return rc;
	r = (struct kp_record){ .type = KP_REC_MMAP, .mmap = { 11, 1, 1,
		0x7f0000000000ull, 0x21000, 0x1000, 5, 2, 8, 1, 42, 0, 20, { 1, 2, 3 },
		path4096 } };
	if ((rc = add(o, &r)) || (rc = save(o, dir, "limits", o->len)))
		return rc;

	/* A kernel symbol table and samples naming it. */
	header(o);
	r = meta();
	if ((rc = add(o, &r)))
		return rc;
	for (i = 0; i < 8; i++) {
		r = sample(100 + (uint64_t)i, i, 8 - i, 0, 0);
		r.sample.cpu = (uint32_t)i & 1;
		if ((rc = add(o, &r)))
			return rc;
	}
	r = (struct kp_record){ .type = KP_REC_SYMTAB, .symtab = { "[kernel.kallsyms]",
		0, { 0 }, 5, many } };
	if ((rc = add(o, &r)) || (rc = save(o, dir, "samples-symtab", o->len)))
		return rc;
	/* A user module's table with functions without a name (minor 6):
	 * one at the start of a named symbol, one sized to the end of the
	 * address space. */
	{
		static const struct kp_symbol unnamed[] = { { 0x1000, 0x40, "" },
			{ 0x1000, 0, "main" }, { 0x1100, 0x11, "" },
			{ 0xfff0, UINT64_MAX, "" } };

		r = (struct kp_record){ .type = KP_REC_SYMTAB, .symtab = { "/usr/bin/bash",
			0, { 0 }, 4, unnamed } };
		if ((rc = add(o, &r)) || (rc = save(o, dir, "symtab-unnamed", o->len)))
			return rc;
	}

	/* Unknown record types among known ones, and one at the end. */
	header(o);
	r = meta();
	if ((rc = add(o, &r)))
		return rc;
	raw(o, "\x2a\x03xyz", 5);			/* type 42 */
	r = (struct kp_record){ .type = KP_REC_EXIT, .exit = { 1, 2, 2 } };
	if ((rc = add(o, &r)))
		return rc;
	raw(o, "\x00\x00", 2);				/* type 0, empty */
	raw(o, "\xc0\x84\x3d\x02\x01\x02", 6);		/* type 1000000 */
	if ((rc = save(o, dir, "unknown-types", o->len)))
		return rc;

	/* Runs of idle samples (minor 1): weights 250, 1 and 2^32-1, a
	 * busy sample between two runs of CPU 0. */
	header(o);
	r = meta();
	if ((rc = add(o, &r)))
		return rc;
	for (i = 0; i < 4; i++) {
		static const uint32_t w[] = { 250, 1, UINT32_MAX, 7 };

		r = sample(200 + (uint64_t)i, 3, 0, 0, 0);
		r.sample.flags = KP_SAMPLE_IDLE;
		r.sample.pid = r.sample.tid = r.sample.gpid = r.sample.gtid = 0;
		r.sample.uerr = 0;
		r.sample.cpu = i == 1;
		r.sample.weight = w[i];
		if ((rc = add(o, &r)))
			return rc;
		if (i != 2)
			continue;
		r = sample(203, 2, 2, 0, 0);
		if ((rc = add(o, &r)))
			return rc;
	}
	if ((rc = save(o, dir, "idle-runs", o->len)))
		return rc;

	/* Off-CPU intervals (minor 4): at the limits, aggregated, then one
	 * cut short and one whose count is 0. */
	header(o);
	r = meta();
	if ((rc = add(o, &r)))
		return rc;
	r = offcpu(20, KP_MAX_FRAMES, KP_MAX_FRAMES, KP_MAX_REGS, 64);
	r.offcpu.state = 0x402;
	if ((rc = add(o, &r)))
		return rc;
	r = offcpu(21, 4, 4, 0, 0);
	r.offcpu.count = 1000;
	r.offcpu.off_ns = 999999;
	r.offcpu.waker_pid = r.offcpu.waker_tid = 0;
	r.offcpu.waker_comm[0] = '\0';
	if ((rc = add(o, &r)) || (rc = save(o, dir, "offcpu", o->len)) ||
	    (rc = save(o, dir, "offcpu-cut", o->len - 3)))
		return rc;
	/* the tail: count 1000 (e8 07), state, waker_pid, waker_tid, "" */
	o->buf[o->len - 6] = 0;		/* count 0; 07 becomes the state */
	if ((rc = save(o, dir, "offcpu-count-0", o->len)))
		return rc;

	/* An interval a timer's interrupt ended (minor 7): the waker is
	 * the idle task it found running. */
	header(o);
	r = meta();
	if ((rc = add(o, &r)))
		return rc;
	r = offcpu(22, 2, 2, 0, 0);
	r.offcpu.s.flags |= KP_SAMPLE_WAKER_IRQ;
	r.offcpu.waker_pid = r.offcpu.waker_tid = 0;
	strcpy(r.offcpu.waker_comm, "swapper/1");
	if ((rc = add(o, &r)) || (rc = save(o, dir, "offcpu-irq", o->len)))
		return rc;

	/* A later minor: longer header, extra fields at record ends. */
	header(o);
	o->buf[10] = KP_STREAM_MINOR + 1;
	o->buf[14] = 24;
	raw(o, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	raw(o, "\x04\x06\x01\x02\x02" "new", 8);	/* EXIT + 3 new bytes */
	raw(o, "\x07\x05\x01\x04\x00\x05" "\x09", 7);	/* LOST + 1 */
	if ((rc = save(o, dir, "minor-later", o->len)))
		return rc;
	if ((rc = code(o, dir)))
		return rc;
	if ((rc = python(o, dir)))
		return rc;
	if ((rc = jitgen(o, dir)))
		return rc;
	return blocks(o, dir);
}

int main(int argc, char **argv)
{
	struct out o = { 0 };
	size_t i;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (i = 0; i < KP_MAX_FRAMES; i++)
		frames[i] = 0xffffffff81000000ull + i * 0x40;
	for (i = 0; i < sizeof(stack); i++)
		stack[i] = (uint8_t)(i * 13);
	memset(path4096, 'd', KP_PATH_MAX);
	path4096[0] = '/';
	o.buf = malloc(CAP);
	if (!o.buf) {
		perror("gen-stream-seeds");
		return 1;
	}
	rc = gen(&o, argv[1]);
	free(o.buf);
	return rc ? 1 : 0;
}
