// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ksymcheck src: the export and import macros in C sources.
 *   src scan     every export, import, license and default namespace, with file:line
 *   src migrate  rewrite them for another kernel version (dry run: a unified diff)
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/ksc-tool.h"
#include "tools/text.h"

static const char *const help =
	"Usage: ksymcheck src scan [OPTIONS] PATH...\n"
	"       ksymcheck src migrate --to KVER [--write] [-q] PATH...\n\n"
	"Find the export and import macros in C sources (.c, .h, .S; folders are searched\n"
	"recursively, Kbuild/Makefile read for -DDEFAULT_SYMBOL_NAMESPACE=), before anything\n"
	"is built. Both namespace spellings are read: identifiers (5.4 - 6.12) and string\n"
	"literals (6.13+).\n\n"
	"scan: one record per line, PATH:LINE: KIND ...\n"
	"  -f, --format FMT          text (default), json, or symvers (exports as\n"
	"                            Module.symvers lines: CRC 0, the file as the module)\n"
	"      --json                the same as --format json\n"
	"      --mentions            also list each keyword that is no record, and why\n"
	"                            (comment, string, define, directive, other-macro, ...)\n"
	"  -j, --jobs N              scan folders with N threads (default: one per CPU;\n"
	"                            --threads N is the same)\n"
	"  -q, --quiet               text: print nothing but the errors\n"
	"      --kvm-sub-modules L   KVM_SUB_MODULES for EXPORT_SYMBOL_FOR_KVM[_INTERNAL]\n"
	"                            (default kvm-amd,kvm-intel, as x86)\n\n"
	"migrate: what kernel KVER needs: EXPORT_SYMBOL_GPL_FOR_MODULES (6.16) <->\n"
	"EXPORT_SYMBOL_FOR_MODULES (6.17+), namespaces of EXPORT_SYMBOL_NS*, MODULE_IMPORT_NS\n"
	"and DEFAULT_SYMBOL_NAMESPACE as identifiers (< 6.13) or string literals (6.13+).\n"
	"  -t, --to KVER             the target kernel version (required)\n"
	"  -w, --write               apply the changes (default: print a unified diff, for\n"
	"                            patch -p1); each file is replaced atomically, only if\n"
	"                            it did not change meanwhile and has a write permission bit\n"
	"  -q, --quiet               no diff, no summary: only errors and what cannot be\n"
	"                            rewritten (the exit status says whether changes are needed)\n"
	"  -h, --help                show this help and exit\n\n"
	"Exit status: 0 nothing (more) to do; 1 migrate: changes needed (dry run) or something\n"
	"that cannot be rewritten for KVER (see the notes on stderr); 2 usage error; 4 some\n"
	"files could not be read or written (each left as it was); 1 and 4 add up.\n";

/* ---------------------------------------------------------------------------------- */
/* scan                                                                               */

static void print_text(const struct ksc_src_record *r)
{
	printf("%s:%u: %s ", text_esc(r->path), r->line, ksc_src_kind_name(r->kind));
	switch (r->kind) {
	case KSC_SRC_EXPORT:
		printf("%s %s%s", text_esc(r->symbol), text_esc(r->macro),
		       r->gpl_only ? " gpl" : "");
		if (r->ns[0]) {
			printf(" ns=%s", text_esc(r->ns));
			if (r->ns_from)
				printf(" default=%s", text_esc(r->ns_from));
			else if (r->spelling != KSC_SRC_SPELL_NONE)
				printf(" %s", ksc_src_spelling_name(r->spelling));
		}
		break;
	case KSC_SRC_IMPORT_NS:
		printf("%s %s", text_esc(r->ns), ksc_src_spelling_name(r->spelling));
		break;
	case KSC_SRC_LICENSE:
		printf("\"%s\"", text_esc(r->license));
		break;
	case KSC_SRC_DEFAULT_NS:
		if (strcmp(r->macro, "#undef") == 0)
			printf("- %s", text_esc(r->macro));
		else
			printf("%s %s %s", r->ns[0] ? text_esc(r->ns) : "\"\"", text_esc(r->macro),
			       ksc_src_spelling_name(r->spelling));
		if (r->after_include)
			printf(" after-include");
		break;
	case KSC_SRC_MENTION:
		printf("%s %s", text_esc(r->macro), ksc_src_mention_name(r->mention));
		break;
	}
	putchar('\n');
}

