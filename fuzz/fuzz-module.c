// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: the whole module/vmlinux reader (compression detection, ELF, .modinfo,
 * __versions, export tables, relocations) on arbitrary bytes, then every getter.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ksymcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksc_ctx *ctx;
	struct ksc_module *mod;

	if (!ctx) {
		ctx = ksc_new();
		ksc_set_log_fn(ctx, NULL, NULL);
	}
	if (ksc_module_new_from_memory(ctx, "fuzz.ko", data, size, &mod) < 0)
		return 0;
	/* Touch every record so ASan sees any dangling or out-of-bounds string. */
	volatile size_t sink = 0;
	sink += strlen(ksc_module_get_name(mod)) + strlen(ksc_module_get_kmod_name(mod));
	for (size_t i = 0; i < ksc_module_get_modinfo_count(mod); i++) {
		const struct ksc_modinfo *mi = ksc_module_get_modinfo(mod, i);
		sink += strlen(mi->key) + strlen(mi->value);
	}
	for (size_t i = 0; i < ksc_module_get_import_count(mod); i++)
		sink += strlen(ksc_module_get_import(mod, i)->name);
	for (size_t i = 0; i < ksc_module_get_version_count(mod); i++)
		sink += strlen(ksc_module_get_version(mod, i)->name);
	for (size_t i = 0; i < ksc_module_get_ext_version_count(mod); i++)
		sink += strlen(ksc_module_get_ext_version(mod, i)->name);
	for (size_t i = 0; i < ksc_module_get_export_count(mod); i++) {
		const struct ksc_export *e = ksc_module_get_export(mod, i);
		sink += strlen(e->name) + strlen(e->ns);
		if (ksc_module_find_export(mod, e->name) == NULL)
			abort();
	}
	(void)sink;
	ksc_module_unref(mod);
	return 0;
}
