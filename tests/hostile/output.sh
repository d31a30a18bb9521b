# SPDX-License-Identifier: LGPL-2.1-or-later
# Forged or lost output: untrusted text (a namespace literal, an export name, a .modinfo
# value) must neither forge a line of a line-based format nor reach a terminal raw, in
# any format, and one bad file must not cost the others their output. Before: `src scan
# --format symvers` printed a namespace's "\n" raw (a forged Module.symvers line) and its
# ESC raw; `exports` stopped at a module with a line end in an export name ("Invalid
# argument", no file named, the next files not listed); `modinfo --json` passed U+202E
# raw; `exports` of a file that is no module printed a table header.
. tests/lib.sh
. tests/hostile/lib.sh

# no_raw NAME FILE: FILE has no byte of a control (but LF), DEL, C1 control or a bidi
# override / line separator (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+2028, U+2029).
no_raw() {
	local n
	n=$(LC_ALL=C tr -d '\n' < "$2" | LC_ALL=C grep -c -P '[\x00-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]')
	t_eq "$1" 0 "$n"
}

S=$T_TMP/src
mkdir -p "$S"
printf '%s\n' 'EXPORT_SYMBOL_NS(forged, "A\n0x00000000\tevil\tvmlinux\tEXPORT_SYMBOL\t");' \
	'EXPORT_SYMBOL_NS(coloured, "B\033[31m");' \
	'EXPORT_SYMBOL_NS_GPL(plain, "FX_NS");' 'MODULE_LICENSE("GPL");' > "$S/a.c"
h_case "output: src scan --format symvers, a line end and an ESC in namespaces" 4 \
	"$S/a.c:1: forged: a control character in its symbol, file name or namespace: no Module.symvers line can hold it
$S/a.c:2: coloured: a control character in its symbol, file name or namespace: no Module.symvers line can hold it" \
	"$KSC" src scan --format symvers "$S/a.c"
t_eq "output: ... only the plain export written" \
	"$(printf '0x00000000\tplain\t%s\tEXPORT_SYMBOL_GPL\tFX_NS' "$S/a")" "$(cat "$T_TMP/out")"

# U+202E, DEL and a C1 control in a namespace literal: escaped in text and JSON alike.
printf 'EXPORT_SYMBOL_NS(baz, "C\342\200\256X\177\302\205");\n' > "$S/b.c"
h_case "output: src scan --json, bidi and C1 in a namespace" 0 "" \
	"$KSC" src scan --json "$S/b.c"
t_grep "output: ... as \\u escapes, the same string" \
	'"namespace": "C\u202eX\u007f\u0085"' "$T_TMP/out"
no_raw "output: ... no raw control or bidi byte (json)" "$T_TMP/out"
h_case "output: src scan, bidi and C1 in a namespace" 0 "" "$KSC" src scan "$S/b.c"
no_raw "output: ... no raw control or bidi byte (text)" "$T_TMP/out"

# A module with a line end in an export name, among good ones: that file said, the
# others listed, in each format.
M=$FIXTURES/x86_64/fx-modns.ko
perl -0777 -pe 's/fxm_plain/fxm\npla_n/g' "$M" > "$T_TMP/nl.ko"
K=$H_DEMO/intree/kvm.ko
"$KSC" exports "$M" "$FIXTURES/x86_64/fx-user.ko" > "$T_TMP/want"
h_case "output: exports NL.ko GOOD GOOD" 4 \
	"$T_TMP/nl.ko: an export name or namespace with a tab or a line end: not listed" \
	"$KSC" exports "$T_TMP/nl.ko" "$M" "$FIXTURES/x86_64/fx-user.ko"
t_diff "output: ... the other files listed" "$T_TMP/want" "$T_TMP/out"
h_case "output: exports --json NL.ko GOOD" 4 \
	"$T_TMP/nl.ko: an export name or namespace with a tab or a line end: not listed" \
	"$KSC" exports --json "$T_TMP/nl.ko" "$M"
t_eq "output: ... one file in the document" 1 "$(grep -c '"path"' "$T_TMP/out")"

