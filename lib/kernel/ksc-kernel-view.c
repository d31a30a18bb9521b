// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel as the wings above read it: its providers (struct kprov) and owners
 * (struct kowner) through functions, so that the engine and the reports never reach
 * into struct ksc_kernel, which the kernel wing is free to change (kmod keeps its
 * kmod_ctx the same way). Each function is one read: the loader asks them per import.
 */
#include "kernel/kernel.h"

size_t ksc_kernel_prov_count(const struct ksc_kernel *k)
{
	return k->n_provs;
}

const struct kprov *ksc_kernel_prov(const struct ksc_kernel *k, size_t i)
{
	return &k->provs[i];
}

const struct ksc_export *ksc_kprov_export(const struct kprov *p)
{
	return &p->exp;
}

const struct kowner *ksc_kprov_owner(const struct kprov *p)
{
	return p->owner;
}

const char *ksc_kprov_owner_name(const struct kprov *p)
{
	return p->owner ? p->owner->name : "vmlinux";
}

size_t ksc_kernel_owner_count(const struct ksc_kernel *k)
{
	return k->n_owners;
}

const struct kowner *ksc_kernel_owner(const struct ksc_kernel *k, size_t i)
{
	return k->owners[i];
}

const struct kowner *ksc_kernel_find_owner(const struct ksc_kernel *k, const char *name)
{
	return hash_find(&k->owner_index, name);
}

const char *ksc_kowner_name(const struct kowner *o)
{
	return o->name;
}

struct ksc_module *ksc_kowner_module(const struct kowner *o)
{
	return o->module;
}

bool ksc_kowner_is_proprietary(const struct kowner *o)
{
	return o->proprietary;
}

const char *ksc_kowner_cycle(const struct kowner *o)
{
	return o->cycle;
}

const char *ksc_kowner_replaced(const struct kowner *o, const char **relpath,
				const char **won_by)
{
	if (relpath)
		*relpath = o->relpath;
	if (won_by)
		*won_by = o->won_by;
	return o->replaced;
}
