/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libksymcheck, the tree wing: whole trees: every module of lib/modules/KVER.
 * Include <ksymcheck.h>, which includes every part in order; its first comment states
 * the conventions that hold for every declaration here.
 */
#ifndef KSYMCHECK_TREE_H
#define KSYMCHECK_TREE_H

#include <ksymcheck/engine.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------- */
/* Whole trees: every module of lib/modules/KVER, as depmod sees them, and verdicts    */
/*
 * Owned by lib/tree/ksc-tree.c, lib/tree/ksc-tree-format.c and lib/modset/ksc-modset-index.c.
 *
 * A struct ksc_tree is one kernel's module folder, ROOT/lib/modules/KVER, read the way
 * kmod's depmod reads it (doc/rules.md R26): the same files (every *.ko,
 * *.ko.gz, *.ko.xz, *.ko.zst below it, "build" and "source" skipped, symbolic links
 * followed; of two modules with one name the first found wins unless the other is below
 * updates/), the same order (modules.order, then kmod's hash order), the same symbol
 * resolution and dependency sort, so that ksc_tree_write_depmod() writes the files depmod
 * writes, byte for byte. On top of that every readable module is judged by
 * ksc_check_modules(), each as modprobe would load it into a fresh boot of the tree's
 * kernel (the other modules are its providers), unless opts->no_check.
 *
 * Modules are read in parallel (opts->jobs threads); on a first run (no index) the
 * kernel's exports load on a thread of their own meanwhile, so ctx's log function may be
 * called from that thread, at the same time as from the calling one: it must be
 * thread-safe (the default, and one that calls fprintf(), are).
 * A persistent index (opts->index)
 * keeps what was read, keyed by path, size, modification time and inode, plus the results
 * that depend on the whole tree; the next ksc_tree_open() re-reads only modules that
 * changed and redoes only what their changes affect. An index that is corrupt, truncated,
 * of another format version, another byte order or another tree is reported (warning)
 * and rebuilt: nothing in it is used before its checksum and every offset were checked.
 *
 * Problems with inputs (unreadable or malformed modules, dangling symbolic links,
 * symbolic link loops, unreadable folders) never stop the run: each is logged as
 * "<path>: <reason>" and listed by ksc_tree_get_problem(); the rest is processed.
 *
 * Modules are numbered 0..ksc_tree_get_module_count()-1 in depmod's order (the order of
 * modules.dep). Strings returned are owned by the tree and live as long as it.
 */
struct ksc_tree;

/*
 * Called from the thread that called ksc_tree_open(), now and then, while modules are
 * read (phase "read") and checked (phase "check"): `done` of `total` modules.
 */
typedef void (*ksc_tree_progress_fn)(void *data, const char *phase, size_t done, size_t total);

struct ksc_tree_opts {
	size_t sz;                   /* sizeof(struct ksc_tree_opts) */
	unsigned int jobs;           /* worker threads; 0 = one per CPU the process may use */
	const char *index;           /* index file to read and (ksc_tree_save_index) write; NULL: none */
	/*
	 * The kernel's own exports. When none is given, the first found of:
	 * lib/modules/KVER/build/Module.symvers, usr/src/linux-headers-KVER/Module.symvers,
	 * boot/vmlinux-KVER, usr/lib/debug/boot/vmlinux-KVER, lib/modules/KVER/build/vmlinux,
	 * boot/vmlinuz-KVER, boot/System.map-KVER (only if it lists exports) below ROOT.
	 * Without kernel exports there are no verdicts and no unresolved symbols.
	 */
	const char *symvers;
	const char *vmlinux;         /* vmlinux or bzImage */
	const char *system_map;
	const char *config;          /* default: boot/config-KVER, lib/modules/KVER/build/.config */
	bool no_kernel_search;       /* only the files named above */
	bool set_quirks;             /* use `quirks`; else as ksc_kernel_open() detects them */
	unsigned int quirks;         /* KSC_QUIRK_* */
	bool no_check;               /* no policy verdicts */
	const struct ksc_check_opts *check; /* NULL: defaults (policy: the tree's release) */
	ksc_tree_progress_fn progress;
	void *progress_data;
	/*
	 * Measure each module's read, decompress, parse and check time (the cpu_* of
	 * ksc_tree_get_stats()). Off, those are 0: a clock read per step and module is
	 * not free where the clock is a system call (as in many virtual machines).
	 */
	bool timing;
	/*
	 * The keys the kernel trusts (a reference is taken): the loader view verifies each
	 * module's signature with them, as ksc_kernel_set_keyring() does for
	 * ksc_check_modules(). NULL: a well-formed signature is assumed valid (sig-unverified).
	 */
	struct ksc_keyring *keyring;
};

/*
 * Read the tree ROOT/lib/modules/KVER (root NULL = "/", kver NULL = the running
 * kernel's release). 0, or -ENOENT when the folder does not exist, -EINVAL for bad
 * options (a kver that is not MAJOR.MINOR...), -ENOMEM; every other problem is reported
 * and counted, and the tree is returned.
 */
int ksc_tree_open(struct ksc_ctx *ctx, const char *root, const char *kver,
		  const struct ksc_tree_opts *opts, struct ksc_tree **out);
