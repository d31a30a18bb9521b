// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Types for `compat`: a kernel's BTF (a vmlinux with .BTF; Debian's headers ship one at
 * /usr/src/linux-headers-KVER/vmlinux), read with libbpf, and the changes of one exported
 * function or variable between two kernels: its prototype (compared resolved through
 * typedefs, parameter names ignored), and the structs it takes or returns through
 * pointers (members by name: removed, or of another type; offsets alone change nothing
 * for a rebuild). Both sides are printed as C by libbpf's btf_dump.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gelf.h>
#include <libelf.h>

#include "readers/readers.h"
#include "report/report.h"
#include "util/array.h"
#include "util/hash.h"

#define MAX_DEPTH 24 /* type chains followed when canonicalising */

struct ksc_compat_btf {
	struct btf *btf;
	struct hash funcs, vars, structs, typedefs; /* name -> type id (as a pointer, id + 1) */
	const struct ksc_compat_btf *base; /* a module's split BTF: its kernel's (not owned) */
	struct btf *distilled; /* an external module's own base (.BTF.base), owned */
	__u32 first;                      /* the first type id of this BTF's own */
};

/* A growing string. */
struct sbuf {
	char *s;
	size_t n, cap;
	bool oom;
};

static void sb_vadd(struct sbuf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int k;

	va_copy(aq, ap);
	k = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (k < 0 || b->oom || array_reserve(b->s, b->cap, b->n + (size_t)k + 1, 128) < 0) {
		b->oom = true;
		return;
	}
	vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
	b->n += (size_t)k;
}

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vadd(b, fmt, ap);
	va_end(ap);
}

static void dump_printf(void *ctx, const char *fmt, va_list ap)
{
	sb_vadd(ctx, fmt, ap);
}

static int index_name(struct hash *h, const struct btf *btf, const struct btf_type *t, __u32 id)
{
	const char *name = btf__name_by_offset(btf, t->name_off);

	if (!name || !name[0])
		return 0;
	/* keep the first: a global function before a static one of the same name is not
	 * guaranteed, but exported functions are unique in practice */
	return hash_add(h, name, (void *)(uintptr_t)(id + 1), 1) < 0 ? -ENOMEM : 0;
}

/* The names of b's own types (from b->first). 0 or -ENOMEM. */
static int index_types(struct ksc_compat_btf *b)
{
	int r = 0;

	for (__u32 id = b->first; r == 0 && id < btf__type_cnt(b->btf); id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);
		if (btf_is_func(t))
			r = index_name(&b->funcs, b->btf, t, id);
		else if (btf_is_var(t))
			r = index_name(&b->vars, b->btf, t, id);
		else if (btf_is_composite(t) && btf_vlen(t))
			r = index_name(&b->structs, b->btf, t, id);
		else if (btf_is_typedef(t))
			r = index_name(&b->typedefs, b->btf, t, id);
	}
	return r;
}

static struct ksc_compat_btf *btf_new(void)
{
	struct ksc_compat_btf *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	hash_init(&b->funcs);
	hash_init(&b->vars);
	hash_init(&b->structs);
	hash_init(&b->typedefs);
	b->first = 1;
	return b;
}

/* libbpf's own codes: not an ELF file with .BTF, or bad BTF */
static int btf_errno(int r)
{
	return r <= -__LIBBPF_ERRNO__START || r == -EINVAL ? -ENOEXEC : r;
}

/*
 * The end of an open of b: libbpf's result `r` as ours, then b's types indexed. 0 with
 * *out = b, or the -errno with b freed.
 */
static int btf_opened(struct ksc_compat_btf *b, int r, struct ksc_compat_btf **out)
{
	r = btf_errno(r);
	if (r == 0)
		r = index_types(b);
	if (r < 0) {
		ksc_compat_btf_free(b);
		return r;
	}
	*out = b;
	return 0;
}

