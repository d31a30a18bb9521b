// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A check report's strings and findings, shared by the two views
 * (lib/engine/ksc-loader.c, lib/engine/ksc-modpost.c), the run (lib/engine/ksc-check.c)
 * and lib/engine/ksc-build.c (the in-tree-only rule, R40).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "util/array.h"

const char *sfmt(struct ksc_report *r, const char *fmt, ...)
{
	char *s;
	va_list ap;
	const char *out = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0) {
		out = pool_strdup(&r->strings, s);
		free(s);
	}
	va_end(ap);
	if (!out)
		r->oom = 1;
	return out;
}

const char *sdup(struct ksc_report *r, const char *s)
{
	const char *out;

	if (!s)
		return NULL;
	out = pool_strdup(&r->strings, s);
	if (!out)
		r->oom = 1;
	return out;
}

struct ksc_diag *diag_new(struct ksc_report *r, enum ksc_view view, enum ksc_severity sev,
			  const char *code, size_t index, const char *module, const char *symbol)
{
	if (array_reserve(r->diags, r->cap_diags, r->n_diags + 1, 64) < 0) {
		r->oom = 1;
		return NULL;
	}
	struct ksc_diag *d = &r->diags[r->n_diags++];
	memset(d, 0, sizeof(*d));
	d->view = view;
	d->severity = sev;
	d->code = code;
	const struct ksc_code *c = ksc_code_lookup(code, view);
	d->rule = c ? c->rule : NULL;
	d->module_index = index;
	d->module = sdup(r, module);
	d->symbol = sdup(r, symbol);
	return d;
}

struct ksc_diag *finding_new(struct ksc_report *r, enum ksc_view view, enum ksc_severity sev,
			     const char *code, size_t index, const char *module,
			     const char *symbol, const struct finding *f)
{
	struct ksc_diag *d = diag_new(r, view, sev, code, index, module, symbol);

	if (!d)
		return NULL;
	d->summary = f->summary;
	d->kernel_lines = sdup(r, f->lines);
	d->explanation = f->explanation;
	d->fix = f->fix;
	d->ns = sdup(r, f->ns);
	d->owner = sdup(r, f->owner);
	d->err = f->err;
	return d;
}

void diag_line(struct ksc_report *r, struct ksc_diag *d, const char *fmt, ...)
{
	char *s;
	va_list ap;

	if (!d)
		return;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		r->oom = 1;
		return;
	}
	d->kernel_lines = d->kernel_lines ? sfmt(r, "%s\n%s", d->kernel_lines, s) : sdup(r, s);
	free(s);
}
