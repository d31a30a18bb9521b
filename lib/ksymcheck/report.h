/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libksymcheck, the report wing: two kernels compared, audits, one module against several kernels.
 * Include <ksymcheck.h>, which includes every part in order; its first comment states
 * the conventions that hold for every declaration here.
 */
#ifndef KSYMCHECK_REPORT_H
#define KSYMCHECK_REPORT_H

#include <ksymcheck/tree.h>
#include <ksymcheck/source.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------- */
/* Two kernels compared                                                               */

enum ksc_change_kind {
	KSC_CHANGE_REMOVED = 0,           /* exported by the old kernel only */
	KSC_CHANGE_ADDED,                 /* exported by the new kernel only */
	KSC_CHANGE_BECAME_GPL_ONLY,       /* EXPORT_SYMBOL -> EXPORT_SYMBOL_GPL */
	KSC_CHANGE_NO_LONGER_GPL_ONLY,
	KSC_CHANGE_NS_GAINED,             /* "" -> NS */
	KSC_CHANGE_NS_LOST,               /* NS -> "" */
	KSC_CHANGE_NS_CHANGED,            /* NS1 -> NS2 (ordinary namespaces) */
	KSC_CHANGE_BECAME_RESTRICTED,     /* -> module:... (6.16+) */
	KSC_CHANGE_RESTRICTION_CHANGED,   /* module:a -> module:b */
	KSC_CHANGE_RESTRICTION_LIFTED,    /* module:... -> ordinary or none */
	KSC_CHANGE_CRC,                   /* modversions CRC differs */
	KSC_CHANGE_OWNER,                 /* provided by another module (or moved to vmlinux) */
	KSC_CHANGE_KIND_COUNT
};

/* One change of one symbol; a symbol can have several (e.g. GPL-only and a new CRC). */
struct ksc_change {
	enum ksc_change_kind kind;
	const char *symbol;
	/* NULL when absent on that side; `new` is a keyword of C++, where the field is
	 * named new_ (the same member) */
#ifdef __cplusplus
	const struct ksc_export *old, *new_;
#else
	const struct ksc_export *old, *new;
#endif
	const char *old_owner, *new_owner;  /* "vmlinux" or the module's name; NULL if absent */
};

struct ksc_diff;

/*
 * Compare the exports of two kernels (the provider the loader finds first, per name).
 * Changes are sorted by symbol. The diff points into both kernels: free it before them.
 * 0 or -ENOMEM.
 */
int ksc_kernel_diff(struct ksc_kernel *from, struct ksc_kernel *to, struct ksc_diff **out);
/* Free a diff (a plain value, one owner). Accepts NULL; returns NULL. */
struct ksc_diff *ksc_diff_free(struct ksc_diff *d);
size_t ksc_diff_get_count(const struct ksc_diff *d);
const struct ksc_change *ksc_diff_get(const struct ksc_diff *d, size_t i);
size_t ksc_diff_count_kind(const struct ksc_diff *d, enum ksc_change_kind kind);
/* "removed", "became-gpl-only", ... Static string. */
const char *ksc_change_kind_name(enum ksc_change_kind kind);

/* ---------------------------------------------------------------------------------- */
/* Auditing a kernel's export surface                                                 */

/* One item of a module-restricted pattern list, as written (R8). */
enum ksc_item_kind {
	KSC_ITEM_EXACT = 0,
	KSC_ITEM_GLOB,           /* ends in '*' */
	KSC_ITEM_EMPTY,          /* never matches */
	KSC_ITEM_MISPLACED_STAR, /* a '*' not at the end is a literal: matches nothing real */
	KSC_ITEM_HAS_SPACE,      /* white space is never trimmed */
};
/* "exact", "glob", "empty", "misplaced-star", "has-space". Static string. */
const char *ksc_item_kind_name(enum ksc_item_kind kind);

struct ksc_audit_item {
	const char *item;
	enum ksc_item_kind kind;
	/* modules of the tree it matches: loader (struct names, '-' == '_') and modpost (file
	 * basenames, exact); arrays of n names, NULL when n is 0 */
	const char *const *loader_matches;
	size_t n_loader_matches;
	const char *const *modpost_matches;
	size_t n_modpost_matches;
};

struct ksc_audit_restricted {
	const char *symbol, *ns, *owner;
	bool gpl_only;
	const struct ksc_audit_item *items;
	size_t n_items;
	const char *const *users;  /* modules of the tree that import the symbol */
	size_t n_users;
	bool dead;                 /* no item matches any module of the tree */
};

