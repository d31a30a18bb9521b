// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ksc_kernel_open_for_modules(): the kernel ksc_kernel_open() gives, read only as far as
 * the verdicts of some modules depend on it, from the files depmod wrote into the module
 * folder (modprobe answers from them the same way). When they are current, the tree's
 * modules are walked (depmod's search, one file per name) but only these are read:
 *
 * - the providers of what the modules import (and of module_layout), found by name in
 *   modules.symbols, and what those need in turn (their lines of modules.dep): whether
 *   a provider can be loaded at all depends on its own providers (R43, a dependency
 *   cycle), and each file read must find its own providers among them;
 * - the files named like the modules (the loader skips them as providers);
 * - every file outside kernel/ (updates/, extra/, DKMS folders): modpost refuses a symbol
 *   exported twice within one kernel build, so only such files can export a symbol that
 *   an in-tree module exports too, and the loader takes the first by path;
 * - the files before the first in-tree module, for the kernel's vermagic.
 *
 * "Current": modules.dep and modules.symbols are regular files, the walk met no problem,
 * it kept exactly the files modules.dep lists, none of them is newer than modules.dep,
 * every import's owner in modules.symbols is one of them, and each file read exports what
 * modules.symbols says it does and nothing that it gives to another. Anything else is
 * -ESTALE and nothing is logged: the caller reads the whole tree (ksc_kernel_open()).
 * What the walk and the reads log is held back until the answer is known, then passed
 * on in the order ksc_kernel_open() would say it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel/kernel.h"
#include "modset/modset.h"
#include "util/array.h"
#include "util/hash.h"

/* ---- messages held back ---------------------------------------------------------- */

struct held_msg {
	int priority;
	char *text;
};

struct held {
	struct held_msg *v;
	size_t n, cap;
	bool oom;
};

static void hold_msg(void *data, int priority, const char *msg)
{
	struct held *h = data;
	char *t = strdup(msg);

	if (!t || array_reserve(h->v, h->cap, h->n + 1, 16) < 0) {
		free(t);
		h->oom = true;
		return;
	}
	h->v[h->n++] = (struct held_msg){ priority, t };
}

static void held_fini(struct held *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->v[i].text);
	free(h->v);
}

/* ---- depmod's files --------------------------------------------------------------- */

struct kept {
	char *path;       /* absolute; rel = path + base */
	char *replaced;   /* the file of the same name it won over, relative, or NULL */
	char *name;       /* kmod's name (a key of by_name: not in the growing array) */
	bool need;
};

struct fast {
	struct ksc_ctx *q;   /* holds the messages back */
	struct ksc_kernel *k;
	struct ksc_depmod_cfg *cfg;
	size_t base;         /* length of the module folder + '/' */
	int64_t dep_mtime;   /* modules.dep's, in ns */
	bool stale;
	bool intree_seen;    /* an in-tree module read (add_needed()) */
	const char *why;     /* why depmod's files cannot stand for the tree */
	struct kept *kept;
	size_t n, cap;
	struct hash by_name; /* kmod name -> kept index + 1 */
	char *dep, *syms;    /* the files' text */
	struct hash listed;  /* modules.dep's paths */
	struct hash owner;   /* modules.symbols: symbol -> kmod name */
};

/* The text of DIR/NAME, a regular file; false when it cannot stand for the tree. */
static bool read_depmod_file(struct fast *f, const char *dir, const char *name, char **text,
			     int64_t *mtime)
{
	char p[PATH_MAX];
	struct stat st;
	size_t size;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p) ||
	    stat(p, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return false;
	*mtime = st_mtime_ns(&st);
	return ksc_read_text_file(f->q, p, text, &size) == 0;
}

/* modules.dep: "kernel/x/y.ko.xz: deps...", one line per module depmod kept. */
static int parse_dep(struct fast *f)
{
	for (char *line = f->dep, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *colon = strchr(line, ':');
		if (!colon || colon == line)
			return -ESTALE;
		*colon = '\0';
		if (hash_add(&f->listed, line, colon + 1, 0) < 0) /* the value: its dependencies */
			return -ENOMEM;
	}
	return 0;
}

