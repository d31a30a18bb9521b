// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * util/workpool.c: every item is worked on exactly once, in either mode, whatever the
 * number of threads; the first error is returned and stops the work; records never
 * handed out go to the drop function. The file is compiled into this test.
 */
#include "unit.h"

#include "util/workpool.c"

#define N 10000

struct seen {
	atomic_int count[N];
	atomic_int dropped;
	atomic_uint max_worker;
	size_t fail_at;
};

static int count_index(struct workpool *wp, unsigned int worker, void *item)
{
	struct seen *s = wp->data;
	size_t i = *(size_t *)item;
	unsigned int m = atomic_load(&s->max_worker);

	while (worker > m && !atomic_compare_exchange_weak(&s->max_worker, &m, worker))
		;
	atomic_fetch_add(&s->count[i], 1);
	return s->fail_at && i == s->fail_at ? -EIO : 0;
}

static void run_range(unsigned int threads)
{
	static struct seen s;
	struct workpool wp;

	memset(&s, 0, sizeof(s));
	workpool_init_range(&wp, N, count_index, &s);
	unsigned int started = workpool_start(&wp, threads);
	assert_true(started <= threads);
	workpool_work(&wp, started);
	assert_int_equal(workpool_join(&wp), 0);
	workpool_fini(&wp);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(atomic_load(&s.count[i]), 1);
	assert_true(atomic_load(&s.max_worker) <= started);
	assert_int_equal(atomic_load(&wp.done), N);
}

static void test_range(void **state)
{
	run_range(0);
	run_range(1);
	run_range(4);
	run_range(300); /* capped at WORKPOOL_MAX_THREADS */
}

static void test_range_error(void **state)
{
	static struct seen s;
	struct workpool wp;

	memset(&s, 0, sizeof(s));
	s.fail_at = 10;
	workpool_init_range(&wp, N, count_index, &s);
	workpool_work(&wp, workpool_start(&wp, 3));
	assert_int_equal(workpool_join(&wp), -EIO);
	workpool_fini(&wp);
	assert_int_equal(atomic_load(&s.count[10]), 1);
	/* the rest was not handed out: at most one item per worker after the failure */
	size_t n = 0;
	for (size_t i = 0; i < N; i++)
		n += (size_t)atomic_load(&s.count[i]);
	assert_true(n < N);
}

/* Queue mode: item i (1-based, a heap) adds its children 2i and 2i+1 below N. */
static int count_node(struct workpool *wp, unsigned int worker, void *item)
{
	struct seen *s = wp->data;
	size_t i = *(size_t *)item, kids[2] = { 2 * i, 2 * i + 1 };

	atomic_fetch_add(&s->count[i], 1);
	if (s->fail_at && i == s->fail_at)
		return -EIO;
	if (kids[0] >= N)
		return 0;
	return workpool_push(wp, kids, kids[1] < N ? 2 : 1);
}

static void count_drop(void *item)
{
	(void)item;
}

static void run_queue(unsigned int threads)
{
	static struct seen s;
	struct workpool wp;
	size_t root = 1;

	memset(&s, 0, sizeof(s));
	workpool_init_queue(&wp, sizeof(size_t), count_node, &s, count_drop);
	assert_int_equal(workpool_push(&wp, &root, 1), 0);
	workpool_work(&wp, workpool_start(&wp, threads));
	assert_int_equal(workpool_join(&wp), 0);
	assert_int_equal(wp.n_stack, 0);
	workpool_fini(&wp);
	assert_int_equal(atomic_load(&s.count[0]), 0);
	for (size_t i = 1; i < N; i++)
		assert_int_equal(atomic_load(&s.count[i]), 1);
}

static void test_queue(void **state)
{
	run_queue(0);
	run_queue(1);
	run_queue(4);
}

static atomic_int drops;

static void drop_one(void *item)
{
	assert_true(*(size_t *)item > 1);
	atomic_fetch_add(&drops, 1);
}

static void test_queue_error(void **state)
{
	static struct seen s;
	struct workpool wp;
	size_t root = 1;

	memset(&s, 0, sizeof(s));
	s.fail_at = 1; /* the root fails before adding anything: nothing else runs */
	workpool_init_queue(&wp, sizeof(size_t), count_node, &s, drop_one);
	assert_int_equal(workpool_push(&wp, &root, 1), 0);
	workpool_work(&wp, workpool_start(&wp, 4));
	assert_int_equal(workpool_join(&wp), -EIO);
	workpool_fini(&wp);
	for (size_t i = 2; i < N; i++)
		assert_int_equal(atomic_load(&s.count[i]), 0);

	/* records left in the queue when the work stops go to drop */
	size_t left[3] = { 2, 3, 4 };
	memset(&s, 0, sizeof(s));
	atomic_store(&drops, 0);
	s.fail_at = 4; /* taken first: last in, first out */
	workpool_init_queue(&wp, sizeof(size_t), count_node, &s, drop_one);
	assert_int_equal(workpool_push(&wp, left, 3), 0);
	workpool_work(&wp, 0);
	assert_int_equal(workpool_join(&wp), -EIO);
	workpool_fini(&wp);
	assert_int_equal(atomic_load(&drops), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_range_error),
		cmocka_unit_test(test_queue),
		cmocka_unit_test(test_queue_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
