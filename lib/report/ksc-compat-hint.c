// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * compat's replacement hints: for an export removed between the kernel a module was
 * built for and the target, a likely successor the target exports, by its name and
 * prototype, and what the in-tree modules took up instead (ksc-compat-intree.c).
 */
#include <stdbool.h>
#include <string.h>

#include "report/compat-private.h"

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
	return compat_fmt(cr, "%s (%s%s)", best,
			  best_score - 2 * best_proto == 3 ? "the same words"
							   : "a name alike",
			  best_proto ? ", the same prototype" : "");
}

/*
 * The last finding's hints, the successor by name and prototype and the in-tree modules'
 * evidence: replayed from the cell's memo, or found (and recorded).
 */
int compat_hint(struct crun *cr, size_t k, const char *sym)
{
	struct ksc_compat_finding *f = &cr->c->findings[cr->c->n_findings - 1];
	const char *v[4];

	if (cr->memo.replay) {
		if (ksc_compat_memo_next(&cr->memo, "H", sym, v, 4) == 4) {
			f->hint = v[2][0] ? pool_strdup(&cr->c->strings, v[2]) : NULL;
			f->intree = v[3][0] ? pool_strdup(&cr->c->strings, v[3]) : NULL;
		}
		return 0;
	}
	f->hint = successor(cr, k, sym);
	f->intree = compat_intree_hint(cr, k, sym);
	if (cr->oom)
		return -ENOMEM;
	if (cr->record && ksc_compat_memo_add(&cr->memo, 'H',
					      (const char *[]){ sym, f->hint, f->intree }, 3) < 0)
		return -ENOMEM;
	return 0;
}
