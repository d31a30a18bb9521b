// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for lib/readers/ksc-sysmap.c: System.map and /proc/kallsyms reading, exports. */
#include "unit.h"
#include "readers/readers.h"

static const char *const debian_placeholder =
	"ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n";

static struct ksc_sysmap *parse_ok(struct test_env *env, const char *name,
				   const char *text, size_t len)
{
	struct ksc_sysmap *sm = NULL;

	assert_int_equal(ksc_sysmap_new_from_memory(env->ctx, name, text, len, &sm), 0);
	assert_non_null(sm);
	return sm;
}

static void assert_exports(const struct ksc_sysmap *sm, const char *const *want, size_t n)
{
	assert_int_equal(ksc_sysmap_get_export_count(sm), n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(ksc_sysmap_get_export(sm, i), want[i]);
		assert_true(ksc_sysmap_has_export(sm, want[i]));
	}
	assert_null(ksc_sysmap_get_export(sm, n));
}

/* A 64-bit map as scripts/mksysmap writes it (nm -n, a few symbols filtered out). */
static void test_basic(void **state)
{
	static const char text[] =
		"0000000000000000 D __per_cpu_start\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 T phys_base_fn\n"
		"ffffffff81002000 t local_helper\n"
		"ffffffff82000000 R __start___ksymtab\n"
		"ffffffff82000000 r __ksymtab_phys_base_fn\n"
		"ffffffff8200000c r __ksymtab_init_uts_ns\n"
		"ffffffff82000018 r __ksymtab__copy_to_user\n"
		"ffffffff82000024 R __stop___ksymtab\n"
		"ffffffff82000024 R __start___ksymtab_gpl\n"
		"ffffffff82000024 r __ksymtab___x86_indirect_thunk_rax\n"
		"ffffffff82000030 R __stop___ksymtab_gpl\n"
		"ffffffff82001000 r __kstrtab_phys_base_fn\n"
		"ffffffff83000000 D init_uts_ns\n"
		"ffffffff83000100 B __ksymtab_\n"; /* the bare prefix names nothing */
	static const char *const want[] = { "phys_base_fn", "init_uts_ns",
					    "_copy_to_user", "__x86_indirect_thunk_rax" };
	struct test_env *env = *state;
	struct ksc_sysmap *sm = parse_ok(env, "System.map", text, sizeof(text) - 1);

	assert_log_empty(env);
	assert_int_equal(ksc_sysmap_get_symbol_count(sm), 15);
	assert_int_equal(ksc_sysmap_get_error_count(sm), 0);
	assert_exports(sm, want, ARRAY_SIZE(want));
	assert_false(ksc_sysmap_has_export(sm, "local_helper"));
	assert_false(ksc_sysmap_has_export(sm, "__ksymtab_init_uts_ns"));
	assert_false(ksc_sysmap_has_export(sm, ""));
	assert_false(ksc_sysmap_has_export(sm, NULL));
	assert_ptr_equal(ksc_sysmap_ref(sm), sm);
	assert_null(ksc_sysmap_unref(sm));
	assert_null(ksc_sysmap_unref(sm));
}

/* 32-bit addresses, upper-case hex, duplicates, no newline at the end. */
static void test_32bit_and_dups(void **state)
{
	static const char text[] = "c1000000 T _text\n"
				   "C1A00000 r __ksymtab_printk\n"
				   "c1a0000c r __ksymtab_kmalloc\n"
				   "c1a00018 r __ksymtab_printk\n"
				   "c1b00000 ? odd_type\n"
				   "c1b00004 - stabs_type";
	static const char *const want[] = { "printk", "kmalloc" };
	struct test_env *env = *state;
	struct ksc_sysmap *sm = parse_ok(env, "map32", text, sizeof(text) - 1);

	assert_log_empty(env);
	assert_int_equal(ksc_sysmap_get_symbol_count(sm), 6);
	assert_exports(sm, want, ARRAY_SIZE(want));
	ksc_sysmap_unref(sm);
}

/* /proc/kallsyms: "\t[module]" on module symbols; a module's labels are not the kernel's.
 */
