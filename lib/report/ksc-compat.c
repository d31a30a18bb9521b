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
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel/kernel.h"
#include "report/report.h"
#include "source/source.h"
#include "util/array.h"
#include "util/fileio.h"
#include "util/opts.h"

struct ksc_compat {
	size_t n_kernels, n_mods;
	struct ksc_compat_cell *cells; /* module-major: cells[m * n_kernels + k] */
	struct ksc_compat_finding *findings;
	size_t n_findings, cap_findings;
	struct ksc_report **built, **rebuilt; /* one per kernel */
	struct ksc_compat_btf **btfs;         /* one per kernel, NULL: none */
	size_t *src_files, *hdr_files;
	struct pool strings;
};

/* The state of one run: the inputs, and the target cell being filled. */
struct crun {
	struct ksc_compat *c;
	struct ksc_kernel *const *kernels;
	struct ksc_module *const *mods;
	const struct ksc_compat_opts *o;
	struct ksc_src_names *names; /* one per kernel, with a source */
	struct ksc_src_names *hdefs; /* one per kernel: the missing imports its headers define */
	/* the cell */
	const struct ksc_module *mod;
	struct ksc_kernel *base, *target;
	struct ksc_compat_btf *base_btf, *target_btf;
	struct ksc_compat_cell *cell;
	const char *sym;          /* the import being compared (BTF callbacks) */
	const char *base_release;
	struct ksc_features pol;     /* the target's */
	bool proprietary;
};

static const char *const build_names[] = {
	[KSC_COMPAT_BUILD_OK] = "ok",
	[KSC_COMPAT_BUILD_MAY_FAIL] = "may-fail",
	[KSC_COMPAT_BUILD_FAILS] = "fails",
};

KSC_EXPORT const char *ksc_compat_build_name(enum ksc_compat_build b)
{
	return (unsigned)b < ARRAY_SIZE(build_names) ? build_names[b] : "unknown";
}

static const char *cfmt(struct crun *cr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *cfmt(struct crun *cr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return pool_strdup(&cr->c->strings, buf);
}

/* MODULE_IMPORT_NS() as the target kernel spells it (R2: a string from 6.13). */
static const char *import_line(struct crun *cr, const char *ns)
{
	return cr->pol.has[KSC_FEAT_STRING_NS] ? cfmt(cr, "MODULE_IMPORT_NS(\"%s\");", ns)
					       : cfmt(cr, "MODULE_IMPORT_NS(%s);", ns);
}

/* Another module given exports it: a sibling the package builds, not the kernel's. */
static bool sibling_export(const struct crun *cr, const char *sym)
{
	for (size_t i = 0; i < cr->c->n_mods; i++)
		if (cr->mods[i] != cr->mod && ksc_module_find_export(cr->mods[i], sym))
			return true;
	return false;
}

static int add_finding(struct crun *cr, struct ksc_compat_cell *cell, const char *code,
		       enum ksc_severity sev, const char *sym, const struct ksc_export *from,
		       const char *from_owner, const struct ksc_export *to, const char *to_owner,
		       const char *summary, const char *fix)
{
	struct ksc_compat *c = cr->c;
	struct ksc_compat_finding *f;

	if (!summary || array_reserve(c->findings, c->cap_findings, c->n_findings + 1, 64) < 0)
		return -ENOMEM;
	f = &c->findings[c->n_findings++];
	*f = (struct ksc_compat_finding){
		.code = code, .severity = sev, .symbol = sym, .from_release = cr->base_release,
		.from = from, .to = to, .from_owner = from ? from_owner : NULL,
		.to_owner = to ? to_owner : NULL, .summary = summary, .fix = fix,
	};
	if (cr->names)
		f->named_in_source = ksc_src_names_has(&cr->names[cell->kernel], sym);
	cell->n_findings++;
	return 0;
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
		return add_finding(cr, cell, "became-module-restricted",
				   matched ? KSC_SEV_INFO : KSC_SEV_ERROR, sym, old, oo, new, no,
				   matched ? cfmt(cr, "restricted to %s, which this module's name matches", ns + 7)
					   : cfmt(cr, "restricted to the modules %s", ns + 7),
				   matched ? NULL : "stop using it: only the modules named may");
	}
	imported = ksc_module_imports_ns(cr->mod, ns);
	if (!old && imported)
		return 0;
	return add_finding(cr, cell, "namespace-moved", imported ? KSC_SEV_INFO : KSC_SEV_ERROR,
			   sym, old, oo, new, no,
			   !old ? cfmt(cr, "in namespace %s, which the module does not import", ns)
			   : old->ns[0] ? cfmt(cr, "moved from namespace %s to %s", old->ns, ns)
					: cfmt(cr, "moved into namespace %s", ns),
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
		if (cr->hdefs && ksc_src_names_has(&cr->hdefs[cell->kernel], sym))
			return add_finding(cr, cell, "export-removed", KSC_SEV_INFO, sym, old, oo,
					   NULL, NULL, cfmt(cr, "no longer exported, but the headers define it (a macro or an inline function): a rebuild calls what they call"),
					   NULL);
		return add_finding(cr, cell, "export-removed", KSC_SEV_ERROR, sym, old, oo, NULL,
				   NULL, old ? cfmt(cr, "no longer exported (by %s in %s)", oo,
						    cr->base_release)
					     : cfmt(cr, "not exported"),
				   NULL);
	}
	if (new->gpl_only && !(old && old->gpl_only) && (old || cr->proprietary)) {
		int r = add_finding(cr, cell, "became-gpl-only",
				    cr->proprietary ? KSC_SEV_ERROR : KSC_SEV_INFO, sym, old, oo, new,
				    no, old ? cfmt(cr, "became GPL-only")
					    : cfmt(cr, "GPL-only"),
				    cr->proprietary ? "a GPL-compatible MODULE_LICENSE(), or stop using it"
						    : NULL);
		if (r < 0)
			return r;
	}
	return ns_finding(cr, cell, sym, old, oo, new, no);
}

