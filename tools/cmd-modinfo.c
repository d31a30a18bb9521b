// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ksymcheck modinfo [-F KEY] [--format text|json] FILE...
 *
 * Text output follows kmod's modinfo(8) (tools/modinfo.c) so that scripts can switch:
 *  - "filename:" first, with the path made absolute the way kmod does it (the current
 *    folder, as get_current_dir_name() reports it, + "/" + the path; no normalisation);
 *  - then every .modinfo entry in file order as "key:" padded to 16 columns + value
 *    (kmod pads with printf's "%-*s" and a width of 15 - strlen(key); a negative width is
 *    taken as left-justified, so keys of 16 or more characters get 15 - strlen(key) spaces
 *    made positive, and a 15-character key gets none);
 *  - parm= and parmtype= entries are not printed where they occur: they are merged by
 *    parameter name (the part before the first ':'; the last value of each kind wins) and
 *    printed at the end, one "parm:" line per parameter, in the REVERSE order of each
 *    name's first appearance (kmod prepends to a list). With -F parm the lines are the same
 *    without the "parm:" column, and a parameter that only has a parmtype is printed as
 *    "name: (type)" instead of "name:type";
 *  - -F KEY prints only the values of KEY, one per line, no key ("depends=" prints an empty
 *    line). -F filename prints the absolute path; -F name prints modinfo name= (nothing
 *    when absent), as kmod does for a module given by path;
 *  - the appended signature is reported as kmod 30 reports it (libkmod-signature.c,
 *    kmod_module_get_info()): sig_id, signer, sig_key, sig_hashalgo and signature, after
 *    the .modinfo entries and before the parm lines, in the full listing and for -F alike.
 *    sig_key and signature are bytes as uppercase hex pairs joined by ':', with a line
 *    break and two tabs after every 20th byte (the ':' stays at the end of the line).
 *    A block kmod cannot decode (ksc_module_get_signature() < 0) shows nothing, as in kmod.
 *  - unlike kmod, control characters and invalid UTF-8 in keys, values, parameter names
 *    and the file name are shown escaped (text_esc(): ESC as \x1b), in -F output too;
 *    values and parameter descriptions keep their tabs and newlines (text_esc_ws()), as
 *    kmod prints them.
 *
 * --format json prints a document whose "modules" array has an object per file (see the
 * usage text).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ksymcheck.h"
#include "util/array.h"
#include "util/macro.h"
#include "tools/ksc-tool.h"
#include "tools/text.h"

#define CMD "modinfo"

static const char *const signature_keys[] = {
	"sig_id", "signer", "sig_key", "sig_hashalgo", "signature",
};

struct modinfo_state {
	struct ksc_ctx *ctx;
	const char *field;   /* -F KEY, or NULL */
	int format;          /* FMT_TEXT or FMT_JSON */
	bool quiet;          /* -q: text: nothing, only the errors */
	unsigned errors;     /* files that could not be read */
	struct json_stream js; /* FMT_JSON: one object per module, printed as each is read */
	int err;             /* -ENOMEM and the like: stop */
};

static const char help[] =
	"Usage: ksymcheck " CMD " [OPTIONS] FILE...\n"
	"\n"
	"Show the .modinfo entries of kernel modules, as kmod's modinfo(8) does for a\n"
	"module given by path. A folder is searched for modules (*.ko, *.ko.gz, *.ko.xz,\n"
	"*.ko.zst). Each FILE is read as a module: at most 256 MiB, as a file and\n"
	"decompressed, whatever its name, and a bzImage header on it is not unwrapped.\n"
	"\n"
	"Options:\n"
	"  -F, --field KEY        print only the values of KEY, one per line, exactly as\n"
	"                         'modinfo -F KEY FILE' does (filename, name and the merged\n"
	"                         parm lines and the signature fields sig_id, signer,\n"
	"                         sig_key, sig_hashalgo and signature included)\n"
	"  -f, --format FORMAT    text (default) or json\n"
	"      --json             the same as --format json\n"
	"  -q, --quiet            text: print nothing but the errors (a check that each\n"
	"                         FILE is a readable module)\n"
	"  -h, --help             show this help and exit\n"
	"\n"
	"JSON: an object {\"schema\": \"ksymcheck/1\", \"command\": \"modinfo\", \"modules\": [...]}\n"
	"whose \"modules\" array has one object per file: {\"path\", \"name\", \"struct_name\",\n"
	"\"modinfo_name\", \"kmod_name\", \"modpost_name\", \"compression\", \"intree\",\n"
	"\"vermagic\", \"modinfo\": [{\"key\", \"value\"}, ...], \"signature\": {\"id_type\",\n"
	"\"signer\", \"key_id\", \"hash_algo\", \"signature\"}} (null where absent).\n"
	"\n"
	"Exit status: 0 success, 2 usage error, 4 some files could not be read or are not\n"
	"modules (the other files were processed).\n";

