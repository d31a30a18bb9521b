# SPDX-License-Identifier: LGPL-2.1-or-later
# Helpers for shell tests: source this, then report with t_ok/t_fail/t_skip (TAP lines).
# Environment from tests/run.sh: TOP, BUILD, TOOL, FIXTURES, OUT.
set -u
: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${BUILD:=build}" "${TOOL:=$BUILD/ksymcheck}" "${FIXTURES:=$BUILD/fixtures}" "${OUT:=$BUILD/test-output}"
cd "$TOP"
KSC=$TOP/$TOOL
[ -x "$KSC" ] || KSC=$TOOL
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ksc-test.XXXXXX")
trap 'rm -rf "$T_TMP"' EXIT

t_ok()   { echo "ok - $*"; }
t_fail() { local n=$1; shift; echo "not ok - $n"; [ $# -gt 0 ] && printf '#   %s\n' "$@"; return 0; }
t_skip() { local n=$1; shift; echo "ok - $n # SKIP $*"; }

# t_eq NAME EXPECTED ACTUAL
t_eq() {
	if [ "$2" = "$3" ]; then t_ok "$1"; else t_fail "$1" "expected: $2" "actual:   $3"; fi
}

# t_run NAME EXPECTED_RC CMD...: runs CMD, stdout -> $T_TMP/out, stderr -> $T_TMP/err
t_run() {
	local name=$1 want=$2; shift 2
	"$@" > "$T_TMP/out" 2> "$T_TMP/err"
	local rc=$?
	if [ "$rc" = "$want" ]; then t_ok "$name (exit $rc)"; else
		t_fail "$name" "exit status $rc, expected $want" "stderr: $(head -c 600 "$T_TMP/err")"; fi
}

# t_grep NAME PATTERN FILE: FILE must contain a line matching the fixed string PATTERN
t_grep() {
	if grep -qF -- "$2" "$3"; then t_ok "$1"; else
		t_fail "$1" "no line with: $2" "in $3: $(head -c 600 "$3")"; fi
}

# t_diff NAME EXPECTED_FILE ACTUAL_FILE
t_diff() {
	if diff -u "$2" "$3" > "$T_TMP/diff"; then t_ok "$1"; else
		t_fail "$1" "$(head -n 30 "$T_TMP/diff")"; fi
}
