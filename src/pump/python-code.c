// SPDX-License-Identifier: GPL-2.0-only
/* python-code.c — the code objects of Python processes (python-int.h):
 * names kept once per distinct content, and each process's code objects
 * (address and line-table token) pointing at them.
 *
 * Under a churn of short Python processes every process reads the same
 * stdlib functions anew, at new addresses: keyed by process, their names,
 * and the model's pc keys, frames and functions named from them, grew
 * with every process. Keyed by content, a function is one serial however
 * many processes ran it; the per-process keys are given back once their
 * processes are gone (in one pass, when they are half of all keys).
 */
#include "pump/python-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KP_PY_SLOTS_MIN 1024
#define KP_PY_COMPACT_AT 1024	/* keys of processes gone, at least */

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h | 1;
}

static uint64_t key_hash(uint32_t pid, uint32_t gen, uint64_t code, uint32_t token)
{
	return mix(code ^ ((uint64_t)token << 40) ^ ((uint64_t)pid << 20) ^
		   ((uint64_t)gen << 52));
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static uint64_t content_hash(const struct kp_rec_pycode *r)
{
	const char *q = str_or_empty(r->qualname), *f = str_or_empty(r->filename);
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv(h, &r->version, sizeof(r->version));
	h = fnv(h, &r->firstlineno, sizeof(r->firstlineno));
	h = fnv(h, q, strlen(q) + 1);
	h = fnv(h, f, strlen(f) + 1);
	return mix(fnv(h, r->linetable, r->linetable_len));
}

static int content_eq(const struct py_code *c, uint64_t h, const struct kp_rec_pycode *r)
{
	return c->hash == h && c->version == r->version &&
	       c->firstlineno == r->firstlineno &&
	       c->linetable_len == r->linetable_len &&
	       !strcmp(c->qualname, str_or_empty(r->qualname)) &&
	       !strcmp(c->filename, str_or_empty(r->filename)) &&
	       (!r->linetable_len || !memcmp(c->linetable, r->linetable, r->linetable_len));
}

/* A power of two at least twice n (and KP_PY_SLOTS_MIN). */
static size_t slots_for(size_t n)
{
	size_t cap = KP_PY_SLOTS_MIN;

	while (cap < 2 * n)
		cap *= 2;
	return cap;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elsz)
{
	size_t n = *cap ? *cap : 64;
	void *a;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	a = realloc(*arr, n * elsz);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = n;
	return 0;
}

/* ---- names by content ---- */

static void cslot_put(uint32_t *slots, size_t cap, uint64_t h, uint32_t serial)
{
	size_t i = h & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = serial;
}

static int cslots_fit(struct kp_python *py, size_t n)
{
	size_t cap;
	uint32_t *s;

	if (2 * n <= py->cap_cslots)
		return 0;
	cap = slots_for(n);
	s = calloc(cap, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < py->nr_codes; i++)
		cslot_put(s, cap, py->codes[i].hash, (uint32_t)i + 1);
	free(py->cslots);
	py->cslots = s;
	py->cap_cslots = cap;
	return 0;
}

static uint32_t code_find(const struct kp_python *py, uint64_t h,
			  const struct kp_rec_pycode *r)
{
	if (!py->cap_cslots)
		return 0;
	for (size_t i = h & (py->cap_cslots - 1); py->cslots[i];
	     i = (i + 1) & (py->cap_cslots - 1))
		if (content_eq(&py->codes[py->cslots[i] - 1], h, r))
			return py->cslots[i];
	return 0;
}

/* The serial of r's content, added if new; 0 on -ENOMEM. */
static uint32_t code_intern(struct kp_python *py, const struct kp_rec_pycode *r)
{
	uint64_t h = content_hash(r);
	uint32_t serial = code_find(py, h, r);
	struct py_code *c;

	if (serial)
		return serial;
	if (cslots_fit(py, py->nr_codes + 1) ||
	    grow((void **)&py->codes, &py->cap_codes, py->nr_codes + 1, sizeof(*py->codes)))
		return 0;
	c = &py->codes[py->nr_codes];
	memset(c, 0, sizeof(*c));
	c->hash = h;
	c->version = r->version;
	c->firstlineno = r->firstlineno;
	c->qualname = strdup(str_or_empty(r->qualname));
	c->filename = strdup(str_or_empty(r->filename));
	c->linetable = r->linetable_len ? malloc(r->linetable_len) : NULL;
	if (!c->qualname || !c->filename || (r->linetable_len && !c->linetable)) {
		free(c->qualname);
		free(c->filename);
		free(c->linetable);
		return 0;
	}
	if (r->linetable_len)
		memcpy(c->linetable, r->linetable, r->linetable_len);
	c->linetable_len = r->linetable_len;
	cslot_put(py->cslots, py->cap_cslots, h, (uint32_t)++py->nr_codes);
	return (uint32_t)py->nr_codes;
}

/* ---- each process's code objects ---- */

static void kslot_put(uint32_t *slots, size_t cap, const struct py_key *k, uint32_t idx)
{
	size_t i = key_hash(k->pid, k->gen, k->code, k->token) & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = idx;
}

/* Slots for n keys, rebuilt from keys[0..nr_keys). */
static int kslots_build(struct kp_python *py, size_t n)
{
	size_t cap = slots_for(n);
	uint32_t *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < py->nr_keys; i++)
		kslot_put(s, cap, &py->keys[i], (uint32_t)i + 1);
	free(py->kslots);
	py->kslots = s;
	py->cap_kslots = cap;
	return 0;
}

