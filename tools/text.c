// SPDX-License-Identifier: GPL-2.0-or-later
/* Untrusted text in text output, and padded table columns (see tools/text.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/text.h"

/* The code point of the valid UTF-8 sequence at s in *cp; its length, or 0. */
static size_t utf8_decode(const unsigned char *s, unsigned *cp)
{
	size_t n;
	unsigned c;

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

size_t text_utf8_len(const unsigned char *s)
{
	unsigned cp;

	return utf8_decode(s, &cp);
}

/* Characters that move text around or start a new line without being a control. */
static bool is_layout_char(unsigned cp)
{
	return cp == 0x200e || cp == 0x200f || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * Walk s as text_esc() renders it (with keep_ws, as text_esc_ws()): the bytes of the
 * result go to `out` when it is not NULL; returns their number, and the columns they take
 * in *cols.
 */
static size_t render(const unsigned char *s, bool keep_ws, char *out, size_t *cols)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = 0, w = 0;

	while (*s) {
		unsigned cp = 0;
		size_t n = utf8_decode(s, &cp);
		bool bytes = n == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);

		if (keep_ws && (cp == '\t' || cp == '\n'))
			bytes = false;

		if (bytes) {
			/* each byte as \xHH: one for a byte that starts nothing valid */
			size_t k = n ? n : 1;
			for (size_t i = 0; i < k; i++, len += 4) {
				if (out) {
					out[len] = '\\';
					out[len + 1] = 'x';
					out[len + 2] = hex[s[i] >> 4];
					out[len + 3] = hex[s[i] & 0xf];
				}
			}
			w += 4 * k;
			s += k;
		} else if (is_layout_char(cp)) {
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

static char *ring[TEXT_ESC_LIVE];
static unsigned ring_next;

static const char *esc(const char *s, bool keep_ws)
{
	size_t len;
	char *e;

	if (!s)
		return NULL;
	len = render((const unsigned char *)s, keep_ws, NULL, NULL);
	if (len == strlen(s))
		return s; /* every escape is longer than what it stands for */
	e = malloc(len + 1);
	if (!e)
		return "?";
	render((const unsigned char *)s, keep_ws, e, NULL);
	e[len] = '\0';
	free(ring[ring_next]);
	ring[ring_next] = e;
	ring_next = (ring_next + 1) % TEXT_ESC_LIVE;
	return e;
}

const char *text_esc(const char *s)
{
	return esc(s, false);
}

const char *text_esc_ws(const char *s)
{
	return esc(s, true);
}

size_t text_width(const char *s)
{
	size_t w = 0;

	if (s)
		render((const unsigned char *)s, false, NULL, &w);
	return w;
}

void text_col_fit(size_t *width, const char *cell, size_t cap)
{
	size_t w = text_width(cell);

	if (w > cap)
		w = cap;
	if (w > *width)
		*width = w;
}

void text_cell(FILE *f, const char *cell, size_t width)
{
	size_t w;

	if (!cell)
		cell = "";
	w = text_width(cell);
	fputs(text_esc(cell), f);
	for (; w < width; w++)
		fputc(' ', f);
}
