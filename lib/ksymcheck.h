/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libksymcheck: read the kernel's own artifacts (modules, vmlinux, Module.symvers,
 * System.map) and tell which exported symbols a module uses and whether Linux allows it.
 *
 * Conventions (the same everywhere in this header):
 *  - Every public name starts with ksc_ / KSC_.
 *  - Every object is opaque and one of two kinds, with one rule each:
 *     - Reference counted: struct ksc_ctx, ksc_module, ksc_symvers, ksc_sysmap,
 *       ksc_keyring, ksc_kernel, ksc_kernel_location, ksc_src, ksc_tree, ksc_report. A
 *       function that creates one (_new..., _open, ksc_check_modules()) stores it in its
 *       `out` argument with one reference, which the caller owns and gives back with the
 *       matching _unref(). _ref() takes one more and returns its argument; _unref() drops
 *       one and frees the object with the last one.
 *     - Plain values with one owner: struct ksc_srcedit, ksc_audit, ksc_diff,
 *       ksc_compat. The function that creates one gives it to the caller, who frees it
 *       with its _free(); there is no _ref().
 *    _unref() and _free() accept NULL and always return NULL (p = ksc_x_unref(p) and
 *    p = ksc_x_free(p) leave no dangling pointer). Every object holds a reference to its
 *    ctx.
 *  - Options structs (struct ksc_*_opts) start with `size_t sz`, set by the caller to
 *    sizeof the struct it was built with: a smaller (older) struct is accepted, the fields
 *    it lacks taking their defaults; a larger (newer) one only when the bytes this
 *    library does not know are zero, else -EINVAL. NULL options mean the defaults.
 *  - Functions returning int give 0 (or a count) on success and a negative errno on failure;
 *    on failure the `out` argument is NULL (or untouched) and nothing is owed to the caller:
 *      -ENOENT      the file does not exist
 *      -EISDIR      a directory was given where a file was expected
 *      -ENOEXEC     not an ELF file / not a kernel module or vmlinux
 *      -EINVAL      malformed input, or an invalid argument (the log function was told what
 *                   is wrong when it came from a file)
 *      -EOPNOTSUPP  unsupported compression, ELF class or machine
 *      -ENOMEM      out of memory
 *    and, from reading and writing files, the errno of the failing call (-EACCES, -EIO,
 *    -ENOSPC, ...; -EFBIG for a file too large to read).
 *    Every failure caused by a file is also reported through the ctx's log function as one
 *    message of the form "<path>: <reason>".
 *  - Strings and records returned by getters are owned by the object they came from and
 *    stay valid until that object is freed (or, where a comment says so, changed); do not
 *    free or modify them. Getters taking an index return NULL when it is out of range.
 *    What the caller must free is said at each function (e.g. ksc_srcedit_get_result()).
 *  - "Static string": a constant that lives as long as the program.
 *  - Each function below is documented by the comment above it or, for a group of
 *    declarations without a blank line between them, by the comment above the group.
 *  - The library never prints: messages go to the log function (default: errors to
 *    stderr, prefixed "libksymcheck: ").
 */
#ifndef KSYMCHECK_H
#define KSYMCHECK_H

#define KSC_VERSION_STRING "0.1.0"

/*
 * One header per wing of the library (doc/architecture.md), lowest first; each includes
 * the ones it builds on, and this one includes them all.
 */
#include <ksymcheck/base.h>
#include <ksymcheck/readers.h>
#include <ksymcheck/kernel.h>
#include <ksymcheck/engine.h>
#include <ksymcheck/source.h>
#include <ksymcheck/tree.h>
#include <ksymcheck/report.h>

#endif /* KSYMCHECK_H */
