// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * struct ksc_module: one parsed module or vmlinux, and the names the kernel tools give it.
 * The struct is this file's alone, as kmod keeps struct kmod_module inside
 * libkmod-module.c: every other file, of this wing or above, goes through the functions
 * of readers.h. A module is filled by the readers (the ELF reader ksc-elf-*.c, the
 * signatures ksc-sig*.c, the file road ksc-module-file.c) or rebuilt from facts (the
 * module set's records): its facts whole (ksc_module_get_facts(), ksc_module_set_facts()),
 * each table made room for once (ksc_module_reserve()) and added to entry by entry, the
 * strings kept in the module's pool (ksc_module_strndup()) or borrowed. This file calls
 * none of the readers that fill a module (they call it; tests/structure.py holds the
 * order): the last reference is dropped in ksc-module-file.c, which frees what the
 * signatures' files keep first.
 *
 * Rebuilt from facts: cheap enough for a tree of thousands of modules, one allocation per
 * table, sized by the facts' counts up front, and the strings borrowed from the caller
 * unless it asks for copies.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "readers/readers.h"

struct ksc_module {
	int refcount;
	struct ksc_ctx *ctx;
	struct pool strings;
	struct ksc_module_facts f;

	/* a kernel image's own: linux_banner's release, VERMAGIC_STRING (ksc-elf-tables.c) */
	const char *image_release, *image_vermagic;

	struct ksc_modinfo *modinfo;
	size_t n_modinfo;

	struct ksc_import *imports;
	size_t n_imports;
	/* by name, first of a name wins; built by the first ksc_module_find_import() */
	struct hash import_index;
	bool import_index_built;

	struct ksc_version *versions, *ext_versions;
	size_t n_versions, n_ext_versions;

	struct ksc_export *exports;
	size_t n_exports;
	struct hash export_index;

	const char **sections; /* names of the sections, for ksc_module_has_section */
	size_t n_sections;

	/* __param: struct kernel_param's name and perm, in section order */
	struct ksc_param *params;
	size_t n_params;

	/* the room of each table (ksc_module_reserve()): an adder past it is -ENOSPC */
	size_t cap[KSC_MODULE_TABLES];

	/* ksc-sig.c's and ksc-sig-keys.c's: the appended signature block and a vmlinux's
	 * built-in certificates, freed by them (ksc_sig_free()) */
	struct ksc_sigtrail *sig;   /* NULL: no "~Module signature appended~" marker */
	struct ksc_certlist *certs; /* vmlinux: DER certificates found in the image */
};

/* Module file suffixes kmod recognises (shared/util.c), longest first for stripping. */
static const char *const module_suffixes[] = { ".ko.zst", ".ko.xz", ".ko.gz", ".ko" };

KSC_EXPORT bool ksc_path_is_module_name(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < ARRAY_SIZE(module_suffixes); i++) {
		size_t m = strlen(module_suffixes[i]);
		if (n > m && strcmp(path + n - m, module_suffixes[i]) == 0)
			return true;
	}
	return false;
}

/*
 * Length of `s` without a module suffix, or without ".o": modpost names the linked module
 * object (<name>.o, before .ko exists) the same way.
 */
static size_t strip_module_suffix(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < ARRAY_SIZE(module_suffixes); i++) {
		size_t m = strlen(module_suffixes[i]);
		if (n > m && strcmp(s + n - m, module_suffixes[i]) == 0)
			return n - m;
	}
	if (n > 2 && strcmp(s + n - 2, ".o") == 0)
		return n - 2;
	return n;
}

/*
 * R6: kmod's path_to_modname() / modname_normalize(): the basename up to the first '.',
 * with every '-' turned into '_'.
 */
static const char *kmod_name(struct pool *p, const char *path)
{
	char buf[256];
	size_t n;

	ksc_kmod_modname(path, buf, sizeof(buf), &n);
	return pool_strndup(p, buf, n);
}

/*
 * The Module.symvers owner: modpost writes the object path without ".o"/".ko" as given on
 * its command line, relative to the build tree. For an installed module we take the path
 * below lib/modules/<release>/kernel/ (Makefile.modinst installs <path>.ko there).
 */
