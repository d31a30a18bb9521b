/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libksymcheck, the source wing: export and import macros as written in C, and rewriting them.
 * Include <ksymcheck.h>, which includes every part in order; its first comment states
 * the conventions that hold for every declaration here.
 */
#ifndef KSYMCHECK_SOURCE_H
#define KSYMCHECK_SOURCE_H

#include <ksymcheck/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------- */
/* Sources: export and import macros as written in C, and rewriting them              */

/*
 * A scan of C sources (.c, .h, .S) for what ends up in the export tables and .modinfo:
 * EXPORT_SYMBOL, _GPL, _NS, _NS_GPL, EXPORT_SYMBOL_GPL_FOR_MODULES (6.16),
 * EXPORT_SYMBOL_FOR_MODULES (6.17+), EXPORT_SYMBOL_FOR_KVM[_INTERNAL] (6.19+),
 * MODULE_IMPORT_NS, MODULE_LICENSE, and DEFAULT_SYMBOL_NAMESPACE (a #define in the file,
 * or -DDEFAULT_SYMBOL_NAMESPACE= in the folder's Kbuild/Makefile ccflags-y,
 * subdir-ccflags-y or CFLAGS_<obj>.o). Both namespace spellings are read: identifiers
 * (5.4 - 6.12) and string literals (6.13+) (doc/rules.md R1, R2).
 *
 * The scanner is a small C lexer: comments, string and character literals and line
 * continuations are handled, macro arguments may spread over lines, and a use inside a
 * #define body or another directive is not an export. It does not evaluate #if: an
 * export under "#ifdef CONFIG_X" is reported whatever the configuration.
 */
struct ksc_src;

enum ksc_src_kind {
	KSC_SRC_EXPORT = 1,   /* an EXPORT_SYMBOL* invocation */
	KSC_SRC_IMPORT_NS,    /* MODULE_IMPORT_NS(ns) */
	KSC_SRC_LICENSE,      /* MODULE_LICENSE("...") */
	KSC_SRC_DEFAULT_NS,   /* #define / #undef DEFAULT_SYMBOL_NAMESPACE, or a Makefile -D */
	KSC_SRC_MENTION,      /* with KSC_SRC_MENTIONS: a keyword that is none of the above */
};

/* How a namespace is written. */
enum ksc_src_spelling {
	KSC_SRC_SPELL_NONE = 0,  /* no namespace written (none, or taken from the default) */
	KSC_SRC_SPELL_IDENT,     /* an identifier the macro stringifies (5.4 - 6.12) */
	KSC_SRC_SPELL_STRING,    /* one or more string literals (6.13+) */
	KSC_SRC_SPELL_OTHER,     /* anything else, e.g. a macro expression; ns holds its text */
};

/* Why a keyword is not a record (KSC_SRC_MENTION). */
enum ksc_src_mention {
	KSC_SRC_MENTION_NONE = 0,
	KSC_SRC_IN_COMMENT,      /* inside a comment */
	KSC_SRC_IN_STRING,       /* inside a string or character literal */
	KSC_SRC_IN_DEFINE,       /* in a #define (the macro's name or its body) */
	KSC_SRC_IN_DIRECTIVE,    /* in another directive (#ifdef, #undef, ...); in .S a # line */
	KSC_SRC_OTHER_MACRO,     /* part of another identifier, e.g. ACPI_EXPORT_SYMBOL */
	KSC_SRC_NOT_INVOKED,     /* the macro's name without an argument list */
	KSC_SRC_BAD_ARGS,        /* an argument list the macro cannot take */
};

