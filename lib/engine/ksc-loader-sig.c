// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The loader's signature steps (R28, R37), beside ksc-loader.c's load_module(), which calls
 * them in the kernel's order: module_sig_check() first, module_sig_taint() after
 * check_modinfo(), and the provenance warnings of an intree claim (intree_signature())
 * and of a module-restricted export granted by name (modns_signature()). ksc-sig.c
 * decides what a signature is; these say what the loader does with that.
 */
#include <errno.h>
#include <string.h>

#include "engine/engine.h"

/* ---- signatures: kernel/module/signing.c module_sig_check() (R28; ksc-sig.c decides) ---- */

/* Is the signature worth a provenance warning (unsigned, unknown key, invalid)? */
static const char *provenance_problem(const struct run *run, const struct loading *L)
{
	bool keys = !ksc_keyring_is_empty(ksc_kernel_get_keyring(run->k));

	switch (L->sig.err) {
	case 0:
		return NULL;
	case -ENODATA:
		/* without signing in the kernel and without keys, unsigned is the norm */
		return run->module_sig || keys ? "unsigned" : NULL;
	case -ENOKEY:
		return "foreign-key";
	default:
		return "bad-signature";
	}
}

static const char *provenance_words(const char *problem)
{
	if (strcmp(problem, "unsigned") == 0)
		return "unsigned";
	if (strcmp(problem, "foreign-key") == 0)
		return "signed by a key that is not among the kernel's keys";
	return "signed, but the signature is not valid";
}

/* The finding code of a provenance problem, of the three given. */
static const char *provenance_code(const char *problem, const char *unsigned_code,
				   const char *foreign_code, const char *bad_code)
{
	return strcmp(problem, "unsigned") == 0 ? unsigned_code
	       : strcmp(problem, "foreign-key") == 0 ? foreign_code : bad_code;
}

/*
 * R37 (issue 5): an intree claim is only a .modinfo string; the signature by the kernel's
 * key is what proves a module was built with the kernel. Warn when an intree module is unsigned
 * or not signed by a known key.
 */
void intree_signature(struct run *run, struct loading *L)
{
	const char *p = ksc_module_is_intree(L->mod) ? provenance_problem(run, L) : NULL;
	struct ksc_report *r = run->r;

	if (!p)
		return;
	loader_finding(run, L, KSC_SEV_WARNING,
		provenance_code(p, "intree-unsigned", "intree-foreign-key", "intree-bad-signature"),
		NULL,
		.summary = sfmt(r, "claims to be in-tree (intree in .modinfo) but is %s", provenance_words(p)),
		.explanation = sfmt(r, "anyone can write intree=Y into .modinfo; a signature by the kernel's own key is the one proof that the module was built with the kernel (%s)",
				    L->sig.why),
		.fix = "check where this module comes from; an in-tree module of this kernel is signed with its key at build time");
}

/* The same for a module granted a module-restricted export by its name (once per module). */
void modns_signature(struct run *run, struct loading *L, const char *sym, const char *owner,
		     const char *ns)
{
	const char *p = provenance_problem(run, L);
	struct ksc_report *r = run->r;

	if (!p || L->modns_sig_warned)
		return;
	L->modns_sig_warned = true;
	loader_finding(run, L, KSC_SEV_WARNING,
		provenance_code(p, "modns-unsigned", "modns-foreign-key", "modns-bad-signature"),
		sym,
		.ns = ns, .owner = owner,
		.summary = sfmt(r, "matches %s by name, but is %s", modns_list(ns), provenance_words(p)),
		.explanation = sfmt(r, "%s is restricted to modules named %s and this module gets it by its name alone; its signature does not show that it is one of the kernel's own modules (%s)",
				    sym, modns_list(ns), L->sig.why),
		.fix = "check where this module comes from: the kernel's own modules are signed with its key");
}

