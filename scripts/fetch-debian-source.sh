#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fetch Debian's kernel source package (linux-source-6.1) with apt and unpack the source
# tree it carries (/usr/src/linux-source-6.1.tar.xz) into a cache folder outside git.
# Nothing downloaded is ever committed. Idempotent: a complete extraction is reused.
#
# Usage: scripts/fetch-debian-source.sh [VERSION]   (a Debian version, e.g. 6.1.192-3)
#        scripts/fetch-debian-source.sh --suite SUITE SERIES   (e.g. --suite sid 7.2)
# The second form fetches linux-source-SERIES from another Debian suite with the apt
# folders scripts/fetch-debian-suite.sh keeps under the cache (the machine's apt
# configuration is never changed), into $KSC_CACHE/debian-SERIES-source-<VERSION>.
# Default version: the one of the built kernel that scripts/fetch-debian-kernel.sh cached
# (its .packages list), so the sources match that kernel's Module.symvers; else the
# newest linux-source-6.1 apt offers; offline, the newest complete extraction in the cache.
# Cache: $KSC_CACHE (default ~/.cache/ksymcheck); result in
#        $KSC_CACHE/debian-6.1-source-<VERSION>/linux-source-6.1, with a stable symlink
#        $KSC_CACHE/debian-6.1-source -> the newest fetched.
# Prints the source tree's folder on stdout; exits 3 with the reason on stderr when the
# package cannot be had (no apt, no network, no such version, no space).
set -euo pipefail

cache=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}
series=6.1
suite=
apt_opts=()
if [ "${1:-}" = --suite ]; then
	[ $# -eq 3 ] || { echo "usage: $0 --suite SUITE SERIES" >&2; exit 2; }
	suite=$2 series=$3
	shift 3
fi
pkg=linux-source-$series
tree=linux-source-$series

fail3() { echo "fetch-debian-source: $*" >&2; exit 3; }

mkdir -p "$cache" 2> /dev/null || fail3 "cannot create the cache folder $cache"

found() { # $1 folder of a complete extraction
	ln -sfn "$(basename "$1")" "$cache/debian-$series-source"
	echo "$1/$tree"
	exit 0
}

newest_cached() {
	local d best=
	for d in "$cache"/debian-"$series"-source-*; do
		[ -f "$d/.complete" ] && best=$d
	done
	[ -n "$best" ] && echo "$best"
	return 0
}

version=${1:-}
if [ -n "$suite" ]; then
	# The suite's lists: fetch-debian-suite.sh refreshes them (and fetches the suite's
	# kernel, which a lane building against this source wants anyway).
	"$(dirname "$0")/fetch-debian-suite.sh" "$suite" > /dev/null ||
		{ d=$(newest_cached); [ -n "$d" ] && found "$d"; fail3 "cannot read the $suite lists"; }
	apt_dir=$cache/apt
	apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/etc/sources.list" -o Dir::Etc::sourceparts=-
		  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
		  -o Dir::State::status=/dev/null -o Acquire::Check-Valid-Until=false
		  -o APT::Get::List-Cleanup=false -o Debug::NoLocking=true)
	version=$(apt-cache "${apt_opts[@]}" madison "$pkg" 2>/dev/null |
		awk -F'|' -v s="$suite" '$3 ~ " "s"/" { gsub(/ /, "", $2); print $2; exit }')
	[ -n "$version" ] || { d=$(newest_cached); [ -n "$d" ] && found "$d"; fail3 "$suite offers no $pkg"; }
elif [ -z "$version" ] && [ -f "$cache/debian-6.1/.packages" ]; then
	# linux-image-6.1.0-57-amd64-unsigned_6.1.192-3_amd64.deb -> 6.1.192-3
	version=$(sed -n 's/^linux-image-[^_]*_\([^_]*\)_.*/\1/p' "$cache/debian-6.1/.packages" | head -n 1)
fi
if [ -n "$version" ] && [ -f "$cache/debian-$series-source-$version/.complete" ]; then
	found "$cache/debian-$series-source-$version"
fi

command -v apt-get > /dev/null 2>&1 || {
	d=$(newest_cached); [ -n "$d" ] && found "$d"
	fail3 "apt-get is not available (not a Debian system?) and nothing is cached in $cache"
}

have_pkg() { [ -n "$(apt-cache "${apt_opts[@]}" madison "$pkg" 2>/dev/null | head -n 1)" ]; }
if ! have_pkg && [ -z "$suite" ]; then apt-get update -qq >&2 2>/dev/null || true; fi
if ! have_pkg; then
	d=$(newest_cached); [ -n "$d" ] && { echo "fetch-debian-source: apt lists no $pkg; using the cache" >&2; found "$d"; }
	fail3 "apt offers no $pkg package (offline, or not Debian bookworm)"
fi
if [ -n "$version" ] && ! apt-cache "${apt_opts[@]}" madison "$pkg" | awk -F'|' '{gsub(/ /, "", $2); print $2}' | grep -qxF "$version"; then
	echo "fetch-debian-source: $pkg $version is not offered by apt; taking the newest" >&2
	version=
fi
if [ -z "$version" ]; then
	version=$(apt-cache "${apt_opts[@]}" madison "$pkg" | awk -F'|' '{gsub(/ /, "", $2); print $2}' | sort -V | tail -n 1)
	[ -n "$version" ] || fail3 "cannot tell which $pkg version apt offers"
fi
dest="$cache/debian-$series-source-$version"
[ -f "$dest/.complete" ] && found "$dest"

command -v dpkg-deb > /dev/null 2>&1 || fail3 "dpkg-deb is not available"
command -v xz > /dev/null 2>&1 || fail3 "xz is not available (apt-get install xz-utils)"

tmp=$(mktemp -d "$cache/.fetch-source.XXXXXX") || fail3 "cannot make a folder in $cache"
trap 'rm -rf "$tmp"' EXIT
(
	cd "$tmp"
	# apt-get download runs as the _apt user where it can; let it write here.
	chmod 0777 .
	apt-get "${apt_opts[@]}" download -q "$pkg=$version" >&2
) || fail3 "apt-get download $pkg=$version failed (offline?)"

deb=$(ls "$tmp"/*.deb 2> /dev/null | head -n 1)
[ -n "$deb" ] || fail3 "apt-get download left no .deb"
mkdir -p "$tmp/deb" "$tmp/root"
dpkg-deb -x "$deb" "$tmp/deb" || fail3 "dpkg-deb could not unpack $(basename "$deb") (disk full?)"
tarball=$tmp/deb/usr/src/$tree.tar.xz
[ -f "$tarball" ] || fail3 "$(basename "$deb") holds no usr/src/$tree.tar.xz"
tar -C "$tmp/root" -xJf "$tarball" || fail3 "could not unpack $tree.tar.xz (disk full?)"
[ -d "$tmp/root/$tree" ] || fail3 "$tree.tar.xz holds no $tree/ folder"
basename "$deb" > "$tmp/root/.packages"
echo "$version" > "$tmp/root/.version"
rm -rf "$dest"
mv "$tmp/root" "$dest"
touch "$dest/.complete"
found "$dest"
