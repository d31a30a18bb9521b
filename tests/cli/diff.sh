# SPDX-License-Identifier: LGPL-2.1-or-later
# ksymcheck diff: every change category on two small Module.symvers, and what the changes
# do to fixture modules. Whole outputs (stdout, stderr, exit status) are compared with
# tests/expected/diff/ (t_expect; make regen-expected); the checks after each say what it
# shows.
. tests/lib.sh
sv() { printf '0x%08x\t%s\t%s\t%s\t%s\n' "$@"; }
{
	sv 1 gone vmlinux EXPORT_SYMBOL ""
	sv 2 c_gpl vmlinux EXPORT_SYMBOL ""
	sv 3 d_ungpl vmlinux EXPORT_SYMBOL_GPL ""
	sv 4 e_nsgain vmlinux EXPORT_SYMBOL ""
	sv 5 f_nslose vmlinux EXPORT_SYMBOL X
	sv 6 g_nschange vmlinux EXPORT_SYMBOL X
	sv 7 h_restrict vmlinux EXPORT_SYMBOL_GPL ""
	sv 8 i_rchange vmlinux EXPORT_SYMBOL_GPL module:kvm
	sv 9 j_lift vmlinux EXPORT_SYMBOL_GPL module:kvm
	sv 10 k_crc vmlinux EXPORT_SYMBOL ""
	sv 11 l_owner vmlinux EXPORT_SYMBOL ""
	sv 12 same vmlinux EXPORT_SYMBOL ""
	sv 0xd3ab0f00 dma_buf_get vmlinux EXPORT_SYMBOL_GPL ""
	sv 0x5eed0002 fxm_for_kvm_family virt/kvm/fx-modns EXPORT_SYMBOL_GPL ""
	sv 0x6e0a7d3c module_layout vmlinux EXPORT_SYMBOL ""
} > "$T_TMP/old.symvers"
{
	sv 2 c_gpl vmlinux EXPORT_SYMBOL_GPL ""
	sv 3 d_ungpl vmlinux EXPORT_SYMBOL ""
	sv 4 e_nsgain vmlinux EXPORT_SYMBOL X
	sv 5 f_nslose vmlinux EXPORT_SYMBOL ""
	sv 6 g_nschange vmlinux EXPORT_SYMBOL Y
	sv 7 h_restrict vmlinux EXPORT_SYMBOL_GPL module:kvm
	sv 8 i_rchange vmlinux EXPORT_SYMBOL_GPL "module:kvm,kvm-*"
	sv 9 j_lift vmlinux EXPORT_SYMBOL_GPL ""
	sv 0x1010 k_crc vmlinux EXPORT_SYMBOL ""
	sv 11 l_owner drivers/l/l-mod EXPORT_SYMBOL ""
	sv 12 same vmlinux EXPORT_SYMBOL ""
	sv 13 newbie vmlinux EXPORT_SYMBOL ""
	sv 0xd3ab0f00 dma_buf_get vmlinux EXPORT_SYMBOL_GPL DMA_BUF
	sv 0x5eed0002 fxm_for_kvm_family virt/kvm/fx-modns EXPORT_SYMBOL_GPL module:kvm
	sv 0x6e0a7d3c module_layout vmlinux EXPORT_SYMBOL ""
} > "$T_TMP/new.symvers"

t_expect two-symvers 1 "$KSC" diff "$T_TMP/old.symvers" "$T_TMP/new.symvers"
cut -c1-68 "$T_TMP/out" | sed 's/ *$//' | grep -v '^changes:' > "$T_TMP/got"
cat > "$T_TMP/want" <<'W'
became-gpl-only            c_gpl
no-longer-gpl-only         d_ungpl
became-module-restricted   dma_buf_get
namespace-gained           dma_buf_get
namespace-gained           e_nsgain
namespace-lost             f_nslose
became-module-restricted   fxm_for_kvm_family
namespace-changed          g_nschange
removed                    gone
became-module-restricted   h_restrict
restriction-changed        i_rchange
restriction-lifted         j_lift
crc-changed                k_crc
owner-changed              l_owner
added                      newbie
W
# dma_buf_get gains an ordinary namespace, fxm_for_kvm_family a module: one.
sed -i '/^became-module-restricted   dma_buf_get/d' "$T_TMP/want"
t_diff "... one line per change, sorted by symbol" "$T_TMP/want" "$T_TMP/got"
t_grep "... counts per kind" "changes: removed 1, added 1, became-gpl-only 1, no-longer-gpl-only 1, namespace-gained 2, namespace-lost 1, namespace-changed 1, became-module-restricted 2, restriction-changed 1, restriction-lifted 1, crc-changed 1, owner-changed 1" "$T_TMP/out"
t_grep "... details" "restriction-changed        i_rchange                                \"module:kvm\" -> \"module:kvm,kvm-*\"" "$T_TMP/out"

