# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile module files that were already handled before the catalogue existed: each is
# reported with its exact message, the next module is still read, the exit status is 4.
. tests/lib.sh
. tests/hostile/lib.sh

X=$FIXTURES/x86_64
K=$H_DEMO/intree/kvm.ko
: > "$T_TMP/empty.ko"
head -c 100 "$X/fx-user.ko" > "$T_TMP/trunc.ko"
head -c 200 "$X/fx-user.ko.xz" > "$T_TMP/trunc.ko.xz"
head -c 100 "$X/fx-user.ko.zst" > "$T_TMP/trunc.ko.zst"
head -c 100 "$X/fx-user.ko.gz" > "$T_TMP/trunc.ko.gz"
ln -s nowhere "$T_TMP/dangling.ko"
printf '\177ELF\011' > "$T_TMP/short-elf.ko"
echo "not a module" > "$T_TMP/text.ko"

# h_one NAME FILE MESSAGE: modinfo FILE then a good module
h_one() {
	h_case "module: $1" 4 "$2: $3" "$KSC" modinfo -F name "$2" "$K"
	t_eq "module: $1: the next module still read" kvm "$(cat "$T_TMP/out")"
}
h_one "an empty file" "$T_TMP/empty.ko" "empty file"
h_one "a truncated ELF file" "$T_TMP/trunc.ko" \
	"section header table (offset 0x7c0) extends past the end of the file"
h_one "a truncated xz stream" "$T_TMP/trunc.ko.xz" "xz: truncated stream"
h_one "a truncated zstd stream" "$T_TMP/trunc.ko.zst" "zstd: truncated stream"
h_one "a truncated gzip stream" "$T_TMP/trunc.ko.gz" "gzip: truncated stream"
h_one "a dangling symbolic link" "$T_TMP/dangling.ko" "No such file or directory"
h_one "an ELF magic and nothing else" "$T_TMP/short-elf.ko" "not an ELF file"
h_one "a text file named .ko" "$T_TMP/text.ko" "not an ELF file"

# A corrupt tree index: rebuilt, said so, the run complete.
h_tree "$T_TMP/root"
"$KSC" tree -b "$T_TMP/root" "$H_REL" --index "$T_TMP/idx" --no-check -q
printf 'garbage' | dd of="$T_TMP/idx" bs=1 seek=100 conv=notrunc status=none
h_case "module: a corrupt tree index" 0 \
	"warning: $T_TMP/idx: index corrupt, truncated or of another format, rebuilt" \
	"$KSC" tree -b "$T_TMP/root" "$H_REL" --index "$T_TMP/idx" --no-check
h_case "module: ... and the rebuilt index read quietly" 0 "" \
	"$KSC" tree -b "$T_TMP/root" "$H_REL" --index "$T_TMP/idx" --no-check -q
