# SPDX-License-Identifier: LGPL-2.1-or-later
# check and tree --format sarif: valid against the published SARIF 2.1.0 schema, and what
# a CI system reads from it (rules, levels, locations) says what --format json says.
# The schema is not kept here: scripts/sarif-schema.sh keeps it in the cache (from the
# npm package @microsoft/jest-sarif, checksum checked), where scripts/install-deps.sh
# --test puts it, so that the validation runs offline; without it, the script fetches it
# now, and without npm or the registry the validation is skipped, saying why.
. tests/lib.sh
. tests/browser/inputs.sh
D=$FIXTURES/demo
rel=6.16.0-demo

# The schema: its path in SCHEMA, else the reason in why.
fetch_schema() {
	SCHEMA=$(scripts/sarif-schema.sh 2> "$T_TMP/schema.err") && return 0
	why=$(head -c 300 "$T_TMP/schema.err")
	return 1
}

mkdir -p "$T_TMP/audit"
report_audit "$T_TMP/audit" || { t_fail "the fixture tree" "tests/browser/inputs.sh report_audit failed"; exit 0; }
root=$T_TMP/audit/root
K=(-k "$root" --kver "$rel")
MODS=("$D/intree/kvm.ko" "$D/intree/kvm-amd.ko" "$D/oot/fxdma.ko" "$D/extra/kvm-evil.ko")

t_run "check --format sarif" 1 "$KSC" check "${K[@]}" --format sarif "${MODS[@]}"
cp "$T_TMP/out" "$T_TMP/check.sarif"
t_run "check --format json, the same modules" 1 "$KSC" check "${K[@]}" --format json "${MODS[@]}"
cp "$T_TMP/out" "$T_TMP/check.json"
t_run "tree --format sarif" 1 "$KSC" tree -b "$root" --no-index --format sarif "$rel"
cp "$T_TMP/out" "$T_TMP/tree.sarif"
t_run "tree --format json" 1 "$KSC" tree -b "$root" --no-index --format json "$rel"
cp "$T_TMP/out" "$T_TMP/tree.json"
t_run "check: an unknown --format" 2 "$KSC" check "${K[@]}" --format sarif2 "$D/intree/kvm.ko"

# What a reader of the log sees: rules, results, and the same findings as the JSON.
t_eq "check: one rule per code, each result's rule, level, location and message" "ok" \
	"$(python3 - "$T_TMP/check.sarif" "$T_TMP/check.json" <<'PY'
import json, sys
log, doc = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
run, = log["runs"]
drv = run["tool"]["driver"]
if (log["version"], drv["name"]) != ("2.1.0", "ksymcheck") or not drv.get("informationUri") or not drv.get("version"):
    bad.append("driver")
ids = [r["id"] for r in drv["rules"]]
findings = [f for m in doc["modules"] for f in m["findings"]]
if sorted(ids) != sorted(set(f["code"] for f in findings)):
    bad.append("rules %s" % ids)
if any(not r["shortDescription"]["text"] or not r["help"]["text"] for r in drv["rules"]):
    bad.append("rule texts")
res = run["results"]
if len(res) != len(findings):
    bad.append("%d results for %d findings" % (len(res), len(findings)))
level = {"error": "error", "warning": "warning", "note": "note"}
for r, f in zip(res, findings):
    loc, = r["locations"]
    names = [l["name"] for l in loc["logicalLocations"]]
    if (ids[r["ruleIndex"]] != r["ruleId"] or r["ruleId"] != f["code"] or r["level"] != level[f["verdict"]]
            or loc["physicalLocation"]["artifactLocation"]["uri"].removeprefix("file://") != f["path"]
            or names != [f["module"]] + ([f["symbol"]] if f["symbol"] else [])
            or f["summary"] not in r["message"]["text"]):
        bad.append(json.dumps(r)[:300])
kvm_amd = [r for r in res if r["locations"][0]["logicalLocations"][0]["name"] == "kvm_amd"]
if not kvm_amd or any(r["properties"]["file"] != "kvm-amd" for r in kvm_amd):
    bad.append("kvm_amd: file")
