// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Replacing files: the checks before a file is replaced, and atomic writes (a temporary
 * file in the same folder, renamed over the target), shared by every writer of the library.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "fileio.h"
#include "hash.h"

const char *ksc_write_strerror(int err)
{
	return err == KSC_ENOTREG ? "not a regular file; not replaced" : strerror(err);
}

int ksc_write_target_check(int dfd, const char *name, mode_t *mode)
{
	struct stat st;

	*mode = (mode_t)-1;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return 0;
	if (!S_ISREG(st.st_mode))
		return -KSC_ENOTREG;
	*mode = st.st_mode & 07777;
	return 0;
}


#define TMP_TAG ".ksymcheck-tmp-"

/* Remove temporary files left by killed runs: ".<name>.ksymcheck-tmp-<pid>-XXXXXX". */
static void remove_stale(int dfd, const char *name)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	size_t nl = strlen(name);

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		const char *s = de->d_name;
		if (s[0] != '.' || strncmp(s + 1, name, nl) != 0 ||
		    strncmp(s + 1 + nl, TMP_TAG, strlen(TMP_TAG)) != 0)
			continue;
		char *end;
		long pid = strtol(s + 1 + nl + strlen(TMP_TAG), &end, 10);
		if (pid <= 0 || *end != '-' || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			unlinkat(dfd, s, 0);
	}
	closedir(d);
}

/* A temporary file next to `name` in dfd: its descriptor, its name in tmp. */
static int open_temp(int dfd, const char *name, char *tmp, size_t size)
{
	if ((size_t)snprintf(tmp, size, ".%s" TMP_TAG "%ld-XXXXXX", name,
			     (long)getpid()) >= size)
		return -ENAMETOOLONG;
	size_t tl = strlen(tmp);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	uint64_t seed = (uint64_t)getpid() << 32 ^ (uint64_t)now.tv_nsec ^
			(uint64_t)now.tv_sec ^ ksc_hash64(name, strlen(name), 3);
	for (int tries = 0;; tries++) {
		static const char chars[] =
			"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
		uint64_t rnd = ksc_hash64(&tries, sizeof(tries), seed);
		for (size_t i = 0; i < 6; i++, rnd /= 62)
			tmp[tl - 6 + i] = chars[rnd % 62];
		int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST || tries > 100)
			return -errno;
	}
}

/*
 * Every byte of iov[0..n) at file offset `off` (or, off < 0, at the file position), in as
 * few calls as IOV_MAX allows.
 */
