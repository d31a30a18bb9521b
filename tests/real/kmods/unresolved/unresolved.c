// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "unresolved": calls ksc_no_such_symbol, which nothing
 * exports. Expected: modpost ERROR "\"ksc_no_such_symbol\" [<M>/unresolved.ko]
 * undefined!", no .ko.
 */
#include <linux/module.h>

extern void ksc_no_such_symbol(void);

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init unresolved_init(void)
{
	if (ksc_never)
		ksc_no_such_symbol();
	return 0;
}

static void __exit unresolved_exit(void)
{
}

module_init(unresolved_init);
module_exit(unresolved_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test module: uses a symbol nobody exports");
