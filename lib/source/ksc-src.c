// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Sources (source-private.h says how a file is read): the public object struct ksc_src,
 * the names of its enums, reading files, and the folder walk. A folder is scanned by a
 * pool of threads that share a stack of folders: each thread lists a folder, reads its
 * Kbuild (else Makefile) for -DDEFAULT_SYMBOL_NAMESPACE=, scans its files with one
 * read() each into a reused buffer (no fstat: readdir's type says they are regular
 * files), and pushes the subfolders. A folder is listed by util/walk.h's rules (sorted,
 * links not followed); the threads share the folders to visit, so the walk's order
 * here is the pool's. Records are sorted by path at the end, so the output
 * does not depend on the schedule.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/source-private.h"
#include "util/array.h"
#include "util/fileio.h"
#include "util/opts.h"
#include "util/walk.h"
#include "util/workpool.h"

#define MAX_FILE_SIZE (1u << 30)    /* larger "source files" are skipped with -EFBIG */

/* ---------------------------------------------------------------------------------- */
/* Names                                                                              */

KSC_EXPORT const char *ksc_src_kind_name(enum ksc_src_kind kind)
{
	switch (kind) {
	case KSC_SRC_EXPORT: return "export";
	case KSC_SRC_IMPORT_NS: return "import_ns";
	case KSC_SRC_LICENSE: return "license";
	case KSC_SRC_DEFAULT_NS: return "default_ns";
	case KSC_SRC_MENTION: return "mention";
	}
	return "unknown";
}

KSC_EXPORT const char *ksc_src_spelling_name(enum ksc_src_spelling s)
{
	switch (s) {
	case KSC_SRC_SPELL_NONE: return "none";
	case KSC_SRC_SPELL_IDENT: return "identifier";
	case KSC_SRC_SPELL_STRING: return "string";
	case KSC_SRC_SPELL_OTHER: return "other";
	}
	return "unknown";
}

KSC_EXPORT const char *ksc_src_mention_name(enum ksc_src_mention m)
{
	switch (m) {
	case KSC_SRC_MENTION_NONE: return "none";
	case KSC_SRC_IN_COMMENT: return "comment";
	case KSC_SRC_IN_STRING: return "string";
	case KSC_SRC_IN_DEFINE: return "define";
	case KSC_SRC_IN_DIRECTIVE: return "directive";
	case KSC_SRC_OTHER_MACRO: return "other-macro";
	case KSC_SRC_NOT_INVOKED: return "not-invoked";
	case KSC_SRC_BAD_ARGS: return "bad-args";
	}
	return "unknown";
}

/* ---------------------------------------------------------------------------------- */
/* The scan object                                                                    */

struct ksc_src {
	int refcount;
	struct ksc_ctx *ctx;
	unsigned int flags, threads;
	const char *kvm;
	struct pool strings;         /* the object's own strings, and memory scans */
	struct pool **pools;         /* one per worker of every folder scan */
	size_t n_pools, cap_pools;
	struct ksc_src_vec recs;
	size_t n_files;
	unsigned int errors;
};

KSC_EXPORT int ksc_src_new(struct ksc_ctx *ctx, const struct ksc_src_opts *opts,
			   struct ksc_src **out)
{
	struct ksc_src_opts o = { .sz = sizeof(o) };
	struct ksc_src *src;

