// SPDX-License-Identifier: GPL-2.0-only
/* mkstream.c — writes a small synthetic kptop stream for the CLI tests,
 * so they need neither root nor BPF: META, one process "synth" with one
 * mapping of a file that does not exist, 100 samples split 50/30/20 over
 * hot_a/hot_b/hot_c (each called from main), and at the end the SYMTAB
 * that names them (a saved stream carries its own names), then the END
 * record and the CHECK record of the file's one block.
 * Usage: mkstream OUT [cxx | A B C [threads]]: "cxx", 25 samples more in
 * a C++ function whose name has spaces and a comma, CXX_NAME, called
 * from main; A, B, C samples of hot_a, hot_b, hot_c (default 50 30 20),
 * for a baseline with another split; "threads": the hot_c samples come
 * from a second thread, 4243 "worker".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/record.h"
#include "stream/stream.h"
#include "stream/stream-blk.h"

#define APP "/nonexistent/kptop-synth-app"
#define CXX_NAME "std::vector<int, std::allocator<int> >::push_back(int const&)"

static FILE *out;
static struct kp_stream_sum sum;	/* one block: the file is small */

static void put(const struct kp_record *r)
{
	static uint8_t buf[1 << 16];
	ssize_t n = kp_record_encode(r, buf, sizeof(buf));

	if (n <= 0 || fwrite(buf, 1, (size_t)n, out) != (size_t)n) {
		fprintf(stderr, "mkstream: cannot encode or write a record\n");
		exit(1);
	}
	kp_stream_sum__count(&sum, r);
	kp_stream_sum__bytes(&sum, buf, (size_t)n);
}

static uint32_t tid = 4242;

static void samples(int n, uint64_t leaf)
{
	uint64_t uf[2] = { leaf, 0x402010 };
	struct kp_record r = { .type = KP_REC_SAMPLE };

	for (int i = 0; i < n; i++) {
		r.sample = (struct kp_rec_sample){ .time_ns = 2000000000ULL +
			(uint64_t)i * 1000000, .pid = 4242, .tid = tid,
			.gpid = 4242, .gtid = tid, .flags = KP_SAMPLE_USER_MODE,
			.nr_uframes = 2, .uframes = uf };
		strcpy(r.sample.comm, "synth");
		put(&r);
	}
}

int main(int argc, char **argv)
{
	static const struct kp_symbol syms[] = {
		{ 0x1000, 0x100, "hot_a" }, { 0x2000, 0x100, "main" },
		{ 0x3000, 0x100, "hot_b" }, { 0x4000, 0x100, "hot_c" },
		{ 0x5000, 0x100, CXX_NAME },
	};
	uint8_t hdr[KP_STREAM_HEADER_LEN];
	struct kp_record r;
	int cxx = argc == 3 && !strcmp(argv[2], "cxx");

	int split[3] = { 50, 30, 20 };
	int threads = argc == 6 && !strcmp(argv[5], "threads");

	if ((argc != 2 && argc != 5 && !threads && !cxx) || !(out = fopen(argv[1], "wb"))) {
		fprintf(stderr, "usage: mkstream OUT [cxx | A B C [threads]]\n");
		return 2;
	}
	for (int i = 0; argc >= 5 && i < 3; i++)
		split[i] = atoi(argv[2 + i]);
	kp_stream_header_encode(hdr);
	fwrite(hdr, 1, sizeof(hdr), out);
	kp_stream_sum__init(&sum, 0);
	kp_stream_sum__bytes(&sum, hdr, sizeof(hdr));
	r = (struct kp_record){ .type = KP_REC_META };
	r.meta = (struct kp_rec_meta){ .version = "synthetic", .kernel = "6.18",
		.hostname = "synth", .arch = "x86_64", .freq_hz = 1000, .ncpus = 2,
		.start_mono_ns = 1000000000ULL,
		.start_real_ns = 1700000000000000000ULL, .page_size = 4096,
		.flags = KP_META_USER_STACKS };
	put(&r);
	r = (struct kp_record){ .type = KP_REC_PROCESS };
	r.process = (struct kp_rec_process){ .time_ns = 1000000000ULL,
		.start_ns = 900000000ULL, .pid = 4242, .ppid = 1, .gpid = 4242,
		.comm = "synth", .exe = APP };
	put(&r);
	r = (struct kp_record){ .type = KP_REC_MMAP };
	r.mmap = (struct kp_rec_mmap){ .time_ns = 1000000000ULL, .pid = 4242,
		.tid = 4242, .addr = 0x400000, .len = 0x10000, .prot = 5,
		.path = APP };
	put(&r);
	samples(split[0], 0x401010);
	samples(split[1], 0x403010);
	if (threads) {
		r = (struct kp_record){ .type = KP_REC_THREAD };
		r.thread = (struct kp_rec_thread){ .time_ns = 1000000000ULL, .pid = 4242,
			.tid = 4243, .comm = "worker" };
		put(&r);
		tid = 4243;
	}
	samples(split[2], 0x404010);
	if (cxx)
		samples(25, 0x405010);
	r = (struct kp_record){ .type = KP_REC_SYMTAB };
	r.symtab = (struct kp_rec_symtab){ .path = APP, .nr_syms = cxx ? 5 : 4,
					   .syms = syms };
	put(&r);
	{
		uint8_t tail[KP_STREAM_TAIL_MAX];

		fwrite(tail, 1, kp_stream_sum__end(&sum, tail), out);
	}
	return fclose(out) ? 1 : 0;
}
