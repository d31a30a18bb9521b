/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The readers wing (doc/architecture.md): files and what is in them, each read on its own
 * and trusted in nothing. Decompression (ksc-file.c), the ELF reader and its section
 * table (ksc-elf.c), struct ksc_module and its names (ksc-module.c), kmod's own view of
 * a module (ksc-kview.c), Module.symvers (ksc-symvers.c), System.map (ksc-sysmap.c),
 * appended signatures and keyrings (ksc-sig.c, libcrypto through ksc-crypto.h); a module
 * read from a file or from memory (ksc-module-file.c). A reader knows no kernel as a
 * whole: that is the kernel wing above.
 */
#pragma once

#include "base/base.h"
#include "util/elfview.h"
#include "util/fileio.h"

/*
 * What a command reads a file as: the limits and the unwrapping depend on that, never on
 * the file's name. A module (a module operand, a module found in a tree or module
 * folder): at most KSC_MODULE_MAX bytes, as a file and decompressed, and a bzImage header
 * is not unwrapped (kmod does not: the file is then not ELF). A kernel image (a path
 * given or located as one, or an operand documented to be a module or an image): at
 * most KSC_IMAGE_MAX, and a bzImage's payload is decompressed. The largest module of
 * Debian's kernels, amdgpu.ko of 7.3, is 46 MiB; a vmlinux with debug information is
 * hundreds of MiB.
 */
enum ksc_read_as {
	KSC_READ_MODULE = 0,
	KSC_READ_IMAGE,
};
#define KSC_MODULE_MAX ((size_t)256 << 20)
#define KSC_IMAGE_MAX ((size_t)2 << 30)
/*
 * Text files (Module.symvers, System.map, modules.order, depmod.d, certificates, a
 * kernel's config): at most 64 MiB (a Module.symvers of allmodconfig is 4 MiB, a
 * kallsyms of a distribution kernel with its modules 20 MiB).
 */
#define KSC_TEXT_MAX ((size_t)64 << 20)
size_t ksc_read_limit(enum ksc_read_as as);
/*
 * The longest text of a file a text reader quotes in a message (Module.symvers'
 * and System.map's malformed lines): the precision for "%.*s" of len bytes.
 */
#define KSC_QUOTE_MAX 64
static inline int ksc_quote_len(size_t len)
{
	return len > KSC_QUOTE_MAX ? KSC_QUOTE_MAX : (int)len;
}

/*
 * A share of the memory budget every thread's files read or decompressed count against
 * (256 MiB, ksc-file.c): taken before the memory is, given back once it is freed, on the
 * same thread. ksc_charge_take() waits until there is room (or no other thread holds
 * any); 0 (or -EAGAIN, never for a first share). Zero-initialised holds nothing.
 */
struct ksc_charge {
	size_t counted;
	bool nested; /* taken while the thread held another: never waits */
	bool retry;  /* a second attempt: the budget does not stop it again */
};
int ksc_charge_take(struct ksc_charge *c, size_t bytes);
void ksc_charge_drop(struct ksc_charge *c);

/* A whole file in memory, decompressed, counted in the budget until ksc_blob_free(). */
struct ksc_blob {
	unsigned char *data;
	size_t size;
	enum ksc_compression compression;
	struct ksc_charge charge;
};

/*
 * Read `path` (or take `data` when non-NULL) as `as`, detect compression by magic and
 * decompress (a compressed file is read in pieces, never whole). Past the limit: "PATH:
 * too large (N bytes, limit M)" or "PATH: decompresses to more than M MiB (limit for
 * modules)", -EFBIG. Errors are logged as "<path>: <reason>". 0 or -errno.
 */
int ksc_blob_load_as(struct ksc_ctx *ctx, const char *path, const void *data, size_t size,
		     enum ksc_read_as as, struct ksc_blob *out) _must_check_;
/* The same from an open regular file of `size` bytes (fd is not closed). */
int ksc_blob_load_fd(struct ksc_ctx *ctx, const char *path, int fd, uint64_t size,
		     enum ksc_read_as as, struct ksc_blob *out) _must_check_;
/* ksc_blob_load_as() as a kernel image (a file that may be a module or an image). */
int ksc_blob_load(struct ksc_ctx *ctx, const char *path, const void *data, size_t size,
		  struct ksc_blob *out) _must_check_;
