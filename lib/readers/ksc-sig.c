// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Module signatures: the block scripts/sign-file appends to a module, what kmod's modinfo
 * shows of it, the certificates that verify it (certificate files, or the built-in keys
 * of a kernel image) and the verification the kernel does when the module is loaded.
 *
 * Layout (scripts/sign-file.c, include/linux/module_signature.h):
 *   [ module ][ signer ][ key id ][ signature ][ struct module_signature ][ marker ]
 * struct module_signature is 12 bytes: algo, hash, id_type, signer_len, key_id_len, three
 * pad bytes and the big-endian sig_len; the marker is "~Module signature appended~\n".
 * Since 4.3 id_type is 2 (PKEY_ID_PKCS7): the signature is a DER PKCS#7/CMS SignedData
 * with detached content and every other field is 0. Before that (id_type 0 "PGP", 1
 * "X509") the signer's name and key id were raw bytes, and kmod still shows them.
 *
 * What the kernel checks (6.1: kernel/module/signing.c module_sig_check() and
 * mod_verify_sig(), kernel/module_signature.c mod_check_sig(), certs/system_keyring.c
 * verify_pkcs7_message_sig(), crypto/asymmetric_keys/pkcs7_{parser,verify,trust}.c):
 *  1. the marker at the very end; without it -ENODATA (unsigned);
 *  2. sig_len must leave at least one byte of module: else -EBADMSG (no message);
 *  3. id_type 2, else -ENOPKG "module: not signed with expected PKCS#7 message"; every
 *     other field 0, else -EBADMSG "module: PKCS#7 signature info has unexpected non-zero
 *     params";
 *  4. the PKCS#7 is parsed by the kernel's ASN.1 decoder (at most 65535 bytes, else
 *     -EMSGSIZE; malformed: -EBADMSG; a digest or public-key algorithm it does not know:
 *     -ENOPKG); it must be SignedData ("Only support pkcs7_signedData type", -EINVAL),
 *     with detached content ("PKCS#7 signature with non-detached data", -EBADMSG), of type
 *     data and without authenticated attributes (-EKEYREJECTED, "Invalid module sig (not
 *     pkcs7-data)" / "(has authattrs)");
 *  5. the module's bytes before the block are hashed with each SignerInfo's digest
 *     algorithm; a SignerInfo whose certificate travels in the PKCS#7 is first verified
 *     against that certificate;
 *  6. trust (pkcs7_validate_trust()): a key of the secondary (builtin + secondary) keyring,
 *     then of the platform keyring, whose id equals the SignerInfo's issuer + serial
 *     number (or its subjectKeyIdentifier) must verify the signature over that digest: a
 *     matching key that does not verify gives -EKEYREJECTED, no matching key -ENOKEY;
 *  7. a valid module whose sha256 is on the blacklist gives -EKEYREJECTED.
 * module_sig_check() then lets -ENODATA, -ENOPKG and -ENOKEY through (the module taints
 * the kernel E) unless signatures are enforced; every other error fails the load.
 *
 * What we check: 1-4 and 6 as above, with OpenSSL's CMS decoder in place of the kernel's
 * (the same grammar: only odd BER encodings could be judged differently), and 6 by
 * verifying each SignerInfo's signature over the digest of the module's bytes with the
 * public key of every keyring certificate CMS_SignerInfo_cert_cmp() matches (issuer and
 * serial number, or subject key identifier: the kernel's auth_ids). Not modelled:
 * certificates carried inside the PKCS#7 and chains through them (sign-file writes none,
 * CMS_NOCERTS), so a module signed by a key only such a chain vouches for reads as
 * -ENOKEY; the blacklist (7); the kernel's message for an unknown algorithm (it prints the
 * number of the OID in its own table). PKCS7_verify()/CMS_verify() are not used because
 * they need the module's bytes, which a module object does not keep: we keep the digest.
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

#define SIG_MARKER "~Module signature appended~\n"
#define MARKER_LEN (sizeof(SIG_MARKER) - 1)
#define INFO_LEN SIG_INFO_LEN  /* struct module_signature */
#define PKEY_ID_PKCS7 2
#define KERNEL_ASN1_MAX 65535  /* lib/asn1_decoder.c refuses longer input: -EMSGSIZE */
#define KEEP_MAX ((size_t)1 << 20) /* signature bytes kept per module, at most */

/* ---------------------------------------------------------------------------------- */
/* The block as kept by a module                                                      */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t trail_sig_len(const struct ksc_sigtrail *t)
{
	return be32(t->info + 8);
}

/* The PKCS#7 (or legacy signature) bytes, when kept whole. */
static bool trail_sig(const struct ksc_sigtrail *t, const unsigned char **p, size_t *n)
{
	uint32_t len = trail_sig_len(t);

	if (!t->has_info || len > t->n_kept)
		return false;
	*p = t->kept + t->n_kept - len;
	*n = len;
	return true;
}

