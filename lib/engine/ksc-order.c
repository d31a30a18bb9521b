// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Modules given together (the folder of modules a DKMS package builds, a driver and its
 * helpers): the loader view takes them as modprobe loads them, each one's dependencies
 * among them first, or with insmod_only in the order given. A dependency is what depmod
 * makes of an import (R26): a symbol vmlinux does not export, exported by another module
 * given (the first of them, in the order given). The order is modprobe -a's: depth-first
 * from each module in the order given, its dependencies first. Which modules cannot load
 * because they are in or behind a dependency cycle is R43's decision, made by the kernel
 * wing's ksc_loadable() and named by ksc_cycle_texts() on this graph, as for a tree.
 *
 * When a symbol is not found but a module given with this one exports it, the Unknown
 * symbol is reported for what it is: that module is in or behind a dependency cycle
 * (dep-cycle, R43, worded as for a tree's module: ksc-loader.c), was refused
 * (dep-refused, R20) or comes later (dep-order, R20, insmod_only), not as a symbol no one
 * exports.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "util/array.h"

enum { SIB_WAITING, SIB_LOADED, SIB_REFUSED };

struct siblings {
	struct ksc_module *const *mods;
	size_t n;
	struct hash exporter; /* export name -> (given index + 1), the first module given */
	struct hash names;    /* loader name -> (given index + 1) */
	size_t *order;        /* load position -> given index */
	unsigned char *state; /* per given index: SIB_* */
	const char **cycle;   /* per given index: the cycle it is in or behind (R43), or NULL */
	struct pool strings;  /* the cycles' texts */
};

/* The given module exporting `sym`, as an index + 1; 0: none. */
static size_t exporter_of(const struct siblings *s, const char *sym)
{
	return (size_t)(uintptr_t)hash_find(&s->exporter, sym);
}

static int index_modules(struct siblings *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct ksc_module *m = s->mods[i];
		void *v = (void *)(uintptr_t)(i + 1);
		if (hash_add(&s->names, ksc_module_get_name(m), v, 1) < 0)
			return -ENOMEM;
		for (size_t e = 0; e < ksc_module_get_export_count(m); e++)
			if (hash_add(&s->exporter, ksc_module_get_export(m, e)->name, v, 1) < 0)
				return -ENOMEM;
	}
	return 0;
}

