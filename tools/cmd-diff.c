// SPDX-License-Identifier: GPL-2.0-or-later
/* ksymcheck diff: what changed between two kernels, and what that does to given modules. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/macro.h"
#include "tools/ksc-tool.h"
#include "tools/report.h"
#include "util/fileio.h"
#include "tools/text.h"

static const char *const help =
	"Usage: ksymcheck diff [OPTIONS] OLD NEW [MODULE...]\n\n"
	"Compare the exports of two kernels: symbols removed and added, made GPL-only, moved\n"
	"into, out of or between namespaces, made module-restricted (6.16+), with a new CRC, or\n"
	"provided by another module. OLD and NEW are each a kernel root (ROOT/lib/modules/KVER,\n"
	"one release), a ROOT/lib/modules/KVER directory, a Module.symvers, or a vmlinux/bzImage;\n"
	"a file may be a pipe ('<(zcat Module.symvers.gz)'), read once, up to 256 MiB.\n"
	"With MODULEs, only what changes their verdicts is shown: each import checked against\n"
	"both kernels (loader and modpost), with the rule and the fix.\n\n"
	"Options:\n"
	"      --policy-old KVER  rules for OLD (default: its release, or the modules' vermagic)\n"
	"      --policy-new KVER  rules for NEW\n"
	"  -f, --format FMT       text (default), json, or dot: the graph for Graphviz (each\n"
	"                         changed symbol between its OLD and NEW exporter; with\n"
	"                         MODULEs, export change, symbol, module whose verdict changes)\n"
	"      --json             the same as --format json\n"
	"      --html FILE        also write the report as one self-contained HTML page\n"
	"                         (sortable, filterable tables and the graph; no network)\n"
	"      --view VIEW        loader, modpost or both (default): with MODULEs, the\n"
	"                         verdicts compared and printed\n"
	"  -q, --quiet            text: only the changes, no counts; with MODULEs, only the\n"
	"                         verdicts of the modules that would break on NEW\n"
	"  -v, --verbose          explanations and fixes\n"
	"  -h, --help             show this help and exit\n\n"
	"A kernel root is read through the index 'tree' keeps (KSYMCHECK_NO_INDEX=1: read\n"
	"whole; the same output), with a progress bar on standard error when it is a\n"
	"terminal (text format, not --quiet).\n\n"
	"Exit status: 0 no change (or no module breaks), 1 changes (or some module that\n"
	"loaded on OLD would be refused on NEW), 2 usage error, 4 unreadable input.\n";

enum { OPT_POLICY_OLD = 256, OPT_POLICY_NEW };
static void describe(const struct ksc_change *c, char *buf, size_t size)
{
	const struct ksc_export *o = c->old, *n = c->new;

	switch (c->kind) {
	case KSC_CHANGE_REMOVED:
		snprintf(buf, size, "was exported by %s", c->old_owner);
		break;
	case KSC_CHANGE_ADDED:
		snprintf(buf, size, "exported by %s%s%s%s", c->new_owner, n->gpl_only ? ", GPL-only" : "",
			 n->ns[0] ? ", namespace " : "", n->ns);
		break;
	case KSC_CHANGE_BECAME_GPL_ONLY:
		snprintf(buf, size, "EXPORT_SYMBOL -> EXPORT_SYMBOL_GPL");
		break;
	case KSC_CHANGE_NO_LONGER_GPL_ONLY:
		snprintf(buf, size, "EXPORT_SYMBOL_GPL -> EXPORT_SYMBOL");
		break;
	case KSC_CHANGE_CRC:
		snprintf(buf, size, "0x%08x -> 0x%08x", o->crc, n->crc);
		break;
	case KSC_CHANGE_OWNER:
		snprintf(buf, size, "%s -> %s", c->old_owner, c->new_owner);
		break;
	default:
		snprintf(buf, size, "\"%s\" -> \"%s\"", o->ns, n->ns);
	}
}

/* One side of an export change: who exports it and how, or null when absent. */
static json_object *export_json(const struct ksc_export *e, const char *owner)
{
	json_object *o;

	if (!e)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "owner", json_text(owner));
	json_object_object_add(o, "gpl_only", json_object_new_boolean(e->gpl_only));
	json_object_object_add(o, "namespace", json_text(e->ns));
	json_object_object_add(o, "crc", json_crc(e->has_crc, e->crc));
	return o;
}

