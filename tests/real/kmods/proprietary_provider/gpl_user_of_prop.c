// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "proprietary_provider", module gpl_user_of_prop: a GPL
 * module that uses the GPL-only vmlinux export debugfs_lookup and ksc_prop_fn from the
 * proprietary prop_provider. modpost is silent (it has no proprietary-provider rule).
 *
 * The loader resolves undefined symbols in .symtab order (R19), and the order in the
 * .ko is not the source order: `ld -r` writes global symbols in its hash-table order.
 * debugfs_lookup was picked because it lands *before* ksc_prop_fn in the .ko (checked by
 * tests/real/modpost.sh), so the loader refuses ksc_prop_fn (R18, T46):
 *   gpl_user_of_prop: module using GPL-only symbols uses symbols ksc_prop_fn from
 *   proprietary module prop_provider.
 *   gpl_user_of_prop: Unknown symbol ksc_prop_fn (err -2)
 */
#include <linux/module.h>
#include <linux/debugfs.h>

extern void ksc_prop_fn(void);

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init gpl_user_of_prop_init(void)
{
	if (ksc_never) {
		debugfs_lookup("ksc_gpl_user_of_prop", NULL);
		ksc_prop_fn();
	}
	return 0;
}

static void __exit gpl_user_of_prop_exit(void)
{
}

module_init(gpl_user_of_prop_init);
module_exit(gpl_user_of_prop_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test module: GPL user of a proprietary module's export");
