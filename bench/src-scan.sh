#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ksymcheck src scan` against grep -rn and ripgrep on Debian's real kernel source tree
# (linux-source-6.1, fetched and cached by scripts/fetch-debian-source.sh), in one run,
# warm page cache, the commands interleaved.
#
# Usage: bench/src-scan.sh [--runs N]
#   --runs N   timed runs per command (default 5; one untimed warm-up run comes first)
# Environment: TOOL (default build/ksymcheck, relative to the top folder), KSC_CACHE.
# ripgrep (Debian package ripgrep) is installed with apt-get when it is missing and that
# is possible; without it the ripgrep rows are left out (and the reason printed).
#
# What each command reads: ksymcheck only the .c, .h and .S files and the Kbuild/Makefile
# files (it lexes those that contain a keyword), grep and rg every file. rg runs twice:
# as a user would run it (it skips what .gitignore lists, hidden files and binaries) and
# with --no-ignore --hidden, which searches the same files as grep -rn.
set -euo pipefail

runs=5
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?--runs needs a number}; shift 2 ;;
	--runs=*) runs=${1#--runs=}; shift ;;
	-h|--help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "src-scan.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) echo "src-scan.sh: --runs needs a positive number" >&2; exit 2 ;; esac

TOP=$(cd "$(dirname "$0")/.." && pwd)
KSC=${TOOL:-build/ksymcheck}
case $KSC in /*) ;; *) KSC=$TOP/$KSC ;; esac
[ -x "$KSC" ] || { echo "src-scan.sh: $KSC is not built (make)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "src-scan.sh: python3 is needed" >&2; exit 1; }

rc=0
SRC=$("$TOP/scripts/fetch-debian-source.sh" 2> /tmp/ksc-src-bench.$$) || rc=$?
if [ $rc -eq 3 ]; then
	echo "ok - bench/src-scan # SKIP no Debian kernel source ($(tail -n 1 /tmp/ksc-src-bench.$$))"
	rm -f /tmp/ksc-src-bench.$$
	exit 0
fi
rm -f /tmp/ksc-src-bench.$$
[ $rc -eq 0 ] || { echo "src-scan.sh: fetch-debian-source.sh failed ($rc)" >&2; exit 1; }

RG_WHY=
if ! command -v rg > /dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		echo "src-scan.sh: installing ripgrep (apt-get install ripgrep)" >&2
		apt-get install -y -qq ripgrep > /dev/null 2>&1 ||
			{ apt-get update -qq > /dev/null 2>&1 && apt-get install -y -qq ripgrep > /dev/null 2>&1; } || true
	fi
	command -v rg > /dev/null || RG_WHY="ripgrep is not installed and could not be (apt-get install ripgrep as root)"
fi

cd "$SRC"
KSC=$KSC RUNS=$runs RG_WHY=$RG_WHY VERSION="$(cat ../.version 2> /dev/null || echo '?')" python3 - <<'EOF'
import os, statistics, subprocess, sys, time

KSC, RUNS, RG_WHY = os.environ["KSC"], int(os.environ["RUNS"]), os.environ["RG_WHY"]

def run(argv):
    """Wall-clock seconds, peak RSS (KiB) and number of output lines of one run."""
    t = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = 0
    for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
        lines += chunk.count(b"\n")
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # grep and rg: 1 = no match
        sys.exit("src-scan.sh: %s exited with status %d" % (" ".join(argv), code))
    return wall, ru.ru_maxrss, lines

cmds = {
    "ksymcheck src scan .": [KSC, "src", "scan", "."],
    "ksymcheck src scan -j 1 .": [KSC, "src", "scan", "-j", "1", "."],
    "grep -rn EXPORT_SYMBOL .": ["grep", "-rn", "EXPORT_SYMBOL", "."],
}
if not RG_WHY:
    cmds["rg -n EXPORT_SYMBOL ."] = ["rg", "-n", "EXPORT_SYMBOL", "."]
    cmds["rg -n --no-ignore --hidden EXPORT_SYMBOL ."] = ["rg", "-n", "--no-ignore", "--hidden",
                                                         "EXPORT_SYMBOL", "."]
res = {k: [] for k in cmds}
out = {}
for k, argv in cmds.items():  # warm-up: page cache
    out[k] = run(argv)[2]
for _ in range(RUNS):         # interleaved, so drift hits every command alike
    for k, argv in cmds.items():
        res[k].append(run(argv))

nfiles = nsrc = nbytes = 0
for d, _, files in os.walk("."):
    for f in files:
        nfiles += 1
        p = os.path.join(d, f)
        if f.endswith((".c", ".h", ".S")) and not os.path.islink(p):
            nsrc += 1
            nbytes += os.path.getsize(p)
print("src-scan: linux-source-6.1 %s: %d files, %d of them .c/.h/.S (%.0f MiB); "
      "%d timed runs per command after one warm-up run, %d CPUs"
      % (os.environ["VERSION"], nfiles, nsrc, nbytes / 2**20, RUNS, os.cpu_count()))
print("ksymcheck: %s" % subprocess.run([KSC, "--version"], stdout=subprocess.PIPE,
                                       text=True).stdout.strip())
for tool in ("grep", "rg"):
    if tool == "rg" and RG_WHY:
        continue
    v = subprocess.run([tool, "--version"], stdout=subprocess.PIPE, text=True).stdout
    print("%-10s %s" % (tool + ":", v.split("\n")[0]))
print("  %-44s %9s %9s %9s %14s" % ("command", "median s", "min s", "lines", "peak RSS MiB"))
for k in cmds:
    w = [x[0] for x in res[k]]
    print("  %-44s %9.3f %9.3f %9d %14.1f" % (k, statistics.median(w), min(w), out[k],
                                              max(x[1] for x in res[k]) / 1024))
med = {k: statistics.median(x[0] for x in v) for k, v in res.items()}
ksc = med["ksymcheck src scan ."]
print("ratio grep -rn / src scan: %.2f" % (med["grep -rn EXPORT_SYMBOL ."] / ksc))
if RG_WHY:
    print("ripgrep: not measured: %s" % RG_WHY)
else:
    for k in ("rg -n EXPORT_SYMBOL .", "rg -n --no-ignore --hidden EXPORT_SYMBOL ."):
        print("ratio %s / src scan: %.2f   (>= 1: src scan is no slower)" % (k, med[k] / ksc))
EOF
