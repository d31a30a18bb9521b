// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The certificates that verify module signatures (ksc-sig.c judges the signatures):
 * those built into a kernel image (system_certificate_list, found in its data sections)
 * and keyrings made of certificate files and kernel images.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/stat.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "readers/ksc-crypto.h" /* after OpenSSL's headers */
#include "readers/readers.h"
#include "readers/ksc-sig.h"
#include "util/array.h"
#include "util/elfview.h"

/* ---------------------------------------------------------------------------------- */
/* Certificates in a kernel image                                                     */

void ksc_certlist_free(struct ksc_certlist *c)
{
	if (c) {
		free(c->der);
		free(c);
	}
}

static int certlist_add(struct ksc_certlist **list, const unsigned char *der, size_t len)
{
	struct ksc_certlist *c = *list;

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
		*list = c;
	}
	if (len > SIZE_MAX - c->size ||
	    array_reserve(c->der, c->cap, c->size + len, 4096) < 0)
		return -ENOMEM;
	memcpy(c->der + c->size, der, len);
	c->size += len;
	c->n++;
	return 0;
}

/*
 * The DER element at p[0..n): its tag is p[0], its content starts *hdr bytes in and ends
 * at *end (definite length, at most two length bytes). False when it does not fit.
 */
static bool der_element(const unsigned char *p, size_t n, unsigned char tag, size_t *hdr,
			size_t *end)
{
	size_t len;

	if (n < 2 || p[0] != tag)
		return false;
	if (p[1] < 0x80) {
		*hdr = 2, len = p[1];
	} else if (p[1] == 0x81 && n >= 3) {
		*hdr = 3, len = p[2];
	} else if (p[1] == 0x82 && n >= 4) {
		*hdr = 4, len = (size_t)p[2] << 8 | p[3];
	} else {
		return false;
	}
	if (len > n - *hdr)
		return false;
	*end = *hdr + len;
	return true;
}

/*
 * Whether p[0..len) has an X.509 certificate's outline (RFC 5280 4.1): a SEQUENCE of
 * exactly a tbsCertificate SEQUENCE that opens with its version ([0]) or serial number
 * (INTEGER), a signatureAlgorithm SEQUENCE and a signatureValue BIT STRING. A few byte
 * compares, where d2i_X509() costs microseconds and fills OpenSSL's error queue: an image
 * of nothing but "30 82" pairs would otherwise take a minute per 100 MiB.
 */
static bool cert_outline(const unsigned char *p, size_t len)
{
	size_t hdr, end, thdr, tend, ahdr, aend, bhdr, bend;

	if (!der_element(p, len, 0x30, &hdr, &end) || end != len || hdr != 4)
		return false;
	p += hdr, len -= hdr;
	if (!der_element(p, len, 0x30, &thdr, &tend) || thdr == 2 || tend - thdr < 2 ||
	    (p[thdr] != 0xa0 && p[thdr] != 0x02))
		return false;
	p += tend, len -= tend;
	if (!der_element(p, len, 0x30, &ahdr, &aend))
		return false;
	p += aend, len -= aend;
	return der_element(p, len, 0x03, &bhdr, &bend) && bend == len;
}

/*
 * At most this many d2i_X509() calls per scan that do not yield a certificate: only a
 * certificate's outline is tried (see cert_outline()), and a kernel's list holds a few.
 */
#define CERT_MISSES_MAX 4096

/*
 * DER certificates in p[0..n): a SEQUENCE with a two-byte length holding a SEQUENCE
 * (tbsCertificate) with a one- or two-byte length, that d2i_X509() reads whole.
 */
