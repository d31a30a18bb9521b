// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading a module or a kernel image into struct ksc_module: the ELF layer (ksc-elf.c)
 * opens the image, then what kind of file it is, and its tables (ksc-elf-tables.c,
 * ksc-elf-exports.c). The files of the reader call one way: this one calls the tables
 * and the layer, the tables call the layer. The module is ksc-module.c's: the reader
 * keeps the facts it reads in its own copy (struct reader's f), set back once at the
 * end, and fills each table through ksc_module_reserve() and the adders, its strings
 * copied into the module first (the image is freed once the read returns).
 */
#include <errno.h>
#include <stdlib.h>

#include "readers/ksc-elf.h"

static int classify_file(struct reader *r)
{
	bool has_exports = false, has_modinfo = false;

	has_exports = ksc_elf_find_sec(r, "__ksymtab") || ksc_elf_find_sec(r, "__ksymtab_gpl") ||
		      ksc_elf_find_sec(r, "__ksymtab_strings");
	has_modinfo = ksc_elf_find_sec(r, ".modinfo") || ksc_elf_find_sec(r, ".gnu.linkonce.this_module");
	switch (r->type) {
	case ET_REL:
		if (!has_modinfo && !has_exports) {
			ksc_err(r->ctx, "%s: not a kernel module (no .modinfo or .gnu.linkonce.this_module section)",
				r->path);
			return -ENOEXEC;
		}
		r->f.kind = KSC_KIND_MODULE;
		return 0;
	case ET_EXEC:
	case ET_DYN:
		if (!has_exports) {
			ksc_err(r->ctx, "%s: not a kernel image or module (ELF executable without export tables)",
				r->path);
			return -ENOEXEC;
		}
		r->f.kind = KSC_KIND_VMLINUX;
		return 0;
	}
	ksc_err(r->ctx, "%s: not a kernel image or module (ELF type %u)", r->path, r->type);
	return -ENOEXEC;
}

static int record_sections(struct reader *r)
{
	int ret = ksc_module_reserve(r->mod, KSC_MODULE_SECTIONS, r->n_secs);

	for (size_t i = 1; ret >= 0 && i < r->n_secs; i++) {
		const char *n = ksc_module_strdup(r->mod, r->secs[i].name);
		if (!n)
			return -ENOMEM;
		ret = ksc_module_add_section(r->mod, n);
		int id = ksc_elf_section_id(n);
		if (id >= 0)
			r->f.sections |= 1u << id;
	}
	return ret;
}

int ksc_elf_parse_module(struct ksc_module *mod, const struct ksc_blob *b)
{
	struct reader r = {
		.ctx = ksc_module_get_ctx(mod),
		.mod = mod,
		.f = *ksc_module_get_facts(mod),
		.img = b->data,
	};
	size_t sig;
	int ret;

	r.path = r.f.path;
	r.size = ksc_signature_strip(b->data, b->size, &sig);
	r.f.sig_size = sig;
	r.f.size = b->size;
	ret = ksc_elf_check_ident(&r);
	if (ret < 0)
		goto out;
	r.machine = r.v.machine;
	r.type = (unsigned int)elfview_ehdr(&r.v, e_type);
	r.f.elf_class = r.cls;
	r.f.big_endian = r.be;
	r.f.machine = r.machine;
	if (!ksc_elf_machine_is_linux(r.machine)) {
		ksc_err(r.ctx, "%s: ELF machine %u is not a Linux architecture", r.path, r.machine);
		ret = -EOPNOTSUPP;
		goto out;
	}
	ret = ksc_elf_load_sections(&r);
	if (ret < 0)
		goto out;
	ret = classify_file(&r);
	if (ret < 0)
		goto out;
	ret = record_sections(&r);
	if (ret < 0)
		goto out;
	ret = ksc_elf_load_symbols(&r);
	if (ret < 0)
		goto out;
	if (r.f.kind == KSC_KIND_MODULE) {
		ret = ksc_elf_parse_modinfo(&r);
		if (ret < 0)
			goto out;
		ksc_elf_parse_this_module(&r);
		ret = ksc_elf_parse_versions(&r);
		if (ret < 0)
			goto out;
		ret = ksc_elf_parse_imports(&r);
		if (ret < 0)
			goto out;
	}
	ret = ksc_elf_parse_exports(&r);
	if (ret >= 0 && r.f.kind == KSC_KIND_MODULE)
		ret = ksc_elf_parse_params(&r);
	if (ret >= 0 && r.f.kind == KSC_KIND_VMLINUX)
		ret = ksc_elf_parse_image_identity(&r);
out:
	ksc_module_set_facts(mod, &r.f);
	ksc_elf_reader_fini(&r);
	if (ret == -ENOMEM)
		ksc_err(r.ctx, "%s: out of memory", r.path);
	return ret;
}
