/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libksymcheck, the base wing: the context: log callback, references.
 * Include <ksymcheck.h>, which includes every part in order; its first comment states
 * the conventions that hold for every declaration here.
 */
#ifndef KSYMCHECK_BASE_H
#define KSYMCHECK_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------- */
/* Context                                                                            */

struct ksc_ctx;

enum ksc_log_priority {
	KSC_LOG_ERR = 3,
	KSC_LOG_WARNING = 4,
	KSC_LOG_INFO = 6,
	KSC_LOG_DEBUG = 7,
};

/*
 * Log callback. `msg` is one complete message without a trailing newline, normally
 * "<path>: <reason>". Called synchronously from the library function that hit the problem.
 */
typedef void (*ksc_log_fn)(void *data, int priority, const char *msg);

/*
 * Create a context, with one reference for the caller (ksc_unref()); objects made with it
 * hold their own, so it may be unref'd before them. Returns NULL only when out of memory.
 * _ref: one more reference, returns ctx. _unref: drops one, returns NULL.
 */
struct ksc_ctx *ksc_new(void);
struct ksc_ctx *ksc_ref(struct ksc_ctx *ctx);
struct ksc_ctx *ksc_unref(struct ksc_ctx *ctx);
/*
 * Replace the log function (fn NULL: discard every message). `data` is passed to fn as
 * is; the ctx does not own it. Cannot fail.
 */
void ksc_set_log_fn(struct ksc_ctx *ctx, ksc_log_fn fn, void *data);
/*
 * Messages with a priority numerically above `priority` are dropped (default KSC_LOG_ERR).
 * Cannot fail; _get returns the current value.
 */
void ksc_set_log_priority(struct ksc_ctx *ctx, int priority);
int ksc_get_log_priority(const struct ksc_ctx *ctx);

/* Compiled-in features, e.g. "+XZ +ZSTD +ZLIB +LIBCRYPTO". Static string. */
const char *ksc_get_features(void);

#ifdef __cplusplus
}
#endif

#endif /* KSYMCHECK_BASE_H */
