# SPDX-License-Identifier: LGPL-2.1-or-later
# Rule ids and finding codes agree everywhere: the codes the sources emit (diag_new(),
# taint_line(), finding(), finding_new(), loader_finding() and modpost_finding() calls,
# code variables, the audit's code tables), the rule ids lib/ and tools/ cite, the
# library's catalogue (`ksymcheck explain --json`) and doc/rules.md (its rule headings and
# its table of codes) name the same set, both ways; and every finding check and audit
# print on the fixtures has the catalogue's rule for its code and view, at a severity the
# catalogue lists.
. tests/lib.sh
"$KSC" explain --json > "$T_TMP/catalogue.json" || t_fail "explain --json"

python3 - "$T_TMP/catalogue.json" lib doc/rules.md > "$T_TMP/static" <<'PY' ||
import json, os, re, sys

cat = json.load(open(sys.argv[1]))
libdir, doc = sys.argv[2], open(sys.argv[3]).read()
rules = [r["id"] for r in cat["rules"]]
titles = {r["id"]: r["title"] for r in cat["rules"]}
codes = sorted({c["code"] for c in cat["codes"]})
pairs = sorted({(c["code"], c["rule"]) for c in cat["codes"]})


def out(name, problems):
    print("%s\t%s" % (name, " ".join(sorted(set(problems)))))


def call_args(src, name):
    """The text between the parentheses of every call of `name` (strings respected)."""
    for m in re.finditer(r"\b%s\(" % name, src):
        i, depth, start = m.end(), 1, m.end()
        while i < len(src) and depth:
            ch = src[i]
            if ch == '"':
                i += 1
                while src[i] != '"':
                    i += 2 if src[i] == "\\" else 1
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            i += 1
        yield src[start:i - 1]


def literals(text):
    text = re.sub(r"\bstrcmp\([^()]*\)", "", text)  # compared strings are not codes
    return [s for s in re.findall(r'"([^"\\]*)"', text)
            if re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", s)]


def sources(top):
    """Every .c and .h below top, in a stable order."""
    for d, dirs, files in sorted(os.walk(top)):
        dirs.sort()
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.join(d, f)


emitted = set()
for f in sources(libdir):
    src = open(f).read()
    for fn in ("diag_new", "taint_line", "finding", "finding_new", "loader_finding",
               "modpost_finding", "modinfo_missing"):
        for args in call_args(src, fn):
            emitted.update(literals(args))
    emitted.update(re.findall(r'\bcode = "([a-z0-9-]+)";', src))
    emitted.update(re.findall(r'\[PROV_[A-Z_]+\] = "([a-z0-9-]+)"', src))
print("emitted\t%d" % len(emitted))
out("codes emitted but not in the catalogue", emitted - set(codes))
out("codes in the catalogue that nothing emits", set(codes) - emitted)

cited = set()
for d in ("lib", "tools"):
    for f in sources(d):
        cited.update(re.findall(r"\bR[0-9]+\b", open(f).read()))
print("cited\t%d" % len(cited))
out("rule ids lib/ or tools/ cite that the catalogue lacks", cited - set(rules))

headings = dict(re.findall(r"^### (R[0-9]+): (.*)$", doc, re.M))
out("rules of the catalogue without a heading in doc/rules.md", set(rules) - set(headings))
out("headings of doc/rules.md not in the catalogue", set(headings) - set(rules))
out("headings whose title differs from the catalogue's",
    [i for i in rules if i in headings and headings[i].replace("`", "") != titles[i]])
codes_part = doc[doc.find("\n## Finding codes"):]  # not the table of renumbered ids
table = sorted(set(re.findall(r"^\| `([a-z0-9-]+)` \| (R[0-9]+) \|", codes_part, re.M)))
out("codes of doc/rules.md's table not in the catalogue (code, rule)",
    ["%s:%s" % p for p in set(table) - set(pairs)])
out("codes of the catalogue not in doc/rules.md's table (code, rule)",
    ["%s:%s" % p for p in set(pairs) - set(table)])
keys = [c["code"] for c in cat["codes"]]
out("catalogue codes out of order (lookups need them sorted)",
    [a for a, b in zip(keys, keys[1:]) if a > b])
out("catalogue rules out of order", [a for a, b in zip(rules, rules[1:])
                                     if int(a[1:]) + 1 != int(b[1:])])
PY
	t_fail "the static checks of the sources ran" "python3 failed"
while IFS=$'\t' read -r what list; do
	case $what in
	emitted | cited)
		if [ "$list" -gt 10 ]; then t_ok "the sources: $list $what"
		else t_fail "the sources: $what" "only $list found: the extraction is broken"; fi ;;
	*) t_eq "$what" "" "$list" ;;
	esac
