/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compat's run state, shared by its files in the report wing: the run and its cells
 * (ksc-compat.c), the types from BTF (ksc-compat-types.c), the replacement hints
 * (ksc-compat-hint.c), the scans of the source and the headers (ksc-compat-scan.c) and
 * the findings (ksc-compat-finding.c). The calls go one way: the cells call the types,
 * the hints and the scans, the hints the in-tree evidence (ksc-compat-intree.c), and
 * those call only down to the findings.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "kernel/kernel.h"
#include "report/report.h"
#include "source/source.h"
#include "util/array.h"

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

/* A kernel's modules by name (modules.dep) and the BTF of those read (name -> btf). */
struct kmods {
	bool read;
	struct hash paths, btfs; /* module name ('_' for '-') -> path; -> btf or &none */
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
	struct ksc_modset **intree;  /* one per kernel: its module set, read when wanted */
	bool *intree_tried;
	struct hash intree_memo;     /* "BASE K SYMBOL" -> the in-tree hint, for the run */
	struct ksc_ctx *quiet;       /* what reading them logs: said by the kernels' opening */
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

/* ksc-compat-finding.c: a string of the run's pool (NULL: out of memory); a finding of
 * the cell, the last of c->findings (0 or -ENOMEM). */
const char *compat_fmt(struct crun *cr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int compat_add_finding(struct crun *cr, struct ksc_compat_cell *cell, const char *code,
			   enum ksc_severity sev, const char *sym, const struct ksc_export *from,
			   const char *from_owner, const struct ksc_export *to, const char *to_owner,
			   const char *summary, const char *fix);

/* ksc-compat-hint.c: the last finding's replacement hint (export `sym` removed in kernel
 * k): replayed from the cell's memo, or found (and recorded). 0 or -ENOMEM. */
int compat_hint(struct crun *cr, size_t k, const char *sym);

/* ksc-compat-intree.c: what the in-tree modules that imported `sym` in the cell's old
 * kernel import instead in kernel k (a string of the run's pool), or NULL: none imported
 * it, or the module folders are not known (cr->oom: out of memory). The kernels' module
 * sets, freed. */
const char *compat_intree_hint(struct crun *cr, size_t k, const char *sym);
void compat_free_intree(struct crun *cr);

/* ksc-compat-types.c: kernel k's BTF, read on first use (NULL: none); the type findings
 * of import `sym` and of the structs module m was built with (0 or -ENOMEM); the BTF of
 * modules a run read, freed. */
struct ksc_compat_btf *compat_kbtf(struct crun *cr, size_t k);
int compat_type_findings(struct crun *cr, struct ksc_compat_cell *cell, const char *sym);
int compat_own_types(struct crun *cr, struct ksc_compat_cell *cell, size_t m);
void compat_free_btfs(struct crun *cr);

/* ksc-compat-scan.c: the names the source uses for each kernel's version (cr->names), and
 * what each kernel's headers define of the imports it does not export (cr->hdefs). 0 or
 * -errno (logged on ctx). */
int compat_scan_sources(struct crun *cr, struct ksc_ctx *ctx);
int compat_scan_headers(struct crun *cr);
