// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The rows of the headers' Module.symvers, kept beside the tree's index: parsing the 7.2
 * kernel's (about 30,000 lines) costs a check of one module against an installed tree a
 * sixth of its time on every run. The file holds the rows as the reader gave them, keyed
 * by the Module.symvers' path, size, inode, modification and change times; any
 * difference, a file that does not add up (its size, checksum, every string's bounds),
 * and Module.symvers is read again and the file rewritten. A Module.symvers that logged
 * anything when read (a bad line, a mixed layout) is not kept: its messages are said on
 * every run, as without the cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernel/kernel.h"
#include "modset/modset.h"
#include "util/array.h"
#include "util/fileio.h"

#define SVCACHE_MAGIC "KSCSYMV\n"
#define SVCACHE_VERSION 1u
#define SVCACHE_MAX (256u << 20)

struct svcache_hdr {
	char magic[8];
	uint32_t version, n_rows;
	uint64_t size, ino;
	int64_t mtime_ns, ctime_ns;
	uint32_t path_len, str_size;
	uint64_t checksum; /* of the header (this field 0), the path, the rows, the strings */
};

struct svcache_row {
	uint32_t symbol, module, ns, crc, gpl_only; /* strings: offsets into the strings */
};

char *ksc_kernel_symvers_cache_of(const char *index)
{
	size_t n = index ? strlen(index) : 0;
	char *out;

	if (n <= 4 || strcmp(index + n - 4, ".idx") != 0 ||
	    asprintf(&out, "%.*s.symvers", (int)(n - 4), index) < 0)
		return NULL;
	return out;
}

static void key_of(struct svcache_hdr *h, const char *path, const struct stat *st)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, SVCACHE_MAGIC, 8);
	h->version = SVCACHE_VERSION;
	h->size = (uint64_t)st->st_size;
	h->ino = (uint64_t)st->st_ino;
	h->mtime_ns = st_mtime_ns(st);
	h->ctime_ns = st_ctime_ns(st);
	h->path_len = (uint32_t)strlen(path);
}

static uint64_t checksum(const struct svcache_hdr *h, const unsigned char *body, size_t n)
{
	struct svcache_hdr c = *h;

	c.checksum = 0;
	return ksc_hash64(body, n, ksc_hash64(&c, sizeof(c), 0x73796d76));
}

/*
 * The string at `off`, or NULL outside the strings. The strings end in a NUL (checked
 * once, see ksc_svcache_load()), so every one that starts inside them ends inside them:
 * no search for its end, 30,000 rows of three strings each on 7.2.
 */
static const char *str_at(const char *strs, uint32_t size, uint32_t off)
{
	return off < size ? strs + off : NULL;
}

int ksc_svcache_load(const char *cache, const char *path, const struct stat *sst,
		     struct ksc_svrows *out)
{
	struct svcache_hdr want, h;
	struct stat st;
	size_t size = 0;
	char *buf = NULL;
	/* a FIFO put in the cache's place is not opened for reading: it cannot hang the check */
	int fd = ksc_open_read(AT_FDCWD, cache, 0, &st);

	*out = (struct ksc_svrows){ 0 };
	if (fd < 0)
		return 1;
	key_of(&want, path, sst);
	int r = ksc_read_fd(fd, &st, SVCACHE_MAX, &buf, &size);
	close(fd);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || size < sizeof(h))
		goto stale;
	memcpy(&h, buf, sizeof(h));
	want.n_rows = h.n_rows;
	want.str_size = h.str_size;
	want.checksum = h.checksum;
	const unsigned char *body = (const unsigned char *)buf + sizeof(h);
	uint64_t rows_size = (uint64_t)h.n_rows * sizeof(struct svcache_row);
	if (memcmp(&h, &want, sizeof(h)) != 0 ||
	    (uint64_t)sizeof(h) + h.path_len + rows_size + h.str_size != (uint64_t)size ||
	    memcmp(body, path, h.path_len) != 0 ||
	    checksum(&h, body, size - sizeof(h)) != h.checksum)
		goto stale;
	const unsigned char *rows = body + h.path_len;
	const char *strs = (const char *)rows + rows_size;
	if (h.str_size && strs[h.str_size - 1] != '\0')
		goto stale; /* the last string unended: str_at() relies on it */
	out->v = calloc(h.n_rows ? h.n_rows : 1, sizeof(*out->v));
	if (!out->v) {
		free(buf);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < h.n_rows; i++) {
		struct svcache_row w;
		memcpy(&w, rows + (size_t)i * sizeof(w), sizeof(w));
		struct ksc_symvers_entry *e = &out->v[i];
		*e = (struct ksc_symvers_entry){
			.symbol = str_at(strs, h.str_size, w.symbol),
			.module = str_at(strs, h.str_size, w.module),
			.ns = str_at(strs, h.str_size, w.ns),
			.gpl_only = w.gpl_only == 1,
			.crc = w.crc,
		};
		if (!e->symbol || !*e->symbol || !e->module || !*e->module || !e->ns ||
		    w.gpl_only > 1) {
			free(out->v);
			out->v = NULL;
			goto stale;
		}
	}
	out->buf = buf;
	out->n = h.n_rows;
	return 0;
stale:
	free(buf);
	return 1;
}

void ksc_svrows_fini(struct ksc_svrows *rows)
{
	free(rows->v);
	free(rows->buf);
	*rows = (struct ksc_svrows){ 0 };
}

struct svstrings {
	char *v;
	size_t n, cap;
};

