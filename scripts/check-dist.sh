#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make check-dist: the packaging tests, tests/dist/deb.sh (build the Debian packages in a
# copy of the tree, lintian, install and use them; see that file). Prints its TAP lines,
# then "N passed, N failed, N skipped", and exits nonzero when something failed.
# Needs debhelper, dpkg-dev and lintian (scripts/install-deps.sh --test), the fixtures
# (make fixtures) and, for the install part, root or sudo.
set -u
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${FIXTURES:=$BUILD/fixtures}" "${TOOL:=$BUILD/ksymcheck}"
export BUILD FIXTURES TOOL TOP=$PWD
mkdir -p "$BUILD"
log=$BUILD/check-dist.log
echo "== dist/deb (log: $log)"
bash tests/dist/deb.sh > "$log" 2>&1
rc=$?
pass=0 fail=0 skip=0
while IFS= read -r line; do
	case $line in
	*"# SKIP"*) skip=$((skip + 1)); echo "  $line" ;;
	"not ok"*) fail=$((fail + 1)); echo "  $line" ;;
	"ok"*) pass=$((pass + 1)); [ -n "${VERBOSE:-}" ] && echo "  $line" ;;
	"#"*) echo "  $line" ;;
	esac
done < "$log"
if [ $rc -ne 0 ] && [ $fail -eq 0 ]; then
	fail=$((fail + 1))
	echo "  not ok - tests/dist/deb.sh exited with status $rc"
	tail -n 20 "$log" | sed 's/^/  | /'
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
