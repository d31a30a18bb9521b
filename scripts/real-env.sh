# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Shared setup of the tests against Debian's real kernels (tests/real/*.sh). Source it
# after tests/lib.sh:
#
#     REAL_TESTS=("name of TAP line 1" "name of TAP line 2")   # optional
#     . "$TOP/scripts/real-env.sh"
#
# The kernel: KSC_REAL_KERNEL, one of
#     6.1           Debian 12's (scripts/fetch-debian-kernel.sh; the default)
#     trixie        Debian 13's 6.12 (scripts/fetch-debian-suite.sh trixie)
#     sid           7.2 (scripts/fetch-debian-suite.sh sid)
#     experimental  7.3 (scripts/fetch-debian-suite.sh experimental)
# It fetches (or finds in the cache) the Debian packages with the script named and
# extracts vmlinux from the kernel image once (cached as $KDIR/vmlinux). When the packages
# cannot be had (fetch exits 3) it prints "ok - <name> # SKIP no Debian kernel packages
# (<reason>)" for every name in REAL_TESTS (default: the script's basename) and exits 0.
# Any other setup failure prints "not ok" lines and exits 1.
#
# Sets:  REAL_KERNEL  the kernel's name above
#        REAL_LABEL   how the tests name it: "Debian 6.1", "trixie 6.12", "sid 7.2", ...
#        KDIR     the unpacked packages, e.g. ~/.cache/ksymcheck/debian-6.1-57
#        KVER     the kernel release, e.g. 6.1.0-57-amd64
#        RULES    the rules version the kernel's release maps to: 6.1, 6.12, 7.2, 7.3
#        MODDIR   the module folder: $KDIR/lib/modules/$KVER, else (usrmerged packages,
#                 6.12 on) $KDIR/usr/lib/modules/$KVER
#        SYMVERS  the Module.symvers of the linux-headers package
#        VMLINUZ  the compressed image: $MODDIR/vmlinuz, else $KDIR/boot/vmlinuz-$KVER
#        CONFIG   the kernel's config: $MODDIR/config, else $KDIR/boot/config-$KVER
#        VMLINUX  the ELF vmlinux extracted from $VMLINUZ
#        KMOD_MODINFO, KMOD_MODPROBE, KMOD_DEPMOD  kmod's tools (found in PATH, /usr/sbin, /sbin)
# and the function real_elapsed START (seconds since START, START from real_now).

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
if [ -z "${REAL_TESTS+x}" ] || [ ${#REAL_TESTS[@]} -eq 0 ]; then
	REAL_TESTS=("$(basename "$0" .sh)")
fi
REAL_KERNEL=${KSC_REAL_KERNEL:-6.1}

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

case $REAL_KERNEL in
6.1) _real_fetch=("$TOP/scripts/fetch-debian-kernel.sh") ;;
trixie | sid | experimental) _real_fetch=("$TOP/scripts/fetch-debian-suite.sh" "$REAL_KERNEL") ;;
*) real_fail_all "KSC_REAL_KERNEL=$REAL_KERNEL: not one of 6.1, trixie, sid, experimental" ;;
esac
_real_log=$(mktemp "${TMPDIR:-/tmp}/ksc-real-env.XXXXXX")
_real_rc=0
KDIR=$("${_real_fetch[@]}" 2> "$_real_log") || _real_rc=$?
if [ $_real_rc -eq 3 ]; then
	_real_reason=$(grep -v '^\s*$' "$_real_log" | tail -n 1)
	rm -f "$_real_log"
	real_skip_all "no Debian kernel packages for $REAL_KERNEL (${_real_reason:-${_real_fetch[0]##*/} exited 3})"
elif [ $_real_rc -ne 0 ] || [ -z "$KDIR" ] || [ ! -d "$KDIR" ]; then
	_real_reason=$(tail -n 3 "$_real_log" | tr '\n' ' ')
	rm -f "$_real_log"
	real_fail_all "${_real_fetch[*]#"$TOP/"} failed (status $_real_rc): $_real_reason"
fi
rm -f "$_real_log"

if [ -f "$KDIR/.kver" ]; then
	KVER=$(cat "$KDIR/.kver")
else
	KVER=$(basename "$(find "$KDIR/lib/modules" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)")
fi
MODDIR=$KDIR/lib/modules/$KVER
[ -d "$MODDIR" ] || MODDIR=$KDIR/usr/lib/modules/$KVER
SYMVERS=$KDIR/usr/src/linux-headers-$KVER/Module.symvers
VMLINUZ=$MODDIR/vmlinuz
[ -f "$VMLINUZ" ] || VMLINUZ=$KDIR/boot/vmlinuz-$KVER
CONFIG=$MODDIR/config
[ -f "$CONFIG" ] || CONFIG=$KDIR/boot/config-$KVER
VMLINUX=$KDIR/vmlinux
# 6.1.0-57-amd64 -> 6.1, 6.12.117+deb13-amd64 -> 6.12, 7.3-amd64 -> 7.3
RULES=$(echo "$KVER" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
case $REAL_KERNEL in
6.1) REAL_LABEL="Debian 6.1" ;;
*) REAL_LABEL="$REAL_KERNEL $RULES" ;;
esac
[ -d "$MODDIR/kernel" ] || real_fail_all "$MODDIR/kernel: no such folder in the fetched packages"
[ -f "$SYMVERS" ] || real_fail_all "$SYMVERS: not in the fetched packages"
[ -f "$VMLINUZ" ] || real_fail_all "$VMLINUZ: not in the fetched packages"
[ -f "$CONFIG" ] || real_fail_all "$CONFIG: not in the fetched packages"

if [ ! -s "$VMLINUX" ]; then
	_real_log=$(mktemp "${TMPDIR:-/tmp}/ksc-real-env.XXXXXX")
	if ! "$TOP/scripts/extract-vmlinux.sh" "$VMLINUZ" "$VMLINUX" \
		> /dev/null 2> "$_real_log"; then
		_real_reason=$(tail -n 2 "$_real_log" | tr '\n' ' ')
		rm -f "$_real_log"
		real_fail_all "could not extract vmlinux from $VMLINUZ: $_real_reason"
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

unset _real_rc _real_reason _real_log _real_fetch
export REAL_KERNEL REAL_LABEL KDIR KVER RULES MODDIR SYMVERS VMLINUZ CONFIG VMLINUX
export KMOD_MODINFO KMOD_MODPROBE KMOD_DEPMOD