/* modules.symbols: "alias symbol:NAME MODNAME" (depmod's output_symbols()). */
static int parse_symbols(struct fast *f)
{
	static const char pre[] = "alias symbol:";

	for (char *line = f->syms, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (strncmp(line, pre, sizeof(pre) - 1) != 0)
			return -ESTALE;
		char *name = line + sizeof(pre) - 1, *sp = strchr(name, ' ');
		if (!sp || sp == name || !sp[1])
			return -ESTALE;
		*sp = '\0';
		if (hash_add(&f->owner, name, sp + 1, 0) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* One file depmod keeps for its name, in path order: listed and not newer. */
static int collect(const char *path, const char *replaced, const struct stat *st, void *data)
{
	struct fast *f = data;
	size_t nl;

	if (!hash_find(&f->listed, path + f->base))
		f->why = "a module modules.dep does not list";
	else if (st_mtime_ns(st) > f->dep_mtime)
		f->why = "a module newer than modules.dep";
	if (f->why) {
		f->stale = true;
		return -ESTALE;
	}
	if (array_reserve(f->kept, f->cap, f->n + 1, 256) < 0)
		return -ENOMEM;
	struct kept *e = &f->kept[f->n];
	char name[PATH_MAX];
	ksc_kmod_modname(path, name, sizeof(name), &nl);
	*e = (struct kept){ .path = strdup(path), .name = strdup(name),
			    .replaced = replaced ? strdup(replaced) : NULL };
	if (!e->path || !e->name || (replaced && !e->replaced)) {
		free(e->path);
		free(e->name);
		free(e->replaced);
		return -ENOMEM;
	}
	f->n++;
	return hash_add(&f->by_name, e->name, (void *)(uintptr_t)f->n, 0);
}

/* The kept file of kmod name `name`, or NULL. */
static struct kept *kept_named(const struct fast *f, const char *name)
{
	uintptr_t i = (uintptr_t)hash_find(&f->by_name, name);

	return i ? &f->kept[i - 1] : NULL;
}

/* Mark the owner of `sym` (modules.symbols); false when modules.symbols names a file the
 * walk did not keep. */
static bool need_owner(struct fast *f, const char *sym)
{
	const char *owner = hash_find(&f->owner, sym);
	struct kept *e;

	if (!owner)
		return true;
	e = kept_named(f, owner);
	if (e)
		e->need = true;
	return e != NULL;
}

/*
 * Mark what the needed files need in turn, as modules.dep lists it (a line names every
 * module its module needs, directly or not), until nothing changes; false when a line
 * names a file the walk did not keep.
 */
static bool mark_dependencies(struct fast *f)
{
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < f->n; i++) {
			const char *deps = f->kept[i].need ? hash_find(&f->listed,
								      f->kept[i].path + f->base)
							   : NULL;
			for (const char *d = deps; d && *d;) {
				d += strspn(d, " ");
				size_t len = strcspn(d, " "), nl;
				char path[PATH_MAX], name[PATH_MAX];
				if (!len)
					break;
				if (len >= sizeof(path))
					return false;
				memcpy(path, d, len);
				path[len] = '\0';
				d += len;
				ksc_kmod_modname(path, name, sizeof(name), &nl);
				struct kept *e = kept_named(f, name);
				if (!e)
					return false;
				changed |= !e->need;
				e->need = true;
			}
		}
	}
	return true;
}

static bool mark_needed(struct fast *f, struct ksc_module *const *mods, size_t n)
{
	if (!need_owner(f, "module_layout"))
		return false;
	for (size_t m = 0; m < n; m++) {
		char name[256];
		size_t nl;
		ksc_kmod_modname(ksc_module_get_name(mods[m]), name, sizeof(name), &nl);
		struct kept *same = kept_named(f, name);
		if (same)
			same->need = true;
		for (size_t i = 0; i < ksc_module_get_import_count(mods[m]); i++)
			if (!need_owner(f, ksc_module_get_import(mods[m], i)->name))
				return false;
	}
	for (size_t i = 0; i < f->n; i++)
		if (strncmp(f->kept[i].path + f->base, "kernel/", 7) != 0)
			f->kept[i].need = true;
	return mark_dependencies(f);
}

/* Are the providers of everything `mod` imports read too (modules.dep complete)? */
static bool providers_needed(struct fast *f, const struct ksc_module *mod)
{
	for (size_t i = 0; i < ksc_module_get_import_count(mod); i++) {
		const char *owner = hash_find(&f->owner, ksc_module_get_import(mod, i)->name);
		const struct kept *e = owner ? kept_named(f, owner) : NULL;
		if (e && !e->need) {
			f->why = "a module needs one that its line of modules.dep does not name";
			return false;
		}
	}
	return true;
}

/*
 * Is `name` the namespace of one of mod's exports? kmod's depmod before 31 takes every
 * string of __ksymtab_strings for a symbol, the namespaces kept there too ("alias
 * symbol:module:kvm-amd,kvm-intel kvm").
 */
static bool is_namespace_of(const struct ksc_module *mod, const char *name)
{
	for (size_t i = 0; i < ksc_module_get_export_count(mod); i++)
		if (strcmp(ksc_module_get_export(mod, i)->ns, name) == 0)
			return true;
	return false;
}

/* Does `mod` (the file e) export what modules.symbols gives it, and only that? */
static bool agrees(struct fast *f, const struct kept *e, const struct ksc_module *mod)
{
	for (size_t i = 0; i < ksc_module_get_export_count(mod); i++) {
		const char *owner = hash_find(&f->owner, ksc_module_get_export(mod, i)->name);
		if (!owner || strcmp(owner, e->name) != 0) {
			f->why = "a module's exports not as in modules.symbols";
			return false;
		}
	}
	void *val;
	for (size_t i = 0; i < f->owner.n_buckets; i++) {
		const char *sym = hash_slot_key(&f->owner, i, &val);
		if (sym && strcmp(val, e->name) == 0 && !ksc_module_find_export(mod, sym) &&
		    !is_namespace_of(mod, sym)) {
			f->why = "modules.symbols names an export a module lacks";
			return false;
		}
	}
	return true;
}

/*
 * The kept files in path order, as ksc_kernel_open() adds them: the needed ones read and
 * added, the others passed over once the kernel's vermagic is known; "replaces" said
 * for every file that won over another.
 */
static int add_needed(struct fast *f)
{
	struct ksc_kernel *k = f->k;
	bool vermagic_known = false;

	for (size_t i = 0; i < f->n; i++) {
		struct kept *e = &f->kept[i];
		struct ksc_module *mod = NULL;
		bool tried = e->need || !vermagic_known;
		if (tried) {
			int r = ksc_module_new_from_module_path(f->q, e->path, &mod);
			if (r == -ENOMEM)
				return r;
			if (r < 0)
				k->errors++;
		}
		bool is_mod = mod && ksc_module_get_kind(mod) == KSC_KIND_MODULE;
		int r = 0;
		if (is_mod && ksc_module_is_intree(mod))
			f->intree_seen = true; /* until then every file is read */
		if (is_mod && ksc_module_is_intree(mod) && ksc_module_get_vermagic(mod)) {
			if (!k->vermagic && !e->need &&
			    !(k->vermagic = pool_strdup(&k->strings, ksc_module_get_vermagic(mod))))
				r = -ENOMEM;
			vermagic_known = true;
		}
		if (r >= 0 && is_mod && e->need) {
			if (!agrees(f, e, mod) || !providers_needed(f, mod))
				r = -ESTALE;
			else
				r = ksc_kernel_add_module(k, mod);
		}
		if (r >= 0 && e->replaced && (is_mod || !tried)) {
			if (is_mod && e->need)
				r = ksc_kernel_note_replaced(k, f->cfg, mod, e->path + f->base,
							     e->replaced);
			else
				ksc_info(f->q, "%s: replaces %s for the loader (%s)", e->path,
					 e->replaced,
					 ksc_depmod_module_rank_reason(f->cfg, e->path + f->base,
								       (char[512]){ 0 }, 512));
		}
		ksc_module_unref(mod);
		if (r < 0)
			return r;
	}
	return 0;
}

static int open_fast(struct fast *f, const struct ksc_kernel_location *loc,
		     struct ksc_module *const *mods, size_t n)
{
	const char *moddir = ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR);
	int64_t sym_mtime;
	unsigned int errors = 0;
	int r;

	f->base = strlen(moddir) + 1;
	f->why = "no modules.dep and modules.symbols";
	if (!read_depmod_file(f, moddir, "modules.dep", &f->dep, &f->dep_mtime) ||
	    !read_depmod_file(f, moddir, "modules.symbols", &f->syms, &sym_mtime))
		return -ESTALE;
	f->why = "a line not as depmod writes it";
	if ((r = parse_dep(f)) < 0 || (r = parse_symbols(f)) < 0)
		return r;
	f->why = NULL;
	r = ksc_depmod_cfg_load(f->q, ksc_kernel_location_get_root(loc),
				ksc_kernel_location_get_release(loc), &f->cfg);
	if (r < 0)
		return r;
	r = ksc_depmod_modules_search_st(f->q, f->cfg, moddir, collect, f, &errors);
	if (!f->why && errors)
		f->why = "the walk met a problem";
	if (!f->why && f->n != f->listed.count)
		f->why = "modules.dep lists a module depmod would not keep";
	if (f->why)
		return -ESTALE;
	if (r < 0)
		return r;
	if (!mark_needed(f, mods, n)) {
		f->why = "modules.symbols or modules.dep names a module depmod would not keep";
		return -ESTALE;
	}
	r = ksc_kernel_new(f->q, &f->k);
	if (r >= 0)
		r = ksc_kernel_set_release(f->k, ksc_kernel_location_get_release(loc));
	if (r >= 0)
		r = add_needed(f);
	/* no in-tree module (every file was read to find one): only the headers installed,
	 * their Module.symvers rows as providers, as ksc_kernel_open_location() takes them */
	if (r >= 0)
		r = ksc_kernel_open_rest(f->k, loc, !f->intree_seen);
	return r;
}

