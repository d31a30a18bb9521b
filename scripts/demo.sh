#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `make demo`: lay out a small sample kernel from the fixtures built at build time
# (a vmlinux and a few modules under lib/modules/<release>/kernel, one of them
# compressed) and show what ksymcheck reads from it.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${TOOL:=$BUILD/ksymcheck}" "${FIXTURES:=$BUILD/fixtures}"

root=$BUILD/demo
rel=6.16.0-demo
kdir=$root/lib/modules/$rel/kernel
rm -rf "$root"
mkdir -p "$kdir/virt/kvm" "$kdir/arch/x86/kvm" "$kdir/drivers/fx" "$root/boot"
cp "$FIXTURES/x86_64/fx-vmlinux-prel32" "$root/boot/vmlinux-$rel"
cp "$FIXTURES/x86_64/fx-modns.ko" "$kdir/virt/kvm/fx-modns.ko"
cp "$FIXTURES/x86_64/fx-kvm-amd.ko.zst" "$kdir/arch/x86/kvm/fx-kvm-amd.ko.zst"
cp "$FIXTURES/x86_64/fx-user.ko.xz" "$kdir/drivers/fx/fx-user.ko.xz"
cp "$FIXTURES/x86_64/fx-kflagstab.ko" "$kdir/drivers/fx/fx-kflagstab.ko"

say() { if [ -t 1 ]; then printf '\n\033[1m$ %s\033[0m\n' "$*"; else printf '\n$ %s\n' "$*"; fi; "$@"; }

echo "Sample kernel $rel in $root (built from tests/fixtures/src at build time)."
say "$TOOL" exports "$kdir" "$root/boot/vmlinux-$rel"
say "$TOOL" exports --format symvers "$kdir/virt/kvm/fx-modns.ko"
say "$TOOL" modinfo "$kdir/arch/x86/kvm/fx-kvm-amd.ko.zst"
say "$TOOL" imports "$kdir/drivers/fx/fx-user.ko.xz"
echo
echo "fx-modns exports into module:kvm,kvm-* (6.16+ module-restricted); fx-kvm-amd is"
echo "struct module '$("$TOOL" modinfo -F name "$kdir/arch/x86/kvm/fx-kvm-amd.ko.zst")' to the loader, 'fx-kvm-amd' to modpost."
