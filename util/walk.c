// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The folder walk (walk.h says what it promises). A listing reads a folder whole with
 * getdents64() on the caller's descriptor, which stays the caller's (to openat() the files
 * listed); the tree walk keeps one growing path buffer and, per level, only the list of
 * names still to visit. The folders above the current one stay open down to WALK_HELD
 * levels (a folder is opened from its parent); below that, a folder's descriptor is
 * closed before the walk goes below it and opened again (and checked to be the same
 * folder) for the files after.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "util/array.h"
#include "util/fileio.h"
#include "util/walk.h"

const char *walk_problem_str(enum walk_problem what)
{
	switch (what) {
	case WALK_ERRNO: return "system error";
	case WALK_DANGLING: return "dangling symbolic link";
	case WALK_LOOP: return "symbolic link loop";
	case WALK_TOO_DEEP: return "too deep: not walked";
	case WALK_TOO_MANY: return "too many entries: the rest not walked";
	case WALK_INTO_PROC: return "symbolic link into /proc: not followed";
	case WALK_INTO_SYS: return "symbolic link into /sys: not followed";
	}
	return "unknown problem";
}

static void report(const struct walk_opts *o, const char *path, enum walk_problem what,
		   int err)
{
	if (o->problem)
		o->problem(path, what, err, o->data);
}

static bool kept(unsigned char type, unsigned int kinds)
{
	switch (type) {
	case DT_DIR: return true;
	case DT_REG: return kinds & WALK_KIND_REG;
	case DT_LNK: return kinds & WALK_KIND_LNK;
	default: return kinds & WALK_KIND_OTHER;
	}
}

/* The root the walk stays in, its length without trailing '/'; false: the host's. */
static bool in_root(const struct walk_opts *o, size_t *len)
{
	size_t n = o->root ? strlen(o->root) : 0;

	while (n && o->root[n - 1] == '/')
		n--;
	*len = n;
	return n > 0;
}