static int compute_digest(struct ksc_sigtrail *t, int nid, const unsigned char *img,
			  size_t size);
static int first_digest_nid(const struct ksc_sigtrail *t);

/* The signature block at the end of img, kept in *out (NULL: no marker). 0 or -ENOMEM. */
static int capture_trail(const unsigned char *img, size_t size, enum ksc_sig_from how,
			 struct ksc_sigtrail **out)
{
	*out = NULL;
	if (size < MARKER_LEN || memcmp(img + size - MARKER_LEN, SIG_MARKER, MARKER_LEN) != 0)
		return 0;

	size_t before = size - MARKER_LEN, keep = 0;
	bool has_info = before >= INFO_LEN;
	if (has_info) {
		const unsigned char *info = img + before - INFO_LEN;
		size_t avail = before - INFO_LEN;
		size_t sig_len = be32(info + 8);
		/* kmod's legacy formats keep the signer and key id before the signature */
		size_t want = sig_len + info[3] + info[4];
		if (sig_len <= avail && sig_len <= KEEP_MAX)
			keep = want < avail ? want : avail;
	}
	struct ksc_sigtrail *t = calloc(1, sizeof(*t) + keep);
	if (!t)
		return -ENOMEM;
	t->file_size = size;
	t->has_info = has_info;
	t->from_memory = how == KSC_SIG_MEMORY;
	if (has_info)
		memcpy(t->info, img + before - INFO_LEN, INFO_LEN);
	t->n_kept = keep;
	memcpy(t->kept, img + before - INFO_LEN - keep, keep);
	*out = t;
	/*
	 * The bytes are in memory now (and gone after this): hash them for the first signer's
	 * algorithm, so that verifying judges the bytes read and reads nothing again (a file's
	 * other signers' algorithms, rare, read it again).
	 */
	if (how != KSC_SIG_TAIL && ksc_crypto_load() == 0) {
		int nid = first_digest_nid(t);
		if (nid != NID_undef && compute_digest(t, nid, img, size) == -ENOMEM)
			return -ENOMEM;
	}
	return 0;
}

static void trail_free(struct ksc_sigtrail *t)
{
	if (t) {
		free(t->display_buf);
		free(t);
	}
}

int ksc_sig_capture(struct ksc_module *mod, const unsigned char *img, size_t size,
		    enum ksc_sig_from how)
{
	struct ksc_module_facts f = *ksc_module_get_facts(mod);
	int r;

	f.sig_read = true;
	ksc_module_set_facts(mod, &f);
	if (f.kind == KSC_KIND_VMLINUX) {
		struct ksc_certlist *c = ksc_module_get_certlist(mod);
		r = ksc_sig_scan_image(&c, img, size);
		ksc_module_set_certlist(mod, c);
		return r;
	}
	struct ksc_sigtrail *t;
	r = capture_trail(img, size, how, &t);
	if (t)
		ksc_module_set_sigtrail(mod, t);
	return r;
}

void ksc_sig_free(struct ksc_module *mod)
{
	trail_free(ksc_module_get_sigtrail(mod));
	ksc_module_set_sigtrail(mod, NULL);
	ksc_certlist_free(ksc_module_get_certlist(mod));
	ksc_module_set_certlist(mod, NULL);
}

/*
 * The file of `mod` read once more, with the limits it was first read with: a module's
 * (never a kernel image's 2 GiB, nor its bzImage payload), a kernel image's for vmlinux.
 */
static int reload(const struct ksc_module *mod, struct ksc_blob *b)
{
	const struct ksc_module_facts *f = ksc_module_get_facts(mod);
	enum ksc_read_as as = f->kind == KSC_KIND_VMLINUX ? KSC_READ_IMAGE : KSC_READ_MODULE;

	return ksc_blob_load_as(ksc_module_get_ctx(mod), f->path, NULL, 0, as, b);
}

/*
 * The block of a module that was not read by the reader (rebuilt from an index): read the
 * file once more to find it.
 */
static struct ksc_sigtrail *trail_of(const struct ksc_module *cmod)
{
	struct ksc_module *mod = (struct ksc_module *)cmod;
	struct ksc_module_facts f = *ksc_module_get_facts(mod);
	struct ksc_blob b;

	if (f.sig_read || f.sig_size == 0 || !f.path)
		return ksc_module_get_sigtrail(mod);
	f.sig_read = true;
	ksc_module_set_facts(mod, &f);
	if (reload(mod, &b) < 0)
		return NULL;
	if (ksc_sig_capture(mod, b.data, b.size, KSC_SIG_FILE) < 0)
		ksc_err(ksc_module_get_ctx(mod), "%s: out of memory", f.path);
	ksc_blob_free(&b);
	return ksc_module_get_sigtrail(mod);
}

/* ---------------------------------------------------------------------------------- */
/* kmod's view (libkmod/libkmod-signature.c, kmod 30)                                 */

