// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The source reader's pre-filter and C lexer (source-private.h says how a file is read):
 * a file's language by its name, the keyword candidates of a buffer, and comments,
 * literals, directives and tokens, with the byte skipping and line counting that make
 * them fast. The bottom of the wing: it calls no other file of lib/source/.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

#include "source/source-private.h"
#include "util/array.h"

/* ---------------------------------------------------------------------------------- */
/* Languages                                                                          */

enum ksc_src_lang ksc_src_lang_of(const char *path)
{
	const char *base = ksc_basename(path);
	size_t n = strlen(base);

	if (strcmp(base, "Makefile") == 0 || strcmp(base, "Kbuild") == 0)
		return KSC_LANG_MAKE;
	if (n > 2 && base[n - 2] == '.') {
		switch (base[n - 1]) {
		case 'c':
		case 'h':
			return KSC_LANG_C;
		case 'S':
			return KSC_LANG_ASM;
		}
	}
	return KSC_LANG_NONE;
}

/* ---------------------------------------------------------------------------------- */
/* Character classes                                                                  */

bool ksc_src_is_identifier(const char *s, size_t n)
{
	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_ident_char((unsigned char)s[i]))
			return false;
	return true;
}

#if HAVE_AVX2_PATH
static bool have_avx2; /* set once, by special_init() */
#endif

/*
 * Bytes that can change the lexer's state in code: [lang == ASM][in directive]. A newline
 * matters only inside a directive; ' only in C.
 */
unsigned char src_special[2][2][256];
static pthread_once_t special_once = PTHREAD_ONCE_INIT;

static void special_init(void)
{
#if HAVE_AVX2_PATH
	__builtin_cpu_init();
	have_avx2 = __builtin_cpu_supports("avx2");
#endif
	for (int asm_ = 0; asm_ < 2; asm_++) {
		for (int dir = 0; dir < 2; dir++) {
			unsigned char *t = src_special[asm_][dir];
			t['/'] = t['"'] = 1;
			t['#'] = !dir;
			t['\n'] = (unsigned char)dir;
			t['\''] = (unsigned char)!asm_;
		}
	}
}

void src_lex_init(void)
{
	pthread_once(&special_once, special_init);
}

/* ---------------------------------------------------------------------------------- */
/* Pre-filter: keyword candidates                                                     */

static int cand_push(struct cands *c, size_t off)
{
	if (array_reserve(c->v, c->cap, c->n + 1, 64) < 0)
		return -ENOMEM;
	c->v[c->n++] = off;
	return 0;
}

/* A hit of either byte pair at j: which keyword starts where, or SIZE_MAX. */
static size_t verify_hit(const char *d, size_t n, size_t j)
{
	if (d[j] == '_') {
		if (j >= 6 && n - (j - 6) >= 13 && memcmp(d + j - 6, "EXPORT_SYMBOL", 13) == 0)
			return j - 6;
		if (j >= 7 && n - (j - 7) >= 24 &&
		    memcmp(d + j - 7, SRC_KW_DEFAULT, 24) == 0)
			return j - 7;
	} else if (d[j] == 'M' && n - j >= 14) {
		if (memcmp(d + j, "MODULE_LICENSE", 14) == 0)
			return j;
		if (n - j >= 16 && memcmp(d + j, "MODULE_IMPORT_NS", 16) == 0)
			return j;
	}
	return SIZE_MAX;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Verify a mask of pair hits at j (bit i: position j + i) and push the keywords. */
static int push_hits(struct cands *c, const char *d, size_t n, size_t j, uint32_t mask,
		     bool *sorted)
{
	while (mask) {
		size_t k = verify_hit(d, n, j + (size_t)__builtin_ctz(mask));
		mask &= mask - 1;
		if (k == SIZE_MAX)
			continue;
		if (c->n && k < c->v[c->n - 1])
			*sorted = false;
		if (cand_push(c, k) < 0)
			return -ENOMEM;
	}
	return 0;
}

#if HAVE_AVX2_PATH
/* 32 positions at a time; returns where the caller's narrower loop continues. */
__attribute__((target("avx2"))) static size_t pairs_avx2(struct cands *c, const char *d,
							 size_t n, bool *sorted, int *err)
{
	const __m256i us = _mm256_set1_epi8('_'), yy = _mm256_set1_epi8('Y');
	const __m256i mm = _mm256_set1_epi8('M'), uu = _mm256_set1_epi8('U');
	size_t j = 0;

	for (; n >= 35 && j <= n - 35; j += 32) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(d + j));
		__m256i b =
			_mm256_loadu_si256((const __m256i *)(const void *)(d + j + 2));
		__m256i e =
			_mm256_loadu_si256((const __m256i *)(const void *)(d + j + 3));
		__m256i hit = _mm256_or_si256(_mm256_and_si256(_mm256_cmpeq_epi8(a, us),
							       _mm256_cmpeq_epi8(b, yy)),
					      _mm256_and_si256(_mm256_cmpeq_epi8(a, mm),
							       _mm256_cmpeq_epi8(e, uu)));
		uint32_t mask = (uint32_t)_mm256_movemask_epi8(hit);
		if (mask && push_hits(c, d, n, j, mask, sorted) < 0) {
			*err = -ENOMEM;
			return j;
		}
	}
	return j;
}
#endif

