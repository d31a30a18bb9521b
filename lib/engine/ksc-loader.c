// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The loader view: what kernel/module/main.c load_module() does with each module at
 * insmod time, in its order: module_layout (check_modstruct_version), vermagic and taints
 * (check_modinfo), the signature taint, the export tables (check_export_symbol_versions,
 * 7.1 __kflagstab), explicit module: imports (setup_modinfo, 6.16+), then
 * simplify_symbols() -> resolve_symbol() per undefined symbol in .symtab order, then
 * duplicate exports (verify_exported_symbols). Modules are loaded in the order given into
 * one simulated boot (struct boot, engine.h): taints and once-per-boot messages carry
 * over, and a module that loads provides its exports to the next ones.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

static const char *first_license(const struct ksc_module *mod)
{
	const char *l = ksc_module_get_modinfo_value(mod, "license");

	return l ? l : "unspecified"; /* R15: a missing license reads as "unspecified" */
}

/* x86 ignore_undef_symbol(): _GLOBAL_OFFSET_TABLE_ is left alone when unresolved. */
static bool ignored_undef(const struct ksc_module *mod, const char *name)
{
	unsigned int m = ksc_module_get_machine(mod);

	if ((m == EM_X86_64 || m == EM_386) && strcmp(name, "_GLOBAL_OFFSET_TABLE_") == 0)
		return true;
	if ((m == EM_PPC64 || m == EM_PPC) && (strcmp(name, ".TOC.") == 0 || strcmp(name, "TOC.") == 0))
		return true;
	return false;
}

/* A found export and who owns it. */
struct found {
	const struct ksc_export *exp;
	const char *owner;     /* "vmlinux" or the module name */
	bool owner_is_kernel;
	bool owner_proprietary;
	const struct kowner *tree_owner; /* a module of the tree, as depmod chose its file */
};

/*
 * find_symbol(): vmlinux, then the loaded modules (newest first), then the tree's modules
 * (loaded before, by modprobe). GPL-only exports are invisible when !gplok (R16). A tree
 * module named like the module being loaded is not loaded (insmod would say EEXIST), nor
 * one named like another module given (which replaces it).
 */
static bool find_symbol(struct run *run, const struct loading *L, const char *name, bool gplok,
			struct found *f)
{
	const struct kprov *p = ksc_kernel_first_prov(run->k, name);

	for (; p && !ksc_kprov_owner(p); p = ksc_kernel_next_prov(run->k, p)) {
		const struct ksc_export *e = ksc_kprov_export(p);
		if (e->gpl_only && !gplok)
			continue;
		*f = (struct found){ e, "vmlinux", true, false, NULL };
		return true;
	}
	for (size_t i = run->boot.n_live; i-- > 0;) {
		const struct live *lv = &run->boot.live[i];
		const struct ksc_export *e = ksc_module_find_export(lv->mod, name);
		if (!e || (e->gpl_only && !gplok))
			continue;
		*f = (struct found){ e, lv->name, false, lv->proprietary, NULL };
		return true;
	}
	for (; p && !run->o->insmod_only; p = ksc_kernel_next_prov(run->k, p)) {
		const struct ksc_export *e = ksc_kprov_export(p);
		const struct kowner *o = ksc_kprov_owner(p);
		if (e->gpl_only && !gplok)
			continue;
		if (strcmp(ksc_kowner_name(o), L->name) == 0 ||
		    ksc_siblings_has_name(run->sib, ksc_kowner_name(o)))
			continue;
		*f = (struct found){ e, ksc_kowner_name(o), false, ksc_kowner_is_proprietary(o),
				     o };
		return true;
	}
	return false;
}

/* The exporter's CRC as the loader sees it: only with CONFIG_MODVERSIONS. */
static bool export_crc(const struct run *run, const struct ksc_export *e, uint32_t *crc)
{
	if (!run->modversions || !e->has_crc)
		return false;
	*crc = e->crc;
	return true;
}

/*
 * add_taint() with LOCKDEP_NOW_UNRELIABLE (P and F taints): the first one of a boot turns
 * lock debugging off and says so (kernel/panic.c, lib/debug_locks.c), with no module name.
 */
static void taint_unreliable(struct run *run, struct ksc_diag *d)
{
	if (run->boot.lockdep_off)
		return;
	run->boot.lockdep_off = true;
	diag_line(run->r, d, "Disabling lock debugging due to kernel taint");
}

/*
 * try_to_force_load(): with CONFIG_MODULE_FORCE_LOAD the module is tainted F (message
 * once, while F is not yet set) and goes on; without it the caller fails.
 */
static bool try_force(struct run *run, struct loading *L, const char *reason,
		      struct ksc_diag *d)
{
	if (!run->force_load)
		return false;
	if (!run->boot.taint_F)
		diag_line(run->r, d, "%s: %s: kernel tainted.", L->name, reason);
	run->boot.taint_F = true;
	taint_unreliable(run, d);
	return true;
}

