// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command line, one parser for every command (the only getopt_long() of the tool):
 * each command hands parse_options() its own options, names the output options and the
 * kernel options (KOPT_x) it takes, and gets the kernel's in a struct kernel_opts. One
 * set of names for the options that name a kernel and its rules (check, nsdeps, tree,
 * audit, diff, compat) and for the output options (--format, --json, -q, -v, --html).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/macro.h"
#include "tools/ksc-tool.h"

/* getopt values of the long-only kernel and output options: no own option uses these. */
enum {
	KOPT_VAL_KVER = 0x1000,
	KOPT_VAL_VMLINUX,
	KOPT_VAL_CONFIG,
	KOPT_VAL_SYSTEM_MAP,
	KOPT_VAL_CERT,
	KOPT_VAL_VIEW,
	KOPT_VAL_REQUIRE_INTREE,
	KOPT_VAL_EXTERNAL_BUILD,
	KOPT_VAL_INTREE_BUILD,
	KOPT_VAL_DISTRO,
	OUT_VAL_JSON,
	OUT_VAL_HTML,
};

static const struct kernel_opt_def {
	unsigned set; /* KOPT_x: the commands that ask for it take it */
	struct option opt;
} kernel_opt_defs[] = {
	{ KOPT_ROOT, { "kernel", required_argument, NULL, 'k' } },
	{ KOPT_ROOT, { "basedir", required_argument, NULL, 'b' } },
	{ KOPT_KVER, { "kver", required_argument, NULL, KOPT_VAL_KVER } },
	{ KOPT_SYMVERS, { "symvers", required_argument, NULL, 's' } },
	{ KOPT_VMLINUX, { "vmlinux", required_argument, NULL, KOPT_VAL_VMLINUX } },
	{ KOPT_MODULES, { "modules", required_argument, NULL, 'm' } },
	{ KOPT_CONFIG, { "config", required_argument, NULL, KOPT_VAL_CONFIG } },
	{ KOPT_SYSTEM_MAP, { "system-map", required_argument, NULL, KOPT_VAL_SYSTEM_MAP } },
	{ KOPT_CERT, { "cert", required_argument, NULL, KOPT_VAL_CERT } },
	{ KOPT_POLICY, { "policy", required_argument, NULL, 'p' } },
	{ KOPT_REQUIRE_INTREE, { "require-intree", no_argument, NULL, KOPT_VAL_REQUIRE_INTREE } },
	{ KOPT_MISSING_NS, { "allow-missing-ns", no_argument, NULL, 'N' } },
	{ KOPT_BUILD, { "external-build", no_argument, NULL, KOPT_VAL_EXTERNAL_BUILD } },
	{ KOPT_BUILD, { "in-tree-build", no_argument, NULL, KOPT_VAL_INTREE_BUILD } },
	{ KOPT_VIEW, { "view", required_argument, NULL, KOPT_VAL_VIEW } },
	{ KOPT_DISTRO, { "distro", required_argument, NULL, KOPT_VAL_DISTRO } },
};

/* The output options: the command's option_set says which it takes, and where they go. */
static const struct option format_opts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "json", no_argument, NULL, OUT_VAL_JSON },
};
static const struct option quiet_opt = { "quiet", no_argument, NULL, 'q' };
static const struct option verbose_opt = { "verbose", no_argument, NULL, 'v' };
static const struct option html_opt = { "html", required_argument, NULL, OUT_VAL_HTML };

/* A command's getopt tables: its own options, its output and kernel options, --help. */
struct opt_table {
	struct option *longopts;
	char shortopts[64];
};

static int opt_table_new(struct opt_table *t, const struct option_set *s)
{
	static const struct option help = { "help", no_argument, NULL, 'h' };
	size_t n_own = 0, n = 0;

	while (s->own && s->own[n_own].name)
		n_own++;
	/* + quiet, verbose, html, help and the {0} at the end */
	t->longopts = calloc(n_own + ARRAY_SIZE(format_opts) + ARRAY_SIZE(kernel_opt_defs) + 5,
			     sizeof(*t->longopts));
	if (!t->longopts)
		return -ENOMEM;
	for (size_t i = 0; i < n_own; i++)
		t->longopts[n++] = (struct option){ s->own[i].name, s->own[i].has_arg, NULL,
						    s->own[i].val };
	for (size_t i = 0; s->format && i < ARRAY_SIZE(format_opts); i++)
		t->longopts[n++] = format_opts[i];
	if (s->quiet)
		t->longopts[n++] = quiet_opt;
	if (s->verbose)
		t->longopts[n++] = verbose_opt;
	if (s->html)
		t->longopts[n++] = html_opt;
	for (size_t i = 0; i < ARRAY_SIZE(kernel_opt_defs); i++)
		if (kernel_opt_defs[i].set & s->kernel)
			t->longopts[n++] = kernel_opt_defs[i].opt;
	t->longopts[n++] = help;
	/*
	 * ':' first: missing arguments are reported by option_error(), not by getopt. -N is
	 * the short form of --allow-missing-ns only where a command asks for it.
	 */
	unsigned set = s->kernel;
	snprintf(t->shortopts, sizeof(t->shortopts), ":%s%s%s%s%s%s%s%s%s%sh",
		 s->own_short ? s->own_short : "", s->format ? "f:" : "", s->quiet ? "q" : "",
		 s->verbose ? "v" : "", set & KOPT_ROOT ? "k:b:" : "",
		 set & KOPT_SYMVERS ? "s:" : "", set & KOPT_MODULES ? "m:" : "",
		 set & KOPT_DEPMOD ? "E:F:" : "", set & KOPT_POLICY ? "p:" : "",
		 set & KOPT_MISSING_NS_N ? "N" : "");
	return 0;
}

