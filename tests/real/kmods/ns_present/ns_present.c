// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "ns_present": like ns_missing, but with
 * MODULE_IMPORT_NS(CRYPTO_INTERNAL) (6.1 spelling: an identifier, not a string).
 * Expected: modpost silent, .ko produced, modinfo import_ns=CRYPTO_INTERNAL.
 */
#include <linux/module.h>
#include <crypto/internal/cipher.h>

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init ns_present_init(void)
{
	if (ksc_never)
		crypto_cipher_encrypt_one(NULL, NULL, NULL);
	return 0;
}

static void __exit ns_present_exit(void)
{
}

module_init(ns_present_init);
module_exit(ns_present_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test module: namespaced export used with import");
MODULE_IMPORT_NS(CRYPTO_INTERNAL);
