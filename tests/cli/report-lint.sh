# SPDX-License-Identifier: LGPL-2.1-or-later
# The HTML report's style sheet and script (tools/report/), linted: report.js by eslint
# (Debian's eslint, tools/report/eslintrc.json: ES5 in a browser, eslint:recommended, no
# globals), report.css by tools/report/lint-css.py (python3-tinycss2). Each linter is
# first shown a file with known faults, so a linter that passes everything fails here.
# And the embedded copy in the tool equals the files (tools/report/embed.sh).
. tests/lib.sh
R=tools/report

# Debian's eslint finds its modules in /usr/share/nodejs, which a node from elsewhere
# does not search by itself.
export NODE_PATH=/usr/share/nodejs:/usr/lib/nodejs${NODE_PATH:+:$NODE_PATH}
eslint_run() { (cd "$(dirname "$1")" && eslint --no-eslintrc -c "$TOP/$R/eslintrc.json" \
	--no-ignore -f unix "$(basename "$1")"); }

if command -v eslint > /dev/null && eslint --version > /dev/null 2>&1; then
	printf '(function () {\n%s\nvar a = 1;\nif (a == 2) b = 3;\n})();\n' "'use strict';" \
		> "$T_TMP/bad.js"
	printf 'let x = 1;\n' > "$T_TMP/es6.js"
	eslint_run "$T_TMP/bad.js" > "$T_TMP/bad.out" 2>&1
	rc=$?
	eslint_run "$T_TMP/es6.js" >> "$T_TMP/bad.out" 2>&1
	t_eq "eslint: an undefined name, == and ES6 syntax fail" "1 3" \
		"$rc $(grep -c "'b' is not defined\|eqeqeq\|Parsing error" "$T_TMP/bad.out")"
	if eslint_run "$R/report.js" > "$T_TMP/js.out" 2>&1; then
		t_ok "eslint: $R/report.js"
	else
		t_fail "eslint: $R/report.js" "$(head -c 1500 "$T_TMP/js.out")"
	fi
else
	t_skip "eslint: $R/report.js" "eslint is not installed (scripts/install-deps.sh --test)"
fi

PY=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import tinycss2' 2> /dev/null; then PY=$p; break; fi
done
if [ -n "$PY" ]; then
	printf 'a { color: red; color: blue; width: var(--nope); }\nb { margin: 0 }\n}\n' > "$T_TMP/bad.css"
	"$PY" "$R/lint-css.py" "$T_TMP/bad.css" > "$T_TMP/bad.out" 2>&1
	t_eq "CSS lint: a sheet with a repeated property, an undefined variable and a stray } fails" \
		"1 3" "$? $(wc -l < "$T_TMP/bad.out")"
	if "$PY" "$R/lint-css.py" "$R/report.css" > "$T_TMP/css.out" 2>&1; then
		t_ok "CSS lint: $R/report.css"
	else
		t_fail "CSS lint: $R/report.css" "$(head -c 1500 "$T_TMP/css.out")"
	fi
else
	t_skip "CSS lint: $R/report.css" "python3-tinycss2 is not installed (scripts/install-deps.sh --test)"
fi

# The tool's page carries the two files byte for byte.
. tests/browser/inputs.sh
report_symvers "$T_TMP"
"$KSC" diff --html "$T_TMP/page.html" "$T_TMP/old.symvers" "$T_TMP/new.symvers" > /dev/null 2>&1
sed -n '/^<style>$/,/^<\/style>$/p' "$T_TMP/page.html" | sed '1d;$d' > "$T_TMP/page.css"
sed -n '/^<script>$/,/^<\/script>$/p' "$T_TMP/page.html" | sed '1d;$d' > "$T_TMP/page.js"
t_diff "the page's style sheet is $R/report.css" "$R/report.css" "$T_TMP/page.css"
t_diff "the page's script is $R/report.js" "$R/report.js" "$T_TMP/page.js"
