// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ksymcheck compat: one module, several kernels. A matrix of (module, kernel) cells: would
 * it build for each kernel, does the binary load as built, and what changed for each
 * symbol it imports since the kernel it was built for (ksc_compat_run()).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/limits.h>

#include <json-c/json.h>

#include "util/array.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "tools/ksc-tool.h"
#include "tools/report.h"
#include "tools/text.h"

static const char *const help =
	"Usage: ksymcheck compat [OPTIONS] -k ROOT [-k ROOT...] MODULE...\n\n"
	"One module, several kernels: for each MODULE and each kernel, would it build from\n"
	"its source for that kernel, does the binary load as built, and what changed for\n"
	"each symbol it imports since the kernel it was built for (the kernel given whose\n"
	"release is the module's vermagic's): export removed, became GPL-only, moved into a\n"
	"namespace (with the import line that kernel wants), became module-restricted.\n"
	"A removed export gets hints: a successor of a name alike, and (-k ROOT) what the\n"
	"in-tree modules that imported it import instead in that kernel.\n\n"
	"Kernels (each repeatable, one kernel each, in the matrix's column order):\n"
	"  -k, --kernel ROOT      a root holding lib/modules/KVER (installed or unpacked)\n"
	"      --kver KVER        the release of the kernel named just before (ROOT with\n"
	"                         several releases; a Module.symvers)\n"
	"  -s, --symvers FILE     a kernel given by its Module.symvers\n"
	"      --vmlinux FILE     a kernel given by its image (vmlinux or bzImage)\n"
	"      --btf FILE         the BTF of the kernel named just before (a vmlinux with\n"
	"                         .BTF); default for a ROOT: its headers' vmlinux\n"
	"                         (usr/src/linux-headers-KVER/vmlinux, MOD/build/vmlinux)\n"
	"      --headers DIR      the headers of the kernel named just before (a tree with\n"
	"                         include/); default for a ROOT: Debian's\n"
	"                         usr/src/linux-headers-KVER-common, else MOD/build: an\n"
	"                         import no longer exported whose name they define as a\n"
	"                         macro or an inline function is a note, not a failure\n\n"
	"Modules and source:\n"
	"  -m, --modules DIR      also check every module below DIR (a package's modules)\n"
	"      --src DIR          the modules' source (a Kbuild folder, e.g. a DKMS tree in\n"
	"                         /usr/src/NAME-VER): a change to a symbol the source names\n"
	"                         (after its LINUX_VERSION_CODE conditionals for each\n"
	"                         kernel) fails the build, under an #ifdef it may fail; one\n"
	"                         it does not name (the old headers' inline code did) is a\n"
	"                         note\n\n"
	"Rules:\n"
	"      --require-intree   the proposed in-tree-only rule (R25, R40)\n"
	"      --external-build   modpost: the modules are built with make M=dir (default)\n"
	"      --in-tree-build    modpost: the modules are built in the kernel tree\n"
	"  -N, --allow-missing-ns as CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y\n\n"
	"Output:\n"
	"  -f, --format FMT       text (default), json or sarif (SARIF 2.1.0, for CI: one\n"
	"                         result per finding)\n"
	"      --json             the same as --format json\n"
	"      --html FILE        also write a self-contained HTML report (the matrix and\n"
	"                         the findings, sortable and filterable; - for stdout)\n"
	"      --no-cache         read every kernel's BTF again: without it, what the types\n"
	"                         of each (module, kernel) gave is kept by the files'\n"
	"                         identity in $XDG_CACHE_HOME/ksymcheck/compat\n"
	"  -v, --verbose          also the changes that do not touch the module, and the\n"
	"                         loader's findings as built and as if rebuilt\n"
	"  -h, --help             show this help and exit\n\n"
	"A cell says: build ok, may-fail (a change hits a symbol the binary imports, but the\n"
	"source, not given or not naming it, may not reference it any more) or fails; for\n"
	"the kernel the module was built for, whether it loads. Prototypes and structs are\n"
	"compared from BTF (the kernels', their modules' and the module's own split .BTF).\n"
	"Not seen (a compiler would): macros and inline functions of the new headers, the\n"
	"configuration's #ifdefs.\n\n"
	"Exit status: 0 no cell fails, 1 some cell fails (its build, or the load on the kernel\n"
	"it was built for), 2 usage error, 4 some inputs unreadable; 1 and 4 add up.\n";

