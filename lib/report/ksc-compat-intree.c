// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * compat's in-tree evidence of a replacement (issue 25's third kind): when an export the
 * module imports is gone from the target, the kernel's own modules that imported it in
 * the old kernel, and what each imports in the target that it did not import in the old
 * one (the same module name: the new import set minus the old one), name what replaced
 * it. Each kernel's module folder is read once per run through the module set: the
 * records of the index `ksymcheck tree` keeps (ksc_compat_opts.indexes) where they are
 * current, the other files read in threads and the index written again.
 *
 * A candidate's weight is the share of those modules that took it up, times the share of
 * them among all the modules of both kernels that took it up: what many other modules
 * took up too (a new compiler's symbol, the headers' of a common API) is no evidence.
 * One candidate that stands out (weight STRONG and twice the next) is said as the
 * evidence; several are listed as weak evidence, and nothing is guessed.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modset/modset.h"
#include "util/array.h"
#include "report/compat-private.h"

#define MAX_LISTED 3   /* candidates and modules named in a hint */
#define MIN_SCORE 0.25 /* a candidate below: noise, not listed */
#define STRONG 0.5     /* a candidate at or above, twice the next: the evidence */

/* The root of module folder `md` of `release` (ROOT/lib/modules/R, ROOT/usr/lib/modules/R),
 * for its depmod.d: "/" when it is neither. */
static void root_of(const char *md, const char *release, char *out, size_t size)
{
	static const char *const tails[] = { "/usr/lib/modules/", "/lib/modules/" };
	size_t n = strlen(md), lr = strlen(release);

	snprintf(out, size, "/");
	for (size_t i = 0; i < ARRAY_SIZE(tails); i++) {
		size_t lt = strlen(tails[i]);
		if (n > lt + lr && strcmp(md + n - lr, release) == 0 &&
		    strncmp(md + n - lr - lt, tails[i], lt) == 0) {
			snprintf(out, size, "%.*s", (int)(n - lr - lt), md);
			return;
		}
	}
}

static unsigned int cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

/* Kernel k's module set, every record known, read once; NULL when it cannot be had. */
static struct ksc_modset *kset(struct crun *cr, size_t k)
{
	const char *md = cr->o->moddirs ? cr->o->moddirs[k] : NULL;
	const char *rel = ksc_kernel_get_release(cr->kernels[k]);
	struct ksc_modset *ms = NULL;
	char root[PATH_MAX];

	if (cr->intree_tried[k] || !md || !rel)
		return cr->intree[k];
	cr->intree_tried[k] = true;
	if (!cr->quiet && !(cr->quiet = ksc_new())) {
		cr->oom = true;
		return NULL;
	}
	/* the kernel's own opening said what the folder's walk meets */
	ksc_set_log_fn(cr->quiet, NULL, NULL);
	root_of(md, rel, root, sizeof(root));
	const char *index = cr->o->indexes ? cr->o->indexes[k] : NULL;
	struct ksc_modset_where w = { .root = root, .release = rel, .moddir = md, .index = index };
	int r = ksc_modset_open(cr->quiet, &w, &ms);
	if (r >= 0)
		r = ksc_modset_read_all(ms, cpus(), NULL, NULL);
	if (r < 0) {
		cr->oom |= r == -ENOMEM;
		ksc_modset_free(ms);
		return NULL;
	}
	if (ksc_modset_save_index(ms) < 0) /* for the next run: best effort */
		ksc_dbg(ksc_kernel_get_ctx(cr->kernels[k]), "%s: index not written", index);
	cr->intree[k] = ms;
	return ms;
}

struct names {
	struct hash h;
	const char *sym; /* the one looked for: found */
	bool found;
};

static int add_name(void *data, const char *sym)
{
	struct names *n = data;

	if (n->sym && strcmp(sym, n->sym) == 0)
		n->found = true;
	return hash_add(&n->h, sym, (void *)sym, 1) < 0 ? -ENOMEM : 0;
}

/* A candidate: the users of the removed symbol and the other modules that took it up. */
struct cand {
	size_t users, others;
};

