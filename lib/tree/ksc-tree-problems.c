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

/* Room in *a (n used, *cap allocated) for `more` problems. 0 or -ENOMEM. */
static int problems_room(struct tproblem **a, size_t n, size_t *cap, size_t more)
{
	if (n + more <= *cap)
		return 0;
	size_t c = *cap ? *cap : 16;
	while (c < n + more)
		c *= 2;
	struct tproblem *p = realloc(*a, c * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*a = p;
	*cap = c;
	return 0;
}

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

	if (problems_room(a, *n, cap, 1) < 0)
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
	int r = problems_room(&t->problems, t->n_problems, &t->cap_problems, n);

	if (r < 0) {
		problems_free(t->kproblems, n);
	} else if (n) {
		memcpy(t->problems + t->n_problems, t->kproblems, n * sizeof(*t->kproblems));
		t->n_problems += n;
	}
	t->n_kproblems = 0;
	return r;
}
