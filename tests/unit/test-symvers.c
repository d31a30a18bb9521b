// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for lib/readers/ksc-symvers.c: reading, writing, atomic replacement. */
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include "unit.h"
#include "readers/readers.h"

/* What modpost 5.6+ writes: namespace last, possibly empty (the line ends in a TAB). */
static const char text_5[] =
	"0x4c9d28b0\tphys_base\tvmlinux\tEXPORT_SYMBOL\t\n"
	"0x039823de\tinit_uts_ns\tvmlinux\tEXPORT_SYMBOL_GPL\t\n"
	"0xe1cc2a05\tusb_stor_suspend\tdrivers/usb/storage/usb-storage\tEXPORT_SYMBOL_GPL"
	"\tUSB_STORAGE\n"
	"0x00000000\tanon_inode_make_secure_inode\tvmlinux\tEXPORT_SYMBOL_GPL\tmodule:kvm\n";

/* 5.4 and 5.5: namespace third. */
static const char text_ns3[] =
	"0x4c9d28b0\tphys_base\t\tvmlinux\tEXPORT_SYMBOL\n"
	"0xe1cc2a05\tusb_stor_suspend\tUSB_STORAGE\tdrivers/usb/storage/usb-storage"
	"\tEXPORT_SYMBOL_GPL\n";

/* <= 5.3: four columns, and the export types that existed until 5.12 (approx.). */
static const char text_4[] =
	"0x4c9d28b0\tphys_base\tvmlinux\tEXPORT_SYMBOL\n"
	"0x039823de\tinit_uts_ns\tvmlinux\tEXPORT_SYMBOL_GPL\n"
	"0x12345678\tfoo_future\tvmlinux\tEXPORT_SYMBOL_GPL_FUTURE\n"
	"0x9abcdef0\tfoo_unused\tdrivers/foo/foo\tEXPORT_UNUSED_SYMBOL\n"
	"0x0badf00d\tfoo_unused_gpl\tdrivers/foo/foo\tEXPORT_UNUSED_SYMBOL_GPL\n";

static struct ksc_symvers *parse_ok(struct test_env *env, const char *name,
				    const char *text, size_t len)
{
	struct ksc_symvers *sv = NULL;

	assert_int_equal(ksc_symvers_new_from_memory(env->ctx, name, text, len, &sv), 0);
	assert_non_null(sv);
	return sv;
}

static void assert_entry(const struct ksc_symvers_entry *e, const char *symbol,
			 const char *module, const char *ns, const char *type,
			 bool gpl_only, uint32_t crc, unsigned int line)
{
	assert_non_null(e);
	assert_string_equal(e->symbol, symbol);
	assert_string_equal(e->module, module);
	assert_string_equal(e->ns, ns);
	assert_string_equal(e->type, type);
	assert_int_equal(e->gpl_only, gpl_only);
	assert_int_equal(e->crc, crc);
	assert_int_equal(e->line, line);
}

/* Write the table to memory in `fmt`; caller frees. */
static char *write_to_memory(const struct ksc_symvers *sv, enum ksc_symvers_format fmt,
			     size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	assert_int_equal(ksc_symvers_write(sv, fmt, f), 0);
	assert_int_equal(fclose(f), 0);
	if (len)
		*len = size;
	return buf;
}

static void assert_round_trip(const struct ksc_symvers *sv, const char *text, size_t len)
{
	size_t out_len;
	char *out = write_to_memory(sv, ksc_symvers_get_format(sv), &out_len);

	assert_int_equal(out_len, len);
	assert_memory_equal(out, text, len);
	free(out);
}

/* ---------------------------------------------------------------------------------- */

static void test_format_5(void **state)
{
	struct test_env *env = *state;
	struct ksc_symvers *sv = parse_ok(env, "5", text_5, sizeof(text_5) - 1);

	assert_log_empty(env);
	assert_int_equal(ksc_symvers_get_format(sv), KSC_SYMVERS_5);
	assert_int_equal(ksc_symvers_get_count(sv), 4);
	assert_int_equal(ksc_symvers_get_error_count(sv), 0);
	assert_entry(ksc_symvers_get(sv, 0), "phys_base", "vmlinux", "", "EXPORT_SYMBOL",
		     false, 0x4c9d28b0, 1);
	assert_entry(ksc_symvers_get(sv, 1), "init_uts_ns", "vmlinux", "",
		     "EXPORT_SYMBOL_GPL", true, 0x039823de, 2);
	assert_entry(ksc_symvers_get(sv, 2), "usb_stor_suspend",
		     "drivers/usb/storage/usb-storage", "USB_STORAGE",
		     "EXPORT_SYMBOL_GPL", true, 0xe1cc2a05, 3);
	assert_entry(ksc_symvers_get(sv, 3), "anon_inode_make_secure_inode", "vmlinux",
		     "module:kvm", "EXPORT_SYMBOL_GPL", true, 0, 4);
	assert_null(ksc_symvers_get(sv, 4));
	assert_ptr_equal(ksc_symvers_find(sv, "usb_stor_suspend"),
			 ksc_symvers_get(sv, 2));
	assert_null(ksc_symvers_find(sv, "usb_stor"));
	assert_null(ksc_symvers_find(sv, ""));
	/* Repeated module names are stored once. */
	assert_ptr_equal(ksc_symvers_get(sv, 0)->module, ksc_symvers_get(sv, 1)->module);
	assert_round_trip(sv, text_5, sizeof(text_5) - 1);
	ksc_symvers_unref(sv);
}

