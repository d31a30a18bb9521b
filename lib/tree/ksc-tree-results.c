// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a tree's run found, made public: the problems (files that could not be read or
 * are no modules) and every module's messages in path order, the fingerprints of what
 * the derived results depend on, and the arrays the getters hand out (verdicts,
 * findings, unresolved symbols, cycles).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree-private.h"

/* This file's part of the tree (res_of()): the verdicts' public arrays (assemble()). */
struct tree_results {
	struct ksc_tree_unresolved *unres;
	size_t n_unres;
	struct ksc_module_verdict *verdicts;
	bool *has_verdict; /* [module] */
	struct ksc_diag *diags;
	size_t n_diags;
};

static struct tree_results *res_of(const struct ksc_tree *t)
{
	return tree_parts(t)->res;
}

int results_part_new(struct ksc_tree *t)
{
	struct tree_results *res = calloc(1, sizeof(*res));

	if (!res)
		return -ENOMEM;
	tree_parts(t)->res = res;
	return 0;
}

void results_part_free(struct ksc_tree *t)
{
	struct tree_results *res = res_of(t);

	if (!res)
		return;
	free(res->unres);
	free(res->verdicts);
	free(res->has_verdict);
	free(res->diags);
	free(res);
	tree_parts(t)->res = NULL;
}

static uint64_t hs(uint64_t h, const char *s)
{
	return s ? ksc_hash64(s, strlen(s) + 1, h) : ksc_hash64("", 0, h + 1);
}

/* A number into a fingerprint: a bijective mix (multiply, xor-shift) of h ^ v. */
static uint64_t hn(uint64_t h, uint64_t v)
{
	uint64_t x = (h ^ v) * 0x9e3779b97f4a7c15ULL;

	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ULL;
	return x ^ (x >> 32);
}

/*
 * The keys the signatures were verified with: each certificate by its issuer and serial
 * number (what a signature names), subject, algorithm and size.
 */
static uint64_t keys_fingerprint(uint64_t h, const struct ksc_keyring *kr)
{
	size_t n = kr ? ksc_keyring_get_count(kr) : 0;

	h = hn(h, n);
	for (size_t i = 0; i < n; i++) {
		const struct ksc_key *k = ksc_keyring_get_key(kr, i);
		h = hn(hs(hs(hs(hs(h, k->issuer), k->serial), k->subject), k->key_algo), k->bits);
	}
	return h;
}

/*
 * What the derived results depend on besides each module's own facts. "ksc-tree-N" goes
 * up when the findings change for the same inputs (3: the rule ids were split).
 */
void fingerprints(struct ksc_tree *t)
{
	const size_t n_mods = tree_n_mods(t);
	uint64_t c = hs(hs(hs(hs(0x6b73632d74726565ULL, "ksc-tree-3"), KSC_VERSION_STRING),
			   tree_moddir(t)),
			tree_release(t));
	uint64_t ksrc_id, config_id;
	unsigned int quirks;
	uint64_t order_fp = walk_order_fp(t);
	kernel_ids(t, &ksrc_id, &config_id, &quirks);
	tree_fps(t)->ctx = c;
	uint64_t dm = hn(hn(hn(c, order_fp), ksrc_id), n_mods);
	uint64_t eng = hn(hn(hn(hn(c, order_fp), ksrc_id), config_id), n_mods);
	const struct ksc_check_opts *o = tree_check(t);
	eng = hs(eng, o ? o->policy : NULL);
	eng = hn(eng,
		 o ? ((uint64_t)o->require_intree |
		      (uint64_t)(o->allow_missing_ns + 1) << 1 | (uint64_t)o->views << 8 |
		      ((uint64_t)o->build + 1) << 12) /* + 1: R40 changed the verdicts */
		   : 0xffff);
	eng = hn(hn(eng, tree_opts(t)->no_check), quirks);
	eng = keys_fingerprint(eng, tree_opts(t)->keyring);
	uint64_t out = hn(c, order_fp);
	for (size_t i = 0; i < n_mods; i++) {
		const struct tmod *m = tree_mod(t, i);
		const struct krec_sum *s = ksc_modent_sum(m->ent);
		uint64_t rp = hs(0, m->relpath);
		dm = hn(hn(dm, rp), ksc_krec_sum_hash(s, KREC_H_KEXP));
		eng = hn(hn(eng, rp), ksc_krec_sum_hash(s, KREC_H_PROV));
		out = hn(hn(out, rp), ksc_krec_sum_hash(s, KREC_H_KMOD));
	}
	tree_fps(t)->dm = dm;
	tree_fps(t)->eng = eng;
	tree_fps(t)->out = out;
}

