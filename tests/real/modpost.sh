#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The kbuild lane: modpost itself is the oracle for `ksymcheck check --view modpost`.
#
# scripts/kbuild-modules.sh builds every case of tests/real/kmods/ against Debian's real
# 6.1 kbuild (linux-headers + linux-kbuild, unpacked by scripts/fetch-debian-kernel.sh)
# into $OUT/kbuild/<case>/ and keeps modpost's own lines in modpost.txt. For every case:
#
# 1. "kbuild <case>: modpost output as recorded": make's status and modpost's lines equal
#    tests/real/kmods/<case>/modpost.expected (first line "status=N", then the lines, with
#    @M@ for the absolute build folder of the case). Also: a case whose modpost failed has
#    its <name>.o files and no .ko; a case that passed has every .ko of modules.order.
# 2. "ksymcheck check --view modpost <case>": `ksymcheck check --symvers <Module.symvers of
#    the headers> --config <their .config> --policy 6.1 --view modpost --format kernel
#    FILE...` prints exactly modpost's lines,
#    in modpost's order (6.1's modpost order is deterministic: license problems found while
#    reading the object first, then per undefined symbol in the object's .symtab order:
#    undefined / namespace / GPL-only; the "suppressed" warning last). FILE... are the
#    case's modules in modules.order order: <name>.ko when it was built, else <name>.o
#    (the object modpost read: ET_REL with the source's .modinfo only). Skipped while
#    ksymcheck has no "check" command.
# 3. For proprietary_provider: the .symtab order the loader tests rely on (see the
#    comments in tests/real/kmods/proprietary_provider/*.c).
REAL_TESTS=("kbuild lane: build the test modules against Debian's 6.1 kbuild")
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ -f "$TOP/scripts/real-env.sh" ]; then
	# shellcheck source=scripts/real-env.sh
	. "$TOP/scripts/real-env.sh"
else
	rc=0
	KDIR=$("$TOP/scripts/fetch-debian-kernel.sh" 2> "$T_TMP/fetch.err") || rc=$?
	if [ $rc -ne 0 ]; then
		t_skip "${REAL_TESTS[0]}" "no Debian kernel packages ($(tail -n 1 "$T_TMP/fetch.err"))"
		exit 0
	fi
	KVER=$(cat "$KDIR/.kver")
	SYMVERS=$KDIR/usr/src/linux-headers-$KVER/Module.symvers
fi

KMODS=$TOP/tests/real/kmods
kb_out=$OUT/kbuild
start=$(date +%s.%N)
rc=0
KDIR=$KDIR "$TOP/scripts/kbuild-modules.sh" "$kb_out" > "$T_TMP/kb.out" 2> "$T_TMP/kb.err" || rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
if [ $rc -eq 3 ]; then
	t_skip "${REAL_TESTS[0]}" "$(grep '^SKIP: ' "$T_TMP/kb.err" | tail -n 1 | sed 's/^SKIP: //')"
	exit 0
elif [ $rc -ne 0 ]; then
	t_fail "${REAL_TESTS[0]}" "scripts/kbuild-modules.sh exited with status $rc" \
		"$(tail -n 20 "$T_TMP/kb.err")"
else
	t_ok "${REAL_TESTS[0]}"
fi
echo "# scripts/kbuild-modules.sh took $secs s"
grep -h ' cases in ' "$T_TMP/kb.err" | sed 's/^/# /'
kb_out=$(cd "$kb_out" && pwd -P)

