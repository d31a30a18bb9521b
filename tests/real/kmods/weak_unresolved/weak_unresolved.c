// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "weak_unresolved": a weak reference to ksc_weak_missing,
 * which nothing exports. modpost skips unresolved weak symbols: silent, .ko produced
 * (with no __versions entry for the symbol); the loader leaves it 0 (R20).
 */
#include <linux/module.h>

extern void ksc_weak_missing(void) __attribute__((weak));

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init weak_unresolved_init(void)
{
	if (ksc_never)
		ksc_weak_missing();
	return 0;
}

static void __exit weak_unresolved_exit(void)
{
}

module_init(weak_unresolved_init);
module_exit(weak_unresolved_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test module: weak reference to a missing symbol");
