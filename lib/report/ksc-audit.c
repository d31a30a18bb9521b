// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The export surface of one kernel, audited: who may use each module-restricted export and
 * who really does (R7-R10), which pattern items are dead or can never match as written,
 * every ordinary namespace with its exporters and importers (R12), GPL-only counts (R3), and
 * impersonation risks: modules without intree whose name matches a restricted pattern
 * (R25: every released kernel grants them access), intree claims the reference tree does
 * not back, and kernels whose CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS defeats the
 * restrictions altogether (R13). And the provenance of the tree's modules: every module's
 * appended signature, verified against the kernel's keys, counted per state and per signer;
 * an intree claim or a name granted a module-restricted export without a valid signature is
 * a finding, with the codes `check` gives the same thing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "report/report.h"
#include "util/array.h"
#include "util/opts.h"

/* A growable array of pointers, NULL-terminated for the public getters. */
struct plist {
	const void **v;
	size_t n, cap;
};

static int plist_add(struct plist *l, const void *p)
{
	if (array_reserve(l->v, l->cap, l->n + 2, 8) < 0) /* and the NULL after them */
		return -ENOMEM;
	l->v[l->n++] = p;
	l->v[l->n] = NULL;
	return 0;
}

struct ksc_audit {
	struct ksc_ctx *ctx;
	struct ksc_kernel *k;
	struct pool strings;
	struct ksc_audit_restricted *restricted;
	size_t n_restricted;
	struct ksc_audit_namespace *namespaces;
	size_t n_namespaces;
	struct ksc_audit_finding *findings;
	size_t n_findings, cap_findings;
	struct plist *lists; /* every list handed out, freed at the end */
	size_t n_lists, cap_lists;
	size_t gpl_only, plain;
	struct ksc_audit_sig_counts sig;
	struct ksc_audit_signer *signers;
	size_t n_signers, cap_signers;
	int oom;
};

static struct plist *new_list(struct ksc_audit *a)
{
	if (array_reserve(a->lists, a->cap_lists, a->n_lists + 1, 64) < 0) {
		a->oom = 1;
		return NULL;
	}
	struct plist *l = &a->lists[a->n_lists++];
	memset(l, 0, sizeof(*l));
	return l;
}

/* Lists are addressed by index: the array of lists may move while it grows. */
static size_t list_new(struct ksc_audit *a)
{
	return new_list(a) ? a->n_lists - 1 : (size_t)-1;
}

static void list_add(struct ksc_audit *a, size_t li, const char *s)
{
	if (li == (size_t)-1 || plist_add(&a->lists[li], s) < 0)
		a->oom = 1;
}

static size_t list_len(const struct ksc_audit *a, size_t li)
{
	return li == (size_t)-1 ? 0 : a->lists[li].n;
}

static const char *sfmt(struct ksc_audit *a, const char *fmt, ...) _printf_format_(2, 3);
static const char *sfmt(struct ksc_audit *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf))
		ksc_mark_cut(buf, sizeof(buf), (size_t)n);
	const char *s = pool_strdup(&a->strings, buf);
	if (!s)
		a->oom = 1;
	return s;
}

static void finding(struct ksc_audit *a, const char *code, enum ksc_severity sev,
		    const struct ksc_module *mod, const char *symbol, const char *ns,
		    const char *detail)
{
	if (array_reserve(a->findings, a->cap_findings, a->n_findings + 1, 64) < 0) {
		a->oom = 1;
		return;
	}
	struct ksc_audit_finding *f = &a->findings[a->n_findings++];
	f->code = code;
	f->severity = sev;
	f->module = mod ? ksc_module_get_name(mod) : NULL;
	f->path = mod ? ksc_module_get_path(mod) : NULL;
	f->symbol = symbol;
	f->ns = ns;
	f->detail = detail;
}

/*
 * Did an import_ns= line of mod before .modinfo entry `upto` name namespace `ns`? Two
 * source files of one module that both import it make one import for the loader and
 * modpost. (Values are compared, not pointers: a module from the index shares strings.)
 */
static bool imported_before(const struct ksc_module *mod, const char *ns, size_t upto)
{
	size_t it = 0;
	const char *v;

	while ((v = ksc_module_next_modinfo_value(mod, "import_ns", &it)) && it <= upto)
		if (strcmp(v, ns) == 0)
			return true;
	return false;
}

