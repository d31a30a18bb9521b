// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Changing sources safely: edits as byte ranges of the content read once, the planners
 * that make them (migrate to a kernel version, add MODULE_IMPORT_NS lines as make nsdeps
 * does), a unified diff of them, and the atomic replacement of the file.
 *
 * The diff is written here rather than by a library or by running diff(1): the edits are
 * few and local and we know exactly which bytes change, so grouping the changed lines
 * with three lines of context is a page of code, while GNU diffutils has no library and a
 * generic LCS diff would only rediscover what the edit list already says.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/source.h"
#include "util/array.h"
#include "util/fileio.h"
#include "util/opts.h"

struct edit {
	size_t off, len;
	const char *text;
	size_t seq;            /* order of insertion, for insertions at one offset */
};

struct ksc_srcedit {
	struct ksc_ctx *ctx;
	struct pool strings;
	const char *path;
	char *data;
	size_t size;
	bool from_file;
	struct stat st;        /* identity when read */
	uint64_t hash;
	struct edit *edits;
	size_t n_edits, cap_edits, seq;
	struct ksc_srcedit_note *notes;
	size_t n_notes, cap_notes;
};

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

static int add_note(struct ksc_srcedit *e, unsigned int line, const char *fmt, ...)
	_printf_format_(3, 4);
static int add_note(struct ksc_srcedit *e, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	if (array_reserve(e->notes, e->cap_notes, e->n_notes + 1, 4) < 0) {
		free(s);
		return -ENOMEM;
	}
	const char *t = pool_strdup(&e->strings, s);
	free(s);
	if (!t)
		return -ENOMEM;
	e->notes[e->n_notes++] = (struct ksc_srcedit_note){ line, t };
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
/* Unified diff                                                                       */

struct lines {
	const char *d;
	size_t n;
	size_t *start;  /* start offset of each line; start[count] = n */
	size_t count;
};

static int lines_split(struct lines *l, const char *d, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (d[i] == '\n')
			c++;
	if (n && d[n - 1] != '\n')
		c++;
	l->d = d;
	l->n = n;
	l->count = c;
	l->start = malloc((c + 1) * sizeof(*l->start));
	if (!l->start)
		return -ENOMEM;
	size_t k = 0;
	if (n)
		l->start[k++] = 0;
	for (size_t i = 0; i < n; i++)
		if (d[i] == '\n' && i + 1 < n)
			l->start[k++] = i + 1;
	l->start[c] = n;
	return 0;
}

/* The index of the line holding offset `off` (count when off == n). */
static size_t line_of(const struct lines *l, size_t off)
{
	size_t lo = 0, hi = l->count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (l->start[mid + 1] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool line_eq(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	size_t la = a->start[i + 1] - a->start[i], lb = b->start[j + 1] - b->start[j];

	return la == lb && memcmp(a->d + a->start[i], b->d + b->start[j], la) == 0;
}

static void put_line(FILE *f, char mark, const struct lines *l, size_t i)
{
	size_t s = l->start[i], e = l->start[i + 1];

	fputc(mark, f);
	fwrite(l->d + s, 1, e - s, f);
	if (e == s || l->d[e - 1] != '\n')
		fputs("\n\\ No newline at end of file\n", f);
}

/* A run of changed lines: old [o0, o1) became new [n0, n1). */
struct change {
	size_t o0, o1, n0, n1;
};

/*
 * "--- a/PATH" or "+++ b/PATH" (an absolute PATH without a/ b/). A name with a space, a
 * control character, '"', '\\' or a byte above 0x7f is quoted as git quotes it
 * ("a/x\tb", octal for the rest), which GNU patch and git apply both read.
 */
static void diff_label(FILE *f, const char *prefix, const char *path)
{
	const char *ab = prefix[0] == '-' ? "a/" : "b/";
	bool quote = false;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (path[0] == '/')
		ab = "";
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '\\')
			quote = true;
	if (!quote) {
		fprintf(f, "%s %s%s\n", prefix, ab, path);
		return;
	}
	fprintf(f, "%s \"%s", prefix, ab);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < ' ' || *p >= 0x7f)
			fprintf(f, "\\%03o", *p);
		else
			fputc(*p, f);
	}
	fputs("\"\n", f);
}

