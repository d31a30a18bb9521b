// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The index of the last run as the tree uses it: opened (its header and bounds checked,
 * the rest while the walk is replayed), attached to the modules of the walk by path,
 * and saved when this run changed what it says.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree-private.h"

/* Modules whose only change is their key: the index is rewritten above this many. */
#define STALE_MAX 32

/*
 * This file's part of the tree (index_of()): what became of the index, and whether
 * this run's modules get verdicts (plan_work()). The index itself (struct kidx) is read
 * by the walk and the reading, below this file: it stays in the tree's core
 * (ksc-tree-state.c, tree_kidx()).
 */
struct tree_index {
	enum ksc_tree_index_state state;
	bool verdicts_on;
};

static struct tree_index *index_of(const struct ksc_tree *t)
{
	return tree_parts(t)->index;
}

int index_part_new(struct ksc_tree *t)
{
	struct tree_index *x = calloc(1, sizeof(*x));

	if (!x)
		return -ENOMEM;
	tree_parts(t)->index = x;
	return 0;
}

void index_part_free(struct ksc_tree *t)
{
	free(index_of(t));
	tree_parts(t)->index = NULL;
}

enum ksc_tree_index_state index_state(const struct ksc_tree *t)
{
	return index_of(t)->state;
}

bool verdicts_wanted(const struct ksc_tree *t)
{
	return index_of(t)->verdicts_on;
}

/* The index cannot be used (r: why): said, and rebuilt. */
void drop_index(struct ksc_tree *t, int r)
{
	ksc_warn(tree_ctx(t), "%s: %s, rebuilt", tree_index_path(t),
		 r == -EINVAL ? "index corrupt, truncated or of another format"
			      : strerror(-r));
	ksc_kidx_free(tree_kidx(t));
	tree_set_has_index(t, false);
	index_of(t)->state = KSC_TREE_INDEX_REBUILT;
}

/*
 * The index, opened: its header and the bounds of its tables are checked, the rest is
 * (ksc_kidx_finish()) while pre_stat() starts on it, or before anything else uses it.
 */
void load_index(struct ksc_tree *t)
{
	int r = ksc_kidx_open(tree_index_path(t), tree_kidx(t));

	if (r == -ENOENT) {
		index_of(t)->state = KSC_TREE_INDEX_ABSENT;
		return;
	}
	if (r == 0 && (strcmp(ksc_kidx_moddir(tree_kidx(t)), tree_moddir(t)) != 0 ||
		       strcmp(ksc_kidx_release(tree_kidx(t)), tree_release(t)) != 0)) {
		r = ksc_kidx_finish(tree_kidx(t)); /* corrupt, or really another tree's */
		if (r == 0) {
			ksc_warn(tree_ctx(t), "%s: index of another tree (%s), rebuilt",
				 tree_index_path(t), ksc_kidx_moddir(tree_kidx(t)));
			ksc_kidx_free(tree_kidx(t));
			index_of(t)->state = KSC_TREE_INDEX_REBUILT;
			return;
		}
	}
	tree_set_has_index(t, true);
	if (r < 0) {
		drop_index(t, r);
		return;
	}
	index_of(t)->state = KSC_TREE_INDEX_USED;
}

/* Attach the index's records to the modules of the walk (by path). */
int attach_index(struct ksc_tree *t)
{
	const size_t n_mods = tree_n_mods(t);
	struct hash h;
	size_t n = ksc_kidx_count(tree_kidx(t));

	/*
	 * The walk of the last run, in its order (the usual re-check): entry i is module
	 * i, by construction (cached_walk() takes no list with a name twice).
	 */
	if (walk_replayed(t) && n_mods == n) {
		for (size_t i = 0; i < n_mods; i++)
			ksc_modent_set_old(tree_mod(t, i)->ent, tree_kidx(t), i);
		return 0;
	}
	hash_init(&h);
	for (size_t i = 0; i < n; i++) {
		const char *rel = ksc_kidx_module(tree_kidx(t), i, NULL, NULL, NULL);
		int r = hash_add(&h, rel, (void *)(uintptr_t)(i + 1), 1);
		if (r == 1) {
			ksc_warn(tree_ctx(t), "%s: index lists %s twice, rebuilt",
				 tree_index_path(t), rel);
			hash_fini(&h);
			ksc_kidx_free(tree_kidx(t));
			tree_set_has_index(t, false);
			index_of(t)->state = KSC_TREE_INDEX_REBUILT;
			return 0;
		}
		if (r < 0) {
			hash_fini(&h);
			return r;
		}
	}
	for (size_t i = 0; i < n_mods; i++) {
		uintptr_t old = (uintptr_t)hash_find(&h, tree_mod(t, i)->relpath);
		if (!old)
			continue;
		ksc_modent_set_old(tree_mod(t, i)->ent, tree_kidx(t), old - 1);
	}
	hash_fini(&h);
	return 0;
}

