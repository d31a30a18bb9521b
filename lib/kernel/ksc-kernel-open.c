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
		int r = ksc_modset_module(ms, i, k->ctx, &mod);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			k->errors++;
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
	k->errors += ksc_modset_walk_errors(ms);
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
				       const char *index, bool few)
{
	return (struct ksc_modset_where){
		.root = ksc_kernel_location_get_root(loc),
		.release = ksc_kernel_location_get_release(loc),
		.moddir = ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR),
		.index = index,
		.few = few,
	};
}

static int open_modset(struct ksc_ctx *ctx, const struct ksc_kernel_location *loc,
		       const char *index, bool few, struct ksc_modset **out)
{
	struct ksc_modset_where w = where_of(loc, index, few);

	return ksc_modset_open(ctx, &w, out);
}

/*
 * The kernel for a few modules from depmod's files, the folder walked in a thread while
 * they are read: 0 and *out, 1 (they cannot stand: *ms is the set for the whole read),
 * or -errno.
 */
static int open_few(struct ksc_ctx *ctx, const struct ksc_kernel_location *loc,
		    const char *index, const struct ksc_kernel_open_opts *o,
		    struct ksc_modset **ms, struct ksc_kernel **out)
{
	struct ksc_modset_where w = where_of(loc, index, true);
	struct ksc_modset_job *job;
	int r = ksc_modset_open_start(ctx, &w, &job), e;

	if (r < 0)
		return r;
	r = ksc_kernel_depmod_open(ctx, loc, job, o->modules, o->n_modules, out);
	*ms = ksc_modset_job_take(job, &e);
	ksc_modset_job_free(job);
	if (!*ms) { /* the walk failed: as ksc_modset_open() would have said */
		ksc_kernel_unref(*out);
		*out = NULL;
		return e;
	}
	if (r == 0 && ksc_modset_save_index(*ms) < 0)
		ksc_dbg(ctx, "%s: index not written", index);
	return r == -ESTALE ? 1 : r;
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

KSC_EXPORT int ksc_kernel_open_opts(struct ksc_ctx *ctx, const char *root, const char *release,
				    const struct ksc_kernel_open_opts *opts,
				    struct ksc_kernel **out)
{
	struct ksc_kernel_open_opts o = { .sz = sizeof(o) };
	struct ksc_kernel_location *loc;
	struct ksc_modset *ms = NULL;
	int r;

	*out = NULL;
	if (!ctx || opts_copy(&o, opts) < 0 || (o.n_modules && !o.modules))
		return -EINVAL;
	if (o.flags & KSC_KERNEL_OPEN_NO_INDEX)
		o.index = NULL;
	r = ksc_kernel_locate(ctx, root, release, &loc);
	if (r < 0)
		return r;
	char *index = NULL;
	if (!o.index && o.index_dir && !(o.flags & KSC_KERNEL_OPEN_NO_INDEX)) {
		index = index_in(o.index_dir, root, ksc_kernel_location_get_release(loc));
		if (!index)
			r = -ENOMEM;
		o.index = index;
	}
	/* for a few modules from depmod's files, the index's records found one by one */
	bool few = o.n_modules && !(o.flags & KSC_KERNEL_OPEN_NO_DEPMOD);
	if (r >= 0 && few)
		r = open_few(ctx, loc, o.index, &o, &ms, out);
	else if (r >= 0)
		r = open_modset(ctx, loc, o.index, false, &ms);
	if (r == 0 && !*out)
		r = open_whole(ctx, loc, ms, &o, out);
	if (r > 0)
		r = open_whole(ctx, loc, ms, &o, out);
	if (r >= 0 && o.keyring)
		ksc_kernel_set_keyring(*out, o.keyring);
	ksc_modset_free(ms);
	ksc_kernel_location_unref(loc);
	free(index);
	return r < 0 ? r : 0;
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
				k->errors++;
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

