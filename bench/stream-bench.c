// SPDX-License-Identifier: GPL-2.0-only
/* stream-bench.c — cost of the stream codec per record (make bench).
 *
 * Usage: bench/stream-bench [ITERATIONS]
 * Encodes and decodes typical SAMPLE records (frame-pointer stacks of 20
 * kernel + 15 user frames; and a DWARF-mode sample with 17 registers and
 * an 8 KiB stack copy) and a PROCESS record, and prints ns per record each
 * way; then the CRC32C of a 64 KiB block (a saved file's checksum, per
 * block), with the instruction and with the table. Never run by make
 * check: timings depend on the machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream/stream.h"
#include "stream/stream-blk.h"
#include "util/crc32c.h"

static uint64_t frames[2 * KP_MAX_FRAMES];
static uint8_t stack[8192];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);	/* the machine may be busy */
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int bench(const char *name, const struct kp_record *r, long iters)
{
	size_t cap = kp_record_encoded_size(r), used;
	uint8_t *buf = malloc(cap);
	struct kp_decoder *d = kp_decoder__new();
	struct kp_record out;
	struct kp_err err;
	uint64_t sink = 0;
	double t0, t1, t2;
	long i;
	int rc = 1;

	if (!buf || !d || !cap)
		goto out;
	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		buf[0] ^= (uint8_t)sink;	/* keep the loop honest */
		sink += (uint64_t)kp_record_encode(r, buf, cap);
	}
	t1 = now_ns();
	for (i = 0; i < iters; i++) {
		if (kp_decoder__next(d, buf, cap, 0, &used, &out, &err) != 1)
			goto out;
		sink += used + out.type;
	}
	t2 = now_ns();
	printf("%-28s %6zu bytes  encode %7.1f ns  decode %7.1f ns  (%llu)\n",
	       name, cap, (t1 - t0) / (double)iters, (t2 - t1) / (double)iters,
	       (unsigned long long)(sink & 1));
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "stream-bench: %s failed\n", name);
	kp_decoder__free(d);
	free(buf);
	return rc;
}

static void bench_crc(const char *name,
		      uint32_t (*crc)(uint32_t, const void *, size_t), long iters)
{
	static uint8_t block[KP_STREAM_BLOCK];
	uint32_t sink = 0;
	double t0, t1;

	memset(block, 0x5a, sizeof(block));
	t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		block[0] = (uint8_t)sink;
		sink = crc(0, block, sizeof(block));
	}
	t1 = now_ns();
	printf("%-28s %6zu bytes  %9.1f ns  %6.2f GB/s  (%u)\n", name, sizeof(block),
	       (t1 - t0) / (double)iters,
	       (double)sizeof(block) * (double)iters / (t1 - t0), sink & 1);
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1000000;
	struct kp_record r = { .type = KP_REC_SAMPLE };
	int i, rc = 0;

	for (i = 0; i < 2 * KP_MAX_FRAMES; i++)
		frames[i] = (i < KP_MAX_FRAMES ? 0xffffffff81000000ull
					      : 0x00007f3a12000000ull) + (uint64_t)i * 0x1234;
	memset(stack, 0x5a, sizeof(stack));
	r.sample = (struct kp_rec_sample){ .time_ns = 123456789012345ull,
		.cgroup_id = 12345, .cpu = 1, .pid = 4321, .tid = 4322, .gpid = 4321,
		.gtid = 4322, .flags = KP_SAMPLE_USER_MODE, .comm = "postgres",
		.nr_kframes = 20, .kframes = frames, .nr_uframes = 15,
		.uframes = frames + KP_MAX_FRAMES };
	rc |= bench("sample 20k+15u frames", &r, iters);
	r.sample.nr_kframes = 0;
	r.sample.nr_uframes = 3;
	r.sample.nr_regs = KP_MAX_REGS;
	r.sample.stack_len = sizeof(stack);
	r.sample.stack = stack;
	r.sample.flags |= KP_SAMPLE_REGS;
	rc |= bench("sample 17 regs + 8 KiB stack", &r, iters / 10);
	r = (struct kp_record){ .type = KP_REC_PROCESS, .process = { 1, 2, 4321,
		1, 4321, 1000, 0, "postgres", "/usr/lib/postgresql/15/bin/postgres" } };
	rc |= bench("process", &r, iters);
	bench_crc("crc32c block (kp_crc32c)", kp_crc32c, iters / 100);
	bench_crc("crc32c block (table)", kp_crc32c_sw, iters / 1000);
	return rc;
}
