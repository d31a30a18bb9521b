// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The catalogue: every rule id and finding code the library cites, with what the rule is,
 * where the kernel decides it, for which versions, an example and the fix. doc/rules.md
 * says the same at length; tests/cli/explain.sh fails when the two, or the codes the
 * sources emit, disagree.
 */
#include <string.h>

#include "kernel/kernel.h"

#define LOADER KSC_VIEW_LOADER
#define MODPOST KSC_VIEW_MODPOST
#define BOTH KSC_VIEW_BOTH
#define AUDIT KSC_CODE_AUDIT
#define SEV_I (1u << KSC_SEV_INFO)
#define SEV_W (1u << KSC_SEV_WARNING)
#define SEV_E (1u << KSC_SEV_ERROR)

/* In the order of their numbers: ksc_rule_lookup() indexes it by number. */
static const struct ksc_rule rules[] = {
	{ "R1", "What an export macro records",
	  "Every export records two strings per symbol: a license (\"GPL\" for the _GPL "
	  "variants, empty otherwise) and a namespace (empty for none). EXPORT_SYMBOL and "
	  "EXPORT_SYMBOL_GPL take DEFAULT_SYMBOL_NAMESPACE when the file defines it; the _NS "
	  "variants take their own argument and ignore the default. "
	  "EXPORT_SYMBOL_GPL_FOR_MODULES (6.16) and EXPORT_SYMBOL_FOR_MODULES (6.17+) are GPL-only "
	  "and store \"module:\" followed by a list of module names; EXPORT_SYMBOL_FOR_KVM (6.19+) "
	  "is one of those for the KVM modules of the architecture.",
	  "EXPORT_SYMBOL*(), EXPORT_SYMBOL_NS*(), EXPORT_SYMBOL_[GPL_]FOR_MODULES(), "
	  "EXPORT_SYMBOL_FOR_KVM[_INTERNAL]()",
	  "include/linux/export.h, include/linux/kvm_types.h",
	  "namespaces 5.4+; FOR_MODULES 6.16+ (GPL_FOR_MODULES in 6.16, FOR_MODULES from 6.17); "
	  "FOR_KVM 6.19+",
	  "EXPORT_SYMBOL_NS_GPL(usb_stor_probe1, \"USB_STORAGE\") records license \"GPL\" and "
	  "namespace USB_STORAGE",
	  NULL },
	{ "R2", "How a namespace is spelled in C",
	  "From 5.4 to 6.12 a namespace argument is a bare identifier that the macros turn into "
	  "a string; from 6.13 it is a string literal, in MODULE_IMPORT_NS() and "
	  "DEFAULT_SYMBOL_NAMESPACE too. The bytes stored in the module are the same either way.",
	  "MODULE_IMPORT_NS(), EXPORT_SYMBOL_NS(), DEFAULT_SYMBOL_NAMESPACE",
	  "include/linux/export.h, include/linux/module.h",
	  "identifier 5.4-6.12; string literal 6.13+",
	  "MODULE_IMPORT_NS(DMA_BUF); on 6.12 is MODULE_IMPORT_NS(\"DMA_BUF\"); on 6.13; both "
	  "store import_ns=DMA_BUF",
	  NULL },
	{ "R3", "How a built kernel marks GPL-only exports",
	  "Up to 7.0 an export is GPL-only when its entry is in the __ksymtab_gpl section (its "
	  "CRC in __kcrctab_gpl). From 7.1 all entries are in __ksymtab and a parallel "
	  "__kflagstab holds one byte per entry whose bit 0 means GPL-only.",
	  "find_symbol(), find_exported_symbol_in_section()",
	  "include/linux/export-internal.h, kernel/module/main.c",
	  "__ksymtab_gpl up to 7.0; __kflagstab 7.1+",
	  "a 7.1 module exporting foo with EXPORT_SYMBOL_GPL has __kflagstab byte 0x01 for foo "
	  "and no __ksymtab_gpl",
	  NULL },
	{ "R4", "The loader knows a module by its struct module name",
	  "The name the loader matches, prints and keeps unique is the one kbuild compiled into "
	  "the module's .gnu.linkonce.this_module section: KBUILD_MODNAME, the file's basename "
	  "with '-' and ',' turned into '_'. It is shorter than MODULE_NAME_LEN (56 bytes on "
	  "64-bit, 60 on 32-bit). Early messages (vermagic, modversions) use .modinfo name= "
	  "instead when it is there.",
	  "load_module(), setup_load_info()",
	  "kernel/module/main.c, scripts/Makefile.lib",
	  "all",
	  "kvm-amd.ko is kvm_amd to the loader",
	  NULL },
	{ "R5", "modpost knows a module by its file name",
	  "modpost names a module by its object path without extension, and matches and "
	  "prints its basename as it is: hyphens stay. A basename of MODULE_NAME_LEN bytes or "
	  "more is an error, since the loader could not hold the name.",
	  "new_module(), read_symbols(), get_basename()",
	  "scripts/mod/modpost.c",
	  "all",
	  "kvm-amd.ko is kvm-amd to modpost; a 56-byte basename on 64-bit gives "
	  "'module name is too long [p.ko]'",
	  "use a module file name shorter than MODULE_NAME_LEN (56 bytes on 64-bit, 60 on 32-bit)" },
	{ "R6", "kmod knows a module by its normalized name",
	  "kmod (modprobe, depmod, modinfo) takes the basename up to its first '.', and turns "
	  "every '-' into '_'. All its lookups and index files use that form.",
	  "path_to_modname(), modname_normalize()",
	  "kmod: shared/util.c",
	  "all kmod versions",
	  "kvm-amd.ko.zst is kvm_amd in modules.dep lookups and modules.symbols",
	  NULL },
	{ "R7", "A namespace that starts with module: is module-restricted",
	  "From 6.16 a namespace whose first seven bytes are exactly \"module:\" limits an "
	  "export to the modules named after the colon instead of to importers. Any other "
	  "spelling (Module:, module without a colon) is an ordinary namespace. 6.6.y and "
	  "6.12.y stable kernels got the FOR_MODULES macro but not the loader and modpost "
	  "support: there module:kvm is an ordinary namespace that must be imported.",
	  "verify_module_namespace()",
	  "kernel/module/main.c, scripts/mod/modpost.c",
	  "6.16+ (ordinary namespace before, also on 6.6.y and 6.12.y with the backported macro)",
	  "EXPORT_SYMBOL_FOR_MODULES(anon_inode_make_secure_inode, \"kvm\") stores namespace "
	  "module:kvm",
	  NULL },
	{ "R8", "How a module: pattern list is read",
	  "The text after module: is split at every comma; nothing is trimmed and case counts. "
	  "An item ending in '*' matches every name that starts with the rest of the item; a "
	  "'*' anywhere else is an ordinary character. Any other item must equal the whole "
	  "name. Empty items match nothing, so stray commas are harmless and \"module:\" alone "
	  "matches no module. One matching item is enough.",
	  "verify_module_namespace()",
	  "kernel/module/main.c, scripts/mod/modpost.c",
	  "6.16+",
	  "module:kvm,kvm-* matches kvm and kvm-amd; module:kvm, vfio does not match vfio "
	  "(the item is ' vfio')",
	  NULL },
	{ "R9", "Loader and modpost compare module names differently",
	  "The loader compares a pattern with the struct module name treating '-' and '_' as "
	  "the same character; modpost compares it byte for byte with the file's basename. A "
	  "pattern spelled with '_' for a file named with '-' therefore passes at load time "
	  "but fails the build.",
	  "mod_strncmp() (loader), strncmp() in verify_module_namespace() (modpost)",
	  "kernel/module/main.c, scripts/mod/modpost.c",
	  "6.16+",
	  "module:kvm_amd and kvm-amd.ko: the loader grants it, modpost reports a missing import",
	  NULL },
	{ "R10", "A module-restricted export is only for the modules it names",
	  "When a symbol's namespace is module-restricted (R7) and the module's name matches "
	  "the pattern list (R8, R9), the namespace check passes without an import. Otherwise "
	  "the check falls through to the ordinary import rule (R12), which the module cannot "
	  "meet because importing a module: namespace is forbidden (R11). The message is the "
	  "ordinary missing-import one, with the module: namespace in it.",
	  "verify_namespace_is_imported() (loader), check_exports() (modpost)",
	  "kernel/module/main.c, scripts/mod/modpost.c",
	  "6.16+",
	  "vfio using anon_inode_make_secure_inode (module:kvm): 'vfio: module uses symbol "
	  "(anon_inode_make_secure_inode) from namespace module:kvm, but does not import it.', "
	  "then 'Unknown symbol ... (err -22)'",
	  "none in the module: the export is meant for the modules it names; ask its "
	  "maintainers for a general export, or use another interface" },
	{ "R11", "A module: namespace can never be imported",
	  "From 6.16 the loader refuses, with -EPERM, any module whose .modinfo imports a "
	  "namespace starting with module:, whether or not it uses such a symbol; modpost "
	  "refuses to build it. CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS does not relax "
	  "this. `make nsdeps` can add such an import by itself; it must be removed.",
	  "setup_modinfo() (loader), read_symbols() (modpost)",
	  "kernel/module/main.c, scripts/mod/modpost.c",
	  "6.16+",
	  "MODULE_IMPORT_NS(\"module:kvm\") in kvm.c: 'kvm: module tries to import module "
	  "namespace: module:kvm' and the load fails",
	  "remove the MODULE_IMPORT_NS() line of the module: namespace" },
	{ "R12", "A namespaced export needs an import",
	  "A symbol exported into a non-empty namespace can only be used by a module whose "
	  ".modinfo has an import_ns entry equal to it, byte for byte. Otherwise the loader "
	  "fails that symbol with -EINVAL and modpost fails the build; both only warn with "
	  "CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y (R13).",
	  "verify_namespace_is_imported() (loader), check_exports() (modpost)",
	  "kernel/module/main.c, scripts/mod/modpost.c",
	  "5.4+",
	  "dma_buf_get is in namespace DMA_BUF: a module without MODULE_IMPORT_NS(\"DMA_BUF\") "
	  "gets 'module uses symbol (dma_buf_get) from namespace DMA_BUF, but does not import it.'",
	  "add MODULE_IMPORT_NS() for the namespace, in the target kernel's syntax (R2); "
	  "ksymcheck nsdeps writes it" },
	{ "R13", "ALLOW_MISSING_NAMESPACE_IMPORTS turns namespace errors into warnings",
	  "With CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y the loader only warns about a "
	  "missing import and resolves the symbol; modpost runs with -N and warns too. Since a "
	  "denied module-restricted export ends in the same check (R10), such a kernel lets any "
	  "module use every module-restricted export, with a warning.",
	  "verify_namespace_is_imported()",
	  "kernel/module/main.c, kernel/module/Kconfig, scripts/Makefile.modpost",
	  "5.4+ (module-restricted exports 6.16+)",
	  "on a kernel with the option, vfio using a module:kvm export loads with the warning only",
	  "turn the option off in the kernel configuration if the restrictions are to hold" },
	{ "R14", "Which license strings are GPL-compatible",
	  "Exactly these strings, compared byte for byte: \"GPL\", \"GPL v2\", "
	  "\"GPL and additional rights\", \"Dual BSD/GPL\", \"Dual MIT/GPL\", \"Dual MPL/GPL\". "
	  "Anything else, \"GPLv2\" and \"GPL-2.0\" included, is not.",
	  "license_is_gpl_compatible()",
	  "include/linux/license.h",
	  "all",
	  "MODULE_LICENSE(\"GPL-2.0\") is not GPL-compatible; MODULE_LICENSE(\"GPL v2\") is",
	  NULL },
	{ "R15", "A license that is not GPL-compatible taints the module proprietary",
	  "The loader reads only the first license= entry of .modinfo (none reads as "
	  "\"unspecified\"). When it is not GPL-compatible (R14) the module and the kernel get "
	  "taint P, and the first such module of a boot prints the license line. Modules named "
	  "driverloader or lve are proprietary whatever they declare; ndiswrapper taints the "
	  "kernel but not itself. From 6.4 the first P taint of a boot also prints 'module "
	  "license taints kernel.'",
	  "set_license() (up to 6.3), module_license_taint_check() and "
	  "module_augment_kernel_taints() (6.4+)",
	  "kernel/module/main.c",
	  "all (the second line 6.4+)",
	  "MODULE_LICENSE(\"Proprietary\"): 'm: module license 'Proprietary' taints kernel.'",
	  "declare the module's real license; only a GPL-compatible one lets it use GPL-only "
	  "exports (R16)" },
	{ "R16", "A proprietary module cannot see GPL-only exports",
	  "While a module carries taint P (R15, or inherited by R18) the loader's symbol lookup "
	  "skips GPL-only exports, so such a symbol is simply not found: 'Unknown symbol ... "
	  "(err -2)', with no word about the GPL. A weak reference is left 0 instead.",
	  "resolve_symbol(), find_symbol()",
	  "kernel/module/main.c",
	  "all",
	  "a Proprietary module using debugfs_create_dir (EXPORT_SYMBOL_GPL): 'm: Unknown symbol "
	  "debugfs_create_dir (err -2)'",
	  "give the module a GPL-compatible MODULE_LICENSE() if that is its license, or stop "
	  "using the GPL-only symbol" },
	{ "R17", "modpost refuses GPL-only exports to GPL-incompatible modules",
	  "modpost looks at every license= entry: one that is not GPL-compatible (R14) makes the "
	  "module GPL-incompatible, and each GPL-only export it uses is an error. A module "
	  "without any license gets only the missing-license error (R36).",
	  "check_exports(), read_symbols()",
	  "scripts/mod/modpost.c",
	  "all",
	  "'ERROR: modpost: GPL-incompatible module m.ko uses GPL-only symbol 'debugfs_create_dir''",
	  "give the module a GPL-compatible MODULE_LICENSE() if that is its license, or stop "
	  "using the GPL-only symbol" },
	{ "R18", "Symbols of a proprietary module",
	  "When a symbol is found in a loaded module tainted P: if the using module has "
	  "already used a GPL-only symbol (this one included), the symbol is refused as not "
	  "found; otherwise the user inherits taint P and every later GPL-only symbol becomes "
	  "invisible to it (R16). The outcome depends on the order of the symbol table.",
	  "inherit_taint(), resolve_symbol()",
	  "kernel/module/main.c",
	  "5.13+ (approx.); the symbol name is in the messages from 5.19 (approx.)",
	  "m uses g (GPL-only, vmlinux) then bar (from proprietary p): 'm: module using GPL-only "
	  "symbols uses symbols bar from proprietary module p.'",
	  "do not mix GPL-only symbols with symbols of a proprietary module, or have that module "
	  "use a GPL-compatible license" },
	{ "R19", "The loader checks each undefined symbol in a fixed order",
	  "For every undefined symbol, in symbol-table order: look it up (vmlinux, then loaded "
	  "modules; GPL-only hidden by R16), apply R18, compare the CRC (R21), check the "
	  "namespace (R10, R12), then take a reference on the owner. The first step that fails "
	  "decides; later checks are not reported for that symbol.",
	  "simplify_symbols(), resolve_symbol_wait(), resolve_symbol()",
	  "kernel/module/main.c",
	  "all",
	  "a proprietary module using a GPL-only symbol of a namespace it does not import gets "
	  "only 'Unknown symbol' (R16 comes before R12)",
	  NULL },
	{ "R20", "How an unresolved symbol is reported",
	  "Each failing symbol that is not weak prints 'Unknown symbol NAME (err N)', N being "
	  "the failing step's error, -2 when it was not found. A weak symbol that is not found "
	  "is left 0 silently; one that fails a check still fails. All symbols are tried, and "
	  "the load returns the error of the last one that failed. Modules given together are "
	  "loaded as modprobe loads them, those whose exports a module uses first (--insmod: "
	  "in the order given); a symbol that only such a module exports is not found when that "
	  "module was refused or comes later, and is reported as that (a dependency cycle among "
	  "them is R43's).",
	  "simplify_symbols()",
	  "kernel/module/main.c",
	  "all",
	  "'m: Unknown symbol foo (err -2)' when nothing exports foo",
	  "enable the kernel option that builds the symbol's provider, or load the module that "
	  "exports it first" },
	{ "R21", "Modversions: the module's CRCs must match the kernel's",
	  "With CONFIG_MODVERSIONS each import's CRC recorded in the module (__versions, or the "
	  "6.14+ extended tables, which then take over) must equal the exporter's. A different "
	  "CRC fails the symbol ('disagrees about version of symbol'); a symbol missing from the "
	  "tables only warns once per boot (Debian's kernels refuse it). module_layout is "
	  "compared first and a difference stops the whole load. A module with no __versions at "
	  "all is a forced load: taint F with CONFIG_MODULE_FORCE_LOAD=y, refused otherwise.",
	  "check_version(), check_modstruct_version()",
	  "kernel/module/version.c",
	  "all (extended tables 6.14+)",
	  "'m: disagrees about version of symbol foo', then 'm: Unknown symbol foo (err -22)'",
	  "rebuild the module against this kernel's headers and Module.symvers" },
	{ "R22", "Two modules cannot export the same symbol",
	  "Once its symbols resolve, a module whose exports include a name already exported by "
	  "vmlinux or by a loaded module is refused with -ENOEXEC.",
	  "verify_exported_symbols()",
	  "kernel/module/main.c",
	  "all",
	  "'m: exports duplicate symbol foo (owned by kernel)'",
	  "rename the symbol or stop exporting it" },
	{ "R23", "modpost's checks of each undefined symbol",
	  "For each undefined symbol of a module (weak ones skipped when unresolved): not "
	  "exported anywhere is an error ('undefined!'; a warning with KBUILD_MODPOST_WARN=1), "
	  "at most 10 are printed and the rest counted; then the namespace (R10, R12), then the "
	  "GPL check (R17). Unlike the loader, modpost can report both a namespace and a GPL "
	  "error for one symbol.",
	  "check_exports()",
	  "scripts/mod/modpost.c",
	  "all",
	  "'ERROR: modpost: \"foo\" [p.ko] undefined!'",
	  "check the kernel configuration, or add the providing module's Module.symvers to "
	  "KBUILD_EXTRA_SYMBOLS" },
	{ "R24", "modpost's options",
	  "How kbuild runs modpost decides some verdicts: -e for external (M=) builds, which "
	  "then carry no intree; -N to only warn about missing imports (R13, make nsdeps); -w "
	  "to only warn about undefined symbols; -m and -x for modversions and the extended "
	  "tables; -i and -o to read and write Module.symvers; -d for modules.nsdeps.",
	  "main()",
	  "scripts/mod/modpost.c, scripts/Makefile.modpost",
	  "all (-x 6.14+)",
	  "make M=dir runs modpost -e -i Module.symvers, so the module gets no intree=Y",
	  NULL },
	{ "R25", "Module-restricted exports go by name alone",
	  "Every released kernel grants a module-restricted export to any module whose name "
	  "matches, in-tree or not: an out-of-tree module can take a name like kvm. A patch "
	  "(2025, not merged) would have granted it only to modules with intree in .modinfo; "
	  "ksymcheck applies that rule with --require-intree (R40 says how each half applies "
	  "it).",
	  "verify_namespace_is_imported(), verify_module_namespace()",
	  "kernel/module/main.c, scripts/mod/modpost.c",
	  "6.16+; the in-tree-only rule was proposed only",
	  "an out-of-tree module named kvm gets anon_inode_make_secure_inode (module:kvm)",
	  "check where the module comes from; the kernel's own modules are in-tree and signed "
	  "with its key" },
	{ "R26", "depmod resolves symbols without any policy",
	  "depmod (kmod) matches each module's undefined symbols with the exports of vmlinux "
	  "(System.map or Module.symvers) and of the other modules to write modules.dep and "
	  "modules.symbols. It checks no license, GPL-only marking or namespace; with -e it "
	  "reports unknown symbols, and with -E also CRCs that differ.",
	  "depmod_load_symvers(), depmod_load_system_map(), depmod_calculate_dependencies()",
	  "kmod: tools/depmod.c, libkmod/libkmod-elf.c",
	  "all kmod versions",
	  "'depmod: WARNING: /lib/modules/V/extra/m.ko needs unknown symbol foo'",
	  NULL },
	{ "R27", "make nsdeps adds the missing imports",
	  "make nsdeps runs modpost with -N -d modules.nsdeps, then edits each module's sources "
	  "with Coccinelle to add a MODULE_IMPORT_NS() per namespace it uses without importing. "
	  "From 6.16 it adds module: namespaces too, which R11 then refuses.",
	  "scripts/nsdeps, scripts/coccinelle/misc/add_namespace.cocci",
	  "scripts/nsdeps, scripts/Makefile.modpost",
	  "5.4+",
	  "modules.nsdeps line 'drivers/foo/foo.ko: DMA_BUF' gives MODULE_IMPORT_NS(\"DMA_BUF\"); "
	  "in foo.c",
	  "remove any MODULE_IMPORT_NS() of a module: namespace it added" },
	{ "R28", "Module signatures",
	  "With CONFIG_MODULE_SIG the loader checks the signature appended to the module before "
	  "anything else. A module that is unsigned, signed with a key the kernel does not have, "
	  "or signed with unsupported crypto is refused when signatures are enforced "
	  "(CONFIG_MODULE_SIG_FORCE or module.sig_enforce); otherwise it loads and taints the "
	  "kernel E, with one message per boot. A signature that fails in any other way (does "
	  "not verify, malformed) is refused even without enforcement.",
	  "module_sig_check(), mod_verify_sig()",
	  "kernel/module/signing.c, kernel/module_signing.c before 5.19",
	  "3.7+ (taint E 3.15+) (approx.)",
	  "an unsigned module on a signing kernel: 'm: module verification failed: signature "
	  "and/or required key missing - tainting kernel'",
	  "sign the module with the kernel's key (scripts/sign-file), or enroll the key you "
	  "signed it with" },
	{ "R29", "One module per name",
	  "A running kernel holds one module of each name (R4): loading a second one fails "
	  "with -EEXIST, and the kernel prints nothing.",
	  "add_unformed_module()",
	  "kernel/module/main.c",
	  "all",
	  "insmod of an out-of-tree kvm.ko while kvm is loaded: 'File exists'",
	  "unload the module of that name first, or give yours another name" },
	{ "R30", "Version magic",
	  "The vermagic string in .modinfo must equal the kernel's (release and build options "
	  "such as SMP, preempt, mod_unload, modversions); when the module has __versions the "
	  "release word is not compared. A different one is refused with -ENOEXEC; a missing "
	  "one is a forced load (taint F with CONFIG_MODULE_FORCE_LOAD=y, refused otherwise).",
	  "check_modinfo(), same_magic()",
	  "kernel/module/main.c",
	  "all",
	  "'m: version magic '6.1.0 SMP mod_unload ' should be '6.16.0 SMP preempt mod_unload "
	  "modversions ''",
	  "rebuild the module against this kernel" },
	{ "R31", "Out-of-tree modules taint the kernel",
	  "A module without intree in .modinfo (every M= build) taints the kernel O; the first "
	  "one of a boot prints the line. Nothing is refused.",
	  "check_modinfo() (up to 6.3), module_augment_kernel_taints() (6.4+)",
	  "kernel/module/main.c",
	  "3.2+ (approx.)",
	  "'m: loading out-of-tree module taints kernel.'",
	  NULL },
	{ "R32", "Modules built without retpolines",
	  "On a kernel built with retpolines (CONFIG_RETPOLINE, CONFIG_MITIGATION_RETPOLINE), a "
	  "module without retpoline=Y in .modinfo makes the kernel report that Spectre v2 may "
	  "not be mitigated (when the mitigation is on). The module loads.",
	  "check_modinfo_retpoline(), retpoline_module_ok()",
	  "kernel/module/main.c, arch/x86/kernel/cpu/bugs.c",
	  "4.15+ (approx.), x86",
	  "'m: loading module not compiled with retpoline compiler.'",
	  "build the module with kbuild, which uses the kernel's own compiler flags" },
	{ "R33", "Staging drivers taint the kernel",
	  "A module with staging=Y in .modinfo (built from drivers/staging) taints the kernel "
	  "C and says so. Nothing is refused.",
	  "check_modinfo() (up to 6.3), module_augment_kernel_taints() (6.4+)",
	  "kernel/module/main.c",
	  "all",
	  "'m: module is from the staging directory, the quality is unknown, you have been "
	  "warned.'",
	  NULL },
	{ "R34", "7.1's export flags table",
	  "From 7.1 a module that exports symbols must carry __kflagstab (R3): without it the "
	  "load fails with -ENOEXEC. The older __ksymtab_gpl and __kcrctab_gpl sections are "
	  "ignored, with a warning, and so are the exports in them.",
	  "find_module_sections()",
	  "kernel/module/main.c",
	  "7.1+",
	  "a module built by a 7.0 kbuild loaded into 7.1: 'm: no flags for exported symbols'",
	  "rebuild the module with the kbuild of the target kernel" },
	{ "R35", "Exports without CRCs on a modversions kernel",
	  "On a CONFIG_MODVERSIONS kernel, a module that exports symbols without their CRCs "
	  "(__kcrctab) is a forced load, 'no versions for exported symbols': taint F with "
	  "CONFIG_MODULE_FORCE_LOAD=y, refused with -ENOEXEC otherwise.",
	  "check_export_symbol_versions(), try_to_force_load()",
	  "kernel/module/main.c",
	  "all",
	  "'m: no versions for exported symbols: kernel tainted.' (with FORCE_LOAD)",
	  "build the module with CONFIG_MODVERSIONS, as the kernel was" },
	{ "R36", "modpost requires MODULE_LICENSE()",
	  "A module without any license= entry fails the build ('missing MODULE_LICENSE()'); "
	  "modpost then treats it as GPL-compatible for R17. The loader would read its license "
	  "as 'unspecified' (R15).",
	  "read_symbols()",
	  "scripts/mod/modpost.c",
	  "an error since 5.12 (approx.), a warning before",
	  "'ERROR: modpost: missing MODULE_LICENSE() in p.o'",
	  "add MODULE_LICENSE() with the module's real license" },
	{ "R37", "Provenance: in-tree claims and name grants need the kernel's signature",
	  "ksymcheck's own check, not the kernel's: intree=Y in .modinfo and a module name that "
	  "matches a module-restricted pattern are only strings anyone can write. A signature "
	  "by the kernel's own key is what shows that a module was built with the kernel. A "
	  "module that claims in-tree, or gets a module-restricted export by its name, and is "
	  "unsigned, signed by an unknown key, or badly signed is reported. Unsigned counts "
	  "only when the kernel signs its modules or keys were given.",
	  "module_sig_check() (the kernel's part: R28)",
	  "kernel/module/signing.c",
	  "all signing kernels (3.7+); module-restricted exports 6.16+",
	  "an unsigned kvm.ko with intree=Y next to a kernel that signs its modules",
	  "check where the module comes from: the kernel's own modules are signed with its key "
	  "at build time" },
	{ "R38", "Provenance: in-tree claims checked against a reference tree",
	  "ksymcheck's own check (audit --reference): a module with intree in .modinfo should "
	  "exist in the distribution's own build of the same kernel, built from the same "
	  "sources (srcversion). One that does not, or differs, is reported.",
	  "(none: modinfo intree= and srcversion= as modpost writes them)",
	  "scripts/mod/modpost.c",
	  "all",
	  "an intree kvm.ko whose srcversion differs from the distribution's kvm.ko",
	  "check where the module comes from; reinstall the distribution's package" },
	{ "R39", "depmod keeps one file per module name",
	  "Of several files of one module name in the module folder, depmod writes one into "
	  "modules.dep and modprobe loads only that one: a file below a search folder "
	  "(updates by default) wins over the kernel's own, an override names the winner "
	  "outright, exclude hides folders. The loser's name grants then go to the winner. "
	  "A file that replaces one below kernel/ and whose name matches a module-restricted "
	  "pattern is reported.",
	  "depmod_modules_search(), depmod_module_is_higher_priority(), cfg_load()",
	  "kmod: tools/depmod.c, depmod.d(5)",
	  "all kmod versions (usr/lib/depmod.d read from kmod 31)",
	  "an out-of-tree kvm.ko in updates/dkms/ replacing kernel/arch/x86/kvm/kvm.ko",
	  "remove the replacement, or name the kernel's file with 'override kvm * "
	  "kernel/arch/x86/kvm' in /etc/depmod.d and run depmod" },
	{ "R40", "The in-tree-only rule: the loader asks .modinfo, modpost asks the build",
	  "Under the proposed in-tree-only rule (--require-intree) the two halves grant a "
	  "module-restricted export by name on different grounds. The loader wants an intree "
	  "key in .modinfo, whatever its value (intree=N too). modpost wants an in-tree build: "
	  "for an external build (make M=, modpost -e) it refuses the export whatever .modinfo "
	  "says. ksymcheck takes a module given by path as an external build (--in-tree-build "
	  "says otherwise); in an installed tree a module is in-tree unless it is below "
	  "updates/ or extra/ or has no intree. Both halves print only the generic \"does not "
	  "import it\" line; -N (CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS, make nsdeps) "
	  "makes modpost's error a warning and the module is built.",
	  "verify_namespace_is_imported(), check_exports() (as the proposed patch changes them)",
	  "kernel/module/main.c, scripts/mod/modpost.c",
	  "proposed only (2025, not merged); the lane tests/real/intree.sh applies it to 7.2",
	  "make M=dir of a module named kvm with MODULE_INFO(intree, \"Y\"): the loader would "
	  "grant it anon_inode_make_secure_inode, modpost refuses it",
	  "build the module in the kernel tree: modpost then writes intree=Y and both halves "
	  "grant the export by name" },
	{ "R41", "modpost warns about a missing MODULE_DESCRIPTION()",
	  "A module without a description= entry in .modinfo gets a warning from modpost; the "
	  "build goes on. From 6.5 to 6.14 only a build with W=1 printed it; from 6.15 every "
	  "build does (ksymcheck models builds without W=1).",
	  "read_symbols()",
	  "scripts/mod/modpost.c",
	  "6.15+ (6.5-6.14 with W=1 only)",
	  "'WARNING: modpost: missing MODULE_DESCRIPTION() in p.o'",
	  "add MODULE_DESCRIPTION() saying what the module does" },
	{ "R42", "sysfs warns about a module parameter with execute permissions",
	  "A module_param() whose mode has bits outside 0664 (0111, 0755) gets its sysfs file "
	  "(/sys/module/NAME/parameters/PARAM) from the loader's mod_sysfs_setup(); sysfs' "
	  "create_files() WARNs, which prints a stack and taints the kernel W, drops the bits "
	  "and goes on: the load succeeds. A mode of 0 makes no file. The compiler's "
	  "VERIFY_OCTAL_PERMISSIONS() refuses other-writable modes, not execute bits.",
	  "module_param_sysfs_setup(), create_files()",
	  "kernel/params.c, fs/sysfs/group.c",
	  "all supported versions (approx.)",
	  "'Attribute debug: Invalid permissions 0111'",
	  "give the parameter a mode such as 0644 or 0444" },
	{ "R43", "A dependency cycle: modprobe loads none of its modules",
	  "modprobe loads a module's dependencies first, and the loader resolves a symbol only "
	  "from the modules already loaded. Two modules that use each other's symbols (or a "
	  "longer cycle) cannot be loaded in any order: the first one inserted misses the "
	  "other's symbols (\"Unknown symbol\", -ENOENT), and so does every module that needs "
	  "one of them. depmod refuses such a tree (\"Cycle detected: a -> b -> a\", \"Found "
	  "N modules in dependency cycles!\") and writes no modules.dep. Modules given "
	  "together to check are judged alike, on their own dependencies.",
	  "depmod_calculate_dependencies(), depmod_report_cycles(); resolve_symbol()",
	  "kmod: tools/depmod.c; kernel/module/main.c",
	  "all",
	  "a.ko uses b_fn from b.ko, and b.ko uses a_fn from a.ko: neither loads",
	  "break the cycle: move the symbols both modules need into one of them or into a "
	  "third module" },
};

