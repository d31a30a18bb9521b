# SPDX-License-Identifier: LGPL-2.1-or-later
# ksymcheck audit on a fixture tree: every finding kind, the tables, and --reference.
# Whole outputs (stdout, stderr, exit status) are compared with tests/expected/audit/
# (t_expect; make regen-expected), with the ECDSA key's id (random, made with the signed
# fixtures) written as EC_KEY_ID; the checks after each run say what it shows.
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

t_expect flags-what-it-finds-json 1 "$KSC" audit -b "$root" --reference "$ref" --json "$rel"
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
    print("finding", f["code"], f["verdict"], f["module"] or "-", f["symbol"] or "-")
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
finding modns-dead-item note - fxp_ghost
finding modns-dead-restriction note - fxp_empty
finding modns-dead-restriction note - fxp_ghost
finding modns-dead-restriction note - fxp_star
finding modns-empty-list warning - fxp_empty
finding modns-impostor warning kvm_evil fxm_for_kvm_family
finding modns-modpost-mismatch warning - fxm_for_kvm_family
finding modns-modpost-mismatch warning - fxp_underscore
finding modns-unmatchable-item warning - fxp_space
finding modns-unmatchable-item warning - fxp_star
finding ns-import-unused note fx_patterns -
finding srcversion-differs warning kvm -
counts intree-not-in-reference=1 modns-dead-item=1 modns-dead-restriction=3 modns-empty-list=1 modns-impostor=1 modns-modpost-mismatch=2 modns-unmatchable-item=2 ns-import-unused=1 srcversion-differs=1
W
t_diff "... every table and finding" "$T_TMP/want" "$T_TMP/got"

t_expect text 1 "$KSC" audit -b "$root" "$rel"
t_grep "... the impostor in words" "kvm_evil (file kvm-evil.ko; modpost matches the file name): fxm_for_kvm_family: warning: not in-tree (no intree in .modinfo) yet its name matches kvm,kvm-*, so every released kernel lets it use (and it does use) fxm_for_kvm_family [modns-impostor]" "$T_TMP/out"
scripts/mk-sample-kernel.sh "$FIXTURES" "$T_TMP/plain"
t_expect nothing-to-warn 0 "$KSC" audit -b "$T_TMP/plain" "$rel"
t_expect missing-release 4 "$KSC" audit -b "$root" 9.9.9

# ---- R13: CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y defeats the restrictions ----
# fx_grabber (extra/, no intree) uses fxm_for_kvm_only, which module:kvm does not grant it.
r13=$T_TMP/r13
scripts/mk-sample-kernel.sh "$FIXTURES" "$r13"
mkdir -p "$r13/lib/modules/$rel/extra" "$r13/lib/modules/$rel/kernel/arch/x86/kvm"
cp "$D/extra/fx-grabber.ko" "$r13/lib/modules/$rel/extra/"
cp "$D/intree/kvm.ko" "$r13/lib/modules/$rel/kernel/arch/x86/kvm/"
# r13_findings: the R13 findings of the JSON in $T_TMP/out, one per line
r13_findings() {
	python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["code"] in ("modns-allow-missing-ns", "modns-defeated"):
        print(f["code"], f["verdict"], f["module"] or "-", f["symbol"] or "-")' "$T_TMP/out"
}
t_expect r13-default-config-json 0 "$KSC" audit -b "$r13" --json "$rel"
t_eq "... no modns-allow-missing-ns, no modns-defeated" "" "$(r13_findings)"
sed -i 's/^# CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS is not set$/CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y/' \
	"$r13/boot/config-$rel"