	if (!ctx || !out || opts_copy(&o, opts) < 0)
		return -EINVAL;
	src = calloc(1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	src->refcount = 1;
	src->ctx = ksc_ref(ctx);
	pool_init(&src->strings);
	src->flags = o.flags & KSC_SRC_MENTIONS;
	src->threads = o.threads;
	if (o.kvm_sub_modules) {
		src->kvm = pool_strdup(&src->strings, o.kvm_sub_modules);
		if (!src->kvm) {
			ksc_src_unref(src);
			return -ENOMEM;
		}
	}
	*out = src;
	return 0;
}

KSC_DEFINE_REF(ksc_src_ref, struct ksc_src)

KSC_EXPORT struct ksc_src *ksc_src_unref(struct ksc_src *src)
{
	if (!src || --src->refcount > 0)
		return NULL;
	for (size_t i = 0; i < src->n_pools; i++) {
		pool_fini(src->pools[i]);
		free(src->pools[i]);
	}
	free(src->pools);
	pool_fini(&src->strings);
	free(src->recs.v);
	ksc_unref(src->ctx);
	free(src);
	return NULL;
}

KSC_EXPORT size_t ksc_src_get_record_count(const struct ksc_src *src)
{
	return src ? src->recs.n : 0;
}

KSC_EXPORT const struct ksc_src_record *ksc_src_get_record(const struct ksc_src *src,
							   size_t i)
{
	return src && i < src->recs.n ? &src->recs.v[i] : NULL;
}

KSC_EXPORT size_t ksc_src_get_file_count(const struct ksc_src *src)
{
	return src ? src->n_files : 0;
}

KSC_EXPORT unsigned int ksc_src_get_error_count(const struct ksc_src *src)
{
	return src ? src->errors : 0;
}

KSC_EXPORT int ksc_src_add_memory(struct ksc_src *src, const char *name, const char *data,
				  size_t size)
{
	struct ksc_src_scanner sc;
	enum ksc_src_lang lang;
	int r;

	if (!src || !name || (!data && size))
		return -EINVAL;
	lang = ksc_src_lang_of(name);
	ksc_src_scanner_init(&sc, &src->strings, &src->recs, src->flags, src->kvm);
	r = ksc_src_scan_buffer(&sc, name, data ? data : "", size,
				lang == KSC_LANG_NONE ? KSC_LANG_C : lang, NULL);
	ksc_src_scanner_fini(&sc);
	if (r == 0)
		src->n_files++;
	return r < 0 ? r : 1;
}

/*
 * Read a whole file opened at dfd/name into *buf (grown as needed). 0 or -errno; -EINVAL
 * for what is not a regular file (*mode says what it is). The open does not block: a
 * FIFO cannot hang it.
 */
static int read_whole(int dfd, const char *name, char **buf, size_t *cap, size_t *size,
		      mode_t *mode)
{
	struct stat st;
	int fd = ksc_open_read(dfd, name, 0, &st), r = 0;

	*mode = 0;
	if (fd == -KSC_ENOTREG) {
		*mode = st.st_mode;
		return -EINVAL;
	}
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > MAX_FILE_SIZE) {
		r = -EFBIG;
		goto out;
	}
	size_t want = (size_t)st.st_size, got = 0;
	if (array_reserve(*buf, *cap, want + 1, 65536) < 0) {
		r = -ENOMEM;
		goto out;
	}
	while (got < want) {
		ssize_t k = read(fd, *buf + got, want - got);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	(*buf)[got] = '\0';
	*size = got;
out:
	close(fd);
	return r;
}

/* Defaults taken from one folder's Kbuild/Makefile records. */
struct dir_flags {
	struct ksc_src_default c, as, sub_c, sub_as;
	struct file_flag {
		const char *obj;    /* "foo" of CFLAGS_foo.o / AFLAGS_foo.o */
		bool as;
		struct ksc_src_default def;
	} *files;
	size_t n_files, cap_files;
};

static const char *from_of(struct pool *pool, const struct ksc_src_record *r)
{
	char tmp[32];
	size_t pl = strlen(r->path);
	int tl = snprintf(tmp, sizeof(tmp), ":%u", r->line);
	char *s = malloc(pl + (size_t)tl + 1);
	const char *out;

	if (!s)
		return NULL;
	memcpy(s, r->path, pl);
	memcpy(s + pl, tmp, (size_t)tl + 1);
	out = pool_strdup(pool, s);
	free(s);
	return out;
}

/* Fill `f` from the DEFAULT_NS records [first, last) of a Kbuild/Makefile. -ENOMEM. */
static int dir_flags_from(struct dir_flags *f, struct pool *pool,
			  const struct ksc_src_vec *v, size_t first)
{
	for (size_t i = first; i < v->n; i++) {
		const struct ksc_src_record *r = &v->v[i];
		const char *m = r->macro;
		struct ksc_src_default def = { r->ns, r->spelling, from_of(pool, r) };
		if (!def.from)
			return -ENOMEM;
		if (strstartswith(m, "subdir-ccflags-"))
			f->sub_c = def;
		else if (strstartswith(m, "subdir-asflags-"))
			f->sub_as = def;
		else if (strstartswith(m, "ccflags-") || streq(m, "EXTRA_CFLAGS"))
			f->c = def;
		else if (strstartswith(m, "asflags-") || streq(m, "EXTRA_AFLAGS"))
			f->as = def;
		else if (strstartswith(m, "CFLAGS_") || strstartswith(m, "AFLAGS_")) {
			size_t l = strlen(m);
			if (l < 10 || strcmp(m + l - 2, ".o") != 0)
				continue;
			if (array_reserve(f->files, f->cap_files, f->n_files + 1, 8) < 0)
				return -ENOMEM;
			struct file_flag *ff = f->files;
			ff[f->n_files].obj = pool_strndup(pool, m + 7, l - 9);
			if (!ff[f->n_files].obj)
				return -ENOMEM;
			ff[f->n_files].as = m[0] == 'A';
			ff[f->n_files].def = def;
			f->n_files++;
		}
	}
	return 0;
}

/*
 * The default a file starts with: kbuild passes subdir-ccflags (this folder's, else the
 * nearest parent's), then ccflags-y, then CFLAGS_<obj>.o; the last -D wins.
 */
static struct ksc_src_default file_default(const struct dir_flags *f,
					   const struct ksc_src_default *inh_c,
					   const struct ksc_src_default *inh_as,
					   const char *name, enum ksc_src_lang lang)
{
	bool as = lang == KSC_LANG_ASM;
	struct ksc_src_default d = { NULL, KSC_SRC_SPELL_NONE, NULL };
	const struct ksc_src_default *sub = as ? &f->sub_as : &f->sub_c;
	const struct ksc_src_default *inh = as ? inh_as : inh_c;
	size_t nl = strlen(name);

	if (sub->ns)
		d = *sub;
	else if (inh && inh->ns)
		d = *inh;
	if ((as ? f->as.ns : f->c.ns))
		d = as ? f->as : f->c;
	for (size_t i = 0; i < f->n_files; i++) {
		const struct file_flag *ff = &f->files[i];
		size_t ol = strlen(ff->obj);
		if (ff->as == as && nl == ol + 2 && memcmp(name, ff->obj, ol) == 0)
			d = ff->def;
	}
	return d;
}

/* ---- folder walk ---- */

struct dirtask {
	char *rel;                         /* relative to the root; "" for the root */
	struct ksc_src_default sub_c,
		sub_as; /* inherited subdir-ccflags / subdir-asflags */
};

struct fres {
	const char *path;
	size_t first, n;
	struct ksc_src_vec *vec;
};

struct werr {
	char *path;
	int err;
};

struct walk;

struct worker {
	struct walk *w;
	struct pool *strings;
	struct ksc_src_vec recs;
	struct ksc_src_scanner sc;
	struct fres *files;
	size_t n_files, cap_files;
	size_t files_read;
	struct werr *errs;
	size_t n_errs, cap_errs;
	char *buf;
	size_t cap_buf;
	char *path;                        /* scratch for paths */
	size_t cap_path;
	bool nomem;                        /* a problem could not be collected */
};

struct walk {
	struct ksc_src *src;
	const char *root;
	struct workpool pool;              /* of struct dirtask, one per folder */
	struct worker *workers;
	unsigned int n_workers;
};

static int worker_error(struct worker *wk, const char *path, int err)
{
	if (array_reserve(wk->errs, wk->cap_errs, wk->n_errs + 1, 8) < 0)
		return -ENOMEM;
	wk->errs[wk->n_errs].path = strdup(path);
	if (!wk->errs[wk->n_errs].path)
		return -ENOMEM;
	wk->errs[wk->n_errs++].err = err;
	return 0;
}

/* root + "/" + rel + "/" + name into the worker's scratch buffer. */
static const char *join_path(struct worker *wk, const char *rel, const char *name)
{
	const char *root = wk->w->root;
	size_t lr = strlen(root), ll = strlen(rel), ln = name ? strlen(name) : 0;
	size_t need = lr + ll + ln + 3;

	if (array_reserve(wk->path, wk->cap_path, need, 256) < 0)
		return NULL;
	char *o = wk->path;
	bool slash = lr > 0 && root[lr - 1] == '/';
	memcpy(o, root, lr);
	o += lr;
	if (ll) {
		if (!slash)
			*o++ = '/';
		memcpy(o, rel, ll);
		o += ll;
		slash = false;
	}
	if (name) {
		if (!slash)
			*o++ = '/';
		memcpy(o, name, ln);
		o += ln;
	}
	*o = '\0';
	return wk->path;
}

static int add_fres(struct worker *wk, const char *path, size_t first)
{
	if (array_reserve(wk->files, wk->cap_files, wk->n_files + 1, 256) < 0)
		return -ENOMEM;
	wk->files[wk->n_files++] =
		(struct fres){ path, first, wk->recs.n - first, &wk->recs };
	return 0;
}

/* Scan one file of an open folder. Problems are collected, -ENOMEM returned. */
static int scan_one(struct worker *wk, int dfd, const char *rel, const char *name,
		    enum ksc_src_lang lang, const struct ksc_src_default *def)
{
	size_t size = 0, first = wk->recs.n;
	mode_t mode; /* readdir said a regular file: anything else since is an error */
	int r = read_whole(dfd, name, &wk->buf, &wk->cap_buf, &size, &mode);
	const char *path = join_path(wk, rel, name);

