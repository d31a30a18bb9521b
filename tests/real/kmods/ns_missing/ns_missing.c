// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "ns_missing": a GPL module that uses
 * crypto_cipher_encrypt_one (vmlinux, EXPORT_SYMBOL_NS_GPL, namespace CRYPTO_INTERNAL)
 * without MODULE_IMPORT_NS(CRYPTO_INTERNAL).
 * Expected: modpost ERROR "module ns_missing uses symbol crypto_cipher_encrypt_one from
 * namespace CRYPTO_INTERNAL, but does not import it.", so no .ko is produced.
 */
#include <linux/module.h>
#include <crypto/internal/cipher.h>

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init ns_missing_init(void)
{
	if (ksc_never)
		crypto_cipher_encrypt_one(NULL, NULL, NULL);
	return 0;
}

static void __exit ns_missing_exit(void)
{
}

module_init(ns_missing_init);
module_exit(ns_missing_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test module: namespaced export used without import");
