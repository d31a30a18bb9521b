// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One module file read into its facts record (ksc-modset-record.c): by the library's
 * reader and as kmod sees it, only the sections the readers need for a large
 * uncompressed file. A reader (struct ksc_mreader) is one thread's reused state; the
 * tree and the module set run one per worker.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "modset/modset.h"
#include "util/array.h"
#include "util/fileio.h"
#include "util/hash.h"

/*
 * Uncompressed files at least this large are read section by section: what the readers
 * look at is a fifth of a typical module (its code and relocations are the rest).
 */
#define SPARSE_MIN (32 * 1024)
/* Sparse images up to this size go into the worker's reused, zeroed buffer. */
#define SBUF_MAX (8 * 1024 * 1024)
/* Bytes read before the section headers in the same read (where .shstrtab usually is). */
#define TAIL_SLACK (4 * 1024)
/* Needed ranges closer than this are read with one read. */
#define GAP_MERGE (4 * 1024)

struct range {
	uint64_t off, len;
};

struct img {
	unsigned char *data;
	size_t size, map_size;
	bool mapped, sparse, borrowed; /* borrowed: a buffer of the worker's */
	struct range *r;
	size_t nr, cap;
	struct ksc_charge charge; /* of the readers' memory budget (readers.h) */
};

struct ksc_mreader {
	struct ksc_ctx *ctx; /* logs into msgs: what reading a file said goes into its record */
	struct ksc_msgbuf msgs;
	unsigned char
		*buf; /* reused for every file read whole: no fresh pages per module */
	size_t buf_cap;
	/*
	 * Reused for sparse images: all zero but while an image is in it (the bytes not
	 * loaded must read as zero, as in a fresh mapping); the loaded ranges are zeroed
	 * again when the image is freed. No mapping, page faults or TLB shootdowns per file.
	 */
	unsigned char *sbuf;
	size_t sbuf_cap;
	struct rbuf rb; /* records are built in it (ksc_krec_build()) */
	struct ksc_mread_stats st;
	int oom;
};

static void img_free(struct img *im)
{
	if (im->mapped && !im->borrowed)
		munmap(im->data, im->map_size);
	else if (im->mapped) /* the worker's sparse buffer: zero what was loaded */
		for (size_t i = 0; i < im->nr; i++)
			memset(im->data + im->r[i].off, 0, im->r[i].len);
	else if (!im->borrowed)
		free(im->data);
	ksc_charge_drop(&im->charge);
	free(im->r);
	memset(im, 0, sizeof(*im));
}

void ksc_msgbuf_log(void *data, int priority, const char *msg)
{
	struct ksc_msgbuf *b = data;
	char *s = strdup(msg);

	if (!s || array_reserve(b->prio, b->cap_prio, b->n + 1, 8) < 0 ||
	    array_reserve(b->text, b->cap, b->n + 1, 8) < 0) {
		free(s);
		b->oom = 1;
		return;
	}
	b->prio[b->n] = priority;
	b->text[b->n++] = s;
}

void ksc_msgbuf_clear(struct ksc_msgbuf *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->text[i]);
	b->n = 0;
}

void ksc_msgbuf_replay(const struct ksc_msgbuf *b, struct ksc_ctx *ctx)
{
	for (size_t i = 0; b && i < b->n; i++)
		ksc_log_again(ctx, b->prio[i], b->text[i]);
}

void ksc_msgbuf_fini(struct ksc_msgbuf *b)
{
	ksc_msgbuf_clear(b);
	free(b->prio);
	free(b->text);
	memset(b, 0, sizeof(*b));
}

uint64_t ksc_file_content_hash(int fd, uint64_t size)
{
	unsigned char buf[65536];
	uint64_t h = size, off = 0;

	while (off < size) {
		ssize_t k = pread(fd, buf, size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf),
				  (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return 0;
		h = ksc_hash64(buf, (size_t)k, h);
		off += (uint64_t)k;
	}
	return h | 1;
}

int ksc_mreader_new(struct ksc_mreader **out)
{
	struct ksc_mreader *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w || !(w->ctx = ksc_new())) {
		free(w);
		return -ENOMEM;
	}
	ksc_set_log_fn(w->ctx, ksc_msgbuf_log, &w->msgs);
	ksc_set_log_priority(w->ctx, KSC_LOG_WARNING);
	*out = w;
	return 0;
}

