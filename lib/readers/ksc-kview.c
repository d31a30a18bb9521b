// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kmod's view of a module (doc/rules.md R26): what depmod takes from a module file, by
 * the rules of kmod 30's libkmod/libkmod-elf.c, so that the files ksymcheck writes are
 * byte for byte the ones depmod writes. Sections are looked up by name (the first of
 * that name); exports are the names of the __crc_* symbols (CRC from the symbol, or from
 * the section it points into), or else every string of __ksymtab_strings (namespace
 * strings included); dependency symbols are the undefined symbols in .symtab order, with
 * the CRC of the first __versions entry of the same name, followed by the __versions
 * entries no symbol matched (module_layout); .modinfo is split at runs of NUL bytes.
 *
 * Every offset read from a file is bounds-checked (util/elfview.h); where kmod would read
 * past the end of a section (unterminated strings), we stop at the end instead.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "readers/readers.h"
#include "util/array.h"
#include "util/elfview.h"


/* MODULE_NAME_LEN = 64 - sizeof(unsigned long) (include/linux/module.h). */
#define VERSION_RECORD 64

struct kelf {
	struct elfview v;
	uint64_t names_off, names_size;
	kv_loaded_fn loaded;
	void *ldata;
	bool incomplete;
	struct ksec {
		uint64_t off, size;
	} found[5];
	bool have[5];
	unsigned int idx[5];
};

static bool kneed(struct kelf *e, uint64_t off, uint64_t size)
{
	if (e->loaded && size && !e->loaded(e->ldata, off, size))
		e->incomplete = true;
	return true;
}

/* elf_get_section_info(): offset and size of section idx, which must lie in the file. */
static int ksec_info(const struct kelf *e, unsigned int idx, struct ksec *s,
		     uint32_t *nameoff)
{
	const struct elfview *v = &e->v;

	if (idx == SHN_UNDEF || idx >= v->shnum)
		return -EINVAL;
	s->size = elfview_shdr(v, idx, sh_size);
	s->off = elfview_shdr(v, idx, sh_offset);
	*nameoff = (uint32_t)elfview_shdr(v, idx, sh_name);
	if (s->off > v->size || s->size > v->size - s->off)
		return -EINVAL;
	return 0;
}

/* kmod_elf_new(): the checks it makes, nothing more. */
static bool kelf_open(struct kelf *e, const unsigned char *img, size_t size)
{
	struct elfview *v = &e->v;

	if (size <= EI_NIDENT || !elfview_open(v, img, size) ||
	    size <= elfview_ehdr_size(v))
		return false;
	if (v->shentsize != elfview_shdr_size(v))
		return false;
	uint64_t table = (uint64_t)v->shentsize * v->shnum;
	if (v->shoff > v->size || table > v->size - v->shoff)
		return false;
	kneed(e, v->shoff, table);
	struct ksec s;
	uint32_t nameoff;
	if (ksec_info(e, v->shstrndx, &s, &nameoff) < 0)
		return false;
	kneed(e, s.off, s.size);
	if (s.size == 0 || v->m[s.off + s.size - 1] != '\0')
		return false;
	e->names_off = s.off;
	e->names_size = s.size;
	return true;
}

/* The sections kmod looks up by name (kmod_elf_get_section(): the first of that name). */
enum { KS_STRTAB, KS_SYMTAB, KS_KSYMTAB_STRINGS, KS_VERSIONS, KS_MODINFO, KS_COUNT };
static const char *const ks_names[KS_COUNT] = { ".strtab", ".symtab", "__ksymtab_strings",
						"__versions", ".modinfo" };

static void kindex(struct kelf *e, struct ksec *found, bool *have, unsigned int *idx)
{
	for (int k = 0; k < KS_COUNT; k++)
		have[k] = false;
	for (unsigned int i = 1; i < e->v.shnum; i++) {
		struct ksec s;
		uint32_t nameoff;
		if (ksec_info(e, i, &s, &nameoff) < 0 || nameoff >= e->names_size)
			continue;
		const char *n = (const char *)e->v.m + e->names_off + nameoff;
		/* only ".s...", ".m..." and "__..." can be one of them */
		if (!(n[0] == '.' && (n[1] == 's' || n[1] == 'm')) && !(n[0] == '_' && n[1] == '_'))
			continue;
		for (int k = 0; k < KS_COUNT; k++) {
			if (have[k] || strcmp(n, ks_names[k]) != 0)
				continue;
			have[k] = true;
			found[k] = s;
			idx[k] = i;
		}
	}
}

