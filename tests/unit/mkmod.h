/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mkmod: write a small x86_64 kernel module (ELF64 ET_REL) in memory, with exactly the
 * sections the kernel's tools read: .modinfo, .gnu.linkonce.this_module, __versions,
 * PREL32 __ksymtab/__ksymtab_gpl with their .rela sections, __kcrctab[_gpl],
 * __ksymtab_strings, __kflagstab, and undefined symbols for imports. The unit tests build
 * one per test vector and read it back through the real reader (ksc_module_new_from_memory),
 * so every vector also exercises the ELF code.
 */
#pragma once

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mk_export {
	const char *name, *ns;
	bool gpl;
	uint32_t crc;
};

struct mk_import {
	const char *name;
	bool weak;
};

struct mk_version {
	const char *name;
	uint32_t crc;
};

struct mkmod {
	const char *this_module;        /* struct module name; NULL: no section */
	const char *modinfo[16];        /* "key=value" entries, NULL-terminated */
	struct mk_import imports[8];    /* in .symtab order, name NULL-terminated */
	struct mk_version versions[8];  /* __versions; name NULL-terminated */
	bool no_versions;               /* omit __versions entirely */
	struct mk_export exports[8];    /* name NULL-terminated */
	bool kflagstab;                 /* 7.1 layout: __kflagstab, no _gpl sections */
	bool no_crcs;                   /* exports without __kcrctab */
};

struct mkbuf {
	unsigned char *p;
	size_t n, cap;
};

static inline size_t mk_put(struct mkbuf *b, const void *d, size_t n)
{
	size_t at = b->n;

	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
	}
	if (d)
		memcpy(b->p + b->n, d, n);
	else
		memset(b->p + b->n, 0, n);
	b->n += n;
	return at;
}

static inline size_t mk_str(struct mkbuf *b, const char *s)
{
	return mk_put(b, s, strlen(s) + 1);
}

static inline void mk_align(struct mkbuf *b, size_t a)
{
	while (b->n % a)
		mk_put(b, NULL, 1);
}

enum { MK_SEC_MAX = 20 };

struct mksec {
	const char *name;
	uint32_t type, link, info;
	uint64_t flags, entsize, align;
	struct mkbuf data;
};