/* What the text output says compat does not see. */
static const char limits[] =
	"the exports, and where both kernels' BTF is known the prototypes and the members of "
	"the structs they take or the module was built with; not seen (a compiler would): what "
	"the new headers' macros and inline functions call, structs reached other ways, "
	"#ifdefs on the configuration";

enum { OPT_KVER = 256, OPT_VMLINUX, OPT_SRC, OPT_BTF, OPT_HEADERS, OPT_NO_CACHE };

/* One kernel named on the command line. */
struct kspec {
	const char *root, *kver, *symvers, *vmlinux, *btf, *headers, *arg;
};

struct compat_args {
	struct kernel_opts kern; /* the rules only; the kernels are in `kernels` */
	struct kspec *kernels;
	size_t n_kernels, cap_kernels;
	const char **dirs;
	size_t n_dirs, cap_dirs;
	const char *src, *html;
	bool verbose, no_cache;
	int format;
};

static int add_kernel(struct compat_args *a, const struct kspec *s)
{
	if (array_push(a->kernels, a->n_kernels, a->cap_kernels, *s) < 0)
		return KSC_EXIT_UNREADABLE;
	return 0;
}

static int compat_opt(void *data, int ch, const char *arg)
{
	struct compat_args *a = data;

	switch (ch) {
	case 'k': return add_kernel(a, &(struct kspec){ .root = arg, .arg = arg });
	case 's': return add_kernel(a, &(struct kspec){ .symvers = arg, .arg = arg });
	case OPT_VMLINUX: return add_kernel(a, &(struct kspec){ .vmlinux = arg, .arg = arg });
	case OPT_KVER:
		if (!a->n_kernels)
			return usage_error("compat", "--kver %s: name its kernel first (-k, -s, --vmlinux)",
					   arg);
		a->kernels[a->n_kernels - 1].kver = arg;
		break;
	case OPT_BTF:
		if (!a->n_kernels)
			return usage_error("compat", "--btf %s: name its kernel first (-k, -s, --vmlinux)",
					   arg);
		a->kernels[a->n_kernels - 1].btf = arg;
		break;
	case OPT_HEADERS:
		if (!a->n_kernels)
			return usage_error("compat", "--headers %s: name its kernel first (-k, -s, --vmlinux)",
					   arg);
		a->kernels[a->n_kernels - 1].headers = arg;
		break;
	case 'm':
		if (array_push(a->dirs, a->n_dirs, a->cap_dirs, arg) < 0)
			return KSC_EXIT_UNREADABLE;
		break;
	case OPT_SRC: a->src = arg; break;
	case OPT_NO_CACHE: a->no_cache = true; break;
	}
	return 0;
}

static int parse_args(struct compat_args *a, int argc, char *argv[])
{
	static const struct own_option own[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "kver", required_argument, NULL, OPT_KVER },
		{ "symvers", required_argument, NULL, 's' },
		{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
		{ "modules", required_argument, NULL, 'm' },
		{ "src", required_argument, NULL, OPT_SRC },
		{ "btf", required_argument, NULL, OPT_BTF },
		{ "headers", required_argument, NULL, OPT_HEADERS },
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
		{ 0 },
	};
	/* The kernel options of check name one kernel; compat's repeat, so they are its own. */
	const struct option_set set = {
		.own = own,
		.own_short = "k:s:m:",
		.format = &a->format,
		.formats = 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_SARIF,
		.verbose = &a->verbose,
		.html = &a->html,
		.kernel = KOPT_REQUIRE_INTREE | KOPT_MISSING_NS | KOPT_MISSING_NS_N | KOPT_BUILD,
		.help = help,
		.fn = compat_opt,
	};
	int r = parse_options("compat", argc, argv, &set, &a->kern, a);

	if (r != KSC_EXIT_OK)
		return r;
	if (!a->n_kernels)
		return usage_error("compat", "no kernel given (-k ROOT, -s FILE or --vmlinux FILE)");
	if (optind >= argc && !a->n_dirs)
		return usage_error("compat", "no MODULE given");
	return KSC_EXIT_OK;
}

