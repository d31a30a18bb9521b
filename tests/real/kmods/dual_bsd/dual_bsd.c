// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "dual_bsd": MODULE_LICENSE("Dual BSD/GPL") (GPL-compatible),
 * uses debugfs_create_dir. modpost is silent.
 * (The source file itself is GPL-2.0; the declared module license is the test input.)
 */
#include <linux/module.h>
#include <linux/debugfs.h>

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init dual_bsd_init(void)
{
	if (ksc_never) {
		pr_info("dual_bsd\n");
		debugfs_create_dir("ksc_dual_bsd", NULL);
	}
	return 0;
}

static void __exit dual_bsd_exit(void)
{
}

module_init(dual_bsd_init);
module_exit(dual_bsd_exit);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("ksymcheck test module: Dual BSD/GPL user of a GPL-only export");