static void test_kallsyms(void **state)
{
	static const char text[] = "0000000000000000 T startup_64\n"
				   "0000000000000000 r __ksymtab_kfree\n"
				   "0000000000000000 r __ksymtab_kvm_get_kvm\t[kvm]\n"
				   "0000000000000000 t kvm_init\t[kvm]\n"
				   "0000000000000000 r __ksymtab_vfree\n";
	static const char *const want[] = { "kfree", "vfree" };
	struct test_env *env = *state;
	struct ksc_sysmap *sm = parse_ok(env, "kallsyms", text, sizeof(text) - 1);

	assert_log_empty(env);
	assert_int_equal(ksc_sysmap_get_symbol_count(sm), 5);
	assert_exports(sm, want, ARRAY_SIZE(want));
	assert_false(ksc_sysmap_has_export(sm, "kvm_get_kvm"));
	ksc_sysmap_unref(sm);
}

/*
 * 5.4 namespaced exports. The released 5.4 labels them __ksymtab_<NS>.<sym>; 5.4-rc1 used
 * __ksymtab_<sym>.<NS>. The half that names a symbol of the map (or its __kstrtab_) wins.
 */
static void test_namespaced_5_4(void **state)
{
	static const char release[] =
		"ffffffff81000000 T usb_stor_suspend\n"
		"ffffffff82000000 r __ksymtab_USB_STORAGE.usb_stor_suspend\n"
		"ffffffff82000010 r __ksymtab_kfree\n"
		"ffffffff82000020 r __ksymtab_NVME.nvme_only_kstrtab\n"
		"ffffffff82000030 r __ksymtab_FOO.neither_known\n"
		"ffffffff82100000 r __kstrtab_nvme_only_kstrtab\n"
		"ffffffff82100010 r __kstrtabns_nvme_only_kstrtab\n";
	static const char *const want_release[] = { "usb_stor_suspend", "kfree",
						    "nvme_only_kstrtab",
						    "neither_known" };
	static const char rc1[] =
		"ffffffff81000000 T usb_stor_suspend\n"
		"ffffffff82000000 r __ksymtab_usb_stor_suspend.USB_STORAGE\n"
		"ffffffff82000020 r __ksymtab_nvme_only_kstrtab.NVME\n"
		"ffffffff82100000 r __kstrtab_nvme_only_kstrtab\n"
		"ffffffff82100010 r __kstrtab_ns_nvme_only_kstrtab\n";
	static const char *const want_rc1[] = { "usb_stor_suspend", "nvme_only_kstrtab" };
	struct test_env *env = *state;
	struct ksc_sysmap *sm;

	sm = parse_ok(env, "5.4", release, sizeof(release) - 1);
	assert_exports(sm, want_release, ARRAY_SIZE(want_release));
	assert_false(ksc_sysmap_has_export(sm, "USB_STORAGE"));
	ksc_sysmap_unref(sm);

	sm = parse_ok(env, "5.4-rc1", rc1, sizeof(rc1) - 1);
	assert_exports(sm, want_rc1, ARRAY_SIZE(want_rc1));
	assert_false(ksc_sysmap_has_export(sm, "NVME"));
	ksc_sysmap_unref(sm);
	assert_log_empty(env);
}

#define PLACEHOLDER_MSG \
	": placeholder System.map (no symbols); the real one is in the -dbg package"

static void test_placeholder(void **state)
{
	static const char name[] = "boot/System.map-6.1.0-57-amd64";
	struct test_env *env = *state;
	struct ksc_sysmap *sm = (struct ksc_sysmap *)1;
	size_t len = strlen(debian_placeholder);

	assert_int_equal(ksc_sysmap_new_from_memory(env->ctx, name, debian_placeholder, len,
						    &sm),
			 -EINVAL);
	assert_null(sm);
	assert_int_equal(env->n_msgs, 1);
	assert_log_line(env, "boot/System.map-6.1.0-57-amd64" PLACEHOLDER_MSG);

	/* Also without its newline. */
	test_log_clear(env);
	assert_int_equal(ksc_sysmap_new_from_memory(env->ctx, "p", debian_placeholder,
						    len - 1, &sm),
			 -EINVAL);
	assert_log_line(env, "p" PLACEHOLDER_MSG);
}

