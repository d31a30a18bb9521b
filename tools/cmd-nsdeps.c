// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ksymcheck nsdeps: add the MODULE_IMPORT_NS lines a built module is missing to its
 * sources, as `make nsdeps` does (doc/rules.md R27): modpost's namespace check
 * (ksc_check_modules, modpost view) says which namespaces a module uses without importing
 * them; each goes into the source files that have MODULE_LICENSE() (as
 * scripts/coccinelle/misc/add_namespace.cocci does), among the existing imports in byte
 * order (as scripts/nsdeps sorts them), in the target kernel's syntax. A module:
 * namespace is never added (R11): it is explained instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/array.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "tools/ksc-tool.h"
#include "tools/text.h"

static const char *const help =
	"Usage: ksymcheck nsdeps [OPTIONS] MODULE...\n\n"
	"Add the MODULE_IMPORT_NS() lines each built MODULE (.ko) is missing to its C sources,\n"
	"as 'make nsdeps' does: only namespaces of symbols the module really uses and does not\n"
	"import, next to MODULE_LICENSE() or among the existing imports, sorted, in the target\n"
	"kernel's syntax (identifier before 6.13, string literal from 6.13). A module:\n"
	"namespace (6.16+ EXPORT_SYMBOL_FOR_MODULES) is never imported: the loader would\n"
	"refuse the module; the reason is printed instead.\n\n"
	"The diff's paths are relative to the source folder (--src DIR, else the module's\n"
	"folder; for MODULEs in several folders, the deepest folder holding them all), which\n"
	"is named on stderr: apply the diff there with 'patch -p1' or 'git apply'.\n\n"
	"Sources:\n"
	"      --src DIR          the module's source folder (default: the module's folder);\n"
	"                         the files are those of DIR/<module>.mod when kbuild left one,\n"
	"                         else the .c files below DIR that have MODULE_LICENSE()\n"
	"  -w, --write            apply the changes (default: print a unified diff); only\n"
	"                         files below the source folder are edited (a .mod naming\n"
	"                         one elsewhere: 'PATH: outside --src DIR: not written')\n\n"
	"The kernel the module is built for (default: this machine's), as for 'ksymcheck check':\n"
	"  -k, --kernel ROOT      a root holding lib/modules/KVER and the kernel's exports\n"
	KOPT_HELP_FILES
	"      --config FILE      the kernel's .config\n"
	"  -p, --policy KVER      rules and syntax of this kernel version (default: the\n"
	"                         kernel's release, else the module's vermagic)\n\n"
	"Output:\n"
	"  -f, --format FMT       text (default) or json: {\"schema\", \"command\": \"nsdeps\",\n"
	"                         \"policy\", \"write\", \"source_folder\", \"modules\": [{\"path\",\n"
	"                         \"module\", \"missing\": [NS...], \"refused\": [{\"symbol\",\n"
	"                         \"namespace\", \"code\", \"reason\"}]}], \"files\": [{\"path\",\n"
	"                         \"diff_path\", \"namespaces\", \"added\", \"written\", \"diff\",\n"
	"                         \"notes\": [{\"line\", \"text\"}], \"error\"}]}; errors still go\n"
	"                         to stderr, notes only into the document\n"
	"      --json             the same as --format json\n"
	"  -q, --quiet            only errors and what cannot be done (no diff, no 'not\n"
	"                         imported' or 'added' lines); the exit status says whether\n"
	"                         imports are missing\n"
	"  -h, --help             show this help and exit\n\n"
	"A kernel root is read as check reads it: only what the modules need when depmod's\n"
	"files are current (KSYMCHECK_NO_DEPMOD=1: not so), through the index 'tree' keeps,\n"
	"a MODULE that is one of ROOT's installed modules too (KSYMCHECK_NO_INDEX=1: none;\n"
	"the same output), with a progress bar on standard error while a tree is read\n"
	"whole, when it is a terminal (not --quiet).\n\n"
	"Exit status: 0 nothing missing (or all of it written); 1 imports missing (dry run) or a\n"
	"namespace that must not be imported; 2 usage error; 4 some inputs unreadable or files\n"
	"not written (each left as it was); 1 and 4 add up.\n";

enum { OPT_SRC = 256 };

struct nsdeps_args {
	struct kernel_opts kern;
	const char *src;
	bool write, quiet, json; /* json: format is FMT_JSON */
	int format;
};