/* One record. Strings are owned by the ksc_src and live as long as it does. */
struct ksc_src_record {
	enum ksc_src_kind kind;
	const char *path;         /* as scanned: the PATH given, joined with the relative path */
	unsigned int line, column; /* 1-based position of the macro's name (column in bytes) */
	const char *macro;        /* the name as written; for Makefile -D the variable name
				   * (e.g. "ccflags-y"); "#define" / "#undef" for directives */
	const char *symbol;       /* KSC_SRC_EXPORT: the exported symbol; else NULL */
	const char *ns;           /* EXPORT: the namespace the export gets ("" none), as stored
				   * in the binary (module:... for FOR_MODULES / FOR_KVM);
				   * IMPORT_NS, DEFAULT_NS: the namespace ("" for #undef); else NULL */
	const char *license;      /* KSC_SRC_LICENSE: the license string; else NULL */
	const char *ns_from;      /* EXPORT with a namespace from DEFAULT_SYMBOL_NAMESPACE:
				   * "path:line" of its #define or Makefile line; else NULL */
	bool gpl_only;            /* EXPORT: _GPL, _NS_GPL and every FOR_MODULES / FOR_KVM */
	enum ksc_src_spelling spelling; /* how the namespace (or the default's value) is written */
	enum ksc_src_mention mention;   /* KSC_SRC_MENTION: why it is not a record */
	/*
	 * DEFAULT_NS #define / #undef after the file's first #include: include/linux/export.h
	 * tests "#ifdef DEFAULT_SYMBOL_NAMESPACE" once, when it is read, so if the includes
	 * before it pulled export.h in, this line no longer decides whether EXPORT_SYMBOL
	 * gets a namespace (it still gives the value when one was defined by then). The
	 * scanner assumes that they did, as linux/module.h and most headers do.
	 */
	bool after_include;
	size_t offset, end;       /* byte range from the macro's name to after its ')' */
	size_t ns_offset, ns_end; /* byte range of the namespace as written (argument, #define
				   * value, -D value); both 0 when there is none */
};

#define KSC_SRC_MENTIONS 0x1u /* also report keywords that are not records */

struct ksc_src_opts {
	size_t sz;                   /* sizeof(struct ksc_src_opts) */
	unsigned int flags;          /* KSC_SRC_* */
	unsigned int threads;        /* folders are scanned by this many threads; 0: one per CPU */
	const char *kvm_sub_modules; /* R1: KVM_SUB_MODULES for EXPORT_SYMBOL_FOR_KVM*; NULL:
				      * "kvm-amd,kvm-intel" (x86 with both vendor modules =m) */
};

/*
 * An empty scan. `opts` NULL: defaults. 0 and *out = a new scan (the caller's reference:
 * ksc_src_unref()), -EINVAL (bad arguments or opts), -ENOMEM. _ref: one more reference,
 * returns src; _unref: drops one, returns NULL.
 */
int ksc_src_new(struct ksc_ctx *ctx, const struct ksc_src_opts *opts, struct ksc_src **out);
struct ksc_src *ksc_src_ref(struct ksc_src *src);
struct ksc_src *ksc_src_unref(struct ksc_src *src);
/*
 * Scan a file, or every .c, .h and .S file below a folder (symbolic links inside it are
 * not followed, as grep -r). Each folder's Kbuild (else Makefile) is read for its
 * DEFAULT_SYMBOL_NAMESPACE flags; a file given alone gets those of its own folder. The
 * records of one call come in path order (bytes), then file order. Unreadable files are
 * reported as "<path>: <reason>", counted and skipped. Returns the number of files
 * scanned, or -errno when `path` itself cannot be read.
 */
int ksc_src_add_path(struct ksc_src *src, const char *path);
/*
 * Scan one file's bytes (copied as needed); the language follows `name` (.S: assembler).
 * Returns 1 (one file scanned), -EINVAL (name NULL, or data NULL with a size), -ENOMEM.
 */
int ksc_src_add_memory(struct ksc_src *src, const char *name, const char *data, size_t size);
/*
 * The records found so far. Record i is owned by the scan (NULL when i >= the count); the
 * pointer is valid until the next ksc_src_add_*() or ksc_src_unref(), its strings as long
 * as the scan.
 */
