/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <elf.h>
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * A bounded view of an ELF image in memory: the identification, the header fields the
 * readers use, and field reads by name (kmod's libkmod-elf.c discipline: every field is
 * read at offsetof() of the <elf.h> structure of the image's class, in the image's byte
 * order, and a read outside the image gives UINT64_MAX instead of touching memory).
 * 32- and 64-bit images of either byte order. No allocation: a view is a few words on
 * the caller's stack over bytes the caller keeps.
 */
struct elfview {
	const unsigned char *m;
	uint64_t size;
	bool c64; /* ELFCLASS64 */
	bool msb; /* ELFDATA2MSB */
	unsigned int machine;   /* e_machine */
	uint64_t shoff;         /* e_shoff */
	unsigned int shentsize; /* e_shentsize */
	unsigned int shnum;     /* e_shnum */
	unsigned int shstrndx;  /* e_shstrndx */
};

/*
 * The view of the `size` bytes at `m`: false unless they start with an ELF identification
 * of class ELFCLASS32 or ELFCLASS64 and data ELFDATA2LSB or ELFDATA2MSB. The header fields
 * are read bounded (a field outside the bytes reads as all ones, truncated to its member):
 * callers that need a whole header check `size` against elfview_ehdr_size() themselves.
 */
bool elfview_open(struct elfview *v, const unsigned char *m, uint64_t size);

/* Read the header fields of a view whose m, size, c64 and msb are set (elfview_open()). */
void elfview_read_header(struct elfview *v);

/* sizeof(ElfN_Ehdr), sizeof(ElfN_Shdr), sizeof(ElfN_Sym) of the view's class */
static inline unsigned int elfview_ehdr_size(const struct elfview *v)
{
	return v->c64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
}

static inline unsigned int elfview_shdr_size(const struct elfview *v)
{
	return v->c64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
}

static inline unsigned int elfview_sym_size(const struct elfview *v)
{
	return v->c64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
}

/* The unsigned integer of n bytes (1, 2, 4, 8 or any up to 8) at p, which must be readable. */
static inline uint64_t elfview_rd(const struct elfview *v, const unsigned char *p,
				  unsigned int n)
{
	switch (n) {
	case 1:
		return p[0];
	case 2: {
		uint16_t x;
		memcpy(&x, p, 2);
		return v->msb ? be16toh(x) : le16toh(x);
	}
	case 4: {
		uint32_t x;
		memcpy(&x, p, 4);
		return v->msb ? be32toh(x) : le32toh(x);
	}
	case 8: {
		uint64_t x;
		memcpy(&x, p, 8);
		return v->msb ? be64toh(x) : le64toh(x);
	}
	default:
		break;
	}
	uint64_t x = 0;
	if (v->msb) {
		for (unsigned int i = 0; i < n; i++)
			x = x << 8 | p[i];
	} else {
		for (unsigned int i = n; i > 0; i--)
			x = x << 8 | p[i - 1];
	}
	return x;
}

/* kmod's elf_get_uint(): the n bytes at image offset off, UINT64_MAX when outside it. */
static inline uint64_t elfview_get(const struct elfview *v, uint64_t off, unsigned int n)
{
	if (off > v->size || n > v->size - off)
		return UINT64_MAX;
	return elfview_rd(v, v->m + off, n);
}

/* Offset and size of member f of ElfN_T for the view's class. */
#define ELFVIEW_OFF(v, T, f) ((v)->c64 ? offsetof(Elf64_##T, f) : offsetof(Elf32_##T, f))
#define ELFVIEW_LEN(v, T, f) \
	((unsigned int)((v)->c64 ? sizeof(((Elf64_##T *)0)->f) : sizeof(((Elf32_##T *)0)->f)))

/* Field f of the ELF header (e_shoff, ...), bounded. */
#define elfview_ehdr(v, f) elfview_get((v), ELFVIEW_OFF(v, Ehdr, f), ELFVIEW_LEN(v, Ehdr, f))

/* Image offset of section header i (e_shoff + i * e_shentsize). */
static inline uint64_t elfview_shdr_off(const struct elfview *v, uint64_t i)
{
	return v->shoff + i * v->shentsize;
}

/* Field f (sh_offset, ...) of section header i, bounded. */
#define elfview_shdr(v, i, f) \
	elfview_get((v), elfview_shdr_off((v), (i)) + ELFVIEW_OFF(v, Shdr, f), \
		    ELFVIEW_LEN(v, Shdr, f))

/* Field f of an ElfN_T (Rela, Rel, Sym, ...) whose bytes start at p, which must be readable. */
#define elfview_field(v, p, T, f) \
	elfview_rd((v), (p) + ELFVIEW_OFF(v, T, f), ELFVIEW_LEN(v, T, f))

/* The same for a signed field (r_addend), sign-extended from its size. */
#define elfview_sint(v, p, T, f) \
	(ELFVIEW_LEN(v, T, f) == 4 ? (int64_t)(int32_t)(uint32_t)elfview_field(v, p, T, f) \
				   : (int64_t)elfview_field(v, p, T, f))

/* Field f (st_name, ...) of the symbol whose bytes start at p, which must be readable. */
#define elfview_sym(v, p, f) elfview_rd((v), (p) + ELFVIEW_OFF(v, Sym, f), ELFVIEW_LEN(v, Sym, f))