struct ksc_audit_namespace {
	const char *ns;
	size_t n_exports;
	const char *const *exporters;        /* "vmlinux" or module names */
	size_t n_exporters;
	const char *const *importers;        /* modules with import_ns=NS */
	size_t n_importers;
	const char *const *unused_importers; /* ... that use nothing from it */
	size_t n_unused_importers;
};

/*
 * Findings, by code: "modns-impostor" (a module without intree whose name matches a
 * restricted pattern), "modns-dead-item", "modns-dead-restriction", "modns-unmatchable-item",
 * "modns-empty-list", "modns-modpost-mismatch" (loader and modpost match different
 * modules), "modns-allow-missing-ns" and "modns-defeated" (R13), "ns-import-unused",
 * "intree-not-in-reference", "srcversion-differs", "modns-replaced" (a file that replaces
 * one below kernel/ for the loader, by depmod's search order or a depmod.d override, and
 * whose name matches a restricted pattern; R39).
 * Signatures (the codes ksc_check_modules() gives the same problems), for a module with
 * intree in .modinfo ("intree-*") and for a module whose name matches a module-restricted
 * pattern, the loader's way ("modns-*"; symbol and ns: the first export, by name, that the
 * name is granted):
 *   "intree-unsigned", "modns-unsigned"          no signature (warning); judged only when
 *                                                the kernel signs its modules
 *                                                (CONFIG_MODULE_SIG=y) or has keys
 *   "intree-foreign-key", "modns-foreign-key"    signed by no key of the kernel's keyring,
 *                                                -ENOKEY (warning); needs keys
 *   "intree-bad-signature", "modns-bad-signature" a signature that fails: -EKEYREJECTED
 *                                                (changed after signing; needs keys),
 *                                                -EBADMSG and other malformed blocks
 *                                                (error: the kernel refuses the module), or
 *                                                -ENOPKG (warning: loaded as if unsigned)
 * The detail names the signer, key id and hash algorithm as modinfo shows them.
 */
struct ksc_audit_finding {
	const char *code;
	enum ksc_severity severity;
	const char *module, *path; /* NULL for export-level findings */
	const char *symbol, *ns;   /* or NULL */
	const char *detail;
};

struct ksc_audit_opts {
	size_t sz;                     /* sizeof(struct ksc_audit_opts) */
	struct ksc_kernel *reference;  /* the distribution's own tree, for intree claims */
};

/*
 * The signatures of every module of the tree. signed = verified + foreign_key + rejected +
 * unsupported + not_checked.
 */
struct ksc_audit_sig_counts {
	size_t n_modules;      /* modules of the tree */
	size_t n_signed;       /* with a signature block appended */
	size_t n_unsigned;
	size_t n_verified;     /* valid, signed by a key of the kernel's keyring */
	size_t n_foreign_key;  /* well-formed, signed by no key of the keyring (-ENOKEY) */
	size_t n_rejected;     /* refused by the loader: -EKEYREJECTED (changed after signing),
				* -EBADMSG and other malformed blocks */
	size_t n_unsupported;  /* -ENOPKG: not PKCS#7, or algorithms the kernel lacks */
	size_t n_not_checked;  /* well-formed, not verified: no keys, or the file could not
				* be read again (logged) */
	size_t n_keys;         /* certificates in the keyring; 0: keys were not checked */
	int module_sig;        /* CONFIG_MODULE_SIG: 1 set, 0 not set, -1 unknown */
};

/* The modules signed by one signer, key id and hash algorithm, with their states. */
struct ksc_audit_signer {
	const char *signer;    /* as modinfo's signer, sig_key ("5E:E1:13:...") and
				* sig_hashalgo; all three NULL for blocks kmod cannot decode */
	const char *key_id;
	const char *hash_algo;
	const char *key;       /* subject of the keyring's certificate that verified them, or NULL */
	size_t n_modules, n_verified, n_foreign_key, n_rejected, n_unsupported, n_not_checked;
};

struct ksc_audit;

/*
 * Audit kernel `k` (usually from ksc_kernel_open(): its tree's modules are the users).
 * Every module's signature is read and, when the kernel has keys (ksc_kernel_set_keyring()),
 * verified: each signed module's file is read again and hashed (a file that cannot be, is
 * logged and counted as not checked). Without keys, what needs no key is still judged
 * (unsigned, malformed). The audit holds a reference to `k`; its strings live until
 * ksc_audit_free(). 0 or -ENOMEM.
 */
int ksc_audit_kernel(struct ksc_kernel *k, const struct ksc_audit_opts *opts,
		     struct ksc_audit **out);
