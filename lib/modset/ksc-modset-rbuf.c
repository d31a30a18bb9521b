// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The buffer records are built in (struct rbuf, modset.h): bytes laid out at aligned
 * offsets, and a string table in which each string is interned once (a record's strings
 * are offsets into it). Used for facts records, derived records and the index's tables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modset/modset.h"
#include "util/array.h"
/* ---------------------------------------------------------------------------------- */
/* Record buffers                                                                     */

void rbuf_init(struct rbuf *b)
{
	memset(b, 0, sizeof(*b));
	b->s = malloc(256);
	if (!b->s) {
		b->oom = 1;
		return;
	}
	b->scap = 256;
	b->s[0] = '\0';
	b->sn = 1;
}

void rbuf_fini(struct rbuf *b)
{
	free(b->p);
	free(b->s);
	free(b->tab);
	memset(b, 0, sizeof(*b));
}

size_t rbuf_put(struct rbuf *b, size_t size, size_t align)
{
	size_t at = (b->n + align - 1) & ~(align - 1);

	if (b->oom)
		return 0;
	if (array_reserve(b->p, b->cap, at + size, 1024) < 0) {
		b->oom = 1;
		return 0;
	}
	memset(b->p + b->n, 0, at + size - b->n);
	b->n = at + size;
	return at;
}

/* Eight bytes at a time: symbol names are short, and there are hundreds of thousands. */
static uint32_t str_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;

	for (; len >= 8; s += 8, len -= 8) {
		uint64_t v;
		memcpy(&v, s, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (len) {
		uint64_t v = 0;
		memcpy(&v, s, len);
		h = (h ^ v) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	return (uint32_t)h;
}

static int tab_grow(struct rbuf *b)
{
	size_t cap = b->tab_cap ? b->tab_cap * 2 : 256;
	struct rbuf_slot *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < b->tab_cap; i++) {
		if (!b->tab[i].off1)
			continue;
		size_t j = b->tab[i].hash & (cap - 1);
		while (t[j].off1)
			j = (j + 1) & (cap - 1);
		t[j] = b->tab[i];
	}
	free(b->tab);
	b->tab = t;
	b->tab_cap = cap;
	return 0;
}

void rbuf_reserve_strings(struct rbuf *b, size_t n)
{
	size_t cap = 256;

	while (cap < n * 2)
		cap *= 2;
	if (cap <= b->tab_cap || b->tab_n)
		return;
	struct rbuf_slot *t = calloc(cap, sizeof(*t));
	if (!t)
		return; /* it grows as needed then */
	free(b->tab);
	b->tab = t;
	b->tab_cap = cap;
}

uint32_t rbuf_str(struct rbuf *b, const char *s, size_t len)
{
	if (len == 0 || b->oom)
		return 0;
	if ((b->tab_n + 1) * 2 > b->tab_cap && tab_grow(b) < 0) {
		b->oom = 1;
		return 0;
	}
	uint32_t h = str_hash(s, len);
	size_t j = h & (b->tab_cap - 1);
	while (b->tab[j].off1) {
		uint32_t off = b->tab[j].off1 - 1;
		if (b->tab[j].hash == h && b->sn - off > len &&
		    memcmp(b->s + off, s, len) == 0 && b->s[off + len] == '\0')
			return off;
		j = (j + 1) & (b->tab_cap - 1);
	}
	/* string offsets are 32-bit */
	if (b->sn + len + 1 > UINT32_MAX / 2 ||
	    array_reserve(b->s, b->scap, b->sn + len + 1, 256) < 0) {
		b->oom = 1;
		return 0;
	}
	uint32_t off = (uint32_t)b->sn;
	memcpy(b->s + off, s, len);
	b->s[off + len] = '\0';
	b->sn += len + 1;
	b->tab[j] = (struct rbuf_slot){ off + 1, h };
	b->tab_n++;
	return off;
}

void rbuf_write(struct rbuf *b, size_t off, const void *src, size_t n)
{
	if (!b->oom && n)
		memcpy(b->p + off, src, n);
}

bool rbuf_failed(const struct rbuf *b)
{
	return b->oom != 0;
}

uint32_t rbuf_cstr(struct rbuf *b, const char *s)
{
	return s ? rbuf_str(b, s, strlen(s)) : KREC_NONE;
}

void rbuf_reset(struct rbuf *b)
{
	if (!b->s) {
		rbuf_init(b);
		return;
	}
	b->n = 0;
	b->s[0] = '\0';
	b->sn = 1;
	b->oom = 0;
	if (b->tab_cap > 4096) { /* after a huge module: not cleared for every small one */
		free(b->tab);
		b->tab = NULL;
		b->tab_cap = 0;
	} else if (b->tab_n) {
		memset(b->tab, 0, b->tab_cap * sizeof(*b->tab));
	}
	b->tab_n = 0;
}

/* Append the string table, fix up `strtab` and the size, pad: 0 or -ENOMEM. */
static int finish_in_place(struct rbuf *b, size_t strtab_field_off)
{
	size_t at = rbuf_put(b, b->sn, 1);

	if (b->oom)
		return -ENOMEM;
	memcpy(b->p + at, b->s, b->sn);
	struct krange g = { (uint32_t)at, (uint32_t)b->sn };
	memcpy(b->p + strtab_field_off, &g, sizeof(g));
	rbuf_put(b, 0, 8);
	if (b->oom || b->n > UINT32_MAX)
		return -ENOMEM;
	/* record size: the first two u32 are magic and size */
	uint32_t sz = (uint32_t)b->n;
	memcpy(b->p + 4, &sz, 4);
	return 0;
}

void *rbuf_finish(struct rbuf *b, size_t strtab_field_off, size_t *size)
{
	if (finish_in_place(b, strtab_field_off) < 0)
		return NULL;
	void *p = b->p;
	*size = b->n;
	b->p = NULL;
	b->n = b->cap = 0;
	return p;
}

void *rbuf_finish_copy(struct rbuf *b, size_t strtab_field_off, size_t *size)
{
	if (finish_in_place(b, strtab_field_off) < 0)
		return NULL;
	void *c = malloc(b->n);
	if (!c) {
		b->oom = 1;
		return NULL;
	}
	memcpy(c, b->p, b->n);
	*size = b->n;
	return c;
}
