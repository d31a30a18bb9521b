/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The files a search finds, each stat'ed by a second thread while the walk lists the
 * folders after it (ksc-modset-statq.c). On Debian's 7.2 tree the walk spends about as
 * long in fstatat() on its 4,216 files as in listing and opening its 945 folders:
 * taken apart, the two halves run at once on two cores.
 *
 *	struct ksc_statq *q = ksc_statq_start();        (NULL: stat in the walk)
 *	... for each file the walk hands out:
 *	r = ksc_statq_add(q, e->dfd, dir, e->path);
 *	... walk_opts.keep_fd: return ksc_statq_keep_fd(q, fd);
 *	... after the walk:
 *	ksc_statq_finish(q);                             (every stat taken)
 *	for (i = 0; i < ksc_statq_count(q); i++) f = ksc_statq_file(q, i); ...
 *	ksc_statq_free(q);
 */
#pragma once

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

/* The queue and its thread; NULL when either cannot be had (then stat in the walk). */
struct ksc_statq *ksc_statq_start(void);

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
 * Every queued stat taken (the thread joined). Nothing may be added after. A file whose
 * folder was never handed over has err -EBADF.
 */
void ksc_statq_finish(struct ksc_statq *q);

/* The files queued, in the order added (after ksc_statq_finish()). */
size_t ksc_statq_count(const struct ksc_statq *q);
struct ksc_statq_file *ksc_statq_file(struct ksc_statq *q, size_t i);

/* The queue, its files and their paths (finished first if it was not). */
void ksc_statq_free(struct ksc_statq *q);