static struct py_key *key_find(const struct kp_python *py, const struct py_proc *p,
			       uint64_t code, uint32_t token)
{
	size_t i;

	if (!py->cap_kslots)
		return NULL;
	i = key_hash(p->pid, p->gen, code, token) & (py->cap_kslots - 1);
	for (; py->kslots[i]; i = (i + 1) & (py->cap_kslots - 1)) {
		struct py_key *k = &py->keys[py->kslots[i] - 1];

		if (k->pid == p->pid && k->gen == p->gen && k->code == code &&
		    k->token == token)
			return k;
	}
	return NULL;
}

uint32_t kp_py_code_find(const struct kp_python *py, const struct py_proc *p,
			 uint64_t code, uint32_t token)
{
	const struct py_key *k = key_find(py, p, code, token);

	return k ? k->serial : 0;
}

/* A newer record of a known key (a code object freed and its address
 * reused with the same token) replaces its names for later samples. */
int kp_py_code_add(struct kp_python *py, struct py_proc *p,
		   const struct kp_rec_pycode *rec)
{
	uint32_t serial = code_intern(py, rec);
	struct py_key *k;

	if (!serial)
		return -ENOMEM;
	k = key_find(py, p, rec->code, rec->token);
	if (k) {
		k->serial = serial;
		return 0;
	}
	if ((2 * (py->nr_keys + 1) > py->cap_kslots && kslots_build(py, 2 * (py->nr_keys + 1))) ||
	    grow((void **)&py->keys, &py->cap_keys, py->nr_keys + 1, sizeof(*py->keys)))
		return -ENOMEM;
	k = &py->keys[py->nr_keys++];
	*k = (struct py_key){ .code = rec->code, .pid = p->pid, .gen = p->gen,
			      .token = rec->token, .serial = serial };
	kslot_put(py->kslots, py->cap_kslots, k, (uint32_t)py->nr_keys);
	p->nkeys++;
	return 0;
}

static int key_live(struct kp_python *py, const struct py_key *k)
{
	const struct py_proc *p = kp_py_proc(py, k->pid, 0);

	return p && p->gen == k->gen;
}

/* Drop the keys of processes gone, when they are half of all (and
 * many): one pass, then the slots rebuilt. On -ENOMEM nothing changes. */
void kp_py_code_gone(struct kp_python *py, uint32_t nkeys)
{
	size_t live = 0, j = 0;
	uint32_t *old;
	size_t old_cap;

	py->dead_keys += nkeys;
	if (py->dead_keys < KP_PY_COMPACT_AT || 2 * py->dead_keys < py->nr_keys)
		return;
	for (size_t i = 0; i < py->nr_keys; i++)
		live += key_live(py, &py->keys[i]);
	old = py->kslots;
	old_cap = py->cap_kslots;
	py->kslots = NULL;
	py->cap_kslots = 0;
	for (size_t i = 0; i < py->nr_keys; i++)
		if (key_live(py, &py->keys[i]))
			py->keys[j++] = py->keys[i];
	py->nr_keys = j;
	if (kslots_build(py, live)) {	/* cannot be: rebuild in place */
		py->kslots = old;
		py->cap_kslots = old_cap;
		memset(old, 0, old_cap * sizeof(*old));
		for (size_t i = 0; i < py->nr_keys; i++)
			kslot_put(old, old_cap, &py->keys[i], (uint32_t)i + 1);
	} else {
		free(old);
	}
	py->dead_keys = 0;
}

int kp_py_code_foreach(struct kp_python *py, kp_python_emit emit, void *ctx)
{
	struct kp_record r = { .type = KP_REC_PYCODE };
	int rc = 0;

	for (size_t i = 0; i < py->nr_keys && !rc; i++) {
		const struct py_key *k = &py->keys[i];
		const struct py_code *c = &py->codes[k->serial - 1];

		if (!key_live(py, k))
			continue;
		r.pycode = (struct kp_rec_pycode){
			.pid = k->pid, .code = k->code, .token = k->token,
			.version = c->version, .firstlineno = c->firstlineno,
			.qualname = c->qualname, .filename = c->filename,
			.linetable_len = c->linetable_len, .linetable = c->linetable,
		};
		rc = emit(ctx, &r);
	}
	return rc;
}

void kp_py_code_free(struct kp_python *py)
{
	for (size_t i = 0; i < py->nr_codes; i++) {
		free(py->codes[i].qualname);
		free(py->codes[i].filename);
		free(py->codes[i].linetable);
	}
	free(py->codes);
	free(py->cslots);
	free(py->keys);
	free(py->kslots);
}
