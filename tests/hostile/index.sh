# SPDX-License-Identifier: LGPL-2.1-or-later
# The index `tree` keeps, against edits it must notice (issue 23, class 7): a module
# edited in place, same size, with its modification time put back (`touch -r`), was
# served from the index with its old facts. Each record is keyed by size, inode,
# modification time and change time (ctime, which no user can set back), so the edit is
# read again: the run with the index says what a run without it says.
. tests/lib.sh
. tests/hostile/lib.sh
export LC_ALL=C

root=$T_TMP/root
h_tree "$root"
m=$root/lib/modules/$H_REL
exp=$m/kernel/virt/kvm/fx-modns.ko
# old enough that the index keeps the records (not "racy": changed too recently to trust)
find "$root" -exec touch -h -d '-1 hour' {} +
idx=$T_TMP/tree.idx

"$KSC" tree -b "$root" "$H_REL" --index "$idx" > "$T_TMP/before" 2>&1
echo "exit $?" >> "$T_TMP/before"
# and the index check -k keeps (under XDG_CACHE_HOME), read from depmod's files never
KSYMCHECK_NO_DEPMOD=1 "$KSC" check -k "$root" --kver "$H_REL" "$m/kernel/kvm-amd.ko" \
	> "$T_TMP/check-before" 2>&1
t_eq "index: kept" "yes" "$([ -s "$idx" ] && echo yes)"

# fx-modns.ko renames its export in place: same size, same inode, mtime put back
touch -r "$exp" "$T_TMP/stamp"
python3 - "$exp" <<'PY'
import sys
p = sys.argv[1]
with open(p, "r+b") as f:
    data = f.read()
    f.seek(0)
    f.write(data.replace(b"fxm_for_kvm_family", b"fxm_for_kvm_famila"))
PY
touch -r "$T_TMP/stamp" "$exp"
t_eq "index: the edit kept size and mtime" "$(stat -c '%s %Y %i' "$T_TMP/stamp" "$exp" | tail -n 1)" \
	"$(stat -c '%s %Y %i' "$exp")"

"$KSC" tree -b "$root" "$H_REL" --no-index > "$T_TMP/fresh" 2>&1
echo "exit $?" >> "$T_TMP/fresh"
"$KSC" tree -b "$root" "$H_REL" --index "$idx" > "$T_TMP/indexed" 2>&1
echo "exit $?" >> "$T_TMP/indexed"
if cmp -s "$T_TMP/before" "$T_TMP/fresh"; then
	t_fail "index: the edit changes the verdicts (the case tests something)"
else
	t_ok "index: the edit changes the verdicts (the case tests something)"
fi
# the same output but the line that says how many were read and how many came from the index
grep -v ' from the index, ' "$T_TMP/fresh" > "$T_TMP/fresh.v"
grep -v ' from the index, ' "$T_TMP/indexed" > "$T_TMP/indexed.v"
t_diff "index: an edit in place with mtime put back is read again, not served stale" \
	"$T_TMP/fresh.v" "$T_TMP/indexed.v"
t_grep "... that module read again, the others from the index" "(1 read, 2 from the index" \
	"$T_TMP/indexed"
KSYMCHECK_NO_DEPMOD=1 "$KSC" check -k "$root" --kver "$H_REL" "$m/kernel/kvm-amd.ko" \
	> "$T_TMP/check" 2>&1
echo "exit $?" >> "$T_TMP/check"
KSYMCHECK_NO_INDEX=1 KSYMCHECK_NO_DEPMOD=1 "$KSC" check -k "$root" --kver "$H_REL" \
	"$m/kernel/kvm-amd.ko" > "$T_TMP/check-fresh" 2>&1
echo "exit $?" >> "$T_TMP/check-fresh"
t_diff "index: check -k through the index says the same" "$T_TMP/check-fresh" "$T_TMP/check"
