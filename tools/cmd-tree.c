// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ksymcheck tree: a whole kernel's module folder at once, with depmod's conventions:
 * every module read (in parallel), resolved as depmod resolves it, judged by the policy
 * engine, with depmod's files written on request and an index that makes the next run
 * re-read only what changed. The work is in the library (struct ksc_tree); this prints.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/macro.h"
#include "tools/ksc-tool.h"
#include "tools/text.h"

static const char *const help =
	"Usage: ksymcheck tree [OPTIONS] [-k ROOT] [KVER]\n\n"
	"Read every module of ROOT/lib/modules/KVER (depmod's conventions: ROOT defaults to /,\n"
	"KVER to the running kernel's release) in parallel, resolve every import as depmod\n"
	"does, report unresolved symbols and dependency cycles, and judge every module as the\n"
	"loader and modpost would (one line per finding: MODULE: SYMBOL: VIEW: VERDICT [code]),\n"
	"then a summary with counts per finding code. A module in or behind a dependency\n"
	"cycle is refused (dep-cycle); symbolic links are resolved inside ROOT.\n\n"
	"The tree:\n"
	"  -k, --kernel ROOT       the root holding lib/modules/KVER (default /)\n"
	"  -b, --basedir ROOT      the same, as depmod -b\n"
	"      --kver KVER         the release under ROOT (or KVER as operand)\n"
	"  -j, --jobs N            worker threads (default: one per CPU)\n"
	"      --index FILE        the index of what was read (default:\n"
	"                          $XDG_CACHE_HOME/ksymcheck/tree/KVER-HASH.idx); a re-run\n"
	"                          re-reads only modules whose size, mtime or inode changed\n"
	"      --no-index          neither read nor write an index\n\n"
	"The kernel's exports (default: the first found of build/Module.symvers,\n"
	"usr/src/linux-headers-KVER/Module.symvers, boot/vmlinux-KVER, boot/vmlinuz-KVER,\n"
	"boot/System.map-KVER below ROOT):\n"
	"  -s, --symvers FILE      Module.symvers\n"
	"  -E FILE                 the same, as depmod -E\n"
	"      --system-map FILE   System.map\n"
	"  -F FILE                 the same, as depmod -F\n"
	"      --vmlinux FILE      vmlinux or bzImage\n"
	"      --config FILE       the kernel's .config (default boot/config-KVER)\n"
	"      --no-kernel-search  use only the files named by the options above\n\n"
	"Rules (as ksymcheck check):\n"
	"  -p, --policy KVER       apply the rules of this kernel version (default: KVER's)\n"
	"      --require-intree    module-restricted exports only for in-tree modules (R25,\n"
	"                          R40); modpost takes a module under updates/ or extra/,\n"
	"                          or without intree in .modinfo, as built with M=\n"
	"      --allow-missing-ns  as CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y\n"
	"      --view VIEW         loader, modpost or both (default)\n"
	"      --distro NAME       debian or upstream: the distribution's loader patches\n"
	"                          (default: debian when ROOT holds a Debian kernel package)\n"
	"      --cert FILE         a certificate the kernel trusts for module signatures (PEM\n"
	"                          or DER; or a kernel image: its built-in keys); repeatable.\n"
	"                          The built-in keys of the kernel image (--vmlinux, else the\n"
	"                          one under ROOT) are used too. Without any key a well-formed\n"
	"                          signature is assumed valid (sig-unverified, a note)\n"
	"      --no-check          depmod's view only: no verdicts\n\n"
	"Output:\n"
	"      --write-depmod DIR  write modules.dep, modules.symbols, modules.alias,\n"
	"                          modules.softdep and modules.devname into DIR, byte for byte\n"
	"                          as kmod's depmod, replaced as a set, modules.dep last\n"
	"                          (not the *.bin files);\n"
	"                          names and values that would forge lines are left out\n"
	"  -f, --format FMT        text (default), json (the summary and every module's\n"
	"                          findings), or sarif (SARIF 2.1.0, for CI)\n"
	"      --json              the same as --format json\n"
	"  -q, --quiet             text: only the refusals and dependency cycles (and the\n"
	"                          unresolved symbols when there are no verdicts); no\n"
	"                          warnings, notes, summary or progress bar\n"
	"  -v, --verbose           also notes (info findings)\n"
	"      --timing            where the time went, on standard error\n"
	"  -h, --help              show this help and exit\n\n"
	"A progress bar is drawn on standard error when it is a terminal (not with --quiet).\n\n"
	"Exit status: 0 all fine; 1 some module would be refused, or dependency cycles; 2 usage\n"
	"error; 4 some inputs unreadable (each reported as ksymcheck: PATH: reason; the rest\n"
	"processed) or an output could not be written; 1 and 4 add up.\n";