static const char *const id_type_names[] = { "PGP", "X509", "PKCS#7" };
static const char *const hash_names[] = { "md4", "md5", "sha1", "rmd160", "sha256",
					  "sha384", "sha512", "sha224", "sm3" };

static const char *hash_name_of_nid(int nid)
{
	switch (nid) {
	case NID_md4: return "md4";
	case NID_md5: return "md5";
	case NID_sha1: return "sha1";
	case NID_ripemd160: return "rmd160";
	case NID_sha256: return "sha256";
	case NID_sha384: return "sha384";
	case NID_sha512: return "sha512";
	case NID_sha224: return "sha224";
	case NID_sm3: return "sm3";
	}
	return NULL;
}

/*
 * The signer kmod names: the first commonName of the issuer; when the name has entries
 * but no commonName, kmod's loop ends on the last entry and takes its value; with no
 * entries, none. The value is its raw bytes up to the first NUL.
 */
static const unsigned char *kmod_signer(const X509_NAME *name)
{
	int n = X509_NAME_entry_count(name);
	const X509_NAME_ENTRY *e = NULL;

	for (int i = 0; i < n; i++) {
		e = X509_NAME_get_entry(name, i);
		if (OBJ_obj2nid(X509_NAME_ENTRY_get_object(e)) == NID_commonName)
			break;
	}
	if (!e)
		return NULL;
	return ASN1_STRING_get0_data(X509_NAME_ENTRY_get_data(e));
}

/* Fill t->display from bytes (copied into one buffer). */
static int display_set(struct ksc_sigtrail *t, const char *id_type, const char *hash,
		       const unsigned char *signer, size_t signer_len,
		       const unsigned char *key_id, size_t key_id_len,
		       const unsigned char *sig, size_t sig_len)
{
	unsigned char *buf = malloc(signer_len + 1 + key_id_len + sig_len + 1);

	if (!buf)
		return -ENOMEM;
	memcpy(buf, signer, signer_len);
	buf[signer_len] = '\0';
	memcpy(buf + signer_len + 1, key_id, key_id_len);
	memcpy(buf + signer_len + 1 + key_id_len, sig, sig_len);
	t->display_buf = buf;
	t->display = (struct ksc_signature_info){
		.id_type = id_type,
		.signer = (const char *)buf,
		.key_id = buf + signer_len + 1,
		.key_id_len = key_id_len,
		.hash_algo = hash,
		.sig = buf + signer_len + 1 + key_id_len,
		.sig_len = sig_len,
		.block_size = MARKER_LEN + INFO_LEN + t->n_kept,
	};
	return 0;
}

static int display_pkcs7(struct ksc_sigtrail *t, const unsigned char *raw, size_t len)
{
	if (ksc_crypto_load() < 0)
		return -ENOPKG;

	BIO *in = BIO_new_mem_buf(raw, (int)len);
	PKCS7 *p7;
	BIGNUM *bn = NULL;
	unsigned char *serial = NULL;
	int ret = -EBADMSG;

	if (!in)
		return -ENOMEM;
	p7 = d2i_PKCS7_bio(in, NULL);
	BIO_free(in);
	if (!p7)
		goto out;
	STACK_OF(PKCS7_SIGNER_INFO) *sis = PKCS7_get_signer_info(p7);
	PKCS7_SIGNER_INFO *si = sis ? sk_PKCS7_SIGNER_INFO_value(sis, 0) : NULL;
	if (!si || !si->issuer_and_serial || !si->enc_digest)
		goto out;
	X509_ALGOR *dig = NULL;
	const ASN1_OBJECT *obj = NULL;
	PKCS7_SIGNER_INFO_get0_algs(si, NULL, &dig, NULL);
	if (dig)
		X509_ALGOR_get0(&obj, NULL, NULL, dig);
	bn = ASN1_INTEGER_to_BN(si->issuer_and_serial->serial, NULL);
	if (!bn)
		goto out;
	int n = BN_num_bytes(bn);
	serial = malloc(n > 0 ? (size_t)n : 1);
	if (!serial) {
		ret = -ENOMEM;
		goto out;
	}
	BN_bn2bin(bn, serial);
	const unsigned char *signer = kmod_signer(si->issuer_and_serial->issuer);
	const char *hash = obj ? hash_name_of_nid(OBJ_obj2nid(obj)) : NULL;
	ret = display_set(t, "PKCS#7", hash ? hash : "unknown", signer ? signer : (const unsigned char *)"",
			  signer ? strlen((const char *)signer) : 0, serial, (size_t)n,
			  ASN1_STRING_get0_data(si->enc_digest),
			  (size_t)ASN1_STRING_length(si->enc_digest));
out:
	free(serial);
	BN_free(bn);
	PKCS7_free(p7);
	ksc_openssl_quiet();
	return ret;
}

