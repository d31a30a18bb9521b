// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The derived record (tree.h): the tree's results for one module, kept in the index
 * beside its facts record. The index (modset/ksc-modset-index.c) stores and checksums its
 * bytes without reading them; this file checks what they say before the tree uses them,
 * as ksc-modset-valid.c checks a facts record. A lower file of the tree: it calls no
 * other.
 */
#include <errno.h>

#include "tree/tree.h"

/* modset.h's check of a range, on the derived record's own kind of range */
static bool range_ok(struct kder_range g, size_t elem, size_t align, size_t size)
{
	return ksc_krange_ok((struct krange){ g.off, g.n }, elem, align, sizeof(struct kder),
			     size);
}

int ksc_kder_validate(const struct kder *d, size_t size, size_t n_modules)
{
	const size_t H = sizeof(struct kder);

	if (size < H || size % 8 || d->magic != KDER_MAGIC || d->size != size ||
	    (d->flags & ~KDER_F_ALL))
		return -EINVAL;
	if (!range_ok(d->strtab, 1, 1, size) || d->strtab.n == 0 ||
	    !range_ok(d->deps, 4, 4, size) ||
	    !range_ok(d->unres, sizeof(struct kder_unres), 4, size) ||
	    !range_ok(d->diags, sizeof(struct kder_diag), 4, size))
		return -EINVAL;
	const char *st = (const char *)d + d->strtab.off;
	uint32_t sn = d->strtab.n;
	if (st[0] != '\0' || st[sn - 1] != '\0')
		return -EINVAL;
	if (!(d->flags & KDER_F_CHECKED) &&
	    (d->diags.n || d->loader_err || (d->flags & KDER_F_MODPOST_OK)))
		return -EINVAL;
	if (!ksc_kstr_ok(d->loader_name, sn, true) || !ksc_kstr_ok(d->modpost_name, sn, true) ||
	    ((d->flags & KDER_F_CHECKED) &&
	     (d->loader_name == KREC_NONE || d->modpost_name == KREC_NONE)))
		return -EINVAL;
	if (d->loader_err > 0 || d->loader_err < -4095)
		return -EINVAL;
	const uint32_t *dp = kder_arr(d, d->deps);
	for (size_t i = 0; i < d->deps.n; i++)
		if (dp[i] >= n_modules)
			return -EINVAL;
	const struct kder_unres *u = kder_arr(d, d->unres);
	for (size_t i = 0; i < d->unres.n; i++)
		if (!ksc_kstr_ok(u[i].name, sn, false) ||
		    (u[i].kind != KDER_UNKNOWN_SYMBOL && u[i].kind != KDER_CRC_DIFFERS))
			return -EINVAL;
	const struct kder_diag *g = kder_arr(d, d->diags);
	for (size_t i = 0; i < d->diags.n; i++) {
		if ((g[i].view != KSC_VIEW_LOADER && g[i].view != KSC_VIEW_MODPOST) ||
		    g[i].severity > KSC_SEV_ERROR || g[i].err > 0 || g[i].err < -4095 ||
		    !ksc_kstr_ok(g[i].code, sn, false) || !ksc_kstr_ok(g[i].rule, sn, true) ||
		    !ksc_kstr_ok(g[i].module, sn, false) || !ksc_kstr_ok(g[i].symbol, sn, true) ||
		    !ksc_kstr_ok(g[i].ns, sn, true) || !ksc_kstr_ok(g[i].owner, sn, true) ||
		    !ksc_kstr_ok(g[i].summary, sn, true) ||
		    !ksc_kstr_ok(g[i].kernel_lines, sn, true) ||
		    !ksc_kstr_ok(g[i].explanation, sn, true) || !ksc_kstr_ok(g[i].fix, sn, true))
			return -EINVAL;
	}
	return 0;
}

int ksc_kder_validate_index(const struct kidx *idx)
{
	size_t nd, n = ksc_kidx_raw_count(idx, &nd), size;

	for (size_t i = 0; i < n; i++) {
		const struct kder *d = ksc_kidx_der(idx, i, &size);
		if (d && ksc_kder_validate(d, size, n) < 0)
			return -EINVAL;
	}
	return 0;
}