int ksc_compat_btf_open(const char *path, struct ksc_compat_btf **out)
{
	struct ksc_compat_btf *b = btf_new();
	int r = 0;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	/* libbpf prints its own errors to stderr: not from a library (errno says why) */
	libbpf_print_fn_t prev = libbpf_set_print(NULL);
	b->btf = btf__parse(path, NULL);
	r = b->btf ? 0 : errno ? -errno : -EINVAL;
	libbpf_set_print(prev);
	return btf_opened(b, r, out);
}

/* The bytes of section `name` of the ELF image m[0..n), or NULL. */
static const void *elf_section(const unsigned char *m, size_t n, const char *name, size_t *size)
{
	Elf *e = elf_memory((char *)m, n);
	Elf_Scn *scn = NULL;
	size_t shstr;
	const void *p = NULL;

	if (!e)
		return NULL;
	if (elf_getshdrstrndx(e, &shstr) == 0) {
		while (!p && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *sn;
			if (!gelf_getshdr(scn, &sh) || !(sn = elf_strptr(e, shstr, sh.sh_name)) ||
			    strcmp(sn, name) != 0 || sh.sh_type == SHT_NOBITS ||
			    sh.sh_offset > n || sh.sh_size > n - sh.sh_offset)
				continue;
			p = m + sh.sh_offset;
			*size = sh.sh_size;
		}
	}
	elf_end(e);
	return p;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Split BTF on base: from the file itself when it is not compressed, else from its .BTF
 * bytes through a memory file (libbpf before 1.3 exports no btf__new_split()).
 */
static struct btf *parse_split(const char *path, bool plain, const void *sec, size_t size,
			       struct btf *base, int *err)
{
	libbpf_print_fn_t prev = libbpf_set_print(NULL);
	struct btf *btf = NULL;
	char fdpath[64];
	int fd = -1;

	errno = 0;
	if (plain) {
		btf = btf__parse_split(path, base);
	} else if ((fd = memfd_create("ksymcheck-btf", MFD_CLOEXEC)) >= 0 &&
		   write_all(fd, sec, size) == 0) {
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		btf = base ? btf__parse_raw_split(fdpath, base) : btf__parse_raw(fdpath);
	}
	*err = btf ? 0 : errno ? -errno : -EINVAL;
	if (fd >= 0)
		close(fd);
	libbpf_set_print(prev);
	return btf;
}

int ksc_compat_btf_open_split(struct ksc_ctx *ctx, const char *path,
			      const struct ksc_compat_btf *base, struct ksc_compat_btf **out)
{
	struct ksc_compat_btf *b;
	struct ksc_blob blob;
	const void *sec;
	size_t size = 0;
	int r;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	r = ksc_blob_load_as(ctx, path, NULL, 0, KSC_READ_MODULE, &blob);
	if (r < 0)
		return r;
	sec = elf_section(blob.data, blob.size, ".BTF", &size);
	if (!sec) {
		ksc_blob_free(&blob);
		return -ENOENT; /* built without BTF */
	}
	b = btf_new();
	if (!b) {
		ksc_blob_free(&blob);
		return -ENOMEM;
	}
	/* built out of tree (6.11 on): split on the distilled base it carries, not vmlinux */
	size_t dsize = 0;
	const void *dsec = elf_section(blob.data, blob.size, ".BTF.base", &dsize);
	if (dsec) {
		b->distilled = parse_split(NULL, false, dsec, dsize, NULL, &r);
		if (b->distilled)
			b->btf = parse_split(NULL, false, sec, size, b->distilled, &r);
	} else {
		b->btf = parse_split(path, blob.compression == KSC_COMPRESSION_NONE, sec, size,
				     base->btf, &r);
		b->base = base;
	}
	ksc_blob_free(&blob);
	if (r == 0)
		b->first = btf__type_cnt(b->distilled ? b->distilled : base->btf);
	return btf_opened(b, r, out);
}

void ksc_compat_btf_free(struct ksc_compat_btf *b)
{
	if (!b)
		return;
	hash_fini(&b->funcs);
	hash_fini(&b->vars);
	hash_fini(&b->structs);
	hash_fini(&b->typedefs);
	btf__free(b->btf);
	btf__free(b->distilled);
	free(b);
}

static __u32 lookup(const struct hash *h, const char *name)
{
	return (__u32)(uintptr_t)hash_find(h, name); /* id + 1, 0: none */
}

/* The same in b and then in its base: a type of either is a type id of b->btf. */
#define LOOKUP(b, table, name) \
	(lookup(&(b)->table, name) ? lookup(&(b)->table, name) \
				   : (b)->base ? lookup(&(b)->base->table, name) : 0)

/*
 * A type as a canonical string: typedefs resolved, structs, unions and enums by name,
 * parameter names and qualifiers left out. Two kernels agree on a type when their strings are equal.
 * With `into` (the other kernel), a typedef name it also has is resolved there: a
 * source that spells the type by that name gets the other kernel's meaning of it
 * (mempool_t stays a mempool_t when its struct is renamed).
 */
static void canon(const struct btf *btf, const struct ksc_compat_btf *into, __u32 id,
		  struct sbuf *b, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name;

	if (!t || depth > MAX_DEPTH) {
		sb_add(b, "?");
		return;
	}
	name = btf__name_by_offset(btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_UNKN: sb_add(b, "void"); break;
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT: sb_add(b, "%s", name); break;
	case BTF_KIND_PTR: canon(btf, into, t->type, b, depth + 1); sb_add(b, "*"); break;
	case BTF_KIND_TYPEDEF: {
		__u32 tid = into && name ? LOOKUP(into, typedefs, name) : 0;
		if (tid)
			canon(into->btf, NULL, btf__type_by_id(into->btf, tid - 1)->type, b, depth + 1);
		else
			canon(btf, into, t->type, b, depth + 1);
		break;
	}
	/* a qualifier added or dropped costs a warning at most, not the build */
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_FUNC: canon(btf, into, t->type, b, depth + 1); break;
	case BTF_KIND_ARRAY:
		canon(btf, into, btf_array(t)->type, b, depth + 1);
		sb_add(b, "[%u]", btf_array(t)->nelems);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FWD:
		/* a forward declaration names the struct or union of the same name */
		sb_add(b, "%s %s", btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t)) ? "union" : "struct",
		       name && name[0] ? name : "(anonymous)");
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: sb_add(b, "enum %s", name && name[0] ? name : "(anonymous)"); break;
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = btf_params(t);
		canon(btf, into, t->type, b, depth + 1);
		sb_add(b, "(");
		for (__u16 i = 0; i < btf_vlen(t); i++) {
			if (i)
				sb_add(b, ", ");
			if (!p[i].type)
				sb_add(b, "...");
			else
				canon(btf, into, p[i].type, b, depth + 1);
		}
		sb_add(b, ")");
		break;
	}
	default: sb_add(b, "kind%u", btf_kind(t));
	}
}

