// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A module read from its file or from bytes in memory: the file read and decompressed
 * (ksc-file.c), the image parsed (ksc-elf-module.c), its appended signature kept
 * (ksc-sig.c), its names given (ksc-module.c); and the last reference dropped, which
 * frees what the signatures' files keep before the module itself. The top of the
 * module's files: struct ksc_module is ksc-module.c's, which calls none of the readers
 * that fill it, so that the files of the wing call one way.
 */
#include <errno.h>
#include <stdlib.h>

#include "readers/readers.h"

/* An empty module named `path`, read with `compression`; NULL when out of memory. */
static struct ksc_module *module_named(struct ksc_ctx *ctx, const char *path,
				       enum ksc_compression compression)
{
	struct ksc_module *mod = ksc_module_alloc(ctx);

	if (!mod)
		return NULL;
	struct ksc_module_facts f = *ksc_module_get_facts(mod);
	f.path = ksc_module_strdup(mod, path);
	f.compression = compression;
	if (!f.path) {
		ksc_module_unref(mod);
		return NULL;
	}
	ksc_module_set_facts(mod, &f);
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
	mod = module_named(ctx, path, KSC_COMPRESSION_NONE);
	if (!mod)
		return -ENOMEM;

	ret = ksc_blob_load_as(ctx, path, data, size, as, &blob);
	if (ret < 0)
		goto err;
	struct ksc_module_facts f = *ksc_module_get_facts(mod);
	f.compression = blob.compression;
	ksc_module_set_facts(mod, &f);
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
	struct ksc_module *mod = module_named(ctx, path, b->compression);
	int ret;

	*out = NULL;
	if (!mod)
		return -ENOMEM;
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

KSC_EXPORT struct ksc_module *ksc_module_unref(struct ksc_module *mod)
{
	if (!mod || ksc_module_drop_ref(mod) > 0)
		return NULL;
	ksc_sig_free(mod);
	ksc_module_free(mod);
	return NULL;
}
