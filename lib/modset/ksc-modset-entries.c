// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The module set's entries (struct ksc_modents): what was read of each module of a list
 * (a tree's, in its order), kept in one place with one owner. Per module: its facts
 * record and summary, and its entry in the index of the last run (what the index had for
 * its path). A record read this run is the entries' own and freed with them; the index's
 * records are borrowed (the index outlives the entries), and ksc_modent_cached() says
 * which of the two a module has.
 */
#include <errno.h>
#include <stdlib.h>

#include "modset/modset.h"

struct ksc_modent {
	struct krec_sum sum;	/* valid once read or taken from the index */
	const struct krec *rec; /* own, or the index's once fetched (NULL until then) */
	struct krec *own;	/* read this run: the entries' */
	uint64_t own_hash;	/* of own (0: not computed) */
	bool cached;		/* sum and rec are the index's */
	size_t old;		/* the index's entry for this path + 1; 0: none */
	const struct kder *old_der; /* ... and its derived record, or NULL */
};

struct ksc_modents {
	struct ksc_modent *ents;
	size_t n;
};

int ksc_modents_new(size_t n, struct ksc_modents **out)
{
	struct ksc_modents *es = calloc(1, sizeof(*es));

	*out = NULL;
	if (!es)
		return -ENOMEM;
	es->ents = calloc(n ? n : 1, sizeof(*es->ents));
	if (!es->ents) {
		free(es);
		return -ENOMEM;
	}
	es->n = n;
	*out = es;
	return 0;
}

void ksc_modents_free(struct ksc_modents *es)
{
	if (!es)
		return;
	for (size_t i = 0; i < es->n; i++)
		free(es->ents[i].own);
	free(es->ents);
	free(es);
}

size_t ksc_modents_count(const struct ksc_modents *es)
{
	return es ? es->n : 0;
}

struct ksc_modent *ksc_modents_at(const struct ksc_modents *es, size_t i)
{
	return &es->ents[i];
}

const struct krec_sum *ksc_modent_sum(const struct ksc_modent *e)
{
	return &e->sum;
}

const struct krec *ksc_modent_rec(const struct ksc_modent *e)
{
	return e->rec;
}

bool ksc_modent_cached(const struct ksc_modent *e)
{
	return e->cached;
}

size_t ksc_modent_old(const struct ksc_modent *e)
{
	return e->old;
}

const struct kder *ksc_modent_old_der(const struct ksc_modent *e)
{
	return e->old_der;
}

void ksc_modent_set_old(struct ksc_modent *e, const struct kidx *idx, size_t k)
{
	e->old = k + 1;
	e->old_der = ksc_kidx_derived(idx) ? ksc_kidx_der(idx, k, NULL) : NULL;
}

void ksc_modent_take_index(struct ksc_modent *e, const struct kidx *idx)
{
	e->sum = *ksc_kidx_module_sum(idx, e->old - 1);
	e->rec = ksc_kidx_module_rec(idx, e->old - 1, NULL); /* NULL until fetched */
	e->cached = true;
}

void ksc_modent_set_fetched(struct ksc_modent *e, const struct krec *rec)
{
	e->rec = rec;
}

int ksc_modent_set_read(struct ksc_modent *e, struct krec *rec, bool hash)
{
	free(e->own);
	e->own = rec;
	e->rec = rec;
	e->own_hash = 0;
	if (!rec)
		return -ENOMEM;
	ksc_krec_sum(rec, &e->sum);
	e->cached = false;
	if (hash)
		e->own_hash = ksc_krec_checksum(rec);
	return 0;
}

uint64_t ksc_modent_rec_hash(const struct ksc_modent *e, const struct kidx *idx)
{
	uint64_t old_hash, h = e->rec == e->own ? e->own_hash : 0;

	if (e->old && e->rec == ksc_kidx_module_rec(idx, e->old - 1, &old_hash))
		h = old_hash; /* the index's record, written back as it was */
	return h;
}
