// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests for lib/source/ksc-src.c (the source scanner) and lib/source/ksc-srcedit*.c (edits, diffs,
 * atomic replacement, the migrate and nsdeps planners).
 */
#include <sys/time.h>
#include <utime.h>

#include "unit.h"
#include "source/source.h"

/* ---------------------------------------------------------------------------------- */
/* Helpers                                                                            */

static struct ksc_src *scan_mem(struct test_env *env, const char *name, const char *text,
				unsigned flags)
{
	struct ksc_src_opts o = { .sz = sizeof(o), .flags = flags };
	struct ksc_src *src = NULL;

	assert_int_equal(ksc_src_new(env->ctx, &o, &src), 0);
	assert_int_equal(ksc_src_add_memory(src, name, text, strlen(text)), 1);
	return src;
}

/* The i-th record of a kind (mentions included only when asked for). */
static const struct ksc_src_record *nth(const struct ksc_src *src, enum ksc_src_kind kind,
					size_t i)
{
	for (size_t k = 0; k < ksc_src_get_record_count(src); k++) {
		const struct ksc_src_record *r = ksc_src_get_record(src, k);
		if (r->kind == kind && i-- == 0)
			return r;
	}
	return NULL;
}

static size_t count_kind(const struct ksc_src *src, enum ksc_src_kind kind)
{
	size_t n = 0;

	for (size_t k = 0; k < ksc_src_get_record_count(src); k++)
		n += ksc_src_get_record(src, k)->kind == kind;
	return n;
}

static void assert_export(const struct ksc_src_record *r, const char *sym,
			  const char *macro, bool gpl, const char *ns,
			  enum ksc_src_spelling sp, unsigned line)
{
	assert_non_null(r);
	assert_int_equal(r->kind, KSC_SRC_EXPORT);
	assert_string_equal(r->symbol, sym);
	assert_string_equal(r->macro, macro);
	assert_int_equal(r->gpl_only, gpl);
	assert_string_equal(r->ns, ns);
	assert_int_equal(r->spelling, sp);
	assert_int_equal(r->line, line);
}

/* ---------------------------------------------------------------------------------- */
/* Scanner                                                                            */

static void test_scan_macros(void **state)
{
	struct test_env *env = *state;
	static const char text[] =
		"EXPORT_SYMBOL(a);\n"
		"EXPORT_SYMBOL_GPL(b);\n"
		"EXPORT_SYMBOL_NS(c, NS_C);\n"
		"EXPORT_SYMBOL_NS_GPL(d, \"NS_D\");\n"
		"EXPORT_SYMBOL_GPL_FOR_MODULES(e, \"kvm\");\n"
		"EXPORT_SYMBOL_FOR_MODULES(f, \"kvm,kvm-*\");\n"
		"EXPORT_SYMBOL_FOR_KVM(g);\n"
		"EXPORT_SYMBOL_FOR_KVM_INTERNAL(h);\n"
		"MODULE_IMPORT_NS(IMP_A);\n"
		"MODULE_IMPORT_NS(\"IMP_B\");\n"
		"MODULE_LICENSE(\"Dual BSD/GPL\");\n";
	struct ksc_src *src = scan_mem(env, "m.c", text, 0);

	assert_int_equal(ksc_src_get_record_count(src), 11);
	assert_export(nth(src, KSC_SRC_EXPORT, 0), "a", "EXPORT_SYMBOL", false, "",
		      KSC_SRC_SPELL_NONE, 1);
	assert_export(nth(src, KSC_SRC_EXPORT, 1), "b", "EXPORT_SYMBOL_GPL", true, "",
		      KSC_SRC_SPELL_NONE, 2);
	assert_export(nth(src, KSC_SRC_EXPORT, 2), "c", "EXPORT_SYMBOL_NS", false, "NS_C",
		      KSC_SRC_SPELL_IDENT, 3);
	assert_export(nth(src, KSC_SRC_EXPORT, 3), "d", "EXPORT_SYMBOL_NS_GPL", true, "NS_D",
		      KSC_SRC_SPELL_STRING, 4);
	assert_export(nth(src, KSC_SRC_EXPORT, 4), "e", "EXPORT_SYMBOL_GPL_FOR_MODULES", true,
		      "module:kvm", KSC_SRC_SPELL_STRING, 5);
	assert_export(nth(src, KSC_SRC_EXPORT, 5), "f", "EXPORT_SYMBOL_FOR_MODULES", true,
		      "module:kvm,kvm-*", KSC_SRC_SPELL_STRING, 6);
	assert_export(nth(src, KSC_SRC_EXPORT, 6), "g", "EXPORT_SYMBOL_FOR_KVM", true,
		      "module:kvm,kvm-amd,kvm-intel", KSC_SRC_SPELL_NONE, 7);
	assert_export(nth(src, KSC_SRC_EXPORT, 7), "h", "EXPORT_SYMBOL_FOR_KVM_INTERNAL", true,
		      "module:kvm-amd,kvm-intel", KSC_SRC_SPELL_NONE, 8);
	const struct ksc_src_record *r = nth(src, KSC_SRC_IMPORT_NS, 0);
	assert_string_equal(r->ns, "IMP_A");
	assert_int_equal(r->spelling, KSC_SRC_SPELL_IDENT);
	r = nth(src, KSC_SRC_IMPORT_NS, 1);
	assert_string_equal(r->ns, "IMP_B");
	assert_int_equal(r->spelling, KSC_SRC_SPELL_STRING);
	/* ns_offset/ns_end cover the argument as written, quotes included */
	assert_memory_equal(text + r->ns_offset, "\"IMP_B\"", r->ns_end - r->ns_offset);
	r = nth(src, KSC_SRC_LICENSE, 0);
	assert_string_equal(r->license, "Dual BSD/GPL");
	assert_int_equal(r->line, 11);
	/* offset..end: the macro's name to after ')' */
	r = nth(src, KSC_SRC_EXPORT, 0);
	assert_memory_equal(text + r->offset, "EXPORT_SYMBOL(a)", r->end - r->offset);
	assert_int_equal(r->end - r->offset, strlen("EXPORT_SYMBOL(a)"));
	ksc_src_unref(src);
}

static void test_scan_kvm_sub_modules(void **state)
{
	struct test_env *env = *state;
	struct ksc_src_opts o = { .sz = sizeof(o), .kvm_sub_modules = "kvm-arm" };
	struct ksc_src *src;
	static const char text[] = "EXPORT_SYMBOL_FOR_KVM(g);\nEXPORT_SYMBOL_FOR_KVM_INTERNAL(h);\n";

	assert_int_equal(ksc_src_new(env->ctx, &o, &src), 0);
	assert_int_equal(ksc_src_add_memory(src, "k.c", text, strlen(text)), 1);
	assert_string_equal(nth(src, KSC_SRC_EXPORT, 0)->ns, "module:kvm,kvm-arm");
	assert_string_equal(nth(src, KSC_SRC_EXPORT, 1)->ns, "module:kvm-arm");
	ksc_src_unref(src);
}

