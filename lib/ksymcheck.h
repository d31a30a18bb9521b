/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libksymcheck: read the kernel's own artifacts (modules, vmlinux, Module.symvers,
 * System.map) and tell which exported symbols a module uses and whether Linux allows it.
 *
 * Conventions (the same everywhere in this header):
 *  - Every public name starts with ksc_ / KSC_.
 *  - Objects (struct ksc_ctx, struct ksc_module, struct ksc_symvers, struct ksc_sysmap,
 *    struct ksc_kernel, struct ksc_src, ...) are opaque and reference counted. A function
 *    that creates one (_new..., _open) stores it in its `out` argument with one reference,
 *    which the caller owns and gives back with the matching _unref(). _ref() takes one more
 *    and returns its argument; _unref() drops one, frees the object with the last one, and
 *    always returns NULL (p = ksc_x_unref(p) leaves no dangling pointer). Both accept NULL.
 *    Every object holds a reference to its ctx. struct ksc_report (ksc_report_unref()) and
 *    struct ksc_srcedit (ksc_srcedit_free()) are plain values with one owner.
 *  - Functions returning int give 0 (or a count) on success and a negative errno on failure;
 *    on failure the `out` argument is NULL (or untouched) and nothing is owed to the caller:
 *      -ENOENT      the file does not exist
 *      -EISDIR      a directory was given where a file was expected
 *      -ENOEXEC     not an ELF file / not a kernel module or vmlinux
 *      -EINVAL      malformed input, or an invalid argument (the log function was told what
 *                   is wrong when it came from a file)
 *      -EOPNOTSUPP  unsupported compression, ELF class or machine
 *      -ENOMEM      out of memory
 *    and, from reading and writing files, the errno of the failing call (-EACCES, -EIO,
 *    -ENOSPC, ...; -EFBIG for a file too large to read).
 *    Every failure caused by a file is also reported through the ctx's log function as one
 *    message of the form "<path>: <reason>".
 *  - Strings and records returned by getters are owned by the object they came from and
 *    stay valid until that object is freed (or, where a comment says so, changed); do not
 *    free or modify them. Getters taking an index return NULL when it is out of range.
 *    What the caller must free is said at each function (e.g. ksc_srcedit_get_result()).
 *  - "Static string": a constant that lives as long as the program.
 *  - Each function below is documented by the comment above it or, for a group of
 *    declarations without a blank line between them, by the comment above the group.
 *  - The library never prints: messages go to the log function (default: errors to
 *    stderr, prefixed "libksymcheck: ").
 */
#ifndef KSYMCHECK_H
#define KSYMCHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KSC_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------------------------- */
/* Context                                                                            */

struct ksc_ctx;

enum ksc_log_priority {
	KSC_LOG_ERR = 3,
	KSC_LOG_WARNING = 4,
	KSC_LOG_INFO = 6,
	KSC_LOG_DEBUG = 7,
};

/*
 * Log callback. `msg` is one complete message without a trailing newline, normally
 * "<path>: <reason>". Called synchronously from the library function that hit the problem.
 */
typedef void (*ksc_log_fn)(void *data, int priority, const char *msg);

/*
 * Create a context, with one reference for the caller (ksc_unref()); objects made with it
 * hold their own, so it may be unref'd before them. Returns NULL only when out of memory.
 * _ref: one more reference, returns ctx. _unref: drops one, returns NULL.
 */
struct ksc_ctx *ksc_new(void);
struct ksc_ctx *ksc_ref(struct ksc_ctx *ctx);
struct ksc_ctx *ksc_unref(struct ksc_ctx *ctx);
/*
 * Replace the log function (fn NULL: discard every message). `data` is passed to fn as
 * is; the ctx does not own it. Cannot fail.
 */
void ksc_set_log_fn(struct ksc_ctx *ctx, ksc_log_fn fn, void *data);
/*
 * Messages with a priority numerically above `priority` are dropped (default KSC_LOG_ERR).
 * Cannot fail; _get returns the current value.
 */
void ksc_set_log_priority(struct ksc_ctx *ctx, int priority);
int ksc_get_log_priority(const struct ksc_ctx *ctx);

/* Compiled-in features, e.g. "+XZ +ZSTD +ZLIB +LIBELF". Static string. */
const char *ksc_get_features(void);

/* ---------------------------------------------------------------------------------- */
/* Modules and vmlinux images                                                         */

struct ksc_module;

enum ksc_compression {
	KSC_COMPRESSION_NONE = 0,
	KSC_COMPRESSION_GZIP,
	KSC_COMPRESSION_XZ,
	KSC_COMPRESSION_ZSTD,
};
/* "none", "gzip", "xz", "zstd" ("unknown" for another value). Static string. */
const char *ksc_compression_name(enum ksc_compression c);

enum ksc_module_kind {
	KSC_KIND_MODULE = 1, /* ET_REL loadable module (.ko) */
	KSC_KIND_VMLINUX,    /* ET_EXEC / ET_DYN kernel image */
};

/*
 * How the export table is laid out (struct kernel_symbol, include/linux/export.h; doc/rules.md
 * R3). The reader detects this from
 * relocation types (modules) or by validating every entry (vmlinux).
 */
enum ksc_export_layout {
	KSC_LAYOUT_NONE = 0,      /* no __ksymtab* sections */
	KSC_LAYOUT_PTR2,          /* absolute pointers {value, name} (<= 5.3) */
	KSC_LAYOUT_PTR3,          /* absolute pointers {value, name, namespace} (5.4+) */
	KSC_LAYOUT_PREL32_2,      /* 32-bit self-relative {value, name} (4.19 - 5.3) */
	KSC_LAYOUT_PREL32_3,      /* 32-bit self-relative {value, name, namespace} (5.4+) */
};
/* "none", "ptr2", "ptr3", "prel32-2", "prel32-3" ("unknown" for another value). Static string. */
const char *ksc_export_layout_name(enum ksc_export_layout l);

/* One exported symbol. Owned by the module (or symvers) it came from. */
struct ksc_export {
	const char *name;
	const char *ns;      /* namespace; "" when none. "module:..." for module-restricted */
	bool gpl_only;       /* in __ksymtab_gpl (<= 7.0) or __kflagstab bit 0 (7.1+) */
	bool has_crc;        /* a __kcrctab entry exists */
	uint32_t crc;
};

enum ksc_bind {
	KSC_BIND_GLOBAL = 1,
	KSC_BIND_WEAK = 2,
};

/* One imported (undefined) symbol, in .symtab order as the loader walks them. */
struct ksc_import {
	const char *name;
	enum ksc_bind bind;
	bool has_crc;        /* listed in __versions */
	uint32_t crc;        /* the 32-bit CRC from __versions */
	bool crc_truncated;  /* the __versions entry's unsigned long does not fit in 32 bits */
	bool has_ext_crc;    /* listed in __version_ext_crcs/__version_ext_names (6.14+) */
	uint32_t ext_crc;
};

/* One entry of __versions or of the extended version tables. */
struct ksc_version {
	const char *name;
	uint64_t crc;        /* the full unsigned long for __versions; u32 for extended */
};

/* One key=value of .modinfo, in file order. */
struct ksc_modinfo {
	const char *key;
	const char *value;
};

/*
 * Read a module or a kernel image (vmlinux, or a bzImage: its payload is decompressed)
 * from `path`: at most 2 GiB, as a file and decompressed, whatever its name. Compressed
 * files (xz, zstd, gzip) are recognised by their magic bytes, whatever their name, and
 * read in pieces. An appended module signature is tolerated.
 * 0 and *out = a new module (the caller's reference: ksc_module_unref()); the file is read
 * whole and not kept open. Errors (*out NULL, logged as "<path>: <reason>"): -ENOENT,
 * -EACCES, ... (cannot open or read), -EISDIR, -EFBIG, -EINVAL (not a regular file, or
 * malformed ELF or tables), -ENOEXEC (empty, not ELF, neither a module nor a kernel image,
 * a compressed stream that is corrupt or holds nothing), -EOPNOTSUPP (ELF class,
 * machine or bzImage compression not supported), -ENOMEM.
 */