enum {
	OPT_INDEX = 256,
	OPT_NO_INDEX,
	OPT_NO_KSEARCH,
	OPT_NO_CHECK,
	OPT_WRITE_DEPMOD,
	OPT_TIMING,
};

static const char *sev_word(enum ksc_severity s)
{
	return s == KSC_SEV_ERROR ? "refused" : s == KSC_SEV_WARNING ? "warning" : "note";
}

static const char *index_word(enum ksc_tree_index_state s)
{
	switch (s) {
	case KSC_TREE_INDEX_ABSENT: return "absent";
	case KSC_TREE_INDEX_USED: return "used";
	case KSC_TREE_INDEX_REBUILT: return "rebuilt";
	default: return "none";
	}
}

struct counts {
	const char *code;
	unsigned int n[3];
};

static int cmp_counts(const void *a, const void *b)
{
	return strcmp(((const struct counts *)a)->code, ((const struct counts *)b)->code);
}

static size_t count_codes(const struct ksc_tree *t, unsigned views, struct counts **out)
{
	size_t nd = ksc_tree_get_diag_count(t), n = 0;
	struct counts *c = calloc(nd ? nd : 1, sizeof(*c));

	if (!c) {
		*out = NULL;
		return 0;
	}
	for (size_t i = 0; i < nd; i++) {
		const struct ksc_diag *d = ksc_tree_get_diag(t, i);
		if (!(views & d->view))
			continue;
		size_t k;
		for (k = 0; k < n && strcmp(c[k].code, d->code) != 0; k++)
			;
		if (k == n)
			c[n++].code = d->code;
		c[k].n[d->severity]++;
	}
	qsort(c, n, sizeof(*c), cmp_counts);
	*out = c;
	return n;
}

struct vcounts {
	unsigned loads, refused, passes, fails; /* loader, modpost */
};

/* The judged modules counted per view; returns the refusals of the views shown. */
static unsigned count_verdicts(const struct ksc_tree *t, unsigned views, struct vcounts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < ksc_tree_get_module_count(t); i++) {
		const struct ksc_module_verdict *v = ksc_tree_get_verdict(t, i);
		if (!v)
			continue;
		if (v->loader_err)
			c->refused++;
		else
			c->loads++;
		if (v->modpost_ok)
			c->passes++;
		else
			c->fails++;
	}
	return ((views & KSC_VIEW_LOADER) ? c->refused : 0) +
	       ((views & KSC_VIEW_MODPOST) ? c->fails : 0);
}