/* One change of one symbol: its kind, the export on each side, and in words. */
static json_object *export_change_json(const struct ksc_change *ch, const char *what)
{
	json_object *x = json_object_new_object();

	json_object_object_add(x, "symbol", json_text(ch->symbol));
	json_object_object_add(x, "kind", json_text(ksc_change_kind_name(ch->kind)));
	json_object_object_add(x, "summary", json_text(what));
	json_object_object_add(x, "old", export_json(ch->old, ch->old_owner));
	json_object_object_add(x, "new", export_json(ch->new, ch->new_owner));
	return x;
}

/* The worst finding of one module for one symbol in one view. */
static const struct ksc_diag *worst(const struct ksc_report *rep, size_t m, const char *sym,
				    enum ksc_view view)
{
	const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, m);
	const struct ksc_diag *w = NULL;

	for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
		const struct ksc_diag *d = ksc_report_get_diag(rep, i);
		if (d->view != view || !d->symbol || strcmp(d->symbol, sym) != 0)
			continue;
		if (!w || d->severity > w->severity)
			w = d;
	}
	return w;
}

static const char *outcome_word(const struct ksc_diag *d)
{
	if (!d || d->severity == KSC_SEV_INFO)
		return "allowed";
	return d->severity == KSC_SEV_ERROR ? "refused" : "allowed with a warning";
}

/* The kinds of change of one symbol, comma-separated into buf, and as a JSON array. */
static json_object *kinds_of(const struct ksc_diff *df, const char *sym, char *buf, size_t size)
{
	json_object *a = json_object_new_array();

	buf[0] = '\0';
	for (size_t i = 0; i < ksc_diff_get_count(df); i++) {
		const struct ksc_change *c = ksc_diff_get(df, i);
		if (strcmp(c->symbol, sym) != 0)
			continue;
		size_t l = strlen(buf);
		snprintf(buf + l, size - l, "%s%s", l ? ", " : "", ksc_change_kind_name(c->kind));
		json_object_array_add(a, json_text(ksc_change_kind_name(c->kind)));
	}
	return a;
}

/*
 * One verdict that changed, as JSON: the finding behind it (the new kernel's, or the old
 * one's when it went away), the outcome on each side and the export changes.
 */
static json_object *change_json(const struct ksc_diag *d, const struct ksc_module_verdict *v,
				const char *path, const char *was, const char *now,
				json_object *kinds)
{
	struct finding f;
	json_object *x;

	finding_from_diag(&f, d, v, path);
	x = finding_json(&f);
	json_object_object_add(x, "old", json_text(was));
	json_object_object_add(x, "new", json_text(now));
	json_object_object_add(x, "export_changes", kinds ? kinds : json_object_new_array());
	return x;
}

/* What compare_module() needs of one module, both kernels. */
struct side_by_side {
	const struct ksc_module *mod;
	const struct ksc_report *ro, *rn;
	const struct ksc_module_verdict *vo, *vn;
	size_t m;
	const char *path;
	unsigned views; /* KSC_VIEW_x compared */
	bool verbose, text, noted;
	json_object *jc; /* the module's "changes", or NULL */
};

/* One module's verdicts on OLD and NEW, in `views`; its modpost name noted unless *noted. */
static void print_fate(const struct ksc_module_verdict *vo, const struct ksc_module_verdict *vn,
		       unsigned views, bool *noted)
{
	print_module_name(vo->loader_name, vo->modpost_name, noted);
	if (views & KSC_VIEW_LOADER)
		printf(": loader: %s -> %s", vo->loader_err ? ksc_errno_name(vo->loader_err) : "loads",
		       vn->loader_err ? ksc_errno_name(vn->loader_err) : "loads");
	if (views & KSC_VIEW_MODPOST)
		printf("%s modpost: %s -> %s", views & KSC_VIEW_LOADER ? ";" : ":",
		       vo->modpost_ok ? "pass" : "fail", vn->modpost_ok ? "pass" : "fail");
	putchar('\n');
}