int ksc_module_new_from_path(struct ksc_ctx *ctx, const char *path, struct ksc_module **out);
/*
 * The same for a file that must be a module (a module operand, a module found in a
 * folder): at most 256 MiB as a file and decompressed ("PATH: too large (N bytes, limit
 * M)", -EFBIG), and a bzImage header is not unwrapped (kmod does not: the file is not
 * ELF, -ENOEXEC). Every file read or decompressed, by any thread, counts against one
 * budget of 256 MiB while it is read (a thread waits for room), whichever function reads it.
 */
int ksc_module_new_from_module_path(struct ksc_ctx *ctx, const char *path,
				    struct ksc_module **out);
/*
 * The same from memory: `data` is copied (the caller keeps its buffer). `name` is used in
 * messages and as the file name for the names derived from a path (kmod's and modpost's),
 * e.g. "kvm-amd.ko.zst"; NULL: "<memory>". The same errors; -EINVAL also for data NULL.
 */
int ksc_module_new_from_memory(struct ksc_ctx *ctx, const char *name, const void *data,
			       size_t size, struct ksc_module **out);
/* _ref: one more reference, returns mod. _unref: drops one, returns NULL. */
struct ksc_module *ksc_module_ref(struct ksc_module *mod);
struct ksc_module *ksc_module_unref(struct ksc_module *mod);

/* The path (or name) it was read from, owned by mod; its kind; the compression it had. */
const char *ksc_module_get_path(const struct ksc_module *mod);
enum ksc_module_kind ksc_module_get_kind(const struct ksc_module *mod);
enum ksc_compression ksc_module_get_compression(const struct ksc_module *mod);
/* ELF identity: 32 or 64; true for big endian; e_machine. */
int ksc_module_get_elf_class(const struct ksc_module *mod);
bool ksc_module_is_big_endian(const struct ksc_module *mod);
unsigned int ksc_module_get_machine(const struct ksc_module *mod);
/* Size of the uncompressed file, and of the appended signature block (0 if none). */
size_t ksc_module_get_size(const struct ksc_module *mod);
size_t ksc_module_get_signature_size(const struct ksc_module *mod);

/*
 * Names (doc/rules.md R4-R6):
 *  _get_name:          the name the loader matches: struct module.name from
 *                      .gnu.linkonce.this_module, else modinfo name=, else the kmod name.
 *  _get_struct_name:   struct module.name, or NULL when the section is absent/unreadable.
 *  _get_modinfo_name:  modinfo name=, or NULL.
 *  _get_kmod_name:     basename cut at the first '.', '-' -> '_' (R6).
 *  _get_modpost_name:  file basename without .ko and compression suffix, '-' kept (R5).
 *  _get_symvers_owner: the module column of Module.symvers: "vmlinux" for a kernel image,
 *                      else the path without ".ko[.gz|.xz|.zst]", relative to the
 *                      lib/modules/<release>/kernel/ folder when the path has one.
 * All owned by the module. Only _get_struct_name and _get_modinfo_name return NULL.
 */
const char *ksc_module_get_name(const struct ksc_module *mod);
const char *ksc_module_get_struct_name(const struct ksc_module *mod);
const char *ksc_module_get_modinfo_name(const struct ksc_module *mod);
const char *ksc_module_get_kmod_name(const struct ksc_module *mod);
const char *ksc_module_get_modpost_name(const struct ksc_module *mod);
const char *ksc_module_get_symvers_owner(const struct ksc_module *mod);
/*
 * Override the Module.symvers owner (copied; a trailing .ko[.gz|.xz|.zst] is removed).
 * 0 or -ENOMEM. A string returned by _get_symvers_owner() before stays valid.
 */
int ksc_module_set_symvers_owner(struct ksc_module *mod, const char *owner);

/*
 * .modinfo: every entry in file order, repeated keys included. Entry i is owned by the
 * module (NULL when i >= the count).
 */
size_t ksc_module_get_modinfo_count(const struct ksc_module *mod);
const struct ksc_modinfo *ksc_module_get_modinfo(const struct ksc_module *mod, size_t i);
/* First value for `key` (as the loader's get_modinfo), or NULL. Owned by the module. */
const char *ksc_module_get_modinfo_value(const struct ksc_module *mod, const char *key);
/*
 * Iterate the values of a repeated key: start with *iter = 0; returns the next value
 * (owned by the module) or NULL at the end.
 */
const char *ksc_module_next_modinfo_value(const struct ksc_module *mod, const char *key,
					  size_t *iter);
/* modinfo intree= present (any value counts, as for the loader). */
bool ksc_module_is_intree(const struct ksc_module *mod);
/* modinfo vermagic=, or NULL. Owned by the module. */
const char *ksc_module_get_vermagic(const struct ksc_module *mod);
/*
 * The kernel release a vermagic names: its first word ("6.1.0-27-amd64" of "6.1.0-27-amd64
 * SMP mod_unload modversions "), as the kernel builds VERMAGIC_STRING from UTS_RELEASE.
 * Copies it into buf as snprintf() does (NUL-terminated, cut to size - 1 bytes) and
 * returns its length (>= size when cut; 0 when the vermagic starts with a space), or
 * -EINVAL for a NULL vermagic, or a NULL buf with a size.
 */
int ksc_release_from_vermagic(const char *vermagic, char *buf, size_t size);
/*
 * A kernel image's own release (from linux_banner, "Linux version RELEASE (...") and the
 * vermagic its loader compares modules with (VERMAGIC_STRING, e.g. "7.2.13+deb14-amd64 SMP
 * preempt mod_unload "); NULL for a module, or when the image does not show them. Owned by
 * the module. ksc_kernel_add_vmlinux() takes both.
 */
const char *ksc_module_get_image_release(const struct ksc_module *mod);
const char *ksc_module_get_image_vermagic(const struct ksc_module *mod);

/*
 * Undefined symbols (imports) in .symtab order. Records owned by the module; _get_import
 * returns NULL when i >= the count, _find_import when `name` is not imported.
 */
size_t ksc_module_get_import_count(const struct ksc_module *mod);
const struct ksc_import *ksc_module_get_import(const struct ksc_module *mod, size_t i);
const struct ksc_import *ksc_module_find_import(const struct ksc_module *mod, const char *name);

/*
 * __versions entries in file order; has_versions tells whether the section exists.
 * Records owned by the module; NULL when i >= the count.
 */
bool ksc_module_has_versions(const struct ksc_module *mod);
size_t ksc_module_get_version_count(const struct ksc_module *mod);
const struct ksc_version *ksc_module_get_version(const struct ksc_module *mod, size_t i);
/* Extended modversions (6.14+): both sections present. Records as for __versions. */
bool ksc_module_has_ext_versions(const struct ksc_module *mod);
size_t ksc_module_get_ext_version_count(const struct ksc_module *mod);
const struct ksc_version *ksc_module_get_ext_version(const struct ksc_module *mod, size_t i);

/*
 * Exports in table order: __ksymtab entries first, then __ksymtab_gpl (<= 7.0). Records
 * owned by the module; NULL when i >= the count, or when `name` is not exported.
 */
size_t ksc_module_get_export_count(const struct ksc_module *mod);
const struct ksc_export *ksc_module_get_export(const struct ksc_module *mod, size_t i);
const struct ksc_export *ksc_module_find_export(const struct ksc_module *mod, const char *name);
enum ksc_export_layout ksc_module_get_export_layout(const struct ksc_module *mod);
/* 7.1+: the module carries __kflagstab. */
bool ksc_module_has_kflagstab(const struct ksc_module *mod);
/* Sections that matter to the loader's checks, e.g. "__ksymtab_gpl" (7.1 obsolete). */
bool ksc_module_has_section(const struct ksc_module *mod, const char *name);

