// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading module files into memory: plain, or compressed with xz (liblzma), zstd (libzstd)
 * or gzip (zlib), recognised by magic bytes as kmod's libkmod-file.c does, never by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "readers/readers.h"
#include "util/array.h"

/*
 * The memory that files read or decompressed may hold at once (struct ksc_charge),
 * shared by every thread of the process: without it each worker may hold a file's whole
 * limit (-j16 on bombs: 4 GiB). Modules, kernel images and plain files read whole are
 * all counted, until the caller frees them. A thread that holds nothing waits for room;
 * one whose decompression buffer would grow past it waits for another to finish. When
 * every other thread holding some waits too, waiting would never end: a thread on its
 * first attempt then gives its buffer back, waits until no thread holds any, and
 * decompresses the file again; on that second attempt it waits for the others to give
 * way, and goes on past the budget (up to the file's own limit) only when every holder is
 * on its second attempt. So no real file is refused for the budget and none is
 * decompressed more than twice. A thread that takes a second share while it holds one
 * (a file read while another is in memory) never waits for it: it could wait for itself.
 */
#define BUDGET ((size_t)256 << 20)

static struct {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	size_t used;                   /* bytes counted */
	unsigned int holders, waiting; /* threads holding some; of them, waiting */
	unsigned int waiting_first;    /* of those, on their first attempt */
} budget = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0 };

/* What this thread holds of the budget, all its shares together. */
static _Thread_local size_t thread_held;

/* The grown share's loop: see BUDGET. 0 or -EAGAIN (start again). */
static int grow_wait(size_t more, bool last)
{
	while (budget.used + more > BUDGET && budget.holders > 1) {
		bool stuck = budget.waiting + 1 == budget.holders;
		if (stuck && !last)
			return -EAGAIN;
		if (stuck && budget.waiting_first == 0)
			break; /* every holder is on its second attempt: go on */
		if (stuck) /* a first attempt waiting: wake it to give way */
			pthread_cond_broadcast(&budget.freed);
		budget.waiting++;
		budget.waiting_first += !last;
		pthread_cond_wait(&budget.freed, &budget.lock);
		budget.waiting--;
		budget.waiting_first -= !last;
	}
	return 0;
}

/*
 * Count c up to `total` bytes (more than it holds), once there is room. 0, or -EAGAIN
 * (only for a share that grows, on its first attempt): give back, start again.
 */
static int charge_to(struct ksc_charge *c, size_t total)
{
	size_t more = total - c->counted;
	int r = 0;

	pthread_mutex_lock(&budget.lock);
	if (c->counted == 0 && thread_held == 0) {
		c->nested = false;
		while (budget.used + more > BUDGET && budget.holders > 0)
			pthread_cond_wait(&budget.freed, &budget.lock);
		budget.holders++;
	} else if (c->counted == 0) {
		c->nested = true;
	} else if (!c->nested) {
		r = grow_wait(more, c->retry);
	}
	if (r == 0) {
		budget.used += more;
		c->counted = total;
		thread_held += more;
	}
	pthread_mutex_unlock(&budget.lock);
	return r;
}

/* Count c down to `total` bytes (0: give it all back). */
static void charge_less(struct ksc_charge *c, size_t total)
{
	if (total >= c->counted)
		return;
	pthread_mutex_lock(&budget.lock);
	budget.used -= c->counted - total;
	thread_held -= c->counted - total;
	c->counted = total;
	if (thread_held == 0)
		budget.holders--;
	pthread_cond_broadcast(&budget.freed);
	pthread_mutex_unlock(&budget.lock);
}

int ksc_charge_take(struct ksc_charge *c, size_t bytes)
{
	*c = (struct ksc_charge){ 0 };
	return bytes ? charge_to(c, bytes) : 0;
}

void ksc_charge_drop(struct ksc_charge *c)
{
	charge_less(c, 0);
}

/* Wait until no thread holds any of the budget. */
static void budget_wait_idle(void)
{
	pthread_mutex_lock(&budget.lock);
	while (budget.holders > 0)
		pthread_cond_wait(&budget.freed, &budget.lock);
	pthread_mutex_unlock(&budget.lock);
}