static const char *symvers_owner(struct pool *p, const char *path)
{
	const char *s = path, *best = NULL;

	while ((s = strstr(s, "lib/modules/")) != NULL) {
		const char *rel = s + strlen("lib/modules/");
		const char *slash = strchr(rel, '/');
		if (slash && strncmp(slash, "/kernel/", 8) == 0)
			best = slash + 8;
		s = rel;
	}
	if (!best)
		best = path;
	while (best[0] == '.' && best[1] == '/')
		best += 2;
	return pool_strndup(p, best, strip_module_suffix(best));
}

int ksc_module_set_names(struct ksc_module *mod, const char *path)
{
	const char *base = ksc_basename(path);

	mod->f.kmod_name = kmod_name(&mod->strings, path);
	mod->f.modpost_name = pool_strndup(&mod->strings, base, strip_module_suffix(base));
	mod->f.symvers_owner = mod->f.kind == KSC_KIND_VMLINUX
				       ? "vmlinux"
				       : symvers_owner(&mod->strings, path);
	if (!mod->f.kmod_name || !mod->f.modpost_name || !mod->f.symvers_owner)
		return -ENOMEM;
	return 0;
}

struct ksc_module *ksc_module_alloc(struct ksc_ctx *ctx)
{
	struct ksc_module *mod = calloc(1, sizeof(*mod));

	if (!mod)
		return NULL;
	mod->refcount = 1;
	mod->ctx = ksc_ref(ctx);
	pool_init(&mod->strings);
	hash_init(&mod->import_index);
	hash_init(&mod->export_index);
	return mod;
}

KSC_DEFINE_REF(ksc_module_ref, struct ksc_module)

int ksc_module_drop_ref(struct ksc_module *mod)
{
	return --mod->refcount;
}

void ksc_module_free(struct ksc_module *mod)
{
	hash_fini(&mod->import_index);
	hash_fini(&mod->export_index);
	free(mod->modinfo);
	free(mod->imports);
	free(mod->versions);
	free(mod->ext_versions);
	free(mod->exports);
	free(mod->params);
	free(mod->sections);
	pool_fini(&mod->strings);
	ksc_unref(mod->ctx);
	free(mod);
}

KSC_EXPORT const char *ksc_module_get_path(const struct ksc_module *mod)
{
	return mod->f.path;
}

KSC_EXPORT enum ksc_module_kind ksc_module_get_kind(const struct ksc_module *mod)
{
	return mod->f.kind;
}

KSC_EXPORT enum ksc_compression ksc_module_get_compression(const struct ksc_module *mod)
{
	return mod->f.compression;
}

KSC_EXPORT int ksc_module_get_elf_class(const struct ksc_module *mod)
{
	return mod->f.elf_class;
}

KSC_EXPORT bool ksc_module_is_big_endian(const struct ksc_module *mod)
{
	return mod->f.big_endian;
}

KSC_EXPORT unsigned int ksc_module_get_machine(const struct ksc_module *mod)
{
	return mod->f.machine;
}

KSC_EXPORT size_t ksc_module_get_size(const struct ksc_module *mod)
{
	return mod->f.size;
}

KSC_EXPORT size_t ksc_module_get_signature_size(const struct ksc_module *mod)
{
	return mod->f.sig_size;
}

/* R4: struct module.name, falling back to modinfo name= and then to kmod's name. */
KSC_EXPORT const char *ksc_module_get_name(const struct ksc_module *mod)
{
	if (mod->f.kind == KSC_KIND_VMLINUX)
		return "vmlinux";
	if (mod->f.struct_name && mod->f.struct_name[0])
		return mod->f.struct_name;
	const char *n = ksc_module_get_modinfo_name(mod);
	return n && n[0] ? n : mod->f.kmod_name;
}

KSC_EXPORT const char *ksc_module_get_struct_name(const struct ksc_module *mod)
{
	return mod->f.struct_name;
}