KSC_EXPORT int ksc_srcedit_write_diff(const struct ksc_srcedit *e, FILE *f)
{
	return ksc_srcedit_write_diff_as(e, NULL, f);
}

/*
 * The changes the edits make, in old and new lines, into ch (room for one per edit);
 * their number. Each edit touches whole old lines [o0, o1); the same lines in the new
 * text are found through the running difference in length. Edits on neighbouring lines
 * are merged; then unchanged lines at both ends of each change are given back to the
 * context, so an inserted line shows as one '+' line.
 */
static size_t diff_changes(const struct ksc_srcedit *e, const struct lines *ol,
			   const struct lines *nl, size_t rsize, struct change *ch)
{
	long long delta = 0, ldelta = 0;
	size_t nch = 0;

	for (size_t i = 0; i < e->n_edits; i++) {
		const struct edit *x = &e->edits[i];
		size_t o0 = line_of(ol, x->off);
		size_t last = x->len ? x->off + x->len - 1 : x->off;
		size_t o1 = x->off == e->size ? ol->count : line_of(ol, last) + 1;
		if (o0 > ol->count)
			o0 = ol->count;
		if (o1 < o0)
			o1 = o0;
		/* whole lines inserted before a line: no old line changes */
		size_t tl = strlen(x->text);
		if (!x->len && o0 < ol->count && ol->start[o0] == x->off && tl &&
		    x->text[tl - 1] == '\n')
			o1 = o0;
		if (x->off == e->size && e->size && e->data[e->size - 1] != '\n' && o0 > 0)
			o0--; /* appending to a last line without newline changes it */
		if (nch && o0 <= ch[nch - 1].o1) {
			if (o1 > ch[nch - 1].o1)
				ch[nch - 1].o1 = o1;
		} else {
			ch[nch++] = (struct change){ o0, o1, 0, 0 };
		}
		delta += (long long)strlen(x->text) - (long long)x->len;
		/* the new end of this change, by bytes */
		size_t old_end = ch[nch - 1].o1 < ol->count ? ol->start[ch[nch - 1].o1] : e->size;
		size_t new_end = (size_t)((long long)old_end + delta);
		ch[nch - 1].n1 = new_end >= rsize ? nl->count : line_of(nl, new_end);
	}
	/* new starts: lines before a change are unchanged, so they map one to one */
	for (size_t i = 0; i < nch; i++) {
		ch[i].n0 = (size_t)((long long)ch[i].o0 + ldelta);
		ldelta += (long long)(ch[i].n1 - ch[i].n0) - (long long)(ch[i].o1 - ch[i].o0);
		while (ch[i].o0 < ch[i].o1 && ch[i].n0 < ch[i].n1 &&
		       line_eq(ol, ch[i].o0, nl, ch[i].n0)) {
			ch[i].o0++;
			ch[i].n0++;
		}
		while (ch[i].o1 > ch[i].o0 && ch[i].n1 > ch[i].n0 &&
		       line_eq(ol, ch[i].o1 - 1, nl, ch[i].n1 - 1)) {
			ch[i].o1--;
			ch[i].n1--;
		}
	}
	return nch;
}

