// SPDX-License-Identifier: GPL-2.0-or-later
/* ksymcheck imports: the undefined symbols of modules, as the loader walks them. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/ksc-tool.h"
#include "tools/text.h"

static const char *const help =
	"Usage: ksymcheck imports [OPTIONS] PATH...\n\n"
	"List the symbols each module imports (its undefined symbols, in symbol-table order, as\n"
	"the loader resolves them) with the CRC recorded in __versions and in the 6.14+\n"
	"extended version tables. PATH is a module or a directory searched for modules.\n\n"
	"Options:\n"
	"  -f, --format FMT  text (aligned columns, default) or json\n"
	"      --json        the same as --format json\n"
	"  -q, --quiet       text: print nothing but the errors (a check that each module is\n"
	"                    readable)\n"
	"  -h, --help        show this help and exit\n";

struct imports_run {
	int format;
	bool quiet;
	struct ksc_ctx *ctx;
	struct json_stream js;   /* FMT_JSON: one object per module, printed as each is read */
	unsigned errors, files;
};

static void print_json(struct imports_run *run, const struct ksc_module *mod)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(o, "path", json_text(ksc_module_get_path(mod)));
	json_object_object_add(o, "name", json_text(ksc_module_get_name(mod)));
	for (size_t i = 0; i < ksc_module_get_import_count(mod); i++) {
		const struct ksc_import *im = ksc_module_get_import(mod, i);
		json_object *x = json_object_new_object();
		json_object_object_add(x, "name", json_text(im->name));
		json_object_object_add(x, "bind", json_text(
			im->bind == KSC_BIND_WEAK ? "weak" : "global"));
		json_object_object_add(x, "crc", json_crc(im->has_crc, im->crc));
		json_object_object_add(x, "ext_crc", json_crc(im->has_ext_crc, im->ext_crc));
		json_object_array_add(arr, x);
	}
	json_object_object_add(o, "imports", arr);

	arr = json_object_new_array();
	for (size_t i = 0; i < ksc_module_get_version_count(mod); i++) {
		const struct ksc_version *v = ksc_module_get_version(mod, i);
		json_object *x = json_object_new_object();
		json_object_object_add(x, "name", json_text(v->name));
		json_object_object_add(x, "crc", json_crc(true, v->crc));
		json_object_array_add(arr, x);
	}
	json_object_object_add(o, "versions", ksc_module_has_versions(mod) ? arr : NULL);
	if (!ksc_module_has_versions(mod))
		json_object_put(arr);
	if (ksc_module_has_ext_versions(mod)) {
		arr = json_object_new_array();
		for (size_t i = 0; i < ksc_module_get_ext_version_count(mod); i++) {
			const struct ksc_version *v = ksc_module_get_ext_version(mod, i);
			json_object *x = json_object_new_object();
			json_object_object_add(x, "name", json_text(v->name));
			json_object_object_add(x, "crc", json_crc(true, v->crc));
			json_object_array_add(arr, x);
		}
		json_object_object_add(o, "ext_versions", arr);
	}
	json_stream_item(&run->js, o);
}

/* Aligned columns; SYMBOL is capped as in `exports`. */
static void print_text(struct imports_run *run, const struct ksc_module *mod)
{
	size_t n = ksc_module_get_import_count(mod);
	size_t w = strlen("SYMBOL");

	if (run->files++)
		putchar('\n');
	printf("%s (%s):\n", text_esc(ksc_module_get_path(mod)),
	       text_esc(ksc_module_get_name(mod)));
	for (size_t i = 0; i < n; i++)
		text_col_fit(&w, ksc_module_get_import(mod, i)->name, TEXT_CAP_SYMBOL);
	fputs("  ", stdout);
	text_cell(stdout, "SYMBOL", w);
	printf("  %-6s  %-10s  %s\n", "BIND", "CRC", "EXT_CRC");
	for (size_t i = 0; i < n; i++) {
		const struct ksc_import *im = ksc_module_get_import(mod, i);
		char crc[16] = "-", ext[16] = "-";
		if (im->has_crc)
			snprintf(crc, sizeof(crc), "0x%08x", im->crc);
		if (im->has_ext_crc)
			snprintf(ext, sizeof(ext), "0x%08x", im->ext_crc);
		fputs("  ", stdout);
		text_cell(stdout, im->name, w);
		printf("  %-6s  %-10s  %s\n", im->bind == KSC_BIND_WEAK ? "weak" : "global", crc,
		       ext);
	}
}

static int one_path(const char *path, const char *root, void *data)
{
	struct imports_run *run = data;
	struct ksc_module *mod;
	int r = ksc_module_new_from_module_path(run->ctx, path, &mod);

	if (r < 0) {
		run->errors++;
		return r == -ENOMEM ? r : 0;
	}
	if (ksc_module_get_kind(mod) != KSC_KIND_MODULE) {
		print_error("%s: not a module (a kernel image imports nothing)", path);
		run->errors++;
	} else if (run->format == FMT_JSON) {
		print_json(run, mod);
	} else if (!run->quiet) {
		print_text(run, mod);
	}
	ksc_module_unref(mod);
	return 0;
}

int cmd_imports(struct ksc_ctx *ctx, int argc, char *argv[])
{
	struct imports_run run = { .ctx = ctx, .format = FMT_TEXT,
				   .js = { .command = "imports", .key = "modules" } };
	const struct option_set set = {
		.format = &run.format,
		.formats = 1u << FMT_TEXT | 1u << FMT_JSON,
		.quiet = &run.quiet,
		.help = help,
	};
	int r = parse_options("imports", argc, argv, &set, NULL, NULL);

	if (r != KSC_EXIT_OK)
		return r < 0 ? KSC_EXIT_OK : r;
	if (optind >= argc)
		return usage_error("imports", "no PATH given");
	r = walk_paths(ctx, argv + optind, argc - optind, one_path, &run, &run.errors);
	if (r < 0) {
		print_error("%s", strerror(-r));
		run.errors++;
	}
	if (run.format == FMT_JSON)
		json_stream_end(&run.js);
	return run.errors ? KSC_EXIT_UNREADABLE : KSC_EXIT_OK;
}
