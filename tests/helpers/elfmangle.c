// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * elfmangle: derive test inputs from a good fixture. Most modes break one thing in an
 * ELF64 little-endian relocatable file (the x86_64 fixtures) so the parser tests can
 * check that each defect is reported and nothing is read out of bounds; the others
 * corrupt any file (compressed streams) or append a module signature.
 *
 * Usage: elfmangle MODE IN OUT    (`elfmangle --help` lists the modes)
 *
 * OUT is written only when the mode succeeded. Exit status 0, 1 on error, 2 on bad usage.
 */
#include <elf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct image {
	const char *path;
	unsigned char *data;
	size_t size;
};

__attribute__((noreturn, format(printf, 2, 3)))
static void die(const struct image *img, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "elfmangle: %s: ", img->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- little-endian field access, bounds-checked against the image ---- */

static uint64_t get_le(const struct image *img, size_t off, size_t width)
{
	uint64_t v = 0;

	if (off > img->size || width > img->size - off)
		die(img, "read of %zu bytes at 0x%zx is past the end", width, off);
	for (size_t i = width; i-- > 0;)
		v = v << 8 | img->data[off + i];
	return v;
}

static void put_le(struct image *img, size_t off, size_t width, uint64_t v)
{
	if (off > img->size || width > img->size - off)
		die(img, "write of %zu bytes at 0x%zx is past the end", width, off);
	for (size_t i = 0; i < width; i++, v >>= 8)
		img->data[off + i] = (unsigned char)v;
}

#define FIELD(type, member) offsetof(type, member), sizeof(((type *)NULL)->member)
#define EHDR(member) FIELD(Elf64_Ehdr, member)

/* ---- sections ---- */

static void check_elf64le(const struct image *img)
{
	static const unsigned char ident[] = {
		ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
	};

	if (img->size < sizeof(Elf64_Ehdr) || memcmp(img->data, ident, sizeof(ident)))
		die(img, "not an ELF64 little-endian file");
	if (get_le(img, EHDR(e_shentsize)) != sizeof(Elf64_Shdr))
		die(img, "unexpected e_shentsize");
}

static size_t shnum(const struct image *img)
{
	return get_le(img, EHDR(e_shnum));
}

/* File offset of a member of section header `i`. */
static size_t shdr_at(const struct image *img, size_t i, size_t member_off)
{
	uint64_t shoff = get_le(img, EHDR(e_shoff));

	if (i >= shnum(img))
		die(img, "no section %zu", i);
	return shoff + i * sizeof(Elf64_Shdr) + member_off;
}

/* Read or write a member of section header `i`. */
#define SH_FIELD(img, i, member) \
	shdr_at(img, i, offsetof(Elf64_Shdr, member)), \
	sizeof(((Elf64_Shdr *)NULL)->member)
#define SH_GET(img, i, member) get_le(img, SH_FIELD(img, i, member))
#define SH_PUT(img, i, member, v) put_le(img, SH_FIELD(img, i, member), v)

/* Index of the section called `name`; dies when there is none. */
static size_t find_section(const struct image *img, const char *name)
{
	size_t shstrndx = get_le(img, EHDR(e_shstrndx));
	size_t base = SH_GET(img, shstrndx, sh_offset);
	size_t size = SH_GET(img, shstrndx, sh_size);
	size_t len = strlen(name);

	for (size_t i = 1; i < shnum(img); i++) {
		size_t n = SH_GET(img, i, sh_name);

		if (n < size && len < size - n && base + n + len < img->size &&
		    memcmp(img->data + base + n, name, len + 1) == 0)
			return i;
	}
	die(img, "no section %s", name);
}

/* ---- the modes ---- */

static void mode_empty(struct image *img)
{
	img->size = 0;
}

static void mode_truncated_header(struct image *img)
{
	if (img->size > 20)
		img->size = 20;
}

static void mode_shoff_past_eof(struct image *img)
{
	put_le(img, EHDR(e_shoff), img->size + 0x1000);
}

static void mode_shstr_name_oob(struct image *img)
{
	size_t shstrndx = get_le(img, EHDR(e_shstrndx));

	SH_PUT(img, find_section(img, ".modinfo"), sh_name,
	       SH_GET(img, shstrndx, sh_size) + 0x100);
}

/* The first undefined symbol with a name (an import) gets a name offset past .strtab. */
static void mode_symname_oob(struct image *img)
{
	size_t symtab = find_section(img, ".symtab");
	size_t strtab = SH_GET(img, symtab, sh_link);
	size_t base = SH_GET(img, symtab, sh_offset);
	size_t count = SH_GET(img, symtab, sh_size) / sizeof(Elf64_Sym);

	for (size_t i = 1; i < count; i++) {
		size_t sym = base + i * sizeof(Elf64_Sym);

		if (get_le(img, sym + FIELD(Elf64_Sym, st_shndx)) == SHN_UNDEF &&
		    get_le(img, sym + FIELD(Elf64_Sym, st_name)) != 0) {
			put_le(img, sym + FIELD(Elf64_Sym, st_name),
			       SH_GET(img, strtab, sh_size) + 0x100);
			return;
		}
	}
	die(img, "no undefined symbol to mangle");
}

/* Replace the NULs that end .modinfo by 'x', so its last string runs into the end. */
static void mode_modinfo_unterminated(struct image *img)
{
	size_t sec = find_section(img, ".modinfo");
	size_t off = SH_GET(img, sec, sh_offset), size = SH_GET(img, sec, sh_size);

	if (size == 0 || get_le(img, off + size - 1, 1) != 0)
		die(img, ".modinfo does not end with a NUL");
	while (size > 0 && get_le(img, off + size - 1, 1) == 0)
		put_le(img, off + --size, 1, 'x');
}

static void mode_versions_size(struct image *img)
{
	size_t sec = find_section(img, "__versions");
	uint64_t size = SH_GET(img, sec, sh_size);

	if (size < 64)
		die(img, "__versions is shorter than one entry");
	SH_PUT(img, sec, sh_size, size - 8);
}

/* File offset of the first relocation of .rela__ksymtab, and that section's index. */
static size_t first_ksymtab_rela(const struct image *img, size_t *sec)
{
	*sec = find_section(img, ".rela__ksymtab");
	if (SH_GET(img, *sec, sh_size) < sizeof(Elf64_Rela))
		die(img, ".rela__ksymtab is empty");
	return SH_GET(img, *sec, sh_offset);
}

static void mode_reloc_oob(struct image *img)
{
	size_t sec, rela = first_ksymtab_rela(img, &sec);
	size_t target = SH_GET(img, sec, sh_info);

	put_le(img, rela + FIELD(Elf64_Rela, r_offset), SH_GET(img, target, sh_size) + 8);
}

static void mode_reloc_sym_oob(struct image *img)
{
	size_t sec, rela = first_ksymtab_rela(img, &sec);
	size_t symtab = SH_GET(img, sec, sh_link);
	uint64_t nsyms = SH_GET(img, symtab, sh_size) / sizeof(Elf64_Sym);
	uint64_t type = ELF64_R_TYPE(get_le(img, rela + FIELD(Elf64_Rela, r_info)));

	put_le(img, rela + FIELD(Elf64_Rela, r_info), ELF64_R_INFO(nsyms + 16, type));
}

static void mode_section_past_eof(struct image *img)
{
	size_t sec = find_section(img, ".modinfo");

	SH_PUT(img, sec, sh_size, img->size - SH_GET(img, sec, sh_offset) + 64);
}

/* Any file: invert 16 bytes in the middle. */
static void mode_flip(struct image *img)
{
	if (img->size < 64)
		die(img, "too small to corrupt in the middle");
	for (size_t i = img->size / 2; i < img->size / 2 + 16; i++)
		img->data[i] ^= 0xff;
}

/* Any file: keep the first half. */
static void mode_truncate(struct image *img)
{
	img->size /= 2;
}

/*
 * Append a module signature as scripts/sign-file does: the signature (here a made-up
 * blob that starts like a DER PKCS#7 signedData), struct module_signature, the magic.
 */
#define FAKE_SIG_LEN 64
#define PKEY_ID_PKCS7 2
static const char sig_magic[] = "~Module signature appended~\n";

static void mode_sign(struct image *img)
{
	static const unsigned char der_head[] = {
		/* SEQUENCE { OID 1.2.840.113549.1.7.2 (signedData), ... */
		0x30, FAKE_SIG_LEN - 2,
		0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02,
	};
	static const char filler[] = "ksymcheck test fixture, not a real signature";
	unsigned char trailer[FAKE_SIG_LEN + 12 + sizeof(sig_magic) - 1] = { 0 };
	unsigned char *sig = trailer, *info = trailer + FAKE_SIG_LEN;
	unsigned char *p;

	memcpy(sig, der_head, sizeof(der_head));
	memcpy(sig + sizeof(der_head), filler, sizeof(filler) - 1);
	/*
	 * struct module_signature { u8 algo, hash, id_type, signer_len, key_id_len,
	 * pad[3]; __be32 sig_len; }: all zero except id_type and sig_len.
	 */
	info[2] = PKEY_ID_PKCS7;
	for (int i = 0; i < 4; i++)
		info[8 + i] = (unsigned char)(FAKE_SIG_LEN >> (24 - 8 * i));
	memcpy(info + 12, sig_magic, sizeof(sig_magic) - 1);

	p = realloc(img->data, img->size + sizeof(trailer));
	if (!p)
		die(img, "out of memory");
	memcpy(p + img->size, trailer, sizeof(trailer));
	img->data = p;
	img->size += sizeof(trailer);
}

/* Grow the image to `size` bytes (new bytes zero). */
static void grow(struct image *img, size_t size)
{
	unsigned char *p = realloc(img->data, size);

	if (!p)
		die(img, "out of memory");
	memset(p + img->size, 0, size - img->size);
	img->data = p;
	img->size = size;
}

/*
 * Amplification in one small file: .rela__ksymtab's entries repeated into a blob of
 * about 480 KB at the end of the file, and 2,000 more SHT_RELA section headers (a new
 * section header table after it) that all apply to __ksymtab and share that blob. A
 * reader that materialises every section's relocations holds 2,000 x 20,000 of them.
 */
#define AMP_BLOB (480 * 1024)
#define AMP_COPIES 2000
static void mode_rela_amplify(struct image *img)
{
	size_t sec, rela = first_ksymtab_rela(img, &sec);
	size_t rsize = SH_GET(img, sec, sh_size), n = shnum(img);
	size_t shoff = get_le(img, EHDR(e_shoff));
	size_t blob = (img->size + 7) & ~(size_t)7, reps = AMP_BLOB / rsize;
	size_t bsize = reps * rsize, newsh = blob + bsize;
	unsigned char *old_sh = malloc(n * sizeof(Elf64_Shdr));

	if (!old_sh || shoff + n * sizeof(Elf64_Shdr) > img->size)
		die(img, "cannot copy the section headers");
	memcpy(old_sh, img->data + shoff, n * sizeof(Elf64_Shdr));
	grow(img, newsh + (n + AMP_COPIES) * sizeof(Elf64_Shdr));
	for (size_t i = 0; i < reps; i++)
		memcpy(img->data + blob + i * rsize, img->data + rela, rsize);
	memcpy(img->data + newsh, old_sh, n * sizeof(Elf64_Shdr));
	free(old_sh);
	put_le(img, EHDR(e_shoff), newsh);
	put_le(img, EHDR(e_shnum), n + AMP_COPIES);
	for (size_t i = n; i < n + AMP_COPIES; i++) {
		memcpy(img->data + newsh + i * sizeof(Elf64_Shdr),
		       img->data + newsh + sec * sizeof(Elf64_Shdr), sizeof(Elf64_Shdr));
		SH_PUT(img, i, sh_offset, blob);
		SH_PUT(img, i, sh_size, bsize);
	}
}

/* __kcrctab one CRC short of its exports (its sh_size 4 bytes less). */
static void mode_kcrctab_short(struct image *img)
{
	size_t sec = find_section(img, "__kcrctab");
	uint64_t size = SH_GET(img, sec, sh_size);

	if (size < 4)
		die(img, "__kcrctab is empty");
	SH_PUT(img, sec, sh_size, size - 4);
}

/*
 * Any file as the payload of an x86 bzImage (boot protocol 2.08: "HdrS" at 0x202,
 * setup_sects 0 meaning 4, payload_offset and payload_length at 0x248 and 0x24c).
 */
#define BZ_START (5 * 512)
static void mode_bzimage(struct image *img)
{
	size_t n = img->size;
	unsigned char *p = calloc(1, BZ_START + n);

	if (!p)
		die(img, "out of memory");
	memcpy(p + BZ_START, img->data, n);
	free(img->data);
	img->data = p;
	img->size = BZ_START + n;
	memcpy(p, "MZ", 2);
	memcpy(p + 0x202, "HdrS", 4);
	put_le(img, 0x206, 2, 0x20f);
	put_le(img, 0x248, 4, 0);
	put_le(img, 0x24c, 4, n);
}

static const struct mode {
	const char *name;
	bool elf;                       /* needs an ELF64 little-endian input */
	void (*fn)(struct image *img);
	const char *help;
} modes[] = {
	{ "empty", false, mode_empty, "a 0-byte file" },
	{ "truncated-header", false, mode_truncated_header, "the first 20 bytes" },
	{ "shoff-past-eof", true, mode_shoff_past_eof,
	  "e_shoff beyond the end of the file" },
	{ "shstr-name-oob", true, mode_shstr_name_oob,
	  ".modinfo's sh_name beyond the section name string table" },
	{ "symname-oob", true, mode_symname_oob, "an import's st_name beyond .strtab" },
	{ "modinfo-unterminated", true, mode_modinfo_unterminated,
	  ".modinfo's trailing NULs replaced by 'x'" },
	{ "versions-size", true, mode_versions_size,
	  "__versions sh_size 8 bytes short (not a multiple of 64)" },
	{ "reloc-oob", true, mode_reloc_oob,
	  "a .rela__ksymtab r_offset beyond __ksymtab" },
	{ "reloc-sym-oob", true, mode_reloc_sym_oob,
	  "a .rela__ksymtab symbol index beyond .symtab" },
	{ "section-past-eof", true, mode_section_past_eof,
	  ".modinfo's sh_offset + sh_size beyond the end of the file" },
	{ "flip", false, mode_flip, "16 bytes in the middle inverted (any file)" },
	{ "truncate", false, mode_truncate, "the first half of the file (any file)" },
	{ "sign", false, mode_sign, "a fake PKCS#7 module signature appended" },
	{ "rela-amplify", true, mode_rela_amplify,
	  "2,000 more .rela__ksymtab headers sharing one 480 KB blob of its relocations" },
	{ "kcrctab-short", true, mode_kcrctab_short, "__kcrctab one CRC short" },
	{ "bzimage", false, mode_bzimage, "the file wrapped as an x86 bzImage's payload" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: elfmangle MODE IN OUT\nModes:\n");
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		fprintf(f, "  %-22s %s\n", modes[i].name, modes[i].help);
}

static void load(struct image *img)
{
	FILE *f = fopen(img->path, "rb");
	long size;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0)
		die(img, "cannot read");
	img->size = (size_t)size;
	img->data = malloc(img->size ? img->size : 1);
	if (!img->data)
		die(img, "out of memory");
	if (fread(img->data, 1, img->size, f) != img->size)
		die(img, "cannot read");
	fclose(f);
}

static void save(const struct image *img, const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(img->data, 1, img->size, f) != img->size || fclose(f) != 0) {
		remove(path);
		fprintf(stderr, "elfmangle: %s: cannot write\n", path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct image img = { 0 };

	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (argc != 4) {
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(argv[1], modes[i].name) != 0)
			continue;
		img.path = argv[2];
		load(&img);
		if (modes[i].elf)
			check_elf64le(&img);
		modes[i].fn(&img);
		save(&img, argv[3]);
		free(img.data);
		return 0;
	}
	fprintf(stderr, "elfmangle: unknown mode '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
