// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The module reader (ksc-elf.c), its export tables (include/linux/export-internal.h,
 * doc/rules.md R3): in a .ko every field of struct kernel_symbol is zero and the real
 * values sit in relocations, so a field's target is S + A of its relocation (PC-relative
 * types included: the assembler writes "sym - ." with addend 0). In vmlinux the fields
 * hold link-time values. The layout (pointers or PREL32, 2 or 3 fields) is not recorded
 * anywhere; it is decided by validating every entry. 7.1's __kflagstab (R34) and 6.x's
 * .export_symbol of an unlinked object are read here too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "readers/ksc-elf.h"
#include "util/array.h"

/* ---------------------------------------------------------------------------------- */
/* Exports                                                                            */

struct table {
	struct sec *ksymtab; /* __ksymtab or __ksymtab_gpl */
	struct sec *kcrctab; /* parallel CRCs, may be NULL */
	bool gpl;
};

/* Decoded fields of one entry. */
struct entry {
	const char *name, *ns;
};

/*
 * The tail of both layout checks, for entry i: its name, not empty, at `off` of `names`
 * and its namespace at `ns_off` of `nss` ("" without one: nss NULL), into out[i] when
 * `out` is given. False when either is not a string there.
 */
static bool entry_strings(const struct sec *names, uint64_t off, const struct sec *nss,
			  uint64_t ns_off, struct entry *out, size_t i)
{
	const char *name = ksc_elf_sec_string(names, off);
	const char *ns = nss ? ksc_elf_sec_string(nss, ns_off) : "";

	if (!name || !*name || !ns)
		return false;
	if (out)
		out[i] = (struct entry){ name, ns };
	return true;
}

/* Does `rel` point into the strings (section strndx; 0: any)? Its target in *si, *off. */
static bool string_rel(struct reader *r, const struct rel *rel, size_t strndx, size_t *si,
		       uint64_t *off)
{
	return ksc_elf_rel_target(r, rel, si, off) && (!strndx || *si == strndx);
}

/*
 * Modules: try a layout (field size fs, k fields) on every entry of the table. Each entry
 * needs a relocation on its value field that does not point into the string section, one on
 * its name field that does, and on the namespace field either none (5.4: no namespace) or
 * one into the strings. Fills out[] when `out` is given.
 */
static bool rel_layout_ok(struct reader *r, struct table *t, size_t fs, size_t k,
			  size_t strndx, struct entry *out)
{
	const struct sec *s = t->ksymtab;
	size_t esz = fs * k;

	if (s->sh.sh_size % esz)
		return false;
	/* Every relocation must sit on a field boundary of this layout. */
	for (size_t i = 0; i < s->n_rels; i++)
		if (s->rels[i].offset % fs || ksc_elf_field_size(r, s->rels[i].kind) != fs)
			return false;
	size_t n = s->sh.sh_size / esz;
	for (size_t i = 0; i < n; i++) {
		uint64_t base = i * esz;
		size_t si, nsi = 0;
		uint64_t off, ns_off = 0;
		const struct rel *v = ksc_elf_find_rel(s, base), *nm = ksc_elf_find_rel(s, base + fs);
		const struct rel *nsr = k == 3 ? ksc_elf_find_rel(s, base + 2 * fs) : NULL;
		if (!v || !nm)
			return false;
		if (ksc_elf_rel_target(r, v, &si, &off) && si == strndx)
			return false;
		if (!string_rel(r, nm, strndx, &si, &off) ||
		    (nsr && !string_rel(r, nsr, strndx, &nsi, &ns_off)))
			return false;
		if (!entry_strings(&r->secs[si], off, nsr ? &r->secs[nsi] : NULL, ns_off,
				   out, i))
			return false;
	}
	return true;
}

