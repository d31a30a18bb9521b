// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one road to a kernel of a tree: ksc_kernel_open() and ksc_kernel_open_opts().
 *
 *   locate (ksc-locate.c): the root's module folder, exports and config
 *   the module set (modset/ksc-modset.c): depmod.d, the walk, the index attached
 *   with modules to check and depmod's files current: only what their verdicts need
 *     (ksc-kernel-depmod.c), each file from its index record when current
 *   else every module from the set (records or files read in threads), the index kept
 *   the kernel's own exports, the distribution's quirks, the configuration
 *
 * Nothing here goes back up: the tree (above) builds its kernel through
 * ksc_kernel_from_modset() with a module set of its records.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/kernel.h"
#include "modset/modset.h"
#include "util/hash.h"
#include "util/opts.h"

int ksc_kernel_add_modset(struct ksc_kernel *k, struct ksc_modset *ms)
{
	const struct ksc_depmod_cfg *cfg = ksc_modset_cfg(ms);

	for (size_t i = 0; i < ksc_modset_count(ms); i++) {
		struct ksc_module *mod;
		int r = ksc_modset_module(ms, i, ksc_kernel_get_ctx(k), &mod);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			ksc_kernel_add_errors(k, 1);
			continue;
		}
		if (ksc_module_get_kind(mod) == KSC_KIND_MODULE) {
			r = ksc_kernel_add_module(k, mod);
			if (r >= 0 && ksc_modset_replaced(ms, i))
				r = ksc_kernel_note_replaced(k, cfg, mod, ksc_modset_relpath(ms, i),
							     ksc_modset_replaced(ms, i));
		}
		ksc_module_unref(mod);
		if (r < 0)
			return r;
	}
	return 0;
}

int ksc_kernel_from_modset(struct ksc_ctx *ctx, const struct ksc_kernel_location *loc,
			   struct ksc_modset *ms, struct ksc_kernel **out)
{
	struct ksc_kernel *k;
	int r;

	*out = NULL;
	r = ksc_kernel_new(ctx, &k);
	if (r < 0)
		return r;
	ksc_kernel_add_errors(k, ksc_modset_walk_errors(ms));
	r = ksc_kernel_set_release(k, ksc_kernel_location_get_release(loc));
	if (r >= 0)
		r = ksc_kernel_add_modset(k, ms);
	/* No in-tree module in the folder (a system with only the headers installed, and
	 * perhaps DKMS modules): the in-tree modules' exports as the headers' Module.symvers
	 * lists them. */
	char *cache = ksc_kernel_symvers_cache_of(ksc_modset_index_path(ms));
	if (r >= 0)
		r = ksc_kernel_open_rest(k, loc, !ksc_kernel_has_intree_module(k), cache);
	free(cache);
	if (r < 0) {
		ksc_kernel_unref(k);
		return r;
	}
	*out = k;
	return 0;
}

/* The module set of the location's module folder, with the index unless told not to. */
static struct ksc_modset_where where_of(const struct ksc_kernel_location *loc,
				       const char *index, bool few, bool defer_map)
{
	return (struct ksc_modset_where){
		.root = ksc_kernel_location_get_root(loc),
		.release = ksc_kernel_location_get_release(loc),
		.moddir = ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR),
		.index = index,
		.few = few,
		.defer_map = defer_map,
	};
}

static int open_modset(struct ksc_ctx *ctx, const struct ksc_kernel_location *loc,
		       const char *index, bool few, struct ksc_modset **out)
{
	struct ksc_modset_where w = where_of(loc, index, few, false);

	return ksc_modset_open(ctx, &w, out);
}

KSC_EXPORT int ksc_kernel_open_location(struct ksc_ctx *ctx,
					const struct ksc_kernel_location *loc,
					struct ksc_kernel **out)
{
	struct ksc_modset *ms;
	int r;

	*out = NULL;
	r = open_modset(ctx, loc, NULL, false, &ms);
	if (r < 0)
		return r;
	r = ksc_kernel_from_modset(ctx, loc, ms, out);
	ksc_modset_free(ms);
	return r;
}

