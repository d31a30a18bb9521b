// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The module set of one release's folder (struct ksc_modset): the files depmod keeps,
 * one per name (depmod.d: ksc-modset-depmodcfg.c; depmod's search: ksc-modset-search.c),
 * and each one's facts by name: the index's record when the index read that very file
 * (its stat key), else the file read now (ksc-modset-read.c), the records read kept for
 * the next index.
 *
 * kmod's libkmod decides the same way between its .bin indexes and the files: the caller
 * asks for a module, the set answers from wherever it is cheapest and still true.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modset/modset.h"
#include "modset/modset-statq.h"
#include "util/array.h"
#include "util/hash.h"
#include "util/walk.h"
#include "util/workpool.h"

struct mentry {
	char *path;            /* the module folder as the caller named it, '/', relpath */
	char *name;            /* kmod's name (a key of by_name) */
	char *replaced;        /* the file of its name it won over, relative, or NULL */
	uint64_t size, ino;    /* the file as the walk met it */
	uint64_t dev;
	int64_t mtime_ns, ctime_ns;
	const struct kidx_module *old; /* the index's entry for this path, or NULL */
	const struct krec *rec;        /* its facts, once known */
	struct krec *rec_own;          /* read this run (for the next index) */
	bool current;                  /* old is this file (checked once: checked) */
	bool checked;
	bool from_map;                 /* rec is the index's, found by its lookup table */
	bool link;                     /* reached through a symbolic link: opened in root */
};

struct ksc_modset {
	char *moddir, *moddir_abs, *release, *index_path;
	char *root;                    /* links are resolved inside it (NULL: the host's) */
	size_t base;                   /* strlen(moddir) + 1 */
	struct ksc_depmod_cfg *cfg;
	struct mentry *e;
	size_t n, cap;
	struct hash by_name;
	unsigned int walk_errors;
	unsigned int unreadable; /* files this process may not read (may_read()) */
	struct ksc_walkres *walk;      /* ksc_modset_walk()'s, or NULL */
	struct kidx idx;
	bool have_idx, foreign_idx;
	struct kidx_map *map;          /* few: the index's lookup table, records by path */
	bool few, full_tried;          /* full_tried: the whole directory attached, or tried */
	int64_t start_ns;
	bool dirty;                    /* a record was read: the index is worth writing */
	struct ksc_sigscratch sig;
};

/* `p` made absolute (the current folder before a relative one), no trailing '/'. */
static char *absolute(const char *p)
{
	char cwd[PATH_MAX], *out;

	if (p[0] == '/')
		out = strdup(p);
	else if (!getcwd(cwd, sizeof(cwd)) || asprintf(&out, "%s/%s", cwd, p) < 0)
		out = NULL;
	for (size_t n = out ? strlen(out) : 0; n > 1 && out[n - 1] == '/';)
		out[--n] = '\0';
	return out;
}

/* One file depmod keeps, in path order. */
/*
 * May this process read the file the walk stat'ed as `st`? Read bits for owner, group
 * and others (Debian's 0644) answer without a call whoever runs; anything else is asked
 * of the kernel (faccessat() AT_EACCESS: ACLs, capabilities). A file reached through a
 * link is not asked by its path on the host: it counts as unreadable unless its bits say.
 * A walk that stat'ed nothing (the tree's: st_ino 0) is not asked.
 */
static bool may_read(const char *path, const struct stat *st, bool link)
{
	const mode_t all = S_IRUSR | S_IRGRP | S_IROTH;

	if (!st->st_ino || (st->st_mode & all) == all)
		return true;
	return !link && faccessat(AT_FDCWD, path, R_OK, AT_EACCESS) == 0;
}

/* A file the search keeps: its strings taken, not copied. */
static int collect(struct ksc_found *f, void *data)
{
	struct ksc_modset *ms = data;
	const struct stat *st = f->st;

	if (!may_read(f->path, st, f->link))
		ms->unreadable++;
	if (array_reserve(ms->e, ms->cap, ms->n + 1, 256) < 0)
		return -ENOMEM;
	struct mentry *e = &ms->e[ms->n];
	*e = (struct mentry){ .path = f->path, .name = f->name, .replaced = f->replaced,
			      .size = (uint64_t)st->st_size, .ino = (uint64_t)st->st_ino,
			      .dev = (uint64_t)st->st_dev,
			      .mtime_ns = st_mtime_ns(st), .ctime_ns = st_ctime_ns(st),
			      .link = f->link };
	f->path = f->name = f->replaced = NULL;
	ms->n++;
	return hash_add(&ms->by_name, e->name, (void *)(uintptr_t)ms->n, 1) < 0 ? -ENOMEM : 0;
}

/*
 * The index, when it is this folder's: its entries attached to the walk's files by path.
 * Absent, corrupt or another tree's: not used (the tree says why when it opens it).
 */
static int attach_index(struct ksc_modset *ms)
{
	struct hash h;
	int r = ksc_kidx_read(ms->index_path, &ms->idx);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0;
	if (strcmp(ms->idx.moddir, ms->moddir_abs) != 0 ||
	    strcmp(ms->idx.release, ms->release) != 0) {
		ms->foreign_idx = true;
		ksc_kidx_free(&ms->idx);
		return 0;
	}
	ms->have_idx = true;
	hash_init(&h);
	for (size_t i = 0; i < ms->idx.n_mods; i++)
		if (hash_add(&h, ms->idx.mods[i].relpath, &ms->idx.mods[i], 1) < 0) {
			hash_fini(&h);
			return -ENOMEM;
		}
	for (size_t i = 0; i < ms->n; i++)
		ms->e[i].old = hash_find(&h, ms->e[i].path + ms->base);
	hash_fini(&h);
	return 0;
}

/*
 * For a few modules: the index's lookup table only, each record found by path when it is
 * asked for (ksc_modset_record()); the whole directory is read only if every record is
 * wanted (attach_full()). Absent, corrupt or another tree's: as attach_index().
 */
/* Is the index of `map` another folder's (its moddir or release not these)? */
static bool foreign_map(const struct kidx_map *map, const char *moddir_abs,
			const char *release)
{
	return strcmp(ksc_kidx_map_moddir(map), moddir_abs) != 0 ||
	       strcmp(ksc_kidx_map_release(map), release) != 0;
}

/* The lookup table `map` (or NULL and the error `r` of reading it) for the set. */
static int adopt_map(struct ksc_modset *ms, struct kidx_map *map, int r)
{
	if (r == -ENOMEM)
		return r;
	if (r < 0 || !map) {
		/* absent: none to read whole either; else its directory may still stand (the
		 * records, or a tree's index, are not lost when it is written again) */
		ms->map = NULL;
		ms->full_tried = r == -ENOENT;
		return 0;
	}
	ms->map = map;
	if (foreign_map(map, ms->moddir_abs, ms->release)) {
		ms->foreign_idx = true;
		ms->full_tried = true;
		ksc_kidx_unmap(ms->map);
		ms->map = NULL;
	}
	return 0;
}

static int attach_map(struct ksc_modset *ms)
{
	struct kidx_map *map = NULL;
	int r = ksc_kidx_map(ms->index_path, &map);

	return adopt_map(ms, r < 0 ? NULL : map, r);
}

/* The index's whole directory, once, when only its lookup table was read. */
static int attach_full(struct ksc_modset *ms)
{
	if (ms->full_tried)
		return 0;
	ms->full_tried = true;
	int r = attach_index(ms);
	/* what the lookups found stays (the map lives until the set is freed) */
	for (size_t i = 0; i < ms->n; i++)
		if (!ms->e[i].rec)
			ms->e[i].checked = false;
	return r;
}

int ksc_modset_open(struct ksc_ctx *ctx, const struct ksc_modset_where *w,
		    struct ksc_modset **out)
{
	struct ksc_modset *ms = calloc(1, sizeof(*ms));
	struct timespec rt;
	int r;

	*out = NULL;
	if (!ms)
		return -ENOMEM;
	hash_init(&ms->by_name);
	clock_gettime(CLOCK_REALTIME, &rt);
	ms->start_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec;
	ms->moddir = strdup(w->moddir);
	ms->moddir_abs = absolute(w->moddir);
	ms->release = strdup(w->release);
	ms->index_path = w->index ? strdup(w->index) : NULL;
	ms->root = w->root ? strdup(w->root) : NULL;
	if (!ms->moddir || !ms->moddir_abs || !ms->release || (w->index && !ms->index_path) ||
	    (w->root && !ms->root)) {
		r = -ENOMEM;
		goto err;
	}
	ms->base = strlen(ms->moddir);
	if (!ms->base || ms->moddir[ms->base - 1] != '/')
		ms->base++; /* the walk's paths are moddir, '/' unless it ends in one, relpath */
	r = ksc_depmod_cfg_load(ctx, w->root, w->release, &ms->cfg);
	if (r >= 0 && !w->no_walk)
		r = ksc_depmod_modules_search_helped(ctx, ms->cfg, ms->root, ms->moddir, collect,
						     ms, &ms->walk_errors, w->door);
	ms->few = w->few;
	ms->full_tried = !w->few;
	if (r >= 0 && ms->index_path)
		r = w->few ? (w->defer_map ? 0 : attach_map(ms)) : attach_index(ms);
	if (r < 0)
		goto err;
	*out = ms;
	return 0;
err:
	ksc_modset_free(ms);
	return r;
}

/* ---- the walk in a thread of its own ---------------------------------------------- */

struct ksc_modset_job {
	struct ksc_ctx *ctx;   /* the caller's: the held messages are said into it */
	struct ksc_ctx *q;     /* the walk's: its messages held in msgs */
	struct ksc_msgbuf msgs;
	struct ksc_modset_where w;
	char *root, *release, *moddir, *index;
	struct ksc_modset *ms;
	pthread_t thread;
	bool running;          /* a thread to join */
	bool waited;
	int r;
	struct kidx_map *map;  /* given (ksc_modset_job_give_map()), for the set */
	int map_err;
	bool map_given;
	struct ksc_statq_door door; /* ksc_modset_job_wait() helps the walk through it */
};

static void *job_run(void *data)
{
	struct ksc_modset_job *j = data;

	j->r = ksc_modset_open(j->q, &j->w, &j->ms);
	ksc_statq_door_close(&j->door); /* (if the search did not) */
	return NULL;
}

/* A copy of s (NULL stays NULL); false when out of memory. */
static bool dup_or_null(const char *s, char **out)
{
	*out = s ? strdup(s) : NULL;
	return !s || *out;
}

int ksc_modset_open_start(struct ksc_ctx *ctx, const struct ksc_modset_where *w,
			  struct ksc_modset_job **out)
{
	struct ksc_modset_job *j = calloc(1, sizeof(*j));

	*out = NULL;
	if (!j)
		return -ENOMEM;
	j->ctx = ksc_ref(ctx);
	j->w = *w;
	ksc_statq_door_init(&j->door);
	j->w.door = &j->door;
	if (!(j->q = ksc_new()) || !dup_or_null(w->root, &j->root) ||
	    !dup_or_null(w->release, &j->release) || !dup_or_null(w->moddir, &j->moddir) ||
	    !dup_or_null(w->index, &j->index)) {
		ksc_modset_job_free(j);
		return -ENOMEM;
	}
	j->w.root = j->root;
	j->w.release = j->release;
	j->w.moddir = j->moddir;
	j->w.index = j->index;
	ksc_set_log_priority(j->q, ksc_get_log_priority(ctx));
	ksc_set_log_fn(j->q, ksc_msgbuf_log, &j->msgs);
	j->running = pthread_create(&j->thread, NULL, job_run, j) == 0;
	if (!j->running)
		job_run(j);
	*out = j;
	return 0;
}

const char *ksc_modset_job_index_path(const struct ksc_modset_job *j)
{
	return j->index;
}

void ksc_modset_job_give_map(struct ksc_modset_job *j, struct kidx_map *map, int err)
{
	ksc_kidx_unmap(j->map);
	j->map = map;
	j->map_err = err;
	j->map_given = true;
}

struct ksc_modset *ksc_modset_job_wait(struct ksc_modset_job *j, int *err)
{
	if (!j->waited) {
		j->waited = true;
		if (j->running) {
			ksc_statq_door_help(&j->door); /* the walk's stats, while it lists */
			pthread_join(j->thread, NULL);
		}
		j->running = false;
		ksc_msgbuf_replay(&j->msgs, j->ctx);
		if (j->msgs.oom && j->r >= 0)
			j->r = -ENOMEM;
		ksc_msgbuf_clear(&j->msgs);
		if (j->r >= 0 && j->ms && j->ms->index_path && j->w.defer_map) {
			j->r = adopt_map(j->ms, j->map_given ? j->map : NULL,
					 j->map_given ? j->map_err : -ENOENT);
			j->map = NULL; /* the set's, or unmapped by it */
		}
	}
	*err = j->r < 0 ? j->r : (j->ms ? 0 : -EINVAL);
	return *err < 0 ? NULL : j->ms;
}

void ksc_modset_job_free(struct ksc_modset_job *j)
{
	if (!j)
		return;
	if (j->running)
		pthread_join(j->thread, NULL);
	ksc_modset_free(j->ms);
	ksc_kidx_unmap(j->map);
	ksc_msgbuf_fini(&j->msgs);
	ksc_statq_door_fini(&j->door);
	ksc_unref(j->q);
	ksc_unref(j->ctx);
	free(j->root);
	free(j->release);
	free(j->moddir);
	free(j->index);
	free(j);
}

void ksc_modset_free(struct ksc_modset *ms)
{
	if (!ms)
		return;
	for (size_t i = 0; i < ms->n; i++) {
		free(ms->e[i].path);
		free(ms->e[i].name);
		free(ms->e[i].replaced);
		free(ms->e[i].rec_own);
	}
	free(ms->e);
	hash_fini(&ms->by_name);
	if (ms->have_idx)
		ksc_kidx_free(&ms->idx);
	ksc_kidx_unmap(ms->map);
	ksc_sigscratch_fini(&ms->sig);
	ksc_depmod_cfg_free(ms->cfg);
	ksc_walkres_free(ms->walk);
	free(ms->moddir);
	free(ms->moddir_abs);
	free(ms->release);
	free(ms->index_path);
	free(ms->root);
	free(ms);
}

int ksc_modset_add(struct ksc_modset *ms, const char *relpath, const char *replaced,
		   const struct krec *rec)
{
	char name[PATH_MAX];
	size_t nl;
	struct stat st = { 0 };
	struct ksc_found f = { .st = &st };

	if (asprintf(&f.path, "%.*s/%s", (int)(ms->base - 1), ms->moddir, relpath) < 0)
		return -ENOMEM;
	ksc_kmod_modname(f.path, name, sizeof(name), &nl);
	f.name = strdup(name);
	f.replaced = replaced ? strdup(replaced) : NULL;
	int r = f.name && (!replaced || f.replaced) ? collect(&f, ms) : -ENOMEM;
	free(f.path);
	free(f.name);
	free(f.replaced);
	if (r < 0)
		return r;
	ms->e[ms->n - 1].rec = rec;
	ms->e[ms->n - 1].checked = true;
	return 0;
}

size_t ksc_modset_count(const struct ksc_modset *ms)
{
	return ms->n;
}

const char *ksc_modset_path(const struct ksc_modset *ms, size_t i)
{
	return ms->e[i].path;
}

const char *ksc_modset_relpath(const struct ksc_modset *ms, size_t i)
{
	return ms->e[i].path + ms->base;
}

const char *ksc_modset_name(const struct ksc_modset *ms, size_t i)
{
	return ms->e[i].name;
}

const char *ksc_modset_replaced(const struct ksc_modset *ms, size_t i)
{
	return ms->e[i].replaced;
}

int64_t ksc_modset_mtime(const struct ksc_modset *ms, size_t i)
{
	return ms->e[i].mtime_ns;
}

bool ksc_modset_find(const struct ksc_modset *ms, const char *name, size_t *i)
{
	uintptr_t k = (uintptr_t)hash_find(&ms->by_name, name);

	if (k)
		*i = k - 1;
	return k != 0;
}

const struct ksc_depmod_cfg *ksc_modset_cfg(const struct ksc_modset *ms)
{
	return ms->cfg;
}

unsigned int ksc_modset_walk_errors(const struct ksc_modset *ms)
{
	return ms->walk_errors;
}

unsigned int ksc_modset_unreadable(const struct ksc_modset *ms)
{
	return ms->unreadable;
}

int ksc_modset_walk(struct ksc_ctx *ctx, struct ksc_modset *ms)
{
	if (ms->walk)
		return -EALREADY;
	int r = ksc_depmod_search(ctx, ms->cfg, ms->root, ms->moddir, ms->start_ns, collect, ms,
				  &ms->walk);
	ms->walk_errors = ms->walk ? (unsigned int)ksc_walkres_problem_count(ms->walk) : 0;
	return r;
}

const struct ksc_walkres *ksc_modset_walk_result(const struct ksc_modset *ms)
{
	return ms->walk;
}

const char *ksc_modset_moddir(const struct ksc_modset *ms)
{
	return ms->moddir;
}

const char *ksc_modset_index_path(const struct ksc_modset *ms)
{
	return ms->index_path;
}

/* ---- facts: the index's record or the file's ------------------------------------- */

/* Open e's file: through a link, inside the root, as the walk found it. fd or -1. */
static int open_entry(const struct ksc_modset *ms, const struct mentry *e)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;

	if (e->link) {
		struct walk_opts o = { .root = ms->root };
		int fd = walk_open(&o, e->path, flags);
		errno = fd < 0 ? -fd : 0;
		return fd < 0 ? -1 : fd;
	}
	return open(e->path, flags);
}