/* vmlinux: the same validation on link-time values. */
static bool exec_layout_ok(struct reader *r, struct table *t, bool prel, size_t k,
			   const struct sec *strs, struct entry *out)
{
	const struct sec *s = t->ksymtab;
	size_t fs = prel ? 4 : (size_t)r->cls / 8, esz = fs * k;
	uint64_t lo = strs->sh.sh_addr, hi = lo + strs->sh.sh_size;

	if (!s->bytes || s->sh.sh_size % esz)
		return false;
	size_t n = s->sh.sh_size / esz;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *e = s->bytes + i * esz;
		uint64_t va = s->sh.sh_addr + i * esz;
		uint64_t tgt[3];
		uint64_t raw[3];
		for (size_t f = 0; f < k; f++) {
			if (prel) {
				raw[f] = rd32(r, e + f * fs);
				tgt[f] = va + f * fs + (uint64_t)(int64_t)(int32_t)raw[f];
			} else {
				raw[f] = rdptr(r, e + f * fs);
				tgt[f] = raw[f];
			}
		}
		bool has_ns = k == 3 && raw[2] != 0;
		if (tgt[0] >= lo && tgt[0] < hi)
			return false;
		if (tgt[1] < lo || tgt[1] >= hi)
			return false;
		if (has_ns && (tgt[2] < lo || tgt[2] >= hi))
			return false;
		if (!entry_strings(strs, tgt[1] - lo, has_ns ? strs : NULL,
				   has_ns ? tgt[2] - lo : 0, out, i))
			return false;
	}
	return true;
}

/* CRC of entry i: relocated (old modules with __crc_ symbols) or stored (5.19+). */
static bool read_crc(struct reader *r, const struct sec *kc, size_t i, uint32_t *crc)
{
	uint64_t off = (uint64_t)i * 4;

	if (!kc || !kc->bytes || !range_ok(off, 4, kc->sh.sh_size))
		return false;
	const struct rel *rel = r->type == ET_REL ? ksc_elf_find_rel(kc, off) : NULL;
	if (rel) {
		const Elf64_Sym *sym = &r->syms[rel->sym];
		size_t si;
		uint64_t o;
		if (sym->st_shndx == SHN_ABS) {
			*crc = (uint32_t)(sym->st_value + (uint64_t)rel->addend);
			return true;
		}
		if (ksc_elf_rel_target(r, rel, &si, &o) && r->secs[si].bytes &&
		    range_ok(o, 4, r->secs[si].sh.sh_size)) {
			*crc = rd32(r, r->secs[si].bytes + o);
			return true;
		}
		return false;
	}
	*crc = rd32(r, kc->bytes + off);
	return true;
}

static const char *layout_names[] = {
	[KSC_LAYOUT_NONE] = "none",         [KSC_LAYOUT_PTR2] = "ptr2",
	[KSC_LAYOUT_PTR3] = "ptr3",         [KSC_LAYOUT_PREL32_2] = "prel32-2",
	[KSC_LAYOUT_PREL32_3] = "prel32-3",
};

KSC_EXPORT const char *ksc_export_layout_name(enum ksc_export_layout l)
{
	if ((size_t)l < ARRAY_SIZE(layout_names))
		return layout_names[l];
	return "unknown";
}

static enum ksc_export_layout layout_of(bool prel, size_t k)
{
	if (prel)
		return k == 3 ? KSC_LAYOUT_PREL32_3 : KSC_LAYOUT_PREL32_2;
	return k == 3 ? KSC_LAYOUT_PTR3 : KSC_LAYOUT_PTR2;
}

/* Decode one table into `out` (n entries); sets *layout on the first table decoded. */
static int decode_table(struct reader *r, struct table *t, struct sec *strs,
			enum ksc_export_layout *layout, struct entry *out)
{
	static const size_t ks[] = { 3, 2 };
	size_t strndx = strs ? ksc_elf_sec_index(r, strs) : 0;