/* A signature the kernel refuses even when it does not enforce signatures. */
static int sig_refused(struct run *run, struct loading *L)
{
	const struct ksc_sig_eval *ev = &L->sig;
	bool rejected = ev->err == -EKEYREJECTED;

	loader_finding(run, L, KSC_SEV_ERROR, rejected ? "sig-rejected" : "sig-malformed", NULL,
		.summary = rejected ? "the signature does not verify (refused even without enforcement)"
				    : "malformed signature (refused even without enforcement)",
		.lines = ev->kernel_line,
		.explanation = sfmt(run->r, "%s; the kernel refuses a module whose signature fails for any reason other than a missing signature, an unknown key or unsupported crypto, even when signatures are not enforced",
				    ev->why),
		.fix = rejected ? "sign the module again after editing it (scripts/sign-file), or strip the signature to load it unsigned"
				: "sign the module again with scripts/sign-file",
		.err = ev->err);
	return loader_fail(L, ev->err);
}

/*
 * module_sig_check(): before anything else. -ENODATA (unsigned), -ENOPKG (unsupported
 * crypto) and -ENOKEY (unknown key) let the load go on, tainted E later, unless signatures
 * are enforced; every other error fails the load. Returns 0 or the load's -errno.
 */
int module_sig_check(struct run *run, struct loading *L)
{
	struct ksc_report *r = run->r;
	struct ksc_sig_eval *ev = &L->sig;
	const char *reason, *code;

	if (run->o->as_rebuilt) {
		L->sig_ok = true; /* signed (or not) as its builder signs it: not judged */
		return 0;
	}
	ksc_sig_judge(L->mod, ksc_kernel_get_keyring(run->k), ev); /* ev->key unused */
	L->sig_ok = ev->err == 0;
	if (!run->module_sig)
		return 0; /* CONFIG_MODULE_SIG off: the loader never looks */
	switch (ev->err) {
	case 0:
		if (!ev->verified)
			loader_finding(run, L, KSC_SEV_INFO, "sig-unverified", NULL,
				.summary = "signature not verified (no key known): assumed valid",
				.explanation = sfmt(r, "%s; without the kernel's certificate a well-formed signature is taken as valid, as if the module were unchanged since signing",
						    ev->why),
				.fix = "give the kernel's signing certificate with --cert FILE, or --kernel ROOT with the kernel image that holds its built-in keys");
		return 0;
	case -ENODATA:
		reason = "unsigned module";
		code = "unsigned";
		break;
	case -ENOPKG:
		reason = "module with unsupported crypto";
		code = "sig-unsupported";
		break;
	case -ENOKEY:
		reason = "module with unavailable key";
		code = "sig-unknown-key";
		break;
	default:
		return sig_refused(run, L);
	}
	if (run->sig_force) {
		loader_finding(run, L, KSC_SEV_ERROR, code, NULL,
			.summary = ev->err == -ENODATA ? "unsigned module on a kernel that enforces signatures"
				   : sfmt(r, "%s on a kernel that enforces signatures", reason),
			.lines = ev->kernel_line
				 ? sfmt(r, "%s\nLoading of %s is rejected", ev->kernel_line, reason)
				 : sfmt(r, "Loading of %s is rejected", reason),
			.explanation = ev->err != -ENODATA ? ev->why : NULL,
			.fix = "sign the module with the kernel's key (scripts/sign-file)",
			.err = -EKEYREJECTED);
		return loader_fail(L, -EKEYREJECTED);
	}
	if (ev->kernel_line)
		taint_line(run, L, code, sfmt(r, "%s: treated as unsigned", reason),
			   ev->kernel_line, ev->why);
	return 0;
}

/* The signature taint (E) of a module that does not verify on a kernel that allows it. */
void module_sig_taint(struct run *run, struct loading *L)
{
	struct ksc_report *r = run->r;
	int err = L->sig.err;

	if (!run->module_sig || L->sig_ok)
		return;
	const char *line = run->boot.once_sig ? NULL
		: sfmt(r, "%s: module verification failed: signature and/or required key missing - tainting kernel",
		       L->name);
	run->boot.once_sig = true;
	run->boot.taint_E = true;
	taint_line(run, L, "taint-unsigned",
		   err == -ENODATA ? "unsigned module (taint E)"
		   : err == -ENOKEY ? "signed by a key the kernel does not have (taint E)"
		   : "signature with unsupported crypto (taint E)", line,
		   err == -ENODATA
		   ? "the kernel verifies module signatures but does not enforce them"
		   : sfmt(r, "%s; the kernel verifies module signatures but does not enforce them, so it loads the module as if unsigned",
			  L->sig.why));
}
