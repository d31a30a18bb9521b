// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel a tree is resolved and checked against: its exports (Module.symvers, an
 * image or System.map, as the kernel locator finds them unless options name them) and
 * configuration, loaded once and perhaps on a thread of their own beside the walk;
 * the kernel of the checks (every module a provider); and ksc_tree_get_kernel(): the
 * kernel of ksc_kernel_open(), which the kernel wing makes (ksc_kernel_from_modset())
 * from a module set of the tree's records.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree-private.h"
#include "util/array.h"

/*
 * This file's part of the tree (kern_of()): which files give the kernel's exports and
 * configuration, what was read from them, depmod's symbol table, and the kernel the
 * checks run against while a run needs it. Other files ask the functions below.
 */
struct tree_kern {
	enum ksrc_kind ksrc;
	char *ksrc_path, *config_path;
	uint64_t ksrc_id, config_id;
	unsigned int quirks;
	bool kernel_loaded, kernel_ok;
	struct ksc_symvers *ksv;
	struct ksc_module *kvm;
	struct ksc_sysmap *ksm;
	struct ksc_kernel *ktmpl; /* config and release, copied into each thread's kernel */
	/*
	 * depmod's symbol table: symbol -> index + 1 (as pointer) in ksyms_at, the kernel's
	 * first (loaded with them), then the modules' (added when resolving).
	 */
	struct hash ksyms;
	struct msym *ksyms_at;
	size_t n_ksyms, cap_ksyms;
	/* the kernel the checks run against (build_check_kernel()), while a run needs it */
	struct ksc_kernel *ck;
	struct ksc_ctx *ck_ctx;
	struct ksc_msgbuf ck_msgs;
	int ck_err;
};

static struct tree_kern *kern_of(const struct ksc_tree *t)
{
	return tree_parts(t)->kern;
}

int kernel_part_new(struct ksc_tree *t)
{
	struct tree_kern *kp = calloc(1, sizeof(*kp));

	if (!kp)
		return -ENOMEM;
	hash_init(&kp->ksyms);
	tree_parts(t)->kern = kp;
	return 0;
}

void kernel_part_free(struct ksc_tree *t)
{
	struct tree_kern *kp = kern_of(t);

	if (!kp)
		return;
	hash_fini(&kp->ksyms);
	free(kp->ksyms_at);
	ksc_symvers_unref(kp->ksv);
	ksc_module_unref(kp->kvm);
	ksc_sysmap_unref(kp->ksm);
	ksc_kernel_unref(kp->ktmpl);
	ksc_kernel_unref(kp->ck);
	ksc_unref(kp->ck_ctx);
	ksc_msgbuf_fini(&kp->ck_msgs);
	free(kp->ksrc_path);
	free(kp->config_path);
	free(kp);
	tree_parts(t)->kern = NULL;
}

bool kernel_found(const struct ksc_tree *t)
{
	return kern_of(t)->ksrc != KSRC_NONE;
}

bool kernel_usable(const struct ksc_tree *t)
{
	return kern_of(t)->kernel_ok;
}

bool kernel_has_crcs(const struct ksc_tree *t)
{
	return kern_of(t)->kernel_ok && kern_of(t)->ksrc == KSRC_SYMVERS;
}

void kernel_ids(const struct ksc_tree *t, uint64_t *exports, uint64_t *config,
		unsigned int *quirks)
{
	*exports = kern_of(t)->ksrc_id;
	*config = kern_of(t)->config_id;
	*quirks = kern_of(t)->quirks;
}

KSC_EXPORT const char *ksc_tree_get_kernel_source(const struct ksc_tree *t)
{
	return kern_of(t)->ksrc_path;
}

/* depmod_symbol_find(): the kernel's and the modules' symbols are one table. */
const struct msym *ksym_find(const struct ksc_tree *t, const char *name)
{
	const struct tree_kern *kp = kern_of(t);

	if (name[0] == '.') /* PPC64's .foo is foo */
		name++;
	uintptr_t v = (uintptr_t)hash_find(&kp->ksyms, name);
	return v ? &kp->ksyms_at[v - 1] : NULL;
}
static uint64_t file_id(const char *path, uint64_t seed)
{
	struct stat st;

	if (!path)
		return ksc_hash64("none", 4, seed);
	if (stat(path, &st) < 0)
		return ksc_hash64(path, strlen(path), seed ^ 0xdead);
	uint64_t v[3] = { (uint64_t)st.st_size, (uint64_t)st_mtime_ns(&st),
			  (uint64_t)st.st_ino };
	return ksc_hash64(v, sizeof(v), ksc_hash64(path, strlen(path), seed));
}

