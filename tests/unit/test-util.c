// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The base (util/): the 64-bit hash whose values the index file stores, growing arrays,
 * the one way files are opened to be read.
 */
#include "unit.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/array.h"
#include "util/fileio.h"
#include "util/hash.h"

/* xxHash's own sanity buffer: byte i is the top byte of 2654435761 * P^i (mod 2^64). */
static void sanity_buffer(unsigned char *b, size_t n)
{
	uint64_t g = 2654435761U;

	for (size_t i = 0; i < n; i++) {
		b[i] = (unsigned char)(g >> 56);
		g *= 11400714785074694797ULL;
	}
}

/* XXH64's published vectors (xxHash's sanity check) on that buffer. */
static void test_hash64_vectors(void **state)
{
	static const struct {
		size_t len;
		uint64_t seed, hash;
	} v[] = {
		{ 0, 0, 0xef46db3751d8e999ULL },
		{ 0, 2654435761U, 0xac75fda2929b17efULL },
		{ 1, 0, 0xe934a84adb052768ULL },
		{ 1, 2654435761U, 0x5014607643a9b4c3ULL },
		{ 14, 0, 0x8282dcc4994e35c8ULL },
		{ 14, 2654435761U, 0xc3bd6bf63deb6df0ULL },
		{ 222, 0, 0xb641ae8cb691c174ULL },
		{ 222, 2654435761U, 0x20cb8ab7ae10c14aULL },
	};
	unsigned char b[222];

	sanity_buffer(b, sizeof(b));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(ksc_hash64(b, v[i].len, v[i].seed), v[i].hash);
	/* an empty file may come as NULL */
	assert_int_equal(ksc_hash64(NULL, 0, 0), 0xef46db3751d8e999ULL);
}

/*
 * Every length 0-300 at every alignment 0-7 under nine seeds (the library's own seeds
 * among them), folded into one value: the digest the hand-written XXH64 that preceded
 * libxxhash gave, so that the index files written before and after are the same.
 */
static void test_hash64_old_values(void **state)
{
	static const uint64_t seeds[] = { 0, 1, 3, 5, 7, 11, 0x6b657973, UINT64_MAX,
					  0x9e3779b185ebca87ULL };
	unsigned char b[1024];
	uint64_t x = 0x2545f4914f6cdd1dULL, d = 0;

	for (size_t i = 0; i < sizeof(b); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (unsigned char)x;
	}
	for (size_t len = 0; len <= 300; len++)
		for (size_t off = 0; off < 8; off++)
			for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++)
				d = (d ^ ksc_hash64(b + off, len, seeds[s])) * 0x100000001b3ULL;
	assert_int_equal(d, 0x34df03c437d3da35ULL);
	/* and a few single values of it: a short name, a record-sized buffer */
	assert_int_equal(ksc_hash64("none", 4, 7), 0x529eaecad53c2269ULL);
	assert_int_equal(ksc_hash64(b, 1024, 7), 0xc48b8d7f38dd356bULL);
}

/* util/array.h: pushes keep every element; the capacity doubles from its minimum. */
static void test_array_push(void **state)
{
	uint32_t *a = NULL;
	size_t n = 0, cap = 0;

	for (uint32_t i = 0; i < 1000; i++)
		assert_int_equal(array_push(a, n, cap, i * 3), 0);
	assert_int_equal(n, 1000);
	assert_int_equal(cap, 1024); /* 16, 32, ..., 1024 */
	for (uint32_t i = 0; i < 1000; i++)
		assert_int_equal(a[i], i * 3);
	array_free(a, n, cap);
	assert_null(a);
	assert_int_equal(n + cap, 0);

	struct pair {
		const char *s;
		size_t len;
	} *p = NULL;
	assert_int_equal(array_push(p, n, cap, (struct pair){ "ab", 2 }), 0);
	assert_string_equal(p[0].s, "ab");
	assert_int_equal(cap, 16);
	assert_int_equal(array_reserve(p, cap, 17, 1024), 0);
	assert_int_equal(cap, 32); /* a capacity doubles: min is for the first block */
	array_free(p, n, cap);
	assert_int_equal(array_reserve(p, cap, 3, 1024), 0);
	assert_int_equal(cap, 1024);
	assert_int_equal(array_reserve(p, cap, 1024, 1024), 0);
	assert_int_equal(cap, 1024);
	array_free(p, n, cap);

	/* `need` is read once, whether or not the array grows; room there keeps the block */
	size_t k = 0;
	assert_int_equal(array_reserve(p, cap, ++k + 4, 8), 0);
	assert_int_equal(k, 1);
	assert_int_equal(cap, 8);
	struct pair *block = p;
	assert_int_equal(array_reserve(p, cap, ++k + 6, 8), 0);
	assert_int_equal(k, 2);
	assert_ptr_equal(p, block);
	assert_int_equal(cap, 8);
	assert_int_equal(array_reserve(p, cap, 0, 8), 0);
	assert_int_equal(cap, 8);
	array_free(p, n, cap);
}

