// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * compat's findings: the strings of a run and the findings of its cells, added by the
 * cells (ksc-compat.c), the types (ksc-compat-types.c) and the hints (ksc-compat-hint.c).
 * It calls none of them: the files of compat call one way, down to this one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "report/compat-private.h"

const char *compat_fmt(struct crun *cr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return pool_strdup(&cr->c->strings, buf);
}

int compat_add_finding(struct crun *cr, struct ksc_compat_cell *cell, const char *code,
		       enum ksc_severity sev, const char *sym,
		       const struct ksc_export *from, const char *from_owner,
		       const struct ksc_export *to, const char *to_owner,
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
