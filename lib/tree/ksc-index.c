// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tree index: what was read from each module (a "facts record") and what was worked
 * out from the whole tree (a "derived record"), kept in a cache file so that the next
 * run re-reads only the modules that changed.
 *
 * A record is position independent (offsets from its start, strings in its own string
 * table) and is both the in-memory form and the on-disk form: records built in this run
 * and records read from the index are used the same way, and a record that did not
 * change is written back byte for byte. Nothing read from a file is used before it has
 * been validated: the header checksum, each record's checksum (in the directory), then
 * every range, enum and string offset (ksc_krec_validate, ksc_kder_validate).
 *
 * File layout (native byte order, all offsets from the file start, 8-byte aligned):
 *   struct kidx_hdr
 *   header strings (moddir, release, output folder and file names), NUL-terminated
 *   directory: n_modules x struct kidx_dirent
 *   outputs:   n_outputs x struct kidx_out
 *   records
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tree/tree.h"

/* ---------------------------------------------------------------------------------- */
/* Record buffers                                                                     */

void rbuf_init(struct rbuf *b)
{
	memset(b, 0, sizeof(*b));
	b->s = malloc(256);
	if (!b->s) {
		b->oom = 1;
		return;
	}
	b->scap = 256;
	b->s[0] = '\0';
	b->sn = 1;
}

void rbuf_fini(struct rbuf *b)
{
	free(b->p);
	free(b->s);
	free(b->tab);
	memset(b, 0, sizeof(*b));
}

size_t rbuf_put(struct rbuf *b, size_t size, size_t align)
{
	size_t at = (b->n + align - 1) & ~(align - 1);

	if (b->oom)
		return 0;
	if (at + size > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		while (cap < at + size)
			cap *= 2;
		unsigned char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return 0;
		}
		b->p = p;
		b->cap = cap;
	}
	memset(b->p + b->n, 0, at + size - b->n);
	b->n = at + size;
	return at;
}

/* Eight bytes at a time: symbol names are short, and there are hundreds of thousands. */
static uint32_t str_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;

	for (; len >= 8; s += 8, len -= 8) {
		uint64_t v;
		memcpy(&v, s, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (len) {
		uint64_t v = 0;
		memcpy(&v, s, len);
		h = (h ^ v) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	return (uint32_t)h;
}

static int tab_grow(struct rbuf *b)
{
	size_t cap = b->tab_cap ? b->tab_cap * 2 : 256;
	struct rbuf_slot *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < b->tab_cap; i++) {
		if (!b->tab[i].off1)
			continue;
		size_t j = b->tab[i].hash & (cap - 1);
		while (t[j].off1)
			j = (j + 1) & (cap - 1);
		t[j] = b->tab[i];
	}
	free(b->tab);
	b->tab = t;
	b->tab_cap = cap;
	return 0;
}

void rbuf_reserve_strings(struct rbuf *b, size_t n)
{
	size_t cap = 256;

	while (cap < n * 2)
		cap *= 2;
	if (cap <= b->tab_cap || b->tab_n)
		return;
	struct rbuf_slot *t = calloc(cap, sizeof(*t));
	if (!t)
		return; /* it grows as needed then */
	free(b->tab);
	b->tab = t;
	b->tab_cap = cap;
}

uint32_t rbuf_str(struct rbuf *b, const char *s, size_t len)
{
	if (len == 0 || b->oom)
		return 0;
	if ((b->tab_n + 1) * 2 > b->tab_cap && tab_grow(b) < 0) {
		b->oom = 1;
		return 0;
	}
	uint32_t h = str_hash(s, len);
	size_t j = h & (b->tab_cap - 1);
	while (b->tab[j].off1) {
		uint32_t off = b->tab[j].off1 - 1;
		if (b->tab[j].hash == h && b->sn - off > len &&
		    memcmp(b->s + off, s, len) == 0 && b->s[off + len] == '\0')
			return off;
		j = (j + 1) & (b->tab_cap - 1);
	}
	if (b->sn + len + 1 > b->scap) {
		size_t cap = b->scap;
		while (cap < b->sn + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX / 2) {
			b->oom = 1;
			return 0;
		}
		unsigned char *p = realloc(b->s, cap);
		if (!p) {
			b->oom = 1;
			return 0;
		}
		b->s = p;
		b->scap = cap;
	}
	uint32_t off = (uint32_t)b->sn;
	memcpy(b->s + off, s, len);
	b->s[off + len] = '\0';
	b->sn += len + 1;
	b->tab[j] = (struct rbuf_slot){ off + 1, h };
	b->tab_n++;
	return off;
}

static uint32_t rbuf_cstr(struct rbuf *b, const char *s)
{
	return s ? rbuf_str(b, s, strlen(s)) : KREC_NONE;
}

void rbuf_reset(struct rbuf *b)
{
	if (!b->s) {
		rbuf_init(b);
		return;
	}
	b->n = 0;
	b->s[0] = '\0';
	b->sn = 1;
	b->oom = 0;
	if (b->tab_cap > 4096) { /* after a huge module: not cleared for every small one */
		free(b->tab);
		b->tab = NULL;
		b->tab_cap = 0;
	} else if (b->tab_n) {
		memset(b->tab, 0, b->tab_cap * sizeof(*b->tab));
	}
	b->tab_n = 0;
}

/* Append the string table, fix up `strtab` and the size, pad: 0 or -ENOMEM. */
static int finish_in_place(struct rbuf *b, size_t strtab_field_off)
{
	size_t at = rbuf_put(b, b->sn, 1);

	if (b->oom)
		return -ENOMEM;
	memcpy(b->p + at, b->s, b->sn);
	struct krange g = { (uint32_t)at, (uint32_t)b->sn };
	memcpy(b->p + strtab_field_off, &g, sizeof(g));
	rbuf_put(b, 0, 8);
	if (b->oom || b->n > UINT32_MAX)
		return -ENOMEM;
	/* record size: the first two u32 are magic and size */
	uint32_t sz = (uint32_t)b->n;
	memcpy(b->p + 4, &sz, 4);
	return 0;
}

void *rbuf_finish(struct rbuf *b, size_t strtab_field_off, size_t *size)
{
	if (finish_in_place(b, strtab_field_off) < 0)
		return NULL;
	void *p = b->p;
	*size = b->n;
	b->p = NULL;
	b->n = b->cap = 0;
	return p;
}

void *rbuf_finish_copy(struct rbuf *b, size_t strtab_field_off, size_t *size)
{
	if (finish_in_place(b, strtab_field_off) < 0)
		return NULL;
	void *c = malloc(b->n);
	if (!c) {
		b->oom = 1;
		return NULL;
	}
	memcpy(c, b->p, b->n);
	*size = b->n;
	return c;
}

/* ---------------------------------------------------------------------------------- */
/* Facts records                                                                      */

static int kdeps_stored(const struct krec *r, struct kdep_item **out, size_t *n);
static int derive_kdeps(const uint32_t *im, size_t ni, const struct krec_crc *v,
			size_t nv, struct krec_kdep *out, size_t *n);

static bool kv_eq(struct kv_str s, const char *c)
{
	return strlen(c) == s.n && memcmp(s.p, c, s.n) == 0;
}

/* Does the kmod view's modinfo say exactly what the library read? */
static bool same_info(const struct kview *kv, const struct ksc_module *mod)
{
	size_t n = ksc_module_get_modinfo_count(mod);

	if (n != kv->n_info)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct ksc_modinfo *m = ksc_module_get_modinfo(mod, i);
		if (!kv_eq(kv->info[i].key, m->key) ||
		    !kv_eq(kv->info[i].value, m->value))
			return false;
	}
	return true;
}

#define PUT_ARRAY(b, field, count, type)                                                 \
	((field).n = (uint32_t)(count),                                                  \
	 (field).off = (uint32_t)rbuf_put((b), (size_t)(count) * sizeof(type), 4))

static uint64_t hstr(uint64_t h, const char *s)
{
	return s ? ksc_hash64(s, strlen(s) + 1, h) : ksc_hash64("", 0, h ^ 0x5a5a);
}

static uint64_t hnum(uint64_t h, uint64_t v)
{
	return ksc_hash64(&v, sizeof(v), h);
}

