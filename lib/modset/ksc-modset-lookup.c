// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The index's lookup table: one module's facts record found by its name (or its path)
 * without reading, or checking, anything else of the index. kmod answers modprobe from
 * its .bin tries the same way (libkmod-index.c: the file mapped, a trie walked from the
 * root to one value); ours is a sorted array searched by halves, which is as fast for a
 * few thousand names and simpler to check.
 *
 * The section is the file's last bytes (modset-private.h: its layout), position
 * independent, 8-byte aligned: it could be mapped. It is read instead (pread): a mapping
 * faults with SIGBUS when the file is cut short under it, and a page not yet touched may
 * change after the rest was checked; kmod maps files only root can write, ours lives in
 * a user's cache. Opening reads the header and the section (about 130 bytes a module)
 * and checks the section's checksum; a lookup reads one record and checks it as the
 * tree does (its checksum, every bound, and that it is the record the table names).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modset/modset-private.h"
#include "util/fileio.h"
#include "util/hash.h"

struct kidx_map {
	int fd;                   /* the index; -1 when parsed from memory */
	unsigned char *mem;       /* the bytes parsed from memory (a copy) */
	uint64_t file_size, lk_off;
	unsigned char *lk;        /* the lookup section, checksum checked */
	uint32_t n, strings_size;
	const struct kidx_lkent *ents;
	const uint32_t *by_path;
	const char *strs;
	const char *moddir, *release;
	struct krec **recs;       /* records fetched, by entry (NULL until) */
};

