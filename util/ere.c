// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A bounded ERE search (ere.h): a recursive-descent compiler to a small program with
 * relative jumps (so a compiled part is copied as it is for a counted repetition), and a
 * Thompson NFA simulation with one mark per instruction and step.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/ere.h"

enum op { CHAR, ANY, SET, BOL, EOL, SPLIT, JMP, MATCH };

struct ins {
	uint8_t op, c;
	uint16_t set;   /* SET: index into sets */
	int16_t x, y;   /* SPLIT: both targets, JMP: x; relative to this instruction */
};

struct ere {
	const char *p;
	struct ins *code;
	size_t n;
	uint8_t (*sets)[32];
	size_t n_sets;
	unsigned int depth;
	int err;
};

static bool emit(struct ere *e, struct ins i)
{
	if (e->err)
		return false;
	if (e->n >= ERE_MAX_PROGRAM) {
		e->err = -E2BIG;
		return false;
	}
	e->code[e->n++] = i;
	return true;
}

static void set_add(uint8_t *set, unsigned int c)
{
	set[c >> 3] |= (uint8_t)(1u << (c & 7));
}

static int new_set(struct ere *e)
{
	if (e->n_sets >= ERE_MAX_PROGRAM) {
		e->err = -E2BIG;
		return -1;
	}
	memset(e->sets[e->n_sets], 0, 32);
	return (int)e->n_sets++;
}

/* [:name:] in the C locale: its bytes added, or false for an unknown name. */
static bool add_class(uint8_t *set, const char *name, size_t len)
{
	static const struct {
		const char *name;
		int (*fn)(int);
	} classes[] = {
		{ "alpha", isalpha }, { "digit", isdigit }, { "alnum", isalnum },
		{ "upper", isupper }, { "lower", islower }, { "space", isspace },
		{ "blank", isblank }, { "punct", ispunct }, { "print", isprint },
		{ "graph", isgraph }, { "cntrl", iscntrl }, { "xdigit", isxdigit },
	};
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		if (strlen(classes[i].name) != len || memcmp(classes[i].name, name, len) != 0)
			continue;
		for (unsigned int c = 1; c < 128; c++)
			if (classes[i].fn((int)c))
				set_add(set, c);
		return true;
	}
	return false;
}

/* One element of a bracket expression at e->p: its byte (or -1 after a class). */
static int bracket_elem(struct ere *e, uint8_t *set)
{
	const char *p = e->p;

	if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
		char k = p[1];
		const char *end = strchr(p + 2, k);
		while (end && end[1] != ']')
			end = strchr(end + 1, k);
		if (!end) {
			e->err = -EINVAL;
			return -1;
		}
		e->p = end + 2;
		if (k == ':') {
			if (!add_class(set, p + 2, (size_t)(end - p - 2)))
				e->err = -EINVAL;
			return -1;
		}
		if (end - p - 2 != 1) { /* one byte: collating elements of the C locale */
			e->err = -EINVAL;
			return -1;
		}
		return (unsigned char)p[2];
	}
	e->p++;
	return (unsigned char)p[0];
}

/* A bracket expression after its '['. */
static void bracket(struct ere *e)
{
	int s = new_set(e);
	bool neg = false, first = true;

	if (s < 0)
		return;
	uint8_t *set = e->sets[s];
	if (*e->p == '^') {
		neg = true;
		e->p++;
	}
	while (!e->err && (first || *e->p != ']')) {
		if (!*e->p) {
			e->err = -EINVAL;
			return;
		}
		first = false;
		int lo = bracket_elem(e, set);
		if (lo < 0 || e->p[0] != '-' || e->p[1] == ']' || !e->p[1]) {
			if (lo > 0)
				set_add(set, (unsigned int)lo);
			continue;
		}
		e->p++;
		int hi = bracket_elem(e, set);
		if (hi < lo) {
			e->err = -EINVAL;
			return;
		}
		for (int c = lo; c <= hi; c++)
			if (c)
				set_add(set, (unsigned int)c);
	}
	e->p++;
	if (neg)
		for (int i = 0; i < 32; i++)
			set[i] = (uint8_t)~set[i];
	set[0] &= (uint8_t)~1u; /* never the text's NUL */
	emit(e, (struct ins){ .op = SET, .set = (uint16_t)s });
}

/* glibc's \w \W \s \S. */
static void escape_class(struct ere *e, char k)
{
	int s = new_set(e);

	if (s < 0)
		return;
	uint8_t *set = e->sets[s];
	for (unsigned int c = 1; c < 256; c++) {
		bool in = k == 'w' || k == 'W' ? isalnum((int)c) || c == '_' : isspace((int)c);
		if (c >= 128)
			in = false;
		if (in != (k == 'W' || k == 'S'))
			set_add(set, c);
	}
	emit(e, (struct ins){ .op = SET, .set = (uint16_t)s });
}

