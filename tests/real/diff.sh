#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ksymcheck diff` across Debian's real kernels, with trixie's 6.12 as the reference from
# before module-restricted exports (6.16) and sid's 7.2 and experimental's 7.3 after:
#  1. diff 6.12 -> 7.2 of the two unpacked roots (read through tree's index, as a user
#     runs it) must list exactly the changes computed here, independently, from the two
#     linux-headers packages' Module.symvers (written by each kernel's modpost): a symbol
#     only in one is removed or added; in both, its owner (module names compared with `-`
#     and `_` alike, as the kernel does), GPL-only flag and namespace are compared, and a
#     namespace that becomes `module:...` is a new restriction. CRCs are not compared: 7.2
#     has MODVERSIONS off.
#  2. The same two Module.symvers files given as files yield the same changes as the roots
#     (CRCs aside: a root's 7.2 modules have none, its Module.symvers says 0x00000000).
#  3. diff 7.2 -> 7.3 of the roots, against the same computation (7.3 restricts a few
#     more exports: binfmt_misc, nfsd, cxl_core, vmw_vsock_virtio_transport_common).
# Real kernels: sid
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
REAL_TESTS=("diff 6.12 -> 7.2: every change as the two Module.symvers say"
	"diff 6.12 -> 7.2: the Module.symvers files give the roots' changes"
	"diff 7.2 -> 7.3: every change as the two Module.symvers say")
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"
export LC_ALL=C

# other SUITE: the unpacked root of that suite's kernel, or a SKIP of every test.
other() {
	local dir rc=0
	dir=$("$TOP/scripts/fetch-debian-suite.sh" "$1" 2> "$T_TMP/fetch-$1.err") || rc=$?
	if [ $rc -eq 3 ]; then
		real_skip_all "no Debian kernel packages for $1 ($(tail -n 1 "$T_TMP/fetch-$1.err"))"
	elif [ $rc -ne 0 ] || [ ! -d "$dir" ]; then
		real_fail_all "fetch-debian-suite.sh $1 failed (status $rc)"
	fi
	echo "$dir"
}
symvers_of() { # ROOT: the Module.symvers of its headers package
	find "$1/usr/src" -mindepth 2 -maxdepth 2 -name Module.symvers | sort | tail -n 1
}
OLD=$(other trixie) || exit 0
NEW3=$(other experimental) || exit 0
OLD_SYMVERS=$(symvers_of "$OLD") NEW3_SYMVERS=$(symvers_of "$NEW3")

# expect OLD_SYMVERS NEW_SYMVERS DIFF_JSON: compares the JSON's changes with what the two
# files say; prints "ok" or the differences, and a comment line with the counts.
expect() {
	python3 - "$@" <<'PY'
import collections, json, sys

def load(path):
    table = {}
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        f = line.rstrip("\n").split("\t")
        if len(f) < 4:
            continue
        owner = f[2].rsplit("/", 1)[-1].replace("-", "_")
        table.setdefault(f[1], (owner, f[3].endswith("_GPL"), f[4] if len(f) > 4 else ""))
    return table

old, new = load(sys.argv[1]), load(sys.argv[2])
restricted = lambda ns: ns.startswith("module:")
want = {(s, "removed") for s in old.keys() - new.keys()}
want |= {(s, "added") for s in new.keys() - old.keys()}
for s in old.keys() & new.keys():
    (om, og, on), (nm, ng, nn) = old[s], new[s]
    if om != nm:
        want.add((s, "owner-changed"))
    if og != ng:
        want.add((s, "became-gpl-only" if ng else "no-longer-gpl-only"))
    if on == nn:
        continue
    if restricted(nn):
        kind = "restriction-changed" if restricted(on) else "became-module-restricted"
    elif restricted(on):
        kind = "restriction-lifted"
    else:
        kind = "namespace-gained" if not on else "namespace-lost" if not nn else "namespace-changed"
    want.add((s, kind))
got = [(c["symbol"], c["kind"]) for c in json.load(open(sys.argv[3]))["changes"]]
bad = ["missing %s %s" % x for x in sorted(want - set(got))]
bad += ["extra %s %s" % x for x in sorted(set(got) - want)]
bad += ["twice %s %s" % x for x, n in collections.Counter(got).items() if n > 1]
print("ok" if not bad else "\n".join(bad[:20]))
kinds = collections.Counter(k for _, k in want)
print("# %d changes, of them %s" % (len(want), ", ".join(
    "%s %d" % (k, kinds[k]) for k in ("removed", "added", "owner-changed",
                                       "became-module-restricted", "namespace-gained"))))
PY
}

# check NAME OLD NEW OLD_SYMVERS NEW_SYMVERS: diff --json OLD NEW must exit 1 (changes)
# and list what the files say.
check() {
	local t0 rc=0 verdict
	t0=$(real_now)
	"$KSC" diff --json "$2" "$3" > "$T_TMP/diff.json" 2> "$T_TMP/diff.err" || rc=$?
	echo "# ksymcheck diff ${2##*/} ${3##*/}: exit $rc, $(real_elapsed "$t0") s"
	if [ $rc -ne 1 ]; then
		t_fail "$1" "exit status $rc, expected 1" "$(head -c 600 "$T_TMP/diff.err")"
		return
	fi
	expect "$4" "$5" "$T_TMP/diff.json" > "$T_TMP/verdict"
	grep '^#' "$T_TMP/verdict"
	verdict=$(grep -v '^#' "$T_TMP/verdict")
	if [ "$verdict" = ok ]; then t_ok "$1"; else t_fail "$1" "$verdict"; fi
}

check "${REAL_TESTS[0]}" "$OLD" "$KDIR" "$OLD_SYMVERS" "$SYMVERS"
cp "$T_TMP/diff.json" "$T_TMP/roots.json"

rc=0
"$KSC" diff --json "$OLD_SYMVERS" "$SYMVERS" > "$T_TMP/files.json" 2> "$T_TMP/files.err" || rc=$?
# changes FILE: the JSON's changes without their CRCs: with MODVERSIONS off a root's
# modules carry none (null) where Module.symvers writes 0x00000000.
changes() {
	python3 - "$1" <<'PY'
import json, sys
changes = json.load(open(sys.argv[1]))["changes"]
for c in changes:
    for side in ("old", "new"):
        if c[side]:
            c[side].pop("crc", None)
print(json.dumps(changes, indent=0, sort_keys=True))
PY
}
if [ $rc -eq 1 ]; then
	changes "$T_TMP/roots.json" > "$T_TMP/roots.changes"
	changes "$T_TMP/files.json" > "$T_TMP/files.changes"
	t_diff "${REAL_TESTS[1]}" "$T_TMP/roots.changes" "$T_TMP/files.changes"
else
	t_fail "${REAL_TESTS[1]}" "exit status $rc, expected 1" "$(head -c 600 "$T_TMP/files.err")"
fi

check "${REAL_TESTS[2]}" "$KDIR" "$NEW3" "$SYMVERS" "$NEW3_SYMVERS"
