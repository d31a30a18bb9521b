// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The module/vmlinux reader against the fixtures built at test time from
 * tests/fixtures/src (every export layout generation, five architectures, compressed,
 * signed and malformed copies). Expectations live in tests/fixtures/expected/, written from
 * the fixture sources, not from the reader's output.
 */
#include "unit.h"

#include <errno.h>

static const char *fixtures_dir(void)
{
	const char *f = getenv("FIXTURES");

	return f && *f ? f : "build/fixtures";
}

static const char *expected_dir(void)
{
	const char *t = getenv("TOP");
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s/tests/fixtures/expected", t && *t ? t : ".");
	return buf;
}

/* Render the reader's view in the format of tests/fixtures/expected/. */
static char *render_exports(const struct ksc_module *mod)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	for (size_t i = 0; i < ksc_module_get_export_count(mod); i++) {
		const struct ksc_export *e = ksc_module_get_export(mod, i);
		fprintf(f, "%s\t%s\t%s\t", e->name, e->gpl_only ? "GPL" : "-", e->ns[0] ? e->ns : "-");
		if (e->has_crc)
			fprintf(f, "0x%08x\n", e->crc);
		else
			fprintf(f, "-\n");
	}
	fclose(f);
	return buf;
}

static char *render_imports(const struct ksc_module *mod)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	for (size_t i = 0; i < ksc_module_get_import_count(mod); i++) {
		const struct ksc_import *im = ksc_module_get_import(mod, i);
		fprintf(f, "%s\t%s\t", im->name, im->bind == KSC_BIND_WEAK ? "WEAK" : "GLOBAL");
		if (im->has_crc)
			fprintf(f, "0x%08x\t", im->crc);
		else
			fprintf(f, "-\t");
		if (im->has_ext_crc)
			fprintf(f, "0x%08x\n", im->ext_crc);
		else
			fprintf(f, "-\n");
	}
	fclose(f);
	return buf;
}

static char *render_modinfo(const struct ksc_module *mod)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	for (size_t i = 0; i < ksc_module_get_modinfo_count(mod); i++) {
		const struct ksc_modinfo *mi = ksc_module_get_modinfo(mod, i);
		fprintf(f, "%s=%s\n", mi->key, mi->value);
	}
	fclose(f);
	return buf;
}

static void assert_text_equal(const char *what, const char *expected, const char *actual)
{
	if (strcmp(expected, actual) != 0)
		fail_msg("%s differs.\n--- expected\n%s--- actual\n%s", what, expected, actual);
}

/* Compare one rendering with tests/fixtures/expected/<name>.<kind> when that file exists. */
static int compare_expected(const char *name, const char *kind, char *actual, const char *path)
{
	char exp_path[1100], what[1300];
	char *exp;

	snprintf(exp_path, sizeof(exp_path), "%s/%s.%s", expected_dir(), name, kind);
	exp = unit_read_file(exp_path, NULL);
	if (!exp) {
		free(actual);
		return 0;
	}
	snprintf(what, sizeof(what), "%s of %s", kind, path);
	assert_text_equal(what, exp, actual);
	free(exp);
	free(actual);
	return 1;
}

/* One test state per fixture file: the path, and the base name for the expectations. */
struct fixture_case {
	char path[1400];
	char name[256];
};

static void test_fixture(void **state)
{
	struct fixture_case *fc = *state;
	struct ksc_ctx *ctx = ksc_new();
	struct ksc_module *mod;
	int r, compared = 0;

	ksc_set_log_fn(ctx, NULL, NULL);
	r = ksc_module_new_from_path(ctx, fc->path, &mod);
	if (r < 0)
		fail_msg("%s: cannot read: %s", fc->path, strerror(-r));
	compared += compare_expected(fc->name, "exports", render_exports(mod), fc->path);
	compared += compare_expected(fc->name, "imports", render_imports(mod), fc->path);
	compared += compare_expected(fc->name, "modinfo", render_modinfo(mod), fc->path);
	if (compared == 0)
		fail_msg("%s: no expectation file for %s", fc->path, fc->name);
	ksc_module_unref(mod);
	ksc_unref(ctx);
}

