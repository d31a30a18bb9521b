#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ksymcheck compat` predicts a real build: Debian's DKMS packages (sid's versions, the
# *-dkms .deb of scripts/fetch-dkms-deb.sh) built with Debian's real dkms against
# trixie's 6.12 (a trixie root, gcc-14) and sid's 7.2 (the sid root, gcc-16) by
# scripts/dkms-build.sh, each build cached by root and package version. Then, from the
# 6.12 build's modules and the package's source, `compat --src SRC -k trixie -k sid -k
# experimental` (the unpacked Debian kernels of scripts/fetch-debian-suite.sh, with their
# headers' BTF) says for each package what 7.2 does (the worst cell of its modules in
# the 7.2 column: fails, may-fail, ok), and the real 7.2 build decides:
# - "compat-dkms PACKAGE: predicted as 7.2 builds it": a package that fails on 7.2 is
#   predicted to fail, and a symbol or struct it names as the cause is named by the
#   real build's errors (modpost's or the compiler's); one that builds is not predicted
#   to fail (may-fail is allowed, and shown).
# - "compat-dkms: no false fails": no package that builds on 7.2 is predicted to fail.
# The prediction table (package, predicted, real, why) is printed as TAP comments and
# written to $OUT/compat-dkms-<kernel>/table.txt; compat's JSON and the builds' logs
# next to it. COMPAT_DKMS_PACKAGES names the packages (default below).
# Real kernels: sid
# shellcheck disable=SC2034 # read by scripts/real-env.sh
read -r -a PACKAGES <<< "${COMPAT_DKMS_PACKAGES:-v4l2loopback-dkms jool-dkms dm-writeboost-dkms acpi-call-dkms evdi-dkms gost-crypto-dkms}"
REAL_TESTS=("compat-dkms: the packages built on 6.12 and 7.2 (scripts/dkms-build.sh)")
for p in "${PACKAGES[@]}"; do REAL_TESTS+=("compat-dkms ${p%-dkms}: predicted as 7.2 builds it"); done
REAL_TESTS+=("compat-dkms: no false fails")
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

case $RULES in
7.2) ;;
*) real_skip_all "$REAL_LABEL: the lane predicts sid's 7.2 from trixie's 6.12" ;;
esac
command -v unshare > /dev/null || real_skip_all "no unshare(1)"
[ "$(id -u)" = 0 ] || real_skip_all "needs root (chroot, overlay mounts)"
start=$(real_now)

# The other two kernels, unpacked like this one.
OLD=$("$TOP/scripts/fetch-debian-suite.sh" trixie 2> "$T_TMP/fetch.err") ||
	real_skip_all "no trixie kernel ($(tail -n 1 "$T_TMP/fetch.err"))"
NEXT=$("$TOP/scripts/fetch-debian-suite.sh" experimental 2> "$T_TMP/fetch.err") ||
	real_skip_all "no experimental kernel ($(tail -n 1 "$T_TMP/fetch.err"))"
OLD_KVER=$(cat "$OLD/.kver")