KSC_EXPORT int ksc_kernel_open(struct ksc_ctx *ctx, const char *root, const char *release,
			       struct ksc_kernel **out)
{
	return ksc_kernel_open_opts(ctx, root, release, NULL, out);
}

/* The number of CPUs this process may run on. */
static unsigned int cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

/* Every module of the set: the index's records, the rest read in threads; the index kept. */
static int open_whole(struct ksc_ctx *ctx, const struct ksc_kernel_location *loc,
		      struct ksc_modset *ms, const struct ksc_kernel_open_opts *o,
		      struct ksc_kernel **out)
{
	int r = 0;

	if (o->index && !(o->flags & KSC_KERNEL_OPEN_NO_INDEX))
		r = ksc_modset_read_all(ms, o->jobs ? o->jobs : cpus(), o->progress,
					o->progress_data);
	if (r >= 0)
		r = ksc_kernel_from_modset(ctx, loc, ms, out);
	if (r >= 0 && ksc_modset_save_index(ms) < 0)
		ksc_dbg(ctx, "%s: index not written", o->index);
	return r;
}

/* The index file in `dir` for ROOT/lib/modules/RELEASE, as ksymcheck tree names it. */
static char *index_in(const char *dir, const char *root, const char *release)
{
	char cwd[PATH_MAX], abs[PATH_MAX * 2], moddir[PATH_MAX * 3], *out;

	if (!root || !*root)
		root = "/";
	if (root[0] != '/' && getcwd(cwd, sizeof(cwd)))
		snprintf(abs, sizeof(abs), "%s/%s", cwd, root);
	else
		snprintf(abs, sizeof(abs), "%s", root);
	for (size_t n = strlen(abs); n > 1 && abs[n - 1] == '/';)
		abs[--n] = '\0';
	snprintf(moddir, sizeof(moddir), "%s/lib/modules/%s", strcmp(abs, "/") == 0 ? "" : abs,
		 release);
	if (asprintf(&out, "%s/%s-%016llx.idx", dir, release,
		     (unsigned long long)ksc_hash64(moddir, strlen(moddir), 0)) < 0)
		return NULL;
	return out;
}

/*
 * A root opened for some modules and their kernel (ksc_kernel_root_*): one location, one
 * walk of its module folder and one index for both. What locating and walking logged is
 * held until the kernel is asked for, so that the modules' messages come first, as when
 * they were read before the kernel was opened.
 */
struct ksc_kernel_root {
	struct ksc_ctx *ctx;
	struct ksc_ctx *q;              /* the locator's and the walk's messages, held */
	struct ksc_msgbuf held;
	struct ksc_kernel_open_opts o;  /* index: `index` below; keyring: a reference */
	char *index;
	struct ksc_kernel_location *loc;
	struct ksc_modset *ms;          /* the whole tree's set, walked here */
	struct ksc_modset_job *job;     /* a few modules': walked in a thread (root_set()) */
	/* the index's lookup table, read while the walk runs, for the modules read before
	 * it ends (ksc_kidx_map_module()); then given to the job for the set */
	struct kidx_map *map;
	int map_err;
	bool map_held;
	char *moddir_real;              /* the module folder's realpath(), once */
	struct ksc_sigscratch sig;
	int err;                        /* locating or walking failed: said with the kernel */
	bool few;                       /* for a few modules: depmod's files, the lookup table */
	bool opened;                    /* the kernel was asked for (once) */
};

/* After the held messages are said, later ones go straight through. */
static void pass_on(void *data, int priority, const char *msg)
{
	ksc_log(data, priority, "%s", msg);
}

KSC_EXPORT struct ksc_kernel_root *ksc_kernel_root_free(struct ksc_kernel_root *kr)
{
	if (!kr)
		return NULL;
	ksc_modset_free(kr->ms);
	ksc_modset_job_free(kr->job);
	ksc_kidx_unmap(kr->map);
	ksc_sigscratch_fini(&kr->sig);
	free(kr->moddir_real);
	ksc_kernel_location_unref(kr->loc);
	ksc_keyring_unref(kr->o.keyring);
	ksc_unref(kr->q);
	ksc_msgbuf_fini(&kr->held);
	ksc_unref(kr->ctx);
	free(kr->index);
	free(kr);
	return NULL;
}

