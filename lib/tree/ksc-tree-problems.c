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

/*
 * This file's part of the tree (probs_of()): the problems met, and the kernel's apart
 * while its exports load on a thread of their own; then the public array.
 */
struct tree_problems {
	struct tproblem *list;
	size_t n, cap;
	struct tproblem *kernel;
	size_t n_kernel, cap_kernel;
	struct ksc_tree_problem *pub; /* publish_problems() */
};

static struct tree_problems *probs_of(const struct ksc_tree *t)
{
	return tree_parts(t)->probs;
}

int problems_part_new(struct ksc_tree *t)
{
	struct tree_problems *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	tree_parts(t)->probs = p;
	return 0;
}

static void problems_free(struct tproblem *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].path);
		free(a[i].reason);
	}
}

void problems_part_free(struct ksc_tree *t)
{
	struct tree_problems *p = probs_of(t);

	if (!p)
		return;
	problems_free(p->list, p->n);
	free(p->list);
	problems_free(p->kernel, p->n_kernel);
	free(p->kernel);
	free(p->pub);
	free(p);
	tree_parts(t)->probs = NULL;
}

size_t problem_count(const struct ksc_tree *t)
{
	return probs_of(t)->n;
}

const struct tproblem *problem_at(const struct ksc_tree *t, size_t i)
{
	return &probs_of(t)->list[i];
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
	struct tree_problems *p = probs_of(t);
	int r = push_problem(&p->list, &p->n, &p->cap, path, err, fmt, ap);
	va_end(ap);
	return r;
}

int kernel_problem(struct ksc_tree *t, const char *path, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	struct tree_problems *p = probs_of(t);
	int r = push_problem(&p->kernel, &p->n_kernel, &p->cap_kernel, path, err, fmt, ap);
	va_end(ap);
	return r;
}

/* The kernel's problems after the others so far, in the order they were met. */
int merge_kproblems(struct ksc_tree *t)
{
	struct tree_problems *p = probs_of(t);
	size_t n = p->n_kernel;
	int r = array_reserve(p->list, p->cap, p->n + n, 16);

	if (r < 0) {
		problems_free(p->kernel, n);
	} else if (n) {
		memcpy(p->list + p->n, p->kernel, n * sizeof(*p->kernel));
		p->n += n;
	}
	p->n_kernel = 0;
	return r;
}

static int cmp_problem(const void *a, const void *b)
{
	const struct tproblem *x = a, *y = b;

	return strcmp(x->path, y->path);
}

int publish_problems(struct ksc_tree *t)
{
	struct tree_problems *p = probs_of(t);

	if (p->n > 1)
		qsort(p->list, p->n, sizeof(*p->list), cmp_problem);
	p->pub = calloc(p->n ? p->n : 1, sizeof(*p->pub));
	if (!p->pub)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++)
		p->pub[i] = (struct ksc_tree_problem){ p->list[i].path, p->list[i].reason,
						       p->list[i].err };
	return 0;
}

KSC_EXPORT size_t ksc_tree_get_problem_count(const struct ksc_tree *t)
{
	return probs_of(t)->n;
}

KSC_EXPORT const struct ksc_tree_problem *ksc_tree_get_problem(const struct ksc_tree *t,
							       size_t i)
{
	return i < probs_of(t)->n ? &probs_of(t)->pub[i] : NULL;
}
