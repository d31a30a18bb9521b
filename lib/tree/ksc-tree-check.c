// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Step 4 of ksc_tree_open(): each readable module judged by ksc_check_modules_ctx() in
 * the workers, against one shared kernel made of the kernel's exports and every module
 * as a provider; and each module's derived record (dependencies, unresolved symbols,
 * verdict), kept in the index while what it depends on is unchanged.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree-private.h"
#include "util/array.h"
struct cstate {
	struct ksc_ctx *ctx;
	struct ksc_msgbuf msgs;
	struct ksc_sigscratch sig;
	uint64_t ns;
};

struct check_job {
	struct cstate *ws;
	struct ksc_kernel *k; /* shared: checks only read it */
	const struct ksc_check_opts *opts;
	int oom;
};

/*
 * The derived record of a module: its dependencies and unresolved symbols, and a verdict.
 */
int build_kder(const struct tmod *m, const struct ksc_report *rep,
		      const struct kder *old, struct kder **out)
{
	struct kder h;
	struct rbuf b;

	*out = NULL;
	memset(&h, 0, sizeof(h));
	rbuf_init(&b);
	rbuf_put(&b, sizeof(h), 8);
	h.magic = KDER_MAGIC;
	h.loader_name = h.modpost_name = KREC_NONE;
	h.deps.n = m->n_deps;
	h.deps.off = (uint32_t)rbuf_put(&b, (size_t)m->n_deps * 4, 4);
	rbuf_write(&b, h.deps.off, m->deps, (size_t)m->n_deps * 4);
	h.unres.n = m->n_unres;
	h.unres.off =
		(uint32_t)rbuf_put(&b, (size_t)m->n_unres * sizeof(struct kder_unres), 4);
	for (size_t i = 0; i < m->n_unres && !rbuf_failed(&b); i++) {
		struct kder_unres u = { rbuf_str(&b, m->unres[i].name,
						 strlen(m->unres[i].name)),
					m->unres[i].kind };
		rbuf_write(&b, h.unres.off + i * sizeof(u), &u, sizeof(u));
	}
#define DS(s) ((s) ? rbuf_str(&b, (s), strlen(s)) : KREC_NONE)
	if (rep && ksc_report_get_module_count(rep) == 1) {
		const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, 0);
		h.flags = KDER_F_CHECKED | (v->modpost_ok ? KDER_F_MODPOST_OK : 0);
		h.loader_err = v->loader_err;
		h.loader_name = DS(v->loader_name ? v->loader_name : "");
		h.modpost_name = DS(v->modpost_name ? v->modpost_name : "");
		size_t n = ksc_report_get_diag_count(rep);
		h.diags.n = (uint32_t)n;
		h.diags.off = (uint32_t)rbuf_put(&b, n * sizeof(struct kder_diag), 4);
		for (size_t i = 0; i < n && !rbuf_failed(&b); i++) {
			const struct ksc_diag *d = ksc_report_get_diag(rep, i);
			struct kder_diag x = { d->view,
					       d->severity,
					       d->err,
					       DS(d->code),
					       DS(d->rule),
					       DS(d->module ? d->module : ""),
					       DS(d->symbol),
					       DS(d->ns),
					       DS(d->owner),
					       DS(d->summary),
					       DS(d->kernel_lines),
					       DS(d->explanation),
					       DS(d->fix) };
			if (x.code == KREC_NONE)
				x.code = 0;
			rbuf_write(&b, h.diags.off + i * sizeof(x), &x, sizeof(x));
		}
	} else if (old && (old->flags & KDER_F_CHECKED)) {
		h.flags = old->flags;
		h.loader_err = old->loader_err;
		h.loader_name = DS(kder_str(old, old->loader_name));
		h.modpost_name = DS(kder_str(old, old->modpost_name));
		const struct kder_diag *od = kder_arr(old, old->diags);
		h.diags.n = old->diags.n;
		h.diags.off = (uint32_t)rbuf_put(
			&b, old->diags.n * sizeof(struct kder_diag), 4);
		for (size_t i = 0; i < old->diags.n && !rbuf_failed(&b); i++) {
			const struct kder_diag *d = &od[i];
			struct kder_diag x = { d->view,
					       d->severity,
					       d->err,
					       DS(kder_str(old, d->code)),
					       DS(kder_str(old, d->rule)),
					       DS(kder_str(old, d->module)),
					       DS(kder_str(old, d->symbol)),
					       DS(kder_str(old, d->ns)),
					       DS(kder_str(old, d->owner)),
					       DS(kder_str(old, d->summary)),
					       DS(kder_str(old, d->kernel_lines)),
					       DS(kder_str(old, d->explanation)),
					       DS(kder_str(old, d->fix)) };
			rbuf_write(&b, h.diags.off + i * sizeof(x), &x, sizeof(x));
		}
	}
#undef DS
	if (rbuf_failed(&b)) {
		rbuf_fini(&b);
		return -ENOMEM;
	}
	rbuf_write(&b, 0, &h, sizeof(h));
	size_t size;
	struct kder *d = rbuf_finish(&b, offsetof(struct kder, strtab), &size);
	rbuf_fini(&b);
	if (!d)
		return -ENOMEM;
	*out = d;
	return 0;
}

