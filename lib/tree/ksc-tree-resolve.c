// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Step 3 of ksc_tree_open(): depmod's resolution of each module's dependency symbols
 * against one table (the kernel's exports, then each module's in order, a later one
 * replacing an earlier one), then depmod's sort and its cycles.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree-private.h"
struct resolve_job {
	bool unknown, crcs; /* unknown symbols and CRCs that differ are said */
	int oom;
};

/* One module's resolution under way: its dependencies and unresolved symbols so far. */
struct resolving {
	const struct ksc_tree *t;
	struct resolve_job *j;
	uint32_t *deps;
	struct tunres *un;
	uint32_t nd, nu;
};

/* A dependency symbol of the module: who provides it, or why it is unresolved. */
static int resolve_sym(void *data, const char *name, uint64_t crc, bool weak)
{
	struct resolving *rs = data;
	const struct msym *s = ksym_find(rs->t, name);

	if (!s) {
		if (rs->j->unknown && !weak)
			rs->un[rs->nu++] = (struct tunres){ name, KDER_UNKNOWN_SYMBOL };
		return 0;
	}
	if (rs->j->crcs && s->crc != crc && !weak)
		rs->un[rs->nu++] = (struct tunres){ name, KDER_CRC_DIFFERS };
	if (s->owner < 0)
		return 0;
	bool have = false;
	for (uint32_t x = 0; x < rs->nd && !have; x++)
		have = rs->deps[x] == (uint32_t)s->owner;
	if (!have)
		rs->deps[rs->nd++] = (uint32_t)s->owner;
	return 0;
}

/* A copy of n elements of `size` bytes (at least one element's room), or NULL. */
static void *copy_exact(const void *a, size_t n, size_t size)
{
	void *c = malloc((n ? n : 1) * size);

	if (c && n)
		memcpy(c, a, n * size);
	return c;
}

static void resolve_item(struct tpool *p, size_t i, unsigned int worker)
{
	struct ksc_tree *t = p->t;
	struct resolve_job *j = p->data;
	struct tmod *m = tree_mod(t, i);
	const struct krec *rec = ksc_modent_rec(m->ent);
	size_t n = ksc_krec_kdep_max(rec);
	struct resolving rs = { .t = t, .j = j };
	rs.deps = malloc((n ? n : 1) * sizeof(*rs.deps));
	rs.un = malloc((n ? n : 1) * sizeof(*rs.un));
	uint32_t *deps = NULL;
	struct tunres *un = NULL;

	/* resolved into room for every symbol, then kept in arrays of the exact size */
	if (rs.deps && rs.un && ksc_krec_each_kdep(rec, resolve_sym, &rs) == 0) {
		deps = copy_exact(rs.deps, rs.nd, sizeof(*deps));
		un = copy_exact(rs.un, rs.nu, sizeof(*un));
	}
	free(rs.deps);
	free(rs.un);
	if (!deps || !un) {
		free(deps);
		free(un);
		j->oom = 1;
		return;
	}
	m->deps = deps;
	m->n_deps = rs.nd;
	m->deps_own = true;
	m->unres = un;
	m->n_unres = rs.nu;
	m->unres_own = true;
}

/*
 * With `then_check`, the kernel the checks run against is built in the calling thread
 * while the workers resolve.
 */
int resolve_modules(struct ksc_tree *t, unsigned int jobs, const size_t *items, size_t n,
		    bool then_check)
{
	int r = load_kernel(t);

	if (r < 0)
		return r;
	r = ksym_add_modules(t);
	if (r < 0)
		return r;
	struct resolve_job rj = { kernel_usable(t), kernel_has_crcs(t), 0 };
	struct tpool p = { .n = n, .items = items, .fn = resolve_item, .data = &rj };
	run_pool(t, &p, n > 256 ? jobs : 1,
		 then_check && rj.unknown ? build_check_kernel : NULL, "resolve");
	return rj.oom ? -ENOMEM : 0;
}

/* Does derived record d hold a finding of `code`? */
static bool has_code(const struct kder *d, const char *code)
{
	const struct kder_diag *x = kder_arr(d, d->diags);

	for (size_t i = 0; i < d->diags.n; i++)
		if (strcmp(kder_str(d, x[i].code), code) == 0)
			return true;
	return false;
}

/*
 * R43: a verdict kept from the index is stale when the module's dependencies now reach a
 * dependency cycle and did not then, or the other way round (a cycle is made or broken by
 * another module's imports, which the verdict's fingerprint does not cover): such a
 * module is checked again (check_modules() takes every module marked need_check).
 */
static int recheck_cycles(struct ksc_tree *t, uint32_t *const *dp, const uint32_t *nd)
{
	const size_t n_mods = tree_n_mods(t);
	bool *ok = malloc((n_mods ? n_mods : 1) * sizeof(*ok));
	int r = ok ? ksc_loadable(n_mods, dp, nd, ok) : -ENOMEM;

	for (size_t i = 0; i < n_mods && r >= 0; i++) {
		struct tmod *m = tree_mod(t, i);
		const struct kder *od = ksc_modent_old_der(m->ent);
		if (!verdicts_wanted(t) || !m->eng_ok || m->need_check || !od ||
		    !(od->flags & KDER_F_CHECKED))
			continue;
		bool now = false;
		for (uint32_t j = 0; j < nd[i] && !now; j++)
			now = !ok[dp[i][j]];
		if (now == has_code(ksc_modent_old_der(m->ent), "dep-cycle"))
			continue;
		m->eng_ok = false;
		m->need_check = true;
		tree_stats(t)->checked++;
	}
	free(ok);
	return r < 0 ? r : 0;
}

int sort_modules(struct ksc_tree *t)
{
	const size_t n_mods = tree_n_mods(t);
	uint32_t **dp = malloc((n_mods ? n_mods : 1) * sizeof(*dp));
	uint32_t *nd = malloc((n_mods ? n_mods : 1) * sizeof(*nd));
	int *si = malloc((n_mods ? n_mods : 1) * sizeof(*si));
	int r = 0;

	if (!dp || !nd || !si) {
		free(dp);
		free(nd);
		free(si);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_mods; i++) {
		dp[i] = tree_mod(t, i)->deps;
		nd[i] = tree_mod(t, i)->n_deps;
	}
	size_t n_sorted = ksc_depmod_sort(n_mods, dp, nd, si);
	if (n_sorted == SIZE_MAX)
		r = -ENOMEM;
	if (r >= 0 && n_sorted < n_mods) {
		uint32_t *flat = NULL;
		size_t *lens = NULL;
		int c = ksc_depmod_cycles(n_mods, dp, nd, si, &flat, &lens);
		if (c < 0)
			r = c;
		else
			depmod_take_cycles(t, flat, lens, (size_t)c);
	}
	if (r >= 0)
		r = recheck_cycles(t, dp, nd);
	for (size_t i = 0; i < n_mods; i++)
		tree_mod(t, i)->sort_idx = si[i];
	free(dp);
	free(nd);
	free(si);
	return r;
}
