// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod's .bin tries (lib/readers/ksc-depmod-bin.c): kmod's own depmod writes
 * modules.dep.bin and modules.symbols.bin for a tree of the fixtures at test time, and
 * every line of the text files it writes beside them must be found in them, with as
 * many keys as lines; then tries made by hand, malformed in each way the reader checks
 * (header, offsets, counts, loops, depth), and every cut of a real file.
 */
#include "unit.h"

#include "readers/readers.h"

#define REL "6.16.0-fx"

struct fx {
	char root[512], moddir[1024];
	bool have; /* depmod ran */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	const char *fixtures = getenv("FIXTURES");
	char cmd[16384];

	if (!f)
		return -1;
	unit_mkdtemp(f->root, sizeof(f->root));
	snprintf(f->moddir, sizeof(f->moddir), "%s/lib/modules/" REL, f->root);
	if (!fixtures || !*fixtures)
		fixtures = "build/fixtures";
	/* depmod's own tries: the demo's in-tree modules and the x86_64 fixtures */
	snprintf(cmd, sizeof(cmd),
		 "d=$(PATH=$PATH:/usr/sbin:/sbin command -v depmod) && "
		 "mkdir -p '%s/kernel/a' '%s/kernel/b' && cp '%s'/demo/intree/*.ko '%s/kernel/a/' && "
		 "cp '%s'/x86_64/*.ko '%s/kernel/b/' && \"$d\" -b '%s' -C '%s/none' " REL
		 " 2> /dev/null",
		 f->moddir, f->moddir, fixtures, f->moddir, fixtures, f->moddir, f->root, f->root);
	f->have = system(cmd) == 0;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	unit_rm_rf(f->root);
	free(f);
	return 0;
}

/* ksc_depbin_each()'s callback: each value must be a line of modules.dep, met once */
struct seen_lines {
	char *lines[512];
	bool met[512];
	size_t n_lines;
	size_t n;    /* values met */
	size_t stop_at;
};

static int line_of(void *data, const char *value, size_t len)
{
	struct seen_lines *s = data;

	assert_int_equal(strlen(value), len);
	if (++s->n == s->stop_at)
		return -ECANCELED;
	for (size_t i = 0; i < s->n_lines; i++) {
		if (!s->met[i] && strcmp(s->lines[i], value) == 0) {
			s->met[i] = true;
			return 0;
		}
	}
	fail_msg("a value that is no line of modules.dep, or met twice: %s", value);
	return -EINVAL;
}

static void open_in(const struct fx *f, const char *name, struct ksc_depbin *db)
{
	char p[1200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", f->moddir, name);
	assert_int_equal(ksc_depbin_open(p, &st, db), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(db->size, (size_t)st.st_size);
}

/* modules.dep.bin: each line of modules.dep under its module's kmod name, as many keys */
static void test_dep_as_text(void **state)
{
	struct fx *f = *state;
	struct ksc_depbin db;
	struct ksc_depbin_value v;
	char p[1200], *text, *line, *next, name[256];
	size_t n, lines = 0, keys, values, nl;

	if (!f->have)
		skip();
	open_in(f, "modules.dep.bin", &db);
	snprintf(p, sizeof(p), "%s/modules.dep", f->moddir);
	text = unit_read_file(p, &n);
	assert_non_null(text);
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		assert_non_null(next);
		*next++ = '\0';
		char path[512];
		size_t plen = strcspn(line, ":");
		assert_true(plen < sizeof(path) && line[plen] == ':');
		memcpy(path, line, plen);
		path[plen] = '\0';
		ksc_kmod_modname(path, name, sizeof(name), &nl);
		assert_int_equal(ksc_depbin_lookup(&db, name, &v), 1);
		assert_int_equal(v.count, 1);
		assert_int_equal(v.len, strlen(line));
		assert_string_equal(v.value, line);
		lines++;
	}
	assert_true(lines >= 15);
	assert_int_equal(ksc_depbin_count(&db, &keys, &values), 0);
	assert_int_equal(keys, lines);
	assert_int_equal(values, lines);
	/* every value handed over once, each a line */
	static struct seen_lines sl;
	sl = (struct seen_lines){ .n_lines = 0 };
	for (line = text; sl.n_lines < lines; line += strlen(line) + 1)
		sl.lines[sl.n_lines++] = line;
	assert_int_equal(ksc_depbin_each(&db, line_of, &sl, &keys, &values), 0);
	assert_int_equal(sl.n, lines);
	memset(sl.met, 0, sizeof(sl.met));
	sl.n = 0;
	sl.stop_at = 3;
	assert_int_equal(ksc_depbin_each(&db, line_of, &sl, &keys, &values), -ECANCELED);
	assert_int_equal(sl.n, 3);
	/* not keys: a prefix of one, one longer, none, one past 7-bit ASCII */
	assert_int_equal(ksc_depbin_lookup(&db, "kv", &v), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "kvm_amdx", &v), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "", &v), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "kvm\xc3\xa9", &v), -EILSEQ);
	free(text);
	ksc_depbin_fini(&db);
}

