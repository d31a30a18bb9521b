// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Finding module files below a directory: sorted (so results never depend on the file
 * system's order), symbolic links followed with loops detected and each folder walked
 * once (a DAG of links would otherwise be walked along every one of its paths), every
 * problem reported as "<path>: <reason>" and counted, and the walk goes on.
 *
 * The walk recurses per folder level with a small frame (the names are on the heap) and
 * holds no folder open below the one it reads: a path is at most PATH_MAX long, so the
 * depth is bounded (~2,050 one-letter levels) and so are the stack and the open files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "modset/modset.h"
#include "util/array.h"

struct seen {
	dev_t dev;
	ino_t ino;
};

struct walk {
	struct ksc_ctx *ctx;
	ksc_walk_fn fn;
	void *data;
	unsigned int *errors;
	const char *const *skip; /* names skipped at the top level (depmod: build, source) */
	struct seen *stack;      /* directories on the current path */
	size_t depth, cap;
	struct ksc_dirset dirs; /* every directory entered: its number in `paths` */
	char **paths;           /* their paths, in walk order */
	size_t n_paths, cap_paths;
};

/* ---- the set of folders walked: open addressing on (device, inode) ---- */

static size_t dirset_slot(const struct ksc_dirset *s, dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)ino * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)dev;
	size_t i = (size_t)(h ^ (h >> 29)) & (s->cap - 1);

	while (s->slots[i].val != SIZE_MAX &&
	       (s->slots[i].dev != dev || s->slots[i].ino != ino))
		i = (i + 1) & (s->cap - 1);
	return i;
}

static int dirset_grow(struct ksc_dirset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	struct ksc_dirset old = *s;

	s->slots = malloc(cap * sizeof(*s->slots));
	if (!s->slots) {
		*s = old;
		return -ENOMEM;
	}
	s->cap = cap;
	for (size_t i = 0; i < cap; i++)
		s->slots[i].val = SIZE_MAX;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].val != SIZE_MAX)
			s->slots[dirset_slot(s, old.slots[i].dev, old.slots[i].ino)] =
				old.slots[i];
	free(old.slots);
	return 0;
}

int ksc_dirset_add(struct ksc_dirset *s, dev_t dev, ino_t ino, size_t *val)
{
	if ((s->n + 1) * 4 > s->cap * 3 && dirset_grow(s) < 0)
		return -ENOMEM;
	size_t i = dirset_slot(s, dev, ino);
	if (s->slots[i].val != SIZE_MAX) {
		*val = s->slots[i].val;
		return 0;
	}
	s->slots[i] = (struct ksc_dirset_slot){ dev, ino, *val };
	s->n++;
	return 1;
}

void ksc_dirset_fini(struct ksc_dirset *s)
{
	free(s->slots);
	s->slots = NULL;
	s->n = s->cap = 0;
}

/* ---- the walk ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool skipped(const struct walk *w, const char *name)
{
	if (w->depth != 1 || !w->skip)
		return false;
	for (const char *const *s = w->skip; *s; s++)
		if (strcmp(*s, name) == 0)
			return true;
	return false;
}

/*
 * Is `dir` new to the walk? 1 when new (and remembered); 0 when met before: a loop (an
 * error) or another path to a folder walked already (a warning); -ENOMEM.
 */
static int first_visit(struct walk *w, const char *dir, const struct stat *dst)
{
	size_t n = w->n_paths;
	int r;

	if (array_reserve(w->paths, w->cap_paths, n + 1, 64) < 0)
		return -ENOMEM;
	r = ksc_dirset_add(&w->dirs, dst->st_dev, dst->st_ino, &n);
	if (r < 0)
		return r;
	if (r > 0) {
		w->paths[w->n_paths] = strdup(dir);
		if (!w->paths[w->n_paths])
			return -ENOMEM;
		w->n_paths++;
		return 1;
	}
	for (size_t i = 0; i < w->depth; i++) {
		if (w->stack[i].dev == dst->st_dev && w->stack[i].ino == dst->st_ino) {
			ksc_err(w->ctx, "%s: symbolic link loop", dir);
			(*w->errors)++;
			return 0;
		}
	}
	ksc_warn(w->ctx, "%s: already walked as %s: skipped", dir, w->paths[n]);
	return 0;
}

static int walk_dir(struct walk *w, const char *dir, const struct stat *dst)
{
	int first = first_visit(w, dir, dst);
	if (first <= 0)
		return first;
	if (array_push(w->stack, w->depth, w->cap,
		       (struct seen){ dst->st_dev, dst->st_ino }) < 0)
		return -ENOMEM;

	DIR *d = opendir(dir);
	if (!d) {
		ksc_err(w->ctx, "%s: %s", dir, strerror(errno));
		(*w->errors)++;
		w->depth--;
		return 0;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    skipped(w, de->d_name))
			continue;
		if (array_reserve(names, cap, n + 1, 64) < 0) {
			ret = -ENOMEM;
			goto out;
		}
		if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0) {
			ret = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	closedir(d); /* read whole: no folder held open below */
	d = NULL;
	for (size_t i = 0; i < n && ret >= 0; i++) {
		struct stat st;
		if (stat(names[i], &st) < 0) {
			struct stat lst;
			if (lstat(names[i], &lst) == 0 && S_ISLNK(lst.st_mode))
				ksc_err(w->ctx, "%s: dangling symbolic link", names[i]);
			else
				ksc_err(w->ctx, "%s: %s", names[i], strerror(errno));
			(*w->errors)++;
			continue;
		}
		if (S_ISDIR(st.st_mode))
			ret = walk_dir(w, names[i], &st);
		else if (S_ISREG(st.st_mode) && ksc_path_is_module_name(names[i]))
			ret = w->fn(names[i], w->data);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (d)
		closedir(d);
	w->depth--;
	return ret;
}

KSC_EXPORT int ksc_walk_modules(struct ksc_ctx *ctx, const char *dir,
				const char *const *skip, ksc_walk_fn fn, void *data,
				unsigned int *errors)
{
	struct walk w = { .ctx = ctx, .fn = fn, .data = data, .errors = errors, .skip = skip };
	struct stat st;
	int ret;

	if (stat(dir, &st) < 0) {
		int err = errno;
		ksc_err(ctx, "%s: %s", dir, strerror(err));
		(*errors)++;
		return -err;
	}
	if (!S_ISDIR(st.st_mode))
		return fn(dir, data);
	ret = walk_dir(&w, dir, &st);
	free(w.stack);
	ksc_dirset_fini(&w.dirs);
	for (size_t i = 0; i < w.n_paths; i++)
		free(w.paths[i]);
	free(w.paths);
	return ret;
}
