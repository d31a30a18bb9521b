/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The module reader's own (readers wing only): the state of one read of an ELF image
 * over util/elfview.h, shared by its four files: ksc-elf.c (headers, sections, symbols,
 * relocations), ksc-elf-module.c (the file's kind, the order of the steps), ksc-elf-tables.c (.modinfo, struct module, __versions,
 * imports, parameters, a kernel image's identity) and ksc-elf-exports.c (the export
 * tables).
 */
#pragma once

#include "readers/readers.h"
#include "util/elfview.h"

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
	struct ksc_module *mod; /* filled through readers.h: its tables by the adders */
	struct ksc_module_facts f; /* the module's facts as read, set back at the end */
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

static inline uint16_t rd16(const struct reader *r, const unsigned char *p)
{
	return (uint16_t)elfview_rd(&r->v, p, 2);
}

static inline uint32_t rd32(const struct reader *r, const unsigned char *p)
{
	return (uint32_t)elfview_rd(&r->v, p, 4);
}

static inline uint64_t rd64(const struct reader *r, const unsigned char *p)
{
	return elfview_rd(&r->v, p, 8);
}

static inline uint64_t rdptr(const struct reader *r, const unsigned char *p)
{
	return elfview_rd(&r->v, p, r->v.c64 ? 8 : 4);
}

/* a + b <= limit, without overflow */
static inline bool range_ok(uint64_t a, uint64_t b, uint64_t limit)
{
	return a <= limit && b <= limit - a;
}

/* ksc-elf.c: open an image (the identification, the section headers, the symbols) */
int ksc_elf_check_ident(struct reader *r);
int ksc_elf_load_sections(struct reader *r);
int ksc_elf_load_symbols(struct reader *r);
/* e_machine values of the architectures Linux supports (arch/). */
bool ksc_elf_machine_is_linux(unsigned int m);
/* What the reader holds, freed (not the module). */
void ksc_elf_reader_fini(struct reader *r);
/* The first section named `name`, or NULL. */
struct sec *ksc_elf_find_sec(struct reader *r, const char *name);
size_t ksc_elf_sec_index(const struct reader *r, const struct sec *s);
/* The size of the field a relocation of kind k writes. */
size_t ksc_elf_field_size(const struct reader *r, enum rkind k);
/* Load the relocations that apply to `target` (once). 0 or -errno (logged). */
int ksc_elf_load_relocs(struct reader *r, struct sec *target);
/* The first relocation of `s` at `offset`, or NULL. */
const struct rel *ksc_elf_find_rel(const struct sec *s, uint64_t offset);
/* Where a relocation points: section index and offset in it. false if not in a section. */
bool ksc_elf_rel_target(const struct reader *r, const struct rel *rel, size_t *secidx,
			uint64_t *off);
/* A NUL-terminated string at `off` of section `s`, or NULL if it would run off its end. */
const char *ksc_elf_sec_string(const struct sec *s, uint64_t off);

/* ksc-elf-tables.c: each 0 or -errno (logged) */
int ksc_elf_parse_modinfo(struct reader *r);
void ksc_elf_parse_this_module(struct reader *r);
int ksc_elf_parse_versions(struct reader *r);
int ksc_elf_parse_imports(struct reader *r);
int ksc_elf_parse_params(struct reader *r);
int ksc_elf_parse_image_identity(struct reader *r);

/* ksc-elf-exports.c */
int ksc_elf_parse_exports(struct reader *r);
