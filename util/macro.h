/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdlib.h>

#define _printf_format_(a, b) __attribute__((format(printf, a, b)))
#define _must_check_ __attribute__((warn_unused_result))
#define _nonnull_(...) __attribute__((nonnull(__VA_ARGS__)))
#define _unused_ __attribute__((unused))
#define _cleanup_(x) __attribute__((cleanup(x)))
#define _cleanup_free_ _cleanup_(freep)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define streq(a, b) (strcmp((a), (b)) == 0)
#define strstartswith(a, b) (strncmp((a), (b), strlen(b)) == 0)

static inline void freep(void *p)
{
	free(*(void **)p);
}
