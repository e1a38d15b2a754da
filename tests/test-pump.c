// SPDX-License-Identifier: GPL-2.0-only
/* test-pump.c — the pump over a fake collector and a fake model (both
 * defined here, at link time): live records reach the model, a save
 * starts with what is known and the spool, ends with SYMTAB records and
 * is renamed into place with mode 0600; a saved file loads back with
 * SYMTAB records first; a damaged file keeps the records before the
 * damage and warns with the offset; a bad header and another user's file
 * are refused. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/model.h"
#include "stream/stream.h"
#include "stream/stream-blk.h"
#include "pump/pump.h"
#include "pump/python.h"

/* ---- fakes ---- */

#define MAX_FED 4096
static struct {
	uint32_t types[MAX_FED];
	uint32_t pids[MAX_FED];		/* process/sample/mmap/exit pid */
	size_t n;
	char app_syms[256];		/* /usr/bin/app's: "ADDR/SIZE/NAME " */
} fed;

static uint8_t queue[1 << 16];		/* the fake collector's queue */
static size_t queue_len;
static char path[256];

/* When the feed_trunc-th record is fed, the input file is truncated to
 * trunc_to bytes (its owner doing so while kptop reads it). */
static long feed_trunc = -1;
static off_t trunc_to;

struct kp_model {
	int dummy;
};

int kp_model__feed(struct kp_model *m, const struct kp_record *r)
{
	(void)m;
	assert_true(fed.n < MAX_FED);
	if ((long)fed.n == feed_trunc)
		assert_int_equal(truncate(path, trunc_to), 0);
	fed.types[fed.n] = r->type;
	switch (r->type) {
	case KP_REC_PROCESS: fed.pids[fed.n] = r->process.pid; break;
	case KP_REC_SAMPLE: fed.pids[fed.n] = r->sample.pid; break;
	case KP_REC_MMAP: fed.pids[fed.n] = r->mmap.pid; break;
	case KP_REC_EXIT: fed.pids[fed.n] = r->exit.pid; break;
	case KP_REC_JITGEN: fed.pids[fed.n] = r->jitgen.owner.pid; break;
	default: fed.pids[fed.n] = 0;
	}
	for (uint32_t i = 0; r->type == KP_REC_SYMTAB && !strcmp(r->symtab.path, "/usr/bin/app") &&
	     i < r->symtab.nr_syms; i++)
		snprintf(fed.app_syms + strlen(fed.app_syms),
			 sizeof(fed.app_syms) - strlen(fed.app_syms), "%#" PRIx64 "/%#" PRIx64 "/%s ",
			 r->symtab.syms[i].addr, r->symtab.syms[i].size, r->symtab.syms[i].name);
	fed.n++;
	return 0;
}

/* The pid whose JIT code the next check finds replaced (0: none). */
static uint32_t jit_due;

int kp_model__jit_check(struct kp_model *m, struct kp_rec_jitgen *out, size_t max)
{
	(void)m;
	if (!jit_due || !max)
		return 0;
	out[0] = (struct kp_rec_jitgen){ .time_ns = 5, .owner = { jit_due, 1, 1 } };
	jit_due = 0;
	return 1;
}

int kp_model__foreach_code(struct kp_model *m, size_t max_bytes,
			   int (*cb)(void *ctx, const struct kp_rec_code *c),
			   void *ctx)
{
	(void)m;
	(void)max_bytes;
	(void)cb;
	(void)ctx;
	return 0;
}

int kp_model__foreach_symbol(struct kp_model *m,
			     int (*cb)(void *ctx, const char *path,
				       const uint8_t *build_id, uint8_t build_id_len,
				       uint64_t addr, uint64_t size, const char *name,
				       const struct kp_jit_owner *owner),
			     void *ctx)
{
	static const uint8_t bid[4] = { 1, 2, 3, 4 };
	int rc;

	(void)m;
	rc = cb(ctx, "/usr/bin/app", bid, 4, 0x2000, 0, "hot_b", NULL);
	/* three frames of one function without a name, started at 0x3000 */
	for (uint64_t size = 0x10; size <= 0x30 && !rc; size += 0x10)
		rc = cb(ctx, "/usr/bin/app", bid, 4, 0x3000, size == 0x20 ? 0x40 : size, "", NULL);
	if (!rc)
		rc = cb(ctx, "/usr/bin/app", bid, 4, 0x1000, 0, "hot_a", NULL);
	if (!rc)
		rc = cb(ctx, "[kernel.kallsyms]", NULL, 0, 0xffffffff81000000ULL, 0,
			"do_syscall_64", NULL);
	return rc;
}