int ksc_krec_build(const struct krec_src *src, struct krec **out)
{
	const struct ksc_module *mod = src->mod;
	const struct kview *kv = src->kv;
	struct krec h;
	struct rbuf b;
	int ret = -ENOMEM;

	*out = NULL;
	memset(&h, 0, sizeof(h));
	/* in the caller's buffer, when it lends one: no allocations but the record's own */
	if (src->scratch) {
		b = *src->scratch;
		rbuf_reset(&b);
	} else {
		rbuf_init(&b);
	}
	/* Room for every string at once: the table never grows while interning. */
	size_t nstr =
		8 + src->n_msgs + (kv ? 2 * kv->n_info + kv->n_exports + kv->n_deps : 0);
	if (mod)
		nstr += 2 * ksc_module_get_modinfo_count(mod) +
			ksc_module_get_import_count(mod) +
			ksc_module_get_version_count(mod) +
			ksc_module_get_ext_version_count(mod) +
			2 * ksc_module_get_export_count(mod);
	rbuf_reserve_strings(&b, nstr);
	rbuf_put(&b, sizeof(struct krec), 8);
	h.magic = KREC_MAGIC;
	h.file_size = src->file_size;
	h.mtime_ns = src->mtime_ns;
	h.ino = src->ino;
	h.relpath = rbuf_cstr(&b, src->relpath);
	h.err = mod ? 0 : src->err;
	h.struct_name = h.kmod_name = h.modpost_name = h.symvers_owner = KREC_NONE;
	if (src->unreadable)
		h.flags |= KREC_F_UNREADABLE;

	PUT_ARRAY(&b, h.msgs, src->n_msgs, struct krec_msg);
	for (size_t i = 0; i < src->n_msgs && !b.oom; i++) {
		struct krec_msg m = { (uint32_t)src->msg_prio[i],
				      rbuf_cstr(&b, src->msg_text[i]) };
		memcpy(b.p + h.msgs.off + i * sizeof(m), &m, sizeof(m));
	}

	if (mod) {
		h.flags |= KREC_F_ENGINE;
		h.kind = ksc_module_get_kind(mod);
		if (h.kind == KSC_KIND_VMLINUX)
			h.flags |= KREC_F_VMLINUX;
		h.compression = ksc_module_get_compression(mod);
		h.elf_class = (uint32_t)ksc_module_get_elf_class(mod);
		h.machine = ksc_module_get_machine(mod);
		h.layout = ksc_module_get_export_layout(mod);
		if (ksc_module_is_big_endian(mod))
			h.flags |= KREC_F_BIG_ENDIAN;
		if (ksc_module_has_versions(mod))
			h.flags |= KREC_F_VERSIONS;
		if (ksc_module_has_ext_versions(mod))
			h.flags |= KREC_F_EXT_VERSIONS;
		if (ksc_module_has_kflagstab(mod))
			h.flags |= KREC_F_KFLAGSTAB;
		for (size_t j = 0; j < mod->n_sections; j++) {
			int id = ksc_elf_section_id(mod->sections[j]);
			if (id >= 0)
				h.sections |= 1u << id;
		}
		h.struct_name = rbuf_cstr(&b, ksc_module_get_struct_name(mod));
		h.kmod_name = rbuf_cstr(&b, ksc_module_get_kmod_name(mod));
		h.modpost_name = rbuf_cstr(&b, ksc_module_get_modpost_name(mod));
		h.symvers_owner = rbuf_cstr(&b, ksc_module_get_symvers_owner(mod));
		h.usize = ksc_module_get_size(mod);
		h.sig_size = ksc_module_get_signature_size(mod);

		size_t n = ksc_module_get_modinfo_count(mod);
		PUT_ARRAY(&b, h.modinfo, n, struct krec_pair);
		for (size_t i = 0; i < n && !b.oom; i++) {
			const struct ksc_modinfo *m = ksc_module_get_modinfo(mod, i);
			struct krec_pair p = { rbuf_cstr(&b, m->key),
					       rbuf_cstr(&b, m->value) };
			memcpy(b.p + h.modinfo.off + i * sizeof(p), &p, sizeof(p));
		}
		n = ksc_module_get_import_count(mod);
		size_t n_imp = n;
		PUT_ARRAY(&b, h.imports, n, uint32_t);
		for (size_t i = 0; i < n && !b.oom; i++) {
			const struct ksc_import *im = ksc_module_get_import(mod, i);
			uint32_t v = rbuf_cstr(&b, im->name);
			if (im->bind == KSC_BIND_WEAK)
				v |= KREC_IMP_WEAK;
			memcpy(b.p + h.imports.off + i * 4, &v, 4);
		}
		n = ksc_module_get_version_count(mod);
		PUT_ARRAY(&b, h.versions, n, struct krec_crc);
		for (size_t i = 0; i < n && !b.oom; i++) {
			const struct ksc_version *v = ksc_module_get_version(mod, i);
			/*
			 * When entry i names import i (modpost's order survives linking for
			 * some), its string is interned already.
			 */
			uint32_t name;
			if (i < n_imp && strcmp(v->name, mod->imports[i].name) == 0) {
				memcpy(&name, b.p + h.imports.off + i * 4, 4);
				name &= ~KREC_IMP_WEAK;
			} else {
				name = rbuf_cstr(&b, v->name);
			}
			struct krec_crc c = { name, (uint32_t)v->crc, (uint32_t)(v->crc >> 32) };
			memcpy(b.p + h.versions.off + i * sizeof(c), &c, sizeof(c));
		}
		n = ksc_module_get_ext_version_count(mod);
		PUT_ARRAY(&b, h.ext_versions, n, struct krec_crc);
		for (size_t i = 0; i < n && !b.oom; i++) {
			const struct ksc_version *v = ksc_module_get_ext_version(mod, i);
			struct krec_crc c = { rbuf_cstr(&b, v->name), (uint32_t)v->crc,
					      (uint32_t)(v->crc >> 32) };
			memcpy(b.p + h.ext_versions.off + i * sizeof(c), &c, sizeof(c));
		}
		n = ksc_module_get_export_count(mod);
		PUT_ARRAY(&b, h.exports, n, struct krec_export);
		for (size_t i = 0; i < n && !b.oom; i++) {
			const struct ksc_export *e = ksc_module_get_export(mod, i);
			struct krec_export x = {
				rbuf_cstr(&b, e->name), rbuf_cstr(&b, e->ns), e->crc,
				(e->gpl_only ? KREC_EXP_GPL : 0) |
					(e->has_crc ? KREC_EXP_HAS_CRC : 0)
			};
			memcpy(b.p + h.exports.off + i * sizeof(x), &x, sizeof(x));
		}
	}

	if (mod && src->sigtail_len) {
		h.sigtail.n = (uint32_t)src->sigtail_len;
		h.sigtail.off = (uint32_t)rbuf_put(&b, src->sigtail_len, 1);
		if (!b.oom)
			memcpy(b.p + h.sigtail.off, src->sigtail, src->sigtail_len);
	}
	if (kv && kv->elf_ok) {
		h.flags |= KREC_F_KELF;
		PUT_ARRAY(&b, h.kexports, kv->n_exports, struct krec_crc);
		for (size_t i = 0; i < kv->n_exports && !b.oom; i++) {
			const struct kv_export *e = &kv->exports[i];
			struct krec_crc c = { rbuf_str(&b, e->name.p, e->name.n),
					      (uint32_t)e->crc,
					      (uint32_t)(e->crc >> 32) };
			memcpy(b.p + h.kexports.off + i * sizeof(c), &c, sizeof(c));
		}
		if (!mod || !same_info(kv, mod)) {
			h.flags |= KREC_F_KINFO;
			PUT_ARRAY(&b, h.kinfo, kv->n_info, struct krec_pair);
			for (size_t i = 0; i < kv->n_info && !b.oom; i++) {
				struct krec_pair p = { rbuf_str(&b, kv->info[i].key.p,
								kv->info[i].key.n),
						       rbuf_str(&b, kv->info[i].value.p,
								kv->info[i].value.n) };
				memcpy(b.p + h.kinfo.off + i * sizeof(p), &p, sizeof(p));
			}
		}
		if (kv->deps_ok && kv->deps_derivable && mod) {
			h.flags |= KREC_F_KDEPS | KREC_F_KDEPS_DERIVED;
		} else if (kv->deps_ok) {
			h.flags |= KREC_F_KDEPS;
			size_t nd = kv->n_deps, ni = h.imports.n, nv = h.versions.n,
			       k = 0;
			struct krec_kdep *x = malloc((nd + ni + nv ? nd + ni + nv : 1) *
						     sizeof(*x) * 2);
			if (!x) {
				b.oom = 1;
				goto out;
			}
			for (size_t i = 0; i < nd && !b.oom; i++) {
				const struct kv_dep *d = &kv->deps[i];
				x[i] = (struct krec_kdep){
					rbuf_str(&b, d->name.p, d->name.n) |
						(d->weak ? KREC_IMP_WEAK : 0),
					(uint32_t)d->crc, (uint32_t)(d->crc >> 32)
				};
			}
			/*
			 * Stored only when the library's imports and __versions do not
			 * give them.
			 */
			struct krec_kdep *y = x + nd + ni + nv;
			bool derived =
				mod && !b.oom &&
				derive_kdeps(
					(const uint32_t *)(b.p + h.imports.off), ni,
					(const struct krec_crc *)(b.p + h.versions.off),
					nv, y, &k) == 0 &&
				k == nd && memcmp(x, y, nd * sizeof(*x)) == 0;
			if (derived) {
				h.flags |= KREC_F_KDEPS_DERIVED;
			} else {
				PUT_ARRAY(&b, h.kdeps, nd, struct krec_kdep);
				if (!b.oom)
					memcpy(b.p + h.kdeps.off, x, nd * sizeof(*x));
			}
			free(x);
		}
	}
	if (b.oom)
		goto out;
	memcpy(b.p, &h, sizeof(h));
	size_t size;
	struct krec *r = src->scratch ? rbuf_finish_copy(&b, offsetof(struct krec, strtab), &size)
				      : rbuf_finish(&b, offsetof(struct krec, strtab), &size);
	if (!r)
		goto out;

	/*
	 * Fingerprints, over resolved strings so that they do not depend on the layout.
	 */
	size_t skip = offsetof(struct krec, relpath);
	r->facts_hash = ksc_hash64((const char *)r + skip, size - skip, 1);
	uint64_t kx = 2;
	const struct krec_crc *kc = krec_arr(r, r->kexports);
	for (size_t i = 0; i < r->kexports.n; i++)
		kx = hnum(hstr(kx, krec_str(r, kc[i].name)),
			  (uint64_t)kc[i].crc_hi << 32 | kc[i].crc_lo);
	r->kexp_hash = kx = hnum(kx, r->flags & KREC_F_KELF);
	/*
	 * kmod's whole view: the exports, the dependency symbols, the modinfo (all
	 * interned).
	 */
	uint64_t km = hnum(
		kx, r->flags & (KREC_F_KDEPS | KREC_F_KDEPS_DERIVED | KREC_F_UNREADABLE));
	km = ksc_hash64(krec_arr(r, r->kdeps),
			(size_t)r->kdeps.n * sizeof(struct krec_kdep), km);
	if (r->flags & KREC_F_KDEPS_DERIVED) {
		km = ksc_hash64(krec_arr(r, r->imports), (size_t)r->imports.n * 4, km);
		km = ksc_hash64(krec_arr(r, r->versions),
				(size_t)r->versions.n * sizeof(struct krec_crc), km);
	}
	km = ksc_hash64(krec_arr(r, r->strtab), r->strtab.n, km);
	struct krange ki = ksc_krec_kinfo(r);
	km = ksc_hash64(krec_arr(r, ki), (size_t)ki.n * sizeof(struct krec_pair), km);
	r->kmod_hash = km;
	/*
	 * As a provider (ksc_kernel_add_module): name, license, intree, vermagic,
	 * exports.
	 */
	uint64_t pv = hnum(3, r->flags & (KREC_F_ENGINE | KREC_F_VMLINUX));
	pv = hstr(pv, krec_str(r, r->struct_name));
	pv = hstr(pv, krec_str(r, r->kmod_name));
	const struct krec_pair *mi = krec_arr(r, r->modinfo);
	for (size_t i = 0; i < r->modinfo.n; i++) {
		const char *k = krec_str(r, mi[i].key);
		if (strcmp(k, "name") == 0 || strcmp(k, "license") == 0 ||
		    strcmp(k, "intree") == 0 || strcmp(k, "vermagic") == 0)
			pv = hstr(hstr(pv, k), krec_str(r, mi[i].value));
	}
	const struct krec_export *ex = krec_arr(r, r->exports);
	for (size_t i = 0; i < r->exports.n; i++)
		pv = hnum(hstr(hstr(pv, krec_str(r, ex[i].name)), krec_str(r, ex[i].ns)),
			  (uint64_t)ex[i].crc << 8 | ex[i].flags);
	r->prov_hash = pv;
	*out = r;
	ret = 0;
out:
	if (src->scratch)
		*src->scratch = b; /* its memory, for the next record */
	else
		rbuf_fini(&b);
	return ret;
}