/* R8 on one item: what kind it is, as written. */
static enum ksc_item_kind item_kind(const char *p, size_t len)
{
	if (len == 0)
		return KSC_ITEM_EMPTY;
	if (memchr(p, ' ', len) || memchr(p, '\t', len))
		return KSC_ITEM_HAS_SPACE;
	const char *star = memchr(p, '*', len);
	if (star && star != p + len - 1)
		return KSC_ITEM_MISPLACED_STAR;
	return star ? KSC_ITEM_GLOB : KSC_ITEM_EXACT;
}

static bool module_uses(const struct ksc_module *mod, const char *sym)
{
	return ksc_module_find_import(mod, sym) != NULL;
}

/* The tree's modules: the kernel's owners that were read from .ko files. */
static const struct ksc_module *owner_module(const struct ksc_kernel *k, size_t i)
{
	return ksc_kowner_module(ksc_kernel_owner(k, i));
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Name lists read best sorted; they are built in tree order. */
static void sort_list(struct ksc_audit *a, size_t li)
{
	if (li != (size_t)-1 && a->lists[li].n > 1)
		qsort(a->lists[li].v, a->lists[li].n, sizeof(*a->lists[li].v), cmp_str);
}

static int cmp_restricted(const void *x, const void *y)
{
	const struct ksc_audit_restricted *a = x, *b = y;

	return strcmp(a->symbol, b->symbol);
}

/*
 * One item of a module: list (R8): the modules it matches (loader: struct name, '-'=='_';
 * modpost: file basename, exact) and what is wrong with it. 0 or -ENOMEM.
 */
static int audit_item(struct ksc_audit *a, struct ksc_audit_restricted *r,
		      struct ksc_audit_item *x, const char *it, size_t len, size_t n_items)
{
	struct ksc_kernel *k = a->k;
	const char *ns = r->ns;

	x->item = pool_strndup(&a->strings, it, len);
	if (!x->item)
		return -ENOMEM;
	x->kind = item_kind(it, len);
	size_t ll = list_new(a), lm = list_new(a);
	/* A one-item namespace string makes the kernel's matcher test this item. */
	char one[600];
	snprintf(one, sizeof(one), "module:%.*s", (int)len, it);
	for (size_t m = 0; m < ksc_kernel_owner_count(k); m++) {
		const struct ksc_module *mod = owner_module(k, m);
		if (!mod)
			continue;
		if (ksc_namespace_matches_module(one, ksc_module_get_name(mod), KSC_MATCH_LOADER))
			list_add(a, ll, ksc_module_get_name(mod));
		if (ksc_namespace_matches_module(one, ksc_module_get_modpost_name(mod),
						 KSC_MATCH_MODPOST))
			list_add(a, lm, ksc_module_get_modpost_name(mod));
	}
	if (a->oom)
		return -ENOMEM;
	sort_list(a, ll);
	sort_list(a, lm);
	x->loader_matches = (const char *const *)a->lists[ll].v;
	x->n_loader_matches = a->lists[ll].n;
	x->modpost_matches = (const char *const *)a->lists[lm].v;
	x->n_modpost_matches = a->lists[lm].n;

	if (x->kind == KSC_ITEM_EMPTY && n_items == 1)
		finding(a, "modns-empty-list", KSC_SEV_WARNING, NULL, r->symbol, ns,
			"the pattern list is empty: no module can ever use this export");
	else if (x->kind == KSC_ITEM_MISPLACED_STAR)
		finding(a, "modns-unmatchable-item", KSC_SEV_WARNING, NULL, r->symbol, ns,
			sfmt(a, "item '%s': '*' is a glob only at the end; here it is a literal character",
			     x->item));
	else if (x->kind == KSC_ITEM_HAS_SPACE)
		finding(a, "modns-unmatchable-item", KSC_SEV_WARNING, NULL, r->symbol, ns,
			sfmt(a, "item '%s' contains white space, which is never trimmed and no module name contains",
			     x->item));
	else if (x->kind != KSC_ITEM_EMPTY && !x->n_loader_matches)
		finding(a, "modns-dead-item", KSC_SEV_INFO, NULL, r->symbol, ns,
			sfmt(a, "item '%s' matches no module of this tree", x->item));
	else if (x->n_loader_matches != x->n_modpost_matches)
		finding(a, "modns-modpost-mismatch", KSC_SEV_WARNING, NULL, r->symbol, ns,
			sfmt(a, "item '%s' matches %zu modules for the loader ('-' equals '_') but %zu for modpost (exact file names)",
			     x->item, x->n_loader_matches, x->n_modpost_matches));
	return 0;
}

/* The users of a restricted export, and impostors: matching modules without intree (R25). */
static int restricted_users(struct ksc_audit *a, struct ksc_audit_restricted *r,
			    bool allow_missing)
{
	struct ksc_kernel *k = a->k;
	const char *ns = r->ns;
	size_t lu = list_new(a);

	for (size_t m = 0; m < ksc_kernel_owner_count(k); m++) {
		const struct ksc_module *mod = owner_module(k, m);
		if (!mod)
			continue;
		bool uses = module_uses(mod, r->symbol);
		bool matches = ksc_namespace_matches_module(ns, ksc_module_get_name(mod),
							    KSC_MATCH_LOADER);
		if (uses)
			list_add(a, lu, ksc_module_get_name(mod));
		if (matches && !ksc_module_is_intree(mod))
			finding(a, "modns-impostor", KSC_SEV_WARNING, mod, r->symbol, ns,
				sfmt(a, "not in-tree (no intree in .modinfo) yet its name matches %s, so every released kernel lets it %s %s",
				     ns + 7, uses ? "use (and it does use)" : "use (it does not use it)",
				     r->symbol));
		if (uses && allow_missing && !matches)
			finding(a, "modns-defeated", KSC_SEV_WARNING, mod, r->symbol, ns,
				"uses a module-restricted export it is not granted; CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y lets it load with a warning (R13)");
	}
	if (a->oom)
		return -ENOMEM;
	sort_list(a, lu);
	r->users = (const char *const *)a->lists[lu].v;
	r->n_users = list_len(a, lu);
	return 0;
}

/* One module-restricted export: its items, its users, whether anything can use it. */
static int audit_one_restricted(struct ksc_audit *a, const struct kprov *p, bool allow_missing)
{
	struct ksc_audit_restricted *r = &a->restricted[a->n_restricted++];
	const struct ksc_export *e = ksc_kprov_export(p);
	const char *ns = e->ns;

	r->symbol = e->name;
	r->ns = ns;
	r->owner = ksc_kprov_owner_name(p);
	r->gpl_only = e->gpl_only;

	const char *list = ns + strlen("module:");
	size_t n_items = 1;
	for (const char *c = list; *c; c++)
		n_items += *c == ',';
	struct ksc_audit_item *items = calloc(n_items, sizeof(*items));
	if (!items)
		return -ENOMEM;
	r->items = items;
	const char *it = list;
	bool any_match = false;
	for (size_t j = 0; j < n_items; j++) {
		size_t len = strcspn(it, ",");
		struct ksc_audit_item *x = &items[r->n_items++];
		if (audit_item(a, r, x, it, len, n_items) < 0)
			return -ENOMEM;
		any_match |= x->n_loader_matches > 0;
		it += len + (it[len] == ',');
	}
	r->dead = !any_match;
	if (restricted_users(a, r, allow_missing) < 0)
		return -ENOMEM;
	if (r->dead)
		finding(a, "modns-dead-restriction", KSC_SEV_INFO, NULL, r->symbol, ns,
			"no module of this tree matches any item: nothing can use this export");
	return 0;
}

static int audit_restricted(struct ksc_audit *a, const struct ksc_audit_opts *o)
{
	struct ksc_kernel *k = a->k;
	size_t n = 0;

	for (size_t i = 0; i < ksc_kernel_prov_count(k); i++)
		if (ksc_namespace_is_module_restricted(ksc_kprov_export(ksc_kernel_prov(k, i))->ns))
			n++;
	a->restricted = calloc(n ? n : 1, sizeof(*a->restricted));
	if (!a->restricted)
		return -ENOMEM;
	bool allow_missing = ksc_kernel_get_config(k, KSC_CONFIG_ALLOW_MISSING_NS) == 1;
	for (size_t i = 0; i < ksc_kernel_prov_count(k); i++)
		if (ksc_namespace_is_module_restricted(ksc_kprov_export(ksc_kernel_prov(k, i))->ns) &&
		    audit_one_restricted(a, ksc_kernel_prov(k, i), allow_missing) < 0)
			return -ENOMEM;
	if (a->n_restricted > 1)
		qsort(a->restricted, a->n_restricted, sizeof(*a->restricted), cmp_restricted);
	if (allow_missing && a->n_restricted)
		finding(a, "modns-allow-missing-ns", KSC_SEV_WARNING, NULL, NULL, NULL,
			"CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y: any module can use every module-restricted export, with only a warning (R13)");
	(void)o;
	return 0;
}

static int cmp_ns(const void *x, const void *y)
{
	const struct ksc_audit_namespace *a = x, *b = y;

	return strcmp(a->ns, b->ns);
}

/* A namespace while it is being collected: its lists by index (see list_new). */
struct nsacc {
	const char *ns;
	size_t n_exports;
	size_t exporters, importers, unused;
};

static int audit_namespaces(struct ksc_audit *a)
{
	struct ksc_kernel *k = a->k;
	struct hash idx; /* namespace -> index + 1 into acc */
	struct nsacc *acc = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	hash_init(&idx);
	for (size_t i = 0; i < ksc_kernel_prov_count(k); i++) {
		const struct kprov *p = ksc_kernel_prov(k, i);
		if (ksc_kprov_export(p)->gpl_only)
			a->gpl_only++;
		else
			a->plain++;
		const struct ksc_export *e = ksc_kprov_export(p);
	const char *ns = e->ns;
		if (!ns[0] || ksc_namespace_is_module_restricted(ns))
			continue;
		size_t xi = (size_t)(uintptr_t)hash_find(&idx, ns);
		if (!xi) {
			if (array_reserve(acc, cap, n + 1, 64) < 0) {
				r = -ENOMEM;
				goto out;
			}
			acc[n] = (struct nsacc){ ns, 0, list_new(a), list_new(a), list_new(a) };
			xi = ++n;
			if (hash_add(&idx, ns, (void *)(uintptr_t)xi, 0) < 0) {
				r = -ENOMEM;
				goto out;
			}
		}
		struct nsacc *x = &acc[xi - 1];
		x->n_exports++;
		const char *owner = ksc_kprov_owner_name(p);
		if (x->exporters == (size_t)-1)
			continue;
		const struct plist *ex = &a->lists[x->exporters];
		bool seen = false;
		for (size_t j = 0; j < ex->n; j++)
			seen |= strcmp(ex->v[j], owner) == 0;
		if (!seen)
			list_add(a, x->exporters, owner);
	}
	/* Importers: import_ns= lines of the tree's modules; unused if nothing resolves there. */
	for (size_t m = 0; m < ksc_kernel_owner_count(k); m++) {
		const struct ksc_module *mod = owner_module(k, m);
		size_t it = 0;
		const char *ns;
		if (!mod)
			continue;
		while ((ns = ksc_module_next_modinfo_value(mod, "import_ns", &it))) {
			size_t xi = (size_t)(uintptr_t)hash_find(&idx, ns);
			if (!xi || imported_before(mod, ns, it - 1))
				continue; /* a namespace nobody exports: R11 or a stale import */
			struct nsacc *x = &acc[xi - 1];
			list_add(a, x->importers, ksc_module_get_name(mod));
			bool used = false;
			for (size_t i = 0; i < ksc_module_get_import_count(mod) && !used; i++) {
				const char *o;
				const struct ksc_export *e =
					ksc_kernel_find_export(k, ksc_module_get_import(mod, i)->name, &o);
				used = e && strcmp(e->ns, ns) == 0;
			}
			if (!used) {
				list_add(a, x->unused, ksc_module_get_name(mod));
				finding(a, "ns-import-unused", KSC_SEV_INFO, mod, NULL, ns,
					sfmt(a, "imports the namespace %s but uses nothing from it (a stale MODULE_IMPORT_NS)",
					     ns));
			}
		}
	}
	if (a->oom) {
		r = -ENOMEM;
		goto out;
	}
	a->namespaces = calloc(n ? n : 1, sizeof(*a->namespaces));
	if (!a->namespaces) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t j = 0; j < n; j++) {
		sort_list(a, acc[j].exporters);
		sort_list(a, acc[j].importers);
		sort_list(a, acc[j].unused);
		struct ksc_audit_namespace *x = &a->namespaces[a->n_namespaces++];
		x->ns = acc[j].ns;
		x->n_exports = acc[j].n_exports;
		x->exporters = (const char *const *)a->lists[acc[j].exporters].v;
		x->n_exporters = a->lists[acc[j].exporters].n;
		x->importers = (const char *const *)a->lists[acc[j].importers].v;
		x->n_importers = a->lists[acc[j].importers].n;
		x->unused_importers = (const char *const *)a->lists[acc[j].unused].v;
		x->n_unused_importers = a->lists[acc[j].unused].n;
	}
	if (a->n_namespaces > 1)
		qsort(a->namespaces, a->n_namespaces, sizeof(*a->namespaces), cmp_ns);
out:
	free(acc);
	hash_fini(&idx);
	return r;
}

