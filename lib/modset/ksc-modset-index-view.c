// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The index of the last run as the tree reads it (modset.h): its fingerprints, its
 * modules' summaries and records, its folders, and the depmod files it remembers, handed
 * out one value at a time, so that no wing above reads struct kidx's fields. The file
 * itself is read and written by ksc-modset-index.c.
 */
#include <sys/stat.h>

#include "modset/modset.h"

const char *ksc_kidx_moddir(const struct kidx *idx)
{
	return idx->moddir;
}

const char *ksc_kidx_release(const struct kidx *idx)
{
	return idx->release;
}

bool ksc_kidx_finished(const struct kidx *idx)
{
	return idx->finished;
}

size_t ksc_kidx_count(const struct kidx *idx)
{
	return idx->n_mods;
}

uint64_t ksc_kidx_fp(const struct kidx *idx, enum kidx_fp fp)
{
	switch (fp) {
	case KIDX_FP_CTX:
		return idx->ctx_fp;
	case KIDX_FP_DM_WORLD:
		return idx->dm_world_fp;
	case KIDX_FP_ENG_WORLD:
		return idx->eng_world_fp;
	case KIDX_FP_OUT:
		return idx->out_fp;
	case KIDX_FP_ORDER:
		return idx->order_fp;
	case KIDX_FP_MODSET:
		return idx->modset_fp;
	}
	return 0;
}

bool ksc_kidx_derived(const struct kidx *idx)
{
	return idx->derived;
}

const char *ksc_kidx_module(const struct kidx *idx, size_t i, const char **modname,
			    const char **replaced, uint32_t *dir)
{
	const struct kidx_module *km = &idx->mods[i];

	if (modname)
		*modname = km->modname;
	if (replaced)
		*replaced = km->replaced;
	if (dir)
		*dir = km->dir;
	return km->relpath;
}

const struct krec_sum *ksc_kidx_module_sum(const struct kidx *idx, size_t i)
{
	return &idx->mods[i].sum;
}

const struct krec *ksc_kidx_module_rec(const struct kidx *idx, size_t i, uint64_t *rec_hash)
{
	if (rec_hash)
		*rec_hash = idx->mods[i].rec_hash;
	return idx->mods[i].rec;
}

const struct kidx_dir *ksc_kidx_dirs(const struct kidx *idx, size_t *n)
{
	*n = idx->n_dirs;
	return idx->dirs;
}

const char *ksc_kidx_outputs(const struct kidx *idx, const struct kidx_output **outs,
			     size_t *n)
{
	*outs = idx->outs;
	*n = idx->n_outs;
	return idx->out_dir;
}

bool ksc_kidx_output_current(const struct kidx *idx, const char *name, const char *path,
			     struct kidx_output *out)
{
	const struct kidx_output *prev = NULL;
	struct stat st;

	for (size_t k = 0; k < idx->n_outs; k++)
		if (strcmp(idx->outs[k].name, name) == 0)
			prev = &idx->outs[k];
	if (!prev || stat(path, &st) < 0 || (uint64_t)st.st_size != prev->size ||
	    (uint64_t)st.st_ino != prev->ino || st_mtime_ns(&st) != prev->mtime_ns)
		return false;
	*out = *prev;
	return true;
}

void ksc_kidx_output_set(struct kidx_output *o, const char *name, const struct stat *st,
			 uint64_t content_hash)
{
	*o = (struct kidx_output){ name, (uint64_t)st->st_size, (uint64_t)st->st_ino,
				   content_hash, st_mtime_ns(st) };
}

void ksc_kidx_output_rename(struct kidx_output *o, const char *name)
{
	o->name = name;
}
