#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The size and circle limits of the code (doc/architecture.md), over lib/, tools/, util/:

- no file (.c, .h) over 1,500 lines;
- no function over 120 lines (the lines between its braces, kernel style: a function's
  braces stand alone in column 0);
- no circle of #include "..." between the files;
- no new circle of calls between the library's files: with BUILD given, an edge a -> b
  (a's object file needs a symbol b's defines, by nm) that lies on a circle must be one
  of KNOWN_CALLS below.

Today's exceptions are listed below, each with its reason; a new one fails the test. An
exception that no longer applies is printed as a note: remove it.

Usage: tests/structure.py [--build DIR] [ROOT]; prints one TAP line per check.
"""
import collections
import glob
import os
import re
import subprocess
import sys

MAX_FILE_LINES = 1500
MAX_FUNCTION_LINES = 120

KNOWN_FILES = {
    "lib/ksc-tree.c": "the tree wing in one file (walk, read, index use, resolve, check, "
                      "results); issue 16 splits it",
    "lib/ksc-index.c": "the index format: builder, validator and reader of one record "
                       "layout; to split with the tree",
    "lib/ksc-depmod.c": "depmod's formats plus helpers that belong in the base (hash, "
                        "atomic writes); issue 16",
    "lib/ksymcheck.h": "the public header: every function documents its ownership and "
                       "errors; splitting it would break users' includes",
}

KNOWN_FUNCTIONS = {
    "lib/ksc-tree.c:do_open": "the tree's orchestrator over a ~70-field struct; issue 16",
    "lib/ksc-tree.c:read_module": "reads, decompresses and records one module in a worker",
    "lib/ksc-check.c:load_module": "the loader's steps in one function; to split into "
                                   "the kernel's own (check_modinfo(), ...)",
    "lib/ksc-check.c:modpost_module": "modpost's checks of one module in one function",
    "lib/ksc-index.c:ksc_krec_build": "lays out one index record field by field",
    "lib/ksc-index.c:ksc_krec_to_module": "rebuilds a module from a record field by field",
    "lib/ksc-index.c:ksc_kidx_write": "writes the index file's header, directory and records",
    "lib/ksc-depmod.c:ksc_depmod_cycles": "depmod's cycle search and its report in one",
    "lib/ksc-depmod.c:ksc_depmod_format": "one switch over every modules.* format",
    "lib/ksc-src.c:scan_dir": "one folder of the threaded source walk",
    "lib/ksc-srcedit.c:ksc_srcedit_commit": "checks and writes every planned edit atomically",
    "lib/ksc-srcedit.c:ksc_srcedit_plan_imports": "where MODULE_IMPORT_NS lines go, per file",
    "lib/ksc-audit.c:audit_restricted": "every check of module-restricted exports",
    "lib/ksc-audit.c:audit_signatures": "every signature check of a tree",
    "tools/cmd-diff.c:cmd_diff": "options, two kernels and four outputs; shared option "
                                 "parsing of issue 16 shortens it",
    "tools/cmd-nsdeps.c:cmd_nsdeps": "as cmd_diff",
}

# Calls between library files that close a circle (issue 16: readers and tree).
KNOWN_CALLS = {
    ("ksc-ctx", "ksc-sig"): "the context frees the signature memo (ksc_sigmemo_free)",
    ("ksc-depmod", "ksc-ctx"): "ksc_basename",
    ("ksc-depmod", "ksc-index"): "the kernel ELF reader asks the index for kinfo",
    ("ksc-elf", "ksc-ctx"): "logging",
    ("ksc-elf", "ksc-file"): "ksc_signature_strip",
    ("ksc-elf", "ksc-index"): "the section-name table lives in the index (ksc_tree_section_id)",
    ("ksc-file", "ksc-ctx"): "logging",
    ("ksc-index", "ksc-depmod"): "ksc_hash64 and atomic writes live in depmod",
    ("ksc-index", "ksc-module"): "records are built from and back into modules",
    ("ksc-index", "ksc-sig"): "ksc_sig_capture for a record's signature",
    ("ksc-locate", "ksc-ctx"): "logging, references",
    ("ksc-module", "ksc-ctx"): "logging, references",
    ("ksc-module", "ksc-depmod"): "ksc_kmod_modname lives in depmod",
    ("ksc-module", "ksc-elf"): "the module reader",
    ("ksc-module", "ksc-file"): "loading files",
    ("ksc-module", "ksc-sig"): "the appended signature",
    ("ksc-sig", "ksc-ctx"): "logging, references",
    ("ksc-sig", "ksc-file"): "loading files",
    ("ksc-sig", "ksc-locate"): "finding a kernel's certificates",
    ("ksc-sig", "ksc-symvers"): "ksc_read_text_file lives in symvers",
    ("ksc-symvers", "ksc-ctx"): "logging, references",
    ("ksc-symvers", "ksc-depmod"): "atomic write checks live in depmod",
    ("ksc-symvers", "ksc-file"): "ksc_open_regular",
    ("ksc-symvers", "ksc-module"): "writing a module's exports as Module.symvers",
}

SIG_START = re.compile(r"^[A-Za-z_]")
ATTRIBUTE = re.compile(r"__attribute__\s*\(\(.*?\)\)\s*")


def sources(root):
    out = []
    for d in ("lib", "tools", "util"):
        for ext in ("c", "h"):
            out += glob.glob(os.path.join(root, d, "*." + ext))
    return sorted(os.path.relpath(p, root) for p in out)


def functions(text):
    """(name, first line, body lines) of each function in kernel style."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i] != "{":
            i += 1
            continue
        j = i - 1
        while j >= 0 and not SIG_START.match(lines[j]):
            j -= 1
        sig = ATTRIBUTE.sub("", " ".join(lines[j:i])) if j >= 0 else ""
        k = i + 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        m = re.search(r"(\w+)\s*\(", sig)
        if m and sig.rstrip().endswith(")") and "=" not in sig.split("(")[0]:
            yield m.group(1), j + 1, k - i - 1
        i = k + 1


def include_circles(root, files):
    graph = collections.defaultdict(set)
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for inc in re.findall(r'^#include "([^"]+)"', fh.read(), re.M):
                for cand in (os.path.join(os.path.dirname(f), inc), inc,
                             os.path.join("lib", inc)):
                    if os.path.normpath(cand) in files:
                        graph[f].add(os.path.normpath(cand))
                        break
    return [c for c in sccs(graph) if len(c) > 1 or c[0] in graph[c[0]]]


def sccs(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    nodes = set(graph) | {w for vs in graph.values() for w in vs}

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def call_edges(build):
    defs, undefs = {}, {}
    for o in sorted(glob.glob(os.path.join(build, "lib", "*.o"))):
        name = os.path.basename(o)[:-2]
        nm = subprocess.run(["nm", "--defined-only", "-g", o], capture_output=True,
                            text=True, check=True).stdout
        for line in nm.splitlines():
            p = line.split()
            if len(p) == 3:
                defs[p[2]] = name
        nm = subprocess.run(["nm", "-u", o], capture_output=True, text=True,
                            check=True).stdout
        undefs[name] = [line.split()[-1] for line in nm.splitlines() if line.strip()]
    graph = collections.defaultdict(set)
    for a, syms in undefs.items():
        for s in syms:
            if s in defs and defs[s] != a:
                graph[a].add(defs[s])
    return graph


def main():
    args = sys.argv[1:]
    build = None
    if args[:1] == ["--build"]:
        build, args = args[1], args[2:]
    root = args[0] if args else "."
    files = sources(root)
    notes, failed = [], 0

    def check(name, problems):
        nonlocal failed
        if problems:
            failed += 1
            print("not ok - " + name)
            for p in problems:
                print("#   " + p)
        else:
            print("ok - " + name)

    big, seen_files = [], set()
    long_fns, seen_fns = [], set()
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        n = text.count("\n")
        if n > MAX_FILE_LINES:
            if f in KNOWN_FILES:
                seen_files.add(f)
            else:
                big.append("%s: %d lines (at most %d)" % (f, n, MAX_FILE_LINES))
        if not f.endswith(".c"):
            continue
        for name, line, body in functions(text):
            if body <= MAX_FUNCTION_LINES:
                continue
            key = "%s:%s" % (f, name)
            if key in KNOWN_FUNCTIONS:
                seen_fns.add(key)
            else:
                long_fns.append("%s:%d: %s() has %d lines (at most %d)"
                                % (f, line, name, body, MAX_FUNCTION_LINES))
    check("no file over %d lines but the %d known" % (MAX_FILE_LINES, len(KNOWN_FILES)), big)
    check("no function over %d lines but the %d known"
          % (MAX_FUNCTION_LINES, len(KNOWN_FUNCTIONS)), long_fns)
    notes += ["%s is no longer over %d lines: remove it from KNOWN_FILES" % (f, MAX_FILE_LINES)
              for f in sorted(set(KNOWN_FILES) - seen_files)
              if os.path.exists(os.path.join(root, f))]
    notes += ["%s() is no longer over %d lines: remove it from KNOWN_FUNCTIONS"
              % (k, MAX_FUNCTION_LINES) for k in sorted(set(KNOWN_FUNCTIONS) - seen_fns)
              if os.path.exists(os.path.join(root, k.split(":")[0]))]

    check("no #include circle in lib/, tools/, util/",
          [" -> ".join(c) for c in include_circles(root, set(files))])

    if build:
        graph = call_edges(build)
        if not graph:
            print("ok - no new call circle between lib files # SKIP no objects in %s/lib"
                  % build)
        else:
            bad, used = [], set()
            for comp in sccs(graph):
                members = set(comp)
                for a in comp:
                    for b in sorted(graph[a] & members):
                        if (a, b) in KNOWN_CALLS:
                            used.add((a, b))
                        else:
                            bad.append("lib/%s.c calls lib/%s.c, which leads back to it "
                                       "(circle: %s)" % (a, b, ", ".join(comp)))
            check("no new call circle between lib files (%d known calls)" % len(KNOWN_CALLS),
                  bad)
            notes += ["%s -> %s no longer closes a circle: remove it from KNOWN_CALLS" % k
                      for k in sorted(set(KNOWN_CALLS) - used)]
    for n in notes:
        print("# note: " + n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
