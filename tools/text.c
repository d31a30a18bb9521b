// SPDX-License-Identifier: GPL-2.0-or-later
/* Untrusted text in text output, padded table columns, and the one JSON writer (see
 * tools/text.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/text.h"
#include "util/esc.h"

size_t text_utf8_len(const unsigned char *s)
{
	unsigned cp;

	return esc_utf8_seq(s, &cp);
}

static char *ring[TEXT_ESC_LIVE];
static unsigned ring_next;

static const char *esc(const char *s, bool keep_ws)
{
	size_t len;
	char *e;

	if (!s)
		return NULL;
	len = esc_render(s, keep_ws, NULL, NULL);
	if (len == strlen(s))
		return s; /* every escape is longer than what it stands for */
	e = malloc(len + 1);
	if (!e)
		return "?";
	esc_render(s, keep_ws, e, NULL);
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
		esc_render(s, false, NULL, &w);
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

/*
 * Serialised JSON to f, with what json-c leaves raw escaped as \uXXXX: DEL, the C1
 * controls and the characters that reorder text or break lines (U+202E and the like;
 * util/esc.h), which would reach a terminal or an editor and make a file name or a
 * .modinfo value read as another. Outside strings the text is ASCII, so each such
 * character is inside one, where the escape means the same; json_text() has made the
 * strings valid UTF-8. After each line end, `indent` (NULL: none). With `html`, '<', '>'
 * and '&' too (they occur only inside strings): the JSON can then neither end nor
 * confuse the HTML script element it is put in ("</script", "<!--").
 */
void json_write(FILE *f, const char *s, const char *indent, bool html)
{
	const unsigned char *p = (const unsigned char *)s;

	while (p && *p) {
		unsigned int cp;
		size_t n = esc_utf8_seq(p, &cp);
		if (n == 0) {
			n = 1, cp = 0xfffd; /* not from json_text(): cannot happen, made visible */
			fputs("\\ufffd", f);
		} else if (cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || esc_is_layout_char(cp) ||
			   (html && (cp == '<' || cp == '>' || cp == '&'))) {
			fprintf(f, "\\u%04x", cp);
		} else {
			fwrite(p, 1, n, f);
			if (*p == '\n' && indent)
				fputs(indent, f);
		}
		p += n;
	}
}
