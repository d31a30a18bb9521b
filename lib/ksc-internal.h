/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/macro.h"
#include "util/hash.h"
#include "util/pool.h"

#include "ksymcheck.h"

#define KSC_EXPORT __attribute__((visibility("default")))

/* ---- ctx (ksc-ctx.c) ---- */
struct ksc_ctx {
	int refcount;
	ksc_log_fn log_fn;
	void *log_data;
	int log_priority;
};

void ksc_log(struct ksc_ctx *ctx, int priority, const char *fmt, ...) _printf_format_(3, 4);
#define ksc_err(ctx, ...) ksc_log((ctx), KSC_LOG_ERR, __VA_ARGS__)
#define ksc_warn(ctx, ...) ksc_log((ctx), KSC_LOG_WARNING, __VA_ARGS__)
#define ksc_info(ctx, ...) ksc_log((ctx), KSC_LOG_INFO, __VA_ARGS__)
#define ksc_dbg(ctx, ...) ksc_log((ctx), KSC_LOG_DEBUG, __VA_ARGS__)

/* ---- files (ksc-file.c) ---- */

/* A whole file in memory, decompressed. */
struct ksc_blob {
	unsigned char *data;
	size_t size;
	enum ksc_compression compression;
};

/*
 * Read `path` (or take `data` when non-NULL), detect compression by magic and decompress.
 * Errors are logged as "<path>: <reason>". 0 or -errno.
 */
int ksc_blob_load(struct ksc_ctx *ctx, const char *path, const void *data, size_t size,
		  struct ksc_blob *out) _must_check_;
void ksc_blob_free(struct ksc_blob *b);
enum ksc_compression ksc_detect_compression(const unsigned char *p, size_t n);
/* Length of the module without its appended signature ("~Module signature appended~\n"). */
size_t ksc_signature_strip(const unsigned char *p, size_t n, size_t *sig_size);

/*
 * Read a whole plain-text file (Module.symvers, System.map) with one read into a malloc'ed,
 * NUL-terminated buffer; works for /proc files whose size reads as 0. Errors are logged as
 * "<path>: <reason>". 0 or -errno (-ENOENT, -EISDIR, -ENOMEM, ...). Lives in ksc-symvers.c.
 */
int ksc_read_text_file(struct ksc_ctx *ctx, const char *path, char **data,
		       size_t *size) _must_check_;

/* ---- module (ksc-module.c, ksc-elf.c) ---- */
struct ksc_module {
	int refcount;
	struct ksc_ctx *ctx;
	struct pool strings;
	const char *path;
	enum ksc_module_kind kind;
	enum ksc_compression compression;
	int elf_class;
	bool big_endian;
	unsigned int machine;
	size_t size, sig_size;

	const char *struct_name, *kmod_name, *modpost_name, *symvers_owner;

	struct ksc_modinfo *modinfo;
	size_t n_modinfo;

	struct ksc_import *imports;
	size_t n_imports;
	struct hash import_index;

	bool has_versions, has_ext_versions;
	struct ksc_version *versions, *ext_versions;
	size_t n_versions, n_ext_versions;

	struct ksc_export *exports;
	size_t n_exports;
	struct hash export_index;
	enum ksc_export_layout layout;
	bool has_kflagstab;

	const char **sections; /* names of the sections, for ksc_module_has_section */
	size_t n_sections;
};

/* Parse .modinfo bytes into mod->modinfo (replacing it). 0 or -errno (logged). */
int ksc_modinfo_parse(struct ksc_module *mod, const char *p, size_t size) _must_check_;
/* Parse the ELF image in `b` into `mod`. 0 or -errno (logged). */
int ksc_elf_parse_module(struct ksc_module *mod, const struct ksc_blob *b) _must_check_;

/*
 * Call fn for every module file (by name, ksc_path_is_module_name) below `dir`, sorted,
 * following symbolic links, skipping the top-level names in `skip` (NULL-terminated, may
 * be NULL). A `dir` that is a file is passed to fn as it is. Problems are logged as
 * "<path>: <reason>" and counted in *errors. Stops early only when fn returns <0.
 */
