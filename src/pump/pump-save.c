// SPDX-License-Identifier: GPL-2.0-only
/* pump-save.c — the save-to-stream writer: a new file (mode 0600) next
 * to the target, checked and renamed into place by util/safefile.h; the
 * header, what is already known, the spool, the live bytes, and on stop
 * the CODE records of the functions with samples, the SYMTAB records of
 * every frame the model saw and the END record.
 * Every record written is counted (for END) and checksummed, and a CHECK
 * record closes each block (stream-blk.h). */
#include "pump/pump.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pump/pump-int.h"
#include "util/safefile.h"

#define SYMS_PER_RECORD 4096
/* Code of the functions with samples a save embeds (kptop-stream(5),
 * "13 CODE"), hottest first. */
#define KP_SAVE_CODE_MAX (16u << 20)

struct sym {
	char *path, *name;	/* name "": a function without a name */
	uint8_t build_id[KP_BUILD_ID_MAX];
	uint8_t build_id_len;
	uint64_t addr, size;
	struct kp_jit_owner owner;	/* pid 0: none */
};

struct symvec {
	struct sym *v;
	size_t n, cap;
	int rc;
};

/* Bytes to the file, checksummed into the open block unless they are
 * the CHECK or END records that kp_stream_sum encoded (and summed). */
static int wr(struct kp_pump *p, const void *buf, size_t len, int sum,
	      struct kp_err *err)
{
	if (len && fwrite(buf, 1, len, p->save) != len)
		return kp_err_set(err, -EIO, "%s: write failed: %s", p->save_path,
				  strerror(errno ? errno : EIO));
	if (sum)
		kp_stream_sum__bytes(&p->sum, buf, len);
	p->save_bytes += len;
	return 0;
}

static int wr_check(struct kp_pump *p, struct kp_err *err)
{
	uint8_t rec[KP_STREAM_TAIL_MAX];

	return wr(p, rec, kp_stream_sum__check(&p->sum, rec), 0, err);
}

/* Whole records: each is counted for END, and a CHECK record follows
 * the first one at which the open block is due. */
static int wr_records(struct kp_pump *p, const uint8_t *buf, size_t len,
		      struct kp_err *err)
{
	size_t off = 0, from = 0, used;
	struct kp_err derr = { 0 };
	struct kp_record r;
	int rc;

	while (off < len) {
		rc = kp_decoder__next(p->save_dec, buf + off, len - off, 0, &used,
				      &r, &derr);
		if (rc == 0 && off + used == len)
			break;	/* unknown records at the end: written as they are */
		if (rc != 1)
			return kp_err_set(err, KP_EFORMAT, "%s: a record to save does "
					  "not decode: %s", p->save_path, derr.msg);
		kp_stream_sum__count(&p->sum, &r);
		off += used;
		if (p->sum.block + (off - from) < p->sum.block_bytes)
			continue;
		rc = wr(p, buf + from, off - from, 1, err);
		if (rc == 0)
			rc = wr_check(p, err);
		if (rc)
			return rc;
		from = off;
	}
	return wr(p, buf + from, len - from, 1, err);
}

int kp_pump_save_bytes(struct kp_pump *p, const uint8_t *buf, size_t len,
		       struct kp_err *err)
{
	if (!p->save)
		return 0;
	return wr_records(p, buf, len, err);
}

void kp_pump_save_abort(struct kp_pump *p)
{
	kp_safefile__abort(p->save_file);
	p->save_file = NULL;
	p->save = NULL;
	kp_decoder__free(p->save_dec);
	p->save_dec = NULL;
	free(p->save_path);
	p->save_path = NULL;
	p->save_bytes = 0;
}

static int open_tmp(struct kp_pump *p, const char *path, struct kp_err *err)
{
	p->save_path = strdup(path);
	if (!p->save_path)
		return kp_err_set(err, -ENOMEM, "out of memory");
	p->save_file = kp_safefile__open(path, err);	/* mode 0600 */
	if (!p->save_file)
		return -errno;
	p->save = kp_safefile__stream(p->save_file);
	setvbuf(p->save, NULL, _IOFBF, 1 << 20);
	return 0;
}

static int copy_record(struct kp_pump *p, const struct kp_record *r,
		       const uint8_t *bytes, size_t len, void *ctx,
		       struct kp_err *err)
{
	(void)r;
	(void)ctx;
	return wr_records(p, bytes, len, err);
}

/* A loaded file's records, read again and checked again: a file that
 * changed since it was loaded is not copied. */
static int write_loaded(struct kp_pump *p, struct kp_err *err)
{
	struct kp_err derr = { 0 };
	uint64_t bad_at = 0, end = p->in->end;
	int rc = kp_pump_load_walk(p, copy_record, NULL, &bad_at, &derr, err);

	if (rc == 1 && bad_at < end)
		return kp_pump_load_damage(err, KP_EFORMAT, "the input file changed "
					   "since it was read", bad_at, derr.msg);
	return rc == 1 ? 0 : rc;
}

