# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile file contents: compressed modules with bytes after their stream (refused alike
# by gzip, xz and zstd), odd Module.symvers and System.map files. Each is reported with
# its exact message, the exit status has 4, and the other inputs are still read.
. tests/lib.sh
. tests/hostile/lib.sh

X=$FIXTURES/x86_64
K=$H_DEMO/intree/kvm.ko
for c in gz xz zst; do
	cp "$X/fx-user.ko.$c" "$T_TMP/garbage.ko.$c"
	printf 'GARBAGE!' >> "$T_TMP/garbage.ko.$c"
done
h_case "format: gzip with trailing garbage" 4 \
	"$T_TMP/garbage.ko.gz: gzip: 8 bytes of trailing garbage" \
	"$KSC" modinfo -F name "$T_TMP/garbage.ko.gz" "$K"
t_eq "format: ... the next module still read" kvm "$(cat "$T_TMP/out")"
h_case "format: xz with trailing garbage" 4 "$T_TMP/garbage.ko.xz: xz: truncated stream" \
	"$KSC" modinfo -F name "$T_TMP/garbage.ko.xz"
h_case "format: zstd with trailing garbage" 4 \
	"$T_TMP/garbage.ko.zst: zstd: Unknown frame descriptor" \
	"$KSC" modinfo -F name "$T_TMP/garbage.ko.zst"
cat "$X/fx-user.ko.gz" "$X/fx-user.ko.gz" > "$T_TMP/two.ko.gz"
h_case "format: two gzip members (as gzip reads them)" 0 "" \
	"$KSC" modinfo -F name "$T_TMP/two.ko.gz"

# A message longer than the 1 KiB log line (a long path): cut with a visible mark.
long=$T_TMP
for i in 1 2 3 4 5; do long=$long/$(printf 'd%.0s' $(seq 220)); done
mkdir -p "$long"
echo "not a module" > "$long/x.ko"
msg="$long/x.ko: not an ELF file"
"$KSC" modinfo "$long/x.ko" > /dev/null 2> "$T_TMP/err"
t_eq "format: a 1 KiB message ends with a mark" \
	"ksymcheck: ${msg:0:$((1023 - 36))} [... cut: 1023 of ${#msg} bytes shown]" \
	"$(cat "$T_TMP/err")"

# Module.symvers with DOS line ends: one message for the file, not one per line.
printf '0x00000001\ta\tvmlinux\tEXPORT_SYMBOL\t\r\n0x00000002\tb\tvmlinux\tEXPORT_SYMBOL\t\r\n0x00000003\tc\tvmlinux\tEXPORT_SYMBOL\t\n' \
	> "$T_TMP/crlf.symvers"
h_case "format: a CRLF Module.symvers" 4 \
	"$T_TMP/crlf.symvers: 2 of 3 lines end with a carriage return (DOS line endings, from line 1): those lines not read" \
	"$KSC" exports "$T_TMP/crlf.symvers"
t_eq "format: ... the good line still read" 1 "$(grep -c '^c ' "$T_TMP/out")"
printf '0x00000001\ta\tvmlinux\tEXPORT_SYMBOL\t\n0x00000002\tb\tvmlinux\tEXPORT_SYMBOL\t\r\n' \
	> "$T_TMP/crlf1.symvers"
h_case "format: one CRLF line: its line number" 4 \
	"$T_TMP/crlf1.symvers:2: carriage return at end of line (DOS line ending)" \
	"$KSC" exports "$T_TMP/crlf1.symvers"

# A System.map with a malformed line: the same unreadable-input bit (4) as a malformed
# Module.symvers, and the same words.
h_tree "$T_TMP/smroot"
printf 'ffffffff81000000 T _stext\nthis is bad\nffffffff81000010 r __ksymtab_printk\n' \
	> "$T_TMP/System.map"
printf '0x00000001\tprintk\tvmlinux\tEXPORT_SYMBOL\t\nbad\n' > "$T_TMP/bad.symvers"
h_case "format: tree -E with a malformed Module.symvers line" 5 \
	"$T_TMP/bad.symvers:2: too few fields (1, expected 4 or 5)
$T_TMP/bad.symvers: 1 faulty line (said above)" \
	"$KSC" tree -b "$T_TMP/smroot" "$H_REL" --no-index -E "$T_TMP/bad.symvers" -q
h_case "format: tree -F with a malformed System.map line" 5 \
	"$T_TMP/System.map:2: bad address 'this'
$T_TMP/System.map: 1 malformed line skipped" \
	"$KSC" tree -b "$T_TMP/smroot" "$H_REL" --no-index -F "$T_TMP/System.map" -q

# A symbol listed twice in Module.symvers: reported, with the entry each view takes
# (depmod's the last, as kmod's hash does; the loader's and modpost's the first).
printf '0x00000001\tprintk\tvmlinux\tEXPORT_SYMBOL\t\n0x00000002\tkvm_hook\tvmlinux\tEXPORT_SYMBOL_GPL\t\n0x00000003\tprintk\tvmlinux\tEXPORT_SYMBOL_GPL\t\n' \
	> "$T_TMP/dup.symvers"
dupmsg="$T_TMP/dup.symvers:3: printk listed again (first at line 1): depmod's view takes this later entry, the loader's and modpost's views the first"
h_case "format: a duplicate symbol in Module.symvers (exports)" 4 "$dupmsg" \
	"$KSC" exports "$T_TMP/dup.symvers"
t_eq "format: ... both rows still listed" 2 "$(grep -c '^printk ' "$T_TMP/out")"
h_case "format: a duplicate symbol in Module.symvers (check -s)" 5 "$dupmsg" \
	"$KSC" check -s "$T_TMP/dup.symvers" "$K"
# tree -E counts the line at fault, and does not call the repeated entry skipped (both
# entries are kept, each view takes its own).
h_case "format: a duplicate symbol in Module.symvers (tree -E)" 5 "$dupmsg
$T_TMP/dup.symvers: 1 faulty line (said above)" \
	"$KSC" tree -b "$T_TMP/smroot" "$H_REL" --no-index -E "$T_TMP/dup.symvers" -q