	if (r->type == ET_REL) {
		int ret = ksc_elf_load_relocs(r, t->ksymtab);
		if (ret < 0)
			return ret;
		if (t->kcrctab) {
			ret = ksc_elf_load_relocs(r, t->kcrctab);
			if (ret < 0)
				return ret;
		}
		if (t->ksymtab->n_rels == 0) {
			ksc_err(r->ctx, "%s: %s has no relocations, cannot decode its entries",
				r->path, t->ksymtab->name);
			return -EINVAL;
		}
		bool prel = t->ksymtab->rels[0].kind == RK_PC32;
		size_t fs = prel ? 4 : (size_t)r->cls / 8;
		for (size_t j = 0; j < ARRAY_SIZE(ks); j++) {
			enum ksc_export_layout l = layout_of(prel, ks[j]);
			if (*layout != KSC_LAYOUT_NONE && *layout != l)
				continue;
			if (rel_layout_ok(r, t, fs, ks[j], strndx, NULL)) {
				rel_layout_ok(r, t, fs, ks[j], strndx, out);
				*layout = l;
				return (int)(t->ksymtab->sh.sh_size / (fs * ks[j]));
			}
		}
	} else {
		if (!strs) {
			ksc_err(r->ctx, "%s: %s without __ksymtab_strings", r->path,
				t->ksymtab->name);
			return -EINVAL;
		}
		for (int p = 1; p >= 0; p--) {
			for (size_t j = 0; j < ARRAY_SIZE(ks); j++) {
				enum ksc_export_layout l = layout_of(p, ks[j]);
				if (*layout != KSC_LAYOUT_NONE && *layout != l)
					continue;
				if (exec_layout_ok(r, t, p, ks[j], strs, NULL)) {
					exec_layout_ok(r, t, p, ks[j], strs, out);
					*layout = l;
					size_t fs = p ? 4 : (size_t)r->cls / 8;
					return (int)(t->ksymtab->sh.sh_size / (fs * ks[j]));
				}
			}
		}
	}
	ksc_err(r->ctx, "%s: %s: entries match no known struct kernel_symbol layout", r->path,
		t->ksymtab->name);
	return -EINVAL;
}

/*
 * The object modpost reads before it writes the export table (6.5+,
 * include/linux/export.h): each export is a local symbol __export_symbol_<name> in
 * .export_symbol whose data is the license ("GPL" or "") and the namespace, both
 * NUL-terminated. modpost's handle_symbol() takes the exports of a .o from these; a
 * linked .ko has __ksymtab instead (the section is discarded), so these are read only
 * when no export table was found.
 */
static int parse_export_symbols(struct reader *r)
{
	static const char prefix[] = "__export_symbol_";
	struct ksc_module *mod = r->mod;
	struct sec *es = ksc_elf_find_sec(r, ".export_symbol");
	size_t cap = 0;

	if (!es || !es->bytes)
		return 0;
	size_t shndx = ksc_elf_sec_index(r, es);
	for (size_t i = 0; i < r->n_syms; i++)
		if (r->syms[i].st_shndx == shndx && !strncmp(r->sym_names[i], prefix, sizeof(prefix) - 1))
			cap++;
	if (!cap)
		return 0;
	int ret = ksc_module_reserve(mod, KSC_MODULE_EXPORTS, cap);
	for (size_t i = 0; ret >= 0 && i < r->n_syms; i++) {
		const Elf64_Sym *sym = &r->syms[i];
		if (sym->st_shndx != shndx || strncmp(r->sym_names[i], prefix, sizeof(prefix) - 1))
			continue;
		const char *lic = ksc_elf_sec_string(es, sym->st_value);
		const char *ns = lic ? ksc_elf_sec_string(es, sym->st_value + strlen(lic) + 1) : NULL;
		if (!ns) {
			ksc_err(r->ctx, "%s: %s: its license and namespace run past .export_symbol",
				r->path, r->sym_names[i]);
			return -EINVAL;
		}
		struct ksc_export e = {
			.name = ksc_module_strdup(mod, r->sym_names[i] + sizeof(prefix) - 1),
			.ns = ksc_module_strdup(mod, ns),
			.gpl_only = !strcmp(lic, "GPL"),
		};
		ret = e.name && e.ns ? ksc_module_add_export(mod, &e) : -ENOMEM;
	}
	return ret < 0 ? ret : 0;
}

