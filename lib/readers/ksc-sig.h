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
};

/*
 * Parse the keys kept as DER (once; thread-safe). A DER that does not parse is left out
 * (kr->n_dropped counts them). 0, -ENOPKG (no libcrypto) or -ENOMEM.
 */
int ksc_keyring_parse(const struct ksc_keyring *kr);

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
