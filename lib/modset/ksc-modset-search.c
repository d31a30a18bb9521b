// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which file is "the" module of a name. A module folder may hold several files of one
 * kmod name (kernel/arch/x86/kvm/kvm.ko and updates/dkms/kvm.ko); depmod keeps one of
 * them in modules.dep, and modprobe loads only that one. The ranking is depmod.d's
 * (ksc-modset-depmodcfg.c: ksc_depmod_module_is_higher_priority(), and the names
 * ksc_depmod_should_exclude_dir() leaves out); the search is depmod's
 * depmod_modules_search() (kmod tools/depmod.c).
 *
 * Ties keep the file met first in the walk, except between two files below one search
 * folder, where depmod's comparison keeps the later one (see is_higher_priority()).
 * Walk order is readdir order, as depmod's (util/walk.h's walk; see "the walk" below): the
 * tree, `check -k` and the depmod-files road all take their modules from this one search.
 */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "modset/modset.h"
#include "modset/modset-statq.h"
#include "util/array.h"
#include "util/walk.h"

/* ---- depmod_modules_search(): the walk -------------------------------------------- */

/*
 * The walk is util/walk.h's, in readdir() order (depmod's), symbolic links followed,
 * depmod's excluded names left out at every depth, one folder open at a time, depth and
 * entries bounded. The loop rules are those of every walk of a module folder: a folder
 * that is one of its own parents is a "symbolic link loop" (depmod has no such check: it
 * recurses until it runs out of file descriptors), and a folder reached again by another
 * path is walked once, the second path named in a warning. depmod walks such a folder at
 * every path that leads to it (2^N paths for a DAG of N levels of links); its files then
 * meet the ones found first with the same names, and the first ones stay unless the
 * second path ranks higher by depmod.d (is_higher_priority()), which the warning makes
 * visible. An entry that is neither a folder nor a regular file (a FIFO, a socket, a
 * device, or a link to one) is a problem, whatever its name, and so is a path below the
 * module folder too long to open (PATH_MAX).
 */
struct cand {
	char *path;	/* absolute; rel points into it */
	const char *rel;
	char *replaced; /* a rival this file won over, relative */
	char *name;	/* kmod's name */
	struct stat st; /* as the walk found it */
	uint32_t dir;   /* the folder (walk order) it was found in */
	bool link;      /* reached through a symbolic link: open it with walk_open() */
};

/* What the walk met besides the files (ksc_depmod_search()). */
struct ksc_walkres {
	struct kidx_dir *dirs; /* every folder walked, in walk order ("" the module folder) */
	size_t n_dirs, cap_dirs;
	struct wproblem {
		char *path, *reason;
		int err;
	} *problems;           /* in the order met */
	size_t n_problems, cap_problems;
	struct wfile {
		uint32_t dir;
		bool link;
	} *files;              /* each kept file, in the order handed out */
	size_t n_files;
	bool clean;
};

struct search {
	struct ksc_ctx *ctx;
	const struct ksc_depmod_cfg *cfg;
	size_t base; /* length of moddir + '/' */
	unsigned int *errors;
	struct cand *c;
	size_t n, cap;
	struct hash by_name;   /* name -> index + 1 */
	struct ksc_dirset seen; /* every folder entered: its number in res->dirs */
	struct ksc_walkres *res;
	bool keep;              /* problems kept in res (else logged and counted), and the
				 * files not stat'ed (the caller stats what it reads) */
	int64_t start_ns;       /* folders modified since start_ns - KSC_RACY_NS are racy */
	uint32_t *at_depth;     /* the folder being walked at each depth */
	size_t cap_depth;
	const struct walk_opts *o;
	/*
	 * The files' stats taken by a second thread (a search that stats them): only while
	 * the tree is clean. A problem, a link or a folder met twice sets bail and stops
	 * the walk, which is then done again without it, saying everything in its order.
	 */
	struct ksc_statq *q;
	bool bail;
};

static void cand_free(struct cand *c)
{
	free(c->path);
	free(c->replaced);
	free(c->name);
}

/* *own (path, malloc'd) taken when there is one (*own NULL then), else path copied. */
static char *take_path(const char *path, char **own)
{
	char *p = own && *own ? *own : strdup(path);

	if (own)
		*own = NULL;
	return p;
}

/*
 * depmod_modules_search_file(): keep one file per name. own, when not NULL, holds path
 * as a copy the search may keep instead of making its own.
 */
