#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# contrib/dkms/ksymcheck-post-build as a maintainer adopts it, with Debian's real dkms
# (3.2.2 in sid) on Debian's real DKMS packages, against sid's 7.2: on a machine with only
# its headers and on one where it is installed (linux-image + linux-base). The roots come
# from scripts/dkms-root.sh (cached outside git); every run works in an overlay over them,
# so each build starts from the same state and nothing is left behind.
#
# Per root and package (v4l2loopback-dkms, xone-dkms, jool-dkms): the package's files
# unpacked (dpkg -x), its dkms.conf given the two lines contrib/dkms/README.md asks for
# (POST_BUILD and PRE_INSTALL) and the hook as a link to the installed one, ksymcheck
# (this build) in /usr/local/bin, then `dkms add` and `dkms install -k KVER`.
# Must show: v4l2loopback and xone build and install with the hook (its line "every
# module would load", the modules in /lib/modules/KVER/updates/dkms), on both roots; jool
# does not: modpost fails its build on snmp_fold_field, which 7.2 no longer exports, and
# built anyway (KBUILD_MODPOST_WARN=1) the hook fails it, its first refusal naming
# snmp_fold_field and each module that needs jool_common saying so once (dep-refused).
# Outputs under $OUT/dkms72-<kernel>/<root>/<package>/: dkms.log, make.log, status,
# installed (the modules installed).
# Real kernels: sid
# shellcheck disable=SC2034 # read by scripts/real-env.sh
REAL_TESTS=("dkms72: roots with dkms and the packages (scripts/dkms-root.sh)"
	"dkms72 headers-only 7.2: v4l2loopback-dkms builds and installs with the hook"
	"dkms72 headers-only 7.2: xone-dkms builds and installs with the hook"
	"dkms72 headers-only 7.2: jool-dkms fails, snmp_fold_field named first"
	"dkms72 headers-only 7.2: jool-dkms built anyway: the hook refuses it, snmp_fold_field first"
	"dkms72 installed 7.2: v4l2loopback-dkms builds and installs with the hook"
	"dkms72 installed 7.2: xone-dkms builds and installs with the hook"
	"dkms72 installed 7.2: jool-dkms fails, snmp_fold_field named first"
	"dkms72 installed 7.2: jool-dkms built anyway: the hook refuses it, snmp_fold_field first")
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

case $RULES in
7.2) ;;
*) real_skip_all "$REAL_LABEL: the lane is written for 7.2 (sid)" ;;
esac
command -v unshare > /dev/null || real_skip_all "no unshare(1)"
[ "$(id -u)" = 0 ] || real_skip_all "needs root (chroot, overlay mounts)"
start=$(real_now)
declare -A ROOTS
for kind in headers installed; do
	rc=0
	ROOTS[$kind]=$("$TOP/scripts/dkms-root.sh" --suite "$REAL_KERNEL" "$KVER" "$kind" 2> "$T_TMP/root.err") || rc=$?
	if [ $rc -eq 3 ]; then
		real_skip_all "no root with dkms and the packages ($(grep '^SKIP: ' "$T_TMP/root.err" | tail -n 1 | sed 's/^SKIP: //'))"
	elif [ $rc -ne 0 ]; then
		real_fail_all "scripts/dkms-root.sh $kind failed (status $rc): $(tail -n 3 "$T_TMP/root.err" | tr '\n' ' ')"
	fi
done
t_ok "${REAL_TESTS[0]} ($(basename "${ROOTS[headers]}"), $(basename "${ROOTS[installed]}"), $(real_elapsed "$start") s)"

