// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "proprietary_provider", module prop_user_then_gpl: like
 * gpl_user_of_prop, but with the GPL-only export debugfs_create_dir, which `ld -r` puts
 * *after* ksc_prop_fn in the .ko's .symtab (checked by tests/real/modpost.sh). modpost is
 * silent; the loader (R18, note to T46) first resolves ksc_prop_fn and inherits the
 * proprietary taint, then cannot see the GPL-only symbol:
 *   prop_user_then_gpl: module uses symbols ksc_prop_fn from proprietary module
 *   prop_provider, inheriting taint.
 *   prop_user_then_gpl: Unknown symbol debugfs_create_dir (err -2)
 */
#include <linux/module.h>
#include <linux/debugfs.h>

extern void ksc_prop_fn(void);

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init prop_user_then_gpl_init(void)
{
	if (ksc_never) {
		debugfs_create_dir("ksc_prop_user_then_gpl", NULL);
		ksc_prop_fn();
	}
	return 0;
}

static void __exit prop_user_then_gpl_exit(void)
{
}

module_init(prop_user_then_gpl_init);
module_exit(prop_user_then_gpl_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test module: user of a proprietary export, then a GPL-only one");