static int search_file(struct search *s, const char *path, char **own, const struct stat *st,
		       bool link, uint32_t dir)
{
	char name[PATH_MAX];
	size_t nl;
	struct cand x = { 0 };

	ksc_kmod_modname(path, name, sizeof(name), &nl);
	uintptr_t have = (uintptr_t)hash_find(&s->by_name, name);
	if (have) {
		struct cand *old = &s->c[have - 1];
		const char *rel = path + s->base;
		if (ksc_depmod_module_is_higher_priority(s->cfg, old->rel, rel)) {
			ksc_dbg(s->ctx, "%s: ignored: %s ranks higher", path, old->path);
			if (!old->replaced && !(old->replaced = strdup(rel)))
				return -ENOMEM;
			return 0;
		}
		ksc_dbg(s->ctx, "%s: replaces %s", path, old->path);
		x.replaced = old->replaced ? old->replaced : strdup(old->rel);
		old->replaced = NULL;
		x.path = take_path(path, own);
		if (!x.path || !x.replaced) {
			free(x.path);
			free(x.replaced);
			return -ENOMEM;
		}
		free(old->path);
		x.rel = x.path + s->base;
		x.st = *st;
		x.link = link;
		x.dir = dir;
		x.name = old->name; /* the hash's key stays */
		*old = x;
		return 0;
	}
	if (array_reserve(s->c, s->cap, s->n + 1, 64) < 0)
		return -ENOMEM;
	x.path = take_path(path, own);
	x.name = strdup(name);
	if (!x.path || !x.name ||
	    hash_add(&s->by_name, x.name, (void *)(uintptr_t)(s->n + 1), 0) < 0) {
		cand_free(&x);
		return -ENOMEM;
	}
	x.rel = x.path + s->base;
	x.st = *st;
	x.link = link;
	x.dir = dir;
	s->c[s->n++] = x;
	return 0;
}

/* A problem at path: kept (res) or logged, and counted. 0 or -ENOMEM. */
static int search_problem(struct search *s, const char *path, int err, const char *why)
{
	struct ksc_walkres *res = s->res;

	if (s->q) {
		s->bail = true;
		return 0;
	}
	res->clean = false;
	(*s->errors)++;
	if (!s->keep) {
		ksc_err(s->ctx, "%s: %s", path, why);
		return 0;
	}
	if (array_reserve(res->problems, res->cap_problems, res->n_problems + 1, 16) < 0)
		return -ENOMEM;
	struct wproblem p = { strdup(path), strdup(why), err };
	if (!p.path || !p.reason) {
		free(p.path);
		free(p.reason);
		return -ENOMEM;
	}
	res->problems[res->n_problems++] = p;
	return 0;
}

/* A path below the module folder too long to open (PATH_MAX): a problem. */
static int too_long(struct search *s, const char *path, bool *is)
{
	size_t len = strlen(path);

	*is = len >= s->base && len - s->base + 2 >= PATH_MAX;
	return *is ? search_problem(s, path, -ENAMETOOLONG, strerror(ENAMETOOLONG)) : 0;
}

static bool search_exclude(const char *name, unsigned int depth, void *data)
{
	const struct search *s = data;

	(void)depth;
	return ksc_depmod_should_exclude_dir(s->cfg, name);
}

/*
 * e, reached through a symbolic link, is in /proc or /sys (fd: it, open): a problem, not
 * followed. With walk_opts.root the walk refuses such links itself; on the host's root it
 * follows them, and this says it. 1 when it is, 0 when not, -ENOMEM.
 */
static int into_proc(struct search *s, const struct walk_entry *e, int fd)
{
	struct statfs sfs;

	if (!e->link || fstatfs(fd, &sfs) < 0 ||
	    (sfs.f_type != PROC_SUPER_MAGIC && sfs.f_type != SYSFS_MAGIC))
		return 0;
	int r = search_problem(s, e->path, -EXDEV,
			       walk_problem_str(sfs.f_type == PROC_SUPER_MAGIC ? WALK_INTO_PROC
									: WALK_INTO_SYS));
	return r < 0 ? r : 1;
}