int kidx_pread(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t k = pread(fd, p, len, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EINVAL; /* shorter than the header said */
		p += k;
		len -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Writing                                                                            */

struct lk_item {
	const char *name, *path;
	uint32_t module;
};

static int by_name(const void *a, const void *b)
{
	const struct lk_item *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->path, y->path);
}

static size_t lk_ents_off(void)
{
	return sizeof(struct kidx_lkhead);
}

static size_t lk_paths_off(size_t n)
{
	return lk_ents_off() + n * sizeof(struct kidx_lkent);
}

static size_t lk_strings_off(size_t n)
{
	return (lk_paths_off(n) + n * sizeof(uint32_t) + 7) & ~(size_t)7;
}

/* Entry numbers sorted by their path, by insertion: sort the pairs instead. */
struct lk_pathpos {
	const char *path;
	uint32_t pos;
};

static int by_path(const void *a, const void *b)
{
	const struct lk_pathpos *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* The entries in name order and the path order, into p (the section, sized). */
static void lk_fill(unsigned char *p, const struct lk_item *it, size_t n,
		    const struct kidx_write *w, const struct kidx_dirent *dir,
		    const uint32_t *name_off, const uint32_t *path_off,
		    struct lk_pathpos *pp)
{
	for (size_t k = 0; k < n; k++) {
		const struct krec *r = w->mods[it[k].module].rec;
		const struct kidx_dirent *d = &dir[it[k].module];
		struct kidx_lkent e = {
			.name = name_off[k], .relpath = path_off[k],
			.rec_size = d->rec_size, .module = it[k].module,
			.rec_off = d->rec_off, .rec_hash = d->rec_hash,
			.file_size = r->file_size, .ino = r->ino,
			.mtime_ns = r->mtime_ns, .ctime_ns = r->ctime_ns,
			.content_hash = r->content_hash,
		};
		memcpy(p + lk_ents_off() + k * sizeof(e), &e, sizeof(e));
		pp[k] = (struct lk_pathpos){ it[k].path, (uint32_t)k };
	}
	qsort(pp, n, sizeof(*pp), by_path);
	for (size_t k = 0; k < n; k++)
		memcpy(p + lk_paths_off(n) + k * 4, &pp[k].pos, 4);
}

int kidx_lookup_build(const struct kidx_write *w, const struct kidx_dirent *dir,
		      unsigned char **out, size_t *size)
{
	size_t n = w->n_mods;
	struct lk_item *it = calloc(n ? n : 1, sizeof(*it));
	uint32_t *offs = calloc(n ? 2 * n : 1, sizeof(*offs));
	struct lk_pathpos *pp = calloc(n ? n : 1, sizeof(*pp));
	struct kidx_lkhead head = { .n = (uint32_t)n };
	unsigned char *p = NULL;
	struct rbuf s;
	int ret = -ENOMEM;

	rbuf_init(&s);
	if (!it || !offs || !pp)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct krec *r = w->mods[i].rec;
		it[i] = (struct lk_item){ w->mods[i].modname, krec_str(r, r->relpath),
					  (uint32_t)i };
	}
	qsort(it, n, sizeof(*it), by_name);
	head.moddir = rbuf_cstr(&s, w->moddir);
	head.release = rbuf_cstr(&s, w->release);
	for (size_t k = 0; k < n; k++) {
		offs[k] = rbuf_cstr(&s, it[k].name);
		offs[n + k] = rbuf_cstr(&s, it[k].path);
	}
	if (s.oom)
		goto out;
	head.strings_size = (uint32_t)s.sn;
	size_t total = (lk_strings_off(n) + s.sn + 7) & ~(size_t)7;
	p = calloc(1, total);
	if (!p)
		goto out;
	memcpy(p, &head, sizeof(head));
	lk_fill(p, it, n, w, dir, offs, offs + n, pp);
	memcpy(p + lk_strings_off(n), s.s, s.sn);
	*out = p;
	*size = total;
	p = NULL;
	ret = 0;
out:
	free(p);
	free(pp);
	free(offs);
	free(it);
	rbuf_fini(&s);
	return ret;
}

void kidx_lookup_fix(unsigned char *p, size_t size, const struct kidx_hdr *h)
{
	struct kidx_lkhead head;

	if (h->lk_off > size || h->lk_size > size - h->lk_off || h->lk_size < sizeof(head))
		return;
	memcpy(&head, p + h->lk_off, sizeof(head));
	for (uint64_t k = 0; k < head.n; k++) {
		struct kidx_lkent e;
		uint64_t at = h->lk_off + lk_ents_off() + k * sizeof(e);
		if (size < sizeof(e) || at > size - sizeof(e) ||
		    at + sizeof(e) > h->lk_off + h->lk_size)
			break;
		memcpy(&e, p + at, sizeof(e));
		if (e.rec_off <= size && e.rec_size <= size - e.rec_off)
			e.rec_hash = ksc_hash64(p + e.rec_off, e.rec_size, KREC_HASH_SEED);
		memcpy(p + at, &e, sizeof(e));
	}
}

/* ---------------------------------------------------------------------------------- */
/* Reading                                                                            */

void ksc_kidx_unmap(struct kidx_map *m)
{
	if (!m)
		return;
	if (m->fd >= 0)
		close(m->fd);
	for (size_t i = 0; m->recs && i < m->n; i++)
		free(m->recs[i]);
	free(m->recs);
	free(m->lk);
	free(m->mem);
	free(m);
}

/* len bytes at off of the index (the file, or the bytes parsed from memory). */
static int map_read(const struct kidx_map *m, void *buf, size_t len, uint64_t off)
{
	if (off > m->file_size || len > m->file_size - off)
		return -EINVAL;
	if (m->fd >= 0)
		return kidx_pread(m->fd, buf, len, off);
	memcpy(buf, m->mem + off, len);
	return 0;
}

static const char *lk_str(const struct kidx_map *m, uint32_t off)
{
	return off < m->strings_size ? m->strs + off : NULL;
}

/* The header, then the section: read, its checksum and its shape checked. */
static int map_load(struct kidx_map *m)
{
	struct kidx_hdr h;
	struct kidx_lkhead head;

	if (m->file_size < sizeof(h) || map_read(m, &h, sizeof(h), 0) < 0)
		return -EINVAL;
	if (memcmp(h.magic, KIDX_MAGIC, 8) != 0 || h.version != KIDX_VERSION ||
	    h.byte_order != KIDX_BYTE_ORDER || h.file_size != m->file_size ||
	    h.n_modules > KIDX_MAX_MODULES || h.lk_off % 8 || h.lk_off < sizeof(h) ||
	    h.lk_off > m->file_size || h.lk_size != m->file_size - h.lk_off ||
	    h.lk_size < sizeof(head))
		return -EINVAL;
	m->lk_off = h.lk_off;
	m->lk = malloc((size_t)h.lk_size);
	if (!m->lk)
		return -ENOMEM;
	int r = map_read(m, m->lk, (size_t)h.lk_size, h.lk_off);
	if (r < 0)
		return r;
	if (ksc_hash64(m->lk, (size_t)h.lk_size, KIDX_VERSION) != h.lk_checksum)
		return -EINVAL;
	memcpy(&head, m->lk, sizeof(head));
	size_t n = head.n;
	if (n != h.n_modules || head.strings_size == 0 ||
	    lk_strings_off(n) > h.lk_size ||
	    head.strings_size > h.lk_size - lk_strings_off(n))
		return -EINVAL;
	m->n = head.n;
	m->strings_size = head.strings_size;
	m->ents = (const void *)(m->lk + lk_ents_off());
	m->by_path = (const void *)(m->lk + lk_paths_off(n));
	m->strs = (const char *)m->lk + lk_strings_off(n);
	if (m->strs[0] != '\0' || m->strs[m->strings_size - 1] != '\0')
		return -EINVAL;
	m->moddir = lk_str(m, head.moddir);
	m->release = lk_str(m, head.release);
	if (!m->moddir || !m->release)
		return -EINVAL;
	m->recs = calloc(n ? n : 1, sizeof(*m->recs));
	return m->recs ? 0 : -ENOMEM;
}

static struct kidx_map *map_new(void)
{
	struct kidx_map *m = calloc(1, sizeof(*m));

	if (m)
		m->fd = -1;
	return m;
}

int ksc_kidx_map(const char *path, struct kidx_map **out)
{
	struct kidx_map *m = map_new();
	struct stat st;
	int r;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (m->fd < 0) {
		r = -errno;
		goto fail;
	}
	if (fstat(m->fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	r = -EINVAL;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > ((uint64_t)1 << 32))
		goto fail;
	m->file_size = (uint64_t)st.st_size;
	r = map_load(m);
	if (r < 0)
		goto fail;
	*out = m;
	return 0;
fail:
	ksc_kidx_unmap(m);
	return r;
}

int ksc_kidx_map_mem(const void *data, size_t size, struct kidx_map **out)
{
	struct kidx_map *m = map_new();
	int r;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->mem = malloc(size ? size : 1);
	if (!m->mem) {
		ksc_kidx_unmap(m);
		return -ENOMEM;
	}
	memcpy(m->mem, data, size);
	m->file_size = size;
	r = map_load(m);
	if (r < 0) {
		ksc_kidx_unmap(m);
		return r;
	}
	*out = m;
	return 0;
}

const char *ksc_kidx_map_moddir(const struct kidx_map *m)
{
	return m->moddir;
}

const char *ksc_kidx_map_release(const struct kidx_map *m)
{
	return m->release;
}

size_t ksc_kidx_map_count(const struct kidx_map *m)
{
	return m->n;
}

const char *ksc_kidx_map_name(const struct kidx_map *m, size_t i)
{
	return i < m->n ? lk_str(m, m->ents[i].name) : NULL;
}

/* strcmp() of a kmod name (stored) and a name asked for, in which '-' is '_'. */
static int name_cmp(const char *stored, const char *asked)
{
	for (;; stored++, asked++) {
		unsigned char a = (unsigned char)*stored;
		unsigned char b = (unsigned char)(*asked == '-' ? '_' : *asked);
		if (a != b || !a)
			return a - b;
	}
}

/* Entry k's record: read, checked, kept. 0, -EINVAL (corrupt), -ENOMEM, -errno. */
static int map_fetch(struct kidx_map *m, size_t k, const struct krec **out)
{
	const struct kidx_lkent *e = &m->ents[k];
	const char *rel = lk_str(m, e->relpath);
	struct krec *r;

	if (m->recs[k]) {
		*out = m->recs[k];
		return 0;
	}
	if (!rel || e->rec_off % 8 || e->rec_off > m->lk_off ||
	    e->rec_size > m->lk_off - e->rec_off || e->rec_size < sizeof(struct krec))
		return -EINVAL;
	r = malloc(e->rec_size);
	if (!r)
		return -ENOMEM;
	int ret = map_read(m, r, e->rec_size, e->rec_off);
	if (ret == 0 && (ksc_hash64(r, e->rec_size, KREC_HASH_SEED) != e->rec_hash ||
			 ksc_krec_validate(r, e->rec_size) < 0 ||
			 strcmp(krec_str(r, r->relpath), rel) != 0 ||
			 r->file_size != e->file_size || r->ino != e->ino ||
			 r->mtime_ns != e->mtime_ns || r->ctime_ns != e->ctime_ns ||
			 r->content_hash != e->content_hash))
		ret = -EINVAL;
	if (ret < 0) {
		free(r);
		return ret;
	}
	m->recs[k] = r;
	*out = r;
	return 0;
}

static int hit_of(struct kidx_map *m, size_t k, struct kidx_hit *hit)
{
	const struct krec *r;
	int ret = map_fetch(m, k, &r);

	if (ret < 0)
		return ret;
	hit->name = lk_str(m, m->ents[k].name);
	hit->relpath = lk_str(m, m->ents[k].relpath);
	if (!hit->name)
		return -EINVAL;
	hit->module = m->ents[k].module;
	hit->rec = r;
	ksc_krec_sum(r, &hit->key);
	return 0;
}

int ksc_kidx_find(struct kidx_map *m, const char *name, struct kidx_hit *hit)
{
	size_t lo = 0, hi = m->n;

	memset(hit, 0, sizeof(*hit));
	/* the first entry whose name is not below `name` */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *s = lk_str(m, m->ents[mid].name);
		if (!s)
			return -EINVAL;
		if (name_cmp(s, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->n)
		return -ENOENT;
	const char *s = lk_str(m, m->ents[lo].name);
	if (!s)
		return -EINVAL;
	if (name_cmp(s, name) != 0)
		return -ENOENT;
	return hit_of(m, lo, hit);
}

int ksc_kidx_find_path(struct kidx_map *m, const char *relpath, struct kidx_hit *hit)
{
	size_t lo = 0, hi = m->n;

	memset(hit, 0, sizeof(*hit));
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t k = m->by_path[mid];
		const char *s = k < m->n ? lk_str(m, m->ents[k].relpath) : NULL;
		if (!s)
			return -EINVAL;
		int c = strcmp(s, relpath);
		if (c == 0)
			return hit_of(m, k, hit);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

bool ksc_kidx_key_matches(const struct krec_sum *key, const struct stat *st)
{
	return key->mtime_ns != KREC_RACY && key->content_hash == 0 && S_ISREG(st->st_mode) &&
	       (uint64_t)st->st_size == key->file_size && (uint64_t)st->st_ino == key->ino &&
	       st_mtime_ns(st) == key->mtime_ns && st_ctime_ns(st) == key->ctime_ns;
}
