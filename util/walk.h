/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/*
 * One folder walk for every caller: a folder is listed through its descriptor
 * (fdopendir(), fstatat()), its entries sorted by name or left in readdir() order as the
 * caller asks, symbolic links followed or not, names excluded by a callback, kinds of
 * entry kept by a mask. walk_tree() goes depth-first below a root: it detects loops by
 * the (device, inode) of the folders on the current path, bounds the depth and the
 * entries, and reports each problem through a callback and goes on.
 *
 * A walk holds the folders above the current one open down to 32 levels (a folder is
 * opened from its parent: one lookup, not the whole path again); deeper, a folder is
 * read whole and closed before the walk goes down (opened again, and checked to be the
 * same, for the files after), so a tree thousands of levels deep needs neither
 * thousands of open files nor a large stack (each level keeps its sorted names on the
 * heap).
 *
 *	static int on_file(const struct walk_entry *e, void *data) { ... e->path ... }
 *	struct walk_opts o = { .flags = WALK_SORTED | WALK_FOLLOW, .kinds = WALK_KIND_REG,
 *			       .file = on_file, .problem = on_problem, .data = &state };
 *	r = walk_tree("/lib/modules/6.12", &o);
 */

enum {
	WALK_SORTED = 1 << 0, /* a folder's entries by strcmp() of their names */
	WALK_FOLLOW = 1 << 1, /* symbolic links followed; else listed as links */
};

/* Kinds of entry kept in a listing (walk_opts.kinds); folders are always kept. */
enum {
	WALK_KIND_REG = 1 << 0,   /* regular files */
	WALK_KIND_LNK = 1 << 1,   /* symbolic links (without WALK_FOLLOW) */
	WALK_KIND_OTHER = 1 << 2, /* devices, fifos, sockets */
};

enum walk_problem {
	WALK_ERRNO,    /* a system call failed: err says why */
	WALK_DANGLING, /* a symbolic link to nothing (with WALK_FOLLOW) */
	WALK_LOOP,     /* a folder that is also one of its own parents */
	WALK_TOO_DEEP, /* below walk_opts.max_depth: not entered */
	WALK_TOO_MANY, /* more than walk_opts.max_entries in a folder: the rest dropped */
	WALK_INTO_PROC, /* a symbolic link into /proc (with walk_opts.root): not followed */
	WALK_INTO_SYS,  /* a symbolic link into /sys (with walk_opts.root): not followed */
};

/* An entry as the walk hands it out. */
struct walk_entry {
	const char *path;   /* the folder's path as given, "/", the name */
	const char *name;   /* the last component of path */
	unsigned char type; /* DT_DIR, DT_REG, DT_LNK or another DT_ */
	unsigned int depth; /* 0 for the root, 1 for its entries ... */
	const struct stat *st; /* a folder's (enter only), else NULL */
	/*
	 * The open folder: for file(), the one holding the entry (openat(dfd, name));
	 * for enter(), the folder itself. Valid during the call only; the walk's to close.
	 */
	int dfd;
	/*
	 * Reached through a symbolic link (its own, or a folder's above it): open it by its
	 * path with walk_open(o, path, ...), which resolves the link as the walk did.
	 */
	bool link;
};

struct walk_opts {
	unsigned int flags; /* WALK_SORTED, WALK_FOLLOW */
	unsigned int kinds; /* WALK_KIND_*: which entries besides folders are kept */
	unsigned int max_depth; /* folders entered at most this deep; 0: WALK_MAX_DEPTH */
	size_t max_entries;     /* per folder; 0: WALK_MAX_ENTRIES */
	/* true: the name is left out of its folder's listing (before any stat). */
	bool (*exclude)(const char *name, unsigned int depth, void *data);
	/* A folder about to be listed (the root too): >0 list it, 0 skip it, <0 stop. */
	int (*enter)(const struct walk_entry *e, void *data);
	/* An entry that is not a folder, of the kinds kept: 0 go on, <0 stop. */
	int (*file)(const struct walk_entry *e, void *data);
	/*
	 * The walk is done with fd, the open folder its files were handed out with (at the
	 * folder's end, or before it goes deep below it): true when the callback keeps fd
	 * (then the callback's to close), false or NULL and the walk closes it.
	 */
	bool (*keep_fd)(int fd, void *data);
	/* A problem at path; err is a -errno for WALK_ERRNO. The walk goes on. */
	void (*problem)(const char *path, enum walk_problem what, int err, void *data);
	void *data;
	/*
	 * The folder the walk stays in, or NULL (or "" or "/"): the host's. Symbolic links
	 * are resolved inside it as if it were / (an absolute link names a path below it,
	 * ".." stops at it), magic links (/proc/self/fd/N) are not followed, and neither is
	 * a link that leads into /proc or /sys. The walk's root must be below it.
	 */
	const char *root;
};

/* A path of PATH_MAX holds at most this many levels of one-letter names. */
#define WALK_MAX_DEPTH 2048
#define WALK_MAX_ENTRIES ((size_t)1 << 22)

/* One folder's entries: names back to back in one block, each entry pointing into it. */
struct walk_list {
	struct walk_list_entry {
		const char *name;
		unsigned char type; /* DT_*; DT_UNKNOWN with err set when it could not be told */
		unsigned char why;  /* with err: the problem (enum walk_problem) */
		bool link;          /* a symbolic link followed */
		int err;            /* 0, or -errno of its stat (-ENOENT: dangling link) */
	} *v;
	size_t n, cap;
	char *names;
	size_t len, names_cap;
};

/*
 * The entries of the open folder dfd (at depth, named path in problems) by the options'
 * rules: "." and ".." never, excluded names and kinds not kept left out, the types
 * resolved (fstatat() when readdir() does not say, or for a link followed). An entry
 * whose type cannot be told is kept with its err for the caller to report in its order.
 * dfd stays the caller's (read from its start with getdents64(): its offset moves). 0, or -ENOMEM (the list is then empty again).
 */
int walk_list_read(int dfd, const char *path, unsigned int depth, const struct walk_opts *o,
		   struct walk_list *l);
void walk_list_fini(struct walk_list *l);

/*
 * Walk below root by the options: enter() for root and each folder, file() for the other
 * entries kept, problem() for what cannot be walked. 0 when walked (problems or not), the
 * first <0 a callback returned, or -ENOMEM. root that is not a folder is a problem.
 */
int walk_tree(const char *root, const struct walk_opts *o);

/*
 * Open path (a folder the walk met, or an entry of one) as the walk resolves it: inside
 * o->root when set (openat2() RESOLVE_IN_ROOT, no magic links; before Linux 5.6 the
 * path resolved by util/fileio.h's ksc_resolve_in_root()), else open(2). O_CLOEXEC is
 * added. A descriptor, or -errno.
 */
int walk_open(const struct walk_opts *o, const char *path, int flags);

/* A short English reason for a problem other than WALK_ERRNO ("symbolic link loop"). */
const char *walk_problem_str(enum walk_problem what);