static bool kfind(struct kelf *e, int which, struct ksec *out)
{
	if (!e->have[which])
		return false;
	*out = e->found[which];
	kneed(e, out->off, out->size);
	return true;
}

/* Length of the string at p, stopping at `end` (kmod would read on). */
static size_t bstrlen(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *z = memchr(p, '\0', (size_t)(end - p));

	return z ? (size_t)(z - p) : (size_t)(end - p);
}

/*
 * The strings of a section the way kmod_elf_get_strings() and
 * kmod_elf_get_symbols_symtab() cut them: leading NULs skipped, nothing when one byte or
 * less remains, then every maximal run of non-NUL bytes.
 */
typedef int (*piece_fn)(void *data, const char *p, size_t n);

static int kpieces(const unsigned char *s, uint64_t size, piece_fn fn, void *data)
{
	while (size > 1 && s[0] == '\0') {
		s++;
		size--;
	}
	if (size <= 1)
		return 0;
	for (uint64_t i = 0; i < size;) {
		if (s[i] == '\0') {
			i++;
			continue;
		}
		uint64_t j = i;
		while (j < size && s[j] != '\0')
			j++;
		int r = fn(data, (const char *)s + i, (size_t)(j - i));
		if (r < 0)
			return r;
		i = j;
	}
	return 0;
}

struct kv_build {
	struct kview *kv;
	size_t cap_exp, cap_dep, cap_info;
};

static int add_export(struct kv_build *b, const char *p, size_t n, uint64_t crc)
{
	return array_push(b->kv->exports, b->kv->n_exports, b->cap_exp,
			  (struct kv_export){ { p, n }, crc });
}

static int add_export_piece(void *data, const char *p, size_t n)
{
	return add_export(data, p, n, 0);
}

static int add_info_piece(void *data, const char *p, size_t n)
{
	struct kv_build *b = data;
	const char *eq = memchr(p, '=', n);

	if (array_reserve(b->kv->info, b->cap_info, b->kv->n_info + 1, 16) < 0)
		return -ENOMEM;
	struct kv_info *in = &b->kv->info[b->kv->n_info++];
	if (eq) {
		in->key = (struct kv_str){ p, (size_t)(eq - p) };
		in->value = (struct kv_str){ eq + 1, n - (size_t)(eq - p) - 1 };
	} else {
		in->key = (struct kv_str){ p, n };
		in->value = (struct kv_str){ p + n, 0 };
	}
	return 0;
}

struct ksym {
	uint32_t name;
	uint64_t value;
	unsigned int info, shndx;
};

/* One symbol of a symbol table known to lie inside the file. */
static void ksym_read(const struct kelf *e, uint64_t off, struct ksym *s)
{
	const struct elfview *v = &e->v;
	const unsigned char *p = v->m + off;

	s->name = (uint32_t)elfview_sym(v, p, st_name);
	s->info = (unsigned int)elfview_sym(v, p, st_info);
	s->shndx = (unsigned int)elfview_sym(v, p, st_shndx);
	s->value = elfview_sym(v, p, st_value);
}

/* kmod_elf_resolve_crc() */
static uint64_t kresolve_crc(struct kelf *e, uint64_t crc, unsigned int shndx)
{
	struct ksec s;
	uint32_t nameoff;

	if (shndx == SHN_ABS || shndx == SHN_UNDEF)
		return crc;
	if (ksec_info(e, shndx, &s, &nameoff) < 0)
		return UINT64_MAX;
	if (crc > s.size - 4) /* unsigned, as kmod computes it */
		return UINT64_MAX;
	kneed(e, s.off + crc, 4);
	return elfview_get(&e->v, s.off + crc, 4);
}

