// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tree index file: what was read from each module (a "facts record") and what was
 * worked out from the whole tree (a "derived record", both in ksc-modset-record.c), kept in a
 * cache file so that the next run re-reads only the modules that changed. Nothing read
 * from the file is used before it has been validated: the header checksum, each record's
 * checksum (in the directory), then every range, enum and string offset
 * (ksc_krec_validate, ksc_kder_validate).
 *
 * The file's layout: modset-private.h. Its lookup table (a module's record found by name
 * without reading the rest): ksc-modset-lookup.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "modset/modset-private.h"

/* ---------------------------------------------------------------------------------- */
/* The index file                                                                     */

void ksc_kidx_free(struct kidx *idx)
{
	if (idx->fd >= 0)
		close(idx->fd);
	if (idx->fetched)
		for (size_t i = 0; i < idx->n_mods; i++)
			free(idx->fetched[i]);
	free(idx->fetched);
	free(idx->cold);
	free(idx->buf);
	free(idx->mods);
	free(idx->outs);
	free(idx->dirs);
	memset(idx, 0, sizeof(*idx));
	idx->fd = -1;
}

static const char *hdr_str(const struct kidx_hdr *h, const char *base, uint32_t off)
{
	if (off == KREC_NONE || off >= h->strings_size)
		return NULL;
	return base + h->strings_off + off;
}

static bool sum_eq(const struct krec_sum *a, const struct krec_sum *b)
{
	return a->file_size == b->file_size && a->ino == b->ino &&
	       a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns &&
	       a->content_hash == b->content_hash &&
	       a->facts_hash == b->facts_hash &&
	       a->kexp_hash == b->kexp_hash && a->kmod_hash == b->kmod_hash &&
	       a->prov_hash == b->prov_hash && a->flags == b->flags &&
	       a->kind == b->kind && a->n_msgs == b->n_msgs && a->err == b->err;
}

/* A record's bytes, checked: checksum, bounds, and what the directory says of it. */
static int check_rec(const struct kidx_module *m, const void *p)
{
	const struct krec *r = p;
	struct krec_sum s;

	if (ksc_hash64(p, m->rec_size, KREC_HASH_SEED) != m->rec_hash ||
	    ksc_krec_validate(r, m->rec_size) < 0)
		return -EINVAL;
	ksc_krec_sum(r, &s);
	if (!sum_eq(&s, &m->sum) || strcmp(krec_str(r, r->relpath), m->relpath) != 0)
		return -EINVAL;
	return 0;
}

/* dir is KREC_NONE, or the folder in which relpath is (not below it). */
static bool dir_holds(const struct kidx *idx, uint32_t dir, const char *relpath)
{
	if (dir == KREC_NONE)
		return true;
	if (dir >= idx->n_dirs)
		return false;
	const char *d = idx->dirs[dir].relpath;
	size_t dl = strlen(d);
	if (dl && (strncmp(relpath, d, dl) != 0 || relpath[dl] != '/'))
		return false;
	return strchr(relpath + (dl ? dl + 1 : 0), '/') == NULL;
}

/*
 * The header and where its tables are: every count, offset and range checked, the header
 * strings too, but not the checksum (parse_rest()). Until then the index is only "shaped":
 * ksc_kidx_raw_dir() and ksc_kidx_raw_module() may read it, as garbage at worst.
 */
