// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Step 1 of ksc_tree_open(): the module folder's files as the module set's walk finds
 * them (depmod_modules_search(), one file per kmod name by depmod's rules:
 * ksc-modset-search.c), and depmod's order (kmod's hash order of the names, then
 * modules.order). With an index, its walk is replayed instead while the workers check
 * that its folders and files are unchanged (pre_stat()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree/tree-private.h"
#include "util/array.h"

/*
 * This file's part of the tree (walk_of()): the module list, which every later step
 * reads (tree_n_mods(), tree_mod()), so this file sits below them in the wing's order
 * (tree-private.h); and the walk's own state. struct tmod itself is the wing's shared
 * record (tree-private.h): each step fills its own fields of it.
 */
struct tree_walk {
	/*
	 * the module set's files (its walk: ksc_modset_walk_result()), or the index's list
	 * when its walk was replayed
	 */
	struct tmod *mods;
	size_t n_mods, cap_mods;
	/* what was read of each module (the module set's entries, m->ent): walk_entries() */
	struct ksc_modents *ents;
	bool walk_cached;  /* the folders were unchanged: the index's module list used */
	char *walk_arena;  /* cached_walk()'s strings */
	uint64_t order_fp; /* modules.order */
	/* pre_stat(): a folder of the index's walk changed, the tree is walked */
	atomic_bool walk_stale;
	struct pre_job *pre_job; /* while pre_stat() runs */
};

static struct tree_walk *walk_of(const struct ksc_tree *t)
{
	return tree_parts(t)->walk;
}

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

int walk_part_new(struct ksc_tree *t)
{
	struct tree_walk *wk = calloc(1, sizeof(*wk));

	if (!wk)
		return -ENOMEM;
	atomic_init(&wk->walk_stale, false);
	tree_parts(t)->walk = wk;
	return 0;
}

void walk_part_free(struct ksc_tree *t)
{
	struct tree_walk *wk = walk_of(t);

	if (!wk)
		return;
	for (size_t i = 0; i < wk->n_mods; i++) {
		struct tmod *m = &wk->mods[i];
		free_paths(m);
		free(m->der_own);
		if (m->deps_own)
			free(m->deps);
		if (m->unres_own)
			free(m->unres);
	}
	ksc_modents_free(wk->ents);
	free(wk->walk_arena);
	free(wk->mods);
	free(wk);
	tree_parts(t)->walk = NULL;
}

size_t tree_n_mods(const struct ksc_tree *t)
{
	return walk_of(t)->n_mods;
}

struct tmod *tree_mod(const struct ksc_tree *t, size_t i)
{
	return &walk_of(t)->mods[i];
}

int walk_entries(struct ksc_tree *t)
{
	struct tree_walk *wk = walk_of(t);

	ksc_modents_free(wk->ents);
	wk->ents = NULL;
	int r = ksc_modents_new(wk->n_mods, &wk->ents);
	for (size_t i = 0; r == 0 && i < wk->n_mods; i++)
		wk->mods[i].ent = ksc_modents_at(wk->ents, i);
	return r;
}

bool walk_is_stale(struct ksc_tree *t)
{
	return atomic_load(&walk_of(t)->walk_stale);
}

bool walk_replayed(const struct ksc_tree *t)
{
	return walk_of(t)->walk_cached;
}

uint64_t walk_order_fp(const struct ksc_tree *t)
{
	return walk_of(t)->order_fp;
}

bool walk_clean(const struct ksc_tree *t)
{
	const struct ksc_walkres *wr = ksc_modset_walk_result(tree_modset(t));

	return walk_of(t)->walk_cached || (wr && ksc_walkres_clean(wr));
}

const struct kidx_dir *walk_dirs(const struct ksc_tree *t, size_t *n)
{
	const struct ksc_walkres *wr = ksc_modset_walk_result(tree_modset(t));

	*n = 0;
	if (walk_of(t)->walk_cached) {
		return ksc_kidx_dirs(tree_kidx(t), n);
	}
	return wr ? ksc_walkres_dirs(wr, n) : NULL;
}

/*
 * The module set's walk (depmod's search, ksc-modset-search.c): its files are the
 * tree's modules (their strings the set's), its problems the tree's first ones, its
 * folders the index's proof that nothing changed.
 */
int do_walk(struct ksc_tree *t)
{
	struct tree_walk *wk = walk_of(t);
	int r = ksc_modset_walk(tree_ctx(t), tree_modset(t));
	const struct ksc_walkres *wr = ksc_modset_walk_result(tree_modset(t));

	if (!wr)
		return r < 0 ? r : -ENOMEM;
	for (size_t i = 0; r >= 0 && i < ksc_walkres_problem_count(wr); i++) {
		const char *reason;
		int err;
		const char *path = ksc_walkres_problem(wr, i, &err, &reason);
		r = add_problem(t, path, err, "%s", reason);
	}
	size_t n = ksc_modset_count(tree_modset(t));
	if (r >= 0 && array_reserve(wk->mods, wk->cap_mods, n, 16) < 0)
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct tmod *m = &wk->mods[i];
		memset(m, 0, sizeof(*m));
		m->path = (char *)ksc_modset_path(tree_modset(t), i);
		m->relpath = (char *)ksc_modset_relpath(tree_modset(t), i);
		m->modname = (char *)ksc_modset_name(tree_modset(t), i);
		m->replaced = (char *)ksc_modset_replaced(tree_modset(t), i);
		m->path_arena = m->name_arena = true; /* the set's */
		m->base_off = (size_t)(ksc_basename(m->relpath) - m->relpath);
		m->rank = 1;
		m->dir = ksc_walkres_file_dir(wr, i, &m->in_root);
		wk->n_mods = i + 1;
	}
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
	struct tree_walk *wk = walk_of(t);
	const struct kidx *idx = tree_kidx(t);
	size_t n = ksc_kidx_count(idx);
	struct hash names;
	int r = 1;

	if (array_reserve(wk->mods, wk->cap_mods, n, 16) < 0)
		return -ENOMEM;
	/*
	 * Every module's path in one block, its relpath the path's tail; its name is the
	 * index's (the walk that wrote the index made it). No folder is read.
	 */
	size_t need = 0, dl = strlen(tree_moddir(t));
	for (size_t i = 0; i < n; i++) {
		size_t rl = strlen(ksc_kidx_module(idx, i, NULL, NULL, NULL));
		if (rl >= PATH_MAX)
			return 0;
		need += dl + 1 + rl + 1;
	}
	free(wk->walk_arena);
	wk->walk_arena = malloc(need ? need : 1);
	hash_init(&names);
	if (!wk->walk_arena || hash_reserve(&names, n) < 0) {
		hash_fini(&names);
		return -ENOMEM;
	}
	char *p = wk->walk_arena;
	for (size_t i = 0; r == 1 && i < n; i++) {
		const char *modname, *replaced;
		uint32_t dir;
		const char *rel = ksc_kidx_module(idx, i, &modname, &replaced, &dir);
		struct tmod *m = &wk->mods[i];
		size_t rl = strlen(rel);
		memset(m, 0, sizeof(*m));
		memcpy(p, tree_moddir(t), dl);
		p[dl] = '/';
		memcpy(p + dl + 1, rel, rl + 1);
		m->path = p;
		m->relpath = p + dl + 1;
		p += dl + 1 + rl + 1;
		m->modname = (char *)modname; /* the index outlives the walk */
		m->replaced = (char *)replaced;
		m->path_arena = m->name_arena = true;
		m->base_off = (size_t)(ksc_basename(m->relpath) - m->relpath);
		m->rank = 1;
		m->dir = dir;
		wk->n_mods = i + 1;
		/* a name twice is not the list of one walk: walk */
		int h = hash_add(&names, m->modname, NULL, 1);
		if (h != 0)
			r = h < 0 ? h : 0;
	}
	hash_fini(&names);
	/* clean: its folders (the index's) are checked by pre_stat() */
	wk->walk_cached = r == 1;
	return r;
}

