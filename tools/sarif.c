// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format), the form CI systems
 * read: one run whose tool.driver lists one rule per finding code, and one result per
 * finding with the module file as its physical location and the module and symbol as
 * logical locations. check and tree --format sarif. The rules' texts come from the
 * library's catalogue (ksc_code_lookup(), ksc_rule_lookup()), as `explain` prints them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "ksymcheck.h"
#include "util/array.h"
#include "tools/ksc-tool.h"

#ifndef KSC_VERSION
#define KSC_VERSION "unknown"
#endif

#define SARIF_SCHEMA \
	"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
/* The manual page is the tool's documentation wherever it is installed. */
#define KSC_INFO_URI "man:ksymcheck(1)"
#define BASE_ID "MODDIR"

struct sarif {
	json_object *results, *rules;
	char **codes; /* rule i's finding code */
	size_t n_codes, cap_codes;
	char *base;   /* file URI of the folder relative paths are in, or NULL */
};

struct sarif *sarif_new(void)
{
	struct sarif *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->results = json_object_new_array();
	s->rules = json_object_new_array();
	return s;
}

/* A path as a URI reference: bytes other than unreserved ones and '/' percent-encoded;
 * absolute paths as file: URIs. dir adds a trailing '/'. NULL when out of memory. */
static char *path_uri(const char *path, bool dir)
{
	static const char ok[] = "-._~/";
	size_t n = strlen(path);
	char *u = malloc(n * 3 + sizeof("file://") + 1), *q = u;

	if (!u)
		return NULL;
	if (path[0] == '/')
		q += sprintf(q, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr(ok, *p))
			*q++ = (char)*p;
		else
			q += sprintf(q, "%%%02X", *p);
	}
	if (dir && (q == u || q[-1] != '/'))
		*q++ = '/';
	*q = '\0';
	return u;
}

void sarif_set_base(struct sarif *s, const char *uri_base)
{
	free(s->base);
	s->base = uri_base ? path_uri(uri_base, true) : NULL;
}

static json_object *text_msg(const char *text)
{
	json_object *m = json_object_new_object();

	json_object_object_add(m, "text", json_text(text));
	return m;
}

/* asprintf(), with *p NULL when it fails. */
static int fmt(char **p, const char *f, ...) __attribute__((format(printf, 2, 3)));
static int fmt(char **p, const char *f, ...)
{
	va_list ap;
	int r;

	va_start(ap, f);
	r = vasprintf(p, f, ap);
	va_end(ap);
	if (r < 0)
		*p = NULL;
	return r;
}

/* Append sep (when *buf holds something) and s to the malloc'ed *buf. -1: no memory. */
static int append(char **buf, const char *sep, const char *s)
{
	char *n;

	if (fmt(&n, "%s%s%s", *buf ? *buf : "", *buf ? sep : "", s) < 0)
		return -1;
	free(*buf);
	*buf = n;
	return 0;
}

/*
 * The texts of a SARIF rule for finding code `code`, from the catalogue (doc/rules.md):
 * short, the summary of each of the code's entries (a code such as gpl-only has one for
 * the loader and one for modpost); full, each entry's rule with its title and text; help,
 * the fixes and where to read more. ids gets the rules' ids. -1 when out of memory.
 */