KSC_EXPORT const char *ksc_module_get_modinfo_name(const struct ksc_module *mod)
{
	return ksc_module_get_modinfo_value(mod, "name");
}

KSC_EXPORT const char *ksc_module_get_kmod_name(const struct ksc_module *mod)
{
	return mod->f.kmod_name;
}

KSC_EXPORT const char *ksc_module_get_modpost_name(const struct ksc_module *mod)
{
	return mod->f.modpost_name;
}

KSC_EXPORT const char *ksc_module_get_symvers_owner(const struct ksc_module *mod)
{
	return mod->f.symvers_owner;
}

KSC_EXPORT int ksc_module_set_symvers_owner(struct ksc_module *mod, const char *owner)
{
	const char *s = pool_strndup(&mod->strings, owner, strip_module_suffix(owner));

	if (!s)
		return -ENOMEM;
	mod->f.symvers_owner = s;
	return 0;
}

KSC_DEFINE_INDEXED_GETTERS(ksc_module_get_modinfo_count, ksc_module_get_modinfo, struct ksc_module, struct ksc_modinfo, modinfo,
			   n_modinfo)

KSC_EXPORT const char *ksc_module_next_modinfo_value(const struct ksc_module *mod,
						     const char *key, size_t *iter)
{
	for (size_t i = *iter; i < mod->n_modinfo; i++) {
		if (strcmp(mod->modinfo[i].key, key) == 0) {
			*iter = i + 1;
			return mod->modinfo[i].value;
		}
	}
	*iter = mod->n_modinfo;
	return NULL;
}

KSC_EXPORT const char *ksc_module_get_modinfo_value(const struct ksc_module *mod,
						    const char *key)
{
	size_t it = 0;

	return ksc_module_next_modinfo_value(mod, key, &it);
}

KSC_EXPORT bool ksc_module_is_intree(const struct ksc_module *mod)
{
	return ksc_module_get_modinfo_value(mod, "intree") != NULL;
}

KSC_EXPORT const char *ksc_module_get_image_release(const struct ksc_module *mod)
{
	return mod->f.kind == KSC_KIND_VMLINUX ? mod->image_release : NULL;
}

KSC_EXPORT const char *ksc_module_get_image_vermagic(const struct ksc_module *mod)
{
	return mod->f.kind == KSC_KIND_VMLINUX ? mod->image_vermagic : NULL;
}

KSC_EXPORT const char *ksc_module_get_vermagic(const struct ksc_module *mod)
{
	return ksc_module_get_modinfo_value(mod, "vermagic");
}

KSC_EXPORT int ksc_release_from_vermagic(const char *vermagic, char *buf, size_t size)
{
	if (!vermagic || (!buf && size))
		return -EINVAL;
	size_t len = strcspn(vermagic, " ");
	if (len > INT_MAX)
		return -EOVERFLOW;
	if (size) {
		size_t n = len < size ? len : size - 1;
		memcpy(buf, vermagic, n);
		buf[n] = '\0';
	}
	return (int)len;
}

bool ksc_module_imports_ns(const struct ksc_module *mod, const char *ns)
{
	size_t it = 0;
	const char *v;

	while ((v = ksc_module_next_modinfo_value(mod, "import_ns", &it)))
		if (strcmp(v, ns) == 0)
			return true;
	return false;
}

KSC_DEFINE_INDEXED_GETTERS(ksc_module_get_import_count, ksc_module_get_import, struct ksc_module, struct ksc_import, imports,
			   n_imports)

KSC_EXPORT const struct ksc_import *ksc_module_find_import(const struct ksc_module *cmod,
							  const char *name)
{
	struct ksc_module *mod = (struct ksc_module *)cmod;

	/*
	 * Built when first wanted: a whole tree's checks never look imports up by name
	 * (they go through the list), and building 185,000 entries costs.
	 */
	if (!mod->import_index_built) {
		if (hash_reserve(&mod->import_index, mod->n_imports) < 0)
			goto linear;
		for (size_t i = 0; i < mod->n_imports; i++)
			if (hash_add(&mod->import_index, mod->imports[i].name,
				     &mod->imports[i], 1) < 0) {
				hash_fini(&mod->import_index);
				hash_init(&mod->import_index);
				goto linear;
			}
		mod->import_index_built = true;
	}
	return hash_find(&mod->import_index, name);
linear: /* out of memory: still the right answer */
	for (size_t i = 0; i < mod->n_imports; i++)
		if (strcmp(mod->imports[i].name, name) == 0)
			return &mod->imports[i];
	return NULL;
}

