// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The policy engine against fifty-six worked cases, T01-T56, one cmocka test per case, named
 * by its id; the rules they exercise are those of doc/rules.md. Each case builds a real
 * module image in memory (tests/unit/mkmod.h), reads it back through the reader, and
 * checks both views: the loader's errno and the lines dmesg shows (in order), and
 * modpost's exact lines; and that every finding has the rule and one of the severities
 * the catalogue gives its code.
 */
#include "unit.h"
#include "mkmod.h"

#include <errno.h>

#define MAXL 6

enum vec_kind {
	V_PLAIN = 0,
	V_TWO_SYMS,      /* imports a (the export) then b (exported by no one) */
	V_TWO_SYMS_REV,  /* b then a */
	V_WEAK,          /* the import is a weak reference */
	V_PROVIDER_GPL,  /* foo is exported GPL-only by module "prov", not vmlinux; weak ref */
	V_CRC_MISMATCH,  /* modversions on; the module's __versions CRC differs */
	V_PROP_PROVIDER, /* T46: g GPL-only in vmlinux, bar by proprietary module p; g then bar */
	V_PROP_PROVIDER_REV, /* bar then g */
	V_EXPORTS_NO_FLAGS,  /* the module exports something, without __kflagstab */
	V_NO_IMPORT,     /* the module uses no symbol */
};

struct vec {
	const char *id;
	const char *policy;        /* NULL: 6.16 */
	bool gpl;                  /* foo is EXPORT_SYMBOL_GPL-like (FM is GPL-only) */
	const char *ns;            /* foo's namespace, "" for none */
	const char *name;          /* struct module name (loader) */
	const char *file;          /* file basename without .ko (modpost) */
	const char *intree;        /* "Y", "N" (present, any value counts) or NULL (absent) */
	const char *licenses[3];
	const char *import_ns[3];
	enum vec_kind kind;
	bool allow_missing_ns;
	bool require_intree;
	bool skip_loader;          /* T18: cannot be built, the loader never sees it */
	int loader_err;
	const char *loader_lines[MAXL];  /* must appear in this order */
	const char *loader_absent;       /* must not appear in any loader line */
	const char *loader_code;         /* a loader finding with this code must exist */
	bool modpost_ok;
	const char *modpost_lines[MAXL]; /* exactly these, in order */
	enum ksc_build build;            /* R40: how modpost sees it built (0: auto) */
	const char *modpost_codes[2];    /* modpost findings with these codes must exist */
};

