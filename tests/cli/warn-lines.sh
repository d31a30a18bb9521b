# SPDX-License-Identifier: LGPL-2.1-or-later
# Lines the kernel prints that change no verdict: modpost's warning about a module without
# MODULE_DESCRIPTION() (R41), printed by every build from 6.15 (before, with W=1 only), and
# sysfs' WARN about a module parameter with execute bits (R42), which taints the kernel W
# while the load goes on. The modules are fx-user.ko with its description= key renamed,
# and one with a __param table assembled here (clang, tests/fixtures/src/kmod-asm.h).
. tests/lib.sh
X=$FIXTURES/x86_64
python3 - "$X/fx-user.ko" "$T_TMP/fx-nodesc.ko" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
assert data.count(b"\0description=") == 1
open(sys.argv[2], "wb").write(data.replace(b"\0description=", b"\0xescription="))
PY
sv() { printf '0x%08x\t%s\t%s\t%s\t%s\n' "$@"; }
{
	sv 0x1ea9b2c1 _printk vmlinux EXPORT_SYMBOL ""
	sv 0x037a0cba kfree vmlinux EXPORT_SYMBOL ""
	sv 0xdeb0f5d1 debugfs_create_dir vmlinux EXPORT_SYMBOL_GPL ""
	sv 0xd3ab0f00 dma_buf_get vmlinux EXPORT_SYMBOL_GPL DMA_BUF
	sv 0x6e0a7d3c module_layout vmlinux EXPORT_SYMBOL ""
} > "$T_TMP/Module.symvers"

t_expect description-7.2 0 "$KSC" check --view modpost --format kernel -s "$T_TMP/Module.symvers" \
	--policy 7.2 "$T_TMP/fx-nodesc.ko"
t_grep "... 7.2: the warning, the build goes on" \
	"WARNING: modpost: missing MODULE_DESCRIPTION() in $T_TMP/fx-nodesc.o" "$T_TMP/out"
t_expect description-7.3 0 "$KSC" check --view modpost --format kernel -s "$T_TMP/Module.symvers" \
	--policy 7.3 "$T_TMP/fx-nodesc.ko"
t_grep "... 7.3: modpost_log() names the module first" \
	"WARNING: modpost: $T_TMP/fx-nodesc.ko: missing MODULE_DESCRIPTION()" "$T_TMP/out"
t_expect description-6.14 0 "$KSC" check --view modpost --format kernel -s "$T_TMP/Module.symvers" \
	--policy 6.14 "$T_TMP/fx-nodesc.ko"
t_eq "... 6.14: nothing without W=1" "" "$(cat "$T_TMP/out")"
t_expect description-text 0 "$KSC" check --view modpost -s "$T_TMP/Module.symvers" \
	--policy 6.15 "$T_TMP/fx-nodesc.ko"
t_grep "... the finding in text" "modpost matches the file name): modpost: warning: no MODULE_DESCRIPTION() [description-missing]" "$T_TMP/out"
t_run "a module with a description: no warning" 0 "$KSC" check --view modpost --format kernel \
	-s "$T_TMP/Module.symvers" --policy 7.2 "$X/fx-user.ko"
t_eq "... nothing printed" "" "$(cat "$T_TMP/out")"

# ---- a parameter with execute bits (R42) ----
cat > "$T_TMP/fx-param.S" <<'ASM'
#include "kmod-asm.h"
IMPORT(param_ops_int)
IMPORT(param_ops_bool)
MODINFO(license, "GPL")
MODINFO(description, "ksymcheck fixture: module parameters")
MODINFO(parmtype, "debug:int")
MODINFO(parmtype, "verbose:bool")
MODINFO(parmtype, "hidden:int")
MODINFO(name, "fx_param")
MODINFO(vermagic, "7.2.0 SMP preempt mod_unload ")
THIS_MODULE("fx_param")
	.section .rodata.str1.1, "aMS", @progbits, 1
.Ldebug: .asciz "debug"
.Lverbose: .asciz "verbose"
.Lhidden: .asciz "hidden"
	.data
.Lv: .zero 16
/* struct kernel_param: name, mod, ops, perm, level, flags, arg (4.2+, 64-bit) */
	.section __param, "a"
	.balign 8
	.quad .Ldebug, __this_module, param_ops_int
	.short 0111
	.byte -1, 0
	.long 0
	.quad .Lv
	.quad .Lverbose, __this_module, param_ops_bool
	.short 0644
	.byte -1, 0
	.long 0
	.quad .Lv + 4
	.quad .Lhidden, __this_module, param_ops_int
	.short 0
	.byte -1, 0
	.long 0
	.quad .Lv + 8
ASM
if clang --target=x86_64-linux-gnu -Werror -c -I tests/fixtures/src "$T_TMP/fx-param.S" \
	-o "$T_TMP/fx-param.ko" 2> "$T_TMP/as.err"; then
	{
		sv 0 param_ops_int vmlinux EXPORT_SYMBOL ""
		sv 0 param_ops_bool vmlinux EXPORT_SYMBOL ""
	} > "$T_TMP/param.symvers"
	t_expect param-kernel 0 "$KSC" check --view loader --format kernel -s "$T_TMP/param.symvers" \
		--kver 7.2.0 "$T_TMP/fx-param.ko"
	t_grep "... the WARN's line, as 7.2 prints it" "Attribute debug: Invalid permissions 0111" "$T_TMP/out"
	t_eq "... only for the mode with execute bits (0644 and 0 are fine)" "1" \
		"$(grep -c "Invalid permissions" "$T_TMP/out")"
	t_expect param-text 0 "$KSC" check --view loader -v -s "$T_TMP/param.symvers" \
		--kver 7.2.0 "$T_TMP/fx-param.ko"
	t_grep "... a warning finding, the load goes on" \
		"fx_param: loader: warning: parameter debug has mode 0111: sysfs WARNs (taint W) and drops the bits outside 0664 [param-perm]" \
		"$T_TMP/out"
else
	t_fail "assembling a module with __param" "$(cat "$T_TMP/as.err")"
fi
