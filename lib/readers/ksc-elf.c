// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ELF reading for modules (ET_REL) and vmlinux (ET_EXEC/ET_DYN), through the one ELF
 * layer of the library, util/elfview.h: every header, section header, symbol and
 * relocation field is read at offsetof() of <elf.h>'s structure for the image's class,
 * in its byte order, after checking that the section holding it lies inside the file
 * (kmod's libkmod-elf.c, its own bounded reader, is the model). The same view serves
 * kmod's view of a module (ksc-kview.c), the signature's and certificates' reader
 * (ksc-sig.c), the locator and the tree's sparse reads (ksc-elf-plan.c): one reader of
 * ELF, so that what one reads the others agree on. libelf is not used: it would be a
 * second layer with rules of its own (extended numbering, widened r_info) beside the
 * view the small readers need anyway, and the view is the cheaper of the two (no copy
 * of the symbol table, no allocation per section). The kernel-specific tables
 * (__ksymtab*, __kcrctab*, __kflagstab, __versions, .modinfo,
 * .gnu.linkonce.this_module) are PROGBITS read the same way.
 *
 * Export tables (include/linux/export-internal.h, doc/rules.md R3): in a .ko every field of
 * struct kernel_symbol
 * is zero and the real values sit in relocations, so a field's target is S + A of its
 * relocation (PC-relative types included: the assembler writes "sym - ." with addend 0).
 * In vmlinux the fields hold link-time values. The layout (pointers or PREL32, 2 or 3
 * fields) is not recorded anywhere; we decide it by validating every entry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "readers/ksc-elf.h"
#include "util/array.h"

/* Bit i of krec.sections. The first five in this order: the tree's sparse reads use it. */
#define TREE_SECTIONS(X)                                                                    \
	X("__ksymtab") X("__ksymtab_gpl") X("__kcrctab") X("__kcrctab_gpl")                  \
	X("__ksymtab_strings") X("__kflagstab") X("__versions") X("__version_ext_crcs")      \
	X("__version_ext_names") X(".modinfo") X(".gnu.linkonce.this_module") X(".symtab")
#define SEC_NAME(s) s,
#define SEC_LEN(s) sizeof(s) - 1,
const char *const ksc_elf_section_names[] = { TREE_SECTIONS(SEC_NAME) };
static const size_t tree_section_lens[] = { TREE_SECTIONS(SEC_LEN) };
const size_t ksc_elf_section_count = ARRAY_SIZE(ksc_elf_section_names);
_Static_assert(ARRAY_SIZE(ksc_elf_section_names) <= KSC_ELF_SECTIONS_MAX,
	       "KSC_ELF_SECTIONS_MAX too small");

int ksc_elf_section_id(const char *n)
{
	/* "__k...", "__v...", ".m...", ".g...", ".s...": the rest is none of them */
	if (n[0] == '_' ? n[1] != '_' || (n[2] != 'k' && n[2] != 'v')
			: n[0] != '.' || (n[1] != 'm' && n[1] != 'g' && n[1] != 's'))
		return -1;
	size_t len = strlen(n);
	for (size_t i = 0; i < ksc_elf_section_count; i++)
		if (len == tree_section_lens[i] && memcmp(n, ksc_elf_section_names[i], len) == 0)
			return (int)i;
	return -1;
}


/* ---------------------------------------------------------------------------------- */
/* Machines                                                                           */

/* e_machine values of the architectures Linux supports (arch/). */
bool ksc_elf_machine_is_linux(unsigned int m)
{
	switch (m) {
	case EM_SPARC: case EM_386: case EM_68K: case EM_MIPS: case EM_PARISC:
	case EM_SPARC32PLUS: case EM_PPC: case EM_PPC64: case EM_S390: case EM_ARM:
	case EM_SH: case EM_SPARCV9: case EM_IA_64: case EM_X86_64: case EM_OPENRISC:
	case EM_ARC_COMPACT: case EM_XTENSA: case EM_ALTERA_NIOS2: case EM_QDSP6 /* Hexagon */:
	case EM_AARCH64: case EM_MICROBLAZE: case EM_ARCV2: case EM_RISCV: case EM_CSKY:
	case EM_LOONGARCH: case EM_ALPHA:
		return true;
	}
	return false;
}

/* What a relocation type does to a data field, for the types export tables use. */
static enum rkind classify(unsigned int machine, unsigned int type)
{
	switch (machine) {
	case EM_X86_64:
		switch (type) {
		case R_X86_64_NONE: return RK_IGNORE;
		case R_X86_64_64: return RK_ABS64;
		case R_X86_64_PC32: case R_X86_64_PLT32: return RK_PC32;
		case R_X86_64_32: case R_X86_64_32S: return RK_ABS32;
		}
		break;
	case EM_386:
		switch (type) {
		case R_386_NONE: return RK_IGNORE;
		case R_386_32: return RK_ABS32;
		case R_386_PC32: return RK_PC32;
		}
		break;
	case EM_AARCH64:
		switch (type) {
		case R_AARCH64_NONE: case 256: return RK_IGNORE;
		case R_AARCH64_ABS64: return RK_ABS64;
		case R_AARCH64_ABS32: return RK_ABS32;
		case R_AARCH64_PREL32: return RK_PC32;
		}
		break;
	case EM_ARM:
		switch (type) {
		case R_ARM_NONE: return RK_IGNORE;
		case R_ARM_ABS32: return RK_ABS32;
		case R_ARM_REL32: return RK_PC32;
		}
		break;
	case EM_PPC:
		switch (type) {
		case R_PPC_NONE: return RK_IGNORE;
		case R_PPC_ADDR32: return RK_ABS32;
		case R_PPC_REL32: return RK_PC32;
		}
		break;
	case EM_PPC64:
		switch (type) {
		case R_PPC64_NONE: return RK_IGNORE;
		case R_PPC64_ADDR64: return RK_ABS64;
		case R_PPC64_ADDR32: return RK_ABS32;
		case R_PPC64_REL32: return RK_PC32;
		}
		break;
	case EM_S390:
		switch (type) {
		case R_390_NONE: return RK_IGNORE;
		case R_390_32: return RK_ABS32;
		case R_390_64: return RK_ABS64;
		case R_390_PC32: return RK_PC32;
		}
		break;
	case EM_RISCV:
		switch (type) {
		case 0: case 39 /* R_RISCV_SUB32 */: return RK_IGNORE;
		case 1 /* R_RISCV_32 */: case 35 /* R_RISCV_ADD32 */: return RK_ABS32;
		case 2 /* R_RISCV_64 */: return RK_ABS64;
		case 57 /* R_RISCV_32_PCREL */: return RK_PC32;
		}
		break;
	case EM_LOONGARCH:
		switch (type) {
		case 0: case 55 /* R_LARCH_SUB32 */: return RK_IGNORE;
		case 1 /* R_LARCH_32 */: case 50 /* R_LARCH_ADD32 */: return RK_ABS32;
		case 2 /* R_LARCH_64 */: return RK_ABS64;
		case 99 /* R_LARCH_32_PCREL */: return RK_PC32;
		}
		break;
	case EM_MIPS:
		switch (type) {
		case R_MIPS_NONE: return RK_IGNORE;
		case R_MIPS_32: return RK_ABS32;
		case R_MIPS_64: return RK_ABS64;
		case 248 /* R_MIPS_PC32 */: return RK_PC32;
		}
		break;
	}
	return RK_UNKNOWN;
}

/* ---------------------------------------------------------------------------------- */
/* Headers, sections, symbols, relocations                                            */

int ksc_elf_check_ident(struct reader *r)
{
	const unsigned char *p = r->img;

	if (r->size < EI_NIDENT || memcmp(p, ELFMAG, SELFMAG) != 0) {
		ksc_err(r->ctx, "%s: not an ELF file", r->path);
		return -ENOEXEC;
	}
	if (p[EI_CLASS] != ELFCLASS32 && p[EI_CLASS] != ELFCLASS64) {
		ksc_err(r->ctx, "%s: unsupported ELF class %u", r->path, p[EI_CLASS]);
		return -EOPNOTSUPP;
	}
	if (p[EI_DATA] != ELFDATA2LSB && p[EI_DATA] != ELFDATA2MSB) {
		ksc_err(r->ctx, "%s: unsupported ELF byte order %u", r->path, p[EI_DATA]);
		return -EOPNOTSUPP;
	}
	elfview_open(&r->v, r->img, r->size);
	r->cls = r->v.c64 ? 64 : 32;
	r->be = r->v.msb;

	size_t ehsize = elfview_ehdr_size(&r->v);
	if (r->size < ehsize) {
		ksc_err(r->ctx, "%s: truncated ELF header (%zu of %zu bytes)", r->path, r->size,
			ehsize);
		return -EINVAL;
	}
	/* Section header table bounds, checked before it is walked. */
	uint64_t shoff = r->v.shoff;
	unsigned int shentsize = r->v.shentsize, shnum = r->v.shnum;
	size_t want = elfview_shdr_size(&r->v);
	if (shoff == 0) {
		ksc_err(r->ctx, "%s: no section header table", r->path);
		return -EINVAL;
	}
	if (shentsize != want) {
		ksc_err(r->ctx, "%s: section header size %u, expected %zu", r->path, shentsize,
			want);
		return -EINVAL;
	}
	/* shnum 0 means "extended numbering": the count is in section 0, checked below. */
	uint64_t n = shnum ? shnum : 1;
	if (!range_ok(shoff, n * shentsize, r->size)) {
		ksc_err(r->ctx, "%s: section header table (offset %#llx) extends past the end of the file",
			r->path, (unsigned long long)shoff);
		return -EINVAL;
	}
	if (shnum == 0) {
		uint64_t real = elfview_shdr(&r->v, 0, sh_size);
		if (real > r->size / shentsize || !range_ok(shoff, real * shentsize, r->size)) {
			ksc_err(r->ctx, "%s: section header table extends past the end of the file",
				r->path);
			return -EINVAL;
		}
	}
	return 0;
}

/* Section header i, widened to the 64-bit structure (the table is inside the file). */
static void read_shdr(const struct elfview *v, size_t i, Elf64_Shdr *sh)
{
	sh->sh_name = (Elf64_Word)elfview_shdr(v, i, sh_name);
	sh->sh_type = (Elf64_Word)elfview_shdr(v, i, sh_type);
	sh->sh_flags = elfview_shdr(v, i, sh_flags);
	sh->sh_addr = elfview_shdr(v, i, sh_addr);
	sh->sh_offset = elfview_shdr(v, i, sh_offset);
	sh->sh_size = elfview_shdr(v, i, sh_size);
	sh->sh_link = (Elf64_Word)elfview_shdr(v, i, sh_link);
	sh->sh_info = (Elf64_Word)elfview_shdr(v, i, sh_info);
	sh->sh_addralign = elfview_shdr(v, i, sh_addralign);
	sh->sh_entsize = elfview_shdr(v, i, sh_entsize);
}

/*
 * The number of sections and the index of their names: past SHN_LORESERVE, in section
 * 0's sh_size and sh_link (extended numbering, gABI).
 */
static void section_counts(const struct reader *r, size_t *shnum, size_t *shstrndx)
{
	*shnum = r->v.shnum ? r->v.shnum : (size_t)elfview_shdr(&r->v, 0, sh_size);
	*shstrndx = r->v.shstrndx == SHN_XINDEX ? (size_t)elfview_shdr(&r->v, 0, sh_link)
						: r->v.shstrndx;
}

int ksc_elf_load_sections(struct reader *r)
{
	size_t shnum, shstrndx;

	section_counts(r, &shnum, &shstrndx);
	if (shnum == 0) {
		ksc_err(r->ctx, "%s: no sections", r->path);
		return -EINVAL;
	}
	if (shstrndx >= shnum) {
		ksc_err(r->ctx, "%s: section name table index %zu out of range", r->path, shstrndx);
		return -EINVAL;
	}
	r->secs = calloc(shnum, sizeof(*r->secs));
	if (!r->secs)
		return -ENOMEM;
	r->n_secs = shnum;

	/* The section-name table must end in NUL or names could run off its end. */
	Elf64_Shdr strsh;
	read_shdr(&r->v, shstrndx, &strsh);
	if (strsh.sh_type == SHT_NOBITS ||
	    !range_ok(strsh.sh_offset, strsh.sh_size, r->size) || strsh.sh_size == 0 ||
	    r->img[strsh.sh_offset + strsh.sh_size - 1] != '\0') {
		ksc_err(r->ctx, "%s: section name table is missing, outside the file or not NUL-terminated",
			r->path);
		return -EINVAL;
	}

	for (size_t i = 0; i < shnum; i++) {
		struct sec *s = &r->secs[i];
		read_shdr(&r->v, i, &s->sh);
		if (i == 0) {
			s->name = "";
			continue;
		}
		if (s->sh.sh_name >= strsh.sh_size) {
			ksc_err(r->ctx, "%s: section %zu: name offset %u outside the section name table",
				r->path, i, (unsigned int)s->sh.sh_name);
			return -EINVAL;
		}
		s->name = (const char *)r->img + strsh.sh_offset + s->sh.sh_name;
		int id = ksc_elf_section_id(s->name);
		if (id >= 0 && !r->known[id])
			r->known[id] = i;
		if (s->sh.sh_type == SHT_NOBITS)
			continue;
		if (!range_ok(s->sh.sh_offset, s->sh.sh_size, r->size)) {
			ksc_err(r->ctx, "%s: section %s extends past the end of the file", r->path,
				s->name);
			return -EINVAL;
		}
		s->bytes = r->img + s->sh.sh_offset;
	}
	return 0;
}

/* The first section named `name`. */
struct sec *ksc_elf_find_sec(struct reader *r, const char *name)
{
	int id = ksc_elf_section_id(name);

	if (id >= 0)
		return r->known[id] ? &r->secs[r->known[id]] : NULL;
	for (size_t i = 1; i < r->n_secs; i++)
		if (strcmp(r->secs[i].name, name) == 0)
			return &r->secs[i];
	return NULL;
}

size_t  ksc_elf_sec_index(const struct reader *r, const struct sec *s)
{
	return (size_t)(s - r->secs);
}

int ksc_elf_load_symbols(struct reader *r)
{
	struct sec *st = NULL;

	for (size_t i = 1; i < r->n_secs; i++) {
		if (r->secs[i].sh.sh_type == SHT_SYMTAB) {
			st = &r->secs[i];
			break;
		}
	}
	if (!st)
		return 0; /* stripped: no imports can be seen, exports need no symbols in vmlinux */

	size_t entsize = r->cls == 64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	if (st->sh.sh_entsize != entsize || st->sh.sh_size % entsize) {
		ksc_err(r->ctx, "%s: .symtab size %llu is not a multiple of its entry size", r->path,
			(unsigned long long)st->sh.sh_size);
		return -EINVAL;
	}
	size_t strndx = st->sh.sh_link;
	if (strndx == 0 || strndx >= r->n_secs || r->secs[strndx].sh.sh_type != SHT_STRTAB ||
	    !r->secs[strndx].bytes) {
		ksc_err(r->ctx, "%s: .symtab has no valid string table", r->path);
		return -EINVAL;
	}
	const struct sec *strs = &r->secs[strndx];
	if (strs->sh.sh_size == 0 || strs->bytes[strs->sh.sh_size - 1] != '\0') {
		ksc_err(r->ctx, "%s: symbol string table is not NUL-terminated", r->path);
		return -EINVAL;
	}

	if (!st->bytes) {
		ksc_err(r->ctx, "%s: cannot read .symtab: it has no contents", r->path);
		return -EINVAL;
	}
	size_t n = st->sh.sh_size / entsize;
	/* every entry is written below: no zeroing */
	r->syms = malloc((n ? n : 1) * sizeof(*r->syms));
	r->sym_names = malloc((n ? n : 1) * sizeof(*r->sym_names));
	if (!r->syms || !r->sym_names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *e = st->bytes + i * entsize;
		Elf64_Sym *y = &r->syms[i];
		y->st_name = (Elf64_Word)elfview_sym(&r->v, e, st_name);
		y->st_info = (unsigned char)elfview_sym(&r->v, e, st_info);
		y->st_other = (unsigned char)elfview_sym(&r->v, e, st_other);
		y->st_shndx = (Elf64_Section)elfview_sym(&r->v, e, st_shndx);
		y->st_value = elfview_sym(&r->v, e, st_value);
		y->st_size = elfview_sym(&r->v, e, st_size);
		if (r->syms[i].st_name >= strs->sh.sh_size) {
			ksc_err(r->ctx, "%s: symbol %zu: name offset %u outside the symbol string table",
				r->path, i, (unsigned int)r->syms[i].st_name);
			return -EINVAL;
		}
		r->sym_names[i] = (const char *)strs->bytes + r->syms[i].st_name;
	}
	r->n_syms = n;
	return 0;
}

static int cmp_rel(const void *a, const void *b)
{
	const struct rel *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

size_t  ksc_elf_field_size(const struct reader *r, enum rkind k)
{
	return k == RK_ABS64 ? 8 : 4;
}

static int cmp_span(const void *a, const void *b)
{
	const struct relspan *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->sec < y->sec ? -1 : x->sec > y->sec;
}

static size_t rel_entsize(const struct reader *r, bool rela)
{
	return rela ? (r->cls == 64 ? sizeof(Elf64_Rela) : sizeof(Elf32_Rela))
		    : (r->cls == 64 ? sizeof(Elf64_Rel) : sizeof(Elf32_Rel));
}

/*
 * The relocation sections that apply to `target`, checked before any is read: whole
 * entries, inside the file, and no byte of the file in two relocation sections (those
 * loaded before included). A linker never writes that; a crafted file does it to make
 * one blob of relocations count many times (2,000 headers sharing 480 KB: 1.3 GB of
 * relocations from a 600 KB file). So the relocations read are at most the file's own
 * bytes. Their spans are added to r->spans; 0 or -errno (logged).
 */
static int check_rel_spans(struct reader *r, size_t ti)
{
	size_t first = r->n_spans;

	for (size_t i = 1; i < r->n_secs; i++) {
		const struct sec *s = &r->secs[i];
		bool rela = s->sh.sh_type == SHT_RELA;
		if ((!rela && s->sh.sh_type != SHT_REL) || s->sh.sh_info != ti ||
		    s->sh.sh_size == 0)
			continue;
		if (s->sh.sh_size % rel_entsize(r, rela)) {
			ksc_err(r->ctx, "%s: %s: size is not a multiple of its entry size", r->path,
				s->name);
			return -EINVAL;
		}
		if (!range_ok(s->sh.sh_offset, s->sh.sh_size, r->size)) {
			ksc_err(r->ctx, "%s: %s extends past the end of the file", r->path,
				s->name);
			return -EINVAL;
		}
		if (array_reserve(r->spans, r->n_spans_cap, r->n_spans + 1, 8) < 0)
			return -ENOMEM;
		r->spans[r->n_spans++] = (struct relspan){ s->sh.sh_offset, s->sh.sh_size, i };
	}
	if (r->n_spans == first)
		return 0;
	qsort(r->spans, r->n_spans, sizeof(*r->spans), cmp_span);
	for (size_t i = 1; i < r->n_spans; i++) {
		const struct relspan *a = &r->spans[i - 1], *b = &r->spans[i];
		if (b->off - a->off < a->size) {
			ksc_err(r->ctx, "%s: relocation sections %zu (%s) and %zu (%s) share bytes of the file",
				r->path, a->sec, r->secs[a->sec].name, b->sec,
				r->secs[b->sec].name);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * A relocation's symbol and type (r_info of the image's class). MIPS64 keeps them apart:
 * a 32-bit symbol, then one byte each for a second symbol and three types, the first
 * type last (the MIPS64 ELF ABI; modpost reads it the same way).
 */
static void rel_info(const struct reader *r, const unsigned char *e, size_t *sym,
		     unsigned int *type)
{
	uint64_t info = elfview_field(&r->v, e, Rela, r_info);

	if (!r->v.c64) {
		*sym = (size_t)ELF32_R_SYM(info);
		*type = ELF32_R_TYPE(info);
	} else if (r->machine == EM_MIPS) {
		unsigned int at = (unsigned int)offsetof(Elf64_Rela, r_info);
		*sym = (size_t)elfview_rd(&r->v, e + at, 4);
		*type = e[at + 7];
	} else {
		*sym = (size_t)ELF64_R_SYM(info);
		*type = (unsigned int)ELF64_R_TYPE(info);
	}
}

/* Load the relocations that apply to section `target` (only those we need). */
int  ksc_elf_load_relocs(struct reader *r, struct sec *target)
{
	size_t ti = ksc_elf_sec_index(r, target);

	if (target->rels_loaded)
		return 0;
	target->rels_loaded = true;
	int ret = check_rel_spans(r, ti);
	if (ret < 0)
		return ret;
	for (size_t i = 1; i < r->n_secs; i++) {
		struct sec *s = &r->secs[i];
		bool rela = s->sh.sh_type == SHT_RELA;
		if ((!rela && s->sh.sh_type != SHT_REL) || s->sh.sh_info != ti ||
		    s->sh.sh_size == 0)
			continue;
		size_t entsize = rel_entsize(r, rela);
		if (!s->bytes) {
			ksc_err(r->ctx, "%s: %s: it has no contents", r->path, s->name);
			return -EINVAL;
		}
		size_t n = s->sh.sh_size / entsize;
		if (array_reserve(target->rels, target->cap_rels, target->n_rels + n, 16) < 0)
			return -ENOMEM;
		for (size_t j = 0; j < n; j++) {
			const unsigned char *e = s->bytes + j * entsize;
			struct rel *out = &target->rels[target->n_rels];
			unsigned int type;
			/* Rel is Rela without r_addend: the fields before it are the same */
			out->offset = elfview_field(&r->v, e, Rela, r_offset);
			out->addend = rela ? (int64_t)elfview_sint(&r->v, e, Rela, r_addend) : 0;
			rel_info(r, e, &out->sym, &type);
			out->kind = classify(r->machine, type);
			if (out->kind == RK_IGNORE)
				continue;
			if (out->kind == RK_UNKNOWN) {
				ksc_err(r->ctx, "%s: %s: relocation type %u of ELF machine %u is not supported",
					r->path, s->name, type, r->machine);
				return -EOPNOTSUPP;
			}
			if (out->sym >= r->n_syms) {
				ksc_err(r->ctx, "%s: %s: relocation %zu refers to symbol %zu, beyond the symbol table",
					r->path, s->name, j, out->sym);
				return -EINVAL;
			}
			size_t fs = ksc_elf_field_size(r, out->kind);
			if (!range_ok(out->offset, fs, target->sh.sh_size)) {
				ksc_err(r->ctx, "%s: %s: relocation %zu at offset %#llx is outside %s",
					r->path, s->name, j, (unsigned long long)out->offset,
					target->name);
				return -EINVAL;
			}
			if (!rela && target->bytes) {
				/* REL: the addend is the value stored in the field. */
				const unsigned char *p = target->bytes + out->offset;
				if (out->kind == RK_ABS64)
					out->addend = (int64_t)rd64(r, p);
				else if (out->kind == RK_PC32)
					out->addend = (int32_t)rd32(r, p);
				else
					out->addend = rd32(r, p);
			}
			target->n_rels++;
		}
	}
	if (target->n_rels > 1)
		qsort(target->rels, target->n_rels, sizeof(*target->rels), cmp_rel);
	return 0;
}

const struct rel *ksc_elf_find_rel(const struct sec *s, uint64_t offset)
{
	size_t lo = 0, hi = s->n_rels;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->rels[mid].offset < offset)
			lo = mid + 1;
		else if (s->rels[mid].offset > offset)
			hi = mid;
		else {
			while (mid > 0 && s->rels[mid - 1].offset == offset)
				mid--;
			return &s->rels[mid];
		}
	}
	return NULL;
}

/* Where a relocation points: section index and offset in it. false if not in a section. */
bool  ksc_elf_rel_target(const struct reader *r, const struct rel *rel, size_t *secidx,
		       uint64_t *off)
{
	const Elf64_Sym *sym = &r->syms[rel->sym];

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= r->n_secs ||
	    sym->st_shndx == SHN_ABS || sym->st_shndx == SHN_COMMON)
		return false;
	*secidx = sym->st_shndx;
	*off = sym->st_value + (uint64_t)rel->addend;
	return true;
}

/* A NUL-terminated string at `off` of section `s`, or NULL if it would run off its end. */
const char *ksc_elf_sec_string(const struct sec *s, uint64_t off)
{
	if (!s->bytes || off >= s->sh.sh_size)
		return NULL;
	const char *p = (const char *)s->bytes + off;
	if (!memchr(p, '\0', s->sh.sh_size - off))
		return NULL;
	return p;
}

void ksc_elf_reader_fini(struct reader *r)
{
	for (size_t i = 0; i < r->n_secs; i++)
		free(r->secs[i].rels);
	free(r->spans);
	free(r->secs);
	free(r->syms);
	free(r->sym_names);
}
