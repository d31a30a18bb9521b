/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tree wing (doc/architecture.md): a whole /lib/modules/KVER as depmod and the loader
 * see it. This header holds what the tree shares with the fuzzers: depmod's formats
 * (ksc-tree-format.c). The tree's own internals are in tree-private.h; the index and its
 * records are the module set's (modset/modset.h).
 */
#pragma once

#include "kernel/kernel.h"
#include "modset/modset.h"

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