/* quiet: only what makes the exit status 1 (refusals, cycles, unresolved without verdicts). */
static void print_text(const struct ksc_tree *t, unsigned views, bool verbose, bool quiet,
		       const char *written, unsigned *refused_out)
{
	size_t n = ksc_tree_get_module_count(t);
	struct vcounts vc;

	*refused_out = count_verdicts(t, views, &vc);
	for (size_t i = 0; i < n; i++) {
		const struct ksc_module_verdict *v = ksc_tree_get_verdict(t, i);
		if (!v)
			continue;
		for (size_t j = v->first_diag; j < v->first_diag + v->n_diags; j++) {
			const struct ksc_diag *d = ksc_tree_get_diag(t, j);
			if (!(views & d->view) ||
			    (d->severity == KSC_SEV_INFO && !verbose) ||
			    (quiet && d->severity != KSC_SEV_ERROR))
				continue;
			printf("%s: ", text_esc(ksc_tree_get_module_relpath(t, i)));
			if (d->symbol)
				printf("%s: ", text_esc(d->symbol));
			printf("%s: %s: %s [%s]\n", view_word(d->view),
			       sev_word(d->severity), text_esc(d->summary ? d->summary : d->code),
			       d->code);
		}
	}
	for (size_t i = 0; i < ksc_tree_get_unresolved_count(t) &&
			   (!quiet || !ksc_tree_has_verdicts(t)); i++) {
		const struct ksc_tree_unresolved *u = ksc_tree_get_unresolved(t, i);
		printf("%s: %s %s [%s]\n", text_esc(ksc_tree_get_module_relpath(t, u->module)),
		       u->kind == KSC_TREE_UNKNOWN_SYMBOL
			       ? "needs unknown symbol"
			       : "disagrees about version of symbol",
		       text_esc(u->symbol),
		       u->kind == KSC_TREE_UNKNOWN_SYMBOL ? "depmod-unknown"
							  : "depmod-crc");
	}
	for (size_t i = 0; i < ksc_tree_get_cycle_count(t); i++) {
		const size_t *m;
		size_t k = ksc_tree_get_cycle(t, i, &m);
		printf("Cycle detected: ");
		for (size_t j = 0; j < k; j++)
			printf("%s -> ", text_esc(ksc_tree_get_module_name(t, m[j])));
		printf("%s\n", text_esc(ksc_tree_get_module_name(t, m[0])));
	}
	if (quiet)
		return;

	struct ksc_tree_stats st;
	ksc_tree_get_stats(t, &st);
	const char *ks = ksc_tree_get_kernel_source(t);
	printf("%s: %zu module%s (%zu read, %zu from the index, %zu unreadable); kernel "
	       "exports: %s\n",
	       text_esc(ksc_tree_get_moddir(t)), n, n == 1 ? "" : "s", st.read, st.cached,
	       st.unreadable, ks ? text_esc(ks) : "none");
	if (ksc_tree_has_verdicts(t))
		printf("%u judged (rules of %s): loader: %u would load, %u refused; "
		       "modpost: %u pass, %u fail\n",
		       vc.loads + vc.refused, ksc_tree_get_policy(t), vc.loads, vc.refused,
		       vc.passes, vc.fails);
	struct counts *c;
	size_t nc = count_codes(t, views, &c);
	bool any = false;
	for (size_t i = 0; i < nc; i++) {
		unsigned shown = c[i].n[KSC_SEV_ERROR] + c[i].n[KSC_SEV_WARNING] +
				 (verbose ? c[i].n[KSC_SEV_INFO] : 0);
		if (!shown)
			continue;
		printf("%s%s %u", any ? ", " : "findings: ", c[i].code, shown);
		any = true;
	}
	if (any)
		printf("\n");
	free(c);
	printf("unresolved symbols: %zu; dependency cycles: %zu; problems: %zu\n",
	       ksc_tree_get_unresolved_count(t), ksc_tree_get_cycle_count(t),
	       ksc_tree_get_problem_count(t));
	if (written)
		printf("depmod files written to %s\n", text_esc(written));
}

