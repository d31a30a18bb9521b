// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod.d (lib/modset/ksc-modset-depmodcfg.c): parsing (search, override, exclude,
 * external, bad lines, continuation lines, kernel patterns), the files' order and
 * precedence across ROOT/{etc,run,usr/local/lib,usr/lib,lib}/depmod.d, and the decision
 * between two files of one name as kmod's depmod_module_is_higher_priority() makes it,
 * its quirk between two files below one search folder included, with the files stat'ed
 * on the walk's thread and on a second one. The comparison with
 * kmod's real depmod on whole trees is in tests/cli/modset.sh. The module set object
 * (lib/modset/ksc-modset.c): each file's facts from the index when it read that very
 * file, else read and kept for the next index; ksc_kernel_open_opts()'s options, and
 * ksc_kernel_root_*(): a module of the folder from its record by any path. The module
 * set's entries (lib/modset/ksc-modset-entries.c): a record read kept and freed by them,
 * its summary and checksum.
 */
#include <sys/time.h>

#include "unit.h"
#include "mkmod.h"
#include "kernel/kernel.h"
#include "modset/modset.h"

static struct ksc_depmod_cfg *cfg_of(struct test_env *env, const char *kver, const char *text)
{
	struct ksc_depmod_cfg *cfg = ksc_depmod_cfg_new(kver);

	assert_non_null(cfg);
	assert_int_equal(ksc_depmod_cfg_parse(env->ctx, cfg, "t.conf", text, strlen(text)), 0);
	assert_int_equal(ksc_depmod_cfg_finish(cfg), 0);
	return cfg;
}

/* Does `winner` win against `loser`, met before and after it? */
static bool wins(const struct ksc_depmod_cfg *cfg, const char *winner, const char *loser)
{
	return ksc_depmod_module_is_higher_priority(cfg, winner, loser) &&
	       !ksc_depmod_module_is_higher_priority(cfg, loser, winner);
}

static void test_default_updates_first(void **state)
{
	struct ksc_depmod_cfg *cfg = cfg_of(*state, "6.1.0", "");

	assert_true(wins(cfg, "updates/dkms/kvm.ko", "kernel/arch/x86/kvm/kvm.ko"));
	assert_true(wins(cfg, "updates/kvm.ko.xz", "kernel/arch/x86/kvm/kvm.ko"));
	/* "updatesX" is not below "updates" */
	assert_true(ksc_depmod_module_is_higher_priority(cfg, "kernel/kvm.ko", "updatesX/kvm.ko"));
	/* extra/ and kernel/ rank alike: the file met first stays */
	assert_true(ksc_depmod_module_is_higher_priority(cfg, "kernel/kvm.ko", "extra/kvm.ko"));
	assert_true(ksc_depmod_module_is_higher_priority(cfg, "extra/kvm.ko", "kernel/kvm.ko"));
	/* depmod's quirk: of two files below updates/, the one met later wins */
	assert_false(ksc_depmod_module_is_higher_priority(cfg, "updates/a/kvm.ko",
							  "updates/b/kvm.ko"));
	assert_false(ksc_depmod_module_is_higher_priority(cfg, "updates/b/kvm.ko",
							  "updates/a/kvm.ko"));
	char buf[128];
	assert_string_equal(ksc_depmod_module_rank_reason(cfg, "updates/dkms/kvm.ko", buf,
							  sizeof(buf)),
			    "depmod searches updates/ first");
	assert_string_equal(ksc_depmod_module_rank_reason(cfg, "kernel/kvm.ko", buf, sizeof(buf)),
			    "depmod's order: the first file met");
	ksc_depmod_cfg_free(cfg);
}

