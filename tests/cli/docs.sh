# SPDX-License-Identifier: LGPL-2.1-or-later
# The man pages render without warnings and have their sections; every command that
# `ksymcheck --help` lists (so a new command is picked up here by itself) is in the
# SYNOPSIS and the COMMANDS of ksymcheck(1); and each command's --help and its part of the
# man page list the same options, in both directions.
. tests/lib.sh
scd=doc/ksymcheck.1.scd
for page in "$BUILD/ksymcheck.1" "$BUILD/libksymcheck.3"; do
	if [ -s "$page" ]; then t_ok "$(basename "$page") was built from doc/$(basename "$page").scd"
	else t_fail "$(basename "$page") was built"; fi
	if command -v man > /dev/null; then
		warnings=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l "$page" 2>&1 > /dev/null)
		t_eq "$(basename "$page") renders without warnings" "" "$warnings"
	else
		t_skip "$(basename "$page") renders without warnings" "no man"
	fi
done

# Sections of the man pages.
for section in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" ENVIRONMENT EXAMPLES "SEE ALSO"; do
	t_grep "ksymcheck(1) has $section" "# $section" "$scd"
done
for section in NAME SYNOPSIS DESCRIPTION CONVENTIONS EXAMPLE "SEE ALSO"; do
	t_grep "libksymcheck(3) has $section" "# $section" doc/libksymcheck.3.scd
done
see_also=$(sed -n '/^# SEE ALSO/,$p' "$scd")
for ref in '*depmod*(8)' '*modinfo*(8)' 'modpost' '*libksymcheck*(3)'; do
	case $see_also in *"$ref"*) t_ok "SEE ALSO names $ref" ;; *) t_fail "SEE ALSO names $ref" ;; esac
done
t_grep "ENVIRONMENT documents NO_COLOR" "*NO_COLOR*" "$scd"
t_grep "libksymcheck(3) points back to ksymcheck(1)" "*ksymcheck*(1)" doc/libksymcheck.3.scd

# The commands, from the tool itself.
commands=$("$KSC" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\)  .*/\1/p')
if [ -n "$commands" ]; then t_ok "ksymcheck --help lists commands: $(echo $commands)"
else t_fail "ksymcheck --help lists commands"; fi

# Options a help text defines, one per line: "-k" and "--kernel" for "  -k, --kernel ROOT ...".
help_options() {
	sed -n 's/^[[:space:]]\{1,\}\(-[[:alnum:]]\)\{0,1\}\(, \)\{0,1\}\(--[[:alnum:]][[:alnum:]-]*\)\{0,1\}.*/\1 \3/p' "$1" |
		tr ' ' '\n' | sed '/^$/d' | sort -u
}
# The man page's part for a command: its items in COMMANDS ("*cmd*" or "*cmd sub...*").
man_part() {
	awk -v cmd="$1" '
		/^# / { section = $0; item = 0; next }
		section == "# COMMANDS" && /^\*/ {
			item = index($0, "*" cmd "*") == 1 || index($0, "*" cmd " ") == 1
		}
		item' "$scd"
}
# Options the man page defines in a part: the *-x*, *--xyz* at the start of an item line.
man_options() {
	grep -E '^[[:space:]]*\*-' | grep -oE -- '\*-{1,2}[[:alnum:]][[:alnum:]-]*' | tr -d '*' | sort -u
}
global=$(sed -n '/^# OPTIONS/,/^# /p' "$scd" | man_options)

# ksymcheck's own options.
"$KSC" --help > "$T_TMP/top"
missing=""
for opt in $(help_options "$T_TMP/top"); do
	grep -qxF -- "$opt" <<< "$global" || missing="$missing $opt"
done
t_eq "ksymcheck --help: every option is in OPTIONS" "" "$missing"

for cmd in $commands; do
	grep -qE "^\\*ksymcheck ${cmd}[* ]" "$scd" && t_ok "$cmd: in the SYNOPSIS" || t_fail "$cmd: in the SYNOPSIS"
	part=$(man_part "$cmd")
	if [ -n "$part" ]; then t_ok "$cmd: has an item in COMMANDS"; else t_fail "$cmd: has an item in COMMANDS"; fi
	if ! "$KSC" "$cmd" --help > "$T_TMP/help" 2> "$T_TMP/err"; then
		t_fail "$cmd --help" "$(cat "$T_TMP/err")"
		continue
	fi
	documented=$(printf '%s\n%s\n' "$(man_options <<< "$part")" "$global")
	missing=""
	for opt in $(help_options "$T_TMP/help"); do
		grep -qxF -- "$opt" <<< "$documented" || missing="$missing $opt"
	done
	t_eq "$cmd: every option of --help is in its part of the man page (or OPTIONS)" "" "$missing"
	extra=""
	for opt in $(man_options <<< "$part"); do
		help_options "$T_TMP/help" | grep -qxF -- "$opt" || extra="$extra $opt"
	done
	t_eq "$cmd: every option its part of the man page defines is in --help" "" "$extra"
done

# The API reference: every function ksymcheck.h declares has a comment, right above it or
# above its group of declarations (no blank line between), saying what it returns, who
# owns it and its errors (the conventions at the top of the header cover the common case).
undocumented=$(python3 - lib/ksymcheck.h <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
decl = re.compile(r'^[a-z][^()]*\b(ksc_[a-z0-9_]+)\(')
missing = []
for i, line in enumerate(lines):
    m = decl.match(line)
    if not m:
        continue
    j = i - 1
    while j >= 0:
        t = lines[j].rstrip()
        if t.endswith("*/"):
            break
        if not t or t.startswith(("#", "}")) or (t.startswith("struct ") and t.endswith("{")):
            missing.append(m.group(1))
            break
        j -= 1
print(" ".join(missing))
PY
)
t_eq "ksymcheck.h: every function is documented" "" "$undocumented"
