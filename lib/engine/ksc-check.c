// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The policy engine: for each module, what the loader would do at insmod time
 * (ksc-loader.c) and what modpost would say at build time (ksc-modpost.c), rule by rule
 * as doc/rules.md states them (the rule ids in the comments; each finding's rule comes
 * from the catalogue, lib/kernel/ksc-catalogue.c). This file sets up the run, hands each
 * module to the views in the order the loader takes them (ksc-order.c: dependencies
 * first, as modprobe; as given with insmod_only) and keeps the report's public accessors.
 * tests/unit/test-check.c runs fifty-six worked cases through it, T01-T56.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "util/opts.h"

/* Module i of mods, taken by the loader at position pos: both views' verdicts. */
static void check_one(struct run *run, struct ksc_module *const *mods, size_t n, size_t i,
		      size_t pos)
{
	struct ksc_report *r = run->r;
	struct ksc_module_verdict *v = &r->verdicts[i];
	const struct ksc_module *mod = mods[i];

	v->first_diag = r->n_diags;
	v->load_index = pos;
	if (run->o->views & KSC_VIEW_LOADER) {
		const char *iname = ksc_module_get_modinfo_name(mod);
		struct loading L = {
			.index = i,
			.mod = mod,
			.name = v->loader_name,
			.iname = iname && *iname ? iname : v->loader_name,
		};
		v->loader_err = load_module(run, &L);
		v->loader_reached_symbols = L.reached_symbols;
		if (v->loader_err == 0)
			run->boot.live[run->boot.n_live++] =
				(struct live){ mod, v->loader_name, L.P };
		ksc_siblings_loaded(run->sib, i, v->loader_err);
	}
	if (run->o->views & KSC_VIEW_MODPOST)
		modpost_module(run, mods, n, i, &v->modpost_ok);
	v->n_diags = r->n_diags - v->first_diag;
}

KSC_EXPORT int ksc_check_modules(struct ksc_kernel *k, struct ksc_module *const *mods,
				 size_t n, const struct ksc_check_opts *opts,
				 struct ksc_report **out)
{
	return ksc_check_modules_ctx(k, ksc_kernel_get_ctx(k), mods, n, opts, out);
}

int ksc_check_modules_ctx(struct ksc_kernel *k, struct ksc_ctx *ctx,
			  struct ksc_module *const *mods, size_t n,
			  const struct ksc_check_opts *opts, struct ksc_report **out)
{
	struct ksc_check_opts o = { .sz = sizeof(o), .allow_missing_ns = -1 };
	struct ksc_report *r;
	struct run run = { 0 };
	int ret;

	*out = NULL;
	if (opts_copy(&o, opts) < 0)
		return -EINVAL;
	if (!o.views)
		o.views = KSC_VIEW_BOTH;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->refcount = 1;
	r->ctx = ksc_ref(ctx);
	pool_init(&r->strings);

	const char *pv = o.policy ? o.policy : ksc_kernel_get_release(k);
	if (!pv) {
		ksc_err(ctx, "no kernel version to take the rules from: give a policy (--policy) or the kernel's release");
		ret = -EINVAL;
		goto err;
	}
	if (ksc_features_init(&r->pol, pv) < 0) {
		ksc_err(ctx, "%s: not a kernel version", pv);
		ret = -EINVAL;
		goto err;
	}
	ret = ksc_kernel_build_index(k);
	if (ret < 0)
		goto err;

	run.r = r;
	run.k = k;
	run.pol = &r->pol;
	run.o = &o;
	run.allow_missing_ns = o.allow_missing_ns >= 0
		? o.allow_missing_ns : ksc_kernel_get_config(k, KSC_CONFIG_ALLOW_MISSING_NS) == 1;
	run.modversions = ksc_kernel_has_modversions(k) == 1;
	run.module_sig = ksc_kernel_get_config(k, KSC_CONFIG_MODULE_SIG) == 1;
	run.sig_force = ksc_kernel_get_config(k, KSC_CONFIG_MODULE_SIG_FORCE) == 1;
	run.force_load = ksc_kernel_get_config(k, KSC_CONFIG_MODULE_FORCE_LOAD) == 1;
	run.retpoline = ksc_kernel_get_config(k, KSC_CONFIG_RETPOLINE) == 1;
	run.missing_crc_fails = ksc_kernel_get_quirks(k) & KSC_QUIRK_DEBIAN_MISSING_CRC;

	r->verdicts = calloc(n ? n : 1, sizeof(*r->verdicts));
	run.boot.live = calloc(n ? n : 1, sizeof(*run.boot.live));
	if (!r->verdicts || !run.boot.live) {
		ret = -ENOMEM;
		goto err;
	}
	ret = ksc_siblings_new(k, mods, n, o.insmod_only, &run.sib);
	if (ret < 0)
		goto err;
	r->n_verdicts = n;
	for (size_t i = 0; i < n; i++) {
		struct ksc_module_verdict *v = &r->verdicts[i];
		v->module = mods[i];
		v->loader_name = ksc_module_get_name(mods[i]);
		v->modpost_name = ksc_module_get_modpost_name(mods[i]);
		v->modpost_ok = true;
	}
	for (size_t pos = 0; pos < n; pos++)
		check_one(&run, mods, n, ksc_siblings_at(run.sib, pos), pos);
	ksc_siblings_free(run.sib);
	run.sib = NULL;
	free(run.boot.live);
	run.boot.live = NULL;
	if (r->oom) {
		ret = -ENOMEM;
		goto err;
	}
	*out = r;
	return 0;
err:
	free(run.boot.live);
	ksc_siblings_free(run.sib);
	ksc_report_unref(r);
	return ret;
}

KSC_DEFINE_REF(ksc_report_ref, struct ksc_report)

KSC_EXPORT struct ksc_report *ksc_report_unref(struct ksc_report *r)
{
	if (!r || --r->refcount > 0)
		return NULL;
	free(r->diags);
	free(r->verdicts);
	pool_fini(&r->strings);
	ksc_unref(r->ctx);
	free(r);
	return NULL;
}

KSC_EXPORT const char *ksc_report_get_policy(const struct ksc_report *r)
{
	return r->pol.name;
}

KSC_DEFINE_INDEXED_GETTERS(ksc_report_get_module_count, ksc_report_get_verdict,
			   struct ksc_report, struct ksc_module_verdict,
			   verdicts, n_verdicts)
KSC_DEFINE_INDEXED_GETTERS(ksc_report_get_diag_count, ksc_report_get_diag,
			   struct ksc_report, struct ksc_diag,
			   diags, n_diags)