void ksc_blob_free(struct ksc_blob *b);
/*
 * Open dfd/name (path: its name in messages) with ksc_open_read() (util/fileio.h), or with
 * `fifo_ok` a FIFO or pipe too (read once, to its end: `-s <(cat Module.symvers)`).
 * Anything else is refused, "PATH: not a regular file (a character device)", -EINVAL. A
 * folder is -EISDIR, not logged (callers word it). The fd (blocking) with *st filled, or
 * -errno, logged.
 */
struct stat;
int ksc_open_regular(struct ksc_ctx *ctx, int dfd, const char *name, const char *path,
		     struct stat *st, bool fifo_ok) _must_check_;
enum ksc_compression ksc_detect_compression(const unsigned char *p, size_t n);
/* Length of the module without its appended signature ("~Module signature appended~\n"). */
size_t ksc_signature_strip(const unsigned char *p, size_t n, size_t *sig_size);

/*
 * The built-in certificates of a kernel image (ksc-sig.c, for ksc-keycache.c): DER one
 * after the other, n of them. is_image: the file was a kernel image.
 */
struct ksc_image_der {
	unsigned char *der;
	size_t size, n;
	bool is_image;
};
struct ksc_keyring;
struct ksc_ctx *ksc_keyring_ctx(const struct ksc_keyring *kr);
/* ksc_keyring_add_path(), a kernel image's certificates also handed over (free der->der). */
int ksc_keyring_add_image_path(struct ksc_keyring *kr, const char *path,
			       struct ksc_image_der *der) _must_check_;
/* Add an image's certificates read before, `name` the image, as ksc_keyring_add_path(). */
int ksc_keyring_add_image_der(struct ksc_keyring *kr, const char *name,
			      const struct ksc_image_der *der) _must_check_;
/*
 * A whole text file (a regular file, a FIFO, or a /proc file of size 0), NUL-terminated,
 * in *data (malloc'd) and *size, at most KSC_TEXT_MAX bytes ("PATH: too large (N bytes,
 * limit M)", -EFBIG). Errors are logged as "<path>: <reason>". 0 or -errno.
 */
int ksc_read_text_file(struct ksc_ctx *ctx, const char *path, char **data,
		       size_t *size) _must_check_;

/*
 * ---- module (ksc-module.c: struct ksc_module is that file's alone; the ELF reader,
 * ksc-elf-*.c, the signatures, ksc-sig*.c, and the module set fill and read a module
 * through the functions below; ksc-module-file.c reads one from a file) ----
 */

/*
 * What a module is, apart from its tables: its file, its ELF header, its names, its
 * flags, and the sections of ksc_elf_section_names it has (bit i for the i-th). A module
 * holds its own (ksc_module_get_facts()); the module set rebuilds a module from its
 * record with ksc_module_new_from_facts(), then adds the tables' entries, at most cap's
 * of each.
 * Strings are the caller's and must outlive the module, unless `copy`. sig_read: the
 * appended signature was looked for already (a record keeps what there was to see).
 */
struct ksc_module_facts {
	const char *path;
	enum ksc_module_kind kind;
	enum ksc_compression compression;
	int elf_class;
	bool big_endian;
	unsigned int machine;
	size_t size, sig_size;
	const char *struct_name, *kmod_name, *modpost_name, *symvers_owner;
	enum ksc_export_layout layout;
	bool has_kflagstab, has_versions, has_ext_versions;
	uint32_t sections;
	bool sig_read;
	bool copy;            /* strings copied into the module, not borrowed */
	bool no_export_index; /* exports not indexed by name (a provider only) */
	struct {
		size_t modinfo, exports, versions, ext_versions, imports;
	} cap; /* the tables' sizes of a module rebuilt from facts */
};

/* One entry of __param: struct kernel_param's name and perm (R42). */
struct ksc_param {
	const char *name;
	unsigned int perm;
};

/* A module of these facts with empty tables (refcount 1). 0 or -ENOMEM. */
int ksc_module_new_from_facts(struct ksc_ctx *ctx, const struct ksc_module_facts *f,
			      struct ksc_module **out) _must_check_;
