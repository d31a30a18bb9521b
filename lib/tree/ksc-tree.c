// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * struct ksc_tree: a whole module folder (ROOT/lib/modules/KVER), read in parallel, seen
 * as depmod sees it (ksc-depmod.c), judged module by module by the policy engine
 * (ksc_check_modules), and remembered in an index (ksc-index.c) so that the next run
 * redoes only what changed.
 *
 * ksc_tree_open() runs these steps:
 *  1. walk the folder as depmod_modules_search() does (readdir order, "build",
 *     "source" and depmod.d's exclude names skipped at every level, symbolic links
 *     followed, loops and dangling links reported), keep one module per kmod name by
 *     depmod's rules (ksc-modset.c: search order, override), and order them: kmod's hash
 *     order of the names, then stably by their line in modules.order;
 *  2. read every module whose (size, mtime, inode) the index does not know, in
 *     `jobs` threads: the file (only the sections the readers need, for large
 *     uncompressed files), the library's reader (ksc_elf_parse_module) and kmod's view
 *     (ksc_kview_read), both kept as one facts record; every message a module gave is
 *     kept in its record and replayed, in module order, on every run;
 *  3. resolve every module's dependency symbols as depmod (the kernel's exports, then
 *     each module's exports in order, a later module replacing an earlier one), sort
 *     the dependency graph (Kahn's algorithm, as depmod), find cycles;
 *  4. check every readable module with ksc_check_modules() against a kernel made of the
 *     kernel's exports and all the tree's modules as providers: each module as modprobe
 *     would load it into a fresh boot (threads again, one kernel object per thread, as
 *     ksc_kernel and ksc_report are not shared between threads).
 * Results of steps 3 and 4 are stored per module ("derived" records) with fingerprints
 * of what they depend on; they are reused while the fingerprints hold.
 *
 * Threads never share a ksc_ctx, ksc_module or ksc_kernel: each has its own ctx, whose
 * log function stores messages for the main thread to replay.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "tree/tree.h"
#include "kernel/ksc-modset.h"
#include "util/elfview.h"

/*
 * Uncompressed files at least this large are read section by section: what the readers
 * look at is a fifth of a typical module (its code and relocations are the rest).
 */
#define SPARSE_MIN (32 * 1024)
/* Sparse images up to this size go into the worker's reused, zeroed buffer. */
#define SBUF_MAX (8 * 1024 * 1024)
/* Bytes read before the section headers in the same read (where .shstrtab usually is). */
#define TAIL_SLACK (4 * 1024)
/* Needed ranges closer than this are read with one read. */
#define GAP_MERGE (4 * 1024)
#define RACY_NS 2000000000LL
/* Modules whose only change is their key: the index is rewritten above this many. */
#define STALE_MAX 32

enum ksrc_kind { KSRC_NONE = 0, KSRC_SYMVERS, KSRC_VMLINUX, KSRC_SYSMAP };

struct tunres {
	const char *name;
	uint32_t kind;
};

struct tmod {
	char *relpath;	   /* below the module folder */
	char *path;	   /* absolute */
	char *modname;	   /* kmod's name */
	size_t base_off;   /* offset of the basename in relpath */
	int rank;	   /* modules.order: line - total, else 1 */
	uint32_t hash_pos; /* position in kmod's name hash order */
	bool path_arena, name_arena; /* not freed one by one: walk_arena's, the index's */
	/* a file of its name it won over (the first rival met, as ksc-modset.c), or NULL */
	char *replaced;
	bool replaced_own;
	uint32_t dir;      /* the folder (t->dirs) the walk found it in, or KREC_NONE */

	struct krec_sum sum;	/* always valid once read or found in the index */
	const struct krec *rec; /* facts: rec_own, or the index's once fetched (need_rec) */
	struct krec *rec_own;
	uint64_t rec_hash; /* of rec_own, for the index (0: not computed) */
	bool cached;
	const struct kidx_module *old; /* the index's entry for this path, if any */
	const struct kder *old_der;    /* ... and its derived record */

	/* depmod */
	uint32_t *deps;
	uint32_t n_deps;
	bool deps_own;
	struct tunres *unres;
	uint32_t n_unres;
	bool unres_own;
	int sort_idx;
	bool need_resolve, need_check, dm_ok, eng_ok;

	/* verdict */
	struct kder *der_own;	/* rebuilt this run */
	const struct kder *der; /* the derived record in force */
};

struct tproblem {
	char *path, *reason;
	int err;
};

/* A thread's messages: kept per module and replayed by the main thread. */
struct msgbuf {
	int *prio;
	char **text;
	size_t n, cap;
	int oom;
};

/* An entry of depmod's symbol table: its provider and CRC. */
struct msym {
	int32_t owner; /* module index, or -1: the kernel */
	uint64_t crc;
};

struct ksc_tree {
	int refcount;
	struct ksc_ctx *ctx;
	struct ksc_tree_opts opts;
	struct ksc_check_opts check;
	bool has_check;
	char *root, *release, *moddir, *index_path;
	char *root_arg; /* root as the caller gave it (ksc_tree_get_kernel()'s paths) */
	struct ksc_kernel_location *loc; /* the kernel locator's answer for root and release */
	struct ksc_depmod_cfg *dmcfg;    /* depmod.d: which file of a name wins (ksc-modset.c) */
	uint64_t modset_fp;              /* its fingerprint */
	char *policy;
	int dfd;
	struct timespec t0;
	int64_t start_ns;

	struct tmod *mods;
	size_t n_mods, cap_mods;
	struct hash by_name;   /* modname -> index + 1 (walk) */
	struct kidx_dir *dirs; /* the folders the walk read (for the index) */
	size_t n_dirs, cap_dirs;
	bool walk_clean;  /* no symbolic link, special file or problem met */
	bool walk_cached; /* the folders were unchanged: the index's module list used */
	/* pre_stat(): a folder of the index's walk changed, the tree is walked */
	atomic_bool walk_stale;
	char *walk_arena; /* cached_walk()'s strings */
	struct pre_job *pre_job; /* while pre_stat() runs */
	/* the kernel the checks run against (build_check_kernel()), for the check phase */
	struct ksc_kernel *ck;
	struct ksc_ctx *ck_ctx;
	struct msgbuf ck_msgs;
	int ck_err;
	struct tproblem *problems;
	size_t n_problems, cap_problems;
	/* the kernel's problems, while its exports load on a thread of their own */
	struct tproblem *kproblems;
	size_t n_kproblems, cap_kproblems;
	struct ksc_tree_problem *pub_problems;

	struct kidx idx;
	bool have_idx;
	enum ksc_tree_index_state index_state;
	bool dirty;

	/* modules.order */
	uint64_t order_fp;

	/* the kernel */
	enum ksrc_kind ksrc;
	char *ksrc_path, *config_path;
	uint64_t ksrc_id, config_id;
	unsigned int quirks;
	bool kernel_loaded, kernel_ok;
	struct ksc_symvers *ksv;
	struct ksc_module *kvm;
	struct ksc_sysmap *ksm;
	struct ksc_kernel *ktmpl; /* config and release, copied into each thread's kernel */
	/*
	 * depmod's symbol table: symbol -> index + 1 (as pointer) in ksyms_at, the kernel's
	 * first (loaded with them), then the modules' (added when resolving).
	 */
	struct hash ksyms;
	struct msym *ksyms_at;
	size_t n_ksyms, cap_ksyms;

	uint64_t ctx_fp, dm_fp, eng_fp, out_fp;
	bool any_resolve, any_check;
	int oom;

	/* results */
	size_t n_sorted;
	uint32_t *cycle_flat;
	size_t *cycle_lens, n_cycles;
	size_t **cycle_mods;
	struct ksc_tree_unresolved *unres;
	size_t n_unres;
	struct ksc_module_verdict *verdicts;
	bool *has_verdict;
	struct ksc_diag *diags;
	size_t n_diags;
	bool verdicts_on;

	/* outputs written this run, for the index */
	char *out_dir;
	struct kidx_output outs[8];
	char *out_names[8];
	size_t n_outs;
	bool outs_from_index;

	struct ksc_tree_stats st;
	atomic_ullong bytes_read, bytes_decompressed;
	atomic_ullong ns_read, ns_decompress, ns_parse, ns_check;
	atomic_size_t n_read;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The calling thread's CPU time: what the workers' split reports, whatever the load. */
static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int64_t st_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

/* Room in *a (n used, *cap allocated) for `more` problems. 0 or -ENOMEM. */
static int problems_room(struct tproblem **a, size_t n, size_t *cap, size_t more)
{
	if (n + more <= *cap)
		return 0;
	size_t c = *cap ? *cap : 16;
	while (c < n + more)
		c *= 2;
	struct tproblem *p = realloc(*a, c * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*a = p;
	*cap = c;
	return 0;
}

static void problems_free(struct tproblem *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].path);
		free(a[i].reason);
	}
}

static int push_problem(struct tproblem **a, size_t *n, size_t *cap, const char *path,
			int err, const char *fmt, va_list ap)
{
	char *reason;

	if (problems_room(a, *n, cap, 1) < 0)
		return -ENOMEM;
	if (vasprintf(&reason, fmt, ap) < 0)
		return -ENOMEM;
	char *p = strdup(path);
	if (!p) {
		free(reason);
		return -ENOMEM;
	}
	(*a)[(*n)++] = (struct tproblem){ p, reason, err };
	return 0;
}

static int add_problem(struct ksc_tree *t, const char *path, int err, const char *fmt,
		       ...) _printf_format_(4, 5);
static int add_problem(struct ksc_tree *t, const char *path, int err, const char *fmt,
		       ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = push_problem(&t->problems, &t->n_problems, &t->cap_problems, path, err, fmt,
			     ap);
	va_end(ap);
	return r;
}

/* A problem of the kernel's: kept apart until merge_kproblems() (see load_kernel()). */
static int kernel_problem(struct ksc_tree *t, const char *path, int err, const char *fmt,
			  ...) _printf_format_(4, 5);
static int kernel_problem(struct ksc_tree *t, const char *path, int err, const char *fmt,
			  ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = push_problem(&t->kproblems, &t->n_kproblems, &t->cap_kproblems, path, err,
			     fmt, ap);
	va_end(ap);
	return r;
}

/* The kernel's problems after the others so far, in the order they were met. */
static int merge_kproblems(struct ksc_tree *t)
{
	size_t n = t->n_kproblems;
	int r = problems_room(&t->problems, t->n_problems, &t->cap_problems, n);

	if (r < 0) {
		problems_free(t->kproblems, n);
	} else if (n) {
		memcpy(t->problems + t->n_problems, t->kproblems, n * sizeof(*t->kproblems));
		t->n_problems += n;
	}
	t->n_kproblems = 0;
	return r;
}

/* ---------------------------------------------------------------------------------- */
/* Threads                                                                            */

struct tpool;
typedef void (*job_fn)(struct tpool *p, size_t item, unsigned int worker);

struct tpool {
	struct ksc_tree *t;
	size_t n;
	const size_t *items; /* item indices, or NULL for 0..n-1 */
	atomic_size_t next, done;
	job_fn fn;
	void *data;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int running;
	const char *phase;
};

struct tworker {
	struct tpool *pool;
	unsigned int id;
};

static void *worker_main(void *arg)
{
	struct tworker *w = arg;
	struct tpool *p = w->pool;

	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		p->fn(p, p->items ? p->items[i] : i, w->id);
		atomic_fetch_add(&p->done, 1);
	}
	pthread_mutex_lock(&p->lock);
	if (--p->running == 0)
		pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void progress(struct ksc_tree *t, const char *phase, size_t done, size_t total)
{
	if (t->opts.progress)
		t->opts.progress(t->opts.progress_data, phase, done, total);
}

/*
 * Run fn over n items in up to `threads` threads. `side` (may be NULL) runs in the
 * calling thread meanwhile; then it reports progress until the workers are done.
 */
static void run_pool(struct ksc_tree *t, struct tpool *p, unsigned int threads,
		     void (*side)(struct ksc_tree *), const char *phase)
{
	pthread_t tid[256];
	struct tworker w[256];
	unsigned int started = 0;

	p->t = t;
	p->phase = phase;
	atomic_store(&p->next, 0);
	atomic_store(&p->done, 0);
	if (threads > p->n)
		threads = (unsigned int)p->n;
	if (threads > 256)
		threads = 256;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if (threads > 1) {
		p->running = threads;
		for (unsigned int i = 0; i < threads; i++) {
			w[i] = (struct tworker){ p, i };
			if (pthread_create(&tid[i], NULL, worker_main, &w[i]) != 0)
				break;
			started++;
		}
		pthread_mutex_lock(&p->lock);
		p->running -= threads - started;
		pthread_mutex_unlock(&p->lock);
	}
	if (started == 0) {
		/* No threads: the calling thread does it all, reporting as it goes. */
		if (side)
			side(t);
		for (size_t i = 0; i < p->n; i++) {
			p->fn(p, p->items ? p->items[i] : i, 0);
			if ((i & 63) == 0)
				progress(t, phase, i, p->n);
		}
		progress(t, phase, p->n, p->n);
		goto out;
	}
	if (side)
		side(t);
	pthread_mutex_lock(&p->lock);
	while (p->running > 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_unlock(&p->lock);
		progress(t, phase, atomic_load(&p->done), p->n);
		pthread_mutex_lock(&p->lock);
		if (p->running > 0)
			pthread_cond_timedwait(&p->cond, &p->lock, &ts);
	}
	pthread_mutex_unlock(&p->lock);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	progress(t, phase, p->n, p->n);
out:
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
}

static unsigned int default_jobs(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned int)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned int)n : 1;
}

static void msgbuf_log(void *data, int priority, const char *msg)
{
	struct msgbuf *b = data;

	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		int *p = realloc(b->prio, cap * sizeof(*p));
		if (p)
			b->prio = p;
		char **x = p ? realloc(b->text, cap * sizeof(*x)) : NULL;
		if (!x) {
			b->oom = 1;
			return;
		}
		b->text = x;
		b->cap = cap;
	}
	char *s = strdup(msg);
	if (!s) {
		b->oom = 1;
		return;
	}
	b->prio[b->n] = priority;
	b->text[b->n++] = s;
}

static void msgbuf_clear(struct msgbuf *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->text[i]);
	b->n = 0;
}

static void msgbuf_fini(struct msgbuf *b)
{
	msgbuf_clear(b);
	free(b->prio);
	free(b->text);
}

/* ---------------------------------------------------------------------------------- */
/* Step 1: the walk                                                                   */

/*
 * The walk is depth-first in readdir() order, as depmod's (which recurses per level and
 * follows symbolic links), but iterative: a stack of folders being read, so a chain of
 * folders as deep as PATH_MAX allows (~2,050 one-letter levels) takes no stack. The
 * first WALK_OPEN_MAX levels stay open while their subfolders are walked; a deeper
 * folder is read whole (the rest of its entries kept) and closed before its subfolder
 * is walked, so open files stay bounded; its entries are then reached by their path
 * below the tree's folder. Each folder is walked once by (device, inode): depmod walks
 * a folder again at every path that leads to it (2^N paths for a DAG of N levels of
 * links); a module found at two paths keeps the first in depmod too, unless the second
 * has the higher search priority.
 */
#define WALK_OPEN_MAX 64

struct wframe {
	DIR *d;      /* NULL once read whole into rest */
	char *rest;  /* then its entries left: d_type byte, name, NUL; ... */
	size_t n_rest, pos;
	size_t rlen; /* its path's length in walker.rel, with its '/' */
	uint32_t dir; /* its t->dirs entry, or KREC_NONE */
	dev_t dev;
	ino_t ino;
	int err; /* readdir()'s, reported when the folder is done */
};

struct walker {
	struct ksc_tree *t;
	struct wframe *stack; /* the folders being read, the tree's folder first */
	size_t depth, cap;
	struct ksc_dirset seen; /* every folder entered: its t->dirs entry */
	char rel[PATH_MAX];
	uint32_t dir; /* the folder being read (t->dirs), or KREC_NONE */
};

static void free_paths(struct tmod *m)
{
	if (!m->path_arena)
		free(m->path); /* relpath with it */
	if (!m->name_arena)
		free(m->modname);
	if (m->replaced_own)
		free(m->replaced);
	m->path = m->relpath = m->modname = m->replaced = NULL;
	m->replaced_own = false;
}

static int add_candidate(struct walker *w, size_t rlen)
{
	struct ksc_tree *t = w->t;
	const char *rel = w->rel;
	char name[PATH_MAX];
	size_t nl;

	ksc_kmod_modname(rel, name, sizeof(name), &nl);
	uintptr_t have = (uintptr_t)hash_find(&t->by_name, name);
	struct tmod *m;
	if (have) {
		m = &t->mods[have - 1];
		/*
		 * depmod_module_is_higher_priority(): the search order, overrides. The file
		 * kept remembers the first rival met, for "replaces" (ksc-modset.c's rule).
		 */
		bool keep = ksc_depmod_module_is_higher_priority(t->dmcfg, m->relpath, rel);
		if (!m->replaced) {
			m->replaced = strdup(keep ? rel : m->relpath);
			if (!m->replaced)
				return -ENOMEM;
			m->replaced_own = true;
		}
		if (keep)
			return 0;
		if (!m->path_arena)
			free(m->path); /* relpath with it */
		m->relpath = m->path = NULL;
	} else {
		if (t->n_mods == t->cap_mods) {
			size_t cap = t->cap_mods ? t->cap_mods * 2 : 1024;
			struct tmod *a = realloc(t->mods, cap * sizeof(*a));
			if (!a)
				return -ENOMEM;
			t->mods = a;
			t->cap_mods = cap;
		}
		m = &t->mods[t->n_mods];
		memset(m, 0, sizeof(*m));
		m->modname = malloc(nl + 1);
		if (!m->modname)
			return -ENOMEM;
		memcpy(m->modname, name, nl + 1);
		if (hash_add(&t->by_name, m->modname, (void *)(uintptr_t)(t->n_mods + 1), 0) <
		    0) {
			free_paths(m);
			return -ENOMEM;
		}
		t->n_mods++;
	}
	/* path is moddir/relpath, relpath its tail */
	size_t dl = strlen(t->moddir);
	char *p = malloc(dl + 1 + rlen + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p, t->moddir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, rel, rlen);
	p[dl + 1 + rlen] = '\0';
	m->path = p;
	m->path_arena = false;
	m->relpath = p + dl + 1;
	m->base_off = (size_t)(ksc_basename(m->relpath) - m->relpath);
	m->rank = 1;
	m->dir = w->dir;
	return 0;
}