/* kmod_elf_get_symbols(), with its fallback to __ksymtab_strings. */
static int kexports(struct kelf *e, struct kv_build *b)
{
	struct ksec strtab, symtab;
	size_t symlen = elfview_sym_size(&e->v);
	size_t count = 0;

	if (!kfind(e, KS_STRTAB, &strtab) || !kfind(e, KS_SYMTAB, &symtab) ||
	    symtab.size % symlen)
		goto fallback;
	const unsigned char *str = e->v.m + strtab.off, *send = str + strtab.size;
	uint64_t n = symtab.size / symlen;
	for (uint64_t i = 1; i < n; i++) {
		uint32_t no = (uint32_t)elfview_sym(&e->v, e->v.m + symtab.off + i * symlen,
						    st_name);
		if (no >= strtab.size)
			goto fallback;
		if (send - (str + no) >= 6 && memcmp(str + no, "__crc_", 6) == 0)
			count++;
	}
	if (count == 0)
		goto fallback;
	for (uint64_t i = 1; i < n; i++) {
		struct ksym s;
		ksym_read(e, symtab.off + i * symlen, &s);
		const unsigned char *nm = str + s.name;
		if (send - nm < 6 || memcmp(nm, "__crc_", 6) != 0)
			continue;
		nm += 6;
		uint64_t crc = kresolve_crc(e, s.value, s.shndx);
		if (add_export(b, (const char *)nm, bstrlen(nm, send), crc) < 0)
			return -ENOMEM;
	}
	return 0;
fallback:
	b->kv->n_exports = 0;
	struct ksec ks;
	if (!kfind(e, KS_KSYMTAB_STRINGS, &ks))
		return 0;
	return kpieces(e->v.m + ks.off, ks.size, add_export_piece, b);
}

/* kmod_elf_get_dependency_symbols() */
static int kdeps(struct kelf *e, struct kv_build *b)
{
	struct ksec ver = { 0, 0 }, strtab, symtab;
	size_t symlen = elfview_sym_size(&e->v), crclen = e->v.c64 ? 8 : 4;
	bool have_ver = kfind(e, KS_VERSIONS, &ver) && ver.size % VERSION_RECORD == 0;
	struct kview *kv = b->kv;
	struct hash vidx;
	unsigned char *visited = NULL;
	int ret = 0;

	if (!have_ver)
		ver.size = 0;
	if (!kfind(e, KS_STRTAB, &strtab) || !kfind(e, KS_SYMTAB, &symtab) ||
	    symtab.size % symlen)
		return 0; /* -EINVAL for kmod: no dependency symbols */

	/*
	 * The first __versions entry of each (terminated) name, as kmod_elf_crc_find().
	 */
	size_t nver = (size_t)(ver.size / VERSION_RECORD);
	const unsigned char *vend = e->v.m + ver.off + ver.size;
	hash_init(&vidx);
	if (nver) {
		visited = calloc(nver, 1);
		if (!visited)
			return -ENOMEM;
		for (size_t i = 0; i < nver && ret >= 0; i++) {
			const unsigned char *nm =
				e->v.m + ver.off + i * VERSION_RECORD + crclen;
			if (memchr(nm, '\0', (size_t)(vend - nm)))
				ret = hash_add(&vidx, (const char *)nm,
					       (void *)(uintptr_t)(i + 1), 1);
		}
		if (ret < 0)
			goto out;
		ret = 0;
	}

	bool sparc = e->v.machine == EM_SPARC || e->v.machine == EM_SPARCV9;
	const unsigned char *str = e->v.m + strtab.off, *send = str + strtab.size;
	uint64_t n = symtab.size / symlen;
	size_t start = kv->n_deps;
	char tmp[512];
	for (uint64_t i = 1; i < n; i++) {
		struct ksym s;
		ksym_read(e, symtab.off + i * symlen, &s);
		if (s.shndx != SHN_UNDEF)
			continue;
		if (sparc && (s.info & 0xf) == STT_SPARC_REGISTER)
			continue;
		if (s.name >= strtab.size) {
			kv->n_deps = start; /* -EINVAL: none at all */
			goto out;
		}
		const unsigned char *nm = str + s.name;
		size_t len = bstrlen(nm, send);
		if (len == 0)
			continue;
		uint64_t crc = 0;
		uintptr_t vi = 0;
		const char *key = (const char *)nm;
		if (nm + len == send) { /* unterminated at the end of .strtab */
			key = NULL;
			if (len < sizeof(tmp)) {
				memcpy(tmp, nm, len);
				tmp[len] = '\0';
				key = tmp;
			}
		}
		if (nver && key)
			vi = (uintptr_t)hash_find(&vidx, key);
		if (vi) {
			visited[vi - 1] = 1;
			crc = elfview_get(&e->v, ver.off + (vi - 1) * VERSION_RECORD,
				   (unsigned int)crclen);
		}
		ret = array_push(kv->deps, kv->n_deps, b->cap_dep,
				 (struct kv_dep){ { (const char *)nm, len },
						  crc,
						  (s.info >> 4) == 2 /* STB_WEAK */ });
		if (ret < 0)
			goto out;
	}
	/* The __versions entries no symbol matched (module_layout), in table order. */
	for (size_t i = 0; i < nver; i++) {
		if (visited[i])
			continue;
		const unsigned char *nm = e->v.m + ver.off + i * VERSION_RECORD + crclen;
		struct kv_str name = { (const char *)nm, bstrlen(nm, vend) };
		uint64_t crc = elfview_get(&e->v, ver.off + i * VERSION_RECORD,
					   (unsigned int)crclen);
		ret = array_push(kv->deps, kv->n_deps, b->cap_dep,
				 (struct kv_dep){ name, crc, false });
		if (ret < 0)
			goto out;
	}
	kv->deps_ok = true;
out:
	hash_fini(&vidx);
	free(visited);
	return ret;
}