/* Open every kernel; NULL entries for those that cannot be (reported, counted). */
static int open_kernels(struct ksc_ctx *ctx, const struct compat_args *a,
			struct ksc_kernel **ks, unsigned *errors)
{
	int status = KSC_EXIT_OK;

	for (size_t i = 0; i < a->n_kernels; i++) {
		const struct kspec *s = &a->kernels[i];
		struct kernel_opts o = {
			.root = s->root, .kver = s->kver, .symvers = s->symvers,
			.vmlinux = s->vmlinux, .views = KSC_VIEW_BOTH,
		};
		ks[i] = open_kernel(ctx, &o, errors, NULL);
		if (!ks[i]) {
			status = KSC_EXIT_UNREADABLE;
			continue;
		}
		if (!ksc_kernel_get_release(ks[i])) {
			status = usage_error("compat", "%s: no kernel release known: give --kver KVER after it",
					     s->arg);
			break;
		}
	}
	return status;
}

/* A kernel root's BTF: Debian's headers ship a vmlinux that holds only .BTF. */
static char *find_btf(const struct kspec *s, const char *release)
{
	static const char *const where[][2] = {
		{ "/usr/src/linux-headers-", "/vmlinux" },
		{ "/lib/modules/", "/build/vmlinux" },
		{ "/usr/lib/modules/", "/build/vmlinux" },
	};
	char p[PATH_MAX];

	if (s->btf)
		return strdup(s->btf);
	for (size_t i = 0; s->root && release && i < ARRAY_SIZE(where); i++) {
		snprintf(p, sizeof(p), "%s%s%s%s", strcmp(s->root, "/") ? s->root : "",
			 where[i][0], release, where[i][1]);
		if (access(p, R_OK) == 0)
			return strdup(p);
	}
	return NULL;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A kernel root's module folder (its modules' own BTF, found by modules.dep). */
static char *find_moddir(const struct kspec *s, const char *release)
{
	static const char *const where[] = { "/lib/modules/", "/usr/lib/modules/" };
	char p[PATH_MAX];

	for (size_t i = 0; s->root && release && i < ARRAY_SIZE(where); i++) {
		snprintf(p, sizeof(p), "%s%s%s", strcmp(s->root, "/") ? s->root : "", where[i], release);
		if (is_dir(p))
			return strdup(p);
	}
	return NULL;
}

/* A Debian headers Makefile is a few lines: a larger one is not Debian's. */
#define HEADERS_MAKEFILE_MAX (1u << 20)

/*
 * A small regular file of a kernel root, for reading lines from: NULL when there is none,
 * it is not a regular file (a FIFO cannot hang the open) or it is larger than that.
 */
