// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * compat's scans: the names a module's source uses for each kernel's version
 * (lib/source/ksc-src-names.c), and what each kernel's headers define (a macro or an
 * inline function) of the imports it does not export (ksc_src_defines_scan()), kept in
 * the cache for the same headers and names.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/compat-private.h"
#include "util/workpool.h"

/* The arch folder of the modules' machine (e_machine), for arch/ARCH/include. */
static const char *arch_of(const struct crun *cr)
{
	switch (cr->c->n_mods ? ksc_module_get_machine(cr->mods[0]) : EM_X86_64) {
	case EM_386:
	case EM_X86_64:
		return "x86";
	case EM_AARCH64:
		return "arm64";
	case EM_ARM:
		return "arm";
	case EM_S390:
		return "s390";
	case EM_PPC:
	case EM_PPC64:
		return "powerpc";
	case EM_RISCV:
		return "riscv";
	default:
		return "x86";
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
 * of the same scan (the identity of the folders and their files, `idents`, and the names
 * wanted): thousands of header files are not read again for the same module.
 */
static int defines_memo(struct crun *cr, const char *const *dirs, const char *const *idents,
			const struct hash *wanted, struct ksc_src_names *out)
{
	struct ksc_compat_memo m = { 0 };
	struct {
		char *s;
		size_t n, cap;
	} all = { 0 };
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
	const char *ids[] = { dirs[0], dirs[1], idents[0], idents[1], all.s ? all.s : "" };
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

/* One kernel's header scan: the names looked for, its two folders and their identity. */
struct hscan {
	struct hash wanted;
	char dirs[2][PATH_MAX];
	char ident[2][17];
};

/* workpool_fn: the identity of folder `item` % 2 of kernel `item` / 2 (those wanted). */
static int ident_one(struct workpool *wp, unsigned int worker, void *item)
{
	struct hscan *h = (struct hscan *)wp->data + *(size_t *)item / 2;
	size_t d = *(size_t *)item % 2;

	(void)worker;
	if (h->wanted.count && h->dirs[d][0])
		ksc_compat_tree_identity(h->dirs[d], h->ident[d]);
	return 0;
}

/* The identities of every header folder to scan, a thread per folder (as many as CPUs):
 * stat()ing each header of four kernels costs more than the rest of a warm run's scan. */
static int identities(struct hscan *hs, size_t n)
{
	struct workpool wp;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t want = 0;

	for (size_t k = 0; k < n; k++)
		want += hs[k].wanted.count ? 2 : 0;
	workpool_init_range(&wp, 2 * n, ident_one, hs);
	unsigned int started = want > 1 && cpus > 1
			       ? workpool_start(&wp, (unsigned int)(want - 1 < (size_t)cpus - 1
								    ? want - 1 : (size_t)cpus - 1))
			       : 0;
	workpool_work(&wp, started);
	int r = workpool_join(&wp);
	workpool_fini(&wp);
	return r;
}

/* What each kernel's headers define of the imports it does not export. */
int compat_scan_headers(struct crun *cr)
{
	struct ksc_compat *c = cr->c;
	struct hscan *hs = calloc(c->n_kernels, sizeof(*hs));
	int r = 0;

	cr->hdefs = calloc(c->n_kernels, sizeof(*cr->hdefs));
	if (!cr->hdefs || !hs) {
		free(hs);
		return -ENOMEM;
	}
	for (size_t k = 0; r == 0 && k < c->n_kernels; k++) {
		struct hscan *h = &hs[k];
		hash_init(&h->wanted);
		ksc_src_names_init(&cr->hdefs[k]);
		r = missing_imports(cr, k, &h->wanted);
		if (r == 0 && cr->o->headers[k] && h->wanted.count) {
			snprintf(h->dirs[0], sizeof(h->dirs[0]), "%s/include", cr->o->headers[k]);
			snprintf(h->dirs[1], sizeof(h->dirs[1]), "%s/arch/%s/include",
				 cr->o->headers[k], arch_of(cr));
		}
	}
	if (r == 0 && cr->o->cache_dir)
		r = identities(hs, c->n_kernels);
	for (size_t k = 0; r == 0 && k < c->n_kernels; k++) {
		struct hscan *h = &hs[k];
		if (!h->dirs[0][0])
			continue;
		ksc_src_names_fini(&cr->hdefs[k]);
		r = defines_memo(cr, (const char *const[]){ h->dirs[0], h->dirs[1] },
				 (const char *const[]){ h->ident[0], h->ident[1] }, &h->wanted,
				 &cr->hdefs[k]);
		c->hdr_files[k] = cr->hdefs[k].n_files;
	}
	for (size_t k = 0; k < c->n_kernels; k++)
		hash_fini(&hs[k].wanted);
	free(hs);
	return r;
}

/* The names the source uses for each kernel's version. */
int compat_scan_sources(struct crun *cr, struct ksc_ctx *ctx)
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