/* Locate, walk and attach the index, logging into kr->q; the failure kept in kr->err. */
static int root_open(struct ksc_kernel_root *kr, const char *root, const char *release)
{
	struct ksc_kernel_open_opts *o = &kr->o;
	int r = ksc_kernel_locate(kr->q, root, release, &kr->loc);

	if (r < 0)
		return r;
	if (o->index && !(kr->index = strdup(o->index)))
		return -ENOMEM;
	if (!kr->index && o->index_dir) {
		kr->index = index_in(o->index_dir, root, ksc_kernel_location_get_release(kr->loc));
		if (!kr->index)
			return -ENOMEM;
	}
	o->index = kr->index;
	o->index_dir = NULL;
	if (kr->few) { /* walked while the modules and depmod's files are read */
		struct ksc_modset_where w = where_of(kr->loc, kr->index, true, kr->index != NULL);
		r = ksc_modset_open_start(kr->q, &w, &kr->job);
		if (r >= 0 && kr->index) { /* its table read meanwhile, here */
			kr->map_err = ksc_kidx_map(kr->index, &kr->map);
			if (kr->map_err < 0)
				kr->map = NULL;
			kr->map_held = true;
		}
		return r;
	}
	return open_modset(kr->q, kr->loc, kr->index, false, &kr->ms);
}

/* The lookup table, no longer the root's: the job's, for the set. */
static void give_map(struct ksc_kernel_root *kr)
{
	if (!kr->map_held)
		return;
	ksc_modset_job_give_map(kr->job, kr->map, kr->map_err);
	kr->map = NULL;
	kr->map_held = false;
}

/* The root's module set, its walk waited for; NULL when it failed (kr->err). */
static struct ksc_modset *root_set(struct ksc_kernel_root *kr)
{
	int r;

	if (!kr->job)
		return kr->ms;
	give_map(kr);
	struct ksc_modset *ms = ksc_modset_job_wait(kr->job, &r);
	if (!ms && kr->err >= 0)
		kr->err = r;
	return ms;
}

/* ksc_kernel_root_new(), for a few modules (`few`) or for the whole tree. */
static int root_new(struct ksc_ctx *ctx, const char *root, const char *release,
		    const struct ksc_kernel_open_opts *opts, bool few,
		    struct ksc_kernel_root **out)
{
	struct ksc_kernel_root *kr;

	*out = NULL;
	if (!ctx || (opts && !opts_valid(opts)))
		return -EINVAL;
	kr = calloc(1, sizeof(*kr));
	if (!kr)
		return -ENOMEM;
	kr->ctx = ksc_ref(ctx);
	kr->o.sz = sizeof(kr->o);
	(void)opts_copy(&kr->o, opts);
	kr->o.modules = NULL;
	kr->o.n_modules = 0;
	ksc_keyring_ref(kr->o.keyring);
	if (kr->o.flags & KSC_KERNEL_OPEN_NO_INDEX)
		kr->o.index = kr->o.index_dir = NULL;
	kr->few = few && !(kr->o.flags & KSC_KERNEL_OPEN_NO_DEPMOD);
	kr->q = ksc_new();
	if (!kr->q) {
		ksc_kernel_root_free(kr);
		return -ENOMEM;
	}
	ksc_set_log_priority(kr->q, ksc_get_log_priority(ctx));
	ksc_set_log_fn(kr->q, ksc_msgbuf_log, &kr->held);
	kr->err = root_open(kr, root, release);
	if (kr->err == -ENOMEM || kr->held.oom) {
		ksc_kernel_root_free(kr);
		return -ENOMEM;
	}
	*out = kr;
	return 0;
}

KSC_EXPORT int ksc_kernel_root_new(struct ksc_ctx *ctx, const char *root, const char *release,
				   const struct ksc_kernel_open_opts *opts,
				   struct ksc_kernel_root **out)
{
	return root_new(ctx, root, release, opts, true, out);
}

/*
 * `path` below the module folder: its path there (in buf), or NULL. Both resolved by
 * realpath(), so a path through a link (ROOT/lib -> usr/lib) is found too; what it
 * names is then proven by the record's key, not by the path.
 */
