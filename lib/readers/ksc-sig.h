/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the two files of module signatures share (readers wing only): the signatures'
 * judge ksc-sig.c and the certificates' reader ksc-sig-keys.c.
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <openssl/err.h>
#include <openssl/x509.h>

#include "readers/readers.h"

/* struct ksc_certlist: DER certificates one after the other. */
struct ksc_certlist {
	size_t n, size, cap;
	unsigned char *der;
};

/*
 * A keyring: its certificates, each with what the library says of it. A kernel image's
 * certificates are kept as DER and parsed on first use (ksc_keyring_parse()): a check
 * whose signatures are all answered by kept verdicts (ksc-sig-memo.c) parses none.
 */
struct kkey {
	X509 *x509;              /* NULL: not parsed yet */
	struct ksc_key info;     /* filled when parsed */
	unsigned char *der;      /* the certificate (owned) */
	size_t der_len;
	const char *src;         /* where it came from (the keyring's pool) */
};

struct ksc_keyring {
	int refcount;
	struct ksc_ctx *ctx;
	struct pool strings;
	struct kkey *keys;
	size_t n, cap;
	/* the kernel images that gave no key: said once, when a signature is first judged */
	const char **keyless;
	size_t n_keyless, cap_keyless;
	atomic_bool keyless_said;
	/* every key parsed (ksc_keyring_parse()); the lock guards the parse */
	atomic_bool parsed;
	pthread_mutex_t lock;
	size_t n_dropped;        /* DER that did not parse, left out */
	char *memo_dir;          /* kept signature verdicts (ksc-sig-memo.c), or NULL */
	atomic_uint memo_writes; /* verdicts written (at most MEMO_WRITES_MAX a keyring) */
};

/* The block scripts/sign-file appends, as a module keeps it (ksc-sig.c). */
#define SIG_INFO_LEN 12 /* struct module_signature */
struct ksc_sigtrail {
	uint64_t file_size;           /* the decompressed image, block included */
	bool has_info;                /* long enough for struct module_signature */
	bool from_memory;             /* no file to read again: digest computed at capture */
	unsigned char info[SIG_INFO_LEN];
	size_t n_kept;                /* bytes kept from right before info */

	/* the digest of the signed bytes, for digest_nid (NID_undef: none yet) */
	int digest_nid;
	unsigned int digest_len;
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int digest_made;     /* how many times a digest was computed */

	/* what needs no key, decided once */
	bool checked;
	struct ksc_sig_eval structural;

	/* kmod's view, decoded once */
	int display_state;            /* 0 not yet, 1 done, <0 -errno */
	struct ksc_signature_info display;
	unsigned char *display_buf;

	unsigned char kept[];
};

/*
 * Parse the keys kept as DER (once; thread-safe). A DER that does not parse is left out
 * (kr->n_dropped counts them). 0, -ENOPKG (no libcrypto) or -ENOMEM.
 */
int ksc_keyring_parse(const struct ksc_keyring *kr);

/* ---- kept verdicts (ksc-sig-memo.c) ---- */

/* What a verdict is kept under: every input of the evaluation, byte for byte. */
struct sigmemo_key {
	unsigned char *blob;
	size_t len;
	uint64_t bucket;              /* the hash of the module's part: which file */
};
/*
 * The key of t's evaluation against kr (whose memo_dir is set): 0, -ENODATA when there
 * is none to keep (no memo folder, no digest yet, an empty keyring, too large), -ENOMEM.
 */
int ksc_sigmemo_key(const struct ksc_sigtrail *t, const struct ksc_keyring *kr,
		    struct sigmemo_key *k);
void ksc_sigmemo_key_free(struct sigmemo_key *k);
/* The verdict kept for k: true and *ev (key NULL) and *key_index (UINT32_MAX: none). */
bool ksc_sigmemo_get(const struct ksc_keyring *kr, const struct sigmemo_key *k,
		     struct ksc_sig_eval *ev, uint32_t *key_index);
/* Keep ev, computed for k (key_index as above); failures are silent (a cache). */
void ksc_sigmemo_put(const struct ksc_keyring *kr, const struct sigmemo_key *k,
		     const struct ksc_sig_eval *ev, uint32_t key_index);
/*
 * A kept record's bytes checked and decoded: true when it is whole (magic, version,
 * size, checksum), was kept for key[0..key_len) (key NULL: for whatever key it holds)
 * and holds a verdict the evaluation can give. Pure: the fuzz target's entry.
 */
bool ksc_sigmemo_parse(const unsigned char *buf, size_t size, const unsigned char *key,
		       size_t key_len, struct ksc_sig_eval *ev, uint32_t *key_index);
/* The record ksc_sigmemo_put() writes (malloc'd), or NULL (a text it cannot keep, ENOMEM). */
unsigned char *ksc_sigmemo_encode(const struct sigmemo_key *k, const struct ksc_sig_eval *ev,
				  uint32_t key_index, size_t *size);

/*
 * The certificates built into a kernel image `img` added to *list (made when NULL; a
 * file that is not ELF, or cannot be walked, is scanned whole). 0 or -ENOMEM.
 */
int ksc_sig_scan_image(struct ksc_certlist **list, const unsigned char *img, size_t size);
/* Free a list of certificates (NULL: nothing). */
void ksc_certlist_free(struct ksc_certlist *c);
/* Say, once, the kernel images a keyring got no key from (logged as errors). */
void ksc_keyring_say_keyless(const struct ksc_keyring *kr);
/* Forget OpenSSL's queued errors (they are not ours to print). */
static inline void ksc_openssl_quiet(void)
{
	ERR_clear_error();
}