/* No Python here (the pump passes records through src/pump/python.c,
 * tested by tests/python-*.sh). */
int kp_python__record(struct kp_python *py, const struct kp_record *r,
		      kp_python_emit emit, void *ctx)
{
	(void)py; (void)r; (void)emit; (void)ctx;
	return 0;
}

int kp_python__foreach_code(struct kp_python *py, kp_python_emit emit, void *ctx)
{
	(void)py; (void)emit; (void)ctx;
	return 0;
}

ssize_t kp_collector__peek(struct kp_collector *c, const void **data,
			   int timeout_ms)
{
	(void)c;
	(void)timeout_ms;
	*data = queue;
	return (ssize_t)queue_len;
}

void kp_collector__consume(struct kp_collector *c)
{
	(void)c;
	queue_len = 0;
}

/* ---- helpers ---- */

static void push(const struct kp_record *r)
{
	ssize_t n = kp_record_encode(r, queue + queue_len, sizeof(queue) - queue_len);

	assert_true(n > 0);
	queue_len += (size_t)n;
}

static void push_meta(void)
{
	struct kp_record r = { .type = KP_REC_META };

	r.meta = (struct kp_rec_meta){ .version = "t", .kernel = "k",
		.hostname = "h", .arch = "x86_64", .freq_hz = 999, .ncpus = 2,
		.start_real_ns = 1700000000000000000ULL };
	push(&r);
}

static void push_process(uint32_t pid, uint64_t start)
{
	struct kp_record r = { .type = KP_REC_PROCESS };

	r.process = (struct kp_rec_process){ .pid = pid, .start_ns = start,
		.comm = "app", .exe = "/usr/bin/app" };
	push(&r);
}

static void push_mmap(uint32_t pid)
{
	struct kp_record r = { .type = KP_REC_MMAP };

	r.mmap = (struct kp_rec_mmap){ .pid = pid, .tid = pid, .addr = 0x400000,
		.len = 0x10000, .path = "/usr/bin/app" };
	push(&r);
}

static void push_sample(uint32_t pid)
{
	static const uint64_t uf[2] = { 0x401000, 0x402000 };
	struct kp_record r = { .type = KP_REC_SAMPLE };

	r.sample = (struct kp_rec_sample){ .pid = pid, .tid = pid, .gpid = pid,
		.gtid = pid, .comm = "app", .nr_uframes = 2, .uframes = uf };
	push(&r);
}

static void push_exit(uint32_t pid)
{
	struct kp_record r = { .type = KP_REC_EXIT };

	r.exit = (struct kp_rec_exit){ .pid = pid, .tid = pid };
	push(&r);
}

static size_t count(uint32_t type, uint32_t pid)
{
	size_t n = 0;

	for (size_t i = 0; i < fed.n; i++)
		n += fed.types[i] == type && (!pid || fed.pids[i] == pid);
	return n;
}

static char tmpdir[] = "/tmp/test-pump.XXXXXX";

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/run.kps", tmpdir);
	memset(&fed, 0, sizeof(fed));
	queue_len = 0;
	feed_trunc = -1;
	jit_due = 0;
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	assert_int_equal(system(cmd), 0);
	strcpy(tmpdir, "/tmp/test-pump.XXXXXX");
	return 0;
}

/* Live records, a save with spool_s (0 = fold at once) started after
 * pids 10 (alive) and 11 (exited) were seen. Returns the fed count. */
