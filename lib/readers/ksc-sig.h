/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the two files of module signatures share (readers wing only): the signatures'
 * judge ksc-sig.c and the certificates' reader ksc-sig-keys.c.
 */
#pragma once

#include <stdatomic.h>
#include <openssl/err.h>
#include <openssl/x509.h>

#include "readers/readers.h"

/* struct ksc_certlist: DER certificates one after the other. */
struct ksc_certlist {
	size_t n, size, cap;
	unsigned char *der;
};

/* A keyring: its certificates, each with what the library says of it. */
struct kkey {
	X509 *x509;
	struct ksc_key info;
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
};

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
