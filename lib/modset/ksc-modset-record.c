// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tree index's records: what was read from each module (a "facts record": built by
 * ksc_krec_build(), turned back into a struct ksc_module by ksc_krec_to_module()) and
 * what was worked out from the whole tree (a "derived record"), both checked field by
 * field before use (ksc_krec_validate(), ksc_kder_validate()). The index file that holds
 * them is ksc-modset-index.c.
 *
 * A record is position independent (offsets from its start, strings in its own string
 * table) and is both the in-memory form and the on-disk form: records built in this run
 * and records read from the index are used the same way, and a record that did not
 * change is written back byte for byte.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "modset/modset.h"
#include "util/array.h"

/* ---------------------------------------------------------------------------------- */
/* Facts records                                                                      */

static struct krange krec_kinfo_range(const struct krec *r);
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

/* How many strings a record of src interns at most: the table never grows meanwhile. */
static size_t count_strings(const struct krec_src *src)
{
	const struct ksc_module *mod = src->mod;
	const struct kview *kv = src->kv;
	size_t nstr =
		8 + src->n_msgs + (kv ? 2 * kv->n_info + kv->n_exports + kv->n_deps : 0);

	if (mod)
		nstr += 2 * ksc_module_get_modinfo_count(mod) +
			ksc_module_get_import_count(mod) +
			ksc_module_get_version_count(mod) +
			ksc_module_get_ext_version_count(mod) +
			2 * ksc_module_get_export_count(mod) + ksc_module_get_param_count(mod);
	return nstr;
}

/* What reading the module logged. */
static void put_messages(struct rbuf *b, struct krec *h, const struct krec_src *src)
{
	PUT_ARRAY(b, h->msgs, src->n_msgs, struct krec_msg);
	for (size_t i = 0; i < src->n_msgs && !b->oom; i++) {
		struct krec_msg m = { (uint32_t)src->msg_prio[i],
				      rbuf_cstr(b, src->msg_text[i]) };
		memcpy(b->p + h->msgs.off + i * sizeof(m), &m, sizeof(m));
	}
}

/* The library reader's facts of a module: its kind, layout, flags, sections and names. */
static void put_module_facts(struct rbuf *b, struct krec *h, const struct ksc_module *mod)
{
	h->flags |= KREC_F_ENGINE;
	h->kind = ksc_module_get_kind(mod);
	if (h->kind == KSC_KIND_VMLINUX)
		h->flags |= KREC_F_VMLINUX;
	h->compression = ksc_module_get_compression(mod);
	h->elf_class = (uint32_t)ksc_module_get_elf_class(mod);
	h->machine = ksc_module_get_machine(mod);
	h->layout = ksc_module_get_export_layout(mod);
	if (ksc_module_is_big_endian(mod))
		h->flags |= KREC_F_BIG_ENDIAN;
	if (ksc_module_has_versions(mod))
		h->flags |= KREC_F_VERSIONS;
	if (ksc_module_has_ext_versions(mod))
		h->flags |= KREC_F_EXT_VERSIONS;
	if (ksc_module_has_kflagstab(mod))
		h->flags |= KREC_F_KFLAGSTAB;
	h->sections |= ksc_module_section_bits(mod);
	h->struct_name = rbuf_cstr(b, ksc_module_get_struct_name(mod));
	h->kmod_name = rbuf_cstr(b, ksc_module_get_kmod_name(mod));
	h->modpost_name = rbuf_cstr(b, ksc_module_get_modpost_name(mod));
	h->symvers_owner = rbuf_cstr(b, ksc_module_get_symvers_owner(mod));
	h->usize = ksc_module_get_size(mod);
	h->sig_size = ksc_module_get_signature_size(mod);
}

/* The library reader's .modinfo and imports. */
static void put_modinfo_imports(struct rbuf *b, struct krec *h, const struct ksc_module *mod)
{
	size_t n = ksc_module_get_modinfo_count(mod);

	PUT_ARRAY(b, h->modinfo, n, struct krec_pair);
	for (size_t i = 0; i < n && !b->oom; i++) {
		const struct ksc_modinfo *m = ksc_module_get_modinfo(mod, i);
		struct krec_pair p = { rbuf_cstr(b, m->key), rbuf_cstr(b, m->value) };
		memcpy(b->p + h->modinfo.off + i * sizeof(p), &p, sizeof(p));
	}
	n = ksc_module_get_import_count(mod);
	PUT_ARRAY(b, h->imports, n, uint32_t);
	for (size_t i = 0; i < n && !b->oom; i++) {
		const struct ksc_import *im = ksc_module_get_import(mod, i);
		uint32_t v = rbuf_cstr(b, im->name);
		if (im->bind == KSC_BIND_WEAK)
			v |= KREC_IMP_WEAK;
		memcpy(b->p + h->imports.off + i * 4, &v, 4);
	}
}