/* The hunks of changes ch[0..nch), with three lines of context. */
static void diff_hunks(FILE *f, const struct change *ch, size_t nch, const struct lines *ol,
		       const struct lines *nl)
{
	const size_t C = 3;

	for (size_t i = 0; i < nch;) {
		if (ch[i].o0 == ch[i].o1 && ch[i].n0 == ch[i].n1) {
			i++;
			continue;
		}
		size_t j = i;
		while (j + 1 < nch && ch[j + 1].o0 <= ch[j].o1 + 2 * C)
			j++;
		size_t hs = ch[i].o0 > C ? ch[i].o0 - C : 0;
		size_t he = ch[j].o1 + C < ol->count ? ch[j].o1 + C : ol->count;
		size_t nhs = ch[i].n0 - (ch[i].o0 - hs);
		size_t nhe = ch[j].n1 + (he - ch[j].o1);
		size_t olen = he - hs, nlen = nhe - nhs;
		fprintf(f, "@@ -%zu", olen ? hs + 1 : hs);
		if (olen != 1)
			fprintf(f, ",%zu", olen);
		fprintf(f, " +%zu", nlen ? nhs + 1 : nhs);
		if (nlen != 1)
			fprintf(f, ",%zu", nlen);
		fputs(" @@\n", f);
		size_t o = hs;
		for (size_t k = i; k <= j; k++) {
			for (; o < ch[k].o0; o++)
				put_line(f, ' ', ol, o);
			for (size_t x = ch[k].o0; x < ch[k].o1; x++)
				put_line(f, '-', ol, x);
			for (size_t x = ch[k].n0; x < ch[k].n1; x++)
				put_line(f, '+', nl, x);
			o = ch[k].o1;
		}
		for (; o < he; o++)
			put_line(f, ' ', ol, o);
		i = j + 1;
	}
}

KSC_EXPORT int ksc_srcedit_write_diff_as(const struct ksc_srcedit *e, const char *name,
					 FILE *f)
{
	struct lines ol = { 0 }, nl = { 0 };
	struct change *ch = NULL;
	char *res = NULL;
	size_t rsize;
	int r;

	if (!e || !f || (name && !name[0]))
		return -EINVAL;
	if (!e->n_edits)
		return 0;
	r = ksc_srcedit_get_result(e, &res, &rsize);
	if (r < 0)
		return r;
	if (lines_split(&ol, e->data, e->size) < 0 || lines_split(&nl, res, rsize) < 0 ||
	    !(ch = calloc(e->n_edits, sizeof(*ch)))) {
		r = -ENOMEM;
		goto out;
	}
	size_t nch = diff_changes(e, &ol, &nl, rsize, ch);
	diff_label(f, "---", name ? name : e->path);
	diff_label(f, "+++", name ? name : e->path);
	diff_hunks(f, ch, nch, &ol, &nl);
	r = ferror(f) ? -EIO : 0;
out:
	free(ol.start);
	free(nl.start);
	free(ch);
	free(res);
	return r;
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

/* ---------------------------------------------------------------------------------- */
/* Planning                                                                           */

struct scanned {
	struct pool strings;
	struct ksc_src_vec recs;
	struct ksc_src_scanner sc;
};

static int scan_edit(const struct ksc_srcedit *e, struct scanned *s)
{
	enum ksc_src_lang lang = ksc_src_lang_of(e->path);

	memset(s, 0, sizeof(*s));
	pool_init(&s->strings);
	ksc_src_scanner_init(&s->sc, &s->strings, &s->recs, KSC_SRC_SCAN_DEFINES, NULL);
	return ksc_src_scan_buffer(&s->sc, e->path, e->data, e->size,
				   lang == KSC_LANG_NONE ? KSC_LANG_C : lang, NULL);
}

static void scanned_fini(struct scanned *s)
{
	ksc_src_scanner_fini(&s->sc);
	free(s->recs.v);
	pool_fini(&s->strings);
}

static const struct ksc_src_define *find_define(const struct scanned *s, const char *name)
{
	for (size_t i = 0; i < s->sc.n_defines; i++)
		if (strcmp(s->sc.defines[i].name, name) == 0)
			return &s->sc.defines[i];
	return NULL;
}

/* C string literal for `v` (only printable ASCII kept as is). Caller frees. */
static char *c_string(const char *v)
{
	size_t n = strlen(v);
	char *out = malloc(4 * n + 3), *o = out;

	if (!out)
		return NULL;
	*o++ = '"';
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p == '"' || *p == '\\') {
			*o++ = '\\';
			*o++ = (char)*p;
		} else if (*p < 0x20 || *p >= 0x7f) {
			o += sprintf(o, "\\%03o", *p);
		} else {
			*o++ = (char)*p;
		}
	}
	*o++ = '"';
	*o = '\0';
	return out;
}

