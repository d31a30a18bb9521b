// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which of a kernel's modules modprobe cannot load because of a dependency cycle (R43).
 * modprobe loads a module's dependencies first, in modules.dep's order; the loader
 * resolves a symbol only from what is loaded. Of two modules that import from each
 * other, the one inserted first finds the other's symbols missing ("Unknown symbol",
 * -ENOENT), so neither can be loaded, nor any module that needs one of them; kmod's
 * depmod refuses such a tree outright ("Cycle detected: a -> b -> a", "Found N modules in
 * dependency cycles!", depmod_calculate_dependencies() in tools/depmod.c) and writes no
 * modules.dep.
 *
 * The graph: each module owner depends on the owner of each symbol it imports, as the
 * loader's find_symbol() takes it (vmlinux first, else the first module providing it),
 * or on the owners the caller gave (ksc_kernel_set_owner_deps(): the tree's depmod
 * resolution). The modules that can be loaded are found from the leaves up (Kahn's
 * algorithm on the reversed graph); every other one is in a cycle or depends on one, and
 * is given the text of the cycle it reaches ("a -> b -> a"). Time and memory are linear
 * in the modules and their imports.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "util/array.h"

/* The owner a module's import resolves to, as find_symbol() picks it; NULL: vmlinux. */
static struct kowner *import_owner(const struct ksc_kernel *k, const struct kowner *self,
				   const char *name)
{
	/* the index as ksc_kernel_first_prov() reads it (ksc-kernel.c calls this file) */
	const struct kprov *p = hash_find(&k->index, name);

	for (; p; p = p->next ? &k->provs[p->next - 1] : NULL) {
		if (!p->owner)
			return NULL;
		if (p->owner != self && strcmp(p->owner->name, self->name) != 0)
			return p->owner;
	}
	return NULL;
}

/*
 * Each owner's dependencies, from its module's imports unless given; mark: scratch of one
 * entry per owner, all UINT32_MAX. 0 or -ENOMEM.
 */
static int owner_deps(struct ksc_kernel *k, uint32_t *mark)
{
	for (size_t i = 0; i < k->n_owners; i++) {
		struct kowner *o = k->owners[i];
		if (o->deps_given)
			continue;
		o->n_deps = 0;
		size_t cap = o->cap_deps;
		for (size_t j = 0; o->module && j < ksc_module_get_import_count(o->module); j++) {
			struct kowner *d =
				import_owner(k, o, ksc_module_get_import(o->module, j)->name);
			if (!d || mark[d->id] == i)
				continue;
			mark[d->id] = (uint32_t)i;
			if (array_push(o->deps, o->n_deps, cap, d->id) < 0)
				return -ENOMEM;
		}
		o->cap_deps = cap;
	}
	return 0;
}

/*
 * The cycle blocked owner s reaches, following blocked dependencies until one repeats or
 * one whose cycle is known (memo). Every owner on the way is given the same text.
 */
static const char *cycle_text(struct ksc_kernel *k, uint32_t s, const bool *ok,
			      uint32_t *path, uint32_t *at, const char **memo)
{
	size_t n = 0;
	uint32_t v = s;

	while (at[v] == UINT32_MAX && !memo[v]) {
		at[v] = (uint32_t)n;
		path[n++] = v;
		const struct kowner *o = k->owners[v];
		uint32_t next = v;
		for (size_t j = 0; j < o->n_deps; j++) {
			if (!ok[o->deps[j]]) {
				next = o->deps[j];
				break;
			}
		}
		v = next; /* a blocked owner always has a blocked dependency */
	}
	if (memo[v]) {
		for (size_t i = 0; i < n; i++) {
			memo[path[i]] = memo[v];
			at[path[i]] = UINT32_MAX;
		}
		return memo[v];
	}
	size_t len = 0, first = at[v];
	for (size_t i = first; i < n; i++)
		len += strlen(k->owners[path[i]]->name) + 4;
	len += strlen(k->owners[v]->name) + 1;
	char *t = malloc(len);
	const char *ret = NULL;
	if (t) {
		size_t w = 0;
		for (size_t i = first; i < n; i++) {
			const char *nm = k->owners[path[i]]->name;
			memcpy(t + w, nm, strlen(nm));
			w += strlen(nm);
			memcpy(t + w, " -> ", 4);
			w += 4;
		}
		memcpy(t + w, k->owners[v]->name, strlen(k->owners[v]->name) + 1);
		ret = pool_strdup(&k->strings, t);
		free(t);
	}
	for (size_t i = 0; i < n; i++) {
		memo[path[i]] = ret;
		at[path[i]] = UINT32_MAX;
	}
	return ret;
}

int ksc_loadable(size_t n, uint32_t *const *deps, const uint32_t *n_deps, bool *ok)
{
	size_t m = n ? n : 1, qh = 0, qt = 0, edges = 0;
	uint32_t *pending = calloc(m, sizeof(*pending)), *queue = malloc(m * sizeof(*queue));
	uint32_t *ustart = calloc(m + 1, sizeof(*ustart)), *users = NULL;
	int r = -ENOMEM;

	if (!pending || !queue || !ustart)
		goto out;
	/* the users of each module, as one array in slices */
	for (size_t i = 0; i < n; i++) {
		ok[i] = false;
		pending[i] = n_deps[i];
		edges += n_deps[i];
		for (uint32_t j = 0; j < n_deps[i]; j++)
			ustart[deps[i][j] + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		ustart[i + 1] += ustart[i];
	users = malloc((edges ? edges : 1) * sizeof(*users));
	if (!users)
		goto out;
	for (size_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n_deps[i]; j++)
			users[ustart[deps[i][j]]++] = (uint32_t)i;
	for (size_t i = n; i > 0; i--)
		ustart[i] = ustart[i - 1];
	ustart[0] = 0;
	/* from the leaves up: a module can be loaded once all it needs can */
	for (size_t i = 0; i < n; i++)
		if (!pending[i])
			queue[qt++] = (uint32_t)i;
	while (qh < qt) {
		uint32_t v = queue[qh++];
		ok[v] = true;
		for (uint32_t u = ustart[v]; u < ustart[v + 1]; u++)
			if (--pending[users[u]] == 0)
				queue[qt++] = users[u];
	}
	r = (int)(n - qt);
out:
	free(pending);
	free(queue);
	free(ustart);
	free(users);
	return r;
}

int ksc_kernel_find_cycles(struct ksc_kernel *k)
{
	size_t n = k->n_owners, m = n ? n : 1;
	uint32_t **dp = calloc(m, sizeof(*dp)), *nd = calloc(m, sizeof(*nd));
	uint32_t *path = malloc(m * sizeof(*path)), *at = malloc(m * sizeof(*at));
	bool *ok = calloc(m, sizeof(*ok));
	const char **memo = calloc(m, sizeof(*memo));
	int r = -ENOMEM;

	if (!dp || !nd || !path || !at || !ok || !memo)
		goto out;
	for (size_t i = 0; i < n; i++)
		at[i] = UINT32_MAX;
	if (owner_deps(k, at) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		at[i] = UINT32_MAX; /* owner_deps()'s marks */
		dp[i] = k->owners[i]->deps;
		nd[i] = k->owners[i]->n_deps;
	}
	r = ksc_loadable(n, dp, nd, ok);
	for (size_t i = 0; i < n && r >= 0; i++) {
		struct kowner *o = k->owners[i];
		o->cycle = NULL;
		if (!ok[i] && !(o->cycle = cycle_text(k, (uint32_t)i, ok, path, at, memo)))
			r = -ENOMEM;
	}
	if (r >= 0) {
		k->cycles_dirty = false;
		r = 0;
	}
out:
	free(dp);
	free(nd);
	free(path);
	free(at);
	free(ok);
	free(memo);
	return r;
}

int ksc_kernel_set_owner_deps(struct ksc_kernel *k, const char *owner,
			      const char *const *deps, size_t n)
{
	struct kowner *o = hash_find(&k->owner_index, owner);
	size_t cap = o ? o->cap_deps : 0;

	if (!o)
		return 0; /* exports nothing: no module depends on it */
	o->n_deps = 0;
	o->deps_given = true;
	k->cycles_dirty = true;
	for (size_t i = 0; i < n; i++) {
		const struct kowner *d = hash_find(&k->owner_index, deps[i]);
		if (!d || d == o)
			continue;
		if (array_push(o->deps, o->n_deps, cap, d->id) < 0)
			return -ENOMEM;
	}
	o->cap_deps = cap;
	return 0;
}
