// SPDX-License-Identifier: GPL-2.0-or-later
/* ksymcheck check: would the loader and modpost let these modules use what they import? */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/array.h"
#include "util/hash.h"
#include "util/macro.h"
#include "tools/ksc-tool.h"
#include "tools/text.h"

static const char *const help =
	"Usage: ksymcheck check [OPTIONS] MODULE...\n\n"
	"Decide every import of each MODULE as the chosen kernel would: what the loader does at\n"
	"insmod time (modules are loaded into one boot as modprobe would: each after the ones\n"
	"given whose exports it uses) and what modpost says at build time. One finding per\n"
	"line: MODULE: SYMBOL: VIEW: VERDICT [code].\n\n"
	"The kernel checked against (default: this machine's, as -k /):\n"
	"  -k, --kernel ROOT      a root holding lib/modules/KVER, with the kernel's exports\n"
	"                         from boot/vmlinux-KVER, Module.symvers or boot/vmlinuz-KVER,\n"
	"                         and boot/config-KVER\n"
	KOPT_HELP_FILES
	"      --config FILE      the kernel's .config (modversions, signatures, ...)\n"
	"      --distro NAME      the kernel's distribution patches: debian or upstream\n"
	"                         (default: recognised from ROOT, else upstream)\n"
	"      --cert FILE        a certificate the kernel trusts for module signatures (PEM\n"
	"                         or DER; or a kernel image: its built-in keys); repeatable.\n"
	"                         With --kernel or --vmlinux the image's built-in keys are\n"
	"                         used too. Without any key a well-formed signature is\n"
	"                         assumed valid\n\n"
	"Rules:\n"
	"  -p, --policy KVER      apply the rules of this kernel version (6.1, 6.6.y, 6.12.y,\n"
	"                         6.16, 6.17, 6.18, 7.0, 7.1, 7.2, 7.3, ...); default: the\n"
	"                         kernel's release, else the modules' vermagic (the summary\n"
	"                         says which)\n"
	"      --require-intree   the proposed rule: module-restricted exports only for in-tree\n"
	"                         modules (R25, R40): the loader wants intree in .modinfo,\n"
	"                         modpost an in-tree build\n"
	"      --external-build   modpost: the modules are built with make M=dir (default)\n"
	"      --in-tree-build    modpost: the modules are built in the kernel tree\n"
	"  -N, --allow-missing-ns as CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y (modpost -N)\n"
	"      --view VIEW        loader, modpost or both (default)\n"
	"      --insmod           loader: only vmlinux and the modules given are loaded, in the\n"
	"                         order given (plain insmod); default: as modprobe, the\n"
	"                         modules given in dependency order, and the tree's modules\n"
	"                         provide too\n\n"
	"Output:\n"
	"  -f, --format FMT       text (default), json, sarif (SARIF 2.1.0, for CI), or kernel\n"
	"                         (exactly what dmesg and modpost would print, and insmod's\n"
	"                         error line with the errno)\n"
	"      --json             the same as --format json\n"
	"  -q, --quiet            text: only the refusals, no warnings, notes or summary\n"
	"  -v, --verbose          add each finding's explanation and fix, and notes\n"
	"  -h, --help             show this help and exit\n\n"
	"Where depmod's modules.dep and modules.symbols (their .bin files first, as modprobe)\n"
	"are current, a kernel root gives only what the verdicts need: their providers, the files\n"
	"of their names, the files outside kernel/ (KSYMCHECK_NO_DEPMOD=1: not so); else it\n"
	"is read whole. Each file comes from the index 'tree' keeps when it read that very\n"
	"file, and what is read is kept in it (KSYMCHECK_NO_INDEX=1: none); so does a MODULE\n"
	"that is one of ROOT's installed modules, by any path. The output is the\n"
	"same every way; a progress bar\n"
	"on standard error while a tree is read whole, when it is a terminal (text format,\n"
	"not --quiet). With no in-tree module in it (only the headers installed, perhaps\n"
	"DKMS modules), the in-tree modules' exports come from the headers' Module.symvers,\n"
	"by name.\n\n"
	"Exit status: 0 all would load, 1 some would be refused, 2 usage error,\n"
	"4 some inputs unreadable (the others were checked); 1 and 4 add up.\n";

