// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcheck kbuild lane, case "many_unresolved": calls 12 functions nobody exports,
 * ksc_missing_12 down to ksc_missing_01 (so .symtab order is not name order). modpost
 * reports at most 10 unresolved symbols per run, in the object's .symtab order, and then
 * "suppressed 2 unresolved symbol warnings because there were too many)" (a WARNING).
 */
#include <linux/module.h>

extern void ksc_missing_01(void);
extern void ksc_missing_02(void);
extern void ksc_missing_03(void);
extern void ksc_missing_04(void);
extern void ksc_missing_05(void);
extern void ksc_missing_06(void);
extern void ksc_missing_07(void);
extern void ksc_missing_08(void);
extern void ksc_missing_09(void);
extern void ksc_missing_10(void);
extern void ksc_missing_11(void);
extern void ksc_missing_12(void);

static int ksc_never;
module_param(ksc_never, int, 0);

static int __init many_unresolved_init(void)
{
	if (ksc_never) {
		ksc_missing_12();
		ksc_missing_11();
		ksc_missing_10();
		ksc_missing_09();
		ksc_missing_08();
		ksc_missing_07();
		ksc_missing_06();
		ksc_missing_05();
		ksc_missing_04();
		ksc_missing_03();
		ksc_missing_02();
		ksc_missing_01();
	}
	return 0;
}

static void __exit many_unresolved_exit(void)
{
}

module_init(many_unresolved_init);
module_exit(many_unresolved_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test module: more unresolved symbols than modpost reports");
