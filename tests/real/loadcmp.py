#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What `ksymcheck check --view loader --format json` said of one boot's modules, against
what the real loader did (tests/real/loader.sh, tests/real/loader72.sh).

Usage: loadcmp.py --label LABEL --who WHO --results FILE --dmesg PATTERN --json FILE
                  --json-err FILE DIR MODULE...

Files are relative to DIR, the set's folder of scripts/qemu-load.sh: --results has one
line per module file, "BASENAME<TAB>ERRNO[<TAB>...]" (ERRNO "none" or empty: the loading
process was killed), --dmesg is the kernel's log of one module with {} for its basename,
--json is ksymcheck's document and --json-err its standard error. MODULEs are the files
in load order. Prints TAP lines named "LABEL..." and "LABEL/BASENAME: WHO ...": per module
one for the errno and one for the kernel lines; a failure says what differs.
"""
import argparse
import json
import os
import sys

SHOWN = 40  # lines of each log printed when they differ


def tap(ok, name, *lines):
    print(("ok - " if ok else "not ok - ") + name)
    if not ok:
        for line in lines:
            for part in str(line).split("\n"):
                print("#   " + part)


def read_results(path):
    res = {}
    for line in open(path):
        fields = line.rstrip("\n").split("\t")
        rc = fields[1] if len(fields) > 1 else ""
        res[fields[0]] = int(rc) if rc not in ("none", "") else None
    return res


def kernel_lines(loader):
    """The loader view's kernel_lines, one string per line ([] for none)."""
    lines = "\n".join(str(x) for x in (loader.get("kernel_lines") or [])).split("\n")
    return [] if lines == [""] else lines


def compare(args):
    d, label, who = args.dir, args.label, args.who
    mods = [os.path.basename(m) for m in args.modules]
    res = read_results(os.path.join(d, args.results))
    try:
        got = json.load(open(os.path.join(d, args.json)))["modules"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        err = open(os.path.join(d, args.json_err)).read()[:400]
        tap(False, "%s: %s --format json is readable" % (label, who),
            "%s: %s" % (type(e).__name__, e), err)
        return
    if len(got) != len(mods):
        tap(False, "%s: %s reports every module" % (label, who),
            "%d modules, %d given" % (len(got), len(mods)))
    for i, b in enumerate(mods):
        m = got[i] if i < len(got) else {}
        loader = m.get("loader") or {}
        if os.path.basename(m.get("path") or "") != b:
            tap(False, "%s/%s: %s module %d is %s" % (label, b, who, i + 1, b),
                "json path: %r" % m.get("path"))
            continue
        e = loader.get("errno")
        tap(e == res.get(b), "%s/%s: %s errno %s equals the real loader's %s"
            % (label, b, who, e, res.get(b)),
            "real loader: %s, ksymcheck: %r (%s)" % (res.get(b), e, loader.get("result")))
        want = open(os.path.join(d, args.dmesg.format(b))).read().splitlines()
        lines = kernel_lines(loader)
        tap(lines == want, "%s/%s: %s kernel_lines equal the kernel's log" % (label, b, who),
            *(["kernel:"] + ["  " + x for x in want[:SHOWN]] +
              ["ksymcheck:"] + ["  " + x for x in lines[:SHOWN]]))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--label", required=True, help='the TAP names\' start, e.g. "loader kbuild"')
    p.add_argument("--who", required=True, help='how ksymcheck was run, e.g. "--kernel"')
    p.add_argument("--results", required=True)
    p.add_argument("--dmesg", required=True)
    p.add_argument("--json", required=True)
    p.add_argument("--json-err", required=True)
    p.add_argument("dir")
    p.add_argument("modules", nargs="+")
    compare(p.parse_args())
    return 0


if __name__ == "__main__":
    sys.exit(main())
