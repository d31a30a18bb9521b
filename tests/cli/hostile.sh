# SPDX-License-Identifier: LGPL-2.1-or-later
# The catalogue of hostile inputs (tests/hostile/*.sh): each script makes its bad inputs
# at test time and prints TAP lines; run here so that `make check` (and SANITIZE=1) runs
# them all. tests/hostile/README.md lists each kind with its expected outcome: it must
# list at least 100, name every script of the folder, and name only test files that exist.
. tests/lib.sh
for t in "$TOP"/tests/hostile/*.sh; do
	[ -f "$t" ] && bash "$t"
done

cat=$TOP/tests/hostile/README.md
kinds=$(sed -n '/^## Kinds/,$p' "$cat" | grep -c '^| [^k-]')
t_eq "catalogue: at least 100 kinds" yes "$([ "$kinds" -ge 100 ] && echo yes || echo "no: $kinds")"
unnamed=""
for t in "$TOP"/tests/hostile/*.sh; do
	n=$(basename "$t")
	[ "$n" = lib.sh ] && continue
	grep -qE "(\| |, )${n//./\\.}( \||,)" "$cat" || unnamed="$unnamed $n"
done
t_eq "catalogue: every script of tests/hostile/ named" "" "$unnamed"
missing=""
while IFS= read -r f; do
	[ -e "$TOP/tests/hostile/$f" ] || [ -e "$TOP/tests/$f" ] || missing="$missing $f"
done < <(sed -n '/^## Kinds/,$p' "$cat" | grep '^| [^k-]' | awk -F'|' '{ print $(NF-1) }' |
	tr ',' '\n' | sed 's/^ *//; s/ *$//' | sort -u)
t_eq "catalogue: every test file named exists" "" "$missing"
exit 0