/*
 * Give back a share whose buffer was just freed. A large one given back unused (a bomb,
 * a second attempt) is also returned to the system: the next thread would not reuse it
 * if it came from another arena.
 */
static void charge_give(struct ksc_charge *c, bool unused)
{
#ifdef __GLIBC__
	if (unused && c->counted >= ((size_t)32 << 20))
		malloc_trim(0);
#endif
	charge_less(c, 0);
}

static const unsigned char magic_xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
static const unsigned char magic_zstd[] = { 0x28, 0xb5, 0x2f, 0xfd };
static const unsigned char magic_gzip[] = { 0x1f, 0x8b };

KSC_EXPORT const char *ksc_compression_name(enum ksc_compression c)
{
	switch (c) {
	case KSC_COMPRESSION_NONE:
		return "none";
	case KSC_COMPRESSION_GZIP:
		return "gzip";
	case KSC_COMPRESSION_XZ:
		return "xz";
	case KSC_COMPRESSION_ZSTD:
		return "zstd";
	}
	return "unknown";
}

enum ksc_compression ksc_detect_compression(const unsigned char *p, size_t n)
{
	if (n >= sizeof(magic_xz) && memcmp(p, magic_xz, sizeof(magic_xz)) == 0)
		return KSC_COMPRESSION_XZ;
	if (n >= sizeof(magic_zstd) && memcmp(p, magic_zstd, sizeof(magic_zstd)) == 0)
		return KSC_COMPRESSION_ZSTD;
	if (n >= sizeof(magic_gzip) && memcmp(p, magic_gzip, sizeof(magic_gzip)) == 0)
		return KSC_COMPRESSION_GZIP;
	return KSC_COMPRESSION_NONE;
}

/*
 * A decompressor's input: bytes in memory, all at once, or a range of a file read in
 * pieces of INPUT_STEP (a compressed file is never held whole: a sparse one cannot make
 * its holes cost memory).
 */
#define INPUT_STEP ((size_t)1 << 20)
struct input {
	const unsigned char *mem; /* NULL: read from fd */
	size_t mem_len;
	int fd;
	uint64_t off, end; /* the file's bytes still to read */
	unsigned char *buf;
	bool done; /* nothing more to come */
};

/*
 * More input: the `keep` bytes not used yet at *p are kept (moved to the start of the
 * buffer) and new bytes put after them; *p and *avail describe them all. Sets in->done
 * when nothing more came. 0 or -errno.
 */