struct ksc_tree *ksc_tree_ref(struct ksc_tree *t);
struct ksc_tree *ksc_tree_unref(struct ksc_tree *t);

/* The folder read (absolute, as depmod names it: ROOT/lib/modules/KVER) and KVER. */
const char *ksc_tree_get_moddir(const struct ksc_tree *t);
const char *ksc_tree_get_release(const struct ksc_tree *t);
/* Where the kernel's exports were read from, or NULL when none were found. */
const char *ksc_tree_get_kernel_source(const struct ksc_tree *t);

/* The number of modules (one per kmod name, as depmod keeps them). */
size_t ksc_tree_get_module_count(const struct ksc_tree *t);
/* Module i: absolute path, path below the module folder (as in modules.dep), kmod's name. */
const char *ksc_tree_get_module_path(const struct ksc_tree *t, size_t i);
const char *ksc_tree_get_module_relpath(const struct ksc_tree *t, size_t i);
const char *ksc_tree_get_module_name(const struct ksc_tree *t, size_t i);
/* 0, or the -errno the library's reader failed with (the module has no verdict then). */
int ksc_tree_get_module_error(const struct ksc_tree *t, size_t i);
/* True when module i was taken from the index, not read in this run. */
bool ksc_tree_module_is_cached(const struct ksc_tree *t, size_t i);
/*
 * Module i as a struct ksc_module (the caller owns the reference): rebuilt from what was
 * read, without reading the file again. ksc_module_has_section() of such a module knows
 * only the kernel's tables (__ksymtab*, __kcrctab*, __kflagstab, __versions,
 * __version_ext_*, .modinfo, .gnu.linkonce.this_module, .symtab). -ENOEXEC when the
 * module could not be read, -ERANGE for a bad index.
 */
int ksc_tree_get_module(const struct ksc_tree *t, size_t i, struct ksc_module **out);

/*
 * Dependencies, as depmod resolves them: direct ones in the order depmod found them
 * (the first symbol that needed each), and with _get_all_deps every module needed
 * directly or not, in modules.dep order. _get_all_deps writes at most n indices to buf
 * and returns how many there are (or (size_t)-1 when out of memory).
 */
size_t ksc_tree_get_dep_count(const struct ksc_tree *t, size_t i);
size_t ksc_tree_get_dep(const struct ksc_tree *t, size_t i, size_t j);
size_t ksc_tree_get_all_deps(const struct ksc_tree *t, size_t i, size_t *buf, size_t n);

/* Symbols no module and not the kernel exports (depmod -e's "needs unknown symbol"). */
enum ksc_tree_unresolved_kind {
	KSC_TREE_UNKNOWN_SYMBOL = 1, /* "%s needs unknown symbol %s" */
	KSC_TREE_CRC_DIFFERS = 2,    /* "%s disagrees about version of symbol %s" (Module.symvers) */
};
struct ksc_tree_unresolved {
	size_t module;
	const char *symbol;
	enum ksc_tree_unresolved_kind kind;
};
/* Only with kernel exports; weak symbols are never listed (as depmod). */
size_t ksc_tree_get_unresolved_count(const struct ksc_tree *t);
const struct ksc_tree_unresolved *ksc_tree_get_unresolved(const struct ksc_tree *t, size_t i);

/*
 * Dependency cycles (depmod: "Cycle detected: a -> b -> a"): cycle i has n modules;
 * *mods (owned by the tree) lists them in dependency order, each once (the first
 * depends on the second, ..., the last on the first).
 */
size_t ksc_tree_get_cycle_count(const struct ksc_tree *t);
size_t ksc_tree_get_cycle(const struct ksc_tree *t, size_t i, const size_t **mods);

/*
 * Verdicts (ksc_check_modules() per module). NULL when module i has none (unreadable,
 * no kernel exports, or opts->no_check). In the verdict, `module` is NULL; diag indices
 * and module_index refer to the tree.
 */
bool ksc_tree_has_verdicts(const struct ksc_tree *t);
const char *ksc_tree_get_policy(const struct ksc_tree *t);
const struct ksc_module_verdict *ksc_tree_get_verdict(const struct ksc_tree *t, size_t i);
size_t ksc_tree_get_diag_count(const struct ksc_tree *t);
const struct ksc_diag *ksc_tree_get_diag(const struct ksc_tree *t, size_t i);

/* Problems with inputs, sorted by path; each was also logged as "<path>: <reason>". */
struct ksc_tree_problem {
	const char *path;
	const char *reason;
	int err;                     /* -errno */
};
/* The problems, counted and one at a time (NULL past the end). */
size_t ksc_tree_get_problem_count(const struct ksc_tree *t);
const struct ksc_tree_problem *ksc_tree_get_problem(const struct ksc_tree *t, size_t i);

