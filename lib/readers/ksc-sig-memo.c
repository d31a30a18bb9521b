// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kept signature verdicts: what ksc-sig.c's evaluation of a module's signature gave
 * against a keyring, kept in the keyring's memo folder (ksc_keyring_set_memo(); the CLI
 * puts it beside the kernel's key cache) so that a later run over the same bytes and the
 * same keys gives the same verdict without libcrypto: no ECDSA or RSA verification, no
 * X.509 parse of the keys, not even libcrypto loaded (a third of a warm one-module check).
 *
 * The key is every input of the evaluation, byte for byte, compared whole (not a hash of
 * them: nothing to collide): the digest of the signed bytes (what the verification reads
 * of them; made while the module was read, or kept by the tree's index), the module's
 * size, struct module_signature and the signature block, each key's DER and source, the
 * library's and OpenSSL's versions. A verdict is kept only when it depends on nothing
 * else: no file read again, no other signer's digest computed, no I/O error.
 *
 * Layout: one small file per module, in 64 folders of at most 64 files, the file chosen
 * by a 64-bit hash of the module's part of the key (dir/XX/YY): a one-module check reads
 * one file of about 1 KB, which one file per key set (every module's verdict) would not
 * allow; the folders stay small for the atomic writer, which reads its folder to clear
 * stale temporary files. Two modules with the same file take turns (the newer kept), a
 * new key set replaces a module's verdict. At most 4,096 files of MEMO_MAX bytes (64 MiB;
 * Debian's are about 1.2 KB: 5 MB for a whole tree); a larger record is not kept.
 *
 * A record: struct memo_hdr, the key, struct memo_verdict, its texts. The checksum (a
 * 64-bit hash over all of it) catches a torn or corrupted file, not a forged one: the
 * folder is trusted as the key cache beside it is. A record that does not add up, is
 * another key's or holds a verdict the evaluation cannot give is ignored (and replaced).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/x509.h>

#include "readers/readers.h"
#include "readers/ksc-sig.h"
#include "util/fileio.h"
#include "util/hash.h"

#define MEMO_MAGIC "KSCSIGM\n"
#define MEMO_VERSION 1u
#define MEMO_MAX (16u << 10)
#define MEMO_FANOUT 64u
/*
 * New verdicts a keyring writes, at most: what a check of a few modules needs again. A
 * whole tree's read (its results kept in the tree's index) would otherwise write 4,216
 * files for Debian's 7.2, 1.4 s more system time on a 8.5 s first read.
 */
#define MEMO_WRITES_MAX 64u
#define NO_LINE 0xffffu

#ifndef KSC_VERSION
#define KSC_VERSION "?"
#endif

struct memo_hdr {
	char magic[8];
	uint32_t version, key_len;
	uint64_t checksum; /* of the whole file, this field 0 */
};

struct memo_verdict {
	int32_t err;
	uint32_t key_index;        /* UINT32_MAX: no key */
	uint32_t verified, io_err; /* io_err is always 0: such verdicts are not kept */
	uint16_t why_len, line_len; /* line_len NO_LINE: no kernel line */
};

/* Every text an evaluation gives (ksc-sig.c): a kept text is one of these, or not taken. */
static const char *const texts[] = {
	"Invalid module sig (has authattrs)",
	"Invalid module sig (not pkcs7-data)",
	"Only support pkcs7_signedData type",
	"PKCS#7 signature with non-detached data",
	"a SignerInfo uses a digest algorithm the kernel does not know",
	"a SignerInfo uses a signature algorithm the kernel does not know (it takes rsaEncryption, ecdsa-with-SHA*, SM2, GOST)",
	"a trusted key matches the signer but the signature does not verify: the module was changed after it was signed",
	"module: PKCS#7 signature info has unexpected non-zero params",
	"module: not signed with expected PKCS#7 message",
	"no signature is appended",
	"sig_len in struct module_signature is larger than the file before it",
	"signed by a key that is not among the trusted keys",
	"signed by a trusted key",
	"struct module_signature has non-zero fields besides id_type and sig_len",
	"the PKCS#7 message cannot be parsed",
	"the PKCS#7 message carries its content instead of leaving it detached",
	"the PKCS#7 message has no SignerInfo",
	"the PKCS#7 message is longer than the kernel's ASN.1 decoder takes (65535 bytes)",
	"the PKCS#7 message is not SignedData",
	"the SignerInfo has signed (authenticated) attributes, which the kernel refuses for modules",
	"the signature is not a PKCS#7 message (id_type is not 2): a pre-4.3 signature format",
	"the signature marker is there but the file is too short for struct module_signature",
	"the signed content type is not data",
	"well-formed PKCS#7 signature; not verified: no key known",
};

/* The static text equal to p[0..n), or NULL. */
static const char *text_of(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (strlen(texts[i]) == n && memcmp(texts[i], p, n) == 0)
			return texts[i];
	return NULL;
}

/* ---- the key ---- */

struct blob {
	unsigned char *p;
	size_t len, cap;
	bool over;
};

static void put(struct blob *b, const void *p, size_t n)
{
	if (b->over || n > MEMO_MAX - b->len) {
		b->over = true;
		return;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put64(struct blob *b, uint64_t v)
{
	put(b, &v, sizeof(v));
}

int ksc_sigmemo_key(const struct ksc_sigtrail *t, const struct ksc_keyring *kr,
		    struct sigmemo_key *k)
{
	*k = (struct sigmemo_key){ 0 };
	if (!kr || !kr->memo_dir || ksc_keyring_is_empty(kr) || !t || !t->digest_nid ||
	    t->digest_len > sizeof(t->digest))
		return -ENODATA;
	struct blob b = { .p = malloc(MEMO_MAX), .cap = MEMO_MAX };
	if (!b.p)
		return -ENOMEM;
	put64(&b, strlen(KSC_VERSION));
	put(&b, KSC_VERSION, strlen(KSC_VERSION));
	put64(&b, (uint64_t)OPENSSL_VERSION_NUMBER);
	size_t module_at = b.len;
	put64(&b, (uint64_t)t->digest_nid);
	put64(&b, t->digest_len);
	put(&b, t->digest, t->digest_len);
	put64(&b, t->file_size);
	put64(&b, t->has_info);
	put(&b, t->info, sizeof(t->info));
	put64(&b, t->n_kept);
	put(&b, t->kept, t->n_kept);
	size_t module_end = b.len;
	/* the keys do not change once parsed; until then a parse may drop one: wait for it */
	struct ksc_keyring *mkr = (struct ksc_keyring *)kr;
	bool locked = !atomic_load(&mkr->parsed);
	if (locked)
		pthread_mutex_lock(&mkr->lock);
	put64(&b, kr->n);
	for (size_t i = 0; i < kr->n; i++) {
		const struct kkey *key = &kr->keys[i];
		put64(&b, key->der_len);
		put(&b, key->der, key->der_len);
		put64(&b, strlen(key->src));
		put(&b, key->src, strlen(key->src));
	}
	if (locked)
		pthread_mutex_unlock(&mkr->lock);
	if (b.over || b.len + sizeof(struct memo_hdr) + sizeof(struct memo_verdict) +
			      2 * 256 > MEMO_MAX) {
		free(b.p);
		return -ENODATA; /* too large to keep */
	}
	k->blob = b.p;
	k->len = b.len;
	k->bucket = ksc_hash64(b.p + module_at, module_end - module_at, 0x7369676d);
	return 0;
}

void ksc_sigmemo_key_free(struct sigmemo_key *k)
{
	free(k->blob);
	*k = (struct sigmemo_key){ 0 };
}

/* ---- the record ---- */

static uint64_t checksum(const unsigned char *buf, size_t size)
{
	struct memo_hdr h;

	memcpy(&h, buf, sizeof(h));
	h.checksum = 0;
	uint64_t x = ksc_hash64(&h, sizeof(h), 0x6d656d6f);
	return ksc_hash64(buf + sizeof(h), size - sizeof(h), x);
}

/* Can the evaluation give this? (err, verified, key and texts as ksc-sig.c sets them) */
static bool verdict_possible(const struct memo_verdict *v, const char *why, const char *line,
			     uint32_t n_keys)
{
	switch (v->err) {
	case 0: case -ENODATA: case -ENOKEY: case -ENOPKG: case -EKEYREJECTED: case -EBADMSG:
	case -EINVAL: case -EMSGSIZE:
		break;
	default:
		return false;
	}
	if (!why || v->verified > 1 || v->io_err)
		return false;
	if (v->key_index != UINT32_MAX &&
	    (v->err || !v->verified || (n_keys != UINT32_MAX && v->key_index >= n_keys)))
		return false;
	if (line && v->err == 0)
		return false;
	return v->err != 0 || v->verified == (v->key_index != UINT32_MAX);
}

/* A cursor over a key's fields (as ksc_sigmemo_key() writes them). */
struct cursor {
	const unsigned char *p;
	size_t len, at;
	bool bad;
};

static uint64_t take64(struct cursor *c)
{
	uint64_t v = 0;

	if (c->bad || c->len - c->at < 8) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p + c->at, 8);
	c->at += 8;
	return v;
}

static void skip(struct cursor *c, uint64_t n)
{
	if (c->bad || n > c->len - c->at)
		c->bad = true;
	else
		c->at += (size_t)n;
}

/* The number of keys a key names (UINT32_MAX when it cannot be told). */
static uint32_t key_count(const unsigned char *key, size_t len)
{
	struct cursor c = { key, len, 0, false };

	skip(&c, take64(&c)); /* the library's version */
	take64(&c);           /* OpenSSL's */
	take64(&c);           /* the digest's algorithm */
	skip(&c, take64(&c)); /* the digest */
	take64(&c);           /* the file's size */
	take64(&c);           /* has_info */
	skip(&c, SIG_INFO_LEN);
	skip(&c, take64(&c)); /* the signature block */
	uint64_t n = take64(&c);
	return c.bad || n >= UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

bool ksc_sigmemo_parse(const unsigned char *buf, size_t size, const unsigned char *key,
		       size_t key_len, struct ksc_sig_eval *ev, uint32_t *key_index)
{
	struct memo_hdr h;
	struct memo_verdict v;

	if (size < sizeof(h) + sizeof(v) || size > MEMO_MAX)
		return false;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, MEMO_MAGIC, 8) != 0 || h.version != MEMO_VERSION ||
	    h.key_len > size - sizeof(h) - sizeof(v) || checksum(buf, size) != h.checksum)
		return false;
	const unsigned char *k = buf + sizeof(h);
	if (key && (h.key_len != key_len || memcmp(k, key, key_len) != 0))
		return false;
	memcpy(&v, k + h.key_len, sizeof(v));
	size_t rest = size - sizeof(h) - h.key_len - sizeof(v);
	size_t line_len = v.line_len == NO_LINE ? 0 : v.line_len;
	if ((size_t)v.why_len + line_len != rest)
		return false;
	const unsigned char *p = k + h.key_len + sizeof(v);
	const char *why = text_of(p, v.why_len);
	const char *line = v.line_len == NO_LINE ? NULL : text_of(p + v.why_len, line_len);
	if ((v.line_len != NO_LINE && !line) ||
	    !verdict_possible(&v, why, line, key_count(k, h.key_len)))
		return false;
	*ev = (struct ksc_sig_eval){ .err = v.err, .verified = v.verified, .kernel_line = line,
				     .why = why };
	*key_index = v.key_index;
	return true;
}

unsigned char *ksc_sigmemo_encode(const struct sigmemo_key *k, const struct ksc_sig_eval *ev,
				  uint32_t key_index, size_t *size)
{
	const char *why = ev->why ? text_of((const unsigned char *)ev->why, strlen(ev->why)) : NULL;
	const char *line = ev->kernel_line
		? text_of((const unsigned char *)ev->kernel_line, strlen(ev->kernel_line)) : NULL;
	struct memo_verdict v = { .err = ev->err, .key_index = key_index,
				  .verified = ev->verified, .io_err = 0,
				  .why_len = why ? (uint16_t)strlen(why) : 0,
				  .line_len = line ? (uint16_t)strlen(line) : NO_LINE };
	struct memo_hdr h = { .version = MEMO_VERSION, .key_len = (uint32_t)k->len };

	if (!why || (ev->kernel_line && !line) || ev->io_err ||
	    !verdict_possible(&v, why, line, UINT32_MAX))
		return NULL;
	size_t n = sizeof(h) + k->len + sizeof(v) + v.why_len + (line ? v.line_len : 0);
	if (n > MEMO_MAX)
		return NULL;
	unsigned char *buf = malloc(n), *o = buf;
	if (!buf)
		return NULL;
	memcpy(h.magic, MEMO_MAGIC, 8);
	memcpy(o, &h, sizeof(h));
	o += sizeof(h);
	memcpy(o, k->blob, k->len);
	o += k->len;
	memcpy(o, &v, sizeof(v));
	o += sizeof(v);
	memcpy(o, why, v.why_len);
	if (line)
		memcpy(o + v.why_len, line, v.line_len);
	h.checksum = checksum(buf, n);
	memcpy(buf, &h, sizeof(h));
	*size = n;
	return buf;
}

/* ---- the files ---- */

/* dir/XX (the folder) and YY (the file) of a key. False when too long. */
static bool memo_path(const struct ksc_keyring *kr, const struct sigmemo_key *k,
		      char *sub, size_t sub_size, char *name, size_t name_size)
{
	unsigned int x = (unsigned int)(k->bucket % MEMO_FANOUT);
	unsigned int y = (unsigned int)(k->bucket / MEMO_FANOUT % MEMO_FANOUT);

	return (size_t)snprintf(sub, sub_size, "%s/%02x", kr->memo_dir, x) < sub_size &&
	       (size_t)snprintf(name, name_size, "%02x", y) < name_size;
}

bool ksc_sigmemo_get(const struct ksc_keyring *kr, const struct sigmemo_key *k,
		     struct ksc_sig_eval *ev, uint32_t *key_index)
{
	char sub[PATH_MAX], name[8], path[PATH_MAX + 8];
	struct stat st;
	char *data = NULL;
	size_t size = 0;

	if (!memo_path(kr, k, sub, sizeof(sub), name, sizeof(name)))
		return false;
	snprintf(path, sizeof(path), "%s/%s", sub, name);
	int fd = ksc_open_read(AT_FDCWD, path, 0, &st); /* a FIFO is not opened: no hang */
	if (fd < 0)
		return false;
	int r = ksc_read_fd(fd, &st, MEMO_MAX, &data, &size);
	close(fd);
	bool ok = r == 0 &&
		  ksc_sigmemo_parse((unsigned char *)data, size, k->blob, k->len, ev, key_index);
	free(data);
	return ok;
}

void ksc_sigmemo_put(const struct ksc_keyring *kr, const struct sigmemo_key *k,
		     const struct ksc_sig_eval *ev, uint32_t key_index)
{
	char sub[PATH_MAX], name[8];
	size_t size;
	mode_t mode;

	if (!memo_path(kr, k, sub, sizeof(sub), name, sizeof(name)) ||
	    atomic_fetch_add(&((struct ksc_keyring *)kr)->memo_writes, 1) >= MEMO_WRITES_MAX)
		return;
	unsigned char *buf = ksc_sigmemo_encode(k, ev, key_index, &size);
	if (!buf)
		return;
	/* the folders made as needed; only a regular file (or a link) is replaced */
	if ((mkdir(kr->memo_dir, 0755) == 0 || errno == EEXIST) &&
	    (mkdir(sub, 0755) == 0 || errno == EEXIST)) {
		int dfd = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0 && ksc_write_target_check(dfd, name, &mode) == 0 &&
		    ksc_write_atomic(sub, name, buf, size, false) < 0)
			ksc_dbg(kr->ctx, "%s/%s: verdict not kept", sub, name);
		if (dfd >= 0)
			close(dfd);
	}
	free(buf);
}
