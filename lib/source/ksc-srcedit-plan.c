// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The planners of source edits (srcedit-private.h): migrate a module's sources to a
 * kernel version's namespace spelling, and add the MODULE_IMPORT_NS lines a module
 * needs, as make nsdeps does. Each plans edits through ksc_srcedit_replace() and
 * explains itself in notes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/srcedit-private.h"
#include "util/array.h"

/* A note for the user: what was planned or left, at a line (0: the file). */
static int add_note(struct ksc_srcedit *e, unsigned int line, const char *fmt, ...)
	_printf_format_(3, 4);
static int add_note(struct ksc_srcedit *e, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	if (array_reserve(e->notes, e->cap_notes, e->n_notes + 1, 4) < 0) {
		free(s);
		return -ENOMEM;
	}
	const char *t = pool_strdup(&e->strings, s);
	free(s);
	if (!t)
		return -ENOMEM;
	e->notes[e->n_notes++] = (struct ksc_srcedit_note){ line, t };
	return 0;
}

struct scanned {
	struct pool strings;
	struct ksc_src_vec recs;
	struct ksc_src_scanner sc;
};

static int scan_edit(const struct ksc_srcedit *e, struct scanned *s)
{
	enum ksc_src_lang lang = ksc_src_lang_of(e->path);

	memset(s, 0, sizeof(*s));
	pool_init(&s->strings);
	ksc_src_scanner_init(&s->sc, &s->strings, &s->recs, KSC_SRC_SCAN_DEFINES, NULL);
	return ksc_src_scan_buffer(&s->sc, e->path, e->data, e->size,
				   lang == KSC_LANG_NONE ? KSC_LANG_C : lang, NULL);
}

static void scanned_fini(struct scanned *s)
{
	ksc_src_scanner_fini(&s->sc);
	free(s->recs.v);
	pool_fini(&s->strings);
}

static const struct ksc_src_define *find_define(const struct scanned *s, const char *name)
{
	for (size_t i = 0; i < s->sc.n_defines; i++)
		if (strcmp(s->sc.defines[i].name, name) == 0)
			return &s->sc.defines[i];
	return NULL;
}

/* C string literal for `v` (only printable ASCII kept as is). Caller frees. */
static char *c_string(const char *v)
{
	size_t n = strlen(v);
	char *out = malloc(4 * n + 3), *o = out;

	if (!out)
		return NULL;
	*o++ = '"';
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p == '"' || *p == '\\') {
			*o++ = '\\';
			*o++ = (char)*p;
		} else if (*p < 0x20 || *p >= 0x7f) {
			o += sprintf(o, "\\%03o", *p);
		} else {
			*o++ = (char)*p;
		}
	}
	*o++ = '"';
	*o = '\0';
	return out;
}

/* Rewrite the namespace spelling of record r (an argument or #define value) for t. */
static int respell(struct ksc_srcedit *e, const struct scanned *s,
		   const struct ksc_src_record *r, const struct ksc_features *t,
		   const char *what)
{
	bool make = ksc_src_lang_of(e->path) == KSC_LANG_MAKE;
	int r2;

	if (!r->ns_end || r->spelling == KSC_SRC_SPELL_NONE)
		return 0;
	/* Only plain values are rewritten: no NUL bytes, and a Makefile flag on one line. */
	const char *raw = e->data + r->ns_offset;
	size_t rawlen = r->ns_end - r->ns_offset;
	if (memchr(raw, '\0', rawlen) || (make && memchr(raw, '\n', rawlen)))
		return add_note(e, r->line, "%s: the namespace is written in an unusual way (NUL bytes, or over several lines): check it for %s by hand",
				what, t->name);
	if (t->has[KSC_FEAT_STRING_NS] && r->spelling == KSC_SRC_SPELL_IDENT) {
		const struct ksc_src_define *df = make ? NULL : find_define(s, r->ns);
		if (df)
			return add_note(e, r->line, "%s: the namespace %s is a macro (#define at line %u): change its definition to a string literal by hand",
					what, r->ns, df->line);
		char *lit = c_string(r->ns), *text = NULL;
		if (!lit)
			return -ENOMEM;
		if (make) {
			/* -DDEFAULT_SYMBOL_NAMESPACE='"NS"', as the kernel's Makefiles spell it */
			if (asprintf(&text, "'%s'", lit) < 0)
				text = NULL;
			free(lit);
		} else {
			text = lit;
		}
		if (!text)
			return -ENOMEM;
		r2 = ksc_srcedit_replace(e, r->ns_offset, r->ns_end - r->ns_offset, text);
		free(text);
		return r2 < 0 ? r2 : 1;
	}
	if (!t->has[KSC_FEAT_STRING_NS] && r->spelling == KSC_SRC_SPELL_STRING) {
		if (!ksc_src_is_identifier(r->ns, strlen(r->ns)))
			return add_note(e, r->line, "%s: the namespace \"%s\" is no C identifier, which kernels before 6.13 need here",
					what, r->ns);
		r2 = ksc_srcedit_replace(e, r->ns_offset, r->ns_end - r->ns_offset,
					 r->ns);
		return r2 < 0 ? r2 : 1;
	}
	if (r->spelling == KSC_SRC_SPELL_OTHER)
		return add_note(e, r->line, "%s: the namespace is written '%s', neither an identifier nor a string literal: check it for %s by hand",
				what, r->ns, t->name);
	return 0;
}

