// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the writers of untrusted text. For any bytes, text output
 * (text_esc(), text_esc_ws()) has no raw control character and is valid UTF-8, and the
 * library's escaping of log messages (ksc_esc_alloc()) gives the same text; a JSON
 * string (json_text()) serialises to valid UTF-8 without a raw C0 control character
 * (JSON escapes those; DEL and C1 controls are valid JSON as they are) and parses back to
 * what it holds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/base.h"
#include "tools/text.c"
#include "tools/output.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Valid UTF-8, no C0 control (but those `allowed`), no DEL, no C1, no layout mark. */
static void check_text(const char *s, const char *allowed)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned int cp;
		size_t n = esc_utf8_seq(p, &cp);
		if (n == 0)
			abort(); /* invalid UTF-8 let through */
		if ((cp < 0x20 && !(allowed && strchr(allowed, (int)cp))) ||
		    (cp >= 0x7f && cp <= 0x9f) || esc_is_layout_char(cp))
			abort(); /* a raw control or layout character */
		p += n;
	}
}

/* JSON: valid UTF-8 and no C0 control (JSON's rule; DEL and C1 may stand as they are). */
static void check_json(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned int cp;
		size_t n = esc_utf8_seq(p, &cp);
		if (n == 0 || cp < 0x20)
			abort();
		p += n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0'; /* text stops at the first NUL, as C strings do */

	const char *e = text_esc(s);
	check_text(e, NULL);
	if (text_width(s) > strlen(e))
		abort();
	char *lib = ksc_esc_alloc(s);
	if (!lib || strcmp(lib, e) != 0)
		abort(); /* the library's log escapes differ from text output's */
	free(lib);
	check_text(text_esc_ws(s), "\t\n");

	json_object *o = json_text(s);
	if (!o)
		abort();
	const char *js = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	check_json(js);
	json_object *back = json_tokener_parse(js);
	if (!back || !json_object_is_type(back, json_type_string) ||
	    strcmp(json_object_get_string(back), json_object_get_string(o)) != 0)
		abort();
	json_object_put(back);
	json_object_put(o);
	free(s);
	return 0;
}