/* A folder met: walked when new; met before by another path, skipped with a warning. */
static int search_enter(const struct walk_entry *e, void *data)
{
	struct search *s = data;
	struct ksc_walkres *res = s->res;
	size_t n = res->n_dirs;
	bool is;
	int r;

	if (s->q && (s->bail || e->link))
		return s->bail = true, -ECANCELED;
	if (e->depth && (too_long(s, e->path, &is) < 0 || is))
		return is ? 0 : -ENOMEM;
	if (array_reserve(res->dirs, res->cap_dirs, n + 1, 64) < 0 ||
	    array_reserve(s->at_depth, s->cap_depth, e->depth + 1, 64) < 0)
		return -ENOMEM;
	if (e->link) {
		res->clean = false; /* a link's target can change without its folder */
		if (e->depth && (r = into_proc(s, e, e->dfd)) != 0)
			return r < 0 ? r : 0;
	}
	r = ksc_dirset_add(&s->seen, e->st->st_dev, e->st->st_ino, &n);
	if (r == 0 && s->q)
		return s->bail = true, -ECANCELED;
	if (r <= 0) {
		if (r == 0)
			ksc_warn(s->ctx, "%s: already walked as %s: skipped", e->path,
				 res->dirs[n].relpath[0] ? res->dirs[n].relpath : ".");
		return r;
	}
	/* relative to the module folder, as the warning names it */
	char *rel = strdup(e->depth ? e->path + s->base : "");
	int64_t mt = st_mtime_ns(e->st);
	if (!rel)
		return -ENOMEM;
	struct kidx_dir d = { rel, (uint64_t)e->st->st_ino,
			      mt > s->start_ns - KSC_RACY_NS ? KREC_RACY : mt };
	s->at_depth[e->depth] = (uint32_t)res->n_dirs;
	res->dirs[res->n_dirs++] = d;
	return 1;
}