/* The file Debian's linux-image-6.1 package really installs. */
static void test_placeholder_debian(void **state)
{
	struct test_env *env = *state;
	struct ksc_sysmap *sm = (struct ksc_sysmap *)1;
	char path[1024], msg[1200];

	if (!unit_debian_file(path, sizeof(path), "boot/System.map-%s")) {
		print_message("# needs the network: no Debian 6.1 kernel in the cache "
			      "(make check-real fetches it)\n");
		skip();
	}
	assert_int_equal(ksc_sysmap_new_from_path(env->ctx, path, &sm), -EINVAL);
	assert_null(sm);
	snprintf(msg, sizeof(msg), "%s" PLACEHOLDER_MSG, path);
	assert_log_line(env, msg);
	assert_int_equal(env->n_msgs, 1);
}

/* One bad line between two good ones: "<name>:2: <reason>", counted, skipped. */
struct bad_case {
	const char *what;
	const char *line;
	size_t len;
	const char *reason;
};

#define BAD(what, line, reason) { what, line, sizeof(line) - 1, reason }

static const struct bad_case bad_cases[] = {
	BAD("empty line", "", "empty line"),
	BAD("NUL byte", "ffffffff81000000 T fo\0o", "NUL byte in line"),
	BAD("CR at end", "ffffffff81000000 T foo\r",
	    "carriage return at end of line (DOS line ending)"),
	BAD("CR inside", "ffffffff81000000 T f\roo", "carriage return in line"),
	BAD("address not hex", "ffffffffz1000000 T foo",
	    "bad address 'ffffffffz1000000'"),
	BAD("no address", " T foo", "bad address ''"),
	BAD("address too long", "0ffffffff81000000 T foo",
	    "address too long (17 hex digits)"),
	BAD("only an address", "ffffffff81000000", "missing symbol type and name"),
	BAD("address and space", "ffffffff81000000 ", "missing symbol type and name"),
	BAD("no name", "ffffffff81000000 T", "missing symbol name"),
	BAD("no name after space", "ffffffff81000000 T ", "missing symbol name"),
	BAD("two-letter type", "ffffffff81000000 TT foo", "bad symbol type 'TT'"),
	BAD("digit type", "ffffffff81000000 1 foo", "bad symbol type '1'"),
	BAD("tab instead of space", "ffffffff81000000\tT foo",
	    "bad address 'ffffffff81000000\\x09T'"), /* logged messages escape controls */
	BAD("two spaces", "ffffffff81000000  T foo", "bad symbol type ' '"),
	BAD("space in name", "ffffffff81000000 T foo bar",
	    "symbol name contains a space"),
	BAD("empty name before tab", "ffffffff81000000 T \t[kvm]", "empty symbol name"),
	BAD("junk after tab", "ffffffff81000000 T foo\tjunk",
	    "unexpected text after the symbol name: 'junk'"),
	BAD("unclosed module", "ffffffff81000000 T foo\t[kvm",
	    "unexpected text after the symbol name: '[kvm'"),
};

static void test_bad_lines(void **state)
{
	static const char good1[] = "ffffffff81000000 r __ksymtab_first\n";
	static const char good2[] = "ffffffff81000010 r __ksymtab_last\n";
	static const char *const want[] = { "first", "last" };
	struct test_env *env = *state;

	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		size_t len = sizeof(good1) - 1 + c->len + 1 + sizeof(good2) - 1;
		char *text = malloc(len), *p = text, expect[256];
		struct ksc_sysmap *sm;

		assert_non_null(text);
		p = mempcpy(p, good1, sizeof(good1) - 1);
		p = mempcpy(p, c->line, c->len);
		*p++ = '\n';
		memcpy(p, good2, sizeof(good2) - 1);

		test_log_clear(env);
		sm = parse_ok(env, "System.map", text, len);
		snprintf(expect, sizeof(expect), "System.map:2: %s", c->reason);
		if (!test_log_has_line(env, expect) || env->n_errs != 1)
			fail_msg("%s: expected the one message \"%s\"; log:\n%s", c->what,
				 expect, env->log);
		assert_int_equal(ksc_sysmap_get_error_count(sm), 1);
		assert_int_equal(ksc_sysmap_get_symbol_count(sm), 2);
		assert_exports(sm, want, ARRAY_SIZE(want));
		ksc_sysmap_unref(sm);
		free(text);
	}
}

