// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

/*
 * Eight bytes at a time (symbol names are 20 bytes on average): each word is mixed in by
 * a multiply and a shift, the length too; the last bits are spread down, as the table
 * takes the low bits. In memory only: nothing stores these values.
 */
static uint64_t hash_str(const char *s)
{
	size_t n = strlen(s);
	const unsigned char *p = (const unsigned char *)s;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	for (size_t i = 0; i < n; i++) /* the last 0-7 bytes, without a call to memcpy */
		w |= (uint64_t)p[i] << (8 * i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

void hash_init(struct hash *h)
{
	memset(h, 0, sizeof(*h));
}

void hash_fini(struct hash *h)
{
	free(h->slots);
	hash_init(h);
}

static int hash_resize(struct hash *h, size_t n)
{
	struct hash_slot *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_buckets; i++) {
		const struct hash_slot *o = &h->slots[i];
		if (!o->key)
			continue;
		size_t j = o->hash & (n - 1);
		while (slots[j].key)
			j = (j + 1) & (n - 1);
		slots[j] = *o;
	}
	free(h->slots);
	h->slots = slots;
	h->n_buckets = n;
	return 0;
}

/* Buckets for n entries at a load factor below 3/4. */
static size_t buckets_for(size_t n)
{
	size_t b = 64;

	while (b * 3 <= (n + 1) * 4)
		b *= 2;
	return b;
}

int hash_reserve(struct hash *h, size_t n)
{
	if (n > SIZE_MAX / 32)
		return -ENOMEM;
	size_t b = buckets_for(n);
	return b > h->n_buckets ? hash_resize(h, b) : 0;
}

int hash_add(struct hash *h, const char *key, void *value, int keep_first)
{
	bool added;
	void **slot = hash_slot(h, key, &added);

	if (!slot)
		return -ENOMEM;
	if (!added && keep_first)
		return 1;
	*slot = value;
	return 0;
}

void *hash_find(const struct hash *h, const char *key)
{
	if (!h->n_buckets)
		return NULL;
	uint64_t hv = hash_str(key);
	size_t mask = h->n_buckets - 1;
	size_t j = hv & mask;
	const struct hash_slot *s;

	while ((s = &h->slots[j])->key) {
		if (s->hash == hv && strcmp(s->key, key) == 0)
			return s->value;
		j = (j + 1) & mask;
	}
	return NULL;
}

void **hash_slot(struct hash *h, const char *key, bool *added)
{
	if ((h->count + 1) * 4 >= h->n_buckets * 3 &&
	    hash_resize(h, h->n_buckets ? h->n_buckets * 2 : 64) < 0)
		return NULL;
	uint64_t hv = hash_str(key);
	size_t mask = h->n_buckets - 1;
	size_t j = hv & mask;
	struct hash_slot *s;

	while ((s = &h->slots[j])->key) {
		if (s->hash == hv && strcmp(s->key, key) == 0) {
			*added = false;
			return &s->value;
		}
		j = (j + 1) & mask;
	}
	*s = (struct hash_slot){ hv, key, NULL };
	h->count++;
	*added = true;
	return &s->value;
}

/* ---------------------------------------------------------------------------------- */
/* A fast hash for checksums and fingerprints: four 64-bit lanes, multiply and rotate   */

#define H_P1 0x9e3779b185ebca87ULL
#define H_P2 0xc2b2ae3d27d4eb4fULL
#define H_P3 0x165667b19e3779f9ULL
#define H_P4 0x85ebca77c2b2ae63ULL
#define H_P5 0x27d4eb2f165667c5ULL

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t rd_le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline uint32_t rd_le32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static inline uint64_t lane(uint64_t acc, uint64_t in)
{
	acc += in * H_P2;
	acc = rotl64(acc, 31);
	return acc * H_P1;
}

static inline uint64_t merge(uint64_t h, uint64_t v)
{
	h ^= lane(0, v);
	return h * H_P1 + H_P4;
}

uint64_t ksc_hash64(const void *data, size_t size, uint64_t seed)
{
	/* NULL + 0 is undefined in C: an empty buffer may come as NULL (an empty file). */
	const unsigned char *p = data ? data : (const void *)"", *end = p + size;
	uint64_t h;

	if (size >= 32) {
		uint64_t v1 = seed + H_P1 + H_P2, v2 = seed + H_P2, v3 = seed,
			 v4 = seed - H_P1;
		const unsigned char *limit = end - 32;
		do {
			v1 = lane(v1, rd_le64(p));
			v2 = lane(v2, rd_le64(p + 8));
			v3 = lane(v3, rd_le64(p + 16));
			v4 = lane(v4, rd_le64(p + 24));
			p += 32;
		} while (p <= limit);
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		h = merge(h, v1);
		h = merge(h, v2);
		h = merge(h, v3);
		h = merge(h, v4);
	} else {
		h = seed + H_P5;
	}
	h += (uint64_t)size;
	for (; p + 8 <= end; p += 8) {
		h ^= lane(0, rd_le64(p));
		h = rotl64(h, 27) * H_P1 + H_P4;
	}
	if (p + 4 <= end) {
		h ^= (uint64_t)rd_le32(p) * H_P1;
		h = rotl64(h, 23) * H_P2 + H_P3;
		p += 4;
	}
	for (; p < end; p++) {
		h ^= (*p) * H_P5;
		h = rotl64(h, 11) * H_P1;
	}
	h ^= h >> 33;
	h *= H_P2;
	h ^= h >> 29;
	h *= H_P3;
	h ^= h >> 32;
	return h;
}
