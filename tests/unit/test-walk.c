// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The folder walk (util/walk.c): the order of the entries, links followed or not, loops,
 * dangling links, links inside a root, excluded names, the bounds on depth and entries, and the callbacks'
 * say over the walk. Each test builds its tree under a fresh temporary folder.
 */
#include "unit.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/macro.h"
#include "util/walk.h"

/* What a walk saw, one line each: "F rel", "D rel" (entered), "P rel: reason". */
struct seen {
	char root[256];
	char out[8192];
	size_t len;
	int stop_at_file; /* the file() call that returns -EINTR (1-based), or 0 */
	int files;
	const char *skip_dir; /* a folder name enter() skips */
	struct kept *kept;    /* test_keep_fd()'s */
};

static const char *rel(const struct seen *s, const char *path)
{
	size_t l = strlen(s->root);

	if (strncmp(path, s->root, l) == 0)
		return path[l] ? path + l + 1 : ".";
	return path;
}

static void add(struct seen *s, const char *kind, const char *path, const char *more)
{
	s->len += (size_t)snprintf(s->out + s->len, sizeof(s->out) - s->len, "%s %s%s\n", kind,
				   rel(s, path), more);
}

static int on_enter(const struct walk_entry *e, void *data)
{
	struct seen *s = data;

	if (s->skip_dir && streq(e->name, s->skip_dir))
		return 0;
	add(s, "D", e->path, "");
	return 1;
}

static int on_file(const struct walk_entry *e, void *data)
{
	struct seen *s = data;

	add(s, e->type == DT_LNK ? "L" : "F", e->path, "");
	/* the folder holding it is open, also after the walk went below it */
	assert_int_equal(faccessat(e->dfd, e->name, F_OK, AT_SYMLINK_NOFOLLOW), 0);
	if (++s->files == s->stop_at_file)
		return -EINTR;
	return 0;
}

static void on_problem(const char *path, enum walk_problem what, int err, void *data)
{
	char why[128];

	snprintf(why, sizeof(why), ": %s", what == WALK_ERRNO ? strerror(-err)
							      : walk_problem_str(what));
	add(data, "P", path, why);
}

static bool skip_build(const char *name, unsigned int depth, void *data)
{
	(void)data;
	return depth == 1 && streq(name, "build");
}

static void mk(const struct seen *s, const char *rel_path, char kind, const char *target)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", s->root, rel_path);
	if (kind == 'd')
		assert_int_equal(mkdir(p, 0755), 0);
	else if (kind == 'l')
		assert_int_equal(symlink(target, p), 0);
	else
		unit_write_file(p, "x");
}

static int setup(void **state)
{
	struct seen *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	unit_mkdtemp(s->root, sizeof(s->root));
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct seen *s = *state;

	unit_rm_rf(s->root);
	free(s);
	return 0;
}

static struct walk_opts opts(struct seen *s, unsigned int flags)
{
	return (struct walk_opts){ .flags = flags, .kinds = WALK_KIND_REG, .enter = on_enter,
				   .file = on_file, .problem = on_problem, .data = s };
}

/* Sorted: folders and files by name at each level, depth first, root entered first. */
static void test_sorted(void **state)
{
	struct seen *s = *state;

	mk(s, "b", 'd', NULL);
	mk(s, "b/z.ko", 'f', NULL);
	mk(s, "b/a.ko", 'f', NULL);
	mk(s, "a.ko", 'f', NULL);
	mk(s, "c", 'd', NULL);
	mk(s, "d.ko", 'f', NULL);
	struct walk_opts o = opts(s, WALK_SORTED);
	assert_int_equal(walk_tree(s->root, &o), 0);
	assert_string_equal(s->out, "D .\nF a.ko\nD b\nF b/a.ko\nF b/z.ko\nD c\nF d.ko\n");
}

