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

#include "readers/readers.h"
#include "util/array.h"
#include "util/elfview.h"

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


/* MODULE_NAME_LEN = 64 - sizeof(unsigned long) (include/linux/module.h). */
#define MODVERSION_RECORD 64

enum rkind {
	RK_IGNORE = 0, /* R_*_NONE, or the SUB half of an ADD/SUB pair */
	RK_ABS32,
	RK_ABS64,
	RK_PC32,
	RK_UNKNOWN,
};

struct rel {
	uint64_t offset;
	int64_t addend;
	size_t sym;
	enum rkind kind;
};

struct sec {
	const char *name;
	Elf64_Shdr sh;              /* both classes, widened */
	const unsigned char *bytes; /* NULL for SHT_NOBITS */
	struct rel *rels;           /* relocations applying to this section, by offset */
	size_t n_rels, cap_rels;
	bool rels_loaded;
};

/* A relocation section's bytes in the file (load_relocs()). */
struct relspan {
	uint64_t off, size;
	size_t sec;
};

struct reader {
	struct ksc_ctx *ctx;
	struct ksc_module *mod;
	const char *path;
	struct elfview v;
	unsigned char *img;
	size_t size;
	int cls;
	bool be;
	unsigned int machine;
	unsigned int type;
	struct sec *secs;
	size_t n_secs;
	size_t known[KSC_ELF_SECTIONS_MAX]; /* first section of each ksc_elf_section_id() */
	Elf64_Sym *syms; /* both classes, widened */
	const char **sym_names;
	size_t n_syms;
	/* the relocation sections loaded so far: no two share a byte of the file */
	struct relspan *spans;
	size_t n_spans, n_spans_cap;
};

/* ---------------------------------------------------------------------------------- */
/* Byte order                                                                         */

static uint16_t rd16(const struct reader *r, const unsigned char *p)
{
	return (uint16_t)elfview_rd(&r->v, p, 2);
}

static uint32_t rd32(const struct reader *r, const unsigned char *p)
{
	return (uint32_t)elfview_rd(&r->v, p, 4);
}

static uint64_t rd64(const struct reader *r, const unsigned char *p)
{
	return elfview_rd(&r->v, p, 8);
}

static uint64_t rdptr(const struct reader *r, const unsigned char *p)
{
	return elfview_rd(&r->v, p, r->v.c64 ? 8 : 4);
}

/* a + b <= limit, without overflow */
static bool range_ok(uint64_t a, uint64_t b, uint64_t limit)
{
	return a <= limit && b <= limit - a;
}

/* ---------------------------------------------------------------------------------- */
/* Machines                                                                           */

/* e_machine values of the architectures Linux supports (arch/). */
static bool machine_is_linux(unsigned int m)
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

static int check_ident(struct reader *r)
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

static int load_sections(struct reader *r)
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
static struct sec *find_sec(struct reader *r, const char *name)
{
	int id = ksc_elf_section_id(name);

	if (id >= 0)
		return r->known[id] ? &r->secs[r->known[id]] : NULL;
	for (size_t i = 1; i < r->n_secs; i++)
		if (strcmp(r->secs[i].name, name) == 0)
			return &r->secs[i];
	return NULL;
}

static size_t sec_index(const struct reader *r, const struct sec *s)
{
	return (size_t)(s - r->secs);
}

static int load_symbols(struct reader *r)
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