t_expect r13-boot-config-json 1 "$KSC" audit -b "$r13" --json "$rel"
t_eq "... the kernel-wide warning, and the user it lets in" "modns-defeated warning fx_grabber fxm_for_kvm_only
modns-allow-missing-ns warning - -" "$(r13_findings)"
t_expect r13-boot-config-text 1 "$KSC" audit -b "$r13" "$rel"
t_grep "... the user in words" "fx_grabber (file fx-grabber.ko; modpost matches the file name): fxm_for_kvm_only: warning: uses a module-restricted export it is not granted; CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y lets it load with a warning (R13) [modns-defeated]" "$T_TMP/out"
t_grep "... the kernel-wide line" "kernel: warning: CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y: any module can use every module-restricted export" "$T_TMP/out"
# --config overrides boot/config-KVER, both ways
grep -v ALLOW_MISSING "$r13/boot/config-$rel" > "$T_TMP/r13-off.config"
echo "# CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS is not set" >> "$T_TMP/r13-off.config"
t_expect r13-config-off-json 0 "$KSC" audit -b "$r13" --config "$T_TMP/r13-off.config" --json "$rel"
t_eq "... nothing to report" "" "$(r13_findings)"
cp "$r13/boot/config-$rel" "$T_TMP/r13-on.config"
cp "$T_TMP/r13-off.config" "$r13/boot/config-$rel"
t_expect r13-config-on-json 1 "$KSC" audit -b "$r13" --config "$T_TMP/r13-on.config" --json "$rel"
t_eq "... both findings" "modns-defeated warning fx_grabber fxm_for_kvm_only
modns-allow-missing-ns warning - -" "$(r13_findings)"
t_expect config-missing 4 "$KSC" audit -b "$r13" --config "$T_TMP/nonexistent.config" "$rel"
t_grep "... says which" "nonexistent.config" "$T_TMP/err"

# ---- signatures ----------------------------------------------------------------------
# Modules signed at test time as sign-file signs (tests/fixtures/signed.mk): a tree
# of eight, each in one state:
#   fx_modns    intree, signed (rsa)                       kvm_intel  intree, unsigned, kvm-*
#   kvm         intree, signed (rsa), matches module:kvm   fx_patterns intree, rsa, edited after
#   kvm_amd     intree, signed (ec), matches kvm-*                     signing
#   kvm_evil    not intree, signed (rsa), matches kvm-*    fx_user    intree, malformed PKCS#7
#   fxdma       not intree, unsigned, matches nothing
S=$FIXTURES/signed
if [ ! -f "$S/demo-kvm-rsa.ko" ] || [ ! -f "$S/two.pem" ]; then
	t_skip "audit: signatures" "no signed fixtures: the openssl command is not installed (tests/fixtures/signed.mk)"
	exit 0
fi
sig=$T_TMP/sig
scripts/mk-sample-kernel.sh "$FIXTURES" "$sig"
sk=$sig/lib/modules/$rel
mkdir -p "$sk/kernel/arch/x86/kvm" "$sk/kernel/drivers/fx" "$sk/extra"
cp "$S/fx-modns-rsa.ko" "$sk/kernel/virt/kvm/fx-modns.ko"
cp "$S/demo-kvm-rsa.ko" "$sk/kernel/arch/x86/kvm/kvm.ko"
cp "$S/demo-kvm-amd-ec.ko" "$sk/kernel/arch/x86/kvm/kvm-amd.ko"
cp "$D/intree/kvm_intel.ko" "$sk/kernel/arch/x86/kvm/"
cp "$S/demo-fx-patterns-edited.ko" "$sk/kernel/drivers/fx/fx-patterns.ko"
cp "$FIXTURES/x86_64/fx-user-signed.ko" "$sk/kernel/drivers/fx/fx-user.ko"
cp "$S/demo-kvm-evil-rsa.ko" "$sk/extra/kvm-evil.ko"
cp "$D/oot/fxdma.ko" "$sk/extra/"
sed -i 's/^# CONFIG_MODULE_SIG is not set$/CONFIG_MODULE_SIG=y/' "$sig/boot/config-$rel"