/* Is this file name one kmod treats as a module (.ko, .ko.gz, .ko.xz, .ko.zst)? */
bool ksc_path_is_module_name(const char *path);

/* ---------------------------------------------------------------------------------- */
/* Module.symvers                                                                     */

struct ksc_symvers;

/* Line format. KSC_SYMVERS_5 is what modpost writes since 5.6. */
enum ksc_symvers_format {
	KSC_SYMVERS_5 = 0,     /* crc symbol module type namespace (5.6+) */
	KSC_SYMVERS_5_NS3,     /* crc symbol namespace module type (5.4, 5.5) */
	KSC_SYMVERS_4,         /* crc symbol module type (<= 5.3) */
};

struct ksc_symvers_entry {
	const char *symbol;
	const char *module;    /* "vmlinux" or the module's object path without .ko */
	const char *ns;        /* "" when none */
	const char *type;      /* export type as written, e.g. "EXPORT_SYMBOL_GPL" */
	bool gpl_only;
	uint32_t crc;
	unsigned int line;     /* 1-based line number in the file read, 0 when added */
};

/*
 * Read a Module.symvers. Each malformed line is reported as "<path>:<line>: <reason>" and
 * skipped; the count of skipped lines is ksc_symvers_get_error_count(). Returns 0 when the
 * file was read (even with bad lines) and *out = a new table (the caller's reference:
 * ksc_symvers_unref()); <0 when it could not be read at all: -ENOENT, -EACCES, ...,
 * -EISDIR, -EINVAL (ctx or path NULL; a path that is neither a regular file nor a
 * FIFO), -ENODATA (an empty file: "<path>: empty file: no exports"), -ENOMEM, logged as
 * "<path>: <reason>". A FIFO or pipe is read once, to its end. _from_memory: the same
 * on `size` bytes at `data` (copied; empty is an empty table); `name` (NULL:
 * "(memory)") names it in messages.
 */
int ksc_symvers_new_from_path(struct ksc_ctx *ctx, const char *path, struct ksc_symvers **out);
int ksc_symvers_new_from_memory(struct ksc_ctx *ctx, const char *name, const char *data,
				size_t size, struct ksc_symvers **out);
/* An empty table, to add to and write out: 0 (caller's reference), -EINVAL, -ENOMEM. */
int ksc_symvers_new(struct ksc_ctx *ctx, struct ksc_symvers **out);
/* _ref: one more reference, returns sv. _unref: drops one, returns NULL. */
struct ksc_symvers *ksc_symvers_ref(struct ksc_symvers *sv);
struct ksc_symvers *ksc_symvers_unref(struct ksc_symvers *sv);

/*
 * Entries in file (or insertion) order. Entries and their strings are owned by the table
 * and valid until it is changed (ksc_symvers_add*) or freed; entry i is NULL when
 * i >= the count.
 */
size_t ksc_symvers_get_count(const struct ksc_symvers *sv);
const struct ksc_symvers_entry *ksc_symvers_get(const struct ksc_symvers *sv, size_t i);
/* First entry for `symbol`, or NULL. Valid as ksc_symvers_get()'s. */
const struct ksc_symvers_entry *ksc_symvers_find(const struct ksc_symvers *sv,
						 const char *symbol);
/* Lines skipped when reading (each was logged). */
unsigned int ksc_symvers_get_error_count(const struct ksc_symvers *sv);
/* The format detected when reading (KSC_SYMVERS_5 for an empty or new table). */
enum ksc_symvers_format ksc_symvers_get_format(const struct ksc_symvers *sv);

/*
 * Add one entry (strings copied; type derived from gpl_only when NULL). 0, -EINVAL (an
 * empty symbol or module, a tab or newline in a field, a type modpost does not write),
 * -ENOMEM.
 */
int ksc_symvers_add(struct ksc_symvers *sv, const struct ksc_symvers_entry *e);
/*
 * Add every export of a module or vmlinux, owner ksc_module_get_symvers_owner(); the
 * module is not referenced afterwards. 0, -EINVAL (a name that cannot be written: then
 * nothing is added), -ENOMEM.
 */
int ksc_symvers_add_module(struct ksc_symvers *sv, const struct ksc_module *mod);

/*
 * Format one entry exactly as modpost's write_dump() does for `fmt`, including the
 * trailing newline, into buf (NUL-terminated). Returns the length that was needed (like
 * snprintf), or -EINVAL (also for a field with a control character: no line holds it).
 */
int ksc_symvers_format_entry(const struct ksc_symvers_entry *e, enum ksc_symvers_format fmt,
			     char *buf, size_t size);
/* Write every entry, in order, to a stream. 0, -EINVAL, or -errno of the stream (-ENOSPC, -EIO). */
int ksc_symvers_write(const struct ksc_symvers *sv, enum ksc_symvers_format fmt, FILE *f);
/*
 * Write to a path atomically (temporary file in the same folder, then rename). 0, or the
 * -errno of the failing step (-EACCES, -ENOSPC, ...; -EINVAL for NULL arguments;
 * -EMEDIUMTYPE when path is a device, a FIFO, a socket or a folder: never replaced),
 * logged as "<path>: <reason>"; on failure the file is left as it was and the temporary
 * removed. An existing file keeps its permission bits.
 */
int ksc_symvers_write_file(const struct ksc_symvers *sv, enum ksc_symvers_format fmt,
			   const char *path);

/* ---------------------------------------------------------------------------------- */
/* System.map                                                                         */

struct ksc_sysmap;

/*
 * Read a System.map ("<hex address> <type> <symbol>" per line). Exported symbols are those
 * with a __ksymtab_<name> label (the 5.4 form __ksymtab_<name>.<NS> included). Malformed
 * lines are reported as "<path>:<line>: <reason>" and skipped (counted by
 * ksc_sysmap_get_error_count()). 0 and *out = a new map (the caller's reference:
 * ksc_sysmap_unref()); or -ENOENT, -EACCES, ... (cannot read), -EINVAL (empty, or no
 * symbol line at all: not a System.map), -ENOMEM, logged as "<path>: <reason>".
 * _from_memory: the same on `size` bytes at `data`; `name` names it in messages.
 */
int ksc_sysmap_new_from_path(struct ksc_ctx *ctx, const char *path, struct ksc_sysmap **out);
int ksc_sysmap_new_from_memory(struct ksc_ctx *ctx, const char *name, const char *data,
			       size_t size, struct ksc_sysmap **out);
/* _ref: one more reference, returns sm. _unref: drops one, returns NULL. */
struct ksc_sysmap *ksc_sysmap_ref(struct ksc_sysmap *sm);
struct ksc_sysmap *ksc_sysmap_unref(struct ksc_sysmap *sm);
/* Every symbol line read. */
size_t ksc_sysmap_get_symbol_count(const struct ksc_sysmap *sm);
/*
 * Exported names, in file order, without duplicates; owned by the map (NULL when
 * i >= the count). Then: is `name` exported; how many lines were skipped.
 */
size_t ksc_sysmap_get_export_count(const struct ksc_sysmap *sm);
const char *ksc_sysmap_get_export(const struct ksc_sysmap *sm, size_t i);
bool ksc_sysmap_has_export(const struct ksc_sysmap *sm, const char *name);
unsigned int ksc_sysmap_get_error_count(const struct ksc_sysmap *sm);

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
 * them), only the providers of the modules' imports, the files of their names and the
 * files outside kernel/ are read; their verdicts are those of ksc_kernel_open()'s kernel.
 * Its other getters answer for those modules only. 0 and *out, -ESTALE (nothing logged)
 * when depmod's files cannot stand for the tree (then use ksc_kernel_open()), -ENOMEM,
 * -EINVAL. (KSYMCHECK_0.4)
 */
