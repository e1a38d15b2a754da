// SPDX-License-Identifier: GPL-2.0-only
/* capture-regs.c — records register + user stack snapshots of a workload
 * with perf_event_open (cpu-clock, PERF_SAMPLE_IP | REGS_USER | STACK_USER |
 * CALLCHAIN), for the unwinder's tests (tests/unwind-data/). Not run by
 * `make check': tests/unwind-data/regen.sh shows how the checked-in
 * snapshots were made.
 *
 * Usage: capture-regs OUT NSAMPLES STACK_BYTES -- PROGRAM [ARGS...]
 * Writes the text format read by tests/test-unwind.c:
 *   map START END PGOFF PATH         (executable mappings, hex)
 *   buildid PATH HEX                 (of each mapped file)
 *   sample
 *   regs R0 .. R16                   (DWARF numbering, hex)
 *   fp N PC...                       (perf's frame-pointer user callchain)
 *   stack LEN                        then LEN bytes, 32 per line, hex
 * Perf's x86 register order is mapped to DWARF numbering. */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>

/* perf_regs x86: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15 */
#define PR_MASK (0x1ffull | (0xffull << 16))
/* DWARF number of each perf register in PR_MASK, in bit order. */
static const int dwarf_of[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16,
				  8, 9, 10, 11, 12, 13, 14, 15 };
#define RING_PAGES 64

static void put_build_id(FILE *out, const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	const unsigned char *id;
	ssize_t n;

	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && (n = dwelf_elf_gnu_build_id(elf, (const void **)&id)) > 0) {
		fprintf(out, "buildid %s ", path);
		for (ssize_t i = 0; i < n; i++)
			fprintf(out, "%02x", id[i]);
		fputc('\n', out);
	}
	elf_end(elf);
	close(fd);
}

static void put_maps(FILE *out, pid_t pid)
{
	char path[64], line[4096], file[4096], perm[8];
	unsigned long long s, e, off;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e, perm, &off, file) < 4)
			continue;
		if (perm[2] != 'x' || file[0] != '/')
			continue;
		fprintf(out, "map %llx %llx %llx %s\n", s, e, off, file);
		put_build_id(out, file);
	}
	fclose(f);
}

static void put_sample(FILE *out, const uint8_t *p)
{
	uint64_t ip, nr, abi, regs[17] = { 0 }, size, dyn;
	const uint8_t *q = p;

	memcpy(&ip, q, 8), q += 8;
	memcpy(&nr, q, 8), q += 8;
	fprintf(out, "sample\n");
	const uint8_t *chain = q;
	q += nr * 8;
	memcpy(&abi, q, 8), q += 8;
	for (int i = 0; abi && i < 17; i++, q += 8)
		memcpy(&regs[dwarf_of[i]], q, 8);
	fprintf(out, "regs");
	for (int i = 0; i < 17; i++)
		fprintf(out, " %llx", (unsigned long long)regs[i]);
	fprintf(out, "\nfp");
	uint64_t pcs[128];
	int n = 0;
	for (uint64_t i = 0; i < nr && n < 128; i++) {
		uint64_t pc;

		memcpy(&pc, chain + i * 8, 8);
		if (pc < PERF_CONTEXT_MAX)
			pcs[n++] = pc;
	}
	fprintf(out, " %d", n);
	for (int i = 0; i < n; i++)
		fprintf(out, " %llx", (unsigned long long)pcs[i]);
	memcpy(&size, q, 8), q += 8;
	memcpy(&dyn, q + size, 8);
	fprintf(out, "\nstack %llu", (unsigned long long)dyn);
	for (uint64_t i = 0; i < dyn; i++)
		fprintf(out, "%s%02x", i % 32 ? "" : "\n", q[i]);
	fprintf(out, "\n");
	(void)ip;
}

static int open_event(pid_t pid, uint32_t stack_bytes)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(a), .sample_period = 10000000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN |
			       PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
		.sample_regs_user = PR_MASK, .sample_stack_user = stack_bytes,
		.exclude_kernel = 1, .exclude_hv = 1, .exclude_callchain_kernel = 1,
		.disabled = 1, .enable_on_exec = 1, .wakeup_events = 1,
	};

	return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
}

int main(int argc, char **argv)
{
	int go[2], fd, want, got = 0;
	pid_t pid;
	FILE *out;
	struct perf_event_mmap_page *mp;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);

	if (argc < 6 || strcmp(argv[4], "--")) {
		fprintf(stderr, "usage: capture-regs OUT NSAMPLES STACK_BYTES -- PROG [ARGS]\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	want = atoi(argv[2]);
	if (pipe(go) || !(out = fopen(argv[1], "w")))
		return perror("capture-regs"), 1;
	if ((pid = fork()) == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execv(argv[5], &argv[5]);
		_exit(127);
	}
	fd = open_event(pid, (uint32_t)atoi(argv[3]));
	if (fd < 0)
		return perror("perf_event_open"), kill(pid, SIGKILL), 1;
	mp = mmap(NULL, psz * (RING_PAGES + 1), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mp == MAP_FAILED)
		return perror("mmap"), kill(pid, SIGKILL), 1;
	if (write(go[1], "x", 1) != 1)
		return 1;
	fprintf(out, "# kptop unwind snapshot: %s\n", argv[5]);
	usleep(200000);
	put_maps(out, pid);
	while (got < want) {
		uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = mp->data_tail;
		uint8_t *base = (uint8_t *)mp + psz;
		size_t sz = psz * RING_PAGES;

		if (head == tail) {
			if (waitpid(pid, NULL, WNOHANG) == pid)
				break;
			usleep(10000);
			continue;
		}
		while (tail < head && got < want) {
			struct perf_event_header h;
			static uint8_t rec[1 << 17];

			for (size_t i = 0; i < sizeof(h); i++)
				((uint8_t *)&h)[i] = base[(tail + i) % sz];
			for (size_t i = 0; i < h.size; i++)
				rec[i] = base[(tail + i) % sz];
			if (h.type == PERF_RECORD_SAMPLE)
				put_sample(out, rec + sizeof(h)), got++;
			tail += h.size;
		}
		__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fclose(out);
	fprintf(stderr, "capture-regs: %d samples\n", got);
	return got == want ? 0 : 1;
}
