# SPDX-License-Identifier: LGPL-2.1-or-later
# Every module of Debian's 6.1 tree checked against its own kernel: they all load there,
# so the loader view must refuse none, and modpost built them all, so it must fail none.
. tests/lib.sh
REAL_TESTS=("check: every Debian 6.1 module against its own kernel (--kernel)"
	    "check: the same against the kernel image alone (bzImage)")
. "$TOP/scripts/real-env.sh"

start=$(real_now)
"$KSC" check -k "$KDIR" --kver "$KVER" "$MODDIR/kernel" > "$T_TMP/out" 2> "$T_TMP/err"
rc=$?
t=$(real_elapsed "$start")
summary=$(tail -n 1 "$T_TMP/out")
echo "# $summary"
echo "# whole-tree check: ${t}s"
n=$(find "$MODDIR/kernel" -name '*.ko' | wc -l)
want="$n modules checked (rules of 6.1, from the kernel's release): loader: $n would load, 0 refused; modpost: $n pass, 0 fail"
if [ $rc -eq 0 ] && [ "$summary" = "$want" ] && [ ! -s "$T_TMP/err" ]; then
	t_ok "${REAL_TESTS[0]}"
else
	t_fail "${REAL_TESTS[0]}" "exit $rc" "expected: $want" "actual:   $summary" \
		"$(grep -v '^[0-9]* module' "$T_TMP/out" | head -5)" "$(head -3 "$T_TMP/err")"
fi

# The kernel's exports straight from the image package's bzImage, no headers package.
start=$(real_now)
"$KSC" check --vmlinux "$KDIR/boot/vmlinuz-$KVER" -m "$MODDIR/kernel" \
	--config "$KDIR/boot/config-$KVER" --view loader "$MODDIR/kernel" > "$T_TMP/out" 2> "$T_TMP/err"
rc=$?
summary=$(tail -n 1 "$T_TMP/out")
echo "# $summary ($(real_elapsed "$start")s)"
case $summary in
"$n modules checked (rules of 6.1, from the kernel's release): loader: $n would load, 0 refused;"*) [ $rc -eq 0 ] && t_ok "${REAL_TESTS[1]}" || t_fail "${REAL_TESTS[1]}" "exit $rc" ;;
*) t_fail "${REAL_TESTS[1]}" "$summary" "$(head -5 "$T_TMP/out")" ;;
esac