static int parse_shape(struct kidx *idx, uint64_t file_size)
{
	const unsigned char *p = idx->buf;
	size_t size = idx->size; /* the hot part, or the whole file */
	const struct kidx_hdr *h = idx->buf;

	if (size == 0)
		return -ENOENT;
	if (size < sizeof(*h) || memcmp(h->magic, KIDX_MAGIC, 8) != 0 ||
	    h->version != KIDX_VERSION || h->byte_order != KIDX_BYTE_ORDER ||
	    h->file_size != file_size)
		return -EINVAL;
	if (h->n_modules > KIDX_MAX_MODULES || h->n_outputs > KIDX_MAX_OUTPUTS ||
	    h->n_dirs > KIDX_MAX_DIRS || (h->flags & ~KIDX_F_DERIVED) ||
	    h->cold_off > size || h->cold_off % 8)
		return -EINVAL;
	/* the lookup section: last, after the records (checked when it is read) */
	if (h->lk_off % 8 || h->lk_off < h->cold_off || h->lk_off > file_size ||
	    h->lk_size != file_size - h->lk_off || h->lk_size < sizeof(struct kidx_lkhead))
		return -EINVAL;
	uint64_t hot = h->cold_off;
	/*
	 * Header strings, directory and outputs: in the hot part, in this order, aligned.
	 */
	uint64_t dir_bytes = (uint64_t)h->n_modules * sizeof(struct kidx_dirent);
	uint64_t out_bytes = (uint64_t)h->n_outputs * sizeof(struct kidx_out);
	uint64_t dirs_bytes = (uint64_t)h->n_dirs * sizeof(struct kidx_fdir);
	if (h->strings_off != sizeof(*h) || h->strings_size == 0 ||
	    h->strings_size > hot - sizeof(*h) || h->dir_off % 8 ||
	    h->dir_off < h->strings_off + h->strings_size || h->dir_off > hot ||
	    dir_bytes > hot - h->dir_off || h->out_off != h->dir_off + dir_bytes ||
	    out_bytes > hot - h->out_off || h->dirs_off != h->out_off + out_bytes ||
	    dirs_bytes > hot - h->dirs_off)
		return -EINVAL;
	const char *strs = (const char *)p + h->strings_off;
	if (strs[h->strings_size - 1] != '\0')
		return -EINVAL;
	idx->moddir = hdr_str(h, (const char *)p, h->moddir);
	idx->release = hdr_str(h, (const char *)p, h->release);
	idx->out_dir =
		h->out_dir == KREC_NONE ? NULL : hdr_str(h, (const char *)p, h->out_dir);
	if (!idx->moddir || !idx->release || (h->out_dir != KREC_NONE && !idx->out_dir))
		return -EINVAL;
	KIDX_COPY_FINGERPRINTS(idx, h);
	idx->derived = h->flags & KIDX_F_DERIVED;
	idx->file_size = file_size;
	idx->cold_off = hot;
	idx->cold_end = h->lk_off;
	idx->shaped = true;
	return 0;
}