static int display_parse(struct ksc_sigtrail *t)
{
	if (!t->has_info)
		return -EBADMSG;
	const unsigned char *info = t->info;
	size_t sig_len = trail_sig_len(t), signer_len = info[3], key_id_len = info[4];
	uint64_t size = t->file_size - MARKER_LEN - INFO_LEN;

	/* kmod_module_signature_info(): the enums in range, a signature that fits */
	if (info[0] >= 2 || info[1] >= ARRAY_SIZE(hash_names) ||
	    info[2] >= ARRAY_SIZE(id_type_names))
		return -EBADMSG;
	if (sig_len == 0 || size < (uint64_t)signer_len + key_id_len + sig_len)
		return -EBADMSG;
	if (t->n_kept < sig_len + signer_len + key_id_len)
		return -EBADMSG; /* longer than we keep (KEEP_MAX) */
	const unsigned char *sig = t->kept + t->n_kept - sig_len;
	if (info[2] == PKEY_ID_PKCS7)
		return display_pkcs7(t, sig, sig_len);
	/* fill_default(): the raw bytes before the signature */
	const unsigned char *key_id = sig - key_id_len, *signer = key_id - signer_len;
	return display_set(t, id_type_names[info[2]], hash_names[info[1]], signer, signer_len,
			   key_id, key_id_len, sig, sig_len);
}

KSC_EXPORT int ksc_module_get_signature(const struct ksc_module *mod,
					struct ksc_signature_info *out)
{
	struct ksc_sigtrail *t = trail_of(mod);