/* Remember a folder the walk read, for the next run's check that nothing changed. */
static int note_dir(struct ksc_tree *t, const char *rel, const struct stat *st)
{
	if (t->n_dirs == t->cap_dirs) {
		size_t cap = t->cap_dirs ? t->cap_dirs * 2 : 256;
		struct kidx_dir *d = realloc(t->dirs, cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		t->dirs = d;
		t->cap_dirs = cap;
	}
	char *r = strdup(rel);
	if (!r)
		return -ENOMEM;
	int64_t mt = st_mtime_ns(st);
	t->dirs[t->n_dirs++] =
		(struct kidx_dir){ r, (uint64_t)st->st_ino,
				   mt > t->start_ns - RACY_NS ? KREC_RACY : mt };
	return 0;
}

/* The rest of a folder's entries into f->rest, and the folder closed. 0 or -ENOMEM. */
static int read_rest(struct walker *w, struct wframe *f)
{
	size_t cap = 0;
	struct dirent *de;

	while ((errno = 0, de = readdir(f->d)) != NULL) {
		if (ksc_depmod_should_exclude_dir(w->t->dmcfg, de->d_name))
			continue;
		size_t nl = strlen(de->d_name);
		if (f->n_rest + nl + 2 > cap) {
			cap = cap ? cap * 2 : 4096;
			cap = cap < f->n_rest + nl + 2 ? f->n_rest + nl + 2 : cap;
			char *r = realloc(f->rest, cap);
			if (!r)
				return -ENOMEM;
			f->rest = r;
		}
		f->rest[f->n_rest] = (char)de->d_type;
		memcpy(f->rest + f->n_rest + 1, de->d_name, nl + 1);
		f->n_rest += nl + 2;
	}
	f->err = errno;
	closedir(f->d);
	f->d = NULL;
	return 0;
}

/* The top folder's next entry (depmod's excluded names skipped); false at its end. */
static bool next_entry(struct walker *w, struct wframe *f, const char **name,
		       unsigned char *type)
{
	if (!f->d) {
		if (f->pos >= f->n_rest)
			return false;
		*type = (unsigned char)f->rest[f->pos];
		*name = f->rest + f->pos + 1;
		f->pos += strlen(*name) + 2;
		return true;
	}
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(f->d);
		if (!de) {
			f->err = errno;
			return false;
		}
		if (ksc_depmod_should_exclude_dir(w->t->dmcfg, de->d_name))
			continue;
		*name = de->d_name;
		*type = de->d_type;
		return true;
	}
}

/* Where the top folder's entry `name` (in w->rel) is: its folder's fd and name in it. */
static int entry_at(const struct walker *w, const struct wframe *f, const char *name,
		    const char **at)
{
	if (f->d) {
		*at = name;
		return dirfd(f->d);
	}
	*at = w->rel;
	return w->t->dfd;
}

static int pop_folder(struct walker *w)
{
	struct ksc_tree *t = w->t;
	struct wframe *f = &w->stack[--w->depth];
	int ret = 0;

	if (f->err) {
		w->rel[f->rlen] = '\0';
		ret = add_problem(t, t->moddir, -f->err, "%s%s%s", w->rel,
				  f->rlen ? ": " : "", strerror(f->err));
	}
	if (f->d)
		closedir(f->d);
	free(f->rest);
	w->dir = w->depth ? w->stack[w->depth - 1].dir : KREC_NONE;
	return ret;
}

/* Walk the folder fd (w->rel, rlen with its '/'): on the stack. Takes fd. */
static int push_folder(struct walker *w, int fd, size_t rlen, const struct stat *st)
{
	if (w->depth == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 32;
		struct wframe *s = realloc(w->stack, cap * sizeof(*s));
		if (!s) {
			close(fd);
			return -ENOMEM;
		}
		w->stack = s;
		w->cap = cap;
	}
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		w->rel[rlen] = '\0';
		return add_problem(w->t, rlen ? w->rel : w->t->moddir, -e, "%s",
				   strerror(e));
	}
	w->stack[w->depth++] = (struct wframe){ .d = d, .rlen = rlen, .dir = w->dir,
						.dev = st->st_dev, .ino = st->st_ino };
	if (w->depth > WALK_OPEN_MAX && w->stack[w->depth - 2].d)
		return read_rest(w, &w->stack[w->depth - 2]);
	return 0;
}

/* A problem of the entry in w->rel, named by its full path. */
static int entry_problem(struct walker *w, int err, const char *reason)
{
	char *full;

	if (asprintf(&full, "%s/%s", w->t->moddir, w->rel) < 0)
		return -ENOMEM;
	int r = add_problem(w->t, full, err, "%s", reason);
	free(full);
	return r;
}

/*
 * The folder `name` of the top folder (w->rel holds its path, rel_end long), at `at` in
 * dfd: walked unless it was walked before (a loop: a problem; another path to it: a
 * warning naming the first).
 */
static int enter_folder(struct walker *w, int dfd, const char *at, size_t rel_end)
{
	struct ksc_tree *t = w->t;
	struct stat st;
	int fd = openat(dfd, at, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return entry_problem(w, -e, strerror(e));
	}
	size_t first = t->n_dirs;
	int r = ksc_dirset_add(&w->seen, st.st_dev, st.st_ino, &first);
	if (r <= 0) {
		close(fd);
		if (r < 0)
			return r;
		for (size_t i = 0; i < w->depth; i++)
			if (w->stack[i].dev == st.st_dev && w->stack[i].ino == st.st_ino)
				return entry_problem(w, -ELOOP, "symbolic link loop");
		ksc_warn(t->ctx, "%s/%s: already walked as %s: skipped", t->moddir,
			 w->rel, first < t->n_dirs ? t->dirs[first].relpath : "?");
		return 0;
	}
	if (note_dir(t, w->rel, &st) < 0) {
		close(fd);
		return -ENOMEM;
	}
	w->rel[rel_end] = '/';
	w->rel[rel_end + 1] = '\0';
	w->dir = (uint32_t)(t->n_dirs - 1);
	return push_folder(w, fd, rel_end + 1, &st);
}