static void fast_fini(struct fast *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->kept[i].path);
		free(f->kept[i].name);
		free(f->kept[i].replaced);
	}
	free(f->kept);
	hash_fini(&f->by_name);
	hash_fini(&f->listed);
	hash_fini(&f->owner);
	free(f->dep);
	free(f->syms);
	ksc_depmod_cfg_free(f->cfg);
	ksc_kernel_unref(f->k);
	ksc_unref(f->q);
}

KSC_EXPORT int ksc_kernel_open_for_modules(struct ksc_ctx *ctx, const char *root,
					   const char *release, struct ksc_module *const *mods,
					   size_t n, struct ksc_kernel **out)
{
	struct held held = { 0 };
	struct fast f = { 0 };
	struct ksc_kernel_location *loc = NULL;
	int r;

	*out = NULL;
	if (!ctx || (n && !mods))
		return -EINVAL;
	hash_init(&f.by_name);
	hash_init(&f.listed);
	hash_init(&f.owner);
	f.q = ksc_new();
	if (!f.q)
		return -ENOMEM;
	ksc_set_log_priority(f.q, ksc_get_log_priority(ctx));
	ksc_set_log_fn(f.q, hold_msg, &held);
	r = ksc_kernel_locate(f.q, root, release, &loc);
	if (r == 0)
		r = open_fast(&f, loc, mods, n);
	if (r == 0 && held.oom)
		r = -ENOMEM;
	if (r == 0) {
		/* the answer stands: what was held back is said, later messages go through */
		for (size_t i = 0; i < held.n; i++)
			if (ctx->log_fn && held.v[i].priority <= ctx->log_priority)
				ctx->log_fn(ctx->log_data, held.v[i].priority, held.v[i].text);
		ksc_set_log_fn(f.q, ctx->log_fn, ctx->log_data);
		ksc_unref(f.k->ctx);
		f.k->ctx = ksc_ref(ctx);
		*out = f.k;
		f.k = NULL;
	} else if (r != -ENOMEM) {
		ksc_dbg(ctx, "%s: depmod's files not used: %s",
			loc ? ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR)
			    : root && *root ? root : "/",
			f.why ? f.why : strerror(-r));
		r = -ESTALE;
	}
	ksc_kernel_location_unref(loc);
	fast_fini(&f);
	held_fini(&held);
	return r;
}