/* Are the file's bytes those the index's record was read from (a racy ctime)? */
static bool same_content(const struct ksc_modset *ms, const struct mentry *e,
			 uint64_t content_hash)
{
	int fd = open_entry(ms, e);
	bool same;

	if (fd < 0)
		return false;
	same = ksc_file_content_hash(fd, e->size) == content_hash;
	close(fd);
	return same;
}

/* Was the record keyed `o` read from this very file: size, inode, modification and
 * change times (and its bytes, for a racy ctime)? */
static bool key_is_file(const struct ksc_modset *ms, const struct mentry *e,
			const struct krec_sum *o)
{
	return o && o->mtime_ns != KREC_RACY && o->file_size == e->size && o->ino == e->ino &&
	       o->mtime_ns == e->mtime_ns && o->ctime_ns == e->ctime_ns &&
	       (!o->content_hash || same_content(ms, e, o->content_hash));
}

/* Is the index's entry this very file? */
static bool is_current(const struct ksc_modset *ms, struct mentry *e)
{
	if (e->checked)
		return e->current;
	e->checked = true;
	e->current = key_is_file(ms, e, e->old ? &e->old->sum : NULL);
	return e->current;
}

/*
 * The record of e by the index's lookup table, when it is this very file: e->rec. 0 (found
 * or not), -ENOMEM. A corrupt entry or record is not used: the file is read.
 */
