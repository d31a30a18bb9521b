#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The kbuild lane: build the small test modules of tests/real/kmods/<case>/ against
# Debian's real 6.1 kbuild (the linux-headers/linux-kbuild packages fetched by
# scripts/fetch-debian-kernel.sh) and keep what modpost says, as the oracle for
# `ksymcheck check --view modpost`.
#
# Usage: scripts/kbuild-modules.sh [-j N] [--lenient] OUTDIR [CASE...]
#
# --lenient: build as many .ko files as kbuild allows, for the loader tests (use another
#   OUTDIR): KBUILD_MODPOST_WARN=1 turns "undefined!" into a WARNING, and KBUILD_NSDEPS=1
#   (what `make nsdeps` sets; modpost -N -d <case>/modules.nsdeps) turns the missing
#   namespace import into a WARNING. GPL-only misuse and a missing MODULE_LICENSE() stay
#   errors in 6.1, so those cases still produce no .ko.
#
# For every case (default: every folder of tests/real/kmods that has a Kbuild file):
#   OUTDIR/<case>/             a copy of the case's sources, built in place with
#                              make -C <kbuild dir> M=<absolute OUTDIR/<case>> modules
#   OUTDIR/<case>/build.log    everything make printed (stdout and stderr, in order)
#   OUTDIR/<case>/modpost.txt  the lines of build.log starting with "ERROR: modpost: " or
#                              "WARNING: modpost: " (modpost's own messages, verbatim)
#   OUTDIR/<case>/status       make's exit status (0, or 2 when modpost failed)
#   OUTDIR/<case>/result       ko              every module of modules.order has its .ko
#                              modpost-failed  modpost exited nonzero (no .ko: expected)
#                              compile-failed  make failed before modpost (a bug here)
#   OUTDIR/<case>/.ksc-hash    content hash of the inputs; an unchanged case is not rebuilt
# The M= path is the absolute, symlink-free OUTDIR/<case>; modpost prints it in messages.
#
# Environment: KDIR (the unpacked Debian packages, as set by scripts/real-env.sh; default:
# run scripts/fetch-debian-kernel.sh), KSC_CACHE (cache root, as in the fetch script),
# KSC_KMODS (case folder, default tests/real/kmods), KSC_KBUILD_V=1 (make V=1).
#
# The Debian headers hard-code /usr/src/linux-headers-<ver>-common and (through relative
# symlinks) ../../lib/linux-kbuild-6.1. Nothing is installed under /usr/src or /usr/lib:
# an overlay folder <cache>/kbuild-<kver>/ holds a copy of the kbuild dir's top Makefile
# with the absolute paths rewritten into the extraction, and symlinks to everything else.
#
# Compiler and tools: gcc-12 (the Debian 6.1 kernel's CONFIG_CC_VERSION_TEXT), make,
# binutils, libelf (objtool) are installed with apt-get when missing and possible.
#
# Exit status: 0 every case was built (whatever modpost said; see status/result),
# 1 a case failed before modpost or the setup broke, 3 SKIP: prerequisites cannot be had
# (the reason is the last line on stderr, starting with "SKIP: ").
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KMODS=${KSC_KMODS:-$TOP/tests/real/kmods}
RECIPE=1 # bump when the overlay layout or the build recipe changes

jobs=$(nproc 2> /dev/null || echo 2)
[ "$jobs" -lt 4 ] && jobs=4 # most of a module build is waiting on make startup, not CPU
lenient=
while [ $# -gt 0 ]; do
	case "$1" in
	-j) jobs=$2; shift 2 ;;
	--lenient) lenient=1; shift ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ]; then
	echo "usage: $0 [-j N] [--lenient] OUTDIR [CASE...]" >&2
	exit 1
fi
outdir=$1; shift

skip() { echo "SKIP: $*" >&2; exit 3; }
die() { echo "kbuild-modules: $*" >&2; exit 1; }
log() { echo "kbuild-modules: $*" >&2; }

