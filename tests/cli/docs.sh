# SPDX-License-Identifier: LGPL-2.1-or-later
# The man page renders, and every option --help lists for a command is in the man page.
. tests/lib.sh
page=$BUILD/ksymcheck.1
if [ -s "$page" ]; then t_ok "ksymcheck.1 was built from doc/ksymcheck.1.scd"; else t_fail "ksymcheck.1 was built"; fi
for cmd in check exports imports modinfo; do
	"$KSC" "$cmd" --help > "$T_TMP/help" || t_fail "$cmd --help"
	missing=""
	for opt in $(grep -oE -- '--[a-z][a-z-]+' "$T_TMP/help" | sort -u); do
		[ "$opt" = "--help" ] && continue
		grep -qF -- "$opt" doc/ksymcheck.1.scd || missing="$missing $opt"
	done
	t_eq "$cmd: every --help option is documented in the man page" "" "$missing"
done
