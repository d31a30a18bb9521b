// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by the subcommands. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/array.h"
#include "util/fileio.h"
#include "util/hash.h"
#include "tools/ksc-tool.h"
#include "tools/report.h"

struct walk_tramp {
	int (*fn)(const char *path, const char *root, void *data);
	void *data;
	const char *root;
	size_t found;
};

static int tramp(const char *path, void *data)
{
	struct walk_tramp *t = data;

	t->found++;
	return t->fn(path, t->root, t->data);
}

int walk_paths(struct ksc_ctx *ctx, char **paths, int n,
	       int (*fn)(const char *path, const char *root, void *data), void *data,
	       unsigned *errors)
{
	int ret = 0;

	for (int i = 0; i < n && ret >= 0; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			struct walk_tramp t = { fn, data, paths[i], 0 };
			unsigned before = *errors;
			ret = ksc_walk_modules(ctx, paths[i], NULL, tramp, &t, errors);
			/* A folder that holds no module is an error, unless the walk said why. */
			if (ret >= 0 && !t.found && *errors == before) {
				print_error("%s: no module found", paths[i]);
				(*errors)++;
			}
		} else {
			/* Files, and paths that do not exist: the reader reports those. */
			ret = fn(paths[i], NULL, data);
		}
	}
	return ret;
}

/* ---- the kernel a command checks against (check, nsdeps) ---- */

static int add_provider(const char *path, const char *root, void *data)
{
	struct ksc_kernel *k = data;
	struct ksc_module *mod;
	int r = ksc_module_new_from_module_path(ksc_kernel_get_ctx(k), path, &mod);

	if (r < 0)
		return r == -ENOMEM ? r : 1;
	r = ksc_module_get_kind(mod) == KSC_KIND_MODULE ? ksc_kernel_add_module(k, mod) : 0;
	ksc_module_unref(mod);
	return r;
}

/*
 * The release a Module.symvers belongs to, from where it lies (its real path): the
 * folder of Debian's (and kbuild's installed) headers, usr/src/linux-headers-RELEASE/,
 * or lib/modules/RELEASE/build/. False for a kernel build tree of its own.
 */
static bool release_of_symvers(const char *path, char *out, size_t size)
{
	char *real = realpath(path, NULL);
	const char *p = real ? real : path;
	const char *h = strstr(p, "/linux-headers-");
	bool ok = false;

	if (h) {
		h += strlen("/linux-headers-");
		size_t n = strcspn(h, "/");
		ok = n > 0 && n < size && strcmp(h + n, "/Module.symvers") == 0;
		if (ok)
			snprintf(out, size, "%.*s", (int)n, h);
	}
	if (!ok && (h = strstr(path, "/modules/"))) {
		h += strlen("/modules/");
		size_t n = strcspn(h, "/");
		ok = n > 0 && n < size && strcmp(h + n, "/build/Module.symvers") == 0;
		if (ok)
			snprintf(out, size, "%.*s", (int)n, h);
	}
	free(real);
	unsigned a, b;
	return ok && sscanf(out, "%u.%u", &a, &b) == 2;
}

/* ---- the index `tree` keeps ---- */

char *default_index(const char *root, const char *kver)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	char cwd[PATH_MAX], dir[PATH_MAX * 2], moddir[PATH_MAX * 3];
	char *out;

	if (!root || !*root)
		root = "/";
	if (root[0] != '/' && getcwd(cwd, sizeof(cwd)))
		snprintf(dir, sizeof(dir), "%s/%s", cwd, root);
	else
		snprintf(dir, sizeof(dir), "%s", root);
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = '\0';
	snprintf(moddir, sizeof(moddir), "%s/lib/modules/%s",
		 strcmp(dir, "/") == 0 ? "" : dir, kver);
	uint64_t hash = ksc_hash64(moddir, strlen(moddir), 0);
	int r;
	if (x && x[0] == '/')
		r = asprintf(&out, "%s/ksymcheck/tree/%s-%016llx.idx", x, kver,
			     (unsigned long long)hash);
	else if (h && *h)
		r = asprintf(&out, "%s/.cache/ksymcheck/tree/%s-%016llx.idx", h, kver,
			     (unsigned long long)hash);
	else
		return NULL;
	return r < 0 ? NULL : out;
}

/* An environment switch: set, and not "0". */
static bool env_set(const char *name)
{
	const char *e = getenv(name);

	return e && *e && strcmp(e, "0") != 0;
}

static bool index_disabled(void)
{
	return env_set("KSYMCHECK_NO_INDEX");
}