# ---- 1. the Debian packages
if [ -z "${KDIR:-}" ]; then
	rc=0
	KDIR=$("$TOP/scripts/fetch-debian-kernel.sh") || rc=$?
	[ $rc -eq 3 ] && skip "no Debian kernel packages (scripts/fetch-debian-kernel.sh exited 3)"
	[ $rc -eq 0 ] || die "scripts/fetch-debian-kernel.sh failed (status $rc)"
fi
[ -d "$KDIR" ] || die "KDIR=$KDIR: no such folder"
KDIR=$(cd "$KDIR" && pwd -P)
if [ -f "$KDIR/.kver" ]; then kver=$(cat "$KDIR/.kver"); else
	kver=$(basename "$(find "$KDIR/usr/src" -maxdepth 1 -name 'linux-headers-*-amd64' | sort | tail -n 1)")
	kver=${kver#linux-headers-}
fi
[ -n "$kver" ] || skip "$KDIR/usr/src: no linux-headers-*-amd64 folder (packages not unpacked)"
hdr=$KDIR/usr/src/linux-headers-$kver
if [ ! -f "$hdr/Makefile" ] || [ ! -f "$hdr/Module.symvers" ] || [ ! -f "$hdr/.config" ]; then
	skip "$hdr: the linux-headers-$kver package is not unpacked there"
fi
[ -x "$hdr/scripts/mod/modpost" ] ||
	skip "$hdr/scripts/mod/modpost: the linux-kbuild package is not unpacked there"

# ---- 2. compiler and tools
# CC comes from the headers' .kernelvariables (CC = gcc-12 for Debian 6.1).
cc=$(sed -n 's/^CC = .*)\(gcc-[0-9]*\)$/\1/p' "$hdr/.kernelvariables" 2> /dev/null | head -n 1)
: "${cc:=gcc-12}"
missing_pkgs() {
	local p=()
	command -v "$cc" > /dev/null || p+=("$cc")
	command -v make > /dev/null || p+=(make)
	command -v ld > /dev/null && command -v objcopy > /dev/null || p+=(binutils)
	command -v flock > /dev/null || p+=(util-linux)
	command -v sha256sum > /dev/null || p+=(coreutils)
	ldd "$hdr/tools/objtool/objtool" 2> /dev/null | grep -q 'libelf.*not found' && p+=(libelf1)
	ldd "$hdr/tools/objtool/objtool" 2> /dev/null | grep -q 'libz.*not found' && p+=(zlib1g)
	echo "${p[@]}"
}
need=$(missing_pkgs)
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		log "installing $need with apt-get"
		read -ra pkgs <<< "$need"
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" ||
			{ apt-get update -q && DEBIAN_FRONTEND=noninteractive \
				apt-get install -y -q --no-install-recommends "${pkgs[@]}"; }; } > /dev/null 2>&1 || true
	fi
	need=$(missing_pkgs)
	[ -z "$need" ] || skip "cannot install $need (needed to build modules against the Debian $kver kbuild)"
fi
ccver=$("$cc" --version | head -n 1)
want=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$hdr/.config")
[ "$ccver" = "$want" ] || log "note: $cc is '$ccver', the kernel was built with '$want'"

# ---- 3. the overlay kbuild dir
cache=$(dirname "$KDIR")
ovl=$cache/kbuild-$kver
stamp="recipe $RECIPE; headers $hdr"
exec 9> "$ovl.lock"
flock 9
if [ "$(cat "$ovl/.ksc-overlay" 2> /dev/null)" != "$stamp" ]; then
	tmp=$(mktemp -d "$ovl.tmp.XXXXXX")
	# The top Makefile is one line: include /usr/src/linux-headers-<ver>-common/Makefile
	sed -e "s|/usr/src/|$KDIR/usr/src/|g" -e "s|/usr/lib/linux-kbuild|$KDIR/usr/lib/linux-kbuild|g" \
		"$hdr/Makefile" > "$tmp/Makefile"
	for e in "$hdr"/* "$hdr"/.[!.]*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		[ "$(basename "$e")" = Makefile ] && continue
		ln -s "$e" "$tmp/$(basename "$e")"
	done
	grep -q "^include $KDIR/" "$tmp/Makefile" || die "unexpected $hdr/Makefile: $(head -c 200 "$hdr/Makefile")"
	echo "$stamp" > "$tmp/.ksc-overlay"
	rm -rf "$ovl"
	mv "$tmp" "$ovl"
fi
flock -u 9
exec 9>&-
# No other absolute /usr/src or /usr/lib path is used by an M= build: the common
# Makefile computes srctree from its own location, and scripts/ and tools/ are relative
# symlinks inside the extraction.

# ---- 4. the cases
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd -P)
if [ $# -eq 0 ]; then
	set --
	for d in "$KMODS"/*/; do [ -f "$d/Kbuild" ] && set -- "$@" "$(basename "$d")"; done
