// SPDX-License-Identifier: LGPL-2.1-or-later
/* Options structs that can grow (opts.h). */
#include <errno.h>
#include <string.h>

#include "opts.h"

int opts_check(const void *opts, size_t lib_sz)
{
	const unsigned char *p = opts;
	size_t sz;

	if (!opts)
		return 0;
	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(sz) || sz > OPTS_MAX_SIZE)
		return -EINVAL;
	for (size_t i = lib_sz; i < sz; i++)
		if (p[i])
			return -EINVAL;
	return 0;
}

int opts_copy_(void *dst, size_t lib_sz, const void *opts)
{
	size_t sz;

	if (!opts)
		return 0;
	if (opts_check(opts, lib_sz) < 0)
		return -EINVAL;
	memcpy(&sz, opts, sizeof(sz));
	memcpy(dst, opts, sz < lib_sz ? sz : lib_sz);
	memcpy(dst, &lib_sz, sizeof(lib_sz));
	return 0;
}
