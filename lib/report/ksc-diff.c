// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What changed in the export surface between two kernels: symbols removed and added, and
 * for a symbol in both, its GPL-only marking (R3), its namespace (R1/R2), a 6.16+
 * module-restricted namespace (R7/R8), its modversions CRC (R21) and its owner. Both sides
 * are compared by the provider the loader would find first (vmlinux, then modules).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "report/report.h"
#include "util/array.h"

struct ksc_diff {
	struct ksc_change *changes;
	size_t n, cap;
	size_t counts[KSC_CHANGE_KIND_COUNT];
};

static const char *const kind_names[KSC_CHANGE_KIND_COUNT] = {
	[KSC_CHANGE_REMOVED] = "removed",
	[KSC_CHANGE_ADDED] = "added",
	[KSC_CHANGE_BECAME_GPL_ONLY] = "became-gpl-only",
	[KSC_CHANGE_NO_LONGER_GPL_ONLY] = "no-longer-gpl-only",
	[KSC_CHANGE_NS_GAINED] = "namespace-gained",
	[KSC_CHANGE_NS_LOST] = "namespace-lost",
	[KSC_CHANGE_NS_CHANGED] = "namespace-changed",
	[KSC_CHANGE_BECAME_RESTRICTED] = "became-module-restricted",
	[KSC_CHANGE_RESTRICTION_CHANGED] = "restriction-changed",
	[KSC_CHANGE_RESTRICTION_LIFTED] = "restriction-lifted",
	[KSC_CHANGE_CRC] = "crc-changed",
	[KSC_CHANGE_OWNER] = "owner-changed",
};

KSC_EXPORT const char *ksc_change_kind_name(enum ksc_change_kind kind)
{
	return (unsigned)kind < KSC_CHANGE_KIND_COUNT ? kind_names[kind] : "unknown";
}

static int add(struct ksc_diff *d, enum ksc_change_kind kind, const struct kprov *o,
	       const struct kprov *n)
{
	if (array_reserve(d->changes, d->cap, d->n + 1, 256) < 0)
		return -ENOMEM;
	struct ksc_change *c = &d->changes[d->n++];
	c->kind = kind;
	c->old = o ? ksc_kprov_export(o) : NULL;
	c->new = n ? ksc_kprov_export(n) : NULL;
	c->symbol = o ? c->old->name : c->new->name;
	c->old_owner = o ? ksc_kprov_owner_name(o) : NULL;
	c->new_owner = n ? ksc_kprov_owner_name(n) : NULL;
	d->counts[kind]++;
	return 0;
}

/* The namespace changes of one symbol, module-restricted ones told apart (R7). */
static int ns_changes(struct ksc_diff *d, const struct kprov *o, const struct kprov *n)
{
	const char *a = ksc_kprov_export(o)->ns, *b = ksc_kprov_export(n)->ns;
	bool ra = ksc_namespace_is_module_restricted(a), rb = ksc_namespace_is_module_restricted(b);

	if (strcmp(a, b) == 0)
		return 0;
	if (!ra && rb)
		return add(d, KSC_CHANGE_BECAME_RESTRICTED, o, n);
	if (ra && rb)
		return add(d, KSC_CHANGE_RESTRICTION_CHANGED, o, n);
	if (ra && !rb)
		return add(d, KSC_CHANGE_RESTRICTION_LIFTED, o, n);
	if (!a[0])
		return add(d, KSC_CHANGE_NS_GAINED, o, n);
	if (!b[0])
		return add(d, KSC_CHANGE_NS_LOST, o, n);
	return add(d, KSC_CHANGE_NS_CHANGED, o, n);
}

static int cmp_change(const void *x, const void *y)
{
	const struct ksc_change *a = x, *b = y;
	int c = strcmp(a->symbol, b->symbol);

	return c ? c : (int)a->kind - (int)b->kind;
}

KSC_EXPORT int ksc_kernel_diff(struct ksc_kernel *old, struct ksc_kernel *new,
			       struct ksc_diff **out)
{
	struct ksc_diff *d = calloc(1, sizeof(*d));
	int r;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	if ((r = ksc_kernel_build_index(old)) < 0 || (r = ksc_kernel_build_index(new)) < 0)
		goto err;
	/* CRCs are compared only when both loaders check them: a kernel without
	 * modversions writes 0 for every symbol (one change, not one per symbol) */
	bool crcs = ksc_kernel_has_modversions(old) == 1 && ksc_kernel_has_modversions(new) == 1;

	for (size_t i = 0; i < ksc_kernel_prov_count(old); i++) {
		const struct kprov *o = ksc_kernel_prov(old, i);
		const struct ksc_export *oe = ksc_kprov_export(o);
		/* Each name once: its first provider, as the loader would find it. */
		if (ksc_kernel_first_prov(old, oe->name) != o)
			continue;
		const struct kprov *n = ksc_kernel_first_prov(new, oe->name);
		if (!n) {
			r = add(d, KSC_CHANGE_REMOVED, o, NULL);
			if (r < 0)
				goto err;
			continue;
		}
		const struct ksc_export *ne = ksc_kprov_export(n);
		if (oe->gpl_only != ne->gpl_only) {
			r = add(d, ne->gpl_only ? KSC_CHANGE_BECAME_GPL_ONLY
						   : KSC_CHANGE_NO_LONGER_GPL_ONLY, o, n);
			if (r < 0)
				goto err;
		}
		r = ns_changes(d, o, n);
		if (r < 0)
			goto err;
		if (crcs && oe->has_crc && ne->has_crc && oe->crc != ne->crc) {
			r = add(d, KSC_CHANGE_CRC, o, n);
			if (r < 0)
				goto err;
		}
		if (strcmp(ksc_kprov_owner_name(o), ksc_kprov_owner_name(n)) != 0) {
			r = add(d, KSC_CHANGE_OWNER, o, n);
			if (r < 0)
				goto err;
		}
	}
	for (size_t i = 0; i < ksc_kernel_prov_count(new); i++) {
		const struct kprov *n = ksc_kernel_prov(new, i);
		const char *name = ksc_kprov_export(n)->name;
		if (ksc_kernel_first_prov(new, name) != n)
			continue;
		if (!ksc_kernel_first_prov(old, name)) {
			r = add(d, KSC_CHANGE_ADDED, NULL, n);
			if (r < 0)
				goto err;
		}
	}
	if (d->n > 1)
		qsort(d->changes, d->n, sizeof(*d->changes), cmp_change);
	*out = d;
	return 0;
err:
	ksc_diff_free(d);
	return r;
}

KSC_EXPORT struct ksc_diff *ksc_diff_free(struct ksc_diff *d)
{
	if (d) {
		free(d->changes);
		free(d);
	}
	return NULL;
}

KSC_EXPORT size_t ksc_diff_count_kind(const struct ksc_diff *d, enum ksc_change_kind kind)
{
	return (unsigned)kind < KSC_CHANGE_KIND_COUNT ? d->counts[kind] : 0;
}

KSC_DEFINE_INDEXED_GETTERS(ksc_diff_get_count, ksc_diff_get,
			   struct ksc_diff, struct ksc_change,
			   changes, n)
