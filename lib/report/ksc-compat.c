// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One module, several kernels (`ksymcheck compat`): for every (module, kernel) cell, the
 * check engine's loader and modpost views of the binary as built, the loader's view as
 * if it were rebuilt for that kernel (ksc_check_opts.as_rebuilt), and what changed for
 * each symbol it imports between the kernel it was built for (the kernel given whose
 * release equals its vermagic's) and the target: removed, became GPL-only (R3, R16,
 * R17), moved into a namespace (R12, with the import line in the target's syntax, R2),
 * became module-restricted (R7, R10). With the module's source, the names its C files
 * use for the target's version (lib/source/ksc-src-names.c) tell a symbol the module
 * calls from one only the old headers' inline code referenced: the first fails the build,
 * the second may not.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/kernel.h"
#include "report/report.h"
#include "source/source.h"
#include "util/array.h"
#include "util/fileio.h"
#include "util/opts.h"

struct ksc_compat {
	size_t n_kernels, n_mods;
	struct ksc_compat_cell *cells; /* module-major: cells[m * n_kernels + k] */
	struct ksc_compat_finding *findings;
	size_t n_findings, cap_findings;
	struct ksc_report **built, **rebuilt; /* one per kernel */
	struct ksc_compat_btf **btfs;         /* one per kernel, NULL: none (or not read yet) */
	bool *btf_tried, *btf_known;          /* read once; known to read (cache) */
	size_t *src_files, *hdr_files;
	struct pool strings;
};

/* The state of one run: the inputs, and the target cell being filled. */
struct crun {
	struct ksc_compat *c;
	struct ksc_kernel *const *kernels;
	struct ksc_module *const *mods;
	const struct ksc_compat_opts *o;
	struct ksc_src_names *names; /* one per kernel, with a source */
	struct ksc_src_names *hdefs; /* one per kernel: the missing imports its headers define */
	struct kmods *kmods;         /* one per kernel: its modules' BTF, read when wanted */
	struct ksc_compat_btf **mod_btf; /* one per module: its own split BTF, or NULL */
	bool *mod_btf_tried;
	size_t base_idx;
	struct ksc_compat_memo memo; /* the cell's, replayed or recorded */
	bool oom;
	bool record;                 /* the BTF callbacks go into memo */
	/* the cell */
	const struct ksc_module *mod;
	struct ksc_kernel *base, *target;
	struct ksc_compat_btf *base_btf, *target_btf;
	struct ksc_compat_cell *cell;
	const char *sym;          /* the import being compared (BTF callbacks) */
	const char *base_release;
	struct ksc_features pol;     /* the target's */
	bool proprietary;
};

/* Kernel k's BTF, read on first use: one that cannot be read is left out (logged). */
static struct ksc_compat_btf *kbtf(struct crun *cr, size_t k)
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

/* A kernel's modules by name (modules.dep) and the BTF of those read (name -> btf). */
struct kmods {
	bool read;
	struct hash paths, btfs; /* module name ('_' for '-') -> path; -> btf or &none */
	struct pool strings;
};
static char no_btf; /* a module whose BTF could not be had */

static const char *const build_names[] = {
	[KSC_COMPAT_BUILD_OK] = "ok",
	[KSC_COMPAT_BUILD_MAY_FAIL] = "may-fail",
	[KSC_COMPAT_BUILD_FAILS] = "fails",
};

KSC_EXPORT const char *ksc_compat_build_name(enum ksc_compat_build b)
{
	return (unsigned)b < ARRAY_SIZE(build_names) ? build_names[b] : "unknown";
}

static const char *cfmt(struct crun *cr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *cfmt(struct crun *cr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return pool_strdup(&cr->c->strings, buf);
}

/* MODULE_IMPORT_NS() as the target kernel spells it (R2: a string from 6.13). */
static const char *import_line(struct crun *cr, const char *ns)
{
	return cr->pol.has[KSC_FEAT_STRING_NS] ? cfmt(cr, "MODULE_IMPORT_NS(\"%s\");", ns)
					       : cfmt(cr, "MODULE_IMPORT_NS(%s);", ns);
}

/* Another module given exports it: a sibling the package builds, not the kernel's. */
static bool sibling_export(const struct crun *cr, const char *sym)
{
	for (size_t i = 0; i < cr->c->n_mods; i++)
		if (cr->mods[i] != cr->mod && ksc_module_find_export(cr->mods[i], sym))
			return true;
	return false;
}

static int add_finding(struct crun *cr, struct ksc_compat_cell *cell, const char *code,
		       enum ksc_severity sev, const char *sym, const struct ksc_export *from,
		       const char *from_owner, const struct ksc_export *to, const char *to_owner,
		       const char *summary, const char *fix)
{
	struct ksc_compat *c = cr->c;
	struct ksc_compat_finding *f;

	if (!summary || array_reserve(c->findings, c->cap_findings, c->n_findings + 1, 64) < 0)
		return -ENOMEM;
	f = &c->findings[c->n_findings++];
	*f = (struct ksc_compat_finding){
		.code = code, .severity = sev, .symbol = sym, .from_release = cr->base_release,
		.from = from, .to = to, .from_owner = from ? from_owner : NULL,
		.to_owner = to ? to_owner : NULL, .summary = summary, .fix = fix,
	};
	if (cr->names)
		f->named_in_source = ksc_src_names_has(&cr->names[cell->kernel], sym);
	cell->n_findings++;
	return 0;
}

/* The words of a symbol's name ('_'-separated, empty ones dropped): their count. */
static size_t name_words(const char *s, char w[][48], size_t max)
{
	size_t n = 0;

	while (*s && n < max) {
		size_t l = strcspn(s, "_");
		if (l && l < 48) {
			memcpy(w[n], s, l);
			w[n++][l] = '\0';
		}
		s += l;
		s += *s == '_';
	}
	return n;
}

static bool word_prefix(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	return strncmp(a, b, la < lb ? la : lb) == 0 && (la < lb ? la : lb) >= 3;
}

/*
 * How alike two names read: 3 the same words in another order (init_timer_key,
 * timer_init_key), 2 one contains the other (kmalloc, kmalloc_noprof) or each word
 * begins the other's (del_timer, timer_delete), 0 otherwise.
 */
static int name_likeness(const char *old, const char *new)
{
	char a[8][48], b[8][48];
	size_t na = name_words(old, a, 8), nb = name_words(new, b, 8);
	bool used[8] = { false }, same = na == nb && na > 1, prefix = na == nb && na > 1;

	for (size_t i = 0; i < na && (same || prefix); i++) {
		bool exact = false, pre = false;
		for (size_t j = 0; j < nb && !exact; j++) {
			if (used[j])
				continue;
			if (strcmp(a[i], b[j]) == 0) {
				exact = used[j] = true;
			} else if (!pre && word_prefix(a[i], b[j])) {
				pre = true;
			}
		}
		same &= exact;
		prefix &= exact || pre;
	}
	if (same)
		return 3;
	if (prefix || (strlen(old) >= 4 && (strstr(new, old) || strstr(old, new))))
		return 2;
	return 0;
}

/*
 * A likely successor of `sym`, removed in the target: an export of the target the old
 * kernel did not have, of a name alike (name_likeness()), the same prototype adding 2;
 * the best of at least 3, or NULL.
 */
static const char *successor(struct crun *cr, size_t k, const char *sym)
{
	struct ksc_kernel *t = cr->kernels[k];
	const char *best = NULL;
	bool best_proto = false;
	int best_score = 2;

	for (size_t i = 0; i < ksc_kernel_get_export_count(t); i++) {
		const struct ksc_export *e = ksc_kernel_get_export(t, i, NULL);
		int score = e ? name_likeness(sym, e->name) : 0;
		bool proto = false;
		/* Rust's helpers wrap C's inline functions for Rust code, not for C modules */
		if (!score || strncmp(e->name, "rust_", 5) == 0 ||
		    (cr->base && ksc_kernel_find_export(cr->base, e->name, NULL)))
			continue;
		if (cr->base_btf && cr->target_btf &&
		    ksc_compat_btf_same_symbol_type(cr->base_btf, sym, cr->target_btf, e->name)) {
			proto = true;
			score += 2;
		}
		if (score > best_score) {
			best = e->name;
			best_score = score;
			best_proto = proto;
		}
	}
	if (!best)
		return NULL;
	return cfmt(cr, "%s (%s%s)", best, best_score - 2 * best_proto == 3 ? "the same words" : "a name alike",
		    best_proto ? ", the same prototype" : "");
}

/* The last finding's hint: replayed from the cell's memo, or found (and recorded). */
static int hint_of(struct crun *cr, size_t k, const char *sym)
{
	const char *v[3], *hint;

	if (cr->memo.replay) {
		hint = ksc_compat_memo_next(&cr->memo, "H", sym, v, 3) == 3 && v[2][0]
		       ? pool_strdup(&cr->c->strings, v[2]) : NULL;
	} else {
		hint = successor(cr, k, sym);
		if (cr->record &&
		    ksc_compat_memo_add(&cr->memo, 'H', (const char *[]){ sym, hint }, 2) < 0)
			return -ENOMEM;
	}
	cr->c->findings[cr->c->n_findings - 1].hint = hint;
	return 0;
}

/* The namespace findings of one import found in the target (R7, R10, R12). */
static int ns_finding(struct crun *cr, struct ksc_compat_cell *cell, const char *sym,
		      const struct ksc_export *old, const char *oo, const struct ksc_export *new,
		      const char *no)
{
	const char *ns = new->ns;
	bool matched, imported;

	if (!ns[0] || (old && strcmp(old->ns, ns) == 0))
		return 0;
	if (ksc_namespace_is_module_restricted(ns)) {
		matched = ksc_namespace_matches_module(ns, ksc_module_get_name(cr->mod),
						       KSC_MATCH_LOADER);
		if (!old && matched)
			return 0;
		return add_finding(cr, cell, "became-module-restricted",
				   matched ? KSC_SEV_INFO : KSC_SEV_ERROR, sym, old, oo, new, no,
				   matched ? cfmt(cr, "restricted to %s, which this module's name matches", ns + 7)
					   : cfmt(cr, "restricted to the modules %s", ns + 7),
				   matched ? NULL : "stop using it: only the modules named may");
	}
	imported = ksc_module_imports_ns(cr->mod, ns);
	if (!old && imported)
		return 0;
	return add_finding(cr, cell, "namespace-moved", imported ? KSC_SEV_INFO : KSC_SEV_ERROR,
			   sym, old, oo, new, no,
			   !old ? cfmt(cr, "in namespace %s, which the module does not import", ns)
			   : old->ns[0] ? cfmt(cr, "moved from namespace %s to %s", old->ns, ns)
					: cfmt(cr, "moved into namespace %s", ns),
			   imported ? NULL : import_line(cr, ns));
}

/* The findings of one import of the module against the target. */
static int import_findings(struct crun *cr, struct ksc_compat_cell *cell,
			   const struct ksc_import *im)
{
	const char *sym = im->name, *oo = NULL, *no = NULL;
	const struct ksc_export *old = cr->base ? ksc_kernel_find_export(cr->base, sym, &oo) : NULL;
	const struct ksc_export *new = ksc_kernel_find_export(cr->target, sym, &no);

	if (!new) {
		/* a weak import may stay unresolved; a sibling's or an export the old kernel
		 * did not have either is the loader's business (its view says) */
		if (im->bind == KSC_BIND_WEAK || sibling_export(cr, sym) || (cr->base && !old))
			return 0;
		int r;
		if (cr->hdefs && ksc_src_names_has(&cr->hdefs[cell->kernel], sym))
			r = add_finding(cr, cell, "export-removed", KSC_SEV_INFO, sym, old, oo,
					NULL, NULL, cfmt(cr, "no longer exported, but the headers define it (a macro or an inline function): a rebuild calls what they call"),
					NULL);
		else
			r = add_finding(cr, cell, "export-removed", KSC_SEV_ERROR, sym, old, oo, NULL,
					NULL, old ? cfmt(cr, "no longer exported (by %s in %s)", oo,
							 cr->base_release)
						  : cfmt(cr, "not exported"),
					NULL);
		if (r == 0)
			r = hint_of(cr, cell->kernel, sym);
		return r;
	}
	if (new->gpl_only && !(old && old->gpl_only) && (old || cr->proprietary)) {
		int r = add_finding(cr, cell, "became-gpl-only",
				    cr->proprietary ? KSC_SEV_ERROR : KSC_SEV_INFO, sym, old, oo, new,
				    no, old ? cfmt(cr, "became GPL-only")
					    : cfmt(cr, "GPL-only"),
				    cr->proprietary ? "a GPL-compatible MODULE_LICENSE(), or stop using it"
						    : NULL);
		if (r < 0)
			return r;
	}
	return ns_finding(cr, cell, sym, old, oo, new, no);
}

static int type_changed(void *data, bool func, const char *from, const char *to)
{
	struct crun *cr = data;
	struct ksc_compat *c = cr->c;
	if (cr->record && ksc_compat_memo_add(&cr->memo, 'T', (const char *[]){ cr->sym,
					      func ? "1" : "0", from, to }, 4) < 0)
		return -ENOMEM;
	int r = add_finding(cr, cr->cell, "type-changed", KSC_SEV_ERROR, cr->sym, NULL, NULL,
			    NULL, NULL, func ? cfmt(cr, "prototype changed")
					     : cfmt(cr, "type changed"), NULL);

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
	const char *type = cfmt(cr, "struct %s", name);
	bool gone = false, changed = false;

	if (cr->record && ksc_compat_memo_add(&cr->memo, 'M', (const char *[]){ cr->sym, name,
					      removed, retyped, from, to }, 6) < 0)
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
	const char *what = removed[0] && retyped[0] ? cfmt(cr, "members %s removed, %s changed", removed, retyped)
			 : removed[0] ? cfmt(cr, "members %s removed", removed)
				      : cfmt(cr, "members %s changed", retyped);
	const char *via = cr->sym ? cfmt(cr, "through %s", cr->sym)
				  : cfmt(cr, "as the module was built");
	if (add_finding(cr, cell, "struct-changed", sev, cr->sym ? cr->sym : type, NULL, NULL,
			NULL, NULL,
			cfmt(cr, "%s (%s): %s%s", type, via, what,
			     gone || changed ? ", reached in the source" : ""), NULL) < 0)
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
	struct ksc_compat_btf *vm = kbtf(cr, k), *b = NULL;
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
static int type_findings(struct crun *cr, struct ksc_compat_cell *cell, const char *sym)
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

	v[n++] = kbtf(cr, k);
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
static int own_type_findings(struct crun *cr, struct ksc_compat_cell *cell, size_t m)
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

/*
 * With the source: what it does not name for the target is what the old headers' inline
 * code and macros referenced, and a rebuild follows the new headers; a prototype it names
 * in other places for the target than for the kernel it was built for is one its version
 * conditionals adapted to.
 */
static void weigh_by_source(struct crun *cr, struct ksc_compat_cell *cell)
{
	struct ksc_compat_finding *f = cr->c->findings + cell->first_finding;

	if (!cr->names)
		return;
	for (size_t i = 0; i < cell->n_findings; i++) {
		bool removed = strcmp(f[i].code, "export-removed") == 0,
		     typed = strcmp(f[i].code, "type-changed") == 0;
		if (f[i].severity != KSC_SEV_ERROR || !(removed || typed))
			continue;
		if (!f[i].named_in_source) {
			f[i].severity = KSC_SEV_INFO;
			f[i].summary = cfmt(cr, "%s; the source does not name it for this kernel: the old headers' inline code or macros did, and a rebuild follows the new ones",
					    f[i].summary);
		} else if (removed &&
			   !(ksc_src_names_flags(&cr->names[cell->kernel], f[i].symbol) & KSC_SRC_PLAIN)) {
			f[i].severity = KSC_SEV_WARNING;
			f[i].summary = cfmt(cr, "%s; the source names it only under conditions not evaluated here (#ifdef): the configuration decides",
					    f[i].summary);
		} else if (typed) {
			const struct ksc_src_names *nk = &cr->names[cell->kernel];
			unsigned int how = ksc_src_names_flags(nk, f[i].symbol);
			bool func = strncmp(f[i].summary, "prototype", 9) == 0;
			if (func && !(how & KSC_SRC_CALLED)) {
				f[i].severity = KSC_SEV_INFO;
				f[i].summary = cfmt(cr, "%s; the source only takes it as a value (a function pointer), never calls it: what it fills changed with it, as far as seen",
						    f[i].summary);
			} else if (cr->base && !ksc_src_names_same_places(&cr->names[cr->base_idx], nk,
									  f[i].symbol)) {
				f[i].severity = KSC_SEV_INFO;
				f[i].summary = cfmt(cr, "%s; the source names it in other places for this kernel (version conditionals): adapted to it, as far as seen",
						    f[i].summary);
			} else if (how & KSC_SRC_CONDITIONAL) {
				f[i].severity = KSC_SEV_WARNING;
				f[i].summary = cfmt(cr, "%s; the source names it under conditions not evaluated here (#ifdef): it may adapt to it",
						    f[i].summary);
			}
		}
		if (!f[i].summary)
			f[i].summary = "";
	}
}

static const char *first_license(const struct ksc_module *mod)
{
	const char *l = ksc_module_get_modinfo_value(mod, "license");

	return l ? l : "";
}

/* The kernel the module was built for: the first given whose release is its vermagic's. */
static struct ksc_kernel *base_of(struct crun *cr, size_t *idx)
{
	const char *vm = ksc_module_get_vermagic(cr->mod);
	char rel[256];

	if (!vm || ksc_release_from_vermagic(vm, rel, sizeof(rel)) < 0)
		return NULL;
	for (size_t k = 0; k < cr->c->n_kernels; k++) {
		const char *kr = ksc_kernel_get_release(cr->kernels[k]);
		if (kr && strcmp(kr, rel) == 0) {
			*idx = k;
			return cr->kernels[k];
		}
	}
	return NULL;
}

static void decide_build(struct crun *cr, struct ksc_compat_cell *cell)
{
	const struct ksc_compat_finding *f = cr->c->findings + cell->first_finding;

	cell->build = KSC_COMPAT_BUILD_OK;
	for (size_t i = 0; i < cell->n_findings; i++) {
		if (f[i].severity == KSC_SEV_INFO)
			continue;
		if (f[i].severity == KSC_SEV_ERROR && f[i].named_in_source) {
			cell->build = KSC_COMPAT_BUILD_FAILS;
			break;
		}
		cell->build = KSC_COMPAT_BUILD_MAY_FAIL;
	}
	cell->failed = cell->build == KSC_COMPAT_BUILD_FAILS ||
		       (cell->built_for && cell->loader_err);
}

static int memo_begin(struct crun *cr, size_t k, char key[33]);
static int memo_end(struct crun *cr, size_t k, const char *key);

static int fill_cell(struct crun *cr, size_t m, size_t k)
{
	struct ksc_compat *c = cr->c;
	struct ksc_compat_cell *cell = &c->cells[m * c->n_kernels + k];
	const struct ksc_module_verdict *v = ksc_report_get_verdict(c->built[k], m);
	const struct ksc_module_verdict *rv = ksc_report_get_verdict(c->rebuilt[k], m);
	size_t base_idx = 0;

	cr->mod = cr->mods[m];
	cr->target = cr->kernels[k];
	cr->base = base_of(cr, &base_idx);
	cr->base_idx = base_idx;
	cr->base_release = cr->base ? ksc_kernel_get_release(cr->base) : NULL;
	cr->proprietary = !ksc_license_is_gpl_compatible(first_license(cr->mod));
	*cell = (struct ksc_compat_cell){
		.module = m, .kernel = k, .release = ksc_kernel_get_release(cr->target),
		.built_for = cr->base && base_idx == k,
		.loader_err = v->loader_err, .modpost_ok = v->modpost_ok,
		.rebuilt_err = rv->loader_err, .first_finding = c->n_findings,
	};
	if (ksc_features_init(&cr->pol, cell->release) < 0)
		return -EINVAL;
	if (!cell->built_for) {
		char key[33];
		int r = memo_begin(cr, k, key);
		for (size_t i = 0; r == 0 && i < ksc_module_get_import_count(cr->mod); i++) {
			const struct ksc_import *im = ksc_module_get_import(cr->mod, i);
			r = import_findings(cr, cell, im);
			if (r == 0)
				r = type_findings(cr, cell, im->name);
		}
		if (r == 0)
			r = own_type_findings(cr, cell, m);
		if (r == 0)
			r = memo_end(cr, k, key);
		ksc_compat_memo_fini(&cr->memo);
		cr->record = false;
		if (r < 0 || cr->oom)
			return -ENOMEM;
		weigh_by_source(cr, cell);
	}
	decide_build(cr, cell);
	return 0;
}

/*
 * A cell's memo: replayed when the cache has one for the same files, else the BTF is
 * read and what it gives recorded. 0 or -ENOMEM.
 */
static int memo_begin(struct crun *cr, size_t k, char key[33])
{
	const char *btf = cr->o->btf ? cr->o->btf[k] : NULL;
	const char *bbtf = cr->base && cr->o->btf ? cr->o->btf[cr->base_idx] : NULL;
	const char *md = cr->o->moddirs ? cr->o->moddirs[k] : NULL;
	const char *bmd = cr->base && cr->o->moddirs ? cr->o->moddirs[cr->base_idx] : NULL;
	const char *ids[] = { ksc_module_get_path(cr->mod), btf, bbtf, md, bmd,
			      cr->base ? ksc_kernel_get_release(cr->base) : "-",
			      ksc_kernel_get_release(cr->kernels[k]) };

	memset(&cr->memo, 0, sizeof(cr->memo));
	cr->record = false;
	if (cr->o->cache_dir) {
		ksc_compat_memo_key(ids, ARRAY_SIZE(ids), key);
		if (ksc_compat_memo_load(cr->o->cache_dir, key, &cr->memo) == 0) {
			cr->base_btf = cr->target_btf = NULL;
			return 0;
		}
		cr->record = true;
	}
	cr->base_btf = cr->base ? kbtf(cr, cr->base_idx) : NULL;
	cr->target_btf = kbtf(cr, k);
	return cr->oom ? -ENOMEM : 0;
}

/* The end of a cell: which BTF was read (recorded, or learnt from the memo); saved. */
static int memo_end(struct crun *cr, size_t k, const char *key)
{
	struct ksc_compat *c = cr->c;
	const char *v[4];

	if (cr->memo.replay) {
		if (ksc_compat_memo_next(&cr->memo, "B", "B", v, 4) == 4) {
			c->btf_known[cr->base_idx] |= cr->base && strcmp(v[2], "1") == 0;
			c->btf_known[k] |= strcmp(v[3], "1") == 0;
		}
		return 0;
	}
	if (!cr->record)
		return 0;
	if (ksc_compat_memo_add(&cr->memo, 'B', (const char *[]){ "B", cr->base_btf ? "1" : "0",
				cr->target_btf ? "1" : "0" }, 3) < 0)
		return -ENOMEM;
	(void)ksc_compat_memo_save(cr->o->cache_dir, key, &cr->memo); /* a cache: best effort */
	return 0;
}

/* Both views of every kernel, as built and as rebuilt. */
static int run_checks(struct crun *cr)
{
	struct ksc_compat *c = cr->c;
	struct ksc_check_opts co = { .sz = sizeof(co), .allow_missing_ns = -1 };

	if (cr->o && opts_copy(&co, cr->o->check) < 0)
		return -EINVAL;
	co.policy = NULL; /* each kernel's own rules */
	for (size_t k = 0; k < c->n_kernels; k++) {
		co.as_rebuilt = false;
		int r = ksc_check_modules(cr->kernels[k], cr->mods, c->n_mods, &co, &c->built[k]);
		if (r < 0)
			return r;
		co.as_rebuilt = true;
		r = ksc_check_modules(cr->kernels[k], cr->mods, c->n_mods, &co, &c->rebuilt[k]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Kernels whose BTF is given but was neither read nor known from the cache: read now, so
 * that one that cannot be read is said whatever the cells needed. */
static int load_btf(struct crun *cr)
{
	for (size_t k = 0; cr->o->btf && k < cr->c->n_kernels; k++)
		if (cr->o->btf[k] && !cr->c->btf_known[k] && !kbtf(cr, k) && cr->oom)
			return -ENOMEM;
	return 0;
}

/* The arch folder of the modules' machine (e_machine), for arch/ARCH/include. */
static const char *arch_of(const struct crun *cr)
{
	switch (cr->c->n_mods ? ksc_module_get_machine(cr->mods[0]) : EM_X86_64) {
	case EM_386:
	case EM_X86_64: return "x86";
	case EM_AARCH64: return "arm64";
	case EM_ARM: return "arm";
	case EM_S390: return "s390";
	case EM_PPC:
	case EM_PPC64: return "powerpc";
	case EM_RISCV: return "riscv";
	default: return "x86";
	}
}

/* The imports of the modules that kernel k does not export: the names to look for. */
static int missing_imports(const struct crun *cr, size_t k, struct hash *h)
{
	for (size_t m = 0; m < cr->c->n_mods; m++) {
		const struct ksc_module *mod = cr->mods[m];
		for (size_t i = 0; i < ksc_module_get_import_count(mod); i++) {
			const char *sym = ksc_module_get_import(mod, i)->name;
			if (!ksc_kernel_find_export(cr->kernels[k], sym, NULL) &&
			    hash_add(h, sym, (void *)sym, 1) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * ksc_src_defines_scan() of the two header folders for `wanted`, or what the cache kept
 * of the same scan (the folders' identity and the names wanted): thousands of header
 * files are not read again for the same module.
 */
static int defines_memo(struct crun *cr, const char *const *dirs, const struct hash *wanted,
			struct ksc_src_names *out)
{
	struct ksc_compat_memo m = { 0 };
	struct { char *s; size_t n, cap; } all = { 0 };
	const char **names = malloc((wanted->count ? wanted->count : 1) * sizeof(*names));
	const char *v[3];
	char key[33];
	size_t n = 0;
	int r;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < wanted->n_buckets; i++) {
		void *val;
		const char *k = hash_slot_key(wanted, i, &val);
		if (k)
			names[n++] = k;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]) + 1;
		if (array_reserve(all.s, all.cap, all.n + l + 1, 4096) < 0) {
			free(all.s);
			free(names);
			return -ENOMEM;
		}
		memcpy(all.s + all.n, names[i], l);
		all.n += l;
		all.s[all.n - 1] = '\n';
		all.s[all.n] = '\0';
	}
	free(names);
	if (!cr->o->cache_dir) {
		free(all.s);
		return ksc_src_defines_scan(dirs, 2, wanted, out);
	}
	char t0[17], t1[17];
	ksc_compat_tree_identity(dirs[0], t0);
	ksc_compat_tree_identity(dirs[1], t1);
	const char *ids[] = { dirs[0], dirs[1], t0, t1, all.s ? all.s : "" };
	ksc_compat_memo_key(ids, ARRAY_SIZE(ids), key);
	free(all.s);
	if (ksc_compat_memo_load(cr->o->cache_dir, key, &m) == 0 &&
	    ksc_compat_memo_next(&m, "F", "F", v, 3) == 3) {
		ksc_src_names_init(out);
		out->n_files = strtoul(v[2], NULL, 10);
		r = 0;
		/* identifiers: nothing in them is escaped */
		while (r == 0 && m.pos < m.n_lines && m.lines[m.pos][0] == 'D' &&
		       m.lines[m.pos][1] == '\t') {
			const char *k = pool_strdup(&out->strings, m.lines[m.pos++] + 2);
			r = k && hash_add(&out->names, k, (void *)k, 1) >= 0 ? 0 : -ENOMEM;
		}
		ksc_compat_memo_fini(&m);
		return r;
	}
	ksc_compat_memo_fini(&m);
	r = ksc_src_defines_scan(dirs, 2, wanted, out);
	if (r < 0)
		return r;
	char files[32];
	snprintf(files, sizeof(files), "%zu", out->n_files);
	r = ksc_compat_memo_add(&m, 'F', (const char *[]){ "F", files }, 2);
	for (size_t i = 0; r == 0 && i < out->names.n_buckets; i++) {
		void *val;
		const char *k = hash_slot_key(&out->names, i, &val);
		if (k)
			r = ksc_compat_memo_add(&m, 'D', (const char *[]){ k }, 1);
	}
	if (r == 0)
		(void)ksc_compat_memo_save(cr->o->cache_dir, key, &m); /* best effort */
	ksc_compat_memo_fini(&m);
	return r == -ENOMEM ? r : 0;
}

/* What each kernel's headers define of the imports it does not export. */
static int scan_headers(struct crun *cr)
{
	struct ksc_compat *c = cr->c;
	char inc[PATH_MAX], arch[PATH_MAX];
	const char *dirs[2] = { inc, arch };
	int r = 0;

	cr->hdefs = calloc(c->n_kernels, sizeof(*cr->hdefs));
	if (!cr->hdefs)
		return -ENOMEM;
	for (size_t k = 0; r == 0 && k < c->n_kernels; k++) {
		struct hash wanted;
		hash_init(&wanted);
		ksc_src_names_init(&cr->hdefs[k]);
		r = missing_imports(cr, k, &wanted);
		if (r == 0 && cr->o->headers[k] && wanted.count) {
			snprintf(inc, sizeof(inc), "%s/include", cr->o->headers[k]);
			snprintf(arch, sizeof(arch), "%s/arch/%s/include", cr->o->headers[k], arch_of(cr));
			ksc_src_names_fini(&cr->hdefs[k]);
			r = defines_memo(cr, dirs, &wanted, &cr->hdefs[k]);
			c->hdr_files[k] = cr->hdefs[k].n_files;
		}
		hash_fini(&wanted);
	}
	return r;
}

/* The names the source uses for each kernel's version. */
static int scan_sources(struct crun *cr, struct ksc_ctx *ctx)
{
	struct ksc_compat *c = cr->c;

	cr->names = calloc(c->n_kernels, sizeof(*cr->names));
	if (!cr->names)
		return -ENOMEM;
	for (size_t k = 0; k < c->n_kernels; k++) {
		struct ksc_kver v;
		int r;
		ksc_kver_parse(ksc_kernel_get_release(cr->kernels[k]), &v);
		r = ksc_src_names_scan(cr->o->src, &v, &cr->names[k]);
		c->src_files[k] = cr->names[k].n_files;
		if (r < 0) {
			struct stat st;
			if (r == -KSC_ENOTREG && stat(cr->o->src, &st) == 0)
				ksc_err(ctx, "%s: not a regular file (%s)", cr->o->src,
					ksc_file_kind(st.st_mode));
			else if (r != -ENOMEM)
				ksc_err(ctx, "%s: %s", cr->o->src, strerror(-r));
			return r;
		}
	}
	/* a folder without a C file (a DKMS tree of prebuilt modules) names nothing: as if
	 * no source were given, not as a source that calls none of the imports */
	if (c->n_kernels && c->src_files[0] == 0) {
		for (size_t k = 0; k < c->n_kernels; k++)
			ksc_src_names_fini(&cr->names[k]);
		free(cr->names);
		cr->names = NULL;
	}
	return 0;
}

/* The modules' BTF a run read (before the kernels' own, their bases). */
static void free_run_btfs(struct crun *cr)
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

static int check_kernels(struct ksc_kernel *const *kernels, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct ksc_kver v;
		const char *rel = ksc_kernel_get_release(kernels[k]);
		if (!rel || ksc_kver_parse(rel, &v) < 0) {
			ksc_err(ksc_kernel_get_ctx(kernels[k]),
				"compat: kernel %zu has no release (a kernel version) to compare by",
				k + 1);
			return -EINVAL;
		}
	}
	return 0;
}

KSC_EXPORT int ksc_compat_run(struct ksc_kernel *const *kernels, size_t n_kernels,
			      struct ksc_module *const *mods, size_t n_mods,
			      const struct ksc_compat_opts *opts, struct ksc_compat **out)
{
	struct ksc_compat_opts o = { .sz = sizeof(o) };
	struct crun cr = { .kernels = kernels, .mods = mods, .o = &o };
	struct ksc_compat *c;
	int r;

	*out = NULL;
	if (!n_kernels)
		return -EINVAL;
	if (opts_copy(&o, opts) < 0)
		return -EINVAL;
	r = check_kernels(kernels, n_kernels);
	if (r < 0)
		return r;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	cr.c = c;
	pool_init(&c->strings);
	c->n_kernels = n_kernels;
	c->n_mods = n_mods;
	c->cells = calloc(n_mods ? n_mods * n_kernels : 1, sizeof(*c->cells));
	c->built = calloc(n_kernels, sizeof(*c->built));
	c->rebuilt = calloc(n_kernels, sizeof(*c->rebuilt));
	c->src_files = calloc(n_kernels, sizeof(*c->src_files));
	c->btfs = calloc(n_kernels, sizeof(*c->btfs));
	c->btf_tried = calloc(n_kernels, sizeof(*c->btf_tried));
	c->btf_known = calloc(n_kernels, sizeof(*c->btf_known));
	c->hdr_files = calloc(n_kernels, sizeof(*c->hdr_files));
	r = c->cells && c->built && c->rebuilt && c->src_files && c->btfs && c->hdr_files &&
	    c->btf_tried && c->btf_known ? 0 : -ENOMEM;
	cr.kmods = calloc(n_kernels, sizeof(*cr.kmods));
	cr.mod_btf = calloc(n_mods ? n_mods : 1, sizeof(*cr.mod_btf));
	cr.mod_btf_tried = calloc(n_mods ? n_mods : 1, sizeof(*cr.mod_btf_tried));
	if (!cr.kmods || !cr.mod_btf || !cr.mod_btf_tried)
		r = -ENOMEM;
	for (size_t k = 0; cr.kmods && k < n_kernels; k++) {
		hash_init(&cr.kmods[k].paths);
		hash_init(&cr.kmods[k].btfs);
		pool_init(&cr.kmods[k].strings);
	}
	if (r == 0)
		r = run_checks(&cr);
	if (r == 0 && o.src)
		r = scan_sources(&cr, ksc_kernel_get_ctx(kernels[0]));
	if (r == 0 && o.headers)
		r = scan_headers(&cr);
	for (size_t m = 0; r == 0 && m < n_mods; m++)
		for (size_t k = 0; r == 0 && k < n_kernels; k++)
			r = fill_cell(&cr, m, k);
	if (r == 0)
		r = load_btf(&cr);
	if (cr.names) {
		for (size_t k = 0; k < n_kernels; k++)
			ksc_src_names_fini(&cr.names[k]);
		free(cr.names);
	}
	if (cr.hdefs) {
		for (size_t k = 0; k < n_kernels; k++)
			ksc_src_names_fini(&cr.hdefs[k]);
		free(cr.hdefs);
	}
	free_run_btfs(&cr);
	if (r < 0) {
		ksc_compat_free(c);
		return r;
	}
	*out = c;
	return 0;
}

KSC_EXPORT struct ksc_compat *ksc_compat_free(struct ksc_compat *c)
{
	if (!c)
		return NULL;
	for (size_t k = 0; k < c->n_kernels; k++) {
		if (c->built)
			ksc_report_unref(c->built[k]);
		if (c->rebuilt)
			ksc_report_unref(c->rebuilt[k]);
		if (c->btfs)
			ksc_compat_btf_free(c->btfs[k]);
	}
	free(c->built);
	free(c->rebuilt);
	free(c->btfs);
	free(c->btf_tried);
	free(c->btf_known);
	free(c->cells);
	free(c->findings);
	free(c->src_files);
	free(c->hdr_files);
	pool_fini(&c->strings);
	free(c);
	return NULL;
}

KSC_EXPORT const struct ksc_compat_cell *ksc_compat_get_cell(const struct ksc_compat *c,
							     size_t module, size_t kernel)
{
	if (module >= c->n_mods || kernel >= c->n_kernels)
		return NULL;
	return &c->cells[module * c->n_kernels + kernel];
}

KSC_DEFINE_INDEXED_GETTERS(ksc_compat_get_finding_count, ksc_compat_get_finding,
			   struct ksc_compat, struct ksc_compat_finding,
			   findings, n_findings)

KSC_EXPORT const struct ksc_report *ksc_compat_get_report(const struct ksc_compat *c,
							  size_t kernel, bool rebuilt)
{
	if (kernel >= c->n_kernels)
		return NULL;
	return rebuilt ? c->rebuilt[kernel] : c->built[kernel];
}

KSC_EXPORT size_t ksc_compat_get_source_file_count(const struct ksc_compat *c, size_t kernel)
{
	return kernel < c->n_kernels ? c->src_files[kernel] : 0;
}

KSC_EXPORT bool ksc_compat_has_btf(const struct ksc_compat *c, size_t kernel)
{
	return kernel < c->n_kernels && c->btf_known[kernel];
}

KSC_EXPORT size_t ksc_compat_get_header_file_count(const struct ksc_compat *c, size_t kernel)
{
	return kernel < c->n_kernels ? c->hdr_files[kernel] : 0;
}
