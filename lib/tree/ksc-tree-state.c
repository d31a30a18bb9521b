// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * struct ksc_tree: the tree's shared core (what ksc_tree_open() was asked and found:
 * the context, options, root, module folder, module set, the index of the last run,
 * the statistics) and its parts, each a struct of the file that owns it (struct
 * tree_parts). Defined here, at the bottom of the wing's order (only ksc-tree-derived.c
 * is below), as every file of the wing reads the core: they call the getters below. The
 * tree's life is ksc-tree.c's, above the parts' owners, which free their parts
 * (ksc_tree_unref()); then tree_free() frees the core. Also the small helpers the steps
 * share. It calls no other file of the tree but ksc-tree-derived.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tree/tree-private.h"
#include "util/opts.h"

struct ksc_tree {
	int refcount;
	struct ksc_ctx *ctx;
	struct ksc_tree_opts opts;
	struct ksc_check_opts check;
	bool has_check;
	char *policy;

	/* where: the root, its module folder, the index file */
	char *root, *release, *moddir, *index_path;
	char *root_arg; /* root as the caller gave it (ksc_tree_get_kernel()'s paths) */
	struct ksc_kernel_location *loc; /* the kernel locator's answer for root and release */
	struct ksc_modset *ms; /* the module set: depmod.d, the walk and its files */
	uint64_t modset_fp;    /* its fingerprint */
	int dfd;	       /* the module folder, open */
	int64_t start_ns;      /* when the run started (files newer are racy) */

	/*
	 * the index of the last run: opened and saved by ksc-tree-index.c, but replayed by
	 * the walk and read by the reading, below it
	 */
	struct kidx idx;
	bool have_idx;
	bool dirty; /* this run changed what it says */

	struct tree_fps fps; /* what the derived results depend on (fingerprints()) */
	struct ksc_tree_stats st;
	struct tree_parts parts;
};

struct ksc_tree *tree_new(struct ksc_ctx *ctx)
{
	struct ksc_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->refcount = 1;
	t->ctx = ksc_ref(ctx);
	t->dfd = -1;
	return t;
}

KSC_DEFINE_REF(ksc_tree_ref, struct ksc_tree)

bool tree_put(struct ksc_tree *t)
{
	return --t->refcount == 0;
}

void tree_free(struct ksc_tree *t)
{
	free(t->root_arg);
	ksc_kidx_free(&t->idx);
	ksc_modset_free(t->ms);
	ksc_keyring_unref(t->opts.keyring);
	if (t->dfd >= 0)
		close(t->dfd);
	free(t->root);
	free(t->release);
	free(t->moddir);
	ksc_kernel_location_unref(t->loc);
	free(t->index_path);
	free(t->policy);
	if (t->has_check)
		free((char *)t->check.policy);
	ksc_unref(t->ctx);
	free(t);
}

/* The caller's options copied; the time the run starts. 0 or -errno. */
static int copy_opts(struct ksc_tree *t, const struct ksc_tree_opts *opts)
{
	int r = opts_copy(&t->opts, opts);

	if (r < 0)
		return r;
	t->opts.keyring = ksc_keyring_ref(t->opts.keyring);
	if (t->opts.check) {
		t->check = (struct ksc_check_opts){ .sz = sizeof(t->check),
						    .allow_missing_ns = -1 };
		r = opts_copy(&t->check, t->opts.check);
		if (r < 0)
			return r;
		t->has_check = true;
	}
	t->opts.check = NULL;
	t->st.wall_total = now_s();
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	t->start_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec;
	return 0;
}