/*
 * The CRC of the first entry of __versions (`ext`: of the 6.14+ extended tables) named
 * `sym`, as the loader's linear search finds it. For an import (`im`, the one being
 * resolved) the reader already did that search (ksc_import has_crc/crc, has_ext_crc/
 * ext_crc), so that a module's check is not quadratic in its imports (tree-wide checks,
 * issue 4). Other names (module_layout), and a CRC that does not fit 32 bits, take the
 * linear search.
 */
static bool version_of(const struct ksc_module *mod, const struct ksc_import *im,
		       const char *sym, bool ext, uint64_t *crc)
{
	/* no import (module_layout): the linear search finds the same first entry */
	if (im && (ext || !im->crc_truncated)) {
		if (ext ? !im->has_ext_crc : !im->has_crc)
			return false;
		*crc = ext ? im->ext_crc : im->crc;
		return true;
	}
	size_t n = ext ? ksc_module_get_ext_version_count(mod) : ksc_module_get_version_count(mod);
	for (size_t i = 0; i < n; i++) {
		const struct ksc_version *v = ext ? ksc_module_get_ext_version(mod, i)
						  : ksc_module_get_version(mod, i);
		if (strcmp(v->name, sym) == 0) {
			*crc = v->crc;
			return true;
		}
	}
	return false;
}

/*
 * A check of load_module() that the kernel lets try_to_force_load() override (the
 * vermagic, exports without CRCs): with CONFIG_MODULE_FORCE_LOAD the load goes on
 * tainted (0); without it the finding `d` is an error and the load fails with -ENOEXEC.
 */
static int force_or_fail(struct run *run, struct loading *L, const char *reason,
			 struct ksc_diag *d)
{
	if (try_force(run, L, reason, d))
		return 0;
	if (d)
		d->severity = KSC_SEV_ERROR, d->err = -ENOEXEC;
	return loader_fail(L, -ENOEXEC);
}

/* The CRCs differ: module_layout (check_modstruct_version()) or an import. Returns 0. */
static int bad_version(struct run *run, struct loading *L, const char *sym, uint32_t crc,
		      struct ksc_diag **d_out)
{
	struct ksc_report *r = run->r;

	*d_out = loader_finding(run, L, KSC_SEV_ERROR,
		strcmp(sym, "module_layout") == 0 ? "layout-mismatch" : "crc-mismatch", sym,
		.summary = sfmt(r, "CRC of %s differs from the kernel's", sym),
		.lines = sfmt(r, "%s: disagrees about version of symbol %s", L->iname, sym),
		.explanation = sfmt(r, "the module was built against a different %s (modversions CRC 0x%08x in the kernel)",
				    sym, crc),
		.fix = "rebuild the module against this kernel's headers and Module.symvers");
	return 0;
}

/*
 * R21: the module's table of `what` ("symbol version" or "extended symbol version") does
 * not list `sym`; the loader warns once per boot (`*once`) and lets it go.
 */
static void version_missing_once(struct run *run, struct loading *L, const char *sym,
				 const char *what, bool *once, const char *explanation)
{
	struct ksc_report *r = run->r;

	if (*once)
		return;
	*once = true;
	loader_finding(run, L, KSC_SEV_INFO, "crc-missing", sym,
		       .summary = sfmt(r, "no %s for %s", what, sym),
		       .lines = sfmt(r, "%s: no %s for %s", L->iname, what, sym),
		       .explanation = explanation);
}

/*
 * R21 check_version(): `crc` is the exporter's. Returns 1 pass, 0 fail; `d_out` gets the
 * finding that holds the lines of a failure.
 */
