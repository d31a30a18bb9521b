/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel wing (doc/architecture.md): one kernel as the rules see it. Where its files
 * are (ksc-locate.c), its exports, owners and config (ksc-kernel.c, the owner of struct
 * ksc_kernel), what it reads besides its modules (ksc-kernel-own.c), its built-in keys
 * (ksc-keycache.c), the features of each version (ksc-features.c), names, patterns and
 * licenses (ksc-rules.c), the rule of dependency cycles (ksc-cycles.c), the kernel of
 * depmod's files (ksc-kernel-depmod.c) and the catalogue of rules and finding codes
 * (ksc-catalogue.c). Depmod's choice of one file per name is the modset wing's.
 */
#pragma once

#include "modset/modset.h"

/* The sources of a kernel's own exports, best first (ksc-locate.c): Module.symvers,
 * vmlinux, vmlinuz, System.map. */
extern const enum ksc_kernel_file ksc_exports_order[4];
/*
 * Is the file at `path` an ELF image without code that holds .BTF (the BTF-only vmlinux
 * of Debian's headers)? The locator skips such an image (ksc-locate.c).
 */
bool ksc_image_is_btf_only(const char *path);

/* ---- what each kernel version has (ksc-features.c) ---- */
enum ksc_feature {
	KSC_FEAT_NAMESPACES,       /* 5.4: EXPORT_SYMBOL_NS, MODULE_IMPORT_NS (R2, R12) */
	KSC_FEAT_INHERIT_TAINT,    /* 5.13: proprietary providers taint their users (R18) */
	KSC_FEAT_TAINT_SYMNAME,    /* 5.19: the symbol named in the R18 messages */
	KSC_FEAT_AUGMENT_TAINTS,   /* 6.4: "module license taints kernel." (R15) */
	KSC_FEAT_STRING_NS,        /* 6.13: MODULE_IMPORT_NS("NS") (R2) */
	KSC_FEAT_EXT_MODVERSIONS,  /* 6.14: extended __versions tables (R21) */
	KSC_FEAT_GPL_FOR_MODULES,  /* 6.16, 6.6.y, 6.12.y: EXPORT_SYMBOL_GPL_FOR_MODULES (R1) */
	KSC_FEAT_MODNS,            /* 6.16: module: namespaces enforced (R7-R11) */
	KSC_FEAT_FOR_MODULES,      /* 6.17: EXPORT_SYMBOL_FOR_MODULES (R1) */
	KSC_FEAT_FOR_KVM,          /* 6.19: EXPORT_SYMBOL_FOR_KVM (R1) */
	KSC_FEAT_KFLAGSTAB,        /* 7.1: __kflagstab (R3, R34) */
	KSC_FEAT_MODPOST_MOD_LOG,  /* 7.3: modpost_log() names the module first (R23) */
	KSC_FEAT_MODPOST_DESCRIPTION, /* 6.15: missing MODULE_DESCRIPTION() warned without W=1 (R43) */
	KSC_FEAT_COUNT
};

/* One row of the table: what, the first version with it, stable backports, the source. */
struct ksc_feature_row {
	const char *what;
	unsigned int major, minor;
	struct { unsigned int major, minor; } backport[2]; /* MAJOR.MINOR.y; 0.0 = none */
	const char *source;
};
extern const struct ksc_feature_row ksc_feature_table[KSC_FEAT_COUNT];

/* What one kernel version has. */
struct ksc_features {
	struct ksc_kver v;
	char name[32];                /* "MAJOR.MINOR" */
	bool has[KSC_FEAT_COUNT];
	const char *fm_macro;         /* the FOR_MODULES macro it spells, or NULL */
	bool fm_backport;             /* that macro without the loader's support (6.6.y, 6.12.y) */
};
/* 0, or -EINVAL when `kver` is not a kernel version. */
int ksc_features_init(struct ksc_features *f, const char *kver);

/* ---- kernel (ksc-kernel.c) ---- */
/*
 * struct ksc_kernel, its providers (struct kprov: one export, vmlinux's or a module's)
 * and owners (struct kowner: a module) are defined in ksc-kernel.c only; everyone else,
 * of this wing or above, calls the functions below (tests/structure.py, OWNED_STRUCTS).
 */
struct kowner;
struct kprov;
struct ksc_svahead; /* ksc-symvers-cache.c */

int ksc_kernel_add_symvers_rows(struct ksc_kernel *k, const struct ksc_symvers *sv,
				bool vmlinux_only) _must_check_;
/*
 * Does the kernel hold an in-tree module? None means only the headers are installed
 * (perhaps with DKMS modules below updates/): then the headers' Module.symvers module rows
 * are the in-tree modules' exports (providers known by name).
 */