static int type_changed(void *data, bool func, const char *from, const char *to)
{
	struct crun *cr = data;
	struct ksc_compat *c = cr->c;
	int r = add_finding(cr, cr->cell, "type-changed", KSC_SEV_ERROR, cr->sym, NULL, NULL,
			    NULL, NULL, func ? cfmt(cr, "prototype changed")
					     : cfmt(cr, "type changed"), NULL);

	if (r < 0)
		return r;
	struct ksc_compat_finding *f = &c->findings[c->n_findings - 1];
	f->from_type = pool_strdup(&c->strings, from);
	f->to_type = pool_strdup(&c->strings, to);
	return f->from_type && f->to_type ? 0 : -ENOMEM;
}

/* A struct's members: once per cell; a warning when the source names one of them. */
static int member_changes(void *data, const char *name, const char *members, const char *from,
			  const char *to)
{
	struct crun *cr = data;
	struct ksc_compat *c = cr->c;
	struct ksc_compat_cell *cell = cr->cell;
	const char *type = cfmt(cr, "struct %s", name);
	bool named = false;
	char *list, *save = NULL;

	for (size_t i = cell->first_finding; i < c->n_findings; i++)
		if (c->findings[i].type_name && type && !c->findings[i].from &&
		    strcmp(c->findings[i].type_name, type) == 0 &&
		    strcmp(c->findings[i].code, "struct-changed") == 0)
			return 0;
	list = strdup(members);
	if (!list || !type)
		goto oom;
	for (char *m = strtok_r(list, ",", &save); m && cr->names; m = strtok_r(NULL, ",", &save))
		named |= ksc_src_names_has(&cr->names[cell->kernel], m);
	free(list);
	if (add_finding(cr, cell, "struct-changed", named ? KSC_SEV_WARNING : KSC_SEV_INFO,
			cr->sym, NULL, NULL, NULL, NULL,
			cfmt(cr, "%s (through %s): members %s removed or changed%s", type, cr->sym,
			     members, named ? ", named in the source" : ""), NULL) < 0)
		return -ENOMEM;
	struct ksc_compat_finding *f = &c->findings[c->n_findings - 1];
	f->named_in_source = named;
	f->type_name = type;
	f->from_type = pool_strdup(&c->strings, from);
	f->to_type = pool_strdup(&c->strings, to);
	return f->from_type && f->to_type ? 0 : -ENOMEM;
oom:
	free(list);
	return -ENOMEM;
}

/* The types of one import in both kernels' BTF. */
static int type_findings(struct crun *cr, struct ksc_compat_cell *cell, const char *sym)
{
	static const struct ksc_compat_type_fn fn = { type_changed, member_changes };
	const struct ksc_compat_finding *f = cr->c->findings;

	if (!cr->base_btf || !cr->target_btf)
		return 0;
	for (size_t i = cell->first_finding; i < cr->c->n_findings; i++)
		if (strcmp(f[i].code, "export-removed") == 0 && strcmp(f[i].symbol, sym) == 0)
			return 0;
	cr->cell = cell;
	cr->sym = sym;
	return ksc_compat_btf_compare(cr->base_btf, cr->target_btf, sym, fn, cr);
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
		cr->base_btf = cr->base ? c->btfs[base_idx] : NULL;
		cr->target_btf = c->btfs[k];
		for (size_t i = 0; i < ksc_module_get_import_count(cr->mod); i++) {
			const struct ksc_import *im = ksc_module_get_import(cr->mod, i);
			int r = import_findings(cr, cell, im);
			if (r == 0)
				r = type_findings(cr, cell, im->name);
			if (r < 0)
				return r;
		}
	}
	decide_build(cr, cell);
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

/* Each kernel's BTF, where one is given: one that cannot be read is left out (logged). */
static int load_btf(struct crun *cr)
{
	struct ksc_compat *c = cr->c;

	for (size_t k = 0; cr->o->btf && k < c->n_kernels; k++) {
		const char *p = cr->o->btf[k];
		int r = p ? ksc_compat_btf_open(p, &c->btfs[k]) : 0;
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			ksc_err(ksc_kernel_get_ctx(cr->kernels[k]), "%s: cannot read BTF: %s", p,
				r == -ENOEXEC ? "not an ELF file with a valid .BTF section"
					      : strerror(-r));
	}
	return 0;
}

