# SPDX-License-Identifier: LGPL-2.1-or-later
# The catalogue of hostile inputs (tests/hostile/*.sh): each script makes its bad inputs
# at test time and prints TAP lines; run here so that `make check` (and SANITIZE=1) runs
# them all.
. tests/lib.sh
for t in "$TOP"/tests/hostile/*.sh; do
	[ -f "$t" ] && bash "$t"
done
exit 0
