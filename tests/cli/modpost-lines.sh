# SPDX-License-Identifier: LGPL-2.1-or-later
# Lines the kernel prints that change no verdict: modpost's warning about a module without
# MODULE_DESCRIPTION() (R41), printed by every build from 6.15 (before, with W=1 only).
# The module is fx-user.ko with its description= key renamed at test time.
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
