// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "clean": a GPL module that uses plain exports (_printk,
 * kmalloc_trace/__kmalloc, kfree) and GPL-only exports (debugfs_create_dir,
 * platform_device_register) of vmlinux. modpost has nothing to say.
 * The calls sit behind a module parameter that is never set, so loading does nothing,
 * but the undefined symbols stay in the object.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/debugfs.h>
#include <linux/platform_device.h>

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init clean_init(void)
{
	if (ksc_never) {
		void *p = kmalloc(ksc_never, GFP_KERNEL);

		pr_info("clean: %p\n", p);
		kfree(p);
		debugfs_create_dir("ksc_clean", NULL);
		platform_device_register(NULL);
	}
	return 0;
}

static void __exit clean_exit(void)
{
}

module_init(clean_init);
module_exit(clean_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test module: GPL user of plain and GPL-only exports");
