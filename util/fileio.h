/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <sys/types.h>

#include "macro.h"

/*
 * A write target that exists and is not a regular file or a symbolic link (a device, a
 * FIFO, a socket, a folder): never renamed over, so that `--index /dev/null` run as root
 * cannot turn /dev/null into a regular file. Reported as "PATH: not a regular file; not
 * replaced" (ksc_write_strerror()).
 */
#define KSC_ENOTREG EMEDIUMTYPE
const char *ksc_write_strerror(int err);
/*
 * Whether dir/name may be replaced (see KSC_ENOTREG): 0, with *mode the permission bits
 * of an existing regular file (the new one gets them), or (mode_t)-1 when there is none
 * (or a symbolic link, replaced itself); -KSC_ENOTREG or another -errno.
 */
int ksc_write_target_check(int dfd, const char *name, mode_t *mode) _must_check_;
