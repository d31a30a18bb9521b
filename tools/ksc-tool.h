/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared declarations of the ksymcheck command-line tool (a thin layer over libksymcheck). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "ksymcheck.h"

/* Exit statuses: a sum of conditions (see ksymcheck(1), EXIT STATUS). */
#define KSC_EXIT_OK 0
#define KSC_EXIT_FINDINGS 1  /* something would be refused / differs */
#define KSC_EXIT_USAGE 2     /* usage error, nothing done */
#define KSC_EXIT_UNREADABLE 4 /* some inputs could not be read; the rest was processed */

struct ksc_cmd {
	const char *name;
	int (*run)(struct ksc_ctx *ctx, int argc, char *argv[]);
	const char *help;
};

/* Subcommands: argv[0] is the subcommand name. Return an exit status. */
int cmd_modinfo(struct ksc_ctx *ctx, int argc, char *argv[]);
int cmd_imports(struct ksc_ctx *ctx, int argc, char *argv[]);
int cmd_exports(struct ksc_ctx *ctx, int argc, char *argv[]);
int cmd_check(struct ksc_ctx *ctx, int argc, char *argv[]);
int cmd_diff(struct ksc_ctx *ctx, int argc, char *argv[]);
int cmd_compat(struct ksc_ctx *ctx, int argc, char *argv[]);
int cmd_audit(struct ksc_ctx *ctx, int argc, char *argv[]);
int cmd_src(struct ksc_ctx *ctx, int argc, char *argv[]);
int cmd_nsdeps(struct ksc_ctx *ctx, int argc, char *argv[]);
int cmd_tree(struct ksc_ctx *ctx, int argc, char *argv[]);
int cmd_explain(struct ksc_ctx *ctx, int argc, char *argv[]);

/* ---- tools/message.c: everything written to standard error ---- */
extern const char *program_name;
/*
 * Colour (ANSI SGR) only when f is a terminal, TERM is set and not "dumb", and NO_COLOR
 * is unset or empty (https://no-color.org). Wrap coloured text in COLOUR_x ... COLOUR_OFF.
 */