/* The declaration of type id as C, named `name` (may be ""). malloc'd, NULL on OOM. */
static char *c_decl(const struct btf *btf, __u32 id, const char *name)
{
	struct sbuf b = { 0 };
	struct btf_dump *d = btf_dump__new(btf, dump_printf, &b, NULL);
	struct btf_dump_emit_type_decl_opts o = { .sz = sizeof(o), .field_name = name };

	if (!d)
		return NULL;
	if (btf_dump__emit_type_decl(d, id, &o) < 0)
		b.oom = true;
	btf_dump__free(d);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s ? b.s : strdup("");
}

/* The type a symbol's FUNC or VAR names (a FUNC_PROTO or the variable's type), or 0. */
static __u32 symbol_type(const struct ksc_compat_btf *b, const char *sym, bool *func)
{
	__u32 id = LOOKUP(b, funcs, sym);

	*func = id != 0;
	if (!id)
		id = LOOKUP(b, vars, sym);
	return id ? btf__type_by_id(b->btf, id - 1)->type : 0;
}

/* The named struct or union a type reaches through pointers, modifiers and typedefs. */
static const char *pointee_struct(const struct btf *btf, __u32 id)
{
	for (int i = 0; i < MAX_DEPTH; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!t)
			return NULL;
		if (btf_is_composite(t)) {
			const char *n = btf__name_by_offset(btf, t->name_off);
			return n && n[0] ? n : NULL;
		}
		if (!btf_is_ptr(t) && !btf_is_mod(t) && !btf_is_typedef(t))
			return NULL;
		id = t->type;
	}
	return NULL;
}

