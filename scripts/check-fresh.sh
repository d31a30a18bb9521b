#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `make check-fresh`: the README's quick-start commands, exactly as written there, as a new
# user runs them on a fresh Debian 12 with nothing installed, twice: as root, and as a user
# with sudo (the README promises both).
#
# A Debian 12 root made by `debootstrap --variant=minbase bookworm` is cached as a tarball
# outside git ($KSC_CACHE/fresh/, default ~/.cache/ksymcheck/fresh/), unpacked anew into a
# temporary folder for every pass, and given a copy of this tree's files (those git tracks,
# plus new ones it does not ignore). The root pass: `apt-get install make` (the README's one
# prerequisite; a Debian 12 root user has no sudo), then each command of the README's "Quick
# start" block in order, each echoed first. The user pass, in a second fresh root: root
# installs make and sudo and makes a user `newuser` who may use sudo without a password;
# the copy is the user's, and the same commands run as that user; then `make check` once
# more with /dev/pts unmounted (as in a container or a chroot without a terminal): the
# terminal tests must skip, not fail. The packages apt fetches are cached too
# ($KSC_CACHE/fresh/apt-archives), so a second run downloads nothing.
# KSC_FRESH_PASSES="root user" picks the passes (default: both).
#
# Needs root (chroot, mount) and debootstrap. Prints each pass's suite closing line
# ("N passed, N failed, N skipped"); exits with the first failing command's status.
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
root=
mounted=()
cleanup() {
	unmount_all
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

# The README's quick-start commands: the lines of the first sh block after "## Quick start".
mapfile -t cmds < <(awk '/^## Quick start/ { q = 1 } q && /^```sh/ { b = 1; next }
	b && /^```/ { exit } b { sub(/[ \t]*#.*/, ""); if ($0 != "") print }' README.md)
if [ ${#cmds[@]} -eq 0 ]; then
	echo "check-fresh: no commands found in README.md's Quick start block" >&2
	exit 1
fi

mnt() { # $1 what to mount, $2 where below the root, then mount's options
	mkdir -p "$root$2"
	mount "${@:3}" "$1" "$root$2"
	mount --make-private "$root$2"
	mounted+=("$root$2")
}

unmount_all() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[$i]}" 2> /dev/null || true
	done
	mounted=()
}

# in_root USER CMD...: CMD in the root as USER (root or newuser), with a clean environment.
in_root() {
	local user=$1 home=/root ids=0:0
	shift
	if [ "$user" != root ]; then # numeric: the machine's passwd has no such user
		home=/home/$user
		ids=$(awk -F: -v u="$user" '$1 == u { print $3 ":" $4 }' "$root/etc/passwd")
	fi
	chroot --userspec="$ids" "$root" /usr/bin/env -i HOME="$home" USER="$user" \
		TERM=dumb LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

# run_cmd USER DIR CMD: CMD in DIR of the root as USER, echoed first; its output shown (the
# test suite's failures, skips and closing line); stops the script when it fails.
run_cmd() {
	local start rc=0
	echo "\$ $3"
	start=$(date +%s)
	in_root "$1" sh -c "cd $2 && $3" > "$work/out" 2>&1 || rc=$?
	echo "(exit status $rc, $(($(date +%s) - start)) s)"
	case "$3" in
	*check*) grep -E '^(  not ok|  ok .*# SKIP|  # .*(network|root)|Failures:|  [a-z]+/.*: )|passed, ' \
			"$work/out" || true ;;
	*) sed 's/^/  /' "$work/out" ;;
	esac
	if [ $rc -ne 0 ]; then
		tail -n 40 "$work/out" | sed 's/^/  | /'
		exit $rc
	fi
}

# fresh_pass root|user: a new root from the tarball, the prerequisites, the commands.
fresh_pass() {
	local pass=$1 user=root dest c
	root=$work/root-$pass
	mkdir -p "$root"
	tar -C "$root" --numeric-owner -xf "$tarball"
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null || true
	# The root is a mount point of its own, as a machine's is (unshare -m needs that), with
	# its own /dev (debootstrap made its nodes), never the machine's: nothing done in the
	# root reaches a device or mount of the machine.
	mnt "$root" "" --bind
	mnt proc /proc -t proc
	mnt devpts /dev/pts -t devpts -o newinstance,ptmxmode=0666
	mnt tmpfs /dev/shm -t tmpfs
	mnt "$archives" /var/cache/apt/archives --bind

	echo "::: fresh Debian 12 root, as $pass: $(in_root root cat /etc/debian_version)," \
		"$(in_root root dpkg-query -W -f='.\n' | wc -l) packages"
	if [ "$pass" = root ]; then
		echo "\$ apt-get install make"
		in_root root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends make > /dev/null'
		dest=/root/ksymcheck
	else
		user=newuser
		echo "# apt-get install make sudo; useradd -m $user; $user may use sudo"
		echo "127.0.1.1 $(hostname)" >> "$root/etc/hosts" # as the installer writes it, for sudo
		in_root root sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends make sudo > /dev/null &&
			useradd -m -s /bin/sh $user && echo '$user ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/$user && chmod 440 /etc/sudoers.d/$user"
		dest=/home/$user/ksymcheck
	fi

	# This tree as a new user's clone would have it: tracked files and new unignored ones.
	mkdir -p "$root$dest"
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf - | tar -C "$root$dest" -xf -
	# npm reaches its registry as this machine's npm does: the CA file its configuration
	# names (a network that inspects TLS has a CA of its own, which a fresh root lacks)
	# goes into the user's ~/.npmrc. (install-deps.sh --test fetches the SARIF schema
	# with npm.)
	host_ca=$(npm config get cafile 2> /dev/null || true)
	if [ -n "$host_ca" ] && [ "$host_ca" != null ] && [ -f "$host_ca" ]; then
		cp "$host_ca" "$root/etc/ksymcheck-host-ca.crt"
		echo "cafile=/etc/ksymcheck-host-ca.crt" > "$root${dest%/ksymcheck}/.npmrc"
		[ "$user" = root ] || in_root root chown "$user:$user" "${dest%/ksymcheck}/.npmrc"
	fi
	[ "$user" = root ] || in_root root chown -R "$user:$user" "$dest"

	for c in "${cmds[@]}"; do
		run_cmd "$user" "$dest" "$c"
	done
	if [ "$pass" = user ]; then
		# Once more with no /dev/pts: no terminal can be opened, so the terminal tests skip
		# and nothing fails.
		umount -l "$root/dev/pts"
		echo "# umount /dev/pts (a root with no terminal)"
		run_cmd "$user" "$dest" "make check"
	fi
	unmount_all
	rm -rf --one-file-system "$root"
}

for p in ${KSC_FRESH_PASSES:-root user}; do
	case $p in
	root | user) fresh_pass "$p" ;;
	*) echo "check-fresh: KSC_FRESH_PASSES: $p is not root or user" >&2; exit 2 ;;
	esac
done
