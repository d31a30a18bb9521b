// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tools/text.c: how untrusted names are rendered in text output (controls, C1, invalid
 * UTF-8, characters that reorder lines), how wide they are, and capped table columns.
 * The file is compiled into this test: it is part of the tool, not of the library.
 */
#include "unit.h"

#include "tools/text.c"

static void assert_esc(const char *in, const char *want, size_t width)
{
	const char *got = text_esc(in);

	assert_string_equal(got, want);
	assert_int_equal(text_width(in), width);
}

static void test_esc_plain(void **state)
{
	const char *s = "usb_stor_suspend";

	/* nothing to escape: the string itself, no copy */
	assert_ptr_equal(text_esc(s), s);
	assert_esc("", "", 0);
	assert_esc("a\\x1b b", "a\\x1b b", 7);           /* a backslash stays */
	assert_esc("caf\xc3\xa9", "caf\xc3\xa9", 4);      /* U+00E9: one column */
	assert_esc("\xf0\x9f\x90\xa7", "\xf0\x9f\x90\xa7", 1); /* U+1F427 */
	assert_ptr_equal(text_esc(NULL), NULL);
	assert_int_equal(text_width(NULL), 0);
}

static void test_esc_controls(void **state)
{
	assert_esc("\x1b[2Jx", "\\x1b[2Jx", 8);
	assert_esc("a\rb\nc\td\a", "a\\x0db\\x0ac\\x09d\\x07", 20);
	assert_esc("\x7f", "\\x7f", 4);
	assert_esc("\x01\x1f", "\\x01\\x1f", 8);
	/* C1: U+009B (CSI) is two bytes, each shown */
	assert_esc("x\xc2\x9b" "1m", "x\\xc2\\x9b1m", 11);
	/* U+00A0 is the first character after C1: kept */
	assert_esc("\xc2\xa0", "\xc2\xa0", 1);
}

static void test_esc_invalid_utf8(void **state)
{
	assert_esc("\xff", "\\xff", 4);
	assert_esc("a\x80z", "a\\x80z", 6);              /* stray continuation byte */
	assert_esc("\xc0\xaf", "\\xc0\\xaf", 8);          /* overlong '/' */
	assert_esc("\xed\xa0\x80", "\\xed\\xa0\\x80", 12); /* a surrogate */
	assert_esc("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", 16); /* above U+10FFFF */
	assert_esc("\xe2\x82", "\\xe2\\x82", 8);          /* cut short at the end */
	assert_esc("\xe2\x82x", "\\xe2\\x82x", 9);
	assert_int_equal(text_utf8_len((const unsigned char *)"\xe2\x82\xac"), 3);
	assert_int_equal(text_utf8_len((const unsigned char *)"\xe2\x82"), 0);
	assert_int_equal(text_utf8_len((const unsigned char *)""), 1);
}

static void test_esc_layout(void **state)
{
	/* U+202E RIGHT-TO-LEFT OVERRIDE, U+2028 LINE SEPARATOR, U+2066 LRI */
	assert_esc("ab\xe2\x80\xae" "cd", "ab\\u202ecd", 10);
	assert_esc("\xe2\x80\xa8", "\\u2028", 6);
	assert_esc("\xe2\x81\xa6", "\\u2066", 6);
	/* U+2030 PER MILLE SIGN, next to them: kept */
	assert_esc("\xe2\x80\xb0", "\xe2\x80\xb0", 1);
}

/* text_esc_ws(): free text keeps TAB and LF, as kmod's modinfo prints it; nothing else. */
static void test_esc_ws(void **state)
{
	const char *s = "line one\n\tline two";

	assert_ptr_equal(text_esc_ws(s), s);
	assert_string_equal(text_esc_ws("a\tb\r\n\x1b[1mc\xff"), "a\tb\\x0d\n\\x1b[1mc\\xff");
	assert_string_equal(text_esc_ws("\xe2\x80\xa8"), "\\u2028");
	assert_ptr_equal(text_esc_ws(NULL), NULL);
	/* text_esc() of the same string still escapes them */
	assert_string_equal(text_esc(s), "line one\\x0a\\x09line two");
}

/* TEXT_ESC_LIVE escaped results can be used together. */
static void test_esc_live(void **state)
{
	const char *r[TEXT_ESC_LIVE];
	char in[TEXT_ESC_LIVE][8];

	for (int i = 0; i < TEXT_ESC_LIVE; i++) {
		snprintf(in[i], sizeof(in[i]), "%d\x1b", i);
		r[i] = text_esc(in[i]);
	}
	for (int i = 0; i < TEXT_ESC_LIVE; i++) {
		char want[16];
		snprintf(want, sizeof(want), "%d\\x1b", i);
		assert_string_equal(r[i], want);
	}
}

static void test_columns(void **state)
{
	char *buf = NULL;
	size_t size = 0, w = 6;
	FILE *f;

	text_col_fit(&w, "abc", 10);
	assert_int_equal(w, 6);
	text_col_fit(&w, "abcdefgh", 10);
	assert_int_equal(w, 8);
	text_col_fit(&w, "abcdefghijklmnop", 10); /* capped */
	assert_int_equal(w, 10);
	text_col_fit(&w, "\x1b\x1b", 10);          /* as printed: 8 columns */
	assert_int_equal(w, 10);

	f = open_memstream(&buf, &size);
	assert_non_null(f);
	text_cell(f, "ab", 5);
	fputc('|', f);
	text_cell(f, "abcdefg", 5); /* wider: whole, no padding */
	fputc('|', f);
	text_cell(f, "\xc3\xa9\x07", 6); /* 1 + 4 columns */
	fputc('|', f);
	text_cell(f, NULL, 2);
	fputc('|', f);
	fclose(f);
	assert_string_equal(buf, "ab   |abcdefg|\xc3\xa9\\x07 |  |");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_esc_plain),
		cmocka_unit_test(test_esc_controls),
		cmocka_unit_test(test_esc_invalid_utf8),
		cmocka_unit_test(test_esc_layout),
		cmocka_unit_test(test_esc_ws),
		cmocka_unit_test(test_esc_live),
		cmocka_unit_test(test_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
