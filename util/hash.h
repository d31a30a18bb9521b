/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * A string-keyed open-addressing hash table. Keys are not copied: the caller keeps them
 * alive as long as the table. Written here because neither glibc's hsearch (one global
 * table, no deletion) nor anything in our chosen dependencies offers a reentrant map.
 */
struct hash {
	const char **keys;
	void **values;
	uint64_t *hashes; /* each key's hash, so growing never rehashes the strings */
	size_t n_buckets; /* power of two */
	size_t count;
};

void hash_init(struct hash *h);
void hash_fini(struct hash *h);
/* Insert or replace. 0, or -ENOMEM. With `keep_first`, an existing key is left alone (1). */
int hash_add(struct hash *h, const char *key, void *value, int keep_first);
void *hash_find(const struct hash *h, const char *key);
/* Make room for `n` entries in all, so that adding them never grows the table. */
int hash_reserve(struct hash *h, size_t n);
