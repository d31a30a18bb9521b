// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod's files for a module tree, reimplemented from the rules of kmod 30's
 * tools/depmod.c (doc/rules.md R26), so that the files ksymcheck writes are byte for byte
 * the ones depmod writes (what depmod reads from each module is kmod's view of it,
 * lib/readers/ksc-kview.c):
 *
 *  - kmod's hash table (shared/hash.c): modules.symbols is written in the iteration
 *    order of a 2048-bucket table (SuperFastHash, entries of a bucket sorted by strcmp),
 *    and modules not in modules.order keep the order of a 512-bucket table of names.
 *  - depmod_calculate_dependencies(): Kahn's sort with a LIFO stack of roots, which
 *    gives every module its place in modules.dep.
 *  - the output formats of modules.dep, modules.symbols, modules.alias,
 *    modules.softdep and modules.devname.
 * The binary *.bin indexes are not written.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree.h"
#include "util/array.h"

/* ---------------------------------------------------------------------------------- */
/* kmod's hash                                                                        */

/*
 * SuperFastHash as kmod's hash_superfast() computes it on x86: 16-bit loads in little
 * endian, the odd bytes as signed char (kmod 30; kmod 34 made them unsigned, which only
 * changes names with bytes >= 0x80).
 */
static inline uint32_t le16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

uint32_t ksc_kmod_hash(const char *key, size_t len)
{
	const unsigned char *p = (const unsigned char *)key;
	uint32_t hash = (uint32_t)len, tmp;
	size_t rem = len & 3;

	for (len /= 4; len > 0; len--) {
		hash += le16(p);
		tmp = (le16(p + 2) << 11) ^ hash;
		hash = (hash << 16) ^ tmp;
		p += 4;
		hash += hash >> 11;
	}
	switch (rem) {
	case 3:
		hash += le16(p);
		hash ^= hash << 16;
		hash ^= (uint32_t)(int32_t)(signed char)p[2] << 18;
		hash += hash >> 11;
		break;
	case 2:
		hash += le16(p);
		hash ^= hash << 11;
		hash += hash >> 17;
		break;
	case 1:
		hash += (uint32_t)(int32_t)(signed char)p[0];
		hash ^= hash << 10;
		hash += hash >> 1;
		break;
	}
	hash ^= hash << 3;
	hash += hash >> 5;
	hash ^= hash << 4;
	hash += hash >> 17;
	hash ^= hash << 25;
	hash += hash >> 6;
	return hash;
}

/* ---------------------------------------------------------------------------------- */
/* Orders                                                                             */

struct name_key {
	const char *name;
	uint32_t bucket, index;
};

static int cmp_name_key(const void *a, const void *b)
{
	const struct name_key *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The iteration order of kmod's hash table with `buckets` buckets over `names`: by bucket,
 * then by strcmp within a bucket. Writes the permutation to order[]. 0 or -ENOMEM.
 */
int ksc_depmod_hash_order(const char *const *names, size_t n, uint32_t buckets,
			  uint32_t *order)
{
	struct name_key *k = malloc((n ? n : 1) * sizeof(*k));

	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		k[i].name = names[i];
		k[i].bucket = ksc_kmod_hash(names[i], strlen(names[i])) & (buckets - 1);
		k[i].index = (uint32_t)i;
	}
	qsort(k, n, sizeof(*k), cmp_name_key);
	for (size_t i = 0; i < n; i++)
		order[i] = k[i].index;
	free(k);
	return 0;
}

/*
 * depmod_modules_sort(): modules.order gives the modules it lists a negative rank (line -
 * total), the others keep 1. A file whose last line lacks its newline is "corrupted":
 * then nothing is ranked (depmod keeps its hash order). `lookup` maps a line (the
 * module's path with a .ko suffix) to a module index + 1, or 0.
 */
bool ksc_depmod_rank(const char *data, size_t size,
		     size_t (*lookup)(void *, const char *), void *ldata, int *rank)
{
	char line[4096];
	int idx = 0;

	/*
	 * fgets(line, PATH_MAX) semantics: a chunk ends after a newline, after 4095 bytes or
	 * at the end of the file; strlen() of it stops at a NUL byte.
	 */
	for (int pass = 0; pass < 2; pass++) {
		int total = idx + 1;
		idx = 0;
		for (size_t i = 0; i < size;) {
			size_t len = 0;
			while (i + len < size && len < sizeof(line) - 1) {
				if (data[i + len++] == '\n')
					break;
			}
			size_t l = strnlen(data + i, len);
			idx++;
			if (l > 0 && pass == 0 && data[i + l - 1] != '\n')
				return false; /* "corrupted line misses '\n'" */
			if (l > 0 && pass == 1) {
				memcpy(line, data + i, l - 1);
				line[l - 1] = '\0';
				size_t m = lookup(ldata, line);
				if (m)
					rank[m - 1] = idx - total;
			}
			i += len;
		}
	}
	return true;
}