/* Rewrite the namespace spelling of record r (an argument or #define value) for t. */
static int respell(struct ksc_srcedit *e, const struct scanned *s,
		   const struct ksc_src_record *r, const struct ksc_features *t,
		   const char *what)
{
	bool make = ksc_src_lang_of(e->path) == KSC_LANG_MAKE;
	int r2;

	if (!r->ns_end || r->spelling == KSC_SRC_SPELL_NONE)
		return 0;
	/* Only plain values are rewritten: no NUL bytes, and a Makefile flag on one line. */
	const char *raw = e->data + r->ns_offset;
	size_t rawlen = r->ns_end - r->ns_offset;
	if (memchr(raw, '\0', rawlen) || (make && memchr(raw, '\n', rawlen)))
		return add_note(e, r->line, "%s: the namespace is written in an unusual way (NUL bytes, or over several lines): check it for %s by hand",
				what, t->name);
	if (t->has[KSC_FEAT_STRING_NS] && r->spelling == KSC_SRC_SPELL_IDENT) {
		const struct ksc_src_define *df = make ? NULL : find_define(s, r->ns);
		if (df)
			return add_note(e, r->line, "%s: the namespace %s is a macro (#define at line %u): change its definition to a string literal by hand",
					what, r->ns, df->line);
		char *lit = c_string(r->ns), *text = NULL;
		if (!lit)
			return -ENOMEM;
		if (make) {
			/* -DDEFAULT_SYMBOL_NAMESPACE='"NS"', as the kernel's Makefiles spell it */
			if (asprintf(&text, "'%s'", lit) < 0)
				text = NULL;
			free(lit);
		} else {
			text = lit;
		}
		if (!text)
			return -ENOMEM;
		r2 = ksc_srcedit_replace(e, r->ns_offset, r->ns_end - r->ns_offset, text);
		free(text);
		return r2 < 0 ? r2 : 1;
	}
	if (!t->has[KSC_FEAT_STRING_NS] && r->spelling == KSC_SRC_SPELL_STRING) {
		if (!ksc_src_is_identifier(r->ns, strlen(r->ns)))
			return add_note(e, r->line, "%s: the namespace \"%s\" is no C identifier, which kernels before 6.13 need here",
					what, r->ns);
		r2 = ksc_srcedit_replace(e, r->ns_offset, r->ns_end - r->ns_offset,
					 r->ns);
		return r2 < 0 ? r2 : 1;
	}
	if (r->spelling == KSC_SRC_SPELL_OTHER)
		return add_note(e, r->line, "%s: the namespace is written '%s', neither an identifier nor a string literal: check it for %s by hand",
				what, r->ns, t->name);
	return 0;
}

