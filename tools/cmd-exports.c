// SPDX-License-Identifier: GPL-2.0-or-later
/* ksymcheck exports: the exports of modules, vmlinux images and Module.symvers files. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/array.h"
#include "tools/ksc-tool.h"
#include "tools/text.h"
#include "util/fileio.h"

static const char *const help =
	"Usage: ksymcheck exports [OPTIONS] PATH...\n\n"
	"List the exported symbols of each PATH: a module (.ko, .ko.xz, .ko.zst, .ko.gz), a\n"
	"directory searched recursively for modules, a vmlinux, or a Module.symvers file.\n"
	"A PATH may be a kernel image (at most 2 GiB, a bzImage's payload decompressed);\n"
	"what a directory holds is read as modules (at most 256 MiB); a Module.symvers is\n"
	"at most 64 MiB.\n\n"
	"Options:\n"
	"  -f, --format FMT  text (aligned columns, default), json, or symvers (Module.symvers\n"
	"                    lines exactly as modpost writes them)\n"
	"      --json        the same as --format json\n"
	"  -q, --quiet       text: print nothing but the errors (a check that each PATH is\n"
	"                    readable)\n"
	"  -h, --help        show this help and exit\n";

struct exports_run {
	struct ksc_ctx *ctx;
	int format;
	bool quiet;
	struct ksc_symvers *all; /* every row, in input order */
	struct json_stream js;   /* FMT_JSON: one object per file, printed as each is read */
	unsigned errors;
	unsigned n_read; /* files read (no table without one) */
};

static bool looks_like_symvers(const char *path)
{
	const char *base = strrchr(path, '/');
	char head[2];
	struct stat st;
	int fd;
	ssize_t n;

	base = base ? base + 1 : path;
	if (strstr(base, "symvers"))
		return true;
	/*
	 * Never blocks, and only a regular file is sniffed: bytes read from a pipe would be
	 * lost to the reader that opens it again. A pipe or FIFO (`<(cat Module.symvers)`)
	 * is taken as text, read once; other special files go to the module reader, which
	 * refuses them.
	 */
	fd = ksc_open_read(AT_FDCWD, path, KSC_OPEN_FIFO, &st);
	if (fd < 0)
		return false;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return true; /* a FIFO */
	}
	n = read(fd, head, sizeof(head));
	close(fd);
	return n == 2 && head[0] == '0' && head[1] == 'x';
}

static void json_add_symvers(struct exports_run *run, const char *path, struct ksc_symvers *sv)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(o, "path", json_text(path));
	json_object_object_add(o, "kind", json_text("symvers"));
	for (size_t i = 0; i < ksc_symvers_get_count(sv); i++) {
		const struct ksc_symvers_entry *e = ksc_symvers_get(sv, i);
		json_object *x = json_object_new_object();
		json_object_object_add(x, "name", json_text(e->symbol));
		json_object_object_add(x, "module", json_text(e->module));
		json_object_object_add(x, "gpl_only", json_object_new_boolean(e->gpl_only));
		json_object_object_add(x, "namespace", json_text(e->ns));
		json_object_object_add(x, "crc", json_crc(true, e->crc));
		json_object_array_add(arr, x);
	}
	json_object_object_add(o, "exports", arr);
	json_stream_item(&run->js, o);
}

static void json_add_module(struct exports_run *run, struct ksc_module *mod)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(o, "path", json_text(ksc_module_get_path(mod)));
	json_object_object_add(o, "kind", json_text(
		ksc_module_get_kind(mod) == KSC_KIND_VMLINUX ? "vmlinux" : "module"));
	json_object_object_add(o, "name", json_text(ksc_module_get_name(mod)));
	json_object_object_add(o, "owner",
			       json_text(ksc_module_get_symvers_owner(mod)));
	json_object_object_add(o, "layout", json_text(
		ksc_export_layout_name(ksc_module_get_export_layout(mod))));
	json_object_object_add(o, "kflagstab",
			       json_object_new_boolean(ksc_module_has_kflagstab(mod)));
	for (size_t i = 0; i < ksc_module_get_export_count(mod); i++) {
		const struct ksc_export *e = ksc_module_get_export(mod, i);
		json_object *x = json_object_new_object();
		json_object_object_add(x, "name", json_text(e->name));
		json_object_object_add(x, "gpl_only", json_object_new_boolean(e->gpl_only));
		json_object_object_add(x, "namespace", json_text(e->ns));
		json_object_object_add(x, "crc", json_crc(e->has_crc, e->crc));
		json_object_array_add(arr, x);
	}
	json_object_object_add(o, "exports", arr);
	json_stream_item(&run->js, o);
}

/*
 * Module.symvers owner for a file found under a directory given on the command line: its
 * path relative to that directory (the library already handles lib/modules/<rel>/kernel/).
 */
static int set_owner_from_root(struct ksc_module *mod, const char *path, const char *root)
{
	if (!root || strstr(path, "lib/modules/"))
		return 0;
	size_t n = strlen(root);
	if (strncmp(path, root, n) != 0)
		return 0;
	const char *rel = path + n;
	while (*rel == '/')
		rel++;
	return ksc_module_set_symvers_owner(mod, rel);
}