#define GPL_ONLY .licenses = { "GPL" }
#define A55 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static const struct vec vectors[] = {
	{ "T01", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm", .intree = "Y",
	  GPL_ONLY, .modpost_ok = true },
	{ "T02", .gpl = true, .ns = "module:kvm", .name = "kvm_amd", .file = "kvm-amd",
	  .intree = "Y", GPL_ONLY, .loader_err = -EINVAL,
	  .loader_lines = { "kvm_amd: module uses symbol (foo) from namespace module:kvm, but does not import it.",
			    "kvm_amd: Unknown symbol foo (err -22)" },
	  .loader_code = "modns-denied",
	  .modpost_lines = { "ERROR: modpost: module kvm-amd uses symbol foo from namespace module:kvm, but does not import it." } },
	{ "T03", .gpl = true, .ns = "module:kvm,kvm-*", .name = "kvm_amd", .file = "kvm-amd",
	  .intree = "Y", GPL_ONLY, .modpost_ok = true },
	{ "T04", .gpl = true, .ns = "module:kvm,kvm_*", .name = "kvm_amd", .file = "kvm-amd",
	  .intree = "Y", GPL_ONLY,
	  .modpost_lines = { "ERROR: modpost: module kvm-amd uses symbol foo from namespace module:kvm,kvm_*, but does not import it." } },
	{ "T05", .gpl = true, .ns = "module:kvm-amd", .name = "kvm_amd", .file = "kvm-amd",
	  .intree = "Y", GPL_ONLY, .modpost_ok = true },
	{ "T06", .gpl = true, .ns = "module:kvm_amd", .name = "kvm_amd", .file = "kvm-amd",
	  .intree = "Y", GPL_ONLY,
	  .modpost_lines = { "ERROR: modpost: module kvm-amd uses symbol foo from namespace module:kvm_amd, but does not import it." } },
	{ "T07", .gpl = true, .ns = "module:kvm-*", .name = "kvm", .file = "kvm", .intree = "Y",
	  GPL_ONLY, .loader_err = -EINVAL,
	  .loader_lines = { "kvm: module uses symbol (foo) from namespace module:kvm-*, but does not import it." },
	  .modpost_lines = { "ERROR: modpost: module kvm uses symbol foo from namespace module:kvm-*, but does not import it." } },
	{ "T08", .gpl = true, .ns = "module:kvm*", .name = "kvmgt", .file = "kvmgt", .intree = "Y",
	  GPL_ONLY, .modpost_ok = true },
	{ "T09", .gpl = true, .ns = "module:*", .name = "anything", .file = "anything",
	  .intree = "Y", GPL_ONLY, .modpost_ok = true },
	{ "T10", .gpl = true, .ns = "module:", .name = "kvm", .file = "kvm", .intree = "Y",
	  GPL_ONLY, .loader_err = -EINVAL,
	  .loader_lines = { "kvm: module uses symbol (foo) from namespace module:, but does not import it." },
	  .modpost_lines = { "ERROR: modpost: module kvm uses symbol foo from namespace module:, but does not import it." } },
	{ "T11", .gpl = true, .ns = "module:kvm,", .name = "kvm", .file = "kvm", .intree = "Y",
	  GPL_ONLY, .modpost_ok = true },
	{ "T12", .gpl = true, .ns = "module:,,kvm", .name = "kvm", .file = "kvm", .intree = "Y",
	  GPL_ONLY, .modpost_ok = true },
	{ "T13", .gpl = true, .ns = "module:k*m", .name = "kvm", .file = "kvm", .intree = "Y",
	  GPL_ONLY, .loader_err = -EINVAL,
	  .modpost_lines = { "ERROR: modpost: module kvm uses symbol foo from namespace module:k*m, but does not import it." } },
	{ "T14", .gpl = true, .ns = "module:kvm, vfio", .name = "vfio", .file = "vfio",
	  .intree = "Y", GPL_ONLY, .loader_err = -EINVAL,
	  .modpost_lines = { "ERROR: modpost: module vfio uses symbol foo from namespace module:kvm, vfio, but does not import it." } },
	{ "T15", .gpl = true, .ns = "module:KVM", .name = "kvm", .file = "kvm", .intree = "Y",
	  GPL_ONLY, .loader_err = -EINVAL,
	  .modpost_lines = { "ERROR: modpost: module kvm uses symbol foo from namespace module:KVM, but does not import it." } },
	{ "T16", .gpl = true, .ns = "module:kvm*", .name = "kv", .file = "kv", .intree = "Y",
	  GPL_ONLY, .loader_err = -EINVAL,
	  .modpost_lines = { "ERROR: modpost: module kv uses symbol foo from namespace module:kvm*, but does not import it." } },
	{ "T17", .gpl = true, .ns = "module:" A55, .name = A55, .file = A55, .intree = "Y",
	  GPL_ONLY, .modpost_ok = true },
	{ "T18", .gpl = true, .ns = "module:" A55, .name = A55, .file = A55 "a", .intree = "Y",
	  GPL_ONLY, .skip_loader = true,
	  .modpost_lines = { "ERROR: modpost: module name is too long [" A55 "a.ko]",
			     "ERROR: modpost: module " A55 "a uses symbol foo from namespace module:" A55 ", but does not import it." } },
	{ "T19", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm", .intree = "Y",
	  GPL_ONLY, .import_ns = { "module:kvm" }, .loader_err = -EPERM,
	  .loader_lines = { "kvm: module tries to import module namespace: module:kvm" },
	  .loader_absent = "Unknown symbol",
	  .modpost_lines = { "ERROR: modpost: kvm: explicitly importing namespace \"module:kvm\" is not allowed." } },
	{ "T20", .gpl = true, .ns = "module:kvm", .name = "vfio", .file = "vfio", .intree = "Y",
	  GPL_ONLY, .import_ns = { "module:kvm" }, .loader_err = -EPERM,
	  .loader_lines = { "vfio: module tries to import module namespace: module:kvm" },
	  .modpost_lines = { "ERROR: modpost: vfio: explicitly importing namespace \"module:kvm\" is not allowed." } },
	{ "T21", .gpl = false, .ns = "", .name = "m", .file = "m", .intree = "Y", GPL_ONLY,
	  .import_ns = { "module:other" }, .kind = V_NO_IMPORT, .loader_err = -EPERM,
	  .loader_lines = { "m: module tries to import module namespace: module:other" },
	  .modpost_lines = { "ERROR: modpost: m: explicitly importing namespace \"module:other\" is not allowed." } },
	{ "T22", .gpl = true, .ns = "module:kvm", .name = "vfio", .file = "vfio", .intree = "Y",
	  GPL_ONLY, .allow_missing_ns = true,
	  .loader_lines = { "vfio: module uses symbol (foo) from namespace module:kvm, but does not import it." },
	  .loader_absent = "Unknown symbol", .modpost_ok = true,
	  .modpost_lines = { "WARNING: modpost: module vfio uses symbol foo from namespace module:kvm, but does not import it." } },
	{ "T23", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm", .intree = NULL,
	  GPL_ONLY, .loader_lines = { "kvm: loading out-of-tree module taints kernel." },
	  .loader_absent = "namespace", .loader_code = "modns-impostor", .modpost_ok = true },
	{ "T24", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm", .intree = NULL,
	  GPL_ONLY, .require_intree = true, .loader_err = -EINVAL,
	  .loader_lines = { "kvm: module uses symbol (foo) from namespace module:kvm, but does not import it.",
			    "kvm: Unknown symbol foo (err -22)" },
	  .modpost_lines = { "ERROR: modpost: module kvm uses symbol foo from namespace module:kvm, but does not import it." } },
	{ "T25", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm", .intree = "N",
	  GPL_ONLY, .require_intree = true, .loader_absent = "namespace", .modpost_ok = true },
	{ "T26", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm", .intree = NULL,
	  .licenses = { "Proprietary" }, .loader_err = -ENOENT,
	  .loader_lines = { "kvm: module license 'Proprietary' taints kernel.",
			    "kvm: Unknown symbol foo (err -2)" },
	  .loader_absent = "namespace",
	  .modpost_lines = { "ERROR: modpost: GPL-incompatible module kvm.ko uses GPL-only symbol 'foo'" } },
	{ "T27", .gpl = false, .ns = "module:kvm", .name = "kvm", .file = "kvm", .intree = "Y",
	  .licenses = { "Proprietary" },
	  .loader_lines = { "kvm: module license 'Proprietary' taints kernel." },
	  .loader_absent = "Unknown symbol", .modpost_ok = true },
	{ "T28", .policy = "6.12.37", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm",
	  .intree = "Y", GPL_ONLY, .loader_err = -EINVAL,
	  .loader_lines = { "kvm: module uses symbol (foo) from namespace module:kvm, but does not import it." },
	  .modpost_lines = { "ERROR: modpost: module kvm uses symbol foo from namespace module:kvm, but does not import it." } },
	{ "T29", .policy = "6.6.100", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm",
	  .intree = "Y", GPL_ONLY, .import_ns = { "module:kvm" }, .modpost_ok = true },
	{ "T30", .gpl = true, .ns = "", .name = "m", .file = "m", .intree = "Y",
	  .licenses = { "Dual BSD/GPL" }, .modpost_ok = true },
	{ "T31", .gpl = true, .ns = "", .name = "m", .file = "m", .intree = "Y",
	  .licenses = { "GPLv2" }, .loader_err = -ENOENT,
	  .loader_lines = { "m: module license 'GPLv2' taints kernel.", "m: Unknown symbol foo (err -2)" },
	  .modpost_lines = { "ERROR: modpost: GPL-incompatible module m.ko uses GPL-only symbol 'foo'" } },
	{ "T32", .gpl = false, .ns = "", .name = "m", .file = "m", .intree = "Y",
	  .licenses = { "Proprietary" },
	  .loader_lines = { "m: module license 'Proprietary' taints kernel." }, .modpost_ok = true },
	{ "T33", .gpl = true, .ns = "", .name = "m", .file = "m", .intree = "Y", .licenses = { NULL },
	  .loader_err = -ENOENT,
	  .loader_lines = { "m: module license 'unspecified' taints kernel.", "m: Unknown symbol foo (err -2)" },
	  .modpost_lines = { "ERROR: modpost: missing MODULE_LICENSE() in m.o" } },
	{ "T34", .gpl = true, .ns = "", .name = "m", .file = "m", .intree = "Y",
	  .licenses = { "GPL", "Proprietary" }, .loader_absent = "taints",
	  .modpost_lines = { "ERROR: modpost: GPL-incompatible module m.ko uses GPL-only symbol 'foo'" } },
	{ "T35", .gpl = true, .ns = "", .name = "lve", .file = "lve", .intree = "Y", GPL_ONLY,
	  .loader_err = -ENOENT,
	  .loader_lines = { "lve: module license taints kernel.", "lve: Unknown symbol foo (err -2)" },
	  .modpost_ok = true },
	{ "T36", .gpl = true, .ns = "USB_STORAGE", .name = "uas", .file = "uas", .intree = "Y",
	  GPL_ONLY, .import_ns = { "USB_STORAGE" }, .modpost_ok = true },
	{ "T37", .gpl = true, .ns = "USB_STORAGE", .name = "uas", .file = "uas", .intree = "Y",
	  GPL_ONLY, .import_ns = { "usb_storage" }, .loader_err = -EINVAL,
	  .loader_lines = { "uas: module uses symbol (foo) from namespace USB_STORAGE, but does not import it." },
	  .loader_code = "ns-missing",
	  .modpost_lines = { "ERROR: modpost: module uas uses symbol foo from namespace USB_STORAGE, but does not import it." } },
	{ "T38", .gpl = false, .ns = "module", .name = "m", .file = "m", .intree = "Y", GPL_ONLY,
	  .import_ns = { "module" }, .modpost_ok = true },
	{ "T39", .gpl = false, .ns = "Module:kvm", .name = "m", .file = "m", .intree = "Y",
	  GPL_ONLY, .import_ns = { "Module:kvm" }, .modpost_ok = true },
	{ "T40", .gpl = true, .ns = "module:kvm", .name = "vfio", .file = "vfio", .intree = "Y",
	  GPL_ONLY, .kind = V_TWO_SYMS, .loader_err = -ENOENT,
	  .loader_lines = { "vfio: module uses symbol (a) from namespace module:kvm, but does not import it.",
			    "vfio: Unknown symbol a (err -22)", "vfio: Unknown symbol b (err -2)" },
	  .modpost_lines = { "ERROR: modpost: module vfio uses symbol a from namespace module:kvm, but does not import it.",
			     "ERROR: modpost: \"b\" [vfio.ko] undefined!" } },
	{ "T41", .gpl = true, .ns = "module:kvm", .name = "vfio", .file = "vfio", .intree = "Y",
	  GPL_ONLY, .kind = V_TWO_SYMS_REV, .loader_err = -EINVAL,
	  .loader_lines = { "vfio: Unknown symbol b (err -2)",
			    "vfio: module uses symbol (a) from namespace module:kvm, but does not import it.",
			    "vfio: Unknown symbol a (err -22)" },
	  .modpost_lines = { "ERROR: modpost: \"b\" [vfio.ko] undefined!",
			     "ERROR: modpost: module vfio uses symbol a from namespace module:kvm, but does not import it." } },
	{ "T42", .gpl = true, .ns = "module:kvm", .name = "vfio", .file = "vfio", .intree = "Y",
	  GPL_ONLY, .kind = V_WEAK, .loader_err = -EINVAL,
	  .loader_lines = { "vfio: Unknown symbol foo (err -22)" },
	  .modpost_lines = { "ERROR: modpost: module vfio uses symbol foo from namespace module:kvm, but does not import it." } },
	{ "T43", .gpl = true, .ns = "", .name = "m", .file = "m", .intree = "Y",
	  .licenses = { "Proprietary" }, .kind = V_PROVIDER_GPL, .loader_absent = "Unknown symbol",
	  .modpost_lines = { "ERROR: modpost: GPL-incompatible module m.ko uses GPL-only symbol 'foo'" } },
	{ "T44", .gpl = true, .ns = "module:kvm", .name = "kvm_amd", .file = "kvm-amd",
	  .intree = "Y", GPL_ONLY, .kind = V_CRC_MISMATCH, .loader_err = -EINVAL,
	  .loader_lines = { "kvm_amd: disagrees about version of symbol foo",
			    "kvm_amd: Unknown symbol foo (err -22)" },
	  .loader_absent = "namespace", .loader_code = "crc-mismatch",
	  .modpost_lines = { "ERROR: modpost: module kvm-amd uses symbol foo from namespace module:kvm, but does not import it." } },
	{ "T45", .gpl = true, .ns = "module:kvm", .name = "vfio", .file = "vfio", .intree = "Y",
	  .licenses = { "Proprietary" }, .loader_err = -ENOENT,
	  .loader_lines = { "vfio: Unknown symbol foo (err -2)" }, .loader_absent = "namespace",
	  .modpost_lines = { "ERROR: modpost: module vfio uses symbol foo from namespace module:kvm, but does not import it.",
			     "ERROR: modpost: GPL-incompatible module vfio.ko uses GPL-only symbol 'foo'" } },
	{ "T46", .gpl = true, .ns = "", .name = "m", .file = "m", .intree = "Y", GPL_ONLY,
	  .kind = V_PROP_PROVIDER, .loader_err = -ENOENT,
	  .loader_lines = { "m: module using GPL-only symbols uses symbols bar from proprietary module p.",
			    "m: Unknown symbol bar (err -2)" },
	  .loader_code = "proprietary-provider", .modpost_ok = true },
	{ "T46-reversed", .gpl = true, .ns = "", .name = "m", .file = "m", .intree = "Y", GPL_ONLY,
	  .kind = V_PROP_PROVIDER_REV, .loader_err = -ENOENT,
	  .loader_lines = { "m: module uses symbols bar from proprietary module p, inheriting taint.",
			    "m: Unknown symbol g (err -2)" },
	  .modpost_ok = true },
	{ "T47", .policy = "7.1", .gpl = false, .ns = "", .name = "m", .file = "m", .intree = "Y",
	  GPL_ONLY, .kind = V_EXPORTS_NO_FLAGS, .loader_err = -ENOEXEC,
	  .loader_lines = { "m: no flags for exported symbols" }, .modpost_ok = true },
	{ "T48", .gpl = true, .ns = "X", .name = "m", .file = "m", .intree = "Y", GPL_ONLY,
	  .import_ns = { "Y" }, .loader_err = -EINVAL,
	  .loader_lines = { "m: module uses symbol (foo) from namespace X, but does not import it." },
	  .modpost_lines = { "ERROR: modpost: module m uses symbol foo from namespace X, but does not import it." } },
	/* T49/T50 are about depmod (the tree command); here: what the loader and modpost say. */
	{ "T49", .gpl = false, .ns = "", .name = "m", .file = "m", .intree = "Y", GPL_ONLY,
	  .kind = V_TWO_SYMS, .loader_err = -ENOENT,
	  .loader_lines = { "m: Unknown symbol b (err -2)" },
	  .modpost_lines = { "ERROR: modpost: \"b\" [m.ko] undefined!" } },
	{ "T50", .gpl = true, .ns = "module:kvm", .name = "vfio", .file = "vfio", .intree = "Y",
	  GPL_ONLY, .loader_err = -EINVAL,
	  .loader_lines = { "vfio: module uses symbol (foo) from namespace module:kvm, but does not import it.",
			    "vfio: Unknown symbol foo (err -22)" },
	  .modpost_lines = { "ERROR: modpost: module vfio uses symbol foo from namespace module:kvm, but does not import it." } },
	/* R40: the in-tree-only rule as the patched kernel applies it (tests/real/intree.sh) */
	{ "T51", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm", .intree = "Y",
	  GPL_ONLY, .require_intree = true, .build = KSC_BUILD_EXTERNAL,
	  .loader_absent = "namespace",
	  .modpost_lines = { "ERROR: modpost: module kvm uses symbol foo from namespace module:kvm, but does not import it." },
	  .modpost_codes = { "modns-not-intree", "modns-views-differ" } },
	{ "T52", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm", .intree = "N",
	  GPL_ONLY, .require_intree = true, .build = KSC_BUILD_EXTERNAL, .allow_missing_ns = true,
	  .loader_absent = "namespace", .modpost_ok = true,
	  .modpost_lines = { "WARNING: modpost: module kvm uses symbol foo from namespace module:kvm, but does not import it." },
	  .modpost_codes = { "modns-not-intree" } },
	{ "T53", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm", .intree = NULL,
	  GPL_ONLY, .require_intree = true, .build = KSC_BUILD_INTREE, .loader_err = -EINVAL,
	  .loader_lines = { "kvm: module uses symbol (foo) from namespace module:kvm, but does not import it.",
			    "kvm: Unknown symbol foo (err -22)" },
	  .loader_code = "modns-not-intree", .modpost_ok = true,
	  .modpost_codes = { "modns-views-differ" } },
	{ "T54", .gpl = true, .ns = "module:kvm_amd", .name = "kvm_amd", .file = "kvm-amd",
	  .intree = "Y", GPL_ONLY, .require_intree = true, .build = KSC_BUILD_EXTERNAL,
	  .loader_absent = "namespace",
	  .modpost_lines = { "ERROR: modpost: module kvm-amd uses symbol foo from namespace module:kvm_amd, but does not import it." },
	  .modpost_codes = { "modns-not-intree", "modns-views-differ" } },
	{ "T55", .gpl = true, .ns = "module:kvm", .name = "kvm", .file = "kvm", .intree = "Y",
	  GPL_ONLY, .require_intree = true, .build = KSC_BUILD_INTREE, .modpost_ok = true },
	{ "T56", .gpl = true, .ns = "module:kvm", .name = "vfio", .file = "vfio", .intree = "Y",
	  GPL_ONLY, .require_intree = true, .build = KSC_BUILD_EXTERNAL, .loader_err = -EINVAL,
	  .loader_lines = { "vfio: module uses symbol (foo) from namespace module:kvm, but does not import it." },
	  .loader_code = "modns-denied",
	  .modpost_lines = { "ERROR: modpost: module vfio uses symbol foo from namespace module:kvm, but does not import it." },
	  .modpost_codes = { "modns-denied" } },
};