	if (!path)
		return -ENOMEM;
	if (r < 0)
		return r == -ENOMEM ? r : worker_error(wk, path, r);
	wk->files_read++;
	r = ksc_src_scan_buffer(&wk->sc, path, wk->buf, size, lang, def);
	if (r < 0)
		return r;
	if (wk->recs.n > first)
		return add_fres(wk, wk->recs.v[first].path, first);
	return 0;
}

/* A source file's entry: a regular file with a language. */
static bool is_source(const struct walk_list_entry *e)
{
	return e->type == DT_REG && ksc_src_lang_of(e->name) != KSC_LANG_NONE;
}

/* A problem listing a folder: collected as the others (-E2BIG for too many entries). */
static void list_problem(const char *path, enum walk_problem what, int err, void *data)
{
	struct worker *wk = data;

	if (worker_error(wk, path, what == WALK_ERRNO ? err : -E2BIG) < 0)
		wk->nomem = true;
}

/*
 * The subfolders and files of an open folder, sorted by name (symbolic links and
 * devices are not followed, as grep -r). A read error is collected; -ENOMEM returned.
 */
static int read_folder(struct worker *wk, int dfd, const char *full, struct walk_list *l)
{
	const struct walk_opts o = { .flags = WALK_SORTED, .kinds = WALK_KIND_REG,
				     .problem = list_problem, .data = wk };
	int r = walk_list_read(dfd, full, 1, &o, l);

	return r < 0 || wk->nomem ? -ENOMEM : 0;
}

/*
 * The folder's files: first Kbuild/Makefile, whose flags give the defaults (Kbuild is
 * what kbuild reads when both exist; both are scanned for records), then the sources.
 */
static int scan_files(struct worker *wk, const struct dirtask *t, int dfd,
		      const struct walk_list *f, struct dir_flags *fl)
{
	const struct walk_list_entry *ents = f->v;
	bool has_kbuild = false;
	int r;

	for (size_t i = 0; i < f->n; i++)
		if (ents[i].type == DT_REG && streq(ents[i].name, "Kbuild"))
			has_kbuild = true;
	for (size_t i = 0; i < f->n; i++) {
		if (!is_source(&ents[i]) || ksc_src_lang_of(ents[i].name) != KSC_LANG_MAKE)
			continue;
		size_t first = wk->recs.n;
		r = scan_one(wk, dfd, t->rel, ents[i].name, KSC_LANG_MAKE, NULL);
		if (r < 0)
			return r;
		if (has_kbuild == streq(ents[i].name, "Kbuild")) {
			r = dir_flags_from(fl, wk->strings, &wk->recs, first);
			if (r < 0)
				return r;
		}
	}
	for (size_t i = 0; i < f->n; i++) {
		enum ksc_src_lang lang = ksc_src_lang_of(ents[i].name);
		if (!is_source(&ents[i]) || lang == KSC_LANG_MAKE)
			continue;
		struct ksc_src_default def = file_default(fl, &t->sub_c, &t->sub_as, ents[i].name,
							  lang);
		r = scan_one(wk, dfd, t->rel, ents[i].name, lang, &def);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The subfolders, pushed for any thread to take, with the flags they inherit. */
static int push_subfolders(struct worker *wk, const struct dirtask *t,
			   const struct walk_list *f, const struct dir_flags *fl)
{
	size_t nsub = 0, k = 0, rl = strlen(t->rel);
	struct dirtask *subs;
	int r = 0;

	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].type == DT_DIR)
			nsub++;
	if (!nsub)
		return 0;
	subs = calloc(nsub, sizeof(*subs));
	if (!subs)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++) {
		if (f->v[i].type != DT_DIR)
			continue;
		size_t nl = strlen(f->v[i].name);
		char *rel = malloc(rl + nl + 2);
		if (!rel) {
			r = -ENOMEM;
			break;
		}
		if (rl) {
			memcpy(rel, t->rel, rl);
			rel[rl] = '/';
			memcpy(rel + rl + 1, f->v[i].name, nl + 1);
		} else {
			memcpy(rel, f->v[i].name, nl + 1);
		}
		subs[k].rel = rel;
		subs[k].sub_c = fl->sub_c.ns ? fl->sub_c : t->sub_c;
		subs[k].sub_as = fl->sub_as.ns ? fl->sub_as : t->sub_as;
		k++;
	}
	if (r == 0)
		r = workpool_push(&wk->w->pool, subs, k);
	if (r < 0)
		for (size_t i = 0; i < k; i++)
			free(subs[i].rel);
	free(subs);
	return r;
}