/* intree claims against a reference tree (the distribution's own package). */
static int audit_reference(struct ksc_audit *a, struct ksc_kernel *ref)
{
	struct ksc_kernel *k = a->k;

	for (size_t m = 0; m < ksc_kernel_owner_count(k); m++) {
		const struct ksc_module *mod = owner_module(k, m);
		if (!mod || !ksc_module_is_intree(mod))
			continue;
		const struct kowner *ro = ksc_kernel_find_owner(ref, ksc_module_get_name(mod));
		if (!ro || !ksc_kowner_module(ro)) {
			finding(a, "intree-not-in-reference", KSC_SEV_WARNING, mod, NULL, NULL,
				"claims intree but the reference tree has no module of this name");
			continue;
		}
		const char *s1 = ksc_module_get_modinfo_value(mod, "srcversion");
		const char *s2 = ksc_module_get_modinfo_value(ksc_kowner_module(ro), "srcversion");
		if (s1 && s2 && strcmp(s1, s2) != 0)
			finding(a, "srcversion-differs", KSC_SEV_WARNING, mod, NULL, NULL,
				sfmt(a, "srcversion %s, the reference module's is %s: built from other sources",
				     s1, s2));
	}
	return a->oom ? -ENOMEM : 0;
}

/* ---- signatures: which modules the kernel's keys vouch for (issue 5) ---- */

