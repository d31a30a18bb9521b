// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The small rules every verdict rests on, each as the kernel states it (doc/rules.md
 * R7-R9, R14): kernel versions, GPL-compatible licenses, and the
 * 6.16+ module-restricted namespaces with their pattern lists.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"

KSC_EXPORT int ksc_kver_parse(const char *s, struct ksc_kver *v)
{
	unsigned long part[3] = { 0, 0, 0 };
	int n = 0;

	if (!s)
		return -EINVAL;
	while (n < 3) {
		char *end;
		if (!isdigit((unsigned char)*s))
			break;
		part[n] = strtoul(s, &end, 10);
		if (part[n] > 65535)
			return -EINVAL;
		n++;
		s = end;
		if (*s != '.')
			break;
		s++;
	}
	if (n < 2)
		return -EINVAL;
	v->major = (unsigned int)part[0];
	v->minor = (unsigned int)part[1];
	v->patch = (unsigned int)part[2];
	return 0;
}

KSC_EXPORT int ksc_kver_cmp(const struct ksc_kver *v, unsigned int major, unsigned int minor,
			    unsigned int patch)
{
	if (v->major != major)
		return v->major < major ? -1 : 1;
	if (v->minor != minor)
		return v->minor < minor ? -1 : 1;
	if (v->patch != patch)
		return v->patch < patch ? -1 : 1;
	return 0;
}

/* R14: include/linux/license.h, unchanged for many years; exact, case-sensitive. */
KSC_EXPORT bool ksc_license_is_gpl_compatible(const char *license)
{
	static const char *const ok[] = {
		"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL", "Dual MIT/GPL",
		"Dual MPL/GPL",
	};

	if (!license)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		if (strcmp(license, ok[i]) == 0)
			return true;
	return false;
}

#define MODNS_PREFIX "module:"

/* R7: kernel/module/main.c and modpost.c verify_module_namespace(): exact prefix. */
KSC_EXPORT bool ksc_namespace_is_module_restricted(const char *ns)
{
	return ns && strncmp(ns, MODNS_PREFIX, strlen(MODNS_PREFIX)) == 0;
}

/* R9, loader: mod_strncmp() compares '-' and '_' as equal, over at most n bytes. */
static bool loader_prefix_eq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];
		if (x != y)
			return false;
		if (!x)
			return true; /* both ended */
	}
	return true;
}

/*
 * R8: split at every ',', keep empty items; an item ending in '*' is a tail glob matching
 * every name that starts with the item minus that '*'; other items match exactly (same
 * length, equal bytes). No trimming, case-sensitive.
 */
KSC_EXPORT bool ksc_namespace_matches_module(const char *ns, const char *name,
					     enum ksc_match how)
{
	if (!ksc_namespace_is_module_restricted(ns) || !name)
		return false;
	const char *p = ns + strlen(MODNS_PREFIX);
	size_t namelen = strlen(name);

	for (;;) {
		size_t len = strcspn(p, ",");
		bool glob = len > 0 && p[len - 1] == '*';
		size_t plen = glob ? len - 1 : len;
		if (len > 0 && (glob ? namelen >= plen : namelen == plen)) {
			bool eq = how == KSC_MATCH_LOADER ? loader_prefix_eq(p, name, plen)
							  : strncmp(p, name, plen) == 0;
			if (eq)
				return true;
		}
		if (p[len] != ',')
			return false;
		p += len + 1;
	}
}

KSC_EXPORT const char *ksc_errno_name(int err)
{
	switch (err < 0 ? -err : err) {
	case 0: return "OK";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ENOEXEC: return "ENOEXEC";
	case ENOMEM: return "ENOMEM";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case EINVAL: return "EINVAL";
	case EKEYREJECTED: return "EKEYREJECTED";
	case ENOKEY: return "ENOKEY";
	case EBADMSG: return "EBADMSG";
	}
	return "E?";
}