/* Every fixture of every architecture folder, found at run time. */
static struct CMUnitTest *collect_fixture_tests(size_t *count)
{
	static const char *const arches[] = { "x86_64", "i386", "aarch64", "s390x", "powerpc" };
	struct CMUnitTest *tests = NULL;
	size_t n = 0, cap = 0;

	for (size_t a = 0; a < sizeof(arches) / sizeof(arches[0]); a++) {
		char dir[1024];
		snprintf(dir, sizeof(dir), "%s/%s", fixtures_dir(), arches[a]);
		DIR *d = opendir(dir);
		struct dirent *de;
		if (!d)
			continue;
		while ((de = readdir(d))) {
			const char *nm = de->d_name;
			size_t l = strlen(nm);
			bool ko = l > 3 && strcmp(nm + l - 3, ".ko") == 0;
			bool vmlinux = strncmp(nm, "fx-vmlinux-", 11) == 0 && !strchr(nm, '.');
			if (!ko && !vmlinux)
				continue;
			/* Only fixtures with expectations; copies are compared in other tests. */
			char exp[1100];
			snprintf(exp, sizeof(exp), "%s/%.*s.exports", expected_dir(),
				 (int)(ko ? l - 3 : l), nm);
			if (access(exp, R_OK) != 0)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				tests = realloc(tests, cap * sizeof(*tests));
				assert_non_null(tests);
			}
			struct fixture_case *fc = calloc(1, sizeof(*fc));
			assert_non_null(fc);
			snprintf(fc->path, sizeof(fc->path), "%s/%s", dir, nm);
			snprintf(fc->name, sizeof(fc->name), "%.*s", (int)(ko ? l - 3 : l), nm);
			char *title = malloc(2100);
			assert_non_null(title);
			snprintf(title, 2100, "fixture %s/%s", arches[a], nm);
			tests[n++] = (struct CMUnitTest){ title, test_fixture, NULL, NULL, fc };
		}
		closedir(d);
	}
	*count = n;
	return tests;
}

/* ---- compressed, misnamed and signed copies read as the plain module ---- */

static struct ksc_module *read_ok(struct test_env *env, const char *rel)
{
	char path[1024];
	struct ksc_module *mod;
	int r;

	snprintf(path, sizeof(path), "%s/%s", fixtures_dir(), rel);
	r = ksc_module_new_from_path(env->ctx, path, &mod);
	if (r < 0)
		fail_msg("%s: %s\n%s", path, strerror(-r), env->log);
	return mod;
}

static void assert_same_module(const struct ksc_module *a, const struct ksc_module *b)
{
	char *x, *y;

	x = render_exports(a), y = render_exports(b);
	assert_string_equal(x, y);
	free(x), free(y);
	x = render_imports(a), y = render_imports(b);
	assert_string_equal(x, y);
	free(x), free(y);
	x = render_modinfo(a), y = render_modinfo(b);
	assert_string_equal(x, y);
	free(x), free(y);
}

static void test_compressed_copies(void **state)
{
	struct test_env *env = *state;
	static const struct {
		const char *file;
		enum ksc_compression c;
	} cases[] = {
		{ "x86_64/fx-user.ko.xz", KSC_COMPRESSION_XZ },
		{ "x86_64/fx-user.ko.zst", KSC_COMPRESSION_ZSTD },
		{ "x86_64/fx-user.ko.gz", KSC_COMPRESSION_GZIP },
		/* by magic bytes, not by name */
		{ "x86_64/fx-user-is-xz.ko", KSC_COMPRESSION_XZ },
		{ "x86_64/fx-user-is-zst.ko.gz", KSC_COMPRESSION_ZSTD },
	};
	struct ksc_module *plain = read_ok(env, "x86_64/fx-user.ko");

	assert_int_equal(ksc_module_get_compression(plain), KSC_COMPRESSION_NONE);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ksc_module *m = read_ok(env, cases[i].file);
		assert_int_equal(ksc_module_get_compression(m), cases[i].c);
		assert_same_module(plain, m);
		/* kmod's name is cut at the first '.', whatever the suffix. */
		assert_string_equal(ksc_module_get_kmod_name(m),
				    strstr(cases[i].file, "is-") ? (strstr(cases[i].file, "xz")
								    ? "fx_user_is_xz" : "fx_user_is_zst")
								 : "fx_user");
		ksc_module_unref(m);
	}
	ksc_module_unref(plain);
	assert_int_equal(env->n_errs, 0);
}

