#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ksymcheck tree` against kmod's `depmod -b` on Debian's real 6.1 tree (fetched and
# cached by scripts/fetch-debian-kernel.sh), in one run:
#   cold  ksymcheck tree with no index: reads all 4023 modules, resolves, judges every
#         module, writes modules.dep/.symbols/.alias/.softdep/.devname and the index;
#   depmod -b ROOT KVER on a hard-linked copy of the same tree (it writes its files into it)
#   warm  the same ksymcheck command again after `touch` of one module (index used).
# Prints medians, peak RSS, the ratios depmod/cold and warm/cold, and where the cold
# run's time went (read, decompress, parse, resolve, check) from its --json summary.
#
# Usage: bench/tree.sh [--runs N] [--jobs N] [--xz]
#   --runs N   timed runs per command (default 5, after one untimed warm-up run each)
#   --jobs N   ksymcheck's -j (default 2: the targets are for 2 cores)
#   --xz       also the xz-compressed copy of the tree (made once, cached)
# Environment: TOOL (default build/ksymcheck), KSC_CACHE.
set -euo pipefail

runs=5 jobs=2 xz=0
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?--runs needs a number}; shift 2 ;;
	--jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
	--xz) xz=1; shift ;;
	-h|--help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "tree.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
case $runs$jobs in *[!0-9]*) echo "tree.sh: --runs and --jobs need numbers" >&2; exit 2 ;; esac

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
KSC=${TOOL:-build/ksymcheck}
case $KSC in /*) ;; *) KSC=$TOP/$KSC ;; esac
command -v python3 > /dev/null || { echo "tree.sh: python3 is needed" >&2; exit 1; }

REAL_TESTS=("bench/tree")
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/ksc-bench-tree.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A private root (hard links to the cached modules) for depmod, which writes into it.
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
# depmod writes its files into the tree it reads: it gets a tree of its own, so that its
# writes do not change the folder ksymcheck's runs read (a changed folder is walked again).
make_root "$MODDIR" "$work/ko-depmod"
trees=(ko)
if [ $xz -eq 1 ]; then
	xzdir=$KDIR/bench-xz/lib/modules/$KVER
	if [ ! -f "$KDIR/bench-xz/.complete" ]; then
		echo "tree.sh: run bench/read-tree.sh once first to make $KDIR/bench-xz" >&2
		exit 1
	fi
	make_root "$xzdir" "$work/xz"
	make_root "$xzdir" "$work/xz-depmod"
	trees+=(xz)
fi

KSC=$KSC KVER=$KVER DEPMOD=$KMOD_DEPMOD RUNS=$runs JOBS=$jobs WORK=$work SYMVERS=$SYMVERS \
	CONFIG="$KDIR/boot/config-$KVER" TREES="${trees[*]}" python3 - <<'EOF'
import json, os, statistics, subprocess, sys, time

KSC, KVER, DEPMOD = os.environ["KSC"], os.environ["KVER"], os.environ["DEPMOD"]
RUNS, JOBS, WORK = int(os.environ["RUNS"]), os.environ["JOBS"], os.environ["WORK"]
SYMVERS, CONFIG = os.environ["SYMVERS"], os.environ["CONFIG"]

def run_rss(argv, want_out=False):
    t = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE if want_out else subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    out = p.stdout.read() if want_out else b""
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    rc = os.waitstatus_to_exitcode(status)
    if rc not in (0,):
        sys.exit("tree.sh: %s exited with status %d" % (" ".join(argv), rc))
    return wall, ru.ru_maxrss, out

def bench(tree):
    root = os.path.join(WORK, tree)
    moddir = os.path.join(root, "lib/modules", KVER)
    out = os.path.join(WORK, tree + "-out")
    os.makedirs(out, exist_ok=True)
    idx = os.path.join(WORK, tree + ".idx")
    ksc = [KSC, "tree", "-b", root, KVER, "-j", JOBS, "--index", idx, "-E", SYMVERS,
           "--config", CONFIG, "--write-depmod", out, "--quiet"]
    depmod = [DEPMOD, "-b", root + "-depmod", KVER]
    # one module to touch: the first of modules.order
    with open(os.path.join(moddir, "modules.order")) as f:
        first = f.readline().strip()
    if tree != "ko" and not first.endswith(".xz"):
        first = first.replace(".ko", ".ko.xz")
    first = os.path.join(moddir, first)
    def cold():
        if os.path.exists(idx):
            os.unlink(idx)
        return run_rss(ksc)
    def warm():
        os.utime(first)
        return run_rss(ksc)
    cmds = {"cold": cold, "depmod": lambda: run_rss(depmod), "warm": warm}
    for k in ("cold", "depmod"):        # warm-up: page cache, output files exist
        cmds[k]()
    cold()                              # leaves an index for the first warm run
    res = {k: [] for k in cmds}
    for _ in range(RUNS):               # interleaved, so load on the machine hits all alike
        for k in ("depmod", "cold"):
            res[k].append(cmds[k]())
        cold()                          # the warm run after a cold one, as after install
        res["warm"].append(cmds["warm"]())
    med = {k: (statistics.median(w for w, _, _ in v), min(w for w, _, _ in v),
               max(r for _, r, _ in v)) for k, v in res.items()}
    # where the time of a cold run goes
    if os.path.exists(idx):
        os.unlink(idx)
    _, _, js = run_rss(ksc[:-1] + ["--json"], want_out=True)
    t = json.loads(js)["timing"]
    os.utime(first)
    _, _, jw = run_rss(ksc[:-1] + ["--json"], want_out=True)
    w = json.loads(jw)
    nfiles = sum(len(f) for _, _, f in os.walk(os.path.join(moddir, "kernel")))
    print("\n%s tree: %d modules" % ("uncompressed .ko" if tree == "ko" else "xz (.ko.xz)", nfiles))
    print("  %-58s %9s %9s %13s" % ("command", "median s", "min s", "peak RSS MiB"))
    label = {"cold": "ksymcheck tree -j%s (cold: no index) + depmod files" % JOBS,
             "depmod": "depmod -b ROOT %s" % KVER,
             "warm": "ksymcheck tree -j%s (warm: index, 1 module touched)" % JOBS}
    for k in ("cold", "depmod", "warm"):
        print("  %-58s %9.3f %9.3f %13.1f" % (label[k], med[k][0], med[k][1], med[k][2] / 1024))
    sfx = "" if tree == "ko" else " (xz)"
    print("ratio%s depmod/cold: %.2f   (target >= 3; > 1: ksymcheck is faster)" %
          (sfx, med["depmod"][0] / med["cold"][0]))
    # each depmod run and the cold run right after it, as pairs: the machine's speed
    # drifts (a shared host) less within a pair than across the whole run
    pairs = sorted(d[0] / c[0] for d, c in zip(res["depmod"], res["cold"]))
    print("  per pair (depmod run / cold run after it): median %.2f, range %.2f-%.2f" %
          (statistics.median(pairs), pairs[0], pairs[-1]))
    print("ratio%s warm/cold: %.1f%%   (target < 5%%)" % (sfx, 100 * med["warm"][0] / med["cold"][0]))
    print("RSS%s cold/depmod: %.2f   (target <= 1)" % (sfx, med["cold"][2] / med["depmod"][2]))
    print("cold run split (s): total %.3f = walk %.3f + read phase %.3f + kernel exports %.3f"
          " + resolve %.3f + check %.3f; depmod files %.3f, index save %.3f" %
          (t["total"], t["walk"], t["read"], t.get("kernel", 0), t["resolve"], t["check"],
           t["write_depmod"], t["index_save"]))
    print("  in the %s workers (cpu-s summed): read %.3f, decompress %.3f, parse %.3f, check %.3f;"
          " %.1f MiB read, %.1f MiB decompressed" %
          (t["jobs"], t["cpu_read"], t["cpu_decompress"], t["cpu_parse"], t["cpu_check"],
           t["bytes_read"] / 2**20, t["bytes_decompressed"] / 2**20))
    wt = w["timing"]
    print("warm run: %d read, %d from the index; total %.4f = walk %.4f + index load %.4f + read %.4f"
          " + resolve %.4f + check %.4f; depmod files %.4f, index save %.4f" %
          (w["read"], w["cached"], wt["total"], wt["walk"], wt["index_load"], wt["read"],
           wt["resolve"], wt["check"], wt["write_depmod"], wt["index_save"]))

print("tree: kernel %s, %d timed runs per command after a warm-up (warm page cache), "
      "%d CPUs, ksymcheck -j%s" % (KVER, RUNS, os.cpu_count(), JOBS))
print("ksymcheck: %s" % subprocess.run([KSC, "--version"], stdout=subprocess.PIPE,
                                       text=True).stdout.strip())
print("depmod:    %s" % subprocess.run([DEPMOD, "--version"], stdout=subprocess.PIPE,
                                       text=True).stdout.split("\n")[0])
print("load average before: %s" % open("/proc/loadavg").read().strip())
for tree in os.environ["TREES"].split():
    bench(tree)
print("load average after: %s" % open("/proc/loadavg").read().strip())
EOF