static void save_run(unsigned spool_s)
{
	struct kp_model m;
	struct kp_collector *c = (struct kp_collector *)&m;	/* never used */
	struct kp_err err = { 0 };
	struct kp_pump *p = kp_pump__new(c, &m, spool_s, &err);
	const char *sp;
	uint64_t bytes;
	struct stat st;

	assert_non_null(p);
	push_meta();
	push_process(10, 1);
	push_mmap(10);
	push_process(11, 2);
	push_sample(10);
	push_exit(11);
	assert_int_equal(kp_pump__run(p, 0, &err), 6);
	assert_int_equal(kp_pump__save_start(p, path, &err), 0);
	assert_int_equal(kp_pump__saving(p, &sp, &bytes), 1);
	assert_string_equal(sp, path);
	assert_true(bytes > KP_STREAM_HEADER_LEN);
	assert_int_equal(access(path, F_OK), -1);	/* not there until stop */
	push_sample(10);
	push_sample(10);
	assert_int_equal(kp_pump__run(p, 0, &err), 2);
	assert_int_equal(kp_pump__save_stop(p, &err), 0);
	assert_int_equal(kp_pump__saving(p, NULL, NULL), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	kp_pump__free(p);
}

/* Load path into a fresh fake model. */
static int load(struct kp_err *warn, struct kp_err *err)
{
	struct kp_model m;
	struct kp_pump *p = kp_pump__new(NULL, &m, 0, err);
	int rc;

	assert_non_null(p);
	memset(&fed, 0, sizeof(fed));
	rc = kp_pump__load_file(p, path, 0, warn, err);
	kp_pump__free(p);
	return rc;
}

static void test_live_feeds_model(void **state)
{
	(void)state;
	save_run(60);
	assert_int_equal(fed.n, 8);
	assert_int_equal(count(KP_REC_SAMPLE, 10), 3);
}

static void check_saved(int with_spool)
{
	struct kp_err warn = { 0 }, err = { 0 };

	assert_int_equal(load(&warn, &err), 0);
	assert_string_equal(warn.msg, "");
	/* SYMTAB first (two modules), then META. The function without a
	 * name is one symbol, as long as its largest frame said. */
	assert_string_equal(fed.app_syms, "0x1000/0/hot_a 0x2000/0/hot_b 0x3000/0x40/ ");
	assert_int_equal(fed.types[0], KP_REC_SYMTAB);
	assert_int_equal(fed.types[1], KP_REC_SYMTAB);
	assert_int_equal(fed.types[2], KP_REC_META);
	assert_int_equal(count(KP_REC_SYMTAB, 0), 2);
	assert_int_equal(count(KP_REC_PROCESS, 10), 1);
	assert_int_equal(count(KP_REC_MMAP, 10), 1);
	/* With the spool, everything since the start is in the file; without
	 * it, the exited process is forgotten and old samples are gone. */
	assert_int_equal(count(KP_REC_PROCESS, 11), with_spool ? 1 : 0);
	assert_int_equal(count(KP_REC_SAMPLE, 10), with_spool ? 3 : 2);
}

static void test_save_with_spool(void **state)
{
	(void)state;
	save_run(60);
	check_saved(1);
}

static void test_save_without_spool(void **state)
{
	(void)state;
	save_run(0);
	check_saved(0);
}

static void damage(long off, int byte)
{
	FILE *f = fopen(path, "r+b");

	assert_non_null(f);
	assert_int_equal(fseek(f, off, SEEK_SET), 0);
	assert_int_equal(fputc(byte, f), byte);
	assert_int_equal(fclose(f), 0);
}

static void test_damaged_file_keeps_prefix(void **state)
{
	struct kp_err warn = { 0 }, err = { 0 };
	struct stat st;

	(void)state;
	save_run(60);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 3), 0);	/* cut the end */
	assert_int_equal(load(&warn, &err), 0);
	assert_non_null(strstr(warn.msg, "damaged at byte "));
	assert_non_null(strstr(warn.msg, path));
	/* the last block has lost its CHECK record: its records are kept */
	assert_int_equal(count(KP_REC_SYMTAB, 0), 2);
	assert_int_equal(count(KP_REC_SAMPLE, 10), 3);
}

static void test_damage_at_first_record(void **state)
{
	struct kp_err warn = { 0 }, err = { 0 };

	(void)state;
	save_run(60);
	/* first record's type: a varint of over 32 bits (5 bytes of 0xff
	 * and what follows; 4 would end on the next byte, 0x01 here, into a
	 * type the block walk takes and steps over) */
	for (int i = 0; i < 5; i++)
		damage(KP_STREAM_HEADER_LEN + i, 0xff);
	assert_int_equal(load(&warn, &err), 0);
	assert_non_null(strstr(warn.msg, "damaged at byte 16"));
	assert_int_equal(fed.n, 0);
}

