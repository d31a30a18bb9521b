// SPDX-License-Identifier: GPL-2.0-or-later
/* ksymcheck explain: what a rule id or finding code means, from the library's catalogue. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/ksc-tool.h"
#include "tools/text.h"

/* rules.md where `make install` puts it: $DOCDIR (configured at build time). */
#ifndef KSC_RULES_MD
#define KSC_RULES_MD "/usr/local/share/doc/ksymcheck/rules.md"
#endif

static const char *const help =
	"Usage: ksymcheck explain [OPTIONS] [RULE|CODE...]\n\n"
	"Explain a rule id (R16) or a finding code (gpl-only), as check, tree, diff and audit\n"
	"print them: what the kernel does, in which function and versions, an example and\n"
	"the fix. Without an argument, list every rule and code. " KSC_RULES_MD "\n"
	"has the same, at length.\n\n"
	"Options:\n"
	"  -f, --format FMT  text (default) or json\n"
	"      --json        the same as --format json\n"
	"  -q, --quiet       text: print nothing but the errors (a check that each RULE or\n"
	"                    CODE exists)\n"
	"  -h, --help        show this help and exit\n";

#define WIDTH 79
#define LABEL 12 /* the column where a field's text starts */

static const char *const sev_names[] = { "info", "warning", "error" };

/* Print `s` from column `col`, wrapped at WIDTH with continuation lines indented by `indent`. */
static void wrap(const char *s, int col, int indent)
{
	while (*s) {
		size_t n = strcspn(s, " ");
		if (col > indent && col + 1 + (int)n > WIDTH) {
			printf("\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		fwrite(s, 1, n, stdout);
		col += (int)n;
		s += n;
		while (*s == ' ')
			s++;
	}
	putchar('\n');
}

static void field(const char *label, const char *text)
{
	printf("  %-*s", LABEL - 2, label);
	wrap(text, LABEL, LABEL);
}

/* "loader", "modpost", "audit", joined by '+'. */
static const char *sources_word(unsigned int s, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s", s & KSC_VIEW_LOADER ? "loader" : "",
		 (s & KSC_VIEW_LOADER) && (s & KSC_VIEW_MODPOST) ? "+" : "",
		 s & KSC_VIEW_MODPOST ? "modpost" : "",
		 (s & KSC_VIEW_BOTH) && (s & KSC_CODE_AUDIT) ? "+" : "",
		 s & KSC_CODE_AUDIT ? "audit" : "");
	return buf;
}

/* "error, warning": the severities of a code, gravest first. */
static const char *severities_word(unsigned int m, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = KSC_SEV_ERROR; i >= KSC_SEV_INFO; i--)
		if (m & (1u << i))
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
						sev_names[i]);
	return buf;
}

static void print_code_line(const struct ksc_code *c)
{
	char src[32], sev[32];

	printf("%s (%s): %s\n", c->code, sources_word(c->sources, src, sizeof(src)), c->summary);
	field("rule:", c->rule);
	field("severity:", severities_word(c->severities, sev, sizeof(sev)));
	if (c->fix)
		field("fix:", c->fix);
}

static void print_rule(const struct ksc_rule *r)
{
	char buf[1024], src[32];
	size_t len = 0;

	printf("%s: %s\n\n  ", r->id, r->title);
	wrap(r->text, 2, 2);
	putchar('\n');
	snprintf(buf, sizeof(buf), "%s in %s", r->functions, r->files);
	field("kernel:", buf);
	field("versions:", r->versions);
	field("example:", r->example);
	field("fix:", r->fix ? r->fix : "nothing to fix: this rule refuses nothing");
	buf[0] = '\0';
	for (size_t i = 0; i < ksc_code_get_count() && len < sizeof(buf); i++) {
		const struct ksc_code *c = ksc_code_get(i);
		if (strcmp(c->rule, r->id) == 0)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s (%s)",
						len ? ", " : "", c->code,
						sources_word(c->sources, src, sizeof(src)));
	}
	if (len)
		field("codes:", buf);
	printf("\nSee %s, %s.\n", KSC_RULES_MD, r->id);
}

static void print_list(void)
{
	int w = 0;

	printf("Rules ('ksymcheck explain RULE'; %s has them at length):\n", KSC_RULES_MD);
	for (size_t i = 0; i < ksc_rule_get_count(); i++)
		printf("  %-4s %s\n", ksc_rule_get(i)->id, ksc_rule_get(i)->title);
	for (size_t i = 0; i < ksc_code_get_count(); i++) {
		int l = (int)strlen(ksc_code_get(i)->code);
		w = l > w ? l : w;
	}
	printf("\nFinding codes ('ksymcheck explain CODE'):\n");
	for (size_t i = 0; i < ksc_code_get_count(); i++) {
		const struct ksc_code *c = ksc_code_get(i);
		char src[32];
		printf("  %-*s  %-4s %-15s %s\n", w, c->code, c->rule,
		       sources_word(c->sources, src, sizeof(src)), c->summary);
	}
}

static json_object *code_json(const struct ksc_code *c)
{
	json_object *o = json_object_new_object(), *src = json_object_new_array(),
		    *sev = json_object_new_array();
	static const char *const names[] = { "loader", "modpost", "audit" };

	json_object_object_add(o, "code", json_text(c->code));
	json_object_object_add(o, "rule", json_text(c->rule));
	for (unsigned int i = 0; i < 3; i++)
		if (c->sources & (1u << i))
			json_object_array_add(src, json_text(names[i]));
	json_object_object_add(o, "sources", src);
	for (int i = KSC_SEV_ERROR; i >= KSC_SEV_INFO; i--)
		if (c->severities & (1u << i))
			json_object_array_add(sev, json_text(sev_names[i]));
	json_object_object_add(o, "severities", sev);
	json_object_object_add(o, "summary", json_text(c->summary));
	json_object_object_add(o, "fix", json_text(c->fix));
	return o;
}

