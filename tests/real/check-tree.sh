# SPDX-License-Identifier: LGPL-2.1-or-later
# Every module of a Debian tree checked against its own kernel: they all load there, so
# the loader view must refuse none, and modpost built them all, so it must fail none;
# exit status 0 and nothing on standard error. The kernel is found under the unpacked
# packages' root by the kernel locator (boot/ files for 6.1 and 6.12, usr/lib/modules/KVER
# for 7.2 and 7.3); the release is named, never taken from this machine.
# Then the loader view against the kernel image alone (the package's vmlinuz, no headers
# package): the same verdicts. And `tree` of the same root verifies every signature with
# the key built into the image: no sig-unverified note, no signature finding in SARIF.
# Real kernels: 6.1 trixie sid experimental
. tests/lib.sh
REAL_TESTS=("check (${KSC_REAL_KERNEL:-6.1}): every module against its own kernel (--kernel)"
	"check (${KSC_REAL_KERNEL:-6.1}): the same against the kernel image alone (vmlinuz)"
	"tree (${KSC_REAL_KERNEL:-6.1}): every signature verified with the image's keys")
. "$TOP/scripts/real-env.sh"

n=$(find "$MODDIR/kernel" -type f -name '*.ko*' | wc -l)
echo "# $REAL_LABEL ($KVER): $n modules"
start=$(real_now)
"$KSC" check -k "$KDIR" --kver "$KVER" "$MODDIR/kernel" > "$T_TMP/out" 2> "$T_TMP/err"
rc=$?
t=$(real_elapsed "$start")
summary=$(tail -n 1 "$T_TMP/out")
echo "# $summary"
echo "# whole-tree check: ${t}s"
want="$n modules checked (rules of $RULES, from the kernel's release): loader: $n would load, 0 refused; modpost: $n pass, 0 fail"
if [ $rc -eq 0 ] && [ "$summary" = "$want" ] && [ ! -s "$T_TMP/err" ]; then
	t_ok "${REAL_TESTS[0]}"
else
	t_fail "${REAL_TESTS[0]}" "exit $rc" "expected: $want" "actual:   $summary" \
		"$(grep -v '^[0-9]* module' "$T_TMP/out" | head -5)" "$(head -3 "$T_TMP/err")"
fi

# The kernel's exports straight from the image package's vmlinuz, no headers package.
start=$(real_now)
"$KSC" check --vmlinux "$VMLINUZ" -m "$MODDIR/kernel" \
	--config "$CONFIG" --view loader "$MODDIR/kernel" > "$T_TMP/out" 2> "$T_TMP/err"
rc=$?
summary=$(tail -n 1 "$T_TMP/out")
echo "# $summary ($(real_elapsed "$start")s)"
case $summary in
"$n modules checked (rules of $RULES, from the kernel's release): loader: $n would load, 0 refused")
	if [ $rc -eq 0 ] && [ ! -s "$T_TMP/err" ]; then t_ok "${REAL_TESTS[1]}"; else
		t_fail "${REAL_TESTS[1]}" "exit $rc" "$(head -3 "$T_TMP/err")"; fi ;;
*) t_fail "${REAL_TESTS[1]}" "$summary" "$(head -5 "$T_TMP/out")" ;;
esac

# tree: the image's built-in keys verify every module (no index: a cold run).
start=$(real_now)
"$KSC" tree -k "$KDIR" --no-index -f sarif "$KVER" > "$T_TMP/tree.sarif" 2> "$T_TMP/err"
rc=$?
got=$(python3 -c 'import collections, json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"]
c = collections.Counter(x["ruleId"] for x in r)
print(len(r), sum(n for k, n in c.items() if k.startswith("sig-") or "foreign-key" in k or k == "taint-unsigned"))' "$T_TMP/tree.sarif" 2>&1)
echo "# tree --format sarif: ${got%% *} results ($(real_elapsed "$start")s)"
if [ $rc -eq 0 ] && [ "${got#* }" = 0 ] && [ ! -s "$T_TMP/err" ]; then
	t_ok "${REAL_TESTS[2]}"
else
	t_fail "${REAL_TESTS[2]}" "exit $rc" "results, signature results: $got" "$(head -3 "$T_TMP/err")"
fi