# sig_summary: what the JSON in $T_TMP/raw (ec_free) says of signatures: the counts, the keys, the
# signers and the signature findings (sorted).
sig_summary() {
	python3 - "$T_TMP/raw" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["signatures"]
print("signatures", " ".join("%s=%s" % (k, json.dumps(s[k])) for k in (
    "modules", "signed", "unsigned", "verified", "foreign_key", "rejected", "unsupported",
    "not_checked", "keys", "keys_checked", "module_sig")))
for k in d["keys"]:
    print("key", k["subject"], k["serial"], k["key_algo"], k["bits"], k["source"].rsplit("/", 1)[-1])
for g in d["signers"]:
    print("signer", g["signer"], g["key_id"], g["hash_algo"], g["key"], *(g[k] for k in (
        "modules", "verified", "foreign_key", "rejected", "unsupported", "not_checked")))
sigcodes = ("-unsigned", "-foreign-key", "-bad-signature")
for f in sorted(d["findings"], key=lambda f: (f["code"], f["module"] or "")):
    if f["code"].endswith(sigcodes):
        print("finding", f["code"], f["verdict"], f["module"], f["symbol"] or "-")
PY
}
EC_ID=$("$KSC" modinfo -F sig_key "$S/demo-kvm-amd-ec.ko")
# ec_free CMD...: CMD's output with the ECDSA key's id as EC_KEY_ID (its standard output
# as it was in $T_TMP/raw, for sig_summary); CMD's status.
ec_free() {
	local rc
	"$@" > "$T_TMP/raw" 2> "$T_TMP/raw.err"
	rc=$?
	sed "s|$EC_ID|EC_KEY_ID|g" "$T_TMP/raw"
	sed "s|$EC_ID|EC_KEY_ID|g" "$T_TMP/raw.err" >&2
	return $rc
}
t_expect sig-cert-pem-json 1 ec_free "$KSC" audit -b "$sig" --cert "$S/rsa.pem" --json "$rel"
sig_summary > "$T_TMP/got"
cat > "$T_TMP/want" <<W
signatures modules=8 signed=6 unsigned=2 verified=3 foreign_key=1 rejected=2 unsupported=0 not_checked=0 keys=1 keys_checked=true module_sig=true
key ksymcheck test RSA key 12:34:AB:CD rsa 2048 rsa.pem
signer ksymcheck test RSA key 12:34:AB:CD sha256 ksymcheck test RSA key 4 3 0 1 0 0
signer None None None None 1 0 0 1 0 0
signer ksymcheck test ECDSA key $EC_ID sha256 None 1 0 1 0 0 0
finding intree-bad-signature error fx_patterns -
finding intree-bad-signature error fx_user -
finding intree-foreign-key warning kvm_amd -
finding intree-unsigned warning kvm_intel -
finding modns-foreign-key warning kvm_amd fxm_for_kvm_family
finding modns-unsigned warning kvm_intel fxm_for_kvm_family
W
t_diff "... counts, key, signers; unsigned, foreign and failing signatures flagged, valid ones not" "$T_TMP/want" "$T_TMP/got"
python3 - "$T_TMP/raw" > "$T_TMP/details" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["code"] in ("intree-bad-signature", "intree-foreign-key", "modns-unsigned", "intree-unsigned"):
        print(f["module"], f["code"], f["summary"])
PY
t_grep "... the edited module: EKEYREJECTED, with its signer as modinfo shows it" "fx_patterns intree-bad-signature claims to be in-tree (intree in .modinfo) but carries a signature that fails (signer 'ksymcheck test RSA key', key 12:34:AB:CD, sha256): a trusted key matches the signer but the signature does not verify: the module was changed after it was signed; the kernel refuses to load it (-EKEYREJECTED)" "$T_TMP/details"
t_grep "... the malformed block: EBADMSG" "fx_user intree-bad-signature claims to be in-tree (intree in .modinfo) but carries a signature that fails (a block kmod's modinfo cannot decode): the PKCS#7 message cannot be parsed; the kernel refuses to load it (-EBADMSG)" "$T_TMP/details"
t_grep "... the foreign key: who signed it" "kvm_amd intree-foreign-key claims to be in-tree (intree in .modinfo) but is signed by a key that is not among the kernel's keys (signer 'ksymcheck test ECDSA key', key $EC_ID, sha256)" "$T_TMP/details"
t_grep "... the unsigned name match: which export the name is granted" "kvm_intel modns-unsigned its name matches kvm,kvm-*, which grants it fxm_for_kvm_family, but it is unsigned" "$T_TMP/details"
cp "$T_TMP/got" "$T_TMP/pem"

