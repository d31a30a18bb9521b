// SPDX-License-Identifier: GPL-2.0
/* Named kvm, so the module:kvm export is granted, but importing a module: namespace
 * is refused by itself. */
#include <linux/fs.h>
#include <linux/module.h>

static void *ksc_used[] __used = { anon_inode_make_secure_inode };

MODULE_IMPORT_NS("module:kvm");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test: explicit import of module:kvm");