static int check_version(struct run *run, struct loading *L, const struct ksc_import *im,
			 const char *sym, uint32_t crc, struct ksc_diag **d_out)
{
	struct ksc_report *r = run->r;
	const struct ksc_module *mod = L->mod;
	uint64_t vcrc;

	*d_out = NULL;
	if (run->o->as_rebuilt)
		return 1; /* a rebuilt module has this kernel's CRCs */
	if (run->pol->has[KSC_FEAT_EXT_MODVERSIONS] && ksc_module_has_ext_versions(mod)) {
		if (version_of(mod, im, sym, true, &vcrc))
			return (uint32_t)vcrc == crc ? 1 : bad_version(run, L, sym, crc, d_out);
		version_missing_once(run, L, sym, "extended symbol version",
				     &run->boot.once_noextver,
				     "the module's extended version tables do not list this symbol; the loader warns once per boot and lets it go");
		return 1;
	}
	if (!ksc_module_has_versions(mod)) {
		*d_out = loader_finding(run, L, KSC_SEV_WARNING, "no-versions", sym,
			.summary = "the module has no __versions section (modprobe --force-modversion)",
			.explanation = "the kernel has CRCs but the module carries none: a forced load",
			.fix = "rebuild the module with CONFIG_MODVERSIONS against this kernel's Module.symvers");
		if (try_force(run, L, sym, *d_out))
			return 1;
		if (*d_out)
			(*d_out)->severity = KSC_SEV_ERROR;
		return 0;
	}
	/* The whole unsigned long must equal the 32-bit CRC. */
	if (version_of(mod, im, sym, false, &vcrc))
		return vcrc == (uint64_t)crc ? 1 : bad_version(run, L, sym, crc, d_out);
	if (run->missing_crc_fails) {
		/* Debian's kernels refuse it, every time (debian/patches "module: Disable
		 * matching missing version CRC"). */
		*d_out = loader_finding(run, L, KSC_SEV_ERROR, "crc-missing", sym,
			.summary = sfmt(r, "no symbol version for %s (refused by this distribution's kernel)", sym),
			.lines = sfmt(r, "%s: no symbol version for %s", L->iname, sym),
			.explanation = "__versions does not list this symbol; upstream warns once and lets it go, but Debian's kernels carry a patch that refuses it",
			.fix = "rebuild the module against this kernel's Module.symvers");
		return 0;
	}
	version_missing_once(run, L, sym, "symbol version", &run->boot.once_nosymver,
			     "__versions does not list this symbol; the loader warns once per boot and lets it go");
	return 1;
}

/*
 * R25: a module-restricted export granted by name to a module without intree: every
 * released kernel lets it by, with a warning here.
 */
static void modns_impostor(struct run *run, struct loading *L, const char *sym,
			   const struct found *f, const char *ns)
{
	struct ksc_report *r = run->r;

	loader_finding(run, L, KSC_SEV_WARNING, "modns-impostor", sym, .ns = ns, .owner = f->owner,
		.summary = sfmt(r, "granted only by its name: an out-of-tree module matching %s",
				modns_list(ns)),
		.explanation = sfmt(r, "%s is restricted to modules named %s; this module is not in-tree (no intree in .modinfo) yet every released kernel grants it by name alone. Any out-of-tree module can call itself that.",
				    sym, modns_list(ns)),
		.fix = "check where this module comes from; with --require-intree (the proposed in-tree-only rule) it is refused");
}

/* R12, R13: a namespace that is not imported (R11: a module: one that does not match). */
static int namespace_not_imported(struct run *run, struct loading *L, const char *sym,
				  const struct found *f, bool restricted, struct ksc_diag **d_out)
{
	struct ksc_report *r = run->r;
	const char *ns = f->exp->ns;
	bool allow = run->allow_missing_ns;
	const char *explanation = restricted
		? sfmt(r, "%s is a module-restricted export (%s): only modules whose name matches %s may use it, and the namespace cannot be imported (R11)",
		       sym, run->pol->fm_macro ? run->pol->fm_macro : "EXPORT_SYMBOL_FOR_MODULES",
		       modns_list(ns))
		: sfmt(r, "%s is exported into namespace %s, which the module does not import", sym, ns);

	if (allow)
		explanation = sfmt(r, "%s; CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y only warns (R13)",
				   explanation);
	*d_out = loader_finding(run, L, allow ? KSC_SEV_WARNING : KSC_SEV_ERROR,
		restricted ? "modns-denied" : "ns-missing", sym, .ns = ns, .owner = f->owner,
		.summary = restricted ? sfmt(r, "restricted to modules matching %s", modns_list(ns))
				      : sfmt(r, "namespace %s is not imported", ns),
		.lines = sfmt(r, "%s: module uses symbol (%s) from namespace %s, but does not import it.",
			      L->name, sym, ns),
		.explanation = explanation,
		.fix = restricted ? sfmt(r, "rename is not a fix: this export is restricted to modules matching %s",
					 modns_list(ns))
				  : sfmt(r, "add %s", import_line(r, ns)));
	return allow ? 0 : -EINVAL;
}

