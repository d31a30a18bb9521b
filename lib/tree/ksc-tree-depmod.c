// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod's files of a tree (modules.dep, .symbols, .alias, .softdep, .devname): made in
 * the workers by ksc-tree-format.c's formats and written as a set, or printed; what would
 * split or forge a line is left out and said.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "tree/tree-private.h"
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

/*
 * This file's part of the tree (depmod_of()): the cycles depmod's sort found (no files
 * are written then), and depmod's files written last, for the index (depmod_written()).
 */
struct tree_depmod {
	/* depmod's sort: its cycles (depmod_take_cycles()), and their public arrays */
	uint32_t *cycle_flat;
	size_t *cycle_lens, n_cycles;
	size_t **cycle_mods;
	char *out_dir;
	struct kidx_output outs[ARRAY_SIZE(depmod_files)];
	char *out_names[ARRAY_SIZE(depmod_files)];
	size_t n_outs;
};

static struct tree_depmod *depmod_of(const struct ksc_tree *t)
{
	return tree_parts(t)->depmod;
}

int depmod_part_new(struct ksc_tree *t)
{
	struct tree_depmod *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	tree_parts(t)->depmod = d;
	return 0;
}

void depmod_part_free(struct ksc_tree *t)
{
	struct tree_depmod *d = depmod_of(t);

	if (!d)
		return;
	free(d->cycle_flat);
	free(d->cycle_lens);
	if (d->cycle_mods)
		for (size_t i = 0; i < d->n_cycles; i++)
			free(d->cycle_mods[i]);
	free(d->cycle_mods);
	free(d->out_dir);
	for (size_t i = 0; i < d->n_outs; i++)
		free(d->out_names[i]);
	free(d);
	tree_parts(t)->depmod = NULL;
}

void depmod_take_cycles(struct ksc_tree *t, uint32_t *flat, size_t *lens, size_t n)
{
	depmod_of(t)->cycle_flat = flat;
	depmod_of(t)->cycle_lens = lens;
	depmod_of(t)->n_cycles = n;
}

int publish_cycles(struct ksc_tree *t)
{
	struct tree_depmod *d = depmod_of(t);

	d->cycle_mods = calloc(d->n_cycles ? d->n_cycles : 1, sizeof(*d->cycle_mods));
	if (!d->cycle_mods)
		return -ENOMEM;
	for (size_t c = 0, at = 0; c < d->n_cycles; at += d->cycle_lens[c], c++) {
		d->cycle_mods[c] = malloc(d->cycle_lens[c] * sizeof(size_t));
		if (!d->cycle_mods[c])
			return -ENOMEM;
		for (size_t j = 0; j < d->cycle_lens[c]; j++)
			d->cycle_mods[c][j] = d->cycle_flat[at + j];
	}
	return 0;
}

KSC_EXPORT size_t ksc_tree_get_cycle_count(const struct ksc_tree *t)
{
	return depmod_of(t)->n_cycles;
}

KSC_EXPORT size_t ksc_tree_get_cycle(const struct ksc_tree *t, size_t i, const size_t **mods)
{
	if (i >= depmod_of(t)->n_cycles) {
		*mods = NULL;
		return 0;
	}
	*mods = depmod_of(t)->cycle_mods[i];
	return depmod_of(t)->cycle_lens[i];
}