MDIR=$TOP/$OUT/dkms72-$REAL_KERNEL
case "$OUT" in /*) MDIR=$OUT/dkms72-$REAL_KERNEL ;; esac
rm -rf "$MDIR"
mkdir -p "$MDIR"
MDIR=$(cd "$MDIR" && pwd -P)

# What runs inside the root, for each package: $1 KVER, $2 the output folder, $3... the
# packages' names (the .deb in /var/cache/apt/archives is PACKAGE_*.deb).
cat > "$T_TMP/inside.sh" <<'INSIDE'
set -u
kver=$1 out=$2
shift 2
install -m 755 /ksc/ksymcheck /usr/local/bin/ksymcheck
mkdir -p /usr/share/ksymcheck/dkms
install -m 755 /ksc/ksymcheck-post-build /usr/share/ksymcheck/dkms/
for pkg in "$@"; do
	o=$out/$pkg
	mkdir -p "$o"
	deb=$(ls /var/cache/apt/archives/"${pkg}"_*.deb | tail -n 1)
	dpkg -x "$deb" /
	conf=$(dpkg-deb -c "$deb" | sed -n 's|.* \./\(usr/src/[^/]*\)/dkms.conf$|/\1/dkms.conf|p' | head -n 1)
	src=${conf%/dkms.conf}
	name=$(sh -c '. "$1"; echo "$PACKAGE_NAME"' sh "$conf" 2> /dev/null)
	ver=$(sh -c '. "$1"; echo "$PACKAGE_VERSION"' sh "$conf" 2> /dev/null)
	echo "$pkg $(dpkg-deb -f "$deb" Version): $src ($name $ver)" > "$o/package"
	grep -E '^(POST_BUILD|PRE_INSTALL)=' "$conf" > "$o/own-hooks" || true
	ln -sf /usr/share/ksymcheck/dkms/ksymcheck-post-build "$src/"
	printf '%s\n' 'POST_BUILD="ksymcheck-post-build ${kernelver} ${arch}"' \
		'PRE_INSTALL="ksymcheck-post-build ${kernelver} ${arch}"' >> "$conf"
	st=0
	{ dkms add -m "$name" -v "$ver" && dkms install -m "$name" -v "$ver" -k "$kver"; } > "$o/dkms.log" 2>&1 || st=$?
	echo "$st" > "$o/status"
	cp "/var/lib/dkms/$name/$ver/build/make.log" "$o/make.log" 2> /dev/null || : > "$o/make.log"
	(cd "/lib/modules/$kver/updates/dkms" 2> /dev/null && ls) > "$o/installed" || true
	# A build that modpost fails, once more with modpost's errors as warnings (as a
	# maintainer forcing it would): the modules are made, and the hook judges them.
	if [ "$st" != 0 ]; then
		st=0
		KBUILD_MODPOST_WARN=1 dkms build --force -m "$name" -v "$ver" -k "$kver" > "$o/lenient.log" 2>&1 || st=$?
		echo "$st" > "$o/lenient-status"
		cp "/var/lib/dkms/$name/$ver/build/make.log" "$o/lenient-make.log" 2> /dev/null || : > "$o/lenient-make.log"
	fi
done
INSIDE

# run_root KIND PACKAGE...: the packages in an overlay over the root of KIND
run_root() {
	local kind=$1 lower=${ROOTS[$1]} w=$MDIR/.ov-$1
	shift
	mkdir -p "$w/upper" "$w/work" "$w/merged" "$MDIR/$kind" "$w/ksc"
	cp "$KSC" "$w/ksc/ksymcheck"
	cp "$TOP/contrib/dkms/ksymcheck-post-build" "$T_TMP/inside.sh" "$w/ksc/"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private -- /bin/sh -c '
		lower=$1 w=$2 mdir=$3; shift 3
		m=$w/merged
		mount -t overlay overlay -o "lowerdir=$lower,upperdir=$w/upper,workdir=$w/work" "$m" &&
		mount --rbind /dev "$m/dev" && mount -t proc proc "$m/proc" &&
		mkdir -p "$m/ksc" "$m/out" && mount --bind "$w/ksc" "$m/ksc" &&
		mount --bind "$mdir" "$m/out" || exit 125
		exec chroot "$m" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 /bin/sh /ksc/inside.sh "$@"
	' sh "$lower" "$w" "$MDIR/$kind" "$KVER" /out "$@"
	local st=$?
	rm -rf "$w"
	return $st
}

# What the hook said (in dkms's output when it passes, in make.log when it fails).
hook_lines() { cat "$@" 2> /dev/null | sed -n '/^ksymcheck-post-build: /,$p'; }

pass_case() { # TAP-NAME KIND PACKAGE
	local o=$MDIR/$2/$3
	local said mods
	said=$(hook_lines "$o/dkms.log" "$o/make.log" | grep -c "^ksymcheck-post-build: every module would load on $KVER")
	mods=$(grep -c '\.ko' "$o/installed" 2> /dev/null)
	echo "# $2 $(cat "$o/package" 2> /dev/null): dkms status $(cat "$o/status" 2> /dev/null), installed: $(tr '\n' ' ' < "$o/installed" 2> /dev/null)"
	hook_lines "$o/dkms.log" "$o/make.log" | grep -v '^Installing ' | sed 's/^/#   /' | head -n 25
	if [ "$(cat "$o/status" 2> /dev/null)" = 0 ] && [ "${said:-0}" -ge 1 ] && [ "${mods:-0}" -ge 1 ]; then
		t_ok "$1"
	else
		t_fail "$1" "dkms status $(cat "$o/status" 2> /dev/null), hook said 'every module would load' ${said:-0} times, ${mods:-0} modules installed" \
			"$(tail -n 15 "$o/dkms.log" 2> /dev/null)"
	fi
}

# jool: 7.2 no longer exports snmp_fold_field to modules. The build fails (modpost names
# it first); built with modpost's errors as warnings, the hook fails it, its first refusal
# naming snmp_fold_field and each module that needs jool_common saying so once.
refused_case() { # TAP-NAME TAP-NAME-LENIENT KIND PACKAGE
	local o=$MDIR/$3/$4 first deps
	first=$(grep -m 1 -E '^ERROR: |: loader: refused: ' "$o/make.log" 2> /dev/null)
	echo "# $3 $(cat "$o/package" 2> /dev/null): dkms status $(cat "$o/status" 2> /dev/null), first error: $first"
	case $(cat "$o/status" 2> /dev/null):$first in
	0:* | :*) t_fail "$1" "dkms status $(cat "$o/status" 2> /dev/null): expected a failure" "$(tail -n 15 "$o/dkms.log" 2> /dev/null)" ;;
	*:*snmp_fold_field*) t_ok "$1" ;;
	*) t_fail "$1" "the first error: ${first:-none}" "$(tail -n 15 "$o/dkms.log" 2> /dev/null)" ;;
	esac
	first=$(grep -m 1 ': loader: refused: ' "$o/lenient-make.log" 2> /dev/null)
	deps=$(grep -c ': loader: refused: .*\[dep-refused\]$' "$o/lenient-make.log" 2> /dev/null)
	echo "# $3 $4 with KBUILD_MODPOST_WARN=1: dkms status $(cat "$o/lenient-status" 2> /dev/null); what the hook refused:"
	grep -E ': loader: refused: |^ksymcheck-post-build: (error|warning)' "$o/lenient-make.log" 2> /dev/null | sed 's/^/#   /' | head -n 20
	case $(cat "$o/lenient-status" 2> /dev/null):$first in
	0:* | :*) t_fail "$2" "dkms status $(cat "$o/lenient-status" 2> /dev/null): expected the hook to fail the build" "$(tail -n 15 "$o/lenient.log" 2> /dev/null)" ;;
	*:*snmp_fold_field*\[unresolved\]) t_ok "$2 (then $deps dep-refused lines)" ;;
	*) t_fail "$2" "the first refusal: ${first:-none}" "$(tail -n 15 "$o/lenient-make.log" 2> /dev/null)" ;;
	esac
}

n=1
for kind in headers installed; do
	t0=$(real_now)
	run_root "$kind" v4l2loopback-dkms xone-dkms jool-dkms > "$MDIR/$kind.log" 2>&1 ||
		echo "# the $kind root: status $? ($(tail -n 3 "$MDIR/$kind.log" | tr '\n' ' '))"
	echo "# $kind: three packages in $(real_elapsed "$t0") s"
	pass_case "${REAL_TESTS[n]}" "$kind" v4l2loopback-dkms
	pass_case "${REAL_TESTS[n + 1]}" "$kind" xone-dkms
	refused_case "${REAL_TESTS[n + 2]}" "${REAL_TESTS[n + 3]}" "$kind" jool-dkms
	n=$((n + 4))
done
echo "# dkms72 $REAL_LABEL: $(real_elapsed "$start") s"
