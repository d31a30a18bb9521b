/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tree wing (doc/architecture.md): a whole /lib/modules/KVER as depmod and the loader
 * see it. This header holds what the tree shares with the fuzzers and tests: depmod's
 * formats (ksc-tree-format.c) and the derived record, the tree's results for a module
 * kept in the index (ksc-tree-derived.c). The tree's own internals are in
 * tree-private.h; the index and its facts records are the module set's
 * (modset/modset.h), which keeps a derived record as bytes.
 */
#pragma once

#include "kernel/kernel.h"
#include "modset/modset.h"

/* ---- the derived record (ksc-tree-derived.c) ---- */

#define KDER_MAGIC 0x3144524bu /* "KRD1" */
enum {
	KDER_F_CHECKED = 1u << 0,    /* the verdict below exists */
	KDER_F_MODPOST_OK = 1u << 1,
};
#define KDER_F_ALL 3u
enum { KDER_UNKNOWN_SYMBOL = 1, KDER_CRC_DIFFERS = 2 };

/* n elements at offset off from the record's start (the layout of modset.h's krange). */
struct kder_range {
	uint32_t off, n;
};
/*
 * Results that depend on the other modules and the kernel (valid while fingerprints
 * hold), position independent as a facts record (modset.h): offsets from its start,
 * strings in its own table.
 */
struct kder {
	uint32_t magic;
	uint32_t size;
	uint32_t flags;
	int32_t loader_err;
	uint32_t loader_name, modpost_name; /* the verdict's names (strings), when checked */
	struct kder_range deps;   /* uint32_t module indices, in the order depmod adds them */
	struct kder_range unres;  /* struct kder_unres */
	struct kder_range diags;  /* struct kder_diag */
	struct kder_range strtab; /* written by rbuf_finish() */
};
struct kder_unres {
	uint32_t name, kind;
};
struct kder_diag {
	uint32_t view, severity;
	int32_t err;
	uint32_t code, rule, module, symbol, ns, owner, summary, kernel_lines, explanation, fix;
};
static inline const char *kder_str(const struct kder *d, uint32_t off)
{
	return off == KREC_NONE ? NULL : (const char *)d + d->strtab.off + off;
}
static inline const void *kder_arr(const struct kder *d, struct kder_range g)
{
	return (const char *)d + g.off;
}
/*
 * Check a derived record of `size` bytes (8-aligned) of an index of n_modules: every
 * range, string, enum and module index. 0 or -EINVAL.
 */
int ksc_kder_validate(const struct kder *d, size_t size, size_t n_modules);
/* Every derived record of a finished index checked: 0 or -EINVAL (the index is corrupt). */
int ksc_kder_validate_index(const struct kidx *idx);

/* depmod's orders and dependency sort (ksc-tree-format.c). */
/* kmod's shared/hash.c bucket hash (Paul Hsieh's SuperFastHash, x86 byte semantics). */
uint32_t ksc_kmod_hash(const char *key, size_t len);
int ksc_depmod_hash_order(const char *const *names, size_t n, uint32_t buckets,
			  uint32_t *order) _must_check_;
bool ksc_depmod_rank(const char *data, size_t size, size_t (*lookup)(void *, const char *),
		     void *ldata, int *rank);
size_t ksc_depmod_sort(size_t n, uint32_t *const *deps, const uint32_t *n_deps, int *sort_idx);
size_t ksc_depmod_all_deps(uint32_t m, uint32_t *const *deps, const uint32_t *n_deps,
			   const int *sort_idx, unsigned char *mark, uint32_t **out);
int ksc_depmod_cycles(size_t n, uint32_t *const *deps, const uint32_t *n_deps,
		      const int *sort_idx, uint32_t **out, size_t **lens);
struct ksc_depmod_mod {
	const char *relpath, *modname;
	const struct krec *rec;   /* modinfo for aliases, softdeps, devnames; may be NULL */
	const uint32_t *deps;     /* direct dependencies */
	uint32_t n_deps;
	bool left_out;            /* an unsafe file name: in none of the files */
};
struct ksc_depmod_sym {
	const char *name;
	uint32_t owner;           /* module index */
	uint32_t bucket;          /* scratch */
};
/*
 * Why a module's path (below the module folder) cannot be written into depmod's files,
 * or NULL: a space, a colon or a control character would split or forge a line.
 */
const char *ksc_depmod_path_fault(const char *relpath);
/*
 * Why .modinfo's `key`=`value` (alias or softdep) cannot be written into its depmod file,
 * or NULL: a control character; for an alias also a space, an empty value or a leading
 * '#' (ksc-tree-format.c says why).
 */
const char *ksc_depmod_value_fault(const char *key, const char *value);
/* May an exported symbol's name be written into modules.symbols? */
bool ksc_depmod_symbol_ok(const char *name);
/*
 * One file's bytes (malloc'd) for a single KSC_DEPMOD_* value; syms is reordered. Modules
 * left_out, and the values and symbols refused above, are not written.
 */
int ksc_depmod_format(unsigned int what, const struct ksc_depmod_mod *mods, size_t n,
		      const int *sort_idx, struct ksc_depmod_sym *syms, size_t n_syms,
		      char **data, size_t *size) _must_check_;
