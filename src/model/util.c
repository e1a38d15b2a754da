/* util.c — hashing, growable arrays, the hash table and the string pool
 * used by the model. */
#include "model/model-int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KP_CHUNK 65536

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
	ncap = *cap ? *cap : 16;
	while (ncap < need)	/* 1.5x: less slack in the big arrays */
		ncap += ncap / 2;
	if (ncap > SIZE_MAX / elsz)
		return -ENOMEM;
	np = realloc(*p, ncap * elsz);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

static void htab_put(uint64_t *slots, size_t mask, uint64_t s)
{
	size_t i = (uint32_t)(s >> 32) & mask;

	while (slots[i])
		i = (i + 1) & mask;
	slots[i] = s;
}

static int htab_resize(struct kp_htab *h, size_t nslots)
{
	uint64_t *ns = calloc(nslots, sizeof(*ns));
	size_t i;

	if (!ns)
		return -ENOMEM;
	for (i = 0; h->mask && i <= h->mask; i++)
		if (h->slots[i])
			htab_put(ns, nslots - 1, h->slots[i]);
	free(h->slots);
	h->slots = ns;
	h->mask = nslots - 1;
	return 0;
}

int kp_htab__insert(struct kp_htab *h, uint32_t hash, uint32_t val)
{
	int err;

	if (!h->mask || (h->nr + 1) * 2 > h->mask + 1) {
		err = htab_resize(h, h->mask ? (h->mask + 1) * 2 : 64);
		if (err)
			return err;
	}
	htab_put(h->slots, h->mask, (uint64_t)hash << 32 | ((uint64_t)val + 1));
	h->nr++;
	return 0;
}

void kp_htab__clear(struct kp_htab *h)
{
	if (h->mask)
		memset(h->slots, 0, (h->mask + 1) * sizeof(*h->slots));
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

const char *kp_strpool__intern(struct kp_strpool *p, const char *s)
{
	size_t len = strlen(s);
	uint32_t h = (uint32_t)kp_hash_bytes(s, len, 0x5bd1e995);
	uint64_t *found;
	uint32_t v = 0;
	char *c;

	KP_HTAB_FIND(&p->tab, h, v, strcmp(p->strs[v], s) == 0, found);
	if (found)
		return p->strs[v];
	if (kp_grow(&p->strs, &p->cap, p->nr + 1, sizeof(*p->strs)))
		return NULL;
	c = pool_alloc(p, len + 1);
	if (!c)
		return NULL;
	memcpy(c, s, len + 1);
	if (kp_htab__insert(&p->tab, h, (uint32_t)p->nr))
		return NULL;
	p->strs[p->nr++] = c;
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

void *kp_scratch(struct kp_model *m, enum kp_sc slot, size_t bytes, int zero)
{
	struct kp_scratch *sc = &m->sc[slot];

	if (bytes > sc->cap) {
		size_t cap = bytes + bytes / 4;

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