const char *depmod_written(const struct ksc_tree *t, const struct kidx_output **outs,
			   size_t *n)
{
	*outs = depmod_of(t)->outs;
	*n = depmod_of(t)->n_outs;
	return depmod_of(t)->out_dir;
}

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
	const size_t n_mods = tree_n_mods(t);
	struct ksc_depmod_mod *mods = malloc((n_mods ? n_mods : 1) * sizeof(*mods));
	int *si = malloc((n_mods ? n_mods : 1) * sizeof(*si));
	struct ksc_depmod_sym *syms = NULL;
	size_t n_syms = 0;
	struct hash h;
	int r = -ENOMEM;

	hash_init(&h);
	if (!mods || !si)
		goto out;
	for (size_t i = 0; i < n_mods; i++) {
		const struct tmod *m = tree_mod(t, i);
		const struct krec *rec = ksc_modent_rec(m->ent);
		mods[i] = (struct ksc_depmod_mod){ m->relpath, m->modname, rec,
						   m->deps, m->n_deps,
						   ksc_depmod_path_fault(m->relpath) != NULL };
		si[i] = m->sort_idx;
	}
	if (file == KSC_DEPMOD_SYMBOLS) {
		/* The owner of each name: the last module in order that exports it. */
		size_t total = 0;
		for (size_t i = 0; i < n_mods; i++)
			total += ksc_krec_kexport_count(ksc_modent_rec(tree_mod(t, i)->ent));
		syms = malloc((total ? total : 1) * sizeof(*syms));
		if (!syms || hash_reserve(&h, total) < 0)
			goto out;
		for (size_t i = 0; i < n_mods; i++) {
			const struct krec *rec = ksc_modent_rec(tree_mod(t, i)->ent);
			if (mods[i].left_out)
				continue;
			for (size_t j = 0; j < ksc_krec_kexport_count(rec); j++) {
				const char *name = ksc_krec_kexport(rec, j, NULL);
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
	r = ksc_depmod_format(file, mods, n_mods, si, syms, n_syms, data, size);
out:
	hash_fini(&h);
	free(mods);
	free(si);
	free(syms);
	return r;
}

/*
 * What cannot be written into the files in `what` without splitting or forging a line:
 * each logged, the number returned (ksc-tree-format.c decides and leaves them out).
 */
static int depmod_faults(const struct ksc_tree *t, unsigned int what)
{
	int n = 0;

	for (size_t i = 0; i < tree_n_mods(t); i++) {
		const struct tmod *m = tree_mod(t, i);
		const char *why = ksc_depmod_path_fault(m->relpath);
		if (why) {
			ksc_err(tree_ctx(t), "%s: %s: left out of depmod's files",
				m->path, why);
			n++;
			continue;
		}
		const struct krec *r = ksc_modent_rec(m->ent);
		for (size_t j = 0; what & (KSC_DEPMOD_ALIAS | KSC_DEPMOD_SOFTDEP) &&
				   j < ksc_krec_kinfo_count(r);
		     j++) {
			const char *v, *k = ksc_krec_kinfo(r, j, &v);
			bool alias = strcmp(k, "alias") == 0;
			const char *vwhy = alias || strcmp(k, "softdep") == 0
						  ? ksc_depmod_value_fault(k, v)
						  : NULL;
			if (!vwhy)
				continue;
			ksc_err(tree_ctx(t), "%s: %s \"%s\": %s: left out of modules.%s",
				m->path, k, v, vwhy, alias ? "alias" : "softdep");
			n++;
		}
		for (size_t j = 0;
		     what & KSC_DEPMOD_SYMBOLS && j < ksc_krec_kexport_count(r); j++) {
			const char *name = ksc_krec_kexport(r, j, NULL);
			if (ksc_depmod_symbol_ok(name))
				continue;
			ksc_err(tree_ctx(t),
				"%s: exported symbol \"%s\": a %s: left out of "
				"modules.symbols",
				m->path, name,
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
	if (depmod_of(t)->n_cycles)
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

/*
 * Write the n_new files rendered in rj into adir together (atomically), and add each to
 * outs/names (its key for the index). 0 or -errno (said).
 */
static int write_new(struct ksc_tree *t, const char *adir, const struct render_job *rj,
		     size_t n_new, struct kidx_output *outs, const char **names, size_t *n_outs)
{
	const char *wnames[ARRAY_SIZE(depmod_files)];
	struct iovec iov[ARRAY_SIZE(depmod_files)];
	size_t bad;
	int r;

	for (size_t i = 0; i < n_new; i++) {
		wnames[i] = ksc_depmod_file_name(rj->files[i]);
		iov[i] = (struct iovec){ rj->data[i], rj->size[i] };
	}
	r = ksc_write_atomic_many(adir, wnames, iov, n_new, true, &bad);
	if (r < 0 && bad < n_new)
		ksc_err(tree_ctx(t), "%s/%s: %s", adir, wnames[bad],
			ksc_write_strerror(-r));
	else if (r < 0)
		ksc_err(tree_ctx(t), "%s: %s", adir, ksc_write_strerror(-r));
	for (size_t i = 0; i < n_new && r == 0; i++) {
		char path[PATH_MAX];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", adir, wnames[i]);
		if (stat(path, &st) < 0)
			return -errno;
		ksc_kidx_output_set(&outs[*n_outs], wnames[i], &st,
				    ksc_hash64(rj->data[i], rj->size[i], 5));
		names[(*n_outs)++] = wnames[i];
	}
	return r;
}

KSC_EXPORT int ksc_tree_write_depmod(struct ksc_tree *t, const char *dir,
				     unsigned int what)
{
	double t0 = now_s();
	char *adir = NULL;
	int r = 0;

	size_t n_cycles = depmod_of(t)->n_cycles;
	if (n_cycles) {
		ksc_err(tree_ctx(t),
			"%s: %zu dependency cycle%s: depmod's files not written",
			tree_moddir(t), n_cycles, n_cycles == 1 ? "" : "s");
		return -EDEADLK;
	}
	r = make_absolute(dir ? dir : tree_moddir(t), &adir);
	if (r < 0)
		return r;
	/*
	 * What the index says was written last time, into this folder, for these modules.
	 */
	const struct kidx_output *idx_outs = NULL;
	size_t n_idx_outs = 0;
	const char *idx_dir =
		tree_has_index(t) ? ksc_kidx_outputs(tree_kidx(t), &idx_outs, &n_idx_outs)
				  : NULL;
	bool same = idx_dir && strcmp(idx_dir, adir) == 0 &&
		    ksc_kidx_fp(tree_kidx(t), KIDX_FP_OUT) == tree_fps(t)->out;
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
		snprintf(path, sizeof(path), "%s/%s", adir, name);
		if (same &&
		    ksc_kidx_output_current(tree_kidx(t), name, path, &outs[n_outs])) {
			names[n_outs++] = name; /* unchanged, and so is the file */
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
		unsigned int jobs = tree_stats(t)->jobs ? tree_stats(t)->jobs : 1;
		run_pool(t, &p, jobs, NULL, "write");
		for (size_t i = 0; i < n_new && r == 0; i++)
			r = rj.err[i];
	}
	if (r == 0 && n_new)
		r = write_new(t, adir, &rj, n_new, outs, names, &n_outs);
	for (size_t i = 0; i < n_new; i++)
		free(rj.data[i]);
	if (r < 0) {
		free(adir);
		return r;
	}
	/* Remember them for the index. */
	struct tree_depmod *d = depmod_of(t);
	for (size_t i = 0; i < d->n_outs; i++)
		free(d->out_names[i]);
	free(d->out_dir);
	d->out_dir = adir;
	d->n_outs = 0;
	for (size_t i = 0; i < n_outs; i++) {
		d->out_names[i] = strdup(names[i]);
		if (!d->out_names[i])
			return -ENOMEM;
		d->outs[i] = outs[i];
		ksc_kidx_output_rename(&d->outs[i], d->out_names[i]);
		d->n_outs++;
	}
	if (n_new || !same || n_outs != n_idx_outs)
		tree_set_dirty(t, true);
	tree_stats(t)->wall_write_depmod += now_s() - t0;
	return faults;
}
