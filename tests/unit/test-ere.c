// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * util/ere.c against glibc: for patterns glibc compiles cheaply (at most seven atoms,
 * counted repetition only as {2}: with {1,3} among them glibc's regcomp() ran for minutes
 * on some), ere_search() answers as regcomp(REG_EXTENDED | REG_NOSUB) and regexec() do, on depmod.d-like version patterns and on random ones; the patterns that
 * make glibc take gigabytes are refused or answered in bounded time. The file is compiled
 * into this test.
 */
#include "unit.h"

#include <regex.h>
#include <time.h>

#include "util/ere.c"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* glibc's answer: 1, 0, or -EINVAL where it cannot compile the pattern. */
static int glibc_search(const char *pattern, const char *text)
{
	regex_t re;
	int r;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		return -EINVAL;
	r = regexec(&re, text, 0, NULL, 0) == 0;
	regfree(&re);
	return r;
}

static const char *const releases[] = {
	"6.1.0-57-amd64", "6.12.117+deb13-amd64", "7.2.13+deb14-cloud-amd64", "6.16.0-demo",
	"", "5.10.0-rt", "7.3.0-rc4-arm64", "a", "aaaa-bbbb",
};

/* Version patterns as depmod.d files write them, and the corners of the syntax. */
static const char *const written[] = {
	"6\\.1\\..*", "^6\\.12", "amd64$", ".*-rt.*", "^(6|7)\\.[0-9]+\\.", "[[:digit:]]+-cloud",
	"deb1[34]", "x|y|amd", "^$", "(a|b)*c?", "a{2,3}", "[^0-9]", "[.]", "[]a]", "[a-]",
	"6\\.1\\.0-5[0-9]-amd64", "^[67]\\.[0-9]{1,2}\\.[0-9]+", "()", "a**", "(^a)", "b$|^6",
	"[[:alpha:]]{4}", "\\w+\\.\\w", "\\s", "rc[0-9]$", "-(rt|cloud)-", ".",
};

static void test_written(void **state)
{
	(void)state;
	for (size_t p = 0; p < NELEM(written); p++)
		for (size_t t = 0; t < NELEM(releases); t++) {
			int want = glibc_search(written[p], releases[t]);
			int got = ere_search(written[p], releases[t]);

			if (got != want)
				fail_msg("'%s' on '%s': %d, glibc %d", written[p], releases[t], got, want);
		}
}

/*
 * Random patterns over a small alphabet of the syntax: where glibc compiles one, the
 * answers agree. ere_search() may refuse a pattern glibc takes past its bounds (-E2BIG)
 * or one that repeats an empty anchor such as "(^)+" (-EINVAL: no depmod.d file has
 * one; kmod then takes "no match"): those are counted, and must stay rare.
 */
static void test_random(void **state)
{
	static const char *const atoms[] = {
		"a", "b", "6", ".", "-", "\\.", "[ab]", "[^a]", "[0-9]", "(", ")", "|", "*", "+",
		"?", "{2}", "^", "$", "[[:digit:]]",
	};
	unsigned int seed = 20261207, agreed = 0, refused = 0;
	char pattern[64];

	(void)state;
	for (int i = 0; i < 40000; i++) {
		size_t n = 1 + rand_r(&seed) % 7, len = 0;

		pattern[0] = '\0';
		for (size_t k = 0; k < n; k++) {
			const char *a = atoms[rand_r(&seed) % NELEM(atoms)];

			if (len + strlen(a) + 1 > sizeof(pattern))
				break;
			memcpy(pattern + len, a, strlen(a) + 1);
			len += strlen(a);
		}
		for (size_t t = 0; t < NELEM(releases); t++) {
			int want = glibc_search(pattern, releases[t]);
			int got = ere_search(pattern, releases[t]);

			if (want < 0 || got == -E2BIG)
				continue;
			if (got == -EINVAL) {
				refused++;
				continue;
			}
			if (got != want)
				fail_msg("'%s' on '%s': %d, glibc %d", pattern, releases[t], got, want);
			agreed++;
		}
	}
	print_message("%u answers agreed with glibc, %u patterns refused\n", agreed, refused);
	assert_true(agreed > 100000);
	assert_true(refused * 100 < agreed);
}

/* Nested counted repetitions: glibc takes gigabytes; here refused or answered at once. */
static void test_bounded(void **state)
{
	static const char *const bombs[] = {
		"((a{1,100}){1,100}){1,100}", "(((.*){1,32767}){1,32767})", "(a|b|c{0,999}){999}x",
		"((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))",
	};
	(void)state;
	for (size_t i = 0; i < NELEM(bombs); i++) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		int r = ere_search(bombs[i], "6.1.0-57-amd64");
		clock_gettime(CLOCK_MONOTONIC, &b);
		assert_true(r == 0 || r == 1 || r == -E2BIG || r == -ELOOP);
		assert_true(b.tv_sec - a.tv_sec < 2);
	}
	assert_int_equal(ere_search("\\1", "a"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_written),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_bounded),
	};
	return cmocka_run_group_tests_name("ere", tests, NULL, NULL);
}
