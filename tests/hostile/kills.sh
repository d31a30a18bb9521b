# SPDX-License-Identifier: LGPL-2.1-or-later
# `tree --write-depmod` killed (SIGKILL) at each point of replacing its five files: before
# the first rename and after each. The files are replaced as a set: every state a kill
# leaves has the first K files of the fixed order new and the rest old, modules.dep (the
# last, the commit point kmod reads first) new only when all are; the temporary files
# left are removed by the next run, which completes the set. The kill points come from
# KSYMCHECK_TEST_KILL_AFTER_RENAME=K (util/fileio.c).
. tests/lib.sh
. tests/hostile/lib.sh

h_tree "$T_TMP/root"
ORDER="modules.symbols modules.alias modules.softdep modules.devname modules.dep"
T="$KSC tree -b $T_TMP/root $H_REL --no-index --no-check -q"
mkdir "$T_TMP/want"
$T --write-depmod "$T_TMP/want"

# state DIR: each file in ORDER as "new" (as written whole) or "old", then the number of
# temporary files left.
state() {
	local f s=
	for f in $ORDER; do
		if cmp -s "$1/$f" "$T_TMP/want/$f"; then s+="new "
		elif [ "$(cat "$1/$f")" = "old $f" ]; then s+="old "
		else s+="bad($f) "; fi
	done
	echo "$s$(find "$1" -name '.*ksymcheck-tmp-*' | wc -l)"
}

for k in 0 1 2 3 4 5; do
	d=$T_TMP/dm$k
	mkdir "$d"
	for f in $ORDER; do echo "old $f" > "$d/$f"; done
	rc=$( (KSYMCHECK_TEST_KILL_AFTER_RENAME=$k timeout 20 $T --write-depmod "$d" \
		2> /dev/null; echo $?) 2> /dev/null)
	want=
	for ((i = 0; i < 5; i++)); do
		if [ "$i" -lt "$k" ]; then want+="new "; else want+="old "; fi
	done
	t_eq "kill: after $k renames: killed" 137 "$rc"
	t_eq "kill: after $k renames: the first $k files new, the rest old" \
		"$want$((5 - k))" "$(state "$d")"
	h_case "kill: after $k renames: the next run completes the set" 0 "" \
		$T --write-depmod "$d"
	t_eq "kill: after $k renames: ... and removes the temporary files" \
		"new new new new new 0" "$(state "$d")"
done
# A number that is no kill point changes nothing.
KSYMCHECK_TEST_KILL_AFTER_RENAME=6x h_case "kill: no kill point" 0 "" $T --write-depmod "$d"
exit 0