/* modules.symbols.bin: "symbol:NAME" -> the owner of each line of modules.symbols */
static void test_symbols_as_text(void **state)
{
	struct fx *f = *state;
	struct ksc_depbin db;
	struct ksc_depbin_value v;
	char p[1200], *text, *line, *next;
	size_t n, lines = 0, keys, values;

	if (!f->have)
		skip();
	open_in(f, "modules.symbols.bin", &db);
	snprintf(p, sizeof(p), "%s/modules.symbols", f->moddir);
	text = unit_read_file(p, &n);
	assert_non_null(text);
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		assert_non_null(next);
		*next++ = '\0';
		if (line[0] == '#')
			continue;
		assert_memory_equal(line, "alias ", 6);
		char *sp = strchr(line + 6, ' ');
		assert_non_null(sp);
		*sp = '\0';
		assert_int_equal(ksc_depbin_lookup(&db, line + 6, &v), 1);
		assert_string_equal(v.value, sp + 1);
		lines++;
	}
	assert_true(lines >= 30);
	assert_int_equal(ksc_depbin_count(&db, &keys, &values), 0);
	assert_int_equal(keys, lines);
	assert_int_equal(values, lines);
	assert_int_equal(ksc_depbin_lookup(&db, "symbol:", &v), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "symbol:no_such_symbol", &v), 0);
	free(text);
	ksc_depbin_fini(&db);
}

/* Every cut of a real trie: parsed, counted and searched without reading past it. */
static void test_every_cut(void **state)
{
	struct fx *f = *state;
	struct ksc_depbin whole, db;
	struct ksc_depbin_value v;
	size_t keys, values, good = 0;

	if (!f->have)
		skip();
	open_in(f, "modules.dep.bin", &whole);
	for (size_t cut = 0; cut < whole.size; cut++) {
		/* an exact-size copy: ASan sees any read past it */
		unsigned char *copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, whole.data, cut);
		if (ksc_depbin_parse(copy, cut, &db) == 0) {
			assert_true(cut >= 12);
			int r = ksc_depbin_count(&db, &keys, &values);
			assert_true(r == 0 || r == -EINVAL);
			if (r == 0 && values >= 15)
				good++;
			r = ksc_depbin_lookup(&db, "kvm_amd", &v);
			assert_true(r == 0 || r == 1 || r == -EINVAL);
			if (r == 1)
				assert_true(v.value + v.len < (const char *)copy + cut);
		}
		free(copy);
	}
	/* a cut loses a node: the whole file alone holds every key */
	assert_int_equal(good, 0);
	assert_int_equal(ksc_depbin_count(&whole, &keys, &values), 0);
	ksc_depbin_fini(&whole);
}

/* ---- tries made by hand ---------------------------------------------------------- */

struct buf {
	unsigned char b[65536];
	size_t n;
};

static void put32(struct buf *b, uint32_t v)
{
	b->b[b->n++] = (unsigned char)(v >> 24);
	b->b[b->n++] = (unsigned char)(v >> 16);
	b->b[b->n++] = (unsigned char)(v >> 8);
	b->b[b->n++] = (unsigned char)v;
}

static void put_str(struct buf *b, const char *s)
{
	memcpy(b->b + b->n, s, strlen(s) + 1);
	b->n += strlen(s) + 1;
}

static void set32(struct buf *b, size_t at, uint32_t v)
{
	size_t n = b->n;

	b->n = at;
	put32(b, v);
	b->n = n;
}

#define PREFIX 0x80000000u
#define VALUES 0x40000000u
#define CHILDS 0x20000000u

/*
 * The trie of "ab" -> "x" and "ac" -> "y", depmod's layout: root (prefix "a", children
 * 'b'..'c'), then two leaves with a value each. *child_at: the offset of the children.
 */
static void two_keys(struct buf *b, size_t *child_at)
{
	b->n = 0;
	put32(b, 0xB007F457u);
	put32(b, 0x00020001u);
	put32(b, 12 | PREFIX | CHILDS);
	put_str(b, "a");
	b->b[b->n++] = 'b';
	b->b[b->n++] = 'c';
	*child_at = b->n;
	put32(b, 0);
	put32(b, 0);
	set32(b, *child_at, (uint32_t)b->n | VALUES);
	put32(b, 1);
	put32(b, 0);
	put_str(b, "x");
	set32(b, *child_at + 4, (uint32_t)b->n | VALUES);
	put32(b, 1);
	put32(b, 0);
	put_str(b, "y");
}

