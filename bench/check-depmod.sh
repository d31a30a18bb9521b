#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One module checked against an installed kernel tree from depmod's files (as an
# installed system has them: kmod's depmod runs once, untimed, on a private copy of the
# tree), beside the tree's whole read and kmod's tools, in one run (Debian's real kernel,
# fetched and cached by the scripts real-env.sh names; KSC_REAL_KERNEL, default sid: 7.2):
#   cold     check -k ROOT MODULE, no ksymcheck index (a new XDG_CACHE_HOME each run: the
#            image's built-in keys not kept either)
#   warm     the same, its cache folder kept (the keys kept, the index of the records
#            the cold run read, found by its table by name: depmod's files again, no
#            provider decompressed; the headers' Module.symvers rows kept beside it)
#   whole    KSYMCHECK_NO_DEPMOD=1 KSYMCHECK_NO_INDEX=1: every module of the tree read
#   index    KSYMCHECK_NO_DEPMOD=1: every module, from the index's records, current
#   kmod     modinfo MODULE, and modprobe -d ROOT --show-depends NAME
# Prints the median wall-clock and CPU time of each, whether the outputs are identical,
# and the ratios cold/whole, warm/index, warm/modinfo and warm/modprobe.
#
# Usage: bench/check-depmod.sh [--runs N] [--module NAME]
#   --runs N       timed runs of each command (default 7; whole runs once)
#   --module NAME  the module's file name without extension (default kvm-amd)
# Environment: TOOL (default build/ksymcheck), KSC_CACHE, KSC_REAL_KERNEL.
set -euo pipefail

runs=7 name=kvm-amd
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?--runs needs a number}; shift 2 ;;
	--module) name=${2:?--module needs a name}; shift 2 ;;
	-h|--help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "check-depmod.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]*) echo "check-depmod.sh: --runs needs a number" >&2; exit 2 ;; esac

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
KSC=${TOOL:-build/ksymcheck}
case $KSC in /*) ;; *) KSC=$TOP/$KSC ;; esac
command -v python3 > /dev/null || { echo "check-depmod.sh: python3 is needed" >&2; exit 1; }
export KSC_REAL_KERNEL=${KSC_REAL_KERNEL:-sid}

REAL_TESTS=("bench/check-depmod")
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"
[ -n "${KMOD_DEPMOD:-}" ] || { echo "check-depmod.sh: kmod's depmod is needed" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ksc-bench-depmod.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A copy (not hard links: they would change the cached files' ctime, which the index
# of other runs keys on), with lib/ for kmod before 31, which knows no usr/lib/modules.
root=$work/root
mkdir -p "$root"
for d in boot usr lib; do
	[ -e "$KDIR/$d" ] && cp -a --reflink=auto "$KDIR/$d" "$root/"
done
[ -e "$root/lib" ] || ln -s usr/lib "$root/lib"
"$KMOD_DEPMOD" -b "$root" "$KVER" 2> /dev/null
mdir=$root/lib/modules/$KVER
mod=$(find "$mdir/" -name "$name.ko*" | sort | head -n 1)
[ -n "$mod" ] || { echo "check-depmod.sh: no $name.ko* in $mdir" >&2; exit 1; }
modname=$(basename "$mod" | sed 's/\.ko.*$//; s/-/_/g')

echo "kernel: $REAL_LABEL ($KVER), $(find "$mdir/" -name '*.ko*' | wc -l) modules; module: ${mod#"$mdir"/}"
PYTHONPATH=$TOP/bench python3 - "$runs" "$KSC" "$root" "$KVER" "$mod" "$modname" "$work" "${KMOD_MODINFO:-}" \
	"${KMOD_MODPROBE:-}" <<'PY'
import os, sys
import timing

runs = int(sys.argv[1])
ksc, root, kver, mod, modname, work, modinfo, modprobe = sys.argv[2:10]
check = [ksc, "check", "-k", root, "--kver", kver, mod]

def timed(cmd, n, env=None, xdg="xdg", fresh=False):
    """Each run with XDG_CACHE_HOME xdg (fresh: a new folder for each run)."""
    def env_of(i):
        return dict(env or {}, XDG_CACHE_HOME=os.path.join(work, "%s-%d" % (xdg, i)
                                                          if fresh else xdg))
    return timing.timed("check-depmod.sh", cmd, n, env_of)

off = {"KSYMCHECK_NO_DEPMOD": "1"}
rows = []
whole = timed(check, 1, dict(off, KSYMCHECK_NO_INDEX="1"))
rows.append(("whole: KSYMCHECK_NO_DEPMOD=1 NO_INDEX=1", whole))
timed(check, 1, off, "xdg-index")  # the index, written once
index = timed(check, runs, off, "xdg-index")
rows.append(("index: KSYMCHECK_NO_DEPMOD=1, current", index))
# depmod's files: the cold run keeps the records it read in an index, the warm one uses them
cold = timed(check, runs, xdg="xdg-cold", fresh=True)
rows.append(("cold: depmod's files, no index", cold))
warm = timed(check, runs, xdg="xdg-warm")
rows.append(("warm: depmod's files, again", warm))
if modinfo:
    rows.append(("kmod modinfo MODULE", timed([modinfo, mod], runs)))
if modprobe:
    rows.append(("kmod modprobe --show-depends NAME",
                 timed([modprobe, "-d", root, "-S", kver, "--show-depends", modname], runs)))
same = whole[2] == index[2] == cold[2] == warm[2]

print("  %-42s %10s %10s" % ("command", "median s", "cpu s"))
for label, (w, c, _) in rows:
    print("  %-42s %10.3f %10.3f" % (label, w, c))
print("output of every ksymcheck command: %s" % ("identical" if same else "DIFFERENT"))
print("ratio cold/whole: %.4f (%.0fx faster)" % (cold[0] / whole[0], whole[0] / cold[0]))
print("ratio warm/index: %.2f (depmod's files and the records, against every record)" % (warm[0] / index[0]))
for label, (w, c, _) in rows[4:]:
    print("ratio warm/%s: %.2f" % (label.split(" ")[1], warm[0] / w))
sys.exit(0 if same else 1)
PY
