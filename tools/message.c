// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Everything the tool writes to standard error, in one place: "ksymcheck: PATH: reason"
 * and its warning/note forms, usage errors, the library's log, and the plain text that
 * has no prefix (the usage without a command, the progress bar, tree's timing).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/ksc-tool.h"

const char *program_name = "ksymcheck";

bool use_colour(FILE *f)
{
	const char *no_colour = getenv("NO_COLOR");
	const char *term = getenv("TERM");

	if (no_colour && no_colour[0])
		return false;
	if (!term || strcmp(term, "dumb") == 0)
		return false;
	return isatty(fileno(f)) == 1;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	bool colour = use_colour(stderr);
	va_list ap;

	fprintf(stderr, "%s%s:%s ", colour ? COLOUR_BOLD : "", program_name,
		colour ? COLOUR_OFF : "");
	if (colour)
		fputs(COLOUR_RED, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (colour)
		fputs(COLOUR_OFF, stderr);
	fprintf(stderr, "\nTry '%s%s%s --help'.\n", program_name, cmd ? " " : "", cmd ? cmd : "");
	return KSC_EXIT_USAGE;
}

static void vmessage(const char *level, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", program_name, level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void print_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void print_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

void print_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("note: ", fmt, ap);
	va_end(ap);
}

void print_log(void *data, int priority, const char *msg)
{
	static const char *const level[] = {
		[KSC_LOG_WARNING] = "warning: ", [KSC_LOG_INFO] = "info: ", [KSC_LOG_DEBUG] = "debug: ",
	};

	(void)data;
	print_error("%s%s",
		    priority > KSC_LOG_ERR && priority <= KSC_LOG_DEBUG && level[priority] ?
			    level[priority] : "",
		    msg);
}

int print_plain(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vfprintf(stderr, fmt, ap);
	va_end(ap);
	return n;
}

/* ---- the progress bar ---- */

void draw_bar(void *data, const char *phase, size_t done, size_t total)
{
	struct progress_bar *b = data;

	if (!b || !b->on || !total)
		return;
	size_t w = 40, fill = done * w / total;
	if (done != total && fill == b->last && b->phase == phase)
		return;
	b->last = fill;
	b->phase = phase;
	fprintf(stderr, "\r%-7s [", phase);
	for (size_t i = 0; i < w; i++)
		fputc(i < fill ? '#' : ' ', stderr);
	fprintf(stderr, "] %zu/%zu\033[K", done, total);
	fflush(stderr);
}

void clear_bar(struct progress_bar *b)
{
	if (b && b->on && b->phase) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		b->phase = NULL;
	}
}
