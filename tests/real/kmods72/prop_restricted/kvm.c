// SPDX-License-Identifier: GPL-2.0
/* Named kvm, so the module:kvm export is granted by name, but it is GPL-only and this
 * module is Proprietary. */
#include <linux/fs.h>
#include <linux/module.h>

static void *ksc_used[] __used = { anon_inode_make_secure_inode };

MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("ksymcheck test: Proprietary module, restricted GPL export");
