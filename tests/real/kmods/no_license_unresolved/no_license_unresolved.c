// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "no_license_unresolved": no MODULE_LICENSE(), uses
 * ksc_no_such_symbol (exported by nobody) and the GPL-only debugfs_create_dir. Shows that
 * modpost reports the missing license while reading the object, before the symbol checks,
 * and that an unlicensed module gets no GPL-only error (R17).
 */
#include <linux/module.h>
#include <linux/debugfs.h>

extern void ksc_no_such_symbol(void);

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init no_license_unresolved_init(void)
{
	if (ksc_never) {
		ksc_no_such_symbol();
		debugfs_create_dir("ksc_no_license_unresolved", NULL);
	}
	return 0;
}

static void __exit no_license_unresolved_exit(void)
{
}

module_init(no_license_unresolved_init);
module_exit(no_license_unresolved_exit);
/* no MODULE_LICENSE() on purpose */
MODULE_DESCRIPTION("ksymcheck test module: no license and an unresolved symbol");