t_expect sig-cert-der-json 1 ec_free "$KSC" audit -b "$sig" --cert "$S/rsa.der" --json "$rel"
sig_summary | sed 's/ rsa\.der$/ rsa.pem/' > "$T_TMP/got"
t_diff "... the same verdicts as with the PEM" "$T_TMP/pem" "$T_TMP/got"

t_expect sig-cert-two-json 1 ec_free "$KSC" audit -b "$sig" --cert "$S/two.pem" --json "$rel"
sig_summary | grep -E '^(signatures|finding)' > "$T_TMP/got"
cat > "$T_TMP/want" <<W
signatures modules=8 signed=6 unsigned=2 verified=4 foreign_key=0 rejected=2 unsupported=0 not_checked=0 keys=2 keys_checked=true module_sig=true
finding intree-bad-signature error fx_patterns -
finding intree-bad-signature error fx_user -
finding intree-unsigned warning kvm_intel -
finding modns-unsigned warning kvm_intel fxm_for_kvm_family
W
t_diff "... kvm_amd verifies with the ec key" "$T_TMP/want" "$T_TMP/got"
t_expect sig-cert-twice-json 1 ec_free "$KSC" audit -b "$sig" --cert "$S/rsa.pem" --cert "$S/ec.der" --json "$rel"
sig_summary | grep -E '^(signatures|finding)' > "$T_TMP/got2"
t_diff "... as one file with both" "$T_TMP/got" "$T_TMP/got2"

t_expect sig-no-cert-json 1 ec_free "$KSC" audit -b "$sig" --json "$rel"
sig_summary > "$T_TMP/got"
cat > "$T_TMP/want" <<W
signatures modules=8 signed=6 unsigned=2 verified=0 foreign_key=0 rejected=1 unsupported=0 not_checked=5 keys=0 keys_checked=false module_sig=true
signer ksymcheck test RSA key 12:34:AB:CD sha256 None 4 0 0 0 0 4
signer None None None None 1 0 0 1 0 0
signer ksymcheck test ECDSA key $EC_ID sha256 None 1 0 0 0 0 1
finding intree-bad-signature error fx_user -
finding intree-unsigned warning kvm_intel -
finding modns-unsigned warning kvm_intel fxm_for_kvm_family
W
t_diff "... only what needs no key: unsigned and malformed; the edited module not checked" "$T_TMP/want" "$T_TMP/got"
python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["code"] == "intree-unsigned": print(f["summary"])' "$T_TMP/out" > "$T_TMP/details"
t_grep "... the unsigned finding says keys were not checked" "(keys were not checked: with no key known, only missing and malformed signatures are judged)" "$T_TMP/details"
t_expect sig-no-cert-text 1 ec_free "$KSC" audit -b "$sig" "$rel"
t_grep "... the summary line says so" "signatures: 8 modules: 6 signed (0 verified, 0 foreign key, 1 rejected, 0 unsupported, 5 not checked), 2 unsigned; keys not checked: no certificate given (--cert) and none in the kernel image" "$T_TMP/out"
t_expect sig-cert-text 1 ec_free "$KSC" audit -b "$sig" --cert "$S/rsa.pem" "$rel"
t_grep "... the summary line" "signatures: 8 modules: 6 signed (3 verified, 1 foreign key, 2 rejected, 0 unsupported, 0 not checked), 2 unsigned; 1 key" "$T_TMP/out"
t_grep "... the signer line" "  'ksymcheck test RSA key' 12:34:AB:CD sha256: 4 (3 verified, 0 foreign key, 1 rejected, 0 unsupported, 0 not checked)" "$T_TMP/out"

