/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libksymcheck, the kernel wing: the rules on their own, the kernel a module is checked against, the catalogue.
 * Include <ksymcheck.h>, which includes every part in order; its first comment states
 * the conventions that hold for every declaration here.
 */
#ifndef KSYMCHECK_KERNEL_H
#define KSYMCHECK_KERNEL_H

#include <ksymcheck/readers.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------- */
/* Rules (doc/rules.md), usable on their own                                         */

/* A kernel version: "6.1.0-57-amd64" -> 6.1.0, "6.12.37" -> 6.12.37, "7.1" -> 7.1.0. */
struct ksc_kver {
	unsigned int major, minor, patch;
};
/* 0, or -EINVAL when `s` does not start with MAJOR.MINOR. */
int ksc_kver_parse(const char *s, struct ksc_kver *v);
/* <0, 0, >0 as v is older than, equal to or newer than major.minor.patch. */
int ksc_kver_cmp(const struct ksc_kver *v, unsigned int major, unsigned int minor,
		 unsigned int patch);

/* R14: include/linux/license.h license_is_gpl_compatible(), exact byte strings. */
bool ksc_license_is_gpl_compatible(const char *license);
/* R7: the namespace starts with the exact bytes "module:" (6.16+ module-restricted). */
bool ksc_namespace_is_module_restricted(const char *ns);

enum ksc_match {
	KSC_MATCH_LOADER = 1,  /* kernel/module/main.c: '-' and '_' compare equal (R9) */
	KSC_MATCH_MODPOST = 2, /* scripts/mod/modpost.c: plain strncmp on the basename */
};
/*
 * R8/R9: does module `name` match the pattern list of the module-restricted namespace `ns`
 * ("module:kvm,kvm-*")? False when `ns` is not module-restricted.
 */
bool ksc_namespace_matches_module(const char *ns, const char *name, enum ksc_match how);

/* ---------------------------------------------------------------------------------- */
/* The kernel a module is checked against                                             */

struct ksc_kernel;

/* Kernel configuration options that change the verdicts. */
enum ksc_kconfig {
	KSC_CONFIG_MODVERSIONS = 0,
	KSC_CONFIG_MODULE_SIG,
	KSC_CONFIG_MODULE_SIG_FORCE,
	KSC_CONFIG_MODULE_FORCE_LOAD,
	KSC_CONFIG_ALLOW_MISSING_NS,      /* CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS */
	KSC_CONFIG_RETPOLINE,             /* CONFIG_RETPOLINE / CONFIG_MITIGATION_RETPOLINE */
	KSC_CONFIG_EXTENDED_MODVERSIONS,
	KSC_CONFIG_BASIC_MODVERSIONS,
	KSC_CONFIG_COUNT
};

/*
 * Distribution patches to the loader that change verdicts. ksc_kernel_open() sets them
 * when it recognises the distribution's kernel package under the root.
 */
enum ksc_quirk {
	/* Debian's "module: Disable matching missing version CRC": a resolved symbol that
	 * __versions does not list fails the load (upstream warns once and goes on). */
	KSC_QUIRK_DEBIAN_MISSING_CRC = 1 << 0,
};

/*
 * Where a kernel's files are under a root: the kernel locator every command uses, so that
 * one root gives one answer. Search orders (doc/kernels.md), "MOD" standing for
 * lib/modules/KVER then usr/lib/modules/KVER:
 *   module folder  MOD
 *   vmlinux        MOD/vmlinux, boot/vmlinux-KVER, usr/lib/debug/boot/vmlinux-KVER,
 *                  usr/lib/debug/lib/modules/KVER/vmlinux, MOD/build/vmlinux (an ELF image
 *                  with code: the BTF-only vmlinux of Debian's headers is skipped)
 *   vmlinuz        MOD/vmlinuz, boot/vmlinuz-KVER
 *   Module.symvers MOD/build/Module.symvers, usr/src/linux-headers-KVER/Module.symvers
 *   System.map     MOD/System.map, boot/System.map-KVER
 *   config         MOD/config, boot/config-KVER, MOD/build/.config
 * Symbolic links are followed inside the root first: an absolute target means
 * ROOT/target. Only what is found nowhere inside the root is looked for as the machine
 * resolves the path (a root made of links to folders elsewhere).
 */
