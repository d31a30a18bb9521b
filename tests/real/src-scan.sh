#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ksymcheck src scan` on Debian's real kernel source (linux-source-6.1, fetched and cached
# outside git by scripts/fetch-debian-source.sh; the version of the built kernel when
# scripts/fetch-debian-kernel.sh has cached one).
#  1. Every line that `grep -rn EXPORT_SYMBOL` finds in the tree is an export record of
#     `src scan` at that file:line, or is explained by `src scan --mentions` (a keyword in a
#     comment, a string, a #define or another directive, part of another macro's name such
#     as ACPI_EXPORT_SYMBOL, not invoked, arguments no export takes) or by the file not
#     being C (.c, .h, .S). No line may be unexplained, and the explanations must equal
#     the expected list tests/fixtures/srctree/real/debian-6.1-src-scan.expected (made for
#     the source version named in its first line; another version only prints the change).
#  2. For every symbol in the built kernel's Module.symvers, the records with that symbol
#     (files of arch/x86 and the arch-independent tree) give its GPL-ness and namespace;
#     prints the agreement rate, the symbols the sources export in both ways depending
#     on the configuration, and why the others have no record (wrapper macros, names
#     made by token pasting).
#  3. Time of `src scan` against `grep -rn` (and ripgrep when installed) on the same tree,
#     warm cache, best of three: src scan must not be slower than grep -rn. (bench/src-scan.sh
#     installs ripgrep and compares with it.)
REAL_TESTS=("src-scan: every grep -rn EXPORT_SYMBOL line is an export or explained"
	"src-scan: the explained differences equal the expected list"
	"src-scan: GPL-ness and namespace agree with the built kernel's Module.symvers"
	"src-scan: not slower than grep -rn")
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
export LC_ALL=C

skip_all() { local n; for n in "${REAL_TESTS[@]}"; do t_skip "$n" "$1"; done; exit 0; }
[ -x "$KSC" ] || { for n in "${REAL_TESTS[@]}"; do t_fail "$n" "$KSC: not built (make)"; done; exit 1; }
command -v python3 > /dev/null || skip_all "python3 is needed"

rc=0
SRC=$("$TOP/scripts/fetch-debian-source.sh" 2> "$T_TMP/fetch.err") || rc=$?
if [ $rc -eq 3 ]; then
	skip_all "no Debian kernel source ($(grep -v '^\s*$' "$T_TMP/fetch.err" | tail -n 1))"
elif [ $rc -ne 0 ] || [ ! -d "$SRC" ]; then
	for n in "${REAL_TESTS[@]}"; do t_fail "$n" "fetch-debian-source.sh failed ($rc): $(tail -n 3 "$T_TMP/fetch.err")"; done
	exit 1
fi
VERSION=$(cat "$SRC/../.version" 2> /dev/null || echo unknown)
echo "# source: $SRC (linux-source-6.1 $VERSION)"

SYMVERS=
rc=0
KDIR=$("$TOP/scripts/fetch-debian-kernel.sh" 2> "$T_TMP/fetchk.err") || rc=$?
if [ $rc -eq 0 ] && [ -f "$KDIR/.kver" ]; then
	SYMVERS=$KDIR/usr/src/linux-headers-$(cat "$KDIR/.kver")/Module.symvers
	[ -f "$SYMVERS" ] || SYMVERS=
fi
SYMVERS_WHY="no Debian kernel packages ($(grep -v '^\s*$' "$T_TMP/fetchk.err" | tail -n 1))"

