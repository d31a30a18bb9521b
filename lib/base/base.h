/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The base wing (doc/architecture.md): the library context, with its log callback and
 * references, and the library's logging, whose messages are escaped before the callback
 * sees them. It sits on util/ and below every other wing of lib/; it knows no kernel.
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/macro.h"
#include "util/hash.h"
#include "util/pool.h"
#include "util/fileio.h"

#include "ksymcheck.h"

#define KSC_EXPORT __attribute__((visibility("default")))

/*
 * The public pair of getters of an array member, as ksymcheck.h's convention says once:
 * count_fn(o) is o->n, get_fn(o, i) is &o->array[i], or NULL when i is out of range.
 */
#define KSC_DEFINE_INDEXED_GETTERS(count_fn, get_fn, obj_type, elem_type, array, n)      \
	KSC_EXPORT size_t count_fn(const obj_type *o)                                    \
	{                                                                                \
		return o->n;                                                             \
	}                                                                                \
	KSC_EXPORT const elem_type *get_fn(const obj_type *o, size_t i)                  \
	{                                                                                \
		return i < o->n ? &o->array[i] : NULL;                                   \
	}

/*
 * The public _ref() of a reference-counted type, as ksymcheck.h's convention says once:
 * one more reference, the argument returned, NULL accepted.
 */
#define KSC_DEFINE_REF(fn, type)                                                        \
	KSC_EXPORT type *fn(type *o)                                                     \
	{                                                                                \
		if (o)                                                                   \
			o->refcount++;                                                   \
		return o;                                                                \
	}

/* ---- ctx (ksc-ctx.c) ---- */
struct ksc_ctx {
	int refcount;
	ksc_log_fn log_fn;
	void *log_data;
	int log_priority;
};

void ksc_log(struct ksc_ctx *ctx, int priority, const char *fmt, ...) _printf_format_(3, 4);
#define ksc_err(ctx, ...) ksc_log((ctx), KSC_LOG_ERR, __VA_ARGS__)
#define ksc_warn(ctx, ...) ksc_log((ctx), KSC_LOG_WARNING, __VA_ARGS__)
#define ksc_info(ctx, ...) ksc_log((ctx), KSC_LOG_INFO, __VA_ARGS__)
#define ksc_dbg(ctx, ...) ksc_log((ctx), KSC_LOG_DEBUG, __VA_ARGS__)
/*
 * A message another context's log function was given (escaped and cut already), said
 * through ctx's log function as it is, when its priority passes: what was held back and
 * stands after all.
 */
void ksc_log_again(struct ksc_ctx *ctx, int priority, const char *msg);
/* `to` logs where `from` logs: the same log function, data and priority. */
void ksc_log_like(struct ksc_ctx *to, const struct ksc_ctx *from);

/*
 * s with every C0 control, DEL, C1 control and byte that is not valid UTF-8 as "\xHH"
 * and the characters that reorder or break lines as "\uHHHH", as the tool's text output
 * escapes untrusted text (ksc-esc.c); malloc'd, NULL when out of memory. ksc_log()
 * escapes every message this way before the log callback sees it.
 */
char *ksc_esc_alloc(const char *s);
/* Does s hold a C0 control (newline, tab, carriage return, ESC, ...) or DEL? */
bool ksc_text_has_control(const char *s);


/* Helpers shared by readers. */
const char *ksc_basename(const char *path);
/*
 * A message of `len` bytes was cut to fit buf[size]: end it with a visible mark
 * (" [... cut: 1023 of 1500 bytes shown]"), not inside a UTF-8 character.
 */
void ksc_mark_cut(char *buf, size_t size, size_t len);