static void test_format_ns3(void **state)
{
	struct test_env *env = *state;
	struct ksc_symvers *sv = parse_ok(env, "ns3", text_ns3, sizeof(text_ns3) - 1);

	assert_log_empty(env);
	assert_int_equal(ksc_symvers_get_format(sv), KSC_SYMVERS_5_NS3);
	assert_int_equal(ksc_symvers_get_count(sv), 2);
	assert_entry(ksc_symvers_get(sv, 0), "phys_base", "vmlinux", "", "EXPORT_SYMBOL",
		     false, 0x4c9d28b0, 1);
	assert_entry(ksc_symvers_get(sv, 1), "usb_stor_suspend",
		     "drivers/usb/storage/usb-storage", "USB_STORAGE",
		     "EXPORT_SYMBOL_GPL", true, 0xe1cc2a05, 2);
	assert_round_trip(sv, text_ns3, sizeof(text_ns3) - 1);
	ksc_symvers_unref(sv);
}

static void test_format_4(void **state)
{
	struct test_env *env = *state;
	struct ksc_symvers *sv = parse_ok(env, "4", text_4, sizeof(text_4) - 1);

	assert_log_empty(env);
	assert_int_equal(ksc_symvers_get_format(sv), KSC_SYMVERS_4);
	assert_int_equal(ksc_symvers_get_count(sv), 5);
	assert_entry(ksc_symvers_get(sv, 0), "phys_base", "vmlinux", "", "EXPORT_SYMBOL",
		     false, 0x4c9d28b0, 1);
	assert_entry(ksc_symvers_get(sv, 1), "init_uts_ns", "vmlinux", "",
		     "EXPORT_SYMBOL_GPL", true, 0x039823de, 2);
	assert_entry(ksc_symvers_get(sv, 2), "foo_future", "vmlinux", "",
		     "EXPORT_SYMBOL_GPL_FUTURE", true, 0x12345678, 3);
	assert_entry(ksc_symvers_get(sv, 3), "foo_unused", "drivers/foo/foo", "",
		     "EXPORT_UNUSED_SYMBOL", false, 0x9abcdef0, 4);
	assert_entry(ksc_symvers_get(sv, 4), "foo_unused_gpl", "drivers/foo/foo", "",
		     "EXPORT_UNUSED_SYMBOL_GPL", true, 0x0badf00d, 5);
	assert_round_trip(sv, text_4, sizeof(text_4) - 1);
	ksc_symvers_unref(sv);
}

/* Concatenated KBUILD_EXTRA_SYMBOLS of different eras: every line read, one warning. */
static void test_mixed_layouts(void **state)
{
	static const char text[] = "0x00000001\ta\tvmlinux\tEXPORT_SYMBOL\tNS_A\n"
				   "0x00000002\tb\tNS_B\tdrivers/b\tEXPORT_SYMBOL_GPL\n"
				   "0x00000003\tc\tdrivers/c\tEXPORT_SYMBOL\n"
				   "0x00000004\td\t\tdrivers/d\tEXPORT_SYMBOL\n";
	struct test_env *env = *state;
	struct ksc_symvers *sv = parse_ok(env, "mixed", text, sizeof(text) - 1);

	assert_int_equal(ksc_symvers_get_count(sv), 4);
	assert_int_equal(ksc_symvers_get_error_count(sv), 0);
	assert_int_equal(ksc_symvers_get_format(sv), KSC_SYMVERS_5);
	assert_entry(ksc_symvers_get(sv, 0), "a", "vmlinux", "NS_A", "EXPORT_SYMBOL",
		     false, 1, 1);
	assert_entry(ksc_symvers_get(sv, 1), "b", "drivers/b", "NS_B",
		     "EXPORT_SYMBOL_GPL", true, 2, 2);
	assert_entry(ksc_symvers_get(sv, 2), "c", "drivers/c", "", "EXPORT_SYMBOL", false,
		     3, 3);
	assert_entry(ksc_symvers_get(sv, 3), "d", "drivers/d", "", "EXPORT_SYMBOL", false,
		     4, 4);
	assert_int_equal(env->n_errs, 0);
	assert_int_equal(env->n_msgs, 1);
	assert_log_contains(env, "mixed:2: line in the 5.4/5.5");
	ksc_symvers_unref(sv);
}

/* One bad line between two good ones: reported as "<name>:2: <reason>", skipped. */
struct bad_case {
	const char *what;
	const char *line;
	size_t len;
	const char *reason;
};

#define BAD(what, line, reason) { what, line, sizeof(line) - 1, reason }

