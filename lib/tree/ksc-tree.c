// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * struct ksc_tree: a whole module folder (ROOT/lib/modules/KVER), read in parallel, seen
 * as depmod sees it (ksc-tree-format.c), judged module by module by the policy engine
 * (ksc_check_modules), and remembered in an index (ksc-modset-index.c) so that the next run
 * redoes only what changed.
 *
 * ksc_tree_open() runs these steps:
 *  1. take the module set's walk of the folder, as depmod_modules_search() does it
 *     (ksc-modset-search.c: readdir order, "build", "source" and depmod.d's exclude
 *     names skipped at every level, symbolic links followed, loops and dangling links
 *     reported, one module per kmod name by depmod's search order and overrides), and
 *     order the modules: kmod's hash order of the names, then stably by their line in
 *     modules.order;
 *  2. read every module whose (size, mtime, inode) the index does not know, in
 *     `jobs` threads: the file (only the sections the readers need, for large
 *     uncompressed files), the library's reader (ksc_elf_parse_module) and kmod's view
 *     (ksc_kview_read), both kept as one facts record; every message a module gave is
 *     kept in its record and replayed, in module order, on every run;
 *  3. resolve every module's dependency symbols as depmod (the kernel's exports, then
 *     each module's exports in order, a later module replacing an earlier one), sort
 *     the dependency graph (Kahn's algorithm, as depmod), find cycles;
 *  4. check every readable module with ksc_check_modules() against a kernel made of the
 *     kernel's exports and all the tree's modules as providers: each module as modprobe
 *     would load it into a fresh boot (threads again, one kernel object per thread, as
 *     ksc_kernel and ksc_report are not shared between threads).
 * Results of steps 3 and 4 are stored per module ("derived" records) with fingerprints
 * of what they depend on; they are reused while the fingerprints hold.
 *
 * Threads never share a ksc_ctx, ksc_module or ksc_kernel: each has its own ctx, whose
 * log function stores messages for the main thread to replay.
 *
 * This file runs the steps in order (do_open()) and holds the public getters; each step
 * is in a file of its own (tree-private.h lists them).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree/tree-private.h"
#include "util/opts.h"

/* Seconds since *t0; *t0 is now. */
static double lap(double *t0)
{
	double t1 = now_s(), d = t1 - *t0;

	*t0 = t1;
	return d;
}

/*
 * With an index, pre_stat() replays its walk while its folders and modules are checked.
 * *replayed: the walk of the index holds, and pj->pre says which files are unchanged.
 * When a folder changed, or the walk cannot be replayed, the tree is walked (the modules
 * whose files did not change still come from the index).
 */
static int check_index_walk(struct ksc_tree *t, unsigned int jobs, struct pre_job *pj,
			    bool *replayed)
{
	int r;

	*replayed = false;
	if (!tree_has_index(t))
		return 0;
	r = pre_stat(t, jobs, pj);
	if (r == 0 && !pj->index_err && !ksc_kidx_finished(tree_kidx(t)))
		pj->index_err = finish_index(t); /* pre_stat() did not start */
	if (r == 0 && pj->index_err == -ENOMEM)
		r = -ENOMEM;
	if (r < 0)
		return r;
	if (pj->index_err < 0)
		drop_index(t, pj->index_err); /* what pre_stat() found is not used */
	else
		*replayed = pj->replay == 1 && !walk_is_stale(t);
	return 0;
}

/*
 * Step 1: the modules, unless the index's walk was replayed. A first run reads
 * everything and needs the kernel's exports: they load on a thread of their own from now
 * until the modules are read, so the walk (one thread) leaves no CPU idle. Nothing else
 * touches the kernel's part of t meanwhile.
 */
static int find_modules(struct ksc_tree *t, bool replayed, struct kload *kl)
{
	int r = find_kernel(t);

	if (r == 0 && !tree_has_index(t))
		kl->on = pthread_create(&kl->th, NULL, kernel_thread, t) == 0;
	if (r >= 0 && !replayed) {
		drop_walk(t);
		r = do_walk(t);
		if (r >= 0)
			r = order_modules(t);
	}
	return r;
}

/*
 * What pre_stat() found unchanged comes from the index; the rest, *items, is read.
 * 0 or -ENOMEM.
 */
static int take_unchanged(struct ksc_tree *t, const struct pre_job *pj, size_t **items,
			  size_t *n_items)
{
	const size_t n_mods = tree_n_mods(t);

	*n_items = 0;
	*items = malloc((n_mods ? n_mods : 1) * sizeof(**items));
	if (!*items)
		return -ENOMEM;
	for (size_t i = 0; i < n_mods; i++) {
		struct ksc_modent *e = tree_mod(t, i)->ent;
		size_t old = ksc_modent_old(e);
		if (old && pj->pre[old - 1]) /* its record fetched when needed */
			ksc_modent_take_index(e, tree_kidx(t));
		else
			(*items)[(*n_items)++] = i;
	}
	return 0;
}

/*
 * Steps 1 and 2: walk (or replay the index's walk), attach the index, read what it does
 * not know; the kernel's exports load meanwhile on a first run.
 */
static int walk_and_read(struct ksc_tree *t, unsigned int jobs, double *t0)
{
	struct pre_job pj = { 0 };
	struct kload kl = { .on = false };
	size_t *items = NULL, n_items = 0;
	bool replayed;
	int r = check_index_walk(t, jobs, &pj, &replayed);

	if (r < 0) {
		pre_fini(&pj);
		return r;
	}
	r = find_modules(t, replayed, &kl);
	if (r >= 0)
		r = walk_entries(t);
	tree_stats(t)->wall_walk += lap(t0);
	if (r >= 0 && tree_has_index(t))
		r = attach_index(t);
	if (r >= 0 && replayed && tree_has_index(t))
		r = take_unchanged(t, &pj, &items, &n_items);
	pre_fini(&pj);
	if (r >= 0)
		r = read_modules(t, jobs, items, n_items,
				 !tree_has_index(t) && !kl.on ? side_load_kernel : NULL);
	free(items);
	int kr = kload_join(t, &kl);
	return r < 0 ? r : kr;
}

/* The steps, in order (the file's comment above says what each does). */
static int run_steps(struct ksc_tree *t)
{
	unsigned int jobs = tree_opts(t)->jobs ? tree_opts(t)->jobs : default_jobs();
	struct tree_work w = { 0 };
	double t0 = now_s();
	int r;

	tree_stats(t)->jobs = jobs;
	if (tree_index_path(t)) {
		load_index(t);
		tree_stats(t)->wall_index_load = lap(&t0);
	}
	r = walk_and_read(t, jobs, &t0);
	if (r < 0)
		return r;
	tree_stats(t)->wall_read = lap(&t0);
	r = report_problems(t);
	if (r < 0)
		return r;
	for (size_t i = 0; i < tree_n_mods(t); i++)
		if (ksc_krec_sum_read_error(ksc_modent_sum(tree_mod(t, i)->ent)) < 0)
			tree_stats(t)->unreadable++;
	/* What can be reused: fingerprints of everything the derived results depend on. */
	fingerprints(t);
	r = plan_work(t, &w);
	/* Step 3: depmod's resolution of the modules that need it, the sort, the cycles. */
	if (r >= 0 && (w.n_resolve || w.n_check))
		r = ensure_records(t);
	if (r >= 0 && w.n_resolve)
		r = resolve_modules(t, jobs, w.resolve, w.n_resolve, w.n_check > 0);
	if (r >= 0)
		r = sort_modules(t);
	if (r < 0)
		goto out;
	tree_stats(t)->wall_resolve = lap(&t0);
	/* Step 4: verdicts, and the derived records of the modules not checked again. */
	if (w.n_check)
		r = check_modules(t, jobs, w.check, w.n_check);
	if (r >= 0)
		r = finish_derived(t);
	if (r < 0)
		goto out;
	tree_stats(t)->wall_check = now_s() - t0;
	r = assemble(t);
	tree_set_dirty(t, index_is_stale(t));
	tree_stats(t)->modules = tree_n_mods(t);
out:
	free(w.resolve);
	free(w.check);
	return r;
}

static int do_open(struct ksc_tree *t)
{
	int r = run_steps(t);

	drop_check_kernel(t); /* after an error in the middle of the checks */
	return r;
}

/* A new tree's parts, each made by its owner (freed by ksc_tree_unref()). 0 or -ENOMEM. */
static int new_parts(struct ksc_tree *t)
{
	int r = kernel_part_new(t);

	if (r == 0)
		r = depmod_part_new(t);
	if (r == 0)
		r = problems_part_new(t);
	if (r == 0)
		r = results_part_new(t);
	if (r == 0)
		r = walk_part_new(t);
	if (r == 0)
		r = index_part_new(t);
	return r;
}

KSC_EXPORT int ksc_tree_open(struct ksc_ctx *ctx, const char *root, const char *kver,
			     const struct ksc_tree_opts *opts, struct ksc_tree **out)
{
	struct ksc_tree *t;
	unsigned int a, b;
	int r;

	*out = NULL;
	if (!ctx)
		return -EINVAL;
	/* depmod's is_version_number() */
	if (kver && (sscanf(kver, "%u.%u", &a, &b) != 2 || strchr(kver, '/'))) {
		ksc_err(ctx, "%s: not a kernel release (MAJOR.MINOR...)", kver);
		return -EINVAL;
	}
	t = tree_new(ctx);
	if (!t)
		return -ENOMEM;
	r = new_parts(t);
	if (r == 0)
		r = tree_setup(t, root, kver, opts);
	if (r < 0)
		goto err;
	r = do_open(t);
	if (r < 0)
		goto err;
	tree_stats(t)->wall_total = now_s() - tree_stats(t)->wall_total;
	*out = t;
	return 0;
err:
	if (r == -ENOMEM)
		ksc_err(ctx, "%s: out of memory",
			tree_moddir(t) ? tree_moddir(t) : "ksc_tree_open");
	ksc_tree_unref(t);
	return r;
}

/*
 * The tree's life: here, above the files that own its parts, so that each part is freed
 * by its owner's function; then the core (ksc-tree-state.c).
 */
KSC_EXPORT struct ksc_tree *ksc_tree_unref(struct ksc_tree *t)
{
	if (!t || !tree_put(t))
		return NULL;
	walk_part_free(t);
	index_part_free(t);
	depmod_part_free(t);
	kernel_part_free(t);
	problems_part_free(t);
	results_part_free(t);
	tree_free(t);
	return NULL;
}

KSC_EXPORT size_t ksc_tree_get_module_count(const struct ksc_tree *t)
{
	return tree_n_mods(t);
}

KSC_EXPORT const char *ksc_tree_get_module_path(const struct ksc_tree *t, size_t i)
{
	return i < tree_n_mods(t) ? tree_mod(t, i)->path : NULL;
}

KSC_EXPORT const char *ksc_tree_get_module_relpath(const struct ksc_tree *t, size_t i)
{
	return i < tree_n_mods(t) ? tree_mod(t, i)->relpath : NULL;
}

KSC_EXPORT const char *ksc_tree_get_module_name(const struct ksc_tree *t, size_t i)
{
	return i < tree_n_mods(t) ? tree_mod(t, i)->modname : NULL;
}

KSC_EXPORT int ksc_tree_get_module_error(const struct ksc_tree *t, size_t i)
{
	if (i >= tree_n_mods(t))
		return -ERANGE;
	const struct krec_sum *s = ksc_modent_sum(tree_mod(t, i)->ent);
	int r = ksc_krec_sum_read_error(s);
	if (r < 0)
		return r;
	return ksc_krec_sum_kind(s) == KSC_KIND_VMLINUX ? -ENOEXEC : 0;
}

KSC_EXPORT bool ksc_tree_module_is_cached(const struct ksc_tree *t, size_t i)
{
	return i < tree_n_mods(t) && ksc_modent_cached(tree_mod(t, i)->ent);
}

KSC_EXPORT int ksc_tree_get_module(const struct ksc_tree *t, size_t i,
				   struct ksc_module **out)
{
	*out = NULL;
	if (i >= tree_n_mods(t))
		return -ERANGE;
	struct tmod *m = tree_mod(t, i);
	const struct krec *r = need_rec((struct ksc_tree *)t, m);
	if (!r)
		return -ENOMEM;
	return ksc_krec_to_module(tree_ctx(t), r, m->path, true, false, NULL, out);
}

KSC_EXPORT size_t ksc_tree_get_dep_count(const struct ksc_tree *t, size_t i)
{
	return i < tree_n_mods(t) ? tree_mod(t, i)->n_deps : 0;
}

KSC_EXPORT size_t ksc_tree_get_dep(const struct ksc_tree *t, size_t i, size_t j)
{
	if (i >= tree_n_mods(t) || j >= tree_mod(t, i)->n_deps)
		return SIZE_MAX;
	return tree_mod(t, i)->deps[j];
}

KSC_EXPORT size_t ksc_tree_get_all_deps(const struct ksc_tree *t, size_t i, size_t *buf,
					size_t n)
{
	if (i >= tree_n_mods(t))
		return 0;
	const size_t n_mods = tree_n_mods(t);
	uint32_t **dp = malloc((n_mods ? n_mods : 1) * sizeof(*dp));
	uint32_t *nd = malloc((n_mods ? n_mods : 1) * sizeof(*nd));
	int *si = malloc((n_mods ? n_mods : 1) * sizeof(*si));
	unsigned char *mark = calloc(n_mods ? n_mods : 1, 1);
	uint32_t *all = NULL;
	size_t k = SIZE_MAX;
	if (dp && nd && si && mark) {
		for (size_t x = 0; x < n_mods; x++) {
			dp[x] = tree_mod(t, x)->deps;
			nd[x] = tree_mod(t, x)->n_deps;
			si[x] = tree_mod(t, x)->sort_idx;
		}
		k = ksc_depmod_all_deps((uint32_t)i, dp, nd, si, mark, &all);
		for (size_t x = 0; k != SIZE_MAX && x < k && x < n; x++)
			buf[x] = all[x];
	}
	free(all);
	free(dp);
	free(nd);
	free(si);
	free(mark);
	return k;
}

KSC_EXPORT void ksc_tree_get_stats(const struct ksc_tree *t, struct ksc_tree_stats *st)
{
	*st = *tree_stats(t);
	st->index_state = index_state(t);
}

