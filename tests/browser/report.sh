# SPDX-License-Identifier: LGPL-2.1-or-later
# The HTML reports in headless Chromium (Debian's chromium, an empty profile, driven over
# the DevTools protocol by tests/browser/cdp.py): four reports - a diff of two
# Module.symvers, the same diff with modules, a long diff (tables listed a page at a time)
# and an audit (a sample document, and the fixture tree of tests/cli/audit.sh when the
# command is there) - each loads with no console error and no network request, its tables hold
# the JSON's counts, sorting and filtering work. Screenshots: $OUT/browser/*.png, and $OUT/report.png. Also renders the --format dot
# graphs with Graphviz. Installs chromium, graphviz and python3-websocket with apt-get when
# missing (as root).
. tests/lib.sh
. tests/browser/inputs.sh
B=$OUT/browser
mkdir -p "$B"

# apt_install PACKAGE CHECK...: install PACKAGE when CHECK fails and we are root; then
# CHECK decides.
apt_install() {
	local pkg=$1
	shift
	"$@" > /dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] && command -v apt-get > /dev/null || return 1
	echo "# installing $pkg (apt-get, log in $B/apt.log)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends "$pkg" >> "$B/apt.log" 2>&1 ||
		{ apt-get update >> "$B/apt.log" 2>&1 &&
		  apt-get install -y --no-install-recommends "$pkg" >> "$B/apt.log" 2>&1; }
	"$@" > /dev/null 2>&1
}

# Graphviz: the dot output of the three reports renders.
report_symvers "$T_TMP"
D=$FIXTURES/demo
MODS=("$D/oot/fxdma.ko" "$D/intree/kvm-amd.ko" "$D/intree/kvm.ko")
POL=(--policy-old 6.15 --policy-new 6.16)
if ! report_render; then
	t_fail "tests/browser/render.c builds" "$(head -c 600 "$T_TMP/render.log")"
fi
if apt_install graphviz command -v dot; then
	"$KSC" diff -f dot "$T_TMP/old.symvers" "$T_TMP/new.symvers" > "$B/diff.dot"
	"$KSC" diff -f dot "${POL[@]}" "$T_TMP/old.symvers" "$T_TMP/new.symvers" "${MODS[@]}" \
		> "$B/diff-modules.dot"
	"$T_TMP/render" dot audit tests/browser/audit-sample.json > "$B/audit.dot"
	for g in diff diff-modules audit; do
		if dot -Tsvg -o "$B/$g.dot.svg" "$B/$g.dot" 2> "$T_TMP/dot.err" && [ ! -s "$T_TMP/dot.err" ]; then
			t_ok "$g --format dot renders with Graphviz, without a warning"
		else
			t_fail "$g --format dot renders with Graphviz" "$(head -c 600 "$T_TMP/dot.err")"
		fi
	done
else
	t_skip "--format dot renders with Graphviz" "graphviz is not installed (apt-get install graphviz)"
fi

if ! apt_install chromium command -v chromium; then
	if [ -n "${CI:-}" ]; then
		t_fail "chromium is installed" "apt-get install chromium failed: $(tail -n 5 "$B/apt.log" 2>/dev/null)"
	else
		t_skip "HTML reports in headless Chromium" "chromium is not installed (apt-get install chromium)"
	fi
	exit 0
fi

# The reports and their JSON, written by the tool (the audit by tools/html.c on a
# sample audit document until `ksymcheck audit --html` can be run on a fixture tree).
"$KSC" diff --json "$T_TMP/old.symvers" "$T_TMP/new.symvers" > "$B/diff.json"
t_run "diff --html FILE" 1 "$KSC" diff --html "$B/diff.html" "$T_TMP/old.symvers" "$T_TMP/new.symvers"
"$KSC" diff --json "${POL[@]}" "$T_TMP/old.symvers" "$T_TMP/new.symvers" "${MODS[@]}" > "$B/diff-modules.json"
t_run "diff --html FILE with modules" 1 "$KSC" diff --html "$B/diff-modules.html" "${POL[@]}" \
	"$T_TMP/old.symvers" "$T_TMP/new.symvers" "${MODS[@]}"
