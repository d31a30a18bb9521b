// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: depmod's .bin tries (lib/readers/ksc-depmod-bin.c). The first byte is
 * the length of a key, then the key, then the file: parsed from an exact-size copy (so
 * that any read past it is caught), every node visited and counted, the key and a few fixed ones
 * looked up. Nothing may crash, hang or return a value outside the file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "readers/readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const keys[] = {
	"kvm", "kvm_amd", "symbol:kvm_init", "symbol:", "", "a", "symbol:module_layout",
};

static void look(const struct ksc_depbin *db, const char *key)
{
	struct ksc_depbin_value v;
	int r = ksc_depbin_lookup(db, key, &v);

	if (r == 1) {
		const char *lo = (const char *)db->data, *hi = lo + db->size;
		if (v.value < lo || v.value + v.len >= hi || v.value[v.len] != '\0' || !v.count)
			abort();
	} else if (r != 0 && r != -EINVAL && r != -EILSEQ) {
		abort();
	}
}

/* Each value handed over lies in the file, its NUL after it. */
static int in_file(void *data, const char *value, size_t len)
{
	const struct ksc_depbin *db = data;
	const char *lo = (const char *)db->data, *hi = lo + db->size;

	if (value < lo || value + len >= hi || value[len] != '\0')
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksc_depbin db;
	size_t klen, keys_n, values_n;

	if (!size)
		return 0;
	klen = data[0];
	if (klen > size - 1)
		klen = size - 1;
	char *key = malloc(klen + 1);
	unsigned char *file = malloc(size - 1 - klen ? size - 1 - klen : 1);
	if (key && file) {
		memcpy(key, data + 1, klen);
		key[klen] = '\0';
		memcpy(file, data + 1 + klen, size - 1 - klen);
		if (ksc_depbin_parse(file, size - 1 - klen, &db) == 0) {
			int r = ksc_depbin_each(&db, in_file, &db, &keys_n, &values_n);
			if (r != 0 && r != -EINVAL && r != -ELOOP && r != -ENOMEM)
				abort();
			if (r == 0 && keys_n > values_n)
				abort();
			look(&db, key);
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
				look(&db, keys[i]);
		}
	}
	free(key);
	free(file);
	return 0;
}
