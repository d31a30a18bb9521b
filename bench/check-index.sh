#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One module checked against an installed kernel tree, through the index `tree` keeps
# and without it, beside kmod's tools, in one run (Debian's real kernel, fetched and
# cached by the scripts real-env.sh names; KSC_REAL_KERNEL, default sid: 7.2, .ko.xz):
#   cold   check -k ROOT MODULE with KSYMCHECK_NO_INDEX=1: every module of the tree read
#   first  the same through the index, none there yet: every module read, index written
#   warm   the same again: the index is current, nothing read again
#   tree   ksymcheck tree -k ROOT -q, warm (the index the checks share)
#   kmod   modinfo MODULE (one file read), and modprobe --dry-run of the module's name on
#          a hard-linked copy of the tree that depmod indexed once (not timed)
# Prints the median wall-clock and CPU (user + system) time of each, and the ratios
# warm/cold, warm/tree, warm/modinfo and warm/modprobe.
#
# Usage: bench/check-index.sh [--runs N] [--module NAME]
#   --runs N       timed runs of each warm command (default 7; cold and first run once)
#   --module NAME  the module's file name without extension (default kvm-amd)
# Environment: TOOL (default build/ksymcheck), KSC_CACHE, KSC_REAL_KERNEL.
set -euo pipefail

runs=7 name=kvm-amd
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?--runs needs a number}; shift 2 ;;
	--module) name=${2:?--module needs a name}; shift 2 ;;
	-h|--help) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "check-index.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]*) echo "check-index.sh: --runs needs a number" >&2; exit 2 ;; esac

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
KSC=${TOOL:-build/ksymcheck}
case $KSC in /*) ;; *) KSC=$TOP/$KSC ;; esac
command -v python3 > /dev/null || { echo "check-index.sh: python3 is needed" >&2; exit 1; }
export KSC_REAL_KERNEL=${KSC_REAL_KERNEL:-sid}

REAL_TESTS=("bench/check-index")
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/ksc-bench-index.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/xdg # an index of this run's own

mod=$(find "$MODDIR" -name "$name.ko*" | sort | head -n 1)
[ -n "$mod" ] || { echo "check-index.sh: no $name.ko* in $MODDIR" >&2; exit 1; }
modname=$(basename "$mod" | sed 's/\.ko.*$//; s/-/_/g')

# kmod's modprobe needs modules.dep: a hard-linked copy of the tree, indexed once.
probe=()
if [ -n "${KMOD_DEPMOD:-}" ] && [ -n "${KMOD_MODPROBE:-}" ]; then
	dst=$work/root/lib/modules/$KVER
	mkdir -p "$dst"
	cp -al "$MODDIR/kernel" "$dst/" 2> /dev/null || cp -a "$MODDIR/kernel" "$dst/"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -f "$MODDIR/$f" ] && cp "$MODDIR/$f" "$dst/"
	done
	if "$KMOD_DEPMOD" -b "$work/root" "$KVER" 2> /dev/null; then
		probe=("$KMOD_MODPROBE" -d "$work/root" -S "$KVER" --dry-run "$modname")
	fi
fi

echo "kernel: $REAL_LABEL ($KVER), $(find "$MODDIR" -name '*.ko*' | wc -l) modules; module: ${mod#"$MODDIR"/}"
PYTHONPATH=$TOP/bench python3 - "$runs" "$KSC" "$KDIR" "$mod" "${KMOD_MODINFO:-}" "${probe[@]}" <<'PY'
import sys
import timing

runs = int(sys.argv[1])
ksc, kdir, mod, modinfo = sys.argv[2:6]
probe = sys.argv[6:]
check = [ksc, "check", "-k", kdir, mod]

def timed(cmd, n, env=None):
    return timing.timed("check-index.sh", cmd, n, lambda i: env)

rows = []
cold = timed(check, 1, {"KSYMCHECK_NO_INDEX": "1"})
rows.append(("cold: check, KSYMCHECK_NO_INDEX=1", cold))
first = timed(check, 1)
rows.append(("first: check, index written", first))
warm = timed(check, runs)
rows.append(("warm: check, index current", warm))
tree = timed([ksc, "tree", "-k", kdir, "-q"], runs)
rows.append(("tree -q, index current", tree))
if modinfo:
    rows.append(("kmod modinfo MODULE", timed([modinfo, mod], runs)))
if probe:
    rows.append(("kmod modprobe --dry-run NAME", timed(probe, runs)))
same = cold[2] == first[2] == warm[2]

print("  %-36s %10s %10s" % ("command", "median s", "cpu s"))
for label, (w, c, _) in rows:
    print("  %-36s %10.3f %10.3f" % (label, w, c))
print("output with and without the index: %s" % ("identical" if same else "DIFFERENT"))
print("ratio warm/cold: %.4f (%.0fx faster)" % (warm[0] / cold[0], cold[0] / warm[0]))
print("ratio first/cold: %.2f" % (first[0] / cold[0]))
print("ratio warm/tree: %.2f" % (warm[0] / tree[0]))
for label, (w, c, _) in rows[4:]:
    print("ratio warm/%s: %.2f" % (label.split(" ", 1)[1].split(" ")[0], warm[0] / w))
sys.exit(0 if same else 1)
PY