/* kmod's sig_key: the key id as upper-case hex bytes joined by ':', into buf. */
static const char *key_id_str(char *buf, size_t size, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		if (len + 3 + 4 > size) {
			memcpy(buf + len, "...", 3);
			len += 3;
			break;
		}
		if (i)
			buf[len++] = ':';
		buf[len++] = hex[p[i] >> 4];
		buf[len++] = hex[p[i] & 15];
	}
	buf[len] = '\0';
	return buf;
}

static const char *sig_errno_name(int err)
{
	switch (-err) {
	case ENOKEY: return "ENOKEY";
	case EKEYREJECTED: return "EKEYREJECTED";
	case EBADMSG: return "EBADMSG";
	case EINVAL: return "EINVAL";
	case EMSGSIZE: return "EMSGSIZE";
	case ENOPKG: return "ENOPKG";
	}
	return ksc_errno_name(err);
}

/* The signer row of a signature (one per signer, key id and hash algorithm), by index. */
static size_t signer_row(struct ksc_audit *a, struct hash *idx, const char *signer,
			 const char *key_id, const char *hash_algo)
{
	char key[1024];

	snprintf(key, sizeof(key), "%s%s\x01%s%s\x01%s%s", signer ? "=" : "-", signer ? signer : "",
		 key_id ? "=" : "-", key_id ? key_id : "", hash_algo ? "=" : "-",
		 hash_algo ? hash_algo : "");
	size_t xi = (size_t)(uintptr_t)hash_find(idx, key);
	if (xi)
		return xi - 1;
	if (array_reserve(a->signers, a->cap_signers, a->n_signers + 1, 8) < 0) {
		a->oom = 1;
		return (size_t)-1;
	}
	struct ksc_audit_signer *x = &a->signers[a->n_signers];
	memset(x, 0, sizeof(*x));
	x->signer = signer ? pool_strdup(&a->strings, signer) : NULL;
	x->key_id = key_id ? pool_strdup(&a->strings, key_id) : NULL;
	x->hash_algo = hash_algo ? pool_strdup(&a->strings, hash_algo) : NULL;
	const char *k = pool_strdup(&a->strings, key);
	if ((signer && !x->signer) || (key_id && !x->key_id) || (hash_algo && !x->hash_algo) || !k ||
	    hash_add(idx, k, (void *)(uintptr_t)(a->n_signers + 1), 0) < 0) {
		a->oom = 1;
		return (size_t)-1;
	}
	return a->n_signers++;
}