bool ksc_kernel_has_intree_module(const struct ksc_kernel *k);
/* The symbol index, and the owners' dependency cycles (R43) when anything changed. */
int ksc_kernel_build_index(struct ksc_kernel *k) _must_check_;
/*
 * R43's rule on any dependency graph (module i needs deps[i][0..n_deps[i]-1]): ok[i] when
 * module i can be loaded, i.e. is neither in a cycle nor needs a module that is. The
 * number of modules that cannot, or -ENOMEM.
 */
int ksc_loadable(size_t n, uint32_t *const *deps, const uint32_t *n_deps, bool *ok);
/*
 * The cycle each module that cannot be loaded (ok from ksc_loadable()) is in or behind,
 * as depmod names it: text[i] = "a -> b -> a", its members' names[] in dependency order
 * (in `strings`), the same for every module on the way to it; NULL for the modules that
 * can be loaded. 0 or -ENOMEM.
 */
int ksc_cycle_texts(size_t n, uint32_t *const *deps, const uint32_t *n_deps, const bool *ok,
		    const char *const *names, struct pool *strings, const char **text);
/*
 * The owners `owner` depends on, by name, as the caller resolved them (the tree: depmod's
 * resolution), instead of its imports; names that are no owner are skipped. 0 or -ENOMEM.
 */
int ksc_kernel_set_owner_deps(struct ksc_kernel *k, const char *owner,
			      const char *const *deps, size_t n) _must_check_;
const struct kprov *ksc_kernel_first_prov(const struct ksc_kernel *k, const char *symbol);
const struct kprov *ksc_kernel_next_prov(const struct ksc_kernel *k, const struct kprov *p);

/*
 * `mod`, just added to `k` (ksc_kernel_add_module()), is the file depmod keeps for its
 * name, at `relpath` below the module folder, over `replaced`: remember both and why
 * (for the "replaces" explanation of checks and audits), and log it. 0 or -ENOMEM.
 */
int ksc_kernel_note_replaced(struct ksc_kernel *k, const struct ksc_depmod_cfg *cfg,
			     const struct ksc_module *mod, const char *relpath,
			     const char *replaced) _must_check_;

struct ksc_modset;
/* The set's modules, in its order, as ksc_kernel_open() adds them (and "replaces"). */
int ksc_kernel_add_modset(struct ksc_kernel *k, struct ksc_modset *ms) _must_check_;
/*
 * ksc_kernel_open_location()'s kernel with the modules of `ms` (ksc-kernel-open.c): the
 * tree gives a set of its records, ksc_kernel_open_opts() one it walked. 0 or -errno.
 */
int ksc_kernel_from_modset(struct ksc_ctx *ctx, const struct ksc_kernel_location *loc,
			   struct ksc_modset *ms, struct ksc_kernel **out) _must_check_;
/*
 * The kernel for `mods` from depmod's files (ksc-kernel-depmod.c), the modules read
 * through the set `job` walks (waited for once depmod's files are read). -ESTALE when
 * depmod's files cannot stand for the tree (why: logged at debug level; what was read is
 * not said) or the walk failed (the job says why), 0 and *out, -ENOMEM.
 */
int ksc_kernel_depmod_open(struct ksc_ctx *ctx, const struct ksc_kernel_location *loc,
			   struct ksc_modset_job *job, struct ksc_module *const *mods, size_t n,
			   struct ksc_kernel **out) _must_check_;

/*
 * What ksc_kernel_open_location() reads after the tree's modules (ksc-kernel-own.c): the
 * kernel's own exports (with `symvers_modules`, a Module.symvers' module rows too), the
 * quirks and the configuration; `cache`: the file that keeps a Module.symvers' rows
 * between runs (ksc_kernel_add_symvers_cached()), or NULL. 0 or -errno, logged.
 */
int ksc_kernel_open_rest(struct ksc_kernel *k, const struct ksc_kernel_location *loc,
			 bool symvers_modules, const char *cache) _must_check_;
/* Rows of a Module.symvers as providers (vmlinux_only: module rows skipped); its CRCs are
 * the kernel's. 0 or -ENOMEM. */
int ksc_kernel_add_symvers_entries(struct ksc_kernel *k, const struct ksc_symvers_entry *v,
				   size_t n, bool vmlinux_only) _must_check_;