/* The length of a long option's name as written: up to '=' or the end. */
static size_t long_name_len(const char *arg)
{
	return strcspn(arg, "=");
}

/*
 * After getopt_long() returned '?' or ':' (shortopts starts with ':', opterr is 0): the
 * usage error getopt would print, with the "ksymcheck: " prefix. Returns 2.
 */
static int option_error(const char *cmd, char *const argv[], const char *shortopts,
			const struct option *longopts)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	bool is_long = strncmp(arg, "--", 2) == 0;
	int len = (int)(is_long ? long_name_len(arg) : 0);

	if (optopt && optopt < 256 && strchr(shortopts, optopt) == NULL)
		is_long = false; /* an unknown letter in a cluster after a long option */
	if (!is_long) {
		if (optopt && strchr(shortopts, optopt) && optopt != ':')
			return usage_error(cmd, "option requires an argument -- '%c'", optopt);
		return usage_error(cmd, "invalid option -- '%c'", optopt);
	}
	unsigned matches = 0;
	for (const struct option *o = longopts; o->name; o++) {
		if (strncmp(o->name, arg + 2, (size_t)len - 2) != 0)
			continue;
		if (strlen(o->name) == (size_t)len - 2) {
			matches = 1;
			break;
		}
		matches++;
	}
	if (matches > 1)
		return usage_error(cmd, "option '%.*s' is ambiguous", len, arg);
	if (matches == 0 || !optopt)
		return usage_error(cmd, "unrecognized option '%.*s'", len, arg);
	if (arg[len] == '=')
		return usage_error(cmd, "option '%.*s' doesn't allow an argument", len, arg);
	return usage_error(cmd, "option '%.*s' requires an argument", len, arg);
}

int parse_jobs(const char *cmd, const char *value, unsigned max)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(value, &end, 10);
	if (value[0] < '0' || value[0] > '9' || *end || errno || n < 1 || n > max) {
		usage_error(cmd, "--jobs needs a number from 1 to %u", max);
		return -1;
	}
	return (int)n;
}

/* --format VALUE: a FMT_x that allowed (a mask of 1 << FMT_x) has; -1 after the usage error. */
static int parse_format(const char *cmd, const char *value, unsigned allowed)
{
	static const char *const names[] = { [FMT_TEXT] = "text", [FMT_JSON] = "json",
					     [FMT_SYMVERS] = "symvers", [FMT_KERNEL] = "kernel",
					     [FMT_SARIF] = "sarif", [FMT_DOT] = "dot" };

	for (unsigned i = 0; i < ARRAY_SIZE(names); i++)
		if ((allowed & (1u << i)) && names[i] && strcmp(value, names[i]) == 0)
			return (int)i;
	usage_error(cmd, "unknown --format '%s'", value);
	return -1;
}

/* --view: KSC_VIEW_LOADER, _MODPOST or _BOTH; -1 after the usage error. */
static int parse_view(const char *cmd, const char *value)
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

