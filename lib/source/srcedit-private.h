/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal to the source wing: the edit object (struct ksc_srcedit), shared by its three
 * files: ksc-srcedit.c (the object, its edits and the atomic replacement of the file),
 * ksc-srcedit-diff.c (the unified diff of the edits) and ksc-srcedit-plan.c (the planners
 * that make edits: migrate to a kernel version, add MODULE_IMPORT_NS lines). The diff and
 * the planners use the object, never the other way round.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "source/source.h"

/* One edit: [off, off + len) of the content read becomes text. */
struct edit {
	size_t off, len;
	const char *text;
	size_t seq;            /* order of insertion, for insertions at one offset */
};

/* A file's content read once, and its edits sorted by offset (insertion order at one). */
struct ksc_srcedit {
	struct ksc_ctx *ctx;
	struct pool strings;
	const char *path;
	char *data;
	size_t size;
	bool from_file;
	struct stat st;        /* identity when read */
	uint64_t hash;
	struct edit *edits;
	size_t n_edits, cap_edits, seq;
	struct ksc_srcedit_note *notes;
	size_t n_notes, cap_notes;
};