static void test_signed_copy(void **state)
{
	struct test_env *env = *state;
	struct ksc_module *plain = read_ok(env, "x86_64/fx-user.ko");
	struct ksc_module *sig = read_ok(env, "x86_64/fx-user-signed.ko");
	struct ksc_module *sigxz = read_ok(env, "x86_64/fx-user-signed.ko.xz");

	assert_int_equal(ksc_module_get_signature_size(plain), 0);
	assert_true(ksc_module_get_signature_size(sig) > 40);
	assert_int_equal(ksc_module_get_signature_size(sig), ksc_module_get_signature_size(sigxz));
	assert_int_equal(ksc_module_get_size(sig),
			 ksc_module_get_size(plain) + ksc_module_get_signature_size(sig));
	assert_same_module(plain, sig);
	assert_same_module(plain, sigxz);
	ksc_module_unref(plain);
	ksc_module_unref(sig);
	ksc_module_unref(sigxz);
}

/* R4-R6: the loader's, modpost's and kmod's names of a file named with a hyphen. */
static void test_names(void **state)
{
	struct test_env *env = *state;
	struct ksc_module *m = read_ok(env, "x86_64/fx-kvm-amd.ko");
	struct ksc_module *z = read_ok(env, "x86_64/fx-kvm-amd.ko.zst");
	size_t it = 0;
	unsigned n = 0;

	assert_string_equal(ksc_module_get_struct_name(m), "kvm_amd");
	assert_string_equal(ksc_module_get_name(m), "kvm_amd");
	assert_string_equal(ksc_module_get_modinfo_name(m), "kvm_amd");
	assert_string_equal(ksc_module_get_modpost_name(m), "fx-kvm-amd");
	assert_string_equal(ksc_module_get_kmod_name(m), "fx_kvm_amd");
	assert_string_equal(ksc_module_get_modpost_name(z), "fx-kvm-amd");
	assert_int_equal(ksc_module_get_kind(m), KSC_KIND_MODULE);
	/* repeated keys: the loader takes the first license, every import_ns */
	assert_string_equal(ksc_module_get_modinfo_value(m, "license"), "GPL");
	while (ksc_module_next_modinfo_value(m, "license", &it))
		n++;
	assert_int_equal(n, 2);
	it = 0, n = 0;
	while (ksc_module_next_modinfo_value(m, "import_ns", &it))
		n++;
	assert_int_equal(n, 3); /* FX_CORE, DMA_BUF, FX_CORE again */
	assert_true(ksc_module_is_intree(m));
	ksc_module_unref(m);
	ksc_module_unref(z);
}

