/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared by the cmocka unit tests (tests/unit/test-*.c): cmocka's includes in the order
 *it needs them, a ctx whose log messages are captured so tests can assert on them, and
 *small file helpers. Everything is static inline: each test is one translation unit.
 *
 * Typical use:
 *	static void test_x(void **state)
 *	{
 *		struct test_env *env = *state;
 *		...ksc_symvers_new_from_memory(env->ctx, "m", text, len, &sv)...
 *		assert_log_contains(env, "m:2: too few fields");
 *	}
 *	cmocka_unit_test_setup_teardown(test_x, test_env_setup, test_env_teardown)
 *
 * KSC_TEST_VERBOSE=1 also prints every captured message to stderr.
 */
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksymcheck.h"

#define TEST_LOG_SIZE (256 * 1024)

struct test_env {
	struct ksc_ctx *ctx;
	char *log; /* every message, each followed by '\n' */
	size_t log_len;
	unsigned int n_msgs; /* messages of any priority */
	unsigned int n_errs; /* messages at KSC_LOG_ERR */
	bool truncated;
};

static inline void test_log_fn(void *data, int priority, const char *msg)
{
	struct test_env *env = data;
	size_t room = TEST_LOG_SIZE - env->log_len;
	int n;

	env->n_msgs++;
	if (priority <= KSC_LOG_ERR)
		env->n_errs++;
	if (getenv("KSC_TEST_VERBOSE"))
		fprintf(stderr, "# log(%d): %s\n", priority, msg);
	n = snprintf(env->log + env->log_len, room, "%s\n", msg);
	if (n < 0 || (size_t)n >= room) {
		env->truncated = true;
		env->log_len = TEST_LOG_SIZE - 1;
		return;
	}
	env->log_len += (size_t)n;
}

static inline void test_log_clear(struct test_env *env)
{
	env->log[0] = '\0';
	env->log_len = 0;
	env->n_msgs = 0;
	env->n_errs = 0;
	env->truncated = false;
}

/* A ctx that captures every message, debug included. */
static inline int test_env_setup(void **state)
{
	struct test_env *env = calloc(1, sizeof(*env));

	if (!env)
		return -1;
	env->log = calloc(1, TEST_LOG_SIZE);
	env->ctx = ksc_new();
	if (!env->log || !env->ctx) {
		free(env->log);
		ksc_unref(env->ctx);
		free(env);
		return -1;
	}
	ksc_set_log_fn(env->ctx, test_log_fn, env);
	ksc_set_log_priority(env->ctx, KSC_LOG_DEBUG);
	*state = env;
	return 0;
}

static inline int test_env_teardown(void **state)
{
	struct test_env *env = *state;

	if (!env)
		return 0;
	ksc_unref(env->ctx);
	free(env->log);
	free(env);
	*state = NULL;
	return 0;
}

static inline bool test_log_has(const struct test_env *env, const char *s)
{
	return strstr(env->log, s) != NULL;
}

/* The log holds a line that is exactly `line`. */
static inline bool test_log_has_line(const struct test_env *env, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = env->log; (p = strstr(p, line)); p++) {
		if ((p == env->log || p[-1] == '\n') && p[n] == '\n')
			return true;
	}
	return false;
}

#define assert_log_contains(env, s)                                              \
	do {                                                                     \
		if (!test_log_has((env), (s)))                                   \
			fail_msg("log lacks \"%s\"; log:\n%s", (s), (env)->log); \
	} while (0)

#define assert_log_line(env, s)                                              \
	do {                                                                 \
		if (!test_log_has_line((env), (s)))                          \
			fail_msg("log lacks the line \"%s\"; log:\n%s", (s), \
				 (env)->log);                                \
	} while (0)

#define assert_log_empty(env)                                        \
	do {                                                         \
		if ((env)->n_msgs)                                   \
			fail_msg("unexpected log:\n%s", (env)->log); \
	} while (0)

/* Whole file in memory (NUL-terminated); NULL when it cannot be read. Caller frees. */
static inline char *unit_read_file(const char *path, size_t *size)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf && len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n <= 0) {
			free(buf);
			buf = NULL;
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	if (!buf)
		return NULL;
	buf[len] = '\0';
	if (size)
		*size = len;
	return buf;
}

static inline void unit_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* A fresh folder under $TMPDIR (or /tmp), path written to buf. */
static inline void unit_mkdtemp(char *buf, size_t size)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, size, "%s/ksc-unit.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(buf));
}

/* Remove a folder made by unit_mkdtemp() with everything in it. */
static inline int unit_rm_one(const char *path, const struct stat *st, int flag,
			      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? -1 : 0;
}

static inline void unit_rm_rf(const char *dir)
{
	if (nftw(dir, unit_rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		fprintf(stderr, "# could not remove %s: %s\n", dir, strerror(errno));
}

/* Number of entries in a folder, "." and ".." not counted; -1 on error. */
static inline int unit_count_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/*
 * A file of the Debian 6.1 cache that scripts/fetch-debian-kernel.sh fills: $KSC_CACHE,
 * else $XDG_CACHE_HOME/ksymcheck, else ~/.cache/ksymcheck; then debian-6.1/. `fmt` is the
 * path inside it with one %s for the kernel release (from debian-6.1/.kver), e.g.
 * "usr/src/linux-headers-%s/Module.symvers". False when the file is not there.
 */
static inline bool unit_debian_file(char *buf, size_t size, const char *fmt)
{
	const char *c = getenv("KSC_CACHE"), *x = getenv("XDG_CACHE_HOME"),
		   *h = getenv("HOME");
	char dir[1024], kver[128] = "", rel[512];
	struct stat st;
	FILE *f;

	if (c && *c)
		snprintf(dir, sizeof(dir), "%s/debian-6.1", c);
	else if (x && *x)
		snprintf(dir, sizeof(dir), "%s/ksymcheck/debian-6.1", x);
	else
		snprintf(dir, sizeof(dir), "%s/.cache/ksymcheck/debian-6.1",
			 h ? h : "/root");
	if ((size_t)snprintf(buf, size, "%s/.kver", dir) >= size)
		return false;
	f = fopen(buf, "re");
	if (!f)
		return false;
	if (!fgets(kver, sizeof(kver), f))
		kver[0] = '\0';
	fclose(f);
	kver[strcspn(kver, "\n")] = '\0';
	if (!kver[0])
		return false;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(rel, sizeof(rel), fmt, kver);
#pragma GCC diagnostic pop
	if ((size_t)snprintf(buf, size, "%s/%s", dir, rel) >= size)
		return false;
	return stat(buf, &st) == 0 && S_ISREG(st.st_mode);
}