static void test_search_order(void **state)
{
	/* first listed first; built-in stands for every folder no entry names */
	struct ksc_depmod_cfg *cfg = cfg_of(*state, "6.1.0", "search extra built-in\nsearch updates\n");

	assert_true(wins(cfg, "extra/kvm.ko", "kernel/kvm.ko"));
	assert_true(wins(cfg, "extra/kvm.ko", "updates/kvm.ko"));
	assert_true(wins(cfg, "kernel/kvm.ko", "updates/kvm.ko"));
	assert_true(wins(cfg, "misc/kvm.ko", "updates/kvm.ko")); /* misc: built-in */
	char buf[128];
	assert_string_equal(ksc_depmod_module_rank_reason(cfg, "extra/x/kvm.ko", buf, sizeof(buf)),
			    "depmod.d: search extra");
	ksc_depmod_cfg_free(cfg);

	/* a search line, but no built-in: updates is not added, the rest ranks lowest */
	cfg = cfg_of(*state, "6.1.0", "search extra\n");
	assert_true(wins(cfg, "extra/kvm.ko", "kernel/kvm.ko"));
	assert_true(ksc_depmod_module_is_higher_priority(cfg, "kernel/kvm.ko", "updates/kvm.ko"));
	assert_true(ksc_depmod_module_is_higher_priority(cfg, "updates/kvm.ko", "kernel/kvm.ko"));
	ksc_depmod_cfg_free(cfg);
}

static void test_override(void **state)
{
	struct test_env *env = *state;
	struct ksc_depmod_cfg *cfg = cfg_of(env, "6.1.0-13-amd64",
					    "override kvm * kernel/arch/x86/kvm\n"
					    "override kvm_amd 6\\.1\\..* updates\n"
					    "override kvm-intel 5\\.10 updates\n");

	/* the override beats updates/, but only for the exact folder */
	assert_true(wins(cfg, "kernel/arch/x86/kvm/kvm.ko", "updates/dkms/kvm.ko"));
	assert_true(wins(cfg, "updates/dkms/kvm.ko", "kernel/arch/x86/kvm/sub/kvm.ko"));
	/* a kernel pattern is an extended regex found anywhere in the release */
	assert_true(wins(cfg, "updates/kvm_amd.ko", "extra/kvm_amd.ko"));
	/* a pattern that does not match: the line is ignored (updates/ still wins) */
	assert_true(wins(cfg, "updates/dkms/kvm-intel.ko", "updates/kvm-intel.ko") == false);
	assert_true(wins(cfg, "updates/kvm-intel.ko", "kernel/kvm-intel.ko"));
	char buf[128];
	assert_string_equal(ksc_depmod_module_rank_reason(cfg, "kernel/arch/x86/kvm/kvm.ko.zst",
							  buf, sizeof(buf)),
			    "depmod.d: override kvm * kernel/arch/x86/kvm");
	ksc_depmod_cfg_free(cfg);

	/* several overrides of one name: the one read last counts first */
	cfg = cfg_of(env, "6.1.0", "override kvm * extra\noverride kvm * updates\n");
	assert_true(wins(cfg, "updates/kvm.ko", "extra/kvm.ko"));
	ksc_depmod_cfg_free(cfg);
	/* the override names the file as spelt on disk: kvm_amd does not name kvm-amd.ko */
	cfg = cfg_of(env, "6.1.0", "override kvm_amd * kernel\n");
	assert_true(wins(cfg, "updates/kvm-amd.ko", "kernel/kvm-amd.ko"));
	ksc_depmod_cfg_free(cfg);
}

static void test_exclude_and_syntax(void **state)
{
	struct test_env *env = *state;
	struct ksc_depmod_cfg *cfg = cfg_of(env, "6.1.0",
					    "# a comment\n"
					    "\n"
					    "exclude dkms\tveth.ko\n"
					    "exclude \\\n"
					    "  staging\n"
					    "override kvm *\n"
					    "frobnicate all\n"
					    "include /etc/other.conf\n"
					    "external * /opt/modules\n");

	assert_true(ksc_depmod_should_exclude_dir(cfg, "dkms"));
	assert_true(ksc_depmod_should_exclude_dir(cfg, "veth.ko"));
	assert_true(ksc_depmod_should_exclude_dir(cfg, "staging"));
	assert_true(ksc_depmod_should_exclude_dir(cfg, "build"));
	assert_true(ksc_depmod_should_exclude_dir(cfg, "source"));
	assert_true(ksc_depmod_should_exclude_dir(cfg, ".."));
	assert_false(ksc_depmod_should_exclude_dir(cfg, ".hidden"));
	assert_false(ksc_depmod_should_exclude_dir(cfg, "kernel"));
	assert_true(test_log_has_line(
		env, "t.conf:6: ignoring bad line starting with 'override' (as depmod)"));
	assert_true(test_log_has_line(
		env, "t.conf:7: ignoring bad line starting with 'frobnicate' (as depmod)"));
	assert_true(test_log_has_line(
		env, "t.conf:8: command include not implemented yet (as in depmod)"));
	assert_false(test_log_has(env, "starting with 'include'"));
	assert_int_equal(ksc_depmod_cfg_external_count(cfg), 1);
	/* still the default order: the file had no search line */
	assert_true(wins(cfg, "updates/kvm.ko", "kernel/kvm.ko"));
	ksc_depmod_cfg_free(cfg);
}