static FILE *open_small(const char *path)
{
	struct stat st;
	int fd = ksc_open_read(AT_FDCWD, path, 0, &st);
	FILE *f = NULL;

	if (fd < 0)
		return NULL;
	if ((uint64_t)st.st_size <= HEADERS_MAKEFILE_MAX)
		f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

/*
 * A kernel root's headers: Debian's linux-headers-KVER holds a Makefile that includes
 * the -common package's ("include /usr/src/linux-headers-V-common/Makefile"), which has
 * include/ and arch/; a build tree has them itself.
 */
static char *find_headers(const struct kspec *s, const char *release)
{
	const char *r = s->root && strcmp(s->root, "/") ? s->root : "";
	char p[PATH_MAX], line[PATH_MAX + 32];
	FILE *f;

	if (s->headers)
		return strdup(s->headers);
	if (!s->root || !release)
		return NULL;
	snprintf(p, sizeof(p), "%s/usr/src/linux-headers-%s/Makefile", r, release);
	f = open_small(p);
	while (f && fgets(line, sizeof(line), f)) {
		char dir[PATH_MAX];
		if (sscanf(line, "include %4095s", dir) == 1 && strlen(dir) > 9 &&
		    strcmp(dir + strlen(dir) - 9, "/Makefile") == 0) {
			dir[strlen(dir) - 9] = '\0';
			snprintf(p, sizeof(p), "%s%s", r, dir);
			if (is_dir(p)) {
				fclose(f);
				return strdup(p);
			}
		}
	}
	if (f)
		fclose(f);
	snprintf(p, sizeof(p), "%s/lib/modules/%s/build/include/linux", r, release);
	if (is_dir(p)) {
		p[strlen(p) - strlen("/include/linux")] = '\0';
		return strdup(p);
	}
	return NULL;
}

static const char *load_word(int err)
{
	return err ? "refused" : "ok";
}

/* The matrix cell's words. */
static const char *cell_word(const struct ksc_compat_cell *c, char *buf, size_t size)
{
	if (c->built_for)
		snprintf(buf, size, "built-for:%s", c->loader_err ? "refused" : "loads");
	else
		snprintf(buf, size, "%s", ksc_compat_build_name(c->build));
	return buf;
}

static void print_matrix(const struct ksc_compat *cp, struct ksc_kernel *const *ks, size_t nk,
			 struct ksc_module *const *mods, size_t nm)
{
	size_t w0 = strlen("MODULE"), *w = calloc(nk, sizeof(*w));
	char buf[64];

	if (!w)
		return;
	for (size_t m = 0; m < nm; m++)
		text_col_fit(&w0, ksc_module_get_name(mods[m]), 40);
	for (size_t k = 0; k < nk; k++) {
		text_col_fit(&w[k], ksc_kernel_get_release(ks[k]), 40);
		for (size_t m = 0; m < nm; m++)
			text_col_fit(&w[k], cell_word(ksc_compat_get_cell(cp, m, k), buf, sizeof(buf)), 40);
	}
	text_cell(stdout, "MODULE", w0 + 2);
	for (size_t k = 0; k < nk; k++)
		text_cell(stdout, ksc_kernel_get_release(ks[k]), k + 1 < nk ? w[k] + 2 : 0);
	putchar('\n');
	for (size_t m = 0; m < nm; m++) {
		text_cell(stdout, ksc_module_get_name(mods[m]), w0 + 2);
		for (size_t k = 0; k < nk; k++)
			text_cell(stdout, cell_word(ksc_compat_get_cell(cp, m, k), buf, sizeof(buf)),
				  k + 1 < nk ? w[k] + 2 : 0);
		putchar('\n');
	}
	free(w);
}

/* The loader's refusing findings of one module in a report (verbose). */
static void print_loader(const struct ksc_report *rep, size_t m, const char *what)
{
	const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, m);

	for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
		const struct ksc_diag *d = ksc_report_get_diag(rep, i);
		if (d->view != KSC_VIEW_LOADER || d->severity != KSC_SEV_ERROR)
			continue;
		printf("    %s: %s%s%s [%s]\n", what, d->symbol ? text_esc(d->symbol) : "",
		       d->symbol ? ": " : "", text_esc(d->summary ? d->summary : d->code), d->code);
	}
}

static void print_cell(const struct ksc_compat *cp, const struct ksc_compat_cell *c,
		       const char *name, bool verbose)
{
	bool shown = false;

	for (size_t i = c->first_finding; i < c->first_finding + c->n_findings; i++) {
		const struct ksc_compat_finding *f = ksc_compat_get_finding(cp, i);
		if (f->severity == KSC_SEV_INFO && !verbose)
			continue;
		if (!shown) {
			printf("%s on %s: build %s; as built: %s", text_esc(name), text_esc(c->release),
			       ksc_compat_build_name(c->build), load_word(c->loader_err));
			if (c->loader_err)
				printf(" (%s)", ksc_errno_name(c->loader_err));
			printf("; rebuilt: %s\n", load_word(c->rebuilt_err));
			shown = true;
		}
		printf("  %s: %s: %s [%s]%s\n", text_esc(f->symbol),
		       f->severity == KSC_SEV_ERROR ? "error" : f->severity == KSC_SEV_WARNING ? "warning" : "note",
		       text_esc(f->summary), f->code,
		       f->named_in_source ? " (named in the source)" : "");
		if (f->fix)
			printf("    fix: %s\n", text_esc(f->fix));
		if (f->hint)
			printf("    hint: maybe %s\n", text_esc(f->hint));
		if (f->intree)
			printf("    in-tree: %s\n", text_esc(f->intree));
		if (f->from_type)
			printf("    was: %s\n", text_esc(f->from_type));
		if (f->to_type && f->to_type[0])
			printf("    now: %s\n", text_esc(f->to_type));
	}
	if (verbose && shown) {
		print_loader(ksc_compat_get_report(cp, c->kernel, false), c->module, "as built");
		print_loader(ksc_compat_get_report(cp, c->kernel, true), c->module, "rebuilt");
	}
}

