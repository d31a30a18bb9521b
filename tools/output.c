// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every command prints the same way: strings made valid UTF-8 for JSON, the JSON
 * document frame ("schema" and "command", doc/ksymcheck.schema.json), the one finding
 * object of check, tree, audit and diff, and module names in text. Text is escaped for a
 * terminal by tools/text.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/ksc-tool.h"
#include "tools/text.h"
#include "util/fileio.h"

json_object *json_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, bad = 0, len = 0;

	if (!s)
		return NULL;
	for (; *p; p += n ? n : 1) {
		n = text_utf8_len(p);
		bad += !n;
		len += n ? n : 1;
	}
	if (!bad)
		return json_object_new_string_len(s, (int)len);
	/* Each byte that starts no valid sequence becomes U+FFFD, visibly. */
	char *buf = malloc(len + bad * 2 + 1), *q = buf;
	if (!buf)
		return NULL;
	for (p = (const unsigned char *)s; *p; p += n ? n : 1) {
		n = text_utf8_len(p);
		if (n) {
			memcpy(q, p, n);
			q += n;
		} else {
			memcpy(q, "\xef\xbf\xbd", 3);
			q += 3;
		}
	}
	json_object *o = json_object_new_string_len(buf, (int)(q - buf));
	free(buf);
	return o;
}

json_object *json_strings(const char *const *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_text(v[i]));
	return a;
}

json_object *json_size(size_t n)
{
	return json_object_new_int64((int64_t)n);
}

json_object *json_crc(bool has, uint64_t crc)
{
	char buf[24];

	if (!has)
		return NULL;
	snprintf(buf, sizeof(buf), "0x%08llx", (unsigned long long)crc);
	return json_text(buf);
}

/* ---- JSON documents ---- */

json_object *json_doc_new(const char *command)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "schema", json_object_new_string(KSC_JSON_SCHEMA));
	json_object_object_add(o, "command", json_object_new_string(command));
	return o;
}

static const char *json_string(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						 JSON_C_TO_STRING_NOSLASHESCAPE);
}

void json_doc_print(json_object *doc)
{
	json_write(stdout, json_string(doc), NULL, false);
	putchar('\n');
}

/* The document's opening: the frame and the key of the streamed array. */
static void stream_open(const struct json_stream *js)
{
	printf("{\n  \"schema\": \"%s\",\n  \"command\": \"%s\",\n  \"%s\": [\n", KSC_JSON_SCHEMA,
	       js->command, js->key);
}

void json_stream_item(struct json_stream *js, json_object *o)
{
	if (!js->count)
		stream_open(js);
	else
		fputs(",\n", stdout);
	/* Indented one level deeper than the frame, as a whole document would be. */
	fputs("    ", stdout);
	json_write(stdout, json_string(o), "    ", false);
	json_object_put(o);
	js->count++;
}

void json_stream_end(struct json_stream *js)
{
	if (!js->count)
		stream_open(js);
	fputs(js->count ? "\n  ]\n}\n" : "  ]\n}\n", stdout);
}

/* ---- findings ---- */

const char *verdict_word(enum ksc_severity s)
{
	return s == KSC_SEV_ERROR ? "error" : s == KSC_SEV_WARNING ? "warning" : "note";
}

const char *view_word(enum ksc_view v)
{
	return v == KSC_VIEW_LOADER ? "loader" : v == KSC_VIEW_MODPOST ? "modpost" : NULL;
}

const char *modpost_if_differs(const char *loader, const char *modpost)
{
	return loader && modpost && strcmp(loader, modpost) != 0 ? modpost : NULL;
}

void finding_from_diag(struct finding *f, const struct ksc_diag *d,
		       const struct ksc_module_verdict *v, const char *path)
{
	*f = (struct finding){
		.module = v && v->loader_name ? v->loader_name : d->module,
		.file = v ? modpost_if_differs(v->loader_name, v->modpost_name) : NULL,
		.path = path,
		.symbol = d->symbol,
		.ns = d->ns,
		.owner = d->owner,
		.view = view_word(d->view),
		.severity = d->severity,
		.code = d->code,
		.rule = d->rule,
		.summary = d->summary,
		.kernel_lines = d->kernel_lines,
		.explanation = d->explanation,
		.fix = d->fix,
		.err = d->err,
		.has_err = d->view == KSC_VIEW_LOADER,
	};
}

