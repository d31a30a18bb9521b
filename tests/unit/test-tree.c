// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests for whole trees (lib/tree/ksc-tree.c, ksc-tree-format.c, ksc-modset-record.c,
 * ksc-modset-index.c): depmod's order, resolution and files on small trees of modules generated
 * in memory (mkmod.h), cycles, unresolved symbols, broken trees, the index (reuse, change
 * detection, corruption of every kind rejected), parallel and serial runs giving the same
 * results, atomic writes (util/fileio.c).
 * The byte-for-byte comparison with kmod's real depmod is in tests/cli/tree.sh and
 * tests/real/depmod.sh.
 */
#include "unit.h"
#include "mkmod.h"
#include "tree/tree.h"

#include <signal.h>
#include <sys/time.h>

#define KVER "6.1.0-test"

struct tfx {
	char root[512];
	char moddir[700];
	char index[700];
	char out[700];
};

static void mkdir_p(const char *path)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

/* A past mtime, so that the index does not treat files as possibly still changing. */
static void age(const char *path, long ago)
{
	struct timeval tv[2];

	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= ago;
	tv[1] = tv[0];
	assert_int_equal(utimes(path, tv), 0);
}

static void put_file(struct tfx *f, const char *rel, const void *data, size_t size)
{
	char path[1024], dir[1024];

	snprintf(path, sizeof(path), "%s/%s", f->moddir, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdir_p(dir);
	FILE *fp = fopen(path, "we");
	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, size, fp), size);
	assert_int_equal(fclose(fp), 0);
	age(path, 86400);
}

static void put_text(struct tfx *f, const char *rel, const char *text)
{
	put_file(f, rel, text, strlen(text));
}

static void put_mod(struct tfx *f, const char *rel, const struct mkmod *m)
{
	size_t size;
	unsigned char *img = mkmod_build(m, &size);

	put_file(f, rel, img, size);
	free(img);
}

static void tfx_init(struct tfx *f)
{
	unit_mkdtemp(f->root, sizeof(f->root));
	snprintf(f->moddir, sizeof(f->moddir), "%s/lib/modules/" KVER, f->root);
	mkdir_p(f->moddir);
	snprintf(f->index, sizeof(f->index), "%s/cache/tree.idx", f->root);
	snprintf(f->out, sizeof(f->out), "%s/out", f->root);
	mkdir_p(f->out);
}

#define VERMAGIC "vermagic=6.1.0-test SMP mod_unload modversions "

/*
 * The small tree: core exports core_fn; mid uses it and exports mid_fn; top uses both;
 * extra uses nothing and is not in modules.order; the kernel exports printk.
 */
static void small_tree(struct tfx *f)
{
	struct mkmod core = {
		.this_module = "core",
		.modinfo = { "license=GPL", "intree=Y", VERMAGIC, "alias=pci:v00001234d*",
			     "softdep=pre: mid", "alias=devname:core0",
			     "alias=char-major-10-200" },
		.imports = { { "printk" } },
		.versions = { { "module_layout", 0x11 }, { "printk", 0x22 } },
		.exports = { { "core_fn", "", false, 0x33 } }
	};
	struct mkmod mid = { .this_module = "mid",
			     .modinfo = { "license=GPL", "intree=Y", VERMAGIC },
			     .imports = { { "core_fn" }, { "printk" } },
			     .versions = { { "module_layout", 0x11 },
					   { "core_fn", 0x33 },
					   { "printk", 0x22 } },
			     .exports = { { "mid_fn", "", true, 0x44 } } };
	struct mkmod top = { .this_module = "top",
			     .modinfo = { "license=GPL", "intree=Y", VERMAGIC,
					  "alias=acpi*:TOP0001:*" },
			     .imports = { { "mid_fn" }, { "core_fn" } },
			     .versions = { { "module_layout", 0x11 },
					   { "mid_fn", 0x44 },
					   { "core_fn", 0x33 } } };
	struct mkmod extra = { .this_module = "extra",
			       .modinfo = { "license=GPL", "intree=Y", VERMAGIC },
			       .versions = { { "module_layout", 0x11 } } };

	put_mod(f, "kernel/a/core.ko", &core);
	put_mod(f, "kernel/b/mid.ko", &mid);
	put_mod(f, "kernel/c/top.ko", &top);
	put_mod(f, "kernel/d/extra.ko", &extra);
	put_text(f, "modules.order",
		 "kernel/a/core.ko\nkernel/b/mid.ko\nkernel/c/top.ko\n");
	put_text(f, "build/Module.symvers",
		 "0x00000011\tmodule_layout\tvmlinux\tEXPORT_SYMBOL\t\n"
		 "0x00000022\tprintk\tvmlinux\tEXPORT_SYMBOL\t\n");
}

static struct ksc_tree *open_tree(struct test_env *env, struct tfx *f, unsigned jobs,
				  const char *index)
{
	struct ksc_tree_opts o = { .sz = sizeof(o), .jobs = jobs, .index = index };
	struct ksc_tree *t = NULL;

	assert_int_equal(ksc_tree_open(env->ctx, f->root, KVER, &o, &t), 0);
	assert_non_null(t);
	return t;
}

static char *depmod_file(const struct ksc_tree *t, unsigned int which)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(ksc_tree_print_depmod(t, which, m), 0);
	fclose(m);
	return buf;
}

static void assert_file_eq(const char *path, const char *want)
{
	size_t n;
	char *got = unit_read_file(path, &n);

	if (!got)
		fail_msg("%s: cannot be read", path);
	if (strcmp(got, want) != 0)
		fail_msg("%s:\n%s\nwanted:\n%s", path, got, want);
	free(got);
}

/* ---------------------------------------------------------------------------------- */

static void test_kmod_hash(void **state)
{
	(void)state;
	/*
	 * SuperFastHash values computed independently (Python, kmod 30's byte semantics)
	 */
	assert_int_equal(ksc_kmod_hash("", 0), 0x0);
	assert_int_equal(ksc_kmod_hash("a", 1), 0x115ea782);
	assert_int_equal(ksc_kmod_hash("ab", 2), 0x516b8b44);
	assert_int_equal(ksc_kmod_hash("abc", 3), 0xd2be198a);
	assert_int_equal(ksc_kmod_hash("printk", 6), 0x6a0863d1);
	assert_int_equal(ksc_kmod_hash("usb_stor_host_template_init", 27), 0x945cf78a);
	assert_int_equal(ksc_kmod_hash("kvm_amd", 7), 0xa8fa36fc);
	assert_int_equal(ksc_kmod_hash("\xe9t\xe9", 3), 0x69bdf30d);

	char buf[64];
	size_t n;
	ksc_kmod_modname("/x/kvm-amd.ko.zst", buf, sizeof(buf), &n);
	assert_string_equal(buf, "kvm_amd");
	assert_int_equal(n, 7);
}