static int scan_certs(struct ksc_certlist **list, const unsigned char *p, size_t n,
		      unsigned int *misses)
{
	size_t i = 0;

	if (ksc_crypto_load() < 0)
		return 0; /* what is a certificate cannot be told */

	while (n >= 8 && i <= n - 8 && *misses < CERT_MISSES_MAX) {
		const unsigned char *q = memchr(p + i, 0x30, n - 7 - i);
		if (!q)
			break;
		i = (size_t)(q - p);
		if (q[1] == 0x82 && q[4] == 0x30 && (q[5] == 0x82 || q[5] == 0x81)) {
			size_t len = 4 + ((size_t)q[2] << 8 | q[3]);
			if (len <= n - i && cert_outline(q, len)) {
				const unsigned char *c = q;
				X509 *x = d2i_X509(NULL, &c, (long)len);
				bool whole = x && c == q + len;
				X509_free(x);
				ksc_openssl_quiet();
				if (whole) {
					int r = certlist_add(list, q, len);
					if (r < 0)
						return r;
					i += len;
					continue;
				}
				++*misses;
			}
		}
		i++;
	}
	return 0;
}

struct shdr {
	uint32_t name, type, link;
	uint64_t flags, offset, size;
};

/* Section header i, bounds-checked: the whole header lies inside the image. */
static bool read_shdr(const struct elfview *v, uint64_t i, struct shdr *s)
{
	uint64_t need = elfview_shdr_size(v), entsize = v->shentsize;
	if (entsize < need || i > (UINT64_MAX - v->shoff) / entsize)
		return false;
	uint64_t off = elfview_shdr_off(v, i);
	if (off > v->size || v->size - off < need)
		return false;
	s->name = (uint32_t)elfview_shdr(v, i, sh_name);
	s->type = (uint32_t)elfview_shdr(v, i, sh_type);
	s->flags = elfview_shdr(v, i, sh_flags);
	s->offset = elfview_shdr(v, i, sh_offset);
	s->size = elfview_shdr(v, i, sh_size);
	s->link = (uint32_t)elfview_shdr(v, i, sh_link);
	return true;
}

/*
 * The kernel's built-in keys: system_certificate_list in .init.rodata, which the linker
 * script puts into .init.data. A stripped image has no symbol for it, so scan the init
 * data sections, and only when they hold none every other allocated data section (a
 * kernel image that cannot be walked is scanned whole).
 */
int ksc_sig_scan_image(struct ksc_certlist **list, const unsigned char *img, size_t size)
{
	unsigned int misses = 0;

	if (size < 64 || memcmp(img, ELFMAG, SELFMAG) != 0 ||
	    (img[EI_CLASS] != ELFCLASS32 && img[EI_CLASS] != ELFCLASS64))
		return scan_certs(list, img, size, &misses);
	/* any EI_DATA but ELFDATA2MSB reads as little-endian */
	struct elfview v = { .m = img, .size = size, .c64 = img[EI_CLASS] == ELFCLASS64,
			     .msb = img[EI_DATA] == ELFDATA2MSB };
	elfview_read_header(&v);
	uint64_t shnum = v.shnum, shstrndx = v.shstrndx;
	struct shdr s0, strs;

	if (v.shoff == 0 || !read_shdr(&v, 0, &s0))
		return scan_certs(list, img, size, &misses);
	if (shnum == 0)
		shnum = s0.size; /* extended numbering */
	if (shstrndx == SHN_XINDEX)
		shstrndx = s0.link; /* the index is in section 0's sh_link */
	bool names = read_shdr(&v, shstrndx, &strs) && strs.offset <= size &&
		     strs.size <= size - strs.offset;
	for (int pass = 0; pass < 2; pass++) {
		for (uint64_t i = 1; i < shnum && i < 1u << 20; i++) {
			struct shdr s;
			if (!read_shdr(&v, i, &s))
				break;
			if (s.type != SHT_PROGBITS || !(s.flags & SHF_ALLOC) ||
			    (s.flags & SHF_EXECINSTR) || s.offset > size ||
			    s.size > size - s.offset)
				continue;
			bool init = false;
			if (names && s.name < strs.size) {
				const char *nm = (const char *)img + strs.offset + s.name;
				size_t max = strs.size - s.name;
				init = strnlen(nm, max) < max && (strcmp(nm, ".init.data") == 0 ||
								  strcmp(nm, ".init.rodata") == 0);
			}
			if (init != (pass == 0))
				continue;
			int r = scan_certs(list, img + s.offset, s.size, &misses);
			if (r < 0)
				return r;
		}
		if (*list && (*list)->n)
			break;
	}
	return 0;
}

