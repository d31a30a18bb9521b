#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Build Debian DKMS packages with Debian's own dkms against one kernel's headers, in the
# root of scripts/dkms-root.sh (a suite's root with dkms and linux-headers-KVER; trixie
# for 6.12 and gcc-14, sid for 7.2 and gcc-16), and keep the outcome by package version.
# Each build runs in an overlay over that root (the root is never changed): the .deb
# unpacked (dpkg -x), `dkms add`, `dkms build -k KVER`.
#
# Usage: scripts/dkms-build.sh ROOT-SUITE KVER DEB...
# For each DEB (a *-dkms .deb, scripts/fetch-dkms-deb.sh) prints one line: the folder of
# its outcome, $KSC_CACHE/dkms-builds/<root>/<deb's base name>-r<RECIPE>/, which holds
#     status     dkms build's exit status (0: built)
#     dkms.log   what dkms printed; make.log: the build's own log
#     modules/   the .ko files the build made (none when it failed before them)
# An outcome already there is used as it is: a build runs once per root and version (and
# when all are there for the suite's kernel as unpacked, no root is even looked at).
# Exit status: 0 (a failed build is an outcome, not an error); 3 when the root cannot be
# had (the reason on stderr, "SKIP: ..."); 1 otherwise.
set -euo pipefail

RECIPE=1
suite=${1:-}
kver=${2:-}
if [ -z "$suite" ] || [ -z "$kver" ] || [ $# -lt 3 ]; then
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
fi
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}
skip() { echo "SKIP: dkms-build: $*" >&2; exit 3; }
die() { echo "dkms-build: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (chroot, overlay mounts)"

# Every outcome already kept for the root of the headers the suite's kernel has (the
# Debian version scripts/fetch-debian-suite.sh unpacked): no root is looked at.
hver=$(cat "$cache/debian-$suite/.version" 2> /dev/null || true)
if [ -n "$hver" ] && [ "$(cat "$cache/debian-$suite/.kver" 2> /dev/null)" = "$kver" ]; then
	for kept in "$cache/dkms-builds/dkms-$suite-root-$kver-$hver-headers-r"*; do
		all=1
		for deb in "$@"; do
			[ -f "$kept/$(basename "$deb" .deb)-r$RECIPE/.complete" ] || all=0
		done
		if [ $all = 1 ]; then
			for deb in "$@"; do echo "$kept/$(basename "$deb" .deb)-r$RECIPE"; done
			exit 0
		fi
	done
fi

rc=0
# The root's own DKMS packages are not needed: only dkms and the headers.
root=$(DKMS_PACKAGES=dkms "$top/scripts/dkms-root.sh" --suite "$suite" "$kver" headers) || rc=$?
[ $rc -eq 3 ] && skip "no $suite root with dkms for $kver (scripts/dkms-root.sh)"
[ $rc -eq 0 ] || die "scripts/dkms-root.sh failed (status $rc)"
outdir=$cache/dkms-builds/$(basename "$root")
mkdir -p "$outdir"

todo=()
for deb in "$@"; do
	[ -f "$deb" ] || die "$deb: no such file"
	o=$outdir/$(basename "$deb" .deb)-r$RECIPE
	[ -f "$o/.complete" ] || todo+=("$deb")
done

if [ ${#todo[@]} -gt 0 ]; then
	w=$(mktemp -d "$outdir/.build.XXXXXX")
	trap 'rm -rf "$w"' EXIT
	mkdir -p "$w/upper" "$w/work" "$w/merged" "$w/in" "$w/out"
	for deb in "${todo[@]}"; do cp "$deb" "$w/in/"; done
	cat > "$w/in/inside.sh" << 'INSIDE'
set -u
kver=$1
for deb in /ksc-in/*.deb; do
	o=/ksc-out/$(basename "$deb" .deb)
	mkdir -p "$o/modules"
	dpkg -x "$deb" /
	conf=$(dpkg-deb -c "$deb" | sed -n 's|.* \./\(usr/src/[^/]*\)/dkms.conf$|/\1/dkms.conf|p' | head -n 1)
	name=$(sh -c '. "$1"; echo "$PACKAGE_NAME"' sh "$conf" 2> /dev/null)
	ver=$(sh -c '. "$1"; echo "$PACKAGE_VERSION"' sh "$conf" 2> /dev/null)
	st=0
	{ dkms add -m "$name" -v "$ver" && dkms build -m "$name" -v "$ver" -k "$kver"; } > "$o/dkms.log" 2>&1 || st=$?
	echo "$st" > "$o/status"
	# a failed build keeps its folder; a good one is cleaned, its log and modules kept
	# under KVER/ARCH (compressed as the kernel's own modules are)
	d=/var/lib/dkms/$name/$ver
	cp "$d/build/make.log" "$o/make.log" 2> /dev/null ||
		cp "$d/$kver"/*/log/make.log "$o/make.log" 2> /dev/null || : > "$o/make.log"
	find "$d/build" "$d/$kver" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz' 2> /dev/null |
		while read -r ko; do
			case $ko in
			*.xz) xz -dc "$ko" > "$o/modules/$(basename "$ko" .xz)" ;;
			*.zst) zstd -qdc "$ko" > "$o/modules/$(basename "$ko" .zst)" ;;
			*.gz) gzip -dc "$ko" > "$o/modules/$(basename "$ko" .gz)" ;;
			*) cp "$ko" "$o/modules/" ;;
			esac
		done
done
exit 0
INSIDE
	echo "dkms-build: ${#todo[@]} package(s) in $(basename "$root")" >&2
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private -- /bin/sh -c '
		lower=$1 w=$2 kver=$3
		m=$w/merged
		mount -t overlay overlay -o "lowerdir=$lower,upperdir=$w/upper,workdir=$w/work" "$m" &&
		mount --rbind /dev "$m/dev" && mount -t proc proc "$m/proc" &&
		mkdir -p "$m/ksc-in" "$m/ksc-out" && mount --bind "$w/in" "$m/ksc-in" &&
		mount --bind "$w/out" "$m/ksc-out" || exit 125
		exec chroot "$m" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 /bin/sh /ksc-in/inside.sh "$kver"
	' sh "$root" "$w" "$kver" || die "the build root failed (status $?)"
	for deb in "${todo[@]}"; do
		b=$(basename "$deb" .deb)
		[ -f "$w/out/$b/status" ] || die "$b: no outcome"
		rm -rf "$outdir/$b-r$RECIPE"
		mv "$w/out/$b" "$outdir/$b-r$RECIPE"
		touch "$outdir/$b-r$RECIPE/.complete"
	done
fi
for deb in "$@"; do echo "$outdir/$(basename "$deb" .deb)-r$RECIPE"; done