static size_t field_size(const struct reader *r, enum rkind k)
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
static int load_relocs(struct reader *r, struct sec *target)
{
	size_t ti = sec_index(r, target);

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
			size_t fs = field_size(r, out->kind);
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

static const struct rel *find_rel(const struct sec *s, uint64_t offset)
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
static bool rel_target(const struct reader *r, const struct rel *rel, size_t *secidx,
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
static const char *sec_string(const struct sec *s, uint64_t off)
{
	if (!s->bytes || off >= s->sh.sh_size)
		return NULL;
	const char *p = (const char *)s->bytes + off;
	if (!memchr(p, '\0', s->sh.sh_size - off))
		return NULL;
	return p;
}

/* ---------------------------------------------------------------------------------- */
/* .modinfo, struct module, __versions                                                */

/*
 * .modinfo (as the loader's get_next_modinfo() reads it): NUL-terminated "key=value"
 * strings, possibly separated by runs of NULs. A section whose last byte is not NUL is malformed: the loader's
 * get_next_modinfo() would run off its end.
 */
int ksc_modinfo_parse(struct ksc_module *mod, const char *p, size_t size)
{
	const char *end = p + size;
	size_t n = 0;

	if (size == 0)
		return 0;
	if (end[-1] != '\0') {
		ksc_err(mod->ctx, "%s: .modinfo is not NUL-terminated (its last string runs past the end of the section)",
			mod->path);
		return -EINVAL;
	}
	for (const char *q = p; q < end; q += strlen(q) + 1)
		if (*q)
			n++;
	free(mod->modinfo);
	mod->n_modinfo = 0;
	mod->modinfo = calloc(n ? n : 1, sizeof(*mod->modinfo));
	if (!mod->modinfo)
		return -ENOMEM;
	for (const char *q = p; q < end; q += strlen(q) + 1) {
		if (!*q)
			continue; /* alignment padding between entries */
		const char *eq = strchr(q, '=');
		struct ksc_modinfo *mi = &mod->modinfo[mod->n_modinfo++];
		mi->key = pool_strndup(&mod->strings, q, eq ? (size_t)(eq - q) : strlen(q));
		mi->value = pool_strdup(&mod->strings, eq ? eq + 1 : "");
		if (!mi->key || !mi->value)
			return -ENOMEM;
	}
	return 0;
}

static int parse_modinfo(struct reader *r)
{
	struct sec *s = find_sec(r, ".modinfo");

	if (!s || !s->bytes)
		return 0;
	return ksc_modinfo_parse(r->mod, (const char *)s->bytes, s->sh.sh_size);
}

static void parse_this_module(struct reader *r)
{
	struct sec *s = find_sec(r, ".gnu.linkonce.this_module");
	size_t off = r->cls == 64 ? 24 : 12;
	size_t len = r->cls == 64 ? 56 : 60;

	if (!s || !s->bytes || s->sh.sh_size < off + len)
		return;
	const char *name = (const char *)s->bytes + off;
	size_t n = strnlen(name, len);
	if (n == len) {
		ksc_warn(r->ctx, "%s: struct module name is not NUL-terminated", r->path);
		return;
	}
	r->mod->struct_name = pool_strndup(&r->mod->strings, name, n);
}

static int parse_versions(struct reader *r)
{
	struct ksc_module *mod = r->mod;
	struct sec *s = find_sec(r, "__versions");

	if (s) {
		if (!s->bytes) {
			ksc_err(r->ctx, "%s: __versions has no contents", r->path);
			return -EINVAL;
		}
		if (s->sh.sh_size % MODVERSION_RECORD) {
			ksc_err(r->ctx, "%s: __versions size %llu is not a multiple of %d", r->path,
				(unsigned long long)s->sh.sh_size, MODVERSION_RECORD);
			return -EINVAL;
		}
		size_t n = s->sh.sh_size / MODVERSION_RECORD, psz = (size_t)r->cls / 8;
		mod->has_versions = true;
		mod->versions = calloc(n ? n : 1, sizeof(*mod->versions));
		if (!mod->versions)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			const unsigned char *e = s->bytes + i * MODVERSION_RECORD;
			const char *name = (const char *)e + psz;
			size_t len = strnlen(name, MODVERSION_RECORD - psz);
			struct ksc_version *v = &mod->versions[mod->n_versions++];
			v->crc = rdptr(r, e);
			v->name = pool_strndup(&mod->strings, name, len);
			if (!v->name)
				return -ENOMEM;
		}
	}

	/* 6.14+ extended tables (kernel/module/version.c); both or neither. */
	struct sec *crcs = find_sec(r, "__version_ext_crcs");
	struct sec *names = find_sec(r, "__version_ext_names");
	if (!crcs && !names)
		return 0;
	if (!crcs || !names || !crcs->bytes || !names->bytes) {
		ksc_err(r->ctx, "%s: extended version crc+name presence does not match", r->path);
		return -EINVAL;
	}
	if (crcs->sh.sh_size % 4) {
		ksc_err(r->ctx, "%s: __version_ext_crcs size %llu is not a multiple of 4", r->path,
			(unsigned long long)crcs->sh.sh_size);
		return -EINVAL;
	}
	size_t n = crcs->sh.sh_size / 4;
	const char *p = (const char *)names->bytes, *end = p + names->sh.sh_size;
	mod->ext_versions = calloc(n ? n : 1, sizeof(*mod->ext_versions));
	if (!mod->ext_versions)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
		if (!nul) {
			ksc_err(r->ctx, "%s: more extended version crcs than names", r->path);
			return -EINVAL;
		}
		struct ksc_version *v = &mod->ext_versions[mod->n_ext_versions++];
		v->crc = rd32(r, crcs->bytes + 4 * i);
		v->name = pool_strndup(&mod->strings, p, (size_t)(nul - p));
		if (!v->name)
			return -ENOMEM;
		p = nul + 1;
	}
	mod->has_ext_versions = true;
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Imports                                                                            */

static int parse_imports(struct reader *r)
{
	struct ksc_module *mod = r->mod;
	struct hash vers, ext;
	int ret = 0;

	hash_init(&vers);
	hash_init(&ext);
	/* First entry of a name wins, as the loader's linear search finds it first. */
	bool vers_dup = false;
	for (size_t i = 0; i < mod->n_versions && ret >= 0; i++) {
		ret = hash_add(&vers, mod->versions[i].name, &mod->versions[i], 1);
		vers_dup |= ret == 1;
	}
	for (size_t i = 0; i < mod->n_ext_versions && ret >= 0; i++)
		ret = hash_add(&ext, mod->ext_versions[i].name, &mod->ext_versions[i], 1);
	if (ret < 0)
		goto out;

	size_t n = 0;
	for (size_t i = 1; i < r->n_syms; i++)
		if (r->syms[i].st_shndx == SHN_UNDEF && r->sym_names[i][0])
			n++;
	mod->imports = calloc(n ? n : 1, sizeof(*mod->imports));
	if (!mod->imports) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 1; i < r->n_syms; i++) {
		const Elf64_Sym *sym = &r->syms[i];
		if (sym->st_shndx != SHN_UNDEF || !r->sym_names[i][0])
			continue;
		struct ksc_import *imp = &mod->imports[mod->n_imports++];
		imp->name = pool_strdup(&mod->strings, r->sym_names[i]);
		if (!imp->name) {
			ret = -ENOMEM;
			goto out;
		}
		imp->bind = ELF64_ST_BIND(sym->st_info) == STB_WEAK ? KSC_BIND_WEAK : KSC_BIND_GLOBAL;
		/*
		 * modpost writes __versions in the order of the undefined symbols of the .o;
		 * linking the .ko reorders .symtab, so entry k names import k for about one
		 * import in six (Debian 6.1). When it does, and no name is twice in
		 * __versions, it is the one entry of that name: no lookup.
		 */
		size_t k = mod->n_imports - 1;
		const struct ksc_version *v =
			!vers_dup && k < mod->n_versions &&
					strcmp(mod->versions[k].name, imp->name) == 0
				? &mod->versions[k]
				: hash_find(&vers, imp->name);
		if (v) {
			imp->has_crc = true;
			imp->crc = (uint32_t)v->crc;
			imp->crc_truncated = v->crc > UINT32_MAX;
		}
		v = hash_find(&ext, imp->name);
		if (v) {
			imp->has_ext_crc = true;
			imp->ext_crc = (uint32_t)v->crc;
		}
	}
	ret = 0;
out:
	hash_fini(&vers);
	hash_fini(&ext);
	return ret;
}

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
		if (s->rels[i].offset % fs || field_size(r, s->rels[i].kind) != fs)
			return false;
	size_t n = s->sh.sh_size / esz;
	for (size_t i = 0; i < n; i++) {
		uint64_t base = i * esz;
		size_t si;
		uint64_t off;
		const struct rel *v = find_rel(s, base), *nm = find_rel(s, base + fs);
		if (!v || !nm)
			return false;
		if (rel_target(r, v, &si, &off) && si == strndx)
			return false;
		if (!rel_target(r, nm, &si, &off) || (strndx && si != strndx))
			return false;
		const char *name = sec_string(&r->secs[si], off);
		if (!name || !*name)
			return false;
		const char *ns = "";
		if (k == 3) {
			const struct rel *nsr = find_rel(s, base + 2 * fs);
			if (nsr) {
				if (!rel_target(r, nsr, &si, &off) || (strndx && si != strndx))
					return false;
				ns = sec_string(&r->secs[si], off);
				if (!ns)
					return false;
			}
		}
		if (out) {
			out[i].name = name;
			out[i].ns = ns;
		}
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
		if (tgt[0] >= lo && tgt[0] < hi)
			return false;
		if (tgt[1] < lo || tgt[1] >= hi)
			return false;
		const char *name = sec_string(strs, tgt[1] - lo);
		if (!name || !*name)
			return false;
		const char *ns = "";
		if (k == 3 && raw[2] != 0) {
			if (tgt[2] < lo || tgt[2] >= hi)
				return false;
			ns = sec_string(strs, tgt[2] - lo);
			if (!ns)
				return false;
		}
		if (out) {
			out[i].name = name;
			out[i].ns = ns;
		}
	}
	return true;
}