KSC_EXPORT size_t ksc_module_get_certificate_count(const struct ksc_module *mod)
{
	const struct ksc_certlist *c = ksc_module_get_certlist(mod);

	return c ? c->n : 0;
}

/* ---------------------------------------------------------------------------------- */
/* Keyrings                                                                           */

KSC_EXPORT int ksc_keyring_new(struct ksc_ctx *ctx, struct ksc_keyring **out)
{
	struct ksc_keyring *kr;

	*out = NULL;
	if (!ctx)
		return -EINVAL;
	kr = calloc(1, sizeof(*kr));
	if (!kr)
		return -ENOMEM;
	kr->refcount = 1;
	kr->ctx = ksc_ref(ctx);
	pool_init(&kr->strings);
	pthread_mutex_init(&kr->lock, NULL);
	atomic_init(&kr->parsed, true);
	*out = kr;
	return 0;
}

KSC_DEFINE_REF(ksc_keyring_ref, struct ksc_keyring)

KSC_EXPORT struct ksc_keyring *ksc_keyring_unref(struct ksc_keyring *kr)
{
	if (!kr || --kr->refcount > 0)
		return NULL;
	for (size_t i = 0; i < kr->n; i++) {
		if (kr->keys[i].x509)
			X509_free(kr->keys[i].x509);
		free(kr->keys[i].der);
	}
	free(kr->keys);
	free(kr->memo_dir);
	pthread_mutex_destroy(&kr->lock);
	free(kr->keyless);
	pool_fini(&kr->strings);
	ksc_unref(kr->ctx);
	free(kr);
	return NULL;
}

/* The getters that list keys parse them first (the count leaves out DER that does not parse). */
KSC_EXPORT size_t ksc_keyring_get_count(const struct ksc_keyring *kr)
{
	if (!kr || ksc_keyring_parse(kr) < 0)
		return 0;
	return kr->n;
}

/* Without parsing: a kept DER counts (a kernel image's, checked when it was found). */
bool ksc_keyring_is_empty(const struct ksc_keyring *kr)
{
	return !kr || kr->n == 0;
}

KSC_EXPORT const struct ksc_key *ksc_keyring_get_key(const struct ksc_keyring *kr,
						    size_t i)
{
	if (!kr || ksc_keyring_parse(kr) < 0)
		return NULL;
	return i < kr->n ? &kr->keys[i].info : NULL;
}

/* "5E:E1:..." as kmod prints sig_key (no line breaks). */
static char *hex_colons(const unsigned char *p, size_t n)
{
	char *s = malloc(n ? n * 3 : 1), *o = s;

	if (!s)
		return NULL;
	*o = '\0';
	for (size_t i = 0; i < n; i++)
		o += sprintf(o, i + 1 < n ? "%02X:" : "%02X", p[i]);
	return s;
}

/* A name's commonName (UTF-8), else the whole name in OpenSSL's one-line form. */
static const char *name_text(struct pool *pool, const X509_NAME *name)
{
	int i = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
	const char *out = NULL;

	if (i >= 0) {
		const X509_NAME_ENTRY *e = X509_NAME_get_entry(name, i);
		unsigned char *u = NULL;
		int n = ASN1_STRING_to_UTF8(&u, X509_NAME_ENTRY_get_data(e));
		if (n >= 0) {
			const char *c = (const char *)u;
			out = pool_strndup(pool, c, strnlen(c, (size_t)n));
			OPENSSL_free(u);
			return out;
		}
	}
	char *line = X509_NAME_oneline(name, NULL, 0);
	if (!line)
		return NULL;
	out = pool_strdup(pool, line);
	OPENSSL_free(line);
	return out;
}

