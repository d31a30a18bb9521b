/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The source wing (doc/architecture.md): export and import macros as written in C, found
 * before anything is built (the lexer, the scanner and the folder walk:
 * source-private.h), and the edits of `src migrate` and `nsdeps` (srcedit-private.h). A
 * sibling of the engine: each uses the kernel wing, neither the other.
 */
#pragma once

#include "kernel/kernel.h"

enum ksc_src_lang {
	KSC_LANG_NONE = 0, /* not a file the folder scan reads */
	KSC_LANG_C,        /* .c, .h (and any file given by name) */
	KSC_LANG_ASM,      /* .S: the C preprocessor's view, no character literals */
	KSC_LANG_MAKE,     /* Makefile, Kbuild: -DDEFAULT_SYMBOL_NAMESPACE= flags */
};
/* By file name: .c/.h -> C, .S -> ASM, Makefile/Kbuild -> MAKE, else NONE. */
enum ksc_src_lang ksc_src_lang_of(const char *path);

/* The DEFAULT_SYMBOL_NAMESPACE a file starts with (-D from Kbuild/Makefile). */
struct ksc_src_default {
	const char *ns;       /* NULL: not defined */
	enum ksc_src_spelling spelling;
	const char *from;     /* "path:line" of the flag */
};

struct ksc_src_vec {
	struct ksc_src_record *v;
	size_t n, cap;
};

/* A name #defined in a scanned file (collected with KSC_SRC_SCAN_DEFINES). */
struct ksc_src_define {
	const char *name;
	unsigned int line;
};

#define KSC_SRC_SCAN_DEFINES 0x100u /* internal: collect #define names */

/* Per-thread scanning state; strings go to `strings`, records are appended to `out`. */
struct ksc_src_scanner {
	struct pool *strings;
	struct ksc_src_vec *out;
	unsigned int flags;
	const char *kvm_sub_modules;
	size_t *cand;
	size_t cap_cand;
	char *buf;            /* scratch for decoded strings */
	size_t cap_buf;
	struct ksc_src_define *defines;
	size_t n_defines, cap_defines;
};

void ksc_src_scanner_init(struct ksc_src_scanner *s, struct pool *strings,
			  struct ksc_src_vec *out, unsigned int flags, const char *kvm_sub_modules);
void ksc_src_scanner_fini(struct ksc_src_scanner *s);
/*
 * Scan one file's bytes and append its records (path copied into the pool when the first
 * record is made). `def` is the default namespace from the build flags, or NULL.
 * 0 or -ENOMEM.
 */
int ksc_src_scan_buffer(struct ksc_src_scanner *s, const char *path, const char *data,
			size_t size, enum ksc_src_lang lang,
			const struct ksc_src_default *def) _must_check_;
/* Is `s` (length n) a C identifier? */
bool ksc_src_is_identifier(const char *s, size_t n);


/* What the lexer is in at offset `pos` of a file (for placing new lines safely). */
enum ksc_src_state {
	KSC_SRC_ST_CODE = 0,
	KSC_SRC_ST_BLOCK_COMMENT,
	KSC_SRC_ST_LINE_COMMENT, /* a // comment that reaches pos */
	KSC_SRC_ST_STRING,
	KSC_SRC_ST_DIRECTIVE,    /* a preprocessor line that reaches pos */
};
enum ksc_src_state ksc_src_state_at(const char *data, size_t size, enum ksc_src_lang lang,
				    size_t pos);
/* Does the newline at `nl` end a logical line (no backslash continuation before it)? */
bool ksc_src_newline_ends_line(const char *data, size_t nl);

/*
 * lib/source/ksc-src-names.c: the identifiers the C files (.c, .h) of a folder (or one
 * file) name in code and #define bodies, for the kernel version `kver`: the branches of
 * "#if LINUX_VERSION_CODE <op> KERNEL_VERSION(a,b,c)" it does not take are left out;
 * other conditions are not evaluated (every branch counts). Comments and literals are
 * skipped. *out is always initialised (ksc_src_names_fini()); 0, -ENOMEM, or the -errno
 * of stat() on `path` or of reading it when it is a file (-KSC_ENOTREG: not a regular
 * file, never opened blocking; -EFBIG). Files found below a folder that cannot be read
 * name nothing.
 */
struct ksc_src_names {
	struct hash names; /* identifier -> itself */
	/* identifier -> where it is named (a sum of a hash of each file and offset, as a
	 * uintptr_t): two versions that name it in the same places share it */
	struct hash where;
	struct hash flags; /* identifier -> KSC_SRC_* bits | 1 (as a uintptr_t) */
	/* "VAR\x1fMEMBER" for VAR->MEMBER and VAR.MEMBER; "TAG\x1fVAR" for a VAR declared
	 * as struct TAG (or union TAG), with or without pointers (source scans only) */
	struct hash access, typed;
	struct pool strings;
	size_t n_files;
};
int ksc_src_names_scan(const char *path, const struct ksc_kver *kver,
		       struct ksc_src_names *out);
/*
 * Which names of `wanted` the C headers below `dirs` (folders that cannot be opened are
 * skipped; uapi/ and dt-bindings/ are not read) define as a macro (#define NAME) or an
 * inline function (NAME( after the word inline): a call by that name compiles whether or
 * not the symbol is exported. Not evaluated: #if around the definition. *out as for
 * ksc_src_names_scan(); 0 or -ENOMEM.
 */
int ksc_src_defines_scan(const char *const *dirs, size_t n_dirs, const struct hash *wanted,
			 struct ksc_src_names *out);
bool ksc_src_names_has(const struct ksc_src_names *n, const char *name);
/* How the source names `name` (0: not in code): */
#define KSC_SRC_CALLED 0x2u      /* followed by '(': called, not only taken as a value */
#define KSC_SRC_CONDITIONAL 0x4u /* under a condition not evaluated (#ifdef HAVE_X, ...),
				  * or a call with a conditional inside its arguments */
#define KSC_SRC_PLAIN 0x8u       /* somewhere under no condition not evaluated (a header's
				  * include guard counts as taken) */
unsigned int ksc_src_names_flags(const struct ksc_src_names *n, const char *name);
/* Does the source name `name` in the same places in both scans (of the same files)? */
bool ksc_src_names_same_places(const struct ksc_src_names *a, const struct ksc_src_names *b,
			       const char *name);
/*
 * Does the source reach member `member` of struct (or union) `tag` through a variable it
 * declares of that type (VAR->MEMBER or VAR.MEMBER)? Scope and casts are not followed:
 * a name declared of that type anywhere counts.
 */
bool ksc_src_names_accesses(const struct ksc_src_names *n, const char *tag, const char *member);
/* An empty set of names (what the scans start from); ksc_src_names_fini() frees it. */
void ksc_src_names_init(struct ksc_src_names *n);
void ksc_src_names_fini(struct ksc_src_names *n);
