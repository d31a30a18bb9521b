// SPDX-License-Identifier: LGPL-2.1-or-later
/* Checks before a file is replaced: shared by every writer of the library. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"

const char *ksc_write_strerror(int err)
{
	return err == KSC_ENOTREG ? "not a regular file; not replaced" : strerror(err);
}

int ksc_write_target_check(int dfd, const char *name, mode_t *mode)
{
	struct stat st;

	*mode = (mode_t)-1;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return 0;
	if (!S_ISREG(st.st_mode))
		return -KSC_ENOTREG;
	*mode = st.st_mode & 07777;
	return 0;
}