static const char *rel_in_moddir(struct ksc_kernel_root *kr, const char *path, char *buf)
{
	const char *moddir = ksc_kernel_location_get_path(kr->loc, KSC_KFILE_MODULE_DIR);

	if (!kr->moddir_real && !(kr->moddir_real = realpath(moddir, NULL)))
		return NULL;
	size_t ml = strlen(kr->moddir_real);
	if (!realpath(path, buf) || strncmp(buf, kr->moddir_real, ml) != 0 || buf[ml] != '/')
		return NULL;
	return buf + ml + 1;
}

/* The module at `path` from the table read while the walk runs: 0, 1 (not there), -errno. */
static int read_from_map(struct ksc_kernel_root *kr, const char *path, const struct stat *st,
			 struct ksc_module **out)
{
	const char *moddir = ksc_kernel_location_get_path(kr->loc, KSC_KFILE_MODULE_DIR);
	char buf[PATH_MAX];
	const char *rel = kr->map ? rel_in_moddir(kr, path, buf) : NULL;

	if (!rel)
		return 1;
	int r = ksc_kidx_map_module(kr->map, moddir, ksc_kernel_location_get_release(kr->loc),
				    rel, path, st, kr->ctx, &kr->sig, out);
	if (r == 0)
		ksc_dbg(kr->ctx, "%s: from the index's record of %s/%s", path, moddir, rel);
	return r;
}

KSC_EXPORT int ksc_kernel_root_read_module(struct ksc_kernel_root *kr, const char *path,
					   struct ksc_module **out)
{
	struct stat st;
	size_t i;

	*out = NULL;
	if (!kr || !path)
		return -EINVAL;
	/* a regular file's stat, once: its record is looked for by it */
	bool reg = kr->err >= 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
	if (reg && kr->map) {
		int r = read_from_map(kr, path, &st, out);
		if (r <= 0)
			return r;
	}
	/* the very file the walk met in the module folder, by whatever path: its record */
	struct ksc_modset *ms = reg ? root_set(kr) : NULL;
	if (ms && ksc_modset_find_file(ms, &st, &i)) {
		int r = ksc_modset_module_indexed(ms, i, path, kr->ctx, out);
		if (r == 0)
			ksc_dbg(kr->ctx, "%s: from the index's record of %s", path,
				ksc_modset_path(ms, i));
		if (r <= 0)
			return r;
	}
	return ksc_module_new_from_module_path(kr->ctx, path, out);
}

/* Say what was held, in order; later messages of the location go straight through. */
static void say_held(struct ksc_kernel_root *kr)
{
	ksc_msgbuf_replay(&kr->held, kr->ctx);
	ksc_msgbuf_clear(&kr->held);
	ksc_set_log_fn(kr->q, pass_on, kr->ctx);
}

KSC_EXPORT int ksc_kernel_root_open_kernel(struct ksc_kernel_root *kr,
					   struct ksc_module *const *mods, size_t n,
					   struct ksc_kernel **out)
{
	struct ksc_ctx *ctx;
	int r;

	*out = NULL;
	if (!kr || (n && !mods) || kr->opened)
		return -EINVAL;
	kr->opened = true;
	ctx = kr->ctx;
	say_held(kr);
	if (kr->err < 0)
		return kr->err;
	r = 1;
	if (kr->few && n) {
		give_map(kr);
		r = ksc_kernel_depmod_open(ctx, kr->loc, kr->job, mods, n, out);
		if (r == 0 && ksc_modset_save_index(root_set(kr)) < 0)
			ksc_dbg(ctx, "%s: index not written", kr->index);
		r = r == -ESTALE ? 1 : r;
	}
	struct ksc_modset *ms = r > 0 ? root_set(kr) : NULL;
	if (r > 0 && !ms) { /* the walk failed: as ksc_modset_open() would have said */
		ksc_kernel_unref(*out);
		*out = NULL;
		return kr->err;
	}
	if (r > 0)
		r = open_whole(ctx, kr->loc, ms, &kr->o, out);
	if (r >= 0 && kr->o.keyring)
		ksc_kernel_set_keyring(*out, kr->o.keyring);
	return r < 0 ? r : 0;
}

