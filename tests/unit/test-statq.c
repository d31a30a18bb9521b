// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The stats beside the walk (lib/modset/ksc-modset-statq.c): each file queued in walk
 * order comes back with the stat fstatat() gives, across folders, batches and chunks,
 * whoever takes them: the queue's own thread, a thread let in through a door, or the
 * walk alone (then it never holds more than HELD_MAX folders open, even under a low
 * RLIMIT_NOFILE); a file gone before its stat comes back with its error; a folder never
 * handed over gives -EBADF, not a stat through a descriptor that is no longer its;
 * nothing queued is fine; a door closed before it opened lets no one wait.
 */
#include "unit.h"

#include <limits.h>
#include <pthread.h>
#include <sys/resource.h>

#include "modset/modset-statq.h"
#include "util/walk.h"

struct tree {
	char root[256];
};

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	unit_mkdtemp(t->root, sizeof(t->root));
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;

	unit_rm_rf(t->root);
	free(t);
	return 0;
}

/* Folder d<i> with i + 1 files of i + j bytes (j-th file), for i < folders. */
static void make_tree(const struct tree *t, int folders)
{
	char p[PATH_MAX];

	for (int i = 0; i < folders; i++) {
		snprintf(p, sizeof(p), "%s/d%d", t->root, i);
		assert_int_equal(mkdir(p, 0755), 0);
		for (int j = 0; j <= i; j++) {
			snprintf(p, sizeof(p), "%s/d%d/f%d.ko", t->root, i, j);
			FILE *f = fopen(p, "w");
			assert_non_null(f);
			for (int k = 0; k < i + j; k++)
				fputc('x', f);
			fclose(f);
		}
	}
}

struct run {
	struct ksc_statq *q;
	uint32_t folder;
	const char *gone; /* a file name removed when met, before its stat */
};

static int on_enter(const struct walk_entry *e, void *data)
{
	struct run *r = data;

	r->folder++;
	(void)e;
	return 1;
}

static int on_file(const struct walk_entry *e, void *data)
{
	struct run *r = data;

	if (r->gone && strcmp(e->name, r->gone) == 0)
		assert_int_equal(unlinkat(e->dfd, e->name, 0), 0);
	return ksc_statq_add(r->q, e->dfd, r->folder, e->path);
}

static bool keep_fd(int fd, void *data)
{
	struct run *r = data;

	return ksc_statq_keep_fd(r->q, fd);
}

/* Who takes the stats. */
enum road { OWN_THREAD, DOOR_HELPER, WALK_ALONE };

static void *helper(void *data)
{
	ksc_statq_door_help(data);
	return NULL;
}

static struct ksc_statq *walk_by(const struct tree *t, const char *gone, enum road road)
{
	struct ksc_statq_door door;
	pthread_t th;
	struct run r = { .q = ksc_statq_start(road == OWN_THREAD), .gone = gone };
	struct walk_opts o = { .flags = WALK_SORTED, .kinds = WALK_KIND_REG, .enter = on_enter,
			       .file = on_file, .keep_fd = keep_fd, .data = &r };

	assert_non_null(r.q);
	ksc_statq_door_init(&door);
	if (road == DOOR_HELPER) {
		assert_int_equal(pthread_create(&th, NULL, helper, &door), 0);
		ksc_statq_door_open(&door, r.q);
	}
	assert_int_equal(walk_tree(t->root, &o), 0);
	ksc_statq_finish(r.q);
	ksc_statq_door_close(&door);
	if (road == DOOR_HELPER)
		assert_int_equal(pthread_join(th, NULL), 0);
	ksc_statq_door_fini(&door);
	return r.q;
}

static struct ksc_statq *walk(const struct tree *t, const char *gone)
{
	return walk_by(t, gone, OWN_THREAD);
}