static const struct bad_case bad_cases[] = {
	BAD("one field", "garbage", "too few fields (1, expected 4 or 5)"),
	BAD("spaces, not TABs", "0x00000001 s vmlinux EXPORT_SYMBOL",
	    "too few fields (1, expected 4 or 5)"),
	BAD("three fields", "0x00000001\ts\tvmlinux",
	    "too few fields (3, expected 4 or 5)"),
	BAD("six fields", "0x00000001\ts\tvmlinux\tEXPORT_SYMBOL\t\textra",
	    "too many fields (6, expected 4 or 5)"),
	BAD("CRC not hex", "0xZZ\ts\tvmlinux\tEXPORT_SYMBOL\t",
	    "bad CRC '0xZZ' (expected 0x and hex digits)"),
	BAD("CRC without 0x", "4c9d28b0\ts\tvmlinux\tEXPORT_SYMBOL\t",
	    "bad CRC '4c9d28b0' (expected 0x and hex digits)"),
	BAD("CRC only 0x", "0x\ts\tvmlinux\tEXPORT_SYMBOL\t",
	    "bad CRC '0x' (expected 0x and hex digits)"),
	BAD("CRC with sign", "-0x1\ts\tvmlinux\tEXPORT_SYMBOL\t",
	    "bad CRC '-0x1' (expected 0x and hex digits)"),
	BAD("CRC with trailing junk", "0x1234g\ts\tvmlinux\tEXPORT_SYMBOL\t",
	    "bad CRC '0x1234g' (expected 0x and hex digits)"),
	BAD("CRC of 33 bits", "0x100000000\ts\tvmlinux\tEXPORT_SYMBOL\t",
	    "CRC '0x100000000' does not fit in 32 bits"),
	BAD("CRC of 64 bits", "0xffffffffffffffff\ts\tvmlinux\tEXPORT_SYMBOL\t",
	    "CRC '0xffffffffffffffff' does not fit in 32 bits"),
	BAD("empty symbol", "0x00000001\t\tvmlinux\tEXPORT_SYMBOL\t",
	    "empty symbol name"),
	BAD("empty module", "0x00000001\ts\t\tEXPORT_SYMBOL\t", "empty module name"),
	BAD("empty module, 5.4", "0x00000001\ts\tNS\t\tEXPORT_SYMBOL",
	    "empty module name"),
	BAD("empty module, 5.3", "0x00000001\ts\t\tEXPORT_SYMBOL", "empty module name"),
	BAD("no type", "0x00000001\ts\tvmlinux\t\t", "missing export type"),
	BAD("no type, 5.3", "0x00000001\ts\tvmlinux\t", "missing export type"),
	BAD("unknown EXPORT_ type", "0x00000001\ts\tvmlinux\tEXPORT_SYMBOL_FOO\t",
	    "unknown export type 'EXPORT_SYMBOL_FOO'"),
	BAD("unknown type, 5.3", "0x00000001\ts\tvmlinux\tGPL",
	    "unknown export type 'GPL'"),
	BAD("lower-case type", "0x00000001\ts\tvmlinux\texport_symbol\t",
	    "unknown export type 'export_symbol'"),
	BAD("NUL byte", "0x00000001\ts\0x\tvmlinux\tEXPORT_SYMBOL\t", "NUL byte in line"),
	BAD("CR at end", "0x00000001\ts\tvmlinux\tEXPORT_SYMBOL\t\r",
	    "carriage return at end of line (DOS line ending)"),
	BAD("CR inside", "0x00000001\ts\tvm\rlinux\tEXPORT_SYMBOL\t",
	    "carriage return in line"),
	BAD("empty line", "", "empty line"),
};

static void test_bad_lines(void **state)
{
	static const char good1[] = "0x00000001\tfirst\tvmlinux\tEXPORT_SYMBOL\t\n";
	static const char good2[] = "0x00000002\tlast\tvmlinux\tEXPORT_SYMBOL_GPL\t\n";
	struct test_env *env = *state;

	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		size_t len = sizeof(good1) - 1 + c->len + 1 + sizeof(good2) - 1;
		char *text = malloc(len), *p = text, expect[256];
		struct ksc_symvers *sv;

		assert_non_null(text);
		p = mempcpy(p, good1, sizeof(good1) - 1);
		p = mempcpy(p, c->line, c->len);
		*p++ = '\n';
		memcpy(p, good2, sizeof(good2) - 1);

		test_log_clear(env);
		sv = parse_ok(env, "t.symvers", text, len);
		snprintf(expect, sizeof(expect), "t.symvers:2: %s", c->reason);
		if (!test_log_has_line(env, expect) || env->n_errs != 1)
			fail_msg("%s: expected the one message \"%s\"; log:\n%s", c->what,
				 expect, env->log);
		assert_int_equal(ksc_symvers_get_error_count(sv), 1);
		assert_int_equal(ksc_symvers_get_count(sv), 2);
		assert_entry(ksc_symvers_get(sv, 0), "first", "vmlinux", "",
			     "EXPORT_SYMBOL", false, 1, 1);
		assert_entry(ksc_symvers_get(sv, 1), "last", "vmlinux", "",
			     "EXPORT_SYMBOL_GPL", true, 2, 3);
		ksc_symvers_unref(sv);
		free(text);
	}
}

/* Several bad lines: each counted with its own number; the good ones keep theirs. */
static void test_bad_line_numbers(void **state)
{
	static const char text[] =
		"0x00000001\ta\tvmlinux\tEXPORT_SYMBOL\t\n"
		"0x00000002\tb\tvmlinux\n"
		"0x00000003\tc\tvmlinux\tEXPORT_SYMBOL\t\n"
		"\n"
		"0x00000005\te\tvmlinux\tEXPORT_SYMBOL_GPL\tNS"; /* no final newline */
	struct test_env *env = *state;
	struct ksc_symvers *sv = parse_ok(env, "n", text, sizeof(text) - 1);

	assert_int_equal(ksc_symvers_get_error_count(sv), 2);
	assert_int_equal(env->n_errs, 2);
	assert_log_line(env, "n:2: too few fields (3, expected 4 or 5)");
	assert_log_line(env, "n:4: empty line");
	assert_int_equal(ksc_symvers_get_count(sv), 3);
	assert_int_equal(ksc_symvers_get(sv, 0)->line, 1);
	assert_int_equal(ksc_symvers_get(sv, 1)->line, 3);
	assert_entry(ksc_symvers_get(sv, 2), "e", "vmlinux", "NS", "EXPORT_SYMBOL_GPL",
		     true, 5, 5);
	ksc_symvers_unref(sv);
}

