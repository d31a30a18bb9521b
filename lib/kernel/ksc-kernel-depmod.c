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

struct osym {
	const char *owner, *sym;
};

struct fast {
	struct ksc_ctx *q;   /* holds the messages back */
	struct ksc_kernel *k;
	struct ksc_modset_job *job; /* the walk, in its thread until ms is wanted */
	struct ksc_modset *ms; /* the files depmod keeps, and their facts */
	bool *need;          /* per file of the set */
	int64_t dep_mtime;   /* modules.dep's, in ns */
	bool stale;
	bool intree_seen;    /* an in-tree module read (add_needed()) */
	const char *why;     /* why depmod's files cannot stand for the tree */
	char *dep, *syms;    /* the files' text */
	struct hash listed;  /* modules.dep's paths */
	struct hash owner;   /* modules.symbols: symbol -> kmod name */
	struct osym *by_owner; /* the same pairs, sorted by owner (agrees()) */
	size_t n_by_owner;
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

/* Does every file of the set stand in modules.dep, none newer than it? */
static bool walk_agrees(struct fast *f)
{
	size_t n = ksc_modset_count(f->ms);

	for (size_t i = 0; i < n && !f->why; i++) {
		if (!hash_find(&f->listed, ksc_modset_relpath(f->ms, i)))
			f->why = "a module modules.dep does not list";
		else if (ksc_modset_mtime(f->ms, i) > f->dep_mtime)
			f->why = "a module newer than modules.dep";
	}
	if (!f->why && ksc_modset_walk_errors(f->ms))
		f->why = "the walk met a problem";
	if (!f->why && n != f->listed.count)
		f->why = "modules.dep lists a module depmod would not keep";
	return !f->why;
}

/* Mark the file of kmod name `name`; false when the set holds none. */
static bool need_named(struct fast *f, const char *name)
{
	size_t i;

	if (!ksc_modset_find(f->ms, name, &i))
		return false;
	f->need[i] = true;
	return true;
}

/* Mark the owner of `sym` (modules.symbols); false when modules.symbols names a file the
 * walk did not keep. */
static bool need_owner(struct fast *f, const char *sym)
{
	const char *owner = hash_find(&f->owner, sym);

	return !owner || need_named(f, owner);
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
		for (size_t i = 0; i < ksc_modset_count(f->ms); i++) {
			const char *deps = f->need[i] ? hash_find(&f->listed,
								 ksc_modset_relpath(f->ms, i))
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
				size_t e;
				if (!ksc_modset_find(f->ms, name, &e))
					return false;
				changed |= !f->need[e];
				f->need[e] = true;
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
		(void)need_named(f, name); /* the loader skips it as a provider */
		for (size_t i = 0; i < ksc_module_get_import_count(mods[m]); i++)
			if (!need_owner(f, ksc_module_get_import(mods[m], i)->name))
				return false;
	}
	for (size_t i = 0; i < ksc_modset_count(f->ms); i++)
		if (strncmp(ksc_modset_relpath(f->ms, i), "kernel/", 7) != 0)
			f->need[i] = true;
	return mark_dependencies(f);
}

/* Are the providers of everything `mod` imports read too (modules.dep complete)? */
static bool providers_needed(struct fast *f, const struct ksc_module *mod)
{
	for (size_t i = 0; i < ksc_module_get_import_count(mod); i++) {
		const char *owner = hash_find(&f->owner, ksc_module_get_import(mod, i)->name);
		size_t e;
		if (owner && ksc_modset_find(f->ms, owner, &e) && !f->need[e]) {
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

static int cmp_osym(const void *a, const void *b)
{
	const struct osym *x = a, *y = b;
	int c = strcmp(x->owner, y->owner);

	return c ? c : strcmp(x->sym, y->sym);
}

/* modules.symbols' pairs of the needed files, sorted by owner, once. 0 or -ENOMEM. */
static int sort_by_owner(struct fast *f)
{
	void *val;

	f->by_owner = malloc((f->owner.count ? f->owner.count : 1) * sizeof(*f->by_owner));
	if (!f->by_owner)
		return -ENOMEM;
	for (size_t i = 0; i < f->owner.n_buckets; i++) {
		const char *sym = hash_slot_key(&f->owner, i, &val);
		size_t e;
		if (sym && ksc_modset_find(f->ms, val, &e) && f->need[e])
			f->by_owner[f->n_by_owner++] = (struct osym){ val, sym };
	}
	qsort(f->by_owner, f->n_by_owner, sizeof(*f->by_owner), cmp_osym);
	return 0;
}

/* Does `mod` (the file e) export what modules.symbols gives it, and only that? */
static bool agrees(struct fast *f, size_t e, const struct ksc_module *mod)
{
	const char *name = ksc_modset_name(f->ms, e);

	for (size_t i = 0; i < ksc_module_get_export_count(mod); i++) {
		const char *owner = hash_find(&f->owner, ksc_module_get_export(mod, i)->name);
		if (!owner || strcmp(owner, name) != 0) {
			f->why = "a module's exports not as in modules.symbols";
			return false;
		}
	}
	/* the first pair of this owner, then each of its pairs */
	size_t lo = 0, hi = f->n_by_owner;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(f->by_owner[mid].owner, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < f->n_by_owner && strcmp(f->by_owner[i].owner, name) == 0; i++) {
		const char *sym = f->by_owner[i].sym;
		if (!ksc_module_find_export(mod, sym) && !is_namespace_of(mod, sym)) {
			f->why = "modules.symbols names an export a module lacks";
			return false;
		}
	}
	return true;
}

/*
 * The set's files in path order, as ksc_kernel_open() adds them: the needed ones read and
 * added, the others passed over once the kernel's vermagic is known; "replaces" said
 * for every file that won over another.
 */
static int add_needed(struct fast *f)
{
	struct ksc_kernel *k = f->k;
	const struct ksc_depmod_cfg *cfg = ksc_modset_cfg(f->ms);
	bool vermagic_known = false;

	for (size_t i = 0; i < ksc_modset_count(f->ms); i++) {
		const char *path = ksc_modset_path(f->ms, i), *rel = ksc_modset_relpath(f->ms, i);
		const char *replaced = ksc_modset_replaced(f->ms, i);
		struct ksc_module *mod = NULL;
		bool tried = f->need[i] || !vermagic_known;
		if (tried) {
			int r = ksc_modset_module(f->ms, i, f->q, &mod);
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
			if (!k->vermagic && !f->need[i] &&
			    !(k->vermagic = pool_strdup(&k->strings, ksc_module_get_vermagic(mod))))
				r = -ENOMEM;
			vermagic_known = true;
		}
		if (r >= 0 && is_mod && f->need[i]) {
			if (!agrees(f, i, mod) || !providers_needed(f, mod))
				r = -ESTALE;
			else
				r = ksc_kernel_add_module(k, mod);
		}
		if (r >= 0 && replaced && (is_mod || !tried)) {
			if (is_mod && f->need[i])
				r = ksc_kernel_note_replaced(k, cfg, mod, rel, replaced);
			else
				ksc_info(f->q, "%s: replaces %s for the loader (%s)", path, replaced,
					 ksc_depmod_module_rank_reason(cfg, rel, (char[512]){ 0 },
								       512));
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
	int r;

	f->why = "no modules.dep and modules.symbols";
	if (!read_depmod_file(f, moddir, "modules.dep", &f->dep, &f->dep_mtime) ||
	    !read_depmod_file(f, moddir, "modules.symbols", &f->syms, &sym_mtime))
		return -ESTALE;
	f->why = "a line not as depmod writes it";
	if ((r = parse_dep(f)) < 0 || (r = parse_symbols(f)) < 0)
		return r;
	f->why = NULL;
	if (!(f->ms = ksc_modset_job_wait(f->job, &r)))
		return r; /* the walk's own failure: the caller says it */
	if (!walk_agrees(f))
		return -ESTALE;
	f->need = calloc(ksc_modset_count(f->ms) + 1, sizeof(*f->need));
	if (!f->need)
		return -ENOMEM;
	if (!mark_needed(f, mods, n)) {
		f->why = "modules.symbols or modules.dep names a module depmod would not keep";
		return -ESTALE;
	}
	if ((r = sort_by_owner(f)) < 0)
		return r;
	r = ksc_kernel_new(f->q, &f->k);
	if (r >= 0)
		r = ksc_kernel_set_release(f->k, ksc_kernel_location_get_release(loc));
	if (r >= 0)
		r = add_needed(f);
	/* no in-tree module (every file was read to find one): only the headers installed,
	 * their Module.symvers rows as providers, as ksc_kernel_open_location() takes them */
	char *cache = ksc_kernel_symvers_cache_of(ksc_modset_index_path(f->ms));
	if (r >= 0)
		r = ksc_kernel_open_rest(f->k, loc, !f->intree_seen, cache);
	free(cache);
	return r;
}

static void fast_fini(struct fast *f)
{
	free(f->need);
	free(f->by_owner);
	hash_fini(&f->listed);
	hash_fini(&f->owner);
	free(f->dep);
	free(f->syms);
	ksc_kernel_unref(f->k);
	ksc_unref(f->q);
}

/* Said into ctx, as they were logged. */
static void replay_held(struct ksc_ctx *ctx, const struct held *h)
{
	for (size_t i = 0; h && i < h->n; i++)
		ksc_log_again(ctx, h->v[i].priority, h->v[i].text);
}

/* ksc_kernel_depmod_open(), the messages of `prelude` said first when it stands. */
static int depmod_open(struct ksc_ctx *ctx, const struct ksc_kernel_location *loc,
		       struct ksc_modset_job *job, struct ksc_module *const *mods, size_t n,
		       const struct held *prelude, struct ksc_kernel **out)
{
	struct held held = { 0 };
	struct fast f = { .job = job };
	int r;

	*out = NULL;
	hash_init(&f.listed);
	hash_init(&f.owner);
	f.q = ksc_new();
	if (!f.q)
		return -ENOMEM;
	ksc_set_log_priority(f.q, ksc_get_log_priority(ctx));
	ksc_set_log_fn(f.q, hold_msg, &held);
	r = open_fast(&f, loc, mods, n);
	if (r == 0 && held.oom)
		r = -ENOMEM;
	if (r == 0) {
		/* the answer stands: what was held back is said, later messages go through */
		replay_held(ctx, prelude);
		replay_held(ctx, &held);
		ksc_log_like(f.q, ctx);
		ksc_unref(f.k->ctx);
		f.k->ctx = ksc_ref(ctx);
		*out = f.k;
		f.k = NULL;
	} else if (r != -ENOMEM) {
		ksc_dbg(ctx, "%s: depmod's files not used: %s",
			ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR),
			f.why ? f.why : strerror(-r));
		r = -ESTALE;
	}
	fast_fini(&f);
	held_fini(&held);
	return r;
}

int ksc_kernel_depmod_open(struct ksc_ctx *ctx, const struct ksc_kernel_location *loc,
			   struct ksc_modset_job *job, struct ksc_module *const *mods, size_t n,
			   struct ksc_kernel **out)
{
	return depmod_open(ctx, loc, job, mods, n, NULL, out);
}

KSC_EXPORT int ksc_kernel_open_for_modules(struct ksc_ctx *ctx, const char *root,
					   const char *release, struct ksc_module *const *mods,
					   size_t n, struct ksc_kernel **out)
{
	struct held held = { 0 };
	struct ksc_kernel_location *loc = NULL;
	struct ksc_modset_job *job = NULL;
	struct ksc_ctx *q;
	int r;

	*out = NULL;
	if (!ctx || (n && !mods))
		return -EINVAL;
	/* the locator's and the walk's messages too are said only when the answer stands */
	if (!(q = ksc_new()))
		return -ENOMEM;
	ksc_set_log_priority(q, ksc_get_log_priority(ctx));
	ksc_set_log_fn(q, hold_msg, &held);
	r = ksc_kernel_locate(q, root, release, &loc);
	if (r == 0) {
		struct ksc_modset_where w = {
			.root = ksc_kernel_location_get_root(loc),
			.release = ksc_kernel_location_get_release(loc),
			.moddir = ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR),
		};
		r = ksc_modset_open_start(q, &w, &job);
	}
	if (r == 0)
		r = depmod_open(ctx, loc, job, mods, n, &held, out);
	else if (r != -ENOMEM)
		r = -ESTALE;
	if (r == 0 && held.oom)
		r = -ENOMEM;
	ksc_modset_job_free(job);
	ksc_kernel_location_unref(loc);
	ksc_unref(q);
	held_fini(&held);
	return r;
}
