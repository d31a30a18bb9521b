# SPDX-License-Identifier: LGPL-2.1-or-later
# The report renderers of tools/html.c: `diff --html FILE` and `diff --format dot` on two
# small Module.symvers (those of diff.sh) and with modules, and an audit document through
# tests/browser/render.c. The HTML is well-formed, self-contained (nothing that can
# fetch), embeds exactly the --json document; the dot parses (and renders when Graphviz is
# installed). The browser checks are in tests/browser (make check-browser). Whole outputs
# are compared with tests/expected/report/ (t_expect; make regen-expected).
. tests/lib.sh
. tests/browser/inputs.sh
report_symvers "$T_TMP"
OLD=$T_TMP/old.symvers NEW=$T_TMP/new.symvers
D=$FIXTURES/demo
MODS=("$D/oot/fxdma.ko" "$D/intree/kvm-amd.ko")
POL=(--policy-old 6.15 --policy-new 6.16)
CHECK="python3 tests/browser/checks.py"

# check_html NAME HTML JSON [TITLE]
check_html() {
	if $CHECK html "$2" "$3" ${4+"$4"} 2> "$T_TMP/check.err"; then
		t_ok "$1: well-formed, self-contained, the JSON block equals --json"
	else
		t_fail "$1: well-formed, self-contained, the JSON block equals --json" "$(head -c 800 "$T_TMP/check.err")"
	fi
}
# check_dot NAME DOT: parses; renders without a warning when Graphviz is there.
check_dot() {
	if $CHECK dot "$2" > "$T_TMP/nodes" 2> "$T_TMP/check.err"; then
		t_ok "$1: dot parses ($(wc -l < "$T_TMP/nodes") nodes)"
	else
		t_fail "$1: dot parses" "$(head -c 800 "$T_TMP/check.err")"
	fi
	if command -v dot > /dev/null; then
		if dot -Tsvg -o /dev/null "$2" 2> "$T_TMP/dot.err" && [ ! -s "$T_TMP/dot.err" ]; then
			t_ok "$1: Graphviz renders it"
		else
			t_fail "$1: Graphviz renders it" "$(head -c 600 "$T_TMP/dot.err")"
		fi
	else
		t_skip "$1: Graphviz renders it" "Graphviz's dot is not installed (scripts/install-deps.sh --test)"
	fi
}

"$KSC" diff --json "$OLD" "$NEW" > "$T_TMP/diff.json"
t_run "diff --html FILE: the exit status of diff" 1 "$KSC" diff --html "$T_TMP/diff.html" "$OLD" "$NEW"
"$KSC" diff "$OLD" "$NEW" > "$T_TMP/text"
t_diff "... the text on stdout as without --html" "$T_TMP/text" "$T_TMP/out"
check_html "diff --html" "$T_TMP/diff.html" "$T_TMP/diff.json" "ksymcheck diff: $OLD -> $NEW"
(umask 027 && "$KSC" diff --html "$T_TMP/mode.html" "$OLD" "$NEW" > /dev/null)
t_eq "... mode 0666 less the umask, no temporary file left" "640 0" \
	"$(stat -c %a "$T_TMP/mode.html") $(find "$T_TMP" -maxdepth 1 -name '.mode.html.*' | wc -l)"
t_run "diff --json --html FILE" 1 "$KSC" diff --json --html "$T_TMP/diff2.html" "$OLD" "$NEW"
t_diff "... the JSON on stdout as without --html" "$T_TMP/diff.json" "$T_TMP/out"
# the text, then the page
t_expect diff-html-stdout 1 "$KSC" diff --html - "$OLD" "$NEW"

t_expect diff-dot 1 "$KSC" diff --format dot "$OLD" "$NEW"
cp "$T_TMP/out" "$T_TMP/diff.dot"
check_dot "diff --format dot" "$T_TMP/diff.dot"
want=$(python3 -c 'import json, sys; print(len({c["symbol"] for c in json.load(open(sys.argv[1]))["changes"]}))' "$T_TMP/diff.json")
t_eq "... one node per changed symbol" "$want" "$(grep -c '^symbol:' "$T_TMP/nodes")"

"$KSC" diff --json "${POL[@]}" "$OLD" "$NEW" "${MODS[@]}" > "$T_TMP/mods.json"
t_run "diff --html FILE with modules" 1 "$KSC" diff --html "$T_TMP/mods.html" "${POL[@]}" "$OLD" "$NEW" "${MODS[@]}"
check_html "diff --html with modules" "$T_TMP/mods.html" "$T_TMP/mods.json"
# the modules and the symbols that break them
t_expect diff-dot-modules 1 "$KSC" diff -f dot "${POL[@]}" "$OLD" "$NEW" "${MODS[@]}"
cp "$T_TMP/out" "$T_TMP/mods.dot"
check_dot "diff --format dot with modules" "$T_TMP/mods.dot"