int ksc_kernel_open_for_modules(struct ksc_ctx *ctx, const char *root, const char *release,
				struct ksc_module *const *mods, size_t n,
				struct ksc_kernel **out);
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
/* Free a report (one owner, no _ref). Accepts NULL; returns NULL. */
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

/* ---------------------------------------------------------------------------------- */
/* Sources: export and import macros as written in C, and rewriting them              */

/*
 * A scan of C sources (.c, .h, .S) for what ends up in the export tables and .modinfo:
 * EXPORT_SYMBOL, _GPL, _NS, _NS_GPL, EXPORT_SYMBOL_GPL_FOR_MODULES (6.16),
 * EXPORT_SYMBOL_FOR_MODULES (6.17+), EXPORT_SYMBOL_FOR_KVM[_INTERNAL] (6.19+),
 * MODULE_IMPORT_NS, MODULE_LICENSE, and DEFAULT_SYMBOL_NAMESPACE (a #define in the file,
 * or -DDEFAULT_SYMBOL_NAMESPACE= in the folder's Kbuild/Makefile ccflags-y,
 * subdir-ccflags-y or CFLAGS_<obj>.o). Both namespace spellings are read: identifiers
 * (5.4 - 6.12) and string literals (6.13+) (doc/rules.md R1, R2).
 *
 * The scanner is a small C lexer: comments, string and character literals and line
 * continuations are handled, macro arguments may spread over lines, and a use inside a
 * #define body or another directive is not an export. It does not evaluate #if: an
 * export under "#ifdef CONFIG_X" is reported whatever the configuration.
 */
struct ksc_src;

enum ksc_src_kind {
	KSC_SRC_EXPORT = 1,   /* an EXPORT_SYMBOL* invocation */
	KSC_SRC_IMPORT_NS,    /* MODULE_IMPORT_NS(ns) */
	KSC_SRC_LICENSE,      /* MODULE_LICENSE("...") */
	KSC_SRC_DEFAULT_NS,   /* #define / #undef DEFAULT_SYMBOL_NAMESPACE, or a Makefile -D */
	KSC_SRC_MENTION,      /* with KSC_SRC_MENTIONS: a keyword that is none of the above */
};

/* How a namespace is written. */
enum ksc_src_spelling {
	KSC_SRC_SPELL_NONE = 0,  /* no namespace written (none, or taken from the default) */
	KSC_SRC_SPELL_IDENT,     /* an identifier the macro stringifies (5.4 - 6.12) */
	KSC_SRC_SPELL_STRING,    /* one or more string literals (6.13+) */
	KSC_SRC_SPELL_OTHER,     /* anything else, e.g. a macro expression; ns holds its text */
};

/* Why a keyword is not a record (KSC_SRC_MENTION). */
enum ksc_src_mention {
	KSC_SRC_MENTION_NONE = 0,
	KSC_SRC_IN_COMMENT,      /* inside a comment */
	KSC_SRC_IN_STRING,       /* inside a string or character literal */
	KSC_SRC_IN_DEFINE,       /* in a #define (the macro's name or its body) */
	KSC_SRC_IN_DIRECTIVE,    /* in another directive (#ifdef, #undef, ...); in .S a # line */
	KSC_SRC_OTHER_MACRO,     /* part of another identifier, e.g. ACPI_EXPORT_SYMBOL */
	KSC_SRC_NOT_INVOKED,     /* the macro's name without an argument list */
	KSC_SRC_BAD_ARGS,        /* an argument list the macro cannot take */
};

/* One record. Strings are owned by the ksc_src and live as long as it does. */
struct ksc_src_record {
	enum ksc_src_kind kind;
	const char *path;         /* as scanned: the PATH given, joined with the relative path */
	unsigned int line, column; /* 1-based position of the macro's name (column in bytes) */
	const char *macro;        /* the name as written; for Makefile -D the variable name
				   * (e.g. "ccflags-y"); "#define" / "#undef" for directives */
	const char *symbol;       /* KSC_SRC_EXPORT: the exported symbol; else NULL */
	const char *ns;           /* EXPORT: the namespace the export gets ("" none), as stored
				   * in the binary (module:... for FOR_MODULES / FOR_KVM);
				   * IMPORT_NS, DEFAULT_NS: the namespace ("" for #undef); else NULL */
	const char *license;      /* KSC_SRC_LICENSE: the license string; else NULL */
	const char *ns_from;      /* EXPORT with a namespace from DEFAULT_SYMBOL_NAMESPACE:
				   * "path:line" of its #define or Makefile line; else NULL */
	bool gpl_only;            /* EXPORT: _GPL, _NS_GPL and every FOR_MODULES / FOR_KVM */
	enum ksc_src_spelling spelling; /* how the namespace (or the default's value) is written */
	enum ksc_src_mention mention;   /* KSC_SRC_MENTION: why it is not a record */
	/*
	 * DEFAULT_NS #define / #undef after the file's first #include: include/linux/export.h
	 * tests "#ifdef DEFAULT_SYMBOL_NAMESPACE" once, when it is read, so if the includes
	 * before it pulled export.h in, this line no longer decides whether EXPORT_SYMBOL
	 * gets a namespace (it still gives the value when one was defined by then). The
	 * scanner assumes that they did, as linux/module.h and most headers do.
	 */
	bool after_include;
	size_t offset, end;       /* byte range from the macro's name to after its ')' */
	size_t ns_offset, ns_end; /* byte range of the namespace as written (argument, #define
				   * value, -D value); both 0 when there is none */
};

#define KSC_SRC_MENTIONS 0x1u /* also report keywords that are not records */

struct ksc_src_opts {
	size_t sz;                   /* sizeof(struct ksc_src_opts) */
	unsigned int flags;          /* KSC_SRC_* */
	unsigned int threads;        /* folders are scanned by this many threads; 0: one per CPU */
	const char *kvm_sub_modules; /* R1: KVM_SUB_MODULES for EXPORT_SYMBOL_FOR_KVM*; NULL:
				      * "kvm-amd,kvm-intel" (x86 with both vendor modules =m) */
};

/*
 * An empty scan. `opts` NULL: defaults. 0 and *out = a new scan (the caller's reference:
 * ksc_src_unref()), -EINVAL (bad arguments or opts), -ENOMEM. _ref: one more reference,
 * returns src; _unref: drops one, returns NULL.
 */
int ksc_src_new(struct ksc_ctx *ctx, const struct ksc_src_opts *opts, struct ksc_src **out);
struct ksc_src *ksc_src_ref(struct ksc_src *src);
struct ksc_src *ksc_src_unref(struct ksc_src *src);
/*
 * Scan a file, or every .c, .h and .S file below a folder (symbolic links inside it are
 * not followed, as grep -r). Each folder's Kbuild (else Makefile) is read for its
 * DEFAULT_SYMBOL_NAMESPACE flags; a file given alone gets those of its own folder. The
 * records of one call come in path order (bytes), then file order. Unreadable files are
 * reported as "<path>: <reason>", counted and skipped. Returns the number of files
 * scanned, or -errno when `path` itself cannot be read.
 */
int ksc_src_add_path(struct ksc_src *src, const char *path);
/*
 * Scan one file's bytes (copied as needed); the language follows `name` (.S: assembler).
 * Returns 1 (one file scanned), -EINVAL (name NULL, or data NULL with a size), -ENOMEM.
 */
int ksc_src_add_memory(struct ksc_src *src, const char *name, const char *data, size_t size);
/*
 * The records found so far. Record i is owned by the scan (NULL when i >= the count); the
 * pointer is valid until the next ksc_src_add_*() or ksc_src_unref(), its strings as long
 * as the scan.
 */