static int find_in_map(struct ksc_modset *ms, struct mentry *e)
{
	struct kidx_hit hit;
	int r = ksc_kidx_find_path(ms->map, e->path + ms->base, &hit);

	if (r == -ENOMEM)
		return r;
	e->checked = true;
	e->current = r == 0 && key_is_file(ms, e, &hit.key);
	if (e->current) {
		e->rec = hit.rec;
		e->from_map = true;
	}
	return 0;
}

bool ksc_modset_all_indexed(struct ksc_modset *ms)
{
	if (attach_full(ms) == -ENOMEM || !ms->have_idx)
		return false;
	for (size_t i = 0; i < ms->n; i++)
		if (!is_current(ms, &ms->e[i]))
			return false;
	return true;
}

/* Read entry e with reader w into its record (e->rec_own); false when out of memory. */
static bool read_entry(struct ksc_modset *ms, struct mentry *e, struct ksc_mreader *w,
		       char *abs, size_t size)
{
	struct ksc_mread in = { .relpath = e->path + ms->base, .start_ns = ms->start_ns };

	/* the messages name it as the index's writer does: below the absolute folder */
	snprintf(abs, size, "%s/%s", ms->moddir_abs, in.relpath);
	in.path = abs;
	in.fd = open_entry(ms, e);
	in.open_err = in.fd < 0 ? -errno : 0;
	e->rec_own = ksc_mreader_read(w, &in);
	e->rec = e->rec_own;
	return e->rec != NULL;
}