/* Module i's verdicts and its findings in the views shown; NULL when it has none. */
static json_object *module_json(const struct ksc_tree *t, size_t i, unsigned views)
{
	const struct ksc_module_verdict *v = ksc_tree_get_verdict(t, i);
	const char *path = ksc_tree_get_module_path(t, i);
	json_object *o, *fs = NULL;

	for (size_t j = v ? v->first_diag : 0; v && j < v->first_diag + v->n_diags; j++) {
		const struct ksc_diag *d = ksc_tree_get_diag(t, j);
		struct finding f;
		if (!(views & d->view))
			continue;
		if (!fs)
			fs = json_object_new_array();
		finding_from_diag(&f, d, v, path);
		json_object_array_add(fs, finding_json(&f));
	}
	if (!fs)
		return NULL;
	o = verdict_json(v, path, views);
	json_object_object_add(o, "findings", fs);
	return o;
}

/* Unresolved symbols, dependency cycles and problems with inputs. */
static void depmod_json(json_object *o, const struct ksc_tree *t)
{
	json_object *u = json_object_new_array();
	for (size_t i = 0; i < ksc_tree_get_unresolved_count(t); i++) {
		const struct ksc_tree_unresolved *x = ksc_tree_get_unresolved(t, i);
		json_object *e = json_object_new_object();
		json_object_object_add(e, "module",
				       json_text(ksc_tree_get_module_name(t, x->module)));
		json_object_object_add(e, "path",
				       json_text(ksc_tree_get_module_relpath(t, x->module)));
		json_object_object_add(e, "symbol", json_text(x->symbol));
		json_object_object_add(
			e, "kind",
			json_text(x->kind == KSC_TREE_UNKNOWN_SYMBOL ? "unknown" : "crc"));
		json_object_array_add(u, e);
	}
	json_object_object_add(o, "unresolved", u);
	json_object *cy = json_object_new_array();
	for (size_t i = 0; i < ksc_tree_get_cycle_count(t); i++) {
		const size_t *m;
		size_t k = ksc_tree_get_cycle(t, i, &m);
		json_object *a = json_object_new_array();
		for (size_t j = 0; j < k; j++)
			json_object_array_add(a, json_text(ksc_tree_get_module_name(t, m[j])));
		json_object_array_add(cy, a);
	}
	json_object_object_add(o, "cycles", cy);
	json_object *pr = json_object_new_array();
	for (size_t i = 0; i < ksc_tree_get_problem_count(t); i++) {
		const struct ksc_tree_problem *p = ksc_tree_get_problem(t, i);
		json_object *e = json_object_new_object();
		json_object_object_add(e, "path", json_text(p->path));
		json_object_object_add(e, "reason", json_text(p->reason));
		json_object_object_add(e, "errno", json_text(ksc_errno_name(p->err)));
		json_object_array_add(pr, e);
	}
	json_object_object_add(o, "problems", pr);
}

static json_object *timing_json(const struct ksc_tree_stats *st)
{
	json_object *tm = json_object_new_object();
	const struct {
		const char *key;
		double v;
	} secs[] = {
		{ "total", st->wall_total }, { "walk", st->wall_walk },
		{ "index_load", st->wall_index_load }, { "read", st->wall_read },
		{ "kernel", st->wall_kernel }, { "resolve", st->wall_resolve },
		{ "check", st->wall_check }, { "write_depmod", st->wall_write_depmod },
		{ "index_save", st->wall_index_save }, { "cpu_read", st->cpu_read },
		{ "cpu_decompress", st->cpu_decompress }, { "cpu_parse", st->cpu_parse },
		{ "cpu_check", st->cpu_check },
	};

	json_object_object_add(tm, "jobs", json_object_new_int((int)st->jobs));
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
		json_object_object_add(tm, secs[i].key, json_object_new_double(secs[i].v));
	json_object_object_add(tm, "bytes_read", json_object_new_int64((int64_t)st->bytes_read));
	json_object_object_add(tm, "bytes_decompressed",
			       json_object_new_int64((int64_t)st->bytes_decompressed));
	return tm;
}