/*
 * Add one entry (in file order) to a module of ksc_module_new_from_facts(), or to a table
 * made room for with ksc_module_reserve(): 0, -ENOMEM, or -ENOSPC past its room (the
 * facts' count). Strings are kept as the facts say (f.copy: copied, else borrowed). An
 * export is indexed by name unless no_export_index.
 */
int ksc_module_add_modinfo(struct ksc_module *mod, const char *key,
			   const char *value) _must_check_;
int ksc_module_add_export(struct ksc_module *mod, const struct ksc_export *e) _must_check_;
int ksc_module_add_version(struct ksc_module *mod, bool ext, const char *name,
			   uint64_t crc) _must_check_;
int ksc_module_add_import(struct ksc_module *mod, const struct ksc_import *im) _must_check_;
/* The sections of a module as bits of ksc_elf_section_names (ksc_module_has_section()). */
uint32_t ksc_module_section_bits(const struct ksc_module *mod);
/*
 * __param of a module rebuilt from facts: the n entries of p (names kept as the facts'
 * strings are), once, after ksc_module_new_from_facts(). 0, -ENOMEM, -EEXIST when it has
 * parameters already.
 */
int ksc_module_add_params(struct ksc_module *mod, const struct ksc_param *p,
			  size_t n) _must_check_;
int ksc_module_add_section(struct ksc_module *mod, const char *name) _must_check_;
int ksc_module_add_param(struct ksc_module *mod, const char *name,
			 unsigned int perm) _must_check_;

/* The tables of a module, for ksc_module_reserve(). */
enum ksc_module_table {
	KSC_MODULE_MODINFO,
	KSC_MODULE_EXPORTS,
	KSC_MODULE_VERSIONS,
	KSC_MODULE_EXT_VERSIONS,
	KSC_MODULE_IMPORTS,
	KSC_MODULE_SECTIONS,
	KSC_MODULE_PARAMS,
	KSC_MODULE_TABLES
};
/*
 * Empty table t and make room for n entries of it (one allocation; the adders fill it).
 * The ELF reader counts a table's entries first, then reserves it once. 0 or -ENOMEM.
 */
int ksc_module_reserve(struct ksc_module *mod, enum ksc_module_table t,
		       size_t n) _must_check_;
struct ksc_ctx *ksc_module_get_ctx(const struct ksc_module *mod);
const struct ksc_module_facts *ksc_module_get_facts(const struct ksc_module *mod);
/*
 * Replace the facts whole (the tables stay): its strings are not copied and must live as
 * long as the module (its own, from ksc_module_strndup(), or the caller's). A reader
 * takes the facts, changes what it read and sets them back.
 */
void ksc_module_set_facts(struct ksc_module *mod, const struct ksc_module_facts *f);
/* A copy of s (its first n bytes, NUL-terminated) kept by the module; NULL: no memory. */
const char *ksc_module_strndup(struct ksc_module *mod, const char *s, size_t n);
const char *ksc_module_strdup(struct ksc_module *mod, const char *s);
/* A kernel image's release and VERMAGIC_STRING (strings as ksc_module_set_facts()). */
void ksc_module_set_image_strings(struct ksc_module *mod, const char *release,
				  const char *vermagic);
/*
 * What the signatures' files keep of a module (theirs to make and free, ksc_sig_free()):
 * the appended signature block (ksc-sig.c) and a kernel image's certificates
 * (ksc-sig-keys.c). The module only holds them.
 */
struct ksc_sigtrail;
struct ksc_certlist;
struct ksc_sigtrail *ksc_module_get_sigtrail(const struct ksc_module *mod);
void ksc_module_set_sigtrail(struct ksc_module *mod, struct ksc_sigtrail *t);
struct ksc_certlist *ksc_module_get_certlist(const struct ksc_module *mod);
void ksc_module_set_certlist(struct ksc_module *mod, struct ksc_certlist *c);
/*
 * The two halves of ksc_module_unref() (ksc-module-file.c): one reference less (the
 * count left), and a module of no reference freed, what ksc_sig_free() keeps freed
 * before.
 */
int ksc_module_drop_ref(struct ksc_module *mod);
void ksc_module_free(struct ksc_module *mod);
/* __param (R42): the number of struct kernel_param, the name and perm of the i-th. */
size_t ksc_module_get_param_count(const struct ksc_module *mod);
const char *ksc_module_get_param(const struct ksc_module *mod, size_t i, unsigned int *perm);