/* Append s to a NULL-less list: 1 (an option stored, as kernel_opt() says), or -ENOMEM. */
static int push(const char ***v, int *n, size_t *cap, const char *s)
{
	if (array_reserve(*v, *cap, (size_t)*n + 1, 4) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = s;
	return 1;
}

/* Store one kernel option: 1 when ch is one, 0 when not, -ENOMEM, or -EINVAL (reported). */
static int kernel_opt(const char *cmd, struct kernel_opts *o, int ch, const char *arg)
{
	switch (ch) {
	case 'k':
	case 'b': o->root = arg; break;
	case KOPT_VAL_KVER: o->kver = arg; break;
	case 's':
	case 'E': o->symvers = arg; break;
	case KOPT_VAL_VMLINUX: o->vmlinux = arg; break;
	case KOPT_VAL_CONFIG: o->config = arg; break;
	case KOPT_VAL_SYSTEM_MAP:
	case 'F': o->system_map = arg; break;
	case 'm': return push(&o->module_dirs, &o->n_module_dirs, &o->cap_module_dirs, arg);
	case KOPT_VAL_CERT: return push(&o->certs, &o->n_certs, &o->cap_certs, arg);
	case 'p': o->policy = arg; break;
	case KOPT_VAL_REQUIRE_INTREE: o->require_intree = true; break;
	case 'N': o->allow_missing_ns = true; break;
	case KOPT_VAL_EXTERNAL_BUILD: o->build = KSC_BUILD_EXTERNAL; break;
	case KOPT_VAL_INTREE_BUILD: o->build = KSC_BUILD_INTREE; break;
	case KOPT_VAL_VIEW: {
		int v = parse_view(cmd, arg);
		if (v < 0)
			return -EINVAL;
		o->views = (unsigned)v;
		break;
	}
	case KOPT_VAL_DISTRO:
		if (strcmp(arg, "debian") != 0 && strcmp(arg, "upstream") != 0) {
			usage_error(cmd, "unknown --distro '%s' (debian or upstream)", arg);
			return -EINVAL;
		}
		o->distro = arg;
		break;
	default: return 0;
	}
	return 1;
}

/*
 * One of the command's own options (it wins over an output or kernel option's letter):
 * 1 when its row says where it goes (stored), 0 for s->fn, -1 when ch is none of them.
 */
static int own_opt(const struct option_set *s, int ch, const char *arg)
{
	for (size_t i = 0; s->own && s->own[i].name; i++) {
		const struct own_option *o = &s->own[i];
		if (o->val != ch)
			continue;
		if (o->to && o->has_arg == required_argument)
			*(const char **)o->to = arg;
		else if (o->to)
			*(bool *)o->to = true;
		return o->to != NULL;
	}
	if (ch > 0 && ch < 256 && ch != ':' && s->own_short && strchr(s->own_short, ch))
		return 0;
	return -1;
}

/* Store one output option: 1 when ch is one the command takes, 0 when not, -EINVAL. */
static int output_opt(const char *cmd, const struct option_set *s, int ch, const char *arg)
{
	if (ch == 'f' && s->format) {
		int f = parse_format(cmd, arg, s->formats);
		if (f < 0)
			return -EINVAL;
		*s->format = f;
	} else if (ch == OUT_VAL_JSON && s->format) {
		*s->format = FMT_JSON;
	} else if (ch == 'q' && s->quiet) {
		*s->quiet = true;
	} else if (ch == 'v' && s->verbose) {
		*s->verbose = true;
	} else if (ch == OUT_VAL_HTML && s->html) {
		*s->html = arg;
	} else {
		return 0;
	}
	return 1;
}

int parse_options(const char *cmd, int argc, char *argv[], const struct option_set *s,
		  struct kernel_opts *k, void *data)
{
	struct opt_table t;
	int ch, r = KSC_EXIT_OK;

	if (k)
		k->views = KSC_VIEW_BOTH;
	if (opt_table_new(&t, s) < 0)
		return KSC_EXIT_UNREADABLE;
	opterr = 0; /* option_error() reports them, with the program's name */
	while (r == KSC_EXIT_OK &&
	       (ch = getopt_long(argc, argv, t.shortopts, t.longopts, NULL)) != -1) {
		int kr = own_opt(s, ch, optarg);
		if (kr < 0) {
			kr = output_opt(cmd, s, ch, optarg);
			if (!kr && k)
				kr = kernel_opt(cmd, k, ch, optarg);
		}
		if (kr > 0)
			continue;
		if (kr < 0) {
			r = kr == -ENOMEM ? KSC_EXIT_UNREADABLE : KSC_EXIT_USAGE;
		} else if (ch == '?' || ch == ':') {
			r = option_error(cmd, argv, t.shortopts, t.longopts);
		} else if (ch == 'h') {
			fputs(s->help, stdout);
			r = -1;
		} else if (s->fn) {
			r = s->fn(data, ch, optarg);
		}
	}
	free(t.longopts);
	return r;
}

int check_policy(const char *cmd, const char *policy)
{
	struct ksc_kver v;

	if (policy && ksc_kver_parse(policy, &v) < 0)
		return usage_error(cmd, "--policy '%s' is not a kernel version", policy);
	return KSC_EXIT_OK;
}

int modules_and_kernel(const char *cmd, int argc, struct kernel_opts *k)
{
	if (optind >= argc)
		return usage_error(cmd, "no MODULE given");
	/* No kernel named: this machine's, as kmod's tools take it (the running release). */
	if (!k->root && !k->symvers && !k->vmlinux)
		k->root = "/";
	return check_policy(cmd, k->policy);
}

unsigned distro_quirks(const char *distro)
{
	return distro && strcmp(distro, "debian") == 0 ? KSC_QUIRK_DEBIAN_MISSING_CRC : 0;
}

int add_certs(struct ksc_keyring *kr, const struct kernel_opts *k)
{
	for (int i = 0; i < k->n_certs; i++) {
		int r = ksc_keyring_add_path(kr, k->certs[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

void kernel_opts_free(struct kernel_opts *o)
{
	free(o->module_dirs);
	o->module_dirs = NULL;
	o->n_module_dirs = 0;
	free(o->certs);
	o->certs = NULL;
	o->n_certs = 0;
}