/* Sorted by code (then loader before modpost), for ksc_code_lookup(). */
static const struct ksc_code codes[] = {
	{ "already-loaded", LOADER, "R29", SEV_E,
	  "a module of this name is already loaded", NULL },
	{ "crc-mismatch", LOADER, "R21", SEV_E,
	  "the module's CRC of a symbol differs from the kernel's", NULL },
	{ "crc-missing", LOADER, "R21", SEV_I | SEV_E,
	  "the module's version tables do not list a symbol it uses",
	  "rebuild the module against this kernel's Module.symvers" },
	{ "dep-cycle", LOADER | AUDIT, "R43", SEV_E,
	  "uses a module that modprobe cannot load: it is in or behind a dependency cycle",
	  "break the cycle: move the symbols both modules need into one of them or into a "
	  "third module" },
	{ "dep-order", LOADER, "R20", SEV_E,
	  "exported by a module given after it (--insmod keeps the order given)",
	  "give the exporting module first, or leave out --insmod" },
	{ "dep-refused", LOADER, "R20", SEV_E,
	  "exported by a module given with it that would be refused itself",
	  "fix the module that is refused first: see its own findings" },
	{ "description-missing", MODPOST, "R41", SEV_W,
	  "no MODULE_DESCRIPTION()", NULL },
	{ "duplicate-export", LOADER, "R22", SEV_E,
	  "exports a symbol that vmlinux or a loaded module already exports", NULL },
	{ "exports-no-crc", LOADER, "R35", SEV_W | SEV_E,
	  "exports without CRCs on a modversions kernel", NULL },
	{ "gpl-only", LOADER, "R16", SEV_I | SEV_E,
	  "a GPL-only export is invisible to a proprietary module", NULL },
	{ "gpl-only", MODPOST, "R17", SEV_E,
	  "a GPL-incompatible module uses a GPL-only export", NULL },
	{ "intree-bad-signature", LOADER | AUDIT, "R37", SEV_W | SEV_E,
	  "claims to be in-tree, but its signature is not valid", NULL },
	{ "intree-foreign-key", LOADER | AUDIT, "R37", SEV_W,
	  "claims to be in-tree, but is signed by a key the kernel does not have", NULL },
	{ "intree-not-in-reference", AUDIT, "R38", SEV_W,
	  "claims to be in-tree, but the reference tree has no module of its name", NULL },
	{ "intree-unsigned", LOADER | AUDIT, "R37", SEV_W,
	  "claims to be in-tree, but is unsigned", NULL },
	{ "kflagstab-missing", LOADER, "R34", SEV_E,
	  "exports symbols without __kflagstab (7.1+)", NULL },
	{ "layout-mismatch", LOADER, "R21", SEV_E,
	  "built against another kernel: the module_layout CRC differs", NULL },
	{ "license-missing", MODPOST, "R36", SEV_E,
	  "no MODULE_LICENSE()", NULL },
	{ "modns-allow-missing-ns", AUDIT, "R13", SEV_W,
	  "the kernel lets any module use module-restricted exports, with a warning", NULL },
	{ "modns-bad-signature", LOADER | AUDIT, "R37", SEV_W | SEV_E,
	  "granted a module-restricted export by its name, but its signature is not valid",
	  NULL },
	{ "modns-dead-item", AUDIT, "R8", SEV_I,
	  "an item of a module: pattern list matches no module of the tree", NULL },
	{ "modns-dead-restriction", AUDIT, "R8", SEV_I,
	  "no module of the tree matches any item: nothing can use the export", NULL },
	{ "modns-defeated", AUDIT, "R13", SEV_W,
	  "uses a module-restricted export it is not granted, and would load with a warning",
	  NULL },
	{ "modns-denied", BOTH, "R10", SEV_W | SEV_E,
	  "uses a module-restricted export its name does not match", NULL },
	{ "modns-empty-list", AUDIT, "R8", SEV_W,
	  "a module: namespace with an empty pattern list: no module can use the export",
	  "name the modules meant after module:" },
	{ "modns-foreign-key", LOADER | AUDIT, "R37", SEV_W,
	  "granted a module-restricted export by its name, but signed by an unknown key", NULL },
	{ "modns-import", BOTH, "R11", SEV_E,
	  "imports a module: namespace", NULL },
	{ "modns-impostor", LOADER | AUDIT, "R25", SEV_W,
	  "an out-of-tree module granted a module-restricted export by its name alone", NULL },
	{ "modns-modpost-mismatch", AUDIT, "R9", SEV_W,
	  "an item of a module: pattern list matches other modules for modpost than for the "
	  "loader",
	  "spell the item as the module's file is named ('-' or '_')" },
	{ "modns-not-intree", BOTH, "R40", SEV_W | SEV_E,
	  "under the in-tree-only rule: the name matches, but the loader finds no intree in "
	  ".modinfo, or modpost builds an external module", NULL },
	{ "modns-replaced", AUDIT, "R39", SEV_W,
	  "replaces a module below kernel/ for the loader, and its name is granted a "
	  "module-restricted export", NULL },
	{ "modns-unmatchable-item", AUDIT, "R8", SEV_W,
	  "an item of a module: pattern list that no module name can match as written",
	  "put '*' only at the end of an item, and no spaces around the commas" },
	{ "modns-unsigned", LOADER | AUDIT, "R37", SEV_W,
	  "granted a module-restricted export by its name, but unsigned", NULL },
	{ "modns-views-differ", BOTH, "R40", SEV_I,
	  "under the in-tree-only rule one half would grant a module-restricted export by "
	  "name and the other would not", NULL },
	{ "name-too-long", MODPOST, "R5", SEV_E,
	  "the module's file name is too long for the loader", NULL },
	{ "no-versions", LOADER, "R21", SEV_W | SEV_E,
	  "the module has no __versions section on a modversions kernel", NULL },
	{ "ns-import-unused", AUDIT, "R12", SEV_I,
	  "imports a namespace but uses nothing from it",
	  "remove the stale MODULE_IMPORT_NS() line" },
	{ "ns-missing", BOTH, "R12", SEV_W | SEV_E,
	  "uses a symbol of a namespace it does not import", NULL },
	{ "obsolete-section", LOADER, "R34", SEV_W,
	  "has __ksymtab_gpl or __kcrctab_gpl, which 7.1 ignores", NULL },
	{ "param-perm", LOADER, "R42", SEV_W,
	  "a module parameter's mode has execute bits: sysfs WARNs (taint W)", NULL },
	{ "proprietary-provider", LOADER, "R18", SEV_E,
	  "a module that uses GPL-only symbols uses a proprietary module's symbol", NULL },
	{ "retpoline", LOADER, "R32", SEV_I | SEV_W,
	  "not built with retpolines on a kernel that uses them", NULL },
	{ "sig-malformed", LOADER, "R28", SEV_E,
	  "a malformed signature: refused even without enforcement",
	  "sign the module again with scripts/sign-file" },
	{ "sig-rejected", LOADER, "R28", SEV_E,
	  "the signature does not verify: refused even without enforcement",
	  "sign the module again after changing it, or strip the signature" },
	{ "sig-unknown-key", LOADER, "R28", SEV_I | SEV_E,
	  "signed with a key the kernel does not have", NULL },
	{ "sig-unsupported", LOADER, "R28", SEV_I | SEV_E,
	  "signed with crypto the kernel does not support", NULL },
	{ "sig-unverified", LOADER, "R28", SEV_I,
	  "the signature could not be verified (no key given): assumed valid",
	  "give the kernel's signing certificate (--cert) or its image (--kernel)" },
	{ "srcversion-differs", AUDIT, "R38", SEV_W,
	  "claims to be in-tree, but was built from other sources than the reference module",
	  NULL },
	{ "taint-inherited", LOADER, "R18", SEV_W,
	  "inherits the proprietary taint of a module whose symbol it uses", NULL },
	{ "taint-oot", LOADER, "R31", SEV_I,
	  "an out-of-tree module: taints the kernel O", NULL },
	{ "taint-proprietary", LOADER, "R15", SEV_I,
	  "not GPL-compatible (or named so): taints the module and the kernel P", NULL },
	{ "taint-staging", LOADER, "R33", SEV_I,
	  "a staging driver: taints the kernel C", NULL },
	{ "taint-unsigned", LOADER, "R28", SEV_I,
	  "loaded without a valid signature: taints the kernel E", NULL },
	{ "unresolved", LOADER, "R20", SEV_E,
	  "no one exports this symbol", NULL },
	{ "unresolved", MODPOST, "R23", SEV_W | SEV_E,
	  "no one exports this symbol", NULL },
	{ "unsigned", LOADER, "R28", SEV_I | SEV_E,
	  "an unsigned module on a kernel that checks signatures", NULL },
	{ "vermagic", LOADER, "R30", SEV_W | SEV_E,
	  "built for another kernel, or without vermagic", NULL },
	{ "weak-unresolved", LOADER, "R20", SEV_I,
	  "a weak reference no one exports: left 0", NULL },
};

