// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: the Module.symvers reader and writer. Parses arbitrary bytes, formats
 * every entry, writes the table in each layout and reads the result back: what the writer
 * produced must read back to the same entries.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_entry(const struct ksc_symvers_entry *a,
		       const struct ksc_symvers_entry *b, bool with_ns)
{
	return streq(a->symbol, b->symbol) && streq(a->module, b->module) &&
	       streq(a->type, b->type) && a->gpl_only == b->gpl_only &&
	       a->crc == b->crc && (!with_ns || streq(a->ns, b->ns));
}

/* Can a Module.symvers line hold the field (no control character; only ns may be empty)?
 * The writer refuses an entry whose field it cannot hold, never writing a forged line. */
static bool holdable(const char *s, bool may_be_empty)
{
	if (!may_be_empty && !*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static bool writable(const struct ksc_symvers_entry *e)
{
	return holdable(e->symbol, false) && holdable(e->module, false) &&
	       holdable(e->ns ? e->ns : "", true);
}

static bool looks_like_type(const char *s)
{
	return strncmp(s, "EXPORT_", 7) == 0;
}

/* Write `sv` in `fmt` to memory, read it back, compare. */
static void round_trip(struct ksc_ctx *ctx, const struct ksc_symvers *sv,
		       enum ksc_symvers_format fmt)
{
	size_t n = ksc_symvers_get_count(sv), len = 0;
	struct ksc_symvers *back;
	char *buf = NULL;
	FILE *f;

	/*
	 * In the 5.4 layout a module column that itself reads EXPORT_... looks like the
	 * type column of the 5.6 layout: the layouts are ambiguous there, skip.
	 */
	for (size_t i = 0; fmt == KSC_SYMVERS_5_NS3 && i < n; i++)
		if (looks_like_type(ksc_symvers_get(sv, i)->module))
			return;
	for (size_t i = 0; i < n; i++) /* the writer refuses such a table whole (tested below) */
		if (!writable(ksc_symvers_get(sv, i)))
			return;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	if (ksc_symvers_write(sv, fmt, f) != 0)
		abort();
	if (fclose(f) != 0)
		abort();
	if (ksc_symvers_new_from_memory(ctx, "back", buf, len, &back) == 0) {
		/* A symbol listed twice is an error of its own (reported, both entries
		 * kept), so the copy has those again, and no other */
		if (ksc_symvers_get_count(back) != n ||
		    ksc_symvers_get_error_count(back) > ksc_symvers_get_error_count(sv))
			abort();
		for (size_t i = 0; i < n; i++) {
			if (!same_entry(ksc_symvers_get(sv, i), ksc_symvers_get(back, i),
					fmt != KSC_SYMVERS_4))
				abort();
		}
		ksc_symvers_unref(back);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksc_ctx *ctx;
	struct ksc_symvers *sv, *copy;
	char *text;

	if (!ctx) {
		ctx = ksc_new();
		if (!ctx)
			return 0;
		ksc_set_log_fn(ctx, NULL, NULL);
	}
	/* An exact-size heap copy, not NUL-terminated, so any overread is caught. */
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	if (ksc_symvers_new_from_memory(ctx, "fuzz", text, size, &sv) < 0) {
		free(text);
		return 0;
	}
	free(text);

	if (ksc_symvers_new(ctx, &copy) < 0)
		abort();
	for (size_t i = 0; i < ksc_symvers_get_count(sv); i++) {
		const struct ksc_symvers_entry *e = ksc_symvers_get(sv, i);
		const struct ksc_symvers_entry *first = ksc_symvers_find(sv, e->symbol);

		if (!first || !streq(first->symbol, e->symbol) || first > e)
			abort();
		for (int fmt = KSC_SYMVERS_5; fmt <= KSC_SYMVERS_4; fmt++) {
			int n = ksc_symvers_format_entry(e, fmt, NULL, 0);
			char *line;

			if (n == -EINVAL && !writable(e))
				continue; /* refused, not forged */
			if (n <= 0 || !writable(e))
				abort();
			line = malloc((size_t)n + 1);
			if (!line)
				continue;
			if (ksc_symvers_format_entry(e, fmt, line, (size_t)n + 1) != n ||
			    strlen(line) != (size_t)n || line[n - 1] != '\n')
				abort();
			free(line);
		}
		if (ksc_symvers_add(copy, e) != 0)
			abort();
	}
	for (int fmt = KSC_SYMVERS_5; fmt <= KSC_SYMVERS_4; fmt++)
		round_trip(ctx, sv, fmt);

	/* A stream that fills up: the error must come back, nothing may break. */
	{
		char small[128];
		FILE *f = fmemopen(small, sizeof(small), "w");

		if (f) {
			(void)ksc_symvers_write(copy, ksc_symvers_get_format(sv), f);
			fclose(f);
		}
	}
	ksc_symvers_unref(copy);
	ksc_symvers_unref(sv);
	return 0;
}
