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

/*
 * The largest a compressed file may expand to. Modules: the largest in Debian's trees,
 * amdgpu.ko, is 18.6 MiB in 6.1 and 46.1 MiB in 7.3 decompressed; 256 MiB leaves room
 * for modules with debug information and keeps a bomb from costing more than that per
 * worker thread. Kernel images (vmlinux, vmlinuz, bzImage: vmlinux with debug
 * information is hundreds of MiB) get 2 GiB, which is also the cap on any file's size.
 */
#define MAX_MODULE_SIZE ((size_t)256 << 20)
#define MAX_IMAGE_SIZE ((size_t)2 << 30)

/*
 * The memory that modules being decompressed may hold at once, shared by every thread of
 * the process: without it each worker may hold MAX_MODULE_SIZE (-j16 on bombs: 4 GiB).
 * A thread whose buffer would grow past it waits for another to finish. When every other
 * thread holding some waits too, waiting would never end: a thread on its first attempt
 * then gives its buffer back, waits until no thread holds any, and decompresses the file
 * again; on that second attempt it waits for the others to give way, and goes on past
 * the budget (up to the file's own limit) only when every holder is on its second
 * attempt. So no real module is refused for the budget and no file is decompressed more
 * than twice. Kernel images are not
 * counted: they are read one at a time.
 */
#define DECOMPRESS_BUDGET ((size_t)256 << 20)

static struct {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	size_t used;                   /* bytes of the buffers counted */
	unsigned int holders, waiting; /* threads holding some; of them, waiting */
	unsigned int waiting_first;    /* of those, on their first attempt */
} budget = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0 };

/*
 * Count `more` bytes for a thread holding `held` already, once there is room. 0, or
 * -EAGAIN (not when `last`, the second attempt): give back what is held, start again.
 */
