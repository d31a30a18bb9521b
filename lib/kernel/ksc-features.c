// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What each kernel version has: one table of the features the rules depend on, with the
 * first version that has each and where in the kernel it comes from (doc/rules.md gives
 * the versions of each rule). The loader and modpost views (lib/engine), src migrate and
 * nsdeps' edits (lib/source) all read a version through ksc_features_init().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/kernel.h"

const struct ksc_feature_row ksc_feature_table[KSC_FEAT_COUNT] = {
	[KSC_FEAT_NAMESPACES] = { "symbol namespaces", 5, 4, { { 0, 0 } },
		"include/linux/export.h EXPORT_SYMBOL_NS(), kernel/module.c verify_namespace_is_imported()" },
	[KSC_FEAT_INHERIT_TAINT] = { "proprietary providers taint their users", 5, 13, { { 0, 0 } },
		"kernel/module.c inherit_taint() (approx.)" },
	[KSC_FEAT_TAINT_SYMNAME] = { "the symbol named in the taint messages", 5, 19, { { 0, 0 } },
		"kernel/module/main.c inherit_taint() (approx.)" },
	[KSC_FEAT_AUGMENT_TAINTS] = { "module license taints kernel.", 6, 4, { { 0, 0 } },
		"kernel/module/main.c module_augment_kernel_taints()" },
	[KSC_FEAT_STRING_NS] = { "namespaces as string literals", 6, 13, { { 0, 0 } },
		"include/linux/module.h MODULE_IMPORT_NS(\"NS\"), include/linux/export.h" },
	[KSC_FEAT_EXT_MODVERSIONS] = { "extended modversions", 6, 14, { { 0, 0 } },
		"kernel/module/version.c, __version_ext_crcs" },
	[KSC_FEAT_GPL_FOR_MODULES] = { "EXPORT_SYMBOL_GPL_FOR_MODULES", 6, 16, { { 6, 6 }, { 6, 12 } },
		"include/linux/export.h (the 6.6.y and 6.12.y stable kernels got the macro only)" },
	[KSC_FEAT_MODNS] = { "module: namespaces", 6, 16, { { 0, 0 } },
		"kernel/module/main.c verify_namespace_is_imported(), scripts/mod/modpost.c" },
	[KSC_FEAT_FOR_MODULES] = { "EXPORT_SYMBOL_FOR_MODULES", 6, 17, { { 0, 0 } },
		"include/linux/export.h" },
	[KSC_FEAT_FOR_KVM] = { "EXPORT_SYMBOL_FOR_KVM", 6, 19, { { 0, 0 } },
		"include/linux/kvm_types.h (approx.)" },
	[KSC_FEAT_KFLAGSTAB] = { "the __kflagstab export flags", 7, 1, { { 0, 0 } },
		"kernel/module/main.c, include/linux/export-internal.h" },
	[KSC_FEAT_MODPOST_MOD_LOG] = { "modpost names the module first", 7, 3, { { 0, 0 } },
		"scripts/mod/modpost.c modpost_log()" },
	[KSC_FEAT_MODPOST_DESCRIPTION] = { "modpost warns about a missing MODULE_DESCRIPTION()",
		6, 15, { { 0, 0 } },
		"scripts/mod/modpost.c read_symbols() (6.5-6.14: with W=1 only)" },
};

static bool row_has(const struct ksc_feature_row *row, const struct ksc_kver *v)
{
	if (ksc_kver_cmp(v, row->major, row->minor, 0) >= 0)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(row->backport) && row->backport[i].major; i++)
		if (v->major == row->backport[i].major && v->minor == row->backport[i].minor)
			return true;
	return false;
}

int ksc_features_init(struct ksc_features *f, const char *kver)
{
	memset(f, 0, sizeof(*f));
	if (ksc_kver_parse(kver, &f->v) < 0)
		return -EINVAL;
	snprintf(f->name, sizeof(f->name), "%u.%u", f->v.major, f->v.minor);
	for (size_t i = 0; i < KSC_FEAT_COUNT; i++)
		f->has[i] = row_has(&ksc_feature_table[i], &f->v);
	if (f->has[KSC_FEAT_FOR_MODULES])
		f->fm_macro = "EXPORT_SYMBOL_FOR_MODULES";
	else if (f->has[KSC_FEAT_GPL_FOR_MODULES])
		f->fm_macro = "EXPORT_SYMBOL_GPL_FOR_MODULES";
	f->fm_backport = f->has[KSC_FEAT_GPL_FOR_MODULES] && !f->has[KSC_FEAT_MODNS];
	return 0;
}
