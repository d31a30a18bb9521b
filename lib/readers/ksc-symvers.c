// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Module.symvers: the export list modpost writes with -o and reads back with -i (external
 * module builds, KBUILD_EXTRA_SYMBOLS), and depmod reads with -E for the kernel's CRCs.
 *
 * Three line layouts have existed (modpost's write_dump()), all TAB separated:
 *   <= 5.3    crc  symbol  module  type
 *   5.4, 5.5  crc  symbol  namespace  module  type
 *   5.6+      crc  symbol  module  type  namespace        (namespace may be empty)
 * The reader takes each line by the column that holds the EXPORT_* type, so files that
 * mix layouts (concatenated KBUILD_EXTRA_SYMBOLS) still read. Unlike modpost, which dies
 * on the first bad line, every bad line is reported, counted and skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/array.h"
#include "util/hash.h"
#include "util/macro.h"
#include "util/pool.h"
#include "ksymcheck.h"
#include "readers/readers.h"

struct ksc_symvers {
	int refcount;
	struct ksc_ctx *ctx;
	struct pool strings;
	struct ksc_symvers_entry *entries;
	size_t n_entries, n_alloc;
	struct hash index;    /* symbol -> entry index + 1; the first entry wins */
	struct hash interned; /* module and namespace strings, shared by all entries */
	const char *last_module, *last_ns; /* the previous line's, most often repeated */
	unsigned int n_errors;
	enum ksc_symvers_format format;
	bool format_known;
};

/*
 * The export types modpost has written. Up to 5.11 (approx.) export_str() in
 * scripts/mod/modpost.c knew all five; later kernels only write the first two. The static
 * strings are stored in entries directly: they are the type "as written".
 */
static const struct {
	const char *name;
	size_t len;
	bool gpl_only;
} export_types[] = {
	{ "EXPORT_SYMBOL", sizeof("EXPORT_SYMBOL") - 1, false },
	{ "EXPORT_SYMBOL_GPL", sizeof("EXPORT_SYMBOL_GPL") - 1, true },
	{ "EXPORT_SYMBOL_GPL_FUTURE", sizeof("EXPORT_SYMBOL_GPL_FUTURE") - 1, true },
	{ "EXPORT_UNUSED_SYMBOL", sizeof("EXPORT_UNUSED_SYMBOL") - 1, false },
	{ "EXPORT_UNUSED_SYMBOL_GPL", sizeof("EXPORT_UNUSED_SYMBOL_GPL") - 1, true },
};
#define TYPE_EXPORT_SYMBOL 0
#define TYPE_EXPORT_SYMBOL_GPL 1

static int export_type_find(const char *s, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(export_types); i++) {
		if (export_types[i].len == len &&
		    memcmp(export_types[i].name, s, len) == 0)
			return (int)i;
	}
	return -1;
}

/* The type modpost writes today (the only two since 5.12, approx.). */
static int default_type(bool gpl_only)
{
	return gpl_only ? TYPE_EXPORT_SYMBOL_GPL : TYPE_EXPORT_SYMBOL;
}

static bool valid_format(enum ksc_symvers_format fmt)
{
	return fmt == KSC_SYMVERS_5 || fmt == KSC_SYMVERS_5_NS3 || fmt == KSC_SYMVERS_4;
}

static const char *format_name(enum ksc_symvers_format fmt)
{
	switch (fmt) {
	case KSC_SYMVERS_5:
		return "5.6+ (crc, symbol, module, type, namespace)";
	case KSC_SYMVERS_5_NS3:
		return "5.4/5.5 (crc, symbol, namespace, module, type)";
	case KSC_SYMVERS_4:
		return "<= 5.3 (crc, symbol, module, type)";
	}
	return "unknown";
}

/* A field to write back: no separator in it; non-empty for symbol and module. */
static bool valid_field(const char *s, bool may_be_empty)
{
	if (!s || (!may_be_empty && !*s))
		return false;
	return strpbrk(s, "\t\n\r") == NULL;
}

/*
 * A field a written line can hold: no control character at all (a newline would forge a
 * line, an ESC reach a terminal); non-empty for symbol and module.
 */
