/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Untrusted text (module, symbol and file names, .modinfo values) in text output, and
 * the padded columns of text tables.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Length of the valid UTF-8 sequence at s (1 to 4 bytes; 1 for an ASCII byte, NUL
 * included), or 0 when s does not start one (a stray continuation byte, an overlong
 * form, a surrogate, a code point above U+10FFFF, or a sequence cut short).
 */
size_t text_utf8_len(const unsigned char *s);

/*
 * s as it may be printed to a terminal: printable ASCII and valid UTF-8 as they are;
 * each byte of a C0 control (NUL to 0x1f, TAB, LF, CR and ESC included), of DEL, of a C1
 * control (U+0080 to U+009F) and of anything that is not valid UTF-8 as "\xHH"; the
 * characters that reorder or break lines (U+2028, U+2029, U+200E, U+200F, U+202A to
 * U+202E, U+2066 to U+2069) as "\uHHHH". A backslash stays as it is.
 *
 * Returns s itself when nothing needs escaping, else a copy owned here that stays valid
 * until TEXT_ESC_LIVE more calls have escaped something; so up to TEXT_ESC_LIVE results
 * may be used in one printf(). "?" when out of memory. NULL is returned as NULL.
 */
#define TEXT_ESC_LIVE 8
const char *text_esc(const char *s);
/*
 * The same, but TAB and LF stay as they are: free text (a .modinfo description, a
 * parameter's) printed over several lines as kmod's modinfo prints it. CR and every other
 * control are still escaped. The results share text_esc()'s TEXT_ESC_LIVE copies.
 */
const char *text_esc_ws(const char *s);

/*
 * The number of columns text_esc(s) takes (one per character: characters that take two
 * columns on a terminal, such as CJK ideographs, are counted as one).
 */
size_t text_width(const char *s);

/*
 * Table columns. A padded column is as wide as its widest cell, at most `cap` columns:
 * a longer cell is printed whole and pushes the rest of its own row only, so one long
 * name cannot widen every row. Start with the header's width, then fold each cell in
 * with text_col_fit().
 */
#define TEXT_CAP_SYMBOL 48    /* symbol names */
#define TEXT_CAP_NAMESPACE 32 /* symbol namespaces */
void text_col_fit(size_t *width, const char *cell, size_t cap);
/* Print text_esc(cell), then spaces up to `width` columns (none when it is wider). */
void text_cell(FILE *f, const char *cell, size_t width);

/*
 * The one writer of serialised JSON (every document, streamed item and HTML report):
 * DEL, the C1 controls and the characters that reorder or break lines as \uXXXX; with
 * `html` also '<', '>' and '&' (safe in an HTML script element); `indent` after each
 * line end (NULL: none). s from json-c over json_text() strings.
 */
void json_write(FILE *f, const char *s, const char *indent, bool html);