# A long diff: 1,200 symbols, most of them changed, listed 500 rows at a time.
awk 'BEGIN { for (i = 0; i < 1200; i++) printf "0x%08x\tbig_%04d\tvmlinux\tEXPORT_SYMBOL\t\n", i, i }' \
	> "$T_TMP/big-old.symvers"
awk 'BEGIN { for (i = 0; i < 1200; i++) if (i % 7)
	printf "0x%08x\tbig_%04d\t%s\tEXPORT_SYMBOL%s\t%s\n", i % 5 ? i : i + 1, i,
		i % 11 ? "vmlinux" : "drivers/big/big-" i % 3, i % 2 ? "_GPL" : "", i % 13 ? "" : "BIG_NS" }' \
	> "$T_TMP/big-new.symvers"
"$KSC" diff --json "$T_TMP/big-old.symvers" "$T_TMP/big-new.symvers" > "$B/diff-big.json"
t_run "diff --html FILE, a long diff" 1 "$KSC" diff --html "$B/diff-big.html" "$T_TMP/big-old.symvers" \
	"$T_TMP/big-new.symvers"
cp tests/browser/audit-sample.json "$B/audit.json"
if [ -x "$T_TMP/render" ] && "$T_TMP/render" html audit "$B/audit.json" "$B/audit.html" \
	"ksymcheck audit: sample document"; then
	t_ok "audit sample rendered by report_write_html"
else
	t_fail "audit sample rendered by report_write_html"
fi

# The audit of the fixture tree of tests/cli/audit.sh, when the command is there.
reports=()
mkdir -p "$T_TMP/tree"
if [ -x "$T_TMP/render" ] && report_audit "$T_TMP/tree"; then
	cp "$T_TMP/tree/audit.json" "$B/audit-tree.json"
	cp "$T_TMP/tree/audit.html" "$B/audit-tree.html"
	reports+=("audit-tree:audit:$B/audit-tree.html:$B/audit-tree.json")
	t_ok "audit of the fixture tree written"
else
	t_skip "audit of the fixture tree" "no ksymcheck audit, scripts/mk-sample-kernel.sh or its fixtures"
fi

# The DevTools client (cdp.py) talks over Debian's python3-websocket: the first python3
# that has it (Debian's own, when another python3 comes first in PATH).
has_websocket() { "$1" -c 'import websocket'; }
PY=
for p in python3 /usr/bin/python3; do
	has_websocket "$p" 2> /dev/null && { PY=$p; break; }
done
if [ -z "$PY" ] && apt_install python3-websocket has_websocket /usr/bin/python3; then
	PY=/usr/bin/python3
fi
[ -n "$PY" ] || t_fail "a python3 with the websocket module" "python3-websocket: scripts/install-deps.sh --test"
${PY:-python3} tests/browser/report_test.py "$B" \
	"diff:diff:$B/diff.html:$B/diff.json" \
	"diff-modules:diff:$B/diff-modules.html:$B/diff-modules.json" \
	"diff-big:diff:$B/diff-big.html:$B/diff-big.json" \
	"audit:audit:$B/audit.html:$B/audit.json" ${reports[@]+"${reports[@]}"}
rc=$?
[ -s "$B/diff-modules.png" ] && cp "$B/diff-modules.png" "$OUT/report.png"
if [ -s "$OUT/report.png" ]; then t_ok "screenshot written: $OUT/report.png"; else t_fail "screenshot written"; fi
# report_test.py printed a "not ok" line for each failure; a crash prints none.
[ $rc -le 1 ] || t_fail "report_test.py ran to its end" "exit status $rc"
exit 0
