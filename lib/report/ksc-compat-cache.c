// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What compat learnt from BTF for one (module, kernel) cell, kept in a cache folder the
 * caller names (ksc_compat_opts.cache_dir) so that the next run of the same module
 * against the same kernels reads no BTF at all: reading four kernels' BTF (and the split
 * BTF of the modules that export the imports) is most of a compat run. The key is a hash
 * of the identity (path, size, modification time, inode) of every file the cell's
 * findings came from: the module, both kernels' BTF and module folders (for the headers'
 * scan: every folder of the headers and every header file in them, by their times and
 * inodes: a header added, removed, replaced or edited in place changes them). A record
 * is the sequence of the BTF comparison's callbacks and hints, replayed in order.
 *
 * The file: a first line "ksc-compat-memo 2", then one line per record, fields separated
 * by tabs, with '\\', tab and newline escaped as \\, \t, \n.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "util/array.h"
#include "util/fileio.h"
#include "util/hash.h"

#define MEMO_MAGIC "ksc-compat-memo 2\n" /* 2: hints with the in-tree evidence */
#define MEMO_MAX (16u << 20)
#define MAX_FIELDS 8

static void add_identity(uint64_t *h, const char *path)
{
	struct stat st;
	char buf[256];
	int n;

	*h = ksc_hash64(path ? path : "", path ? strlen(path) + 1 : 0, *h);
	if (!path || stat(path, &st) < 0)
		n = snprintf(buf, sizeof(buf), "-");
	else
		n = snprintf(buf, sizeof(buf), "%lld %lld.%09ld %llu %llu", (long long)st.st_size,
			     (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			     (unsigned long long)st.st_ino, (unsigned long long)st.st_dev);
	*h = ksc_hash64(buf, (size_t)n, *h);
}

static bool is_c_file(const char *name)
{
	size_t l = strlen(name);

	return l > 2 && name[l - 2] == '.' && (name[l - 1] == 'c' || name[l - 1] == 'h');
}

/*
 * Every folder below dir and every .c and .h file in them, what ksc_src_defines_scan()
 * reads (hidden names, uapi/ and dt-bindings/ skipped as it skips them), each one's path
 * and identity hashed: a header edited in place changes its own times, not its folder's.
 */
static void walk_dirs(int dfd, const char *rel, uint64_t *h, int depth)
{
	DIR *d;
	struct dirent *de;
	struct stat st;

	char buf[160];
	int n;

	/* a folder's own times add nothing: its files, added, removed or renamed, are said */
	if (depth > 32) {
		close(dfd);
		return;
	}
	*h = ksc_hash64(rel, strlen(rel) + 1, *h);
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_DIR) {
			/* a file (or a type d_type does not say): the scan reads it as it stats it */
			if (!is_c_file(de->d_name) ||
			    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			if (!S_ISDIR(st.st_mode)) {
				n = snprintf(buf, sizeof(buf), "%s %lld %lld.%09ld %lld.%09ld %llu",
					     de->d_name, (long long)st.st_size,
					     (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
					     (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
					     (unsigned long long)st.st_ino);
				*h = ksc_hash64(buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1, *h);
				continue;
			}
		}
		if (strcmp(de->d_name, "uapi") == 0 || strcmp(de->d_name, "dt-bindings") == 0)
			continue;
		int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			char p[4096];
			snprintf(p, sizeof(p), "%s/%s", rel, de->d_name);
			walk_dirs(sub, p, h, depth + 1);
		}
	}
	closedir(d);
}

void ksc_compat_tree_identity(const char *dir, char out[17])
{
	uint64_t h = 0x7472656569646e74ull;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	h = ksc_hash64(dir, strlen(dir) + 1, h);
	if (dfd >= 0)
		walk_dirs(dfd, "", &h, 0);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

void ksc_compat_memo_key(const char *const *paths, size_t n, char out[33])
{
	uint64_t a = 0x6b7363636f6d7061ull, b = 0x746d656d6f31ull;

	for (size_t i = 0; i < n; i++) {
		add_identity(&a, paths[i]);
		add_identity(&b, paths[i]);
		b ^= a;
	}
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
}

static int put(struct ksc_compat_memo *m, const char *s, size_t n)
{
	if (array_reserve(m->data, m->cap, m->n + n + 1, 4096) < 0)
		return -ENOMEM;
	memcpy(m->data + m->n, s, n);
	m->n += n;
	m->data[m->n] = '\0';
	return 0;
}

int ksc_compat_memo_add(struct ksc_compat_memo *m, char kind, const char *const *fields, size_t n)
{
	int r = put(m, &kind, 1);

	for (size_t i = 0; r == 0 && i < n; i++) {
		const char *f = fields[i] ? fields[i] : "";
		r = put(m, "\t", 1);
		for (; r == 0 && *f; f++) {
			if (*f == '\\' || *f == '\t' || *f == '\n') {
				char esc[2] = { '\\', *f == '\\' ? '\\' : *f == '\t' ? 't' : 'n' };
				r = put(m, esc, 2);
			} else {
				r = put(m, f, 1);
			}
		}
	}
	return r == 0 ? put(m, "\n", 1) : r;
}

/* Unescape s in place (it only shrinks). */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*o++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

int ksc_compat_memo_load(const char *dir, const char *key, struct ksc_compat_memo *m)
{
	char path[4096];
	char *data = NULL;
	size_t size = 0;
	struct stat st;
	int fd, r;

	memset(m, 0, sizeof(*m));
	if (snprintf(path, sizeof(path), "%s/%s.memo", dir, key) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = ksc_open_read(AT_FDCWD, path, KSC_OPEN_NOFOLLOW, &st);
	if (fd < 0)
		return fd;
	r = ksc_read_fd(fd, &st, MEMO_MAX, &data, &size);
	close(fd);
	if (r < 0)
		return r;
	if (size < sizeof(MEMO_MAGIC) - 1 || memcmp(data, MEMO_MAGIC, sizeof(MEMO_MAGIC) - 1) ||
	    data[size - 1] != '\n') {
		free(data);
		return -EINVAL; /* another format, or cut short: computed again */
	}
	data[size - 1] = '\0';
	m->data = data;
	m->n = size;
	for (char *line = data + sizeof(MEMO_MAGIC) - 1, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (array_reserve(m->lines, m->cap_lines, m->n_lines + 1, 64) < 0) {
			ksc_compat_memo_fini(m);
			return -ENOMEM;
		}
		m->lines[m->n_lines++] = line;
	}
	m->replay = true;
	return 0;
}

size_t ksc_compat_memo_next(struct ksc_compat_memo *m, const char *kinds, const char *first,
			    const char **v, size_t max)
{
	char *line, *f;
	size_t n = 0;

	if (!m->replay || m->pos >= m->n_lines)
		return 0;
	line = m->lines[m->pos];
	if (!line[0] || !strchr(kinds, line[0]) || line[1] != '\t')
		return 0;
	/* the first field is compared before the line is split (and unescaped) for good */
	f = line + 2;
	size_t len = strcspn(f, "\t");
	char *esc = strndup(f, len);
	if (!esc)
		return 0;
	unescape(esc);
	bool same = strcmp(esc, first ? first : "") == 0;
	free(esc);
	if (!same)
		return 0;
	m->pos++;
	v[n++] = line; /* the kind, as a one-letter string below */
	for (f = line + 2; n < max; ) {
		char *tab = strchr(f, '\t');
		if (tab)
			*tab = '\0';
		unescape(f);
		v[n++] = f;
		if (!tab)
			break;
		f = tab + 1;
	}
	line[1] = '\0';
	return n;
}

static int mkdir_p(const char *dir)
{
	char p[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		p[i] = c;
	}
	return 0;
}

int ksc_compat_memo_save(const char *dir, const char *key, const struct ksc_compat_memo *m)
{
	char name[64];
	char *all;
	int r = mkdir_p(dir);

	if (r < 0)
		return r;
	snprintf(name, sizeof(name), "%s.memo", key);
	all = malloc(sizeof(MEMO_MAGIC) + m->n);
	if (!all)
		return -ENOMEM;
	memcpy(all, MEMO_MAGIC, sizeof(MEMO_MAGIC) - 1);
	if (m->n)
		memcpy(all + sizeof(MEMO_MAGIC) - 1, m->data, m->n);
	r = ksc_write_atomic(dir, name, all, sizeof(MEMO_MAGIC) - 1 + m->n, false);
	free(all);
	return r;
}

void ksc_compat_memo_fini(struct ksc_compat_memo *m)
{
	free(m->data);
	free(m->lines);
	memset(m, 0, sizeof(*m));
}