/* R10-R13, verify_namespace_is_imported(). 0 or -EINVAL. */
static int verify_namespace_is_imported(struct run *run, struct loading *L, const char *sym,
					const struct found *f, struct ksc_diag **d_out)
{
	const char *ns = f->exp->ns;

	*d_out = NULL;
	if (!ns || !ns[0])
		return 0;
	bool restricted = run->pol->has[KSC_FEAT_MODNS] && ksc_namespace_is_module_restricted(ns);
	if (restricted && ksc_namespace_matches_module(ns, L->name, KSC_MATCH_LOADER)) {
		bool intree = ksc_module_is_intree(L->mod);
		if (intree || !run->o->require_intree)
			modns_signature(run, L, sym, f->owner, ns);
		if (intree)
			return 0;
		if (!run->o->require_intree) {
			/* Every released kernel: the name alone grants access (R25). */
			modns_impostor(run, L, sym, f, ns);
			return 0;
		}
		/* R25: Babka v1 rule, the match does not count; fall through to R12. */
	}
	if (ksc_module_imports_ns(L->mod, ns))
		return 0; /* pre-6.16 or ordinary namespace; 6.16+ module: imports died at R11 */
	if (restricted && run->o->require_intree &&
	    ksc_namespace_matches_module(ns, L->name, KSC_MATCH_LOADER)) /* R40 */
		return ksc_intree_loader_refusal(run->r, run->allow_missing_ns, L->index, L->name,
						 sym, ns, f->owner, d_out);
	return namespace_not_imported(run, L, sym, f, restricted, d_out);
}

static void unknown_symbol(struct run *run, struct loading *L, struct ksc_diag *d,
			   const char *sym, int err)
{
	diag_line(run->r, d, "%s: Unknown symbol %s (err %d)", L->name, sym, err);
	if (d)
		d->err = err;
	L->err = err;
}

/*
 * A provider whose file won its name over another (depmod's search order: updates/ first,
 * depmod.d search and override): say which file the loader gets, as that is where the
 * export that failed comes from.
 */
static void note_replaced_provider(struct run *run, struct ksc_diag *d, const struct found *f)
{
	const struct kowner *o = f->tree_owner;
	const char *replaced, *relpath, *won_by;

	if (!d || !o || !ksc_kowner_module(o))
		return;
	replaced = ksc_kowner_replaced(o, &relpath, &won_by);
	if (!replaced)
		return;
	d->owner = sdup(run->r, f->owner);
	d->explanation = sfmt(run->r, "%s; the loader's %s is %s, which replaces %s (%s)",
			      d->explanation ? d->explanation : "", f->owner, relpath,
			      replaced, won_by);
}

/*
 * R43: the symbol's provider `owner`, a module of the tree or one given with this one,
 * is one that modprobe cannot load before this one: it is in a dependency cycle `cyc`
 * (with this module or others) or needs a module that is. The loader then finds the
 * symbol nowhere: "Unknown symbol" (-ENOENT).
 */
static void dependency_cycle(struct run *run, struct loading *L, const char *sym,
			     const char *owner, const char *cyc)
{
	struct ksc_report *r = run->r;
	struct ksc_diag *d = loader_finding(run, L, KSC_SEV_ERROR, "dep-cycle", sym, .owner = owner,
		.summary = sfmt(r, "from %s, which modprobe cannot load: dependency cycle %s",
				owner, cyc),
		.explanation = sfmt(r, "modprobe loads a module's dependencies first, and the loader resolves a symbol only from loaded modules; %s is in or behind the dependency cycle %s, so whichever module of it is inserted first misses the other's symbols, and %s is never loaded (depmod: \"Cycle detected: %s\")",
				    owner, cyc, owner, cyc),
		.fix = "break the cycle: move the symbols both modules need into one of them or into a third module");
	unknown_symbol(run, L, d, sym, -ENOENT);
}

/*
 * R16, R20: find_symbol() found nothing the module may use: a weak reference is left 0,
 * anything else fails with "Unknown symbol" (-ENOENT).
 */
static void symbol_not_found(struct run *run, struct loading *L, const struct ksc_import *im,
			     bool gplok)
{
	struct ksc_report *r = run->r;
	struct found hidden; /* Was it there but hidden (R16)? For the explanation only. */
	bool was_hidden = !gplok && find_symbol(run, L, im->name, true, &hidden);
	const char *owner, *cyc;
	struct ksc_diag *d;

	if (im->bind == KSC_BIND_WEAK || ignored_undef(L->mod, im->name)) {
		loader_finding(run, L, KSC_SEV_INFO, was_hidden ? "gpl-only" : "weak-unresolved",
			im->name, .summary = "weak reference left unresolved (0)",
			.explanation = was_hidden
				? "the symbol is GPL-only and the module is proprietary, so the loader cannot see it; being weak, it is silently left 0"
				: "no one exports it; a weak reference is silently left 0");
		return;
	}
	if (was_hidden)
		d = loader_finding(run, L, KSC_SEV_ERROR, "gpl-only", im->name, .owner = hidden.owner,
			.summary = "GPL-only export, invisible to a proprietary module",
			.explanation = sfmt(r, "%s is exported with EXPORT_SYMBOL_GPL by %s; the module is tainted proprietary (license '%s'%s), so the loader does not find it (there is no GPL message at load time)",
					    im->name, hidden.owner, first_license(L->mod),
					    L->P && ksc_license_is_gpl_compatible(first_license(L->mod))
					    ? ", inherited from a proprietary provider" : ""),
			.fix = "needs a GPL-compatible MODULE_LICENSE (\"GPL\", \"GPL v2\", \"Dual BSD/GPL\", \"Dual MIT/GPL\", ...)");
	else if ((cyc = ksc_siblings_cycle(run, L->index, im->name, &owner))) {
		dependency_cycle(run, L, im->name, owner, cyc);
		return;
	} else if (!(d = ksc_siblings_missing(run, L->index, L->name, im->name)))
		d = loader_finding(run, L, KSC_SEV_ERROR, "unresolved", im->name,
			.summary = "no one exports this symbol",
			.explanation = sfmt(r, "neither vmlinux nor any module of this kernel exports %s",
					    im->name),
			.fix = "check the kernel configuration for the option that builds it in, or load the module that exports it first");
	unknown_symbol(run, L, d, im->name, -ENOENT);
}