/* What the library says of the certificate `x` (strings in the keyring's pool). */
static int key_info(struct ksc_keyring *kr, X509 *x, const char *source, struct ksc_key *out)
{
	struct ksc_key info = { 0 };
	info.subject = name_text(&kr->strings, X509_get_subject_name(x));
	info.issuer = name_text(&kr->strings, X509_get_issuer_name(x));
	info.source = source;
	BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x), NULL);
	if (bn) {
		int n = BN_num_bytes(bn);
		unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
		char *hex = NULL;
		if (b) {
			BN_bn2bin(bn, b);
			hex = hex_colons(b, (size_t)n);
		}
		if (hex)
			info.serial = pool_strdup(&kr->strings, hex);
		free(hex);
		free(b);
		BN_free(bn);
	}
	EVP_PKEY *pk = X509_get0_pubkey(x);
	if (pk) {
		int id = EVP_PKEY_get_base_id(pk);
		const char *sn = id == EVP_PKEY_RSA ? "rsa" : id == EVP_PKEY_EC ? "ec" : OBJ_nid2sn(id);
		char lower[64];
		size_t j = 0;
		for (; sn && sn[j] && j < sizeof(lower) - 1; j++)
			lower[j] = (char)(sn[j] >= 'A' && sn[j] <= 'Z' ? sn[j] | 0x20 : sn[j]);
		lower[j] = '\0';
		info.key_algo = pool_strdup(&kr->strings, lower);
		int bits = EVP_PKEY_get_bits(pk);
		info.bits = bits > 0 ? (unsigned int)bits : 0;
	}
	ksc_openssl_quiet();
	if (!info.subject || !info.issuer || !info.serial || !info.key_algo)
		return -ENOMEM;
	*out = info;
	return 0;
}

/*
 * Add the certificate der[0..len) (copied), parsed as `x` (taken: freed on failure or
 * when already there) or, x NULL, kept to be parsed on first use. A certificate is there
 * already when its DER is. 1 added, 0 duplicate, -ENOMEM.
 */
static int keyring_put(struct ksc_keyring *kr, const unsigned char *der, size_t len, X509 *x,
		       const char *source)
{
	for (size_t i = 0; i < kr->n; i++) {
		if (kr->keys[i].der_len == len && memcmp(kr->keys[i].der, der, len) == 0) {
			if (x)
				X509_free(x);
			return 0;
		}
	}
	struct kkey k = { .x509 = x, .der = malloc(len ? len : 1), .der_len = len,
			  .src = pool_strdup(&kr->strings, source) };
	int r = k.der && k.src ? 0 : -ENOMEM;
	if (r == 0 && array_reserve(kr->keys, kr->cap, kr->n + 1, 8) < 0)
		r = -ENOMEM;
	if (r == 0 && x)
		r = key_info(kr, x, k.src, &k.info);
	if (r < 0) {
		free(k.der);
		if (x)
			X509_free(x);
		return r;
	}
	memcpy(k.der, der, len);
	if (!x)
		atomic_store(&kr->parsed, false);
	kr->keys[kr->n++] = k;
	return 1;
}

/* A certificate read from a file: its DER as OpenSSL encodes it, the parsed `x` taken. */
static int keyring_take(struct ksc_keyring *kr, X509 *x, const char *source)
{
	unsigned char *der = NULL;
	int len = i2d_X509(x, &der);

	if (len <= 0) {
		X509_free(x);
		ksc_openssl_quiet();
		return -ENOMEM;
	}
	int r = keyring_put(kr, der, (size_t)len, x, source);
	OPENSSL_free(der);
	return r;
}

int ksc_keyring_parse(const struct ksc_keyring *ckr)
{
	struct ksc_keyring *kr = (struct ksc_keyring *)ckr;
	int r = 0;

	if (!kr || atomic_load(&kr->parsed))
		return 0;
	if (ksc_crypto_load() < 0)
		return -ENOPKG;
	pthread_mutex_lock(&kr->lock);
	size_t out = 0;
	for (size_t i = 0; i < kr->n; i++) {
		struct kkey k = kr->keys[i];
		if (!k.x509 && r == 0) {
			const unsigned char *p = k.der;
			X509 *x = d2i_X509(NULL, &p, (long)k.der_len);
			if (x && p == k.der + k.der_len)
				r = key_info(kr, x, k.src, &k.info);
			if (!x || p != k.der + k.der_len || r < 0) {
				if (x)
					X509_free(x);
				x = NULL;
			}
			k.x509 = x;
			ksc_openssl_quiet();
		}
		if (!k.x509 && r == 0) {
			kr->n_dropped++; /* kept and later corrupted: left out */
			free(k.der);
			continue;
		}
		kr->keys[out++] = k;
	}
	kr->n = out;
	if (r == 0)
		atomic_store(&kr->parsed, true);
	pthread_mutex_unlock(&kr->lock);
	return r;
}