static void alternation(struct ere *e);

/* One atom; false when there is none here (end, '|' or ')'). */
static bool atom(struct ere *e)
{
	char c = *e->p;

	switch (c) {
	case '\0':
	case '|':
		return false;
	case ')':
		if (e->depth)
			return false;
		break; /* unmatched: an ordinary character */
	case '*':
	case '+':
	case '?':
	case '{':
		e->err = -EINVAL; /* a repetition of nothing: glibc's REG_BADRPT */
		return false;
	case '(':
		if (++e->depth > ERE_MAX_DEPTH) {
			e->err = -ELOOP;
			return false;
		}
		e->p++;
		alternation(e);
		if (e->err)
			return false;
		if (*e->p != ')') {
			e->err = -EINVAL;
			return false;
		}
		e->p++;
		e->depth--;
		return true;
	case '[':
		e->p++;
		bracket(e);
		return true;
	case '.':
		e->p++;
		return emit(e, (struct ins){ .op = ANY });
	case '^':
		e->p++;
		return emit(e, (struct ins){ .op = BOL });
	case '$':
		e->p++;
		return emit(e, (struct ins){ .op = EOL });
	case '\\':
		c = e->p[1];
		if (!c || (c >= '1' && c <= '9') || strchr("bB<>`'", c)) {
			e->err = -EINVAL; /* trailing, back-reference, word anchor */
			return false;
		}
		e->p += 2;
		if (strchr("wWsS", c)) {
			escape_class(e, c);
			return true;
		}
		return emit(e, (struct ins){ .op = CHAR, .c = (uint8_t)c });
	}
	e->p++;
	return emit(e, (struct ins){ .op = CHAR, .c = (uint8_t)c });
}

/* "{m}", "{m,}", "{,n}", "{m,n}" after its '{': m and n (-1: no bound). */
static bool interval(struct ere *e, int *m, int *n)
{
	const char *p = e->p;
	int a = 0, b = -1;
	bool da = false, comma = false;

	for (; *p >= '0' && *p <= '9'; p++, da = true)
		if ((a = a * 10 + (*p - '0')) > 32767) /* glibc's RE_DUP_MAX */
			return false;
	if (*p == ',') {
		comma = true;
		p++;
		if (*p >= '0' && *p <= '9')
			b = 0;
		for (; *p >= '0' && *p <= '9'; p++)
			if ((b = b * 10 + (*p - '0')) > 32767)
				return false;
	} else {
		b = a;
	}
	if (*p != '}' || (!da && (!comma || b < 0)) || (b >= 0 && b < a))
		return false;
	e->p = p + 1;
	*m = a;
	*n = b;
	return true;
}

/* Copy code[from, from + len) to the end (relative jumps stay right). */
static void copy(struct ere *e, size_t from, size_t len)
{
	for (size_t i = 0; i < len && !e->err; i++)
		emit(e, e->code[from + i]);
}

/* x? over code[at, end), in place: SPLIT first. */
static void optional(struct ere *e, size_t at)
{
	size_t len = e->n - at;

	if (!emit(e, (struct ins){ 0 }))
		return;
	memmove(e->code + at + 1, e->code + at, len * sizeof(*e->code));
	e->code[at] = (struct ins){ .op = SPLIT, .x = 1, .y = (int16_t)(len + 1) };
}

/* x* over code[at, end): SPLIT, x, JMP back to the SPLIT. */
static void star(struct ere *e, size_t at)
{
	optional(e, at);
	size_t len = e->n - at;
	if (emit(e, (struct ins){ .op = JMP, .x = (int16_t)-(int)len }))
		e->code[at].y = (int16_t)(len + 1);
}

/* x{m,n} over code[at, end): m copies, then n - m optional ones, or x* for no bound. */
static void counted(struct ere *e, size_t at, int m, int n)
{
	size_t len = e->n - at;

	if (n == 0) {
		e->n = at;
		return;
	}
	for (int i = 1; i < m; i++)
		copy(e, at, len);
	if (n < 0 && m == 0) {
		star(e, at);
	} else if (n < 0) {
		size_t s = e->n;
		copy(e, at, len);
		star(e, s);
	} else {
		for (int i = m ? m : 1; i < n && !e->err; i++) {
			size_t s = e->n;
			copy(e, at, len);
			optional(e, s);
		}
		if (m == 0)
			optional(e, at);
	}
}

