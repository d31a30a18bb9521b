/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal: the check report and its findings (lib/engine/ksc-findings.c), built by the run
 * (lib/engine/ksc-check.c), its two views (lib/engine/ksc-loader.c,
 * lib/engine/ksc-modpost.c) and lib/engine/ksc-build.c (the in-tree-only rule, R40).
 * Strings returned are owned by the report; on allocation failure they are NULL and the
 * report remembers it (-ENOMEM).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "kernel/kernel.h"

struct ksc_report {
	int refcount;
	struct ksc_ctx *ctx;
	struct pool strings;
	struct ksc_features pol; /* the rules of this version (kernel/ksc-features.c) */
	struct ksc_diag *diags;
	size_t n_diags, cap_diags;
	struct ksc_module_verdict *verdicts;
	size_t n_verdicts;
	int oom;
};

#define sfmt ksc_report_sfmt
#define sdup ksc_report_sdup
#define diag_new ksc_report_diag_new
#define diag_line ksc_report_diag_line

const char *sfmt(struct ksc_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *sdup(struct ksc_report *r, const char *s);
/* A new finding; its rule is the one the catalogue gives `code` in this view. */
struct ksc_diag *diag_new(struct ksc_report *r, enum ksc_view view, enum ksc_severity sev,
			  const char *code, size_t index, const char *module,
			  const char *symbol);
/*
 * What a finding says besides its code; every field may be left out. `lines` is what the
 * kernel prints ('\n' between lines); ns and owner are copied, the other strings must
 * live as long as the report (literals, sfmt()).
 */
struct finding {
	const char *summary, *lines, *explanation, *fix, *ns, *owner;
	int err;
};
#define finding_new ksc_report_finding_new
/* A finding in one call: diag_new() and the fields of `f`. NULL on allocation failure. */
struct ksc_diag *finding_new(struct ksc_report *r, enum ksc_view view, enum ksc_severity sev,
			     const char *code, size_t index, const char *module,
			     const char *symbol, const struct finding *f);
/* Append one printed line to a diag's kernel_lines (nothing when d is NULL). */
void diag_line(struct ksc_report *r, struct ksc_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* lib/engine/ksc-build.c: R40 */
bool ksc_build_is_external(enum ksc_build build, const struct ksc_module *mod);
int ksc_intree_loader_refusal(struct ksc_report *r, bool allow, size_t idx,
			      const char *name, const char *sym, const char *ns,
			      const char *owner, struct ksc_diag **d_out);
bool ksc_intree_modpost_refusal(struct ksc_report *r, bool allow, bool mod_log,
				const struct ksc_module *mod, size_t idx, const char *path,
				const char *sym, const char *ns, const char *owner);
void ksc_intree_views_differ(struct ksc_report *r, enum ksc_build build,
			     const struct ksc_module *mod, size_t idx, const char *sym,
			     const char *ns);

/* The state of one run of both views (lib/engine/ksc-check.c sets it up). */

/* A given module that loaded: a provider for the modules after it. */
struct live {
	const struct ksc_module *mod;
	const char *name;
	bool proprietary;
};

/* One simulated boot (R15, R21, R28, R31: taints and *_once messages are per boot). */
struct boot {
	bool taint_P, taint_O, taint_E, taint_F, taint_C;
	bool once_nosymver, once_noextver, once_sig;
	bool lockdep_off;     /* "Disabling lock debugging due to kernel taint", once */
	bool retpoline_off;   /* the first module without retpoline switched the mitigation off */
	struct live *live;
	size_t n_live;
};

/* One check run: the kernel, its rules and options, the boot the loader view changes. */
struct run {
	struct ksc_report *r;
	struct ksc_kernel *k;
	const struct ksc_features *pol;
	const struct ksc_check_opts *o;
	bool allow_missing_ns;
	bool modversions;     /* the kernel checks CRCs */
	bool module_sig, sig_force, force_load, retpoline;
	bool missing_crc_fails; /* Debian's "Disable matching missing version CRC" */
	struct boot boot;
	struct siblings *sib; /* the modules given together (ksc-order.c) */
};

/* Per module being loaded. */
struct loading {
	size_t index;
	const struct ksc_module *mod;
	const char *name;  /* mod->name: struct module name */
	const char *iname; /* info->name: modinfo name, else struct name */
	bool P, using_gplonly;
	int err;           /* last failure, returned by finit_module */
	bool aborted;      /* a failure that stops the load at once */
	bool reached_symbols; /* the load got as far as simplify_symbols() */
	struct ksc_sig_eval sig; /* module_sig_check(): the signature (ksc-sig.c) */
	bool sig_ok;       /* info->sig_ok: a valid (or, without keys, well-formed) signature */
	bool modns_sig_warned; /* the modns-* signature warning was given */
};

/*
 * lib/engine/ksc-loader.c and ksc-loader-sig.c: what the loader view's steps in both files
 * use (here, so that neither file calls the other back). loader_finding() makes a finding
 * of the module being loaded in one call; loader_fail() records the load's failure
 * (finit_module's -errno) and returns it; taint_line() is the info finding of a taint
 * and its kernel line.
 */
#define loader_finding(run, L, sev, code, sym, ...)                                        \
	finding_new((run)->r, KSC_VIEW_LOADER, sev, code, (L)->index, (L)->name, sym,      \
		    &(struct finding){ __VA_ARGS__ })
static inline int loader_fail(struct loading *L, int err)
{
	L->err = err;
	return err;
}

static inline struct ksc_diag *taint_line(struct run *run, struct loading *L, const char *code,
					  const char *summary, const char *line,
					  const char *why)
{
	return loader_finding(run, L, KSC_SEV_INFO, code, NULL, .summary = summary, .lines = line,
			      .explanation = why);
}

/* ksc-loader-sig.c: the signature steps of load_module() (R28, R37). */
int module_sig_check(struct run *run, struct loading *L);
void module_sig_taint(struct run *run, struct loading *L);
void intree_signature(struct run *run, struct loading *L);
void modns_signature(struct run *run, struct loading *L, const char *sym, const char *owner,
		     const char *ns);

/* MODULE_IMPORT_NS in the syntax of the target kernel (R2). */
static inline const char *import_line(struct ksc_report *r, const char *ns)
{
	return r->pol.has[KSC_FEAT_STRING_NS] ? sfmt(r, "MODULE_IMPORT_NS(\"%s\");", ns)
				: sfmt(r, "MODULE_IMPORT_NS(%s);", ns);
}

/* The module patterns of a module: namespace, after the prefix. */
static inline const char *modns_list(const char *ns)
{
	return ns + strlen("module:");
}


/*
 * lib/engine/ksc-order.c: the modules given together, in the order the loader takes them
 * (modprobe's: dependencies first; insmod_only: as given), and what one of them that is
 * not loaded means for a symbol no one else exports.
 */
struct siblings;
int ksc_siblings_new(const struct ksc_kernel *k, struct ksc_module *const *mods, size_t n,
		     bool insmod_only, struct siblings **out);
void ksc_siblings_free(struct siblings *s);
/* The module (index given) the loader takes at position `pos`. */
size_t ksc_siblings_at(const struct siblings *s, size_t pos);
void ksc_siblings_loaded(struct siblings *s, size_t idx, int err);
/* A module of this name is given (it replaces the tree's module of the same name). */
bool ksc_siblings_has_name(const struct siblings *s, const char *name);
/*
 * `sym` is not found for module `idx`: when the module given with it that exports it is
 * in or behind a dependency cycle (R43), that cycle ("a -> b -> a"), its name in *owner;
 * else NULL.
 */
const char *ksc_siblings_cycle(const struct run *run, size_t idx, const char *sym,
			       const char **owner);
/*
 * `sym` is not found for module `idx` (`name`): when a module given with it exports it,
 * the finding that says why (dep-refused, dep-order); else NULL.
 */
struct ksc_diag *ksc_siblings_missing(struct run *run, size_t idx, const char *name,
				      const char *sym);

/* lib/engine/ksc-loader.c: load_module() in kernel/module/main.c, step by step. */
#define load_module ksc_loader_load_module
int load_module(struct run *run, struct loading *L);

/* lib/engine/ksc-modpost.c: scripts/mod/modpost.c for module `idx` of `mods`. */
#define modpost_module ksc_modpost_module
void modpost_module(struct run *run, struct ksc_module *const *mods, size_t n, size_t idx,
		    bool *ok);