/* Parse .modinfo bytes into the module's modinfo table (replacing it). 0 or -errno (logged). */
int ksc_modinfo_parse(struct ksc_module *mod, const char *p, size_t size) _must_check_;
/* An empty module object (refcount 1, a reference on ctx); NULL when out of memory. */
struct ksc_module *ksc_module_alloc(struct ksc_ctx *ctx);
/* The names a module gets from its path (R4-R6): kmod's, modpost's, the symvers owner. */
int ksc_module_set_names(struct ksc_module *mod, const char *path) _must_check_;
/*
 * A module read from the image in `b` (decompressed, not copied: it may be freed once
 * this returns), named by `path`; its appended signature is not looked at. 0 or -errno
 * (logged).
 */
int ksc_module_new_from_blob(struct ksc_ctx *ctx, const char *path, const struct ksc_blob *b,
			     struct ksc_module **out) _must_check_;
/* Parse the ELF image in `b` into `mod`. 0 or -errno (logged). */
int ksc_elf_parse_module(struct ksc_module *mod, const struct ksc_blob *b) _must_check_;

/* ---- kmod's view of a module (ksc-kview.c) ---- */

/*
 * kmod's view of a module (doc/rules.md R26, kmod tools/depmod.c and
 * libkmod/libkmod-elf.c): what depmod takes from the file, by kmod's own lookup rules
 * (sections by name, __crc_ symbols or else __ksymtab_strings, undefined symbols plus the
 * __versions entries no symbol matched, .modinfo split at runs of NULs). Strings point
 * into the image and are not NUL-terminated (p, n).
 */
struct kv_str {
	const char *p;
	size_t n;
};
struct kv_export {
	struct kv_str name;
	uint64_t crc;
};
struct kv_dep {
	struct kv_str name;
	uint64_t crc;
	bool weak;
};
struct kv_info {
	struct kv_str key, value;
};
struct kview {
	bool elf_ok;     /* kmod_elf_new() would accept the image */
	bool deps_ok;    /* kmod_elf_get_dependency_symbols() would succeed */
	bool incomplete; /* a byte range not in `loaded` was needed (sparse images) */
	bool deps_derivable; /* deps not read: they are the library reader's imports and
			      * unmatched __versions (see ksc_kview_read) */
	struct kv_export *exports;
	size_t n_exports;
	struct kv_dep *deps;
	size_t n_deps;
	struct kv_info *info;
	size_t n_info;
};
/*
 * Read kmod's view of the image (the whole file, signature included). `loaded`, when not
 * NULL, says which byte ranges of a sparse image hold file data: using any other range
 * sets kv->incomplete. 0, or -ENOMEM; a file kmod would reject gives 0 with elf_ok false.
 * With `engine_ok` (the library's reader read the same image), the dependency symbols are
 * not read when they cannot differ from the reader's imports and __versions: .symtab and
 * .strtab by name are the first SHT_SYMTAB and its string table, the machine is not SPARC
 * and every __versions name ends inside its record; kv->deps_derivable says so.
 */
typedef bool (*kv_loaded_fn)(void *data, uint64_t off, uint64_t size);
int ksc_kview_read(const unsigned char *img, size_t size, kv_loaded_fn loaded, void *data,
		   bool engine_ok, struct kview *kv) _must_check_;
void ksc_kview_free(struct kview *kv);

/* ---- module signatures (ksc-sig.c) ---- */

/*
 * Called by the module reader with the whole decompressed image: keep the appended
 * signature block and, for a kernel image, the certificates in its data sections. `how`:
 * KSC_SIG_FILE the whole image of a file (the first signer's digest made now, when
 * libcrypto loads: verifying reads nothing again; another signer's reads the file),
 * KSC_SIG_MEMORY the whole image, no file to read again, KSC_SIG_TAIL only the bytes
 * ksc_sig_tail_len() names are the image's (a record's: no digest made). 0 or -ENOMEM.
 */
enum ksc_sig_from { KSC_SIG_FILE, KSC_SIG_MEMORY, KSC_SIG_TAIL };
int ksc_sig_capture(struct ksc_module *mod, const unsigned char *img, size_t size,
		    enum ksc_sig_from how) _must_check_;
