// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod's view of a module tree, reimplemented from the rules of kmod 30's
 * tools/depmod.c and libkmod/libkmod-elf.c (doc/rules.md R26), so that
 * the files ksymcheck writes are byte for byte the ones depmod writes:
 *
 *  - what kmod reads from a module (ksc_kview_read): sections looked up by name; exports
 *    are the names of the __crc_* symbols (CRC from the symbol, or from the section it
 *    points into), or else every string of __ksymtab_strings (namespace strings
 *    included); dependency symbols are the undefined symbols in .symtab order, with the
 *    CRC of the first __versions entry of the same name, followed by the __versions
 *    entries no symbol matched (module_layout); .modinfo is split at runs of NUL bytes.
 *  - kmod's hash table (shared/hash.c): modules.symbols is written in the iteration
 *    order of a 2048-bucket table (SuperFastHash, entries of a bucket sorted by strcmp),
 *    and modules not in modules.order keep the order of a 512-bucket table of names.
 *  - depmod_calculate_dependencies(): Kahn's sort with a LIFO stack of roots, which
 *    gives every module its place in modules.dep.
 *  - the output formats of modules.dep, modules.symbols, modules.alias,
 *    modules.softdep and modules.devname.
 * The binary *.bin indexes are not written.
 *
 * Every offset read from a file is bounds-checked; where kmod would read past the end of
 * a section (unterminated strings), we stop at the end instead.
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree.h"
#include "util/elfview.h"

/* ---------------------------------------------------------------------------------- */
/* kmod's names and hash                                                              */

/*
 * SuperFastHash as kmod's hash_superfast() computes it on x86: 16-bit loads in little
 * endian, the odd bytes as signed char (kmod 30; kmod 34 made them unsigned, which only
 * changes names with bytes >= 0x80).
 */
static inline uint32_t le16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

uint32_t ksc_kmod_hash(const char *key, size_t len)
{
	const unsigned char *p = (const unsigned char *)key;
	uint32_t hash = (uint32_t)len, tmp;
	size_t rem = len & 3;

	for (len /= 4; len > 0; len--) {
		hash += le16(p);
		tmp = (le16(p + 2) << 11) ^ hash;
		hash = (hash << 16) ^ tmp;
		p += 4;
		hash += hash >> 11;
	}
	switch (rem) {
	case 3:
		hash += le16(p);
		hash ^= hash << 16;
		hash ^= (uint32_t)(int32_t)(signed char)p[2] << 18;
		hash += hash >> 11;
		break;
	case 2:
		hash += le16(p);
		hash ^= hash << 11;
		hash += hash >> 17;
		break;
	case 1:
		hash += (uint32_t)(int32_t)(signed char)p[0];
		hash ^= hash << 10;
		hash += hash >> 1;
		break;
	}
	hash ^= hash << 3;
	hash += hash >> 5;
	hash ^= hash << 4;
	hash += hash >> 17;
	hash ^= hash << 25;
	hash += hash >> 6;
	return hash;
}

/* ---------------------------------------------------------------------------------- */
/* kmod's ELF rules                                                                   */

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

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	void *a = realloc(*arr, c * elem);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = c;
	return 0;
}

struct kv_build {
	struct kview *kv;
	size_t cap_exp, cap_dep, cap_info;
};

static int add_export(struct kv_build *b, const char *p, size_t n, uint64_t crc)
{
	if (grow((void **)&b->kv->exports, &b->cap_exp, b->kv->n_exports,
		 sizeof(struct kv_export)))
		return -ENOMEM;
	b->kv->exports[b->kv->n_exports++] = (struct kv_export){ { p, n }, crc };
	return 0;
}

static int add_export_piece(void *data, const char *p, size_t n)
{
	return add_export(data, p, n, 0);
}