KSC_EXPORT int ksc_srcedit_plan_migrate(struct ksc_srcedit *e, const char *kver)
{
	struct ksc_features t;
	struct scanned s;
	size_t before;
	int r;

	if (!e || !kver || ksc_features_init(&t, kver) < 0)
		return -EINVAL;
	before = e->n_edits;
	r = scan_edit(e, &s);
	for (size_t i = 0; r >= 0 && i < s.recs.n; i++) {
		const struct ksc_src_record *x = &s.recs.v[i];
		bool fm = x->kind == KSC_SRC_EXPORT && (streq(x->macro, "EXPORT_SYMBOL_FOR_MODULES") ||
							streq(x->macro, "EXPORT_SYMBOL_GPL_FOR_MODULES"));
		bool kvm = x->kind == KSC_SRC_EXPORT && strstartswith(x->macro, "EXPORT_SYMBOL_FOR_KVM");
		bool nsmacro = x->kind == KSC_SRC_EXPORT && strstartswith(x->macro, "EXPORT_SYMBOL_NS");
		int k = 0;

		if (fm) {
			if (!t.fm_macro) {
				k = add_note(e, x->line, "%s(%s): kernel %s has no module-restricted exports (6.16+; the 6.6.y and 6.12.y stable kernels have EXPORT_SYMBOL_GPL_FOR_MODULES)",
					     x->macro, x->symbol, t.name);
			} else if (!streq(x->macro, t.fm_macro)) {
				k = ksc_srcedit_replace(e, x->offset, strlen(x->macro),
							t.fm_macro);
			}
			if (k >= 0 && t.fm_macro && t.fm_backport)
				k = add_note(e, x->line, "%s(%s): on %s.y the macro exists (stable backport) but the loader knows no module: namespaces: %s is an ordinary namespace there (R7)",
					     t.fm_macro, x->symbol, t.name, x->ns);
		} else if (kvm && !t.has[KSC_FEAT_FOR_KVM]) {
			k = add_note(e, x->line, "%s(%s): not in kernel %s (EXPORT_SYMBOL_FOR_KVM came after 6.18)",
				     x->macro, x->symbol, t.name);
		} else if (nsmacro) {
			if (!t.has[KSC_FEAT_NAMESPACES])
				k = add_note(e, x->line, "%s(%s): kernel %s has no symbol namespaces (5.4+)",
					     x->macro, x->symbol, t.name);
			else
				k = respell(e, &s, x, &t, x->macro);
		} else if (x->kind == KSC_SRC_IMPORT_NS) {
			if (!t.has[KSC_FEAT_NAMESPACES])
				k = add_note(e, x->line, "MODULE_IMPORT_NS: kernel %s has no symbol namespaces (5.4+)",
					     t.name);
			else if (t.has[KSC_FEAT_MODNS] && ksc_namespace_is_module_restricted(x->ns))
				k = add_note(e, x->line, "MODULE_IMPORT_NS(%s): from 6.16 the loader refuses a module that imports a module: namespace (-EPERM, R11): remove it",
					     x->ns);
			else
				k = respell(e, &s, x, &t, "MODULE_IMPORT_NS");
		} else if (x->kind == KSC_SRC_DEFAULT_NS && x->ns_end) {
			if (x->after_include && x->macro[0] == '#')
				k = add_note(e, x->line, "#define DEFAULT_SYMBOL_NAMESPACE after an #include: linux/export.h has most likely been read already, so EXPORT_SYMBOL*() here get no namespace; define it before the first #include (or with ccflags-y)");
			if (k >= 0)
				k = respell(e, &s, x, &t, "DEFAULT_SYMBOL_NAMESPACE");
		}
		if (k < 0)
			r = k;
	}
	scanned_fini(&s);
	if (r < 0)
		return r;
	return (int)(e->n_edits - before);
}

/* The text of line `i` (0-based) of the content, without its newline. */
static void line_span(const char *d, size_t n, size_t off, size_t *s, size_t *e)
{
	size_t a = off, b = off;

	while (a > 0 && d[a - 1] != '\n')
		a--;
	while (b < n && d[b] != '\n')
		b++;
	*s = a;
	*e = b;
}