static int input_more(struct input *in, const unsigned char **p, size_t *avail)
{
	if (in->mem) {
		if (!in->done && *p == NULL) {
			*p = in->mem;
			*avail = in->mem_len;
		}
		in->done = true;
		return 0;
	}
	if (!in->buf && !(in->buf = malloc(INPUT_STEP + 16)))
		return -ENOMEM;
	size_t keep = *avail;
	if (keep > 16)
		return 0; /* enough left: the decoder did not need more */
	if (keep)
		memmove(in->buf, *p, keep);
	size_t want = INPUT_STEP;
	if (in->end - in->off < want)
		want = (size_t)(in->end - in->off);
	size_t got = 0;
	while (got < want) {
		ssize_t k = pread(in->fd, in->buf + keep + got, want - got, (off_t)(in->off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break; /* shrank while read */
		got += (size_t)k;
	}
	in->off += got;
	if (got == 0)
		in->done = true;
	*p = in->buf;
	*avail = keep + got;
	return 0;
}

/*
 * A growing output buffer for the decompressors, of at most `limit` bytes of output (and
 * room for one more step of a decompressor, so that exactly `limit` is accepted).
 */
struct outbuf {
	unsigned char *data;
	size_t size, cap, limit;
	bool image;               /* the limit is the kernel images' */
	struct ksc_charge charge; /* of the shared budget */
};

#define OUTBUF_STEP ((size_t)1 << 18)

static int outbuf_reserve(struct outbuf *o, size_t want)
{
	if (o->size > o->limit)
		return -EFBIG;
	if (o->cap - o->size >= want)
		return 0;
	size_t cap = o->cap ? o->cap : 1 << 16;
	while (cap - o->size < want) {
		if (cap >= o->limit + OUTBUF_STEP)
			return -EFBIG;
		cap = cap * 2 > o->limit + OUTBUF_STEP ? o->limit + OUTBUF_STEP : cap * 2;
	}
	/* While the block is moved, the old one and the new one are both held. */
	int r = charge_to(&o->charge, o->charge.counted + cap);
	if (r < 0)
		return r;
	/* exactly `cap` bytes, as charged: no capacity known yet and `cap` the least */
	void *d = o->data;
	size_t got = 0;
	r = array_reserve_(&d, &got, cap, 1, cap);
	charge_less(&o->charge, r == 0 ? cap : o->cap);
	if (r < 0)
		return -ENOMEM;
	o->data = d;
	o->cap = cap;
	return 0;
}

static void outbuf_fail(struct ksc_ctx *ctx, const char *path, const struct outbuf *o, int r)
{
	if (r == -EFBIG)
		ksc_err(ctx, "%s: decompresses to more than %zu MiB (limit for %s)", path,
			o->limit >> 20, o->image ? "kernel images" : "modules");
	else if (r == -EAGAIN)
		return; /* not a failure: started again */
	else if (r == -ENOMEM)
		ksc_err(ctx, "%s: out of memory", path);
	else
		ksc_err(ctx, "%s: %s", path, strerror(-r));
}

/*
 * `single`: decode one stream and ignore what follows (a bzImage payload ends with the
 * 4-byte uncompressed size); otherwise concatenated streams are read, as xz(1) does.
 */
static int unxz(struct ksc_ctx *ctx, const char *path, struct input *in, struct outbuf *o,
		bool single)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret lr = lzma_stream_decoder(&s, UINT64_MAX, single ? 0 : LZMA_CONCATENATED);

	if (lr != LZMA_OK)
		return lr == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
	for (;;) {
		int r = outbuf_reserve(o, 1 << 16);
		if (r == 0 && s.avail_in == 0 && !in->done)
			r = input_more(in, &s.next_in, &s.avail_in);
		if (r < 0) {
			lzma_end(&s);
			outbuf_fail(ctx, path, o, r);
			return r;
		}
		s.next_out = o->data + o->size;
		s.avail_out = o->cap - o->size;
		lr = lzma_code(&s, in->done ? LZMA_FINISH : LZMA_RUN);
		o->size = o->cap - s.avail_out;
		if (lr == LZMA_STREAM_END)
			break;
		if (lr != LZMA_OK) {
			const char *why = lr == LZMA_DATA_ERROR ? "corrupt stream" :
					  lr == LZMA_BUF_ERROR ? "truncated stream" :
					  lr == LZMA_FORMAT_ERROR ? "not an xz stream" :
					  lr == LZMA_MEM_ERROR ? "out of memory" :
					  lr == LZMA_OPTIONS_ERROR ? "unsupported options" :
								     "decompression failed";
			lzma_end(&s);
			ksc_err(ctx, "%s: xz: %s", path, why);
			return lr == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
		}
	}
	lzma_end(&s);
	return 0;
}

static int unzstd(struct ksc_ctx *ctx, const char *path, struct input *in, struct outbuf *o,
		  bool single)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	const unsigned char *ip = NULL;
	size_t avail = 0, ret = 1;
	int r = 0;

	if (!ds)
		return -ENOMEM;
	for (;;) {
		if (avail == 0 && !in->done && (r = input_more(in, &ip, &avail)) < 0)
			break;
		if (avail == 0 && in->done)
			break;
		if ((r = outbuf_reserve(o, ZSTD_DStreamOutSize())) < 0)
			break;
		ZSTD_inBuffer ib = { ip, avail, 0 };
		ZSTD_outBuffer ob = { o->data, o->cap, o->size };
		ret = ZSTD_decompressStream(ds, &ob, &ib);
		o->size = ob.pos;
		ip += ib.pos;
		avail -= ib.pos;
		if (ZSTD_isError(ret)) {
			ksc_err(ctx, "%s: zstd: %s", path, ZSTD_getErrorName(ret));
			ZSTD_freeDStream(ds);
			return -EINVAL;
		}
		if (ret == 0 && single)
			break; /* one frame; trailing bytes are not ours */
		if (ret != 0 && avail == 0 && in->done && ob.pos < ob.size)
			break; /* needs more input that does not exist */
	}
	if (r < 0) {
		ZSTD_freeDStream(ds);
		outbuf_fail(ctx, path, o, r);
		return r;
	}
	/* ret != 0 at the end of the input: the last frame is incomplete. */
	while (ret != 0) {
		r = outbuf_reserve(o, ZSTD_DStreamOutSize());
		if (r == -EAGAIN) {
			ZSTD_freeDStream(ds);
			return r;
		}
		if (r < 0)
			break;
		ZSTD_inBuffer ib = { ip, avail, 0 };
		ZSTD_outBuffer ob = { o->data, o->cap, o->size };
		size_t before = ob.pos;
		ret = ZSTD_decompressStream(ds, &ob, &ib);
		o->size = ob.pos;
		if (ZSTD_isError(ret) || ob.pos == before)
			break;
	}
	ZSTD_freeDStream(ds);
	if (ret != 0) {
		ksc_err(ctx, "%s: zstd: %s", path,
			ZSTD_isError(ret) ? ZSTD_getErrorName(ret) : "truncated stream");
		return -EINVAL;
	}
	return 0;
}

