// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: the kept Module.symvers rows (lib/kernel/ksc-symvers-cache.c, the
 * KVER-HASH.symvers file beside the tree's index). The first byte picks what the rest is:
 * - bit 0 clear: a cache file as it is on disk, loaded for one Module.symvers whose key
 *   (its path and stat) the target fixes. With bit 1 the header's key is set to that key
 *   (the path written after the header), with bit 2 its string size is made to add up,
 *   with bit 3 its checksum is recomputed: what the checks behind them (every row's
 *   strings and flags) see is the fuzzer's bytes.
 * - bit 0 set: Module.symvers text, read as ksc_kernel_add_symvers_cached() reads it,
 *   kept (ksc_svcache_save()) and loaded back: the same rows, or none kept.
 * Every row loaded is used as the kernel uses it: its strings, flags and CRC.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file's header and row as ksc-symvers-cache.c lays them out (its private layout). */
struct hdr {
	char magic[8];
	uint32_t version, n_rows;
	uint64_t size, ino;
	int64_t mtime_ns, ctime_ns;
	uint32_t path_len, str_size;
	uint64_t checksum;
};
#define ROW_SIZE 20 /* five uint32_t */
#define SYMVERS_PATH "/fuzz/Module.symvers"

static char dir[64], cache[96], text[96];

/* The stat of a Module.symvers that does not change (no racy ctime): the cache's key. */
static struct stat key_stat(const struct stat *real)
{
	struct stat st = real ? *real : (struct stat){ 0 };

	if (!real) {
		st.st_size = 4242;
		st.st_ino = 77;
		st.st_mode = S_IFREG | 0644;
	}
	st.st_mtim = (struct timespec){ 1600000000, 1 };
	st.st_ctim = (struct timespec){ 1600000000, 2 };
	return st;
}

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "we");
	int ok = f && fwrite(p, 1, n, f) == n;

	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

static size_t use_rows(const struct ksc_svrows *rows)
{
	size_t sink = 0;

	for (size_t i = 0; i < rows->n; i++) {
		const struct ksc_symvers_entry *e = &rows->v[i];
		sink += strlen(e->symbol) + strlen(e->module) + strlen(e->ns) + e->gpl_only +
			(e->crc & 1);
	}
	return sink;
}

/* Bit 0 clear: the bytes as a cache file, the header fixed up as the flags say. */
static void load_bytes(unsigned flags, const uint8_t *data, size_t size)
{
	struct stat st = key_stat(NULL);
	size_t plen = strlen(SYMVERS_PATH), n = size;
	struct hdr h = { 0 };
	unsigned char *buf;

	if (flags & 2)
		n += plen; /* the path, after the header */
	buf = malloc(n + sizeof(h));
	if (!buf)
		return;
	memcpy(&h, data, size < sizeof(h) ? size : sizeof(h));
	size_t rest = size > sizeof(h) ? size - sizeof(h) : 0;
	if (flags & 2) {
		memcpy(h.magic, "KSCSYMV\n", 8);
		h.version = 1;
		h.size = (uint64_t)st.st_size;
		h.ino = (uint64_t)st.st_ino;
		h.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		h.ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
		h.path_len = (uint32_t)plen;
		memcpy(buf + sizeof(h), SYMVERS_PATH, plen);
		memcpy(buf + sizeof(h) + plen, data + sizeof(h) * (size >= sizeof(h)), rest);
		n = sizeof(h) + plen + rest;
	} else {
		memcpy(buf + sizeof(h), data + sizeof(h) * (size >= sizeof(h)), rest);
		n = sizeof(h) + rest;
	}
	size_t body = n - sizeof(h);
	if (flags & 4) {
		uint64_t fixed = (uint64_t)h.path_len + (uint64_t)h.n_rows * ROW_SIZE;
		if (fixed <= body)
			h.str_size = (uint32_t)(body - fixed);
	}
	if (flags & 8) {
		h.checksum = 0;
		h.checksum = ksc_hash64(buf + sizeof(h), body, ksc_hash64(&h, sizeof(h), 0x73796d76));
	}
	memcpy(buf, &h, sizeof(h));
	if (write_file(cache, buf, n) == 0) {
		struct ksc_svrows rows;
		if (ksc_svcache_load(cache, SYMVERS_PATH, &st, &rows) == 0) {
			(void)use_rows(&rows);
			ksc_svrows_fini(&rows);
		}
	}
	free(buf);
}

static bool same(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Bit 0 set: Module.symvers text, kept and loaded back. */
static void round_trip(struct ksc_ctx *ctx, const uint8_t *data, size_t size)
{
	struct ksc_symvers *sv = NULL;
	struct stat real, st;
	bool clean;

	if (write_file(text, data, size) < 0 || stat(text, &real) < 0)
		return;
	if (ksc_svcache_read_symvers(ctx, text, &sv, &clean) < 0)
		return;
	st = key_stat(&real);
	unlink(cache);
	if (clean)
		ksc_svcache_save(cache, text, &st, sv);
	struct ksc_svrows rows;
	int r = ksc_svcache_load(cache, text, &st, &rows);
	if (r == 0) {
		/* kept: the same rows, in the same order */
		if (rows.n != ksc_symvers_get_count(sv))
			abort();
		for (size_t i = 0; i < rows.n; i++) {
			const struct ksc_symvers_entry *a = ksc_symvers_get(sv, i), *b = &rows.v[i];
			if (!same(a->symbol, b->symbol) || !same(a->module, b->module) ||
			    !same(a->ns, b->ns) || a->crc != b->crc || a->gpl_only != b->gpl_only)
				abort();
		}
		(void)use_rows(&rows);
		ksc_svrows_fini(&rows);
	} else if (r < 0) {
		abort(); /* out of memory in a fuzzer's few kilobytes */
	}
	ksc_symvers_unref(sv);
}

static void cleanup(void)
{
	unlink(cache);
	unlink(text);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksc_ctx *ctx;

	if (!ctx) {
		/* a file or two written per run: in memory where there is a tmpfs */
		struct stat shm;
		snprintf(dir, sizeof(dir), "%s/fuzz-svcache.XXXXXX",
			 stat("/dev/shm", &shm) == 0 && S_ISDIR(shm.st_mode) ? "/dev/shm" : "/tmp");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
		snprintf(cache, sizeof(cache), "%s/c.symvers", dir);
		snprintf(text, sizeof(text), "%s/Module.symvers", dir);
		ctx = ksc_new();
		ksc_set_log_fn(ctx, NULL, NULL);
	}
	if (!size)
		return 0;
	if (data[0] & 1)
		round_trip(ctx, data + 1, size - 1);
	else
		load_bytes(data[0], data + 1, size - 1);
	return 0;
}