/* A System.map that lists exports (not Debian 6.1's one-line placeholder)? Quietly. */
static bool sysmap_has_exports(const char *path)
{
	struct ksc_sysmap *sm;
	struct ksc_ctx *quiet = ksc_new();

	if (!quiet)
		return false;
	ksc_set_log_fn(quiet, NULL, NULL);
	int r = ksc_sysmap_new_from_path(quiet, path, &sm);
	ksc_unref(quiet);
	if (r < 0)
		return false;
	bool any = ksc_sysmap_get_export_count(sm) > 0;
	ksc_sysmap_unref(sm);
	return any;
}

/* Which files give the kernel's exports and configuration (not read yet), as the
 * kernel locator found them, unless options name them. */
int find_kernel(struct ksc_tree *t)
{
	struct tree_kern *kp = kern_of(t);
	const struct ksc_tree_opts *o = tree_opts(t);
	char p[PATH_MAX];
	const char *root = strcmp(tree_root(t), "/") == 0 ? "" : tree_root(t);

	if (o->symvers || o->vmlinux || o->system_map) {
		kp->ksrc = o->symvers	? KSRC_SYMVERS
			   : o->vmlinux ? KSRC_VMLINUX
					: KSRC_SYSMAP;
		kp->ksrc_path = strdup(o->symvers   ? o->symvers
				       : o->vmlinux ? o->vmlinux
						    : o->system_map);
		if (!kp->ksrc_path)
			return -ENOMEM;
	} else if (!o->no_kernel_search) {
		enum ksc_kernel_file which;
		const char *path =
			ksc_kernel_location_get_exports_path(tree_location(t), &which);
		/* Debian 6.1 ships a one-line System.map placeholder: only a map with
		 * exports counts */
		if (path && which == KSC_KFILE_SYSTEM_MAP && !sysmap_has_exports(path))
			path = NULL;
		if (path) {
			kp->ksrc = which == KSC_KFILE_SYMVERS	   ? KSRC_SYMVERS
				   : which == KSC_KFILE_SYSTEM_MAP ? KSRC_SYSMAP
								   : KSRC_VMLINUX;
			kp->ksrc_path = strdup(path);
			if (!kp->ksrc_path)
				return -ENOMEM;
		}
	}
	if (o->config) {
		kp->config_path = strdup(o->config);
	} else if (!o->no_kernel_search) {
		const char *config =
			ksc_kernel_location_get_path(tree_location(t), KSC_KFILE_CONFIG);
		if (config)
			kp->config_path = strdup(config);
	}
	if ((o->config || kp->config_path) && !kp->config_path)
		return -ENOMEM;
	/*
	 * As ksc_kernel_open(): a Debian kernel package documents itself under
	 * usr/share/doc.
	 */
	kp->quirks = o->quirks;
	if (!o->set_quirks) {
		struct stat st;
		kp->quirks = 0;
		snprintf(p, sizeof(p), "%s/usr/share/doc/linux-image-%s", root,
			 tree_release(t));
		bool debian = stat(p, &st) == 0;
		snprintf(p, sizeof(p), "%s/usr/share/doc/linux-image-%s-unsigned", root,
			 tree_release(t));
		if (debian || stat(p, &st) == 0)
			kp->quirks |= KSC_QUIRK_DEBIAN_MISSING_CRC;
	}
	kp->ksrc_id = file_id(kp->ksrc_path, (uint64_t)kp->ksrc);
	kp->config_id = file_id(kp->config_path, 77);
	return 0;
}

/* Add to depmod's symbol table (a later one replaces an earlier one). */
int ksym_add(struct ksc_tree *t, const char *name, int32_t owner, uint64_t crc)
{
	struct tree_kern *kp = kern_of(t);

	if (array_reserve(kp->ksyms_at, kp->cap_ksyms, kp->n_ksyms + 1, 1024) < 0)
		return -ENOMEM;
	/* The index is stored, not a pointer: the array moves. */
	kp->ksyms_at[kp->n_ksyms] = (struct msym){ owner, crc };
	int r = hash_add(&kp->ksyms, name, (void *)(uintptr_t)(kp->n_ksyms + 1), 0);
	if (r < 0)
		return r;
	kp->n_ksyms++;
	return 0;
}

