// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * struct ksc_kernel: the kernel a module is checked against. Its exports (vmlinux, and the
 * modules of its tree as providers), its owners (the modules) and the graph of their
 * dependencies, its release and vermagic, and the configuration options that change
 * verdicts. The struct, its providers (struct kprov) and owners (struct kowner) are
 * defined here only: every other file, of this wing or above, calls the functions of
 * kernel.h (tests/structure.py, OWNED_STRUCTS), as kmod keeps kmod_ctx in libkmod.c.
 * This file calls down only (ksc-cycles.c's graph rule, ksc-symvers-cache.c's rows read
 * ahead), never a file of this wing that calls it.
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

/* A module of the kernel (a .ko read, or a Module.symvers owner known by name). */
struct kowner {
	const char *name;          /* the loader's name: struct module name, or from the owner path */
	struct ksc_module *module; /* when read from a .ko; NULL for Module.symvers owners */
	const char *replaced;      /* a file of the same name this one won over (depmod's
				    * search order), relative to the module folder, or NULL */
	const char *won_by;        /* with replaced: the rule that ranks this file first */
	const char *relpath;       /* with replaced: this file, relative to the module folder */
	bool proprietary;          /* license not GPL-compatible (R15): TAINT_PROPRIETARY_MODULE */
	uint32_t id;               /* its place in ksc_kernel.owners */
	/* R43: the owners it depends on, and the dependency cycle it is in or behind
	 * ("a -> b -> a"), which keeps modprobe from loading it, or NULL */
	uint32_t *deps, n_deps;
	size_t cap_deps;
	bool deps_given;           /* by ksc_kernel_set_owner_deps(), not from its imports */
	const char *cycle;
};

/* One export of the kernel: vmlinux's or a module's. */
struct kprov {
	struct ksc_export exp;
	struct kowner *owner;      /* NULL: vmlinux */
	size_t next;               /* next provider of the same name + 1, 0 = none */
};

struct ksc_kernel {
	int refcount;
	struct ksc_ctx *ctx;
	struct pool strings;
	struct kprov *provs;
	size_t n_provs, cap_provs;
	struct kowner **owners;
	size_t n_owners, cap_owners;
	struct hash index, owner_index;
	bool index_dirty, cycles_dirty, has_vmlinux, crcs_from_symvers;
	const char *release, *vermagic;
	bool vermagic_from_image; /* a kernel image's vermagic wins over its modules' */
	int config[KSC_CONFIG_COUNT];
	unsigned int quirks;
	unsigned int errors;
	struct ksc_keyring *keyring; /* trusted keys (ksc-sig.c), or NULL */
	struct ksc_svahead *ahead;   /* Module.symvers rows read ahead, or NULL */
};

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

static int add_symvers_row(struct ksc_kernel *k, const struct ksc_symvers_entry *e,
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
		int r = add_symvers_row(k, ksc_symvers_get(sv, i), vmlinux_only);
		if (r < 0)
			return r;
	}
	k->crcs_from_symvers = true;
	return 0;
}

