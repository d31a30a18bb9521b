# SPDX-License-Identifier: LGPL-2.1-or-later
# Every command's JSON on the fixtures, and explain's, validates against
# doc/ksymcheck.schema.json (python3's jsonschema, draft 2020-12); the schema rejects what
# it must; strings that are not UTF-8 come out as U+FFFD in JSON and escaped in text.
. tests/lib.sh
. tests/browser/inputs.sh
SCHEMA=$TOP/doc/ksymcheck.schema.json
D=$FIXTURES/demo
X=$FIXTURES/x86_64
rel=6.16.0-demo

if ! python3 -c 'import jsonschema' 2> /dev/null; then
	t_skip "JSON schema" "python3-jsonschema is not installed (scripts/install-deps.sh --test)"
	exit 0
fi

# validate NAME FILE [COMMAND]: FILE is one document of the schema (printed by COMMAND)
validate() {
	if python3 - "$SCHEMA" "$2" "${3:-}" > "$T_TMP/v.err" 2>&1 <<'PY'; then
import json, sys, jsonschema
schema, doc = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
jsonschema.Draft202012Validator.check_schema(schema)
errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
for e in errors[:5]:
    print("/".join(map(str, e.absolute_path)) or "(document)", ":", e.message[:300])
if sys.argv[3] and doc.get("command") != sys.argv[3]:
    print("command is", doc.get("command"), "not", sys.argv[3])
    sys.exit(1)
sys.exit(1 if errors else 0)
PY
		t_ok "$1: valid ksymcheck/1"
	else
		t_fail "$1: valid ksymcheck/1" "$(head -c 900 "$T_TMP/v.err")"
	fi
}

# json NAME EXPECTED_RC COMMAND ARGS...: run with --format json and validate the output
n=0
json() {
	local name=$1 rc=$2 cmd=$3 words; shift 3
	read -ra words <<< "$cmd" # "src scan": two words
	n=$((n + 1))
	t_run "$name" "$rc" "$KSC" "${words[@]}" --format json "$@"
	cp "$T_TMP/out" "$T_TMP/doc$n.json"
	validate "... $cmd" "$T_TMP/doc$n.json" "$cmd"
}

# ---- every command ----
report_symvers "$T_TMP"
mkdir -p "$T_TMP/audit"
if ! report_audit "$T_TMP/audit"; then
	t_fail "the audit fixture tree" "tests/browser/inputs.sh report_audit failed"
	exit 0
fi
root=$T_TMP/audit/root
validate "audit --json of the fixture tree" "$T_TMP/audit/audit.json" audit
validate "the HTML report's sample audit (tests/browser/audit-sample.json)" tests/browser/audit-sample.json audit

json "check: loader and modpost, names that differ" 1 check -k "$root" --kver "$rel" -v \
	"$D/intree/kvm.ko" "$D/intree/kvm-amd.ko" "$D/oot/fxdma.ko" "$D/extra/kvm-evil.ko"
json "check --view loader" 1 check -k "$root" --kver "$rel" --view loader "$D/prop/kvm.ko"
json "check --view modpost" 1 check -k "$root" --kver "$rel" --view modpost "$D/intree/kvm_intel.ko"
json "tree" 1 tree -b "$root" --no-index "$rel"
json "tree --no-check" 0 tree -b "$root" --no-index --no-check "$rel"
json "tree --view modpost" 1 tree -b "$root" --no-index --view modpost "$rel"
json "audit" 1 audit -b "$root" "$rel"
json "diff: export changes" 1 diff "$T_TMP/old.symvers" "$T_TMP/new.symvers"
json "diff: no change" 0 diff "$T_TMP/old.symvers" "$T_TMP/old.symvers"
json "diff with modules" 1 diff --policy-old 6.15 --policy-new 6.16 "$T_TMP/old.symvers" \
	"$T_TMP/new.symvers" "$D/oot/fxdma.ko" "$D/intree/kvm-amd.ko"
json "compat: a kernel root and two Module.symvers" 1 compat -k "$root" --kver "$rel" \
	-s "$T_TMP/old.symvers" --kver 6.15.0 -s "$T_TMP/new.symvers" --kver 6.16.0 \
	"$D/oot/fxdma.ko" "$D/prop/kvm.ko" "$X/fx-user.ko"