cd "$SRC" || exit 1
# Warm the page cache, then time (best of three, interleaved).
"$KSC" src scan . > /dev/null 2>&1
t_ksc=() t_grep=() t_rg=()
timeit() { local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null 2>&1; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'; }
for i in 1 2 3; do
	t_ksc+=("$(timeit "$KSC" src scan .)")
	t_grep+=("$(timeit grep -rn EXPORT_SYMBOL .)")
	command -v rg > /dev/null && t_rg+=("$(timeit rg -n --no-ignore --hidden EXPORT_SYMBOL .)")
done
best() { printf '%s\n' "$@" | sort -n | head -n 1; }

"$KSC" src scan --mentions --format json . > "$T_TMP/scan.json" 2> "$T_TMP/scan.err"
scan_rc=$?
grep -rn EXPORT_SYMBOL . > "$T_TMP/grep.txt"
# For symbols without a record: the macros that name them, found by grep.
grep -rhoE --include='*.[chS]' '\b[A-Z0-9_]*EXPORT[A-Z0-9_]*[[:space:]]*\([[:space:]]*[A-Za-z0-9_$]+' . \
	> "$T_TMP/macros.txt" 2> /dev/null

EXPECTED=$TOP/tests/fixtures/srctree/real/debian-6.1-src-scan.expected
SCAN_RC=$scan_rc VERSION=$VERSION SYMVERS=$SYMVERS SYMVERS_WHY=$SYMVERS_WHY EXPECTED=$EXPECTED \
T_KSC=$(best "${t_ksc[@]}") T_GREP=$(best "${t_grep[@]}") \
T_RG=$([ ${#t_rg[@]} -gt 0 ] && best "${t_rg[@]}") TMP=$T_TMP \
python3 - <<'EOF'
import collections, json, os, re, sys

E = os.environ
tmp = E["TMP"]
names = ["src-scan: every grep -rn EXPORT_SYMBOL line is an export or explained",
         "src-scan: the explained differences equal the expected list",
         "src-scan: GPL-ness and namespace agree with the built kernel's Module.symvers",
         "src-scan: not slower than grep -rn"]

def ok(n, extra=""): print("ok - %s%s" % (n, extra))
def fail(n, *why):
    print("not ok - %s" % n)
    for w in why: print("#   %s" % w)

recs = json.load(open(tmp + "/scan.json"))["records"]
exports = [r for r in recs if r["kind"] == "export"]
by_line = collections.defaultdict(list)
for r in recs:
    if r["kind"] == "export" or (r["kind"] == "mention" and "EXPORT_SYMBOL" in r["macro"]):
        by_line[(r["path"], r["line"])].append(r)

# 1. grep lines
cats = collections.Counter()
diffs = collections.defaultdict(list)   # (category, path) -> [line]
grep_lines = set()
for l in open(tmp + "/grep.txt", errors="replace"):
    m = re.match(r"(.*?):(\d+):", l)
    if not m:
        continue
    path, line = m.group(1), int(m.group(2))
    grep_lines.add((path, line))
    rs = by_line.get((path, line))
    if rs and any(r["kind"] == "export" for r in rs):
        cats["export record"] += 1
        continue
    if rs:
        parts = set()
        for r in rs:
            why = r["mention"]
            parts.add("other-macro:" + r["macro"] if why == "other-macro" else why)
        cat = "+".join(sorted(parts))
    elif not re.search(r"\.[chS]$", path):
        base = path.rsplit("/", 1)[-1]
        cat = "not-scanned:" + (base.rsplit(".", 1)[1] if "." in base else base)
    else:
        cat = "UNEXPLAINED"
    cats[cat] += 1
    diffs[(cat, path)].append(line)
unexplained = [(p, ls) for (c, p), ls in diffs.items() if c == "UNEXPLAINED"]
extra = [r for r in exports if (r["path"], r["line"]) not in grep_lines]
total = sum(cats.values())
print("# grep -rn EXPORT_SYMBOL: %d lines; src scan: %d export records, %d on lines grep finds"
      % (total, len(exports), len(exports) - len(extra)))
for c, n in sorted(cats.items(), key=lambda x: (-x[1], x[0])):
    print("#   %6d  %s" % (n, c))
if E["SCAN_RC"] != "0":
    fail(names[0], "ksymcheck src scan exited with status %s" % E["SCAN_RC"])
elif unexplained or extra:
    fail(names[0], *(["unexplained: %s:%s" % (p, ",".join(map(str, ls))) for p, ls in unexplained[:20]] +
                     ["export not on a grep line: %s:%d" % (r["path"], r["line"]) for r in extra[:10]]))
else:
    ok(names[0])

# The list of differences, one line per category and file.
got = ["%s\t%s\t%s" % (c, p, ",".join(map(str, sorted(ls)))) for (c, p), ls in sorted(diffs.items())]
try:
    exp_lines = open(E["EXPECTED"]).read().split("\n")
except OSError as e:
    exp_lines = None
if exp_lines is None:
    fail(names[1], "cannot read %s" % E["EXPECTED"])
else:
    head = exp_lines[0]
    want = [l for l in exp_lines[1:] if l and not l.startswith("#")]
    exp_version = head.split()[-1] if head.startswith("# linux-source-6.1") else "?"
    if want == got:
        ok(names[1], "  # %d differences in %d files, all as expected" % (sum(len(v) for v in diffs.values()), len(diffs)))
    else:
        a, b = set(want), set(got)
        why = ["expected, not seen: %s" % x for x in sorted(a - b)[:15]] + \
              ["seen, not expected: %s" % x for x in sorted(b - a)[:15]]
        if exp_version != E["VERSION"]:
            print("ok - %s # SKIP the expected list is for %s, the source is %s" % (names[1], exp_version, E["VERSION"]))
            for w in why: print("#   %s" % w)
        else:
            fail(names[1], *why)
    if os.environ.get("KSC_WRITE_EXPECTED"):
        with open(E["EXPECTED"], "w") as f:
            f.write("# linux-source-6.1 %s\n" % E["VERSION"])
            f.write("# Lines of `grep -rn EXPORT_SYMBOL` in the tree that are no export record of\n"
                    "# `ksymcheck src scan`, and why (`src scan --mentions`, or a file that is not\n"
                    "# C): category<TAB>path<TAB>lines. Written by tests/real/src-scan.sh with\n"
                    "# KSC_WRITE_EXPECTED=1; check every change by hand.\n")
            for x in got: f.write(x + "\n")
        print("# wrote %s" % E["EXPECTED"])

# 2. Module.symvers
if not E["SYMVERS"]:
    print("ok - %s # SKIP %s" % (names[2], E["SYMVERS_WHY"]))
else:
    by_sym = collections.defaultdict(list)
    for r in exports:
        by_sym[r["symbol"]].append(r)
    def relevant(p):
        p = p[2:] if p.startswith("./") else p
        if p.startswith("arch/") and not p.startswith("arch/x86/"):
            return False
        return not p.startswith(("tools/", "samples/", "Documentation/", "scripts/"))
    std = {"EXPORT_SYMBOL", "EXPORT_SYMBOL_GPL", "EXPORT_SYMBOL_NS", "EXPORT_SYMBOL_NS_GPL"}
    named_by = collections.defaultdict(set)
    for l in open(tmp + "/macros.txt", errors="replace"):
        m = re.match(r"([A-Z0-9_]*EXPORT[A-Z0-9_]*)\s*\(\s*([A-Za-z0-9_$]+)", l)
        if m:
            named_by[m.group(2)].add(m.group(1))
    agree, differ, alt, missing = 0, [], [], collections.Counter()
    rows = 0
    for line in open(E["SYMVERS"]):
        f = line.rstrip("\n").split("\t")
        if len(f) < 5:
            continue
        rows += 1
        sym, mod, typ, ns = f[1], f[2], f[3], f[4]
        gpl = typ == "EXPORT_SYMBOL_GPL"
        cand = [r for r in by_sym.get(sym, []) if relevant(r["path"])]
        if not cand:
            macs = named_by.get(sym, set()) - std
            if sym.startswith(("__tracepoint_", "__traceiter_", "__SCK__tp_func_", "__SCT__tp_func_")):
                missing["tracepoint symbols (EXPORT_TRACEPOINT_SYMBOL[_GPL] makes __tracepoint_, __traceiter_, __SCK__tp_func_, __SCT__tp_func_)"] += 1
            elif sym.startswith(("__SCK__", "__SCT__")):
                missing["static calls (EXPORT_STATIC_CALL*)"] += 1
            elif macs:
                missing["exported through " + " / ".join(sorted(macs))] += 1
            elif by_sym.get(sym):
                missing["only in files of other architectures, tools or samples"] += 1
            else:
                missing["names made by the preprocessor (token pasting in a macro body, a renaming #define)"] += 1
            continue
        good = [r for r in cand if r["gpl_only"] == gpl and r["namespace"] == ns]
        if not good:
            differ.append("%s %s ns=%r; sources: %s" % (sym, typ, ns, "; ".join(
                "%s:%d %s ns=%r" % (r["path"], r["line"], r["macro"], r["namespace"]) for r in cand)))
        else:
            agree += 1
            if len(good) != len(cand):
                alt.append("%s (%s%s): also %s" % (sym, typ, " ns=" + ns if ns else "", "; ".join(
                    "%s:%d %s" % (r["path"], r["line"], r["macro"]) for r in cand if r not in good)))
    found = agree + len(differ)
    print("# Module.symvers: %d symbols; %d with a record in the sources: %d agree (%.2f%%), %d differ"
          % (rows, found, agree, 100.0 * agree / max(found, 1), len(differ)))
    print("# symbols whose sources export them both ways, by configuration (one way agrees): %d" % len(alt))
    for a in alt: print("#   %s" % a)
    print("# symbols without a record (%d):" % sum(missing.values()))
    for k, n in sorted(missing.items(), key=lambda x: -x[1])[:25]:
        print("#   %6d  %s" % (n, k))
    if differ:
        fail(names[2], *differ[:20])
    else:
        ok(names[2], "  # %d of %d agree" % (agree, found))

# 3. speed
tk, tg, tr = float(E["T_KSC"]), float(E["T_GREP"]), E.get("T_RG") or ""
print("# best of three, warm cache: ksymcheck src scan %.3f s, grep -rn %.3f s%s"
      % (tk, tg, (", rg -n %.3f s" % float(tr)) if tr else " (rg not installed)"))
if tk <= tg:
    ok(names[3], "  # %.1fx faster than grep -rn" % (tg / tk))
else:
    fail(names[3], "src scan %.3f s, grep -rn %.3f s" % (tk, tg))
EOF
