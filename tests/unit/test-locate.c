// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel locator (lib/kernel/ksc-locate.c): each layout of doc/kernels.md built as a small
 * root in a temporary folder, and what the locator makes of it: which release, which
 * module folder, which image, Module.symvers, System.map and config, with absolute links
 * kept inside the root and Debian's BTF-only vmlinux skipped (ksc_image_is_btf_only(), on
 * small images and on the cached Debian kernels' real ones, against libelf's answer).
 */
#include "unit.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksymcheck.h"
#include "kernel/kernel.h"

static void mkdirs(const char *root, const char *rel)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static void put(const char *root, const char *rel, const char *text)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	unit_write_file(p, text);
}

static void link_to(const char *root, const char *rel, const char *target)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(symlink(target, p), 0);
}

/*
 * An ELF64 ET_EXEC as Debian's headers ship build/vmlinux: a .BTF section and the
 * section-name table, no executable section. With `code`, a .text section too.
 */
static void put_elf_image(const char *root, const char *rel, bool code)
{
	static const char names[] = "\0.BTF\0.shstrtab\0.text";
	unsigned char buf[1024] = { 0 };
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Shdr *sh = (Elf64_Shdr *)(buf + 256);
	char p[4096];

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shentsize = sizeof(*sh);
	eh->e_shoff = 256;
	eh->e_shnum = code ? 4 : 3;
	eh->e_shstrndx = 2;
	memcpy(buf + 128, "BTFDATA", 8);
	memcpy(buf + 192, names, sizeof(names));
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			      .sh_offset = 128, .sh_size = 8, .sh_addralign = 1 };
	sh[2] = (Elf64_Shdr){ .sh_name = 6, .sh_type = SHT_STRTAB, .sh_offset = 192,
			      .sh_size = sizeof(names), .sh_addralign = 1 };
	sh[3] = (Elf64_Shdr){ .sh_name = 16, .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_offset = 128,
			      .sh_size = 8, .sh_addralign = 1 };
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	FILE *f = fopen(p, "we");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, 256 + 4 * sizeof(*sh), f), 256 + 4 * sizeof(*sh));
	assert_int_equal(fclose(f), 0);
}

/* The located path of `which`, relative to root ("-" for none). */
static const char *rel_path(const struct ksc_kernel_location *loc, const char *root,
			    enum ksc_kernel_file which)
{
	const char *p = ksc_kernel_location_get_path(loc, which);

	if (!p)
		return "-";
	size_t l = strlen(root);
	assert_memory_equal(p, root, l);
	return p + l + 1;
}

/* Debian 7.x, usrmerged: everything below usr/lib/modules/KVER, no lib link, build an
 * absolute link into usr/src holding Module.symvers and a BTF-only vmlinux. */