static void print_json(const struct ksc_tree *t, unsigned views, const char *written,
		       unsigned *refused_out)
{
	json_object *o = json_doc_new("tree");
	size_t n = ksc_tree_get_module_count(t);
	struct ksc_tree_stats st;
	struct vcounts vc;

	ksc_tree_get_stats(t, &st);
	json_object_object_add(o, "moddir", json_text(ksc_tree_get_moddir(t)));
	json_object_object_add(o, "release", json_text(ksc_tree_get_release(t)));
	json_object_object_add(o, "kernel_exports", json_text(ksc_tree_get_kernel_source(t)));
	json_object_object_add(o, "policy", json_text(ksc_tree_get_policy(t)));
	json_object_object_add(o, "module_count", json_size(n));
	json_object_object_add(o, "read", json_size(st.read));
	json_object_object_add(o, "cached", json_size(st.cached));
	json_object_object_add(o, "unreadable", json_size(st.unreadable));
	json_object_object_add(o, "index", json_text(index_word(st.index_state)));
	*refused_out = count_verdicts(t, views, &vc);
	json_object *verd = json_object_new_object();
	json_object_object_add(verd, "judged", json_object_new_int64(vc.loads + vc.refused));
	json_object_object_add(verd, "loader_loads", json_object_new_int64(vc.loads));
	json_object_object_add(verd, "loader_refused", json_object_new_int64(vc.refused));
	json_object_object_add(verd, "modpost_pass", json_object_new_int64(vc.passes));
	json_object_object_add(verd, "modpost_fail", json_object_new_int64(vc.fails));
	json_object_object_add(o, "verdicts", verd);
	struct counts *c;
	size_t nc = count_codes(t, views, &c);
	json_object *f = json_object_new_object();
	for (size_t i = 0; i < nc; i++) {
		json_object *x = json_object_new_object();
		for (int s = KSC_SEV_INFO; s <= KSC_SEV_ERROR; s++)
			json_object_object_add(x, verdict_word((enum ksc_severity)s),
					       json_object_new_int64(c[i].n[s]));
		json_object_object_add(f, c[i].code, x);
	}
	free(c);
	json_object_object_add(o, "counts", f);
	json_object *mods = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		json_object *m = module_json(t, i, views);
		if (m)
			json_object_array_add(mods, m);
	}
	json_object_object_add(o, "modules", mods);
	depmod_json(o, t);
	json_object_object_add(o, "depmod_dir", json_text(written));
	json_object_object_add(o, "timing", timing_json(&st));
	json_doc_print(o);
	json_object_put(o);
}

/* The findings as SARIF: paths relative to the module folder. */
static int print_sarif(const struct ksc_tree *t, unsigned views, unsigned *refused_out)
{
	struct sarif *s = sarif_new();
	struct vcounts vc;

	*refused_out = count_verdicts(t, views, &vc);
	if (!s)
		return -ENOMEM;
	sarif_set_base(s, ksc_tree_get_moddir(t));
	for (size_t i = 0; i < ksc_tree_get_module_count(t); i++) {
		const struct ksc_module_verdict *v = ksc_tree_get_verdict(t, i);
		for (size_t j = v ? v->first_diag : 0; v && j < v->first_diag + v->n_diags; j++) {
			const struct ksc_diag *d = ksc_tree_get_diag(t, j);
			struct finding f;
			if (!(views & d->view))
				continue;
			finding_from_diag(&f, d, v, ksc_tree_get_module_relpath(t, i));
			if (sarif_add(s, &f) < 0) {
				sarif_free(s);
				return -ENOMEM;
			}
		}
	}
	sarif_print(s);
	return 0;
}

