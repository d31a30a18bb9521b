// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "no_license": no MODULE_LICENSE() at all, uses the GPL-only
 * vmlinux export debugfs_create_dir. modpost reports the missing license (and treats
 * the module as GPL-compatible for the GPL-only check).
 * (The source file itself is GPL-2.0; the declared module license is the test input.)
 */
#include <linux/module.h>
#include <linux/debugfs.h>

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init no_license_init(void)
{
	if (ksc_never) {
		pr_info("no_license\n");
		debugfs_create_dir("ksc_no_license", NULL);
	}
	return 0;
}

static void __exit no_license_exit(void)
{
}

module_init(no_license_init);
module_exit(no_license_exit);
/* no MODULE_LICENSE() on purpose */
MODULE_DESCRIPTION("ksymcheck test module: no license, uses a GPL-only export");