/*
 * depmod's table: the kernel's symbols (depmod -E/-F, and the fake ones: loaded with the
 * kernel, perhaps on its own thread), then each module's exports in module order, a
 * later one replacing an earlier one. Resolved once: the kernel's part is not kept apart.
 */
int ksym_add_modules(struct ksc_tree *t)
{
	const size_t n_mods = tree_n_mods(t);
	struct tree_kern *kp = kern_of(t);
	size_t total = kp->n_ksyms;
	int r;

	for (size_t i = 0; i < n_mods; i++)
		total += ksc_krec_kexport_count(ksc_modent_rec(tree_mod(t, i)->ent));
	r = hash_reserve(&kp->ksyms, total);
	for (size_t i = 0; i < n_mods && r >= 0; i++) {
		const struct krec *rec = ksc_modent_rec(tree_mod(t, i)->ent);
		for (size_t j = 0; j < ksc_krec_kexport_count(rec) && r >= 0; j++) {
			uint64_t crc;
			const char *name = ksc_krec_kexport(rec, j, &crc);
			r = ksym_add(t, name, (int32_t)i, crc);
		}
	}
	return r;
}

/*
 * Read the kernel's exports (depmod -E/-F) and configuration, once. Touches only the
 * kernel's part of t, and the tree's context to log and make the kernel's objects
 * (nothing else uses it while this runs on its own thread): it can run beside the walk
 * and the reading of modules. Its problems wait apart (kernel_problem(); load_kernel()
 * adds them to the others).
 */
static int load_kernel_core(struct ksc_tree *t)
{
	struct tree_kern *kp = kern_of(t);
	int r = 0;

	if (kp->kernel_loaded)
		return 0;
	kp->kernel_loaded = true;
	double t0 = now_s();
	r = ksc_kernel_new(tree_ctx(t), &kp->ktmpl);
	if (r < 0)
		return r;
	r = ksc_kernel_set_release(kp->ktmpl, tree_release(t));
	if (r < 0)
		return r;
	if (kp->config_path) {
		r = ksc_kernel_read_config(kp->ktmpl, kp->config_path);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			kernel_problem(t, kp->config_path, r, "%s", strerror(-r));
	}
	if (kp->ksrc == KSRC_NONE)
		goto out;
	switch (kp->ksrc) {
	case KSRC_SYMVERS:
		r = ksc_symvers_new_from_path(tree_ctx(t), kp->ksrc_path, &kp->ksv);
		if (r == 0) {
			/* not "skipped": a symbol listed again is kept, and counted */
			unsigned int bad = ksc_symvers_get_error_count(kp->ksv);
			if (bad)
				kernel_problem(t, kp->ksrc_path, -EINVAL,
					       "%u faulty line%s (said above)", bad,
					       bad == 1 ? "" : "s");
			for (size_t i = 0; i < ksc_symvers_get_count(kp->ksv) && r >= 0;
			     i++) {
				const struct ksc_symvers_entry *e =
					ksc_symvers_get(kp->ksv, i);
				if (strcmp(e->module, "vmlinux") == 0)
					r = ksym_add(t, e->symbol, -1, e->crc);
			}
		}
		break;
	case KSRC_VMLINUX:
		r = ksc_module_new_from_path(tree_ctx(t), kp->ksrc_path, &kp->kvm);
		if (r == 0 && ksc_module_get_kind(kp->kvm) != KSC_KIND_VMLINUX) {
			ksc_err(tree_ctx(t), "%s: not a kernel image", kp->ksrc_path);
			ksc_module_unref(kp->kvm);
			kp->kvm = NULL;
			r = -ENOEXEC;
		}
		for (size_t i = 0; r == 0 && i < ksc_module_get_export_count(kp->kvm); i++) {
			const struct ksc_export *e = ksc_module_get_export(kp->kvm, i);
			r = ksym_add(t, e->name, -1, e->has_crc ? e->crc : 0);
		}
		break;
	case KSRC_SYSMAP:
		r = ksc_sysmap_new_from_path(tree_ctx(t), kp->ksrc_path, &kp->ksm);
		if (r == 0 && ksc_sysmap_get_error_count(kp->ksm)) /* as for Module.symvers */
			kernel_problem(t, kp->ksrc_path, -EINVAL,
				       "%u malformed line%s skipped",
				       ksc_sysmap_get_error_count(kp->ksm),
				       ksc_sysmap_get_error_count(kp->ksm) == 1 ? "" : "s");
		for (size_t i = 0; r == 0 && i < ksc_sysmap_get_export_count(kp->ksm); i++)
			r = ksym_add(t, ksc_sysmap_get_export(kp->ksm, i), -1, 0);
		break;
	default: break;
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		struct stat st;
		if (r == -EINVAL && stat(kp->ksrc_path, &st) == 0 && !S_ISREG(st.st_mode))
			kernel_problem(t, kp->ksrc_path, r, "not a regular file (%s)",
				       ksc_file_kind(st.st_mode));
		else if (r == -ENODATA)
			kernel_problem(t, kp->ksrc_path, r, "empty file: no exports");
		else if (kp->ksrc != KSRC_VMLINUX || !kp->kvm)
			kernel_problem(t, kp->ksrc_path, r, "%s", strerror(-r));
		goto out;
	}
	/* depmod_add_fake_syms(): resolved by the loader itself. */
	if ((r = ksym_add(t, "__this_module", -1, 0)) < 0 ||
	    (r = ksym_add(t, "_GLOBAL_OFFSET_TABLE_", -1, 0)) < 0)
		return r;
	if (!hash_find(&kp->ksyms, "TOC.") && (r = ksym_add(t, "TOC.", -1, 0)) < 0)
		return r;
	kp->kernel_ok = true;
out:
	tree_stats(t)->wall_kernel += now_s() - t0;
	return 0;
}

