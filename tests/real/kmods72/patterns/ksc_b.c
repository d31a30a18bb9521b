// SPDX-License-Identifier: GPL-2.0
/* Uses the exports of ksc_prov for the lists "*", "kvm*", "", "ksc_a, ksc_b",
 * "KSC_A" and "*_a". */
#include <linux/module.h>

int ksc_star(void), ksc_kvmstar(void), ksc_bare(void), ksc_space(void), ksc_upper(void),
	ksc_lead(void);
static void *ksc_used[] __used = { ksc_star, ksc_kvmstar, ksc_bare, ksc_space, ksc_upper,
				   ksc_lead };

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test: importer of every pattern shape");
