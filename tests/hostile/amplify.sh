# SPDX-License-Identifier: LGPL-2.1-or-later
# Amplification inside one small file, and tables that do not match: every relocation
# section is read once and no byte of the file belongs to two of them, so what is held is
# bounded by the file's size (before: 2,000 headers sharing one 480 KB blob of
# relocations, a 600 KB module, held 2.5 GB for 26 s); a __kcrctab shorter than its
# __ksymtab is an error naming the file (before: CRC 0, silently).
. tests/lib.sh
. tests/hostile/lib.sh

M=$BUILD/tests/helpers/elfmangle
X=$FIXTURES/x86_64
K=$H_DEMO/intree/kvm.ko
"$M" rela-amplify "$X/fx-65.ko" "$T_TMP/amp.ko"
amp="$T_TMP/amp.ko: relocation sections 14 (.rela__ksymtab) and 15 (.rela__ksymtab) share bytes of the file"
h_case "amplify: 2,000 relocation sections sharing one blob" 4 "$amp" \
	"$KSC" exports "$T_TMP/amp.ko"
h_cost "amplify: exports of the shared blob" "$KSC" exports "$T_TMP/amp.ko"
h_case "amplify: modinfo of it, then a good module" 4 "$amp" \
	"$KSC" modinfo -F name "$T_TMP/amp.ko" "$K"
t_eq "amplify: the good module is still shown" kvm "$(cat "$T_TMP/out")"

# In a tree, read by the workers (sparse: only the sections needed), four copies at -j2.
h_tree "$T_TMP/root"
m=$T_TMP/root/lib/modules/$H_REL/kernel
for i in 1 2 3 4; do cp "$T_TMP/amp.ko" "$m/amp$i.ko"; done
"$KSC" tree -b "$T_TMP/root" "$H_REL" -j2 --no-index --no-check -q > /dev/null \
	2> "$T_TMP/err"
t_eq "amplify: tree -j2 on four of them: exit status 4" 4 "$?"
for i in 1 2 3 4; do
	echo "ksymcheck: $m/amp$i.ko: relocation sections 14 (.rela__ksymtab) and 15 (.rela__ksymtab) share bytes of the file"
done > "$T_TMP/want"
sort "$T_TMP/err" | uniq > "$T_TMP/err.sorted"
t_diff "amplify: tree -j2 names each of them" "$T_TMP/want" "$T_TMP/err.sorted"
h_cost "amplify: tree -j2 on four of them" \
	"$KSC" tree -b "$T_TMP/root" "$H_REL" -j2 --no-index --no-check -q

# A short __kcrctab: an error, not CRC 0; the other module's exports still listed.
"$M" kcrctab-short "$X/fx-65.ko" "$T_TMP/short.ko"
h_case "amplify: a __kcrctab one CRC short" 4 \
	"$T_TMP/short.ko: __kcrctab has 4 bytes for 2 exports (4 each)" \
	"$KSC" exports --format symvers "$T_TMP/short.ko" "$X/fx-65.ko"
t_eq "amplify: the good module's exports are listed" 4 "$(grep -c fx65_ "$T_TMP/out")"
t_eq "amplify: no CRC 0 for the short one" 0 "$(grep -c short "$T_TMP/out")"