/* ---------------------------------------------------------------------------------- */
/* Dependencies                                                                       */

/*
 * depmod_calculate_dependencies(): Kahn's algorithm. users[] counts, for each module, the
 * modules that depend on it; the modules nobody uses are pushed on a stack in index
 * order, and popping gives the next sort index; a module whose last user is sorted is
 * pushed. Modules never sorted are in (or behind) a cycle: sort_idx INT_MAX.
 */
size_t ksc_depmod_sort(size_t n, uint32_t *const *deps, const uint32_t *n_deps,
		       int *sort_idx)
{
	uint32_t *users = calloc(n ? n : 1, sizeof(*users));
	uint32_t *stack = malloc((n ? n : 1) * sizeof(*stack));
	size_t sp = 0, sorted = 0;

	if (!users || !stack) {
		free(users);
		free(stack);
		return SIZE_MAX;
	}
	for (size_t i = 0; i < n; i++) {
		sort_idx[i] = INT_MAX;
		for (uint32_t j = 0; j < n_deps[i]; j++)
			users[deps[i][j]]++;
	}
	for (size_t i = 0; i < n; i++)
		if (users[i] == 0)
			stack[sp++] = (uint32_t)i;
	while (sp > 0) {
		uint32_t m = stack[--sp];
		sort_idx[m] = (int)sorted++;
		for (uint32_t j = 0; j < n_deps[m]; j++) {
			uint32_t d = deps[m][j];
			if (--users[d] == 0)
				stack[sp++] = d;
		}
	}
	free(users);
	free(stack);
	return sorted;
}

/*
 * Every module `m` depends on, directly or not, sorted by sort index (modules.dep).
 * `mark` is scratch space of n bytes, all zero on entry and on return. Returns the count
 * (at most `cap` written to out[]), or SIZE_MAX when out of memory.
 */
size_t ksc_depmod_all_deps(uint32_t m, uint32_t *const *deps, const uint32_t *n_deps,
			   const int *sort_idx, unsigned char *mark, uint32_t **out)
{
	size_t n = 0, cap = 0, sp = 0, scap = 0;
	uint32_t *r = NULL, *st = NULL;

	if (array_push(st, sp, scap, m) < 0)
		goto oom;
	while (sp) {
		uint32_t x = st[--sp];
		for (uint32_t j = 0; j < n_deps[x]; j++) {
			uint32_t d = deps[x][j];
			if (mark[d])
				continue;
			mark[d] = 1;
			if (array_push(r, n, cap, d) < 0 ||
			    array_push(st, sp, scap, d) < 0)
				goto oom;
		}
	}
	free(st);
	for (size_t i = 0; i < n; i++)
		mark[r[i]] = 0;
	/* insertion sort: dependency lists are short */
	for (size_t i = 1; i < n; i++) {
		uint32_t v = r[i];
		size_t j = i;
		while (j > 0 && sort_idx[r[j - 1]] > sort_idx[v]) {
			r[j] = r[j - 1];
			j--;
		}
		r[j] = v;
	}
	*out = r;
	return n;
oom:
	if (r)
		for (size_t i = 0; i < n; i++)
			mark[r[i]] = 0;
	free(r);
	free(st);
	return SIZE_MAX;
}

/*
 * Tarjan's strongly connected components of the modules left unsorted (sort_idx
 * INT_MAX), without recursion: comp[v] for each of them. 0 or -ENOMEM.
 */
