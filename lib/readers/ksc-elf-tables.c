// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The module reader (ksc-elf.c), its tables of a module: .modinfo, struct module's name,
 * __versions and the extended versions, the imports, the parameters (__param), and a
 * kernel image's own release and vermagic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "readers/ksc-elf.h"
#include "util/array.h"

/* ---------------------------------------------------------------------------------- */
/* .modinfo, struct module, __versions                                                */

int  ksc_elf_parse_modinfo(struct reader *r)
{
	struct sec *s = ksc_elf_find_sec(r, ".modinfo");

	if (!s || !s->bytes)
		return 0;
	return ksc_modinfo_parse(r->mod, (const char *)s->bytes, s->sh.sh_size);
}

void  ksc_elf_parse_this_module(struct reader *r)
{
	struct sec *s = ksc_elf_find_sec(r, ".gnu.linkonce.this_module");
	size_t off = r->cls == 64 ? 24 : 12;
	size_t len = r->cls == 64 ? 56 : 60;

	if (!s || !s->bytes || s->sh.sh_size < off + len)
		return;
	const char *name = (const char *)s->bytes + off;
	size_t n = strnlen(name, len);
	if (n == len) {
		ksc_warn(r->ctx, "%s: struct module name is not NUL-terminated", r->path);
		return;
	}
	r->f.struct_name = ksc_module_strndup(r->mod, name, n);
}

int  ksc_elf_parse_versions(struct reader *r)
{
	struct ksc_module *mod = r->mod;
	struct sec *s = ksc_elf_find_sec(r, "__versions");
	int ret;

	if (s) {
		if (!s->bytes) {
			ksc_err(r->ctx, "%s: __versions has no contents", r->path);
			return -EINVAL;
		}
		if (s->sh.sh_size % MODVERSION_RECORD) {
			ksc_err(r->ctx, "%s: __versions size %llu is not a multiple of %d", r->path,
				(unsigned long long)s->sh.sh_size, MODVERSION_RECORD);
			return -EINVAL;
		}
		size_t n = s->sh.sh_size / MODVERSION_RECORD, psz = (size_t)r->cls / 8;
		r->f.has_versions = true;
		ret = ksc_module_reserve(mod, KSC_MODULE_VERSIONS, n);
		for (size_t i = 0; ret >= 0 && i < n; i++) {
			const unsigned char *e = s->bytes + i * MODVERSION_RECORD;
			const char *name = (const char *)e + psz;
			size_t len = strnlen(name, MODVERSION_RECORD - psz);
			const char *kept = ksc_module_strndup(mod, name, len);
			ret = kept ? ksc_module_add_version(mod, false, kept, rdptr(r, e)) : -ENOMEM;
		}
		if (ret < 0)
			return ret;
	}

	/* 6.14+ extended tables (kernel/module/version.c); both or neither. */
	struct sec *crcs = ksc_elf_find_sec(r, "__version_ext_crcs");
	struct sec *names = ksc_elf_find_sec(r, "__version_ext_names");
	if (!crcs && !names)
		return 0;
	if (!crcs || !names || !crcs->bytes || !names->bytes) {
		ksc_err(r->ctx, "%s: extended version crc+name presence does not match", r->path);
		return -EINVAL;
	}
	if (crcs->sh.sh_size % 4) {
		ksc_err(r->ctx, "%s: __version_ext_crcs size %llu is not a multiple of 4", r->path,
			(unsigned long long)crcs->sh.sh_size);
		return -EINVAL;
	}
	size_t n = crcs->sh.sh_size / 4;
	const char *p = (const char *)names->bytes, *end = p + names->sh.sh_size;
	ret = ksc_module_reserve(mod, KSC_MODULE_EXT_VERSIONS, n);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < n; i++) {
		const char *nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
		if (!nul) {
			ksc_err(r->ctx, "%s: more extended version crcs than names", r->path);
			return -EINVAL;
		}
		const char *kept = ksc_module_strndup(mod, p, (size_t)(nul - p));
		ret = kept ? ksc_module_add_version(mod, true, kept, rd32(r, crcs->bytes + 4 * i))
			   : -ENOMEM;
		if (ret < 0)
			return ret;
		p = nul + 1;
	}
	r->f.has_ext_versions = true;
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Imports                                                                            */

