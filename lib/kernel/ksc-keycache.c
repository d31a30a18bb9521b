// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The built-in keys of an installed kernel, kept beside the tree's index: finding them
 * means decompressing vmlinuz (0.2-0.3 s for a Debian image), which a check of one
 * module against an indexed tree would otherwise spend on every run. The file holds
 * the image's DER certificates, keyed by the image's path, size, mtime and inode; any
 * difference, or a file that does not add up, and the image is read again and the
 * file rewritten. The keyring also keeps its signature verdicts beside it, in the
 * folder CACHE.sigs (lib/readers/ksc-sig-memo.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernel/kernel.h"
#include "util/fileio.h"

#define KEYCACHE_MAGIC "KSCKEYS\n"
#define KEYCACHE_VERSION 1u
#define KEYCACHE_MAX (16u << 20)
/* An image modified this recently may change again within the clock's granularity. */
#define KEYCACHE_RACY_NS 2000000000LL

struct keycache_hdr {
	char magic[8];
	uint32_t version, n_certs;
	uint64_t image_size, image_ino;
	int64_t image_mtime_ns;
	uint32_t path_len, der_size;
	uint64_t checksum; /* of the header (this field 0), the path and the DER */
};

static void key_of(struct keycache_hdr *h, const char *image, const struct stat *st)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, KEYCACHE_MAGIC, 8);
	h->version = KEYCACHE_VERSION;
	h->image_size = (uint64_t)st->st_size;
	h->image_ino = (uint64_t)st->st_ino;
	h->image_mtime_ns = st_mtime_ns(st);
	h->path_len = (uint32_t)strlen(image);
}

static uint64_t checksum(const struct keycache_hdr *h, const char *path, const void *der)
{
	struct keycache_hdr c = *h;

	c.checksum = 0;
	uint64_t x = ksc_hash64(&c, sizeof(c), 0x6b657973);
	x = ksc_hash64(path, h->path_len, x);
	return ksc_hash64(der, h->der_size, x);
}

/* The certificates the cache holds for this image, or false (der->der NULL). */
static bool cache_read(const char *cache, const char *image, const struct stat *ist,
		       struct ksc_image_der *der, unsigned char **buf)
{
	struct keycache_hdr want, h;
	struct stat st;
	size_t size = 0;
	/* a FIFO put in the cache's place is not opened for reading: it cannot hang the check */
	int fd = ksc_open_read(AT_FDCWD, cache, 0, &st);

	*buf = NULL;
	if (fd < 0)
		return false;
	key_of(&want, image, ist);
	int r = ksc_read_fd(fd, &st, KEYCACHE_MAX, (char **)buf, &size);
	close(fd);
	if (r < 0 || size < sizeof(h))
		return false;
	memcpy(&h, *buf, sizeof(h));
	want.n_certs = h.n_certs;
	want.der_size = h.der_size;
	want.checksum = h.checksum;
	const char *path = (const char *)*buf + sizeof(h);
	if (memcmp(&h, &want, sizeof(h)) != 0 ||
	    (uint64_t)sizeof(h) + h.path_len + h.der_size != (uint64_t)size ||
	    memcmp(path, image, h.path_len) != 0 ||
	    checksum(&h, path, path + h.path_len) != h.checksum)
		return false;
	*der = (struct ksc_image_der){ (unsigned char *)path + h.path_len, h.der_size,
				       h.n_certs, true };
	return true;
}

/* Write it next to its final name, then rename: a reader sees the old or the new. */
static void cache_write(const char *cache, const char *image, const struct stat *ist,
			const struct ksc_image_der *der)
{
	struct keycache_hdr h;
	struct timespec now;
	char *tmp;

	clock_gettime(CLOCK_REALTIME, &now);
	if ((int64_t)now.tv_sec * 1000000000LL + now.tv_nsec - st_mtime_ns(ist) < KEYCACHE_RACY_NS ||
	    der->size > KEYCACHE_MAX)
		return;
	/* only a regular file (or a symbolic link, itself replaced) is replaced */
	struct stat cst;
	if (lstat(cache, &cst) == 0 && !S_ISREG(cst.st_mode) && !S_ISLNK(cst.st_mode))
		return;
	key_of(&h, image, ist);
	h.n_certs = (uint32_t)der->n;
	h.der_size = (uint32_t)der->size;
	h.checksum = checksum(&h, image, der->der);
	if (asprintf(&tmp, "%s.%ld.tmp", cache, (long)getpid()) < 0)
		return;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(tmp);
		return;
	}
	bool ok = write(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
		  write(fd, image, h.path_len) == (ssize_t)h.path_len &&
		  (!der->size || write(fd, der->der, der->size) == (ssize_t)der->size);
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, cache) < 0)
		unlink(tmp);
	free(tmp);
}

/* The keys built into the image the kernel locator names (a keyring of the readers' wing,
 * filled from a kernel found by the kernel wing). */
KSC_EXPORT int ksc_keyring_add_kernel(struct ksc_keyring *kr, const char *root,
				      const char *release)
{
	struct ksc_kernel_location *loc;

	if (!kr)
		return -EINVAL;
	int r = ksc_kernel_locate(ksc_keyring_ctx(kr), root, release, &loc);
	if (r < 0)
		return r;
	/* the image the kernel locator names: a vmlinux with code, else vmlinuz */
	const char *p = ksc_kernel_location_get_image_path(loc);
	if (p)
		r = ksc_keyring_add_path(kr, p);
	else {
		ksc_info(ksc_keyring_ctx(kr), "%s: no kernel image to take the built-in keys from",
			 ksc_kernel_location_get_path(loc, KSC_KFILE_MODULE_DIR));
		r = -ENOENT;
	}
	ksc_kernel_location_unref(loc);
	return r;
}

KSC_EXPORT int ksc_keyring_add_kernel_cached(struct ksc_keyring *kr, const char *root,
					     const char *release, const char *cache)
{
	struct ksc_kernel_location *loc;
	struct stat st;

	if (!kr)
		return -EINVAL;
	if (!cache)
		return ksc_keyring_add_kernel(kr, root, release);
	struct ksc_ctx *ctx = ksc_keyring_ctx(kr);
	int r = ksc_kernel_locate(ctx, root, release, &loc);
	if (r < 0)
		return r;
	const char *p = ksc_kernel_location_get_image_path(loc);
	if (!p || stat(p, &st) < 0) {
		ksc_kernel_location_unref(loc);
		return ksc_keyring_add_kernel(kr, root, release); /* its messages */
	}
	struct ksc_image_der der;
	unsigned char *buf;
	/* beside the keys, the verdicts judged with them (ksc-sig-memo.c): CACHE.sigs/ */
	char *memo;
	if (asprintf(&memo, "%s.sigs", cache) < 0) {
		r = -ENOMEM;
	} else {
		r = ksc_keyring_set_memo(kr, memo);
		free(memo);
	}
	if (r < 0) {
		ksc_kernel_location_unref(loc);
		return r;
	}
	if (cache_read(cache, p, &st, &der, &buf)) {
		r = ksc_keyring_add_image_der(kr, p, &der);
	} else {
		r = ksc_keyring_add_image_path(kr, p, &der);
		if (r >= 0 && der.is_image)
			cache_write(cache, p, &st, &der);
		free(der.der);
	}
	free(buf);
	ksc_kernel_location_unref(loc);
	return r;
}
