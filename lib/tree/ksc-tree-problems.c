// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tree's problems (files that could not be read or are no modules, the kernel's
 * files that are missing or broken), kept in the order they were met. A lower file of the
 * tree: the steps add to them, ksc-tree-results.c makes them public.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree-private.h"
#include "util/array.h"

void problems_free(struct tproblem *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].path);
		free(a[i].reason);
	}
}

static int push_problem(struct tproblem **a, size_t *n, size_t *cap, const char *path,
			int err, const char *fmt, va_list ap)
{
	char *reason;

	if (array_reserve(*a, *cap, *n + 1, 16) < 0)
		return -ENOMEM;
	if (vasprintf(&reason, fmt, ap) < 0)
		return -ENOMEM;
	char *p = strdup(path);
	if (!p) {
		free(reason);
		return -ENOMEM;
	}
	(*a)[(*n)++] = (struct tproblem){ p, reason, err };
	return 0;
}

int add_problem(struct ksc_tree *t, const char *path, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = push_problem(&t->problems, &t->n_problems, &t->cap_problems, path, err, fmt,
			     ap);
	va_end(ap);
	return r;
}

int kernel_problem(struct ksc_tree *t, const char *path, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = push_problem(&t->kproblems, &t->n_kproblems, &t->cap_kproblems, path, err,
			     fmt, ap);
	va_end(ap);
	return r;
}

/* The kernel's problems after the others so far, in the order they were met. */
int merge_kproblems(struct ksc_tree *t)
{
	size_t n = t->n_kproblems;
	int r = array_reserve(t->problems, t->cap_problems, t->n_problems + n, 16);

	if (r < 0) {
		problems_free(t->kproblems, n);
	} else if (n) {
		memcpy(t->problems + t->n_problems, t->kproblems, n * sizeof(*t->kproblems));
		t->n_problems += n;
	}
	t->n_kproblems = 0;
	return r;
}