/* e's record from the index when it is this very file (e->rec), the file not read. */
static int indexed_record(struct ksc_modset *ms, struct mentry *e)
{
	if (!e->rec && !ms->full_tried && ms->map && !e->checked) {
		int r = find_in_map(ms, e);
		if (r < 0)
			return r;
	}
	if (!e->rec && ms->have_idx && is_current(ms, e)) {
		int r = ksc_kidx_fetch(&ms->idx, (size_t)(e->old - ms->idx.mods), &e->rec);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			e->current = false; /* corrupt: the file is read */
	}
	return 0;
}

int ksc_modset_record(struct ksc_modset *ms, size_t i, const struct krec **out)
{
	struct mentry *e = &ms->e[i];
	char abs[PATH_MAX * 2];
	int r = indexed_record(ms, e);

	*out = NULL;
	if (r < 0)
		return r;
	if (!e->rec) {
		struct ksc_mreader *w;
		r = ksc_mreader_new(&w);
		if (r < 0)
			return r;
		bool ok = read_entry(ms, e, w, abs, sizeof(abs));
		ksc_mreader_free(w);
		if (!ok)
			return -ENOMEM;
		ms->dirty = true;
	}
	*out = e->rec;
	return 0;
}

int ksc_modset_each_import(struct ksc_modset *ms, size_t i,
			   int (*fn)(void *data, const char *sym), void *data)
{
	const struct krec *rec;
	int r = ksc_modset_record(ms, i, &rec);

	if (r < 0)
		return r;
	const uint32_t *imp = krec_arr(rec, rec->imports);
	for (uint32_t n = 0; r >= 0 && n < rec->imports.n; n++) {
		const char *sym = krec_str(rec, imp[n] & ~KREC_IMP_WEAK);
		if (sym)
			r = fn(data, sym);
	}
	return r < 0 ? r : 0;
}