fi
for c in "$@"; do [ -f "$KMODS/$c/Kbuild" ] || die "$KMODS/$c/Kbuild: no such case"; done

case_hash() { # $1 case
	{
		echo "recipe $RECIPE${lenient:+ lenient}"; echo "kver $kver"; echo "ovl $ovl"; echo "m $outdir/$1"
		echo "cc $ccver"; sha256sum "$hdr/Module.symvers" "$hdr/.config"
		(cd "$KMODS/$1" && find . -type f | LC_ALL=C sort | xargs sha256sum)
	} | sha256sum | cut -d' ' -f1
}

build_case() { # $1 case
	local c=$1 m=$outdir/$1 h rc
	h=$(case_hash "$c")
	exec 8> "$outdir/.$c.lock"
	flock 8
	if [ -f "$m/result" ] && [ "$(cat "$m/.ksc-hash" 2> /dev/null)" = "$h" ]; then
		echo "$c: $(cat "$m/result") (cached)"
		return 0
	fi
	rm -rf "$m"
	mkdir -p "$m"
	cp -R "$KMODS/$c/." "$m/"
	local extra=()
	[ -z "$lenient" ] || extra=(KBUILD_MODPOST_WARN=1 KBUILD_NSDEPS=1 MODULES_NSDEPS="$m/modules.nsdeps")
	rc=0
	# Only the variables kbuild documents are cleared; MAKEFLAGS & co. from an outer make
	# (make check-real) must not leak in: an "i" in MAKEFLAGS turns on modpost -n.
	env -u KBUILD_MODPOST_WARN -u KBUILD_EXTRA_SYMBOLS -u KBUILD_OUTPUT -u O \
		-u ARCH -u CROSS_COMPILE -u CC -u LD -u W -u C -u V -u KBUILD_VERBOSE \
		-u KCFLAGS -u KCPPFLAGS -u KAFLAGS -u KBUILD_NSDEPS -u KBUILD_EXTRA_WARN \
		-u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u GNUMAKEFLAGS \
		LC_ALL=C make -C "$ovl" M="$m" ${KSC_KBUILD_V:+V=1} "${extra[@]}" modules \
		> "$m/build.log" 2>&1 || rc=$?
	echo "$rc" > "$m/status"
	grep -E '^(ERROR|WARNING): modpost: ' "$m/build.log" > "$m/modpost.txt" || true
	local res=ko ko
	if [ "$rc" -ne 0 ]; then
		if grep -q 'Makefile\.modpost:[0-9]*: .*\] Error' "$m/build.log"; then
			res=modpost-failed
		else
			res=compile-failed
		fi
	else
		while IFS= read -r ko; do
			[ -f "$ko" ] || res=compile-failed
		done < "$m/modules.order"
	fi
	echo "$res" > "$m/result"
	echo "$h" > "$m/.ksc-hash"
	echo "$c: $res (make status $rc, $(wc -l < "$m/modpost.txt") modpost lines)"
}

start=$(date +%s.%N)
pids=()
names=()
for c in "$@"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	build_case "$c" &
	pids+=($!)
	names+=("$c")
done
bad=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || { log "${names[$i]}: build script failed"; bad=1; }
done
for c in "$@"; do
	if [ "$(cat "$outdir/$c/result" 2> /dev/null)" = compile-failed ]; then
		log "$c: failed before modpost; see $outdir/$c/build.log:"
		tail -n 15 "$outdir/$c/build.log" >&2
		bad=1
	fi
done
log "$# cases in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s (kbuild dir $ovl)"
exit $bad