int  ksc_elf_parse_exports(struct reader *r)
{
	struct ksc_module *mod = r->mod;
	struct table tables[2] = {
		{ ksc_elf_find_sec(r, "__ksymtab"), ksc_elf_find_sec(r, "__kcrctab"), false },
		{ ksc_elf_find_sec(r, "__ksymtab_gpl"), ksc_elf_find_sec(r, "__kcrctab_gpl"), true },
	};
	struct sec *strs = ksc_elf_find_sec(r, "__ksymtab_strings");
	struct sec *flags = ksc_elf_find_sec(r, "__kflagstab");
	enum ksc_export_layout layout = KSC_LAYOUT_NONE;
	size_t cap = 0;
	int ret = 0;

	r->f.has_kflagstab = flags != NULL;
	for (size_t t = 0; t < 2; t++) {
		struct sec *s = tables[t].ksymtab;
		if (s && s->sh.sh_type == SHT_NOBITS) {
			ksc_err(r->ctx, "%s: %s has no contents", r->path, s->name);
			return -EINVAL;
		}
		if (s && s->sh.sh_size)
			cap += s->sh.sh_size / 8 + 1; /* upper bound on entries */
	}
	if (!cap)
		return r->type == ET_REL ? parse_export_symbols(r) : 0;
	struct entry *ent = calloc(cap, sizeof(*ent));
	if (!ent || ksc_module_reserve(mod, KSC_MODULE_EXPORTS, cap) < 0) {
		free(ent);
		return -ENOMEM;
	}
	for (size_t t = 0; t < 2; t++) {
		struct table *tb = &tables[t];
		if (!tb->ksymtab || tb->ksymtab->sh.sh_size == 0)
			continue;
		int n = decode_table(r, tb, strs, &layout, ent);
		if (n < 0) {
			ret = n;
			goto out;
		}
		/*
		 * A CRC for every export (modpost writes one each): a short table would
		 * leave exports without one, silently CRC 0 in Module.symvers.
		 */
		if (tb->kcrctab && tb->kcrctab->sh.sh_size < (uint64_t)n * 4) {
			ksc_err(r->ctx, "%s: %s has %llu bytes for %d exports (4 each)",
				r->path, tb->kcrctab->name,
				(unsigned long long)tb->kcrctab->sh.sh_size, n);
			ret = -EINVAL;
			goto out;
		}
		if (tb->kcrctab && tb->kcrctab->sh.sh_size != (uint64_t)n * 4)
			ksc_warn(r->ctx, "%s: %s has %llu bytes for %d exports", r->path,
				 tb->kcrctab->name, (unsigned long long)tb->kcrctab->sh.sh_size, n);
		for (int i = 0; i < n; i++) {
			struct ksc_export x = { .name = ksc_module_strdup(mod, ent[i].name),
						.ns = ksc_module_strdup(mod, ent[i].ns) }, *e = &x;
			if (!e->name || !e->ns) {
				ret = -ENOMEM;
				goto out;
			}
			e->gpl_only = tb->gpl;
			/* 7.1+: GPL-ness is bit 0 of the parallel __kflagstab byte. */
			if (flags && !tb->gpl) {
				if (!flags->bytes || (uint64_t)i >= flags->sh.sh_size) {
					ksc_err(r->ctx, "%s: __kflagstab is shorter than __ksymtab", r->path);
					ret = -EINVAL;
					goto out;
				}
				e->gpl_only = flags->bytes[i] & 0x01;
			}
			e->has_crc = read_crc(r, tb->kcrctab, (size_t)i, &e->crc);
			if (tb->kcrctab && !e->has_crc) {
				ksc_err(r->ctx, "%s: %s: no CRC for %s (entry %d)", r->path,
					tb->kcrctab->name, e->name, i);
				ret = -EINVAL;
				goto out;
			}
			ret = ksc_module_add_export(mod, e);
			if (ret < 0)
				goto out;
		}
	}
	r->f.layout = layout;
out:
	free(ent);
	return ret;
}

