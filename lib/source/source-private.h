/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sources: the export and import macros as written in C (doc/rules.md R1, R2), found
 * before anything is built. Private to the three files of the source reader:
 *  - ksc-src-lex.c: the pre-filter and the C lexer (comments, literals, directives,
 *    tokens), which know nothing of the macros;
 *  - ksc-src-scan.c: the macros, their arguments and DEFAULT_SYMBOL_NAMESPACE, records
 *    and mentions, Kbuild/Makefile flags: one buffer at a time (struct ksc_src_scanner);
 *  - ksc-src.c: the public object (struct ksc_src), reading files and the folder walk.
 * Calls go down this list, never up: the lexer calls no other file of the wing, the
 * scanner only the lexer, ksc-src.c the scanner (and ksc-srcedit-plan.c the lexer and the
 * scanner).
 *
 * How a file is read, fastest path first:
 *  1. Pre-filter. One pass over the bytes looks for the only keywords that matter,
 *     "EXPORT_SYMBOL", "MODULE_IMPORT_NS", "MODULE_LICENSE" and
 *     "DEFAULT_SYMBOL_NAMESPACE", by a byte pair each contains at a fixed distance ('_'
 *     and 'Y' two apart in "_SY", 'M' and 'U' three apart in "MODU"), 32 or 16
 *     positions at a time (AVX2 when the CPU has it, else SSE2, else byte by byte);
 *     each hit is verified with memcmp. Most files of a kernel tree (three in four)
 *     have no keyword and are done after this pass.
 *  2. A small C lexer runs from the start of the file to the last keyword, only as far
 *     as it needs to know what each keyword is in: comments (a // comment continues
 *     over a line continuation), string and character literals (none in .S, where ' is
 *     not a delimiter), preprocessor directives (a # first on a logical line; a
 *     directive ends at a newline without a continuation, a block comment inside it
 *     does not end it). Between keywords it skips, 32 or 16 bytes at a time, every byte
 *     that cannot change that state, and counts lines (newlines by SIMD compare and
 *     popcount) only where a record is made.
 *  3. At a keyword in code, the whole identifier is read; one of the macros is parsed
 *     with its argument list, which may spread over lines and hold comments, strings
 *     and nested parentheses; #define / #undef DEFAULT_SYMBOL_NAMESPACE changes the
 *     namespace of the EXPORT_SYMBOL[_GPL] after it.
 * The folder walk is in ksc-src.c (each folder listed by util/walk.h).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "source/source.h"

#define SRC_KW_DEFAULT "DEFAULT_SYMBOL_NAMESPACE"

/* Keyword candidates: offsets of the keywords the pre-filter found, in file order. */
struct cands {
	size_t *v;
	size_t n, cap;
};

/* One buffer being scanned. */
struct lex {
	struct ksc_src_scanner *s;
	const char *tmp_path;   /* as passed in */
	const char *path;       /* interned on the first record */
	const char *d;
	size_t n;
	bool asm_;
	/* lazy line counting */
	size_t lc_off, lc_bol;
	unsigned int lc_line;
	/* DEFAULT_SYMBOL_NAMESPACE: the macro's value now (def_ns NULL: not defined) */
	const char *def_ns, *def_from;
	enum ksc_src_spelling def_spell;
	/* export.h decides at its #include whether exports use the default (ksc-src-scan.c) */
	bool seen_include, def_at_include;
	int err;
};

enum tok { T_END, T_NL, T_IDENT, T_STRING, T_CHAR, T_NUMBER, T_PUNCT };

struct token {
	enum tok t;
	size_t s, e;
};

/*
 * Bytes that can change the lexer's state in code: [lang == ASM][in directive], filled by
 * src_lex_init() (once per process, thread-safe).
 */
extern unsigned char src_special[2][2][256];
void src_lex_init(void);
/* The keyword candidates of d[0..n) into c (c->v grows as needed). 0 or -ENOMEM. */
int src_find_candidates(const char *d, size_t n, struct cands *c);
size_t src_skip_plain(const char *d, size_t p, size_t lim, bool asm_, bool dir,
		      const unsigned char *tab);
void src_line_at(struct lex *L, size_t off, unsigned int *line, unsigned int *col);
size_t src_logical_line_end(const char *d, size_t n, size_t p);
size_t src_block_comment_end(const char *d, size_t n, size_t p);
size_t src_literal_end(const char *d, size_t n, size_t p);
size_t src_ident_end(const char *d, size_t n, size_t p);
struct token src_next_token(const struct lex *L, size_t *pp, bool stop_nl);
bool src_starts_line(const char *d, size_t q);

/* GCC accepts '$' in identifiers (parisc exports $$divI). */
static inline bool is_ident_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* A backslash, optional blanks, a newline: returns the offset after it, or p. */
static inline size_t splice_at(const char *d, size_t n, size_t p)
{
	if (p >= n || d[p] != '\\')
		return p;
	size_t q = p + 1;
	while (q < n && (d[q] == ' ' || d[q] == '\t' || d[q] == '\r'))
		q++;
	return q < n && d[q] == '\n' ? q + 1 : p;
}

/* Does the newline at `nl` end a logical line (no continuation before it)? */
static inline bool newline_ends_line(const char *d, size_t nl)
{
	size_t q = nl;
	while (q > 0 && (d[q - 1] == ' ' || d[q - 1] == '\t' || d[q - 1] == '\r'))
		q--;
	return !(q > 0 && d[q - 1] == '\\');
}