static void test_usrmerged(void **state)
{
	struct test_env *env = *state;
	struct ksc_kernel_location *loc;
	char root[256];

	unit_mkdtemp(root, sizeof(root));
	mkdirs(root, "usr/lib/modules/7.2.13+deb14-amd64/kernel");
	mkdirs(root, "usr/src/linux-headers-7.2.13+deb14-amd64");
	put(root, "usr/lib/modules/7.2.13+deb14-amd64/vmlinuz", "not read here");
	put(root, "usr/lib/modules/7.2.13+deb14-amd64/config", "CONFIG_MODULES=y\n");
	put(root, "usr/lib/modules/7.2.13+deb14-amd64/System.map", "");
	put(root, "usr/src/linux-headers-7.2.13+deb14-amd64/Module.symvers", "");
	put_elf_image(root, "usr/src/linux-headers-7.2.13+deb14-amd64/vmlinux", false);
	link_to(root, "usr/lib/modules/7.2.13+deb14-amd64/build",
		"/usr/src/linux-headers-7.2.13+deb14-amd64");

	assert_int_equal(ksc_kernel_locate(env->ctx, root, NULL, &loc), 0);
	assert_string_equal(ksc_kernel_location_get_release(loc), "7.2.13+deb14-amd64");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_MODULE_DIR),
			    "usr/lib/modules/7.2.13+deb14-amd64");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_VMLINUX), "-");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_VMLINUZ),
			    "usr/lib/modules/7.2.13+deb14-amd64/vmlinuz");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_SYMVERS),
			    "usr/src/linux-headers-7.2.13+deb14-amd64/Module.symvers");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_SYSTEM_MAP),
			    "usr/lib/modules/7.2.13+deb14-amd64/System.map");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_CONFIG),
			    "usr/lib/modules/7.2.13+deb14-amd64/config");
	enum ksc_kernel_file which = KSC_KFILE_COUNT;
	assert_non_null(ksc_kernel_location_get_exports_path(loc, &which));
	assert_int_equal(which, KSC_KFILE_SYMVERS);
	/* the keys come from vmlinuz: the BTF-only image holds none */
	assert_string_equal(ksc_kernel_location_get_image_path(loc),
			    ksc_kernel_location_get_path(loc, KSC_KFILE_VMLINUZ));
	assert_true(test_log_has(env, "a BTF-only image, skipped"));
	ksc_kernel_location_unref(loc);

	/* an image with code in its place is taken */
	char p[512];
	snprintf(p, sizeof(p), "%s/usr/src/linux-headers-7.2.13+deb14-amd64/vmlinux", root);
	unlink(p);
	put_elf_image(root, "usr/src/linux-headers-7.2.13+deb14-amd64/vmlinux", true);
	assert_int_equal(ksc_kernel_locate(env->ctx, root, "7.2.13+deb14-amd64", &loc), 0);
	assert_string_equal(rel_path(loc, root, KSC_KFILE_VMLINUX),
			    "usr/src/linux-headers-7.2.13+deb14-amd64/vmlinux");
	assert_string_equal(ksc_kernel_location_get_image_path(loc),
			    ksc_kernel_location_get_path(loc, KSC_KFILE_VMLINUX));
	ksc_kernel_location_unref(loc);
	unit_rm_rf(root);
}

/* Debian 6.1 and 6.12: boot/ files, lib/modules, build an absolute link to usr/src. */
static void test_boot_layout(void **state)
{
	struct test_env *env = *state;
	struct ksc_kernel_location *loc;
	char root[256];

	unit_mkdtemp(root, sizeof(root));
	mkdirs(root, "boot");
	mkdirs(root, "lib/modules/6.1.0-57-amd64/kernel");
	mkdirs(root, "usr/src/linux-headers-6.1.0-57-amd64");
	put(root, "boot/vmlinuz-6.1.0-57-amd64", "not read here");
	put(root, "boot/config-6.1.0-57-amd64", "CONFIG_MODULES=y\n");
	put(root, "boot/System.map-6.1.0-57-amd64", "ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n");
	put(root, "usr/src/linux-headers-6.1.0-57-amd64/Module.symvers", "");
	put(root, "usr/src/linux-headers-6.1.0-57-amd64/.config", "");
	link_to(root, "lib/modules/6.1.0-57-amd64/build", "/usr/src/linux-headers-6.1.0-57-amd64");

	assert_int_equal(ksc_kernel_locate(env->ctx, root, NULL, &loc), 0);
	assert_string_equal(ksc_kernel_location_get_release(loc), "6.1.0-57-amd64");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_MODULE_DIR), "lib/modules/6.1.0-57-amd64");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_VMLINUZ), "boot/vmlinuz-6.1.0-57-amd64");
	/* found through the build link, resolved inside the root */
	assert_string_equal(rel_path(loc, root, KSC_KFILE_SYMVERS),
			    "usr/src/linux-headers-6.1.0-57-amd64/Module.symvers");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_SYSTEM_MAP),
			    "boot/System.map-6.1.0-57-amd64");
	/* boot/config comes before build/.config */
	assert_string_equal(rel_path(loc, root, KSC_KFILE_CONFIG), "boot/config-6.1.0-57-amd64");
	ksc_kernel_location_unref(loc);
	unit_rm_rf(root);
}

/*
 * Links are followed inside the root first: an absolute target, ".." past the top. Only
 * what is not found inside the root is looked up as the machine resolves the path.
 */
