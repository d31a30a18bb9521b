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
# The index check, audit, nsdeps, diff and tree keep by default (under XDG_CACHE_HOME):
# one per test script, never the user's; the fetched packages stay found (KSC_CACHE).
export KSC_CACHE=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}
export XDG_CACHE_HOME=$T_TMP/xdg

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

# Golden whole outputs (tests/expected/SUITE/, SUITE the name of the test script):
# t_expect NAME EXPECTED_RC CMD... runs CMD like t_run (stdout -> $T_TMP/out, stderr ->
# $T_TMP/err) and compares its whole stdout with tests/expected/SUITE/NAME.out and its
# whole stderr with NAME.err (a missing .err file means: nothing on stderr). Paths that
# change from run to run are written as words first: $T_TMP as TMP, $FIXTURES as
# FIXTURES, the top folder as TOP. KSC_REGEN_EXPECTED=1 (`make regen-expected`) writes
# the files instead of comparing, for review as a git diff.
T_SUITE=$(basename "$0" .sh)
T_EXPECTED=$TOP/tests/expected/$T_SUITE

# t_normalize FILE: FILE with the run's own paths as TMP, FIXTURES and TOP.
t_normalize() {
	local fx=$FIXTURES
	case $fx in /*) ;; *) fx=$TOP/$fx ;; esac
	sed -e "s|$T_TMP|TMP|g" -e "s|$fx|FIXTURES|g" -e "s|$FIXTURES|FIXTURES|g" \
		-e "s|$TOP|TOP|g" -e "s|/[^ '\"]*/doc/ksymcheck/rules\.md|DOCDIR/rules.md|g" "$1"
}

t_expect() {
	local name=$1 want=$2; shift 2
	local exp=$T_EXPECTED/$name
	"$@" > "$T_TMP/out" 2> "$T_TMP/err"
	local rc=$?
	t_normalize "$T_TMP/out" > "$T_TMP/out.norm"
	t_normalize "$T_TMP/err" > "$T_TMP/err.norm"
	if [ -n "${KSC_REGEN_EXPECTED:-}" ]; then
		mkdir -p "$T_EXPECTED"
		cp "$T_TMP/out.norm" "$exp.out"
		if [ -s "$T_TMP/err.norm" ]; then cp "$T_TMP/err.norm" "$exp.err"; else rm -f "$exp.err"; fi
	fi
	local problems=()
	[ "$rc" = "$want" ] || problems+=("exit status $rc, expected $want")
	if [ ! -f "$exp.out" ]; then
		problems+=("no ${exp#"$TOP"/}.out: make regen-expected, then review it")
	elif ! diff -u "$exp.out" "$T_TMP/out.norm" > "$T_TMP/diff"; then
		problems+=("stdout differs from ${exp#"$TOP"/}.out:" "$(head -n 30 "$T_TMP/diff")")
	fi
	if [ -f "$exp.err" ]; then
		diff -u "$exp.err" "$T_TMP/err.norm" > "$T_TMP/diff" ||
			problems+=("stderr differs from ${exp#"$TOP"/}.err:" "$(head -n 30 "$T_TMP/diff")")
	elif [ -s "$T_TMP/err.norm" ]; then
		problems+=("stderr, expected nothing:" "$(head -c 600 "$T_TMP/err.norm")")
	fi
	if [ ${#problems[@]} -eq 0 ]; then t_ok "$name (exit $rc, whole output)"
	else t_fail "$name" "${problems[@]}"; fi
}

# t_cy_module OUT NAME IMPORT: assemble OUT, the in-tree module cyNAME of the 6.16 sample
# kernel, exporting cyNAME_fn and importing IMPORT (clang, tests/fixtures/src/kmod-asm.h);
# its source is left in $T_TMP/cyNAME.S. A failure is a failed test.
t_cy_module() {
	printf '%s\n' '#include "kmod-asm.h"' "IMPORT($3)" 'MODINFO(license, "GPL")' \
		'MODINFO(intree, "Y")' "MODINFO(name, \"cy$2\")" \
		'MODINFO(vermagic, "6.16.0 SMP preempt mod_unload modversions ")' \
		"THIS_MODULE(\"cy$2\")" "DEFINE_FUNC(cy${2}_fn)" \
		"KSYMTAB_PREL32(__ksymtab, cy${2}_fn, \"\")" > "$T_TMP/cy$2.S"
	"${CLANG:-clang}" --target=x86_64-linux-gnu -Werror -c -I "$TOP/tests/fixtures/src" \
		-o "$1" "$T_TMP/cy$2.S" || t_fail "assemble cy$2.ko"
}

# t_signed_root DIR: the sample kernel (scripts/mk-sample-kernel.sh, release 6.16.0-demo)
# in DIR with signatures checked: its image holds $FIXTURES/signed/rsa.der as its built-in
# key (an .init.data section, as tests/fixtures/signed.mk makes fx-vmlinux-rsa),
# CONFIG_MODULE_SIG=y, and the demo's kvm.ko installed. Needs objcopy (OBJCOPY).
t_signed_root() {
	local v=$1/boot/vmlinux-6.16.0-demo
	scripts/mk-sample-kernel.sh "$FIXTURES" "$1" > /dev/null 2>&1
	"${OBJCOPY:-objcopy}" --add-section .init.data="$FIXTURES/signed/rsa.der" \
		--set-section-flags .init.data=alloc,load,data "$v" "$v.new" 2> /dev/null &&
		mv "$v.new" "$v"
	sed -i 's/^# CONFIG_MODULE_SIG is not set/CONFIG_MODULE_SIG=y/' "$1/boot/config-6.16.0-demo"
	cp "$FIXTURES/demo/intree/kvm.ko" "$1/lib/modules/6.16.0-demo/kernel/"
}
