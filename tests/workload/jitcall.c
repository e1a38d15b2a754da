// SPDX-License-Identifier: GPL-2.0-only
/* jitcall.c — generated code between C frames without frame pointers, for
 * the mixed unwinder's tests (tests/unwind-jit.sh, tests/test-unwind.c has
 * its own in-process copy of the trampoline):
 *
 *   main -> run_jit -> jit_tramp (generated) -> jit_hot (C, burns CPU)
 *
 * The C functions are built -fomit-frame-pointer: only their CFI unwinds
 * them. The generated code has no CFI, only a frame pointer:
 *   push %rbp; mov %rsp,%rbp; mov %rdi,%rax; mov %rsi,%rdi; call *%rax;
 *   pop %rbp; ret
 * It is named in /tmp/perf-PID.map ("jit_tramp") and in /tmp/jit-PID.dump
 * (a jitdump as perf's jitdump.h documents it: a code load with the code
 * bytes, preceded by debug info giving each instruction a line of
 * "jitcall.js"; the file is mmapped once, as perf finds it). PID is the
 * pid in the process's own pid namespace, /tmp the /tmp of its own mount
 * namespace (tests run it under unshare too).
 *
 *   jitcall [SECONDS [map|dump|both [cfi]]]     (default 30 both)
 * map: only the perf map is written; dump: only the jitdump. cfi: the
 * generated code (tests/jit-cfi-code.h, which test-unwind runs in
 * process too) keeps no frame pointer and branches before its call
 *   sub $24,%rsp; test %rdi,%rdi; je 1f; mov %rdi,%rax; mov %rsi,%rdi;
 *   call *%rax; 1: add $24,%rsp; ret
 * (neither its frame pointer nor its instructions tell its frame), and
 * the jitdump gives its call frame information in an unwinding info
 * record before the code load (.eh_frame and .eh_frame_hdr, laid out
 * after the code as perf's jitdump reader expects).
 * Prints "ready PID" once the files are written; removes them at exit
 * (SIGTERM/SIGINT included). x86-64 only: exits 77 elsewhere. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../jit-cfi-code.h"

#define NOINL __attribute__((noinline, noclone, used))
#define KEEP() __asm__ __volatile__("" ::: "memory")

#define JIT_MAGIC 0x4A695444u	/* "JiTD" as a little-endian word */
#define JIT_CODE_LOAD 0
#define JIT_CODE_DEBUG_INFO 2
#define JIT_CODE_UNWINDING_INFO 4
#define EM_X86_64_ 62

int main(int argc, char **argv);
uint64_t jit_hot(uint64_t v);
uint64_t run_jit(double seconds);

static char map_path[64], dump_path[64];
static volatile sig_atomic_t stop;
static void *code;
static const unsigned char *tramp;
static size_t tramp_len;
static const uint8_t *insn_off;
static size_t nr_insn;

static const unsigned char tramp_fp[] = {
	0x55,			/* push %rbp */
	0x48, 0x89, 0xe5,	/* mov %rsp,%rbp */
	0x48, 0x89, 0xf8,	/* mov %rdi,%rax */
	0x48, 0x89, 0xf7,	/* mov %rsi,%rdi */
	0xff, 0xd0,		/* call *%rax */
	0x5d,			/* pop %rbp */
	0xc3,			/* ret */
};
/* the offset of each instruction, for the debug info */
static const uint8_t insn_fp[] = { 0, 1, 4, 7, 10, 12, 13 };

static const uint8_t insn_cfi[] = { 0, 4, 7, 9, 12, 15, 17, 21 };


static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

NOINL uint64_t jit_hot(uint64_t v)
{
	for (unsigned i = 0; i < 200000; i++) {
		v = v * 6364136223846793005ull + 1442695040888963407ull;
		KEEP();
	}
	return v;
}

NOINL uint64_t run_jit(double seconds)
{
	uint64_t (*fn)(uint64_t (*)(uint64_t), uint64_t) =
		(uint64_t (*)(uint64_t (*)(uint64_t), uint64_t))code;
	uint64_t end = mono_ns() + (uint64_t)(seconds * 1e9), v = 1;

	while (!stop && mono_ns() < end) {
		v = fn(jit_hot, v);
		KEEP();
	}
	return v;
}

static int write_map(void)
{
	FILE *f = fopen(map_path, "w");

	if (!f)
		return -1;
	fprintf(f, "%lx %zx jit_tramp\n", (unsigned long)(uintptr_t)code, tramp_len);
	return fclose(f);
}

static void put(FILE *f, const void *p, size_t n)
{
	fwrite(p, 1, n, f);
}

static void put32(FILE *f, uint32_t v)
{
	put(f, &v, 4);
}

static void put64(FILE *f, uint64_t v)
{
	put(f, &v, 8);
}

/* The debug info record: one entry per instruction, lines 10, 11, ... of
 * jitcall.js ("\xff" for the same file again, as jitdump.h allows). */