/* After a gzip member: another member follows (1), the input ends (0), or garbage (-1). */
static int gzip_next_member(struct input *in, z_stream *z, const unsigned char **ip,
			    size_t *avail, int *err)
{
	*ip = z->next_in;
	*avail = z->avail_in;
	if (*avail < 2 && !in->done && (*err = input_more(in, ip, avail)) < 0)
		return -1;
	if (*avail == 0)
		return 0;
	return *avail >= 2 && (*ip)[0] == 0x1f && (*ip)[1] == 0x8b ? 1 : -1;
}

static int ungzip(struct ksc_ctx *ctx, const char *path, struct input *in, struct outbuf *o,
		  bool single)
{
	const unsigned char *ip = NULL;
	size_t avail = 0;
	z_stream z;
	int zr, r = 0;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	for (;;) {
		r = outbuf_reserve(o, 1 << 16);
		if (r == 0 && avail == 0 && !in->done)
			r = input_more(in, &ip, &avail);
		if (r < 0) {
			inflateEnd(&z);
			outbuf_fail(ctx, path, o, r);
			return r;
		}
		/* zlib counts in uInt: feed at most UINT_MAX per call. */
		z.next_in = (unsigned char *)ip;
		z.avail_in = (uInt)(avail > UINT_MAX ? UINT_MAX : avail);
		z.next_out = o->data + o->size;
		z.avail_out = (uInt)((o->cap - o->size) > UINT_MAX ? UINT_MAX : o->cap - o->size);
		size_t in_before = z.avail_in, out_before = z.avail_out;
		zr = inflate(&z, Z_NO_FLUSH);
		o->size += out_before - z.avail_out;
		ip += in_before - z.avail_in;
		avail -= in_before - z.avail_in;
		if (zr == Z_STREAM_END) {
			if (single)
				break;
			/* Concatenated members, as gzread() accepts. */
			int next = gzip_next_member(in, &z, &ip, &avail, &r);
			if (next > 0) {
				inflateReset(&z);
				continue;
			}
			if (next == 0)
				break;
			inflateEnd(&z);
			if (r < 0) {
				outbuf_fail(ctx, path, o, r);
				return r;
			}
			/* Bytes after the last member: refused, as xz and zstd refuse them. */
			ksc_err(ctx, "%s: gzip: %llu bytes of trailing garbage", path,
				(unsigned long long)(avail + (in->mem ? 0 : in->end - in->off)));
			return -EINVAL;
		}
		if (zr == Z_OK)
			continue;
		if (zr == Z_BUF_ERROR && avail == 0 && in->done) {
			inflateEnd(&z);
			ksc_err(ctx, "%s: gzip: truncated stream", path);
			return -EINVAL;
		}
		if (zr != Z_BUF_ERROR) {
			inflateEnd(&z);
			ksc_err(ctx, "%s: gzip: %s", path, z.msg ? z.msg : "corrupt stream");
			return zr == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
		}
	}
	inflateEnd(&z);
	return 0;
}