/* The checksum, then every table and derived record (checked). */
static int parse_rest(struct kidx *idx)
{
	const unsigned char *p = idx->buf;
	const struct kidx_hdr *h = idx->buf;
	uint64_t hot = h->cold_off, cold_end = idx->cold_end;
	uint64_t meta_end = h->dirs_off + (uint64_t)h->n_dirs * sizeof(struct kidx_fdir);

	if (!idx->shaped)
		return -EINVAL;
	if (ksc_hash64(p + KIDX_CHECKED_FROM, (size_t)hot - KIDX_CHECKED_FROM,
		       KIDX_VERSION) != h->checksum)
		return -EINVAL;

	idx->n_outs = h->n_outputs;
	idx->outs = calloc(idx->n_outs ? idx->n_outs : 1, sizeof(*idx->outs));
	if (!idx->outs)
		return -ENOMEM;
	for (size_t i = 0; i < idx->n_outs; i++) {
		struct kidx_out o;
		memcpy(&o, p + h->out_off + i * sizeof(o), sizeof(o));
		idx->outs[i].name = hdr_str(h, (const char *)p, o.name);
		if (!idx->outs[i].name)
			return -EINVAL;
		idx->outs[i].size = o.size;
		idx->outs[i].ino = o.ino;
		idx->outs[i].content_hash = o.content_hash;
		idx->outs[i].mtime_ns = o.mtime_ns;
	}

	idx->n_dirs = h->n_dirs;
	idx->dirs = calloc(idx->n_dirs ? idx->n_dirs : 1, sizeof(*idx->dirs));
	if (!idx->dirs)
		return -ENOMEM;
	for (size_t i = 0; i < idx->n_dirs; i++) {
		struct kidx_fdir d;
		memcpy(&d, p + h->dirs_off + i * sizeof(d), sizeof(d));
		idx->dirs[i].relpath = hdr_str(h, (const char *)p, d.relpath);
		if (!idx->dirs[i].relpath)
			return -EINVAL;
		idx->dirs[i].ino = d.ino;
		idx->dirs[i].mtime_ns = d.mtime_ns;
	}

	idx->n_mods = h->n_modules;
	idx->mods = calloc(idx->n_mods ? idx->n_mods : 1, sizeof(*idx->mods));
	idx->fetched = calloc(idx->n_mods ? idx->n_mods : 1, sizeof(*idx->fetched));
	if (!idx->mods || !idx->fetched)
		return -ENOMEM;
	for (size_t i = 0; i < idx->n_mods; i++) {
		struct kidx_dirent de;
		struct kidx_module *m = &idx->mods[i];
		memcpy(&de, p + h->dir_off + i * sizeof(de), sizeof(de));
		/* The record: in the cold part (checked when fetched). */
		if (de.rec_off % 8 || de.rec_off < hot || de.rec_off > cold_end ||
		    de.rec_size > cold_end - de.rec_off ||
		    de.rec_size < sizeof(struct krec) || (de.sum.flags & ~KREC_F_ALL) ||
		    de.sum.kind > KSC_KIND_VMLINUX)
			return -EINVAL;
		m->relpath = hdr_str(h, (const char *)p, de.relpath);
		m->modname = hdr_str(h, (const char *)p, de.modname);
		if (!m->relpath || !*m->relpath || !m->modname || !*m->modname ||
		    !dir_holds(idx, de.dir, m->relpath))
			return -EINVAL;
		if (de.replaced != KREC_NONE) {
			m->replaced = hdr_str(h, (const char *)p, de.replaced);
			if (!m->replaced || !*m->replaced)
				return -EINVAL;
		}
		m->dir = de.dir;
		m->sum = de.sum;
		m->rec_off = de.rec_off;
		m->rec_size = de.rec_size;
		m->rec_hash = de.rec_hash;
		if (de.der_off == 0) {
			if (de.der_size)
				return -EINVAL;
			continue;
		}
		/* The derived record: in the hot part, checked now. */
		if (de.der_off % 8 || de.der_off < meta_end || de.der_off > hot ||
		    de.der_size > hot - de.der_off)
			return -EINVAL;
		/* its bytes are covered by the hot part's checksum, checked above; what they
		 * say is the tree's to check (ksc_kder_validate()) */
		if (de.der_size % 8)
			return -EINVAL;
		m->der = (const void *)(p + de.der_off);
		m->der_size = de.der_size;
	}
	idx->finished = true;
	return 0;
}

const struct kder *ksc_kidx_der(const struct kidx *idx, size_t i, size_t *size)
{
	if (i >= idx->n_mods || !idx->mods[i].der)
		return NULL;
	if (size)
		*size = idx->mods[i].der_size;
	return idx->mods[i].der;
}

bool ksc_kidx_same_dirs(const struct kidx_dir *a, size_t na, const struct kidx_dir *b,
			size_t nb)
{
	bool same = na == nb;

	for (size_t i = 0; same && i < na; i++)
		same = a[i].ino == b[i].ino && a[i].mtime_ns == b[i].mtime_ns &&
		       strcmp(a[i].relpath, b[i].relpath) == 0;
	return same;
}

const char *ksc_kidx_raw_dir(const struct kidx *idx, size_t i, uint64_t *ino,
			     int64_t *mtime_ns)
{
	const struct kidx_hdr *h = idx->buf;
	struct kidx_fdir d;

	if (!idx->shaped || i >= h->n_dirs)
		return NULL;
	memcpy(&d, (const unsigned char *)idx->buf + h->dirs_off + i * sizeof(d), sizeof(d));
	*ino = d.ino;
	*mtime_ns = d.mtime_ns;
	return hdr_str(h, idx->buf, d.relpath);
}

const char *ksc_kidx_raw_module(const struct kidx *idx, size_t i, struct krec_sum *sum,
				uint32_t *dir)
{
	const struct kidx_hdr *h = idx->buf;
	struct kidx_dirent de;

	if (!idx->shaped || i >= h->n_modules)
		return NULL;
	memcpy(&de, (const unsigned char *)idx->buf + h->dir_off + i * sizeof(de), sizeof(de));
	*sum = de.sum;
	*dir = de.dir;
	return hdr_str(h, idx->buf, de.relpath);
}