static int cmp_signer(const void *x, const void *y)
{
	const struct ksc_audit_signer *a = x, *b = y;

	if (a->n_modules != b->n_modules)
		return a->n_modules < b->n_modules ? 1 : -1;
	int c = strcmp(a->signer ? a->signer : "", b->signer ? b->signer : "");
	if (!c)
		c = strcmp(a->key_id ? a->key_id : "", b->key_id ? b->key_id : "");
	if (!c)
		c = strcmp(a->hash_algo ? a->hash_algo : "", b->hash_algo ? b->hash_algo : "");
	return c;
}

/* What is wrong with a module's provenance, in the words of check's finding codes. */
enum provenance { PROV_OK = 0, PROV_UNSIGNED, PROV_FOREIGN_KEY, PROV_BAD_SIGNATURE };

static const char *const intree_codes[] = {
	[PROV_UNSIGNED] = "intree-unsigned",
	[PROV_FOREIGN_KEY] = "intree-foreign-key",
	[PROV_BAD_SIGNATURE] = "intree-bad-signature",
};
static const char *const modns_codes[] = {
	[PROV_UNSIGNED] = "modns-unsigned",
	[PROV_FOREIGN_KEY] = "modns-foreign-key",
	[PROV_BAD_SIGNATURE] = "modns-bad-signature",
};

