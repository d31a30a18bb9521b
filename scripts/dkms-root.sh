#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A Debian root (sid by default) with dkms and the kernel KVER, for tests/real/dkms72.sh:
# the root of scripts/sid-root.sh (make, linux-headers-KVER) copied, then with the suite's
# own apt: dkms, openssl (dkms signs the modules it builds), the libraries ksymcheck links
# with, and the DKMS packages named in DKMS_PACKAGES (default: v4l2loopback-dkms xone-dkms
# jool-dkms) downloaded, not installed, into its /var/cache/apt/archives.
#
# Usage: scripts/dkms-root.sh [--suite SUITE] KVER headers     prints the root's folder
#        scripts/dkms-root.sh [--suite SUITE] KVER installed
#
# "headers": only the headers of KVER, as on a machine that builds for a kernel it does not
# run; "installed": the headers root with linux-image-KVER and linux-base installed too
# (depmod's files, the kernel's modules under /lib/modules/KVER, /boot/vmlinuz-KVER).
# Each is cached as $KSC_CACHE/dkms-<suite>-root-<KVER>-<headers version>-<kind>-r<RECIPE>
# (a new upload of the headers, or a change to this recipe, makes new ones) and is never
# changed once complete: run what changes a root in an overlay over it (the lane does).
#
# Exit status: 0; 3 when the root cannot be made (no sid root, offline, a package missing:
# the reason is the last line on stderr, "SKIP: ..."); 1 otherwise.
set -euo pipefail

RECIPE=1
suite=sid
if [ "${1:-}" = --suite ]; then suite=$2; shift 2; fi
kver=${1:-}
kind=${2:-}
case $kind in headers | installed) ;; *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;; esac

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}
packages=${DKMS_PACKAGES:-v4l2loopback-dkms xone-dkms jool-dkms}
skip() { echo "SKIP: dkms-root: $*" >&2; exit 3; }
die() { echo "dkms-root: $*" >&2; exit 1; }

rc=0
sroot=$("$top/scripts/sid-root.sh" --suite "$suite" "$kver") || rc=$?
[ $rc -eq 3 ] && skip "no $suite root (scripts/sid-root.sh)"
[ $rc -eq 0 ] || die "scripts/sid-root.sh failed (status $rc)"
base=$(basename "$sroot") # <suite>-root-<KVER>-<headers version>
name=dkms-$base-$kind-r$RECIPE
root=$cache/$name
log=$cache/$name.log

# in_root ROOT CMD...: CMD chrooted into ROOT, /dev and /proc mounted in a private mount
# namespace (gone when CMD ends)
in_root() {
	local r=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private -- /bin/sh -c '
		r=$1; shift
		mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" || exit 125
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' sh "$r" "$@"
}

if [ -f "$root/.ksc-complete" ]; then
	echo "$root"
	exit 0
fi
rm -rf "$root"
if [ "$kind" = headers ]; then
	echo "dkms-root: $name from $base (a few minutes)" >&2
	cp -a --reflink=auto "$sroot" "$root"
	rm -f "$root/.ksc-complete"
	# shellcheck disable=SC2086 # the package list is words
	{ in_root "$root" apt-get update -qq &&
		in_root "$root" apt-get install -y -q dkms openssl libelf1t64 libjson-c5 libxxhash0 \
			liblzma5 libzstd1 zlib1g libssl3t64 &&
		in_root "$root" apt-get install -y -q --download-only $packages; } > "$log" 2>&1 ||
		{ tail -n 3 "$log" >&2; rm -rf "$root"; skip "apt-get in the $suite root failed (see $log)"; }
else
	hroot=$("$0" --suite "$suite" "$kver" headers) || exit $?
	echo "dkms-root: $name from $(basename "$hroot") (a few minutes)" >&2
	cp -a --reflink=auto "$hroot" "$root"
	rm -f "$root/.ksc-complete"
	{ in_root "$root" apt-get update -qq &&
		in_root "$root" apt-get install -y -q "linux-image-$kver" linux-base; } > "$log" 2>&1 ||
		{ tail -n 3 "$log" >&2; rm -rf "$root"; skip "installing linux-image-$kver failed (see $log)"; }
fi
touch "$root/.ksc-complete"
echo "$root"