static int add_info_piece(void *data, const char *p, size_t n)
{
	struct kv_build *b = data;
	const char *eq = memchr(p, '=', n);

	if (grow((void **)&b->kv->info, &b->cap_info, b->kv->n_info,
		 sizeof(struct kv_info)))
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
		if (grow((void **)&kv->deps, &b->cap_dep, kv->n_deps,
			 sizeof(struct kv_dep))) {
			ret = -ENOMEM;
			goto out;
		}
		kv->deps[kv->n_deps++] =
			(struct kv_dep){ { (const char *)nm, len },
					 crc,
					 (s.info >> 4) == 2 /* STB_WEAK */ };
	}
	/* The __versions entries no symbol matched (module_layout), in table order. */
	for (size_t i = 0; i < nver; i++) {
		if (visited[i])
			continue;
		const unsigned char *nm = e->v.m + ver.off + i * VERSION_RECORD + crclen;
		if (grow((void **)&kv->deps, &b->cap_dep, kv->n_deps,
			 sizeof(struct kv_dep))) {
			ret = -ENOMEM;
			goto out;
		}
		kv->deps[kv->n_deps++] =
			(struct kv_dep){ { (const char *)nm, bstrlen(nm, vend) },
					 elfview_get(&e->v, ver.off + i * VERSION_RECORD,
					      (unsigned int)crclen),
					 false };
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

/* ---------------------------------------------------------------------------------- */
/* Orders                                                                             */

struct name_key {
	const char *name;
	uint32_t bucket, index;
};

static int cmp_name_key(const void *a, const void *b)
{
	const struct name_key *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The iteration order of kmod's hash table with `buckets` buckets over `names`: by bucket,
 * then by strcmp within a bucket. Writes the permutation to order[]. 0 or -ENOMEM.
 */
int ksc_depmod_hash_order(const char *const *names, size_t n, uint32_t buckets,
			  uint32_t *order)
{
	struct name_key *k = malloc((n ? n : 1) * sizeof(*k));

	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		k[i].name = names[i];
		k[i].bucket = ksc_kmod_hash(names[i], strlen(names[i])) & (buckets - 1);
		k[i].index = (uint32_t)i;
	}
	qsort(k, n, sizeof(*k), cmp_name_key);
	for (size_t i = 0; i < n; i++)
		order[i] = k[i].index;
	free(k);
	return 0;
}

/*
 * depmod_modules_sort(): modules.order gives the modules it lists a negative rank (line -
 * total), the others keep 1. A file whose last line lacks its newline is "corrupted":
 * then nothing is ranked (depmod keeps its hash order). `lookup` maps a line (the
 * module's path with a .ko suffix) to a module index + 1, or 0.
 */
bool ksc_depmod_rank(const char *data, size_t size,
		     size_t (*lookup)(void *, const char *), void *ldata, int *rank)
{
	char line[4096];
	int idx = 0;

	/*
	 * fgets(line, PATH_MAX) semantics: a chunk ends after a newline, after 4095 bytes or
	 * at the end of the file; strlen() of it stops at a NUL byte.
	 */
	for (int pass = 0; pass < 2; pass++) {
		int total = idx + 1;
		idx = 0;
		for (size_t i = 0; i < size;) {
			size_t len = 0;
			while (i + len < size && len < sizeof(line) - 1) {
				if (data[i + len++] == '\n')
					break;
			}
			size_t l = strnlen(data + i, len);
			idx++;
			if (l > 0 && pass == 0 && data[i + l - 1] != '\n')
				return false; /* "corrupted line misses '\n'" */
			if (l > 0 && pass == 1) {
				memcpy(line, data + i, l - 1);
				line[l - 1] = '\0';
				size_t m = lookup(ldata, line);
				if (m)
					rank[m - 1] = idx - total;
			}
			i += len;
		}
	}
	return true;
}

/* ---------------------------------------------------------------------------------- */
/* Dependencies                                                                       */

/*
 * depmod_calculate_dependencies(): Kahn's algorithm. users[] counts, for each module, the
 * modules that depend on it; the modules nobody uses are pushed on a stack in index
 * order, and popping gives the next sort index; a module whose last user is sorted is
 * pushed. Modules never sorted are in (or behind) a cycle: sort_idx INT_MAX.
 */
size_t ksc_depmod_sort(size_t n, uint32_t *const *deps, const uint32_t *n_deps,
		       int *sort_idx)
{
	uint32_t *users = calloc(n ? n : 1, sizeof(*users));
	uint32_t *stack = malloc((n ? n : 1) * sizeof(*stack));
	size_t sp = 0, sorted = 0;

	if (!users || !stack) {
		free(users);
		free(stack);
		return SIZE_MAX;
	}
	for (size_t i = 0; i < n; i++) {
		sort_idx[i] = INT_MAX;
		for (uint32_t j = 0; j < n_deps[i]; j++)
			users[deps[i][j]]++;
	}
	for (size_t i = 0; i < n; i++)
		if (users[i] == 0)
			stack[sp++] = (uint32_t)i;
	while (sp > 0) {
		uint32_t m = stack[--sp];
		sort_idx[m] = (int)sorted++;
		for (uint32_t j = 0; j < n_deps[m]; j++) {
			uint32_t d = deps[m][j];
			if (--users[d] == 0)
				stack[sp++] = d;
		}
	}
	free(users);
	free(stack);
	return sorted;
}

/*
 * Every module `m` depends on, directly or not, sorted by sort index (modules.dep).
 * `mark` is scratch space of n bytes, all zero on entry and on return. Returns the count
 * (at most `cap` written to out[]), or SIZE_MAX when out of memory.
 */
size_t ksc_depmod_all_deps(uint32_t m, uint32_t *const *deps, const uint32_t *n_deps,
			   const int *sort_idx, unsigned char *mark, uint32_t **out)
{
	size_t n = 0, cap = 16, sp = 0, scap = 16;
	uint32_t *r = malloc(cap * sizeof(*r)), *st = malloc(scap * sizeof(*st));

	if (!r || !st)
		goto oom;
	st[sp++] = m;
	while (sp) {
		uint32_t x = st[--sp];
		for (uint32_t j = 0; j < n_deps[x]; j++) {
			uint32_t d = deps[x][j];
			if (mark[d])
				continue;
			mark[d] = 1;
			if (n == cap) {
				uint32_t *t = realloc(r, (cap *= 2) * sizeof(*r));
				if (!t)
					goto oom;
				r = t;
			}
			r[n++] = d;
			if (sp == scap) {
				uint32_t *t = realloc(st, (scap *= 2) * sizeof(*st));
				if (!t)
					goto oom;
				st = t;
			}
			st[sp++] = d;
		}
	}
	free(st);
	for (size_t i = 0; i < n; i++)
		mark[r[i]] = 0;
	/* insertion sort: dependency lists are short */
	for (size_t i = 1; i < n; i++) {
		uint32_t v = r[i];
		size_t j = i;
		while (j > 0 && sort_idx[r[j - 1]] > sort_idx[v]) {
			r[j] = r[j - 1];
			j--;
		}
		r[j] = v;
	}
	*out = r;
	return n;
oom:
	if (r)
		for (size_t i = 0; i < n; i++)
			mark[r[i]] = 0;
	free(r);
	free(st);
	return SIZE_MAX;
}

/*
 * The dependency cycles among the modules the sort left out: Tarjan's strongly
 * connected components over them; for each component with more than one module (or a
 * module that depends on itself), one cycle, starting at its lowest index and following
 * dependencies inside the component back to it. Cycles are returned flat in *out with
 * their lengths in *lens (each cycle lists its modules once). Returns the number of
 * cycles or -ENOMEM.
 */
int ksc_depmod_cycles(size_t n, uint32_t *const *deps, const uint32_t *n_deps,
		      const int *sort_idx, uint32_t **out, size_t **lens)
{
	int64_t *index = malloc((n ? n : 1) * sizeof(*index));
	int64_t *low = malloc((n ? n : 1) * sizeof(*low));
	uint32_t *comp = malloc((n ? n : 1) * sizeof(*comp));
	uint32_t *stack = malloc((n ? n : 1) * sizeof(*stack));
	struct frame {
		uint32_t v, next;
	} *cs = malloc((n ? n : 1) * sizeof(*cs));
	unsigned char *on = calloc(n ? n : 1, 1);
	uint32_t *flat = NULL, *path = NULL, *pnext = NULL;
	size_t *ls = NULL, nflat = 0, ncyc = 0;
	int64_t counter = 0;
	size_t sp = 0;
	int ret = -ENOMEM;

	if (!index || !low || !comp || !stack || !cs || !on)
		goto out;
	for (size_t i = 0; i < n; i++)
		index[i] = -1;
	uint32_t ncomp = 0;
	for (size_t s = 0; s < n; s++) {
		if (sort_idx[s] != INT_MAX || index[s] >= 0)
			continue;
		size_t csp = 0;
		cs[csp++] = (struct frame){ (uint32_t)s, 0 };
		index[s] = low[s] = counter++;
		stack[sp++] = (uint32_t)s;
		on[s] = 1;
		while (csp) {
			struct frame *f = &cs[csp - 1];
			uint32_t v = f->v;
			if (f->next < n_deps[v]) {
				uint32_t w = deps[v][f->next++];
				if (sort_idx[w] != INT_MAX)
					continue;
				if (index[w] < 0) {
					index[w] = low[w] = counter++;
					stack[sp++] = w;
					on[w] = 1;
					cs[csp++] = (struct frame){ w, 0 };
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				uint32_t w;
				do {
					w = stack[--sp];
					on[w] = 0;
					comp[w] = ncomp;
				} while (w != v);
				ncomp++;
			}
			csp--;
			if (csp && low[v] < low[cs[csp - 1].v])
				low[cs[csp - 1].v] = low[v];
		}
	}
	/*
	 * One cycle per component: a breadth-first search from its lowest member back to
	 * it.
	 */
	path = malloc((n ? n : 1) * sizeof(*path));
	pnext = malloc((n ? n : 1) * sizeof(*pnext));
	flat = malloc((n ? n : 1) * sizeof(*flat));
	ls = malloc((n ? n : 1) * sizeof(*ls));
	if (!path || !pnext || !flat || !ls)
		goto out;
	memset(on, 0, n);
	for (size_t s = 0; s < n; s++) {
		if (sort_idx[s] != INT_MAX || on[s] == 2)
			continue;
		/* s is the lowest index of its component the first time we meet it */
		uint32_t c = comp[s];
		for (size_t i = s; i < n; i++)
			if (sort_idx[i] == INT_MAX && comp[i] == c)
				on[i] = 2;
		bool self = false;
		for (uint32_t j = 0; j < n_deps[s]; j++)
			if (deps[s][j] == s)
				self = true;
		size_t members = 0;
		for (size_t i = s; i < n; i++)
			if (sort_idx[i] == INT_MAX && comp[i] == c)
				members++;
		if (members < 2 && !self)
			continue;
		if (self) {
			flat[nflat++] = (uint32_t)s;
			ls[ncyc++] = 1;
			continue;
		}
		/* BFS over the component; pnext[v] = predecessor */
		size_t qh = 0, qt = 0;
		for (size_t i = s; i < n; i++)
			if (sort_idx[i] == INT_MAX && comp[i] == c)
				pnext[i] = UINT32_MAX;
		path[qt++] = (uint32_t)s;
		uint32_t last = UINT32_MAX;
		while (qh < qt && last == UINT32_MAX) {
			uint32_t v = path[qh++];
			for (uint32_t j = 0; j < n_deps[v]; j++) {
				uint32_t w = deps[v][j];
				if (sort_idx[w] != INT_MAX || comp[w] != c)
					continue;
				if (w == s) {
					last = v;
					break;
				}
				if (pnext[w] != UINT32_MAX)
					continue;
				pnext[w] = v;
				path[qt++] = w;
			}
		}
		if (last == UINT32_MAX)
			continue;
		/* s -> ... -> last -> s: walk predecessors back from last */
		size_t len = 0;
		for (uint32_t v = last; v != s; v = pnext[v])
			len++;
		len++;
		size_t at = nflat + len;
		for (uint32_t v = last; v != s; v = pnext[v])
			flat[--at] = v;
		flat[--at] = (uint32_t)s;
		nflat += len;
		ls[ncyc++] = len;
	}
	*out = flat;
	*lens = ls;
	flat = NULL;
	ls = NULL;
	ret = (int)ncyc;
out:
	free(index);
	free(low);
	free(comp);
	free(stack);
	free(cs);
	free(on);
	free(path);
	free(pnext);
	free(flat);
	free(ls);
	return ret;
}

/* ---------------------------------------------------------------------------------- */
/* The text files                                                                     */

struct sbuf {
	char *p;
	size_t n, cap;
	int oom;
};

static void sb_reserve(struct sbuf *b, size_t more)
{
	if (b->oom || b->cap - b->n > more)
		return;
	size_t cap = b->cap ? b->cap : 1 << 16;
	while (cap - b->n <= more)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void sb_chr(struct sbuf *b, char c)
{
	sb_put(b, &c, 1);
}

static const char *rec_info(const struct krec *r, size_t i, const char **value)
{
	const struct krec_pair *p = krec_arr(r, ksc_krec_kinfo(r));

	*value = krec_str(r, p[i].value);
	return krec_str(r, p[i].key);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ksc_depmod_sym *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return strcmp(x->name, y->name);
}

const char *ksc_depmod_path_fault(const char *relpath)
{
	for (const unsigned char *p = (const unsigned char *)relpath; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return "a control character in the file name";
		if (*p == ' ')
			return "a space in the file name";
		if (*p == ':')
			return "a colon in the file name";
	}
	return NULL;
}

bool ksc_depmod_value_ok(const char *key, const char *value)
{
	if (ksc_text_has_control(value))
		return false;
	return strcmp(key, "alias") != 0 || strncmp(value, "devname:", 8) != 0 ||
	       !strchr(value, ' ');
}

bool ksc_depmod_symbol_ok(const char *name)
{
	return !ksc_text_has_control(name) && !strchr(name, ' ');
}

int ksc_depmod_format(unsigned int what, const struct ksc_depmod_mod *mods, size_t n,
		      const int *sort_idx, struct ksc_depmod_sym *syms, size_t n_syms,
		      char **data, size_t *size)
{
	struct sbuf b = { 0 };

	switch (what) {
	case KSC_DEPMOD_DEP: {
		unsigned char *mark = calloc(n ? n : 1, 1);
		uint32_t **dp = malloc((n ? n : 1) * sizeof(*dp));
		uint32_t *nd = malloc((n ? n : 1) * sizeof(*nd));
		if (!mark || !dp || !nd) {
			free(mark);
			free(dp);
			free(nd);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n; i++) {
			dp[i] = (uint32_t *)mods[i].deps;
			nd[i] = mods[i].n_deps;
		}
		for (size_t i = 0; i < n && !b.oom; i++) {
			if (mods[i].left_out)
				continue;
			sb_str(&b, mods[i].relpath);
			sb_chr(&b, ':');
			uint32_t *all = NULL;
			size_t k = mods[i].n_deps
					   ? ksc_depmod_all_deps((uint32_t)i, dp, nd,
								 sort_idx, mark, &all)
					   : 0;
			if (k == SIZE_MAX) {
				b.oom = 1;
				break;
			}
			for (size_t j = 0; j < k; j++) {
				if (mods[all[j]].left_out)
					continue;
				sb_chr(&b, ' ');
				sb_str(&b, mods[all[j]].relpath);
			}
			free(all);
			sb_chr(&b, '\n');
		}
		free(mark);
		free(dp);
		free(nd);
		break;
	}
	case KSC_DEPMOD_SYMBOLS:
		sb_str(&b, "# Aliases for symbols, used by symbol_request().\n");
		for (size_t i = 0; i < n_syms; i++)
			syms[i].bucket =
				ksc_kmod_hash(syms[i].name, strlen(syms[i].name)) & 2047;
		qsort(syms, n_syms, sizeof(*syms), cmp_sym);
		for (size_t i = 0; i < n_syms; i++) {
			if (mods[syms[i].owner].left_out ||
			    !ksc_depmod_symbol_ok(syms[i].name))
				continue;
			sb_str(&b, "alias symbol:");
			sb_str(&b, syms[i].name);
			sb_chr(&b, ' ');
			sb_str(&b, mods[syms[i].owner].modname);
			sb_chr(&b, '\n');
		}
		break;
	case KSC_DEPMOD_ALIAS:
	case KSC_DEPMOD_SOFTDEP: {
		bool alias = what == KSC_DEPMOD_ALIAS;
		sb_str(&b, alias ? "# Aliases extracted from modules themselves.\n"
				 : "# Soft dependencies extracted from modules "
				   "themselves.\n");
		for (size_t i = 0; i < n; i++) {
			const struct krec *r = mods[i].rec;
			for (size_t j = 0; r && !mods[i].left_out && j < ksc_krec_kinfo(r).n;
			     j++) {
				const char *v, *k = rec_info(r, j, &v);
				if (strcmp(k, alias ? "alias" : "softdep") != 0 ||
				    !ksc_depmod_value_ok(k, v))
					continue;
				if (alias) {
					sb_str(&b, "alias ");
					sb_str(&b, v);
					sb_chr(&b, ' ');
					sb_str(&b, mods[i].modname);
				} else {
					sb_str(&b, "softdep ");
					sb_str(&b, mods[i].modname);
					sb_chr(&b, ' ');
					sb_str(&b, v);
				}
				sb_chr(&b, '\n');
			}
		}
		break;
	}
	case KSC_DEPMOD_DEVNAME: {
		bool empty = true;
		for (size_t i = 0; i < n; i++) {
			const struct krec *r = mods[i].rec;
			const char *devname = NULL;
			char type = '\0';
			unsigned int major = 0, minor = 0;
			for (size_t j = 0; r && !mods[i].left_out && j < ksc_krec_kinfo(r).n;
			     j++) {
				const char *v, *k = rec_info(r, j, &v);
				unsigned int maj, min;
				if (strcmp(k, "alias") != 0 || !ksc_depmod_value_ok(k, v))
					continue;
				if (strncmp(v, "devname:", 8) == 0) {
					devname = v + 8;
				} else if (sscanf(v, "char-major-%u-%u", &maj, &min) ==
					   2) {
					type = 'c';
					major = maj;
					minor = min;
				} else if (sscanf(v, "block-major-%u-%u", &maj, &min) ==
					   2) {
					type = 'b';
					major = maj;
					minor = min;
				}
				if (type != '\0' && devname)
					break;
			}
			if (!devname || type == '\0')
				continue; /* depmod: "has devname but lacks major and minor" */
			if (empty) {
				sb_str(&b, "# Device nodes to trigger on-demand module "
					   "loading.\n");
				empty = false;
			}
			char line[64];
			sb_str(&b, mods[i].modname);
			sb_chr(&b, ' ');
			sb_str(&b, devname);
			snprintf(line, sizeof(line), " %c%u:%u\n", type, major, minor);
			sb_str(&b, line);
		}
		break;
	}
	default: return -EINVAL;
	}
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	*data = b.p;
	*size = b.n;
	return 0;
}
