// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by the subcommands. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/ksc-tool.h"

const char *program_name = "ksymcheck";

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s%s%s --help'.\n", program_name, cmd ? " " : "", cmd ? cmd : "");
	return KSC_EXIT_USAGE;
}

int parse_format(const char *cmd, const char *value, unsigned allowed)
{
	static const char *const names[] = { [FMT_TEXT] = "text", [FMT_JSON] = "json",
					     [FMT_SYMVERS] = "symvers" };

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((allowed & (1u << i)) && strcmp(value, names[i]) == 0)
			return (int)i;
	usage_error(cmd, "unknown --format '%s'", value);
	return -1;
}

/* Directory walking: sorted, so output order never depends on the file system. */
struct seen {
	dev_t dev;
	ino_t ino;
};

struct walk {
	int (*fn)(const char *path, const char *root, void *data);
	void *data;
	unsigned *errors;
	const char *root;
	struct seen *stack; /* directories on the current path, to detect symlink loops */
	size_t depth, cap;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk_dir(struct walk *w, const char *dir, const struct stat *dst)
{
	for (size_t i = 0; i < w->depth; i++) {
		if (w->stack[i].dev == dst->st_dev && w->stack[i].ino == dst->st_ino) {
			fprintf(stderr, "%s: symbolic link loop\n", dir);
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
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		(*w->errors)++;
		w->depth--;
		return 0;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
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
	for (size_t i = 0; i < n && ret >= 0; i++) {
		struct stat st;
		if (stat(names[i], &st) < 0) {
			struct stat lst;
			if (lstat(names[i], &lst) == 0 && S_ISLNK(lst.st_mode))
				fprintf(stderr, "%s: dangling symbolic link\n", names[i]);
			else
				fprintf(stderr, "%s: %s\n", names[i], strerror(errno));
			(*w->errors)++;
			continue;
		}
		if (S_ISDIR(st.st_mode))
			ret = walk_dir(w, names[i], &st);
		else if (S_ISREG(st.st_mode) && ksc_path_is_module_name(names[i]))
			ret = w->fn(names[i], w->root, w->data);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	w->depth--;
	return ret;
}

int walk_paths(char **paths, int n, int (*fn)(const char *path, const char *root, void *data),
	       void *data, unsigned *errors)
{
	struct walk w = { .fn = fn, .data = data, .errors = errors };
	int ret = 0;

	for (int i = 0; i < n && ret >= 0; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			w.root = paths[i];
			ret = walk_dir(&w, paths[i], &st);
		} else {
			/* Files, and paths that do not exist: the reader reports those. */
			ret = fn(paths[i], NULL, data);
		}
	}
	free(w.stack);
	return ret;
}