	memset(out, 0, sizeof(*out));
	if (!t)
		return -ENODATA;
	if (t->display_state == 0) {
		int r = display_parse(t);
		if (r == -ENOMEM)
			return r;
		t->display_state = r < 0 ? r : 1;
	}
	if (t->display_state < 0)
		return t->display_state;
	*out = t->display;
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Verification                                                                       */

/* The digest algorithms and public-key algorithms the kernel's PKCS#7 parser knows. */
static bool kernel_digest(int nid)
{
	switch (nid) {
	case NID_md4: case NID_md5: case NID_sha1: case NID_sha256: case NID_sha384:
	case NID_sha512: case NID_sha224: case NID_sm3:
	case NID_id_GostR3411_2012_256: case NID_id_GostR3411_2012_512:
		return true;
	}
	return false;
}

static bool kernel_pkey(int nid)
{
	switch (nid) {
	case NID_rsaEncryption:
	case NID_ecdsa_with_SHA1: case NID_ecdsa_with_SHA224: case NID_ecdsa_with_SHA256:
	case NID_ecdsa_with_SHA384: case NID_ecdsa_with_SHA512:
	case NID_SM2_with_SM3:
	case NID_id_GostR3410_2012_256: case NID_id_GostR3410_2012_512:
		return true;
	}
	return false;
}

static int algor_nid(const X509_ALGOR *a)
{
	const ASN1_OBJECT *o = NULL;

	if (!a)
		return NID_undef;
	X509_ALGOR_get0(&o, NULL, NULL, a);
	return o ? OBJ_obj2nid(o) : NID_undef;
}

static CMS_ContentInfo *parse_cms(const struct ksc_sigtrail *t)
{
	const unsigned char *p;
	size_t n;

	if (!trail_sig(t, &p, &n))
		return NULL;
	CMS_ContentInfo *cms = d2i_CMS_ContentInfo(NULL, &p, (long)n);
	ksc_openssl_quiet();
	return cms;
}

static int first_digest_nid(const struct ksc_sigtrail *t)
{
	CMS_ContentInfo *cms = parse_cms(t);
	int nid = NID_undef;

	if (!cms)
		return nid;
	STACK_OF(CMS_SignerInfo) *sis = CMS_get0_SignerInfos(cms);
	if (sis && sk_CMS_SignerInfo_num(sis) > 0) {
		X509_ALGOR *dig = NULL;
		CMS_SignerInfo_get0_algs(sk_CMS_SignerInfo_value(sis, 0), NULL, NULL, &dig, NULL);
		nid = algor_nid(dig);
	}
	CMS_ContentInfo_free(cms);
	ksc_openssl_quiet();
	return nid;
}

/* Digest of the bytes the kernel hashes: everything before the signature block. */
static int compute_digest(struct ksc_sigtrail *t, int nid, const unsigned char *img,
			  size_t size)
{
	const EVP_MD *md = EVP_get_digestbynid(nid);
	uint32_t sig_len = trail_sig_len(t);

	if (!md)
		return -ENOPKG;
	if (size < MARKER_LEN + INFO_LEN + (size_t)sig_len)
		return -EBADMSG;
	if (!EVP_Digest(img, size - MARKER_LEN - INFO_LEN - sig_len, t->digest, &t->digest_len,
			md, NULL)) {
		ksc_openssl_quiet();
		return -ENOPKG; /* e.g. md4 without OpenSSL's legacy provider */
	}
	t->digest_nid = nid;
	t->digest_made++;
	return 0;
}

/* Does the image end with the block we kept? */
static bool same_block(const struct ksc_sigtrail *t, const unsigned char *img, size_t size)
{
	size_t tail = MARKER_LEN + INFO_LEN + t->n_kept;

	if (size != t->file_size || size < tail)
		return false;
	const unsigned char *p = img + size - tail;
	return memcmp(p, t->kept, t->n_kept) == 0 &&
	       memcmp(p + t->n_kept, t->info, INFO_LEN) == 0 &&
	       memcmp(p + t->n_kept + INFO_LEN, SIG_MARKER, MARKER_LEN) == 0;
}

static int trail_digest(const struct ksc_module *mod, struct ksc_sigtrail *t, int nid)
{
	struct ksc_blob b;
	int r;

	if (t->digest_nid == nid && nid != NID_undef)
		return 0;
	if (t->from_memory)
		return -ENOPKG; /* the bytes are gone; only the first signer's digest was kept */
	r = reload(mod, &b);
	if (r < 0)
		return r;
	if (!same_block(t, b.data, b.size)) {
		ksc_blob_free(&b);
		ksc_err(ksc_module_get_ctx(mod), "%s: changed since it was read",
			ksc_module_get_path(mod));
		return -ESTALE;
	}
	r = compute_digest(t, nid, b.data, b.size);
	ksc_blob_free(&b);
	return r;
}

int ksc_sig_digest_image(const unsigned char *img, size_t size, struct ksc_sig_digest *d)
{
	struct ksc_sigtrail *t;
	int r = capture_trail(img, size, KSC_SIG_MEMORY, &t); /* the digest made */

	memset(d, 0, sizeof(*d));
	if (r == 0 && t && t->digest_nid != NID_undef && t->digest_len <= sizeof(d->md)) {
		d->nid = t->digest_nid;
		d->len = t->digest_len;
		memcpy(d->md, t->digest, d->len);
	}
	trail_free(t);
	return r;
}

void ksc_sig_set_digest(struct ksc_module *mod, const struct ksc_sig_digest *d)
{
	struct ksc_sigtrail *t = ksc_module_get_sigtrail(mod);

	if (t && d->nid != NID_undef && d->len <= sizeof(t->digest)) {
		t->digest_nid = d->nid;
		t->digest_len = d->len;
		memcpy(t->digest, d->md, d->len);
	}
}

/* EVP_PKEY_verify() of a SignerInfo's signature over the digest, with the key of `x`. */
static bool verify_with(X509 *x, int sig_nid, int md_nid, const unsigned char *dig,
			unsigned int dlen, const ASN1_OCTET_STRING *sig)
{
	EVP_PKEY *pk = X509_get0_pubkey(x);
	EVP_PKEY_CTX *c;
	bool ok = false;

	if (!pk || !sig)
		return false;
	/* public_key_verify_signature(): the key's algorithm must be the signature's */
	int id = EVP_PKEY_get_base_id(pk);
	bool rsa_sig = sig_nid == NID_rsaEncryption;
	bool ec_sig = sig_nid == NID_ecdsa_with_SHA1 || sig_nid == NID_ecdsa_with_SHA224 ||
		      sig_nid == NID_ecdsa_with_SHA256 || sig_nid == NID_ecdsa_with_SHA384 ||
		      sig_nid == NID_ecdsa_with_SHA512;
	if ((id == EVP_PKEY_RSA) != rsa_sig || (id == EVP_PKEY_EC) != ec_sig)
		goto out_quiet;
	c = EVP_PKEY_CTX_new(pk, NULL);
	if (!c)
		goto out_quiet;
	if (EVP_PKEY_verify_init(c) > 0 &&
	    (!rsa_sig || EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PADDING) > 0) &&
	    EVP_PKEY_CTX_set_signature_md(c, EVP_get_digestbynid(md_nid)) > 0 &&
	    EVP_PKEY_verify(c, ASN1_STRING_get0_data(sig), (size_t)ASN1_STRING_length(sig),
			    dig, dlen) == 1)
		ok = true;
	EVP_PKEY_CTX_free(c);
out_quiet:
	ksc_openssl_quiet();
	return ok;
}

static void eval_set(struct ksc_sig_eval *ev, int err, const char *line, const char *why)
{
	ev->err = err;
	ev->kernel_line = line;
	ev->why = why;
}

/*
 * Structural verdicts of recent PKCS#7 messages, kept per thread. The messages sign-file
 * makes with one key differ only in the signature value, which is the content of the
 * message's last primitive OCTET STRING: a message of the same length whose bytes before
 * that content are the same as a remembered one's decodes to the same structure (a DER
 * decoder never looks inside an OCTET STRING), so it gets the same verdict without being
 * decoded again. Decoding costs about 10 us a module with OpenSSL's template decoder, a
 * sixth of what a whole tree's checks cost. A verdict depends on the message's bytes
 * alone, so the memo belongs to no context and needs no lock; it lives in the thread's
 * own storage, not on the heap, so nothing is left to free when a thread ends. A message
 * with more than SIGMEMO_PREFIX_MAX bytes before its signature value (those of Debian's
 * kernels have 160) is decoded each time.
 */