static json_object *record_json(const struct ksc_src_record *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "path", json_text(r->path));
	json_object_object_add(o, "line", json_object_new_int((int)r->line));
	json_object_object_add(o, "column", json_object_new_int((int)r->column));
	json_object_object_add(o, "kind", json_text(ksc_src_kind_name(r->kind)));
	json_object_object_add(o, "macro", json_text(r->macro));
	if (r->kind == KSC_SRC_EXPORT) {
		json_object_object_add(o, "symbol", json_text(r->symbol));
		json_object_object_add(o, "gpl_only", json_object_new_boolean(r->gpl_only));
	}
	if (r->ns) {
		json_object_object_add(o, "namespace", json_text(r->ns));
		json_object_object_add(o, "spelling", json_text(ksc_src_spelling_name(r->spelling)));
	}
	if (r->ns_from)
		json_object_object_add(o, "namespace_from", json_text(r->ns_from));
	if (r->license)
		json_object_object_add(o, "license", json_text(r->license));
	if (r->kind == KSC_SRC_DEFAULT_NS)
		json_object_object_add(o, "after_include",
				       json_object_new_boolean(r->after_include));
	if (r->kind == KSC_SRC_MENTION)
		json_object_object_add(o, "mention", json_text(ksc_src_mention_name(r->mention)));
	return o;
}

/* Module.symvers-like: CRC 0, the source file (no "./", no extension) as the module. */
static int print_symvers(const struct ksc_src_record *r)
{
	char module[4096], line[8192];
	const char *p = r->path;
	struct ksc_symvers_entry e = { .symbol = r->symbol, .module = module, .ns = r->ns,
				       .gpl_only = r->gpl_only };

	while (p[0] == '.' && p[1] == '/')
		p += 2;
	snprintf(module, sizeof(module), "%s", p);
	char *dot = strrchr(module, '.'), *slash = strrchr(module, '/');
	if (dot && (!slash || dot > slash))
		*dot = '\0';
	int n = ksc_symvers_format_entry(&e, KSC_SYMVERS_5, line, sizeof(line));
	if (n < 0 || (size_t)n >= sizeof(line)) {
		/* a line end would forge a line, an ESC reach the terminal: refused */
		print_error("%s:%u: %s: %s", text_esc(r->path), r->line, text_esc(r->symbol),
			    n < 0 ? "a control character in its symbol, file name or namespace: no Module.symvers line can hold it"
				  : "too long for a Module.symvers line");
		return -EINVAL;
	}
	fputs(line, stdout);
	return 0;
}

enum { OPT_MENTIONS = 256, OPT_KVM };

/* What scan's options say. */
struct scan_args {
	struct ksc_src_opts o;
	int format;
	bool quiet;
};

static int scan_opt(void *data, int ch, const char *arg)
{
	struct scan_args *a = data;

	switch (ch) {
	case OPT_MENTIONS: a->o.flags |= KSC_SRC_MENTIONS; break;
	case 'j': {
		int n = parse_jobs("src scan", arg, 64);
		if (n < 0)
			return KSC_EXIT_USAGE;
		a->o.threads = (unsigned)n;
		break;
	}
	}
	return 0;
}

static int src_scan(struct ksc_ctx *ctx, int argc, char *argv[])
{
	struct scan_args a = { .o = { .sz = sizeof(a.o) }, .format = FMT_TEXT };
	const struct option_set set = {
		.own = (const struct own_option[]){
			{ "mentions", no_argument, NULL, OPT_MENTIONS },
			{ "jobs", required_argument, NULL, 'j' },
			{ "threads", required_argument, NULL, 'j' },
			{ "kvm-sub-modules", required_argument, &a.o.kvm_sub_modules, OPT_KVM },
			{ 0 },
		},
		.own_short = "j:",
		.format = &a.format,
		.formats = 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_SYMVERS,
		.quiet = &a.quiet,
		.help = help,
		.fn = scan_opt,
	};
	int status = parse_options("src scan", argc, argv, &set, NULL, &a);
	struct ksc_src *src;

	if (status != KSC_EXIT_OK)
		return status < 0 ? KSC_EXIT_OK : status;
	if (optind >= argc)
		return usage_error("src scan", "no PATH given");
	if (ksc_src_new(ctx, &a.o, &src) < 0) {
		print_error("out of memory");
		return KSC_EXIT_UNREADABLE;
	}
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	struct json_stream js = { .command = "src scan", .key = "records" };
	size_t done = 0;
	for (int i = optind; i < argc; i++) {
		int r = ksc_src_add_path(src, argv[i]);
		if (r == -ENOMEM) {
			print_error("out of memory");
			status |= KSC_EXIT_UNREADABLE;
			break;
		}
		/* Print as each PATH is done, so memory stays flat over many PATHs. */
		for (; done < ksc_src_get_record_count(src); done++) {
			const struct ksc_src_record *rec = ksc_src_get_record(src, done);
			switch (a.format) {
			case FMT_JSON:
				json_stream_item(&js, record_json(rec));
				break;
			case FMT_SYMVERS:
				if (rec->kind == KSC_SRC_EXPORT && print_symvers(rec) < 0)
					status |= KSC_EXIT_UNREADABLE;
				break;
			default:
				if (!a.quiet)
					print_text(rec);
			}
		}
	}
	if (a.format == FMT_JSON)
		json_stream_end(&js);
	if (ksc_src_get_error_count(src))
		status |= KSC_EXIT_UNREADABLE;
	ksc_src_unref(src);
	return status;
}