enum { OPT_INSMOD = 256 };

struct check_args {
	struct kernel_opts kern; /* build: KSC_BUILD_AUTO when not given (a module file is an
				  * M= build) */
	bool quiet, verbose, insmod_only;
	int format;
};

static const char *sev_word(enum ksc_severity s)
{
	return s == KSC_SEV_ERROR ? "refused" : s == KSC_SEV_WARNING ? "warning" : "note";
}

/* '\n'-separated lines, each escaped and after a prefix. */
static void print_lines(const char *prefix, const char *p)
{
	while (p && *p) {
		size_t l = strcspn(p, "\n");
		char *line = strndup(p, l);
		printf("%s%s\n", prefix, text_esc(line ? line : ""));
		free(line);
		p += l + (p[l] == '\n');
	}
}

/* quiet: only the refusals, no summary. */
/*
 * The summary line: the views run, and which rules were applied and where they came
 * from (the kernel's release, --policy, or only the modules' vermagic).
 */
static void print_summary(const struct ksc_report *rep, unsigned views, const char *rules_from,
			  const char *build)
{
	size_t nmods = ksc_report_get_module_count(rep);
	unsigned loads = 0, refused = 0, passes = 0, fails = 0;

	for (size_t m = 0; m < nmods; m++) {
		const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, m);
		if (v->loader_err)
			refused++;
		else
			loads++;
		if (v->modpost_ok)
			passes++;
		else
			fails++;
	}
	printf("%zu module%s checked (rules of %s, from %s%s%s):", nmods, nmods == 1 ? "" : "s",
	       ksc_report_get_policy(rep), rules_from, build ? "; " : "", build ? build : "");
	if (views & KSC_VIEW_LOADER)
		printf(" loader: %u would load, %u refused%s", loads, refused,
		       views & KSC_VIEW_MODPOST ? ";" : "");
	if (views & KSC_VIEW_MODPOST)
		printf(" modpost: %u pass, %u fail", passes, fails);
	putchar('\n');
}

/* The verdicts in the order the loader took the modules (load_index); NULL: as given. */
static size_t *load_order(const struct ksc_report *rep)
{
	size_t n = ksc_report_get_module_count(rep);
	size_t *o = calloc(n ? n : 1, sizeof(*o));
	bool *seen = calloc(n ? n : 1, sizeof(*seen));

	for (size_t m = 0; o && seen && m < n; m++) {
		size_t at = ksc_report_get_verdict(rep, m)->load_index;
		if (at >= n || seen[at])
			goto as_given;
		seen[at] = true;
		o[at] = m;
	}
	free(seen);
	return o;
as_given:
	free(o);
	free(seen);
	return NULL;
}

#define AT(order, i) ((order) ? (order)[i] : (i))

/*
 * -v: a note said alike (code, symbol, summary) for several modules, such as the out-of-tree
 * taint or a signature by a key the kernel lacks on every module of a DKMS package, is
 * printed once, for the first module, with the others named.
 */
struct note_group {
	char *key;
	size_t first;     /* the diag printed */
	char *others;     /* ", "-separated module names, or NULL */
};

struct notes {
	struct hash index; /* key -> group + 1 */
	struct note_group *g;
	size_t n, cap;
};

static char *note_key(const struct ksc_diag *d)
{
	char *k;

	return asprintf(&k, "%s\037%s\037%s", d->code, d->symbol ? d->symbol : "",
			d->summary ? d->summary : "") < 0 ? NULL : k;
}

/* Append ", name" (or "name") to *list. */
static int list_add(char **list, const char *name)
{
	char *n;

	if (asprintf(&n, "%s%s%s", *list ? *list : "", *list ? ", " : "", name) < 0)
		return -ENOMEM;
	free(*list);
	*list = n;
	return 0;
}