static bool looks_like_image(const unsigned char *p, size_t n)
{
	if (n >= 4 && memcmp(p, "\177ELF", 4) == 0)
		return true;
	if (n >= 0x206 && memcmp(p + 0x202, "HdrS", 4) == 0)
		return true;
	return ksc_detect_compression(p, n) != KSC_COMPRESSION_NONE;
}

/*
 * A kernel image's certificates, kept as DER to be parsed on first use: each found by
 * its outline (as the image's scan found it, which d2i_X509() read whole), the list
 * ending at the first that has none.
 */
static int add_certlist(struct ksc_keyring *kr, const struct ksc_certlist *c,
			const char *src)
{
	int added = 0;

	for (size_t off = 0; c && off < c->size;) {
		const unsigned char *p = c->der + off;
		size_t n = c->size - off, hdr, end;
		if (!der_element(p, n, 0x30, &hdr, &end) || !cert_outline(p, end))
			break;
		int r = keyring_put(kr, p, end, NULL, src);
		if (r < 0)
			return r;
		added += r;
		off += end;
	}
	return added;
}

/*
 * How many keys a kernel image gave the keyring; one that gave none is kept, to be said
 * once a signature is judged against the keyring (ksc_keyring_say_keyless()).
 */
static void image_keys_said(struct ksc_keyring *kr, const char *name, size_t n)
{
	ksc_info(kr->ctx, "%s: %zu built-in certificate%s", name, n, n == 1 ? "" : "s");
	for (size_t i = 0; n == 0 && i < kr->n_keyless; i++)
		if (strcmp(kr->keyless[i], name) == 0)
			return;
	const char *s = n == 0 ? pool_strdup(&kr->strings, name) : NULL;
	if (s)
		(void)array_push(kr->keyless, kr->n_keyless, kr->cap_keyless, s);
}

/*
 * A keyring asked for a kernel image's keys that got none would let every signature pass
 * as "signed by a key that is not among the trusted keys" with no word why: the first
 * time a signature is judged against it (from any thread), each such image is said, as
 * an error-priority message (the one a tool shows by default) though nothing failed.
 */
void ksc_keyring_say_keyless(const struct ksc_keyring *ckr)
{
	struct ksc_keyring *kr = (struct ksc_keyring *)ckr;

	if (!kr || !kr->n_keyless || atomic_exchange(&kr->keyless_said, true))
		return;
	for (size_t i = 0; i < kr->n_keyless; i++)
		ksc_err(kr->ctx, "%s: no built-in key found", kr->keyless[i]);
}

/*
 * Certificates of a file's bytes (see ksc_keyring_add_path). With image_der, a kernel
 * image's certificates are handed over too.
 */
static int add_bytes(struct ksc_keyring *kr, const char *name, const unsigned char *p,
		     size_t n, struct ksc_image_der *image_der)
{
	int added = 0, found = 0;

	if (ksc_crypto_load() < 0) {
		ksc_err(kr->ctx, "%s: %s", name, ksc_crypto_error());
		return -ENOPKG;
	}

	if (looks_like_image(p, n)) {
		struct ksc_certlist *certs = NULL;
		struct ksc_blob b;
		int r = ksc_blob_load(kr->ctx, name, p, n, &b);
		if (r < 0)
			return r;
		r = ksc_sig_scan_image(&certs, b.data, b.size);
		ksc_blob_free(&b);
		if (r >= 0)
			r = add_certlist(kr, certs, name);
		image_keys_said(kr, name, certs ? certs->n : 0);
		if (r >= 0 && image_der) {
			/* the caller keeps them (ksc-keycache.c) */
			image_der->n = certs ? certs->n : 0;
			image_der->size = certs ? certs->size : 0;
			image_der->der = certs ? certs->der : NULL;
			image_der->is_image = true;
			if (certs)
				certs->der = NULL;
		}
		ksc_certlist_free(certs);
		return r;
	}
	if (n <= INT_MAX && memmem(p, n, "-----BEGIN", 10)) {
		BIO *in = BIO_new_mem_buf(p, (int)n);
		X509 *x;
		if (!in)
			return -ENOMEM;
		while ((x = PEM_read_bio_X509(in, NULL, NULL, NULL))) {
			found++;
			int r = keyring_take(kr, x, name);
			if (r < 0) {
				BIO_free(in);
				return r;
			}
			added += r;
		}
		BIO_free(in);
	} else {
		for (const unsigned char *q = p; q < p + n;) {
			X509 *x = d2i_X509(NULL, &q, (long)(p + n - q));
			if (!x)
				break;
			found++;
			int r = keyring_take(kr, x, name);
			if (r < 0)
				return r;
			added += r;
		}
	}
	ksc_openssl_quiet();
	if (!found) {
		ksc_err(kr->ctx, "%s: no X.509 certificate in it (PEM or DER expected)", name);
		return -EINVAL;
	}
	return added;
}

