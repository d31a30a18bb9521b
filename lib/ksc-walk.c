// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Finding module files below a directory: sorted (so results never depend on the file
 * system's order), symbolic links followed with loops detected, every problem reported as
 * "<path>: <reason>" and counted, and the walk goes on.
 *
 * The walk recurses per folder level with a small frame (the names are on the heap) and
 * holds no folder open below the one it reads: a path is at most PATH_MAX long, so the
 * depth is bounded (~2,050 one-letter levels) and so are the stack and the open files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ksc-internal.h"

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
};

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

static int walk_dir(struct walk *w, const char *dir, const struct stat *dst)
{
	for (size_t i = 0; i < w->depth; i++) {
		if (w->stack[i].dev == dst->st_dev && w->stack[i].ino == dst->st_ino) {
			ksc_err(w->ctx, "%s: symbolic link loop", dir);
			(*w->errors)++;
			return 0;
		}
	}
	if (w->depth == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct seen *s = realloc(w->stack, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		w->stack = s;
		w->cap = cap;
	}
	w->stack[w->depth++] = (struct seen){ dst->st_dev, dst->st_ino };

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
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (!nn) {
				ret = -ENOMEM;
				goto out;
			}
			names = nn;
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

int ksc_walk_modules(struct ksc_ctx *ctx, const char *dir, const char *const *skip,
		     ksc_walk_fn fn, void *data, unsigned int *errors)
{
	struct walk w = { .ctx = ctx, .fn = fn, .data = data, .errors = errors, .skip = skip };
	struct stat st;
	int ret;

	if (stat(dir, &st) < 0) {
		ksc_err(ctx, "%s: %s", dir, strerror(errno));
		(*errors)++;
		return -errno;
	}
	if (!S_ISDIR(st.st_mode))
		return fn(dir, data);
	ret = walk_dir(&w, dir, &st);
	free(w.stack);
	return ret;
}