size_t ksc_src_get_record_count(const struct ksc_src *src);
const struct ksc_src_record *ksc_src_get_record(const struct ksc_src *src, size_t i);
/* Files read (all of them, with or without records), and files that could not be read. */
size_t ksc_src_get_file_count(const struct ksc_src *src);
unsigned int ksc_src_get_error_count(const struct ksc_src *src);
/* "export", "import_ns", "license", "default_ns", "mention". Static string. */
const char *ksc_src_kind_name(enum ksc_src_kind kind);
/* "none", "identifier", "string", "other". Static string. */
const char *ksc_src_spelling_name(enum ksc_src_spelling s);
/* "comment", "string", "define", "directive", "other-macro", "not-invoked", "bad-args". */
const char *ksc_src_mention_name(enum ksc_src_mention m);

/*
 * One source file and changes planned to it, applied all at once. The file is read once
 * (ksc_srcedit_new_from_path); every edit is a byte range of that content, so only the
 * intended bytes change. Plain value: freed with ksc_srcedit_free().
 */
struct ksc_srcedit;

/* Something a planner could not (or must not) change, with the reason. Owned by the edit. */
struct ksc_srcedit_note {
	unsigned int line;
	const char *text;
};

/*
 * Read a source file: 0 and *out = a new edit (the caller frees it with
 * ksc_srcedit_free()), or -EINVAL (NULL arguments, not a regular file), -EISDIR, the
 * -errno of open or read (-ENOENT, -EACCES, ...), -ENOMEM; logged as "<path>: <reason>".
 */
int ksc_srcedit_new_from_path(struct ksc_ctx *ctx, const char *path, struct ksc_srcedit **out);
/* The same on bytes in memory (copied); `path` names it (and picks the language). */
int ksc_srcedit_new_from_memory(struct ksc_ctx *ctx, const char *path, const char *data,
				size_t size, struct ksc_srcedit **out);
/* Free an edit and everything it owns. Accepts NULL; returns NULL. */
struct ksc_srcedit *ksc_srcedit_free(struct ksc_srcedit *e);
/* The path given. Owned by the edit. */
const char *ksc_srcedit_get_path(const struct ksc_srcedit *e);
/* The content as read. Owned by the edit. */
const char *ksc_srcedit_get_data(const struct ksc_srcedit *e, size_t *size);
/*
 * Replace `length` bytes at `offset` of the content as read with `text` (an insertion
 * when length is 0; `text` is copied). 0, -EINVAL when the range is outside the file or
 * overlaps an earlier edit (two insertions at one offset keep their order), -ENOMEM.
 */
int ksc_srcedit_replace(struct ksc_srcedit *e, size_t offset, size_t length, const char *text);
/*
 * How many edits are planned; the notes of the planners (note i owned by the edit, NULL
 * when i >= the count).
 */
size_t ksc_srcedit_get_edit_count(const struct ksc_srcedit *e);
size_t ksc_srcedit_get_note_count(const struct ksc_srcedit *e);
const struct ksc_srcedit_note *ksc_srcedit_get_note(const struct ksc_srcedit *e, size_t i);

/*
 * Plan what kernel `kver` needs (R1, R2): EXPORT_SYMBOL_GPL_FOR_MODULES (6.16, and the
 * 6.6.y / 6.12.y backport) <-> EXPORT_SYMBOL_FOR_MODULES (6.17+); namespaces of
 * EXPORT_SYMBOL_NS*, MODULE_IMPORT_NS and DEFAULT_SYMBOL_NAMESPACE (#define, Makefile -D)
 * as identifiers (< 6.13) or string literals (6.13+). What cannot be written for `kver`
 * (a namespace that is no identifier, a macro-valued namespace, FOR_MODULES before 6.16,
 * FOR_KVM before 6.19, an explicit module: import on 6.16+) becomes a note. Returns the
 * number of edits added, or -errno (-EINVAL: `kver` is not a kernel version).
 */
int ksc_srcedit_plan_migrate(struct ksc_srcedit *e, const char *kver);
/*
 * Plan MODULE_IMPORT_NS lines for the namespaces in `ns` that the file does not import yet,
 * in `kver`'s syntax, as make nsdeps would: next to the existing imports, keeping them in
 * byte order, or else on the lines after MODULE_LICENSE(). Never a module: namespace (R11):
 * those become notes, as do namespaces that cannot be written for `kver` (no identifier
 * before 6.13; none at all before 5.4) and lines whose place is inside a comment, string,
 * directive or macro call. Existing imports are not moved (scripts/nsdeps also gathers
 * scattered ones into one sorted block). Returns the number of lines added, -ENOENT when
 * the file has no MODULE_LICENSE(), -EINVAL for a bad `kver`.
 */
int ksc_srcedit_plan_imports(struct ksc_srcedit *e, const char *kver, const char *const *ns,
			     size_t n);

/*
 * The content with every edit applied, in *data (malloc'ed, NUL-terminated; the caller
 * frees it with free()) and its length in *size. 0, -EINVAL, -ENOMEM.
 */
int ksc_srcedit_get_result(const struct ksc_srcedit *e, char **data, size_t *size);
/*
 * Write the changes as a unified diff (3 lines of context) with the labels "a/PATH" and
 * "b/PATH" (PATH without a leading "./"; absolute paths are used as they are). A PATH with
 * a space, a control character, '"', '\\' or a byte above 0x7f is written in double
 * quotes with C escapes, as git writes it (GNU patch and git apply read both forms).
 * Nothing is written when there are no edits. 0 or -errno of the stream.
 */
int ksc_srcedit_write_diff(const struct ksc_srcedit *e, FILE *f);
/*
 * The same with `name` as PATH instead of the path the edit was made from: the file's
 * path relative to the folder in which `patch -p1` is to apply the diff. NULL: the path
 * given. -EINVAL also for an empty `name`.
 */
int ksc_srcedit_write_diff_as(const struct ksc_srcedit *e, const char *name, FILE *f);

struct ksc_srcedit_commit_opts {
	size_t sz;                 /* sizeof(struct ksc_srcedit_commit_opts) */
	/*
	 * Called after the new content is written and synced to the temporary file, right
	 * before the original is checked and replaced; a negative return cancels (that value
	 * is returned). NULL: none.
	 */
	int (*before_replace)(void *data, const char *path, const char *tmp_path);
	void *data;
	/*
	 * Called after that last check, right before the switch (for tests of an edit made
	 * in that instant). NULL: none.
	 */
	void (*after_check)(void *data, const char *path);
};

/*
 * Replace the file with the edited content, atomically: a temporary file in the same
 * folder gets the new bytes, the original's permission bits and (where allowed) owner and
 * group, and is fsync'ed; right before the rename the original must still have the
 * inode, size, modification time and content (hash) read at the start, else it is left
 * alone. The switch exchanges the two files (renameat2() RENAME_EXCHANGE) and checks the
 * one swapped out once more: an edit made in the instant between is kept, the files
 * swapped back (-ESTALE); where the file system cannot exchange, a plain rename. A
 * symbolic link is left alone (-ELOOP). The new file gets the current time as mtime (build tools must see the change);
 * extended attributes and ACLs are not copied. On any failure the original is untouched
 * and the temporary file removed; the reason is logged as "<path>: <reason>". Returns 0
 * (also with no edits: nothing is written), -EACCES (no write permission bit: read-only
 * files are left alone even for root), -EMLINK (several hard links; replacing would split
 * them), -ESTALE (the file changed since it was read), -EINVAL (an edit made from memory
 * has no file), or the -errno of the failing step (-ENOSPC, -EIO, ...).
 */
int ksc_srcedit_commit(struct ksc_srcedit *e, const struct ksc_srcedit_commit_opts *opts);