/* Make the folders of `path` (not its last part), as the index's writer does. */
static void make_parents(const char *path)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		(void)mkdir(dir, 0755); /* exists, or the cache is not written: no error */
		*p = '/';
	}
}

char *keys_cache_path(const char *root, const char *kver)
{
	if (index_disabled() || !kver)
		return NULL;
	char *idx = default_index(root, kver), *out = NULL;
	size_t n = idx ? strlen(idx) : 0;
	if (n > 4 && asprintf(&out, "%.*s.keys", (int)(n - 4), idx) < 0)
		out = NULL;
	/* with depmod's files, no index is written: its folder may not exist yet */
	if (out)
		make_parents(out);
	free(idx);
	return out;
}

int add_image_keys(struct ksc_ctx *ctx, struct ksc_keyring *kr, const char *root,
		   const char *kver)
{
	char *cache = keys_cache_path(root, kver);
	int prio = ksc_get_log_priority(ctx);

	ksc_set_log_priority(ctx, -1);
	int r = ksc_keyring_add_kernel_cached(kr, root, kver, cache);
	ksc_set_log_priority(ctx, prio);
	free(cache);
	return r == -ENOMEM ? r : 0;
}

void release_kernel(struct ksc_kernel *k)
{
#if defined(__SANITIZE_ADDRESS__)
	ksc_kernel_unref(k);
#else
	static struct ksc_kernel *kept;
	kept = k;
	(void)kept;
#endif
}

/*
 * The folder of the indexes `tree` keeps (default_index()'s): the library reads and
 * keeps the index of a root's release there. NULL when KSYMCHECK_NO_INDEX is set or
 * there is no cache folder.
 */
static char *index_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	char *out;

	if (index_disabled())
		return NULL;
	if (x && x[0] == '/')
		return asprintf(&out, "%s/ksymcheck/tree", x) < 0 ? NULL : out;
	if (h && *h)
		return asprintf(&out, "%s/.cache/ksymcheck/tree", h) < 0 ? NULL : out;
	return NULL;
}

/* The cache policy, the only input of the library's road: the folder of the indexes. */
static struct ksc_kernel_open_opts root_opts(const char *dir, struct progress_bar *bar)
{
	return (struct ksc_kernel_open_opts){
		.sz = sizeof(struct ksc_kernel_open_opts), .index_dir = dir,
		.progress = draw_bar, .progress_data = bar,
		.flags = (dir ? 0 : KSC_KERNEL_OPEN_NO_INDEX) |
			 (env_set("KSYMCHECK_NO_DEPMOD") ? KSC_KERNEL_OPEN_NO_DEPMOD : 0),
	};
}

/* A root's kernel through ksc_kernel_open_opts(). */
static int open_root(struct ksc_ctx *ctx, const char *root, const char *kver, bool progress,
		     struct ksc_module *const *mods, size_t n, struct ksc_kernel **out)
{
	struct progress_bar bar = { .on = progress && isatty(STDERR_FILENO) };
	char *dir = index_dir();
	struct ksc_kernel_open_opts o = root_opts(dir, &bar);

	o.modules = mods;
	o.n_modules = n;
	int r = ksc_kernel_open_opts(ctx, root, kver, &o, out);

	clear_bar(&bar);
	free(dir);
	return r;
}

int open_kernel_root(struct ksc_ctx *ctx, struct kernel_opts *a)
{
	char *dir = index_dir();
	struct ksc_kernel_open_opts o = root_opts(dir, &a->bar);

	a->bar = (struct progress_bar){ .on = a->progress && isatty(STDERR_FILENO) };
	int r = ksc_kernel_root_new(ctx, a->root, a->kver, &o, &a->kroot);

	free(dir);
	if (r < 0)
		print_error("%s: %s", a->root, strerror(-r));
	return r;
}

int open_root_kernel(struct ksc_ctx *ctx, const char *root, const char *kver, bool progress,
		     struct ksc_kernel **out)
{
	return open_root(ctx, root, kver, progress, NULL, 0, out);
}

int open_kernel_path(struct ksc_ctx *ctx, const char *path, bool progress,
		     struct ksc_kernel **out)
{
	char p[PATH_MAX], q[PATH_MAX];
	struct stat st;

	/* a root: as ksc_kernel_open_path() takes it, the locator's release */
	*out = NULL;
	snprintf(p, sizeof(p), "%s/lib/modules", path);
	snprintf(q, sizeof(q), "%s/usr/lib/modules", path);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	    ((stat(p, &st) == 0 && S_ISDIR(st.st_mode)) ||
	     (stat(q, &st) == 0 && S_ISDIR(st.st_mode))))
		return open_root_kernel(ctx, path, NULL, progress, out);
	return ksc_kernel_open_path(ctx, path, out);
}

