// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * System.map (and /proc/kallsyms): "<hex address> <type char> <symbol>" per line, as
 * scripts/mksysmap writes from `nm -n vmlinux`; kallsyms adds "\t[module]" for symbols of
 * loaded modules. The kernel's exports are the symbols carrying a __ksymtab_<name> label:
 * that is what kmod's depmod takes from System.map with -F (tools/depmod.c,
 * depmod_load_system_map()).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/hash.h"
#include "util/macro.h"
#include "util/pool.h"
#include "ksymcheck.h"
#include "readers/readers.h"

#define KSYMTAB_PREFIX "__ksymtab_"
#define KSYMTAB_PREFIX_LEN (sizeof(KSYMTAB_PREFIX) - 1)
#define KSTRTAB_PREFIX "__kstrtab_"
#define KSTRTAB_PREFIX_LEN (sizeof(KSTRTAB_PREFIX) - 1)
/* Stack buffer for NUL-terminated copies of names looked up in hashes. */
#define NAME_MAX_STACK 512

struct ksc_sysmap {
	int refcount;
	struct ksc_ctx *ctx;
	struct pool strings;
	const char **exports;
	size_t n_exports, n_alloc;
	struct hash index; /* export name -> itself */
	size_t n_symbols;
	unsigned int n_errors;
};

/* The fields of one line; pointers into the file's text. */
struct line {
	const char *name;
	size_t name_len;
	bool in_module; /* kallsyms "\t[module]" column */
};

/* A __ksymtab_ label, the text after the prefix, resolved once the whole file is read. */
struct label {
	const char *s;
	size_t len;
};

struct parser {
	struct ksc_sysmap *sm;
	const char *path;
	unsigned int line;
	struct label *labels;
	size_t n_labels, n_alloc;
	bool dotted; /* some label has a '.' (5.4 namespaced form) */
};

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_type_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '?' || c == '-';
}

/*
 * Split one line (without '\n'). NULL when it is a symbol line, else the reason it is
 * not, written to `reason`.
 */
static const char *split_line(const char *s, size_t len, struct line *l, char *reason,
			      size_t reason_size)
{
	const char *end = s + len, *p = s, *name, *tab;
	size_t digits;

	if (len == 0)
		return "empty line";
	if (memchr(s, '\0', len))
		return "NUL byte in line";
	if (s[len - 1] == '\r')
		return "carriage return at end of line (DOS line ending)";
	if (memchr(s, '\r', len))
		return "carriage return in line";

	/* nm and kallsyms pad the address to the word size: 8 or 16 hex digits. */
	while (p < end && is_hex(*p))
		p++;
	digits = (size_t)(p - s);
	if (digits == 0 || (p < end && *p != ' ')) {
		const char *sp = memchr(s, ' ', len);

		snprintf(reason, reason_size, "bad address '%.*s'",
			 ksc_quote_len((size_t)((sp ? sp : end) - s)), s);
		return reason;
	}
	if (digits > 16) {
		snprintf(reason, reason_size, "address too long (%zu hex digits)",
			 digits);
		return reason;
	}
	if (p == end || p + 1 == end)
		return "missing symbol type and name";
	p++;
	/* One character, as nm prints it: a letter, or '?' and '-' for the odd ones. */
	if (!is_type_char(*p) || (p + 1 < end && p[1] != ' ')) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		size_t n = sp ? (size_t)(sp - p) : (size_t)(end - p);

		snprintf(reason, reason_size, "bad symbol type '%.*s'",
			 ksc_quote_len(n ? n : 1), p);
		return reason;
	}
	if (p + 2 >= end)
		return "missing symbol name";
	name = p + 2;
	tab = memchr(name, '\t', (size_t)(end - name));
	l->name = name;
	l->name_len = (size_t)((tab ? tab : end) - name);
	l->in_module = false;
	if (l->name_len == 0)
		return "empty symbol name";
	if (memchr(name, ' ', l->name_len))
		return "symbol name contains a space";
	if (tab) {
		/* /proc/kallsyms: "\t[module]" */
		size_t rest = (size_t)(end - tab - 1);

		if (rest < 3 || tab[1] != '[' || end[-1] != ']') {
			snprintf(reason, reason_size,
				 "unexpected text after the symbol name: '%.*s'",
				 ksc_quote_len(rest), tab + 1);
			return reason;
		}
		l->in_module = true;
	}
	return NULL;
}

/*
 * Debian's linux-image packages install a one-line stand-in:
 *   ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package
 */
static bool is_placeholder(const char *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t len = nl ? (size_t)(nl - data) : size;
	char reason[128];
	struct line l;
	const char *why;

	if (nl && (size_t)(nl - data) + 1 != size)
		return false;
	why = split_line(data, len, &l, reason, sizeof(reason));
	if (!why || strcmp(why, "symbol name contains a space") != 0)
		return false;
	return memmem(l.name, (size_t)(data + len - l.name), "System.map", 10) != NULL;
}

_printf_format_(2, 3) static void bad_line(struct parser *p, const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	ksc_err(p->sm->ctx, "%s:%u: %s", p->path, p->line, reason);
	p->sm->n_errors++;
}