KSC_EXPORT size_t ksc_rule_get_count(void)
{
	return ARRAY_SIZE(rules);
}

KSC_EXPORT const struct ksc_rule *ksc_rule_get(size_t i)
{
	return i < ARRAY_SIZE(rules) ? &rules[i] : NULL;
}

KSC_EXPORT const struct ksc_rule *ksc_rule_lookup(const char *id)
{
	if (!id || (id[0] != 'R' && id[0] != 'r'))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++)
		if (strcmp(rules[i].id + 1, id + 1) == 0)
			return &rules[i];
	return NULL;
}

KSC_EXPORT size_t ksc_code_get_count(void)
{
	return ARRAY_SIZE(codes);
}

KSC_EXPORT const struct ksc_code *ksc_code_get(size_t i)
{
	return i < ARRAY_SIZE(codes) ? &codes[i] : NULL;
}

KSC_EXPORT const struct ksc_code *ksc_code_lookup(const char *code, unsigned int sources)
{
	size_t lo = 0, hi = ARRAY_SIZE(codes);

	if (!code)
		return NULL;
	/* the first entry not below `code`, then its run of entries */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(codes[mid].code, code) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ARRAY_SIZE(codes) && strcmp(codes[lo].code, code) == 0; lo++)
		if (!sources || (codes[lo].sources & sources))
			return &codes[lo];
	return NULL;
}
