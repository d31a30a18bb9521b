// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: the relocation surface of the module reader (lib/readers/ksc-elf.c
 * load_relocs(), the export tables decoded through relocations, relocated CRCs). Random
 * bytes rarely make an ELF file whose relocation sections the reader gets to, so this
 * target builds one: a valid x86_64 module with two exports (__ksymtab, __ksymtab_gpl,
 * __kcrctab, __ksymtab_strings, .symtab), to which the input adds up to 31 SHT_RELA or
 * SHT_REL sections, each placed anywhere in one blob of relocations the input also gives
 * (overlapping, sharing, past its end, applying to any section), with entries made
 * plausible (offsets inside their target, symbols inside .symtab, the types export tables
 * use) unless the first byte asks for them raw. Then every export is read back.
 *
 * Input: flags (1 byte: bit 0 raw entries), K (1 byte, % 32), K section records of 6
 * bytes (offset and size in the blob, 16 bits each, little endian; target; type), the
 * blob (at most 16 KiB).
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksymcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FUZZ_RELOC_DEBUG=1: the reader's messages and the exports read, to check a seed. */
static void debug_log(void *data, int priority, const char *msg)
{
	(void)data;
	(void)priority;
	fprintf(stderr, "%s\n", msg);
}

enum { S_NULL, S_SHSTR, S_STR, S_SYM, S_KSTR, S_KSYM, S_KCRC, S_KSYMGPL, S_TEXT, S_MODINFO,
       S_FIXED };
#define MAX_RELSEC 31
#define MAX_BLOB (16 * 1024)

static const char shstr[] = "\0.shstrtab\0.strtab\0.symtab\0__ksymtab_strings\0__ksymtab\0"
			    "__kcrctab\0__ksymtab_gpl\0.text\0.modinfo\0.rela__ksymtab\0";
static const char strtab[] = "\0fz_a\0fz_b\0printk\0__crc_fz_a\0";
static const char kstr[] = "fz_a\0fz_b\0";
static const char modinfo[] = "name=fz\0vermagic=6.16.0 SMP preempt mod_unload \0";

static uint32_t name_of(const char *tab, size_t n, const char *s)
{
	for (size_t i = 0; i + strlen(s) < n; i++)
		if (strcmp(tab + i, s) == 0)
			return (uint32_t)i;
	return 0;
}

struct img {
	unsigned char *p;
	size_t n;
};

static size_t put(struct img *m, const void *d, size_t n)
{
	size_t at = (m->n + 7) & ~(size_t)7;
	memset(m->p + m->n, 0, at - m->n);
	memcpy(m->p + at, d, n);
	m->n = at + n;
	return at;
}