struct ksc_kernel *open_kernel(struct ksc_ctx *ctx, struct kernel_opts *a, unsigned *errors,
			       struct ksc_keyring *kr)
{
	struct ksc_kernel *k = NULL;
	int r;

	if (a->kroot) {
		/* the root the modules were read from gives their kernel */
		r = ksc_kernel_root_open_kernel(a->kroot, a->for_mods, a->n_for_mods, &k);
		clear_bar(&a->bar);
		if (r < 0)
			return NULL;
		*errors += ksc_kernel_get_error_count(k);
	} else if (a->root) {
		/* the library decides: depmod's files, the index, or the whole tree */
		r = open_root(ctx, a->root, a->kver, a->progress, a->for_mods, a->n_for_mods, &k);
		if (r < 0)
			return NULL;
		*errors += ksc_kernel_get_error_count(k);
	} else {
		r = ksc_kernel_new(ctx, &k);
		if (r < 0)
			return NULL;
		if (a->kver && ksc_kernel_set_release(k, a->kver) < 0)
			goto err;
	}
	if (a->symvers) {
		struct ksc_symvers *sv;
		if (ksc_symvers_new_from_path(ctx, a->symvers, &sv) < 0)
			goto err;
		if (ksc_symvers_get_error_count(sv))
			(*errors)++;
		r = ksc_kernel_add_symvers(k, sv);
		ksc_symvers_unref(sv);
		if (r < 0)
			goto err;
		char rel[128];
		if (!ksc_kernel_get_release(k) && release_of_symvers(a->symvers, rel, sizeof(rel)) &&
		    ksc_kernel_set_release(k, rel) < 0)
			goto err;
	}
	if (a->vmlinux) {
		struct ksc_module *vm;
		if (ksc_module_new_from_path(ctx, a->vmlinux, &vm) < 0)
			goto err;
		if (ksc_module_get_kind(vm) != KSC_KIND_VMLINUX) {
			print_error("%s: not a kernel image", a->vmlinux);
			ksc_module_unref(vm);
			goto err;
		}
		r = ksc_kernel_add_vmlinux(k, vm);
		if (r >= 0 && kr) /* its built-in keys verify module signatures */
			r = ksc_keyring_add_vmlinux(kr, vm);
		ksc_module_unref(vm);
		if (r < 0)
			goto err;
	}
	for (int i = 0; i < a->n_module_dirs; i++) {
		unsigned bad = 0;
		r = walk_paths(ctx, (char **)&a->module_dirs[i], 1, add_provider, k, &bad);
		*errors += bad;
		if (r < 0)
			goto err;
	}
	if (a->config && ksc_kernel_read_config(k, a->config) < 0)
		goto err;
	return k;
err:
	ksc_kernel_unref(k);
	return NULL;
}

/* ---- the modules given on a command line ---- */

int collect_module(const char *path, const char *root, void *data)
{
	struct module_list *l = data;
	struct ksc_module *mod;
	/* with -k ROOT, the library takes an installed module from the index when current */
	int r = l->root ? ksc_kernel_root_read_module(l->root, path, &mod)
			: ksc_module_new_from_module_path(l->ctx, path, &mod);

	if (r < 0) {
		l->errors++;
		return r == -ENOMEM ? r : 0;
	}
	if (ksc_module_get_kind(mod) != KSC_KIND_MODULE) {
		print_error("%s: not a module", path);
		ksc_module_unref(mod);
		l->errors++;
		return 0;
	}
	/* room for one more and the NULL after them */
	if (array_reserve(l->mods, l->cap, l->n + 2, 16) < 0) {
		ksc_module_unref(mod);
		return -ENOMEM;
	}
	l->mods[l->n++] = mod;
	l->mods[l->n] = NULL;
	return 0;
}

void module_list_free(struct module_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		ksc_module_unref(l->mods[i]);
	free(l->mods);
	l->mods = NULL;
	l->n = l->cap = 0;
}

/* Here, not in output.c, which fuzz/fuzz-output.c builds without the page or the printer. */
int json_doc_html(const char *path, const char *title, json_object *doc, const char *kind)
{
	int r = report_write_html(path, title, doc, kind);

	if (r < 0) {
		print_error("%s: %s", path, ksc_write_strerror(-r));
		return KSC_EXIT_UNREADABLE;
	}
	return KSC_EXIT_OK;
}