/* What reading file `rel` logged, said again, its path written as the caller names it. */
/* What reading file `rel` of the folder `moddir_abs` logged, said again, its path
 * written as the caller names it. */
static void replay_rec_msgs(const char *moddir_abs, struct ksc_ctx *ctx, const struct krec *r,
			    const char *rel, const char *path)
{
	const struct krec_msg *msg = krec_arr(r, r->msgs);
	char abs[PATH_MAX * 2];
	size_t al = (size_t)snprintf(abs, sizeof(abs), "%s/%s", moddir_abs, rel);

	for (size_t j = 0; j < r->msgs.n; j++) {
		const char *text = krec_str(r, msg[j].text);
		if (strncmp(text, abs, al) == 0)
			ksc_log(ctx, (int)msg[j].priority, "%s%s", path, text + al);
		else
			ksc_log(ctx, (int)msg[j].priority, "%s", text);
	}
}

static void replay_msgs(const struct ksc_modset *ms, struct ksc_ctx *ctx, const struct krec *r,
			const char *rel, const char *path)
{
	replay_rec_msgs(ms->moddir_abs, ctx, r, rel, path);
}

/* The record's module, named by the path given (ksc_modset_module_indexed()). */
static int rec_module(const char *moddir_abs, struct ksc_ctx *ctx, const struct krec *rec,
		      const char *rel, const char *path, struct ksc_sigscratch *sig,
		      struct ksc_module **out)
{
	replay_rec_msgs(moddir_abs, ctx, rec, rel, path);
	int r = ksc_krec_to_module(ctx, rec, path, true, false, sig, out);
	/* the names a module gets from its path (R4-R6), from the path given */
	if (r >= 0 && (r = ksc_module_set_names(*out, path)) < 0)
		*out = ksc_module_unref(*out);
	return r < 0 ? r : 0;
}

