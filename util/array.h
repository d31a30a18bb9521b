/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

/*
 * Growing arrays kept as a pointer, a count and a capacity (in elements), the way the
 * library's structures hold them:
 *
 *	struct label *labels;
 *	size_t n_labels, n_alloc;
 *	...
 *	if (array_push(labels, n_labels, n_alloc, (struct label){ s, len }) < 0)
 *		return -ENOMEM;
 *
 * The capacity doubles from `min` elements (16 for array_push()) until it holds what is
 * needed; every size is checked for overflow. On failure (-ENOMEM) the array is left as
 * it was.
 */
int array_reserve_(void **p, size_t *cap, size_t need, size_t elem, size_t min)
	__attribute__((warn_unused_result));

/*
 * Room for `need` elements in all. 0 or -ENOMEM. When the room is there already, only
 * the comparison runs here (no call), so pushes in a loop cost what a hand-written
 * `if (n == cap)` costs.
 */
#define array_reserve(p, cap, need, min)                                                 \
	({                                                                               \
		size_t array_need_ = (need);                                             \
		int array_r_ = 0;                                                        \
		if (array_need_ > (cap)) {                                               \
			void *array_p_ = (p);                                            \
			array_r_ = array_reserve_(&array_p_, &(cap), array_need_,        \
						  sizeof(*(p)), (min));                  \
			(p) = array_p_;                                                  \
		}                                                                        \
		array_r_;                                                                \
	})

/* Append one element (an expression of the element type). 0 or -ENOMEM. */
#define array_push(p, n, cap, ...)                                                       \
	(array_reserve(p, cap, (n) + 1, 16) < 0 ? -ENOMEM : ((p)[(n)++] = (__VA_ARGS__), 0))

/*
 * Room for exactly `n` elements (more or fewer than now; n > 0), for a block whose
 * size is bounded by its user rather than doubled. 0 or -ENOMEM (the block as it was).
 */
int array_resize_(void **p, size_t *cap, size_t n, size_t elem)
	__attribute__((warn_unused_result));

#define array_resize(p, cap, n)                                                          \
	({                                                                               \
		void *array_p_ = (p);                                                    \
		int array_r_ = array_resize_(&array_p_, &(cap), (n), sizeof(*(p)));     \
		(p) = array_p_;                                                          \
		array_r_;                                                                \
	})

/* Free the elements' block; empty again. */
#define array_free(p, n, cap) (free(p), (p) = NULL, (n) = 0, (cap) = 0)