static void print_timing(const struct ksc_tree *t)
{
	struct ksc_tree_stats s;

	ksc_tree_get_stats(t, &s);
	print_plain("timing: %.3f s in ksc_tree_open with %u jobs: walk %.3f, index load "
		    "%.3f, read %.3f, "
		    "kernel exports %.3f, resolve %.3f, check %.3f; then write depmod %.3f, "
		    "index save %.3f\n"
		    "timing: summed over workers: read %.3f, decompress %.3f, parse %.3f, "
		    "check %.3f; "
		    "%zu modules read (%.1f MiB read, %.1f MiB decompressed), %zu from the "
		    "index, %zu judged\n",
		    s.wall_total, s.jobs, s.wall_walk, s.wall_index_load, s.wall_read,
		    s.wall_kernel, s.wall_resolve, s.wall_check, s.wall_write_depmod,
		    s.wall_index_save, s.cpu_read, s.cpu_decompress, s.cpu_parse, s.cpu_check,
		    s.read, (double)s.bytes_read / (1 << 20),
		    (double)s.bytes_decompressed / (1 << 20), s.cached, s.checked);
}

/*
 * The process ends right after this: the tree's memory (every module's record, its
 * strings, the symbol tables) goes back with it. Freeing it piece by piece took ~4 ms,
 * 2% of a whole first run of Debian's tree; the tree stays reachable from `kept` instead.
 * Built with AddressSanitizer it is freed, for the leak check.
 */
static void release_tree(struct ksc_tree *t)
{
#if defined(__SANITIZE_ADDRESS__)
	ksc_tree_unref(t);
#else
	static struct ksc_tree *kept;
	kept = t;
	(void)kept;
#endif
}

struct tree_args {
	struct kernel_opts kern;
	const char *index, *depmod_dir;
	bool no_index, no_kernel_search, no_check, quiet, verbose, timing;
	unsigned jobs;
	int format; /* FMT_TEXT, FMT_JSON or FMT_SARIF */
};

/* -j N, tree's one own option that is not only stored: 0, or a usage error's status. */
static int tree_opt(void *data, int ch, const char *arg)
{
	struct tree_args *a = data;

	if (ch == 'j') {
		int n = parse_jobs("tree", arg, 256);
		if (n < 0)
			return KSC_EXIT_USAGE;
		a->jobs = (unsigned int)n;
	}
	return 0;
}

/* The options: KSC_EXIT_OK to go on, -1 after --help, else the status of a usage error. */
static int parse_args(struct tree_args *a, int argc, char *argv[])
{
	const struct option_set set = {
		.own = (const struct own_option[]){
			{ "jobs", required_argument, NULL, 'j' },
			{ "index", required_argument, &a->index, OPT_INDEX },
			{ "no-index", no_argument, &a->no_index, OPT_NO_INDEX },
			{ "no-kernel-search", no_argument, &a->no_kernel_search, OPT_NO_KSEARCH },
			{ "no-check", no_argument, &a->no_check, OPT_NO_CHECK },
			{ "write-depmod", required_argument, &a->depmod_dir, OPT_WRITE_DEPMOD },
			{ "timing", no_argument, &a->timing, OPT_TIMING },
			{ 0 },
		},
		.own_short = "j:",
		.format = &a->format,
		.formats = 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_SARIF,
		.quiet = &a->quiet,
		.verbose = &a->verbose,
		.kernel = KOPT_ROOT | KOPT_KVER | KOPT_SYMVERS | KOPT_VMLINUX | KOPT_CONFIG |
			  KOPT_SYSTEM_MAP | KOPT_DEPMOD | KOPT_POLICY | KOPT_REQUIRE_INTREE |
			  KOPT_MISSING_NS | KOPT_VIEW | KOPT_DISTRO | KOPT_CERT,
		.help = help,
		.fn = tree_opt,
	};
	int r = parse_options("tree", argc, argv, &set, &a->kern, a);

	if (r)
		return r;
	if (argc - optind > 1 || (optind < argc && a->kern.kver))
		return usage_error("tree", "more than one KVER given");
	if (a->index && a->no_index)
		return usage_error("tree", "--index and --no-index exclude each other");
	if (!!a->kern.symvers + !!a->kern.system_map + !!a->kern.vmlinux > 1)
		return usage_error("tree", "give the kernel's exports once: --symvers, "
					   "--system-map or --vmlinux");
	return check_policy("tree", a->kern.policy);
}