static json_object *rule_json(const struct ksc_rule *r)
{
	json_object *o = json_object_new_object(), *codes = json_object_new_array();

	json_object_object_add(o, "id", json_text(r->id));
	json_object_object_add(o, "title", json_text(r->title));
	json_object_object_add(o, "text", json_text(r->text));
	json_object_object_add(o, "functions", json_text(r->functions));
	json_object_object_add(o, "files", json_text(r->files));
	json_object_object_add(o, "versions", json_text(r->versions));
	json_object_object_add(o, "example", json_text(r->example));
	json_object_object_add(o, "fix", json_text(r->fix));
	for (size_t i = 0; i < ksc_code_get_count(); i++)
		if (strcmp(ksc_code_get(i)->rule, r->id) == 0)
			json_object_array_add(codes, json_text(ksc_code_get(i)->code));
	json_object_object_add(o, "codes", codes);
	json_object_object_add(o, "see", json_object_new_string(KSC_RULES_MD));
	return o;
}

/* What the arguments name: rules and code entries, each once, in the order named. */
struct selection {
	const struct ksc_rule **rules;
	const struct ksc_code **codes;
	size_t n_rules, n_codes;
};

static void select_rule(struct selection *sel, const struct ksc_rule *r)
{
	for (size_t i = 0; i < sel->n_rules; i++)
		if (sel->rules[i] == r)
			return;
	sel->rules[sel->n_rules++] = r;
}

/* 0, or -1 when `arg` is neither a rule nor a code. */
static int select_arg(struct selection *sel, const char *arg)
{
	const struct ksc_rule *r = ksc_rule_lookup(arg);
	const struct ksc_code *c = ksc_code_lookup(arg, 0);

	if (r) {
		select_rule(sel, r);
		return 0;
	}
	if (!c)
		return -1;
	/* every entry of the code (they are adjacent), and the rule of each */
	for (size_t j = (size_t)(c - ksc_code_get(0)); j < ksc_code_get_count(); j++) {
		c = ksc_code_get(j);
		if (strcmp(c->code, arg) != 0)
			break;
		bool seen = false;
		for (size_t i = 0; i < sel->n_codes; i++)
			seen |= sel->codes[i] == c;
		if (!seen)
			sel->codes[sel->n_codes++] = c;
		select_rule(sel, ksc_rule_lookup(c->rule));
	}
	return 0;
}

static void print_selection(const struct selection *sel, int format)
{
	if (format == FMT_JSON) {
		json_object *o = json_doc_new("explain"), *rules = json_object_new_array(),
			    *codes = json_object_new_array();
		for (size_t i = 0; i < sel->n_rules; i++)
			json_object_array_add(rules, rule_json(sel->rules[i]));
		for (size_t i = 0; i < sel->n_codes; i++)
			json_object_array_add(codes, code_json(sel->codes[i]));
		json_object_object_add(o, "rules", rules);
		json_object_object_add(o, "codes", codes);
		json_doc_print(o);
		json_object_put(o);
		return;
	}
	for (size_t i = 0; i < sel->n_codes; i++) {
		print_code_line(sel->codes[i]);
		putchar('\n');
	}
	for (size_t i = 0; i < sel->n_rules; i++) {
		if (i)
			putchar('\n');
		print_rule(sel->rules[i]);
	}
}

static int selection_init(struct selection *sel)
{
	sel->rules = calloc(ksc_rule_get_count(), sizeof(*sel->rules));
	sel->codes = calloc(ksc_code_get_count(), sizeof(*sel->codes));
	sel->n_rules = sel->n_codes = 0;
	if (sel->rules && sel->codes)
		return 0;
	print_error("out of memory");
	return -1;
}

static void selection_fini(struct selection *sel)
{
	free(sel->rules);
	free(sel->codes);
}

/*
 * Explain each argument (a rule, or every entry of a code with their rules), or list all.
 * quiet: text output prints nothing, the unknown ids are still reported.
 */
static int explain(char **args, int n, int format, bool quiet)
{
	struct selection sel;
	int ret = KSC_EXIT_OK;

	if (!n && format != FMT_JSON) {
		if (!quiet)
			print_list();
		return KSC_EXIT_OK;
	}
	if (selection_init(&sel) < 0) {
		selection_fini(&sel);
		return KSC_EXIT_UNREADABLE;
	}
	for (size_t i = 0; !n && i < ksc_rule_get_count(); i++)
		sel.rules[sel.n_rules++] = ksc_rule_get(i);
	for (size_t i = 0; !n && i < ksc_code_get_count(); i++)
		sel.codes[sel.n_codes++] = ksc_code_get(i);
	for (int i = 0; i < n; i++) {
		if (select_arg(&sel, args[i]) < 0) {
			usage_error("explain", "explain: unknown rule or code '%s'",
				    text_esc(args[i]));
			ret = KSC_EXIT_USAGE;
			break;
		}
	}
	if (ret == KSC_EXIT_OK && (!quiet || format == FMT_JSON))
		print_selection(&sel, format);
	selection_fini(&sel);
	return ret;
}

int cmd_explain(struct ksc_ctx *ctx, int argc, char *argv[])
{
	int format = FMT_TEXT;
	bool quiet = false;
	const struct option_set set = {
		.format = &format,
		.formats = 1u << FMT_TEXT | 1u << FMT_JSON,
		.quiet = &quiet,
		.help = help,
	};
	int r = parse_options("explain", argc, argv, &set, NULL, NULL);

	if (r != KSC_EXIT_OK)
		return r < 0 ? KSC_EXIT_OK : r;
	return explain(argv + optind, argc - optind, format, quiet);
}
