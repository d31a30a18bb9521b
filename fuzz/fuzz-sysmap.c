// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the System.map / kallsyms reader on arbitrary bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksc_ctx *ctx;
	struct ksc_sysmap *sm;
	size_t n;
	char *text;

	if (!ctx) {
		ctx = ksc_new();
		if (!ctx)
			return 0;
		ksc_set_log_fn(ctx, NULL, NULL);
	}
	/* An exact-size heap copy, not NUL-terminated, so any overread is caught. */
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	if (ksc_sysmap_new_from_memory(ctx, "fuzz", text, size, &sm) < 0) {
		free(text);
		return 0;
	}
	free(text);

	n = ksc_sysmap_get_export_count(sm);
	if (n > ksc_sysmap_get_symbol_count(sm) || ksc_sysmap_get_symbol_count(sm) == 0)
		abort();
	for (size_t i = 0; i < n; i++) {
		const char *name = ksc_sysmap_get_export(sm, i);

		/* Exports are non-empty names without separators, each listed once. */
		if (!name || !*name || strpbrk(name, " \t\n") ||
		    !ksc_sysmap_has_export(sm, name))
			abort();
		for (size_t j = i + 1; j < n && j < i + 8; j++)
			if (streq(name, ksc_sysmap_get_export(sm, j)))
				abort();
	}
	if (ksc_sysmap_get_export(sm, n))
		abort();
	ksc_sysmap_unref(sm);
	return 0;
}
