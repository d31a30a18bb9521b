// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod's binary indexes, modules.dep.bin and modules.symbols.bin, read as modprobe reads
 * them (kmod's index format, libkmod/libkmod-index.c): a trie whose keys are module names
 * ("kvm_amd" -> "kernel/arch/x86/kvm/kvm-amd.ko.xz: kernel/arch/x86/kvm/kvm.ko.xz ...")
 * or "symbol:NAME" (-> the owner's module name), each key with its values in order of
 * priority.
 *
 * The format, from depmod's writer (tools/depmod.c, index_write()): three big-endian
 * 32-bit words, magic 0xB007F457, version 0x00020001 (major 2), the root node's offset
 * word. An offset word is a node's position in its low 28 bits and in its high 4 what
 * the node holds: 0x80000000 a prefix (a NUL-terminated string: the key's next bytes),
 * 0x20000000 children (first and last key byte, 7-bit, then last - first + 1 offset
 * words, 0 for none), 0x40000000 values (a count, then for each a priority word and a
 * NUL-terminated string), in that order. A lookup follows the key: the prefix must match,
 * then the child of the next byte, until the key ends at a node with values.
 *
 * Written here rather than taken from libkmod: libkmod-dev's public API answers these
 * lookups only through a struct kmod_ctx over the module folder
 * (kmod_module_new_from_lookup("symbol:NAME"), kmod_module_get_dependencies()), and in
 * kmod 30 (Debian 12) a symbol lookup is a wildcard search (index_searchwild()) that
 * follows every child of a node whose prefix holds a '*', '?' or '[' without bounding
 * the depth or the nodes visited, so a trie of a tree we are asked to judge could recurse
 * without end (a 20-byte modules.symbols.bin whose root, of prefix "*", is its own child
 * makes kmod 30's `modprobe -d ROOT --show-depends symbol:X` die of SIGSEGV); with its
 * indexes loaded it maps the files (a file cut while mapped raises SIGBUS) and reads
 * prefixes with strlen() past the mapping's end. It has no way to count the keys of
 * modules.dep.bin either (only kmod_dump_index() to a file descriptor), which proving
 * modules.dep current needs. Here the file is read whole into memory once (at
 * most KSC_TEXT_MAX bytes), every offset is checked against its size, a lookup takes one
 * node per byte of its key (it cannot loop), and a count of every key visits each node
 * at most once: a node reached twice (a trie is a tree) or past KSC_DEPBIN_DEPTH levels
 * is an error. Nodes may come in any order: kmod 30's depmod writes the children first
 * and the root last, newer ones the root first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readers/readers.h"
#include "util/array.h"

#define DEPBIN_MAGIC 0xB007F457u
#define DEPBIN_MAJOR 0x0002u
#define DEPBIN_HEADER 12u
#define NODE_PREFIX 0x80000000u
#define NODE_VALUES 0x40000000u
#define NODE_CHILDS 0x20000000u
#define NODE_MASK 0x0FFFFFFFu
#define CHILD_MAX 128u

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One node of the trie, its parts pointing into the file's bytes. */
struct node {
	uint32_t off;
	const char *prefix; /* "" when none */
	size_t plen;
	unsigned int first, last; /* first > last: no children */
	const unsigned char *children;
	uint32_t n_values;
	const unsigned char *values;
};

/* The node of offset word `word`; -EINVAL when any part of it lies outside the file. */
static int read_node(const struct ksc_depbin *db, uint32_t word, struct node *n)
{
	uint32_t off = word & NODE_MASK;
	const unsigned char *end = db->data + db->size, *p;

	/* a node of no part (an empty index's root) may end the file */
	if (off < DEPBIN_HEADER || off > db->size || (off == db->size && (word & ~NODE_MASK)))
		return -EINVAL;
	p = db->data + off;
	*n = (struct node){ .off = off, .prefix = "", .first = 1, .last = 0 };
	if (word & NODE_PREFIX) {
		const unsigned char *z = memchr(p, '\0', (size_t)(end - p));
		if (!z)
			return -EINVAL;
		n->prefix = (const char *)p;
		n->plen = (size_t)(z - p);
		p = z + 1;
	}
	if (word & NODE_CHILDS) {
		if (end - p < 2 || p[0] > p[1] || p[1] >= CHILD_MAX)
			return -EINVAL;
		n->first = p[0];
		n->last = p[1];
		p += 2;
		size_t count = n->last - n->first + 1;
		if ((size_t)(end - p) < 4 * count)
			return -EINVAL;
		n->children = p;
		p += 4 * count;
	}
	if (word & NODE_VALUES) {
		if (end - p < 4)
			return -EINVAL;
		n->n_values = be32(p);
		p += 4;
		/* each value takes at least its priority word and a NUL */
		if (n->n_values > (size_t)(end - p) / 5)
			return -EINVAL;
		n->values = p;
	}
	return 0;
}

/* The child word of byte `ch`, 0 when there is none. */
static uint32_t child_word(const struct node *n, unsigned int ch)
{
	if (!n->children || ch < n->first || ch > n->last)
		return 0;
	return be32(n->children + 4 * (ch - n->first));
}

/* The value at *p (a priority word and a string), *p moved past it; -EINVAL past the end. */
static int next_value(const struct ksc_depbin *db, const unsigned char **p, const char **value,
		      size_t *len)
{
	const unsigned char *end = db->data + db->size, *z;

	if (end - *p < 5 || !(z = memchr(*p + 4, '\0', (size_t)(end - *p - 4))))
		return -EINVAL;
	*value = (const char *)*p + 4;
	*len = (size_t)(z - (*p + 4));
	*p = z + 1;
	return 0;
}

int ksc_depbin_parse(const void *data, size_t size, struct ksc_depbin *out)
{
	const unsigned char *p = data;

	*out = (struct ksc_depbin){ 0 };
	if (size < DEPBIN_HEADER || be32(p) != DEPBIN_MAGIC || be32(p + 4) >> 16 != DEPBIN_MAJOR)
		return -EINVAL;
	if (size > NODE_MASK + 1u)
		return -EFBIG; /* an offset of 28 bits could not reach the end */
	*out = (struct ksc_depbin){ .data = p, .size = size, .root = be32(p + 8) };
	return 0;
}

int ksc_depbin_open(const char *path, struct stat *st, struct ksc_depbin *out)
{
	char *data = NULL;
	size_t size = 0;
	int fd, r;

	*out = (struct ksc_depbin){ 0 };
	fd = ksc_open_read(AT_FDCWD, path, 0, st);
	if (fd < 0)
		return fd;
	r = ksc_read_fd(fd, st, KSC_TEXT_MAX, &data, &size);
	close(fd);
	if (r < 0)
		return r;
	r = ksc_depbin_parse(data, size, out);
	if (r < 0) {
		free(data);
		return r;
	}
	out->owned = data;
	return 0;
}

void ksc_depbin_fini(struct ksc_depbin *db)
{
	free(db->owned);
	*db = (struct ksc_depbin){ 0 };
}

int ksc_depbin_lookup(const struct ksc_depbin *db, const char *key, struct ksc_depbin_value *v)
{
	struct node n;
	uint32_t word = db->root;
	int r;

	*v = (struct ksc_depbin_value){ 0 };
	if (!db->data)
		return -EINVAL;
	for (const char *k = key; *k; k++)
		if ((unsigned char)*k >= CHILD_MAX)
			return -EILSEQ; /* depmod writes no such key */
	/* each turn takes at least one byte of the key: at most strlen(key) + 1 nodes */
	for (;;) {
		if ((r = read_node(db, word, &n)) < 0)
			return r;
		if (strncmp(n.prefix, key, n.plen) != 0)
			return 0;
		key += n.plen;
		if (!*key)
			break;
		word = child_word(&n, (unsigned char)*key++);
		if (!(word & NODE_MASK))
			return 0;
	}
	if (!n.n_values)
		return 0;
	const unsigned char *p = n.values;
	if ((r = next_value(db, &p, &v->value, &v->len)) < 0)
		return r;
	v->count = n.n_values;
	return 1;
}

/* A visit of every node: the path from the root, the nodes met, the counts. */
struct walker {
	const struct ksc_depbin *db;
	unsigned char *seen; /* a bit per byte of the file: a node starts there */
	struct frame {
		struct node n;
		unsigned int next; /* the next of its children to visit */
	} *path;
	size_t depth, cap, keys, values;
	ksc_depbin_value_fn fn;
	void *data;
};

/* Every value of node n in range, each handed to w->fn; their number counted. */
static int each_value(struct walker *w, const struct node *n)
{
	const unsigned char *p = n->values;
	const char *value;
	size_t len;

	for (uint32_t i = 0; i < n->n_values; i++) {
		int r = next_value(w->db, &p, &value, &len);
		if (r >= 0 && w->fn)
			r = w->fn(w->data, value, len);
		if (r < 0)
			return r;
	}
	w->values += n->n_values;
	return 0;
}

/* Push the node of `word` onto the path, once: a node reached twice is a loop. */
static int visit(struct walker *w, uint32_t word)
{
	struct node n;
	int r = read_node(w->db, word, &n);

	if (r < 0)
		return r;
	if (w->seen[n.off / 8] & (1u << (n.off % 8)))
		return -ELOOP; /* reached twice: a trie is a tree */
	w->seen[n.off / 8] |= (unsigned char)(1u << (n.off % 8));
	if (w->depth >= KSC_DEPBIN_DEPTH)
		return -ELOOP;
	if (n.n_values) {
		w->keys++;
		if ((r = each_value(w, &n)) < 0)
			return r;
	}
	if (array_reserve(w->path, w->cap, w->depth + 1, 64) < 0)
		return -ENOMEM;
	w->path[w->depth++] = (struct frame){ .n = n, .next = n.first };
	return 0;
}

int ksc_depbin_each(const struct ksc_depbin *db, ksc_depbin_value_fn fn, void *data,
		    size_t *keys, size_t *values)
{
	struct walker w = { .db = db, .fn = fn, .data = data };
	int r;

	*keys = *values = 0;
	if (!db->data)
		return -EINVAL;
	if (!(w.seen = calloc(db->size / 8 + 1, 1)))
		return -ENOMEM;
	r = visit(&w, db->root);
	while (r >= 0 && w.depth) {
		struct frame *f = &w.path[w.depth - 1];
		if (!f->n.children || f->next > f->n.last) {
			w.depth--;
			continue;
		}
		uint32_t word = child_word(&f->n, f->next++);
		if (word & NODE_MASK)
			r = visit(&w, word);
	}
	free(w.path);
	free(w.seen);
	*keys = w.keys;
	*values = w.values;
	return r < 0 ? r : 0;
}

int ksc_depbin_count(const struct ksc_depbin *db, size_t *keys, size_t *values)
{
	return ksc_depbin_each(db, NULL, NULL, keys, values);
}
