// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Report renderers: the JSON document of `audit` or `diff` as a Graphviz graph or as one
 * self-contained HTML page. The page's style sheet and script are tools/report/report.css
 * and report.js, embedded at build time (tools/report/embed.sh); the script builds the
 * tables and the SVG graph from the JSON block at load time, so the page and --json never
 * disagree.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf, mkostemp; the Makefile defines it too */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tools/report.h"
#include "tools/text.h"
#include "util/fileio.h"

#ifndef KSC_VERSION
#define KSC_VERSION "unknown"
#endif

static bool valid_kind(const char *kind)
{
	return kind && (strcmp(kind, "audit") == 0 || strcmp(kind, "diff") == 0 ||
			strcmp(kind, "compat") == 0);
}

/* Text for HTML element content and attribute values; invalid UTF-8 as U+FFFD. */
static void html_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = text_utf8_len(p);
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (!n) {
				fputs("\xef\xbf\xbd", f);
				n = 1;
			} else if (*p < 0x20 && *p != '\t' && *p != '\n') {
				fputc(' ', f);
			} else {
				fwrite(p, 1, n, f);
			}
			p += n;
			continue;
		}
		p++;
	}
}

/* The document as JSON, as every other writer escapes it, and safe in a script element. */
static void put_json(FILE *f, json_object *doc)
{
	json_write(f,
		   json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE),
		   NULL, true);
}

static void write_page(FILE *f, const char *title, json_object *doc, const char *kind)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
	      "base-uri 'none'; form-action 'none'\">\n"
	      "<meta name=\"generator\" content=\"ksymcheck " KSC_VERSION "\">\n"
	      "<link rel=\"icon\" href=\"data:,\">\n<title>", f);
	html_text(f, title);
	fputs("</title>\n<style>\n", f);
	fputs(report_css, f);
	fprintf(f, "</style>\n</head>\n<body data-kind=\"%s\">\n"
		   "<a class=\"skip\" href=\"#ksc-main\">Skip to the report</a>\n"
		   "<header>\n<h1>", kind);
	html_text(f, title);
	fputs("</h1>\n<p class=\"sub\" id=\"ksc-sub\"></p>\n</header>\n"
	      "<nav id=\"ksc-nav\" aria-label=\"Sections\"></nav>\n"
	      "<noscript><p class=\"warn\">The tables and the graph of this report are drawn by "
	      "its script, which is off: the data is in the JSON block at the end of this "
	      "file (ksc-data).</p></noscript>\n"
	      "<main id=\"ksc-main\"></main>\n"
	      "<footer>Written by ksymcheck " KSC_VERSION ". This page is self-contained: it loads "
	      "nothing from the network. Select a column header to sort, type in a filter box to "
	      "narrow a table.</footer>\n"
	      "<script type=\"application/json\" id=\"ksc-data\">", f);
	put_json(f, doc);
	fputs("</script>\n<script>\n", f);
	fputs(report_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
}

int report_write_html(const char *path, const char *title, json_object *doc, const char *kind)
{
	if (!path || !doc || !valid_kind(kind))
		return -EINVAL;
	if (!title)
		title = strcmp(kind, "audit") == 0 ? "ksymcheck audit"
			: strcmp(kind, "compat") == 0 ? "ksymcheck compat" : "ksymcheck diff";
	if (strcmp(path, "-") == 0) {
		write_page(stdout, title, doc, kind);
		return fflush(stdout) != 0 || ferror(stdout) ? -EIO : 0;
	}

	/*
	 * A temporary file beside path, renamed over it once complete: only over a regular
	 * file (whose permission bits it takes) or a symbolic link, never over a device, a
	 * FIFO, a socket or a folder.
	 */
	mode_t keep;
	/* a path that cannot be looked at: mkostemp() below says why */
	if (ksc_write_target_check(AT_FDCWD, path, &keep) == -KSC_ENOTREG)
		return -KSC_ENOTREG;
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	char *tmp;
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", dirlen, path, path + dirlen) < 0)
		return -ENOMEM;
	int fd = mkostemp(tmp, O_CLOEXEC), r = 0;
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	mode_t mask = umask(0);
	umask(mask);
	FILE *f = NULL;
	if (fchmod(fd, keep != (mode_t)-1 ? keep : 0666 & ~mask) < 0 || !(f = fdopen(fd, "w"))) {
		r = -errno;
		close(fd);
		goto err_unlink;
	}
	write_page(f, title, doc, kind);
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) < 0)
		r = errno ? -errno : -EIO;
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (!r) {
		free(tmp);
		return 0;
	}
