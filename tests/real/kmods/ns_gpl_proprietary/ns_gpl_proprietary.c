// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "ns_gpl_proprietary": MODULE_LICENSE("Proprietary"), no
 * import, uses crypto_cipher_encrypt_one (GPL-only *and* namespace CRYPTO_INTERNAL).
 * Expected (R23): modpost reports the namespace error and then the GPL error for the
 * same symbol; the loader would only say "Unknown symbol ... (err -2)".
 * (The source file itself is GPL-2.0; the declared module license is the test input.)
 */
#include <linux/module.h>
#include <crypto/internal/cipher.h>

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init ns_gpl_proprietary_init(void)
{
	if (ksc_never)
		crypto_cipher_encrypt_one(NULL, NULL, NULL);
	return 0;
}

static void __exit ns_gpl_proprietary_exit(void)
{
}

module_init(ns_gpl_proprietary_init);
module_exit(ns_gpl_proprietary_exit);
MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("ksymcheck test module: proprietary user of a namespaced GPL-only export");
