// SPDX-License-Identifier: GPL-2.0-or-later
/* ksymcheck audit: who may use what in this kernel, and who is pretending to be whom. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <json-c/json.h>

#include "tools/ksc-tool.h"
#include "tools/report.h"

static const char *const help =
	"Usage: ksymcheck audit [OPTIONS] [KVER]\n\n"
	"Audit the export surface of the kernel KVER under ROOT (depmod's conventions):\n"
	"every module-restricted export with its pattern list, the modules each item matches\n"
	"and the modules that use it; dead and unmatchable items; every namespace with its\n"
	"exporters, importers and importers that use nothing from it; GPL-only counts; and\n"
	"impersonation risks: out-of-tree modules whose name matches a restricted pattern,\n"
	"intree claims the reference tree does not back, srcversions that differ.\n\n"
	"Options:\n"
	"  -b, --basedir ROOT      the root holding lib/modules/KVER (default /)\n"
	"      --reference ROOT2   the distribution's own tree (with KVER too) to check intree\n"
	"                          claims and srcversions against\n"
	"  -f, --format FMT        text (default), json, or dot (usage graph for Graphviz)\n"
	"      --html FILE         also write a self-contained HTML report (sortable,\n"
	"                          filterable tables and the usage graph)\n"
	"      --json              the same as --format json\n"
	"  -h, --help              show this help and exit\n\n"
	"Exit status: 0 nothing flagged, 1 warnings (impostors, unmatchable items, ...),\n"
	"2 usage error, 4 unreadable input (the rest was audited).\n";

enum { OPT_REFERENCE = 256, OPT_JSON, OPT_HTML };
enum { AUDIT_DOT = 100 }; /* the JSON document, drawn by report_write_dot() */