int src_find_candidates(const char *d, size_t n, struct cands *c)
{
	size_t j = 0;
	bool sorted = true;

	c->n = 0;
#if HAVE_AVX2_PATH
	if (have_avx2) {
		int err = 0;
		j = pairs_avx2(c, d, n, &sorted, &err);
		if (err)
			return err;
	}
#endif
#if defined(__SSE2__)
	const __m128i us = _mm_set1_epi8('_'), yy = _mm_set1_epi8('Y');
	const __m128i mm = _mm_set1_epi8('M'), uu = _mm_set1_epi8('U');
	for (; n >= 19 && j <= n - 19; j += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(d + j));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(d + j + 2));
		__m128i e = _mm_loadu_si128((const __m128i *)(const void *)(d + j + 3));
		__m128i hit = _mm_or_si128(
			_mm_and_si128(_mm_cmpeq_epi8(a, us), _mm_cmpeq_epi8(b, yy)),
			_mm_and_si128(_mm_cmpeq_epi8(a, mm), _mm_cmpeq_epi8(e, uu)));
		uint32_t mask = (uint32_t)_mm_movemask_epi8(hit);
		if (mask && push_hits(c, d, n, j, mask, &sorted) < 0)
			return -ENOMEM;
	}
#endif
	for (; j < n; j++) {
		if ((d[j] == '_' && j + 2 < n && d[j + 2] == 'Y') ||
		    (d[j] == 'M' && j + 3 < n && d[j + 3] == 'U')) {
			if (push_hits(c, d, n, j, 1, &sorted) < 0)
				return -ENOMEM;
		}
	}
	if (!sorted && c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_size);
	return 0;
}

/*
 * The first byte in [p, lim) that can change the lexer's state: '/', '"', and '#' in code
 * or a newline in a directive, and ' in C. SIMD where there is room, the table after.
 */
#if HAVE_AVX2_PATH
__attribute__((target("avx2"))) static size_t
skip_plain_avx2(const char *d, size_t p, size_t lim, char c2, char c3)
{
	const __m256i k0 = _mm256_set1_epi8('/'), k1 = _mm256_set1_epi8('"');
	const __m256i k2 = _mm256_set1_epi8(c2), k3 = _mm256_set1_epi8(c3);

	for (; lim - p >= 32; p += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(d + p));
		__m256i m = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, k0),
							    _mm256_cmpeq_epi8(v, k1)),
					    _mm256_or_si256(_mm256_cmpeq_epi8(v, k2),
							    _mm256_cmpeq_epi8(v, k3)));
		uint32_t mask = (uint32_t)_mm256_movemask_epi8(m);
		if (mask)
			return p + (size_t)__builtin_ctz(mask);
	}
	return p;
}
#endif

size_t src_skip_plain(const char *d, size_t p, size_t lim, bool asm_, bool dir,
		      const unsigned char *tab)
{
	char c2 = dir ? '\n' : '#', c3 = asm_ ? '/' : '\'';

	if (p >= lim)
		return p;
#if HAVE_AVX2_PATH
	if (have_avx2 && lim - p >= 32) {
		p = skip_plain_avx2(d, p, lim, c2, c3);
		if (lim - p >= 32)
			return p;
	}
#endif
#if defined(__SSE2__)
	const __m128i k0 = _mm_set1_epi8('/'), k1 = _mm_set1_epi8('"');
	const __m128i k2 = _mm_set1_epi8(c2), k3 = _mm_set1_epi8(c3);
	for (; lim - p >= 16; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(d + p));
		__m128i m = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, k0), _mm_cmpeq_epi8(v, k1)),
			_mm_or_si128(_mm_cmpeq_epi8(v, k2), _mm_cmpeq_epi8(v, k3)));
		uint32_t mask = (uint32_t)_mm_movemask_epi8(m);
		if (mask)
			return p + (size_t)__builtin_ctz(mask);
	}