/* Group the notes of the modules, in load order: -ENOMEM, or 0. */
static int group_notes(struct notes *ns, const struct ksc_report *rep, const size_t *order)
{
	for (size_t o = 0; o < ksc_report_get_module_count(rep); o++) {
		const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, AT(order, o));
		for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
			const struct ksc_diag *d = ksc_report_get_diag(rep, i);
			if (d->severity != KSC_SEV_INFO)
				continue;
			char *key = note_key(d);
			if (!key)
				return -ENOMEM;
			size_t at = (size_t)(uintptr_t)hash_find(&ns->index, key);
			if (at) {
				free(key);
				if (list_add(&ns->g[at - 1].others, v->loader_name) < 0)
					return -ENOMEM;
				continue;
			}
			if (array_push(ns->g, ns->n, ns->cap, (struct note_group){ key, i, NULL }) < 0) {
				free(key);
				return -ENOMEM;
			}
			if (hash_add(&ns->index, key, (void *)(uintptr_t)ns->n, 0) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static void notes_free(struct notes *ns)
{
	for (size_t i = 0; i < ns->n; i++) {
		free(ns->g[i].key);
		free(ns->g[i].others);
	}
	array_free(ns->g, ns->n, ns->cap);
	hash_fini(&ns->index);
}

/* The group of note `i` when it is printed there; NULL when said for an earlier module. */
static const struct note_group *note_here(const struct notes *ns, const struct ksc_diag *d,
					  size_t i, bool *skip)
{
	char *key = note_key(d);
	size_t at = key ? (size_t)(uintptr_t)hash_find(&ns->index, key) : 0;

	free(key);
	*skip = at && ns->g[at - 1].first != i;
	return at && !*skip ? &ns->g[at - 1] : NULL;
}

/*
 * dep-*: the symbols a module does not get from one module given with it, said once per
 * module, code and exporter: how many there are, and (-v) which.
 */
static bool same_dep(const struct ksc_diag *a, const struct ksc_diag *b)
{
	return strcmp(a->code, b->code) == 0 && a->owner && b->owner &&
	       strcmp(a->owner, b->owner) == 0;
}

static bool is_dep(const struct ksc_diag *d)
{
	return strncmp(d->code, "dep-", 4) == 0 && d->owner;
}

/* Findings [i, end) of the module alike to d (same_dep) before i: whether d is a repeat. */
static bool dep_repeat(const struct ksc_report *rep, size_t first, size_t i)
{
	const struct ksc_diag *d = ksc_report_get_diag(rep, i);

	for (size_t j = first; j < i; j++)
		if (same_dep(ksc_report_get_diag(rep, j), d))
			return true;
	return false;
}

/* One finding's line, and with -v its kernel lines, explanation and fix. */
static void print_diag(const struct ksc_report *rep, const struct ksc_module_verdict *v, size_t i,
		       bool verbose, bool *noted, const char *others)
{
	const struct ksc_diag *d = ksc_report_get_diag(rep, i);
	size_t end = v->first_diag + v->n_diags, n_alike = 1;

	if (is_dep(d))
		for (size_t j = i + 1; j < end; j++)
			n_alike += same_dep(ksc_report_get_diag(rep, j), d);
	print_module_name(v->loader_name, v->modpost_name, noted);
	fputs(": ", stdout);
	if (n_alike > 1)
		printf("%zu symbols: ", n_alike);
	else if (d->symbol)
		printf("%s: ", text_esc(d->symbol));
	printf("%s: %s: %s [%s]\n", view_word(d->view), sev_word(d->severity),
	       text_esc(d->summary ? d->summary : d->code), d->code);
	if (!verbose)
		return;
	if (n_alike > 1) {
		fputs("    symbols:", stdout);
		for (size_t j = i; j < end; j++)
			if (same_dep(ksc_report_get_diag(rep, j), d))
				printf(" %s", text_esc(ksc_report_get_diag(rep, j)->symbol));
		putchar('\n');
	}
	for (size_t j = i; j < end; j++) {
		const struct ksc_diag *e = ksc_report_get_diag(rep, j);
		if (j == i || (n_alike > 1 && same_dep(e, d)))
			print_lines("    kernel: ", e->kernel_lines);
	}
	if (d->explanation)
		printf("    why: %s (%s)\n", text_esc(d->explanation), d->rule);
	if (d->fix)
		printf("    fix: %s\n", text_esc(d->fix));
	if (others)
		printf("    also: %s\n", text_esc(others));
}

static void print_text(const struct ksc_report *rep, bool verbose, bool quiet, unsigned views,
		       const char *rules_from, const char *build)
{
	size_t nmods = ksc_report_get_module_count(rep);
	size_t *order = load_order(rep);
	struct notes ns = { 0 };
	bool group = verbose && !quiet && group_notes(&ns, rep, order) == 0;

	for (size_t o = 0; o < nmods; o++) {
		const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, AT(order, o));
		bool noted = false;
		for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
			const struct ksc_diag *d = ksc_report_get_diag(rep, i);
			const struct note_group *g = NULL;
			bool skip = false;
			if ((d->severity == KSC_SEV_INFO && !verbose) ||
			    (quiet && d->severity != KSC_SEV_ERROR))
				continue;
			if (is_dep(d) && dep_repeat(rep, v->first_diag, i))
				continue;
			if (group && d->severity == KSC_SEV_INFO)
				g = note_here(&ns, d, i, &skip);
			if (!skip)
				print_diag(rep, v, i, verbose, &noted, g ? g->others : NULL);
		}
	}
	notes_free(&ns);
	free(order);
	if (!quiet)
		print_summary(rep, views, rules_from, build);
}