static void test_scan_lexer(void **state)
{
	struct test_env *env = *state;
	static const char text[] =
		"/* EXPORT_SYMBOL(c1) */\n"                              /* 1 */
		"// EXPORT_SYMBOL(c2) \\\n"                              /* 2 */
		"   EXPORT_SYMBOL(c3) continued comment\n"               /* 3 */
		"const char *s = \"EXPORT_SYMBOL(s1) \\\" EXPORT_SYMBOL(s2)\";\n" /* 4 */
		"char q = '\"'; EXPORT_SYMBOL(after_quote);\n"           /* 5 */
		"char q2 = '\\''; EXPORT_SYMBOL(after_quote2);\n"        /* 6 */
		"EXPORT_SYMBOL_NS_GPL( spread /* c */ ,\n"               /* 7 */
		"   \"A\" \"B\" );\n"                                    /* 8 */
		"EXPORT_SYMBOL \\\n"                                     /* 9 */
		"(continued);\n"                                         /* 10 */
		"#define W(x) EXPORT_SYMBOL(x)\n"                        /* 11 */
		"#define W2(x) \\\n"                                     /* 12 */
		"\tEXPORT_SYMBOL_GPL(x)\n"                               /* 13 */
		"#ifdef EXPORT_SYMBOL\n"                                 /* 14 */
		"#endif\n"                                               /* 15 */
		"ACPI_EXPORT_SYMBOL(acpi)\n"                             /* 16 */
		"EXPORT_SYMBOL_IF_KUNIT(kunit);\n"                       /* 17 */
		"x = EXPORT_SYMBOL;\n"                                   /* 18 */
		"EXPORT_SYMBOL(two words);\n"                            /* 19 */
		"EXPORT_SYMBOL($$divI);\n"                               /* 20 */
		"#define X 1 /* a comment\n"                             /* 21 */
		"   over lines */ EXPORT_SYMBOL(in_define_after_comment)\n" /* 22 */
		"EXPORT_SYMBOL(last)";                                   /* 23, no newline */
	struct ksc_src *src = scan_mem(env, "lex.c", text, KSC_SRC_MENTIONS);
	static const struct {
		unsigned line;
		const char *sym_or_macro;
		enum ksc_src_mention why;
	} want[] = {
		{ 1, "EXPORT_SYMBOL", KSC_SRC_IN_COMMENT },
		{ 2, "EXPORT_SYMBOL", KSC_SRC_IN_COMMENT },
		{ 3, "EXPORT_SYMBOL", KSC_SRC_IN_COMMENT },
		{ 4, "EXPORT_SYMBOL", KSC_SRC_IN_STRING },
		{ 4, "EXPORT_SYMBOL", KSC_SRC_IN_STRING },
		{ 5, "after_quote", 0 },
		{ 6, "after_quote2", 0 },
		{ 7, "spread", 0 },
		{ 9, "continued", 0 },
		{ 11, "EXPORT_SYMBOL", KSC_SRC_IN_DEFINE },
		{ 13, "EXPORT_SYMBOL_GPL", KSC_SRC_IN_DEFINE },
		{ 14, "EXPORT_SYMBOL", KSC_SRC_IN_DIRECTIVE },
		{ 16, "ACPI_EXPORT_SYMBOL", KSC_SRC_OTHER_MACRO },
		{ 17, "EXPORT_SYMBOL_IF_KUNIT", KSC_SRC_OTHER_MACRO },
		{ 18, "EXPORT_SYMBOL", KSC_SRC_NOT_INVOKED },
		{ 19, "EXPORT_SYMBOL", KSC_SRC_BAD_ARGS },
		{ 20, "$$divI", 0 },
		{ 22, "EXPORT_SYMBOL", KSC_SRC_IN_DEFINE },
		{ 23, "last", 0 },
	};
	assert_int_equal(ksc_src_get_record_count(src), ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct ksc_src_record *r = ksc_src_get_record(src, i);
		if (r->line != want[i].line)
			fail_msg("record %zu: line %u, expected %u", i, r->line, want[i].line);
		if (want[i].why) {
			assert_int_equal(r->kind, KSC_SRC_MENTION);
			assert_int_equal(r->mention, want[i].why);
			assert_string_equal(r->macro, want[i].sym_or_macro);
		} else {
			assert_int_equal(r->kind, KSC_SRC_EXPORT);
			assert_string_equal(r->symbol, want[i].sym_or_macro);
		}
	}
	assert_string_equal(nth(src, KSC_SRC_EXPORT, 2)->ns, "AB");
	assert_int_equal(nth(src, KSC_SRC_EXPORT, 2)->column, 1);
	ksc_src_unref(src);

	/* Without KSC_SRC_MENTIONS only the records. */
	src = scan_mem(env, "lex.c", text, 0);
	assert_int_equal(ksc_src_get_record_count(src), 6);
	assert_int_equal(count_kind(src, KSC_SRC_MENTION), 0);
	ksc_src_unref(src);
}

/* Inputs the fuzzer (fuzz/fuzz-src.c) found mishandled, kept as regressions. */
static void test_scan_fuzz_regressions(void **state)
{
	struct test_env *env = *state;
	struct ksc_src *src;

	/* A continuation after an escaped backslash still joins the lines (phase 2). */
	src = scan_mem(env, "s.c", "const char *s = \"x\\\\\nEXPORT_SYMBOL(in_string)\";\n"
				   "EXPORT_SYMBOL(after);\n", KSC_SRC_MENTIONS);
	assert_int_equal(ksc_src_get_record_count(src), 2);
	assert_int_equal(ksc_src_get_record(src, 0)->mention, KSC_SRC_IN_STRING);
	assert_string_equal(nth(src, KSC_SRC_EXPORT, 0)->symbol, "after");
	ksc_src_unref(src);

	/* A block comment inside a directive carries it over lines. */
	static const char dir[] = "#define DEFAULT_SYMBOL_NAMESPACE FOO /* a\n b */ BAR\n"
				  "EXPORT_SYMBOL(x);\n";
	src = scan_mem(env, "d.c", dir, 0);
	const struct ksc_src_record *r = nth(src, KSC_SRC_DEFAULT_NS, 0);
	assert_non_null(r);
	assert_string_equal(r->ns, "FOO BAR");
	assert_int_equal(r->spelling, KSC_SRC_SPELL_OTHER);
	assert_true(r->ns_offset >= r->offset && r->ns_end <= r->end);
	assert_memory_equal(dir + r->end, "\nEXPORT", 7);
	assert_string_equal(nth(src, KSC_SRC_EXPORT, 0)->ns, "FOO BAR");
	ksc_src_unref(src);

	/*
	 * A keyword inside an invocation, then a long run of plain bytes: the lexer must not
	 * scan from past the next keyword (an overread with AVX2).
	 */
	char text[512];
	snprintf(text, sizeof(text), "EXPORT_SYMBOL_NS(a,\n EXPORT_SYMBOL_GPL);%100s\n"
		 "EXPORT_SYMBOL(b);", "");
	src = scan_mem(env, "k.c", text, 0);
	assert_int_equal(count_kind(src, KSC_SRC_EXPORT), 2);
	assert_string_equal(nth(src, KSC_SRC_EXPORT, 0)->ns, "EXPORT_SYMBOL_GPL");
	ksc_src_unref(src);
}

