// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One module, several kernels (`ksymcheck compat`): for every (module, kernel) cell, the
 * check engine's loader and modpost views of the binary as built, the loader's view as
 * if it were rebuilt for that kernel (ksc_check_opts.as_rebuilt), and what changed for
 * each symbol it imports between the kernel it was built for (the kernel given whose
 * release equals its vermagic's) and the target: removed, became GPL-only (R3, R16,
 * R17), moved into a namespace (R12, with the import line in the target's syntax, R2),
 * became module-restricted (R7, R10). With the module's source, the names its C files
 * use for the target's version (lib/source/ksc-src-names.c) tell a symbol the module
 * calls from one only the old headers' inline code referenced: the first fails the build,
 * the second may not.
 *
 * This file runs the checks and fills the cells; the types (ksc-compat-types.c), the
 * hints (ksc-compat-hint.c) and the scans (ksc-compat-scan.c) share its run state
 * (compat-private.h), and add findings through ksc-compat-finding.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compat-private.h"
#include "util/opts.h"

static const char *const build_names[] = {
	[KSC_COMPAT_BUILD_OK] = "ok",
	[KSC_COMPAT_BUILD_MAY_FAIL] = "may-fail",
	[KSC_COMPAT_BUILD_FAILS] = "fails",
};

KSC_EXPORT const char *ksc_compat_build_name(enum ksc_compat_build b)
{
	return (unsigned)b < ARRAY_SIZE(build_names) ? build_names[b] : "unknown";
}

/* MODULE_IMPORT_NS() as the target kernel spells it (R2: a string from 6.13). */
static const char *import_line(struct crun *cr, const char *ns)
{
	return cr->pol.has[KSC_FEAT_STRING_NS]
		       ? compat_fmt(cr, "MODULE_IMPORT_NS(\"%s\");", ns)
		       : compat_fmt(cr, "MODULE_IMPORT_NS(%s);", ns);
}

/* Another module given exports it: a sibling the package builds, not the kernel's. */
static bool sibling_export(const struct crun *cr, const char *sym)
{
	for (size_t i = 0; i < cr->c->n_mods; i++)
		if (cr->mods[i] != cr->mod && ksc_module_find_export(cr->mods[i], sym))
			return true;
	return false;
}

/* The namespace findings of one import found in the target (R7, R10, R12). */
static int ns_finding(struct crun *cr, struct ksc_compat_cell *cell, const char *sym,
		      const struct ksc_export *old, const char *oo, const struct ksc_export *new,
		      const char *no)
{
	const char *ns = new->ns;
	bool matched, imported;

	if (!ns[0] || (old && strcmp(old->ns, ns) == 0))
		return 0;
	if (ksc_namespace_is_module_restricted(ns)) {
		matched = ksc_namespace_matches_module(ns, ksc_module_get_name(cr->mod),
						       KSC_MATCH_LOADER);
		if (!old && matched)
			return 0;
		return compat_add_finding(
			cr, cell, "became-module-restricted",
			matched ? KSC_SEV_INFO : KSC_SEV_ERROR, sym, old, oo, new, no,
			matched ? compat_fmt(cr,
					     "restricted to %s, which this module's name matches",
					     ns + 7)
				: compat_fmt(cr, "restricted to the modules %s", ns + 7),
			matched ? NULL : "stop using it: only the modules named may");
	}
	imported = ksc_module_imports_ns(cr->mod, ns);
	if (!old && imported)
		return 0;
	return compat_add_finding(
		cr, cell, "namespace-moved", imported ? KSC_SEV_INFO : KSC_SEV_ERROR, sym,
		old, oo, new, no,
		!old ? compat_fmt(cr, "in namespace %s, which the module does not import", ns)
		: old->ns[0] ? compat_fmt(cr, "moved from namespace %s to %s", old->ns, ns)
			     : compat_fmt(cr, "moved into namespace %s", ns),
		imported ? NULL : import_line(cr, ns));
}

/* The findings of one import of the module against the target. */
static int import_findings(struct crun *cr, struct ksc_compat_cell *cell,
			   const struct ksc_import *im)
{
	const char *sym = im->name, *oo = NULL, *no = NULL;
	const struct ksc_export *old = cr->base ? ksc_kernel_find_export(cr->base, sym, &oo) : NULL;
	const struct ksc_export *new = ksc_kernel_find_export(cr->target, sym, &no);

	if (!new) {
		/* a weak import may stay unresolved; a sibling's or an export the old kernel
		 * did not have either is the loader's business (its view says) */
		if (im->bind == KSC_BIND_WEAK || sibling_export(cr, sym) || (cr->base && !old))
			return 0;
		int r;
		if (cr->hdefs && ksc_src_names_has(&cr->hdefs[cell->kernel], sym))
			r = compat_add_finding(
				cr, cell, "export-removed", KSC_SEV_INFO, sym, old, oo,
				NULL, NULL,
				compat_fmt(cr,
					   "no longer exported, but the headers define it (a macro or an inline function): a rebuild calls what they call"),
				NULL);
		else
			r = compat_add_finding(
				cr, cell, "export-removed", KSC_SEV_ERROR, sym, old, oo,
				NULL, NULL,
				old ? compat_fmt(cr, "no longer exported (by %s in %s)",
						 oo, cr->base_release)
				    : compat_fmt(cr, "not exported"),
				NULL);
		if (r == 0)
			r = compat_hint(cr, cell->kernel, sym);
		return r;
	}
	if (new->gpl_only && !(old && old->gpl_only) && (old || cr->proprietary)) {
		int r = compat_add_finding(
			cr, cell, "became-gpl-only",
			cr->proprietary ? KSC_SEV_ERROR : KSC_SEV_INFO, sym, old, oo, new,
			no,
			old ? compat_fmt(cr, "became GPL-only")
			    : compat_fmt(cr, "GPL-only"),
			cr->proprietary
				? "a GPL-compatible MODULE_LICENSE(), or stop using it"
				: NULL);
		if (r < 0)
			return r;
	}
	return ns_finding(cr, cell, sym, old, oo, new, no);
}

/*
 * With the source: what it does not name for the target is what the old headers' inline
 * code and macros referenced, and a rebuild follows the new headers; a prototype it names
 * in other places for the target than for the kernel it was built for is one its version
 * conditionals adapted to.
 */
static void weigh_by_source(struct crun *cr, struct ksc_compat_cell *cell)
{
	struct ksc_compat_finding *f = cr->c->findings + cell->first_finding;

	if (!cr->names)
		return;
	for (size_t i = 0; i < cell->n_findings; i++) {
		bool removed = strcmp(f[i].code, "export-removed") == 0,
		     typed = strcmp(f[i].code, "type-changed") == 0;
		if (f[i].severity != KSC_SEV_ERROR || !(removed || typed))
			continue;
		if (!f[i].named_in_source) {
			f[i].severity = KSC_SEV_INFO;
			f[i].summary = compat_fmt(
				cr,
				"%s; the source does not name it for this kernel: the old headers' inline code or macros did, and a rebuild follows the new ones",
				f[i].summary);
		} else if (removed &&
			   !(ksc_src_names_flags(&cr->names[cell->kernel], f[i].symbol) &
			     KSC_SRC_PLAIN)) {
			f[i].severity = KSC_SEV_WARNING;
			f[i].summary = compat_fmt(
				cr,
				"%s; the source names it only under conditions not evaluated here (#ifdef): the configuration decides",
				f[i].summary);
		} else if (typed) {
			const struct ksc_src_names *nk = &cr->names[cell->kernel];
			unsigned int how = ksc_src_names_flags(nk, f[i].symbol);
			bool func = strncmp(f[i].summary, "prototype", 9) == 0;
			if (func && !(how & KSC_SRC_CALLED)) {
				f[i].severity = KSC_SEV_INFO;
				f[i].summary = compat_fmt(
					cr,
					"%s; the source only takes it as a value (a function pointer), never calls it: what it fills changed with it, as far as seen",
					f[i].summary);
			} else if (cr->base &&
				   !ksc_src_names_same_places(&cr->names[cr->base_idx],
							      nk, f[i].symbol)) {
				f[i].severity = KSC_SEV_INFO;
				f[i].summary = compat_fmt(
					cr,
					"%s; the source names it in other places for this kernel (version conditionals): adapted to it, as far as seen",
					f[i].summary);
			} else if (how & KSC_SRC_CONDITIONAL) {
				f[i].severity = KSC_SEV_WARNING;
				f[i].summary = compat_fmt(
					cr,
					"%s; the source names it under conditions not evaluated here (#ifdef): it may adapt to it",
					f[i].summary);
			}
		}
		if (!f[i].summary)
			f[i].summary = "";
	}
}

static const char *first_license(const struct ksc_module *mod)
{
	const char *l = ksc_module_get_modinfo_value(mod, "license");

	return l ? l : "";
}

/* The kernel the module was built for: the first given whose release is its vermagic's. */
static struct ksc_kernel *base_of(struct crun *cr, size_t *idx)
{
	const char *vm = ksc_module_get_vermagic(cr->mod);
	char rel[256];

	if (!vm || ksc_release_from_vermagic(vm, rel, sizeof(rel)) < 0)
		return NULL;
	for (size_t k = 0; k < cr->c->n_kernels; k++) {
		const char *kr = ksc_kernel_get_release(cr->kernels[k]);
		if (kr && strcmp(kr, rel) == 0) {
			*idx = k;
			return cr->kernels[k];
		}
	}
	return NULL;
}

static void decide_build(struct crun *cr, struct ksc_compat_cell *cell)
{
	const struct ksc_compat_finding *f = cr->c->findings + cell->first_finding;

	cell->build = KSC_COMPAT_BUILD_OK;
	for (size_t i = 0; i < cell->n_findings; i++) {
		if (f[i].severity == KSC_SEV_INFO)
			continue;
		if (f[i].severity == KSC_SEV_ERROR && f[i].named_in_source) {
			cell->build = KSC_COMPAT_BUILD_FAILS;
			break;
		}
		cell->build = KSC_COMPAT_BUILD_MAY_FAIL;
	}
	cell->failed = cell->build == KSC_COMPAT_BUILD_FAILS ||
		       (cell->built_for && cell->loader_err);
}

static int memo_begin(struct crun *cr, size_t k, char key[33]);
static int memo_end(struct crun *cr, size_t k, const char *key);

static int fill_cell(struct crun *cr, size_t m, size_t k)
{
	struct ksc_compat *c = cr->c;
	struct ksc_compat_cell *cell = &c->cells[m * c->n_kernels + k];
	const struct ksc_module_verdict *v = ksc_report_get_verdict(c->built[k], m);
	const struct ksc_module_verdict *rv = ksc_report_get_verdict(c->rebuilt[k], m);
	size_t base_idx = 0;

	cr->mod = cr->mods[m];
	cr->target = cr->kernels[k];
	cr->base = base_of(cr, &base_idx);
	cr->base_idx = base_idx;
	cr->base_release = cr->base ? ksc_kernel_get_release(cr->base) : NULL;
	cr->proprietary = !ksc_license_is_gpl_compatible(first_license(cr->mod));
	*cell = (struct ksc_compat_cell){
		.module = m, .kernel = k, .release = ksc_kernel_get_release(cr->target),
		.built_for = cr->base && base_idx == k,
		.loader_err = v->loader_err, .modpost_ok = v->modpost_ok,
		.rebuilt_err = rv->loader_err, .first_finding = c->n_findings,
	};
	if (ksc_features_init(&cr->pol, cell->release) < 0)
		return -EINVAL;
	if (!cell->built_for) {
		char key[33];
		int r = memo_begin(cr, k, key);
		for (size_t i = 0; r == 0 && i < ksc_module_get_import_count(cr->mod); i++) {
			const struct ksc_import *im = ksc_module_get_import(cr->mod, i);
			r = import_findings(cr, cell, im);
			if (r == 0)
				r = compat_type_findings(cr, cell, im->name);
		}
		if (r == 0)
			r = compat_own_types(cr, cell, m);
		if (r == 0)
			r = memo_end(cr, k, key);
		ksc_compat_memo_fini(&cr->memo);
		cr->record = false;
		if (r < 0 || cr->oom)
			return -ENOMEM;
		weigh_by_source(cr, cell);
	}
	decide_build(cr, cell);
	return 0;
}

/*
 * A cell's memo: replayed when the cache has one for the same files, else the BTF is
 * read and what it gives recorded. 0 or -ENOMEM.
 */
static int memo_begin(struct crun *cr, size_t k, char key[33])
{
	const char *btf = cr->o->btf ? cr->o->btf[k] : NULL;
	const char *bbtf = cr->base && cr->o->btf ? cr->o->btf[cr->base_idx] : NULL;
	const char *md = cr->o->moddirs ? cr->o->moddirs[k] : NULL;
	const char *bmd = cr->base && cr->o->moddirs ? cr->o->moddirs[cr->base_idx] : NULL;
	const char *ids[] = { ksc_module_get_path(cr->mod), btf, bbtf, md, bmd,
			      cr->base ? ksc_kernel_get_release(cr->base) : "-",
			      ksc_kernel_get_release(cr->kernels[k]) };

	memset(&cr->memo, 0, sizeof(cr->memo));
	cr->record = false;
	if (cr->o->cache_dir) {
		ksc_compat_memo_key(ids, ARRAY_SIZE(ids), key);
		if (ksc_compat_memo_load(cr->o->cache_dir, key, &cr->memo) == 0) {
			cr->base_btf = cr->target_btf = NULL;
			return 0;
		}
		cr->record = true;
	}
	cr->base_btf = cr->base ? compat_kbtf(cr, cr->base_idx) : NULL;
	cr->target_btf = compat_kbtf(cr, k);
	return cr->oom ? -ENOMEM : 0;
}

/* The end of a cell: which BTF was read (recorded, or learnt from the memo); saved. */
static int memo_end(struct crun *cr, size_t k, const char *key)
{
	struct ksc_compat *c = cr->c;
	const char *v[4];

	if (cr->memo.replay) {
		if (ksc_compat_memo_next(&cr->memo, "B", "B", v, 4) == 4) {
			c->btf_known[cr->base_idx] |= cr->base && strcmp(v[2], "1") == 0;
			c->btf_known[k] |= strcmp(v[3], "1") == 0;
		}
		return 0;
	}
	if (!cr->record)
		return 0;
	if (ksc_compat_memo_add(&cr->memo, 'B', (const char *[]){ "B", cr->base_btf ? "1" : "0",
				cr->target_btf ? "1" : "0" }, 3) < 0)
		return -ENOMEM;
	(void)ksc_compat_memo_save(cr->o->cache_dir, key, &cr->memo); /* a cache: best effort */
	return 0;
}

/* Both views of every kernel, as built and as rebuilt. */
static int run_checks(struct crun *cr)
{
	struct ksc_compat *c = cr->c;
	struct ksc_check_opts co = { .sz = sizeof(co), .allow_missing_ns = -1 };

	if (cr->o && opts_copy(&co, cr->o->check) < 0)
		return -EINVAL;
	co.policy = NULL; /* each kernel's own rules */
	for (size_t k = 0; k < c->n_kernels; k++) {
		co.as_rebuilt = false;
		int r = ksc_check_modules(cr->kernels[k], cr->mods, c->n_mods, &co, &c->built[k]);
		if (r < 0)
			return r;
		co.as_rebuilt = true;
		r = ksc_check_modules(cr->kernels[k], cr->mods, c->n_mods, &co, &c->rebuilt[k]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Kernels whose BTF is given but was neither read nor known from the cache: read now, so
 * that one that cannot be read is said whatever the cells needed. */
static int load_btf(struct crun *cr)
{
	for (size_t k = 0; cr->o->btf && k < cr->c->n_kernels; k++)
		if (cr->o->btf[k] && !cr->c->btf_known[k] && !compat_kbtf(cr, k) && cr->oom)
			return -ENOMEM;
	return 0;
}

static int check_kernels(struct ksc_kernel *const *kernels, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct ksc_kver v;
		const char *rel = ksc_kernel_get_release(kernels[k]);
		if (!rel || ksc_kver_parse(rel, &v) < 0) {
			ksc_err(ksc_kernel_get_ctx(kernels[k]),
				"compat: kernel %zu has no release (a kernel version) to compare by",
				k + 1);
			return -EINVAL;
		}
	}
	return 0;
}

KSC_EXPORT int ksc_compat_run(struct ksc_kernel *const *kernels, size_t n_kernels,
			      struct ksc_module *const *mods, size_t n_mods,
			      const struct ksc_compat_opts *opts, struct ksc_compat **out)
{
	struct ksc_compat_opts o = { .sz = sizeof(o) };
	struct crun cr = { .kernels = kernels, .mods = mods, .o = &o };
	struct ksc_compat *c;
	int r;

	*out = NULL;
	if (!n_kernels)
		return -EINVAL;
	if (opts_copy(&o, opts) < 0)
		return -EINVAL;
	r = check_kernels(kernels, n_kernels);
	if (r < 0)
		return r;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	cr.c = c;
	pool_init(&c->strings);
	c->n_kernels = n_kernels;
	c->n_mods = n_mods;
	c->cells = calloc(n_mods ? n_mods * n_kernels : 1, sizeof(*c->cells));
	c->built = calloc(n_kernels, sizeof(*c->built));
	c->rebuilt = calloc(n_kernels, sizeof(*c->rebuilt));
	c->src_files = calloc(n_kernels, sizeof(*c->src_files));
	c->btfs = calloc(n_kernels, sizeof(*c->btfs));
	c->btf_tried = calloc(n_kernels, sizeof(*c->btf_tried));
	c->btf_known = calloc(n_kernels, sizeof(*c->btf_known));
	c->hdr_files = calloc(n_kernels, sizeof(*c->hdr_files));
	r = c->cells && c->built && c->rebuilt && c->src_files && c->btfs && c->hdr_files &&
	    c->btf_tried && c->btf_known ? 0 : -ENOMEM;
	cr.kmods = calloc(n_kernels, sizeof(*cr.kmods));
	cr.mod_btf = calloc(n_mods ? n_mods : 1, sizeof(*cr.mod_btf));
	cr.mod_btf_tried = calloc(n_mods ? n_mods : 1, sizeof(*cr.mod_btf_tried));
	hash_init(&cr.intree_memo);
	cr.intree = calloc(n_kernels, sizeof(*cr.intree));
	cr.intree_tried = calloc(n_kernels, sizeof(*cr.intree_tried));
	if (!cr.kmods || !cr.mod_btf || !cr.mod_btf_tried || !cr.intree || !cr.intree_tried)
		r = -ENOMEM;
	for (size_t k = 0; cr.kmods && k < n_kernels; k++) {
		hash_init(&cr.kmods[k].paths);
		hash_init(&cr.kmods[k].btfs);
		pool_init(&cr.kmods[k].strings);
	}
	if (r == 0)
		r = run_checks(&cr);
	if (r == 0 && o.src)
		r = compat_scan_sources(&cr, ksc_kernel_get_ctx(kernels[0]));
	if (r == 0 && o.headers)
		r = compat_scan_headers(&cr);
	for (size_t m = 0; r == 0 && m < n_mods; m++)
		for (size_t k = 0; r == 0 && k < n_kernels; k++)
			r = fill_cell(&cr, m, k);
	if (r == 0)
		r = load_btf(&cr);
	if (cr.names) {
		for (size_t k = 0; k < n_kernels; k++)
			ksc_src_names_fini(&cr.names[k]);
		free(cr.names);
	}
	if (cr.hdefs) {
		for (size_t k = 0; k < n_kernels; k++)
			ksc_src_names_fini(&cr.hdefs[k]);
		free(cr.hdefs);
	}
	compat_free_btfs(&cr);
	compat_free_intree(&cr);
	if (r < 0) {
		ksc_compat_free(c);
		return r;
	}
	*out = c;
	return 0;
}

KSC_EXPORT struct ksc_compat *ksc_compat_free(struct ksc_compat *c)
{
	if (!c)
		return NULL;
	for (size_t k = 0; k < c->n_kernels; k++) {
		if (c->built)
			ksc_report_unref(c->built[k]);
		if (c->rebuilt)
			ksc_report_unref(c->rebuilt[k]);
		if (c->btfs)
			ksc_compat_btf_free(c->btfs[k]);
	}
	free(c->built);
	free(c->rebuilt);
	free(c->btfs);
	free(c->btf_tried);
	free(c->btf_known);
	free(c->cells);
	free(c->findings);
	free(c->src_files);
	free(c->hdr_files);
	pool_fini(&c->strings);
	free(c);
	return NULL;
}

KSC_EXPORT const struct ksc_compat_cell *ksc_compat_get_cell(const struct ksc_compat *c,
							     size_t module, size_t kernel)
{
	if (module >= c->n_mods || kernel >= c->n_kernels)
		return NULL;
	return &c->cells[module * c->n_kernels + kernel];
}

KSC_DEFINE_INDEXED_GETTERS(ksc_compat_get_finding_count, ksc_compat_get_finding,
			   struct ksc_compat, struct ksc_compat_finding,
			   findings, n_findings)

KSC_EXPORT const struct ksc_report *ksc_compat_get_report(const struct ksc_compat *c,
							  size_t kernel, bool rebuilt)
{
	if (kernel >= c->n_kernels)
		return NULL;
	return rebuilt ? c->rebuilt[kernel] : c->built[kernel];
}

KSC_EXPORT size_t ksc_compat_get_source_file_count(const struct ksc_compat *c, size_t kernel)
{
	return kernel < c->n_kernels ? c->src_files[kernel] : 0;
}

KSC_EXPORT bool ksc_compat_has_btf(const struct ksc_compat *c, size_t kernel)
{
	return kernel < c->n_kernels && c->btf_known[kernel];
}

KSC_EXPORT size_t ksc_compat_get_header_file_count(const struct ksc_compat *c, size_t kernel)
{
	return kernel < c->n_kernels ? c->hdr_files[kernel] : 0;
}