/* ---- a list of unique strings ---- */

struct strs {
	char **v;
	size_t n, cap;
};

static int strs_add(struct strs *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], x) == 0)
			return 0;
	if (array_reserve(s->v, s->cap, s->n + 1, 8) < 0)
		return -ENOMEM;
	s->v[s->n] = strdup(x);
	if (!s->v[s->n])
		return -ENOMEM;
	s->n++;
	return 1;
}

static void strs_free(struct strs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	array_free(s->v, s->n, s->cap);
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- the module's source files ---- */

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * The source of an object a kbuild .mod names, foo.o as foo.c: as given when absolute,
 * else below dir, else its basename in dir. NULL when it is not an object or none of
 * those is a file (or out of memory).
 */
static char *source_of(const char *dir, char *obj)
{
	size_t l = strlen(obj);
	const char *base = strrchr(obj, '/'), *rel = obj;
	char *cand;

	if (l < 3 || strcmp(obj + l - 2, ".o") != 0)
		return NULL;
	obj[l - 1] = 'c';
	if (obj[0] == '/' && is_file(obj))
		return strdup(obj);
	base = base ? base + 1 : obj;
	if (strncmp(obj, "./", 2) == 0)
		rel += 2;
	if (asprintf(&cand, "%s/%s", dir, rel) >= 0) {
		if (is_file(cand))
			return cand;
		free(cand);
	}
	if (asprintf(&cand, "%s/%s", dir, base) >= 0) {
		if (is_file(cand))
			return cand;
		free(cand);
	}
	return NULL;
}

/* A kbuild .mod names a module's few objects: a larger one is not kbuild's. */
#define MOD_FILE_MAX (1u << 20)

/*
 * The .mod file read whole (never blocking: a FIFO in its place is refused by kind), a
 * regular file of at most MOD_FILE_MAX bytes. 0 with *data NULL when there is none, 1
 * when read, else -errno (said).
 */
static int read_mod(const char *path, char **data)
{
	struct stat st;
	size_t size;
	int fd = ksc_open_read(AT_FDCWD, path, 0, &st), r;

	*data = NULL;
	if (fd == -ENOENT || fd == -ENOTDIR)
		return 0;
	if (fd == -EISDIR || fd == -KSC_ENOTREG) {
		print_error("%s: not a regular file (%s)", text_esc(path), ksc_file_kind(st.st_mode));
		return -EINVAL;
	}
	if (fd < 0) {
		print_error("%s: %s", text_esc(path), strerror(-fd));
		return fd;
	}
	r = ksc_read_fd(fd, &st, MOD_FILE_MAX, data, &size);
	close(fd);
	if (r == -EFBIG)
		print_error("%s: too large (%zu bytes, limit %u)", text_esc(path), size,
			    MOD_FILE_MAX);
	else if (r < 0)
		print_error("%s: %s", text_esc(path), strerror(-r));
	return r < 0 ? r : 1;
}

/*
 * kbuild's <module>.mod: one object per line (scripts/Makefile.build cmd_mod), paths as
 * kbuild saw them; each taken as source_of() it. 1 when the .mod file was read, 0 when
 * there is none, -errno when it cannot be read (said).
 */
static int sources_from_mod(const char *dir, const char *name, struct strs *out)
{
	_cleanup_free_ char *path = NULL, *data = NULL;
	char *save = NULL;
	int r;

	if (asprintf(&path, "%s/%s.mod", dir, name) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	r = read_mod(path, &data);
	if (r <= 0)
		return r;
	for (char *tok = strtok_r(data, " \t\n", &save); tok && r == 1;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		_cleanup_free_ char *src = source_of(dir, tok);
		if (src && strs_add(out, src) < 0)
			r = -ENOMEM;
	}
	return r;
}

/*
 * The files to add imports to: of the module's sources, those with MODULE_LICENSE().
 * Without a .mod file: the .c files below DIR that have one; when that is more than one
 * file, the one named after the module. 0, or -errno (reported).
 */
static int license_files(struct ksc_ctx *ctx, const char *dir,
			 const struct ksc_module *mod, struct strs *out)
{
	const char *name = ksc_module_get_modpost_name(mod);
	struct strs srcs = { 0 };
	struct ksc_src *src = NULL;
	int r = sources_from_mod(dir, name, &srcs);

	if (r < 0 || ksc_src_new(ctx, NULL, &src) < 0) {
		strs_free(&srcs);
		return r < 0 ? r : -ENOMEM;
	}
	bool from_mod = r == 1;
	if (from_mod) {
		for (size_t i = 0; i < srcs.n; i++)
			ksc_src_add_path(src, srcs.v[i]);
	} else {
		ksc_src_add_path(src, dir);
	}
	struct strs lic = { 0 };
	for (size_t i = 0; i < ksc_src_get_record_count(src); i++) {
		const struct ksc_src_record *rec = ksc_src_get_record(src, i);
		size_t l = strlen(rec->path);
		if (rec->kind != KSC_SRC_LICENSE || l < 2 || strcmp(rec->path + l - 2, ".c") != 0)
			continue;
		if (strs_add(&lic, rec->path) < 0) {
			r = -ENOMEM;
			goto out;
		}
	}
	r = 0;
	if (lic.n == 0) {
		print_error("%s: no source file of %s.ko has MODULE_LICENSE() (%s)", text_esc(dir),
			    text_esc(name),
			from_mod ? "files from its .mod" : "no .mod file, every .c file looked at");
		r = -ENOENT;
	} else if (from_mod || lic.n == 1) {
		for (size_t i = 0; i < lic.n && r == 0; i++)
			r = strs_add(out, lic.v[i]) < 0 ? -ENOMEM : 0;
	} else {
		/* Several modules in one folder: the file named after this one. */
		const char *pick = NULL;
		for (size_t i = 0; i < lic.n; i++) {
			const char *b = strrchr(lic.v[i], '/');
			b = b ? b + 1 : lic.v[i];
			if (strncmp(b, name, strlen(name)) == 0 && strcmp(b + strlen(name), ".c") == 0)
				pick = lic.v[i];
		}
		if (pick) {
			r = strs_add(out, pick) < 0 ? -ENOMEM : 0;
		} else {
			print_error("%s: %zu files have MODULE_LICENSE() and none is %s.c: build the module (kbuild writes %s.mod, the list of its sources) or give --src its own folder",
				text_esc(dir), lic.n, text_esc(name), text_esc(name));
			r = -ENOENT;
		}
	}
out:
	strs_free(&lic);
	strs_free(&srcs);
	ksc_src_unref(src);
	return r;
}

/* ---- per source file: the namespaces to add ---- */

struct target_file {
	char *path;
	struct strs ns;
};

struct plan {
	struct target_file *files;
	size_t n, cap;
};

static struct target_file *plan_file(struct plan *p, const char *path)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->files[i].path, path) == 0)
			return &p->files[i];
	if (array_reserve(p->files, p->cap, p->n + 1, 8) < 0)
		return NULL;
	struct target_file *v = p->files;
	memset(&v[p->n], 0, sizeof(v[p->n]));
	v[p->n].path = strdup(path);
	if (!v[p->n].path)
		return NULL;
	return &v[p->n++];
}