static void test_bad_header(void **state)
{
	struct kp_err warn = { 0 }, err = { 0 };

	(void)state;
	save_run(60);
	damage(0, 'X');
	assert_int_equal(load(&warn, &err), KP_EFORMAT);
	assert_non_null(strstr(err.msg, path));
	assert_int_equal(fed.n, 0);
}

static void test_missing_file(void **state)
{
	struct kp_err warn = { 0 }, err = { 0 };

	(void)state;
	assert_int_equal(load(&warn, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "cannot open"));
}

static void test_other_users_file(void **state)
{
	struct kp_err warn = { 0 }, err = { 0 };
	struct kp_model m;
	struct kp_pump *p;

	(void)state;
	if (geteuid() != 0)
		skip();	/* needs chown and seteuid */
	save_run(60);
	assert_int_equal(chmod(tmpdir, 0755), 0);
	assert_int_equal(chmod(path, 0644), 0);
	p = kp_pump__new(NULL, &m, 0, &err);
	assert_non_null(p);
	assert_int_equal(seteuid(65534), 0);
	assert_int_equal(kp_pump__load_file(p, path, 0, &warn, &err), -EPERM);
	assert_non_null(strstr(err.msg, "--force"));
	memset(&fed, 0, sizeof(fed));
	assert_int_equal(kp_pump__load_file(p, path, 1, &warn, &err), 0);
	assert_int_equal(seteuid(0), 0);
	assert_true(fed.n > 0);
	kp_pump__free(p);
}

/* Write bytes[0..len) as the file and load it; 1 if the load reported
 * damage (an error or a warning). */
static int load_reports(const uint8_t *bytes, size_t len)
{
	struct kp_err warn = { 0 }, err = { 0 };
	FILE *f;
	int rc;

	unlink(path);	/* a truncated file is flushed at close (ext4) */
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	rc = load(&warn, &err);
	return rc != 0 || warn.code != 0;
}

/* How many of the single-byte changes (each byte XOR each of flips) of
 * the file b go unreported. */
static size_t silent_flips(uint8_t *b, size_t len, const uint8_t *flips,
			   size_t nflips)
{
	size_t silent = 0;

	for (size_t off = 0; off < len; off++) {
		for (size_t i = 0; i < nflips; i++) {
			b[off] ^= flips[i];
			silent += !load_reports(b, len);
			b[off] ^= flips[i];
		}
	}
	return silent;
}