static void test_small_tree(void **state)
{
	struct test_env *env = *state;
	struct tfx f;

	tfx_init(&f);
	small_tree(&f);
	struct ksc_tree *t = open_tree(env, &f, 2, NULL);

	assert_int_equal(ksc_tree_get_module_count(t), 4);
	assert_int_equal(ksc_tree_get_problem_count(t), 0);
	/* modules.order first, then the rest */
	assert_string_equal(ksc_tree_get_module_relpath(t, 0), "kernel/a/core.ko");
	assert_string_equal(ksc_tree_get_module_relpath(t, 3), "kernel/d/extra.ko");
	assert_string_equal(ksc_tree_get_module_name(t, 2), "top");
	/* top found mid_fn first, then core_fn */
	assert_int_equal(ksc_tree_get_dep_count(t, 2), 2);
	assert_int_equal(ksc_tree_get_dep(t, 2, 0), 1);
	assert_int_equal(ksc_tree_get_dep(t, 2, 1), 0);
	size_t all[4];
	assert_int_equal(ksc_tree_get_all_deps(t, 2, all, 4), 2);

	char *dep = depmod_file(t, KSC_DEPMOD_DEP);
	assert_string_equal(dep, "kernel/a/core.ko:\n"
				 "kernel/b/mid.ko: kernel/a/core.ko\n"
				 "kernel/c/top.ko: kernel/b/mid.ko kernel/a/core.ko\n"
				 "kernel/d/extra.ko:\n");
	free(dep);
	/* kmod's hash order: bucket(core_fn) < bucket(mid_fn) */
	char *sym = depmod_file(t, KSC_DEPMOD_SYMBOLS);
	uint32_t bc = ksc_kmod_hash("core_fn", 7) & 2047,
		 bm = ksc_kmod_hash("mid_fn", 6) & 2047;
	assert_string_equal(sym,
			    bc < bm ? "# Aliases for symbols, used by symbol_request().\n"
				      "alias symbol:core_fn core\n"
				      "alias symbol:mid_fn mid\n"
				    : "# Aliases for symbols, used by symbol_request().\n"
				      "alias symbol:mid_fn mid\n"
				      "alias symbol:core_fn core\n");
	free(sym);
	char *alias = depmod_file(t, KSC_DEPMOD_ALIAS);
	assert_string_equal(alias, "# Aliases extracted from modules themselves.\n"
				   "alias pci:v00001234d* core\n"
				   "alias devname:core0 core\n"
				   "alias char-major-10-200 core\n"
				   "alias acpi*:TOP0001:* top\n");
	free(alias);
	char *soft = depmod_file(t, KSC_DEPMOD_SOFTDEP);
	assert_string_equal(soft,
			    "# Soft dependencies extracted from modules themselves.\n"
			    "softdep core pre: mid\n");
	free(soft);
	char *dev = depmod_file(t, KSC_DEPMOD_DEVNAME);
	assert_string_equal(dev, "# Device nodes to trigger on-demand module loading.\n"
				 "core core0 c10:200\n");
	free(dev);

	/* Verdicts: all load; the kernel's exports came from build/Module.symvers. */
	assert_true(ksc_tree_has_verdicts(t));
	assert_string_equal(ksc_tree_get_policy(t), "6.1");
	assert_non_null(strstr(ksc_tree_get_kernel_source(t), "build/Module.symvers"));
	for (size_t i = 0; i < 4; i++) {
		const struct ksc_module_verdict *v = ksc_tree_get_verdict(t, i);
		assert_non_null(v);
		assert_null(v->module);
		assert_int_equal(v->loader_err, 0);
		assert_true(v->modpost_ok);
	}
	/*
	 * kmod takes a module's export CRCs from __crc_ symbols only (mkmod's modules have
	 * none: CRC 0), so with Module.symvers, as depmod -E -e, the users of core_fn and
	 * mid_fn "disagree about version".
	 */
	assert_int_equal(ksc_tree_get_unresolved_count(t), 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(ksc_tree_get_unresolved(t, i)->kind,
				 KSC_TREE_CRC_DIFFERS);

	/* The files, written atomically, no temporary left behind. */
	assert_int_equal(ksc_tree_write_depmod(t, f.out, KSC_DEPMOD_ALL), 0);
	assert_int_equal(unit_count_dir(f.out), 5);
	char p[1024];
	snprintf(p, sizeof(p), "%s/modules.dep", f.out);
	assert_file_eq(p, "kernel/a/core.ko:\n"
			  "kernel/b/mid.ko: kernel/a/core.ko\n"
			  "kernel/c/top.ko: kernel/b/mid.ko kernel/a/core.ko\n"
			  "kernel/d/extra.ko:\n");

	/* A rebuilt module is the module. */
	struct ksc_module *a, *b;
	assert_int_equal(ksc_tree_get_module(t, 1, &a), 0);
	assert_int_equal(
		ksc_module_new_from_path(env->ctx, ksc_tree_get_module_path(t, 1), &b),
		0);
	assert_int_equal(ksc_module_get_import_count(a), ksc_module_get_import_count(b));
	for (size_t i = 0; i < ksc_module_get_import_count(a); i++) {
		const struct ksc_import *x = ksc_module_get_import(a, i),
					*y = ksc_module_get_import(b, i);
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->crc, y->crc);
		assert_int_equal(x->has_crc, y->has_crc);
		assert_ptr_equal(ksc_module_find_import(a, x->name), x);
	}
	assert_int_equal(ksc_module_get_export_count(a), 1);
	assert_true(ksc_module_get_export(a, 0)->gpl_only);
	assert_string_equal(ksc_module_get_name(a), "mid");
	assert_string_equal(ksc_module_get_kmod_name(a), ksc_module_get_kmod_name(b));
	assert_string_equal(ksc_module_get_modpost_name(a), ksc_module_get_modpost_name(b));
	assert_string_equal(ksc_module_get_symvers_owner(a), ksc_module_get_symvers_owner(b));
	assert_int_equal(ksc_module_get_signature_size(a), ksc_module_get_signature_size(b));
	assert_int_equal(ksc_module_get_size(a), ksc_module_get_size(b));
	assert_int_equal(ksc_module_get_version_count(a), ksc_module_get_version_count(b));
	assert_string_equal(ksc_module_get_modinfo_value(a, "license"), "GPL");
	assert_true(ksc_module_has_section(a, "__ksymtab_gpl"));
	ksc_module_unref(a);
	ksc_module_unref(b);
	ksc_tree_unref(t);
	unit_rm_rf(f.root);
}

