/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The report wing (doc/architecture.md): the export surface of a kernel (ksc-audit.c),
 * the changes between two kernels (ksc-diff.c), and modules against several kernels
 * (ksc-compat.c, ksc-compat-btf.c). It reads kernels and modules through the kernel wing
 * and checks them through the engine; it uses no tree, so it ranks beside the tree wing.
 * Each file includes the wings it uses; this header holds only what its files share.
 */
#pragma once

#include <stdbool.h>

/*
 * lib/report/ksc-compat-btf.c: one kernel's BTF (libbpf), for compat. _open(): 0, or
 * -errno of reading or parsing `path`, -ENOMEM.
 */
struct ksc_compat_btf;
int ksc_compat_btf_open(const char *path, struct ksc_compat_btf **out);
void ksc_compat_btf_free(struct ksc_compat_btf *b);
/* What _compare() found; each returns 0 or -ENOMEM. */
struct ksc_compat_type_fn {
	/* the prototype (func) or the variable's type differs: both as C */
	int (*type_changed)(void *data, bool func, const char *from, const char *to);
	/* struct `name`, taken or returned through a pointer, lost members or changed their
	 * types: their names (','-separated) and their declarations ("; "-separated; `to`
	 * lists only those still there) */
	int (*member_changes)(void *data, const char *name, const char *members,
			      const char *from, const char *to);
};
/* Compare exported symbol `sym` between two kernels' BTF. 0 or -ENOMEM. */
int ksc_compat_btf_compare(const struct ksc_compat_btf *o, const struct ksc_compat_btf *n,
			   const char *sym, struct ksc_compat_type_fn fn, void *data);
