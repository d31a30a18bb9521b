#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ksymcheck exports --format symvers` against Debian's real Module.symvers (from the
# linux-headers package, written by modpost at build time), for each kernel below.
#  1. Reading every module of the module folder (.ko on 6.1, .ko.xz from 6.12 on) and the
#     package's vmlinuz must give the same SET of lines as Module.symvers (the order
#     differs: modpost writes vmlinux first and then the modules in build order). The
#     module column is the object path without .ko relative to the module folder's
#     kernel/, "vmlinux" for the kernel. 7.2 and 7.3 are built without MODVERSIONS: their
#     CRC column is 0x00000000 and must stay so.
#  2. Module.symvers read and written again must come out byte-identical, in file order.
#  3. The ELF vmlinux extracted from vmlinuz gives the same kernel lines as vmlinuz.
# Real kernels: 6.1 trixie sid experimental
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
REAL_TESTS=("exports (${KSC_REAL_KERNEL:-6.1}): modules + vmlinuz give the same lines as Module.symvers"
	"exports (${KSC_REAL_KERNEL:-6.1}): Module.symvers read and written again is byte-identical"
	"exports (${KSC_REAL_KERNEL:-6.1}): the extracted vmlinux gives the same lines as vmlinuz")
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

export LC_ALL=C

# 1. Sets of lines.
t0=$(real_now)
"$KSC" exports --format symvers "$MODDIR/kernel" "$VMLINUZ" > "$T_TMP/ksc.symvers" 2> "$T_TMP/err1"
rc=$?
t_read=$(real_elapsed "$t0")
sort "$SYMVERS" > "$T_TMP/want.sorted"
sort "$T_TMP/ksc.symvers" > "$T_TMP/got.sorted"
comm -23 "$T_TMP/want.sorted" "$T_TMP/got.sorted" > "$T_TMP/only-symvers"
comm -13 "$T_TMP/want.sorted" "$T_TMP/got.sorted" > "$T_TMP/only-ksc"
R=$(wc -l < "$SYMVERS") K=$(wc -l < "$T_TMP/ksc.symvers")
A=$(wc -l < "$T_TMP/only-symvers") B=$(wc -l < "$T_TMP/only-ksc")
nmods=$(find "$MODDIR/kernel" -type f -name '*.ko*' | wc -l)
if [ $rc -eq 0 ] && [ "$A" -eq 0 ] && [ "$B" -eq 0 ]; then
	t_ok "${REAL_TESTS[0]}"
else
	t_fail "${REAL_TESTS[0]}" "ksymcheck exit status $rc: $(head -c 300 "$T_TMP/err1")"
fi
echo "# symvers rows $R, ksymcheck rows $K, only-in-symvers $A, only-in-ksymcheck $B"
echo "# $REAL_LABEL ($KVER): $nmods modules + vmlinuz read in $t_read s"
# Differences side by side by symbol: the symbol shows which column is wrong.
if [ "$A" -gt 0 ] || [ "$B" -gt 0 ]; then
	echo "# first differences (< Module.symvers, > ksymcheck):"
	{ sed 's/^/< /' "$T_TMP/only-symvers"; sed 's/^/> /' "$T_TMP/only-ksc"; } |
		sort -t "$(printf '\t')" -k2,2 -s | head -n 20 | sed 's/^/#   /'
fi

# 2. Round trip of the real file.
t0=$(real_now)
"$KSC" exports --format symvers "$SYMVERS" > "$T_TMP/roundtrip" 2> "$T_TMP/err2"
rc=$?
t_rt=$(real_elapsed "$t0")
if [ $rc -eq 0 ] && cmp -s "$SYMVERS" "$T_TMP/roundtrip"; then
	t_ok "${REAL_TESTS[1]}"
else
	diff "$SYMVERS" "$T_TMP/roundtrip" > "$T_TMP/rt.diff"
	t_fail "${REAL_TESTS[1]}" "ksymcheck exit status $rc: $(head -c 300 "$T_TMP/err2")" \
		"first differences (< Module.symvers, > ksymcheck):"
	grep '^[<>]' "$T_TMP/rt.diff" | head -n 20 | sed 's/^/#     /'
fi
echo "# $(wc -l < "$SYMVERS") lines, $(wc -c < "$SYMVERS") bytes in, $(wc -c < "$T_TMP/roundtrip") out, $t_rt s"

# 3. vmlinux and vmlinuz: the same rows.
"$KSC" exports --format symvers "$VMLINUZ" 2> "$T_TMP/err3" | sort > "$T_TMP/z"
"$KSC" exports --format symvers "$VMLINUX" 2>> "$T_TMP/err3" | sort > "$T_TMP/x"
grep -c . "$T_TMP/z" | sed 's/^/# vmlinuz rows: /'
if [ -s "$T_TMP/z" ] && [ ! -s "$T_TMP/err3" ] && cmp -s "$T_TMP/z" "$T_TMP/x"; then
	t_ok "${REAL_TESTS[2]}"
else
	t_fail "${REAL_TESTS[2]}" "$(head -c 300 "$T_TMP/err3")" \
		"$(diff "$T_TMP/z" "$T_TMP/x" | grep '^[<>]' | head -n 10)"
fi
