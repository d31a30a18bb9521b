// SPDX-License-Identifier: GPL-2.0
/* Named kvm_pat: "*" and "kvm*" match it. */
#include <linux/module.h>

int ksc_star(void), ksc_kvmstar(void);
static void *ksc_used[] __used = { ksc_star, ksc_kvmstar };

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test: a name that kvm* matches");
