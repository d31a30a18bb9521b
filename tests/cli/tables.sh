#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Text tables and untrusted names: padded columns are capped, so a long symbol (a Rust
# one, or a crafted 1 MiB name) pushes only its own row; module and symbol names,
# namespaces, .modinfo values and file names with control characters, invalid UTF-8 or
# bidirectional overrides are shown escaped. Whole outputs are compared with
# tests/expected/tables/ (regenerate: KSC_REGEN=1 bash tests/cli/tables.sh, then review
# the git diff).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

EXP=$TOP/tests/expected/tables
export LC_ALL=C
CLANG=${CLANG:-clang}

# expect NAME FILE: the last command's stdout is tests/expected/tables/FILE
expect() {
	if [ -n "${KSC_REGEN:-}" ]; then cp "$T_TMP/out" "$EXP/$2"; fi
	t_diff "$1" "$EXP/$2" "$T_TMP/out"
}

cd "$T_TMP"

# ---- a Module.symvers with hostile names -------------------------------------------
# ESC sequences, BEL, invalid UTF-8, a valid "é", U+202E RIGHT-TO-LEFT OVERRIDE.
printf '%b' '0x00000001\tplain_symbol\tvmlinux\tEXPORT_SYMBOL\t\n' \
	'0x00000002\tevil\033[2J\tdrivers/evil\033[0m\tEXPORT_SYMBOL_GPL\tNS\033]0;x\007\n' \
	'0x00000003\tbad_utf8_\377\303\tdrivers/caf\303\251\tEXPORT_SYMBOL\t\n' \
	'0x00000004\trtl_\342\200\256cod.exe\tvmlinux\tEXPORT_SYMBOL\t\n' > ctl.symvers
t_run "exports: hostile names" 0 "$KSC" exports ctl.symvers
expect "exports: names escaped, columns as wide as the escaped text" exports-escaped.out
# controls() FILE [KEPT]: how many control bytes other than line ends (and KEPT) FILE has
controls() { tr -d "\n${2:-}" < "$1" | tr -cd '\000-\037\177' | wc -c; }
t_eq "exports: no control character reaches the terminal" 0 "$(controls "$T_TMP/out")"

# ---- one 1 MiB symbol among short ones ------------------------------------------------
# Before the cap every row was padded to the longest name: 20 rows of 1 MiB each.
{
	for i in $(seq 1 9); do printf '0x%08x\tfx_sym_%d\tvmlinux\tEXPORT_SYMBOL_GPL\tFX_NS\n' "$i" "$i"; done
	printf '0x0000000a\t_R'
	head -c 1048576 /dev/zero | tr '\0' a
	printf '\tfx/huge\tEXPORT_SYMBOL\t\n'
	for i in $(seq 11 20); do printf '0x%08x\tfx_symbol_%d\tvmlinux\tEXPORT_SYMBOL\t\n' "$i" "$i"; done
} > huge.symvers
t_run "exports: a 1 MiB symbol" 0 "$KSC" exports huge.symvers
# Compared with the long symbol named @LONG@; its length is in the size check.
sed -E 's/^_Ra+(  )/@LONG@\1/' "$T_TMP/out" > huge.out
if [ -n "${KSC_REGEN:-}" ]; then cp huge.out "$EXP/exports-huge.out"; fi
t_diff "exports: only the long row is long" "$EXP/exports-huge.out" huge.out
t_eq "exports: output size (1 MiB + 20 short rows, not 21 MiB)" \
	$(($(wc -c < "$EXP/exports-huge.out") - 6 + 2 + 1048576)) "$(wc -c < "$T_TMP/out")"

# ---- diff: the change table --------------------------------------------------------
head -n 2 ctl.symvers > old.symvers
{
	tail -n 2 ctl.symvers
	printf '0x00000005\t_RNvNtNtCsfx9LongName_6kernel4sync4lock20acquire_from_a_table\tvmlinux\tEXPORT_SYMBOL_GPL\t\n'
	printf '0x00000006\tfx_new\tdrivers/new\033[1m\tEXPORT_SYMBOL\tFX\007NS\n'
} > new.symvers
t_run "diff: hostile and long names" 1 "$KSC" diff old.symvers new.symvers
expect "diff: change table escaped, a long symbol pushes only its row" diff-escaped.out

# ---- src scan ------------------------------------------------------------------------
mkdir scan
cat > scan/fx-esc.c << 'EOF'
#include <linux/module.h>
int fx_a(void) { return 0; }
EXPORT_SYMBOL_NS_GPL(fx_a, "FX\033[31mRED");
int _RNvNtNtCsfx9LongName_6kernel4sync4lock20acquire_from_a_table(void) { return 0; }
EXPORT_SYMBOL(_RNvNtNtCsfx9LongName_6kernel4sync4lock20acquire_from_a_table);
MODULE_IMPORT_NS("FX\tTAB");
MODULE_LICENSE("GPL\r");
EOF
(cd scan && "$KSC" src scan .) > "$T_TMP/out" 2> "$T_TMP/err"
expect "src scan: string literals with control characters escaped" scan-escaped.out

# ---- a module with long and hostile names --------------------------------------------
if ! command -v "$CLANG" > /dev/null ||
	! "$CLANG" --target=x86_64-linux-gnu -Werror -c -I "$TOP/tests/fixtures/src" \
		-o fx-longname.ko "$TOP/tests/fixtures/tables/fx-longname.S" 2> clang.err; then
	t_skip "tables: module fixture" "cannot assemble it with $CLANG: $(head -c 200 clang.err)"
	exit 0
fi
t_run "exports: a Rust-like symbol and a long namespace" 0 "$KSC" exports fx-longname.ko
expect "exports: capped SYMBOL and NAMESPACE columns" exports-longname.out
t_run "imports: a Rust-like symbol" 0 "$KSC" imports fx-longname.ko
expect "imports: capped SYMBOL column" imports-longname.out
t_run "modinfo: control characters in values" 0 "$KSC" modinfo fx-longname.ko
sed -i "s|$T_TMP|TMP|" "$T_TMP/out"
expect "modinfo: values and parameters escaped, tabs kept as kmod prints them" \
	modinfo-longname.out
t_eq "modinfo: no control character but TAB reaches the terminal" 0 \
	"$(controls "$T_TMP/out" '\t')"
t_run "modinfo -F description" 0 "$KSC" modinfo -F description fx-longname.ko
expect "modinfo -F description: escaped" modinfo-F-description.out
t_run "modinfo -F parm" 0 "$KSC" modinfo -F parm fx-longname.ko
expect "modinfo -F parm: name and type escaped, the description's TAB kept" modinfo-F-parm.out