/*
 * How modpost sees the modules built (R40), for the summary: said when it matters (the
 * in-tree-only rule) or was chosen.
 */
static const char *build_words(const struct kernel_opts *a)
{
	if (!(a->views & KSC_VIEW_MODPOST) || (!a->require_intree && !a->build))
		return NULL;
	if (a->build == KSC_BUILD_INTREE)
		return "modpost: built in the kernel tree, --in-tree-build";
	return a->build ? "modpost: built with make M=, --external-build"
			: "modpost: built with make M=, as a module file is by default";
}

/* kmod's insmod (tools/insmod.c mod_strerror()): its words for the loader's errno. */
static const char *insmod_strerror(int err)
{
	switch (-err) {
	case ENOEXEC: return "Invalid module format";
	case ENOENT: return "Unknown symbol in module";
	case ESRCH: return "Module has wrong symbol version";
	case EINVAL: return "Invalid parameters";
	}
	return strerror(-err);
}

/*
 * Exactly what the kernel prints: per module, in load order, the dmesg lines, then for a
 * refused module the line kmod's insmod prints with the errno; then modpost's lines.
 */
static void print_kernel(const struct ksc_report *rep, unsigned views)
{
	size_t *order = load_order(rep);

	if (views & KSC_VIEW_LOADER) {
		for (size_t m = 0; m < ksc_report_get_module_count(rep); m++) {
			const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, AT(order, m));
			for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
				const struct ksc_diag *d = ksc_report_get_diag(rep, i);
				if (d->view == KSC_VIEW_LOADER)
					print_lines("", d->kernel_lines);
			}
			if (v->loader_err)
				printf("insmod: ERROR: could not insert module %s: %s\n",
				       text_esc(ksc_module_get_path(v->module)),
				       insmod_strerror(v->loader_err));
		}
	}
	if (views & KSC_VIEW_MODPOST) {
		for (size_t m = 0; m < ksc_report_get_module_count(rep); m++) {
			const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, m);
			for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
				const struct ksc_diag *d = ksc_report_get_diag(rep, i);
				if (d->view == KSC_VIEW_MODPOST)
					print_lines("", d->kernel_lines);
			}
		}
	}
	free(order);
}

/* Each view's "kernel_lines": what the kernel prints for the module. */
static void add_kernel_lines(json_object *o, const struct ksc_report *rep,
			     const struct ksc_module_verdict *v, enum ksc_view view)
{
	json_object *x, *lines = json_object_new_array();

	for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
		const struct ksc_diag *d = ksc_report_get_diag(rep, i);
		if (d->view == view)
			json_add_lines(lines, d->kernel_lines);
	}
	if (json_object_object_get_ex(o, view_word(view), &x))
		json_object_object_add(x, "kernel_lines", lines);
	else
		json_object_put(lines);
}