static struct ksc_module *build(struct ksc_ctx *ctx, const struct mkmod *mm, const char *file)
{
	size_t size;
	unsigned char *img = mkmod_build(mm, &size);
	struct ksc_module *mod;
	char path[128];

	snprintf(path, sizeof(path), "%s.ko", file);
	int r = ksc_module_new_from_memory(ctx, path, img, size, &mod);
	free(img);
	if (r < 0)
		fail_msg("%s: the generated module does not read back: %s", path, strerror(-r));
	return mod;
}

static void add_modinfo(struct mkmod *mm, int *n, char *buf, size_t size, const char *key,
			const char *value)
{
	snprintf(buf, size, "%s=%s", key, value);
	mm->modinfo[(*n)++] = buf;
}

/* cmocka passes initial_state through *state: the vector; a ctx is made here. */
static void run_vector(void **state)
{
	const struct vec *v = *state;
	struct ksc_ctx *ctx = ksc_new();
	struct ksc_kernel *k;
	struct ksc_symvers *sv;
	char text[1024], mi[12][128];
	int nmi = 0;

	ksc_set_log_fn(ctx, NULL, NULL);
	assert_int_equal(ksc_kernel_new(ctx, &k), 0);

	/* The kernel: vmlinux exports foo (and g for T46). */
	bool crc = v->kind == V_CRC_MISMATCH;
	snprintf(text, sizeof(text), "0x%08x\tfoo\tvmlinux\t%s\t%s\n"
		 "0x%08x\tg\tvmlinux\tEXPORT_SYMBOL_GPL\t\n",
		 crc ? 0x1234abcdU : 0, v->gpl ? "EXPORT_SYMBOL_GPL" : "EXPORT_SYMBOL", v->ns,
		 crc ? 0x0badf00dU : 0);
	assert_int_equal(ksc_symvers_new_from_memory(ctx, "Module.symvers", text, strlen(text), &sv), 0);
	assert_int_equal(ksc_kernel_add_symvers(k, sv), 0);
	ksc_symvers_unref(sv);
	ksc_kernel_set_config(k, KSC_CONFIG_MODVERSIONS, crc);
	ksc_kernel_set_config(k, KSC_CONFIG_MODULE_SIG, false);
	ksc_kernel_set_config(k, KSC_CONFIG_MODULE_FORCE_LOAD, false);
	ksc_kernel_set_config(k, KSC_CONFIG_ALLOW_MISSING_NS, false);

	/* Providers that are modules of the tree. */
	if (v->kind == V_PROVIDER_GPL || v->kind == V_PROP_PROVIDER ||
	    v->kind == V_PROP_PROVIDER_REV) {
		struct mkmod p = { .this_module = v->kind == V_PROVIDER_GPL ? "prov" : "p",
				   .modinfo = { v->kind == V_PROVIDER_GPL ? "license=GPL"
									  : "license=Proprietary",
						"intree=Y", "vermagic=6.16.0 SMP mod_unload " } };
		p.exports[0] = v->kind == V_PROVIDER_GPL
			? (struct mk_export){ "foo", "", true, 0 }
			: (struct mk_export){ "bar", "", false, 0 };
		struct ksc_module *pm = build(ctx, &p, p.this_module);
		assert_int_equal(ksc_kernel_add_module(k, pm), 0);
		ksc_module_unref(pm);
	}

	/* The module under test. */
	struct mkmod m = { .this_module = v->name };
	for (int i = 0; i < 3 && v->licenses[i]; i++)
		add_modinfo(&m, &nmi, mi[nmi], sizeof(mi[0]), "license", v->licenses[i]);
	for (int i = 0; i < 3 && v->import_ns[i]; i++)
		add_modinfo(&m, &nmi, mi[nmi], sizeof(mi[0]), "import_ns", v->import_ns[i]);
	if (v->intree)
		add_modinfo(&m, &nmi, mi[nmi], sizeof(mi[0]), "intree", v->intree);
	add_modinfo(&m, &nmi, mi[nmi], sizeof(mi[0]), "name", v->name);
	/* with a description: modpost's 6.15+ warning (R41) is not what these cases test */
	add_modinfo(&m, &nmi, mi[nmi], sizeof(mi[0]), "description", "a worked case");
	add_modinfo(&m, &nmi, mi[nmi], sizeof(mi[0]), "vermagic", "6.16.0 SMP mod_unload ");

	switch (v->kind) {
	case V_TWO_SYMS:
	case V_TWO_SYMS_REV: {
		/* a is the export under test: rename foo to a in the kernel. */
		snprintf(text, sizeof(text), "0x00000000\ta\tvmlinux\t%s\t%s\n",
			 v->gpl ? "EXPORT_SYMBOL_GPL" : "EXPORT_SYMBOL", v->ns);
		assert_int_equal(ksc_symvers_new_from_memory(ctx, "Module.symvers", text,
							     strlen(text), &sv), 0);
		assert_int_equal(ksc_kernel_add_symvers(k, sv), 0);
		ksc_symvers_unref(sv);
		bool rev = v->kind == V_TWO_SYMS_REV;
		m.imports[0] = (struct mk_import){ rev ? "b" : "a", false };
		m.imports[1] = (struct mk_import){ rev ? "a" : "b", false };
		break;
	}
	case V_WEAK:
	case V_PROVIDER_GPL:
		m.imports[0] = (struct mk_import){ "foo", true };
		break;
	case V_CRC_MISMATCH:
		m.imports[0] = (struct mk_import){ "foo", false };
		m.versions[0] = (struct mk_version){ "foo", 0x99999999U };
		break;
	case V_PROP_PROVIDER:
		m.imports[0] = (struct mk_import){ "g", false };
		m.imports[1] = (struct mk_import){ "bar", false };
		break;
	case V_PROP_PROVIDER_REV:
		m.imports[0] = (struct mk_import){ "bar", false };
		m.imports[1] = (struct mk_import){ "g", false };
		break;
	case V_EXPORTS_NO_FLAGS:
		m.exports[0] = (struct mk_export){ "m_export", "", false, 0 };
		break;
	case V_NO_IMPORT:
		break;
	default:
		m.imports[0] = (struct mk_import){ "foo", false };
	}
	struct ksc_module *mod = build(ctx, &m, v->file);

	struct ksc_check_opts o = {
		.sz = sizeof(o),
		.policy = v->policy ? v->policy : "6.16",
		.require_intree = v->require_intree,
		.allow_missing_ns = v->allow_missing_ns,
		.build = v->build,
	};
	struct ksc_report *rep;
	assert_int_equal(ksc_check_modules(k, &mod, 1, &o, &rep), 0);
	const struct ksc_module_verdict *vd = ksc_report_get_verdict(rep, 0);

	/* Loader and modpost lines as printed. */
	char loader[4096] = "", modpost[4096] = "";
	bool code_seen = false;
	unsigned int mp_seen = 0;
	for (size_t i = vd->first_diag; i < vd->first_diag + vd->n_diags; i++) {
		const struct ksc_diag *d = ksc_report_get_diag(rep, i);
		if (d->view == KSC_VIEW_LOADER && v->loader_code && strcmp(d->code, v->loader_code) == 0)
			code_seen = true;
		for (int j = 0; j < 2 && d->view == KSC_VIEW_MODPOST; j++)
			if (v->modpost_codes[j] && strcmp(d->code, v->modpost_codes[j]) == 0)
				mp_seen |= 1u << j;
		const struct ksc_code *c = ksc_code_lookup(d->code, d->view);
		if (!c || !d->rule || strcmp(d->rule, c->rule) != 0 ||
		    !(c->severities & (1u << d->severity)))
			fail_msg("%s: finding %s (rule %s, severity %d) is not in the catalogue as such",
				 v->id, d->code, d->rule ? d->rule : "none", (int)d->severity);
		if (!d->kernel_lines)
			continue;
		char *dst = d->view == KSC_VIEW_LOADER ? loader : modpost;
		size_t len = strlen(dst);
		snprintf(dst + len, 4096 - len, "%s\n", d->kernel_lines);
	}

	if (!v->skip_loader) {
		if (vd->loader_err != v->loader_err)
			fail_msg("%s: loader returns %d (%s), expected %d (%s); it printed:\n%s", v->id,
				 vd->loader_err, ksc_errno_name(vd->loader_err), v->loader_err,
				 ksc_errno_name(v->loader_err), loader);
		const char *at = loader;
		for (int i = 0; i < MAXL && v->loader_lines[i]; i++) {
			char want[600];
			snprintf(want, sizeof(want), "%s\n", v->loader_lines[i]);
			const char *hit = strstr(at, want);
			if (!hit || (hit != loader && hit[-1] != '\n'))
				fail_msg("%s: loader line missing or out of order: %s\nit printed:\n%s",
					 v->id, v->loader_lines[i], loader);
			at = hit + strlen(want);
		}
		if (v->loader_absent && strstr(loader, v->loader_absent))
			fail_msg("%s: loader printed '%s' where the kernel does not:\n%s", v->id,
				 v->loader_absent, loader);
		if (v->loader_code && !code_seen)
			fail_msg("%s: no loader finding with code %s", v->id, v->loader_code);
	}

	char want[4096] = "";
	for (int i = 0; i < MAXL && v->modpost_lines[i]; i++) {
		size_t len = strlen(want);
		snprintf(want + len, sizeof(want) - len, "%s\n", v->modpost_lines[i]);
	}
	if (strcmp(want, modpost) != 0)
		fail_msg("%s: modpost printed:\n%s\nexpected:\n%s", v->id, modpost, want);
	assert_int_equal(vd->modpost_ok, v->modpost_ok);
	for (int j = 0; j < 2; j++)
		if (v->modpost_codes[j] && !(mp_seen & 1u << j))
			fail_msg("%s: no modpost finding with code %s", v->id, v->modpost_codes[j]);

	ksc_report_unref(rep);
	ksc_module_unref(mod);
	ksc_kernel_unref(k);
	ksc_unref(ctx);
}

