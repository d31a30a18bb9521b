# SPDX-License-Identifier: LGPL-2.1-or-later
# ksymcheck audit on a fixture tree: every finding kind, the tables, and --reference.
. tests/lib.sh
root=$T_TMP/root
ref=$T_TMP/ref
rel=6.16.0-demo
D=$FIXTURES/demo
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"
scripts/mk-sample-kernel.sh "$FIXTURES" "$ref"
k=$root/lib/modules/$rel
mkdir -p "$k/kernel/arch/x86/kvm" "$k/kernel/drivers/fx" "$k/extra"
cp "$D/intree/kvm.ko" "$D/intree/kvm-amd.ko" "$D/intree/kvm_intel.ko" "$k/kernel/arch/x86/kvm/"
cp "$D/intree/fx-patterns.ko" "$k/kernel/drivers/fx/"
cp "$D/extra/kvm-evil.ko" "$k/extra/"
mkdir -p "$ref/lib/modules/$rel/kernel/arch/x86/kvm"
cp "$D/ref/kvm.ko" "$D/intree/kvm-amd.ko" "$D/intree/kvm_intel.ko" "$ref/lib/modules/$rel/kernel/arch/x86/kvm/"

t_run "audit flags what it finds" 1 "$KSC" audit -b "$root" --reference "$ref" --json "$rel"
python3 - "$T_TMP/out" > "$T_TMP/got" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = d["kernel"]
print("kernel", k["release"], k["modules"], k["exports"], k["gpl_only"], k["plain"])
for r in d["restricted"]:
    items = " ".join("%s:%s:%s/%s" % (i["item"] or "''", i["kind"], ",".join(i["loader_matches"]) or "-",
                                        ",".join(i["modpost_matches"]) or "-") for i in r["items"])
    print("restricted", r["symbol"], r["owner"], items, "users=" + (",".join(r["users"]) or "-"),
          "dead" if r["dead"] else "live")
for n in d["namespaces"]:
    print("namespace", n["namespace"], n["exports"], ",".join(n["exporters"]),
          ",".join(n["importers"]) or "-", ",".join(n["unused_importers"]) or "-")
for f in sorted(d["findings"], key=lambda f: (f["code"], f["module"] or "", f["symbol"] or "")):
    print("finding", f["code"], f["severity"], f["module"] or "-", f["symbol"] or "-")
print("counts", " ".join("%s=%d" % kv for kv in sorted(d["counts"].items())))
PY
cat > "$T_TMP/want" <<'W'
kernel 6.16.0-demo 6 15 10 5
restricted anon_inode_make_secure_inode vmlinux kvm:exact:kvm/kvm users=kvm live
restricted fxm_for_kvm_family fx_modns kvm:exact:kvm/kvm kvm-*:glob:kvm_amd,kvm_evil,kvm_intel/kvm-amd,kvm-evil users=kvm,kvm_amd,kvm_evil,kvm_intel live
restricted fxm_for_kvm_only fx_modns kvm:exact:kvm/kvm users=- live
restricted fxp_empty fx_patterns '':empty:-/- users=- dead
restricted fxp_ghost fx_patterns nosuchmod:exact:-/- users=- dead
restricted fxp_space fx_patterns kvm:exact:kvm/kvm  vfio:has-space:-/- users=- live
restricted fxp_star fx_patterns k*m:misplaced-star:-/- users=- dead
restricted fxp_underscore fx_patterns kvm_amd:exact:kvm_amd/- users=- live
namespace DMA_BUF 1 vmlinux fx_patterns fx_patterns
finding intree-not-in-reference warning fx_patterns -
finding modns-dead-item info - fxp_ghost
finding modns-dead-restriction info - fxp_empty
finding modns-dead-restriction info - fxp_ghost
finding modns-dead-restriction info - fxp_star
finding modns-empty-list warning - fxp_empty
finding modns-impostor warning kvm_evil fxm_for_kvm_family
finding modns-modpost-mismatch warning - fxm_for_kvm_family
finding modns-modpost-mismatch warning - fxp_underscore
finding modns-unmatchable-item warning - fxp_space
finding modns-unmatchable-item warning - fxp_star
finding ns-import-unused info fx_patterns -
finding srcversion-differs warning kvm -
counts intree-not-in-reference=1 modns-dead-item=1 modns-dead-restriction=3 modns-empty-list=1 modns-impostor=1 modns-modpost-mismatch=2 modns-unmatchable-item=2 ns-import-unused=1 srcversion-differs=1
W
t_diff "... every table and finding" "$T_TMP/want" "$T_TMP/got"

t_run "text output" 1 "$KSC" audit -b "$root" "$rel"
t_grep "... the impostor in words" "kvm_evil: fxm_for_kvm_family: warning: not in-tree (no intree in .modinfo) yet its name matches kvm,kvm-*, so every released kernel lets it use (and it does use) fxm_for_kvm_family [modns-impostor]" "$T_TMP/out"
scripts/mk-sample-kernel.sh "$FIXTURES" "$T_TMP/plain"
t_run "a tree with nothing to warn about" 0 "$KSC" audit -b "$T_TMP/plain" "$rel"
t_run "a missing release" 4 "$KSC" audit -b "$root" 9.9.9