size_t ksc_kidx_raw_count(const struct kidx *idx, size_t *n_dirs)
{
	const struct kidx_hdr *h = idx->buf;

	*n_dirs = idx->shaped ? h->n_dirs : 0;
	return idx->shaped ? h->n_modules : 0;
}

int ksc_kidx_finish(struct kidx *idx)
{
	return idx->finished ? 0 : parse_rest(idx);
}

/* After an open step that returned r: the rest checked too; freed on failure. */
static int open_and_finish(int r, struct kidx *idx)
{
	if (r == 0 && (r = ksc_kidx_finish(idx)) < 0)
		ksc_kidx_free(idx);
	return r;
}

int ksc_kidx_parse_open(const void *data, size_t size, struct kidx *out)
{
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (size == 0)
		return -ENOENT;
	out->buf = malloc(size);
	if (!out->buf)
		return -ENOMEM;
	memcpy(out->buf, data, size);
	out->size = size;
	int r = parse_shape(out, size);
	if (r < 0)
		ksc_kidx_free(out);
	return r;
}

int ksc_kidx_parse(const void *data, size_t size, struct kidx *out)
{
	return open_and_finish(ksc_kidx_parse_open(data, size, out), out);
}

int ksc_kidx_open(const char *path, struct kidx *out)
{
	struct stat st;
	struct kidx_hdr h;
	int fd, r;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(h) ||
	    (uint64_t)st.st_size > ((uint64_t)1 << 32)) {
		close(fd);
		return -EINVAL;
	}
	/* The header says where the hot part ends; only that is read now. */
	r = kidx_pread(fd, &h, sizeof(h), 0);
	if (r < 0 || h.cold_off < sizeof(h) || h.cold_off > (uint64_t)st.st_size) {
		close(fd);
		return r < 0 && r != -EINVAL ? r : -EINVAL;
	}
	/*
	 * Read, not mapped: a mapping faults (SIGBUS) when the file is cut short under it,
	 * as a cache cleaner or `: > FILE` may do during a run, and its pages not yet
	 * touched could change after they were checked. A copy is checked once and stays.
	 */
	out->buf = malloc((size_t)h.cold_off);
	if (!out->buf) {
		close(fd);
		return -ENOMEM;
	}
	r = kidx_pread(fd, out->buf, (size_t)h.cold_off, 0);
	if (r < 0) {
		free(out->buf);
		out->buf = NULL;
		close(fd);
		return r;
	}
	out->size = (size_t)h.cold_off;
	out->fd = fd;
	r = parse_shape(out, (uint64_t)st.st_size);
	if (r == -ENOENT)
		r = -EINVAL;
	if (r < 0)
		ksc_kidx_free(out);
	return r;
}

int ksc_kidx_read(const char *path, struct kidx *out)
{
	return open_and_finish(ksc_kidx_open(path, out), out);
}

int ksc_kidx_fetch(struct kidx *idx, size_t i, const struct krec **out)
{
	struct kidx_module *m;
	int r;

	*out = NULL;
	if (i >= idx->n_mods)
		return -EINVAL;
	m = &idx->mods[i];
	if (m->rec) {
		*out = m->rec;
		return 0;
	}
	if (idx->fd < 0) { /* parsed from memory: the record is in the buffer */
		const unsigned char *p = (const unsigned char *)idx->buf + m->rec_off;
		if ((r = check_rec(m, p)) < 0)
			return r;
		m->rec = (const void *)p;
	} else {
		void *p = malloc(m->rec_size);
		if (!p)
			return -ENOMEM;
		r = kidx_pread(idx->fd, p, m->rec_size, m->rec_off);
		if (r == 0)
			r = check_rec(m, p);
		if (r < 0) {
			free(p);
			return r;
		}
		idx->fetched[i] = p;
		m->rec = p;
	}
	*out = m->rec;
	return 0;
}

