# SPDX-License-Identifier: LGPL-2.1-or-later
# ksymcheck explain: whole outputs for a few rule ids and codes (text and JSON) against
# tests/expected/explain/, the list of everything, the spellings it accepts, and its usage
# errors. KSC_REGEN_EXPECTED=1 writes the outputs as the new expected files instead.
. tests/lib.sh
E=tests/expected/explain

# expect NAME FILE ARGS...: `explain ARGS` exits 0 with exactly FILE on stdout, nothing on
# stderr.
expect() {
	local name=$1 file=$E/$2; shift 2
	t_run "$name" 0 "$KSC" explain "$@"
	if [ -n "${KSC_REGEN_EXPECTED:-}" ]; then
		cp "$T_TMP/out" "$file"
	fi
	t_diff "... prints $file" "$file" "$T_TMP/out"
	t_eq "... and nothing on stderr" "" "$(cat "$T_TMP/err")"
}

expect "a rule: R16" R16.txt R16
expect "a code with a rule per view: gpl-only" gpl-only.txt gpl-only
expect "a code and a rule together: taint-oot R22" taint-oot-R22.txt taint-oot R22
expect "JSON for a code of check and audit: modns-impostor" modns-impostor.json --json modns-impostor
expect "no argument: every rule and code" list.txt

# The same, spelled otherwise.
t_run "r16 (lower case)" 0 "$KSC" explain r16
t_diff "... is R16" "$E/R16.txt" "$T_TMP/out"
t_run "--format json is --json" 0 "$KSC" explain --format json modns-impostor
t_diff "... the same document" "$E/modns-impostor.json" "$T_TMP/out"
t_run "--format=json after the operand" 0 "$KSC" explain modns-impostor --format=json
t_diff "... the same document" "$E/modns-impostor.json" "$T_TMP/out"
t_run "--format text" 0 "$KSC" explain --format text R16
t_diff "... the text" "$E/R16.txt" "$T_TMP/out"
t_run "a rule given twice, once through its code" 0 "$KSC" explain R22 duplicate-export R22
t_eq "... is explained once" "1" "$(grep -c '^R22: ' "$T_TMP/out")"

# Every rule the list names explains, citing doc/rules.md.
bad=""
for id in $(sed -n 's/^  \(R[0-9]*\) .*/\1/p' "$E/list.txt"); do
	"$KSC" explain "$id" > "$T_TMP/one" 2>&1 && grep -qxF "See doc/rules.md, $id." "$T_TMP/one" ||
		bad="$bad $id"
done
t_eq "every listed rule explains and ends citing doc/rules.md" "" "$bad"
t_eq "... 39 of them" "39" "$(grep -c '^  R[0-9]' "$E/list.txt")"

# JSON of everything: every rule has its fields, every code a rule that exists.
t_run "--json with no argument" 0 "$KSC" explain --json
python3 - "$T_TMP/out" > "$T_TMP/j" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ids = [r["id"] for r in d["rules"]]
fields = ("id", "title", "text", "functions", "files", "versions", "example")
print(len(ids), len(d["codes"]),
      all(all(r[f] for f in fields) for r in d["rules"]),
      all(c["rule"] in ids and c["sources"] and c["severities"] for c in d["codes"]))
PY
t_eq "... 39 rules, 51 code entries, all fields set, every code's rule listed" "39 51 True True" "$(cat "$T_TMP/j")"

# Usage errors.
t_run "an unknown id" 2 "$KSC" explain R99
t_eq "... says so, as usage errors do" "ksymcheck: explain: unknown rule or code 'R99'
Try 'ksymcheck explain --help'." "$(cat "$T_TMP/err")"
t_eq "... and prints nothing" "" "$(cat "$T_TMP/out")"
t_run "an unknown code after a good one" 2 "$KSC" explain R16 gpl_only
t_grep "... names it" "ksymcheck: explain: unknown rule or code 'gpl_only'" "$T_TMP/err"
t_eq "... and prints nothing" "" "$(cat "$T_TMP/out")"
t_run "control bytes in an unknown id" 2 "$KSC" explain "$(printf 'x\033[31my')"
t_grep "... are escaped" "unknown rule or code 'x\\x1b[31my'" "$T_TMP/err"
t_run "a bad --format" 2 "$KSC" explain --format kernel R16
t_run "--help" 0 "$KSC" explain --help
t_grep "... usage" "Usage: ksymcheck explain [OPTIONS] [RULE|CODE...]" "$T_TMP/out"
