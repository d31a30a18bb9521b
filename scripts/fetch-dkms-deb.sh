#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fetch a Debian DKMS package (a *-dkms .deb, e.g. jool-dkms) of one suite with apt and
# keep it in a cache folder outside git, with its source unpacked next to it. Nothing
# downloaded is committed, and the machine's apt configuration is never changed: apt
# runs with the sources list, lists and cache folders of scripts/fetch-debian-suite.sh
# ($KSC_CACHE/apt/), signed by the machine's Debian archive keyring.
#
# Usage: scripts/fetch-dkms-deb.sh SUITE PACKAGE...
# Prints three lines per package: the .deb, its Debian version, and the unpacked source
# folder (the package's /usr/src/NAME-VER, the folder holding dkms.conf). Cache:
# $KSC_CACHE/dkms-debs/PACKAGE_VERSION_amd64.deb and .../PACKAGE_VERSION/ (the unpacked
# package); a version already there is used as it is, offline too.
# Exit status: 0; 3 when the package cannot be had (the reason on stderr); 1 otherwise.
set -euo pipefail

suite=${1:-}
if [ -z "$suite" ] || [ $# -lt 2 ]; then echo "usage: $0 SUITE PACKAGE..." >&2; exit 2; fi
shift
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}
fail3() { echo "fetch-dkms-deb: $*" >&2; exit 3; }
dir=$cache/dkms-debs
mkdir -p "$dir" || fail3 "cannot create $dir"

# The suite's lists (fetch-debian-suite.sh adds the suite to the sources list and keeps
# them fresh); offline, the lists already there.
"$top/scripts/fetch-debian-suite.sh" "$suite" > /dev/null 2>&1 || true
apt_dir=$cache/apt
apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/etc/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
	-o Dir::State::status=/dev/null -o Acquire::Check-Valid-Until=false
	-o Debug::NoLocking=true)
# Every package's version in the suite, in one look at the lists.
declare -A want
while IFS='|' read -r name ver where; do
	name=${name// /} ver=${ver// /}
	case $where in *" $suite/"*) [ -n "${want[$name]:-}" ] || want[$name]=$ver ;; esac
done < <(apt-cache "${apt_opts[@]}" madison "$@" 2> /dev/null)

for pkg in "$@"; do
	version=${want[$pkg]:-}
	if [ -z "$version" ]; then
		# offline or not in the lists: the newest copy already fetched
		deb=$(find "$dir" -maxdepth 1 -name "${pkg}_*.deb" | sort -V | tail -n 1)
		[ -n "$deb" ] || fail3 "$suite offers no $pkg (and none is cached)"
		version=$(dpkg-deb -f "$deb" Version)
	else
		deb=$dir/${pkg}_${version//:/%3a}_all.deb
		[ -f "$deb" ] || deb=$dir/${pkg}_${version//:/%3a}_amd64.deb
	fi
	if [ ! -f "$deb" ]; then
		tmp=$(mktemp -d "$dir/.fetch.XXXXXX") || fail3 "cannot make a folder in $dir"
		chmod 0777 "$tmp" # apt-get download runs as the _apt user where it can
		(cd "$tmp" && apt-get "${apt_opts[@]}" download -q "$pkg=$version" > "$tmp/log" 2>&1) ||
			{ rm -rf "$tmp"; fail3 "apt-get download $pkg=$version failed"; }
		got=$(find "$tmp" -maxdepth 1 -name '*.deb' | head -n 1)
		[ -n "$got" ] || { rm -rf "$tmp"; fail3 "apt-get download $pkg=$version left no .deb"; }
		deb=$dir/$(basename "$got")
		mv "$got" "$deb"
		rm -rf "$tmp"
	fi
	src=$dir/${pkg}_$version
	if [ ! -f "$src/.complete" ]; then
		rm -rf "$src"
		mkdir -p "$src"
		dpkg-deb -x "$deb" "$src" || { rm -rf "$src"; echo "fetch-dkms-deb: cannot unpack $deb" >&2; exit 1; }
		touch "$src/.complete"
	fi
	conf=$(find "$src/usr/src" -mindepth 2 -maxdepth 2 -name dkms.conf | head -n 1)
	[ -n "$conf" ] || { echo "fetch-dkms-deb: $deb holds no usr/src/*/dkms.conf" >&2; exit 1; }
	echo "$deb"
	echo "$version"
	dirname "$conf"
done
