#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A Debian root of another suite (sid by default) in which out-of-tree modules can be
# built against that suite's kernel headers: 7.2's headers need gcc-16, which the
# machine's Debian 12 lacks. Made with `debootstrap --variant=minbase`, then make and
# linux-headers-KVER (which pulls in the compiler the kernel was built with) installed
# inside with the root's own apt. Nothing is committed and nothing outside the cache is
# changed: the root's mounts (/dev, /proc) live in a private mount namespace (unshare).
#
# Usage: scripts/sid-root.sh [--suite SUITE] KVER           prints the root's folder
#        scripts/sid-root.sh [--suite SUITE] KVER -- CMD...  runs CMD inside it (chroot)
#
# KVER is the kernel release whose headers are wanted (7.2.13+deb14-amd64). The root is
# cached as $KSC_CACHE/<suite>-root-<KVER>-<headers version>.tar.zst (key: the suite, the
# release and the Debian version of linux-headers-KVER; a new upload of the headers makes
# a new root), unpacked next to it into a folder of the same name, which is what is
# printed. The first build takes a few minutes; then an unpacked root is used as it is.
# With CMD, the host folders given in KSC_ROOT_BIND ("HOST:INSIDE ..." ) are bound into
# the root first (INSIDE is created).
#
# Exit status: 0, or CMD's; 3 when the root cannot be made (no debootstrap, offline, no
# such headers package: the reason is the last line on stderr, "SKIP: ..."); 1 otherwise.
set -euo pipefail

suite=sid
if [ "${1:-}" = --suite ]; then suite=$2; shift 2; fi
kver=${1:-}
[ -n "$kver" ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
shift
if [ $# -gt 0 ]; then [ "$1" = -- ] || { echo "sid-root: expected -- before the command" >&2; exit 2; }; shift; fi

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}
skip() { echo "SKIP: sid-root: $*" >&2; exit 3; }
die() { echo "sid-root: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot)"
command -v unshare > /dev/null || skip "no unshare(1) (util-linux)"

# The headers package's version, from the apt lists scripts/fetch-debian-suite.sh keeps
# (run it first: it fetches the suite's kernel and refreshes the lists).
kdir=$("$top/scripts/fetch-debian-suite.sh" "$suite" 2> /dev/null) || skip "scripts/fetch-debian-suite.sh $suite failed"
apt_dir=$cache/apt
apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/etc/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Dir::State::status=/dev/null)
hver=$(apt-cache "${apt_opts[@]}" show "linux-headers-$kver" 2> /dev/null | sed -n 's/^Version: //p' | head -n 1)
[ -n "$hver" ] || hver=$(cat "$kdir/.version" 2> /dev/null || true)
[ -n "$hver" ] || skip "no linux-headers-$kver in $suite"
name=$suite-root-$kver-$hver
root=$cache/$name
tarball=$cache/$name.tar.zst

mirror=${KSC_DEBIAN_MIRROR:-$(grep -m1 -o 'http[^ ]*' "$apt_dir/etc/sources.list" 2> /dev/null || true)}

# run_in ROOT CMD...: CMD chrooted into ROOT with /dev, /proc and the KSC_ROOT_BIND
# folders mounted in a private mount namespace (gone when CMD ends)
run_in() {
	local r=$1
	shift
	unshare --mount --propagation private -- /bin/sh -c '
		r=$1; shift
		mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" || exit 125
		for b in $KSC_ROOT_BIND; do
			mkdir -p "$r/${b#*:}" && mount --bind "${b%%:*}" "$r/${b#*:}" || exit 125
		done
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"
	' sh "$r" "$@"
}
export KSC_ROOT_BIND=${KSC_ROOT_BIND:-}

if [ ! -f "$root/.ksc-complete" ]; then
	rm -rf "$root"
	if [ -f "$tarball" ]; then
		mkdir -p "$root"
		tar -C "$root" --zstd -xf "$tarball" || { rm -rf "$root"; die "cannot unpack $tarball"; }
	else
		command -v debootstrap > /dev/null || skip "debootstrap is not installed (scripts/install-deps.sh --test)"
		command -v zstd > /dev/null || skip "zstd is not installed"
		[ -n "$mirror" ] || skip "no Debian mirror known (set KSC_DEBIAN_MIRROR)"
		echo "sid-root: debootstrap $suite into $root (a few minutes)" >&2
		mkdir -p "$root"
		log=$cache/$name.log
		debootstrap --variant=minbase --include=ca-certificates \
			--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
			"$suite" "$root" "$mirror" > "$log" 2>&1 ||
			{ tail -n 3 "$log" >&2; rm -rf "$root"; skip "debootstrap $suite failed (see $log)"; }
		cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null || true
		# the suite's Release may be past its Valid-Until date
		printf 'Acquire::Check-Valid-Until "false";\nAPT::Install-Recommends "false";\n' \
			> "$root/etc/apt/apt.conf.d/90ksymcheck"
		run_in "$root" apt-get update -qq >> "$log" 2>&1 &&
		run_in "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			make "linux-headers-$kver=$hver" >> "$log" 2>&1 ||
			{ tail -n 3 "$log" >&2; rm -rf "$root"; skip "apt-get install in the $suite root failed (see $log)"; }
		run_in "$root" apt-get clean >> "$log" 2>&1 || true
		tar -C "$root" --zstd -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball" ||
			{ rm -f "$tarball.tmp"; die "cannot write $tarball"; }
	fi
	touch "$root/.ksc-complete"
fi

if [ $# -eq 0 ]; then
	echo "$root"
	exit 0
fi
run_in "$root" "$@"