/* ---- the rules on their own ---- */

static void test_patterns(void **state)
{
	static const struct {
		const char *ns, *name;
		bool loader, modpost;
	} cases[] = {
		{ "module:kvm", "kvm", true, true },
		{ "module:kvm,kvm-*", "kvm-amd", true, true },
		{ "module:kvm,kvm-*", "kvm_amd", true, false },
		{ "module:kvm_amd", "kvm-amd", true, false },
		{ "module:*", "x", true, true },
		{ "module:**", "*x", true, true },
		{ "module:**", "x", false, false },
		{ "module:", "kvm", false, false },
		{ "module:,", "kvm", false, false },
		{ "module:k*m", "k*m", true, true },
		{ "module: vfio", "vfio", false, false },
		{ "Module:kvm", "kvm", false, false },
		{ "module:kvm", "kvm2", false, false },
		{ "module:kvm*", "kvm", true, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (ksc_namespace_matches_module(cases[i].ns, cases[i].name, KSC_MATCH_LOADER) !=
		    cases[i].loader)
			fail_msg("loader: %s vs %s", cases[i].ns, cases[i].name);
		if (ksc_namespace_matches_module(cases[i].ns, cases[i].name, KSC_MATCH_MODPOST) !=
		    cases[i].modpost)
			fail_msg("modpost: %s vs %s", cases[i].ns, cases[i].name);
	}
}

static void test_licenses(void **state)
{
	static const char *const ok[] = { "GPL", "GPL v2", "GPL and additional rights",
					  "Dual BSD/GPL", "Dual MIT/GPL", "Dual MPL/GPL" };
	static const char *const bad[] = { "Proprietary", "GPLv2", "GPL-2.0", "Dual BSD/GPL ",
					   "gpl", "MIT", "", "unspecified" };

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_true(ksc_license_is_gpl_compatible(ok[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(ksc_license_is_gpl_compatible(bad[i]));
	assert_false(ksc_license_is_gpl_compatible(NULL));
}

static void test_kver(void **state)
{
	struct ksc_kver v;

	(void)state;
	assert_int_equal(ksc_kver_parse("6.1.0-57-amd64", &v), 0);
	assert_int_equal(v.major, 6);
	assert_int_equal(v.minor, 1);
	assert_int_equal(v.patch, 0);
	assert_int_equal(ksc_kver_parse("6.12.37", &v), 0);
	assert_int_equal(v.patch, 37);
	assert_true(ksc_kver_cmp(&v, 6, 16, 0) < 0);
	assert_int_equal(ksc_kver_parse("7.1", &v), 0);
	assert_int_equal(ksc_kver_cmp(&v, 7, 1, 0), 0);
	assert_int_equal(ksc_kver_parse("7", &v), -EINVAL);
	assert_int_equal(ksc_kver_parse("abc", &v), -EINVAL);
}


/* ---- beyond the doc's vectors: modversions, vermagic, duplicates, signatures ---- */

struct env2 {
	struct ksc_ctx *ctx;
	struct ksc_kernel *k;
};

/* A kernel exporting foo (CRC 0x1111) and module_layout (CRC 0x2222), modversions on. */
static struct env2 kernel2(const char *extra_config)
{
	struct env2 e = { ksc_new(), NULL };
	struct ksc_symvers *sv;
	const char *text = "0x00001111\tfoo\tvmlinux\tEXPORT_SYMBOL\t\n"
			   "0x00002222\tmodule_layout\tvmlinux\tEXPORT_SYMBOL\t\n";

	ksc_set_log_fn(e.ctx, NULL, NULL);
	assert_int_equal(ksc_kernel_new(e.ctx, &e.k), 0);
	assert_int_equal(ksc_symvers_new_from_memory(e.ctx, "S", text, strlen(text), &sv), 0);
	assert_int_equal(ksc_kernel_add_symvers(e.k, sv), 0);
	ksc_symvers_unref(sv);
	for (int i = 0; i < KSC_CONFIG_COUNT; i++)
		ksc_kernel_set_config(e.k, (enum ksc_kconfig)i, false);
	ksc_kernel_set_config(e.k, KSC_CONFIG_MODVERSIONS, true);
	if (extra_config && strcmp(extra_config, "force") == 0)
		ksc_kernel_set_config(e.k, KSC_CONFIG_MODULE_FORCE_LOAD, true);
	if (extra_config && strcmp(extra_config, "sigforce") == 0) {
		ksc_kernel_set_config(e.k, KSC_CONFIG_MODULE_SIG, true);
		ksc_kernel_set_config(e.k, KSC_CONFIG_MODULE_SIG_FORCE, true);
	}
	assert_int_equal(ksc_kernel_set_vermagic(e.k, "6.16.0 SMP mod_unload modversions "), 0);
	return e;
}

/* Check one module; returns the loader errno and fills `lines` with its loader lines. */
static int check2(struct env2 *e, const struct mkmod *m, const char *policy, char *lines,
		  size_t size, const char **codes)
{
	struct ksc_module *mod = build(e->ctx, m, "m");
	struct ksc_check_opts o = { .sz = sizeof(o), .policy = policy, .allow_missing_ns = -1,
				    .views = KSC_VIEW_LOADER };
	struct ksc_report *rep;
	assert_int_equal(ksc_check_modules(e->k, &mod, 1, &o, &rep), 0);
	const struct ksc_module_verdict *v = ksc_report_get_verdict(rep, 0);
	lines[0] = '\0';
	static char codebuf[512];
	codebuf[0] = '\0';
	for (size_t i = 0; i < ksc_report_get_diag_count(rep); i++) {
		const struct ksc_diag *d = ksc_report_get_diag(rep, i);
		size_t l = strlen(codebuf);
		snprintf(codebuf + l, sizeof(codebuf) - l, "%s ", d->code);
		if (!d->kernel_lines)
			continue;
		l = strlen(lines);
		snprintf(lines + l, size - l, "%s\n", d->kernel_lines);
	}
	if (codes)
		*codes = codebuf;
	/* a reference taken keeps the report after the creator's is dropped */
	assert_ptr_equal(ksc_report_ref(rep), rep);
	assert_null(ksc_report_unref(rep));
	int err = v->loader_err;
	assert_null(ksc_report_unref(rep));
	assert_null(ksc_report_unref(NULL));
	assert_null(ksc_report_ref(NULL));
	ksc_module_unref(mod);
	return err;
}

static void free2(struct env2 *e)
{
	ksc_kernel_unref(e->k);
	ksc_unref(e->ctx);
}

#define BASE_MODINFO "license=GPL", "intree=Y", "name=m", "vermagic=6.16.0 SMP mod_unload modversions "

static void test_modversions(void **state)
{
	struct env2 e = kernel2(NULL);
	char out[2048];
	const char *codes;
	(void)state;

	/* equal CRCs */
	struct mkmod m = { .this_module = "m", .modinfo = { BASE_MODINFO },
			   .imports = { { "foo", false } },
			   .versions = { { "module_layout", 0x2222 }, { "foo", 0x1111 } } };
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), NULL), 0);
	assert_string_equal(out, "");

	/* symbol CRC differs: R21, -EINVAL through R20 */
	m.versions[1].crc = 0x1112;
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), NULL), -EINVAL);
	assert_string_equal(out, "m: disagrees about version of symbol foo\nm: Unknown symbol foo (err -22)\n");

	/* module_layout differs: the whole load fails with -ENOEXEC before any symbol */
	m.versions[1].crc = 0x1111;
	m.versions[0].crc = 0x2223;
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), &codes), -ENOEXEC);
	assert_string_equal(out, "m: disagrees about version of symbol module_layout\n");
	assert_non_null(strstr(codes, "layout-mismatch"));

	/* not listed: warned once per boot, then let go */
	m.versions[0].crc = 0x2222;
	m.versions[1] = (struct mk_version){ NULL, 0 };
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), NULL), 0);
	assert_string_equal(out, "m: no symbol version for foo\n");
	/* ... but Debian's kernels refuse it, every time */
	ksc_kernel_set_quirks(e.k, KSC_QUIRK_DEBIAN_MISSING_CRC);
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), NULL), -EINVAL);
	assert_string_equal(out, "m: no symbol version for foo\nm: Unknown symbol foo (err -22)\n");
	ksc_kernel_set_quirks(e.k, 0);

	/* no __versions at all, without CONFIG_MODULE_FORCE_LOAD: refused */
	m.no_versions = true;
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), &codes), -ENOEXEC);
	assert_non_null(strstr(codes, "no-versions"));
	free2(&e);

	/* ... with it: tainted F once, and it loads */
	e = kernel2("force");
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), NULL), 0);
	assert_string_equal(out, "m: module_layout: kernel tainted.\nDisabling lock debugging due to kernel taint\n");
	free2(&e);
}