static void test_scan_asm(void **state)
{
	struct test_env *env = *state;
	static const char text[] =
		"# it's a comment line: EXPORT_SYMBOL(hash)\n"
		"\tmovb $'a, %al // EXPORT_SYMBOL(slash)\n"
		"EXPORT_SYMBOL(fx_asm)\n"
		"\tmovb $'\"', %al\n"; /* a lone " would open a string in C */
	struct ksc_src *src = scan_mem(env, "a.S", text, KSC_SRC_MENTIONS);

	assert_int_equal(ksc_src_get_record_count(src), 3);
	assert_int_equal(ksc_src_get_record(src, 0)->mention, KSC_SRC_IN_DIRECTIVE);
	assert_int_equal(ksc_src_get_record(src, 1)->mention, KSC_SRC_IN_COMMENT);
	assert_export(ksc_src_get_record(src, 2), "fx_asm", "EXPORT_SYMBOL", false, "",
		      KSC_SRC_SPELL_NONE, 3);
	ksc_src_unref(src);
	/* The same text as C: the ' opens a character literal. */
	src = scan_mem(env, "a.c", text, 0);
	assert_int_equal(count_kind(src, KSC_SRC_EXPORT), 1);
	ksc_src_unref(src);
}

static void test_scan_default_ns(void **state)
{
	struct test_env *env = *state;
	static const char first[] =
		"#define DEFAULT_SYMBOL_NAMESPACE FX_ID\n"
		"#include <linux/export.h>\n"
		"EXPORT_SYMBOL(a);\n"
		"EXPORT_SYMBOL_NS(b, OTHER);\n"  /* R1: the default does not apply to _NS */
		"#undef DEFAULT_SYMBOL_NAMESPACE\n"
		"#define DEFAULT_SYMBOL_NAMESPACE \"FX_STR\"\n"
		"EXPORT_SYMBOL_GPL(c);\n"
		"#undef DEFAULT_SYMBOL_NAMESPACE\n"
		"EXPORT_SYMBOL(d);\n";            /* defined at the include, now undefined */
	struct ksc_src *src = scan_mem(env, "first.c", first, 0);

	assert_export(nth(src, KSC_SRC_EXPORT, 0), "a", "EXPORT_SYMBOL", false, "FX_ID",
		      KSC_SRC_SPELL_IDENT, 3);
	assert_string_equal(nth(src, KSC_SRC_EXPORT, 0)->ns_from, "first.c:1");
	assert_export(nth(src, KSC_SRC_EXPORT, 1), "b", "EXPORT_SYMBOL_NS", false, "OTHER",
		      KSC_SRC_SPELL_IDENT, 4);
	assert_null(nth(src, KSC_SRC_EXPORT, 1)->ns_from);
	assert_export(nth(src, KSC_SRC_EXPORT, 2), "c", "EXPORT_SYMBOL_GPL", true, "FX_STR",
		      KSC_SRC_SPELL_STRING, 7);
	assert_string_equal(nth(src, KSC_SRC_EXPORT, 2)->ns_from, "first.c:6");
	assert_export(nth(src, KSC_SRC_EXPORT, 3), "d", "EXPORT_SYMBOL", false,
		      "DEFAULT_SYMBOL_NAMESPACE", KSC_SRC_SPELL_OTHER, 9);
	assert_int_equal(count_kind(src, KSC_SRC_DEFAULT_NS), 4);
	const struct ksc_src_record *r = nth(src, KSC_SRC_DEFAULT_NS, 0);
	assert_string_equal(r->macro, "#define");
	assert_false(r->after_include);
	assert_memory_equal(first + r->ns_offset, "FX_ID", r->ns_end - r->ns_offset);
	r = nth(src, KSC_SRC_DEFAULT_NS, 1);
	assert_string_equal(r->macro, "#undef");
	assert_string_equal(r->ns, "");
	assert_true(r->after_include);
	ksc_src_unref(src);

	/* 6.1's pwm-lpss.c: defined after linux/module.h read export.h: no effect. */
	static const char late[] =
		"#include <linux/module.h>\n"
		"#define DEFAULT_SYMBOL_NAMESPACE PWM_LPSS\n"
		"EXPORT_SYMBOL_GPL(pwm_lpss_probe);\n";
	src = scan_mem(env, "late.c", late, 0);
	assert_export(nth(src, KSC_SRC_EXPORT, 0), "pwm_lpss_probe", "EXPORT_SYMBOL_GPL", true, "",
		      KSC_SRC_SPELL_NONE, 3);
	assert_true(nth(src, KSC_SRC_DEFAULT_NS, 0)->after_include);
	ksc_src_unref(src);

	/* A function-like macro of that name is not the default. */
	src = scan_mem(env, "fn.c", "#define DEFAULT_SYMBOL_NAMESPACE(x) x\nEXPORT_SYMBOL(a);\n", 0);
	assert_int_equal(count_kind(src, KSC_SRC_DEFAULT_NS), 0);
	assert_string_equal(nth(src, KSC_SRC_EXPORT, 0)->ns, "");
	ksc_src_unref(src);
}

static void test_scan_makefile(void **state)
{
	struct test_env *env = *state;
	static const char text[] =
		"# -DDEFAULT_SYMBOL_NAMESPACE=IN_COMMENT\n"
		"ccflags-y += -DDEFAULT_SYMBOL_NAMESPACE=USB_STORAGE\n"
		"ccflags-$(CONFIG_X) := -I. \\\n"
		"\t-DDEFAULT_SYMBOL_NAMESPACE='\"CXL\"' -Wall\n"
		"CFLAGS_foo.o = -DDEFAULT_SYMBOL_NAMESPACE=\\\"ESC\\\"\n"
		"subdir-ccflags-y += \"-DDEFAULT_SYMBOL_NAMESPACE=\\\"DQ\\\"\"\n"
		"KBUILD_CFLAGS += -DDEFAULT_SYMBOL_NAMESPACE=NOT_A_KBUILD_FLAGS_VAR\n"
		"ccflags-y += -DDEFAULT_SYMBOL_NAMESPACE_OTHER=X # a longer name\n"
		"asflags-y += -DDEFAULT_SYMBOL_NAMESPACE=ASM # comment -DDEFAULT_SYMBOL_NAMESPACE=C\n";
	struct ksc_src *src = scan_mem(env, "Makefile", text, 0);
	static const struct {
		const char *var, *ns, *raw;
		enum ksc_src_spelling sp;
		unsigned line;
	} want[] = {
		{ "ccflags-y", "USB_STORAGE", "USB_STORAGE", KSC_SRC_SPELL_IDENT, 2 },
		{ "ccflags-$(CONFIG_X)", "CXL", "'\"CXL\"'", KSC_SRC_SPELL_STRING, 4 },
		{ "CFLAGS_foo.o", "ESC", "\\\"ESC\\\"", KSC_SRC_SPELL_STRING, 5 },
		{ "subdir-ccflags-y", "DQ", "\\\"DQ\\\"\"", KSC_SRC_SPELL_STRING, 6 },
		{ "asflags-y", "ASM", "ASM", KSC_SRC_SPELL_IDENT, 9 },
	};

	assert_int_equal(ksc_src_get_record_count(src), ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct ksc_src_record *r = ksc_src_get_record(src, i);
		assert_int_equal(r->kind, KSC_SRC_DEFAULT_NS);
		assert_string_equal(r->macro, want[i].var);
		assert_string_equal(r->ns, want[i].ns);
		assert_int_equal(r->spelling, want[i].sp);
		assert_int_equal(r->line, want[i].line);
		if (i != 3) /* the opening quote of the shell word is before -D */
			assert_memory_equal(text + r->ns_offset, want[i].raw,
					    r->ns_end - r->ns_offset);
	}
	ksc_src_unref(src);
}