/*
 * A signed module: counted by its signature's state, in total and in its signer's row
 * (*row). Its provenance problem, or PROV_OK.
 */
static enum provenance count_signed(struct ksc_audit *a, struct hash *idx, int sr,
				    const struct ksc_signature_info *si,
				    const struct ksc_sig_eval *ev, size_t *row)
{
	struct ksc_audit_sig_counts *c = &a->sig;
	char kid[200];

	c->n_signed++;
	*row = sr == 0 ? signer_row(a, idx, si->signer,
				    key_id_str(kid, sizeof(kid), si->key_id, si->key_id_len),
				    si->hash_algo)
		       : signer_row(a, idx, NULL, NULL, NULL);
	if (a->oom)
		return PROV_OK;
	struct ksc_audit_signer *x = &a->signers[*row];
	x->n_modules++;
	switch (ev->err) {
	case 0:
		if (ev->verified) {
			c->n_verified++;
			x->n_verified++;
			if (!x->key && ev->key && ev->key->subject &&
			    !(x->key = pool_strdup(&a->strings, ev->key->subject)))
				a->oom = 1;
		} else {
			c->n_not_checked++;
			x->n_not_checked++;
		}
		return PROV_OK;
	case -ENOKEY:
		c->n_foreign_key++;
		x->n_foreign_key++;
		return PROV_FOREIGN_KEY;
	case -ENOPKG:
		c->n_unsupported++;
		x->n_unsupported++;
		return PROV_BAD_SIGNATURE;
	default:
		c->n_rejected++;
		x->n_rejected++;
		return PROV_BAD_SIGNATURE;
	}
}

/*
 * The findings of a module whose provenance matters and fails: intree in .modinfo, and a
 * name that matches a module-restricted pattern (loader matching). `state` says what is
 * wrong, `row` is its signer's row or (size_t)-1.
 */
static void provenance_findings(struct ksc_audit *a, const struct ksc_module *mod,
				enum provenance prov, const char *state, size_t row,
				const struct ksc_sig_eval *ev, bool keys)
{
	/* Who signed it, as modinfo shows it. */
	const char *who = "";
	if (row != (size_t)-1 && a->signers[row].signer)
		who = sfmt(a, " (signer '%s', key %s, %s)", a->signers[row].signer,
			   a->signers[row].key_id ? a->signers[row].key_id : "-",
			   a->signers[row].hash_algo ? a->signers[row].hash_algo : "-");
	else if (row != (size_t)-1)
		who = " (a block kmod's modinfo cannot decode)";
	const char *why = prov == PROV_UNSIGNED
		? (keys ? "" : " (keys were not checked: with no key known, only missing and malformed signatures are judged)")
		: prov == PROV_FOREIGN_KEY ? ": the kernel loads it as if it were unsigned (taint E), or refuses it when signatures are enforced"
		: ev->err == -ENOPKG ? sfmt(a, ": %s; the kernel loads it as if it were unsigned (-%s)", ev->why, sig_errno_name(ev->err))
		: sfmt(a, ": %s; the kernel refuses to load it (-%s)", ev->why, sig_errno_name(ev->err));
	enum ksc_severity sev = prov == PROV_BAD_SIGNATURE && ev->err != -ENOPKG
		? KSC_SEV_ERROR : KSC_SEV_WARNING;
	if (ksc_module_is_intree(mod))
		finding(a, intree_codes[prov], sev, mod, NULL, NULL,
			sfmt(a, "claims to be in-tree (intree in .modinfo) but %s%s%s; a signature by the kernel's own key is the one proof that it was built with the kernel",
			     state, who, why));
	/* The restricted exports its name is granted (the list is sorted by symbol). */
	const struct ksc_audit_restricted *first = NULL;
	size_t n_granted = 0;
	for (size_t i = 0; i < a->n_restricted; i++) {
		const struct ksc_audit_restricted *r = &a->restricted[i];
		if (!ksc_namespace_matches_module(r->ns, ksc_module_get_name(mod), KSC_MATCH_LOADER))
			continue;
		if (!first)
			first = r;
		n_granted++;
	}
	if (first)
		finding(a, modns_codes[prov], sev, mod, first->symbol, first->ns,
			sfmt(a, "its name matches %s, which grants it %s%s, but it %s%s%s; the name alone does not show that it is one of the kernel's own modules",
			     first->ns + strlen("module:"), first->symbol,
			     n_granted > 1 ? sfmt(a, " and %zu more module-restricted exports", n_granted - 1) : "",
			     state, who, why));
}

