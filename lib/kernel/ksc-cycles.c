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
 * in the modules and their imports. ksc_loadable() and ksc_cycle_texts() take any graph:
 * the engine runs them on the modules given together to check (ksc-order.c).
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

/* The graph the rule runs on, and the scratch of cycle_text(). */
struct cycle_walk {
	uint32_t *const *deps;
	const uint32_t *n_deps;
	const bool *ok;
	const char *const *names;
	struct pool *strings;
	uint32_t *path, *at; /* at: all UINT32_MAX between walks */
	const char **memo;   /* the text found for each module, NULL: none yet */
};

/* "a -> b -> a": the names of path[first..n-1], then path[first]'s again; in the pool. */
static const char *path_text(const struct cycle_walk *w, size_t first, size_t n)
{
	size_t len = strlen(w->names[w->path[first]]) + 1;

	for (size_t i = first; i < n; i++)
		len += strlen(w->names[w->path[i]]) + 4;
	char *t = malloc(len);
	if (!t)
		return NULL;
	size_t o = 0;
	for (size_t i = first; i < n; i++) {
		size_t l = strlen(w->names[w->path[i]]);
		memcpy(t + o, w->names[w->path[i]], l);
		memcpy(t + o + l, " -> ", 4);
		o += l + 4;
	}
	strcpy(t + o, w->names[w->path[first]]);
	const char *ret = pool_strdup(w->strings, t);
	free(t);
	return ret;
}

/*
 * The cycle blocked module s reaches, following blocked dependencies until one repeats or
 * one whose cycle is known (memo). Every module on the way is given the same text.
 */
static const char *cycle_text(struct cycle_walk *w, uint32_t s)
{
	size_t n = 0;
	uint32_t v = s;
	const char *ret;

	while (w->at[v] == UINT32_MAX && !w->memo[v]) {
		w->at[v] = (uint32_t)n;
		w->path[n++] = v;
		uint32_t next = v;
		for (uint32_t j = 0; j < w->n_deps[v]; j++) {
			if (!w->ok[w->deps[v][j]]) {
				next = w->deps[v][j];
				break;
			}
		}
		v = next; /* a blocked module always has a blocked dependency */
	}
	ret = w->memo[v] ? w->memo[v] : path_text(w, w->at[v], n);
	for (size_t i = 0; i < n; i++) {
		w->memo[w->path[i]] = ret;
		w->at[w->path[i]] = UINT32_MAX;
	}
	return ret;
}

int ksc_cycle_texts(size_t n, uint32_t *const *deps, const uint32_t *n_deps, const bool *ok,
		    const char *const *names, struct pool *strings, const char **text)
{
	size_t m = n ? n : 1;
	struct cycle_walk w = { deps, n_deps, ok, names, strings, malloc(m * sizeof(*w.path)),
				malloc(m * sizeof(*w.at)), text };
	int r = w.path && w.at ? 0 : -ENOMEM;

	for (size_t i = 0; i < n; i++) {
		w.at[i] = UINT32_MAX;
		text[i] = NULL;
	}
	for (size_t i = 0; i < n && r >= 0; i++)
		if (!ok[i] && !text[i] && !cycle_text(&w, (uint32_t)i))
			r = -ENOMEM;
	free(w.path);
	free(w.at);
	return r;
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
	uint32_t *mark = malloc(m * sizeof(*mark));
	const char **names = calloc(m, sizeof(*names)), **text = calloc(m, sizeof(*text));
	bool *ok = calloc(m, sizeof(*ok));
	int r = -ENOMEM;

	if (!dp || !nd || !mark || !names || !text || !ok)
		goto out;
	for (size_t i = 0; i < n; i++)
		mark[i] = UINT32_MAX;
	if (owner_deps(k, mark) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		dp[i] = k->owners[i]->deps;
		nd[i] = k->owners[i]->n_deps;
		names[i] = k->owners[i]->name;
	}
	r = ksc_loadable(n, dp, nd, ok);
	if (r >= 0)
		r = ksc_cycle_texts(n, dp, nd, ok, names, &k->strings, text);
	for (size_t i = 0; i < n; i++)
		k->owners[i]->cycle = r >= 0 ? text[i] : NULL;
	if (r >= 0)
		k->cycles_dirty = false;
out:
	free(dp);
	free(nd);
	free(mark);
	free(names);
	free(text);
	free(ok);
	return r < 0 ? r : 0;
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