/* Free what ksc_sig_capture() kept. */
void ksc_sig_free(struct ksc_module *mod);
/*
 * The digest of a module image's signed bytes (all before the signature block), with the
 * digest algorithm of its PKCS#7's first SignerInfo: what verifying it needs, computed
 * while the image is in memory (the tree's first read) so that the file is not read
 * again. 0, d->nid 0 when there is nothing to compute (unsigned, not PKCS#7, an
 * algorithm libcrypto lacks). ksc_sig_set_digest() gives it to a module rebuilt from
 * what was kept of the image (ksc_sig_capture() of its last bytes).
 */
struct ksc_sig_digest {
	int nid;                /* OpenSSL's NID of the algorithm; 0: none */
	unsigned int len;
	unsigned char md[64];
};
int ksc_sig_digest_image(const unsigned char *img, size_t size, struct ksc_sig_digest *d);
void ksc_sig_set_digest(struct ksc_module *mod, const struct ksc_sig_digest *d);

/* What module_sig_check() would make of a module's signature (kernel/module/signing.c). */
/*
 * ksc_check_modules() with the report's context (its log, its reference) taken from
 * `ctx` instead of the kernel's: threads each with a context of their own may then check
 * against one kernel, which checks only read once its index is built
 * (ksc_kernel_build_index() first).
 */
int ksc_check_modules_ctx(struct ksc_kernel *k, struct ksc_ctx *ctx,
			  struct ksc_module *const *mods, size_t n,
			  const struct ksc_check_opts *opts, struct ksc_report **out);

struct ksc_sig_eval {
	int err;                   /* 0 valid (or assumed valid), -ENODATA unsigned, else the
				    * kernel's -errno (-ENOKEY, -ENOPKG, -EKEYREJECTED, -EBADMSG,
				    * -EINVAL, -EMSGSIZE) */
	bool verified;             /* err was decided with keys (a non-empty keyring) */
	const char *kernel_line;   /* what the kernel prints on the way, or NULL (static) */
	const char *why;           /* static text */
	const struct ksc_key *key; /* the key that verified it */
	int io_err;                /* the file could not be hashed again (logged): unverified */
};
/*
 * Evaluate the signature of `mod` against `kr` (NULL or empty: only what needs no key;
 * a well-formed signature is then assumed valid). Problems re-reading the file are logged
 * and leave the signature unverified.
 */
void ksc_sig_evaluate(const struct ksc_module *mod, const struct ksc_keyring *kr,
		      struct ksc_sig_eval *ev);
/*
 * ksc_sig_evaluate() for a caller that does not read ev->key (the loader): a verdict kept
 * from an earlier run (ksc_keyring_set_memo()) is then given without parsing the keys,
 * ev->key NULL.
 */
void ksc_sig_judge(const struct ksc_module *mod, const struct ksc_keyring *kr,
		   struct ksc_sig_eval *ev);
/*
 * Keep the signature verdicts judged against kr in the folder `dir` (made when first
 * written; its parent must exist) and take them from it: the module's signed bytes (their
 * digest), its signature block and every key of kr the same, byte for byte (see
 * ksc-sig-memo.c). NULL: none kept. 0 or -ENOMEM.
 */
int ksc_keyring_set_memo(struct ksc_keyring *kr, const char *dir) _must_check_;
/* Does the keyring hold any key? (NULL: no) */
bool ksc_keyring_is_empty(const struct ksc_keyring *kr);


/* kmod's path_to_modname(): basename up to the first '.', '-' -> '_'. Length in *len. */
void ksc_kmod_modname(const char *path, char *buf, size_t size, size_t *len);

/* Sections a rebuilt module answers ksc_module_has_section() for (bit order). */
extern const char *const ksc_elf_section_names[];
extern const size_t ksc_elf_section_count;
#define KSC_ELF_SECTIONS_MAX 16
/* The index of `name` in ksc_elf_section_names, or -1 (most names: without a strcmp). */
int ksc_elf_section_id(const char *name);