/*
 * Every module's signature: counted by state and by signer, and judged for the modules
 * whose provenance matters: those with intree in .modinfo, and those whose name matches a
 * module-restricted pattern (loader matching). Unsigned is a problem when the kernel signs
 * its modules (CONFIG_MODULE_SIG=y) or keys were given; as in `check`, a kernel without
 * either has no signatures to expect.
 */
static int audit_signatures(struct ksc_audit *a)
{
	struct ksc_kernel *k = a->k;
	const struct ksc_keyring *kr = ksc_kernel_get_keyring(k);
	bool keys = !ksc_keyring_is_empty(kr);
	struct ksc_audit_sig_counts *c = &a->sig;
	struct hash idx; /* signer key -> row index + 1 */

	c->n_keys = keys ? ksc_keyring_get_count(kr) : 0;
	c->module_sig = ksc_kernel_get_config(k, KSC_CONFIG_MODULE_SIG);
	bool expect_signed = keys || c->module_sig == 1;
	hash_init(&idx);
	for (size_t m = 0; m < ksc_kernel_owner_count(k) && !a->oom; m++) {
		const struct ksc_module *mod = owner_module(k, m);
		if (!mod)
			continue;
		c->n_modules++;
		struct ksc_signature_info si;
		int sr = -ENODATA;
		/* kmod's view first: for a module rebuilt from an index it reads the block again */
		if (ksc_module_get_signature_size(mod) > 0) {
			sr = ksc_module_get_signature(mod, &si);
			if (sr == -ENOMEM) {
				a->oom = 1;
				break;
			}
		}
		struct ksc_sig_eval ev;
		ksc_sig_evaluate(mod, kr, &ev);
		enum provenance prov = PROV_OK;
		const char *state;
		size_t row = (size_t)-1;
		if (ev.err == -ENODATA) {
			c->n_unsigned++;
			if (expect_signed)
				prov = PROV_UNSIGNED;
			state = "is unsigned";
		} else {
			prov = count_signed(a, &idx, sr, &si, &ev, &row);
			if (a->oom)
				break;
			state = prov == PROV_OK ? NULL : prov == PROV_FOREIGN_KEY
				? "is signed by a key that is not among the kernel's keys"
				: "carries a signature that fails";
		}
		if (prov != PROV_OK)
			provenance_findings(a, mod, prov, state, row, &ev, keys);
	}
	hash_fini(&idx);
	if (a->oom)
		return -ENOMEM;
	if (a->n_signers > 1)
		qsort(a->signers, a->n_signers, sizeof(*a->signers), cmp_signer);
	return 0;
}

/*
 * Modules whose file replaced one of the kernel's own (below kernel/, where
 * `make modules_install` puts them) for the loader, by depmod's search order (updates/
 * first, depmod.d search and override), when that name is granted a module-restricted
 * export: modprobe loads the replacement, and the grant goes with it.
 */
static int audit_replaced(struct ksc_audit *a)
{
	struct ksc_kernel *k = a->k;

	for (size_t m = 0; m < ksc_kernel_owner_count(k) && !a->oom; m++) {
		const char *relpath, *won_by;
		const char *replaced = ksc_kowner_replaced(ksc_kernel_owner(k, m), &relpath,
							   &won_by);
		const struct ksc_module *mod = owner_module(k, m);
		if (!mod || !replaced || strncmp(replaced, "kernel/", 7) != 0)
			continue;
		const struct ksc_audit_restricted *first = NULL;
		size_t n_granted = 0;
		for (size_t i = 0; i < a->n_restricted; i++) {
			const struct ksc_audit_restricted *r = &a->restricted[i];
			if (!ksc_namespace_matches_module(r->ns, ksc_module_get_name(mod),
							  KSC_MATCH_LOADER))
				continue;
			if (!first)
				first = r;
			n_granted++;
		}
		if (!first)
			continue;
		finding(a, "modns-replaced", KSC_SEV_WARNING, mod, first->symbol, first->ns,
			sfmt(a, "%s replaces %s for the loader (%s)%s; its name matches %s, which grants it %s%s: modprobe %s loads this file",
			     relpath, replaced, won_by,
			     ksc_module_is_intree(mod) ? "" : " and it is not in-tree (no intree in .modinfo)",
			     first->ns + strlen("module:"), first->symbol,
			     n_granted > 1 ? sfmt(a, " and %zu more module-restricted exports", n_granted - 1) : "",
			     ksc_module_get_name(mod)));
	}
	return a->oom ? -ENOMEM : 0;
}