enum ksc_kernel_file {
	KSC_KFILE_MODULE_DIR = 0,
	KSC_KFILE_VMLINUX,
	KSC_KFILE_VMLINUZ,
	KSC_KFILE_SYMVERS,
	KSC_KFILE_SYSTEM_MAP,
	KSC_KFILE_CONFIG,
	KSC_KFILE_COUNT
};
struct ksc_kernel_location;
/*
 * Locate release `release` under `root` (NULL, "" or "/": this machine). `release` NULL:
 * the only release under ROOT/{lib,usr/lib}/modules; else, for this machine, the running
 * kernel's; else -EINVAL, logged with the releases found. 0 and *out = a new location
 * (the caller's: ksc_kernel_location_unref()), or -ENOENT (no module folder, logged),
 * -ENOMEM, -errno of uname().
 */
int ksc_kernel_locate(struct ksc_ctx *ctx, const char *root, const char *release,
		      struct ksc_kernel_location **out);
struct ksc_kernel_location *ksc_kernel_location_ref(struct ksc_kernel_location *loc);
struct ksc_kernel_location *ksc_kernel_location_unref(struct ksc_kernel_location *loc);
/* The release, and the root as given ("/" for this machine). Owned by loc. */
const char *ksc_kernel_location_get_release(const struct ksc_kernel_location *loc);
const char *ksc_kernel_location_get_root(const struct ksc_kernel_location *loc);
/* The file of that kind (resolved inside the root), or NULL when there is none. Owned by
 * loc. */
const char *ksc_kernel_location_get_path(const struct ksc_kernel_location *loc,
					 enum ksc_kernel_file which);
/*
 * The one source of the kernel's own exports: Module.symvers, else the vmlinux, else
 * vmlinuz, else System.map (names only); *which (when not NULL) says which. NULL when
 * there is none. Owned by loc.
 */
const char *ksc_kernel_location_get_exports_path(const struct ksc_kernel_location *loc,
						 enum ksc_kernel_file *which);
/* The image whose built-in keys verify module signatures: vmlinux, else vmlinuz; or NULL. */
const char *ksc_kernel_location_get_image_path(const struct ksc_kernel_location *loc);

/*
 * An empty kernel: add its exports, configuration and release before checking. 0 and
 * *out = a new kernel (the caller's reference: ksc_kernel_unref()), or -ENOMEM.
 */
int ksc_kernel_new(struct ksc_ctx *ctx, struct ksc_kernel **out);
/*
 * The kernel of release `release` under `root`, found by ksc_kernel_locate() (NULL
 * release: as it decides): every module of its module folder is read as a provider; the
 * kernel's own exports come from Module.symvers, else the ELF vmlinux, else vmlinuz (its
 * gzip, xz or zstd payload), whichever is found first and reads; the configuration from
 * the located config. Unreadable modules are reported and skipped (counted in
 * ksc_kernel_get_error_count()). 0 and *out = a new kernel (the caller's reference), or:
 * -ENOENT when there is no module folder or no kernel exports at all, -EINVAL when the
 * release is ambiguous, -errno of uname() or of a file that could not be read, -ENOMEM;
 * each logged. ksc_kernel_open_location() does the same for a location already made.
 */
int ksc_kernel_open(struct ksc_ctx *ctx, const char *root, const char *release,
		    struct ksc_kernel **out);
int ksc_kernel_open_location(struct ksc_ctx *ctx, const struct ksc_kernel_location *loc,
			     struct ksc_kernel **out);
/*
 * The kernel ksc_kernel_open(ctx, root, release) gives, read only as far as checking the
 * `n` modules `mods` (ksc_check_modules()) depends on it, from the files depmod wrote:
 * when modules.dep and modules.symbols of the module folder are current (every module
 * depmod would keep listed, none newer than modules.dep, what is read agreeing with
 * them; asked in modules.dep.bin and modules.symbols.bin first, as modprobe asks them),
 * only the providers of the modules' imports, the files of their names and the
 * files outside kernel/ are read; their verdicts are those of ksc_kernel_open()'s kernel.
 * Its other getters answer for those modules only. 0 and *out, -ESTALE (nothing logged)
 * when depmod's files cannot stand for the tree (then use ksc_kernel_open()), -ENOMEM,
 * -EINVAL. (KSYMCHECK_0.4)
 */