/* walk_open() with the root open as rfd (-1: opened here). */
static int open_in(const struct walk_opts *o, int rfd, const char *path, int flags)
{
	size_t rl;
	int fd;

	if (!in_root(o, &rl)) {
		fd = open(path, flags | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (strncmp(path, o->root, rl) != 0 || (path[rl] && path[rl] != '/'))
		return -EXDEV; /* not below the root: not the walk's */
	const char *rel = path + rl;
	while (*rel == '/')
		rel++;
	if (!*rel)
		rel = ".";
	bool own = rfd < 0;
	if (own && (rfd = open(o->root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	struct open_how how = { .flags = (uint64_t)(flags | O_CLOEXEC),
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	fd = (int)syscall(SYS_openat2, rfd, rel, &how, sizeof(how));
	int e = errno;
	if (own)
		close(rfd);
	if (fd >= 0)
		return fd;
	if (e != ENOSYS && e != EPERM)
		return -e;
	/* no openat2() (before 5.6, or a seccomp filter): resolved by hand */
	char real[PATH_MAX];
	int r = ksc_resolve_in_root(o->root, rel, real, sizeof(real));
	if (r < 0)
		return r;
	fd = open(real, flags | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

int walk_open(const struct walk_opts *o, const char *path, int flags)
{
	return open_in(o, -1, path, flags);
}

/*
 * What the link name in dfd (the folder path) leads to, resolved inside o->root: its
 * type, or DT_UNKNOWN with *err and *why (a dangling link, /proc or /sys, a failure).
 */
static unsigned char resolve_in_root(int dfd, const char *path, const char *name,
				     const struct walk_opts *o, int *err, unsigned char *why)
{
	char full[PATH_MAX];
	struct statfs sfs;
	struct stat st;
	int fd = -ENAMETOOLONG;

	if ((size_t)snprintf(full, sizeof(full), "%s/%s", path, name) < sizeof(full))
		fd = walk_open(o, full, O_PATH);
	if (fd < 0 || fstat(fd, &st) < 0 || fstatfs(fd, &sfs) < 0) {
		*err = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		*why = WALK_ERRNO;
		if (*err == -ENOENT && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			*why = WALK_DANGLING;
		return DT_UNKNOWN;
	}
	close(fd);
	if (sfs.f_type == PROC_SUPER_MAGIC || sfs.f_type == SYSFS_MAGIC) {
		*err = -EXDEV;
		*why = sfs.f_type == PROC_SUPER_MAGIC ? WALK_INTO_PROC : WALK_INTO_SYS;
		return DT_UNKNOWN;
	}
	return IFTODT(st.st_mode);
}

/*
 * The type of name in dfd when readdir() does not say (DT_UNKNOWN) or a link is
 * followed. On failure *err and *why are set and the type is DT_UNKNOWN.
 */
static unsigned char resolve(int dfd, const char *path, const char *name, unsigned char type,
			     const struct walk_opts *o, int *err, unsigned char *why, bool *link)
{
	bool follow = o->flags & WALK_FOLLOW;
	size_t rl;
	struct stat st;

	if (type != DT_UNKNOWN && !(type == DT_LNK && follow))
		return type;
	if (follow && in_root(o, &rl)) {
		if (type == DT_UNKNOWN) {
			if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
				*err = -errno;
				*why = WALK_ERRNO;
				return DT_UNKNOWN;
			}
			if (!S_ISLNK(st.st_mode))
				return IFTODT(st.st_mode);
		}
		*link = true;
		return resolve_in_root(dfd, path, name, o, err, why);
	}
	if (fstatat(dfd, name, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) == 0) {
		*link = type == DT_LNK;
		return IFTODT(st.st_mode);
	}
	*err = -errno;
	*why = WALK_ERRNO;
	if (follow && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		*why = WALK_DANGLING;
	return DT_UNKNOWN;
}

static int list_add(struct walk_list *l, const char *name, unsigned char type, int err,
		    unsigned char why, bool link)
{
	size_t len = strlen(name) + 1;

	if (array_reserve(l->names, l->names_cap, l->len + len, 4096) < 0 ||
	    array_reserve(l->v, l->cap, l->n + 1, 64) < 0)
		return -ENOMEM;
	memcpy(l->names + l->len, name, len);
	/* an offset until the names stop moving: walk_list_read() makes it a pointer */
	l->v[l->n++] = (struct walk_list_entry){ (const char *)(uintptr_t)l->len, type, why, link,
						 err };
	l->len += len;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct walk_list_entry *)a)->name,
		      ((const struct walk_list_entry *)b)->name);
}

void walk_list_fini(struct walk_list *l)
{
	array_free(l->v, l->n, l->cap);
	array_free(l->names, l->len, l->names_cap);
}

/*
 * The next entry of the folder dfd, read through getdents64() into the caller's buffer
 * (*pos, *end: where the last read left off), or NULL at the end (errno 0) or on an
 * error (errno set). getdents64() rather than fdopendir(): a DIR owns its descriptor,
 * so every listing cost a dup(), an fstat() and two fcntl() — a third of the calls of a
 * walk of a module folder.
 */
static struct dirent64 *next_entry(int dfd, char *buf, size_t cap, size_t *pos, size_t *end)
{
	if (*pos >= *end) {
		ssize_t n = getdents64(dfd, buf, cap);
		if (n <= 0) {
			errno = n < 0 ? errno : 0;
			return NULL;
		}
		*pos = 0;
		*end = (size_t)n;
	}
	struct dirent64 *de = (struct dirent64 *)(void *)(buf + *pos);
	if (de->d_reclen < offsetof(struct dirent64, d_name) + 1 || de->d_reclen > *end - *pos) {
		errno = EIO; /* not a record getdents64() writes */
		return NULL;
	}
	*pos += de->d_reclen;
	return de;
}

/* walk_list_read(), dfd at its start when fresh (just opened: no lseek() needed). */
static int list_read(int dfd, const char *path, unsigned int depth, const struct walk_opts *o,
		     struct walk_list *l, bool fresh)
{
	size_t max = o->max_entries ? o->max_entries : WALK_MAX_ENTRIES, pos = 0, end = 0;
	_Alignas(struct dirent64) char buf[32768];
	struct dirent64 *de;

	l->n = l->len = 0;
	if (!fresh && lseek(dfd, 0, SEEK_SET) < 0) { /* the caller's may have been read already */
		report(o, path, WALK_ERRNO, -errno);
		return 0;
	}
	while ((errno = 0, de = next_entry(dfd, buf, sizeof(buf), &pos, &end))) {
		const char *nm = de->d_name;
		int err = 0;
		unsigned char why = WALK_ERRNO;
		bool link = false;

		if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
			continue;
		if (o->exclude && o->exclude(nm, depth, o->data))
			continue;
		unsigned char type = resolve(dfd, path, nm, de->d_type, o, &err, &why, &link);
		if (!err && !kept(type, o->kinds))
			continue;
		if (l->n == max) {
			report(o, path, WALK_TOO_MANY, 0);
			break;
		}
		if (list_add(l, nm, type, err, why, link) < 0) {
			walk_list_fini(l);
			return -ENOMEM;
		}
	}
	if (errno)
		report(o, path, WALK_ERRNO, -errno);
	for (size_t i = 0; i < l->n; i++)
		l->v[i].name = l->names + (uintptr_t)l->v[i].name;
	if ((o->flags & WALK_SORTED) && l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_entry);
	return 0;
}

int walk_list_read(int dfd, const char *path, unsigned int depth, const struct walk_opts *o,
		   struct walk_list *l)
{
	return list_read(dfd, path, depth, o, l, false);
}

/* ---- the tree walk ---- */

/* Folders held open above the one being walked (see walk_entries()). */
#define WALK_HELD 32

struct walker {
	const struct walk_opts *o;
	unsigned int max_depth;
	struct dev_ino {
		dev_t dev;
		ino_t ino;
		bool link; /* it or a folder above it reached through a symbolic link */
	} *stack; /* the folders on the current path */
	size_t n_stack, cap_stack;
	int root_fd; /* walk_opts.root open, or -1 */
	char *path; /* the current path; each level appends "/name" */
	size_t cap_path;
};

/* path[0..len) + "/" + name, in the walker's buffer. The new length, or -ENOMEM. */
static ssize_t path_push(struct walker *w, size_t len, const char *name)
{
	size_t nl = strlen(name);
	bool slash = len > 0 && w->path[len - 1] != '/';

	if (array_reserve(w->path, w->cap_path, len + slash + nl + 1, 256) < 0)
		return -ENOMEM;
	if (slash)
		w->path[len++] = '/';
	memcpy(w->path + len, name, nl + 1);
	return (ssize_t)(len + nl);
}

static bool on_path(const struct walker *w, const struct stat *st)
{
	for (size_t i = 0; i < w->n_stack; i++)
		if (w->stack[i].dev == st->st_dev && w->stack[i].ino == st->st_ino)
			return true;
	return false;
}

static int walk_folder(struct walker *w, size_t len, const char *name, unsigned int depth,
		       bool link, int pfd);

/*
 * The folder w->path[0..len) open again as fd, after the walk went below it: the same
 * folder (device, inode) or -ESTALE. 0 or -errno.
 */
static int reopen(struct walker *w, size_t len, int *fd)
{
	const struct dev_ino *self = &w->stack[w->n_stack - 1];
	struct stat st;

	w->path[len] = '\0';
	*fd = open_in(w->o, w->root_fd, w->path, O_RDONLY | O_DIRECTORY);
	if (*fd < 0)
		return *fd;
	if (fstat(*fd, &st) < 0 || st.st_dev != self->dev || st.st_ino != self->ino) {
		int r = errno && st.st_ino == self->ino ? -errno : -ESTALE;
		close(*fd);
		*fd = -1;
		return r;
	}
	return 0;
}

/* The walk is done with the folder fd whose files it handed out: closed, or kept. */
static void release(const struct walk_opts *o, int fd)
{
	if (!o->keep_fd || !o->keep_fd(fd, o->data))
		close(fd);
}

/*
 * The entries of a folder listed, in the list's order; fd is the folder, open (the
 * walk's to close). Down to WALK_HELD levels it stays open while the walk goes below it,
 * and its folders are opened from it; deeper, it is closed first and opened again for the
 * files after, so that a walk never holds more than WALK_HELD + 1 folders open.
 */
static int walk_entries(struct walker *w, size_t len, int fd, const struct walk_list *l,
			unsigned int depth)
{
	const struct walk_opts *o = w->o;
	bool below_link = w->stack[w->n_stack - 1].link;
	int r = 0;

	for (size_t i = 0; i < l->n && r >= 0; i++) {
		const struct walk_list_entry *x = &l->v[i];
		bool file = !x->err && x->type != DT_DIR;

		if (file && o->file && fd < 0 && (r = reopen(w, len, &fd)) < 0) {
			report(o, w->path, WALK_ERRNO, r);
			r = 0;
			break; /* the folder is gone or another: the rest of it too */
		}
		ssize_t cl = path_push(w, len, x->name);
		if (cl < 0) {
			r = (int)cl;
			break;
		}
		if (x->err) {
			report(o, w->path, (enum walk_problem)x->why, x->err);
		} else if (file) {
			r = o->file ? o->file(&(struct walk_entry){ w->path, x->name, x->type,
								    depth, NULL, fd,
								    x->link || below_link },
					      o->data)
				    : 0;
		} else if (depth > w->max_depth) {
			report(o, w->path, WALK_TOO_DEEP, 0);
		} else {
			if (fd >= 0 && depth > WALK_HELD) {
				release(o, fd); /* deep: no folder held open below this one */
				fd = -1;
			}
			r = walk_folder(w, (size_t)cl, x->name, depth, x->link || below_link,
					x->link ? -1 : fd);
		}
	}
	if (fd >= 0)
		release(o, fd);
	w->path[len] = '\0';
	return r;
}

/*
 * The folder at w->path[0..len), named name: entered, listed, its entries walked. pfd,
 * when not -1, is its parent, open, and name not a link: one openat() from it finds the
 * same folder as resolving the path again from the root would, for a fraction of the cost.
 */
static int walk_folder(struct walker *w, size_t len, const char *name, unsigned int depth,
		       bool link, int pfd)
{
	const struct walk_opts *o = w->o;
	int nofollow = depth && !(o->flags & WALK_FOLLOW) ? O_NOFOLLOW : 0;
	int fd = pfd >= 0 ? openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			  : -1;
	struct walk_list l = { 0 };
	struct stat st;
	int r;

	if (fd < 0) /* no parent held, or a link after all: resolved as the walk resolves */
		fd = open_in(o, w->root_fd, w->path, O_RDONLY | O_DIRECTORY | nofollow);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		if (r == -ENOMEM)
			return r;
		report(o, w->path, WALK_ERRNO, r);
		return 0;
	}
	if (on_path(w, &st)) {
		close(fd);
		report(o, w->path, WALK_LOOP, 0);
		return 0;
	}
	r = o->enter ? o->enter(&(struct walk_entry){ w->path, name, DT_DIR, depth, &st, fd,
						      link },
				o->data)
		     : 1;
	if (r <= 0) { /* skipped or stopped */
		close(fd);
		return r;
	}
	if (array_push(w->stack, w->n_stack, w->cap_stack,
		       (struct dev_ino){ st.st_dev, st.st_ino, link }) < 0) {
		close(fd);
		return -ENOMEM;
	}
	r = list_read(fd, w->path, depth + 1, o, &l, true);
	if (r == 0)
		r = walk_entries(w, len, fd, &l, depth + 1);
	else
		close(fd);
	walk_list_fini(&l);
	w->n_stack--;
	return r;
}

int walk_tree(const char *root, const struct walk_opts *o)
{
	struct walker w = { .o = o, .max_depth = o->max_depth ? o->max_depth : WALK_MAX_DEPTH,
			    .root_fd = -1 };
	size_t len = strlen(root), rl;
	int r;

	if (array_reserve(w.path, w.cap_path, len + 1, 256) < 0)
		return -ENOMEM;
	/* the root opened once for every folder (a failure: opened at each, and said) */
	if (in_root(o, &rl))
		w.root_fd = open(o->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	memcpy(w.path, root, len + 1);
	const char *slash = strrchr(root, '/');
	r = walk_folder(&w, len, slash && slash[1] ? slash + 1 : root, 0, false, -1);
	if (w.root_fd >= 0)
		close(w.root_fd);
	free(w.stack);
	free(w.path);
	return r;
}