/* The library reader's __versions, extended versions and exports (after the imports). */
static void put_versions_exports(struct rbuf *b, struct krec *h, const struct ksc_module *mod)
{
	size_t n = ksc_module_get_version_count(mod), n_imp = h->imports.n;

	PUT_ARRAY(b, h->versions, n, struct krec_crc);
	for (size_t i = 0; i < n && !b->oom; i++) {
		const struct ksc_version *v = ksc_module_get_version(mod, i);
		/*
		 * When entry i names import i (modpost's order survives linking for some), its
		 * string is interned already.
		 */
		uint32_t name;
		if (i < n_imp && strcmp(v->name, ksc_module_get_import(mod, i)->name) == 0) {
			memcpy(&name, b->p + h->imports.off + i * 4, 4);
			name &= ~KREC_IMP_WEAK;
		} else {
			name = rbuf_cstr(b, v->name);
		}
		struct krec_crc c = { name, (uint32_t)v->crc, (uint32_t)(v->crc >> 32) };
		memcpy(b->p + h->versions.off + i * sizeof(c), &c, sizeof(c));
	}
	n = ksc_module_get_ext_version_count(mod);
	PUT_ARRAY(b, h->ext_versions, n, struct krec_crc);
	for (size_t i = 0; i < n && !b->oom; i++) {
		const struct ksc_version *v = ksc_module_get_ext_version(mod, i);
		struct krec_crc c = { rbuf_cstr(b, v->name), (uint32_t)v->crc,
				      (uint32_t)(v->crc >> 32) };
		memcpy(b->p + h->ext_versions.off + i * sizeof(c), &c, sizeof(c));
	}
	n = ksc_module_get_export_count(mod);
	PUT_ARRAY(b, h->exports, n, struct krec_export);
	for (size_t i = 0; i < n && !b->oom; i++) {
		const struct ksc_export *e = ksc_module_get_export(mod, i);
		struct krec_export x = { rbuf_cstr(b, e->name), rbuf_cstr(b, e->ns), e->crc,
					 (e->gpl_only ? KREC_EXP_GPL : 0) |
						 (e->has_crc ? KREC_EXP_HAS_CRC : 0) };
		memcpy(b->p + h->exports.off + i * sizeof(x), &x, sizeof(x));
	}
}

/* __param: each parameter's name and mode (R42). */
static void put_params(struct rbuf *b, struct krec *h, const struct ksc_module *mod)
{
	size_t n = ksc_module_get_param_count(mod);

	PUT_ARRAY(b, h->params, n, struct krec_param);
	for (size_t i = 0; i < n && !b->oom; i++) {
		unsigned int perm;
		const char *name = ksc_module_get_param(mod, i, &perm);
		struct krec_param x = { rbuf_cstr(b, name), perm };
		memcpy(b->p + h->params.off + i * sizeof(x), &x, sizeof(x));
	}
}

/* kmod's exports, and its .modinfo when it differs from the library's. */
static void put_kexports_kinfo(struct rbuf *b, struct krec *h, const struct kview *kv,
			       const struct ksc_module *mod)
{
	PUT_ARRAY(b, h->kexports, kv->n_exports, struct krec_crc);
	for (size_t i = 0; i < kv->n_exports && !b->oom; i++) {
		const struct kv_export *e = &kv->exports[i];
		struct krec_crc c = { rbuf_str(b, e->name.p, e->name.n), (uint32_t)e->crc,
				      (uint32_t)(e->crc >> 32) };
		memcpy(b->p + h->kexports.off + i * sizeof(c), &c, sizeof(c));
	}
	if (mod && same_info(kv, mod))
		return;
	h->flags |= KREC_F_KINFO;
	PUT_ARRAY(b, h->kinfo, kv->n_info, struct krec_pair);
	for (size_t i = 0; i < kv->n_info && !b->oom; i++) {
		struct krec_pair p = { rbuf_str(b, kv->info[i].key.p, kv->info[i].key.n),
				       rbuf_str(b, kv->info[i].value.p, kv->info[i].value.n) };
		memcpy(b->p + h->kinfo.off + i * sizeof(p), &p, sizeof(p));
	}
}