size_t ksc_src_get_record_count(const struct ksc_src *src);
const struct ksc_src_record *ksc_src_get_record(const struct ksc_src *src, size_t i);
/* Files read (all of them, with or without records), and files that could not be read. */
size_t ksc_src_get_file_count(const struct ksc_src *src);
unsigned int ksc_src_get_error_count(const struct ksc_src *src);
/* "export", "import_ns", "license", "default_ns", "mention". Static string. */
const char *ksc_src_kind_name(enum ksc_src_kind kind);
/* "none", "identifier", "string", "other". Static string. */
const char *ksc_src_spelling_name(enum ksc_src_spelling s);
/* "comment", "string", "define", "directive", "other-macro", "not-invoked", "bad-args". */
const char *ksc_src_mention_name(enum ksc_src_mention m);

/*
 * One source file and changes planned to it, applied all at once. The file is read once
 * (ksc_srcedit_new_from_path); every edit is a byte range of that content, so only the
 * intended bytes change. Plain value: freed with ksc_srcedit_free().
 */
struct ksc_srcedit;

/* Something a planner could not (or must not) change, with the reason. Owned by the edit. */
struct ksc_srcedit_note {
	unsigned int line;
	const char *text;
};

/*
 * Read a source file: 0 and *out = a new edit (the caller frees it with
 * ksc_srcedit_free()), or -EINVAL (NULL arguments, not a regular file), -EISDIR, the
 * -errno of open or read (-ENOENT, -EACCES, ...), -ENOMEM; logged as "<path>: <reason>".
 */
int ksc_srcedit_new_from_path(struct ksc_ctx *ctx, const char *path, struct ksc_srcedit **out);
/* The same on bytes in memory (copied); `path` names it (and picks the language). */
int ksc_srcedit_new_from_memory(struct ksc_ctx *ctx, const char *path, const char *data,
				size_t size, struct ksc_srcedit **out);
/* Free an edit and everything it owns. Accepts NULL; returns NULL. */
struct ksc_srcedit *ksc_srcedit_free(struct ksc_srcedit *e);
/* The path given. Owned by the edit. */
const char *ksc_srcedit_get_path(const struct ksc_srcedit *e);
/* The content as read. Owned by the edit. */
const char *ksc_srcedit_get_data(const struct ksc_srcedit *e, size_t *size);
/*
 * Replace `length` bytes at `offset` of the content as read with `text` (an insertion
 * when length is 0; `text` is copied). 0, -EINVAL when the range is outside the file or
 * overlaps an earlier edit (two insertions at one offset keep their order), -ENOMEM.
 */
int ksc_srcedit_replace(struct ksc_srcedit *e, size_t offset, size_t length, const char *text);
/*
 * How many edits are planned; the notes of the planners (note i owned by the edit, NULL
 * when i >= the count).
 */
size_t ksc_srcedit_get_edit_count(const struct ksc_srcedit *e);
size_t ksc_srcedit_get_note_count(const struct ksc_srcedit *e);
const struct ksc_srcedit_note *ksc_srcedit_get_note(const struct ksc_srcedit *e, size_t i);

/*
 * Plan what kernel `kver` needs (R1, R2): EXPORT_SYMBOL_GPL_FOR_MODULES (6.16, and the
 * 6.6.y / 6.12.y backport) <-> EXPORT_SYMBOL_FOR_MODULES (6.17+); namespaces of
 * EXPORT_SYMBOL_NS*, MODULE_IMPORT_NS and DEFAULT_SYMBOL_NAMESPACE (#define, Makefile -D)
 * as identifiers (< 6.13) or string literals (6.13+). What cannot be written for `kver`
 * (a namespace that is no identifier, a macro-valued namespace, FOR_MODULES before 6.16,
 * FOR_KVM before 6.19, an explicit module: import on 6.16+) becomes a note. Returns the
 * number of edits added, or -errno (-EINVAL: `kver` is not a kernel version).
 */