/*
 * R43: the modules modprobe cannot load, being in or behind a dependency cycle, as the
 * kernel wing found them (ksc-cycles.c, the same rule check's loader view applies).
 */
static int audit_cycles(struct ksc_audit *a)
{
	struct ksc_kernel *k = a->k;

	for (size_t m = 0; m < ksc_kernel_owner_count(k) && !a->oom; m++) {
		const char *cycle = ksc_kowner_cycle(ksc_kernel_owner(k, m));
		const struct ksc_module *mod = owner_module(k, m);
		if (!mod || !cycle)
			continue;
		finding(a, "dep-cycle", KSC_SEV_ERROR, mod, NULL, NULL,
			sfmt(a, "in or behind the dependency cycle %s: modprobe cannot load it",
			     cycle));
	}
	return a->oom ? -ENOMEM : 0;
}

KSC_EXPORT int ksc_audit_kernel(struct ksc_kernel *k, const struct ksc_audit_opts *opts,
				struct ksc_audit **out)
{
	struct ksc_audit_opts o = { .sz = sizeof(o) };
	struct ksc_audit *a;
	int r;

	*out = NULL;
	if (opts_copy(&o, opts) < 0)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->ctx = ksc_ref(ksc_kernel_get_ctx(k));
	a->k = ksc_kernel_ref(k);
	pool_init(&a->strings);
	if ((r = ksc_kernel_build_index(k)) < 0 || (r = audit_restricted(a, &o)) < 0 ||
	    (r = audit_namespaces(a)) < 0 || (r = audit_signatures(a)) < 0 ||
	    (r = audit_replaced(a)) < 0 || (r = audit_cycles(a)) < 0)
		goto err;
	if (o.reference) {
		if ((r = ksc_kernel_build_index(o.reference)) < 0 ||
		    (r = audit_reference(a, o.reference)) < 0)
			goto err;
	}
	*out = a;
	return 0;
err:
	ksc_audit_free(a);
	return r;
}

KSC_EXPORT struct ksc_audit *ksc_audit_free(struct ksc_audit *a)
{
	if (!a)
		return NULL;
	for (size_t i = 0; i < a->n_restricted; i++)
		free((void *)a->restricted[i].items);
	free(a->restricted);
	free(a->namespaces);
	free(a->findings);
	free(a->signers);
	for (size_t i = 0; i < a->n_lists; i++)
		free(a->lists[i].v);
	free(a->lists);
	pool_fini(&a->strings);
	ksc_kernel_unref(a->k);
	ksc_unref(a->ctx);
	free(a);
	return NULL;
}

KSC_DEFINE_INDEXED_GETTERS(ksc_audit_get_restricted_count, ksc_audit_get_restricted,
			   struct ksc_audit, struct ksc_audit_restricted,
			   restricted, n_restricted)
KSC_DEFINE_INDEXED_GETTERS(ksc_audit_get_namespace_count, ksc_audit_get_namespace,
			   struct ksc_audit, struct ksc_audit_namespace,
			   namespaces, n_namespaces)
KSC_DEFINE_INDEXED_GETTERS(ksc_audit_get_finding_count, ksc_audit_get_finding,
			   struct ksc_audit, struct ksc_audit_finding,
			   findings, n_findings)

KSC_EXPORT void ksc_audit_get_export_counts(const struct ksc_audit *a, size_t *gpl_only,
					    size_t *plain)
{
	*gpl_only = a->gpl_only;
	*plain = a->plain;
}

KSC_EXPORT const struct ksc_audit_sig_counts *ksc_audit_get_signature_counts(const struct ksc_audit *a)
{
	return &a->sig;
}

KSC_DEFINE_INDEXED_GETTERS(ksc_audit_get_signer_count, ksc_audit_get_signer,
			   struct ksc_audit, struct ksc_audit_signer,
			   signers, n_signers)

KSC_EXPORT const char *ksc_item_kind_name(enum ksc_item_kind kind)
{
	switch (kind) {
	case KSC_ITEM_EXACT: return "exact";
	case KSC_ITEM_GLOB: return "glob";
	case KSC_ITEM_EMPTY: return "empty";
	case KSC_ITEM_MISPLACED_STAR: return "misplaced-star";
	case KSC_ITEM_HAS_SPACE: return "has-space";
	}
	return "unknown";
}