bool use_colour(FILE *f);
#define COLOUR_BOLD "\033[1m"
#define COLOUR_RED "\033[31m"
#define COLOUR_OFF "\033[0m"
/* Print "ksymcheck: <msg>" and "Try 'ksymcheck <cmd> --help'." to stderr; returns 2. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "ksymcheck: <msg>" on stderr; a problem with a file reads "ksymcheck: PATH: reason". */
void print_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "ksymcheck: warning: <msg>" and "ksymcheck: note: <msg>" on stderr. */
void print_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The library's log function (ksc_set_log_fn()): "ksymcheck: [LEVEL: ]<msg>" on stderr. */
void print_log(void *data, int priority, const char *msg);
/* Text on stderr as it is, without a prefix or a line end added; returns what fprintf does. */
int print_plain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A progress bar on standard error, drawn only when `on` (set it from isatty(2) and the
 * command's --quiet and format): draw_bar() is a ksc_tree_progress_fn, clear_bar()
 * erases it before anything else is printed.
 */
struct progress_bar {
	bool on;
	size_t last;
	const char *phase;
};
void draw_bar(void *data, const char *phase, size_t done, size_t total);
void clear_bar(struct progress_bar *b);

/* ---- tools/util.c: small helpers shared by the commands ---- */
/*
 * Expand PATH arguments: a regular file is taken as is; a directory is searched
 * recursively (sorted, symlinks to files followed, loops detected) for files whose name
 * ksc_path_is_module_name() accepts. Calls fn for each file; problems are logged through
 * the ctx as "path: reason" and counted in *errors, and so is a directory that holds no
 * module ("DIR: no module found").
 */
int walk_paths(struct ksc_ctx *ctx, char **paths, int n,
	       int (*fn)(const char *path, const char *root, void *data), void *data,
	       unsigned *errors);

/*
 * ---- tools/options.c: the command line, one parser for every command ----
 *
 * The kernel options, one set of names for check, nsdeps, tree, audit, diff and compat:
 * each command takes the KOPT_x it names in its struct option_set, and its own options
 * are never k, b, s, m, E, F, p, N or h, unless it takes no kernel option of that letter
 * (compat's repeatable -k, -s, -m, modinfo's -F): an own option wins.
 */
enum {
	KOPT_ROOT = 1 << 0,       /* -k/--kernel ROOT, and -b/--basedir ROOT (depmod's) */
	KOPT_KVER = 1 << 1,       /* --kver KVER */
	KOPT_SYMVERS = 1 << 2,    /* -s/--symvers FILE */
	KOPT_VMLINUX = 1 << 3,    /* --vmlinux FILE */
	KOPT_MODULES = 1 << 4,    /* -m/--modules DIR, repeatable */
	KOPT_CONFIG = 1 << 5,     /* --config FILE */
	KOPT_SYSTEM_MAP = 1 << 6, /* --system-map FILE */
	KOPT_DEPMOD = 1 << 7,     /* depmod's -E FILE (symvers) and -F FILE (System.map) */
	KOPT_CERT = 1 << 8,       /* --cert FILE, repeatable */
	/* The rules the kernel is judged by: */
	KOPT_POLICY = 1 << 9,          /* -p/--policy KVER */
	KOPT_REQUIRE_INTREE = 1 << 10, /* --require-intree */
	KOPT_MISSING_NS = 1 << 11,     /* --allow-missing-ns */
	KOPT_MISSING_NS_N = 1 << 12,   /* ... and its short form -N */
	KOPT_BUILD = 1 << 13,          /* --external-build, --in-tree-build */
	KOPT_VIEW = 1 << 14,           /* --view loader|modpost|both */
	KOPT_DISTRO = 1 << 15,         /* --distro debian|upstream */
};
/* The --help lines of -b, --kver, -s, --vmlinux and -m, as check and nsdeps take them. */
#define KOPT_HELP_FILES                                                                   \
	"  -b, --basedir ROOT     the same, as depmod -b\n"                                  \
	"      --kver KVER        the kernel release under ROOT (default: the only one there,\n" \
	"                         else for / the running one)\n"                              \
	"  -s, --symvers FILE     the kernel's Module.symvers\n"                              \
	"      --vmlinux FILE     the kernel image (vmlinux or bzImage)\n"                    \
	"  -m, --modules DIR      also take the modules below DIR as providers\n"
struct kernel_opts {
	const char *root, *kver, *symvers, *vmlinux, *config, *system_map;
	const char **module_dirs, **certs; /* grown by parse_options(): kernel_opts_free() */
	int n_module_dirs, n_certs;
	size_t cap_module_dirs, cap_certs;
	const char *policy, *distro; /* distro: "debian", "upstream" or NULL */
	unsigned views;              /* KSC_VIEW_x: both unless --view */
	bool require_intree, allow_missing_ns;
	enum ksc_build build; /* KSC_BUILD_AUTO unless --external-build or --in-tree-build */
	bool progress; /* a progress bar while a whole tree is read (on a terminal) */
	/* the modules to check, when known: -k ROOT reads only what their verdicts need */
	struct ksc_module *const *for_mods;
	size_t n_for_mods;
	/* -k ROOT opened before the modules are read (open_kernel_root()): open_kernel()
	 * takes the kernel from it; the caller frees it (ksc_kernel_root_free()) */
	struct ksc_kernel_root *kroot;
	struct progress_bar bar;
};
/* --format's values: text, json, symvers, kernel (check), sarif, dot (diff). */
enum out_format { FMT_TEXT, FMT_JSON, FMT_SYMVERS, FMT_KERNEL, FMT_SARIF, FMT_DOT };
/* -j/--jobs N: N from 1 to max, or -1 after the usage error. */
int parse_jobs(const char *cmd, const char *value, unsigned max);
/*
 * One of a command's own options, a row of getopt's struct option whose third member says
 * where the value goes instead of getopt's int *flag: a required argument into the
 * `const char *` there, a flag (no_argument) as true into the `bool` there; NULL: the
 * option_set's fn takes it, e.g. { "src", required_argument, &a->src, OPT_SRC },
 * { "write", no_argument, &a->write, 'w' }, { "kernel", required_argument, NULL, 'k' }.
 */
struct own_option {
	const char *name;
	int has_arg;
	void *to;
	int val;
};
/*
 * A command's options: its own, the output and kernel options it takes, its --help text.
 * The output options have one name each: -f/--format FMT with --json (--format json),
 * -q/--quiet, -v/--verbose, --html FILE; a command takes those it gives a place to store
 * in.
 */
struct option_set {
	const struct own_option *own; /* {0}-terminated, without the output options and --help */
	const char *own_short;    /* their letters, without ':' first and without h */
	int *format;              /* -f/--format, --json: a FMT_x of `formats`; NULL: none */
	unsigned formats;         /* the (1 << FMT_x) --format takes */
	bool *quiet, *verbose;    /* -q/--quiet, -v/--verbose; NULL: not taken */
	const char **html;        /* --html FILE (audit, diff); NULL: not taken */
	unsigned kernel;          /* KOPT_x */
	const char *help;
	/* One of the command's own options: 0, or the status of a usage error (reported). */
	int (*fn)(void *data, int ch, const char *arg);
};
/*
 * getopt_long() over argv, the tool's only call of it: the output options where s says,
 * the kernel options into *k (NULL when s->kernel is 0), -h/--help printed, the rest
 * handed to s->fn(data, ...), errors reported as getopt would, with the "ksymcheck: "
 * prefix. KSC_EXIT_OK to go on (optind at the first operand), -1 after --help, else an
 * exit status. Call kernel_opts_free(k) in every case.
 */
int parse_options(const char *cmd, int argc, char *argv[], const struct option_set *s,
		  struct kernel_opts *k, void *data);
void kernel_opts_free(struct kernel_opts *o);
/* --policy KVER is a kernel version: KSC_EXIT_OK, else the status of the usage error. */
int check_policy(const char *cmd, const char *policy);
/*
 * check's and nsdeps' operands: at least one MODULE; no kernel named means this machine's
 * (-k /); a --policy that is a kernel version. KSC_EXIT_OK or a usage error's status.
 */
int modules_and_kernel(const char *cmd, int argc, struct kernel_opts *k);
/* --distro's loader patches: KSC_QUIRK_x for ksc_kernel_set_quirks(). */
unsigned distro_quirks(const char *distro);
struct ksc_keyring;
/* Every --cert into kr: 0 or -errno (reported). */
int add_certs(struct ksc_keyring *kr, const struct kernel_opts *k);
/* Open it: reported as "path: reason"; unreadable parts counted in *errors; NULL on failure.
 * With `kr`, the keys built into a --vmlinux image are added to it. */
struct ksc_kernel *open_kernel(struct ksc_ctx *ctx, struct kernel_opts *o, unsigned *errors,
			       struct ksc_keyring *kr);

/*
 * -k ROOT opened before the modules to check are read (o->kroot, the cache policy as
 * open_kernel()'s): collect_module() takes an installed module of ROOT from the index
 * when current, open_kernel() the kernel. 0, or -ENOMEM (reported).
 */
int open_kernel_root(struct ksc_ctx *ctx, struct kernel_opts *o);

/* The index `tree` keeps by default: $XDG_CACHE_HOME/ksymcheck/tree/KVER-HASH.idx. */
char *default_index(const char *root, const char *kver);
/*
 * Beside it, the built-in keys of the kernel's image (ksc_keyring_add_kernel_cached());
 * NULL without a release, or when KSYMCHECK_NO_INDEX is set.
 */
char *keys_cache_path(const char *root, const char *kver);
/*
 * The built-in keys of the kernel image under root into kr, as `tree` verifies signatures
 * with them by default (kept at keys_cache_path()); quietly: no image, or one that cannot
 * be read, adds none. 0 or -ENOMEM.
 */
int add_image_keys(struct ksc_ctx *ctx, struct ksc_keyring *kr, const char *root,
		   const char *kver);
/*
 * ksc_kernel_open(ctx, root, kver), through the index `tree` keeps (and updates): the
 * same kernel, without reading the tree again while the index is current. With
 * KSYMCHECK_NO_INDEX set (not "0"), or when the index cannot stand for the tree (a
 * problem met), ksc_kernel_open() itself. progress: a bar while modules are read.
 */
int open_root_kernel(struct ksc_ctx *ctx, const char *root, const char *kver, bool progress,
		     struct ksc_kernel **out);
/*
 * The last reference to a kernel, just before the command returns: a whole tree's
 * modules are not freed one by one then (the process ends). Built with AddressSanitizer
 * it is freed, for the leak check.
 */
void release_kernel(struct ksc_kernel *k);
/* ksc_kernel_open_path(), a root through open_root_kernel(). */
int open_kernel_path(struct ksc_ctx *ctx, const char *path, bool progress,
		     struct ksc_kernel **out);

/*
 * The modules named on a command line, read in order: a walk_paths() callback. Files that
 * cannot be read, and kernel images, are reported and counted in `errors`. `mods` is
 * NULL-terminated once a module was added.
 */
struct module_list {
	struct ksc_ctx *ctx;
	struct ksc_kernel_root *root; /* or NULL: every module read from its file */
	struct ksc_module **mods;
	size_t n, cap;
	unsigned errors;
};
int collect_module(const char *path, const char *root, void *data);
void module_list_free(struct module_list *l);

/* ---- tools/output.c: what every command prints the same way ---- */

/*
 * JSON: every command's document is an object that starts with "schema": KSC_JSON_SCHEMA
 * and "command": the command's name (doc/ksymcheck.schema.json describes them all).
 * json_text() is a string that is valid UTF-8 (each byte that is not becomes U+FFFD), or
 * JSON null for NULL: use it for every string that comes from a file.
 */
#define KSC_JSON_SCHEMA "ksymcheck/1"
json_object *json_text(const char *s);
json_object *json_doc_new(const char *command);
/* Append each line of s ('\n'-separated; NULL: none) to array a, as json_text(). */
void json_add_lines(json_object *a, const char *s);
void json_doc_print(json_object *doc); /* pretty, to stdout; doc stays the caller's */
/*
 * --html PATH: doc as report_write_html()'s page (tools/report.h), a failure printed as
 * every write's ("ksymcheck: PATH: reason"). KSC_EXIT_OK, or KSC_EXIT_UNREADABLE.
 */
int json_doc_html(const char *path, const char *title, json_object *doc, const char *kind);
/* The small values every document has: an array of json_text(), a count, a CRC as
 * "0x%08x" (NULL when !has). */
json_object *json_strings(const char *const *v, size_t n);
json_object *json_size(size_t n);
json_object *json_crc(bool has, uint64_t crc);

/*
 * A document whose one array is printed an element at a time, so memory stays flat over
 * a whole tree: { "schema": ..., "command": command, key: [ items ] }.
 */
struct json_stream {
	const char *command, *key;
	unsigned count;
};
void json_stream_item(struct json_stream *js, json_object *o); /* takes o */
void json_stream_end(struct json_stream *js);

/* The words of the finding object: "error", "warning", "note"; "loader", "modpost". */
const char *verdict_word(enum ksc_severity s);
const char *view_word(enum ksc_view v);

/*
 * One finding, as check, tree, audit and diff print it (JSON: finding_json(), SARIF:
 * tools/sarif.c). module is the loader's name (struct module name, R4); file the name
 * modpost gives it (the file name without .ko, R5) where that differs, else NULL.
 * The strings are borrowed from the report the finding was made from.
 */
struct finding {
	const char *module, *file, *path, *symbol, *ns, *owner, *view;
	enum ksc_severity severity;
	const char *code, *rule, *summary, *kernel_lines, *explanation, *fix;
	int err;      /* the loader's -errno for this finding */
	bool has_err; /* err is meaningful (loader view) */
};
/* v: the finding's module (its names); path: the module's file. */
void finding_from_diag(struct finding *f, const struct ksc_diag *d,
		       const struct ksc_module_verdict *v, const char *path);
/* file: a buffer for the modpost name made from the path. */
void finding_from_audit(struct finding *f, const struct ksc_audit_finding *a, char *file,
			size_t size);
json_object *finding_json(const struct finding *f);
/*
 * A module judged, as check and tree print it: "module", "file" (modpost's name where it
 * differs), "path", and for each view in `views` its verdict: "loader": {"result",
 * "errno", "errno_name"}, "modpost": {"result"}. The caller adds "findings".
 */
json_object *verdict_json(const struct ksc_module_verdict *v, const char *path,
			  unsigned views);
/* modpost, or NULL when it equals loader: the file name only where it says something. */
const char *modpost_if_differs(const char *loader, const char *modpost);
/* The name modpost gives the module at path: its basename without .ko[.gz|.xz|.zst]. */
void modpost_name_of(const char *path, char *buf, size_t size);

/*
 * A module named in text output: the loader's name, and where modpost's differs, once
 * per module (*noted false, then set), the file name and why, e.g.
 * "ums_alauda (file ums-alauda.ko; modpost matches the file name)". Escaped.
 */
void print_module_name(const char *loader, const char *modpost, bool *noted);

/* ---- tools/sarif.c: SARIF 2.1.0 (check and tree --format sarif) ---- */

struct sarif;
struct sarif *sarif_new(void);
/* uri_base: a folder (absolute) the findings' paths are relative to, or NULL. */
void sarif_set_base(struct sarif *s, const char *uri_base);
int sarif_add(struct sarif *s, const struct finding *f); /* 0 or -ENOMEM */
/* A rule of a code the library's catalogue does not have (compat's): its texts, before
 * its first result. 0 or -ENOMEM. */
int sarif_describe(struct sarif *s, const char *code, const char *brief, const char *help);
/* The same with extra's members added to the result's properties (extra is taken). */
int sarif_add_with(struct sarif *s, const struct finding *f, json_object *extra);
/* Print the log to stdout and free s; or only free it. */
void sarif_print(struct sarif *s);
void sarif_free(struct sarif *s);
