// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A module rebuilt from facts read before (the module set's records, ksc-modset-record.c)
 * instead of from its file. The wings above never write struct ksc_module: they give
 * the facts here and add the tables entry by entry. Cheap enough for a tree of thousands
 * of modules: one allocation per table, sized by the facts' counts up front, and the
 * strings borrowed from the caller unless it asks for copies.
 */
#include <errno.h>
#include <stdlib.h>

#include "readers/readers.h"

/* calloc() of at least one element, so that an empty table is not NULL. */
static void *table(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* A string for the module: the caller's, or copied into the module with f.copy. */
static const char *keep(struct ksc_module *mod, const char *s)
{
	return mod->f.copy && s ? pool_strdup(&mod->strings, s) : s;
}

/* The facts, their strings kept, and the tables of their sizes. */
static int set_facts(struct ksc_module *mod, const struct ksc_module_facts *f)
{
	mod->f = *f;
	mod->f.path = keep(mod, f->path);
	mod->f.struct_name = keep(mod, f->struct_name);
	mod->f.kmod_name = keep(mod, f->kmod_name);
	mod->f.modpost_name = keep(mod, f->modpost_name);
	mod->f.symvers_owner = keep(mod, f->symvers_owner);
	if (!mod->f.path || !mod->f.kmod_name || !mod->f.modpost_name ||
	    !mod->f.symvers_owner || (f->struct_name && !mod->f.struct_name))
		return -ENOMEM;
	mod->modinfo = table(f->cap.modinfo, sizeof(*mod->modinfo));
	mod->exports = table(f->cap.exports, sizeof(*mod->exports));
	mod->versions = table(f->cap.versions, sizeof(*mod->versions));
	mod->ext_versions = table(f->cap.ext_versions, sizeof(*mod->ext_versions));
	mod->imports = table(f->cap.imports, sizeof(*mod->imports));
	mod->sections = table(ksc_elf_section_count, sizeof(*mod->sections));
	if (!mod->modinfo || !mod->exports || !mod->versions || !mod->ext_versions ||
	    !mod->imports || !mod->sections)
		return -ENOMEM;
	for (size_t i = 0; i < ksc_elf_section_count; i++)
		if (f->sections & (1u << i))
			mod->sections[mod->n_sections++] = ksc_elf_section_names[i];
	return 0;
}

int ksc_module_new_from_facts(struct ksc_ctx *ctx, const struct ksc_module_facts *f,
			      struct ksc_module **out)
{
	struct ksc_module *mod = ksc_module_alloc(ctx);
	int ret;

	*out = NULL;
	if (!mod)
		return -ENOMEM;
	ret = set_facts(mod, f);
	if (ret < 0) {
		ksc_module_unref(mod);
		return ret;
	}
	*out = mod;
	return 0;
}

int ksc_module_add_modinfo(struct ksc_module *mod, const char *key, const char *value)
{
	if (mod->n_modinfo >= mod->f.cap.modinfo)
		return -ENOSPC;
	struct ksc_modinfo *m = &mod->modinfo[mod->n_modinfo];
	m->key = keep(mod, key);
	m->value = keep(mod, value);
	if (!m->key || !m->value)
		return -ENOMEM;
	mod->n_modinfo++;
	return 0;
}

int ksc_module_add_export(struct ksc_module *mod, const struct ksc_export *e)
{
	if (mod->n_exports >= mod->f.cap.exports)
		return -ENOSPC;
	struct ksc_export *x = &mod->exports[mod->n_exports];
	*x = *e;
	x->name = keep(mod, e->name);
	x->ns = keep(mod, e->ns);
	if (!x->name || !x->ns)
		return -ENOMEM;
	if (!mod->f.no_export_index && hash_add(&mod->export_index, x->name, x, 1) < 0)
		return -ENOMEM;
	mod->n_exports++;
	return 0;
}

int ksc_module_add_version(struct ksc_module *mod, bool ext, const char *name, uint64_t crc)
{
	struct ksc_version *v;

	if (ext ? mod->n_ext_versions >= mod->f.cap.ext_versions
		: mod->n_versions >= mod->f.cap.versions)
		return -ENOSPC;
	v = ext ? &mod->ext_versions[mod->n_ext_versions] : &mod->versions[mod->n_versions];
	v->name = keep(mod, name);
	v->crc = crc;
	if (!v->name)
		return -ENOMEM;
	if (ext)
		mod->n_ext_versions++;
	else
		mod->n_versions++;
	return 0;
}

int ksc_module_add_import(struct ksc_module *mod, const struct ksc_import *im)
{
	if (mod->n_imports >= mod->f.cap.imports)
		return -ENOSPC;
	struct ksc_import *x = &mod->imports[mod->n_imports];
	*x = *im;
	x->name = keep(mod, im->name);
	if (!x->name)
		return -ENOMEM;
	mod->n_imports++;
	return 0;
}

int ksc_module_add_params(struct ksc_module *mod, const struct ksc_param *p, size_t n)
{
	if (mod->params)
		return -EEXIST;
	mod->params = table(n, sizeof(*mod->params));
	if (!mod->params)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		mod->params[i].name = keep(mod, p[i].name);
		mod->params[i].perm = p[i].perm;
		if (!mod->params[i].name)
			return -ENOMEM;
		mod->n_params++;
	}
	return 0;
}
