/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/*
 * A chunked string arena: strings copied in stay at a fixed address until pool_fini().
 * Lets a parsed module drop its file buffer and ELF handle while keeping every name.
 */
struct pool_chunk;

struct pool {
	struct pool_chunk *head;
};

void pool_init(struct pool *p);
void pool_fini(struct pool *p);
/* Copy `len` bytes and a NUL; NULL on ENOMEM. */
const char *pool_strndup(struct pool *p, const char *s, size_t len);
const char *pool_strdup(struct pool *p, const char *s);