static void print_json(const struct ksc_report *rep, unsigned views)
{
	json_object *root = json_doc_new("check"), *mods = json_object_new_array();

	json_object_object_add(root, "policy", json_text(ksc_report_get_policy(rep)));
	for (size_t m = 0; m < ksc_report_get_module_count(rep); m++) {
		const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, m);
		const char *path = ksc_module_get_path(v->module);
		json_object *o = verdict_json(v, path, views), *fs = json_object_new_array();
		struct finding f;
		add_kernel_lines(o, rep, v, KSC_VIEW_LOADER);
		add_kernel_lines(o, rep, v, KSC_VIEW_MODPOST);
		for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
			finding_from_diag(&f, ksc_report_get_diag(rep, i), v, path);
			json_object_array_add(fs, finding_json(&f));
		}
		json_object_object_add(o, "findings", fs);
		json_object_array_add(mods, o);
	}
	json_object_object_add(root, "modules", mods);
	json_doc_print(root);
	json_object_put(root);
}

static int print_sarif(const struct ksc_report *rep)
{
	struct sarif *s = sarif_new();

	if (!s)
		return -ENOMEM;
	for (size_t m = 0; m < ksc_report_get_module_count(rep); m++) {
		const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, m);
		for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
			struct finding f;
			finding_from_diag(&f, ksc_report_get_diag(rep, i), v,
					  ksc_module_get_path(v->module));
			if (sarif_add(s, &f) < 0) {
				sarif_free(s);
				return -ENOMEM;
			}
		}
	}
	sarif_print(s);
	return 0;
}

/* The options: KSC_EXIT_OK to go on, -1 after --help, else the status of a usage error. */
static int parse_args(struct check_args *a, int argc, char *argv[])
{
	const struct option_set set = {
		.own = (const struct own_option[]){
			{ "insmod", no_argument, &a->insmod_only, OPT_INSMOD },
			{ 0 },
		},
		.format = &a->format,
		.formats = 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_KERNEL | 1u << FMT_SARIF,
		.quiet = &a->quiet,
		.verbose = &a->verbose,
		.kernel = KOPT_ROOT | KOPT_KVER | KOPT_SYMVERS | KOPT_VMLINUX | KOPT_MODULES |
			  KOPT_CONFIG | KOPT_CERT | KOPT_POLICY | KOPT_REQUIRE_INTREE |
			  KOPT_MISSING_NS | KOPT_MISSING_NS_N | KOPT_BUILD | KOPT_VIEW | KOPT_DISTRO,
		.help = help,
	};
	int r = parse_options("check", argc, argv, &set, &a->kern, a);

	return r != KSC_EXIT_OK ? r : modules_and_kernel("check", argc, &a->kern);
}

/*
 * The keys the kernel trusts, when a module is signed or --cert is given: the --cert
 * files, and for a signed module the built-in keys of the kernel's image (reading a
 * compressed image costs a second or two). *kr stays NULL when none is needed.
 */
static int open_keys(struct ksc_ctx *ctx, const struct kernel_opts *k, bool any_signed,
		     struct ksc_keyring **kr)
{
	int r;

	*kr = NULL;
	if (!k->n_certs && !any_signed)
		return 0;
	r = ksc_keyring_new(ctx, kr);
	return r < 0 ? r : add_certs(*kr, k);
}

/* A signed module and a kernel root without --vmlinux: the image's keys, as cached. */
static int add_root_keys(struct ksc_keyring *kr, const struct kernel_opts *o,
			 const struct ksc_kernel *k)
{
	const char *kver = o->kver ? o->kver : ksc_kernel_get_release(k);
	_cleanup_free_ char *keys = keys_cache_path(o->root, kver);

	return ksc_keyring_add_kernel_cached(kr, o->root, kver, keys);
}

/*
 * Without --policy and a release, the rules come from the modules' vermagic (its first
 * word), and the summary says so. Returns where the rules come from.
 */
static const char *rules_from(struct ksc_kernel *k, const struct module_list *c,
			      const char *policy)
{
	char release[128] = "";

	if (policy)
		return "--policy";
	if (ksc_kernel_get_release(k))
		return "the kernel's release";
	for (size_t i = 0; i < c->n && !release[0]; i++) {
		const char *vm = ksc_module_get_vermagic(c->mods[i]);
		if (vm)
			ksc_release_from_vermagic(vm, release, sizeof(release));
	}
	if (release[0])
		ksc_kernel_set_release(k, release);
	return "the modules' vermagic: the kernel names no release, use --policy";
}

