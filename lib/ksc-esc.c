// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Untrusted text (file and module names, .modinfo values) in the messages the library
 * passes to its log callback: the same visible escapes as the tool's text output.
 */
#include <stdlib.h>
#include <string.h>

#include "ksc-internal.h"

/* The length of the valid UTF-8 sequence at s (its code point in *cp), or 0. */
static size_t utf8_seq(const unsigned char *s, unsigned int *cp)
{
	size_t n;
	unsigned int c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* a NUL inside the sequence ends it here too */
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Characters that reorder text or start a new line without being a control. */
static bool layout_char(unsigned int cp)
{
	return cp == 0x200e || cp == 0x200f || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* s rendered into out (when not NULL); the length of the result. */
static size_t esc_render(const unsigned char *s, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = 0;

	while (*s) {
		unsigned int cp = 0;
		size_t n = utf8_seq(s, &cp);

		if (n == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
			for (size_t i = 0, k = n ? n : 1; i < k; i++, len += 4)
				if (out) {
					out[len] = '\\';
					out[len + 1] = 'x';
					out[len + 2] = hex[s[i] >> 4];
					out[len + 3] = hex[s[i] & 0xf];
				}
			s += n ? n : 1;
		} else if (layout_char(cp)) {
			if (out) {
				out[len] = '\\';
				out[len + 1] = 'u';
				for (int i = 0; i < 4; i++)
					out[len + 2 + i] = hex[cp >> (12 - 4 * i) & 0xf];
			}
			len += 6;
			s += n;
		} else {
			if (out)
				memcpy(out + len, s, n);
			len += n;
			s += n;
		}
	}
	return len;
}

char *ksc_esc_alloc(const char *s)
{
	size_t len = esc_render((const unsigned char *)s, NULL);
	char *out = malloc(len + 1);

	if (!out)
		return NULL;
	esc_render((const unsigned char *)s, out);
	out[len] = '\0';
	return out;
}

bool ksc_text_has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}
