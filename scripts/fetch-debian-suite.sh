#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fetch the amd64 kernel of a Debian suite other than the machine's own (trixie 6.12, sid
# 7.2, experimental 7.3, ...) with apt and unpack it into a cache folder outside git.
# Nothing downloaded is ever committed, and the machine's apt configuration is never
# changed: apt runs with a sources list, lists and cache folders of its own under the
# cache ($KSC_CACHE/apt/), signed by the machine's Debian archive keyring.
#
# Usage: scripts/fetch-debian-suite.sh SUITE [FLAVOUR]    (FLAVOUR default: amd64)
# The packages: what the suite's linux-image-FLAVOUR and linux-headers-FLAVOUR depend on,
# followed down through every linux-* dependency (image or binary, modules, base,
# headers, headers-common, kbuild), so that both layouts are had: 6.x's one image package
# and 7.x's split linux-binary / linux-modules / linux-base.
# Cache: $KSC_CACHE (default ~/.cache/ksymcheck); the result in
#        $KSC_CACHE/debian-<KVER> (e.g. debian-7.2.13+deb14-amd64) with the files .kver,
#        .version (the Debian version) and .packages, and a stable symlink
#        $KSC_CACHE/debian-<SUITE> -> the newest fetched.
# Prints the folder on stdout; exits 3 with the reason on stderr when the packages cannot
# be had (no apt, offline, no such suite); offline, a complete cached copy is used.
set -euo pipefail

suite=${1:-}
flavour=${2:-amd64}
[ -n "$suite" ] || { echo "usage: $0 SUITE [FLAVOUR]" >&2; exit 2; }
cache=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}
fail3() { echo "fetch-debian-suite: $*" >&2; exit 3; }
cached() { # the suite's complete copy, if any
	[ -f "$cache/debian-$suite/.complete" ] && { readlink -f "$cache/debian-$suite"; return 0; }
	return 1
}

command -v apt-get > /dev/null 2>&1 || { cached && exit 0; fail3 "apt-get is not available"; }
apt_dir=$cache/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/etc" ||
	fail3 "cannot create $apt_dir"

# The mirror: the one the machine's apt uses for Debian (no address is written here).
# shellcheck disable=SC2016 # $(REPO_URI) is apt's own field syntax
mirror=${KSC_DEBIAN_MIRROR:-$(apt-get indextargets --format '$(REPO_URI) $(LABEL)' 2>/dev/null |
	awk '$2 == "Debian" { print $1; exit }')}
[ -n "$mirror" ] || { cached && exit 0; fail3 "apt knows no Debian mirror (set KSC_DEBIAN_MIRROR)"; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
list=$apt_dir/etc/sources.list
want="deb [signed-by=$keyring] $mirror $suite main"
touch "$list"
grep -qxF "$want" "$list" || echo "$want" >> "$list"

apt_opts=(-o "Dir::Etc::sourcelist=$list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$apt_dir/lists"
	  -o "Dir::Cache=$apt_dir/cache" -o Dir::State::status=/dev/null
	  -o Acquire::Check-Valid-Until=false -o APT::Get::List-Cleanup=false
	  -o Debug::NoLocking=true)
stamp=$apt_dir/lists/.updated
# The lists are refreshed at most every 6 hours, or when the suite is new to them.
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +360)" ] ||
   ! grep -qxF "$suite" "$stamp"; then
	# apt-get update exits 0 when an index cannot be fetched: its "W: Failed to fetch"
	# counts as a failure here.
	if apt-get "${apt_opts[@]}" update -qq > "$apt_dir/update.log" 2>&1 &&
	   ! grep -q '^W: Failed to fetch' "$apt_dir/update.log"; then
		grep -h '^deb ' "$list" | awk '{ print $4 }' > "$stamp"
	else
		cached && exit 0
		fail3 "apt-get update failed: $(grep -m1 -E '^(E|W):' "$apt_dir/update.log")"
	fi
fi

# The version of the suite's meta packages, then their linux-* dependencies, recursively.
version=$(apt-cache "${apt_opts[@]}" madison "linux-image-$flavour" 2>/dev/null |
	awk -F'|' -v s="$suite" '$3 ~ " "s"/" { gsub(/ /, "", $2); print $2; exit }')
