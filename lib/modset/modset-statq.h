/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The files a search finds, each stat'ed beside the walk while it lists the folders after
 * it (ksc-modset-statq.c): by a thread of the queue's own with more than two CPUs, or by
 * the thread waiting for the walk (ksc_modset_job_wait() comes in through a door), and
 * by the walk itself at the end. On Debian's 7.2 tree the walk spends about as long in
 * fstatat() on its 4,216 files as in listing and opening its 945 folders: taken apart,
 * the two halves run at once on two cores.
 *
 *	struct ksc_statq *q = ksc_statq_start(thread);  (NULL: stat in the walk)
 *	ksc_statq_door_open(door, q);                    (a waiting thread may help)
 *	... for each file the walk hands out:
 *	r = ksc_statq_add(q, e->dfd, dir, e->path);
 *	... walk_opts.keep_fd: return ksc_statq_keep_fd(q, fd);
 *	... after the walk:
 *	ksc_statq_finish(q);                             (every stat taken)
 *	ksc_statq_door_close(door);
 *	for (i = 0; i < ksc_statq_count(q); i++) f = ksc_statq_file(q, i); ...
 *	ksc_statq_free(q);
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* A file as the walk found it, with what its stat gave (after ksc_statq_finish()). */
struct ksc_statq_file {
	char *path;    /* absolute, malloc'd: the queue's until ksc_statq_free() */
	uint32_t dir;  /* the caller's number of its folder */
	int err;       /* 0, or fstatat()'s -errno */
	struct stat st;
};

struct ksc_statq;

/*
 * The queue, and with `thread` a thread of its own that stats; NULL when either cannot be
 * had (then stat in the walk).
 */
struct ksc_statq *ksc_statq_start(bool thread);

/*
 * The file at path, whose last component is an entry of the open folder dfd (numbered
 * dir by the caller), to be stat'ed without following a link once the walk hands the
 * folder over. 0 or -ENOMEM.
 */
int ksc_statq_add(struct ksc_statq *q, int dfd, uint32_t dir, const char *path)
	__attribute__((warn_unused_result));

/*
 * The walk is done with the folder fd: true when files of it were added (the thread
 * stats them, then closes fd), false when none were (the walk's to close).
 */
bool ksc_statq_keep_fd(struct ksc_statq *q, int fd);

/*
 * Every queued stat taken, the rest by the caller (the thread joined, every helper out of
 * the queue). Nothing may be added after. A file whose folder was never handed over has
 * err -EBADF.
 */
void ksc_statq_finish(struct ksc_statq *q);

/* The files queued, in the order added (after ksc_statq_finish()). */
size_t ksc_statq_count(const struct ksc_statq *q);
struct ksc_statq_file *ksc_statq_file(struct ksc_statq *q, size_t i);

/* The queue, its files and their paths (finished first if it was not). */
void ksc_statq_free(struct ksc_statq *q);

/*
 * Where a thread that waits for the walk comes in to help: the walk opens it on its queue
 * and closes it after ksc_statq_finish(); the door outlives the queue (the waiter's).
 */
struct ksc_statq_door {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct ksc_statq *q; /* open on it, or NULL */
	bool closed;
};
void ksc_statq_door_init(struct ksc_statq_door *d);
void ksc_statq_door_fini(struct ksc_statq_door *d);
/* q offered to helpers (not once the door was closed). */
void ksc_statq_door_open(struct ksc_statq_door *d, struct ksc_statq *q);
/* No more help wanted: waits for a helper inside to leave (it does once q is finished). */
void ksc_statq_door_close(struct ksc_statq_door *d);
/*
 * The caller stats batches of the queue the door is opened on until the walk is done and
 * none is left; returns at once when the door is closed, waits while it is neither.
 */
void ksc_statq_door_help(struct ksc_statq_door *d);