static int rule_texts(const char *code, char **brief, char **full, char **help, json_object *ids)
{
	const struct ksc_code *first = ksc_code_lookup(code, 0);
	char *part = NULL;

	*brief = *full = *help = NULL;
	for (size_t i = first ? (size_t)(first - ksc_code_get(0)) : ksc_code_get_count();
	     i < ksc_code_get_count() && strcmp(ksc_code_get(i)->code, code) == 0; i++) {
		const struct ksc_code *c = ksc_code_get(i);
		const struct ksc_rule *r = ksc_rule_lookup(c->rule);
		const char *fix = c->fix ? c->fix : r ? r->fix : NULL;

		json_object_array_add(ids, json_text(c->rule));
		if ((!*brief || !strstr(*brief, c->summary)) && append(brief, "; ", c->summary) < 0)
			goto oom;
		if (r && (fmt(&part, "%s: %s. %s", r->id, r->title, r->text) < 0 ||
			  append(full, "\n\n", part) < 0))
			goto oom;
		free(part);
		part = NULL;
		/* the fix is a phrase ("add MODULE_IMPORT_NS() ..."): make it a sentence */
		if (fix && fix[0] && (!*help || !strstr(*help, fix + 1)) &&
		    (fmt(&part, "%c%s%s", toupper((unsigned char)fix[0]), fix + 1,
			 fix[strlen(fix) - 1] == '.' ? "" : ".") < 0 ||
		     append(help, " ", part) < 0))
			goto oom;
		free(part);
		part = NULL;
	}
	bool many = json_object_array_length(ids) > 1;
	/* a code of no rule (compat's) has nothing for explain to show */
	if (first && (fmt(&part, "'ksymcheck explain %s' shows %s, the kernel functions and files "
				 "that decide %s, and an example.", code,
			  many ? "the rules" : "the rule", many ? "them" : "it") < 0 ||
		      append(help, " ", part) < 0))
		goto oom;
	free(part);
	part = NULL;
	if (!*brief && fmt(brief, "ksymcheck finding '%s'", code) < 0)
		goto oom;
	if (!*full && !(*full = strdup(*brief)))
		goto oom;
	if (!*help && !(*help = strdup(*brief)))
		goto oom;
	return 0;
oom:
	free(part);
	free(*brief);
	free(*full);
	free(*help);
	return -1;
}

/* A rule's entry: its code, texts (taken) and the rule ids (taken). -1 when out of memory. */
static int add_rule(struct sarif *s, const char *c, char *brief, char *full, char *help,
		    json_object *ids)
{
	char *code = array_reserve(s->codes, s->cap_codes, s->n_codes + 1, 16) < 0 ? NULL
										 : strdup(c);

	if (!code) {
		free(brief);
		free(full);
		free(help);
		json_object_put(ids);
		return -1;
	}
	json_object *r = json_object_new_object(), *props = json_object_new_object();
	json_object_object_add(r, "id", json_text(c));
	json_object_object_add(r, "shortDescription", text_msg(brief));
	json_object_object_add(r, "fullDescription", text_msg(full));
	json_object_object_add(r, "help", text_msg(help));
	json_object_object_add(props, "rules", ids);
	json_object_object_add(r, "properties", props);
	json_object_array_add(s->rules, r);
	free(brief);
	free(full);
	free(help);
	s->codes[s->n_codes] = code;
	return (int)s->n_codes++;
}

static int find_rule(const struct sarif *s, const char *code)
{
	for (size_t i = 0; i < s->n_codes; i++)
		if (strcmp(s->codes[i], code) == 0)
			return (int)i;
	return -1;
}

/* The rule of f's code: its index, added on first use. -1 when out of memory. */
static int rule_index(struct sarif *s, const struct finding *f)
{
	int i = find_rule(s, f->code);
	char *brief, *full, *help;
	json_object *ids;

	if (i >= 0)
		return i;
	ids = json_object_new_array();
	if (rule_texts(f->code, &brief, &full, &help, ids) < 0) {
		json_object_put(ids);
		return -1;
	}
	return add_rule(s, f->code, brief, full, help, ids);
}

int sarif_describe(struct sarif *s, const char *code, const char *brief, const char *help)
{
	char *b = strdup(brief), *f = strdup(brief), *h = strdup(help);

	if (find_rule(s, code) >= 0) {
		free(b);
		free(f);
		free(h);
		return 0;
	}
	if (!b || !f || !h) {
		free(b);
		free(f);
		free(h);
		return -ENOMEM;
	}
	return add_rule(s, code, b, f, h, json_object_new_array()) < 0 ? -ENOMEM : 0;
}