static void test_layouts(void **state)
{
	struct test_env *env = *state;
	static const struct {
		const char *file;
		enum ksc_export_layout layout;
		bool kflagstab;
	} cases[] = {
		{ "x86_64/fx-ptr2.ko", KSC_LAYOUT_PTR2, false },
		{ "x86_64/fx-prel32-2.ko", KSC_LAYOUT_PREL32_2, false },
		{ "x86_64/fx-ns54.ko", KSC_LAYOUT_PREL32_3, false },
		{ "x86_64/fx-ptr3-54.ko", KSC_LAYOUT_PTR3, false },
		{ "x86_64/fx-prel32-ns.ko", KSC_LAYOUT_PREL32_3, false },
		{ "x86_64/fx-ptr3.ko", KSC_LAYOUT_PTR3, false },
		{ "x86_64/fx-65.ko", KSC_LAYOUT_PREL32_3, false },
		{ "x86_64/fx-kflagstab.ko", KSC_LAYOUT_PREL32_3, true },
		{ "x86_64/fx-vmlinux-prel32", KSC_LAYOUT_PREL32_3, false },
		{ "x86_64/fx-vmlinux-ptr", KSC_LAYOUT_PTR3, false },
		{ "i386/fx-prel32-ns.ko", KSC_LAYOUT_PREL32_3, false },
		{ "i386/fx-ptr3.ko", KSC_LAYOUT_PTR3, false },
		{ "s390x/fx-ptr3.ko", KSC_LAYOUT_PTR3, false },
		{ "powerpc/fx-prel32-ns.ko", KSC_LAYOUT_PREL32_3, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ksc_module *m = read_ok(env, cases[i].file);
		if (ksc_module_get_export_layout(m) != cases[i].layout)
			fail_msg("%s: layout %s, expected %s", cases[i].file,
				 ksc_export_layout_name(ksc_module_get_export_layout(m)),
				 ksc_export_layout_name(cases[i].layout));
		assert_int_equal(ksc_module_has_kflagstab(m), cases[i].kflagstab);
		ksc_module_unref(m);
	}
}

static void test_identity(void **state)
{
	struct test_env *env = *state;
	static const struct {
		const char *file;
		int cls;
		bool be;
		unsigned machine;
	} cases[] = {
		{ "x86_64/fx-user.ko", 64, false, 62 },  { "i386/fx-user.ko", 32, false, 3 },
		{ "aarch64/fx-user.ko", 64, false, 183 }, { "s390x/fx-user.ko", 64, true, 22 },
		{ "powerpc/fx-user.ko", 32, true, 20 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ksc_module *m = read_ok(env, cases[i].file);
		assert_int_equal(ksc_module_get_elf_class(m), cases[i].cls);
		assert_int_equal(ksc_module_is_big_endian(m), cases[i].be);
		assert_int_equal(ksc_module_get_machine(m), cases[i].machine);
		ksc_module_unref(m);
	}
}

/*
 * A kernel image names its release (linux_banner) and the vermagic its loader compares;
 * a kernel made from it takes both, and the image's vermagic wins over a module's.
 */
static void test_image_identity(void **state)
{
	struct test_env *env = *state;
	struct ksc_module *vm = read_ok(env, "x86_64/fx-vmlinux-prel32");
	struct ksc_module *mod = read_ok(env, "x86_64/fx-user.ko");
	struct ksc_module *old = read_ok(env, "x86_64/fx-vmlinux-ptr");
	struct ksc_kernel *k;

	assert_string_equal(ksc_module_get_image_release(vm), "6.16.0");
	assert_string_equal(ksc_module_get_image_vermagic(vm),
			    "6.16.0 SMP preempt mod_unload modversions ");
	/* a module is no image; an image without a banner has neither */
	assert_null(ksc_module_get_image_release(mod));
	assert_null(ksc_module_get_image_vermagic(mod));
	assert_null(ksc_module_get_image_release(old));
	assert_null(ksc_module_get_image_vermagic(old));

	assert_int_equal(ksc_kernel_new(env->ctx, &k), 0);
	assert_int_equal(ksc_kernel_add_module(k, mod), 0);
	assert_int_equal(ksc_kernel_add_vmlinux(k, vm), 0);
	assert_string_equal(ksc_kernel_get_release(k), "6.16.0");
	assert_string_equal(ksc_kernel_get_vermagic(k), "6.16.0 SMP preempt mod_unload modversions ");
	ksc_kernel_unref(k);

	/* a release set first stays */
	assert_int_equal(ksc_kernel_new(env->ctx, &k), 0);
	assert_int_equal(ksc_kernel_set_release(k, "6.16.0-demo"), 0);
	assert_int_equal(ksc_kernel_add_vmlinux(k, vm), 0);
	assert_string_equal(ksc_kernel_get_release(k), "6.16.0-demo");
	ksc_kernel_unref(k);
	ksc_module_unref(old);
	ksc_module_unref(mod);
	ksc_module_unref(vm);
}

/* ---- malformed input: an error, a "path: reason" message, never a crash ---- */

static void test_bad_inputs(void **state)
{
	struct test_env *env = *state;
	static const struct {
		const char *file;
		int err;
		const char *reason;
	} cases[] = {
		{ "empty.ko", -ENOEXEC, "empty file" },
		{ "truncated-header.ko", -EINVAL, "truncated ELF header" },
		{ "shoff-past-eof.ko", -EINVAL, "section header table" },
		{ "shstr-name-oob.ko", -EINVAL, "outside the section name table" },
		{ "symname-oob.ko", -EINVAL, "outside the symbol string table" },
		{ "modinfo-unterminated.ko", -EINVAL, ".modinfo is not NUL-terminated" },
		{ "versions-size.ko", -EINVAL, "__versions size" },
		{ "section-past-eof.ko", -EINVAL, "extends past the end of the file" },
		{ "reloc-oob.ko", -EINVAL, "is outside __ksymtab" },
		{ "reloc-sym-oob.ko", -EINVAL, "beyond the symbol table" },
		{ "corrupt.ko.xz", -EINVAL, "xz: " },
		{ "truncated.ko.xz", -EINVAL, "xz: " },
		{ "corrupt.ko.zst", -EINVAL, "zstd: " },
		{ "truncated.ko.zst", -EINVAL, "zstd: " },
		{ "corrupt.ko.gz", -EINVAL, "gzip: " },
		{ "truncated.ko.gz", -EINVAL, "gzip: " },
		{ "dir.ko", -EISDIR, "is a directory" },
		{ "text.ko", -ENOEXEC, "not an ELF file" },
		{ "not-kernel-exec.ko", -ENOEXEC, "not a kernel image or module" },
		{ "not-a-module.ko", -ENOEXEC, "not a kernel module" },
		{ "unsupported-machine.ko", -EOPNOTSUPP, "is not a Linux architecture" },
		{ "does-not-exist.ko", -ENOENT, "No such file or directory" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[1024], want[1200];
		struct ksc_module *m = (struct ksc_module *)1;
		snprintf(path, sizeof(path), "%s/bad/%s", fixtures_dir(), cases[i].file);
		test_log_clear(env);
		int r = ksc_module_new_from_path(env->ctx, path, &m);
		if (r != cases[i].err)
			fail_msg("%s: returned %d (%s), expected %d (%s); log: %s", cases[i].file, r,
				 strerror(-r), cases[i].err, strerror(-cases[i].err), env->log);
		assert_null(m);
		snprintf(want, sizeof(want), "%s: ", path);
		assert_log_contains(env, want);
		assert_log_contains(env, cases[i].reason);
		assert_int_equal(env->n_errs, 1);
	}
}

/*
 * A kernel image read from a file and from memory says the same: a bzImage whose payload
 * is not compressed (read as an image), and nothing at all.
 */
static void test_image_refusals(void **state)
{
	struct test_env *env = *state;
	unsigned char bz[4096] = { 0 };
	char tmp[256], path[300];
	struct ksc_module *m;

	memcpy(bz + 0x202, "HdrS", 4);
	bz[0x206] = 0x0f, bz[0x207] = 0x02; /* boot protocol 2.15 */
	bz[0x24c] = 16;                     /* payload: 16 bytes at (4 + 1) * 512 */
	memcpy(bz + 2560, "plain, unpacked.", 16);
	unit_mkdtemp(tmp, sizeof(tmp));
	snprintf(path, sizeof(path), "%s/bzImage", tmp);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(bz, 1, sizeof(bz), f), sizeof(bz));
	assert_int_equal(fclose(f), 0);
	test_log_clear(env);
	assert_int_equal(ksc_module_new_from_path(env->ctx, path, &m), -EOPNOTSUPP);
	assert_log_contains(env, "bzImage: bzImage payload compressed with an unsupported method");
	test_log_clear(env);
	assert_int_equal(ksc_module_new_from_memory(env->ctx, "bzImage", bz, sizeof(bz), &m),
			 -EOPNOTSUPP);
	assert_log_contains(env, "bzImage: bzImage payload compressed with an unsupported method");
	test_log_clear(env);
	assert_int_equal(ksc_module_new_from_memory(env->ctx, "none", bz, 0, &m), -ENOEXEC);
	assert_log_contains(env, "none: empty file");
	unit_rm_rf(tmp);
}

static void test_from_memory(void **state)
{
	struct test_env *env = *state;
	char path[1024];
	size_t size = 0;
	struct ksc_module *m;

	snprintf(path, sizeof(path), "%s/x86_64/fx-kvm-amd.ko.zst", fixtures_dir());
	char *data = unit_read_file(path, &size);
	assert_non_null(data);
	assert_int_equal(ksc_module_new_from_memory(env->ctx, "kvm-amd.ko.zst", data, size, &m), 0);
	free(data);
	assert_string_equal(ksc_module_get_kmod_name(m), "kvm_amd");
	assert_string_equal(ksc_module_get_modpost_name(m), "kvm-amd");
	assert_string_equal(ksc_module_get_symvers_owner(m), "kvm-amd");
	assert_int_equal(ksc_module_set_symvers_owner(m, "arch/x86/kvm/kvm-amd.ko.zst"), 0);
	assert_string_equal(ksc_module_get_symvers_owner(m), "arch/x86/kvm/kvm-amd");
	ksc_module_unref(m);
}

static void test_path_names(void **state)
{
	(void)state;
	assert_true(ksc_path_is_module_name("a/b.ko"));
	assert_true(ksc_path_is_module_name("b.ko.xz"));
	assert_true(ksc_path_is_module_name("b.ko.zst"));
	assert_true(ksc_path_is_module_name("b.ko.gz"));
	assert_false(ksc_path_is_module_name("b.ko.bz2"));
	assert_false(ksc_path_is_module_name(".ko"));
	assert_false(ksc_path_is_module_name("b.o"));
}

static void test_release_from_vermagic(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(ksc_release_from_vermagic("6.1.0-27-amd64 SMP mod_unload modversions ",
						   buf, sizeof(buf)), 14);
	assert_string_equal(buf, "6.1.0-27-amd64");
	assert_int_equal(ksc_release_from_vermagic("7.3.0", buf, sizeof(buf)), 5);
	assert_string_equal(buf, "7.3.0");
	/* Cut as snprintf() cuts: the length it needed, the first size - 1 bytes. */
	assert_int_equal(ksc_release_from_vermagic("6.12.57+deb13-cloud-amd64 SMP", buf,
						   sizeof(buf)), 25);
	assert_string_equal(buf, "6.12.57+deb13-c");
	assert_int_equal(ksc_release_from_vermagic(" SMP", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(ksc_release_from_vermagic("", buf, sizeof(buf)), 0);
	assert_int_equal(ksc_release_from_vermagic("6.1.0 SMP", NULL, 0), 5);
	assert_int_equal(ksc_release_from_vermagic(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(ksc_release_from_vermagic("6.1.0", NULL, 4), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test_setup_teardown(test_compressed_copies, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_signed_copy, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_names, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_layouts, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_identity, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_image_identity, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_bad_inputs, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_image_refusals, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_from_memory, test_env_setup, test_env_teardown),
		cmocka_unit_test(test_path_names),
		cmocka_unit_test(test_release_from_vermagic),
	};
	size_t n;
	struct CMUnitTest *per_fixture = collect_fixture_tests(&n);
	int failed = cmocka_run_group_tests_name("module reader", fixed, NULL, NULL);

	if (n == 0) {
		fprintf(stderr, "no fixtures under %s: run 'make fixtures'\n", fixtures_dir());
		return 1;
	}
	failed += _cmocka_run_group_tests("fixtures", per_fixture, n, NULL, NULL);
	for (size_t i = 0; i < n; i++) {
		free((void *)per_fixture[i].name);
		free(per_fixture[i].initial_state);
	}
	free(per_fixture);
	return failed ? 1 : 0;
}