static void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->files[i].path);
		strs_free(&p->files[i].ns);
	}
	free(p->files);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* ---- the diff: paths relative to the source folder ---- */

/* p without "." and empty parts; NULL when it has a ".." part or nothing is left. */
static char *clean_rel(const char *p)
{
	char *out = malloc(strlen(p) + 1), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			free(out);
			return NULL;
		}
		if (n && !(n == 1 && p[0] == '.')) {
			if (o != out)
				*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	*o = '\0';
	if (o == out) {
		free(out);
		return NULL;
	}
	return out;
}

/* The real path of the file's folder + its name (a symlinked file keeps its name). */
static char *real_file(const char *path)
{
	const char *name = strrchr(path, '/');
	_cleanup_free_ char *dir = dir_of(path);
	_cleanup_free_ char *rd = dir ? realpath(dir, NULL) : NULL;
	char *r = NULL;

	name = name ? name + 1 : path;
	if (rd && asprintf(&r, "%s/%s", strcmp(rd, "/") ? rd : "", name) < 0)
		r = NULL;
	return r;
}

/*
 * The name `path` has in the diff: its path below `base`, found from the strings when
 * path starts with base (a kbuild .mod names sources as kbuild saw them), else from their
 * real paths. NULL when the file is not below base.
 */
static char *diff_name(const char *base, const char *path)
{
	size_t bl = strlen(base);
	char *r = NULL;

	while (bl > 1 && base[bl - 1] == '/')
		bl--;
	if (bl == 1 && base[0] == '.')
		r = path[0] != '/' ? clean_rel(path) : NULL;
	else if (strncmp(path, base, bl) == 0 && (path[bl] == '/' || base[bl - 1] == '/'))
		r = clean_rel(path + bl);
	if (r)
		return r;

	_cleanup_free_ char *rb = realpath(base, NULL), *rf = real_file(path);
	size_t n = rb ? strlen(rb) : 0;
	if (rb && rf && strncmp(rf, rb, n) == 0 && (rf[n] == '/' || n == 1))
		r = clean_rel(rf + n);
	return r;
}