/*
 * kmod's kmod_module_hex_to_str(): "AB:CD:..." with "\n\t\t" after every 20th byte's ':'.
 * `wrap` 0: no line breaks (JSON). Caller frees.
 */
static char *hex_bytes(const unsigned char *p, size_t n, size_t wrap)
{
	char *s = malloc(n * 6 + 1), *o = s;

	if (!s)
		return NULL;
	*o = '\0';
	for (size_t i = 0; i < n; i++) {
		o += sprintf(o, "%02X", p[i]);
		if (i + 1 < n) {
			*o++ = ':';
			if (wrap && (i + 1) % wrap == 0)
				o += sprintf(o, "\n\t\t");
		}
	}
	*o = '\0';
	return s;
}

/* The signature entries kmod adds after .modinfo: key and value (malloc'ed) for i < 5. */
static int signature_entry(const struct ksc_signature_info *si, size_t i, char **value)
{
	switch (i) {
	case 0: *value = strdup(si->id_type); break;
	case 1: *value = strdup(si->signer); break;
	case 2: *value = hex_bytes(si->key_id, si->key_id_len, 20); break;
	case 3: *value = strdup(si->hash_algo); break;
	default: *value = hex_bytes(si->sig, si->sig_len, 20); break;
	}
	return *value ? 0 : -ENOMEM;
}

/* A signature entry as printed: the hex dumps (i == 2, 4) are ours, with their breaks. */
static const char *sig_text(size_t i, const char *v)
{
	return i == 2 || i == 4 ? v : text_esc_ws(v);
}

/* kmod's path_make_absolute_cwd(): cwd + '/' + path for a relative path. */
static char *absolute_path(const char *path)
{
	if (path[0] == '/')
		return strdup(path);
	_cleanup_free_ char *cwd = get_current_dir_name();
	if (!cwd)
		return strdup(path);
	char *r = NULL;
	if (asprintf(&r, "%s/%s", cwd, path) < 0)
		r = NULL;
	return r;
}

/* ---------------------------------------------------------------------------------- */
/* parm / parmtype merging, as kmod's modinfo                                          */

struct param {
	const char *name;
	int namelen;
	const char *desc;     /* from parm=, NULL when none */
	const char *type;     /* from parmtype=, NULL when none */
};

/*
 * Collect the parameters in order of first appearance. Entries without ':' are skipped
 * (kmod prints an error about them and goes on). Returns the count, or -ENOMEM.
 */
static int collect_params(const struct ksc_module *mod, struct param **out)
{
	size_t n = ksc_module_get_modinfo_count(mod);
	struct param *p = NULL;
	size_t np = 0, cap = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ksc_modinfo *mi = ksc_module_get_modinfo(mod, i);
		bool is_parm = strcmp(mi->key, "parm") == 0;
		if (!is_parm && strcmp(mi->key, "parmtype") != 0)
			continue;
		const char *colon = strchr(mi->value, ':');
		if (!colon) {
			print_warning("%s: invalid \"%s=%s\": missing ':'",
				      text_esc(ksc_module_get_path(mod)), text_esc(mi->key),
				      text_esc(mi->value));
			continue;
		}
		int namelen = (int)(colon - mi->value);
		size_t j;
		for (j = 0; j < np; j++)
			if (p[j].namelen == namelen && memcmp(p[j].name, mi->value, namelen) == 0)
				break;
		if (j == np &&
		    array_push(p, np, cap, (struct param){ .name = mi->value, .namelen = namelen }) < 0) {
			free(p);
			return -ENOMEM;
		}
		if (is_parm)
			p[j].desc = colon + 1;
		else
			p[j].type = colon + 1;
	}
	*out = p;
	return (int)np;
}

