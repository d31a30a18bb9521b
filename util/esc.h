/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Untrusted text (file, module and symbol names, .modinfo values) made safe to print,
 * one rendering for the library's log messages and the tool's text output.
 */

/*
 * The length of the valid UTF-8 sequence at s (1 to 4 bytes; 1 for an ASCII byte, NUL
 * included) with its code point in *cp, or 0 when s does not start one (a stray
 * continuation byte, an overlong form, a surrogate, a code point above U+10FFFF, or a
 * sequence cut short).
 */
size_t esc_utf8_seq(const unsigned char *s, unsigned int *cp);

/* Whether cp reorders text or starts a new line without being a control (see below). */
bool esc_is_layout_char(unsigned int cp);

/*
 * s with visible escapes: each byte of a C0 control, DEL, a C1 control or anything that
 * is not valid UTF-8 as "\xHH" (with keep_ws, TAB and LF stay as they are); the
 * characters that reorder text or break lines (U+200E, U+200F, U+2028, U+2029, U+202A
 * to U+202E, U+2066 to U+2069) as "\uHHHH"; the rest as it is. The bytes go to `out`
 * when it is not NULL (no NUL is added); returns their number, and the columns they
 * take (one per character) in *cols when cols is not NULL.
 */
size_t esc_render(const char *s, bool keep_ws, char *out, size_t *cols);