/* Which kernels' types could be compared. */
static void print_btf(const struct ksc_compat *cp, struct ksc_kernel *const *ks, size_t nk)
{
	bool any = false;

	for (size_t k = 0; k < nk; k++)
		any |= ksc_compat_has_btf(cp, k);
	if (!any) {
		puts("types: no BTF (--btf FILE): prototypes and structs not compared");
		return;
	}
	for (int have = 1; have >= 0; have--) {
		size_t n = 0;
		for (size_t k = 0; k < nk; k++) {
			if (ksc_compat_has_btf(cp, k) != have)
				continue;
			printf("%s%s", n++ ? ", " : have ? "types: BTF for " : "; none for ",
			       text_esc(ksc_kernel_get_release(ks[k])));
		}
		if (!have && n)
			fputs(" (--btf FILE)", stdout);
	}
	putchar('\n');
}

static void print_text(const struct ksc_compat *cp, struct ksc_kernel *const *ks, size_t nk,
		       struct ksc_module *const *mods, size_t nm, const struct compat_args *a)
{
	print_matrix(cp, ks, nk, mods, nm);
	for (size_t m = 0; m < nm; m++) {
		bool base = false;
		for (size_t k = 0; k < nk; k++) {
			const struct ksc_compat_cell *c = ksc_compat_get_cell(cp, m, k);
			base |= c->built_for;
			print_cell(cp, c, ksc_module_get_name(mods[m]), a->verbose);
		}
		if (!base) {
			const char *vm = ksc_module_get_vermagic(mods[m]);
			printf("%s: the kernel it was built for (%s) is not among those given: facts of the targets only\n",
			       text_esc(ksc_module_get_name(mods[m])),
			       vm ? text_esc(vm) : "no vermagic");
		}
	}
	if (a->src && nk && ksc_compat_get_source_file_count(cp, 0))
		printf("source: %zu C files read in %s\n", ksc_compat_get_source_file_count(cp, 0),
		       text_esc(a->src));
	else if (a->src && nk)
		printf("source: no C file in %s: weighed as without a source\n", text_esc(a->src));
	size_t n = 0;
	for (size_t k = 0; k < nk; k++)
		if (ksc_compat_get_header_file_count(cp, k))
			printf("%s%s (%zu files)", n++ ? ", " : "headers read: ",
			       text_esc(ksc_kernel_get_release(ks[k])),
			       ksc_compat_get_header_file_count(cp, k));
	if (n)
		putchar('\n');
	print_btf(cp, ks, nk);
	printf("limits: %s\n", limits);
}

static json_object *side_json(const char *release, const struct ksc_export *e, const char *owner)
{
	json_object *o;

	if (!e)
		return json_object_new_null();
	o = json_object_new_object();
	json_object_object_add(o, "release", json_text(release));
	json_object_object_add(o, "owner", json_text(owner));
	json_object_object_add(o, "gpl_only", json_object_new_boolean(e->gpl_only));
	json_object_object_add(o, "namespace", json_text(e->ns));
	return o;
}