/* Of two exports of one name the later module wins; updates/ beats the first found. */
static void test_owners_and_priority(void **state)
{
	struct test_env *env = *state;
	struct tfx f;

	tfx_init(&f);
	struct mkmod a = { .this_module = "dupa",
			   .modinfo = { "license=GPL" },
			   .exports = { { "shared", "", false, 1 } } };
	struct mkmod b = { .this_module = "dupb",
			   .modinfo = { "license=GPL" },
			   .exports = { { "shared", "", false, 2 } } };
	struct mkmod u = { .this_module = "over",
			   .modinfo = { "license=GPL" },
			   .imports = { { "shared" } } };
	put_mod(&f, "kernel/x/dupa.ko", &a);
	put_mod(&f, "kernel/y/dupb.ko", &b);
	put_mod(&f, "kernel/z/over.ko", &u);
	put_mod(&f, "updates/over.ko", &u);
	put_text(&f, "modules.order",
		 "kernel/x/dupa.ko\nkernel/y/dupb.ko\nkernel/z/over.ko\n");
	struct ksc_tree_opts o = { .sz = sizeof(o), .no_kernel_search = true };
	struct ksc_tree *t = NULL;
	assert_int_equal(ksc_tree_open(env->ctx, f.root, KVER, &o, &t), 0);

	assert_int_equal(ksc_tree_get_module_count(t), 3);
	assert_false(ksc_tree_has_verdicts(t)); /* no kernel exports */
	char *sym = depmod_file(t, KSC_DEPMOD_SYMBOLS);
	assert_non_null(strstr(sym, "alias symbol:shared dupb\n"));
	assert_null(strstr(sym, "dupa"));
	free(sym);
	char *dep = depmod_file(t, KSC_DEPMOD_DEP);
	/* updates/over.ko is not in modules.order ("kernel/z/over.ko" is another path) */
	assert_string_equal(dep, "kernel/x/dupa.ko:\n"
				 "kernel/y/dupb.ko:\n"
				 "updates/over.ko: kernel/y/dupb.ko\n");
	free(dep);
	ksc_tree_unref(t);
	unit_rm_rf(f.root);
}

static void test_cycle(void **state)
{
	struct test_env *env = *state;
	struct tfx f;

	tfx_init(&f);
	struct mkmod a = { .this_module = "ping",
			   .modinfo = { "license=GPL" },
			   .imports = { { "pong_fn" } },
			   .exports = { { "ping_fn", "", false, 1 } } };
	struct mkmod b = { .this_module = "pong",
			   .modinfo = { "license=GPL" },
			   .imports = { { "ping_fn" } },
			   .exports = { { "pong_fn", "", false, 2 } } };
	struct mkmod c = { .this_module = "user",
			   .modinfo = { "license=GPL" },
			   .imports = { { "ping_fn" } } };
	put_mod(&f, "kernel/ping.ko", &a);
	put_mod(&f, "kernel/pong.ko", &b);
	put_mod(&f, "kernel/user.ko", &c);
	put_text(&f, "modules.order", "kernel/ping.ko\nkernel/pong.ko\nkernel/user.ko\n");
	struct ksc_tree *t = open_tree(env, &f, 1, NULL);

	assert_int_equal(ksc_tree_get_cycle_count(t), 1);
	const size_t *m;
	assert_int_equal(ksc_tree_get_cycle(t, 0, &m), 2);
	assert_string_equal(ksc_tree_get_module_name(t, m[0]), "ping");
	assert_string_equal(ksc_tree_get_module_name(t, m[1]), "pong");
	/* depmod writes nothing then; neither do we */
	assert_int_equal(ksc_tree_write_depmod(t, f.out, KSC_DEPMOD_ALL), -EDEADLK);
	assert_int_equal(unit_count_dir(f.out), 0);
	assert_log_contains(env, "dependency cycle");
	ksc_tree_unref(t);
	unit_rm_rf(f.root);
}

static void test_unresolved(void **state)
{
	struct test_env *env = *state;
	struct tfx f;

	tfx_init(&f);
	struct mkmod a = { .this_module = "needy",
			   .modinfo = { "license=GPL", VERMAGIC },
			   .imports = { { "printk" }, { "nosuch" }, { "maybe", true } },
			   .versions = { { "printk", 0x99 } } };
	put_mod(&f, "kernel/needy.ko", &a);
	put_text(&f, "build/Module.symvers",
		 "0x00000022\tprintk\tvmlinux\tEXPORT_SYMBOL\t\n");
	struct ksc_tree *t = open_tree(env, &f, 1, NULL);

	assert_int_equal(ksc_tree_get_unresolved_count(t), 2);
	const struct ksc_tree_unresolved *u0 = ksc_tree_get_unresolved(t, 0);
	const struct ksc_tree_unresolved *u1 = ksc_tree_get_unresolved(t, 1);
	assert_string_equal(u0->symbol, "printk");
	assert_int_equal(u0->kind, KSC_TREE_CRC_DIFFERS);
	assert_string_equal(u1->symbol, "nosuch");
	assert_int_equal(u1->kind, KSC_TREE_UNKNOWN_SYMBOL);
	const struct ksc_module_verdict *v = ksc_tree_get_verdict(t, 0);
	assert_non_null(v);
	assert_int_not_equal(v->loader_err, 0); /* the loader refuses it too */
	assert_false(v->modpost_ok);
	bool undefined = false;
	for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
		const struct ksc_diag *d = ksc_tree_get_diag(t, i);
		assert_int_equal(d->module_index, 0);
		if (strcmp(d->code, "unresolved") == 0 && d->symbol &&
		    strcmp(d->symbol, "nosuch") == 0)
			undefined = true;
	}
	assert_true(undefined);
	ksc_tree_unref(t);
	unit_rm_rf(f.root);
}

