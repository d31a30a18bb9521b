// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * compat's types: what BTF says changed between the kernel a module was built for and
 * the target, for each symbol it imports (the kernels' BTF, or the split BTF of the module
 * that exports it) and for each struct it was built with (its own split .BTF), through
 * ksc-compat-btf.c; recorded in the cell's memo, or replayed from it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/compat-private.h"
#include "util/fileio.h"

static char no_btf; /* a module whose BTF could not be had */

/* Kernel k's BTF, read on first use: one that cannot be read is left out (logged). */
struct ksc_compat_btf *compat_kbtf(struct crun *cr, size_t k)
{
	struct ksc_compat *c = cr->c;
	const char *p = cr->o->btf ? cr->o->btf[k] : NULL;

	if (!p || c->btf_tried[k])
		return c->btfs[k];
	c->btf_tried[k] = true;
	int r = ksc_compat_btf_open(p, &c->btfs[k]);
	if (r == -ENOMEM)
		cr->oom = true;
	else if (r < 0)
		ksc_err(ksc_kernel_get_ctx(cr->kernels[k]), "%s: cannot read BTF: %s", p,
			r == -ENOEXEC ? "not an ELF file with a valid .BTF section" : strerror(-r));
	c->btf_known[k] = c->btfs[k] != NULL;
	return c->btfs[k];
}

static int type_changed(void *data, bool func, const char *from, const char *to)
{
	struct crun *cr = data;
	struct ksc_compat *c = cr->c;
	if (cr->record && ksc_compat_memo_add(&cr->memo, 'T', (const char *[]){ cr->sym,
					      func ? "1" : "0", from, to }, 4) < 0)
		return -ENOMEM;
	int r = compat_add_finding(cr, cr->cell, "type-changed", KSC_SEV_ERROR, cr->sym,
				   NULL, NULL, NULL, NULL,
				   func ? compat_fmt(cr, "prototype changed")
					: compat_fmt(cr, "type changed"),
				   NULL);

	if (r < 0)
		return r;
	struct ksc_compat_finding *f = &c->findings[c->n_findings - 1];
	f->from_type = pool_strdup(&c->strings, from);
	f->to_type = pool_strdup(&c->strings, to);
	return f->from_type && f->to_type ? 0 : -ENOMEM;
}

/* Does the source reach one of `members` (','-separated) of struct `tag`? */
static bool accessed(const struct crun *cr, const char *tag, const char *members)
{
	char *list = strdup(members), *save = NULL;
	bool any = false;

	for (char *m = list ? strtok_r(list, ",", &save) : NULL; m && !any; m = strtok_r(NULL, ",", &save))
		any = ksc_src_names_accesses(&cr->names[cr->cell->kernel], tag, m);
	free(list);
	return any;
}

/*
 * A struct's members: once per cell. With the source: an error when it reaches a removed
 * member through a variable of that struct, a warning for a member of another type.
 */
static int member_changes(void *data, const char *name, const char *removed,
			  const char *retyped, const char *from, const char *to)
{
	struct crun *cr = data;
	struct ksc_compat *c = cr->c;
	struct ksc_compat_cell *cell = cr->cell;
	const char *type = compat_fmt(cr, "struct %s", name);
	bool gone = false, changed = false;

	if (cr->record && ksc_compat_memo_add(&cr->memo, 'M',
					      (const char *[]){ cr->sym, name, removed,
								retyped, from, to },
					      6) < 0)
		return -ENOMEM;
	enum ksc_severity sev = KSC_SEV_INFO;

	if (!type)
		return -ENOMEM;
	for (size_t i = cell->first_finding; i < c->n_findings; i++)
		if (c->findings[i].type_name && !c->findings[i].from &&
		    strcmp(c->findings[i].type_name, type) == 0 &&
		    strcmp(c->findings[i].code, "struct-changed") == 0)
			return 0;
	if (cr->names) {
		gone = removed[0] && accessed(cr, name, removed);
		changed = retyped[0] && accessed(cr, name, retyped);
		sev = gone ? KSC_SEV_ERROR : changed ? KSC_SEV_WARNING : KSC_SEV_INFO;
	}
	const char *what = removed[0] && retyped[0]
				   ? compat_fmt(cr, "members %s removed, %s changed",
						removed, retyped)
			   : removed[0] ? compat_fmt(cr, "members %s removed", removed)
					: compat_fmt(cr, "members %s changed", retyped);
	const char *via = cr->sym ? compat_fmt(cr, "through %s", cr->sym)
				  : compat_fmt(cr, "as the module was built");
	if (compat_add_finding(cr, cell, "struct-changed", sev, cr->sym ? cr->sym : type,
			       NULL, NULL, NULL, NULL,
			       compat_fmt(cr, "%s (%s): %s%s", type, via, what,
					  gone || changed ? ", reached in the source" : ""),
			       NULL) < 0)
		return -ENOMEM;
	struct ksc_compat_finding *f = &c->findings[c->n_findings - 1];
	f->named_in_source = gone || changed;
	f->type_name = type;
	f->from_type = pool_strdup(&c->strings, from);
	f->to_type = pool_strdup(&c->strings, to);
	return f->from_type && f->to_type ? 0 : -ENOMEM;
}

