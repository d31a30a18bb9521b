// SPDX-License-Identifier: LGPL-2.1-or-later
/* Growing arrays (array.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "array.h"

int array_reserve_(void **p, size_t *cap, size_t need, size_t elem, size_t min)
{
	size_t c = *cap ? *cap : (min ? min : 1);

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	return array_resize_(p, cap, c, elem);
}

int array_resize_(void **p, size_t *cap, size_t n, size_t elem)
{
	if (elem && n > SIZE_MAX / elem)
		return -ENOMEM;
	size_t bytes = n * elem;
	void *q = realloc(*p, bytes ? bytes : 1);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}