#define SIGMEMO_SLOTS 4
#define SIGMEMO_PREFIX_MAX 512

struct sigmemo_slot {
	size_t len, value_len; /* the whole message's length (0: free), the value's length */
	struct ksc_sig_eval ev;
	unsigned char prefix[SIGMEMO_PREFIX_MAX]; /* the message's bytes before the value */
};

static _Thread_local struct sigmemo {
	struct sigmemo_slot slot[SIGMEMO_SLOTS];
	unsigned int next;
} memo;

static bool memo_find(const unsigned char *msg, size_t len, struct ksc_sig_eval *ev)
{
	for (size_t i = 0; i < SIGMEMO_SLOTS; i++) {
		const struct sigmemo_slot *s = &memo.slot[i];
		if (s->len && s->len == len &&
		    memcmp(s->prefix, msg, len - s->value_len) == 0) {
			*ev = s->ev;
			return true;
		}
	}
	return false;
}

/* Remember the verdict of `msg` when its last SignerInfo's signature ends it, encoded plainly. */
static void memo_store(const unsigned char *msg, size_t len, CMS_ContentInfo *cms,
		       const struct ksc_sig_eval *ev)
{
	STACK_OF(CMS_SignerInfo) *sis = CMS_get0_SignerInfos(cms);
	int n = sis ? sk_CMS_SignerInfo_num(sis) : 0;
	if (n <= 0)
		return;
	ASN1_OCTET_STRING *sig = CMS_SignerInfo_get0_signature(sk_CMS_SignerInfo_value(sis, n - 1));
	int vl = sig ? ASN1_STRING_length(sig) : -1;
	if (vl <= 0 || vl > 0xffff || (size_t)vl + 4 > len ||
	    len - (size_t)vl > SIGMEMO_PREFIX_MAX)
		return;
	size_t v = (size_t)vl;
	/* the header right before it: 04, then the length in DER's shortest form */
	unsigned char h[4] = { 0x04 };
	size_t hl;
	if (v < 0x80) {
		h[1] = (unsigned char)v;
		hl = 2;
	} else if (v < 0x100) {
		h[1] = 0x81;
		h[2] = (unsigned char)v;
		hl = 3;
	} else {
		h[1] = 0x82;
		h[2] = (unsigned char)(v >> 8);
		h[3] = (unsigned char)v;
		hl = 4;
	}
	if (memcmp(msg + len - v - hl, h, hl) != 0 ||
	    memcmp(msg + len - v, ASN1_STRING_get0_data(sig), v) != 0)
		return;
	struct sigmemo_slot *s = &memo.slot[memo.next++ % SIGMEMO_SLOTS];
	s->len = len;
	s->value_len = v;
	s->ev = *ev;
	memcpy(s->prefix, msg, len - v);
}