static int one_path(const char *path, const char *root, void *data)
{
	struct exports_run *run = data;
	int r;

	if (!root && looks_like_symvers(path)) {
		struct ksc_symvers *sv;
		r = ksc_symvers_new_from_path(run->ctx, path, &sv);
		if (r < 0) {
			run->errors++;
			return r == -ENOMEM ? r : 0;
		}
		if (ksc_symvers_get_error_count(sv))
			run->errors++;
		for (size_t i = 0; i < ksc_symvers_get_count(sv) && r >= 0; i++)
			r = ksc_symvers_add(run->all, ksc_symvers_get(sv, i));
		if (r >= 0 && run->format == FMT_JSON)
			json_add_symvers(run, path, sv);
		ksc_symvers_unref(sv);
		run->n_read += r >= 0;
		return r;
	}

	/* an operand may be a kernel image; what a folder holds is read as modules */
	struct ksc_module *mod;
	r = root ? ksc_module_new_from_module_path(run->ctx, path, &mod) :
		   ksc_module_new_from_path(run->ctx, path, &mod);
	if (r < 0) {
		run->errors++;
		return r == -ENOMEM ? r : 0;
	}
	r = set_owner_from_root(mod, path, root);
	if (r >= 0)
		r = ksc_symvers_add_module(run->all, mod);
	if (r == -EINVAL) {
		/* nothing of it added: the file said, the others still listed */
		print_error("%s: an export name or namespace with a tab or a line end: not listed",
			    text_esc(path));
		run->errors++;
		r = 0;
	} else if (r >= 0) {
		run->n_read++;
		if (run->format == FMT_JSON)
			json_add_module(run, mod);
	}
	ksc_module_unref(mod);
	return r;
}

/*
 * Module.symvers lines as modpost writes them; a row no line can hold (a control
 * character in a name: a line end would forge a line, an ESC reach the terminal) is
 * refused and said. 0 or -errno.
 */
static int write_symvers(struct exports_run *run)
{
	char *buf = NULL;
	size_t size = 0;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < ksc_symvers_get_count(run->all); i++) {
		const struct ksc_symvers_entry *e = ksc_symvers_get(run->all, i);
		int n = ksc_symvers_format_entry(e, KSC_SYMVERS_5, buf, size);
		if (n >= 0 && (size_t)n >= size) {
			if (array_reserve(buf, size, (size_t)n + 1, 256) < 0) {
				r = -ENOMEM;
				break;
			}
			n = ksc_symvers_format_entry(e, KSC_SYMVERS_5, buf, size);
		}
		if (n < 0) {
			print_error("%s: %s: a control character in its symbol, module or namespace: no Module.symvers line can hold it",
				    text_esc(e->module), text_esc(e->symbol));
			run->errors++;
			continue;
		}
		fwrite(buf, 1, (size_t)n, stdout);
	}
	free(buf);
	if (r >= 0 && (fflush(stdout) != 0 || ferror(stdout)))
		r = -EIO;
	return r;
}

/*
 * Aligned columns. SYMBOL and NAMESPACE are as wide as their widest cell up to a cap, so
 * that one long name (a Rust symbol, a crafted file) pushes only its own row.
 */
static void print_text(const struct ksc_symvers *sv)
{
	size_t n = ksc_symvers_get_count(sv);
	size_t wsym = strlen("SYMBOL"), wns = strlen("NAMESPACE");

	for (size_t i = 0; i < n; i++) {
		const struct ksc_symvers_entry *e = ksc_symvers_get(sv, i);
		text_col_fit(&wsym, e->symbol, TEXT_CAP_SYMBOL);
		text_col_fit(&wns, e->ns, TEXT_CAP_NAMESPACE);
	}
	text_cell(stdout, "SYMBOL", wsym);
	fputs("  GPL  ", stdout);
	text_cell(stdout, "NAMESPACE", wns);
	printf("  %-10s  %s\n", "CRC", "MODULE");
	for (size_t i = 0; i < n; i++) {
		const struct ksc_symvers_entry *e = ksc_symvers_get(sv, i);
		text_cell(stdout, e->symbol, wsym);
		printf("  %-3s  ", e->gpl_only ? "yes" : "-");
		text_cell(stdout, e->ns[0] ? e->ns : "-", wns);
		printf("  0x%08x  %s\n", e->crc, text_esc(e->module));
	}
}

int cmd_exports(struct ksc_ctx *ctx, int argc, char *argv[])
{
	struct exports_run run = { .ctx = ctx, .format = FMT_TEXT,
				   .js = { .command = "exports", .key = "files" } };
	const struct option_set set = {
		.format = &run.format,
		.formats = 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_SYMVERS,
		.quiet = &run.quiet,
		.help = help,
	};
	int r = parse_options("exports", argc, argv, &set, NULL, NULL);

	if (r != KSC_EXIT_OK)
		return r < 0 ? KSC_EXIT_OK : r;
	if (optind >= argc)
		return usage_error("exports", "no PATH given");

	r = ksc_symvers_new(ctx, &run.all);
	if (r < 0) {
		print_error("%s", strerror(-r));
		return KSC_EXIT_UNREADABLE;
	}
	r = walk_paths(ctx, argv + optind, argc - optind, one_path, &run, &run.errors);
	if (r < 0) {
		print_error("%s", strerror(-r));
		run.errors++;
	}
	switch (run.format) {
	case FMT_SYMVERS:
		r = write_symvers(&run);
		if (r < 0) {
			print_error("%s", strerror(-r));
			run.errors++;
		}
		break;
	case FMT_JSON:
		json_stream_end(&run.js);
		break;
	default:
		if (!run.quiet && run.n_read)
			print_text(run.all);
	}
	ksc_symvers_unref(run.all);
	return run.errors ? KSC_EXIT_UNREADABLE : KSC_EXIT_OK;
}