int  ksc_elf_parse_imports(struct reader *r)
{
	struct ksc_module *mod = r->mod;
	size_t n_versions = ksc_module_get_version_count(mod);
	size_t n_ext = ksc_module_get_ext_version_count(mod);
	struct hash vers, ext;
	int ret = 0;

	hash_init(&vers);
	hash_init(&ext);
	/* First entry of a name wins, as the loader's linear search finds it first. */
	bool vers_dup = false;
	for (size_t i = 0; i < n_versions && ret >= 0; i++) {
		const struct ksc_version *v = ksc_module_get_version(mod, i);
		ret = hash_add(&vers, v->name, (void *)v, 1);
		vers_dup |= ret == 1;
	}
	for (size_t i = 0; i < n_ext && ret >= 0; i++) {
		const struct ksc_version *v = ksc_module_get_ext_version(mod, i);
		ret = hash_add(&ext, v->name, (void *)v, 1);
	}
	if (ret < 0)
		goto out;

	size_t n = 0;
	for (size_t i = 1; i < r->n_syms; i++)
		if (r->syms[i].st_shndx == SHN_UNDEF && r->sym_names[i][0])
			n++;
	ret = ksc_module_reserve(mod, KSC_MODULE_IMPORTS, n);
	for (size_t i = 1, k = 0; ret >= 0 && i < r->n_syms; i++) {
		const Elf64_Sym *sym = &r->syms[i];
		if (sym->st_shndx != SHN_UNDEF || !r->sym_names[i][0])
			continue;
		struct ksc_import imp = { .name = ksc_module_strdup(mod, r->sym_names[i]) };
		if (!imp.name) {
			ret = -ENOMEM;
			break;
		}
		imp.bind = ELF64_ST_BIND(sym->st_info) == STB_WEAK ? KSC_BIND_WEAK : KSC_BIND_GLOBAL;
		/*
		 * modpost writes __versions in the order of the undefined symbols of the .o;
		 * linking the .ko reorders .symtab, so entry k names import k for about one
		 * import in six (Debian 6.1). When it does, and no name is twice in
		 * __versions, it is the one entry of that name: no lookup.
		 */
		const struct ksc_version *v = !vers_dup && k < n_versions ? ksc_module_get_version(mod, k) : NULL;
		if (!v || strcmp(v->name, imp.name) != 0)
			v = hash_find(&vers, imp.name);
		if (v) {
			imp.has_crc = true;
			imp.crc = (uint32_t)v->crc;
			imp.crc_truncated = v->crc > UINT32_MAX;
		}
		v = hash_find(&ext, imp.name);
		if (v) {
			imp.has_ext_crc = true;
			imp.ext_crc = (uint32_t)v->crc;
		}
		ret = ksc_module_add_import(mod, &imp);
		k++;
	}
	ret = ret < 0 ? ret : 0;
out:
	hash_fini(&vers);
	hash_fini(&ext);
	return ret;
}

/* ---------------------------------------------------------------------------------- */
/* A kernel image's identity                                                          */

/* The NUL-terminated string that starts at p, if it ends inside [p, end). */
static size_t str_in(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *z = memchr(p, '\0', (size_t)(end - p));
	return z ? (size_t)(z - p) : (size_t)-1;
}

/*
 * A VERMAGIC_STRING (include/linux/vermagic.h): the release, a space, then words such as
 * "SMP", "preempt", "mod_unload", "modversions", each followed by a space.
 */
