// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The modpost view: what scripts/mod/modpost.c says of each module at build time:
 * check_modname_len(), read_symbols() (license, explicit imports), then check_exports()
 * per unresolved symbol: undefined, namespace, GPL.
 */
#include <elf.h>
#include <string.h>

#include "engine/engine.h"

static const char *const name_suffixes[] = { ".ko.zst", ".ko.xz", ".ko.gz", ".ko", ".o" };

/* modpost's mod->name: the object path without its extension. */
static const char *modpost_path(struct ksc_report *r, const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < ARRAY_SIZE(name_suffixes); i++) {
		size_t m = strlen(name_suffixes[i]);
		if (n > m && strcmp(path + n - m, name_suffixes[i]) == 0)
			return sfmt(r, "%.*s", (int)(n - m), path);
	}
	return sdup(r, path);
}

/*
 * modpost's ignore_undef_symbol(): __this_module (resolved by the .mod.c), the GOT on
 * every machine, and the PowerPC register save/restore helpers.
 */
static bool modpost_ignored_undef(const struct ksc_module *mod, const char *name)
{
	unsigned int m = ksc_module_get_machine(mod);

	if (strcmp(name, "__this_module") == 0 || strcmp(name, "_GLOBAL_OFFSET_TABLE_") == 0)
		return true;
	if (m == EM_PPC && (strncmp(name, "_restgpr_", 9) == 0 || strncmp(name, "_savegpr_", 9) == 0 ||
			strncmp(name, "_rest32gpr_", 11) == 0 || strncmp(name, "_save32gpr_", 11) == 0 ||
			strncmp(name, "_restvr_", 8) == 0 || strncmp(name, "_savevr_", 8) == 0))
		return true;
	if (m == EM_PPC64 && (strcmp(name, ".TOC.") == 0 || strncmp(name, "_restgpr0_", 10) == 0 ||
			strncmp(name, "_savegpr0_", 10) == 0 || strncmp(name, "_restvr_", 8) == 0 ||
			strncmp(name, "_savevr_", 8) == 0))
		return true;
	return false;
}

/* Who exports `sym` for modpost: the Module.symvers/kernel, or a module of this run. */
static const struct ksc_export *modpost_find(struct run *run, struct ksc_module *const *mods,
					     size_t n, size_t self, const char *sym,
					     const char **owner)
{
	const struct ksc_export *e = ksc_kernel_find_export(run->k, sym, owner);

	if (e)
		return e;
	for (size_t i = 0; i < n; i++) {
		if (i == self)
			continue;
		e = ksc_module_find_export(mods[i], sym);
		if (e) {
			*owner = ksc_module_get_modpost_name(mods[i]);
			return e;
		}
	}
	return NULL;
}

/* One module in modpost's view (scripts/mod/modpost.c). */
struct modpost {
	struct run *run;
	struct ksc_module *const *mods;
	size_t n, idx;
	const struct ksc_module *mod;
	const char *base;     /* the module as modpost names it (R5) */
	const char *p;        /* its object path without the extension */
	bool mod_log;         /* 7.3+: modpost_log() names the module first */
	bool external;        /* built with make M= (R40) */
	bool gpl_compatible;  /* every license= entry is (R17) */
	unsigned int unresolved;
	bool ok;
};

/* A modpost finding of the module, in one call. */
#define modpost_finding(m, sev, code, sym, ...)                                            \
	finding_new((m)->run->r, KSC_VIEW_MODPOST, sev, code, (m)->idx, (m)->base, sym,    \
		    &(struct finding){ __VA_ARGS__ })

/* R5: the module name must fit struct module's name (MODULE_NAME_LEN). */
static void check_modname_len(struct modpost *m)
{
	struct ksc_report *r = m->run->r;
	size_t module_name_len = ksc_module_get_elf_class(m->mod) == 32 ? 60 : 56;

	if (strlen(m->base) < module_name_len)
		return;
	modpost_finding(m, KSC_SEV_ERROR, "name-too-long", NULL,
		.summary = "module name too long",
		.lines = m->mod_log ? sfmt(r, "ERROR: modpost: %s.ko: module name is too long", m->p)
				    : sfmt(r, "ERROR: modpost: module name is too long [%s.ko]", m->p),
		.fix = sfmt(r, "use a file name shorter than %zu bytes", module_name_len));
	m->ok = false;
}

