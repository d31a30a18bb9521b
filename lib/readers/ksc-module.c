// SPDX-License-Identifier: LGPL-2.1-or-later
/* struct ksc_module: one parsed module or vmlinux, and the names the kernel tools give it. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "readers/readers.h"

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

static int module_new(struct ksc_ctx *ctx, const char *path, const void *data, size_t size,
		      enum ksc_read_as as, struct ksc_module **out)
{
	struct ksc_module *mod;
	struct ksc_blob blob;
	int ret;

	*out = NULL;
	if (!ctx || !path)
		return -EINVAL;
	mod = ksc_module_alloc(ctx);
	if (!mod)
		return -ENOMEM;
	mod->f.path = pool_strdup(&mod->strings, path);
	if (!mod->f.path) {
		ret = -ENOMEM;
		goto err;
	}

	ret = ksc_blob_load_as(ctx, path, data, size, as, &blob);
	if (ret < 0)
		goto err;
	mod->f.compression = blob.compression;
	ret = ksc_elf_parse_module(mod, &blob);
	if (ret == 0)
		ret = ksc_sig_capture(mod, blob.data, blob.size,
				      data ? KSC_SIG_MEMORY : KSC_SIG_FILE);
	ksc_blob_free(&blob);
	if (ret < 0)
		goto err;

	ret = ksc_module_set_names(mod, path);
	if (ret < 0)
		goto err;
	*out = mod;
	return 0;
err:
	ksc_module_unref(mod);
	return ret;
}

int ksc_module_new_from_blob(struct ksc_ctx *ctx, const char *path, const struct ksc_blob *b,
			     struct ksc_module **out)
{
	struct ksc_module *mod = ksc_module_alloc(ctx);
	int ret = -ENOMEM;

	*out = NULL;
	if (!mod)
		return -ENOMEM;
	mod->f.path = pool_strdup(&mod->strings, path);
	mod->f.compression = b->compression;
	if (mod->f.path)
		ret = ksc_elf_parse_module(mod, b);
	if (ret == 0)
		ret = ksc_module_set_names(mod, path);
	if (ret < 0) {
		ksc_module_unref(mod);
		return ret;
	}
	*out = mod;
	return 0;
}

KSC_EXPORT int ksc_module_new_from_path(struct ksc_ctx *ctx, const char *path,
					struct ksc_module **out)
{
	return module_new(ctx, path, NULL, 0, KSC_READ_IMAGE, out);
}

KSC_EXPORT int ksc_module_new_from_module_path(struct ksc_ctx *ctx, const char *path,
					       struct ksc_module **out)
{
	return module_new(ctx, path, NULL, 0, KSC_READ_MODULE, out);
}

KSC_EXPORT int ksc_module_new_from_memory(struct ksc_ctx *ctx, const char *name,
					  const void *data, size_t size, struct ksc_module **out)
{
	if (!data) {
		*out = NULL;
		return -EINVAL;
	}
	return module_new(ctx, name ? name : "<memory>", data, size, KSC_READ_IMAGE, out);
}

KSC_DEFINE_REF(ksc_module_ref, struct ksc_module)

KSC_EXPORT struct ksc_module *ksc_module_unref(struct ksc_module *mod)
{
	if (!mod || --mod->refcount > 0)
		return NULL;
	hash_fini(&mod->import_index);
	hash_fini(&mod->export_index);
	free(mod->modinfo);
	free(mod->imports);
	free(mod->versions);
	free(mod->ext_versions);
	free(mod->exports);
	free(mod->params);
	free(mod->sections);
	ksc_sig_free(mod);
	pool_fini(&mod->strings);
	ksc_unref(mod->ctx);
	free(mod);
	return NULL;
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