/*
 * The folder the diff is relative to: --src DIR; else the folder of the modules that
 * miss imports, as given when they share one, else the deepest real folder holding all
 * of them. NULL when out of memory or a folder has gone.
 */
static char *diff_base(const char *src, const struct strs *dirs)
{
	if (src || dirs->n == 1)
		return strdup(src ? src : dirs->v[0]);
	char *common = dirs->n ? realpath(dirs->v[0], NULL) : NULL;
	for (size_t i = 1; common && i < dirs->n; i++) {
		char *r = realpath(dirs->v[i], NULL);
		size_t k = 0;
		if (!r) {
			free(common);
			return NULL;
		}
		while (common[k] && common[k] == r[k])
			k++;
		if (common[k] || (r[k] && r[k] != '/'))
			while (k > 0 && common[k] != '/')
				k--; /* back to the last whole folder */
		common[k ? k : 1] = '\0';
		free(r);
	}
	return common;
}

/* Print the file's diff, named relative to base; say once where it applies. */
static int print_diff(const struct ksc_srcedit *e, const char *base, bool *told)
{
	const char *path = ksc_srcedit_get_path(e);
	_cleanup_free_ char *name = diff_name(base, path);

	if (!name)
		print_warning("%s: outside %s: its part of the diff keeps this path, which 'patch -p1' there does not apply",
			      text_esc(path), text_esc(base));
	else if (!*told)
		print_note("the diff is relative to %s: apply it there with 'patch -p1'",
			   text_esc(base));
	*told = *told || name;
	return ksc_srcedit_write_diff_as(e, name, stdout);
}

/* The options: KSC_EXIT_OK to go on, -1 after --help, else the status of a usage error. */
static int parse_args(struct nsdeps_args *a, int argc, char *argv[])
{
	const struct option_set set = {
		.own = (const struct own_option[]){
			{ "src", required_argument, &a->src, OPT_SRC },
			{ "write", no_argument, &a->write, 'w' },
			{ 0 },
		},
		.own_short = "w",
		.format = &a->format,
		.formats = 1u << FMT_TEXT | 1u << FMT_JSON,
		.quiet = &a->quiet,
		.kernel = KOPT_ROOT | KOPT_KVER | KOPT_SYMVERS | KOPT_VMLINUX | KOPT_MODULES |
			  KOPT_CONFIG | KOPT_POLICY,
		.help = help,
	};
	struct stat st;
	int r = parse_options("nsdeps", argc, argv, &set, &a->kern, a);

	a->json = a->format == FMT_JSON;
	if (r == KSC_EXIT_OK)
		r = modules_and_kernel("nsdeps", argc, &a->kern);
	if (r == KSC_EXIT_OK && a->src && (stat(a->src, &st) < 0 || !S_ISDIR(st.st_mode)))
		r = usage_error("nsdeps", "--src '%s' is not a folder", a->src);
	return r;
}

/* --json: a namespace nsdeps refuses to import, into the module's "refused". */
static void json_refused(json_object *refused, const struct ksc_diag *d, const char *reason)
{
	json_object *x;

	if (!refused || !(x = json_object_new_object()))
		return;
	json_object_object_add(x, "symbol", json_text(d->symbol));
	json_object_object_add(x, "namespace", json_text(d->ns));
	json_object_object_add(x, "code", json_text(d->code));
	json_object_object_add(x, "reason", json_text(reason));
	json_object_array_add(refused, x);
}

/*
 * What modpost said of one module: the namespaces it uses without importing them (noted,
 * into *missing), and module namespaces it must not import (errors). With jmods (--json),
 * the module's object is added to it. An exit status.
 */