static uint8_t *slurp(size_t *len)
{
	struct stat st;
	uint8_t *b;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(stat(path, &st), 0);
	b = malloc((size_t)st.st_size + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	*len = (size_t)st.st_size;
	return b;
}

/* A saved file cut anywhere, at a record boundary too (after the SYMTAB
 * records' start, every name would be lost), is reported. */
static void test_every_cut_reported(void **state)
{
	size_t len, silent = 0;
	uint8_t *b;

	(void)state;
	save_run(60);
	b = slurp(&len);
	for (size_t cut = 0; cut < len; cut++)
		silent += !load_reports(b, cut);
	assert_int_equal(silent, 0);
	assert_int_equal(load_reports(b, len), 0);	/* the whole file is fine */
	b[len] = 0;
	assert_int_equal(load_reports(b, len + 1), 1);	/* a byte after the end */
	free(b);
}

/* Every single-byte change of a saved file is reported. */
static void test_every_flip_reported(void **state)
{
	static const uint8_t flips[] = { 0x01, 0x10, 0x80, 0xff };
	size_t len, silent = 0;
	uint8_t *b;

	(void)state;
	save_run(60);
	b = slurp(&len);
	silent += silent_flips(b, len, flips, sizeof(flips));
	assert_int_equal(silent, 0);
	free(b);
}

/* A sample with an 8 KiB stack copy (DWARF mode). */
static void push_big_sample(uint32_t pid)
{
	static uint8_t stack[8192];
	static const uint64_t uf[2] = { 0x401000, 0x402000 };
	struct kp_record r = { .type = KP_REC_SAMPLE };

	r.sample = (struct kp_rec_sample){ .pid = pid, .tid = pid, .gpid = pid,
		.gtid = pid, .comm = "app", .nr_uframes = 2, .uframes = uf,
		.stack_len = sizeof(stack), .stack = stack };
	push(&r);
}

/* The file's owner truncates it to half while kptop reads it (after the
 * first 100 records of pass 2): no crash (a mapped file would raise
 * SIGBUS), the records read before are kept, the warning names the
 * offset and says the file shrank. */
static void test_truncated_while_read(void **state)
{
	struct kp_err warn = { 0 }, err = { 0 };
	struct kp_model m;
	struct kp_collector *c = (struct kp_collector *)&m;	/* never used */
	struct kp_pump *p = kp_pump__new(c, &m, 0, &err);
	unsigned long long at = 0;
	char want[128];
	const char *s;
	struct stat st;
	size_t n;

	(void)state;
	assert_non_null(p);
	push_meta();
	push_process(10, 1);
	push_mmap(10);
	assert_int_equal(kp_pump__save_start(p, path, &err), 0);
	for (int i = 0; i < 400; i++) {
		push_big_sample(10);
		if (queue_len > sizeof(queue) - 9000)
			assert_true(kp_pump__run(p, 0, &err) > 0);
	}
	assert_true(kp_pump__run(p, 0, &err) > 0);
	assert_int_equal(kp_pump__save_stop(p, &err), 0);
	kp_pump__free(p);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > (3 << 20));	/* more than the read window */

	feed_trunc = 100;	/* 2 SYMTAB in pass 1, then 98 records */
	trunc_to = st.st_size / 2;
	assert_int_equal(load(&warn, &err), 0);
	snprintf(want, sizeof(want), "the file shrank from %lld to %lld bytes",
		 (long long)st.st_size, (long long)trunc_to);
	assert_non_null(strstr(warn.msg, want));
	s = strstr(warn.msg, "damaged at byte ");
	assert_non_null(s);
	assert_int_equal(sscanf(s, "damaged at byte %llu", &at), 1);
	/* bytes read before the cut are kept: the offset may lie beyond it */
	assert_true(at < (unsigned long long)st.st_size);
	n = count(KP_REC_SAMPLE, 10);
	assert_true(n > 100 && n < 400);
	assert_true((unsigned long long)n * 8192 > (unsigned long long)trunc_to / 2);
}

/* A stream file in blocks of about block_bytes (the saver's are 64 KiB),
 * written as the saver does: META, a process and its mapping, 12
 * samples, a SYMTAB, END. Returns the number of blocks. */
static int write_small_blocks(uint64_t block_bytes)
{
	static const struct kp_symbol syms[] = { { 0x1000, 16, "hot_a" } };
	struct kp_record r = { .type = KP_REC_SYMTAB };
	uint8_t hdr[KP_STREAM_HEADER_LEN], tail[KP_STREAM_TAIL_MAX];
	struct kp_decoder *d = kp_decoder__new();
	struct kp_stream_sum sum;
	struct kp_err e = { 0 };
	FILE *f = fopen(path, "wb");
	size_t off = 0, used;
	int blocks = 1;

	assert_non_null(d);
	assert_non_null(f);
	queue_len = 0;
	push_meta();
	push_process(10, 1);
	push_mmap(10);
	for (int i = 0; i < 12; i++)
		push_sample(10);
	r.symtab = (struct kp_rec_symtab){ .path = "/usr/bin/app", .nr_syms = 1,
					   .syms = syms };
	push(&r);
	kp_stream_header_encode(hdr);
	kp_stream_sum__init(&sum, block_bytes);
	fwrite(hdr, 1, sizeof(hdr), f);
	kp_stream_sum__bytes(&sum, hdr, sizeof(hdr));
	while (off < queue_len) {
		assert_int_equal(kp_decoder__next(d, queue + off, queue_len - off, 0,
						  &used, &r, &e), 1);
		fwrite(queue + off, 1, used, f);
		kp_stream_sum__count(&sum, &r);
		kp_stream_sum__bytes(&sum, queue + off, used);
		off += used;
		if (kp_stream_sum__due(&sum) && off < queue_len) {
			fwrite(tail, 1, kp_stream_sum__check(&sum, tail), f);
			blocks++;
		}
	}
	fwrite(tail, 1, kp_stream_sum__end(&sum, tail), f);
	assert_int_equal(fclose(f), 0);
	kp_decoder__free(d);
	queue_len = 0;
	return blocks;
}

