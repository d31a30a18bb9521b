# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile folder shapes in a module tree and in a folder given as a path: a chain of
# 2,000 folders (before: `tree` died of a stack overflow, ~13 KB of path buffers per
# level), one deeper than PATH_MAX allows (reported, the rest read). Run with at most
# 256 open files: the walk's open folders are bounded, not one per level (before:
# `modinfo DIR` held one per level).
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
mkdir "$T_TMP/deep-out"
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

# Deeper than PATH_MAX: the first path too long is reported (its message cut at the log's
# 1 KiB), the rest read.
deep "$T_TMP/deeper" 2100
full="$T_TMP/deeper/lib/modules/$H_REL/kernel/$(printf 'd/%.0s' $(seq 2043))d: File name too long"
mark=" [... cut: 1023 of ${#full} bytes shown]"
h_case "walk: tree on a chain deeper than PATH_MAX" 4 "${full:0:$((1023 - ${#mark}))}$mark" \
	"$KSC" tree -b "$T_TMP/deeper" "$H_REL" --no-index --no-check -q \
	--write-depmod "$T_TMP/deep-out"
t_eq "walk: ... the other modules read" "kernel/kvm-amd.ko: kernel/virt/kvm/fx-modns.ko
kernel/kvm.ko: kernel/virt/kvm/fx-modns.ko
kernel/virt/kvm/fx-modns.ko:" "$(sort "$T_TMP/deep-out/modules.dep")"

exit 0