# exports --format symvers of a Module.symvers with an ESC in a name: that row refused.
printf '0x00000001\tok_sym\tvmlinux\tEXPORT_SYMBOL\t\n0x00000002\tesc\033[2J\tvmlinux\tEXPORT_SYMBOL\t\n' \
	> "$T_TMP/esc.symvers"
h_case "output: exports --format symvers, an ESC in a symbol" 4 \
	'vmlinux: esc\x1b[2J: a control character in its symbol, module or namespace: no Module.symvers line can hold it' \
	"$KSC" exports --format symvers "$T_TMP/esc.symvers"
t_eq "output: ... the other row written" "$(printf '0x00000001\tok_sym\tvmlinux\tEXPORT_SYMBOL\t')" \
	"$(cat "$T_TMP/out")"

# Nothing read: no table header.
printf 'not an ELF file\n' > "$T_TMP/notelf.ko"
h_case "output: exports NOTELF.ko" 4 "$T_TMP/notelf.ko: not an ELF file" \
	"$KSC" exports "$T_TMP/notelf.ko"
t_eq "output: ... no table header" "" "$(cat "$T_TMP/out")"

# modinfo --json: U+202E, DEL and a C1 control in a .modinfo value, escaped as \uXXXX
# (the text output escapes them too).
perl -0777 -pe 's/consumer module/consum\xe2\x80\xaemod\x7f\xc2\x85/' \
	"$FIXTURES/x86_64/fx-user.ko" > "$T_TMP/bidi.ko"
h_case "output: modinfo --json, U+202E in a value" 0 "" "$KSC" modinfo --json "$T_TMP/bidi.ko"
t_grep "output: ... as \\u202e" '"value": "ksymcheck fixture: consum\u202emod\u007f\u0085"' \
	"$T_TMP/out"
no_raw "output: ... no raw control or bidi byte (modinfo json)" "$T_TMP/out"
h_case "output: modinfo, U+202E in a value" 0 "" "$KSC" modinfo "$T_TMP/bidi.ko"
no_raw "output: ... no raw control or bidi byte (modinfo text)" "$T_TMP/out"

# The same in a check's JSON and SARIF (the module's description is not in them, its
# file name is).
cp "$FIXTURES/x86_64/fx-user.ko" "$T_TMP/rtl$(printf '\342\200\256')ok.ko"
for f in json sarif; do
	"$KSC" check -f "$f" -s "$H_SYMVERS" "$T_TMP/rtl$(printf '\342\200\256')ok.ko" \
		> "$T_TMP/out" 2> /dev/null
	no_raw "output: check -f $f, U+202E in a file name" "$T_TMP/out"
	t_grep "output: ... written as \\u202e ($f)" 'rtl\u202eok' "$T_TMP/out"
done

# The HTML report (diff --html, audit --html) embeds its JSON through the same writer: a
# module name with U+202E, DEL and a C1 control reaches the page as \uXXXX (before: raw,
# only '<', '>' and '&' escaped), the decoded document unchanged.
printf '0x00000001\trtl_sym\tdrivers/rtl\342\200\256ok\177\302\205\tEXPORT_SYMBOL\t\n' \
	> "$T_TMP/rtl-old.symvers"
printf '0x00000002\tother\tvmlinux\tEXPORT_SYMBOL\t\n' > "$T_TMP/rtl-new.symvers"
h_case "output: diff --html, U+202E in a module name" 1 "" \
	"$KSC" diff -q --html "$T_TMP/rtl.html" "$T_TMP/rtl-old.symvers" "$T_TMP/rtl-new.symvers"
t_grep "output: ... written as \\u202e (html)" 'rtl\u202eok\u007f\u0085' "$T_TMP/rtl.html"
t_eq "output: ... no raw U+202E, DEL or C1 control in the page" 0 \
	"$(LC_ALL=C grep -c -P '\xe2\x80\xae|\x7f|\xc2[\x80-\x9f]' "$T_TMP/rtl.html")"