/* Readdir order: the same entries, in whatever order the file system gives. */
static void test_readdir_order(void **state)
{
	struct seen *s = *state;
	struct walk_list l = { 0 };
	struct walk_opts o = opts(s, 0);

	for (int i = 0; i < 20; i++) {
		char n[16];
		snprintf(n, sizeof(n), "f%02d", i);
		mk(s, n, 'f', NULL);
	}
	int dfd = open(s->root, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(walk_list_read(dfd, s->root, 1, &o, &l), 0);
	assert_int_equal(l.n, 20);
	unsigned int bits = 0;
	for (size_t i = 0; i < l.n; i++) {
		assert_int_equal(l.v[i].type, DT_REG);
		bits |= 1u << atoi(l.v[i].name + 1);
	}
	assert_int_equal(bits, (1u << 20) - 1);
	/* the caller's descriptor is still its own, and listing it again gives the same */
	assert_int_equal(walk_list_read(dfd, s->root, 1, &o, &l), 0);
	assert_int_equal(l.n, 20);
	assert_int_equal(faccessat(dfd, "f07", F_OK, 0), 0);
	close(dfd);
	walk_list_fini(&l);
}

/* Links: not followed they are left out (or listed as links); followed, a loop back to
 * a parent is reported and not entered, a dangling link is reported, the rest walked. */
static void test_links(void **state)
{
	struct seen *s = *state;

	mk(s, "d", 'd', NULL);
	mk(s, "d/m.ko", 'f', NULL);
	mk(s, "d/up", 'l', "..");
	mk(s, "d/gone", 'l', "nothing-here");
	mk(s, "e", 'l', "d");
	struct walk_opts o = opts(s, WALK_SORTED);
	assert_int_equal(walk_tree(s->root, &o), 0);
	assert_string_equal(s->out, "D .\nD d\nF d/m.ko\n");

	s->len = 0;
	o.kinds |= WALK_KIND_LNK;
	assert_int_equal(walk_tree(s->root, &o), 0);
	assert_string_equal(s->out, "D .\nD d\nL d/gone\nF d/m.ko\nL d/up\nL e\n");

	s->len = 0;
	o = opts(s, WALK_SORTED | WALK_FOLLOW);
	assert_int_equal(walk_tree(s->root, &o), 0);
	assert_string_equal(s->out, "D .\nD d\nP d/gone: dangling symbolic link\nF d/m.ko\n"
				    "P d/up: symbolic link loop\n"
				    "D e\nP e/gone: dangling symbolic link\nF e/m.ko\n"
				    "P e/up: symbolic link loop\n");
}

/*
 * A root the walk stays in: absolute links name paths below it (a folder and a file),
 * one to nothing there is dangling, and walk_open() opens an entry as the walk did.
 */
static void test_root(void **state)
{
	struct seen *s = *state;
	char root[PATH_MAX], top[PATH_MAX], y[PATH_MAX + 8];

	mk(s, "r", 'd', NULL);
	mk(s, "r/m", 'd', NULL);
	mk(s, "r/w", 'd', NULL);
	mk(s, "r/w/x.ko", 'f', NULL);
	mk(s, "r/m/abs", 'l', "/w");
	mk(s, "r/m/y.ko", 'l', "/w/x.ko");
	mk(s, "r/m/gone.ko", 'l', "/nothing-here/x.ko");
	snprintf(root, sizeof(root), "%s/r", s->root);
	snprintf(top, sizeof(top), "%s/r/m", s->root);
	struct walk_opts o = opts(s, WALK_SORTED | WALK_FOLLOW);
	o.root = root;
	assert_int_equal(walk_tree(top, &o), 0);
	assert_string_equal(s->out, "D r/m\nD r/m/abs\nF r/m/abs/x.ko\n"
				    "P r/m/gone.ko: dangling symbolic link\nF r/m/y.ko\n");
	snprintf(y, sizeof(y), "%s/y.ko", top);
	int fd = walk_open(&o, y, O_PATH);
	assert_true(fd >= 0);
	close(fd);
	/* a path not below the root is not the walk's */
	assert_int_equal(walk_open(&o, "/etc", O_PATH), -EXDEV);
}

/* Names excluded by the callback, at the depth it chooses; a folder enter() skips. */
static void test_exclude_and_skip(void **state)
{
	struct seen *s = *state;

	mk(s, "build", 'l', "nothing-here");
	mk(s, "k", 'd', NULL);
	mk(s, "k/build", 'f', NULL);
	mk(s, "s", 'd', NULL);
	mk(s, "s/x.ko", 'f', NULL);
	struct walk_opts o = opts(s, WALK_SORTED | WALK_FOLLOW);
	o.exclude = skip_build;
	s->skip_dir = "s";
	assert_int_equal(walk_tree(s->root, &o), 0);
	assert_string_equal(s->out, "D .\nD k\nF k/build\n");
}

/* A chain deeper than the bound: reported once, not entered; the rest walked. */
static void test_max_depth(void **state)
{
	struct seen *s = *state;

	mk(s, "a", 'd', NULL);
	mk(s, "a/a", 'd', NULL);
	mk(s, "a/a/a", 'd', NULL);
	mk(s, "a/a/a/f", 'f', NULL);
	mk(s, "a/f", 'f', NULL);
	struct walk_opts o = opts(s, WALK_SORTED);
	o.max_depth = 2;
	assert_int_equal(walk_tree(s->root, &o), 0);
	assert_string_equal(s->out,
			    "D .\nD a\nD a/a\nP a/a/a: too deep: not walked\nF a/f\n");
}

/* More entries than the bound: reported, the first ones kept. */
static void test_max_entries(void **state)
{
	struct seen *s = *state;

	for (int i = 0; i < 10; i++) {
		char n[16];
		snprintf(n, sizeof(n), "f%d", i);
		mk(s, n, 'f', NULL);
	}
	struct walk_opts o = opts(s, WALK_SORTED);
	o.max_entries = 4;
	assert_int_equal(walk_tree(s->root, &o), 0);
	assert_non_null(strstr(s->out, "P .: too many entries: the rest not walked\n"));
	assert_int_equal(s->files, 4);
}

/* A callback's error stops the walk and is what it returns; an unreadable root is a
 * problem, not an error of the walk. */
static void test_stop_and_errors(void **state)
{
	struct seen *s = *state;
	char p[PATH_MAX];

	mk(s, "a.ko", 'f', NULL);
	mk(s, "b.ko", 'f', NULL);
	mk(s, "c.ko", 'f', NULL);
	struct walk_opts o = opts(s, WALK_SORTED);
	s->stop_at_file = 2;
	assert_int_equal(walk_tree(s->root, &o), -EINTR);
	assert_string_equal(s->out, "D .\nF a.ko\nF b.ko\n");

	s->len = 0;
	snprintf(p, sizeof(p), "%s/none", s->root);
	assert_int_equal(walk_tree(p, &o), 0);
	assert_string_equal(s->out, "P none: No such file or directory\n");
	s->len = 0;
	snprintf(p, sizeof(p), "%s/a.ko", s->root);
	assert_int_equal(walk_tree(p, &o), 0);
	assert_string_equal(s->out, "P a.ko: Not a directory\n");
}

/* A folder's descriptor the walk is done with, kept: open until the caller closes it. */
struct kept {
	struct seen *s;
	int fds[8];
	int n;
};

static bool keep_it(int fd, void *data)
{
	struct kept *k = ((struct seen *)data)->kept;
	char link[64], target[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	add(k->s, "K", target, "");
	if (k->n == (int)ARRAY_SIZE(k->fds))
		return false;
	k->fds[k->n++] = fd;
	return true;
}

/* keep_fd: each folder's descriptor offered once its files are out, innermost first. */
static void test_keep_fd(void **state)
{
	struct seen *s = *state;
	struct kept k = { .s = s };
	char real[PATH_MAX];

	mk(s, "a", 'd', NULL);
	mk(s, "a/x.ko", 'f', NULL);
	mk(s, "a/b", 'd', NULL);
	mk(s, "a/b/y.ko", 'f', NULL);
	mk(s, "z.ko", 'f', NULL);
	/* /proc names the folders by their real path */
	assert_non_null(realpath(s->root, real));
	assert_true(strlen(real) < sizeof(s->root));
	memcpy(s->root, real, strlen(real) + 1);
	s->kept = &k;
	struct walk_opts o = opts(s, WALK_SORTED);
	o.keep_fd = keep_it;
	assert_int_equal(walk_tree(s->root, &o), 0);
	assert_string_equal(s->out, "D .\nD a\nD a/b\nF a/b/y.ko\nK a/b\nF a/x.ko\nK a\n"
				    "F z.ko\nK .\n");
	/* kept: still open, the walk closed none of them */
	for (int i = 0; i < k.n; i++)
		assert_int_equal(close(k.fds[i]), 0);
	assert_int_equal(k.n, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sorted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readdir_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exclude_and_skip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_depth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep_fd, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