/* ---------------------------------------------------------------------------------- */
/* Whole trees: every module of lib/modules/KVER, as depmod sees them, and verdicts    */
/*
 * Owned by lib/tree/ksc-tree.c, lib/tree/ksc-tree-format.c and lib/modset/ksc-modset-index.c.
 *
 * A struct ksc_tree is one kernel's module folder, ROOT/lib/modules/KVER, read the way
 * kmod's depmod reads it (doc/rules.md R26): the same files (every *.ko,
 * *.ko.gz, *.ko.xz, *.ko.zst below it, "build" and "source" skipped, symbolic links
 * followed; of two modules with one name the first found wins unless the other is below
 * updates/), the same order (modules.order, then kmod's hash order), the same symbol
 * resolution and dependency sort, so that ksc_tree_write_depmod() writes the files depmod
 * writes, byte for byte. On top of that every readable module is judged by
 * ksc_check_modules(), each as modprobe would load it into a fresh boot of the tree's
 * kernel (the other modules are its providers), unless opts->no_check.
 *
 * Modules are read in parallel (opts->jobs threads); on a first run (no index) the
 * kernel's exports load on a thread of their own meanwhile, so ctx's log function may be
 * called from that thread, at the same time as from the calling one: it must be
 * thread-safe (the default, and one that calls fprintf(), are).
 * A persistent index (opts->index)
 * keeps what was read, keyed by path, size, modification time and inode, plus the results
 * that depend on the whole tree; the next ksc_tree_open() re-reads only modules that
 * changed and redoes only what their changes affect. An index that is corrupt, truncated,
 * of another format version, another byte order or another tree is reported (warning)
 * and rebuilt: nothing in it is used before its checksum and every offset were checked.
 *
 * Problems with inputs (unreadable or malformed modules, dangling symbolic links,
 * symbolic link loops, unreadable folders) never stop the run: each is logged as
 * "<path>: <reason>" and listed by ksc_tree_get_problem(); the rest is processed.
 *
 * Modules are numbered 0..ksc_tree_get_module_count()-1 in depmod's order (the order of
 * modules.dep). Strings returned are owned by the tree and live as long as it.
 */
struct ksc_tree;

/*
 * Called from the thread that called ksc_tree_open(), now and then, while modules are
 * read (phase "read") and checked (phase "check"): `done` of `total` modules.
 */
typedef void (*ksc_tree_progress_fn)(void *data, const char *phase, size_t done, size_t total);

struct ksc_tree_opts {
	size_t sz;                   /* sizeof(struct ksc_tree_opts) */
	unsigned int jobs;           /* worker threads; 0 = one per CPU the process may use */
	const char *index;           /* index file to read and (ksc_tree_save_index) write; NULL: none */
	/*
	 * The kernel's own exports. When none is given, the first found of:
	 * lib/modules/KVER/build/Module.symvers, usr/src/linux-headers-KVER/Module.symvers,
	 * boot/vmlinux-KVER, usr/lib/debug/boot/vmlinux-KVER, lib/modules/KVER/build/vmlinux,
	 * boot/vmlinuz-KVER, boot/System.map-KVER (only if it lists exports) below ROOT.
	 * Without kernel exports there are no verdicts and no unresolved symbols.
	 */
	const char *symvers;
	const char *vmlinux;         /* vmlinux or bzImage */
	const char *system_map;
	const char *config;          /* default: boot/config-KVER, lib/modules/KVER/build/.config */
	bool no_kernel_search;       /* only the files named above */
	bool set_quirks;             /* use `quirks`; else as ksc_kernel_open() detects them */
	unsigned int quirks;         /* KSC_QUIRK_* */
	bool no_check;               /* no policy verdicts */
	const struct ksc_check_opts *check; /* NULL: defaults (policy: the tree's release) */
	ksc_tree_progress_fn progress;
	void *progress_data;
	/*
	 * Measure each module's read, decompress, parse and check time (the cpu_* of
	 * ksc_tree_get_stats()). Off, those are 0: a clock read per step and module is
	 * not free where the clock is a system call (as in many virtual machines).
	 */
	bool timing;
	/*
	 * The keys the kernel trusts (a reference is taken): the loader view verifies each
	 * module's signature with them, as ksc_kernel_set_keyring() does for
	 * ksc_check_modules(). NULL: a well-formed signature is assumed valid (sig-unverified).
	 */
	struct ksc_keyring *keyring;
};

/*
 * Read the tree ROOT/lib/modules/KVER (root NULL = "/", kver NULL = the running
 * kernel's release). 0, or -ENOENT when the folder does not exist, -EINVAL for bad
 * options (a kver that is not MAJOR.MINOR...), -ENOMEM; every other problem is reported
 * and counted, and the tree is returned.
 */
int ksc_tree_open(struct ksc_ctx *ctx, const char *root, const char *kver,
		  const struct ksc_tree_opts *opts, struct ksc_tree **out);
struct ksc_tree *ksc_tree_ref(struct ksc_tree *t);
struct ksc_tree *ksc_tree_unref(struct ksc_tree *t);

/* The folder read (absolute, as depmod names it: ROOT/lib/modules/KVER) and KVER. */
const char *ksc_tree_get_moddir(const struct ksc_tree *t);
const char *ksc_tree_get_release(const struct ksc_tree *t);
/* Where the kernel's exports were read from, or NULL when none were found. */
const char *ksc_tree_get_kernel_source(const struct ksc_tree *t);

/* The number of modules (one per kmod name, as depmod keeps them). */
size_t ksc_tree_get_module_count(const struct ksc_tree *t);
/* Module i: absolute path, path below the module folder (as in modules.dep), kmod's name. */
const char *ksc_tree_get_module_path(const struct ksc_tree *t, size_t i);
const char *ksc_tree_get_module_relpath(const struct ksc_tree *t, size_t i);
const char *ksc_tree_get_module_name(const struct ksc_tree *t, size_t i);
/* 0, or the -errno the library's reader failed with (the module has no verdict then). */
int ksc_tree_get_module_error(const struct ksc_tree *t, size_t i);
/* True when module i was taken from the index, not read in this run. */
bool ksc_tree_module_is_cached(const struct ksc_tree *t, size_t i);
/*
 * Module i as a struct ksc_module (the caller owns the reference): rebuilt from what was
 * read, without reading the file again. ksc_module_has_section() of such a module knows
 * only the kernel's tables (__ksymtab*, __kcrctab*, __kflagstab, __versions,
 * __version_ext_*, .modinfo, .gnu.linkonce.this_module, .symtab). -ENOEXEC when the
 * module could not be read, -ERANGE for a bad index.
 */
int ksc_tree_get_module(const struct ksc_tree *t, size_t i, struct ksc_module **out);

/*
 * Dependencies, as depmod resolves them: direct ones in the order depmod found them
 * (the first symbol that needed each), and with _get_all_deps every module needed
 * directly or not, in modules.dep order. _get_all_deps writes at most n indices to buf
 * and returns how many there are (or (size_t)-1 when out of memory).
 */
size_t ksc_tree_get_dep_count(const struct ksc_tree *t, size_t i);
size_t ksc_tree_get_dep(const struct ksc_tree *t, size_t i, size_t j);
size_t ksc_tree_get_all_deps(const struct ksc_tree *t, size_t i, size_t *buf, size_t n);

/* Symbols no module and not the kernel exports (depmod -e's "needs unknown symbol"). */
enum ksc_tree_unresolved_kind {
	KSC_TREE_UNKNOWN_SYMBOL = 1, /* "%s needs unknown symbol %s" */
	KSC_TREE_CRC_DIFFERS = 2,    /* "%s disagrees about version of symbol %s" (Module.symvers) */
};
struct ksc_tree_unresolved {
	size_t module;
	const char *symbol;
	enum ksc_tree_unresolved_kind kind;
};
/* Only with kernel exports; weak symbols are never listed (as depmod). */
size_t ksc_tree_get_unresolved_count(const struct ksc_tree *t);
const struct ksc_tree_unresolved *ksc_tree_get_unresolved(const struct ksc_tree *t, size_t i);

/*
 * Dependency cycles (depmod: "Cycle detected: a -> b -> a"): cycle i has n modules;
 * *mods (owned by the tree) lists them in dependency order, each once (the first
 * depends on the second, ..., the last on the first).
 */
