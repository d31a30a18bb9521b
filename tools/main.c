// SPDX-License-Identifier: GPL-2.0-or-later
/* ksymcheck: which exported kernel symbols does a module use, and would Linux let it? */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksymcheck.h"
#include "tools/ksc-tool.h"

static const struct ksc_cmd commands[] = {
	{ "check", cmd_check, "decide every import as the loader and modpost of a chosen kernel would" },
	{ "audit", cmd_audit, "who may use what in a kernel, and who is pretending to be whom" },
	{ "diff", cmd_diff, "what changed between two kernels, and what it does to given modules" },
	{ "compat", cmd_compat, "one module, several kernels: would it build and load on each, and why not" },
	{ "modinfo", cmd_modinfo, "show a module's .modinfo and the names the kernel gives it" },
	{ "imports", cmd_imports, "list the symbols a module imports, with their CRCs" },
	{ "exports", cmd_exports, "list the symbols modules, vmlinux or Module.symvers export" },
	{ "src", cmd_src, "find export and import macros in C sources; migrate them to a kernel version" },
	{ "nsdeps", cmd_nsdeps, "add the MODULE_IMPORT_NS lines a built module is missing to its sources" },
	{ "tree", cmd_tree, "a whole lib/modules/KVER at once: depmod's resolution and files, all verdicts" },
	{ "explain", cmd_explain, "what a rule id (R16) or finding code (gpl-only) means, and the fix" },
};

/* out: printf, or print_plain for standard error. */
static void usage(int (*out)(const char *fmt, ...))
{
	out("Usage: %s [OPTIONS] COMMAND [ARGS...]\n\n"
	    "Which exported kernel symbols does a module use, and would Linux let it?\n\n"
	    "Commands:\n", program_name);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		out("  %-10s %s\n", commands[i].name, commands[i].help);
	out("\nOptions:\n"
	    "  -h, --help     show this help and exit\n"
	    "  -V, --version  show the version and compiled-in features and exit\n"
	    "\nA command's options may come before, between or after its operands; '--'\n"
	    "ends them. Every command that has --format has --json (--format json) and\n"
	    "every command has -q, --quiet (only errors and refusals).\n"
	    "\n'%s COMMAND --help' describes each command. See ksymcheck(1).\n",
	    program_name);
}

/* The command's own exit status: a write error at exit adds KSC_EXIT_UNREADABLE to it. */
static int exit_status;

/* Catch write errors on stdout (e.g. a full disk) at exit, as util-linux's close_stdout. */
static void close_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		if (errno == EPIPE)
			_exit(KSC_EXIT_OK);
		print_error("write error: %s", errno ? strerror(errno) : "I/O error");
		_exit(exit_status | KSC_EXIT_UNREADABLE);
	}
}

int main(int argc, char *argv[])
{
	atexit(close_stdout);
	if (argc < 2) {
		usage(print_plain);
		return KSC_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		usage(printf);
		return KSC_EXIT_OK;
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		printf("ksymcheck %s %s +JSON\n", KSC_VERSION_STRING, ksc_get_features());
		return KSC_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(cmd, commands[i].name) != 0)
			continue;
		struct ksc_ctx *ctx = ksc_new();
		if (!ctx) {
			print_error("out of memory");
			return KSC_EXIT_UNREADABLE;
		}
		ksc_set_log_fn(ctx, print_log, NULL);
		ksc_set_log_priority(ctx, getenv("KSYMCHECK_DEBUG") ? KSC_LOG_DEBUG : KSC_LOG_ERR);
		int r = commands[i].run(ctx, argc - 1, argv + 1);
		ksc_unref(ctx);
		exit_status = r;
		return r;
	}
	if (cmd[0] == '-' && cmd[1])
		return usage_error(NULL, "unknown option '%s' (a command's options follow it)",
				   cmd);
	return usage_error(NULL, "unknown command '%s'", cmd);
}