int ksc_srcedit_plan_migrate(struct ksc_srcedit *e, const char *kver);
/*
 * Plan MODULE_IMPORT_NS lines for the namespaces in `ns` that the file does not import yet,
 * in `kver`'s syntax, as make nsdeps would: next to the existing imports, keeping them in
 * byte order, or else on the lines after MODULE_LICENSE(). Never a module: namespace (R11):
 * those become notes, as do namespaces that cannot be written for `kver` (no identifier
 * before 6.13; none at all before 5.4) and lines whose place is inside a comment, string,
 * directive or macro call. Existing imports are not moved (scripts/nsdeps also gathers
 * scattered ones into one sorted block). Returns the number of lines added, -ENOENT when
 * the file has no MODULE_LICENSE(), -EINVAL for a bad `kver`.
 */
int ksc_srcedit_plan_imports(struct ksc_srcedit *e, const char *kver, const char *const *ns,
			     size_t n);

/*
 * The content with every edit applied, in *data (malloc'ed, NUL-terminated; the caller
 * frees it with free()) and its length in *size. 0, -EINVAL, -ENOMEM.
 */
int ksc_srcedit_get_result(const struct ksc_srcedit *e, char **data, size_t *size);
/*
 * Write the changes as a unified diff (3 lines of context) with the labels "a/PATH" and
 * "b/PATH" (PATH without a leading "./"; absolute paths are used as they are). A PATH with
 * a space, a control character, '"', '\\' or a byte above 0x7f is written in double
 * quotes with C escapes, as git writes it (GNU patch and git apply read both forms).
 * Nothing is written when there are no edits. 0 or -errno of the stream.
 */
int ksc_srcedit_write_diff(const struct ksc_srcedit *e, FILE *f);
/*
 * The same with `name` as PATH instead of the path the edit was made from: the file's
 * path relative to the folder in which `patch -p1` is to apply the diff. NULL: the path
 * given. -EINVAL also for an empty `name`.
 */
int ksc_srcedit_write_diff_as(const struct ksc_srcedit *e, const char *name, FILE *f);

struct ksc_srcedit_commit_opts {
	size_t sz;                 /* sizeof(struct ksc_srcedit_commit_opts) */
	/*
	 * Called after the new content is written and synced to the temporary file, right
	 * before the original is checked and replaced; a negative return cancels (that value
	 * is returned). NULL: none.
	 */
	int (*before_replace)(void *data, const char *path, const char *tmp_path);
	void *data;
	/*
	 * Called after that last check, right before the switch (for tests of an edit made
	 * in that instant). NULL: none.
	 */
	void (*after_check)(void *data, const char *path);
};

/*
 * Replace the file with the edited content, atomically: a temporary file in the same
 * folder gets the new bytes, the original's permission bits and (where allowed) owner and
 * group, and is fsync'ed; right before the rename the original must still have the
 * inode, size, modification time and content (hash) read at the start, else it is left
 * alone. The switch exchanges the two files (renameat2() RENAME_EXCHANGE) and checks the
 * one swapped out once more: an edit made in the instant between is kept, the files
 * swapped back (-ESTALE); where the file system cannot exchange, a plain rename. A
 * symbolic link is left alone (-ELOOP). The new file gets the current time as mtime (build tools must see the change);
 * extended attributes and ACLs are not copied. On any failure the original is untouched
 * and the temporary file removed; the reason is logged as "<path>: <reason>". Returns 0
 * (also with no edits: nothing is written), -EACCES (no write permission bit: read-only
 * files are left alone even for root), -EMLINK (several hard links; replacing would split
 * them), -ESTALE (the file changed since it was read), -EINVAL (an edit made from memory
 * has no file), or the -errno of the failing step (-ENOSPC, -EIO, ...).
 */
int ksc_srcedit_commit(struct ksc_srcedit *e, const struct ksc_srcedit_commit_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* KSYMCHECK_SOURCE_H */