void drop_walk(struct ksc_tree *t)
{
	struct tree_walk *wk = walk_of(t);

	for (size_t i = 0; i < wk->n_mods; i++)
		free_paths(&wk->mods[i]);
	ksc_modents_free(wk->ents);
	wk->ents = NULL;
	free(wk->walk_arena);
	wk->walk_arena = NULL;
	atomic_store(&walk_of(t)->walk_stale, false);
	wk->n_mods = 0;
	wk->walk_cached = false;
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

int order_modules(struct ksc_tree *t)
{
	struct tree_walk *wk = walk_of(t);
	size_t n = wk->n_mods;
	const char **names = malloc((n ? n : 1) * sizeof(*names));
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
	char **uncrel = calloc(n ? n : 1, sizeof(*uncrel));
	struct hash h;
	int ret = -ENOMEM;

	hash_init(&h);
	if (!names || !order || !uncrel)
		goto out;
	/* modules.order: matched against depmod's uncompressed relative path. */
	struct stat ost;
	int fd = ksc_open_read(tree_dfd(t), "modules.order", 0, &ost);
	char *data = NULL;
	size_t size = 0;
	int oerr = fd < 0 ? -fd : 0;
	wk->order_fp = 0;
	if (fd >= 0) {
		/* a text file: at most KSC_TEXT_MAX, whatever holes it has */
		oerr = -ksc_read_fd(fd, &ost, KSC_TEXT_MAX, &data, &size);
		close(fd);
		if (oerr == ENOMEM) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (data) {
		wk->order_fp = ksc_hash64(data, size, 11);
	} else if (oerr == EFBIG) {
		ksc_warn(tree_ctx(t), "%s/modules.order: too large (%zu bytes, limit %zu)",
			 tree_moddir(t), size, KSC_TEXT_MAX);
	} else if (oerr != ENOENT) {
		ksc_warn(tree_ctx(t), "%s/modules.order: %s", tree_moddir(t),
			 oerr == KSC_ENOTREG || oerr == EISDIR ? "not a regular file"
							       : strerror(oerr));
	}
	/*
	 * The walk of the last run (same files, listed in the order that run sorted them)
	 * and the same modules.order, read without a problem: the same order.
	 */
	if (wk->walk_cached && (data || oerr == ENOENT) &&
	    ksc_kidx_fp(tree_kidx(t), KIDX_FP_ORDER) == wk->order_fp) {
		ret = 0;
		free(data);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = wk->mods[i].modname;
	ret = ksc_depmod_hash_order(names, n, 512, order);
	if (ret < 0) {
		free(data);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		wk->mods[order[i]].hash_pos = (uint32_t)i;
	ret = -ENOMEM;
	if (data) {
		for (size_t i = 0; i < n; i++) {
			struct tmod *m = &wk->mods[i];
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
				wk->mods[i].rank = rank[i];
		} else {
			ksc_warn(tree_ctx(t),
				 "%s/modules.order: a line misses its newline; the order is not used (as depmod)",
				 tree_moddir(t));
			wk->order_fp ^= 1;
		}
		free(rank);
		free(data);
	}
	if (n > 1)
		qsort(wk->mods, n, sizeof(*wk->mods), cmp_rank);
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

/*
 * The index's modules of one folder of its walk (pre_stat()): the folder is checked, and
 * its modules looked at by path or, in a larger folder, by name relative to it. Folder
 * SIZE_MAX: modules not under a listed folder.
 */
struct rgroup {
	size_t dir;
	uint32_t start, n; /* in read_job.gmods */
};

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
		return tree_dfd(t);
	if (atomic_load(&walk_of(t)->walk_stale))
		return -1;
	uint64_t ino;
	int64_t mtime_ns;
	const char *rel = ksc_kidx_raw_dir(tree_kidx(t), g->dir, &ino, &mtime_ns);
	if (!rel) {
		atomic_store(&walk_of(t)->walk_stale, true);
		return -1;
	}
	rel = rel[0] ? rel : ".";
	struct stat st;
	int dfd = tree_dfd(t), r;
	if (g->n > 2) {
		dfd = openat(tree_dfd(t), rel,
			     O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		r = dfd < 0 ? -1 : fstat(dfd, &st);
		*by_fd = dfd >= 0;
	} else {
		r = fstatat(tree_dfd(t), rel, &st, AT_SYMLINK_NOFOLLOW);
	}
	if (r < 0 || !S_ISDIR(st.st_mode) || (uint64_t)st.st_ino != ino ||
	    st_mtime_ns(&st) != mtime_ns) {
		if (*by_fd)
			close(dfd);
		*by_fd = false;
		atomic_store(&walk_of(t)->walk_stale, true);
		return -1;
	}
	return dfd;
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
		(void)ksc_kidx_raw_module(tree_kidx(t), i, &sum, &d);
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
 * the rest of the index (finish_index(): the workers read only what ksc_kidx_open()
 * bounded, and their findings are dropped if the index turns out corrupt) and replays
 * the walk (cached_walk(), order_modules()). The index is attached afterwards.
 */
static void prestat_item(struct tpool *p, size_t i, unsigned int worker)
{
	struct ksc_tree *t = p->t;
	struct pre_job *j = p->data;
	const struct rgroup *g = &j->groups[i];
	bool by_fd;
	int dfd = group_open(t, g, &by_fd);

	if (dfd < 0)
		return;
	for (uint32_t k = 0; k < g->n && !atomic_load(&walk_of(t)->walk_stale); k++) {
		uint32_t x = j->gmods[g->start + k], d;
		struct krec_sum sum;
		const char *name = ksc_kidx_raw_module(tree_kidx(t), x, &sum, &d);
		if (!name)
			continue;
		if (by_fd) {
			const char *slash = strrchr(name, '/');
			name = slash ? slash + 1 : name;
		}
		j->pre[x] = ksc_krec_sum_same_file(&sum, dfd, name);
	}
	if (by_fd)
		close(dfd);
}

static void replay_walk(struct ksc_tree *t)
{
	struct pre_job *j = walk_of(t)->pre_job;

	j->index_err = finish_index(t);
	if (j->index_err < 0) {
		j->replay = j->index_err == -ENOMEM ? -ENOMEM : 0;
		return;
	}
	int r = cached_walk(t);

	if (r == 1)
		r = order_modules(t) < 0 ? -ENOMEM : 1;
	j->replay = r;
}

int pre_stat(struct ksc_tree *t, unsigned int jobs, struct pre_job *pj)
{
	size_t nd, nm = ksc_kidx_raw_count(tree_kidx(t), &nd);

	memset(pj, 0, sizeof(*pj));
	if (!nd || ksc_kidx_fp(tree_kidx(t), KIDX_FP_MODSET) != tree_modset_fp(t))
		return 0; /* no walk to replay, or other depmod.d rules: walk */
	for (size_t i = 0; i < nd; i++) {
		uint64_t ino;
		int64_t mtime_ns;
		if (!ksc_kidx_raw_dir(tree_kidx(t), i, &ino, &mtime_ns) ||
		    mtime_ns == KREC_RACY)
			return 0; /* the index's walk cannot be replayed: walk */
	}
	pj->pre = calloc(nm + 1, 1);
	if (!pj->pre || make_groups(t, nm, nd, &pj->groups, &pj->n_groups, &pj->gmods) < 0)
		return -ENOMEM;
	walk_of(t)->pre_job = pj;
	struct tpool p = { .n = pj->n_groups, .fn = prestat_item, .data = pj };
	run_pool(t, &p, jobs, replay_walk, "read");
	walk_of(t)->pre_job = NULL;
	return pj->replay < 0 ? pj->replay : 0;
}

void pre_fini(struct pre_job *pj)
{
	free(pj->pre);
	free(pj->groups);
	free(pj->gmods);
	memset(pj, 0, sizeof(*pj));
}