/* Module `path` (a .ko file, compressed or not) by its name, '-' as '_'. */
static int add_module_path(struct kmods *km, const char *path)
{
	const char *base = strrchr(path, '/');
	char name[256];
	size_t n;

	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	if (n >= sizeof(name) || strncmp(base + n, ".ko", 3) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[n] = '\0';
	const char *kname = pool_strdup(&km->strings, name), *kpath = pool_strdup(&km->strings, path);
	if (!kname || !kpath || hash_add(&km->paths, kname, (void *)kpath, 1) < 0)
		return -ENOMEM;
	return 0;
}

/* ksc_walk_modules()'s fn: each module file of a folder without modules.dep. */
static int walked_module(const char *path, void *data)
{
	return add_module_path(data, path);
}

/* Read kernel k's modules.dep (else its folder): where each module is. */
static void read_modules_dep(struct crun *cr, size_t k)
{
	struct kmods *km = &cr->kmods[k];
	const char *dir = cr->o->moddirs ? cr->o->moddirs[k] : NULL;
	char path[PATH_MAX], *data = NULL, *save = NULL;
	size_t size;
	struct stat st;
	int fd;

	km->read = true;
	if (!dir || snprintf(path, sizeof(path), "%s/modules.dep", dir) >= (int)sizeof(path))
		return;
	/* none (an unpacked package): the folder itself */
	fd = ksc_open_read(AT_FDCWD, path, 0, &st);
	if (fd < 0) {
		unsigned int errors = 0; /* logged; the modules found still serve */
		(void)ksc_walk_modules(ksc_kernel_get_ctx(cr->kernels[k]), dir, NULL,
				       walked_module, km, &errors);
		return;
	}
	if (ksc_read_fd(fd, &st, 64u << 20, &data, &size) < 0) {
		close(fd);
		return;
	}
	close(fd);
	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), full[PATH_MAX];
		if (!colon)
			continue;
		*colon = '\0';
		if (snprintf(full, sizeof(full), "%s/%s", dir, line) < (int)sizeof(full) &&
		    add_module_path(km, full) < 0)
			break;
	}
	free(data);
}

/*
 * The BTF that describes what module `owner` of kernel k exports: its own split BTF on
 * the kernel's (read once), else the kernel's own; NULL when kernel k has none.
 */
static struct ksc_compat_btf *owner_btf(struct crun *cr, size_t k, const char *owner)
{
	struct kmods *km = &cr->kmods[k];
	struct ksc_compat_btf *vm = compat_kbtf(cr, k), *b = NULL;
	char name[256];
	void *v;

	if (!vm || !owner || strcmp(owner, "vmlinux") == 0 || strlen(owner) >= sizeof(name))
		return vm;
	for (size_t i = 0; i <= strlen(owner); i++)
		name[i] = owner[i] == '-' ? '_' : owner[i];
	if (!km->read)
		read_modules_dep(cr, k);
	if ((v = hash_find(&km->btfs, name)))
		return v == &no_btf ? vm : v;
	const char *path = hash_find(&km->paths, name), *key = pool_strdup(&km->strings, name);
	if (path && ksc_compat_btf_open_split(ksc_kernel_get_ctx(cr->kernels[k]), path, vm, &b) < 0)
		b = NULL;
	if (!key || hash_add(&km->btfs, key, b ? (void *)b : &no_btf, 1) < 0) {
		ksc_compat_btf_free(b);
		return vm;
	}
	return b ? b : vm;
}

/* The BTF callbacks the memo has for import `sym` ("" the module's own structs), again. */
static int replay_types(struct crun *cr, const char *sym)
{
	const char *v[8];
	size_t n;
	int r = 0;

	while (r == 0 && (n = ksc_compat_memo_next(&cr->memo, "TM", sym ? sym : "", v, 8))) {
		cr->sym = sym && sym[0] ? sym : NULL;
		if (v[0][0] == 'T' && n == 5)
			r = type_changed(cr, strcmp(v[2], "1") == 0, v[3], v[4]);
		else if (v[0][0] == 'M' && n == 7)
			r = member_changes(cr, v[2], v[3], v[4], v[5], v[6]);
	}
	return r;
}

