// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Changing sources safely (srcedit-private.h says which file does what): the edit
 * object, edits as byte ranges of the content read once, and the atomic replacement of
 * the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/srcedit-private.h"
#include "util/array.h"
#include "util/fileio.h"
#include "util/opts.h"

/* FNV-1a, 64 bit: enough to notice that a file changed under us. */
static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* A source file larger than this is not edited (ksc-src.c reads none larger either). */
#define SRCEDIT_MAX (1u << 30)

static int srcedit_alloc(struct ksc_ctx *ctx, const char *path, struct ksc_srcedit **out)
{
	struct ksc_srcedit *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->ctx = ksc_ref(ctx);
	pool_init(&e->strings);
	e->path = pool_strdup(&e->strings, path);
	if (!e->path) {
		ksc_srcedit_free(e);
		return -ENOMEM;
	}
	*out = e;
	return 0;
}

KSC_EXPORT int ksc_srcedit_new_from_path(struct ksc_ctx *ctx, const char *path,
					 struct ksc_srcedit **out)
{
	struct ksc_srcedit *e;
	int fd, r;

	if (!ctx || !path || !out)
		return -EINVAL;
	r = srcedit_alloc(ctx, path, &e);
	if (r < 0)
		return r;
	fd = ksc_open_read(AT_FDCWD, path, 0, &e->st);
	if (fd < 0) {
		r = fd == -KSC_ENOTREG ? -EINVAL : fd;
		goto err;
	}
	r = ksc_read_fd(fd, &e->st, SRCEDIT_MAX, &e->data, &e->size);
	close(fd);
	if (r < 0)
		goto err;
	e->from_file = true;
	e->hash = hash_bytes(e->data, e->size);
	*out = e;
	return 0;
err:
	if (r != -ENOMEM)
		ksc_err(ctx, "%s: %s", path, strerror(-r));
	ksc_srcedit_free(e);
	return r;
}

KSC_EXPORT int ksc_srcedit_new_from_memory(struct ksc_ctx *ctx, const char *path,
					   const char *data, size_t size,
					   struct ksc_srcedit **out)
{
	struct ksc_srcedit *e;
	int r;

	if (!ctx || !path || !out || (!data && size))
		return -EINVAL;
	r = srcedit_alloc(ctx, path, &e);
	if (r < 0)
		return r;
	e->data = malloc(size + 1);
	if (!e->data) {
		ksc_srcedit_free(e);
		return -ENOMEM;
	}
	if (size)
		memcpy(e->data, data, size);
	e->data[size] = '\0';
	e->size = size;
	*out = e;
	return 0;
}

KSC_EXPORT struct ksc_srcedit *ksc_srcedit_free(struct ksc_srcedit *e)
{
	if (!e)
		return NULL;
	free(e->data);
	free(e->edits);
	free(e->notes);
	pool_fini(&e->strings);
	ksc_unref(e->ctx);
	free(e);
	return NULL;
}

KSC_EXPORT const char *ksc_srcedit_get_path(const struct ksc_srcedit *e)
{
	return e ? e->path : NULL;
}

KSC_EXPORT const char *ksc_srcedit_get_data(const struct ksc_srcedit *e, size_t *size)
{
	if (!e)
		return NULL;
	if (size)
		*size = e->size;
	return e->data;
}

KSC_EXPORT size_t ksc_srcedit_get_edit_count(const struct ksc_srcedit *e)
{
	return e ? e->n_edits : 0;
}

KSC_EXPORT size_t ksc_srcedit_get_note_count(const struct ksc_srcedit *e)
{
	return e ? e->n_notes : 0;
}

KSC_EXPORT const struct ksc_srcedit_note *
ksc_srcedit_get_note(const struct ksc_srcedit *e, size_t i)
{
	return e && i < e->n_notes ? &e->notes[i] : NULL;
}

KSC_EXPORT int ksc_srcedit_replace(struct ksc_srcedit *e, size_t offset, size_t length,
				   const char *text)
{
	if (!e || !text || offset > e->size || length > e->size - offset)
		return -EINVAL;
	size_t end = offset + length, pos = e->n_edits;
	/* Sorted by offset; an insertion goes after earlier ones at the same offset. */
	for (size_t i = 0; i < e->n_edits; i++) {
		const struct edit *x = &e->edits[i];
		size_t xe = x->off + x->len;
		if (length && x->len ? (offset < xe && x->off < end)
				     : (length ? (x->off > offset && x->off < end)
					       : (offset > x->off && offset < xe)))
			return -EINVAL;
		if (pos == e->n_edits &&
		    (x->off > offset || (x->off == offset && x->len && !length)))
			pos = i;
	}
	if (array_reserve(e->edits, e->cap_edits, e->n_edits + 1, 8) < 0)
		return -ENOMEM;
	const char *t = pool_strdup(&e->strings, text);
	if (!t)
		return -ENOMEM;
	memmove(e->edits + pos + 1, e->edits + pos,
		(e->n_edits - pos) * sizeof(*e->edits));
	e->edits[pos] = (struct edit){ offset, length, t, e->seq++ };
	e->n_edits++;
	return 0;
}

