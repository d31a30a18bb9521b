// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The unified diff of a source file's edits (srcedit-private.h).
 *
 * The diff is written here rather than by a library or by running diff(1): the edits are
 * few and local and we know exactly which bytes change, so grouping the changed lines
 * with three lines of context is a page of code, while GNU diffutils has no library and a
 * generic LCS diff would only rediscover what the edit list already says.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/srcedit-private.h"
#include "util/array.h"

struct lines {
	const char *d;
	size_t n;
	size_t *start;  /* start offset of each line; start[count] = n */
	size_t count;
};

static int lines_split(struct lines *l, const char *d, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (d[i] == '\n')
			c++;
	if (n && d[n - 1] != '\n')
		c++;
	l->d = d;
	l->n = n;
	l->count = c;
	l->start = malloc((c + 1) * sizeof(*l->start));
	if (!l->start)
		return -ENOMEM;
	size_t k = 0;
	if (n)
		l->start[k++] = 0;
	for (size_t i = 0; i < n; i++)
		if (d[i] == '\n' && i + 1 < n)
			l->start[k++] = i + 1;
	l->start[c] = n;
	return 0;
}

/* The index of the line holding offset `off` (count when off == n). */
static size_t line_of(const struct lines *l, size_t off)
{
	size_t lo = 0, hi = l->count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (l->start[mid + 1] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool line_eq(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	size_t la = a->start[i + 1] - a->start[i], lb = b->start[j + 1] - b->start[j];

	return la == lb && memcmp(a->d + a->start[i], b->d + b->start[j], la) == 0;
}

static void put_line(FILE *f, char mark, const struct lines *l, size_t i)
{
	size_t s = l->start[i], e = l->start[i + 1];

	fputc(mark, f);
	fwrite(l->d + s, 1, e - s, f);
	if (e == s || l->d[e - 1] != '\n')
		fputs("\n\\ No newline at end of file\n", f);
}

/* A run of changed lines: old [o0, o1) became new [n0, n1). */
struct change {
	size_t o0, o1, n0, n1;
};

/*
 * "--- a/PATH" or "+++ b/PATH" (an absolute PATH without a/ b/). A name with a space, a
 * control character, '"', '\\' or a byte above 0x7f is quoted as git quotes it
 * ("a/x\tb", octal for the rest), which GNU patch and git apply both read.
 */
static void diff_label(FILE *f, const char *prefix, const char *path)
{
	const char *ab = prefix[0] == '-' ? "a/" : "b/";
	bool quote = false;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (path[0] == '/')
		ab = "";
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '\\')
			quote = true;
	if (!quote) {
		fprintf(f, "%s %s%s\n", prefix, ab, path);
		return;
	}
	fprintf(f, "%s \"%s", prefix, ab);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < ' ' || *p >= 0x7f)
			fprintf(f, "\\%03o", *p);
		else
			fputc(*p, f);
	}
	fputs("\"\n", f);
}

KSC_EXPORT int ksc_srcedit_write_diff(const struct ksc_srcedit *e, FILE *f)
{
	return ksc_srcedit_write_diff_as(e, NULL, f);
}

/*
 * The changes the edits make, in old and new lines, into ch (room for one per edit);
 * their number. Each edit touches whole old lines [o0, o1); the same lines in the new
 * text are found through the running difference in length. Edits on neighbouring lines
 * are merged; then unchanged lines at both ends of each change are given back to the
 * context, so an inserted line shows as one '+' line.
 */