/*
 * kmod's dependency symbols (kv->deps_ok), stored only when the library's imports and
 * __versions (already in b) do not give them.
 */
static void put_kdeps(struct rbuf *b, struct krec *h, const struct kview *kv,
		      const struct ksc_module *mod)
{
	size_t nd = kv->n_deps, ni = h->imports.n, nv = h->versions.n, k = 0;
	struct krec_kdep *x = malloc((nd + ni + nv ? nd + ni + nv : 1) * sizeof(*x) * 2);

	h->flags |= KREC_F_KDEPS;
	if (!x) {
		b->oom = 1;
		return;
	}
	for (size_t i = 0; i < nd && !b->oom; i++) {
		const struct kv_dep *d = &kv->deps[i];
		x[i] = (struct krec_kdep){ rbuf_str(b, d->name.p, d->name.n) |
						   (d->weak ? KREC_IMP_WEAK : 0),
					   (uint32_t)d->crc, (uint32_t)(d->crc >> 32) };
	}
	struct krec_kdep *y = x + nd + ni + nv;
	bool derived = mod && !b->oom &&
		       derive_kdeps((const uint32_t *)(b->p + h->imports.off), ni,
				    (const struct krec_crc *)(b->p + h->versions.off), nv, y,
				    &k) == 0 &&
		       k == nd && memcmp(x, y, nd * sizeof(*x)) == 0;
	if (derived) {
		h->flags |= KREC_F_KDEPS_DERIVED;
	} else {
		PUT_ARRAY(b, h->kdeps, nd, struct krec_kdep);
		if (!b->oom)
			memcpy(b->p + h->kdeps.off, x, nd * sizeof(*x));
	}
	free(x);
}

/* kmod's whole view: the exports, the dependency symbols, the modinfo (all interned). */
static uint64_t kmod_fingerprint(const struct krec *r, uint64_t kx)
{
	uint64_t km = hnum(
		kx, r->flags & (KREC_F_KDEPS | KREC_F_KDEPS_DERIVED | KREC_F_UNREADABLE));

	km = ksc_hash64(krec_arr(r, r->kdeps), (size_t)r->kdeps.n * sizeof(struct krec_kdep),
			km);
	if (r->flags & KREC_F_KDEPS_DERIVED) {
		km = ksc_hash64(krec_arr(r, r->imports), (size_t)r->imports.n * 4, km);
		km = ksc_hash64(krec_arr(r, r->versions),
				(size_t)r->versions.n * sizeof(struct krec_crc), km);
	}
	km = ksc_hash64(krec_arr(r, r->strtab), r->strtab.n, km);
	struct krange ki = krec_kinfo_range(r);
	return ksc_hash64(krec_arr(r, ki), (size_t)ki.n * sizeof(struct krec_pair), km);
}

/* As a provider (ksc_kernel_add_module): name, license, intree, vermagic, exports. */
static uint64_t provider_fingerprint(const struct krec *r)
{
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
	return pv;
}

/* Fingerprints of a finished record, over resolved strings: not over its layout. */
static void fingerprint(struct krec *r, size_t size)
{
	size_t skip = offsetof(struct krec, relpath);

	r->facts_hash = ksc_hash64((const char *)r + skip, size - skip, 1);
	uint64_t kx = 2;
	const struct krec_crc *kc = krec_arr(r, r->kexports);
	for (size_t i = 0; i < r->kexports.n; i++)
		kx = hnum(hstr(kx, krec_str(r, kc[i].name)),
			  (uint64_t)kc[i].crc_hi << 32 | kc[i].crc_lo);
	r->kexp_hash = kx = hnum(kx, r->flags & KREC_F_KELF);
	r->kmod_hash = kmod_fingerprint(r, kx);
	r->prov_hash = provider_fingerprint(r);
}

