// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdlib.h>
#include <string.h>

#include "pool.h"

#define POOL_CHUNK_SIZE 16384

struct pool_chunk {
	struct pool_chunk *next;
	size_t used, size;
	char data[];
};

void pool_init(struct pool *p)
{
	p->head = NULL;
}

void pool_fini(struct pool *p)
{
	struct pool_chunk *c = p->head;

	while (c) {
		struct pool_chunk *next = c->next;
		free(c);
		c = next;
	}
	p->head = NULL;
}

const char *pool_strndup(struct pool *p, const char *s, size_t len)
{
	struct pool_chunk *c = p->head;

	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > POOL_CHUNK_SIZE ? len + 1 : POOL_CHUNK_SIZE;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = size;
		c->next = p->head;
		p->head = c;
	}
	char *d = c->data + c->used;
	memcpy(d, s, len);
	d[len] = '\0';
	c->used += len + 1;
	return d;
}

const char *pool_strdup(struct pool *p, const char *s)
{
	return pool_strndup(p, s, strlen(s));
}
