// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

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

/*
 * XXH64 (libxxhash): the index's checksums and the fingerprints are stored, so the values
 * must never change; tests/unit/test-util.c holds XXH64's published vectors.
 */
uint64_t ksc_hash64(const void *data, size_t size, uint64_t seed)
{
	/* an empty buffer may come as NULL (an empty file) */
	return XXH64(data ? data : "", size, seed);
}
