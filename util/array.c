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
	if (elem && c > SIZE_MAX / elem)
		return -ENOMEM;
	void *q = realloc(*p, c * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}