static json_object *location_json(const struct sarif *s, const struct finding *f)
{
	json_object *loc = json_object_new_object(), *logical = json_object_new_array();
	json_object *x;

	if (f->path) {
		char *uri = path_uri(f->path, false);
		json_object *art = json_object_new_object(), *phys = json_object_new_object();
		json_object_object_add(art, "uri", json_text(uri));
		if (s->base && f->path[0] != '/')
			json_object_object_add(art, "uriBaseId", json_object_new_string(BASE_ID));
		json_object_object_add(phys, "artifactLocation", art);
		json_object_object_add(loc, "physicalLocation", phys);
		free(uri);
	}
	x = json_object_new_object();
	json_object_object_add(x, "name", json_text(f->module));
	json_object_object_add(x, "kind", json_object_new_string("module"));
	json_object_array_add(logical, x);
	if (f->symbol) {
		char *fq = NULL;
		x = json_object_new_object();
		json_object_object_add(x, "name", json_text(f->symbol));
		if (fmt(&fq, "%s:%s", f->module ? f->module : "", f->symbol) >= 0)
			json_object_object_add(x, "fullyQualifiedName", json_text(fq));
		free(fq);
		json_object_array_add(logical, x);
	}
	json_object_object_add(loc, "logicalLocations", logical);
	return loc;
}

int sarif_add(struct sarif *s, const struct finding *f)
{
	return sarif_add_with(s, f, NULL);
}

int sarif_add_with(struct sarif *s, const struct finding *f, json_object *extra)
{
	int idx = rule_index(s, f);
	char *msg = NULL;

	if (idx < 0 || asprintf(&msg, "%s: %s%s%s: %s%s%s", f->module ? f->module : "kernel",
				f->symbol ? f->symbol : "", f->symbol ? ": " : "",
				f->view ? f->view : "finding",
				f->summary ? f->summary : f->code, f->fix ? ". Fix: " : "",
				f->fix ? f->fix : "") < 0) {
		json_object_put(extra);
		return -ENOMEM;
	}
	json_object *r = json_object_new_object(), *locs = json_object_new_array();
	json_object_object_add(r, "ruleId", json_text(f->code));
	json_object_object_add(r, "ruleIndex", json_object_new_int(idx));
	/* SARIF's levels are the finding object's verdict words */
	json_object_object_add(r, "level", json_object_new_string(verdict_word(f->severity)));
	json_object_object_add(r, "message", text_msg(msg));
	json_object_array_add(locs, location_json(s, f));
	json_object_object_add(r, "locations", locs);
	/* Everything else of the finding object, as it is in --format json. */
	json_object *props = finding_json(f);
	json_object_object_del(props, "code");
	json_object_object_del(props, "verdict");
	if (extra) {
		json_object_object_foreach(extra, k, v)
			json_object_object_add(props, k, json_object_get(v));
		json_object_put(extra);
	}
	json_object_object_add(r, "properties", props);
	json_object_array_add(s->results, r);
	free(msg);
	return 0;
}

void sarif_print(struct sarif *s)
{
	json_object *log = json_object_new_object(), *runs = json_object_new_array();
	json_object *run = json_object_new_object(), *tool = json_object_new_object();
	json_object *driver = json_object_new_object();

	json_object_object_add(log, "$schema", json_object_new_string(SARIF_SCHEMA));
	json_object_object_add(log, "version", json_object_new_string("2.1.0"));
	json_object_object_add(driver, "name", json_object_new_string("ksymcheck"));
	json_object_object_add(driver, "version", json_object_new_string(KSC_VERSION));
	json_object_object_add(driver, "informationUri", json_object_new_string(KSC_INFO_URI));
	json_object_object_add(driver, "rules", s->rules);
	json_object_object_add(tool, "driver", driver);
	json_object_object_add(run, "tool", tool);
	if (s->base) {
		json_object *bases = json_object_new_object(), *b = json_object_new_object();
		json_object_object_add(b, "uri", json_text(s->base));
		json_object_object_add(bases, BASE_ID, b);
		json_object_object_add(run, "originalUriBaseIds", bases);
	}
	json_object_object_add(run, "results", s->results);
	json_object_array_add(runs, run);
	json_object_object_add(log, "runs", runs);
	json_doc_print(log);
	json_object_put(log); /* and with it the rules and results */
	s->rules = s->results = NULL;
	sarif_free(s);
}

void sarif_free(struct sarif *s)
{
	if (!s)
		return;
	json_object_put(s->rules);
	json_object_put(s->results);
	for (size_t i = 0; i < s->n_codes; i++)
		free(s->codes[i]);
	free(s->codes);
	free(s->base);
	free(s);
}