KSC_EXPORT int ksc_srcedit_get_result(const struct ksc_srcedit *e, char **data,
				      size_t *size)
{
	size_t len;

	if (!e || !data)
		return -EINVAL;
	len = e->size;
	for (size_t i = 0; i < e->n_edits; i++)
		len = len - e->edits[i].len + strlen(e->edits[i].text);
	char *out = malloc(len + 1), *o = out;
	if (!out)
		return -ENOMEM;
	size_t p = 0;
	for (size_t i = 0; i < e->n_edits; i++) {
		const struct edit *x = &e->edits[i];
		size_t tl = strlen(x->text);
		memcpy(o, e->data + p, x->off - p);
		o += x->off - p;
		memcpy(o, x->text, tl);
		o += tl;
		p = x->off + x->len;
	}
	memcpy(o, e->data + p, e->size - p);
	o += e->size - p;
	*o = '\0';
	*data = out;
	if (size)
		*size = (size_t)(o - out);
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Atomic replacement                                                                 */

static bool same_identity(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Does `path` (the file, or what it was renamed to) still hold what was read? */
static int still_same(const struct ksc_srcedit *e, const char *path)
{
	struct stat st;
	char *data;
	size_t size;
	int fd = ksc_open_read(AT_FDCWD, path, KSC_OPEN_NOFOLLOW, &st), r;

	/* gone, or something else in its place (a FIFO, a folder): not what was read */
	if (fd == -ENOENT || fd == -KSC_ENOTREG || fd == -EISDIR)
		return -ESTALE;
	if (fd < 0)
		return fd;
	if (!same_identity(&st, &e->st)) {
		close(fd);
		return -ESTALE;
	}
	r = ksc_read_fd(fd, &st, SRCEDIT_MAX, &data, &size);
	close(fd);
	if (r < 0)
		return r;
	r = size == e->size && hash_bytes(data, size) == e->hash &&
	    memcmp(data, e->data, size) == 0 ? 0 : -ESTALE;
	free(data);
	return r;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/*
 * Put tmp (the new content) in the place of e->path. With RENAME_EXCHANGE the file
 * swapped out is checked once more: an edit made after the last check and before the
 * switch is not lost, the files are swapped back (-ESTALE). -EEXIST: swapping back
 * failed, and the edited file is left at tmp (*why says so). Without RENAME_EXCHANGE
 * (a file system that lacks it), a plain rename.
 */
static int switch_files(const struct ksc_srcedit *e, const char *tmp, const char **why)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, e->path, RENAME_EXCHANGE) < 0) {
		if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
			*why = "cannot replace it";
			return -errno;
		}
		if (rename(tmp, e->path) < 0) {
			*why = "cannot replace it";
			return -errno;
		}
		return 0;
	}
	int r = still_same(e, tmp);
	if (r == 0) {
		unlink(tmp); /* the file as it was read */
		return 0;
	}
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, e->path, RENAME_EXCHANGE) < 0) {
		*why = "changed in the instant it was replaced, and could not be put back; "
		       "its last edit is in";
		return -EEXIST;
	}
	*why = "changed in the instant it was replaced (that change kept)";
	return -ESTALE;
}

/* The file as it is now: the one we read, a regular file, writable, one link. */
static int check_replaceable(const struct ksc_srcedit *e, struct stat *st, const char **why)
{
	if (lstat(e->path, st) < 0) {
		*why = "cannot stat";
		return -errno;
	}
	if (S_ISLNK(st->st_mode)) {
		*why = "a symbolic link, replacing it would replace the link";
		return -ELOOP;
	}
	if (!S_ISREG(st->st_mode) || st->st_dev != e->st.st_dev || st->st_ino != e->st.st_ino) {
		*why = "replaced since it was read";
		return -ESTALE;
	}
	if (!(st->st_mode & S_IWUSR) || access(e->path, W_OK) < 0) {
		*why = "read-only (no write permission)";
		return -EACCES;
	}
	if (st->st_nlink > 1) {
		*why = "has several hard links, replacing it would split them";
		return -EMLINK;
	}
	return 0;
}

/*
 * A temporary file next to the file (same file system, so rename() is atomic): its folder
 * in *dir, its name in *tmp, open in *fd. 0 or -errno (*tmp NULL then).
 */