int ksc_kernel_open_for_modules(struct ksc_ctx *ctx, const char *root, const char *release,
				struct ksc_module *const *mods, size_t n,
				struct ksc_kernel **out);
/* ksc_kernel_open_opts()'s flags. */
enum {
	KSC_KERNEL_OPEN_NO_INDEX = 1u << 0,  /* neither read nor write the index */
	KSC_KERNEL_OPEN_NO_DEPMOD = 1u << 1, /* depmod's files not used for `modules` */
};
struct ksc_kernel_open_opts {
	size_t sz;                      /* sizeof(struct ksc_kernel_open_opts) */
	const char *index;              /* the index file to read and keep, or NULL */
	/* or the folder of the indexes: the file named as `ksymcheck tree` names it,
	 * RELEASE-HASH.idx (HASH: of ROOT/lib/modules/RELEASE, ROOT made absolute) */
	const char *index_dir;
	struct ksc_module *const *modules; /* the modules to be checked, or NULL */
	size_t n_modules;
	struct ksc_keyring *keyring;    /* set on the kernel (ksc_kernel_set_keyring()) */
	/* called while every module of the tree is read (phase "read") */
	void (*progress)(void *data, const char *phase, size_t done, size_t total);
	void *progress_data;
	unsigned int jobs;              /* threads reading modules; 0: one per CPU */
	unsigned int flags;             /* KSC_KERNEL_OPEN_* */
};
/*
 * ksc_kernel_open()'s kernel, read the cheapest way that gives the same verdicts, as
 * libkmod decides between its indexes and the files: with `modules`, from depmod's
 * files when they are current (ksc_kernel_open_for_modules()); else every module, each
 * one from the index's record when the index read that very file (size, inode, times),
 * the others read (in threads) and the index written again for the next run. opts may
 * be NULL (no index, no modules). 0 and *out, or ksc_kernel_open()'s errors; a failure
 * to write the index is no error. (KSYMCHECK_0.5)
 */
int ksc_kernel_open_opts(struct ksc_ctx *ctx, const char *root, const char *release,
			 const struct ksc_kernel_open_opts *opts, struct ksc_kernel **out);
/*
 * The same in two steps, so that the modules to check come from the same place as their
 * kernel: a root opened once (the kernel located once, its module folder walked once,
 * the index's table by name read once) gives both the modules and the kernel. kmod's
 * model: the library, not the caller, decides whether a module comes from the index or
 * from its file.
 *
 * ksc_kernel_root_new() locates the kernel, walks its module folder (depmod's search) and
 * opens the index as ksc_kernel_open_opts() does (opts as there, copied; `modules` is not
 * used; progress_data must live until ksc_kernel_root_free(); the keyring is referenced).
 * A root that cannot be located is no error here: what locating and walking logs is held
 * and said by ksc_kernel_root_open_kernel(), which returns the error, so that the messages
 * of the modules read in between come first. 0 and *out (the caller's:
 * ksc_kernel_root_free()), -EINVAL, -ENOMEM.
 *
 * ksc_kernel_root_read_module() gives the module at `path` as
 * ksc_module_new_from_module_path() reads it, messages included, its path `path`: when
 * `path` reaches (through any link) a file the walk kept in the module folder (the same
 * device and inode, size and times) and the index holds its record read from that very
 * file (size, inode, modification and change times, its bytes when the change time was
 * too recent), from the record, the file not read; else from the file. 0 and *out, or
 * ksc_module_new_from_module_path()'s errors.
 *
 * ksc_kernel_root_open_kernel() gives ksc_kernel_open_opts()'s kernel for the `n`
 * modules `mods` (n 0: the whole tree), once per root. 0 and *out, or
 * ksc_kernel_open_opts()'s errors (-EINVAL when called again). (KSYMCHECK_0.6)
 */
struct ksc_kernel_root;
int ksc_kernel_root_new(struct ksc_ctx *ctx, const char *root, const char *release,
			const struct ksc_kernel_open_opts *opts, struct ksc_kernel_root **out);
