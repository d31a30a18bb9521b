// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: the source scanner (lib/source/ksc-src.c) and the planners on top of it
 * (lib/source/ksc-srcedit-plan.c). The first byte picks the language (C, .S, Makefile) and a target
 * kernel version; the rest is the file, in an exact-size heap copy so that any read past
 * the end is caught. Checked: every record lies inside the file and comes in file order
 * with sane lines; the migration of a file needs nothing more when planned again on its
 * result (idempotence); planned imports are added once; diffs and results can be made.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = { "fuzz.c", "fuzz.S", "Makefile", "fuzz.h" };
static const char *const versions[] = { "5.3", "6.1", "6.12", "6.13", "6.16", "6.17", "6.19",
					"7.1" };

static void check_records(const struct ksc_src *src, size_t size)
{
	size_t prev_off = 0;
	unsigned prev_line = 1;

	for (size_t i = 0; i < ksc_src_get_record_count(src); i++) {
		const struct ksc_src_record *r = ksc_src_get_record(src, i);

		if (!r->path || !r->macro || r->line < 1 || r->column < 1)
			abort();
		if (r->offset > r->end || r->end > size || r->ns_offset > r->ns_end ||
		    r->ns_end > size)
			abort();
		if (r->ns_end && (r->ns_offset < r->offset || r->ns_end > r->end))
			abort();
		/* file order; a mention may start before its keyword (ACPI_...) */
		if (r->kind != KSC_SRC_MENTION && r->offset < prev_off)
			abort();
		if (r->line < prev_line && r->kind != KSC_SRC_MENTION)
			abort();
		switch (r->kind) {
		case KSC_SRC_EXPORT:
			if (!r->symbol || !r->ns ||
			    !ksc_src_is_identifier(r->symbol, strlen(r->symbol)))
				abort();
			break;
		case KSC_SRC_IMPORT_NS:
		case KSC_SRC_DEFAULT_NS:
			if (!r->ns)
				abort();
			break;
		case KSC_SRC_LICENSE:
			if (!r->license)
				abort();
			break;
		case KSC_SRC_MENTION:
			if (r->mention == KSC_SRC_MENTION_NONE)
				abort();
			break;
		default:
			abort();
		}
		if (r->kind != KSC_SRC_MENTION) {
			prev_off = r->offset;
			prev_line = r->line;
		}
	}
}

static void diff_and_result(const struct ksc_srcedit *e)
{
	char *buf = NULL, *res = NULL;
	size_t len = 0, rlen = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f) {
		if (ksc_srcedit_write_diff(e, f) != 0)
			abort();
		fclose(f);
		if (ksc_srcedit_get_edit_count(e) ? (len < 8 || memcmp(buf, "--- ", 4) != 0) : len != 0)
			abort();
		free(buf);
	}
	if (ksc_srcedit_get_result(e, &res, &rlen) == 0) {
		if (strlen(res) > rlen)
			abort();
		free(res);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksc_ctx *ctx;
	struct ksc_src_opts o = { .sz = sizeof(o), .flags = KSC_SRC_MENTIONS };
	struct ksc_src *src;
	struct ksc_srcedit *e;
	char *text;

	if (!ctx) {
		ctx = ksc_new();
		if (!ctx)
			return 0;
		ksc_set_log_fn(ctx, NULL, NULL);
	}
	if (size < 1)
		return 0;
	const char *name = names[data[0] & 3];
	const char *kver = versions[(data[0] >> 2) & 7];
	data++;
	size--;
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);

	if (ksc_src_new(ctx, &o, &src) == 0) {
		if (ksc_src_add_memory(src, name, text, size) == 1)
			check_records(src, size);
		ksc_src_unref(src);
	}

	/* Migration: what it plans is applied; planned again on the result, nothing. */
	if (ksc_srcedit_new_from_memory(ctx, name, text, size, &e) == 0) {
		if (ksc_srcedit_plan_migrate(e, kver) >= 0) {
			char *res = NULL;
			size_t rlen = 0;
			diff_and_result(e);
			if (ksc_srcedit_get_result(e, &res, &rlen) == 0) {
				struct ksc_srcedit *again;
				if (ksc_srcedit_new_from_memory(ctx, name, res, rlen,
								&again) == 0) {
					if (ksc_srcedit_plan_migrate(again, kver) != 0)
						abort();
					ksc_srcedit_free(again);
				}
				free(res);
			}
		}
		ksc_srcedit_free(e);
	}

	/* nsdeps: imports are added once, and never a module: namespace. */
	static const char *const ns[] = { "FX_CORE", "module:kvm", "A-B", "DMA_BUF", "" };
	if (ksc_srcedit_new_from_memory(ctx, name, text, size, &e) == 0) {
		int n = ksc_srcedit_plan_imports(e, kver, ns, 5);
		if (n > 3)
			abort();
		if (n > 0) {
			char *res = NULL;
			size_t rlen = 0;
			diff_and_result(e);
			if (ksc_srcedit_get_result(e, &res, &rlen) == 0) {
				if (strstr(res, "MODULE_IMPORT_NS(\"module:") && !memmem(text, size, "module:", 7))
					abort();
				struct ksc_srcedit *again;
				if (ksc_srcedit_new_from_memory(ctx, name, res, rlen,
								&again) == 0) {
					if (ksc_srcedit_plan_imports(again, kver, ns,
								     5) != 0)
						abort();
					ksc_srcedit_free(again);
				}
				free(res);
			}
		}
		ksc_srcedit_free(e);
	}
	free(text);
	return 0;
}