/* A small tree on disk for ksc_src_add_path. */
static void make_tree(const char *dir)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/drv", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/drv/sub", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/drv/Makefile", dir);
	unit_write_file(p, "ccflags-y += -DDEFAULT_SYMBOL_NAMESPACE=DRV\n"
			   "subdir-ccflags-y += -DDEFAULT_SYMBOL_NAMESPACE=SUB\n"
			   "CFLAGS_one.o += -DDEFAULT_SYMBOL_NAMESPACE=ONE\n");
	snprintf(p, sizeof(p), "%s/drv/one.c", dir);
	unit_write_file(p, "EXPORT_SYMBOL(one);\n");
	snprintf(p, sizeof(p), "%s/drv/two.c", dir);
	unit_write_file(p, "EXPORT_SYMBOL(two);\nMODULE_LICENSE(\"GPL\");\n");
	snprintf(p, sizeof(p), "%s/drv/sub/three.c", dir);
	unit_write_file(p, "EXPORT_SYMBOL_GPL(three);\n");
	snprintf(p, sizeof(p), "%s/drv/sub/notes.txt", dir);
	unit_write_file(p, "EXPORT_SYMBOL(not_a_source_file);\n");
	snprintf(p, sizeof(p), "%s/top.h", dir);
	unit_write_file(p, "EXPORT_SYMBOL(top);\n");
	snprintf(p, sizeof(p), "%s/link.c", dir);
	assert_int_equal(symlink("top.h", p), 0); /* not followed, as grep -r */
	for (int i = 0; i < 40; i++) {
		snprintf(p, sizeof(p), "%s/drv/sub/many%02d.c", dir, i);
		char text[64];
		snprintf(text, sizeof(text), "EXPORT_SYMBOL_NS(many%02d, \"N%d\");\n", i, i % 3);
		unit_write_file(p, text);
	}
}

static void test_scan_tree(void **state)
{
	struct test_env *env = *state;
	char dir[256], p[512];
	struct ksc_src *one, *four;
	struct ksc_src_opts o1 = { .sz = sizeof(o1), .threads = 1 };
	struct ksc_src_opts o4 = { .sz = sizeof(o4), .threads = 4 };

	unit_mkdtemp(dir, sizeof(dir));
	make_tree(dir);
	assert_int_equal(ksc_src_new(env->ctx, &o1, &one), 0);
	assert_int_equal(ksc_src_new(env->ctx, &o4, &four), 0);
	assert_int_equal(ksc_src_add_path(one, dir), 45); /* 44 sources + drv/Makefile */
	assert_int_equal(ksc_src_add_path(four, dir), 45);
	assert_int_equal(ksc_src_get_record_count(one), ksc_src_get_record_count(four));
	assert_int_equal(ksc_src_get_record_count(one), 3 + 1 + 2 + 1 + 40 + 1);
	for (size_t i = 0; i < ksc_src_get_record_count(one); i++) {
		const struct ksc_src_record *a = ksc_src_get_record(one, i);
		const struct ksc_src_record *b = ksc_src_get_record(four, i);
		assert_string_equal(a->path, b->path);
		assert_int_equal(a->offset, b->offset);
		if (i > 0) /* path order, then file order */
			assert_true(strcmp(ksc_src_get_record(one, i - 1)->path,
					   a->path) <= 0);
	}
	/* drv/Makefile's three flags, then one.c, two.c, then sub/ */
	snprintf(p, sizeof(p), "%s/drv/one.c", dir);
	for (size_t i = 0; i < ksc_src_get_record_count(one); i++) {
		const struct ksc_src_record *r = ksc_src_get_record(one, i);
		if (r->kind != KSC_SRC_EXPORT)
			continue;
		if (strcmp(r->symbol, "one") == 0) {
			assert_string_equal(r->path, p);
			assert_string_equal(r->ns, "ONE"); /* CFLAGS_one.o wins */
		} else if (strcmp(r->symbol, "two") == 0) {
			assert_string_equal(r->ns, "DRV");
		} else if (strcmp(r->symbol, "three") == 0) {
			assert_string_equal(r->ns, "SUB"); /* subdir-ccflags-y */
		} else if (strcmp(r->symbol, "top") == 0) {
			assert_string_equal(r->ns, "");
		} else {
			assert_true(strncmp(r->symbol, "many", 4) == 0);
		}
	}
	/* A file given alone gets its folder's flags. */
	struct ksc_src *single;
	assert_int_equal(ksc_src_new(env->ctx, NULL, &single), 0);
	assert_int_equal(ksc_src_add_path(single, p), 1);
	assert_string_equal(nth(single, KSC_SRC_EXPORT, 0)->ns, "ONE");
	/* A missing path: -ENOENT, logged, counted. */
	test_log_clear(env);
	snprintf(p, sizeof(p), "%s/nope", dir);
	assert_int_equal(ksc_src_add_path(single, p), -ENOENT);
	assert_int_equal(ksc_src_get_error_count(single), 1);
	assert_log_contains(env, "nope: No such file or directory");
	ksc_src_unref(single);
	/* A trailing slash does not double in paths. */
	snprintf(p, sizeof(p), "%s/drv/sub/", dir);
	assert_int_equal(ksc_src_new(env->ctx, NULL, &single), 0);
	assert_true(ksc_src_add_path(single, p) > 0);
	snprintf(p, sizeof(p), "%s/drv/sub/three.c", dir);
	assert_string_equal(nth(single, KSC_SRC_EXPORT, 40)->path, p);
	ksc_src_unref(single);

	ksc_src_unref(one);
	ksc_src_unref(four);
	unit_rm_rf(dir);
}

/* ---------------------------------------------------------------------------------- */
/* Edits and diffs                                                                    */