static int add_label(struct parser *p, const char *s, size_t len)
{
	if (array_reserve(p->labels, p->n_alloc, p->n_labels + 1, 1024) < 0)
		return -ENOMEM;
	p->labels[p->n_labels++] = (struct label){ s, len };
	if (memchr(s, '.', len))
		p->dotted = true;
	return 0;
}

static int parse_line(struct parser *p, const char *s, size_t len)
{
	char reason[KSC_QUOTE_MAX * 2];
	const char *why;
	struct line l;

	why = split_line(s, len, &l, reason, sizeof(reason));
	if (why) {
		bad_line(p, "%s", why);
		return 0;
	}
	p->sm->n_symbols++;
	/*
	 * depmod_load_system_map() takes every symbol whose name starts with __ksymtab_.
	 * A loaded module's own labels (kallsyms "[module]" lines) are not the kernel's.
	 */
	if (l.in_module || l.name_len <= KSYMTAB_PREFIX_LEN ||
	    memcmp(l.name, KSYMTAB_PREFIX, KSYMTAB_PREFIX_LEN) != 0)
		return 0;
	return add_label(p, l.name + KSYMTAB_PREFIX_LEN, l.name_len - KSYMTAB_PREFIX_LEN);
}

/* Copy to a NUL-terminated stack buffer for a hash lookup; false when it does not fit. */
static bool stack_copy(char *buf, size_t size, const char *s, size_t len)
{
	if (len >= size)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return true;
}

/* One half of a dotted label, and whether the map names it elsewhere. */
struct candidate {
	const char *name;
	bool seen;
};

static void mark_seen(struct hash *h, const char *s, size_t len)
{
	char key[NAME_MAX_STACK];
	struct candidate *c;

	if (!stack_copy(key, sizeof(key), s, len))
		return;
	c = hash_find(h, key);
	if (c)
		c->seen = true;
}

static bool was_seen(const struct hash *h, const char *s, size_t len)
{
	char key[NAME_MAX_STACK];
	const struct candidate *c;

	if (!stack_copy(key, sizeof(key), s, len))
		return false;
	c = hash_find(h, key);
	return c && c->seen;
}

/*
 * 5.4 namespaced exports carry a dotted label. 5.4-rc1 wrote __ksymtab_<sym>.<NS>; the
 * release has __ksymtab_<NS>.<sym> (include/linux/export.h after "module: swap the order
 * of symbol.namespace", 5.4-rc2); 5.5 went back to a plain __ksymtab_<sym>
 * (c3a6cf19e695). modpost's sym_extract_namespace() split at the first '.'. The symbol is
 * the half that also names a symbol of the map (the function or variable itself, or its
 * __kstrtab_<sym> string); when neither does, the half after the dot, as in the
 * released 5.4.
 */
static int resolve_dotted(struct parser *p, const char *data, size_t size)
{
	const char *s = data, *end = data + size;
	struct candidate *cands;
	struct pool tmp;
	struct hash seen;
	size_t n = 0;
	int r = -ENOMEM;

	cands = calloc(p->n_labels, 2 * sizeof(*cands));
	if (!cands)
		return -ENOMEM;
	pool_init(&tmp);
	hash_init(&seen);
	for (size_t i = 0; i < p->n_labels; i++) {
		const struct label *lb = &p->labels[i];
		const char *dot = memchr(lb->s, '.', lb->len);

		if (!dot)
			continue;
		cands[n].name = pool_strndup(&tmp, lb->s, (size_t)(dot - lb->s));
		cands[n + 1].name =
			pool_strndup(&tmp, dot + 1, (size_t)(lb->s + lb->len - dot - 1));
		if (!cands[n].name || !cands[n + 1].name ||
		    hash_add(&seen, cands[n].name, &cands[n], 1) < 0 ||
		    hash_add(&seen, cands[n + 1].name, &cands[n + 1], 1) < 0)
			goto out;
		n += 2;
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		char reason[KSC_QUOTE_MAX * 2];
		struct line l;

		if (!split_line(s, (size_t)(eol - s), &l, reason, sizeof(reason))) {
			mark_seen(&seen, l.name, l.name_len);
			if (l.name_len > KSTRTAB_PREFIX_LEN &&
			    memcmp(l.name, KSTRTAB_PREFIX, KSTRTAB_PREFIX_LEN) == 0)
				mark_seen(&seen, l.name + KSTRTAB_PREFIX_LEN,
					  l.name_len - KSTRTAB_PREFIX_LEN);
		}
		s = nl ? nl + 1 : end;
	}
	for (size_t i = 0; i < p->n_labels; i++) {
		struct label *lb = &p->labels[i];
		const char *dot = memchr(lb->s, '.', lb->len);
		size_t a_len, b_len;

		if (!dot)
			continue;
		a_len = (size_t)(dot - lb->s);
		b_len = (size_t)(lb->s + lb->len - dot - 1);
		if (a_len == 0 || b_len == 0)
			continue;
		if (!was_seen(&seen, dot + 1, b_len) && was_seen(&seen, lb->s, a_len))
			*lb = (struct label){ lb->s, a_len };
		else
			*lb = (struct label){ dot + 1, b_len };
	}
	r = 0;
out:
	hash_fini(&seen);
	pool_fini(&tmp);
	free(cands);
	return r;
}

