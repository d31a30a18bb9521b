/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "macro.h"

/*
 * A write target that exists and is not a regular file or a symbolic link (a device, a
 * FIFO, a socket, a folder): never renamed over, so that `--index /dev/null` run as root
 * cannot turn /dev/null into a regular file. Reported as "PATH: not a regular file; not
 * replaced" (ksc_write_strerror()).
 */
#define KSC_ENOTREG EMEDIUMTYPE
const char *ksc_write_strerror(int err);
/*
 * Whether dir/name may be replaced (see KSC_ENOTREG): 0, with *mode the permission bits
 * of an existing regular file (the new one gets them), or (mode_t)-1 when there is none
 * (or a symbolic link, replaced itself); -KSC_ENOTREG or another -errno.
 */
int ksc_write_target_check(int dfd, const char *name, mode_t *mode) _must_check_;

/*
 * Write `size` bytes to dir/name atomically: a temporary file in `dir`, fsync (when
 * `sync`), rename. On failure the temporary file is removed and -errno returned; the old
 * file, if any, is left as it was; a regular file replaced keeps its permission bits. Stale
 * temporary files of dead processes are removed.
 */
int ksc_write_atomic(const char *dir, const char *name, const void *data, size_t size,
		     bool sync) _must_check_;
struct iovec;
int ksc_write_atomic_iov(const char *dir, const char *name, const struct iovec *iov,
			 size_t n_iov, bool sync) _must_check_;
/* The same; with `parallel`, large data is written by two threads (two halves). */
int ksc_write_atomic_iov_par(const char *dir, const char *name, const struct iovec *iov,
			     size_t n_iov, bool sync, bool parallel) _must_check_;
/*
 * Up to 16 files into `dir`, as a set: all written (and fsynced) to temporary files
 * before any is renamed; renamed in the order given, the folder fsynced before the last
 * rename (the commit point: new only when all the others are) and after it. A failure
 * before the renames replaces no old file; *failed (when not NULL) is the index of the
 * name that failed, or n when none did.
 */
int ksc_write_atomic_many(const char *dir, const char *const *names, const struct iovec *data,
			  size_t n, bool sync, size_t *failed) _must_check_;

/*
 * Opening a file to read it: every path a user names or a walk finds goes through here.
 * The open never blocks (O_NONBLOCK, cleared again once the file is known: a FIFO nobody
 * writes to cannot hang it) and follows symbolic links; only a regular file is kept.
 * dfd/name as openat(2). Returns the descriptor (O_CLOEXEC, blocking) with *st filled,
 * or -errno: -EISDIR for a folder, -KSC_ENOTREG for anything else that is not a regular
 * file (a FIFO, a socket, a character or block device; *st filled, ksc_file_kind() words
 * it) — with KSC_OPEN_FIFO a FIFO or pipe is kept too (read once, to its end); with
 * KSC_OPEN_NOFOLLOW a symbolic link in the last component is not followed (-ELOOP).
 * Stable for callers of every wing (tools/, lib/): ksc_open_read(dfd, name, flags, st).
 */
#define KSC_OPEN_FIFO 0x1u
#define KSC_OPEN_NOFOLLOW 0x2u
struct stat;
int ksc_open_read(int dfd, const char *name, unsigned int flags, struct stat *st) _must_check_;
/* A file type in words, for messages: "a FIFO", "a socket", "a character device", ... */
const char *ksc_file_kind(mode_t mode);
/*
 * Resolve `rel` below `root` as openat2()'s RESOLVE_IN_ROOT would (symbolic links
 * followed, an absolute target taken inside root, ".." never leaving it), for callers
 * that need a path. 0 and out = root/resolved, or -errno (-ENOENT, -ELOOP, -ENAMETOOLONG).
 */
int ksc_resolve_in_root(const char *root, const char *rel, char *out, size_t outsz) _must_check_;

/*
 * Read what is left of fd (opened by ksc_open_read(), *st its fstat) into a malloc'd
 * buffer with a NUL after it, at most `limit` bytes: a regular file larger than that is
 * refused by its size before anything is read, a FIFO (or a /proc file, whose size reads
 * as 0) once it has sent more: -EFBIG, and *size the file's size (0 when not known).
 * A regular file that grows while read is cut at the size it had. 0 or -errno.
 */
int ksc_read_fd(int fd, const struct stat *st, size_t limit, char **data,
		size_t *size) _must_check_;

/* A file's modification and change times, in nanoseconds. */
static inline int64_t st_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

static inline int64_t st_ctime_ns(const struct stat *st)
{
	return (int64_t)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec;
}

/*
 * The same file, unchanged: device, inode, size, modification and change times all equal.
 * What a cache keyed by a file's stat checks before it trusts what it kept.
 */
static inline bool st_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       st_mtime_ns(a) == st_mtime_ns(b) && st_ctime_ns(a) == st_ctime_ns(b);
}
