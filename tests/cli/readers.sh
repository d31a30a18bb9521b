# SPDX-License-Identifier: LGPL-2.1-or-later
# exports / imports / modinfo on fixtures: formats, exit statuses, bad input, write errors.
. tests/lib.sh
X=$FIXTURES/x86_64

t_run "exports --format symvers" 0 "$KSC" exports --format symvers "$X/fx-modns.ko"
printf '0x5eed0001\tfxm_plain\t%s\tEXPORT_SYMBOL\t\n0x5eed0002\tfxm_for_kvm_family\t%s\tEXPORT_SYMBOL_GPL\tmodule:kvm,kvm-*\n0x5eed0003\tfxm_for_kvm_only\t%s\tEXPORT_SYMBOL_GPL\tmodule:kvm\n' \
	"${X#./}/fx-modns" "${X#./}/fx-modns" "${X#./}/fx-modns" > "$T_TMP/want"
t_diff "... modpost's lines" "$T_TMP/want" "$T_TMP/out"

t_run "exports of a directory with a bad file" 4 "$KSC" exports --format symvers "$FIXTURES/bad" "$X/fx-modns.ko"
t_grep "... reports the bad file as path: reason" "$FIXTURES/bad/empty.ko: empty file" "$T_TMP/err"
t_grep "... still lists the good module" "fxm_for_kvm_only" "$T_TMP/out"
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

t_run "imports --format json" 0 "$KSC" imports --format json "$X/fx-user.ko.zst"
t_eq "... binding and CRC" "fx_optional_hook weak None | _printk global 0x1ea9b2c1" \
	"$(python3 -c 'import json,sys; i=json.load(open(sys.argv[1]))["modules"][0]["imports"]; print(*["%s %s %s" % (x["name"], x["bind"], x["crc"]) for x in (i[-1], i[0])], sep=" | ")' "$T_TMP/out")"

t_run "modinfo -F name" 0 "$KSC" modinfo -F name "$X/fx-kvm-amd.ko"
t_eq "... the modinfo name" "kvm_amd" "$(cat "$T_TMP/out")"
t_run "modinfo of a vmlinux" 4 "$KSC" modinfo "$X/fx-vmlinux-prel32"

t_run "unknown command" 2 "$KSC" frobnicate
t_run "unknown --format" 2 "$KSC" exports --format xml "$X/fx-user.ko"
t_run "no PATH" 2 "$KSC" imports
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