static void test_ext_modversions(void **state)
{
	struct env2 e = kernel2(NULL);
	(void)state;

	/*
	 * 6.14+: with extended tables the loader looks only there. mkmod writes no extended
	 * tables; the assembler fixture fx-user-ext has both kinds.
	 */
	char path[1024];
	const char *f = getenv("FIXTURES");
	snprintf(path, sizeof(path), "%s/x86_64/fx-user-ext.ko", f && *f ? f : "build/fixtures");
	struct ksc_module *mod;
	if (ksc_module_new_from_path(e.ctx, path, &mod) < 0) {
		free2(&e);
		skip();
	}
	assert_true(ksc_module_has_ext_versions(mod));
	assert_true(ksc_module_get_ext_version_count(mod) > 0);
	/* export every ext-listed name with its CRC + 1 (mismatch) and check 6.14 vs 6.13 */
	const struct ksc_version *v = ksc_module_get_ext_version(mod, 0);
	const struct ksc_import *im = ksc_module_find_import(mod, v->name);
	assert_non_null(im);
	char text[512];
	snprintf(text, sizeof(text), "0x%08x\t%s\tvmlinux\tEXPORT_SYMBOL\t\n",
		 (unsigned)v->crc + 1, v->name);
	struct ksc_symvers *sv;
	struct ksc_kernel *k;
	assert_int_equal(ksc_kernel_new(e.ctx, &k), 0);
	assert_int_equal(ksc_symvers_new_from_memory(e.ctx, "S", text, strlen(text), &sv), 0);
	assert_int_equal(ksc_kernel_add_symvers(k, sv), 0);
	ksc_symvers_unref(sv);
	for (int i = 0; i < KSC_CONFIG_COUNT; i++)
		ksc_kernel_set_config(k, (enum ksc_kconfig)i, false);
	ksc_kernel_set_config(k, KSC_CONFIG_MODVERSIONS, true);
	struct ksc_check_opts o = { .sz = sizeof(o), .policy = "6.14", .allow_missing_ns = -1,
				    .views = KSC_VIEW_LOADER };
	struct ksc_report *rep;
	assert_int_equal(ksc_check_modules(k, &mod, 1, &o, &rep), 0);
	bool mismatch = false;
	for (size_t i = 0; i < ksc_report_get_diag_count(rep); i++)
		if (strcmp(ksc_report_get_diag(rep, i)->code, "crc-mismatch") == 0 &&
		    strcmp(ksc_report_get_diag(rep, i)->symbol, v->name) == 0)
			mismatch = true;
	assert_true(mismatch);
	ksc_report_unref(rep);
	ksc_kernel_unref(k);
	ksc_module_unref(mod);
	free2(&e);
}