/* CRC of entry i: relocated (old modules with __crc_ symbols) or stored (5.19+). */
static bool read_crc(struct reader *r, const struct sec *kc, size_t i, uint32_t *crc)
{
	uint64_t off = (uint64_t)i * 4;

	if (!kc || !kc->bytes || !range_ok(off, 4, kc->sh.sh_size))
		return false;
	const struct rel *rel = r->type == ET_REL ? find_rel(kc, off) : NULL;
	if (rel) {
		const Elf64_Sym *sym = &r->syms[rel->sym];
		size_t si;
		uint64_t o;
		if (sym->st_shndx == SHN_ABS) {
			*crc = (uint32_t)(sym->st_value + (uint64_t)rel->addend);
			return true;
		}
		if (rel_target(r, rel, &si, &o) && r->secs[si].bytes &&
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
	size_t strndx = strs ? sec_index(r, strs) : 0;

	if (r->type == ET_REL) {
		int ret = load_relocs(r, t->ksymtab);
		if (ret < 0)
			return ret;
		if (t->kcrctab) {
			ret = load_relocs(r, t->kcrctab);
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
	struct sec *es = find_sec(r, ".export_symbol");
	size_t cap = 0;

	if (!es || !es->bytes)
		return 0;
	size_t shndx = sec_index(r, es);
	for (size_t i = 0; i < r->n_syms; i++)
		if (r->syms[i].st_shndx == shndx && !strncmp(r->sym_names[i], prefix, sizeof(prefix) - 1))
			cap++;
	if (!cap)
		return 0;
	mod->exports = calloc(cap, sizeof(*mod->exports));
	if (!mod->exports)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_syms; i++) {
		const Elf64_Sym *sym = &r->syms[i];
		if (sym->st_shndx != shndx || strncmp(r->sym_names[i], prefix, sizeof(prefix) - 1))
			continue;
		const char *lic = sec_string(es, sym->st_value);
		const char *ns = lic ? sec_string(es, sym->st_value + strlen(lic) + 1) : NULL;
		if (!ns) {
			ksc_err(r->ctx, "%s: %s: its license and namespace run past .export_symbol",
				r->path, r->sym_names[i]);
			return -EINVAL;
		}
		struct ksc_export *e = &mod->exports[mod->n_exports++];
		e->name = pool_strdup(&mod->strings, r->sym_names[i] + sizeof(prefix) - 1);
		e->ns = pool_strdup(&mod->strings, ns);
		if (!e->name || !e->ns)
			return -ENOMEM;
		e->gpl_only = !strcmp(lic, "GPL");
		int ret = hash_add(&mod->export_index, e->name, e, 1);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int parse_exports(struct reader *r)
{
	struct ksc_module *mod = r->mod;
	struct table tables[2] = {
		{ find_sec(r, "__ksymtab"), find_sec(r, "__kcrctab"), false },
		{ find_sec(r, "__ksymtab_gpl"), find_sec(r, "__kcrctab_gpl"), true },
	};
	struct sec *strs = find_sec(r, "__ksymtab_strings");
	struct sec *flags = find_sec(r, "__kflagstab");
	enum ksc_export_layout layout = KSC_LAYOUT_NONE;
	size_t cap = 0;
	int ret = 0;

	mod->has_kflagstab = flags != NULL;
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
	mod->exports = calloc(cap, sizeof(*mod->exports));
	if (!ent || !mod->exports) {
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
			struct ksc_export *e = &mod->exports[mod->n_exports++];
			e->name = pool_strdup(&mod->strings, ent[i].name);
			e->ns = pool_strdup(&mod->strings, ent[i].ns);
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
			ret = hash_add(&mod->export_index, e->name, e, 1);
			if (ret < 0)
				goto out;
		}
	}
	mod->layout = layout;
out:
	free(ent);
	return ret;
}

/* ---------------------------------------------------------------------------------- */

static int classify_file(struct reader *r)
{
	bool has_exports = false, has_modinfo = false;

	has_exports = find_sec(r, "__ksymtab") || find_sec(r, "__ksymtab_gpl") ||
		      find_sec(r, "__ksymtab_strings");
	has_modinfo = find_sec(r, ".modinfo") || find_sec(r, ".gnu.linkonce.this_module");
	switch (r->type) {
	case ET_REL:
		if (!has_modinfo && !has_exports) {
			ksc_err(r->ctx, "%s: not a kernel module (no .modinfo or .gnu.linkonce.this_module section)",
				r->path);
			return -ENOEXEC;
		}
		r->mod->kind = KSC_KIND_MODULE;
		return 0;
	case ET_EXEC:
	case ET_DYN:
		if (!has_exports) {
			ksc_err(r->ctx, "%s: not a kernel image or module (ELF executable without export tables)",
				r->path);
			return -ENOEXEC;
		}
		r->mod->kind = KSC_KIND_VMLINUX;
		return 0;
	}
	ksc_err(r->ctx, "%s: not a kernel image or module (ELF type %u)", r->path, r->type);
	return -ENOEXEC;
}

static int record_sections(struct reader *r)
{
	struct ksc_module *mod = r->mod;

	mod->sections = calloc(r->n_secs, sizeof(*mod->sections));
	if (!mod->sections)
		return -ENOMEM;
	for (size_t i = 1; i < r->n_secs; i++) {
		const char *n = pool_strdup(&mod->strings, r->secs[i].name);
		if (!n)
			return -ENOMEM;
		mod->sections[mod->n_sections++] = n;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* A kernel image's identity                                                          */

/* The NUL-terminated string that starts at p, if it ends inside [p, end). */
static size_t str_in(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *z = memchr(p, '\0', (size_t)(end - p));
	return z ? (size_t)(z - p) : (size_t)-1;
}

/*
 * A VERMAGIC_STRING (include/linux/vermagic.h): the release, a space, then words such as
 * "SMP", "preempt", "mod_unload", "modversions", each followed by a space.
 */
static bool looks_like_vermagic(const unsigned char *s, size_t n, size_t rel_len)
{
	if (n <= rel_len + 1 || s[rel_len] != ' ' || s[n - 1] != ' ')
		return false;
	for (size_t i = rel_len + 1; i < n; i++)
		if (!(s[i] == ' ' || s[i] == '_' || s[i] == '-' || s[i] == '.' ||
		      (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

/*
 * The release and vermagic of a kernel image, from its .rodata: linux_banner ("Linux
 * version RELEASE (...") names the release; the loader's vermagic[] (kernel/module/
 * main.c, VERMAGIC_STRING) is the NUL-terminated string that starts with the release and
 * a space and ends with a space. Either may be missing (a stripped or odd image): then
 * the caller has no release or vermagic from the image.
 */
static int parse_image_identity(struct reader *r)
{
	static const char banner[] = "Linux version ";
	struct sec *ro = find_sec(r, ".rodata");

	if (!ro || !ro->bytes)
		return 0;
	const unsigned char *p = ro->bytes, *end = p + ro->sh.sh_size;
	const unsigned char *b = memmem(p, (size_t)(end - p), banner, sizeof(banner) - 1);
	if (!b)
		return 0;
	const unsigned char *rel = b + sizeof(banner) - 1;
	size_t rl = 0;
	while (rel + rl < end && rel[rl] > ' ' && rel[rl] < 0x7f)
		rl++;
	if (rl == 0 || rl >= 65 || rel + rl >= end || rel[rl] != ' ')
		return 0;
	r->mod->image_release = pool_strndup(&r->mod->strings, (const char *)rel, rl);
	if (!r->mod->image_release)
		return -ENOMEM;
	for (const unsigned char *q = p; q < end;) {
		const unsigned char *m = memmem(q, (size_t)(end - q), rel, rl);
		if (!m)
			break;
		q = m + 1;
		if (m > p && m[-1] != '\0')
			continue;
		size_t n = str_in(m, end);
		if (n == (size_t)-1 || !looks_like_vermagic(m, n, rl))
			continue;
		r->mod->image_vermagic = pool_strndup(&r->mod->strings, (const char *)m, n);
		return r->mod->image_vermagic ? 0 : -ENOMEM;
	}
	return 0;
}

/*
 * __param: struct kernel_param (include/linux/moduleparam.h) is {name, mod, ops, perm (u16),
 * level, flags, arg} since 4.2 (mod added), {name, ops, perm, level, flags, arg} before:
 * pointers, then perm. Which one is known by the relocation of entry 0's second field
 * (mod points to __this_module). The name is a relocated pointer to a string. Only what
 * the sysfs attributes need (R42); a table that cannot be read gives no parameters.
 */
static int parse_params(struct reader *r)
{
	struct sec *s = find_sec(r, "__param");
	size_t ps = r->cls == 64 ? 8 : 4, entsize, n;
	const struct rel *mrel;
	size_t si;
	uint64_t off;
	int ret;

	if (!s || !s->bytes || !s->sh.sh_size)
		return 0;
	ret = load_relocs(r, s);
	if (ret < 0)
		return ret == -ENOMEM ? ret : 0;
	mrel = find_rel(s, ps);
	bool with_mod = mrel && mrel->sym < r->n_syms && r->sym_names[mrel->sym] &&
			strcmp(r->sym_names[mrel->sym], "__this_module") == 0;
	/* name, [mod,] ops, then u16 perm, s8 level, u8 flags, padded to a pointer, arg */
	entsize = (with_mod ? 3 : 2) * ps + ps + ps;
	if (s->sh.sh_size % entsize)
		return 0;
	n = s->sh.sh_size / entsize;
	r->mod->params = calloc(n, sizeof(*r->mod->params));
	if (!r->mod->params)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t base = i * entsize;
		const struct rel *nrel = find_rel(s, base);
		const char *name = nrel && rel_target(r, nrel, &si, &off)
					   ? sec_string(&r->secs[si], off) : NULL;
		struct ksc_param *p = &r->mod->params[r->mod->n_params];
		if (!name)
			continue;
		p->name = pool_strdup(&r->mod->strings, name);
		if (!p->name)
			return -ENOMEM;
		p->perm = rd16(r, s->bytes + base + (with_mod ? 3 : 2) * ps);
		r->mod->n_params++;
	}
	return 0;
}

int ksc_elf_parse_module(struct ksc_module *mod, const struct ksc_blob *b)
{
	struct reader r = {
		.ctx = mod->ctx,
		.mod = mod,
		.path = mod->path,
		.img = b->data,
	};
	size_t sig;
	int ret;

	r.size = ksc_signature_strip(b->data, b->size, &sig);
	mod->sig_size = sig;
	mod->size = b->size;
	ret = check_ident(&r);
	if (ret < 0)
		return ret;
	r.machine = r.v.machine;
	r.type = (unsigned int)elfview_ehdr(&r.v, e_type);
	mod->elf_class = r.cls;
	mod->big_endian = r.be;
	mod->machine = r.machine;
	if (!machine_is_linux(r.machine)) {
		ksc_err(r.ctx, "%s: ELF machine %u is not a Linux architecture", r.path, r.machine);
		ret = -EOPNOTSUPP;
		goto out;
	}
	ret = load_sections(&r);
	if (ret < 0)
		goto out;
	ret = classify_file(&r);
	if (ret < 0)
		goto out;
	ret = record_sections(&r);
	if (ret < 0)
		goto out;
	ret = load_symbols(&r);
	if (ret < 0)
		goto out;
	if (mod->kind == KSC_KIND_MODULE) {
		ret = parse_modinfo(&r);
		if (ret < 0)
			goto out;
		parse_this_module(&r);
		ret = parse_versions(&r);
		if (ret < 0)
			goto out;
		ret = parse_imports(&r);
		if (ret < 0)
			goto out;
	}
	ret = parse_exports(&r);
	if (ret >= 0 && mod->kind == KSC_KIND_MODULE)
		ret = parse_params(&r);
	if (ret >= 0 && mod->kind == KSC_KIND_VMLINUX)
		ret = parse_image_identity(&r);
out:
	for (size_t i = 0; i < r.n_secs; i++)
		free(r.secs[i].rels);
	free(r.spans);
	free(r.secs);
	free(r.syms);
	free(r.sym_names);
	if (ret == -ENOMEM)
		ksc_err(r.ctx, "%s: out of memory", r.path);
	return ret;
}