/* The arch folder of the modules' machine (e_machine), for arch/ARCH/include. */
static const char *arch_of(const struct crun *cr)
{
	switch (cr->c->n_mods ? ksc_module_get_machine(cr->mods[0]) : EM_X86_64) {
	case EM_386:
	case EM_X86_64: return "x86";
	case EM_AARCH64: return "arm64";
	case EM_ARM: return "arm";
	case EM_S390: return "s390";
	case EM_PPC:
	case EM_PPC64: return "powerpc";
	case EM_RISCV: return "riscv";
	default: return "x86";
	}
}

/* The imports of the modules that kernel k does not export: the names to look for. */
static int missing_imports(const struct crun *cr, size_t k, struct hash *h)
{
	for (size_t m = 0; m < cr->c->n_mods; m++) {
		const struct ksc_module *mod = cr->mods[m];
		for (size_t i = 0; i < ksc_module_get_import_count(mod); i++) {
			const char *sym = ksc_module_get_import(mod, i)->name;
			if (!ksc_kernel_find_export(cr->kernels[k], sym, NULL) &&
			    hash_add(h, sym, (void *)sym, 1) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* What each kernel's headers define of the imports it does not export. */
static int scan_headers(struct crun *cr)
{
	struct ksc_compat *c = cr->c;
	char inc[PATH_MAX], arch[PATH_MAX];
	const char *dirs[2] = { inc, arch };
	int r = 0;

	cr->hdefs = calloc(c->n_kernels, sizeof(*cr->hdefs));
	if (!cr->hdefs)
		return -ENOMEM;
	for (size_t k = 0; r == 0 && k < c->n_kernels; k++) {
		struct hash wanted;
		hash_init(&wanted);
		hash_init(&cr->hdefs[k].names);
		pool_init(&cr->hdefs[k].strings);
		r = missing_imports(cr, k, &wanted);
		if (r == 0 && cr->o->headers[k] && wanted.count) {
			snprintf(inc, sizeof(inc), "%s/include", cr->o->headers[k]);
			snprintf(arch, sizeof(arch), "%s/arch/%s/include", cr->o->headers[k], arch_of(cr));
			ksc_src_names_fini(&cr->hdefs[k]);
			r = ksc_src_defines_scan(dirs, 2, &wanted, &cr->hdefs[k]);
			c->hdr_files[k] = cr->hdefs[k].n_files;
		}
		hash_fini(&wanted);
	}
	return r;
}

/* The names the source uses for each kernel's version. */
static int scan_sources(struct crun *cr, struct ksc_ctx *ctx)
{
	struct ksc_compat *c = cr->c;

	cr->names = calloc(c->n_kernels, sizeof(*cr->names));
	if (!cr->names)
		return -ENOMEM;
	for (size_t k = 0; k < c->n_kernels; k++) {
		struct ksc_kver v;
		int r;
		ksc_kver_parse(ksc_kernel_get_release(cr->kernels[k]), &v);
		r = ksc_src_names_scan(cr->o->src, &v, &cr->names[k]);
		c->src_files[k] = cr->names[k].n_files;
		if (r < 0) {
			struct stat st;
			if (r == -KSC_ENOTREG && stat(cr->o->src, &st) == 0)
				ksc_err(ctx, "%s: not a regular file (%s)", cr->o->src,
					ksc_file_kind(st.st_mode));
			else if (r != -ENOMEM)
				ksc_err(ctx, "%s: %s", cr->o->src, strerror(-r));
			return r;
		}
	}
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
	c->hdr_files = calloc(n_kernels, sizeof(*c->hdr_files));
	r = c->cells && c->built && c->rebuilt && c->src_files && c->btfs && c->hdr_files
	    ? 0 : -ENOMEM;
	if (r == 0)
		r = run_checks(&cr);
	if (r == 0)
		r = load_btf(&cr);
	if (r == 0 && o.src)
		r = scan_sources(&cr, ksc_kernel_get_ctx(kernels[0]));
	if (r == 0 && o.headers)
		r = scan_headers(&cr);
	for (size_t m = 0; r == 0 && m < n_mods; m++)
		for (size_t k = 0; r == 0 && k < n_kernels; k++)
			r = fill_cell(&cr, m, k);
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

KSC_EXPORT size_t ksc_compat_get_finding_count(const struct ksc_compat *c)
{
	return c->n_findings;
}

KSC_EXPORT const struct ksc_compat_finding *ksc_compat_get_finding(const struct ksc_compat *c,
								   size_t i)
{
	return i < c->n_findings ? &c->findings[i] : NULL;
}

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
	return kernel < c->n_kernels && c->btfs[kernel];
}

KSC_EXPORT size_t ksc_compat_get_header_file_count(const struct ksc_compat *c, size_t kernel)
{
	return kernel < c->n_kernels ? c->hdr_files[kernel] : 0;
}