/* Would the module break on NEW, in the views compared? */
static bool breaks_on_new(const struct ksc_module_verdict *vo,
			  const struct ksc_module_verdict *vn, unsigned views)
{
	return ((views & KSC_VIEW_LOADER) && !vo->loader_err && vn->loader_err) ||
	       ((views & KSC_VIEW_MODPOST) && vo->modpost_ok && !vn->modpost_ok);
}

static void print_name(struct side_by_side *c)
{
	print_module_name(c->vo->loader_name, c->vo->modpost_name, &c->noted);
	fputs(": ", stdout);
}

static void print_why(const struct side_by_side *c, const struct ksc_diag *d)
{
	if (c->verbose && d && d->explanation)
		printf("    why: %s (%s)\n", text_esc(d->explanation), d->rule);
	if (c->verbose && d && d->fix)
		printf("    fix: %s\n", text_esc(d->fix));
}

/*
 * Each import whose verdict differs between the kernels, per view. The loader's
 * verdicts only where both loads reach the imports: a load that stops before them
 * (vermagic, module_layout, signature) decides nothing about them.
 */
static void compare_imports(struct side_by_side *c, const struct ksc_diff *df)
{
	bool loader = c->vo->loader_reached_symbols && c->vn->loader_reached_symbols;

	for (size_t i = 0; i < ksc_module_get_import_count(c->mod); i++) {
		const char *sym = ksc_module_get_import(c->mod, i)->name;
		for (unsigned view = loader ? KSC_VIEW_LOADER : KSC_VIEW_MODPOST;
		     view <= KSC_VIEW_MODPOST; view <<= 1) {
			if (!(c->views & view))
				continue;
			const struct ksc_diag *a = worst(c->ro, c->m, sym, view);
			const struct ksc_diag *b = worst(c->rn, c->m, sym, view);
			const char *ca = a ? a->code : "", *cb = b ? b->code : "";
			int sa = a ? (int)a->severity : -1, sb = b ? (int)b->severity : -1;
			if (sa == sb && strcmp(ca, cb) == 0)
				continue;
			if (sa <= KSC_SEV_INFO && sb <= KSC_SEV_INFO)
				continue;
			char kinds[256];
			json_object *jk = kinds_of(df, sym, kinds, sizeof(kinds));
			if (c->jc) {
				const struct ksc_diag *d = b && sb > KSC_SEV_INFO ? b : a ? a : b;
				json_object_array_add(c->jc, change_json(d, c->vn, c->path,
									 outcome_word(a),
									 outcome_word(b), jk));
			} else {
				json_object_put(jk);
			}
			if (!c->text)
				continue;
			print_name(c);
			printf("%s: %s: %s -> %s", text_esc(sym), view_word(view), outcome_word(a),
			       outcome_word(b));
			if (b && b->severity > KSC_SEV_INFO)
				printf(": %s [%s]", text_esc(b->summary ? b->summary : b->code),
				       b->code);
			else if (a)
				printf(" (was: %s [%s])",
				       text_esc(a->summary ? a->summary : a->code), a->code);
			printf(" (%s)\n", kinds[0] ? kinds : "no export change: another symbol or rule");
			print_why(c, b);
		}
	}
}

/* Module-level findings (module_layout, vermagic, imports of module namespaces...). */
static void compare_module_level(struct side_by_side *c)
{
	for (int side = 0; side < 2; side++) {
		const struct ksc_report *here = side ? c->rn : c->ro, *there = side ? c->ro : c->rn;
		const struct ksc_module_verdict *v = side ? c->vn : c->vo;
		const struct ksc_module_verdict *w = side ? c->vo : c->vn;
		for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
			const struct ksc_diag *d = ksc_report_get_diag(here, i);
			bool in_other = false;
			/* Per-import findings were compared above; the rest here. */
			if ((d->symbol && ksc_module_find_import(c->mod, d->symbol)) ||
			    d->severity < KSC_SEV_WARNING || !(c->views & d->view))
				continue;
			for (size_t j = w->first_diag; j < w->first_diag + w->n_diags; j++) {
				const struct ksc_diag *e = ksc_report_get_diag(there, j);
				if (e->view == d->view && strcmp(e->code, d->code) == 0)
					in_other = true;
			}
			if (in_other)
				continue;
			if (c->jc)
				json_object_array_add(c->jc, change_json(d, v, c->path,
						      side ? "allowed" : outcome_word(d),
						      side ? outcome_word(d) : "allowed", NULL));
			if (!c->text)
				continue;
			print_name(c);
			if (side) {
				if (d->symbol)
					printf("%s: ", text_esc(d->symbol));
				printf("%s: %s [%s]\n", view_word(d->view),
				       text_esc(d->summary ? d->summary : d->code), d->code);
				print_why(c, d);
			} else {
				printf("%s: no longer: %s [%s]\n", view_word(d->view),
				       text_esc(d->summary ? d->summary : d->code), d->code);
			}
		}
	}
}