#else
	(void)c2;
	(void)c3;
#endif
	while (p < lim && !tab[(unsigned char)d[p]])
		p++;
	return p;
}

/* Newlines in [p, e), and the offset after the last one (unchanged when none). */
#if HAVE_AVX2_PATH
__attribute__((target("avx2,popcnt"))) static size_t newlines_avx2(const char *d, size_t *pp,
								    size_t e, size_t *bol)
{
	const __m256i nl = _mm256_set1_epi8('\n');
	size_t p = *pp, count = 0;

	for (; e - p >= 32; p += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(d + p));
		uint32_t mask = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl));
		if (mask) {
			count += (size_t)__builtin_popcount(mask);
			*bol = p + 32 - (size_t)__builtin_clz(mask);
		}
	}
	*pp = p;
	return count;
}
#endif

static size_t count_newlines(const char *d, size_t p, size_t e, size_t *bol)
{
	size_t count = 0;

#if HAVE_AVX2_PATH
	if (have_avx2)
		count = newlines_avx2(d, &p, e, bol);
#endif
	for (; p < e; p++) {
		if (d[p] == '\n') {
			count++;
			*bol = p + 1;
		}
	}
	return count;
}

/* The first j in [p, n - 1) with d[j] == a and d[j + 1] == b, or n. */
#if HAVE_AVX2_PATH
__attribute__((target("avx2"))) static size_t pair_avx2(const char *d, size_t p, size_t n,
							  char a, char b, bool *found)
{
	const __m256i ka = _mm256_set1_epi8(a), kb = _mm256_set1_epi8(b);

	*found = false;
	for (; n - p >= 33; p += 32) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(d + p));
		__m256i y =
			_mm256_loadu_si256((const __m256i *)(const void *)(d + p + 1));
		uint32_t mask = (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(
			_mm256_cmpeq_epi8(x, ka), _mm256_cmpeq_epi8(y, kb)));
		if (mask) {
			*found = true;
			return p + (size_t)__builtin_ctz(mask);
		}
	}
	return p;
}
#endif

static size_t find_pair(const char *d, size_t p, size_t n, char a, char b)
{
#if HAVE_AVX2_PATH
	if (have_avx2 && n - p >= 33) {
		bool found;
		p = pair_avx2(d, p, n, a, b, &found);
		if (found)
			return p;
	}
#endif
	for (; p + 1 < n; p++) {
		const char *x = memchr(d + p, a, n - 1 - p);
		if (!x)
			return n;
		p = (size_t)(x - d);
		if (d[p + 1] == b)
			return p;
	}
	return n;
}

/* ---------------------------------------------------------------------------------- */
/* Lexer                                                                              */

/* Advance the line cursor to `off` (offsets only grow). */
void src_line_at(struct lex *L, size_t off, unsigned int *line, unsigned int *col)
{
	if (off < L->lc_off) { /* not expected; recount from the start */
		L->lc_off = 0;
		L->lc_bol = 0;
		L->lc_line = 1;
	}
	L->lc_line += (unsigned int)count_newlines(L->d, L->lc_off, off, &L->lc_bol);
	L->lc_off = off;
	*line = L->lc_line;
	*col = (unsigned int)(off - L->lc_bol + 1);
}

/* The newline ending the logical line from p, or n. */
size_t src_logical_line_end(const char *d, size_t n, size_t p)
{
	for (;;) {
		const char *nl = p < n ? memchr(d + p, '\n', n - p) : NULL;
		if (!nl)
			return n;
		size_t q = (size_t)(nl - d);
		if (newline_ends_line(d, q))
			return q;
		p = q + 1;
	}
}

/* After "/ *" at p: offset after the closing "* /", or n. */
size_t src_block_comment_end(const char *d, size_t n, size_t p)
{
	p += 2;
	/* A line continuation between '*' and '/' is not looked for. */
	p = find_pair(d, p, n, '*', '/');
	return p < n ? p + 2 : n;
}

/* String or character literal opening at p: offset after its end (an unterminated one
 * ends before the newline). */
size_t src_literal_end(const char *d, size_t n, size_t p)
{
	char q = d[p];
	size_t i = p + 1;

	/* Line continuations are joined first (translation phase 2), even after a '\\'. */
	while (i < n) {
		size_t s = splice_at(d, n, i);
		if (s != i) {
			i = s;
			continue;
		}
		char c = d[i];
		if (c == q)
			return i + 1;
		if (c == '\n')
			return i;
		i++;
		if (c == '\\') {
			/* the escaped character, after any continuations */
			while ((s = splice_at(d, n, i)) != i)
				i = s;
			if (i < n && d[i] != '\n')
				i++;
		}
	}
	return n;
}

