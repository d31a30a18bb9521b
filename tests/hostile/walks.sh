# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile folder shapes in a module tree and in a folder given as a path: a chain of
# 2,000 folders (before: `tree` died of a stack overflow, ~13 KB of path buffers per
# level), one deeper than PATH_MAX allows (reported, the rest read), and a DAG of
# symbolic links, each of 22 levels linking twice to the next (before: 2^22 paths
# walked; now each folder once, the second path skipped with a warning; by tree and by
# check -k, whose walks keep the same rules). Run with at
# most 256 open files: the walk's open folders are bounded, not one per level.
. tests/lib.sh
. tests/hostile/lib.sh

ulimit -n 256

# deep ROOT LEVELS: ROOT's tree with kvm.ko at the top and kvm-amd.ko LEVELS folders
# below kernel/ (each named "d").
deep() {
	local m=$1/lib/modules/$H_REL
	local d
	d=$(printf 'd/%.0s' $(seq "$2"))
	h_tree "$1"
	(cd "$m/kernel" && mkdir -p "$d" && { [ "$2" -gt 2000 ] || mv kvm-amd.ko "$d"; })
}

deep "$T_TMP/deep" 2000
mkdir "$T_TMP/deep-out" "$T_TMP/dag-out"
h_case "walk: tree on a 2,000-level chain" 0 "" \
	"$KSC" tree -b "$T_TMP/deep" "$H_REL" --no-index --no-check -q \
	--write-depmod "$T_TMP/deep-out"
D2000=$(printf 'd/%.0s' $(seq 2000))
t_eq "walk: ... its deepest module read, with its dependency" \
	"kernel/${D2000}kvm-amd.ko: kernel/virt/kvm/fx-modns.ko
kernel/kvm.ko: kernel/virt/kvm/fx-modns.ko
kernel/virt/kvm/fx-modns.ko:" "$(sort "$T_TMP/deep-out/modules.dep" 2> /dev/null)"
h_case "walk: modinfo on a 2,000-level chain" 0 "" \
	"$KSC" modinfo -F name "$T_TMP/deep/lib/modules/$H_REL/kernel"
t_eq "walk: ... every module" "fx_modns
kvm
kvm_amd" "$(sort "$T_TMP/out")"

# Deeper than PATH_MAX: the first folder too long to open is reported (its message cut at
# the log's 1 KiB), the rest read. Links are resolved inside ROOT, so a folder is opened
# by its path below ROOT: "lib/modules/$H_REL/kernel/" and 2,033 levels reach PATH_MAX.
deep "$T_TMP/deeper" 2100
lv=$(((4078 - ${#H_REL}) / 2))
full="$T_TMP/deeper/lib/modules/$H_REL/kernel/$(printf 'd/%.0s' $(seq $((lv - 1))))d: File name too long"
mark=" [... cut: 1023 of ${#full} bytes shown]"
h_case "walk: tree on a chain deeper than PATH_MAX" 4 "${full:0:$((1023 - ${#mark}))}$mark" \
	"$KSC" tree -b "$T_TMP/deeper" "$H_REL" --no-index --no-check -q \
	--write-depmod "$T_TMP/deep-out"
t_eq "walk: ... the other modules read" "kernel/kvm-amd.ko: kernel/virt/kvm/fx-modns.ko
kernel/kvm.ko: kernel/virt/kvm/fx-modns.ko
kernel/virt/kvm/fx-modns.ko:" "$(sort "$T_TMP/deep-out/modules.dep")"

# The DAG: kernel/a and kernel/b link to l0, each lK holds dagK.ko and a, b linking to
# lK+1. Which of a and b is walked first is the file system's order: both are "X". The
# walk is depth-first: the deepest level's second link is met first.
dag=$T_TMP/dag
h_tree "$dag"
m=$dag/lib/modules/$H_REL
for ((i = 0; i < 22; i++)); do
	mkdir -p "$dag/l$i"
	cp "$H_DEMO/intree/kvm.ko" "$dag/l$i/dag$i.ko"
	[ "$i" = 21 ] || ln -s "../l$((i + 1))" "$dag/l$i/a"
	[ "$i" = 21 ] || ln -s "../l$((i + 1))" "$dag/l$i/b"
done
ln -s ../../../../l0 "$m/kernel/a"
ln -s ../../../../l0 "$m/kernel/b"
want=
for ((i = 22; i > 0; i--)); do
	x=$(printf '/X%.0s' $(seq $i))
	want+="ksymcheck: warning: $m/kernel$x: already walked as kernel$x: skipped"$'\n'
done
start=$(date +%s%N)
timeout 20 "$KSC" tree -b "$dag" "$H_REL" --no-index --no-check \
	--write-depmod "$T_TMP/dag-out" > "$T_TMP/out" 2> "$T_TMP/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
t_eq "walk: tree on a DAG of 22 levels: exit status" 0 "$rc"
t_eq "walk: ... each folder walked once, the second path named" "${want%$'\n'}" \
	"$(grep 'already walked' "$T_TMP/err" | sed 's,/[ab]\([/:]\),/X\1,g; s,/[ab]\([/:]\),/X\1,g')"
t_eq "walk: ... each module once" \
	"$(printf '%s\n' $(printf 'dag%d.ko\n' $(seq 0 21)) fx-modns.ko kvm-amd.ko kvm.ko | sort)" \
	"$(sed 's/:.*//; s,.*/,,' "$T_TMP/dag-out/modules.dep" 2> /dev/null | sort)"
if [ "$ms" -lt 3000 ]; then t_ok "walk: ... in $ms ms"; else
	t_fail "walk: ... in $ms ms" "expected under 3 s"; fi
timeout 20 "$KSC" modinfo -F filename "$m/kernel" > "$T_TMP/out" 2> "$T_TMP/err"
t_eq "walk: modinfo on the DAG: exit status" 0 "$?"
t_eq "walk: ... each module once, nothing said" "25 25 0" \
	"$(sort -u "$T_TMP/out" | wc -l) $(wc -l < "$T_TMP/out") $(wc -c < "$T_TMP/err")"
# check -k walks the module folder as depmod (the module set's search), with the same
# loop rules as tree (before: every path of the DAG walked, killed at 20 s).
start=$(date +%s%N)
KSYMCHECK_DEBUG=1 KSYMCHECK_NO_INDEX=1 KSYMCHECK_NO_DEPMOD=1 timeout 20 "$KSC" check \
	-k "$dag" --kver "$H_REL" "$H_DEMO/intree/kvm-amd.ko" > "$T_TMP/out" 2> "$T_TMP/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
t_eq "walk: check -k on the DAG: exit status" 0 "$rc"
t_eq "walk: ... each folder walked once, the second path named" "${want%$'\n'}" \
	"$(grep 'already walked' "$T_TMP/err" | sed 's,/[ab]\([/:]\),/X\1,g; s,/[ab]\([/:]\),/X\1,g')"
if [ "$ms" -lt 3000 ]; then t_ok "walk: ... in $ms ms"; else
	t_fail "walk: ... in $ms ms" "expected under 3 s"; fi
exit 0