/*
 * Module m's results from the index: its dependencies and unresolved symbols (m->dm_ok),
 * all of its derived record when nothing it depends on changed. 0 or -ENOMEM.
 */
static int reuse_derived(struct tmod *m, bool checkable)
{
	const struct kder *od = ksc_modent_old_der(m->ent);

	m->deps = (uint32_t *)kder_arr(od, od->deps);
	m->n_deps = od->deps.n;
	m->deps_own = false;
	const struct kder_unres *u = kder_arr(od, od->unres);
	m->unres = NULL; /* most modules: nothing to copy */
	m->n_unres = 0;
	m->unres_own = false;
	if (od->unres.n) {
		m->unres = malloc(od->unres.n * sizeof(*m->unres));
		if (!m->unres)
			return -ENOMEM;
		m->unres_own = true;
		for (size_t k = 0; k < od->unres.n; k++)
			m->unres[k] = (struct tunres){ kder_str(od, u[k].name), u[k].kind };
		m->n_unres = od->unres.n;
	}
	/* Reused as a whole when nothing it depends on changed. */
	bool no_verdict = !checkable && !(od->flags & KDER_F_CHECKED);
	if (m->eng_ok || no_verdict)
		m->der = od;
	return 0;
}

int plan_work(struct ksc_tree *t, struct tree_work *w)
{
	const size_t n_mods = tree_n_mods(t);
	index_of(t)->verdicts_on = !tree_opts(t)->no_check && kernel_found(t);
	const struct kidx *idx = tree_kidx(t);
	bool same_ctx = tree_has_index(t) && ksc_kidx_derived(idx) &&
			ksc_kidx_fp(idx, KIDX_FP_CTX) == tree_fps(t)->ctx;
	bool dm_world = same_ctx && ksc_kidx_fp(idx, KIDX_FP_DM_WORLD) == tree_fps(t)->dm;
	bool eng_world = same_ctx &&
			 ksc_kidx_fp(idx, KIDX_FP_ENG_WORLD) == tree_fps(t)->eng;

	w->resolve = malloc((n_mods ? n_mods : 1) * sizeof(size_t));
	w->check = malloc((n_mods ? n_mods : 1) * sizeof(size_t));
	if (!w->resolve || !w->check)
		return -ENOMEM;
	for (size_t i = 0; i < n_mods; i++) {
		struct tmod *m = tree_mod(t, i);
		const struct kder *od = ksc_modent_old_der(m->ent);
		const struct krec_sum *s = ksc_modent_sum(m->ent);
		bool checkable = index_of(t)->verdicts_on && ksc_krec_sum_is_module(s);
		const struct krec_sum *os =
			od ? ksc_kidx_module_sum(idx, ksc_modent_old(m->ent) - 1) : NULL;
		m->dm_ok = dm_world && od &&
			   ksc_krec_sum_hash(os, KREC_H_KMOD) ==
				   ksc_krec_sum_hash(s, KREC_H_KMOD);
		m->eng_ok = eng_world && od &&
			    ksc_krec_sum_hash(os, KREC_H_FACTS) ==
				    ksc_krec_sum_hash(s, KREC_H_FACTS);
		m->need_resolve = !m->dm_ok;
		m->need_check = !m->eng_ok && checkable;
		if (m->need_resolve)
			w->resolve[w->n_resolve++] = i;
		else if (reuse_derived(m, checkable) < 0)
			return -ENOMEM;
		if (m->need_check)
			w->check[w->n_check++] = i;
	}
	tree_stats(t)->checked = w->n_check;
	return 0;
}

/*
 * Does the index need writing? Not when all that changed is the key of modules read
 * again with identical facts (touched, copied with a new inode): those are read again
 * next time too, until more than STALE_MAX of them make a rewrite worth it.
 */