struct krange ksc_krec_kinfo(const struct krec *r)
{
	if (r->flags & KREC_F_KINFO)
		return r->kinfo;
	if (r->flags & KREC_F_KELF)
		return r->modinfo;
	return (struct krange){ 0, 0 };
}

/*
 * kmod's dependency symbols as kmod_elf_get_dependency_symbols() lists them, from the
 * library's imports (.symtab order) and __versions: each import with the CRC of the first
 * __versions entry of its name, then the entries no import matched. Names are interned
 * offsets: equal names, equal offsets. Writes n_imports + unmatched entries to out[].
 */
static int derive_kdeps(const uint32_t *im, size_t ni, const struct krec_crc *v,
			size_t nv, struct krec_kdep *out, size_t *n)
{
	size_t cap = 16;
	while (cap < nv * 2)
		cap *= 2;
	uint32_t *tab = calloc(cap, sizeof(*tab)); /* version index + 1 */
	unsigned char *visited = calloc(nv ? nv : 1, 1);
	if (!tab || !visited) {
		free(tab);
		free(visited);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nv; i++) {
		size_t j = (v[i].name * 2654435761u) & (cap - 1);
		while (tab[j] && v[tab[j] - 1].name != v[i].name)
			j = (j + 1) & (cap - 1);
		if (!tab[j])
			tab[j] = (uint32_t)i + 1;
	}
	size_t k = 0;
	for (size_t i = 0; i < ni; i++) {
		uint32_t name = im[i] & ~KREC_IMP_WEAK;
		size_t j = (name * 2654435761u) & (cap - 1);
		while (tab[j] && v[tab[j] - 1].name != name)
			j = (j + 1) & (cap - 1);
		out[k] = (struct krec_kdep){ im[i], 0, 0 };
		if (tab[j]) {
			visited[tab[j] - 1] = 1;
			out[k].crc_lo = v[tab[j] - 1].crc_lo;
			out[k].crc_hi = v[tab[j] - 1].crc_hi;
		}
		k++;
	}
	for (size_t i = 0; i < nv; i++)
		if (!visited[i])
			out[k++] =
				(struct krec_kdep){ v[i].name, v[i].crc_lo, v[i].crc_hi };
	free(tab);
	free(visited);
	*n = k;
	return 0;
}

int ksc_krec_kdeps(const struct krec *r, struct kdep_item **out, size_t *n)
{
	if ((r->flags & KREC_F_KDEPS) && (r->flags & KREC_F_KDEPS_DERIVED)) {
		size_t ni = r->imports.n, nv = r->versions.n, k;
		struct krec_kdep *d = malloc((ni + nv ? ni + nv : 1) * sizeof(*d));
		struct kdep_item *a = malloc((ni + nv ? ni + nv : 1) * sizeof(*a));
		if (!d || !a ||
		    derive_kdeps(krec_arr(r, r->imports), ni, krec_arr(r, r->versions),
				 nv, d, &k) < 0) {
			free(d);
			free(a);
			return -ENOMEM;
		}
		for (size_t i = 0; i < k; i++)
			a[i] = (struct kdep_item){
				krec_str(r, d[i].name & ~KREC_IMP_WEAK),
				(uint64_t)d[i].crc_hi << 32 | d[i].crc_lo,
				(d[i].name & KREC_IMP_WEAK) != 0
			};
		free(d);
		*out = a;
		*n = k;
		return 0;
	}
	return kdeps_stored(r, out, n);
}

