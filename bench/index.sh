#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The tree index of a real kernel (Debian's, as scripts/real-env.sh finds it; by default
# sid: 7.2, 4,216 .ko.xz) answering for one module, and the cold tree read that writes it:
#   lookup   ksc_kidx_map() + ksc_kidx_find() (kidx-probe): the header and the lookup
#            table read, one record read and checked
#   full     ksc_kidx_read() + ksc_kidx_fetch_all() (kidx-probe --full): the whole index
#            read and every record checked, then the name searched (the way before)
#   cold     ksymcheck tree -k ROOT --no-index -q: every module read (and its signature's
#            digest made as it is read)
# Prints the median wall-clock and CPU time of each and the ratio full/lookup.
#
# Usage: bench/index.sh [--runs N] [--module NAME] [--cold-runs N]
#   --runs N       timed runs of the lookups (default 9)
#   --module NAME  the kmod name looked up (default kvm_amd)
#   --cold-runs N  timed runs of the cold tree read (default 3; 0 skips it)
# Environment: TOOL (default build/ksymcheck), BUILD (default build: its
# tests/helpers/kidx-probe), KSC_REAL_KERNEL.
set -euo pipefail

runs=9 cold_runs=3 name=kvm_amd
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?--runs needs a number}; shift 2 ;;
	--cold-runs) cold_runs=${2:?--cold-runs needs a number}; shift 2 ;;
	--module) name=${2:?--module needs a name}; shift 2 ;;
	-h|--help) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "index.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
for n in "$runs" "$cold_runs"; do
	case $n in '' | *[!0-9]*) echo "index.sh: --runs needs a number" >&2; exit 2 ;; esac
done

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
KSC=${TOOL:-build/ksymcheck}
case $KSC in /*) ;; *) KSC=$TOP/$KSC ;; esac
PROBE=$TOP/${BUILD:-build}/tests/helpers/kidx-probe
[ -x "$PROBE" ] || { echo "index.sh: $PROBE missing (make ${BUILD:-build}/tests/helpers/kidx-probe)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "index.sh: python3 is needed" >&2; exit 1; }
export KSC_REAL_KERNEL=${KSC_REAL_KERNEL:-sid}

REAL_TESTS=("bench/index")
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/ksc-bench-index.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/xdg # an index of this run's own
idx=$work/tree.idx
"$KSC" tree -k "$KDIR" --index "$idx" -q > /dev/null 2>&1 || [ -s "$idx" ] ||
	{ echo "index.sh: no index written" >&2; exit 1; }

echo "kernel: $REAL_LABEL ($KVER); index $(stat -c %s "$idx") bytes; module: $name"
PYTHONPATH=$TOP/bench python3 - "$runs" "$cold_runs" "$PROBE" "$idx" "$name" "$KSC" "$KDIR" <<'PY'
import sys
import timing

runs, cold_runs = int(sys.argv[1]), int(sys.argv[2])
probe, idx, name, ksc, kdir = sys.argv[3:8]

def timed(cmd, n):
    return timing.timed("index.sh", cmd, n)

rows = [("lookup: map + find", timed([probe, idx, name], runs)),
        ("full: read + fetch all + search", timed([probe, "--full", idx, name], runs))]
if cold_runs:
    rows.append(("cold: tree --no-index -q", timed([ksc, "tree", "-k", kdir, "--no-index", "-q"],
                                                   cold_runs)))
same = rows[0][1][2] == rows[1][1][2]
print("  %-36s %10s %10s" % ("command", "median s", "cpu s"))
for label, (w, c, _) in rows:
    print("  %-36s %10.4f %10.4f" % (label, w, c))
print("same answer: %s" % ("yes" if same else "NO"))
print("ratio full/lookup: %.1f" % (rows[1][1][0] / rows[0][1][0]))
sys.exit(0 if same else 1)
PY
