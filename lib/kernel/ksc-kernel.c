// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * struct ksc_kernel: the kernel a module is checked against. Its exports (vmlinux, and the
 * modules of its tree as providers), its release and vermagic, and the configuration
 * options that change verdicts.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "kernel/kernel.h"
#include "modset/modset.h"
#include "util/array.h"

#define PROV_VMLINUX ((struct kowner *)0)

KSC_EXPORT int ksc_kernel_new(struct ksc_ctx *ctx, struct ksc_kernel **out)
{
	struct ksc_kernel *k = calloc(1, sizeof(*k));

	*out = NULL;
	if (!k)
		return -ENOMEM;
	k->refcount = 1;
	k->ctx = ksc_ref(ctx);
	pool_init(&k->strings);
	hash_init(&k->index);
	hash_init(&k->owner_index);
	for (size_t i = 0; i < KSC_CONFIG_COUNT; i++)
		k->config[i] = -1;
	*out = k;
	return 0;
}

KSC_DEFINE_REF(ksc_kernel_ref, struct ksc_kernel)

KSC_EXPORT struct ksc_kernel *ksc_kernel_unref(struct ksc_kernel *k)
{
	if (!k || --k->refcount > 0)
		return NULL;
	for (size_t i = 0; i < k->n_owners; i++) {
		ksc_module_unref(k->owners[i]->module);
		free(k->owners[i]->deps);
		free(k->owners[i]);
	}
	free(k->owners);
	free(k->provs);
	hash_fini(&k->index);
	hash_fini(&k->owner_index);
	pool_fini(&k->strings);
	ksc_keyring_unref(k->keyring);
	ksc_svahead_free(k->ahead);
	ksc_unref(k->ctx);
	free(k);
	return NULL;
}

static int add_prov(struct ksc_kernel *k, const struct ksc_export *e, struct kowner *owner)
{
	if (array_reserve(k->provs, k->cap_provs, k->n_provs + 1, 4096) < 0)
		return -ENOMEM;
	struct kprov *p = &k->provs[k->n_provs];
	p->exp.name = pool_strdup(&k->strings, e->name);
	p->exp.ns = e->ns[0] ? pool_strdup(&k->strings, e->ns) : "";
	if (!p->exp.name || !p->exp.ns)
		return -ENOMEM;
	p->exp.gpl_only = e->gpl_only;
	p->exp.has_crc = e->has_crc;
	p->exp.crc = e->crc;
	p->owner = owner;
	p->next = 0;
	k->n_provs++;
	k->index_dirty = true;
	return 0;
}

static struct kowner *new_owner(struct ksc_kernel *k, const char *name, struct ksc_module *mod)
{
	struct kowner *o = hash_find(&k->owner_index, name);

	if (o)
		return o;
	if (array_reserve(k->owners, k->cap_owners, k->n_owners + 1, 256) < 0)
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->name = pool_strdup(&k->strings, name);
	if (!o->name || hash_add(&k->owner_index, o->name, o, 1) < 0) {
		free(o);
		return NULL;
	}
	o->module = ksc_module_ref(mod);
	o->id = (uint32_t)k->n_owners;
	k->owners[k->n_owners++] = o;
	k->cycles_dirty = true;
	return o;
}

KSC_EXPORT int ksc_kernel_add_vmlinux(struct ksc_kernel *k, struct ksc_module *vmlinux)
{
	for (size_t i = 0; i < ksc_module_get_export_count(vmlinux); i++) {
		int r = add_prov(k, ksc_module_get_export(vmlinux, i), PROV_VMLINUX);
		if (r < 0)
			return r;
	}
	k->has_vmlinux = true;
	/* The image says which kernel it is: its release, and the vermagic the loader
	 * compares (over whatever a module of the tree said). */
	const char *rel = ksc_module_get_image_release(vmlinux);
	const char *vm = ksc_module_get_image_vermagic(vmlinux);
	if (rel && !k->release && !(k->release = pool_strdup(&k->strings, rel)))
		return -ENOMEM;
	if (vm && !k->vermagic_from_image) {
		if (!(k->vermagic = pool_strdup(&k->strings, vm)))
			return -ENOMEM;
		k->vermagic_from_image = true;
	}
	return 0;
}

