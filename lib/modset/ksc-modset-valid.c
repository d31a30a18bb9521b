// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The index's records checked before use: every range inside the record and aligned,
 * every string offset inside its string table (whose first and last bytes are NUL),
 * every enum and flag known. A record that fails is not used: the module is read again.
 */
#include <errno.h>
#include <string.h>

#include "modset/modset.h"

/* off + n * elem lies inside [sizeof header, size), aligned. */
static bool range_ok(struct krange g, size_t elem, size_t align, size_t hdr, size_t size)
{
	if (g.n == 0)
		return g.off <= size;
	if (g.off < hdr || g.off % align || g.off > size)
		return false;
	return (uint64_t)g.n * elem <= size - g.off;
}

static bool str_ok(uint32_t off, uint32_t strsize, bool null_ok)
{
	return off == KREC_NONE ? null_ok : off < strsize;
}

int ksc_krec_validate(const struct krec *r, size_t size)
{
	const size_t H = sizeof(struct krec);

	if (size < H || size % 8 || r->magic != KREC_MAGIC || r->size != size)
		return -EINVAL;
	if (r->flags & ~KREC_F_ALL)
		return -EINVAL;
	if (r->kind > KSC_KIND_VMLINUX || r->compression > KSC_COMPRESSION_ZSTD ||
	    r->layout > KSC_LAYOUT_PREL32_3 ||
	    (r->elf_class != 0 && r->elf_class != 32 && r->elf_class != 64) ||
	    (r->sections >> ksc_elf_section_count) != 0)
		return -EINVAL;
	if (!range_ok(r->strtab, 1, 1, H, size) || r->strtab.n == 0)
		return -EINVAL;
	const char *st = (const char *)r + r->strtab.off;
	uint32_t sn = r->strtab.n;
	if (st[0] != '\0' || st[sn - 1] != '\0')
		return -EINVAL;
	if (!range_ok(r->msgs, sizeof(struct krec_msg), 4, H, size) ||
	    !range_ok(r->modinfo, sizeof(struct krec_pair), 4, H, size) ||
	    !range_ok(r->imports, 4, 4, H, size) ||
	    !range_ok(r->versions, sizeof(struct krec_crc), 4, H, size) ||
	    !range_ok(r->ext_versions, sizeof(struct krec_crc), 4, H, size) ||
	    !range_ok(r->exports, sizeof(struct krec_export), 4, H, size) ||
	    !range_ok(r->kexports, sizeof(struct krec_crc), 4, H, size) ||
	    !range_ok(r->kdeps, sizeof(struct krec_kdep), 4, H, size) ||
	    !range_ok(r->kinfo, sizeof(struct krec_pair), 4, H, size) ||
	    !range_ok(r->sigtail, 1, 1, H, size) || r->sigtail.n > r->usize ||
	    !range_ok(r->sigdigest, sizeof(struct krec_digest), 4, H, size) ||
	    r->sigdigest.n > 1 || (r->sigdigest.n && !r->sigtail.n) ||
	    !range_ok(r->params, sizeof(struct krec_param), 4, H, size))
		return -EINVAL;
	const struct krec_digest *dg = krec_arr(r, r->sigdigest);
	if (r->sigdigest.n && (dg->nid <= 0 || dg->len == 0 || dg->len > sizeof(dg->md)))
		return -EINVAL;
	if (!str_ok(r->relpath, sn, false) || st[r->relpath] == '\0' ||
	    !str_ok(r->struct_name, sn, true) || !str_ok(r->kmod_name, sn, true) ||
	    !str_ok(r->modpost_name, sn, true) || !str_ok(r->symvers_owner, sn, true))
		return -EINVAL;
	bool engine = r->flags & KREC_F_ENGINE;
	if (engine && (r->kmod_name == KREC_NONE || r->modpost_name == KREC_NONE ||
		       r->symvers_owner == KREC_NONE || r->kind == 0 || r->err != 0))
		return -EINVAL;
	if (!engine && (r->err >= 0 || r->modinfo.n || r->imports.n || r->versions.n ||
			r->ext_versions.n || r->exports.n || r->sigtail.n || r->params.n))
		return -EINVAL;
	if ((r->flags & KREC_F_KDEPS_DERIVED) &&
	    (!engine || !(r->flags & KREC_F_KDEPS) || r->kdeps.n))
		return -EINVAL;
	if (!(r->flags & KREC_F_KDEPS) && r->kdeps.n)
		return -EINVAL;
	if (!(r->flags & KREC_F_KELF) && (r->kexports.n || r->kdeps.n || r->kinfo.n ||
					  (r->flags & (KREC_F_KDEPS | KREC_F_KINFO))))
		return -EINVAL;
	if (!(r->flags & KREC_F_KINFO) && r->kinfo.n)
		return -EINVAL;
	const struct krec_msg *m = krec_arr(r, r->msgs);
	for (size_t i = 0; i < r->msgs.n; i++)
		if (m[i].priority > KSC_LOG_DEBUG || !str_ok(m[i].text, sn, false))
			return -EINVAL;
	const struct krec_pair *p = krec_arr(r, r->modinfo);
	for (size_t i = 0; i < r->modinfo.n; i++)
		if (!str_ok(p[i].key, sn, false) || !str_ok(p[i].value, sn, false))
			return -EINVAL;
	p = krec_arr(r, r->kinfo);
	for (size_t i = 0; i < r->kinfo.n; i++)
		if (!str_ok(p[i].key, sn, false) || !str_ok(p[i].value, sn, false))
			return -EINVAL;
	const uint32_t *im = krec_arr(r, r->imports);
	for (size_t i = 0; i < r->imports.n; i++)
		if (!str_ok(im[i] & ~KREC_IMP_WEAK, sn, false))
			return -EINVAL;
	const struct krec_crc *c = krec_arr(r, r->versions);
	for (size_t i = 0; i < r->versions.n; i++)
		if (!str_ok(c[i].name, sn, false))
			return -EINVAL;
	c = krec_arr(r, r->ext_versions);
	for (size_t i = 0; i < r->ext_versions.n; i++)
		if (!str_ok(c[i].name, sn, false) || c[i].crc_hi)
			return -EINVAL;
	c = krec_arr(r, r->kexports);
	for (size_t i = 0; i < r->kexports.n; i++)
		if (!str_ok(c[i].name, sn, false))
			return -EINVAL;
	const struct krec_export *e = krec_arr(r, r->exports);
	for (size_t i = 0; i < r->exports.n; i++)
		if (!str_ok(e[i].name, sn, false) || !str_ok(e[i].ns, sn, false) ||
		    st[e[i].name] == '\0' || (e[i].flags & ~3u))
			return -EINVAL;
	const struct krec_kdep *d = krec_arr(r, r->kdeps);
	for (size_t i = 0; i < r->kdeps.n; i++)
		if (!str_ok(d[i].name & ~KREC_IMP_WEAK, sn, false))
			return -EINVAL;
	const struct krec_param *pm = krec_arr(r, r->params);
	for (size_t i = 0; i < r->params.n; i++)
		if (!str_ok(pm[i].name, sn, false) || pm[i].perm > 0xffffu)
			return -EINVAL;
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* For the tree's derived records (tree/ksc-tree-derived.c)                          */

bool ksc_krange_ok(struct krange g, size_t elem, size_t align, size_t hdr, size_t size)
{
	return range_ok(g, elem, align, hdr, size);
}

bool ksc_kstr_ok(uint32_t off, uint32_t strsize, bool null_ok)
{
	return str_ok(off, strsize, null_ok);
}
