// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A facts record's contents handed out as values (modset.h): what the tree reads of a
 * module's record (its kind, its problem, the messages reading it logged, kmod's view of
 * its exports) and of its summary (struct krec_sum), without knowing their layout. kmod's
 * .modinfo and dependency symbols are in ksc-modset-record.c, where they are derived.
 */
#include <errno.h>
#include <string.h>

#include "modset/modset.h"

enum ksc_module_kind ksc_krec_kind(const struct krec *r)
{
	return (enum ksc_module_kind)r->kind;
}

uint64_t ksc_krec_checksum(const struct krec *r)
{
	return ksc_hash64(r, r->size, KREC_HASH_SEED);
}

size_t ksc_krec_msg_count(const struct krec *r)
{
	return r->msgs.n;
}

const char *ksc_krec_msg(const struct krec *r, size_t i, int *priority)
{
	const struct krec_msg *msg = krec_arr(r, r->msgs);

	*priority = (int)msg[i].priority;
	return krec_str(r, msg[i].text);
}

int ksc_krec_problem(const struct krec *r, const char *path, const char **why)
{
	bool image = r->kind == KSC_KIND_VMLINUX;
	const struct krec_msg *msg = krec_arr(r, r->msgs);

	*why = NULL;
	if ((r->flags & KREC_F_ENGINE) && !image)
		return 0;
	if (image) {
		*why = "not a module (a kernel image)";
		return r->err ? r->err : -ENOEXEC;
	}
	for (size_t j = 0; j < r->msgs.n && !*why; j++)
		if (msg[j].priority <= KSC_LOG_ERR)
			*why = krec_str(r, msg[j].text);
	size_t pl = strlen(path);
	if (*why && strncmp(*why, path, pl) == 0 && strncmp(*why + pl, ": ", 2) == 0)
		*why += pl + 2;
	return r->err ? r->err : -EINVAL;
}

size_t ksc_krec_kexport_count(const struct krec *r)
{
	return r->kexports.n;
}

const char *ksc_krec_kexport(const struct krec *r, size_t i, uint64_t *crc)
{
	const struct krec_crc *c = krec_arr(r, r->kexports);

	if (crc)
		*crc = (uint64_t)c[i].crc_hi << 32 | c[i].crc_lo;
	return krec_str(r, c[i].name);
}

bool ksc_krec_sum_is_module(const struct krec_sum *s)
{
	return (s->flags & KREC_F_ENGINE) && s->kind == KSC_KIND_MODULE;
}

size_t ksc_krec_sum_msg_count(const struct krec_sum *s)
{
	return s->n_msgs;
}

bool ksc_krec_sum_racy(const struct krec_sum *s)
{
	return s->mtime_ns == KREC_RACY;
}

uint64_t ksc_krec_sum_hash(const struct krec_sum *s, enum krec_hash h)
{
	switch (h) {
	case KREC_H_FACTS:
		return s->facts_hash;
	case KREC_H_KEXP:
		return s->kexp_hash;
	case KREC_H_KMOD:
		return s->kmod_hash;
	case KREC_H_PROV:
		return s->prov_hash;
	}
	return 0;
}