/*
 * The loader's name of a Module.symvers owner ("drivers/usb/storage/usb-storage"): the
 * basename with '-' as '_' (KBUILD_MODNAME, R4).
 */
static const char *owner_modname(char *buf, size_t size, const char *path)
{
	const char *b = ksc_basename(path);

	snprintf(buf, size, "%s", b);
	for (char *p = buf; *p; p++)
		if (*p == '-' || *p == ',')
			*p = '_';
	return buf;
}

int ksc_kernel_add_symvers_row(struct ksc_kernel *k, const struct ksc_symvers_entry *e,
			       bool vmlinux_only)
{
	bool vml = strcmp(e->module, "vmlinux") == 0;
	struct kowner *o = PROV_VMLINUX;

	if (!vml && vmlinux_only)
		return 0;
	if (!vml) {
		char buf[256];
		o = new_owner(k, owner_modname(buf, sizeof(buf), e->module), NULL);
		if (!o)
			return -ENOMEM;
	}
	/* modpost writes 0x00000000 without MODVERSIONS: the kernel then has no CRCs. */
	struct ksc_export x = { e->symbol, e->ns, e->gpl_only, true, e->crc };
	int r = add_prov(k, &x, o);
	if (r < 0)
		return r;
	if (vml)
		k->has_vmlinux = true;
	k->crcs_from_symvers = true;
	return 0;
}

int ksc_kernel_add_symvers_rows(struct ksc_kernel *k, const struct ksc_symvers *sv,
				bool vmlinux_only)
{
	for (size_t i = 0; i < ksc_symvers_get_count(sv); i++) {
		int r = ksc_kernel_add_symvers_row(k, ksc_symvers_get(sv, i), vmlinux_only);
		if (r < 0)
			return r;
	}
	k->crcs_from_symvers = true;
	return 0;
}

/* The file as it is now, the same as `st` (not changed while it was read)? */
static bool unchanged(const char *path, const struct stat *st)
{
	struct stat now;

	return stat(path, &now) == 0 && now.st_size == st->st_size && now.st_ino == st->st_ino &&
	       st_mtime_ns(&now) == st_mtime_ns(st) && st_ctime_ns(&now) == st_ctime_ns(st);
}

int ksc_kernel_add_symvers_cached(struct ksc_kernel *k, const char *path, const char *cache,
				  bool vmlinux_only)
{
	struct ksc_symvers *sv;
	struct ksc_svrows rows;
	struct stat st;
	bool keyed = cache && stat(path, &st) == 0 && S_ISREG(st.st_mode), clean = false;
	int r = keyed ? ksc_svahead_take(&k->ahead, cache, path, &st, &rows) : 1;

	if (r > 0 && keyed)
		r = ksc_svcache_load(cache, path, &st, &rows);

	if (r == 0) {
		for (size_t i = 0; r == 0 && i < rows.n; i++)
			r = ksc_kernel_add_symvers_row(k, &rows.v[i], vmlinux_only);
		k->crcs_from_symvers = true;
		ksc_svrows_fini(&rows);
		return r;
	}
	if (r < 0)
		return r;
	r = keyed ? ksc_svcache_read_symvers(k->ctx, path, &sv, &clean)
		  : ksc_symvers_new_from_path(k->ctx, path, &sv);
	if (r < 0)
		return r;
	r = ksc_kernel_add_symvers_rows(k, sv, vmlinux_only);
	if (r >= 0 && clean && unchanged(path, &st))
		ksc_svcache_save(cache, path, &st, sv);
	ksc_symvers_unref(sv);
	return r;
}

KSC_EXPORT int ksc_kernel_add_symvers(struct ksc_kernel *k, const struct ksc_symvers *sv)
{
	return ksc_kernel_add_symvers_rows(k, sv, false);
}