typedef int (*ksc_walk_fn)(const char *path, void *data);
int ksc_walk_modules(struct ksc_ctx *ctx, const char *dir, const char *const *skip,
		     ksc_walk_fn fn, void *data, unsigned int *errors);

/* ---- kernel (ksc-kernel.c) ---- */
struct kowner {
	const char *name;          /* the loader's name: struct module name, or from the owner path */
	struct ksc_module *module; /* when read from a .ko; NULL for Module.symvers owners */
	bool proprietary;          /* license not GPL-compatible (R15): TAINT_PROPRIETARY_MODULE */
};

struct kprov {
	struct ksc_export exp;
	struct kowner *owner;      /* NULL: vmlinux */
	size_t next;               /* next provider of the same name + 1, 0 = none */
};

struct ksc_kernel {
	int refcount;
	struct ksc_ctx *ctx;
	struct pool strings;
	struct kprov *provs;
	size_t n_provs, cap_provs;
	struct kowner **owners;
	size_t n_owners, cap_owners;
	struct hash index, owner_index;
	bool index_dirty, has_vmlinux, crcs_from_symvers;
	const char *release, *vermagic, *exports_from;
	int config[KSC_CONFIG_COUNT];
	unsigned int quirks;
	unsigned int errors;
};

int ksc_kernel_add_symvers_rows(struct ksc_kernel *k, const struct ksc_symvers *sv,
				bool vmlinux_only) _must_check_;
int ksc_kernel_build_index(struct ksc_kernel *k) _must_check_;
const struct kprov *ksc_kernel_first_prov(const struct ksc_kernel *k, const char *symbol);
const struct kprov *ksc_kernel_next_prov(const struct ksc_kernel *k, const struct kprov *p);

/* Helpers shared by readers. */
const char *ksc_basename(const char *path);

/* ---- sources (ksc-src.c, ksc-srcedit.c) ---- */

enum ksc_src_lang {
	KSC_LANG_NONE = 0, /* not a file the folder scan reads */
	KSC_LANG_C,        /* .c, .h (and any file given by name) */
	KSC_LANG_ASM,      /* .S: the C preprocessor's view, no character literals */
	KSC_LANG_MAKE,     /* Makefile, Kbuild: -DDEFAULT_SYMBOL_NAMESPACE= flags */
};
/* By file name: .c/.h -> C, .S -> ASM, Makefile/Kbuild -> MAKE, else NONE. */
enum ksc_src_lang ksc_src_lang_of(const char *path);

/* The DEFAULT_SYMBOL_NAMESPACE a file starts with (-D from Kbuild/Makefile). */
struct ksc_src_default {
	const char *ns;       /* NULL: not defined */
	enum ksc_src_spelling spelling;
	const char *from;     /* "path:line" of the flag */
};

struct ksc_src_vec {
	struct ksc_src_record *v;
	size_t n, cap;
};

/* A name #defined in a scanned file (collected with KSC_SRC_SCAN_DEFINES). */
struct ksc_src_define {
	const char *name;
	unsigned int line;
};

#define KSC_SRC_SCAN_DEFINES 0x100u /* internal: collect #define names */

/* Per-thread scanning state; strings go to `strings`, records are appended to `out`. */
struct ksc_src_scanner {
	struct pool *strings;
	struct ksc_src_vec *out;
	unsigned int flags;
	const char *kvm_sub_modules;
	size_t *cand;
	size_t cap_cand;
	char *buf;            /* scratch for decoded strings */
	size_t cap_buf;
	struct ksc_src_define *defines;
	size_t n_defines, cap_defines;
};

void ksc_src_scanner_init(struct ksc_src_scanner *s, struct pool *strings,
			  struct ksc_src_vec *out, unsigned int flags, const char *kvm_sub_modules);
void ksc_src_scanner_fini(struct ksc_src_scanner *s);
/*
 * Scan one file's bytes and append its records (path copied into the pool when the first
 * record is made). `def` is the default namespace from the build flags, or NULL.
 * 0 or -ENOMEM.
 */
int ksc_src_scan_buffer(struct ksc_src_scanner *s, const char *path, const char *data,
			size_t size, enum ksc_src_lang lang,
			const struct ksc_src_default *def) _must_check_;
/* Is `s` (length n) a C identifier? */
bool ksc_src_is_identifier(const char *s, size_t n);