void modpost_name_of(const char *path, char *buf, size_t size)
{
	static const char *const zext[] = { ".gz", ".xz", ".zst" };
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	for (size_t i = 0; i < sizeof(zext) / sizeof(zext[0]); i++) {
		size_t l = strlen(zext[i]);
		if (n > l && strcmp(base + n - l, zext[i]) == 0) {
			n -= l;
			break;
		}
	}
	if (n > 3 && strncmp(base + n - 3, ".ko", 3) == 0)
		n -= 3;
	snprintf(buf, size, "%.*s", (int)n, base);
}

void finding_from_audit(struct finding *f, const struct ksc_audit_finding *a, char *file,
			size_t size)
{
	const struct ksc_code *c = ksc_code_lookup(a->code, KSC_CODE_AUDIT);

	*f = (struct finding){
		.module = a->module,
		.path = a->path,
		.symbol = a->symbol,
		.ns = a->ns,
		.severity = a->severity,
		.code = a->code,
		.rule = c ? c->rule : NULL,
		.summary = a->detail,
	};
	if (a->path) {
		modpost_name_of(a->path, file, size);
		f->file = modpost_if_differs(a->module, file);
	}
}

void json_add_lines(json_object *a, const char *s)
{
	while (s && *s) {
		size_t l = strcspn(s, "\n");
		char *line = strndup(s, l);
		if (line)
			json_object_array_add(a, json_text(line));
		free(line);
		s += l + (s[l] == '\n');
	}
}

/* '\n'-separated lines as an array of strings (empty for NULL). */
static json_object *lines_json(const char *s)
{
	json_object *a = json_object_new_array();

	json_add_lines(a, s);
	return a;
}

json_object *finding_json(const struct finding *f)
{
	json_object *x = json_object_new_object();

	json_object_object_add(x, "module", json_text(f->module));
	json_object_object_add(x, "file", json_text(f->file));
	json_object_object_add(x, "path", json_text(f->path));
	json_object_object_add(x, "symbol", json_text(f->symbol));
	json_object_object_add(x, "namespace", json_text(f->ns));
	json_object_object_add(x, "owner", json_text(f->owner));
	json_object_object_add(x, "view", json_text(f->view));
	json_object_object_add(x, "verdict", json_text(verdict_word(f->severity)));
	json_object_object_add(x, "code", json_text(f->code));
	json_object_object_add(x, "rule", json_text(f->rule));
	json_object_object_add(x, "summary", json_text(f->summary));
	json_object_object_add(x, "kernel_lines", lines_json(f->kernel_lines));
	json_object_object_add(x, "explanation", json_text(f->explanation));
	json_object_object_add(x, "fix", json_text(f->fix));
	json_object_object_add(x, "errno", f->has_err ? json_object_new_int(f->err) : NULL);
	return x;
}

json_object *verdict_json(const struct ksc_module_verdict *v, const char *path,
			  unsigned views)
{
	json_object *o = json_object_new_object(), *x;

	json_object_object_add(o, "module", json_text(v->loader_name));
	json_object_object_add(o, "file",
			       json_text(modpost_if_differs(v->loader_name, v->modpost_name)));
	json_object_object_add(o, "path", json_text(path));
	if (views & KSC_VIEW_LOADER) {
		x = json_object_new_object();
		json_object_object_add(x, "result", json_text(v->loader_err ? "refused" : "loads"));
		json_object_object_add(x, "errno", json_object_new_int(v->loader_err));
		json_object_object_add(x, "errno_name", json_text(ksc_errno_name(v->loader_err)));
		json_object_object_add(o, "loader", x);
	}
	if (views & KSC_VIEW_MODPOST) {
		x = json_object_new_object();
		json_object_object_add(x, "result", json_text(v->modpost_ok ? "pass" : "fail"));
		json_object_object_add(o, "modpost", x);
	}
	return o;
}

/* ---- module names in text ---- */

void print_module_name(const char *loader, const char *modpost, bool *noted)
{
	const char *file = modpost_if_differs(loader, modpost);

	fputs(text_esc(loader), stdout);
	if (file && noted && !*noted)
		printf(" (file %s.ko; modpost matches the file name)", text_esc(file));
	if (noted)
		*noted = true;
}
