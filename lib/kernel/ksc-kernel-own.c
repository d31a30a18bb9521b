// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What ksc_kernel_open() reads of a kernel besides its modules: its own exports from the
 * locator's source (Module.symvers, through the rows kept between runs, or read ahead
 * while the module folder is walked; else vmlinux, vmlinuz), the distribution's quirks
 * and the configuration. Through struct ksc_kernel's functions (ksc-kernel.c); the
 * rows kept are ksc-symvers-cache.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel/kernel.h"
#include "modset/modset.h"

/* The file as it is now, the same as `st` (not changed while it was read)? */
static bool unchanged(const char *path, const struct stat *st)
{
	struct stat now;

	return stat(path, &now) == 0 && st_same_file(&now, st);
}

int ksc_kernel_add_symvers_cached(struct ksc_kernel *k, const char *path, const char *cache,
				  bool vmlinux_only)
{
	struct ksc_symvers *sv;
	struct ksc_svrows rows;
	struct stat st;
	bool keyed = cache && stat(path, &st) == 0 && S_ISREG(st.st_mode), clean = false;
	struct ksc_svahead *ahead = keyed ? ksc_kernel_take_symvers_ahead(k) : NULL;
	int r = keyed ? ksc_svahead_take(&ahead, cache, path, &st, &rows) : 1;

	if (r > 0 && keyed)
		r = ksc_svcache_load(cache, path, &st, &rows);

	if (r == 0) {
		r = ksc_kernel_add_symvers_entries(k, rows.v, rows.n, vmlinux_only);
		ksc_svrows_fini(&rows);
		return r;
	}
	if (r < 0)
		return r;
	struct ksc_ctx *ctx = ksc_kernel_get_ctx(k);
	r = keyed ? ksc_svcache_read_symvers(ctx, path, &sv, &clean)
		  : ksc_symvers_new_from_path(ctx, path, &sv);
	if (r < 0)
		return r;
	r = ksc_kernel_add_symvers_rows(k, sv, vmlinux_only);
	if (r >= 0 && clean && unchanged(path, &st))
		ksc_svcache_save(cache, path, &st, sv);
	ksc_symvers_unref(sv);
	return r;
}

int ksc_kernel_read_symvers_ahead(struct ksc_kernel *k, const struct ksc_kernel_location *loc,
				  const char *cache)
{
	const char *path = ksc_kernel_location_get_path(loc, KSC_KFILE_SYMVERS);
	struct ksc_svahead *a = NULL;
	int r;

	ksc_kernel_keep_symvers_ahead(k, NULL);
	if (!path || !cache)
		return 0;
	r = ksc_svahead_read(cache, path, &a);
	ksc_kernel_keep_symvers_ahead(k, a);
	return r;
}

/*
 * The kernel's own exports from the locator's source (Module.symvers, vmlinux, vmlinuz);
 * when one cannot be read, the next. 0, -ENOENT (none found, logged) or -ENOMEM.
 */
static int add_located_exports(struct ksc_kernel *k, const struct ksc_kernel_location *loc,
			       bool symvers_modules, const char *cache)
{
	struct ksc_ctx *ctx = ksc_kernel_get_ctx(k);
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ksc_exports_order) && !ksc_kernel_has_own_exports(k);
	     i++) {
		enum ksc_kernel_file f = ksc_exports_order[i];
		const char *p = ksc_kernel_location_get_path(loc, f);
		/* System.map has names only: the loader view needs CRCs and GPL marks */
		if (!p || f == KSC_KFILE_SYSTEM_MAP)
			continue;
		if (f == KSC_KFILE_SYMVERS) {
			r = ksc_kernel_add_symvers_cached(k, p, cache, !symvers_modules);
			if (r < 0 && r != -ENOMEM) {
				ksc_kernel_add_errors(k, 1);
				continue;
			}
			if (r >= 0 && symvers_modules && ksc_kernel_get_module_count(k))
				ksc_info(ctx, "%s: no in-tree module in %s: their exports as %s lists them (by name)",
					 ksc_kernel_location_get_release(loc),
					 ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR), p);
		} else {
			struct ksc_module *vm;
			if (ksc_module_new_from_path(ctx, p, &vm) < 0) {
				ksc_kernel_add_errors(k, 1);
				continue;
			}
			r = ksc_module_get_kind(vm) == KSC_KIND_VMLINUX ? ksc_kernel_add_vmlinux(k, vm)
									 : 0;
			ksc_module_unref(vm);
		}
		if (r < 0)
			return r;
		if (ksc_kernel_has_own_exports(k))
			ksc_info(ctx, "%s: kernel exports read", p);
	}
	if (!ksc_kernel_has_own_exports(k)) {
		ksc_err(ctx, "%s: no Module.symvers, vmlinux or vmlinuz found for the kernel's own exports",
			ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR));
		return -ENOENT;
	}
	return 0;
}

/* A Debian kernel package documents itself under usr/share/doc. */
static bool is_debian_kernel(const struct ksc_kernel_location *loc)
{
	const char *root = ksc_kernel_location_get_root(loc);
	const char *rel = ksc_kernel_location_get_release(loc);
	char p[4096];
	struct stat st;

	if (strcmp(root, "/") == 0)
		root = "";
	snprintf(p, sizeof(p), "%s/usr/share/doc/linux-image-%s", root, rel);
	if (stat(p, &st) == 0)
		return true;
	snprintf(p, sizeof(p), "%s/usr/share/doc/linux-image-%s-unsigned", root, rel);
	return stat(p, &st) == 0;
}

/*
 * What ksc_kernel_open_location() reads after the modules: the kernel's own exports (with
 * `symvers_modules`, a Module.symvers' module rows too: providers known by name only),
 * the distribution's quirks and the configuration. 0 or -errno (logged).
 */
int ksc_kernel_open_rest(struct ksc_kernel *k, const struct ksc_kernel_location *loc,
			 bool symvers_modules, const char *cache)
{
	int r = add_located_exports(k, loc, symvers_modules, cache);

	if (r < 0)
		return r;
	if (is_debian_kernel(loc))
		ksc_kernel_set_quirks(k, ksc_kernel_get_quirks(k) | KSC_QUIRK_DEBIAN_MISSING_CRC);
	const char *config = ksc_kernel_location_get_path(loc, KSC_KFILE_CONFIG);
	if (config) {
		r = ksc_kernel_read_config(k, config);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			ksc_kernel_add_errors(k, 1);
	}
	return 0;
}