/*
 * inherit_taint()'s line: "NAME: <subject> symbols [SYM ]from proprietary module
 * OWNER<end>", the symbol named on the kernels that name it (KSC_FEAT_TAINT_SYMNAME).
 */
static const char *proprietary_line(struct run *run, const struct loading *L,
				    const char *subject, const char *sym, const char *owner,
				    const char *end)
{
	bool symname = run->pol->has[KSC_FEAT_TAINT_SYMNAME];

	return sfmt(run->r, "%s: %s symbols %s%sfrom proprietary module %s%s", L->name,
		    subject, symname ? sym : "", symname ? " " : "", owner, end);
}

/*
 * R18 inherit_taint(): a symbol of a proprietary module. A module that already uses
 * GPL-only symbols may not use it (-ENOENT); any other module becomes proprietary.
 * Returns 0 or the -errno of the symbol.
 */
static int inherit_taint(struct run *run, struct loading *L, const struct ksc_import *im,
			 const struct found *f)
{
	struct ksc_report *r = run->r;
	struct ksc_diag *d;

	if (L->using_gplonly) {
		d = loader_finding(run, L, KSC_SEV_ERROR, "proprietary-provider", im->name,
			.owner = f->owner,
			.summary = sfmt(r, "from proprietary module %s, after using GPL-only symbols", f->owner),
			.lines = proprietary_line(run, L, "module using GPL-only symbols uses", im->name,
						  f->owner, "."),
			.explanation = sfmt(r, "%s is exported by %s, which is proprietary; a module that uses GPL-only symbols may not use it (the outcome depends on symbol-table order)",
					    im->name, f->owner),
			.fix = "stop using the proprietary module's symbols, or have its provider use a GPL-compatible license");
		unknown_symbol(run, L, d, im->name, -ENOENT);
		return -ENOENT;
	}
	if (L->P)
		return 0;
	d = loader_finding(run, L, KSC_SEV_WARNING, "taint-inherited", im->name, .owner = f->owner,
		.summary = sfmt(r, "inherits the proprietary taint of %s", f->owner),
		.lines = proprietary_line(run, L, "module uses", im->name, f->owner,
					  ", inheriting taint."),
		.explanation = "from now on the module is proprietary: every later GPL-only symbol it uses is invisible to it (R16)");
	L->P = true;
	run->boot.taint_P = true;
	taint_unreliable(run, d);
	return 0;
}

/* R19/R20: resolve_symbol() for one undefined symbol, and simplify_symbols()' reporting. */
static void resolve_symbol(struct run *run, struct loading *L, const struct ksc_import *im)
{
	struct found f;
	struct ksc_diag *d = NULL;
	bool gplok = !L->P;
	uint32_t crc;
	int res;

	if (!find_symbol(run, L, im->name, gplok, &f)) {
		symbol_not_found(run, L, im, gplok);
		return;
	}
	if (f.tree_owner && ksc_kowner_cycle(f.tree_owner)) {
		dependency_cycle(run, L, im->name, f.owner, ksc_kowner_cycle(f.tree_owner));
		return;
	}
	if (f.exp->gpl_only)
		L->using_gplonly = true;
	if (run->pol->has[KSC_FEAT_INHERIT_TAINT] && !f.owner_is_kernel && f.owner_proprietary &&
	    inherit_taint(run, L, im, &f) < 0)
		return;
	/* R21 modversions */
	if (export_crc(run, f.exp, &crc) && !check_version(run, L, im, im->name, crc, &d)) {
		note_replaced_provider(run, d, &f);
		unknown_symbol(run, L, d, im->name, -EINVAL);
		return;
	}
	/* R10-R13 namespaces */
	res = verify_namespace_is_imported(run, L, im->name, &f, &d);
	if (res < 0) {
		note_replaced_provider(run, d, &f);
		unknown_symbol(run, L, d, im->name, res);
	}
}

