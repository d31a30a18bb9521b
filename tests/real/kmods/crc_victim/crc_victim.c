// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "crc_victim": a clean GPL module (plain _printk, GPL-only
 * debugfs_create_dir and debugfs_remove). modpost is silent. The loader tests patch the
 * CRC of one __versions entry of the built .ko to provoke "disagrees about version of
 * symbol" (R21).
 */
#include <linux/module.h>
#include <linux/debugfs.h>

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init crc_victim_init(void)
{
	if (ksc_never) {
		pr_info("crc_victim\n");
		debugfs_remove(debugfs_create_dir("ksc_crc_victim", NULL));
	}
	return 0;
}

static void __exit crc_victim_exit(void)
{
}

module_init(crc_victim_init);
module_exit(crc_victim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test module: clean module whose CRCs get patched");