static struct ksc_srcedit *edit_mem(struct test_env *env, const char *name,
				    const char *text)
{
	struct ksc_srcedit *e = NULL;

	assert_int_equal(
		ksc_srcedit_new_from_memory(env->ctx, name, text, strlen(text), &e), 0);
	return e;
}

static char *result_of(const struct ksc_srcedit *e)
{
	char *out = NULL;
	size_t n;

	assert_int_equal(ksc_srcedit_get_result(e, &out, &n), 0);
	assert_int_equal(strlen(out), n);
	return out;
}

/* The diff with the labels made from `name` (NULL: the edit's path). */
static char *diff_as(const struct ksc_srcedit *e, const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(name ? ksc_srcedit_write_diff_as(e, name, f)
			      : ksc_srcedit_write_diff(e, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *diff_of(const struct ksc_srcedit *e)
{
	return diff_as(e, NULL);
}

static void test_edit_replace(void **state)
{
	struct test_env *env = *state;
	struct ksc_srcedit *e = edit_mem(env, "x.c", "abcdef");
	char *out;

	assert_int_equal(ksc_srcedit_replace(e, 1, 2, "XY"), 0);       /* bc */
	assert_int_equal(ksc_srcedit_replace(e, 2, 1, "Q"), -EINVAL);  /* overlaps */
	assert_int_equal(ksc_srcedit_replace(e, 2, 0, "Q"), -EINVAL);  /* inside a replacement */
	assert_int_equal(ksc_srcedit_replace(e, 0, 1, "A"), 0);
	assert_int_equal(ksc_srcedit_replace(e, 6, 0, "!"), 0);         /* at the end */
	assert_int_equal(ksc_srcedit_replace(e, 3, 0, "1"), 0);         /* right after bc */
	assert_int_equal(ksc_srcedit_replace(e, 3, 0, "2"), 0);         /* keeps its order */
	assert_int_equal(ksc_srcedit_replace(e, 6, 1, "?"), -EINVAL);   /* past the end */
	assert_int_equal(ksc_srcedit_replace(e, 7, 0, "?"), -EINVAL);
	assert_int_equal(ksc_srcedit_get_edit_count(e), 5);
	out = result_of(e);
	assert_string_equal(out, "AXY12def!");
	free(out);
	ksc_srcedit_free(e);
}

static void test_edit_diff(void **state)
{
	struct test_env *env = *state;
	struct ksc_srcedit *e;
	char *d;
	char text[2048] = "";

	for (int i = 1; i <= 20; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "line %d\n", i);

	/* Two changes far apart: two hunks with three lines of context. */
	e = edit_mem(env, "./dir/f.c", text);
	assert_int_equal(ksc_srcedit_replace(e, strstr(text, "line 2\n") - text + 5, 1, "two"), 0);
	assert_int_equal(ksc_srcedit_replace(e, strstr(text, "line 18\n") - text, 0, "new\n"), 0);
	d = diff_of(e);
	assert_string_equal(d,
		"--- a/dir/f.c\n+++ b/dir/f.c\n"
		"@@ -1,5 +1,5 @@\n line 1\n-line 2\n+line two\n line 3\n line 4\n line 5\n"
		"@@ -15,6 +15,7 @@\n line 15\n line 16\n line 17\n+new\n line 18\n line 19\n line 20\n");
	free(d);
	ksc_srcedit_free(e);

	/* Changes up to six lines apart share one hunk. */
	e = edit_mem(env, "/abs/f.c", text);
	assert_int_equal(ksc_srcedit_replace(e, strstr(text, "line 3\n") - text, 4, "LINE"), 0);
	assert_int_equal(ksc_srcedit_replace(e, strstr(text, "line 10\n") - text, 4, "LINE"), 0);
	d = diff_of(e);
	assert_string_equal(d,
		"--- /abs/f.c\n+++ /abs/f.c\n"
		"@@ -1,13 +1,13 @@\n line 1\n line 2\n-line 3\n+LINE 3\n line 4\n line 5\n line 6\n"
		" line 7\n line 8\n line 9\n-line 10\n+LINE 10\n line 11\n line 12\n line 13\n");
	free(d);
	ksc_srcedit_free(e);

	/* No newline at the end, before and after. */
	e = edit_mem(env, "n.c", "a\nb");
	assert_int_equal(ksc_srcedit_replace(e, 3, 0, "c"), 0);
	d = diff_of(e);
	assert_string_equal(d, "--- a/n.c\n+++ b/n.c\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
			       "+bc\n\\ No newline at end of file\n");
	free(d);
	ksc_srcedit_free(e);

	e = edit_mem(env, "n.c", "a\nb");
	assert_int_equal(ksc_srcedit_replace(e, 3, 0, "\nc\n"), 0);
	d = diff_of(e);
	assert_string_equal(d, "--- a/n.c\n+++ b/n.c\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n"
			       "+b\n+c\n");
	free(d);
	ksc_srcedit_free(e);

	/* An empty file. */
	e = edit_mem(env, "empty.c", "");
	assert_int_equal(ksc_srcedit_replace(e, 0, 0, "x\n"), 0);
	d = diff_of(e);
	assert_string_equal(d, "--- a/empty.c\n+++ b/empty.c\n@@ -0,0 +1 @@\n+x\n");
	free(d);
	ksc_srcedit_free(e);

	/* Another name for the labels, and names that must be quoted as git quotes them. */
	e = edit_mem(env, "/abs/src/m.c", "a\n");
	assert_int_equal(ksc_srcedit_replace(e, 0, 1, "b"), 0);
	d = diff_as(e, "m.c");
	assert_string_equal(d, "--- a/m.c\n+++ b/m.c\n@@ -1 +1 @@\n-a\n+b\n");
	free(d);
	d = diff_as(e, "./sub dir/t\tq\"\\\x1b\xc3\xa9.c");
	assert_string_equal(d, "--- \"a/sub dir/t\\tq\\\"\\\\\\033\\303\\251.c\"\n"
			       "+++ \"b/sub dir/t\\tq\\\"\\\\\\033\\303\\251.c\"\n"
			       "@@ -1 +1 @@\n-a\n+b\n");
	free(d);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		assert_int_equal(ksc_srcedit_write_diff_as(e, "", f), -EINVAL);
		fclose(f);
		free(buf);
	}
	ksc_srcedit_free(e);

	/* No edits: no output. */
	e = edit_mem(env, "same.c", text);
	d = diff_of(e);
	assert_string_equal(d, "");
	free(d);
	ksc_srcedit_free(e);
}

/* ---------------------------------------------------------------------------------- */
/* Atomic replacement                                                                 */

struct hook_data {
	const char *path;
	/* written over the original, same size, old mtime restored */
	const char *replacement;
	int ret;
	bool called;
	char tmp[512];
};

static int hook(void *data, const char *path, const char *tmp)
{
	struct hook_data *h = data;
	struct stat st;

	h->called = true;
	assert_string_equal(path, h->path);
	snprintf(h->tmp, sizeof(h->tmp), "%s", tmp);
	assert_int_equal(stat(tmp, &st), 0); /* the new content is there, synced */
	if (h->replacement) {
		struct stat old;
		assert_int_equal(stat(path, &old), 0);
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, h->replacement, strlen(h->replacement)),
				 (ssize_t)strlen(h->replacement));
		close(fd);
		/* a sneaky edit: same size, same mtime; only the content hash can tell */
		struct timespec ts[2] = { old.st_atim, old.st_mtim };
		assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	}
	return h->ret;
}