have_check=0
"$KSC" check --help > /dev/null 2>&1 && have_check=1
# The rules of the kernel the headers are for (6.1.0-57-amd64 -> 6.1) and the .config
# modpost was run under (through the overlay's symlink).
policy=$(echo "$KVER" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
check_args=(--symvers "$SYMVERS" --config "$(dirname "$SYMVERS")/.config" --policy "$policy"
	--view modpost --format kernel)

# The module files of a case, in modules.order order: the .ko if built, else the .o.
case_files() { # $1 case folder
	local ko
	while IFS= read -r ko; do
		if [ -f "$ko" ]; then echo "$ko"; else echo "${ko%.ko}.o"; fi
	done < "$1/modules.order"
}

for kb in "$KMODS"/*/Kbuild; do
	c=$(basename "$(dirname "$kb")")
	m=$kb_out/$c
	if [ ! -f "$m/result" ]; then
		t_fail "kbuild $c: modpost output as recorded" "$m/result: the case was not built"
		continue
	fi
	result=$(cat "$m/result")
	echo "# $c: make status $(cat "$m/status"), $result; modpost said:"
	if [ -s "$m/modpost.txt" ]; then sed 's/^/#   /' "$m/modpost.txt"; else echo "#   (nothing)"; fi

	# 1. the oracle against the recorded expectation
	{ echo "status=$(cat "$m/status")"; cat "$m/modpost.txt"; } > "$T_TMP/got"
	sed "s|@M@|$m|g" "$KMODS/$c/modpost.expected" > "$T_TMP/want"
	problems=()
	diff -u "$T_TMP/want" "$T_TMP/got" > "$T_TMP/diff" || problems+=("$(head -n 30 "$T_TMP/diff")")
	while IFS= read -r f; do
		case "$result:$f" in
		ko:*.ko) ;;
		modpost-failed:*.o) [ -f "$f" ] || problems+=("$f: missing after the failed modpost") ;;
		*) problems+=("$result, but modules.order entry resolves to $f") ;;
		esac
	done < <(case_files "$m")
	if [ "$result" = modpost-failed ] && ls "$m"/*.ko > /dev/null 2>&1; then
		problems+=("modpost failed but a .ko exists: $(ls "$m"/*.ko)")
	fi
	if [ ${#problems[@]} -eq 0 ]; then
		t_ok "kbuild $c: modpost output as recorded"
	else
		t_fail "kbuild $c: modpost output as recorded" "${problems[@]}"
	fi

	# 2. ksymcheck against the oracle
	name="ksymcheck check --view modpost $c"
	if [ $have_check -eq 0 ]; then
		t_skip "$name" "ksymcheck has no 'check' command yet"
	else
		mapfile -t files < <(case_files "$m")
		krc=0
		"$KSC" check "${check_args[@]}" "${files[@]}" > "$T_TMP/ksc.out" 2> "$T_TMP/ksc.err" || krc=$?
		echo "# ksymcheck check exited with status $krc for $c"
		if cmp -s "$m/modpost.txt" "$T_TMP/ksc.out"; then
			t_ok "$name"
		else
			why="differs from modpost"
			if [ "$(LC_ALL=C sort "$m/modpost.txt")" = "$(LC_ALL=C sort "$T_TMP/ksc.out")" ]; then
				why="same lines as modpost, different order"
			fi
			diff -u "$m/modpost.txt" "$T_TMP/ksc.out" > "$T_TMP/diff"
			t_fail "$name" "$why (status $krc): $KSC check ${check_args[*]} ${files[*]}" \
				"$(head -n 30 "$T_TMP/diff")" "stderr: $(head -c 400 "$T_TMP/ksc.err")"
		fi
	fi
done

# 3. the .symtab order of the proprietary-provider users (the loader resolves in this order)
undef_order() { readelf -sW "$1" | awk '$7 == "UND" && $8 != "" { print $8 }' | tr '\n' ' '; }
pp=$kb_out/proprietary_provider
for want in "gpl_user_of_prop debugfs_lookup ksc_prop_fn" "prop_user_then_gpl ksc_prop_fn debugfs_create_dir"; do
	read -r mod first second <<< "$want"
	name="kbuild proprietary_provider: $mod.ko has $first before $second in .symtab"
	if ! command -v readelf > /dev/null; then t_skip "$name" "readelf (binutils) is not installed"; continue; fi
	if [ ! -f "$pp/$mod.ko" ]; then t_fail "$name" "$pp/$mod.ko was not built"; continue; fi
	order=$(undef_order "$pp/$mod.ko")
	case " $order" in
	*" $first "*" $second "*) t_ok "$name" ;;
	*) t_fail "$name" "undefined symbols in .symtab order: $order" ;;
	esac
done
exit 0
