// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: the tree walk over a folder built from the input in a fresh
 * temporary folder. The input is a list of operations (one byte each, then their
 * arguments): a folder and entering it, leaving a folder, a module file (a few bytes of
 * content, plain or with a compressor's magic), a file with an odd name (newline, space,
 * ESC, invalid UTF-8), a symbolic link to a folder above or to a dangling target, a
 * FIFO. The tree is opened (walked, every file read), its depmod files written and
 * printed, and the folder removed. Nothing may crash, hang or read out of bounds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree/tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KVER "6.16.0-fz"

struct in {
	const uint8_t *p;
	size_t n;
};

static unsigned int take(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(path);
	return 0;
}

/* A name from the input: up to 8 bytes, never "/", ".", ".." or empty. */
static void name_from(struct in *in, char *buf, bool odd)
{
	static const char *const odd_names[] = { "a\nb.ko", "a b.ko", "c:d.ko", "\x1b[31m.ko",
						 "\xff\xfe.ko", "e\r.ko", "\t.ko" };
	unsigned int len = take(in) % 8 + 1, i;

	if (odd) {
		snprintf(buf, 16, "%s", odd_names[len % (sizeof(odd_names) / sizeof(*odd_names))]);
		return;
	}
	for (i = 0; i < len; i++) {
		unsigned int c = take(in) % 4;
		buf[i] = "abkx"[c];
	}
	buf[i] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksc_ctx *ctx;
	static char base[PATH_MAX];
	char root[PATH_MAX], cur[PATH_MAX], name[16], path[PATH_MAX * 2];
	struct in in = { data, size };
	unsigned int depth = 0;

	if (!ctx) {
		ctx = ksc_new();
		ksc_set_log_fn(ctx, NULL, NULL);
		snprintf(base, sizeof(base), "%s/ksc-fuzz-walk-%ld",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
	}
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	snprintf(root, sizeof(root), "%s/lib/modules/" KVER, base);
	mkdir(base, 0755);
	snprintf(path, sizeof(path), "%s/lib", base);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/lib/modules", base);
	mkdir(path, 0755);
	mkdir(root, 0755);
	snprintf(cur, sizeof(cur), "%s", root);

	for (unsigned int ops = 0; in.n && ops < 64; ops++) {
		unsigned int op = take(&in) % 8;
		switch (op) {
		case 0: /* a folder, entered */
			name_from(&in, name, false);
			if (depth < 16 && strlen(cur) + 20 < sizeof(cur)) {
				snprintf(path, sizeof(path), "%s/%s", cur, name);
				if (mkdir(path, 0755) == 0 || errno == EEXIST) {
					snprintf(cur, sizeof(cur), "%s", path);
					depth++;
				}
			}
			break;
		case 1: /* leave it */
			if (depth) {
				*strrchr(cur, '/') = '\0';
				depth--;
			}
			break;
		case 2:
		case 3: { /* a module file */
			static const uint8_t magics[][6] = {
				{ 0x7f, 'E', 'L', 'F', 2, 1 }, { 0xfd, '7', 'z', 'X', 'Z', 0 },
				{ 0x28, 0xb5, 0x2f, 0xfd, 0, 0 }, { 0x1f, 0x8b, 8, 0, 0, 0 },
			};
			static const char *const ext[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
			unsigned int kind = take(&in) % 4, len = take(&in) % 64;
			name_from(&in, name, false);
			snprintf(path, sizeof(path), "%s/%s%s", cur, name, ext[kind]);
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
			if (fd < 0)
				break;
			if (write(fd, magics[kind], 6) < 0 ||
			    write(fd, in.p, len < in.n ? len : in.n) < 0) {
			}
			close(fd);
			in.p += len < in.n ? len : in.n;
			in.n -= len < in.n ? len : in.n;
			break;
		}
		case 4: /* an odd name */
			name_from(&in, name, true);
			snprintf(path, sizeof(path), "%s/%s", cur, name);
			close(open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644));
			break;
		case 5: { /* a link to a folder above (a loop), or to the root, or nowhere */
			unsigned int up = take(&in) % 4;
			name_from(&in, name, false);
			snprintf(path, sizeof(path), "%s/%s", cur, name);
			if (up == 3) {
				if (symlink("nowhere", path) < 0) {
				}
			} else if (up == 2) {
				if (symlink(root, path) < 0) {
				}
			} else if (symlink(up ? ".." : ".", path) < 0) {
			}
			break;
		}
		case 6: /* a FIFO named like a module */
			name_from(&in, name, false);
			snprintf(path, sizeof(path), "%s/%s.ko", cur, name);
			mkfifo(path, 0644);
			break;
		case 7: /* modules.order naming what may not exist */
			name_from(&in, name, false);
			snprintf(path, sizeof(path), "%s/modules.order", root);
			FILE *f = fopen(path, "a");
			if (f) {
				fprintf(f, "kernel/%s.ko\n", name);
				fclose(f);
			}
			break;
		}
	}

	struct ksc_tree_opts o = { .sz = sizeof(o), .jobs = 2, .no_kernel_search = true,
				   .no_check = true };
	struct ksc_tree *t = NULL;
	if (ksc_tree_open(ctx, base, KVER, &o, &t) == 0) {
		/* the write side too: an empty file is hashed as (NULL, 0) */
		snprintf(path, sizeof(path), "%s/out", base);
		if (mkdir(path, 0755) == 0)
			(void)ksc_tree_write_depmod(t, path, KSC_DEPMOD_ALL);
		FILE *devnull = fopen("/dev/null", "w");
		for (unsigned int f = KSC_DEPMOD_DEP; devnull && f <= KSC_DEPMOD_DEVNAME; f <<= 1)
			(void)ksc_tree_print_depmod(t, f, devnull);
		if (devnull)
			fclose(devnull);
		ksc_tree_unref(t);
	}
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