err_unlink:
	unlink(tmp);
	free(tmp);
	return r;
}

/* ---- Graphviz ---- */

/*
 * A dot string: '"' and '\' escaped, line breaks as \n, other control characters and
 * invalid UTF-8 as ' ' and '?'. dot reads a backslash before a quote as an escaped quote
 * whatever comes before it, so a string ending in a backslash gets a space after it.
 */
static void dot_str(FILE *f, const char *prefix, const char *s)
{
	const char *parts[2] = { prefix, s };
	bool backslash = false;

	fputc('"', f);
	for (int i = 0; i < 2; i++) {
		const unsigned char *p = (const unsigned char *)(parts[i] ? parts[i] : "");
		while (*p) {
			size_t n = text_utf8_len(p);
			if (!n) {
				fputc('?', f);
				p++;
				backslash = false;
				continue;
			}
			if (*p == '"' || *p == '\\')
				fputc('\\', f);
			if (*p == '\n')
				fputs("\\n", f);
			else if (*p < 0x20 || *p == 0x7f)
				fputc(' ', f);
			else
				fwrite(p, 1, n, f);
			backslash = *p == '\\';
			p += n;
		}
	}
	if (backslash)
		fputc(' ', f);
	fputc('"', f);
}

/* Members of the document: NULL, 0 or false when missing or of another type. */
static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static json_object *jarr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array))
		return NULL;
	return v;
}