/* Module i's dependencies among the modules given (depmod: vmlinux first), appended. */
static int add_deps(const struct siblings *s, const struct ksc_kernel *k, size_t i,
		    uint32_t **deps, size_t *n, size_t *cap)
{
	const struct ksc_module *m = s->mods[i];

	for (size_t u = 0; u < ksc_module_get_import_count(m); u++) {
		const char *sym = ksc_module_get_import(m, u)->name;
		const struct kprov *p = ksc_kernel_first_prov(k, sym);
		size_t j = exporter_of(s, sym);
		if (!j || j - 1 == i || (p && !ksc_kprov_owner(p)))
			continue;
		if (array_push(*deps, *n, *cap, (uint32_t)(j - 1)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The edges of every module: first[i]..first[i + 1] in deps. */
struct graph {
	size_t *first, n_deps, cap_deps;
	uint32_t *deps;
};

/* Stack entries of the depth-first walk: a module and its next edge. */
struct frame {
	size_t mod, edge;
};

/*
 * Depth-first from each module in the order given, a module after its dependencies
 * (modprobe -a: each module's modules.dep list, loaded from the end). A module already
 * on the way is not taken again: the members of a cycle come in the order met, and R43
 * (cycles()) says that none of them loads.
 */
static int sort_modules(struct siblings *s, const struct graph *g)
{
	enum { WHITE, GREY, BLACK };
	unsigned char *color = calloc(s->n, 1);
	struct frame *stack = calloc(s->n, sizeof(*stack));
	size_t npos = 0;

	if (!color || !stack) {
		free(color), free(stack);
		return -ENOMEM;
	}
	for (size_t root = 0; root < s->n; root++) {
		size_t sp = 0;
		if (color[root] != WHITE)
			continue;
		color[root] = GREY;
		stack[sp++] = (struct frame){ root, g->first[root] };
		while (sp) {
			struct frame *f = &stack[sp - 1];
			if (f->edge == g->first[f->mod + 1]) {
				color[f->mod] = BLACK;
				s->order[npos++] = f->mod;
				sp--;
				continue;
			}
			size_t j = g->deps[f->edge++];
			if (color[j] == WHITE) {
				color[j] = GREY;
				stack[sp++] = (struct frame){ j, g->first[j] };
			}
		}
	}
	free(color), free(stack);
	return 0;
}

/* R43 on the modules given: which are in or behind a dependency cycle, and which cycle. */
static int cycles(struct siblings *s, const struct graph *g)
{
	uint32_t **dp = malloc(s->n * sizeof(*dp)), *nd = malloc(s->n * sizeof(*nd));
	const char **names = malloc(s->n * sizeof(*names));
	bool *ok = malloc(s->n * sizeof(*ok));
	int r = dp && nd && names && ok ? 0 : -ENOMEM;

	for (size_t i = 0; i < s->n && r >= 0; i++) {
		dp[i] = g->deps + g->first[i];
		nd[i] = (uint32_t)(g->first[i + 1] - g->first[i]);
		names[i] = ksc_module_get_name(s->mods[i]);
	}
	if (r >= 0)
		r = ksc_loadable(s->n, dp, nd, ok);
	if (r > 0)
		r = ksc_cycle_texts(s->n, dp, nd, ok, names, &s->strings, s->cycle);
	free(dp), free(nd), free(names), free(ok);
	return r < 0 ? r : 0;
}

static int dependency_order(struct siblings *s, const struct ksc_kernel *k)
{
	struct graph g = { .first = calloc(s->n + 1, sizeof(size_t)) };
	int r = g.first ? 0 : -ENOMEM;

	for (size_t i = 0; i < s->n && r >= 0; i++) {
		g.first[i] = g.n_deps;
		r = add_deps(s, k, i, &g.deps, &g.n_deps, &g.cap_deps);
	}
	if (r >= 0) {
		g.first[s->n] = g.n_deps;
		r = sort_modules(s, &g);
	}
	if (r >= 0)
		r = cycles(s, &g);
	free(g.first);
	array_free(g.deps, g.n_deps, g.cap_deps);
	return r;
}

int ksc_siblings_new(const struct ksc_kernel *k, struct ksc_module *const *mods, size_t n,
		     bool insmod_only, struct siblings **out)
{
	struct siblings *s = calloc(1, sizeof(*s));
	int r;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->mods = mods;
	s->n = n;
	hash_init(&s->exporter);
	hash_init(&s->names);
	s->order = calloc(n ? n : 1, sizeof(*s->order));
	s->state = calloc(n ? n : 1, sizeof(*s->state));
	s->cycle = calloc(n ? n : 1, sizeof(*s->cycle));
	pool_init(&s->strings);
	r = s->order && s->state && s->cycle ? 0 : -ENOMEM;
	if (r >= 0 && n > 1)
		r = index_modules(s);
	for (size_t i = 0; i < n; i++)
		s->order[i] = i;
	if (r >= 0 && n > 1 && !insmod_only)
		r = dependency_order(s, k);
	if (r < 0) {
		ksc_siblings_free(s);
		return r;
	}
	*out = s;
	return 0;
}

void ksc_siblings_free(struct siblings *s)
{
	if (!s)
		return;
	hash_fini(&s->exporter);
	hash_fini(&s->names);
	free(s->order);
	free(s->state);
	free(s->cycle);
	pool_fini(&s->strings);
	free(s);
}

size_t ksc_siblings_at(const struct siblings *s, size_t pos)
{
	return s->order[pos];
}

void ksc_siblings_loaded(struct siblings *s, size_t idx, int err)
{
	s->state[idx] = err ? SIB_REFUSED : SIB_LOADED;
}

bool ksc_siblings_has_name(const struct siblings *s, const char *name)
{
	return s && hash_find(&s->names, name);
}

/* The first thing that refused module `j`: "SYMBOL: summary", or its code. */
static const char *refusal_of(struct ksc_report *r, size_t j)
{
	const struct ksc_module_verdict *v = &r->verdicts[j];

	for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
		const struct ksc_diag *d = &r->diags[i];
		if (d->view != KSC_VIEW_LOADER || d->severity != KSC_SEV_ERROR)
			continue;
		return sfmt(r, "%s%s%s [%s]", d->symbol ? d->symbol : "",
			    d->symbol ? ": " : "", d->summary ? d->summary : d->code, d->code);
	}
	return sfmt(r, "%s", ksc_errno_name(v->loader_err));
}

struct ksc_diag *ksc_siblings_missing(struct run *run, size_t idx, const char *name,
				      const char *sym)
{
	const struct siblings *s = run->sib;
	struct ksc_report *r = run->r;
	size_t j = s && s->n > 1 ? exporter_of(s, sym) : 0;

	if (!j-- || j == idx || s->state[j] == SIB_LOADED)
		return NULL;
	const char *other = r->verdicts[j].loader_name;
	if (s->state[j] == SIB_REFUSED)
		return finding_new(r, KSC_VIEW_LOADER, KSC_SEV_ERROR, "dep-refused", idx, name, sym,
			&(struct finding){ .owner = other,
			.summary = sfmt(r, "exported by %s, which would be refused (see above)", other),
			.explanation = sfmt(r, "%s, given with this module, is loaded first and would be refused (%s), so the loader finds none of its exports",
					    other, refusal_of(r, j)),
			.fix = sfmt(r, "fix %s first (its findings are above): this module loads once it does", other) });
	if (!run->o->insmod_only)
		return NULL;
	return finding_new(r, KSC_VIEW_LOADER, KSC_SEV_ERROR, "dep-order", idx, name, sym,
		&(struct finding){ .owner = other,
		.summary = sfmt(r, "exported by %s, which is loaded after this module (--insmod keeps the order given)", other),
		.explanation = sfmt(r, "with plain insmod the modules are loaded in the order given, and %s comes after %s, whose load then finds none of its exports",
				    other, name),
		.fix = sfmt(r, "give %s before %s, or leave out --insmod to load them as modprobe would, dependencies first", other, name) });
}

const char *ksc_siblings_cycle(const struct run *run, size_t idx, const char *sym,
			       const char **owner)
{
	const struct siblings *s = run->sib;
	size_t j = s && s->n > 1 ? exporter_of(s, sym) : 0;

	if (!j-- || j == idx || !s->cycle[j])
		return NULL;
	*owner = run->r->verdicts[j].loader_name;
	return s->cycle[j];
}
