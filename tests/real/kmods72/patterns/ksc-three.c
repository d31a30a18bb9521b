// SPDX-License-Identifier: GPL-2.0
/* ksc-three.ko: struct module name ksc_three, modpost name ksc-three. "ksc-three"
 * matches for both; "ksc_three" only for the loader. */
#include <linux/module.h>

int ksc_dash(void), ksc_under(void);
static void *ksc_used[] __used = { ksc_dash, ksc_under };

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test: file name with a hyphen");
