/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The module set (ksc-modset.c): which file depmod, and so modprobe, takes for each
 * module name when a release's module folder holds several files of one name. Private to
 * the library; shared by the kernel (ksc-kernel.c) and the tree (ksc-tree.c) so that
 * `check`, `audit`, `nsdeps`, `diff` and `tree` pick the same file for each name.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/macro.h"

struct ksc_ctx;

/* depmod.d as depmod reads it (kmod tools/depmod.c: struct cfg). Opaque. */
struct ksc_depmod_cfg;

/* An empty configuration for kernel release `kversion` (override/external lines match it). */
struct ksc_depmod_cfg *ksc_depmod_cfg_new(const char *kversion);
void ksc_depmod_cfg_free(struct ksc_depmod_cfg *cfg);

/*
 * Parse one configuration file's text (depmod's cfg_file_parse()): `search`, `override`,
 * `external` and `exclude` lines; bad lines are logged as "name:line: ..." and skipped.
 * 0 or -ENOMEM.
 */
int ksc_depmod_cfg_parse(struct ksc_ctx *ctx, struct ksc_depmod_cfg *cfg, const char *name,
			 const char *text, size_t len) _must_check_;

/*
 * After the last file (depmod's cfg_load()): without any `search` line, "updates" alone
 * is searched before the rest. 0 or -ENOMEM.
 */
int ksc_depmod_cfg_finish(struct ksc_depmod_cfg *cfg) _must_check_;

/*
 * Read the configuration of `root` ("" or "/": this machine) for `kversion`: the
 * *.conf files of ROOT/{etc,run,usr/local/lib,usr/lib,lib}/depmod.d, sorted by name, a
 * name seen in an earlier folder hiding the same name in later ones, absolute links
 * resolved inside ROOT. Missing folders are no error. 0 and *out, or -ENOMEM.
 */
int ksc_depmod_cfg_load(struct ksc_ctx *ctx, const char *root, const char *kversion,
			struct ksc_depmod_cfg **out) _must_check_;

/* A fingerprint of what the configuration decides (not of its comments or file names). */
uint64_t ksc_depmod_cfg_fingerprint(const struct ksc_depmod_cfg *cfg);
/* Folders given by `external` lines: parsed, not searched (doc/kernels.md). */
size_t ksc_depmod_cfg_external_count(const struct ksc_depmod_cfg *cfg);

/* depmod's should_exclude_dir(): ".", "..", "build", "source" and `exclude` names. */
bool ksc_depmod_should_exclude_dir(const struct ksc_depmod_cfg *cfg, const char *name);

/*
 * depmod_module_is_higher_priority(): does the file already chosen for a name, at
 * `oldrel` (relative to the module folder), stay chosen when the walk meets `newrel`
 * with the same name? `override` first, then the `search` order, everything no search
 * entry names ranking as "built-in".
 */
bool ksc_depmod_module_is_higher_priority(const struct ksc_depmod_cfg *cfg,
					  const char *oldrel, const char *newrel);

/*
 * Why `rel` ranks where it does, for messages: "depmod.d: override kvm * updates/dkms",
 * "depmod.d: search extra", "depmod searches updates/ first" (no search line), or
 * "depmod's order: the first file met". Written into buf (size > 0); returns buf.
 */
const char *ksc_depmod_module_rank_reason(const struct ksc_depmod_cfg *cfg, const char *rel,
					  char *buf, size_t size);

/*
 * depmod_modules_search(): walk `moddir` in readdir order as depmod does (excluded names
 * skipped at every level, symbolic links followed, loops and unreadable entries logged
 * as "<path>: <reason>" and counted in *errors), keep one file per kmod name by the rules
 * above, then call fn for every kept file, sorted by path. `replaced` is the path,
 * relative to moddir, of a file of the same name that the kept one won over (NULL when
 * it had no rival). Stops when fn returns <0; 0 or that value, -ENOMEM.
 */
typedef int (*ksc_modset_fn)(const char *path, const char *replaced, void *data);
int ksc_depmod_modules_search(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg,
			      const char *moddir, ksc_modset_fn fn, void *data,
			      unsigned int *errors) _must_check_;

/* The same, fn also given the file's stat() as the walk made it. */
struct stat;
typedef int (*ksc_modset_st_fn)(const char *path, const char *replaced, const struct stat *st,
				void *data);
int ksc_depmod_modules_search_st(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg,
				 const char *moddir, ksc_modset_st_fn fn, void *data,
				 unsigned int *errors) _must_check_;

struct ksc_kernel;
struct ksc_module;
/*
 * `mod`, just added to `k` (ksc_kernel_add_module()), is the file depmod keeps for its
 * name, at `relpath` below the module folder, over `replaced`: remember both and why
 * (for the "replaces" explanation of checks and audits), and log it. 0 or -ENOMEM.
 */
int ksc_kernel_note_replaced(struct ksc_kernel *k, const struct ksc_depmod_cfg *cfg,
			     const struct ksc_module *mod, const char *relpath,
			     const char *replaced) _must_check_;