/* The repetition operators after the atom compiled at code[at, end). */
static void repetitions(struct ere *e, size_t at)
{
	for (;;) {
		char c = *e->p;
		size_t len = e->n - at;
		int m, n;
		if (c != '*' && c != '?' && c != '+' && c != '{')
			return;
		if (len == 1 && (e->code[at].op == BOL || e->code[at].op == EOL)) {
			e->err = -EINVAL; /* glibc: "^*" is REG_BADRPT */
			return;
		}
		e->p++;
		if (c == '*') {
			star(e, at);
		} else if (c == '?') {
			optional(e, at);
		} else if (c == '+') {
			emit(e, (struct ins){ .op = SPLIT, .x = (int16_t)-(int)len, .y = 1 });
		} else if (interval(e, &m, &n)) {
			counted(e, at, m, n);
		} else {
			e->err = -EINVAL;
		}
		if (e->err)
			return;
	}
}

/* Branches separated by '|': SPLIT to this one or the rest; this one ends past them. */
static void alternation(struct ere *e)
{
	size_t start = e->n, at;

	while (at = e->n, !e->err && atom(e))
		repetitions(e, at);
	if (e->err || *e->p != '|')
		return;
	e->p++;
	size_t len = e->n - start;
	if (!emit(e, (struct ins){ 0 }) || !emit(e, (struct ins){ 0 }))
		return;
	memmove(e->code + start + 1, e->code + start, len * sizeof(*e->code));
	e->code[start] = (struct ins){ .op = SPLIT, .x = 1, .y = (int16_t)(len + 2) };
	size_t j = start + 1 + len;
	alternation(e);
	e->code[j] = (struct ins){ .op = JMP, .x = (int16_t)(e->n - j) };
}

/* Add instruction pc and what its jumps reach to the list (mark: this step's). */
static void add(const struct ere *e, uint16_t *list, size_t *n, uint32_t *mark, uint32_t gen,
		size_t pc, size_t pos, size_t len, uint16_t *stack)
{
	size_t sp = 0;

	stack[sp++] = (uint16_t)pc;
	while (sp) {
		size_t i = stack[--sp];
		if (mark[i] == gen)
			continue;
		mark[i] = gen;
		const struct ins *in = &e->code[i];
		switch (in->op) {
		case JMP:
			stack[sp++] = (uint16_t)(i + (size_t)(ptrdiff_t)in->x);
			break;
		case SPLIT:
			stack[sp++] = (uint16_t)(i + (size_t)(ptrdiff_t)in->y);
			stack[sp++] = (uint16_t)(i + (size_t)(ptrdiff_t)in->x);
			break;
		case BOL:
			if (pos == 0)
				stack[sp++] = (uint16_t)(i + 1);
			break;
		case EOL:
			if (pos == len)
				stack[sp++] = (uint16_t)(i + 1);
			break;
		default:
			list[(*n)++] = (uint16_t)i;
		}
	}
}

static bool step_ok(const struct ere *e, const struct ins *in, unsigned char c)
{
	switch (in->op) {
	case CHAR:
		return in->c == c;
	case ANY:
		return true;
	case SET:
		return e->sets[in->set][c >> 3] & (1u << (c & 7));
	}
	return false;
}

static int run(const struct ere *e, const char *text)
{
	size_t len = strlen(text), np = e->n;
	uint16_t *cur = malloc(np * sizeof(*cur)), *nxt = malloc(np * sizeof(*nxt));
	uint16_t *stack = malloc(2 * np * sizeof(*stack) + 2);
	uint32_t *mark = calloc(np, sizeof(*mark));
	size_t nc = 0, nn;
	int r = -ENOMEM;

	if (!cur || !nxt || !stack || !mark)
		goto out;
	r = 0;
	for (size_t pos = 0; pos <= len && !r; pos++) {
		uint32_t gen = (uint32_t)pos + 1;
		/* a search: a thread starts at every position */
		add(e, cur, &nc, mark, gen, 0, pos, len, stack);
		nn = 0;
		for (size_t t = 0; t < nc && !r; t++) {
			const struct ins *in = &e->code[cur[t]];
			if (in->op == MATCH)
				r = 1;
			else if (pos < len && step_ok(e, in, (unsigned char)text[pos]))
				add(e, nxt, &nn, mark, gen + 1, cur[t] + 1u, pos + 1, len,
				    stack);
		}
		uint16_t *sw = cur;
		cur = nxt;
		nxt = sw;
		nc = nn;
	}
out:
	free(cur);
	free(nxt);
	free(stack);
	free(mark);
	return r;
}

int ere_search(const char *pattern, const char *text)
{
	struct ere e = { .p = pattern };
	int r;

	e.code = malloc(ERE_MAX_PROGRAM * sizeof(*e.code));
	e.sets = malloc((size_t)ERE_MAX_PROGRAM * sizeof(*e.sets));
	if (!e.code || !e.sets) {
		r = -ENOMEM;
		goto out;
	}
	alternation(&e);
	if (!e.err && *e.p)
		e.err = -EINVAL;
	if (!e.err)
		emit(&e, (struct ins){ .op = MATCH });
	r = e.err ? e.err : run(&e, text);
out:
	free(e.code);
	free(e.sets);
	return r;
}
