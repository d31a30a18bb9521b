/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The index file's layout on disk, shared by the file as the tree reads and writes it
 * (ksc-modset-index.c) and its lookup table read in place (ksc-modset-lookup.c).
 *
 * Native byte order, every offset from the file's start, every table 8-byte aligned:
 *   struct kidx_hdr
 *   header strings (moddir, release, output folder and file names), NUL-terminated
 *   directory: n_modules x struct kidx_dirent
 *   outputs:   n_outputs x struct kidx_out
 *   folders:   n_dirs x struct kidx_fdir
 *   derived records                                    (the hot part ends: cold_off)
 *   facts records
 *   the lookup section (lk_off, lk_size: the file's last bytes, its own checksum):
 *     struct kidx_lkhead
 *     n x struct kidx_lkent, sorted by kmod name, then path (strcmp())
 *     n x uint32_t: entry numbers sorted by path, padded to 8 bytes
 *     its strings (first and last byte NUL)
 */
#pragma once

#include "modset/modset.h"

#define KIDX_MAGIC "KSCTREE\n"
#define KIDX_VERSION 10u
#define KIDX_BYTE_ORDER 0x01020304u
#define KIDX_F_DERIVED 1u
#define KIDX_CHECKED_FROM 32 /* the hot checksum covers the file from here to cold_off */
#define KIDX_MAX_MODULES (1u << 24)
#define KIDX_MAX_OUTPUTS 64
#define KIDX_MAX_DIRS (1u << 22)

struct kidx_hdr {
	char magic[8];
	uint32_t version;
	uint32_t byte_order;
	uint64_t file_size;
	uint64_t checksum; /* of [KIDX_CHECKED_FROM, cold_off) */
	uint32_t n_modules;
	uint32_t flags;
	uint64_t ctx_fp, dm_world_fp, eng_world_fp, out_fp;
	uint64_t strings_off;
	uint32_t strings_size;
	uint32_t moddir, release,
		out_dir; /* header string offsets; KREC_NONE for out_dir */
	uint32_t n_outputs;
	uint32_t n_dirs;
	uint64_t dir_off, out_off, dirs_off, cold_off;
	uint64_t order_fp; /* modules.order's hash: with the same walk, the same order */
	uint64_t modset_fp; /* depmod.d's fingerprint: with the same files, the same winners */
	uint64_t lk_off, lk_size; /* the lookup section: lk_off + lk_size == file_size */
	uint64_t lk_checksum;     /* ksc_hash64(section, lk_size, KIDX_VERSION) */
};

/*
 * The fingerprints the header carries, named alike in struct kidx (as read) and struct
 * kidx_write (to write): copied from src to dst, one list for both ways.
 */
#define KIDX_COPY_FINGERPRINTS(dst, src)                                                  \
	do {                                                                              \
		(dst)->ctx_fp = (src)->ctx_fp;                                            \
		(dst)->dm_world_fp = (src)->dm_world_fp;                                  \
		(dst)->eng_world_fp = (src)->eng_world_fp;                                \
		(dst)->out_fp = (src)->out_fp;                                            \
		(dst)->order_fp = (src)->order_fp;                                        \
		(dst)->modset_fp = (src)->modset_fp;                                      \
	} while (0)

struct kidx_dirent {
	uint64_t rec_off, rec_hash, der_off; /* der_off 0: none */
	uint32_t rec_size, der_size;
	uint32_t relpath, modname; /* header strings */
	uint32_t dir;              /* index in the folder list, or KREC_NONE */
	uint32_t replaced;         /* header string: the rival file it won over, or KREC_NONE */
	struct krec_sum sum;
};

struct kidx_out {
	uint32_t name, pad;
	uint64_t size, ino, content_hash;
	int64_t mtime_ns;
};

struct kidx_fdir {
	uint32_t relpath, pad; /* header string */
	uint64_t ino;
	int64_t mtime_ns;
};

struct kidx_lkhead {
	uint32_t n;               /* entries: the header's n_modules */
	uint32_t strings_size;
	uint32_t moddir, release; /* strings */
};

struct kidx_lkent {
	uint32_t name, relpath;    /* strings: kmod's name, the path below the module folder */
	uint32_t rec_size, module; /* the facts record's size; the module's directory entry */
	uint64_t rec_off, rec_hash;
	/* the record's key (struct krec), so that a stale file is seen before it is fetched */
	uint64_t file_size, ino;
	int64_t mtime_ns, ctime_ns;
	uint64_t content_hash;
};

/* len bytes at off of fd: 0, -EINVAL when the file ends first, other -errno. */
int kidx_pread(int fd, void *buf, size_t len, uint64_t off);

/*
 * The lookup section of the index `w` describes, whose directory `dir` has been laid out
 * (each record's offset, size and checksum): malloc'd bytes in *out. 0 or -ENOMEM.
 */
int kidx_lookup_build(const struct kidx_write *w, const struct kidx_dirent *dir,
		      unsigned char **out, size_t *size);
/* ksc_kidx_fix_checksums() of the lookup section: its entries' record checksums. */
void kidx_lookup_fix(unsigned char *p, size_t size, const struct kidx_hdr *h);