/* The evidence gathered for one removed symbol. */
struct evidence {
	size_t users, kept, others;
	const char *user_names[MAX_LISTED], *gone_names[MAX_LISTED];
	size_t n_user_names, n_gone_names;
	struct hash cands; /* name -> 1 + its index in v */
	struct cand *v;
	size_t n, cap;
};

/* What one module of both kernels took up: a user's adds candidates, another's counts
 * only for those known. */
struct took_up {
	struct hash *old;
	struct evidence *ev;
	const char *removed;
	bool user;
};

static int took(void *data, const char *sym)
{
	struct took_up *t = data;
	struct evidence *ev = t->ev;
	bool added = false;

	if (hash_find(t->old, sym) || strcmp(sym, t->removed) == 0)
		return 0;
	if (!t->user) {
		uintptr_t at = (uintptr_t)hash_find(&ev->cands, sym);
		if (at)
			ev->v[at - 1].others++;
		return 0;
	}
	void **slot = hash_slot(&ev->cands, sym, &added);
	if (!slot)
		return -ENOMEM;
	if (added) {
		if (array_reserve(ev->v, ev->cap, ev->n + 1, 64) < 0) {
			*slot = NULL; /* not a candidate after all */
			return -ENOMEM;
		}
		ev->v[ev->n] = (struct cand){ 0 };
		*slot = (void *)(uintptr_t)++ev->n;
	}
	ev->v[(uintptr_t)*slot - 1].users++;
	return 0;
}

/* Module i of the old set against its namesake in the new one, if it is a user of `sym`
 * (`users`) or not: the users are compared first, for the others count only the users'
 * candidates. */
static int compare_module(struct ksc_modset *o, size_t i, struct ksc_modset *n,
			  const char *sym, bool users, struct evidence *ev)
{
	struct names old = { .sym = sym };
	const char *name = ksc_modset_name(o, i);
	bool kept;
	size_t j;
	int r;

	hash_init(&old.h);
	r = ksc_modset_each_import(o, i, add_name, &old);
	if (r < 0 || old.found != users || (!users && !ev->cands.count)) {
		hash_fini(&old.h);
		return r;
	}
	kept = ksc_modset_find(n, name, &j);
	if (users) {
		ev->users++;
		ev->kept += kept;
		if (!kept && ev->n_gone_names < MAX_LISTED)
			ev->gone_names[ev->n_gone_names++] = name;
		if (kept && ev->n_user_names < MAX_LISTED)
			ev->user_names[ev->n_user_names++] = name;
	} else {
		ev->others += kept;
	}
	if (kept) {
		struct took_up t = { &old.h, ev, sym, users };
		r = ksc_modset_each_import(n, j, took, &t);
	}
	hash_fini(&old.h);
	return r;
}

struct ranked {
	const char *name;
	size_t users, others;
	double score;
};

static int by_score(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* A ", "-separated list of names (at most MAX_LISTED, then "..."), into buf. */
static const char *name_list(const char *const *v, size_t n, size_t total, char *buf,
			     size_t size)
{
	size_t l = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && l < size; i++)
		l += (size_t)snprintf(buf + l, size - l, "%s%s", i ? ", " : "", v[i]);
	if (total > n && l < size)
		snprintf(buf + l, size - l, ", ...");
	return buf;
}

/* The hint the evidence gives (NULL: no in-tree module imported it). */
static const char *say(struct crun *cr, size_t k, const char *sym, const struct evidence *ev,
		       const struct ranked *rk, size_t n)
{
	const char *from = cr->base_release, *to = ksc_kernel_get_release(cr->kernels[k]);
	char users[512], gone[512];

	if (!ev->users)
		return NULL;
	name_list(ev->user_names, ev->n_user_names, ev->kept, users, sizeof(users));
	name_list(ev->gone_names, ev->n_gone_names, ev->users - ev->kept, gone, sizeof(gone));
	if (!ev->kept)
		return compat_fmt(cr, "no evidence: the %zu in-tree modules that imported %s in %s (%s) are not modules of %s",
				  ev->users, sym, from, gone, to);
	if (!n)
		return compat_fmt(cr, "no evidence: the %zu in-tree modules that imported %s in %s (%s) import nothing in %s that stands out from what the other modules took up",
				  ev->kept, sym, from, users, to);
	if (rk[0].score >= STRONG && (n == 1 || rk[1].score < rk[0].score / 2))
		return compat_fmt(cr, "%s: imported in %s by %zu of the %zu in-tree modules that imported %s in %s (%s)",
				  rk[0].name, to, rk[0].users, ev->kept, sym, from, users);
	char list[768];
	size_t l = 0;
	for (size_t i = 0; i < n && i < MAX_LISTED && l < sizeof(list); i++)
		l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%s (%zu)", i ? ", " : "",
				      rk[i].name, rk[i].users);
	return compat_fmt(cr, "weak evidence, %zu candidate%s imported in %s by the %zu in-tree modules that imported %s in %s (%s): %s%s",
			  n, n == 1 ? "" : "s", to, ev->kept, sym, from, users, list,
			  n > MAX_LISTED ? ", ..." : "");
}