int ksc_kidx_map_module(struct kidx_map *map, const char *moddir, const char *release,
			const char *rel, const char *path, const struct stat *st,
			struct ksc_ctx *ctx, struct ksc_sigscratch *sig,
			struct ksc_module **out)
{
	char *abs = absolute(moddir);
	struct kidx_hit hit;
	int r;

	*out = NULL;
	if (!abs)
		return -ENOMEM;
	/* another folder's index: not this folder's records */
	bool foreign = foreign_map(map, abs, release);

	free(abs);
	if (foreign)
		return 1;
	r = ksc_kidx_find_path(map, rel, &hit);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || !ksc_kidx_key_matches(&hit.key, st) || !(hit.rec->flags & KREC_F_ENGINE))
		return 1;
	return rec_module(ksc_kidx_map_moddir(map), ctx, hit.rec, rel, path, sig, out);
}

int ksc_modset_module(struct ksc_modset *ms, size_t i, struct ksc_ctx *ctx,
		      struct ksc_module **out)
{
	const struct krec *rec = NULL;
	/* a file through a link is opened inside the root: by its record, not its path */
	bool by_rec = ms->index_path || ms->e[i].rec || ms->e[i].link;
	int r = by_rec ? ksc_modset_record(ms, i, &rec) : 0;

