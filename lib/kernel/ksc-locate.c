// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel locator: which files of a root make up one kernel release. Every command
 * that takes a kernel root goes through here, so that one root always gives one answer.
 *
 * Layouts met in practice (doc/kernels.md):
 * - Debian 6.1 and 6.12: boot/{vmlinuz,config,System.map}-KVER, lib/modules/KVER, its
 *   `build` an absolute link to /usr/src/linux-headers-KVER (Module.symvers, .config);
 *   6.1's boot/System.map-KVER is a placeholder (ksc-sysmap.c refuses it).
 * - Debian 7.x (usrmerged): usr/lib/modules/KVER/{vmlinuz,config,System.map}, no boot/
 *   files, no lib link in an unpacked package; build/vmlinux is a BTF-only ELF (no code,
 *   no export tables), which is skipped.
 * - A kernel tree installed by `make modules_install INSTALL_MOD_PATH=ROOT`:
 *   lib/modules/KVER with `build` pointing to the tree (vmlinux, Module.symvers, .config).
 *
 * Absolute symbolic links are resolved inside the root first, as the root's own system
 * would see them (an unpacked package's build link means the headers unpacked beside it,
 * not the machine's /usr/src); only what is found nowhere inside the root is looked up as
 * the machine resolves the path, for roots made of links to folders elsewhere.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernel/kernel.h"
#include "util/array.h"
#include "util/elfview.h"
#include "util/fileio.h"

struct ksc_kernel_location {
	int refcount;
	struct ksc_ctx *ctx;
	char *root;    /* "" for the machine's own root, else without a trailing '/' */
	char *release;
	char *paths[KSC_KFILE_COUNT];
};

/* The folders below ROOT that hold modules/KVER, in search order. */
static const char *const module_bases[] = { "lib/modules", "usr/lib/modules" };

/*
 * Pass 0: `rel` resolved inside the root. Pass 1, only for what pass 0 did not find: the
 * path as the machine resolves it (a root made of links to folders elsewhere, which
 * cannot be followed inside it). 0 and out, or -errno.
 */
static int locate_path(const char *root, const char *rel, int pass, char *out, size_t outsz)
{
	struct stat st;

	if (pass == 0)
		return ksc_resolve_in_root(root, rel, out, outsz);
	if ((size_t)snprintf(out, outsz, "%s/%s", root, rel) >= outsz)
		return -ENAMETOOLONG;
	return stat(out, &st) == 0 ? 0 : -errno;
}

static bool is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * The name of section i from the section-name table (SHT_STRTAB, in the image), or NULL
 * when its offset or terminating NUL lies outside that table.
 */
static const char *section_name(const struct elfview *v, uint64_t names, unsigned int i)
{
	uint64_t off = elfview_shdr(v, names, sh_offset);
	uint64_t size = elfview_shdr(v, names, sh_size), at = elfview_shdr(v, i, sh_name);

	if (elfview_shdr(v, names, sh_type) != SHT_STRTAB || off > v->size ||
	    size > v->size - off || at >= size)
		return NULL;
	const char *s = (const char *)v->m + off + at;
	return memchr(s, '\0', (size_t)(size - at)) ? s : NULL;
}

/*
 * Does the ELF image hold sections, one of them .BTF and none executable? The section
 * count and the name table's index in section 0 when they do not fit the header
 * (SHN_XINDEX), as elf_getshdrnum() and elf_getshdrstrndx() read them.
 */
static bool btf_only(const struct elfview *v)
{
	bool code = false, btf = false;
	uint64_t shnum = v->shnum, names = v->shstrndx;

	if (v->size < elfview_ehdr_size(v) || v->shentsize != elfview_shdr_size(v) ||
	    v->shoff == 0 || v->shoff > v->size)
		return false;
	if (shnum == 0)
		shnum = elfview_shdr(v, 0, sh_size);
	if (names == SHN_XINDEX)
		names = elfview_shdr(v, 0, sh_link);
	if (shnum > (v->size - v->shoff) / v->shentsize || names >= shnum)
		return false;
	for (unsigned int i = 1; i < shnum; i++) {
		const char *name = section_name(v, names, i);
		code |= (elfview_shdr(v, i, sh_flags) & SHF_EXECINSTR) != 0;
		btf |= name && strcmp(name, ".BTF") == 0;
	}
	return btf && !code;
}

/*
 * An ELF image that holds no code: the BTF-only vmlinux that Debian's headers ship for
 * building BPF programs (.BTF, .BTF_ids, .symtab; no executable section, no export
 * tables). Only the section headers and their names are looked at, in a mapping of the
 * file (util/elfview.h). Anything that is not such an ELF file (a bzImage, a compressed
 * file) is not BTF-only.
 */
bool ksc_image_is_btf_only(const char *path)
{
	struct stat st;
	struct elfview v;
	bool ret = false;
	int fd = ksc_open_read(AT_FDCWD, path, 0, &st);

	if (fd < 0)
		return false;
	if (st.st_size < EI_NIDENT || (uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return false;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return false;
	if (elfview_open(&v, m, (uint64_t)st.st_size))
		ret = btf_only(&v);
	munmap(m, (size_t)st.st_size);
	return ret;
}

/* The first of the candidates (each a printf format taking the release) that resolves
 * to a regular file inside the root, else as the machine resolves it; NULL when none. */
static char *first_file(const struct ksc_kernel_location *loc, const char *const *cands,
			size_t n, bool skip_btf_only)
{
	char rel[PATH_MAX], p[PATH_MAX];

	for (size_t k = 0; k < 2 * n; k++) {
		size_t i = k % n;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		if ((size_t)snprintf(rel, sizeof(rel), cands[i], loc->release, loc->release) >=
		    sizeof(rel))
			continue;
#pragma GCC diagnostic pop
		if (locate_path(loc->root, rel, (int)(k / n), p, sizeof(p)) < 0 || !is_regular(p))
			continue;
		if (skip_btf_only && ksc_image_is_btf_only(p)) {
			ksc_dbg(loc->ctx, "%s: a BTF-only image, skipped", p);
			continue;
		}
		return strdup(p);
	}
	return NULL;
}

/*
 * Where each kind of file is looked for, in order ("%1$s" is the release; MOD stands for
 * each of module_bases[]). doc/kernels.md lists the same order.
 */
static const char *const cand_vmlinux[] = {
	"lib/modules/%1$s/vmlinux", "usr/lib/modules/%1$s/vmlinux", "boot/vmlinux-%1$s",
	"usr/lib/debug/boot/vmlinux-%1$s", "usr/lib/debug/lib/modules/%1$s/vmlinux",
	"lib/modules/%1$s/build/vmlinux", "usr/lib/modules/%1$s/build/vmlinux",
};
static const char *const cand_vmlinuz[] = {
	"lib/modules/%1$s/vmlinuz", "usr/lib/modules/%1$s/vmlinuz", "boot/vmlinuz-%1$s",
};
static const char *const cand_symvers[] = {
	"lib/modules/%1$s/build/Module.symvers", "usr/lib/modules/%1$s/build/Module.symvers",
	"usr/src/linux-headers-%1$s/Module.symvers",
};
static const char *const cand_sysmap[] = {
	"lib/modules/%1$s/System.map", "usr/lib/modules/%1$s/System.map",
	"boot/System.map-%1$s",
};
static const char *const cand_config[] = {
	"lib/modules/%1$s/config", "usr/lib/modules/%1$s/config", "boot/config-%1$s",
	"lib/modules/%1$s/build/.config", "usr/lib/modules/%1$s/build/.config",
};

/* The modules folder of the release: the first of ROOT/{lib,usr/lib}/modules/KVER. */
static char *find_module_dir(const struct ksc_kernel_location *loc)
{
	char rel[PATH_MAX], p[PATH_MAX];
	struct stat st;

	for (size_t k = 0; k < 2 * ARRAY_SIZE(module_bases); k++) {
		size_t i = k % ARRAY_SIZE(module_bases);
		snprintf(rel, sizeof(rel), "%s/%s", module_bases[i], loc->release);
		if (locate_path(loc->root, rel, (int)(k / ARRAY_SIZE(module_bases)), p,
				sizeof(p)) == 0 &&
		    stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			return strdup(p);
	}
	return NULL;
}

/* Add the release folders below ROOT/BASE to `list` (a '\0'-separated set). */
static int list_releases(const char *root, const char *base, char **list, size_t *len,
			 size_t *cap, unsigned *n)
{
	char p[PATH_MAX];

	if (locate_path(root, base, 0, p, sizeof(p)) < 0 &&
	    locate_path(root, base, 1, p, sizeof(p)) < 0)
		return 0;
	DIR *d = opendir(p);
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISDIR(st.st_mode))
			continue;
		bool seen = false;
		for (size_t o = 0; o < *len && !seen; o += strlen(*list + o) + 1)
			seen = strcmp(*list + o, de->d_name) == 0;
		if (seen)
			continue;
		size_t l = strlen(de->d_name) + 1;
		if (array_reserve(*list, *cap, *len + l, 256) < 0) {
			closedir(d);
			return -ENOMEM;
		}
		memcpy(*list + *len, de->d_name, l);
		*len += l;
		(*n)++;
	}
	closedir(d);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The release when none is given: the only one under ROOT/{lib,usr/lib}/modules; else,
 * for the machine's own root, the running kernel's; else an error naming those found.
 */
static int pick_release(struct ksc_ctx *ctx, const char *root, char **out)
{
	char *list = NULL;
	size_t len = 0, cap = 0;
	unsigned n = 0;
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(module_bases) && r == 0; i++)
		r = list_releases(root, module_bases[i], &list, &len, &cap, &n);
	if (r < 0)
		goto out;
	if (n == 1) {
		*out = strdup(list);
		r = *out ? 0 : -ENOMEM;
		goto out;
	}
	if (!root[0]) {
		struct utsname u;
		if (uname(&u) < 0) {
			r = -errno;
			goto out;
		}
		*out = strdup(u.release);
		r = *out ? 0 : -ENOMEM;
		goto out;
	}
	if (n == 0) {
		ksc_err(ctx, "%s: no kernel release: neither lib/modules nor usr/lib/modules holds one",
			root);
		r = -ENOENT;
		goto out;
	}
	/* several: name them, sorted */
	char **v = calloc(n, sizeof(*v));
	char *names = NULL;
	size_t nl = 0;
	FILE *f = v ? open_memstream(&names, &nl) : NULL;
	if (!f) {
		free(v);
		r = -ENOMEM;
		goto out;
	}
	size_t k = 0;
	for (size_t o = 0; o < len; o += strlen(list + o) + 1)
		v[k++] = list + o;
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", v[i]);
	fclose(f);
	ksc_err(ctx, "%s: %u kernel releases (%s): name one with --kver", root, n,
		names ? names : "");
	free(names);
	free(v);
	r = -EINVAL;
out:
	free(list);
	return r;
}

KSC_EXPORT int ksc_kernel_locate(struct ksc_ctx *ctx, const char *root, const char *release,
				 struct ksc_kernel_location **out)
{
	struct ksc_kernel_location *loc;
	int r;

	*out = NULL;
	loc = calloc(1, sizeof(*loc));
	if (!loc)
		return -ENOMEM;
	loc->refcount = 1;
	loc->ctx = ksc_ref(ctx);
	/* "/" and "" are the machine's own root; a trailing '/' is dropped */
	loc->root = strdup(root ? root : "");
	if (!loc->root) {
		r = -ENOMEM;
		goto err;
	}
	for (size_t l = strlen(loc->root); l > 0 && loc->root[l - 1] == '/'; l--)
		loc->root[l - 1] = '\0';
	/* a root that is not there, or no folder, says so before anything below it */
	struct stat st;
	r = 0;
	if (loc->root[0] && stat(loc->root, &st) < 0)
		r = -errno;
	else if (loc->root[0] && !S_ISDIR(st.st_mode))
		r = -ENOTDIR;
	if (r < 0) {
		ksc_err(ctx, "%s: %s", root, strerror(-r));
		goto err;
	}
	r = release ? ((loc->release = strdup(release)) ? 0 : -ENOMEM)
		    : pick_release(ctx, loc->root, &loc->release);
	if (r < 0)
		goto err;
	loc->paths[KSC_KFILE_MODULE_DIR] = find_module_dir(loc);
	if (!loc->paths[KSC_KFILE_MODULE_DIR]) {
		ksc_err(ctx, "%s/lib/modules/%s: no such module directory (nor usr/lib/modules/%s)",
			loc->root, loc->release, loc->release);
		r = -ENOENT;
		goto err;
	}
#define FIND(kind, list, btf) \
	loc->paths[kind] = first_file(loc, list, ARRAY_SIZE(list), btf)
	FIND(KSC_KFILE_VMLINUX, cand_vmlinux, true);
	FIND(KSC_KFILE_VMLINUZ, cand_vmlinuz, false);
	FIND(KSC_KFILE_SYMVERS, cand_symvers, false);
	FIND(KSC_KFILE_SYSTEM_MAP, cand_sysmap, false);
	FIND(KSC_KFILE_CONFIG, cand_config, false);
#undef FIND
	for (size_t i = 0; i < KSC_KFILE_COUNT; i++)
		if (loc->paths[i])
			ksc_dbg(ctx, "%s: kernel file %zu of %s", loc->paths[i], i, loc->release);
	*out = loc;
	return 0;
err:
	ksc_kernel_location_unref(loc);
	return r;
}

KSC_DEFINE_REF(ksc_kernel_location_ref, struct ksc_kernel_location)

KSC_EXPORT struct ksc_kernel_location *
ksc_kernel_location_unref(struct ksc_kernel_location *loc)
{
	if (!loc || --loc->refcount > 0)
		return NULL;
	for (size_t i = 0; i < KSC_KFILE_COUNT; i++)
		free(loc->paths[i]);
	free(loc->release);
	free(loc->root);
	ksc_unref(loc->ctx);
	free(loc);
	return NULL;
}

KSC_EXPORT const char *ksc_kernel_location_get_release(const struct ksc_kernel_location *loc)
{
	return loc->release;
}

KSC_EXPORT const char *ksc_kernel_location_get_root(const struct ksc_kernel_location *loc)
{
	return loc->root[0] ? loc->root : "/";
}

KSC_EXPORT const char *ksc_kernel_location_get_path(const struct ksc_kernel_location *loc,
						    enum ksc_kernel_file which)
{
	return (unsigned)which < KSC_KFILE_COUNT ? loc->paths[which] : NULL;
}

/*
 * The one source of the kernel's own exports, in this order: Module.symvers (complete
 * and quickest to read), an ELF vmlinux, the vmlinuz image (its payload decompressed),
 * System.map (names only). NULL when the root has none.
 */
KSC_EXPORT const char *
ksc_kernel_location_get_exports_path(const struct ksc_kernel_location *loc,
				     enum ksc_kernel_file *which)
{


	for (size_t i = 0; i < ARRAY_SIZE(ksc_exports_order); i++) {
		if (loc->paths[ksc_exports_order[i]]) {
			if (which)
				*which = ksc_exports_order[i];
			return loc->paths[ksc_exports_order[i]];
		}
	}
	return NULL;
}

const enum ksc_kernel_file ksc_exports_order[4] = { KSC_KFILE_SYMVERS, KSC_KFILE_VMLINUX,
						    KSC_KFILE_VMLINUZ, KSC_KFILE_SYSTEM_MAP };

/* The image the built-in keys are read from: an ELF vmlinux, else vmlinuz. */
KSC_EXPORT const char *ksc_kernel_location_get_image_path(const struct ksc_kernel_location *loc)
{
	return loc->paths[KSC_KFILE_VMLINUX] ? loc->paths[KSC_KFILE_VMLINUX]
					     : loc->paths[KSC_KFILE_VMLINUZ];
}
