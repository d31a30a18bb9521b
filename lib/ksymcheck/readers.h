/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libksymcheck, the readers wing: modules and vmlinux images, Module.symvers, System.map, signatures.
 * Include <ksymcheck.h>, which includes every part in order; its first comment states
 * the conventions that hold for every declaration here.
 */
#ifndef KSYMCHECK_READERS_H
#define KSYMCHECK_READERS_H

#include <ksymcheck/base.h>

#ifdef __cplusplus
extern "C" {
#endif

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
 * -EINVAL when `vmlinux` is not a kernel image. A kernel image's certificates (here and
 * through ksc_keyring_add_path(), ksc_keyring_add_kernel*()) are kept as DER and parsed
 * when first needed: by ksc_keyring_get_count(), ksc_keyring_get_key() or a verification.
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
 * that cannot be written is no error. cache NULL: ksc_keyring_add_kernel(). The keyring
 * then also keeps the verdicts on the module signatures judged with it in the folder
 * CACHE.sigs, and takes them back for the same signed bytes, signature block and keys,
 * byte for byte (no signature verified again, no key parsed); at most 64 new ones a run.
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
 * The signed bytes are hashed while the module is read, with the first SignerInfo's
 * digest algorithm: the bytes read are judged and nothing is read again. Only a
 * SignerInfo with another algorithm reads the file again (hence -ESTALE).
 */
int ksc_module_verify_signature(const struct ksc_module *mod, const struct ksc_keyring *kr,
				const struct ksc_key **key);

#ifdef __cplusplus
}
#endif

#endif /* KSYMCHECK_READERS_H */