KSC_EXPORT bool ksc_module_has_versions(const struct ksc_module *mod)
{
	return mod->f.has_versions;
}

KSC_DEFINE_INDEXED_GETTERS(ksc_module_get_version_count, ksc_module_get_version, struct ksc_module, struct ksc_version, versions,
			   n_versions)

KSC_EXPORT bool ksc_module_has_ext_versions(const struct ksc_module *mod)
{
	return mod->f.has_ext_versions;
}

KSC_DEFINE_INDEXED_GETTERS(ksc_module_get_ext_version_count, ksc_module_get_ext_version, struct ksc_module, struct ksc_version, ext_versions,
			   n_ext_versions)

KSC_DEFINE_INDEXED_GETTERS(ksc_module_get_export_count, ksc_module_get_export, struct ksc_module, struct ksc_export, exports,
			   n_exports)

KSC_EXPORT const struct ksc_export *ksc_module_find_export(const struct ksc_module *mod,
							  const char *name)
{
	return hash_find(&mod->export_index, name);
}

KSC_EXPORT enum ksc_export_layout ksc_module_get_export_layout(const struct ksc_module *mod)
{
	return mod->f.layout;
}

KSC_EXPORT bool ksc_module_has_kflagstab(const struct ksc_module *mod)
{
	return mod->f.has_kflagstab;
}

KSC_EXPORT bool ksc_module_has_section(const struct ksc_module *mod, const char *name)
{
	for (size_t i = 0; i < mod->n_sections; i++)
		if (strcmp(mod->sections[i], name) == 0)
			return true;
	return false;
}

uint32_t ksc_module_section_bits(const struct ksc_module *mod)
{
	return mod->f.sections;
}

size_t ksc_module_get_param_count(const struct ksc_module *mod)
{
	return mod->n_params;
}

const char *ksc_module_get_param(const struct ksc_module *mod, size_t i, unsigned int *perm)
{
	*perm = mod->params[i].perm;
	return mod->params[i].name;
}

/* ---- the module's parts, for the readers that fill it ---------------------------- */

struct ksc_ctx *ksc_module_get_ctx(const struct ksc_module *mod)
{
	return mod->ctx;
}

const struct ksc_module_facts *ksc_module_get_facts(const struct ksc_module *mod)
{
	return &mod->f;
}

void ksc_module_set_facts(struct ksc_module *mod, const struct ksc_module_facts *f)
{
	mod->f = *f;
}

const char *ksc_module_strndup(struct ksc_module *mod, const char *s, size_t n)
{
	return pool_strndup(&mod->strings, s, n);
}

const char *ksc_module_strdup(struct ksc_module *mod, const char *s)
{
	return pool_strdup(&mod->strings, s);
}

static const size_t table_size[KSC_MODULE_TABLES] = {
	[KSC_MODULE_MODINFO] = sizeof(struct ksc_modinfo),
	[KSC_MODULE_EXPORTS] = sizeof(struct ksc_export),
	[KSC_MODULE_VERSIONS] = sizeof(struct ksc_version),
	[KSC_MODULE_EXT_VERSIONS] = sizeof(struct ksc_version),
	[KSC_MODULE_IMPORTS] = sizeof(struct ksc_import),
	[KSC_MODULE_SECTIONS] = sizeof(const char *),
	[KSC_MODULE_PARAMS] = sizeof(struct ksc_param),
};