static void compare_module(const struct ksc_module *mod, const struct ksc_report *ro,
			   const struct ksc_report *rn, size_t m, const struct ksc_diff *df,
			   unsigned views, bool verbose, bool text, json_object *jmods,
			   unsigned *breaks)
{
	struct side_by_side c = {
		.mod = mod, .ro = ro, .rn = rn, .m = m, .path = ksc_module_get_path(mod),
		.vo = ksc_report_get_verdict(ro, m), .vn = ksc_report_get_verdict(rn, m),
		.views = views, .verbose = verbose, .text = text,
		.jc = jmods ? json_object_new_array() : NULL,
	};
	const struct ksc_module_verdict *vo = c.vo, *vn = c.vn;

	compare_imports(&c, df);
	if (text && (views & KSC_VIEW_LOADER) &&
	    vo->loader_reached_symbols != vn->loader_reached_symbols) {
		print_name(&c);
		fputs(vn->loader_reached_symbols
			      ? "loader: the imports are reached on NEW (the load stopped before them on OLD)\n"
			      : "loader: the imports are not reached on NEW: the load stops before them\n",
		      stdout);
	}
	compare_module_level(&c);
	bool broke = breaks_on_new(vo, vn, views);
	if (broke)
		(*breaks)++;
	if (jmods) {
		json_object *jm = json_object_new_object();
		json_object_object_add(jm, "module", json_text(vo->loader_name));
		const char *file = modpost_if_differs(vo->loader_name, vo->modpost_name);
		json_object_object_add(jm, "file", json_text(file));
		json_object_object_add(jm, "path", json_text(c.path));
		json_object_object_add(jm, "loader_errno_old", json_object_new_int(vo->loader_err));
		json_object_object_add(jm, "loader_errno_new", json_object_new_int(vn->loader_err));
		json_object_object_add(jm, "loader_reached_old",
				       json_object_new_boolean(vo->loader_reached_symbols));
		json_object_object_add(jm, "loader_reached_new",
				       json_object_new_boolean(vn->loader_reached_symbols));
		json_object_object_add(jm, "modpost_ok_old", json_object_new_boolean(vo->modpost_ok));
		json_object_object_add(jm, "modpost_ok_new", json_object_new_boolean(vn->modpost_ok));
		json_object_object_add(jm, "breaks", json_object_new_boolean(broke));
		json_object_object_add(jm, "changes", c.jc);
		json_object_array_add(jmods, jm);
	}
	if (text)
		print_fate(vo, vn, views, &c.noted);
}

static json_object *tristate_json(int v)
{
	return v < 0 ? NULL : json_object_new_boolean(v);
}

/*
 * Whether each loader checks CRCs: when that changes, one line says so (the CRCs of
 * a kernel without modversions are 0, and are not compared symbol by symbol).
 */
static void print_modversions(const struct ksc_kernel *ko, const struct ksc_kernel *kn,
			      bool text, json_object *root)
{
	int mo = ksc_kernel_has_modversions(ko), mn = ksc_kernel_has_modversions(kn);
	static const char *const word[] = { "off", "on" };

	if (root) {
		json_object *j = json_object_new_object();
		json_object_object_add(j, "old", tristate_json(mo));
		json_object_object_add(j, "new", tristate_json(mn));
		json_object_object_add(root, "modversions", j);
	}
	if (text && mo >= 0 && mn >= 0 && mo != mn)
		printf("modversions: %s -> %s (CRCs not compared)\n", word[mo], word[mn]);
}