static int missing_namespaces(const struct ksc_report *rep, const struct ksc_module_verdict *v,
			      bool quiet, struct strs *missing, json_object *jmods)
{
	const char *mpath = ksc_module_get_path(v->module);
	json_object *refused = jmods ? json_object_new_array() : NULL;
	int status = KSC_EXIT_OK;
	char why[512];

	for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
		const struct ksc_diag *d = ksc_report_get_diag(rep, i);
		if (strcmp(d->code, "ns-missing") == 0) {
			int r = strs_add(missing, d->ns);
			if (r < 0) {
				json_object_put(refused);
				return KSC_EXIT_UNREADABLE;
			}
			if (r == 1 && !quiet && !jmods)
				print_note("%s: uses %s from namespace %s, not imported",
					   text_esc(mpath), text_esc(d->symbol), text_esc(d->ns));
		} else if (strcmp(d->code, "modns-denied") == 0) {
			status |= KSC_EXIT_FINDINGS;
			print_error("%s: uses %s from the module-restricted namespace %s: not importing it; %s",
				    text_esc(mpath), text_esc(d->symbol), text_esc(d->ns),
				    d->fix ? text_esc(d->fix) : "only modules named in it may use the symbol");
			json_refused(refused, d, d->fix ? d->fix : "only modules named in it may use the symbol");
		} else if (strcmp(d->code, "modns-import") == 0) {
			status |= KSC_EXIT_FINDINGS;
			print_error("%s: imports the module namespace %s, which the %s loader refuses (-EPERM): remove that MODULE_IMPORT_NS",
				    text_esc(mpath), text_esc(d->ns), ksc_report_get_policy(rep));
			snprintf(why, sizeof(why), "the %s loader refuses the import (-EPERM): remove that MODULE_IMPORT_NS",
				 ksc_report_get_policy(rep));
			json_refused(refused, d, why);
		}
	}
	if (missing->n)
		qsort(missing->v, missing->n, sizeof(*missing->v), cmp_strp);
	if (jmods) {
		json_object *m = json_object_new_object();
		json_object_object_add(m, "path", json_text(mpath));
		json_object_object_add(m, "module", json_text(ksc_module_get_modpost_name(v->module)));
		json_object_object_add(m, "missing",
				       json_strings((const char *const *)missing->v, missing->n));
		json_object_object_add(m, "refused", refused);
		json_object_array_add(jmods, m);
	}
	return status;
}

/* What nsdeps will do: the files to edit, and the folders of the modules they are of. */
struct nsdeps_run {
	struct ksc_ctx *ctx;
	const struct nsdeps_args *args;
	const char *policy;
	struct plan plan;
	struct strs dirs; /* the source folders of the modules that miss imports */
	char *base;       /* the folder the diff is relative to */
	bool told;        /* where the diff applies was said */
	json_object *jmods, *jfiles; /* --json: the document's arrays */
};

/*
 * Whether path (a file) is below the folder dir, both resolved (symbolic links, "..")
 * to real paths: nsdeps --write edits only files in the folder it was given, whatever a
 * .mod file names.
 */
static bool below(const char *dir, const char *path)
{
	_cleanup_free_ char *rd = realpath(dir, NULL), *rp = realpath(path, NULL);
	size_t n = rd ? strlen(rd) : 0;

	if (!rd || !rp)
		return false;
	if (n == 1) /* "/" */
		return true;
	return strncmp(rp, rd, n) == 0 && rp[n] == '/';
}

/* The missing imports of one module, into the plan of its license files. An exit status. */
static int plan_module(struct nsdeps_run *run, const struct ksc_module_verdict *v,
		       const struct strs *missing)
{
	const char *src = run->args->src;
	_cleanup_free_ char *dir = src ? strdup(src) : dir_of(ksc_module_get_path(v->module));
	struct strs files = { 0 };
	int r = dir ? license_files(run->ctx, dir, v->module, &files) : -ENOMEM;
	int status = KSC_EXIT_OK;

	if (r >= 0 && strs_add(&run->dirs, dir) < 0)
		r = -ENOMEM;
	for (size_t f = 0; r >= 0 && f < files.n; f++) {
		if (run->args->write && !below(dir, files.v[f])) {
			print_error("%s: outside %s %s: not written", text_esc(files.v[f]),
				    src ? "--src" : "the module's folder", text_esc(dir));
			status = KSC_EXIT_UNREADABLE;
			continue;
		}
		struct target_file *tf = plan_file(&run->plan, files.v[f]);
		for (size_t i = 0; tf && i < missing->n; i++)
			if (strs_add(&tf->ns, missing->v[i]) < 0)
				tf = NULL;
		if (!tf)
			r = -ENOMEM;
	}
	strs_free(&files);
	return r < 0 ? KSC_EXIT_UNREADABLE : status;
}

