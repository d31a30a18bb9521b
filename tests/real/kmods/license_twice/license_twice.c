// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "license_twice": two license entries, license=GPL first and
 * license=Proprietary second in .modinfo; uses debugfs_create_dir. modpost checks every
 * license entry (GPL-incompatible: ERROR); the loader reads only the first (GPL: loads).
 * (The source file itself is GPL-2.0; the declared module license is the test input.)
 */
#include <linux/module.h>
#include <linux/debugfs.h>

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init license_twice_init(void)
{
	if (ksc_never) {
		pr_info("license_twice\n");
		debugfs_create_dir("ksc_license_twice", NULL);
	}
	return 0;
}

static void __exit license_twice_exit(void)
{
}

module_init(license_twice_init);
module_exit(license_twice_exit);
/*
 * gcc emits these .modinfo strings in reverse order of definition, so the object has
 * license=GPL first and license=Proprietary second (the loader reads only the first).
 */
MODULE_INFO(license, "Proprietary");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test module: two license entries, uses a GPL-only export");
