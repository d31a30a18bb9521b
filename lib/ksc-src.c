// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Sources: the export and import macros as written in C (doc/rules.md R1, R2), found
 * before anything is built.
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
 * A folder is scanned by a pool of threads that share a stack of folders: each thread
 * lists a folder, reads its Kbuild (else Makefile) for -DDEFAULT_SYMBOL_NAMESPACE=,
 * scans its files with one read() each into a reused buffer (no fstat: readdir's type
 * says they are regular files), and pushes the subfolders. Records are sorted by path
 * at the end, so the output does not depend on the schedule.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

#include "ksc-internal.h"

#define MAX_FILE_SIZE (1u << 30)    /* larger "source files" are skipped with -EFBIG */
#define MAX_INVOCATION 65536        /* bytes from a macro's '(' to its ')' */
#define MAX_ARGS 4
#define DEFAULT_KVM_SUB_MODULES "kvm-amd,kvm-intel"

/* ---------------------------------------------------------------------------------- */
/* The macros                                                                         */

enum nsmode {
	NS_NOT,          /* MODULE_LICENSE */
	NS_DEFAULT,      /* EXPORT_SYMBOL[_GPL]: DEFAULT_SYMBOL_NAMESPACE or none */
	NS_ARG,          /* the namespace is the argument */
	NS_MODULES,      /* "module:" + the argument */
	NS_KVM,          /* "module:kvm," KVM_SUB_MODULES */
	NS_KVM_INTERNAL, /* "module:" KVM_SUB_MODULES */
};

struct macro {
	const char *name;
	enum ksc_src_kind kind;
	unsigned char nargs;
	bool gpl;
	enum nsmode ns;
};

/* include/linux/export.h (R1), include/linux/module.h, include/linux/kvm_types.h */
static const struct macro macros[] = {
	{ "EXPORT_SYMBOL", KSC_SRC_EXPORT, 1, false, NS_DEFAULT },
	{ "EXPORT_SYMBOL_GPL", KSC_SRC_EXPORT, 1, true, NS_DEFAULT },
	{ "EXPORT_SYMBOL_NS", KSC_SRC_EXPORT, 2, false, NS_ARG },
	{ "EXPORT_SYMBOL_NS_GPL", KSC_SRC_EXPORT, 2, true, NS_ARG },
	{ "EXPORT_SYMBOL_GPL_FOR_MODULES", KSC_SRC_EXPORT, 2, true, NS_MODULES },
	{ "EXPORT_SYMBOL_FOR_MODULES", KSC_SRC_EXPORT, 2, true, NS_MODULES },
	{ "EXPORT_SYMBOL_FOR_KVM", KSC_SRC_EXPORT, 1, true, NS_KVM },
	{ "EXPORT_SYMBOL_FOR_KVM_INTERNAL", KSC_SRC_EXPORT, 1, true, NS_KVM_INTERNAL },
	{ "MODULE_IMPORT_NS", KSC_SRC_IMPORT_NS, 1, false, NS_ARG },
	{ "MODULE_LICENSE", KSC_SRC_LICENSE, 1, false, NS_NOT },
};

static const struct macro *find_macro(const char *s, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(macros); i++)
		if (strlen(macros[i].name) == n && memcmp(macros[i].name, s, n) == 0)
			return &macros[i];
	return NULL;
}

static const char kw_default[] = "DEFAULT_SYMBOL_NAMESPACE";

/* ---------------------------------------------------------------------------------- */
/* Names                                                                              */

KSC_EXPORT const char *ksc_src_kind_name(enum ksc_src_kind kind)
{
	switch (kind) {
	case KSC_SRC_EXPORT: return "export";
	case KSC_SRC_IMPORT_NS: return "import_ns";
	case KSC_SRC_LICENSE: return "license";
	case KSC_SRC_DEFAULT_NS: return "default_ns";
	case KSC_SRC_MENTION: return "mention";
	}
	return "unknown";
}

KSC_EXPORT const char *ksc_src_spelling_name(enum ksc_src_spelling s)
{
	switch (s) {
	case KSC_SRC_SPELL_NONE: return "none";
	case KSC_SRC_SPELL_IDENT: return "identifier";
	case KSC_SRC_SPELL_STRING: return "string";
	case KSC_SRC_SPELL_OTHER: return "other";
	}
	return "unknown";
}

KSC_EXPORT const char *ksc_src_mention_name(enum ksc_src_mention m)
{
	switch (m) {
	case KSC_SRC_MENTION_NONE: return "none";
	case KSC_SRC_IN_COMMENT: return "comment";
	case KSC_SRC_IN_STRING: return "string";
	case KSC_SRC_IN_DEFINE: return "define";
	case KSC_SRC_IN_DIRECTIVE: return "directive";
	case KSC_SRC_OTHER_MACRO: return "other-macro";
	case KSC_SRC_NOT_INVOKED: return "not-invoked";
	case KSC_SRC_BAD_ARGS: return "bad-args";
	}
	return "unknown";
}

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

/* GCC accepts '$' in identifiers (parisc exports $$divI). */
static bool is_ident_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '$';
}

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
static unsigned char special[2][2][256];
static pthread_once_t special_once = PTHREAD_ONCE_INIT;

static void special_init(void)
{
#if HAVE_AVX2_PATH
	__builtin_cpu_init();
	have_avx2 = __builtin_cpu_supports("avx2");
#endif
	for (int asm_ = 0; asm_ < 2; asm_++) {
		for (int dir = 0; dir < 2; dir++) {
			unsigned char *t = special[asm_][dir];
			t['/'] = t['"'] = 1;
			t['#'] = !dir;
			t['\n'] = (unsigned char)dir;
			t['\''] = (unsigned char)!asm_;
		}
	}
}

/* ---------------------------------------------------------------------------------- */
/* Pre-filter: keyword candidates                                                     */

struct cands {
	size_t *v;
	size_t n, cap;
};

static int cand_push(struct ksc_src_scanner *s, struct cands *c, size_t off)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		size_t *v = realloc(c->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
		s->cand = v;
		s->cap_cand = cap;
	}
	c->v[c->n++] = off;
	return 0;
}

/* A hit of either byte pair at j: which keyword starts where, or SIZE_MAX. */
static size_t verify_hit(const char *d, size_t n, size_t j)
{
	if (d[j] == '_') {
		if (j >= 6 && n - (j - 6) >= 13 && memcmp(d + j - 6, "EXPORT_SYMBOL", 13) == 0)
			return j - 6;
		if (j >= 7 && n - (j - 7) >= 24 && memcmp(d + j - 7, kw_default, 24) == 0)
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
static int push_hits(struct ksc_src_scanner *s, struct cands *c, const char *d, size_t n,
		     size_t j, uint32_t mask, bool *sorted)
{
	while (mask) {
		size_t k = verify_hit(d, n, j + (size_t)__builtin_ctz(mask));
		mask &= mask - 1;
		if (k == SIZE_MAX)
			continue;
		if (c->n && k < c->v[c->n - 1])
			*sorted = false;
		if (cand_push(s, c, k) < 0)
			return -ENOMEM;
	}
	return 0;
}

#if HAVE_AVX2_PATH
/* 32 positions at a time; returns where the caller's narrower loop continues. */
__attribute__((target("avx2"))) static size_t pairs_avx2(struct ksc_src_scanner *s,
							 struct cands *c, const char *d,
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
		if (mask && push_hits(s, c, d, n, j, mask, sorted) < 0) {
			*err = -ENOMEM;
			return j;
		}
	}
	return j;
}
#endif

static int find_candidates(struct ksc_src_scanner *s, const char *d, size_t n,
			   struct cands *c)
{
	size_t j = 0;
	bool sorted = true;

	c->n = 0;
#if HAVE_AVX2_PATH
	if (have_avx2) {
		int err = 0;
		j = pairs_avx2(s, c, d, n, &sorted, &err);
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
		if (mask && push_hits(s, c, d, n, j, mask, &sorted) < 0)
			return -ENOMEM;
	}
#endif
	for (; j < n; j++) {
		if ((d[j] == '_' && j + 2 < n && d[j + 2] == 'Y') ||
		    (d[j] == 'M' && j + 3 < n && d[j + 3] == 'U')) {
			if (push_hits(s, c, d, n, j, 1, &sorted) < 0)
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

static size_t skip_plain(const char *d, size_t p, size_t lim, bool asm_, bool dir,
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
	/* export.h decides at its #include whether exports use the default (see below) */
	bool seen_include, def_at_include;
	int err;
};

/* Advance the line cursor to `off` (offsets only grow). */
static void line_at(struct lex *L, size_t off, unsigned int *line, unsigned int *col)
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

/* A backslash, optional blanks, a newline: returns the offset after it, or p. */
static size_t splice_at(const char *d, size_t n, size_t p)
{
	if (p >= n || d[p] != '\\')
		return p;
	size_t q = p + 1;
	while (q < n && (d[q] == ' ' || d[q] == '\t' || d[q] == '\r'))
		q++;
	return q < n && d[q] == '\n' ? q + 1 : p;
}

/* Does the newline at `nl` end a logical line (no continuation before it)? */
static bool newline_ends_line(const char *d, size_t nl)
{
	size_t q = nl;
	while (q > 0 && (d[q - 1] == ' ' || d[q - 1] == '\t' || d[q - 1] == '\r'))
		q--;
	return !(q > 0 && d[q - 1] == '\\');
}

/* The newline ending the logical line from p, or n. */
static size_t logical_line_end(const char *d, size_t n, size_t p)
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
static size_t block_comment_end(const char *d, size_t n, size_t p)
{
	p += 2;
	/* A line continuation between '*' and '/' is not looked for. */
	p = find_pair(d, p, n, '*', '/');
	return p < n ? p + 2 : n;
}

/* String or character literal opening at p: offset after its end (an unterminated one
 * ends before the newline). */
static size_t literal_end(const char *d, size_t n, size_t p)
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

enum tok { T_END, T_NL, T_IDENT, T_STRING, T_CHAR, T_NUMBER, T_PUNCT };

struct token {
	enum tok t;
	size_t s, e;
};

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
			p = block_comment_end(d, n, p);
		} else if (c == '/' && p + 1 < n && d[p + 1] == '/') {
			p = logical_line_end(d, n, p);
		} else {
			break;
		}
	}
	return p;
}

/* An identifier run from p (line continuations inside are not joined). */
static size_t ident_end(const char *d, size_t n, size_t p)
{
	while (p < n && is_ident_char((unsigned char)d[p]))
		p++;
	return p;
}

static struct token next_token(const struct lex *L, size_t *pp, bool stop_nl)
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
		t.e = ident_end(d, n, p);
	} else if (c == '"' || (c == '\'' && !L->asm_)) {
		t.t = c == '"' ? T_STRING : T_CHAR;
		t.e = literal_end(d, n, p);
	} else {
		t.t = T_PUNCT;
		t.e = p + 1;
	}
	*pp = t.e;
	return t;
}

