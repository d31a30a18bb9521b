// SPDX-License-Identifier: LGPL-2.1-or-later
/* A small pool of worker threads: see workpool.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "array.h"
#include "workpool.h"

static void init(struct workpool *wp, workpool_fn fn, void *data)
{
	memset(wp, 0, sizeof(*wp));
	wp->fn = fn;
	wp->data = data;
	atomic_init(&wp->next, 0);
	atomic_init(&wp->done, 0);
	atomic_init(&wp->err, 0);
	atomic_init(&wp->ids, 0);
	pthread_mutex_init(&wp->lock, NULL);
	pthread_cond_init(&wp->cond, NULL);
}

void workpool_init_range(struct workpool *wp, size_t n, workpool_fn fn, void *data)
{
	init(wp, fn, data);
	wp->n = n;
}

void workpool_init_queue(struct workpool *wp, size_t item_size, workpool_fn fn, void *data,
			 void (*drop)(void *item))
{
	init(wp, fn, data);
	wp->queue = true;
	wp->item_size = item_size;
	wp->drop = drop;
}

int workpool_push(struct workpool *wp, const void *items, size_t n)
{
	int r = 0;

	if (!n)
		return 0;
	pthread_mutex_lock(&wp->lock);
	if (wp->n_stack + n > wp->cap_stack) {
		void *v = wp->stack;
		r = array_reserve_(&v, &wp->cap_stack, wp->n_stack + n, wp->item_size, 64);
		wp->stack = v;
		if (r < 0)
			goto out;
	}
	memcpy(wp->stack + wp->n_stack * wp->item_size, items, n * wp->item_size);
	wp->n_stack += n;
	pthread_cond_broadcast(&wp->cond);
out:
	pthread_mutex_unlock(&wp->lock);
	return r;
}

static void set_error(struct workpool *wp, int r)
{
	int zero = 0;

	atomic_compare_exchange_strong(&wp->err, &zero, r);
}

static void work_range(struct workpool *wp, unsigned int worker)
{
	while (atomic_load_explicit(&wp->err, memory_order_relaxed) == 0) {
		size_t i = atomic_fetch_add(&wp->next, 1);
		if (i >= wp->n)
			break;
		int r = wp->fn(wp, worker, &i);
		atomic_fetch_add(&wp->done, 1);
		if (r < 0)
			set_error(wp, r);
	}
}

/* The next queue record into `item`, waiting while others may still add some. */
static bool take(struct workpool *wp, void *item)
{
	pthread_mutex_lock(&wp->lock);
	while (wp->n_stack == 0 && wp->busy > 0 && atomic_load(&wp->err) == 0)
		pthread_cond_wait(&wp->cond, &wp->lock);
	if (wp->n_stack == 0 || atomic_load(&wp->err) != 0) {
		pthread_cond_broadcast(&wp->cond);
		pthread_mutex_unlock(&wp->lock);
		return false;
	}
	wp->n_stack--;
	memcpy(item, wp->stack + wp->n_stack * wp->item_size, wp->item_size);
	wp->busy++;
	pthread_mutex_unlock(&wp->lock);
	return true;
}

static void work_queue(struct workpool *wp, unsigned int worker)
{
	void *item = malloc(wp->item_size);

	if (!item) {
		set_error(wp, -ENOMEM);
		pthread_mutex_lock(&wp->lock);
		pthread_cond_broadcast(&wp->cond);
		pthread_mutex_unlock(&wp->lock);
		return;
	}
	while (take(wp, item)) {
		int r = wp->fn(wp, worker, item);
		atomic_fetch_add(&wp->done, 1);
		pthread_mutex_lock(&wp->lock);
		wp->busy--;
		if (r < 0)
			set_error(wp, r);
		if (r < 0 || (wp->busy == 0 && wp->n_stack == 0))
			pthread_cond_broadcast(&wp->cond);
		pthread_mutex_unlock(&wp->lock);
	}
	free(item);
}

void workpool_work(struct workpool *wp, unsigned int worker)
{
	if (wp->queue)
		work_queue(wp, worker);
	else
		work_range(wp, worker);
}

static void *thread_main(void *arg)
{
	struct workpool *wp = arg;

	workpool_work(wp, atomic_fetch_add(&wp->ids, 1));
	pthread_mutex_lock(&wp->lock);
	if (--wp->running == 0)
		pthread_cond_broadcast(&wp->cond);
	pthread_mutex_unlock(&wp->lock);
	return NULL;
}

unsigned int workpool_start(struct workpool *wp, unsigned int threads)
{
	if (threads > WORKPOOL_MAX_THREADS)
		threads = WORKPOOL_MAX_THREADS;
	for (unsigned int i = 0; i < threads; i++) {
		pthread_mutex_lock(&wp->lock);
		wp->running++;
		pthread_mutex_unlock(&wp->lock);
		if (pthread_create(&wp->tid[wp->started], NULL, thread_main, wp) != 0) {
			pthread_mutex_lock(&wp->lock);
			wp->running--;
			pthread_mutex_unlock(&wp->lock);
			break;
		}
		wp->started++;
	}
	return wp->started;
}

bool workpool_wait(struct workpool *wp, unsigned int ms)
{
	struct timespec ts;
	bool over;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&wp->lock);
	while (wp->running > 0)
		if (pthread_cond_timedwait(&wp->cond, &wp->lock, &ts) != 0)
			break;
	over = wp->running == 0;
	pthread_mutex_unlock(&wp->lock);
	return over;
}

int workpool_join(struct workpool *wp)
{
	for (unsigned int i = 0; i < wp->started; i++)
		pthread_join(wp->tid[i], NULL);
	wp->started = 0;
	return atomic_load(&wp->err);
}

void workpool_fini(struct workpool *wp)
{
	if (wp->drop)
		for (size_t i = 0; i < wp->n_stack; i++)
			wp->drop(wp->stack + i * wp->item_size);
	free(wp->stack);
	wp->stack = NULL;
	wp->n_stack = wp->cap_stack = 0;
	pthread_cond_destroy(&wp->cond);
	pthread_mutex_destroy(&wp->lock);
}
