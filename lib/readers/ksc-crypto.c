// SPDX-License-Identifier: LGPL-2.1-or-later
/* libcrypto loaded on first use: see ksc-crypto.h. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/cms.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/opensslv.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#define KSC_CRYPTO_LOADER
#include "readers/ksc-crypto.h"

#define STR_(x) #x
#define STR(x) STR_(x)
/* the soname of the libcrypto whose headers the library was built with */
#define LIBCRYPTO_SONAME "libcrypto.so." STR(OPENSSL_VERSION_MAJOR)

static struct ksc_crypto table;
static int load_err;
static char load_msg[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen(LIBCRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);

	if (!h) {
		const char *e = dlerror();
		snprintf(load_msg, sizeof(load_msg), "%s", e ? e : "cannot load " LIBCRYPTO_SONAME);
		load_err = -ENOPKG;
		return;
	}
	/* POSIX: a function pointer may be read from dlsym()'s object pointer this way */
#define KSC_CRYPTO_LOAD(f)                                                                 \
	if (!load_err) {                                                                   \
		*(void **)&table.f = dlsym(h, #f);                                         \
		if (!table.f) {                                                            \
			snprintf(load_msg, sizeof(load_msg), "%s: no %s", LIBCRYPTO_SONAME, \
				 #f);                                                      \
			load_err = -ENOPKG;                                                \
		}                                                                          \
	}
	KSC_CRYPTO_FUNCTIONS(KSC_CRYPTO_LOAD)
#undef KSC_CRYPTO_LOAD
}

int ksc_crypto_load(void)
{
	pthread_once(&once, load);
	return load_err;
}

const char *ksc_crypto_error(void)
{
	return ksc_crypto_load() ? load_msg : NULL;
}

const struct ksc_crypto *ksc_crypto(void)
{
	if (ksc_crypto_load() < 0) {
		/* a bug: every way into ksc-sig.c's use of libcrypto checks the load first */
		fprintf(stderr, "libksymcheck: %s\n", load_msg);
		abort();
	}
	return &table;
}