static int add_export(struct ksc_sysmap *sm, const char *s, size_t len)
{
	char key[NAME_MAX_STACK];
	const char *name;

	if (stack_copy(key, sizeof(key), s, len) && hash_find(&sm->index, key))
		return 0;
	if (array_reserve(sm->exports, sm->n_alloc, sm->n_exports + 1, 1024) < 0)
		return -ENOMEM;
	name = pool_strndup(&sm->strings, s, len);
	if (!name)
		return -ENOMEM;
	switch (hash_add(&sm->index, name, (void *)name, 1)) {
	case 0:
		sm->exports[sm->n_exports++] = name;
		return 0;
	case 1:
		return 0; /* a long duplicate */
	default:
		return -ENOMEM;
	}
}

static int parse_buffer(struct ksc_sysmap *sm, const char *path, const char *data,
			size_t size)
{
	struct parser p = { .sm = sm, .path = path };
	const char *s = data, *end = data + size;
	int r = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;

		p.line++;
		r = parse_line(&p, s, (size_t)(eol - s));
		if (r < 0)
			goto out;
		s = nl ? nl + 1 : end;
	}
	if (p.dotted) {
		r = resolve_dotted(&p, data, size);
		if (r < 0)
			goto out;
	}
	for (size_t i = 0; i < p.n_labels; i++) {
		r = add_export(sm, p.labels[i].s, p.labels[i].len);
		if (r < 0)
			goto out;
	}
out:
	free(p.labels);
	return r;
}

static struct ksc_sysmap *sysmap_alloc(struct ksc_ctx *ctx)
{
	struct ksc_sysmap *sm = calloc(1, sizeof(*sm));

	if (!sm)
		return NULL;
	sm->refcount = 1;
	sm->ctx = ksc_ref(ctx);
	pool_init(&sm->strings);
	hash_init(&sm->index);
	return sm;
}

KSC_EXPORT int ksc_sysmap_new_from_memory(struct ksc_ctx *ctx, const char *name,
					  const char *data, size_t size,
					  struct ksc_sysmap **out)
{
	struct ksc_sysmap *sm;
	int r;

	if (!ctx || !out || (!data && size))
		return -EINVAL;
	*out = NULL;
	if (!name)
		name = "(memory)";
	if (size == 0) {
		ksc_err(ctx, "%s: empty System.map (no symbols)", name);
		return -EINVAL;
	}
	if (is_placeholder(data, size)) {
		ksc_err(ctx,
			"%s: placeholder System.map (no symbols); the real one is in the -dbg package",
			name);
		return -EINVAL;
	}
	sm = sysmap_alloc(ctx);
	if (!sm) {
		ksc_err(ctx, "%s: %s", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	r = parse_buffer(sm, name, data, size);
	if (r < 0) {
		ksc_err(ctx, "%s: %s", name, strerror(-r));
		ksc_sysmap_unref(sm);
		return r;
	}
	if (sm->n_symbols == 0) {
		ksc_err(ctx, "%s: no symbol lines: not a System.map", name);
		ksc_sysmap_unref(sm);
		return -EINVAL;
	}
	*out = sm;
	return 0;
}

KSC_EXPORT int ksc_sysmap_new_from_path(struct ksc_ctx *ctx, const char *path,
					struct ksc_sysmap **out)
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
	r = ksc_sysmap_new_from_memory(ctx, path, data, size, out);
	free(data);
	return r;
}

KSC_DEFINE_REF(ksc_sysmap_ref, struct ksc_sysmap)

KSC_EXPORT struct ksc_sysmap *ksc_sysmap_unref(struct ksc_sysmap *sm)
{
	if (!sm || --sm->refcount > 0)
		return NULL;
	hash_fini(&sm->index);
	pool_fini(&sm->strings);
	free(sm->exports);
	ksc_unref(sm->ctx);
	free(sm);
	return NULL;
}

KSC_EXPORT size_t ksc_sysmap_get_symbol_count(const struct ksc_sysmap *sm)
{
	return sm ? sm->n_symbols : 0;
}

KSC_EXPORT size_t ksc_sysmap_get_export_count(const struct ksc_sysmap *sm)
{
	return sm ? sm->n_exports : 0;
}

KSC_EXPORT const char *ksc_sysmap_get_export(const struct ksc_sysmap *sm, size_t i)
{
	if (!sm || i >= sm->n_exports)
		return NULL;
	return sm->exports[i];
}

KSC_EXPORT bool ksc_sysmap_has_export(const struct ksc_sysmap *sm, const char *name)
{
	if (!sm || !name)
		return false;
	return hash_find(&sm->index, name) != NULL;
}

KSC_EXPORT unsigned int ksc_sysmap_get_error_count(const struct ksc_sysmap *sm)
{
	return sm ? sm->n_errors : 0;
}
