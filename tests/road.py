#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The road of `-k ROOT` through the wings (doc/architecture.md, "The road of -k ROOT").

From tools/util.c's open_root() (what every command's -k ROOT calls), every function
reachable by direct calls in the objects of a build (objdump -dr: the call and jump
relocations, and the calls within one object), each placed in the wing of its file
(tests/structure.py's WINGS). Prints how many functions the road reaches, the wings in
the order it goes down them, each call from one wing into another, and the calls that go
up a wing: none, or the road turns back (tools -> kernel -> tools -> tree -> kernel, as it
did before the module set).

Usage: tests/road.py BUILD [FUNCTION]   (exit status 1 when a call goes up)
"""
import glob
import importlib.util
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("structure", os.path.join(HERE, "structure.py"))
structure = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(structure)
WINGS = structure.WINGS

FN_START = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
RELOC = re.compile(r"R_X86_64_(?:PLT32|PC32)\s+([A-Za-z_][\w.]*)")
LOCAL_CALL = re.compile(r"\s(?:call|jmp)\s+[0-9a-f]+ <([A-Za-z_][\w.]*)>")


def wing_of(rel):
    top = rel.split("/")[0]
    return top if top in ("util", "tools") else rel.split("/")[1]


def read_objects(build, root):
    """where: function -> its file; calls: (file, function) -> callees; local: file -> its functions."""
    where, calls, local = {}, {}, {}
    objs = glob.glob(os.path.join(build, "lib", "*", "*.o"))
    objs += glob.glob(os.path.join(build, "util", "*.o"))
    objs += glob.glob(os.path.join(build, "tools", "*.o"))
    for o in sorted(objs):
        rel = os.path.relpath(o, build)
        if not os.path.exists(os.path.join(root, rel[:-2] + ".c")):
            continue  # left by a file since moved or removed: not the code any more
        out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", o], capture_output=True,
                             text=True, check=True).stdout
        local[rel] = {m.group(1) for m in map(FN_START.match, out.splitlines()) if m}
        fn, prev = None, ""
        for line in out.splitlines():
            m = FN_START.match(line)
            if m:
                fn = m.group(1)
                where.setdefault(fn, rel)
                calls.setdefault((rel, fn), set())
                continue
            m = RELOC.search(line)
            if fn and m and ("call" in prev or "jmp" in prev):
                calls[(rel, fn)].add(m.group(1))
            m = LOCAL_CALL.search(line)
            if fn and m and m.group(1) != fn:
                calls[(rel, fn)].add(m.group(1))
            prev = line
    return where, calls, local


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    build, start = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "open_root"
    where, calls, local = read_objects(build, os.path.dirname(HERE))
    if start not in where:
        print("road.py: %s is in no object of %s" % (start, build), file=sys.stderr)
        return 2
    seen, todo, up, cross = set(), [(where[start], start)], [], set()
    while todo:
        rel, fn = todo.pop()
        if (rel, fn) in seen:
            continue
        seen.add((rel, fn))
        w = wing_of(rel)
        for c in calls.get((rel, fn), ()):
            if c not in where:
                continue  # the C library and the other libraries
            crel = rel if c in local.get(rel, ()) else where[c]
            cw = wing_of(crel)
            if cw != w:
                cross.add((w, fn, cw, c))
                if WINGS[cw] > WINGS[w]:
                    up.append((rel, fn, crel, c))
            todo.append((crel, c))
    wings = sorted({wing_of(r) for r, _ in seen}, key=lambda x: -WINGS[x])
    print("functions reachable from %s(): %d" % (start, len(seen)))
    print("wings reached: " + " > ".join(wings))
    for w, f, cw, c in sorted(cross, key=lambda x: (-WINGS[x[0]], -WINGS[x[2]], x[1], x[3])):
        print("  %-8s %-32s -> %-8s %s" % (w, f, cw, c))
    print("calls up a wing: %d" % len(up))
    for rel, fn, crel, c in up:
        print("  %s: %s() calls %s: %s()" % (rel, fn, crel, c))
    return 1 if up else 0


if __name__ == "__main__":
    sys.exit(main())