/* depmod's files into --write-depmod DIR: the exit status of that part. */
static int write_depmod(struct ksc_tree *t, const char *dir, const char **written)
{
	int r = ksc_tree_write_depmod(t, dir, KSC_DEPMOD_ALL);

	if (r >= 0) /* r > 0: modules or values left out, each said */
		*written = dir;
	if (r == -EDEADLK)
		return KSC_EXIT_FINDINGS;
	return r != 0 ? KSC_EXIT_UNREADABLE : KSC_EXIT_OK;
}

/* Print the tree in the format asked for: the exit status of its findings. */
static int print_tree(const struct ksc_tree *t, const struct tree_args *a, const char *written)
{
	unsigned views = a->kern.views, refused = 0;
	int status = KSC_EXIT_OK;

	if (a->format == FMT_JSON) {
		print_json(t, views, written, &refused);
	} else if (a->format == FMT_SARIF) {
		if (print_sarif(t, views, &refused) < 0)
			status |= KSC_EXIT_UNREADABLE;
	} else {
		print_text(t, views, a->verbose, a->quiet, written, &refused);
	}
	if (refused || ksc_tree_get_cycle_count(t) ||
	    (!ksc_tree_has_verdicts(t) && ksc_tree_get_unresolved_count(t)))
		status |= KSC_EXIT_FINDINGS;
	if (a->timing)
		print_timing(t);
	return status;
}

/*
 * The keys the kernel trusts, as check --kernel takes them: every --cert (a file without
 * a certificate stops here), then the built-in keys of the kernel image: --vmlinux's,
 * else the one under ROOT (kept beside the index, so that a compressed image is not
 * decompressed on every run). An image that is missing or unreadable adds none and says
 * nothing here: the tree reports its kernel files. No keys with --no-check, and none from
 * an image with --no-kernel-search but --vmlinux's. An exit status.
 */
static int tree_keys(struct ksc_ctx *ctx, const struct tree_args *a, const char *kver,
		     struct ksc_keyring **kr)
{
	const struct kernel_opts *k = &a->kern;
	int r;

	*kr = NULL;
	if (a->no_check)
		return KSC_EXIT_OK;
	r = ksc_keyring_new(ctx, kr);
	if (r >= 0)
		r = add_certs(*kr, k);
	if (r >= 0 && k->vmlinux) {
		int prio = ksc_get_log_priority(ctx);
		ksc_set_log_priority(ctx, -1); /* the tree says what is wrong with the image */
		if (ksc_keyring_add_path(*kr, k->vmlinux) == -ENOMEM)
			r = -ENOMEM;
		ksc_set_log_priority(ctx, prio);
	} else if (r >= 0 && !a->no_kernel_search) {
		r = add_image_keys(ctx, *kr, k->root, kver);
	}
	if (r < 0) {
		if (r == -ENOMEM)
			print_error("tree: out of memory");
		*kr = ksc_keyring_unref(*kr);
		return KSC_EXIT_UNREADABLE;
	}
	return KSC_EXIT_OK;
}

/*
 * Read the tree: 0, or an exit status (the problem said). The tree keeps drawing `bar`
 * (writing depmod's files): it lives as long as the tree.
 */