/* Every problem reported, the rest processed, depmod's files complete. */
static void test_broken_tree(void **state)
{
	struct test_env *env = *state;
	struct tfx f;
	char p[1024], q[1024];

	tfx_init(&f);
	small_tree(&f);
	put_text(&f, "kernel/bad/truncated.ko", "\177ELF\2\1\1");
	put_text(&f, "kernel/bad/empty.ko", "");
	put_text(&f, "kernel/bad/text.ko", "not a module at all\n");
	snprintf(p, sizeof(p), "%s/kernel/bad/dangling.ko", f.moddir);
	assert_int_equal(symlink("nowhere.ko", p), 0);
	snprintf(p, sizeof(p), "%s/kernel/bad/loop", f.moddir);
	assert_int_equal(symlink("..", p), 0);
	snprintf(p, sizeof(p), "%s/kernel/empty-dir", f.moddir);
	mkdir_p(p);
	snprintf(p, sizeof(p), "%s/kernel/bad/fifo.ko", f.moddir);
	assert_int_equal(mkfifo(p, 0644), 0);
	struct ksc_tree *t = open_tree(env, &f, 2, f.index);

	size_t np = ksc_tree_get_problem_count(t);
	const char *want[] = { "kernel/bad/dangling.ko", "kernel/bad/empty.ko",
			       "kernel/bad/fifo.ko",	 "kernel/bad/loop",
			       "kernel/bad/text.ko",	 "kernel/bad/truncated.ko" };
	assert_int_equal(np, ARRAY_SIZE(want));
	for (size_t i = 0; i < np; i++) {
		const struct ksc_tree_problem *x = ksc_tree_get_problem(t, i);
		snprintf(q, sizeof(q), "%s/%s", f.moddir, want[i]);
		assert_string_equal(x->path, q);
		assert_true(x->err < 0);
		snprintf(q, sizeof(q), "%s/%s: ", f.moddir, want[i]);
		assert_log_contains(env, q);
	}
	assert_string_equal(ksc_tree_get_problem(t, 0)->reason, "dangling symbolic link");
	assert_string_equal(ksc_tree_get_problem(t, 3)->reason, "symbolic link loop");
	/* the three bad files are modules for depmod: listed, without dependencies */
	assert_int_equal(ksc_tree_get_module_count(t), 7);
	char *dep = depmod_file(t, KSC_DEPMOD_DEP);
	assert_non_null(strstr(dep, "kernel/bad/truncated.ko:\n"));
	assert_non_null(strstr(dep, "kernel/bad/empty.ko:\n"));
	assert_non_null(
		strstr(dep, "kernel/c/top.ko: kernel/b/mid.ko kernel/a/core.ko\n"));
	free(dep);
	size_t bad = 0;
	for (size_t i = 0; i < 7; i++)
		if (ksc_tree_get_module_error(t, i) < 0) {
			bad++;
			assert_null(ksc_tree_get_verdict(t, i));
		}
	assert_int_equal(bad, 3);
	assert_int_equal(ksc_tree_write_depmod(t, f.out, KSC_DEPMOD_ALL), 0);
	assert_int_equal(ksc_tree_save_index(t), 0);
	ksc_tree_unref(t);

	/* From the index: the same problems, reported again. */
	test_log_clear(env);
	t = open_tree(env, &f, 2, f.index);
	struct ksc_tree_stats st;
	ksc_tree_get_stats(t, &st);
	assert_int_equal(st.index_state, KSC_TREE_INDEX_USED);
	assert_int_equal(ksc_tree_get_problem_count(t), np);
	snprintf(q, sizeof(q), "%s/kernel/bad/truncated.ko: ", f.moddir);
	assert_log_contains(env, q);
	ksc_tree_unref(t);
	unit_rm_rf(f.root);
}

