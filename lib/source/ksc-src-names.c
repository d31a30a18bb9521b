// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The identifiers a module's own sources name, as the compiler would see them for one
 * kernel version: comments and string literals are skipped, and the branches of the
 * version conditionals "#if LINUX_VERSION_CODE <op> KERNEL_VERSION(a, b, c)" (either
 * order, parentheses allowed, also in #elif) that the version does not take are left
 * out. Any other condition (CONFIG_*, defined(), && and ||) is not evaluated: every
 * branch of it counts, so a name is "named" when some configuration could compile it.
 * Used by `compat` (lib/report/ksc-compat.c) to tell what the module calls itself from
 * what the old headers' inline code and macros referenced.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/source-private.h"
#include "util/fileio.h"

#define MAX_DEPTH 64      /* folders below the source root */
#define MAX_FILE (64u << 20)
#define MAX_NEST 256      /* #if nesting followed; deeper is read as always taken */

/* One #if group: whether the lines now are compiled, and whether a branch was taken. */
struct cond {
	bool parent;  /* the group's lines can be compiled at all */
	bool active;  /* the current branch is compiled */
	int taken;    /* 1 a known-true branch was taken, 0 none yet, -1 unknown ones only */
};

struct names_scan {
	struct ksc_src_names *out;
	const struct hash *wanted; /* headers: only these names, defined there */
	unsigned int code; /* LINUX_VERSION_CODE of the kernel */
	struct cond stack[MAX_NEST];
	int depth;     /* groups on the stack; deeper ones only counted */
	int overflow;  /* groups beyond MAX_NEST */
};

static bool active(const struct names_scan *s)
{
	return s->depth == 0 || s->stack[s->depth - 1].active;
}

static int add_name(struct names_scan *s, const char *p, size_t len)
{
	char key[256];
	const char *k;

	if (len == 0 || (p[0] >= '0' && p[0] <= '9'))
		return 0;
	if (len < sizeof(key)) {
		memcpy(key, p, len);
		key[len] = '\0';
		if (hash_find(&s->out->names, key))
			return 0;
	}
	k = pool_strndup(&s->out->strings, p, len);
	if (!k)
		return -ENOMEM;
	return hash_add(&s->out->names, k, (void *)k, 1) < 0 ? -ENOMEM : 0;
}

/* The text of a directive without blanks, comments and splices, into buf (NUL-ended). */
static void squeeze(const char *d, size_t p, size_t e, char *buf, size_t size)
{
	size_t o = 0;

	while (p < e && o + 1 < size) {
		size_t q = splice_at(d, e, p);
		if (q != p) {
			p = q;
			continue;
		}
		if (d[p] == '/' && p + 1 < e && d[p + 1] == '*') {
			p = src_block_comment_end(d, e, p);
			continue;
		}
		if (d[p] == '/' && p + 1 < e && d[p + 1] == '/')
			break;
		if (d[p] != ' ' && d[p] != '\t' && d[p] != '\r' && d[p] != '\f' && d[p] != '\v')
			buf[o++] = d[p];
		p++;
	}
	buf[o] = '\0';
}

/* "KERNEL_VERSION(a,b,c)" at *p: its code, *p after it; -1 when it is not one. */
static long kernel_version(const char **p)
{
	unsigned long v[3];
	char *e;

	if (strncmp(*p, "KERNEL_VERSION(", 15) != 0)
		return -1;
	*p += 15;
	for (int i = 0; i < 3; i++) {
		if (**p < '0' || **p > '9')
			return -1;
		v[i] = strtoul(*p, &e, 10);
		*p = e;
		if (**p != (i < 2 ? ',' : ')'))
			return -1;
		(*p)++;
	}
	if (v[0] > 255 || v[1] > 255)
		return -1;
	return (long)(v[0] << 16 | v[1] << 8 | (v[2] > 255 ? 255 : v[2]));
}

/* A comparison operator at *p: its index in ops, *p after it; -1 when none. */
static int comparison(const char **p)
{
	static const char *const ops[] = { "<=", ">=", "==", "!=", "<", ">" };

	for (int i = 0; i < 6; i++) {
		size_t l = strlen(ops[i]);
		if (strncmp(*p, ops[i], l) == 0) {
			*p += l;
			return i;
		}
	}
	return -1;
}

static bool compare(long a, int op, long b)
{
	switch (op) {
	case 0: return a <= b;
	case 1: return a >= b;
	case 2: return a == b;
	case 3: return a != b;
	case 4: return a < b;
	default: return a > b;
	}
}

/* A squeezed condition: 1 true, 0 false, -1 not a version comparison. */
static int version_condition(const char *c, unsigned int code)
{
	static const char lvc[] = "LINUX_VERSION_CODE";
	size_t n = strlen(c);
	long a, b;
	int op;

	while (n >= 2 && c[0] == '(' && c[n - 1] == ')') {
		c++;
		n -= 2;
	}
	char buf[256];
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, c, n);
	buf[n] = '\0';
	const char *p = buf;
	if (strncmp(p, lvc, sizeof(lvc) - 1) == 0) {
		p += sizeof(lvc) - 1;
		a = code;
		if ((op = comparison(&p)) < 0 || (b = kernel_version(&p)) < 0)
			return -1;
	} else {
		if ((a = kernel_version(&p)) < 0 || (op = comparison(&p)) < 0 ||
		    strncmp(p, lvc, sizeof(lvc) - 1) != 0)
			return -1;
		p += sizeof(lvc) - 1;
		b = code;
	}
	return *p ? -1 : compare(a, op, b);
}