static void test_edge_inputs(void **state)
{
	static const char crcs[] = "0XABCDEF01\ta\tvmlinux\tEXPORT_SYMBOL\t\n"
				   "0x0000000000000012\tb\tvmlinux\tEXPORT_SYMBOL\t\n"
				   "0x7\tc\tvmlinux\tEXPORT_SYMBOL\t\n";
	static const char dups[] = "0x00000001\tdup\tvmlinux\tEXPORT_SYMBOL\t\n"
				   "0x00000002\tdup\tdrivers/x\tEXPORT_SYMBOL_GPL\t\n";
	struct test_env *env = *state;
	struct ksc_symvers *sv;

	/* Empty file: valid, empty, the current format. */
	sv = parse_ok(env, "empty", "", 0);
	assert_int_equal(ksc_symvers_get_count(sv), 0);
	assert_int_equal(ksc_symvers_get_format(sv), KSC_SYMVERS_5);
	ksc_symvers_unref(sv);
	sv = parse_ok(env, "null", NULL, 0);
	ksc_symvers_unref(sv);
	assert_log_empty(env);

	/* A lone newline is one empty line. */
	sv = parse_ok(env, "nl", "\n", 1);
	assert_int_equal(ksc_symvers_get_error_count(sv), 1);
	assert_log_line(env, "nl:1: empty line");
	ksc_symvers_unref(sv);

	/* CRC spellings strtoul() accepts: upper case, leading zeros, short. */
	test_log_clear(env);
	sv = parse_ok(env, "crc", crcs, sizeof(crcs) - 1);
	assert_log_empty(env);
	assert_int_equal(ksc_symvers_get_count(sv), 3);
	assert_int_equal(ksc_symvers_get(sv, 0)->crc, 0xabcdef01);
	assert_int_equal(ksc_symvers_get(sv, 1)->crc, 0x12);
	assert_int_equal(ksc_symvers_get(sv, 2)->crc, 7);
	ksc_symvers_unref(sv);

	/* Duplicate symbols: all kept in order, find() gives the first. */
	sv = parse_ok(env, "dup", dups, sizeof(dups) - 1);
	assert_int_equal(ksc_symvers_get_count(sv), 2);
	assert_ptr_equal(ksc_symvers_find(sv, "dup"), ksc_symvers_get(sv, 0));
	assert_int_equal(ksc_symvers_find(sv, "dup")->crc, 1);
	ksc_symvers_unref(sv);

	/* Bad arguments. */
	assert_int_equal(ksc_symvers_new_from_memory(env->ctx, "x", NULL, 1, &sv),
			 -EINVAL);
	assert_int_equal(ksc_symvers_new_from_memory(NULL, "x", "", 0, &sv), -EINVAL);
	assert_int_equal(ksc_symvers_get_count(NULL), 0);
	assert_null(ksc_symvers_find(NULL, "x"));
	assert_null(ksc_symvers_unref(NULL));
}

/* Names far longer than any stack buffer of the reader or writer. */
static void test_long_fields(void **state)
{
	struct test_env *env = *state;
	size_t n = 5000, len;
	char *sym = malloc(n + 1), *mod = malloc(n + 1), *text, *out;
	struct ksc_symvers *sv;

	assert_non_null(sym);
	assert_non_null(mod);
	memset(sym, 's', n);
	sym[n] = '\0';
	memset(mod, 'm', n);
	mod[n] = '\0';
	assert_true(asprintf(&text,
			     "0x00000001\t%s\t%s\tEXPORT_SYMBOL\t\n"
			     "0x00000002\t%s2\t%s\tEXPORT_SYMBOL\t\n",
			     sym, mod, sym, mod) > 0);
	len = strlen(text);
	sv = parse_ok(env, "long", text, len);
	assert_log_empty(env);
	assert_int_equal(ksc_symvers_get_count(sv), 2);
	assert_string_equal(ksc_symvers_get(sv, 0)->symbol, sym);
	assert_string_equal(ksc_symvers_get(sv, 1)->module, mod);
	assert_non_null(ksc_symvers_find(sv, sym));
	out = write_to_memory(sv, KSC_SYMVERS_5, NULL);
	assert_string_equal(out, text);
	free(out);
	ksc_symvers_unref(sv);
	free(text);
	free(sym);
	free(mod);
}

/* ---------------------------------------------------------------------------------- */
/* Writer                                                                             */

struct format_case {
	struct ksc_symvers_entry e;
	const char *want[3]; /* indexed by enum ksc_symvers_format */
};

static const struct format_case format_cases[] = {
	{
		{ .symbol = "usb_stor_suspend",
		  .module = "drivers/usb/storage/usb-storage",
		  .ns = "USB_STORAGE",
		  .gpl_only = true,
		  .crc = 0xe1cc2a05 },
		{
			[KSC_SYMVERS_5] = "0xe1cc2a05\tusb_stor_suspend\t"
					  "drivers/usb/storage/usb-storage\t"
					  "EXPORT_SYMBOL_GPL\tUSB_STORAGE\n",
			[KSC_SYMVERS_5_NS3] =
				"0xe1cc2a05\tusb_stor_suspend\tUSB_STORAGE\t"
				"drivers/usb/storage/usb-storage\t"
				"EXPORT_SYMBOL_GPL\n",
			[KSC_SYMVERS_4] =
				"0xe1cc2a05\tusb_stor_suspend\t"
				"drivers/usb/storage/usb-storage\tEXPORT_SYMBOL_GPL\n",
		},
	},
	{
		/* No namespace, no type: EXPORT_SYMBOL from gpl_only; CRC zero-padded. */
		{ .symbol = "phys_base", .module = "vmlinux", .crc = 1 },
		{
			[KSC_SYMVERS_5] =
				"0x00000001\tphys_base\tvmlinux\tEXPORT_SYMBOL\t\n",
			[KSC_SYMVERS_5_NS3] =
				"0x00000001\tphys_base\t\tvmlinux\tEXPORT_SYMBOL\n",
			[KSC_SYMVERS_4] =
				"0x00000001\tphys_base\tvmlinux\tEXPORT_SYMBOL\n",
		},
	},
	{
		/* The stored type wins over gpl_only. */
		{ .symbol = "f",
		  .module = "m",
		  .ns = "",
		  .type = "EXPORT_SYMBOL_GPL_FUTURE",
		  .crc = 0xffffffff },
		{
			[KSC_SYMVERS_5] =
				"0xffffffff\tf\tm\tEXPORT_SYMBOL_GPL_FUTURE\t\n",
			[KSC_SYMVERS_5_NS3] =
				"0xffffffff\tf\t\tm\tEXPORT_SYMBOL_GPL_FUTURE\n",
			[KSC_SYMVERS_4] = "0xffffffff\tf\tm\tEXPORT_SYMBOL_GPL_FUTURE\n",
		},
	},
};