/* Free an audit (a plain value, one owner). Accepts NULL; returns NULL. */
struct ksc_audit *ksc_audit_free(struct ksc_audit *a);
size_t ksc_audit_get_restricted_count(const struct ksc_audit *a);
const struct ksc_audit_restricted *ksc_audit_get_restricted(const struct ksc_audit *a, size_t i);
size_t ksc_audit_get_namespace_count(const struct ksc_audit *a);
const struct ksc_audit_namespace *ksc_audit_get_namespace(const struct ksc_audit *a, size_t i);
size_t ksc_audit_get_finding_count(const struct ksc_audit *a);
const struct ksc_audit_finding *ksc_audit_get_finding(const struct ksc_audit *a, size_t i);
void ksc_audit_get_export_counts(const struct ksc_audit *a, size_t *gpl_only, size_t *plain);
/* The signature counts (owned by the audit; never NULL). */
const struct ksc_audit_sig_counts *ksc_audit_get_signature_counts(const struct ksc_audit *a);
/*
 * Signers, most modules first (then by signer, key id, hash algorithm); signer i is owned
 * by the audit, NULL when i >= the count.
 */
size_t ksc_audit_get_signer_count(const struct ksc_audit *a);
const struct ksc_audit_signer *ksc_audit_get_signer(const struct ksc_audit *a, size_t i);

/* ---------------------------------------------------------------------------------- */
/* One module, several kernels: what breaks before the build (KSYMCHECK_0.4)           */

/* Would the module build from its source for a kernel (modpost and the compiler)? */
enum ksc_compat_build {
	KSC_COMPAT_BUILD_OK = 0,   /* nothing it imports changed in a way that stops it */
	KSC_COMPAT_BUILD_MAY_FAIL, /* a change hits a symbol the binary imports, but the
				    * source (not given, or not naming it) may no longer
				    * reference it: the old headers' inline code may have */
	KSC_COMPAT_BUILD_FAILS,    /* a change hits a symbol the module's source names */
};
/* "ok", "may-fail", "fails" ("unknown" for another value). Static string. */
const char *ksc_compat_build_name(enum ksc_compat_build b);

/*
 * One symbol-level finding of a (module, kernel) cell: what changed for a symbol the
 * module imports between the kernel it was built for (from its vermagic; "from") and the
 * target ("to"). Codes: "export-removed", "became-gpl-only", "namespace-moved",
 * "became-module-restricted"; from both kernels' BTF (ksc_compat_opts.btf):
 * "type-changed" (the prototype of a function, the type of a variable) and
 * "struct-changed" (a struct it takes or returns through a pointer lost members or
 * changed their types). Strings and exports are owned by the compat result and the
 * kernels.
 */
struct ksc_compat_finding {
	const char *code;
	enum ksc_severity severity; /* ERROR: a rebuilt module is refused by modpost and the
				     * loader, or (type-changed) the compiler stops; WARNING:
				     * struct-changed, members the source names; INFO: the
				     * change does not touch this module, as far as seen */
	const char *symbol;
	const char *from_release;   /* NULL when the built-for kernel was not given */
	const struct ksc_export *from, *to; /* NULL when absent (or not known) */
	const char *from_owner, *to_owner;  /* "vmlinux" or a module name, or NULL */
	bool named_in_source;       /* the source (--src) names it for the target's version */
	const char *summary;        /* one line */
	const char *fix;            /* in the target's syntax (an import line), or NULL */
	/* type-changed: the declarations as C on each side; struct-changed: the struct
	 * ("struct x"), and the members' old and new declarations ("; "-separated, `to`
	 * only those still there). NULL for the other codes. */
	const char *type_name, *from_type, *to_type;
	/* export-removed: a likely successor the target exports and the old kernel did not
	 * ("NAME (why)": a name of the same words, or containing the old one, and the same
	 * BTF prototype where both are known), or NULL */
	const char *hint;
	/* export-removed: what the kernel's own modules that imported it in the old kernel
	 * import in the target that they did not (the same module names): "NAME: N of the M
	 * in-tree modules that imported it in OLD import it in NEW (modules)" when one name
	 * stands out, "weak evidence, N candidates: ..." listing several, "no evidence: ..."
	 * when they import nothing new or are gone; NULL when none imported it or the module
	 * folders are not known (opts->moddirs). */
	const char *intree;
};