MDIR=$TOP/$OUT/compat-dkms-$REAL_KERNEL
case "$OUT" in /*) MDIR=$OUT/compat-dkms-$REAL_KERNEL ;; esac
rm -rf "$MDIR"
mkdir -p "$MDIR"

# The packages: .deb, version and source folder each.
declare -A DEB VER SRC
debs=()
rc=0
mapfile -t got < <("$TOP/scripts/fetch-dkms-deb.sh" sid "${PACKAGES[@]}" 2> "$T_TMP/deb.err") || rc=$?
[ $rc -eq 3 ] && real_skip_all "no DKMS packages ($(tail -n 1 "$T_TMP/deb.err"))"
[ ${#got[@]} -eq $((3 * ${#PACKAGES[@]})) ] ||
	real_fail_all "scripts/fetch-dkms-deb.sh failed: $(tail -n 2 "$T_TMP/deb.err" | tr '\n' ' ')"
for i in "${!PACKAGES[@]}"; do
	p=${PACKAGES[i]}
	DEB[$p]=${got[3 * i]} VER[$p]=${got[3 * i + 1]} SRC[$p]=${got[3 * i + 2]}
	debs+=("${DEB[$p]}")
done

# Both builds (cached: a package version is built once per root).
declare -A OUT612 OUT72
for side in old new; do
	if [ $side = old ]; then suite=trixie kver=$OLD_KVER; else suite=sid kver=$KVER; fi
	rc=0
	mapfile -t dirs < <("$TOP/scripts/dkms-build.sh" "$suite" "$kver" "${debs[@]}" 2> "$T_TMP/build.err") || rc=$?
	if [ $rc -eq 3 ]; then
		real_skip_all "no $suite root to build in ($(tail -n 1 "$T_TMP/build.err" | sed 's/^SKIP: //'))"
	fi
	[ ${#dirs[@]} -eq ${#PACKAGES[@]} ] ||
		real_fail_all "scripts/dkms-build.sh $suite failed: $(tail -n 3 "$T_TMP/build.err" | tr '\n' ' ')"
	for i in "${!PACKAGES[@]}"; do
		if [ $side = old ]; then OUT612[${PACKAGES[i]}]=${dirs[i]}; else OUT72[${PACKAGES[i]}]=${dirs[i]}; fi
	done
done
t_ok "${REAL_TESTS[0]} (${#PACKAGES[@]} packages, $(real_elapsed "$start") s)"

# What compat says of the 7.2 column, from its JSON: the worst build word, the errors'
# symbols (a struct as "struct NAME") and one line of why.
summarise() { # JSON-FILE RELEASE
	python3 - "$1" "$2" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rank = {"ok": 0, "may-fail": 1, "fails": 2}
worst, errors, why = "ok", [], []
for m in d["modules"]:
    for c in m["cells"]:
        if c["release"] != sys.argv[2]:
            continue
        if rank[c["build"]] > rank[worst]:
            worst = c["build"]
        for f in c["findings"]:
            if f["verdict"] == "note":
                continue
            sym = f["type_name"] if f["code"] == "struct-changed" and f["type_name"] else f["symbol"]
            if f["verdict"] == "error" and f["named_in_source"]:
                errors.append(sym)
            why.append((f["verdict"] != "error", "%s: %s %s" % (m["module"], f["code"], sym)))
seen = []
for _, w in sorted(why, key=lambda x: x[0]):  # the errors first
    if w not in seen:
        seen.append(w)
print(worst)
print(" ".join(dict.fromkeys(errors)))
print("; ".join(seen[:3]) or "-")
PY
}

# compat keeps each kernel's index under the lane's own cache folder (not the user's, and
# not one per run: the three kernels' trees are read once, then the run takes seconds)
export XDG_CACHE_HOME=$KSC_CACHE/compat-dkms-xdg
printf '%-26s %-9s %-7s %s\n' package predicted real why > "$MDIR/table.txt"
n=1 false_fails=0
for p in "${PACKAGES[@]}"; do
	o612=${OUT612[$p]} o72=${OUT72[$p]} name=${p%-dkms}
	mkdir -p "$MDIR/$name"
	cp "$o612/make.log" "$MDIR/$name/make-6.12.log" 2> /dev/null
	cp "$o72/make.log" "$MDIR/$name/make-7.2.log" 2> /dev/null
	if [ "$(cat "$o612/status")" != 0 ] || ! ls "$o612"/modules/*.ko > /dev/null 2>&1; then
		t_skip "${REAL_TESTS[n]}" "$p ${VER[$p]} does not build on $OLD_KVER (status $(cat "$o612/status"))"
		n=$((n + 1))
		continue
	fi
	real=builds
	[ "$(cat "$o72/status")" = 0 ] || real=fails
	t0=$(real_now)
	"$KSC" compat --json --src "${SRC[$p]}" -k "$OLD" -k "$KDIR" -k "$NEXT" "$o612"/modules/*.ko \
		> "$MDIR/$name/compat.json" 2> "$MDIR/$name/compat.err"
	st=$?
	secs=$(real_elapsed "$t0")
	mapfile -t s < <(summarise "$MDIR/$name/compat.json" "$KVER" 2> "$MDIR/$name/summary.err")
	predicted=${s[0]:-none} named=${s[1]:-} why=${s[2]:-}
	printf '%-26s %-9s %-7s %s\n' "$name ${VER[$p]}" "$predicted" "$real" "$why" >> "$MDIR/table.txt"
	echo "# $name ${VER[$p]}: compat status $st in $secs s; predicted $predicted, real $real; errors named: ${named:-none}"
	# the real build's errors: modpost's and the compiler's lines
	grep -E '^ERROR: |error: ' "$o72/make.log" 2> /dev/null > "$MDIR/$name/errors-7.2.txt"
	case $real:$predicted in
	fails:fails)
		hit=
		for sym in $named; do
			[ "$sym" = struct ] && continue
			grep -qw -- "$sym" "$MDIR/$name/errors-7.2.txt" && hit="$hit $sym"
		done
		if [ -n "$hit" ]; then
			t_ok "${REAL_TESTS[n]} (fails; named by the real build:$hit)"
		else
			t_fail "${REAL_TESTS[n]}" "predicted fails on ${named:-nothing}, which the real build's errors do not name" \
				"$(head -n 3 "$MDIR/$name/errors-7.2.txt")"
		fi
		;;
	builds:ok | builds:may-fail) t_ok "${REAL_TESTS[n]} (builds; predicted $predicted)" ;;
	builds:fails)
		false_fails=$((false_fails + 1))
		t_fail "${REAL_TESTS[n]}" "a false fails: 7.2 builds it, compat named ${named:-nothing}" ;;
	*) t_fail "${REAL_TESTS[n]}" "7.2 $real it, compat predicted $predicted" \
		"$(head -n 3 "$MDIR/$name/errors-7.2.txt")" ;;
	esac
	n=$((n + 1))
done
sed 's/^/# /' "$MDIR/table.txt"
if [ "$false_fails" = 0 ]; then t_ok "${REAL_TESTS[n]}"; else t_fail "${REAL_TESTS[n]}" "$false_fails false fails"; fi
echo "# compat-dkms $REAL_LABEL: $(real_elapsed "$start") s"
