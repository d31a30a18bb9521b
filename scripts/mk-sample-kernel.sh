#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Lay out the sample 6.16 kernel that `make demo` and the CLI tests check against, from the
# fixtures built at build time: ROOT/boot/{vmlinux,config}-6.16.0-demo and
# ROOT/lib/modules/6.16.0-demo/kernel/virt/kvm/fx-modns.ko.
# Usage: scripts/mk-sample-kernel.sh FIXTURES ROOT
set -euo pipefail
fixtures=$1 root=$2
rel=6.16.0-demo
kdir=$root/lib/modules/$rel/kernel
rm -rf "$root"
mkdir -p "$kdir/virt/kvm" "$root/boot"
cp "$fixtures/x86_64/fx-vmlinux-prel32" "$root/boot/vmlinux-$rel"
cp "$fixtures/x86_64/fx-modns.ko" "$kdir/virt/kvm/fx-modns.ko"
cat > "$root/boot/config-$rel" <<CONFIG
CONFIG_MODVERSIONS=y
CONFIG_MODULE_FORCE_LOAD=y
# CONFIG_MODULE_SIG is not set
# CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS is not set
CONFIG