# A kernel that does not sign its modules, and no key: unsigned is the norm there.
sed 's/^CONFIG_MODULE_SIG=y$/# CONFIG_MODULE_SIG is not set/' "$sig/boot/config-$rel" > "$T_TMP/nosig.config"
t_expect sig-no-module-sig-json 1 ec_free "$KSC" audit -b "$sig" --config "$T_TMP/nosig.config" --json "$rel"
sig_summary | grep -E '^(signatures|finding)' > "$T_TMP/got"
cat > "$T_TMP/want" <<W
signatures modules=8 signed=6 unsigned=2 verified=0 foreign_key=0 rejected=1 unsupported=0 not_checked=5 keys=0 keys_checked=false module_sig=false
finding intree-bad-signature error fx_user -
W
t_diff "... unsigned modules not flagged; a malformed signature still is" "$T_TMP/want" "$T_TMP/got"
t_expect sig-no-module-sig-cert-json 1 ec_free "$KSC" audit -b "$sig" --config "$T_TMP/nosig.config" --cert "$S/rsa.pem" --json "$rel"
t_eq "... intree-unsigned kvm_intel" "finding intree-unsigned warning kvm_intel -" "$(sig_summary | grep intree-unsigned)"

# The kernel's built-in key, from the image under ROOT (no --cert).
cp "$S/fx-vmlinux-rsa" "$sig/boot/vmlinux-$rel"
t_expect sig-builtin-key-json 1 ec_free "$KSC" audit -b "$sig" --json "$rel"
sig_summary | grep -E '^(signatures|key)' > "$T_TMP/got"
cat > "$T_TMP/want" <<W
signatures modules=8 signed=6 unsigned=2 verified=3 foreign_key=1 rejected=2 unsupported=0 not_checked=0 keys=1 keys_checked=true module_sig=true
key ksymcheck test RSA key 12:34:AB:CD rsa 2048 vmlinux-$rel
W
t_diff "... verifies as --cert rsa.pem does" "$T_TMP/want" "$T_TMP/got"
# The image's certificates are kept beside the index (KVER-HASH.keys), keyed by the image's
# path, size, mtime and inode (an image modified within two seconds is not kept).
keys() { find "$XDG_CACHE_HOME/ksymcheck/tree" -name "$rel-*.keys" -newer "$T_TMP/mark"; }
touch -d '2024-01-01 00:00' "$sig/boot/vmlinux-$rel"
touch "$T_TMP/mark"
"$KSC" audit -b "$sig" --json "$rel" > /dev/null
t_eq "signatures: the image's keys kept beside the index" 1 "$(keys | wc -l)"
t_eq "... its certificate, as DER" "$(od -An -tx1 "$S/rsa.der" | tr -d ' \n')" \
	"$(tail -c "$(stat -c %s "$S/rsa.der")" "$(keys)" | od -An -tx1 | tr -d ' \n')"
t_expect sig-builtin-key-kept-json 1 ec_free "$KSC" audit -b "$sig" --json "$rel"
sig_summary | grep -E '^(signatures|key)' > "$T_TMP/got"
t_diff "... the same key and verdicts" "$T_TMP/want" "$T_TMP/got"
cp "$FIXTURES/x86_64/fx-vmlinux-prel32" "$sig/boot/vmlinux-$rel"
touch -d '2024-01-02 00:00' "$sig/boot/vmlinux-$rel"
t_expect sig-another-image-json 1 ec_free "$KSC" audit -b "$sig" --json "$rel"
t_eq "... no key in it" "signatures modules=8 signed=6 unsigned=2 verified=0 foreign_key=0 rejected=1 unsupported=0 not_checked=5 keys=0 keys_checked=false module_sig=true" \
	"$(sig_summary | grep -E '^signatures')"
t_eq "... the kept keys rewritten: none" "" "$(tail -c "$(stat -c %s "$S/rsa.der")" "$(keys)" | od -An -tx1 | tr -d ' \n' | grep -F "$(od -An -tx1 "$S/rsa.der" | tr -d ' \n')")"

# The HTML report carries the same document.
"$KSC" audit -b "$sig" --cert "$S/rsa.pem" --json "$rel" > "$T_TMP/sig.json"
t_expect sig-html 1 ec_free "$KSC" audit -b "$sig" --cert "$S/rsa.pem" --html "$T_TMP/sig.html" "$rel"
if python3 tests/browser/checks.py html "$T_TMP/sig.html" "$T_TMP/sig.json" 2> "$T_TMP/check.err"; then
	t_ok "... well-formed, self-contained, its JSON block equals --json"