/* simplify_symbols(): every undefined symbol, in .symtab order (R19, R20). */
static int simplify_symbols(struct run *run, struct loading *L)
{
	L->reached_symbols = true;
	for (size_t i = 0; i < ksc_module_get_import_count(L->mod); i++)
		resolve_symbol(run, L, ksc_module_get_import(L->mod, i));
	return L->err;
}

/*
 * R29 add_unformed_module(): a module of the same name is already loaded (one given
 * earlier in this boot): -EEXIST, with no message.
 */
static int already_loaded(struct run *run, struct loading *L)
{
	for (size_t i = 0; i < run->boot.n_live; i++) {
		if (strcmp(run->boot.live[i].name, L->name) != 0)
			continue;
		loader_finding(run, L, KSC_SEV_ERROR, "already-loaded", NULL,
			.summary = "a module of this name is already loaded in this boot",
			.explanation = "module names are unique in a running kernel; insmod fails with EEXIST and the kernel prints nothing",
			.err = -EEXIST);
		return loader_fail(L, -EEXIST);
	}
	return 0;
}

/* R30: same vermagic, ignoring the release when the module has CRCs (same_magic()). */
static bool same_magic(const char *a, const char *b, bool has_crcs)
{
	if (has_crcs) {
		a += strcspn(a, " ");
		b += strcspn(b, " ");
	}
	return strcmp(a, b) == 0;
}

/* check_modstruct_version(): module_layout, before vermagic (R21). 0 or -ENOEXEC. */
static int check_modstruct_version(struct run *run, struct loading *L)
{
	const char *owner;
	const struct ksc_export *ml = ksc_kernel_find_export(run->k, "module_layout", &owner);
	struct ksc_diag *d;
	uint32_t crc;

	if (!ml || !export_crc(run, ml, &crc) || check_version(run, L, NULL, "module_layout", crc, &d))
		return 0;
	if (d) {
		d->err = -ENOEXEC;
		if (ksc_module_has_versions(L->mod))
			d->summary = "built against another kernel (module_layout CRC differs)";
	}
	return loader_fail(L, -ENOEXEC);
}

/* check_modinfo()'s vermagic (R30): none (a forced load, if allowed) or another kernel's. */
static int check_vermagic(struct run *run, struct loading *L)
{
	struct ksc_report *r = run->r;
	const char *vm = ksc_module_get_vermagic(L->mod);
	const char *kvm = ksc_kernel_get_vermagic(run->k);
	struct ksc_diag *d;

	if (!vm) {
		d = loader_finding(run, L, KSC_SEV_WARNING, "vermagic", NULL,
			.summary = "no vermagic in .modinfo",
			.fix = "build the module with kbuild against this kernel");
		return force_or_fail(run, L, "bad vermagic", d);
	}
	if (!kvm || run->o->as_rebuilt || same_magic(vm, kvm, ksc_module_has_versions(L->mod)))
		return 0;
	loader_finding(run, L, KSC_SEV_ERROR, "vermagic", NULL,
		.summary = "built for another kernel (vermagic differs)",
		.lines = sfmt(r, "%s: version magic '%s' should be '%s'", L->iname, vm, kvm),
		.fix = "rebuild the module against this kernel", .err = -ENOEXEC);
	return loader_fail(L, -ENOEXEC);
}

/*
 * check_modinfo_retpoline(): a module without retpoline=Y on a kernel built with
 * retpolines, on a CPU where the mitigation is on (assumed), switches it off: the first
 * such module of a boot prints both lines, later ones nothing.
 */
static void check_modinfo_retpoline(struct run *run, struct loading *L)
{
	struct ksc_diag *d;

	if (!run->retpoline || ksc_module_get_modinfo_value(L->mod, "retpoline"))
		return;
	d = taint_line(run, L, "retpoline", "not compiled with retpoline", NULL,
		       "the kernel uses retpolines against Spectre v2; this module was not built with them, so the mitigation is switched off (on CPUs where it is on)");
	if (d && !run->boot.retpoline_off) {
		d->severity = KSC_SEV_WARNING;
		diag_line(run->r, d, "Spectre V2 : System may be vulnerable to spectre v2");
		diag_line(run->r, d, "%s: loading module not compiled with retpoline compiler.",
			  L->name);
		d->fix = "build the module with the kernel's own compiler flags (kbuild)";
	}
	run->boot.retpoline_off = true;
}

/*
 * check_modinfo(): vermagic (R30), intree (R31), retpoline (R32), staging (R33), license
 * (R15). The taints are check_modinfo()'s and load_module()'s up to 6.3,
 * module_augment_kernel_taints()' from 6.4, after add_unformed_module() (R29).
 */