/*
 * Insert the import line `line` at `pos` (the start of a line, or the end of a file that
 * lacks its last newline) if that is a place in code: not inside a comment, a string,
 * or a directive, and not after a backslash continuation. Else a note. 1 added, 0 not.
 */
static int insert_import(struct ksc_srcedit *e, const struct scanned *s, size_t pos,
			 size_t indent_from, size_t indent_len, const char *line,
			 unsigned int note_line)
{
	enum ksc_src_lang lang = ksc_src_lang_of(e->path);
	bool at_eof = pos == e->size && e->size && e->data[e->size - 1] != '\n';
	enum ksc_src_state st;
	char *text;
	int r;

	if (lang == KSC_LANG_NONE)
		lang = KSC_LANG_C;
	st = ksc_src_state_at(e->data, e->size, lang, pos);
	bool ok = at_eof ? (st == KSC_SRC_ST_CODE || st == KSC_SRC_ST_LINE_COMMENT ||
			    st == KSC_SRC_ST_DIRECTIVE) && e->data[e->size - 1] != '\\'
			 : st == KSC_SRC_ST_CODE &&
			   (pos == 0 || (e->data[pos - 1] == '\n' &&
					 ksc_src_newline_ends_line(e->data, pos - 1)));
	/* nor inside the arguments of a macro call that spreads over lines */
	for (size_t i = 0; ok && i < s->recs.n; i++)
		if (s->recs.v[i].offset < pos && pos < s->recs.v[i].end)
			ok = false;
	if (!ok)
		return add_note(e, note_line, "no safe place for %s: the line it would go on is inside a comment, a string, a preprocessor line or a macro call; add it by hand",
				line);
	if (asprintf(&text, "%s%.*s%s%s", at_eof ? "\n" : "", (int)indent_len,
		     e->data + indent_from, line, at_eof ? "" : "\n") < 0)
		return -ENOMEM;
	r = ksc_srcedit_replace(e, pos, 0, text);
	free(text);
	return r < 0 ? r : 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The import lines to add, sorted, in want[] (*nwant of them, malloc'ed): the namespaces
 * of ns[] not imported yet, in the kernel's syntax; those that cannot be written become
 * notes. 0 or -errno.
 */
static int wanted_imports(struct ksc_srcedit *e, const struct scanned *s,
			  const struct ksc_features *t, const struct ksc_src_record *license,
			  const char *const *ns, size_t n, char **want, size_t *nwant)
{
	int r;

	for (size_t i = 0; i < n; i++) {
		bool have = false;
		for (size_t j = 0; j < s->recs.n && !have; j++)
			have = s->recs.v[j].kind == KSC_SRC_IMPORT_NS &&
			       streq(s->recs.v[j].ns, ns[i]);
		if (have)
			continue;
		if (!ns[i][0])
			continue;
		if (ksc_namespace_is_module_restricted(ns[i])) {
			r = add_note(e, license->line,
				     "not adding MODULE_IMPORT_NS(\"%s\"): a module: namespace is granted by the module's name, never by an import; from 6.16 the loader refuses any module that imports one (-EPERM, R11)",
				     ns[i]);
			if (r < 0)
				return r;
			continue;
		}
		char *line = NULL;
		if (t->has[KSC_FEAT_STRING_NS]) {
			char *lit = c_string(ns[i]);
			if (!lit || asprintf(&line, "MODULE_IMPORT_NS(%s);", lit) < 0)
				line = NULL;
			free(lit);
		} else if (ksc_src_is_identifier(ns[i], strlen(ns[i]))) {
			if (asprintf(&line, "MODULE_IMPORT_NS(%s);", ns[i]) < 0)
				line = NULL;
		} else {
			r = add_note(e, license->line,
				     "cannot import \"%s\" on %s: before 6.13 MODULE_IMPORT_NS takes a C identifier",
				     ns[i], t->name);
			if (r < 0)
				return r;
			continue;
		}
		if (!line)
			return -ENOMEM;
		bool dup = false;
		for (size_t j = 0; j < *nwant; j++)
			dup = dup || streq(want[j], line);
		if (dup) {
			free(line);
			continue;
		}
		want[(*nwant)++] = line;
	}
	qsort(want, *nwant, sizeof(*want), cmp_str);
	return 0;
}

/* How many blanks (spaces, tabs) start the line at ls, looking no further than end. */
static size_t indent_of(const char *data, size_t ls, size_t end)
{
	size_t n = 0;

	while (ls + n < end && (data[ls + n] == ' ' || data[ls + n] == '\t'))
		n++;
	return n;
}

/*
 * want[0..nwant) at `at`, one line each, indented as the line at ls (indent_len blanks).
 * The number of lines added, or -errno.
 */
static int insert_imports_at(struct ksc_srcedit *e, const struct scanned *s, size_t at,
			     size_t ls, size_t indent_len, char *const *want, size_t nwant,
			     unsigned int line)
{
	int added = 0;

	for (size_t w = 0; w < nwant; w++) {
		int r = insert_import(e, s, at, ls, indent_len, want[w], line);
		if (r < 0)
			return r;
		added += r;
	}
	return added;
}

/*
 * Into the block of import lines that starts at the first one, each before the first
 * existing line that sorts after it (scripts/nsdeps sorts them with LC_ALL=C sort -u), so
 * a sorted block stays sorted. The number of lines added, or -errno.
 */
static int insert_into_block(struct ksc_srcedit *e, const struct scanned *s,
			     const struct ksc_src_record *first_import, char *const *want,
			     size_t nwant)
{
	size_t ls, le;
	int r, added = 0;

	line_span(e->data, e->size, first_import->offset, &ls, &le);
	size_t indent_len = indent_of(e->data, ls, le);
	/* block lines: consecutive lines that hold an import record */
	size_t bs = ls, be = le, w = 0;
	for (;;) {
		/* insert wanted lines that sort before the line [bs, be) */
		while (w < nwant) {
			size_t tl = strlen(want[w]), cl = be - bs - indent_len;
			const char *cur = e->data + bs + indent_len;
			int c = memcmp(want[w], cur, tl < cl ? tl : cl);
			if (c > 0 || (c == 0 && tl >= cl))
				break;
			r = insert_import(e, s, bs, ls, indent_len, want[w], first_import->line);
			if (r < 0)
				return r;
			added += r;
			w++;
		}
		if (w == nwant || be >= e->size)
			break;
		/* the next line: still an import line? */
		size_t ns_ = be + 1, ne;
		line_span(e->data, e->size, ns_, &ns_, &ne);
		bool is_import = false;
		for (size_t j = 0; j < s->recs.n && !is_import; j++)
			is_import = s->recs.v[j].kind == KSC_SRC_IMPORT_NS &&
				    s->recs.v[j].offset >= ns_ &&
				    s->recs.v[j].offset < ne && ne > ns_;
		if (!is_import)
			break;
		bs = ns_;
		be = ne;
	}
	/* the rest after the block */
	r = insert_imports_at(e, s, be < e->size ? be + 1 : be, ls, indent_len, want + w,
			      nwant - w, first_import->line);
	return r < 0 ? r : added + r;
}

/* After the line that ends the MODULE_LICENSE(...); statement. Lines added, or -errno. */
static int insert_after_license(struct ksc_srcedit *e, const struct scanned *s,
				const struct ksc_src_record *license, char *const *want,
				size_t nwant)
{
	size_t p = license->end, ls, le;

	while (p < e->size && (e->data[p] == ' ' || e->data[p] == '\t'))
		p++;
	if (p < e->size && e->data[p] == ';')
		p++;
	line_span(e->data, e->size, license->offset, &ls, &(size_t){ 0 });
	line_span(e->data, e->size, p > 0 ? p - 1 : 0, &(size_t){ 0 }, &le);
	return insert_imports_at(e, s, le < e->size ? le + 1 : le, ls,
				 indent_of(e->data, ls, e->size), want, nwant, license->line);
}

KSC_EXPORT int ksc_srcedit_plan_imports(struct ksc_srcedit *e, const char *kver,
					const char *const *ns, size_t n)
{
	struct ksc_features t;
	struct scanned s;
	char **want = NULL;
	size_t nwant = 0;
	int r;

	if (!e || !kver || (!ns && n) || ksc_features_init(&t, kver) < 0)
		return -EINVAL;
	r = scan_edit(e, &s);
	if (r < 0)
		goto out;
	const struct ksc_src_record *license = NULL, *first_import = NULL;
	for (size_t i = 0; i < s.recs.n; i++) {
		const struct ksc_src_record *x = &s.recs.v[i];
		if (x->kind == KSC_SRC_LICENSE && !license)
			license = x;
		if (x->kind == KSC_SRC_IMPORT_NS && !first_import)
			first_import = x;
	}
	if (!license) {
		r = -ENOENT;
		goto out;
	}
	if (!t.has[KSC_FEAT_NAMESPACES]) {
		r = n ? add_note(e, license->line, "kernel %s has no symbol namespaces (5.4+): nothing to import",
				 t.name) : 0;
		goto out;
	}
	want = calloc(n ? n : 1, sizeof(*want));
	if (!want) {
		r = -ENOMEM;
		goto out;
	}
	r = wanted_imports(e, &s, &t, license, ns, n, want, &nwant);
	if (r < 0 || !nwant)
		goto out;
	r = first_import ? insert_into_block(e, &s, first_import, want, nwant)
			 : insert_after_license(e, &s, license, want, nwant);
out:
	for (size_t i = 0; i < nwant; i++)
		free(want[i]);
	free(want);
	scanned_fini(&s);
	return r;
}