KSC_EXPORT int ksc_kernel_open_opts(struct ksc_ctx *ctx, const char *root, const char *release,
				    const struct ksc_kernel_open_opts *opts,
				    struct ksc_kernel **out)
{
	struct ksc_kernel_root *kr;
	size_t n = opts_get(opts, n_modules, 0);
	struct ksc_module *const *mods = opts_get(opts, modules, NULL);
	int r;

	*out = NULL;
	if (n && !mods)
		return -EINVAL;
	r = root_new(ctx, root, release, opts, n > 0, &kr);
	if (r < 0)
		return r;
	r = ksc_kernel_root_open_kernel(kr, mods, n, out);
	ksc_kernel_root_free(kr);
	return r;
}
/* ---- ksc_kernel_open_path: one path that names a kernel, whatever its form ---- */

static bool looks_binary(const char *path)
{
	unsigned char h[0x210];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(h, 1, sizeof(h), f);
	fclose(f);
	if (n >= 4 && memcmp(h, "\177ELF", 4) == 0)
		return true;
	if (ksc_detect_compression(h, n) != KSC_COMPRESSION_NONE)
		return true;
	return n >= 0x206 && memcmp(h + 0x202, "HdrS", 4) == 0; /* bzImage */
}

KSC_EXPORT int ksc_kernel_open_path(struct ksc_ctx *ctx, const char *path,
				    struct ksc_kernel **out)
{
	struct stat st;
	int r;

	*out = NULL;
	if (stat(path, &st) < 0) {
		ksc_err(ctx, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISDIR(st.st_mode)) {
		/* a root: the kernel locator picks its release (the only one there) */
		char p[4096], q[4096];
		snprintf(p, sizeof(p), "%s/lib/modules", path);
		snprintf(q, sizeof(q), "%s/usr/lib/modules", path);
		if ((stat(p, &st) == 0 && S_ISDIR(st.st_mode)) ||
		    (stat(q, &st) == 0 && S_ISDIR(st.st_mode)))
			return ksc_kernel_open(ctx, path, NULL, out);
		/* ROOT/lib/modules/RELEASE given directly */
		char *copy = strdup(path), *slash;
		if (!copy)
			return -ENOMEM;
		size_t l = strlen(copy);
		while (l > 1 && copy[l - 1] == '/')
			copy[--l] = '\0';
		slash = strrchr(copy, '/');
		if (slash && slash - copy >= 12 && strncmp(slash - 12, "/lib/modules", 12) == 0) {
			*slash = '\0';
			const char *rel = slash + 1;
			copy[slash - copy - 12] = '\0';
			r = ksc_kernel_open(ctx, copy[0] ? copy : "/", rel, out);
			free(copy);
			return r;
		}
		free(copy);
		ksc_err(ctx, "%s: not a kernel root (ROOT/lib/modules/RELEASE) nor a module directory of one",
			path);
		return -EINVAL;
	}
	struct ksc_kernel *k;
	r = ksc_kernel_new(ctx, &k);
	if (r < 0)
		return r;
	if (looks_binary(path)) {
		struct ksc_module *vm;
		r = ksc_module_new_from_path(ctx, path, &vm);
		if (r >= 0 && ksc_module_get_kind(vm) != KSC_KIND_VMLINUX) {
			ksc_err(ctx, "%s: a module, not a kernel image", path);
			r = -EINVAL;
		} else if (r >= 0) {
			r = ksc_kernel_add_vmlinux(k, vm);
		}
		ksc_module_unref(vm);
	} else {
		struct ksc_symvers *sv;
		r = ksc_symvers_new_from_path(ctx, path, &sv);
		if (r >= 0) {
			if (ksc_symvers_get_error_count(sv))
				ksc_kernel_add_errors(k, 1);
			r = ksc_kernel_add_symvers(k, sv);
			ksc_symvers_unref(sv);
		}
	}
	if (r < 0) {
		ksc_kernel_unref(k);
		return r;
	}
	*out = k;
	return 0;
}