static bool jbool(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

static size_t jlen(json_object *a)
{
	return a ? json_object_array_length(a) : 0;
}

static json_object *jidx(json_object *a, size_t i)
{
	return json_object_array_get_idx(a, i);
}

static const char *jat(json_object *a, size_t i)
{
	json_object *v = jidx(a, i);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* Colours of the page: fill and line of each tone. */
enum tone { TONE_NONE, TONE_BAD, TONE_WARN, TONE_GOOD, TONE_INFO };
static const char *const tone_fill[] = { "#ffffff", "#fbe9e7", "#fff3d6", "#e3f4e7",
					 "#e4eefb" };
static const char *const tone_line[] = { "#8a96a3", "#d0453b", "#c98a16", "#3f9a57",
					 "#4a7fd0" };

/* The more alarming of two tones: bad, warn, info, good, none. */
static enum tone worse(enum tone a, enum tone b)
{
	static const int rank[] = { [TONE_BAD] = 0, [TONE_WARN] = 1, [TONE_INFO] = 2,
				    [TONE_GOOD] = 3, [TONE_NONE] = 4 };

	return rank[a] <= rank[b] ? a : b;
}

/* As the page colours the kinds of change of `diff`. */
static enum tone kind_tone(const char *kind)
{
	static const struct { const char *kind; enum tone tone; } tones[] = {
		{ "removed", TONE_BAD }, { "became-gpl-only", TONE_BAD },
		{ "became-module-restricted", TONE_BAD }, { "namespace-gained", TONE_BAD },
		{ "namespace-changed", TONE_WARN }, { "restriction-changed", TONE_WARN },
		{ "crc-changed", TONE_WARN }, { "added", TONE_GOOD },
		{ "no-longer-gpl-only", TONE_GOOD }, { "namespace-lost", TONE_GOOD },
		{ "restriction-lifted", TONE_GOOD },
	};

	for (size_t i = 0; i < sizeof(tones) / sizeof(tones[0]); i++)
		if (strcmp(kind, tones[i].kind) == 0)
			return tones[i].tone;
	return TONE_INFO;
}

static enum tone verdict_tone(const char *v)
{
	if (!v || !*v)
		return TONE_GOOD;
	if (strcmp(v, "allowed") == 0)
		return TONE_GOOD;
	return strstr(v, "warning") ? TONE_WARN : TONE_BAD;
}

/* A graph being written: the nodes and edges already written, as keys of a JSON object. */
struct dot {
	FILE *f;
	json_object *seen;
};

/* True the first time (a, b, c) is asked about. */
static bool first_time(struct dot *d, const char *a, const char *b, const char *c)
{
	char *key;

	if (asprintf(&key, "%s\x01%s\x01%s", a, b ? b : "", c ? c : "") < 0)
		return true;
	bool first = !json_object_object_get_ex(d->seen, key, NULL);
	if (first)
		json_object_object_add(d->seen, key, NULL);
	free(key);
	return first;
}

struct node {
	const char *prefix, *id; /* the node's identifier is prefix id */
	const char *label, *suffix; /* label suffix, the label id suffix by default */
	const char *shape, *tooltip;
	enum tone tone;
	bool dashed;
};

/* Write a node statement, the first time only. */
static void dot_node(struct dot *d, const struct node *n)
{
	if (!first_time(d, "node", n->prefix, n->id))
		return;
	fputc('\t', d->f);
	dot_str(d->f, n->prefix, n->id);
	fputs(" [label=", d->f);
	dot_str(d->f, n->label ? n->label : n->id, n->suffix);
	if (n->shape)
		fprintf(d->f, ", shape=%s", n->shape);
	if (n->tooltip) {
		fputs(", tooltip=", d->f);
		dot_str(d->f, n->tooltip, NULL);
	}
	if (n->tone != TONE_NONE)
		fprintf(d->f, ", fillcolor=\"%s\", color=\"%s\"", tone_fill[n->tone],
			tone_line[n->tone]);
	if (n->dashed)
		fputs(", style=\"rounded,filled,dashed\"", d->f);
	fputs("];\n", d->f);
}

/*
 * The node of a module (or vmlinux), named as the loader and kmod name it: basename
 * without .ko[.ext], '-' as '_'; the name is left in name.
 */
static void dot_module(struct dot *d, const char *prefix, const char *s, const char *suffix,
		       enum tone tone, char *name, size_t size)
{
	const char *base = strrchr(s, '/');

	snprintf(name, size, "%s", base ? base + 1 : s);
	char *ko = strstr(name, ".ko");
	if (ko && (ko[3] == '\0' || ko[3] == '.'))
		*ko = '\0';
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	dot_node(d, &(struct node){ .prefix = prefix, .id = name, .suffix = suffix,
				     .tooltip = s, .tone = tone });
}

/* An edge from prefix a to prefix b, the first time only (per label). */
static void dot_edge(struct dot *d, const char *pa, const char *a, const char *pb,
		     const char *b, enum tone tone, bool dashed, const char *label)
{
	char *from, *to;

	if (asprintf(&from, "%s%s", pa, a) < 0)
		return;
	if (asprintf(&to, "%s%s", pb, b) < 0) {
		free(from);
		return;
	}
	if (first_time(d, from, to, label ? label : "")) {
		fputc('\t', d->f);
		dot_str(d->f, from, NULL);
		fputs(" -> ", d->f);
		dot_str(d->f, to, NULL);
		fprintf(d->f, " [color=\"%s\"%s", tone_line[tone], dashed ? ", style=dashed" : "");
		if (label) {
			fputs(", label=", d->f);
			dot_str(d->f, label, NULL);
		}
		fputs("];\n", d->f);
	}
	free(from);
	free(to);
}

static void dot_head(struct dot *d, const char *name, const char *label)
{
	fputs("digraph ", d->f);
	dot_str(d->f, name, NULL);
	fputs(" {\n\tgraph [rankdir=LR, ranksep=1.4, nodesep=0.12, fontname=\"Helvetica\", "
	      "fontsize=11, labelloc=t, label=", d->f);
	dot_str(d->f, label, NULL);
	fputs("];\n\tnode [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", "
	      "color=\"#8a96a3\", fontname=\"Helvetica\", fontsize=10, height=0.25];\n"
	      "\tedge [arrowsize=0.6, fontname=\"Helvetica\", fontsize=8, "
	      "fontcolor=\"#5b6673\"];\n", d->f);
}

/* A module-restricted export: exporter -> symbol -> each user. */
static void dot_restricted(struct dot *d, json_object *r)
{
	const char *sym = jstr(r, "symbol"), *owner = jstr(r, "owner");
	json_object *users = jarr(r, "users");
	bool dead = jbool(r, "dead");
	char name[256];

	if (!sym)
		return;
	dot_node(d, &(struct node){ .prefix = "symbol:", .id = sym, .shape = "ellipse",
				     .suffix = dead ? "\n(dead)" : NULL, .dashed = dead,
				     .tooltip = jstr(r, "namespace"),
				     .tone = dead ? TONE_BAD : TONE_WARN });
	if (owner) {
		dot_module(d, "module:", owner, NULL, TONE_NONE, name, sizeof(name));
		dot_edge(d, "module:", name, "symbol:", sym, TONE_NONE, false, NULL);
	}
	for (size_t j = 0; j < jlen(users); j++) {
		if (!jat(users, j))
			continue;
		dot_module(d, "module:", jat(users, j), NULL, TONE_NONE, name, sizeof(name));
		dot_edge(d, "symbol:", sym, "module:", name, TONE_WARN, false, NULL);
	}
}

static bool in_list(json_object *a, const char *s)
{
	for (size_t i = 0; i < jlen(a); i++)
		if (jat(a, i) && strcmp(jat(a, i), s) == 0)
			return true;
	return false;
}

/* A namespace: exporters -> namespace -> importers, dashed to those that use nothing. */
static void dot_namespace(struct dot *d, json_object *n)
{
	const char *ns = jstr(n, "namespace");
	json_object *exp = jarr(n, "exporters"), *unused = jarr(n, "unused_importers");
	json_object *v;
	char count[64] = "", name[256];

	if (!ns)
		return;
	if (json_object_object_get_ex(n, "exports", &v) && json_object_is_type(v, json_type_int))
		snprintf(count, sizeof(count), "\n%" PRId64 " export%s", json_object_get_int64(v),
			 json_object_get_int64(v) == 1 ? "" : "s");
	dot_node(d, &(struct node){ .prefix = "namespace:", .id = ns, .suffix = count,
				     .shape = "box", .tone = TONE_INFO });
	for (size_t j = 0; j < jlen(exp); j++) {
		if (!jat(exp, j))
			continue;
		dot_module(d, "module:", jat(exp, j), NULL, TONE_NONE, name, sizeof(name));
		dot_edge(d, "module:", name, "namespace:", ns, TONE_NONE, false, NULL);
	}
	for (int pass = 0; pass < 2; pass++) {
		json_object *list = pass ? unused : jarr(n, "importers");
		for (size_t j = 0; j < jlen(list); j++) {
			const char *u = jat(list, j);
			if (!u)
				continue;
			bool is_unused = pass || in_list(unused, u);
			dot_module(d, "module:", u, NULL, TONE_NONE, name, sizeof(name));
			dot_edge(d, "namespace:", ns, "module:", name,
				 is_unused ? TONE_NONE : TONE_INFO, is_unused,
				 is_unused ? "unused" : NULL);
		}
	}
}

static void dot_audit(struct dot *d, json_object *doc)
{
	json_object *k = NULL, *res = jarr(doc, "restricted"), *nss = jarr(doc, "namespaces");
	char label[512];

	json_object_object_get_ex(doc, "kernel", &k);
	const char *path = jstr(k, "path"), *rel = jstr(k, "release"), *pol = jstr(k, "policy");
	snprintf(label, sizeof(label), "ksymcheck audit: %s%s%s (rules of %s)",
		 path ? path : "kernel", rel ? " " : "", rel ? rel : "", pol ? pol : "its release");
	dot_head(d, "ksymcheck audit", label);
	fputs("\t/* exporter -> module-restricted export -> user */\n", d->f);
	for (size_t i = 0; i < jlen(res); i++)
		dot_restricted(d, jidx(res, i));
	fputs("\t/* exporter -> namespace -> importer (dashed: imports, uses nothing) */\n",
	      d->f);
	for (size_t i = 0; i < jlen(nss); i++)
		dot_namespace(d, jidx(nss, i));
	fputs("}\n", d->f);
}

/* The exporter of one side of an export change ("old" or "new"), or NULL when absent. */
static const char *side_owner(json_object *c, const char *side)
{
	json_object *o;

	if (!json_object_object_get_ex(c, side, &o) || !json_object_is_type(o, json_type_object))
		return NULL;
	return jstr(o, "owner");
}

/* diff without modules: OLD exporter -> changed symbol -> NEW exporter. */
static void dot_diff_changes(struct dot *d, json_object *doc)
{
	json_object *ch = jarr(doc, "changes"), *ks, *ts;
	json_object *kinds = json_object_new_object(), *tones = json_object_new_object();
	char label[128], name[256];

	snprintf(label, sizeof(label), "ksymcheck diff: %zu change%s (OLD exporter -> symbol "
		 "-> NEW exporter)", jlen(ch), jlen(ch) == 1 ? "" : "s");
	dot_head(d, "ksymcheck diff", label);
	/* The kinds of change of each symbol and the worst of their tones, for its node. */
	for (size_t i = 0; kinds && tones && i < jlen(ch); i++) {
		const char *sym = jstr(jidx(ch, i), "symbol"), *kind = jstr(jidx(ch, i), "kind");
		enum tone t;
		char *s;
		if (!sym || !kind)
			continue;
		t = kind_tone(kind);
		if (json_object_object_get_ex(tones, sym, &ts))
			t = worse(t, (enum tone)json_object_get_int(ts));
		json_object_object_add(tones, sym, json_object_new_int((int)t));
		if (json_object_object_get_ex(kinds, sym, &ks)) {
			if (asprintf(&s, "%s, %s", json_object_get_string(ks), kind) < 0)
				continue;
		} else if (!(s = strdup(kind))) {
			continue;
		}
		json_object_object_add(kinds, sym, json_object_new_string(s));
		free(s);
	}
	for (size_t i = 0; i < jlen(ch); i++) {
		json_object *c = jidx(ch, i);
		const char *sym = jstr(c, "symbol"), *kind = jstr(c, "kind");
		const char *oo = side_owner(c, "old"), *no = side_owner(c, "new");
		if (!sym || !kind)
			continue;
		enum tone t = kind_tone(kind);
		bool known = kinds && tones && json_object_object_get_ex(kinds, sym, &ks) &&
			     json_object_object_get_ex(tones, sym, &ts);
		char *l;
		if (asprintf(&l, "%s\n%s", sym, known ? json_object_get_string(ks) : kind) < 0)
			l = NULL;
		enum tone worst = known ? (enum tone)json_object_get_int(ts) : t;
		dot_node(d, &(struct node){ .prefix = "symbol:", .id = sym, .label = l,
					     .shape = "ellipse", .tone = worst });
		free(l);
		if (oo) {
			dot_module(d, "old:", oo, " (OLD)", TONE_NONE, name, sizeof(name));
			dot_edge(d, "old:", name, "symbol:", sym, t, !no, NULL);
		}
		if (no) {
			dot_module(d, "new:", no, " (NEW)", TONE_NONE, name, sizeof(name));
			dot_edge(d, "symbol:", sym, "new:", name, t, false, NULL);
		}
	}
	json_object_put(kinds);
	json_object_put(tones);
	fputs("}\n", d->f);
}

/*
 * One verdict change of a module (and the next one when it is the other view of the same
 * import with the same verdicts: one edge); returns how many it took.
 */
static size_t dot_verdict(struct dot *d, json_object *chs, size_t j, const char *module)
{
	json_object *c = jidx(chs, j);
	const char *sym = jstr(c, "symbol"), *code = jstr(c, "code");
	const char *old = jstr(c, "old"), *new = jstr(c, "new"), *view = jstr(c, "view");
	char views[64], id[256], *label;
	size_t taken = 1;

	snprintf(views, sizeof(views), "%s", view ? view : "");
	json_object *e = jidx(chs, j + 1);
	const char *es = jstr(e, "symbol"), *eold = jstr(e, "old"), *enew = jstr(e, "new");
	if (sym && es && old && new && eold && enew && strcmp(es, sym) == 0 &&
	    strcmp(old, eold) == 0 && strcmp(new, enew) == 0) {
		size_t l = strlen(views);
		const char *ev = jstr(e, "view");
		snprintf(views + l, sizeof(views) - l, ", %s", ev ? ev : "");
		taken = 2;
	}
	/* A module-level finding (no symbol) is a note named after its code. */
	const char *prefix = sym ? "symbol:" : "finding:";
	snprintf(id, sizeof(id), sym ? "%s" : "[%s]", sym ? sym : code ? code : "?");
	dot_node(d, &(struct node){ .prefix = prefix, .id = id, .tone = TONE_INFO,
				     .shape = sym ? "ellipse" : "note" });
	/* export change -> symbol, for each kind of change behind it */
	json_object *kinds = sym ? jarr(c, "export_changes") : NULL;
	for (size_t k = 0; k < jlen(kinds); k++) {
		const char *kind = json_object_get_string(jidx(kinds, k));
		if (!kind || !*kind)
			continue;
		dot_node(d, &(struct node){ .prefix = "change:", .id = kind, .shape = "box",
					     .tone = kind_tone(kind) });
		dot_edge(d, "change:", kind, "symbol:", sym, kind_tone(kind), false, NULL);
	}
	if (asprintf(&label, "%s: %s -> %s", views, old ? old : "-", new ? new : "-") < 0)
		label = NULL;
	dot_edge(d, prefix, id, "module:", module, verdict_tone(new), !new, label ? label : views);
	free(label);
	return taken;
}

/* diff with modules: export change -> symbol -> module whose verdict changes. */
static void dot_diff_modules(struct dot *d, json_object *doc)
{
	json_object *mods = jarr(doc, "modules");
	const char *po = jstr(doc, "policy_old"), *pn = jstr(doc, "policy_new");
	char label[256], name[256];

	snprintf(label, sizeof(label), "ksymcheck diff: rules of %s -> %s (export change -> "
		 "symbol -> module whose verdict changes)", po ? po : "?", pn ? pn : "?");
	dot_head(d, "ksymcheck diff", label);
	for (size_t i = 0; i < jlen(mods); i++) {
		json_object *md = jidx(mods, i), *chs = jarr(md, "changes");
		const char *mod = jstr(md, "module") ? jstr(md, "module") : jstr(md, "path");
		bool breaks = jbool(md, "breaks");
		if (!mod)
			continue;
		const char *note = breaks ? "\n(breaks)" : jlen(chs) ? NULL : "\n(no change)";
		dot_module(d, "module:", mod, note, breaks ? TONE_BAD : TONE_NONE, name,
			   sizeof(name));
		for (size_t j = 0; j < jlen(chs);)
			j += dot_verdict(d, chs, j, name);
	}
	fputs("}\n", d->f);
}

int report_write_dot(FILE *f, json_object *doc, const char *kind)
{
	struct dot d = { .f = f, .seen = json_object_new_object() };

	if (!f || !doc || !valid_kind(kind) || strcmp(kind, "compat") == 0) {
		json_object_put(d.seen);
		return -EINVAL;
	}
	if (!d.seen)
		return -ENOMEM;
	if (strcmp(kind, "audit") == 0)
		dot_audit(&d, doc);
	else if (jarr(doc, "modules"))
		dot_diff_modules(&d, doc);
	else
		dot_diff_changes(&d, doc);
	json_object_put(d.seen);
	return fflush(f) != 0 || ferror(f) ? -EIO : 0;
}