/* Type ida of the old kernel o, spelled as the source would, against idb of n. */
static bool canon_equal(const struct ksc_compat_btf *o, __u32 ida, const struct ksc_compat_btf *n,
			__u32 idb)
{
	struct sbuf x = { 0 }, y = { 0 };
	bool eq;

	canon(o->btf, n, ida, &x, 0);
	canon(n->btf, NULL, idb, &y, 0);
	eq = !x.oom && !y.oom && x.n == y.n && (x.n == 0 || memcmp(x.s, y.s, x.n) == 0);
	free(x.s);
	free(y.s);
	return eq;
}

/* A member of a struct by name, or NULL: also one of an anonymous struct or union in it
 * (a source names it as a member of the outer one). */
static const struct btf_member *member(const struct btf *btf, const struct btf_type *t,
				       const char *name)
{
	static _Thread_local int depth;
	const struct btf_member *m = btf_members(t), *found = NULL;

	for (__u16 i = 0; !found && i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(btf, m[i].name_off);
		if (n && strcmp(n, name) == 0)
			return &m[i];
		if (n && n[0])
			continue;
		const struct btf_type *a = btf__type_by_id(btf, m[i].type);
		for (int j = 0; a && j < MAX_DEPTH && (btf_is_mod(a) || btf_is_typedef(a)); j++)
			a = btf__type_by_id(btf, a->type);
		if (a && btf_is_composite(a) && depth < MAX_DEPTH) {
			depth++;
			found = member(btf, a, name);
			depth--;
		}
	}
	return found;
}

/*
 * The members of struct `name` that the new kernel no longer has, or has with another
 * type: their names (removed, retyped: ','-separated) and their old and new
 * declarations ("; "-separated), to fn.member_changes.
 */
static int struct_changes(const struct ksc_compat_btf *o, const struct ksc_compat_btf *n,
			  const char *name, struct ksc_compat_type_fn fn, void *data)
{
	__u32 oid = LOOKUP(o, structs, name), nid = LOOKUP(n, structs, name);
	struct sbuf from = { 0 }, to = { 0 }, gone = { 0 }, retyped = { 0 };
	const struct btf_type *ot, *nt;
	int r = 0;

	if (!oid || !nid)
		return 0;
	ot = btf__type_by_id(o->btf, oid - 1);
	nt = btf__type_by_id(n->btf, nid - 1);
	const struct btf_member *m = btf_members(ot);
	for (__u16 i = 0; i < btf_vlen(ot); i++) {
		const char *mn = btf__name_by_offset(o->btf, m[i].name_off);
		if (!mn || !mn[0])
			continue;
		const struct btf_member *nm = member(n->btf, nt, mn);
		if (nm && canon_equal(o, m[i].type, n, nm->type))
			continue;
		char *od = c_decl(o->btf, m[i].type, mn), *nd = nm ? c_decl(n->btf, nm->type, mn) : NULL;
		struct sbuf *list = nm ? &retyped : &gone;
		sb_add(&from, "%s%s", from.n ? "; " : "", od ? od : mn);
		if (nm)
			sb_add(&to, "%s%s", to.n ? "; " : "", nd ? nd : mn);
		sb_add(list, "%s%s", list->n ? "," : "", mn);
		free(od);
		free(nd);
	}
	if (from.oom || to.oom || gone.oom || retyped.oom)
		r = -ENOMEM;
	else if (from.n)
		r = fn.member_changes(data, name, gone.s ? gone.s : "", retyped.s ? retyped.s : "",
				      from.s, to.s ? to.s : "");
	free(from.s);
	free(to.s);
	free(gone.s);
	free(retyped.s);
	return r;
}

