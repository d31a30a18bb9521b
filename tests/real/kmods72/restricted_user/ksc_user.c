// SPDX-License-Identifier: GPL-2.0
/* A module whose name is not in the list: anon_inode_make_secure_inode is exported
 * for module:kvm only. */
#include <linux/fs.h>
#include <linux/module.h>

static void *ksc_used[] __used = { anon_inode_make_secure_inode };

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test: restricted export, name not listed");