print("ok" if not bad else "\n".join(bad))
PY
)"
"$KSC" explain --json > "$T_TMP/catalogue.json" || t_fail "explain --json"
t_eq "check: each rule's texts are the catalogue's (explain --json)" "ok" \
	"$(python3 - "$T_TMP/check.sarif" "$T_TMP/catalogue.json" <<'PY'
import json, sys
log, cat = (json.load(open(p)) for p in sys.argv[1:3])
titles = {r["id"]: r for r in cat["rules"]}
bad = []
for r in log["runs"][0]["tool"]["driver"]["rules"]:
    entries = [c for c in cat["codes"] if c["code"] == r["id"]]
    ids = [c["rule"] for c in entries]
    if not entries or r["properties"]["rules"] != ids:
        bad.append("%s: rules %s, the catalogue says %s" % (r["id"], r["properties"]["rules"], ids))
        continue
    short, full, help = (r[k]["text"] for k in ("shortDescription", "fullDescription", "help"))
    if any(c["summary"] not in short for c in entries):
        bad.append("%s: shortDescription %r" % (r["id"], short))
    if any(titles[i]["title"] not in full or titles[i]["text"] not in full for i in ids):
        bad.append("%s: fullDescription %r" % (r["id"], full[:100]))
    fixes = [c["fix"] or titles[c["rule"]]["fix"] for c in entries]
    if any(f and f[1:] not in help for f in fixes) or "ksymcheck explain " + r["id"] not in help:
        bad.append("%s: help %r" % (r["id"], help))
print("ok" if not bad else "\n".join(bad))
PY
)"
t_eq "tree: paths relative to the module folder, given as a base URI" "ok" \
	"$(python3 - "$T_TMP/tree.sarif" "$T_TMP/tree.json" <<'PY'
import json, sys
log, doc = (json.load(open(p)) for p in sys.argv[1:3])
run, = log["runs"]
base = run["originalUriBaseIds"]["MODDIR"]["uri"]
findings = [f for m in doc["modules"] for f in m["findings"]]
res = run["results"]
bad = []
if base != "file://" + doc["moddir"] + "/":
    bad.append("base " + base)
if len(res) != len(findings):
    bad.append("%d results for %d findings" % (len(res), len(findings)))
for r, f in zip(res, findings):
    a = r["locations"][0]["physicalLocation"]["artifactLocation"]
    if a.get("uriBaseId") != "MODDIR" or base[len("file://"):] + a["uri"] != f["path"]:
        bad.append(json.dumps(a))
print("ok" if not bad else "\n".join(bad[:5]))
PY
)"

# Validation against the published schema.
why=""
if ! python3 -c 'import jsonschema' 2> /dev/null; then
	t_skip "SARIF 2.1.0 schema validation" "python3-jsonschema is not installed (scripts/install-deps.sh --test)"
elif ! fetch_schema; then
	t_skip "SARIF 2.1.0 schema validation" "$why"
else
	for f in check tree; do
		if python3 - "$SCHEMA" "$T_TMP/$f.sarif" > "$T_TMP/v.err" 2>&1 <<'PY'; then
import json, sys, jsonschema
schema, log = (json.load(open(p)) for p in sys.argv[1:3])
cls = jsonschema.validators.validator_for(schema)
errors = list(cls(schema).iter_errors(log))
for e in errors[:5]:
    print("/".join(map(str, e.absolute_path)), ":", e.message[:300])
sys.exit(1 if errors or not log["runs"][0]["results"] else 0)
PY
			t_ok "$f --format sarif: valid SARIF 2.1.0 (the published schema)"
		else
			t_fail "$f --format sarif: valid SARIF 2.1.0 (the published schema)" "$(head -c 900 "$T_TMP/v.err")"
		fi
	done
	# The schema is strict enough to catch a broken log.
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["runs"][0]["results"][0]["level"] = "fatal"; json.dump(d, open(sys.argv[2], "w"))' \
		"$T_TMP/check.sarif" "$T_TMP/bad.sarif"
	if python3 -c 'import json, sys, jsonschema
s = json.load(open(sys.argv[1])); jsonschema.validators.validator_for(s)(s).validate(json.load(open(sys.argv[2])))' \
		"$SCHEMA" "$T_TMP/bad.sarif" 2> /dev/null; then
		t_fail "... and a result with level fatal is not" "it validated"
	else
		t_ok "... and a result with level fatal is not"
	fi
fi