t_expect two-symvers-json 1 "$KSC" diff --json "$T_TMP/old.symvers" "$T_TMP/new.symvers"
t_eq "... JSON counts equal the changes listed" "14 14" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["changes"]), sum(d["counts"].values()))' "$T_TMP/out")"
t_eq "... each side of a change as an object: owner, namespace, GPL-only, CRC" \
	"g_nschange X/vmlinux -> Y/vmlinux | k_crc 0x0000000a -> 0x00001010 | gone: new null" \
	"$(python3 -c '
import json, sys
c = {x["symbol"] + " " + x["kind"]: x for x in json.load(open(sys.argv[1]))["changes"]}
ns, crc, rm = c["g_nschange namespace-changed"], c["k_crc crc-changed"], c["gone removed"]
print("g_nschange %s/%s -> %s/%s | k_crc %s -> %s | gone: new %s" % (
    ns["old"]["namespace"], ns["old"]["owner"], ns["new"]["namespace"], ns["new"]["owner"],
    crc["old"]["crc"], crc["new"]["crc"], json.dumps(rm["new"])))' "$T_TMP/out")"

t_expect no-change 0 "$KSC" diff "$T_TMP/old.symvers" "$T_TMP/old.symvers"

D=$FIXTURES/demo
t_expect modules-what-breaks 1 "$KSC" diff -v --policy-old 6.15 --policy-new 6.16 \
	"$T_TMP/old.symvers" "$T_TMP/new.symvers" "$D/oot/fxdma.ko" "$D/intree/kvm-amd.ko"
t_grep "... fxdma: the new namespace" "fxdma: dma_buf_get: loader: allowed -> refused: namespace DMA_BUF is not imported [ns-missing] (namespace-gained)" "$T_TMP/out"
t_grep "... with the fix" 'fix: add MODULE_IMPORT_NS("DMA_BUF");' "$T_TMP/out"
t_grep "... kvm_amd: the new restriction" "kvm_amd (file kvm-amd.ko; modpost matches the file name): fxm_for_kvm_family: loader: allowed -> refused: restricted to modules matching kvm [modns-denied] (became-module-restricted)" "$T_TMP/out"
t_grep "... the count of broken modules" "2 modules: 2 would break on NEW (rules of 6.15 -> 6.16)" "$T_TMP/out"
t_expect unreadable-side 4 "$KSC" diff "$T_TMP/nope.symvers" "$T_TMP/new.symvers"
t_grep "... reported" "$T_TMP/nope.symvers: No such file or directory" "$T_TMP/err"
t_expect usage-new-missing 2 "$KSC" diff "$T_TMP/old.symvers"

X=$FIXTURES/x86_64
# A load that stops before the imports (here: another vermagic on NEW) decides nothing
# about them: no "refused -> allowed" per import, one line, then the reason.
python3 - "$X/fx-vmlinux-prel32" "$T_TMP/vm-other" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
a = b"6.16.0 SMP preempt mod_unload modversions \0"
assert d.count(a) == 1
open(sys.argv[2], "wb").write(d.replace(a, b"6.16.0 SMP preempt mod_unload modversionX \0"))
PY
t_expect new-loader-stops-at-vermagic 0 "$KSC" diff "$X/fx-vmlinux-prel32" "$T_TMP/vm-other" "$FIXTURES/demo/oot/fxdma.ko"
printf '%s\n' "fxdma: loader: the imports are not reached on NEW: the load stops before them" \
	"fxdma: loader: built for another kernel (vermagic differs) [vermagic]" \
	"fxdma: loader: EINVAL -> ENOEXEC; modpost: fail -> fail" \
	"1 module: 0 would break on NEW (rules of 6.16 -> 6.16)" > "$T_TMP/want"
head -n 4 "$T_TMP/out" > "$T_TMP/got"
t_diff "... not reached, never allowed" "$T_TMP/want" "$T_TMP/got"
t_expect new-loader-stops-at-vermagic-json 0 "$KSC" diff --json "$X/fx-vmlinux-prel32" "$T_TMP/vm-other" "$FIXTURES/demo/oot/fxdma.ko"
t_eq "... in JSON: loader_reached_old/new" "True False" "$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["modules"][0]; print(m["loader_reached_old"], m["loader_reached_new"])' "$T_TMP/out")"

# modversions off on NEW (its Module.symvers has every CRC 0): one line, no crc-changed.
"$KSC" exports --format symvers "$X/fx-vmlinux-prel32" > "$T_TMP/old.symvers"
sed 's/^0x[0-9a-f]*/0x00000000/' "$T_TMP/old.symvers" > "$T_TMP/new.symvers"
t_expect modversions-on-off 0 "$KSC" diff "$T_TMP/old.symvers" "$T_TMP/new.symvers"
t_eq "... one line, no CRC changes" "modversions: on -> off (CRCs not compared)
changes: removed 0, added 0, became-gpl-only 0, no-longer-gpl-only 0, namespace-gained 0, namespace-lost 0, namespace-changed 0, became-module-restricted 0, restriction-changed 0, restriction-lifted 0, crc-changed 0, owner-changed 0" "$(cat "$T_TMP/out")"