/* The rules for one side: the option, else the kernel's release, else the modules'. */
static const char *side_policy(const char *opt, struct ksc_kernel *k, struct ksc_module **mods,
			       char *buf, size_t size)
{
	if (opt)
		return opt;
	if (ksc_kernel_get_release(k))
		return ksc_kernel_get_release(k);
	for (size_t i = 0; mods[i]; i++) {
		const char *vm = ksc_module_get_vermagic(mods[i]);
		if (vm) {
			ksc_release_from_vermagic(vm, buf, size);
			return buf;
		}
	}
	return NULL;
}

struct diff_args {
	struct kernel_opts kern; /* --view */
	const char *pold, *pnew, *html;
	int format;
	bool quiet, verbose;
};

/* The options: KSC_EXIT_OK to go on, -1 after --help, else the status of a usage error. */
static int parse_args(struct diff_args *a, int argc, char *argv[])
{
	const struct option_set set = {
		.own = (const struct own_option[]){
			{ "policy-old", required_argument, &a->pold, OPT_POLICY_OLD },
			{ "policy-new", required_argument, &a->pnew, OPT_POLICY_NEW },
			{ 0 },
		},
		.format = &a->format,
		.formats = 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_DOT,
		.quiet = &a->quiet,
		.verbose = &a->verbose,
		.html = &a->html,
		.kernel = KOPT_VIEW,
		.help = help,
	};
	int r = parse_options("diff", argc, argv, &set, &a->kern, a);

	if (r == KSC_EXIT_OK && argc - optind < 2)
		return usage_error("diff", "OLD and NEW are needed");
	return r;
}

/* The two kernels' exports compared, each change a line (or a JSON object). */
static int print_changes(const struct ksc_diff *df, bool text, json_object *root)
{
	json_object *jc = root ? json_object_new_array() : NULL;

	for (size_t i = 0; i < ksc_diff_get_count(df); i++) {
		const struct ksc_change *ch = ksc_diff_get(df, i);
		char what[512];
		describe(ch, what, sizeof(what));
		if (jc)
			json_object_array_add(jc, export_change_json(ch, what));
		if (text) {
			/* fixed columns: a longer symbol pushes only its row */
			text_cell(stdout, ksc_change_kind_name(ch->kind), 26);
			putchar(' ');
			text_cell(stdout, ch->symbol, 40);
			printf(" %s\n", text_esc(what));
		}
	}
	if (root)
		json_object_object_add(root, "changes", jc);
	return ksc_diff_get_count(df) ? KSC_EXIT_FINDINGS : KSC_EXIT_OK;
}

/* The counts per kind of change, both modes. */
static void print_counts(const struct ksc_diff *df, bool text, json_object *root)
{
	json_object *jcounts = root ? json_object_new_object() : NULL;

	if (text)
		printf("changes:");
	for (int kind = 0; kind < KSC_CHANGE_KIND_COUNT; kind++) {
		const char *name = ksc_change_kind_name((enum ksc_change_kind)kind);
		size_t n = ksc_diff_count_kind(df, (enum ksc_change_kind)kind);
		if (jcounts)
			json_object_object_add(jcounts, name, json_size(n));
		if (text)
			printf(" %s %zu%s", name, n, kind + 1 < KSC_CHANGE_KIND_COUNT ? "," : "\n");
	}
	if (root)
		json_object_object_add(root, "counts", jcounts);
}

/* What diff compares: the two kernels, their difference, the modules and their reports. */
struct diff_run {
	const struct diff_args *args;
	struct ksc_kernel *ko, *kn;
	struct ksc_diff *df;
	struct module_list col;
	struct ksc_report *ro, *rn;
	bool text;
	json_object *root; /* the JSON document, for --format json or dot and --html */
};