struct logline {
	const char *path;
	int prio;
	const char *text;
	char *own;
	size_t seq;
};

static int cmp_logline(const void *a, const void *b)
{
	const struct logline *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Every message of this run and of the cached modules, sorted by path; the problems list.
 */
int report_problems(struct ksc_tree *t)
{
	const size_t n_mods = tree_n_mods(t);
	size_t walk_n = problem_count(t), n = 0;

	/* Problems of modules: those the reader failed on, kernel images in the tree. */
	for (size_t i = 0; i < n_mods; i++) {
		struct tmod *m = tree_mod(t, i);
		const struct krec_sum *s = ksc_modent_sum(m->ent);
		bool problem = ksc_krec_sum_read_error(s) != 0 ||
			       ksc_krec_sum_kind(s) == KSC_KIND_VMLINUX;
		if (!ksc_krec_sum_msg_count(s) && !problem)
			continue;
		const struct krec *r = need_rec(t, m);
		if (!r)
			return -ENOMEM;
		n += ksc_krec_msg_count(r);
		const char *why;
		int err = ksc_krec_problem(r, m->path, &why);
		if (!err)
			continue;
		if (add_problem(t, m->path, err, "%s", why ? why : strerror(-err)) < 0)
			return -ENOMEM;
		if (ksc_krec_kind(r) == KSC_KIND_VMLINUX)
			n++; /* logged from the problem list */
	}
	n += walk_n;
	struct logline *l = calloc(n ? n : 1, sizeof(*l));
	size_t k = 0;
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < problem_count(t); i++) {
		const struct tproblem *p = problem_at(t, i);
		if (i >= walk_n &&
		    strcmp(p->reason, "not a module (a kernel image)") != 0)
			continue; /* the module's own messages say it */
		if (asprintf(&l[k].own, "%s: %s", p->path, p->reason) < 0) {
			l[k].own = NULL;
			goto oom;
		}
		l[k].path = p->path;
		l[k].prio = KSC_LOG_ERR;
		l[k].text = l[k].own;
		k++;
	}
	for (size_t i = 0; i < n_mods; i++) {
		const struct tmod *m = tree_mod(t, i);
		const struct krec *r = ksc_modent_rec(m->ent);
		if (!ksc_krec_sum_msg_count(ksc_modent_sum(m->ent)) || !r)
			continue;
		for (size_t j = 0; j < ksc_krec_msg_count(r) && k < n; j++, k++) {
			l[k] = (struct logline){ m->path, 0, NULL, NULL, 0 };
			l[k].text = ksc_krec_msg(r, j, &l[k].prio);
		}
	}
	for (size_t i = 0; i < k; i++)
		l[i].seq = i;
	if (k > 1)
		qsort(l, k, sizeof(*l), cmp_logline);
	for (size_t i = 0; i < k; i++)
		ksc_log(tree_ctx(t), l[i].prio, "%s", l[i].text);
	for (size_t i = 0; i < k; i++)
		free(l[i].own);
	free(l);
	return publish_problems(t);
oom:
	for (size_t i = 0; i < k; i++)
		free(l[i].own);
	free(l);
	return -ENOMEM;
}