/* The policy: the check options' or the release's, as MAJOR.MINOR. 0 or -errno. */
static int set_policy(struct ksc_tree *t, const char *kver)
{
	struct ksc_kver v;

	if (t->has_check && t->check.policy && !(t->check.policy = strdup(t->check.policy)))
		return -ENOMEM;
	const char *pol = t->has_check && t->check.policy ? t->check.policy : kver;
	if (ksc_kver_parse(pol, &v) < 0) {
		ksc_err(t->ctx, "%s: not a kernel version", pol);
		return -EINVAL;
	}
	if (asprintf(&t->policy, "%u.%u", v.major, v.minor) < 0) {
		t->policy = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The module folder, open. 0 or -errno (said). */
static int open_moddir(struct ksc_tree *t)
{
	t->dfd = open(t->moddir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->dfd >= 0)
		return 0;
	int r = -errno;
	if (r == -ENOENT || r == -ENOTDIR)
		ksc_err(t->ctx, "%s: no such module directory", t->moddir);
	else
		ksc_err(t->ctx, "%s: %s", t->moddir, strerror(-r));
	return r == -ENOTDIR ? -ENOENT : r;
}

int tree_setup(struct ksc_tree *t, const char *root, const char *kver,
	       const struct ksc_tree_opts *opts)
{
	int r = copy_opts(t, opts);

	if (r < 0)
		return r;
	r = make_absolute(root, &t->root);
	if (r < 0)
		return r;
	if (!(t->root_arg = strdup(root ? root : "/")))
		return -ENOMEM;
	r = ksc_kernel_locate(t->ctx, t->root, kver, &t->loc);
	if (r < 0)
		return r;
	kver = ksc_kernel_location_get_release(t->loc);
	t->release = strdup(kver);
	t->moddir = strdup(ksc_kernel_location_get_path(t->loc, KSC_KFILE_MODULE_DIR));
	if (!t->release || !t->moddir)
		return -ENOMEM;
	/* depmod.d read now; the folder walked in step 1 unless the index's walk holds */
	r = ksc_modset_open(t->ctx,
			    &(struct ksc_modset_where){ .root = t->root,
							.release = kver,
							.moddir = t->moddir,
							.no_walk = true },
			    &t->ms);
	if (r < 0)
		return r;
	t->modset_fp = ksc_depmod_cfg_fingerprint(ksc_modset_cfg(t->ms));
	if (t->opts.index && !(t->index_path = strdup(t->opts.index)))
		return -ENOMEM;
	r = set_policy(t, kver);
	return r < 0 ? r : open_moddir(t);
}

/* ---- the getters of the core ---- */

struct tree_parts *tree_parts(const struct ksc_tree *t)
{
	return (struct tree_parts *)&t->parts;
}

struct ksc_ctx *tree_ctx(const struct ksc_tree *t)
{
	return t->ctx;
}

const struct ksc_tree_opts *tree_opts(const struct ksc_tree *t)
{
	return &t->opts;
}

const struct ksc_check_opts *tree_check(const struct ksc_tree *t)
{
	return t->has_check ? &t->check : NULL;
}

const char *tree_root(const struct ksc_tree *t)
{
	return t->root;
}

const char *tree_root_arg(const struct ksc_tree *t)
{
	return t->root_arg;
}

const char *tree_moddir(const struct ksc_tree *t)
{
	return t->moddir;
}

const char *tree_release(const struct ksc_tree *t)
{
	return t->release;
}

const char *tree_index_path(const struct ksc_tree *t)
{
	return t->index_path;
}

const struct ksc_kernel_location *tree_location(const struct ksc_tree *t)
{
	return t->loc;
}

struct ksc_modset *tree_modset(const struct ksc_tree *t)
{
	return t->ms;
}

uint64_t tree_modset_fp(const struct ksc_tree *t)
{
	return t->modset_fp;
}

int tree_dfd(const struct ksc_tree *t)
{
	return t->dfd;
}

int64_t tree_start_ns(const struct ksc_tree *t)
{
	return t->start_ns;
}

struct kidx *tree_kidx(const struct ksc_tree *t)
{
	return (struct kidx *)&t->idx;
}

bool tree_has_index(const struct ksc_tree *t)
{
	return t->have_idx;
}

void tree_set_has_index(struct ksc_tree *t, bool on)
{
	t->have_idx = on;
}

bool tree_is_dirty(const struct ksc_tree *t)
{
	return t->dirty;
}

void tree_set_dirty(struct ksc_tree *t, bool on)
{
	t->dirty = on;
}

struct tree_fps *tree_fps(const struct ksc_tree *t)
{
	return (struct tree_fps *)&t->fps;
}

struct ksc_tree_stats *tree_stats(const struct ksc_tree *t)
{
	return (struct ksc_tree_stats *)&t->st;
}

KSC_EXPORT const char *ksc_tree_get_moddir(const struct ksc_tree *t)
{
	return t->moddir;
}

KSC_EXPORT const char *ksc_tree_get_release(const struct ksc_tree *t)
{
	return t->release;
}

KSC_EXPORT const char *ksc_tree_get_policy(const struct ksc_tree *t)
{
	return t->policy;
}

/* ---- shared helpers ---- */

int make_absolute(const char *p, char **out)
{
	char cwd[PATH_MAX];

	if (!p || !*p)
		p = "/";
	if (p[0] == '/') {
		*out = strdup(p);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		if (asprintf(out, "%s/%s", cwd, p) < 0)
			*out = NULL;
	}
	if (!*out)
		return -ENOMEM;
	size_t n = strlen(*out);
	while (n > 1 && (*out)[n - 1] == '/')
		(*out)[--n] = '\0';
	return 0;
}

/*
 * `rel` (below the module folder) opened as the tree's root sees it: RESOLVE_IN_ROOT
 * from the root, so that an absolute symbolic link, or ".." above the root, stays inside
 * it, and no /proc magic link is followed (RESOLVE_NO_MAGICLINKS).
 *
 * Why IN_ROOT and not BENEATH: kmod's depmod -b ROOT follows links with the machine's
 * own resolution (openat() and fstatat() in depmod_modules_search_dir()), so an absolute
 * link leaves ROOT: that is the escape, not a rule to copy. The tree in ROOT is a
 * system's "/": depmod run on that system (or chrooted into ROOT) resolves an absolute
 * link inside it, and trees rely on that (weak-updates/ links to
 * /lib/modules/OTHER/...). BENEATH would refuse those links; IN_ROOT reads what the
 * installed system's depmod reads. The kernel locator and depmod.d resolve the same way
 * (ksc_resolve_in_root()), which is also the fallback when openat2() is missing.
 * A file descriptor, or -1 with errno set.
 */
int tree_openat(const struct ksc_tree *t, const char *rel, int flags)
{
	size_t rl = strlen(t->root);
	const char *mrel = t->moddir;
	char path[PATH_MAX], real[PATH_MAX];

	if (strncmp(t->moddir, t->root, rl) == 0)
		mrel += rl;
	while (*mrel == '/')
		mrel++;
	if ((size_t)snprintf(path, sizeof(path), "%s%s%s", mrel, *mrel ? "/" : "", rel) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int rfd = open(t->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -1;
	struct open_how how = { .flags = (uint64_t)flags,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	int e = errno;
	close(rfd);
	if (fd >= 0 || (e != ENOSYS && e != EPERM)) {
		errno = e;
		return fd;
	}
	/* no openat2() (before 5.6, or a seccomp filter): the locator's resolver */
	int r = ksc_resolve_in_root(t->root, path, real, sizeof(real));
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return open(real, flags | O_NOFOLLOW);
}

int finish_index(struct ksc_tree *t)
{
	int r = ksc_kidx_finish(&t->idx);

	return r < 0 ? r : ksc_kder_validate_index(&t->idx);
}