static void test_fingerprint(void **state)
{
	struct test_env *env = *state;
	struct ksc_depmod_cfg *a = cfg_of(env, "6.1.0", "# nothing\n");
	struct ksc_depmod_cfg *b = cfg_of(env, "6.1.0", "\n\n");
	struct ksc_depmod_cfg *c = cfg_of(env, "6.1.0", "exclude dkms\n");
	struct ksc_depmod_cfg *d = cfg_of(env, "6.1.0", "override kvm 5\\.10 updates\n");

	assert_true(ksc_depmod_cfg_fingerprint(a) == ksc_depmod_cfg_fingerprint(b));
	assert_true(ksc_depmod_cfg_fingerprint(a) != ksc_depmod_cfg_fingerprint(c));
	/* a line for another kernel decides nothing */
	assert_true(ksc_depmod_cfg_fingerprint(a) == ksc_depmod_cfg_fingerprint(d));
	ksc_depmod_cfg_free(a);
	ksc_depmod_cfg_free(b);
	ksc_depmod_cfg_free(c);
	ksc_depmod_cfg_free(d);
}

static void put(const char *root, const char *rel, const char *text)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	unit_write_file(p, text);
}

static void test_load_order(void **state)
{
	struct test_env *env = *state;
	char root[512];
	struct ksc_depmod_cfg *cfg;

	unit_mkdtemp(root, sizeof(root));
	/* etc's a.conf hides usr/lib's a.conf; files are read by name across folders */
	put(root, "usr/lib/depmod.d/a.conf", "override kvm * kernel\n");
	put(root, "etc/depmod.d/a.conf", "# the admin's copy: no override\n");
	put(root, "lib/depmod.d/b.conf", "search extra\n");
	put(root, "run/depmod.d/c.conf", "search updates\n");
	put(root, "usr/local/lib/depmod.d/notes.txt", "search nothing\n");
	put(root, "etc/depmod.d/.hidden.conf", "search hidden\n");
	assert_int_equal(ksc_depmod_cfg_load(env->ctx, root, "6.1.0", &cfg), 0);
	assert_true(wins(cfg, "updates/kvm.ko", "kernel/kvm.ko"));
	/* b.conf before c.conf: extra first */
	assert_true(wins(cfg, "extra/kvm.ko", "updates/kvm.ko"));
	assert_true(ksc_depmod_module_is_higher_priority(cfg, "kernel/kvm.ko", "hidden/kvm.ko"));
	assert_true(ksc_depmod_module_is_higher_priority(cfg, "hidden/kvm.ko", "kernel/kvm.ko"));
	ksc_depmod_cfg_free(cfg);

	/* an absolute link stays inside the root */
	char p[1024];
	snprintf(p, sizeof(p), "%s/etc/depmod.d/a.conf", root);
	unlink(p);
	put(root, "srv/kvm.conf", "override kvm * kernel\n");
	assert_int_equal(symlink("/srv/kvm.conf", p), 0);
	assert_int_equal(ksc_depmod_cfg_load(env->ctx, root, "6.1.0", &cfg), 0);
	assert_true(wins(cfg, "kernel/kvm.ko", "updates/kvm.ko"));
	ksc_depmod_cfg_free(cfg);
	unit_rm_rf(root);
}

struct seen {
	char got[4096];
	size_t base;
};

static int note(const char *path, const char *replaced, void *data)
{
	struct seen *s = data;
	size_t n = strlen(s->got);

	snprintf(s->got + n, sizeof(s->got) - n, "%s<%s;", path + s->base,
		 replaced ? replaced : "-");
	return 0;
}

