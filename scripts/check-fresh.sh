#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `make check-fresh`: the README's quick-start commands, exactly as written there, as a new
# user runs them on a fresh Debian 12 with nothing installed.
#
# A Debian 12 root made by `debootstrap --variant=minbase bookworm` is cached as a tarball
# outside git ($KSC_CACHE/fresh/, default ~/.cache/ksymcheck/fresh/), unpacked anew into a
# temporary folder for every run, and given a copy of this tree's files (those git tracks,
# plus new ones it does not ignore). Inside it, as root (a Debian 12 root user has no
# sudo): `apt-get install make` (the README's one prerequisite), then each command of the
# README's "Quick start" block in order, each echoed first. The packages apt fetches in the
# root are cached too ($KSC_CACHE/fresh/apt-archives), so a second run downloads nothing.
#
# Needs root (chroot, mount) and debootstrap. Prints the suite's own closing line
# ("N passed, N failed, N skipped") last; exits with the first failing command's status.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
	echo "check-fresh: needs root (debootstrap, chroot and mounts)" >&2
	exit 77
fi
command -v debootstrap > /dev/null || {
	echo "check-fresh: debootstrap is not installed (scripts/install-deps.sh --test)" >&2
	exit 77
}

suite=bookworm
cache=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}/fresh
tarball=$cache/$suite-minbase.tar
archives=$cache/apt-archives
mkdir -p "$cache" "$archives/partial"

# The Debian mirror this machine's apt uses for the suite (no address is written here).
# shellcheck disable=SC2016 # $(REPO_URI) is apt's own field syntax
mirror=${KSC_DEBIAN_MIRROR:-$(apt-get indextargets --format '$(REPO_URI) $(CODENAME)' 2>/dev/null |
	awk -v s="$suite" '$2 == s { print $1; exit }')}
if [ -z "$mirror" ]; then
	echo "check-fresh: apt knows no mirror for $suite (run apt-get update, or set KSC_DEBIAN_MIRROR)" >&2
	exit 77
fi

work=$(mktemp -d /var/tmp/ksymcheck-fresh.XXXXXX)
root=$work/root
mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[$i]}" 2> /dev/null || true
	done
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT

if [ ! -f "$tarball" ]; then
	echo "::: debootstrap --variant=minbase $suite (cached as $tarball)"
	debootstrap --variant=minbase --cache-dir="$archives" "$suite" "$work/boot" "$mirror" \
		> "$work/debootstrap.log" 2>&1 || {
		tail -n 30 "$work/debootstrap.log" >&2
		echo "check-fresh: debootstrap failed" >&2
		exit 1
	}
	tar -C "$work/boot" --numeric-owner -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
	rm -rf --one-file-system "${work:?}/boot"
fi

mkdir -p "$root"
tar -C "$root" --numeric-owner -xf "$tarball"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null || true

mnt() { # $1 what to mount, $2 where below the root, then mount's options
	mkdir -p "$root$2"
	mount "${@:3}" "$1" "$root$2"
	mount --make-private "$root$2"
	mounted+=("$root$2")
}
# The root is a mount point of its own, as a machine's is (unshare -m needs that), with
# its own /dev (debootstrap made its nodes), never the machine's: nothing done in the root
# reaches a device or mount of the machine.
mnt "$root" "" --bind
mnt proc /proc -t proc
mnt devpts /dev/pts -t devpts -o newinstance,ptmxmode=0666
mnt tmpfs /dev/shm -t tmpfs
mnt "$archives" /var/cache/apt/archives --bind

# This tree as a new user's clone would have it: tracked files and new unignored ones.
dest=/root/ksymcheck
mkdir -p "$root$dest"
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf - | tar -C "$root$dest" -xf -

# The README's quick-start commands: the lines of the first sh block after "## Quick start".
mapfile -t cmds < <(awk '/^## Quick start/ { q = 1 } q && /^```sh/ { b = 1; next }
	b && /^```/ { exit } b { sub(/[ \t]*#.*/, ""); if ($0 != "") print }' README.md)
if [ ${#cmds[@]} -eq 0 ]; then
	echo "check-fresh: no commands found in README.md's Quick start block" >&2
	exit 1
fi

in_root() { chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

echo "::: fresh Debian 12 root: $(in_root cat /etc/debian_version), $(in_root dpkg-query -W -f='.\n' | wc -l) packages"
echo "\$ apt-get install make"
in_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends make > /dev/null'
for c in "${cmds[@]}"; do
	echo "\$ $c"
	start=$(date +%s)
	rc=0
	in_root sh -c "cd $dest && $c" > "$work/out" 2>&1 || rc=$?
	echo "(exit status $rc, $(($(date +%s) - start)) s)"
	# the demo's whole output; of the test suite, its failures, skips and closing line
	case "$c" in
	*check*) grep -E '^(  not ok|  ok .*# SKIP|  # .*(network|root)|Failures:|  [a-z]+/.*: )|passed, ' \
			"$work/out" || true ;;
	*) sed 's/^/  /' "$work/out" ;;
	esac
	if [ $rc -ne 0 ]; then
		tail -n 40 "$work/out" | sed 's/^/  | /'
		exit $rc
	fi
done