static size_t diff_changes(const struct ksc_srcedit *e, const struct lines *ol,
			   const struct lines *nl, size_t rsize, struct change *ch)
{
	long long delta = 0, ldelta = 0;
	size_t nch = 0;

	for (size_t i = 0; i < e->n_edits; i++) {
		const struct edit *x = &e->edits[i];
		size_t o0 = line_of(ol, x->off);
		size_t last = x->len ? x->off + x->len - 1 : x->off;
		size_t o1 = x->off == e->size ? ol->count : line_of(ol, last) + 1;
		if (o0 > ol->count)
			o0 = ol->count;
		if (o1 < o0)
			o1 = o0;
		/* whole lines inserted before a line: no old line changes */
		size_t tl = strlen(x->text);
		if (!x->len && o0 < ol->count && ol->start[o0] == x->off && tl &&
		    x->text[tl - 1] == '\n')
			o1 = o0;
		if (x->off == e->size && e->size && e->data[e->size - 1] != '\n' && o0 > 0)
			o0--; /* appending to a last line without newline changes it */
		if (nch && o0 <= ch[nch - 1].o1) {
			if (o1 > ch[nch - 1].o1)
				ch[nch - 1].o1 = o1;
		} else {
			ch[nch++] = (struct change){ o0, o1, 0, 0 };
		}
		delta += (long long)strlen(x->text) - (long long)x->len;
		/* the new end of this change, by bytes */
		size_t old_end = ch[nch - 1].o1 < ol->count ? ol->start[ch[nch - 1].o1] : e->size;
		size_t new_end = (size_t)((long long)old_end + delta);
		ch[nch - 1].n1 = new_end >= rsize ? nl->count : line_of(nl, new_end);
	}
	/* new starts: lines before a change are unchanged, so they map one to one */
	for (size_t i = 0; i < nch; i++) {
		ch[i].n0 = (size_t)((long long)ch[i].o0 + ldelta);
		ldelta += (long long)(ch[i].n1 - ch[i].n0) - (long long)(ch[i].o1 - ch[i].o0);
		while (ch[i].o0 < ch[i].o1 && ch[i].n0 < ch[i].n1 &&
		       line_eq(ol, ch[i].o0, nl, ch[i].n0)) {
			ch[i].o0++;
			ch[i].n0++;
		}
		while (ch[i].o1 > ch[i].o0 && ch[i].n1 > ch[i].n0 &&
		       line_eq(ol, ch[i].o1 - 1, nl, ch[i].n1 - 1)) {
			ch[i].o1--;
			ch[i].n1--;
		}
	}
	return nch;
}

/* The hunks of changes ch[0..nch), with three lines of context. */
static void diff_hunks(FILE *f, const struct change *ch, size_t nch, const struct lines *ol,
		       const struct lines *nl)
{
	const size_t C = 3;

	for (size_t i = 0; i < nch;) {
		if (ch[i].o0 == ch[i].o1 && ch[i].n0 == ch[i].n1) {
			i++;
			continue;
		}
		size_t j = i;
		while (j + 1 < nch && ch[j + 1].o0 <= ch[j].o1 + 2 * C)
			j++;
		size_t hs = ch[i].o0 > C ? ch[i].o0 - C : 0;
		size_t he = ch[j].o1 + C < ol->count ? ch[j].o1 + C : ol->count;
		size_t nhs = ch[i].n0 - (ch[i].o0 - hs);
		size_t nhe = ch[j].n1 + (he - ch[j].o1);
		size_t olen = he - hs, nlen = nhe - nhs;
		fprintf(f, "@@ -%zu", olen ? hs + 1 : hs);
		if (olen != 1)
			fprintf(f, ",%zu", olen);
		fprintf(f, " +%zu", nlen ? nhs + 1 : nhs);
		if (nlen != 1)
			fprintf(f, ",%zu", nlen);
		fputs(" @@\n", f);
		size_t o = hs;
		for (size_t k = i; k <= j; k++) {
			for (; o < ch[k].o0; o++)
				put_line(f, ' ', ol, o);
			for (size_t x = ch[k].o0; x < ch[k].o1; x++)
				put_line(f, '-', ol, x);
			for (size_t x = ch[k].n0; x < ch[k].n1; x++)
				put_line(f, '+', nl, x);
			o = ch[k].o1;
		}
		for (; o < he; o++)
			put_line(f, ' ', ol, o);
		i = j + 1;
	}
}

KSC_EXPORT int ksc_srcedit_write_diff_as(const struct ksc_srcedit *e, const char *name,
					 FILE *f)
{
	struct lines ol = { 0 }, nl = { 0 };
	struct change *ch = NULL;
	char *res = NULL;
	size_t rsize;
	int r;

	if (!e || !f || (name && !name[0]))
		return -EINVAL;
	if (!e->n_edits)
		return 0;
	r = ksc_srcedit_get_result(e, &res, &rsize);
	if (r < 0)
		return r;
	if (lines_split(&ol, e->data, e->size) < 0 || lines_split(&nl, res, rsize) < 0 ||
	    !(ch = calloc(e->n_edits, sizeof(*ch)))) {
		r = -ENOMEM;
		goto out;
	}
	size_t nch = diff_changes(e, &ol, &nl, rsize, ch);
	diff_label(f, "---", name ? name : e->path);
	diff_label(f, "+++", name ? name : e->path);
	diff_hunks(f, ch, nch, &ol, &nl);
	r = ferror(f) ? -EIO : 0;
out:
	free(ol.start);
	free(nl.start);
	free(ch);
	free(res);
	return r;
}