/* read_symbols(): modpost's ERROR or WARNING for a module without MODULE_<tag>(). */
static void modinfo_missing(struct modpost *m, enum ksc_severity sev, const char *code,
			    const char *tag, const char *explanation, const char *fix)
{
	struct ksc_report *r = m->run->r;
	const char *level = sev == KSC_SEV_ERROR ? "ERROR" : "WARNING";

	modpost_finding(m, sev, code, NULL,
		.summary = sfmt(r, "no MODULE_%s()", tag),
		.lines = m->mod_log ? sfmt(r, "%s: modpost: %s.ko: missing MODULE_%s()", level, m->p, tag)
				    : sfmt(r, "%s: modpost: missing MODULE_%s() in %s.o", level, tag, m->p),
		.explanation = explanation, .fix = fix);
}

/*
 * read_symbols()' checks of .modinfo: every license= entry counts and none at all is its
 * own error (R17, R36); an explicit import of a module: namespace, 6.16+ (R11); no
 * description= is a warning, 6.15+ (R41).
 */
static void read_symbols(struct modpost *m)
{
	struct ksc_report *r = m->run->r;
	size_t it = 0;
	const char *lic, *ns;
	bool any = false;

	m->gpl_compatible = true;
	while ((lic = ksc_module_next_modinfo_value(m->mod, "license", &it))) {
		any = true;
		if (!ksc_license_is_gpl_compatible(lic))
			m->gpl_compatible = false;
	}
	if (!any) {
		modinfo_missing(m, KSC_SEV_ERROR, "license-missing", "LICENSE",
			"modpost requires a license; for the GPL check it then treats the module as GPL-compatible",
			"add MODULE_LICENSE(\"GPL\") (or another license the module really has)");
		m->ok = false;
	}
	it = 0;
	while (m->run->pol->has[KSC_FEAT_MODNS] &&
	       (ns = ksc_module_next_modinfo_value(m->mod, "import_ns", &it))) {
		if (!ksc_namespace_is_module_restricted(ns))
			continue;
		modpost_finding(m, KSC_SEV_ERROR, "modns-import", NULL, .ns = ns,
			.summary = sfmt(r, "imports module namespace %s", ns),
			.lines = m->mod_log
				? sfmt(r, "ERROR: modpost: %s.ko: explicitly importing namespace '%s' is not allowed.",
				       m->p, ns)
				: sfmt(r, "ERROR: modpost: %s: explicitly importing namespace \"%s\" is not allowed.",
				       m->p, ns),
			.fix = sfmt(r, "remove %s", import_line(r, ns)));
		m->ok = false;
	}
	if (m->run->pol->has[KSC_FEAT_MODPOST_DESCRIPTION] &&
	    !ksc_module_get_modinfo_value(m->mod, "description"))
		modinfo_missing(m, KSC_SEV_WARNING, "description-missing", "DESCRIPTION",
			"modpost warns about every module without a description since 6.15 (before, only with make W=1); the build goes on",
			"add MODULE_DESCRIPTION(\"what the module does\")");
}

/* R23: an undefined symbol no one exports (the first MAX_UNRESOLVED_REPORTS of them). */
static void report_undefined(struct modpost *m, const char *sym)
{
	struct ksc_report *r = m->run->r;

	m->ok = false;
	if (++m->unresolved > 10)
		return; /* MAX_UNRESOLVED_REPORTS; the count follows */
	modpost_finding(m, KSC_SEV_ERROR, "unresolved", sym,
		.summary = "no one exports this symbol",
		.lines = m->mod_log ? sfmt(r, "ERROR: modpost: %s.ko: symbol '%s' undefined!", m->p, sym)
				    : sfmt(r, "ERROR: modpost: \"%s\" [%s.ko] undefined!", sym, m->p),
		.fix = "check the kernel configuration, or add the providing module's Module.symvers to KBUILD_EXTRA_SYMBOLS");
}

/* R7-R12, R24: a namespace the module does not import and is not granted by name. */
static void namespace_missing(struct modpost *m, const char *sym, const char *ns,
			      const char *owner, bool restricted)
{
	struct ksc_report *r = m->run->r;
	bool allow = m->run->allow_missing_ns;
	const char *fix;

	if (restricted && ksc_namespace_matches_module(ns, m->base, KSC_MATCH_LOADER))
		fix = sfmt(r, "the loader accepts this module ('-' and '_' compare equal) but modpost compares the file name '%s' exactly with %s: name the file as the pattern spells it, or spell the pattern as the file is named",
			   m->base, modns_list(ns));
	else if (restricted)
		fix = sfmt(r, "rename is not a fix: this export is restricted to modules matching %s",
			   modns_list(ns));
	else
		fix = sfmt(r, "add %s", import_line(r, ns));
	modpost_finding(m, allow ? KSC_SEV_WARNING : KSC_SEV_ERROR,
		restricted ? "modns-denied" : "ns-missing", sym, .ns = ns, .owner = owner,
		.summary = restricted ? sfmt(r, "restricted to modules matching %s", modns_list(ns))
				      : sfmt(r, "namespace %s is not imported", ns),
		.lines = m->mod_log
			? sfmt(r, "%s: modpost: %s.ko: module uses symbol '%s' from namespace '%s', but does not import it.",
			       allow ? "WARNING" : "ERROR", m->p, sym, ns)
			: sfmt(r, "%s: modpost: module %s uses symbol %s from namespace %s, but does not import it.",
			       allow ? "WARNING" : "ERROR", m->base, sym, ns),
		.fix = fix);
	if (!allow)
		m->ok = false;
}