static int open_tree(struct ksc_ctx *ctx, const struct tree_args *a, const char *kver,
		     const char *index, struct progress_bar *bar, struct ksc_tree **t)
{
	struct ksc_keyring *kr = NULL;
	int status = tree_keys(ctx, a, kver, &kr);

	if (status != KSC_EXIT_OK)
		return status;
	const struct kernel_opts *k = &a->kern;
	struct ksc_check_opts co = {
		.sz = sizeof(co),
		.policy = k->policy,
		.require_intree = k->require_intree,
		.allow_missing_ns = k->allow_missing_ns ? 1 : -1,
		.views = k->views,
	};
	struct ksc_tree_opts o = {
		.sz = sizeof(o),
		.jobs = a->jobs,
		.index = index,
		.symvers = k->symvers,
		.vmlinux = k->vmlinux,
		.system_map = k->system_map,
		.config = k->config,
		.no_kernel_search = a->no_kernel_search,
		.set_quirks = k->distro != NULL,
		.quirks = distro_quirks(k->distro),
		.no_check = a->no_check,
		.check = &co,
		.progress = draw_bar,
		.progress_data = bar,
		.timing = a->timing || a->format == FMT_JSON, /* the split costs clock reads */
		.keyring = kr,
	};

	/* A rebuilt index is worth a warning (the library's warnings are off by default). */
	if (!a->quiet && ksc_get_log_priority(ctx) < KSC_LOG_WARNING)
		ksc_set_log_priority(ctx, KSC_LOG_WARNING);
	int r = ksc_tree_open(ctx, k->root, kver, &o, t);
	ksc_keyring_unref(kr); /* the tree keeps its reference */
	clear_bar(bar);
	if (r < 0)
		return r == -EINVAL ? KSC_EXIT_USAGE : KSC_EXIT_UNREADABLE;
	return KSC_EXIT_OK;
}

/*
 * The release: the operand, --kver, else the kernel locator's (the only one under ROOT,
 * else the running one for /); the index is named after it. An exit status.
 */
static int tree_release(struct ksc_ctx *ctx, const struct tree_args *a, const char *operand,
			struct ksc_kernel_location **loc, const char **kver)
{
	unsigned major, minor;

	*kver = operand ? operand : a->kern.kver;
	if (*kver && (sscanf(*kver, "%u.%u", &major, &minor) != 2 || strchr(*kver, '/')))
		return usage_error("tree", "bad version '%s' (MAJOR.MINOR...)", *kver);
	if (!*kver) {
		if (ksc_kernel_locate(ctx, a->kern.root, NULL, loc) < 0)
			return KSC_EXIT_UNREADABLE;
		*kver = ksc_kernel_location_get_release(*loc);
	}
	return KSC_EXIT_OK;
}

int cmd_tree(struct ksc_ctx *ctx, int argc, char *argv[])
{
	struct tree_args a = { 0 };
	struct ksc_kernel_location *loc = NULL;
	_cleanup_free_ char *def_index = NULL;
	const char *kver, *index, *written = NULL;
	struct ksc_tree *t = NULL;
	struct progress_bar bar = { 0 };
	struct stat st;
	int status = parse_args(&a, argc, argv);

	if (status == KSC_EXIT_OK)
		status = tree_release(ctx, &a, optind < argc ? argv[optind] : NULL, &loc, &kver);
	if (status == KSC_EXIT_OK && a.depmod_dir &&
	    (stat(a.depmod_dir, &st) < 0 || !S_ISDIR(st.st_mode)))
		status = usage_error("tree", "--write-depmod %s: not a folder", a.depmod_dir);
	if (status != KSC_EXIT_OK) {
		ksc_kernel_location_unref(loc);
		kernel_opts_free(&a.kern);
		return status < 0 ? KSC_EXIT_OK : status;
	}
	index = a.no_index ? NULL : a.index ? a.index : (def_index = default_index(a.kern.root, kver));
	bar.on = !a.quiet && isatty(STDERR_FILENO);
	status = open_tree(ctx, &a, kver, index, &bar, &t);
	ksc_kernel_location_unref(loc); /* kver is not used after this */
	kernel_opts_free(&a.kern);
	if (status != KSC_EXIT_OK)
		return status;
	if (ksc_tree_get_problem_count(t))
		status |= KSC_EXIT_UNREADABLE;
	if (a.depmod_dir)
		status |= write_depmod(t, a.depmod_dir, &written);
	if (index && ksc_tree_save_index(t) < 0)
		status |= KSC_EXIT_UNREADABLE;
	status |= print_tree(t, &a, written);
	release_tree(t);
	return status;
}
