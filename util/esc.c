// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Visible escapes for untrusted text (see util/esc.h). Hand-written: glibc's mbrtowc()
 * depends on the locale, and the escaping must not (a C-locale run would escape every
 * non-ASCII name, a UTF-8 one would let a C1 control through).
 */
#include <string.h>

#include "esc.h"

size_t esc_utf8_seq(const unsigned char *s, unsigned int *cp)
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
			return 0; /* the NUL that ends a cut sequence stops here too */
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

bool esc_is_layout_char(unsigned int cp)
{
	return cp == 0x200e || cp == 0x200f || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t esc_render(const char *str, bool keep_ws, char *out, size_t *cols)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t len = 0, w = 0;

	while (*s) {
		unsigned int cp = 0;
		size_t n = esc_utf8_seq(s, &cp);
		bool bytes = n == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);

		if (keep_ws && (cp == '\t' || cp == '\n'))
			bytes = false;
		if (bytes) {
			/* each byte as \xHH: one for a byte that starts nothing valid */
			size_t k = n ? n : 1;

			for (size_t i = 0; i < k; i++, len += 4)
				if (out) {
					out[len] = '\\';
					out[len + 1] = 'x';
					out[len + 2] = hex[s[i] >> 4];
					out[len + 3] = hex[s[i] & 0xf];
				}
			w += 4 * k;
			s += k;
		} else if (esc_is_layout_char(cp)) {
			if (out) { /* all of them below U+10000: four digits */
				out[len] = '\\';
				out[len + 1] = 'u';
				for (int i = 0; i < 4; i++)
					out[len + 2 + i] = hex[cp >> (12 - 4 * i) & 0xf];
			}
			len += 6;
			w += 6;
			s += n;
		} else {
			if (out)
				memcpy(out + len, s, n);
			len += n;
			w++;
			s += n;
		}
	}
	if (cols)
		*cols = w;
	return len;
}
