# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile names and values in the files `tree --write-depmod` writes: a module file name
# with a newline, an ESC, a space or a colon, and .modinfo alias and softdep values with a
# newline in them would split or forge lines of modules.dep, modules.symbols,
# modules.alias and modules.softdep (depmod writes them as they are). Each is reported as
# "PATH: reason: left out of ...", escaped, left out of the files, the exit status has 4,
# and the rest of the tree is written. Messages the library logs escape what they name.
. tests/lib.sh
. tests/hostile/lib.sh

h_tree "$T_TMP/root"
m=$T_TMP/root/lib/modules/$H_REL/kernel
K=$H_DEMO/intree/kvm.ko
cp "$K" "$m/y.ko"$'\n'"forged.ko"
cp "$K" "$m/esc"$'\e'"[31m.ko"
cp "$K" "$m/a b.ko"
cp "$K" "$m/c:d.ko"
# kvm.ko's description becomes an alias and its srcversion a softdep, each with a
# newline (the strings padded to keep every offset).
perl -0777 -pe 'sub pad { my ($o, $n) = @_; $n . " " x (length($o) - length($n)) }
	s/(description=Kernel-based Virtual Machine \(demo\))/pad($1, "alias=x kvm\nalias pci:v*d* evil\n#")/e;
	s/(srcversion=0A1B2C3D4E5F60718293A4B)/pad($1, "softdep=pre: a\npost: b")/e' \
	"$K" > "$m/kvm.ko"

mkdir "$T_TMP/dm"
timeout 20 "$KSC" tree -b "$T_TMP/root" "$H_REL" --no-index --no-check -q \
	--write-depmod "$T_TMP/dm" > "$T_TMP/stdout" 2> "$T_TMP/err"
t_eq "names: tree --write-depmod with odd names: exit status" 4 "$?"
pad12="            "
pad14="$pad12  "
t_eq "names: ... each reported once, escaped" \
	"ksymcheck: $m/a b.ko: a space in the file name: left out of depmod's files
ksymcheck: $m/c:d.ko: a colon in the file name: left out of depmod's files
ksymcheck: $m/esc\\x1b[31m.ko: a control character in the file name: left out of depmod's files
ksymcheck: $m/kvm.ko: alias \"x kvm\\x0aalias pci:v*d* evil\\x0a#$pad14\": a control character: left out of modules.alias
ksymcheck: $m/kvm.ko: softdep \"pre: a\\x0apost: b$pad12\": a control character: left out of modules.softdep
ksymcheck: $m/y.ko\\x0aforged.ko: a control character in the file name: left out of depmod's files" \
	"$(LC_ALL=C sort "$T_TMP/err")"
t_eq "names: ... modules.dep holds the others only" \
	"kernel/kvm-amd.ko: kernel/virt/kvm/fx-modns.ko
kernel/kvm.ko: kernel/virt/kvm/fx-modns.ko
kernel/virt/kvm/fx-modns.ko:" "$(LC_ALL=C sort "$T_TMP/dm/modules.dep")"
t_eq "names: ... modules.alias and modules.softdep hold no forged line" \
	"# Aliases extracted from modules themselves.
# Soft dependencies extracted from modules themselves." \
	"$(cat "$T_TMP/dm/modules.alias" "$T_TMP/dm/modules.softdep")"
t_eq "names: ... modules.symbols names no odd module" "" \
	"$(grep -v '^#' "$T_TMP/dm/modules.symbols" | grep -v ' fx_modns$')"

# The same tree again, with an index: the files are unchanged and not rewritten, but what
# was left out is said again.
timeout 20 "$KSC" tree -b "$T_TMP/root" "$H_REL" --index "$T_TMP/idx" --no-check -q \
	--write-depmod "$T_TMP/dm" > /dev/null 2> "$T_TMP/err1"
timeout 20 "$KSC" tree -b "$T_TMP/root" "$H_REL" --index "$T_TMP/idx" --no-check -q \
	--write-depmod "$T_TMP/dm" > /dev/null 2> "$T_TMP/err2"
t_eq "names: ... and said again when the files are unchanged" "4 6" "$? $(wc -l < "$T_TMP/err2")"

# A library message about a module names it escaped.
echo "not a module" > "$T_TMP/bad"$'\e'"]0;title"$'\a\n'"x.ko"
h_case "names: a module's problem names it escaped" 4 \
	"$T_TMP/bad\\x1b]0;title\\x07\\x0ax.ko: not an ELF file" \
	"$KSC" modinfo -F name "$T_TMP/bad"$'\e'"]0;title"$'\a\n'"x.ko"
exit 0
