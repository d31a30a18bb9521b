// SPDX-License-Identifier: GPL-2.0
/* Exports for modules named by every shape of pattern list. */
#include <linux/module.h>

#define KSC_EXPORT(sym, list) \
	int sym(void); \
	int sym(void) { return __LINE__; } \
	EXPORT_SYMBOL_FOR_MODULES(sym, list)

KSC_EXPORT(ksc_star, "*");
KSC_EXPORT(ksc_kvmstar, "kvm*");
KSC_EXPORT(ksc_bare, "");
KSC_EXPORT(ksc_space, "ksc_a, ksc_b");
KSC_EXPORT(ksc_upper, "KSC_A");
KSC_EXPORT(ksc_lead, "*_a");
KSC_EXPORT(ksc_dash, "ksc-three");
KSC_EXPORT(ksc_under, "ksc_three");

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test: exports for pattern lists");
