# SPDX-License-Identifier: LGPL-2.1-or-later
# ksymcheck check on the sample 6.16 kernel (scripts/mk-sample-kernel.sh): verdicts, exit
# statuses, the kernel format, JSON, and unreadable inputs among readable ones. Whole
# outputs (stdout, stderr, exit status) are compared with tests/expected/check/ (t_expect;
# make regen-expected); the lines checked on their own below say what each one shows.
. tests/lib.sh
root=$T_TMP/root
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"
K=(-k "$root" --kver 6.16.0-demo)
D=$FIXTURES/demo

t_expect intree-kvm-kvm-amd 0 "$KSC" check "${K[@]}" "$D/intree/kvm.ko" "$D/intree/kvm-amd.ko"
t_grep "summary line" "2 modules checked (rules of 6.16, from the kernel's release): loader: 2 would load, 0 refused; modpost: 2 pass, 0 fail" "$T_TMP/out"

# The summary names the views run and where the rules come from.
t_expect view-loader 0 "$KSC" check "${K[@]}" --view loader "$D/intree/kvm.ko"
t_eq "--view loader: a loader summary only" "1 module checked (rules of 6.16, from the kernel's release): loader: 1 would load, 0 refused" "$(tail -n 1 "$T_TMP/out")"
t_expect view-modpost-policy 0 "$KSC" check "${K[@]}" --view modpost --policy 7.2 "$D/intree/kvm.ko"
t_eq "--view modpost --policy: a modpost summary, rules from --policy" "1 module checked (rules of 7.2, from --policy): modpost: 1 pass, 0 fail" "$(tail -n 1 "$T_TMP/out")"
printf '0x00000000\tanon_inode_make_secure_inode\tvmlinux\tEXPORT_SYMBOL_GPL\tmodule:kvm\n' > "$T_TMP/kvm.symvers"
t_expect symvers-only-vermagic 1 "$KSC" check -s "$T_TMP/kvm.symvers" "$D/intree/kvm.ko"
t_eq "-s alone: the rules come from the module's vermagic, and it says so" "1 module checked (rules of 6.16, from the modules' vermagic: the kernel names no release, use --policy): loader: 0 would load, 1 refused; modpost: 0 pass, 1 fail" "$(tail -n 1 "$T_TMP/out")"

t_expect oot-kvm-allowed 0 "$KSC" check "${K[@]}" "$D/oot/kvm.ko"
t_grep "... and flagged as an impostor" "kvm: anon_inode_make_secure_inode: loader: warning: granted only by its name" "$T_TMP/out"
t_expect oot-kvm-require-intree 1 "$KSC" check "${K[@]}" --require-intree "$D/oot/kvm.ko"
t_grep "... as modns-not-intree in both views (R40)" "kvm: anon_inode_make_secure_inode: modpost: refused: restricted to in-tree modules: an external (M=) build [modns-not-intree]" "$T_TMP/out"
t_grep "... the loader too" "kvm: anon_inode_make_secure_inode: loader: refused: restricted to in-tree modules: no intree in .modinfo [modns-not-intree]" "$T_TMP/out"

t_expect prop-kvm-kernel-format 1 "$KSC" check "${K[@]}" --view loader --format kernel "$D/prop/kvm.ko"
printf '%s\n' "kvm: loading out-of-tree module taints kernel." \
	"kvm: module license 'Proprietary' taints kernel." \
	"Disabling lock debugging due to kernel taint" \
	"kvm: module license taints kernel." \
	"kvm: Unknown symbol anon_inode_make_secure_inode (err -2)" \
	"insmod: ERROR: could not insert module $D/prop/kvm.ko: Unknown symbol in module" > "$T_TMP/want"
t_diff "... with exactly the kernel's lines" "$T_TMP/want" "$T_TMP/out"

t_expect kvm-intel-json 1 "$KSC" check "${K[@]}" --format json "$D/intree/kvm_intel.ko"
python3 - "$T_TMP/out" > "$T_TMP/j" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["modules"][0]
print(d["policy"], m["loader"]["result"], m["loader"]["errno"], m["modpost"]["result"],
      [f["code"] for f in m["findings"]])
PY
t_eq "... JSON verdicts" "6.16 loads 0 fail ['modns-denied']" "$(cat "$T_TMP/j")"