static json_object *jstrs(const char *const *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static const char *sev_name(enum ksc_severity s)
{
	return s == KSC_SEV_ERROR ? "error" : s == KSC_SEV_WARNING ? "warning" : "info";
}

static json_object *audit_json(const struct ksc_audit *a, const struct ksc_kernel *k,
			       const char *root)
{
	struct ksc_kver kv;
	char policy[32] = "";
	json_object *o = json_object_new_object(), *jk = json_object_new_object();
	size_t gpl, plain;

	ksc_audit_get_export_counts(a, &gpl, &plain);
	json_object_object_add(jk, "path", json_object_new_string(root));
	json_object_object_add(jk, "release", ksc_kernel_get_release(k)
			       ? json_object_new_string(ksc_kernel_get_release(k)) : NULL);
	if (ksc_kernel_get_release(k) && ksc_kver_parse(ksc_kernel_get_release(k), &kv) == 0)
		snprintf(policy, sizeof(policy), "%u.%u", kv.major, kv.minor);
	json_object_object_add(jk, "policy", policy[0] ? json_object_new_string(policy) : NULL);
	json_object_object_add(jk, "modules", json_object_new_int64((int64_t)ksc_kernel_get_module_count(k)));
	json_object_object_add(jk, "exports", json_object_new_int64((int64_t)(gpl + plain)));
	json_object_object_add(jk, "gpl_only", json_object_new_int64((int64_t)gpl));
	json_object_object_add(jk, "plain", json_object_new_int64((int64_t)plain));
	json_object_object_add(o, "kernel", jk);

	json_object *jr = json_object_new_array();
	for (size_t i = 0; i < ksc_audit_get_restricted_count(a); i++) {
		const struct ksc_audit_restricted *r = ksc_audit_get_restricted(a, i);
		json_object *x = json_object_new_object(), *items = json_object_new_array();
		json_object_object_add(x, "symbol", json_object_new_string(r->symbol));
		json_object_object_add(x, "owner", json_object_new_string(r->owner));
		json_object_object_add(x, "namespace", json_object_new_string(r->ns));
		json_object_object_add(x, "gpl_only", json_object_new_boolean(r->gpl_only));
		for (size_t j = 0; j < r->n_items; j++) {
			const struct ksc_audit_item *it = &r->items[j];
			json_object *y = json_object_new_object();
			json_object_object_add(y, "item", json_object_new_string(it->item));
			json_object_object_add(y, "kind", json_object_new_string(ksc_item_kind_name(it->kind)));
			json_object_object_add(y, "loader_matches", jstrs(it->loader_matches, it->n_loader_matches));
			json_object_object_add(y, "modpost_matches", jstrs(it->modpost_matches, it->n_modpost_matches));
			json_object_array_add(items, y);
		}
		json_object_object_add(x, "items", items);
		json_object_object_add(x, "users", jstrs(r->users, r->n_users));
		json_object_object_add(x, "dead", json_object_new_boolean(r->dead));
		json_object_array_add(jr, x);
	}
	json_object_object_add(o, "restricted", jr);

	json_object *jn = json_object_new_array();
	for (size_t i = 0; i < ksc_audit_get_namespace_count(a); i++) {
		const struct ksc_audit_namespace *n = ksc_audit_get_namespace(a, i);
		json_object *x = json_object_new_object();
		json_object_object_add(x, "namespace", json_object_new_string(n->ns));
		json_object_object_add(x, "exports", json_object_new_int64((int64_t)n->n_exports));
		json_object_object_add(x, "exporters", jstrs(n->exporters, n->n_exporters));
		json_object_object_add(x, "importers", jstrs(n->importers, n->n_importers));
		json_object_object_add(x, "unused_importers", jstrs(n->unused_importers, n->n_unused_importers));
		json_object_array_add(jn, x);
	}
	json_object_object_add(o, "namespaces", jn);

	json_object *jf = json_object_new_array(), *counts = json_object_new_object();
	for (size_t i = 0; i < ksc_audit_get_finding_count(a); i++) {
		const struct ksc_audit_finding *f = ksc_audit_get_finding(a, i);
		json_object *x = json_object_new_object();
		json_object_object_add(x, "code", json_object_new_string(f->code));
		json_object_object_add(x, "severity", json_object_new_string(sev_name(f->severity)));
		json_object_object_add(x, "module", f->module ? json_object_new_string(f->module) : NULL);
		json_object_object_add(x, "path", f->path ? json_object_new_string(f->path) : NULL);
		json_object_object_add(x, "symbol", f->symbol ? json_object_new_string(f->symbol) : NULL);
		json_object_object_add(x, "namespace", f->ns ? json_object_new_string(f->ns) : NULL);
		json_object_object_add(x, "detail", f->detail ? json_object_new_string(f->detail) : NULL);
		json_object_array_add(jf, x);
		json_object *c;
		int64_t v = json_object_object_get_ex(counts, f->code, &c) ? json_object_get_int64(c) : 0;
		json_object_object_add(counts, f->code, json_object_new_int64(v + 1));
	}
	json_object_object_add(o, "findings", jf);
	json_object_object_add(o, "counts", counts);
	return o;
}

static void print_list(const char *const *v, size_t n)
{
	if (!n)
		fputs("-", stdout);
	for (size_t i = 0; i < n; i++)
		printf("%s%s", i ? "," : "", v[i]);
}

static void audit_text(const struct ksc_audit *a, const struct ksc_kernel *k)
{
	size_t gpl, plain;

	ksc_audit_get_export_counts(a, &gpl, &plain);
	printf("kernel %s: %zu modules, %zu exports (%zu GPL-only, %zu plain), %zu module-restricted, %zu namespaces\n",
	       ksc_kernel_get_release(k) ? ksc_kernel_get_release(k) : "?",
	       ksc_kernel_get_module_count(k), gpl + plain, gpl, plain,
	       ksc_audit_get_restricted_count(a), ksc_audit_get_namespace_count(a));
	if (ksc_audit_get_restricted_count(a))
		printf("\nmodule-restricted exports (symbol, owner, namespace: item -> matching modules; users)\n");
	for (size_t i = 0; i < ksc_audit_get_restricted_count(a); i++) {
		const struct ksc_audit_restricted *r = ksc_audit_get_restricted(a, i);
		printf("  %s (%s%s) %s%s\n", r->symbol, r->owner, r->gpl_only ? ", GPL-only" : "",
		       r->ns, r->dead ? "  [dead: matches no module]" : "");
		for (size_t j = 0; j < r->n_items; j++) {
			const struct ksc_audit_item *it = &r->items[j];
			printf("    item '%s' (%s): loader ", it->item, ksc_item_kind_name(it->kind));
			print_list(it->loader_matches, it->n_loader_matches);
			printf("; modpost ");
			print_list(it->modpost_matches, it->n_modpost_matches);
			putchar('\n');
		}
		printf("    users: ");
		print_list(r->users, r->n_users);
		putchar('\n');
	}
	if (ksc_audit_get_namespace_count(a))
		printf("\nnamespaces (exports; exporters; importers; importers using nothing from it)\n");
	for (size_t i = 0; i < ksc_audit_get_namespace_count(a); i++) {
		const struct ksc_audit_namespace *n = ksc_audit_get_namespace(a, i);
		printf("  %s: %zu; ", n->ns, n->n_exports);
		print_list(n->exporters, n->n_exporters);
		printf("; ");
		print_list(n->importers, n->n_importers);
		printf("; ");
		print_list(n->unused_importers, n->n_unused_importers);
		putchar('\n');
	}
	if (ksc_audit_get_finding_count(a))
		putchar('\n');
	for (size_t i = 0; i < ksc_audit_get_finding_count(a); i++) {
		const struct ksc_audit_finding *f = ksc_audit_get_finding(a, i);
		printf("%s: %s%s%s: %s [%s]\n", f->module ? f->module : (f->symbol ? f->symbol : "kernel"),
		       f->module && f->symbol ? f->symbol : "", f->module && f->symbol ? ": " : "",
		       sev_name(f->severity), f->detail ? f->detail : "", f->code);
	}
}

int cmd_audit(struct ksc_ctx *ctx, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "basedir", required_argument, NULL, 'b' },
		{ "reference", required_argument, NULL, OPT_REFERENCE },
		{ "format", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *root = "/", *reference = NULL, *kver = NULL, *html = NULL;
	int format = FMT_TEXT, c, status = KSC_EXIT_OK;
	struct utsname u;

	while ((c = getopt_long(argc, argv, "+b:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': root = optarg; break;
		case OPT_REFERENCE: reference = optarg; break;
		case OPT_JSON: format = FMT_JSON; break;
		case OPT_HTML: html = optarg; break;
		case 'f':
			if (strcmp(optarg, "dot") == 0) {
				format = AUDIT_DOT;
				break;
			}
			format = parse_format("audit", optarg, 1u << FMT_TEXT | 1u << FMT_JSON);
			if (format < 0)
				return KSC_EXIT_USAGE;
			break;
		case 'h':
			fputs(help, stdout);
			return KSC_EXIT_OK;
		default:
			return usage_error("audit", "invalid option");
		}
	}
	if (argc - optind > 1)
		return usage_error("audit", "one KVER at most");
	if (optind < argc)
		kver = argv[optind];
	else if (uname(&u) == 0)
		kver = u.release;

	struct ksc_kernel *k = NULL, *ref = NULL;
	struct ksc_audit *a = NULL;
	unsigned errors = 0;
	if (ksc_kernel_open(ctx, root, kver, &k) < 0) {
		status = KSC_EXIT_UNREADABLE;
		goto out;
	}
	errors += ksc_kernel_get_error_count(k);
	if (reference) {
		if (ksc_kernel_open(ctx, reference, kver, &ref) < 0) {
			status = KSC_EXIT_UNREADABLE;
			goto out;
		}
		errors += ksc_kernel_get_error_count(ref);
	}
	struct ksc_audit_opts o = { .sz = sizeof(o), .reference = ref };
	if (ksc_audit_kernel(k, &o, &a) < 0) {
		fprintf(stderr, "%s: audit: out of memory\n", program_name);
		status = KSC_EXIT_UNREADABLE;
		goto out;
	}
	json_object *doc = format != FMT_TEXT || html ? audit_json(a, k, root) : NULL;
	if (format == FMT_JSON)
		puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
	else if (format == AUDIT_DOT)
		report_write_dot(stdout, doc, "audit"); /* write errors: caught at exit */
	else
		audit_text(a, k);
	if (html) {
		int r = report_write_html(html, NULL, doc, "audit");
		if (r < 0) {
			fprintf(stderr, "%s: %s: %s\n", program_name, html, strerror(-r));
			errors++;
		}
	}
	json_object_put(doc);
	for (size_t i = 0; i < ksc_audit_get_finding_count(a); i++)
		if (ksc_audit_get_finding(a, i)->severity >= KSC_SEV_WARNING)
			status = KSC_EXIT_FINDINGS;
out:
	if (errors)
		status |= KSC_EXIT_UNREADABLE;
	ksc_audit_free(a);
	ksc_kernel_unref(ref);
	ksc_kernel_unref(k);
	return status;
}
