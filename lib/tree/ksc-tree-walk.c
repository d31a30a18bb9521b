// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Step 1 of ksc_tree_open(): the walk of the module folder as depmod_modules_search()
 * does it, one file per kmod name by depmod's rules (ksc-modset-search.c), and depmod's order
 * (kmod's hash order of the names, then modules.order). With an index, its walk is
 * replayed instead while the workers check that its folders and files are unchanged
 * (pre_stat()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "tree/tree-private.h"
#include "util/array.h"
/*
 * The walk is depth-first in readdir() order, as depmod's (which recurses per level and
 * follows symbolic links), but iterative: a stack of folders being read, so a chain of
 * folders as deep as PATH_MAX allows (~2,050 one-letter levels) takes no stack. The
 * first WALK_OPEN_MAX levels stay open while their subfolders are walked; a deeper
 * folder is read whole (the rest of its entries kept) and closed before its subfolder
 * is walked, so open files stay bounded; its entries are then reached by their path
 * below the tree's folder. Each folder is walked once by (device, inode): depmod walks
 * a folder again at every path that leads to it (2^N paths for a DAG of N levels of
 * links); a module found at two paths keeps the first in depmod too, unless the second
 * has the higher search priority.
 */
#define WALK_OPEN_MAX 64

struct wframe {
	DIR *d;      /* NULL once read whole into rest */
	char *rest;  /* then its entries left: d_type byte, name, NUL; ... */
	size_t n_rest, pos;
	size_t rlen; /* its path's length in walker.rel, with its '/' */
	uint32_t dir; /* its t->dirs entry, or KREC_NONE */
	dev_t dev;
	ino_t ino;
	int err; /* readdir()'s, reported when the folder is done */
	bool in_root; /* reached through a symbolic link: paths below opened in the root */
};

struct walker {
	struct ksc_tree *t;
	struct wframe *stack; /* the folders being read, the tree's folder first */
	size_t depth, cap;
	struct ksc_dirset seen; /* every folder entered: its t->dirs entry */
	char rel[PATH_MAX];
	uint32_t dir; /* the folder being read (t->dirs), or KREC_NONE */
};

static int add_candidate(struct walker *w, size_t rlen, bool in_root)
{
	struct ksc_tree *t = w->t;
	const char *rel = w->rel;
	char name[PATH_MAX];
	size_t nl;

	ksc_kmod_modname(rel, name, sizeof(name), &nl);
	uintptr_t have = (uintptr_t)hash_find(&t->by_name, name);
	struct tmod *m;
	if (have) {
		m = &t->mods[have - 1];
		/*
		 * depmod_module_is_higher_priority(): the search order, overrides. The file
		 * kept remembers the first rival met, for "replaces" (ksc-modset-search.c's rule).
		 */
		bool keep = ksc_depmod_module_is_higher_priority(t->dmcfg, m->relpath, rel);
		if (!m->replaced) {
			m->replaced = strdup(keep ? rel : m->relpath);
			if (!m->replaced)
				return -ENOMEM;
			m->replaced_own = true;
		}
		if (keep)
			return 0;
		if (!m->path_arena)
			free(m->path); /* relpath with it */
		m->relpath = m->path = NULL;
	} else {
		if (array_reserve(t->mods, t->cap_mods, t->n_mods + 1, 1024) < 0)
			return -ENOMEM;
		m = &t->mods[t->n_mods];
		memset(m, 0, sizeof(*m));
		m->modname = malloc(nl + 1);
		if (!m->modname)
			return -ENOMEM;
		memcpy(m->modname, name, nl + 1);
		if (hash_add(&t->by_name, m->modname, (void *)(uintptr_t)(t->n_mods + 1), 0) <
		    0) {
			free_paths(m);
			return -ENOMEM;
		}
		t->n_mods++;
	}
	/* path is moddir/relpath, relpath its tail */
	size_t dl = strlen(t->moddir);
	char *p = malloc(dl + 1 + rlen + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p, t->moddir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, rel, rlen);
	p[dl + 1 + rlen] = '\0';
	m->path = p;
	m->path_arena = false;
	m->relpath = p + dl + 1;
	m->base_off = (size_t)(ksc_basename(m->relpath) - m->relpath);
	m->rank = 1;
	m->dir = w->dir;
	m->in_root = in_root;
	return 0;
}

/* Remember a folder the walk read, for the next run's check that nothing changed. */
static int note_dir(struct ksc_tree *t, const char *rel, const struct stat *st)
{
	if (array_reserve(t->dirs, t->cap_dirs, t->n_dirs + 1, 256) < 0)
		return -ENOMEM;
	char *r = strdup(rel);
	if (!r)
		return -ENOMEM;
	int64_t mt = st_mtime_ns(st);
	t->dirs[t->n_dirs++] =
		(struct kidx_dir){ r, (uint64_t)st->st_ino,
				   mt > t->start_ns - KSC_RACY_NS ? KREC_RACY : mt };
	return 0;
}

/* The rest of a folder's entries into f->rest, and the folder closed. 0 or -ENOMEM. */
static int read_rest(struct walker *w, struct wframe *f)
{
	size_t cap = 0;
	struct dirent *de;

	while ((errno = 0, de = readdir(f->d)) != NULL) {
		if (ksc_depmod_should_exclude_dir(w->t->dmcfg, de->d_name))
			continue;
		size_t nl = strlen(de->d_name);
		if (array_reserve(f->rest, cap, f->n_rest + nl + 2, 4096) < 0)
			return -ENOMEM;
		f->rest[f->n_rest] = (char)de->d_type;
		memcpy(f->rest + f->n_rest + 1, de->d_name, nl + 1);
		f->n_rest += nl + 2;
	}
	f->err = errno;
	closedir(f->d);
	f->d = NULL;
	return 0;
}

/* The top folder's next entry (depmod's excluded names skipped); false at its end. */
static bool next_entry(struct walker *w, struct wframe *f, const char **name,
		       unsigned char *type)
{
	if (!f->d) {
		if (f->pos >= f->n_rest)
			return false;
		*type = (unsigned char)f->rest[f->pos];
		*name = f->rest + f->pos + 1;
		f->pos += strlen(*name) + 2;
		return true;
	}
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(f->d);
		if (!de) {
			f->err = errno;
			return false;
		}
		if (ksc_depmod_should_exclude_dir(w->t->dmcfg, de->d_name))
			continue;
		*name = de->d_name;
		*type = de->d_type;
		return true;
	}
}

/* Where the top folder's entry `name` (in w->rel) is: its folder's fd and name in it. */
static int entry_at(const struct walker *w, const struct wframe *f, const char *name,
		    const char **at)
{
	if (f->d) {
		*at = name;
		return dirfd(f->d);
	}
	*at = w->rel;
	return w->t->dfd;
}

static int pop_folder(struct walker *w)
{
	struct ksc_tree *t = w->t;
	struct wframe *f = &w->stack[--w->depth];
	int ret = 0;

	if (f->err) {
		w->rel[f->rlen] = '\0';
		ret = add_problem(t, t->moddir, -f->err, "%s%s%s", w->rel,
				  f->rlen ? ": " : "", strerror(f->err));
	}
	if (f->d)
		closedir(f->d);
	free(f->rest);
	w->dir = w->depth ? w->stack[w->depth - 1].dir : KREC_NONE;
	return ret;
}

/* Walk the folder fd (w->rel, rlen with its '/'): on the stack. Takes fd. */
static int push_folder(struct walker *w, int fd, size_t rlen, const struct stat *st,
		       bool in_root)
{
	if (array_reserve(w->stack, w->cap, w->depth + 1, 32) < 0) {
		close(fd);
		return -ENOMEM;
	}
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		w->rel[rlen] = '\0';
		return add_problem(w->t, rlen ? w->rel : w->t->moddir, -e, "%s",
				   strerror(e));
	}
	w->stack[w->depth++] = (struct wframe){ .d = d, .rlen = rlen, .dir = w->dir,
						.dev = st->st_dev, .ino = st->st_ino,
						.in_root = in_root };
	if (w->depth > WALK_OPEN_MAX && w->stack[w->depth - 2].d)
		return read_rest(w, &w->stack[w->depth - 2]);
	return 0;
}