int ksc_kernel_add_symvers_entries(struct ksc_kernel *k, const struct ksc_symvers_entry *v,
				   size_t n, bool vmlinux_only)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < n; i++)
		r = add_symvers_row(k, &v[i], vmlinux_only);
	k->crcs_from_symvers = true;
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
	size_t name_len[KSC_CONFIG_COUNT];
	for (size_t i = 0; i < KSC_CONFIG_COUNT; i++) {
		k->config[i] = 0;
		name_len[i] = strlen(config_names[i]);
	}
	/* 7.2's config has 12,000 lines: a name is compared only with those of its length */
	for (char *line = data, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *eq = strchr(line, '=');
		if (!eq || strncmp(line, "CONFIG_", 7) != 0)
			continue;
		size_t len = (size_t)(eq - line);
		bool on = eq[1] == 'y' || eq[1] == 'm';
		for (size_t i = 0; i < KSC_CONFIG_COUNT; i++)
			if (len == name_len[i] && memcmp(line, config_names[i], len) == 0)
				k->config[i] = on;
		/* 6.9+ renamed CONFIG_RETPOLINE */
		if (len == 27 && memcmp(line, "CONFIG_MITIGATION_RETPOLINE", 27) == 0)
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

/* ---- the owners' dependency graph (R43; the rule itself: ksc-cycles.c) ---- */

/* The owner a module's import resolves to, as find_symbol() picks it; NULL: vmlinux. */
static struct kowner *import_owner(const struct ksc_kernel *k, const struct kowner *self,
				   const char *name)
{
	const struct kprov *p = hash_find(&k->index, name);

	for (; p; p = p->next ? &k->provs[p->next - 1] : NULL) {
		if (!p->owner)
			return NULL;
		if (p->owner != self && strcmp(p->owner->name, self->name) != 0)
			return p->owner;
	}
	return NULL;
}

/*
 * Each owner's dependencies, from its module's imports unless given; mark: scratch of one
 * entry per owner, all UINT32_MAX. 0 or -ENOMEM.
 */
static int owner_deps(struct ksc_kernel *k, uint32_t *mark)
{
	for (size_t i = 0; i < k->n_owners; i++) {
		struct kowner *o = k->owners[i];
		if (o->deps_given)
			continue;
		o->n_deps = 0;
		size_t cap = o->cap_deps;
		for (size_t j = 0; o->module && j < ksc_module_get_import_count(o->module); j++) {
			struct kowner *d =
				import_owner(k, o, ksc_module_get_import(o->module, j)->name);
			if (!d || mark[d->id] == i)
				continue;
			mark[d->id] = (uint32_t)i;
			if (array_push(o->deps, o->n_deps, cap, d->id) < 0)
				return -ENOMEM;
		}
		o->cap_deps = cap;
	}
	return 0;
}

/*
 * R43: which owners modprobe cannot load, being in or behind a dependency cycle
 * (kowner.cycle), by ksc-cycles.c's rule on the owners' graph. 0 or -ENOMEM.
 */
static int find_cycles(struct ksc_kernel *k)
{
	size_t n = k->n_owners, m = n ? n : 1;
	uint32_t **dp = calloc(m, sizeof(*dp)), *nd = calloc(m, sizeof(*nd));
	uint32_t *mark = malloc(m * sizeof(*mark));
	const char **names = calloc(m, sizeof(*names)), **text = calloc(m, sizeof(*text));
	bool *ok = calloc(m, sizeof(*ok));
	int r = -ENOMEM;

	if (!dp || !nd || !mark || !names || !text || !ok)
		goto out;
	for (size_t i = 0; i < n; i++)
		mark[i] = UINT32_MAX;
	if (owner_deps(k, mark) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		dp[i] = k->owners[i]->deps;
		nd[i] = k->owners[i]->n_deps;
		names[i] = k->owners[i]->name;
	}
	r = ksc_loadable(n, dp, nd, ok);
	if (r >= 0)
		r = ksc_cycle_texts(n, dp, nd, ok, names, &k->strings, text);
	for (size_t i = 0; i < n; i++)
		k->owners[i]->cycle = r >= 0 ? text[i] : NULL;
	if (r >= 0)
		k->cycles_dirty = false;
out:
	free(dp);
	free(nd);
	free(mark);
	free(names);
	free(text);
	free(ok);
	return r < 0 ? r : 0;
}

int ksc_kernel_set_owner_deps(struct ksc_kernel *k, const char *owner,
			      const char *const *deps, size_t n)
{
	struct kowner *o = hash_find(&k->owner_index, owner);
	size_t cap = o ? o->cap_deps : 0;

	if (!o)
		return 0; /* exports nothing: no module depends on it */
	o->n_deps = 0;
	o->deps_given = true;
	k->cycles_dirty = true;
	for (size_t i = 0; i < n; i++) {
		const struct kowner *d = hash_find(&k->owner_index, deps[i]);
		if (!d || d == o)
			continue;
		if (array_push(o->deps, o->n_deps, cap, d->id) < 0)
			return -ENOMEM;
	}
	o->cap_deps = cap;
	return 0;
}

/*
 * The symbol index: name -> first provider, providers of one name chained in the loader's
 * search order: vmlinux first (find_symbol() looks there first), then modules in the
 * order they were added.
 */
int ksc_kernel_build_index(struct ksc_kernel *k)
{
	if (!k->index_dirty)
		return k->cycles_dirty ? find_cycles(k) : 0;
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
	return find_cycles(k);
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

/* ---- what the other files of this wing set: errors, context, rows read ahead ---- */

void ksc_kernel_add_errors(struct ksc_kernel *k, unsigned int n)
{
	k->errors += n;
}

bool ksc_kernel_has_own_exports(const struct ksc_kernel *k)
{
	return k->has_vmlinux;
}

void ksc_kernel_set_ctx(struct ksc_kernel *k, struct ksc_ctx *ctx)
{
	struct ksc_ctx *old = k->ctx;

	k->ctx = ksc_ref(ctx);
	ksc_unref(old);
}

void ksc_kernel_keep_symvers_ahead(struct ksc_kernel *k, struct ksc_svahead *a)
{
	ksc_svahead_free(k->ahead);
	k->ahead = a;
}

struct ksc_svahead *ksc_kernel_take_symvers_ahead(struct ksc_kernel *k)
{
	struct ksc_svahead *a = k->ahead;

	k->ahead = NULL;
	return a;
}

/* ---- the kernel as the wings above read it: each function is one read, the loader asks
 * them per import ---- */

size_t ksc_kernel_prov_count(const struct ksc_kernel *k)
{
	return k->n_provs;
}

const struct kprov *ksc_kernel_prov(const struct ksc_kernel *k, size_t i)
{
	return &k->provs[i];
}

const struct ksc_export *ksc_kprov_export(const struct kprov *p)
{
	return &p->exp;
}

const struct kowner *ksc_kprov_owner(const struct kprov *p)
{
	return p->owner;
}

const char *ksc_kprov_owner_name(const struct kprov *p)
{
	return p->owner ? p->owner->name : "vmlinux";
}

size_t ksc_kernel_owner_count(const struct ksc_kernel *k)
{
	return k->n_owners;
}

const struct kowner *ksc_kernel_owner(const struct ksc_kernel *k, size_t i)
{
	return k->owners[i];
}

const struct kowner *ksc_kernel_find_owner(const struct ksc_kernel *k, const char *name)
{
	return hash_find(&k->owner_index, name);
}

const char *ksc_kowner_name(const struct kowner *o)
{
	return o->name;
}

struct ksc_module *ksc_kowner_module(const struct kowner *o)
{
	return o->module;
}

bool ksc_kowner_is_proprietary(const struct kowner *o)
{
	return o->proprietary;
}

const char *ksc_kowner_cycle(const struct kowner *o)
{
	return o->cycle;
}

const char *ksc_kowner_replaced(const struct kowner *o, const char **relpath,
				const char **won_by)
{
	if (relpath)
		*relpath = o->relpath;
	if (won_by)
		*won_by = o->won_by;
	return o->replaced;
}
