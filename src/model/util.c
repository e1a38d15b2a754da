// SPDX-License-Identifier: GPL-2.0-only
/* util.c — hashing, growable arrays, the hash table and the string pool
 * used by the model. */
#include "model/model-util.h"
#include "model/scratch.h"
#include "model/mem.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KP_CHUNK 65536
/* Hash tables up to this many slots (32 KB) keep a load under 1/2 and
 * double: a short probe for the small tables looked up per sample (pids). */
#define KP_HTAB_BIG 4096
/* Arrays grow by 1.5x, by 1.125x from this size on: a big array is mmap()ed
 * and realloc() moves its pages without copying them, and its unused
 * capacity (the model's biggest waste with 1.5x) stays under 1/9. */
#define KP_GROW_BIG (256 * 1024)

uint64_t kp_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ull);
	uint64_t w;

	while (n >= 8) {
		memcpy(&w, b, 8);
		h = (h ^ kp_mix64(w)) * 0x100000001b3ull;
		b += 8;
		n -= 8;
	}
	w = 0;
	memcpy(&w, b, n);
	return kp_mix64(h ^ w);
}

int kp_grow(void *pp, size_t *cap, size_t need, size_t elsz)
{
	void **p = pp;
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	ncap = *cap > 16 ? *cap : 16;	/* never stuck at 1 (1 + 1 / 2 == 1) */
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elsz)
			return -ENOMEM;
		ncap += ncap * elsz < KP_GROW_BIG ? ncap / 2 : ncap / 8;
	}
	np = realloc(*p, ncap * elsz);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

/* Make *pp ncap elements long; a failed realloc leaves it as it was. */
static void resize(void *pp, size_t *cap, size_t ncap, size_t elsz)
{
	void **p = pp;
	void *np = realloc(*p, ncap * elsz);

	if (!np)
		return;
	*p = np;
	*cap = ncap;
}

void kp_shrink(void *pp, size_t *cap, size_t nr, size_t elsz)
{
	size_t ncap = nr + nr / 4 + 16;

	if (*cap > 2 * ncap)
		resize(pp, cap, ncap, elsz);
}

void kp_fit(void *pp, size_t *cap, size_t nr, size_t elsz)
{
	size_t ncap = nr + nr / 16 + 16;

	if (*cap > ncap)
		resize(pp, cap, ncap, elsz);
}

static void htab_put(struct kp_htab *h, uint64_t s)
{
	size_t i = kp_htab_pos(h, (uint32_t)(s >> 32));

	while (h->slots[i])
		if (++i == h->n)
			i = 0;
	h->slots[i] = s;
}

static int htab_resize(struct kp_htab *h, size_t nslots)
{
	struct kp_htab old = *h;
	size_t i;

	if (nslots > UINT32_MAX)
		return -ENOMEM;
	h->slots = calloc(nslots, sizeof(*h->slots));
	if (!h->slots) {
		*h = old;
		return -ENOMEM;
	}
	h->n = nslots;
	for (i = 0; i < old.n; i++)
		if (old.slots[i])
			htab_put(h, old.slots[i]);
	free(old.slots);
	return 0;
}

/* The growth policy: are n slots too few for nr entries; the next size
 * up from n. */
static int htab_too_small(size_t n, size_t nr)
{
	return n < KP_HTAB_BIG ? nr * 2 > n : nr * 4 > n * 3;
}

static size_t htab_next(size_t n)
{
	return !n ? 64 : n < KP_HTAB_BIG ? n * 2 : n + n / 4;
}

int kp_htab__insert(struct kp_htab *h, uint32_t hash, uint32_t val)
{
	int err;

	if (htab_too_small(h->n, h->nr + 1)) {
		err = htab_resize(h, htab_next(h->n));
		if (err)
			return err;
	}
	htab_put(h, (uint64_t)hash << 32 | ((uint64_t)val + 1));
	h->nr++;
	return 0;
}

int kp_htab__reserve(struct kp_htab *h, size_t need)
{
	size_t n = h->n ? h->n : htab_next(0);

	while (htab_too_small(n, need))
		n = htab_next(n);
	return n == h->n ? 0 : htab_resize(h, n);
}

void kp_htab__fit(struct kp_htab *h)
{
	size_t n = htab_next(0);

	while (htab_too_small(n, h->nr))
		n = htab_next(n);
	if (!h->nr)
		kp_htab__fini(h);
	else if (h->n > 4 * n)
		(void)htab_resize(h, 2 * n);	/* on -ENOMEM it stays as it was */
}

void kp_htab__clear(struct kp_htab *h)
{
	if (h->n)
		memset(h->slots, 0, h->n * sizeof(*h->slots));
	h->nr = 0;
}

void kp_htab__fini(struct kp_htab *h)
{
	free(h->slots);
	memset(h, 0, sizeof(*h));
}