static int put_str(struct svstrings *s, const char *str, uint32_t *off)
{
	size_t l = strlen(str) + 1;

	if (s->n + l > SVCACHE_MAX || array_reserve(s->v, s->cap, s->n + l, 1 << 16) < 0)
		return -ENOMEM;
	*off = (uint32_t)s->n;
	memcpy(s->v + s->n, str, l);
	s->n += l;
	return 0;
}

/* Write it next to its final name, then rename: a reader sees the old or the new. */
void ksc_svcache_save(const char *cache, const char *path, const struct stat *sst,
		      const struct ksc_symvers *sv)
{
	struct svcache_hdr h;
	struct timespec now;
	struct svstrings s = { 0 };
	size_t n = ksc_symvers_get_count(sv);
	struct svcache_row *rows = NULL;
	unsigned char *body = NULL;
	char *tmp = NULL;
	struct stat cst;
	int fd = -1;
	bool ok = false;

	clock_gettime(CLOCK_REALTIME, &now);
	/* changed within its clock's tick, it could change again with the same key; only a
	 * regular file (or a symbolic link, itself replaced) is replaced; no folder (a first
	 * run, before the index's), nothing to build */
	if (ksc_ctime_racy(sst, (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec) ||
	    n > UINT32_MAX / sizeof(*rows) ||
	    (lstat(cache, &cst) == 0 && !S_ISREG(cst.st_mode) && !S_ISLNK(cst.st_mode)) ||
	    asprintf(&tmp, "%s.%ld.tmp", cache, (long)getpid()) < 0)
		return;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	rows = fd < 0 ? NULL : calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct ksc_symvers_entry *e = ksc_symvers_get(sv, i);
		if (put_str(&s, e->symbol, &rows[i].symbol) < 0 ||
		    put_str(&s, e->module, &rows[i].module) < 0 ||
		    put_str(&s, e->ns, &rows[i].ns) < 0)
			goto out;
		rows[i].crc = e->crc;
		rows[i].gpl_only = e->gpl_only;
	}
	key_of(&h, path, sst);
	h.n_rows = (uint32_t)n;
	h.str_size = (uint32_t)s.n;
	size_t body_size = h.path_len + n * sizeof(*rows) + s.n;
	body = malloc(body_size ? body_size : 1);
	if (!body)
		goto out;
	memcpy(body, path, h.path_len);
	memcpy(body + h.path_len, rows, n * sizeof(*rows));
	if (s.n)
		memcpy(body + h.path_len + n * sizeof(*rows), s.v, s.n);
	h.checksum = checksum(&h, body, body_size);
	ok = write(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
	     write(fd, body, body_size) == (ssize_t)body_size;
out:
	if (fd >= 0) {
		ok = close(fd) == 0 && ok;
		if (!ok || rename(tmp, cache) < 0)
			unlink(tmp);
	}
	free(tmp);
	free(body);
	free(rows);
	free(s.v);
}

/* A message of the read: said on, and counted when it would be said at info or above. */
struct svlog {
	struct ksc_ctx *ctx;
	unsigned int n;
};

static void svlog_fn(void *data, int priority, const char *msg)
{
	struct svlog *l = data;

	if (priority <= KSC_LOG_INFO)
		l->n++;
	ksc_log(l->ctx, priority, "%s", msg);
}

int ksc_svcache_read_symvers(struct ksc_ctx *ctx, const char *path, struct ksc_symvers **sv,
			     bool *clean)
{
	struct svlog l = { .ctx = ctx };
	struct ksc_ctx *q = ksc_new();

	*clean = false;
	if (!q)
		return -ENOMEM;
	ksc_set_log_priority(q, KSC_LOG_DEBUG);
	ksc_set_log_fn(q, svlog_fn, &l);
	int r = ksc_symvers_new_from_path(q, path, sv);
	*clean = r >= 0 && l.n == 0 && !ksc_symvers_get_error_count(*sv);
	ksc_set_log_fn(q, NULL, NULL); /* the table keeps q: l is gone after this */
	ksc_unref(q);
	return r;
}

/* ---- rows read ahead ---------------------------------------------------------------- */

struct ksc_svahead {
	char *cache, *path;
	struct stat st;       /* the file's when its rows were read */
	struct ksc_svrows rows;
};

void ksc_svahead_free(struct ksc_svahead *a)
{
	if (!a)
		return;
	ksc_svrows_fini(&a->rows);
	free(a->cache);
	free(a->path);
	free(a);
}

int ksc_svahead_read(const char *cache, const char *path, struct ksc_svahead **out)
{
	struct ksc_svahead *a = calloc(1, sizeof(*a));

	*out = NULL;
	if (!a)
		return -ENOMEM;
	int r = stat(path, &a->st) == 0 && S_ISREG(a->st.st_mode)
			? ksc_svcache_load(cache, path, &a->st, &a->rows)
			: 1;
	if (r == 0 && (!(a->cache = strdup(cache)) || !(a->path = strdup(path))))
		r = -ENOMEM;
	if (r != 0) {
		ksc_svahead_free(a);
		return r < 0 ? r : 0;
	}
	*out = a;
	return 0;
}

int ksc_svahead_take(struct ksc_svahead **ap, const char *cache, const char *path,
		     const struct stat *st, struct ksc_svrows *rows)
{
	struct ksc_svahead *a = *ap;
	bool same = a && strcmp(a->cache, cache) == 0 && strcmp(a->path, path) == 0 &&
		    st_same_file(&a->st, st);

	*ap = NULL;
	if (same) {
		*rows = a->rows;
		a->rows = (struct ksc_svrows){ 0 };
	}
	ksc_svahead_free(a);
	return same ? 0 : 1;
}
