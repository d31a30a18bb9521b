# SPDX-License-Identifier: LGPL-2.1-or-later
# Objects before modpost (6.5+): exports are __export_symbol_<sym> labels in
# .export_symbol (license, then namespace), not __ksymtab. modpost reads a provider's
# exports from them when it checks the other modules of the same build; so must
# `check --view modpost` when it is given the provider's .o (tests/real/modpost72.sh
# found 16 false "undefined!" lines before). The lines are those sid's 7.2 modpost
# (scripts/mod/modpost -M -i k.symvers -T order, run in the cases' folder) printed for
# these two objects.
. tests/lib.sh
CLANG=${CLANG:-clang}
W=$T_TMP/w
mkdir -p "$W"
cat > "$W/fx_prov.S" <<'S'
#include "kmod-asm.h"
MODINFO(license, "GPL")
MODINFO(description, "provider before modpost")
DEFINE_FUNC(fx_star)
DEFINE_FUNC(fx_only_b)
DEFINE_FUNC(fx_plain)
	.pushsection .export_symbol, "a"
__export_symbol_fx_star: .asciz "GPL"; .asciz "module:*"; .balign 8; .quad fx_star
__export_symbol_fx_only_b: .asciz "GPL"; .asciz "module:fx_b"; .balign 8; .quad fx_only_b
__export_symbol_fx_plain: .asciz ""; .asciz ""; .balign 8; .quad fx_plain
	.popsection
S
cat > "$W/fx_a.S" <<'S'
#include "kmod-asm.h"
IMPORT(fx_star)
IMPORT(fx_only_b)
IMPORT(fx_plain)
IMPORT(fx_nobody)
MODINFO(license, "Proprietary")
MODINFO(description, "importer before modpost")
S
# the namespace of the last entry runs off the end of the section
cat > "$W/fx_bad.S" <<'S'
#include "kmod-asm.h"
MODINFO(license, "GPL")
DEFINE_FUNC(fx_cut)
	.pushsection .export_symbol, "a"
__export_symbol_fx_cut: .asciz "GPL"; .ascii "module:fx_a"
	.popsection
S
for m in fx_prov fx_a fx_bad; do
	if ! "$CLANG" --target=x86_64-linux-gnu -Werror -c -I "$TOP/tests/fixtures/src" \
		-o "$W/$m.o" "$W/$m.S" 2> "$T_TMP/clang.err"; then
		t_skip "export_symbol" "cannot assemble with $CLANG: $(head -c 200 "$T_TMP/clang.err")"
		exit 0
	fi
done
printf '0x00000000\tprintk\tvmlinux\tEXPORT_SYMBOL\t\n' > "$W/k.symvers"
cd "$W" || exit 1
t_run "a .o provider's .export_symbol exports are seen by modpost's view" 1 \
	"$KSC" check --symvers k.symvers --policy 7.2 --view modpost --format kernel fx_prov.o fx_a.o
printf '%s\n' "ERROR: modpost: GPL-incompatible module fx_a.ko uses GPL-only symbol 'fx_star'" \
	"ERROR: modpost: module fx_a uses symbol fx_only_b from namespace module:fx_b, but does not import it." \
	"ERROR: modpost: GPL-incompatible module fx_a.ko uses GPL-only symbol 'fx_only_b'" \
	"ERROR: modpost: \"fx_nobody\" [fx_a.ko] undefined!" > "$T_TMP/want"
t_diff "... with modpost's lines: GPL-only, namespace, and only fx_nobody undefined" "$T_TMP/want" "$T_TMP/out"

"$KSC" check --symvers k.symvers --policy 7.2 --view modpost --format kernel fx_bad.o fx_a.o \
	> "$T_TMP/out" 2> "$T_TMP/err"
t_eq "an .export_symbol entry cut short: unreadable (4) and fx_a refused (1)" 5 "$?"
t_eq "... said on stderr" "ksymcheck: fx_bad.o: __export_symbol_fx_cut: its license and namespace run past .export_symbol" "$(cat "$T_TMP/err")"