void ksc_mreader_free(struct ksc_mreader *w)
{
	if (!w)
		return;
	rbuf_fini(&w->rb);
	free(w->buf);
	if (w->sbuf)
		munmap(w->sbuf, w->sbuf_cap);
	ksc_msgbuf_fini(&w->msgs);
	ksc_unref(w->ctx);
	free(w);
}

bool ksc_mreader_stats(const struct ksc_mreader *w, struct ksc_mread_stats *st)
{
	*st = w->st;
	return w->oom || w->msgs.oom;
}

static bool img_loaded(void *data, uint64_t off, uint64_t len)
{
	const struct img *im = data;

	for (size_t i = 0; i < im->nr; i++)
		if (off >= im->r[i].off && off - im->r[i].off <= im->r[i].len &&
		    len <= im->r[i].len - (off - im->r[i].off))
			return true;
	return false;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* pread exactly len bytes; -EIO when the file is shorter than it said. */
static int pread_all(int fd, void *buf, size_t len, uint64_t off, struct ksc_mreader *w)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t k = pread(fd, p, len, (off_t)off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		p += k;
		len -= (size_t)k;
		off += (uint64_t)k;
		w->st.bytes_read += (uint64_t)k;
	}
	return 0;
}

static int img_range(struct img *im, int fd, uint64_t off, uint64_t len, struct ksc_mreader *w)
{
	if (len == 0 || off > im->size || len > im->size - off)
		return 0;
	if (img_loaded(im, off, len))
		return 0;
	if (array_reserve(im->r, im->cap, im->nr + 1, 32) < 0)
		return -ENOMEM;
	int ret = pread_all(fd, im->data + off, (size_t)len, off, w);
	if (ret < 0) {
		memset(im->data + off, 0, (size_t)len); /* a short read left bytes there */
		return ret;
	}
	im->r[im->nr++] = (struct range){ off, len };
	return 0;
}

static int img_full(struct img *im, int fd, size_t size, struct ksc_mreader *w)
{
	img_free(im);
	if (size <= SPARSE_MIN) {
		if (array_reserve(w->buf, w->buf_cap, size, 64 * 1024) < 0)
			return -ENOMEM;
		im->data = w->buf;
		im->borrowed = true;
	} else {
		int r = ksc_charge_take(&im->charge, size);
		im->data = r < 0 ? NULL : malloc(size);
		if (!im->data)
			return -ENOMEM;
	}
	im->size = size;
	return pread_all(fd, im->data, size, 0, w);
}

/* Sort the n ranges and join those less than `gap` bytes apart; the new count. */
static size_t merge_ranges(struct range *r, size_t n, uint64_t gap)
{
	size_t k = 0;

	if (n == 0)
		return 0;
	qsort(r, n, sizeof(*r), cmp_range);
	for (size_t i = 1; i < n; i++) {
		if (r[i].off <= r[k].off + r[k].len + gap) {
			uint64_t end = r[i].off + r[i].len;
			if (end > r[k].off + r[k].len)
				r[k].len = end - r[k].off;
		} else {
			r[++k] = r[i];
		}
	}
	return k + 1;
}

/* ksc_elf_plan_sections()'s add(): the ranges not loaded yet, into want[]. */
struct want {
	struct img *im;
	struct range *r;
	size_t n;
};

static int want_range(void *data, uint64_t off, uint64_t len)
{
	struct want *w = data;

	if (!img_loaded(w->im, off, len))
		w->r[w->n++] = (struct range){ off, len };
	return 0;
}

/*
 * The memory a sparse image of `size` bytes is loaded into: the reader's reused buffer,
 * or a mapping of its own. 1 when none can be had (the file is read whole), -ENOMEM.
 */