/* ---------------------------------------------------------------------------------- */
/* Values                                                                             */

static int buf_reserve(struct ksc_src_scanner *s, size_t need)
{
	if (need <= s->cap_buf)
		return 0;
	size_t cap = s->cap_buf ? s->cap_buf : 256;
	while (cap < need)
		cap *= 2;
	char *b = realloc(s->buf, cap);
	if (!b)
		return -ENOMEM;
	s->buf = b;
	s->cap_buf = cap;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append the decoded bytes of the string literal [s, e) (quotes included) at *len. */
static int decode_literal(struct ksc_src_scanner *sc, const char *d, size_t n, size_t s,
			  size_t e, size_t *len)
{
	if (buf_reserve(sc, *len + (e - s) + 1) < 0)
		return -ENOMEM;
	char *out = sc->buf;
	size_t o = *len;
	size_t i = s + 1, stop = e > s + 1 && d[e - 1] == d[s] ? e - 1 : e;

	while (i < stop) {
		size_t sp = splice_at(d, n, i);
		if (sp != i) {
			i = sp;
			continue;
		}
		char c = d[i++];
		if (c != '\\' || i >= stop) {
			out[o++] = c;
			continue;
		}
		while ((sp = splice_at(d, n, i)) != i)
			i = sp;
		if (i >= stop)
			break;
		c = d[i++];
		switch (c) {
		case 'n': out[o++] = '\n'; break;
		case 't': out[o++] = '\t'; break;
		case 'r': out[o++] = '\r'; break;
		case 'a': out[o++] = '\a'; break;
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'v': out[o++] = '\v'; break;
		case 'x': {
			unsigned v = 0;
			while (i < stop && hexval(d[i]) >= 0)
				v = (v * 16 + (unsigned)hexval(d[i++])) & 0xff;
			out[o++] = (char)v;
			break;
		}
		default:
			if (c >= '0' && c <= '7') {
				unsigned v = (unsigned)(c - '0');
				for (int k = 0;
				     k < 2 && i < stop && d[i] >= '0' && d[i] <= '7'; k++)
					v = v * 8 + (unsigned)(d[i++] - '0');
				out[o++] = (char)(v & 0xff);
			} else {
				out[o++] = c; /* \" \\ \' \? and unknown escapes */
			}
		}
	}
	*len = o;
	return 0;
}

/* A value spelled by the tokens [s, e): its text for the record, and the spelling. */
static const char *value_of(struct lex *L, size_t s, size_t e,
			    enum ksc_src_spelling *spell)
{
	struct ksc_src_scanner *sc = L->s;
	size_t p = s, len = 0;
	unsigned ntok = 0, nstr = 0, nident = 0;
	struct token first = { T_END, s, s };

	while (p < e) {
		struct token t = next_token(L, &p, false);
		if (t.t == T_END || t.s >= e)
			break;
		if (!ntok++)
			first = t;
		if (t.t == T_STRING)
			nstr++;
		else if (t.t == T_IDENT)
			nident++;
	}
	if (ntok == 0) {
		*spell = KSC_SRC_SPELL_NONE;
		return pool_strdup(sc->strings, "");
	}
	if (ntok == 1 && nident == 1) {
		*spell = KSC_SRC_SPELL_IDENT;
		return pool_strndup(sc->strings, L->d + first.s, first.e - first.s);
	}
	if (nstr == ntok) {
		*spell = KSC_SRC_SPELL_STRING;
		p = s;
		while (p < e) {
			struct token t = next_token(L, &p, false);
			if (t.t == T_END || t.s >= e)
				break;
			if (decode_literal(sc, L->d, L->n, t.s, t.e, &len) < 0)
				return NULL;
		}
		return pool_strndup(sc->strings, sc->buf, strnlen(sc->buf, len));
	}
	/* Anything else: the tokens as written, one blank where there was space. */
	*spell = KSC_SRC_SPELL_OTHER;
	p = s;
	size_t prev_end = SIZE_MAX;
	while (p < e) {
		struct token t = next_token(L, &p, false);
		if (t.t == T_END || t.s >= e)
			break;
		if (buf_reserve(sc, len + (t.e - t.s) + 2) < 0)
			return NULL;
		if (prev_end != SIZE_MAX && t.s != prev_end)
			sc->buf[len++] = ' ';
		memcpy(sc->buf + len, L->d + t.s, t.e - t.s);
		len += t.e - t.s;
		prev_end = t.e;
	}
	return pool_strndup(sc->strings, sc->buf, len);
}

/* ---------------------------------------------------------------------------------- */
/* Records                                                                            */

static struct ksc_src_record *rec_new(struct lex *L, enum ksc_src_kind kind, size_t pos)
{
	struct ksc_src_vec *v = L->s->out;

	if (L->err)
		return NULL;
	if (!L->path) {
		L->path = pool_strdup(L->s->strings, L->tmp_path);
		if (!L->path) {
			L->err = -ENOMEM;
			return NULL;
		}
	}
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		struct ksc_src_record *r = realloc(v->v, cap * sizeof(*r));
		if (!r) {
			L->err = -ENOMEM;
			return NULL;
		}
		v->v = r;
		v->cap = cap;
	}
	struct ksc_src_record *r = &v->v[v->n++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->path = L->path;
	line_at(L, pos, &r->line, &r->column);
	return r;
}

static void oom_if_null(struct lex *L, const void *p)
{
	if (!p && !L->err)
		L->err = -ENOMEM;
}

/* The identifier containing the keyword at `k`: [*s, *e). */
static void ident_around(const char *d, size_t n, size_t k, size_t *s, size_t *e)
{
	size_t a = k;
	while (a > 0 && is_ident_char((unsigned char)d[a - 1]))
		a--;
	*s = a;
	*e = ident_end(d, n, k);
}

static void mention(struct lex *L, size_t k, enum ksc_src_mention why)
{
	size_t s, e;

	if (!(L->s->flags & KSC_SRC_MENTIONS))
		return;
	ident_around(L->d, L->n, k, &s, &e);
	struct ksc_src_record *r = rec_new(L, KSC_SRC_MENTION, s);
	if (!r)
		return;
	r->macro = pool_strndup(L->s->strings, L->d + s, e - s);
	oom_if_null(L, r->macro);
	r->mention = why;
	r->offset = s;
	r->end = e;
}

struct arg {
	size_t s, e;
	unsigned ntok;
	bool one_ident;
};

/*
 * The argument list after a macro's name at p: 0 with args and *end (after ')'), or the
 * reason it is not an invocation.
 */
static enum ksc_src_mention parse_args(const struct lex *L, size_t p, struct arg *args,
				       unsigned *nargs, size_t *end)
{
	const char *d = L->d;
	struct token t = next_token(L, &p, false);
	unsigned depth = 1, na = 0;
	size_t open;

	if (t.t != T_PUNCT || d[t.s] != '(')
		return KSC_SRC_NOT_INVOKED;
	open = t.s;
	memset(&args[0], 0, sizeof(args[0]));
	for (;;) {
		t = next_token(L, &p, false);
		if (t.t == T_END || t.s - open > MAX_INVOCATION)
			return KSC_SRC_BAD_ARGS;
		if (t.t == T_PUNCT) {
			char c = d[t.s];
			if (c == '(' || c == '[' || c == '{') {
				depth++;
			} else if (c == ')' || c == ']' || c == '}') {
				if (--depth == 0) {
					if (c != ')')
						return KSC_SRC_BAD_ARGS;
					*nargs = na + 1;
					*end = t.e;
					return KSC_SRC_MENTION_NONE;
				}
			} else if (c == ',' && depth == 1) {
				if (++na >= MAX_ARGS)
					return KSC_SRC_BAD_ARGS;
				memset(&args[na], 0, sizeof(args[na]));
				continue;
			}
		}
		struct arg *a = &args[na];
		if (!a->ntok++) {
			a->s = t.s;
			a->one_ident = t.t == T_IDENT;
		} else {
			a->one_ident = false;
		}
		a->e = t.e;
	}
}

static const char *concat(struct lex *L, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if (buf_reserve(L->s, la + lb + lc + 1) < 0)
		return NULL;
	memcpy(L->s->buf, a, la);
	memcpy(L->s->buf + la, b, lb);
	memcpy(L->s->buf + la + lb, c, lc);
	return pool_strndup(L->s->strings, L->s->buf, la + lb + lc);
}

/* A macro of the table at k (its name ends at ke): parse, record. Returns the offset to
 * continue from. */
static size_t invocation(struct lex *L, const struct macro *m, size_t k, size_t ke)
{
	struct arg args[MAX_ARGS];
	unsigned nargs = 0;
	size_t end = ke;
	enum ksc_src_mention why = parse_args(L, ke, args, &nargs, &end);

	if (why == KSC_SRC_MENTION_NONE && nargs != m->nargs)
		why = KSC_SRC_BAD_ARGS;
	if (why == KSC_SRC_MENTION_NONE && m->kind == KSC_SRC_EXPORT &&
	    !args[0].one_ident)
		why = KSC_SRC_BAD_ARGS;
	if (why == KSC_SRC_MENTION_NONE && args[m->nargs - 1].ntok == 0)
		why = KSC_SRC_BAD_ARGS;
	if (why != KSC_SRC_MENTION_NONE) {
		mention(L, k, why);
		return ke;
	}

	struct ksc_src_record *r = rec_new(L, m->kind, k);
	if (!r)
		return end;
	struct pool *pool = L->s->strings;
	r->macro = m->name;
	r->offset = k;
	r->end = end;
	r->gpl_only = m->gpl;
	const struct arg *nsarg = NULL;
	switch (m->kind) {
	case KSC_SRC_EXPORT:
		r->symbol = pool_strndup(pool, L->d + args[0].s, args[0].e - args[0].s);
		oom_if_null(L, r->symbol);
		switch (m->ns) {
		case NS_DEFAULT:
			/*
			 * include/linux/export.h: "#ifdef DEFAULT_SYMBOL_NAMESPACE" is read
			 * once, when export.h is included (taken to be the file's first
			 * #include); the macro's value is expanded where the export is.
			 */
			if (L->seen_include && !L->def_at_include) {
				r->ns = "";
			} else if (L->def_ns) {
				r->ns = L->def_ns;
				r->spelling = L->def_spell;
				r->ns_from = L->def_from;
			} else if (L->seen_include) {
				/* defined at the include, #undef'd since: its name */
				r->ns = kw_default;
				r->spelling = KSC_SRC_SPELL_OTHER;
			} else {
				r->ns = "";
			}
			break;
		case NS_ARG:
			nsarg = &args[1];
			r->ns = value_of(L, nsarg->s, nsarg->e, &r->spelling);
			break;
		case NS_MODULES: {
			nsarg = &args[1];
			const char *mods = value_of(L, nsarg->s, nsarg->e, &r->spelling);
			r->ns = mods ? concat(L, "module:", mods, "") : NULL;
			break;
		}
		case NS_KVM:
			r->ns = concat(L, "module:kvm,", L->s->kvm_sub_modules, "");
			break;
		case NS_KVM_INTERNAL:
			r->ns = concat(L, "module:", L->s->kvm_sub_modules, "");
			break;
		case NS_NOT:
			break;
		}
		oom_if_null(L, r->ns);
		break;
	case KSC_SRC_IMPORT_NS:
		nsarg = &args[0];
		r->ns = value_of(L, nsarg->s, nsarg->e, &r->spelling);
		oom_if_null(L, r->ns);
		break;
	case KSC_SRC_LICENSE: {
		enum ksc_src_spelling sp;
		r->license = value_of(L, args[0].s, args[0].e, &sp);
		oom_if_null(L, r->license);
		break;
	}
	default:
		break;
	}
	if (nsarg) {
		r->ns_offset = nsarg->s;
		r->ns_end = nsarg->e;
	}
	return end;
}

static int add_define(struct lex *L, size_t s, size_t e)
{
	struct ksc_src_scanner *sc = L->s;

	if (sc->n_defines == sc->cap_defines) {
		size_t cap = sc->cap_defines ? sc->cap_defines * 2 : 32;
		struct ksc_src_define *v = realloc(sc->defines, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sc->defines = v;
		sc->cap_defines = cap;
	}
	struct ksc_src_define *df = &sc->defines[sc->n_defines];
	unsigned col;
	df->name = pool_strndup(sc->strings, L->d + s, e - s);
	if (!df->name)
		return -ENOMEM;
	line_at(L, s, &df->line, &col);
	sc->n_defines++;
	return 0;
}

enum dirkind { DIR_NONE, DIR_DEFINE, DIR_OTHER };

/*
 * A '#' first on a logical line at q: read the directive's name and, for #define and
 * #undef, the macro's. Returns where to continue; *name_off is the macro name's offset.
 */
static size_t directive(struct lex *L, size_t q, enum dirkind *kind, size_t *name_off)
{
	const char *d = L->d;
	size_t n = L->n, p = q + 1;
	struct token t = next_token(L, &p, true);

	*kind = DIR_OTHER;
	*name_off = SIZE_MAX;
	if (t.t != T_IDENT)
		return t.t == T_NL || t.t == T_END ? t.s : t.e;
	size_t len = t.e - t.s;
	if (!L->seen_include && ((len == 7 && memcmp(d + t.s, "include", 7) == 0) ||
				 (len == 12 && memcmp(d + t.s, "include_next", 12) == 0))) {
		L->seen_include = true;
		L->def_at_include = L->def_ns != NULL;
	}
	bool def = len == 6 && memcmp(d + t.s, "define", 6) == 0;
	bool undef = len == 5 && memcmp(d + t.s, "undef", 5) == 0;
	if (!def && !undef)
		return t.e;
	if (def)
		*kind = DIR_DEFINE;
	size_t after = t.e;
	t = next_token(L, &p, true);
	if (t.t != T_IDENT)
		return after;
	if (def && (L->s->flags & KSC_SRC_SCAN_DEFINES) && add_define(L, t.s, t.e) < 0)
		L->err = -ENOMEM;
	if (t.e - t.s != sizeof(kw_default) - 1 ||
	    memcmp(d + t.s, kw_default, t.e - t.s) != 0)
		return t.e;

	/* #define / #undef DEFAULT_SYMBOL_NAMESPACE */
	size_t name = t.s, name_end = t.e;
	if (def && name_end < n && d[name_end] == '(')
		return name_end; /* a function-like macro of that name: not the default */
	*name_off = name; /* the record stands for this keyword */
	struct ksc_src_record *r = rec_new(L, KSC_SRC_DEFAULT_NS, name);
	if (!r)
		return name_end;
	r->macro = def ? "#define" : "#undef";
	r->after_include = L->seen_include;
	r->offset = q;
	r->end = logical_line_end(d, n, name_end);
	if (undef) {
		r->ns = "";
		L->def_ns = NULL;
		return name_end;
	}
	/* The value: every token up to the end of the logical line. */
	size_t vs = SIZE_MAX, ve = name_end;
	p = name_end;
	for (;;) {
		t = next_token(L, &p, true);
		if (t.t == T_NL || t.t == T_END) {
			r->end = t.s; /* a block comment in it may carry it over lines */
			break;
		}
		if (vs == SIZE_MAX)
			vs = t.s;
		ve = t.e;
	}
	if (vs == SIZE_MAX) {
		r->ns = "";
		r->spelling = KSC_SRC_SPELL_NONE;
	} else {
		r->ns = value_of(L, vs, ve, &r->spelling);
		oom_if_null(L, r->ns);
		r->ns_offset = vs;
		r->ns_end = ve;
	}
	char from[32];
	snprintf(from, sizeof(from), ":%u", r->line);
	L->def_ns = r->ns;
	L->def_spell = r->spelling;
	L->def_from = concat(L, L->path, from, "");
	oom_if_null(L, L->def_from);
	return name_end;
}

/* Is the '#' at q the first thing on its logical line (blanks aside)? */
static bool starts_line(const char *d, size_t q)
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

/* Classify every candidate in [from, to) as `why`. */
static void mention_range(struct lex *L, const struct cands *c, size_t *ci, size_t from,
			  size_t to, enum ksc_src_mention why)
{
	while (*ci < c->n && c->v[*ci] < to) {
		if (c->v[*ci] >= from)
			mention(L, c->v[*ci], why);
		(*ci)++;
	}
}

static void lex_c(struct lex *L, const struct cands *c)
{
	const char *d = L->d;
	size_t n = L->n, p = 0, ci = 0, last_ident_end = 0;
	enum dirkind dir = DIR_NONE;
	size_t dir_name = SIZE_MAX;

	while (ci < c->n && !L->err) {
		size_t lim = c->v[ci];
		const unsigned char *tab = special[L->asm_][dir != DIR_NONE];

		/* Skip to the next byte that matters, or to the next keyword. */
		p = skip_plain(d, p, lim, L->asm_, dir != DIR_NONE, tab);
		if (p < lim) {
			char ch = d[p];
			size_t e;
			switch (ch) {
			case '/':
				if (p + 1 < n && d[p + 1] == '*') {
					e = block_comment_end(d, n, p);
				} else if (p + 1 < n && d[p + 1] == '/') {
					e = logical_line_end(d, n, p);
				} else {
					p++;
					continue;
				}
				mention_range(L, c, &ci, p, e, KSC_SRC_IN_COMMENT);
				p = e;
				continue;
			case '"':
			case '\'':
				e = literal_end(d, n, p);
				mention_range(L, c, &ci, p, e, KSC_SRC_IN_STRING);
				p = e;
				continue;
			case '\n':
				if (newline_ends_line(d, p)) {
					dir = DIR_NONE;
					dir_name = SIZE_MAX;
				}
				p++;
				continue;
			case '#':
				if (starts_line(d, p)) {
					p = directive(L, p, &dir, &dir_name);
					/* keywords passed over in the directive's head */
					enum ksc_src_mention why = dir == DIR_DEFINE ?
						KSC_SRC_IN_DEFINE : KSC_SRC_IN_DIRECTIVE;
					for (; ci < c->n && c->v[ci] < p; ci++)
						if (c->v[ci] != dir_name)
							mention(L, c->v[ci], why);
				} else {
					p++;
				}
				continue;
			default:
				p++;
				continue;
			}
		}

		/* At a keyword, in code or in a directive. */
		size_t k = lim;
		ci++;
		if (k < last_ident_end)
			continue; /* inside an identifier or invocation already handled */
		if (dir != DIR_NONE) {
			if (k != dir_name)
				mention(L, k,
					dir == DIR_DEFINE ? KSC_SRC_IN_DEFINE
							  : KSC_SRC_IN_DIRECTIVE);
			p = k;
			continue;
		}
		size_t is, ie;
		ident_around(d, n, k, &is, &ie);
		last_ident_end = ie;
		if (is != k) {
			mention(L, k, KSC_SRC_OTHER_MACRO);
			p = ie;
			continue;
		}
		const struct macro *m = find_macro(d + k, ie - k);
		if (!m) {
			/* EXPORT_SYMBOL_IF_KUNIT, or DEFAULT_SYMBOL_NAMESPACE in code */
			mention(L, k, KSC_SRC_OTHER_MACRO);
			p = ie;
			continue;
		}
		p = invocation(L, m, k, ie);
		if (p > last_ident_end)
			last_ident_end = p;
	}
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
			e = block_comment_end(d, n, p);
			bool closed = e - p >= 4 && d[e - 1] == '/' && d[e - 2] == '*';
			if (e > pos || (e == pos && !closed))
				return KSC_SRC_ST_BLOCK_COMMENT;
			p = e;
		} else if (c == '/' && p + 1 < n && d[p + 1] == '/') {
			e = logical_line_end(d, n, p);
			if (e >= pos)
				return dir ? KSC_SRC_ST_DIRECTIVE
					   : KSC_SRC_ST_LINE_COMMENT;
			p = e;
		} else if (c == '"' || (c == '\'' && !asm_)) {
			e = literal_end(d, n, p);
			bool closed = e - p >= 2 && d[e - 1] == c;
			if (e > pos || (e == pos && !closed))
				return KSC_SRC_ST_STRING;
			p = e;
		} else if (c == '\n') {
			if (dir && newline_ends_line(d, p))
				dir = false;
			p++;
		} else if (c == '#' && !dir && starts_line(d, p)) {
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

/* ---------------------------------------------------------------------------------- */
/* Kbuild / Makefile: -DDEFAULT_SYMBOL_NAMESPACE=                                     */

/* Shell-unquote [s, e) into the scanner's buffer. */
static int shell_unquote(struct ksc_src_scanner *sc, const char *d, size_t s, size_t e,
			 size_t *len)
{
	size_t o = 0;
	char q = 0;

	if (buf_reserve(sc, e - s + 1) < 0)
		return -ENOMEM;
	for (size_t i = s; i < e; i++) {
		char c = d[i];
		if (q == '\'') {
			if (c == '\'')
				q = 0;
			else
				sc->buf[o++] = c;
		} else if (q == '"') {
			if (c == '"')
				q = 0;
			else if (c == '\\' && i + 1 < e && strchr("\"\\$`", d[i + 1]))
				sc->buf[o++] = d[++i];
			else
				sc->buf[o++] = c;
		} else if (c == '\'' || c == '"') {
			q = c;
		} else if (c == '\\' && i + 1 < e) {
			sc->buf[o++] = d[++i];
		} else {
			sc->buf[o++] = c;
		}
	}
	sc->buf[o] = '\0';
	*len = o;
	return 0;
}

static bool var_is_flags(const char *v, size_t n)
{
	static const char *const prefixes[] = { "ccflags-", "subdir-ccflags-", "CFLAGS_",
						"EXTRA_CFLAGS", "asflags-", "subdir-asflags-",
						"AFLAGS_", "EXTRA_AFLAGS" };

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t l = strlen(prefixes[i]);
		if (n >= l && memcmp(v, prefixes[i], l) == 0)
			return true;
	}
	return false;
}

static void lex_make_line(struct lex *L, size_t ls, size_t le)
{
	static const char flag[] = "-DDEFAULT_SYMBOL_NAMESPACE";
	const size_t fl = sizeof(flag) - 1;
	const char *d = L->d;
	size_t p = ls;

	if (!memmem(d + ls, le - ls, flag, fl))
		return;
	while (p < le && (d[p] == ' ' || d[p] == '\t'))
		p++;
	if (p < le && d[p] == '#')
		return;
	if (le - p > 9 && memcmp(d + p, "override ", 9) == 0)
		p += 9;
	size_t vs = p;
	while (p < le && !strchr(" \t:+?=", d[p]))
		p++;
	size_t var_end = p;
	if (!var_is_flags(d + vs, var_end - vs))
		return;
	while (p < le && (d[p] == ' ' || d[p] == '\t'))
		p++;
	/* =, :=, ::=, +=, ?= */
	if (p < le && (d[p] == '+' || d[p] == '?'))
		p++;
	else
		while (p < le && d[p] == ':')
			p++;
	if (p >= le || d[p] != '=')
		return;
	p++;
	/* The value ends at a make comment (an unescaped '#', even in quotes). */
	size_t end = p;
	while (end < le && !(d[end] == '#' && (end == 0 || d[end - 1] != '\\')))
		end++;
	const char *var = pool_strndup(L->s->strings, d + vs, var_end - vs);
	oom_if_null(L, var);
	while (p < end && !L->err) {
		const char *hit = memmem(d + p, end - p, flag, fl);
		if (!hit)
			break;
		size_t h = (size_t)(hit - d), k = h + fl;
		p = k;
		if (h > ls && d[h - 1] != ' ' && d[h - 1] != '\t' && d[h - 1] != '\'' &&
		    d[h - 1] != '"')
			continue;
		if (k < end && is_ident_char((unsigned char)d[k]))
			continue; /* a longer macro name */
		size_t rs = k, re = k;
		if (k < end && d[k] == '=') {
			rs = re = k + 1;
			char q = 0;
			while (re < end) {
				char ch = d[re];
				if (q) {
					if (ch == q)
						q = 0;
				} else if (ch == '\'' || ch == '"') {
					q = ch;
				} else if (ch == ' ' || ch == '\t' || ch == '\n' ||
					   ch == '\\') {
					if (ch != '\\' || re + 1 >= end ||
					    d[re + 1] == '\n')
						break;
					re++;
				}
				re++;
			}
		}
		struct ksc_src_record *r = rec_new(L, KSC_SRC_DEFAULT_NS, h);
		if (!r)
			return;
		r->macro = var;
		r->offset = h;
		r->end = re;
		r->ns_offset = rs;
		r->ns_end = re;
		if (rs == k) { /* -DNAME alone defines it as 1 */
			r->ns = "1";
			r->spelling = KSC_SRC_SPELL_OTHER;
			r->ns_offset = r->ns_end = 0;
			continue;
		}
		size_t len;
		if (shell_unquote(L->s, d, rs, re, &len) < 0) {
			L->err = -ENOMEM;
			return;
		}
		const char *v = L->s->buf;
		if (len >= 2 && v[0] == '"' && v[len - 1] == '"') {
			/* the C token is a string literal: decode it */
			char *copy = malloc(len + 1); /* the value may hold NUL bytes */
			size_t out = 0;
			if (copy) {
				memcpy(copy, v, len);
				copy[len] = '\0';
			}
			if (!copy || decode_literal(L->s, copy, len, 0, len, &out) < 0) {
				free(copy);
				L->err = -ENOMEM;
				return;
			}
			free(copy);
			r->ns = pool_strndup(L->s->strings, L->s->buf,
					     strnlen(L->s->buf, out));
			r->spelling = KSC_SRC_SPELL_STRING;
		} else {
			r->ns = pool_strndup(L->s->strings, v, len);
			r->spelling = len == 0 ? KSC_SRC_SPELL_NONE
				    : ksc_src_is_identifier(v, len) ? KSC_SRC_SPELL_IDENT
								    : KSC_SRC_SPELL_OTHER;
		}
		oom_if_null(L, r->ns);
	}
}

static void lex_make(struct lex *L)
{
	size_t p = 0;

	if (!memmem(L->d, L->n, kw_default, sizeof(kw_default) - 1))
		return;
	while (p < L->n && !L->err) {
		size_t e = logical_line_end(L->d, L->n, p);
		lex_make_line(L, p, e);
		p = e + 1;
	}
}

/* ---------------------------------------------------------------------------------- */
/* Scanner                                                                            */

void ksc_src_scanner_init(struct ksc_src_scanner *s, struct pool *strings,
			  struct ksc_src_vec *out, unsigned int flags,
			  const char *kvm_sub_modules)
{
	memset(s, 0, sizeof(*s));
	s->strings = strings;
	s->out = out;
	s->flags = flags;
	s->kvm_sub_modules = kvm_sub_modules ? kvm_sub_modules : DEFAULT_KVM_SUB_MODULES;
}

void ksc_src_scanner_fini(struct ksc_src_scanner *s)
{
	free(s->cand);
	free(s->buf);
	free(s->defines);
	s->cand = NULL;
	s->buf = NULL;
	s->defines = NULL;
	s->cap_cand = s->cap_buf = s->n_defines = s->cap_defines = 0;
}

int ksc_src_scan_buffer(struct ksc_src_scanner *s, const char *path, const char *data,
			size_t size, enum ksc_src_lang lang,
			const struct ksc_src_default *def)
{
	struct lex L = {
		.s = s,
		.tmp_path = path,
		.d = data,
		.n = size,
		.asm_ = lang == KSC_LANG_ASM,
		.lc_line = 1,
	};

	if (def && def->ns) {
		L.def_ns = def->ns;
		L.def_spell = def->spelling;
		L.def_from = def->from;
	}
	if (lang == KSC_LANG_MAKE) {
		lex_make(&L);
		return L.err;
	}
	pthread_once(&special_once, special_init);
	struct cands c = { s->cand, 0, s->cap_cand };
	if (find_candidates(s, data, size, &c) < 0)
		return -ENOMEM;
	if (c.n == 0)
		return 0;
	lex_c(&L, &c);
	return L.err;
}

/* ---------------------------------------------------------------------------------- */
/* The scan object                                                                    */

struct ksc_src {
	int refcount;
	struct ksc_ctx *ctx;
	unsigned int flags, threads;
	const char *kvm;
	struct pool strings;         /* the object's own strings, and memory scans */
	struct pool **pools;         /* one per worker of every folder scan */
	size_t n_pools;
	struct ksc_src_vec recs;
	size_t n_files;
	unsigned int errors;
};

KSC_EXPORT int ksc_src_new(struct ksc_ctx *ctx, const struct ksc_src_opts *opts,
			   struct ksc_src **out)
{
	struct ksc_src *src;

	if (!ctx || !out)
		return -EINVAL;
	if (opts &&
	    opts->sz < offsetof(struct ksc_src_opts, kvm_sub_modules) + sizeof(char *))
		return -EINVAL;
	src = calloc(1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	src->refcount = 1;
	src->ctx = ksc_ref(ctx);
	pool_init(&src->strings);
	if (opts) {
		src->flags = opts->flags & KSC_SRC_MENTIONS;
		src->threads = opts->threads;
		if (opts->kvm_sub_modules) {
			src->kvm = pool_strdup(&src->strings, opts->kvm_sub_modules);
			if (!src->kvm) {
				ksc_src_unref(src);
				return -ENOMEM;
			}
		}
	}
	*out = src;
	return 0;
}

KSC_EXPORT struct ksc_src *ksc_src_ref(struct ksc_src *src)
{
	if (src)
		src->refcount++;
	return src;
}

KSC_EXPORT struct ksc_src *ksc_src_unref(struct ksc_src *src)
{
	if (!src || --src->refcount > 0)
		return NULL;
	for (size_t i = 0; i < src->n_pools; i++) {
		pool_fini(src->pools[i]);
		free(src->pools[i]);
	}
	free(src->pools);
	pool_fini(&src->strings);
	free(src->recs.v);
	ksc_unref(src->ctx);
	free(src);
	return NULL;
}

KSC_EXPORT size_t ksc_src_get_record_count(const struct ksc_src *src)
{
	return src ? src->recs.n : 0;
}

KSC_EXPORT const struct ksc_src_record *ksc_src_get_record(const struct ksc_src *src,
							   size_t i)
{
	return src && i < src->recs.n ? &src->recs.v[i] : NULL;
}

KSC_EXPORT size_t ksc_src_get_file_count(const struct ksc_src *src)
{
	return src ? src->n_files : 0;
}

KSC_EXPORT unsigned int ksc_src_get_error_count(const struct ksc_src *src)
{
	return src ? src->errors : 0;
}

KSC_EXPORT int ksc_src_add_memory(struct ksc_src *src, const char *name, const char *data,
				  size_t size)
{
	struct ksc_src_scanner sc;
	enum ksc_src_lang lang;
	int r;

	if (!src || !name || (!data && size))
		return -EINVAL;
	lang = ksc_src_lang_of(name);
	ksc_src_scanner_init(&sc, &src->strings, &src->recs, src->flags, src->kvm);
	r = ksc_src_scan_buffer(&sc, name, data ? data : "", size,
				lang == KSC_LANG_NONE ? KSC_LANG_C : lang, NULL);
	ksc_src_scanner_fini(&sc);
	if (r == 0)
		src->n_files++;
	return r < 0 ? r : 1;
}

/*
 * A regular file (readdir said so) read without fstat(): reads until one comes back
 * short, which for a regular file means its end. 0 or -errno.
 */
static int read_regular(int dfd, const char *name, char **buf, size_t *cap, size_t *size)
{
	/* O_NONBLOCK: a FIFO put in the file's place since readdir cannot hang the open. */
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	size_t got = 0;
	int r = 0;

	if (fd < 0)
		return -errno;
	if (!*cap) {
		*buf = malloc(65536);
		if (!*buf) {
			r = -ENOMEM;
			goto out;
		}
		*cap = 65536;
	}
	for (;;) {
		if (*cap - got < 2) {
			if (*cap >= MAX_FILE_SIZE) {
				r = -EFBIG;
				goto out;
			}
			char *b = realloc(*buf, *cap * 2);
			if (!b) {
				r = -ENOMEM;
				goto out;
			}
			*buf = b;
			*cap *= 2;
		}
		size_t want = *cap - got - 1;
		ssize_t k = read(fd, *buf + got, want);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out;
		}
		got += (size_t)k;
		if ((size_t)k < want)
			break;
	}
	(*buf)[got] = '\0';
	*size = got;
out:
	close(fd);
	return r;
}

/*
 * Read a whole file opened at dfd/name into *buf (grown as needed). 0 or -errno; -EINVAL
 * for what is not a regular file (*mode says what it is). The open does not block: a
 * FIFO cannot hang it.
 */
static int read_whole(int dfd, const char *name, char **buf, size_t *cap, size_t *size,
		      mode_t *mode)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	int r = 0;

	*mode = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	*mode = st.st_mode;
	if (S_ISDIR(st.st_mode)) {
		r = -EISDIR;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		goto out;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if ((uint64_t)st.st_size > MAX_FILE_SIZE) {
		r = -EFBIG;
		goto out;
	}
	size_t want = (size_t)st.st_size, got = 0;
	if (want + 1 > *cap) {
		size_t c = *cap ? *cap : 65536;
		while (c < want + 1)
			c *= 2;
		char *b = realloc(*buf, c);
		if (!b) {
			r = -ENOMEM;
			goto out;
		}
		*buf = b;
		*cap = c;
	}
	while (got < want) {
		ssize_t k = read(fd, *buf + got, want - got);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	(*buf)[got] = '\0';
	*size = got;
out:
	close(fd);
	return r;
}

/* Defaults taken from one folder's Kbuild/Makefile records. */
struct dir_flags {
	struct ksc_src_default c, as, sub_c, sub_as;
	struct file_flag {
		const char *obj;    /* "foo" of CFLAGS_foo.o / AFLAGS_foo.o */
		bool as;
		struct ksc_src_default def;
	} *files;
	size_t n_files;
};

static const char *from_of(struct pool *pool, const struct ksc_src_record *r)
{
	char tmp[32];
	size_t pl = strlen(r->path);
	int tl = snprintf(tmp, sizeof(tmp), ":%u", r->line);
	char *s = malloc(pl + (size_t)tl + 1);
	const char *out;

	if (!s)
		return NULL;
	memcpy(s, r->path, pl);
	memcpy(s + pl, tmp, (size_t)tl + 1);
	out = pool_strdup(pool, s);
	free(s);
	return out;
}

/* Fill `f` from the DEFAULT_NS records [first, last) of a Kbuild/Makefile. -ENOMEM. */
static int dir_flags_from(struct dir_flags *f, struct pool *pool,
			  const struct ksc_src_vec *v, size_t first)
{
	for (size_t i = first; i < v->n; i++) {
		const struct ksc_src_record *r = &v->v[i];
		const char *m = r->macro;
		struct ksc_src_default def = { r->ns, r->spelling, from_of(pool, r) };
		if (!def.from)
			return -ENOMEM;
		if (strstartswith(m, "subdir-ccflags-"))
			f->sub_c = def;
		else if (strstartswith(m, "subdir-asflags-"))
			f->sub_as = def;
		else if (strstartswith(m, "ccflags-") || streq(m, "EXTRA_CFLAGS"))
			f->c = def;
		else if (strstartswith(m, "asflags-") || streq(m, "EXTRA_AFLAGS"))
			f->as = def;
		else if (strstartswith(m, "CFLAGS_") || strstartswith(m, "AFLAGS_")) {
			size_t l = strlen(m);
			if (l < 10 || strcmp(m + l - 2, ".o") != 0)
				continue;
			struct file_flag *ff =
				realloc(f->files, (f->n_files + 1) * sizeof(*ff));
			if (!ff)
				return -ENOMEM;
			f->files = ff;
			ff[f->n_files].obj = pool_strndup(pool, m + 7, l - 9);
			if (!ff[f->n_files].obj)
				return -ENOMEM;
			ff[f->n_files].as = m[0] == 'A';
			ff[f->n_files].def = def;
			f->n_files++;
		}
	}
	return 0;
}

/*
 * The default a file starts with: kbuild passes subdir-ccflags (this folder's, else the
 * nearest parent's), then ccflags-y, then CFLAGS_<obj>.o; the last -D wins.
 */
static struct ksc_src_default file_default(const struct dir_flags *f,
					   const struct ksc_src_default *inh_c,
					   const struct ksc_src_default *inh_as,
					   const char *name, enum ksc_src_lang lang)
{
	bool as = lang == KSC_LANG_ASM;
	struct ksc_src_default d = { NULL, KSC_SRC_SPELL_NONE, NULL };
	const struct ksc_src_default *sub = as ? &f->sub_as : &f->sub_c;
	const struct ksc_src_default *inh = as ? inh_as : inh_c;
	size_t nl = strlen(name);

	if (sub->ns)
		d = *sub;
	else if (inh && inh->ns)
		d = *inh;
	if ((as ? f->as.ns : f->c.ns))
		d = as ? f->as : f->c;
	for (size_t i = 0; i < f->n_files; i++) {
		const struct file_flag *ff = &f->files[i];
		size_t ol = strlen(ff->obj);
		if (ff->as == as && nl == ol + 2 && memcmp(name, ff->obj, ol) == 0)
			d = ff->def;
	}
	return d;
}

/* ---- folder walk ---- */

struct dirtask {
	char *rel;                         /* relative to the root; "" for the root */
	struct ksc_src_default sub_c,
		sub_as; /* inherited subdir-ccflags / subdir-asflags */
};

struct fres {
	const char *path;
	size_t first, n;
	struct ksc_src_vec *vec;
};

struct werr {
	char *path;
	int err;
};

struct walk;

struct worker {
	struct walk *w;
	pthread_t tid;
	bool started;
	struct pool *strings;
	struct ksc_src_vec recs;
	struct ksc_src_scanner sc;
	struct fres *files;
	size_t n_files, cap_files;
	size_t files_read;
	struct werr *errs;
	size_t n_errs, cap_errs;
	char *buf;
	size_t cap_buf;
	char *path;                        /* scratch for paths */
	size_t cap_path;
	int err;                           /* -ENOMEM: give up */
};

struct walk {
	struct ksc_src *src;
	const char *root;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct dirtask *stack;
	size_t n, cap;
	unsigned int busy;
	bool failed;
	struct worker *workers;
	unsigned int n_workers;
};

static int worker_error(struct worker *wk, const char *path, int err)
{
	if (wk->n_errs == wk->cap_errs) {
		size_t cap = wk->cap_errs ? wk->cap_errs * 2 : 8;
		struct werr *v = realloc(wk->errs, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		wk->errs = v;
		wk->cap_errs = cap;
	}
	wk->errs[wk->n_errs].path = strdup(path);
	if (!wk->errs[wk->n_errs].path)
		return -ENOMEM;
	wk->errs[wk->n_errs++].err = err;
	return 0;
}

/* root + "/" + rel + "/" + name into the worker's scratch buffer. */
static const char *join_path(struct worker *wk, const char *rel, const char *name)
{
	const char *root = wk->w->root;
	size_t lr = strlen(root), ll = strlen(rel), ln = name ? strlen(name) : 0;
	size_t need = lr + ll + ln + 3;

	if (need > wk->cap_path) {
		char *p = realloc(wk->path, need);
		if (!p)
			return NULL;
		wk->path = p;
		wk->cap_path = need;
	}
	char *o = wk->path;
	bool slash = lr > 0 && root[lr - 1] == '/';
	memcpy(o, root, lr);
	o += lr;
	if (ll) {
		if (!slash)
			*o++ = '/';
		memcpy(o, rel, ll);
		o += ll;
		slash = false;
	}
	if (name) {
		if (!slash)
			*o++ = '/';
		memcpy(o, name, ln);
		o += ln;
	}
	*o = '\0';
	return wk->path;
}

static int add_fres(struct worker *wk, const char *path, size_t first)
{
	if (wk->n_files == wk->cap_files) {
		size_t cap = wk->cap_files ? wk->cap_files * 2 : 256;
		struct fres *v = realloc(wk->files, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		wk->files = v;
		wk->cap_files = cap;
	}
	wk->files[wk->n_files++] =
		(struct fres){ path, first, wk->recs.n - first, &wk->recs };
	return 0;
}

/* Scan one file of an open folder. Problems are collected, -ENOMEM returned. */
static int scan_one(struct worker *wk, int dfd, const char *rel, const char *name,
		    enum ksc_src_lang lang, const struct ksc_src_default *def)
{
	size_t size = 0, first = wk->recs.n;
	int r = read_regular(dfd, name, &wk->buf, &wk->cap_buf, &size);
	const char *path = join_path(wk, rel, name);

	if (!path)
		return -ENOMEM;
	if (r < 0)
		return r == -ENOMEM ? r : worker_error(wk, path, r);
	wk->files_read++;
	r = ksc_src_scan_buffer(&wk->sc, path, wk->buf, size, lang, def);
	if (r < 0)
		return r;
	if (wk->recs.n > first)
		return add_fres(wk, wk->recs.v[first].path, first);
	return 0;
}

struct entry {
	const char *name;
	unsigned char type;
};

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static int push_tasks(struct walk *w, struct dirtask *t, size_t n)
{
	int r = 0;

	if (!n)
		return 0;
	pthread_mutex_lock(&w->lock);
	if (w->n + n > w->cap) {
		size_t cap = w->cap ? w->cap : 64;
		while (cap < w->n + n)
			cap *= 2;
		struct dirtask *v = realloc(w->stack, cap * sizeof(*v));
		if (!v) {
			r = -ENOMEM;
			goto out;
		}
		w->stack = v;
		w->cap = cap;
	}
	memcpy(w->stack + w->n, t, n * sizeof(*t));
	w->n += n;
	pthread_cond_broadcast(&w->cond);
out:
	pthread_mutex_unlock(&w->lock);
	return r;
}

static int scan_dir(struct worker *wk, const struct dirtask *t)
{
	const char *full = join_path(wk, t->rel, NULL);
	struct entry *ents = NULL;
	size_t n = 0, cap = 0, nsub = 0;
	struct dirtask *subs = NULL;
	struct dir_flags fl;
	struct dirent *de;
	DIR *dir;
	int dfd, r = 0;
	char *names = NULL; /* the folder's names, back to back */
	size_t names_len = 0, names_cap = 0;

	memset(&fl, 0, sizeof(fl));
	if (!full)
		return -ENOMEM;
	dfd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return worker_error(wk, full, -errno);
	dir = fdopendir(dfd);
	if (!dir) {
		r = worker_error(wk, full, -errno);
		close(dfd);
		return r;
	}
	/* Names are copied: readdir's buffer is reused. Offsets first, pointers after. */
	size_t *offs = NULL;
	while ((errno = 0, de = readdir(dir))) {
		const char *nm = de->d_name;
		if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
			continue;
		unsigned char type = de->d_type;
		if (type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			type = S_ISDIR(st.st_mode)   ? DT_DIR
			       : S_ISREG(st.st_mode) ? DT_REG
						     : DT_LNK;
		}
		if (type != DT_DIR && type != DT_REG)
			continue; /* symbolic links, devices: not followed (grep -r) */
		if (type == DT_REG && ksc_src_lang_of(nm) == KSC_LANG_NONE)
			continue;
		size_t l = strlen(nm) + 1;
		if (names_len + l > names_cap) {
			size_t c = names_cap ? names_cap * 2 : 4096;
			while (c < names_len + l)
				c *= 2;
			char *v = realloc(names, c);
			if (!v) {
				r = -ENOMEM;
				goto out;
			}
			names = v;
			names_cap = c;
		}
		if (n == cap) {
			size_t c = cap ? cap * 2 : 64;
			struct entry *v = realloc(ents, c * sizeof(*v));
			size_t *o = realloc(offs, c * sizeof(*o));
			if (v)
				ents = v;
			if (o)
				offs = o;
			if (!v || !o) {
				r = -ENOMEM;
				goto out;
			}
			cap = c;
		}
		memcpy(names + names_len, nm, l);
		offs[n] = names_len;
		ents[n].type = type;
		n++;
		names_len += l;
	}
	if (errno) {
		r = worker_error(wk, full, -errno);
		if (r < 0)
			goto out;
	}
	for (size_t i = 0; i < n; i++)
		ents[i].name = names + offs[i];
	if (n)
		qsort(ents, n, sizeof(*ents), cmp_entry);

	/* Kbuild is what kbuild reads when both exist; both are scanned for records. */
	bool has_kbuild = false;
	for (size_t i = 0; i < n; i++)
		if (ents[i].type == DT_REG && streq(ents[i].name, "Kbuild"))
			has_kbuild = true;
	for (size_t i = 0; i < n; i++) {
		if (ents[i].type != DT_REG ||
		    ksc_src_lang_of(ents[i].name) != KSC_LANG_MAKE)
			continue;
		size_t first = wk->recs.n;
		r = scan_one(wk, dfd, t->rel, ents[i].name, KSC_LANG_MAKE, NULL);
		if (r < 0)
			goto out;
		if (has_kbuild == streq(ents[i].name, "Kbuild")) {
			r = dir_flags_from(&fl, wk->strings, &wk->recs, first);
			if (r < 0)
				goto out;
		}
	}
	for (size_t i = 0; i < n; i++) {
		enum ksc_src_lang lang = ksc_src_lang_of(ents[i].name);
		if (ents[i].type != DT_REG || lang == KSC_LANG_MAKE)
			continue;
		struct ksc_src_default def = file_default(&fl, &t->sub_c, &t->sub_as,
							  ents[i].name, lang);
		r = scan_one(wk, dfd, t->rel, ents[i].name, lang, &def);
		if (r < 0)
			goto out;
	}

	/* Subfolders: pushed for any thread to take. */
	for (size_t i = 0; i < n; i++)
		if (ents[i].type == DT_DIR)
			nsub++;
	if (nsub) {
		subs = calloc(nsub, sizeof(*subs));
		if (!subs) {
			r = -ENOMEM;
			goto out;
		}
		size_t k = 0, rl = strlen(t->rel);
		for (size_t i = 0; i < n; i++) {
			if (ents[i].type != DT_DIR)
				continue;
			size_t nl = strlen(ents[i].name);
			char *rel = malloc(rl + nl + 2);
			if (!rel) {
				r = -ENOMEM;
				break;
			}
			if (rl) {
				memcpy(rel, t->rel, rl);
				rel[rl] = '/';
				memcpy(rel + rl + 1, ents[i].name, nl + 1);
			} else {
				memcpy(rel, ents[i].name, nl + 1);
			}
			subs[k].rel = rel;
			subs[k].sub_c = fl.sub_c.ns ? fl.sub_c : t->sub_c;
			subs[k].sub_as = fl.sub_as.ns ? fl.sub_as : t->sub_as;
			k++;
		}
		if (r == 0)
			r = push_tasks(wk->w, subs, k);
		if (r < 0)
			for (size_t i = 0; i < k; i++)
				free(subs[i].rel);
	}
out:
	free(subs);
	free(fl.files);
	free(ents);
	free(offs);
	free(names);
	closedir(dir);
	return r;
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct walk *w = wk->w;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (w->n == 0 && w->busy > 0 && !w->failed)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->n == 0 || w->failed) {
			pthread_cond_broadcast(&w->cond);
			pthread_mutex_unlock(&w->lock);
			break;
		}
		struct dirtask t = w->stack[--w->n];
		w->busy++;
		pthread_mutex_unlock(&w->lock);

		int r = scan_dir(wk, &t);
		free(t.rel);

		pthread_mutex_lock(&w->lock);
		w->busy--;
		if (r < 0) {
			wk->err = r;
			w->failed = true;
		}
		if (w->busy == 0 && w->n == 0)
			pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

static int cmp_fres(const void *a, const void *b)
{
	const struct fres *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_werr(const void *a, const void *b)
{
	return strcmp(((const struct werr *)a)->path, ((const struct werr *)b)->path);
}

static int vec_append(struct ksc_src_vec *v, const struct ksc_src_record *r, size_t n)
{
	if (!n)
		return 0;
	if (v->n + n > v->cap) {
		size_t cap = v->cap ? v->cap : 256;
		while (cap < v->n + n)
			cap *= 2;
		struct ksc_src_record *x = realloc(v->v, cap * sizeof(*x));
		if (!x)
			return -ENOMEM;
		v->v = x;
		v->cap = cap;
	}
	memcpy(v->v + v->n, r, n * sizeof(*r));
	v->n += n;
	return 0;
}

static unsigned int n_threads(const struct ksc_src *src)
{
	long n = src->threads ? (long)src->threads : sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	return n > 64 ? 64 : (unsigned int)n;
}

static int scan_tree(struct ksc_src *src, const char *root)
{
	struct walk w = { .src = src, .root = root };
	unsigned int nt = n_threads(src);
	int r = 0;

	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	w.workers = calloc(nt, sizeof(*w.workers));
	struct pool **pools = realloc(src->pools, (src->n_pools + nt) * sizeof(*pools));
	if (pools)
		src->pools = pools;
	if (!w.workers || !pools) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < nt; i++) {
		struct worker *wk = &w.workers[i];
		wk->w = &w;
		wk->strings = calloc(1, sizeof(*wk->strings));
		if (!wk->strings) {
			r = -ENOMEM;
			goto out;
		}
		pool_init(wk->strings);
		src->pools[src->n_pools++] = wk->strings;
		ksc_src_scanner_init(&wk->sc, wk->strings, &wk->recs, src->flags,
				     src->kvm);
	}
	w.n_workers = nt;
	struct dirtask first = { strdup(""), { NULL, 0, NULL }, { NULL, 0, NULL } };
	if (!first.rel || push_tasks(&w, &first, 1) < 0) {
		free(first.rel);
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 1; i < nt; i++)
		w.workers[i].started = pthread_create(&w.workers[i].tid, NULL,
						      worker_main, &w.workers[i]) == 0;
	worker_main(&w.workers[0]);
	for (unsigned i = 1; i < nt; i++)
		if (w.workers[i].started)
			pthread_join(w.workers[i].tid, NULL);

	/* Merge: files by path, then the errors by path. */
	size_t nf = 0, ne = 0;
	for (unsigned i = 0; i < nt; i++) {
		nf += w.workers[i].n_files;
		ne += w.workers[i].n_errs;
		src->n_files += w.workers[i].files_read;
		if (w.workers[i].err)
			r = w.workers[i].err;
	}
	struct fres *all = calloc(nf ? nf : 1, sizeof(*all));
	struct werr *errs = calloc(ne ? ne : 1, sizeof(*errs));
	if (!all || !errs) {
		free(all);
		free(errs);
		r = -ENOMEM;
		goto out;
	}
	nf = ne = 0;
	for (unsigned i = 0; i < nt; i++) {
		if (w.workers[i].n_files)
			memcpy(all + nf, w.workers[i].files,
			       w.workers[i].n_files * sizeof(*all));
		nf += w.workers[i].n_files;
		if (w.workers[i].n_errs)
			memcpy(errs + ne, w.workers[i].errs,
			       w.workers[i].n_errs * sizeof(*errs));
		ne += w.workers[i].n_errs;
		w.workers[i].n_errs = 0;
	}
	if (nf)
		qsort(all, nf, sizeof(*all), cmp_fres);
	if (ne)
		qsort(errs, ne, sizeof(*errs), cmp_werr);
	for (size_t i = 0; i < nf && r == 0; i++)
		r = vec_append(&src->recs, all[i].vec->v + all[i].first, all[i].n);
	for (size_t i = 0; i < ne; i++) {
		ksc_err(src->ctx, "%s: %s", errs[i].path, strerror(-errs[i].err));
		free(errs[i].path);
	}
	src->errors += (unsigned int)ne;
	free(all);
	free(errs);
out:
	if (w.workers) {
		for (unsigned i = 0; i < nt; i++) {
			struct worker *wk = &w.workers[i];
			ksc_src_scanner_fini(&wk->sc);
			free(wk->recs.v);
			free(wk->files);
			for (size_t k = 0; k < wk->n_errs; k++)
				free(wk->errs[k].path);
			free(wk->errs);
			free(wk->buf);
			free(wk->path);
		}
	}
	for (size_t i = 0; i < w.n; i++)
		free(w.stack[i].rel);
	free(w.stack);
	free(w.workers);
	pthread_cond_destroy(&w.cond);
	pthread_mutex_destroy(&w.lock);
	return r;
}

/* A file given by name: the defaults of its own folder's Kbuild/Makefile apply. */
static int scan_single(struct ksc_src *src, const char *path)
{
	struct worker wk;
	struct walk w = { .src = src, .root = "" };
	char *dirpath = strdup(path), *slash;
	int dfd, r;
	enum ksc_src_lang lang = ksc_src_lang_of(path);

	if (!dirpath)
		return -ENOMEM;
	slash = strrchr(dirpath, '/');
	if (slash == dirpath)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dirpath, ".");
	memset(&wk, 0, sizeof(wk));
	wk.w = &w;
	wk.strings = &src->strings;
	ksc_src_scanner_init(&wk.sc, &src->strings, &wk.recs, src->flags, src->kvm);

	struct dir_flags fl;
	memset(&fl, 0, sizeof(fl));
	struct ksc_src_default def = { NULL, KSC_SRC_SPELL_NONE, NULL };
	if (lang != KSC_LANG_MAKE) {
		dfd = open(dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			struct ksc_src_vec tmp = { NULL, 0, 0 };
			struct ksc_src_scanner sc;
			const char *mk = faccessat(dfd, "Kbuild", F_OK, 0) == 0 ? "Kbuild" : "Makefile";
			char *mkpath = malloc(strlen(dirpath) + strlen(mk) + 2);
			size_t size;
			r = mkpath ? 0 : -ENOMEM;
			if (mkpath) {
				sprintf(mkpath, "%s/%s", dirpath, mk);
				mode_t mode;
				if (read_whole(dfd, mk, &wk.buf, &wk.cap_buf, &size,
					       &mode) == 0) {
					ksc_src_scanner_init(&sc, &src->strings, &tmp, 0,
							     NULL);
					r = ksc_src_scan_buffer(&sc, mkpath, wk.buf, size,
								KSC_LANG_MAKE, NULL);
					if (r == 0)
						r = dir_flags_from(&fl, &src->strings,
								   &tmp, 0);
					ksc_src_scanner_fini(&sc);
				}
			}
			free(mkpath);
			free(tmp.v);
			close(dfd);
			if (r < 0)
				goto out;
			def = file_default(&fl, NULL, NULL, ksc_basename(path),
					   lang == KSC_LANG_NONE ? KSC_LANG_C : lang);
		}
	}
	size_t size;
	mode_t mode;
	r = read_whole(AT_FDCWD, path, &wk.buf, &wk.cap_buf, &size, &mode);
	if (r == -EINVAL && mode) {
		ksc_err(src->ctx, "%s: not a regular file (%s)", path, ksc_file_kind(mode));
		goto out;
	}
	if (r < 0) {
		if (r != -ENOMEM)
			ksc_err(src->ctx, "%s: %s", path, strerror(-r));
		goto out;
	}
	r = ksc_src_scan_buffer(&wk.sc, path, wk.buf, size,
				lang == KSC_LANG_NONE ? KSC_LANG_C : lang, &def);
	if (r == 0)
		r = vec_append(&src->recs, wk.recs.v, wk.recs.n);
	if (r == 0) {
		src->n_files++;
		r = 1;
	}
out:
	free(fl.files);
	ksc_src_scanner_fini(&wk.sc);
	free(wk.recs.v);
	free(wk.buf);
	free(dirpath);
	return r;
}

KSC_EXPORT int ksc_src_add_path(struct ksc_src *src, const char *path)
{
	struct stat st;

	if (!src || !path || !*path)
		return -EINVAL;
	if (stat(path, &st) < 0) {
		int r = -errno;
		ksc_err(src->ctx, "%s: %s", path, strerror(errno));
		src->errors++;
		return r;
	}
	if (!S_ISDIR(st.st_mode)) {
		int r = scan_single(src, path);
		if (r < 0 && r != -ENOMEM)
			src->errors++;
		return r;
	}
	/* The root as given, without trailing slashes (but "/" stays). */
	size_t l = strlen(path);
	while (l > 1 && path[l - 1] == '/')
		l--;
	char *root = strndup(path, l);
	if (!root)
		return -ENOMEM;
	size_t before = src->n_files;
	int r = scan_tree(src, root);
	free(root);
	if (r < 0)
		return r;
	size_t files = src->n_files - before;
	return files > INT_MAX ? INT_MAX : (int)files;
}