/* depmod's files. */
enum ksc_depmod_file {
	KSC_DEPMOD_DEP = 1 << 0,      /* modules.dep */
	KSC_DEPMOD_SYMBOLS = 1 << 1,  /* modules.symbols */
	KSC_DEPMOD_ALIAS = 1 << 2,    /* modules.alias */
	KSC_DEPMOD_SOFTDEP = 1 << 3,  /* modules.softdep */
	KSC_DEPMOD_DEVNAME = 1 << 4,  /* modules.devname */
	KSC_DEPMOD_ALL = (1 << 5) - 1,
};
/* The file name of one KSC_DEPMOD_* value ("modules.dep"), or NULL. Static string. */
const char *ksc_depmod_file_name(unsigned int file);
/*
 * Write the files in `what` into `dir` (NULL: the module folder), each atomically: a
 * temporary file in `dir`, fsync, rename over the old one (whose permission bits it
 * keeps); on failure the temporary file is removed and the old file left as it was.
 * None is written when one of them is a device, a FIFO, a socket or a folder
 * (-EMEDIUMTYPE, logged as "DIR/NAME: not a regular file; not replaced"). A file whose content and whose copy on
 * disk are unchanged since the index recorded them is not rewritten. The binary *.bin
 * indexes are not written. A module whose path has a space, a colon or a control
 * character, an alias or softdep value with a control character (a device name with a
 * space) and an exported symbol name with either is left out of the files and logged
 * ("PATH: reason: left out of ..."): such text would split or forge a line (depmod writes
 * it as it is). 0, or the number left out, or -EDEADLK when there are dependency cycles
 * (depmod then writes nothing either; nothing is written), or -errno of the first failure.
 */
int ksc_tree_write_depmod(struct ksc_tree *t, const char *dir, unsigned int what);
/*
 * One file (a single KSC_DEPMOD_* value) to a stream, leaving out what
 * ksc_tree_write_depmod() leaves out. 0, the number left out, or -errno.
 */
int ksc_tree_print_depmod(const struct ksc_tree *t, unsigned int file, FILE *f);

/*
 * Write the index to opts->index (atomically: temporary file + rename; its folder is
 * created). Not rewritten when nothing it holds changed (a few modules only touched, with
 * identical contents, are simply read again next time). An existing file keeps its
 * permission bits; a device, a FIFO, a socket or a folder is never replaced
 * (-EMEDIUMTYPE, logged as "PATH: not a regular file; not replaced"). 0 or -errno.
 */
int ksc_tree_save_index(struct ksc_tree *t);

enum ksc_tree_index_state {
	KSC_TREE_INDEX_NONE = 0,     /* no index asked for */
	KSC_TREE_INDEX_ABSENT,       /* asked for, not there yet */
	KSC_TREE_INDEX_USED,         /* read and used */
	KSC_TREE_INDEX_REBUILT,      /* corrupt, foreign or unreadable: ignored, rebuilt */
};

/*
 * Where the time went. Times in seconds; cpu_* are the worker threads' time per step,
 * summed, measured only with ksc_tree_opts.timing (else 0). Steps overlap: wall_kernel
 * (the kernel's exports, on a thread of their own on a first run) runs beside the walk
 * and the read; wall_index_load is opening the index, whose check runs inside the
 * walk (wall_walk), beside the folder and module checks.
 */
struct ksc_tree_stats {
	unsigned int jobs;
	enum ksc_tree_index_state index_state;
	size_t modules, read, cached, unreadable, checked;
	uint64_t bytes_read, bytes_decompressed;
	double wall_total, wall_walk, wall_index_load, wall_read, wall_kernel, wall_resolve,
	       wall_check, wall_write_depmod, wall_index_save;
	double cpu_read, cpu_decompress, cpu_parse, cpu_check;
};
/* Fill *st with the numbers of the ksc_tree_open() (and later calls) of `t`. */
void ksc_tree_get_stats(const struct ksc_tree *t, struct ksc_tree_stats *st);

/*
 * The kernel ksc_kernel_open(ctx, root, kver) would give for the tree's root and release
 * (the tree opened without options naming the kernel's files), made from what the tree
 * read or found in its index instead of reading every module again: the same modules
 * (depmod's choice of file per name, and the file each replaced), exports, vermagic,
 * configuration and quirks, the module paths written under root as given. 0; -ENODATA
 * when the tree cannot stand for that kernel (a problem was met, a symbolic link walked,
 * exports from System.map or none, files named by options): use ksc_kernel_open();
 * -ENOMEM.
 */
int ksc_tree_get_kernel(struct ksc_tree *t, struct ksc_ctx *ctx, struct ksc_kernel **out);

/*
 * Call fn for every module file (by name, ksc_path_is_module_name()) below `dir`, sorted,
 * following symbolic links, skipping the top-level names in `skip` (NULL-terminated, may
 * be NULL). A `dir` that is a file is passed to fn as it is. Problems are logged as
 * "<path>: <reason>" and counted in *errors. Stops early only when fn returns <0 and
 * returns that value; else 0, or -errno when `dir` itself cannot be read (logged).
 */
typedef int (*ksc_walk_fn)(const char *path, void *data);
int ksc_walk_modules(struct ksc_ctx *ctx, const char *dir, const char *const *skip,
		     ksc_walk_fn fn, void *data, unsigned int *errors);

#ifdef __cplusplus
}
#endif

#endif /* KSYMCHECK_TREE_H */