static int kdeps_stored(const struct krec *r, struct kdep_item **out, size_t *n)
{
	const struct krec_kdep *d = krec_arr(r, r->kdeps);
	struct kdep_item *a;

	*out = NULL;
	*n = 0;
	if (!(r->flags & KREC_F_KDEPS))
		return 0;
	a = malloc((r->kdeps.n ? r->kdeps.n : 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < r->kdeps.n; i++)
		a[i] = (struct kdep_item){ krec_str(r, d[i].name & ~KREC_IMP_WEAK),
					   (uint64_t)d[i].crc_hi << 32 | d[i].crc_lo,
					   (d[i].name & KREC_IMP_WEAK) != 0 };
	*out = a;
	*n = r->kdeps.n;
	return 0;
}

/* off + n * elem lies inside [sizeof header, size), aligned. */
static bool range_ok(struct krange g, size_t elem, size_t align, size_t hdr, size_t size)
{
	if (g.n == 0)
		return g.off <= size;
	if (g.off < hdr || g.off % align || g.off > size)
		return false;
	return (uint64_t)g.n * elem <= size - g.off;
}

static bool str_ok(uint32_t off, uint32_t strsize, bool null_ok)
{
	return off == KREC_NONE ? null_ok : off < strsize;
}

int ksc_krec_validate(const struct krec *r, size_t size)
{
	const size_t H = sizeof(struct krec);

	if (size < H || size % 8 || r->magic != KREC_MAGIC || r->size != size)
		return -EINVAL;
	if (r->flags & ~KREC_F_ALL)
		return -EINVAL;
	if (r->kind > KSC_KIND_VMLINUX || r->compression > KSC_COMPRESSION_ZSTD ||
	    r->layout > KSC_LAYOUT_PREL32_3 ||
	    (r->elf_class != 0 && r->elf_class != 32 && r->elf_class != 64) ||
	    (r->sections >> ksc_elf_section_count) != 0)
		return -EINVAL;
	if (!range_ok(r->strtab, 1, 1, H, size) || r->strtab.n == 0)
		return -EINVAL;
	const char *st = (const char *)r + r->strtab.off;
	uint32_t sn = r->strtab.n;
	if (st[0] != '\0' || st[sn - 1] != '\0')
		return -EINVAL;
	if (!range_ok(r->msgs, sizeof(struct krec_msg), 4, H, size) ||
	    !range_ok(r->modinfo, sizeof(struct krec_pair), 4, H, size) ||
	    !range_ok(r->imports, 4, 4, H, size) ||
	    !range_ok(r->versions, sizeof(struct krec_crc), 4, H, size) ||
	    !range_ok(r->ext_versions, sizeof(struct krec_crc), 4, H, size) ||
	    !range_ok(r->exports, sizeof(struct krec_export), 4, H, size) ||
	    !range_ok(r->kexports, sizeof(struct krec_crc), 4, H, size) ||
	    !range_ok(r->kdeps, sizeof(struct krec_kdep), 4, H, size) ||
	    !range_ok(r->kinfo, sizeof(struct krec_pair), 4, H, size) ||
	    !range_ok(r->sigtail, 1, 1, H, size) || r->sigtail.n > r->usize)
		return -EINVAL;
	if (!str_ok(r->relpath, sn, false) || st[r->relpath] == '\0' ||
	    !str_ok(r->struct_name, sn, true) || !str_ok(r->kmod_name, sn, true) ||
	    !str_ok(r->modpost_name, sn, true) || !str_ok(r->symvers_owner, sn, true))
		return -EINVAL;
	bool engine = r->flags & KREC_F_ENGINE;
	if (engine && (r->kmod_name == KREC_NONE || r->modpost_name == KREC_NONE ||
		       r->symvers_owner == KREC_NONE || r->kind == 0 || r->err != 0))
		return -EINVAL;
	if (!engine && (r->err >= 0 || r->modinfo.n || r->imports.n || r->versions.n ||
			r->ext_versions.n || r->exports.n || r->sigtail.n))
		return -EINVAL;
	if ((r->flags & KREC_F_KDEPS_DERIVED) &&
	    (!engine || !(r->flags & KREC_F_KDEPS) || r->kdeps.n))
		return -EINVAL;
	if (!(r->flags & KREC_F_KDEPS) && r->kdeps.n)
		return -EINVAL;
	if (!(r->flags & KREC_F_KELF) && (r->kexports.n || r->kdeps.n || r->kinfo.n ||
					  (r->flags & (KREC_F_KDEPS | KREC_F_KINFO))))
		return -EINVAL;
	if (!(r->flags & KREC_F_KINFO) && r->kinfo.n)
		return -EINVAL;
	const struct krec_msg *m = krec_arr(r, r->msgs);
	for (size_t i = 0; i < r->msgs.n; i++)
		if (m[i].priority > KSC_LOG_DEBUG || !str_ok(m[i].text, sn, false))
			return -EINVAL;
	const struct krec_pair *p = krec_arr(r, r->modinfo);
	for (size_t i = 0; i < r->modinfo.n; i++)
		if (!str_ok(p[i].key, sn, false) || !str_ok(p[i].value, sn, false))
			return -EINVAL;
	p = krec_arr(r, r->kinfo);
	for (size_t i = 0; i < r->kinfo.n; i++)
		if (!str_ok(p[i].key, sn, false) || !str_ok(p[i].value, sn, false))
			return -EINVAL;
	const uint32_t *im = krec_arr(r, r->imports);
	for (size_t i = 0; i < r->imports.n; i++)
		if (!str_ok(im[i] & ~KREC_IMP_WEAK, sn, false))
			return -EINVAL;
	const struct krec_crc *c = krec_arr(r, r->versions);
	for (size_t i = 0; i < r->versions.n; i++)
		if (!str_ok(c[i].name, sn, false))
			return -EINVAL;
	c = krec_arr(r, r->ext_versions);
	for (size_t i = 0; i < r->ext_versions.n; i++)
		if (!str_ok(c[i].name, sn, false) || c[i].crc_hi)
			return -EINVAL;
	c = krec_arr(r, r->kexports);
	for (size_t i = 0; i < r->kexports.n; i++)
		if (!str_ok(c[i].name, sn, false))
			return -EINVAL;
	const struct krec_export *e = krec_arr(r, r->exports);
	for (size_t i = 0; i < r->exports.n; i++)
		if (!str_ok(e[i].name, sn, false) || !str_ok(e[i].ns, sn, false) ||
		    st[e[i].name] == '\0' || (e[i].flags & ~3u))
			return -EINVAL;
	const struct krec_kdep *d = krec_arr(r, r->kdeps);
	for (size_t i = 0; i < r->kdeps.n; i++)
		if (!str_ok(d[i].name & ~KREC_IMP_WEAK, sn, false))
			return -EINVAL;
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Rebuilding a struct ksc_module from a record                                        */

#define SIG_MARKER "~Module signature appended~\n"
#define SIG_MARKER_LEN (sizeof(SIG_MARKER) - 1)

size_t ksc_sig_tail_len(const unsigned char *img, size_t size)
{
	if (size < SIG_MARKER_LEN ||
	    memcmp(img + size - SIG_MARKER_LEN, SIG_MARKER, SIG_MARKER_LEN) != 0)
		return 0;
	size_t before = size - SIG_MARKER_LEN;
	if (before < 12)
		return SIG_MARKER_LEN;
	const unsigned char *info = img + before - 12;
	size_t avail = before - 12;
	size_t sig_len = (size_t)info[8] << 24 | (size_t)info[9] << 16 |
			 (size_t)info[10] << 8 | info[11];
	size_t want = sig_len + info[3] + info[4], keep = 0;
	if (sig_len <= avail && sig_len <= ((size_t)1 << 20))
		keep = want < avail ? want : avail;
	return SIG_MARKER_LEN + 12 + keep;
}

/*
 * What ksc_sig_capture() keeps, given the image's last bytes: it reads only those (and
 * the image's size). They go at the end of an untouched anonymous mapping at least the
 * image's size; the "image" handed over is the last `usize` bytes of it, so the bytes
 * written are always the mapping's last pages, whatever the module.
 */
void ksc_sigscratch_fini(struct ksc_sigscratch *s)
{
	if (s->buf)
		munmap(s->buf, s->size);
	s->buf = NULL;
	s->size = 0;
}

static int restore_signature(struct ksc_module *mod, const struct krec *r,
			     struct ksc_sigscratch *scratch)
{
	struct ksc_sigscratch one = { NULL, 0 };
	struct ksc_sigscratch *s = scratch ? scratch : &one;

	mod->sig_read = true; /* what there was to see was seen when the file was read */
	if (r->sigtail.n == 0)
		return 0;
	size_t size = (size_t)r->usize;
	if (s->size < size) {
		ksc_sigscratch_fini(s);
		size_t want = scratch ? (size + 0xfffff) & ~(size_t)0xfffff : size;
		void *p = mmap(NULL, want, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return -ENOMEM;
		s->buf = p;
		s->size = want;
	}
	unsigned char *img = s->buf + s->size - size;
	memcpy(img + size - r->sigtail.n, krec_arr(r, r->sigtail), r->sigtail.n);
	int ret = ksc_sig_capture(mod, img, size, false);
	if (!scratch)
		ksc_sigscratch_fini(&one);
	return ret;
}

int ksc_krec_to_module(struct ksc_ctx *ctx, const struct krec *r, const char *path,
		       bool copy, bool provider_only, struct ksc_sigscratch *scratch,
		       struct ksc_module **out)
{
	struct ksc_module *mod;
	int ret = -ENOMEM;

	*out = NULL;
	if (!(r->flags & KREC_F_ENGINE))
		return -ENOEXEC;
	mod = ksc_module_alloc(ctx);
	if (!mod)
		return -ENOMEM;

#define S(off)                                                                           \
	(copy && (off) != KREC_NONE ? pool_strdup(&mod->strings, krec_str(r, off))       \
				    : krec_str(r, off))
	mod->path = copy ? pool_strdup(&mod->strings, path) : path;
	mod->kind = r->kind;
	mod->compression = r->compression;
	mod->elf_class = (int)r->elf_class;
	mod->big_endian = r->flags & KREC_F_BIG_ENDIAN;
	mod->machine = r->machine;
	mod->size = (size_t)r->usize;
	mod->sig_size = (size_t)r->sig_size;
	mod->struct_name = S(r->struct_name);
	mod->kmod_name = S(r->kmod_name);
	mod->modpost_name = S(r->modpost_name);
	mod->symvers_owner = S(r->symvers_owner);
	if (!mod->path || !mod->kmod_name || !mod->modpost_name || !mod->symvers_owner ||
	    (r->struct_name != KREC_NONE && !mod->struct_name))
		goto err;
	mod->layout = r->layout;
	mod->has_kflagstab = r->flags & KREC_F_KFLAGSTAB;
	mod->has_versions = r->flags & KREC_F_VERSIONS;
	mod->has_ext_versions = r->flags & KREC_F_EXT_VERSIONS;

	const struct krec_pair *mi = krec_arr(r, r->modinfo);
	mod->modinfo = calloc(r->modinfo.n ? r->modinfo.n : 1, sizeof(*mod->modinfo));
	if (!mod->modinfo)
		goto err;
	for (size_t i = 0; i < r->modinfo.n; i++) {
		struct ksc_modinfo *m = &mod->modinfo[mod->n_modinfo++];
		m->key = S(mi[i].key);
		m->value = S(mi[i].value);
		if (!m->key || !m->value)
			goto err;
	}
	const struct krec_export *ex = krec_arr(r, r->exports);
	mod->exports = calloc(r->exports.n ? r->exports.n : 1, sizeof(*mod->exports));
	if (!mod->exports)
		goto err;
	for (size_t i = 0; i < r->exports.n; i++) {
		struct ksc_export *e = &mod->exports[mod->n_exports++];
		e->name = S(ex[i].name);
		e->ns = S(ex[i].ns);
		if (!e->name || !e->ns)
			goto err;
		e->gpl_only = ex[i].flags & KREC_EXP_GPL;
		e->has_crc = ex[i].flags & KREC_EXP_HAS_CRC;
		e->crc = ex[i].crc;
		if (!provider_only && hash_add(&mod->export_index, e->name, e, 1) < 0)
			goto err;
	}
	mod->sections = calloc(ksc_elf_section_count, sizeof(*mod->sections));
	if (!mod->sections)
		goto err;
	for (size_t i = 0; i < ksc_elf_section_count; i++)
		if (r->sections & (1u << i))
			mod->sections[mod->n_sections++] = ksc_elf_section_names[i];
	if (provider_only) {
		*out = mod;
		return 0;
	}
	ret = restore_signature(mod, r, scratch);
	if (ret < 0)
		goto err;
	ret = -ENOMEM;

	const struct krec_crc *v = krec_arr(r, r->versions);
	mod->versions = calloc(r->versions.n ? r->versions.n : 1, sizeof(*mod->versions));
	if (!mod->versions)
		goto err;
	for (size_t i = 0; i < r->versions.n; i++) {
		struct ksc_version *x = &mod->versions[mod->n_versions++];
		x->name = S(v[i].name);
		x->crc = (uint64_t)v[i].crc_hi << 32 | v[i].crc_lo;
		if (!x->name)
			goto err;
	}
	v = krec_arr(r, r->ext_versions);
	mod->ext_versions = calloc(r->ext_versions.n ? r->ext_versions.n : 1,
				   sizeof(*mod->ext_versions));
	if (!mod->ext_versions)
		goto err;
	for (size_t i = 0; i < r->ext_versions.n; i++) {
		struct ksc_version *x = &mod->ext_versions[mod->n_ext_versions++];
		x->name = S(v[i].name);
		x->crc = v[i].crc_lo;
		if (!x->name)
			goto err;
	}
	/*
	 * Imports: the CRC of the first __versions (and extended) entry of the same name, as
	 * the reader's parse_imports() finds it. Names are interned in the record: equal
	 * names have equal offsets.
	 */
	const uint32_t *im = krec_arr(r, r->imports);
	const struct krec_crc *vv = krec_arr(r, r->versions),
			      *ev = krec_arr(r, r->ext_versions);
	size_t cap = 16;
	while (cap < (r->versions.n + r->ext_versions.n) * 2)
		cap *= 2;
	uint32_t *tab =
		calloc(cap * 2, sizeof(*tab)); /* [0,cap): versions, [cap,2cap): ext */
	mod->imports = calloc(r->imports.n ? r->imports.n : 1, sizeof(*mod->imports));
	if (!tab || !mod->imports) {
		free(tab);
		goto err;
	}
	for (int t = 0; t < 2; t++) {
		const struct krec_crc *a = t ? ev : vv;
		size_t n = t ? r->ext_versions.n : r->versions.n;
		uint32_t *tb = tab + (size_t)t * cap;
		for (size_t i = 0; i < n; i++) {
			size_t j = (a[i].name * 2654435761u) & (cap - 1);
			while (tb[j] && a[tb[j] - 1].name != a[i].name)
				j = (j + 1) & (cap - 1);
			if (!tb[j])
				tb[j] = (uint32_t)i + 1;
		}
	}
	for (size_t i = 0; i < r->imports.n; i++) {
		struct ksc_import *x = &mod->imports[mod->n_imports++];
		uint32_t name = im[i] & ~KREC_IMP_WEAK;
		x->name = S(name);
		if (!x->name) {
			free(tab);
			goto err;
		}
		x->bind = im[i] & KREC_IMP_WEAK ? KSC_BIND_WEAK : KSC_BIND_GLOBAL;
		for (int t = 0; t < 2; t++) {
			const struct krec_crc *a = t ? ev : vv;
			uint32_t *tb = tab + (size_t)t * cap;
			size_t j = (name * 2654435761u) & (cap - 1);
			while (tb[j] && a[tb[j] - 1].name != name)
				j = (j + 1) & (cap - 1);
			if (!tb[j])
				continue;
			const struct krec_crc *c = &a[tb[j] - 1];
			if (t == 0) {
				x->has_crc = true;
				x->crc = c->crc_lo;
				x->crc_truncated = c->crc_hi != 0;
			} else {
				x->has_ext_crc = true;
				x->ext_crc = c->crc_lo;
			}
		}
	}
	free(tab);
#undef S
	*out = mod;
	return 0;
err:
	ksc_module_unref(mod);
	return ret;
}

/* ---------------------------------------------------------------------------------- */
/* Derived records                                                                    */

int ksc_kder_validate(const struct kder *d, size_t size, size_t n_modules)
{
	const size_t H = sizeof(struct kder);

	if (size < H || size % 8 || d->magic != KDER_MAGIC || d->size != size ||
	    (d->flags & ~KDER_F_ALL))
		return -EINVAL;
	if (!range_ok(d->strtab, 1, 1, H, size) || d->strtab.n == 0 ||
	    !range_ok(d->deps, 4, 4, H, size) ||
	    !range_ok(d->unres, sizeof(struct kder_unres), 4, H, size) ||
	    !range_ok(d->diags, sizeof(struct kder_diag), 4, H, size))
		return -EINVAL;
	const char *st = (const char *)d + d->strtab.off;
	uint32_t sn = d->strtab.n;
	if (st[0] != '\0' || st[sn - 1] != '\0')
		return -EINVAL;
	if (!(d->flags & KDER_F_CHECKED) &&
	    (d->diags.n || d->loader_err || (d->flags & KDER_F_MODPOST_OK)))
		return -EINVAL;
	if (!str_ok(d->loader_name, sn, true) || !str_ok(d->modpost_name, sn, true) ||
	    ((d->flags & KDER_F_CHECKED) &&
	     (d->loader_name == KREC_NONE || d->modpost_name == KREC_NONE)))
		return -EINVAL;
	if (d->loader_err > 0 || d->loader_err < -4095)
		return -EINVAL;
	const uint32_t *dp = kder_arr(d, d->deps);
	for (size_t i = 0; i < d->deps.n; i++)
		if (dp[i] >= n_modules)
			return -EINVAL;
	const struct kder_unres *u = kder_arr(d, d->unres);
	for (size_t i = 0; i < d->unres.n; i++)
		if (!str_ok(u[i].name, sn, false) ||
		    (u[i].kind != KDER_UNKNOWN_SYMBOL && u[i].kind != KDER_CRC_DIFFERS))
			return -EINVAL;
	const struct kder_diag *g = kder_arr(d, d->diags);
	for (size_t i = 0; i < d->diags.n; i++) {
		if ((g[i].view != KSC_VIEW_LOADER && g[i].view != KSC_VIEW_MODPOST) ||
		    g[i].severity > KSC_SEV_ERROR || g[i].err > 0 || g[i].err < -4095 ||
		    !str_ok(g[i].code, sn, false) || !str_ok(g[i].rule, sn, true) ||
		    !str_ok(g[i].module, sn, false) || !str_ok(g[i].symbol, sn, true) ||
		    !str_ok(g[i].ns, sn, true) || !str_ok(g[i].owner, sn, true) ||
		    !str_ok(g[i].summary, sn, true) ||
		    !str_ok(g[i].kernel_lines, sn, true) ||
		    !str_ok(g[i].explanation, sn, true) || !str_ok(g[i].fix, sn, true))
			return -EINVAL;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* The index file                                                                     */

#define KIDX_MAGIC "KSCTREE\n"
#define KIDX_VERSION 7u
#define KIDX_BYTE_ORDER 0x01020304u
#define KIDX_F_DERIVED 1u
#define KIDX_CHECKED_FROM 32 /* the hot checksum covers the file from here to cold_off */
#define KIDX_MAX_MODULES (1u << 24)
#define KIDX_MAX_OUTPUTS 64
#define KIDX_MAX_DIRS (1u << 22)

struct kidx_hdr {
	char magic[8];
	uint32_t version;
	uint32_t byte_order;
	uint64_t file_size;
	uint64_t checksum; /* of [KIDX_CHECKED_FROM, cold_off) */
	uint32_t n_modules;
	uint32_t flags;
	uint64_t ctx_fp, dm_world_fp, eng_world_fp, out_fp;
	uint64_t strings_off;
	uint32_t strings_size;
	uint32_t moddir, release,
		out_dir; /* header string offsets; KREC_NONE for out_dir */
	uint32_t n_outputs;
	uint32_t n_dirs;
	uint64_t dir_off, out_off, dirs_off, cold_off;
	uint64_t order_fp; /* modules.order's hash: with the same walk, the same order */
	uint64_t modset_fp; /* depmod.d's fingerprint: with the same files, the same winners */
};

struct kidx_dirent {
	uint64_t rec_off, rec_hash, der_off; /* der_off 0: none */
	uint32_t rec_size, der_size;
	uint32_t relpath, modname; /* header strings */
	uint32_t dir;              /* index in the folder list, or KREC_NONE */
	uint32_t replaced;         /* header string: the rival file it won over, or KREC_NONE */
	struct krec_sum sum;
};

struct kidx_out {
	uint32_t name, pad;
	uint64_t size, ino, content_hash;
	int64_t mtime_ns;
};

struct kidx_fdir {
	uint32_t relpath, pad; /* header string */
	uint64_t ino;
	int64_t mtime_ns;
};

void ksc_krec_sum(const struct krec *r, struct krec_sum *s)
{
	memset(s, 0, sizeof(*s));
	s->file_size = r->file_size;
	s->ino = r->ino;
	s->mtime_ns = r->mtime_ns;
	s->facts_hash = r->facts_hash;
	s->kexp_hash = r->kexp_hash;
	s->kmod_hash = r->kmod_hash;
	s->prov_hash = r->prov_hash;
	s->flags = r->flags;
	s->kind = r->kind;
	s->n_msgs = r->msgs.n;
	s->err = r->err;
}

void ksc_kidx_free(struct kidx *idx)
{
	if (idx->fd >= 0)
		close(idx->fd);
	if (idx->fetched)
		for (size_t i = 0; i < idx->n_mods; i++)
			free(idx->fetched[i]);
	free(idx->fetched);
	free(idx->cold);
	free(idx->buf);
	free(idx->mods);
	free(idx->outs);
	free(idx->dirs);
	memset(idx, 0, sizeof(*idx));
	idx->fd = -1;
}

static const char *hdr_str(const struct kidx_hdr *h, const char *base, uint32_t off)
{
	if (off == KREC_NONE || off >= h->strings_size)
		return NULL;
	return base + h->strings_off + off;
}

static bool sum_eq(const struct krec_sum *a, const struct krec_sum *b)
{
	return a->file_size == b->file_size && a->ino == b->ino &&
	       a->mtime_ns == b->mtime_ns && a->facts_hash == b->facts_hash &&
	       a->kexp_hash == b->kexp_hash && a->kmod_hash == b->kmod_hash &&
	       a->prov_hash == b->prov_hash && a->flags == b->flags &&
	       a->kind == b->kind && a->n_msgs == b->n_msgs && a->err == b->err;
}

/* A record's bytes, checked: checksum, bounds, and what the directory says of it. */
static int check_rec(const struct kidx_module *m, const void *p)
{
	const struct krec *r = p;
	struct krec_sum s;

	if (ksc_hash64(p, m->rec_size, KREC_HASH_SEED) != m->rec_hash ||
	    ksc_krec_validate(r, m->rec_size) < 0)
		return -EINVAL;
	ksc_krec_sum(r, &s);
	if (!sum_eq(&s, &m->sum) || strcmp(krec_str(r, r->relpath), m->relpath) != 0)
		return -EINVAL;
	return 0;
}

/* dir is KREC_NONE, or the folder in which relpath is (not below it). */
static bool dir_holds(const struct kidx *idx, uint32_t dir, const char *relpath)
{
	if (dir == KREC_NONE)
		return true;
	if (dir >= idx->n_dirs)
		return false;
	const char *d = idx->dirs[dir].relpath;
	size_t dl = strlen(d);
	if (dl && (strncmp(relpath, d, dl) != 0 || relpath[dl] != '/'))
		return false;
	return strchr(relpath + (dl ? dl + 1 : 0), '/') == NULL;
}

/*
 * The header and where its tables are: every count, offset and range checked, the header
 * strings too, but not the checksum (parse_rest()). Until then the index is only "shaped":
 * ksc_kidx_raw_dir() and ksc_kidx_raw_module() may read it, as garbage at worst.
 */
static int parse_shape(struct kidx *idx, uint64_t file_size)
{
	const unsigned char *p = idx->buf;
	size_t size = idx->size; /* the hot part, or the whole file */
	const struct kidx_hdr *h = idx->buf;

	if (size == 0)
		return -ENOENT;
	if (size < sizeof(*h) || memcmp(h->magic, KIDX_MAGIC, 8) != 0 ||
	    h->version != KIDX_VERSION || h->byte_order != KIDX_BYTE_ORDER ||
	    h->file_size != file_size)
		return -EINVAL;
	if (h->n_modules > KIDX_MAX_MODULES || h->n_outputs > KIDX_MAX_OUTPUTS ||
	    h->n_dirs > KIDX_MAX_DIRS || (h->flags & ~KIDX_F_DERIVED) ||
	    h->cold_off > size || h->cold_off % 8)
		return -EINVAL;
	uint64_t hot = h->cold_off;
	/*
	 * Header strings, directory and outputs: in the hot part, in this order, aligned.
	 */
	uint64_t dir_bytes = (uint64_t)h->n_modules * sizeof(struct kidx_dirent);
	uint64_t out_bytes = (uint64_t)h->n_outputs * sizeof(struct kidx_out);
	uint64_t dirs_bytes = (uint64_t)h->n_dirs * sizeof(struct kidx_fdir);
	if (h->strings_off != sizeof(*h) || h->strings_size == 0 ||
	    h->strings_size > hot - sizeof(*h) || h->dir_off % 8 ||
	    h->dir_off < h->strings_off + h->strings_size || h->dir_off > hot ||
	    dir_bytes > hot - h->dir_off || h->out_off != h->dir_off + dir_bytes ||
	    out_bytes > hot - h->out_off || h->dirs_off != h->out_off + out_bytes ||
	    dirs_bytes > hot - h->dirs_off)
		return -EINVAL;
	const char *strs = (const char *)p + h->strings_off;
	if (strs[h->strings_size - 1] != '\0')
		return -EINVAL;
	idx->moddir = hdr_str(h, (const char *)p, h->moddir);
	idx->release = hdr_str(h, (const char *)p, h->release);
	idx->out_dir =
		h->out_dir == KREC_NONE ? NULL : hdr_str(h, (const char *)p, h->out_dir);
	if (!idx->moddir || !idx->release || (h->out_dir != KREC_NONE && !idx->out_dir))
		return -EINVAL;
	idx->ctx_fp = h->ctx_fp;
	idx->dm_world_fp = h->dm_world_fp;
	idx->eng_world_fp = h->eng_world_fp;
	idx->out_fp = h->out_fp;
	idx->order_fp = h->order_fp;
	idx->modset_fp = h->modset_fp;
	idx->derived = h->flags & KIDX_F_DERIVED;
	idx->file_size = file_size;
	idx->cold_off = hot;
	idx->shaped = true;
	return 0;
}

/* The checksum, then every table and derived record (checked). */
static int parse_rest(struct kidx *idx)
{
	const unsigned char *p = idx->buf;
	const struct kidx_hdr *h = idx->buf;
	uint64_t hot = h->cold_off, file_size = idx->file_size;
	uint64_t meta_end = h->dirs_off + (uint64_t)h->n_dirs * sizeof(struct kidx_fdir);

	if (!idx->shaped)
		return -EINVAL;
	if (ksc_hash64(p + KIDX_CHECKED_FROM, (size_t)hot - KIDX_CHECKED_FROM,
		       KIDX_VERSION) != h->checksum)
		return -EINVAL;

	idx->n_outs = h->n_outputs;
	idx->outs = calloc(idx->n_outs ? idx->n_outs : 1, sizeof(*idx->outs));
	if (!idx->outs)
		return -ENOMEM;
	for (size_t i = 0; i < idx->n_outs; i++) {
		struct kidx_out o;
		memcpy(&o, p + h->out_off + i * sizeof(o), sizeof(o));
		idx->outs[i].name = hdr_str(h, (const char *)p, o.name);
		if (!idx->outs[i].name)
			return -EINVAL;
		idx->outs[i].size = o.size;
		idx->outs[i].ino = o.ino;
		idx->outs[i].content_hash = o.content_hash;
		idx->outs[i].mtime_ns = o.mtime_ns;
	}

	idx->n_dirs = h->n_dirs;
	idx->dirs = calloc(idx->n_dirs ? idx->n_dirs : 1, sizeof(*idx->dirs));
	if (!idx->dirs)
		return -ENOMEM;
	for (size_t i = 0; i < idx->n_dirs; i++) {
		struct kidx_fdir d;
		memcpy(&d, p + h->dirs_off + i * sizeof(d), sizeof(d));
		idx->dirs[i].relpath = hdr_str(h, (const char *)p, d.relpath);
		if (!idx->dirs[i].relpath)
			return -EINVAL;
		idx->dirs[i].ino = d.ino;
		idx->dirs[i].mtime_ns = d.mtime_ns;
	}

	idx->n_mods = h->n_modules;
	idx->mods = calloc(idx->n_mods ? idx->n_mods : 1, sizeof(*idx->mods));
	idx->fetched = calloc(idx->n_mods ? idx->n_mods : 1, sizeof(*idx->fetched));
	if (!idx->mods || !idx->fetched)
		return -ENOMEM;
	for (size_t i = 0; i < idx->n_mods; i++) {
		struct kidx_dirent de;
		struct kidx_module *m = &idx->mods[i];
		memcpy(&de, p + h->dir_off + i * sizeof(de), sizeof(de));
		/* The record: in the cold part (checked when fetched). */
		if (de.rec_off % 8 || de.rec_off < hot || de.rec_off > file_size ||
		    de.rec_size > file_size - de.rec_off ||
		    de.rec_size < sizeof(struct krec) || (de.sum.flags & ~KREC_F_ALL) ||
		    de.sum.kind > KSC_KIND_VMLINUX)
			return -EINVAL;
		m->relpath = hdr_str(h, (const char *)p, de.relpath);
		m->modname = hdr_str(h, (const char *)p, de.modname);
		if (!m->relpath || !*m->relpath || !m->modname || !*m->modname ||
		    !dir_holds(idx, de.dir, m->relpath))
			return -EINVAL;
		if (de.replaced != KREC_NONE) {
			m->replaced = hdr_str(h, (const char *)p, de.replaced);
			if (!m->replaced || !*m->replaced)
				return -EINVAL;
		}
		m->dir = de.dir;
		m->sum = de.sum;
		m->rec_off = de.rec_off;
		m->rec_size = de.rec_size;
		m->rec_hash = de.rec_hash;
		if (de.der_off == 0) {
			if (de.der_size)
				return -EINVAL;
			continue;
		}
		/* The derived record: in the hot part, checked now. */
		if (de.der_off % 8 || de.der_off < meta_end || de.der_off > hot ||
		    de.der_size > hot - de.der_off)
			return -EINVAL;
		/* its bytes are covered by the hot part's checksum, checked above */
		const struct kder *d = (const void *)(p + de.der_off);
		if (ksc_kder_validate(d, de.der_size, idx->n_mods) < 0)
			return -EINVAL;
		m->der = d;
	}
	idx->finished = true;
	return 0;
}

const char *ksc_kidx_raw_dir(const struct kidx *idx, size_t i, uint64_t *ino,
			     int64_t *mtime_ns)
{
	const struct kidx_hdr *h = idx->buf;
	struct kidx_fdir d;

	if (!idx->shaped || i >= h->n_dirs)
		return NULL;
	memcpy(&d, (const unsigned char *)idx->buf + h->dirs_off + i * sizeof(d), sizeof(d));
	*ino = d.ino;
	*mtime_ns = d.mtime_ns;
	return hdr_str(h, idx->buf, d.relpath);
}

const char *ksc_kidx_raw_module(const struct kidx *idx, size_t i, struct krec_sum *sum,
				uint32_t *dir)
{
	const struct kidx_hdr *h = idx->buf;
	struct kidx_dirent de;

	if (!idx->shaped || i >= h->n_modules)
		return NULL;
	memcpy(&de, (const unsigned char *)idx->buf + h->dir_off + i * sizeof(de), sizeof(de));
	*sum = de.sum;
	*dir = de.dir;
	return hdr_str(h, idx->buf, de.relpath);
}

size_t ksc_kidx_raw_count(const struct kidx *idx, size_t *n_dirs)
{
	const struct kidx_hdr *h = idx->buf;

	*n_dirs = idx->shaped ? h->n_dirs : 0;
	return idx->shaped ? h->n_modules : 0;
}

int ksc_kidx_finish(struct kidx *idx)
{
	return idx->finished ? 0 : parse_rest(idx);
}

/* After an open step that returned r: the rest checked too; freed on failure. */
static int open_and_finish(int r, struct kidx *idx)
{
	if (r == 0 && (r = ksc_kidx_finish(idx)) < 0)
		ksc_kidx_free(idx);
	return r;
}

int ksc_kidx_parse_open(const void *data, size_t size, struct kidx *out)
{
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (size == 0)
		return -ENOENT;
	out->buf = malloc(size);
	if (!out->buf)
		return -ENOMEM;
	memcpy(out->buf, data, size);
	out->size = size;
	int r = parse_shape(out, size);
	if (r < 0)
		ksc_kidx_free(out);
	return r;
}

int ksc_kidx_parse(const void *data, size_t size, struct kidx *out)
{
	return open_and_finish(ksc_kidx_parse_open(data, size, out), out);
}

static int pread_exact(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t k = pread(fd, p, len, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EINVAL; /* shorter than the header said */
		p += k;
		len -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

int ksc_kidx_open(const char *path, struct kidx *out)
{
	struct stat st;
	struct kidx_hdr h;
	int fd, r;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(h) ||
	    (uint64_t)st.st_size > ((uint64_t)1 << 32)) {
		close(fd);
		return -EINVAL;
	}
	/* The header says where the hot part ends; only that is read now. */
	r = pread_exact(fd, &h, sizeof(h), 0);
	if (r < 0 || h.cold_off < sizeof(h) || h.cold_off > (uint64_t)st.st_size) {
		close(fd);
		return r < 0 && r != -EINVAL ? r : -EINVAL;
	}
	/*
	 * Read, not mapped: a mapping faults (SIGBUS) when the file is cut short under it,
	 * as a cache cleaner or `: > FILE` may do during a run, and its pages not yet
	 * touched could change after they were checked. A copy is checked once and stays.
	 */
	out->buf = malloc((size_t)h.cold_off);
	if (!out->buf) {
		close(fd);
		return -ENOMEM;
	}
	r = pread_exact(fd, out->buf, (size_t)h.cold_off, 0);
	if (r < 0) {
		free(out->buf);
		out->buf = NULL;
		close(fd);
		return r;
	}
	out->size = (size_t)h.cold_off;
	out->fd = fd;
	r = parse_shape(out, (uint64_t)st.st_size);
	if (r == -ENOENT)
		r = -EINVAL;
	if (r < 0)
		ksc_kidx_free(out);
	return r;
}

int ksc_kidx_read(const char *path, struct kidx *out)
{
	return open_and_finish(ksc_kidx_open(path, out), out);
}

int ksc_kidx_fetch(struct kidx *idx, size_t i, const struct krec **out)
{
	struct kidx_module *m;
	int r;

	*out = NULL;
	if (i >= idx->n_mods)
		return -EINVAL;
	m = &idx->mods[i];
	if (m->rec) {
		*out = m->rec;
		return 0;
	}
	if (idx->fd < 0) { /* parsed from memory: the record is in the buffer */
		const unsigned char *p = (const unsigned char *)idx->buf + m->rec_off;
		if ((r = check_rec(m, p)) < 0)
			return r;
		m->rec = (const void *)p;
	} else {
		void *p = malloc(m->rec_size);
		if (!p)
			return -ENOMEM;
		r = pread_exact(idx->fd, p, m->rec_size, m->rec_off);
		if (r == 0)
			r = check_rec(m, p);
		if (r < 0) {
			free(p);
			return r;
		}
		idx->fetched[i] = p;
		m->rec = p;
	}
	*out = m->rec;
	return 0;
}

int ksc_kidx_fetch_all(struct kidx *idx)
{
	const struct krec *r;
	int ret = 0;

	if (idx->fd >= 0 && !idx->cold && idx->file_size > idx->cold_off) {
		size_t n = (size_t)(idx->file_size - idx->cold_off);
		idx->cold = malloc(n);
		if (!idx->cold)
			return -ENOMEM;
		ret = pread_exact(idx->fd, idx->cold, n, idx->cold_off);
		if (ret < 0)
			return ret;
	}
	for (size_t i = 0; i < idx->n_mods && ret == 0; i++) {
		struct kidx_module *m = &idx->mods[i];
		if (m->rec)
			continue;
		if (idx->cold) {
			const unsigned char *p = (const unsigned char *)idx->cold +
						 (m->rec_off - idx->cold_off);
			ret = check_rec(m, p);
			if (ret == 0)
				m->rec = (const void *)p;
		} else {
			ret = ksc_kidx_fetch(idx, i, &r);
		}
	}
	return ret;
}

void ksc_kidx_fix_checksums(void *data, size_t size)
{
	struct kidx_hdr h;
	unsigned char *p = data;

	if (size < sizeof(h))
		return;
	memcpy(&h, p, sizeof(h));
	for (uint64_t i = 0; i < h.n_modules && i < KIDX_MAX_MODULES; i++) {
		struct kidx_dirent de;
		uint64_t at = h.dir_off + i * sizeof(de);
		if (h.dir_off > size || at > size - sizeof(de))
			break;
		memcpy(&de, p + at, sizeof(de));
		if (de.rec_off <= size && de.rec_size <= size - de.rec_off) {
			de.rec_hash = ksc_hash64(p + de.rec_off, de.rec_size, KREC_HASH_SEED);
			if (de.rec_size >= sizeof(struct krec) && de.rec_off % 8 == 0 &&
			    (uintptr_t)(p + de.rec_off) % 8 == 0)
				ksc_krec_sum((const void *)(p + de.rec_off), &de.sum);
		}
		memcpy(p + at, &de, sizeof(de));
	}
	if (h.cold_off <= size && h.cold_off >= KIDX_CHECKED_FROM) {
		h.checksum =
			ksc_hash64(p + KIDX_CHECKED_FROM,
				   (size_t)h.cold_off - KIDX_CHECKED_FROM, KIDX_VERSION);
		memcpy(p + offsetof(struct kidx_hdr, checksum), &h.checksum,
		       sizeof(h.checksum));
	}
}

static int mkdir_p(const char *dir)
{
	char buf[PATH_MAX];

	if ((size_t)snprintf(buf, sizeof(buf), "%s", dir) >= sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

int ksc_kidx_write(const char *path, const struct kidx_write *w)
{
	struct kidx_hdr h;
	struct rbuf s; /* header strings */
	int ret = -ENOMEM;

	memset(&h, 0, sizeof(h));
	rbuf_init(&s);
	memcpy(h.magic, KIDX_MAGIC, 8);
	h.version = KIDX_VERSION;
	h.byte_order = KIDX_BYTE_ORDER;
	h.n_modules = (uint32_t)w->n_mods;
	h.flags = w->derived ? KIDX_F_DERIVED : 0;
	h.ctx_fp = w->ctx_fp;
	h.dm_world_fp = w->dm_world_fp;
	h.eng_world_fp = w->eng_world_fp;
	h.out_fp = w->out_fp;
	h.order_fp = w->order_fp;
	h.modset_fp = w->modset_fp;
	h.moddir = rbuf_cstr(&s, w->moddir);
	h.release = rbuf_cstr(&s, w->release);
	h.out_dir = w->out_dir ? rbuf_cstr(&s, w->out_dir) : KREC_NONE;
	h.n_outputs = (uint32_t)w->n_outs;
	h.n_dirs = (uint32_t)w->n_dirs;
	struct kidx_out *outs = calloc(w->n_outs ? w->n_outs : 1, sizeof(*outs));
	struct kidx_fdir *fdirs = calloc(w->n_dirs ? w->n_dirs : 1, sizeof(*fdirs));
	struct kidx_dirent *dir = calloc(w->n_mods ? w->n_mods : 1, sizeof(*dir));
	struct iovec *iov = malloc((w->n_mods * 2 + 4) * sizeof(*iov));
	unsigned char *m = NULL;
	if (!outs || !dir || !iov || !fdirs || w->n_mods > KIDX_MAX_MODULES ||
	    w->n_outs > KIDX_MAX_OUTPUTS || w->n_dirs > KIDX_MAX_DIRS)
		goto out;
	for (size_t i = 0; i < w->n_dirs; i++) {
		fdirs[i].relpath = rbuf_cstr(&s, w->dirs[i].relpath);
		fdirs[i].ino = w->dirs[i].ino;
		fdirs[i].mtime_ns = w->dirs[i].mtime_ns;
	}
	for (size_t i = 0; i < w->n_mods; i++) {
		const struct krec *r = w->mods[i].rec;
		dir[i].relpath = rbuf_cstr(&s, krec_str(r, r->relpath));
		dir[i].modname = rbuf_cstr(&s, w->mods[i].modname);
		dir[i].dir = w->mods[i].dir < w->n_dirs ? w->mods[i].dir : KREC_NONE;
		dir[i].replaced = w->mods[i].replaced ? rbuf_cstr(&s, w->mods[i].replaced)
						      : KREC_NONE;
	}
	for (size_t i = 0; i < w->n_outs; i++) {
		outs[i].name = rbuf_cstr(&s, w->outs[i].name);
		outs[i].size = w->outs[i].size;
		outs[i].ino = w->outs[i].ino;
		outs[i].content_hash = w->outs[i].content_hash;
		outs[i].mtime_ns = w->outs[i].mtime_ns;
	}
	if (s.oom)
		goto out;
	h.strings_off = sizeof(h);
	h.strings_size = (uint32_t)s.sn;
	h.dir_off = (h.strings_off + s.sn + 7) & ~(uint64_t)7;
	h.out_off = h.dir_off + w->n_mods * sizeof(*dir);
	h.dirs_off = h.out_off + w->n_outs * sizeof(*outs);
	size_t meta = (size_t)(h.dirs_off + w->n_dirs * sizeof(*fdirs));
	uint64_t at = (meta + 7) & ~(uint64_t)7;
	/* hot: the derived records; then cold: the facts records */
	for (size_t i = 0; i < w->n_mods; i++) {
		const struct kder *d = w->mods[i].der;
		if (d) {
			dir[i].der_off = at;
			dir[i].der_size = d->size;
			at += d->size;
		}
	}
	h.cold_off = at;
	for (size_t i = 0; i < w->n_mods; i++) {
		const struct krec *r = w->mods[i].rec;
		dir[i].rec_off = at;
		dir[i].rec_size = r->size;
		dir[i].rec_hash = w->mods[i].rec_hash ? w->mods[i].rec_hash
						      : ksc_hash64(r, r->size, KREC_HASH_SEED);
		ksc_krec_sum(r, &dir[i].sum);
		at += r->size;
	}
	h.file_size = at;

	m = calloc(1, meta);
	if (!m)
		goto out;
	memcpy(m + h.strings_off, s.s, s.sn);
	memcpy(m + h.dir_off, dir, w->n_mods * sizeof(*dir));
	memcpy(m + h.out_off, outs, w->n_outs * sizeof(*outs));
	memcpy(m + h.dirs_off, fdirs, w->n_dirs * sizeof(*fdirs));
	memcpy(m, &h, sizeof(h));
	/* the checksum of the hot part: the header from KIDX_CHECKED_FROM to cold_off */
	size_t pad_meta = (size_t)(((meta + 7) & ~(size_t)7) - meta);
	size_t hot_len = (size_t)h.cold_off - KIDX_CHECKED_FROM;
	unsigned char *hot = malloc(hot_len);
	if (!hot)
		goto out;
	size_t pos = 0;
	memcpy(hot, m + KIDX_CHECKED_FROM, meta - KIDX_CHECKED_FROM);
	pos = meta - KIDX_CHECKED_FROM;
	memset(hot + pos, 0, pad_meta);
	pos += pad_meta;
	for (size_t i = 0; i < w->n_mods; i++) {
		const struct kder *d = w->mods[i].der;
		if (d) {
			memcpy(hot + pos, d, d->size);
			pos += d->size;
		}
	}
	h.checksum = ksc_hash64(hot, hot_len, KIDX_VERSION);
	memcpy(m, &h, sizeof(h));

	size_t niov = 0;
	iov[niov++] = (struct iovec){ m, KIDX_CHECKED_FROM };
	iov[niov++] = (struct iovec){ hot, hot_len };
	for (size_t i = 0; i < w->n_mods; i++)
		iov[niov++] =
			(struct iovec){ (void *)w->mods[i].rec, w->mods[i].rec->size };

	/* The folder, then a temporary file next to the index, renamed over it. */
	char dirbuf[PATH_MAX];
	if ((size_t)snprintf(dirbuf, sizeof(dirbuf), "%s", path) >= sizeof(dirbuf)) {
		free(hot);
		ret = -ENAMETOOLONG;
		goto out;
	}
	char *slash = strrchr(dirbuf, '/');
	const char *name = path;
	if (slash) {
		name = path + (slash - dirbuf) + 1;
		if (slash == dirbuf)
			slash[1] = '\0';
		else
			*slash = '\0';
		ret = mkdir_p(dirbuf);
		if (ret < 0) {
			free(hot);
			goto out;
		}
	} else {
		strcpy(dirbuf, ".");
	}
	/*
	 * No fsync: the index is a cache whose every byte is checked when read; after a
	 * crash it is at worst rebuilt. The rename keeps readers from ever seeing half of it.
	 */
	ret = ksc_write_atomic_iov_par(dirbuf, name, iov, niov, false, w->parallel);
	free(hot);
out:
	free(m);
	rbuf_fini(&s);
	free(fdirs);
	free(outs);
	free(dir);
	free(iov);
	return ret;
}
