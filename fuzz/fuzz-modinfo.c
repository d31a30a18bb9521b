// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the .modinfo parser alone, on arbitrary section contents. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "readers/readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksc_ctx *ctx;
	struct ksc_module *mod;

	if (!ctx) {
		ctx = ksc_new();
		ksc_set_log_fn(ctx, NULL, NULL);
	}
	mod = ksc_module_alloc(ctx);
	if (!mod)
		return 0;
	struct ksc_module_facts f = { .path = "fuzz" };
	ksc_module_set_facts(mod, &f);
	/* An exact-size heap copy, so reading one byte past the section is caught. */
	char *copy = malloc(size ? size : 1);
	if (!copy) {
		ksc_module_unref(mod);
		return 0;
	}
	memcpy(copy, data, size);
	if (ksc_modinfo_parse(mod, copy, size) == 0) {
		size_t it = 0, total = 0;
		for (size_t i = 0; i < ksc_module_get_modinfo_count(mod); i++) {
			const struct ksc_modinfo *mi = ksc_module_get_modinfo(mod, i);
			total += strlen(mi->key) + strlen(mi->value);
		}
		while (ksc_module_next_modinfo_value(mod, "import_ns", &it))
			total++;
		(void)total;
	}
	free(copy);
	ksc_module_unref(mod);
	return 0;
}