/*
 * What the module readers look at in an image, for a caller that loads a large file in
 * pieces (ksc-elf-plan.c): three steps, each on what the one before had loaded at its
 * offset. ksc_elf_plan_open(): from the first n bytes (64: the ELF header) and the
 * file's size, the section headers' range; false when the plan cannot follow the layout
 * (not ELF, extended numbering, a table outside the file): read the whole file.
 * ksc_elf_plan_names(): with them loaded, the section names' range (false: read whole).
 * ksc_elf_plan_sections(): with those loaded too, add() each range the readers read
 * (those inside the file); 1, 0 when the layout needs the whole file, or add()'s or
 * -ENOMEM. The last 64 bytes (the signature marker) are the caller's to add.
 */
struct ksc_elf_plan {
	struct elfview v;
	uint64_t size;
	uint64_t shdr_off, shdr_len;   /* the section header table */
	uint64_t names_off, names_len; /* the section name table */
};
bool ksc_elf_plan_open(struct ksc_elf_plan *p, const unsigned char *h, size_t n,
		       uint64_t size);
bool ksc_elf_plan_names(struct ksc_elf_plan *p, const unsigned char *img);
int ksc_elf_plan_sections(struct ksc_elf_plan *p, const unsigned char *img,
			  int (*add)(void *data, uint64_t off, uint64_t len), void *data);

/*
 * How many bytes at the end of an image ksc_sig_capture() looks at: the marker, struct
 * module_signature and the signature (0 without the marker).
 */
size_t ksc_sig_tail_len(const unsigned char *img, size_t size);

/* Does `mod` import namespace `ns` with MODULE_IMPORT_NS() (an import_ns= entry, R12)? */
bool ksc_module_imports_ns(const struct ksc_module *mod, const char *ns);

/* ---- depmod's .bin indexes (ksc-depmod-bin.c) ---- */

/*
 * modules.dep.bin or modules.symbols.bin (kmod's index format) in memory: `data` and
 * `size` the whole file, `root` the root node's offset word; `owned` what
 * ksc_depbin_fini() frees. Zero-initialised is empty.
 */
struct ksc_depbin {
	const unsigned char *data;
	size_t size;
	uint32_t root;
	void *owned;
};
/* How deep ksc_depbin_count() goes: a key of more bytes is refused (-ELOOP). */
#define KSC_DEPBIN_DEPTH 4096
/* A key's first value (its lowest priority), a string in the file, and how many it has. */
struct ksc_depbin_value {
	const char *value;
	size_t len;
	uint32_t count;
};
/*
 * The index in `data` (borrowed, it must outlive *out): its header checked (magic, major
 * version 2, at most 256 MiB). 0 or -EINVAL (-EFBIG).
 */
int ksc_depbin_parse(const void *data, size_t size, struct ksc_depbin *out) _must_check_;
/*
 * Read `path` whole (a regular file, at most KSC_TEXT_MAX bytes; *st its fstat) and
 * ksc_depbin_parse() it. Nothing is logged. 0 or -errno.
 */
int ksc_depbin_open(const char *path, struct stat *st, struct ksc_depbin *out) _must_check_;
void ksc_depbin_fini(struct ksc_depbin *db);
/*
 * The values of `key` (exact, as kmod's index_mm_search()): 1 and *v, 0 when the index
 * holds no such key, -EILSEQ for a key byte past 7-bit ASCII (depmod writes none), or
 * -EINVAL when a node on the way lies outside the file. At most strlen(key) + 1 nodes.
 */
int ksc_depbin_lookup(const struct ksc_depbin *db, const char *key,
		      struct ksc_depbin_value *v) _must_check_;
/*
 * Visit every node once: the number of keys and of values. 0, -EINVAL (a node or value
 * outside the file), -ELOOP (a node reached twice, a child not after its parent, deeper
 * than KSC_DEPBIN_DEPTH) or -ENOMEM.
 */
int ksc_depbin_count(const struct ksc_depbin *db, size_t *keys, size_t *values) _must_check_;
/*
 * The same, each value handed to fn (a string in the file, NUL after its len bytes) as
 * it is met, in no order the caller may rely on; fn's negative return stops the visit
 * and is returned. Keys are not rebuilt.
 */
typedef int (*ksc_depbin_value_fn)(void *data, const char *value, size_t len);
int ksc_depbin_each(const struct ksc_depbin *db, ksc_depbin_value_fn fn, void *data,
		    size_t *keys, size_t *values) _must_check_;