/* Print the merged parameters, newest first. with_key: the full listing's form. */
static int print_params(const struct ksc_module *mod, bool with_key)
{
	_cleanup_free_ struct param *p = NULL;
	int np = collect_params(mod, &p);
	if (np < 0)
		return np;
	for (int i = np - 1; i >= 0; i--) {
		_cleanup_free_ char *name = strndup(p[i].name, (size_t)p[i].namelen);
		if (!name)
			return -ENOMEM;
		if (with_key)
			printf("%-16s", "parm:");
		if (!p[i].desc)
			printf(with_key ? "%s:%s\n" : "%s: (%s)\n", text_esc(name),
			       text_esc(p[i].type));
		else if (p[i].type)
			printf("%s:%s (%s)\n", text_esc(name), text_esc_ws(p[i].desc),
			       text_esc(p[i].type));
		else
			printf("%s:%s\n", text_esc(name), text_esc_ws(p[i].desc));
	}
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Output                                                                             */

/*
 * kmod appends the signature fields after the .modinfo entries of a signed module: each
 * as "key:" padded to 16 columns and its value, or with field only that key's value.
 */
static int print_signature(const struct ksc_module *mod, const char *field)
{
	struct ksc_signature_info si;
	int r = ksc_module_get_signature(mod, &si);

	if (r == -ENOMEM)
		return r;
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(signature_keys); i++) {
		_cleanup_free_ char *v = NULL;
		if (field && strcmp(field, signature_keys[i]) != 0)
			continue;
		if (signature_entry(&si, i, &v) < 0)
			return -ENOMEM;
		if (field)
			printf("%s\n", sig_text(i, v));
		else
			printf("%s:%*s%s\n", signature_keys[i],
			       15 - (int)strlen(signature_keys[i]), "", sig_text(i, v));
	}
	return 0;
}

static int print_field(struct modinfo_state *st, const struct ksc_module *mod)
{
	const char *field = st->field;

	if (strcmp(field, "filename") == 0) {
		_cleanup_free_ char *abs = absolute_path(ksc_module_get_path(mod));
		if (!abs)
			return -ENOMEM;
		printf("%s\n", text_esc(abs));
		return 0;
	}
	if (strcmp(field, "parm") == 0)
		return print_params(mod, false);

	size_t n = ksc_module_get_modinfo_count(mod);
	for (size_t i = 0; i < n; i++) {
		const struct ksc_modinfo *mi = ksc_module_get_modinfo(mod, i);
		if (strcmp(mi->key, field) == 0)
			printf("%s\n", text_esc_ws(mi->value));
	}
	return print_signature(mod, field);
}

static int print_text(const struct ksc_module *mod)
{
	_cleanup_free_ char *abs = absolute_path(ksc_module_get_path(mod));
	if (!abs)
		return -ENOMEM;
	printf("%-16s%s\n", "filename:", text_esc(abs));

	size_t n = ksc_module_get_modinfo_count(mod);
	for (size_t i = 0; i < n; i++) {
		const struct ksc_modinfo *mi = ksc_module_get_modinfo(mod, i);
		if (strcmp(mi->key, "parm") == 0 || strcmp(mi->key, "parmtype") == 0)
			continue;
		int pad = 15 - (int)text_width(mi->key);
		printf("%s:%*s%s\n", text_esc(mi->key), pad < 0 ? -pad : pad, "",
		       text_esc_ws(mi->value));
	}
	int r = print_signature(mod, NULL);
	return r < 0 ? r : print_params(mod, true);
}