static void test_format_entry(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(format_cases); i++) {
		const struct format_case *c = &format_cases[i];

		for (int fmt = KSC_SYMVERS_5; fmt <= KSC_SYMVERS_4; fmt++) {
			const char *want = c->want[fmt];
			int len = (int)strlen(want);
			char buf[256], small[8];

			assert_int_equal(
				ksc_symvers_format_entry(&c->e, fmt, buf, sizeof(buf)),
				len);
			assert_string_equal(buf, want);
			/* Like snprintf: the length needed; the text cut, terminated. */
			assert_int_equal(ksc_symvers_format_entry(&c->e, fmt, small,
								  sizeof(small)),
					 len);
			assert_int_equal(strlen(small), sizeof(small) - 1);
			assert_memory_equal(small, want, sizeof(small) - 1);
			assert_int_equal(ksc_symvers_format_entry(&c->e, fmt, NULL, 0),
					 len);
		}
	}
	{
		struct ksc_symvers_entry e = { .symbol = "s", .module = "m" }, bad = e;
		char buf[64];

		assert_int_equal(ksc_symvers_format_entry(&e, (enum ksc_symvers_format)7,
							  buf, sizeof(buf)),
				 -EINVAL);
		assert_int_equal(
			ksc_symvers_format_entry(NULL, KSC_SYMVERS_5, buf, sizeof(buf)),
			-EINVAL);
		bad.module = NULL;
		assert_int_equal(
			ksc_symvers_format_entry(&bad, KSC_SYMVERS_5, buf, sizeof(buf)),
			-EINVAL);
		assert_int_equal(ksc_symvers_format_entry(&e, KSC_SYMVERS_5, NULL, 4),
				 -EINVAL);
	}
	(void)state;
}

/* Read one layout, write every layout. */
static void test_convert(void **state)
{
	struct test_env *env = *state;
	struct ksc_symvers *sv = parse_ok(env, "4", text_4, sizeof(text_4) - 1);
	char *out;

	out = write_to_memory(sv, KSC_SYMVERS_5, NULL);
	assert_string_equal(
		out, "0x4c9d28b0\tphys_base\tvmlinux\tEXPORT_SYMBOL\t\n"
		     "0x039823de\tinit_uts_ns\tvmlinux\tEXPORT_SYMBOL_GPL\t\n"
		     "0x12345678\tfoo_future\tvmlinux\tEXPORT_SYMBOL_GPL_FUTURE\t\n"
		     "0x9abcdef0\tfoo_unused\tdrivers/foo/foo\tEXPORT_UNUSED_SYMBOL\t\n"
		     "0x0badf00d\tfoo_unused_gpl\tdrivers/foo/foo"
		     "\tEXPORT_UNUSED_SYMBOL_GPL\t\n");
	free(out);
	ksc_symvers_unref(sv);

	sv = parse_ok(env, "5", text_5, sizeof(text_5) - 1);
	out = write_to_memory(sv, KSC_SYMVERS_5_NS3, NULL);
	assert_string_equal(
		out, "0x4c9d28b0\tphys_base\t\tvmlinux\tEXPORT_SYMBOL\n"
		     "0x039823de\tinit_uts_ns\t\tvmlinux\tEXPORT_SYMBOL_GPL\n"
		     "0xe1cc2a05\tusb_stor_suspend\tUSB_STORAGE"
		     "\tdrivers/usb/storage/usb-storage\tEXPORT_SYMBOL_GPL\n"
		     "0x00000000\tanon_inode_make_secure_inode\tmodule:kvm\tvmlinux"
		     "\tEXPORT_SYMBOL_GPL\n");
	free(out);
	assert_int_equal(ksc_symvers_write(sv, (enum ksc_symvers_format)99, stdout),
			 -EINVAL);
	ksc_symvers_unref(sv);
	assert_log_empty(env);
}