static void test_vermagic_and_dups(void **state)
{
	struct env2 e = kernel2(NULL);
	char out[2048];
	const char *codes;
	(void)state;

	struct mkmod m = { .this_module = "m",
			   .modinfo = { "license=GPL", "intree=Y", "name=m",
					"vermagic=6.16.0 SMP preempt mod_unload modversions " },
			   .versions = { { "module_layout", 0x2222 } } };
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), NULL), -ENOEXEC);
	assert_string_equal(out, "m: version magic '6.16.0 SMP preempt mod_unload modversions ' should be '6.16.0 SMP mod_unload modversions '\n");

	/* with __versions the release (first word) is not compared */
	m.modinfo[3] = "vermagic=6.16.9-other SMP mod_unload modversions ";
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), NULL), 0);

	/* exporting what vmlinux exports */
	m.modinfo[3] = "vermagic=6.16.0 SMP mod_unload modversions ";
	m.exports[0] = (struct mk_export){ "foo", "", false, 0x1111 };
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), &codes), -ENOEXEC);
	assert_string_equal(out, "m: exports duplicate symbol foo (owned by kernel)\n");

	/* exports without CRCs on a modversions kernel, no forced loads */
	m.exports[0] = (struct mk_export){ "m_own", "", false, 0 };
	m.no_crcs = true;
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), &codes), -ENOEXEC);
	assert_non_null(strstr(codes, "exports-no-crc"));

	/* 7.1 with __kflagstab: fine; its GPL flag is read */
	m.no_crcs = false;
	m.kflagstab = true;
	assert_int_equal(check2(&e, &m, "7.1", out, sizeof(out), NULL), 0);
	free2(&e);

	/* signature enforcement */
	e = kernel2("sigforce");
	m.kflagstab = false;
	assert_int_equal(check2(&e, &m, "6.16", out, sizeof(out), NULL), -EKEYREJECTED);
	assert_string_equal(out, "Loading of unsigned module is rejected\n");
	free2(&e);
}

