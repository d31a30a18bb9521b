#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `make demo`: the story of module-restricted exports, told by ksymcheck on a small sample
# 6.16 kernel whose vmlinux and modules are built from fixture sources at build time
# (tests/fixtures/src). Nothing here is a real kernel binary.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${TOOL:=$BUILD/ksymcheck}" "${FIXTURES:=$BUILD/fixtures}"

root=$BUILD/demo
rel=6.16.0-demo
kdir=$root/lib/modules/$rel/kernel
d=$FIXTURES/demo
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"

bold() { if [ -t 1 ]; then printf '\n\033[1m%s\033[0m\n' "$*"; else printf '\n%s\n' "$*"; fi; }
run() {
	if [ -t 1 ]; then printf '\033[2m$ %s\033[0m\n' "$*"; else printf '$ %s\n' "$*"; fi
	"$@"
	echo "(exit status $?)"
}
K=(-k "$root" --kver "$rel")

echo "A sample 6.16 kernel in $root: vmlinux exports anon_inode_make_secure_inode"
echo "to \"kvm\" only (EXPORT_SYMBOL_GPL_FOR_MODULES), and virt/kvm/fx-modns.ko exports"
echo "fxm_for_kvm_family to \"kvm,kvm-*\"."
run "$TOOL" exports "$root/boot/vmlinux-$rel" "$kdir"

bold "1. The in-tree kvm module and kvm-amd.ko: allowed by the loader and by modpost."
run "$TOOL" check "${K[@]}" "$d/intree/kvm.ko" "$d/intree/kvm-amd.ko"

bold "2. An out-of-tree module that simply calls itself kvm: every released kernel lets it in."
run "$TOOL" check "${K[@]}" -v "$d/oot/kvm.ko"
bold "   ... and the proposed in-tree-only rule (posted, then dropped upstream) would refuse it:"
run "$TOOL" check "${K[@]}" --require-intree "$d/oot/kvm.ko"

bold "3. A proprietary module named kvm: the export is GPL-only, so it is refused anyway."
run "$TOOL" check "${K[@]}" -v "$d/prop/kvm.ko"

bold "4. kvm_intel.ko against \"kvm-*\": the loader treats '-' and '_' alike, modpost does not."
run "$TOOL" check "${K[@]}" -v "$d/intree/kvm_intel.ko"

bold "5. A driver that forgot MODULE_IMPORT_NS: refused, with the line to add."
run "$TOOL" check "${K[@]}" -v "$d/oot/fxdma.ko"

bold "What dmesg and modpost would print for all of them, loaded in this order into one boot:"
run "$TOOL" check "${K[@]}" --format kernel "$d/intree/kvm-amd.ko" "$d/oot/fxdma.ko" "$d/prop/kvm.ko"
exit 0