static void test_links_inside_first(void **state)
{
	struct test_env *env = *state;
	struct ksc_kernel_location *loc;
	char root[256], other[256], target[600];

	unit_mkdtemp(root, sizeof(root));
	unit_mkdtemp(other, sizeof(other));
	mkdirs(root, "lib/modules/6.12.0/kernel");
	/* the machine's side of each link: a file in `other` */
	put(other, "config", "machine\n");
	snprintf(target, sizeof(target), "%s/config", other);
	link_to(root, "lib/modules/6.12.0/config", target);
	snprintf(target, sizeof(target), "../../../../../../../../../../..%s/config", other);
	link_to(root, "lib/modules/6.12.0/System.map", target);
	link_to(root, "lib/modules/6.12.0/vmlinuz", "vmlinuz"); /* a loop */
	link_to(root, "boot", "/nonexistent-ksymcheck-test");
	assert_int_equal(ksc_kernel_locate(env->ctx, root, "6.12.0", &loc), 0);
	/* nothing inside the root: the machine's path */
	assert_string_equal(rel_path(loc, root, KSC_KFILE_CONFIG), "lib/modules/6.12.0/config");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_SYSTEM_MAP),
			    "lib/modules/6.12.0/System.map");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_VMLINUZ), "-");
	ksc_kernel_location_unref(loc);

	/* the same file inside the root wins, through both links */
	char dir[600];
	snprintf(dir, sizeof(dir), "%s", other + 1);
	mkdirs(root, dir);
	snprintf(dir, sizeof(dir), "%s/config", other + 1);
	put(root, dir, "inside\n");
	assert_int_equal(ksc_kernel_locate(env->ctx, root, "6.12.0", &loc), 0);
	assert_string_equal(rel_path(loc, root, KSC_KFILE_CONFIG), dir);
	assert_string_equal(rel_path(loc, root, KSC_KFILE_SYSTEM_MAP), dir);
	ksc_kernel_location_unref(loc);
	unit_rm_rf(root);

	/* a root made of links to folders elsewhere (lib -> OTHER/lib) */
	unit_mkdtemp(root, sizeof(root));
	mkdirs(other, "lib/modules/6.12.0/kernel");
	snprintf(target, sizeof(target), "%s/lib", other);
	link_to(root, "lib", target);
	assert_int_equal(ksc_kernel_locate(env->ctx, root, NULL, &loc), 0);
	assert_string_equal(ksc_kernel_location_get_release(loc), "6.12.0");
	assert_string_equal(rel_path(loc, root, KSC_KFILE_MODULE_DIR), "lib/modules/6.12.0");
	ksc_kernel_location_unref(loc);
	unit_rm_rf(root);
	unit_rm_rf(other);
}

/* Which release, when none is named. */
static void test_release(void **state)
{
	struct test_env *env = *state;
	struct ksc_kernel_location *loc = (struct ksc_kernel_location *)1;
	char root[256];

	unit_mkdtemp(root, sizeof(root));
	assert_int_equal(ksc_kernel_locate(env->ctx, root, NULL, &loc), -ENOENT);
	assert_null(loc);
	assert_true(test_log_has(env, ": no kernel release: neither lib/modules nor usr/lib/modules holds one"));

	/* the same release in both bases counts once */
	mkdirs(root, "lib/modules/6.12.0");
	mkdirs(root, "usr/lib/modules/6.12.0");
	assert_int_equal(ksc_kernel_locate(env->ctx, root, NULL, &loc), 0);
	assert_string_equal(rel_path(loc, root, KSC_KFILE_MODULE_DIR), "lib/modules/6.12.0");
	ksc_kernel_location_unref(loc);

	mkdirs(root, "usr/lib/modules/7.2.0");
	mkdirs(root, "lib/modules/6.1.0");
	test_log_clear(env);
	assert_int_equal(ksc_kernel_locate(env->ctx, root, NULL, &loc), -EINVAL);
	assert_true(test_log_has(env, ": 3 kernel releases (6.1.0, 6.12.0, 7.2.0): name one with --kver"));
	assert_int_equal(ksc_kernel_locate(env->ctx, root, "7.2.0", &loc), 0);
	assert_string_equal(rel_path(loc, root, KSC_KFILE_MODULE_DIR), "usr/lib/modules/7.2.0");
	ksc_kernel_location_unref(loc);

	test_log_clear(env);
	assert_int_equal(ksc_kernel_locate(env->ctx, root, "9.9", &loc), -ENOENT);
	assert_true(test_log_has(env, "/lib/modules/9.9: no such module directory (nor usr/lib/modules/9.9)"));
	unit_rm_rf(root);

	/* a root that is not there says so, whether a release is named or not */
	test_log_clear(env);
	assert_int_equal(ksc_kernel_locate(env->ctx, root, NULL, &loc), -ENOENT);
	assert_true(test_log_has(env, ": No such file or directory"));
	assert_int_equal(ksc_kernel_locate(env->ctx, root, "9.9", &loc), -ENOENT);
}