/* The types of one import in both kernels' BTF (its owners' where they are modules). */
int compat_type_findings(struct crun *cr, struct ksc_compat_cell *cell, const char *sym)
{
	static const struct ksc_compat_type_fn fn = { type_changed, member_changes };
	const struct ksc_compat_finding *f = cr->c->findings;
	const char *oo = NULL, *no = NULL;

	if (!cr->memo.replay && (!cr->base_btf || !cr->target_btf))
		return 0;
	for (size_t i = cell->first_finding; i < cr->c->n_findings; i++)
		if (strcmp(f[i].code, "export-removed") == 0 && strcmp(f[i].symbol, sym) == 0)
			return 0;
	cr->cell = cell;
	cr->sym = sym;
	if (cr->memo.replay)
		return replay_types(cr, sym);
	ksc_kernel_find_export(cr->base, sym, &oo);
	ksc_kernel_find_export(cr->target, sym, &no);
	return ksc_compat_btf_compare(owner_btf(cr, cr->base_idx, oo), owner_btf(cr, cell->kernel, no),
				      sym, fn, cr);
}

/* The BTFs of kernel k a module's types may come from: the kernel's, the owners of its
 * imports there, and the kernel's own module of the same name. */
static size_t kernel_btfs(struct crun *cr, size_t k, struct ksc_compat_btf **v, size_t max)
{
	size_t n = 0;

	v[n++] = compat_kbtf(cr, k);
	v[n++] = owner_btf(cr, k, ksc_module_get_name(cr->mod));
	for (size_t i = 0; i < ksc_module_get_import_count(cr->mod) && n < max; i++) {
		const char *owner = NULL;
		bool seen = false;
		if (!ksc_kernel_find_export(cr->kernels[k], ksc_module_get_import(cr->mod, i)->name, &owner))
			continue;
		struct ksc_compat_btf *b = owner_btf(cr, k, owner);
		for (size_t j = 0; j < n; j++)
			seen |= v[j] == b;
		if (!seen)
			v[n++] = b;
	}
	return n;
}

struct own_structs {
	struct crun *cr;
	struct ksc_compat_btf *mod, *base[64], *target[64];
	size_t n_base, n_target;
};

/* One struct of the module's own BTF: as its kernel had it, and changed in the target. */
static int own_struct(void *data, const char *name)
{
	static const struct ksc_compat_type_fn fn = { type_changed, member_changes };
	struct own_structs *os = data;
	struct ksc_compat_btf *from = NULL, *to = NULL;

	for (size_t i = 0; !from && i < os->n_base; i++)
		if (os->base[i] && ksc_compat_btf_has_struct(os->base[i], name))
			from = os->base[i];
	/* the module's own definition, or one of other headers: not the kernel's */
	if (!from || !ksc_compat_btf_same_struct(os->mod, from, name))
		return 0;
	for (size_t i = 0; !to && i < os->n_target; i++)
		if (os->target[i] && ksc_compat_btf_has_struct(os->target[i], name))
			to = os->target[i];
	return to ? ksc_compat_btf_struct_changes(os->mod, to, name, fn, os->cr) : 0;
}

/* The structs the module was built with (its own split BTF) against the target's. */
int compat_own_types(struct crun *cr, struct ksc_compat_cell *cell, size_t m)
{
	struct own_structs os = { .cr = cr };

	if (cr->memo.replay) {
		cr->cell = cell;
		return replay_types(cr, "");
	}
	if (!cr->base_btf || !cr->target_btf)
		return 0;
	if (!cr->mod_btf_tried[m]) {
		cr->mod_btf_tried[m] = true;
		if (ksc_compat_btf_open_split(ksc_kernel_get_ctx(cr->base), ksc_module_get_path(cr->mod),
					      cr->base_btf, &cr->mod_btf[m]) < 0)
			cr->mod_btf[m] = NULL; /* no .BTF, or built on another vmlinux */
	}
	if (!(os.mod = cr->mod_btf[m]))
		return 0;
	os.n_base = kernel_btfs(cr, cr->base_idx, os.base, 64);
	os.n_target = kernel_btfs(cr, cell->kernel, os.target, 64);
	cr->cell = cell;
	cr->sym = NULL;
	return ksc_compat_btf_own_structs(os.mod, own_struct, &os);
}

/* The modules' BTF a run read (before the kernels' own, their bases). */
void compat_free_btfs(struct crun *cr)
{
	for (size_t m = 0; cr->mod_btf && m < cr->c->n_mods; m++)
		ksc_compat_btf_free(cr->mod_btf[m]);
	for (size_t k = 0; cr->kmods && k < cr->c->n_kernels; k++) {
		struct kmods *km = &cr->kmods[k];
		for (size_t i = 0; i < km->btfs.n_buckets; i++) {
			void *v;
			if (hash_slot_key(&km->btfs, i, &v) && v != &no_btf)
				ksc_compat_btf_free(v);
		}
		hash_fini(&km->paths);
		hash_fini(&km->btfs);
		pool_fini(&km->strings);
	}
	free(cr->kmods);
	free(cr->mod_btf);
	free(cr->mod_btf_tried);
}