done < "$T_TMP/static"

# What check and audit print: every finding of the fixtures, in JSON.
root=$T_TMP/root
rel=6.16.0-demo
D=$FIXTURES/demo
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"
K=(-k "$root" --kver "$rel")
i=0
for m in "$D"/*/*.ko; do
	for extra in "" --require-intree "--policy 7.1" "--policy 6.12"; do
		i=$((i + 1))
		# shellcheck disable=SC2086 # $extra: an option and its value
		"$KSC" check "${K[@]}" $extra --json "$m" > "$T_TMP/check.$i.json" 2> /dev/null
	done
done
"$KSC" check "${K[@]}" --json "$D/intree/kvm.ko" "$D/oot/kvm.ko" > "$T_TMP/check.twice.json" 2> /dev/null
k=$root/lib/modules/$rel
mkdir -p "$k/kernel/arch/x86/kvm" "$k/kernel/drivers/fx" "$k/extra"
cp "$D/intree/kvm.ko" "$D/intree/kvm-amd.ko" "$D/intree/kvm_intel.ko" "$k/kernel/arch/x86/kvm/"
cp "$D/intree/fx-patterns.ko" "$k/kernel/drivers/fx/"
cp "$D/extra/kvm-evil.ko" "$D/extra/fx-grabber.ko" "$k/extra/"
"$KSC" audit -b "$root" --json "$rel" > "$T_TMP/audit.json" 2> /dev/null
python3 - "$T_TMP/catalogue.json" "$T_TMP"/check.*.json "$T_TMP/audit.json" > "$T_TMP/seen" <<'PY'
import json, sys

cat = json.load(open(sys.argv[1]))
entries = {}
for c in cat["codes"]:
    for s in c["sources"]:
        entries[(c["code"], s)] = c
seen, bad = set(), []
VERDICT = {"error": "error", "warning": "warning", "note": "info"}  # the finding object's words


def walk(o, source):
    if isinstance(o, dict):
        if isinstance(o.get("code"), str):
            view = o.get("view") or source  # audit findings have "view": null
            c = entries.get((o["code"], view))
            seen.add(o["code"])
            if not c:
                bad.append("%s(%s): not in the catalogue" % (o["code"], view))
            elif "rule" in o and o["rule"] != c["rule"]:
                bad.append("%s(%s): rule %s, the catalogue says %s" % (o["code"], view, o["rule"], c["rule"]))
            elif o.get("verdict") and VERDICT[o["verdict"]] not in c["severities"]:
                bad.append("%s(%s): verdict %s" % (o["code"], view, o["verdict"]))
        for v in o.values():
            walk(v, source)
    elif isinstance(o, list):
        for v in o:
            walk(v, source)


for f in sys.argv[2:]:
    try:
        walk(json.load(open(f)), "audit" if f.endswith("audit.json") else "loader")
    except ValueError:
        bad.append("%s: not JSON" % f)
print(len(seen))
print(" ".join(sorted(set(bad))))
PY
n=$(sed -n 1p "$T_TMP/seen")
if [ "$n" -ge 12 ]; then t_ok "check and audit on the fixtures: $n different codes seen"
else t_fail "check and audit on the fixtures give findings" "only $n codes seen"; fi
t_eq "... each with its catalogue rule, at a severity the catalogue lists" "" "$(sed -n 2p "$T_TMP/seen")"