static int search_found(const struct walk_entry *e, void *data)
{
	struct search *s = data;
	struct stat st;
	int fd = -1, r = 0;
	bool is;

	if (s->q && (s->bail || e->link))
		return s->bail = true, -ECANCELED;
	if (too_long(s, e->path, &is) < 0 || is)
		return is ? 0 : -ENOMEM;
	if (s->q && e->type == DT_REG && ksc_path_is_module_name(e->name)) {
		return ksc_statq_add(s->q, e->dfd, s->at_depth[e->depth - 1], e->path);
	}
	if (e->link) {
		s->res->clean = false;
		/* the link's target, resolved inside the root as the walk did */
		fd = walk_open(s->o, e->path, O_PATH);
		if (fd >= 0 && (r = into_proc(s, e, fd)) != 0) {
			close(fd);
			return r < 0 ? r : 0;
		}
	}
	if (e->type != DT_REG || !ksc_path_is_module_name(e->name)) {
		char why[80];
		if (fd >= 0)
			close(fd);
		if (e->type == DT_REG)
			return 0;
		snprintf(why, sizeof(why), "unsupported file type (%s)",
			 ksc_file_kind(DTTOIF(e->type)));
		return search_problem(s, e->path, -EINVAL, why);
	}
	/* the file's own stat (a link's target's), for the index's key */
	if (s->keep)
		st = (struct stat){ .st_mode = S_IFREG };
	else if (e->link)
		r = fd < 0 ? fd : fstat(fd, &st) < 0 ? -errno : 0;
	else if (fstatat(e->dfd, e->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		r = -errno;
	if (fd >= 0)
		close(fd);
	if (r < 0)
		return search_problem(s, e->path, r, strerror(-r));
	return S_ISREG(st.st_mode)
		       ? search_file(s, e->path, NULL, &st, e->link, s->at_depth[e->depth - 1])
		       : 0;
}

static bool search_keep_fd(int fd, void *data)
{
	struct search *s = data;

	return s->q && ksc_statq_keep_fd(s->q, fd);
}

static void search_walk_problem(const char *path, enum walk_problem what, int err, void *data)
{
	static const int errs[] = { [WALK_DANGLING] = -ENOENT, [WALK_LOOP] = -ELOOP,
				    [WALK_TOO_DEEP] = -ENAMETOOLONG, [WALK_TOO_MANY] = -E2BIG,
				    [WALK_INTO_PROC] = -EXDEV, [WALK_INTO_SYS] = -EXDEV };

	/* a chain of links that never ends is a loop too */
	if (what == WALK_ERRNO && err == -ELOOP)
		what = WALK_LOOP;
	if (what != WALK_ERRNO)
		err = (size_t)what < ARRAY_SIZE(errs) ? errs[what] : -EINVAL;
	/* out of memory here is met again by the walk's next allocation */
	(void)search_problem(data, path, err,
			     what == WALK_ERRNO ? strerror(-err) : walk_problem_str(what));
}

/* Path order: every path starts with the module folder, so their rests say it. */
static int cmp_cand(const void *a, const void *b)
{
	return strcmp(((const struct cand *)a)->rel, ((const struct cand *)b)->rel);
}

struct plain_fn {
	ksc_modset_fn fn;
	void *data;
};

static int plain(struct ksc_found *f, void *data)
{
	struct plain_fn *p = data;

	return p->fn(f->path, f->replaced, p->data);
}

int ksc_depmod_modules_search(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg,
			      const char *moddir, ksc_modset_fn fn, void *data,
			      unsigned int *errors)
{
	struct plain_fn p = { fn, data };

	return ksc_depmod_modules_search_st(ctx, cfg, NULL, moddir, plain, &p, errors);
}

/* Empty again, as before a walk began (the folders' and problems' room is kept). */
static void walkres_reset(struct ksc_walkres *res)
{
	free(res->files); /* search_end() makes it */
	res->files = NULL;
	for (size_t i = 0; i < res->n_dirs; i++)
		free((char *)res->dirs[i].relpath);
	for (size_t i = 0; i < res->n_problems; i++) {
		free(res->problems[i].path);
		free(res->problems[i].reason);
	}
	res->n_dirs = res->n_problems = res->n_files = 0;
	res->clean = true;
}

void ksc_walkres_free(struct ksc_walkres *res)
{
	if (!res)
		return;
	walkres_reset(res);
	free(res->dirs);
	free(res->problems);
	free(res);
}

/*
 * The files stat'ed beside the walk (the queue finished), kept in walk order; a failed
 * stat sets bail.
 */
static int search_stated(struct search *s)
{
	for (size_t i = 0; !s->bail && i < ksc_statq_count(s->q); i++) {
		struct ksc_statq_file *f = ksc_statq_file(s->q, i);
		if (f->err)
			s->bail = true;
		else if (S_ISREG(f->st.st_mode) &&
			 search_file(s, f->path, &f->path, &f->st, false, f->dir) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The search's files handed to fn in path order (by walk order with keep), then freed. */
static int search_end(struct search *s, int r, ksc_modset_st_fn fn, void *data)
{
	struct ksc_walkres *res = s->res;

	if (r >= 0 && !(res->files = malloc((s->n ? s->n : 1) * sizeof(*res->files))))
		r = -ENOMEM;
	if (s->n > 1 && !s->keep)
		qsort(s->c, s->n, sizeof(*s->c), cmp_cand);
	for (size_t i = 0; r >= 0 && i < s->n; i++) {
		struct cand *c = &s->c[i];
		struct ksc_found f = { c->path, c->name, c->replaced, &c->st, c->link };
		res->files[res->n_files++] = (struct wfile){ c->dir, c->link };
		r = fn(&f, data);
		/* what fn took is fn's; the rest is freed with the search */
		c->path = f.path;
		c->name = f.name;
		c->replaced = f.replaced;
		c->rel = NULL;
	}
	return r;
}

/* What one pass of the walk kept, freed (res's folders too, before a pass again). */
static void search_fini(struct search *s)
{
	for (size_t i = 0; i < s->n; i++)
		cand_free(&s->c[i]);
	free(s->c);
	free(s->at_depth);
	hash_fini(&s->by_name);
	ksc_dirset_fini(&s->seen);
	ksc_statq_free(s->q);
	s->c = NULL;
	s->n = s->cap_depth = 0;
	s->at_depth = NULL;
	s->q = NULL;
}

/* Who stats the files the search keeps. */
enum stat_road {
	STAT_WALK,   /* the walk, as it finds them */
	STAT_QUEUE,  /* the thread that waits for the walk, while it waits; the walk at the end */
	STAT_THREAD, /* a thread of the queue's own, beside the walk */
};

/*
 * A thread of its own only with more than two CPUs. A warm `check -k` reads depmod's
 * files and the kept rows on its main thread while the walk runs, so on two CPUs a third
 * thread has no core of its own: there, against Debian's 7.2 tree, the walk with it was
 * faster at best (19-21 ms against 22-25) but slower in the median (30-33 ms against
 * 26-28, 3 x 60 pairs on a quiet machine). Once that thread is done and waits for the
 * walk, it has a core to stat on: the queue, when a door lets it in (a modset job's).
 * For tests, KSYMCHECK_TEST_STAT_THREAD=1 (a thread of its own) or =0 (the walk) takes
 * that road on any machine (not honoured in a setuid or setgid process): the suite's
 * SANITIZE=1 lane runs on the thread's.
 */
static enum stat_road stat_road(const struct ksc_statq_door *door)
{
	const char *t = secure_getenv("KSYMCHECK_TEST_STAT_THREAD");

	if (t && (t[0] == '0' || t[0] == '1') && t[1] == '\0')
		return t[0] == '1' ? STAT_THREAD : STAT_WALK;
	if (sysconf(_SC_NPROCESSORS_ONLN) > 2)
		return STAT_THREAD;
	return door ? STAT_QUEUE : STAT_WALK;
}

/* The search; problems kept in res or logged (keep). */
static int search(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg, const char *root,
		  const char *moddir, ksc_modset_st_fn fn, void *data, unsigned int *errors,
		  struct ksc_walkres *res, bool keep, int64_t start_ns,
		  struct ksc_statq_door *door)
{
	size_t ml = strlen(moddir);
	struct search s = { .ctx = ctx, .cfg = cfg,
			    .base = ml + (ml && moddir[ml - 1] == '/' ? 0 : 1),
			    .errors = errors, .res = res, .keep = keep, .start_ns = start_ns };
	struct walk_opts o = { .flags = WALK_FOLLOW, .kinds = WALK_KIND_REG | WALK_KIND_OTHER,
			       .exclude = search_exclude, .enter = search_enter,
			       .file = search_found, .keep_fd = search_keep_fd,
			       .problem = search_walk_problem, .data = &s,
			       .root = root };
	struct stat st;
	int r;

	s.o = &o;
	res->clean = true;
	if (stat(moddir, &st) < 0) {
		r = -errno;
		return search_problem(&s, moddir, r, strerror(-r)) ?: r;
	}
	hash_init(&s.by_name);
	/* the files stat'ed beside the walk; a tree that is not clean is walked again */
	enum stat_road road = keep ? STAT_WALK : stat_road(door);
	if (road != STAT_WALK && (s.q = ksc_statq_start(road == STAT_THREAD))) {
		if (door)
			ksc_statq_door_open(door, s.q);
		r = walk_tree(moddir, &o);
		ksc_statq_finish(s.q); /* every stat taken, the helpers out */
		if (door)
			ksc_statq_door_close(door);
		if (r >= 0 || (r == -ECANCELED && s.bail))
			r = search_stated(&s);
		if (r >= 0 && s.bail) {
			search_fini(&s);
			walkres_reset(res);
			s.bail = false;
			hash_init(&s.by_name);
			r = walk_tree(moddir, &o);
		}
	} else {
		r = walk_tree(moddir, &o);
	}
	r = search_end(&s, r, fn, data);
	search_fini(&s);
	return r;
}

int ksc_depmod_modules_search_st(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg,
				 const char *root, const char *moddir, ksc_modset_st_fn fn,
				 void *data, unsigned int *errors)
{
	return ksc_depmod_modules_search_helped(ctx, cfg, root, moddir, fn, data, errors, NULL);
}

int ksc_depmod_modules_search_helped(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg,
				     const char *root, const char *moddir, ksc_modset_st_fn fn,
				     void *data, unsigned int *errors,
				     struct ksc_statq_door *door)
{
	struct ksc_walkres *res = calloc(1, sizeof(*res));

	if (!res)
		return -ENOMEM;
	int r = search(ctx, cfg, root, moddir, fn, data, errors, res, false, INT64_MAX, door);
	ksc_walkres_free(res);
	return r;
}

int ksc_depmod_search(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg, const char *root,
		      const char *moddir, int64_t start_ns, ksc_modset_st_fn fn, void *data,
		      struct ksc_walkres **out)
{
	struct ksc_walkres *res = calloc(1, sizeof(*res));
	unsigned int errors = 0;

	*out = res;
	return res ? search(ctx, cfg, root, moddir, fn, data, &errors, res, true, start_ns, NULL)
		   : -ENOMEM;
}

bool ksc_walkres_clean(const struct ksc_walkres *res)
{
	return res->clean;
}

const struct kidx_dir *ksc_walkres_dirs(const struct ksc_walkres *res, size_t *n)
{
	*n = res->n_dirs;
	return res->dirs;
}

size_t ksc_walkres_problem_count(const struct ksc_walkres *res)
{
	return res->n_problems;
}

const char *ksc_walkres_problem(const struct ksc_walkres *res, size_t i, int *err,
				const char **reason)
{
	*err = res->problems[i].err;
	*reason = res->problems[i].reason;
	return res->problems[i].path;
}

uint32_t ksc_walkres_file_dir(const struct ksc_walkres *res, size_t i, bool *link)
{
	*link = res->files[i].link;
	return res->files[i].dir;
}
