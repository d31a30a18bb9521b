// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Step 2 of ksc_tree_open(): every module not known to the index is read in the workers,
 * each file into one facts record by a reader of the module set (ksc-modset-read.c); the
 * index's records are fetched when they are needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree-private.h"

/*
 * Read module m with reader w: its record, kept by its entry (with its checksum when
 * `hash`). 0, or -ENOMEM (the entry has no record).
 */
static int read_module(struct ksc_tree *t, struct tmod *m, struct ksc_mreader *w, bool hash)
{
	int fl = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	struct ksc_mread in = { .path = m->path,
				.relpath = m->relpath,
				.start_ns = tree_start_ns(t),
				.timing = tree_opts(t)->timing };

	in.fd = m->in_root ? tree_openat(t, m->relpath, fl)
			   : openat(tree_dfd(t), m->relpath, fl);
	in.open_err = in.fd < 0 ? -errno : 0;
	return ksc_modent_set_read(m->ent, ksc_mreader_read(w, &in), hash);
}

struct read_job {
	struct ksc_mreader **ws;
	bool use_index;
};

/* Module m's file is the one the index read: take the index's record. */
static bool still_indexed(const struct kidx *idx, struct tmod *m, int dfd, const char *name)
{
	size_t old = ksc_modent_old(m->ent);
	const struct krec_sum *o = old ? ksc_kidx_module_sum(idx, old - 1) : NULL;

	/* below a link: read again */
	if (m->in_root || !ksc_krec_sum_same_file(o, dfd, name))
		return false;
	ksc_modent_take_index(m->ent, idx); /* its record fetched when needed */
	return true;
}

static void read_one(struct ksc_tree *t, struct read_job *j, struct tmod *m,
		     struct ksc_mreader *w, int dfd, const char *name)
{
	if (j->use_index && still_indexed(tree_kidx(t), m, dfd, name))
		return;
	/* its checksum here, in parallel, not when the index is saved */
	read_module(t, m, w, tree_index_path(t) != NULL);
}

static void read_item(struct tpool *p, size_t i, unsigned int worker)
{
	struct ksc_tree *t = p->t;
	struct read_job *j = p->data;

	read_one(t, j, tree_mod(t, i), j->ws[worker], tree_dfd(t), tree_mod(t, i)->relpath);
}

/* The workers' times and byte counts into the statistics; their state freed. */
static int workers_fini(struct ksc_tree *t, struct ksc_mreader **ws, unsigned int jobs)
{
	int oom = 0;

	for (unsigned int i = 0; i < jobs; i++) {
		struct ksc_mread_stats st;
		if (!ws[i])
			continue;
		oom |= ksc_mreader_stats(ws[i], &st);
		tree_stats(t)->cpu_read += (double)st.ns_read / 1e9;
		tree_stats(t)->cpu_decompress += (double)st.ns_decompress / 1e9;
		tree_stats(t)->cpu_parse += (double)st.ns_parse / 1e9;
		tree_stats(t)->bytes_read += st.bytes_read;
		tree_stats(t)->bytes_decompressed += st.bytes_decompressed;
		ksc_mreader_free(ws[i]);
	}
	free(ws);
	return oom;
}

int read_modules(struct ksc_tree *t, unsigned int jobs, const size_t *items, size_t n_items,
		 void (*side)(struct ksc_tree *))
{
	const size_t n_mods = tree_n_mods(t);
	struct ksc_mreader **ws = calloc(jobs, sizeof(*ws));
	int r = 0;

	if (!ws)
		return -ENOMEM;
	for (unsigned int i = 0; i < jobs && r == 0; i++)
		r = ksc_mreader_new(&ws[i]);
	if (r == 0) {
		struct read_job rj = { ws, tree_has_index(t) };
		struct tpool p = { .n = items ? n_items : n_mods,
				   .items = items,
				   .fn = read_item,
				   .data = &rj };
		run_pool(t, &p, jobs, side, "read");
	}
	int oom = workers_fini(t, ws, jobs);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_mods; i++) {
		const struct ksc_modent *e = tree_mod(t, i)->ent;
		if (!ksc_modent_rec(e) && !ksc_modent_cached(e))
			oom = 1;
		else if (ksc_modent_cached(e))
			tree_stats(t)->cached++;
		else
			tree_stats(t)->read++;
	}
	return oom ? -ENOMEM : 0;
}

/* ---------------------------------------------------------------------------------- */
/* Records of the index, read when needed                                             */

/* Read module m again (the main thread): its index record is corrupt. */
static int reread(struct ksc_tree *t, struct tmod *m)
{
	struct ksc_mreader *w;
	struct ksc_mread_stats st;

	if (ksc_mreader_new(&w) < 0)
		return -ENOMEM;
	int r = read_module(t, m, w, false);
	bool oom = ksc_mreader_stats(w, &st);
	ksc_mreader_free(w);
	if (oom || r < 0)
		return -ENOMEM;
	tree_set_dirty(t, true);
	return 0;
}

/* The facts record of a module found in the index: fetched now (main thread only). */
const struct krec *need_rec(struct ksc_tree *t, struct tmod *m)
{
	const struct krec *r;

	if (ksc_modent_rec(m->ent))
		return ksc_modent_rec(m->ent);
	int e = ksc_kidx_fetch(tree_kidx(t), ksc_modent_old(m->ent) - 1, &r);
	if (e == 0) {
		ksc_modent_set_fetched(m->ent, r);
		return r;
	}
	if (e != -ENOMEM) {
		ksc_warn(tree_ctx(t), "%s: the index's record of %s is corrupt: read again",
			 tree_index_path(t), m->relpath);
		if (reread(t, m) == 0)
			return ksc_modent_rec(m->ent);
	}
	return NULL;
}

/* Every record in memory, before work on all modules or in threads. */
int ensure_records(struct ksc_tree *t)
{
	const size_t n_mods = tree_n_mods(t);
	bool missing = false;

	for (size_t i = 0; i < n_mods && !missing; i++)
		missing = !ksc_modent_rec(tree_mod(t, i)->ent);
	if (!missing)
		return 0;
	if (tree_has_index(t) && ksc_kidx_fetch_all(tree_kidx(t)) == 0) {
		for (size_t i = 0; i < n_mods; i++) {
			struct ksc_modent *e = tree_mod(t, i)->ent;
			if (ksc_modent_rec(e) || !ksc_modent_cached(e))
				continue;
			size_t k = ksc_modent_old(e) - 1;
			ksc_modent_set_fetched(e,
					       ksc_kidx_module_rec(tree_kidx(t), k, NULL));
		}
	}
	for (size_t i = 0; i < n_mods; i++)
		if (!ksc_modent_rec(tree_mod(t, i)->ent) && !need_rec(t, tree_mod(t, i)))
			return -ENOMEM;
	return 0;
}