static void test_add(void **state)
{
	struct test_env *env = *state;
	char sym[] = "my_func", mod[] = "drivers/my/my-mod", ns[] = "MY_NS";
	struct ksc_symvers_entry e = { .symbol = sym,
				       .module = mod,
				       .ns = ns,
				       .gpl_only = true,
				       .crc = 0x1234,
				       .line = 99 };
	struct ksc_symvers *sv;
	char *out;

	assert_int_equal(ksc_symvers_new(env->ctx, &sv), 0);
	assert_int_equal(ksc_symvers_get_count(sv), 0);
	assert_int_equal(ksc_symvers_get_format(sv), KSC_SYMVERS_5);
	assert_int_equal(ksc_symvers_add(sv, &e), 0);
	/* The strings were copied. */
	memset(sym, 'x', sizeof(sym) - 1);
	memset(mod, 'x', sizeof(mod) - 1);
	memset(ns, 'x', sizeof(ns) - 1);
	assert_entry(ksc_symvers_get(sv, 0), "my_func", "drivers/my/my-mod", "MY_NS",
		     "EXPORT_SYMBOL_GPL", true, 0x1234, 0);

	/* A given type is kept, and decides gpl_only. */
	e = (struct ksc_symvers_entry){ .symbol = "old",
					.module = "vmlinux",
					.type = "EXPORT_UNUSED_SYMBOL_GPL" };
	assert_int_equal(ksc_symvers_add(sv, &e), 0);
	assert_entry(ksc_symvers_get(sv, 1), "old", "vmlinux", "",
		     "EXPORT_UNUSED_SYMBOL_GPL", true, 0, 0);
	assert_non_null(ksc_symvers_find(sv, "old"));

	/* Entries the writer could not write back as a readable line. */
	{
		static const struct ksc_symvers_entry bad[] = {
			{ .symbol = "", .module = "m" },
			{ .symbol = NULL, .module = "m" },
			{ .symbol = "s", .module = "" },
			{ .symbol = "s", .module = NULL },
			{ .symbol = "s\tt", .module = "m" },
			{ .symbol = "s", .module = "m\n" },
			{ .symbol = "s", .module = "m", .ns = "a\tb" },
			{ .symbol = "s\r", .module = "m" },
			{ .symbol = "s", .module = "m", .type = "EXPORT_SYMBOL_FOO" },
			{ .symbol = "s", .module = "m", .type = "" },
		};

		for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
			assert_int_equal(ksc_symvers_add(sv, &bad[i]), -EINVAL);
		assert_int_equal(ksc_symvers_add(NULL, &bad[0]), -EINVAL);
		assert_int_equal(ksc_symvers_add(sv, NULL), -EINVAL);
	}
	assert_int_equal(ksc_symvers_get_count(sv), 2);
	out = write_to_memory(sv, KSC_SYMVERS_5, NULL);
	assert_string_equal(
		out, "0x00001234\tmy_func\tdrivers/my/my-mod\tEXPORT_SYMBOL_GPL\tMY_NS\n"
		     "0x00000000\told\tvmlinux\tEXPORT_UNUSED_SYMBOL_GPL\t\n");
	free(out);
	assert_ptr_equal(ksc_symvers_ref(sv), sv);
	assert_null(ksc_symvers_unref(sv));
	assert_null(ksc_symvers_unref(sv));
	assert_log_empty(env);
}

/* A module of these exports, rebuilt from facts as the module set rebuilds one. */
static struct ksc_module *hand_module(struct test_env *env, const char *owner,
				      const struct ksc_export *ex, size_t n)
{
	struct ksc_module_facts f = {
		.path = "drivers/foo/foo.ko",
		.kind = KSC_KIND_MODULE,
		.kmod_name = "foo",
		.modpost_name = "foo",
		.symvers_owner = owner,
		.cap.exports = n,
	};
	struct ksc_module *mod;

	assert_int_equal(ksc_module_new_from_facts(env->ctx, &f, &mod), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ksc_module_add_export(mod, &ex[i]), 0);
	return mod;
}

static void test_add_module(void **state)
{
	struct test_env *env = *state;
	struct ksc_export ex[] = {
		{ .name = "foo_a",
		  .ns = "",
		  .gpl_only = false,
		  .has_crc = true,
		  .crc = 0x1234 },
		{ .name = "foo_b",
		  .ns = "FOO",
		  .gpl_only = true,
		  .has_crc = false,
		  .crc = 0xdead },
		{ .name = "foo_c",
		  .ns = "module:kvm",
		  .gpl_only = true,
		  .has_crc = true,
		  .crc = 0xfffffffe },
	};
	struct ksc_module *mod = hand_module(env, "drivers/foo/foo", ex, ARRAY_SIZE(ex));
	struct ksc_symvers *sv;
	char *out;

	assert_int_equal(ksc_symvers_new(env->ctx, &sv), 0);
	assert_int_equal(ksc_symvers_add_module(sv, mod), 0);
	assert_int_equal(ksc_symvers_get_count(sv), 3);
	out = write_to_memory(sv, KSC_SYMVERS_5, NULL);
	assert_string_equal(
		out,
		"0x00001234\tfoo_a\tdrivers/foo/foo\tEXPORT_SYMBOL\t\n"
		"0x00000000\tfoo_b\tdrivers/foo/foo\tEXPORT_SYMBOL_GPL\tFOO\n"
		"0xfffffffe\tfoo_c\tdrivers/foo/foo\tEXPORT_SYMBOL_GPL\tmodule:kvm\n");
	free(out);
	ksc_module_unref(mod);

	/* One unwritable name: nothing of the module is added. */
	ex[1].name = "foo\tb";
	mod = hand_module(env, "drivers/foo/foo", ex, ARRAY_SIZE(ex));
	assert_int_equal(ksc_symvers_add_module(sv, mod), -EINVAL);
	assert_int_equal(ksc_symvers_get_count(sv), 3);
	ksc_module_unref(mod);
	ex[1].name = "foo_b";

	/* No owner, or no exports. */
	mod = hand_module(env, "", ex, ARRAY_SIZE(ex));
	assert_int_equal(ksc_symvers_add_module(sv, mod), -EINVAL);
	ksc_module_unref(mod);
	mod = hand_module(env, "vmlinux", ex, 0);
	assert_int_equal(ksc_symvers_add_module(sv, mod), 0);
	assert_int_equal(ksc_symvers_get_count(sv), 3);
	ksc_module_unref(mod);
	assert_int_equal(ksc_symvers_add_module(sv, NULL), -EINVAL);
	ksc_symvers_unref(sv);
}