/* ---------------------------------------------------------------------------------- */
/* migrate                                                                            */

/* Could a migration touch this record? */
static bool migratable(const struct ksc_src_record *r)
{
	switch (r->kind) {
	case KSC_SRC_EXPORT:
		return strncmp(r->macro, "EXPORT_SYMBOL_NS", 16) == 0 ||
		       strstr(r->macro, "_FOR_MODULES") || strstr(r->macro, "_FOR_KVM");
	case KSC_SRC_IMPORT_NS:
	case KSC_SRC_DEFAULT_NS:
		return true;
	default:
		return false;
	}
}

static void print_notes(const struct ksc_srcedit *e)
{
	for (size_t i = 0; i < ksc_srcedit_get_note_count(e); i++) {
		const struct ksc_srcedit_note *n = ksc_srcedit_get_note(e, i);
		print_note("%s:%u: %s", text_esc(ksc_srcedit_get_path(e)), n->line,
			   text_esc(n->text));
	}
}

static int src_migrate(struct ksc_ctx *ctx, int argc, char *argv[])
{
	const char *to = NULL;
	bool write = false, quiet = false;
	const struct option_set set = {
		.own = (const struct own_option[]){
			{ "to", required_argument, &to, 't' },
			{ "write", no_argument, &write, 'w' },
			{ 0 },
		},
		.own_short = "t:w",
		.quiet = &quiet,
		.help = help,
	};
	int status = parse_options("src migrate", argc, argv, &set, NULL, NULL);
	struct ksc_src *src;
	struct ksc_kver v;

	if (status != KSC_EXIT_OK)
		return status < 0 ? KSC_EXIT_OK : status;
	if (!to)
		return usage_error("src migrate", "migrate needs --to KVER");
	if (ksc_kver_parse(to, &v) < 0)
		return usage_error("src migrate", "--to '%s' is not a kernel version", to);
	if (optind >= argc)
		return usage_error("src migrate", "no PATH given");
	if (ksc_src_new(ctx, NULL, &src) < 0) {
		print_error("out of memory");
		return KSC_EXIT_UNREADABLE;
	}
	/* Find the files that have something a version cares about; then edit each. */
	for (int i = optind; i < argc; i++) {
		if (ksc_src_add_path(src, argv[i]) == -ENOMEM) {
			print_error("out of memory");
			ksc_src_unref(src);
			return KSC_EXIT_UNREADABLE;
		}
	}
	if (ksc_src_get_error_count(src))
		status |= KSC_EXIT_UNREADABLE;
	const char *last = NULL;
	unsigned files = 0, changed = 0;
	for (size_t i = 0; i < ksc_src_get_record_count(src); i++) {
		const struct ksc_src_record *r = ksc_src_get_record(src, i);
		if (!migratable(r) || (last && strcmp(last, r->path) == 0))
			continue;
		last = r->path;
		files++;
		struct ksc_srcedit *e;
		if (ksc_srcedit_new_from_path(ctx, r->path, &e) < 0) {
			status |= KSC_EXIT_UNREADABLE;
			continue;
		}
		int n = ksc_srcedit_plan_migrate(e, to);
		if (n < 0) {
			print_error("%s: %s", r->path, strerror(-n));
			status |= KSC_EXIT_UNREADABLE;
			ksc_srcedit_free(e);
			continue;
		}
		print_notes(e);
		if (ksc_srcedit_get_note_count(e))
			status |= KSC_EXIT_FINDINGS;
		if (n > 0) {
			if (!write) {
				changed++;
				status |= KSC_EXIT_FINDINGS;
				if (!quiet)
					ksc_srcedit_write_diff(e, stdout);
			} else if (ksc_srcedit_commit(e, NULL) < 0) {
				status |= KSC_EXIT_UNREADABLE; /* said why; not counted */
			} else {
				changed++;
				if (!quiet)
					printf("%s: %d change%s written\n", text_esc(r->path),
					       n, n == 1 ? "" : "s");
			}
		}
		ksc_srcedit_free(e);
	}
	if (!quiet)
		print_error("%u file%s with namespace or export macros, %u %s for %u.%u", files,
			    files == 1 ? "" : "s", changed, write ? "rewritten" : "to change",
			    v.major, v.minor);
	ksc_src_unref(src);
	return status;
}

/* ---------------------------------------------------------------------------------- */

int cmd_src(struct ksc_ctx *ctx, int argc, char *argv[])
{
	if (argc < 2)
		return usage_error("src", "no subcommand given (scan or migrate)");
	const char *sub = argv[1];
	if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
		fputs(help, stdout);
		return KSC_EXIT_OK;
	}
	if (strcmp(sub, "scan") == 0)
		return src_scan(ctx, argc - 1, argv + 1);
	if (strcmp(sub, "migrate") == 0)
		return src_migrate(ctx, argc - 1, argv + 1);
	return usage_error("src", "unknown subcommand '%s' (scan or migrate)", sub);
}