static int strong_components(size_t n, uint32_t *const *deps, const uint32_t *n_deps,
			     const int *sort_idx, uint32_t *comp)
{
	int64_t *index = malloc((n ? n : 1) * sizeof(*index));
	int64_t *low = malloc((n ? n : 1) * sizeof(*low));
	uint32_t *stack = malloc((n ? n : 1) * sizeof(*stack));
	struct frame {
		uint32_t v, next;
	} *cs = malloc((n ? n : 1) * sizeof(*cs));
	unsigned char *on = calloc(n ? n : 1, 1);
	int64_t counter = 0;
	size_t sp = 0;
	uint32_t ncomp = 0;
	int ret = -ENOMEM;

	if (!index || !low || !stack || !cs || !on)
		goto out;
	for (size_t i = 0; i < n; i++)
		index[i] = -1;
	for (size_t s = 0; s < n; s++) {
		if (sort_idx[s] != INT_MAX || index[s] >= 0)
			continue;
		size_t csp = 0;
		cs[csp++] = (struct frame){ (uint32_t)s, 0 };
		index[s] = low[s] = counter++;
		stack[sp++] = (uint32_t)s;
		on[s] = 1;
		while (csp) {
			struct frame *f = &cs[csp - 1];
			uint32_t v = f->v;
			if (f->next < n_deps[v]) {
				uint32_t w = deps[v][f->next++];
				if (sort_idx[w] != INT_MAX)
					continue;
				if (index[w] < 0) {
					index[w] = low[w] = counter++;
					stack[sp++] = w;
					on[w] = 1;
					cs[csp++] = (struct frame){ w, 0 };
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				uint32_t w;
				do {
					w = stack[--sp];
					on[w] = 0;
					comp[w] = ncomp;
				} while (w != v);
				ncomp++;
			}
			csp--;
			if (csp && low[v] < low[cs[csp - 1].v])
				low[cs[csp - 1].v] = low[v];
		}
	}
	ret = 0;
out:
	free(index);
	free(low);
	free(stack);
	free(cs);
	free(on);
	return ret;
}

/*
 * A shortest cycle through s, the lowest member of component c: a breadth-first search
 * over the component from s back to it. Written to cyc as s -> ... -> s (s once); its
 * length, or 0 when there is none. path and pnext: scratch of n entries.
 */
static size_t component_cycle(size_t n, uint32_t *const *deps, const uint32_t *n_deps,
			      const int *sort_idx, const uint32_t *comp, uint32_t s,
			      uint32_t *path, uint32_t *pnext, uint32_t *cyc)
{
	uint32_t c = comp[s], last = UINT32_MAX;
	size_t qh = 0, qt = 0;

	for (size_t i = s; i < n; i++)
		if (sort_idx[i] == INT_MAX && comp[i] == c)
			pnext[i] = UINT32_MAX; /* pnext[v]: v's predecessor */
	path[qt++] = s;
	while (qh < qt && last == UINT32_MAX) {
		uint32_t v = path[qh++];
		for (uint32_t j = 0; j < n_deps[v]; j++) {
			uint32_t w = deps[v][j];
			if (sort_idx[w] != INT_MAX || comp[w] != c)
				continue;
			if (w == s) {
				last = v;
				break;
			}
			if (pnext[w] != UINT32_MAX)
				continue;
			pnext[w] = v;
			path[qt++] = w;
		}
	}
	if (last == UINT32_MAX)
		return 0;
	/* s -> ... -> last -> s: walk predecessors back from last */
	size_t len = 1;
	for (uint32_t v = last; v != s; v = pnext[v])
		len++;
	size_t at = len;
	for (uint32_t v = last; v != s; v = pnext[v])
		cyc[--at] = v;
	cyc[--at] = s;
	return len;
}

/*
 * The dependency cycles among the modules the sort left out: Tarjan's strongly
 * connected components over them; for each component with more than one module (or a
 * module that depends on itself), one cycle, starting at its lowest index and following
 * dependencies inside the component back to it. Cycles are returned flat in *out with
 * their lengths in *lens (each cycle lists its modules once). Returns the number of
 * cycles or -ENOMEM.
 */
int ksc_depmod_cycles(size_t n, uint32_t *const *deps, const uint32_t *n_deps,
		      const int *sort_idx, uint32_t **out, size_t **lens)
{
	size_t m = n ? n : 1, nflat = 0, ncyc = 0;
	uint32_t *comp = malloc(m * sizeof(*comp)), *path = malloc(m * sizeof(*path));
	uint32_t *pnext = malloc(m * sizeof(*pnext)), *flat = malloc(m * sizeof(*flat));
	size_t *ls = malloc(m * sizeof(*ls));
	unsigned char *seen = calloc(m, 1);
	int ret = -ENOMEM;

	if (!comp || !path || !pnext || !flat || !ls || !seen ||
	    strong_components(n, deps, n_deps, sort_idx, comp) < 0)
		goto out;
	/* One cycle per component, found from its lowest member. */
	for (size_t s = 0; s < n; s++) {
		if (sort_idx[s] != INT_MAX || seen[s])
			continue;
		uint32_t c = comp[s];
		size_t members = 0;
		for (size_t i = s; i < n; i++) {
			if (sort_idx[i] == INT_MAX && comp[i] == c) {
				seen[i] = 1;
				members++;
			}
		}
		bool self = false;
		for (uint32_t j = 0; j < n_deps[s]; j++)
			if (deps[s][j] == s)
				self = true;
		if (self) {
			flat[nflat++] = (uint32_t)s;
			ls[ncyc++] = 1;
		} else if (members >= 2) {
			size_t len = component_cycle(n, deps, n_deps, sort_idx, comp,
						     (uint32_t)s, path, pnext, flat + nflat);
			if (len) {
				nflat += len;
				ls[ncyc++] = len;
			}
		}
	}
	*out = flat;
	*lens = ls;
	flat = NULL;
	ls = NULL;
	ret = (int)ncyc;
out:
	free(comp);
	free(path);
	free(pnext);
	free(flat);
	free(ls);
	free(seen);
	return ret;
}

/* ---------------------------------------------------------------------------------- */
/* The text files                                                                     */

struct sbuf {
	char *p;
	size_t n, cap;
	int oom;
};

static void sb_reserve(struct sbuf *b, size_t more)
{
	if (b->oom || b->cap - b->n > more)
		return;
	if (more >= SIZE_MAX - b->n ||
	    array_reserve(b->p, b->cap, b->n + more + 1, 1 << 16) < 0)
		b->oom = 1;
}

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void sb_chr(struct sbuf *b, char c)
{
	sb_put(b, &c, 1);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ksc_depmod_sym *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return strcmp(x->name, y->name);
}

const char *ksc_depmod_path_fault(const char *relpath)
{
	for (const unsigned char *p = (const unsigned char *)relpath; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return "a control character in the file name";
		if (*p == ' ')
			return "a space in the file name";
		if (*p == ':')
			return "a colon in the file name";
	}
	return NULL;
}

/*
 * kmod's depmod writes every alias as it is ("alias %s %s\n", output_aliases() in
 * tools/depmod.c): an alias with a blank ("pci:v* evil") gives a line of four fields,
 * which a reader that splits at blanks maps to the module "evil"; an empty one gives a
 * line with one field too few, and one starting with '#' reads as a comment to some.
 * Those lines are forged, so they are left out here (and reported, ksc-tree-depmod.c),
 * where depmod writes them. A softdep's value is blank-separated by design ("pre: a b");
 * only a control character would split its line.
 */
const char *ksc_depmod_value_fault(const char *key, const char *value)
{
	if (ksc_text_has_control(value))
		return "a control character";
	if (strcmp(key, "alias") != 0)
		return NULL;
	if (value[0] == '\0')
		return "empty";
	if (strchr(value, ' '))
		return "a space";
	if (value[0] == '#')
		return "a leading '#'";
	return NULL;
}

bool ksc_depmod_symbol_ok(const char *name)
{
	return !ksc_text_has_control(name) && !strchr(name, ' ');
}

/* depmod's output_deps(): each module and every module it needs, in load order. */
static void output_deps(struct sbuf *b, const struct ksc_depmod_mod *mods, size_t n,
			const int *sort_idx)
{
	unsigned char *mark = calloc(n ? n : 1, 1);
	uint32_t **dp = malloc((n ? n : 1) * sizeof(*dp));
	uint32_t *nd = malloc((n ? n : 1) * sizeof(*nd));

	if (!mark || !dp || !nd) {
		b->oom = 1;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		dp[i] = (uint32_t *)mods[i].deps;
		nd[i] = mods[i].n_deps;
	}
	for (size_t i = 0; i < n && !b->oom; i++) {
		if (mods[i].left_out)
			continue;
		sb_str(b, mods[i].relpath);
		sb_chr(b, ':');
		uint32_t *all = NULL;
		size_t k = mods[i].n_deps ? ksc_depmod_all_deps((uint32_t)i, dp, nd, sort_idx,
								mark, &all)
					  : 0;
		if (k == SIZE_MAX) {
			b->oom = 1;
			break;
		}
		for (size_t j = 0; j < k; j++) {
			if (mods[all[j]].left_out)
				continue;
			sb_chr(b, ' ');
			sb_str(b, mods[all[j]].relpath);
		}
		free(all);
		sb_chr(b, '\n');
	}
out:
	free(mark);
	free(dp);
	free(nd);
}

/* depmod's output_symbols(): in the order of kmod's 2048-bucket hash table. */
static void output_symbols(struct sbuf *b, const struct ksc_depmod_mod *mods,
			   struct ksc_depmod_sym *syms, size_t n_syms)
{
	sb_str(b, "# Aliases for symbols, used by symbol_request().\n");
	for (size_t i = 0; i < n_syms; i++)
		syms[i].bucket = ksc_kmod_hash(syms[i].name, strlen(syms[i].name)) & 2047;
	qsort(syms, n_syms, sizeof(*syms), cmp_sym);
	for (size_t i = 0; i < n_syms; i++) {
		if (mods[syms[i].owner].left_out || !ksc_depmod_symbol_ok(syms[i].name))
			continue;
		sb_str(b, "alias symbol:");
		sb_str(b, syms[i].name);
		sb_chr(b, ' ');
		sb_str(b, mods[syms[i].owner].modname);
		sb_chr(b, '\n');
	}
}

/* depmod's output_aliases() and output_softdeps(): one line per .modinfo entry. */
static void output_modinfo(struct sbuf *b, bool alias, const struct ksc_depmod_mod *mods,
			   size_t n)
{
	sb_str(b, alias ? "# Aliases extracted from modules themselves.\n"
			: "# Soft dependencies extracted from modules themselves.\n");
	for (size_t i = 0; i < n; i++) {
		const struct krec *r = mods[i].rec;
		for (size_t j = 0; r && !mods[i].left_out && j < ksc_krec_kinfo_count(r);
		     j++) {
			const char *v, *k = ksc_krec_kinfo(r, j, &v);
			if (strcmp(k, alias ? "alias" : "softdep") != 0 ||
			    ksc_depmod_value_fault(k, v))
				continue;
			if (alias) {
				sb_str(b, "alias ");
				sb_str(b, v);
				sb_chr(b, ' ');
				sb_str(b, mods[i].modname);
			} else {
				sb_str(b, "softdep ");
				sb_str(b, mods[i].modname);
				sb_chr(b, ' ');
				sb_str(b, v);
			}
			sb_chr(b, '\n');
		}
	}
}

/* A module's devname: alias and its char- or block-major alias; false without both. */
static bool module_devname(const struct krec *r, const char **devname, char *type,
			   unsigned int *major, unsigned int *minor)
{
	*devname = NULL;
	*type = '\0';
	for (size_t j = 0; j < ksc_krec_kinfo_count(r); j++) {
		const char *v, *k = ksc_krec_kinfo(r, j, &v);
		unsigned int maj, min;
		if (strcmp(k, "alias") != 0 || ksc_depmod_value_fault(k, v))
			continue;
		if (strncmp(v, "devname:", 8) == 0) {
			*devname = v + 8;
		} else if (sscanf(v, "char-major-%u-%u", &maj, &min) == 2) {
			*type = 'c';
			*major = maj;
			*minor = min;
		} else if (sscanf(v, "block-major-%u-%u", &maj, &min) == 2) {
			*type = 'b';
			*major = maj;
			*minor = min;
		}
		if (*type != '\0' && *devname)
			break;
	}
	/* depmod: "has devname but lacks major and minor" */
	return *devname && *type != '\0';
}

/* depmod's output_devname(): the header only when some module has a line. */
static void output_devname(struct sbuf *b, const struct ksc_depmod_mod *mods, size_t n)
{
	bool empty = true;

	for (size_t i = 0; i < n; i++) {
		const char *devname;
		char type, line[64];
		unsigned int major = 0, minor = 0;
		if (!mods[i].rec || mods[i].left_out ||
		    !module_devname(mods[i].rec, &devname, &type, &major, &minor))
			continue;
		if (empty) {
			sb_str(b, "# Device nodes to trigger on-demand module loading.\n");
			empty = false;
		}
		sb_str(b, mods[i].modname);
		sb_chr(b, ' ');
		sb_str(b, devname);
		snprintf(line, sizeof(line), " %c%u:%u\n", type, major, minor);
		sb_str(b, line);
	}
}

int ksc_depmod_format(unsigned int what, const struct ksc_depmod_mod *mods, size_t n,
		      const int *sort_idx, struct ksc_depmod_sym *syms, size_t n_syms,
		      char **data, size_t *size)
{
	struct sbuf b = { 0 };

	switch (what) {
	case KSC_DEPMOD_DEP:
		output_deps(&b, mods, n, sort_idx);
		break;
	case KSC_DEPMOD_SYMBOLS:
		output_symbols(&b, mods, syms, n_syms);
		break;
	case KSC_DEPMOD_ALIAS:
	case KSC_DEPMOD_SOFTDEP:
		output_modinfo(&b, what == KSC_DEPMOD_ALIAS, mods, n);
		break;
	case KSC_DEPMOD_DEVNAME:
		output_devname(&b, mods, n);
		break;
	default:
		return -EINVAL;
	}
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	*data = b.p;
	*size = b.n;
	return 0;
}
