// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

/* FNV-1a: short keys (symbol names), good spread, no allocation. */
static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

void hash_init(struct hash *h)
{
	memset(h, 0, sizeof(*h));
}

void hash_fini(struct hash *h)
{
	free(h->keys);
	free(h->values);
	hash_init(h);
}

static int hash_grow(struct hash *h)
{
	size_t n = h->n_buckets ? h->n_buckets * 2 : 64;
	const char **keys = calloc(n, sizeof(*keys));
	void **values = calloc(n, sizeof(*values));

	if (!keys || !values) {
		free(keys);
		free(values);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->n_buckets; i++) {
		if (!h->keys[i])
			continue;
		size_t j = hash_str(h->keys[i]) & (n - 1);
		while (keys[j])
			j = (j + 1) & (n - 1);
		keys[j] = h->keys[i];
		values[j] = h->values[i];
	}
	free(h->keys);
	free(h->values);
	h->keys = keys;
	h->values = values;
	h->n_buckets = n;
	return 0;
}

int hash_add(struct hash *h, const char *key, void *value, int keep_first)
{
	if ((h->count + 1) * 4 >= h->n_buckets * 3) {
		int r = hash_grow(h);
		if (r < 0)
			return r;
	}
	size_t mask = h->n_buckets - 1;
	size_t j = hash_str(key) & mask;

	while (h->keys[j]) {
		if (strcmp(h->keys[j], key) == 0) {
			if (keep_first)
				return 1;
			h->values[j] = value;
			return 0;
		}
		j = (j + 1) & mask;
	}
	h->keys[j] = key;
	h->values[j] = value;
	h->count++;
	return 0;
}

void *hash_find(const struct hash *h, const char *key)
{
	if (!h->n_buckets)
		return NULL;
	size_t mask = h->n_buckets - 1;
	size_t j = hash_str(key) & mask;

	while (h->keys[j]) {
		if (strcmp(h->keys[j], key) == 0)
			return h->values[j];
		j = (j + 1) & mask;
	}
	return NULL;
}