	*out = NULL;
	if (!by_rec) /* nothing to keep: read as the caller would */
		return ksc_module_new_from_module_path(ctx, ms->e[i].path, out);
	if (r < 0)
		return r;
	/* a file the reader refused: read again, to say why as the caller's reader says it */
	if (!(rec->flags & KREC_F_ENGINE))
		return ksc_module_new_from_module_path(ctx, ms->e[i].path, out);
	replay_msgs(ms, ctx, rec, ms->e[i].path + ms->base, ms->e[i].path);
	return ksc_krec_to_module(ctx, rec, ms->e[i].path, true, false, &ms->sig, out);
}

bool ksc_modset_find_file(const struct ksc_modset *ms, const struct stat *st, size_t *i)
{
	for (size_t j = 0; j < ms->n; j++) {
		const struct mentry *e = &ms->e[j];
		if (e->ino == (uint64_t)st->st_ino && e->dev == (uint64_t)st->st_dev &&
		    e->size == (uint64_t)st->st_size && e->mtime_ns == st_mtime_ns(st) &&
		    e->ctime_ns == st_ctime_ns(st) && (e->ino || e->dev)) {
			*i = j;
			return true;
		}
	}
	return false;
}

int ksc_modset_module_indexed(struct ksc_modset *ms, size_t i, const char *path,
			      struct ksc_ctx *ctx, struct ksc_module **out)
{
	struct mentry *e = &ms->e[i];
	int r = indexed_record(ms, e);

	*out = NULL;
	if (r < 0)
		return r;
	/* not in the index, or read this run (the reader's own messages, as the caller's
	 * reader says them, are not kept), or refused by the reader: the file is read */
	if (!e->rec || e->rec_own || !(e->rec->flags & KREC_F_ENGINE))
		return 1;
	return rec_module(ms->moddir_abs, ctx, e->rec, e->path + ms->base, path, &ms->sig, out);
}

/* ---- every record, in threads ------------------------------------------------------ */

struct read_all {
	struct ksc_modset *ms;
	struct ksc_mreader **ws;
	size_t *todo;
};

static int read_item(struct workpool *wp, unsigned int worker, void *item)
{
	struct read_all *ra = wp->data;
	struct mentry *e = &ra->ms->e[ra->todo[*(const size_t *)item]];
	char abs[PATH_MAX * 2];

	return read_entry(ra->ms, e, ra->ws[worker], abs, sizeof(abs)) ? 0 : -ENOMEM;
}