KSC_EXPORT int ksc_srcedit_plan_migrate(struct ksc_srcedit *e, const char *kver)
{
	struct ksc_features t;
	struct scanned s;
	size_t before;
	int r;

	if (!e || !kver || ksc_features_init(&t, kver) < 0)
		return -EINVAL;
	before = e->n_edits;
	r = scan_edit(e, &s);
	for (size_t i = 0; r >= 0 && i < s.recs.n; i++) {
		const struct ksc_src_record *x = &s.recs.v[i];
		bool fm = x->kind == KSC_SRC_EXPORT && (streq(x->macro, "EXPORT_SYMBOL_FOR_MODULES") ||
							streq(x->macro, "EXPORT_SYMBOL_GPL_FOR_MODULES"));
		bool kvm = x->kind == KSC_SRC_EXPORT && strstartswith(x->macro, "EXPORT_SYMBOL_FOR_KVM");
		bool nsmacro = x->kind == KSC_SRC_EXPORT && strstartswith(x->macro, "EXPORT_SYMBOL_NS");
		int k = 0;

		if (fm) {
			if (!t.fm_macro) {
				k = add_note(e, x->line, "%s(%s): kernel %s has no module-restricted exports (6.16+; the 6.6.y and 6.12.y stable kernels have EXPORT_SYMBOL_GPL_FOR_MODULES)",
					     x->macro, x->symbol, t.name);
			} else if (!streq(x->macro, t.fm_macro)) {
				k = ksc_srcedit_replace(e, x->offset, strlen(x->macro),
							t.fm_macro);
			}
			if (k >= 0 && t.fm_macro && t.fm_backport)
				k = add_note(e, x->line, "%s(%s): on %s.y the macro exists (stable backport) but the loader knows no module: namespaces: %s is an ordinary namespace there (R7)",
					     t.fm_macro, x->symbol, t.name, x->ns);
		} else if (kvm && !t.has[KSC_FEAT_FOR_KVM]) {
			k = add_note(e, x->line, "%s(%s): not in kernel %s (EXPORT_SYMBOL_FOR_KVM came after 6.18)",
				     x->macro, x->symbol, t.name);
		} else if (nsmacro) {
			if (!t.has[KSC_FEAT_NAMESPACES])
				k = add_note(e, x->line, "%s(%s): kernel %s has no symbol namespaces (5.4+)",
					     x->macro, x->symbol, t.name);
			else
				k = respell(e, &s, x, &t, x->macro);
		} else if (x->kind == KSC_SRC_IMPORT_NS) {
			if (!t.has[KSC_FEAT_NAMESPACES])
				k = add_note(e, x->line, "MODULE_IMPORT_NS: kernel %s has no symbol namespaces (5.4+)",
					     t.name);
			else if (t.has[KSC_FEAT_MODNS] && ksc_namespace_is_module_restricted(x->ns))
				k = add_note(e, x->line, "MODULE_IMPORT_NS(%s): from 6.16 the loader refuses a module that imports a module: namespace (-EPERM, R11): remove it",
					     x->ns);
			else
				k = respell(e, &s, x, &t, "MODULE_IMPORT_NS");
		} else if (x->kind == KSC_SRC_DEFAULT_NS && x->ns_end) {
			if (x->after_include && x->macro[0] == '#')
				k = add_note(e, x->line, "#define DEFAULT_SYMBOL_NAMESPACE after an #include: linux/export.h has most likely been read already, so EXPORT_SYMBOL*() here get no namespace; define it before the first #include (or with ccflags-y)");
			if (k >= 0)
				k = respell(e, &s, x, &t, "DEFAULT_SYMBOL_NAMESPACE");
		}
		if (k < 0)
			r = k;
	}
	scanned_fini(&s);
	if (r < 0)
		return r;
	return (int)(e->n_edits - before);
}

/* The text of line `i` (0-based) of the content, without its newline. */
static void line_span(const char *d, size_t n, size_t off, size_t *s, size_t *e)
{
	size_t a = off, b = off;

	while (a > 0 && d[a - 1] != '\n')
		a--;
	while (b < n && d[b] != '\n')
		b++;
	*s = a;
	*e = b;
}

/*
 * Insert the import line `line` at `pos` (the start of a line, or the end of a file that
 * lacks its last newline) if that is a place in code: not inside a comment, a string,
 * or a directive, and not after a backslash continuation. Else a note. 1 added, 0 not.
 */