bool index_is_stale(const struct ksc_tree *t)
{
	const size_t n_mods = tree_n_mods(t);
	const struct kidx *idx = tree_kidx(t);
	if (!tree_has_index(t) || ksc_kidx_count(idx) != n_mods ||
	    ksc_kidx_fp(idx, KIDX_FP_CTX) != tree_fps(t)->ctx ||
	    ksc_kidx_fp(idx, KIDX_FP_DM_WORLD) != tree_fps(t)->dm ||
	    ksc_kidx_fp(idx, KIDX_FP_ENG_WORLD) != tree_fps(t)->eng ||
	    !ksc_kidx_derived(idx) || ksc_kidx_fp(idx, KIDX_FP_MODSET) != tree_modset_fp(t))
		return true;
	size_t stale = 0;
	for (size_t i = 0; i < n_mods; i++) {
		const struct tmod *m = tree_mod(t, i);
		const struct krec_sum *os = ksc_kidx_module_sum(idx, i);
		const struct krec_sum *s = ksc_modent_sum(m->ent);
		bool read = !ksc_modent_cached(m->ent);
		if (ksc_modent_old(m->ent) != i + 1 || m->der != ksc_kidx_der(idx, i, NULL))
			return true; /* another order, or new results */
		if (read && ksc_krec_sum_hash(s, KREC_H_FACTS) !=
				    ksc_krec_sum_hash(os, KREC_H_FACTS))
			return true;
		/* a record kept as racy (its file had just changed) has settled: keep it */
		if (read && ksc_krec_sum_racy(os) && !ksc_krec_sum_racy(s))
			return true;
		if (read && !ksc_krec_sum_racy(s))
			stale++;
	}
	if (stale > STALE_MAX)
		return true;
	if (!walk_replayed(t)) {
		size_t nd;
		const struct kidx_dir *d = walk_dirs(t, &nd);
		bool clean = walk_clean(t);
		size_t n_idx;
		const struct kidx_dir *id = ksc_kidx_dirs(idx, &n_idx);
		if (!(clean && ksc_kidx_same_dirs(d, nd, id, n_idx)) && (clean || n_idx))
			return true;
	}
	return false;
}

KSC_EXPORT int ksc_tree_save_index(struct ksc_tree *t)
{
	double t0 = now_s();
	int r;

	if (!tree_index_path(t))
		return -EINVAL;
	/*
	 * Keep what the index knew about the last depmod files when none were written
	 * now.
	 */
	const struct kidx_output *outs;
	size_t n_outs;
	const char *out_dir = depmod_written(t, &outs, &n_outs);
	const struct kidx_output *idx_outs = NULL;
	size_t n_idx_outs = 0;
	const char *idx_dir =
		tree_has_index(t) ? ksc_kidx_outputs(tree_kidx(t), &idx_outs, &n_idx_outs)
				  : NULL;
	if (!out_dir && idx_dir &&
	    ksc_kidx_fp(tree_kidx(t), KIDX_FP_OUT) == tree_fps(t)->out) {
		out_dir = idx_dir;
		outs = idx_outs;
		n_outs = n_idx_outs;
	} else if (!out_dir) {
		n_outs = 0;
	}
	if (!tree_is_dirty(t))
		return 0; /* the index on disk says all this already */
	r = ensure_records(t);
	if (r < 0)
		return r;
	struct kidx_wmod *mods =
		malloc((tree_n_mods(t) ? tree_n_mods(t) : 1) * sizeof(*mods));
	bool clean = walk_clean(t);
	size_t n_dirs;
	const struct kidx_dir *dirs = walk_dirs(t, &n_dirs);
	if (!mods)
		return -ENOMEM;
	for (size_t i = 0; i < tree_n_mods(t); i++) {
		const struct tmod *m = tree_mod(t, i);
		mods[i] = (struct kidx_wmod){
			.rec = ksc_modent_rec(m->ent),
			.der = m->der,
			.der_size = m->der ? m->der->size : 0,
			.rec_hash = ksc_modent_rec_hash(m->ent, tree_kidx(t)),
			.modname = m->modname,
			.dir = clean ? m->dir : KREC_NONE,
			.replaced = m->replaced,
		};
	}
	struct kidx_write w = {
		.moddir = tree_moddir(t),
		.release = tree_release(t),
		.ctx_fp = tree_fps(t)->ctx,
		.dm_world_fp = tree_fps(t)->dm,
		.eng_world_fp = tree_fps(t)->eng,
		.out_fp = tree_fps(t)->out,
		.order_fp = walk_order_fp(t),
		.modset_fp = tree_modset_fp(t),
		.derived = true,
		.mods = mods,
		.n_mods = tree_n_mods(t),
		.out_dir = out_dir,
		.outs = outs,
		.n_outs = n_outs,
		.dirs = clean ? dirs : NULL,
		.n_dirs = clean ? n_dirs : 0,
		.parallel = tree_stats(t)->jobs > 1,
	};
	r = ksc_kidx_write(tree_index_path(t), &w);
	free(mods);
	if (r < 0)
		ksc_err(tree_ctx(t), "%s: %s", tree_index_path(t), ksc_write_strerror(-r));
	else
		tree_set_dirty(t, false);
	tree_stats(t)->wall_index_save += now_s() - t0;
	return r;
}