KSC_EXPORT int ksc_kernel_add_module(struct ksc_kernel *k, struct ksc_module *mod)
{
	struct kowner *o = new_owner(k, ksc_module_get_name(mod), mod);

	if (!o)
		return -ENOMEM;
	if (!o->module)
		o->module = ksc_module_ref(mod);
	const char *lic = ksc_module_get_modinfo_value(mod, "license");
	o->proprietary = !ksc_license_is_gpl_compatible(lic ? lic : "unspecified");
	for (size_t i = 0; i < ksc_module_get_export_count(mod); i++) {
		int r = add_prov(k, ksc_module_get_export(mod, i), o);
		if (r < 0)
			return r;
	}
	if (!k->vermagic && ksc_module_is_intree(mod) && ksc_module_get_vermagic(mod))
		k->vermagic = pool_strdup(&k->strings, ksc_module_get_vermagic(mod));
	return 0;
}

KSC_EXPORT struct ksc_ctx *ksc_kernel_get_ctx(const struct ksc_kernel *k)
{
	return k->ctx;
}

KSC_EXPORT int ksc_kernel_set_release(struct ksc_kernel *k, const char *release)
{
	k->release = pool_strdup(&k->strings, release);
	return k->release ? 0 : -ENOMEM;
}

KSC_EXPORT const char *ksc_kernel_get_release(const struct ksc_kernel *k)
{
	return k->release;
}

KSC_EXPORT int ksc_kernel_set_vermagic(struct ksc_kernel *k, const char *vermagic)
{
	k->vermagic = pool_strdup(&k->strings, vermagic);
	return k->vermagic ? 0 : -ENOMEM;
}

KSC_EXPORT const char *ksc_kernel_get_vermagic(const struct ksc_kernel *k)
{
	return k->vermagic;
}

/*
 * Does the loader check symbol CRCs (R21)? CONFIG_MODVERSIONS when the configuration is
 * known; else whether the exports carry CRCs: an image's __kcrctab, or a Module.symvers
 * with any CRC other than 0 (modpost writes 0 for every symbol without modversions).
 */
KSC_EXPORT int ksc_kernel_has_modversions(const struct ksc_kernel *k)
{
	if (k->config[KSC_CONFIG_MODVERSIONS] >= 0)
		return k->config[KSC_CONFIG_MODVERSIONS];
	if (!k->has_vmlinux)
		return -1;
	if (!k->crcs_from_symvers) {
		for (size_t i = 0; i < k->n_provs; i++)
			if (k->provs[i].exp.has_crc)
				return 1;
		return 0;
	}
	for (size_t i = 0; i < k->n_provs; i++)
		if (k->provs[i].exp.crc != 0)
			return 1;
	return 0;
}

static const char *const config_names[KSC_CONFIG_COUNT] = {
	[KSC_CONFIG_MODVERSIONS] = "CONFIG_MODVERSIONS",
	[KSC_CONFIG_MODULE_SIG] = "CONFIG_MODULE_SIG",
	[KSC_CONFIG_MODULE_SIG_FORCE] = "CONFIG_MODULE_SIG_FORCE",
	[KSC_CONFIG_MODULE_FORCE_LOAD] = "CONFIG_MODULE_FORCE_LOAD",
	[KSC_CONFIG_ALLOW_MISSING_NS] = "CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS",
	[KSC_CONFIG_RETPOLINE] = "CONFIG_RETPOLINE",
	[KSC_CONFIG_EXTENDED_MODVERSIONS] = "CONFIG_EXTENDED_MODVERSIONS",
	[KSC_CONFIG_BASIC_MODVERSIONS] = "CONFIG_BASIC_MODVERSIONS",
};

KSC_EXPORT int ksc_kernel_read_config(struct ksc_kernel *k, const char *path)
{
	char *data;
	size_t size;
	int r = ksc_read_text_file(k->ctx, path, &data, &size);

	if (r < 0)
		return r;
	/* Everything this kernel could have set is now known: unset unless a line says y. */
	for (size_t i = 0; i < KSC_CONFIG_COUNT; i++)
		k->config[i] = 0;
	for (char *line = data, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *eq = strchr(line, '=');
		if (!eq || strncmp(line, "CONFIG_", 7) != 0)
			continue;
		*eq = '\0';
		bool on = eq[1] == 'y' || eq[1] == 'm';
		for (size_t i = 0; i < KSC_CONFIG_COUNT; i++)
			if (strcmp(line, config_names[i]) == 0)
				k->config[i] = on;
		/* 6.9+ renamed CONFIG_RETPOLINE */
		if (strcmp(line, "CONFIG_MITIGATION_RETPOLINE") == 0)
			k->config[KSC_CONFIG_RETPOLINE] = on;
	}
	free(data);
	return 0;
}

