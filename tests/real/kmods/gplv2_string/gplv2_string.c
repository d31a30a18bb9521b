// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "gplv2_string": MODULE_LICENSE("GPLv2") -- not one of the
 * strings license_is_gpl_compatible() accepts -- uses debugfs_create_dir. modpost
 * reports the GPL-only use.
 * (The source file itself is GPL-2.0; the declared module license is the test input.)
 */
#include <linux/module.h>
#include <linux/debugfs.h>

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init gplv2_string_init(void)
{
	if (ksc_never) {
		pr_info("gplv2_string\n");
		debugfs_create_dir("ksc_gplv2_string", NULL);
	}
	return 0;
}

static void __exit gplv2_string_exit(void)
{
}

module_init(gplv2_string_init);
module_exit(gplv2_string_exit);
MODULE_LICENSE("GPLv2");
MODULE_DESCRIPTION("ksymcheck test module: GPLv2 (not a kernel GPL string) user of a GPL-only export");
