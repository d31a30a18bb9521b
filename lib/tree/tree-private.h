/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tree's private header: what its files (ksc-tree*.c) share. Nothing here is seen
 * outside lib/tree/. struct ksc_tree is not here: it is ksc-tree-state.c's, and each of
 * its parts is the struct of the file that owns it (struct tree_parts below).
 *
 *   ksc-tree.c          ksc_tree_open(): the steps in order, the public getters; the
 *                       tree's life (ksc_tree_unref(): each part freed by its owner,
 *                       then the core)
 *   ksc-tree-resolve.c  step 3: depmod's resolution, sort and cycles
 *   ksc-tree-check.c    step 4: the verdicts, and each module's derived record
 *   ksc-tree-results.c  fingerprints, problems and messages, the public arrays; owns
 *                       struct tree_results (the verdicts, findings, unresolved symbols)
 *   ksc-tree-index.c    the index of the last run: opened, attached, saved; owns
 *                       struct tree_index (what became of it, verdicts wanted)
 *   ksc-tree-depmod.c   depmod's files; owns struct tree_depmod (the sort's cycles, the
 *                       files written last)
 *   ksc-tree-kernel.c   the kernel's exports; ksc_tree_get_kernel(); owns struct
 *                       tree_kern (the kernel's files, what was read, depmod's symbol
 *                       table, the kernel the checks run against)
 *   ksc-tree-read.c     step 2: reading modules into facts records, in the workers
 *                       (the module set's reader, ksc-modset-read.c), each kept by its
 *                       module's entry; the index's records fetched when needed
 *   ksc-tree-walk.c     step 1: the module set's walk taken, depmod's order; the
 *                       index's walk replayed; owns struct tree_walk (the module list:
 *                       tree_n_mods(), tree_mod(); the walk's state; the module set's
 *                       entries of the list, walk_entries())
 *   ksc-tree-pool.c     the worker threads, the messages they keep for the main thread
 *   ksc-tree-problems.c the problems met, in order; owns struct tree_problems
 *   ksc-tree-state.c    owns struct ksc_tree: its core (context, options, root, module
 *                       folder, module set, the index of the last run, fingerprints,
 *                       statistics) and its getters; small shared helpers
 *   ksc-tree-derived.c  the derived record checked (tree.h)
 *
 * Calls go down this list, never up (tests/structure.py finds a circle), and none calls
 * ksc-tree.c. ksc-tree.c runs the steps; a step calls no other step's work, only the
 * getters of the parts below it. Each part of the tree is a struct defined in the file
 * that owns it (tests/structure.py's OWNED_STRUCTS), made with the tree and freed by its
 * owner; a file that reads another's part calls that file's functions, so a part is
 * owned by a file below every file that reads it: the walk's module list is read by
 * every later step, so ksc-tree-walk.c sits below them all, and every file reads the
 * core, so ksc-tree-state.c sits at the bottom.
 *
 * What was read of each module is not the tree's: its facts record and summary, whether
 * they are the index's or read this run, the index's entry for its path are the module
 * set's entries' (struct ksc_modents, modset.h), which own the records read and free
 * them. struct tmod holds its entry (m->ent) and what the tree itself computes: paths and
 * names, depmod's dependencies, the verdicts.
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>

#include "modset/modset.h"
#include "tree/tree.h"
#include "util/workpool.h"

enum ksrc_kind { KSRC_NONE = 0, KSRC_SYMVERS, KSRC_VMLINUX, KSRC_SYSMAP };

struct tunres {
	const char *name;
	uint32_t kind;
};

/*
 * A module of the tree: the wing's shared record, in the walk's list (tree_mod()); the
 * walk fills its paths and gives it its entry, resolve its dependencies, check its
 * derived record. What was read of it, and what the index knew, is its entry's.
 */
struct tmod {
	char *relpath;	   /* below the module folder */
	char *path;	   /* absolute */
	char *modname;	   /* kmod's name */
	size_t base_off;   /* offset of the basename in relpath */
	int rank;	   /* modules.order: line - total, else 1 */
	uint32_t hash_pos; /* position in kmod's name hash order */
	/* not freed one by one: the module set's, walk_arena's, the index's */
	bool path_arena, name_arena;
	/* a file of its name it won over (the first rival met, as ksc-modset-search.c), or NULL */
	char *replaced;
	bool replaced_own;
	uint32_t dir;      /* the folder (walk_dirs()) the walk found it in, or KREC_NONE */
	bool in_root;      /* below a symbolic link: opened with tree_openat() */

	/*
	 * What was read of it: its facts record and summary, the index's entry for its path
	 * (ksc_modent_*()). The module set's entries own it (walk_entries()), not the tree.
	 */
	struct ksc_modent *ent;

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

/* An entry of depmod's symbol table: its provider and CRC. */
struct msym {
	int32_t owner; /* module index, or -1: the kernel */
	uint64_t crc;
};

/*
 * A tree (struct ksc_tree): defined in ksc-tree-state.c, its core read through that
 * file's getters (below). Its parts, each a struct defined in the file that owns it and
 * opaque to the others, made with the tree and freed by their owners:
 */
struct tree_parts {
	struct tree_walk *walk;      /* ksc-tree-walk.c: the module list, the walk */
	struct tree_kern *kern;      /* ksc-tree-kernel.c: the kernel's files, exports */
	struct tree_index *index;    /* ksc-tree-index.c: what became of the index */
	struct tree_depmod *depmod;  /* ksc-tree-depmod.c: the cycles, the files written */
	struct tree_problems *probs; /* ksc-tree-problems.c: the problems met */
	struct tree_results *res;    /* ksc-tree-results.c: the verdicts' public arrays */
};

/* What the derived results depend on (fingerprints()): for the index, depmod's files. */
struct tree_fps {
	uint64_t ctx, dm, eng, out;
};

/* ---- times ---- */

static inline double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- threads (ksc-tree-pool.c) ---- */

struct tpool;
typedef void (*job_fn)(struct tpool *p, size_t item, unsigned int worker);

/* One phase's work: fn over items (or 0..n-1), in util/workpool.h's threads. */
struct tpool {
	struct ksc_tree *t;
	size_t n;
	const size_t *items; /* item indices, or NULL for 0..n-1 */
	job_fn fn;
	void *data;
	const char *phase;
	struct workpool wp;
};

/*
 * Run fn over n items in up to `threads` threads. `side` (may be NULL) runs in the
 * calling thread meanwhile; then it reports progress until the workers are done.
 */
void run_pool(struct ksc_tree *t, struct tpool *p, unsigned int threads,
	      void (*side)(struct ksc_tree *), const char *phase);
unsigned int default_jobs(void);

/* ---- problems (ksc-tree-problems.c) ---- */

/* Its part of the tree (struct tree_problems), made with the tree and freed with it. */
int problems_part_new(struct ksc_tree *t);
void problems_part_free(struct ksc_tree *t);
/* The problems so far (the kernel's not yet merged), in the order met. */
size_t problem_count(const struct ksc_tree *t);
const struct tproblem *problem_at(const struct ksc_tree *t, size_t i);
int add_problem(struct ksc_tree *t, const char *path, int err, const char *fmt, ...)
	_printf_format_(4, 5);
/* A problem of the kernel's: kept apart until merge_kproblems() (see load_kernel()). */
int kernel_problem(struct ksc_tree *t, const char *path, int err, const char *fmt, ...)
	_printf_format_(4, 5);
/* The kernel's problems after the others so far, in the order they were met. */
int merge_kproblems(struct ksc_tree *t);
/* Sorted by path, and made the public array (ksc_tree_get_problem()). */
int publish_problems(struct ksc_tree *t);

/* ---- step 1: the walk (ksc-tree-walk.c) ---- */

/* Its part of the tree (struct tree_walk), made with the tree and freed with it. */
int walk_part_new(struct ksc_tree *t);
void walk_part_free(struct ksc_tree *t);
/*
 * The module list: how many, and module i (the wing's shared record, filled by the
 * steps; read and written by each in its phase).
 */
size_t tree_n_mods(const struct ksc_tree *t);
struct tmod *tree_mod(const struct ksc_tree *t, size_t i);
/*
 * The list final (walked and ordered, or replayed): each module's entry (m->ent) in new
 * module set entries, nothing read yet. 0 or -ENOMEM.
 */
int walk_entries(struct ksc_tree *t);
/* pre_stat() found a folder of the index's walk changed: the tree is walked. */
bool walk_is_stale(struct ksc_tree *t);
/* The index's module list was taken (its walk replayed); modules.order's fingerprint. */
bool walk_replayed(const struct ksc_tree *t);
uint64_t walk_order_fp(const struct ksc_tree *t);
/* The walk met no symbolic link, special file or problem (or the index's was replayed). */
bool walk_clean(const struct ksc_tree *t);
/* The folders the walk read (the module set's), or the index's when it was replayed. */
const struct kidx_dir *walk_dirs(const struct ksc_tree *t, size_t *n);
int do_walk(struct ksc_tree *t);
void drop_walk(struct ksc_tree *t);
int order_modules(struct ksc_tree *t);
/*
 * The usual re-check, with the index's walk (pre_stat()): which of the index's files are
 * unchanged, while the index is checked and its walk replayed.
 */
struct rgroup;
struct pre_job {
	uint8_t *pre;   /* pre[k]: the index's module k's file is unchanged */
	struct rgroup *groups;
	size_t n_groups;
	uint32_t *gmods;
	int replay;    /* 1: the index's walk replayed, 0: not usable, <0: -errno */
	int index_err; /* finish_index()'s error: the index is not to be used */
};
/* pj->replay 1: the walk is replayed and pj->pre says which files are unchanged. */
int pre_stat(struct ksc_tree *t, unsigned int jobs, struct pre_job *pj);
void pre_fini(struct pre_job *pj);

/* ---- step 2: reading (ksc-tree-read.c) ---- */

/* The facts record of a module found in the index: fetched now (main thread only). */
const struct krec *need_rec(struct ksc_tree *t, struct tmod *m);
/* Every record in memory, before work on all modules or in threads. */
int ensure_records(struct ksc_tree *t);

/* ---- the kernel's exports (ksc-tree-kernel.c) ---- */

int find_kernel(struct ksc_tree *t);
int load_kernel(struct ksc_tree *t);
void side_load_kernel(struct ksc_tree *t);
void *kernel_thread(void *data);
/* The kernel's exports loading on a thread of their own (kernel_thread()). */
struct kload {
	pthread_t th;
	bool on;
};
/* Wait for it; its problems join the others. */
int kload_join(struct ksc_tree *t, struct kload *k);
/* Its part of the tree (struct tree_kern), made with the tree and freed with it. */
int kernel_part_new(struct ksc_tree *t);
void kernel_part_free(struct ksc_tree *t);
/* Exports were found (a file named or located), loaded without a problem, with CRCs. */
bool kernel_found(const struct ksc_tree *t);
bool kernel_usable(const struct ksc_tree *t);
bool kernel_has_crcs(const struct ksc_tree *t);
/* What the derived results depend on: the exports' and config's file ids, the quirks. */
void kernel_ids(const struct ksc_tree *t, uint64_t *exports, uint64_t *config,
		unsigned int *quirks);
/* Add to depmod's symbol table (a later one replaces an earlier one). */
int ksym_add(struct ksc_tree *t, const char *name, int32_t owner, uint64_t crc);
/* Each module's exports added to it, in module order. */
int ksym_add_modules(struct ksc_tree *t);
/* depmod_symbol_find(): a symbol's entry, or NULL. */
const struct msym *ksym_find(const struct ksc_tree *t, const char *name);
/* The kernel to check against: the exports, the configuration, every module as provider. */
int tree_kernel(struct ksc_tree *t, struct ksc_ctx *ctx, struct ksc_kernel **out);
/* That kernel for the check phase, built once (also as resolve's side job), then dropped. */
void build_check_kernel(struct ksc_tree *t);
void drop_check_kernel(struct ksc_tree *t);
/*
 * The kernel to check against, built unless built while resolving, and what it logged
 * said: 1 when out of memory, else 0. The kernel (NULL when it could not be built).
 */
int ready_check_kernel(struct ksc_tree *t);
struct ksc_kernel *check_kernel(const struct ksc_tree *t);

/* ---- step 4: verdicts (ksc-tree-check.c) ---- */

int build_kder(const struct tmod *m, const struct ksc_report *rep, const struct kder *old,
	       struct kder **out);

/* ---- depmod's files (ksc-tree-depmod.c) ---- */

/* Its part of the tree (struct tree_depmod), made with the tree and freed with it. */
int depmod_part_new(struct ksc_tree *t);
void depmod_part_free(struct ksc_tree *t);
/* The cycles of depmod's sort (ksc_depmod_cycles()'s arrays, now the part's). */
void depmod_take_cycles(struct ksc_tree *t, uint32_t *flat, size_t *lens, size_t n);
/* Their public arrays (ksc_tree_get_cycle()). */
int publish_cycles(struct ksc_tree *t);
/* The folder depmod's files were last written to (or NULL), and those files. */
const char *depmod_written(const struct ksc_tree *t, const struct kidx_output **outs,
			   size_t *n);

/* ---- results (ksc-tree-results.c) ---- */

/* Its part of the tree (struct tree_results), made with the tree and freed with it. */
int results_part_new(struct ksc_tree *t);
void results_part_free(struct ksc_tree *t);
void fingerprints(struct ksc_tree *t);
int report_problems(struct ksc_tree *t);
int assemble(struct ksc_tree *t);

/* ---- the index (ksc-tree-index.c) ---- */

/* Its part of the tree (struct tree_index), made with the tree and freed with it. */
int index_part_new(struct ksc_tree *t);
void index_part_free(struct ksc_tree *t);
/* What became of the index (ksc_tree_get_stats()). */
enum ksc_tree_index_state index_state(const struct ksc_tree *t);
/* Do this run's modules get verdicts (plan_work())? */
bool verdicts_wanted(const struct ksc_tree *t);
void drop_index(struct ksc_tree *t, int r);
void load_index(struct ksc_tree *t);
int attach_index(struct ksc_tree *t);

/* ---- the tree's core, and shared helpers (ksc-tree-state.c) ---- */

/* A new tree: the context, one reference, nothing else yet; NULL when out of memory. */
struct ksc_tree *tree_new(struct ksc_ctx *ctx);
/*
 * The options copied, the root, release and module folder located, depmod.d read, the
 * policy, the module folder opened. 0 or -errno (said, but -ENOMEM).
 */
int tree_setup(struct ksc_tree *t, const char *root, const char *kver,
	       const struct ksc_tree_opts *opts);
/* A reference dropped: true when it was the last (free the parts, then tree_free()). */
bool tree_put(struct ksc_tree *t);
void tree_free(struct ksc_tree *t);
/* Its parts (each owner reads and sets its own). */
struct tree_parts *tree_parts(const struct ksc_tree *t);
struct ksc_ctx *tree_ctx(const struct ksc_tree *t);
const struct ksc_tree_opts *tree_opts(const struct ksc_tree *t);
/* The check options, or NULL when none were given. */
const struct ksc_check_opts *tree_check(const struct ksc_tree *t);
/* The root, absolute, and as the caller gave it; the module folder; the release. */
const char *tree_root(const struct ksc_tree *t);
const char *tree_root_arg(const struct ksc_tree *t);
const char *tree_moddir(const struct ksc_tree *t);
const char *tree_release(const struct ksc_tree *t);
const char *tree_index_path(const struct ksc_tree *t);
const struct ksc_kernel_location *tree_location(const struct ksc_tree *t);
/* The module set (depmod.d, the walk and its files) and its fingerprint. */
struct ksc_modset *tree_modset(const struct ksc_tree *t);
uint64_t tree_modset_fp(const struct ksc_tree *t);
/* The module folder, open. */
int tree_dfd(const struct ksc_tree *t);
/* When the run started (files newer are racy). */
int64_t tree_start_ns(const struct ksc_tree *t);
/* The index of the last run; whether there is one; whether this run changed it. */
struct kidx *tree_kidx(const struct ksc_tree *t);
bool tree_has_index(const struct ksc_tree *t);
void tree_set_has_index(struct ksc_tree *t, bool on);
bool tree_is_dirty(const struct ksc_tree *t);
void tree_set_dirty(struct ksc_tree *t, bool on);
struct tree_fps *tree_fps(const struct ksc_tree *t);
struct ksc_tree_stats *tree_stats(const struct ksc_tree *t);

int make_absolute(const char *p, char **out);
/*
 * `rel` below the module folder opened as the tree's root sees it (symbolic links
 * resolved inside the root, no /proc magic links): a descriptor, or -1 and errno.
 */
int tree_openat(const struct ksc_tree *t, const char *rel, int flags);
/*
 * The rest of the index checked (ksc_kidx_finish()), and its derived records: 0, or
 * -EINVAL (corrupt: not to be used), -ENOMEM, -errno.
 */
int finish_index(struct ksc_tree *t);

/* ---- the steps of do_open() in their files ---- */

/* The modules this run resolves and checks again (the others' results are reused). */
struct tree_work {
	size_t *resolve, *check;
	size_t n_resolve, n_check;
};
/*
 * Step 2 (ksc-tree-read.c): read items[0..n_items) (every module when items is NULL) in
 * `jobs` threads; `side` (side_load_kernel(), or NULL) runs in the calling thread
 * meanwhile. 0, or -ENOMEM (also when a module was left without a record).
 */
int read_modules(struct ksc_tree *t, unsigned int jobs, const size_t *items, size_t n_items,
		 void (*side)(struct ksc_tree *));
/* Which derived records of the index still hold, and so what must be done again (ksc-tree-index.c). */
int plan_work(struct ksc_tree *t, struct tree_work *w);
/* Does the index need writing (ksc-tree-index.c)? */
bool index_is_stale(const struct ksc_tree *t);
/* Step 3 (ksc-tree-resolve.c): depmod's resolution of modules items[0..n). */
int resolve_modules(struct ksc_tree *t, unsigned int jobs, const size_t *items, size_t n,
		    bool then_check);
/* depmod's sort and its cycles, over every module. */
int sort_modules(struct ksc_tree *t);
/* Step 4 (ksc-tree-check.c): the verdicts of modules items[0..n). */
int check_modules(struct ksc_tree *t, unsigned int jobs, const size_t *items, size_t n);
/* The derived records of the modules resolved again but not checked again. */
int finish_derived(struct ksc_tree *t);