static int print_json(struct modinfo_state *st, const struct ksc_module *mod)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	if (!o || !arr) {
		json_object_put(o);
		json_object_put(arr);
		return -ENOMEM;
	}
	json_object_object_add(o, "path", json_text(ksc_module_get_path(mod)));
	json_object_object_add(o, "name", json_text(ksc_module_get_name(mod)));
	json_object_object_add(o, "struct_name", json_text(ksc_module_get_struct_name(mod)));
	json_object_object_add(o, "modinfo_name",
			       json_text(ksc_module_get_modinfo_name(mod)));
	json_object_object_add(o, "kmod_name", json_text(ksc_module_get_kmod_name(mod)));
	json_object_object_add(o, "modpost_name",
			       json_text(ksc_module_get_modpost_name(mod)));
	json_object_object_add(o, "compression", json_text(
		ksc_compression_name(ksc_module_get_compression(mod))));
	json_object_object_add(o, "intree", json_object_new_boolean(ksc_module_is_intree(mod)));
	json_object_object_add(o, "vermagic", json_text(ksc_module_get_vermagic(mod)));

	size_t n = ksc_module_get_modinfo_count(mod);
	for (size_t i = 0; i < n; i++) {
		const struct ksc_modinfo *mi = ksc_module_get_modinfo(mod, i);
		struct json_object *e = json_object_new_object();
		if (!e) {
			json_object_put(o);
			json_object_put(arr);
			return -ENOMEM;
		}
		json_object_object_add(e, "key", json_text(mi->key));
		json_object_object_add(e, "value", json_text(mi->value));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "modinfo", arr);

	struct ksc_signature_info si;
	int r = ksc_module_get_signature(mod, &si);
	struct json_object *sig = NULL;
	if (r == -ENOMEM) {
		json_object_put(o);
		return r;
	}
	if (r == 0) {
		_cleanup_free_ char *key = hex_bytes(si.key_id, si.key_id_len, 0);
		_cleanup_free_ char *val = hex_bytes(si.sig, si.sig_len, 0);
		sig = json_object_new_object();
		if (!key || !val || !sig) {
			json_object_put(sig);
			json_object_put(o);
			return -ENOMEM;
		}
		json_object_object_add(sig, "id_type", json_text(si.id_type));
		json_object_object_add(sig, "signer", json_text(si.signer));
		json_object_object_add(sig, "key_id", json_text(key));
		json_object_object_add(sig, "hash_algo", json_text(si.hash_algo));
		json_object_object_add(sig, "signature", json_text(val));
	}
	json_object_object_add(o, "signature", sig);

	json_stream_item(&st->js, o);
	return 0;
}

static int do_file(const char *path, const char *root, void *data)
{
	struct modinfo_state *st = data;
	struct ksc_module *mod;

	int r = ksc_module_new_from_module_path(st->ctx, path, &mod);
	if (r == -ENOMEM) {
		st->err = r;
		return r;
	}
	if (r < 0) {
		/* The library has reported "<path>: <reason>" through the log function. */
		st->errors++;
		return 0;
	}
	if (ksc_module_get_kind(mod) != KSC_KIND_MODULE) {
		print_error("%s: not a module (a kernel image has no .modinfo of its own)",
			    text_esc(path));
		st->errors++;
		r = 0;
	} else if (st->format == FMT_JSON)
		r = print_json(st, mod);
	else if (st->quiet)
		r = 0;
	else if (st->field)
		r = print_field(st, mod);
	else
		r = print_text(mod);
	ksc_module_unref(mod);
	if (r < 0)
		st->err = r;
	return r;
}

int cmd_modinfo(struct ksc_ctx *ctx, int argc, char *argv[])
{
	struct modinfo_state st = { .ctx = ctx, .format = FMT_TEXT,
				    .js = { .command = CMD, .key = "modules" } };
	const struct option_set set = {
		.own = (const struct own_option[]){
			{ "field", required_argument, &st.field, 'F' },
			{ 0 },
		},
		.own_short = "F:",
		.format = &st.format,
		.formats = 1u << FMT_TEXT | 1u << FMT_JSON,
		.quiet = &st.quiet,
		.help = help,
	};
	int r = parse_options(CMD, argc, argv, &set, NULL, &st);

	if (r != KSC_EXIT_OK)
		return r < 0 ? KSC_EXIT_OK : r;
	if (optind >= argc)
		return usage_error(CMD, "missing FILE");
	if (st.field && st.format == FMT_JSON)
		return usage_error(CMD, "-F and --format json cannot be combined");
	if (st.field && st.field[0] == '\0')
		return usage_error(CMD, "-F needs a non-empty KEY");

	walk_paths(ctx, argv + optind, argc - optind, do_file, &st, &st.errors);
	if (st.err == -ENOMEM) {
		print_error("out of memory");
		return KSC_EXIT_UNREADABLE;
	}
	if (st.format == FMT_JSON)
		json_stream_end(&st.js);
	return st.errors ? KSC_EXIT_UNREADABLE : KSC_EXIT_OK;
}
