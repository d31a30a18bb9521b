// SPDX-License-Identifier: GPL-2.0-or-later
/* Untrusted text in text output, and padded table columns (see tools/text.h). */
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