int ksc_kidx_fetch_all(struct kidx *idx)
{
	const struct krec *r;
	int ret = 0;

	if (idx->fd >= 0 && !idx->cold && idx->cold_end > idx->cold_off) {
		size_t n = (size_t)(idx->cold_end - idx->cold_off);
		idx->cold = malloc(n);
		if (!idx->cold)
			return -ENOMEM;
		ret = kidx_pread(idx->fd, idx->cold, n, idx->cold_off);
		if (ret < 0)
			return ret;
	}
	for (size_t i = 0; i < idx->n_mods && ret == 0; i++) {
		struct kidx_module *m = &idx->mods[i];
		if (m->rec)
			continue;
		if (idx->cold) {
			const unsigned char *p = (const unsigned char *)idx->cold +
						 (m->rec_off - idx->cold_off);
			ret = check_rec(m, p);
			if (ret == 0)
				m->rec = (const void *)p;
		} else {
			ret = ksc_kidx_fetch(idx, i, &r);
		}
	}
	return ret;
}

void ksc_kidx_fix_checksums(void *data, size_t size)
{
	struct kidx_hdr h;
	unsigned char *p = data;

	if (size < sizeof(h))
		return;
	memcpy(&h, p, sizeof(h));
	for (uint64_t i = 0; i < h.n_modules && i < KIDX_MAX_MODULES; i++) {
		struct kidx_dirent de;
		uint64_t at = h.dir_off + i * sizeof(de);
		if (h.dir_off > size || at > size - sizeof(de))
			break;
		memcpy(&de, p + at, sizeof(de));
		if (de.rec_off <= size && de.rec_size <= size - de.rec_off) {
			de.rec_hash = ksc_hash64(p + de.rec_off, de.rec_size, KREC_HASH_SEED);
			if (de.rec_size >= sizeof(struct krec) && de.rec_off % 8 == 0 &&
			    (uintptr_t)(p + de.rec_off) % 8 == 0)
				ksc_krec_sum((const void *)(p + de.rec_off), &de.sum);
		}
		memcpy(p + at, &de, sizeof(de));
	}
	kidx_lookup_fix(p, size, &h);
	if (h.lk_off <= size && h.lk_size <= size - h.lk_off) {
		h.lk_checksum = ksc_hash64(p + h.lk_off, (size_t)h.lk_size, KIDX_VERSION);
		memcpy(p + offsetof(struct kidx_hdr, lk_checksum), &h.lk_checksum,
		       sizeof(h.lk_checksum));
	}
	if (h.cold_off <= size && h.cold_off >= KIDX_CHECKED_FROM) {
		h.checksum =
			ksc_hash64(p + KIDX_CHECKED_FROM,
				   (size_t)h.cold_off - KIDX_CHECKED_FROM, KIDX_VERSION);
		memcpy(p + offsetof(struct kidx_hdr, checksum), &h.checksum,
		       sizeof(h.checksum));
	}
}

