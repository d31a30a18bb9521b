/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The module-set wing (doc/architecture.md): the modules of one release's folder as
 * depmod finds them, below the kernel and the tree, which both take their modules from
 * here. depmod.d (ksc-modset-depmodcfg.c) and depmod's search (ksc-modset-search.c:
 * which file depmod, and so modprobe, takes for each module name when the folder holds
 * several), the walk of a
 * folder for module files (ksc-modset-walk.c), a module's facts as a record
 * (ksc-modset-record.c; the buffer it is built in: ksc-modset-rbuf.c; its checks:
 * ksc-modset-valid.c) and the index file that keeps them between runs
 * (ksc-modset-index.c; its table by name: ksc-modset-lookup.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "readers/readers.h"
#include "util/fileio.h"
#include "util/macro.h"

struct ksc_ctx;

/* depmod.d as depmod reads it (kmod tools/depmod.c: struct cfg). Opaque. */
struct ksc_depmod_cfg;

/* An empty configuration for kernel release `kversion` (override/external lines match it). */
struct ksc_depmod_cfg *ksc_depmod_cfg_new(const char *kversion);
void ksc_depmod_cfg_free(struct ksc_depmod_cfg *cfg);

/*
 * Parse one configuration file's text (depmod's cfg_file_parse()): `search`, `override`,
 * `external` and `exclude` lines; bad lines are logged as "name:line: ..." and skipped.
 * 0 or -ENOMEM.
 */
int ksc_depmod_cfg_parse(struct ksc_ctx *ctx, struct ksc_depmod_cfg *cfg, const char *name,
			 const char *text, size_t len) _must_check_;

/*
 * After the last file (depmod's cfg_load()): without any `search` line, "updates" alone
 * is searched before the rest. 0 or -ENOMEM.
 */
int ksc_depmod_cfg_finish(struct ksc_depmod_cfg *cfg) _must_check_;

/*
 * Read the configuration of `root` ("" or "/": this machine) for `kversion`: the
 * *.conf files of ROOT/{etc,run,usr/local/lib,usr/lib,lib}/depmod.d, sorted by name, a
 * name seen in an earlier folder hiding the same name in later ones, absolute links
 * resolved inside ROOT. Missing folders are no error. 0 and *out, or -ENOMEM.
 */
int ksc_depmod_cfg_load(struct ksc_ctx *ctx, const char *root, const char *kversion,
			struct ksc_depmod_cfg **out) _must_check_;

/* A fingerprint of what the configuration decides (not of its comments or file names). */
uint64_t ksc_depmod_cfg_fingerprint(const struct ksc_depmod_cfg *cfg);
/* Folders given by `external` lines: parsed, not searched (doc/kernels.md). */
size_t ksc_depmod_cfg_external_count(const struct ksc_depmod_cfg *cfg);

/* depmod's should_exclude_dir(): ".", "..", "build", "source" and `exclude` names. */
bool ksc_depmod_should_exclude_dir(const struct ksc_depmod_cfg *cfg, const char *name);

/*
 * depmod_module_is_higher_priority(): does the file already chosen for a name, at
 * `oldrel` (relative to the module folder), stay chosen when the walk meets `newrel`
 * with the same name? `override` first, then the `search` order, everything no search
 * entry names ranking as "built-in".
 */
bool ksc_depmod_module_is_higher_priority(const struct ksc_depmod_cfg *cfg,
					  const char *oldrel, const char *newrel);

/*
 * Why `rel` ranks where it does, for messages: "depmod.d: override kvm * updates/dkms",
 * "depmod.d: search extra", "depmod searches updates/ first" (no search line), or
 * "depmod's order: the first file met". Written into buf (size > 0); returns buf.
 */
const char *ksc_depmod_module_rank_reason(const struct ksc_depmod_cfg *cfg, const char *rel,
					  char *buf, size_t size);

/*
 * depmod_modules_search(): walk `moddir` in readdir order as depmod does (excluded names
 * skipped at every level, symbolic links followed; util/walk.h's walk), keep one file
 * per kmod name by the rules above, then call fn for every kept file, sorted by path.
 * A loop (a folder that is one of its own parents), unreadable entries, an entry that
 * is neither a folder nor a regular file (a FIFO, a device, a link to one) and a path
 * too long to open are logged as "<path>: <reason>" and counted in *errors; a folder
 * reached again by another path is walked once, the second path named in a warning.
 * `replaced` is the path,
 * relative to moddir, of a file of the same name that the kept one won over (NULL when
 * it had no rival). Stops when fn returns <0; 0 or that value, -ENOMEM.
 */
typedef int (*ksc_modset_fn)(const char *path, const char *replaced, void *data);
int ksc_depmod_modules_search(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg,
			      const char *moddir, ksc_modset_fn fn, void *data,
			      unsigned int *errors) _must_check_;

/*
 * The same below `root` (NULL, "" or "/": the host's): symbolic links resolved inside
 * it, as util/walk.h's walk_opts.root says, and fn given each kept file whole: also its
 * kmod name, its stat() as the walk made it and whether it was reached through a link
 * (then opened with walk_open()). fn may take its malloc'd strings, leaving NULL where
 * it took one; the search frees what is left.
 */
struct stat;
struct ksc_found {
	char *path;            /* moddir, '/', its path below moddir */
	char *name;            /* kmod's name of it */
	char *replaced;        /* as above, or NULL */
	const struct stat *st;
	bool link;
};
typedef int (*ksc_modset_st_fn)(struct ksc_found *f, void *data);
int ksc_depmod_modules_search_st(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg,
				 const char *root, const char *moddir, ksc_modset_st_fn fn,
				 void *data, unsigned int *errors) _must_check_;
/*
 * The same, a thread waiting for it let in through door (modset-statq.h; NULL: none) to
 * stat the files beside the walk.
 */
struct ksc_statq_door;
int ksc_depmod_modules_search_helped(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg,
				     const char *root, const char *moddir, ksc_modset_st_fn fn,
				     void *data, unsigned int *errors,
				     struct ksc_statq_door *door) _must_check_;

/*
 * The folders a walk has entered (ksc-modset-walk.c), by (device, inode), each with a
 * number of the walk's (where it was first met): a folder reached again through symbolic
 * links is walked once, however many paths lead to it. Zero-initialised is empty.
 */
struct ksc_dirset {
	struct ksc_dirset_slot {
		dev_t dev;
		ino_t ino;
		size_t val; /* SIZE_MAX: a free slot */
	} *slots;
	size_t n, cap;
};
/* Add (dev, ino) with *val: 1; 0 when it was there (*val = its number); -ENOMEM. */
int ksc_dirset_add(struct ksc_dirset *s, dev_t dev, ino_t ino, size_t *val) _must_check_;
void ksc_dirset_fini(struct ksc_dirset *s);

/*
 * What the search met besides the files it keeps, as data (ksc_depmod_search()): every
 * folder walked, in walk order, with its inode and modification time (the index's proof
 * that a folder is unchanged); its problems ("<path>: <reason>", -errno), in the order
 * met; the folder each kept file was found in; and whether the walk was clean: no
 * symbolic link, no special file, no problem, so that its folders alone say its files
 * are the same. Opaque.
 */
struct ksc_walkres;
void ksc_walkres_free(struct ksc_walkres *res);
/*
 * ksc_depmod_modules_search_st() with the problems kept in *out (NULL only when out of
 * memory), not logged, and the files not stat'ed (fn's st is zero but for S_IFREG: the
 * caller stats what it reads) nor sorted (walk order: the caller orders them); *out is
 * the caller's to free, even on error.
 */
int ksc_depmod_search(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg, const char *root,
		      const char *moddir, int64_t start_ns, ksc_modset_st_fn fn, void *data,
		      struct ksc_walkres **out) _must_check_;
bool ksc_walkres_clean(const struct ksc_walkres *res);
/*
 * The folders walked, in walk order, as the index keeps them: the path below the module
 * folder ("" for the folder itself), inode and modification time, KREC_RACY when it is
 * later than start_ns - KSC_RACY_NS (it could still change unseen). *n of them.
 */
const struct kidx_dir *ksc_walkres_dirs(const struct ksc_walkres *res, size_t *n);
size_t ksc_walkres_problem_count(const struct ksc_walkres *res);
/* Problem i: its path (returned), -errno and reason. */
const char *ksc_walkres_problem(const struct ksc_walkres *res, size_t i, int *err,
				const char **reason);
/* Kept file i (in the order fn was called): its folder, and whether reached by a link. */
uint32_t ksc_walkres_file_dir(const struct ksc_walkres *res, size_t i, bool *link);

/*
 * The index file (ksc-modset-index.c; its records: ksc-modset-record.c; its layout:
 * modset-private.h). A header, a directory, then one facts record per module and
 * optionally one derived record per module, then a table of the modules by name and by
 * path (ksc-modset-lookup.c). Records are
 * position independent: every reference is an offset from the record's start; strings
 * are offsets into the record's string table, whose first byte and last byte are NUL.
 * Native byte order (the header says which; another order is a foreign index and is
 * rebuilt). Everything is validated (checksum, bounds, enums, string offsets) before it
 * is used.
 */
#define KREC_MAGIC 0x3143524bu /* "KRC1" */
#define KREC_NONE 0xffffffffu  /* no string */

struct krange {
	uint32_t off, n;
};

enum {
	KREC_F_ENGINE = 1u << 0,        /* the library's reader read it (ksc_module) */
	KREC_F_UNREADABLE = 1u << 1,    /* the file itself could not be read */
	KREC_F_BIG_ENDIAN = 1u << 2,
	KREC_F_VERSIONS = 1u << 3,
	KREC_F_EXT_VERSIONS = 1u << 4,
	KREC_F_KFLAGSTAB = 1u << 5,
	KREC_F_KELF = 1u << 6,          /* kmod view: kmod_elf_new() accepted it */
	KREC_F_KDEPS = 1u << 7,         /* kmod view: dependency symbols read */
	KREC_F_KDEPS_DERIVED = 1u << 8, /* kdeps are imports + unmatched versions: not stored */
	KREC_F_VMLINUX = 1u << 9,       /* an ET_EXEC/ET_DYN image, not a module */
	KREC_F_KINFO = 1u << 10,        /* kmod's .modinfo differs from the library's: kinfo */
};
#define KREC_F_ALL 0x7ffu

#define KREC_IMP_WEAK 0x80000000u
#define KREC_EXP_GPL 1u
#define KREC_EXP_HAS_CRC 2u

struct krec {
	uint32_t magic;
	uint32_t size;          /* the whole record, a multiple of 8 */
	/* the key: the file as it was when read */
	uint64_t file_size;
	int64_t mtime_ns;       /* KREC_RACY: never matches (modified too recently, or unreadable) */
	uint64_t ino;
	int64_t ctime_ns;       /* the inode's change time: an edit with the mtime restored */
	uint64_t content_hash;  /* the file's bytes, when its ctime was racy (else 0) */
	/* fingerprints (ksc_hash64) of the facts below */
	uint64_t facts_hash;    /* every fact: the record after this field, strings resolved */
	uint64_t kexp_hash;     /* kmod view: exports (names, CRCs) */
	uint64_t kmod_hash;     /* kmod view: exports, dependency symbols, modinfo */
	uint64_t prov_hash;     /* the library view of the module as a provider */
	/* facts */
	uint32_t relpath;       /* path below lib/modules/KVER */
	uint32_t flags;         /* KREC_F_* */
	int32_t err;            /* the reader's -errno when !KREC_F_ENGINE */
	uint32_t kind, compression, elf_class, machine, layout;
	uint32_t sections;      /* bit i: ksc_elf_section_names[i] exists */
	uint32_t struct_name;   /* string or KREC_NONE */
	uint32_t kmod_name, modpost_name, symvers_owner;
	uint32_t pad;
	uint64_t usize, sig_size;
	struct krange msgs;     /* struct krec_msg: what reading it logged */
	struct krange modinfo;  /* struct krec_pair: the library's .modinfo */
	struct krange imports;  /* uint32_t: name | KREC_IMP_WEAK */
	struct krange versions; /* struct krec_crc */
	struct krange ext_versions; /* struct krec_crc (crc_hi 0) */
	struct krange exports;  /* struct krec_export */
	struct krange kexports; /* struct krec_crc: kmod view exports */
	struct krange kdeps;    /* struct krec_kdep: kmod's dependency symbols, unless derived */
	struct krange kinfo;    /* struct krec_pair: kmod's .modinfo when KREC_F_KINFO */
	struct krange sigtail;  /* bytes: the image's signature block and marker, for ksc-sig.c */
	struct krange sigdigest; /* 0 or 1 struct krec_digest: the signed bytes' digest */
	struct krange params;   /* struct krec_param: __param's names and modes (R42) */
	struct krange strtab;   /* bytes */
};
#define KREC_RACY INT64_MIN
#define KREC_HASH_SEED 7 /* ksc_hash64(record, size, seed): the index's check of a record */

struct krec_msg {
	uint32_t priority, text;
};
struct krec_pair {
	uint32_t key, value;
};
struct krec_crc {
	uint32_t name, crc_lo, crc_hi;
};
struct krec_export {
	uint32_t name, ns, crc, flags;
};
struct krec_param {
	uint32_t name, perm;
};
/* The digest verifying the signature needs (struct ksc_sig_digest), made when read. */
struct krec_digest {
	int32_t nid;            /* OpenSSL's NID of the algorithm, > 0 */
	uint32_t len;           /* 1..64 */
	unsigned char md[64];
};
struct krec_kdep {
	uint32_t name; /* | KREC_IMP_WEAK */
	uint32_t crc_lo, crc_hi;
};

/*
 * A derived record (the tree's results for one module: tree/tree.h). The index keeps it
 * as bytes, 8-aligned, at most its size (kidx_module.der_size), and never reads it.
 */
struct kder;

static inline const char *krec_str(const struct krec *r, uint32_t off)
{
	return off == KREC_NONE ? NULL : (const char *)r + r->strtab.off + off;
}
static inline const void *krec_arr(const struct krec *r, struct krange g)
{
	return (const char *)r + g.off;
}
/* A module (not a kernel image) the library's reader read, and so a provider. */
static inline bool krec_is_module(const struct krec *r)
{
	return (r->flags & KREC_F_ENGINE) && r->kind == KSC_KIND_MODULE;
}
static inline size_t krec_export_count(const struct krec *r)
{
	return r->exports.n;
}
/* The first value of `key` in the library's .modinfo, or NULL. */
static inline const char *krec_modinfo(const struct krec *r, const char *key)
{
	const struct krec_pair *mi = krec_arr(r, r->modinfo);

	for (size_t j = 0; j < r->modinfo.n; j++)
		if (strcmp(krec_str(r, mi[j].key), key) == 0)
			return krec_str(r, mi[j].value);
	return NULL;
}
/* A growing byte buffer with a string table, used to build records. */
struct rbuf_slot {
	uint32_t off1; /* string-table offset + 1; 0 = empty */
	uint32_t hash;
};
struct rbuf {
	unsigned char *p;
	size_t n, cap;
	unsigned char *s;       /* string table; s[0] is NUL: offset 0 is "" */
	size_t sn, scap;
	struct rbuf_slot *tab;  /* interned strings */
	size_t tab_n, tab_cap;
	int oom;
};
void rbuf_init(struct rbuf *b);
void rbuf_fini(struct rbuf *b);
/* Empty again, its memory kept for the next record (a zeroed rbuf is initialised). */
void rbuf_reset(struct rbuf *b);
/* Reserve `size` zero bytes (aligned to `align`); returns their offset. */
size_t rbuf_put(struct rbuf *b, size_t size, size_t align);
/* Size the interning table for about n strings (before the first one). */
void rbuf_reserve_strings(struct rbuf *b, size_t n);
/* Intern a string (len bytes, a NUL is added); returns its string-table offset. */
uint32_t rbuf_str(struct rbuf *b, const char *s, size_t len);
/* The same for a C string; KREC_NONE for NULL. */
uint32_t rbuf_cstr(struct rbuf *b, const char *s);
/* Copy n bytes to offset off (reserved by rbuf_put()); nothing once out of memory. */
void rbuf_write(struct rbuf *b, size_t off, const void *src, size_t n);
/* Did it run out of memory (everything since then is lost)? */
bool rbuf_failed(const struct rbuf *b);
/* Append the string table, fix up `strtab`, pad to 8; returns the finished bytes (caller frees). */
void *rbuf_finish(struct rbuf *b, size_t strtab_field_off, size_t *size);
/* The same, into a new block of the record's exact size; b keeps its buffer. */
void *rbuf_finish_copy(struct rbuf *b, size_t strtab_field_off, size_t *size);

/*
 * Build a facts record from what was read: `mod` (NULL when the reader failed), the kmod
 * view (NULL when the file could not be read at all), and the key. Returns malloc'd bytes.
 */
struct krec_src {
	struct rbuf *scratch;         /* a buffer to build in, reused; NULL: one of its own */
	const char *relpath;
	const struct ksc_module *mod;
	int err;                      /* reader's error when mod is NULL */
	const struct kview *kv;
	bool unreadable;
	uint64_t file_size, ino;
	int64_t mtime_ns, ctime_ns;
	uint64_t content_hash;
	const unsigned char *sigtail; /* the last bytes of the image ksc_sig_capture() reads */
	size_t sigtail_len;
	const struct ksc_sig_digest *sig_digest; /* ksc_sig_digest_image()'s, or NULL */
	const int *msg_prio;          /* messages logged while reading */
	const char *const *msg_text;
	size_t n_msgs;
};
int ksc_krec_build(const struct krec_src *src, struct krec **out) _must_check_;
/* Validate a record of `size` bytes at `r` (8-aligned). 0 or -EINVAL. */
int ksc_krec_validate(const struct krec *r, size_t size);
/*
 * The checks both kinds of record are made of: off + n * elem inside [hdr, size) and
 * aligned (an empty range anywhere up to size); a string offset inside a table of
 * strsize bytes, or KREC_NONE when null_ok.
 */
bool ksc_krange_ok(struct krange g, size_t elem, size_t align, size_t hdr, size_t size);
bool ksc_kstr_ok(uint32_t off, uint32_t strsize, bool null_ok);
/*
 * A ksc_module rebuilt from a record (library view, KREC_F_ENGINE only). With `copy`,
 * strings are copied into the module; otherwise they point into `r`, which must outlive
 * the module. `path` is its path (copied with `copy`). `scratch` (may be NULL) is reused
 * memory for the signature block, one per thread.
 */
struct ksc_sigscratch {
	unsigned char *buf; /* an anonymous mapping; NULL until needed */
	size_t size;
};
int ksc_krec_to_module(struct ksc_ctx *ctx, const struct krec *r, const char *path, bool copy,
		       bool provider_only, struct ksc_sigscratch *scratch,
		       struct ksc_module **out) _must_check_;
void ksc_sigscratch_fini(struct ksc_sigscratch *s);

/*
 * ---- a record's facts handed out as values (ksc-modset-facts.c) ----
 * The wings above read a record through these, never its fields. Strings point into the
 * record: valid as long as it is.
 */
enum ksc_module_kind ksc_krec_kind(const struct krec *r);
/* Its checksum as the index keeps it: ksc_hash64(r, its size, KREC_HASH_SEED). */
uint64_t ksc_krec_checksum(const struct krec *r);
/*
 * What the record says is wrong with its file, as the tree lists it: 0 for a module the
 * library's reader read; else its -errno (-ENOEXEC for a kernel image) and *why: "not a
 * module (a kernel image)", or the first error reading it logged without the leading
 * "`path`: ", or NULL (none logged: say strerror()).
 */
int ksc_krec_problem(const struct krec *r, const char *path, const char **why);
/* What reading it logged (at KSC_LOG_WARNING and above): message i's text, *priority. */
size_t ksc_krec_msg_count(const struct krec *r);
const char *ksc_krec_msg(const struct krec *r, size_t i, int *priority);
/* The kmod view's exports (what depmod's symbol table gets): name i, *crc (crc may be NULL). */
size_t ksc_krec_kexport_count(const struct krec *r);
const char *ksc_krec_kexport(const struct krec *r, size_t i, uint64_t *crc);
/* kmod's .modinfo (what depmod's aliases and softdeps come from): key i, *value. */
size_t ksc_krec_kinfo_count(const struct krec *r);
const char *ksc_krec_kinfo(const struct krec *r, size_t i, const char **value);
/*
 * The kmod view's dependency symbols, as kmod_elf_get_dependency_symbols() lists them,
 * each given to fn in order (weak: a weak import); stops at fn's <0. At most
 * ksc_krec_kdep_max() of them. 0, fn's value, or -ENOMEM.
 */
size_t ksc_krec_kdep_max(const struct krec *r);
typedef int (*ksc_kdep_fn)(void *data, const char *name, uint64_t crc, bool weak);
int ksc_krec_each_kdep(const struct krec *r, ksc_kdep_fn fn, void *data) _must_check_;

/* What the index's directory keeps of a facts record, so that it need not be read. */
struct krec_sum {
	uint64_t file_size, ino;
	int64_t mtime_ns, ctime_ns;
	uint64_t content_hash;
	uint64_t facts_hash, kexp_hash, kmod_hash, prov_hash;
	uint32_t flags, kind, n_msgs;
	int32_t err;
};
void ksc_krec_sum(const struct krec *r, struct krec_sum *s);

/*
 * The index file: a hot part (header, directory with each module's struct krec_sum,
 * derived records) read and checked whole when opened, and a cold part (the facts
 * records) read only when needed, each record checked when it is read. The lookup
 * table at the end is not read here (see ksc_kidx_map() below).
 */
struct kidx_module {
	const char *relpath;    /* the record's relpath (from the directory) */
	const char *modname;    /* kmod's name of it, as the walk that wrote the index made it */
	const char *replaced;   /* the file of its name it won over (ksc-modset-search.c), or NULL */
	uint32_t dir;           /* its folder in kidx.dirs, KREC_NONE when not listed */
	struct krec_sum sum;
	const struct krec *rec; /* NULL until fetched (ksc_kidx_fetch) */
	const struct kder *der; /* NULL when none (the tree checks it before use) */
	uint64_t rec_off, rec_hash;
	uint32_t rec_size;
	uint32_t der_size;
};
struct kidx_output {
	const char *name;       /* "modules.dep", ... */
	uint64_t size, ino, content_hash;
	int64_t mtime_ns;
};
/* A folder the last walk read: unchanged (inode, mtime), its entries are the same. */
struct kidx_dir {
	const char *relpath;    /* "" for the module folder itself */
	uint64_t ino;
	int64_t mtime_ns;
};
struct kidx {
	void *buf;              /* the hot part (parsed from memory: the whole file) */
	size_t size;
	int fd;                 /* the file, for the cold part; -1 when parsed from memory */
	uint64_t file_size, cold_off;
	uint64_t cold_end;      /* where the facts records end (the lookup section starts) */
	void *cold;             /* the cold part, once read whole */
	struct krec **fetched;  /* records read one by one */
	const char *moddir, *release;
	uint64_t ctx_fp, dm_world_fp, eng_world_fp, out_fp;
	uint64_t order_fp;      /* the tree's order_fp when written (module order) */
	uint64_t modset_fp;     /* depmod.d's fingerprint when written (which file per name) */
	bool derived;           /* derived records are valid for the fingerprints above */
	struct kidx_module *mods;
	size_t n_mods;
	const char *out_dir;    /* where the depmod files were last written, or NULL */
	struct kidx_output *outs;
	size_t n_outs;
	struct kidx_dir *dirs;  /* the last walk's folders when it met no symbolic link */
	size_t n_dirs;
	bool shaped;            /* header and table bounds checked (ksc_kidx_open()) */
	bool finished;          /* and the checksum and everything else (ksc_kidx_finish()) */
};
/*
 * The facts record of module i: read from the file (checked: checksum, every bound, and
 * that it says what the directory says) and kept. 0, -EINVAL when it is corrupt (the
 * caller reads the module instead), -ENOMEM, -errno.
 */
int ksc_kidx_fetch(struct kidx *idx, size_t i, const struct krec **out) _must_check_;
/* The same for every module, with one read of the cold part. 0 or -errno (-EINVAL). */
int ksc_kidx_fetch_all(struct kidx *idx) _must_check_;
/*
 * Parse an index from memory (copied; records are fetched from the copy). 0; -ENOENT for
 * an empty buffer; -EINVAL invalid.
 */
int ksc_kidx_parse(const void *data, size_t size, struct kidx *out) _must_check_;
/*
 * For fuzzing and tests: recompute, in place, every checksum a valid index would carry
 * (the header's and each record's that lies inside the buffer), so that what is behind
 * the checksums gets exercised. Does nothing to a buffer too short for a header.
 */
void ksc_kidx_fix_checksums(void *data, size_t size);
/*
 * Read `path` (its hot part; the file stays open for the records): 0, -ENOENT when
 * absent, -EINVAL when corrupt or foreign, other -errno.
 */
int ksc_kidx_read(const char *path, struct kidx *out) _must_check_;
/*
 * In two steps, for a caller that has work to start before the index is checked:
 * ksc_kidx_open() reads the hot part (pread, never mmap: a file cut short under a mapping
 * kills with SIGBUS) and checks its header and the bounds of its tables (the header's
 * strings: moddir, release are usable); ksc_kidx_finish() checks the rest
 * (checksum first) and fills mods, dirs, outs. Until it returns 0 nothing but the raw
 * accessors below may be used, and what they give may be garbage (in bounds): use it for
 * nothing that outlives a failed ksc_kidx_finish(). Same errors as ksc_kidx_read().
 */
int ksc_kidx_open(const char *path, struct kidx *out) _must_check_;
int ksc_kidx_finish(struct kidx *idx) _must_check_;
/* ksc_kidx_open() of bytes in memory (copied), as ksc_kidx_parse() is of ksc_kidx_read(). */
int ksc_kidx_parse_open(const void *data, size_t size, struct kidx *out) _must_check_;
/* Counts (modules returned, folders in *n_dirs), 0 unless opened. */
size_t ksc_kidx_raw_count(const struct kidx *idx, size_t *n_dirs);
/* Folder i's relpath, inode, mtime; NULL when its string is out of bounds. */
const char *ksc_kidx_raw_dir(const struct kidx *idx, size_t i, uint64_t *ino,
			     int64_t *mtime_ns);
/* Module i's relpath, summary and folder; NULL when its string is out of bounds. */
const char *ksc_kidx_raw_module(const struct kidx *idx, size_t i, struct krec_sum *sum,
				uint32_t *dir);
void ksc_kidx_free(struct kidx *idx);
/*
 * Module i's derived record (bytes, unread) and its size (size may be NULL), or NULL:
 * none, or i too large.
 */
const struct kder *ksc_kidx_der(const struct kidx *idx, size_t i, size_t *size);
/* Are the two lists of folders the same (paths, inodes, modification times, in order)? */
bool ksc_kidx_same_dirs(const struct kidx_dir *a, size_t na, const struct kidx_dir *b,
			size_t nb);
/*
 * ---- the index's contents handed out as values (ksc-modset-index-view.c) ----
 * What the tree reads of the index of its last run, without its fields. Strings and
 * records are the index's: valid until ksc_kidx_free(). Module i is entry i of the
 * index's directory, 0 <= i < ksc_kidx_count(); all but the first three once
 * ksc_kidx_finish() returned 0.
 */
const char *ksc_kidx_moddir(const struct kidx *idx);
const char *ksc_kidx_release(const struct kidx *idx);
bool ksc_kidx_finished(const struct kidx *idx);
size_t ksc_kidx_count(const struct kidx *idx);
/* The fingerprints it was written with (struct kidx_write's); written with derived records? */
enum kidx_fp {
	KIDX_FP_CTX,
	KIDX_FP_DM_WORLD,
	KIDX_FP_ENG_WORLD,
	KIDX_FP_OUT,
	KIDX_FP_ORDER,
	KIDX_FP_MODSET
};
uint64_t ksc_kidx_fp(const struct kidx *idx, enum kidx_fp fp);
bool ksc_kidx_derived(const struct kidx *idx);
/*
 * Module i's relpath; its kmod name, the file it won over (or NULL) and its folder
 * (modname, replaced, dir may be NULL).
 */
const char *ksc_kidx_module(const struct kidx *idx, size_t i, const char **modname,
			    const char **replaced, uint32_t *dir);
/* Module i's summary (the directory's). */
const struct krec_sum *ksc_kidx_module_sum(const struct kidx *idx, size_t i);
/* Module i's facts record once fetched (ksc_kidx_fetch()), else NULL; *rec_hash: its checksum. */
const struct krec *ksc_kidx_module_rec(const struct kidx *idx, size_t i,
				       uint64_t *rec_hash);
/* The folders of the walk that wrote it (struct kidx_write's dirs). */
const struct kidx_dir *ksc_kidx_dirs(const struct kidx *idx, size_t *n);
/* Where depmod's files were last written (or NULL), and what they were: *outs, *n. */
const char *ksc_kidx_outputs(const struct kidx *idx, const struct kidx_output **outs,
			     size_t *n);
/*
 * The index's entry of depmod's file `name` when the file at `path` is still the one
 * written (size, inode, modification time): true and *out (its name the index's).
 */
bool ksc_kidx_output_current(const struct kidx *idx, const char *name, const char *path,
			     struct kidx_output *out);
/* The entry of a file just written, `st` its stat(), `content_hash` its bytes' hash. */
void ksc_kidx_output_set(struct kidx_output *o, const char *name, const struct stat *st,
			 uint64_t content_hash);
/* The same entry named by another copy of its name (one the caller keeps). */
void ksc_kidx_output_rename(struct kidx_output *o, const char *name);

/*
 * The module set's entries (ksc-modset-entries.c): what was read of each module of a list
 * (a tree's, in its order), one owner for it all. Per module (struct ksc_modent): its
 * facts record and summary, and its entry in the index of the last run. A record read
 * this run is the entries' own, freed by ksc_modents_free(); the index's records are
 * borrowed (the index outlives the entries). The caller says when a module was read or
 * taken from the index; the entries keep who owns what.
 */
struct ksc_modents;
struct ksc_modent;
/* n empty entries (nothing read, no index entry): 0 or -ENOMEM. */
int ksc_modents_new(size_t n, struct ksc_modents **out);
void ksc_modents_free(struct ksc_modents *es);
size_t ksc_modents_count(const struct ksc_modents *es);
/* Entry i < ksc_modents_count(): the entries' own (valid until they are freed). */
struct ksc_modent *ksc_modents_at(const struct ksc_modents *es, size_t i);
/* Its summary (zero until read or taken from the index), its facts record (or NULL). */
const struct krec_sum *ksc_modent_sum(const struct ksc_modent *e);
const struct krec *ksc_modent_rec(const struct ksc_modent *e);
/* Are its summary and record the index's (ksc_modent_take_index()), not read this run? */
bool ksc_modent_cached(const struct ksc_modent *e);
/* The index's entry for its path + 1 (0: none); that entry's derived record, or NULL. */
size_t ksc_modent_old(const struct ksc_modent *e);
const struct kder *ksc_modent_old_der(const struct ksc_modent *e);
/* The index's entry k is this module's (its path): its derived record if it has them. */
void ksc_modent_set_old(struct ksc_modent *e, const struct kidx *idx, size_t k);
/* Its file is the one the index read (ksc_modent_old() set): the index's sum and record. */
void ksc_modent_take_index(struct ksc_modent *e, const struct kidx *idx);
/* The index's record, fetched since (ksc_kidx_fetch()). */
void ksc_modent_set_fetched(struct ksc_modent *e, const struct krec *rec);
/*
 * Read this run: `rec` (ksc_mreader_read(), NULL when out of memory) becomes the entry's
 * own, a record it owned before freed; its summary, and its checksum when `hash`.
 * 0, or -ENOMEM when rec is NULL (the entry keeps no record).
 */
int ksc_modent_set_read(struct ksc_modent *e, struct krec *rec, bool hash);
/* Its record's checksum for the index written next: 0 when not known (to be computed). */
uint64_t ksc_modent_rec_hash(const struct ksc_modent *e, const struct kidx *idx);

struct kidx_wmod {
	const struct krec *rec; /* in memory */
	const struct kder *der; /* or NULL */
	uint32_t der_size;      /* its size in bytes, a multiple of 8 */
	uint64_t rec_hash;      /* ksc_hash64(rec, size, 7) when known, else 0 */
	const char *modname;    /* kmod's name */
	uint32_t dir;           /* its folder in kidx_write.dirs, or KREC_NONE */
	const char *replaced;   /* the file of its name it won over, or NULL */
};
struct kidx_write {
	const char *moddir, *release;
	uint64_t ctx_fp, dm_world_fp, eng_world_fp, out_fp, order_fp, modset_fp;
	bool derived;
	const struct kidx_wmod *mods;
	size_t n_mods;
	const char *out_dir;
	const struct kidx_output *outs;
	size_t n_outs;
	const struct kidx_dir *dirs;
	size_t n_dirs;
	bool parallel;          /* may write with a second thread */
};
/* Write atomically (temporary file in the same folder, rename); creates the folder. */
int ksc_kidx_write(const char *path, const struct kidx_write *w) _must_check_;

/* ---- reading a module file into its facts record (ksc-modset-read.c) ---- */

/* A file modified this recently may change again within the clock's granularity. */
#define KSC_RACY_NS 2000000000LL
/*
 * The change time (ctime) is racy for a shorter while where the filesystem keeps
 * nanoseconds: one tick of the kernel's coarse clock (a jiffy, 10 ms at HZ=100, the
 * coarsest). Read later than that, an edit after the read gets another ctime.
 */
#define KSC_CTIME_TICK_NS 10000000LL
/*
 * A racy ctime (an edit in the same tick would keep it): the record is keyed by the
 * file's bytes too (ksc_file_content_hash(), never 0; 0 when it cannot be read).
 */
uint64_t ksc_file_content_hash(int fd, uint64_t size);
static inline bool ksc_ctime_racy(const struct stat *st, int64_t start_ns)
{
	return st_ctime_ns(st) > start_ns - (st->st_ctim.tv_nsec ? KSC_CTIME_TICK_NS : KSC_RACY_NS);
}

/* The calling thread's CPU time in ns: what the workers' split reports, whatever the load. */
static inline uint64_t ksc_thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* A thread's messages: kept per module (into its record) or replayed by the main thread. */
struct ksc_msgbuf {
	int *prio;
	char **text;
	size_t n, cap, cap_prio;
	int oom;
};
/* A log function (data: its struct ksc_msgbuf). */
void ksc_msgbuf_log(void *data, int priority, const char *msg);
void ksc_msgbuf_clear(struct ksc_msgbuf *b);
/* Say its messages into ctx, in order, as they were logged (already escaped and cut). */
void ksc_msgbuf_replay(const struct ksc_msgbuf *b, struct ksc_ctx *ctx);
void ksc_msgbuf_fini(struct ksc_msgbuf *b);

/* One thread's reader: its buffers reused from file to file. Opaque. */
struct ksc_mreader;
int ksc_mreader_new(struct ksc_mreader **out) _must_check_;
void ksc_mreader_free(struct ksc_mreader *w);
/* What a reader spent (CPU ns, with `timing`) and read. */
struct ksc_mread_stats {
	uint64_t ns_read, ns_decompress, ns_parse, bytes_read, bytes_decompressed;
};
/* Its statistics so far; true when it ran out of memory at some point. */
bool ksc_mreader_stats(const struct ksc_mreader *w, struct ksc_mread_stats *st);
/* One file to read: opened by the caller (fd, closed by the reader), or why not. */
struct ksc_mread {
	int fd;               /* or -1: open_err (-errno) says why it could not be opened */
	int open_err;
	const char *path;     /* for messages */
	const char *relpath;  /* below the module folder: the record's */
	int64_t start_ns;     /* the run's start (CLOCK_REALTIME): newer files are racy */
	bool timing;          /* keep the CPU times */
};
/*
 * Read it into a facts record (malloc'd; what reading it logged is in the record, at
 * KSC_LOG_WARNING and above): the file's problems are facts of the record, not errors.
 * NULL only when out of memory.
 */
struct krec *ksc_mreader_read(struct ksc_mreader *w, const struct ksc_mread *in);
/*
 * Is dfd/name the file a record was read from (o: its key, or NULL): a regular file of
 * the same size, inode, modification time and change time (an edit in place with the
 * modification time put back still changes the last), and, for a key made while the
 * file could still change, the same bytes? A racy key never matches.
 */
bool ksc_krec_sum_same_file(const struct krec_sum *o, int dfd, const char *name);
/* What reading the record's file gave: 0 when the library's reader read it, else its -errno. */
int ksc_krec_sum_read_error(const struct krec_sum *s);
/* What the file is (a module, a kernel image ...), when read. */
enum ksc_module_kind ksc_krec_sum_kind(const struct krec_sum *s);
/*
 * The rest of a summary handed out (ksc-modset-facts.c): a module the library's reader
 * read (a provider, and checkable), how many messages reading it logged, whether its key
 * was racy (KREC_RACY: never matches), and its fingerprints (struct krec's *_hash).
 */
bool ksc_krec_sum_is_module(const struct krec_sum *s);
size_t ksc_krec_sum_msg_count(const struct krec_sum *s);
bool ksc_krec_sum_racy(const struct krec_sum *s);
enum krec_hash { KREC_H_FACTS, KREC_H_KEXP, KREC_H_KMOD, KREC_H_PROV };
uint64_t ksc_krec_sum_hash(const struct krec_sum *s, enum krec_hash h);

/* ---- the module set (ksc-modset.c) ---- */

/*
 * The files depmod keeps in one release's module folder, one per name, in path order
 * (walk order after ksc_modset_walk()),
 * and each one's facts: the index's record when the index read that very file, else the
 * file read now. Opaque.
 */
struct ksc_modset;
struct ksc_modset_where {
	const char *root;     /* for depmod.d ("" or "/": this machine) */
	const char *release;
	const char *moddir;   /* the module folder, as messages name it */
	const char *index;    /* the index file to use and keep, or NULL */
	bool no_walk;         /* the caller adds the files (ksc_modset_add()) */
	bool few;             /* few records wanted: found by the index's lookup table, its
			       * whole directory read only when every record is wanted */
	bool defer_map;       /* with few: the table read by the caller, given to the job
			       * (ksc_modset_job_give_map()) instead of read here */
	struct ksc_statq_door *door; /* the job's: its waiter stats beside the walk */
};
/*
 * depmod.d read and the folder walked (its problems logged into ctx and counted:
 * ksc_modset_walk_errors()), the index attached when it is this folder's. 0 or -errno.
 */
int ksc_modset_open(struct ksc_ctx *ctx, const struct ksc_modset_where *w,
		    struct ksc_modset **out) _must_check_;
void ksc_modset_free(struct ksc_modset *ms);
/*
 * ksc_modset_open() in a thread of its own, so that the caller reads what needs no walk
 * (depmod's files, the modules it checks) while the folder is walked: on a warm check of
 * one module the walk is most of the time. What the walk logs is held and said into ctx
 * by ksc_modset_job_wait(), in its order, as ksc_modset_open() would have said it then.
 * w's strings are copied. Without a thread (pthread_create() failing) it runs here.
 */
struct ksc_modset_job;
struct kidx_map;
int ksc_modset_open_start(struct ksc_ctx *ctx, const struct ksc_modset_where *w,
			  struct ksc_modset_job **out) _must_check_;
/*
 * The index's lookup table the caller read while the walk ran (ksc_kidx_map(): the map,
 * or NULL and its error), for a job started with defer_map: the set takes it once walked,
 * as ksc_modset_open() would have read it. The caller uses it no more.
 */
void ksc_modset_job_give_map(struct ksc_modset_job *job, struct kidx_map *map, int err);
/* The set, once walked (the job's: freed by ksc_modset_job_free()), or NULL with *err. */
struct ksc_modset *ksc_modset_job_wait(struct ksc_modset_job *job, int *err);
void ksc_modset_job_free(struct ksc_modset_job *job);
/* The index the job's set takes its records from (where.index), or NULL. */
const char *ksc_modset_job_index_path(const struct ksc_modset_job *job);
/* A file the caller walked (no_walk), its record known: `rec` must outlive the set. */
int ksc_modset_add(struct ksc_modset *ms, const char *relpath, const char *replaced,
		   const struct krec *rec) _must_check_;
size_t ksc_modset_count(const struct ksc_modset *ms);
/* File i: its path (the module folder as given, '/', relpath), relpath, kmod name. */
const char *ksc_modset_path(const struct ksc_modset *ms, size_t i);
const char *ksc_modset_relpath(const struct ksc_modset *ms, size_t i);
const char *ksc_modset_name(const struct ksc_modset *ms, size_t i);
/* The file of its name it won over (relative), or NULL. */
const char *ksc_modset_replaced(const struct ksc_modset *ms, size_t i);
/* Its modification time as the walk met it (ns). */
int64_t ksc_modset_mtime(const struct ksc_modset *ms, size_t i);
/* The file of kmod name `name`: true and *i. */
bool ksc_modset_find(const struct ksc_modset *ms, const char *name, size_t *i);
const struct ksc_depmod_cfg *ksc_modset_cfg(const struct ksc_modset *ms);
const char *ksc_modset_moddir(const struct ksc_modset *ms);
/* The index file it uses and keeps, or NULL. */
const char *ksc_modset_index_path(const struct ksc_modset *ms);
unsigned int ksc_modset_walk_errors(const struct ksc_modset *ms);
/*
 * The files of the set this process may not read (their mode, then faccessat()): no walk
 * problem, but what the whole read reports of them (PATH: Permission denied) a road that
 * reads only some files would not say, so it does not stand in for the whole read.
 */
unsigned int ksc_modset_unreadable(const struct ksc_modset *ms);
/*
 * The walk of a set opened with no_walk, its problems kept as data: its files added (in
 * walk order, without their keys: a record is never taken from the index for them), what
 * else it met in ksc_modset_walk_result(). Once per set. 0 or -errno.
 */
int ksc_modset_walk(struct ksc_ctx *ctx, struct ksc_modset *ms) _must_check_;
/* What that walk met (owned by the set), or NULL before it. */
const struct ksc_walkres *ksc_modset_walk_result(const struct ksc_modset *ms);
/* Does the index hold every file, each one current? */
bool ksc_modset_all_indexed(struct ksc_modset *ms);
/* File i's facts record (owned by the set): the index's, or read now. 0 or -ENOMEM. */
int ksc_modset_record(struct ksc_modset *ms, size_t i, const struct krec **out) _must_check_;
/*
 * File i's imports, its record's (weak ones too), each name given to fn (valid as long as
 * the set), in the record's order; stops at fn's <0. 0, that value, or -ENOMEM.
 */
int ksc_modset_each_import(struct ksc_modset *ms, size_t i,
			   int (*fn)(void *data, const char *sym), void *data) _must_check_;
/*
 * File i as the library's reader gives it (strings copied: it outlives the set), what
 * reading it logged said into ctx, its path as given. -errno of the reader when it
 * could not be read (said), -ENOMEM.
 */
int ksc_modset_module(struct ksc_modset *ms, size_t i, struct ksc_ctx *ctx,
		      struct ksc_module **out) _must_check_;
/*
 * The file whose stat() (as the caller's path reaches it: any link, a hard link) is `st`,
 * when it is one the set keeps: the same device and inode, and the size and times the
 * walk met. true and *i.
 */
bool ksc_modset_find_file(const struct ksc_modset *ms, const struct stat *st, size_t *i);
/*
 * File i as ksc_modset_module() gives it, from the index's record only, named `path`
 * (the module's path, the names it gets from it, and the messages of the reader, said
 * again into ctx): 0
 * and *out; 1 when the index holds no current record of it that the reader accepted
 * (the caller reads the file); -ENOMEM.
 */
int ksc_modset_module_indexed(struct ksc_modset *ms, size_t i, const char *path,
			      struct ksc_ctx *ctx, struct ksc_module **out) _must_check_;
/* Every record known: the files the index does not hold read in `jobs` threads. */
int ksc_modset_read_all(struct ksc_modset *ms, unsigned int jobs,
			void (*progress)(void *, const char *, size_t, size_t),
			void *pdata) _must_check_;
/*
 * Write the index when a file was read (its folder made; another folder's index, and
 * one `tree` wrote with its results, are left alone). 0 or -errno (the caller may go on
 * without it).
 */
int ksc_modset_save_index(struct ksc_modset *ms) _must_check_;

/*
 * The index read in place, for one module or a few (the warm path of `check -k ROOT
 * ONE.ko`): its lookup table, kmod names and paths sorted, leads to one facts record,
 * which alone is read and checked (its checksum, every bound, and that it is the record
 * the table names). Cost: ksc_kidx_map() reads the header and the lookup table (about
 * 130 bytes a module: 0.55 MB for 4,216 modules) and checks the table's checksum; each
 * lookup is a binary search (no read) and one pread() of its record (a few KB), kept
 * for the next lookup of the same module (7.2's index: a process that opens it and finds
 * one module takes 1 ms, one that loads it whole 8 ms; bench/index.sh). Nothing is
 * mapped: a file cut short, edited
 * or replaced while it is open gives -EINVAL (or the old file's consistent bytes),
 * never SIGBUS. One thread at a time per map.
 */
struct kidx_map;
/* 0; -ENOENT when absent; -EINVAL corrupt, foreign, of another format version; -errno. */
int ksc_kidx_map(const char *path, struct kidx_map **out) _must_check_;
/* The same for bytes in memory (copied): tests and fuzzing. */
int ksc_kidx_map_mem(const void *data, size_t size, struct kidx_map **out) _must_check_;
void ksc_kidx_unmap(struct kidx_map *m);
/* The module folder and kernel release the index was written for (owned by the map). */
const char *ksc_kidx_map_moddir(const struct kidx_map *m);
const char *ksc_kidx_map_release(const struct kidx_map *m);
size_t ksc_kidx_map_count(const struct kidx_map *m);
/* The kmod name of entry i (in name order), or NULL (out of range, or corrupt). */
const char *ksc_kidx_map_name(const struct kidx_map *m, size_t i);
struct kidx_hit {
	const char *name;       /* kmod's name (owned by the map) */
	const char *relpath;    /* below the module folder (owned by the map) */
	uint32_t module;        /* its entry in the index's directory (struct kidx.mods) */
	const struct krec *rec; /* checked; owned by the map, valid until ksc_kidx_unmap() */
	struct krec_sum key;    /* the file as it was read: size, inode, mtime, ctime, ... */
};
/*
 * The module of kmod name `name` ('-' and '_' alike, as kmod compares them): 0 and *hit;
 * -ENOENT not listed; -EINVAL its entry or record is corrupt (read the module instead);
 * -ENOMEM; -errno of the read. The record describes the file only while
 * ksc_kidx_key_matches() says so of the file's stat().
 */
int ksc_kidx_find(struct kidx_map *m, const char *name, struct kidx_hit *hit) _must_check_;
/* The same by path below the module folder ("kernel/arch/x86/kvm/kvm-amd.ko.xz"). */
int ksc_kidx_find_path(struct kidx_map *m, const char *relpath,
		       struct kidx_hit *hit) _must_check_;
/*
 * Is the file whose stat() is `st` the one the record was read from: a regular file of
 * the same size, inode, modification time and change time? A key made while the file
 * could still change (mtime or ctime too recent when it was read) never matches: the
 * caller reads the module.
 */
bool ksc_kidx_key_matches(const struct krec_sum *key, const struct stat *st);
/*
 * Before any walk: the module at `path` (its stat() `st`) from the record of `rel` (its
 * path below the module folder `moddir` of `release`) in the table, when the index is
 * that folder's and `path` the file that record was read from (ksc_kidx_key_matches()),
 * named and its reading's messages said as ksc_modset_module_indexed() does. 0 and *out;
 * 1 no current record (the caller asks the set, or reads the file); -errno.
 */
int ksc_kidx_map_module(struct kidx_map *map, const char *moddir, const char *release,
			const char *rel, const char *path, const struct stat *st,
			struct ksc_ctx *ctx, struct ksc_sigscratch *sig,
			struct ksc_module **out) _must_check_;