/* The modules checked against both kernels, and the verdicts that change. */
static int compare_modules(struct diff_run *d)
{
	const struct diff_args *a = d->args;
	struct ksc_module **mods = d->col.mods;
	size_t nmods = d->col.n;
	char bo[128], bn[128];
	struct ksc_check_opts o = { .sz = sizeof(o), .allow_missing_ns = -1,
				    .views = a->kern.views };
	unsigned breaks = 0;

	o.policy = side_policy(a->pold, d->ko, mods, bo, sizeof(bo));
	int r = ksc_check_modules(d->ko, mods, nmods, &o, &d->ro);
	o.policy = side_policy(a->pnew, d->kn, mods, bn, sizeof(bn));
	if (r >= 0)
		r = ksc_check_modules(d->kn, mods, nmods, &o, &d->rn);
	if (r < 0)
		return r == -EINVAL ? KSC_EXIT_USAGE : KSC_EXIT_UNREADABLE;
	json_object *jmods = d->root ? json_object_new_array() : NULL;
	for (size_t m = 0; m < nmods; m++) {
		unsigned before = breaks;
		compare_module(mods[m], d->ro, d->rn, m, d->df, a->kern.views, a->verbose,
			       d->text && !a->quiet, jmods, &breaks);
		if (d->text && a->quiet && breaks > before) {
			bool noted = false;
			print_fate(ksc_report_get_verdict(d->ro, m), ksc_report_get_verdict(d->rn, m),
				   a->kern.views, &noted);
		}
	}
	const char *po = ksc_report_get_policy(d->ro), *pn = ksc_report_get_policy(d->rn);
	if (d->root) {
		json_object_object_add(d->root, "policy_old", json_text(po));
		json_object_object_add(d->root, "policy_new", json_text(pn));
		json_object_object_add(d->root, "modules", jmods);
	}
	if (d->text && !a->quiet)
		printf("%zu module%s: %u would break on NEW (rules of %s -> %s)\n", nmods,
		       nmods == 1 ? "" : "s", breaks, po, pn);
	return breaks ? KSC_EXIT_FINDINGS : KSC_EXIT_OK;
}

/* The document as --format json or dot, and as --html FILE. An exit status. */
static int print_document(json_object *root, const struct diff_args *a, const char *old,
			  const char *new)
{
	if (a->format == FMT_JSON)
		json_doc_print(root);
	else if (a->format == FMT_DOT)
		report_write_dot(stdout, root, "diff"); /* write errors: at exit */
	if (!a->html)
		return KSC_EXIT_OK;
	_cleanup_free_ char *title = NULL;
	if (asprintf(&title, "ksymcheck diff: %s -> %s", old, new) < 0)
		title = NULL;
	return json_doc_html(a->html, title, root, "diff");
}

/* A pipe operand is read whole into memory, up to this: a kernel image or its exports. */
#define PIPE_MAX (256u << 20)

/*
 * A pipe or FIFO operand (`diff <(...) NEW`) opened as fd, read once to its end (a FIFO
 * nobody writes to: at once, empty; never hangs), then taken as the file would be: a
 * kernel image when it starts as one, else a Module.symvers. Sniffing its first bytes
 * through a second open would lose them. 0 or -errno (said).
 */
static int read_pipe_kernel(struct ksc_ctx *ctx, const char *path, int fd,
			    const struct stat *st, struct ksc_kernel **out, unsigned *errors)
{
	_cleanup_free_ char *data = NULL;
	size_t n;
	int r = ksc_read_fd(fd, st, PIPE_MAX, &data, &n);
	unsigned char *buf = (unsigned char *)data;

	close(fd);
	if (r == -EFBIG)
		print_error("%s: too large (more than %u bytes from a pipe)", text_esc(path), PIPE_MAX);
	else if (r < 0)
		print_error("%s: %s", text_esc(path), strerror(-r));
	else if (n == 0)
		print_error("%s: empty file: no exports", text_esc(path));
	if (r < 0 || n == 0)
		return r < 0 ? r : -ENODATA;
	if ((r = ksc_kernel_new(ctx, out)) < 0)
		return r;
	/* ELF, gzip, xz, zstd or a bzImage, as ksc_kernel_open_path() tells them */
	bool image = (n >= 4 && memcmp(buf, "\177ELF", 4) == 0) ||
		     (n >= 2 && memcmp(buf, "\037\213", 2) == 0) ||
		     (n >= 6 && memcmp(buf, "\3757zXZ\0", 6) == 0) ||
		     (n >= 4 && memcmp(buf, "\050\265\057\375", 4) == 0) ||
		     (n >= 0x206 && memcmp(buf + 0x202, "HdrS", 4) == 0);
	if (image) {
		struct ksc_module *vm;
		r = ksc_module_new_from_memory(ctx, path, buf, n, &vm);
		if (r >= 0 && ksc_module_get_kind(vm) != KSC_KIND_VMLINUX) {
			print_error("%s: a module, not a kernel image", text_esc(path));
			r = -EINVAL;
		} else if (r >= 0) {
			r = ksc_kernel_add_vmlinux(*out, vm);
		}
		ksc_module_unref(vm);
	} else {
		struct ksc_symvers *sv;
		r = ksc_symvers_new_from_memory(ctx, path, data, n, &sv);
		if (r >= 0) {
			*errors += ksc_symvers_get_error_count(sv) ? 1 : 0;
			r = ksc_kernel_add_symvers(*out, sv);
			ksc_symvers_unref(sv);
		}
	}
	if (r < 0)
		*out = ksc_kernel_unref(*out);
	return r;
}