# Names that could end the script element, open a comment, or break dot's strings.
cp "$NEW" "$T_TMP/weird.symvers"
# shellcheck disable=SC1003 # the backslashes are the point
for s in '</script><b>x</b>' '<!--c&d' 'q"uo\te' 'tail\' "it's"; do
	printf '0x00000063\t%s\tvmlinux\tEXPORT_SYMBOL\t\n' "$s" >> "$T_TMP/weird.symvers"
done
W="$T_TMP/<b>&\"odd'"
mkdir -p "$W" && cp "$T_TMP/weird.symvers" "$W/new.symvers"
"$KSC" diff --json "$OLD" "$W/new.symvers" > "$T_TMP/weird.json"
t_run "diff --html with hostile names" 1 "$KSC" diff --html "$T_TMP/weird.html" "$OLD" "$W/new.symvers"
check_html "... escaped in the title and the JSON block" "$T_TMP/weird.html" "$T_TMP/weird.json" \
	"ksymcheck diff: $OLD -> $W/new.symvers"
t_expect diff-dot-hostile-names 1 "$KSC" diff -f dot "$OLD" "$W/new.symvers"
cp "$T_TMP/out" "$T_TMP/weird.dot"
check_dot "... and in dot" "$T_TMP/weird.dot"
t_eq "... every name a node of its own" \
	'symbol:<!--c&d|symbol:</script><b>x</b>|symbol:it'"'"'s|symbol:q"uo\\te|symbol:tail\\ ' \
	"$(grep -E '^symbol:(</|<!|q|tail|it)' "$T_TMP/nodes" | LC_ALL=C sort | tr '\n' '|' | sed 's/|$//')"

# Errors: the page is written whole or not at all.
t_expect diff-html-missing-folder 5 "$KSC" diff --html "$T_TMP/nope/r.html" "$OLD" "$NEW"
t_expect diff-html-onto-folder 5 "$KSC" diff --html "$T_TMP/" "$OLD" "$NEW"
t_eq "... no temporary file left behind" "" "$(find "$T_TMP" -maxdepth 1 -name '.*.??????')"
t_expect diff-format-svg 2 "$KSC" diff --format svg "$OLD" "$NEW"

# The audit document (the lead's schema), through the same functions.
if report_render; then
	t_ok "tests/browser/render.c builds against tools/html.c"
	"$T_TMP/render" html audit tests/browser/audit-sample.json "$T_TMP/audit.html" "ksymcheck audit <&>"
	check_html "audit HTML" "$T_TMP/audit.html" tests/browser/audit-sample.json "ksymcheck audit <&>"
	t_expect audit-sample-dot 0 "$T_TMP/render" dot audit tests/browser/audit-sample.json
	cp "$T_TMP/out" "$T_TMP/audit.dot"
	check_dot "audit dot" "$T_TMP/audit.dot"
	t_eq "... restricted exports, namespaces and every module" "4 5 23" \
		"$(grep -c '^symbol:' "$T_TMP/nodes") $(grep -c '^namespace:' "$T_TMP/nodes") $(grep -c '^module:' "$T_TMP/nodes")"
	t_run "an unknown kind is refused" 1 "$T_TMP/render" dot tree tests/browser/audit-sample.json
else
	t_fail "tests/browser/render.c builds against tools/html.c" "$(head -c 800 "$T_TMP/render.log")"
fi
mkdir -p "$T_TMP/tree"
if [ -x "$T_TMP/render" ] && report_audit "$T_TMP/tree"; then
	check_html "audit of the fixture tree (tests/cli/audit.sh's)" "$T_TMP/tree/audit.html" "$T_TMP/tree/audit.json"
	"$T_TMP/render" dot audit "$T_TMP/tree/audit.json" > "$T_TMP/tree/audit.dot"
	check_dot "... its dot" "$T_TMP/tree/audit.dot"
else
	t_skip "audit of the fixture tree" "no ksymcheck audit, scripts/mk-sample-kernel.sh or its fixtures"
fi
if "$KSC" audit --help > "$T_TMP/help" 2>&1 && grep -q -- '--html' "$T_TMP/help"; then
	t_ok "audit --help lists --html"
else
	t_skip "audit --help lists --html" "ksymcheck audit has no --html yet"
fi
