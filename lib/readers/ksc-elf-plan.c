// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the module readers look at in an image, for a caller that loads a large file
 * in pieces (the tree's sparse reads): the ELF header, the section headers and their
 * names, the sections of ksc_elf_section_names (ksc_elf_section_id()), .strtab, the
 * symbol table and its strings, and the REL/RELA sections of the export tables. Both
 * the module reader (ksc-elf*.c) and kmod's view (ksc-kview.c) read only these, through
 * the one ELF layer, util/elfview.h, which this plan reads through too: the caller
 * needs to know neither reader. Bounds are left to the readers: a section outside the
 * file is simply not planned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "readers/readers.h"
#include "util/elfview.h"

bool ksc_elf_plan_open(struct ksc_elf_plan *p, const unsigned char *h, size_t n, uint64_t size)
{
	struct elfview *v = &p->v;

	memset(p, 0, sizeof(*p));
	if (size < 64 || n < 64 || !elfview_open(v, h, n))
		return false;
	/* extended numbering (shnum 0, SHN_XINDEX) needs section 0: read whole instead */
	if (v->shentsize != elfview_shdr_size(v) || v->shnum == 0 || v->shnum >= SHN_LORESERVE ||
	    v->shstrndx >= v->shnum || v->shoff > size ||
	    (uint64_t)v->shnum * v->shentsize > size - v->shoff)
		return false;
	p->size = size;
	p->shdr_off = v->shoff;
	p->shdr_len = (uint64_t)v->shnum * v->shentsize;
	return true;
}

bool ksc_elf_plan_names(struct ksc_elf_plan *p, const unsigned char *img)
{
	struct elfview *v = &p->v;

	v->m = img; /* the header and the section headers are loaded */
	v->size = p->size;
	uint64_t i = v->shstrndx;
	p->names_off = elfview_shdr(v, i, sh_offset);
	p->names_len = elfview_shdr(v, i, sh_size);
	return elfview_shdr(v, i, sh_type) != SHT_NOBITS && p->names_len != 0 &&
	       p->names_off <= p->size && p->names_len <= p->size - p->names_off;
}

/* One section header of the plan: the fields it uses. */
struct pshdr {
	uint32_t name, type, link, info;
	uint64_t off, size;
};

/*
 * The sections the readers use, marked in need[]. False when the layout needs the
 * whole file: export names outside __ksymtab_strings, relocated CRC tables (their
 * targets could be anywhere).
 */
static bool mark_needed(const struct pshdr *s, unsigned int shnum, const char *names,
			uint64_t names_size, unsigned char *need)
{
	const char *nend = names + names_size;
	bool ksymtab = false, strings = false, ok;
	unsigned int tables[4] = { 0, 0, 0, 0 }; /* __ksymtab, _gpl, __kcrctab, _gpl */

	for (unsigned int i = 1; i < shnum; i++) {
		if (s[i].name >= names_size)
			continue;
		const char *nm = names + s[i].name;
		if (!memchr(nm, '\0', (size_t)(nend - nm)))
			continue;
		int id = ksc_elf_section_id(nm);
		if (id >= 0 || strcmp(nm, ".strtab") == 0)
			need[i] = 1;
		/* ksc_elf_section_names: __ksymtab, _gpl, __kcrctab, _gpl, __ksymtab_strings */
		if (id == 0 || id == 1)
			ksymtab = true;
		if (id == 4)
			strings = true;
		if (id >= 0 && id < 4 && !tables[id])
			tables[id] = i;
		if (s[i].type == SHT_SYMTAB) {
			need[i] = 1;
			if (s[i].link < shnum)
				need[s[i].link] = 1;
		}
	}
	ok = !(ksymtab && !strings);
	for (unsigned int i = 1; i < shnum && ok; i++) {
		if (s[i].type != SHT_RELA && s[i].type != SHT_REL)
			continue;
		for (int k = 0; k < 4; k++) {
			if (!tables[k] || s[i].info != tables[k])
				continue;
			if (k >= 2)
				ok = false;
			need[i] = 1;
		}
	}
	return ok;
}

int ksc_elf_plan_sections(struct ksc_elf_plan *p, const unsigned char *img,
			  int (*add)(void *data, uint64_t off, uint64_t len), void *data)
{
	const struct elfview *v = &p->v;
	unsigned int shnum = v->shnum;
	struct pshdr *s = calloc(shnum, sizeof(*s));
	unsigned char *need = calloc(shnum, 1);
	int ret = -ENOMEM;

	if (!s || !need)
		goto out;
	for (unsigned int i = 0; i < shnum; i++) {
		s[i].name = (uint32_t)elfview_shdr(v, i, sh_name);
		s[i].type = (uint32_t)elfview_shdr(v, i, sh_type);
		s[i].off = elfview_shdr(v, i, sh_offset);
		s[i].size = elfview_shdr(v, i, sh_size);
		s[i].link = (uint32_t)elfview_shdr(v, i, sh_link);
		s[i].info = (uint32_t)elfview_shdr(v, i, sh_info);
	}
	ret = 0;
	if (!mark_needed(s, shnum, (const char *)img + p->names_off, p->names_len, need))
		goto out;
	for (unsigned int i = 1; i < shnum && ret >= 0; i++)
		if (need[i] && s[i].type != SHT_NOBITS && s[i].size && s[i].off <= p->size &&
		    s[i].size <= p->size - s[i].off)
			ret = add(data, s[i].off, s[i].size);
	if (ret >= 0)
		ret = 1;
out:
	free(need);
	free(s);
	return ret;
}