size_t ksc_tree_get_cycle_count(const struct ksc_tree *t);
size_t ksc_tree_get_cycle(const struct ksc_tree *t, size_t i, const size_t **mods);

/*
 * Verdicts (ksc_check_modules() per module). NULL when module i has none (unreadable,
 * no kernel exports, or opts->no_check). In the verdict, `module` is NULL; diag indices
 * and module_index refer to the tree.
 */
bool ksc_tree_has_verdicts(const struct ksc_tree *t);
const char *ksc_tree_get_policy(const struct ksc_tree *t);
const struct ksc_module_verdict *ksc_tree_get_verdict(const struct ksc_tree *t, size_t i);
size_t ksc_tree_get_diag_count(const struct ksc_tree *t);
const struct ksc_diag *ksc_tree_get_diag(const struct ksc_tree *t, size_t i);

/* Problems with inputs, sorted by path; each was also logged as "<path>: <reason>". */
struct ksc_tree_problem {
	const char *path;
	const char *reason;
	int err;                     /* -errno */
};
/* The problems, counted and one at a time (NULL past the end). */
size_t ksc_tree_get_problem_count(const struct ksc_tree *t);
const struct ksc_tree_problem *ksc_tree_get_problem(const struct ksc_tree *t, size_t i);

/* depmod's files. */
enum ksc_depmod_file {
	KSC_DEPMOD_DEP = 1 << 0,      /* modules.dep */
	KSC_DEPMOD_SYMBOLS = 1 << 1,  /* modules.symbols */
	KSC_DEPMOD_ALIAS = 1 << 2,    /* modules.alias */
	KSC_DEPMOD_SOFTDEP = 1 << 3,  /* modules.softdep */
	KSC_DEPMOD_DEVNAME = 1 << 4,  /* modules.devname */
	KSC_DEPMOD_ALL = (1 << 5) - 1,
};
/* The file name of one KSC_DEPMOD_* value ("modules.dep"), or NULL. Static string. */
const char *ksc_depmod_file_name(unsigned int file);
/*
 * Write the files in `what` into `dir` (NULL: the module folder), each atomically: a
 * temporary file in `dir`, fsync, rename over the old one (whose permission bits it
 * keeps); on failure the temporary file is removed and the old file left as it was.
 * None is written when one of them is a device, a FIFO, a socket or a folder
 * (-EMEDIUMTYPE, logged as "DIR/NAME: not a regular file; not replaced"). A file whose content and whose copy on
 * disk are unchanged since the index recorded them is not rewritten. The binary *.bin
 * indexes are not written. A module whose path has a space, a colon or a control
 * character, an alias or softdep value with a control character (a device name with a
 * space) and an exported symbol name with either is left out of the files and logged
 * ("PATH: reason: left out of ..."): such text would split or forge a line (depmod writes
 * it as it is). 0, or the number left out, or -EDEADLK when there are dependency cycles
 * (depmod then writes nothing either; nothing is written), or -errno of the first failure.
 */
int ksc_tree_write_depmod(struct ksc_tree *t, const char *dir, unsigned int what);
/*
 * One file (a single KSC_DEPMOD_* value) to a stream, leaving out what
 * ksc_tree_write_depmod() leaves out. 0, the number left out, or -errno.
 */
int ksc_tree_print_depmod(const struct ksc_tree *t, unsigned int file, FILE *f);

/*
 * Write the index to opts->index (atomically: temporary file + rename; its folder is
 * created). Not rewritten when nothing it holds changed (a few modules only touched, with
 * identical contents, are simply read again next time). An existing file keeps its
 * permission bits; a device, a FIFO, a socket or a folder is never replaced
 * (-EMEDIUMTYPE, logged as "PATH: not a regular file; not replaced"). 0 or -errno.
 */
int ksc_tree_save_index(struct ksc_tree *t);

enum ksc_tree_index_state {
	KSC_TREE_INDEX_NONE = 0,     /* no index asked for */
	KSC_TREE_INDEX_ABSENT,       /* asked for, not there yet */
	KSC_TREE_INDEX_USED,         /* read and used */
	KSC_TREE_INDEX_REBUILT,      /* corrupt, foreign or unreadable: ignored, rebuilt */
};

/*
 * Where the time went. Times in seconds; cpu_* are the worker threads' time per step,
 * summed, measured only with ksc_tree_opts.timing (else 0). Steps overlap: wall_kernel
 * (the kernel's exports, on a thread of their own on a first run) runs beside the walk
 * and the read; wall_index_load is opening the index, whose check runs inside the
 * walk (wall_walk), beside the folder and module checks.
 */
struct ksc_tree_stats {
	unsigned int jobs;
	enum ksc_tree_index_state index_state;
	size_t modules, read, cached, unreadable, checked;
	uint64_t bytes_read, bytes_decompressed;
	double wall_total, wall_walk, wall_index_load, wall_read, wall_kernel, wall_resolve,
	       wall_check, wall_write_depmod, wall_index_save;
	double cpu_read, cpu_decompress, cpu_parse, cpu_check;
};
/* Fill *st with the numbers of the ksc_tree_open() (and later calls) of `t`. */
void ksc_tree_get_stats(const struct ksc_tree *t, struct ksc_tree_stats *st);

/*
 * The kernel ksc_kernel_open(ctx, root, kver) would give for the tree's root and release
 * (the tree opened without options naming the kernel's files), made from what the tree
 * read or found in its index instead of reading every module again: the same modules
 * (depmod's choice of file per name, and the file each replaced), exports, vermagic,
 * configuration and quirks, the module paths written under root as given. 0; -ENODATA
 * when the tree cannot stand for that kernel (a problem was met, a symbolic link walked,
 * exports from System.map or none, files named by options): use ksc_kernel_open();
 * -ENOMEM.
 */
int ksc_tree_get_kernel(struct ksc_tree *t, struct ksc_ctx *ctx, struct ksc_kernel **out);

/*
 * Call fn for every module file (by name, ksc_path_is_module_name()) below `dir`, sorted,
 * following symbolic links, skipping the top-level names in `skip` (NULL-terminated, may
 * be NULL). A `dir` that is a file is passed to fn as it is. Problems are logged as
 * "<path>: <reason>" and counted in *errors. Stops early only when fn returns <0 and
 * returns that value; else 0, or -errno when `dir` itself cannot be read (logged).
 */
typedef int (*ksc_walk_fn)(const char *path, void *data);
int ksc_walk_modules(struct ksc_ctx *ctx, const char *dir, const char *const *skip,
		     ksc_walk_fn fn, void *data, unsigned int *errors);

/* ---------------------------------------------------------------------------------- */
/* Module signatures and the certificates that verify them                            */
/*
 * Owned by lib/readers/ksc-sig.c.
 *
 * A signed module ends with the block scripts/sign-file appends: the signature, struct
 * module_signature (12 bytes: algo, hash, id_type, signer_len, key_id_len, 3 pad bytes,
 * big-endian sig_len) and the marker "~Module signature appended~\n". Since 4.3 the
 * signature is a DER PKCS#7 (CMS) SignedData with detached content (id_type 2, every
 * other field 0); older kernels stored the signer's name and key id as raw bytes before
 * it (id_type 0 "PGP" or 1 "X509"). A module keeps that block (never the module's bytes:
 * to verify it, the file is read and hashed again).
 */

/* What kmod's modinfo shows of a signature. Owned by the module; valid while it lives. */
struct ksc_signature_info {
	const char *id_type;         /* "PKCS#7", or "X509" / "PGP" (before 4.3) */
	const char *signer;          /* kmod's "signer": PKCS#7: the commonName of the issuer the
				      * first SignerInfo names (for sign-file's self-signed keys,
				      * the certificate's own CN); "" when it names none */
	const unsigned char *key_id; /* kmod's "sig_key": PKCS#7: that certificate's serial
				      * number, big-endian, without sign or leading zero bytes */
	size_t key_id_len;
	const char *hash_algo;       /* kmod's "sig_hashalgo": "sha256", "sha512", ...; "unknown"
				      * for a digest kmod has no name for */
	const unsigned char *sig;    /* kmod's "signature": the signature value (RSA: as long as
				      * the modulus; ECDSA: the DER sequence of r and s) */
	size_t sig_len;
	size_t block_size;           /* the whole appended block, marker included */
};