int ksc_module_reserve(struct ksc_module *mod, enum ksc_module_table t, size_t n)
{
	if ((unsigned int)t >= KSC_MODULE_TABLES)
		return -EINVAL;
	void *p = calloc(n ? n : 1, table_size[t]); /* an empty table is not NULL */
	if (!p)
		return -ENOMEM;
	switch (t) {
	case KSC_MODULE_MODINFO:
		free(mod->modinfo);
		mod->modinfo = p;
		mod->n_modinfo = 0;
		break;
	case KSC_MODULE_EXPORTS:
		hash_fini(&mod->export_index);
		hash_init(&mod->export_index);
		free(mod->exports);
		mod->exports = p;
		mod->n_exports = 0;
		break;
	case KSC_MODULE_VERSIONS:
		free(mod->versions);
		mod->versions = p;
		mod->n_versions = 0;
		break;
	case KSC_MODULE_EXT_VERSIONS:
		free(mod->ext_versions);
		mod->ext_versions = p;
		mod->n_ext_versions = 0;
		break;
	case KSC_MODULE_IMPORTS:
		if (mod->import_index_built) {
			hash_fini(&mod->import_index);
			hash_init(&mod->import_index);
			mod->import_index_built = false;
		}
		free(mod->imports);
		mod->imports = p;
		mod->n_imports = 0;
		break;
	case KSC_MODULE_SECTIONS:
		free(mod->sections);
		mod->sections = p;
		mod->n_sections = 0;
		break;
	case KSC_MODULE_PARAMS:
	case KSC_MODULE_TABLES:
		free(mod->params);
		mod->params = p;
		mod->n_params = 0;
		break;
	}
	mod->cap[t] = n;
	return 0;
}

void ksc_module_set_image_strings(struct ksc_module *mod, const char *release,
				  const char *vermagic)
{
	mod->image_release = release;
	mod->image_vermagic = vermagic;
}

struct ksc_sigtrail *ksc_module_get_sigtrail(const struct ksc_module *mod)
{
	return mod->sig;
}

void ksc_module_set_sigtrail(struct ksc_module *mod, struct ksc_sigtrail *t)
{
	mod->sig = t;
}

struct ksc_certlist *ksc_module_get_certlist(const struct ksc_module *mod)
{
	return mod->certs;
}

void ksc_module_set_certlist(struct ksc_module *mod, struct ksc_certlist *c)
{
	mod->certs = c;
}

/* ---- a module rebuilt from facts ---------------------------------------------- */

/* A string for the module: the caller's, or copied into the module with f.copy. */
static const char *keep(struct ksc_module *mod, const char *s)
{
	return mod->f.copy && s ? pool_strdup(&mod->strings, s) : s;
}

/* The facts, their strings kept, and the tables of their sizes. */
static int set_facts(struct ksc_module *mod, const struct ksc_module_facts *f)
{
	const size_t caps[] = {
		[KSC_MODULE_MODINFO] = f->cap.modinfo,
		[KSC_MODULE_EXPORTS] = f->cap.exports,
		[KSC_MODULE_VERSIONS] = f->cap.versions,
		[KSC_MODULE_EXT_VERSIONS] = f->cap.ext_versions,
		[KSC_MODULE_IMPORTS] = f->cap.imports,
		[KSC_MODULE_SECTIONS] = ksc_elf_section_count,
	};

	mod->f = *f;
	mod->f.path = keep(mod, f->path);
	mod->f.struct_name = keep(mod, f->struct_name);
	mod->f.kmod_name = keep(mod, f->kmod_name);
	mod->f.modpost_name = keep(mod, f->modpost_name);
	mod->f.symvers_owner = keep(mod, f->symvers_owner);
	if (!mod->f.path || !mod->f.kmod_name || !mod->f.modpost_name ||
	    !mod->f.symvers_owner || (f->struct_name && !mod->f.struct_name))
		return -ENOMEM;
	/* not the parameters: ksc_module_add_params() makes their table */
	for (size_t t = 0; t < ARRAY_SIZE(caps); t++)
		if (ksc_module_reserve(mod, (enum ksc_module_table)t, caps[t]) < 0)
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
		ksc_module_free(mod); /* nothing of a signature yet */
		return ret;
	}
	*out = mod;
	return 0;
}