static char *pool_alloc(struct kp_strpool *p, size_t len)
{
	size_t sz = len > KP_CHUNK ? len : KP_CHUNK;
	char *c;

	if (len <= p->left) {
		c = p->cur;
		p->cur += len;
		p->left -= len;
		return c;
	}
	if (kp_grow(&p->chunks, &p->cap_chunks, p->nr_chunks + 1, sizeof(char *)))
		return NULL;
	c = malloc(sz);
	if (!c)
		return NULL;
	p->chunks[p->nr_chunks++] = c;
	p->bytes += sz;
	if (sz > len) {
		p->cur = c + len;
		p->left = sz - len;
	}
	return c;
}

uint32_t kp_strpool__intern_idx(struct kp_strpool *p, const char *s)
{
	size_t len = strlen(s);
	uint32_t h = (uint32_t)kp_hash_bytes(s, len, 0x5bd1e995);
	uint64_t *found;
	uint32_t v = 0;
	char *c;

	KP_HTAB_FIND(&p->tab, h, v, strcmp(p->strs[v], s) == 0, found);
	if (found)
		return v;
	if (p->nr >= KP_NONE ||
	    kp_grow(&p->strs, &p->cap, p->nr + 1, sizeof(*p->strs)))
		return KP_NONE;
	c = pool_alloc(p, len + 1);
	if (!c)
		return KP_NONE;
	memcpy(c, s, len + 1);
	if (kp_htab__insert(&p->tab, h, (uint32_t)p->nr))
		return KP_NONE;
	p->strs[p->nr] = c;
	return (uint32_t)p->nr++;
}

const char *kp_strpool__intern(struct kp_strpool *p, const char *s)
{
	uint32_t i = kp_strpool__intern_idx(p, s);

	return i == KP_NONE ? NULL : p->strs[i];
}

const char *kp_strpool__store(struct kp_strpool *p, const char *s, size_t len)
{
	char *c = pool_alloc(p, len + 1);

	if (!c)
		return NULL;
	memcpy(c, s, len);
	c[len] = 0;
	return c;
}

const char *kp_strpool__printf(struct kp_strpool *p, const char *fmt, ...)
{
	char buf[KP_PATH_MAX + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return kp_strpool__intern(p, buf);
}

void kp_strpool__fini(struct kp_strpool *p)
{
	size_t i;

	for (i = 0; i < p->nr_chunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	free(p->strs);
	kp_htab__fini(&p->tab);
	memset(p, 0, sizeof(*p));
}

void kp_strpool__bytes(const struct kp_strpool *p, struct kp_mem *a)
{
	kp_mem__put(a, "string bytes", p->bytes + p->cap_chunks * sizeof(char *),
		    p->bytes - p->left + p->nr_chunks * sizeof(char *));
	KP_MEM_ARR(a, "string index", p->strs, p->nr, p->cap);
	KP_MEM_TAB(a, "string table", &p->tab);
}

void *kp_scratch(struct kp_model *m, enum kp_sc slot, size_t bytes, int zero)
{
	struct kp_scratch *sc = &m->sc[slot];

	if (bytes > sc->cap) {
		size_t cap = bytes + bytes / 8;

		free(sc->p);
		sc->p = malloc(cap);
		sc->cap = sc->p ? cap : 0;
		if (!sc->p)
			return NULL;
	}
	if (zero)
		memset(sc->p, 0, bytes);
	return sc->p;
}

void kp_scratch__fini(struct kp_model *m)
{
	size_t i;

	for (i = 0; i < KP_SC_MAX; i++) {
		free(m->sc[i].p);
		m->sc[i].p = NULL;
		m->sc[i].cap = 0;
	}
}

void kp_scratch__bytes(const struct kp_scratch *sc, struct kp_mem *a)
{
	size_t i, b = 0;

	for (i = 0; i < KP_SC_MAX; i++)
		b += sc[i].cap;
	kp_mem__put(a, "view scratch", b, b);
}

/* LSD radix sort on 8-bit digits, skipping digits that are all equal
 * (counts are small integers: most digits are). Stable. */
int kp_sort_keys(struct kp_model *m, struct kp_skey *a, size_t n)
{
	struct kp_skey *tmp = kp_scratch(m, KP_SC_KEYS2, (n ? n : 1) * sizeof(*a), 0);
	struct kp_skey *src = a, *dst = tmp;
	size_t cnt[256], i;
	int shift;

	if (!tmp)
		return -ENOMEM;
	for (shift = 0; shift < 64; shift += 8) {
		size_t sum = 0;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(src[i].k >> shift) & 0xff]++;
		if (n && cnt[(src[0].k >> shift) & 0xff] == n)
			continue;
		for (i = 0; i < 256; i++) {
			size_t c = cnt[i];

			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(src[i].k >> shift) & 0xff]++] = src[i];
		tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	return 0;
}
