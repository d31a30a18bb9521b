#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Read a whole real module tree (Debian 6.1, fetched and cached by
# scripts/fetch-debian-kernel.sh) with ksymcheck and with kmod's depmod, and compare.
# See bench/README.md.
#
# Usage: bench/read-tree.sh [--runs N] [--no-xz]
#   --runs N   timed runs per command (default 3; one untimed warm-up run comes first)
#   --no-xz    skip the xz-compressed copy of the tree
# Environment: TOOL (default build/ksymcheck, relative to the top folder), KSC_CACHE.
set -euo pipefail

runs=3 xz=1
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?--runs needs a number}; shift 2 ;;
	--runs=*) runs=${1#--runs=}; shift ;;
	--no-xz) xz=0; shift ;;
	-h|--help) sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "read-tree.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) echo "read-tree.sh: --runs needs a positive number" >&2; exit 2 ;; esac

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
KSC=${TOOL:-build/ksymcheck}
case $KSC in /*) ;; *) KSC=$TOP/$KSC ;; esac
command -v python3 > /dev/null || { echo "read-tree.sh: python3 is needed" >&2; exit 1; }

# Fetch/extract as the real tests do; with no packages this prints a SKIP line and exits 0.
REAL_TESTS=("bench/read-tree")
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/ksc-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# depmod writes its index files into lib/modules/<ver>/: give it a private root whose
# module files are hard links (or copies, across file systems) of the cached ones.
make_root() { # $1 source lib/modules/<ver> folder, $2 new root
	local dst=$2/lib/modules/$KVER f
	mkdir -p "$dst"
	cp -al "$1/kernel" "$dst/" 2> /dev/null || cp -a "$1/kernel" "$dst/"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -f "$1/$f" ] && cp "$1/$f" "$dst/"
	done
	return 0
}
make_root "$MODDIR" "$work/ko"

if [ $xz -eq 1 ]; then
	# The xz copy is made once and cached next to the packages, compressed as the
	# kernel's Makefile.modinst does (xz --check=crc32 --lzma2=dict=1MiB).
	xzdir=$KDIR/bench-xz/lib/modules/$KVER
	if [ ! -f "$KDIR/bench-xz/.complete" ]; then
		command -v xz > /dev/null || { echo "read-tree.sh: xz is needed for the xz tree (or --no-xz)" >&2; exit 1; }
		echo "read-tree.sh: making the xz-compressed copy of the tree in $KDIR/bench-xz (once)" >&2
		rm -rf "$KDIR/bench-xz"
		mkdir -p "$xzdir"
		# shellcheck disable=SC2016 # expanded by the inner sh
		(cd "$MODDIR" && find kernel -type f -name '*.ko' -print0) |
			MODDIR=$MODDIR XZDIR=$xzdir xargs -0 -r -n 64 -P "$(nproc)" sh -c '
				for f; do
					mkdir -p "$XZDIR/$(dirname "$f")"
					xz -c --check=crc32 --lzma2=dict=1MiB "$MODDIR/$f" > "$XZDIR/$f.xz" || exit 255
				done' sh
		sed 's/\.ko$/.ko.xz/' "$MODDIR/modules.order" > "$xzdir/modules.order"
		for f in modules.builtin modules.builtin.modinfo; do
			[ -f "$MODDIR/$f" ] && cp "$MODDIR/$f" "$xzdir/"
		done
		touch "$KDIR/bench-xz/.complete"
	fi
	make_root "$xzdir" "$work/xz"
fi

KSC=$KSC KVER=$KVER DEPMOD=$KMOD_DEPMOD RUNS=$runs WORK=$work XZ=$xz python3 - <<'EOF'
import os, statistics, subprocess, sys, time

KSC, KVER, DEPMOD = os.environ["KSC"], os.environ["KVER"], os.environ["DEPMOD"]
RUNS, WORK, XZ = int(os.environ["RUNS"]), os.environ["WORK"], os.environ["XZ"] == "1"

def run(argv):
    """Wall-clock seconds and peak RSS (KiB, from wait4) of one run; stdout discarded."""
    t = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("read-tree.sh: %s exited with status %d: %s"
                 % (" ".join(argv), p.returncode, err.decode(errors="replace")[:500]))
    return wall, ru.ru_maxrss

def bench(tree):
    root = os.path.join(WORK, tree)
    kdir = os.path.join(root, "lib/modules", KVER, "kernel")
    nfiles = sum(len(f) for _, _, f in os.walk(kdir))
    nbytes = sum(os.path.getsize(os.path.join(d, x)) for d, _, f in os.walk(kdir) for x in f)
    cmds = {
        "exports": [KSC, "exports", "--format", "symvers", kdir],
        "imports": [KSC, "imports", "--format", "json", kdir],
        "depmod": [DEPMOD, "-b", root, KVER],
    }
    res = {k: [] for k in cmds}
    for k, argv in cmds.items():       # warm-up: page cache, and depmod's first write
        run(argv)
    for _ in range(RUNS):              # interleaved, so drift hits every command alike
        for k, argv in cmds.items():
            res[k].append(run(argv))
    res["both"] = [(e[0] + i[0], max(e[1], i[1])) for e, i in zip(res["exports"], res["imports"])]
    med = {k: (statistics.median(w for w, _ in v), max(r for _, r in v)) for k, v in res.items()}
    label = {"exports": "ksymcheck exports --format symvers kernel/",
             "imports": "ksymcheck imports --format json kernel/",
             "both": "ksymcheck exports + imports (sum)",
             "depmod": "depmod -b ROOT %s" % KVER}
    print("\n%s tree: %d files, %.0f MiB" % ("uncompressed .ko" if tree == "ko" else "xz (.ko.xz)",
                                             nfiles, nbytes / 2**20))
    print("  %-44s %9s %9s %14s" % ("command", "median s", "min s", "peak RSS MiB"))
    for k in ("exports", "imports", "both", "depmod"):
        print("  %-44s %9.3f %9.3f %14.1f" % (label[k], med[k][0], min(w for w, _ in res[k]),
                                             med[k][1] / 1024))
    suffix = "" if tree == "ko" else " (xz)"
    print("ratio%s: %.2f   (depmod / ksymcheck exports + imports; > 1: ksymcheck is faster)"
          % (suffix, med["depmod"][0] / med["both"][0]))
    print("ratio%s, exports pass only: %.2f   (depmod / ksymcheck exports)"
          % (suffix, med["depmod"][0] / med["exports"][0]))

print("read-tree: kernel %s, %d timed runs per command after one warm-up run (warm page "
      "cache), %d CPUs; peak RSS is the largest of the runs" % (KVER, RUNS, os.cpu_count()))
print("ksymcheck: %s" % subprocess.run([KSC, "--version"], stdout=subprocess.PIPE,
                                       text=True).stdout.strip())
print("depmod:    %s" % subprocess.run([DEPMOD, "--version"], stdout=subprocess.PIPE,
                                       text=True).stdout.split("\n")[0])
bench("ko")
if XZ:
    bench("xz")
EOF
