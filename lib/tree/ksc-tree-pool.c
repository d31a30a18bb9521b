// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tree's worker threads: a pool runs one function over a list of items, the calling
 * thread doing a side job meanwhile and then reporting progress; and the messages a
 * worker's context logs, kept for the main thread to replay in module order.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree/ksc-tree.h"
struct tworker {
	struct tpool *pool;
	unsigned int id;
};

static void *worker_main(void *arg)
{
	struct tworker *w = arg;
	struct tpool *p = w->pool;

	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		p->fn(p, p->items ? p->items[i] : i, w->id);
		atomic_fetch_add(&p->done, 1);
	}
	pthread_mutex_lock(&p->lock);
	if (--p->running == 0)
		pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void progress(struct ksc_tree *t, const char *phase, size_t done, size_t total)
{
	if (t->opts.progress)
		t->opts.progress(t->opts.progress_data, phase, done, total);
}

void run_pool(struct ksc_tree *t, struct tpool *p, unsigned int threads,
		     void (*side)(struct ksc_tree *), const char *phase)
{
	pthread_t tid[256];
	struct tworker w[256];
	unsigned int started = 0;

	p->t = t;
	p->phase = phase;
	atomic_store(&p->next, 0);
	atomic_store(&p->done, 0);
	if (threads > p->n)
		threads = (unsigned int)p->n;
	if (threads > 256)
		threads = 256;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if (threads > 1) {
		p->running = threads;
		for (unsigned int i = 0; i < threads; i++) {
			w[i] = (struct tworker){ p, i };
			if (pthread_create(&tid[i], NULL, worker_main, &w[i]) != 0)
				break;
			started++;
		}
		pthread_mutex_lock(&p->lock);
		p->running -= threads - started;
		pthread_mutex_unlock(&p->lock);
	}
	if (started == 0) {
		/* No threads: the calling thread does it all, reporting as it goes. */
		if (side)
			side(t);
		for (size_t i = 0; i < p->n; i++) {
			p->fn(p, p->items ? p->items[i] : i, 0);
			if ((i & 63) == 0)
				progress(t, phase, i, p->n);
		}
		progress(t, phase, p->n, p->n);
		goto out;
	}
	if (side)
		side(t);
	pthread_mutex_lock(&p->lock);
	while (p->running > 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_unlock(&p->lock);
		progress(t, phase, atomic_load(&p->done), p->n);
		pthread_mutex_lock(&p->lock);
		if (p->running > 0)
			pthread_cond_timedwait(&p->cond, &p->lock, &ts);
	}
	pthread_mutex_unlock(&p->lock);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	progress(t, phase, p->n, p->n);
out:
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
}

unsigned int default_jobs(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned int)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned int)n : 1;
}

void msgbuf_log(void *data, int priority, const char *msg)
{
	struct msgbuf *b = data;

	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		int *p = realloc(b->prio, cap * sizeof(*p));
		if (p)
			b->prio = p;
		char **x = p ? realloc(b->text, cap * sizeof(*x)) : NULL;
		if (!x) {
			b->oom = 1;
			return;
		}
		b->text = x;
		b->cap = cap;
	}
	char *s = strdup(msg);
	if (!s) {
		b->oom = 1;
		return;
	}
	b->prio[b->n] = priority;
	b->text[b->n++] = s;
}

void msgbuf_clear(struct msgbuf *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->text[i]);
	b->n = 0;
}

void msgbuf_fini(struct msgbuf *b)
{
	msgbuf_clear(b);
	free(b->prio);
	free(b->text);
}