int ksc_kernel_root_read_module(struct ksc_kernel_root *kr, const char *path,
				struct ksc_module **out);
int ksc_kernel_root_open_kernel(struct ksc_kernel_root *kr, struct ksc_module *const *mods,
				size_t n, struct ksc_kernel **out);
/* Frees kr (NULL accepted); the modules and the kernel it gave live on. Returns NULL. */
struct ksc_kernel_root *ksc_kernel_root_free(struct ksc_kernel_root *kr);
/* _ref: one more reference, returns k. _unref: drops one, returns NULL. */
struct ksc_kernel *ksc_kernel_ref(struct ksc_kernel *k);
struct ksc_kernel *ksc_kernel_unref(struct ksc_kernel *k);

/*
 * The kernel's own exports (vmlinux): from an image, or the vmlinux rows of a symvers.
 * The exports are copied (the module may be unref'd afterwards). An image also gives the
 * kernel its release (when none is set) and its vermagic (over one taken from a module of
 * the tree). 0 or -ENOMEM.
 */
int ksc_kernel_add_vmlinux(struct ksc_kernel *k, struct ksc_module *vmlinux);
/*
 * Every row of a Module.symvers: vmlinux rows and module rows (providers by owner).
 * Copied (sv may be unref'd afterwards). 0 or -ENOMEM.
 */
int ksc_kernel_add_symvers(struct ksc_kernel *k, const struct ksc_symvers *sv);
/*
 * A module of the tree, as a provider (its exports, license, name). The kernel takes a
 * reference to mod. 0 or -ENOMEM.
 */
int ksc_kernel_add_module(struct ksc_kernel *k, struct ksc_module *mod);
/* The ctx the kernel was made with (no reference taken). */
struct ksc_ctx *ksc_kernel_get_ctx(const struct ksc_kernel *k);
/*
 * The release ("6.1.0-27-amd64") and vermagic of the kernel: _set copies (0 or -ENOMEM),
 * _get returns the kernel's copy, or NULL when unknown.
 */
int ksc_kernel_set_release(struct ksc_kernel *k, const char *release);
const char *ksc_kernel_get_release(const struct ksc_kernel *k);
int ksc_kernel_set_vermagic(struct ksc_kernel *k, const char *vermagic);
const char *ksc_kernel_get_vermagic(const struct ksc_kernel *k);
/*
 * Whether the kernel's loader checks symbol CRCs (CONFIG_MODVERSIONS): 1 or 0 from the
 * configuration, else from the exports (an image's CRC tables; a Module.symvers with a
 * CRC other than 0); -1 when the kernel has no exports yet.
 */
int ksc_kernel_has_modversions(const struct ksc_kernel *k);
/*
 * Read CONFIG_* lines of a .config: every option of enum ksc_kconfig becomes known (set
 * when "=y" or "=m"). 0, or -errno of reading the file (logged as "<path>: <reason>").
 */
int ksc_kernel_read_config(struct ksc_kernel *k, const char *path);
/* Set one option by hand. Cannot fail. */
void ksc_kernel_set_config(struct ksc_kernel *k, enum ksc_kconfig key, bool on);
/* 1 set, 0 not set, -1 unknown (no configuration read). */
int ksc_kernel_get_config(const struct ksc_kernel *k, enum ksc_kconfig key);
/* KSC_QUIRK_* mask. Cannot fail. */
void ksc_kernel_set_quirks(struct ksc_kernel *k, unsigned int quirks);
unsigned int ksc_kernel_get_quirks(const struct ksc_kernel *k);
/* How many exports (vmlinux and modules) and provider modules; how many inputs were bad. */
size_t ksc_kernel_get_export_count(const struct ksc_kernel *k);
size_t ksc_kernel_get_module_count(const struct ksc_kernel *k);
unsigned int ksc_kernel_get_error_count(const struct ksc_kernel *k);
/*
 * A kernel named by one path, whatever its form: a Module.symvers, a vmlinux or bzImage,
 * a root holding exactly one lib/modules/RELEASE (read as ksc_kernel_open does), or such
 * a ROOT/lib/modules/RELEASE directory itself. 0 or -errno (logged as "<path>: <reason>").
 */
