/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal: the check report and its findings (lib/engine/ksc-report.c), built by lib/engine/ksc-check.c
 * and lib/engine/ksc-build.c (the in-tree-only rule, R40). Strings returned are owned by the
 * report; on allocation failure they are NULL and the report remembers it (-ENOMEM).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "kernel/kernel.h"

struct ksc_report {
	struct ksc_ctx *ctx;
	struct pool strings;
	struct ksc_features pol; /* the rules of this version (kernel/ksc-features.c) */
	struct ksc_diag *diags;
	size_t n_diags, cap_diags;
	struct ksc_module_verdict *verdicts;
	size_t n_verdicts;
	int oom;
};

#define sfmt ksc_report_sfmt
#define sdup ksc_report_sdup
#define diag_new ksc_report_diag_new
#define diag_line ksc_report_diag_line

const char *sfmt(struct ksc_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *sdup(struct ksc_report *r, const char *s);
/* A new finding; its rule is the one the catalogue gives `code` in this view. */
struct ksc_diag *diag_new(struct ksc_report *r, enum ksc_view view, enum ksc_severity sev,
			  const char *code, size_t index, const char *module,
			  const char *symbol);
/*
 * What a finding says besides its code; every field may be left out. `lines` is what the
 * kernel prints ('\n' between lines); ns and owner are copied, the other strings must
 * live as long as the report (literals, sfmt()).
 */
struct finding {
	const char *summary, *lines, *explanation, *fix, *ns, *owner;
	int err;
};
#define finding_new ksc_report_finding_new
/* A finding in one call: diag_new() and the fields of `f`. NULL on allocation failure. */
struct ksc_diag *finding_new(struct ksc_report *r, enum ksc_view view, enum ksc_severity sev,
			     const char *code, size_t index, const char *module,
			     const char *symbol, const struct finding *f);
/* Append one printed line to a diag's kernel_lines (nothing when d is NULL). */
void diag_line(struct ksc_report *r, struct ksc_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* lib/engine/ksc-build.c: R40 */
bool ksc_build_is_external(enum ksc_build build, const struct ksc_module *mod);
int ksc_intree_loader_refusal(struct ksc_report *r, bool allow, size_t idx,
			      const char *name, const char *sym, const char *ns,
			      const char *owner, struct ksc_diag **d_out);
bool ksc_intree_modpost_refusal(struct ksc_report *r, bool allow, bool mod_log,
				const struct ksc_module *mod, size_t idx, const char *path,
				const char *sym, const char *ns, const char *owner);
void ksc_intree_views_differ(struct ksc_report *r, enum ksc_build build,
			     const struct ksc_module *mod, size_t idx, const char *sym,
			     const char *ns);