int load_kernel(struct ksc_tree *t)
{
	int r = load_kernel_core(t);
	int m = merge_kproblems(t);

	return r < 0 ? r : m;
}

void side_load_kernel(struct ksc_tree *t)
{
	(void)load_kernel(t);
}

void *kernel_thread(void *data)
{
	(void)load_kernel_core(data);
	return NULL;
}

/* Wait for it; its problems join the others. */
int kload_join(struct ksc_tree *t, struct kload *k)
{
	if (!k->on)
		return 0;
	pthread_join(k->th, NULL);
	k->on = false;
	return merge_kproblems(t);
}

/* The kernel to check against: the exports, the configuration, every module as provider. */
int tree_kernel(struct ksc_tree *t, struct ksc_ctx *ctx, struct ksc_kernel **out)
{
	const size_t n_mods = tree_n_mods(t);
	struct tree_kern *kp = kern_of(t);
	struct ksc_kernel *k;
	int r = ksc_kernel_new(ctx, &k);

	if (r < 0)
		return r;
	r = ksc_kernel_set_release(k, tree_release(t));
	if (r < 0)
		goto err;
	for (int i = 0; i < KSC_CONFIG_COUNT; i++) {
		int v = ksc_kernel_get_config(kp->ktmpl, (enum ksc_kconfig)i);
		if (v >= 0)
			ksc_kernel_set_config(k, (enum ksc_kconfig)i, v == 1);
	}
	ksc_kernel_set_quirks(k, kp->quirks);
	ksc_kernel_set_keyring(k, tree_opts(t)->keyring);
	if (kp->ksv) {
		r = ksc_kernel_add_symvers_rows(k, kp->ksv, true);
	} else if (kp->kvm) {
		r = ksc_kernel_add_vmlinux(k, kp->kvm);
	} else if (kp->ksm) {
		/* System.map: names only, no CRCs, no GPL flags. */
		size_t n = ksc_sysmap_get_export_count(kp->ksm);
		struct ksc_module *vm = NULL;
		r = ksc_module_new_from_facts(
			ctx,
			&(struct ksc_module_facts){ .path = kp->ksrc_path,
						    .kind = KSC_KIND_VMLINUX,
						    .kmod_name = "vmlinux",
						    .modpost_name = "vmlinux",
						    .symvers_owner = "vmlinux",
						    .no_export_index = true,
						    .cap.exports = n },
			&vm);
		for (size_t i = 0; r >= 0 && i < n; i++)
			r = ksc_module_add_export(
				vm, &(struct ksc_export){ ksc_sysmap_get_export(kp->ksm, i),
							  "", false, false, 0 });
		if (r >= 0)
			r = ksc_kernel_add_vmlinux(k, vm);
		ksc_module_unref(vm);
	}
	/*
	 * The providers. ksc_kernel_add_module() also takes the kernel's vermagic from the
	 * first in-tree module: set it from that module here, so that only the modules that
	 * export something need adding (a provider without exports provides nothing).
	 */
	for (size_t i = 0; r >= 0 && i < n_mods; i++) {
		const struct krec *rec = ksc_modent_rec(tree_mod(t, i)->ent);
		if (!rec || !krec_is_module(rec))
			continue;
		const char *vermagic = krec_modinfo(rec, "vermagic");
		if (krec_modinfo(rec, "intree") && vermagic) {
			/* a kernel image's own vermagic wins (ksc_kernel_add_vmlinux()) */
			if (!ksc_kernel_get_vermagic(k))
				r = ksc_kernel_set_vermagic(k, vermagic);
			break;
		}
	}
	for (size_t i = 0; r >= 0 && i < n_mods; i++) {
		const struct krec *rec = ksc_modent_rec(tree_mod(t, i)->ent);
		if (!rec || !krec_is_module(rec) || krec_export_count(rec) == 0)
			continue;
		struct ksc_module *stub;
		r = ksc_krec_to_module(ctx, rec, tree_mod(t, i)->path, false, true, NULL,
				       &stub);
		if (r < 0)
			break;
		r = ksc_kernel_add_module(k, stub);
		ksc_module_unref(stub);
	}
	if (r < 0)
		goto err;
	r = ksc_kernel_build_index(k);
	if (r < 0)
		goto err;
	*out = k;
	return 0;
err:
	ksc_kernel_unref(k);
	return r;
}