static int check_modinfo(struct run *run, struct loading *L)
{
	struct ksc_report *r = run->r;
	const char *lic = first_license(L->mod);

	if (check_vermagic(run, L) < 0)
		return L->err;
	if (run->pol->has[KSC_FEAT_AUGMENT_TAINTS] && already_loaded(run, L))
		return L->err;
	if (!ksc_module_is_intree(L->mod)) {
		const char *line = run->boot.taint_O ? NULL
			: sfmt(r, "%s: loading out-of-tree module taints kernel.", L->name);
		run->boot.taint_O = true;
		taint_line(run, L, "taint-oot", "out-of-tree module (taint O)", line,
			   "no intree in .modinfo: built outside the kernel tree (M=); the kernel is tainted, nothing is refused");
	}
	check_modinfo_retpoline(run, L);
	if (ksc_module_get_modinfo_value(L->mod, "staging")) {
		run->boot.taint_C = true;
		taint_line(run, L, "taint-staging", "staging driver (taint C)",
			   sfmt(r, "%s: module is from the staging directory, the quality is unknown, you have been warned.",
				L->name), NULL);
	}
	if (!ksc_license_is_gpl_compatible(lic)) {
		const char *line = run->boot.taint_P ? NULL
			: sfmt(r, "%s: module license '%s' taints kernel.", L->name, lic);
		run->boot.taint_P = true;
		L->P = true;
		taint_unreliable(run, taint_line(run, L, "taint-proprietary",
			sfmt(r, "license '%s' is not GPL-compatible (taint P)", lic), line,
			"the loader takes the first license= entry only; a proprietary module cannot see GPL-only exports"));
	}
	return 0;
}

/*
 * The taints by name (R15), whatever the license, and from 6.4 the first proprietary
 * taint of a boot once more (module_augment_kernel_taints()). `prev_P`: the boot's P taint
 * before this module.
 */
static void module_augment_kernel_taints(struct run *run, struct loading *L, bool prev_P)
{
	struct ksc_diag *d = NULL;

	if (strcmp(L->name, "driverloader") == 0 || strcmp(L->name, "lve") == 0) {
		d = taint_line(run, L, "taint-proprietary",
			       "tainted proprietary by name, whatever its license", NULL,
			       "the loader marks modules named driverloader and lve proprietary: they cannot see GPL-only exports");
		L->P = true;
		run->boot.taint_P = true;
		taint_unreliable(run, d);
	} else if (strcmp(L->name, "ndiswrapper") == 0) {
		run->boot.taint_P = true; /* the kernel, not the module */
		d = taint_line(run, L, "taint-proprietary",
			       "taints the kernel proprietary by name (the module itself stays GPL)", NULL, NULL);
		taint_unreliable(run, d);
	}
	if (run->pol->has[KSC_FEAT_AUGMENT_TAINTS] && !prev_P && run->boot.taint_P) {
		if (!d)
			d = taint_line(run, L, "taint-proprietary",
				       "first proprietary taint of this boot", NULL, NULL);
		diag_line(run->r, d, "%s: module license taints kernel.", L->name);
	}
}

/* find_module_sections(): 7.1's __kflagstab (R34) for a module that exports. */
static int find_module_sections(struct run *run, struct loading *L)
{
	static const char *const obsolete[] = { "__ksymtab_gpl", "__kcrctab_gpl" };
	struct ksc_report *r = run->r;

	if (!run->pol->has[KSC_FEAT_KFLAGSTAB] || ksc_module_get_export_count(L->mod) == 0)
		return 0;
	if (!ksc_module_has_kflagstab(L->mod)) {
		loader_finding(run, L, KSC_SEV_ERROR, "kflagstab-missing", NULL,
			.summary = "exports without __kflagstab (7.1+)",
			.lines = sfmt(r, "%s: no flags for exported symbols", L->name),
			.fix = "rebuild the module with a 7.1+ kbuild", .err = -ENOEXEC);
		return loader_fail(L, -ENOEXEC);
	}
	for (size_t i = 0; i < ARRAY_SIZE(obsolete); i++)
		if (ksc_module_has_section(L->mod, obsolete[i]))
			loader_finding(run, L, KSC_SEV_WARNING, "obsolete-section", NULL,
				.summary = sfmt(r, "obsolete section %s ignored", obsolete[i]),
				.lines = sfmt(r, "%s: ignoring obsolete section %s", L->name, obsolete[i]));
	return 0;
}

/* check_export_symbol_versions() (R35): exports without CRCs on a modversions kernel. */
static int check_export_symbol_versions(struct run *run, struct loading *L)
{
	const struct ksc_module *mod = L->mod;
	bool missing = false;
	struct ksc_diag *d;

	if (!run->modversions || run->o->as_rebuilt)
		return 0;
	for (size_t i = 0; i < ksc_module_get_export_count(mod); i++)
		if (!ksc_module_get_export(mod, i)->has_crc)
			missing = true;
	if (!missing)
		return 0;
	d = loader_finding(run, L, KSC_SEV_WARNING, "exports-no-crc", NULL,
		.summary = "exports without CRCs on a modversions kernel",
		.fix = "build the module with CONFIG_MODVERSIONS");
	return force_or_fail(run, L, "no versions for exported symbols", d);
}

