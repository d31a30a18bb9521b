# SPDX-License-Identifier: LGPL-2.1-or-later
# exports / imports / modinfo on fixtures: formats, exit statuses, bad input, write errors.
# Whole outputs are compared with tests/expected/readers/ (t_expect; make regen-expected).
. tests/lib.sh
X=$FIXTURES/x86_64

t_expect exports-symvers 0 "$KSC" exports --format symvers "$X/fx-modns.ko"

t_expect exports-bad-folder 4 "$KSC" exports --format symvers "$FIXTURES/bad" "$X/fx-modns.ko"
# Every bad file but dir.ko (inside a walked directory it is just an empty folder).
missing=""
while IFS=$'\t' read -r f _; do
	case $f in dir.ko) continue ;; esac
	grep -q "^ksymcheck: $FIXTURES/bad/$f: " "$T_TMP/err" || missing="$missing $f"
done < <(sed 's|^bad/||' tests/fixtures/bad.list)
t_eq "... every bad file reported" "" "$missing"

cp "$T_TMP/out" "$T_TMP/Module.symvers"
t_run "a Module.symvers round trip" 0 "$KSC" exports --format symvers "$T_TMP/Module.symvers"
t_diff "... is byte-identical" "$T_TMP/Module.symvers" "$T_TMP/out"

t_expect imports-json 0 "$KSC" imports --format json "$X/fx-user.ko.zst"
t_expect modinfo-F-name 0 "$KSC" modinfo -F name "$X/fx-kvm-amd.ko"
t_expect modinfo-vmlinux 4 "$KSC" modinfo "$X/fx-vmlinux-prel32"

t_expect unknown-command 2 "$KSC" frobnicate
t_expect unknown-option 2 "$KSC" --frobnicate
t_expect unknown-format 2 "$KSC" exports --format xml "$X/fx-user.ko"
t_expect no-path 2 "$KSC" imports
t_run "--version lists features" 0 "$KSC" --version
t_grep "... +ZSTD" "+ZSTD" "$T_TMP/out"
if [ -w /dev/full ]; then
	"$KSC" exports "$X/fx-user.ko" "$X/fx-modns.ko" > /dev/full 2> "$T_TMP/err"
	rc=$?
	if [ $rc -ne 0 ] && grep -q "write error" "$T_TMP/err"; then t_ok "stdout write errors are caught (exit $rc)"
	else t_fail "stdout write errors are caught" "exit $rc, stderr: $(cat "$T_TMP/err")"; fi
else
	t_skip "stdout write errors are caught" "no /dev/full"
fi