/* The ranked candidates of `ev` (malloc'd into *out, their count), or -ENOMEM. */
static int rank(const struct evidence *ev, struct ranked **out)
{
	struct ranked *rk = malloc((ev->cands.count ? ev->cands.count : 1) * sizeof(*rk));
	size_t n = 0;

	if (!rk)
		return -ENOMEM;
	for (size_t i = 0; i < ev->cands.n_buckets; i++) {
		void *at;
		const char *name = hash_slot_key(&ev->cands, i, &at);
		if (!name || !at)
			continue;
		size_t u = ev->v[(uintptr_t)at - 1].users, o = ev->v[(uintptr_t)at - 1].others;
		/* the share of the users that took it up, times the share of users among
		 * all that took it up */
		double s = (double)u / (double)ev->kept * (double)u / (double)(u + o);
		if (s >= MIN_SCORE)
			rk[n++] = (struct ranked){ name, u, o, s };
	}
	qsort(rk, n, sizeof(*rk), by_score);
	*out = rk;
	return (int)n;
}

static const char *gather(struct crun *cr, struct ksc_modset *o, struct ksc_modset *n,
			  size_t k, const char *sym)
{
	struct evidence ev = { 0 };
	struct ranked *rk = NULL;
	const char *hint = NULL;
	int r = 0;

	hash_init(&ev.cands);
	/* the users of sym first: their candidates are what the others are counted for */
	for (int pass = 0; r == 0 && pass < 2; pass++)
		for (size_t i = 0; r == 0 && i < ksc_modset_count(o); i++)
			r = compare_module(o, i, n, sym, pass == 0, &ev);
	if (r == 0)
		r = rank(&ev, &rk);
	if (r >= 0)
		hint = say(cr, k, sym, &ev, rk, (size_t)r);
	cr->oom |= r < 0 || (ev.users && !hint);
	free(rk);
	free(ev.v);
	hash_fini(&ev.cands);
	return hint;
}

static char none; /* a symbol without evidence, in the run's memo */

const char *compat_intree_hint(struct crun *cr, size_t k, const char *sym)
{
	struct ksc_modset *o = cr->base ? kset(cr, cr->base_idx) : NULL;
	struct ksc_modset *n = o ? kset(cr, k) : NULL;
	char key[1024];
	bool added;

	if (!n)
		return NULL;
	/* the same symbol of other modules (a package's) between the same kernels: once */
	if (snprintf(key, sizeof(key), "%zu %zu %s", cr->base_idx, k, sym) >= (int)sizeof(key))
		return gather(cr, o, n, k, sym);
	const char *pkey = pool_strdup(&cr->c->strings, key);
	void **slot = pkey ? hash_slot(&cr->intree_memo, pkey, &added) : NULL;
	if (!slot) {
		cr->oom = true;
		return NULL;
	}
	if (!added)
		return *slot == &none ? NULL : *slot;
	const char *hint = gather(cr, o, n, k, sym);
	/* gather() adds no slot: this one has not moved */
	*slot = hint ? (void *)hint : &none;
	return hint;
}

void compat_free_intree(struct crun *cr)
{
	for (size_t k = 0; cr->intree && k < cr->c->n_kernels; k++)
		ksc_modset_free(cr->intree[k]);
	free(cr->intree);
	free(cr->intree_tried);
	hash_fini(&cr->intree_memo);
	ksc_unref(cr->quiet);
}