/* The folded state, through memory: its records are counted too. */
static int write_state(struct kp_pump *p, struct kp_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	uint64_t n = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc;

	if (!m)
		return kp_err_set(err, -ENOMEM, "out of memory");
	rc = kp_ctlstate__write(p->state, m, &n);
	if (fclose(m) || rc) {
		free(buf);
		return kp_err_set(err, -ENOMEM, "out of memory");
	}
	rc = wr_records(p, (const uint8_t *)buf, len, err);
	free(buf);
	return rc;
}

/* What is known before the live bytes: a loaded file's records, or the
 * folded state followed by the spool. */
static int write_known(struct kp_pump *p, struct kp_err *err)
{
	int rc;

	if (p->in)
		return write_loaded(p, err);
	rc = write_state(p, err);
	if (rc == 0)	/* the code objects the spool's samples name */
		rc = kp_python__foreach_code(p->py, kp_pump_py_emit, p);
	for (const struct kp_spool_chunk *ch = p->spool_head; ch && !rc; ch = ch->next)
		rc = wr_records(p, ch->data, ch->len, err);
	return rc;
}

int kp_pump__save_start(struct kp_pump *p, const char *path, struct kp_err *err)
{
	uint8_t hdr[KP_STREAM_HEADER_LEN];
	int rc;

	if (p->save)
		return kp_err_set(err, -EBUSY, "already saving to %s", p->save_path);
	rc = open_tmp(p, path, err);
	if (rc)
		goto out_abort;
	p->save_dec = kp_decoder__new();
	if (!p->save_dec) {
		rc = kp_err_set(err, -ENOMEM, "out of memory");
		goto out_abort;
	}
	kp_stream_sum__init(&p->sum, 0);
	kp_stream_header_encode(hdr);
	rc = wr(p, hdr, sizeof(hdr), 1, err);
	if (rc == 0)
		rc = write_known(p, err);
	if (rc == 0)
		return 0;
out_abort:
	kp_pump_save_abort(p);
	return rc;
}

static int collect_sym(void *ctx, const char *path, const uint8_t *build_id,
		       uint8_t build_id_len, uint64_t addr, uint64_t size,
		       const char *name, const struct kp_jit_owner *owner)
{
	struct symvec *sv = ctx;
	struct sym *s;

	if (!path || !name)
		return 0;
	/* Python's pseudo module: named by the PYCODE records */
	if (!strncmp(path, KP_PYTHON_MODULE_PREFIX, sizeof(KP_PYTHON_MODULE_PREFIX) - 1))
		return 0;
	if (sv->n == sv->cap) {
		size_t cap = sv->cap ? 2 * sv->cap : 1024;
		struct sym *nv = realloc(sv->v, cap * sizeof(*nv));

		if (!nv)
			return sv->rc = -ENOMEM;
		sv->v = nv;
		sv->cap = cap;
	}
	s = &sv->v[sv->n];
	memset(s, 0, sizeof(*s));
	s->path = strdup(path);
	s->name = strdup(name);
	if (!s->path || !s->name) {
		free(s->path);
		free(s->name);
		return sv->rc = -ENOMEM;
	}
	s->build_id_len = build_id_len > KP_BUILD_ID_MAX ? KP_BUILD_ID_MAX : build_id_len;
	if (build_id)
		memcpy(s->build_id, build_id, s->build_id_len);
	else
		s->build_id_len = 0;
	s->addr = addr;
	s->size = size;
	if (owner)
		s->owner = *owner;
	sv->n++;
	return 0;
}

static int cmp_owner(const struct kp_jit_owner *a, const struct kp_jit_owner *b)
{
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return a->gen < b->gen ? -1 : a->gen > b->gen;
}

static int same_module(const struct sym *a, const struct sym *b)
{
	return !strcmp(a->path, b->path) && a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len) &&
	       !cmp_owner(&a->owner, &b->owner);
}

static int cmp_sym(const void *x, const void *y)
{
	const struct sym *a = x, *b = y;
	int c = strcmp(a->path, b->path);

	if (c)
		return c;
	c = cmp_owner(&a->owner, &b->owner);	/* one table per JIT owner */
	if (c)
		return c;
	if (a->build_id_len != b->build_id_len)
		return a->build_id_len < b->build_id_len ? -1 : 1;
	c = memcmp(a->build_id, b->build_id, a->build_id_len);
	if (c)
		return c;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->size < b->size ? -1 : a->size > b->size;
}

/* One symbol without a name per start: the largest (sorted last). */
static void keep_largest_unnamed(struct symvec *sv)
{
	size_t i, o = 0;

	for (i = 0; i < sv->n; i++) {
		struct sym *a = &sv->v[i], *b = a + 1;

		if (i + 1 < sv->n && !*a->name && !*b->name && a->addr == b->addr &&
		    same_module(a, b)) {
			free(a->path);
			free(a->name);
			continue;
		}
		sv->v[o++] = *a;
	}
	sv->n = o;
}

