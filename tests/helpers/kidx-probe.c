// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kidx-probe: look modules up in a tree index the way the warm path of `check -k` does
 * (ksc_kidx_map(), ksc_kidx_find()), for the hostile-input tests and the benchmarks. The
 * index can be damaged between opening it and the lookups, as a cache cleaner or
 * another run might do while it is open.
 *
 * Usage: kidx-probe [--full] [--cut N | --flip OFF | --replace FILE] INDEX NAME...
 *   --full          load the whole index as the tree does (ksc_kidx_read(), every
 *                   record fetched) and look the names up in it: the old way, to compare
 *   --cut N         after opening, cut INDEX to N bytes
 *   --flip OFF      after opening, flip a bit of INDEX's byte at OFF, in place
 *   --replace FILE  after opening, rename FILE over INDEX
 * Prints "NAME: RELPATH SIZE" or "NAME: reason" for each name. Exit status 0 when all
 * were found, 1 when one was not, 2 when the index could not be opened or bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modset/modset.h"

static int damage(const char *mode, const char *arg, const char *index)
{
	if (!mode)
		return 0;
	if (strcmp(mode, "--cut") == 0)
		return truncate(index, (off_t)strtoull(arg, NULL, 0));
	if (strcmp(mode, "--replace") == 0)
		return rename(arg, index);
	int fd = open(index, O_RDWR | O_CLOEXEC);
	unsigned char c;
	off_t off = (off_t)strtoull(arg, NULL, 0);
	int r = -1;
	if (fd >= 0 && pread(fd, &c, 1, off) == 1) {
		c ^= 0x20;
		r = pwrite(fd, &c, 1, off) == 1 ? 0 : -1;
	}
	if (fd >= 0)
		close(fd);
	return r;
}

static const char *reason(int r)
{
	return r == -EINVAL ? "index corrupt, truncated or of another format" : strerror(-r);
}

/* The old way: everything read and checked, then a search by name. */
static int full(const char *index, char **names, int n)
{
	struct kidx idx;
	int r = ksc_kidx_read(index, &idx), status = 0;

	if (r == 0)
		r = ksc_kidx_fetch_all(&idx);
	if (r < 0) {
		printf("%s: %s\n", index, reason(r));
		ksc_kidx_free(&idx);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		size_t k = 0;
		while (k < idx.n_mods && strcmp(idx.mods[k].modname, names[i]) != 0)
			k++;
		if (k == idx.n_mods) {
			printf("%s: %s\n", names[i], strerror(ENOENT));
			status = 1;
			continue;
		}
		printf("%s: %s %llu\n", names[i], idx.mods[k].relpath,
		       (unsigned long long)idx.mods[k].sum.file_size);
	}
	ksc_kidx_free(&idx);
	return status;
}

int main(int argc, char **argv)
{
	const char *mode = NULL, *arg = NULL;
	bool old_way = false;
	int a = 1, status = 0;

	for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
		if (strcmp(argv[a], "--full") == 0) {
			old_way = true;
			continue;
		}
		if (a + 1 >= argc || (strcmp(argv[a], "--cut") != 0 &&
				      strcmp(argv[a], "--flip") != 0 &&
				      strcmp(argv[a], "--replace") != 0)) {
			fprintf(stderr, "kidx-probe: bad option %s\n", argv[a]);
			return 2;
		}
		mode = argv[a];
		arg = argv[++a];
	}
	if (argc - a < 1) {
		fprintf(stderr, "usage: kidx-probe [--full] [--cut N|--flip OFF|--replace FILE] INDEX NAME...\n");
		return 2;
	}
	const char *index = argv[a++];
	if (old_way)
		return full(index, argv + a, argc - a);
	struct kidx_map *m;
	int r = ksc_kidx_map(index, &m);
	if (r < 0) {
		printf("%s: %s\n", index, reason(r));
		return 2;
	}
	if (damage(mode, arg, index) < 0) {
		perror("kidx-probe");
		ksc_kidx_unmap(m);
		return 2;
	}
	for (; a < argc; a++) {
		struct kidx_hit hit;
		r = ksc_kidx_find(m, argv[a], &hit);
		if (r < 0) {
			printf("%s: %s\n", argv[a], reason(r));
			status = 1;
			continue;
		}
		printf("%s: %s %llu\n", argv[a], hit.relpath,
		       (unsigned long long)hit.key.file_size);
	}
	ksc_kidx_unmap(m);
	return status;
}
