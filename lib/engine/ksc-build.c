// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * R40: the in-tree-only rule for module-restricted exports (--require-intree), as the
 * proposed patch "module: Restrict module namespace access to in-tree modules" (2025,
 * not merged) has each half apply it. The two halves ask different questions:
 *
 *   loader  verify_namespace_is_imported(): the name grant needs an intree key in
 *           .modinfo, whatever its value (get_modinfo() finds intree=N too);
 *   modpost check_exports(): the name grant needs an in-tree build; for an external
 *           build (make M=, modpost -e) it is refused whatever .modinfo says.
 *
 * Both print only the kernel's generic "does not import it" line; the findings here say
 * what it means. scripts/intree-patch.sh makes the change in a real kernel source and
 * tests/real/intree.sh compares these verdicts with what it does.
 */
#include <errno.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/engine.h"

/* An installed tree: the folders depmod searches first hold what was built outside it. */
static bool path_has_external_folder(const char *path)
{
	static const char *const folders[] = { "updates", "extra" };

	for (const char *p = path; p && *p; p += strcspn(p, "/"), p += *p == '/') {
		size_t l = strcspn(p, "/");
		if (!p[l])
			break; /* the file's own name */
		for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++)
			if (l == strlen(folders[i]) && strncmp(p, folders[i], l) == 0)
				return true;
	}
	return false;
}

bool ksc_build_is_external(enum ksc_build build, const struct ksc_module *mod)
{
	switch (build) {
	case KSC_BUILD_EXTERNAL:
		return true;
	case KSC_BUILD_INTREE:
		return false;
	case KSC_BUILD_AUTO:
		break;
	}
	return path_has_external_folder(ksc_module_get_path(mod)) || !ksc_module_is_intree(mod);
}

static const char *patterns(const char *ns)
{
	return ns + strlen("module:");
}

/* The loader's half: the module's name matches, but .modinfo has no intree key. */
int ksc_intree_loader_refusal(struct ksc_report *r, bool allow, size_t idx,
			      const char *name, const char *sym, const char *ns,
			      const char *owner, struct ksc_diag **d_out)
{
	*d_out = finding_new(r, KSC_VIEW_LOADER, allow ? KSC_SEV_WARNING : KSC_SEV_ERROR,
		"modns-not-intree", idx, name, sym, &(struct finding){
		.ns = ns, .owner = owner,
		.summary = "restricted to in-tree modules: no intree in .modinfo",
		.lines = sfmt(r, "%s: module uses symbol (%s) from namespace %s, but does not import it.",
			      name, sym, ns),
		.explanation = sfmt(r, "under the in-tree-only rule the loader grants %s to a module whose name matches %s only when its .modinfo has an intree key (any value); this module has none, as every external (make M=) build; the kernel's line says only that the namespace is not imported%s",
				    sym, patterns(ns),
				    allow ? "; CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y only warns (R13)" : ""),
		.fix = "build the module in the kernel tree (modpost then writes intree=Y); a module built outside it cannot use this export under the rule" });
	return allow ? 0 : -EINVAL;
}

/*
 * modpost's half: an external build, whatever .modinfo says. Only when the name would
 * have been enough (for modpost's file name or the loader's module name): false, and
 * nothing reported, otherwise.
 */
bool ksc_intree_modpost_refusal(struct ksc_report *r, bool allow, bool mod_log,
				const struct ksc_module *mod, size_t idx, const char *path,
				const char *sym, const char *ns, const char *owner)
{
	const char *base = ksc_module_get_modpost_name(mod);
	const char *intree = ksc_module_get_modinfo_value(mod, "intree");
	const char *word = allow ? "WARNING" : "ERROR";

	if (!ksc_namespace_matches_module(ns, base, KSC_MATCH_MODPOST) &&
	    !ksc_namespace_matches_module(ns, ksc_module_get_name(mod), KSC_MATCH_LOADER))
		return false;
	finding_new(r, KSC_VIEW_MODPOST, allow ? KSC_SEV_WARNING : KSC_SEV_ERROR,
		"modns-not-intree", idx, base, sym, &(struct finding){
		.ns = ns, .owner = owner,
		.summary = "restricted to in-tree modules: an external (M=) build",
		.lines = mod_log
			? sfmt(r, "%s: modpost: %s.ko: module uses symbol '%s' from namespace '%s', but does not import it.",
			       word, path, sym, ns)
			: sfmt(r, "%s: modpost: module %s uses symbol %s from namespace %s, but does not import it.",
			       word, base, sym, ns),
		.explanation = sfmt(r, "under the in-tree-only rule modpost grants %s by name (matching %s) only when it builds the kernel tree; an external build (make M=, modpost -e) is refused whatever .modinfo says (%s%s); the kernel's line says only that the namespace is not imported%s%s",
				    sym, patterns(ns), intree ? "intree=" : "no intree",
				    intree ? intree : "",
				    ksc_namespace_matches_module(ns, base, KSC_MATCH_MODPOST) ? ""
				    : sfmt(r, "; in the tree too, modpost would compare the file name '%s' exactly with %s ('-' and '_' differ)", base, patterns(ns)),
				    allow ? "; -N (make nsdeps, CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y) only warns and the module is built (R13)" : ""),
		.fix = "build the module in the kernel tree (its source there, obj-m in its Kbuild), and say so with --in-tree-build; no MODULE_INFO(intree, ...) line helps a make M= build" });
	return true;
}

/* -v: one half would grant the export by name and the other would not. */
void ksc_intree_views_differ(struct ksc_report *r, enum ksc_build build,
			     const struct ksc_module *mod, size_t idx, const char *sym,
			     const char *ns)
{
	const char *base = ksc_module_get_modpost_name(mod);
	bool external = ksc_build_is_external(build, mod);
	bool has_key = ksc_module_is_intree(mod);
	bool loader_name = ksc_namespace_matches_module(ns, ksc_module_get_name(mod), KSC_MATCH_LOADER);
	bool modpost_name = ksc_namespace_matches_module(ns, base, KSC_MATCH_MODPOST);
	bool loader = loader_name && has_key, modpost = modpost_name && !external;

	if (loader == modpost)
		return;
	finding_new(r, KSC_VIEW_MODPOST, KSC_SEV_INFO, "modns-views-differ", idx, base, sym,
		&(struct finding){
		.ns = ns,
		.summary = loader
			? (external ? "the loader would grant it (intree in .modinfo), modpost refuses it (an external build)"
				    : "the loader would grant it (intree in .modinfo), modpost refuses it (the file name does not match)")
			: (!has_key ? "modpost would grant it (an in-tree build), the loader refuses it (no intree in .modinfo)"
				    : "modpost would grant it (an in-tree build), the loader refuses it (the module name does not match)"),
		.explanation = "the two halves of the in-tree-only rule ask different questions: the loader looks for an intree key in .modinfo (any value, intree=N too), modpost at how the module is built; one line of source satisfies the loader, only a build in the kernel tree satisfies modpost",
		.fix = loader || !has_key
			? "build the module in the kernel tree: modpost then writes intree=Y and both halves grant it by name (a module built there that lacks intree is not the file built: check --in-tree-build)"
			: "spell the module's name as the pattern does: the loader compares the module name, modpost the file name" });
}
