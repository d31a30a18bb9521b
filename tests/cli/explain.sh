# SPDX-License-Identifier: LGPL-2.1-or-later
# ksymcheck explain: whole outputs for a few rule ids and codes (text and JSON) against
# tests/expected/explain/ (t_expect; make regen-expected writes them anew), the list of
# everything, the spellings it accepts, and its usage errors. rules.md is named where
# `make install` puts it (DOCDIR, as the build was configured; DOCDIR/rules.md here).
. tests/lib.sh
E=tests/expected/explain
# t_run, with the output's paths as t_expect writes them (t_normalize)
t_run_norm() {
	t_run "$@"
	t_normalize "$T_TMP/out" > "$T_TMP/out.norm" && mv "$T_TMP/out.norm" "$T_TMP/out"
}

t_expect R16 0 "$KSC" explain R16
t_expect gpl-only 0 "$KSC" explain gpl-only
t_expect taint-oot-R22 0 "$KSC" explain taint-oot R22
t_expect modns-impostor-json 0 "$KSC" explain --json modns-impostor
t_expect list 0 "$KSC" explain

# The same, spelled otherwise.
t_run_norm "r16 (lower case)" 0 "$KSC" explain r16
t_diff "... is R16" "$E/R16.out" "$T_TMP/out"
t_run_norm "--format json is --json" 0 "$KSC" explain --format json modns-impostor
t_diff "... the same document" "$E/modns-impostor-json.out" "$T_TMP/out"
t_run_norm "--format=json after the operand" 0 "$KSC" explain modns-impostor --format=json
t_diff "... the same document" "$E/modns-impostor-json.out" "$T_TMP/out"
t_run_norm "--format text" 0 "$KSC" explain --format text R16
t_diff "... the text" "$E/R16.out" "$T_TMP/out"
t_run "a rule given twice, once through its code" 0 "$KSC" explain R22 duplicate-export R22
t_eq "... is explained once" "1" "$(grep -c '^R22: ' "$T_TMP/out")"

# Every rule the list names explains, citing the installed rules.md.
bad=""
for id in $(sed -n 's/^  \(R[0-9]*\) .*/\1/p' "$E/list.out"); do
	"$KSC" explain "$id" > "$T_TMP/one" 2>&1 && grep -qxE "See /.*/doc/ksymcheck/rules\.md, $id\." "$T_TMP/one" ||
		bad="$bad $id"
done
t_eq "every listed rule explains and ends citing DOCDIR/rules.md" "" "$bad"
t_eq "... 43 of them" "43" "$(grep -c '^  R[0-9]' "$E/list.out")"

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
t_eq "... 43 rules, 58 code entries, all fields set, every code's rule listed" "43 58 True True" "$(cat "$T_TMP/j")"

# Usage errors: the message on stderr, nothing on stdout.
t_expect unknown-id 2 "$KSC" explain R99
t_expect unknown-code-after-a-good-one 2 "$KSC" explain R16 gpl_only
t_expect control-bytes-escaped 2 "$KSC" explain "$(printf 'x\033[31my')"
t_expect bad-format 2 "$KSC" explain --format kernel R16
t_expect help 0 "$KSC" explain --help