/* One folder of the walk: its files scanned, its subfolders queued. */
static int scan_dir(struct worker *wk, const struct dirtask *t)
{
	const char *full = join_path(wk, t->rel, NULL);
	struct walk_list f = { 0 };
	struct dir_flags fl;
	int dfd, r;

	memset(&fl, 0, sizeof(fl));
	if (!full)
		return -ENOMEM;
	dfd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return worker_error(wk, full, -errno);
	r = read_folder(wk, dfd, full, &f);
	if (r == 0)
		r = scan_files(wk, t, dfd, &f, &fl);
	if (r == 0)
		r = push_subfolders(wk, t, &f, &fl);
	free(fl.files);
	walk_list_fini(&f);
	close(dfd);
	return r;
}

/* One folder, in whichever thread takes it from the pool. */
static int scan_task(struct workpool *wp, unsigned int worker, void *item)
{
	struct walk *w = wp->data;
	struct dirtask *t = item;
	int r = scan_dir(&w->workers[worker], t);

	free(t->rel);
	return r;
}

static void drop_task(void *item)
{
	free(((struct dirtask *)item)->rel);
}

static int cmp_fres(const void *a, const void *b)
{
	const struct fres *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_werr(const void *a, const void *b)
{
	return strcmp(((const struct werr *)a)->path, ((const struct werr *)b)->path);
}

static int vec_append(struct ksc_src_vec *v, const struct ksc_src_record *r, size_t n)
{
	if (!n)
		return 0;
	if (array_reserve(v->v, v->cap, v->n + n, 256) < 0)
		return -ENOMEM;
	memcpy(v->v + v->n, r, n * sizeof(*r));
	v->n += n;
	return 0;
}

static unsigned int n_threads(const struct ksc_src *src)
{
	long n = src->threads ? (long)src->threads : sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	return n > 64 ? 64 : (unsigned int)n;
}

static int scan_tree(struct ksc_src *src, const char *root)
{
	struct walk w = { .src = src, .root = root };
	unsigned int nt = n_threads(src);
	int r = 0;

	workpool_init_queue(&w.pool, sizeof(struct dirtask), scan_task, &w, drop_task);
	w.workers = calloc(nt, sizeof(*w.workers));
	if (!w.workers || array_reserve(src->pools, src->cap_pools, src->n_pools + nt, 8) < 0) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < nt; i++) {
		struct worker *wk = &w.workers[i];
		wk->w = &w;
		wk->strings = calloc(1, sizeof(*wk->strings));
		if (!wk->strings) {
			r = -ENOMEM;
			goto out;
		}
		pool_init(wk->strings);
		src->pools[src->n_pools++] = wk->strings;
		ksc_src_scanner_init(&wk->sc, wk->strings, &wk->recs, src->flags,
				     src->kvm);
	}
	w.n_workers = nt;
	struct dirtask first = { strdup(""), { NULL, 0, NULL }, { NULL, 0, NULL } };
	if (!first.rel || workpool_push(&w.pool, &first, 1) < 0) {
		free(first.rel);
		r = -ENOMEM;
		goto out;
	}
	/* The calling thread is the last worker. */
	workpool_work(&w.pool, workpool_start(&w.pool, nt - 1));
	r = workpool_join(&w.pool);

	/* Merge: files by path, then the errors by path. */
	size_t nf = 0, ne = 0;
	for (unsigned i = 0; i < nt; i++) {
		nf += w.workers[i].n_files;
		ne += w.workers[i].n_errs;
		src->n_files += w.workers[i].files_read;
	}
	struct fres *all = calloc(nf ? nf : 1, sizeof(*all));
	struct werr *errs = calloc(ne ? ne : 1, sizeof(*errs));
	if (!all || !errs) {
		free(all);
		free(errs);
		r = -ENOMEM;
		goto out;
	}
	nf = ne = 0;
	for (unsigned i = 0; i < nt; i++) {
		if (w.workers[i].n_files)
			memcpy(all + nf, w.workers[i].files,
			       w.workers[i].n_files * sizeof(*all));
		nf += w.workers[i].n_files;
		if (w.workers[i].n_errs)
			memcpy(errs + ne, w.workers[i].errs,
			       w.workers[i].n_errs * sizeof(*errs));
		ne += w.workers[i].n_errs;
		w.workers[i].n_errs = 0;
	}
	if (nf)
		qsort(all, nf, sizeof(*all), cmp_fres);
	if (ne)
		qsort(errs, ne, sizeof(*errs), cmp_werr);
	for (size_t i = 0; i < nf && r == 0; i++)
		r = vec_append(&src->recs, all[i].vec->v + all[i].first, all[i].n);
	for (size_t i = 0; i < ne; i++) {
		ksc_err(src->ctx, "%s: %s", errs[i].path, strerror(-errs[i].err));
		free(errs[i].path);
	}
	src->errors += (unsigned int)ne;
	free(all);
	free(errs);
out:
	if (w.workers) {
		for (unsigned i = 0; i < nt; i++) {
			struct worker *wk = &w.workers[i];
			ksc_src_scanner_fini(&wk->sc);
			free(wk->recs.v);
			free(wk->files);
			for (size_t k = 0; k < wk->n_errs; k++)
				free(wk->errs[k].path);
			free(wk->errs);
			free(wk->buf);
			free(wk->path);
		}
	}
	workpool_fini(&w.pool);
	free(w.workers);
	return r;
}