static void test_not_a_map(void **state)
{
	static const char junk[] = "hello\nworld\n";
	struct test_env *env = *state;
	struct ksc_sysmap *sm = (struct ksc_sysmap *)1;

	assert_int_equal(ksc_sysmap_new_from_memory(env->ctx, "empty", "", 0, &sm),
			 -EINVAL);
	assert_null(sm);
	assert_log_line(env, "empty: empty System.map (no symbols)");

	test_log_clear(env);
	assert_int_equal(
		ksc_sysmap_new_from_memory(env->ctx, "junk", junk, sizeof(junk) - 1, &sm),
		-EINVAL);
	assert_null(sm);
	assert_log_line(env, "junk:1: bad address 'hello'");
	assert_log_line(env, "junk:2: bad address 'world'");
	assert_log_line(env, "junk: no symbol lines: not a System.map");

	/* Symbols but no exports (a kernel without modules): fine, and empty. */
	test_log_clear(env);
	sm = parse_ok(env, "noexp", "ffffffff81000000 T _text\n", 25);
	assert_int_equal(ksc_sysmap_get_export_count(sm), 0);
	assert_log_empty(env);
	ksc_sysmap_unref(sm);

	assert_int_equal(ksc_sysmap_new_from_memory(env->ctx, "x", NULL, 1, &sm),
			 -EINVAL);
	assert_int_equal(ksc_sysmap_new_from_memory(NULL, "x", "", 0, &sm), -EINVAL);
	assert_int_equal(ksc_sysmap_get_export_count(NULL), 0);
	assert_false(ksc_sysmap_has_export(NULL, "x"));
}

static void test_from_path(void **state)
{
	struct test_env *env = *state;
	struct ksc_sysmap *sm = (struct ksc_sysmap *)1;
	char dir[256], path[300], msg[400];

	unit_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/System.map", dir);
	assert_int_equal(ksc_sysmap_new_from_path(env->ctx, path, &sm), -ENOENT);
	assert_null(sm);
	snprintf(msg, sizeof(msg), "%s: %s", path, strerror(ENOENT));
	assert_log_line(env, msg);

	test_log_clear(env);
	assert_int_equal(ksc_sysmap_new_from_path(env->ctx, dir, &sm), -EISDIR);
	snprintf(msg, sizeof(msg), "%s: %s", dir, strerror(EISDIR));
	assert_log_line(env, msg);

	test_log_clear(env);
	unit_write_file(path, "ffffffff81000000 r __ksymtab_a\nffffffff81000000 r\n");
	assert_int_equal(ksc_sysmap_new_from_path(env->ctx, path, &sm), 0);
	assert_int_equal(ksc_sysmap_get_export_count(sm), 1);
	snprintf(msg, sizeof(msg), "%s:2: missing symbol name", path);
	assert_log_line(env, msg);
	ksc_sysmap_unref(sm);
	unit_rm_rf(dir);
}

/* The running kernel's list, when readable: a file whose stat() size is 0. */
static void test_proc_kallsyms(void **state)
{
	struct test_env *env = *state;
	struct ksc_sysmap *sm;

	if (access("/proc/kallsyms", R_OK) != 0)
		skip();
	assert_int_equal(ksc_sysmap_new_from_path(env->ctx, "/proc/kallsyms", &sm), 0);
	assert_int_equal(ksc_sysmap_get_error_count(sm), 0);
	assert_true(ksc_sysmap_get_symbol_count(sm) > 1000);
	print_message("# /proc/kallsyms: %zu symbols, %zu exports\n",
		      ksc_sysmap_get_symbol_count(sm), ksc_sysmap_get_export_count(sm));
	ksc_sysmap_unref(sm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, test_env_setup, test_env_teardown)
		T(test_basic),
		T(test_32bit_and_dups),
		T(test_kallsyms),
		T(test_namespaced_5_4),
		T(test_placeholder),
		T(test_placeholder_debian),
		T(test_bad_lines),
		T(test_not_a_map),
		T(test_from_path),
		T(test_proc_kallsyms),
#undef T
	};

	return cmocka_run_group_tests_name("sysmap", tests, NULL, NULL);
}