/* check_exports()' namespace check of one symbol (R7-R12, R24, R25, R40). */
static void check_export_namespace(struct modpost *m, const char *sym, const char *ns,
				   const char *owner)
{
	struct run *run = m->run;
	bool restricted = run->pol->has[KSC_FEAT_MODNS] && ksc_namespace_is_module_restricted(ns);
	bool granted = false;

	if (restricted && !(run->o->require_intree && m->external))
		granted = ksc_namespace_matches_module(ns, m->base, KSC_MATCH_MODPOST);
	bool intree_rule = restricted && run->o->require_intree && !ksc_module_imports_ns(m->mod, ns);
	if (!granted && intree_rule && m->external &&
	    ksc_intree_modpost_refusal(run->r, run->allow_missing_ns, m->mod_log, m->mod, m->idx,
				       m->p, sym, ns, owner))
		m->ok = m->ok && run->allow_missing_ns;
	else if (!granted && !ksc_module_imports_ns(m->mod, ns))
		namespace_missing(m, sym, ns, owner, restricted);
	if (intree_rule && run->o->views == KSC_VIEW_BOTH)
		ksc_intree_views_differ(run->r, run->o->build, m->mod, m->idx, sym, ns);
}

/* R23 check_exports(), per undefined symbol in .symtab order: undefined, namespace, GPL. */
static void check_exports(struct modpost *m)
{
	struct ksc_report *r = m->run->r;

	for (size_t i = 0; i < ksc_module_get_import_count(m->mod); i++) {
		const struct ksc_import *im = ksc_module_get_import(m->mod, i);
		const char *owner = NULL;
		const struct ksc_export *e = modpost_find(m->run, m->mods, m->n, m->idx, im->name,
							  &owner);

		if (modpost_ignored_undef(m->mod, im->name))
			continue;
		if (!e) {
			if (im->bind != KSC_BIND_WEAK)
				report_undefined(m, im->name);
			continue;
		}
		if (e->ns && e->ns[0])
			check_export_namespace(m, im->name, e->ns, owner);
		if (!e->gpl_only || m->gpl_compatible)
			continue;
		modpost_finding(m, KSC_SEV_ERROR, "gpl-only", im->name, .owner = owner,
			.summary = "GPL-only export used by a GPL-incompatible module",
			.lines = m->mod_log
				? sfmt(r, "ERROR: modpost: %s.ko: GPL-incompatible module uses GPL-only symbol '%s'",
				       m->p, im->name)
				: sfmt(r, "ERROR: modpost: GPL-incompatible module %s.ko uses GPL-only symbol '%s'",
				       m->base, im->name),
			.explanation = "modpost checks every license= entry: one that is not GPL-compatible is enough",
			.fix = "needs a GPL-compatible MODULE_LICENSE (\"GPL\", \"GPL v2\", \"Dual BSD/GPL\", \"Dual MIT/GPL\", ...)");
		m->ok = false;
	}
	if (m->unresolved > 10)
		modpost_finding(m, KSC_SEV_WARNING, "unresolved", NULL,
			.summary = sfmt(r, "%u more unresolved symbols", m->unresolved - 10),
			.lines = sfmt(r, "WARNING: modpost: suppressed %u unresolved symbol warnings because there were too many)",
				      m->unresolved - 10));
}

void modpost_module(struct run *run, struct ksc_module *const *mods, size_t n,
		    size_t idx, bool *ok)
{
	struct modpost m = {
		.run = run, .mods = mods, .n = n, .idx = idx, .mod = mods[idx],
		.base = ksc_module_get_modpost_name(mods[idx]),
		.p = modpost_path(run->r, ksc_module_get_path(mods[idx])),
		.mod_log = run->pol->has[KSC_FEAT_MODPOST_MOD_LOG],
		.external = ksc_build_is_external(run->o->build, mods[idx]), /* R40 */
		.ok = true,
	};

	check_modname_len(&m);
	read_symbols(&m);
	check_exports(&m);
	*ok = m.ok;
}