/* check_modinfo_retpoline(): both lines for the first module of a boot only. */
static void test_retpoline(void **state)
{
	struct env2 e = kernel2(NULL);
	struct mkmod m = { .this_module = "m", .modinfo = { BASE_MODINFO },
			   .versions = { { "module_layout", 0x2222 } } };
	struct mkmod m2 = m;
	m2.this_module = "m2";
	m2.modinfo[2] = "name=m2";
	struct ksc_module *mods[2] = { build(e.ctx, &m, "m"), build(e.ctx, &m2, "m2") };
	struct ksc_report *rep;
	(void)state;

	ksc_kernel_set_config(e.k, KSC_CONFIG_RETPOLINE, true);
	struct ksc_check_opts o = { .sz = sizeof(o), .policy = "6.1", .allow_missing_ns = -1,
				    .views = KSC_VIEW_LOADER };
	assert_int_equal(ksc_check_modules(e.k, mods, 2, &o, &rep), 0);
	char out[1024] = "";
	for (size_t i = 0; i < ksc_report_get_diag_count(rep); i++) {
		const struct ksc_diag *d = ksc_report_get_diag(rep, i);
		if (d->kernel_lines)
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s\n", d->kernel_lines);
	}
	assert_string_equal(out, "Spectre V2 : System may be vulnerable to spectre v2\n"
				 "m: loading module not compiled with retpoline compiler.\n");
	assert_int_equal(ksc_report_get_verdict(rep, 1)->loader_err, 0);
	ksc_report_unref(rep);
	ksc_module_unref(mods[0]);
	ksc_module_unref(mods[1]);
	free2(&e);
}

