// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Options structs that grow (util/opts.h): the library below knows version 2 of a
 * struct; a caller built with version 1 (older), 2 or 3 (newer) passes its own.
 */
#include "unit.h"

#include <stddef.h>
#include <string.h>

#include "util/opts.h"

/* (A field added starts past the older struct's padding: opts.h.) */
struct v1 {
	size_t sz;
	long a;
};

struct v2 { /* the library's */
	size_t sz;
	long a;
	int b; /* default 7 */
	const char *c;
};

struct v3 {
	size_t sz;
	long a;
	int b;
	const char *c;
	long d; /* unknown to the library */
};

/* The caller's struct as the library's code sees it (out of the compiler's sight). */
__attribute__((noinline)) static const struct v2 *as_lib(const void *p)
{
	return p;
}

static struct v2 defaults(void)
{
	return (struct v2){ .sz = sizeof(struct v2), .b = 7 };
}

/* An older caller: its fields copied, the rest the library's defaults. */
static void test_old_size(void **state)
{
	struct v1 old = { .sz = sizeof(old), .a = 3 };
	struct v2 o = defaults();

	(void)state;
	assert_int_equal(opts_copy(&o, (const void *)&old), 0);
	assert_int_equal(o.sz, sizeof(struct v2));
	assert_int_equal(o.a, 3);
	assert_int_equal(o.b, 7);
	assert_null(o.c);

	const struct v2 *lib = as_lib(&old);
	assert_false(opts_has(lib, b));
	assert_int_equal(opts_get(lib, b, 7), 7);
	assert_true(opts_has(lib, a));
	assert_int_equal(opts_get(lib, a, 0), 3);
	assert_true(opts_valid(lib));
}

/* The same version: everything copied. */
static void test_same_size(void **state)
{
	struct v2 in = { .sz = sizeof(in), .a = 1, .b = 2, .c = "x" };
	struct v2 o = defaults();

	(void)state;
	assert_int_equal(opts_copy(&o, &in), 0);
	assert_int_equal(o.b, 2);
	assert_string_equal(o.c, "x");
	assert_int_equal(opts_copy(&o, NULL), 0); /* NULL: the defaults stay */
	assert_int_equal(o.b, 2);
}

/* A newer caller: accepted when what the library does not know is zero, else -EINVAL
 * with the library's struct untouched. */
static void test_new_size(void **state)
{
	struct v3 in;
	struct v2 o = defaults();

	(void)state;
	memset(&in, 0, sizeof(in));
	in.sz = sizeof(in);
	in.a = 5;
	in.b = 6;
	assert_int_equal(opts_copy(&o, (const void *)&in), 0);
	assert_int_equal(o.a, 5);
	assert_int_equal(o.b, 6);
	assert_int_equal(o.sz, sizeof(struct v2));

	in.d = 1;
	o = defaults();
	assert_int_equal(opts_copy(&o, (const void *)&in), -EINVAL);
	assert_int_equal(o.a, 0);
	assert_int_equal(o.b, 7);
	assert_false(opts_valid(as_lib(&in)));
	assert_int_equal(opts_check(&in, sizeof(struct v3)), 0);
}

/* Sizes that cannot be a struct's: below the size field, or absurdly large. */
static void test_bad_sizes(void **state)
{
	struct v3 in;
	struct v2 o = defaults();

	(void)state;
	memset(&in, 0, sizeof(in));
	in.sz = 0;
	assert_int_equal(opts_copy(&o, (const void *)&in), -EINVAL);
	in.sz = sizeof(size_t) - 1;
	assert_int_equal(opts_check(&in, sizeof(struct v2)), -EINVAL);
	in.sz = sizeof(size_t); /* only the size: every field its default */
	assert_int_equal(opts_copy(&o, (const void *)&in), 0);
	assert_int_equal(o.b, 7);
	in.sz = (size_t)-1;
	assert_int_equal(opts_check(&in, sizeof(struct v2)), -EINVAL);
	in.sz = OPTS_MAX_SIZE + 1;
	assert_int_equal(opts_check(&in, sizeof(struct v2)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_size),
		cmocka_unit_test(test_same_size),
		cmocka_unit_test(test_new_size),
		cmocka_unit_test(test_bad_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