static int insert_import(struct ksc_srcedit *e, const struct scanned *s, size_t pos,
			 size_t indent_from, size_t indent_len, const char *line,
			 unsigned int note_line)
{
	enum ksc_src_lang lang = ksc_src_lang_of(e->path);
	bool at_eof = pos == e->size && e->size && e->data[e->size - 1] != '\n';
	enum ksc_src_state st;
	char *text;
	int r;

	if (lang == KSC_LANG_NONE)
		lang = KSC_LANG_C;
	st = ksc_src_state_at(e->data, e->size, lang, pos);
	bool ok = at_eof ? (st == KSC_SRC_ST_CODE || st == KSC_SRC_ST_LINE_COMMENT ||
			    st == KSC_SRC_ST_DIRECTIVE) && e->data[e->size - 1] != '\\'
			 : st == KSC_SRC_ST_CODE &&
			   (pos == 0 || (e->data[pos - 1] == '\n' &&
					 ksc_src_newline_ends_line(e->data, pos - 1)));
	/* nor inside the arguments of a macro call that spreads over lines */
	for (size_t i = 0; ok && i < s->recs.n; i++)
		if (s->recs.v[i].offset < pos && pos < s->recs.v[i].end)
			ok = false;
	if (!ok)
		return add_note(e, note_line, "no safe place for %s: the line it would go on is inside a comment, a string, a preprocessor line or a macro call; add it by hand",
				line);
	if (asprintf(&text, "%s%.*s%s%s", at_eof ? "\n" : "", (int)indent_len,
		     e->data + indent_from, line, at_eof ? "" : "\n") < 0)
		return -ENOMEM;
	r = ksc_srcedit_replace(e, pos, 0, text);
	free(text);
	return r < 0 ? r : 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The import lines to add, sorted, in want[] (*nwant of them, malloc'ed): the namespaces
 * of ns[] not imported yet, in the kernel's syntax; those that cannot be written become
 * notes. 0 or -errno.
 */
static int wanted_imports(struct ksc_srcedit *e, const struct scanned *s,
			  const struct ksc_features *t, const struct ksc_src_record *license,
			  const char *const *ns, size_t n, char **want, size_t *nwant)
{
	int r;

	for (size_t i = 0; i < n; i++) {
		bool have = false;
		for (size_t j = 0; j < s->recs.n && !have; j++)
			have = s->recs.v[j].kind == KSC_SRC_IMPORT_NS &&
			       streq(s->recs.v[j].ns, ns[i]);
		if (have)
			continue;
		if (!ns[i][0])
			continue;
		if (ksc_namespace_is_module_restricted(ns[i])) {
			r = add_note(e, license->line,
				     "not adding MODULE_IMPORT_NS(\"%s\"): a module: namespace is granted by the module's name, never by an import; from 6.16 the loader refuses any module that imports one (-EPERM, R11)",
				     ns[i]);
			if (r < 0)
				return r;
			continue;
		}
		char *line = NULL;
		if (t->has[KSC_FEAT_STRING_NS]) {
			char *lit = c_string(ns[i]);
			if (!lit || asprintf(&line, "MODULE_IMPORT_NS(%s);", lit) < 0)
				line = NULL;
			free(lit);
		} else if (ksc_src_is_identifier(ns[i], strlen(ns[i]))) {
			if (asprintf(&line, "MODULE_IMPORT_NS(%s);", ns[i]) < 0)
				line = NULL;
		} else {
			r = add_note(e, license->line,
				     "cannot import \"%s\" on %s: before 6.13 MODULE_IMPORT_NS takes a C identifier",
				     ns[i], t->name);
			if (r < 0)
				return r;
			continue;
		}
		if (!line)
			return -ENOMEM;
		bool dup = false;
		for (size_t j = 0; j < *nwant; j++)
			dup = dup || streq(want[j], line);
		if (dup) {
			free(line);
			continue;
		}
		want[(*nwant)++] = line;
	}
	qsort(want, *nwant, sizeof(*want), cmp_str);
	return 0;
}

/* How many blanks (spaces, tabs) start the line at ls, looking no further than end. */
static size_t indent_of(const char *data, size_t ls, size_t end)
{
	size_t n = 0;

	while (ls + n < end && (data[ls + n] == ' ' || data[ls + n] == '\t'))
		n++;
	return n;
}

/*
 * want[0..nwant) at `at`, one line each, indented as the line at ls (indent_len blanks).
 * The number of lines added, or -errno.
 */
static int insert_imports_at(struct ksc_srcedit *e, const struct scanned *s, size_t at,
			     size_t ls, size_t indent_len, char *const *want, size_t nwant,
			     unsigned int line)
{
	int added = 0;

	for (size_t w = 0; w < nwant; w++) {
		int r = insert_import(e, s, at, ls, indent_len, want[w], line);
		if (r < 0)
			return r;
		added += r;
	}
	return added;
}

/*
 * Into the block of import lines that starts at the first one, each before the first
 * existing line that sorts after it (scripts/nsdeps sorts them with LC_ALL=C sort -u), so
 * a sorted block stays sorted. The number of lines added, or -errno.
 */
static int insert_into_block(struct ksc_srcedit *e, const struct scanned *s,
			     const struct ksc_src_record *first_import, char *const *want,
			     size_t nwant)
{
	size_t ls, le;
	int r, added = 0;

	line_span(e->data, e->size, first_import->offset, &ls, &le);
	size_t indent_len = indent_of(e->data, ls, le);
	/* block lines: consecutive lines that hold an import record */
	size_t bs = ls, be = le, w = 0;
	for (;;) {
		/* insert wanted lines that sort before the line [bs, be) */
		while (w < nwant) {
			size_t tl = strlen(want[w]), cl = be - bs - indent_len;
			const char *cur = e->data + bs + indent_len;
			int c = memcmp(want[w], cur, tl < cl ? tl : cl);
			if (c > 0 || (c == 0 && tl >= cl))
				break;
			r = insert_import(e, s, bs, ls, indent_len, want[w], first_import->line);
			if (r < 0)
				return r;
			added += r;
			w++;
		}
		if (w == nwant || be >= e->size)
			break;
		/* the next line: still an import line? */
		size_t ns_ = be + 1, ne;
		line_span(e->data, e->size, ns_, &ns_, &ne);
		bool is_import = false;
		for (size_t j = 0; j < s->recs.n && !is_import; j++)
			is_import = s->recs.v[j].kind == KSC_SRC_IMPORT_NS &&
				    s->recs.v[j].offset >= ns_ &&
				    s->recs.v[j].offset < ne && ne > ns_;
		if (!is_import)
			break;
		bs = ns_;
		be = ne;
	}
	/* the rest after the block */
	r = insert_imports_at(e, s, be < e->size ? be + 1 : be, ls, indent_len, want + w,
			      nwant - w, first_import->line);
	return r < 0 ? r : added + r;
}

/* After the line that ends the MODULE_LICENSE(...); statement. Lines added, or -errno. */
static int insert_after_license(struct ksc_srcedit *e, const struct scanned *s,
				const struct ksc_src_record *license, char *const *want,
				size_t nwant)
{
	size_t p = license->end, ls, le;

	while (p < e->size && (e->data[p] == ' ' || e->data[p] == '\t'))
		p++;
	if (p < e->size && e->data[p] == ';')
		p++;
	line_span(e->data, e->size, license->offset, &ls, &(size_t){ 0 });
	line_span(e->data, e->size, p > 0 ? p - 1 : 0, &(size_t){ 0 }, &le);
	return insert_imports_at(e, s, le < e->size ? le + 1 : le, ls,
				 indent_of(e->data, ls, e->size), want, nwant, license->line);
}

KSC_EXPORT int ksc_srcedit_plan_imports(struct ksc_srcedit *e, const char *kver,
					const char *const *ns, size_t n)
{
	struct ksc_features t;
	struct scanned s;
	char **want = NULL;
	size_t nwant = 0;
	int r;

	if (!e || !kver || (!ns && n) || ksc_features_init(&t, kver) < 0)
		return -EINVAL;
	r = scan_edit(e, &s);
	if (r < 0)
		goto out;
	const struct ksc_src_record *license = NULL, *first_import = NULL;
	for (size_t i = 0; i < s.recs.n; i++) {
		const struct ksc_src_record *x = &s.recs.v[i];
		if (x->kind == KSC_SRC_LICENSE && !license)
			license = x;
		if (x->kind == KSC_SRC_IMPORT_NS && !first_import)
			first_import = x;
	}
	if (!license) {
		r = -ENOENT;
		goto out;
	}
	if (!t.has[KSC_FEAT_NAMESPACES]) {
		r = n ? add_note(e, license->line, "kernel %s has no symbol namespaces (5.4+): nothing to import",
				 t.name) : 0;
		goto out;
	}
	want = calloc(n ? n : 1, sizeof(*want));
	if (!want) {
		r = -ENOMEM;
		goto out;
	}
	r = wanted_imports(e, &s, &t, license, ns, n, want, &nwant);
	if (r < 0 || !nwant)
		goto out;
	r = first_import ? insert_into_block(e, &s, first_import, want, nwant)
			 : insert_after_license(e, &s, license, want, nwant);
out:
	for (size_t i = 0; i < nwant; i++)
		free(want[i]);
	free(want);
	scanned_fini(&s);
	return r;
}
