#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ksymcheck exports --format symvers` against Debian's real Module.symvers (from the
# linux-headers package, written by modpost at build time).
#  1. Reading every module of lib/modules/<ver>/kernel and the vmlinux extracted from the
#     bzImage must give the same SET of lines as Module.symvers (the order differs: modpost
#     writes vmlinux first and then the modules in build order). The module column is the
#     object path without .ko relative to lib/modules/<ver>/kernel, "vmlinux" for the kernel.
#  2. Module.symvers read and written again must come out byte-identical, in file order.
REAL_TESTS=("exports: modules + vmlinux give the same lines as Module.symvers"
	"exports: Module.symvers read and written again is byte-identical")
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

export LC_ALL=C

# 1. Sets of lines.
t0=$(real_now)
"$KSC" exports --format symvers "$MODDIR/kernel" "$VMLINUX" > "$T_TMP/ksc.symvers" 2> "$T_TMP/err1"
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
echo "# $nmods modules + vmlinux read in $t_read s"
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