/*
 * depmod's search over one tree, on the walk's own thread (stat_thread "0") or with a
 * second thread stat'ing beside it ("1": the road taken with more than two CPUs, left
 * for a walk again when a link or problem is met). Both must answer alike.
 */
static void modules_search(struct test_env *env, const char *stat_thread)
{
	char root[512], moddir[700];
	struct ksc_depmod_cfg *cfg;
	struct seen s = { "", 0 };
	unsigned int errors = 0;

	assert_int_equal(setenv("KSYMCHECK_TEST_STAT_THREAD", stat_thread, 1), 0);
	unit_mkdtemp(root, sizeof(root));
	snprintf(moddir, sizeof(moddir), "%s/lib/modules/6.1.0", root);
	put(moddir, "kernel/arch/x86/kvm/kvm.ko", "x");
	put(moddir, "kernel/arch/x86/kvm/kvm-amd.ko", "x");
	put(moddir, "updates/dkms/kvm.ko", "x");
	put(moddir, "updates/dkms/veth.ko.xz", "x");
	put(moddir, "kernel/drivers/net/veth.ko", "x");
	put(moddir, "build/kvm_amd.ko", "x");
	put(moddir, "kernel/source/kvm_amd.ko", "x");
	put(moddir, "kernel/notes.txt", "x");
	put(root, "etc/depmod.d/veth.conf", "override veth * kernel/drivers/net\n");
	assert_int_equal(ksc_depmod_cfg_load(env->ctx, root, "6.1.0", &cfg), 0);
	s.base = strlen(moddir) + 1;
	assert_int_equal(ksc_depmod_modules_search(env->ctx, cfg, moddir, note, &s, &errors), 0);
	assert_int_equal(errors, 0);
	assert_string_equal(s.got, "kernel/arch/x86/kvm/kvm-amd.ko<-;"
				   "kernel/drivers/net/veth.ko<updates/dkms/veth.ko.xz;"
				   "updates/dkms/kvm.ko<kernel/arch/x86/kvm/kvm.ko;");
	ksc_depmod_cfg_free(cfg);

	/* exclude dkms: the in-tree files again, nothing replaced */
	put(root, "etc/depmod.d/veth.conf", "exclude dkms\n");
	assert_int_equal(ksc_depmod_cfg_load(env->ctx, root, "6.1.0", &cfg), 0);
	s.got[0] = '\0';
	assert_int_equal(ksc_depmod_modules_search(env->ctx, cfg, moddir, note, &s, &errors), 0);
	assert_string_equal(s.got, "kernel/arch/x86/kvm/kvm-amd.ko<-;"
				   "kernel/arch/x86/kvm/kvm.ko<-;"
				   "kernel/drivers/net/veth.ko<-;");
	ksc_depmod_cfg_free(cfg);

	/*
	 * The loop rules of every walk of a module folder: a folder that is one of its own
	 * parents is a loop (an error), one reached again by another path is walked once
	 * (a warning), a dangling link is an error; the rest is walked.
	 */
	char p[1024];
	put(moddir, "kernel/x/l0/dag.ko", "x");
	snprintf(p, sizeof(p), "%s/kernel/x/l0/up", moddir);
	assert_int_equal(symlink("..", p), 0);
	snprintf(p, sizeof(p), "%s/kernel/a", moddir);
	assert_int_equal(symlink("x/l0", p), 0);
	snprintf(p, sizeof(p), "%s/kernel/dangling.ko", moddir);
	assert_int_equal(symlink("nowhere.ko", p), 0);
	put(root, "etc/depmod.d/veth.conf", "exclude dkms\n");
	assert_int_equal(ksc_depmod_cfg_load(env->ctx, root, "6.1.0", &cfg), 0);
	s.got[0] = '\0';
	errors = 0;
	assert_int_equal(ksc_depmod_modules_search(env->ctx, cfg, moddir, note, &s, &errors), 0);
	assert_int_equal(errors, 2); /* l0/up (a loop), dangling.ko */
	assert_true(strstr(s.got, "dag.ko<-;") != NULL);
	assert_null(strstr(s.got, "dag.ko<kernel"));
	ksc_depmod_cfg_free(cfg);
	unit_rm_rf(root);
	assert_int_equal(unsetenv("KSYMCHECK_TEST_STAT_THREAD"), 0);
}

