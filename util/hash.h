/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A string-keyed open-addressing hash table. Keys are not copied: the caller keeps them
 * alive as long as the table. Written here because neither glibc's hsearch (one global
 * table, no deletion) nor anything in our chosen dependencies offers a reentrant map.
 */
struct hash_slot {
	uint64_t hash; /* the key's hash: growing never rehashes the strings */
	const char *key; /* NULL: empty */
	void *value;
};

/* One array of slots: a probe reads one cache line, not one per field. */
struct hash {
	struct hash_slot *slots;
	size_t n_buckets; /* power of two */
	size_t count;
};

void hash_init(struct hash *h);
void hash_fini(struct hash *h);
/* Insert or replace. 0, or -ENOMEM. With `keep_first`, an existing key is left alone (1). */
int hash_add(struct hash *h, const char *key, void *value, int keep_first);
void *hash_find(const struct hash *h, const char *key);
/*
 * The value slot of `key`, added (value NULL, *added true) when missing: one probe for a
 * lookup that may insert. NULL when out of memory. The slot moves when the table grows.
 */
void **hash_slot(struct hash *h, const char *key, bool *added);
/* Make room for `n` entries in all, so that adding them never grows the table. */
int hash_reserve(struct hash *h, size_t n);
/* Slot i (0 <= i < h->n_buckets) in table order: its key, or NULL when empty. */
static inline const char *hash_slot_key(const struct hash *h, size_t i, void **value)
{
	if (value)
		*value = h->slots[i].value;
	return h->slots[i].key;
}

/* XXH64 of bytes (not cryptographic): index checksums and fingerprints, stored on disk. */
uint64_t ksc_hash64(const void *data, size_t size, uint64_t seed);