/* The digest of the signed bytes, computed while the image was in memory. */
static void put_digest(struct rbuf *b, struct krec *h, const struct ksc_sig_digest *d)
{
	struct krec_digest k = { 0 };

	if (!d || d->nid <= 0 || d->len == 0 || d->len > sizeof(k.md))
		return;
	k.nid = d->nid;
	k.len = d->len;
	memcpy(k.md, d->md, d->len);
	h->sigdigest.n = 1;
	h->sigdigest.off = (uint32_t)rbuf_put(b, sizeof(k), 4);
	if (!b->oom)
		memcpy(b->p + h->sigdigest.off, &k, sizeof(k));
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
	rbuf_reserve_strings(&b, count_strings(src));
	rbuf_put(&b, sizeof(struct krec), 8);
	h.magic = KREC_MAGIC;
	h.file_size = src->file_size;
	h.mtime_ns = src->mtime_ns;
	h.ino = src->ino;
	h.ctime_ns = src->ctime_ns;
	h.content_hash = src->content_hash;
	h.relpath = rbuf_cstr(&b, src->relpath);
	h.err = mod ? 0 : src->err;
	h.struct_name = h.kmod_name = h.modpost_name = h.symvers_owner = KREC_NONE;
	if (src->unreadable)
		h.flags |= KREC_F_UNREADABLE;
	put_messages(&b, &h, src);
	if (mod) {
		put_module_facts(&b, &h, mod);
		put_modinfo_imports(&b, &h, mod);
		put_versions_exports(&b, &h, mod);
		put_params(&b, &h, mod);
	}
	if (mod && src->sigtail_len) {
		h.sigtail.n = (uint32_t)src->sigtail_len;
		h.sigtail.off = (uint32_t)rbuf_put(&b, src->sigtail_len, 1);
		if (!b.oom)
			memcpy(b.p + h.sigtail.off, src->sigtail, src->sigtail_len);
		put_digest(&b, &h, src->sig_digest);
	}
	if (kv && kv->elf_ok) {
		h.flags |= KREC_F_KELF;
		put_kexports_kinfo(&b, &h, kv, mod);
		if (kv->deps_ok && kv->deps_derivable && mod)
			h.flags |= KREC_F_KDEPS | KREC_F_KDEPS_DERIVED;
		else if (kv->deps_ok)
			put_kdeps(&b, &h, kv, mod);
	}
	if (b.oom)
		goto out;
	memcpy(b.p, &h, sizeof(h));
	size_t size;
	struct krec *r = src->scratch ? rbuf_finish_copy(&b, offsetof(struct krec, strtab), &size)
				      : rbuf_finish(&b, offsetof(struct krec, strtab), &size);
	if (!r)
		goto out;
	fingerprint(r, size);
	*out = r;
	ret = 0;
out:
	if (src->scratch)
		*src->scratch = b; /* its memory, for the next record */
	else
		rbuf_fini(&b);
	return ret;
}

void ksc_krec_sum(const struct krec *r, struct krec_sum *s)
{
	memset(s, 0, sizeof(*s));
	s->file_size = r->file_size;
	s->ino = r->ino;
	s->mtime_ns = r->mtime_ns;
	s->ctime_ns = r->ctime_ns;
	s->content_hash = r->content_hash;
	s->facts_hash = r->facts_hash;
	s->kexp_hash = r->kexp_hash;
	s->kmod_hash = r->kmod_hash;
	s->prov_hash = r->prov_hash;
	s->flags = r->flags;
	s->kind = r->kind;
	s->n_msgs = r->msgs.n;
	s->err = r->err;
}

static struct krange krec_kinfo_range(const struct krec *r)
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

size_t ksc_krec_kinfo_count(const struct krec *r)
{
	return krec_kinfo_range(r).n;
}

const char *ksc_krec_kinfo(const struct krec *r, size_t i, const char **value)
{
	const struct krec_pair *p = krec_arr(r, krec_kinfo_range(r));

	*value = krec_str(r, p[i].value);
	return krec_str(r, p[i].key);
}

static bool kdeps_derived(const struct krec *r)
{
	return (r->flags & KREC_F_KDEPS) && (r->flags & KREC_F_KDEPS_DERIVED);
}

size_t ksc_krec_kdep_max(const struct krec *r)
{
	if (kdeps_derived(r))
		return (size_t)r->imports.n + r->versions.n;
	return r->flags & KREC_F_KDEPS ? r->kdeps.n : 0;
}

/* fn over n entries of d, names and CRCs resolved. */
static int each_kdep(const struct krec *r, const struct krec_kdep *d, size_t n,
		     ksc_kdep_fn fn, void *data)
{
	int e = 0;

	for (size_t i = 0; i < n && e >= 0; i++)
		e = fn(data, krec_str(r, d[i].name & ~KREC_IMP_WEAK),
		       (uint64_t)d[i].crc_hi << 32 | d[i].crc_lo,
		       (d[i].name & KREC_IMP_WEAK) != 0);
	return e;
}