/* One branch starts with condition value v (1, 0, -1 unknown). */
static void branch(struct cond *c, int v)
{
	if (c->taken == 1) {
		c->active = false;
		return;
	}
	c->active = c->parent && v != 0;
	if (v == 1)
		c->taken = 1;
	else if (v < 0)
		c->taken = -1;
}

/* A conditional directive (if, ifdef, ifndef, elif, else, endif); others are ignored. */
static void conditional(struct names_scan *s, const char *name, size_t len, const char *rest)
{
#define IS(w) (len == sizeof(w) - 1 && memcmp(name, w, len) == 0)
	if (IS("if") || IS("ifdef") || IS("ifndef")) {
		if (s->depth == MAX_NEST) {
			s->overflow++;
			return;
		}
		struct cond *c = &s->stack[s->depth];
		c->parent = active(s);
		c->taken = 0;
		s->depth++;
		branch(c, IS("if") ? version_condition(rest, s->code) : -1);
	} else if (s->overflow) {
		if (IS("endif"))
			s->overflow--;
	} else if (s->depth && (IS("elif") || IS("elifdef") || IS("elifndef"))) {
		branch(&s->stack[s->depth - 1], IS("elif") ? version_condition(rest, s->code) : -1);
	} else if (s->depth && IS("else")) {
		struct cond *c = &s->stack[s->depth - 1];
		branch(c, c->taken == 0 ? 1 : c->taken == 1 ? 0 : -1);
	} else if (s->depth && IS("endif")) {
		s->depth--;
	}
#undef IS
}

/* The identifiers of d[p..e) (code, or a directive's body), comments and literals skipped. */
static int scan_code(struct names_scan *s, const char *d, size_t p, size_t e, bool stop_nl,
		     size_t *end)
{
	while (p < e) {
		char c = d[p];
		if (c == '\n' && stop_nl)
			break;
		if (c == '/' && p + 1 < e && d[p + 1] == '*') {
			p = src_block_comment_end(d, e, p);
		} else if (c == '/' && p + 1 < e && d[p + 1] == '/') {
			p = src_logical_line_end(d, e, p);
		} else if (c == '"' || c == '\'') {
			p = src_literal_end(d, e, p);
		} else if (is_ident_char((unsigned char)c)) {
			size_t q = src_ident_end(d, e, p);
			if (active(s) && add_name(s, d + p, q - p) < 0)
				return -ENOMEM;
			p = q;
		} else if (c == '#' && !stop_nl && src_starts_line(d, p)) {
			break;
		} else {
			p++;
		}
	}
	*end = p;
	return 0;
}

/* A directive at d[p] ('#'): the offset of the newline ending it. */
static int directive(struct names_scan *s, const char *d, size_t n, size_t p, size_t *end)
{
	size_t e = src_logical_line_end(d, n, p), q = p + 1, r;
	char rest[512];

	while (q < e && (d[q] == ' ' || d[q] == '\t'))
		q++;
	r = src_ident_end(d, e, q);
	*end = e;
	if (r - q == 7 && memcmp(d + q, "include", 7) == 0)
		return 0;
	if (r - q == 6 && memcmp(d + q, "define", 6) == 0)
		return scan_code(s, d, r, e, true, &r); /* the macro's name and body */
	squeeze(d, r, e, rest, sizeof(rest));
	conditional(s, d + q, r - q, rest);
	return 0;
}