/* after_check: the same sneaky edit, in the instant between the last check and the switch */
static void late_edit(void *data, const char *path)
{
	struct hook_data *h = data;
	struct stat old;

	h->called = true;
	assert_int_equal(stat(path, &old), 0);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, h->replacement, strlen(h->replacement)),
			 (ssize_t)strlen(h->replacement));
	close(fd);
	struct timespec ts[2] = { old.st_atim, old.st_mtim };
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void test_commit(void **state)
{
	struct test_env *env = *state;
	char dir[256], path[512], lpath[512];
	struct ksc_srcedit *e;
	struct stat st, st2;
	char *data;

	unit_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/f.c", dir);

	/* Success: content, permission bits kept, new mtime, nothing else left. */
	unit_write_file(path, "EXPORT_SYMBOL_NS(a, X);\n");
	assert_int_equal(chmod(path, 0640), 0);
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	assert_int_equal(ksc_srcedit_new_from_path(env->ctx, path, &e), 0);
	assert_int_equal(ksc_srcedit_plan_migrate(e, "6.13"), 1);
	assert_int_equal(ksc_srcedit_commit(e, NULL), 0);
	data = unit_read_file(path, NULL);
	assert_string_equal(data, "EXPORT_SYMBOL_NS(a, \"X\");\n");
	free(data);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_true(st.st_mtim.tv_sec > 1000000000);
	assert_int_equal(unit_count_dir(dir), 1);
	/* A second commit, and a second plan, have nothing to do. */
	assert_int_equal(ksc_srcedit_commit(e, NULL), 0);
	assert_int_equal(ksc_srcedit_plan_migrate(e, "6.13"), 0);
	ksc_srcedit_free(e);

	/* Read-only: left alone, even for root. */
	unit_write_file(path, "EXPORT_SYMBOL_NS(a, X);\n");
	assert_int_equal(chmod(path, 0444), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(ksc_srcedit_new_from_path(env->ctx, path, &e), 0);
	assert_int_equal(ksc_srcedit_plan_migrate(e, "6.13"), 1);
	test_log_clear(env);
	assert_int_equal(ksc_srcedit_commit(e, NULL), -EACCES);
	assert_log_contains(env, "f.c: read-only (no write permission); left unchanged");
	data = unit_read_file(path, NULL);
	assert_string_equal(data, "EXPORT_SYMBOL_NS(a, X);\n");
	free(data);
	assert_int_equal(stat(path, &st2), 0);
	assert_true(st.st_mtim.tv_sec == st2.st_mtim.tv_sec &&
		    st.st_mtim.tv_nsec == st2.st_mtim.tv_nsec);
	assert_int_equal(unit_count_dir(dir), 1);
	ksc_srcedit_free(e);
	assert_int_equal(chmod(path, 0644), 0);

	/* Edited while we ran (same size and mtime): left as the other writer left it. */
	unit_write_file(path, "EXPORT_SYMBOL_NS(a, X);\n");
	assert_int_equal(ksc_srcedit_new_from_path(env->ctx, path, &e), 0);
	assert_int_equal(ksc_srcedit_plan_migrate(e, "6.13"), 1);
	struct hook_data h = { .path = path, .replacement = "EXPORT_SYMBOL_NS(b, Y);\n" };
	struct ksc_srcedit_commit_opts co = { .sz = sizeof(co),
					      .before_replace = hook,
					      .data = &h };
	test_log_clear(env);
	assert_int_equal(ksc_srcedit_commit(e, &co), -ESTALE);
	assert_true(h.called);
	assert_log_contains(env, "f.c: changed since it was read; left unchanged");
	data = unit_read_file(path, NULL);
	assert_string_equal(data, "EXPORT_SYMBOL_NS(b, Y);\n");
	free(data);
	assert_int_equal(access(h.tmp, F_OK), -1); /* temporary file removed */
	assert_int_equal(unit_count_dir(dir), 1);
	ksc_srcedit_free(e);

	/* Edited in the last instant, after the last check: swapped back, the edit kept. */
	unit_write_file(path, "EXPORT_SYMBOL_NS(a, X);\n");
	assert_int_equal(ksc_srcedit_new_from_path(env->ctx, path, &e), 0);
	assert_int_equal(ksc_srcedit_plan_migrate(e, "6.13"), 1);
	h = (struct hook_data){ .path = path, .replacement = "EXPORT_SYMBOL_NS(c, Z);\n" };
	struct ksc_srcedit_commit_opts late = { .sz = sizeof(late),
						.after_check = late_edit,
						.data = &h };
	test_log_clear(env);
	assert_int_equal(ksc_srcedit_commit(e, &late), -ESTALE);
	assert_true(h.called);
	assert_log_contains(env, "f.c: changed in the instant it was replaced (that change "
				 "kept); left unchanged");
	data = unit_read_file(path, NULL);
	assert_string_equal(data, "EXPORT_SYMBOL_NS(c, Z);\n");
	free(data);
	assert_int_equal(unit_count_dir(dir), 1);
	ksc_srcedit_free(e);

	/* Edited with a new size: caught by the size. */
	unit_write_file(path, "EXPORT_SYMBOL_NS(a, X);\n");
	assert_int_equal(ksc_srcedit_new_from_path(env->ctx, path, &e), 0);
	assert_int_equal(ksc_srcedit_plan_migrate(e, "6.13"), 1);
	h = (struct hook_data){ .path = path, .replacement = "/* longer */ EXPORT_SYMBOL_NS(a, X);\n" };
	assert_int_equal(ksc_srcedit_commit(e, &co), -ESTALE);
	data = unit_read_file(path, NULL);
	assert_string_equal(data, "/* longer */ EXPORT_SYMBOL_NS(a, X);\n");
	free(data);
	assert_int_equal(unit_count_dir(dir), 1);
	ksc_srcedit_free(e);

	/* Cancelled by the callback. */
	unit_write_file(path, "EXPORT_SYMBOL_NS(a, X);\n");
	assert_int_equal(ksc_srcedit_new_from_path(env->ctx, path, &e), 0);
	assert_int_equal(ksc_srcedit_plan_migrate(e, "6.13"), 1);
	h = (struct hook_data){ .path = path, .ret = -ECANCELED };
	assert_int_equal(ksc_srcedit_commit(e, &co), -ECANCELED);
	data = unit_read_file(path, NULL);
	assert_string_equal(data, "EXPORT_SYMBOL_NS(a, X);\n");
	free(data);
	assert_int_equal(unit_count_dir(dir), 1);
	ksc_srcedit_free(e);

	/* Replaced by another file meanwhile (a new inode). */
	assert_int_equal(ksc_srcedit_new_from_path(env->ctx, path, &e), 0);
	assert_int_equal(ksc_srcedit_plan_migrate(e, "6.13"), 1);
	assert_int_equal(unlink(path), 0);
	unit_write_file(path, "EXPORT_SYMBOL_NS(a, X);\n");
	assert_int_equal(ksc_srcedit_commit(e, NULL), -ESTALE);
	ksc_srcedit_free(e);

	/* Hard links: replacing would split them. */
	snprintf(lpath, sizeof(lpath), "%s/g.c", dir);
	assert_int_equal(link(path, lpath), 0);
	assert_int_equal(ksc_srcedit_new_from_path(env->ctx, path, &e), 0);
	assert_int_equal(ksc_srcedit_plan_migrate(e, "6.13"), 1);
	assert_int_equal(ksc_srcedit_commit(e, NULL), -EMLINK);
	data = unit_read_file(lpath, NULL);
	assert_string_equal(data, "EXPORT_SYMBOL_NS(a, X);\n");
	free(data);
	ksc_srcedit_free(e);
	unlink(lpath);

	/* A missing file. */
	snprintf(lpath, sizeof(lpath), "%s/missing.c", dir);
	test_log_clear(env);
	assert_int_equal(ksc_srcedit_new_from_path(env->ctx, lpath, &e), -ENOENT);
	assert_log_contains(env, "missing.c: No such file or directory");
	/* Memory edits cannot be committed. */
	e = edit_mem(env, "m.c", "EXPORT_SYMBOL_NS(a, X);\n");
	assert_int_equal(ksc_srcedit_plan_migrate(e, "6.13"), 1);
	assert_int_equal(ksc_srcedit_commit(e, NULL), -EINVAL);
	ksc_srcedit_free(e);
	unit_rm_rf(dir);
}

/* ---------------------------------------------------------------------------------- */
/* Planners                                                                           */

static void check_migrate(struct test_env *env, const char *name, const char *in,
			  const char *kver, const char *want, size_t notes)
{
	struct ksc_srcedit *e = edit_mem(env, name, in);
	char *out;
	int n = ksc_srcedit_plan_migrate(e, kver);

	assert_true(n >= 0);
	out = result_of(e);
	if (strcmp(out, want) != 0)
		fail_msg("migrate %s to %s:\n%s\nexpected:\n%s", name, kver, out, want);
	if (ksc_srcedit_get_note_count(e) != notes)
		fail_msg("migrate %s to %s: %zu notes, expected %zu (first: %s)", name, kver,
			 ksc_srcedit_get_note_count(e), notes,
			 ksc_srcedit_get_note_count(e) ? ksc_srcedit_get_note(e, 0)->text : "-");
	ksc_srcedit_free(e);
	/* idempotent: the result needs nothing more */
	e = edit_mem(env, name, out);
	assert_int_equal(ksc_srcedit_plan_migrate(e, kver), 0);
	ksc_srcedit_free(e);
	free(out);
}

static void test_plan_migrate(void **state)
{
	struct test_env *env = *state;
	static const char old[] =
		"EXPORT_SYMBOL_NS(a, NS_A);\n"
		"EXPORT_SYMBOL_NS_GPL(b, /* c */ NS_B);\n"
		"EXPORT_SYMBOL_GPL_FOR_MODULES(c, \"kvm\");\n"
		"MODULE_IMPORT_NS(NS_C);\n";
	static const char new_[] =
		"EXPORT_SYMBOL_NS(a, \"NS_A\");\n"
		"EXPORT_SYMBOL_NS_GPL(b, /* c */ \"NS_B\");\n"
		"EXPORT_SYMBOL_FOR_MODULES(c, \"kvm\");\n"
		"MODULE_IMPORT_NS(\"NS_C\");\n";
	static const char n616[] =
		"EXPORT_SYMBOL_NS(a, \"NS_A\");\n"
		"EXPORT_SYMBOL_NS_GPL(b, /* c */ \"NS_B\");\n"
		"EXPORT_SYMBOL_GPL_FOR_MODULES(c, \"kvm\");\n"
		"MODULE_IMPORT_NS(\"NS_C\");\n";

	check_migrate(env, "a.c", old, "6.17", new_, 0);
	check_migrate(env, "a.c", old, "7.1", new_, 0);
	check_migrate(env, "a.c", old, "6.16", n616, 0);
	check_migrate(env, "a.c", new_, "6.16", n616, 0);
	check_migrate(env, "a.c", new_, "6.12.40", old, 1);  /* the backport note */
	check_migrate(env, "a.c", new_, "6.11", /* no FOR_MODULES there: left, with a note */
		      "EXPORT_SYMBOL_NS(a, NS_A);\n"
		      "EXPORT_SYMBOL_NS_GPL(b, /* c */ NS_B);\n"
		      "EXPORT_SYMBOL_FOR_MODULES(c, \"kvm\");\n"
		      "MODULE_IMPORT_NS(NS_C);\n", 1);
	check_migrate(env, "a.c", old, "5.3", old, 4);       /* no namespaces at all */

	/* Macro-valued, non-identifier and expression namespaces are notes. */
	check_migrate(env, "m.c", "#define MY_NS FOO\nEXPORT_SYMBOL_NS(a, MY_NS);\n", "6.13",
		      "#define MY_NS FOO\nEXPORT_SYMBOL_NS(a, MY_NS);\n", 1);
	check_migrate(env, "m.c", "EXPORT_SYMBOL_NS(a, \"A-B\");\n", "6.12",
		      "EXPORT_SYMBOL_NS(a, \"A-B\");\n", 1);
	check_migrate(env, "m.c", "EXPORT_SYMBOL_NS(a, \"A\" \"B\");\n", "6.12",
		      "EXPORT_SYMBOL_NS(a, AB);\n", 0);
	check_migrate(env, "m.c", "EXPORT_SYMBOL_NS(a, PREFIX \"B\");\n", "6.13",
		      "EXPORT_SYMBOL_NS(a, PREFIX \"B\");\n", 1);
	/* R11: an explicit module: import is a note from 6.16. */
	check_migrate(env, "m.c", "MODULE_IMPORT_NS(\"module:kvm\");\n", "6.16",
		      "MODULE_IMPORT_NS(\"module:kvm\");\n", 1);
	check_migrate(env, "m.c", "MODULE_IMPORT_NS(\"module:kvm\");\n", "6.15",
		      "MODULE_IMPORT_NS(\"module:kvm\");\n", 0);
	/* FOR_KVM exists from 6.19 (approx.) */
	check_migrate(env, "m.c", "EXPORT_SYMBOL_FOR_KVM(x);\n", "6.18",
		      "EXPORT_SYMBOL_FOR_KVM(x);\n", 1);
	check_migrate(env, "m.c", "EXPORT_SYMBOL_FOR_KVM(x);\n", "6.19",
		      "EXPORT_SYMBOL_FOR_KVM(x);\n", 0);
	/* DEFAULT_SYMBOL_NAMESPACE: #define, and a late one gets a note. */
	check_migrate(env, "d.c", "#define DEFAULT_SYMBOL_NAMESPACE FOO\n#include <x.h>\n", "6.13",
		      "#define DEFAULT_SYMBOL_NAMESPACE \"FOO\"\n#include <x.h>\n", 0);
	check_migrate(env, "d.c", "#include <x.h>\n#define DEFAULT_SYMBOL_NAMESPACE \"FOO\"\n", "6.12",
		      "#include <x.h>\n#define DEFAULT_SYMBOL_NAMESPACE FOO\n", 1);
	/* ... and Makefiles, as the kernel's own 6.13 conversion spells it. */
	check_migrate(env, "Makefile", "ccflags-y += -DDEFAULT_SYMBOL_NAMESPACE=USB_STORAGE\n", "6.13",
		      "ccflags-y += -DDEFAULT_SYMBOL_NAMESPACE='\"USB_STORAGE\"'\n", 0);
	check_migrate(env, "sub/Kbuild", "ccflags-y += -DDEFAULT_SYMBOL_NAMESPACE='\"CXL\"' -I.\n", "6.1",
		      "ccflags-y += -DDEFAULT_SYMBOL_NAMESPACE=CXL -I.\n", 0);
	/* Unknown version. */
	struct ksc_srcedit *e = edit_mem(env, "x.c", old);
	assert_int_equal(ksc_srcedit_plan_migrate(e, "latest"), -EINVAL);
	ksc_srcedit_free(e);
}

static void check_imports(struct test_env *env, const char *in, const char *kver,
			  const char *const *ns, size_t n, int ret, const char *want,
			  size_t notes)
{
	struct ksc_srcedit *e = edit_mem(env, "m.c", in);
	char *out;

	assert_int_equal(ksc_srcedit_plan_imports(e, kver, ns, n), ret);
	out = result_of(e);
	if (strcmp(out, want) != 0)
		fail_msg("imports:\n%s\nexpected:\n%s", out, want);
	assert_int_equal(ksc_srcedit_get_note_count(e), notes);
	ksc_srcedit_free(e);
	if (ret >= 0) { /* a second run adds nothing */
		e = edit_mem(env, "m.c", out);
		assert_int_equal(ksc_srcedit_plan_imports(e, kver, ns, n), 0);
		ksc_srcedit_free(e);
	}
	free(out);
}

static void test_plan_imports(void **state)
{
	struct test_env *env = *state;
	static const char *const two[] = { "USB_STORAGE", "FX_CORE" };
	static const char *const mod[] = { "module:kvm", "FX_CORE" };
	static const char *const odd[] = { "FX-ODD" };

	/* No imports yet: after MODULE_LICENSE(), sorted, in the version's syntax. */
	check_imports(env, "MODULE_LICENSE(\"GPL\");\nMODULE_AUTHOR(\"x\");\n", "6.13", two, 2, 2,
		      "MODULE_LICENSE(\"GPL\");\nMODULE_IMPORT_NS(\"FX_CORE\");\n"
		      "MODULE_IMPORT_NS(\"USB_STORAGE\");\nMODULE_AUTHOR(\"x\");\n", 0);
	check_imports(env, "MODULE_LICENSE(\"GPL\");\nMODULE_AUTHOR(\"x\");\n", "6.12", two, 2, 2,
		      "MODULE_LICENSE(\"GPL\");\nMODULE_IMPORT_NS(FX_CORE);\n"
		      "MODULE_IMPORT_NS(USB_STORAGE);\nMODULE_AUTHOR(\"x\");\n", 0);
	/* A statement over two lines, indented, at the end without a newline. */
	check_imports(env, "\tMODULE_LICENSE(\n\t\"GPL\") ;", "6.13", two, 2, 2,
		      "\tMODULE_LICENSE(\n\t\"GPL\") ;\n\tMODULE_IMPORT_NS(\"FX_CORE\");\n"
		      "\tMODULE_IMPORT_NS(\"USB_STORAGE\");", 0);
	/* Into a sorted block. */
	check_imports(env,
		      "MODULE_LICENSE(\"GPL\");\nMODULE_IMPORT_NS(\"DMA_BUF\");\n"
		      "MODULE_IMPORT_NS(\"IIO\");\nint x;\n", "6.16", two, 2, 2,
		      "MODULE_LICENSE(\"GPL\");\nMODULE_IMPORT_NS(\"DMA_BUF\");\n"
		      "MODULE_IMPORT_NS(\"FX_CORE\");\nMODULE_IMPORT_NS(\"IIO\");\n"
		      "MODULE_IMPORT_NS(\"USB_STORAGE\");\nint x;\n", 0);
	/* Already imported (in the other spelling): nothing to add. */
	check_imports(env, "MODULE_IMPORT_NS(FX_CORE);\nMODULE_LICENSE(\"GPL\");\n", "6.16", two + 1,
		      1, 0, "MODULE_IMPORT_NS(FX_CORE);\nMODULE_LICENSE(\"GPL\");\n", 0);
	/* module: never, with a note (R11). */
	check_imports(env, "MODULE_LICENSE(\"GPL\");\n", "6.16", mod, 2, 1,
		      "MODULE_LICENSE(\"GPL\");\nMODULE_IMPORT_NS(\"FX_CORE\");\n", 1);
	check_imports(env, "MODULE_LICENSE(\"GPL\");\n", "6.1", mod, 2, 1,
		      "MODULE_LICENSE(\"GPL\");\nMODULE_IMPORT_NS(FX_CORE);\n", 1);
	/* Before 6.13 a namespace must be an identifier. */
	check_imports(env, "MODULE_LICENSE(\"GPL\");\n", "6.1", odd, 1, 0,
		      "MODULE_LICENSE(\"GPL\");\n", 1);
	check_imports(env, "MODULE_LICENSE(\"GPL\");\n", "6.13", odd, 1, 1,
		      "MODULE_LICENSE(\"GPL\");\nMODULE_IMPORT_NS(\"FX-ODD\");\n", 0);
	/* No MODULE_LICENSE(): -ENOENT; a license in a comment does not count. */
	check_imports(env, "/* MODULE_LICENSE(\"GPL\"); */\n", "6.16", two, 2, -ENOENT,
		      "/* MODULE_LICENSE(\"GPL\"); */\n", 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scan_macros, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_scan_kvm_sub_modules, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_scan_lexer, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_scan_asm, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_scan_fuzz_regressions, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_scan_default_ns, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_scan_makefile, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_scan_tree, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_edit_replace, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_edit_diff, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_commit, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_plan_migrate, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_plan_imports, test_env_setup,
						test_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