/* Skip blanks, splices and comments; newlines too unless stop_nl. */
static size_t skip_space(const struct lex *L, size_t p, bool stop_nl)
{
	const char *d = L->d;
	size_t n = L->n;

	while (p < n) {
		size_t q = splice_at(d, n, p);
		if (q != p) {
			p = q;
			continue;
		}
		char c = d[p];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			p++;
		} else if (c == '\n') {
			if (stop_nl)
				return p;
			p++;
		} else if (c == '/' && p + 1 < n && d[p + 1] == '*') {
			p = src_block_comment_end(d, n, p);
		} else if (c == '/' && p + 1 < n && d[p + 1] == '/') {
			p = src_logical_line_end(d, n, p);
		} else {
			break;
		}
	}
	return p;
}

/* An identifier run from p (line continuations inside are not joined). */
size_t src_ident_end(const char *d, size_t n, size_t p)
{
	while (p < n && is_ident_char((unsigned char)d[p]))
		p++;
	return p;
}

struct token src_next_token(const struct lex *L, size_t *pp, bool stop_nl)
{
	const char *d = L->d;
	size_t n = L->n, p = skip_space(L, *pp, stop_nl);
	struct token t = { T_END, p, p };

	if (p >= n) {
		*pp = p;
		return t;
	}
	unsigned char c = (unsigned char)d[p];
	if (c == '\n') {
		t.t = T_NL;
		t.e = p + 1;
	} else if (c >= '0' && c <= '9') {
		size_t e = p;
		while (e < n && (is_ident_char((unsigned char)d[e]) || d[e] == '.'))
			e++;
		t.t = T_NUMBER;
		t.e = e;
	} else if (is_ident_char(c)) {
		t.t = T_IDENT;
		t.e = src_ident_end(d, n, p);
	} else if (c == '"' || (c == '\'' && !L->asm_)) {
		t.t = c == '"' ? T_STRING : T_CHAR;
		t.e = src_literal_end(d, n, p);
	} else {
		t.t = T_PUNCT;
		t.e = p + 1;
	}
	*pp = t.e;
	return t;
}


/* Is the '#' at q the first thing on its logical line (blanks aside)? */
bool src_starts_line(const char *d, size_t q)
{
	size_t i = q;

	while (i > 0 && (d[i - 1] == ' ' || d[i - 1] == '\t'))
		i--;
	if (i == 0)
		return true;
	if (d[i - 1] != '\n')
		return false;
	return newline_ends_line(d, i - 1);
}

enum ksc_src_state ksc_src_state_at(const char *d, size_t n, enum ksc_src_lang lang,
				    size_t pos)
{
	bool asm_ = lang == KSC_LANG_ASM, dir = false;
	size_t p = 0;

	if (pos > n)
		pos = n;
	while (p < pos) {
		char c = d[p];
		size_t e;
		if (c == '/' && p + 1 < n && d[p + 1] == '*') {
			/* a block comment inside a directive does not end it */
			e = src_block_comment_end(d, n, p);
			bool closed = e - p >= 4 && d[e - 1] == '/' && d[e - 2] == '*';
			if (e > pos || (e == pos && !closed))
				return KSC_SRC_ST_BLOCK_COMMENT;
			p = e;
		} else if (c == '/' && p + 1 < n && d[p + 1] == '/') {
			e = src_logical_line_end(d, n, p);
			if (e >= pos)
				return dir ? KSC_SRC_ST_DIRECTIVE
					   : KSC_SRC_ST_LINE_COMMENT;
			p = e;
		} else if (c == '"' || (c == '\'' && !asm_)) {
			e = src_literal_end(d, n, p);
			bool closed = e - p >= 2 && d[e - 1] == c;
			if (e > pos || (e == pos && !closed))
				return KSC_SRC_ST_STRING;
			p = e;
		} else if (c == '\n') {
			if (dir && newline_ends_line(d, p))
				dir = false;
			p++;
		} else if (c == '#' && !dir && src_starts_line(d, p)) {
			dir = true;
			p++;
		} else {
			p++;
		}
	}
	return dir ? KSC_SRC_ST_DIRECTIVE : KSC_SRC_ST_CODE;
}

bool ksc_src_newline_ends_line(const char *d, size_t nl)
{
	return newline_ends_line(d, nl);
}
