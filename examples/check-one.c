// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check-one: would a kernel built with this Module.symvers load this module?
 *
 * A small program using libksymcheck through its installed header and pkg-config:
 *
 *	cc -o check-one check-one.c $(pkg-config --cflags --libs ksymcheck)
 *	./check-one /usr/src/linux-headers-$(uname -r)/Module.symvers mymod.ko
 *
 * It reads the kernel's exports from a Module.symvers, takes the rules of the kernel
 * release in the module's vermagic (unless --policy KVER is given), and prints the
 * loader's and modpost's verdicts with every finding:
 *
 *	fxdma: loader: refused (EINVAL)
 *	fxdma: dma_buf_get: loader: refused: namespace DMA_BUF is not imported [ns-missing]
 *	fxdma:     fix: add MODULE_IMPORT_NS("DMA_BUF");
 *	fxdma: modpost: fail
 *	...
 *
 * Exit status: 0 the loader would load it, 1 refused, 2 usage error, 4 unreadable input.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ksymcheck.h>

static int usage(void)
{
	fprintf(stderr, "Usage: check-one [--policy KVER] MODULE.SYMVERS MODULE\n");
	return 2;
}

/* The library reports problems with inputs as "<path>: <reason>" through this callback. */
static void log_fn(void *data, int priority, const char *msg)
{
	(void)data;
	fprintf(stderr, "check-one: %s%s\n", priority <= KSC_LOG_ERR ? "" : "warning: ", msg);
}

static const char *severity_word(enum ksc_severity s)
{
	return s == KSC_SEV_ERROR ? "refused" : s == KSC_SEV_WARNING ? "warning" : "note";
}

static void print_verdict(const struct ksc_report *rep, const struct ksc_module_verdict *v)
{
	const char *name = v->loader_name;

	if (v->loader_err)
		printf("%s: loader: refused (%s)\n", name, ksc_errno_name(v->loader_err));
	else
		printf("%s: loader: loads\n", name);
	for (size_t i = v->first_diag; i < v->first_diag + v->n_diags; i++) {
		/* Records are owned by the report: no copies, nothing to free. */
		const struct ksc_diag *d = ksc_report_get_diag(rep, i);

		if (d->view != KSC_VIEW_LOADER || d->severity == KSC_SEV_INFO)
			continue;
		printf("%s: %s%s%s: %s: %s [%s]\n", name, d->symbol ? d->symbol : "",
		       d->symbol ? ": " : "", "loader", severity_word(d->severity),
		       d->summary ? d->summary : d->code, d->code);
		if (d->fix)
			printf("%s:     fix: %s\n", name, d->fix);
	}
	printf("%s: modpost: %s\n", name, v->modpost_ok ? "pass" : "fail");
}

int main(int argc, char *argv[])
{
	const char *policy = NULL;
	int argi = 1, status = 4, r;

	if (argc > 2 && strcmp(argv[1], "--policy") == 0) {
		policy = argv[2];
		argi = 3;
	}
	if (argc - argi != 2)
		return usage();

	/* ksc_new() returns NULL only when out of memory. */
	struct ksc_ctx *ctx = ksc_new();
	if (!ctx) {
		fprintf(stderr, "check-one: out of memory\n");
		return 4;
	}
	ksc_set_log_fn(ctx, log_fn, NULL);

	struct ksc_symvers *sv = NULL;
	struct ksc_kernel *k = NULL;
	struct ksc_module *mod = NULL;
	struct ksc_report *rep = NULL;

	/* Every _new function returns 0 or -errno and hands over one reference in *out. */
	r = ksc_symvers_new_from_path(ctx, argv[argi], &sv);
	if (r < 0)
		goto out; /* already logged as "<path>: <reason>" */
	r = ksc_module_new_from_path(ctx, argv[argi + 1], &mod);
	if (r < 0)
		goto out;
	r = ksc_kernel_new(ctx, &k);
	if (r < 0)
		goto out;
	r = ksc_kernel_add_symvers(k, sv); /* the kernel keeps what it needs */
	if (r < 0)
		goto out;
	/* Without --policy: the rules of the release the module was built for. */
	const char *vermagic = ksc_module_get_vermagic(mod); /* owned by mod */
	if (!policy && vermagic) {
		char release[128];
		snprintf(release, sizeof(release), "%.*s", (int)strcspn(vermagic, " "), vermagic);
		ksc_kernel_set_release(k, release);
	}

	struct ksc_check_opts opts = { .sz = sizeof(opts), .policy = policy,
				       .allow_missing_ns = -1 };
	r = ksc_check_modules(k, &mod, 1, &opts, &rep);
	if (r < 0) {
		fprintf(stderr, "check-one: %s\n", strerror(-r));
		status = r == -EINVAL ? 2 : 4;
		goto out;
	}
	printf("%s: rules of %s, kernel exports from %s\n", ksc_module_get_path(mod),
	       ksc_report_get_policy(rep), argv[argi]);
	const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, 0);
	print_verdict(rep, v);
	status = v->loader_err ? 1 : 0;
	if (ksc_symvers_get_error_count(sv))
		status |= 4;
out:
	/* Reference-counted objects: _unref accepts NULL and returns NULL (plain values,
	 * such as an audit, have _free with the same promise: libksymcheck(3)). */
	ksc_report_unref(rep);
	ksc_kernel_unref(k);
	ksc_module_unref(mod);
	ksc_symvers_unref(sv);
	ksc_unref(ctx);
	return status;
}
