#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Apply the in-tree-only rule for module-restricted exports to a kernel source tree, as the
# proposed patch "module: Restrict module namespace access to in-tree modules" (Vlastimil
# Babka, 2025-07-08, never merged) describes it. This is not a copy of that patch: it
# edits the two functions the patch changes, by pattern, and refuses when a pattern does
# not match exactly once (another kernel version: look at the functions again).
#
#   loader  kernel/module/main.c, verify_namespace_is_imported(): a `module:` namespace
#           is granted by the module's name only when its .modinfo has an `intree` key
#           (any value: get_modinfo() finds the key).
#   modpost scripts/mod/modpost.c, check_exports(): a `module:` namespace is granted by
#           the module's name only when modpost does not build external modules (-e,
#           make M=); .modinfo plays no part.
#
# Usage: scripts/intree-patch.sh SRCDIR     (edits SRCDIR in place; idempotent)
# Exit status: 0 edited (or already edited), 1 a function does not look as expected,
# 2 usage.
set -euo pipefail
[ $# -eq 1 ] && [ -d "$1/kernel/module" ] && [ -f "$1/scripts/mod/modpost.c" ] ||
	{ echo "usage: $0 SRCDIR (a kernel source tree)" >&2; exit 2; }

python3 - "$1" <<'PY'
import re, sys

src = sys.argv[1]
MARK = "/* ksymcheck: in-tree-only rule */"

def edit(path, func_start, old, new):
    with open(path) as f:
        text = f.read()
    if MARK in text:
        return
    # the function's body: from its definition to the first closing brace in column 0
    start = text.find(func_start)
    if start < 0 or text.find(func_start, start + 1) >= 0:
        sys.exit(f"intree-patch: {path}: no single {func_start!r}")
    end = text.find("\n}\n", start)
    body = text[start:end]
    hits = len(re.findall(old, body))
    if hits != 1:
        sys.exit(f"intree-patch: {path}: {hits} matches of {old!r} in {func_start!r}")
    body = re.sub(old, new, body)
    with open(path, "w") as f:
        f.write(text[:start] + body + text[end:])

# loader: the name grant needs an intree key in .modinfo
edit(f"{src}/kernel/module/main.c",
     "static int verify_namespace_is_imported(",
     r"if \(verify_module_namespace\(namespace, mod->name\)\)",
     "if (" + MARK.replace("\\", "\\\\") + " get_modinfo(info, \"intree\") &&\n"
     "\t\t    verify_module_namespace(namespace, mod->name))")

# modpost: the name grant needs an in-tree build
edit(f"{src}/scripts/mod/modpost.c",
     "static void check_exports(",
     r"if \(!verify_module_namespace\(exp->namespace, basename\) &&",
     "if (" + MARK + "\n\t\t    !(!external_module &&\n"
     "\t\t      verify_module_namespace(exp->namespace, basename)) &&")
PY
grep -q 'ksymcheck: in-tree-only rule' "$1/kernel/module/main.c" &&
	grep -q 'ksymcheck: in-tree-only rule' "$1/scripts/mod/modpost.c"