/*
 * x86 bzImage (Documentation/arch/x86/boot.rst): "HdrS" at 0x202, setup_sects at 0x1f1
 * (0 means 4), and since protocol 2.08 payload_offset/payload_length at 0x248/0x24c,
 * relative to the protected-mode code that starts after the setup sectors.
 */
static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define BZ_HEAD 0x250
static bool bzimage_payload(const unsigned char *p, size_t head, uint64_t n, size_t *off,
			    size_t *len)
{
	if (head < BZ_HEAD || memcmp(p + 0x202, "HdrS", 4) != 0)
		return false;
	unsigned int version = (unsigned int)p[0x206] | (unsigned int)p[0x207] << 8;
	if (version < 0x208)
		return false;
	size_t setup = p[0x1f1] ? p[0x1f1] : 4;
	size_t start = (setup + 1) * 512;
	uint64_t o = (uint64_t)start + le32(p + 0x248), l = le32(p + 0x24c);
	if (o > n || l > n - o || l == 0)
		return false;
	*off = (size_t)o;
	*len = (size_t)l;
	return true;
}

int ksc_open_regular(struct ksc_ctx *ctx, int dfd, const char *name, const char *path,
		     struct stat *st, bool fifo_ok)
{
	int fd = ksc_open_read(dfd, name, fifo_ok ? KSC_OPEN_FIFO : 0, st);

	if (fd == -KSC_ENOTREG) {
		ksc_err(ctx, "%s: not a regular file (%s)", path, ksc_file_kind(st->st_mode));
		return -EINVAL;
	}
	if (fd < 0 && fd != -EISDIR)
		ksc_err(ctx, "%s: %s", path, strerror(-fd));
	return fd;
}

size_t ksc_read_limit(enum ksc_read_as as)
{
	return as == KSC_READ_IMAGE ? KSC_IMAGE_MAX : KSC_MODULE_MAX;
}

static void too_large(struct ksc_ctx *ctx, const char *path, uint64_t n, size_t limit)
{
	ksc_err(ctx, "%s: too large (%llu bytes, limit %zu)", path, (unsigned long long)n,
		limit);
}

/* A file's size before anything is read from it: within the limit of `as`, not empty. */
static int size_ok(struct ksc_ctx *ctx, const char *path, uint64_t size, enum ksc_read_as as)
{
	size_t limit = ksc_read_limit(as);

	if (size > limit) {
		too_large(ctx, path, size, limit);
		return -EFBIG;
	}
	if (size == 0) {
		ksc_err(ctx, "%s: empty file", path);
		return -ENOEXEC;
	}
	return 0;
}

/* A bzImage whose payload is none of the compressions read. */
static int bz_unsupported(struct ksc_ctx *ctx, const char *path)
{
	ksc_err(ctx, "%s: bzImage payload compressed with an unsupported method (only gzip, xz and zstd are read)",
		path);
	return -EOPNOTSUPP;
}

/* Decompress `in` (compression c) into out, within the limit and the budget. 0 or -errno. */
static int decompress(struct ksc_ctx *ctx, const char *path, struct input *in,
		      enum ksc_compression c, bool single, enum ksc_read_as as,
		      struct ksc_blob *out)
{
	const struct input start = *in;
	struct outbuf o = { .limit = ksc_read_limit(as), .image = as == KSC_READ_IMAGE };
	int r;

again:
	switch (c) {
	case KSC_COMPRESSION_XZ:
		r = unxz(ctx, path, in, &o, single);
		break;
	case KSC_COMPRESSION_ZSTD:
		r = unzstd(ctx, path, in, &o, single);
		break;
	case KSC_COMPRESSION_GZIP:
		r = ungzip(ctx, path, in, &o, single);
		break;
	default:
		r = -EOPNOTSUPP;
	}
	if (r == -EAGAIN) { /* the budget: give back, wait until it is free, once more */
		free(o.data);
		charge_give(&o.charge, true);
		budget_wait_idle();
		o = (struct outbuf){ .limit = o.limit, .image = o.image };
		o.charge.retry = true;
		unsigned char *buf = in->buf;
		*in = start;
		in->buf = buf;
		goto again;
	}
	if (r == 0 && o.size > o.limit) { /* the last step went past it */
		r = -EFBIG;
		outbuf_fail(ctx, path, &o, r);
	}
	if (r == 0 && o.size == 0) {
		ksc_err(ctx, "%s: %s: decompresses to nothing", path, ksc_compression_name(c));
		r = -ENOEXEC;
	}
	if (r < 0) {
		free(o.data);
		charge_give(&o.charge, true);
		return r;
	}
	out->data = o.data;
	out->size = o.size;
	out->compression = c;
	out->charge = o.charge; /* held until ksc_blob_free() */
	return 0;
}