static json_object *finding_obj(const struct ksc_compat_finding *f, const char *release)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "code", json_text(f->code));
	json_object_object_add(o, "symbol", json_text(f->symbol));
	json_object_object_add(o, "verdict", json_object_new_string(
		f->severity == KSC_SEV_ERROR ? "error" : f->severity == KSC_SEV_WARNING ? "warning" : "note"));
	json_object_object_add(o, "summary", json_text(f->summary));
	json_object_object_add(o, "fix", json_text(f->fix));
	json_object_object_add(o, "named_in_source", json_object_new_boolean(f->named_in_source));
	json_object_object_add(o, "from", side_json(f->from_release, f->from, f->from_owner));
	json_object_object_add(o, "to", side_json(release, f->to, f->to_owner));
	json_object_object_add(o, "type_name", json_text(f->type_name));
	json_object_object_add(o, "from_type", json_text(f->from_type));
	json_object_object_add(o, "to_type", json_text(f->to_type));
	json_object_object_add(o, "hint", json_text(f->hint));
	json_object_object_add(o, "intree", json_text(f->intree));
	return o;
}

static json_object *cell_obj(const struct ksc_compat *cp, const struct ksc_compat_cell *c)
{
	json_object *o = json_object_new_object(), *fs = json_object_new_array();

	json_object_object_add(o, "release", json_text(c->release));
	json_object_object_add(o, "built_for", json_object_new_boolean(c->built_for));
	json_object_object_add(o, "build", json_object_new_string(ksc_compat_build_name(c->build)));
	json_object_object_add(o, "load", json_object_new_string(load_word(c->loader_err)));
	json_object_object_add(o, "load_errno", c->loader_err
			       ? json_object_new_string(ksc_errno_name(c->loader_err))
			       : json_object_new_null());
	json_object_object_add(o, "modpost", json_object_new_string(c->modpost_ok ? "pass" : "fail"));
	json_object_object_add(o, "rebuilt", json_object_new_string(load_word(c->rebuilt_err)));
	json_object_object_add(o, "failed", json_object_new_boolean(c->failed));
	for (size_t i = c->first_finding; i < c->first_finding + c->n_findings; i++)
		json_object_array_add(fs, finding_obj(ksc_compat_get_finding(cp, i), c->release));
	json_object_object_add(o, "findings", fs);
	return o;
}

static json_object *compat_json(const struct ksc_compat *cp, struct ksc_kernel *const *ks,
				size_t nk, struct ksc_module *const *mods, size_t nm,
				char *const *btf)
{
	json_object *root = json_doc_new("compat"), *kv = json_object_new_array(),
		    *mv = json_object_new_array(), *bv = json_object_new_array();

	for (size_t k = 0; k < nk; k++) {
		json_object_array_add(kv, json_text(ksc_kernel_get_release(ks[k])));
		json_object_array_add(bv, json_text(ksc_compat_has_btf(cp, k) ? btf[k] : NULL));
	}
	json_object_object_add(root, "kernels", kv);
	json_object_object_add(root, "btf", bv);
	for (size_t m = 0; m < nm; m++) {
		json_object *o = json_object_new_object(), *cells = json_object_new_array();
		json_object_object_add(o, "module", json_text(ksc_module_get_name(mods[m])));
		json_object_object_add(o, "path", json_text(ksc_module_get_path(mods[m])));
		json_object_object_add(o, "vermagic", json_text(ksc_module_get_vermagic(mods[m])));
		for (size_t k = 0; k < nk; k++)
			json_object_array_add(cells, cell_obj(cp, ksc_compat_get_cell(cp, m, k)));
		json_object_object_add(o, "cells", cells);
		json_object_array_add(mv, o);
	}
	json_object_object_add(root, "modules", mv);
	json_object_object_add(root, "limits", json_object_new_string(limits));
	return root;
}

/* compat's finding codes, as SARIF rules: what each says, and what to do. */
static const char *const rule_texts[][3] = {
	{ "export-removed", "The target kernel no longer exports a symbol the module imports",
	  "Call what the target offers instead (the finding's hint names a likely successor) under a LINUX_VERSION_CODE conditional, or build only for kernels that export it." },
	{ "became-gpl-only", "The target kernel exports the symbol to GPL-compatible modules only",
	  "A module whose license is not GPL-compatible must stop using it." },
	{ "namespace-moved", "The target kernel exports the symbol into a namespace the module does not import",
	  "Add the import line the finding's fix gives, in the target's syntax." },
	{ "became-module-restricted", "The target kernel exports the symbol to named modules only",
	  "Stop using it: only the modules the export names may." },
	{ "type-changed", "The prototype of a function (or the type of a variable) the module uses differs in the target (BTF)",
	  "Adapt the call to the target's declaration (properties from_type and to_type) under a LINUX_VERSION_CODE conditional." },
	{ "struct-changed", "A struct the module uses lost members or changed their types in the target (BTF)",
	  "Adapt the code that reaches the members named (properties from_type and to_type) under a LINUX_VERSION_CODE conditional." },
};