static int make_temp(const struct ksc_srcedit *e, char **dir, char **tmp, int *fd,
		     const char **why)
{
	const char *slash = strrchr(e->path, '/');
	size_t dl = slash ? (size_t)(slash - e->path) : 0;

	*dir = slash ? strndup(e->path, dl ? dl : 1) : strdup(".");
	if (!*dir || asprintf(tmp, "%s/.%s.ksc-XXXXXX", *dir, slash ? slash + 1 : e->path) < 0) {
		*tmp = NULL;
		return -ENOMEM;
	}
	*fd = mkostemp(*tmp, O_CLOEXEC);
	if (*fd < 0) {
		int r = -errno;
		*why = "cannot create a temporary file next to it";
		free(*tmp);
		*tmp = NULL;
		return r;
	}
	return 0;
}

/* The new content into the temporary file, with the file's mode and owner, synced; fd
 * is closed. 0 or -errno. */
static int write_temp(int fd, const struct stat *st, const char *res, size_t rsize,
		      const char **why)
{
	int r = write_all(fd, res, rsize);

	if (r < 0) {
		*why = "cannot write the new content";
		goto out;
	}
	if (fchmod(fd, st->st_mode & 07777) < 0) {
		r = -errno;
		*why = "cannot set the permissions";
		goto out;
	}
	if ((st->st_uid != geteuid() || st->st_gid != getegid()) &&
	    fchown(fd, st->st_uid, st->st_gid) < 0 && errno != EPERM) {
		r = -errno;
		*why = "cannot set the owner";
		goto out;
	}
	if (fsync(fd) < 0) {
		r = -errno;
		*why = "cannot sync the new content";
		goto out;
	}
	r = close(fd);
	if (r < 0) {
		*why = "cannot write the new content";
		return -errno;
	}
	return 0;
out:
	close(fd);
	return r;
}

/* After the switch: the folder synced, and the edit describes the new file. */
static void committed(struct ksc_srcedit *e, const char *dir, char *res, size_t rsize)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd >= 0) {
		if (fsync(dfd) < 0)
			ksc_warn(e->ctx, "%s: the folder could not be synced: %s", dir,
				 strerror(errno));
		close(dfd);
	}
	/* A second commit has nothing to do. */
	free(e->data);
	e->data = res;
	e->size = rsize;
	e->hash = hash_bytes(e->data, e->size);
	if (stat(e->path, &e->st) < 0)
		memset(&e->st, 0, sizeof(e->st));
	e->n_edits = 0;
}

KSC_EXPORT int ksc_srcedit_commit(struct ksc_srcedit *e,
				  const struct ksc_srcedit_commit_opts *o)
{
	struct stat st;
	char *res = NULL, *tmp = NULL, *dir = NULL;
	size_t rsize;
	int fd = -1, r;
	const char *why = NULL;

	if (!e || !opts_valid(o))
		return -EINVAL;
	if (!e->n_edits)
		return 0;
	if (!e->from_file)
		return -EINVAL;

	r = check_replaceable(e, &st, &why);
	if (r < 0)
		goto fail;
	r = ksc_srcedit_get_result(e, &res, &rsize);
	if (r < 0)
		goto fail;
	r = make_temp(e, &dir, &tmp, &fd, &why);
	if (r < 0)
		goto fail;
	r = write_temp(fd, &st, res, rsize, &why);
	fd = -1;
	if (r < 0)
		goto fail;
	if (opts_get(o, before_replace, NULL)) {
		r = o->before_replace(opts_get(o, data, NULL), e->path, tmp);
		if (r < 0) {
			why = "cancelled";
			goto fail;
		}
	}
	/* Last check, then the switch. */
	r = still_same(e, e->path);
	if (r < 0) {
		why = r == -ESTALE ? "changed since it was read" : "cannot read it again";
		goto fail;
	}
	if (opts_get(o, after_check, NULL))
		o->after_check(opts_get(o, data, NULL), e->path);
	r = switch_files(e, tmp, &why);
	if (r < 0) {
		if (r == -EEXIST) { /* the file's last edit is at tmp: keep it */
			ksc_err(e->ctx, "%s: %s: %s", e->path, why, tmp);
			free(tmp);
			tmp = NULL;
			r = -ESTALE;
			why = NULL;
			goto fail_quiet;
		}
		goto fail;
	}
	free(tmp);
	committed(e, dir, res, rsize);
	free(dir);
	return 0;

fail:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
fail_quiet:
	free(res);
	free(dir);
	if (r == -ENOMEM || !why)
		return r;
	bool own = r == -ESTALE || r == -EACCES || r == -EMLINK || r == -ELOOP;
	ksc_err(e->ctx, "%s: %s%s%s; left unchanged", e->path, why, own ? "" : ": ",
		own ? "" : strerror(-r));
	return r;
}