int ksc_compat_btf_struct_changes(const struct ksc_compat_btf *o, const struct ksc_compat_btf *n,
				  const char *name, struct ksc_compat_type_fn fn, void *data)
{
	return struct_changes(o, n, name, fn, data);
}

bool ksc_compat_btf_has_struct(const struct ksc_compat_btf *b, const char *name)
{
	return LOOKUP(b, structs, name) != 0;
}

/* Both have struct `name`, with the same members of the same types. */
bool ksc_compat_btf_same_struct(const struct ksc_compat_btf *a, const struct ksc_compat_btf *b,
				const char *name)
{
	__u32 ia = LOOKUP(a, structs, name), ib = LOOKUP(b, structs, name);
	const struct btf_type *ta, *tb;

	if (!ia || !ib)
		return false;
	ta = btf__type_by_id(a->btf, ia - 1);
	tb = btf__type_by_id(b->btf, ib - 1);
	if (btf_vlen(ta) != btf_vlen(tb) || btf_kind(ta) != btf_kind(tb))
		return false;
	for (__u16 i = 0; i < btf_vlen(ta); i++) {
		const char *mn = btf__name_by_offset(a->btf, btf_members(ta)[i].name_off);
		const struct btf_member *mb = mn && mn[0] ? member(b->btf, tb, mn) : NULL;
		if (mn && mn[0] && (!mb || !canon_equal(a, btf_members(ta)[i].type, b, mb->type)))
			return false;
	}
	return true;
}

int ksc_compat_btf_own_structs(const struct ksc_compat_btf *b,
			       int (*fn)(void *data, const char *name), void *data)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < b->structs.n_buckets; i++) {
		void *v;
		const char *k = hash_slot_key(&b->structs, i, &v);
		if (k)
			r = fn(data, k);
	}
	return r;
}

/* The structs a prototype or variable type reaches, each once. */
static int reached_structs(const struct btf *btf, __u32 id, bool func, const char **v,
			   size_t max, size_t *n)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	__u32 ids[64];
	size_t k = 0;

	*n = 0;
	if (!t)
		return 0;
	if (func && btf_is_func_proto(t)) {
		ids[k++] = t->type;
		for (__u16 i = 0; i < btf_vlen(t) && k < 64; i++)
			ids[k++] = btf_params(t)[i].type;
	} else {
		ids[k++] = id;
	}
	for (size_t i = 0; i < k; i++) {
		const char *s = pointee_struct(btf, ids[i]);
		bool seen = false;
		for (size_t j = 0; s && j < *n; j++)
			seen |= strcmp(v[j], s) == 0;
		if (s && !seen && *n < max)
			v[(*n)++] = s;
	}
	return 0;
}

/* A pointer to void (qualifiers and typedefs aside). */
static bool void_pointer(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	for (int i = 0; t && i < MAX_DEPTH && (btf_is_mod(t) || btf_is_typedef(t)); i++)
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return false;
	id = t->type;
	for (int i = 0; i < MAX_DEPTH; i++) {
		if (!id)
			return true;
		t = btf__type_by_id(btf, id);
		if (!t || (!btf_is_mod(t) && !btf_is_typedef(t)))
			return false;
		id = t->type;
	}
	return false;
}

