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
#include "util/hash.h"
#include "tools/ksc-tool.h"

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

/*
 * Can the index be kept: it exists, or the nearest folder of its path that exists is
 * writable (a read-only cache would make every run read and judge the whole tree).
 */
static bool index_keepable(const char *index)
{
	char dir[PATH_MAX];

	if (access(index, R_OK) == 0)
		return true;
	snprintf(dir, sizeof(dir), "%s", index);
	for (char *slash; (slash = strrchr(dir, '/')) && slash != dir;) {
		*slash = '\0';
		if (access(dir, F_OK) == 0)
			return access(dir, W_OK | X_OK) == 0;
	}
	return false;
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

/*
 * The kernel's part of the tree read through its index: a tree opened as `tree` opens it
 * by default (so both keep one index), quietly (a problem sends the caller to
 * ksc_kernel_open(), which says it), saved when it changed.
 */
static int kernel_from_index(struct ksc_ctx *ctx, const char *root, const char *kver,
			     bool progress, struct ksc_kernel **out)
{
	struct ksc_ctx *q = ksc_new();
	struct ksc_kernel_location *loc = NULL;
	int r = -ENODATA;

	if (!q)
		return -ENOMEM;
	ksc_set_log_fn(q, NULL, NULL);
	if (!kver && ksc_kernel_locate(q, root, NULL, &loc) == 0)
		kver = ksc_kernel_location_get_release(loc);
	char *index = kver ? default_index(root, kver) : NULL;
	if (index && index_keepable(index)) {
		struct ksc_check_opts co = { .sz = sizeof(co), .allow_missing_ns = -1,
					     .views = KSC_VIEW_BOTH };
		struct progress_bar bar = { .on = progress && isatty(STDERR_FILENO) };
		struct ksc_tree_opts o = { .sz = sizeof(o), .index = index, .check = &co,
					   .progress = draw_bar, .progress_data = &bar };
		struct ksc_tree *t;
		r = ksc_keyring_new(q, &o.keyring); /* the keys `tree` verifies with */
		if (r == 0)
			r = add_image_keys(q, o.keyring, root, kver);
		if (r == 0)
			r = ksc_tree_open(q, root, kver, &o, &t);
		ksc_keyring_unref(o.keyring);
		clear_bar(&bar);
		if (r == 0) {
			(void)ksc_tree_save_index(t); /* a read-only cache: no error */
			r = ksc_tree_get_kernel(t, ctx, out);
			ksc_tree_unref(t);
		}
	}
	free(index);
	ksc_kernel_location_unref(loc);
	ksc_unref(q);
	return r;
}

/* Is there an index `tree` keeps for this root's release (current or not)? */
static bool index_present(const char *root, const char *kver)
{
	struct ksc_ctx *q = ksc_new();
	struct ksc_kernel_location *loc = NULL;
	bool present = false;

	if (!q)
		return false;
	ksc_set_log_fn(q, NULL, NULL);
	if (!kver && ksc_kernel_locate(q, root, NULL, &loc) == 0)
		kver = ksc_kernel_location_get_release(loc);
	char *index = kver ? default_index(root, kver) : NULL;
	present = index && access(index, R_OK) == 0;
	free(index);
	ksc_kernel_location_unref(loc);
	ksc_unref(q);
	return present;
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

int open_root_kernel(struct ksc_ctx *ctx, const char *root, const char *kver, bool progress,
		     struct ksc_kernel **out)
{
	*out = NULL;
	if (!index_disabled()) {
		int r = kernel_from_index(ctx, root, kver, progress, out);
		if (r == 0 || r == -ENOMEM)
			return r;
	}
	return ksc_kernel_open(ctx, root, kver, out);
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

struct ksc_kernel *open_kernel(struct ksc_ctx *ctx, const struct kernel_opts *a, unsigned *errors,
			       struct ksc_keyring *kr)
{
	struct ksc_kernel *k = NULL;
	int r;

	/*
	 * depmod's files, when current: only what these modules' verdicts need. An index
	 * `tree` keeps is cheaper still (its records are read, no module decompressed):
	 * when there is one, open_root_kernel() goes first.
	 */
	if (a->root && a->n_for_mods && !env_set("KSYMCHECK_NO_DEPMOD") &&
	    (index_disabled() || !index_present(a->root, a->kver))) {
		r = ksc_kernel_open_for_modules(ctx, a->root, a->kver, a->for_mods, a->n_for_mods,
						&k);
		if (r == -ENOMEM)
			return NULL;
	}
	if (k) {
		*errors += ksc_kernel_get_error_count(k);
	} else if (a->root) {
		r = open_root_kernel(ctx, a->root, a->kver, a->progress, &k);
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
	int r = ksc_module_new_from_module_path(l->ctx, path, &mod);

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