json "modinfo" 0 modinfo "$X/fx-user.ko" "$D/intree/kvm-amd.ko"
[ -f "$FIXTURES/signed/fx-user-rsa.ko" ] && json "modinfo of a signed module" 0 modinfo "$FIXTURES/signed/fx-user-rsa.ko"
json "imports" 0 imports "$X/fx-user.ko.zst" "$X/fx-kvm-amd.ko"
json "exports: modules and a Module.symvers" 0 exports "$X/fx-modns.ko" "$T_TMP/new.symvers"
json "imports of nothing readable" 4 imports "$T_TMP/nothing.ko"
json "src scan" 0 "src scan" tests/fixtures/srctree/scan
json "explain: every rule and code" 0 explain
cp "$T_TMP/doc$n.json" "$T_TMP/explain.json"
json "explain: a code and a rule" 0 explain gpl-only R31
NS=$T_TMP/ns
mkdir -p "$NS" && cp -r tests/fixtures/srctree/nsdeps "$NS/"
if command -v "${CLANG:-clang}" > /dev/null &&
	"${CLANG:-clang}" --target=x86_64-linux-gnu -c -I tests/fixtures/src \
		-o "$NS/nsdeps/fx-nsuser/fx-nsuser.ko" "$NS/nsdeps/fx-nsuser.S" 2> /dev/null; then
	json "nsdeps: missing and refused namespaces" 1 nsdeps --symvers "$NS/nsdeps/Module.symvers" \
		--src "$NS/nsdeps/fx-nsuser" "$NS/nsdeps/fx-nsuser/fx-nsuser.ko"
else
	t_skip "nsdeps --json" "cannot assemble the module fixture"
fi

# The finding object is the same in check, tree, audit and diff: the same keys.
t_eq "the finding object has the same keys in check, tree, audit and diff" "1 finding shape" \
	"$(python3 - "$T_TMP"/doc1.json "$T_TMP"/doc4.json "$T_TMP"/doc7.json "$T_TMP"/doc10.json <<'PY'
import json, sys
shapes = set()
for p in sys.argv[1:]:
    d = json.load(open(p))
    fs = d.get("findings") or []
    for m in d.get("modules") or []:
        fs += m.get("findings") or []
        fs += [{k: v for k, v in c.items() if k not in ("old", "new", "export_changes")}
               for c in m.get("changes") or []]
    if not fs:
        print("no finding in", d["command"])
    shapes |= {tuple(sorted(f)) for f in fs}
print(len(shapes), "finding shape" + ("" if len(shapes) == 1 else "s"))
PY
)"

# ---- the schema says no to what is not the shape ----
python3 - "$T_TMP/doc1.json" "$T_TMP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = json.loads(json.dumps(d)); bad["modules"][0]["findings"][0]["kernel_lines"] = "one string"
json.dump(bad, open(sys.argv[2] + "/bad1.json", "w"))
bad = json.loads(json.dumps(d)); bad["modules"][0]["findings"][0]["detail"] = "audit's old key"
json.dump(bad, open(sys.argv[2] + "/bad2.json", "w"))
bad = json.loads(json.dumps(d)); del bad["schema"]
json.dump(bad, open(sys.argv[2] + "/bad3.json", "w"))
e = json.load(open(sys.argv[2] + "/explain.json"))
bad = json.loads(json.dumps(e)); bad["rules"][0]["id"] = "16"
json.dump(bad, open(sys.argv[2] + "/bad4.json", "w"))
bad = json.loads(json.dumps(e)); bad["codes"][0]["severities"] = ["note"]
json.dump(bad, open(sys.argv[2] + "/bad5.json", "w"))
PY
for b in 1 2 3 4 5; do
	if validate "x" "$T_TMP/bad$b.json" > /dev/null 2>&1 && ! grep -q . "$T_TMP/v.err"; then
		t_fail "the schema rejects broken document $b" "it validated"
	else
		t_ok "the schema rejects broken document $b ($(head -n 1 "$T_TMP/v.err" | cut -c1-80))"
	fi
done

# ---- text that is not UTF-8, and control characters ----
weird=$T_TMP/$'w\xff\x1b[31m'
mkdir -p "$weird"
cp "$X/fx-user.ko" "$weird/"
t_run "a folder name with a bad byte and an escape sequence: json" 0 "$KSC" modinfo --format json "$weird/fx-user.ko"
t_eq "... the bad byte as U+FFFD, the escape character as JSON's \\u001b" \
	"w"$'\xef\xbf\xbd'"\\u001b[31m/fx-user.ko\"," "$(sed -n 's/.*"path": ".*\/\(w.*\)$/\1/p' "$T_TMP/out")"
python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$T_TMP/out" &&
	t_ok "... the whole output decodes as UTF-8" || t_fail "... the whole output decodes as UTF-8"
t_run "... text" 0 "$KSC" modinfo "$weird/fx-user.ko"
t_grep "... escaped" 'w\xff\x1b[31m/fx-user.ko' "$T_TMP/out"
t_eq "... no escape character reaches the terminal" "0" "$(tr -cd '\033' < "$T_TMP/out" | wc -c)"