/* An object pointer (not to a function), qualifiers and typedefs aside. */
static bool object_pointer(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	for (int i = 0; t && i < MAX_DEPTH && (btf_is_mod(t) || btf_is_typedef(t)); i++)
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	for (int i = 0; t && i < MAX_DEPTH && (btf_is_mod(t) || btf_is_typedef(t)); i++)
		t = btf__type_by_id(btf, t->type);
	return t && !btf_is_func_proto(t);
}

/* The type id with modifiers and typedefs stripped. */
static const struct btf_type *resolved(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	for (int i = 0; t && i < MAX_DEPTH && (btf_is_mod(t) || btf_is_typedef(t)); i++)
		t = btf__type_by_id(btf, t->type);
	return t;
}

/* An integer, enum or floating type (a value converts to another implicitly). */
static bool arithmetic(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = id ? resolved(btf, id) : NULL;

	return t && (btf_is_int(t) || btf_is_any_enum(t) || btf_is_float(t));
}

/* Old and new types a value converts between without a diagnostic (-Werror's aside). */
static bool converts(const struct ksc_compat_btf *o, __u32 a, const struct ksc_compat_btf *n,
		     __u32 b)
{
	return canon_equal(o, a, n, b) || (arithmetic(o->btf, a) && arithmetic(n->btf, b)) ||
	       (a && b && void_pointer(n->btf, b) && object_pointer(o->btf, a));
}

/*
 * Does a call written for the old prototype still compile against the new one? The same
 * number of parameters, each of the same type (canon_equal()) or, new, a void pointer
 * where an object pointer was (any object pointer converts to it). The return type the
 * same.
 */
static bool proto_compatible(const struct ksc_compat_btf *o, __u32 oid,
			     const struct ksc_compat_btf *n, __u32 nid)
{
	const struct btf_type *ot = btf__type_by_id(o->btf, oid), *nt = btf__type_by_id(n->btf, nid);

	if (canon_equal(o, oid, n, nid))
		return true;
	if (!ot || !nt || !btf_is_func_proto(ot) || !btf_is_func_proto(nt) ||
	    btf_vlen(ot) != btf_vlen(nt))
		return false;
	/* a call of a void function uses no value: any new return type compiles */
	if (ot->type && !converts(o, ot->type, n, nt->type))
		return false;
	for (__u16 i = 0; i < btf_vlen(ot); i++) {
		__u32 a = btf_params(ot)[i].type, b = btf_params(nt)[i].type;
		if (!(a == 0 && b == 0) && !(a && b && converts(o, a, n, b)))
			return false;
	}
	return true;
}

bool ksc_compat_btf_same_symbol_type(const struct ksc_compat_btf *o, const char *osym,
				     const struct ksc_compat_btf *n, const char *nsym)
{
	bool ofunc, nfunc;
	__u32 oid = symbol_type(o, osym, &ofunc), nid = symbol_type(n, nsym, &nfunc);

	return oid && nid && ofunc == nfunc && canon_equal(o, oid, n, nid);
}

int ksc_compat_btf_compare(const struct ksc_compat_btf *o, const struct ksc_compat_btf *n,
			   const char *sym, struct ksc_compat_type_fn fn, void *data)
{
	bool ofunc, nfunc;
	__u32 oid = symbol_type(o, sym, &ofunc), nid = symbol_type(n, sym, &nfunc);
	const char *structs[64];
	size_t ns;
	int r = 0;

	if (!oid || !nid || ofunc != nfunc)
		return 0; /* not described on both sides: nothing to say */
	if (!proto_compatible(o, oid, n, nid)) {
		char *od = c_decl(o->btf, oid, sym), *nd = c_decl(n->btf, nid, sym);
		r = od && nd ? fn.type_changed(data, ofunc, od, nd) : -ENOMEM;
		free(od);
		free(nd);
		if (r < 0)
			return r;
	}
	reached_structs(o->btf, oid, ofunc, structs, 64, &ns);
	for (size_t i = 0; r == 0 && i < ns; i++)
		r = struct_changes(o, n, structs[i], fn, data);
	return r;
}
