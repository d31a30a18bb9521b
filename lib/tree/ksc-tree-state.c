// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The small helpers the steps share. A lower file of the tree: it calls no step and not
 * ksc-tree.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tree/tree-private.h"

int make_absolute(const char *p, char **out)
{
	char cwd[PATH_MAX];

	if (!p || !*p)
		p = "/";
	if (p[0] == '/') {
		*out = strdup(p);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		if (asprintf(out, "%s/%s", cwd, p) < 0)
			*out = NULL;
	}
	if (!*out)
		return -ENOMEM;
	size_t n = strlen(*out);
	while (n > 1 && (*out)[n - 1] == '/')
		(*out)[--n] = '\0';
	return 0;
}

/*
 * `rel` (below the module folder) opened as the tree's root sees it: RESOLVE_IN_ROOT
 * from the root, so that an absolute symbolic link, or ".." above the root, stays inside
 * it, and no /proc magic link is followed (RESOLVE_NO_MAGICLINKS).
 *
 * Why IN_ROOT and not BENEATH: kmod's depmod -b ROOT follows links with the machine's
 * own resolution (openat() and fstatat() in depmod_modules_search_dir()), so an absolute
 * link leaves ROOT: that is the escape, not a rule to copy. The tree in ROOT is a
 * system's "/": depmod run on that system (or chrooted into ROOT) resolves an absolute
 * link inside it, and trees rely on that (weak-updates/ links to
 * /lib/modules/OTHER/...). BENEATH would refuse those links; IN_ROOT reads what the
 * installed system's depmod reads. The kernel locator and depmod.d resolve the same way
 * (ksc_resolve_in_root()), which is also the fallback when openat2() is missing.
 * A file descriptor, or -1 with errno set.
 */
int tree_openat(const struct ksc_tree *t, const char *rel, int flags)
{
	size_t rl = strlen(t->root);
	const char *mrel = t->moddir;
	char path[PATH_MAX], real[PATH_MAX];

	if (strncmp(t->moddir, t->root, rl) == 0)
		mrel += rl;
	while (*mrel == '/')
		mrel++;
	if ((size_t)snprintf(path, sizeof(path), "%s%s%s", mrel, *mrel ? "/" : "", rel) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int rfd = open(t->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -1;
	struct open_how how = { .flags = (uint64_t)flags,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	int e = errno;
	close(rfd);
	if (fd >= 0 || (e != ENOSYS && e != EPERM)) {
		errno = e;
		return fd;
	}
	/* no openat2() (before 5.6, or a seccomp filter): the locator's resolver */
	int r = ksc_resolve_in_root(t->root, path, real, sizeof(real));
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return open(real, flags | O_NOFOLLOW);
}

int finish_index(struct ksc_tree *t)
{
	int r = ksc_kidx_finish(&t->idx);

	return r < 0 ? r : ksc_kder_validate_index(&t->idx);
}
