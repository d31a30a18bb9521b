#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Build the kernel the intree lane (tests/real/intree.sh) runs against: Debian sid's
# linux-source-7.2 (scripts/fetch-debian-source.sh --suite sid 7.2) with the in-tree-only
# rule applied by scripts/intree-patch.sh, a small configuration (tinyconfig plus modules,
# an initramfs, the serial console and the PVH entry qemu boots; no i8042/serio, so no
# probe lines), and a built-in provider of module-restricted exports for the test
# modules. Also builds modpost from the unpatched source: both halves are wanted.
#
# Usage: scripts/intree-kernel.sh        prints the cache folder on stdout
# Cache: $KSC_CACHE/intree-<KVER>-<hash>, hash over intree-patch.sh, the provider, the
#        configuration, the compiler and the source version (a complete build is reused; a warm run takes seconds). Inside:
#        src/ (the patched source; ksctest/ is the lane's in-tree module folder),
#        build/ (O=, with vmlinux, Module.symvers, scripts/mod/modpost patched),
#        modpost-unpatched, .kver, .complete, build.log.
# Environment: KSC_INTREE_CC (default gcc-12 when it exists, else gcc), KSC_JOBS (2).
# Exit status: 0 built, 1 the build failed (see build.log), 3 cannot be had (no source,
# no compiler, offline): the lane skips.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}
jobs=${KSC_JOBS:-2}
fail3() { echo "intree-kernel: $*" >&2; exit 3; }
fail1() { echo "intree-kernel: $*" >&2; exit 1; }

cc=${KSC_INTREE_CC:-$(command -v gcc-12 || command -v gcc || true)}
[ -n "$cc" ] && command -v "$cc" > /dev/null || fail3 "no C compiler (${cc:-gcc})"
for t in make flex bison bc python3 perl; do
	command -v "$t" > /dev/null || fail3 "$t is missing (scripts/install-deps.sh --test)"
done
orig=$("$top/scripts/fetch-debian-source.sh" --suite sid 7.2) || fail3 "no linux-source-7.2"
ver=$(cat "$orig/../.version" 2> /dev/null || basename "$(dirname "$orig")")
# The configuration on top of tinyconfig (scripts/config options).
config="-e 64BIT -e MODULES -e MODULE_UNLOAD -e PRINTK -e PRINTK_TIME -e TTY -e SERIAL_8250 -e SERIAL_8250_CONSOLE -e BLK_DEV_INITRD -e BINFMT_ELF -e BINFMT_SCRIPT -e DEVTMPFS -e PROC_FS -e PROC_SYSCTL -e SYSFS -e SYSCTL -e HYPERVISOR_GUEST -e PVH -e PARAVIRT -e VIRTIO_MENU -e VIRTIO_CONSOLE -d SERIO -d SERIO_I8042 -d MOUSE_PS2 -d KEYBOARD_ATKBD -d MODVERSIONS -d MODULE_SIG -d WERROR -d DEBUG_INFO -d MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS"
# The hash covers what the build depends on, not this script's comments or checks.
hash=$( { cat "$top/scripts/intree-patch.sh"; sed -n '/^cat > "$dir\/src\/kernel\/ksc_provider.c"/,/^C$/p' "$0"
	  echo "$config $ver $("$cc" -dumpfullversion)"; } |
	sha256sum | cut -c1-12)
kv=$(make -s -C "$orig" kernelversion 2> /dev/null) || fail3 "$orig: not a kernel source"
dir=$cache/intree-$kv-$hash
if [ -f "$dir/.complete" ]; then echo "$dir"; exit 0; fi

rm -rf "$dir"
mkdir -p "$dir"
echo "intree-kernel: building $kv ($ver) with $cc into $dir (a cold build takes ~15 min on 2 cores)" >&2
cp -a "$orig" "$dir/src"
"$top/scripts/intree-patch.sh" "$dir/src" || fail1 "intree-patch.sh failed"