int ksc_module_add_modinfo(struct ksc_module *mod, const char *key, const char *value)
{
	if (mod->n_modinfo >= mod->cap[KSC_MODULE_MODINFO])
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
	if (mod->n_exports >= mod->cap[KSC_MODULE_EXPORTS])
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

	if (ext ? mod->n_ext_versions >= mod->cap[KSC_MODULE_EXT_VERSIONS]
		: mod->n_versions >= mod->cap[KSC_MODULE_VERSIONS])
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
	if (mod->n_imports >= mod->cap[KSC_MODULE_IMPORTS])
		return -ENOSPC;
	struct ksc_import *x = &mod->imports[mod->n_imports];
	*x = *im;
	x->name = keep(mod, im->name);
	if (!x->name)
		return -ENOMEM;
	mod->n_imports++;
	return 0;
}

int ksc_module_add_section(struct ksc_module *mod, const char *name)
{
	if (mod->n_sections >= mod->cap[KSC_MODULE_SECTIONS])
		return -ENOSPC;
	const char *s = keep(mod, name);
	if (!s)
		return -ENOMEM;
	mod->sections[mod->n_sections++] = s;
	return 0;
}

int ksc_module_add_param(struct ksc_module *mod, const char *name, unsigned int perm)
{
	if (mod->n_params >= mod->cap[KSC_MODULE_PARAMS])
		return -ENOSPC;
	struct ksc_param *x = &mod->params[mod->n_params];
	x->name = keep(mod, name);
	x->perm = perm;
	if (!x->name)
		return -ENOMEM;
	mod->n_params++;
	return 0;
}

int ksc_module_add_params(struct ksc_module *mod, const struct ksc_param *p, size_t n)
{
	if (mod->params)
		return -EEXIST;
	int ret = ksc_module_reserve(mod, KSC_MODULE_PARAMS, n);
	for (size_t i = 0; ret >= 0 && i < n; i++)
		ret = ksc_module_add_param(mod, p[i].name, p[i].perm);
	return ret < 0 ? ret : 0;
}

/*
 * .modinfo (as the loader's get_next_modinfo() reads it): NUL-terminated "key=value"
 * strings, possibly separated by runs of NULs. A section whose last byte is not NUL is malformed: the loader's
 * get_next_modinfo() would run off its end.
 */
int ksc_modinfo_parse(struct ksc_module *mod, const char *p, size_t size)
{
	const char *end = p + size;
	size_t n = 0;

	if (size == 0)
		return 0;
	if (end[-1] != '\0') {
		ksc_err(mod->ctx, "%s: .modinfo is not NUL-terminated (its last string runs past the end of the section)",
			mod->f.path);
		return -EINVAL;
	}
	for (const char *q = p; q < end; q += strlen(q) + 1)
		if (*q)
			n++;
	free(mod->modinfo);
	mod->n_modinfo = 0;
	mod->modinfo = calloc(n ? n : 1, sizeof(*mod->modinfo));
	if (!mod->modinfo)
		return -ENOMEM;
	for (const char *q = p; q < end; q += strlen(q) + 1) {
		if (!*q)
			continue; /* alignment padding between entries */
		const char *eq = strchr(q, '=');
		struct ksc_modinfo *mi = &mod->modinfo[mod->n_modinfo++];
		mi->key = pool_strndup(&mod->strings, q, eq ? (size_t)(eq - q) : strlen(q));
		mi->value = pool_strdup(&mod->strings, eq ? eq + 1 : "");
		if (!mi->key || !mi->value)
			return -ENOMEM;
	}
	return 0;
}

void ksc_kmod_modname(const char *path, char *buf, size_t size, size_t *len)
{
	const char *base = ksc_basename(path);
	size_t i;

	for (i = 0; i + 1 < size && base[i] && base[i] != '.'; i++)
		buf[i] = base[i] == '-' ? '_' : base[i];
	buf[i] = '\0';
	if (len)
		*len = i;
}