static void run_read(struct workpool *wp, unsigned int jobs, size_t n,
		     void (*progress)(void *, const char *, size_t, size_t), void *pdata)
{
	unsigned int started = jobs > 1 ? workpool_start(wp, jobs) : 0;

	if (started == 0) {
		workpool_work(wp, 0);
	} else {
		while (!workpool_wait(wp, 100))
			if (progress)
				progress(pdata, "read", atomic_load(&wp->done), n);
	}
	if (progress)
		progress(pdata, "read", n, n);
}

int ksc_modset_read_all(struct ksc_modset *ms, unsigned int jobs,
			void (*progress)(void *, const char *, size_t, size_t), void *pdata)
{
	struct read_all ra = { .ms = ms };
	size_t n = 0;
	int r = 0;

	if (jobs < 1)
		jobs = 1;
	if (attach_full(ms) == -ENOMEM)
		return -ENOMEM;
	/* one read of the records kept (a corrupt one is read again below) */
	if (ms->have_idx && ksc_kidx_fetch_all(&ms->idx) == -ENOMEM)
		return -ENOMEM;
	ra.todo = calloc(ms->n ? ms->n : 1, sizeof(*ra.todo));
	ra.ws = calloc(jobs, sizeof(*ra.ws));
	if (!ra.todo || !ra.ws)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < ms->n; i++) {
		struct mentry *e = &ms->e[i];
		if (!e->rec && is_current(ms, e)) {
			int f = ksc_kidx_fetch(&ms->idx, (size_t)(e->old - ms->idx.mods), &e->rec);
			if (f == -ENOMEM)
				r = f;
			else if (f < 0)
				e->current = false; /* corrupt: the file is read */
		}
		if (!e->rec)
			ra.todo[n++] = i;
	}
	for (unsigned int i = 0; r == 0 && i < jobs; i++)
		r = ksc_mreader_new(&ra.ws[i]);
	if (r == 0 && n) {
		struct workpool wp;
		workpool_init_range(&wp, n, read_item, &ra);
		run_read(&wp, jobs < n ? jobs : (unsigned int)n, n, progress, pdata);
		r = workpool_join(&wp);
		workpool_fini(&wp);
		ms->dirty = true;
	}
	for (unsigned int i = 0; ra.ws && i < jobs; i++)
		ksc_mreader_free(ra.ws[i]);
	free(ra.ws);
	free(ra.todo);
	return r;
}

/* ---- the index for the next run ------------------------------------------------------ */

int ksc_modset_save_index(struct ksc_modset *ms)
{
	struct kidx_wmod *w;
	size_t n = 0;
	int r;

	/*
	 * Another folder's index is left alone, and so is one `tree` wrote (its folders and
	 * results, keyed by its own order of the modules, would be lost): tree renews it.
	 */
	if (ms->index_path && ms->dirty && attach_full(ms) == -ENOMEM)
		return -ENOMEM;
	if (!ms->index_path || !ms->dirty || ms->foreign_idx ||
	    (ms->have_idx && (ms->idx.derived || ms->idx.n_dirs)))
		return 0;
	/* the records kept, written again (a corrupt one is left out) */
	if (ms->have_idx && ksc_kidx_fetch_all(&ms->idx) == -ENOMEM)
		return -ENOMEM;
	w = calloc(ms->n ? ms->n : 1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < ms->n; i++) {
		struct mentry *e = &ms->e[i];
		const struct krec *rec = e->rec_own;
		if (!rec && e->from_map)
			rec = e->rec; /* the map's, alive until the set is freed */
		else if (!rec && is_current(ms, e))
			rec = e->old->rec;
		if (!rec)
			continue;
		w[n++] = (struct kidx_wmod){ .rec = rec, .modname = e->name,
					     .dir = KREC_NONE, .replaced = e->replaced };
	}
	struct kidx_write kw = { .moddir = ms->moddir_abs, .release = ms->release,
				 .modset_fp = ksc_depmod_cfg_fingerprint(ms->cfg),
				 .mods = w, .n_mods = n, .parallel = true };
	r = ksc_kidx_write(ms->index_path, &kw);
	free(w);
	if (r == 0)
		ms->dirty = false;
	return r;
}
