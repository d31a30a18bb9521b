// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bounded ELF view (elfview.h): identification and the header fields every reader
 * of section headers needs.
 */
#include "elfview.h"

bool elfview_open(struct elfview *v, const unsigned char *m, uint64_t size)
{
	*v = (struct elfview){ .m = m, .size = size };
	if (size < EI_NIDENT || memcmp(m, ELFMAG, SELFMAG) != 0)
		return false;
	if (m[EI_CLASS] == ELFCLASS32)
		v->c64 = false;
	else if (m[EI_CLASS] == ELFCLASS64)
		v->c64 = true;
	else
		return false;
	if (m[EI_DATA] == ELFDATA2LSB)
		v->msb = false;
	else if (m[EI_DATA] == ELFDATA2MSB)
		v->msb = true;
	else
		return false;
	elfview_read_header(v);
	return true;
}

void elfview_read_header(struct elfview *v)
{
	v->machine = (unsigned int)elfview_ehdr(v, e_machine);
	v->shoff = elfview_ehdr(v, e_shoff);
	v->shentsize = (unsigned int)elfview_ehdr(v, e_shentsize);
	v->shnum = (unsigned int)elfview_ehdr(v, e_shnum);
	v->shstrndx = (unsigned int)elfview_ehdr(v, e_shstrndx);
}
