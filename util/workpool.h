/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * A small pool of worker threads over one work function, in one of two modes:
 *
 * - range: the items are the indices 0..n-1, handed out through a shared next index
 *   (workpool_init_range());
 * - queue: the items are fixed-size records in a shared stack (last in, first out) that
 *   the work function may add to while it runs, e.g. the subfolders of a folder
 *   (workpool_init_queue(), workpool_push()); the work is over when the stack is empty
 *   and no worker is busy.
 *
 * fn(wp, worker, item) gets the worker's number (0..threads-1) and a pointer to the item:
 * a size_t index, or the queue's record (which fn owns from then on). A negative return
 * stops the handing out of work; the first one is what workpool_join() returns. Queue
 * records never handed out are given to `drop` (may be NULL) at workpool_fini().
 *
 * Use: workpool_init_*(), workpool_start(wp, threads) (the number of threads started,
 * workers 0..started-1), then optionally workpool_work(wp, started) in the calling thread
 * as one more worker, or workpool_wait() to poll; workpool_join(); workpool_fini().
 */
#define WORKPOOL_MAX_THREADS 256

struct workpool;
typedef int (*workpool_fn)(struct workpool *wp, unsigned int worker, void *item);

struct workpool {
	workpool_fn fn;
	void *data;                   /* the caller's, for fn */
	/* range mode */
	size_t n;
	atomic_size_t next;
	/* queue mode */
	bool queue;
	size_t item_size;
	void (*drop)(void *item);
	unsigned char *stack;
	size_t n_stack, cap_stack;
	unsigned int busy;
	/* both */
	atomic_size_t done;           /* items finished, for progress */
	atomic_int err;               /* the first negative return, or 0 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int running;         /* started threads not yet finished */
	unsigned int started;
	atomic_uint ids;              /* the next started thread's worker number */
	pthread_t tid[WORKPOOL_MAX_THREADS];
};

void workpool_init_range(struct workpool *wp, size_t n, workpool_fn fn, void *data);
void workpool_init_queue(struct workpool *wp, size_t item_size, workpool_fn fn, void *data,
			 void (*drop)(void *item));
/* Queue mode, from anywhere (before the start or inside fn): 0 or -ENOMEM. */
int workpool_push(struct workpool *wp, const void *items, size_t n);
/* Start up to `threads` threads (capped at WORKPOOL_MAX_THREADS); the number started. */
unsigned int workpool_start(struct workpool *wp, unsigned int threads);
/* Work in the calling thread as worker `worker` until no work is left. */
void workpool_work(struct workpool *wp, unsigned int worker);
/* Wait up to `ms` milliseconds for the started threads: true when they are all done. */
bool workpool_wait(struct workpool *wp, unsigned int ms);
/* Join the started threads; the first negative return of fn, or 0. */
int workpool_join(struct workpool *wp);
/* Free what is left (queue records go to drop). */
void workpool_fini(struct workpool *wp);