static int writev_at(int fd, const struct iovec *iov, size_t n, off_t off)
{
	struct iovec v[IOV_MAX < 1024 ? IOV_MAX : 1024];
	size_t i = 0, at = 0; /* the next byte: iov[i], at `at` */

	while (i < n) {
		int k = 0;
		for (size_t j = i; j < n && k < (int)ARRAY_SIZE(v); j++) {
			size_t skip = j == i ? at : 0;
			if (iov[j].iov_len == skip)
				continue;
			v[k++] = (struct iovec){ (unsigned char *)iov[j].iov_base + skip,
						 iov[j].iov_len - skip };
		}
		if (k == 0)
			break;
		ssize_t w = off < 0 ? writev(fd, v, k) : pwritev(fd, v, k, off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (off >= 0)
			off += w;
		size_t left = (size_t)w;
		while (i < n && left >= iov[i].iov_len - at) {
			left -= iov[i].iov_len - at;
			i++;
			at = 0;
		}
		at += left;
	}
	return 0;
}

static int writev_all(int fd, const struct iovec *iov, size_t n)
{
	return writev_at(fd, iov, n, -1);
}

struct half {
	int fd;
	const struct iovec *iov;
	size_t n;
	off_t off;
	int ret;
};

static void *write_half(void *arg)
{
	struct half *h = arg;

	h->ret = writev_at(h->fd, h->iov, h->n, h->off);
	return NULL;
}

/*
 * Large data in two halves at once, one in a thread of its own: copying into the page
 * cache is most of the cost of writing an index of a whole tree.
 */
static int write_parallel(int fd, const struct iovec *iov, size_t n)
{
	size_t total = 0, k = 0, first = 0;

	for (size_t i = 0; i < n; i++)
		total += iov[i].iov_len;
	if (total < ((size_t)4 << 20) || n < 2)
		return writev_all(fd, iov, n);
	while (k < n && first + iov[k].iov_len <= total / 2)
		first += iov[k++].iov_len;
	struct half h = { fd, iov + k, n - k, (off_t)first, 0 };
	pthread_t tid;
	if (pthread_create(&tid, NULL, write_half, &h) != 0)
		return writev_all(fd, iov, n);
	int ret = writev_at(fd, iov, k, 0);
	pthread_join(tid, NULL);
	return ret < 0 ? ret : h.ret;
}

/* The target checked, then a temporary file for it with the target's permission bits. */
static int open_target_temp(int dfd, const char *name, char *tmp, size_t size)
{
	mode_t mode;
	int r = ksc_write_target_check(dfd, name, &mode);

	if (r < 0)
		return r;
	remove_stale(dfd, name);
	int fd = open_temp(dfd, name, tmp, size);
	if (fd >= 0 && mode != (mode_t)-1 && fchmod(fd, mode) < 0) {
		r = -errno;
		close(fd);
		unlinkat(dfd, tmp, 0);
		return r;
	}
	return fd;
}

/*
 * The tests' kill points: with KSYMCHECK_TEST_KILL_AFTER_RENAME=K in the environment
 * (not honoured in a setuid or setgid process), the process kills itself with SIGKILL
 * once K renames of ksc_write_atomic_many() are done (0: before the first), as a crash
 * or kill -9 would stop it there.
 */
static void test_kill_point(size_t renamed)
{
	const char *s = secure_getenv("KSYMCHECK_TEST_KILL_AFTER_RENAME");
	char *end;

	if (s && *s && strtoul(s, &end, 10) == renamed && *end == '\0')
		raise(SIGKILL);
}

/* Rename tmp[from..to) over names[from..to) in that order; the first failure's index. */
static int rename_range(int dfd, char (*tmp)[NAME_MAX + 1], const char *const *names,
			size_t from, size_t to, size_t *failed)
{
	for (size_t i = from; i < to; i++) {
		if (renameat(dfd, tmp[i], dfd, names[i]) < 0) {
			if (failed)
				*failed = i;
			return -errno;
		}
		test_kill_point(i + 1);
	}
	return 0;
}

/*
 * Several files at once, replaced as a set: every one written to its temporary file and
 * (with `sync`) fsynced before any is renamed; then renamed in the order given, the last
 * one (the commit point) only after the folder is fsynced with the others renamed; then
 * the folder fsynced again. A failure before the renames leaves every old file as it was
 * and removes the temporaries; so does a crash, but for the temporaries (removed by the
 * next run). A crash during the renames leaves the first files new and the rest old; the
 * last one is new only when every other one is, on disk too.
 */
int ksc_write_atomic_many(const char *dir, const char *const *names,
			  const struct iovec *data, size_t n, bool sync, size_t *failed)
{
	char tmp[16][NAME_MAX + 1];
	int fds[16];
	size_t opened = 0;
	int dfd, ret = 0;

	if (failed)
		*failed = n;
	if (n > 16)
		return -EINVAL;
	if (n == 0)
		return 0;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	for (size_t i = 0; i < n && ret == 0; i++) {
		int fd = open_target_temp(dfd, names[i], tmp[i], sizeof(tmp[i]));
		if (fd < 0) {
			ret = fd;
			if (failed)
				*failed = i;
			break;
		}
		fds[opened++] = fd;
		ret = writev_all(fd, &data[i], 1);
	}
	/*
	 * Start every file's writeback before waiting for any: the fsyncs then wait for
	 * writes under way together instead of one after the other.
	 */
	for (size_t i = 0; i < opened && ret == 0 && sync; i++)
		sync_file_range(fds[i], 0, 0, SYNC_FILE_RANGE_WRITE);
	for (size_t i = 0; i < opened && ret == 0 && sync; i++)
		if (fsync(fds[i]) < 0)
			ret = -errno;
	for (size_t i = 0; i < opened; i++)
		if (close(fds[i]) < 0 && ret == 0)
			ret = -errno;
	if (ret == 0)
		test_kill_point(0);
	if (ret == 0)
		ret = rename_range(dfd, tmp, names, 0, opened - 1, failed);
	if (ret == 0 && sync && opened > 1 && fsync(dfd) < 0)
		ret = -errno;
	if (ret == 0)
		ret = rename_range(dfd, tmp, names, opened - 1, opened, failed);
	if (ret < 0) {
		for (size_t i = 0; i < opened; i++)
			unlinkat(dfd, tmp[i],
				 0); /* those renamed already are gone: ENOENT */
	} else if (sync) {
		fsync(dfd); /* the renames themselves */
	}
	close(dfd);
	return ret;
}

int ksc_write_atomic_iov(const char *dir, const char *name, const struct iovec *iov,
			 size_t n_iov, bool sync)
{
	return ksc_write_atomic_iov_par(dir, name, iov, n_iov, sync, false);
}

int ksc_write_atomic_iov_par(const char *dir, const char *name, const struct iovec *iov,
			     size_t n_iov, bool sync, bool parallel)
{
	char tmp[NAME_MAX + 1];
	int dfd, fd, ret = 0;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = open_target_temp(dfd, name, tmp, sizeof(tmp));
	if (fd < 0) {
		close(dfd);
		return fd;
	}
	ret = parallel ? write_parallel(fd, iov, n_iov) : writev_all(fd, iov, n_iov);
	if (ret == 0 && sync && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && renameat(dfd, tmp, dfd, name) < 0)
		ret = -errno;
	if (ret < 0)
		unlinkat(dfd, tmp, 0);
	else if (sync)
		fsync(dfd); /* the rename itself */
	close(dfd);
	return ret;
}

int ksc_write_atomic(const char *dir, const char *name, const void *data, size_t size,
		     bool sync)
{
	struct iovec v = { (void *)data, size };

	return ksc_write_atomic_iov(dir, name, &v, 1, sync);
}

const char *ksc_file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a folder";
	case S_IFLNK:
		return "a symbolic link";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	}
	return "a file of unknown type";
}