/* A full disk: the error shows in the return value, not only in ferror(). */
static void test_write_dev_full(void **state)
{
	struct test_env *env = *state;
	struct ksc_symvers *sv = parse_ok(env, "5", text_5, sizeof(text_5) - 1);
	FILE *f = fopen("/dev/full", "we");

	if (!f) {
		ksc_symvers_unref(sv);
		skip();
	}
	assert_int_equal(ksc_symvers_write(sv, KSC_SYMVERS_5, f), -ENOSPC);
	fclose(f);

	/* Also when the table is bigger than stdio's buffer, so fwrite() itself fails. */
	f = fopen("/dev/full", "we");
	assert_non_null(f);
	setvbuf(f, NULL, _IOFBF, 64);
	assert_int_equal(ksc_symvers_write(sv, KSC_SYMVERS_4, f), -ENOSPC);
	fclose(f);
	ksc_symvers_unref(sv);
}

static mode_t file_mode(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

static void test_write_file(void **state)
{
	struct test_env *env = *state;
	struct ksc_symvers *sv = parse_ok(env, "5", text_5, sizeof(text_5) - 1);
	char dir[256], path[300];
	mode_t old_umask;
	char *got;

	unit_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/Module.symvers", dir);

	/* New file: 0666 less the umask, like a plain create. */
	old_umask = umask(027);
	assert_int_equal(ksc_symvers_write_file(sv, KSC_SYMVERS_5, path), 0);
	umask(old_umask);
	got = unit_read_file(path, NULL);
	assert_non_null(got);
	assert_string_equal(got, text_5);
	free(got);
	assert_int_equal(file_mode(path), 0640);
	assert_int_equal(unit_count_dir(dir), 1);

	/* Existing file: replaced, its mode kept (modpost rewrites with fopen "w"). */
	assert_int_equal(chmod(path, 0604), 0);
	assert_int_equal(ksc_symvers_write_file(sv, KSC_SYMVERS_4, path), 0);
	assert_int_equal(file_mode(path), 0604);
	got = unit_read_file(path, NULL);
	assert_non_null(got);
	assert_string_equal(
		got,
		"0x4c9d28b0\tphys_base\tvmlinux\tEXPORT_SYMBOL\n"
		"0x039823de\tinit_uts_ns\tvmlinux\tEXPORT_SYMBOL_GPL\n"
		"0xe1cc2a05\tusb_stor_suspend\tdrivers/usb/storage/usb-storage"
		"\tEXPORT_SYMBOL_GPL\n"
		"0x00000000\tanon_inode_make_secure_inode\tvmlinux\tEXPORT_SYMBOL_GPL\n");
	free(got);
	assert_int_equal(unit_count_dir(dir), 1);

	/* A FIFO or a folder in its place: not replaced, said so. */
	{
		char fifo[PATH_MAX];

		snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
		assert_int_equal(mkfifo(fifo, 0600), 0);
		assert_int_equal(ksc_symvers_write_file(sv, KSC_SYMVERS_5, fifo), -EMEDIUMTYPE);
		assert_log_contains(env, "fifo: not a regular file; not replaced");
		struct stat st;
		assert_int_equal(lstat(fifo, &st), 0);
		assert_true(S_ISFIFO(st.st_mode));
		assert_int_equal(unlink(fifo), 0);
		test_log_clear(env);
	}

	/* An empty table makes an empty file. */
	{
		struct ksc_symvers *empty;

		assert_int_equal(ksc_symvers_new(env->ctx, &empty), 0);
		assert_int_equal(ksc_symvers_write_file(empty, KSC_SYMVERS_5, path), 0);
		got = unit_read_file(path, NULL);
		assert_non_null(got);
		assert_string_equal(got, "");
		free(got);
		ksc_symvers_unref(empty);
	}
	assert_int_equal(ksc_symvers_write_file(sv, (enum ksc_symvers_format)3, path),
			 -EINVAL);
	assert_int_equal(ksc_symvers_write_file(sv, KSC_SYMVERS_5, ""), -EINVAL);
	assert_log_empty(env);
	unit_rm_rf(dir);
	ksc_symvers_unref(sv);
}

/* Every failure leaves the target as it was and no temporary file behind. */
static void test_write_file_fails(void **state)
{
	static const char old[] = "0x00000001\told\tvmlinux\tEXPORT_SYMBOL\t\n";
	struct test_env *env = *state;
	struct ksc_symvers *sv;
	char dir[256], path[300], sub[300], msg[400];
	struct rlimit rl, small;
	void (*old_handler)(int);
	char *got;

	assert_int_equal(ksc_symvers_new(env->ctx, &sv), 0);
	for (int i = 0; i < 200; i++) {
		char name[32];
		struct ksc_symvers_entry e = { .symbol = name, .module = "drivers/x/y" };

		snprintf(name, sizeof(name), "symbol_%d", i);
		assert_int_equal(ksc_symvers_add(sv, &e), 0);
	}
	unit_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/Module.symvers", dir);
	unit_write_file(path, old);

	/* The folder does not exist: no temporary file can be made. */
	snprintf(sub, sizeof(sub), "%s/missing/Module.symvers", dir);
	assert_int_equal(ksc_symvers_write_file(sv, KSC_SYMVERS_5, sub), -ENOENT);
	snprintf(msg, sizeof(msg), "%s: cannot create a temporary file: %s", sub,
		 strerror(ENOENT));
	assert_log_line(env, msg);

	/* The file system refuses the data (file size limit, as a full disk would). */
	test_log_clear(env);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &rl), 0);
	small = rl;
	small.rlim_cur = 1000;
	old_handler = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	{
		int r = ksc_symvers_write_file(sv, KSC_SYMVERS_5, path);

		assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
		signal(SIGXFSZ, old_handler);
		assert_int_equal(r, -EFBIG);
	}
	snprintf(msg, sizeof(msg), "%s: %s", path, strerror(EFBIG));
	assert_log_line(env, msg);
	got = unit_read_file(path, NULL);
	assert_non_null(got);
	assert_string_equal(got, old);
	free(got);
	assert_int_equal(unit_count_dir(dir), 1);

	/* The target is a folder: not replaced (before, rename() failed with EISDIR). */
	test_log_clear(env);
	snprintf(sub, sizeof(sub), "%s/dir.symvers", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(msg, sizeof(msg), "%s/keep", sub);
	unit_write_file(msg, "keep\n");
	assert_int_equal(ksc_symvers_write_file(sv, KSC_SYMVERS_5, sub), -EMEDIUMTYPE);
	assert_int_equal(unit_count_dir(dir), 2);
	assert_int_equal(unit_count_dir(sub), 1);
	assert_int_equal(env->n_errs, 1);

	unit_rm_rf(dir);
	ksc_symvers_unref(sv);
}