/* Many small blocks: every cut and every single-byte change is
 * reported, in the CHECK records between blocks too; the whole file
 * loads with every record. */
static void test_blocks_every_cut_and_flip(void **state)
{
	static const uint8_t flips[] = { 0x01, 0x80, 0xff };
	struct kp_err warn = { 0 }, err = { 0 };
	size_t len, silent = 0;
	uint8_t *b;

	(void)state;
	assert_true(write_small_blocks(64) >= 4);
	assert_int_equal(load(&warn, &err), 0);
	assert_string_equal(warn.msg, "");
	assert_int_equal(count(KP_REC_SAMPLE, 10), 12);
	assert_int_equal(count(KP_REC_SYMTAB, 0), 1);
	assert_int_equal(fed.n, 16);	/* no CHECK or END reaches the model */
	b = slurp(&len);
	for (size_t cut = 0; cut < len; cut++)
		silent += !load_reports(b, cut);
	silent += silent_flips(b, len, flips, sizeof(flips));
	assert_int_equal(silent, 0);
	free(b);
}

/* A whole block gone (each block's checksum still holds): the END
 * record's counts find it; the records before the END block are kept. */
static void test_block_dropped(void **state)
{
	struct kp_err warn = { 0 }, err = { 0 }, e = { 0 };
	size_t len, b1 = 0, b2 = 0;
	uint8_t *b;

	(void)state;
	write_small_blocks(64);
	b = slurp(&len);
	assert_int_equal(kp_stream_block(b, len, KP_STREAM_HEADER_LEN, 0,
					 KP_STREAM_MINOR, &b1, &e), 1);
	assert_int_equal(kp_stream_block(b + b1, len - b1, 0, b1, KP_STREAM_MINOR,
					 &b2, &e), 1);
	memmove(b + b1, b + b1 + b2, len - b1 - b2);	/* the second block */
	assert_int_equal(load_reports(b, len - b2), 1);
	assert_int_equal(load(&warn, &err), 0);
	assert_non_null(strstr(warn.msg, "END record: "));
	assert_true(count(KP_REC_SAMPLE, 10) > 0);
	free(b);
}

/* A loaded file saved again (the w key with -i): its records, checked
 * again, in a new file with its own blocks and END; a file changed in
 * place since it was loaded is not copied. */
static void test_resave_loaded(void **state)
{
	struct kp_err warn = { 0 }, err = { 0 };
	char again[300];
	struct kp_model m;
	struct kp_pump *p;

	(void)state;
	save_run(60);
	p = kp_pump__new(NULL, &m, 0, &err);
	assert_non_null(p);
	assert_int_equal(kp_pump__load_file(p, path, 0, &warn, &err), 0);
	assert_string_equal(warn.msg, "");
	snprintf(again, sizeof(again), "%s/again.kps", tmpdir);
	assert_int_equal(kp_pump__save_start(p, again, &err), 0);
	assert_int_equal(kp_pump__save_stop(p, &err), 0);
	damage(KP_STREAM_HEADER_LEN + 5, 'Z');		/* the input changes */
	assert_true(kp_pump__save_start(p, again, &err) < 0);
	assert_non_null(strstr(err.msg, "changed since it was read"));
	kp_pump__free(p);
	assert_int_equal(rename(again, path), 0);
	assert_int_equal(load(&warn, &err), 0);
	assert_string_equal(warn.msg, "");
	assert_int_equal(count(KP_REC_SAMPLE, 10), 3);
	assert_int_equal(count(KP_REC_SYMTAB, 0), 4);	/* 2 copied, 2 from the model */
}

/* A save started after a process forked two children and exited: the
 * child that did not exec still has the parent's mapping in the file
 * (the prologue writes every PROCESS before any MMAP, and the parent
 * is gone), under its own pid; the one that exec'd has none. */
/* The index of the first record of type fed with pid, or fed.n. */
static size_t first(uint32_t type, uint32_t pid)
{
	size_t i;

	for (i = 0; i < fed.n && (fed.types[i] != type || fed.pids[i] != pid); i++)
		;
	return i;
}

