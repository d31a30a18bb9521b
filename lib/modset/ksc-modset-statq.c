// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The files a search finds, stat'ed by a second thread (modset-statq.h).
 *
 * The walk fills one batch per open folder: the folder's files, in the order met. When
 * the walk is done with a folder, its batch goes on a queue the thread empties, with the
 * folder's descriptor: the walk hands it over (util/walk.h's keep_fd) instead of closing
 * it, and the thread closes it after the stats (a dup() per folder cost as much again).
 * Files are kept in chunks that never move, so the thread writes through pointers that
 * stay put while the walk adds chunks; the walk does not read a file's stat before
 * ksc_statq_finish() has joined the thread, so the two never touch one file at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modset/modset-statq.h"
#include "util/array.h"

#define CHUNK 256u
/*
 * A sleeping thread is woken when this many files wait (or at the end): waking it for
 * each folder (4.5 files on average on Debian's 7.2) cost more than the stats saved.
 */
#define WAKE_AT 128u

struct batch {
	struct batch *next;
	int fd;                        /* the folder; the thread closes it */
	struct ksc_statq_file **files; /* in chunks: they do not move */
	size_t n, cap;
};

struct ksc_statq {
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct batch *head, *tail;    /* batches of folders left, for the thread */
	struct batch *spare;          /* batches the thread is done with */
	bool done, waiting;
	size_t queued;                /* files in the queued batches */
	pthread_t thread;
	bool joined;
	struct batch **open;          /* the walk's: a batch per folder it is in */
	size_t n_open, cap_open;
	struct ksc_statq_file **chunks;
	size_t n_chunks, cap_chunks, n;
};

/* One batch: each file stat'ed in its folder, the folder closed. */
static void stat_batch(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct ksc_statq_file *f = b->files[i];
		const char *name = strrchr(f->path, '/');
		f->err = fstatat(b->fd, name ? name + 1 : f->path, &f->st, AT_SYMLINK_NOFOLLOW) < 0
				 ? -errno
				 : 0;
	}
	close(b->fd);
}

static void *statq_run(void *data)
{
	struct ksc_statq *q = data;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->head && !q->done) {
			q->waiting = true;
			pthread_cond_wait(&q->more, &q->lock);
			q->waiting = false;
		}
		struct batch *b = q->head;
		if (!b)
			break;
		if (!(q->head = b->next))
			q->tail = NULL;
		q->queued -= b->n;
		pthread_mutex_unlock(&q->lock);
		stat_batch(b);
		pthread_mutex_lock(&q->lock);
		b->next = q->spare;
		q->spare = b;
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct ksc_statq *ksc_statq_start(void)
{
	struct ksc_statq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	if (pthread_create(&q->thread, NULL, statq_run, q) != 0) {
		q->joined = true;
		ksc_statq_free(q);
		return NULL;
	}
	return q;
}

/* Batch b handed to the thread (woken if it sleeps and enough waits). */
static void push(struct ksc_statq *q, struct batch *b)
{
	b->next = NULL;
	pthread_mutex_lock(&q->lock);
	if (q->tail)
		q->tail->next = b;
	else
		q->head = b;
	q->tail = b;
	q->queued += b->n;
	if (q->waiting && q->queued >= WAKE_AT)
		pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
}

/* The open batch of folder fd (the innermost first), its place in *at; NULL if none. */
static struct batch *open_batch(const struct ksc_statq *q, int fd, size_t *at)
{
	for (size_t i = q->n_open; i-- > 0;)
		if (q->open[i]->fd == fd) {
			*at = i;
			return q->open[i];
		}
	return NULL;
}

/* A new open batch for the folder fd, or NULL when out of memory. */
static struct batch *begin(struct ksc_statq *q, int fd)
{
	struct batch *b;

	if (array_reserve(q->open, q->cap_open, q->n_open + 1, 16) < 0)
		return NULL;
	pthread_mutex_lock(&q->lock);
	if ((b = q->spare))
		q->spare = b->next;
	pthread_mutex_unlock(&q->lock);
	if (!b && !(b = calloc(1, sizeof(*b))))
		return NULL;
	b->fd = fd;
	b->n = 0;
	q->open[q->n_open++] = b;
	return b;
}

/* The room for file number q->n: a new chunk when the last is full. */
static struct ksc_statq_file *slot(struct ksc_statq *q)
{
	size_t c = q->n / CHUNK;

	if (c == q->n_chunks) {
		struct ksc_statq_file *chunk;
		if (array_reserve(q->chunks, q->cap_chunks, c + 1, 16) < 0 ||
		    !(chunk = malloc(CHUNK * sizeof(*chunk))))
			return NULL;
		q->chunks[q->n_chunks++] = chunk;
	}
	return &q->chunks[c][q->n % CHUNK];
}

int ksc_statq_add(struct ksc_statq *q, int dfd, uint32_t dir, const char *path)
{
	struct ksc_statq_file *f = slot(q);
	size_t at;
	struct batch *b = open_batch(q, dfd, &at);

	if (!f || (!b && !(b = begin(q, dfd))) ||
	    array_reserve(b->files, b->cap, b->n + 1, 16) < 0)
		return -ENOMEM;
	*f = (struct ksc_statq_file){ .path = strdup(path), .dir = dir };
	if (!f->path)
		return -ENOMEM;
	b->files[b->n++] = f;
	q->n++;
	return 0;
}

bool ksc_statq_keep_fd(struct ksc_statq *q, int fd)
{
	size_t at;
	struct batch *b = open_batch(q, fd, &at);

	if (!b)
		return false;
	memmove(&q->open[at], &q->open[at + 1], (q->n_open - at - 1) * sizeof(*q->open));
	q->n_open--;
	push(q, b);
	return true;
}

void ksc_statq_finish(struct ksc_statq *q)
{
	if (q->joined)
		return;
	/* a folder the walk never handed over: its descriptor is not ours to use */
	pthread_mutex_lock(&q->lock);
	for (size_t i = 0; i < q->n_open; i++) {
		struct batch *b = q->open[i];
		for (size_t k = 0; k < b->n; k++)
			b->files[k]->err = -EBADF;
		b->next = q->spare;
		q->spare = b;
	}
	q->n_open = 0;
	q->done = true;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	q->joined = true;
}

size_t ksc_statq_count(const struct ksc_statq *q)
{
	return q->n;
}

struct ksc_statq_file *ksc_statq_file(struct ksc_statq *q, size_t i)
{
	return &q->chunks[i / CHUNK][i % CHUNK];
}

void ksc_statq_free(struct ksc_statq *q)
{
	if (!q)
		return;
	ksc_statq_finish(q);
	for (struct batch *b = q->spare, *next; b; b = next) {
		next = b->next;
		free(b->files);
		free(b);
	}
	free(q->open);
	for (size_t i = 0; i < q->n; i++)
		free(ksc_statq_file(q, i)->path);
	for (size_t i = 0; i < q->n_chunks; i++)
		free(q->chunks[i]);
	free(q->chunks);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->more);
	free(q);
}