static void test_made(void **state)
{
	static struct buf b;
	struct ksc_depbin db;
	struct ksc_depbin_value v;
	size_t child, keys, values;

	(void)state;
	two_keys(&b, &child);
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "ab", &v), 1);
	assert_string_equal(v.value, "x");
	assert_int_equal(ksc_depbin_lookup(&db, "ac", &v), 1);
	assert_string_equal(v.value, "y");
	assert_int_equal(ksc_depbin_lookup(&db, "a", &v), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "ad", &v), 0);
	assert_int_equal(ksc_depbin_count(&db, &keys, &values), 0);
	assert_int_equal(keys, 2);

	/* the header: magic, major version, too short */
	b.b[0] = 0xB1;
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), -EINVAL);
	two_keys(&b, &child);
	b.b[5] = 3;
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), -EINVAL);
	assert_int_equal(ksc_depbin_parse(b.b, 11, &db), -EINVAL);

	/* an empty index: the root of no part ends the file */
	b.n = 0;
	put32(&b, 0xB007F457u);
	put32(&b, 0x00020001u);
	put32(&b, 12);
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "a", &v), 0);
	assert_int_equal(ksc_depbin_count(&db, &keys, &values), 0);
	assert_int_equal(keys + values, 0);
	set32(&b, 8, 12 | VALUES); /* a root of values at the end: outside */
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "a", &v), -EINVAL);
}

static void test_hostile(void **state)
{
	static struct buf b;
	struct ksc_depbin db;
	struct ksc_depbin_value v;
	size_t child, keys, values;

	(void)state;
	/* a loop: 'c' leads back to the root. Lookups end (a byte a node), the count says so */
	two_keys(&b, &child);
	set32(&b, child + 4, 12 | PREFIX | CHILDS);
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "acacacacacacab", &v), 1);
	assert_string_equal(v.value, "x");
	assert_int_equal(ksc_depbin_count(&db, &keys, &values), -ELOOP);

	/* two children of one node: a node reached twice */
	two_keys(&b, &child);
	memcpy(b.b + child + 4, b.b + child, 4);
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), 0);
	assert_int_equal(ksc_depbin_count(&db, &keys, &values), -ELOOP);

	/* a child past the end, and the root */
	two_keys(&b, &child);
	set32(&b, child, 0x0FFFFFF0u | VALUES);
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "ab", &v), -EINVAL);
	assert_int_equal(ksc_depbin_lookup(&db, "ac", &v), 1);
	assert_int_equal(ksc_depbin_count(&db, &keys, &values), -EINVAL);
	set32(&b, 8, (uint32_t)b.n | PREFIX);
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "ac", &v), -EINVAL);
	set32(&b, 8, 4 | PREFIX); /* inside the header */
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "ac", &v), -EINVAL);

	/* a huge count of values; a child table past the end; a last child past 127 */
	two_keys(&b, &child);
	set32(&b, b.n - 10, 0xFFFFFFFFu);
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "ac", &v), -EINVAL);
	assert_int_equal(ksc_depbin_count(&db, &keys, &values), -EINVAL);
	two_keys(&b, &child);
	b.b[child - 1] = 0x7f;
	assert_int_equal(ksc_depbin_parse(b.b, b.n, &db), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "ab", &v), -EINVAL);
	b.b[child - 1] = 0x80;
	assert_int_equal(ksc_depbin_lookup(&db, "ab", &v), -EINVAL);
	b.b[child - 1] = 'a'; /* last before first */
	assert_int_equal(ksc_depbin_lookup(&db, "ab", &v), -EINVAL);

	/* a value without its NUL at the end of the file */
	two_keys(&b, &child);
	assert_int_equal(ksc_depbin_parse(b.b, b.n - 1, &db), 0);
	assert_int_equal(ksc_depbin_lookup(&db, "ab", &v), 1);
	assert_int_equal(ksc_depbin_lookup(&db, "ac", &v), -EINVAL);
	assert_int_equal(ksc_depbin_count(&db, &keys, &values), -EINVAL);
}

/* A chain deeper than KSC_DEPBIN_DEPTH: the count stops; a lookup takes one node a byte. */
static void test_deep(void **state)
{
	struct buf *b = calloc(1, sizeof(*b));
	struct ksc_depbin db;
	struct ksc_depbin_value v;
	size_t keys, values, depth = KSC_DEPBIN_DEPTH + 10;
	char *key = malloc(depth + 1);

	(void)state;
	assert_non_null(b);
	assert_non_null(key);
	put32(b, 0xB007F457u);
	put32(b, 0x00020001u);
	put32(b, 12 | CHILDS);
	for (size_t i = 0; i < depth; i++) { /* each node: 'a' -> the next */
		b->b[b->n++] = 'a';
		b->b[b->n++] = 'a';
		put32(b, (uint32_t)(b->n + 4) | (i + 1 < depth ? CHILDS : VALUES));
		key[i] = 'a';
	}
	put32(b, 1);
	put32(b, 7);
	put_str(b, "deep");
	key[depth] = '\0';
	assert_true(b->n < sizeof(b->b));
	assert_int_equal(ksc_depbin_parse(b->b, b->n, &db), 0);
	assert_int_equal(ksc_depbin_lookup(&db, key, &v), 1);
	assert_string_equal(v.value, "deep");
	assert_int_equal(ksc_depbin_count(&db, &keys, &values), -ELOOP);
	free(key);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dep_as_text),
		cmocka_unit_test(test_symbols_as_text),
		cmocka_unit_test(test_every_cut),
		cmocka_unit_test(test_made),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_deep),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