static void test_from_path(void **state)
{
	struct test_env *env = *state;
	struct ksc_symvers *sv = (struct ksc_symvers *)1;
	char dir[256], path[300], msg[400];

	unit_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/Module.symvers", dir);
	assert_int_equal(ksc_symvers_new_from_path(env->ctx, path, &sv), -ENOENT);
	assert_null(sv);
	snprintf(msg, sizeof(msg), "%s: %s", path, strerror(ENOENT));
	assert_log_line(env, msg);

	test_log_clear(env);
	assert_int_equal(ksc_symvers_new_from_path(env->ctx, dir, &sv), -EISDIR);
	snprintf(msg, sizeof(msg), "%s: %s", dir, strerror(EISDIR));
	assert_log_line(env, msg);

	/* An empty file is said to be empty (not a table of no exports). */
	test_log_clear(env);
	unit_write_file(path, "");
	assert_int_equal(ksc_symvers_new_from_path(env->ctx, path, &sv), -ENODATA);
	snprintf(msg, sizeof(msg), "%s: empty file: no exports", path);
	assert_log_line(env, msg);

	test_log_clear(env);
	unit_write_file(path, "0x00000001\ta\tvmlinux\tEXPORT_SYMBOL\t\nbad\n");
	assert_int_equal(ksc_symvers_new_from_path(env->ctx, path, &sv), 0);
	assert_int_equal(ksc_symvers_get_count(sv), 1);
	snprintf(msg, sizeof(msg), "%s:2: too few fields (1, expected 4 or 5)", path);
	assert_log_line(env, msg);
	ksc_symvers_unref(sv);
	unit_rm_rf(dir);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Debian 6.1's real Module.symvers reads without a complaint and writes back identically.
 */
static void test_real_debian(void **state)
{
	struct test_env *env = *state;
	char path[1024], dir[256], out_path[300];
	struct ksc_symvers *sv;
	size_t size = 0, out_len = 0, lines = 0;
	double t0, t1;
	char *text, *out;

	if (!unit_debian_file(path, sizeof(path),
			      "usr/src/linux-headers-%s/Module.symvers")) {
		print_message("# needs the network: no Debian 6.1 kernel in the cache "
			      "(make check-real fetches it)\n");
		skip();
	}
	text = unit_read_file(path, &size);
	assert_non_null(text);
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';

	t0 = now_ms();
	assert_int_equal(ksc_symvers_new_from_path(env->ctx, path, &sv), 0);
	t1 = now_ms();
	print_message("# %s: %zu entries read in %.2f ms\n", path,
		      ksc_symvers_get_count(sv), t1 - t0);
	assert_log_empty(env);
	assert_int_equal(ksc_symvers_get_error_count(sv), 0);
	assert_int_equal(ksc_symvers_get_count(sv), lines);
	assert_int_equal(ksc_symvers_get_format(sv), KSC_SYMVERS_5);
	assert_non_null(ksc_symvers_find(sv, "phys_base"));
	assert_string_equal(ksc_symvers_find(sv, "usb_stor_suspend")->ns, "USB_STORAGE");

	out = write_to_memory(sv, KSC_SYMVERS_5, &out_len);
	assert_int_equal(out_len, size);
	assert_true(memcmp(out, text, size) == 0);
	free(out);

	unit_mkdtemp(dir, sizeof(dir));
	snprintf(out_path, sizeof(out_path), "%s/Module.symvers", dir);
	assert_int_equal(ksc_symvers_write_file(sv, KSC_SYMVERS_5, out_path), 0);
	out = unit_read_file(out_path, &out_len);
	assert_non_null(out);
	assert_int_equal(out_len, size);
	assert_true(memcmp(out, text, size) == 0);
	free(out);
	unit_rm_rf(dir);

	ksc_symvers_unref(sv);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, test_env_setup, test_env_teardown)
		T(test_format_5),
		T(test_format_ns3),
		T(test_format_4),
		T(test_mixed_layouts),
		T(test_bad_lines),
		T(test_bad_line_numbers),
		T(test_edge_inputs),
		T(test_long_fields),
		T(test_format_entry),
		T(test_convert),
		T(test_add),
		T(test_add_module),
		T(test_write_dev_full),
		T(test_write_file),
		T(test_write_file_fails),
		T(test_from_path),
		T(test_real_debian),
#undef T
	};

	return cmocka_run_group_tests_name("symvers", tests, NULL, NULL);
}
