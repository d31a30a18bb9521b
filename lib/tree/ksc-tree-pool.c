// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tree's worker threads, over util/workpool.h: a pool runs one function over a list
 * of items, the calling thread doing a side job meanwhile and then reporting progress;
 * and the messages a worker's context logs, kept for the main thread to replay in module
 * order.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree/tree-private.h"

static int pool_item(struct workpool *wp, unsigned int worker, void *item)
{
	struct tpool *p = wp->data;
	size_t i = *(const size_t *)item;

	p->fn(p, p->items ? p->items[i] : i, worker);
	return 0;
}

static void progress(struct ksc_tree *t, const char *phase, size_t done, size_t total)
{
	if (tree_opts(t)->progress)
		tree_opts(t)->progress(tree_opts(t)->progress_data, phase, done, total);
}

void run_pool(struct ksc_tree *t, struct tpool *p, unsigned int threads,
	      void (*side)(struct ksc_tree *), const char *phase)
{
	unsigned int started = 0;

	p->t = t;
	p->phase = phase;
	if (threads > p->n)
		threads = (unsigned int)p->n;
	workpool_init_range(&p->wp, p->n, pool_item, p);
	if (threads > 1)
		started = workpool_start(&p->wp, threads);
	if (side)
		side(t);
	if (started == 0) {
		/* No threads: the calling thread does it all, reporting as it goes. */
		for (size_t i = 0; i < p->n; i++) {
			p->fn(p, p->items ? p->items[i] : i, 0);
			if ((i & 63) == 0)
				progress(t, phase, i, p->n);
		}
	} else {
		while (!workpool_wait(&p->wp, 0)) {
			progress(t, phase, atomic_load(&p->wp.done), p->n);
			if (workpool_wait(&p->wp, 100))
				break;
		}
		(void)workpool_join(&p->wp);
	}
	progress(t, phase, p->n, p->n);
	workpool_fini(&p->wp);
}

unsigned int default_jobs(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned int)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned int)n : 1;
}