int ksc_open_read(int dfd, const char *name, unsigned int flags, struct stat *st)
{
	int fd = openat(dfd, name,
			O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
				(flags & KSC_OPEN_NOFOLLOW ? O_NOFOLLOW : 0)),
	    r;

	if (fd < 0) {
		r = -errno;
		/* a socket cannot be opened at all (ENXIO): say what it is */
		if (r == -ENXIO &&
		    fstatat(dfd, name, st, flags & KSC_OPEN_NOFOLLOW ? AT_SYMLINK_NOFOLLOW : 0) == 0 &&
		    S_ISSOCK(st->st_mode))
			return -KSC_ENOTREG;
		return r;
	}
	if (fstat(fd, st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st->st_mode) && !((flags & KSC_OPEN_FIFO) && S_ISFIFO(st->st_mode))) {
		close(fd);
		return S_ISDIR(st->st_mode) ? -EISDIR : -KSC_ENOTREG;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

int ksc_read_fd(int fd, const struct stat *st, size_t limit, char **data, size_t *size)
{
	bool sized = S_ISREG(st->st_mode) && st->st_size > 0;
	size_t len = 0, room, cap;
	char *buf;

	*data = NULL;
	*size = sized ? (size_t)st->st_size : 0;
	if (sized && (uint64_t)st->st_size > limit)
		return -EFBIG;
	/* a regular file: its size and one byte, so that the second read sees its end */
	room = sized ? (size_t)st->st_size + 1 : 65536;
	if (room > limit + 1)
		room = limit + 1;
	cap = room + 1;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == room) {
			if (sized || room > limit) /* a regular file ends at its size */
				break;
			size_t more = room * 2 > limit + 1 ? limit + 1 : room * 2;
			if (array_resize(buf, cap, more + 1) < 0) {
				free(buf);
				return -ENOMEM;
			}
			room = more;
		}
		ssize_t n = read(fd, buf + len, room - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (!sized && len > limit) {
		free(buf);
		*size = 0;
		return -EFBIG;
	}
	if (sized && len > (size_t)st->st_size)
		len = (size_t)st->st_size;
	buf[len] = '\0';
	*data = buf;
	*size = len;
	return 0;
}

/*
 * Resolve `rel` below `root` component by component, symbolic links included, an
 * absolute target meaning root/target and ".." never leaving root: what openat2()'s
 * RESOLVE_IN_ROOT does, written out because the callers need a path, not a descriptor.
 * 0 and out = root/resolved (an existing file or folder), or -errno (-ENOENT, -ELOOP,
 * -ENAMETOOLONG).
 */
int ksc_resolve_in_root(const char *root, const char *rel, char *out, size_t outsz)
{
	char todo[PATH_MAX], done[PATH_MAX] = "", link[PATH_MAX], p[PATH_MAX];
	unsigned links = 0;
	size_t rl = strlen(root);

	if ((size_t)snprintf(todo, sizeof(todo), "%s", rel) >= sizeof(todo))
		return -ENAMETOOLONG;
	char *rest = todo;
	while (*rest) {
		char *c = rest;
		size_t cl = strcspn(c, "/");
		rest = c + cl + (c[cl] == '/');
		c[cl] = '\0';
		if (cl == 0 || strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			char *s = strrchr(done, '/');
			*(s ? s : done) = '\0';
			continue;
		}
		if ((size_t)snprintf(p, sizeof(p), "%s%s/%s", root, done, c) >= sizeof(p))
			return -ENAMETOOLONG;
		struct stat st;
		if (lstat(p, &st) < 0)
			return -errno;
		if (!S_ISLNK(st.st_mode)) {
			size_t dl = strlen(done);
			if (dl + 1 + cl + 1 > sizeof(done))
				return -ENAMETOOLONG;
			done[dl] = '/';
			memcpy(done + dl + 1, c, cl + 1);
			continue;
		}
		if (++links > 40)
			return -ELOOP;
		ssize_t n = readlink(p, link, sizeof(link) - 1);
		if (n < 0)
			return -errno;
		link[n] = '\0';
		if (link[0] == '/')
			done[0] = '\0';
		/* the link's target, then what was left after it */
		char next[PATH_MAX];
		if ((size_t)snprintf(next, sizeof(next), "%s/%s", link, rest) >= sizeof(next))
			return -ENAMETOOLONG;
		memcpy(todo, next, strlen(next) + 1);
		rest = todo;
	}
	if (rl + strlen(done) + 2 > outsz)
		return -ENAMETOOLONG;
	snprintf(out, outsz, "%s%s", root, done[0] ? done : "/");
	return 0;
}