/*
 * The kernel the checks run against, with the tree's modules as providers: built once, on
 * the calling thread while the workers resolve (run_pool's side job), and shared by the
 * checking threads.
 */
void drop_check_kernel(struct ksc_tree *t)
{
	struct tree_kern *kp = kern_of(t);

	kp->ck = ksc_kernel_unref(kp->ck);
	kp->ck_ctx = ksc_unref(kp->ck_ctx);
	ksc_msgbuf_fini(&kp->ck_msgs);
}

void build_check_kernel(struct ksc_tree *t)
{
	struct tree_kern *kp = kern_of(t);

	if (kp->ck || kp->ck_err)
		return;
	kp->ck_ctx = ksc_new();
	if (!kp->ck_ctx) {
		kp->ck_err = -ENOMEM;
		return;
	}
	ksc_set_log_fn(kp->ck_ctx, ksc_msgbuf_log, &kp->ck_msgs);
	kp->ck_err = tree_kernel(t, kp->ck_ctx, &kp->ck);
}

/*
 * The kernel to check against, built unless built while resolving, and what it logged
 * said: 1 when out of memory, else 0 (it may not be there: check_kernel()).
 */
int ready_check_kernel(struct ksc_tree *t)
{
	struct tree_kern *kp = kern_of(t);
	int oom = 0;

	build_check_kernel(t);
	ksc_msgbuf_replay(&kp->ck_msgs, tree_ctx(t));
	ksc_msgbuf_clear(&kp->ck_msgs);
	oom |= kp->ck_msgs.oom;
	if (kp->ck_err == -ENOMEM)
		oom = 1;
	else if (kp->ck_err)
		ksc_err(tree_ctx(t), "%s: cannot build the kernel to check against: %s",
			tree_moddir(t), strerror(-kp->ck_err));
	return oom;
}

struct ksc_kernel *check_kernel(const struct ksc_tree *t)
{
	return kern_of(t)->ck;
}

/* ---------------------------------------------------------------------------------- */
/* ksc_kernel_open()'s kernel, from the tree                                           */

/*
 * Does the tree hold what ksc_kernel_open() reads, read without a problem: the located
 * files (no option named others), a walk without links, exports from Module.symvers or
 * an image (ksc_kernel_open() takes no System.map)?
 */
