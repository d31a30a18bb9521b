// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The files a search finds, stat'ed beside the walk (modset-statq.h).
 *
 * The walk fills one batch per open folder: the folder's files, in the order met. When
 * the walk is done with a folder, its batch goes on a queue with the folder's descriptor:
 * the walk hands it over (util/walk.h's keep_fd) instead of closing it, and whoever stats
 * the batch closes it after the stats (a dup() per folder cost as much again). Batches
 * are taken by a thread of the queue's own (with more than two CPUs), by a thread that
 * waits for the walk and helps meanwhile (ksc_statq_door_help()), and by the walk itself:
 * when too many folders are held open, and at the end. Files are kept in chunks that
 * never move, so a stat writes through pointers that stay put while the walk adds chunks;
 * the walk does not read a file's stat before ksc_statq_finish() has seen every batch
 * done, so no two threads touch one file at once.
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
/*
 * At most this many folders held open on the queue: past it the walk stats the oldest
 * batch itself, so that a walk no one helps keeps no more descriptors open than this
 * (Debian's 7.2 tree has 945 folders; RLIMIT_NOFILE is often 1,024).
 */
#define HELD_MAX 64u

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
	struct batch *spare;          /* batches done with */
	pthread_cond_t idle;          /* busy went to 0 */
	bool done;
	unsigned int waiting, busy;   /* helpers asleep, batches being stat'ed */
	size_t queued, held;          /* files and folders in the queued batches */
	pthread_t thread;
	bool joined;                  /* no thread of its own, or joined */
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

/* The oldest queued batch stat'ed (q->lock held, dropped meanwhile); false: none. */
static bool take_one(struct ksc_statq *q)
{
	struct batch *b = q->head;

	if (!b)
		return false;
	if (!(q->head = b->next))
		q->tail = NULL;
	q->queued -= b->n;
	q->held--;
	q->busy++;
	pthread_mutex_unlock(&q->lock);
	stat_batch(b);
	pthread_mutex_lock(&q->lock);
	b->next = q->spare;
	q->spare = b;
	if (--q->busy == 0)
		pthread_cond_broadcast(&q->idle);
	return true;
}

/* Batches taken as they come until the walk is done and none is left (q->lock held). */
static void help_locked(struct ksc_statq *q)
{
	for (;;) {
		while (!q->head && !q->done) {
			q->waiting++;
			pthread_cond_wait(&q->more, &q->lock);
			q->waiting--;
		}
		if (!take_one(q))
			return;
	}
}

static void *statq_run(void *data)
{
	struct ksc_statq *q = data;

	pthread_mutex_lock(&q->lock);
	help_locked(q);
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct ksc_statq *ksc_statq_start(bool thread)
{
	struct ksc_statq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->idle, NULL);
	q->joined = !thread || pthread_create(&q->thread, NULL, statq_run, q) != 0;
	if (thread && q->joined) {
		ksc_statq_free(q);
		return NULL;
	}
	return q;
}

/*
 * Batch b queued (a sleeping helper woken when enough waits); past HELD_MAX folders held,
 * the oldest stat'ed here.
 */
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
	q->held++;
	if (q->waiting && q->queued >= WAKE_AT)
		pthread_cond_broadcast(&q->more);
	while (q->held > HELD_MAX && take_one(q))
		;
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
	if (q->done)
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
	pthread_cond_broadcast(&q->more);
	help_locked(q); /* what is left, beside the helpers */
	while (q->busy)
		pthread_cond_wait(&q->idle, &q->lock);
	pthread_mutex_unlock(&q->lock);
	if (!q->joined)
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
	pthread_cond_destroy(&q->idle);
	free(q);
}

void ksc_statq_door_init(struct ksc_statq_door *d)
{
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->changed, NULL);
	d->q = NULL;
	d->closed = false;
}

void ksc_statq_door_fini(struct ksc_statq_door *d)
{
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->changed);
}

void ksc_statq_door_open(struct ksc_statq_door *d, struct ksc_statq *q)
{
	pthread_mutex_lock(&d->lock);
	if (!d->closed)
		d->q = q;
	pthread_cond_broadcast(&d->changed);
	pthread_mutex_unlock(&d->lock);
}

void ksc_statq_door_close(struct ksc_statq_door *d)
{
	/* waits for a helper inside: it leaves once the queue is finished */
	pthread_mutex_lock(&d->lock);
	d->q = NULL;
	d->closed = true;
	pthread_cond_broadcast(&d->changed);
	pthread_mutex_unlock(&d->lock);
}

void ksc_statq_door_help(struct ksc_statq_door *d)
{
	pthread_mutex_lock(&d->lock);
	while (!d->q && !d->closed)
		pthread_cond_wait(&d->changed, &d->lock);
	if (d->q) {
		struct ksc_statq *q = d->q;
		pthread_mutex_lock(&q->lock);
		help_locked(q);
		pthread_mutex_unlock(&q->lock);
	}
	pthread_mutex_unlock(&d->lock);
}
