// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "gplonly_misuse": MODULE_LICENSE("Proprietary") and a use
 * of the GPL-only vmlinux export debugfs_create_dir (plus the plain _printk).
 * Expected: modpost ERROR "GPL-incompatible module gplonly_misuse.ko uses GPL-only
 * symbol 'debugfs_create_dir'", so no .ko is produced.
 * (The source file itself is GPL-2.0; the declared module license is the test input.)
 */
#include <linux/module.h>
#include <linux/debugfs.h>

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init gplonly_misuse_init(void)
{
	if (ksc_never) {
		pr_info("gplonly_misuse\n");
		debugfs_create_dir("ksc_gplonly_misuse", NULL);
	}
	return 0;
}

static void __exit gplonly_misuse_exit(void)
{
}

module_init(gplonly_misuse_init);
module_exit(gplonly_misuse_exit);
MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("ksymcheck test module: proprietary user of a GPL-only export");