/* One (module, kernel) cell. */
struct ksc_compat_cell {
	size_t module, kernel;      /* indexes into the modules and kernels given */
	const char *release;        /* the target kernel's release, or NULL */
	bool built_for;             /* the target is the kernel the module was built for */
	enum ksc_compat_build build;
	int loader_err;             /* the binary as built: 0 or finit_module's -errno */
	bool modpost_ok;            /* the binary's imports, as modpost would see them */
	int rebuilt_err;            /* the loader if rebuilt from the same imports */
	bool failed;                /* build fails, or (built_for) the load is refused */
	size_t first_finding, n_findings;
};

struct ksc_compat_opts {
	size_t sz;                  /* sizeof(struct ksc_compat_opts) */
	const struct ksc_check_opts *check; /* the views' options (NULL: defaults) */
	const char *src;            /* the modules' source: a Kbuild folder or a file; NULL */
	/* Per kernel (n_kernels entries, each may be NULL), or NULL: a file with its BTF
	 * (a vmlinux with .BTF, e.g. Debian's /usr/src/linux-headers-KVER/vmlinux). One
	 * that cannot be read is logged and left out. */
	const char *const *btf;
	/* Per kernel, or NULL: its headers (a tree with include/ and arch/ARCH/include, ARCH
	 * from the modules' machine; Debian's linux-headers-KVER-common). An import the
	 * target no longer exports but whose name its headers define as a macro or an
	 * inline function is a note: a rebuild calls what they call. */
	const char *const *headers;
	/* Per kernel, or NULL: its module folder (lib/modules/KVER, with modules.dep): the
	 * types of what its modules export are read from their own split .BTF on `btf`. */
	const char *const *moddirs;
	/* A folder for what the types of each (module, kernel) cell gave, kept by the
	 * identity of the files read (created when missing), or NULL: every run reads the
	 * BTF again. */
	const char *cache_dir;
	/* Per kernel, or NULL: the index `ksymcheck tree` keeps of its module folder
	 * (moddirs), read for the in-tree modules' imports (ksc_compat_finding.intree) where
	 * current, and written again when a module had to be read. Without it every module
	 * of the folder is read (in threads) when a cell has an export removed. */
	const char *const *indexes;
};

struct ksc_compat;

/*
 * Check every module against every kernel: the check engine's loader and modpost views
 * as built (one ksc_check_modules() run per kernel) and as if rebuilt (as_rebuilt), and
 * the changes of each import between the kernel the module was built for (the kernel
 * given whose release equals its vermagic's; none: facts of the target only) and the
 * target. With opts->src, the names its C files use for each target's version decide
 * "fails" from "may-fail". Each kernel needs a release. 0 and *out (ksc_compat_free()),
 * or -EINVAL (a kernel without a release, an unusable policy; logged), -ENOENT and
 * other -errno of reading opts->src (logged), -ENOMEM. The result points into the
 * kernels and modules: free it first.
 */
int ksc_compat_run(struct ksc_kernel *const *kernels, size_t n_kernels,
		   struct ksc_module *const *mods, size_t n_mods,
		   const struct ksc_compat_opts *opts, struct ksc_compat **out);
/* Free a result (a plain value, one owner). Accepts NULL; returns NULL. */
struct ksc_compat *ksc_compat_free(struct ksc_compat *c);
/* Cell (module, kernel), or NULL out of range. Owned by the result. */
const struct ksc_compat_cell *ksc_compat_get_cell(const struct ksc_compat *c, size_t module,
						  size_t kernel);
size_t ksc_compat_get_finding_count(const struct ksc_compat *c);
const struct ksc_compat_finding *ksc_compat_get_finding(const struct ksc_compat *c, size_t i);
/*
 * The check report of kernel `kernel` for the modules as built (rebuilt false) or as if
 * rebuilt: verdict `module` holds the cell's loader and modpost findings. Owned by the
 * result; NULL out of range.
 */
const struct ksc_report *ksc_compat_get_report(const struct ksc_compat *c, size_t kernel,
					       bool rebuilt);
/* The header files read for kernel `kernel` (0 without opts->headers, or when no import
 * was missing there). */
size_t ksc_compat_get_header_file_count(const struct ksc_compat *c, size_t kernel);
/* Kernel `kernel`'s BTF was read (types compared where the other side has one too). */
bool ksc_compat_has_btf(const struct ksc_compat *c, size_t kernel);
/* The files the source scan read for kernel `kernel` (0 without opts->src). */
size_t ksc_compat_get_source_file_count(const struct ksc_compat *c, size_t kernel);

#ifdef __cplusplus
}
#endif

#endif /* KSYMCHECK_REPORT_H */