[ -n "$version" ] || { cached && exit 0; fail3 "$suite offers no linux-image-$flavour"; }
# Already fetched: the dependency walk below takes seconds for each apt-cache call.
if [ -f "$cache/debian-$suite/.complete" ] && [ "$(cat "$cache/debian-$suite/.version")" = "$version" ]; then
	readlink -f "$cache/debian-$suite"
	exit 0
fi
deps_of() { # $1 package=version: its linux-* dependencies of the same source version
	apt-cache "${apt_opts[@]}" show "$1" 2> /dev/null | sed -n 's/^Depends: //p' | head -n 1 |
		tr ',' '\n' | sed 's/|.*//; s/^ *//' |
		awk -v v="$version" '$1 ~ /^linux-/ && $0 ~ "= "v"\\)" { print $1 }'
}
queue=("linux-image-$flavour" "linux-headers-$flavour")
pkgs=()
while [ ${#queue[@]} -gt 0 ]; do
	p=${queue[0]}
	queue=("${queue[@]:1}")
	case " ${pkgs[*]} " in *" $p "*) continue ;; esac
	pkgs+=("$p")
	mapfile -t more < <(deps_of "$p=$version")
	queue+=("${more[@]}")
done
# kbuild is versioned by its own name (linux-kbuild-7.2.13+deb14), not "= version".
mapfile -t kbuild < <(apt-cache "${apt_opts[@]}" show "linux-headers-$flavour=$version" 2>/dev/null |
	sed -n 's/^Depends: //p' | tr ',' '\n' | sed 's/^ *//' | grep -o '^linux-headers-[^ ]*' |
	while read -r h; do apt-cache "${apt_opts[@]}" show "$h=$version" 2>/dev/null |
		sed -n 's/^Depends: //p' | tr ',' '\n' | sed 's/^ *//' | grep -o '^linux-kbuild-[^ ]*'; done |
	sort -u)
pkgs+=("${kbuild[@]}")
# The meta packages themselves hold nothing but documentation.
real=()
for p in "${pkgs[@]}"; do
	case "$p" in "linux-image-$flavour" | "linux-headers-$flavour" | "linux-base-$flavour") ;; *) real+=("$p") ;; esac
done
image=$(printf '%s\n' "${real[@]}" | grep -m1 -E '^linux-(image|binary)-[0-9]' || true)
kver=${image#linux-image-}
kver=${kver#linux-binary-}
kver=${kver%-unsigned}
[ -n "$kver" ] || fail3 "cannot tell the kernel release of $suite's linux-image-$flavour $version"
dest=$cache/debian-$kver
if [ -f "$dest/.complete" ] && [ "$(cat "$dest/.version")" = "$version" ]; then
	ln -sfn "debian-$kver" "$cache/debian-$suite"
	echo "$dest"
	exit 0
fi

tmp=$(mktemp -d "$cache/.fetch.XXXXXX") || fail3 "cannot make a folder in $cache"
trap 'rm -rf "$tmp"' EXIT
chmod 0777 "$tmp"  # apt-get download runs as the _apt user where it can
args=()
for p in "${real[@]}"; do args+=("$p=$version"); done
for p in "${kbuild[@]}"; do args=("${args[@]/#$p=$version/$p}"); done
(cd "$tmp" && apt-get "${apt_opts[@]}" download -q "${args[@]}" >&2) ||
	fail3 "apt-get download failed for ${args[*]}"
mkdir -p "$tmp/root"
for deb in "$tmp"/*.deb; do
	dpkg-deb -x "$deb" "$tmp/root" || fail3 "dpkg-deb could not unpack $(basename "$deb") (disk full?)"
done
(cd "$tmp" && printf '%s\n' ./*.deb | sed 's|^\./||') > "$tmp/root/.packages"
echo "$kver" > "$tmp/root/.kver"
echo "$version" > "$tmp/root/.version"
echo "$suite" > "$tmp/root/.suite"
rm -rf "$dest"
mv "$tmp/root" "$dest"
touch "$dest/.complete"
ln -sfn "debian-$kver" "$cache/debian-$suite"
echo "$dest"
