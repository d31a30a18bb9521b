// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The identifiers a module's own sources name, as the compiler would see them for one
 * kernel version: comments and string literals are skipped, and the branches of the
 * version conditionals "#if LINUX_VERSION_CODE <op> KERNEL_VERSION(a, b, c)" (either
 * order, parentheses allowed, also in #elif) that the version does not take are left
 * out. Any other condition (CONFIG_*, defined(), && and ||) is not evaluated: every
 * branch of it counts, so a name is "named" when some configuration could compile it.
 * Used by `compat` (lib/report/ksc-compat.c) to tell what the module calls itself from
 * what the old headers' inline code and macros referenced.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/source-private.h"
#include "util/fileio.h"
#include "util/macro.h"

#define MAX_DEPTH 64      /* folders below the source root */
#define MAX_FILE (64u << 20)
#define MAX_NEST 256      /* #if nesting followed; deeper is read as always taken */

/* One #if group: whether the lines now are compiled, and whether a branch was taken. */
struct cond {
	bool parent;  /* the group's lines can be compiled at all */
	bool active;  /* the current branch is compiled */
	bool unknown; /* the current branch's condition is not a version comparison */
	int taken;    /* 1 a known-true branch was taken, 0 none yet, -1 unknown ones only */
};

/* Where the token scan is, for declarations and member accesses. */
enum tok_state {
	TS_NONE,
	TS_STRUCT, /* after "struct" or "union" */
	TS_TAG,    /* after the tag (and any '*'): the next name is declared of it */
	TS_MEMBER, /* after "->" or '.': the next name is a member of last */
};

struct names_scan {
	struct ksc_src_names *out;
	const struct hash *wanted; /* headers: only these names, defined there */
	unsigned int code; /* LINUX_VERSION_CODE of the kernel */
	struct cond stack[MAX_NEST];
	int depth;     /* groups on the stack; deeper ones only counted */
	int overflow;  /* groups beyond MAX_NEST */
	uint64_t file; /* a hash of the file's place in the scan, for `where` */
	int paren;     /* '(' not closed yet */
	struct {
		const char *p;
		size_t len;
		int paren; /* the depth its '(' opened */
	} calls[16];   /* the calls whose arguments are being read */
	int n_calls;
	bool header;     /* a .h file: its first #ifndef at the top is its include guard */
	bool cond_seen;  /* a conditional directive was met in this file */
	enum tok_state ts;
	const char *last, *tag; /* the last name and the struct tag (into the buffer) */
	size_t last_len, tag_len;
};

static bool active(const struct names_scan *s)
{
	return s->depth == 0 || s->stack[s->depth - 1].active;
}

/* One place (file, offset) as a 64-bit mix (splitmix64's finaliser). */
static uint64_t place_hash(uint64_t file, uint64_t off)
{
	uint64_t x = file * 0x9e3779b97f4a7c15ull + off;

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Key `a` (and, with b, "a\x1fb") in table h, copied into the pool once. */
static int add_key(struct names_scan *s, struct hash *h, const char *a, size_t la,
		   const char *b, size_t lb, uintptr_t add)
{
	char key[512];
	size_t len = la + (b ? 1 + lb : 0);
	bool added;
	void **slot;

	if (len >= sizeof(key))
		return 0; /* no identifier is that long in practice */
	memcpy(key, a, la);
	if (b) {
		key[la] = '\x1f';
		memcpy(key + la + 1, b, lb);
	}
	key[len] = '\0';
	/* values are never NULL (| 1): a missing key is told from a present one */
	if (!hash_find(h, key)) {
		const char *k = pool_strndup(&s->out->strings, key, len);
		return k && hash_add(h, k, (void *)(add | 1), 0) == 0 ? 0 : -ENOMEM;
	}
	slot = hash_slot(h, key, &added);
	if (!slot)
		return -ENOMEM;
	*slot = (void *)(((uintptr_t)*slot + add) | 1);
	return 0;
}

static int add_name(struct names_scan *s, const char *p, size_t len)
{
	char key[256];
	const char *k;

	if (len == 0 || (p[0] >= '0' && p[0] <= '9'))
		return 0;
	if (len < sizeof(key)) {
		memcpy(key, p, len);
		key[len] = '\0';
		if (hash_find(&s->out->names, key))
			return 0;
	}
	k = pool_strndup(&s->out->strings, p, len);
	if (!k)
		return -ENOMEM;
	return hash_add(&s->out->names, k, (void *)k, 1) < 0 ? -ENOMEM : 0;
}

/* Some enclosing branch is taken on a condition not evaluated (#ifdef, CONFIG_...). */
static bool under_unknown(const struct names_scan *s)
{
	for (int i = 0; i < s->depth; i++)
		if (s->stack[i].unknown)
			return true;
	return false;
}

/* Set flag bits of a name (values never NULL: bit 0 is always set). */
static int add_flag(struct names_scan *s, const char *w, size_t len, uintptr_t flag)
{
	char key[256];
	void **slot;
	bool added;

	if (len >= sizeof(key))
		return 0;
	memcpy(key, w, len);
	key[len] = '\0';
	if (!hash_find(&s->out->flags, key)) {
		const char *k = pool_strndup(&s->out->strings, w, len);
		return k && hash_add(&s->out->flags, k, (void *)(flag | 1), 0) == 0 ? 0 : -ENOMEM;
	}
	slot = hash_slot(&s->out->flags, key, &added);
	if (!slot)
		return -ENOMEM;
	*slot = (void *)((uintptr_t)*slot | flag);
	return 0;
}

static bool word_is(const char *p, size_t len, const char *w)
{
	return strlen(w) == len && memcmp(p, w, len) == 0;
}

/* A name in code at d[p..q) of d[..e): counted, its place summed, whether it is called
 * and under a condition not evaluated, declarations and accesses. */
static int code_name(struct names_scan *s, const char *d, size_t p, size_t q, size_t e)
{
	const char *w = d + p;
	size_t len = q - p, n = q;
	int r = add_name(s, w, len);

	if (r < 0 || s->wanted || (w[0] >= '0' && w[0] <= '9'))
		return r;
	r = add_key(s, &s->out->where, w, len, NULL, 0, (uintptr_t)place_hash(s->file, p));
	while (n < e && (d[n] == ' ' || d[n] == '\t' || d[n] == '\n' || d[n] == '\r'))
		n++;
	if (r == 0 && n < e && d[n] == '(') {
		r = add_flag(s, w, len, KSC_SRC_CALLED);
		if (s->n_calls < (int)ARRAY_SIZE(s->calls))
			s->calls[s->n_calls++] = (typeof(s->calls[0])){ w, len, s->paren };
	}
	if (r == 0)
		r = add_flag(s, w, len, under_unknown(s) ? KSC_SRC_CONDITIONAL : KSC_SRC_PLAIN);
	if (r == 0 && s->ts == TS_MEMBER && s->last)
		r = add_key(s, &s->out->access, s->last, s->last_len, w, len, 1);
	if (r == 0 && s->ts == TS_TAG && !word_is(w, len, "const"))
		r = add_key(s, &s->out->typed, s->tag, s->tag_len, w, len, 1);
	if (s->ts == TS_STRUCT) {
		s->tag = w;
		s->tag_len = len;
		s->ts = TS_TAG;
	} else if (s->ts != TS_TAG || !word_is(w, len, "const")) {
		s->ts = word_is(w, len, "struct") || word_is(w, len, "union") ? TS_STRUCT : TS_NONE;
	}
	s->last = w;
	s->last_len = len;
	return r;
}

/* A character of code that is not part of a name: the token state after it. */
static size_t code_punct(struct names_scan *s, const char *d, size_t e, size_t p)
{
	char c = d[p];

	if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\')
		return p + 1;
	if (c == '-' && p + 1 < e && d[p + 1] == '>') {
		s->ts = TS_MEMBER;
		return p + 2;
	}
	if (c == '.') {
		s->ts = TS_MEMBER;
		if (p == 0 || !is_ident_char((unsigned char)d[p - 1]))
			s->last = NULL; /* ".member =" of an initialiser, or "(x).m" */
		return p + 1;
	}
	if (c == '*' && s->ts == TS_TAG)
		return p + 1;
	if (c == '(')
		s->paren++;
	if (c == ')' && s->paren > 0) {
		s->paren--;
		while (s->n_calls && s->calls[s->n_calls - 1].paren >= s->paren)
			s->n_calls--;
	}
	s->ts = TS_NONE;
	s->last = NULL;
	return p + 1;
}

/* The text of a directive without blanks, comments and splices, into buf (NUL-ended). */
static void squeeze(const char *d, size_t p, size_t e, char *buf, size_t size)
{
	size_t o = 0;

	while (p < e && o + 1 < size) {
		size_t q = splice_at(d, e, p);
		if (q != p) {
			p = q;
			continue;
		}
		if (d[p] == '/' && p + 1 < e && d[p + 1] == '*') {
			p = src_block_comment_end(d, e, p);
			continue;
		}
		if (d[p] == '/' && p + 1 < e && d[p + 1] == '/')
			break;
		if (d[p] != ' ' && d[p] != '\t' && d[p] != '\r' && d[p] != '\f' && d[p] != '\v')
			buf[o++] = d[p];
		p++;
	}
	buf[o] = '\0';
}

/* "KERNEL_VERSION(a,b,c)" at *p: its code, *p after it; -1 when it is not one. */
static long kernel_version(const char **p)
{
	unsigned long v[3];
	char *e;

	if (strncmp(*p, "KERNEL_VERSION(", 15) != 0)
		return -1;
	*p += 15;
	for (int i = 0; i < 3; i++) {
		if (**p < '0' || **p > '9')
			return -1;
		v[i] = strtoul(*p, &e, 10);
		*p = e;
		if (**p != (i < 2 ? ',' : ')'))
			return -1;
		(*p)++;
	}
	if (v[0] > 255 || v[1] > 255)
		return -1;
	return (long)(v[0] << 16 | v[1] << 8 | (v[2] > 255 ? 255 : v[2]));
}

/* A comparison operator at *p: its index in ops, *p after it; -1 when none. */
static int comparison(const char **p)
{
	static const char *const ops[] = { "<=", ">=", "==", "!=", "<", ">" };

	for (int i = 0; i < 6; i++) {
		size_t l = strlen(ops[i]);
		if (strncmp(*p, ops[i], l) == 0) {
			*p += l;
			return i;
		}
	}
	return -1;
}

static bool compare(long a, int op, long b)
{
	switch (op) {
	case 0: return a <= b;
	case 1: return a >= b;
	case 2: return a == b;
	case 3: return a != b;
	case 4: return a < b;
	default: return a > b;
	}
}

/* One comparison at *p ("LINUX_VERSION_CODE op KERNEL_VERSION(...)", either order):
 * its value, *p after it; -1 (and *p unchanged) when it is not one. */
static int version_atom(const char **p, unsigned int code)
{
	static const char lvc[] = "LINUX_VERSION_CODE";
	const char *q = *p;
	long a, b;
	int op;

	if (strncmp(q, lvc, sizeof(lvc) - 1) == 0) {
		q += sizeof(lvc) - 1;
		a = code;
		if ((op = comparison(&q)) < 0 || (b = kernel_version(&q)) < 0)
			return -1;
	} else {
		if ((a = kernel_version(&q)) < 0 || (op = comparison(&q)) < 0 ||
		    strncmp(q, lvc, sizeof(lvc) - 1) != 0)
			return -1;
		q += sizeof(lvc) - 1;
		b = code;
	}
	*p = q;
	return compare(a, op, b);
}

static int cond_chain(const char **p, unsigned int code, int depth, bool or);

/* A unary term: '!', a parenthesised expression, a comparison, or anything else up to
 * the next "&&", "||" or unbalanced ')' (unknown: -1). */
static int cond_unary(const char **p, unsigned int code, int depth)
{
	int v, nest = 0;

	if (depth > 32)
		return -1;
	if (**p == '!') {
		(*p)++;
		v = cond_unary(p, code, depth + 1);
		return v < 0 ? -1 : !v;
	}
	if (**p == '(') {
		const char *save = *p;
		(*p)++;
		v = cond_chain(p, code, depth + 1, true);
		if (**p == ')') {
			(*p)++;
			return v;
		}
		*p = save; /* not a group of conditions: read as an unknown term below */
	}
	if ((v = version_atom(p, code)) >= 0)
		return v;
	for (; **p; (*p)++) {
		if (nest == 0 && (strncmp(*p, "&&", 2) == 0 || strncmp(*p, "||", 2) == 0 || **p == ')'))
			break;
		nest += **p == '(' ? 1 : **p == ')' ? -1 : 0;
	}
	return -1;
}

/*
 * Terms joined by || (`or`; its terms joined by &&) or by &&, in three values: a term
 * equal to the operator's absorbing value (1 for ||, 0 for &&) decides, else an unknown
 * one makes the whole unknown.
 */
static int cond_chain(const char **p, unsigned int code, int depth, bool or)
{
	const char *op = or ? "||" : "&&";
	int absorbing = or ? 1 : 0;
	int v = or ? cond_chain(p, code, depth, false) : cond_unary(p, code, depth);

	while (strncmp(*p, op, 2) == 0) {
		*p += 2;
		int w = or ? cond_chain(p, code, depth, false) : cond_unary(p, code, depth);
		v = v == absorbing || w == absorbing ? absorbing : v < 0 || w < 0 ? -1 : !absorbing;
	}
	return v;
}

/*
 * A squeezed condition: 1 true, 0 false, -1 not known. Comparisons of LINUX_VERSION_CODE
 * with KERNEL_VERSION() joined by &&, || and ! with parentheses are evaluated; any other
 * term is unknown (and an unknown && false is false, an unknown || true true).
 */
static int version_condition(const char *c, unsigned int code)
{
	const char *p = c;
	int v = cond_chain(&p, code, 0, true);

	return *p ? -1 : v;
}

/* One branch starts with condition value v (1, 0, -1 unknown). */
static void branch(struct cond *c, int v)
{
	if (c->taken == 1) {
		c->active = false;
		return;
	}
	c->active = c->parent && v != 0;
	c->unknown = v < 0;
	if (v == 1)
		c->taken = 1;
	else if (v < 0)
		c->taken = -1;
}

/* A conditional directive (if, ifdef, ifndef, elif, else, endif); others are ignored. */
static void conditional(struct names_scan *s, const char *name, size_t len, const char *rest)
{
#define IS(w) (len == sizeof(w) - 1 && memcmp(name, w, len) == 0)
	if (IS("if") || IS("ifdef") || IS("ifndef")) {
		/* a header's include guard: compiled once, as if always taken */
		bool guard = IS("ifndef") && s->header && !s->cond_seen && s->depth == 0;
		s->cond_seen = true;
		if (s->depth == MAX_NEST) {
			s->overflow++;
			return;
		}
		struct cond *c = &s->stack[s->depth];
		c->parent = active(s);
		c->taken = 0;
		s->depth++;
		branch(c, guard ? 1 : IS("if") ? version_condition(rest, s->code) : -1);
	} else if (s->overflow) {
		if (IS("endif"))
			s->overflow--;
	} else if (s->depth && (IS("elif") || IS("elifdef") || IS("elifndef"))) {
		branch(&s->stack[s->depth - 1], IS("elif") ? version_condition(rest, s->code) : -1);
	} else if (s->depth && IS("else")) {
		struct cond *c = &s->stack[s->depth - 1];
		branch(c, c->taken == 0 ? 1 : c->taken == 1 ? 0 : -1);
	} else if (s->depth && IS("endif")) {
		s->depth--;
	}
#undef IS
}

/* The identifiers of d[p..e) (code, or a directive's body), comments and literals skipped. */
static int scan_code(struct names_scan *s, const char *d, size_t p, size_t e, bool stop_nl,
		     size_t *end)
{
	while (p < e) {
		char c = d[p];
		if (c == '\n' && stop_nl)
			break;
		if (c == '/' && p + 1 < e && d[p + 1] == '*') {
			p = src_block_comment_end(d, e, p);
		} else if (c == '/' && p + 1 < e && d[p + 1] == '/') {
			p = src_logical_line_end(d, e, p);
		} else if (c == '"' || c == '\'') {
			p = src_literal_end(d, e, p);
			s->ts = TS_NONE;
			s->last = NULL;
		} else if (is_ident_char((unsigned char)c)) {
			size_t q = src_ident_end(d, e, p);
			if (active(s) && code_name(s, d, p, q, e) < 0)
				return -ENOMEM;
			p = q;
		} else if (c == '#' && !stop_nl && src_starts_line(d, p)) {
			break;
		} else {
			p = code_punct(s, d, e, p);
		}
	}
	*end = p;
	return 0;
}

/* A directive at d[p] ('#'): the offset of the newline ending it. */
static int directive(struct names_scan *s, const char *d, size_t n, size_t p, size_t *end)
{
	size_t e = src_logical_line_end(d, n, p), q = p + 1, r;
	char rest[512];

	while (q < e && (d[q] == ' ' || d[q] == '\t'))
		q++;
	r = src_ident_end(d, e, q);
	*end = e;
	/* a conditional inside a call's arguments: the call differs by configuration */
	for (int i = 0; !s->wanted && i < s->n_calls; i++)
		if (add_flag(s, s->calls[i].p, s->calls[i].len, KSC_SRC_CONDITIONAL) < 0)
			return -ENOMEM;
	if (r - q == 7 && memcmp(d + q, "include", 7) == 0)
		return 0;
	if (r - q == 6 && memcmp(d + q, "define", 6) == 0)
		return scan_code(s, d, r, e, true, &r); /* the macro's name and body */
	squeeze(d, r, e, rest, sizeof(rest));
	conditional(s, d + q, r - q, rest);
	return 0;
}

static int scan_buffer(struct names_scan *s, const char *d, size_t n)
{
	size_t p = 0;

	s->depth = s->overflow = 0;
	s->ts = TS_NONE;
	s->last = NULL;
	s->paren = s->n_calls = 0;
	while (p < n) {
		int r;
		if (d[p] == '#' && src_starts_line(d, p))
			r = directive(s, d, n, p, &p);
		else
			r = scan_code(s, d, p, n, false, &p);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The wanted identifier at p (a token), added when it is one. */
static int wanted_at(struct names_scan *s, const char *d, size_t n, size_t p)
{
	size_t e = src_ident_end(d, n, p);

	if (e == p || e - p >= 256)
		return 0;
	char key[256];
	memcpy(key, d + p, e - p);
	key[e - p] = '\0';
	return hash_find(s->wanted, key) ? add_name(s, d + p, e - p) : 0;
}

static bool token_at(const char *d, size_t n, size_t p, size_t len)
{
	return (p == 0 || !is_ident_char((unsigned char)d[p - 1])) &&
	       (p + len >= n || !is_ident_char((unsigned char)d[p + len]));
}

/*
 * Headers: the wanted names defined as a macro ("#define NAME") or as an inline
 * function (an identifier before '(' after the word "inline", up to the '{' or ';').
 */
static int defines_buffer(struct names_scan *s, const char *d, size_t n)
{
	const char *p;
	int r = 0;

	for (p = d; r == 0 && (p = memmem(p, n - (size_t)(p - d), "define", 6)); p += 6) {
		size_t i = (size_t)(p - d), q = i + 6;
		while (i > 0 && (d[i - 1] == ' ' || d[i - 1] == '\t'))
			i--;
		if (i == 0 || d[i - 1] != '#' || !src_starts_line(d, i - 1) || q >= n ||
		    (d[q] != ' ' && d[q] != '\t'))
			continue;
		while (q < n && (d[q] == ' ' || d[q] == '\t'))
			q++;
		r = wanted_at(s, d, n, q);
	}
	for (p = d; r == 0 && (p = memmem(p, n - (size_t)(p - d), "inline", 6)); p += 6) {
		size_t q = (size_t)(p - d), lim = q + 512 < n ? q + 512 : n;
		if (!token_at(d, n, q, 6))
			continue;
		for (q += 6; r == 0 && q < lim && d[q] != '{' && d[q] != ';'; ) {
			if (!is_ident_char((unsigned char)d[q])) {
				q++;
				continue;
			}
			size_t e = src_ident_end(d, n, q), f = e;
			while (f < lim && (d[f] == ' ' || d[f] == '\t' || d[f] == '\n'))
				f++;
			if (f < lim && d[f] == '(')
				r = wanted_at(s, d, n, q);
			q = e;
		}
	}
	return r;
}

/* A file found below a folder is not followed when it is a link (flags); one named is. */
static int scan_file(struct names_scan *s, int dfd, const char *name, unsigned int flags)
{
	struct stat st;
	char *buf;
	size_t got;
	int fd = ksc_open_read(dfd, name, flags, &st), r;

	if (fd < 0)
		return fd;
	r = ksc_read_fd(fd, &st, MAX_FILE, &buf, &got);
	close(fd);
	if (r < 0)
		return r;
	s->file = s->out->n_files + 1; /* the same order for every version of one scan */
	s->header = strlen(name) > 2 && strcmp(name + strlen(name) - 2, ".h") == 0;
	s->cond_seen = false;
	r = s->wanted ? defines_buffer(s, buf, got) : scan_buffer(s, buf, got);
	s->out->n_files++;
	free(buf);
	return r;
}

static bool is_c_source(const char *name)
{
	size_t l = strlen(name);

	return l > 2 && name[l - 2] == '.' && (name[l - 1] == 'c' || name[l - 1] == 'h');
}

/* The .c and .h files below the folder open as dfd (hidden folders skipped). */
static int scan_dir(struct names_scan *s, int dfd, int depth)
{
	DIR *dir = fdopendir(dfd);
	struct dirent *de;
	int r = 0;

	if (!dir) {
		close(dfd);
		return -errno;
	}
	while (r >= 0 && (de = readdir(dir))) {
		struct stat st;
		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		/* headers: the user-space API and device-tree numbers define no kernel calls */
		if (s->wanted && S_ISDIR(st.st_mode) &&
		    (strcmp(de->d_name, "uapi") == 0 || strcmp(de->d_name, "dt-bindings") == 0))
			continue;
		if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH) {
			int sub = openat(dirfd(dir), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (sub >= 0)
				r = scan_dir(s, sub, depth + 1);
		} else if (S_ISREG(st.st_mode) && is_c_source(de->d_name)) {
			r = scan_file(s, dirfd(dir), de->d_name, KSC_OPEN_NOFOLLOW);
			if (r != -ENOMEM)
				r = 0; /* an unreadable file names nothing */
		}
	}
	closedir(dir);
	return r == -ENOMEM ? r : 0;
}

int ksc_src_names_scan(const char *path, const struct ksc_kver *kver,
		       struct ksc_src_names *out)
{
	struct names_scan *s;
	struct stat st;
	int r;

	ksc_src_names_init(out);
	if (stat(path, &st) < 0)
		return -errno;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->out = out;
	s->code = kver->major << 16 | kver->minor << 8 | (kver->patch > 255 ? 255 : kver->patch);
	if (S_ISDIR(st.st_mode)) {
		int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		r = dfd < 0 ? -errno : scan_dir(s, dfd, 0);
	} else {
		r = scan_file(s, AT_FDCWD, path, 0);
	}
	free(s);
	return r;
}

int ksc_src_defines_scan(const char *const *dirs, size_t n_dirs, const struct hash *wanted,
			 struct ksc_src_names *out)
{
	struct names_scan *s;
	int r = 0;

	ksc_src_names_init(out);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->out = out;
	s->wanted = wanted;
	for (size_t i = 0; r == 0 && i < n_dirs; i++) {
		int dfd = open(dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0)
			r = scan_dir(s, dfd, 0);
	}
	free(s);
	return r;
}

bool ksc_src_names_has(const struct ksc_src_names *n, const char *name)
{
	return hash_find(&n->names, name) != NULL;
}

bool ksc_src_names_same_places(const struct ksc_src_names *a, const struct ksc_src_names *b,
			       const char *name)
{
	return hash_find(&a->where, name) == hash_find(&b->where, name);
}

unsigned int ksc_src_names_flags(const struct ksc_src_names *n, const char *name)
{
	return (unsigned int)((uintptr_t)hash_find(&n->flags, name) & ~(uintptr_t)1);
}

bool ksc_src_names_accesses(const struct ksc_src_names *n, const char *tag, const char *member)
{
	size_t tl = strlen(tag);
	char key[512];

	if (tl + 1 >= sizeof(key))
		return false;
	memcpy(key, tag, tl);
	key[tl] = '\x1f';
	for (size_t i = 0; i < n->access.n_buckets; i++) {
		void *v;
		const char *k = hash_slot_key(&n->access, i, &v), *sep;
		size_t vl;
		if (!k || !(sep = strchr(k, '\x1f')) || strcmp(sep + 1, member) != 0)
			continue;
		vl = (size_t)(sep - k);
		if (tl + 1 + vl >= sizeof(key))
			continue;
		memcpy(key + tl + 1, k, vl);
		key[tl + 1 + vl] = '\0';
		if (hash_find(&n->typed, key))
			return true;
	}
	return false;
}

void ksc_src_names_init(struct ksc_src_names *n)
{
	hash_init(&n->names);
	hash_init(&n->where);
	hash_init(&n->flags);
	hash_init(&n->access);
	hash_init(&n->typed);
	pool_init(&n->strings);
	n->n_files = 0;
}

void ksc_src_names_fini(struct ksc_src_names *n)
{
	hash_fini(&n->where);
	hash_fini(&n->flags);
	hash_fini(&n->access);
	hash_fini(&n->typed);
	hash_fini(&n->names);
	pool_fini(&n->strings);
}