static void put_debug(FILE *f, uint64_t at)
{
	size_t n = nr_insn, size = 16 + 16;
	static const char file[] = "jitcall.js";

	for (size_t i = 0; i < n; i++)
		size += 16 + (i ? 2 : sizeof(file));
	put32(f, JIT_CODE_DEBUG_INFO);
	put32(f, (uint32_t)size);
	put64(f, mono_ns());
	put64(f, at);
	put64(f, n);
	for (size_t i = 0; i < n; i++) {
		put64(f, at + insn_off[i]);
		put32(f, (uint32_t)(10 + i));	/* line */
		put32(f, 0);			/* discriminator */
		if (i)
			put(f, "\xff", 2);
		else
			put(f, file, sizeof(file));
	}
}

/* The unwinding info record of kp_cfi_code at at: .eh_frame (pc-relative
 * pointers from at + 24, where perf lays it out), then .eh_frame_hdr. */
static void put_unwind(FILE *f, uint64_t at)
{
	uint8_t eh[sizeof(kp_cfi_eh)], hdr[20] = { 1, 0x1b, 0x03, 0x3b };
	uint64_t eh_at = at + ((tramp_len + 7) & ~(size_t)7), hdr_at = eh_at + sizeof(eh);
	int32_t v;
	uint32_t one = 1;

	memcpy(eh, kp_cfi_eh, sizeof(eh));
	v = (int32_t)(at - (eh_at + KP_CFI_FDE_PC));	/* the FDE's start, pc-relative */
	memcpy(eh + KP_CFI_FDE_PC, &v, 4);
	v = (int32_t)(eh_at - (hdr_at + 4));	/* eh_frame_ptr */
	memcpy(hdr + 4, &v, 4);
	memcpy(hdr + 8, &one, 4);		/* fde_count */
	v = (int32_t)(at - hdr_at);		/* the table: start, FDE (datarel) */
	memcpy(hdr + 12, &v, 4);
	v = (int32_t)(eh_at + 24 - hdr_at);
	memcpy(hdr + 16, &v, 4);
	put32(f, JIT_CODE_UNWINDING_INFO);
	put32(f, (uint32_t)(16 + 24 + sizeof(eh) + sizeof(hdr)));
	put64(f, mono_ns());
	put64(f, sizeof(eh) + sizeof(hdr));	/* unwinding_size */
	put64(f, sizeof(hdr));			/* eh_frame_hdr_size */
	put64(f, sizeof(eh) + sizeof(hdr));	/* mapped_size */
	put(f, eh, sizeof(eh));
	put(f, hdr, sizeof(hdr));
}

static int write_dump(void)
{
	static const char name[] = "jit_tramp";
	uint64_t at = (uint64_t)(uintptr_t)code;
	int fd = open(dump_path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
	void *m;

	if (!f)
		return -1;
	put32(f, JIT_MAGIC);
	put32(f, 1);			/* version */
	put32(f, 40);			/* header size */
	put32(f, EM_X86_64_);
	put32(f, 0);
	put32(f, (uint32_t)getpid());
	put64(f, mono_ns());
	put64(f, 0);			/* flags */
	put_debug(f, at);
	if (tramp == kp_cfi_code)
		put_unwind(f, at);
	put32(f, JIT_CODE_LOAD);
	put32(f, (uint32_t)(16 + 40 + sizeof(name) + tramp_len));
	put64(f, mono_ns());
	put32(f, (uint32_t)getpid());
	put32(f, (uint32_t)getpid());	/* tid */
	put64(f, at);			/* vma */
	put64(f, at);			/* code address */
	put64(f, tramp_len);
	put64(f, 0);			/* code index */
	put(f, name, sizeof(name));
	put(f, tramp, tramp_len);
	if (fflush(f))
		return -1;
	/* the mmap that tells a profiler where the dump is (as perf's) */
	m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	return fclose(f);
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	double secs = argc > 1 ? atof(argv[1]) : 30;
	const char *what = argc > 2 ? argv[2] : "both";
	int map = strcmp(what, "dump") != 0, dump = strcmp(what, "map") != 0;
	int cfi = argc > 3 && !strcmp(argv[3], "cfi");
	struct sigaction sa;
	uint64_t v;

	tramp = cfi ? kp_cfi_code : tramp_fp;
	tramp_len = cfi ? sizeof(kp_cfi_code) : sizeof(tramp_fp);
	insn_off = cfi ? insn_cfi : insn_fp;
	nr_insn = cfi ? sizeof(insn_cfi) : sizeof(insn_fp);
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("jitcall: mmap");
		return 1;
	}
	memcpy(code, tramp, tramp_len);
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC)) {
		perror("jitcall: mprotect");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
	snprintf(dump_path, sizeof(dump_path), "/tmp/jit-%d.dump", (int)getpid());
	if ((map && write_map()) || (dump && write_dump())) {
		perror("jitcall: writing the map");
		unlink(map_path);
		unlink(dump_path);
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	v = run_jit(secs);
	unlink(map_path);
	unlink(dump_path);
	return v == 42;	/* never: keeps v alive */
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "jitcall: x86-64 only\n");
	return 77;
#endif
}
