// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Finding module files below a directory: sorted (so results never depend on the file
 * system's order), symbolic links followed with loops detected and each folder walked
 * once (a DAG of links would otherwise be walked along every one of its paths), every
 * problem reported as "<path>: <reason>" and counted, and the walk goes on.
 *
 * The walk is util/walk.h's (sorted, links followed, loops on the current path found
 * there, one folder open at a time, depth and entries bounded); this file adds the rule
 * that each folder is walked once and which files are modules.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "modset/modset.h"
#include "util/array.h"
#include "util/walk.h"

struct walk {
	struct ksc_ctx *ctx;
	ksc_walk_fn fn;
	void *data;
	unsigned int *errors;
	const char *const *skip; /* names skipped at the top level (depmod: build, source) */
	struct ksc_dirset dirs; /* every directory entered: its number in `paths` */
	char **paths;           /* their paths, in walk order */
	size_t n_paths, cap_paths;
};

/* ---- the set of folders walked: open addressing on (device, inode) ---- */

static size_t dirset_slot(const struct ksc_dirset *s, dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)ino * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)dev;
	size_t i = (size_t)(h ^ (h >> 29)) & (s->cap - 1);

	while (s->slots[i].val != SIZE_MAX &&
	       (s->slots[i].dev != dev || s->slots[i].ino != ino))
		i = (i + 1) & (s->cap - 1);
	return i;
}

static int dirset_grow(struct ksc_dirset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	struct ksc_dirset old = *s;

	s->slots = malloc(cap * sizeof(*s->slots));
	if (!s->slots) {
		*s = old;
		return -ENOMEM;
	}
	s->cap = cap;
	for (size_t i = 0; i < cap; i++)
		s->slots[i].val = SIZE_MAX;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].val != SIZE_MAX)
			s->slots[dirset_slot(s, old.slots[i].dev, old.slots[i].ino)] =
				old.slots[i];
	free(old.slots);
	return 0;
}

int ksc_dirset_add(struct ksc_dirset *s, dev_t dev, ino_t ino, size_t *val)
{
	if ((s->n + 1) * 4 > s->cap * 3 && dirset_grow(s) < 0)
		return -ENOMEM;
	size_t i = dirset_slot(s, dev, ino);
	if (s->slots[i].val != SIZE_MAX) {
		*val = s->slots[i].val;
		return 0;
	}
	s->slots[i] = (struct ksc_dirset_slot){ dev, ino, *val };
	s->n++;
	return 1;
}

void ksc_dirset_fini(struct ksc_dirset *s)
{
	free(s->slots);
	s->slots = NULL;
	s->n = s->cap = 0;
}

/* ---- the walk ---- */

static bool skipped(const char *name, unsigned int depth, void *data)
{
	const struct walk *w = data;

	if (depth != 1 || !w->skip)
		return false;
	for (const char *const *s = w->skip; *s; s++)
		if (strcmp(*s, name) == 0)
			return true;
	return false;
}

/*
 * Is the folder new to the walk? 1 when new (and remembered); 0 when met before by
 * another path (a warning: a DAG of links is walked once); -ENOMEM. A loop back to a
 * folder on the current path is the walk's to find.
 */
static int first_visit(const struct walk_entry *e, void *data)
{
	struct walk *w = data;
	size_t n = w->n_paths;
	int r;

	if (array_reserve(w->paths, w->cap_paths, n + 1, 64) < 0)
		return -ENOMEM;
	r = ksc_dirset_add(&w->dirs, e->st->st_dev, e->st->st_ino, &n);
	if (r <= 0) {
		if (r == 0)
			ksc_warn(w->ctx, "%s: already walked as %s: skipped", e->path,
				 w->paths[n]);
		return r;
	}
	w->paths[w->n_paths] = strdup(e->path);
	if (!w->paths[w->n_paths])
		return -ENOMEM;
	w->n_paths++;
	return 1;
}

static int found(const struct walk_entry *e, void *data)
{
	struct walk *w = data;

	return ksc_path_is_module_name(e->name) ? w->fn(e->path, w->data) : 0;
}

static void problem(const char *path, enum walk_problem what, int err, void *data)
{
	struct walk *w = data;

	ksc_err(w->ctx, "%s: %s", path, what == WALK_ERRNO ? strerror(-err)
							   : walk_problem_str(what));
	(*w->errors)++;
}

KSC_EXPORT int ksc_walk_modules(struct ksc_ctx *ctx, const char *dir,
				const char *const *skip, ksc_walk_fn fn, void *data,
				unsigned int *errors)
{
	struct walk w = { .ctx = ctx, .fn = fn, .data = data, .errors = errors, .skip = skip };
	struct walk_opts o = { .flags = WALK_SORTED | WALK_FOLLOW, .kinds = WALK_KIND_REG,
			       .exclude = skipped, .enter = first_visit, .file = found,
			       .problem = problem, .data = &w };
	struct stat st;
	int ret;

	if (stat(dir, &st) < 0) {
		int err = errno;
		ksc_err(ctx, "%s: %s", dir, strerror(err));
		(*errors)++;
		return -err;
	}
	if (!S_ISDIR(st.st_mode))
		return fn(dir, data);
	ret = walk_tree(dir, &o);
	ksc_dirset_fini(&w.dirs);
	for (size_t i = 0; i < w.n_paths; i++)
		free(w.paths[i]);
	free(w.paths);
	return ret;
}