static void check_item(struct tpool *p, size_t i, unsigned int worker)
{
	struct ksc_tree *t = p->t;
	struct check_job *j = p->data;
	struct cstate *w = &j->ws[worker];
	struct tmod *m = tree_mod(t, i);
	struct ksc_module *mod = NULL;
	struct ksc_report *rep = NULL;
	uint64_t t0 = tree_opts(t)->timing ? ksc_thread_ns() : 0;
	int r;

	if (j->k) {
		r = ksc_krec_to_module(w->ctx, ksc_modent_rec(m->ent), m->path, false,
				       false, &w->sig, &mod);
		if (r == 0)
			r = ksc_check_modules_ctx(j->k, w->ctx, &mod, 1, j->opts, &rep);
		if (r == -ENOMEM)
			j->oom = 1;
	}
	if (build_kder(m, rep, NULL, &m->der_own) < 0)
		j->oom = 1;
	m->der = m->der_own;
	ksc_report_unref(rep);
	ksc_module_unref(mod);
	if (tree_opts(t)->timing)
		w->ns += ksc_thread_ns() - t0;
}

/*
 * R43: the providers of the kernel to check against are stubs without imports; each
 * depends on what depmod's resolution found for it (its deps), by the loader's name
 * of each module, so that the kernel wing finds the dependency cycles (ksc-cycles.c).
 * 0 or -ENOMEM.
 */
static int give_deps(struct ksc_tree *t, struct ksc_ctx *ctx, struct ksc_kernel *k)
{
	const size_t n_mods = tree_n_mods(t);
	char **names = calloc(n_mods ? n_mods : 1, sizeof(*names));
	const char **dn = NULL;
	size_t cap = 0;
	int r = names ? 0 : -ENOMEM;

	for (size_t i = 0; i < n_mods && r >= 0; i++) {
		const struct krec *rec = ksc_modent_rec(tree_mod(t, i)->ent);
		struct ksc_module *stub;
		if (!rec || !krec_is_module(rec) || krec_export_count(rec) == 0 ||
		    ksc_krec_to_module(ctx, rec, tree_mod(t, i)->path, false, true, NULL,
				       &stub) < 0)
			continue; /* not an owner of the kernel */
		names[i] = strdup(ksc_module_get_name(stub));
		ksc_module_unref(stub);
		if (!names[i])
			r = -ENOMEM;
	}
	for (size_t i = 0; i < n_mods && r >= 0; i++) {
		const struct tmod *m = tree_mod(t, i);
		size_t n = 0;
		if (!names[i] || !m->n_deps)
			continue;
		if (array_reserve(dn, cap, m->n_deps, 16) < 0) {
			r = -ENOMEM;
			break;
		}
		for (uint32_t j = 0; j < m->n_deps; j++)
			if (names[m->deps[j]])
				dn[n++] = names[m->deps[j]];
		r = ksc_kernel_set_owner_deps(k, names[i], dn, n);
	}
	for (size_t i = 0; names && i < n_mods; i++)
		free(names[i]);
	free(names);
	free(dn);
	return r < 0 ? r : ksc_kernel_build_index(k);
}

/* The kernel to check against, built unless built while resolving; what it logged. */
static int check_kernel_ready(struct ksc_tree *t)
{
	int oom = ready_check_kernel(t);
	struct ksc_kernel *ck = check_kernel(t);

	if (ck && give_deps(t, tree_ctx(t), ck) < 0)
		oom = 1;
	return oom;
}

/* The checking threads' messages, in thread order, and their times; their state freed. */
static int checkers_fini(struct ksc_tree *t, struct cstate *cs, unsigned int jobs)
{
	int oom = 0;

	for (unsigned int i = 0; i < jobs; i++) {
		ksc_msgbuf_replay(&cs[i].msgs, tree_ctx(t));
		tree_stats(t)->cpu_check += (double)cs[i].ns / 1e9;
		oom |= cs[i].msgs.oom;
		ksc_msgbuf_fini(&cs[i].msgs);
		ksc_sigscratch_fini(&cs[i].sig);
		ksc_unref(cs[i].ctx);
	}
	free(cs);
	return oom;
}

int check_modules(struct ksc_tree *t, unsigned int jobs, const size_t *items, size_t n)
{
	const size_t n_mods = tree_n_mods(t);
	int r = load_kernel(t);

	if (r < 0)
		return r;
	if (!kernel_usable(t)) {
		for (size_t i = 0; i < n_mods; i++)
			tree_mod(t, i)->need_check = false;
		return 0;
	}
	int oom = check_kernel_ready(t);
	struct cstate *cs = calloc(jobs, sizeof(*cs));
	if (!cs)
		return -ENOMEM;
	for (unsigned int i = 0; i < jobs && r == 0; i++) {
		cs[i].ctx = ksc_new();
		if (!cs[i].ctx)
			r = -ENOMEM;
		else
			ksc_set_log_fn(cs[i].ctx, ksc_msgbuf_log, &cs[i].msgs);
	}
	struct check_job cjob = { cs, check_kernel(t), tree_check(t), 0 };
	/* the planned items, and the modules sort_modules() marked since (R43) */
	size_t *all = malloc((n_mods ? n_mods : 1) * sizeof(*all)), n_all = 0;
	if (!all && r == 0)
		r = -ENOMEM;
	for (size_t i = 0; all && i < n_mods; i++)
		if (tree_mod(t, i)->need_check)
			all[n_all++] = i;
	(void)items;
	(void)n;
	if (r == 0) {
		struct tpool p = { .n = n_all, .items = all, .fn = check_item, .data = &cjob };
		run_pool(t, &p, jobs, NULL, "check");
	}
	free(all);
	oom |= checkers_fini(t, cs, jobs);
	drop_check_kernel(t);
	if (r == 0 && (cjob.oom || oom))
		r = -ENOMEM;
	return r;
}

int finish_derived(struct ksc_tree *t)
{
	int r = 0;

	for (size_t i = 0; i < tree_n_mods(t) && r >= 0; i++) {
		struct tmod *m = tree_mod(t, i);
		if (m->der)
			continue;
		r = build_kder(m, NULL, m->eng_ok ? ksc_modent_old_der(m->ent) : NULL,
			       &m->der_own);
		m->der = m->der_own;
	}
	return r;
}
