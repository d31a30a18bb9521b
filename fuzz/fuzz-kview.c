// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: what kmod reads from a module (ksc_kview_read(), lib/readers/ksc-kview.c:
 * exports, dependency symbols, modinfo) on arbitrary bytes, whole and as a sparse image
 * whose loaded ranges the first byte decides; then every string it returned is read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "readers/readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Ranges below the first byte's value * 64 count as loaded, the rest not. */
static bool loaded(void *data, uint64_t off, uint64_t size)
{
	uint64_t limit = *(const uint8_t *)data * 64u;

	return off <= limit && size <= limit - off;
}

static size_t touch(struct kv_str s)
{
	size_t sum = 0;

	for (size_t i = 0; i < s.n; i++)
		sum += (unsigned char)s.p[i];
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile size_t sink = 0;

	if (size < 1)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		struct kview kv;
		if (ksc_kview_read(data + 1, size - 1, pass ? loaded : NULL, (void *)data, pass,
				   &kv) < 0)
			continue;
		for (size_t i = 0; i < kv.n_exports; i++)
			sink += touch(kv.exports[i].name) + (size_t)kv.exports[i].crc;
		for (size_t i = 0; i < kv.n_deps; i++)
			sink += touch(kv.deps[i].name) + (size_t)kv.deps[i].crc;
		for (size_t i = 0; i < kv.n_info; i++)
			sink += touch(kv.info[i].key) + touch(kv.info[i].value);
		ksc_kview_free(&kv);
	}
	(void)sink;
	return 0;
}