/* The public arrays: verdicts, diags, unresolved symbols; cycles (publish_cycles()). */
int assemble(struct ksc_tree *t)
{
	const size_t n_mods = tree_n_mods(t);
	struct tree_results *res = res_of(t);
	size_t nd = 0, nu = 0;

	for (size_t i = 0; i < n_mods; i++) {
		const struct kder *d = tree_mod(t, i)->der;
		nd += d->diags.n;
		nu += d->unres.n;
	}
	res->verdicts = calloc(n_mods ? n_mods : 1, sizeof(*res->verdicts));
	res->has_verdict = calloc(n_mods ? n_mods : 1, sizeof(*res->has_verdict));
	res->diags = calloc(nd ? nd : 1, sizeof(*res->diags));
	res->unres = calloc(nu ? nu : 1, sizeof(*res->unres));
	if (!res->verdicts || !res->has_verdict || !res->diags || !res->unres)
		return -ENOMEM;
	for (size_t i = 0; i < n_mods; i++) {
		const struct tmod *m = tree_mod(t, i);
		const struct kder *d = m->der;
		const struct kder_unres *u = kder_arr(d, d->unres);
		for (size_t j = 0; j < d->unres.n; j++)
			res->unres[res->n_unres++] = (struct ksc_tree_unresolved){
				i, kder_str(d, u[j].name),
				(enum ksc_tree_unresolved_kind)u[j].kind
			};
		if (!(d->flags & KDER_F_CHECKED))
			continue;
		res->has_verdict[i] = true;
		struct ksc_module_verdict *v = &res->verdicts[i];
		v->module = NULL;
		v->loader_name = kder_str(d, d->loader_name);
		v->modpost_name = kder_str(d, d->modpost_name);
		v->loader_err = d->loader_err;
		v->modpost_ok = d->flags & KDER_F_MODPOST_OK;
		v->first_diag = res->n_diags;
		const struct kder_diag *g = kder_arr(d, d->diags);
		for (size_t j = 0; j < d->diags.n; j++) {
			struct ksc_diag *x = &res->diags[res->n_diags++];
			x->view = (enum ksc_view)g[j].view;
			x->severity = (enum ksc_severity)g[j].severity;
			x->code = kder_str(d, g[j].code);
			x->rule = kder_str(d, g[j].rule);
			x->module_index = i;
			x->module = kder_str(d, g[j].module);
			x->symbol = kder_str(d, g[j].symbol);
			x->ns = kder_str(d, g[j].ns);
			x->owner = kder_str(d, g[j].owner);
			x->summary = kder_str(d, g[j].summary);
			x->kernel_lines = kder_str(d, g[j].kernel_lines);
			x->explanation = kder_str(d, g[j].explanation);
			x->fix = kder_str(d, g[j].fix);
			x->err = g[j].err;
		}
		v->n_diags = res->n_diags - v->first_diag;
	}
	return publish_cycles(t);
}

KSC_EXPORT size_t ksc_tree_get_unresolved_count(const struct ksc_tree *t)
{
	return res_of(t)->n_unres;
}

KSC_EXPORT const struct ksc_tree_unresolved *ksc_tree_get_unresolved(const struct ksc_tree *t,
								     size_t i)
{
	return i < res_of(t)->n_unres ? &res_of(t)->unres[i] : NULL;
}

KSC_EXPORT bool ksc_tree_has_verdicts(const struct ksc_tree *t)
{
	for (size_t i = 0; i < tree_n_mods(t); i++)
		if (res_of(t)->has_verdict[i])
			return true;
	return false;
}

KSC_EXPORT const struct ksc_module_verdict *ksc_tree_get_verdict(const struct ksc_tree *t,
								 size_t i)
{
	return i < tree_n_mods(t) && res_of(t)->has_verdict[i] ? &res_of(t)->verdicts[i]
							       : NULL;
}

KSC_EXPORT size_t ksc_tree_get_diag_count(const struct ksc_tree *t)
{
	return res_of(t)->n_diags;
}

KSC_EXPORT const struct ksc_diag *ksc_tree_get_diag(const struct ksc_tree *t, size_t i)
{
	return i < res_of(t)->n_diags ? &res_of(t)->diags[i] : NULL;
}
