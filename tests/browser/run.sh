#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The runner behind `make check-browser`: runs tests/browser/*.sh (TAP lines, as in
# tests/run.sh), prints failures and ends with "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 2
: "${BUILD:=build}" "${TOOL:=$BUILD/ksymcheck}" "${FIXTURES:=$BUILD/fixtures}"
OUT=$BUILD/test-output
TOP=$PWD
export BUILD TOOL FIXTURES OUT TOP
mkdir -p "$OUT"
pass=0 fail=0 skip=0
failed=()
for t in tests/browser/*.sh; do
	[ "$t" = tests/browser/run.sh ] || [ "$t" = tests/browser/inputs.sh ] && continue
	label=browser/$(basename "$t" .sh)
	log=$OUT/browser_$(basename "$t" .sh).log
	echo "== $label"
	bash "$t" > "$log" 2>&1
	rc=$?
	before=$fail
	while IFS= read -r line; do
		case "$line" in
		*"# SKIP"*) skip=$((skip + 1)); echo "  $line" ;;
		"not ok"*) fail=$((fail + 1)); failed+=("$label: ${line#not ok - }"); echo "  $line" ;;
		"ok"*) pass=$((pass + 1)); [ -n "${VERBOSE:-}" ] && echo "  $line" ;;
		"#"*) echo "  $line" ;;
		esac
	done < "$log"
	if [ $rc -ne 0 ] && [ $fail -eq $before ]; then
		fail=$((fail + 1))
		failed+=("$label: exited with status $rc (see $log)")
		tail -n 20 "$log" | sed 's/^/  | /'
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "Failures:"
	printf '  %s\n' "${failed[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