/*
 * When are kmod's dependency symbols exactly the library reader's imports (symbols
 * without section in the first SHT_SYMTAB, in order) followed by its unmatched __versions
 * entries? When both read the same symbol table and strings, skip nothing (SPARC register
 * symbols), and see the same __versions names (NUL inside each 64-byte record).
 */
static bool deps_derivable(struct kelf *e)
{
	unsigned int first = 0, link = 0;

	if (e->v.machine == EM_SPARC || e->v.machine == EM_SPARCV9)
		return false;
	if (!e->have[KS_SYMTAB] || !e->have[KS_STRTAB])
		return false;
	for (unsigned int i = 1; i < e->v.shnum && !first; i++) {
		if (elfview_shdr(&e->v, i, sh_type) == SHT_SYMTAB) {
			first = i;
			link = (unsigned int)elfview_shdr(&e->v, i, sh_link);
		}
	}
	if (first != e->idx[KS_SYMTAB] || link != e->idx[KS_STRTAB])
		return false;
	if (e->have[KS_VERSIONS]) {
		struct ksec v = e->found[KS_VERSIONS];
		size_t crclen = e->v.c64 ? 8 : 4;
		if (v.size % VERSION_RECORD)
			return false;
		kneed(e, v.off, v.size);
		for (uint64_t o = v.off; o < v.off + v.size; o += VERSION_RECORD)
			if (!memchr(e->v.m + o + crclen, '\0', VERSION_RECORD - crclen))
				return false;
	}
	return true;
}

int ksc_kview_read(const unsigned char *img, size_t size, kv_loaded_fn loaded, void *data,
		   bool engine_ok, struct kview *kv)
{
	struct kelf e = { .loaded = loaded, .ldata = data };
	struct kv_build b = { .kv = kv };
	int r;

	memset(kv, 0, sizeof(*kv));
	if (loaded)
		kneed(&e, 0, size < 64 ? size : 64);
	if (!kelf_open(&e, img, size))
		goto out;
	kv->elf_ok = true;
	kindex(&e, e.found, e.have, e.idx);
	r = kexports(&e, &b);
	if (r < 0)
		return r;
	struct ksec mi;
	if (kfind(&e, KS_MODINFO, &mi)) {
		r = kpieces(img + mi.off, mi.size, add_info_piece, &b);
		if (r < 0)
			return r;
	}
	if (engine_ok && deps_derivable(&e)) {
		kv->deps_ok = true;
		kv->deps_derivable = true;
	} else {
		r = kdeps(&e, &b);
		if (r < 0)
			return r;
	}
out:
	kv->incomplete = e.incomplete;
	return 0;
}

void ksc_kview_free(struct kview *kv)
{
	free(kv->exports);
	free(kv->deps);
	free(kv->info);
	memset(kv, 0, sizeof(*kv));
}