/* --json: the dry run's diff of one file, named as print_diff() names it; NULL if none. */
static char *diff_text(const struct ksc_srcedit *e, const char *base, char **name)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	*name = diff_name(base, ksc_srcedit_get_path(e));
	if (!f)
		return NULL;
	int r = ksc_srcedit_write_diff_as(e, *name, f);
	if (fclose(f) != 0 || r < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* --json: one file's object. */
static void json_file(struct nsdeps_run *run, const struct target_file *tf,
		      const struct ksc_srcedit *e, int n, bool written, const char *error)
{
	json_object *o = json_object_new_object(), *notes = json_object_new_array();
	_cleanup_free_ char *name = NULL, *diff = NULL;

	if (e && n > 0 && !run->args->write)
		diff = diff_text(e, run->base, &name);
	json_object_object_add(o, "path", json_text(tf->path));
	json_object_object_add(o, "diff_path", json_text(name));
	json_object_object_add(o, "namespaces",
			       json_strings((const char *const *)tf->ns.v, tf->ns.n));
	json_object_object_add(o, "added", json_object_new_int(n > 0 ? n : 0));
	json_object_object_add(o, "written", json_object_new_boolean(written));
	json_object_object_add(o, "diff", json_text(diff));
	for (size_t i = 0; e && i < ksc_srcedit_get_note_count(e); i++) {
		const struct ksc_srcedit_note *note = ksc_srcedit_get_note(e, i);
		json_object *x = json_object_new_object();
		json_object_object_add(x, "line", json_object_new_int((int)note->line));
		json_object_object_add(x, "text", json_text(note->text));
		json_object_array_add(notes, x);
	}
	json_object_object_add(o, "notes", notes);
	json_object_object_add(o, "error", json_text(error));
	json_object_array_add(run->jfiles, o);
}

/* One file's imports: planned, then shown as a diff or written. An exit status. */
static int edit_file(struct nsdeps_run *run, struct target_file *tf)
{
	const struct nsdeps_args *a = run->args;
	struct ksc_srcedit *e;
	int status = KSC_EXIT_OK;
	const char *error = NULL;
	bool written = false;

	qsort(tf->ns.v, tf->ns.n, sizeof(*tf->ns.v), cmp_strp);
	if (ksc_srcedit_new_from_path(run->ctx, tf->path, &e) < 0) {
		if (a->json)
			json_file(run, tf, NULL, 0, false, "cannot be read");
		return KSC_EXIT_UNREADABLE;
	}
	int n = ksc_srcedit_plan_imports(e, run->policy, (const char *const *)tf->ns.v,
					 tf->ns.n);
	for (size_t i = 0; i < ksc_srcedit_get_note_count(e); i++) {
		const struct ksc_srcedit_note *note = ksc_srcedit_get_note(e, i);
		if (!a->json)
			print_note("%s:%u: %s", text_esc(tf->path), note->line,
				   text_esc(note->text));
		status |= KSC_EXIT_FINDINGS;
	}
	if (n < 0) {
		error = n == -ENOENT ? "no MODULE_LICENSE() to add the imports after" : strerror(-n);
		print_error("%s: %s", text_esc(tf->path), error);
		status |= KSC_EXIT_UNREADABLE;
	} else if (n > 0 && !a->write) {
		status |= KSC_EXIT_FINDINGS;
		if (!a->quiet && !a->json)
			print_diff(e, run->base, &run->told);
	} else if (n > 0 && ksc_srcedit_commit(e, NULL) < 0) {
		error = "not written";
		status |= KSC_EXIT_UNREADABLE;
	} else if (n > 0) {
		written = true;
		if (!a->quiet && !a->json)
			printf("%s: %d import%s added\n", text_esc(tf->path), n, n == 1 ? "" : "s");
	}
	if (a->json)
		json_file(run, tf, e, n, written, error);
	ksc_srcedit_free(e);
	return status;
}

/*
 * The rules and syntax: --policy, else the kernel's release, else the modules' vermagic
 * (into buf). NULL when none is known.
 */
static const char *nsdeps_policy(const struct ksc_kernel *k, const struct module_list *c,
				 const char *policy, char *buf, size_t size)
{
	if (!policy)
		policy = ksc_kernel_get_release(k);
	buf[0] = '\0';
	for (size_t i = 0; !policy && i < c->n && !buf[0]; i++) {
		const char *vm = ksc_module_get_vermagic(c->mods[i]);
		if (vm)
			ksc_release_from_vermagic(vm, buf, size);
	}
	return policy ? policy : buf[0] ? buf : NULL;
}

/* Plan every module's missing imports, then edit the files: an exit status. */
static int add_imports(struct nsdeps_run *run, const struct ksc_report *rep)
{
	int status = KSC_EXIT_OK;

	for (size_t m = 0; m < ksc_report_get_module_count(rep); m++) {
		const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, m);
		struct strs missing = { 0 };
		status |= missing_namespaces(rep, v, run->args->quiet, &missing, run->jmods);
		if (missing.n)
			status |= plan_module(run, v, &missing);
		strs_free(&missing);
	}
	if (run->plan.n && !run->args->write &&
	    !(run->base = diff_base(run->args->src, &run->dirs))) {
		print_error("nsdeps: %s", strerror(errno));
		return status | KSC_EXIT_UNREADABLE;
	}
	for (size_t f = 0; f < run->plan.n; f++)
		status |= edit_file(run, &run->plan.files[f]);
	return status;
}