/* Steps 1-4: what needs no key. Fills ev; true when the keys are to be looked at. */
static bool check_structure(struct ksc_sigtrail *t, struct ksc_sig_eval *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (!t) {
		eval_set(ev, -ENODATA, NULL, "no signature is appended");
		return false;
	}
	uint64_t modlen = t->file_size - MARKER_LEN;
	if (!t->has_info || modlen <= INFO_LEN) {
		eval_set(ev, -EBADMSG, NULL, "the signature marker is there but the file is too short for struct module_signature");
		return false;
	}
	const unsigned char *info = t->info;
	if (trail_sig_len(t) >= modlen - INFO_LEN) {
		eval_set(ev, -EBADMSG, NULL, "sig_len in struct module_signature is larger than the file before it");
		return false;
	}
	if (info[2] != PKEY_ID_PKCS7) {
		eval_set(ev, -ENOPKG, "module: not signed with expected PKCS#7 message",
			 "the signature is not a PKCS#7 message (id_type is not 2): a pre-4.3 signature format");
		return false;
	}
	if (info[0] || info[1] || info[3] || info[4] || info[5] || info[6] || info[7]) {
		eval_set(ev, -EBADMSG, "module: PKCS#7 signature info has unexpected non-zero params",
			 "struct module_signature has non-zero fields besides id_type and sig_len");
		return false;
	}
	if (trail_sig_len(t) > KERNEL_ASN1_MAX) {
		eval_set(ev, -EMSGSIZE, NULL, "the PKCS#7 message is longer than the kernel's ASN.1 decoder takes (65535 bytes)");
		return false;
	}
	const unsigned char *msg;
	size_t msg_len;
	if (!trail_sig(t, &msg, &msg_len)) {
		eval_set(ev, -EBADMSG, NULL, "the PKCS#7 message cannot be parsed");
		return false;
	}
	if (memo_find(msg, msg_len, ev))
		return ev->err == 0;
	CMS_ContentInfo *cms = parse_cms(t);
	if (!cms) {
		eval_set(ev, -EBADMSG, NULL, "the PKCS#7 message cannot be parsed");
		return false;
	}
	bool go_on = false;
	if (OBJ_obj2nid(CMS_get0_type(cms)) != NID_pkcs7_signed) {
		eval_set(ev, -EINVAL, "Only support pkcs7_signedData type",
			 "the PKCS#7 message is not SignedData");
		goto out;
	}
	STACK_OF(CMS_SignerInfo) *sis = CMS_get0_SignerInfos(cms);
	int n = sis ? sk_CMS_SignerInfo_num(sis) : 0;
	bool attrs = false;
	for (int i = 0; i < n; i++) {
		CMS_SignerInfo *si = sk_CMS_SignerInfo_value(sis, i);
		X509_ALGOR *dig = NULL, *sig = NULL;
		CMS_SignerInfo_get0_algs(si, NULL, NULL, &dig, &sig);
		if (!kernel_digest(algor_nid(dig))) {
			eval_set(ev, -ENOPKG, NULL, "a SignerInfo uses a digest algorithm the kernel does not know");
			goto out;
		}
		if (!kernel_pkey(algor_nid(sig))) {
			eval_set(ev, -ENOPKG, NULL, "a SignerInfo uses a signature algorithm the kernel does not know (it takes rsaEncryption, ecdsa-with-SHA*, SM2, GOST)");
			goto out;
		}
		if (CMS_signed_get_attr_count(si) > 0)
			attrs = true;
	}
	ASN1_OCTET_STRING **content = CMS_get0_content(cms);
	if (content && *content) {
		eval_set(ev, -EBADMSG, "PKCS#7 signature with non-detached data",
			 "the PKCS#7 message carries its content instead of leaving it detached");
		goto out;
	}
	if (OBJ_obj2nid(CMS_get0_eContentType(cms)) != NID_pkcs7_data) {
		eval_set(ev, -EKEYREJECTED, "Invalid module sig (not pkcs7-data)",
			 "the signed content type is not data");
		goto out;
	}
	if (attrs) {
		eval_set(ev, -EKEYREJECTED, "Invalid module sig (has authattrs)",
			 "the SignerInfo has signed (authenticated) attributes, which the kernel refuses for modules");
		goto out;
	}
	if (n == 0) {
		/* pkcs7_verify() with no SignerInfo returns -ENOPKG */
		eval_set(ev, -ENOPKG, NULL, "the PKCS#7 message has no SignerInfo");
		goto out;
	}
	eval_set(ev, 0, NULL, "well-formed PKCS#7 signature; not verified: no key known");
	go_on = true;
out:
	memo_store(msg, msg_len, cms, ev);
	CMS_ContentInfo_free(cms);
	ksc_openssl_quiet();
	return go_on;
}

/* Step 6: the keys. ev->err may become an I/O error (-ESTALE, -ENOENT, ...). */
static void check_keys(const struct ksc_module *mod, struct ksc_sigtrail *t,
		       const struct ksc_keyring *kr, struct ksc_sig_eval *ev)
{
	int pr = ksc_keyring_parse(kr);
	if (pr < 0) {
		ev->io_err = pr;
		eval_set(ev, 0, NULL, "well-formed PKCS#7 signature; not verified: the keys could not be read");
		return;
	}
	if (ksc_keyring_is_empty(kr))
		return; /* every key's DER was bad: as without keys */
	CMS_ContentInfo *cms = parse_cms(t);
	bool valid = false;

	ev->verified = true;
	if (!cms) {
		eval_set(ev, -EBADMSG, NULL, "the PKCS#7 message cannot be parsed");
		return;
	}
	STACK_OF(CMS_SignerInfo) *sis = CMS_get0_SignerInfos(cms);
	for (int i = 0; sis && i < sk_CMS_SignerInfo_num(sis); i++) {
		CMS_SignerInfo *si = sk_CMS_SignerInfo_value(sis, i);
		X509_ALGOR *dig = NULL, *sig = NULL;
		bool matched = false, ok = false;
		const struct ksc_key *key = NULL;

		CMS_SignerInfo_get0_algs(si, NULL, NULL, &dig, &sig);
		for (size_t k = 0; k < kr->n; k++) {
			if (CMS_SignerInfo_cert_cmp(si, kr->keys[k].x509) != 0)
				continue;
			if (!matched) {
				int r = trail_digest(mod, t, algor_nid(dig));
				if (r < 0) {
					ev->verified = false;
					ev->io_err = r;
					eval_set(ev, 0, NULL, r == -ENOPKG
						 ? "well-formed PKCS#7 signature; not verified: its digest algorithm is not available here"
						 : "well-formed PKCS#7 signature; not verified: the module file could not be read again");
					goto out;
				}
			}
			matched = true;
			if (verify_with(kr->keys[k].x509, algor_nid(sig), algor_nid(dig),
					t->digest, t->digest_len,
					CMS_SignerInfo_get0_signature(si))) {
				ok = true;
				key = &kr->keys[k].info;
				break;
			}
		}
		ksc_openssl_quiet();
		if (matched && !ok) {
			eval_set(ev, -EKEYREJECTED, NULL, "a trusted key matches the signer but the signature does not verify: the module was changed after it was signed");
			goto out;
		}
		if (ok && !valid) {
			valid = true;
			ev->key = key;
		}
	}
	if (valid)
		eval_set(ev, 0, NULL, "signed by a trusted key");
	else
		eval_set(ev, -ENOKEY, NULL, "signed by a key that is not among the trusted keys");
out:
	CMS_ContentInfo_free(cms);
	ksc_openssl_quiet();
}