/* libelf's answer (the locator's own test before util/elfview.h): the reference. */
static bool libelf_btf_only(const char *path)
{
	bool code = false, btf = false;
	size_t shstrndx;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && elf_getshdrstrndx(e, &shstrndx) == 0) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(e, scn)) != NULL) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				break;
			const char *name = elf_strptr(e, shstrndx, sh.sh_name);
			code |= (sh.sh_flags & SHF_EXECINSTR) != 0;
			btf |= name && strcmp(name, ".BTF") == 0;
		}
	} else {
		code = true;
	}
	elf_end(e);
	close(fd);
	return btf && !code;
}

/* Small images: BTF-only, with code, cut short, not ELF at all. */
static void test_btf_only_small(void **state)
{
	char root[2048], p[4096];
	static const struct {
		const char *name;
		bool code;
		off_t cut; /* 0: whole */
		bool want;
	} c[] = {
		{ "btf", false, 0, true },       { "code", true, 0, false },
		{ "cut-table", false, 300, false }, { "cut-names", false, 200, false },
		{ "header-only", false, 64, false }, { "ident-only", false, 16, false },
	};

	unit_mkdtemp(root, sizeof(root));
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		put_elf_image(root, c[i].name, c[i].code);
		snprintf(p, sizeof(p), "%s/%s", root, c[i].name);
		if (c[i].cut)
			assert_int_equal(truncate(p, c[i].cut), 0);
		assert_int_equal(ksc_image_is_btf_only(p), c[i].want);
		assert_int_equal(libelf_btf_only(p), c[i].want);
	}
	put(root, "text", "not an image\n");
	snprintf(p, sizeof(p), "%s/text", root);
	assert_false(ksc_image_is_btf_only(p));
	snprintf(p, sizeof(p), "%s/missing", root);
	assert_false(ksc_image_is_btf_only(p));
	assert_false(ksc_image_is_btf_only(root));
	unit_rm_rf(root);
}

/*
 * The real images of the cached Debian kernels (make check-real fetches them; skipped
 * without): the headers' BTF-only vmlinux, vmlinux images with code, bzImages. The same
 * answer as libelf's for each.
 */
static void test_btf_only_real(void **state)
{
	static const struct {
		const char *pattern;
		bool want;
	} g[] = {
		{ "debian-*/usr/src/linux-headers-*/vmlinux", true },
		{ "debian-*/vmlinux", false },
		{ "debian-*/boot/vmlinuz-*", false },
		{ "debian-*/usr/lib/modules/*/vmlinuz", false },
	};
	const char *cache = getenv("KSC_CACHE"), *home = getenv("HOME");
	char dir[2048], pat[4096];
	size_t seen[2] = { 0, 0 };

	if (cache)
		snprintf(dir, sizeof(dir), "%s", cache);
	else
		snprintf(dir, sizeof(dir), "%s/.cache/ksymcheck", home ? home : "");
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		glob_t gl;
		snprintf(pat, sizeof(pat), "%s/%s", dir, g[i].pattern);
		if (glob(pat, 0, NULL, &gl) != 0)
			continue;
		for (size_t j = 0; j < gl.gl_pathc; j++) {
			const char *f = gl.gl_pathv[j];
			bool ours = ksc_image_is_btf_only(f), ref = libelf_btf_only(f);
			if (ours != g[i].want || ref != g[i].want)
				fail_msg("%s: ours %d, libelf %d, expected %d", f, ours, ref,
					 g[i].want);
			seen[g[i].want]++;
		}
		globfree(&gl);
	}
	if (!seen[0] || !seen[1])
		skip();
	print_message("%zu BTF-only images, %zu others\n", seen[1], seen[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, test_env_setup, test_env_teardown)
		T(test_usrmerged),
		T(test_boot_layout),
		T(test_links_inside_first),
		T(test_release),
#undef T
		cmocka_unit_test(test_btf_only_small),
		cmocka_unit_test(test_btf_only_real),
	};

	return cmocka_run_group_tests_name("locate", tests, NULL, NULL);
}