static bool stands_for_open(const struct ksc_tree *t)
{
	const struct tree_kern *kp = kern_of(t);
	const struct ksc_tree_opts *o = tree_opts(t);

	return !o->symvers && !o->vmlinux && !o->system_map && !o->config &&
	       !o->no_kernel_search && !o->set_quirks && problem_count(t) == 0 &&
	       walk_clean(t) && kp->kernel_ok &&
	       (kp->ksrc == KSRC_SYMVERS || kp->ksrc == KSRC_VMLINUX);
}

struct by_path {
	const char *rel;
	size_t i;
};

static int cmp_by_path(const void *a, const void *b)
{
	return strcmp(((const struct by_path *)a)->rel, ((const struct by_path *)b)->rel);
}

/*
 * The tree's modules as a module set, sorted by path as depmod's search hands them over,
 * each with its record (the set copies what it gives the kernel: the tree may go).
 */
static int modset_of_tree(struct ksc_tree *t, const struct ksc_kernel_location *loc,
			  struct ksc_modset **out)
{
	const size_t n_mods = tree_n_mods(t);
	struct ksc_modset_where w = {
		.root = ksc_kernel_location_get_root(loc),
		.release = ksc_kernel_location_get_release(loc),
		.moddir = ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR),
		.no_walk = true,
	};
	struct by_path *o = malloc((n_mods ? n_mods : 1) * sizeof(*o));
	struct ksc_ctx *quiet = ksc_new(); /* depmod.d was read, and said, by the tree */
	int r = o && quiet ? ensure_records(t) : -ENOMEM; /* one read of the index's records */

	*out = NULL;
	if (r >= 0) {
		ksc_set_log_fn(quiet, NULL, NULL);
		r = ksc_modset_open(quiet, &w, out);
	}
	for (size_t i = 0; r >= 0 && i < n_mods; i++)
		o[i] = (struct by_path){ tree_mod(t, i)->relpath, i };
	if (r >= 0)
		qsort(o, n_mods, sizeof(*o), cmp_by_path);
	for (size_t n = 0; r >= 0 && n < n_mods; n++) {
		struct tmod *m = tree_mod(t, o[n].i);
		const struct krec *rec = need_rec(t, m);
		r = rec ? ksc_modset_add(*out, m->relpath, m->replaced, rec) : -ENOMEM;
	}
	if (r < 0) {
		ksc_modset_free(*out);
		*out = NULL;
	}
	ksc_unref(quiet);
	free(o);
	return r;
}

KSC_EXPORT int ksc_tree_get_kernel(struct ksc_tree *t, struct ksc_ctx *ctx,
				   struct ksc_kernel **out)
{
	struct ksc_kernel_location *loc = NULL;
	enum ksc_kernel_file which = KSC_KFILE_SYMVERS;
	int r;

	*out = NULL;
	if (!t || !ctx)
		return -EINVAL;
	const struct tree_kern *kp = kern_of(t);
	r = load_kernel(t);
	if (r < 0)
		return r;
	if (!stands_for_open(t))
		return -ENODATA;
	/* The files as ksc_kernel_open() names them: under the root as the caller gave it. */
	struct ksc_ctx *quiet = ksc_new();
	if (!quiet)
		return -ENOMEM;
	ksc_set_log_fn(quiet, NULL, NULL);
	r = ksc_kernel_locate(quiet, tree_root_arg(t), tree_release(t), &loc);
	ksc_unref(quiet);
	if (r < 0)
		return r == -ENOMEM ? r : -ENODATA;
	const char *exports = ksc_kernel_location_get_exports_path(loc, &which);
	const char *config = ksc_kernel_location_get_path(loc, KSC_KFILE_CONFIG);
	if (!exports || (which == KSC_KFILE_SYMVERS) != (kp->ksrc == KSRC_SYMVERS) ||
	    which == KSC_KFILE_SYSTEM_MAP || !config != !kp->config_path) {
		r = -ENODATA;
		goto out;
	}
	/* The kernel wing makes it, as ksc_kernel_open_location() does, from the records. */
	struct ksc_modset *ms;
	r = modset_of_tree(t, loc, &ms);
	if (r >= 0)
		r = ksc_kernel_from_modset(ctx, loc, ms, out);
	ksc_modset_free(ms);
out:
	ksc_kernel_location_unref(loc);
	return r < 0 ? r : 0;
}