/* Encode syms[0..n) (one module, sorted) as one SYMTAB record. */
static int write_symtab(struct kp_pump *p, const struct sym *syms, size_t n,
			struct kp_symbol *tmp, struct kp_err *err)
{
	struct kp_record r = { .type = KP_REC_SYMTAB };
	size_t size;
	uint8_t *buf;
	ssize_t len;
	int rc;

	for (size_t i = 0; i < n; i++)
		tmp[i] = (struct kp_symbol){ .addr = syms[i].addr, .size = syms[i].size,
					     .name = syms[i].name };
	r.symtab.path = syms[0].path;
	r.symtab.build_id_len = syms[0].build_id_len;
	memcpy(r.symtab.build_id, syms[0].build_id, syms[0].build_id_len);
	r.symtab.nr_syms = (uint32_t)n;
	r.symtab.syms = tmp;
	r.symtab.owner = syms[0].owner;
	size = kp_record_encoded_size(&r);
	if (!size)
		return 0;	/* unencodable (a name too long): leave it out */
	buf = malloc(size);
	if (!buf)
		return kp_err_set(err, -ENOMEM, "out of memory");
	len = kp_record_encode(&r, buf, size);
	rc = len > 0 ? wr_records(p, buf, (size_t)len, err) : 0;
	free(buf);
	return rc;
}

static int write_symtabs(struct kp_pump *p, struct symvec *sv, struct kp_err *err)
{
	struct kp_symbol *tmp;
	size_t i = 0, j;
	int rc = 0;

	if (sv->n == 0)	/* sv->v is NULL: no qsort(NULL, 0) */
		return 0;
	qsort(sv->v, sv->n, sizeof(*sv->v), cmp_sym);
	keep_largest_unnamed(sv);
	tmp = malloc(SYMS_PER_RECORD * sizeof(*tmp));
	if (!tmp)
		return kp_err_set(err, -ENOMEM, "out of memory");
	while (i < sv->n && !rc) {
		for (j = i + 1; j < sv->n && j - i < SYMS_PER_RECORD &&
		     same_module(&sv->v[i], &sv->v[j]); j++)
			;
		rc = write_symtab(p, &sv->v[i], j - i, tmp, err);
		i = j;
	}
	free(tmp);
	return rc;
}

static void symvec_free(struct symvec *sv)
{
	for (size_t i = 0; i < sv->n; i++) {
		free(sv->v[i].path);
		free(sv->v[i].name);
	}
	free(sv->v);
}

struct codew {
	struct kp_pump *p;
	struct kp_err *err;
};

/* One CODE record; one that cannot be encoded (a name over the limit)
 * is left out. */
static int write_code(void *ctx, const struct kp_rec_code *c)
{
	struct codew *w = ctx;
	struct kp_record r = { .type = KP_REC_CODE };
	size_t size;
	ssize_t len;
	uint8_t *buf;
	int rc;

	r.code = *c;
	size = kp_record_encoded_size(&r);
	if (!size)
		return 0;
	buf = malloc(size);
	if (!buf)
		return kp_err_set(w->err, -ENOMEM, "out of memory");
	len = kp_record_encode(&r, buf, size);
	rc = len > 0 ? wr_records(w->p, buf, (size_t)len, w->err) : 0;
	free(buf);
	return rc;
}

/* Sync and rename into place, with the checks of util/safefile.h. */
static int finish_file(struct kp_pump *p, struct kp_err *err)
{
	struct kp_safefile *f = p->save_file;

	p->save_file = NULL;
	p->save = NULL;
	return kp_safefile__commit(f, err);
}

int kp_pump__save_stop(struct kp_pump *p, struct kp_err *err)
{
	struct symvec sv = { 0 };
	int rc;

	struct codew cw = { p, err };

	if (!p->save)
		return kp_err_set(err, -EINVAL, "not saving");
	rc = kp_model__foreach_code(p->m, KP_SAVE_CODE_MAX, write_code, &cw);
	if (rc < 0 && err && !err->code)
		kp_err_set(err, rc, "collecting the code of functions: %s", kp_strerror(rc));
	if (rc == 0)
		rc = kp_model__foreach_symbol(p->m, collect_sym, &sv);
	if (rc == 0)
		rc = sv.rc;
	if (rc)
		kp_err_set(err, rc, "collecting the symbol tables: %s", kp_strerror(rc));
	if (rc == 0)
		rc = write_symtabs(p, &sv, err);
	symvec_free(&sv);
	if (rc == 0) {
		uint8_t tail[KP_STREAM_TAIL_MAX];

		rc = wr(p, tail, kp_stream_sum__end(&p->sum, tail), 0, err);
	}
	if (rc == 0)
		rc = finish_file(p, err);
	kp_pump_save_abort(p);	/* frees the names; the file is in place */
	return rc;
}

int kp_pump__saving(const struct kp_pump *p, const char **path, uint64_t *bytes)
{
	if (path)
		*path = p->save ? p->save_path : NULL;
	if (bytes)
		*bytes = p->save ? p->save_bytes : 0;
	return p->save != NULL;
}