KSC_EXPORT void ksc_kernel_set_config(struct ksc_kernel *k, enum ksc_kconfig key, bool on)
{
	if ((unsigned)key < KSC_CONFIG_COUNT)
		k->config[key] = on;
}

KSC_EXPORT int ksc_kernel_get_config(const struct ksc_kernel *k, enum ksc_kconfig key)
{
	return (unsigned)key < KSC_CONFIG_COUNT ? k->config[key] : -1;
}

KSC_EXPORT void ksc_kernel_set_quirks(struct ksc_kernel *k, unsigned int quirks)
{
	k->quirks = quirks;
}

KSC_EXPORT unsigned int ksc_kernel_get_quirks(const struct ksc_kernel *k)
{
	return k->quirks;
}

KSC_EXPORT size_t ksc_kernel_get_export_count(const struct ksc_kernel *k)
{
	return k->n_provs;
}

KSC_EXPORT size_t ksc_kernel_get_module_count(const struct ksc_kernel *k)
{
	return k->n_owners;
}

KSC_EXPORT unsigned int ksc_kernel_get_error_count(const struct ksc_kernel *k)
{
	return k->errors;
}

/*
 * The symbol index: name -> first provider, providers of one name chained in the loader's
 * search order: vmlinux first (find_symbol() looks there first), then modules in the
 * order they were added.
 */
int ksc_kernel_build_index(struct ksc_kernel *k)
{
	if (!k->index_dirty)
		return k->cycles_dirty ? ksc_kernel_find_cycles(k) : 0;
	hash_fini(&k->index);
	hash_init(&k->index);
	int r = hash_reserve(&k->index, k->n_provs);
	if (r < 0)
		return r;
	/* the last provider of each chain, by its first's index: one name listed N times
	 * (a hostile Module.symvers) costs N steps, not N^2 */
	size_t *tail = calloc(k->n_provs ? k->n_provs : 1, sizeof(*tail));
	if (!tail)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < k->n_provs; i++) {
			struct kprov *p = &k->provs[i];
			if ((p->owner == PROV_VMLINUX) != (pass == 0))
				continue;
			p->next = 0;
			bool added;
			void **slot = hash_slot(&k->index, p->exp.name, &added);
			if (!slot) {
				free(tail);
				return -ENOMEM;
			}
			if (added) {
				*slot = p;
				tail[i] = i;
				continue;
			}
			size_t first = (size_t)((struct kprov *)*slot - k->provs);
			k->provs[tail[first]].next = i + 1;
			tail[first] = i;
		}
	}
	free(tail);
	k->index_dirty = false;
	return ksc_kernel_find_cycles(k);
}

const struct kprov *ksc_kernel_first_prov(const struct ksc_kernel *k, const char *symbol)
{
	return hash_find(&k->index, symbol);
}

const struct kprov *ksc_kernel_next_prov(const struct ksc_kernel *k, const struct kprov *p)
{
	return p->next ? &k->provs[p->next - 1] : NULL;
}

KSC_EXPORT const struct ksc_export *ksc_kernel_find_export(const struct ksc_kernel *k,
							   const char *symbol,
							   const char **owner)
{
	if (ksc_kernel_build_index((struct ksc_kernel *)k) < 0)
		return NULL;
	const struct kprov *p = ksc_kernel_first_prov(k, symbol);
	if (!p)
		return NULL;
	if (owner)
		*owner = p->owner ? p->owner->name : "vmlinux";
	return &p->exp;
}

/* ---- what ksc_kernel_open() reads besides the modules (ksc-kernel-open.c) ---- */