int ksc_kernel_open_path(struct ksc_ctx *ctx, const char *path, struct ksc_kernel **out);
/*
 * Every export in the order added (vmlinux and modules), i < ksc_kernel_get_export_count()
 * (NULL otherwise). The record and *owner (when owner is not NULL: "vmlinux" or the
 * module's name) are owned by the kernel and valid until it is changed (ksc_kernel_add_*)
 * or freed.
 */
const struct ksc_export *ksc_kernel_get_export(const struct ksc_kernel *k, size_t i,
					       const char **owner);
/*
 * A provider of `symbol` (vmlinux first), or NULL (also when out of memory building the
 * index). `owner` (may be NULL) gets "vmlinux" or the module. Valid as for _get_export.
 */
const struct ksc_export *ksc_kernel_find_export(const struct ksc_kernel *k, const char *symbol,
						const char **owner);

/*
 * The keys the kernel trusts, for ksc_check_modules(): with a keyring (a reference is
 * taken; NULL removes it) the loader view verifies signatures (an edited signed module is
 * refused with -EKEYREJECTED, one signed by an unknown key taints like an unsigned one);
 * without one, or with an empty one, a well-formed signature is assumed valid.
 */
void ksc_kernel_set_keyring(struct ksc_kernel *k, struct ksc_keyring *kr);
struct ksc_keyring *ksc_kernel_get_keyring(const struct ksc_kernel *k);

/* ---------------------------------------------------------------------------------- */
/* The catalogue of rules and finding codes (doc/rules.md)                            */

/*
 * One rule of doc/rules.md: something the loader, modpost or kmod does, in words. The
 * catalogue is static: every entry and string lives as long as the program; do not free
 * or modify them. Every string is non-NULL except `fix`, which is NULL for a rule that
 * describes and refuses nothing (R1-R4, R6-R9, R14, R19, R24, R26).
 */
struct ksc_rule {
	const char *id;        /* "R16" */
	const char *title;     /* one line: the heading of the rule in doc/rules.md */
	const char *text;      /* what the rule says */
	const char *functions; /* where it is decided, e.g. "resolve_symbol(), find_symbol()" */
	const char *files;     /* the kernel (or kmod) files, e.g. "kernel/module/main.c" */
	const char *versions;  /* the kernel versions it holds for, e.g. "6.16+" */
	const char *example;   /* a short case */
	const char *fix;       /* what to change when it refuses a module, or NULL */
};

/* Where a finding code comes from: the views of ksc_check_modules(), and ksc_audit_kernel(). */
#define KSC_CODE_AUDIT 4u

/*
 * One finding code: the `code` of a struct ksc_diag or struct ksc_audit_finding. A code
 * has one entry per rule it can come from: "gpl-only" and "unresolved" have one for the
 * loader and one for modpost; every other code has one entry.
 */
struct ksc_code {
	const char *code;        /* "gpl-only" */
	unsigned int sources;    /* KSC_VIEW_LOADER, KSC_VIEW_MODPOST, KSC_CODE_AUDIT, or'ed */
	const char *rule;        /* the id of its rule, e.g. "R16" */
	unsigned int severities; /* (1u << KSC_SEV_x) for each severity it can have */
	const char *summary;     /* one line */
	const char *fix;         /* a hint, or NULL: the rule's fix */
};

/* The rules, in their order (R1, R2, ...): entry i, or NULL when i >= the count. */
size_t ksc_rule_get_count(void);
const struct ksc_rule *ksc_rule_get(size_t i);
/* The rule with this id ("R16"; the 'R' in either case), or NULL when there is none. */
const struct ksc_rule *ksc_rule_lookup(const char *id);
/* The finding codes, sorted by code: entry i, or NULL when i >= the count. */
size_t ksc_code_get_count(void);
const struct ksc_code *ksc_code_get(size_t i);
/*
 * The first entry of `code` whose sources include one of `sources` (0: any source), or
 * NULL when there is none. For every entry of a code, walk ksc_code_get() from there.
 */
const struct ksc_code *ksc_code_lookup(const char *code, unsigned int sources);

#ifdef __cplusplus
}
#endif

#endif /* KSYMCHECK_KERNEL_H */