/*
 * One side of the diff: a kernel root, a folder or a regular file as open_kernel_path()
 * takes them; a pipe read once; anything else (a device, a socket) refused by kind.
 */
static int open_side(struct ksc_ctx *ctx, const char *path, bool progress,
		     struct ksc_kernel **out, unsigned *errors)
{
	struct stat st;
	int fd = ksc_open_read(AT_FDCWD, path, KSC_OPEN_FIFO, &st);

	*out = NULL;
	if (fd >= 0 && S_ISFIFO(st.st_mode))
		return read_pipe_kernel(ctx, path, fd, &st, out, errors);
	if (fd >= 0)
		close(fd);
	if (fd == -KSC_ENOTREG) {
		print_error("%s: not a regular file (%s)", text_esc(path), ksc_file_kind(st.st_mode));
		return -EINVAL;
	}
	return open_kernel_path(ctx, path, progress, out);
}

/* Read both kernels and the modules, and compare the kernels' exports. An exit status. */
static int open_sides(struct ksc_ctx *ctx, struct diff_run *d, char **operands, int n,
		      unsigned *errors)
{
	bool progress = d->text && !d->args->quiet;

	if (open_side(ctx, operands[0], progress, &d->ko, errors) < 0 ||
	    open_side(ctx, operands[1], progress, &d->kn, errors) < 0)
		return KSC_EXIT_UNREADABLE;
	*errors += ksc_kernel_get_error_count(d->ko) + ksc_kernel_get_error_count(d->kn);
	if (n > 2 && walk_paths(ctx, operands + 2, n - 2, collect_module, &d->col,
				&d->col.errors) < 0)
		return KSC_EXIT_UNREADABLE;
	*errors += d->col.errors;
	if (ksc_kernel_diff(d->ko, d->kn, &d->df) < 0) {
		print_error("diff: out of memory");
		return KSC_EXIT_UNREADABLE;
	}
	return KSC_EXIT_OK;
}

int cmd_diff(struct ksc_ctx *ctx, int argc, char *argv[])
{
	struct diff_args args = { .format = FMT_TEXT };
	struct diff_run d = { .args = &args, .col = { .ctx = ctx } };
	unsigned errors = 0;
	int status = parse_args(&args, argc, argv);

	if (status != KSC_EXIT_OK)
		goto out;
	d.col.mods = calloc(1, sizeof(struct ksc_module *));
	if (!d.col.mods) {
		status = KSC_EXIT_UNREADABLE;
		goto out;
	}
	d.text = args.format == FMT_TEXT;
	status = open_sides(ctx, &d, argv + optind, argc - optind, &errors);
	if (status != KSC_EXIT_OK)
		goto out;
	d.root = !d.text || args.html ? json_doc_new("diff") : NULL;
	print_modversions(d.ko, d.kn, d.text, d.root);
	if (d.col.n)
		status = compare_modules(&d);
	else
		status = print_changes(d.df, d.text, d.root);
	if (status != KSC_EXIT_USAGE && status != KSC_EXIT_UNREADABLE) {
		print_counts(d.df, d.text && !args.quiet, d.root);
		if (d.root)
			status |= print_document(d.root, &args, argv[optind], argv[optind + 1]);
	}
out:
	if (errors)
		status |= KSC_EXIT_UNREADABLE;
	json_object_put(d.root);
	ksc_report_unref(d.ro);
	ksc_report_unref(d.rn);
	ksc_diff_free(d.df);
	module_list_free(&d.col);
	ksc_kernel_unref(d.ko);
	ksc_kernel_unref(d.kn);
	kernel_opts_free(&args.kern);
	return status < 0 ? KSC_EXIT_OK : status;
}