static bool looks_like_vermagic(const unsigned char *s, size_t n, size_t rel_len)
{
	if (n <= rel_len + 1 || s[rel_len] != ' ' || s[n - 1] != ' ')
		return false;
	for (size_t i = rel_len + 1; i < n; i++)
		if (!(s[i] == ' ' || s[i] == '_' || s[i] == '-' || s[i] == '.' ||
		      (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

/*
 * The release and vermagic of a kernel image, from its .rodata: linux_banner ("Linux
 * version RELEASE (...") names the release; the loader's vermagic[] (kernel/module/
 * main.c, VERMAGIC_STRING) is the NUL-terminated string that starts with the release and
 * a space and ends with a space. Either may be missing (a stripped or odd image): then
 * the caller has no release or vermagic from the image.
 */
int  ksc_elf_parse_image_identity(struct reader *r)
{
	static const char banner[] = "Linux version ";
	struct sec *ro = ksc_elf_find_sec(r, ".rodata");

	if (!ro || !ro->bytes)
		return 0;
	const unsigned char *p = ro->bytes, *end = p + ro->sh.sh_size;
	const unsigned char *b = memmem(p, (size_t)(end - p), banner, sizeof(banner) - 1);
	if (!b)
		return 0;
	const unsigned char *rel = b + sizeof(banner) - 1;
	size_t rl = 0;
	while (rel + rl < end && rel[rl] > ' ' && rel[rl] < 0x7f)
		rl++;
	if (rl == 0 || rl >= 65 || rel + rl >= end || rel[rl] != ' ')
		return 0;
	const char *release = ksc_module_strndup(r->mod, (const char *)rel, rl);
	if (!release)
		return -ENOMEM;
	ksc_module_set_image_strings(r->mod, release, NULL);
	for (const unsigned char *q = p; q < end;) {
		const unsigned char *m = memmem(q, (size_t)(end - q), rel, rl);
		if (!m)
			break;
		q = m + 1;
		if (m > p && m[-1] != '\0')
			continue;
		size_t n = str_in(m, end);
		if (n == (size_t)-1 || !looks_like_vermagic(m, n, rl))
			continue;
		const char *vermagic = ksc_module_strndup(r->mod, (const char *)m, n);
		if (!vermagic)
			return -ENOMEM;
		ksc_module_set_image_strings(r->mod, release, vermagic);
		return 0;
	}
	return 0;
}

/*
 * __param: struct kernel_param (include/linux/moduleparam.h) is {name, mod, ops, perm (u16),
 * level, flags, arg} since 4.2 (mod added), {name, ops, perm, level, flags, arg} before:
 * pointers, then perm. Which one is known by the relocation of entry 0's second field
 * (mod points to __this_module). The name is a relocated pointer to a string. Only what
 * the sysfs attributes need (R42); a table that cannot be read gives no parameters.
 */
int  ksc_elf_parse_params(struct reader *r)
{
	struct sec *s = ksc_elf_find_sec(r, "__param");
	size_t ps = r->cls == 64 ? 8 : 4, entsize, n;
	const struct rel *mrel;
	size_t si;
	uint64_t off;
	int ret;

	if (!s || !s->bytes || !s->sh.sh_size)
		return 0;
	ret = ksc_elf_load_relocs(r, s);
	if (ret < 0)
		return ret == -ENOMEM ? ret : 0;
	mrel = ksc_elf_find_rel(s, ps);
	bool with_mod = mrel && mrel->sym < r->n_syms && r->sym_names[mrel->sym] &&
			strcmp(r->sym_names[mrel->sym], "__this_module") == 0;
	/* name, [mod,] ops, then u16 perm, s8 level, u8 flags, padded to a pointer, arg */
	entsize = (with_mod ? 3 : 2) * ps + ps + ps;
	if (s->sh.sh_size % entsize)
		return 0;
	n = s->sh.sh_size / entsize;
	ret = ksc_module_reserve(r->mod, KSC_MODULE_PARAMS, n);
	for (size_t i = 0; ret >= 0 && i < n; i++) {
		uint64_t base = i * entsize;
		const struct rel *nrel = ksc_elf_find_rel(s, base);
		const char *name = nrel && ksc_elf_rel_target(r, nrel, &si, &off)
					   ? ksc_elf_sec_string(&r->secs[si], off) : NULL;
		if (!name)
			continue;
		const char *kept = ksc_module_strdup(r->mod, name);
		ret = kept ? ksc_module_add_param(r->mod, kept,
						  rd16(r, s->bytes + base + (with_mod ? 3 : 2) * ps))
			   : -ENOMEM;
	}
	return ret < 0 ? ret : 0;
}

