/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libksymcheck, the engine wing: checking modules: the verdicts of the loader and of modpost.
 * Include <ksymcheck.h>, which includes every part in order; its first comment states
 * the conventions that hold for every declaration here.
 */
#ifndef KSYMCHECK_ENGINE_H
#define KSYMCHECK_ENGINE_H

#include <ksymcheck/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------- */
/* Checking modules: the verdicts of the loader and of modpost                        */

enum ksc_view {
	KSC_VIEW_LOADER = 1,  /* insmod time: kernel/module/main.c, version.c */
	KSC_VIEW_MODPOST = 2, /* build time: scripts/mod/modpost.c */
	KSC_VIEW_BOTH = 3,
};

enum ksc_severity {
	KSC_SEV_INFO = 0,    /* the kernel says something, nothing is refused (taints) */
	KSC_SEV_WARNING = 1, /* allowed, but worth a look (e.g. a module-name impostor) */
	KSC_SEV_ERROR = 2,   /* refused: the load fails / modpost fails the build */
};

/*
 * How the modules checked were built, for modpost's half of the in-tree-only rule (R40):
 * modpost knows whether it runs for the kernel tree or for an external (make M=) build,
 * not what .modinfo says.
 */
enum ksc_build {
	KSC_BUILD_AUTO = 0,     /* per module: external when its path has an updates/ or
				 * extra/ folder, or it has no intree in .modinfo; else in-tree
				 * (a distribution's installed tree) */
	KSC_BUILD_EXTERNAL = 1, /* make M=dir, as DKMS builds: modpost -e */
	KSC_BUILD_INTREE = 2,   /* built in the kernel tree */
};

struct ksc_check_opts {
	size_t sz;                /* sizeof(struct ksc_check_opts) */
	const char *policy;       /* rules of this kernel version; NULL: the kernel's release */
	bool require_intree;      /* R25: the proposed in-tree-only rule for module: exports */
	int allow_missing_ns;     /* R12/R13: -1 from the kernel config, else 0/1 */
	unsigned int views;       /* KSC_VIEW_* mask, 0 = both */
	bool insmod_only;         /* loader: only vmlinux and the modules given are loaded, in
				   * the order given, as with plain insmod; default: as
				   * modprobe, the tree's modules provide too and the modules
				   * given load in dependency order */
	enum ksc_build build;     /* R40: how the modules were built (modpost's view) */
	/* The loader: the modules as if rebuilt for this kernel (KSYMCHECK_0.4): vermagic,
	 * module_layout, symbol CRCs and the signature are taken as matching, so only what
	 * the imports themselves meet is judged. */
	bool as_rebuilt;
};

/* One finding. Strings are owned by the report. */
struct ksc_diag {
	enum ksc_view view;
	enum ksc_severity severity;
	const char *code;         /* stable identifier, e.g. "gpl-only", "ns-missing" */
	const char *rule;         /* its rule in doc/rules.md, e.g. "R16" (ksc_rule_lookup()) */
	size_t module_index;      /* index into the modules checked */
	const char *module;       /* the module as this view names it */
	const char *symbol;       /* NULL for module-level findings */
	const char *ns;           /* namespace involved, or NULL */
	const char *owner;        /* provider of the symbol ("vmlinux", a module), or NULL */
	const char *summary;      /* one short line */
	const char *kernel_lines; /* exactly what the kernel prints, '\n'-separated; or NULL */
	const char *explanation;  /* why, in words */
	const char *fix;          /* what to change, in the target kernel's syntax; or NULL */
	int err;                  /* loader: the -errno this symbol fails with, else 0 */
};

/* One per module checked. `module` and the two names point into the caller's module. */
struct ksc_module_verdict {
	const struct ksc_module *module;
	const char *loader_name;  /* struct module name (R4) */
	const char *modpost_name; /* file basename (R5) */
	int loader_err;           /* 0: would load; else the -errno finit_module returns */
	bool modpost_ok;          /* modpost reports no error */
	size_t first_diag, n_diags;
	/* The load got as far as resolving the imports (simplify_symbols()); false when it
	 * stopped before them (signature, module_layout, vermagic, an explicit module:
	 * import ...) or the loader view was not run: then no import has a loader verdict. */
	bool loader_reached_symbols;
	/* The place in which the loader took the module among those given: modprobe's
	 * order (dependencies first), or the order given with insmod_only. */
	size_t load_index;
};

struct ksc_report;

/*
 * Check modules against kernel `k`, as if loaded into one booted kernel (taints and
 * once-per-boot messages carry over; a module that loads provides its exports to the
 * later ones) as modprobe would load them: the tree's modules are providers (those
 * named like a module given are replaced by it), and the modules given are loaded in
 * dependency order among themselves (a module after the ones given whose exports it
 * uses; a cycle loads none of its members: dep-cycle); with opts->insmod_only, as plain
 * insmod in the order given, from vmlinux and the modules given alone. A symbol exported
 * by a module given that is not loaded is reported as such (dep-refused, dep-order).
 * The verdicts stay in the order given (load_index says when each was loaded), and
 * modpost judges them as one run. `opts` NULL: defaults.
 * 0 and *out = a new report (the caller's: ksc_report_unref()), also when modules would
 * be refused (verdicts are data, not errors); or -EINVAL when there is no kernel version
 * to take the rules from (no opts->policy and no release) or opts->policy is not one
 * (logged), -ENOMEM. The report holds no reference to the modules: a verdict's `module`,
 * `loader_name` and `modpost_name` point into the module, so keep the modules while
 * reading those. Everything else in the report is its own.
 */
int ksc_check_modules(struct ksc_kernel *k, struct ksc_module *const *mods, size_t n,
		      const struct ksc_check_opts *opts, struct ksc_report **out);
/* _ref: one more reference, returns r. _unref: drops one, returns NULL. */
struct ksc_report *ksc_report_ref(struct ksc_report *r);
struct ksc_report *ksc_report_unref(struct ksc_report *r);
/* The policy applied, e.g. "6.16". Owned by the report. */
const char *ksc_report_get_policy(const struct ksc_report *r);
/*
 * Verdict i (one per module, in the order given) and finding i (all modules; a verdict's
 * first_diag and n_diags select its own). Owned by the report; NULL when i >= the count.
 */
size_t ksc_report_get_module_count(const struct ksc_report *r);
const struct ksc_module_verdict *ksc_report_get_verdict(const struct ksc_report *r, size_t i);
size_t ksc_report_get_diag_count(const struct ksc_report *r);
const struct ksc_diag *ksc_report_get_diag(const struct ksc_report *r, size_t i);
/* The symbolic name of an errno value, e.g. -22 -> "EINVAL" ("E?" if unknown). Static string. */
const char *ksc_errno_name(int err);

#ifdef __cplusplus
}
#endif

#endif /* KSYMCHECK_ENGINE_H */