/* One entry of the top folder: a module file noted, a folder entered. */
static int walk_entry(struct walker *w, const char *name, unsigned char type)
{
	struct ksc_tree *t = w->t;
	const struct wframe *f = &w->stack[w->depth - 1];
	size_t rlen = f->rlen, nl = strlen(name);
	struct stat st;
	const char *at;

	if (rlen + nl + 2 >= sizeof(w->rel)) {
		char *full;
		if (asprintf(&full, "%s/%.*s%s", t->moddir, (int)rlen, w->rel, name) < 0)
			return -ENOMEM;
		int r = add_problem(t, full, -ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
		free(full);
		return r;
	}
	memcpy(w->rel + rlen, name, nl + 1);
	int dfd = entry_at(w, f, w->rel + rlen, &at);
	if (type != DT_REG && type != DT_DIR) {
		t->walk_clean = false; /* a link's target can change without its folder */
		if (fstatat(dfd, at, &st, 0) < 0) {
			int e = errno;
			struct stat lst;
			if (e == ELOOP)
				return entry_problem(w, -ELOOP, "symbolic link loop");
			if (e == ENOENT &&
			    fstatat(dfd, at, &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(lst.st_mode))
				return entry_problem(w, -ENOENT,
						     "dangling symbolic link");
			return entry_problem(w, -e, strerror(e));
		}
		type = S_ISREG(st.st_mode)   ? DT_REG
		       : S_ISDIR(st.st_mode) ? DT_DIR
					     : DT_UNKNOWN;
		if (type == DT_UNKNOWN) {
			char why[80];
			snprintf(why, sizeof(why), "unsupported file type (%s)",
				 ksc_file_kind(st.st_mode));
			return entry_problem(w, -EINVAL, why);
		}
	}
	if (type == DT_REG)
		return ksc_path_is_module_name(name) ? add_candidate(w, rlen + nl) : 0;
	return enter_folder(w, dfd, at, rlen + nl);
}

static int do_walk(struct ksc_tree *t)
{
	struct walker w = { .t = t, .dir = KREC_NONE };
	struct stat st;
	int fd = openat(t->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t root;
	int r;

	if (fd < 0)
		return add_problem(t, t->moddir, -errno, "%s", strerror(errno));
	t->walk_clean = true;
	if (fstat(fd, &st) < 0) {
		r = add_problem(t, t->moddir, -errno, "%s", strerror(errno));
		close(fd);
		return r;
	}
	w.rel[0] = '\0';
	root = t->n_dirs;
	if (note_dir(t, "", &st) < 0 ||
	    ksc_dirset_add(&w.seen, st.st_dev, st.st_ino, &root) < 0) {
		close(fd);
		return -ENOMEM;
	}
	w.dir = (uint32_t)(t->n_dirs - 1);
	size_t problems = t->n_problems;
	r = push_folder(&w, fd, 0, &st);
	while (r >= 0 && w.depth) {
		const char *name;
		unsigned char type;
		if (next_entry(&w, &w.stack[w.depth - 1], &name, &type))
			r = walk_entry(&w, name, type);
		else
			r = pop_folder(&w);
	}
	while (w.depth)
		pop_folder(&w);
	free(w.stack);
	ksc_dirset_fini(&w.seen);
	if (t->n_problems != problems)
		t->walk_clean = false;
	return r;
}

/*
 * The walk of the last run again, without reading folders: when every folder it read is
 * still the same (inode, modification time, not modified within the clock's granularity
 * of that run) and it met no symbolic link, the same files are there: its module list
 * is this one. pre_stat() runs this only for an index with folders, none of them
 * modified within the clock's granularity, and checks the folders at the same time.
 * 1 when used, 0 when a walk is needed, -ENOMEM.
 */
static int cached_walk(struct ksc_tree *t)
{
	const struct kidx *idx = &t->idx;
	size_t n = idx->n_mods;

	if (hash_reserve(&t->by_name, n) < 0)
		return -ENOMEM;
	if (t->cap_mods < n) {
		struct tmod *a = realloc(t->mods, n * sizeof(*a));
		if (!a)
			return -ENOMEM;
		t->mods = a;
		t->cap_mods = n;
	}
	/*
	 * Every module's path in one block, its relpath the path's tail; its name is the
	 * index's (the walk that wrote the index made it). No folder is read.
	 */
	size_t need = 0, dl = strlen(t->moddir);
	for (size_t i = 0; i < n; i++) {
		size_t rl = strlen(idx->mods[i].relpath);
		if (rl >= PATH_MAX)
			return 0;
		need += dl + 1 + rl + 1;
	}
	free(t->walk_arena);
	t->walk_arena = malloc(need ? need : 1);
	if (!t->walk_arena)
		return -ENOMEM;
	char *p = t->walk_arena;
	for (size_t i = 0; i < n; i++) {
		const struct kidx_module *km = &idx->mods[i];
		struct tmod *m = &t->mods[i];
		size_t rl = strlen(km->relpath);
		memset(m, 0, sizeof(*m));
		memcpy(p, t->moddir, dl);
		p[dl] = '/';
		memcpy(p + dl + 1, km->relpath, rl + 1);
		m->path = p;
		m->relpath = p + dl + 1;
		p += dl + 1 + rl + 1;
		m->modname = (char *)km->modname; /* the index outlives the walk */
		m->replaced = (char *)km->replaced;
		m->path_arena = m->name_arena = true;
		m->base_off = (size_t)(ksc_basename(m->relpath) - m->relpath);
		m->rank = 1;
		m->dir = km->dir;
		t->n_mods = i + 1;
		/* a name twice is not the list of one walk: walk */
		int r = hash_add(&t->by_name, m->modname, (void *)(uintptr_t)(i + 1), 1);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	for (size_t i = 0; i < idx->n_dirs; i++) {
		struct stat fake = { .st_ino = (ino_t)idx->dirs[i].ino };
		fake.st_mtim.tv_sec = (time_t)(idx->dirs[i].mtime_ns / 1000000000LL);
		fake.st_mtim.tv_nsec = (long)(idx->dirs[i].mtime_ns % 1000000000LL);
		if (note_dir(t, idx->dirs[i].relpath, &fake) < 0)
			return -ENOMEM;
	}
	t->walk_clean = t->walk_cached = true; /* its folders: checked by pre_stat() */
	return 1;
}

static void drop_walk(struct ksc_tree *t)
{
	for (size_t i = 0; i < t->n_mods; i++) {
		free_paths(&t->mods[i]);
		free(t->mods[i].rec_own);
	}
	free(t->walk_arena);
	t->walk_arena = NULL;
	atomic_store(&t->walk_stale, false);
	t->n_mods = 0;
	hash_fini(&t->by_name);
	hash_init(&t->by_name);
	for (size_t i = 0; i < t->n_dirs; i++)
		free((char *)t->dirs[i].relpath);
	t->n_dirs = 0;
	t->walk_clean = t->walk_cached = false;
}

/*
 * depmod's "uncrelpath": the path up to the basename, then modname-length bytes and
 * ".ko"'s length.
 */
static size_t order_lookup(void *data, const char *line)
{
	struct hash *h = data;

	return (size_t)(uintptr_t)hash_find(h, line);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct tmod *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->hash_pos < y->hash_pos ? -1 : x->hash_pos > y->hash_pos; /* stable */
}

static int order_modules(struct ksc_tree *t)
{
	size_t n = t->n_mods;
	const char **names = malloc((n ? n : 1) * sizeof(*names));
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
	char **uncrel = calloc(n ? n : 1, sizeof(*uncrel));
	struct hash h;
	int ret = -ENOMEM;

	hash_init(&h);
	if (!names || !order || !uncrel)
		goto out;
	/* modules.order: matched against depmod's uncompressed relative path. */
	int fd = openat(t->dfd, "modules.order", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char *data = NULL;
	size_t size = 0;
	int oerr = fd < 0 ? errno : 0;
	struct stat ost;
	t->order_fp = 0;
	if (fd >= 0) {
		if (fstat(fd, &ost) < 0)
			oerr = errno;
		else if (!S_ISREG(ost.st_mode))
			oerr = EINVAL;
		if (oerr) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0) {
		if (ost.st_size >= 0) {
			size_t cap = (size_t)ost.st_size + 1;
			data = malloc(cap);
			while (data) {
				ssize_t k = read(fd, data + size, cap - size);
				if (k < 0 && errno == EINTR)
					continue;
				if (k <= 0)
					break;
				size += (size_t)k;
				if (size == cap) {
					char *x = realloc(data, cap *= 2);
					if (!x) {
						free(data);
						data = NULL;
					} else {
						data = x;
					}
				}
			}
		}
		close(fd);
		if (!data) {
			ret = -ENOMEM;
			goto out;
		}
		t->order_fp = ksc_hash64(data, size, 11);
	} else if (oerr != ENOENT) {
		ksc_warn(t->ctx, "%s/modules.order: %s", t->moddir,
			 oerr == EINVAL ? "not a regular file" : strerror(oerr));
	}
	/*
	 * The walk of the last run (same files, listed in the order that run sorted them)
	 * and the same modules.order, read without a problem: the same order.
	 */
	if (t->walk_cached && (data || oerr == ENOENT) && t->idx.order_fp == t->order_fp) {
		ret = 0;
		free(data);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = t->mods[i].modname;
	ret = ksc_depmod_hash_order(names, n, 512, order);
	if (ret < 0) {
		free(data);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		t->mods[order[i]].hash_pos = (uint32_t)i;
	ret = -ENOMEM;
	if (data) {
		for (size_t i = 0; i < n; i++) {
			struct tmod *m = &t->mods[i];
			size_t nl = strlen(m->modname);
			size_t len = m->base_off + nl + 3;
			size_t rl = strlen(m->relpath);
			uncrel[i] = strndup(m->relpath, len < rl ? len : rl);
			if (!uncrel[i] ||
			    hash_add(&h, uncrel[i], (void *)(uintptr_t)(i + 1), 1) < 0)
				goto out;
		}
		int *rank = malloc((n ? n : 1) * sizeof(*rank));
		if (!rank)
			goto out;
		for (size_t i = 0; i < n; i++)
			rank[i] = 1;
		if (ksc_depmod_rank(data, size, order_lookup, &h, rank)) {
			for (size_t i = 0; i < n; i++)
				t->mods[i].rank = rank[i];
		} else {
			ksc_warn(
				t->ctx, "%s/modules.order: a line misses its newline; the order is not used (as depmod)",
				t->moddir);
			t->order_fp ^= 1;
		}
		free(rank);
		free(data);
	}
	if (n > 1)
		qsort(t->mods, n, sizeof(*t->mods), cmp_rank);
	ret = 0;
out:
	hash_fini(&h);
	if (uncrel)
		for (size_t i = 0; i < n; i++)
			free(uncrel[i]);
	free(uncrel);
	free(names);
	free(order);
	return ret;
}

/* ---------------------------------------------------------------------------------- */
/* Step 2: reading modules                                                            */

struct range {
	uint64_t off, len;
};

struct img {
	unsigned char *data;
	size_t size, map_size;
	bool mapped, sparse, borrowed; /* borrowed: a buffer of the worker's */
	struct range *r;
	size_t nr, cap;
};

struct rstate {
	struct ksc_ctx *ctx;
	struct msgbuf msgs;
	unsigned char
		*buf; /* reused for every file read whole: no fresh pages per module */
	size_t buf_cap;
	/*
	 * Reused for sparse images: all zero but while an image is in it (the bytes not
	 * loaded must read as zero, as in a fresh mapping); the loaded ranges are zeroed
	 * again when the image is freed. No mapping, page faults or TLB shootdowns per file.
	 */
	unsigned char *sbuf;
	size_t sbuf_cap;
	struct rbuf rb; /* records are built in it (ksc_krec_build()) */
	uint64_t ns_read, ns_decompress, ns_parse, bytes_read, bytes_decompressed;
	int oom;
};

static void img_free(struct img *im)
{
	if (im->mapped && !im->borrowed)
		munmap(im->data, im->map_size);
	else if (im->mapped) /* the worker's sparse buffer: zero what was loaded */
		for (size_t i = 0; i < im->nr; i++)
			memset(im->data + im->r[i].off, 0, im->r[i].len);
	else if (!im->borrowed)
		free(im->data);
	free(im->r);
	memset(im, 0, sizeof(*im));
}

static void rstate_fini(struct rstate *w)
{
	rbuf_fini(&w->rb);
	free(w->buf);
	if (w->sbuf)
		munmap(w->sbuf, w->sbuf_cap);
	w->buf = w->sbuf = NULL;
	w->buf_cap = w->sbuf_cap = 0;
}

static bool img_loaded(void *data, uint64_t off, uint64_t len)
{
	const struct img *im = data;

	for (size_t i = 0; i < im->nr; i++)
		if (off >= im->r[i].off && off - im->r[i].off <= im->r[i].len &&
		    len <= im->r[i].len - (off - im->r[i].off))
			return true;
	return false;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* pread exactly len bytes; -EIO when the file is shorter than it said. */
static int pread_all(int fd, void *buf, size_t len, uint64_t off, struct rstate *w)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t k = pread(fd, p, len, (off_t)off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		p += k;
		len -= (size_t)k;
		off += (uint64_t)k;
		w->bytes_read += (uint64_t)k;
	}
	return 0;
}

static int img_range(struct img *im, int fd, uint64_t off, uint64_t len, struct rstate *w)
{
	if (len == 0 || off > im->size || len > im->size - off)
		return 0;
	if (img_loaded(im, off, len))
		return 0;
	if (im->nr == im->cap) {
		size_t cap = im->cap ? im->cap * 2 : 32;
		struct range *r = realloc(im->r, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		im->r = r;
		im->cap = cap;
	}
	int ret = pread_all(fd, im->data + off, (size_t)len, off, w);
	if (ret < 0) {
		memset(im->data + off, 0, (size_t)len); /* a short read left bytes there */
		return ret;
	}
	im->r[im->nr++] = (struct range){ off, len };
	return 0;
}

static int img_full(struct img *im, int fd, size_t size, struct rstate *w)
{
	img_free(im);
	if (size <= SPARSE_MIN) {
		if (w->buf_cap < size) {
			size_t cap = w->buf_cap ? w->buf_cap : 64 * 1024;
			while (cap < size)
				cap *= 2;
			unsigned char *b = realloc(w->buf, cap);
			if (!b)
				return -ENOMEM;
			w->buf = b;
			w->buf_cap = cap;
		}
		im->data = w->buf;
		im->borrowed = true;
	} else {
		im->data = malloc(size ? size : 1);
		if (!im->data)
			return -ENOMEM;
	}
	im->size = size;
	return pread_all(fd, im->data, size, 0, w);
}

/* Sort the n ranges and join those less than `gap` bytes apart; the new count. */
static size_t merge_ranges(struct range *r, size_t n, uint64_t gap)
{
	size_t k = 0;

	if (n == 0)
		return 0;
	qsort(r, n, sizeof(*r), cmp_range);
	for (size_t i = 1; i < n; i++) {
		if (r[i].off <= r[k].off + r[k].len + gap) {
			uint64_t end = r[i].off + r[i].len;
			if (end > r[k].off + r[k].len)
				r[k].len = end - r[k].off;
		} else {
			r[++k] = r[i];
		}
	}
	return k + 1;
}

/* The section headers img_sparse() uses. */
struct sparse_shdr {
	uint32_t name, type, link, info;
	uint64_t off, size;
};

/*
 * The sections the readers use, marked in need[]: ksc_elf_section_names
 * (ksc_elf_section_id()), .strtab and the REL/RELA of the export tables (names: the
 * loaded section name table). False when the layout needs the whole file.
 */
static bool sparse_need(const struct sparse_shdr *s, unsigned int shnum, const char *names,
			uint64_t names_size, unsigned char *need)
{
	const char *nend = names + names_size;
	bool ok, ksymtab = false, strings = false;
	unsigned int tables[4] = { 0, 0, 0, 0 }; /* __ksymtab, _gpl, __kcrctab, _gpl */
	for (unsigned int i = 1; i < shnum; i++) {
		if (s[i].name >= names_size)
			continue;
		const char *nm = names + s[i].name;
		if (!memchr(nm, '\0', (size_t)(nend - nm)))
			continue;
		int id = ksc_elf_section_id(nm);
		if (id >= 0 || strcmp(nm, ".strtab") == 0)
			need[i] = 1;
		/* ksc_elf_section_names: __ksymtab, _gpl, __kcrctab, _gpl, __ksymtab_strings */
		if (id == 0 || id == 1)
			ksymtab = true;
		if (id == 4)
			strings = true;
		if (id >= 0 && id < 4 && !tables[id])
			tables[id] = i;
		if (s[i].type == SHT_SYMTAB) {
			need[i] = 1;
			if (s[i].link < shnum)
				need[s[i].link] = 1;
		}
	}
	ok = !(ksymtab && !strings);
	for (unsigned int i = 1; i < shnum && ok; i++) {
		if (s[i].type != SHT_RELA && s[i].type != SHT_REL)
			continue;
		for (int k = 0; k < 4; k++) {
			if (!tables[k] || s[i].info != tables[k])
				continue;
			if (k >= 2)
				ok = false; /* relocated CRCs: the targets could be anywhere */
			need[i] = 1;
		}
	}
	return ok;
}

/*
 * A large uncompressed module: an anonymous mapping of the file's size (untouched pages
 * cost nothing), filled with only the byte ranges the two readers look at: the ELF
 * header, the section headers and their names, the symbol table and its strings, the
 * kernel's tables and the relocations of the export tables, and the last bytes (the
 * signature marker). When the layout needs anything else (export names outside
 * __ksymtab_strings, relocated CRC tables, extended section numbering), or is not
 * plain ELF, *full is set and nothing is kept. Bounds are left for the readers to
 * check: out-of-file sections are simply not loaded.
 */
static int img_sparse(struct img *im, int fd, size_t size, struct rstate *w, bool *full)
{
	unsigned char h[64];
	struct elfview v;
	int ret;

	*full = true;
	if (size < 64 || pread_all(fd, h, 64, 0, w) < 0 || !elfview_open(&v, h, 64))
		return 0;
	unsigned int shnum = v.shnum, shstrndx = v.shstrndx;
	if (v.shentsize != elfview_shdr_size(&v) || shnum == 0 || shnum >= SHN_LORESERVE ||
	    shstrndx >= shnum || v.shoff > size ||
	    (uint64_t)shnum * v.shentsize > size - v.shoff)
		return 0;

	if (size <= SBUF_MAX) {
		if (w->sbuf_cap < size) {
			size_t cap = w->sbuf_cap ? w->sbuf_cap : 1024 * 1024;
			while (cap < size)
				cap *= 2;
			void *b = mmap(NULL, cap, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (b == MAP_FAILED)
				return 0;
			if (w->sbuf)
				munmap(w->sbuf, w->sbuf_cap);
			w->sbuf = b;
			w->sbuf_cap = cap;
		}
		im->data = w->sbuf;
		im->map_size = w->sbuf_cap;
		im->borrowed = true;
	} else {
		im->map_size = size;
		im->data = mmap(NULL, size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (im->data == MAP_FAILED) {
			im->data = NULL;
			return 0;
		}
	}
	im->mapped = true;
	im->sparse = true;
	im->size = size;
	im->r = malloc(32 * sizeof(*im->r));
	if (!im->r) {
		img_free(im); /* nothing loaded yet */
		return -ENOMEM;
	}
	im->cap = 32;
	memcpy(im->data, h, 64);
	im->r[im->nr++] = (struct range){ 0, 64 };
	/*
	 * The section headers with what usually precedes them (.shstrtab), in one read.
	 */
	uint64_t hdr_end = v.shoff + (uint64_t)shnum * v.shentsize;
	uint64_t from = v.shoff > TAIL_SLACK ? v.shoff - TAIL_SLACK : 0;
	if (from < 64)
		from = 64;
	ret = img_range(im, fd, from, (hdr_end > from ? hdr_end : from + 1) - from, w);
	if (ret < 0)
		return ret;
	struct sparse_shdr *s = calloc(shnum, sizeof(*s));
	if (!s)
		return -ENOMEM;
	v.m = im->data; /* the header and the section headers are loaded */
	v.size = size;
	for (unsigned int i = 0; i < shnum; i++) {
		s[i].name = (uint32_t)elfview_shdr(&v, i, sh_name);
		s[i].type = (uint32_t)elfview_shdr(&v, i, sh_type);
		s[i].off = elfview_shdr(&v, i, sh_offset);
		s[i].size = elfview_shdr(&v, i, sh_size);
		s[i].link = (uint32_t)elfview_shdr(&v, i, sh_link);
		s[i].info = (uint32_t)elfview_shdr(&v, i, sh_info);
	}
	const struct sparse_shdr *ss = &s[shstrndx];
	if (ss->type == SHT_NOBITS || ss->size == 0 || ss->off > size ||
	    ss->size > size - ss->off) {
		free(s);
		return 0;
	}
	ret = img_range(im, fd, ss->off, ss->size, w);
	if (ret < 0) {
		free(s);
		return ret;
	}
	const char *names = (const char *)im->data + ss->off;
	unsigned char *need = calloc(shnum, 1);
	if (!need) {
		free(s);
		return -ENOMEM;
	}
	bool ok = sparse_need(s, shnum, names, ss->size, need);
	/* The sections, and the tail (signature marker): nearby ranges read together. */
	struct range *want = ok ? malloc((shnum + 1) * sizeof(*want)) : NULL;
	size_t nw = 0;
	if (ok && !want)
		ret = -ENOMEM;
	for (unsigned int i = 1; want && i < shnum; i++)
		if (need[i] && s[i].type != SHT_NOBITS && s[i].size && s[i].off <= size &&
		    s[i].size <= size - s[i].off && !img_loaded(im, s[i].off, s[i].size))
			want[nw++] = (struct range){ s[i].off, s[i].size };
	uint64_t tail = size < 64 ? size : 64;
	if (want && !img_loaded(im, size - tail, tail))
		want[nw++] = (struct range){ size - tail, tail };
	if (want)
		nw = merge_ranges(want, nw, GAP_MERGE);
	for (size_t i = 0; i < nw && ret >= 0; i++)
		ret = img_range(im, fd, want[i].off, want[i].len, w);
	free(want);
	free(need);
	free(s);
	if (ret < 0 || !ok)
		return ret;
	im->nr = merge_ranges(im->r, im->nr, 0);
	*full = false;
	return 0;
}


/*
 * The library's reader on an image in memory, without copying it
 * (ksc_module_new_from_memory copies).
 */
static int parse_engine(struct ksc_ctx *ctx, const char *path, const struct img *im,
			enum ksc_compression comp, struct ksc_module **out)
{
	struct ksc_module *mod = ksc_module_alloc(ctx);
	int r;

	*out = NULL;
	if (!mod)
		return -ENOMEM;
	mod->path = pool_strdup(&mod->strings, path);
	mod->compression = comp;
	if (!mod->path) {
		ksc_module_unref(mod);
		return -ENOMEM;
	}
	struct ksc_blob b = { im->data, im->size, comp };
	r = ksc_elf_parse_module(mod, &b);
	if (r == 0)
		r = ksc_module_set_names(mod, path);
	if (r < 0) {
		ksc_module_unref(mod);
		return r;
	}
	*out = mod;
	return 0;
}

static void read_module(struct ksc_tree *t, struct tmod *m, struct rstate *w)
{
	const bool timing = t->opts.timing;
	uint64_t t0 = timing ? now_ns() : 0, t1;
	struct img im = { 0 };
	struct kview kv;
	struct ksc_module *mod = NULL;
	struct stat st;
	struct krec_src src = { .scratch = &w->rb, .relpath = m->relpath };
	enum ksc_compression comp = KSC_COMPRESSION_NONE;
	bool have_kv = false;
	int fd, r = 0;

	memset(&kv, 0, sizeof(kv));
	msgbuf_clear(&w->msgs);
	src.mtime_ns = KREC_RACY;
	fd = openat(t->dfd, m->relpath, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		src.err = -errno;
		src.unreadable = true;
		ksc_err(w->ctx, "%s: %s", m->path, strerror(-src.err));
		goto record;
	}
	if (!S_ISREG(st.st_mode)) {
		src.err = -EINVAL;
		src.unreadable = true;
		ksc_err(w->ctx, "%s: not a regular file", m->path);
		goto record;
	}
	src.file_size = (uint64_t)st.st_size;
	src.ino = (uint64_t)st.st_ino;
	src.mtime_ns = st_mtime_ns(&st);
	if (src.mtime_ns > t->start_ns - RACY_NS)
		src.mtime_ns =
			KREC_RACY; /* could change again within the clock's granularity */
	size_t size = (size_t)st.st_size;
	if ((uint64_t)st.st_size > ((uint64_t)2 << 30)) {
		src.err = -EFBIG;
		ksc_err(w->ctx, "%s: file too large", m->path);
		goto record;
	}
	unsigned char magic[6] = { 0 };
	if (size >= sizeof(magic) && (r = pread_all(fd, magic, sizeof(magic), 0, w)) < 0)
		goto ioerr;
	comp = ksc_detect_compression(magic, size < sizeof(magic) ? 0 : sizeof(magic));
	if (comp != KSC_COMPRESSION_NONE || size == 0) {
		r = img_full(&im, fd, size, w);
		if (r < 0)
			goto ioerr;
		t1 = timing ? now_ns() : 0;
		w->ns_read += t1 - t0;
		t0 = t1;
		struct ksc_blob blob;
		r = ksc_blob_load(w->ctx, m->path, im.data, size, &blob);
		img_free(&im);
		t1 = timing ? now_ns() : 0;
		w->ns_decompress += t1 - t0;
		t0 = t1;
		if (r < 0) {
			src.err = r;
			goto record;
		}
		im.data = blob.data;
		im.size = blob.size;
		if (comp != KSC_COMPRESSION_NONE)
			w->bytes_decompressed += blob.size;
	} else {
		bool full = true;
		if (size >= SPARSE_MIN) {
			r = img_sparse(&im, fd, size, w, &full);
			if (r < 0)
				goto ioerr;
		}
		if (full && (r = img_full(&im, fd, size, w)) < 0)
			goto ioerr;
		t1 = timing ? now_ns() : 0;
		w->ns_read += t1 - t0;
		t0 = t1;
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		/*
		 * The signature block, for ksc-sig.c (a sparse image has its last 64
		 * bytes).
		 */
		src.sigtail_len = ksc_sig_tail_len(im.data, im.size);
		if (im.sparse && src.sigtail_len &&
		    (r = img_range(&im, fd, im.size - src.sigtail_len, src.sigtail_len,
				   w)) < 0)
			goto ioerr;
		src.sigtail = im.data + im.size - src.sigtail_len;
		r = parse_engine(w->ctx, m->path, &im, comp, &mod);
		if (r == -ENOMEM)
			goto oom;
		src.err = r;
		r = ksc_kview_read(im.data, im.size, im.sparse ? img_loaded : NULL, &im,
				   mod != NULL, &kv);
		if (r < 0)
			goto oom;
		have_kv = true;
		if (!kv.incomplete)
			break;
		/*
		 * kmod's view needed bytes the sparse image lacks: read everything,
		 * again.
		 */
		ksc_kview_free(&kv);
		ksc_module_unref(mod);
		mod = NULL;
		have_kv = false;
		msgbuf_clear(&w->msgs);
		t1 = timing ? now_ns() : 0;
		w->ns_parse += t1 - t0;
		t0 = t1;
		r = img_full(&im, fd, size, w);
		if (r < 0)
			goto ioerr;
		t1 = timing ? now_ns() : 0;
		w->ns_read += t1 - t0;
		t0 = t1;
	}
	goto record;
ioerr:
	src.err = r;
	src.unreadable = true;
	src.mtime_ns = KREC_RACY;
	ksc_err(w->ctx, "%s: %s", m->path, strerror(-r));
	goto record;
oom:
	w->oom = 1;
record:
	if (fd >= 0)
		close(fd);
	src.mod = mod;
	src.kv = have_kv ? &kv : NULL;
	if (src.unreadable)
		src.mtime_ns = KREC_RACY;
	if (!mod && src.err == 0)
		src.err = -EINVAL;
	src.msg_prio = w->msgs.prio;
	src.msg_text = (const char *const *)w->msgs.text;
	src.n_msgs = w->msgs.n;
	struct krec *rec = NULL;
	if (ksc_krec_build(&src, &rec) < 0)
		w->oom = 1;
	m->rec_own = rec;
	m->rec = rec;
	img_free(&im); /* the kmod view pointed into it */
	ksc_kview_free(&kv);
	ksc_module_unref(mod);
	if (timing)
		w->ns_parse += now_ns() - t0;
}

/*
 * The index's modules of one folder of its walk (pre_stat()): the folder is checked, and
 * its modules looked at by path or, in a larger folder, by name relative to it. Folder
 * SIZE_MAX: modules not under a listed folder.
 */
struct rgroup {
	size_t dir;
	uint32_t start, n; /* in read_job.gmods */
};

struct read_job {
	struct rstate *ws;
	bool use_index;
};

/* Is dfd/name the file the index read (size, inode, modification time)? */
static bool same_file(const struct krec_sum *o, int dfd, const char *name)
{
	struct stat st;

	return o && o->mtime_ns != KREC_RACY && fstatat(dfd, name, &st, 0) == 0 &&
	       S_ISREG(st.st_mode) && (uint64_t)st.st_size == o->file_size &&
	       (uint64_t)st.st_ino == o->ino && st_mtime_ns(&st) == o->mtime_ns;
}

/* Module m's file is the one the index read: take the index's record. */
static bool still_indexed(struct tmod *m, int dfd, const char *name)
{
	const struct krec_sum *o = m->old ? &m->old->sum : NULL;

	if (!same_file(o, dfd, name))
		return false;
	m->sum = *o;
	m->rec = m->old->rec; /* NULL until fetched */
	m->cached = true;
	return true;
}

static void read_one(struct ksc_tree *t, struct read_job *j, struct tmod *m,
		     struct rstate *w, int dfd, const char *name)
{
	if (j->use_index && still_indexed(m, dfd, name))
		return;
	read_module(t, m, w);
	if (m->rec)
		ksc_krec_sum(m->rec, &m->sum);
	if (m->rec_own && t->index_path) /* here, in parallel, not when the index is saved */
		m->rec_hash = ksc_hash64(m->rec_own, m->rec_own->size, KREC_HASH_SEED);
}

/*
 * Check the folder of group g of the index's walk. A folder with a few modules (most):
 * stat it by path, and its modules by path from the top (*by_fd false: the tree's fd);
 * with more, open it once (O_PATH) and stat them by name relative to it. -1 when it
 * changed (walk_stale set) or the tree is walked again anyway.
 */
static int group_open(struct ksc_tree *t, const struct rgroup *g, bool *by_fd)
{
	*by_fd = false;
	if (g->dir == SIZE_MAX)
		return t->dfd;
	if (atomic_load(&t->walk_stale))
		return -1;
	uint64_t ino;
	int64_t mtime_ns;
	const char *rel = ksc_kidx_raw_dir(&t->idx, g->dir, &ino, &mtime_ns);
	if (!rel) {
		atomic_store(&t->walk_stale, true);
		return -1;
	}
	rel = rel[0] ? rel : ".";
	struct stat st;
	int dfd = t->dfd, r;
	if (g->n > 2) {
		dfd = openat(t->dfd, rel, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		r = dfd < 0 ? -1 : fstat(dfd, &st);
		*by_fd = dfd >= 0;
	} else {
		r = fstatat(t->dfd, rel, &st, AT_SYMLINK_NOFOLLOW);
	}
	if (r < 0 || !S_ISDIR(st.st_mode) || (uint64_t)st.st_ino != ino ||
	    st_mtime_ns(&st) != mtime_ns) {
		if (*by_fd)
			close(dfd);
		*by_fd = false;
		atomic_store(&t->walk_stale, true);
		return -1;
	}
	return dfd;
}

static void read_item(struct tpool *p, size_t i, unsigned int worker)
{
	struct ksc_tree *t = p->t;
	struct read_job *j = p->data;

	read_one(t, j, &t->mods[i], &j->ws[worker], t->dfd, t->mods[i].relpath);
}

/*
 * The index's modules grouped by the folder of its walk they are in: one group per
 * folder, empty ones too (each folder is checked). From the index as opened, not yet
 * checked (see pre_stat()). 0 or -ENOMEM.
 */
static int make_groups(struct ksc_tree *t, size_t nm, size_t nd, struct rgroup **groups,
		       size_t *n_groups, uint32_t **gmods)
{
	uint32_t *cnt = calloc(nd + 1, sizeof(*cnt)); /* [nd]: not under a listed folder */
	uint32_t *of = malloc((nm ? nm : 1) * sizeof(*of));

	*groups = calloc(nd + 1, sizeof(**groups));
	*gmods = malloc((nm ? nm : 1) * sizeof(**gmods));
	if (!cnt || !of || !*groups || !*gmods) {
		free(cnt);
		free(of);
		free(*groups);
		free(*gmods);
		*groups = NULL;
		*gmods = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < nm; i++) {
		struct krec_sum sum;
		uint32_t d = KREC_NONE;
		(void)ksc_kidx_raw_module(&t->idx, i, &sum, &d);
		of[i] = d < nd ? d : (uint32_t)nd;
		cnt[of[i]]++;
	}
	uint32_t at = 0;
	for (size_t g = 0; g <= nd; g++) {
		(*groups)[g] = (struct rgroup){ g < nd ? g : SIZE_MAX, at, 0 };
		at += cnt[g];
	}
	for (size_t i = 0; i < nm; i++) {
		struct rgroup *g = &(*groups)[of[i]];
		(*gmods)[g->start + g->n++] = (uint32_t)i;
	}
	*n_groups = nd + (cnt[nd] ? 1 : 0);
	free(cnt);
	free(of);
	return 0;
}

/*
 * The usual re-check, with the index's walk: the workers check its folders and stat its
 * modules (pre[k]: index module k's file is unchanged) while the calling thread checks
 * the rest of the index (ksc_kidx_finish(): the workers read only what ksc_kidx_open()
 * bounded, and their findings are dropped if the index turns out corrupt) and replays
 * the walk (cached_walk(), order_modules()). The index is attached afterwards.
 */
struct pre_job {
	uint8_t *pre;
	struct rgroup *groups;
	size_t n_groups;
	uint32_t *gmods;
	int replay;    /* 1: the index's walk replayed, 0: not usable, <0: -errno */
	int index_err; /* ksc_kidx_finish()'s error: the index is not to be used */
};

static void prestat_item(struct tpool *p, size_t i, unsigned int worker)
{
	struct ksc_tree *t = p->t;
	struct pre_job *j = p->data;
	const struct rgroup *g = &j->groups[i];
	bool by_fd;
	int dfd = group_open(t, g, &by_fd);

	if (dfd < 0)
		return;
	for (uint32_t k = 0; k < g->n && !atomic_load(&t->walk_stale); k++) {
		uint32_t x = j->gmods[g->start + k], d;
		struct krec_sum sum;
		const char *name = ksc_kidx_raw_module(&t->idx, x, &sum, &d);
		if (!name)
			continue;
		if (by_fd) {
			const char *slash = strrchr(name, '/');
			name = slash ? slash + 1 : name;
		}
		j->pre[x] = same_file(&sum, dfd, name);
	}
	if (by_fd)
		close(dfd);
}

static void replay_walk(struct ksc_tree *t)
{
	struct pre_job *j = t->pre_job;

	j->index_err = ksc_kidx_finish(&t->idx);
	if (j->index_err < 0) {
		j->replay = j->index_err == -ENOMEM ? -ENOMEM : 0;
		return;
	}
	int r = cached_walk(t);

	if (r == 1)
		r = order_modules(t) < 0 ? -ENOMEM : 1;
	j->replay = r;
}

/* pj->replay 1: the walk is replayed and pj->pre says which files are unchanged. */
static int pre_stat(struct ksc_tree *t, unsigned int jobs, struct pre_job *pj)
{
	size_t nd, nm = ksc_kidx_raw_count(&t->idx, &nd);

	memset(pj, 0, sizeof(*pj));
	if (!nd || t->idx.modset_fp != t->modset_fp)
		return 0; /* no walk to replay, or other depmod.d rules: walk */
	for (size_t i = 0; i < nd; i++) {
		uint64_t ino;
		int64_t mtime_ns;
		if (!ksc_kidx_raw_dir(&t->idx, i, &ino, &mtime_ns) || mtime_ns == KREC_RACY)
			return 0; /* the index's walk cannot be replayed: walk */
	}
	pj->pre = calloc(nm + 1, 1);
	if (!pj->pre || make_groups(t, nm, nd, &pj->groups, &pj->n_groups, &pj->gmods) < 0)
		return -ENOMEM;
	t->pre_job = pj;
	struct tpool p = { .n = pj->n_groups, .fn = prestat_item, .data = pj };
	run_pool(t, &p, jobs, replay_walk, "read");
	t->pre_job = NULL;
	return pj->replay < 0 ? pj->replay : 0;
}

static void pre_fini(struct pre_job *pj)
{
	free(pj->pre);
	free(pj->groups);
	free(pj->gmods);
	memset(pj, 0, sizeof(*pj));
}

/* ---------------------------------------------------------------------------------- */
/* Records of the index, read when needed                                             */

/* Read module m again (the main thread): its index record is corrupt. */
static int reread(struct ksc_tree *t, struct tmod *m)
{
	struct rstate w;

	memset(&w, 0, sizeof(w));
	w.ctx = ksc_new();
	if (!w.ctx)
		return -ENOMEM;
	ksc_set_log_fn(w.ctx, msgbuf_log, &w.msgs);
	ksc_set_log_priority(w.ctx, KSC_LOG_WARNING);
	free(m->rec_own);
	m->rec_own = NULL;
	m->rec = NULL;
	read_module(t, m, &w);
	int oom = w.oom | w.msgs.oom;
	msgbuf_fini(&w.msgs);
	rstate_fini(&w);
	ksc_unref(w.ctx);
	if (oom || !m->rec)
		return -ENOMEM;
	ksc_krec_sum(m->rec, &m->sum);
	m->cached = false;
	t->dirty = true;
	return 0;
}

/* The facts record of a module found in the index: fetched now (main thread only). */
static const struct krec *need_rec(struct ksc_tree *t, struct tmod *m)
{
	const struct krec *r;

	if (m->rec)
		return m->rec;
	size_t pos = (size_t)(m->old - t->idx.mods);
	int e = ksc_kidx_fetch(&t->idx, pos, &r);
	if (e == 0) {
		m->rec = r;
		return r;
	}
	if (e != -ENOMEM) {
		ksc_warn(t->ctx, "%s: the index's record of %s is corrupt: read again",
			 t->index_path, m->relpath);
		if (reread(t, m) == 0)
			return m->rec;
	}
	t->oom = 1;
	return NULL;
}

/* Every record in memory, before work on all modules or in threads. */
static int ensure_records(struct ksc_tree *t)
{
	bool missing = false;

	for (size_t i = 0; i < t->n_mods && !missing; i++)
		missing = !t->mods[i].rec;
	if (!missing)
		return 0;
	if (t->have_idx && ksc_kidx_fetch_all(&t->idx) == 0) {
		for (size_t i = 0; i < t->n_mods; i++)
			if (!t->mods[i].rec && t->mods[i].cached)
				t->mods[i].rec = t->mods[i].old->rec;
	}
	for (size_t i = 0; i < t->n_mods; i++)
		if (!t->mods[i].rec && !need_rec(t, &t->mods[i]))
			return -ENOMEM;
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* The kernel's exports                                                               */

static uint64_t file_id(const char *path, uint64_t seed)
{
	struct stat st;

	if (!path)
		return ksc_hash64("none", 4, seed);
	if (stat(path, &st) < 0)
		return ksc_hash64(path, strlen(path), seed ^ 0xdead);
	uint64_t v[3] = { (uint64_t)st.st_size, (uint64_t)st_mtime_ns(&st),
			  (uint64_t)st.st_ino };
	return ksc_hash64(v, sizeof(v), ksc_hash64(path, strlen(path), seed));
}

/* A System.map that lists exports (not Debian 6.1's one-line placeholder)? Quietly. */
static bool sysmap_has_exports(const char *path)
{
	struct ksc_sysmap *sm;
	struct ksc_ctx *quiet = ksc_new();

	if (!quiet)
		return false;
	ksc_set_log_fn(quiet, NULL, NULL);
	int r = ksc_sysmap_new_from_path(quiet, path, &sm);
	ksc_unref(quiet);
	if (r < 0)
		return false;
	bool any = ksc_sysmap_get_export_count(sm) > 0;
	ksc_sysmap_unref(sm);
	return any;
}

/* Which files give the kernel's exports and configuration (not read yet), as the
 * kernel locator found them, unless options name them. */
static int find_kernel(struct ksc_tree *t)
{
	const struct ksc_tree_opts *o = &t->opts;
	char p[PATH_MAX];
	const char *root = strcmp(t->root, "/") == 0 ? "" : t->root;

	if (o->symvers || o->vmlinux || o->system_map) {
		t->ksrc = o->symvers   ? KSRC_SYMVERS
			  : o->vmlinux ? KSRC_VMLINUX
				       : KSRC_SYSMAP;
		t->ksrc_path = strdup(o->symvers   ? o->symvers
				      : o->vmlinux ? o->vmlinux
						   : o->system_map);
		if (!t->ksrc_path)
			return -ENOMEM;
	} else if (!o->no_kernel_search) {
		enum ksc_kernel_file which;
		const char *path = ksc_kernel_location_get_exports_path(t->loc, &which);
		/* Debian 6.1 ships a one-line System.map placeholder: only a map with
		 * exports counts */
		if (path && which == KSC_KFILE_SYSTEM_MAP && !sysmap_has_exports(path))
			path = NULL;
		if (path) {
			t->ksrc = which == KSC_KFILE_SYMVERS	 ? KSRC_SYMVERS
				  : which == KSC_KFILE_SYSTEM_MAP ? KSRC_SYSMAP
								  : KSRC_VMLINUX;
			t->ksrc_path = strdup(path);
			if (!t->ksrc_path)
				return -ENOMEM;
		}
	}
	if (o->config) {
		t->config_path = strdup(o->config);
	} else if (!o->no_kernel_search) {
		const char *config = ksc_kernel_location_get_path(t->loc, KSC_KFILE_CONFIG);
		if (config)
			t->config_path = strdup(config);
	}
	if ((o->config || t->config_path) && !t->config_path)
		return -ENOMEM;
	/*
	 * As ksc_kernel_open(): a Debian kernel package documents itself under
	 * usr/share/doc.
	 */
	t->quirks = o->quirks;
	if (!o->set_quirks) {
		struct stat st;
		t->quirks = 0;
		snprintf(p, sizeof(p), "%s/usr/share/doc/linux-image-%s", root,
			 t->release);
		bool debian = stat(p, &st) == 0;
		snprintf(p, sizeof(p), "%s/usr/share/doc/linux-image-%s-unsigned", root,
			 t->release);
		if (debian || stat(p, &st) == 0)
			t->quirks |= KSC_QUIRK_DEBIAN_MISSING_CRC;
	}
	t->ksrc_id = file_id(t->ksrc_path, (uint64_t)t->ksrc);
	t->config_id = file_id(t->config_path, 77);
	return 0;
}

/* Add to depmod's symbol table (a later one replaces an earlier one). */
static int ksym_add(struct ksc_tree *t, const char *name, int32_t owner, uint64_t crc)
{
	if (t->n_ksyms == t->cap_ksyms) {
		size_t cap = t->cap_ksyms ? t->cap_ksyms * 2 : 1024;
		struct msym *a = realloc(t->ksyms_at, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		t->ksyms_at = a;
		t->cap_ksyms = cap;
	}
	/* The index is stored, not a pointer: the array moves. */
	t->ksyms_at[t->n_ksyms] = (struct msym){ owner, crc };
	int r = hash_add(&t->ksyms, name, (void *)(uintptr_t)(t->n_ksyms + 1), 0);
	if (r < 0)
		return r;
	t->n_ksyms++;
	return 0;
}

/*
 * Read the kernel's exports (depmod -E/-F) and configuration, once. Touches only the
 * kernel's fields of t, and t->ctx to log and make the kernel's objects (nothing else uses
 * t->ctx while it runs on its own thread): it can run beside the walk and the reading of
 * modules. Its problems wait in t->kproblems (load_kernel() adds them to the others).
 */
static int load_kernel_core(struct ksc_tree *t)
{
	int r = 0;

	if (t->kernel_loaded)
		return 0;
	t->kernel_loaded = true;
	double t0 = now_s();
	r = ksc_kernel_new(t->ctx, &t->ktmpl);
	if (r < 0)
		return r;
	r = ksc_kernel_set_release(t->ktmpl, t->release);
	if (r < 0)
		return r;
	if (t->config_path) {
		r = ksc_kernel_read_config(t->ktmpl, t->config_path);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			kernel_problem(t, t->config_path, r, "%s", strerror(-r));
	}
	if (t->ksrc == KSRC_NONE)
		goto out;
	switch (t->ksrc) {
	case KSRC_SYMVERS:
		r = ksc_symvers_new_from_path(t->ctx, t->ksrc_path, &t->ksv);
		if (r == 0) {
			/* not "skipped": a symbol listed again is kept, and counted */
			unsigned int bad = ksc_symvers_get_error_count(t->ksv);
			if (bad)
				kernel_problem(t, t->ksrc_path, -EINVAL,
					       "%u faulty line%s (said above)", bad,
					       bad == 1 ? "" : "s");
			for (size_t i = 0; i < ksc_symvers_get_count(t->ksv) && r >= 0;
			     i++) {
				const struct ksc_symvers_entry *e =
					ksc_symvers_get(t->ksv, i);
				if (strcmp(e->module, "vmlinux") == 0)
					r = ksym_add(t, e->symbol, -1, e->crc);
			}
		}
		break;
	case KSRC_VMLINUX:
		r = ksc_module_new_from_path(t->ctx, t->ksrc_path, &t->kvm);
		if (r == 0 && ksc_module_get_kind(t->kvm) != KSC_KIND_VMLINUX) {
			ksc_err(t->ctx, "%s: not a kernel image", t->ksrc_path);
			ksc_module_unref(t->kvm);
			t->kvm = NULL;
			r = -ENOEXEC;
		}
		for (size_t i = 0; r == 0 && i < ksc_module_get_export_count(t->kvm);
		     i++) {
			const struct ksc_export *e = ksc_module_get_export(t->kvm, i);
			r = ksym_add(t, e->name, -1, e->has_crc ? e->crc : 0);
		}
		break;
	case KSRC_SYSMAP:
		r = ksc_sysmap_new_from_path(t->ctx, t->ksrc_path, &t->ksm);
		if (r == 0 && ksc_sysmap_get_error_count(t->ksm)) /* as for Module.symvers */
			kernel_problem(t, t->ksrc_path, -EINVAL, "%u malformed line%s skipped",
				       ksc_sysmap_get_error_count(t->ksm),
				       ksc_sysmap_get_error_count(t->ksm) == 1 ? "" : "s");
		for (size_t i = 0; r == 0 && i < ksc_sysmap_get_export_count(t->ksm); i++)
			r = ksym_add(t, ksc_sysmap_get_export(t->ksm, i), -1, 0);
		break;
	default: break;
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		struct stat st;
		if (r == -EINVAL && stat(t->ksrc_path, &st) == 0 && !S_ISREG(st.st_mode))
			kernel_problem(t, t->ksrc_path, r, "not a regular file (%s)",
				       ksc_file_kind(st.st_mode));
		else if (r == -ENODATA)
			kernel_problem(t, t->ksrc_path, r, "empty file: no exports");
		else if (t->ksrc != KSRC_VMLINUX || !t->kvm)
			kernel_problem(t, t->ksrc_path, r, "%s", strerror(-r));
		goto out;
	}
	/* depmod_add_fake_syms(): resolved by the loader itself. */
	if ((r = ksym_add(t, "__this_module", -1, 0)) < 0 ||
	    (r = ksym_add(t, "_GLOBAL_OFFSET_TABLE_", -1, 0)) < 0)
		return r;
	if (!hash_find(&t->ksyms, "TOC.") && (r = ksym_add(t, "TOC.", -1, 0)) < 0)
		return r;
	t->kernel_ok = true;
out:
	t->st.wall_kernel += now_s() - t0;
	return 0;
}

static int load_kernel(struct ksc_tree *t)
{
	int r = load_kernel_core(t);
	int m = merge_kproblems(t);

	return r < 0 ? r : m;
}

static void side_load_kernel(struct ksc_tree *t)
{
	(void)load_kernel(t);
}

static void *kernel_thread(void *data)
{
	(void)load_kernel_core(data);
	return NULL;
}

/* The kernel's exports loading on a thread of their own (kernel_thread()). */
struct kload {
	pthread_t th;
	bool on;
};

/* Wait for it; its problems join the others. */
static int kload_join(struct ksc_tree *t, struct kload *k)
{
	if (!k->on)
		return 0;
	pthread_join(k->th, NULL);
	k->on = false;
	return merge_kproblems(t);
}

/* The kernel to check against: the exports, the configuration, every module as provider. */
static int tree_kernel(struct ksc_tree *t, struct ksc_ctx *ctx, struct ksc_kernel **out)
{
	struct ksc_kernel *k;
	int r = ksc_kernel_new(ctx, &k);

	if (r < 0)
		return r;
	r = ksc_kernel_set_release(k, t->release);
	if (r < 0)
		goto err;
	for (int i = 0; i < KSC_CONFIG_COUNT; i++) {
		int v = ksc_kernel_get_config(t->ktmpl, (enum ksc_kconfig)i);
		if (v >= 0)
			ksc_kernel_set_config(k, (enum ksc_kconfig)i, v == 1);
	}
	ksc_kernel_set_quirks(k, t->quirks);
	if (t->ksv) {
		r = ksc_kernel_add_symvers_rows(k, t->ksv, true);
	} else if (t->kvm) {
		r = ksc_kernel_add_vmlinux(k, t->kvm);
	} else if (t->ksm) {
		/* System.map: names only, no CRCs, no GPL flags. */
		struct ksc_module *vm = calloc(1, sizeof(*vm));
		size_t n = ksc_sysmap_get_export_count(t->ksm);
		if (!vm)
			goto oom;
		vm->refcount = 1;
		vm->ctx = ksc_ref(ctx);
		vm->kind = KSC_KIND_VMLINUX;
		vm->path = t->ksrc_path;
		vm->exports = calloc(n ? n : 1, sizeof(*vm->exports));
		if (!vm->exports) {
			ksc_module_unref(vm);
			goto oom;
		}
		for (size_t i = 0; i < n; i++)
			vm->exports[vm->n_exports++] =
				(struct ksc_export){ ksc_sysmap_get_export(t->ksm, i), "",
						     false, false, 0 };
		r = ksc_kernel_add_vmlinux(k, vm);
		ksc_module_unref(vm);
	}
	/*
	 * The providers. ksc_kernel_add_module() also takes the kernel's vermagic from the
	 * first in-tree module: set it from that module here, so that only the modules that
	 * export something need adding (a provider without exports provides nothing).
	 */
	for (size_t i = 0; r >= 0 && i < t->n_mods; i++) {
		const struct krec *rec = t->mods[i].rec;
		if (!rec || !(rec->flags & KREC_F_ENGINE) || rec->kind != KSC_KIND_MODULE)
			continue;
		const struct krec_pair *mi = krec_arr(rec, rec->modinfo);
		const char *intree = NULL, *vermagic = NULL;
		for (size_t j = 0; j < rec->modinfo.n; j++) {
			const char *key = krec_str(rec, mi[j].key);
			if (!intree && strcmp(key, "intree") == 0)
				intree = key;
			if (!vermagic && strcmp(key, "vermagic") == 0)
				vermagic = krec_str(rec, mi[j].value);
		}
		if (intree && vermagic) {
			/* a kernel image's own vermagic wins (ksc_kernel_add_vmlinux()) */
			if (!ksc_kernel_get_vermagic(k))
				r = ksc_kernel_set_vermagic(k, vermagic);
			break;
		}
	}
	for (size_t i = 0; r >= 0 && i < t->n_mods; i++) {
		const struct krec *rec = t->mods[i].rec;
		if (!rec || !(rec->flags & KREC_F_ENGINE) ||
		    rec->kind != KSC_KIND_MODULE || rec->exports.n == 0)
			continue;
		struct ksc_module *stub;
		r = ksc_krec_to_module(ctx, rec, t->mods[i].path, false, true, NULL,
				       &stub);
		if (r < 0)
			break;
		r = ksc_kernel_add_module(k, stub);
		ksc_module_unref(stub);
	}
	if (r < 0)
		goto err;
	r = ksc_kernel_build_index(k);
	if (r < 0)
		goto err;
	*out = k;
	return 0;
oom:
	r = -ENOMEM;
err:
	ksc_kernel_unref(k);
	return r;
}

/* ---------------------------------------------------------------------------------- */
/* ksc_kernel_open()'s kernel, from the tree                                           */

/*
 * Does the tree hold what ksc_kernel_open() reads, read without a problem: the located
 * files (no option named others), a walk without links, exports from Module.symvers or
 * an image (ksc_kernel_open() takes no System.map)?
 */
static bool stands_for_open(const struct ksc_tree *t)
{
	const struct ksc_tree_opts *o = &t->opts;

	return !o->symvers && !o->vmlinux && !o->system_map && !o->config &&
	       !o->no_kernel_search && !o->set_quirks && t->n_problems == 0 &&
	       t->walk_clean && t->kernel_ok &&
	       (t->ksrc == KSRC_SYMVERS || t->ksrc == KSRC_VMLINUX);
}

/* What reading a module logged, its path written as `path` (the caller's root). */
static void replay_msgs(struct ksc_ctx *ctx, const struct krec *r, const char *abs,
			const char *path)
{
	const struct krec_msg *msg = krec_arr(r, r->msgs);
	size_t al = strlen(abs);

	for (size_t j = 0; j < r->msgs.n; j++) {
		const char *text = krec_str(r, msg[j].text);
		if (strncmp(text, abs, al) == 0)
			ksc_log(ctx, (int)msg[j].priority, "%s%s", path, text + al);
		else
			ksc_log(ctx, (int)msg[j].priority, "%s", text);
	}
}

struct by_path {
	const char *rel;
	size_t i;
};

static int cmp_by_path(const void *a, const void *b)
{
	return strcmp(((const struct by_path *)a)->rel, ((const struct by_path *)b)->rel);
}

/*
 * The tree's modules, sorted by path as ksc_depmod_modules_search() hands them over. They
 * point into the tree's records (not copied: the kernel keeps the tree).
 */
static int add_tree_modules(struct ksc_tree *t, struct ksc_kernel *k, const char *moddir)
{
	struct by_path *o = malloc((t->n_mods ? t->n_mods : 1) * sizeof(*o));
	size_t dl = strlen(moddir);
	struct ksc_sigscratch sig = { NULL, 0 };
	char *path = NULL;
	size_t cap = 0;
	int r = 0;

	if (!o)
		return -ENOMEM;
	r = ensure_records(t); /* one read of the index's records */
	for (size_t i = 0; i < t->n_mods; i++)
		o[i] = (struct by_path){ t->mods[i].relpath, i };
	qsort(o, t->n_mods, sizeof(*o), cmp_by_path);
	for (size_t n = 0; n < t->n_mods && r >= 0; n++) {
		struct tmod *m = &t->mods[o[n].i];
		const struct krec *rec = need_rec(t, m);
		size_t need = dl + 1 + strlen(m->relpath) + 1;
		if (!rec)
			r = -ENOMEM;
		if (r >= 0 && need > cap) {
			char *p = realloc(path, need);
			if (!p) {
				r = -ENOMEM;
				break;
			}
			path = p;
			cap = need;
		}
		if (r < 0)
			break;
		snprintf(path, cap, "%s/%s", moddir, m->relpath);
		replay_msgs(k->ctx, rec, m->path, path);
		if (!(rec->flags & KREC_F_ENGINE) || rec->kind != KSC_KIND_MODULE)
			continue;
		struct ksc_module *mod;
		const char *kept = pool_strdup(&k->strings, path);
		r = kept ? ksc_krec_to_module(k->ctx, rec, kept, false, false, &sig, &mod)
			 : -ENOMEM;
		if (r < 0)
			break;
		r = ksc_kernel_add_module(k, mod);
		if (r >= 0 && m->replaced)
			r = ksc_kernel_note_replaced(k, t->dmcfg, mod, m->relpath, m->replaced);
		ksc_module_unref(mod);
	}
	ksc_sigscratch_fini(&sig);
	free(path);
	free(o);
	return r;
}

static void release_tree(void *t)
{
	ksc_tree_unref(t);
}

KSC_EXPORT int ksc_tree_get_kernel(struct ksc_tree *t, struct ksc_ctx *ctx,
				   struct ksc_kernel **out)
{
	struct ksc_kernel_location *loc = NULL;
	struct ksc_kernel *k = NULL;
	enum ksc_kernel_file which = KSC_KFILE_SYMVERS;
	int r;

	*out = NULL;
	if (!t || !ctx)
		return -EINVAL;
	r = load_kernel(t);
	if (r < 0)
		return r;
	if (!stands_for_open(t))
		return -ENODATA;
	/* The files as ksc_kernel_open() names them: under the root as the caller gave it. */
	struct ksc_ctx *quiet = ksc_new();
	if (!quiet)
		return -ENOMEM;
	ksc_set_log_fn(quiet, NULL, NULL);
	r = ksc_kernel_locate(quiet, t->root_arg, t->release, &loc);
	ksc_unref(quiet);
	if (r < 0)
		return r == -ENOMEM ? r : -ENODATA;
	const char *exports = ksc_kernel_location_get_exports_path(loc, &which);
	const char *config = ksc_kernel_location_get_path(loc, KSC_KFILE_CONFIG);
	if (!exports || (which == KSC_KFILE_SYMVERS) != (t->ksrc == KSRC_SYMVERS) ||
	    which == KSC_KFILE_SYSTEM_MAP || !config != !t->config_path) {
		r = -ENODATA;
		goto out;
	}
	/* As ksc_kernel_open_location(): the modules, the exports, the configuration. */
	r = ksc_kernel_new(ctx, &k);
	if (r >= 0) {
		k->kept = ksc_tree_ref(t);
		k->kept_release = release_tree;
		r = ksc_kernel_set_release(k, ksc_kernel_location_get_release(loc));
	}
	if (r >= 0)
		r = add_tree_modules(t, k, ksc_kernel_location_get_path(loc,
									 KSC_KFILE_MODULE_DIR));
	if (r >= 0)
		r = t->ksv ? ksc_kernel_add_symvers_rows(k, t->ksv, true)
			   : ksc_kernel_add_vmlinux(k, t->kvm);
	if (r >= 0 && !k->has_vmlinux)
		r = -ENODATA;
	if (r >= 0) {
		k->exports_from = pool_strdup(&k->strings, exports);
		if (!k->exports_from)
			r = -ENOMEM;
		ksc_info(ctx, "%s: kernel exports read", exports);
	}
	if (r >= 0) {
		k->quirks |= t->quirks;
		if (config) {
			r = ksc_kernel_read_config(k, config);
			if (r < 0 && r != -ENOMEM) {
				k->errors++;
				r = 0;
			}
		}
	}
	if (r >= 0) {
		*out = k;
		k = NULL;
	}
out:
	ksc_kernel_unref(k);
	ksc_kernel_location_unref(loc);
	return r < 0 ? r : 0;
}

/* ---------------------------------------------------------------------------------- */
/* Step 3: depmod's resolution                                                        */

struct resolve_job {
	struct hash *syms;
	struct msym *msyms;
	int oom;
};

/* depmod_symbol_find(): the kernel's and the modules' symbols are one table. */
static const struct msym *find_sym(struct resolve_job *j, const char *name)
{
	if (name[0] == '.') /* PPC64's .foo is foo */
		name++;
	uintptr_t v = (uintptr_t)hash_find(j->syms, name);
	return v ? &j->msyms[v - 1] : NULL;
}

static void resolve_item(struct tpool *p, size_t i, unsigned int worker)
{
	struct ksc_tree *t = p->t;
	struct resolve_job *j = p->data;
	struct tmod *m = &t->mods[i];
	struct kdep_item *d;
	size_t n;

	if (ksc_krec_kdeps(m->rec, &d, &n) < 0) {
		j->oom = 1;
		return;
	}
	uint32_t *deps = malloc((n ? n : 1) * sizeof(*deps));
	struct tunres *un = malloc((n ? n : 1) * sizeof(*un));
	if (!deps || !un) {
		free(deps);
		free(un);
		free(d);
		j->oom = 1;
		return;
	}
	uint32_t nd = 0, nu = 0;
	for (size_t k = 0; k < n; k++) {
		const struct msym *s = find_sym(j, d[k].name);
		if (!s) {
			if (t->kernel_ok && !d[k].weak)
				un[nu++] =
					(struct tunres){ d[k].name, KDER_UNKNOWN_SYMBOL };
			continue;
		}
		if (t->kernel_ok && t->ksrc == KSRC_SYMVERS && s->crc != d[k].crc &&
		    !d[k].weak)
			un[nu++] = (struct tunres){ d[k].name, KDER_CRC_DIFFERS };
		if (s->owner < 0)
			continue;
		bool have = false;
		for (uint32_t x = 0; x < nd && !have; x++)
			have = deps[x] == (uint32_t)s->owner;
		if (!have)
			deps[nd++] = (uint32_t)s->owner;
	}
	free(d);
	m->deps = deps;
	m->n_deps = nd;
	m->deps_own = true;
	m->unres = un;
	m->n_unres = nu;
	m->unres_own = true;
}

/* ---------------------------------------------------------------------------------- */
/* Step 4: verdicts                                                                   */

struct cstate {
	struct ksc_ctx *ctx;
	struct msgbuf msgs;
	struct ksc_sigscratch sig;
	uint64_t ns;
};

struct check_job {
	struct cstate *ws;
	struct ksc_kernel *k; /* shared: checks only read it */
	const struct ksc_check_opts *opts;
	int oom;
};

/*
 * The derived record of a module: its dependencies and unresolved symbols, and a verdict.
 */
static int build_kder(const struct tmod *m, const struct ksc_report *rep,
		      const struct kder *old, struct kder **out)
{
	struct kder h;
	struct rbuf b;

	*out = NULL;
	memset(&h, 0, sizeof(h));
	rbuf_init(&b);
	rbuf_put(&b, sizeof(h), 8);
	h.magic = KDER_MAGIC;
	h.loader_name = h.modpost_name = KREC_NONE;
	h.deps.n = m->n_deps;
	h.deps.off = (uint32_t)rbuf_put(&b, (size_t)m->n_deps * 4, 4);
	if (!b.oom)
		memcpy(b.p + h.deps.off, m->deps, (size_t)m->n_deps * 4);
	h.unres.n = m->n_unres;
	h.unres.off =
		(uint32_t)rbuf_put(&b, (size_t)m->n_unres * sizeof(struct kder_unres), 4);
	for (size_t i = 0; i < m->n_unres && !b.oom; i++) {
		struct kder_unres u = { rbuf_str(&b, m->unres[i].name,
						 strlen(m->unres[i].name)),
					m->unres[i].kind };
		memcpy(b.p + h.unres.off + i * sizeof(u), &u, sizeof(u));
	}
#define DS(s) ((s) ? rbuf_str(&b, (s), strlen(s)) : KREC_NONE)
	if (rep && ksc_report_get_module_count(rep) == 1) {
		const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, 0);
		h.flags = KDER_F_CHECKED | (v->modpost_ok ? KDER_F_MODPOST_OK : 0);
		h.loader_err = v->loader_err;
		h.loader_name = DS(v->loader_name ? v->loader_name : "");
		h.modpost_name = DS(v->modpost_name ? v->modpost_name : "");
		size_t n = ksc_report_get_diag_count(rep);
		h.diags.n = (uint32_t)n;
		h.diags.off = (uint32_t)rbuf_put(&b, n * sizeof(struct kder_diag), 4);
		for (size_t i = 0; i < n && !b.oom; i++) {
			const struct ksc_diag *d = ksc_report_get_diag(rep, i);
			struct kder_diag x = { d->view,
					       d->severity,
					       d->err,
					       DS(d->code),
					       DS(d->rule),
					       DS(d->module ? d->module : ""),
					       DS(d->symbol),
					       DS(d->ns),
					       DS(d->owner),
					       DS(d->summary),
					       DS(d->kernel_lines),
					       DS(d->explanation),
					       DS(d->fix) };
			if (x.code == KREC_NONE)
				x.code = 0;
			memcpy(b.p + h.diags.off + i * sizeof(x), &x, sizeof(x));
		}
	} else if (old && (old->flags & KDER_F_CHECKED)) {
		h.flags = old->flags;
		h.loader_err = old->loader_err;
		h.loader_name = DS(kder_str(old, old->loader_name));
		h.modpost_name = DS(kder_str(old, old->modpost_name));
		const struct kder_diag *od = kder_arr(old, old->diags);
		h.diags.n = old->diags.n;
		h.diags.off = (uint32_t)rbuf_put(
			&b, old->diags.n * sizeof(struct kder_diag), 4);
		for (size_t i = 0; i < old->diags.n && !b.oom; i++) {
			const struct kder_diag *d = &od[i];
			struct kder_diag x = { d->view,
					       d->severity,
					       d->err,
					       DS(kder_str(old, d->code)),
					       DS(kder_str(old, d->rule)),
					       DS(kder_str(old, d->module)),
					       DS(kder_str(old, d->symbol)),
					       DS(kder_str(old, d->ns)),
					       DS(kder_str(old, d->owner)),
					       DS(kder_str(old, d->summary)),
					       DS(kder_str(old, d->kernel_lines)),
					       DS(kder_str(old, d->explanation)),
					       DS(kder_str(old, d->fix)) };
			memcpy(b.p + h.diags.off + i * sizeof(x), &x, sizeof(x));
		}
	}
#undef DS
	if (b.oom) {
		rbuf_fini(&b);
		return -ENOMEM;
	}
	memcpy(b.p, &h, sizeof(h));
	size_t size;
	struct kder *d = rbuf_finish(&b, offsetof(struct kder, strtab), &size);
	rbuf_fini(&b);
	if (!d)
		return -ENOMEM;
	*out = d;
	return 0;
}

/*
 * The kernel the checks run against, with the tree's modules as providers: built once, on
 * the calling thread while the workers resolve (run_pool's side job), and shared by the
 * checking threads.
 */
static void drop_check_kernel(struct ksc_tree *t)
{
	t->ck = ksc_kernel_unref(t->ck);
	t->ck_ctx = ksc_unref(t->ck_ctx);
	msgbuf_fini(&t->ck_msgs);
}

static void build_check_kernel(struct ksc_tree *t)
{
	if (t->ck || t->ck_err)
		return;
	t->ck_ctx = ksc_new();
	if (!t->ck_ctx) {
		t->ck_err = -ENOMEM;
		return;
	}
	ksc_set_log_fn(t->ck_ctx, msgbuf_log, &t->ck_msgs);
	t->ck_err = tree_kernel(t, t->ck_ctx, &t->ck);
}

static void check_item(struct tpool *p, size_t i, unsigned int worker)
{
	struct ksc_tree *t = p->t;
	struct check_job *j = p->data;
	struct cstate *w = &j->ws[worker];
	struct tmod *m = &t->mods[i];
	struct ksc_module *mod = NULL;
	struct ksc_report *rep = NULL;
	uint64_t t0 = t->opts.timing ? now_ns() : 0;
	int r;

	if (j->k) {
		r = ksc_krec_to_module(w->ctx, m->rec, m->path, false, false, &w->sig,
				       &mod);
		if (r == 0)
			r = ksc_check_modules_ctx(j->k, w->ctx, &mod, 1, j->opts, &rep);
		if (r == -ENOMEM)
			j->oom = 1;
	}
	if (build_kder(m, rep, NULL, &m->der_own) < 0)
		j->oom = 1;
	m->der = m->der_own;
	ksc_report_unref(rep);
	ksc_module_unref(mod);
	if (t->opts.timing)
		w->ns += now_ns() - t0;
}

/* ---------------------------------------------------------------------------------- */
/* ksc_tree_open()                                                                    */

static uint64_t hs(uint64_t h, const char *s)
{
	return s ? ksc_hash64(s, strlen(s) + 1, h) : ksc_hash64("", 0, h + 1);
}

/* A number into a fingerprint: a bijective mix (multiply, xor-shift) of h ^ v. */
static uint64_t hn(uint64_t h, uint64_t v)
{
	uint64_t x = (h ^ v) * 0x9e3779b97f4a7c15ULL;

	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ULL;
	return x ^ (x >> 32);
}

/*
 * What the derived results depend on besides each module's own facts. "ksc-tree-N" goes
 * up when the findings change for the same inputs (3: the rule ids were split).
 */
static void fingerprints(struct ksc_tree *t)
{
	uint64_t c =
		hs(hs(hs(hs(0x6b73632d74726565ULL, "ksc-tree-3"), KSC_VERSION_STRING),
		      t->moddir),
		   t->release);
	t->ctx_fp = c;
	uint64_t dm = hn(hn(hn(c, t->order_fp), t->ksrc_id), t->n_mods);
	uint64_t eng =
		hn(hn(hn(hn(c, t->order_fp), t->ksrc_id), t->config_id), t->n_mods);
	const struct ksc_check_opts *o = t->has_check ? &t->check : NULL;
	eng = hs(eng, o ? o->policy : NULL);
	eng = hn(eng,
		 o ? ((uint64_t)o->require_intree |
		      (uint64_t)(o->allow_missing_ns + 1) << 1 | (uint64_t)o->views << 8 |
		      ((uint64_t)o->build + 1) << 12) /* + 1: R40 changed the verdicts */
		   : 0xffff);
	eng = hn(hn(eng, t->opts.no_check), t->quirks);
	uint64_t out = hn(c, t->order_fp);
	for (size_t i = 0; i < t->n_mods; i++) {
		const struct tmod *m = &t->mods[i];
		uint64_t rp = hs(0, m->relpath);
		dm = hn(hn(dm, rp), m->sum.kexp_hash);
		eng = hn(hn(eng, rp), m->sum.prov_hash);
		out = hn(hn(out, rp), m->sum.kmod_hash);
	}
	t->dm_fp = dm;
	t->eng_fp = eng;
	t->out_fp = out;
}

struct logline {
	const char *path;
	int prio;
	const char *text;
	char *own;
	size_t seq;
};

static int cmp_logline(const void *a, const void *b)
{
	const struct logline *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_problem(const void *a, const void *b)
{
	const struct tproblem *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/*
 * Every message of this run and of the cached modules, sorted by path; the problems list.
 */
static int report_problems(struct ksc_tree *t)
{
	size_t walk_n = t->n_problems, n = 0;

	/* Problems of modules: those the reader failed on, kernel images in the tree. */
	for (size_t i = 0; i < t->n_mods; i++) {
		struct tmod *m = &t->mods[i];
		bool problem = !(m->sum.flags & KREC_F_ENGINE) ||
			       m->sum.kind == KSC_KIND_VMLINUX;
		if (!m->sum.n_msgs && !problem)
			continue;
		const struct krec *r = need_rec(t, m);
		if (!r)
			return -ENOMEM;
		const struct krec_msg *msg = krec_arr(r, r->msgs);
		n += r->msgs.n;
		if ((r->flags & KREC_F_ENGINE) && r->kind != KSC_KIND_VMLINUX)
			continue;
		const char *why = NULL;
		for (size_t j = 0; j < r->msgs.n && !why; j++)
			if (msg[j].priority <= KSC_LOG_ERR)
				why = krec_str(r, msg[j].text);
		size_t pl = strlen(m->path);
		if (why && strncmp(why, m->path, pl) == 0 &&
		    strncmp(why + pl, ": ", 2) == 0)
			why += pl + 2;
		if (r->kind == KSC_KIND_VMLINUX)
			why = NULL;
		int err = r->err			? r->err
			  : r->kind == KSC_KIND_VMLINUX ? -ENOEXEC
							: -EINVAL;
		if (add_problem(t, m->path, err, "%s",
				why ? why
				: r->kind == KSC_KIND_VMLINUX
					? "not a module (a kernel image)"
					: strerror(-err)) < 0)
			return -ENOMEM;
		if (r->kind == KSC_KIND_VMLINUX)
			n++; /* logged from the problem list */
	}
	n += walk_n;
	struct logline *l = calloc(n ? n : 1, sizeof(*l));
	size_t k = 0;
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_problems; i++) {
		struct tproblem *p = &t->problems[i];
		if (i >= walk_n &&
		    strcmp(p->reason, "not a module (a kernel image)") != 0)
			continue; /* the module's own messages say it */
		if (asprintf(&l[k].own, "%s: %s", p->path, p->reason) < 0) {
			l[k].own = NULL;
			goto oom;
		}
		l[k].path = p->path;
		l[k].prio = KSC_LOG_ERR;
		l[k].text = l[k].own;
		k++;
	}
	for (size_t i = 0; i < t->n_mods; i++) {
		const struct tmod *m = &t->mods[i];
		const struct krec *r = m->rec;
		if (!m->sum.n_msgs || !r)
			continue;
		const struct krec_msg *msg = krec_arr(r, r->msgs);
		for (size_t j = 0; j < r->msgs.n && k < n; j++)
			l[k++] = (struct logline){ m->path, (int)msg[j].priority,
						   krec_str(r, msg[j].text), NULL, 0 };
	}
	for (size_t i = 0; i < k; i++)
		l[i].seq = i;
	if (k > 1)
		qsort(l, k, sizeof(*l), cmp_logline);
	for (size_t i = 0; i < k; i++)
		ksc_log(t->ctx, l[i].prio, "%s", l[i].text);
	for (size_t i = 0; i < k; i++)
		free(l[i].own);
	free(l);
	if (t->n_problems > 1)
		qsort(t->problems, t->n_problems, sizeof(*t->problems), cmp_problem);
	t->pub_problems =
		calloc(t->n_problems ? t->n_problems : 1, sizeof(*t->pub_problems));
	if (!t->pub_problems)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_problems; i++)
		t->pub_problems[i] = (struct ksc_tree_problem){ t->problems[i].path,
								t->problems[i].reason,
								t->problems[i].err };
	return 0;
oom:
	for (size_t i = 0; i < k; i++)
		free(l[i].own);
	free(l);
	return -ENOMEM;
}

/* The public arrays: verdicts, diags, unresolved symbols, cycles. */
static int assemble(struct ksc_tree *t)
{
	size_t nd = 0, nu = 0;

	for (size_t i = 0; i < t->n_mods; i++) {
		const struct kder *d = t->mods[i].der;
		nd += d->diags.n;
		nu += d->unres.n;
	}
	t->verdicts = calloc(t->n_mods ? t->n_mods : 1, sizeof(*t->verdicts));
	t->has_verdict = calloc(t->n_mods ? t->n_mods : 1, sizeof(*t->has_verdict));
	t->diags = calloc(nd ? nd : 1, sizeof(*t->diags));
	t->unres = calloc(nu ? nu : 1, sizeof(*t->unres));
	if (!t->verdicts || !t->has_verdict || !t->diags || !t->unres)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_mods; i++) {
		const struct tmod *m = &t->mods[i];
		const struct kder *d = m->der;
		const struct kder_unres *u = kder_arr(d, d->unres);
		for (size_t j = 0; j < d->unres.n; j++)
			t->unres[t->n_unres++] = (struct ksc_tree_unresolved){
				i, kder_str(d, u[j].name),
				(enum ksc_tree_unresolved_kind)u[j].kind
			};
		if (!(d->flags & KDER_F_CHECKED))
			continue;
		t->has_verdict[i] = true;
		struct ksc_module_verdict *v = &t->verdicts[i];
		v->module = NULL;
		v->loader_name = kder_str(d, d->loader_name);
		v->modpost_name = kder_str(d, d->modpost_name);
		v->loader_err = d->loader_err;
		v->modpost_ok = d->flags & KDER_F_MODPOST_OK;
		v->first_diag = t->n_diags;
		const struct kder_diag *g = kder_arr(d, d->diags);
		for (size_t j = 0; j < d->diags.n; j++) {
			struct ksc_diag *x = &t->diags[t->n_diags++];
			x->view = (enum ksc_view)g[j].view;
			x->severity = (enum ksc_severity)g[j].severity;
			x->code = kder_str(d, g[j].code);
			x->rule = kder_str(d, g[j].rule);
			x->module_index = i;
			x->module = kder_str(d, g[j].module);
			x->symbol = kder_str(d, g[j].symbol);
			x->ns = kder_str(d, g[j].ns);
			x->owner = kder_str(d, g[j].owner);
			x->summary = kder_str(d, g[j].summary);
			x->kernel_lines = kder_str(d, g[j].kernel_lines);
			x->explanation = kder_str(d, g[j].explanation);
			x->fix = kder_str(d, g[j].fix);
			x->err = g[j].err;
		}
		v->n_diags = t->n_diags - v->first_diag;
	}
	t->cycle_mods = calloc(t->n_cycles ? t->n_cycles : 1, sizeof(*t->cycle_mods));
	if (!t->cycle_mods)
		return -ENOMEM;
	for (size_t c = 0, at = 0; c < t->n_cycles; at += t->cycle_lens[c], c++) {
		t->cycle_mods[c] = malloc(t->cycle_lens[c] * sizeof(size_t));
		if (!t->cycle_mods[c])
			return -ENOMEM;
		for (size_t j = 0; j < t->cycle_lens[c]; j++)
			t->cycle_mods[c][j] = t->cycle_flat[at + j];
	}
	return 0;
}

static int make_absolute(const char *p, char **out)
{
	char cwd[PATH_MAX];

	if (!p || !*p)
		p = "/";
	if (p[0] == '/') {
		*out = strdup(p);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		if (asprintf(out, "%s/%s", cwd, p) < 0)
			*out = NULL;
	}
	if (!*out)
		return -ENOMEM;
	size_t n = strlen(*out);
	while (n > 1 && (*out)[n - 1] == '/')
		(*out)[--n] = '\0';
	return 0;
}

/* The index cannot be used (r: why): said, and rebuilt. */
static void drop_index(struct ksc_tree *t, int r)
{
	ksc_warn(t->ctx, "%s: %s, rebuilt", t->index_path,
		 r == -EINVAL ? "index corrupt, truncated or of another format" : strerror(-r));
	ksc_kidx_free(&t->idx);
	t->have_idx = false;
	t->index_state = KSC_TREE_INDEX_REBUILT;
}

/*
 * The index, opened: its header and the bounds of its tables are checked, the rest is
 * (ksc_kidx_finish()) while pre_stat() starts on it, or before anything else uses it.
 */
static void load_index(struct ksc_tree *t)
{
	int r = ksc_kidx_open(t->index_path, &t->idx);

	if (r == -ENOENT) {
		t->index_state = KSC_TREE_INDEX_ABSENT;
		return;
	}
	if (r == 0 && (strcmp(t->idx.moddir, t->moddir) != 0 ||
		       strcmp(t->idx.release, t->release) != 0)) {
		r = ksc_kidx_finish(&t->idx); /* corrupt, or really another tree's */
		if (r == 0) {
			ksc_warn(t->ctx, "%s: index of another tree (%s), rebuilt",
				 t->index_path, t->idx.moddir);
			ksc_kidx_free(&t->idx);
			t->index_state = KSC_TREE_INDEX_REBUILT;
			return;
		}
	}
	t->have_idx = true;
	if (r < 0) {
		drop_index(t, r);
		return;
	}
	t->index_state = KSC_TREE_INDEX_USED;
}

/* Attach the index's records to the modules of the walk (by path). */
static int attach_index(struct ksc_tree *t)
{
	struct hash h;

	/*
	 * The walk of the last run, in its order (the usual re-check): entry i is module
	 * i, by construction (cached_walk() takes no list with a name twice).
	 */
	if (t->walk_cached && t->n_mods == t->idx.n_mods) {
		for (size_t i = 0; i < t->n_mods; i++) {
			t->mods[i].old = &t->idx.mods[i];
			t->mods[i].old_der = t->idx.derived ? t->idx.mods[i].der : NULL;
		}
		return 0;
	}
	hash_init(&h);
	for (size_t i = 0; i < t->idx.n_mods; i++) {
		const char *rel = t->idx.mods[i].relpath;
		int r = hash_add(&h, rel, &t->idx.mods[i], 1);
		if (r == 1) {
			ksc_warn(t->ctx, "%s: index lists %s twice, rebuilt",
				 t->index_path, rel);
			hash_fini(&h);
			ksc_kidx_free(&t->idx);
			t->have_idx = false;
			t->index_state = KSC_TREE_INDEX_REBUILT;
			return 0;
		}
		if (r < 0) {
			hash_fini(&h);
			return r;
		}
	}
	for (size_t i = 0; i < t->n_mods; i++) {
		const struct kidx_module *km = hash_find(&h, t->mods[i].relpath);
		if (!km)
			continue;
		t->mods[i].old = km;
		t->mods[i].old_der = t->idx.derived ? km->der : NULL;
	}
	hash_fini(&h);
	return 0;
}

static int do_open(struct ksc_tree *t)
{
	unsigned int jobs = t->opts.jobs ? t->opts.jobs : default_jobs();
	double t0 = now_s(), t1;
	int r;

	t->st.jobs = jobs;
	if (t->index_path) {
		load_index(t);
		t->st.wall_index_load = (t1 = now_s()) - t0;
		t0 = t1;
	}
	int oom = 0;
	/*
	 * With an index, pre_stat() replays its walk while its folders and modules are
	 * checked. When a folder changed, or the walk cannot be replayed, the tree is walked
	 * (the modules whose files did not change still come from the index).
	 */
	struct pre_job pj = { 0 };
	bool pre_ok = false;
	if (t->have_idx) {
		r = pre_stat(t, jobs, &pj);
		if (r == 0 && !pj.index_err && !t->idx.finished)
			pj.index_err = ksc_kidx_finish(&t->idx); /* pre_stat() did not start */
		if (r == 0 && pj.index_err == -ENOMEM)
			r = -ENOMEM;
		if (r < 0) {
			pre_fini(&pj);
			return r;
		}
		if (pj.index_err < 0)
			drop_index(t, pj.index_err); /* what pre_stat() found is not used */
		else
			pre_ok = pj.replay == 1 && !atomic_load(&t->walk_stale);
	}
	/*
	 * A first run reads everything and needs the kernel's exports: they load on a thread
	 * of their own from now until the modules are read, so the walk (one thread) leaves
	 * no CPU idle. Nothing else touches the kernel's part of t meanwhile.
	 */
	struct kload kl = { .on = false };
	r = find_kernel(t);
	if (r == 0 && !t->have_idx)
		kl.on = pthread_create(&kl.th, NULL, kernel_thread, t) == 0;
	if (r >= 0 && !pre_ok) {
		drop_walk(t);
		r = do_walk(t);
		if (r >= 0)
			r = order_modules(t);
	}
	t->st.wall_walk += (t1 = now_s()) - t0;
	t0 = t1;
	if (r >= 0 && t->have_idx)
		r = attach_index(t);
	/* What pre_stat() found unchanged comes from the index; the rest is read. */
	size_t *items = NULL, n_items = 0;
	if (r >= 0 && pre_ok && t->have_idx) {
		items = malloc((t->n_mods ? t->n_mods : 1) * sizeof(*items));
		if (!items)
			r = -ENOMEM;
		for (size_t i = 0; items && i < t->n_mods; i++) {
			struct tmod *m = &t->mods[i];
			if (m->old && pj.pre[m->old - t->idx.mods]) {
				m->sum = m->old->sum;
				m->rec = m->old->rec; /* NULL until fetched */
				m->cached = true;
			} else {
				items[n_items++] = i;
			}
		}
	}
	pre_fini(&pj);
	if (r < 0) {
		kload_join(t, &kl);
		return r;
	}

	/* Step 2: read (or find in the index) every module. */
	struct rstate *ws = calloc(jobs, sizeof(*ws));
	if (!ws) {
		free(items);
		kload_join(t, &kl);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < jobs && r == 0; i++) {
		ws[i].ctx = ksc_new();
		if (!ws[i].ctx) {
			r = -ENOMEM;
			break;
		}
		ksc_set_log_fn(ws[i].ctx, msgbuf_log, &ws[i].msgs);
		ksc_set_log_priority(ws[i].ctx, KSC_LOG_WARNING);
	}
	if (r == 0) {
		struct read_job rj = { ws, t->have_idx };
		struct tpool p = { .n = items ? n_items : t->n_mods,
				   .items = items,
				   .fn = read_item,
				   .data = &rj };
		run_pool(t, &p, jobs, t->have_idx || kl.on ? NULL : side_load_kernel, "read");
	}
	free(items);
	for (unsigned int i = 0; i < jobs; i++) {
		oom |= ws[i].oom | ws[i].msgs.oom;
		t->st.cpu_read += (double)ws[i].ns_read / 1e9;
		t->st.cpu_decompress += (double)ws[i].ns_decompress / 1e9;
		t->st.cpu_parse += (double)ws[i].ns_parse / 1e9;
		t->st.bytes_read += ws[i].bytes_read;
		t->st.bytes_decompressed += ws[i].bytes_decompressed;
		msgbuf_fini(&ws[i].msgs);
		rstate_fini(&ws[i]);
		ksc_unref(ws[i].ctx);
	}
	free(ws);
	int kr = kload_join(t, &kl);
	if (r >= 0)
		r = kr;
	if (r < 0)
		return r;
	for (size_t i = 0; i < t->n_mods; i++) {
		if (!t->mods[i].rec && !t->mods[i].cached)
			oom = 1;
		else if (t->mods[i].cached)
			t->st.cached++;
		else
			t->st.read++;
	}
	if (oom)
		return -ENOMEM;
	t->st.wall_read = (t1 = now_s()) - t0;
	t0 = t1;
	r = report_problems(t);
	if (r < 0)
		return r;
	for (size_t i = 0; i < t->n_mods; i++)
		if (!(t->mods[i].sum.flags & KREC_F_ENGINE))
			t->st.unreadable++;

	/*
	 * What can be reused: fingerprints of everything the derived results depend on.
	 */
	fingerprints(t);
	t->verdicts_on = !t->opts.no_check && t->ksrc != KSRC_NONE;
	bool dm_world = t->have_idx && t->idx.derived && t->idx.ctx_fp == t->ctx_fp &&
			t->idx.dm_world_fp == t->dm_fp;
	bool eng_world = t->have_idx && t->idx.derived && t->idx.ctx_fp == t->ctx_fp &&
			 t->idx.eng_world_fp == t->eng_fp;
	size_t n_resolve = 0, n_check = 0;
	size_t *resolve_items = malloc((t->n_mods ? t->n_mods : 1) * sizeof(size_t));
	size_t *check_items = malloc((t->n_mods ? t->n_mods : 1) * sizeof(size_t));
	if (!resolve_items || !check_items) {
		free(resolve_items);
		free(check_items);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n_mods; i++) {
		struct tmod *m = &t->mods[i];
		const struct kder *od = m->old_der;
		bool checkable = t->verdicts_on && (m->sum.flags & KREC_F_ENGINE) &&
				 m->sum.kind == KSC_KIND_MODULE;
		m->dm_ok = dm_world && od && m->old->sum.kmod_hash == m->sum.kmod_hash;
		m->eng_ok =
			eng_world && od && m->old->sum.facts_hash == m->sum.facts_hash;
		m->need_resolve = !m->dm_ok;
		m->need_check = !m->eng_ok && checkable;
		if (m->need_resolve) {
			resolve_items[n_resolve++] = i;
		} else {
			m->deps = (uint32_t *)kder_arr(od, od->deps);
			m->n_deps = od->deps.n;
			m->deps_own = false;
			const struct kder_unres *u = kder_arr(od, od->unres);
			m->unres = NULL; /* most modules: nothing to copy */
			m->n_unres = 0;
			m->unres_own = false;
			if (od->unres.n) {
				m->unres = malloc(od->unres.n * sizeof(*m->unres));
				if (!m->unres) {
					free(resolve_items);
					free(check_items);
					return -ENOMEM;
				}
				m->unres_own = true;
				for (size_t k = 0; k < od->unres.n; k++)
					m->unres[k] = (struct tunres){
						kder_str(od, u[k].name), u[k].kind
					};
				m->n_unres = od->unres.n;
			}
		}
		if (m->need_check)
			check_items[n_check++] = i;
		/* Reused as a whole when nothing it depends on changed. */
		bool no_verdict = !checkable && !(od && (od->flags & KDER_F_CHECKED));
		if (m->dm_ok && (m->eng_ok || no_verdict))
			m->der = od;
	}
	t->any_resolve = n_resolve > 0;
	t->any_check = n_check > 0;
	t->st.checked = n_check;

	/* Step 3: depmod's resolution of the modules that need it. */
	if (n_resolve || n_check) {
		r = ensure_records(t);
		if (r < 0)
			goto out;
	}
	if (n_resolve) {
		r = load_kernel(t);
		if (r < 0)
			goto out;
		/*
		 * depmod's table: the kernel's symbols (depmod -E/-F, and the fake ones: loaded
		 * with the kernel, perhaps on its own thread), then each module's exports in
		 * module order, a later one replacing an earlier one. Resolved once: the kernel's
		 * part is not kept apart.
		 */
		size_t total = t->n_ksyms;
		for (size_t i = 0; i < t->n_mods; i++)
			total += t->mods[i].rec->kexports.n;
		r = hash_reserve(&t->ksyms, total);
		for (size_t i = 0; i < t->n_mods && r >= 0; i++) {
			const struct krec *rec = t->mods[i].rec;
			const struct krec_crc *c = krec_arr(rec, rec->kexports);
			for (size_t j = 0; j < rec->kexports.n && r >= 0; j++)
				r = ksym_add(t, krec_str(rec, c[j].name), (int32_t)i,
					     (uint64_t)c[j].crc_hi << 32 | c[j].crc_lo);
		}
		if (r >= 0) {
			struct resolve_job rj = { &t->ksyms, t->ksyms_at, 0 };
			struct tpool p = { .n = n_resolve,
					   .items = resolve_items,
					   .fn = resolve_item,
					   .data = &rj };
			run_pool(t, &p, n_resolve > 256 ? jobs : 1,
				 n_check && t->kernel_ok ? build_check_kernel : NULL, "resolve");
			if (rj.oom)
				r = -ENOMEM;
		}
		if (r < 0)
			goto out;
	}
	/* The sort and the cycles, over every module. */
	{
		uint32_t **dp = malloc((t->n_mods ? t->n_mods : 1) * sizeof(*dp));
		uint32_t *nd = malloc((t->n_mods ? t->n_mods : 1) * sizeof(*nd));
		int *si = malloc((t->n_mods ? t->n_mods : 1) * sizeof(*si));
		if (!dp || !nd || !si) {
			free(dp);
			free(nd);
			free(si);
			r = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < t->n_mods; i++) {
			dp[i] = t->mods[i].deps;
			nd[i] = t->mods[i].n_deps;
		}
		t->n_sorted = ksc_depmod_sort(t->n_mods, dp, nd, si);
		if (t->n_sorted == SIZE_MAX)
			r = -ENOMEM;
		if (r >= 0 && t->n_sorted < t->n_mods) {
			int c = ksc_depmod_cycles(t->n_mods, dp, nd, si, &t->cycle_flat,
						  &t->cycle_lens);
			if (c < 0)
				r = c;
			else
				t->n_cycles = (size_t)c;
		}
		for (size_t i = 0; i < t->n_mods; i++)
			t->mods[i].sort_idx = si[i];
		free(dp);
		free(nd);
		free(si);
		if (r < 0)
			goto out;
	}
	t->st.wall_resolve = (t1 = now_s()) - t0;
	t0 = t1;

	/* Step 4: verdicts. */
	if (n_check) {
		r = load_kernel(t);
		if (r < 0)
			goto out;
		if (!t->kernel_ok) {
			n_check = 0;
			for (size_t i = 0; i < t->n_mods; i++)
				t->mods[i].need_check = false;
		}
	}
	if (n_check) {
		build_check_kernel(t); /* unless built while resolving */
		for (size_t i = 0; i < t->ck_msgs.n; i++)
			ksc_log(t->ctx, t->ck_msgs.prio[i], "%s", t->ck_msgs.text[i]);
		msgbuf_clear(&t->ck_msgs);
		oom |= t->ck_msgs.oom;
		if (t->ck_err == -ENOMEM)
			oom = 1;
		else if (t->ck_err)
			ksc_err(t->ctx, "%s: cannot build the kernel to check against: %s",
				t->moddir, strerror(-t->ck_err));
	}
	if (n_check) {
		unsigned int cj = jobs;
		struct cstate *cs = calloc(cj, sizeof(*cs));
		if (!cs) {
			r = -ENOMEM;
			goto out;
		}
		for (unsigned int i = 0; i < cj && r == 0; i++) {
			cs[i].ctx = ksc_new();
			if (!cs[i].ctx)
				r = -ENOMEM;
			else
				ksc_set_log_fn(cs[i].ctx, msgbuf_log, &cs[i].msgs);
		}
		struct check_job cjob = { cs, t->ck, t->has_check ? &t->check : NULL, 0 };
		if (r == 0) {
			struct tpool p = { .n = n_check,
					   .items = check_items,
					   .fn = check_item,
					   .data = &cjob };
			run_pool(t, &p, cj, NULL, "check");
		}
		for (unsigned int i = 0; i < cj; i++) {
			for (size_t j = 0; j < cs[i].msgs.n; j++)
				ksc_log(t->ctx, cs[i].msgs.prio[j], "%s",
					cs[i].msgs.text[j]);
			t->st.cpu_check += (double)cs[i].ns / 1e9;
			oom |= cs[i].msgs.oom;
			msgbuf_fini(&cs[i].msgs);
			ksc_sigscratch_fini(&cs[i].sig);
			ksc_unref(cs[i].ctx);
		}
		free(cs);
		drop_check_kernel(t);
		if (r == 0 && (cjob.oom || oom))
			r = -ENOMEM;
		if (r < 0)
			goto out;
	}
	/* The derived records of the modules that were re-resolved but not re-checked. */
	for (size_t i = 0; i < t->n_mods && r >= 0; i++) {
		struct tmod *m = &t->mods[i];
		if (m->der)
			continue;
		r = build_kder(m, NULL, m->eng_ok ? m->old_der : NULL, &m->der_own);
		m->der = m->der_own;
	}
	if (r < 0)
		goto out;
	t->st.wall_check = now_s() - t0;
	r = assemble(t);
	/*
	 * Does the index need writing? Not when all that changed is the key of modules read
	 * again with identical facts (touched, copied with a new inode): those are read again
	 * next time too, until more than STALE_MAX of them make a rewrite worth it.
	 */
	t->dirty = !t->have_idx || t->idx.n_mods != t->n_mods ||
		   t->idx.ctx_fp != t->ctx_fp || t->idx.dm_world_fp != t->dm_fp ||
		   t->idx.eng_world_fp != t->eng_fp || !t->idx.derived ||
		   t->idx.modset_fp != t->modset_fp;
	size_t stale = 0;
	for (size_t i = 0; i < t->n_mods && !t->dirty; i++) {
		const struct tmod *m = &t->mods[i];
		const struct kidx_module *km = &t->idx.mods[i];
		if (m->old != km || m->der != km->der)
			t->dirty = true; /* another order, or new results */
		else if (!m->cached && m->sum.facts_hash != km->sum.facts_hash)
			t->dirty = true;
		else if (!m->cached && m->sum.mtime_ns != KREC_RACY)
			stale++;
	}
	if (stale > STALE_MAX)
		t->dirty = true;
	if (!t->walk_cached && t->have_idx) {
		bool same = t->walk_clean && t->n_dirs == t->idx.n_dirs;
		for (size_t i = 0; same && i < t->n_dirs; i++)
			same = t->dirs[i].ino == t->idx.dirs[i].ino &&
			       t->dirs[i].mtime_ns == t->idx.dirs[i].mtime_ns &&
			       strcmp(t->dirs[i].relpath, t->idx.dirs[i].relpath) == 0;
		if (!same && (t->walk_clean || t->idx.n_dirs))
			t->dirty = true;
	}
	t->st.modules = t->n_mods;
out:
	free(resolve_items);
	free(check_items);
	return r;
}

KSC_EXPORT int ksc_tree_open(struct ksc_ctx *ctx, const char *root, const char *kver,
			     const struct ksc_tree_opts *opts, struct ksc_tree **out)
{
	struct ksc_tree *t;
	unsigned int a, b;
	int r;

	*out = NULL;
	if (!ctx)
		return -EINVAL;
	/* depmod's is_version_number() */
	if (kver && (sscanf(kver, "%u.%u", &a, &b) != 2 || strchr(kver, '/'))) {
		ksc_err(ctx, "%s: not a kernel release (MAJOR.MINOR...)", kver);
		return -EINVAL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->refcount = 1;
	t->ctx = ksc_ref(ctx);
	t->dfd = -1;
	hash_init(&t->by_name);
	hash_init(&t->ksyms);
	if (opts) {
		size_t sz = opts->sz < sizeof(t->opts) ? opts->sz : sizeof(t->opts);
		memcpy(&t->opts, opts, sz);
	}
	t->opts.sz = sizeof(t->opts);
	if (t->opts.check) {
		t->check = (struct ksc_check_opts){ .sz = sizeof(t->check),
						    .allow_missing_ns = -1 };
		size_t sz = t->opts.check->sz < sizeof(t->check) ? t->opts.check->sz
								 : sizeof(t->check);
		memcpy(&t->check, t->opts.check, sz);
		t->check.sz = sizeof(t->check);
		t->has_check = true;
	}
	t->opts.check = NULL;
	t->st.wall_total = now_s();
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	t->start_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec;

	r = make_absolute(root, &t->root);
	if (r < 0)
		goto err;
	if (!(t->root_arg = strdup(root ? root : "/")))
		goto oom;
	r = ksc_kernel_locate(ctx, t->root, kver, &t->loc);
	if (r < 0)
		goto err;
	kver = ksc_kernel_location_get_release(t->loc);
	t->release = strdup(kver);
	t->moddir = strdup(ksc_kernel_location_get_path(t->loc, KSC_KFILE_MODULE_DIR));
	if (!t->release || !t->moddir)
		goto oom;
	r = ksc_depmod_cfg_load(ctx, t->root, kver, &t->dmcfg);
	if (r < 0)
		goto err;
	t->modset_fp = ksc_depmod_cfg_fingerprint(t->dmcfg);
	if (t->opts.index && !(t->index_path = strdup(t->opts.index)))
		goto oom;
	if (t->has_check && t->check.policy &&
	    !(t->check.policy = strdup(t->check.policy)))
		goto oom;
	struct ksc_kver v;
	const char *pol = t->has_check && t->check.policy ? t->check.policy : kver;
	if (ksc_kver_parse(pol, &v) < 0) {
		ksc_err(ctx, "%s: not a kernel version", pol);
		r = -EINVAL;
		goto err;
	}
	if (asprintf(&t->policy, "%u.%u", v.major, v.minor) < 0) {
		t->policy = NULL;
		goto oom;
	}
	t->dfd = open(t->moddir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->dfd < 0) {
		r = -errno;
		if (r == -ENOENT || r == -ENOTDIR)
			ksc_err(ctx, "%s: no such module directory", t->moddir);
		else
			ksc_err(ctx, "%s: %s", t->moddir, strerror(-r));
		if (r == -ENOTDIR)
			r = -ENOENT;
		goto err;
	}
	r = do_open(t);
	if (r < 0)
		goto err;
	t->st.wall_total = now_s() - t->st.wall_total;
	*out = t;
	return 0;
oom:
	r = -ENOMEM;
err:
	if (r == -ENOMEM)
		ksc_err(ctx, "%s: out of memory",
			t->moddir ? t->moddir : "ksc_tree_open");
	ksc_tree_unref(t);
	return r;
}

KSC_EXPORT struct ksc_tree *ksc_tree_ref(struct ksc_tree *t)
{
	if (t)
		t->refcount++;
	return t;
}

KSC_EXPORT struct ksc_tree *ksc_tree_unref(struct ksc_tree *t)
{
	if (!t || --t->refcount > 0)
		return NULL;
	drop_check_kernel(t); /* after an error in the middle of the checks */
	for (size_t i = 0; i < t->n_mods; i++) {
		struct tmod *m = &t->mods[i];
		free_paths(m);
		free(m->rec_own);
		free(m->der_own);
		if (m->deps_own)
			free(m->deps);
		if (m->unres_own)
			free(m->unres);
	}
	free(t->walk_arena);
	free(t->mods);
	free(t->root_arg);
	for (size_t i = 0; i < t->n_dirs; i++)
		free((char *)t->dirs[i].relpath);
	free(t->dirs);
	problems_free(t->problems, t->n_problems);
	free(t->problems);
	problems_free(t->kproblems, t->n_kproblems);
	free(t->kproblems);
	free(t->pub_problems);
	hash_fini(&t->by_name);
	hash_fini(&t->ksyms);
	free(t->ksyms_at);
	ksc_kidx_free(&t->idx);
	ksc_depmod_cfg_free(t->dmcfg);
	ksc_symvers_unref(t->ksv);
	ksc_module_unref(t->kvm);
	ksc_sysmap_unref(t->ksm);
	ksc_kernel_unref(t->ktmpl);
	free(t->cycle_flat);
	free(t->cycle_lens);
	if (t->cycle_mods)
		for (size_t i = 0; i < t->n_cycles; i++)
			free(t->cycle_mods[i]);
	free(t->cycle_mods);
	free(t->unres);
	free(t->verdicts);
	free(t->has_verdict);
	free(t->diags);
	free(t->out_dir);
	for (size_t i = 0; i < t->n_outs; i++)
		free(t->out_names[i]);
	if (t->dfd >= 0)
		close(t->dfd);
	free(t->root);
	free(t->release);
	free(t->moddir);
	ksc_kernel_location_unref(t->loc);
	free(t->index_path);
	free(t->policy);
	free(t->ksrc_path);
	free(t->config_path);
	if (t->has_check)
		free((char *)t->check.policy);
	ksc_unref(t->ctx);
	free(t);
	return NULL;
}

KSC_EXPORT const char *ksc_tree_get_moddir(const struct ksc_tree *t)
{
	return t->moddir;
}

KSC_EXPORT const char *ksc_tree_get_release(const struct ksc_tree *t)
{
	return t->release;
}

KSC_EXPORT const char *ksc_tree_get_kernel_source(const struct ksc_tree *t)
{
	return t->ksrc_path;
}


KSC_EXPORT size_t ksc_tree_get_module_count(const struct ksc_tree *t)
{
	return t->n_mods;
}

KSC_EXPORT const char *ksc_tree_get_module_path(const struct ksc_tree *t, size_t i)
{
	return i < t->n_mods ? t->mods[i].path : NULL;
}

KSC_EXPORT const char *ksc_tree_get_module_relpath(const struct ksc_tree *t, size_t i)
{
	return i < t->n_mods ? t->mods[i].relpath : NULL;
}

KSC_EXPORT const char *ksc_tree_get_module_name(const struct ksc_tree *t, size_t i)
{
	return i < t->n_mods ? t->mods[i].modname : NULL;
}

KSC_EXPORT int ksc_tree_get_module_error(const struct ksc_tree *t, size_t i)
{
	if (i >= t->n_mods)
		return -ERANGE;
	const struct krec_sum *r = &t->mods[i].sum;
	if (!(r->flags & KREC_F_ENGINE))
		return r->err ? r->err : -EINVAL;
	return r->kind == KSC_KIND_VMLINUX ? -ENOEXEC : 0;
}

KSC_EXPORT bool ksc_tree_module_is_cached(const struct ksc_tree *t, size_t i)
{
	return i < t->n_mods && t->mods[i].cached;
}

KSC_EXPORT int ksc_tree_get_module(const struct ksc_tree *t, size_t i,
				   struct ksc_module **out)
{
	*out = NULL;
	if (i >= t->n_mods)
		return -ERANGE;
	const struct krec *r =
		need_rec((struct ksc_tree *)t, &((struct ksc_tree *)t)->mods[i]);
	if (!r)
		return -ENOMEM;
	return ksc_krec_to_module(t->ctx, r, t->mods[i].path, true, false, NULL, out);
}

KSC_EXPORT size_t ksc_tree_get_dep_count(const struct ksc_tree *t, size_t i)
{
	return i < t->n_mods ? t->mods[i].n_deps : 0;
}

KSC_EXPORT size_t ksc_tree_get_dep(const struct ksc_tree *t, size_t i, size_t j)
{
	if (i >= t->n_mods || j >= t->mods[i].n_deps)
		return SIZE_MAX;
	return t->mods[i].deps[j];
}

KSC_EXPORT size_t ksc_tree_get_all_deps(const struct ksc_tree *t, size_t i, size_t *buf,
					size_t n)
{
	if (i >= t->n_mods)
		return 0;
	uint32_t **dp = malloc((t->n_mods ? t->n_mods : 1) * sizeof(*dp));
	uint32_t *nd = malloc((t->n_mods ? t->n_mods : 1) * sizeof(*nd));
	int *si = malloc((t->n_mods ? t->n_mods : 1) * sizeof(*si));
	unsigned char *mark = calloc(t->n_mods ? t->n_mods : 1, 1);
	uint32_t *all = NULL;
	size_t k = SIZE_MAX;
	if (dp && nd && si && mark) {
		for (size_t x = 0; x < t->n_mods; x++) {
			dp[x] = t->mods[x].deps;
			nd[x] = t->mods[x].n_deps;
			si[x] = t->mods[x].sort_idx;
		}
		k = ksc_depmod_all_deps((uint32_t)i, dp, nd, si, mark, &all);
		for (size_t x = 0; k != SIZE_MAX && x < k && x < n; x++)
			buf[x] = all[x];
	}
	free(all);
	free(dp);
	free(nd);
	free(si);
	free(mark);
	return k;
}

KSC_EXPORT size_t ksc_tree_get_unresolved_count(const struct ksc_tree *t)
{
	return t->n_unres;
}

KSC_EXPORT const struct ksc_tree_unresolved *
ksc_tree_get_unresolved(const struct ksc_tree *t, size_t i)
{
	return i < t->n_unres ? &t->unres[i] : NULL;
}

KSC_EXPORT size_t ksc_tree_get_cycle_count(const struct ksc_tree *t)
{
	return t->n_cycles;
}

KSC_EXPORT size_t ksc_tree_get_cycle(const struct ksc_tree *t, size_t i,
				     const size_t **mods)
{
	if (i >= t->n_cycles) {
		*mods = NULL;
		return 0;
	}
	*mods = t->cycle_mods[i];
	return t->cycle_lens[i];
}

KSC_EXPORT bool ksc_tree_has_verdicts(const struct ksc_tree *t)
{
	for (size_t i = 0; i < t->n_mods; i++)
		if (t->has_verdict[i])
			return true;
	return false;
}

KSC_EXPORT const char *ksc_tree_get_policy(const struct ksc_tree *t)
{
	return t->policy;
}

KSC_EXPORT const struct ksc_module_verdict *ksc_tree_get_verdict(const struct ksc_tree *t,
								 size_t i)
{
	return i < t->n_mods && t->has_verdict[i] ? &t->verdicts[i] : NULL;
}

KSC_EXPORT size_t ksc_tree_get_diag_count(const struct ksc_tree *t)
{
	return t->n_diags;
}

KSC_EXPORT const struct ksc_diag *ksc_tree_get_diag(const struct ksc_tree *t, size_t i)
{
	return i < t->n_diags ? &t->diags[i] : NULL;
}

KSC_EXPORT size_t ksc_tree_get_problem_count(const struct ksc_tree *t)
{
	return t->n_problems;
}

KSC_EXPORT const struct ksc_tree_problem *ksc_tree_get_problem(const struct ksc_tree *t,
							       size_t i)
{
	return i < t->n_problems ? &t->pub_problems[i] : NULL;
}

KSC_EXPORT void ksc_tree_get_stats(const struct ksc_tree *t, struct ksc_tree_stats *st)
{
	*st = t->st;
	st->index_state = t->index_state;
}

/* ---------------------------------------------------------------------------------- */
/* depmod's files                                                                     */

static const struct {
	unsigned int flag;
	const char *name;
} depmod_files[] = {
	/* Renamed in this order: modules.dep, which kmod reads first, last of all. */
	{ KSC_DEPMOD_SYMBOLS, "modules.symbols" },
	{ KSC_DEPMOD_ALIAS, "modules.alias" },
	{ KSC_DEPMOD_SOFTDEP, "modules.softdep" },
	{ KSC_DEPMOD_DEVNAME, "modules.devname" },
	{ KSC_DEPMOD_DEP, "modules.dep" },
};

KSC_EXPORT const char *ksc_depmod_file_name(unsigned int file)
{
	for (size_t i = 0; i < ARRAY_SIZE(depmod_files); i++)
		if (depmod_files[i].flag == file)
			return depmod_files[i].name;
	return NULL;
}

/* The bytes of one file. */
static int render(const struct ksc_tree *t, unsigned int file, char **data, size_t *size)
{
	struct ksc_depmod_mod *mods = malloc((t->n_mods ? t->n_mods : 1) * sizeof(*mods));
	int *si = malloc((t->n_mods ? t->n_mods : 1) * sizeof(*si));
	struct ksc_depmod_sym *syms = NULL;
	size_t n_syms = 0;
	struct hash h;
	int r = -ENOMEM;

	hash_init(&h);
	if (!mods || !si)
		goto out;
	for (size_t i = 0; i < t->n_mods; i++) {
		const struct tmod *m = &t->mods[i];
		mods[i] = (struct ksc_depmod_mod){ m->relpath, m->modname, m->rec,
						   m->deps, m->n_deps,
						   ksc_depmod_path_fault(m->relpath) != NULL };
		si[i] = m->sort_idx;
	}
	if (file == KSC_DEPMOD_SYMBOLS) {
		/* The owner of each name: the last module in order that exports it. */
		size_t total = 0;
		for (size_t i = 0; i < t->n_mods; i++)
			total += t->mods[i].rec->kexports.n;
		syms = malloc((total ? total : 1) * sizeof(*syms));
		if (!syms || hash_reserve(&h, total) < 0)
			goto out;
		for (size_t i = 0; i < t->n_mods; i++) {
			const struct krec *rec = t->mods[i].rec;
			const struct krec_crc *c = krec_arr(rec, rec->kexports);
			if (mods[i].left_out)
				continue;
			for (size_t j = 0; j < rec->kexports.n; j++) {
				const char *name = krec_str(rec, c[j].name);
				uintptr_t have = (uintptr_t)hash_find(&h, name);
				if (have) {
					syms[have - 1].owner = (uint32_t)i;
					continue;
				}
				syms[n_syms] =
					(struct ksc_depmod_sym){ name, (uint32_t)i, 0 };
				if (hash_add(&h, name, (void *)(uintptr_t)(n_syms + 1),
					     0) < 0)
					goto out;
				n_syms++;
			}
		}
	}
	r = ksc_depmod_format(file, mods, t->n_mods, si, syms, n_syms, data, size);
out:
	hash_fini(&h);
	free(mods);
	free(si);
	free(syms);
	return r;
}

/*
 * What cannot be written into the files in `what` without splitting or forging a line:
 * each logged, the number returned (ksc-depmod.c decides and leaves them out).
 */
static int depmod_faults(const struct ksc_tree *t, unsigned int what)
{
	int n = 0;

	for (size_t i = 0; i < t->n_mods; i++) {
		const struct tmod *m = &t->mods[i];
		const char *why = ksc_depmod_path_fault(m->relpath);
		if (why) {
			ksc_err(t->ctx, "%s: %s: left out of depmod's files", m->path, why);
			n++;
			continue;
		}
		const struct krec *r = m->rec;
		const struct krec_pair *p = krec_arr(r, ksc_krec_kinfo(r));
		for (size_t j = 0; what & (KSC_DEPMOD_ALIAS | KSC_DEPMOD_SOFTDEP) &&
				   j < ksc_krec_kinfo(r).n;
		     j++) {
			const char *k = krec_str(r, p[j].key), *v = krec_str(r, p[j].value);
			bool alias = strcmp(k, "alias") == 0;
			if ((!alias && strcmp(k, "softdep") != 0) || ksc_depmod_value_ok(k, v))
				continue;
			ksc_err(t->ctx, "%s: %s \"%s\": a %s: left out of modules.%s", m->path,
				k, v, ksc_text_has_control(v) ? "control character" : "space",
				alias ? "alias" : "softdep");
			n++;
		}
		const struct krec_crc *c = krec_arr(r, r->kexports);
		for (size_t j = 0; what & KSC_DEPMOD_SYMBOLS && j < r->kexports.n; j++) {
			const char *name = krec_str(r, c[j].name);
			if (ksc_depmod_symbol_ok(name))
				continue;
			ksc_err(t->ctx, "%s: exported symbol \"%s\": a %s: left out of "
				"modules.symbols", m->path, name,
				ksc_text_has_control(name) ? "control character" : "space");
			n++;
		}
	}
	return n;
}

KSC_EXPORT int ksc_tree_print_depmod(const struct ksc_tree *t, unsigned int file, FILE *f)
{
	char *data;
	size_t size;

	if (!ksc_depmod_file_name(file))
		return -EINVAL;
	if (t->n_cycles)
		return -EDEADLK;
	int r = ensure_records(
		(struct ksc_tree *)t); /* records are fetched, not changed */
	if (r < 0)
		return r;
	r = render(t, file, &data, &size);
	if (r < 0)
		return r;
	if (size && fwrite(data, 1, size, f) != size)
		r = -EIO;
	free(data);
	return r < 0 ? r : depmod_faults(t, file);
}

struct render_job {
	unsigned int files[ARRAY_SIZE(depmod_files)];
	char *data[ARRAY_SIZE(depmod_files)];
	size_t size[ARRAY_SIZE(depmod_files)];
	int err[ARRAY_SIZE(depmod_files)];
};

static void render_item(struct tpool *p, size_t i, unsigned int worker)
{
	struct render_job *j = p->data;

	j->err[i] = render(p->t, j->files[i], &j->data[i], &j->size[i]);
}

KSC_EXPORT int ksc_tree_write_depmod(struct ksc_tree *t, const char *dir,
				     unsigned int what)
{
	double t0 = now_s();
	char *adir = NULL;
	int r = 0;

	if (t->n_cycles) {
		ksc_err(t->ctx, "%s: %zu dependency cycle%s: depmod's files not written",
			t->moddir, t->n_cycles, t->n_cycles == 1 ? "" : "s");
		return -EDEADLK;
	}
	r = make_absolute(dir ? dir : t->moddir, &adir);
	if (r < 0)
		return r;
	/*
	 * What the index says was written last time, into this folder, for these modules.
	 */
	bool same = t->have_idx && t->idx.out_dir && strcmp(t->idx.out_dir, adir) == 0 &&
		    t->idx.out_fp == t->out_fp;
	struct kidx_output outs[ARRAY_SIZE(depmod_files)];
	const char *names[ARRAY_SIZE(depmod_files)];
	struct render_job rj;
	size_t n_outs = 0, n_new = 0;
	memset(&rj, 0, sizeof(rj));
	for (size_t i = 0; i < ARRAY_SIZE(depmod_files); i++) {
		if (!(what & depmod_files[i].flag))
			continue;
		const char *name = depmod_files[i].name;
		char path[PATH_MAX];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", adir, name);
		const struct kidx_output *prev = NULL;
		for (size_t k = 0; same && k < t->idx.n_outs; k++)
			if (strcmp(t->idx.outs[k].name, name) == 0)
				prev = &t->idx.outs[k];
		if (prev && stat(path, &st) == 0 && (uint64_t)st.st_size == prev->size &&
		    (uint64_t)st.st_ino == prev->ino &&
		    st_mtime_ns(&st) == prev->mtime_ns) {
			outs[n_outs] = *prev; /* unchanged, and so is the file */
			names[n_outs++] = name;
			continue;
		}
		rj.files[n_new++] = depmod_files[i].flag;
	}
	/*
	 * What is left out is said on every run, rewritten or not: the records it needs are
	 * fetched for that.
	 */
	r = ensure_records(t);
	int faults = r < 0 ? 0 : depmod_faults(t, what);
	/* The files that must be (re)written: made in parallel, then written together. */
	if (n_new && r == 0) {
		struct tpool p = { .n = n_new, .fn = render_item, .data = &rj };
		unsigned int jobs = t->st.jobs ? t->st.jobs : 1;
		run_pool(t, &p, jobs, NULL, "write");
		for (size_t i = 0; i < n_new && r == 0; i++)
			r = rj.err[i];
	}
	if (r == 0 && n_new) {
		const char *wnames[ARRAY_SIZE(depmod_files)];
		struct iovec iov[ARRAY_SIZE(depmod_files)];
		for (size_t i = 0; i < n_new; i++) {
			wnames[i] = ksc_depmod_file_name(rj.files[i]);
			iov[i] = (struct iovec){ rj.data[i], rj.size[i] };
		}
		size_t bad;
		r = ksc_write_atomic_many(adir, wnames, iov, n_new, true, &bad);
		if (r < 0 && bad < n_new)
			ksc_err(t->ctx, "%s/%s: %s", adir, wnames[bad], ksc_write_strerror(-r));
		else if (r < 0)
			ksc_err(t->ctx, "%s: %s", adir, ksc_write_strerror(-r));
		for (size_t i = 0; i < n_new && r == 0; i++) {
			char path[PATH_MAX];
			struct stat st;
			snprintf(path, sizeof(path), "%s/%s", adir, wnames[i]);
			if (stat(path, &st) < 0) {
				r = -errno;
				break;
			}
			outs[n_outs] = (struct kidx_output){
				wnames[i], (uint64_t)st.st_size, (uint64_t)st.st_ino,
				ksc_hash64(rj.data[i], rj.size[i], 5), st_mtime_ns(&st)
			};
			names[n_outs++] = wnames[i];
		}
	}
	for (size_t i = 0; i < n_new; i++)
		free(rj.data[i]);
	if (r < 0) {
		free(adir);
		return r;
	}
	/* Remember them for the index. */
	for (size_t i = 0; i < t->n_outs; i++)
		free(t->out_names[i]);
	free(t->out_dir);
	t->out_dir = adir;
	t->n_outs = 0;
	for (size_t i = 0; i < n_outs; i++) {
		t->out_names[i] = strdup(names[i]);
		if (!t->out_names[i])
			return -ENOMEM;
		t->outs[i] = outs[i];
		t->outs[i].name = t->out_names[i];
		t->n_outs++;
	}
	t->outs_from_index = false;
	if (n_new || !same || n_outs != t->idx.n_outs)
		t->dirty = true;
	t->st.wall_write_depmod += now_s() - t0;
	return faults;
}

KSC_EXPORT int ksc_tree_save_index(struct ksc_tree *t)
{
	double t0 = now_s();
	int r;

	if (!t->index_path)
		return -EINVAL;
	/*
	 * Keep what the index knew about the last depmod files when none were written
	 * now.
	 */
	const char *out_dir = t->out_dir;
	const struct kidx_output *outs = t->outs;
	size_t n_outs = t->n_outs;
	if (!out_dir && t->have_idx && t->idx.out_dir && t->idx.out_fp == t->out_fp) {
		out_dir = t->idx.out_dir;
		outs = t->idx.outs;
		n_outs = t->idx.n_outs;
	} else if (!out_dir) {
		n_outs = 0;
	}
	if (!t->dirty)
		return 0; /* the index on disk says all this already */
	r = ensure_records(t);
	if (r < 0)
		return r;
	struct kidx_wmod *mods = malloc((t->n_mods ? t->n_mods : 1) * sizeof(*mods));
	if (!mods)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_mods; i++) {
		const struct tmod *m = &t->mods[i];
		bool same = m->old && m->rec == m->old->rec;
		mods[i] = (struct kidx_wmod){
			m->rec, m->der,
			same ? m->old->rec_hash : m->rec == m->rec_own ? m->rec_hash : 0,
			m->modname, t->walk_clean ? m->dir : KREC_NONE, m->replaced
		};
	}
	struct kidx_write w = {
		.moddir = t->moddir,
		.release = t->release,
		.ctx_fp = t->ctx_fp,
		.dm_world_fp = t->dm_fp,
		.eng_world_fp = t->eng_fp,
		.out_fp = t->out_fp,
		.order_fp = t->order_fp,
		.modset_fp = t->modset_fp,
		.derived = true,
		.mods = mods,
		.n_mods = t->n_mods,
		.out_dir = out_dir,
		.outs = outs,
		.n_outs = n_outs,
		.dirs = t->walk_clean ? t->dirs : NULL,
		.n_dirs = t->walk_clean ? t->n_dirs : 0,
		.parallel = t->st.jobs > 1,
	};
	r = ksc_kidx_write(t->index_path, &w);
	free(mods);
	if (r < 0)
		ksc_err(t->ctx, "%s: %s", t->index_path, ksc_write_strerror(-r));
	else
		t->dirty = false;
	t->st.wall_index_save += now_s() - t0;
	return r;
}