# The provider: built into vmlinux, module-restricted exports only. Patterns are
# tail globs: kscu_* (any spelling), ksc-d* (dash: matches modpost's file name, not the
# loader's module name) and ksc_e* (the other way round).
cat > "$dir/src/kernel/ksc_provider.c" <<'C'
// SPDX-License-Identifier: GPL-2.0
/* ksymcheck's intree lane: module-restricted exports for its test modules */
#include <linux/export.h>
#include <linux/types.h>

int ksc_restricted(void);
int ksc_restricted(void)
{
	return 42;
}
EXPORT_SYMBOL_FOR_MODULES(ksc_restricted, "kscu_*,ksc-d*,ksc_e*");

int ksc_plain(void);
int ksc_plain(void)
{
	return 7;
}
EXPORT_SYMBOL_GPL(ksc_plain);
C
echo 'obj-y += ksc_provider.o' >> "$dir/src/kernel/Makefile"
# The lane's in-tree modules: ksctest/, its obj-m given on the make command line.
mkdir -p "$dir/src/ksctest"
echo 'obj-m += $(KSC_INTREE_MODS)' > "$dir/src/ksctest/Kbuild"
echo 'obj-m += ksctest/' >> "$dir/src/Kbuild"

b=$dir/build
mk=(make -C "$dir/src" O="$b" ARCH=x86_64 CC="$cc" HOSTCC="$cc" -j"$jobs")
{
	"${mk[@]}" tinyconfig
	# shellcheck disable=SC2086 # $config: one option a word
	"$dir/src/scripts/config" --file "$b/.config" $config
	"${mk[@]}" olddefconfig
	"${mk[@]}" vmlinux modules
} > "$dir/build.log" 2>&1 || fail1 "the build failed: $(tail -n 5 "$dir/build.log")"
grep -qx 'CONFIG_MODULES=y' "$b/.config" && grep -qx 'CONFIG_PVH=y' "$b/.config" ||
	fail1 "the configuration lacks MODULES or PVH"
[ -x "$b/scripts/mod/modpost" ] && [ -f "$b/vmlinux" ] && [ -f "$b/Module.symvers" ] ||
	fail1 "no vmlinux, Module.symvers or modpost"
grep -q 'ksc_restricted.*module:' "$b/Module.symvers" || fail1 "Module.symvers lacks the provider"

# The unpatched modpost: modpost.o compiled again from the original source with the
# command kbuild used, linked with the other objects as kbuild linked them.
( cd "$b" &&
  c=$(sed -n 's/^savedcmd_scripts\/mod\/modpost.o := //p' scripts/mod/.modpost.o.cmd |
	sed "s| -o scripts/mod/modpost.o | -o $dir/modpost-unpatched.o |; s| [^ ]*scripts/mod/modpost.c\$| $orig/scripts/mod/modpost.c|") &&
  l=$(sed -n 's/^savedcmd_scripts\/mod\/modpost := //p' scripts/mod/.modpost.cmd |
	sed "s| -o scripts/mod/modpost | -o $dir/modpost-unpatched |; s| scripts/mod/modpost.o | $dir/modpost-unpatched.o |") &&
  echo "$c" && echo "$l" &&
  case "$c$l" in *"$orig/scripts/mod/modpost.c"*"$dir/modpost-unpatched.o"*) ;; *) false ;; esac &&
  eval "$c" && eval "$l" ) >> "$dir/build.log" 2>&1 || fail1 "could not build the unpatched modpost"
grep -q 'ksymcheck: in-tree-only' "$dir/src/scripts/mod/modpost.c" || fail1 "the source is not patched"
cmp -s "$dir/modpost-unpatched" "$b/scripts/mod/modpost" && fail1 "both modposts are the same"
echo "$kv" > "$dir/.kver"
touch "$dir/.complete"
echo "$dir"