/* One SARIF result per finding (notes with -v), the module file as the location. */
static int print_sarif(const struct ksc_compat *cp, struct ksc_module *const *mods, size_t nm,
		       size_t nk, bool verbose)
{
	struct sarif *s = sarif_new();

	if (!s)
		return -ENOMEM;
	for (size_t m = 0; m < nm; m++) {
		for (size_t k = 0; k < nk; k++) {
			const struct ksc_compat_cell *c = ksc_compat_get_cell(cp, m, k);
			for (size_t i = c->first_finding; i < c->first_finding + c->n_findings; i++) {
				const struct ksc_compat_finding *cf = ksc_compat_get_finding(cp, i);
				if (cf->severity == KSC_SEV_INFO && !verbose)
					continue;
				struct finding f = {
					.module = ksc_module_get_name(mods[m]),
					.path = ksc_module_get_path(mods[m]), .symbol = cf->symbol,
					.owner = cf->from_owner, .view = c->release,
					.severity = cf->severity, .code = cf->code,
					.summary = cf->summary, .fix = cf->fix,
				};
				json_object *x = finding_obj(cf, c->release);
				json_object_object_add(x, "release", json_text(c->release));
				json_object_object_add(x, "build", json_object_new_string(
					ksc_compat_build_name(c->build)));
				json_object_object_del(x, "code");
				json_object_object_del(x, "symbol");
				json_object_object_del(x, "verdict");
				json_object_object_del(x, "summary");
				json_object_object_del(x, "fix");
				int r = 0;
				for (size_t t = 0; r == 0 && t < ARRAY_SIZE(rule_texts); t++)
					if (strcmp(rule_texts[t][0], cf->code) == 0)
						r = sarif_describe(s, cf->code, rule_texts[t][1],
								   rule_texts[t][2]);
				if (r < 0) {
					json_object_put(x);
					sarif_free(s);
					return -ENOMEM;
				}
				if (sarif_add_with(s, &f, x) < 0) {
					sarif_free(s);
					return -ENOMEM;
				}
			}
		}
	}
	sarif_print(s);
	return 0;
}

static void free_btf(char **btf, size_t n)
{
	for (size_t k = 0; btf && k < n; k++)
		free(btf[k]);
	free(btf);
}

/* $XDG_CACHE_HOME/ksymcheck/compat, else ~/.cache/ksymcheck/compat; NULL: none. */
static char *cache_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	char *out = NULL;

	if (x && x[0] == '/' && asprintf(&out, "%s/ksymcheck/compat", x) < 0)
		return NULL;
	if (!out && h && h[0] == '/' && asprintf(&out, "%s/.cache/ksymcheck/compat", h) < 0)
		return NULL;
	return out;
}