/* The whole of a plain file into out, counted in the budget. */
static int read_plain(struct ksc_ctx *ctx, const char *path, int fd, size_t size,
		      struct ksc_blob *out)
{
	struct ksc_charge c;
	int r = ksc_charge_take(&c, size);
	unsigned char *buf = r < 0 ? NULL : malloc(size ? size : 1);
	size_t n = 0;

	if (!buf) {
		ksc_charge_drop(&c);
		ksc_err(ctx, "%s: out of memory", path);
		return -ENOMEM;
	}
	while (n < size) {
		ssize_t k = pread(fd, buf + n, size - n, (off_t)n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			free(buf);
			ksc_charge_drop(&c);
			ksc_err(ctx, "%s: %s", path, strerror(-r));
			return r;
		}
		if (k == 0)
			break; /* shrank while we read: take what is there */
		n += (size_t)k;
	}
	out->data = buf;
	out->size = n;
	out->compression = KSC_COMPRESSION_NONE;
	out->charge = c;
	return 0;
}

int ksc_blob_load_fd(struct ksc_ctx *ctx, const char *path, int fd, uint64_t size,
		     enum ksc_read_as as, struct ksc_blob *out)
{
	unsigned char head[BZ_HEAD];
	size_t h = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = size_ok(ctx, path, size, as)) < 0)
		return r;
	while (h < sizeof(head) && h < size) {
		ssize_t k = pread(fd, head + h, sizeof(head) - h, (off_t)h);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			ksc_err(ctx, "%s: %s", path, strerror(e));
			return -e;
		}
		if (k == 0)
			break;
		h += (size_t)k;
	}
	enum ksc_compression c = ksc_detect_compression(head, h);
	size_t poff, plen;
	/* A bzImage carries vmlinux compressed (boot protocol 2.08+); a module does not. */
	if (as == KSC_READ_IMAGE && bzimage_payload(head, h, size, &poff, &plen)) {
		unsigned char m[6] = { 0 };
		ssize_t k = pread(fd, m, plen < sizeof(m) ? plen : sizeof(m), (off_t)poff);
		c = ksc_detect_compression(m, k > 0 ? (size_t)k : 0);
		if (c == KSC_COMPRESSION_NONE)
			return bz_unsupported(ctx, path);
		struct input in = { .fd = fd, .off = poff, .end = (uint64_t)poff + plen };
		r = decompress(ctx, path, &in, c, true, as, out);
		free(in.buf);
		return r;
	}
	if (c != KSC_COMPRESSION_NONE) {
		struct input in = { .fd = fd, .off = 0, .end = size };
		r = decompress(ctx, path, &in, c, false, as, out);
		free(in.buf);
		return r;
	}
	/*
	 * A large file is read whole only when its first bytes are those of an ELF file (or,
	 * for a kernel image, a bzImage): a 200 MiB file of anything else is refused at once.
	 */
	if (size > ((uint64_t)1 << 20) && (h < 4 || memcmp(head, "\177ELF", 4) != 0)) {
		ksc_err(ctx, "%s: not an ELF file", path);
		return -ENOEXEC;
	}
	return read_plain(ctx, path, fd, (size_t)size, out);
}