else
	t_fail "... well-formed, self-contained, its JSON block equals --json" "$(head -c 600 "$T_TMP/check.err")"
fi
t_grep "... draws the signers table" "key: 'signers', title: 'Signers'" "$T_TMP/sig.html"

# A clean tree: intree modules signed by the kernel's key.
clean=$T_TMP/clean
scripts/mk-sample-kernel.sh "$FIXTURES" "$clean"
mkdir -p "$clean/lib/modules/$rel/kernel/arch/x86/kvm"
cp "$S/fx-modns-rsa.ko" "$clean/lib/modules/$rel/kernel/virt/kvm/fx-modns.ko"
cp "$S/demo-kvm-rsa.ko" "$clean/lib/modules/$rel/kernel/arch/x86/kvm/kvm.ko"
sed -i 's/^# CONFIG_MODULE_SIG is not set$/CONFIG_MODULE_SIG=y/' "$clean/boot/config-$rel"
t_expect sig-clean-json 0 ec_free "$KSC" audit -b "$clean" --cert "$S/rsa.pem" --json "$rel"
t_eq "... both verify, nothing flagged" "signatures modules=2 signed=2 unsigned=0 verified=2 foreign_key=0 rejected=0 unsupported=0 not_checked=0 keys=1 keys_checked=true module_sig=true" \
	"$(sig_summary | grep -E '^(signatures|finding)')"
t_expect sig-clean-other-key-json 1 ec_free "$KSC" audit -b "$clean" --cert "$S/ec.pem" --json "$rel"
t_eq "... both foreign" "signatures modules=2 signed=2 unsigned=0 verified=0 foreign_key=2 rejected=0 unsupported=0 not_checked=0 keys=1 keys_checked=true module_sig=true
finding intree-foreign-key warning fx_modns -
finding intree-foreign-key warning kvm -
finding modns-foreign-key warning kvm anon_inode_make_secure_inode" \
	"$(sig_summary | grep -E '^(signatures|finding)')"

t_expect sig-cert-missing 4 ec_free "$KSC" audit -b "$clean" --cert "$T_TMP/nonexistent.pem" "$rel"
t_grep "... says which" "nonexistent.pem" "$T_TMP/err"
t_eq "... and audits nothing" "" "$(cat "$T_TMP/out")"
t_expect sig-cert-no-certificate 4 ec_free "$KSC" audit -b "$clean" --cert "$T_TMP/nosig.config" "$rel"
t_grep "... says so" "no X.509 certificate in it" "$T_TMP/err"

# A namespace imported twice by one module (two of its source files import it): one import
# for the loader and modpost, so one importer and one finding that names it.
dup=$T_TMP/dup
scripts/mk-sample-kernel.sh "$FIXTURES" "$dup"
mkdir -p "$dup/lib/modules/$rel/kernel/drivers/fx"
objcopy -O binary --only-section=.modinfo "$D/intree/fx-patterns.ko" "$T_TMP/modinfo"
printf 'import_ns=DMA_BUF\0' >> "$T_TMP/modinfo"
objcopy --update-section .modinfo="$T_TMP/modinfo" "$D/intree/fx-patterns.ko" \
	"$dup/lib/modules/$rel/kernel/drivers/fx/fx-patterns.ko"
t_eq "a namespace imported twice: its import_ns lines" "DMA_BUF DMA_BUF" \
	"$("$KSC" modinfo -F import_ns "$dup/lib/modules/$rel/kernel/drivers/fx/fx-patterns.ko" | xargs)"
t_run "... audit" 1 "$KSC" audit -b "$dup" "$rel"
t_eq "... one importer, one finding naming the namespace" "  DMA_BUF: 1; vmlinux; fx_patterns; fx_patterns
fx_patterns (file fx-patterns.ko; modpost matches the file name): info: imports the namespace DMA_BUF but uses nothing from it (a stale MODULE_IMPORT_NS) [ns-import-unused]" \
	"$(grep -e '^  DMA_BUF:' -e 'ns-import-unused' "$T_TMP/out")"
