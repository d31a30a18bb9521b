// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The source reader's scanner (source-private.h says how a file is read): at each
 * keyword the lexer finds in code, the macro and its arguments, DEFAULT_SYMBOL_NAMESPACE
 * as #define and as -D in Kbuild/Makefile, and the records and mentions they make.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/source-private.h"
#include "util/array.h"

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

static const char kw_default[] = SRC_KW_DEFAULT;

/* ---------------------------------------------------------------------------------- */
/* Values                                                                             */

static int buf_reserve(struct ksc_src_scanner *s, size_t need)
{
	return array_reserve(s->buf, s->cap_buf, need, 256);
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
		struct token t = src_next_token(L, &p, false);
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
			struct token t = src_next_token(L, &p, false);
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
		struct token t = src_next_token(L, &p, false);
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
	if (array_reserve(v->v, v->cap, v->n + 1, 64) < 0) {
		L->err = -ENOMEM;
		return NULL;
	}
	struct ksc_src_record *r = &v->v[v->n++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->path = L->path;
	src_line_at(L, pos, &r->line, &r->column);
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
	*e = src_ident_end(d, n, k);
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
	struct token t = src_next_token(L, &p, false);
	unsigned depth = 1, na = 0;
	size_t open;

	if (t.t != T_PUNCT || d[t.s] != '(')
		return KSC_SRC_NOT_INVOKED;
	open = t.s;
	memset(&args[0], 0, sizeof(args[0]));
	for (;;) {
		t = src_next_token(L, &p, false);
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

	if (array_reserve(sc->defines, sc->cap_defines, sc->n_defines + 1, 32) < 0)
		return -ENOMEM;
	struct ksc_src_define *df = &sc->defines[sc->n_defines];
	unsigned col;
	df->name = pool_strndup(sc->strings, L->d + s, e - s);
	if (!df->name)
		return -ENOMEM;
	src_line_at(L, s, &df->line, &col);
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
	struct token t = src_next_token(L, &p, true);

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
	t = src_next_token(L, &p, true);
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
	r->end = src_logical_line_end(d, n, name_end);
	if (undef) {
		r->ns = "";
		L->def_ns = NULL;
		return name_end;
	}
	/* The value: every token up to the end of the logical line. */
	size_t vs = SIZE_MAX, ve = name_end;
	p = name_end;
	for (;;) {
		t = src_next_token(L, &p, true);
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
		const unsigned char *tab = src_special[L->asm_][dir != DIR_NONE];

		/* Skip to the next byte that matters, or to the next keyword. */
		p = src_skip_plain(d, p, lim, L->asm_, dir != DIR_NONE, tab);
		if (p < lim) {
			char ch = d[p];
			size_t e;
			switch (ch) {
			case '/':
				if (p + 1 < n && d[p + 1] == '*') {
					e = src_block_comment_end(d, n, p);
				} else if (p + 1 < n && d[p + 1] == '/') {
					e = src_logical_line_end(d, n, p);
				} else {
					p++;
					continue;
				}
				mention_range(L, c, &ci, p, e, KSC_SRC_IN_COMMENT);
				p = e;
				continue;
			case '"':
			case '\'':
				e = src_literal_end(d, n, p);
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
				if (src_starts_line(d, p)) {
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

/*
 * The end of the shell word that starts at p (before end): at an unquoted blank or
 * newline, or a backslash that does not continue the line; quotes hold blanks.
 */
static size_t shell_word_end(const char *d, size_t p, size_t end)
{
	char q = 0;

	while (p < end) {
		char ch = d[p];
		if (q) {
			if (ch == q)
				q = 0;
		} else if (ch == '\'' || ch == '"') {
			q = ch;
		} else if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\\') {
			if (ch != '\\' || p + 1 >= end || d[p + 1] == '\n')
				break;
			p++;
		}
		p++;
	}
	return p;
}

/*
 * The namespace of -DDEFAULT_SYMBOL_NAMESPACE=VALUE, VALUE at [rs, re): unquoted as the
 * shell does, then decoded when the C token is a string literal. 0 or -ENOMEM.
 */
static int make_flag_value(struct lex *L, struct ksc_src_record *r, size_t rs, size_t re)
{
	size_t len, out = 0;

	if (shell_unquote(L->s, L->d, rs, re, &len) < 0)
		return -ENOMEM;
	const char *v = L->s->buf;
	if (len < 2 || v[0] != '"' || v[len - 1] != '"') {
		r->ns = pool_strndup(L->s->strings, v, len);
		r->spelling = len == 0 ? KSC_SRC_SPELL_NONE
			    : ksc_src_is_identifier(v, len) ? KSC_SRC_SPELL_IDENT
							    : KSC_SRC_SPELL_OTHER;
		return r->ns ? 0 : -ENOMEM;
	}
	/* the C token is a string literal: decode it (the value may hold NUL bytes) */
	char *copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, v, len);
	copy[len] = '\0';
	int rc = decode_literal(L->s, copy, len, 0, len, &out);
	free(copy);
	if (rc < 0)
		return -ENOMEM;
	r->ns = pool_strndup(L->s->strings, L->s->buf, strnlen(L->s->buf, out));
	r->spelling = KSC_SRC_SPELL_STRING;
	return r->ns ? 0 : -ENOMEM;
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
			rs = k + 1;
			re = shell_word_end(d, rs, end);
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
		if (make_flag_value(L, r, rs, re) < 0) {
			L->err = -ENOMEM;
			return;
		}
	}
}

static void lex_make(struct lex *L)
{
	size_t p = 0;

	if (!memmem(L->d, L->n, kw_default, sizeof(kw_default) - 1))
		return;
	while (p < L->n && !L->err) {
		size_t e = src_logical_line_end(L->d, L->n, p);
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
	src_lex_init();
	struct cands c = { s->cand, 0, s->cap_cand };
	int r = src_find_candidates(data, size, &c);
	s->cand = c.v; /* kept, grown or not, for the next buffer */
	s->cap_cand = c.cap;
	if (r < 0)
		return -ENOMEM;
	if (c.n == 0)
		return 0;
	lex_c(&L, &c);
	return L.err;
}