/* Make the blob's 24-byte entries plausible for a section of `nsyms` symbols. */
static void fix_entries(unsigned char *b, size_t n, size_t nsyms)
{
	static const uint32_t types[] = { R_X86_64_PC32, R_X86_64_64, R_X86_64_32,
					  R_X86_64_NONE, R_X86_64_PLT32 };
	for (size_t i = 0; i + sizeof(Elf64_Rela) <= n; i += sizeof(Elf64_Rela)) {
		Elf64_Rela r;
		memcpy(&r, b + i, sizeof(r));
		r.r_offset = (r.r_offset % 24) & ~(Elf64_Addr)3;
		uint32_t t = types[ELF64_R_TYPE(r.r_info) % 5];
		r.r_info = ELF64_R_INFO(ELF64_R_SYM(r.r_info) % nsyms, t);
		r.r_addend = (int8_t)r.r_addend;
		memcpy(b + i, &r, sizeof(r));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksc_ctx *ctx;
	if (!ctx) {
		ctx = ksc_new();
		ksc_set_log_fn(ctx, getenv("FUZZ_RELOC_DEBUG") ? debug_log : NULL, NULL);
	}
	if (size < 2)
		return 0;
	bool raw = data[0] & 1;
	size_t k = data[1] % (MAX_RELSEC + 1), pos = 2;
	if (size < pos + k * 6)
		return 0;
	const uint8_t *recs = data + pos;
	pos += k * 6;
	size_t blen = size - pos > MAX_BLOB ? MAX_BLOB : size - pos;
	unsigned char blob[MAX_BLOB];
	memcpy(blob, data + pos, blen);

	/*
	 * .symtab: null, __ksymtab_strings' section symbol, fz_a, fz_b (.text), printk
	 * (undefined), __crc_fz_a (absolute)
	 */
	Elf64_Sym syms[6];
	memset(syms, 0, sizeof(syms));
	const char *names[] = { NULL, NULL, "fz_a", "fz_b", "printk", "__crc_fz_a" };
	syms[1].st_info = ELF64_ST_INFO(STB_LOCAL, STT_SECTION);
	syms[1].st_shndx = S_KSTR;
	for (size_t i = 2; i < 6; i++) {
		syms[i].st_name = name_of(strtab, sizeof(strtab), names[i]);
		syms[i].st_info = ELF64_ST_INFO(STB_GLOBAL, i == 5 ? STT_NOTYPE : STT_FUNC);
	}
	syms[2].st_shndx = syms[3].st_shndx = S_TEXT;
	syms[3].st_value = 8;
	syms[5].st_shndx = SHN_ABS;
	syms[5].st_value = 0x1234abcd;
	if (!raw)
		fix_entries(blob, blen, 6);

	/* prel32 __ksymtab entries of fz_a and fz_b, their relocations, the CRCs */
	unsigned char ksym[24] = { 0 }, ksymgpl[12] = { 0 }, text[16] = { 0 };
	uint32_t crcs[2] = { 0x1234abcd, 0x0badcafe };
	Elf64_Rela base[6];
	for (int e = 0; e < 2; e++) {
		base[e * 3] = (Elf64_Rela){ (Elf64_Addr)e * 12, ELF64_R_INFO(2 + e, R_X86_64_PC32),
					    0 };
		base[e * 3 + 1] = (Elf64_Rela){ (Elf64_Addr)e * 12 + 4,
						ELF64_R_INFO(1, R_X86_64_PC32), e * 5 };
		base[e * 3 + 2] = (Elf64_Rela){ (Elf64_Addr)e * 12 + 8,
						ELF64_R_INFO(1, R_X86_64_PC32), 9 };
	}

	size_t cap = sizeof(Elf64_Ehdr) + 4096 + sizeof(base) + blen +
		     (S_FIXED + 1 + MAX_RELSEC) * sizeof(Elf64_Shdr) + 64;
	struct img m = { calloc(1, cap), sizeof(Elf64_Ehdr) };
	if (!m.p)
		return 0;
	Elf64_Shdr sh[S_FIXED + 1 + MAX_RELSEC];
	memset(sh, 0, sizeof(sh));
	struct {
		int idx;
		const void *d;
		size_t n;
		uint32_t type;
		const char *name;
	} secs[] = {
		{ S_SHSTR, shstr, sizeof(shstr), SHT_STRTAB, ".shstrtab" },
		{ S_STR, strtab, sizeof(strtab), SHT_STRTAB, ".strtab" },
		{ S_SYM, syms, sizeof(syms), SHT_SYMTAB, ".symtab" },
		{ S_KSTR, kstr, sizeof(kstr), SHT_PROGBITS, "__ksymtab_strings" },
		{ S_KSYM, ksym, sizeof(ksym), SHT_PROGBITS, "__ksymtab" },
		{ S_KCRC, crcs, sizeof(crcs), SHT_PROGBITS, "__kcrctab" },
		{ S_KSYMGPL, ksymgpl, 0, SHT_PROGBITS, "__ksymtab_gpl" }, /* empty */
		{ S_TEXT, text, sizeof(text), SHT_PROGBITS, ".text" },
		{ S_MODINFO, modinfo, sizeof(modinfo), SHT_PROGBITS, ".modinfo" },
		{ S_FIXED, base, sizeof(base), SHT_RELA, ".rela__ksymtab" },
	};
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		Elf64_Shdr *s = &sh[secs[i].idx];
		s->sh_name = name_of(shstr, sizeof(shstr), secs[i].name);
		s->sh_type = secs[i].type;
		s->sh_offset = put(&m, secs[i].d, secs[i].n);
		s->sh_size = secs[i].n;
		s->sh_addralign = 1;
	}
	sh[S_SYM].sh_link = S_STR;
	sh[S_SYM].sh_info = 2;
	sh[S_SYM].sh_entsize = sizeof(Elf64_Sym);
	sh[S_FIXED].sh_link = S_SYM;
	sh[S_FIXED].sh_info = S_KSYM;
	sh[S_FIXED].sh_entsize = sizeof(Elf64_Rela);
	size_t boff = put(&m, blob, blen);
	/* the input's relocation sections, anywhere in the blob (or past it) */
	for (size_t i = 0; i < k; i++) {
		const uint8_t *r = recs + i * 6;
		Elf64_Shdr *s = &sh[S_FIXED + 1 + i];
		size_t off = (size_t)(r[0] | r[1] << 8), len = (size_t)(r[2] | r[3] << 8);
		bool rel = r[5] & 1;
		s->sh_name = sh[S_FIXED].sh_name;
		s->sh_type = rel ? SHT_REL : SHT_RELA;
		s->sh_entsize = rel ? sizeof(Elf64_Rel) : sizeof(Elf64_Rela);
		if (!raw) {
			off %= blen + 1;
			len %= blen - off + 1;
			len -= len % s->sh_entsize;
		}
		s->sh_offset = boff + off;
		s->sh_size = len;
		s->sh_link = S_SYM;
		s->sh_info = raw ? r[4] : (uint32_t)(r[4] % 4 == 0 ? S_KSYM :
						     r[4] % 4 == 1 ? S_KCRC :
						     r[4] % 4 == 2 ? S_KSYMGPL : r[4] % (S_FIXED + 1));
		s->sh_addralign = 8;
	}
	size_t shnum = S_FIXED + 1 + k;
	size_t shoff = put(&m, sh, shnum * sizeof(Elf64_Shdr));
	Elf64_Ehdr eh = { .e_type = ET_REL, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_shoff = shoff, .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = (uint16_t)shnum,
			  .e_shstrndx = S_SHSTR };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(m.p, &eh, sizeof(eh));

	struct ksc_module *mod;
	if (ksc_module_new_from_memory(ctx, "fuzz-reloc.ko", m.p, m.n, &mod) == 0) {
		volatile size_t sink = 0;
		for (size_t i = 0; i < ksc_module_get_export_count(mod); i++) {
			const struct ksc_export *e = ksc_module_get_export(mod, i);
			sink += strlen(e->name) + strlen(e->ns) + e->crc;
			if (ksc_module_find_export(mod, e->name) == NULL)
				abort();
		}
		(void)sink;
		if (getenv("FUZZ_RELOC_DEBUG"))
			fprintf(stderr, "exports: %zu\n", ksc_module_get_export_count(mod));
		ksc_module_unref(mod);
	}
	free(m.p);
	return 0;
}