int cmd_nsdeps(struct ksc_ctx *ctx, int argc, char *argv[])
{
	struct nsdeps_args a = { 0 };
	struct nsdeps_run run = { .ctx = ctx, .args = &a };
	struct module_list c = { .ctx = ctx };
	struct ksc_kernel *k = NULL;
	struct ksc_report *rep = NULL;
	char release[128];
	int r, status = parse_args(&a, argc, argv);

	if (status != KSC_EXIT_OK)
		goto out;
	a.kern.progress = !a.quiet && !a.json;
	/* -k ROOT: as check, its installed modules and the kernel their verdicts need */
	if (a.kern.root && open_kernel_root(ctx, &a.kern) < 0) {
		status = KSC_EXIT_UNREADABLE;
		goto out;
	}
	c.root = a.kern.kroot;
	r = walk_paths(ctx, argv + optind, argc - optind, collect_module, &c, &c.errors);
	a.kern.for_mods = c.mods;
	a.kern.n_for_mods = c.n;
	if (r < 0 || !c.n || !(k = open_kernel(ctx, &a.kern, &c.errors, NULL))) {
		status = KSC_EXIT_UNREADABLE;
		goto out;
	}
	run.policy = nsdeps_policy(k, &c, a.kern.policy, release, sizeof(release));
	if (!run.policy) {
		status = usage_error("nsdeps", "cannot tell the kernel version (no release, no vermagic): use --policy");
		goto out;
	}
	struct ksc_check_opts o = {
		.sz = sizeof(o),
		.policy = run.policy,
		.allow_missing_ns = 0,
		.views = KSC_VIEW_MODPOST,
	};
	r = ksc_check_modules(k, c.mods, c.n, &o, &rep);
	if (r < 0) {
		print_error("nsdeps: %s", strerror(-r));
		status = r == -EINVAL ? KSC_EXIT_USAGE : KSC_EXIT_UNREADABLE;
		goto out;
	}
	if (a.json) {
		run.jmods = json_object_new_array();
		run.jfiles = json_object_new_array();
	}
	status = add_imports(&run, rep);
	if (c.errors)
		status |= KSC_EXIT_UNREADABLE;
	if (a.json) {
		json_object *doc = json_doc_new("nsdeps");
		json_object_object_add(doc, "policy", json_text(run.policy));
		json_object_object_add(doc, "write", json_object_new_boolean(a.write));
		json_object_object_add(doc, "source_folder", json_text(run.base ? run.base : a.src));
		json_object_object_add(doc, "modules", run.jmods);
		json_object_object_add(doc, "files", run.jfiles);
		run.jmods = run.jfiles = NULL;
		json_doc_print(doc);
		json_object_put(doc);
	}
out:
	json_object_put(run.jmods);
	json_object_put(run.jfiles);
	free(run.base);
	strs_free(&run.dirs);
	plan_free(&run.plan);
	ksc_report_unref(rep);
	ksc_kernel_unref(k);
	ksc_kernel_root_free(a.kern.kroot);
	module_list_free(&c);
	kernel_opts_free(&a.kern);
	return status < 0 ? KSC_EXIT_OK : status;
}
