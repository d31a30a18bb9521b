/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Options structs that can grow: each public `struct ksc_*_opts` starts with `size_t sz`,
 * which the caller sets to the sizeof() it was compiled with. A library newer than the
 * caller sees a smaller struct: the fields it lacks read as their defaults. A library
 * older than the caller sees a larger one: accepted only when every byte past the
 * fields it knows is zero (the caller asked for nothing the library cannot do), else
 * -EINVAL. A size smaller than the sz field itself, or over OPTS_MAX_SIZE (no options
 * struct is near that: such a size is garbage), is -EINVAL.
 *
 * The sizes are sizeof()s, padding included: a field added to a struct must start past
 * the older struct's end, not in its tail padding (which an older caller may not zero).
 *
 *	struct ksc_x_opts o = { .sz = sizeof(o), .limit = 10 };   (the defaults)
 *	r = opts_copy(&o, opts);      (0 or -EINVAL; NULL opts keeps the defaults)
 *
 *	if (!opts_valid(opts)) return -EINVAL;
 *	... opts_get(opts, before_replace, NULL) ...
 */

#define OPTS_MAX_SIZE 4096

/*
 * 0 when the options at opts (NULL: none) suit a library that knows lib_sz bytes of
 * them, else -EINVAL.
 */
int opts_check(const void *opts, size_t lib_sz);

/*
 * Copy the caller's options over the defaults in dst (lib_sz bytes, the library's
 * struct): the bytes both know; dst's sz becomes lib_sz. 0, or -EINVAL with dst as it
 * was.
 */
int opts_copy_(void *dst, size_t lib_sz, const void *opts);

#define opts_copy(dst, opts) opts_copy_((dst), sizeof(*(dst)), (opts))

#define opts_valid(opts) (opts_check((opts), sizeof(*(opts))) == 0)

/* Does the caller's struct reach past field? (It was compiled with the field.) */
#define opts_has(opts, field)                                                            \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) + sizeof((opts)->field))

/* The caller's field, or fallback when its struct is older than the field. */
#define opts_get(opts, field, fallback) (opts_has(opts, field) ? (opts)->field : (fallback))