/*
 * The signature appended to `mod`, decoded as kmod's modinfo decodes it
 * (libkmod-signature.c). Returns 0; -ENODATA when the module is not signed (no marker);
 * -EBADMSG when a block is appended but kmod would show nothing of it (a trailer that does
 * not fit the file, values out of range, PKCS#7 that does not parse or has no signer);
 * -ENOMEM. A module read from an index (no block kept) reads its file again.
 */
int ksc_module_get_signature(const struct ksc_module *mod, struct ksc_signature_info *out);

/* A set of trusted X.509 certificates: the kernel's keys. Reference counted. */
struct ksc_keyring;

/* One certificate of a keyring. Strings owned by the keyring. */
struct ksc_key {
	const char *subject;         /* the subject's commonName (else the whole subject) */
	const char *issuer;          /* the issuer's commonName (else the whole issuer) */
	const char *serial;          /* serial number as kmod prints sig_key: "5E:E1:13:..." */
	const char *key_algo;        /* "rsa", "ec", ... (OpenSSL's short name, lower case) */
	unsigned int bits;           /* key size */
	const char *source;          /* the file (or image, or memory name) it came from */
};

/* An empty keyring. 0, -EINVAL (no ctx) or -ENOMEM. */
int ksc_keyring_new(struct ksc_ctx *ctx, struct ksc_keyring **out);
/* ksc_keyring_new() + ksc_keyring_add_path(); -EINVAL when the file holds no certificate. */
int ksc_keyring_new_from_path(struct ksc_ctx *ctx, const char *path, struct ksc_keyring **out);
struct ksc_keyring *ksc_keyring_ref(struct ksc_keyring *kr);
struct ksc_keyring *ksc_keyring_unref(struct ksc_keyring *kr);
/*
 * Add the certificates of a file: PEM (every CERTIFICATE block; other blocks such as the
 * private key of signing_key.pem are skipped), DER (one certificate, or several one after
 * the other as in certs/x509_certificate_list), or a kernel image (vmlinux, or a bzImage /
 * compressed image, as ksc_module_new_from_path() reads them) whose built-in keys are
 * taken (ksc_keyring_add_vmlinux()). A certificate already in the keyring is not added
 * twice. Returns the number added, or -ENOENT, -EISDIR, -EINVAL (a file that is none of
 * these, logged), -ENOMEM. A kernel image that holds no built-in key (here, through
 * ksc_keyring_add_vmlinux() or ksc_keyring_add_kernel*()) is logged once, at KSC_LOG_ERR
 * though nothing failed, when a signed module is first judged against the keyring:
 * "IMAGE: no built-in key found".
 */
int ksc_keyring_add_path(struct ksc_keyring *kr, const char *path);
/* The same from memory; `name` is used in messages and as the keys' source. */
int ksc_keyring_add_memory(struct ksc_keyring *kr, const char *name, const void *data,
			   size_t size);
/*
 * The kernel's built-in trusted keys (CONFIG_SYSTEM_TRUSTED_KEYS and the module signing
 * key, system_certificate_list in .init.rodata, part of .init.data once linked): the DER
 * X.509 certificates found in the image when it was read. A stripped image has no
 * symbols, so the data sections are scanned for certificates, the init data first (only
 * when none are there, every other allocated data section). Returns the number added;
 * -EINVAL when `vmlinux` is not a kernel image.
 */
int ksc_keyring_add_vmlinux(struct ksc_keyring *kr, const struct ksc_module *vmlinux);
/* How many certificates were found in a kernel image (0 for a module). */
size_t ksc_module_get_certificate_count(const struct ksc_module *vmlinux);
/*
 * The built-in keys of the kernel installed under `root` (NULL = "/"), release `release`
 * (NULL: as ksc_kernel_locate() decides): from the image the kernel locator names
 * (ksc_kernel_location_get_image_path(): a vmlinux with code, else vmlinuz). Returns the
 * number added (0 when that image holds none), -ENOENT when there is no image or no
 * module folder, the locator's other errors.
 */
int ksc_keyring_add_kernel(struct ksc_keyring *kr, const char *root, const char *release);
/*
 * ksc_keyring_add_kernel(), the image's certificates kept in the file `cache` (written
 * atomically; its folder must exist) and taken from it while the image has the same
 * path, size, mtime and inode: a compressed image is not decompressed on every run. A
 * cache that cannot be read, is another image's or does not add up is rewritten; one
 * that cannot be written is no error. cache NULL: ksc_keyring_add_kernel().
 */
int ksc_keyring_add_kernel_cached(struct ksc_keyring *kr, const char *root,
				  const char *release, const char *cache);
size_t ksc_keyring_get_count(const struct ksc_keyring *kr);
const struct ksc_key *ksc_keyring_get_key(const struct ksc_keyring *kr, size_t i);

/*
 * Verify the signature of `mod` as the 6.1+ kernel does at load time (kernel/module/
 * signing.c mod_verify_sig(): the checks of the block, the PKCS#7, and a key of `kr` whose
 * issuer and serial number, or subject key identifier, the SignerInfo names, verifying
 * the signature over the module's bytes before the block). Returns:
 *    0             valid: signed by a key of `kr` (*key, when key is not NULL)
 *   -ENODATA       not signed
 *   -ENOKEY        signed, but by no key of `kr` (the kernel then treats the module as
 *                  unsigned unless signatures are enforced); also when `kr` is NULL or
 *                  empty and the signature is well-formed
 *   -EKEYREJECTED  a key of `kr` matches but the signature does not verify (the module
 *                  was changed after signing, or signed by another key with the same
 *                  issuer and serial); also a PKCS#7 the kernel refuses for modules (not
 *                  of type data, or with authenticated attributes)
 *   -EBADMSG       malformed: the trailer, or a PKCS#7 that does not parse
 *   -ENOPKG        not a PKCS#7 signature (id_type), or algorithms the kernel lacks
 *   -ESTALE        the file changed since it was read; other -errno reading it again
 * The module's file is read again and hashed on first use (the digest is kept).
 */
int ksc_module_verify_signature(const struct ksc_module *mod, const struct ksc_keyring *kr,
				const struct ksc_key **key);

/*
 * The keys the kernel trusts, for ksc_check_modules(): with a keyring (a reference is
 * taken; NULL removes it) the loader view verifies signatures (an edited signed module is
 * refused with -EKEYREJECTED, one signed by an unknown key taints like an unsigned one);
 * without one, or with an empty one, a well-formed signature is assumed valid.
 */
void ksc_kernel_set_keyring(struct ksc_kernel *k, struct ksc_keyring *kr);
struct ksc_keyring *ksc_kernel_get_keyring(const struct ksc_kernel *k);

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
	const struct ksc_export *old, *new; /* NULL when absent on that side */
	const char *old_owner, *new_owner;  /* "vmlinux" or the module's name; NULL if absent */
};

struct ksc_diff;

/*
 * Compare the exports of two kernels (the provider the loader finds first, per name).
 * Changes are sorted by symbol. The diff points into both kernels: free it before them.
 * 0 or -ENOMEM.
 */
int ksc_kernel_diff(struct ksc_kernel *old, struct ksc_kernel *new, struct ksc_diff **out);
void ksc_diff_free(struct ksc_diff *d);
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
void ksc_audit_free(struct ksc_audit *a);
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
void ksc_compat_free(struct ksc_compat *c);
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

#endif /* KSYMCHECK_H */