/* Print the report in the format asked for; the exit status of its verdicts. */
static int print_report(const struct ksc_report *rep, const struct check_args *a,
			const char *from)
{
	unsigned views = a->kern.views;
	int status = KSC_EXIT_OK;

	switch (a->format) {
	case FMT_JSON: print_json(rep, views); break;
	case FMT_KERNEL: print_kernel(rep, views); break;
	case FMT_SARIF:
		if (print_sarif(rep) < 0)
			status |= KSC_EXIT_UNREADABLE;
		break;
	default: print_text(rep, a->verbose, a->quiet, views, from, build_words(&a->kern));
	}
	for (size_t m = 0; m < ksc_report_get_module_count(rep); m++) {
		const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, m);
		if (((views & KSC_VIEW_LOADER) && v->loader_err) ||
		    ((views & KSC_VIEW_MODPOST) && !v->modpost_ok))
			status |= KSC_EXIT_FINDINGS;
	}
	return status;
}

/* Check the modules read against the kernel: the report's exit status. */
static int check_against(struct ksc_kernel *k, const struct module_list *c,
			 const struct check_args *a)
{
	const struct kernel_opts *ko = &a->kern;
	const char *from = rules_from(k, c, ko->policy);
	struct ksc_check_opts o = {
		.sz = sizeof(o),
		.policy = ko->policy,
		.require_intree = ko->require_intree,
		.allow_missing_ns = ko->allow_missing_ns ? 1 : -1,
		.views = ko->views,
		.insmod_only = a->insmod_only,
		.build = ko->build == KSC_BUILD_INTREE ? KSC_BUILD_INTREE : KSC_BUILD_EXTERNAL,
	};
	struct ksc_report *rep;
	int r = ksc_check_modules(k, c->mods, c->n, &o, &rep);

	if (r < 0) {
		if (r != -EINVAL)
			print_error("check: %s", strerror(-r));
		return r == -EINVAL ? KSC_EXIT_USAGE : KSC_EXIT_UNREADABLE;
	}
	int status = print_report(rep, a, from);
	ksc_report_unref(rep);
	return status;
}

int cmd_check(struct ksc_ctx *ctx, int argc, char *argv[])
{
	struct check_args a = { .format = FMT_TEXT };
	struct module_list c = { .ctx = ctx };
	struct ksc_kernel *k = NULL;
	struct ksc_keyring *kr = NULL;
	bool any_signed = false;
	int r, status = parse_args(&a, argc, argv);

	if (status != KSC_EXIT_OK)
		goto out;
	a.kern.progress = !a.quiet && a.format == FMT_TEXT;
	/* -k ROOT: its installed modules and its kernel from one opening of the root */
	if (a.kern.root && open_kernel_root(ctx, &a.kern) < 0) {
		status = KSC_EXIT_UNREADABLE;
		goto out;
	}
	c.root = a.kern.kroot;
	r = walk_paths(ctx, argv + optind, argc - optind, collect_module, &c, &c.errors);
	for (size_t i = 0; i < c.n; i++)
		any_signed |= ksc_module_get_signature_size(c.mods[i]) > 0;
	if (r >= 0)
		r = open_keys(ctx, &a.kern, any_signed, &kr);
	a.kern.for_mods = c.mods;
	a.kern.n_for_mods = c.n;
	if (r >= 0)
		k = open_kernel(ctx, &a.kern, &c.errors, any_signed ? kr : NULL);
	if (!k) {
		status = KSC_EXIT_UNREADABLE;
		goto out;
	}
	if (a.kern.distro)
		ksc_kernel_set_quirks(k, distro_quirks(a.kern.distro));
	if (any_signed && a.kern.root && !a.kern.vmlinux &&
	    add_root_keys(kr, &a.kern, k) == -ENOMEM) {
		status = KSC_EXIT_UNREADABLE;
		goto out;
	}
	ksc_kernel_set_keyring(k, kr);
	if (c.n)
		status = check_against(k, &c, &a);
	if (c.errors && status != KSC_EXIT_USAGE)
		status |= KSC_EXIT_UNREADABLE;
out:
	release_kernel(k);
	ksc_keyring_unref(kr);
	ksc_kernel_root_free(a.kern.kroot);
	module_list_free(&c);
	kernel_opts_free(&a.kern);
	return status < 0 ? KSC_EXIT_OK : status;
}
