// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: the readers' plan of a sparse read (ksc_elf_plan_*(),
 * lib/readers/ksc-elf-plan.c) on arbitrary bytes, loaded as the tree loads them: every
 * range it asks for must lie inside the file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "readers/readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int add(void *data, uint64_t off, uint64_t len)
{
	uint64_t size = *(const uint64_t *)data;

	if (off > size || len > size - off || len == 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksc_elf_plan plan;
	uint64_t sz = size;

	if (!ksc_elf_plan_open(&plan, data, size < 64 ? size : 64, size))
		return 0;
	if (plan.shdr_off > sz || plan.shdr_len > sz - plan.shdr_off)
		abort();
	if (!ksc_elf_plan_names(&plan, data))
		return 0;
	if (plan.names_off > sz || plan.names_len > sz - plan.names_off)
		abort();
	ksc_elf_plan_sections(&plan, data, add, &sz);
	return 0;
}