static int scan_buffer(struct names_scan *s, const char *d, size_t n)
{
	size_t p = 0;

	s->depth = s->overflow = 0;
	while (p < n) {
		int r;
		if (d[p] == '#' && src_starts_line(d, p))
			r = directive(s, d, n, p, &p);
		else
			r = scan_code(s, d, p, n, false, &p);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The wanted identifier at p (a token), added when it is one. */
static int wanted_at(struct names_scan *s, const char *d, size_t n, size_t p)
{
	size_t e = src_ident_end(d, n, p);

	if (e == p || e - p >= 256)
		return 0;
	char key[256];
	memcpy(key, d + p, e - p);
	key[e - p] = '\0';
	return hash_find(s->wanted, key) ? add_name(s, d + p, e - p) : 0;
}

static bool token_at(const char *d, size_t n, size_t p, size_t len)
{
	return (p == 0 || !is_ident_char((unsigned char)d[p - 1])) &&
	       (p + len >= n || !is_ident_char((unsigned char)d[p + len]));
}

/*
 * Headers: the wanted names defined as a macro ("#define NAME") or as an inline
 * function (an identifier before '(' after the word "inline", up to the '{' or ';').
 */
static int defines_buffer(struct names_scan *s, const char *d, size_t n)
{
	const char *p;
	int r = 0;

	for (p = d; r == 0 && (p = memmem(p, n - (size_t)(p - d), "define", 6)); p += 6) {
		size_t i = (size_t)(p - d), q = i + 6;
		while (i > 0 && (d[i - 1] == ' ' || d[i - 1] == '\t'))
			i--;
		if (i == 0 || d[i - 1] != '#' || !src_starts_line(d, i - 1) || q >= n ||
		    (d[q] != ' ' && d[q] != '\t'))
			continue;
		while (q < n && (d[q] == ' ' || d[q] == '\t'))
			q++;
		r = wanted_at(s, d, n, q);
	}
	for (p = d; r == 0 && (p = memmem(p, n - (size_t)(p - d), "inline", 6)); p += 6) {
		size_t q = (size_t)(p - d), lim = q + 512 < n ? q + 512 : n;
		if (!token_at(d, n, q, 6))
			continue;
		for (q += 6; r == 0 && q < lim && d[q] != '{' && d[q] != ';'; ) {
			if (!is_ident_char((unsigned char)d[q])) {
				q++;
				continue;
			}
			size_t e = src_ident_end(d, n, q), f = e;
			while (f < lim && (d[f] == ' ' || d[f] == '\t' || d[f] == '\n'))
				f++;
			if (f < lim && d[f] == '(')
				r = wanted_at(s, d, n, q);
			q = e;
		}
	}
	return r;
}

/* A file found below a folder is not followed when it is a link (flags); one named is. */
static int scan_file(struct names_scan *s, int dfd, const char *name, unsigned int flags)
{
	struct stat st;
	char *buf;
	size_t got;
	int fd = ksc_open_read(dfd, name, flags, &st), r;

	if (fd < 0)
		return fd;
	r = ksc_read_fd(fd, &st, MAX_FILE, &buf, &got);
	close(fd);
	if (r < 0)
		return r;
	r = s->wanted ? defines_buffer(s, buf, got) : scan_buffer(s, buf, got);
	s->out->n_files++;
	free(buf);
	return r;
}

static bool is_c_source(const char *name)
{
	size_t l = strlen(name);

	return l > 2 && name[l - 2] == '.' && (name[l - 1] == 'c' || name[l - 1] == 'h');
}

/* The .c and .h files below the folder open as dfd (hidden folders skipped). */
static int scan_dir(struct names_scan *s, int dfd, int depth)
{
	DIR *dir = fdopendir(dfd);
	struct dirent *de;
	int r = 0;

	if (!dir) {
		close(dfd);
		return -errno;
	}
	while (r >= 0 && (de = readdir(dir))) {
		struct stat st;
		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		/* headers: the user-space API and device-tree numbers define no kernel calls */
		if (s->wanted && S_ISDIR(st.st_mode) &&
		    (strcmp(de->d_name, "uapi") == 0 || strcmp(de->d_name, "dt-bindings") == 0))
			continue;
		if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH) {
			int sub = openat(dirfd(dir), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (sub >= 0)
				r = scan_dir(s, sub, depth + 1);
		} else if (S_ISREG(st.st_mode) && is_c_source(de->d_name)) {
			r = scan_file(s, dirfd(dir), de->d_name, KSC_OPEN_NOFOLLOW);
			if (r != -ENOMEM)
				r = 0; /* an unreadable file names nothing */
		}
	}
	closedir(dir);
	return r == -ENOMEM ? r : 0;
}

int ksc_src_names_scan(const char *path, const struct ksc_kver *kver,
		       struct ksc_src_names *out)
{
	struct names_scan *s;
	struct stat st;
	int r;

	hash_init(&out->names);
	pool_init(&out->strings);
	out->n_files = 0;
	if (stat(path, &st) < 0)
		return -errno;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->out = out;
	s->code = kver->major << 16 | kver->minor << 8 | (kver->patch > 255 ? 255 : kver->patch);
	if (S_ISDIR(st.st_mode)) {
		int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		r = dfd < 0 ? -errno : scan_dir(s, dfd, 0);
	} else {
		r = scan_file(s, AT_FDCWD, path, 0);
	}
	free(s);
	return r;
}

int ksc_src_defines_scan(const char *const *dirs, size_t n_dirs, const struct hash *wanted,
			 struct ksc_src_names *out)
{
	struct names_scan *s;
	int r = 0;

	hash_init(&out->names);
	pool_init(&out->strings);
	out->n_files = 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->out = out;
	s->wanted = wanted;
	for (size_t i = 0; r == 0 && i < n_dirs; i++) {
		int dfd = open(dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0)
			r = scan_dir(s, dfd, 0);
	}
	free(s);
	return r;
}

bool ksc_src_names_has(const struct ksc_src_names *n, const char *name)
{
	return hash_find(&n->names, name) != NULL;
}

void ksc_src_names_fini(struct ksc_src_names *n)
{
	hash_fini(&n->names);
	pool_fini(&n->strings);
}