static int img_sparse_map(struct img *im, size_t size, struct ksc_mreader *w)
{
	if (size <= SBUF_MAX) {
		if (w->sbuf_cap < size) {
			size_t cap = w->sbuf_cap ? w->sbuf_cap : 1024 * 1024;
			while (cap < size)
				cap *= 2;
			void *b = mmap(NULL, cap, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (b == MAP_FAILED)
				return 1;
			if (w->sbuf)
				munmap(w->sbuf, w->sbuf_cap);
			w->sbuf = b;
			w->sbuf_cap = cap;
		}
		im->data = w->sbuf;
		im->map_size = w->sbuf_cap;
		im->borrowed = true;
	} else {
		im->map_size = size;
		im->data = mmap(NULL, size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (im->data == MAP_FAILED) {
			im->data = NULL;
			return 1;
		}
		/* what may be loaded into it: all of it, for a crafted section table */
		if (ksc_charge_take(&im->charge, size) < 0) {
			img_free(im);
			return -ENOMEM;
		}
	}
	im->mapped = true;
	im->sparse = true;
	im->size = size;
	return 0;
}

/*
 * A large uncompressed module: an anonymous mapping of the file's size (untouched pages
 * cost nothing), filled with only the byte ranges the two readers look at: the ELF
 * header, the section headers and their names, the symbol table and its strings, the
 * kernel's tables and the relocations of the export tables, and the last bytes (the
 * signature marker). When the layout needs anything else (export names outside
 * __ksymtab_strings, relocated CRC tables, extended section numbering), or is not
 * plain ELF, *full is set and nothing is kept. Bounds are left for the readers to
 * check: out-of-file sections are simply not loaded.
 */
static int img_sparse(struct img *im, int fd, size_t size, struct ksc_mreader *w, bool *full)
{
	unsigned char h[64];
	struct ksc_elf_plan plan;
	int ret;

	*full = true;
	if (size < 64 || pread_all(fd, h, 64, 0, w) < 0 ||
	    !ksc_elf_plan_open(&plan, h, sizeof(h), size))
		return 0;

	ret = img_sparse_map(im, size, w);
	if (ret != 0)
		return ret < 0 ? ret : 0;
	im->r = malloc(32 * sizeof(*im->r));
	if (!im->r) {
		img_free(im); /* nothing loaded yet */
		return -ENOMEM;
	}
	im->cap = 32;
	memcpy(im->data, h, 64);
	im->r[im->nr++] = (struct range){ 0, 64 };
	/*
	 * The section headers with what usually precedes them (.shstrtab), in one read.
	 */
	uint64_t hdr_end = plan.shdr_off + plan.shdr_len;
	uint64_t from = plan.shdr_off > TAIL_SLACK ? plan.shdr_off - TAIL_SLACK : 0;
	if (from < 64)
		from = 64;
	ret = img_range(im, fd, from, (hdr_end > from ? hdr_end : from + 1) - from, w);
	if (ret < 0)
		return ret;
	if (!ksc_elf_plan_names(&plan, im->data))
		return 0;
	ret = img_range(im, fd, plan.names_off, plan.names_len, w);
	if (ret < 0)
		return ret;
	/* The sections, and the tail (signature marker): nearby ranges read together. */
	struct want wt = { im, malloc((plan.v.shnum + 1) * sizeof(*wt.r)), 0 };
	if (!wt.r)
		return -ENOMEM;
	ret = ksc_elf_plan_sections(&plan, im->data, want_range, &wt);
	if (ret <= 0) {
		free(wt.r);
		return ret; /* 0: the layout needs the whole file */
	}
	uint64_t tail = size < 64 ? size : 64;
	if (!img_loaded(im, size - tail, tail))
		wt.r[wt.n++] = (struct range){ size - tail, tail };
	wt.n = merge_ranges(wt.r, wt.n, GAP_MERGE);
	ret = 0;
	for (size_t i = 0; i < wt.n && ret >= 0; i++)
		ret = img_range(im, fd, wt.r[i].off, wt.r[i].len, w);
	free(wt.r);
	if (ret < 0)
		return ret;
	im->nr = merge_ranges(im->r, im->nr, 0);
	*full = false;
	return 0;
}

/*
 * The library's reader on an image in memory, without copying it
 * (ksc_module_new_from_memory copies).
 */
static int parse_engine(struct ksc_ctx *ctx, const char *path, const struct img *im,
			enum ksc_compression comp, struct ksc_module **out)
{
	struct ksc_blob b = { .data = im->data, .size = im->size, .compression = comp };

	return ksc_module_new_from_blob(ctx, path, &b, out);
}

/* One module being read (read_module()): what each step hands the next. */
struct rmod {
	const struct ksc_mread *in;
	struct ksc_mreader *w;
	int fd;
	size_t size;
	struct img im;
	enum ksc_compression comp;
	struct kview kv;
	bool have_kv;
	struct ksc_module *mod;
	struct krec_src src;
	struct ksc_sig_digest digest; /* of the signed bytes: verifying reads nothing again */
	bool timing;
	uint64_t t0; /* the thread's CPU time at the last lap, with --timing */
	struct krec *rec;
};

/* The CPU time since the last lap, into *acc (with --timing). */
static void rlap(struct rmod *x, uint64_t *acc)
{
	uint64_t t1 = x->timing ? ksc_thread_ns() : 0;

	*acc += t1 - x->t0;
	x->t0 = t1;
}

/* Open the file and take its key. 1 when it cannot be read (said): record that. */
static int open_module(struct rmod *x)
{
	const char *path = x->in->path;
	struct krec_src *src = &x->src;
	struct stat st;

	x->fd = x->in->fd;
	errno = x->fd < 0 ? -x->in->open_err : 0;
	if (x->fd < 0 || fstat(x->fd, &st) < 0) {
		src->err = -errno;
		src->unreadable = true;
		ksc_err(x->w->ctx, "%s: %s", path, strerror(-src->err));
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		src->err = -EINVAL;
		src->unreadable = true;
		ksc_err(x->w->ctx, "%s: not a regular file", path);
		return 1;
	}
	src->file_size = (uint64_t)st.st_size;
	src->ino = (uint64_t)st.st_ino;
	src->mtime_ns = st_mtime_ns(&st);
	src->ctime_ns = st_ctime_ns(&st);
	if (src->mtime_ns > x->in->start_ns - KSC_RACY_NS)
		src->mtime_ns = KREC_RACY; /* could change again within the clock's granularity */
	else if (ksc_ctime_racy(&st, x->in->start_ns))
		src->content_hash = ksc_file_content_hash(x->fd, (uint64_t)st.st_size);
	x->size = (size_t)st.st_size;
	if ((uint64_t)st.st_size > KSC_MODULE_MAX) { /* a module, whatever its name */
		src->err = -EFBIG;
		ksc_err(x->w->ctx, "%s: too large (%llu bytes, limit %zu)", path,
			(unsigned long long)st.st_size, KSC_MODULE_MAX);
		return 1;
	}
	return 0;
}

/*
 * The image in memory: decompressed, or (a large uncompressed file) only the sections the
 * readers need. 0; 1 when it cannot be decompressed (src.err); -errno of a read.
 */
static int load_image(struct rmod *x)
{
	struct ksc_mreader *w = x->w;
	unsigned char magic[6] = { 0 };
	int r;

	if (x->size >= sizeof(magic) && (r = pread_all(x->fd, magic, sizeof(magic), 0, w)) < 0)
		return r;
	x->comp = ksc_detect_compression(magic, x->size < sizeof(magic) ? 0 : sizeof(magic));
	if (x->comp == KSC_COMPRESSION_NONE && x->size != 0) {
		bool full = true;
		if (x->size >= SPARSE_MIN) {
			r = img_sparse(&x->im, x->fd, x->size, w, &full);
			if (r < 0)
				return r;
		}
		if (full && (r = img_full(&x->im, x->fd, x->size, w)) < 0)
			return r;
		rlap(x, &w->st.ns_read);
		return 0;
	}
	/* read in pieces as it is decompressed, as a module (no bzImage unwrapped) */
	struct ksc_blob blob;
	r = ksc_blob_load_fd(w->ctx, x->in->path, x->fd, x->size, KSC_READ_MODULE, &blob);
	w->st.bytes_read += x->size;
	rlap(x, &w->st.ns_decompress);
	if (r < 0) {
		x->src.err = r;
		return 1;
	}
	x->im.data = blob.data;
	x->im.size = blob.size;
	x->im.charge = blob.charge; /* given back by img_free() */
	if (x->comp != KSC_COMPRESSION_NONE)
		w->st.bytes_decompressed += blob.size;
	return 0;
}

/*
 * The library's reader and kmod's view of the image. When kmod's view needs bytes a
 * sparse image lacks, everything is read, and both again. 0 (out of memory: w->oom), or
 * -errno of a read.
 */
static int parse_image(struct rmod *x)
{
	struct ksc_mreader *w = x->w;
	struct img *im = &x->im;
	int r;

	for (int attempt = 0; attempt < 2; attempt++) {
		/* The signature block, for ksc-sig.c (a sparse image has its last 64 bytes). */
		x->src.sigtail_len = ksc_sig_tail_len(im->data, im->size);
		if (im->sparse && x->src.sigtail_len &&
		    (r = img_range(im, x->fd, im->size - x->src.sigtail_len,
				   x->src.sigtail_len, w)) < 0)
			return r;
		x->src.sigtail = im->data + im->size - x->src.sigtail_len;
		r = parse_engine(w->ctx, x->in->path, im, x->comp, &x->mod);
		if (r == -ENOMEM)
			goto oom;
		x->src.err = r;
		r = ksc_kview_read(im->data, im->size, im->sparse ? img_loaded : NULL, im,
				   x->mod != NULL, &x->kv);
		if (r < 0)
			goto oom;
		x->have_kv = true;
		if (!x->kv.incomplete)
			return 0;
		ksc_kview_free(&x->kv);
		ksc_module_unref(x->mod);
		x->mod = NULL;
		x->have_kv = false;
		ksc_msgbuf_clear(&w->msgs);
		rlap(x, &w->st.ns_parse);
		r = img_full(im, x->fd, x->size, w);
		if (r < 0)
			return r;
		rlap(x, &w->st.ns_read);
	}
	return 0;
oom:
	w->oom = 1;
	return 0;
}

/* The facts record of what was read (or of why nothing could be), and the rest freed. */
static void make_record(struct rmod *x)
{
	struct ksc_mreader *w = x->w;
	struct krec_src *src = &x->src;
	struct krec *rec = NULL;

	if (x->fd >= 0)
		close(x->fd);
	src->mod = x->mod;
	src->kv = x->have_kv ? &x->kv : NULL;
	if (src->unreadable)
		src->mtime_ns = KREC_RACY;
	if (!x->mod && src->err == 0)
		src->err = -EINVAL;
	src->msg_prio = w->msgs.prio;
	src->msg_text = (const char *const *)w->msgs.text;
	src->n_msgs = w->msgs.n;
	if (x->mod && src->sigtail_len && !x->im.sparse &&
	    ksc_sig_digest_image(x->im.data, x->im.size, &x->digest) == 0 && x->digest.nid)
		src->sig_digest = &x->digest;
	if (ksc_krec_build(src, &rec) < 0)
		w->oom = 1;
	x->rec = rec;
	img_free(&x->im); /* the kmod view pointed into it */
	ksc_kview_free(&x->kv);
	ksc_module_unref(x->mod);
	if (x->timing)
		w->st.ns_parse += ksc_thread_ns() - x->t0;
}

struct krec *ksc_mreader_read(struct ksc_mreader *w, const struct ksc_mread *in)
{
	struct rmod x = { .in = in, .w = w, .fd = -1, .comp = KSC_COMPRESSION_NONE,
			  .timing = in->timing };
	int r;

	x.t0 = x.timing ? ksc_thread_ns() : 0;
	x.src = (struct krec_src){ .scratch = &w->rb, .relpath = in->relpath,
				   .mtime_ns = KREC_RACY };
	ksc_msgbuf_clear(&w->msgs);
	r = open_module(&x);
	if (r == 0)
		r = load_image(&x);
	if (r == 0)
		r = parse_image(&x);
	if (r < 0) {
		x.src.err = r;
		x.src.unreadable = true;
		x.src.mtime_ns = KREC_RACY;
		ksc_err(w->ctx, "%s: %s", in->path, strerror(-r));
	}
	make_record(&x);
	return x.rec;
}

/* Are dfd/name's bytes those the record was read from? */
static bool same_content(const struct krec_sum *o, int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	bool same = false;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		same = ksc_file_content_hash(fd, (uint64_t)st.st_size) == o->content_hash;
	close(fd);
	return same;
}

int ksc_krec_sum_read_error(const struct krec_sum *s)
{
	if (s->flags & KREC_F_ENGINE)
		return 0;
	return s->err ? s->err : -EINVAL;
}

enum ksc_module_kind ksc_krec_sum_kind(const struct krec_sum *s)
{
	return (enum ksc_module_kind)s->kind;
}

bool ksc_krec_sum_same_file(const struct krec_sum *o, int dfd, const char *name)
{
	struct stat st;

	return o && o->mtime_ns != KREC_RACY && fstatat(dfd, name, &st, 0) == 0 &&
	       S_ISREG(st.st_mode) && (uint64_t)st.st_size == o->file_size &&
	       (uint64_t)st.st_ino == o->ino && st_mtime_ns(&st) == o->mtime_ns &&
	       st_ctime_ns(&st) == o->ctime_ns && (!o->content_hash || same_content(o, dfd, name));
}