static int budget_take(size_t held, size_t more, bool last)
{
	int r = 0;

	pthread_mutex_lock(&budget.lock);
	if (held == 0) {
		while (budget.used + more > DECOMPRESS_BUDGET && budget.holders > 0)
			pthread_cond_wait(&budget.freed, &budget.lock);
		budget.holders++;
	} else {
		while (budget.used + more > DECOMPRESS_BUDGET && budget.holders > 1) {
			bool stuck = budget.waiting + 1 == budget.holders;
			if (stuck && !last) {
				r = -EAGAIN;
				break;
			}
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
	}
	if (r == 0)
		budget.used += more;
	pthread_mutex_unlock(&budget.lock);
	return r;
}

/* Wait until no thread holds any of the budget. */
static void budget_wait_idle(void)
{
	pthread_mutex_lock(&budget.lock);
	while (budget.holders > 0)
		pthread_cond_wait(&budget.freed, &budget.lock);
	pthread_mutex_unlock(&budget.lock);
}

/* `n` bytes counted no longer; `all`: they were all the thread held. */
static void budget_less(size_t n, bool all)
{
	pthread_mutex_lock(&budget.lock);
	budget.used -= n;
	if (all)
		budget.holders--;
	pthread_cond_broadcast(&budget.freed);
	pthread_mutex_unlock(&budget.lock);
}

/*
 * Give back `held` bytes of a buffer just freed. A large one given back unused (a bomb,
 * a second attempt) is also returned to the system: the tool keeps freed heap memory
 * (tools/ksymcheck.c tune_malloc()), and the next thread would not reuse it if it came
 * from another arena.
 */
static void budget_give(size_t held, bool unused)
{
	if (!held)
		return;
#ifdef __GLIBC__
	if (unused && held >= ((size_t)32 << 20))
		malloc_trim(0);
#endif
	budget_less(held, true);
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
 * A growing output buffer for the decompressors, of at most `limit` bytes of output (and
 * room for one more step of a decompressor, so that exactly `limit` is accepted).
 */
struct outbuf {
	unsigned char *data;
	size_t size, cap, limit;
	bool kernel;    /* the limit is the kernel images', and no budget counted */
	size_t counted; /* of the shared budget */
	bool retry;     /* the second attempt: the budget does not stop it again */
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
	/* While realloc() copies, the old block and the new one are both held. */
	if (!o->kernel) {
		int r = budget_take(o->counted, cap, o->retry);
		if (r < 0)
			return r;
	}
	unsigned char *d = realloc(o->data, cap);
	if (!o->kernel) {
		budget_less(o->counted, false);
		o->counted = cap;
	}
	if (!d)
		return -ENOMEM;
	o->data = d;
	o->cap = cap;
	return 0;
}

static void outbuf_fail(struct ksc_ctx *ctx, const char *path, const struct outbuf *o, int r)
{
	if (r == -EFBIG)
		ksc_err(ctx, "%s: decompresses to more than %zu MiB (limit for %s)", path,
			o->limit >> 20, o->kernel ? "kernel images" : "modules");
	else if (r == -EAGAIN)
		return; /* not a failure: started again */
	else
		ksc_err(ctx, "%s: out of memory", path);
}

/*
 * `single`: decode one stream and ignore what follows (a bzImage payload ends with the
 * 4-byte uncompressed size); otherwise concatenated streams are read, as xz(1) does.
 */
static int unxz(struct ksc_ctx *ctx, const char *path, const unsigned char *in, size_t n,
		struct outbuf *o, bool single)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret lr = lzma_stream_decoder(&s, UINT64_MAX, single ? 0 : LZMA_CONCATENATED);

	if (lr != LZMA_OK)
		return lr == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
	s.next_in = in;
	s.avail_in = n;
	for (;;) {
		int r = outbuf_reserve(o, 1 << 16);
		if (r < 0) {
			lzma_end(&s);
			outbuf_fail(ctx, path, o, r);
			return r;
		}
		s.next_out = o->data + o->size;
		s.avail_out = o->cap - o->size;
		lr = lzma_code(&s, LZMA_FINISH);
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

static int unzstd(struct ksc_ctx *ctx, const char *path, const unsigned char *in, size_t n,
		  struct outbuf *o, bool single)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, n, 0 };
	size_t ret = 1;

	if (!ds)
		return -ENOMEM;
	while (ib.pos < ib.size) {
		int r = outbuf_reserve(o, ZSTD_DStreamOutSize());
		if (r < 0) {
			ZSTD_freeDStream(ds);
			outbuf_fail(ctx, path, o, r);
			return r;
		}
		ZSTD_outBuffer ob = { o->data, o->cap, o->size };
		ret = ZSTD_decompressStream(ds, &ob, &ib);
		o->size = ob.pos;
		if (ZSTD_isError(ret)) {
			ksc_err(ctx, "%s: zstd: %s", path, ZSTD_getErrorName(ret));
			ZSTD_freeDStream(ds);
			return -EINVAL;
		}
		if (ret == 0 && single)
			break; /* one frame; trailing bytes are not ours */
		if (ret != 0 && ib.pos == ib.size && ob.pos < ob.size)
			break; /* needs more input that does not exist */
	}
	/* ret != 0 at the end of the input: the last frame is incomplete. */
	while (ret != 0) {
		int r = outbuf_reserve(o, ZSTD_DStreamOutSize());
		if (r == -EAGAIN) {
			ZSTD_freeDStream(ds);
			return r;
		}
		if (r < 0)
			break;
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

static int ungzip(struct ksc_ctx *ctx, const char *path, const unsigned char *in, size_t n,
		  struct outbuf *o, bool single)
{
	z_stream z;
	int zr;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)in;
	for (;;) {
		int r = outbuf_reserve(o, 1 << 16);
		if (r < 0) {
			inflateEnd(&z);
			outbuf_fail(ctx, path, o, r);
			return r;
		}
		/* zlib counts in uInt: feed at most UINT_MAX per call. */
		size_t consumed = (size_t)(z.next_in - in);
		z.avail_in = (uInt)((n - consumed) > UINT_MAX ? UINT_MAX : n - consumed);
		z.next_out = o->data + o->size;
		z.avail_out = (uInt)((o->cap - o->size) > UINT_MAX ? UINT_MAX : o->cap - o->size);
		size_t out_before = z.avail_out;
		zr = inflate(&z, Z_NO_FLUSH);
		o->size += out_before - z.avail_out;
		if (zr == Z_STREAM_END) {
			consumed = (size_t)(z.next_in - in);
			/* Concatenated members, as gzread() accepts. */
			if (consumed < n && n - consumed >= 2 && in[consumed] == 0x1f &&
			    in[consumed + 1] == 0x8b) {
				inflateReset(&z);
				continue;
			}
			/* Bytes after the last member: refused, as xz and zstd refuse them. */
			if (consumed < n && !single) {
				inflateEnd(&z);
				ksc_err(ctx, "%s: gzip: %zu bytes of trailing garbage", path,
					n - consumed);
				return -EINVAL;
			}
			break;
		}
		if (zr == Z_OK)
			continue;
		if (zr == Z_BUF_ERROR && z.avail_in == 0) {
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

static bool bzimage_payload(const unsigned char *p, size_t n, size_t *off, size_t *len)
{
	if (n < 0x250 || memcmp(p + 0x202, "HdrS", 4) != 0)
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

static int read_all(struct ksc_ctx *ctx, const char *path, unsigned char **out, size_t *len)
{
	struct stat st;
	int fd = ksc_open_regular(ctx, AT_FDCWD, path, path, &st, false);

	if (fd == -EISDIR) {
		ksc_err(ctx, "%s: is a directory", path);
		return fd;
	}
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > MAX_IMAGE_SIZE) {
		close(fd);
		ksc_err(ctx, "%s: file too large", path);
		return -EFBIG;
	}
	/*
	 * A large file is read whole only when its first bytes are those of an ELF file, a
	 * compressed file or a bzImage: a 200 MiB file of anything else is refused at once.
	 */
	if (st.st_size > ((off_t)1 << 20)) {
		unsigned char head[0x250];
		ssize_t k = pread(fd, head, sizeof(head), 0);
		if (k >= 4 && memcmp(head, "\177ELF", 4) != 0 &&
		    ksc_detect_compression(head, (size_t)k) == KSC_COMPRESSION_NONE &&
		    (k < 0x206 || memcmp(head + 0x202, "HdrS", 4) != 0)) {
			close(fd);
			ksc_err(ctx, "%s: not an ELF file", path);
			return -ENOEXEC;
		}
	}
	size_t cap = (size_t)st.st_size, n = 0;
	unsigned char *buf = malloc(cap ? cap : 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			ksc_err(ctx, "%s: %s", path, strerror(e));
			return -e;
		}
		if (r == 0)
			break; /* shrank while we read: take what is there */
		n += (size_t)r;
	}
	close(fd);
	*out = buf;
	*len = n;
	return 0;
}

/* A kernel image by its name: vmlinux*, vmlinuz*, bzImage*, zImage*, Image* (arm64). */
static bool kernel_name(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return strncmp(b, "vmlinu", 6) == 0 || strncmp(b, "bzImage", 7) == 0 ||
	       strncmp(b, "zImage", 6) == 0 || strncmp(b, "Image", 5) == 0;
}

int ksc_blob_load(struct ksc_ctx *ctx, const char *path, const void *data, size_t size,
		  struct ksc_blob *out)
{
	unsigned char *raw = NULL;
	size_t n = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (data) {
		raw = malloc(size ? size : 1);
		if (!raw)
			return -ENOMEM;
		memcpy(raw, data, size);
		n = size;
	} else {
		r = read_all(ctx, path, &raw, &n);
		if (r < 0)
			return r;
	}
	if (n == 0) {
		free(raw);
		ksc_err(ctx, "%s: empty file", path);
		return -ENOEXEC;
	}

	/* A bzImage carries vmlinux compressed: decompress its payload (boot protocol 2.08+). */
	size_t poff, plen;
	const unsigned char *in = raw;
	size_t in_len = n;
	if (bzimage_payload(raw, n, &poff, &plen)) {
		in = raw + poff;
		in_len = plen;
		if (ksc_detect_compression(in, in_len) == KSC_COMPRESSION_NONE) {
			free(raw);
			ksc_err(ctx, "%s: bzImage payload compressed with an unsupported method (only gzip, xz and zstd are read)",
				path);
			return -EOPNOTSUPP;
		}
	}

	out->compression = ksc_detect_compression(in, in_len);
	if (out->compression == KSC_COMPRESSION_NONE) {
		out->data = raw;
		out->size = n;
		return 0;
	}

	struct outbuf o = { 0 };
	o.kernel = in != raw || kernel_name(path);
	o.limit = o.kernel ? MAX_IMAGE_SIZE : MAX_MODULE_SIZE;
again:
	switch (out->compression) {
	case KSC_COMPRESSION_XZ:
		r = unxz(ctx, path, in, in_len, &o, in != raw);
		break;
	case KSC_COMPRESSION_ZSTD:
		r = unzstd(ctx, path, in, in_len, &o, in != raw);
		break;
	case KSC_COMPRESSION_GZIP:
		r = ungzip(ctx, path, in, in_len, &o, in != raw);
		break;
	default:
		r = -EOPNOTSUPP;
	}
	if (r == -EAGAIN) { /* the budget: give back, wait until it is free, once more */
		free(o.data);
		budget_give(o.counted, true);
		budget_wait_idle();
		o = (struct outbuf){ .limit = o.limit, .kernel = o.kernel, .retry = true };
		goto again;
	}
	/*
	 * The budget counts buffers being filled: a module decompressed whole is the
	 * caller's, like any file read.
	 */
	free(raw);
	if (r == 0 && o.size > o.limit) { /* the last step went past it */
		r = -EFBIG;
		outbuf_fail(ctx, path, &o, r);
	}
	if (r < 0) {
		free(o.data);
		budget_give(o.counted, true);
		return r;
	}
	budget_give(o.counted, false);
	if (o.size == 0) {
		free(o.data);
		ksc_err(ctx, "%s: %s: decompresses to nothing", path,
			ksc_compression_name(out->compression));
		return -ENOEXEC;
	}
	out->data = o.data;
	out->size = o.size;
	return 0;
}

void ksc_blob_free(struct ksc_blob *b)
{
	free(b->data);
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
	size_t room, len = 0;
	char *buf;
	int fd, r;

	fd = ksc_open_regular(ctx, AT_FDCWD, path, path, &st, true);
	if (fd == -EISDIR) {
		ksc_err(ctx, "%s: %s", path, strerror(EISDIR));
		return fd;
	}
	if (fd < 0)
		return fd;
	/*
	 * Room for the whole regular file plus one byte, so the first read() gets all of
	 * it and the second sees EOF. /proc files (kallsyms) report size 0: grow as
	 * needed.
	 */
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((uint64_t)st.st_size >= SIZE_MAX / 2) {
			r = -EFBIG;
			goto err_close;
		}
		room = (size_t)st.st_size + 1;
	} else {
		room = 65536;
	}
	buf = malloc(room + 1);
	if (!buf) {
		r = -ENOMEM;
		goto err_close;
	}
	for (;;) {
		ssize_t n;

		if (len == room) {
			char *p;

			if (room >= SIZE_MAX / 4) {
				r = -EFBIG;
				goto err_free;
			}
			p = realloc(buf, room * 2 + 1);
			if (!p) {
				r = -ENOMEM;
				goto err_free;
			}
			buf = p;
			room *= 2;
		}
		n = read(fd, buf + len, room - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto err_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*data = buf;
	*size = len;
	return 0;

err_free:
	free(buf);
err_close:
	close(fd);
	ksc_err(ctx, "%s: %s", path, strerror(-r));
	return r;
}