static int mkdir_p(const char *dir)
{
	char buf[PATH_MAX];

	if ((size_t)snprintf(buf, sizeof(buf), "%s", dir) >= sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

/* What the index's header points to, built in memory before it is laid out. */
struct kidx_tables {
	struct rbuf s; /* header strings */
	struct kidx_dirent *dir;
	struct kidx_out *outs;
	struct kidx_fdir *fdirs;
};

static void tables_fini(struct kidx_tables *t)
{
	rbuf_fini(&t->s);
	free(t->fdirs);
	free(t->outs);
	free(t->dir);
}

/* The header's fields and strings, the directory, the outputs and the folders. */
static int fill_tables(struct kidx_hdr *h, struct kidx_tables *t, const struct kidx_write *w)
{
	memcpy(h->magic, KIDX_MAGIC, 8);
	h->version = KIDX_VERSION;
	h->byte_order = KIDX_BYTE_ORDER;
	h->n_modules = (uint32_t)w->n_mods;
	h->flags = w->derived ? KIDX_F_DERIVED : 0;
	KIDX_COPY_FINGERPRINTS(h, w);
	h->moddir = rbuf_cstr(&t->s, w->moddir);
	h->release = rbuf_cstr(&t->s, w->release);
	h->out_dir = w->out_dir ? rbuf_cstr(&t->s, w->out_dir) : KREC_NONE;
	h->n_outputs = (uint32_t)w->n_outs;
	h->n_dirs = (uint32_t)w->n_dirs;
	t->outs = calloc(w->n_outs ? w->n_outs : 1, sizeof(*t->outs));
	t->fdirs = calloc(w->n_dirs ? w->n_dirs : 1, sizeof(*t->fdirs));
	t->dir = calloc(w->n_mods ? w->n_mods : 1, sizeof(*t->dir));
	if (!t->outs || !t->dir || !t->fdirs || w->n_mods > KIDX_MAX_MODULES ||
	    w->n_outs > KIDX_MAX_OUTPUTS || w->n_dirs > KIDX_MAX_DIRS)
		return -ENOMEM;
	for (size_t i = 0; i < w->n_dirs; i++) {
		t->fdirs[i].relpath = rbuf_cstr(&t->s, w->dirs[i].relpath);
		t->fdirs[i].ino = w->dirs[i].ino;
		t->fdirs[i].mtime_ns = w->dirs[i].mtime_ns;
	}
	for (size_t i = 0; i < w->n_mods; i++) {
		const struct krec *r = w->mods[i].rec;
		struct kidx_dirent *d = &t->dir[i];
		d->relpath = rbuf_cstr(&t->s, krec_str(r, r->relpath));
		d->modname = rbuf_cstr(&t->s, w->mods[i].modname);
		d->dir = w->mods[i].dir < w->n_dirs ? w->mods[i].dir : KREC_NONE;
		d->replaced = w->mods[i].replaced ? rbuf_cstr(&t->s, w->mods[i].replaced)
						  : KREC_NONE;
	}
	for (size_t i = 0; i < w->n_outs; i++) {
		t->outs[i].name = rbuf_cstr(&t->s, w->outs[i].name);
		t->outs[i].size = w->outs[i].size;
		t->outs[i].ino = w->outs[i].ino;
		t->outs[i].content_hash = w->outs[i].content_hash;
		t->outs[i].mtime_ns = w->outs[i].mtime_ns;
	}
	return t->s.oom ? -ENOMEM : 0;
}

/*
 * Where everything goes: the header's strings and tables (their end returned), then the
 * hot derived records, then the cold facts records (each summed in the directory).
 */
static size_t lay_out(struct kidx_hdr *h, struct kidx_tables *t, const struct kidx_write *w)
{
	h->strings_off = sizeof(*h);
	h->strings_size = (uint32_t)t->s.sn;
	h->dir_off = (h->strings_off + t->s.sn + 7) & ~(uint64_t)7;
	h->out_off = h->dir_off + w->n_mods * sizeof(*t->dir);
	h->dirs_off = h->out_off + w->n_outs * sizeof(*t->outs);
	size_t meta = (size_t)(h->dirs_off + w->n_dirs * sizeof(*t->fdirs));
	uint64_t at = (meta + 7) & ~(uint64_t)7;
	for (size_t i = 0; i < w->n_mods; i++) {
		if (w->mods[i].der) {
			t->dir[i].der_off = at;
			t->dir[i].der_size = w->mods[i].der_size;
			at += w->mods[i].der_size;
		}
	}
	h->cold_off = at;
	for (size_t i = 0; i < w->n_mods; i++) {
		const struct krec *r = w->mods[i].rec;
		t->dir[i].rec_off = at;
		t->dir[i].rec_size = r->size;
		t->dir[i].rec_hash = w->mods[i].rec_hash ? w->mods[i].rec_hash
							 : ksc_hash64(r, r->size, KREC_HASH_SEED);
		ksc_krec_sum(r, &t->dir[i].sum);
		at += r->size;
	}
	h->file_size = at;
	return meta;
}

/*
 * The hot part from KIDX_CHECKED_FROM to cold_off (the header's rest, its strings and
 * tables, padding, the derived records) in one malloc'd block, and its checksum in the
 * header; m holds the header and its tables (meta bytes).
 */
static unsigned char *hot_part(struct kidx_hdr *h, unsigned char *m, size_t meta,
			       const struct kidx_write *w)
{
	size_t pad_meta = (size_t)(((meta + 7) & ~(size_t)7) - meta);
	size_t hot_len = (size_t)h->cold_off - KIDX_CHECKED_FROM;
	unsigned char *hot = malloc(hot_len);
	size_t pos;

	if (!hot)
		return NULL;
	memcpy(hot, m + KIDX_CHECKED_FROM, meta - KIDX_CHECKED_FROM);
	pos = meta - KIDX_CHECKED_FROM;
	memset(hot + pos, 0, pad_meta);
	pos += pad_meta;
	for (size_t i = 0; i < w->n_mods; i++) {
		if (w->mods[i].der) {
			memcpy(hot + pos, w->mods[i].der, w->mods[i].der_size);
			pos += w->mods[i].der_size;
		}
	}
	h->checksum = ksc_hash64(hot, hot_len, KIDX_VERSION);
	memcpy(m, h, sizeof(*h));
	return hot;
}

/*
 * The folder of `path` (created), then a temporary file next to the index, renamed over
 * it. No fsync: the index is a cache whose every byte is checked when read; after a
 * crash it is at worst rebuilt. The rename keeps readers from ever seeing half of it.
 */
static int write_index_file(const char *path, const struct iovec *iov, size_t niov,
			    bool parallel)
{
	char dirbuf[PATH_MAX];
	const char *name = path;

	if ((size_t)snprintf(dirbuf, sizeof(dirbuf), "%s", path) >= sizeof(dirbuf))
		return -ENAMETOOLONG;
	char *slash = strrchr(dirbuf, '/');
	if (slash) {
		name = path + (slash - dirbuf) + 1;
		if (slash == dirbuf)
			slash[1] = '\0';
		else
			*slash = '\0';
		int ret = mkdir_p(dirbuf);
		if (ret < 0)
			return ret;
	} else {
		strcpy(dirbuf, ".");
	}
	return ksc_write_atomic_iov_par(dirbuf, name, iov, niov, false, parallel);
}

int ksc_kidx_write(const char *path, const struct kidx_write *w)
{
	struct kidx_hdr h;
	struct kidx_tables t = { .dir = NULL };
	unsigned char *m = NULL, *hot = NULL, *lk = NULL;
	struct iovec *iov = NULL;
	int ret;

	memset(&h, 0, sizeof(h));
	rbuf_init(&t.s);
	ret = fill_tables(&h, &t, w);
	if (ret < 0)
		goto out;
	ret = -ENOMEM;
	iov = malloc((w->n_mods * 2 + 4) * sizeof(*iov));
	size_t meta = lay_out(&h, &t, w);
	m = iov ? calloc(1, meta) : NULL;
	if (!m)
		goto out;
	memcpy(m + h.strings_off, t.s.s, t.s.sn);
	memcpy(m + h.dir_off, t.dir, w->n_mods * sizeof(*t.dir));
	memcpy(m + h.out_off, t.outs, w->n_outs * sizeof(*t.outs));
	memcpy(m + h.dirs_off, t.fdirs, w->n_dirs * sizeof(*t.fdirs));
	size_t lk_size;
	if (kidx_lookup_build(w, t.dir, &lk, &lk_size) < 0)
		goto out;
	h.lk_off = h.file_size;
	h.lk_size = lk_size;
	h.lk_checksum = ksc_hash64(lk, lk_size, KIDX_VERSION);
	h.file_size += lk_size;
	memcpy(m, &h, sizeof(h));
	hot = hot_part(&h, m, meta, w);
	if (!hot)
		goto out;
	size_t niov = 0;
	iov[niov++] = (struct iovec){ m, KIDX_CHECKED_FROM };
	iov[niov++] = (struct iovec){ hot, (size_t)h.cold_off - KIDX_CHECKED_FROM };
	for (size_t i = 0; i < w->n_mods; i++)
		iov[niov++] = (struct iovec){ (void *)w->mods[i].rec, w->mods[i].rec->size };
	iov[niov++] = (struct iovec){ lk, lk_size };
	ret = write_index_file(path, iov, niov, w->parallel);
out:
	free(lk);
	free(hot);
	free(m);
	tables_fini(&t);
	free(iov);
	return ret;
}
