// SPDX-License-Identifier: GPL-2.0-or-later
/* ksymcheck audit: who may use what in this kernel, and who is pretending to be whom. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/ksc-tool.h"
#include "tools/report.h"
#include "tools/text.h"

static const char *const help =
	"Usage: ksymcheck audit [OPTIONS] [KVER]\n\n"
	"Audit the export surface of the kernel KVER under ROOT (depmod's conventions):\n"
	"every module-restricted export with its pattern list, the modules each item matches\n"
	"and the modules that use it; dead and unmatchable items; every namespace with its\n"
	"exporters, importers and importers that use nothing from it; GPL-only counts; and\n"
	"impersonation risks: out-of-tree modules whose name matches a restricted pattern,\n"
	"intree claims the reference tree does not back, srcversions that differ. And every\n"
	"module's signature (signer, key id, hash algorithm), verified against the kernel's\n"
	"keys: intree modules and modules granted a restricted export by name that are\n"
	"unsigned, signed by another key or whose signature fails are flagged.\n\n"
	"Options:\n"
	"  -k, --kernel ROOT       the root holding lib/modules/KVER (default /)\n"
	"  -b, --basedir ROOT      the same, as depmod -b\n"
	"      --kver KVER         the release under ROOT (or KVER as operand)\n"
	"      --reference ROOT2   the distribution's own tree (with KVER too) to check intree\n"
	"                          claims and srcversions against\n"
	"      --config FILE       the kernel's .config (default: ROOT/boot/config-KVER or\n"
	"                          lib/modules/KVER/build/.config)\n"
	"      --cert FILE         a certificate the kernel trusts for module signatures (PEM\n"
	"                          or DER; or a kernel image: its built-in keys); repeatable.\n"
	"                          The built-in keys of the kernel image under ROOT are used\n"
	"                          too. Without any key, signatures are not verified: only\n"
	"                          unsigned and malformed ones are judged\n"
	"  -f, --format FMT        text (default), json, or dot (usage graph for Graphviz)\n"
	"      --html FILE         also write a self-contained HTML report (sortable,\n"
	"                          filterable tables and the usage graph)\n"
	"      --json              the same as --format json\n"
	"  -q, --quiet             text: only the warnings and errors found, no tables\n"
	"  -h, --help              show this help and exit\n\n"
	"A kernel root is read through the index 'tree' keeps (KSYMCHECK_NO_INDEX=1: read\n"
	"whole; the same output), with a progress bar on standard error when it is a\n"
	"terminal (text format, not --quiet).\n\n"
	"Exit status: 0 nothing flagged, 1 warnings or errors (impostors, unmatchable items,\n"
	"unsigned intree modules, ...), 2 usage error, 4 unreadable input (the rest was\n"
	"audited).\n";

enum { OPT_REFERENCE = 256 };

static const char *sev_name(enum ksc_severity s)
{
	return s == KSC_SEV_ERROR ? "error" : s == KSC_SEV_WARNING ? "warning" : "info";
}

static json_object *signatures_json(const struct ksc_audit_sig_counts *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "modules", json_size(c->n_modules));
	json_object_object_add(o, "signed", json_size(c->n_signed));
	json_object_object_add(o, "unsigned", json_size(c->n_unsigned));
	json_object_object_add(o, "verified", json_size(c->n_verified));
	json_object_object_add(o, "foreign_key", json_size(c->n_foreign_key));
	json_object_object_add(o, "rejected", json_size(c->n_rejected));
	json_object_object_add(o, "unsupported", json_size(c->n_unsupported));
	json_object_object_add(o, "not_checked", json_size(c->n_not_checked));
	json_object_object_add(o, "keys", json_size(c->n_keys));
	json_object_object_add(o, "keys_checked", json_object_new_boolean(c->n_keys > 0));
	json_object_object_add(o, "module_sig", c->module_sig < 0 ? NULL
			       : json_object_new_boolean(c->module_sig == 1));
	return o;
}

static json_object *keys_json(const struct ksc_keyring *kr)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; kr && i < ksc_keyring_get_count(kr); i++) {
		const struct ksc_key *key = ksc_keyring_get_key(kr, i);
		json_object *x = json_object_new_object();
		json_object_object_add(x, "subject", json_text(key->subject));
		json_object_object_add(x, "issuer", json_text(key->issuer));
		json_object_object_add(x, "serial", json_text(key->serial));
		json_object_object_add(x, "key_algo", json_text(key->key_algo));
		json_object_object_add(x, "bits", json_object_new_int64(key->bits));
		json_object_object_add(x, "source", json_text(key->source));
		json_object_array_add(a, x);
	}
	return a;
}

static json_object *signers_json(const struct ksc_audit *a)
{
	json_object *v = json_object_new_array();

	for (size_t i = 0; i < ksc_audit_get_signer_count(a); i++) {
		const struct ksc_audit_signer *s = ksc_audit_get_signer(a, i);
		json_object *x = json_object_new_object();
		json_object_object_add(x, "signer", json_text(s->signer));
		json_object_object_add(x, "key_id", json_text(s->key_id));
		json_object_object_add(x, "hash_algo", json_text(s->hash_algo));
		json_object_object_add(x, "key", json_text(s->key));
		json_object_object_add(x, "modules", json_size(s->n_modules));
		json_object_object_add(x, "verified", json_size(s->n_verified));
		json_object_object_add(x, "foreign_key", json_size(s->n_foreign_key));
		json_object_object_add(x, "rejected", json_size(s->n_rejected));
		json_object_object_add(x, "unsupported", json_size(s->n_unsupported));
		json_object_object_add(x, "not_checked", json_size(s->n_not_checked));
		json_object_array_add(v, x);
	}
	return v;
}

static json_object *audit_json(const struct ksc_audit *a, const struct ksc_kernel *k,
			       const char *root)
{
	struct ksc_kver kv;
	char policy[32] = "";
	json_object *o = json_doc_new("audit"), *jk = json_object_new_object();
	size_t gpl, plain;

	ksc_audit_get_export_counts(a, &gpl, &plain);
	json_object_object_add(jk, "path", json_text(root));
	json_object_object_add(jk, "release", ksc_kernel_get_release(k)
			       ? json_text(ksc_kernel_get_release(k)) : NULL);
	if (ksc_kernel_get_release(k) && ksc_kver_parse(ksc_kernel_get_release(k), &kv) == 0)
		snprintf(policy, sizeof(policy), "%u.%u", kv.major, kv.minor);
	json_object_object_add(jk, "policy", policy[0] ? json_text(policy) : NULL);
	json_object_object_add(jk, "modules", json_size(ksc_kernel_get_module_count(k)));
	json_object_object_add(jk, "exports", json_size(gpl + plain));
	json_object_object_add(jk, "gpl_only", json_size(gpl));
	json_object_object_add(jk, "plain", json_size(plain));
	json_object_object_add(o, "kernel", jk);

	json_object *jr = json_object_new_array();
	for (size_t i = 0; i < ksc_audit_get_restricted_count(a); i++) {
		const struct ksc_audit_restricted *r = ksc_audit_get_restricted(a, i);
		json_object *x = json_object_new_object(), *items = json_object_new_array();
		json_object_object_add(x, "symbol", json_text(r->symbol));
		json_object_object_add(x, "owner", json_text(r->owner));
		json_object_object_add(x, "namespace", json_text(r->ns));
		json_object_object_add(x, "gpl_only", json_object_new_boolean(r->gpl_only));
		for (size_t j = 0; j < r->n_items; j++) {
			const struct ksc_audit_item *it = &r->items[j];
			json_object *y = json_object_new_object();
			json_object_object_add(y, "item", json_text(it->item));
			json_object_object_add(y, "kind", json_text(ksc_item_kind_name(it->kind)));
			json_object_object_add(y, "loader_matches", json_strings(it->loader_matches, it->n_loader_matches));
			json_object_object_add(y, "modpost_matches", json_strings(it->modpost_matches, it->n_modpost_matches));
			json_object_array_add(items, y);
		}
		json_object_object_add(x, "items", items);
		json_object_object_add(x, "users", json_strings(r->users, r->n_users));
		json_object_object_add(x, "dead", json_object_new_boolean(r->dead));
		json_object_array_add(jr, x);
	}
	json_object_object_add(o, "restricted", jr);

	json_object *jn = json_object_new_array();
	for (size_t i = 0; i < ksc_audit_get_namespace_count(a); i++) {
		const struct ksc_audit_namespace *n = ksc_audit_get_namespace(a, i);
		json_object *x = json_object_new_object();
		json_object_object_add(x, "namespace", json_text(n->ns));
		json_object_object_add(x, "exports", json_size(n->n_exports));
		json_object_object_add(x, "exporters", json_strings(n->exporters, n->n_exporters));
		json_object_object_add(x, "importers", json_strings(n->importers, n->n_importers));
		json_object_object_add(x, "unused_importers", json_strings(n->unused_importers, n->n_unused_importers));
		json_object_array_add(jn, x);
	}
	json_object_object_add(o, "namespaces", jn);
	json_object_object_add(o, "signatures", signatures_json(ksc_audit_get_signature_counts(a)));
	json_object_object_add(o, "keys", keys_json(ksc_kernel_get_keyring(k)));
	json_object_object_add(o, "signers", signers_json(a));

	json_object *jf = json_object_new_array(), *counts = json_object_new_object();
	for (size_t i = 0; i < ksc_audit_get_finding_count(a); i++) {
		const struct ksc_audit_finding *f = ksc_audit_get_finding(a, i);
		struct finding x;
		char file[256];
		finding_from_audit(&x, f, file, sizeof(file));
		json_object_array_add(jf, finding_json(&x));
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
		printf("%s%s", i ? "," : "", text_esc(v[i]));
}

/* The signature summary line, the keys and the signers. */
static void signatures_text(const struct ksc_audit *a, const struct ksc_kernel *k)
{
	const struct ksc_audit_sig_counts *c = ksc_audit_get_signature_counts(a);
	const struct ksc_keyring *kr = ksc_kernel_get_keyring(k);

	printf("signatures: %zu modules: %zu signed (%zu verified, %zu foreign key, %zu rejected, %zu unsupported, %zu not checked), %zu unsigned; ",
	       c->n_modules, c->n_signed, c->n_verified, c->n_foreign_key, c->n_rejected,
	       c->n_unsupported, c->n_not_checked, c->n_unsigned);
	if (c->n_keys)
		printf("%zu key%s\n", c->n_keys, c->n_keys == 1 ? "" : "s");
	else
		printf("keys not checked: no certificate given (--cert) and none in the kernel image%s\n",
		       c->module_sig == 1 ? ""
		       : c->module_sig == 0 ? "; unsigned modules not flagged: CONFIG_MODULE_SIG is not set"
		       : "; unsigned modules not flagged: no kernel configuration");
	for (size_t i = 0; c->n_keys && kr && i < ksc_keyring_get_count(kr); i++) {
		const struct ksc_key *key = ksc_keyring_get_key(kr, i);
		printf("  key '%s' (serial %s, %s %u, from %s)\n",
		       key->subject ? text_esc(key->subject) : "",
		       key->serial ? text_esc(key->serial) : "-",
		       key->key_algo ? text_esc(key->key_algo) : "?", key->bits,
		       key->source ? text_esc(key->source) : "-");
	}
	if (ksc_audit_get_signer_count(a))
		printf("\nsigners (signer, key id, hash algorithm: modules, and their states)\n");
	for (size_t i = 0; i < ksc_audit_get_signer_count(a); i++) {
		const struct ksc_audit_signer *s = ksc_audit_get_signer(a, i);
		if (s->signer)
			printf("  '%s' %s %s: ", text_esc(s->signer),
			       s->key_id ? text_esc(s->key_id) : "-",
			       s->hash_algo ? text_esc(s->hash_algo) : "-");
		else
			printf("  (blocks modinfo cannot decode): ");
		printf("%zu (%zu verified, %zu foreign key, %zu rejected, %zu unsupported, %zu not checked)\n",
		       s->n_modules, s->n_verified, s->n_foreign_key, s->n_rejected,
		       s->n_unsupported, s->n_not_checked);
	}
}

