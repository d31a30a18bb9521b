// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The options that name a kernel and its rules, one set of names and one parser for
 * check, nsdeps, tree, audit and diff: each command asks for the KOPT_x it takes, hands
 * parse_options() its own options and gets the kernel's in a struct kernel_opts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/macro.h"
#include "tools/ksc-tool.h"

/* getopt values of the long-only kernel options: no command's own option uses these. */
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

/* A command's getopt tables: its own options, the kernel options it takes, --help. */
struct opt_table {
	struct option *longopts;
	char shortopts[64];
};

static int opt_table_new(struct opt_table *t, const struct option *own, const char *own_short,
			 unsigned set)
{
	static const struct option help = { "help", no_argument, NULL, 'h' };
	size_t n_own = 0, n = 0;

	while (own[n_own].name)
		n_own++;
	t->longopts = calloc(n_own + ARRAY_SIZE(kernel_opt_defs) + 2, sizeof(*t->longopts));
	if (!t->longopts)
		return -ENOMEM;
	for (size_t i = 0; i < n_own; i++)
		t->longopts[n++] = own[i];
	for (size_t i = 0; i < ARRAY_SIZE(kernel_opt_defs); i++)
		if (kernel_opt_defs[i].set & set)
			t->longopts[n++] = kernel_opt_defs[i].opt;
	t->longopts[n++] = help;
	/*
	 * ':' first: missing arguments are reported by option_error(), not by getopt. -N is
	 * the short form of --allow-missing-ns only where a command asks for it.
	 */
	snprintf(t->shortopts, sizeof(t->shortopts), ":%s%s%s%s%s%s%sh", own_short,
		 set & KOPT_ROOT ? "k:b:" : "", set & KOPT_SYMVERS ? "s:" : "",
		 set & KOPT_MODULES ? "m:" : "", set & KOPT_DEPMOD ? "E:F:" : "",
		 set & KOPT_POLICY ? "p:" : "", set & KOPT_MISSING_NS_N ? "N" : "");
	return 0;
}

/* Append s to a NULL-less list grown one at a time. */
static int push(const char ***v, int *n, const char *s)
{
	const char **w = realloc(*v, (size_t)(*n + 1) * sizeof(*w));

	if (!w)
		return -ENOMEM;
	*v = w;
	w[(*n)++] = s;
	return 0;
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
	case 'm': return push(&o->module_dirs, &o->n_module_dirs, arg) < 0 ? -ENOMEM : 1;
	case KOPT_VAL_CERT: return push(&o->certs, &o->n_certs, arg) < 0 ? -ENOMEM : 1;
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

/* One of the command's own options: it wins over a kernel option of the same letter. */
static bool own_option(const struct option_set *s, int ch)
{
	for (size_t i = 0; s->own[i].name; i++)
		if (s->own[i].val == ch)
			return true;
	return ch > 0 && ch < 256 && ch != ':' && strchr(s->own_short, ch);
}

int parse_options(const char *cmd, int argc, char *argv[], const struct option_set *s,
		  struct kernel_opts *k, void *data)
{
	struct opt_table t;
	int ch, r = KSC_EXIT_OK;

	k->views = KSC_VIEW_BOTH;
	if (opt_table_new(&t, s->own, s->own_short, s->kernel) < 0)
		return KSC_EXIT_UNREADABLE;
	while (r == KSC_EXIT_OK &&
	       (ch = getopt_long(argc, argv, t.shortopts, t.longopts, NULL)) != -1) {
		int kr = own_option(s, ch) ? 0 : kernel_opt(cmd, k, ch, optarg);
		if (kr > 0)
			continue;
		if (kr < 0) {
			r = kr == -ENOMEM ? KSC_EXIT_UNREADABLE : KSC_EXIT_USAGE;
		} else if (ch == '?' || ch == ':') {
			r = option_error(cmd, argv, t.shortopts, t.longopts);
		} else if (ch == 'h') {
			fputs(s->help, stdout);
			r = -1;
		} else {
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