int ksc_krec_each_kdep(const struct krec *r, ksc_kdep_fn fn, void *data)
{
	if (!kdeps_derived(r))
		return each_kdep(r, krec_arr(r, r->kdeps), ksc_krec_kdep_max(r), fn, data);
	size_t ni = r->imports.n, nv = r->versions.n, k;
	struct krec_kdep *d = malloc((ni + nv ? ni + nv : 1) * sizeof(*d));
	if (!d || derive_kdeps(krec_arr(r, r->imports), ni, krec_arr(r, r->versions), nv,
			       d, &k) < 0) {
		free(d);
		return -ENOMEM;
	}
	int e = each_kdep(r, d, k, fn, data);
	free(d);
	return e;
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
	int ret = ksc_sig_capture(mod, img, size, KSC_SIG_TAIL);
	if (ret == 0 && r->sigdigest.n) { /* verifying it reads nothing again */
		const struct krec_digest *k = krec_arr(r, r->sigdigest);
		struct ksc_sig_digest d = { .nid = k->nid, .len = k->len };
		memcpy(d.md, k->md, k->len);
		ksc_sig_set_digest(mod, &d);
	}
	if (!scratch)
		ksc_sigscratch_fini(&one);
	return ret;
}

/* The facts of the record's header, for ksc_module_new_from_facts(). */
static void record_facts(const struct krec *r, const char *path, bool copy, bool provider_only,
			 struct ksc_module_facts *f)
{
	*f = (struct ksc_module_facts){
		.path = path,
		.kind = r->kind,
		.compression = r->compression,
		.elf_class = (int)r->elf_class,
		.big_endian = r->flags & KREC_F_BIG_ENDIAN,
		.machine = r->machine,
		.size = (size_t)r->usize,
		.sig_size = (size_t)r->sig_size,
		.struct_name = krec_str(r, r->struct_name),
		.kmod_name = krec_str(r, r->kmod_name),
		.modpost_name = krec_str(r, r->modpost_name),
		.symvers_owner = krec_str(r, r->symvers_owner),
		.layout = r->layout,
		.has_kflagstab = r->flags & KREC_F_KFLAGSTAB,
		.has_versions = r->flags & KREC_F_VERSIONS,
		.has_ext_versions = r->flags & KREC_F_EXT_VERSIONS,
		.sections = r->sections,
		/* what there was to see was seen when the file was read */
		.sig_read = !provider_only,
		.copy = copy,
		.no_export_index = provider_only,
		.cap = {
			.modinfo = r->modinfo.n,
			.exports = r->exports.n,
			.versions = provider_only ? 0 : r->versions.n,
			.ext_versions = provider_only ? 0 : r->ext_versions.n,
			.imports = provider_only ? 0 : r->imports.n,
		},
	};
}

/* .modinfo and the exports. 0 or -ENOMEM. */
static int restore_provider(struct ksc_module *mod, const struct krec *r)
{
	const struct krec_pair *mi = krec_arr(r, r->modinfo);
	const struct krec_export *ex = krec_arr(r, r->exports);
	int ret = 0;

	for (size_t i = 0; i < r->modinfo.n && ret == 0; i++)
		ret = ksc_module_add_modinfo(mod, krec_str(r, mi[i].key), krec_str(r, mi[i].value));
	for (size_t i = 0; i < r->exports.n && ret == 0; i++) {
		struct ksc_export e = {
			.name = krec_str(r, ex[i].name),
			.ns = krec_str(r, ex[i].ns),
			.gpl_only = ex[i].flags & KREC_EXP_GPL,
			.has_crc = ex[i].flags & KREC_EXP_HAS_CRC,
			.crc = ex[i].crc,
		};
		ret = ksc_module_add_export(mod, &e);
	}
	return ret;
}

/* __versions and the extended versions. 0 or -ENOMEM. */
static int restore_versions(struct ksc_module *mod, const struct krec *r)
{
	const struct krec_crc *v = krec_arr(r, r->versions);
	int ret = 0;

	for (size_t i = 0; i < r->versions.n && ret == 0; i++)
		ret = ksc_module_add_version(mod, false, krec_str(r, v[i].name),
					     (uint64_t)v[i].crc_hi << 32 | v[i].crc_lo);
	v = krec_arr(r, r->ext_versions);
	for (size_t i = 0; i < r->ext_versions.n && ret == 0; i++)
		ret = ksc_module_add_version(mod, true, krec_str(r, v[i].name), v[i].crc_lo);
	return ret;
}