/* What a list of findings has said so far: the modpost name is noted once per module. */
struct finding_run {
	const char *last; /* the module of the last finding printed */
	bool noted;
};

static void print_finding(const struct ksc_audit_finding *f, struct finding_run *run)
{
	struct finding x;
	char file[256];

	finding_from_audit(&x, f, file, sizeof(file));
	if (f->module) {
		if (f->module != run->last)
			run->noted = false;
		run->last = f->module;
		print_module_name(f->module, x.file, &run->noted);
		if (f->symbol)
			printf(": %s", text_esc(f->symbol));
	} else {
		fputs(f->symbol ? text_esc(f->symbol) : "kernel", stdout);
	}
	printf(": %s: %s [%s]\n", sev_name(f->severity), f->detail ? text_esc(f->detail) : "",
	       f->code);
}

static void audit_text(const struct ksc_audit *a, const struct ksc_kernel *k)
{
	size_t gpl, plain;

	ksc_audit_get_export_counts(a, &gpl, &plain);
	printf("kernel %s: %zu modules, %zu exports (%zu GPL-only, %zu plain), %zu module-restricted, %zu namespaces\n",
	       ksc_kernel_get_release(k) ? text_esc(ksc_kernel_get_release(k)) : "?",
	       ksc_kernel_get_module_count(k), gpl + plain, gpl, plain,
	       ksc_audit_get_restricted_count(a), ksc_audit_get_namespace_count(a));
	signatures_text(a, k);
	if (ksc_audit_get_restricted_count(a))
		printf("\nmodule-restricted exports (symbol, owner, namespace: item -> matching modules; users)\n");
	for (size_t i = 0; i < ksc_audit_get_restricted_count(a); i++) {
		const struct ksc_audit_restricted *r = ksc_audit_get_restricted(a, i);
		printf("  %s (%s%s) %s%s\n", text_esc(r->symbol), text_esc(r->owner),
		       r->gpl_only ? ", GPL-only" : "", text_esc(r->ns),
		       r->dead ? "  [dead: matches no module]" : "");
		for (size_t j = 0; j < r->n_items; j++) {
			const struct ksc_audit_item *it = &r->items[j];
			printf("    item '%s' (%s): loader ", text_esc(it->item),
			       ksc_item_kind_name(it->kind));
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
		printf("  %s: %zu; ", text_esc(n->ns), n->n_exports);
		print_list(n->exporters, n->n_exporters);
		printf("; ");
		print_list(n->importers, n->n_importers);
		printf("; ");
		print_list(n->unused_importers, n->n_unused_importers);
		putchar('\n');
	}
	if (ksc_audit_get_finding_count(a))
		putchar('\n');
	struct finding_run run = { 0 };
	for (size_t i = 0; i < ksc_audit_get_finding_count(a); i++)
		print_finding(ksc_audit_get_finding(a, i), &run);
}

/* --quiet: only the findings that make the exit status 1 (warnings and errors). */
static void audit_quiet(const struct ksc_audit *a)
{
	struct finding_run run = { 0 };

	for (size_t i = 0; i < ksc_audit_get_finding_count(a); i++) {
		const struct ksc_audit_finding *f = ksc_audit_get_finding(a, i);
		if (f->severity >= KSC_SEV_WARNING)
			print_finding(f, &run);
	}
}

struct audit_args {
	struct kernel_opts kern;
	const char *reference, *html;
	int format;
	bool quiet;
};

/* The options: KSC_EXIT_OK to go on, -1 after --help, else the status of a usage error. */
static int parse_args(struct audit_args *a, int argc, char *argv[])
{
	const struct option_set set = {
		.own = (const struct own_option[]){
			{ "reference", required_argument, &a->reference, OPT_REFERENCE },
			{ 0 },
		},
		.format = &a->format,
		.formats = 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_DOT,
		.quiet = &a->quiet,
		.html = &a->html,
		.kernel = KOPT_ROOT | KOPT_KVER | KOPT_CONFIG | KOPT_CERT,
		.help = help,
	};
	int r = parse_options("audit", argc, argv, &set, &a->kern, a);

	if (r == KSC_EXIT_OK && (argc - optind > 1 || (optind < argc && a->kern.kver)))
		r = usage_error("audit", "one KVER at most");
	return r;
}

/* The audit in the format asked for, and its HTML page. An exit status. */
static int print_audit(const struct ksc_audit *a, const struct ksc_kernel *k,
		       const struct audit_args *args, const char *root)
{
	json_object *doc = args->format != FMT_TEXT || args->html ? audit_json(a, k, root) : NULL;
	int status = KSC_EXIT_OK;

	if (args->format == FMT_JSON)
		json_doc_print(doc);
	else if (args->format == FMT_DOT)
		report_write_dot(stdout, doc, "audit"); /* write errors: caught at exit */
	else if (args->quiet)
		audit_quiet(a);
	else
		audit_text(a, k);
	if (args->html)
		status |= json_doc_html(args->html, NULL, doc, "audit");
	json_object_put(doc);
	for (size_t i = 0; i < ksc_audit_get_finding_count(a); i++)
		if (ksc_audit_get_finding(a, i)->severity >= KSC_SEV_WARNING)
			status |= KSC_EXIT_FINDINGS;
	return status;
}

/*
 * The kernel audited, with its keys: every --cert (a file without a certificate stops
 * here), then the built-in keys of its image, as check --kernel takes them. No image, or
 * one that cannot be read (logged; /boot/vmlinuz-* is often readable by root only),
 * leaves the --cert keys alone, and the summary says when there are none. An exit status.
 */
static int open_audited(struct ksc_ctx *ctx, const struct audit_args *args, const char *root,
			const char *kver, unsigned *errors, struct ksc_kernel **k)
{
	bool progress = args->format == FMT_TEXT && !args->quiet;
	struct ksc_keyring *kr = NULL;
	char *keys = NULL;
	int r = ksc_keyring_new(ctx, &kr);

	if (r >= 0)
		r = add_certs(kr, &args->kern);
	if (r >= 0)
		r = open_root_kernel(ctx, root, kver, progress, k);
	if (r >= 0) {
		*errors += ksc_kernel_get_error_count(*k);
		if (args->kern.config)
			r = ksc_kernel_read_config(*k, args->kern.config);
	}
	if (r >= 0) {
		keys = keys_cache_path(root, kver ? kver : ksc_kernel_get_release(*k));
		if (ksc_keyring_add_kernel_cached(kr, root, kver, keys) == -ENOMEM)
			r = -ENOMEM;
		else
			ksc_kernel_set_keyring(*k, kr);
	}
	free(keys);
	ksc_keyring_unref(kr);
	return r < 0 ? KSC_EXIT_UNREADABLE : KSC_EXIT_OK;
}

int cmd_audit(struct ksc_ctx *ctx, int argc, char *argv[])
{
	struct audit_args args = { .format = FMT_TEXT };
	struct ksc_kernel *k = NULL, *ref = NULL;
	struct ksc_audit *a = NULL;
	unsigned errors = 0;
	int status = parse_args(&args, argc, argv);

	if (status != KSC_EXIT_OK)
		goto out;
	const char *root = args.kern.root ? args.kern.root : "/";
	const char *kver = optind < argc ? argv[optind] : args.kern.kver;
	status = open_audited(ctx, &args, root, kver, &errors, &k);
	if (status == KSC_EXIT_OK && args.reference) {
		bool progress = args.format == FMT_TEXT && !args.quiet;
		if (open_root_kernel(ctx, args.reference, kver, progress, &ref) < 0)
			status = KSC_EXIT_UNREADABLE;
		else
			errors += ksc_kernel_get_error_count(ref);
	}
	struct ksc_audit_opts o = { .sz = sizeof(o), .reference = ref };
	if (status == KSC_EXIT_OK && ksc_audit_kernel(k, &o, &a) < 0) {
		print_error("audit: out of memory");
		status = KSC_EXIT_UNREADABLE;
	}
	if (status == KSC_EXIT_OK)
		status = print_audit(a, k, &args, root);
	if (errors)
		status |= KSC_EXIT_UNREADABLE;
out:
	ksc_audit_free(a);
	ksc_kernel_unref(ref);
	ksc_kernel_unref(k);
	kernel_opts_free(&args.kern);
	return status < 0 ? KSC_EXIT_OK : status;
}