KSC_EXPORT int ksc_keyring_add_memory(struct ksc_keyring *kr, const char *name,
				      const void *data, size_t size)
{
	if (!kr || (!data && size))
		return -EINVAL;
	return add_bytes(kr, name ? name : "<memory>", data, size, NULL);
}

KSC_EXPORT int ksc_keyring_add_path(struct ksc_keyring *kr, const char *path)
{
	char *data;
	size_t size;
	int r;

	if (!kr || !path)
		return -EINVAL;
	/* Read as is: a kernel image is recognised (and decompressed) by add_bytes(). */
	r = ksc_read_text_file(kr->ctx, path, &data, &size);
	if (r < 0)
		return r;
	r = add_bytes(kr, path, (const unsigned char *)data, size, NULL);
	free(data);
	return r;
}

int ksc_keyring_set_memo(struct ksc_keyring *kr, const char *dir)
{
	char *d = dir ? strdup(dir) : NULL;

	if (dir && !d)
		return -ENOMEM;
	free(kr->memo_dir);
	kr->memo_dir = d;
	return 0;
}

struct ksc_ctx *ksc_keyring_ctx(const struct ksc_keyring *kr)
{
	return kr->ctx;
}

int ksc_keyring_add_image_path(struct ksc_keyring *kr, const char *path,
			       struct ksc_image_der *der)
{
	char *data;
	size_t size;
	int r;

	*der = (struct ksc_image_der){ 0 };
	r = ksc_read_text_file(kr->ctx, path, &data, &size);
	if (r < 0)
		return r;
	r = add_bytes(kr, path, (const unsigned char *)data, size, der);
	free(data);
	return r;
}

int ksc_keyring_add_image_der(struct ksc_keyring *kr, const char *name,
			      const struct ksc_image_der *der)
{
	struct ksc_certlist c = { der->n, der->size, der->size, (unsigned char *)der->der };
	int r = add_certlist(kr, &c, name);

	image_keys_said(kr, name, der->n);
	return r;
}

KSC_EXPORT int ksc_keyring_new_from_path(struct ksc_ctx *ctx, const char *path,
					 struct ksc_keyring **out)
{
	int r = ksc_keyring_new(ctx, out);

	if (r < 0)
		return r;
	r = ksc_keyring_add_path(*out, path);
	if (r < 0) {
		*out = ksc_keyring_unref(*out);
		return r;
	}
	if (r == 0 && ksc_keyring_get_count(*out) == 0) {
		ksc_err(ctx, "%s: no certificate found", path);
		*out = ksc_keyring_unref(*out);
		return -EINVAL;
	}
	return 0;
}

KSC_EXPORT int ksc_keyring_add_vmlinux(struct ksc_keyring *kr,
				       const struct ksc_module *vmlinux)
{
	if (!kr || !vmlinux || ksc_module_get_kind(vmlinux) != KSC_KIND_VMLINUX)
		return -EINVAL;
	const struct ksc_certlist *c = ksc_module_get_certlist(vmlinux);
	const char *path = ksc_module_get_path(vmlinux);
	image_keys_said(kr, path, c ? c->n : 0);
	return add_certlist(kr, c, path);
}