/* The index of ev->key in kr (UINT32_MAX: none). */
static uint32_t key_index(const struct ksc_keyring *kr, const struct ksc_sig_eval *ev)
{
	for (size_t i = 0; ev->key && i < kr->n && i < UINT32_MAX; i++)
		if (&kr->keys[i].info == ev->key)
			return (uint32_t)i;
	return UINT32_MAX;
}

/*
 * The verdict kept for t against kr (ksc-sig-memo.c), when there is one: true, *ev as
 * computed then. want_key: ev->key set, the keys parsed if need be (else NULL unless
 * they were parsed already).
 */
static bool kept_verdict(const struct ksc_keyring *kr, const struct sigmemo_key *k,
			 bool want_key, struct ksc_sig_eval *ev)
{
	uint32_t ki;

	if (!ksc_sigmemo_get(kr, k, ev, &ki))
		return false;
	if (ki == UINT32_MAX)
		return true;
	if (!want_key && !atomic_load(&kr->parsed))
		return true;
	if (ksc_keyring_parse(kr) < 0 || kr->n_dropped || ki >= kr->n)
		return false; /* computed again: the keys are not those it was kept with */
	ev->key = &kr->keys[ki].info;
	return true;
}

static void sig_eval(const struct ksc_module *mod, const struct ksc_keyring *kr,
		     struct ksc_sig_eval *ev, bool want_key)
{
	/*
	 * A module rebuilt from an index kept no block: without keys, do not read every file
	 * again just to look at it (the loader view of a whole tree would read it all).
	 */
	const struct ksc_module_facts *f = ksc_module_get_facts(mod);
	if (f->sig_size > 0 || ksc_module_get_sigtrail(mod))
		ksc_keyring_say_keyless(kr);
	if (!f->sig_read && ksc_keyring_is_empty(kr) && f->sig_size > 0) {
		memset(ev, 0, sizeof(*ev));
		eval_set(ev, 0, NULL, "signature not examined (the module was read from an index)");
		return;
	}
	struct ksc_sigtrail *t = trail_of(mod);

	if (!t) {
		check_structure(NULL, ev);
		return;
	}
	/* a verdict kept for these bytes and these keys: libcrypto not even loaded */
	struct sigmemo_key k = { 0 };
	bool keep = ksc_sigmemo_key(t, kr, &k) == 0;
	if (keep && kept_verdict(kr, &k, want_key, ev)) {
		ksc_sigmemo_key_free(&k);
		return;
	}
	unsigned int made = t->digest_made;
	if (ksc_crypto_load() < 0) {
		memset(ev, 0, sizeof(*ev));
		eval_set(ev, 0, NULL, "signature not examined (libcrypto could not be loaded)");
		ksc_sigmemo_key_free(&k);
		return;
	}
	if (!t->checked) {
		check_structure(t, &t->structural);
		t->checked = true;
	}
	*ev = t->structural;
	if (!ev->err && !ksc_keyring_is_empty(kr))
		check_keys(mod, t, kr, ev);
	/* kept only when it depends on the key's inputs alone: no file read, no other digest */
	if (keep && !ev->io_err && t->digest_made == made && !kr->n_dropped)
		ksc_sigmemo_put(kr, &k, ev, key_index(kr, ev));
	ksc_sigmemo_key_free(&k);
}

void ksc_sig_evaluate(const struct ksc_module *mod, const struct ksc_keyring *kr,
		      struct ksc_sig_eval *ev)
{
	sig_eval(mod, kr, ev, true);
}

void ksc_sig_judge(const struct ksc_module *mod, const struct ksc_keyring *kr,
		   struct ksc_sig_eval *ev)
{
	sig_eval(mod, kr, ev, false);
}

KSC_EXPORT int ksc_module_verify_signature(const struct ksc_module *mod,
					   const struct ksc_keyring *kr,
					   const struct ksc_key **key)
{
	struct ksc_sig_eval ev;

	if (key)
		*key = NULL;
	if (!mod)
		return -EINVAL;
	sig_eval(mod, kr, &ev, true);
	if (ev.io_err)
		return ev.io_err;
	if (ev.err == 0 && !ev.verified)
		return -ENOKEY; /* well-formed, but no key to verify it with */
	if (ev.err == 0 && key)
		*key = ev.key;
	return ev.err;
}