# 7.3's modpost names the module (its path, as given, with .ko) before every message and
# quotes symbols and namespaces (scripts/mod/modpost.c modpost_log(); doc/rules.md R23).
mp_lines() { # $1 policy
	t_expect "modpost-lines-$1" 1 "$KSC" check "${K[@]}" --policy "$1" --view modpost --format kernel \
		"$D/oot/fxdma.ko" "$D/prop/kvm.ko" "$D/intree/kvm_intel.ko"
}
mp_lines 7.3
printf '%s\n' "ERROR: modpost: $D/oot/fxdma.ko: module uses symbol 'dma_buf_get' from namespace 'DMA_BUF', but does not import it." \
	"ERROR: modpost: $D/prop/kvm.ko: GPL-incompatible module uses GPL-only symbol 'anon_inode_make_secure_inode'" \
	"ERROR: modpost: $D/intree/kvm_intel.ko: module uses symbol 'fxm_for_kvm_family' from namespace 'module:kvm,kvm-*', but does not import it." > "$T_TMP/want"
t_diff "modpost lines of 7.3: the module first, names quoted" "$T_TMP/want" "$T_TMP/out"
mp_lines 7.2
printf '%s\n' "ERROR: modpost: module fxdma uses symbol dma_buf_get from namespace DMA_BUF, but does not import it." \
	"ERROR: modpost: GPL-incompatible module kvm.ko uses GPL-only symbol 'anon_inode_make_secure_inode'" \
	"ERROR: modpost: module kvm_intel uses symbol fxm_for_kvm_family from namespace module:kvm,kvm-*, but does not import it." > "$T_TMP/want"
t_diff "modpost lines of 7.2, as before" "$T_TMP/want" "$T_TMP/out"

t_expect fxdma-ns-missing-v 1 "$KSC" check "${K[@]}" -v "$D/oot/fxdma.ko"
t_grep "... the fix in 6.16 syntax" 'fix: add MODULE_IMPORT_NS("DMA_BUF");' "$T_TMP/out"
t_expect fxdma-ns-missing-v-6.12 1 "$KSC" check "${K[@]}" --policy 6.12 -v "$D/oot/fxdma.ko"
t_grep "... identifier form" 'fix: add MODULE_IMPORT_NS(DMA_BUF);' "$T_TMP/out"

t_expect one-boot-eexist-json 1 "$KSC" check "${K[@]}" --view loader --format json "$D/intree/kvm.ko" "$D/oot/kvm.ko"
t_eq "... errnos" "0 -17" "$(python3 -c 'import json,sys; print(*[m["loader"]["errno"] for m in json.load(open(sys.argv[1]))["modules"]])' "$T_TMP/out")"

t_expect unreadable-among-good 5 "$KSC" check "${K[@]}" "$D/intree/kvm.ko" "$FIXTURES/bad/truncated-header.ko" "$D/oot/fxdma.ko"
t_grep "... reported as path: reason" "$FIXTURES/bad/truncated-header.ko: truncated ELF header" "$T_TMP/err"
t_grep "... the others still checked" "2 modules checked" "$T_TMP/out"

# No kernel option: this machine's kernel, the running release under /.
if [ -d "/lib/modules/$(uname -r)" ] || [ -d "/usr/lib/modules/$(uname -r)" ]; then
	"$KSC" check -q "$D/intree/kvm.ko" > "$T_TMP/out" 2> "$T_TMP/err"
	t_grep "no kernel given: this machine's" "(rules of " "$T_TMP/out"
else
	t_run "no kernel given: this machine's, which has no modules folder" 4 "$KSC" check "$D/intree/kvm.ko"
	t_grep "... the running release is looked for" "ksymcheck: /lib/modules/$(uname -r): no such module directory (nor usr/lib/modules/$(uname -r))" "$T_TMP/err"
fi
t_expect bad-policy 2 "$KSC" check "${K[@]}" --policy banana "$D/intree/kvm.ko"
t_expect missing-kernel-root 4 "$KSC" check -k "$T_TMP/nowhere" --kver 1.2.3 "$D/intree/kvm.ko"
t_grep "... reported" "ksymcheck: $T_TMP/nowhere: No such file or directory" "$T_TMP/err"
# a corrupt Module.symvers line: unreadable input and a refusal
printf '0xZZ\tfoo\tvmlinux\tEXPORT_SYMBOL\t\n' > "$T_TMP/corrupt.symvers"
t_expect corrupt-symvers-line 5 "$KSC" check --symvers "$T_TMP/corrupt.symvers" --policy 6.16 "$D/oot/fxdma.ko"
# --symvers alone: the rules come from the module's vermagic
printf '0x00000000\tdma_buf_get\tvmlinux\tEXPORT_SYMBOL_GPL\tDMA_BUF\n' > "$T_TMP/dma.symvers"
t_expect symvers-rules-from-vermagic 1 "$KSC" check --symvers "$T_TMP/dma.symvers" --view modpost "$D/oot/fxdma.ko"
t_grep "... 6.16" "rules of 6.16" "$T_TMP/out"
t_expect help 0 "$KSC" check --help
t_grep "... documents --require-intree" "--require-intree" "$T_TMP/out"