static void test_policy_required(void **state)
{
	struct env2 e = kernel2(NULL);
	struct mkmod m = { .this_module = "m", .modinfo = { BASE_MODINFO } };
	struct ksc_module *mod = build(e.ctx, &m, "m");
	struct ksc_report *rep;
	(void)state;

	/* no release and no policy: nothing to take the rules from */
	assert_int_equal(ksc_check_modules(e.k, &mod, 1, NULL, &rep), -EINVAL);
	struct ksc_check_opts o = { .sz = sizeof(o), .policy = "not-a-version" };
	assert_int_equal(ksc_check_modules(e.k, &mod, 1, &o, &rep), -EINVAL);
	assert_int_equal(ksc_kernel_set_release(e.k, "6.17.3-arch1"), 0);
	assert_int_equal(ksc_check_modules(e.k, &mod, 1, NULL, &rep), 0);
	assert_string_equal(ksc_report_get_policy(rep), "6.17");
	ksc_report_unref(rep);
	ksc_module_unref(mod);
	free2(&e);
}

int main(void)
{
	size_t n = sizeof(vectors) / sizeof(vectors[0]);
	struct CMUnitTest *tests = calloc(n + 8, sizeof(*tests));

	for (size_t i = 0; i < n; i++)
		tests[i] = (struct CMUnitTest){ vectors[i].id, run_vector, NULL, NULL,
						(void *)&vectors[i] };
	tests[n] = (struct CMUnitTest)cmocka_unit_test(test_patterns);
	tests[n + 1] = (struct CMUnitTest)cmocka_unit_test(test_licenses);
	tests[n + 2] = (struct CMUnitTest)cmocka_unit_test(test_kver);
	tests[n + 3] = (struct CMUnitTest)cmocka_unit_test(test_modversions);
	tests[n + 4] = (struct CMUnitTest)cmocka_unit_test(test_ext_modversions);
	tests[n + 5] = (struct CMUnitTest)cmocka_unit_test(test_vermagic_and_dups);
	tests[n + 6] = (struct CMUnitTest)cmocka_unit_test(test_policy_required);
	tests[n + 7] = (struct CMUnitTest)cmocka_unit_test(test_retpoline);
	int failed = _cmocka_run_group_tests("worked cases T01-T56", tests, n + 8, NULL,
					     NULL);
	free(tests);
	return failed ? 1 : 0;
}