/* setup_modinfo(): an explicit import of a module: namespace, 6.16+ (R11). 0 or -EPERM. */
static int setup_modinfo(struct run *run, struct loading *L)
{
	struct ksc_report *r = run->r;
	size_t it = 0;
	const char *ns;

	if (!run->pol->has[KSC_FEAT_MODNS])
		return 0;
	while ((ns = ksc_module_next_modinfo_value(L->mod, "import_ns", &it))) {
		if (!ksc_namespace_is_module_restricted(ns))
			continue;
		loader_finding(run, L, KSC_SEV_ERROR, "modns-import", NULL, .ns = ns,
			.summary = sfmt(r, "imports module namespace %s", ns),
			.lines = sfmt(r, "%s: module tries to import module namespace: %s", L->name, ns),
			.explanation = "module: namespaces are granted by module name and can never be imported (make nsdeps adds such lines anyway)",
			.fix = sfmt(r, "remove %s", import_line(r, ns)), .err = -EPERM);
		return loader_fail(L, -EPERM);
	}
	return 0;
}

/* complete_formation() -> verify_exported_symbols() (R22): one exporter per symbol. */
static int verify_exported_symbols(struct run *run, struct loading *L)
{
	struct ksc_report *r = run->r;
	const struct ksc_module *mod = L->mod;

	for (size_t i = 0; i < ksc_module_get_export_count(mod); i++) {
		const struct ksc_export *e = ksc_module_get_export(mod, i);
		const char *by = NULL;
		const struct kprov *p = ksc_kernel_first_prov(run->k, e->name);
		if (p && !ksc_kprov_owner(p))
			by = "kernel";
		for (size_t j = 0; !by && j < run->boot.n_live; j++)
			if (ksc_module_find_export(run->boot.live[j].mod, e->name))
				by = run->boot.live[j].name;
		if (!by)
			continue;
		loader_finding(run, L, KSC_SEV_ERROR, "duplicate-export", e->name, .owner = by,
			.summary = sfmt(r, "already exported by %s", by),
			.lines = sfmt(r, "%s: exports duplicate symbol %s (owned by %s)", L->name,
				      e->name, by),
			.fix = "rename the symbol or stop exporting it", .err = -ENOEXEC);
		return loader_fail(L, -ENOEXEC);
	}
	return 0;
}

/*
 * mod_sysfs_setup() -> module_param_sysfs_setup(): each parameter with a mode gets a sysfs
 * file, and sysfs' create_files() WARNs about a mode with bits outside 0664 (execute bits,
 * 0111) and drops them; the load goes on, the kernel tainted W (R42).
 */
static void module_param_sysfs_setup(struct run *run, struct loading *L)
{
	struct ksc_report *r = run->r;

	for (size_t i = 0; i < ksc_module_get_param_count(L->mod); i++) {
		unsigned int perm;
		const char *name = ksc_module_get_param(L->mod, i, &perm);
		if (!perm || !(perm & ~0664u))
			continue;
		loader_finding(run, L, KSC_SEV_WARNING, "param-perm", NULL,
			.summary = sfmt(r, "parameter %s has mode 0%o: sysfs WARNs (taint W) and drops the bits outside 0664",
					name, perm),
			.lines = sfmt(r, "Attribute %s: Invalid permissions 0%o", name, perm),
			.explanation = "module_param()'s permission becomes the mode of /sys/module/NAME/parameters/PARAM; sysfs refuses execute bits and other-writable modes with a kernel WARNING, which taints the kernel, and loads the module anyway",
			.fix = sfmt(r, "give module_param(%s, ...) a mode such as 0644 or 0444", name));
	}
}

/* load_module() in kernel/module/main.c, step by step. 0 or finit_module's -errno. */
int load_module(struct run *run, struct loading *L)
{
	bool prev_P;

	if (module_sig_check(run, L) < 0)
		return L->err;
	intree_signature(run, L);
	if (check_modstruct_version(run, L) < 0)
		return L->err;
	prev_P = run->boot.taint_P;
	if (check_modinfo(run, L) < 0)
		return L->err;
	if (!run->pol->has[KSC_FEAT_AUGMENT_TAINTS] && already_loaded(run, L))
		return L->err;
	module_sig_taint(run, L);
	module_augment_kernel_taints(run, L, prev_P);
	if (find_module_sections(run, L) < 0 || check_export_symbol_versions(run, L) < 0 ||
	    setup_modinfo(run, L) < 0 || simplify_symbols(run, L) < 0 ||
	    verify_exported_symbols(run, L) < 0)
		return L->err;
	module_param_sysfs_setup(run, L);
	return 0;
}
