/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The report wing (doc/architecture.md): the export surface of a kernel (ksc-audit.c),
 * the changes between two kernels (ksc-diff.c), and modules against several kernels
 * (ksc-compat*.c, their run state in compat-private.h). It reads kernels and modules
 * through the kernel wing and checks them through the engine; it uses no tree, so it
 * ranks beside the tree wing.
 * Each file includes the wings it uses; this header holds only what its files share.
 */
#pragma once

#include <stdbool.h>

struct ksc_ctx;

/*
 * lib/report/ksc-compat-btf.c: one kernel's BTF (libbpf), for compat. _open(): 0, or
 * -errno of reading or parsing `path`, -ENOMEM. _open_split(): a module's own .BTF
 * (the file decompressed as a module is), split on its kernel's BTF `base` (which must
 * outlive it): 0, -ENOENT (no .BTF), -ENOEXEC (bad BTF, or BTF of another base), or the
 * -errno of reading it (logged).
 */
struct ksc_compat_btf;
int ksc_compat_btf_open(const char *path, struct ksc_compat_btf **out);
int ksc_compat_btf_open_split(struct ksc_ctx *ctx, const char *path,
			      const struct ksc_compat_btf *base, struct ksc_compat_btf **out);
void ksc_compat_btf_free(struct ksc_compat_btf *b);
/* What _compare() found; each returns 0 or -ENOMEM. */
struct ksc_compat_type_fn {
	/* the prototype (func) or the variable's type differs: both as C */
	int (*type_changed)(void *data, bool func, const char *from, const char *to);
	/* struct `name` lost members (`removed`) or changed their types (`retyped`), both
	 * ','-separated names ("" for none), and their declarations ("; "-separated; `to`
	 * lists only those still there) */
	int (*member_changes)(void *data, const char *name, const char *removed,
			      const char *retyped, const char *from, const char *to);
};
/* The member changes of struct `name` from o to n (nothing when either lacks it). */
int ksc_compat_btf_struct_changes(const struct ksc_compat_btf *o, const struct ksc_compat_btf *n,
				  const char *name, struct ksc_compat_type_fn fn, void *data);
bool ksc_compat_btf_has_struct(const struct ksc_compat_btf *b, const char *name);
bool ksc_compat_btf_same_struct(const struct ksc_compat_btf *a, const struct ksc_compat_btf *b,
				const char *name);
/* fn for each named struct or union of b's own (not its base's); stops at fn's < 0. */
int ksc_compat_btf_own_structs(const struct ksc_compat_btf *b,
			       int (*fn)(void *data, const char *name), void *data);
/* Does o describe `osym` as n describes `nsym` (the same prototype or type)? false when
 * either does not describe it. */
bool ksc_compat_btf_same_symbol_type(const struct ksc_compat_btf *o, const char *osym,
				     const struct ksc_compat_btf *n, const char *nsym);
/* Compare exported symbol `sym` between two kernels' BTF. 0 or -ENOMEM. */
int ksc_compat_btf_compare(const struct ksc_compat_btf *o, const struct ksc_compat_btf *n,
			   const char *sym, struct ksc_compat_type_fn fn, void *data);

/*
 * lib/report/ksc-compat-cache.c: one compat cell's BTF findings kept for the next run
 * (records of a kind letter and fields). _key(): a hash of the identity of each path
 * (33 bytes with the NUL). _load(): 0 (replay from the start), or -errno (none, or not
 * one of ours: record anew). _next(): the next record when its kind is one of `kinds`
 * and its first field is `first`: v[0] the kind (a one-letter string), then the fields;
 * their count, or 0 (nothing consumed). _save(): written atomically (folders made).
 */
struct ksc_compat_memo {
	char *data;
	size_t n, cap;
	char **lines;
	size_t n_lines, cap_lines, pos;
	bool replay;
};
void ksc_compat_memo_key(const char *const *paths, size_t n, char out[33]);
/* A hash of every folder below dir and of every .c and .h file in them: their relative
 * paths, times (a file's change time too) and inodes. */
void ksc_compat_tree_identity(const char *dir, char out[17]);
int ksc_compat_memo_add(struct ksc_compat_memo *m, char kind, const char *const *fields, size_t n);
int ksc_compat_memo_load(const char *dir, const char *key, struct ksc_compat_memo *m);
size_t ksc_compat_memo_next(struct ksc_compat_memo *m, const char *kinds, const char *first,
			    const char **v, size_t max);
int ksc_compat_memo_save(const char *dir, const char *key, const struct ksc_compat_memo *m);
void ksc_compat_memo_fini(struct ksc_compat_memo *m);
