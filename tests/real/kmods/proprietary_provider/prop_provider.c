// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "proprietary_provider", module prop_provider:
 * MODULE_LICENSE("Proprietary"), exports ksc_prop_fn with plain EXPORT_SYMBOL.
 * (The source file itself is GPL-2.0; the declared module license is the test input.)
 */
#include <linux/module.h>

void ksc_prop_fn(void)
{
}
EXPORT_SYMBOL(ksc_prop_fn);

static int __init prop_provider_init(void)
{
	return 0;
}

static void __exit prop_provider_exit(void)
{
}

module_init(prop_provider_init);
module_exit(prop_provider_exit);
MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("ksymcheck test module: proprietary module exporting ksc_prop_fn");