/* Every file of make_tree(t, folders) with the stat stat(2) gives, in walk order. */
static void assert_every_file(const struct tree *t, struct ksc_statq *q, int folders)
{
	struct stat st;

	assert_int_equal(ksc_statq_count(q), (size_t)(folders * (folders + 1) / 2));
	for (size_t i = 0; i < ksc_statq_count(q); i++) {
		struct ksc_statq_file *f = ksc_statq_file(q, i);
		int d, j;
		assert_int_equal(f->err, 0);
		assert_int_equal(stat(f->path, &st), 0);
		assert_int_equal(f->st.st_ino, st.st_ino);
		assert_int_equal(f->st.st_size, st.st_size);
		assert_true(S_ISREG(f->st.st_mode));
		/* walk order (sorted names) and the folder's number as given */
		assert_int_equal(sscanf(f->path + strlen(t->root), "/d%d/f%d.ko", &d, &j), 2);
		assert_int_equal(f->st.st_size, d + j);
		if (i) {
			const struct ksc_statq_file *p = ksc_statq_file(q, i - 1);
			assert_true(strcmp(p->path, f->path) < 0);
			assert_true(p->dir <= f->dir);
		}
	}
}

/* 40 folders, 820 files: several chunks of 256, batches woken and not; each road. */
static void test_every_file(void **state)
{
	const struct tree *t = *state;

	make_tree(t, 40);
	for (enum road road = OWN_THREAD; road <= WALK_ALONE; road++) {
		struct ksc_statq *q = walk_by(t, NULL, road);
		assert_every_file(t, q, 40);
		ksc_statq_free(q);
	}
}

/*
 * 150 folders walked alone with 90 descriptors allowed in all: the walk stats a batch
 * itself once HELD_MAX folders wait, so none of its opens fails.
 */
static void test_few_descriptors(void **state)
{
	const struct tree *t = *state;
	struct rlimit old, low;
	int fd = open("/dev/null", O_RDONLY);

	assert_true(fd >= 0);
	close(fd);
	make_tree(t, 150);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t)fd + 90;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	struct ksc_statq *q = walk_by(t, NULL, WALK_ALONE);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_every_file(t, q, 150);
	ksc_statq_free(q);
}

/* A door closed before it opened: a helper does not wait, and it stays closed. */
static void test_door_closed(void **state)
{
	struct ksc_statq_door door;
	struct ksc_statq *q = ksc_statq_start(false);

	(void)state;
	assert_non_null(q);
	ksc_statq_door_init(&door);
	ksc_statq_door_close(&door);
	ksc_statq_door_help(&door);
	ksc_statq_door_open(&door, q);
	assert_null(door.q);
	ksc_statq_door_help(&door);
	ksc_statq_door_fini(&door);
	ksc_statq_free(q);
}

static void test_gone(void **state)
{
	const struct tree *t = *state;
	struct ksc_statq *q;
	int gone = 0;

	make_tree(t, 3);
	q = walk(t, "f1.ko");
	assert_int_equal(ksc_statq_count(q), 6);
	for (size_t i = 0; i < ksc_statq_count(q); i++) {
		const struct ksc_statq_file *f = ksc_statq_file(q, i);
		bool is = strcmp(strrchr(f->path, '/'), "/f1.ko") == 0;
		assert_int_equal(f->err, is ? -ENOENT : 0);
		gone += is;
	}
	assert_int_equal(gone, 2);
	ksc_statq_free(q);
}

/* Files of a folder the walk closed itself: their stats are not taken. */
static void test_not_handed(void **state)
{
	const struct tree *t = *state;
	struct ksc_statq *q = ksc_statq_start(true);
	char p[PATH_MAX];

	make_tree(t, 2);
	snprintf(p, sizeof(p), "%s/d1", t->root);
	int fd = open(p, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	snprintf(p, sizeof(p), "%s/d1/f0.ko", t->root);
	assert_int_equal(ksc_statq_add(q, fd, 1, p), 0);
	assert_false(ksc_statq_keep_fd(q, fd + 1)); /* another folder: none of its files */
	close(fd);
	ksc_statq_finish(q);
	assert_int_equal(ksc_statq_count(q), 1);
	assert_int_equal(ksc_statq_file(q, 0)->err, -EBADF);
	ksc_statq_free(q);
}

static void test_empty(void **state)
{
	struct ksc_statq *q = ksc_statq_start(true);

	(void)state;
	assert_non_null(q);
	ksc_statq_finish(q);
	ksc_statq_finish(q); /* twice: nothing more */
	assert_int_equal(ksc_statq_count(q), 0);
	ksc_statq_free(q);
	ksc_statq_free(ksc_statq_start(true)); /* freed unfinished */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_few_descriptors, setup, teardown),
		cmocka_unit_test(test_door_closed),
		cmocka_unit_test_setup_teardown(test_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_handed, setup, teardown),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
