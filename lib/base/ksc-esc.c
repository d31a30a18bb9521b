// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Untrusted text (file and module names, .modinfo values) in the messages the library
 * passes to its log callback: the same visible escapes as the tool's text output
 * (util/esc.c renders both).
 */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "util/esc.h"

char *ksc_esc_alloc(const char *s)
{
	size_t len = esc_render(s, false, NULL, NULL);
	char *out = malloc(len + 1);

	if (!out)
		return NULL;
	esc_render(s, false, out, NULL);
	out[len] = '\0';
	return out;
}

bool ksc_text_has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}