static int run_compat(struct ksc_kernel *const *ks, const struct module_list *c,
		      const struct compat_args *a)
{
	const struct kernel_opts *ko = &a->kern;
	struct ksc_check_opts co = {
		.sz = sizeof(co),
		.require_intree = ko->require_intree,
		.allow_missing_ns = ko->allow_missing_ns ? 1 : -1,
		.build = ko->build == KSC_BUILD_INTREE ? KSC_BUILD_INTREE : KSC_BUILD_EXTERNAL,
	};
	char **btf = calloc(a->n_kernels, sizeof(*btf)), **hdr = calloc(a->n_kernels, sizeof(*hdr)),
	     **mdir = calloc(a->n_kernels, sizeof(*mdir)), **idx = calloc(a->n_kernels, sizeof(*idx));
	struct ksc_compat_opts o = { .sz = sizeof(o), .check = &co, .src = a->src,
				     .btf = (const char *const *)btf,
				     .headers = (const char *const *)hdr,
				     .moddirs = (const char *const *)mdir,
				     .indexes = (const char *const *)idx,
				     .cache_dir = a->no_cache ? NULL : cache_dir() };
	struct ksc_compat *cp;
	int status = KSC_EXIT_OK, r = -ENOMEM;

	for (size_t k = 0; btf && hdr && mdir && idx && k < a->n_kernels; k++) {
		btf[k] = find_btf(&a->kernels[k], ksc_kernel_get_release(ks[k]));
		hdr[k] = find_headers(&a->kernels[k], ksc_kernel_get_release(ks[k]));
		mdir[k] = find_moddir(&a->kernels[k], ksc_kernel_get_release(ks[k]));
		/* the index of a root's kernel, as -k ROOT's opening keeps it */
		if (mdir[k] && a->kernels[k].root)
			idx[k] = default_index(a->kernels[k].root, ksc_kernel_get_release(ks[k]));
	}
	if (btf && hdr && mdir && idx)
		r = ksc_compat_run(ks, a->n_kernels, c->mods, c->n, &o, &cp);
	free_btf(hdr, a->n_kernels);
	free_btf(mdir, a->n_kernels);
	free_btf(idx, a->n_kernels);
	free((char *)o.cache_dir);
	if (r < 0) {
		free_btf(btf, a->n_kernels);
		if (r == -ENOMEM)
			print_error("compat: %s", strerror(-r));
		return r == -EINVAL ? KSC_EXIT_USAGE : KSC_EXIT_UNREADABLE;
	}
	json_object *doc = a->format == FMT_JSON || a->html
			   ? compat_json(cp, ks, a->n_kernels, c->mods, c->n, btf) : NULL;
	if (a->format == FMT_JSON)
		json_doc_print(doc);
	else if (a->format == FMT_SARIF && print_sarif(cp, c->mods, c->n, a->n_kernels, a->verbose) < 0)
		status = KSC_EXIT_UNREADABLE;
	else if (a->format == FMT_TEXT)
		print_text(cp, ks, a->n_kernels, c->mods, c->n, a);
	if (a->html)
		status |= json_doc_html(a->html, NULL, doc, "compat");
	json_object_put(doc);
	for (size_t k = 0; k < a->n_kernels; k++)
		if (btf[k] && !ksc_compat_has_btf(cp, k))
			status = KSC_EXIT_UNREADABLE; /* reported by the library */
	free_btf(btf, a->n_kernels);
	for (size_t m = 0; m < c->n; m++)
		for (size_t k = 0; k < a->n_kernels; k++)
			if (ksc_compat_get_cell(cp, m, k)->failed)
				status |= KSC_EXIT_FINDINGS;
	ksc_compat_free(cp);
	return status;
}

int cmd_compat(struct ksc_ctx *ctx, int argc, char *argv[])
{
	struct compat_args a = { .format = FMT_TEXT };
	struct module_list c = { .ctx = ctx };
	struct ksc_kernel **ks = NULL;
	int status = parse_args(&a, argc, argv);

	if (status != KSC_EXIT_OK)
		goto out;
	if (walk_paths(ctx, argv + optind, argc - optind, collect_module, &c, &c.errors) < 0 ||
	    walk_paths(ctx, (char **)a.dirs, (int)a.n_dirs, collect_module, &c, &c.errors) < 0) {
		status = KSC_EXIT_UNREADABLE;
		goto out;
	}
	ks = calloc(a.n_kernels, sizeof(*ks));
	if (!ks) {
		status = KSC_EXIT_UNREADABLE;
		goto out;
	}
	status = open_kernels(ctx, &a, ks, &c.errors);
	if (status == KSC_EXIT_OK && c.n)
		status = run_compat(ks, &c, &a);
	if (c.errors && status != KSC_EXIT_USAGE)
		status |= KSC_EXIT_UNREADABLE;
out:
	for (size_t i = 0; ks && i < a.n_kernels; i++)
		release_kernel(ks[i]);
	free(ks);
	free(a.kernels);
	free(a.dirs);
	module_list_free(&c);
	kernel_opts_free(&a.kern);
	return status < 0 ? KSC_EXIT_OK : status;
}