/* A file given by name: the defaults of its own folder's Kbuild/Makefile apply. */
static int scan_single(struct ksc_src *src, const char *path)
{
	struct worker wk;
	struct walk w = { .src = src, .root = "" };
	char *dirpath = strdup(path), *slash;
	int dfd, r;
	enum ksc_src_lang lang = ksc_src_lang_of(path);

	if (!dirpath)
		return -ENOMEM;
	slash = strrchr(dirpath, '/');
	if (slash == dirpath)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dirpath, ".");
	memset(&wk, 0, sizeof(wk));
	wk.w = &w;
	wk.strings = &src->strings;
	ksc_src_scanner_init(&wk.sc, &src->strings, &wk.recs, src->flags, src->kvm);

	struct dir_flags fl;
	memset(&fl, 0, sizeof(fl));
	struct ksc_src_default def = { NULL, KSC_SRC_SPELL_NONE, NULL };
	if (lang != KSC_LANG_MAKE) {
		dfd = open(dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			struct ksc_src_vec tmp = { NULL, 0, 0 };
			struct ksc_src_scanner sc;
			const char *mk = faccessat(dfd, "Kbuild", F_OK, 0) == 0 ? "Kbuild" : "Makefile";
			char *mkpath = malloc(strlen(dirpath) + strlen(mk) + 2);
			size_t size;
			r = mkpath ? 0 : -ENOMEM;
			if (mkpath) {
				sprintf(mkpath, "%s/%s", dirpath, mk);
				mode_t mode;
				if (read_whole(dfd, mk, &wk.buf, &wk.cap_buf, &size,
					       &mode) == 0) {
					ksc_src_scanner_init(&sc, &src->strings, &tmp, 0,
							     NULL);
					r = ksc_src_scan_buffer(&sc, mkpath, wk.buf, size,
								KSC_LANG_MAKE, NULL);
					if (r == 0)
						r = dir_flags_from(&fl, &src->strings,
								   &tmp, 0);
					ksc_src_scanner_fini(&sc);
				}
			}
			free(mkpath);
			free(tmp.v);
			close(dfd);
			if (r < 0)
				goto out;
			def = file_default(&fl, NULL, NULL, ksc_basename(path),
					   lang == KSC_LANG_NONE ? KSC_LANG_C : lang);
		}
	}
	size_t size;
	mode_t mode;
	r = read_whole(AT_FDCWD, path, &wk.buf, &wk.cap_buf, &size, &mode);
	if (r == -EINVAL && mode) {
		ksc_err(src->ctx, "%s: not a regular file (%s)", path, ksc_file_kind(mode));
		goto out;
	}
	if (r < 0) {
		if (r != -ENOMEM)
			ksc_err(src->ctx, "%s: %s", path, strerror(-r));
		goto out;
	}
	r = ksc_src_scan_buffer(&wk.sc, path, wk.buf, size,
				lang == KSC_LANG_NONE ? KSC_LANG_C : lang, &def);
	if (r == 0)
		r = vec_append(&src->recs, wk.recs.v, wk.recs.n);
	if (r == 0) {
		src->n_files++;
		r = 1;
	}
out:
	free(fl.files);
	ksc_src_scanner_fini(&wk.sc);
	free(wk.recs.v);
	free(wk.buf);
	free(dirpath);
	return r;
}

KSC_EXPORT int ksc_src_add_path(struct ksc_src *src, const char *path)
{
	struct stat st;

	if (!src || !path || !*path)
		return -EINVAL;
	if (stat(path, &st) < 0) {
		int r = -errno;
		ksc_err(src->ctx, "%s: %s", path, strerror(errno));
		src->errors++;
		return r;
	}
	if (!S_ISDIR(st.st_mode)) {
		int r = scan_single(src, path);
		if (r < 0 && r != -ENOMEM)
			src->errors++;
		return r;
	}
	/* The root as given, without trailing slashes (but "/" stays). */
	size_t l = strlen(path);
	while (l > 1 && path[l - 1] == '/')
		l--;
	char *root = strndup(path, l);
	if (!root)
		return -ENOMEM;
	size_t before = src->n_files;
	int r = scan_tree(src, root);
	free(root);
	if (r < 0)
		return r;
	size_t files = src->n_files - before;
	return files > INT_MAX ? INT_MAX : (int)files;
}