static void assert_same_results(struct ksc_tree *a, struct ksc_tree *b)
{
	for (unsigned int w = KSC_DEPMOD_DEP; w <= KSC_DEPMOD_DEVNAME; w <<= 1) {
		char *x = depmod_file(a, w), *y = depmod_file(b, w);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	assert_int_equal(ksc_tree_get_diag_count(a), ksc_tree_get_diag_count(b));
	for (size_t i = 0; i < ksc_tree_get_diag_count(a); i++) {
		const struct ksc_diag *x = ksc_tree_get_diag(a, i),
				      *y = ksc_tree_get_diag(b, i);
		assert_string_equal(x->code, y->code);
		assert_int_equal(x->module_index, y->module_index);
		assert_int_equal(x->severity, y->severity);
	}
	assert_int_equal(ksc_tree_get_unresolved_count(a),
			 ksc_tree_get_unresolved_count(b));
	assert_int_equal(ksc_tree_get_problem_count(a), ksc_tree_get_problem_count(b));
}

static void test_index_reuse(void **state)
{
	struct test_env *env = *state;
	struct tfx f;
	struct ksc_tree_stats st;
	char p[1024];

	tfx_init(&f);
	small_tree(&f);
	struct ksc_tree *t0 = open_tree(env, &f, 2, f.index);
	ksc_tree_get_stats(t0, &st);
	assert_int_equal(st.index_state, KSC_TREE_INDEX_ABSENT);
	assert_int_equal(st.read, 4);
	assert_int_equal(ksc_tree_save_index(t0), 0); /* creates cache/ */

	/* Nothing changed: nothing read, nothing checked, same results. */
	struct ksc_tree *t1 = open_tree(env, &f, 2, f.index);
	ksc_tree_get_stats(t1, &st);
	assert_int_equal(st.index_state, KSC_TREE_INDEX_USED);
	assert_int_equal(st.read, 0);
	assert_int_equal(st.cached, 4);
	assert_int_equal(st.checked, 0);
	assert_true(ksc_tree_module_is_cached(t1, 0));
	assert_same_results(t0, t1);
	ksc_tree_unref(t1);

	/* Touched (mtime only): read again, nothing else redone. */
	snprintf(p, sizeof(p), "%s/kernel/b/mid.ko", f.moddir);
	age(p, 3600);
	t1 = open_tree(env, &f, 2, f.index);
	ksc_tree_get_stats(t1, &st);
	assert_int_equal(st.read, 1);
	assert_int_equal(st.checked, 0);
	assert_false(ksc_tree_module_is_cached(t1, 1));
	assert_same_results(t0, t1);
	ksc_tree_unref(t1);

	/* Changed: mid exports one more symbol; top now also uses it. */
	struct mkmod mid = { .this_module = "mid",
			     .modinfo = { "license=GPL", "intree=Y", VERMAGIC },
			     .imports = { { "core_fn" }, { "printk" } },
			     .versions = { { "module_layout", 0x11 },
					   { "core_fn", 0x33 },
					   { "printk", 0x22 } },
			     .exports = { { "mid_fn", "", true, 0x44 },
					  { "mid_new", "", false, 0x55 } } };
	put_mod(&f, "kernel/b/mid.ko", &mid);
	t1 = open_tree(env, &f, 2, f.index);
	ksc_tree_get_stats(t1, &st);
	assert_int_equal(st.read, 1);
	assert_int_equal(st.checked, 4); /* a provider changed: every verdict again */
	char *sym = depmod_file(t1, KSC_DEPMOD_SYMBOLS);
	assert_non_null(strstr(sym, "alias symbol:mid_new mid\n"));
	free(sym);
	assert_int_equal(ksc_tree_save_index(t1), 0);
	ksc_tree_unref(t1);

	/* A module removed: still right. */
	snprintf(p, sizeof(p), "%s/kernel/d/extra.ko", f.moddir);
	assert_int_equal(unlink(p), 0);
	t1 = open_tree(env, &f, 2, f.index);
	assert_int_equal(ksc_tree_get_module_count(t1), 3);
	ksc_tree_get_stats(t1, &st);
	assert_int_equal(st.read, 0);
	char *dep = depmod_file(t1, KSC_DEPMOD_DEP);
	assert_null(strstr(dep, "extra"));
	free(dep);
	ksc_tree_unref(t1);
	ksc_tree_unref(t0);
	unit_rm_rf(f.root);
}

/* depmod files not rewritten when nothing changed, rewritten when one is missing. */
static void test_outputs_unchanged(void **state)
{
	struct test_env *env = *state;
	struct tfx f;
	struct stat a, b;
	char p[1024];

	tfx_init(&f);
	small_tree(&f);
	struct ksc_tree *t = open_tree(env, &f, 1, f.index);
	assert_int_equal(ksc_tree_write_depmod(t, f.out, KSC_DEPMOD_ALL), 0);
	assert_int_equal(ksc_tree_save_index(t), 0);
	ksc_tree_unref(t);
	snprintf(p, sizeof(p), "%s/modules.dep", f.out);
	assert_int_equal(stat(p, &a), 0);
	t = open_tree(env, &f, 1, f.index);
	assert_int_equal(ksc_tree_write_depmod(t, f.out, KSC_DEPMOD_ALL), 0);
	assert_int_equal(stat(p, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino); /* not replaced */
	ksc_tree_unref(t);
	unlink(p);
	t = open_tree(env, &f, 1, f.index);
	assert_int_equal(ksc_tree_write_depmod(t, f.out, KSC_DEPMOD_ALL), 0);
	assert_int_equal(stat(p, &b), 0);
	ksc_tree_unref(t);
	unit_rm_rf(f.root);
}

static void corrupt_and_check(struct test_env *env, struct tfx *f, struct ksc_tree *ref,
			      const char *what)
{
	struct ksc_tree_stats st;

	test_log_clear(env);
	struct ksc_tree *t = open_tree(env, f, 2, f->index);
	ksc_tree_get_stats(t, &st);
	if (st.index_state != KSC_TREE_INDEX_REBUILT)
		fail_msg("%s: index state %d, not rebuilt", what, st.index_state);
	assert_int_equal(st.read, ksc_tree_get_module_count(t));
	assert_log_contains(env, "rebuilt");
	assert_same_results(ref, t);
	ksc_tree_unref(t);
}

static void write_bytes(const char *path, const void *p, size_t n)
{
	FILE *fp = fopen(path, "we");
	assert_non_null(fp);
	assert_int_equal(fwrite(p, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

/* A corrupt, truncated, foreign or empty index is noticed and rebuilt, never used. */
static void test_index_corrupt(void **state)
{
	struct test_env *env = *state;
	struct tfx f, g;
	size_t n = 0;

	tfx_init(&f);
	small_tree(&f);
	struct ksc_tree *ref = open_tree(env, &f, 2, f.index);
	assert_int_equal(ksc_tree_save_index(ref), 0);
	char *good = unit_read_file(f.index, &n);
	assert_non_null(good);
	assert_true(n > 1000);

	/*
	 * a byte flipped in the header, the directory, a derived record: all refused at
	 * once
	 */
	struct kidx idx;
	assert_int_equal(ksc_kidx_parse(good, n, &idx), 0);
	size_t cold = (size_t)idx.cold_off, cold_end = (size_t)idx.cold_end;
	ksc_kidx_free(&idx);
	size_t at[] = { 0, 9, 40, 200, cold / 2, cold - 1 };
	for (size_t i = 0; i < ARRAY_SIZE(at); i++) {
		good[at[i]] ^= 0x40;
		write_bytes(f.index, good, n);
		good[at[i]] ^= 0x40;
		corrupt_and_check(env, &f, ref, "flipped byte");
	}
	/* ... in a facts record: refused when it is read, that module read again */
	size_t cat[] = { cold + 3, (cold + cold_end) / 2, cold_end - 1 };
	for (size_t i = 0; i < ARRAY_SIZE(cat); i++) {
		good[cat[i]] ^= 0x40;
		write_bytes(f.index, good, n);
		good[cat[i]] ^= 0x40;
		test_log_clear(env);
		struct ksc_tree *t = open_tree(env, &f, 2, f.index);
		assert_same_results(ref, t); /* reads every record */
		assert_log_contains(env, "is corrupt: read again");
		ksc_tree_unref(t);
	}
	write_bytes(f.index, good, n / 2);
	corrupt_and_check(env, &f, ref, "truncated");
	write_bytes(f.index, "", 0);
	corrupt_and_check(env, &f, ref, "empty");
	write_bytes(f.index, "garbage, not an index\n", 22);
	corrupt_and_check(env, &f, ref, "garbage");

	/* another tree's index */
	tfx_init(&g);
	small_tree(&g);
	write_bytes(f.index, good, n);
	test_log_clear(env);
	struct ksc_tree *t = open_tree(env, &g, 1, f.index);
	struct ksc_tree_stats st;
	ksc_tree_get_stats(t, &st);
	assert_int_equal(st.index_state, KSC_TREE_INDEX_REBUILT);
	assert_log_contains(env, "index of another tree");
	ksc_tree_unref(t);

	/* the good bytes parse */
	assert_int_equal(ksc_kidx_parse(good, n, &idx), 0);
	assert_int_equal(idx.n_mods, 4);
	ksc_kidx_free(&idx);
	free(good);
	ksc_tree_unref(ref);
	unit_rm_rf(f.root);
	unit_rm_rf(g.root);
}

/*
 * A record of the cold part corrupted (checksums redone): not used, the module read
 * again.
 */
static void test_index_cold_record(void **state)
{
	struct test_env *env = *state;
	struct tfx f;
	struct ksc_tree_stats st;
	size_t n = 0;

	tfx_init(&f);
	small_tree(&f);
	struct ksc_tree *ref = open_tree(env, &f, 1, f.index);
	assert_int_equal(ksc_tree_save_index(ref), 0);
	struct kidx idx;
	assert_int_equal(ksc_kidx_read(f.index, &idx), 0);
	uint64_t off = idx.mods[2].rec_off;
	ksc_kidx_free(&idx);
	char *buf = unit_read_file(f.index, &n);
	assert_non_null(buf);
	/* the record's relpath field, pointing elsewhere in its string table */
	struct krec *r = (struct krec *)(buf + off);
	r->relpath = r->kmod_name;
	ksc_kidx_fix_checksums(buf, n);
	write_bytes(f.index, buf, n);
	free(buf);
	/* a warm run: the record is not needed, nothing is read */
	struct ksc_tree *t = open_tree(env, &f, 1, f.index);
	ksc_tree_get_stats(t, &st);
	assert_int_equal(st.read, 0);
	ksc_tree_unref(t);
	/*
	 * a run that needs every record: the bad one is refused and its module read again
	 */
	test_log_clear(env);
	t = open_tree(env, &f, 1, f.index);
	char *dep = depmod_file(t, KSC_DEPMOD_DEP),
	     *want = depmod_file(ref, KSC_DEPMOD_DEP);
	assert_string_equal(dep, want);
	free(dep);
	free(want);
	assert_log_contains(env, "is corrupt: read again");
	assert_false(ksc_tree_module_is_cached(t, 2));
	assert_true(ksc_tree_module_is_cached(t, 1));
	ksc_tree_unref(t);
	ksc_tree_unref(ref);
	unit_rm_rf(f.root);
}

/* Records and derived records: every validator bound holds. */
static void test_record_validation(void **state)
{
	struct test_env *env = *state;
	struct tfx f;

	tfx_init(&f);
	small_tree(&f);
	struct ksc_tree *t = open_tree(env, &f, 1, f.index);
	assert_int_equal(ksc_tree_save_index(t), 0);
	ksc_tree_unref(t);
	struct kidx idx;
	const struct krec *r;
	assert_int_equal(ksc_kidx_read(f.index, &idx), 0);
	assert_null(idx.mods[1].rec); /* the cold part is read when needed */
	assert_int_equal(ksc_kidx_fetch(&idx, 1, &r), 0);
	assert_ptr_equal(idx.mods[1].rec, r);
	size_t size = r->size;
	struct krec *c = malloc(size);
	assert_non_null(c);
	memcpy(c, r, size);
	assert_int_equal(ksc_krec_validate(c, size), 0);
	/* each field set out of range, one at a time */
	struct krec *x = malloc(size);
	assert_non_null(x);
#define BREAK(stmt)                                                                      \
	do {                                                                             \
		memcpy(x, c, size);                                                      \
		stmt;                                                                    \
		assert_int_equal(ksc_krec_validate(x, size), -EINVAL);                   \
	} while (0)
	BREAK(x->magic++);
	BREAK(x->size = (uint32_t)size + 8);
	BREAK(x->strtab.n = 0);
	BREAK(x->strtab.off = (uint32_t)size);
	BREAK(x->imports.n = 0x10000000);
	BREAK(x->relpath = x->strtab.n);
	BREAK(x->kind = 7);
	BREAK(x->flags |= 1u << 30);
	BREAK(x->modinfo.off = 3);
	BREAK(((uint32_t *)((char *)x + x->imports.off))[0] = x->strtab.n);
	BREAK(((char *)x + x->strtab.off)[x->strtab.n - 1] = 'x');
	BREAK(x->sigtail.n = x->sigtail.n + (uint32_t)size);
#undef BREAK
	const struct kder *d = idx.mods[2].der;
	assert_non_null(d);
	assert_int_equal(ksc_kder_validate(d, d->size, idx.n_mods), 0);
	assert_int_equal(ksc_kder_validate(d, d->size, 1),
			 -EINVAL); /* deps out of range */
	free(x);
	free(c);
	ksc_kidx_free(&idx);
	unit_rm_rf(f.root);
}

/* Any bytes: ksc_kidx_parse never crashes and never accepts nonsense. */
static void test_kidx_garbage(void **state)
{
	unsigned char buf[4096];
	struct kidx idx;
	uint64_t x = 88172645463325252ULL;

	(void)state;
	for (int round = 0; round < 300; round++) {
		size_t n = (size_t)(x % sizeof(buf));
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = (unsigned char)x;
		}
		if (n > 8)
			memcpy(buf, "KSCTREE\n",
			       8); /* past the magic, to reach the checks behind it */
		int r = ksc_kidx_parse(buf, n, &idx);
		assert_true(r == -EINVAL || r == -ENOENT);
	}
}

static void test_parallel_same(void **state)
{
	struct test_env *env = *state;
	struct tfx f;

	tfx_init(&f);
	small_tree(&f);
	/* more modules, so that several threads really share the work */
	for (int i = 0; i < 60; i++) {
		char rel[64], name[32], fn[32];
		snprintf(rel, sizeof(rel), "kernel/many/m%02d.ko", i);
		snprintf(name, sizeof(name), "m%02d", i);
		snprintf(fn, sizeof(fn), "m%02d_fn", i);
		char prev[32];
		snprintf(prev, sizeof(prev), "m%02d_fn", i ? i - 1 : 0);
		struct mkmod m = { .this_module = name,
				   .modinfo = { "license=GPL", VERMAGIC },
				   .imports = { { i ? prev : "core_fn" } },
				   .exports = { { fn, "", i % 2, (uint32_t)i } } };
		put_mod(&f, rel, &m);
	}
	struct ksc_tree *a = open_tree(env, &f, 1, NULL);
	struct ksc_tree *b = open_tree(env, &f, 8, NULL);
	assert_int_equal(ksc_tree_get_module_count(a), 64);
	assert_same_results(a, b);
	ksc_tree_unref(a);
	ksc_tree_unref(b);
	unit_rm_rf(f.root);
}

static void test_bad_args(void **state)
{
	struct test_env *env = *state;
	struct ksc_tree *t = (void *)1;
	struct tfx f;

	tfx_init(&f);
	assert_int_equal(ksc_tree_open(env->ctx, f.root, "banana", NULL, &t), -EINVAL);
	assert_null(t);
	assert_int_equal(ksc_tree_open(env->ctx, f.root, "9.9.9-none", NULL, &t),
			 -ENOENT);
	assert_log_contains(env, "no such module directory");
	/* an empty folder is a tree of no modules */
	t = open_tree(env, &f, 0, NULL);
	assert_int_equal(ksc_tree_get_module_count(t), 0);
	char *dep = depmod_file(t, KSC_DEPMOD_DEP);
	assert_string_equal(dep, "");
	free(dep);
	/* writing into a folder that does not exist fails and leaves nothing */
	char p[1024];
	snprintf(p, sizeof(p), "%s/nowhere", f.root);
	assert_int_equal(ksc_tree_write_depmod(t, p, KSC_DEPMOD_DEP), -ENOENT);
	ksc_tree_unref(t);
	assert_string_equal(ksc_depmod_file_name(KSC_DEPMOD_SOFTDEP), "modules.softdep");
	assert_null(ksc_depmod_file_name(3));
	unit_rm_rf(f.root);
}

/* A failed write leaves the old file and no temporary. */
/*
 * An index cut short in place while it is open (a cache cleaner, `: > FILE`): what was
 * read and checked stays usable, and the process does not die of SIGBUS.
 */
static void test_index_truncated(void **state)
{
	struct test_env *env = *state;
	struct tfx f;
	struct kidx idx;
	const struct krec *r;

	tfx_init(&f);
	small_tree(&f);
	struct ksc_tree *t = open_tree(env, &f, 1, f.index);
	assert_int_equal(ksc_tree_save_index(t), 0);
	ksc_tree_unref(t);
	assert_int_equal(ksc_kidx_open(f.index, &idx), 0);
	assert_int_equal(truncate(f.index, 0), 0);
	assert_int_equal(ksc_kidx_finish(&idx), 0);
	assert_int_equal(idx.n_mods, 4);
	/* the cold part is gone: its records fail cleanly */
	assert_true(ksc_kidx_fetch(&idx, 1, &r) < 0);
	ksc_kidx_free(&idx);
	unit_rm_rf(f.root);
}

/* The index's lookup table: one module found by name or path, its record alone read. */
static void test_index_lookup(void **state)
{
	struct test_env *env = *state;
	struct tfx f;
	struct kidx_map *m;
	struct kidx_hit hit;
	struct stat st;
	char p[1024];
	size_t n = 0;

	tfx_init(&f);
	small_tree(&f);
	usleep(50000); /* the files' ctimes past the tick that would make their keys racy */
	struct ksc_tree *t = open_tree(env, &f, 1, f.index);
	assert_int_equal(ksc_tree_save_index(t), 0);
	ksc_tree_unref(t);
	assert_int_equal(ksc_kidx_map(f.index, &m), 0);
	assert_int_equal(ksc_kidx_map_count(m), 4);
	assert_string_equal(ksc_kidx_map_moddir(m), f.moddir);
	const char *names[] = { "core", "extra", "mid", "top" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		assert_int_equal(ksc_kidx_find(m, names[i], &hit), 0);
		assert_string_equal(hit.name, names[i]);
		assert_string_equal(krec_str(hit.rec, hit.rec->relpath), hit.relpath);
		snprintf(p, sizeof(p), "%s/%s", f.moddir, hit.relpath);
		assert_int_equal(stat(p, &st), 0);
		assert_true(ksc_kidx_key_matches(&hit.key, &st));
		struct kidx_hit again;
		assert_int_equal(ksc_kidx_find_path(m, hit.relpath, &again), 0);
		assert_ptr_equal(again.rec, hit.rec); /* read once */
	}
	assert_int_equal(ksc_kidx_find(m, "nosuch", &hit), -ENOENT);
	assert_int_equal(ksc_kidx_find(m, "", &hit), -ENOENT);
	assert_int_equal(ksc_kidx_find(m, "zzz", &hit), -ENOENT);
	assert_int_equal(ksc_kidx_find_path(m, "kernel/a/nosuch.ko", &hit), -ENOENT);
	/* a file touched since: its key no longer matches */
	assert_int_equal(ksc_kidx_find(m, "mid", &hit), 0);
	snprintf(p, sizeof(p), "%s/%s", f.moddir, hit.relpath);
	assert_int_equal(utimes(p, NULL), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_false(ksc_kidx_key_matches(&hit.key, &st));
	ksc_kidx_unmap(m);

	/* from memory, with every byte of the lookup table flipped in turn: refused */
	char *good = unit_read_file(f.index, &n);
	assert_non_null(good);
	assert_int_equal(ksc_kidx_map_mem(good, n, &m), 0);
	ksc_kidx_unmap(m);
	struct kidx idx;
	assert_int_equal(ksc_kidx_parse(good, n, &idx), 0);
	size_t lk = (size_t)idx.cold_end;
	ksc_kidx_free(&idx);
	for (size_t at = lk; at < n; at++) {
		good[at] ^= 0x10;
		assert_int_equal(ksc_kidx_map_mem(good, n, &m), -EINVAL);
		good[at] ^= 0x10;
	}
	/* a record corrupted: the table still opens, that lookup fails, the others work */
	assert_int_equal(ksc_kidx_map_mem(good, n, &m), 0);
	assert_int_equal(ksc_kidx_find(m, "top", &hit), 0);
	uint64_t off = 0;
	ksc_kidx_unmap(m);
	assert_int_equal(ksc_kidx_read(f.index, &idx), 0);
	for (size_t i = 0; i < idx.n_mods; i++)
		if (strcmp(idx.mods[i].modname, "top") == 0)
			off = idx.mods[i].rec_off;
	ksc_kidx_free(&idx);
	good[off + 40] ^= 1;
	assert_int_equal(ksc_kidx_map_mem(good, n, &m), 0);
	assert_int_equal(ksc_kidx_find(m, "top", &hit), -EINVAL);
	assert_int_equal(ksc_kidx_find(m, "core", &hit), 0);
	ksc_kidx_unmap(m);
	/* ... even with its checksums redone: it no longer says what the table says */
	ksc_kidx_fix_checksums(good, n);
	assert_int_equal(ksc_kidx_map_mem(good, n, &m), 0);
	assert_int_equal(ksc_kidx_find(m, "top", &hit), -EINVAL);
	ksc_kidx_unmap(m);
	good[off + 40] ^= 1;
	ksc_kidx_fix_checksums(good, n);

	/* cut short while open: the lookups fail cleanly, no SIGBUS */
	assert_int_equal(ksc_kidx_map(f.index, &m), 0);
	assert_int_equal(ksc_kidx_find(m, "core", &hit), 0);
	assert_int_equal(truncate(f.index, (off_t)(n / 2)), 0);
	assert_int_equal(ksc_kidx_find(m, "core", &hit), 0); /* kept */
	assert_true(ksc_kidx_find(m, "top", &hit) < 0);
	ksc_kidx_unmap(m);
	assert_int_equal(ksc_kidx_map(f.index, &m), -EINVAL);
	write_bytes(f.index, "", 0);
	assert_int_equal(ksc_kidx_map(f.index, &m), -EINVAL);
	unlink(f.index);
	assert_int_equal(ksc_kidx_map(f.index, &m), -ENOENT);
	free(good);
	unit_rm_rf(f.root);
}

static const char *fixture(const char *rel)
{
	static char buf[1024];
	const char *d = getenv("FIXTURES");

	snprintf(buf, sizeof(buf), "%s/%s", d && *d ? d : "build/fixtures", rel);
	return buf;
}

/*
 * A signed module's record keeps the digest of its signed bytes, made when the tree
 * read it: verifying the module rebuilt from the record reads no file.
 */
static void test_record_digest(void **state)
{
	struct test_env *env = *state;
	struct tfx f;
	struct kidx_map *m;
	struct kidx_hit hit;
	struct ksc_keyring *kr;
	struct ksc_module *mod;
	const struct ksc_key *key;
	size_t n = 0;

	char *img = unit_read_file(fixture("signed/fx-user-rsa.ko.xz"), &n);
	if (!img || access(fixture("signed/rsa.pem"), R_OK) != 0) {
		free(img);
		skip(); /* no openssl when the fixtures were made */
	}
	tfx_init(&f);
	small_tree(&f);
	put_file(&f, "kernel/s/fx-user.ko.xz", img, n);
	free(img);
	assert_int_equal(ksc_keyring_new(env->ctx, &kr), 0);
	assert_int_equal(ksc_keyring_add_path(kr, fixture("signed/rsa.pem")), 1);
	struct ksc_tree_opts o = { .sz = sizeof(o), .jobs = 1, .index = f.index, .keyring = kr };
	struct ksc_tree *t = NULL;
	assert_int_equal(ksc_tree_open(env->ctx, f.root, KVER, &o, &t), 0);
	assert_int_equal(ksc_tree_save_index(t), 0);
	ksc_tree_unref(t);

	assert_int_equal(ksc_kidx_map(f.index, &m), 0);
	assert_int_equal(ksc_kidx_find(m, "fx_user", &hit), 0);
	assert_int_equal(hit.rec->sigdigest.n, 1);
	const struct krec_digest *d = krec_arr(hit.rec, hit.rec->sigdigest);
	assert_int_equal(d->len, 32); /* sha256 */
	/* rebuilt at a path where there is no file: verified all the same */
	assert_int_equal(ksc_krec_to_module(env->ctx, hit.rec, "/nonexistent/fx-user.ko", true,
					    false, NULL, &mod), 0);
	assert_int_equal(ksc_module_verify_signature(mod, kr, &key), 0);
	assert_non_null(key);
	ksc_module_unref(mod);
	/* without the digest, the file would have to be read again: it cannot be */
	struct krec *c = malloc(hit.rec->size);
	assert_non_null(c);
	memcpy(c, hit.rec, hit.rec->size);
	c->sigdigest.n = 0;
	assert_int_equal(ksc_krec_to_module(env->ctx, c, "/nonexistent/fx-user.ko", true,
					    false, NULL, &mod), 0);
	assert_int_equal(ksc_module_verify_signature(mod, kr, &key), -ENOENT);
	ksc_module_unref(mod);
	free(c);
	ksc_kidx_unmap(m);
	ksc_keyring_unref(kr);
	unit_rm_rf(f.root);
}

static void test_write_atomic(void **state)
{
	char dir[512], p[1024];

	(void)state;
	unit_mkdtemp(dir, sizeof(dir));
	assert_int_equal(ksc_write_atomic(dir, "f", "old\n", 4, true), 0);
	assert_int_equal(ksc_write_atomic(dir, "f", "new\n", 4, true), 0);
	snprintf(p, sizeof(p), "%s/f", dir);
	assert_file_eq(p, "new\n");
	assert_int_equal(unit_count_dir(dir), 1);
	/* a name that is a folder: rename fails; the temporary is removed */
	snprintf(p, sizeof(p), "%s/d", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/d/x", dir);
	mkdir(p, 0755);
	assert_true(ksc_write_atomic(dir, "d", "x", 1, false) < 0);
	assert_int_equal(unit_count_dir(dir), 2);
	/* a stale temporary of a dead process is cleaned up */
	snprintf(p, sizeof(p), "%s/.f.ksymcheck-tmp-999999999-abcdef", dir);
	write_bytes(p, "half", 4);
	assert_int_equal(ksc_write_atomic(dir, "f", "newer\n", 6, false), 0);
	assert_int_equal(access(p, F_OK), -1);
	unit_rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmod_hash),
		cmocka_unit_test_setup_teardown(test_small_tree, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_owners_and_priority, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_cycle, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_unresolved, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_broken_tree, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_index_reuse, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_outputs_unchanged, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_index_corrupt, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_record_validation, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_index_cold_record, test_env_setup,
						test_env_teardown),
		cmocka_unit_test(test_kidx_garbage),
		cmocka_unit_test_setup_teardown(test_parallel_same, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_bad_args, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_index_lookup, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_record_digest, test_env_setup,
						test_env_teardown),
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test_setup_teardown(test_index_truncated, test_env_setup,
						test_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
