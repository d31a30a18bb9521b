#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The test runner behind `make check`. Runs the cmocka unit binaries (TAP output) and the
# shell tests (tests/cli/*.sh, or tests/real/*.sh with --real), each of which prints TAP
# lines ("ok - name", "not ok - name", "ok - name # SKIP reason"). Ends with the line
# "N passed, N failed, N skipped" and exits nonzero when anything failed.
#
# --real runs each tests/real/*.sh once per kernel its line "# Real kernels: ..." names
# (6.1 when it has none), with KSC_REAL_KERNEL set (scripts/real-env.sh), kernel by
# kernel in the order of KSC_REAL_KERNELS (default: 6.1 trixie sid experimental; set it
# to run fewer). A lane of another kernel than 6.1 is labelled real/NAME@KERNEL.
set -u
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${TOOL:=$BUILD/ksymcheck}" "${FIXTURES:=$BUILD/fixtures}"
export BUILD TOOL FIXTURES
export TOP=$PWD
OUT=$BUILD/test-output
mkdir -p "$OUT"
export OUT

mode=default
[ "${1:-}" = "--real" ] && mode=real

pass=0 fail=0 skip=0
failed_names=()

count() { # $1 = label, reads TAP on stdin, echoes lines
	local label=$1 line
	while IFS= read -r line; do
		case "$line" in
		*"# SKIP"*|*"# skip"*) skip=$((skip + 1)); echo "  $line" ;; # cmocka: "not ok N # SKIP"
		"not ok"*) fail=$((fail + 1)); failed_names+=("$label: ${line#not ok }"); echo "  $line" ;;
		"ok"*) pass=$((pass + 1)); [ -n "${VERBOSE:-}" ] && echo "  $line" ;;
		"#"*) echo "  $line" ;;
		*) [ -n "${VERBOSE:-}" ] && echo "  | $line" ;;
		esac
	done
}

run_one() { # $1 label, rest: command
	local label=$1; shift
	local log="$OUT/$(echo "$label" | tr '/ ' '__').log"
	echo "== $label"
	local t0=$SECONDS
	"$@" > "$log" 2>&1
	local rc=$?
	if [ $mode = real ]; then echo "  # $((SECONDS - t0)) s"; fi
	local before=$fail
	count "$label" < "$log"
	if [ $rc -ne 0 ] && [ $fail -eq $before ]; then
		fail=$((fail + 1))
		failed_names+=("$label: exited with status $rc (see $log)")
		echo "  not ok - $label exited with status $rc"
		tail -n 20 "$log" | sed 's/^/  | /'
	fi
}

if [ $mode = default ]; then
	for t in "$BUILD"/tests/test-*; do
		[ -x "$t" ] || continue
		CMOCKA_MESSAGE_OUTPUT=TAP run_one "unit/$(basename "$t")" "$t"
	done
	for t in tests/cli/*.sh; do
		[ -f "$t" ] || continue
		run_one "cli/$(basename "$t" .sh)" bash "$t"
	done
else
	for k in ${KSC_REAL_KERNELS:-6.1 trixie sid experimental}; do
		for t in tests/real/*.sh; do
			[ -f "$t" ] || continue
			kernels=$(sed -n 's/^# Real kernels: //p' "$t" | head -n 1)
			case " ${kernels:-6.1} " in *" $k "*) ;; *) continue ;; esac
			label=real/$(basename "$t" .sh)
			[ "$k" = 6.1 ] || label=$label@$k
			run_one "$label" env KSC_REAL_KERNEL="$k" bash "$t"
		done
	done
	echo "real artifacts: $SECONDS s"
fi

if [ ${#failed_names[@]} -gt 0 ]; then
	echo "Failures:"
	printf '  %s\n' "${failed_names[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