static void test_modules_search(void **state)
{
	modules_search(*state, "0");
}

static void test_modules_search_stat_thread(void **state)
{
	modules_search(*state, "1");
}


/* A module file below moddir, its times a day old (not racy). */
static void put_module(const char *moddir, const char *rel, const struct mkmod *m)
{
	char p[4096];
	struct timeval tv[2];
	size_t size;
	unsigned char *img = mkmod_build(m, &size);

	snprintf(p, sizeof(p), "%s/%s", moddir, rel);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "we");
	assert_non_null(f);
	assert_int_equal(fwrite(img, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
	free(img);
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= 86400;
	tv[1] = tv[0];
	assert_int_equal(utimes(p, tv), 0);
}

static struct ksc_modset *open_set(struct test_env *env, const char *root, const char *moddir,
				   const char *index)
{
	struct ksc_modset_where w = { .root = root, .release = "6.1.0", .moddir = moddir,
				      .index = index };
	struct ksc_modset *ms;

	assert_int_equal(ksc_modset_open(env->ctx, &w, &ms), 0);
	return ms;
}

static void test_modset_index(void **state)
{
	struct test_env *env = *state;
	struct mkmod core = { .this_module = "core",
			      .modinfo = { "license=GPL", "intree=Y" },
			      .exports = { { "core_fn", "", false, 0x33 } } };
	struct mkmod user = { .this_module = "user",
			      .modinfo = { "license=GPL", "intree=Y" },
			      .imports = { { "core_fn" } } };
	char root[512], moddir[700], index[700];
	struct ksc_module *mod;
	size_t i;

	unit_mkdtemp(root, sizeof(root));
	snprintf(moddir, sizeof(moddir), "%s/lib/modules/6.1.0", root);
	snprintf(index, sizeof(index), "%s/cache/t.idx", root);
	put_module(moddir, "kernel/core.ko", &core);
	put_module(moddir, "kernel/sub/user.ko", &user);

	/* no index yet: the file read, its record kept and written */
	struct ksc_modset *ms = open_set(env, root, moddir, index);
	assert_int_equal(ksc_modset_count(ms), 2);
	assert_true(ksc_modset_find(ms, "core", &i));
	assert_string_equal(ksc_modset_relpath(ms, i), "kernel/core.ko");
	assert_false(ksc_modset_all_indexed(ms));
	assert_int_equal(ksc_modset_module(ms, i, env->ctx, &mod), 0);
	assert_int_equal(ksc_module_get_export_count(mod), 1);
	ksc_module_unref(mod);
	assert_int_equal(ksc_modset_save_index(ms), 0);
	ksc_modset_free(ms);

	/* one record in it: the other file read (in threads), then both kept */
	ms = open_set(env, root, moddir, index);
	assert_false(ksc_modset_all_indexed(ms));
	assert_int_equal(ksc_modset_read_all(ms, 2, NULL, NULL), 0);
	assert_int_equal(ksc_modset_save_index(ms), 0);
	ksc_modset_free(ms);

	/* every file current: their modules from the records, the same facts */
	ms = open_set(env, root, moddir, index);
	assert_true(ksc_modset_all_indexed(ms));
	assert_true(ksc_modset_find(ms, "user", &i));
	assert_int_equal(ksc_modset_module(ms, i, env->ctx, &mod), 0);
	assert_int_equal(ksc_module_get_import_count(mod), 1);
	assert_string_equal(ksc_module_get_import(mod, 0)->name, "core_fn");
	ksc_module_unref(mod);
	ksc_modset_free(ms);

	/* a file rewritten: no longer the index's, read again */
	core.exports[1] = (struct mk_export){ "core_fn2", "", false, 0x44 };
	put_module(moddir, "kernel/core.ko", &core);
	ms = open_set(env, root, moddir, index);
	assert_false(ksc_modset_all_indexed(ms));
	assert_true(ksc_modset_find(ms, "core", &i));
	assert_int_equal(ksc_modset_module(ms, i, env->ctx, &mod), 0);
	assert_int_equal(ksc_module_get_export_count(mod), 2);
	ksc_module_unref(mod);
	ksc_modset_free(ms);
	unit_rm_rf(root);
}

/* The file at moddir/rel read into a record. */
static struct krec *read_rec(const char *moddir, const char *rel)
{
	char p[4096];
	struct ksc_mreader *w;
	struct ksc_mread in = { .path = p, .relpath = rel };

	snprintf(p, sizeof(p), "%s/%s", moddir, rel);
	in.fd = open(p, O_RDONLY | O_CLOEXEC);
	in.open_err = in.fd < 0 ? -errno : 0;
	assert_int_equal(ksc_mreader_new(&w), 0);
	struct krec *r = ksc_mreader_read(w, &in);
	ksc_mreader_free(w);
	assert_non_null(r);
	return r;
}

static void test_entries(void **state)
{
	struct mkmod core = { .this_module = "core",
			      .modinfo = { "license=GPL" },
			      .exports = { { "core_fn", "", false, 0x33 } } };
	char root[512], moddir[700];
	struct ksc_modents *es;
	(void)state;

	unit_mkdtemp(root, sizeof(root));
	snprintf(moddir, sizeof(moddir), "%s/lib/modules/6.1.0", root);
	put_module(moddir, "kernel/core.ko", &core);
	assert_int_equal(ksc_modents_new(2, &es), 0);
	assert_int_equal(ksc_modents_count(es), 2);
	struct ksc_modent *a = ksc_modents_at(es, 0), *b = ksc_modents_at(es, 1);

	/* nothing read yet, no index entry */
	assert_null(ksc_modent_rec(a));
	assert_false(ksc_modent_cached(a));
	assert_int_equal(ksc_modent_old(a), 0);
	assert_null(ksc_modent_old_der(a));
	assert_int_equal(ksc_modent_rec_hash(a, NULL), 0);

	/* read: its record, summary and checksum */
	struct krec *r = read_rec(moddir, "kernel/core.ko");
	assert_int_equal(ksc_modent_set_read(a, r, true), 0);
	assert_ptr_equal(ksc_modent_rec(a), r);
	assert_false(ksc_modent_cached(a));
	assert_true(ksc_krec_sum_is_module(ksc_modent_sum(a)));
	assert_int_equal(ksc_krec_sum_read_error(ksc_modent_sum(a)), 0);
	assert_int_equal(ksc_krec_kexport_count(ksc_modent_rec(a)), 1);
	assert_true(ksc_modent_rec_hash(a, NULL) == ksc_krec_checksum(r));

	/* read again without a checksum: the first record freed (the sanitizer's leak check) */
	assert_int_equal(ksc_modent_set_read(a, read_rec(moddir, "kernel/core.ko"), false), 0);
	assert_ptr_not_equal(ksc_modent_rec(a), NULL);
	assert_int_equal(ksc_modent_rec_hash(a, NULL), 0);

	/* out of memory: no record kept */
	assert_int_equal(ksc_modent_set_read(b, NULL, true), -ENOMEM);
	assert_null(ksc_modent_rec(b));
	assert_false(ksc_modent_cached(b));

	/* a fetched record is borrowed: not freed with the entries */
	struct krec *borrowed = read_rec(moddir, "kernel/core.ko");
	ksc_modent_set_fetched(b, borrowed);
	assert_ptr_equal(ksc_modent_rec(b), borrowed);
	assert_int_equal(ksc_modent_rec_hash(b, NULL), 0);
	ksc_modents_free(es);
	free(borrowed);
	ksc_modents_free(NULL);
	unit_rm_rf(root);
}

static void test_open_opts(void **state)
{
	struct test_env *env = *state;
	struct {
		struct ksc_kernel_open_opts o;
		unsigned long more;
	} big = { .o = { .sz = sizeof(big) }, .more = 1 };
	struct ksc_kernel_open_opts no_mods = { .sz = sizeof(no_mods), .n_modules = 1 };
	struct ksc_kernel *k = (void *)1;

	/* a larger struct whose added bytes are not zero, modules counted but none given */
	assert_int_equal(ksc_kernel_open_opts(env->ctx, "/nonexistent", "6.1.0", &big.o, &k),
			 -EINVAL);
	assert_null(k);
	assert_int_equal(ksc_kernel_open_opts(env->ctx, "/nonexistent", "6.1.0", &no_mods, &k),
			 -EINVAL);
	/* the added bytes zero: accepted (and the missing root said) */
	big.more = 0;
	assert_int_equal(ksc_kernel_open_opts(env->ctx, "/nonexistent", "6.1.0", &big.o, &k),
			 -ENOENT);
}

/*
 * ksc_kernel_root_*(): a module of the root's folder from its record, by any path, named
 * as given; the root's own messages held until the kernel is asked for.
 */
static void test_kernel_root(void **state)
{
	struct test_env *env = *state;
	struct mkmod core = { .this_module = "core",
			      .modinfo = { "license=GPL", "intree=Y" },
			      .exports = { { "core_fn", "", false, 0x33 } } };
	char root[512], moddir[700], index[700], p[800], link[800];
	struct ksc_kernel_open_opts o = { .sz = sizeof(o), .index = index };
	struct ksc_kernel_root *kr;
	struct ksc_module *mod;
	struct ksc_kernel *k, *again;

	unit_mkdtemp(root, sizeof(root));
	snprintf(moddir, sizeof(moddir), "%s/lib/modules/6.1.0", root);
	snprintf(index, sizeof(index), "%s/cache/t.idx", root);
	put_module(moddir, "kernel/core.ko", &core);
	snprintf(p, sizeof(p), "%s/build", moddir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/build/Module.symvers", moddir);
	unit_write_file(p, "0x00000001\tprintk\tvmlinux\tEXPORT_SYMBOL\t\n");
	snprintf(p, sizeof(p), "%s/kernel/core.ko", moddir);
	snprintf(link, sizeof(link), "%s/link.ko", root);
	assert_int_equal(symlink(p, link), 0);
	ksc_set_log_priority(env->ctx, KSC_LOG_DEBUG);

	/* no index yet: the file read; the kernel's whole read keeps its record */
	assert_int_equal(ksc_kernel_root_new(env->ctx, root, "6.1.0", &o, &kr), 0);
	assert_int_equal(ksc_kernel_root_read_module(kr, p, &mod), 0);
	assert_null(strstr(env->log, "from the index's record"));
	assert_int_equal(ksc_kernel_root_open_kernel(kr, NULL, 0, &k), 0);
	assert_int_equal(ksc_kernel_root_open_kernel(kr, NULL, 0, &again), -EINVAL);
	assert_null(again);
	ksc_kernel_unref(k);
	ksc_module_unref(mod);
	ksc_kernel_root_free(kr);

	/* through a link from outside the folder: the record, named as given */
	test_log_clear(env);
	assert_int_equal(ksc_kernel_root_new(env->ctx, root, "6.1.0", &o, &kr), 0);
	assert_int_equal(ksc_kernel_root_read_module(kr, link, &mod), 0);
	assert_log_contains(env, "link.ko: from the index's record of ");
	assert_string_equal(ksc_module_get_path(mod), link);
	assert_string_equal(ksc_module_get_modpost_name(mod), "link");
	assert_string_equal(ksc_module_get_name(mod), "core");
	assert_int_equal(ksc_module_get_export_count(mod), 1);
	ksc_module_unref(mod);
	ksc_kernel_root_free(kr);

	/* a root that is not there: said when the kernel is asked for, after the modules */
	test_log_clear(env);
	ksc_set_log_priority(env->ctx, KSC_LOG_ERR);
	assert_int_equal(ksc_kernel_root_new(env->ctx, "/nonexistent", "6.1.0", &o, &kr), 0);
	assert_int_equal(ksc_kernel_root_read_module(kr, p, &mod), 0);
	assert_log_empty(env);
	assert_int_equal(ksc_kernel_root_open_kernel(kr, &mod, 1, &k), -ENOENT);
	assert_log_contains(env, "/nonexistent: No such file or directory");
	ksc_module_unref(mod);
	ksc_kernel_root_free(kr);
	unit_rm_rf(root);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, test_env_setup, test_env_teardown)
	const struct CMUnitTest tests[] = {
		T(test_default_updates_first), T(test_search_order), T(test_override),
		T(test_exclude_and_syntax),    T(test_fingerprint),  T(test_load_order),
		T(test_modules_search),        T(test_modules_search_stat_thread),
		T(test_modset_index),          T(test_entries),      T(test_open_opts),
		T(test_kernel_root),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