/* A problem of the entry in w->rel, named by its full path. */
static int entry_problem(struct walker *w, int err, const char *reason)
{
	char *full;

	if (asprintf(&full, "%s/%s", w->t->moddir, w->rel) < 0)
		return -ENOMEM;
	int r = add_problem(w->t, full, err, "%s", reason);
	free(full);
	return r;
}

/*
 * The folder `name` of the top folder (w->rel holds its path, rel_end long), at `at` in
 * dfd: walked unless it was walked before (a loop: a problem; another path to it: a
 * warning naming the first).
 */
static int enter_folder(struct walker *w, int dfd, const char *at, size_t rel_end,
			bool by_root, bool in_root)
{
	struct ksc_tree *t = w->t;
	struct stat st;
	int fd = by_root ? tree_openat(t, w->rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
			 : openat(dfd, at, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return entry_problem(w, -e, strerror(e));
	}
	size_t first = t->n_dirs;
	int r = ksc_dirset_add(&w->seen, st.st_dev, st.st_ino, &first);
	if (r <= 0) {
		close(fd);
		if (r < 0)
			return r;
		for (size_t i = 0; i < w->depth; i++)
			if (w->stack[i].dev == st.st_dev && w->stack[i].ino == st.st_ino)
				return entry_problem(w, -ELOOP, "symbolic link loop");
		ksc_warn(t->ctx, "%s/%s: already walked as %s: skipped", t->moddir,
			 w->rel, first < t->n_dirs ? t->dirs[first].relpath : "?");
		return 0;
	}
	if (note_dir(t, w->rel, &st) < 0) {
		close(fd);
		return -ENOMEM;
	}
	w->rel[rel_end] = '/';
	w->rel[rel_end + 1] = '\0';
	w->dir = (uint32_t)(t->n_dirs - 1);
	return push_folder(w, fd, rel_end + 1, &st, in_root);
}

/*
 * A symbolic link (or an entry of unknown type) in w->rel: what it leads to, resolved
 * inside the tree's root (tree_openat() says why), never into /proc or /sys. 0 and *st,
 * 1 when it was a problem (said), or -ENOMEM.
 */
static int follow_link(struct walker *w, int dfd, const char *at, struct stat *st)
{
	struct statfs sfs;
	int fd = tree_openat(w->t, w->rel, O_PATH | O_CLOEXEC);

	if (fd < 0 || fstat(fd, st) < 0 || fstatfs(fd, &sfs) < 0) {
		int e = errno;
		struct stat lst;
		if (fd >= 0)
			close(fd);
		if (e == ELOOP)
			return entry_problem(w, -ELOOP, "symbolic link loop") ?: 1;
		if (e == ENOENT && fstatat(dfd, at, &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(lst.st_mode))
			return entry_problem(w, -ENOENT, "dangling symbolic link") ?: 1;
		return entry_problem(w, -e, strerror(e)) ?: 1;
	}
	close(fd);
	if (sfs.f_type == PROC_SUPER_MAGIC || sfs.f_type == SYSFS_MAGIC)
		return entry_problem(w, -EXDEV, sfs.f_type == PROC_SUPER_MAGIC
						 ? "symbolic link into /proc: not followed"
						 : "symbolic link into /sys: not followed") ?: 1;
	return 0;
}

/* One entry of the top folder: a module file noted, a folder entered. */
static int walk_entry(struct walker *w, const char *name, unsigned char type)
{
	struct ksc_tree *t = w->t;
	const struct wframe *f = &w->stack[w->depth - 1];
	size_t rlen = f->rlen, nl = strlen(name);
	struct stat st;
	const char *at;

	if (rlen + nl + 2 >= sizeof(w->rel)) {
		char *full;
		if (asprintf(&full, "%s/%.*s%s", t->moddir, (int)rlen, w->rel, name) < 0)
			return -ENOMEM;
		int r = add_problem(t, full, -ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
		free(full);
		return r;
	}
	memcpy(w->rel + rlen, name, nl + 1);
	int dfd = entry_at(w, f, w->rel + rlen, &at);
	/* below a link, a folder not open is reached by its path: inside the root */
	bool in_root = f->in_root, link = type != DT_REG && type != DT_DIR;
	if (link) {
		t->walk_clean = false; /* a link's target can change without its folder */
		int r = follow_link(w, dfd, at, &st);
		if (r != 0)
			return r < 0 ? r : 0;
		in_root = true;
		type = S_ISREG(st.st_mode)   ? DT_REG
		       : S_ISDIR(st.st_mode) ? DT_DIR
					     : DT_UNKNOWN;
		if (type == DT_UNKNOWN) {
			char why[80];
			snprintf(why, sizeof(why), "unsupported file type (%s)",
				 ksc_file_kind(st.st_mode));
			return entry_problem(w, -EINVAL, why);
		}
	}
	if (type == DT_REG)
		return ksc_path_is_module_name(name) ? add_candidate(w, rlen + nl, in_root) : 0;
	/* a link, or a folder reached by its path below one: opened inside the root */
	return enter_folder(w, dfd, at, rlen + nl, link || (in_root && !f->d), in_root);
}

int do_walk(struct ksc_tree *t)
{
	struct walker w = { .t = t, .dir = KREC_NONE };
	struct stat st;
	int fd = openat(t->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t root;
	int r;

	if (fd < 0)
		return add_problem(t, t->moddir, -errno, "%s", strerror(errno));
	t->walk_clean = true;
	if (fstat(fd, &st) < 0) {
		r = add_problem(t, t->moddir, -errno, "%s", strerror(errno));
		close(fd);
		return r;
	}
	w.rel[0] = '\0';
	root = t->n_dirs;
	if (note_dir(t, "", &st) < 0 ||
	    ksc_dirset_add(&w.seen, st.st_dev, st.st_ino, &root) < 0) {
		close(fd);
		return -ENOMEM;
	}
	w.dir = (uint32_t)(t->n_dirs - 1);
	size_t problems = t->n_problems;
	r = push_folder(&w, fd, 0, &st, false);
	while (r >= 0 && w.depth) {
		const char *name;
		unsigned char type;
		if (next_entry(&w, &w.stack[w.depth - 1], &name, &type))
			r = walk_entry(&w, name, type);
		else
			r = pop_folder(&w);
	}
	while (w.depth)
		pop_folder(&w);
	free(w.stack);
	ksc_dirset_fini(&w.seen);
	if (t->n_problems != problems)
		t->walk_clean = false;
	return r;
}

/*
 * The walk of the last run again, without reading folders: when every folder it read is
 * still the same (inode, modification time, not modified within the clock's granularity
 * of that run) and it met no symbolic link, the same files are there: its module list
 * is this one. pre_stat() runs this only for an index with folders, none of them
 * modified within the clock's granularity, and checks the folders at the same time.
 * 1 when used, 0 when a walk is needed, -ENOMEM.
 */
static int cached_walk(struct ksc_tree *t)
{
	const struct kidx *idx = &t->idx;
	size_t n = idx->n_mods;

	if (hash_reserve(&t->by_name, n) < 0)
		return -ENOMEM;
	if (array_reserve(t->mods, t->cap_mods, n, 16) < 0)
		return -ENOMEM;
	/*
	 * Every module's path in one block, its relpath the path's tail; its name is the
	 * index's (the walk that wrote the index made it). No folder is read.
	 */
	size_t need = 0, dl = strlen(t->moddir);
	for (size_t i = 0; i < n; i++) {
		size_t rl = strlen(idx->mods[i].relpath);
		if (rl >= PATH_MAX)
			return 0;
		need += dl + 1 + rl + 1;
	}
	free(t->walk_arena);
	t->walk_arena = malloc(need ? need : 1);
	if (!t->walk_arena)
		return -ENOMEM;
	char *p = t->walk_arena;
	for (size_t i = 0; i < n; i++) {
		const struct kidx_module *km = &idx->mods[i];
		struct tmod *m = &t->mods[i];
		size_t rl = strlen(km->relpath);
		memset(m, 0, sizeof(*m));
		memcpy(p, t->moddir, dl);
		p[dl] = '/';
		memcpy(p + dl + 1, km->relpath, rl + 1);
		m->path = p;
		m->relpath = p + dl + 1;
		p += dl + 1 + rl + 1;
		m->modname = (char *)km->modname; /* the index outlives the walk */
		m->replaced = (char *)km->replaced;
		m->path_arena = m->name_arena = true;
		m->base_off = (size_t)(ksc_basename(m->relpath) - m->relpath);
		m->rank = 1;
		m->dir = km->dir;
		t->n_mods = i + 1;
		/* a name twice is not the list of one walk: walk */
		int r = hash_add(&t->by_name, m->modname, (void *)(uintptr_t)(i + 1), 1);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	for (size_t i = 0; i < idx->n_dirs; i++) {
		struct stat fake = { .st_ino = (ino_t)idx->dirs[i].ino };
		fake.st_mtim.tv_sec = (time_t)(idx->dirs[i].mtime_ns / 1000000000LL);
		fake.st_mtim.tv_nsec = (long)(idx->dirs[i].mtime_ns % 1000000000LL);
		if (note_dir(t, idx->dirs[i].relpath, &fake) < 0)
			return -ENOMEM;
	}
	t->walk_clean = t->walk_cached = true; /* its folders: checked by pre_stat() */
	return 1;
}

void drop_walk(struct ksc_tree *t)
{
	for (size_t i = 0; i < t->n_mods; i++) {
		free_paths(&t->mods[i]);
		free(t->mods[i].rec_own);
	}
	free(t->walk_arena);
	t->walk_arena = NULL;
	atomic_store(&t->run->walk_stale, false);
	t->n_mods = 0;
	hash_fini(&t->by_name);
	hash_init(&t->by_name);
	for (size_t i = 0; i < t->n_dirs; i++)
		free((char *)t->dirs[i].relpath);
	t->n_dirs = 0;
	t->walk_clean = t->walk_cached = false;
}

/*
 * depmod's "uncrelpath": the path up to the basename, then modname-length bytes and
 * ".ko"'s length.
 */
static size_t order_lookup(void *data, const char *line)
{
	struct hash *h = data;

	return (size_t)(uintptr_t)hash_find(h, line);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct tmod *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->hash_pos < y->hash_pos ? -1 : x->hash_pos > y->hash_pos; /* stable */
}

int order_modules(struct ksc_tree *t)
{
	size_t n = t->n_mods;
	const char **names = malloc((n ? n : 1) * sizeof(*names));
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
	char **uncrel = calloc(n ? n : 1, sizeof(*uncrel));
	struct hash h;
	int ret = -ENOMEM;

	hash_init(&h);
	if (!names || !order || !uncrel)
		goto out;
	/* modules.order: matched against depmod's uncompressed relative path. */
	struct stat ost;
	int fd = ksc_open_read(t->dfd, "modules.order", 0, &ost);
	char *data = NULL;
	size_t size = 0;
	int oerr = fd < 0 ? -fd : 0;
	t->order_fp = 0;
	if (fd >= 0) {
		/* a text file: at most KSC_TEXT_MAX, whatever holes it has */
		oerr = -ksc_read_fd(fd, &ost, KSC_TEXT_MAX, &data, &size);
		close(fd);
		if (oerr == ENOMEM) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (data) {
		t->order_fp = ksc_hash64(data, size, 11);
	} else if (oerr == EFBIG) {
		ksc_warn(t->ctx, "%s/modules.order: too large (%zu bytes, limit %zu)", t->moddir,
			 size, KSC_TEXT_MAX);
	} else if (oerr != ENOENT) {
		ksc_warn(t->ctx, "%s/modules.order: %s", t->moddir,
			 oerr == KSC_ENOTREG || oerr == EISDIR ? "not a regular file" :
								 strerror(oerr));
	}
	/*
	 * The walk of the last run (same files, listed in the order that run sorted them)
	 * and the same modules.order, read without a problem: the same order.
	 */
	if (t->walk_cached && (data || oerr == ENOENT) && t->idx.order_fp == t->order_fp) {
		ret = 0;
		free(data);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = t->mods[i].modname;
	ret = ksc_depmod_hash_order(names, n, 512, order);
	if (ret < 0) {
		free(data);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		t->mods[order[i]].hash_pos = (uint32_t)i;
	ret = -ENOMEM;
	if (data) {
		for (size_t i = 0; i < n; i++) {
			struct tmod *m = &t->mods[i];
			size_t nl = strlen(m->modname);
			size_t len = m->base_off + nl + 3;
			size_t rl = strlen(m->relpath);
			uncrel[i] = strndup(m->relpath, len < rl ? len : rl);
			if (!uncrel[i] ||
			    hash_add(&h, uncrel[i], (void *)(uintptr_t)(i + 1), 1) < 0)
				goto out;
		}
		int *rank = malloc((n ? n : 1) * sizeof(*rank));
		if (!rank)
			goto out;
		for (size_t i = 0; i < n; i++)
			rank[i] = 1;
		if (ksc_depmod_rank(data, size, order_lookup, &h, rank)) {
			for (size_t i = 0; i < n; i++)
				t->mods[i].rank = rank[i];
		} else {
			ksc_warn(
				t->ctx, "%s/modules.order: a line misses its newline; the order is not used (as depmod)",
				t->moddir);
			t->order_fp ^= 1;
		}
		free(rank);
		free(data);
	}
	if (n > 1)
		qsort(t->mods, n, sizeof(*t->mods), cmp_rank);
	ret = 0;
out:
	hash_fini(&h);
	if (uncrel)
		for (size_t i = 0; i < n; i++)
			free(uncrel[i]);
	free(uncrel);
	free(names);
	free(order);
	return ret;
}

/*
 * The index's modules of one folder of its walk (pre_stat()): the folder is checked, and
 * its modules looked at by path or, in a larger folder, by name relative to it. Folder
 * SIZE_MAX: modules not under a listed folder.
 */
struct rgroup {
	size_t dir;
	uint32_t start, n; /* in read_job.gmods */
};

/*
 * Check the folder of group g of the index's walk. A folder with a few modules (most):
 * stat it by path, and its modules by path from the top (*by_fd false: the tree's fd);
 * with more, open it once (O_PATH) and stat them by name relative to it. -1 when it
 * changed (walk_stale set) or the tree is walked again anyway.
 */
static int group_open(struct ksc_tree *t, const struct rgroup *g, bool *by_fd)
{
	*by_fd = false;
	if (g->dir == SIZE_MAX)
		return t->dfd;
	if (atomic_load(&t->run->walk_stale))
		return -1;
	uint64_t ino;
	int64_t mtime_ns;
	const char *rel = ksc_kidx_raw_dir(&t->idx, g->dir, &ino, &mtime_ns);
	if (!rel) {
		atomic_store(&t->run->walk_stale, true);
		return -1;
	}
	rel = rel[0] ? rel : ".";
	struct stat st;
	int dfd = t->dfd, r;
	if (g->n > 2) {
		dfd = openat(t->dfd, rel, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		r = dfd < 0 ? -1 : fstat(dfd, &st);
		*by_fd = dfd >= 0;
	} else {
		r = fstatat(t->dfd, rel, &st, AT_SYMLINK_NOFOLLOW);
	}
	if (r < 0 || !S_ISDIR(st.st_mode) || (uint64_t)st.st_ino != ino ||
	    st_mtime_ns(&st) != mtime_ns) {
		if (*by_fd)
			close(dfd);
		*by_fd = false;
		atomic_store(&t->run->walk_stale, true);
		return -1;
	}
	return dfd;
}

/*
 * The index's modules grouped by the folder of its walk they are in: one group per
 * folder, empty ones too (each folder is checked). From the index as opened, not yet
 * checked (see pre_stat()). 0 or -ENOMEM.
 */
static int make_groups(struct ksc_tree *t, size_t nm, size_t nd, struct rgroup **groups,
		       size_t *n_groups, uint32_t **gmods)
{
	uint32_t *cnt = calloc(nd + 1, sizeof(*cnt)); /* [nd]: not under a listed folder */
	uint32_t *of = malloc((nm ? nm : 1) * sizeof(*of));

	*groups = calloc(nd + 1, sizeof(**groups));
	*gmods = malloc((nm ? nm : 1) * sizeof(**gmods));
	if (!cnt || !of || !*groups || !*gmods) {
		free(cnt);
		free(of);
		free(*groups);
		free(*gmods);
		*groups = NULL;
		*gmods = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < nm; i++) {
		struct krec_sum sum;
		uint32_t d = KREC_NONE;
		(void)ksc_kidx_raw_module(&t->idx, i, &sum, &d);
		of[i] = d < nd ? d : (uint32_t)nd;
		cnt[of[i]]++;
	}
	uint32_t at = 0;
	for (size_t g = 0; g <= nd; g++) {
		(*groups)[g] = (struct rgroup){ g < nd ? g : SIZE_MAX, at, 0 };
		at += cnt[g];
	}
	for (size_t i = 0; i < nm; i++) {
		struct rgroup *g = &(*groups)[of[i]];
		(*gmods)[g->start + g->n++] = (uint32_t)i;
	}
	*n_groups = nd + (cnt[nd] ? 1 : 0);
	free(cnt);
	free(of);
	return 0;
}

/*
 * The usual re-check, with the index's walk: the workers check its folders and stat its
 * modules (pre[k]: index module k's file is unchanged) while the calling thread checks
 * the rest of the index (ksc_kidx_finish(): the workers read only what ksc_kidx_open()
 * bounded, and their findings are dropped if the index turns out corrupt) and replays
 * the walk (cached_walk(), order_modules()). The index is attached afterwards.
 */
static void prestat_item(struct tpool *p, size_t i, unsigned int worker)
{
	struct ksc_tree *t = p->t;
	struct pre_job *j = p->data;
	const struct rgroup *g = &j->groups[i];
	bool by_fd;
	int dfd = group_open(t, g, &by_fd);

	if (dfd < 0)
		return;
	for (uint32_t k = 0; k < g->n && !atomic_load(&t->run->walk_stale); k++) {
		uint32_t x = j->gmods[g->start + k], d;
		struct krec_sum sum;
		const char *name = ksc_kidx_raw_module(&t->idx, x, &sum, &d);
		if (!name)
			continue;
		if (by_fd) {
			const char *slash = strrchr(name, '/');
			name = slash ? slash + 1 : name;
		}
		j->pre[x] = same_file(&sum, dfd, name);
	}
	if (by_fd)
		close(dfd);
}

static void replay_walk(struct ksc_tree *t)
{
	struct pre_job *j = t->run->pre_job;

	j->index_err = ksc_kidx_finish(&t->idx);
	if (j->index_err < 0) {
		j->replay = j->index_err == -ENOMEM ? -ENOMEM : 0;
		return;
	}
	int r = cached_walk(t);

	if (r == 1)
		r = order_modules(t) < 0 ? -ENOMEM : 1;
	j->replay = r;
}

int pre_stat(struct ksc_tree *t, unsigned int jobs, struct pre_job *pj)
{
	size_t nd, nm = ksc_kidx_raw_count(&t->idx, &nd);

	memset(pj, 0, sizeof(*pj));
	if (!nd || t->idx.modset_fp != t->modset_fp)
		return 0; /* no walk to replay, or other depmod.d rules: walk */
	for (size_t i = 0; i < nd; i++) {
		uint64_t ino;
		int64_t mtime_ns;
		if (!ksc_kidx_raw_dir(&t->idx, i, &ino, &mtime_ns) || mtime_ns == KREC_RACY)
			return 0; /* the index's walk cannot be replayed: walk */
	}
	pj->pre = calloc(nm + 1, 1);
	if (!pj->pre || make_groups(t, nm, nd, &pj->groups, &pj->n_groups, &pj->gmods) < 0)
		return -ENOMEM;
	t->run->pre_job = pj;
	struct tpool p = { .n = pj->n_groups, .fn = prestat_item, .data = pj };
	run_pool(t, &p, jobs, replay_walk, "read");
	t->run->pre_job = NULL;
	return pj->replay < 0 ? pj->replay : 0;
}

void pre_fini(struct pre_job *pj)
{
	free(pj->pre);
	free(pj->groups);
	free(pj->gmods);
	memset(pj, 0, sizeof(*pj));
}