/* Slot of the first entry named `name` in an open-addressing table of `cap` slots. */
static size_t crc_slot(const uint32_t *tb, size_t cap, const struct krec_crc *a, uint32_t name)
{
	size_t j = (name * 2654435761u) & (cap - 1);

	while (tb[j] && a[tb[j] - 1].name != name)
		j = (j + 1) & (cap - 1);
	return j;
}

/* An import's CRCs: from the first __versions (t 0) and extended (t 1) entry of its name. */
static void import_crcs(struct ksc_import *x, uint32_t name, const uint32_t *tab, size_t cap,
			const struct krec_crc *vv, const struct krec_crc *ev)
{
	for (int t = 0; t < 2; t++) {
		const struct krec_crc *a = t ? ev : vv;
		const uint32_t *tb = tab + (size_t)t * cap;
		size_t j = crc_slot(tb, cap, a, name);
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

/*
 * Imports: the CRC of the first __versions (and extended) entry of the same name, as the
 * reader's parse_imports() finds it. Names are interned in the record: equal names have
 * equal offsets. 0 or -ENOMEM.
 */
static int restore_imports(struct ksc_module *mod, const struct krec *r)
{
	const uint32_t *im = krec_arr(r, r->imports);
	const struct krec_crc *vv = krec_arr(r, r->versions),
			      *ev = krec_arr(r, r->ext_versions);
	size_t cap = 16;
	int ret = -ENOMEM;

	while (cap < (r->versions.n + r->ext_versions.n) * 2)
		cap *= 2;
	uint32_t *tab = calloc(cap * 2, sizeof(*tab)); /* [0,cap): versions, [cap,2cap): ext */
	if (!tab)
		goto out;
	for (int t = 0; t < 2; t++) {
		const struct krec_crc *a = t ? ev : vv;
		size_t n = t ? r->ext_versions.n : r->versions.n;
		uint32_t *tb = tab + (size_t)t * cap;
		for (size_t i = 0; i < n; i++) {
			size_t j = crc_slot(tb, cap, a, a[i].name);
			if (!tb[j])
				tb[j] = (uint32_t)i + 1;
		}
	}
	for (size_t i = 0; i < r->imports.n; i++) {
		uint32_t name = im[i] & ~KREC_IMP_WEAK;
		struct ksc_import x = {
			.name = krec_str(r, name),
			.bind = im[i] & KREC_IMP_WEAK ? KSC_BIND_WEAK : KSC_BIND_GLOBAL,
		};
		import_crcs(&x, name, tab, cap, vv, ev);
		ret = ksc_module_add_import(mod, &x);
		if (ret < 0)
			goto out;
	}
	ret = 0;
out:
	free(tab);
	return ret;
}

/* __param's names and modes. 0 or -ENOMEM. */
static int restore_params(struct ksc_module *mod, const struct krec *r)
{
	const struct krec_param *x = krec_arr(r, r->params);
	struct ksc_param *p = calloc(r->params.n, sizeof(*p));
	int ret;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < r->params.n; i++)
		p[i] = (struct ksc_param){ krec_str(r, x[i].name), x[i].perm };
	ret = ksc_module_add_params(mod, p, r->params.n);
	free(p);
	return ret;
}

int ksc_krec_to_module(struct ksc_ctx *ctx, const struct krec *r, const char *path,
		       bool copy, bool provider_only, struct ksc_sigscratch *scratch,
		       struct ksc_module **out)
{
	struct ksc_module_facts f;
	struct ksc_module *mod;
	int ret;

	*out = NULL;
	if (!(r->flags & KREC_F_ENGINE))
		return -ENOEXEC;
	record_facts(r, path, copy, provider_only, &f);
	ret = ksc_module_new_from_facts(ctx, &f, &mod);
	if (ret < 0)
		return ret;
	ret = restore_provider(mod, r);
	if (ret == 0 && !provider_only) {
		ret = restore_signature(mod, r, scratch);
		if (ret == 0)
			ret = restore_versions(mod, r);
		if (ret == 0)
			ret = restore_imports(mod, r);
		if (ret == 0 && r->params.n)
			ret = restore_params(mod, r);
	}
	if (ret < 0) {
		ksc_module_unref(mod);
		return ret;
	}
	*out = mod;
	return 0;
}
