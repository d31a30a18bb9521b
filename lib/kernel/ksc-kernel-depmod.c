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
 * depmod's files are its binary indexes, modules.dep.bin and modules.symbols.bin, when
 * both are there and hold what is asked of them: modprobe answers from them, and a check
 * then looks up only its modules' imports, providers and files (a few hundred keys, in
 * tries read whole, ksc-depmod-bin.c) instead of making a table of every line of the
 * text files (4,216 modules and 16,313 symbols on Debian's 7.2). When a .bin file is
 * missing, not as depmod writes it, or not current, the text files modules.dep and
 * modules.symbols are read instead, as before, and each is proven current the same way.
 *
 * "Current": the files are regular files, the walk met no problem, it kept exactly the
 * files modules.dep lists (each file's line found by its path, as many lines as files; or
 * every value of modules.dep.bin, visited once, naming a different file of the walk by
 * its path, and every file named), none of them is newer than modules.dep (than either
 * .bin file on their road), every import's owner in modules.symbols is one of them, each
 * file read exports what modules.symbols says it does, and every symbol whose owner a
 * verdict takes from modules.symbols (an import of a module checked or read) is exported
 * by that owner. Anything else is -ESTALE and nothing is logged: the caller reads the
 * whole tree (ksc_kernel_open()).
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

/* ---- depmod's files --------------------------------------------------------------- */

/* A symbol whose owner a verdict takes from modules.symbols: `owner` must export it. */
struct relied {
	const char *sym;
	size_t owner;
};

/* What is known of each file of the set (struct fast's `need`). */
enum {
	NEED = 1,     /* read: its verdict or a verdict that depends on it needs it */
	EXPANDED = 2, /* its line of modules.dep followed */
	PASSED = 4,   /* add_needed() went past it (read or not) */
	LISTED = 8,   /* a value of modules.dep.bin names it (walk_agrees()) */
};

struct fast {
	struct ksc_ctx *q;   /* holds the messages back */
	struct ksc_kernel *k;
	struct ksc_modset_job *job; /* the walk, in its thread until ms is wanted */
	struct ksc_modset *ms; /* the files depmod keeps, and their facts */
	unsigned char *need; /* per file of the set: NEED, EXPANDED, PASSED */
	struct ksc_module **got; /* the needed files read, by position */
	int64_t dep_mtime;   /* modules.dep's (the older .bin file's), in ns */
	bool intree_seen;    /* an in-tree module read (add_needed()) */
	const char *why;     /* why depmod's files cannot stand for the tree */
	/* the .bin road: the tries, and a lookup that found one malformed or wanting */
	bool bin, bin_bad, oom;
	struct ksc_depbin depbin, symbin;
	char *key;           /* "symbol:NAME" */
	char *cache;         /* the Module.symvers rows kept beside the index, or NULL */
	size_t key_cap;
	/* modules.dep.bin's values, visited while the walk runs (dep_values()) */
	struct dep_value {
		const char *v;
		size_t len;
	} *vals;
	size_t n_vals, cap_vals;
	int visit_r;         /* what the visit ended with */
	/* the text road: the files' text, and tables of their lines */
	char *dep, *syms;
	struct hash listed;  /* modules.dep's paths */
	struct hash owner;   /* modules.symbols: symbol -> kmod name */
	struct relied *relied; /* not yet checked: their owner not read yet */
	size_t n_relied, cap_relied;
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

/* DIR/NAME, kmod's index; false (f->why said) when it cannot answer. */
static bool open_bin(struct fast *f, const char *dir, const char *name, struct ksc_depbin *db,
		     int64_t *mtime)
{
	char p[PATH_MAX];
	struct stat st;
	int r;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p))
		return false;
	r = ksc_depbin_open(p, &st, db);
	if (r == -ENOMEM)
		f->oom = true;
	if (r < 0) {
		f->why = r == -ENOENT ? "no modules.dep.bin and modules.symbols.bin"
				      : "a .bin file not as depmod writes it";
		return false;
	}
	*mtime = st_mtime_ns(&st);
	return true;
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

/* A lookup in a .bin file: its value, NULL when none (f->bin_bad when it cannot say). */
static const char *bin_lookup(struct fast *f, const struct ksc_depbin *db, const char *key)
{
	struct ksc_depbin_value v;
	int r = ksc_depbin_lookup(db, key, &v);

	if (r < 0 || (r > 0 && v.count != 1)) {
		f->bin_bad = true; /* a malformed node, a key depmod cannot write, two values */
		return NULL;
	}
	return r ? v.value : NULL;
}

/* File i's dependencies as modules.dep lists them (after "PATH:"), or NULL. */
static const char *deps_of(struct fast *f, size_t i)
{
	const char *rel = ksc_modset_relpath(f->ms, i), *line;
	size_t len;

	if (!f->bin)
		return hash_find(&f->listed, rel);
	/* modules.dep.bin: the kmod name -> the line, "PATH: deps..." */
	line = bin_lookup(f, &f->depbin, ksc_modset_name(f->ms, i));
	len = strlen(rel);
	if (!line || strncmp(line, rel, len) != 0 || line[len] != ':')
		return NULL;
	return line + len + 1;
}

/* The kmod name of the module that exports `sym` as modules.symbols says, or NULL. */
static const char *owner_of(struct fast *f, const char *sym)
{
	size_t len;

	if (!f->bin)
		return hash_find(&f->owner, sym);
	len = strlen(sym);
	if (array_reserve(f->key, f->key_cap, len + sizeof("symbol:"), 64) < 0) {
		f->oom = f->bin_bad = true;
		return NULL;
	}
	memcpy(f->key, "symbol:", 7);
	memcpy(f->key + 7, sym, len + 1);
	return bin_lookup(f, &f->symbin, f->key);
}

/* A value of modules.dep.bin, "PATH: deps...": PATH must be a file of the walk, once. */
static int listed_once(void *data, const char *value, size_t len)
{
	struct fast *f = data;
	size_t plen = strcspn(value, ":"), nl, i;
	char path[PATH_MAX], name[PATH_MAX];

	if (plen == len || plen >= sizeof(path))
		return -EINVAL; /* not a line as depmod writes it */
	memcpy(path, value, plen);
	path[plen] = '\0';
	ksc_kmod_modname(path, name, sizeof(name), &nl);
	if (!ksc_modset_find(f->ms, name, &i) || strcmp(ksc_modset_relpath(f->ms, i), path) != 0 ||
	    (f->need[i] & LISTED)) {
		f->why = "modules.dep lists a module depmod would not keep";
		return -ESTALE;
	}
	f->need[i] |= LISTED;
	return 0;
}

static int keep_value(void *data, const char *value, size_t len)
{
	struct fast *f = data;

	return array_push(f->vals, f->n_vals, f->cap_vals, ((struct dep_value){ value, len }));
}

/*
 * modules.dep.bin's values visited once (a lookup of every name would walk the trie from
 * its root 4,216 times on Debian's 7.2), kept in the order met, while the walk runs.
 */
static void dep_values(struct fast *f)
{
	size_t keys, lines; /* counts the visit gives; only its end matters here */

	f->visit_r = ksc_depbin_each(&f->depbin, keep_value, f, &keys, &lines);
}

/* Each value kept marks the file it names, as if met in the visit; then its end. */
static int mark_listed(struct fast *f)
{
	for (size_t i = 0; i < f->n_vals; i++) {
		int r = listed_once(f, f->vals[i].v, f->vals[i].len);
		if (r < 0)
			return r;
	}
	return f->visit_r;
}

/*
 * Does every file of the set stand in modules.dep, none newer than it? The .bin road
 * marks the file each value of modules.dep.bin names (dep_values(), mark_listed()).
 */
static bool walk_agrees(struct fast *f)
{
	size_t n = ksc_modset_count(f->ms), lines = f->bin ? f->n_vals : f->listed.count;

	if (f->bin) {
		int r = mark_listed(f);
		f->oom |= r == -ENOMEM;
		f->bin_bad |= r < 0 && r != -ESTALE;
		if (r < 0)
			return false;
	}
	for (size_t i = 0; i < n && !f->why; i++) {
		if (f->bin ? !(f->need[i] & LISTED) : !deps_of(f, i))
			f->why = "a module modules.dep does not list";
		else if (ksc_modset_mtime(f->ms, i) > f->dep_mtime)
			f->why = f->bin ? "a module newer than the .bin files"
				       : "a module newer than modules.dep";
	}
	if (!f->why && ksc_modset_walk_errors(f->ms))
		f->why = "the walk met a problem";
	if (!f->why && ksc_modset_unreadable(f->ms))
		f->why = "a module this process may not read";
	if (!f->why && n != lines)
		f->why = "modules.dep lists a module depmod would not keep";
	return !f->why && !f->bin_bad;
}

/* Mark the file of kmod name `name` (*e); false when the set holds none. */
static bool need_named(struct fast *f, const char *name, size_t *e)
{
	if (!ksc_modset_find(f->ms, name, e))
		return false;
	f->need[*e] |= NEED;
	return true;
}

/* Does `mod` export `sym`, or have it as a namespace (see is_namespace_of())? */
static bool exports_or_ns(const struct ksc_module *mod, const char *sym);

/*
 * A verdict takes file e for the exporter of `sym`: checked now when e was read, else
 * kept until it is (agrees()). False when e was read and lacks it.
 */
static bool rely(struct fast *f, const char *sym, size_t e)
{
	if (f->need[e] & PASSED) {
		if (f->got[e] && !exports_or_ns(f->got[e], sym)) {
			f->why = "modules.symbols names an export a module lacks";
			return false;
		}
		return true;
	}
	if (array_push(f->relied, f->n_relied, f->cap_relied, (struct relied){ sym, e }) < 0) {
		f->oom = true;
		return false;
	}
	return true;
}

/* Mark the owner of `sym` (modules.symbols); false when modules.symbols names a file the
 * walk did not keep. */
static bool need_owner(struct fast *f, const char *sym)
{
	const char *owner = owner_of(f, sym);
	size_t e;

	if (!owner)
		return true;
	return need_named(f, owner, &e) && rely(f, sym, e);
}

/* Mark the files of a line of modules.dep; false when it names one the walk did not keep. */
static bool need_deps(struct fast *f, const char *deps)
{
	for (const char *d = deps; d && *d;) {
		d += strspn(d, " ");
		size_t len = strcspn(d, " "), nl, e;
		char path[PATH_MAX], name[PATH_MAX];
		if (!len)
			break;
		if (len >= sizeof(path))
			return false;
		memcpy(path, d, len);
		path[len] = '\0';
		d += len;
		ksc_kmod_modname(path, name, sizeof(name), &nl);
		if (!need_named(f, name, &e))
			return false;
	}
	return true;
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
			if ((f->need[i] & (NEED | EXPANDED)) != NEED)
				continue;
			f->need[i] |= EXPANDED;
			changed = true;
			const char *deps = deps_of(f, i);
			if (!deps || !need_deps(f, deps))
				return false;
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
		size_t nl, e;
		ksc_kmod_modname(ksc_module_get_name(mods[m]), name, sizeof(name), &nl);
		(void)need_named(f, name, &e); /* the loader skips it as a provider */
		for (size_t i = 0; i < ksc_module_get_import_count(mods[m]); i++)
			if (!need_owner(f, ksc_module_get_import(mods[m], i)->name))
				return false;
	}
	for (size_t i = 0; i < ksc_modset_count(f->ms); i++)
		if (strncmp(ksc_modset_relpath(f->ms, i), "kernel/", 7) != 0)
			f->need[i] |= NEED;
	return mark_dependencies(f);
}