/* Count n more errors (ksc_kernel_get_error_count()): files that could not be read. */
void ksc_kernel_add_errors(struct ksc_kernel *k, unsigned int n);
/* Does it have its own exports yet (vmlinux's, from an image or Module.symvers)? */
bool ksc_kernel_has_own_exports(const struct ksc_kernel *k);
/* The context it logs to from now on (a reference taken, the old one's dropped). */
void ksc_kernel_set_ctx(struct ksc_kernel *k, struct ksc_ctx *ctx);
/* The Module.symvers rows read ahead: keep `a` (the rows kept before freed), take them. */
void ksc_kernel_keep_symvers_ahead(struct ksc_kernel *k, struct ksc_svahead *a);
struct ksc_svahead *ksc_kernel_take_symvers_ahead(struct ksc_kernel *k);
/*
 * The rows of the Module.symvers at `path`, from `cache` when it holds them for this very
 * file (path, size, inode, mtime, ctime; checked whole), else read (what it logs said)
 * and, when it read cleanly, kept there for the next run (the file: ksc-symvers-cache.c).
 * 0; -errno when it cannot be read (logged); -ENOMEM.
 */
int ksc_kernel_add_symvers_cached(struct ksc_kernel *k, const char *path, const char *cache,
				  bool vmlinux_only) _must_check_;
/* ---- the rows kept (ksc-symvers-cache.c) ---- */
struct ksc_svrows {
	char *buf;                     /* the file read */
	struct ksc_symvers_entry *v;   /* strings in buf */
	size_t n;
};
/* The rows `cache` keeps for the file `path` whose stat is `st`: 0, 1 none, -ENOMEM. */
int ksc_svcache_load(const char *cache, const char *path, const struct stat *st,
		     struct ksc_svrows *out) _must_check_;
void ksc_svrows_fini(struct ksc_svrows *rows);
/*
 * The kept rows of the location's Module.symvers read now (ksc-kernel-own.c), while
 * something else (the module folder's walk) runs: ksc_kernel_add_symvers_cached() takes them instead of
 * reading them then, when the file is still the one they were kept for. 0 (read, or
 * nothing to read) or -ENOMEM.
 */
int ksc_kernel_read_symvers_ahead(struct ksc_kernel *k, const struct ksc_kernel_location *loc,
				  const char *cache) _must_check_;
/* The rows `cache` keeps for `path`, read now: 0 and *out (NULL: none kept), -ENOMEM. */
int ksc_svahead_read(const char *cache, const char *path, struct ksc_svahead **out);
void ksc_svahead_free(struct ksc_svahead *a);
/* The rows read ahead (*a freed) when they are cache's for path as `st` says: 0, else 1. */
int ksc_svahead_take(struct ksc_svahead **a, const char *cache, const char *path,
		     const struct stat *st, struct ksc_svrows *rows);
/* Keep sv's rows for the file `path` whose stat is `st` (not when it may still change). */
void ksc_svcache_save(const char *cache, const char *path, const struct stat *st,
		      const struct ksc_symvers *sv);
/* ksc_symvers_new_from_path(), *clean when it logged nothing (at info or above). */
int ksc_svcache_read_symvers(struct ksc_ctx *ctx, const char *path, struct ksc_symvers **sv,
			     bool *clean) _must_check_;
/* The file beside the index `index` (".idx") that keeps the exports: malloc'd, or NULL. */
char *ksc_kernel_symvers_cache_of(const char *index);

/* ---- the kernel as the wings above read it (ksc-kernel.c) ---- */
/*
 * Engine, source and report read a kernel's providers and owners through these, never
 * through the fields of struct ksc_kernel, struct kprov or struct kowner
 * (tests/structure.py). What they return is owned by the kernel.
 */
/* The providers in the order they were added, i < ksc_kernel_prov_count(). */
size_t ksc_kernel_prov_count(const struct ksc_kernel *k);
const struct kprov *ksc_kernel_prov(const struct ksc_kernel *k, size_t i);
/* A provider's export, and its owner (NULL: vmlinux) or the owner's name ("vmlinux"). */
const struct ksc_export *ksc_kprov_export(const struct kprov *p);
const struct kowner *ksc_kprov_owner(const struct kprov *p);
const char *ksc_kprov_owner_name(const struct kprov *p);
/* The owners (modules) in the order they were added, and one by its loader name. */
size_t ksc_kernel_owner_count(const struct ksc_kernel *k);
const struct kowner *ksc_kernel_owner(const struct ksc_kernel *k, size_t i);
const struct kowner *ksc_kernel_find_owner(const struct ksc_kernel *k, const char *name);
/* An owner's loader name, its module (NULL for Module.symvers owners), R15's taint. */
const char *ksc_kowner_name(const struct kowner *o);
struct ksc_module *ksc_kowner_module(const struct kowner *o);
bool ksc_kowner_is_proprietary(const struct kowner *o);
/* R43: the dependency cycle the owner is in or behind ("a -> b -> a"), or NULL. */
const char *ksc_kowner_cycle(const struct kowner *o);
/*
 * The file of the same name this owner's file won over (relative to the module folder),
 * or NULL; with it, this file (*relpath) and the rule that ranks it first (*won_by).
 */
const char *ksc_kowner_replaced(const struct kowner *o, const char **relpath,
				const char **won_by);