/* A JITGEN the model's check finds (pid 10's JIT code replaced) is fed
 * back before the chunk after it, and a save holds it after pid 10's
 * mappings: from the spool, from the state folded without one, or
 * written live; not once the process exited before the save. */
static void jitgen_run(unsigned spool_s, int when, int exits)
{
	struct kp_model m;
	struct kp_err warn = { 0 }, err = { 0 };
	struct kp_pump *p = kp_pump__new((struct kp_collector *)&m, &m, spool_s, &err);

	assert_non_null(p);
	memset(&fed, 0, sizeof(fed));
	push_meta();
	push_process(10, 1);
	push_mmap(10);
	assert_int_equal(kp_pump__run(p, 0, &err), 3);
	if (when == 1)
		assert_int_equal(kp_pump__save_start(p, path, &err), 0);
	jit_due = 10;
	push_sample(10);
	if (exits)
		push_exit(10);
	assert_int_equal(kp_pump__run(p, 0, &err), exits ? 2 : 1);
	assert_int_equal(count(KP_REC_JITGEN, 10), 1);
	assert_true(first(KP_REC_JITGEN, 10) < first(KP_REC_SAMPLE, 10));
	if (when == 0)
		assert_int_equal(kp_pump__save_start(p, path, &err), 0);
	assert_int_equal(kp_pump__save_stop(p, &err), 0);
	kp_pump__free(p);
	assert_int_equal(load(&warn, &err), 0);
	assert_string_equal(warn.msg, "");
	assert_int_equal(count(KP_REC_JITGEN, 10), exits && !spool_s && !when ? 0 : 1);
	if (count(KP_REC_JITGEN, 10))
		assert_true(first(KP_REC_MMAP, 10) < first(KP_REC_JITGEN, 10));
}

static void test_save_jitgen(void **state)
{
	(void)state;
	jitgen_run(60, 0, 0);	/* before the save: in the spool */
	jitgen_run(0, 0, 0);	/* folded with the processes */
	jitgen_run(0, 1, 0);	/* while saving: written live */
	jitgen_run(0, 0, 1);	/* exited before the save: forgotten */
	jitgen_run(60, 0, 1);	/* ... but the spool still has its samples */
}

static void test_save_forked_child(void **state)
{
	struct kp_model m;
	struct kp_err warn = { 0 }, err = { 0 };
	struct kp_pump *p = kp_pump__new((struct kp_collector *)&m, &m, 0, &err);
	struct kp_record r = { .type = KP_REC_PROCESS };
	struct kp_record x = { .type = KP_REC_EXEC };

	(void)state;
	assert_non_null(p);
	push_meta();
	r.process = (struct kp_rec_process){ .pid = 10, .start_ns = 1,
		.flags = KP_PROC_SNAPSHOT, .comm = "app", .exe = "/usr/bin/app" };
	push(&r);
	push_mmap(10);
	r.process = (struct kp_rec_process){ .pid = 12, .ppid = 10, .start_ns = 3,
		.comm = "app", .exe = "/usr/bin/app" };
	push(&r);
	r.process.pid = 13;
	push(&r);
	x.exec = (struct kp_rec_exec){ .pid = 13, .tid = 13, .comm = "sh", .exe = "/bin/sh" };
	push(&x);
	push_exit(10);
	assert_int_equal(kp_pump__run(p, 0, &err), 7);
	assert_int_equal(kp_pump__save_start(p, path, &err), 0);
	assert_int_equal(kp_pump__save_stop(p, &err), 0);
	kp_pump__free(p);
	assert_int_equal(load(&warn, &err), 0);
	assert_string_equal(warn.msg, "");
	assert_int_equal(count(KP_REC_PROCESS, 10), 0);
	assert_int_equal(count(KP_REC_PROCESS, 12), 1);
	assert_int_equal(count(KP_REC_MMAP, 10), 0);
	assert_int_equal(count(KP_REC_MMAP, 12), 1);
	assert_int_equal(count(KP_REC_MMAP, 13), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_live_feeds_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_with_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_forked_child, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_jitgen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_without_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_file_keeps_prefix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damage_at_first_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_users_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_cut_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_flip_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_while_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocks_every_cut_and_flip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resave_loaded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
