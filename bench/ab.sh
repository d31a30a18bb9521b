#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Two builds of ksymcheck, A and B (before and after a change), on the same real inputs in
# one run: each command runs once untimed for each build, then --runs times, A and B
# alternating, so that a busy machine slows both alike. Reports, per command, the median
# wall-clock and CPU (user + system) time of each build and B/A; stdout, stderr and exit
# status of A and B must be identical (a difference stops the benchmark).
#
# Usage: bench/ab.sh [--runs N] A_BINARY B_BINARY
#   Kernels: Debian's 6.1 and sid's 7.2 (scripts/fetch-debian-kernel.sh, as check-real),
#   and sid's linux-source-7.2 for src scan; a kernel that is not cached is skipped. Each
#   build gets its own XDG_CACHE_HOME, so that their tree indexes do not meet.
set -euo pipefail

runs=5
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?--runs needs a number}; shift 2 ;;
	-h|--help) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "ab.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || { echo "ab.sh: two binaries needed, A and B (try --help)" >&2; exit 2; }
case $runs in '' | *[!0-9]*) echo "ab.sh: --runs needs a number" >&2; exit 2 ;; esac
A=$(realpath "$1") B=$(realpath "$2")

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
CACHE=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}
work=$(mktemp -d "${TMPDIR:-/tmp}/ksc-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT

# name <TAB> arguments (one per TAB), for each kernel that is there
cmds=$work/cmds
: > "$cmds"
add() { local IFS=$'\t'; echo "$*" >> "$cmds"; }
r61=$CACHE/debian-6.1
k61=$(ls "$r61/lib/modules" 2> /dev/null | head -n 1 || true)
if [ -n "$k61" ]; then
	add "6.1 tree, no index" tree -q --no-index -k "$r61" "$k61"
	add "6.1 tree, warm index" tree -q -k "$r61" "$k61"
	add "6.1 exports, kernel/" exports --format symvers "$r61/lib/modules/$k61/kernel"
	m=$(find "$r61/lib/modules/$k61/kernel/arch/x86/kvm" -name 'kvm-amd.ko*' | head -n 1)
	[ -n "$m" ] && add "6.1 check kvm-amd, warm" check -k "$r61" "$m"
fi
r72=$CACHE/debian-7.2.13+deb14-amd64
k72=$(ls "$r72/usr/lib/modules" 2> /dev/null | head -n 1 || true)
if [ -n "$k72" ]; then
	add "7.2 tree, no index" tree -q --no-index -k "$r72" "$k72"
	add "7.2 tree, warm index" tree -q -k "$r72" "$k72"
	m=$(find "$r72/usr/lib/modules/$k72/kernel/arch/x86/kvm" -name 'kvm-amd.ko*' | head -n 1)
	[ -n "$m" ] && add "7.2 check kvm-amd, warm" check -k "$r72" "$m"
fi
src=$(ls -d "$CACHE"/debian-7.2-source-*/linux-source-7.2 2> /dev/null | head -n 1 || true)
[ -n "$src" ] && add "7.2 src scan" src scan "$src"
[ -s "$cmds" ] || { echo "ok - bench/ab # SKIP no real kernel cached (make check-real fetches them)"; exit 0; }

A=$A B=$B RUNS=$runs WORK=$work CMDS=$cmds python3 - <<'EOF'
import os, resource, statistics, subprocess, sys, time

A, B, runs, work = os.environ["A"], os.environ["B"], int(os.environ["RUNS"]), os.environ["WORK"]
cmds = [l.rstrip("\n").split("\t") for l in open(os.environ["CMDS"])]


def run(binary, args, tag):
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, tag))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    p = subprocess.run([binary] + args, env=env, capture_output=True)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, (p.returncode, p.stdout, p.stderr.replace(binary.encode(), b"KSC"))


print("%-26s %9s %9s %6s %9s %9s %6s" % ("command", "A wall", "B wall", "B/A",
                                          "A cpu", "B cpu", "B/A"))
for name, *args in cmds:
    _, _, oa = run(A, args, "a")
    _, _, ob = run(B, args, "b")
    if oa != ob:
        sys.exit("ab.sh: %s: A and B differ (exit %d and %d)" % (name, oa[0], ob[0]))
    t = {"a": [], "b": []}
    for _ in range(runs):
        for tag, binary in (("a", A), ("b", B)):
            wall, cpu, _ = run(binary, args, tag)
            t[tag].append((wall, cpu))
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for k, v in t.items()}
    (aw, ac), (bw, bc) = med["a"], med["b"]
    print("%-26s %9.3f %9.3f %6.2f %9.3f %9.3f %6.2f" % (name, aw, bw, bw / aw, ac, bc,
                                                       bc / ac if ac else 0))
print("outputs identical: %d of %d commands (stdout, stderr, exit status)" % (len(cmds),
                                                                             len(cmds)))
EOF
