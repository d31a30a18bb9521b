# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Shared setup of the tests against Debian's real 6.1 kernel (tests/real/*.sh). Source it
# after tests/lib.sh:
#
#     REAL_TESTS=("name of TAP line 1" "name of TAP line 2")   # optional
#     . "$TOP/scripts/real-env.sh"
#
# It fetches (or finds in the cache) the Debian packages with scripts/fetch-debian-kernel.sh
# and extracts vmlinux from the bzImage once (cached as $KDIR/vmlinux). When the packages
# cannot be had (fetch exits 3) it prints "ok - <name> # SKIP no Debian kernel packages
# (<reason>)" for every name in REAL_TESTS (default: the script's basename) and exits 0.
# Any other setup failure prints "not ok" lines and exits 1.
#
# Sets:  KDIR     the unpacked packages, e.g. ~/.cache/ksymcheck/debian-6.1-57
#        KVER     the kernel release, e.g. 6.1.0-57-amd64
#        MODDIR   $KDIR/lib/modules/$KVER
#        SYMVERS  the Module.symvers of the linux-headers package
#        VMLINUX  the ELF vmlinux extracted from $KDIR/boot/vmlinuz-$KVER
#        KMOD_MODINFO, KMOD_MODPROBE, KMOD_DEPMOD  kmod's tools (found in PATH, /usr/sbin, /sbin)
# and the function real_elapsed START (seconds since START, START from real_now).

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
if [ -z "${REAL_TESTS+x}" ] || [ ${#REAL_TESTS[@]} -eq 0 ]; then
	REAL_TESTS=("$(basename "$0" .sh)")
fi

real_skip_all() { # $1 reason
	local n
	for n in "${REAL_TESTS[@]}"; do echo "ok - $n # SKIP $1"; done
	exit 0
}

real_fail_all() { # $1 reason
	local n
	for n in "${REAL_TESTS[@]}"; do echo "not ok - $n"; echo "#   $1"; done
	exit 1
}

real_now() { date +%s.%N; }
real_elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

_real_log=$(mktemp "${TMPDIR:-/tmp}/ksc-real-env.XXXXXX")
_real_rc=0
KDIR=$("$TOP/scripts/fetch-debian-kernel.sh" 2> "$_real_log") || _real_rc=$?
if [ $_real_rc -eq 3 ]; then
	_real_reason=$(grep -v '^\s*$' "$_real_log" | tail -n 1)
	rm -f "$_real_log"
	real_skip_all "no Debian kernel packages (${_real_reason:-fetch-debian-kernel.sh exited 3})"
elif [ $_real_rc -ne 0 ] || [ -z "$KDIR" ] || [ ! -d "$KDIR" ]; then
	_real_reason=$(tail -n 3 "$_real_log" | tr '\n' ' ')
	rm -f "$_real_log"
	real_fail_all "scripts/fetch-debian-kernel.sh failed (status $_real_rc): $_real_reason"
fi
rm -f "$_real_log"

if [ -f "$KDIR/.kver" ]; then
	KVER=$(cat "$KDIR/.kver")
else
	KVER=$(basename "$(find "$KDIR/lib/modules" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)")
fi
MODDIR=$KDIR/lib/modules/$KVER
SYMVERS=$KDIR/usr/src/linux-headers-$KVER/Module.symvers
VMLINUX=$KDIR/vmlinux
[ -d "$MODDIR/kernel" ] || real_fail_all "$MODDIR/kernel: no such folder in the fetched packages"
[ -f "$SYMVERS" ] || real_fail_all "$SYMVERS: not in the fetched packages"

if [ ! -s "$VMLINUX" ]; then
	_real_log=$(mktemp "${TMPDIR:-/tmp}/ksc-real-env.XXXXXX")
	if ! "$TOP/scripts/extract-vmlinux.sh" "$KDIR/boot/vmlinuz-$KVER" "$VMLINUX" \
		> /dev/null 2> "$_real_log"; then
		_real_reason=$(tail -n 2 "$_real_log" | tr '\n' ' ')
		rm -f "$_real_log"
		real_fail_all "could not extract vmlinux from $KDIR/boot/vmlinuz-$KVER: $_real_reason"
	fi
	rm -f "$_real_log"
fi

_real_find_tool() {
	local t
	t=$(PATH=$PATH:/usr/sbin:/sbin command -v "$1" 2> /dev/null) || true
	[ -n "$t" ] || real_fail_all "kmod's $1 is not installed (apt-get install kmod)"
	echo "$t"
}
KMOD_MODINFO=$(_real_find_tool modinfo)
KMOD_MODPROBE=$(_real_find_tool modprobe)
KMOD_DEPMOD=$(_real_find_tool depmod)

[ -x "$KSC" ] || real_fail_all "$KSC: not built (make)"

# The sample of modules shared by the tests: a fixed-seed shuffle (python3's random, seed
# 42, the same on every machine) of every .ko* file of the tree, sorted by path first.
# real_sample N prints N paths (all of them when N is 0 or larger than the tree).
real_sample() {
	find "$MODDIR/kernel" -type f -name '*.ko*' | LC_ALL=C sort |
		python3 -c 'import random, sys
paths = sys.stdin.read().split("\n")[:-1]
random.Random(42).shuffle(paths)
n = int(sys.argv[1])
print("\n".join(paths[:n] if 0 < n < len(paths) else paths))' "${1:-0}"
}

unset _real_rc _real_reason _real_log
export KDIR KVER MODDIR SYMVERS VMLINUX KMOD_MODINFO KMOD_MODPROBE KMOD_DEPMOD
