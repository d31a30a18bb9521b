#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fetch Debian's real 6.1 kernel artifacts (image, headers, kbuild) with apt and unpack
# them into a cache folder outside git. Nothing downloaded is ever committed.
#
# Usage: scripts/fetch-debian-kernel.sh [ABI]      (ABI e.g. 57; default: newest available)
# Cache: $KSC_CACHE (default ~/.cache/ksymcheck); result in $KSC_CACHE/debian-6.1-<ABI>,
#        with a stable symlink $KSC_CACHE/debian-6.1 -> the newest ABI (set only when
#        called without an ABI).
# Prints the cache folder on stdout; exits 3 when the packages cannot be had.
set -euo pipefail

cache=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}
mkdir -p "$cache"

need_update() { [ -z "$(apt-cache search --names-only '^linux-kbuild-6\.1$' 2>/dev/null)" ]; }
if need_update; then apt-get update -qq >&2 || true; fi

abi=${1:-}
newest=yes
[ -n "$abi" ] && newest=no
if [ -z "$abi" ]; then
	abi=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' 2>/dev/null |
	      sed -n 's/^linux-image-6\.1\.0-\([0-9]*\)-amd64-unsigned .*/\1/p' | sort -n | tail -1)
fi
if [ -z "$abi" ]; then
	# Offline, or no apt lists: fall back to the newest complete extraction in the cache.
	newest=$(ls -d "$cache"/debian-6.1-[0-9]* 2>/dev/null | sed 's/.*-//' | sort -n | tail -1)
	if [ -n "$newest" ] && [ -f "$cache/debian-6.1-$newest/.complete" ]; then
		echo "fetch-debian-kernel: apt lists no package; using the cached ABI $newest" >&2
		abi=$newest
	else
		echo "fetch-debian-kernel: no linux-image-6.1.0-*-amd64-unsigned package is available" >&2
		exit 3
	fi
fi

dest="$cache/debian-6.1-$abi"
# The stable name debian-6.1 always means the newest ABI; an older one asked for by number
# (for diffs between two kernels) never moves it.
link_newest() { [ "$newest" = yes ] && ln -sfn "debian-6.1-$abi" "$cache/debian-6.1"; return 0; }
if [ -f "$dest/.complete" ]; then
	link_newest
	echo "$dest"
	exit 0
fi

kver="6.1.0-$abi-amd64"
pkgs=("linux-image-$kver-unsigned" "linux-headers-$kver" "linux-headers-6.1.0-$abi-common" "linux-kbuild-6.1")
tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(
	cd "$tmp"
	# apt-get download runs as the _apt user where it can; let it write here.
	chmod 0777 .
	apt-get download -q "${pkgs[@]}" >&2
) || { echo "fetch-debian-kernel: apt-get download failed for ${pkgs[*]}" >&2; exit 3; }

mkdir -p "$tmp/root"
for deb in "$tmp"/*.deb; do
	dpkg-deb -x "$deb" "$tmp/root"
done
ls "$tmp"/*.deb | xargs -n1 basename > "$tmp/root/.packages"
echo "$kver" > "$tmp/root/.kver"
rm -rf "$dest"
mv "$tmp/root" "$dest"
touch "$dest/.complete"
link_newest
echo "$dest"
