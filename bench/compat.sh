#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ksymcheck compat` of one module against four kernels (Debian's 6.1, trixie's 6.12,
# sid's 7.2, experimental's 7.3, as check-real caches them) beside four `ksymcheck check`
# runs of the same module, one per kernel, in one run, with the indexes of the trees
# current (each command runs once untimed first):
#   compat, cold    --no-cache: every kernel's BTF and headers read
#   compat          the cache of what the types and headers gave, current
#   4 x check       one process per kernel, in a row (a shell loop)
# Prints the median wall-clock and CPU (user + system) time of each, and the ratios
# compat / 4 x check and compat / cold; the outputs of compat with and without its cache
# must be identical (a difference fails the benchmark).
#
# Usage: bench/compat.sh [--runs N] [MODULE]
#   MODULE  default: v4l2loopback.ko as tests/real/compat-dkms.sh built it for trixie's
#           6.12 (scripts/dkms-build.sh's cache), else a 6.12 module of the trixie tree
# Environment: TOOL (default build/ksymcheck), KSC_CACHE.
set -euo pipefail

runs=7
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?--runs needs a number}; shift 2 ;;
	-h|--help) sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "compat.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
case $runs in '' | *[!0-9]*) echo "compat.sh: --runs needs a number" >&2; exit 2 ;; esac

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
KSC=${TOOL:-build/ksymcheck}
case $KSC in /*) ;; *) KSC=$TOP/$KSC ;; esac
CACHE=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}
command -v python3 > /dev/null || { echo "compat.sh: python3 is needed" >&2; exit 1; }

kernels=()
for k in 6.1 trixie sid experimental; do
	case $k in
	6.1) d=$(find "$CACHE" -maxdepth 1 -name 'debian-6.1-[0-9]*' | sort | head -n 1) ;;
	*) d=$(readlink -f "$CACHE/debian-$k" 2> /dev/null || true) ;;
	esac
	if [ -z "$d" ] || [ ! -d "$d" ]; then
		echo "ok - bench/compat # SKIP no cached Debian kernel $k (make check-real fetches it)"
		exit 0
	fi
	kernels+=("$d")
done
mod=${1:-}
if [ -z "$mod" ]; then
	mod=$(find "$CACHE/dkms-builds" -path '*dkms-trixie-root-*/v4l2loopback-dkms_*/modules/v4l2loopback.ko' 2> /dev/null |
		sort | tail -n 1)
	[ -n "$mod" ] || mod=$(find "${kernels[1]}" -name 'snd-aloop.ko*' | head -n 1)
fi
[ -f "$mod" ] || { echo "compat.sh: no module $mod" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ksc-bench-compat.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/xdg # indexes and the compat cache of this run's own
echo "module: $mod"
echo "kernels: ${kernels[*]##*/}"
PYTHONPATH=$TOP/bench python3 - "$runs" "$KSC" "$mod" "${kernels[@]}" << 'PY'
import sys
import timing

runs = int(sys.argv[1])
ksc, mod = sys.argv[2:4]
kernels = sys.argv[4:]
compat = [ksc, "compat"] + [a for k in kernels for a in ("-k", k)] + [mod]
checks = ["sh", "-c", 'for k in "$@"; do "$0" check -k "$k" "$MOD" > /dev/null; done',
          ksc] + kernels

def timed(cmd, n, env=None):
    return timing.timed("compat.sh", cmd, n, lambda i: env)

# indexes of the four trees written, the compat cache filled: not timed
timed(checks, 1, {"MOD": mod})
timed(compat, 1)
rows = [("compat, cold (--no-cache)", timed(compat[:2] + ["--no-cache"] + compat[2:], runs)),
        ("compat, cache current", timed(compat, runs)),
        ("4 x check, one per kernel", timed(checks, runs, {"MOD": mod}))]
print("  %-32s %10s %10s" % ("command", "median s", "cpu s"))
for label, (w, c, _) in rows:
    print("  %-32s %10.3f %10.3f" % (label, w, c))
same = rows[0][1][2] == rows[1][1][2]
print("compat output with and without its cache: %s" % ("identical" if same else "DIFFERENT"))
print("ratio compat / 4 x check: %.2f" % (rows[1][1][0] / rows[2][1][0]))
print("ratio compat / compat cold: %.2f" % (rows[1][1][0] / rows[0][1][0]))
sys.exit(0 if same else 1)
PY
