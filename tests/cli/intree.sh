# SPDX-License-Identifier: LGPL-2.1-or-later
# The in-tree-only rule (--require-intree) as each half of the proposed patch applies it
# (doc/rules.md R40): the loader asks .modinfo for intree, modpost how the module is built.
# Whole outputs against tests/expected/intree/ (t_expect; make regen-expected writes them
# anew). tests/real/intree.sh compares the same verdicts with a real patched 7.2 kernel.
. tests/lib.sh
root=$T_TMP/root
rel=6.16.0-demo
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"
K=(-k "$root" --kver "$rel")
D=$FIXTURES/demo

# A module file is a make M= build: modpost refuses kvm although .modinfo says intree=Y,
# the loader grants it; -v says why, with the fix, and that the halves differ.
t_expect external-v 1 "$KSC" check "${K[@]}" --require-intree -v "$D/intree/kvm.ko"
t_expect external-kernel 1 "$KSC" check "${K[@]}" --require-intree --format kernel "$D/intree/kvm.ko"
t_expect external-build 1 "$KSC" check "${K[@]}" --require-intree --external-build "$D/intree/kvm.ko"
# -N: modpost only warns and the module is built; the loader is not asked.
t_expect allow-missing-ns 0 "$KSC" check "${K[@]}" --require-intree -N --view modpost --format kernel "$D/intree/kvm.ko"
# In the tree, modpost grants by name; a file without intree is refused by the loader.
t_expect in-tree-build 0 "$KSC" check "${K[@]}" --require-intree --in-tree-build "$D/intree/kvm.ko"
t_expect in-tree-build-oot-v 1 "$KSC" check "${K[@]}" --require-intree --in-tree-build -v "$D/oot/kvm.ko"
t_expect in-tree-build-oot-loader 1 "$KSC" check "${K[@]}" --require-intree --in-tree-build --view loader \
	--format kernel "$D/oot/kvm.ko"
# Without --require-intree the build changes nothing and the summary does not mention it.
t_expect no-rule 0 "$KSC" check "${K[@]}" "$D/intree/kvm.ko"

# tree: below updates/ a module is an external build, whatever .modinfo says.
k=$root/lib/modules/$rel
mkdir -p "$k/kernel/arch/x86/kvm" "$k/updates/dkms"
cp "$D/intree/kvm.ko" "$D/intree/kvm_intel.ko" "$k/kernel/arch/x86/kvm/"
cp "$D/intree/kvm-amd.ko" "$k/updates/dkms/"
t_expect tree 1 "$KSC" tree -b "$root" --require-intree "$rel"
t_grep "... the updated kvm-amd is refused as an external build" \
	"updates/dkms/kvm-amd.ko: fxm_for_kvm_family: modpost: refused: restricted to in-tree modules: an external (M=) build [modns-not-intree]" "$T_TMP/out"
