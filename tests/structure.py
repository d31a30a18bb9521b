#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The size and layering limits of the code (doc/architecture.md), over lib/, tools/, util/:

- no file (.c, .h) over 1,500 lines, over 1,000 in tools/;
- no function over 120 lines, over 100 in tools/ (the lines between its braces, kernel
  style: a function's braces stand alone in column 0);
- one home for each of three jobs (HOMES below): getopt_long() (the CLI's option
  parser), realloc() (util/array.c: every growable array is an array.h one) and writing
  to stderr (the CLI's message.c; the library's default log function); comments and
  string literals do not count;
- no circle of #include "..." between the files;
- the wings in order (WINGS below): a file includes headers of its own wing and of lower
  wings only, never of a higher wing or of a sibling of the same rank; tools/ includes the
  public header, util/ and tools/ only;
- with BUILD given, the same for calls (a's object file needs a symbol b's defines, by
  nm): a lower wing never calls a higher one, so no circle of calls crosses wings; and
  inside a wing, no circle of calls between its files (each wing's files have an order).

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
# Stricter limits by top folder: (file lines, function lines).
LIMITS = {"tools": (1000, 100)}

# The wings, lowest first: util/ (project-independent), then lib/<wing>/. Wings of the same
# rank are siblings and use neither each other. lib/ksymcheck.h (the public header, made of
# one part per wing in lib/ksymcheck/) may be
# included by anyone; tools/ sits above the library and sees only that header and util/.
WINGS = {"util": 0, "base": 1, "readers": 2, "modset": 3, "kernel": 4, "engine": 5,
         "source": 5, "tree": 6, "report": 6, "tools": 7}

KNOWN_FILES = {
}

KNOWN_FUNCTIONS = {
}

# The one home of each job, by a pattern of the code (comments and strings removed), and
# the files allowed to do it. Writing to stderr: the token `stderr` itself.
HOMES = {
    "getopt": (re.compile(r"\bgetopt(?:_long)?(?:_only)?\s*\("), ["tools/options.c"]),
    "realloc": (re.compile(r"\brealloc(?:array)?\s*\("), ["util/array.c"]),
    "stderr": (re.compile(r"\bstderr\b"), ["tools/message.c", "lib/base/ksc-ctx.c"]),
}

# ======================================================================================
# EXCEPTIONS TO TRIM: today's calls outside their home, FILE:FUNCTION -> (job, reason).
# Each is being moved to its home (the library's growable arrays to util/array.h);
# remove a line when its call goes (the test notes one that no longer applies).
# ======================================================================================
KNOWN_OUTSIDE_HOME = {
    "lib/readers/ksc-elf.c:load_relocs": ("realloc", "to move to util/array.h"),
    "lib/readers/ksc-file.c:outbuf_reserve": ("realloc", "to move to util/array.h"),
    "lib/readers/ksc-crypto.c:ksc_crypto": ("stderr", "a bug's last words before abort(), "
                                            "when no ctx is at hand to log through"),
}
# ======================================================================================

SIG_START = re.compile(r"^[A-Za-z_]")
ATTRIBUTE = re.compile(r"__attribute__\s*\(\(.*?\)\)\s*")


def sources(root):
    out = []
    for d in ("lib", "lib/*", "tools", "util"):
        for ext in ("c", "h"):
            out += glob.glob(os.path.join(root, d, "*." + ext))
    return sorted(os.path.relpath(p, root) for p in out)


def wing_of(path):
    """The wing of a source or object path relative to the root, or None (the public
    header lib/ksymcheck.h and its parts lib/ksymcheck/*.h)."""
    parts = path.split("/")
    if parts[0] in ("util", "tools"):
        return parts[0]
    if parts[0] == "lib" and len(parts) > 2 and parts[1] != "ksymcheck":
        return parts[1]
    return None


def crosses(a, b):
    """Why a (a file of one wing) may not use b (of another), or None when it may."""
    wa, wb = wing_of(a), wing_of(b)
    if wb is None or wa == wb:
        return None
    if wa is None or wa not in WINGS or wb not in WINGS:
        return "%s or %s is in no wing (tests/structure.py WINGS)" % (a, b)
    if wa == "tools" and wb != "util":
        return "tools/ uses the library through lib/ksymcheck.h only"
    if WINGS[wb] > WINGS[wa]:
        return "the %s wing is below the %s wing" % (wa, wb)
    if WINGS[wb] == WINGS[wa]:
        return "the %s and %s wings are siblings" % (wa, wb)
    return None


def functions(text):
    """(name, first line, body lines, last line) of each function in kernel style."""
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
            yield m.group(1), j + 1, k - i - 1, k + 1
        i = k + 1


CODE_NOISE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def code_only(text):
    """text with its comments and string and character literals blanked, lines kept."""
    return CODE_NOISE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def outside_home(root, files):
    """(file, line, function, job) of each call of a job outside its home."""
    out = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        code = code_only(text)
        spans = [(first, last, name) for name, first, _, last in functions(text)]
        for job, (pattern, homes) in sorted(HOMES.items()):
            if f in homes:
                continue
            for m in pattern.finditer(code):
                line = code.count("\n", 0, m.start()) + 1
                fn = next((n for a, b, n in spans if a <= line <= b), "")
                out.append((f, line, fn, job))
    return out


def include_graph(root, files):
    graph = collections.defaultdict(set)
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for inc in re.findall(r'^#include "([^"]+)"', fh.read(), re.M):
                for cand in (os.path.join(os.path.dirname(f), inc), inc,
                             os.path.join("lib", inc)):
                    if os.path.normpath(cand) in files:
                        graph[f].add(os.path.normpath(cand))
                        break
    return graph


def include_circles(graph):
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


def call_edges(build, root):
    """Calls between the objects in build whose source is still in root (an object left
    by a file since moved or removed is not the code any more)."""
    defs, undefs = {}, {}
    objs = glob.glob(os.path.join(build, "lib", "*", "*.o"))
    objs += glob.glob(os.path.join(build, "util", "*.o"))
    for o in sorted(objs):
        name = os.path.relpath(o, build)[:-2] + ".c"
        if not os.path.exists(os.path.join(root, name)):
            continue
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


def limits(path):
    """(file lines, function lines) at most for a path."""
    return LIMITS.get(path.split("/")[0], (MAX_FILE_LINES, MAX_FUNCTION_LINES))


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
        max_file, max_fn = limits(f)
        if n > max_file:
            if f in KNOWN_FILES:
                seen_files.add(f)
            else:
                big.append("%s: %d lines (at most %d)" % (f, n, max_file))
        if not f.endswith(".c"):
            continue
        for name, line, body, _ in functions(text):
            if body <= max_fn:
                continue
            key = "%s:%s" % (f, name)
            if key in KNOWN_FUNCTIONS:
                seen_fns.add(key)
            else:
                long_fns.append("%s:%d: %s() has %d lines (at most %d)"
                                % (f, line, name, body, max_fn))
    check("no file over %d lines (%s) but the %d known"
          % (MAX_FILE_LINES, ", ".join("%s/ %d" % (d, l[0]) for d, l in sorted(LIMITS.items())),
             len(KNOWN_FILES)), big)
    check("no function over %d lines (%s) but the %d known"
          % (MAX_FUNCTION_LINES,
             ", ".join("%s/ %d" % (d, l[1]) for d, l in sorted(LIMITS.items())),
             len(KNOWN_FUNCTIONS)), long_fns)

    stray, seen_stray = [], set()
    for f, line, fn, job in outside_home(root, files):
        key = "%s:%s" % (f, fn)
        if KNOWN_OUTSIDE_HOME.get(key, ("",))[0] == job:
            seen_stray.add(key)
        else:
            stray.append("%s:%d: %s in %s(), outside its home (%s)"
                         % (f, line, job, fn or "?", ", ".join(HOMES[job][1])))
    check("no getopt, realloc or stderr outside its home but the %d known"
          % len(KNOWN_OUTSIDE_HOME), stray)
    notes += ["%s no longer calls %s outside its home: remove it from KNOWN_OUTSIDE_HOME"
              % (k, KNOWN_OUTSIDE_HOME[k][0]) for k in sorted(set(KNOWN_OUTSIDE_HOME) - seen_stray)
              if os.path.exists(os.path.join(root, k.split(":")[0]))]
    notes += ["%s is no longer over %d lines: remove it from KNOWN_FILES" % (f, MAX_FILE_LINES)
              for f in sorted(set(KNOWN_FILES) - seen_files)
              if os.path.exists(os.path.join(root, f))]
    notes += ["%s() is no longer over %d lines: remove it from KNOWN_FUNCTIONS"
              % (k, MAX_FUNCTION_LINES) for k in sorted(set(KNOWN_FUNCTIONS) - seen_fns)
              if os.path.exists(os.path.join(root, k.split(":")[0]))]

    incs = include_graph(root, set(files))
    check("no #include circle in lib/, tools/, util/",
          [" -> ".join(c) for c in include_circles(incs)])
    check("no file includes a header of a higher or sibling wing",
          ["%s includes %s: %s" % (a, b, crosses(a, b))
           for a in sorted(incs) for b in sorted(incs[a]) if crosses(a, b)])

    if build:
        graph = call_edges(build, root)
        if not graph:
            print("ok - no call from a lower wing to a higher one # SKIP no objects in %s/lib"
                  % build)
        else:
            check("no call from a lower wing to a higher one",
                  ["%s calls %s: %s" % (a, b, crosses(a, b))
                   for a in sorted(graph) for b in sorted(graph[a]) if crosses(a, b)])
            inner = {a: {b for b in bs if wing_of(b) == wing_of(a)}
                     for a, bs in graph.items()}
            check("no circle of calls between the files of one wing",
                  [" <-> ".join(c) for c in sccs(inner) if len(c) > 1])
    for n in notes:
        print("# note: " + n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