/* Sizes that overflow are refused, and the array stays as it was. */
static void test_array_overflow(void **state)
{
	uint64_t *a = NULL;
	size_t n = 0, cap = 0;

	assert_int_equal(array_push(a, n, cap, 7), 0);
	uint64_t *before = a;
	assert_int_equal(array_reserve(a, cap, SIZE_MAX / 8 + 1, 16), -ENOMEM);
	assert_int_equal(array_reserve(a, cap, SIZE_MAX, 16), -ENOMEM);
	assert_int_equal(array_reserve(a, cap, SIZE_MAX / 2 + 2, 16), -ENOMEM);
	assert_ptr_equal(a, before);
	assert_int_equal(cap, 16);
	assert_int_equal(a[0], 7);
	array_free(a, n, cap);

	unsigned char *b = NULL;
	size_t bcap = 0;
	assert_int_equal(array_reserve(b, bcap, SIZE_MAX, 4096), -ENOMEM);
	assert_null(b);
	assert_int_equal(bcap, 0);
}

/* array_resize(): exactly the room asked, either way; an overflow leaves the block. */
static void test_array_resize(void **state)
{
	uint32_t *a = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(array_resize(a, cap, 5), 0);
	assert_int_equal(cap, 5);
	a[4] = 9;
	assert_int_equal(array_resize(a, cap, 100), 0);
	assert_int_equal(cap, 100);
	assert_int_equal(a[4], 9);
	assert_int_equal(array_resize(a, cap, SIZE_MAX / 4 + 1), -ENOMEM);
	assert_int_equal(cap, 100);
	assert_int_equal(array_resize(a, cap, 5), 0);
	assert_int_equal(cap, 5);
	assert_int_equal(a[4], 9);
	free(a);
}

/*
 * ksc_open_read(): a FIFO nobody writes to is refused at once (not waited for), kept
 * with KSC_OPEN_FIFO and blocking again; a character device and a folder are refused; a
 * link not followed with KSC_OPEN_NOFOLLOW.
 */
static void test_open_read(void **state)
{
	char dir[] = "/tmp/ksc-unit-XXXXXX", fifo[64], file[64];
	struct stat st;

	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(file, sizeof(file), "%s/file", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fputs("0123456789", f);
	fclose(f);

	assert_int_equal(ksc_open_read(AT_FDCWD, fifo, 0, &st), -KSC_ENOTREG);
	assert_string_equal(ksc_file_kind(st.st_mode), "a FIFO");
	int fd = ksc_open_read(AT_FDCWD, fifo, KSC_OPEN_FIFO, &st);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	assert_int_equal(ksc_open_read(AT_FDCWD, "/dev/zero", 0, &st), -KSC_ENOTREG);
	assert_string_equal(ksc_file_kind(st.st_mode), "a character device");
	assert_int_equal(ksc_open_read(AT_FDCWD, "/dev/zero", KSC_OPEN_FIFO, &st),
			 -KSC_ENOTREG);
	assert_int_equal(ksc_open_read(AT_FDCWD, dir, 0, &st), -EISDIR);
	assert_int_equal(ksc_open_read(AT_FDCWD, "/nonexistent/x", 0, &st), -ENOENT);

	/* ksc_read_fd(): whole under the limit, refused by its size over it */
	char *data;
	size_t size;
	fd = ksc_open_read(AT_FDCWD, file, 0, &st);
	assert_true(fd >= 0);
	assert_int_equal(ksc_read_fd(fd, &st, 10, &data, &size), 0);
	assert_int_equal(size, 10);
	assert_string_equal(data, "0123456789");
	free(data);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(ksc_read_fd(fd, &st, 9, &data, &size), -EFBIG);
	assert_null(data);
	assert_int_equal(size, 10);
	close(fd);

	/* KSC_OPEN_NOFOLLOW: a link is not followed; a link to a FIFO is refused either way */
	char link[64];
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink("file", link), 0);
	assert_int_equal(ksc_open_read(AT_FDCWD, link, KSC_OPEN_NOFOLLOW, &st), -ELOOP);
	fd = ksc_open_read(AT_FDCWD, link, 0, &st);
	assert_true(fd >= 0);
	close(fd);
	unlink(link);
	assert_int_equal(symlink("fifo", link), 0);
	assert_int_equal(ksc_open_read(AT_FDCWD, link, 0, &st), -KSC_ENOTREG);
	assert_int_equal(ksc_open_read(AT_FDCWD, link, KSC_OPEN_NOFOLLOW, &st), -ELOOP);
	unlink(link);
	unlink(fifo);
	unlink(file);
	rmdir(dir);
}

/* ksc_read_fd() on a stream of unknown size: cut off past the limit. */
static void test_read_fd_stream(void **state)
{
	int p[2];
	struct stat st;
	char buf[4096], *data;
	size_t size;

	memset(buf, 'x', sizeof(buf));
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(p[1]);
	assert_int_equal(fstat(p[0], &st), 0);
	assert_int_equal(ksc_read_fd(p[0], &st, 1000, &data, &size), -EFBIG);
	assert_int_equal(size, 0);
	close(p[0]);

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], buf, 100), 100);
	close(p[1]);
	assert_int_equal(ksc_read_fd(p[0], &st, 1000, &data, &size), 0);
	assert_int_equal(size, 100);
	assert_int_equal(data[100], '\0');
	free(data);
	close(p[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash64_vectors),
		cmocka_unit_test(test_hash64_old_values),
		cmocka_unit_test(test_array_push),
		cmocka_unit_test(test_array_overflow),
		cmocka_unit_test(test_array_resize),
		cmocka_unit_test(test_open_read),
		cmocka_unit_test(test_read_fd_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