# Modules given together load as modprobe loads them: a module after those whose exports
# it uses (the folder of a DKMS package: fxdongle uses fxgip, and sorts before it).
t_expect dkms-folder-order 1 "$KSC" check "${K[@]}" --view loader "$D/dkms"
t_grep "... fxdongle loads after fxgip, whose exports it uses" "4 modules checked (rules of 6.16, from the kernel's release): loader: 2 would load, 2 refused" "$T_TMP/out"
# The refused core first, then once per module what its refusal costs the others.
printf '%s\n' "fxjool_common: snmp_fold_field: loader: refused: no one exports this symbol [unresolved]" \
	"fxjool: 2 symbols: loader: refused: exported by fxjool_common, which would be refused (see above) [dep-refused]" > "$T_TMP/want"
head -n 2 "$T_TMP/out" | t_diff "... the root cause first, then the dependent module once" "$T_TMP/want" -
t_expect dkms-folder-order-v 1 "$KSC" check "${K[@]}" --view loader -v "$D/dkms"
t_grep "... -v names the symbols" "    symbols: fxjool_stats fxjool_translate" "$T_TMP/out"
t_grep "... and why the exporter is refused" "fxjool_common, given with this module, is loaded first and would be refused (snmp_fold_field: no one exports this symbol [unresolved])" "$T_TMP/out"
t_eq "... a note alike for every module is said once, naming the others" "1 1" \
	"$(grep -c '\[taint-oot\]' "$T_TMP/out") $(grep -c '^    also: fxdongle, fxjool_common, fxjool$' "$T_TMP/out")"
t_expect dkms-folder-kernel 1 "$KSC" check "${K[@]}" --view loader --format kernel "$D/dkms"
printf '%s\n' "fxgip: loading out-of-tree module taints kernel." \
	"fxjool_common: Unknown symbol snmp_fold_field (err -2)" \
	"insmod: ERROR: could not insert module $D/dkms/fxjool_common.ko: Unknown symbol in module" \
	"fxjool: Unknown symbol fxjool_stats (err -2)" \
	"fxjool: Unknown symbol fxjool_translate (err -2)" \
	"insmod: ERROR: could not insert module $D/dkms/fxjool.ko: Unknown symbol in module" > "$T_TMP/want"
t_diff "... --format kernel: the kernel's lines in load order" "$T_TMP/want" "$T_TMP/out"
t_expect dkms-folder-json 1 "$KSC" check "${K[@]}" --view loader --format json "$D/dkms"
python3 - "$T_TMP/out" > "$T_TMP/j" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["modules"]:
    print(m["module"], m["loader"]["result"], *[f["code"] + ":" + (f.get("owner") or "") for f in m["findings"] if f["verdict"] == "error"])
PY
printf '%s\n' "fxdongle loads" "fxgip loads" "fxjool refused dep-refused:fxjool_common dep-refused:fxjool_common" \
	"fxjool_common refused unresolved:" > "$T_TMP/want"
t_diff "... JSON: the modules in the order given, a dep-refused finding per symbol" "$T_TMP/want" "$T_TMP/j"
# --insmod keeps the order given: plain insmod of each file in turn.
t_expect dkms-folder-insmod 1 "$KSC" check "${K[@]}" --view loader --insmod "$D/dkms"
t_grep "--insmod: a module given before its exporter is refused (dep-order)" "fxdongle: 2 symbols: loader: refused: exported by fxgip, which is loaded after this module (--insmod keeps the order given) [dep-order]" "$T_TMP/out"
t_expect dkms-insmod-given-order 0 "$KSC" check "${K[@]}" --view loader --insmod "$D/dkms/fxgip.ko" "$D/dkms/fxdongle.ko"
# A dependency cycle loads none of its modules (R43, worded as for a tree's cycle).
t_expect dkms-cycle 1 "$KSC" check "${K[@]}" --view loader "$D/cycle"
t_grep "... dep-cycle" "fxcyc_a: fxcyc_b_fn: loader: refused: from fxcyc_b, which modprobe cannot load: dependency cycle fxcyc_a -> fxcyc_b -> fxcyc_a [dep-cycle]" "$T_TMP/out"
# A module given replaces the tree's module of its name: when it is refused (7.1 wants
# __kflagstab), the tree's fx_modns does not stand in for it.
t_expect dkms-replaces-tree 1 "$KSC" check "${K[@]}" --view loader --policy 7.1 \
	"$D/intree/kvm-amd.ko" "$FIXTURES/x86_64/fx-modns.ko"
t_grep "... its users see it refused" "fxm_for_kvm_family: loader: refused: exported by fx_modns, which would be refused (see above) [dep-refused]" "$T_TMP/out"