/* Are the providers of everything `mod` imports read too (modules.dep complete)? */
static bool providers_needed(struct fast *f, const struct ksc_module *mod)
{
	for (size_t i = 0; i < ksc_module_get_import_count(mod); i++) {
		const char *sym = ksc_module_get_import(mod, i)->name, *owner = owner_of(f, sym);
		size_t e;
		if (!owner)
			continue;
		if (!ksc_modset_find(f->ms, owner, &e)) {
			f->why = "modules.symbols or modules.dep names a module depmod would not keep";
			return false;
		}
		if (!(f->need[e] & NEED)) {
			f->why = "a module needs one that its line of modules.dep does not name";
			return false;
		}
		if (!rely(f, sym, e))
			return false;
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

static bool exports_or_ns(const struct ksc_module *mod, const char *sym)
{
	return ksc_module_find_export(mod, sym) || is_namespace_of(mod, sym);
}

/*
 * Does `mod` (the file e) export what modules.symbols gives it, and what a verdict takes
 * it to export? modules.symbols' other symbols of e are not looked at: no verdict rests
 * on them (listing them would take every line of modules.symbols, or every key of its
 * trie).
 */
static bool agrees(struct fast *f, size_t e, const struct ksc_module *mod)
{
	const char *name = ksc_modset_name(f->ms, e);

	for (size_t i = 0; i < ksc_module_get_export_count(mod); i++) {
		const char *owner = owner_of(f, ksc_module_get_export(mod, i)->name);
		if (!owner || strcmp(owner, name) != 0) {
			f->why = "a module's exports not as in modules.symbols";
			return false;
		}
	}
	for (size_t i = 0; i < f->n_relied; i++) {
		if (f->relied[i].owner == e && !exports_or_ns(mod, f->relied[i].sym)) {
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
		bool needed = f->need[i] & NEED, tried = needed || !vermagic_known;
		if (tried) {
			int r = ksc_modset_module(f->ms, i, f->q, &mod);
			if (r == -ENOMEM)
				return r;
			if (r < 0)
				ksc_kernel_add_errors(k, 1);
		}
		bool is_mod = mod && ksc_module_get_kind(mod) == KSC_KIND_MODULE;
		int r = 0;
		f->need[i] |= PASSED;
		if (is_mod && needed)
			f->got[i] = ksc_module_ref(mod);
		if (is_mod && ksc_module_is_intree(mod))
			f->intree_seen = true; /* until then every file is read */
		if (is_mod && ksc_module_is_intree(mod) && ksc_module_get_vermagic(mod)) {
			if (!ksc_kernel_get_vermagic(k) && !needed)
				r = ksc_kernel_set_vermagic(k, ksc_module_get_vermagic(mod));
			vermagic_known = true;
		}
		if (r >= 0 && is_mod && needed) {
			if (!agrees(f, i, mod) || !providers_needed(f, mod))
				r = f->oom ? -ENOMEM : -ESTALE;
			else
				r = ksc_kernel_add_module(k, mod);
		}
		if (r >= 0 && replaced && (is_mod || !tried)) {
			if (is_mod && needed)
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

/* The .bin road: both tries read; false (f->why) when they cannot stand. */
static bool open_bins(struct fast *f, const char *moddir)
{
	int64_t sym_mtime;

	if (!open_bin(f, moddir, "modules.dep.bin", &f->depbin, &f->dep_mtime) ||
	    !open_bin(f, moddir, "modules.symbols.bin", &f->symbin, &sym_mtime))
		return false;
	if (sym_mtime < f->dep_mtime)
		f->dep_mtime = sym_mtime;
	f->bin = true;
	return true;
}

/* The text road: both files read and their lines in tables. 0, -ESTALE or -ENOMEM. */
static int open_texts(struct fast *f, const char *moddir)
{
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
	return 0;
}

/* The kernel from depmod's files: its .bin files (with `bin`) or its text files. */
static int open_fast(struct fast *f, const struct ksc_kernel_location *loc,
		     struct ksc_module *const *mods, size_t n, bool bin)
{
	const char *moddir = ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR);
	size_t count;
	int r;

	if (bin && !open_bins(f, moddir))
		return f->oom ? -ENOMEM : -ESTALE;
	if (bin)
		dep_values(f);
	if (!bin && (r = open_texts(f, moddir)) < 0)
		return r;
	/* the kernel begun, its Module.symvers rows read, while the walk runs */
	f->cache = ksc_kernel_symvers_cache_of(ksc_modset_job_index_path(f->job));
	r = ksc_kernel_new(f->q, &f->k);
	if (r >= 0)
		r = ksc_kernel_set_release(f->k, ksc_kernel_location_get_release(loc));
	if (r >= 0)
		r = ksc_kernel_read_symvers_ahead(f->k, loc, f->cache);
	if (r < 0)
		return r;
	if (!(f->ms = ksc_modset_job_wait(f->job, &r)))
		return r; /* the walk's own failure: the caller says it */
	count = ksc_modset_count(f->ms);
	f->need = calloc(count + 1, sizeof(*f->need));
	f->got = calloc(count + 1, sizeof(*f->got));
	if (!f->need || !f->got)
		return -ENOMEM;
	if (!walk_agrees(f))
		return f->oom ? -ENOMEM : -ESTALE;
	if (!mark_needed(f, mods, n)) {
		if (!f->why)
			f->why = "modules.symbols or modules.dep names a module depmod would not keep";
		return f->oom ? -ENOMEM : -ESTALE;
	}
	r = add_needed(f);
	if (r >= 0 && f->bin_bad)
		r = -ESTALE; /* a lookup on the way could not say: the text files are asked */
	/* no in-tree module (every file was read to find one): only the headers installed,
	 * their Module.symvers rows as providers, as ksc_kernel_open_location() takes them */
	if (r >= 0)
		r = ksc_kernel_open_rest(f->k, loc, !f->intree_seen, f->cache);
	return r;
}

/* Everything but the set and the held context, as before open_fast(). */
static void fast_fini(struct fast *f)
{
	for (size_t i = 0; f->got && i < ksc_modset_count(f->ms); i++)
		ksc_module_unref(f->got[i]);
	free(f->got);
	free(f->need);
	free(f->relied);
	free(f->key);
	free(f->cache);
	free(f->vals);
	ksc_depbin_fini(&f->depbin);
	ksc_depbin_fini(&f->symbin);
	hash_fini(&f->listed);
	hash_fini(&f->owner);
	free(f->dep);
	free(f->syms);
	ksc_kernel_unref(f->k);
	*f = (struct fast){ .q = f->q, .job = f->job, .ms = f->ms };
	hash_init(&f->listed);
	hash_init(&f->owner);
}

/* ksc_kernel_depmod_open(), the messages of `prelude` said first when it stands. */
static int depmod_open(struct ksc_ctx *ctx, const struct ksc_kernel_location *loc,
		       struct ksc_modset_job *job, struct ksc_module *const *mods, size_t n,
		       const struct ksc_msgbuf *prelude, struct ksc_kernel **out)
{
	const char *moddir = ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR);
	struct ksc_msgbuf held = { 0 };
	struct fast f = { .job = job };
	int r;

	*out = NULL;
	hash_init(&f.listed);
	hash_init(&f.owner);
	f.q = ksc_new();
	if (!f.q)
		return -ENOMEM;
	ksc_set_log_priority(f.q, ksc_get_log_priority(ctx));
	ksc_set_log_fn(f.q, ksc_msgbuf_log, &held);
	r = open_fast(&f, loc, mods, n, true);
	if (r < 0) /* the walk's messages before any of this answer's own */
		(void)ksc_modset_job_wait(job, &(int){ 0 });
	if (r == -ESTALE) {
		/* the .bin files cannot stand: the text files, what they read said anew */
		ksc_dbg(ctx, "%s: depmod's .bin files not used: %s", moddir,
			f.bin_bad || !f.why ? "a .bin file not as depmod writes it" : f.why);
		fast_fini(&f);
		ksc_msgbuf_fini(&held);
		r = open_fast(&f, loc, mods, n, false);
	}
	if (r == 0 && held.oom)
		r = -ENOMEM;
	if (r == 0) {
		/* the answer stands: what was held back is said, later messages go through */
		ksc_msgbuf_replay(prelude, ctx);
		ksc_msgbuf_replay(&held, ctx);
		ksc_log_like(f.q, ctx);
		ksc_kernel_set_ctx(f.k, ctx);
		*out = f.k;
		f.k = NULL;
	} else if (r != -ENOMEM) {
		ksc_dbg(ctx, "%s: depmod's files not used: %s", moddir,
			f.why ? f.why : strerror(-r));
		r = -ESTALE;
	}
	fast_fini(&f);
	ksc_unref(f.q);
	ksc_msgbuf_fini(&held);
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
	struct ksc_msgbuf held = { 0 };
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
	ksc_set_log_fn(q, ksc_msgbuf_log, &held);
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
	ksc_msgbuf_fini(&held);
	return r;
}
