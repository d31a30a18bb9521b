// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "mixed_errors": MODULE_LICENSE("Proprietary"), no import,
 * uses (in this order) debugfs_create_dir (GPL-only), ksc_no_such_symbol (exported by
 * nobody), crypto_cipher_encrypt_one (GPL-only, namespace CRYPTO_INTERNAL) and _printk
 * (plain). Shows how modpost orders its messages: per undefined symbol in .symtab order,
 * each symbol's checks in the order undefined / namespace / GPL (R23).
 * (The source file itself is GPL-2.0; the declared module license is the test input.)
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <crypto/internal/cipher.h>

extern void ksc_no_such_symbol(void);

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init mixed_errors_init(void)
{
	if (ksc_never) {
		debugfs_create_dir("ksc_mixed_errors", NULL);
		ksc_no_such_symbol();
		crypto_cipher_encrypt_one(NULL, NULL, NULL);
		pr_info("mixed_errors\n");
	}
	return 0;
}

static void __exit mixed_errors_exit(void)
{
}

module_init(mixed_errors_init);
module_exit(mixed_errors_exit);
MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("ksymcheck test module: several modpost errors at once");