static bool line_field(const char *s, bool may_be_empty)
{
	if (!s || (!may_be_empty && !*s))
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* ---------------------------------------------------------------------------------- */
/* Table                                                                              */

KSC_EXPORT int ksc_symvers_new(struct ksc_ctx *ctx, struct ksc_symvers **out)
{
	struct ksc_symvers *sv;

	if (!ctx || !out)
		return -EINVAL;
	*out = NULL;
	sv = calloc(1, sizeof(*sv));
	if (!sv)
		return -ENOMEM;
	sv->refcount = 1;
	sv->ctx = ksc_ref(ctx);
	pool_init(&sv->strings);
	hash_init(&sv->index);
	hash_init(&sv->interned);
	sv->format = KSC_SYMVERS_5;
	*out = sv;
	return 0;
}

KSC_DEFINE_REF(ksc_symvers_ref, struct ksc_symvers)

KSC_EXPORT struct ksc_symvers *ksc_symvers_unref(struct ksc_symvers *sv)
{
	if (!sv || --sv->refcount > 0)
		return NULL;
	hash_fini(&sv->index);
	hash_fini(&sv->interned);
	pool_fini(&sv->strings);
	free(sv->entries);
	ksc_unref(sv->ctx);
	free(sv);
	return NULL;
}

KSC_EXPORT size_t ksc_symvers_get_count(const struct ksc_symvers *sv)
{
	return sv ? sv->n_entries : 0;
}

KSC_EXPORT const struct ksc_symvers_entry *ksc_symvers_get(const struct ksc_symvers *sv,
							   size_t i)
{
	if (!sv || i >= sv->n_entries)
		return NULL;
	return &sv->entries[i];
}

KSC_EXPORT const struct ksc_symvers_entry *ksc_symvers_find(const struct ksc_symvers *sv,
							    const char *symbol)
{
	uintptr_t idx;

	if (!sv || !symbol)
		return NULL;
	idx = (uintptr_t)hash_find(&sv->index, symbol);
	return idx ? &sv->entries[idx - 1] : NULL;
}

KSC_EXPORT unsigned int ksc_symvers_get_error_count(const struct ksc_symvers *sv)
{
	return sv ? sv->n_errors : 0;
}

KSC_EXPORT enum ksc_symvers_format ksc_symvers_get_format(const struct ksc_symvers *sv)
{
	return sv ? sv->format : KSC_SYMVERS_5;
}

/*
 * Module paths and namespaces repeat thousands of times (24,683 lines of Debian's 6.1
 * file name about 4,000 modules and 40 namespaces): store each text once.
 */
static const char *intern(struct ksc_symvers *sv, const char *s, size_t len,
			  const char **last)
{
	char key[256];
	const char *v;

	if (len == 0)
		return "";
	/* modpost writes a module's exports together: lines repeat the previous one. */
	if (*last && strncmp(*last, s, len) == 0 && (*last)[len] == '\0')
		return *last;
	if (len >= sizeof(key))
		return *last = pool_strndup(&sv->strings, s, len);
	memcpy(key, s, len);
	key[len] = '\0';
	v = hash_find(&sv->interned, key);
	if (v)
		return *last = v;
	v = pool_strndup(&sv->strings, s, len);
	if (!v)
		return NULL;
	if (hash_add(&sv->interned, v, (void *)v, 1) < 0)
		return NULL;
	return *last = v;
}

/* Room for `n` more entries. 0 or -ENOMEM. */
static int reserve(struct ksc_symvers *sv, size_t n)
{
	if (n > SIZE_MAX - sv->n_entries)
		return -ENOMEM;
	return array_reserve(sv->entries, sv->n_alloc, sv->n_entries + n, 256);
}

/* Append one entry; strings need not be NUL-terminated. 0 or -ENOMEM. */
static int add_entry(struct ksc_symvers *sv, const char *sym, size_t sym_len,
		     const char *mod, size_t mod_len, const char *ns, size_t ns_len,
		     int type, uint32_t crc, unsigned int line)
{
	struct ksc_symvers_entry *e;
	const char *s, *m, *n;

	if (reserve(sv, 1) < 0)
		return -ENOMEM;
	s = pool_strndup(&sv->strings, sym, sym_len);
	m = intern(sv, mod, mod_len, &sv->last_module);
	n = intern(sv, ns, ns_len, &sv->last_ns);
	if (!s || !m || !n)
		return -ENOMEM;
	if (hash_add(&sv->index, s, (void *)(uintptr_t)(sv->n_entries + 1), 1) < 0)
		return -ENOMEM;

	e = &sv->entries[sv->n_entries++];
	e->symbol = s;
	e->module = m;
	e->ns = n;
	e->type = export_types[type].name;
	e->gpl_only = export_types[type].gpl_only;
	e->crc = crc;
	e->line = line;
	return 0;
}

KSC_EXPORT int ksc_symvers_add(struct ksc_symvers *sv, const struct ksc_symvers_entry *e)
{
	const char *ns;
	int type;

	if (!sv || !e || !valid_field(e->symbol, false) || !valid_field(e->module, false))
		return -EINVAL;
	ns = e->ns ? e->ns : "";
	if (!valid_field(ns, true))
		return -EINVAL;
	if (e->type) {
		/* Only the types modpost knows, so that what we write reads back. */
		type = export_type_find(e->type, strlen(e->type));
		if (type < 0)
			return -EINVAL;
	} else {
		type = default_type(e->gpl_only);
	}
	return add_entry(sv, e->symbol, strlen(e->symbol), e->module, strlen(e->module),
			 ns, strlen(ns), type, e->crc, 0);
}

/*
 * The lines modpost's write_dump() produces for a module it has just processed: one per
 * export, type from the GPL flag, CRC 0 when the export has none (modpost without -m).
 */
KSC_EXPORT int ksc_symvers_add_module(struct ksc_symvers *sv,
				      const struct ksc_module *mod)
{
	const char *owner;
	size_t n;

	if (!sv || !mod)
		return -EINVAL;
	owner = ksc_module_get_symvers_owner(mod);
	if (!valid_field(owner, false))
		return -EINVAL;
	n = ksc_module_get_export_count(mod);

	/* Check every export first: a bad one must not leave half a module behind. */
	for (size_t i = 0; i < n; i++) {
		const struct ksc_export *x = ksc_module_get_export(mod, i);

		if (!x || !valid_field(x->name, false) ||
		    (x->ns && !valid_field(x->ns, true)))
			return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ksc_export *x = ksc_module_get_export(mod, i);
		const char *ns = x->ns ? x->ns : "";
		uint32_t crc = x->has_crc ? x->crc : 0;
		int r;

		r = add_entry(sv, x->name, strlen(x->name), owner, strlen(owner), ns,
			      strlen(ns), default_type(x->gpl_only), crc, 0);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Parsing                                                                            */

struct field {
	const char *s;
	size_t len;
};

struct parser {
	struct ksc_symvers *sv;
	const char *path;
	unsigned int line;
	bool warned_mixed;
	unsigned int n_crlf, first_crlf; /* lines with DOS line ends: said once, at the end */
};

_printf_format_(2, 3) static int bad_line(struct parser *p, const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	ksc_err(p->sv->ctx, "%s:%u: %s", p->path, p->line, reason);
	p->sv->n_errors++;
	return 0;
}

/*
 * The entry just added names a symbol listed before? modpost never writes that, and the
 * views disagree on which entry counts: depmod's (kmod's hash_add()) keeps the last, the
 * loader's (the first exporter registered wins) and modpost's (read_dump(): "exported
 * twice") the first. Said, and counted as a malformed line.
 */
static void check_repeated(struct parser *p)
{
	struct ksc_symvers *sv = p->sv;
	const struct ksc_symvers_entry *e = &sv->entries[sv->n_entries - 1];
	const struct ksc_symvers_entry *first = ksc_symvers_find(sv, e->symbol);

	if (!first || first == e)
		return;
	ksc_err(sv->ctx,
		"%s:%u: %s listed again (first at line %u): depmod's view takes this later entry, the loader's and modpost's views the first",
		p->path, p->line, e->symbol, first->line);
	sv->n_errors++;
}

static bool starts_with_export(const struct field *f)
{
	return f->len >= 7 && memcmp(f->s, "EXPORT_", 7) == 0;
}

/*
 * The CRC column. modpost's read_dump() takes it with strtoul(..., 16) into an unsigned
 * int; we insist on the "0x" its write_dump() always writes and refuse values that a
 * 32-bit CRC cannot hold instead of truncating them. 0, -EINVAL (not 0x-hex) or -ERANGE.
 */
static int parse_crc(const struct field *f, uint32_t *crc)
{
	uint32_t v = 0;
	size_t digits = 0;

	if (f->len < 3 || f->s[0] != '0' || (f->s[1] != 'x' && f->s[1] != 'X'))
		return -EINVAL;
	for (size_t i = 2; i < f->len; i++) {
		char c = f->s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return -EINVAL;
		if (digits || d)
			digits++;
		if (digits > 8)
			return -ERANGE;
		v = v << 4 | d;
	}
	*crc = v;
	return 0;
}

/* Which layout a line of n fields is in: the column holding a known, then any, EXPORT_* type. */
static enum ksc_symvers_format line_format(const struct ksc_symvers *sv, const struct field *f,
					   size_t n)
{
	if (n == 4)
		return KSC_SYMVERS_4;
	if (export_type_find(f[3].s, f[3].len) >= 0)
		return KSC_SYMVERS_5;
	if (export_type_find(f[4].s, f[4].len) >= 0)
		return KSC_SYMVERS_5_NS3;
	if (starts_with_export(&f[3]))
		return KSC_SYMVERS_5;
	if (starts_with_export(&f[4]))
		return KSC_SYMVERS_5_NS3;
	if (sv->format_known && sv->format == KSC_SYMVERS_5_NS3)
		return KSC_SYMVERS_5_NS3;
	return KSC_SYMVERS_5;
}

/* One line without its '\n'. 0 (also for a skipped bad line) or -ENOMEM. */
static int parse_line(struct parser *p, const char *s, size_t len)
{
	struct ksc_symvers *sv = p->sv;
	const struct field *sym, *mod, *ns, *type;
	struct field f[5], empty = { "", 0 };
	enum ksc_symvers_format fmt;
	const char *end = s + len, *q = s;
	size_t n = 0;
	uint32_t crc;
	int t;

	if (len == 0)
		return bad_line(p, "empty line");
	if (memchr(s, '\0', len))
		return bad_line(p, "NUL byte in line");
	if (s[len - 1] == '\r') {
		if (!p->n_crlf++)
			p->first_crlf = p->line;
		p->sv->n_errors++;
		return 0;
	}
	/* Kept out of every field, so that what the writer puts out reads back. */
	if (memchr(s, '\r', len))
		return bad_line(p, "carriage return in line");

	/* Split on single TABs, as read_dump() does with strchr(line, '\t'). */
	for (;;) {
		const char *tab = memchr(q, '\t', (size_t)(end - q));

		if (n < ARRAY_SIZE(f)) {
			f[n].s = q;
			f[n].len = (size_t)((tab ? tab : end) - q);
		}
		n++;
		if (!tab)
			break;
		q = tab + 1;
	}
	if (n < 4)
		return bad_line(p, "too few fields (%zu, expected 4 or 5)", n);
	if (n > 5)
		return bad_line(p, "too many fields (%zu, expected 4 or 5)", n);
	switch (parse_crc(&f[0], &crc)) {
	case -EINVAL:
		return bad_line(p, "bad CRC '%.*s' (expected 0x and hex digits)",
				ksc_quote_len(f[0].len), f[0].s);
	case -ERANGE:
		return bad_line(p, "CRC '%.*s' does not fit in 32 bits",
				ksc_quote_len(f[0].len), f[0].s);
	}
	sym = &f[1];
	if (sym->len == 0)
		return bad_line(p, "empty symbol name");

	fmt = line_format(sv, f, n);

	if (fmt == KSC_SYMVERS_5_NS3) {
		ns = &f[2];
		mod = &f[3];
		type = &f[4];
	} else {
		mod = &f[2];
		type = &f[3];
		ns = fmt == KSC_SYMVERS_4 ? &empty : &f[4];
	}
	if (mod->len == 0)
		return bad_line(p, "empty module name");
	if (type->len == 0)
		return bad_line(p, "missing export type");
	/* modpost: "%s: unknown license %s. skip" (6.x) */
	t = export_type_find(type->s, type->len);
	if (t < 0)
		return bad_line(p, "unknown export type '%.*s'", ksc_quote_len(type->len),
				type->s);

	if (!sv->format_known) {
		sv->format = fmt;
		sv->format_known = true;
	} else if (fmt != sv->format && !p->warned_mixed) {
		ksc_warn(sv->ctx,
			 "%s:%u: line in the %s layout, the file so far in the %s layout",
			 p->path, p->line, format_name(fmt), format_name(sv->format));
		p->warned_mixed = true;
	}
	int r = add_entry(sv, sym->s, sym->len, mod->s, mod->len, ns->s, ns->len, t, crc,
			  p->line);
	if (r == 0)
		check_repeated(p);
	return r;
}

static int parse_buffer(struct ksc_symvers *sv, const char *path, const char *data,
			size_t size)
{
	struct parser p = { .sv = sv, .path = path };
	const char *s, *end;
	size_t lines = 0;

	if (size == 0)
		return 0; /* an empty file is an empty table (data may be NULL) */
	s = data;
	end = data + size;
	/* Counting lines first is cheaper than growing the arrays step by step. */
	for (const char *q = data; (q = memchr(q, '\n', (size_t)(end - q))); q++)
		lines++;
	if (reserve(sv, lines + 1) < 0 || hash_reserve(&sv->index, lines + 1) < 0)
		return -ENOMEM;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		int r;

		p.line++;
		r = parse_line(&p, s, (size_t)(eol - s));
		if (r < 0)
			return r;
		s = nl ? nl + 1 : end;
	}
	/* A file with DOS line ends: one message, not one per line (24,683 for Debian's). */
	if (p.n_crlf == 1)
		ksc_err(sv->ctx, "%s:%u: carriage return at end of line (DOS line ending)", path,
			p.first_crlf);
	else if (p.n_crlf)
		ksc_err(sv->ctx,
			"%s: %u of %u lines end with a carriage return (DOS line endings, from line %u): those lines not read",
			path, p.n_crlf, p.line, p.first_crlf);
	if (!sv->format_known)
		sv->format = KSC_SYMVERS_5;
	return 0;
}

KSC_EXPORT int ksc_symvers_new_from_memory(struct ksc_ctx *ctx, const char *name,
					   const char *data, size_t size,
					   struct ksc_symvers **out)
{
	struct ksc_symvers *sv;
	int r;

	if (!ctx || !out || (!data && size))
		return -EINVAL;
	if (!name)
		name = "(memory)";
	r = ksc_symvers_new(ctx, &sv);
	if (r < 0) {
		ksc_err(ctx, "%s: %s", name, strerror(-r));
		return r;
	}
	r = parse_buffer(sv, name, data, size);
	if (r < 0) {
		ksc_err(ctx, "%s: %s", name, strerror(-r));
		ksc_symvers_unref(sv);
		return r;
	}
	*out = sv;
	return 0;
}

KSC_EXPORT int ksc_symvers_new_from_path(struct ksc_ctx *ctx, const char *path,
					 struct ksc_symvers **out)
{
	char *data;
	size_t size;
	int r;

	if (!ctx || !path || !out)
		return -EINVAL;
	*out = NULL;
	r = ksc_read_text_file(ctx, path, &data, &size);
	if (r < 0)
		return r;
	if (size == 0) { /* else every import is unresolved with no word why */
		free(data);
		ksc_err(ctx, "%s: empty file: no exports", path);
		return -ENODATA;
	}
	r = ksc_symvers_new_from_memory(ctx, path, data, size, out);
	free(data);
	return r;
}

/* ---------------------------------------------------------------------------------- */
/* Writing                                                                            */

/*
 * The line scripts/mod/modpost.c write_dump() prints:
 *   <= 5.3: "0x%08x\t%s\t%s\t%s\n"     crc, name, module, export_str(export)
 *   5.4:    "0x%08x\t%s\t%s\t%s\t%s\n" crc, name, namespace ?: "", module, export_str()
 *   5.6+:   "0x%08x\t%s\t%s\t%s\t%s\n" crc, name, module, export_str(), namespace ?: ""
 */
KSC_EXPORT int ksc_symvers_format_entry(const struct ksc_symvers_entry *e,
					enum ksc_symvers_format fmt, char *buf,
					size_t size)
{
	const char *ns, *type;
	int n;

	if (!e || !e->symbol || !e->module || !valid_format(fmt) || (!buf && size))
		return -EINVAL;
	ns = e->ns ? e->ns : "";
	if (!line_field(e->symbol, false) || !line_field(e->module, false) ||
	    !line_field(ns, true))
		return -EINVAL; /* no line can hold it: refused, never written forged */
	type = e->type ? e->type : export_types[default_type(e->gpl_only)].name;
	switch (fmt) {
	case KSC_SYMVERS_4:
		n = snprintf(buf, size, "0x%08x\t%s\t%s\t%s\n", e->crc, e->symbol,
			     e->module, type);
		break;
	case KSC_SYMVERS_5_NS3:
		n = snprintf(buf, size, "0x%08x\t%s\t%s\t%s\t%s\n", e->crc, e->symbol, ns,
			     e->module, type);
		break;
	case KSC_SYMVERS_5:
	default:
		n = snprintf(buf, size, "0x%08x\t%s\t%s\t%s\t%s\n", e->crc, e->symbol,
			     e->module, type, ns);
		break;
	}
	return n < 0 ? -EINVAL : n;
}

KSC_EXPORT int ksc_symvers_write(const struct ksc_symvers *sv,
				 enum ksc_symvers_format fmt, FILE *f)
{
	char stack[512], *buf = stack;
	size_t size = sizeof(stack);
	int r = 0;

	if (!sv || !f || !valid_format(fmt))
		return -EINVAL;
	errno = 0;
	for (size_t i = 0; i < sv->n_entries; i++) {
		int n = ksc_symvers_format_entry(&sv->entries[i], fmt, buf, size);

		if (n < 0) {
			r = n;
			goto out;
		}
		if ((size_t)n >= size) {
			char *p = malloc((size_t)n + 1);

			if (!p) {
				r = -ENOMEM;
				goto out;
			}
			if (buf != stack)
				free(buf);
			buf = p;
			size = (size_t)n + 1;
			n = ksc_symvers_format_entry(&sv->entries[i], fmt, buf, size);
		}
		if (fwrite(buf, 1, (size_t)n, f) != (size_t)n) {
			r = errno ? -errno : -EIO;
			goto out;
		}
	}
	/* A full disk shows here at the latest: /dev/full fails the flush with ENOSPC. */
	if (fflush(f) != 0 || ferror(f))
		r = errno ? -errno : -EIO;
out:
	if (buf != stack)
		free(buf);
	return r;
}

/*
 * The process umask, without changing it: umask() can only be read by setting it, which
 * races with other threads, so ask /proc first (Linux 4.7+).
 */
static mode_t current_umask(void)
{
	char *line = NULL;
	size_t n = 0;
	unsigned int m;
	mode_t old;
	FILE *f;

	f = fopen("/proc/self/status", "re");
	if (f) {
		while (getline(&line, &n, f) > 0) {
			if (sscanf(line, "Umask: %o", &m) == 1) {
				free(line);
				fclose(f);
				return (mode_t)(m & 0777);
			}
		}
		free(line);
		fclose(f);
	}
	old = umask(022);
	umask(old);
	return old;
}

/* Make the rename durable; failure only costs durability, so it is ignored. */
static void fsync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return;
	(void)fsync(fd);
	close(fd);
}

KSC_EXPORT int ksc_symvers_write_file(const struct ksc_symvers *sv,
				      enum ksc_symvers_format fmt, const char *path)
{
	_cleanup_free_ char *tmp = NULL;
	struct stat st;
	mode_t mode;
	FILE *f;
	int fd, r;

	if (!sv || !path || !*path || !valid_format(fmt))
		return -EINVAL;
	r = ksc_write_target_check(AT_FDCWD, path, &mode);
	if (r < 0) {
		ksc_err(sv->ctx, "%s: %s", path, ksc_write_strerror(-r));
		return r;
	}
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		tmp = NULL;
		return -ENOMEM;
	}
	/* Next to the target, so that rename() stays on one filesystem. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		ksc_err(sv->ctx, "%s: cannot create a temporary file: %s", path,
			strerror(-r));
		return r;
	}
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		goto err_unlink;
	}
	r = ksc_symvers_write(sv, fmt, f);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	/*
	 * modpost's write_buf() rewrites Module.symvers with fopen(fname, "w"): an
	 * existing file keeps its permission bits, a new one gets 0666 less the umask.
	 * mkstemp() made the temporary file 0600, so give it that mode before it takes
	 * the target's place.
	 */
	if (r == 0) {
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			mode = st.st_mode & 07777;
		else
			mode = 0666 & ~current_umask();
		if (fchmod(fd, mode) < 0)
			r = -errno;
	}
	errno = 0;
	if (fclose(f) != 0 && r == 0)
		r = errno ? -errno : -EIO;
	if (r < 0)
		goto err_unlink;
	if (rename(tmp, path) < 0) {
		r = -errno;
		goto err_unlink;
	}
	fsync_parent(path);
	return 0;

err_unlink:
	unlink(tmp);
	ksc_err(sv->ctx, "%s: %s", path, ksc_write_strerror(-r));
	return r;
}