int ksc_blob_load_as(struct ksc_ctx *ctx, const char *path, const void *data, size_t size,
		     enum ksc_read_as as, struct ksc_blob *out)
{
	memset(out, 0, sizeof(*out));
	if (!data) {
		struct stat st;
		int fd = ksc_open_regular(ctx, AT_FDCWD, path, path, &st, false);
		if (fd == -EISDIR)
			ksc_err(ctx, "%s: is a directory", path);
		if (fd < 0)
			return fd;
		int r = ksc_blob_load_fd(ctx, path, fd, (uint64_t)st.st_size, as, out);
		close(fd);
		return r;
	}
	size_t poff, plen;
	const unsigned char *p = data;
	int r = size_ok(ctx, path, size, as);
	if (r < 0)
		return r;
	bool bz = as == KSC_READ_IMAGE && bzimage_payload(p, size, size, &poff, &plen);
	struct input in = { .mem = bz ? p + poff : p, .mem_len = bz ? plen : size };
	enum ksc_compression c = ksc_detect_compression(in.mem, in.mem_len);
	if (bz && c == KSC_COMPRESSION_NONE)
		return bz_unsupported(ctx, path);
	if (c != KSC_COMPRESSION_NONE)
		return decompress(ctx, path, &in, c, bz, as, out);
	/* a copy, counted: the caller keeps its buffer */
	r = ksc_charge_take(&out->charge, size);
	out->data = r < 0 ? NULL : malloc(size);
	if (!out->data) {
		ksc_charge_drop(&out->charge);
		return -ENOMEM;
	}
	memcpy(out->data, p, size);
	out->size = size;
	return 0;
}

int ksc_blob_load(struct ksc_ctx *ctx, const char *path, const void *data, size_t size,
		  struct ksc_blob *out)
{
	return ksc_blob_load_as(ctx, path, data, size, KSC_READ_IMAGE, out);
}

void ksc_blob_free(struct ksc_blob *b)
{
	free(b->data);
	ksc_charge_drop(&b->charge);
	b->data = NULL;
	b->size = 0;
}

/*
 * An appended module signature (scripts/sign-file.c, kernel/module_signature.c) is:
 * PKCS#7 data, struct module_signature (12 bytes, big-endian sig_len at the end), and the
 * 28-byte marker. Returns the length of the module without it.
 */
#define SIG_MARKER "~Module signature appended~\n"
#define SIG_INFO_SIZE 12

size_t ksc_signature_strip(const unsigned char *p, size_t n, size_t *sig_size)
{
	const size_t mlen = sizeof(SIG_MARKER) - 1;

	*sig_size = 0;
	if (n < mlen + SIG_INFO_SIZE || memcmp(p + n - mlen, SIG_MARKER, mlen) != 0)
		return n;
	const unsigned char *info = p + n - mlen - SIG_INFO_SIZE;
	uint32_t sig_len = (uint32_t)info[8] << 24 | (uint32_t)info[9] << 16 |
			   (uint32_t)info[10] << 8 | info[11];
	size_t total = mlen + SIG_INFO_SIZE + (size_t)sig_len;
	if (total > n)
		return n;
	*sig_size = total;
	return n - total;
}

/* ---------------------------------------------------------------------------------- */
/* Reading text files (Module.symvers, System.map, modules.order, certificates)        */

int ksc_read_text_file(struct ksc_ctx *ctx, const char *path, char **data, size_t *size)
{
	struct stat st;
	int fd, r;

	fd = ksc_open_regular(ctx, AT_FDCWD, path, path, &st, true);
	if (fd == -EISDIR) {
		ksc_err(ctx, "%s: %s", path, strerror(EISDIR));
		return fd;
	}
	if (fd < 0)
		return fd;
	r = ksc_read_fd(fd, &st, KSC_TEXT_MAX, data, size);
	close(fd);
	if (r == -EFBIG && *size)
		too_large(ctx, path, *size, KSC_TEXT_MAX);
	else if (r == -EFBIG)
		ksc_err(ctx, "%s: too large (more than %zu bytes)", path, KSC_TEXT_MAX);
	else if (r < 0)
		ksc_err(ctx, "%s: %s", path, strerror(-r));
	return r;
}
