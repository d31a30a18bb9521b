// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by the subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ksc-internal.h"
#include "tools/ksc-tool.h"

const char *program_name = "ksymcheck";

bool use_colour(FILE *f)
{
	const char *no_colour = getenv("NO_COLOR");
	const char *term = getenv("TERM");

	if (no_colour && no_colour[0])
		return false;
	if (!term || strcmp(term, "dumb") == 0)
		return false;
	return isatty(fileno(f)) == 1;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	bool colour = use_colour(stderr);
	va_list ap;

	fprintf(stderr, "%s%s:%s ", colour ? COLOUR_BOLD : "", program_name,
		colour ? COLOUR_OFF : "");
	if (colour)
		fputs(COLOUR_RED, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (colour)
		fputs(COLOUR_OFF, stderr);
	fprintf(stderr, "\nTry '%s%s%s --help'.\n", program_name, cmd ? " " : "", cmd ? cmd : "");
	return KSC_EXIT_USAGE;
}

int parse_format(const char *cmd, const char *value, unsigned allowed)
{
	static const char *const names[] = { [FMT_TEXT] = "text", [FMT_JSON] = "json",
					     [FMT_SYMVERS] = "symvers" };

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((allowed & (1u << i)) && strcmp(value, names[i]) == 0)
			return (int)i;
	usage_error(cmd, "unknown --format '%s'", value);
	return -1;
}

int parse_view(const char *cmd, const char *value)
{
	if (strcmp(value, "loader") == 0)
		return KSC_VIEW_LOADER;
	if (strcmp(value, "modpost") == 0)
		return KSC_VIEW_MODPOST;
	if (strcmp(value, "both") == 0)
		return KSC_VIEW_BOTH;
	usage_error(cmd, "unknown --view '%s'", value);
	return -1;
}

struct walk_tramp {
	int (*fn)(const char *path, const char *root, void *data);
	void *data;
	const char *root;
};

static int tramp(const char *path, void *data)
{
	struct walk_tramp *t = data;

	return t->fn(path, t->root, t->data);
}

int walk_paths(struct ksc_ctx *ctx, char **paths, int n,
	       int (*fn)(const char *path, const char *root, void *data), void *data,
	       unsigned *errors)
{
	int ret = 0;

	for (int i = 0; i < n && ret >= 0; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			struct walk_tramp t = { fn, data, paths[i] };
			ret = ksc_walk_modules(ctx, paths[i], NULL, tramp, &t, errors);
		} else {
			/* Files, and paths that do not exist: the reader reports those. */
			ret = fn(paths[i], NULL, data);
		}
	}
	return ret;
}

void json_stream_item(unsigned *count, json_object *o)
{
	fputs(*count ? ",\n" : "[\n", stdout);
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
	json_object_put(o);
	(*count)++;
}

void json_stream_end(unsigned count)
{
	fputs(count ? "\n]\n" : "[]\n", stdout);
}

/* ---- the kernel a command checks against (check, nsdeps) ---- */

static int add_provider(const char *path, const char *root, void *data)
{
	struct ksc_kernel *k = data;
	struct ksc_module *mod;
	int r = ksc_module_new_from_path(ksc_kernel_get_ctx(k), path, &mod);

	if (r < 0)
		return r == -ENOMEM ? r : 1;
	r = ksc_module_get_kind(mod) == KSC_KIND_MODULE ? ksc_kernel_add_module(k, mod) : 0;
	ksc_module_unref(mod);
	return r;
}

/* The kernel to check against, from the options. Errors reported; counts *errors. */
struct ksc_kernel *open_kernel(struct ksc_ctx *ctx, const struct kernel_opts *a, unsigned *errors,
			       struct ksc_keyring *kr)
{
	struct ksc_kernel *k = NULL;
	int r;

	if (a->root) {
		r = ksc_kernel_open(ctx, a->root, a->kver, &k);
		if (r < 0)
			return NULL;
		*errors += ksc_kernel_get_error_count(k);
	} else {
		r = ksc_kernel_new(ctx, &k);
		if (r < 0)
			return NULL;
		if (a->kver && ksc_kernel_set_release(k, a->kver) < 0)
			goto err;
	}
	if (a->symvers) {
		struct ksc_symvers *sv;
		if (ksc_symvers_new_from_path(ctx, a->symvers, &sv) < 0)
			goto err;
		if (ksc_symvers_get_error_count(sv))
			(*errors)++;
		r = ksc_kernel_add_symvers(k, sv);
		ksc_symvers_unref(sv);
		if (r < 0)
			goto err;
	}
	if (a->vmlinux) {
		struct ksc_module *vm;
		if (ksc_module_new_from_path(ctx, a->vmlinux, &vm) < 0)
			goto err;
		if (ksc_module_get_kind(vm) != KSC_KIND_VMLINUX) {
			fprintf(stderr, "%s: not a kernel image\n", a->vmlinux);
			ksc_module_unref(vm);
			goto err;
		}
		r = ksc_kernel_add_vmlinux(k, vm);
		if (r >= 0 && kr) /* its built-in keys verify module signatures */
			r = ksc_keyring_add_vmlinux(kr, vm);
		ksc_module_unref(vm);
		if (r < 0)
			goto err;
	}
	for (int i = 0; i < a->n_module_dirs; i++) {
		unsigned bad = 0;
		r = walk_paths(ctx, &a->module_dirs[i], 1, add_provider, k, &bad);
		*errors += bad;
		if (r < 0)
			goto err;
	}
	if (a->config && ksc_kernel_read_config(k, a->config) < 0)
		goto err;
	return k;
err:
	ksc_kernel_unref(k);
	return NULL;
}

/* ---- the modules given on a command line ---- */

int collect_module(const char *path, const char *root, void *data)
{
	struct module_list *l = data;
	struct ksc_module *mod;
	int r = ksc_module_new_from_path(l->ctx, path, &mod);

	if (r < 0) {
		l->errors++;
		return r == -ENOMEM ? r : 0;
	}
	if (ksc_module_get_kind(mod) != KSC_KIND_MODULE) {
		fprintf(stderr, "%s: not a module\n", path);
		ksc_module_unref(mod);
		l->errors++;
		return 0;
	}
	if (l->n + 2 > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct ksc_module **m = realloc(l->mods, cap * sizeof(*m));
		if (!m) {
			ksc_module_unref(mod);
			return -ENOMEM;
		}
		l->mods = m;
		l->cap = cap;
	}
	l->mods[l->n++] = mod;
	l->mods[l->n] = NULL;
	return 0;
}

void module_list_free(struct module_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		ksc_module_unref(l->mods[i]);
	free(l->mods);
	l->mods = NULL;
	l->n = l->cap = 0;
}