int ksc_kernel_note_replaced(struct ksc_kernel *k, const struct ksc_depmod_cfg *cfg,
			     const struct ksc_module *mod, const char *relpath,
			     const char *replaced)
{
	struct kowner *o = hash_find(&k->owner_index, ksc_module_get_name(mod));
	char why[512];

	ksc_depmod_module_rank_reason(cfg, relpath, why, sizeof(why));
	if (o && o->module == mod) {
		o->replaced = pool_strdup(&k->strings, replaced);
		o->won_by = pool_strdup(&k->strings, why);
		o->relpath = pool_strdup(&k->strings, relpath);
		if (!o->replaced || !o->won_by || !o->relpath)
			return -ENOMEM;
	}
	ksc_info(k->ctx, "%s: replaces %s for the loader (%s)", ksc_module_get_path(mod),
		 replaced, why);
	return 0;
}

bool ksc_kernel_has_intree_module(const struct ksc_kernel *k)
{
	for (size_t i = 0; i < k->n_owners; i++)
		if (k->owners[i]->module && ksc_module_is_intree(k->owners[i]->module))
			return true;
	return false;
}

/*
 * The kernel's own exports from the locator's source (Module.symvers, vmlinux, vmlinuz);
 * when one cannot be read, the next. 0, -ENOENT (none found, logged) or -ENOMEM.
 */
static int add_located_exports(struct ksc_kernel *k, const struct ksc_kernel_location *loc,
			       bool symvers_modules, const char *cache)
{
	struct ksc_ctx *ctx = k->ctx;
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ksc_exports_order) && !k->has_vmlinux; i++) {
		enum ksc_kernel_file f = ksc_exports_order[i];
		const char *p = ksc_kernel_location_get_path(loc, f);
		/* System.map has names only: the loader view needs CRCs and GPL marks */
		if (!p || f == KSC_KFILE_SYSTEM_MAP)
			continue;
		if (f == KSC_KFILE_SYMVERS) {
			r = ksc_kernel_add_symvers_cached(k, p, cache, !symvers_modules);
			if (r < 0 && r != -ENOMEM) {
				k->errors++;
				continue;
			}
			if (r >= 0 && symvers_modules && k->n_owners)
				ksc_info(ctx, "%s: no in-tree module in %s: their exports as %s lists them (by name)",
					 ksc_kernel_location_get_release(loc),
					 ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR), p);
		} else {
			struct ksc_module *vm;
			if (ksc_module_new_from_path(ctx, p, &vm) < 0) {
				k->errors++;
				continue;
			}
			r = ksc_module_get_kind(vm) == KSC_KIND_VMLINUX ? ksc_kernel_add_vmlinux(k, vm)
									 : 0;
			ksc_module_unref(vm);
		}
		if (r < 0)
			return r;
		if (k->has_vmlinux) {
			k->exports_from = pool_strdup(&k->strings, p);
			ksc_info(ctx, "%s: kernel exports read", p);
		}
	}
	if (!k->has_vmlinux) {
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
		k->quirks |= KSC_QUIRK_DEBIAN_MISSING_CRC;
	const char *config = ksc_kernel_location_get_path(loc, KSC_KFILE_CONFIG);
	if (config) {
		r = ksc_kernel_read_config(k, config);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			k->errors++;
	}
	return 0;
}

KSC_EXPORT const struct ksc_export *ksc_kernel_get_export(const struct ksc_kernel *k, size_t i,
							  const char **owner)
{
	if (i >= k->n_provs)
		return NULL;
	if (owner)
		*owner = k->provs[i].owner ? k->provs[i].owner->name : "vmlinux";
	return &k->provs[i].exp;
}

/* ---------------------------------------------------------------------------------- */
/* The keys a kernel trusts (readers/ksc-sig.c verifies with them)                   */

KSC_EXPORT void ksc_kernel_set_keyring(struct ksc_kernel *k, struct ksc_keyring *kr)
{
	struct ksc_keyring *old = k->keyring;

	k->keyring = ksc_keyring_ref(kr);
	ksc_keyring_unref(old);
}

KSC_EXPORT struct ksc_keyring *ksc_kernel_get_keyring(const struct ksc_kernel *k)
{
	return k->keyring;
}