/* Returns a malloc'd image; *size gets its length. */
static inline unsigned char *mkmod_build(const struct mkmod *m, size_t *size)
{
	struct mksec sec[MK_SEC_MAX];
	int ns = 1;
	memset(sec, 0, sizeof(sec));

#define MK_NEW(nm, ty, fl, al) \
	(sec[ns].name = (nm), sec[ns].type = (ty), sec[ns].flags = (fl), sec[ns].align = (al), ns++)

	int text = MK_NEW(".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16);
	mk_put(&sec[text].data, NULL, 16);

	int modinfo = MK_NEW(".modinfo", SHT_PROGBITS, SHF_ALLOC, 1);
	for (int i = 0; m->modinfo[i]; i++)
		mk_str(&sec[modinfo].data, m->modinfo[i]);

	if (m->this_module) {
		int tm = MK_NEW(".gnu.linkonce.this_module", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 64);
		mk_put(&sec[tm].data, NULL, 0x380);
		strncpy((char *)sec[tm].data.p + 24, m->this_module, 55);
	}
	if (!m->no_versions) {
		int v = MK_NEW("__versions", SHT_PROGBITS, SHF_ALLOC, 8);
		for (int i = 0; m->versions[i].name; i++) {
			uint64_t crc = m->versions[i].crc;
			char name[56] = { 0 };
			strncpy(name, m->versions[i].name, 55);
			mk_put(&sec[v].data, &crc, 8);
			mk_put(&sec[v].data, name, 56);
		}
	}

	/* Exports: strings, then tables with PREL32 relocations. */
	int n_exp = 0;
	while (m->exports[n_exp].name)
		n_exp++;
	int strs = 0, tabs[2] = { 0, 0 }, crcs[2] = { 0, 0 }, relas[2] = { 0, 0 }, flags = 0;
	uint32_t name_off[8], ns_off[8];
	if (n_exp) {
		strs = MK_NEW("__ksymtab_strings", SHT_PROGBITS, SHF_ALLOC | SHF_MERGE | SHF_STRINGS, 1);
		sec[strs].entsize = 1;
		for (int i = 0; i < n_exp; i++) {
			name_off[i] = (uint32_t)mk_str(&sec[strs].data, m->exports[i].name);
			ns_off[i] = (uint32_t)mk_str(&sec[strs].data, m->exports[i].ns ? m->exports[i].ns : "");
		}
		for (int g = 0; g < 2; g++) {
			bool any = false;
			for (int i = 0; i < n_exp; i++)
				any |= m->kflagstab ? g == 0 : m->exports[i].gpl == (g == 1);
			if (!any)
				continue;
			tabs[g] = MK_NEW(g ? "__ksymtab_gpl" : "__ksymtab", SHT_PROGBITS, SHF_ALLOC, 4);
			if (!m->no_crcs)
				crcs[g] = MK_NEW(g ? "__kcrctab_gpl" : "__kcrctab", SHT_PROGBITS, SHF_ALLOC, 4);
			relas[g] = MK_NEW(g ? ".rela__ksymtab_gpl" : ".rela__ksymtab", SHT_RELA, SHF_INFO_LINK, 8);
			sec[relas[g]].entsize = sizeof(Elf64_Rela);
			sec[relas[g]].info = (uint32_t)tabs[g];
		}
		if (m->kflagstab)
			flags = MK_NEW("__kflagstab", SHT_PROGBITS, SHF_ALLOC, 1);
	}

	int symtab = MK_NEW(".symtab", SHT_SYMTAB, 0, 8);
	int strtab = MK_NEW(".strtab", SHT_STRTAB, 0, 1);
	int shstr = MK_NEW(".shstrtab", SHT_STRTAB, 0, 1);
	sec[symtab].entsize = sizeof(Elf64_Sym);
	sec[symtab].link = (uint32_t)strtab;

	/* Symbols: null, the strings section symbol, exported definitions, imports. */
	Elf64_Sym sym;
	memset(&sym, 0, sizeof(sym));
	mk_str(&sec[strtab].data, "");
	mk_put(&sec[symtab].data, &sym, sizeof(sym));
	int strs_sym = 0, nsyms = 1, first_export = 0;
	if (n_exp) {
		sym.st_info = ELF64_ST_INFO(STB_LOCAL, STT_SECTION);
		sym.st_shndx = (uint16_t)strs;
		mk_put(&sec[symtab].data, &sym, sizeof(sym));
		strs_sym = nsyms++;
	}
	sec[symtab].info = (uint32_t)nsyms; /* first non-local */
	first_export = nsyms;
	for (int i = 0; i < n_exp; i++) {
		memset(&sym, 0, sizeof(sym));
		sym.st_name = (uint32_t)mk_str(&sec[strtab].data, m->exports[i].name);
		sym.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		sym.st_shndx = (uint16_t)text;
		mk_put(&sec[symtab].data, &sym, sizeof(sym));
		nsyms++;
	}
	for (int i = 0; m->imports[i].name; i++) {
		memset(&sym, 0, sizeof(sym));
		sym.st_name = (uint32_t)mk_str(&sec[strtab].data, m->imports[i].name);
		sym.st_info = ELF64_ST_INFO(m->imports[i].weak ? STB_WEAK : STB_GLOBAL, STT_NOTYPE);
		sym.st_shndx = SHN_UNDEF;
		mk_put(&sec[symtab].data, &sym, sizeof(sym));
		nsyms++;
	}
	for (int g = 0; g < 2; g++) {
		if (!tabs[g])
			continue;
		for (int i = 0; i < n_exp; i++) {
			if (m->kflagstab ? g != 0 : m->exports[i].gpl != (g == 1))
				continue;
			size_t at = mk_put(&sec[tabs[g]].data, NULL, 12);
			Elf64_Rela ra = { at, ELF64_R_INFO((uint64_t)(first_export + i), R_X86_64_PC32), 0 };
			mk_put(&sec[relas[g]].data, &ra, sizeof(ra));
			ra = (Elf64_Rela){ at + 4, ELF64_R_INFO((uint64_t)strs_sym, R_X86_64_PC32), name_off[i] };
			mk_put(&sec[relas[g]].data, &ra, sizeof(ra));
			ra = (Elf64_Rela){ at + 8, ELF64_R_INFO((uint64_t)strs_sym, R_X86_64_PC32), ns_off[i] };
			mk_put(&sec[relas[g]].data, &ra, sizeof(ra));
			if (crcs[g])
				mk_put(&sec[crcs[g]].data, &m->exports[i].crc, 4);
			if (flags) {
				unsigned char f = m->exports[i].gpl ? 1 : 0;
				mk_put(&sec[flags].data, &f, 1);
			}
		}
		sec[relas[g]].link = (uint32_t)symtab;
	}

	/* Section names, then the file: header, section data, section header table. */
	uint32_t name_at[MK_SEC_MAX] = { 0 };
	mk_str(&sec[shstr].data, "");
	for (int i = 1; i < ns; i++)
		name_at[i] = (uint32_t)mk_str(&sec[shstr].data, sec[i].name);

	struct mkbuf f = { 0 };
	Elf64_Ehdr eh;
	memset(&eh, 0, sizeof(eh));
	mk_put(&f, NULL, sizeof(eh));
	uint64_t off[MK_SEC_MAX] = { 0 };
	for (int i = 1; i < ns; i++) {
		mk_align(&f, sec[i].align ? sec[i].align : 1);
		off[i] = mk_put(&f, sec[i].data.p, sec[i].data.n);
	}
	mk_align(&f, 8);
	uint64_t shoff = f.n;
	for (int i = 0; i < ns; i++) {
		Elf64_Shdr sh;
		memset(&sh, 0, sizeof(sh));
		if (i) {
			sh.sh_name = name_at[i];
			sh.sh_type = sec[i].type;
			sh.sh_flags = sec[i].flags;
			sh.sh_offset = off[i];
			sh.sh_size = sec[i].data.n;
			sh.sh_link = sec[i].link;
			sh.sh_info = sec[i].info;
			sh.sh_addralign = sec[i].align;
			sh.sh_entsize = sec[i].entsize;
		}
		mk_put(&f, &sh, sizeof(sh));
	}
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_REL;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_shoff = shoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (uint16_t)ns;
	eh.e_shstrndx = (uint16_t)shstr;
	memcpy(f.p, &eh, sizeof(eh));
	for (int i = 0; i < ns; i++)
		free(sec[i].data.p);
#undef MK_NEW
	*size = f.n;
	return f.p;
}
