#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The size and layering limits of the code (doc/architecture.md), over lib/, tools/, util/:

- no file (.c, .h) over 1,000 lines;
- no function over 100 lines (the lines between its braces, kernel style: a function's
  braces stand alone in column 0);
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
  inside a wing, no circle of calls between its files (each wing's files have an order);
- no file reads the fields of a struct defined in another wing's private header
  (lib/WING/*.h) but the plain data of PLAIN_STRUCTS: it calls that wing's functions.
- a struct of OWNED_STRUCTS is defined in its owning file only, and no other file reads
  its fields, not even one of its wing: they call the owner's functions.

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

MAX_FILE_LINES = 1000
MAX_FUNCTION_LINES = 100
# Other limits by top folder: (file lines, function lines); none today.
LIMITS = {}

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


# ---- private structs: a struct defined in one wing's private header (lib/WING/*.h) is
# that wing's business; a file of another wing calls the wing's functions instead of
# reaching into its fields (kmod keeps kmod_module, kmod_ctx and kmod_elf inside their
# files). A pragmatic reading of C, not a compiler's (clang's AST would need every
# file compiled with its flags, and the check must run where only the tests run): the
# variables of each function (and of the file scope) declared with the struct's type
# (`struct NAME *x`, `struct NAME x`, several declarators, parameters and loop variables
# included), and each `x->field`, `x.field` or `x[i].field` on them that names one of
# the struct's members, comments and strings left out. A read through a member of
# another type (a->b->c) is found at its first step only.

# Structs of private headers that are plain data, handed by their wing to the wings
# above to fill or read (views of a file, results, options, versions), with the reason.
PLAIN_STRUCTS = {
    "ksc_charge": "a share of the memory budget: held by the caller across calls",
    "ksc_blob": "a file's bytes in memory: data and size, nothing to keep in step",
    "ksc_image_der": "a kernel image's certificates handed to the key cache",
    "ksc_module_facts": "the facts a module is rebuilt from (the module set fills it)",
    "ksc_elf_plan": "the byte ranges the readers need: the caller loads them",
    "kview": "kmod's view of a module: what depmod reads, handed to the record",
    "kv_str": "kmod's view: a string of the image",
    "kv_export": "kmod's view: an export",
    "kv_dep": "kmod's view: a dependency symbol",
    "kv_info": "kmod's view: a .modinfo entry",
    "ksc_sig_eval": "the verdict on a module's signature, read by the loader and audit",
    "ksc_feature_row": "one row of the table of what each kernel version has",
    "ksc_features": "what one kernel version has: a value, read by every rule",
    "ksc_src_names": "the names a source scan found: a result",
    "ksc_sig_digest": "a signature's digest (algorithm, bytes): a value the record keeps",
    "ksc_mread": "the file a module-set reader is handed (descriptor, open error)",
    "ksc_mread_stats": "a module-set reader's time and byte counts, for --timing",
    "ksc_msgbuf": "a worker's messages, handed to the main thread to replay in order",
    "ksc_depbin_value": "a key's value in depmod's .bin trie: a string of the file, a count",
}

# Today's reaches of a file into another wing's private struct, by (file, struct), with
# the reason. The lead trims this table; a new reach fails the test, a listed one that
# is gone is printed as a note.
# -- KNOWN_REACHES begin --
KNOWN_REACHES = {}
# -- KNOWN_REACHES end --

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)


def strip_comments(text):
    """The text with comments, strings and characters blanked (line numbers kept)."""
    return COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def struct_members(body):
    """The member names of a struct body (the text between its braces)."""
    depth, cur, out = 0, "", set()
    for ch in body:
        if ch == "{":
            depth += 1
            cur = ""
        elif ch == "}":
            depth -= 1
            cur = ""
        elif ch == ";":
            for decl in cur.split(","):
                m = re.search(r"(\w+)\s*(?:\[[^\]]*\]\s*)*(?::\s*\w+\s*)?$", decl.strip())
                if m:
                    out.add(m.group(1))
            cur = ""
        else:
            cur += ch
    return out


def struct_bodies(text):
    """{name: members} of the structs a text (comments stripped) defines."""
    out = {}
    for m in re.finditer(r"\bstruct\s+(\w+)\s*\{", text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        out[m.group(1)] = struct_members(text[m.end():i])
    return out


def struct_defs(root, files):
    """{wing: {name: members}} of the structs defined in the headers of each wing."""
    out = collections.defaultdict(dict)
    for f in files:
        w = wing_of(f)
        if not f.endswith(".h") or w is None:
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            out[w].update(struct_bodies(strip_comments(fh.read())))
    return out


def declared(text, name):
    """The variables declared in text with type struct NAME (pointers, arrays, values)."""
    out = set()
    for m in re.finditer(r"\bstruct\s+%s\b" % name, text):
        rest = text[m.end():]
        depth, cur, decls = 0, "", []
        for ch in rest:
            if ch in "([":
                depth += 1
            elif ch in ")]":
                if depth == 0:
                    decls.append(cur)
                    break
                depth -= 1
            elif depth == 0 and ch in ",;{":
                decls.append(cur)
                if ch != ",":
                    break
                cur = ""
                continue
            cur += ch
        for i, d in enumerate(decls):
            d = d.split("=")[0]
            dm = re.match(r"\s*(?:const\s+)?\**\s*(?:const\s+)?\**\s*(\w+)\s*(?:\[.*\])?\s*$",
                          d, re.S)
            if dm:
                out.add(dm.group(1))
            elif i == 0:
                break
            else:
                break
    return out


def scopes(text):
    """The functions of a C text as (first line, text with signature) and the file scope."""
    lines = text.split("\n")
    out, outside, i = [], [], 0
    while i < len(lines):
        if lines[i] != "{":
            outside.append(lines[i])
            i += 1
            continue
        j = i - 1
        while j >= 0 and lines[j] and not SIG_START.match(lines[j]):
            j -= 1
        k = i + 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        out.append((j + 1, "\n".join(lines[max(j, 0):k + 1])))
        i = k + 1
    return out, "\n".join(outside)


def reaches(root, files):
    """(file, struct, its wing, line, text) of each read of another wing's private
    struct."""
    defs = struct_defs(root, files)
    private = {name: (w, members) for w, structs in defs.items() if w not in ("util", "tools")
               for name, members in structs.items() if name not in PLAIN_STRUCTS}
    found = []
    for f in files:
        w = wing_of(f)
        if w is None:
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = strip_comments(fh.read())
        own = set(defs.get(w, {})) | set(re.findall(r"\bstruct\s+(\w+)\s*\{", text))
        fns, outside = None, None
        for name, (sw, members) in sorted(private.items()):
            if sw == w or name in own or not members:
                continue
            if not re.search(r"\bstruct\s+%s\b" % name, text):
                continue
            if fns is None:
                fns, outside = scopes(text)
            found += [(f, name, sw, line, t)
                      for line, t in field_reads(fns, outside, name, members)]
    return found


def field_reads(fns, outside, name, members):
    """(line, text) of each read of a field of struct NAME in a file's functions (fns and
    outside: scopes() of its text)."""
    found = []
    glob_vars = declared(outside, name)
    for first, body in fns:
        for v in sorted(glob_vars | declared(body, name)):
            for m in re.finditer(r"\b%s\s*(?:\[[^\]\n]*\]\s*)?(?:->|\.)\s*(\w+)"
                                 % re.escape(v), body):
                if m.group(1) in members:
                    found.append((first + body.count("\n", 0, m.start()), m.group(0)))
    return found


def check_reaches(root, files, check, notes):
    """The private-struct check: a new reach fails, a listed one that is gone is a note."""
    found = reaches(root, files)
    seen = {(f, n) for f, n, _, _, _ in found}
    new = ["%s:%d: %s reads struct %s of the %s wing (call its functions)"
           % (f, line, text, n, w) for f, n, w, line, text in found
           if (f, n) not in KNOWN_REACHES]
    check("no file reads the fields of another wing's private struct but the %d known"
          % len(KNOWN_REACHES), new)
    notes += ["%s no longer reads struct %s: remove it from KNOWN_REACHES" % k
              for k in sorted(set(KNOWN_REACHES) - seen)
              if os.path.exists(os.path.join(root, k[0]))]

# ---- structs private to their file: the narrowest home, as kmod keeps struct kmod_module
# inside libkmod-module.c. Each struct here, with its owning file(s) and the reason, is
# defined there and nowhere else (no header: a header opens it to every file that
# includes it), and no other file reads its fields, of its own wing or another (the
# reading of C of the private-struct check above): they call the owner's functions.
OWNED_STRUCTS = {
    "ksc_module": (["lib/readers/ksc-module.c"],
                   "a module: the readers fill it and everyone reads it through "
                   "readers.h (issue 24)"),
    "ksc_kernel": (["lib/kernel/ksc-kernel.c"],
                   "a kernel: its exports (struct kprov), owners (struct kowner), index and "
                   "config, all three defined there only; the kernel wing's other files and "
                   "the wings above call kernel.h's functions (issue 24)"),
    "kprov": (["lib/kernel/ksc-kernel.c"], "a kernel's export: struct ksc_kernel's own"),
    "kowner": (["lib/kernel/ksc-kernel.c"], "a kernel's module or vmlinux: struct ksc_kernel's own"),
    "ksc_tree": (["lib/tree/ksc-tree-state.c"],
                 "a tree's core (context, options, root, module folder, module set, the index "
                 "of the last run): every file of the tree wing reads it, so its getters sit "
                 "at the bottom of the wing's order (tree-private.h); each part below is the "
                 "struct of the file that owns it (issue 24)"),
    "tree_walk": (["lib/tree/ksc-tree-walk.c"],
                  "a tree's module list and the walk's state: tree_n_mods(), tree_mod()"),
    "tree_kern": (["lib/tree/ksc-tree-kernel.c"],
                  "a tree's kernel: its files, exports, depmod's symbol table, the check kernel"),
    "tree_index": (["lib/tree/ksc-tree-index.c"], "what became of a tree's index"),
    "tree_depmod": (["lib/tree/ksc-tree-depmod.c"],
                    "depmod's cycles and the files written last, for the index"),
    "tree_problems": (["lib/tree/ksc-tree-problems.c"], "the problems a tree's run met"),
    "tree_results": (["lib/tree/ksc-tree-results.c"], "the public arrays of a tree's verdicts"),
    "ksc_modents": (["lib/modset/ksc-modset-entries.c"],
                    "what was read of each module of a tree: records, summaries, index "
                    "entries; one owner that frees the records it read (issue 24)"),
    "ksc_modent": (["lib/modset/ksc-modset-entries.c"],
                   "one module's entry of struct ksc_modents: the tree holds a handle and "
                   "calls ksc_modent_*()"),
}


def owned_problems(root, files):
    """What breaks OWNED_STRUCTS: a definition outside the owner, an owner without it,
    a read of its fields outside the owner."""
    texts = {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            texts[f] = strip_comments(fh.read())
    problems = []
    for name, (owners, _) in sorted(OWNED_STRUCTS.items()):
        members = set()
        for f in owners:
            if f not in texts:
                continue  # a tree without the owner (the made-up ones of tests/cli)
            body = struct_bodies(texts[f]).get(name)
            if body is None:
                problems.append("%s no longer defines struct %s (OWNED_STRUCTS)" % (f, name))
            else:
                members |= body
        users = [f for f in sorted(texts)
                 if f not in owners and re.search(r"\bstruct\s+%s\b" % name, texts[f])]
        for f in users:
            body = struct_bodies(texts[f]).get(name)
            if body is not None:
                problems.append("%s defines struct %s: its home is %s"
                                % (f, name, ", ".join(owners)))
                members |= body
        for f in users:
            fns, outside = scopes(texts[f])
            problems += ["%s:%d: %s reads struct %s (call the functions of %s)"
                         % (f, line, t, name, ", ".join(owners))
                         for line, t in field_reads(fns, outside, name, members)]
    return problems


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
    def others(i):
        """The limits of LIMITS' folders, as " (tools/ 1000)", or ""."""
        o = ", ".join("%s/ %d" % (d, l[i]) for d, l in sorted(LIMITS.items()))
        return " (%s)" % o if o else ""
    check("no file over %d lines%s but the %d known"
          % (MAX_FILE_LINES, others(0), len(KNOWN_FILES)), big)
    check("no function over %d lines%s but the %d known"
          % (MAX_FUNCTION_LINES, others(1), len(KNOWN_FUNCTIONS)), long_fns)

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

    check_reaches(root, files, check, notes)
    check("no file but its owner defines or reads a struct of OWNED_STRUCTS (%s)"
          % ", ".join(sorted(OWNED_STRUCTS)), owned_problems(root, files))

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
