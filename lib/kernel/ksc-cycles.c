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
 * The graph (ksc-kernel.c builds it from a kernel's owners): each module owner depends on
 * the owner of each symbol it imports, as the loader's find_symbol() takes it (vmlinux
 * first, else the first module providing it), or on the owners the caller gave
 * (ksc_kernel_set_owner_deps(): the tree's depmod resolution). The modules that can be
 * loaded are found from the leaves up (Kahn's algorithm on the reversed graph); every
 * other one is in a cycle or depends on one, and is given the text of the cycle it
 * reaches ("a -> b -> a"). Time and memory are linear in the modules and their imports.
 * ksc_loadable() and ksc_cycle_texts() take any graph: the engine runs them on the
 * modules given together to check (ksc-order.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "util/array.h"

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
