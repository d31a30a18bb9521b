// SPDX-License-Identifier: LGPL-2.1-or-later
/* The library context: configuration and the log channel shared by every object. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static void log_stderr(void *data, int priority, const char *msg)
{
	fprintf(stderr, "libksymcheck: %s\n", msg);
}

KSC_EXPORT struct ksc_ctx *ksc_new(void)
{
	struct ksc_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->refcount = 1;
	ctx->log_fn = log_stderr;
	ctx->log_priority = KSC_LOG_ERR;
	return ctx;
}

KSC_DEFINE_REF(ksc_ref, struct ksc_ctx)

KSC_EXPORT struct ksc_ctx *ksc_unref(struct ksc_ctx *ctx)
{
	if (!ctx || --ctx->refcount > 0)
		return NULL;
	free(ctx);
	return NULL;
}

KSC_EXPORT void ksc_set_log_fn(struct ksc_ctx *ctx, ksc_log_fn fn, void *data)
{
	ctx->log_fn = fn;
	ctx->log_data = data;
}

KSC_EXPORT void ksc_set_log_priority(struct ksc_ctx *ctx, int priority)
{
	ctx->log_priority = priority;
}

KSC_EXPORT int ksc_get_log_priority(const struct ksc_ctx *ctx)
{
	return ctx->log_priority;
}

void ksc_mark_cut(char *buf, size_t size, size_t len)
{
	char mark[64];
	int m = snprintf(mark, sizeof(mark), " [... cut: %zu of %zu bytes shown]",
			 size - 1, len);

	if (m <= 0 || (size_t)m >= size)
		return;
	size_t at = size - 1 - (size_t)m;
	/* Not in the middle of a UTF-8 sequence: back to the start of a character. */
	while (at > 0 && ((unsigned char)buf[at] & 0xc0) == 0x80)
		at--;
	memcpy(buf + at, mark, (size_t)m + 1);
}

/* Does the message need escaping: a control or a byte outside ASCII? */
static bool msg_raw(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			return true;
	return false;
}

/*
 * Messages name untrusted files, modules and .modinfo values: the callback sees them
 * escaped (ksc_esc_alloc()), so that no name can end a line, move the cursor or recolour
 * a terminal. Our own words are plain ASCII. At most 1 KiB, a longer one cut with a mark.
 */
void ksc_log(struct ksc_ctx *ctx, int priority, const char *fmt, ...)
{
	char buf[1024], *full = NULL, *esc = NULL;
	const char *msg = buf;
	va_list ap;

	if (!ctx || !ctx->log_fn || priority > ctx->log_priority)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf)) {
		va_start(ap, fmt);
		if (vasprintf(&full, fmt, ap) < 0)
			full = NULL;
		va_end(ap);
		if (full)
			msg = full;
	}
	if (msg_raw(msg) && (esc = ksc_esc_alloc(msg)) != NULL)
		msg = esc;
	size_t len = strlen(msg);
	if (msg != buf)
		memcpy(buf, msg, len < sizeof(buf) ? len + 1 : sizeof(buf));
	if (len >= sizeof(buf) || n >= (int)sizeof(buf))
		ksc_mark_cut(buf, sizeof(buf), len >= sizeof(buf) ? len : (size_t)n);
	free(full);
	free(esc);
	ctx->log_fn(ctx->log_data, priority, buf);
}

void ksc_log_again(struct ksc_ctx *ctx, int priority, const char *msg)
{
	if (ctx && ctx->log_fn && priority <= ctx->log_priority)
		ctx->log_fn(ctx->log_data, priority, msg);
}

void ksc_log_like(struct ksc_ctx *to, const struct ksc_ctx *from)
{
	to->log_fn = from->log_fn;
	to->log_data = from->log_data;
	to->log_priority = from->log_priority;
}

KSC_EXPORT const char *ksc_get_features(void)
{
	return "+XZ +ZSTD +ZLIB +LIBCRYPTO";
}

const char *ksc_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}
