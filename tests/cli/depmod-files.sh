# SPDX-License-Identifier: LGPL-2.1-or-later
# `check -k ROOT` from depmod's files (lib/kernel/ksc-kernel-depmod.c): with modules.dep
# and modules.symbols current (kmod's depmod run on the root; their .bin tries when those
# are there and current, else the text files), only the module's providers
# are read, and every output is the whole tree's read byte for byte (KSYMCHECK_NO_DEPMOD=1
# KSYMCHECK_NO_INDEX=1: ksc_kernel_open()); with an index, the files read are taken from
# its records when current (and the records read are kept in it), so the runs that compare
# keep none (KSYMCHECK_NO_INDEX=1); stale files (a module added or touched after
# depmod, a file missing or not as depmod wrote it) fall back to the tree's read, saying
# why at debug level. A root with only the headers' Module.symvers (no module) takes the
# modules' exports from it. Whole outputs against tests/expected/depmod-files/.
. tests/lib.sh
REL=6.16.0-demo
M=$FIXTURES/demo/modset
DEPMOD=$(PATH=$PATH:/usr/sbin:/sbin command -v depmod || true)
export LC_ALL=C

root=$T_TMP/root
k=$root/lib/modules/$REL
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"
mkdir -p "$k/kernel/arch/x86/kvm"
cp "$M/kvm.ko" "$M/kvm-amd.ko" "$k/kernel/arch/x86/kvm/"
amd=$T_TMP/kvm-amd.ko
cp "$M/kvm-amd.ko" "$amd"

# both NAME [OPTIONS]: check kvm-amd with depmod's files and with the tree's read; the
# whole outputs (stdout, stderr, exit status) must be equal. $T_TMP/why: the debug line
# that says why depmod's files were not used (empty when they were).
both() {
	local name=$1; shift
	${AS_USER[@]+"${AS_USER[@]}"} env KSYMCHECK_NO_INDEX=1 "$KSC" check "$@" -k "$root" \
		"${CHECKED:-$amd}" > "$T_TMP/fast.out" 2> "$T_TMP/fast.err"
	echo "exit $?" >> "$T_TMP/fast.out"
	${AS_USER[@]+"${AS_USER[@]}"} env KSYMCHECK_NO_DEPMOD=1 KSYMCHECK_NO_INDEX=1 "$KSC" check \
		"$@" -k "$root" "${CHECKED:-$amd}" > "$T_TMP/full.out" 2> "$T_TMP/full.err"
	echo "exit $?" >> "$T_TMP/full.out"
	cat "$T_TMP/fast.err" >> "$T_TMP/fast.out"
	cat "$T_TMP/full.err" >> "$T_TMP/full.out"
	t_diff "$name: the same output as the tree's read" "$T_TMP/full.out" "$T_TMP/fast.out"
	${AS_USER[@]+"${AS_USER[@]}"} env KSYMCHECK_NO_INDEX=1 KSYMCHECK_DEBUG=1 "$KSC" check "$@" \
		-k "$root" "${CHECKED:-$amd}" 2>&1 >/dev/null |
		grep "^ksymcheck: debug: $k: depmod's" > "$T_TMP/debug"
	sed -n "s|^ksymcheck: debug: $k: depmod's files not used: ||p" "$T_TMP/debug" > "$T_TMP/why"
	sed -n "s|^ksymcheck: debug: $k: depmod's .bin files not used: ||p" "$T_TMP/debug" \
		> "$T_TMP/binwhy"
	printf '%s: .bin files: %s; files: %s\n' "$name" "$(cat "$T_TMP/binwhy")" \
		"$(cat "$T_TMP/why")" >> "$T_TMP/roads"
}
# uses NAME: depmod's files were used
uses() { t_eq "$1" "" "$(cat "$T_TMP/why")"; }
# uses_bin NAME: their .bin files were used
uses_bin() { t_eq "$1" ":" "$(cat "$T_TMP/binwhy"):$(cat "$T_TMP/why")"; }
# text_road NAME WHY: the .bin files not used for WHY, the text files used
text_road() { t_eq "$1" "$2:" "$(cat "$T_TMP/binwhy"):$(cat "$T_TMP/why")"; }
# hide_bins, show_bins: the .bin files moved away and back (the text files' own cases)
hide_bins() { mv "$k/modules.dep.bin" "$k/modules.symbols.bin" "$T_TMP/"; }
show_bins() { mv "$T_TMP/modules.dep.bin" "$T_TMP/modules.symbols.bin" "$k/"; }
# falls_back NAME WHY
falls_back() { t_eq "$1" "$2" "$(cat "$T_TMP/why")"; }

if [ -z "$DEPMOD" ]; then
	t_skip "check from depmod's files" "kmod's depmod not installed"
	exit 0
fi
"$DEPMOD" -b "$root" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null

both "depmod run"
uses_bin "... depmod's .bin files used"
both "depmod run, -v --format json" -v --format json
t_expect current 0 env KSYMCHECK_NO_INDEX=1 "$KSC" check -v -k "$root" "$amd"
# with an index (made by the tree's read), check goes through it: the same output
KSYMCHECK_NO_DEPMOD=1 "$KSC" check -k "$root" "$amd" > /dev/null 2>&1
"$KSC" check -v -k "$root" "$amd" > "$T_TMP/out" 2> "$T_TMP/err"
t_diff "an index kept: the same output" "$T_EXPECTED/current.out" "$T_TMP/out"
rm -rf "$XDG_CACHE_HOME"
# depmod's files with the index: the first run keeps the records it read, the next one
# takes them from the index (no module decompressed); the same output both times
"$KSC" check -v -k "$root" "$amd" > "$T_TMP/out" 2> "$T_TMP/err"
t_diff "depmod's files, no index yet: the same output" "$T_EXPECTED/current.out" "$T_TMP/out"
t_eq "... the records read are kept in an index" 1 \
	"$(find "$XDG_CACHE_HOME/ksymcheck/tree" -name "$REL-*.idx" 2> /dev/null | wc -l)"
"$KSC" check -v -k "$root" "$amd" > "$T_TMP/out2" 2> "$T_TMP/err2"
t_diff "depmod's files through the index's records: the same output" "$T_EXPECTED/current.out" \
	"$T_TMP/out2"
t_diff "... and the same messages" "$T_TMP/err" "$T_TMP/err2"
# kvm.ko edited in place after the index kept its record (the same inode, its time put
# back before modules.dep's): judged from its new bytes, as the tree's read judges it
kvm=$k/kernel/arch/x86/kvm/kvm.ko
cp "$kvm" "$T_TMP/kvm.ko.orig"
cat "$M/kvm-dkms.ko" > "$kvm"
touch -r "$T_TMP/kvm.ko.orig" "$kvm"
"$KSC" check -v -k "$root" "$amd" > "$T_TMP/out" 2>&1
echo "exit $?" >> "$T_TMP/out"
KSYMCHECK_NO_DEPMOD=1 KSYMCHECK_NO_INDEX=1 "$KSC" check -v -k "$root" "$amd" > "$T_TMP/full.out" 2>&1
echo "exit $?" >> "$T_TMP/full.out"
t_diff "a provider edited in place after the index was kept: its new bytes judged" \
	"$T_TMP/full.out" "$T_TMP/out"
t_eq "... refused (the record's bytes loaded)" "exit 1" "$(tail -n 1 "$T_TMP/out")"
cat "$T_TMP/kvm.ko.orig" > "$kvm"
touch -r "$T_TMP/kvm.ko.orig" "$kvm"
# the index cut short, or a byte of its table by name changed: not used, the same output
idx=$(find "$XDG_CACHE_HOME/ksymcheck/tree" -name "$REL-*.idx")
for how in cut flip; do
	if [ $how = cut ]; then
		head -c 300 "$idx" > "$T_TMP/cut" && cat "$T_TMP/cut" > "$idx"
	else
		printf '\377' | dd of="$idx" bs=1 seek=$(($(stat -c %s "$idx") - 40)) conv=notrunc 2> /dev/null
	fi
	"$KSC" check -v -k "$root" "$amd" > "$T_TMP/out" 2> /dev/null
	t_diff "the index ($how): the same output" "$T_EXPECTED/current.out" "$T_TMP/out"
done
rm -rf "$XDG_CACHE_HOME"

# kvm-amd's provider replaced by the impostor in updates/dkms after depmod ran
mkdir -p "$k/updates/dkms"
cp "$M/kvm-dkms.ko" "$k/updates/dkms/kvm.ko"
both "a module added after depmod"
falls_back "... the tree is read: the module is not in modules.dep" \
	"a module modules.dep does not list"
"$DEPMOD" -b "$root" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null
both "depmod run again: the impostor wins kvm's name" -v
uses "... depmod's files used (a module outside kernel/ is always read)"
t_expect impostor 1 env KSYMCHECK_NO_INDEX=1 "$KSC" check -v -k "$root" "$amd"

touch -d '+1 hour' "$k/kernel/arch/x86/kvm/kvm-amd.ko"
both "a module newer than modules.dep"
falls_back "... the tree is read" "a module newer than modules.dep"
"$DEPMOD" -b "$root" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null
touch -d '-1 hour' "$k/kernel/arch/x86/kvm/kvm-amd.ko"

# The text files' own cases: without the .bin files (modprobe's), the text files are read
hide_bins
both "no .bin files"
text_road "... the text files used" "no modules.dep.bin and modules.symbols.bin"
cp "$k/modules.symbols" "$T_TMP/symbols"
grep -v ' kvm$' "$T_TMP/symbols" > "$k/modules.symbols"
touch -r "$T_TMP/symbols" "$k/modules.symbols"
both "modules.symbols without kvm's exports"
falls_back "... the tree is read" "a module's exports not as in modules.symbols"
sed 's/ kvm$/ kvm_amd/' "$T_TMP/symbols" > "$k/modules.symbols"
both "modules.symbols giving kvm's exports to kvm_amd"
falls_back "... the tree is read" "modules.symbols names an export a module lacks"
rm "$k/modules.symbols"
both "no modules.symbols"
falls_back "... the tree is read" "no modules.dep and modules.symbols"
cp "$T_TMP/symbols" "$k/modules.symbols"

cp "$k/modules.dep" "$T_TMP/dep"
echo "kernel/gone.ko:" >> "$k/modules.dep"
both "modules.dep listing a module that is not there"
falls_back "... the tree is read" "modules.dep lists a module depmod would not keep"
echo "garbage" >> "$k/modules.dep"
both "a modules.dep line not as depmod writes it"
falls_back "... the tree is read" "a line not as depmod writes it"
cp "$T_TMP/dep" "$k/modules.dep"
both "depmod's files restored"
uses "... depmod's files used again"
show_bins

# The .bin files: missing, not as depmod writes them, older than a module, of another
# tree; each time the text files answer instead, with the same output
both "the .bin files back"
uses_bin "... used"
mv "$k/modules.symbols.bin" "$T_TMP/"
both "no modules.symbols.bin"
text_road "... the text files used" "no modules.dep.bin and modules.symbols.bin"
cp "$T_TMP/modules.symbols.bin" "$k/"
cp "$k/modules.dep.bin" "$T_TMP/dep.bin"
printf 'XXXX' | dd of="$k/modules.dep.bin" conv=notrunc 2> /dev/null
both "modules.dep.bin's magic changed"
text_road "... the text files used" "a .bin file not as depmod writes it"
cp "$T_TMP/dep.bin" "$k/modules.dep.bin"
head -c $(($(stat -c %s "$T_TMP/modules.symbols.bin") / 2)) "$T_TMP/modules.symbols.bin" \
	> "$k/modules.symbols.bin"
both "modules.symbols.bin cut in half"
text_road "... the text files used" "a .bin file not as depmod writes it"
cp "$T_TMP/modules.symbols.bin" "$k/"
head -c $(($(stat -c %s "$T_TMP/dep.bin") - 3)) "$T_TMP/dep.bin" > "$k/modules.dep.bin"
both "modules.dep.bin three bytes short"
text_road "... the text files used" "a .bin file not as depmod writes it"
cp "$T_TMP/dep.bin" "$k/modules.dep.bin"
touch -d '-2 hours' "$k/modules.dep.bin"
both "modules.dep.bin older than the modules"
text_road "... the text files used" "a module newer than the .bin files"
# the .bin files of the tree without kvm-amd.ko, made current again by their times
mv "$k/kernel/arch/x86/kvm/kvm-amd.ko" "$T_TMP/kvm-amd.ko.away"
"$DEPMOD" -b "$root" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null
cp "$k/modules.dep.bin" "$k/modules.symbols.bin" "$T_TMP/"
mv "$T_TMP/kvm-amd.ko.away" "$k/kernel/arch/x86/kvm/kvm-amd.ko"
"$DEPMOD" -b "$root" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null
cp "$T_TMP/modules.dep.bin" "$T_TMP/modules.symbols.bin" "$k/"
touch "$k/modules.dep.bin" "$k/modules.symbols.bin"
both "the .bin files of the tree without kvm-amd.ko"
text_road "... the text files used" "a module modules.dep does not list"
"$DEPMOD" -b "$root" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null
both "depmod run again"
uses_bin "... the .bin files used"
t_expect roads 0 cat "$T_TMP/roads"

# A module this user may not read, that the check does not need: the tree's read says
# "Permission denied" of it (exit 4), so depmod's files, which would not read it, are not
# used. Root reads any file: as root, run as nobody (setpriv, util-linux).
# The tool is copied where nobody may run it (a fresh Debian root's /root is 0700).
AS_USER=()
ksc_own=$KSC
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	AS_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_CACHE_HOME=$T_TMP/xdg-nobody)
	chmod 755 "$T_TMP"
	cp "$KSC" "$T_TMP/ksymcheck" && chmod 755 "$T_TMP/ksymcheck" && KSC=$T_TMP/ksymcheck
	"${AS_USER[@]}" "$KSC" --version > /dev/null 2>&1 || AS_USER=()
fi
if [ "$(id -u)" != 0 ] || [ ${#AS_USER[@]} -gt 0 ]; then
	mkdir -p "$k/kernel/misc" "$T_TMP/xdg-nobody"
	chmod 777 "$T_TMP/xdg-nobody"
	chmod -R a+rX "$root" "$amd"
	cp "$M/kvm-amd.ko" "$k/kernel/misc/fx_unread.ko"
	"$DEPMOD" -b "$root" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null
	chmod 000 "$k/kernel/misc/fx_unread.ko"
	both "a module this user may not read"
	falls_back "... the tree is read" "a module this process may not read"
	st=$(sed -n 's/^exit \([0-9]*\)$/\1/p' "$T_TMP/full.out")
	t_eq "... which says why, its exit status with 4 (unreadable)" \
		"4 ksymcheck: $k/kernel/misc/fx_unread.ko: Permission denied" \
		"$((st & 4)) $(grep '^ksymcheck: .*fx_unread.ko: ' "$T_TMP/full.out")"
	chmod 644 "$k/kernel/misc/fx_unread.ko"
	both "the module readable again"
	uses "... depmod's files used"
	rm "$k/kernel/misc/fx_unread.ko"
	"$DEPMOD" -b "$root" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null
else
	t_skip "a module this user may not read" "needs a non-root user: root reads any file, and setpriv is missing or cannot run the tool"
fi
AS_USER=()
KSC=$ksc_own

# A dependency cycle made after depmod (which writes no files for a tree with one), the
# times put back: cyc's provider cya is read with what cya needs in turn (its line of
# modules.dep: cyb), so the cycle is seen as the tree's read sees it (R43). A line of
# modules.dep that leaves out a provider's own provider is not trusted.
CLANG=$(command -v clang || true)
if [ -n "$CLANG" ]; then
	mkdir -p "$k/kernel/cy"
	cy() { t_cy_module "$k/kernel/cy/cy$1.ko" "$1" "$2"; }
	cy a cyb_fn
	cy b _printk
	cy c cya_fn
	"$DEPMOD" -b "$root" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null
	cp "$k/kernel/cy/cyc.ko" "$T_TMP/cyc.ko"
	cy b cya_fn
	touch -r "$k/modules.dep" "$k/kernel/cy/cyb.ko"
	CHECKED=$T_TMP/cyc.ko both "a cycle made after depmod, its time put back"
	uses "... depmod's files used"
	t_grep "... the cycle seen" "dependency cycle cya -> cyb -> cya" "$T_TMP/fast.out"
	hide_bins
	sed -i 's|^kernel/cy/cya.ko:.*|kernel/cy/cya.ko:|; s|^\(kernel/cy/cyc.ko:.*\) kernel/cy/cyb.ko|\1|' \
		"$k/modules.dep"
	CHECKED=$T_TMP/cyc.ko both "cya's and cyc's lines of modules.dep without cyb"
	falls_back "... the tree is read" "a module needs one that its line of modules.dep does not name"
	rm -r "$k/kernel/cy"
	cp "$T_TMP/dep" "$k/modules.dep"
	show_bins
else
	t_skip "a cycle made after depmod" "no clang"
fi

# Only the headers installed: no module, the headers' Module.symvers names the exporters.
h=$T_TMP/headers
mkdir -p "$h/lib/modules/$REL/build" "$h/boot"
cp "$root/boot/config-$REL" "$h/boot/"
{ "$KSC" exports --format symvers "$root/boot/vmlinux-$REL"
  "$KSC" exports --format symvers "$M/kvm.ko"; } > "$h/lib/modules/$REL/build/Module.symvers"
t_expect headers-only 0 "$KSC" check -v -k "$h" "$amd"
t_expect headers-only-no-index 0 env KSYMCHECK_NO_INDEX=1 "$KSC" check -v -k "$h" "$amd"
# ... with a DKMS module below updates/ too (the usual headers-only system): still no
# in-tree module, so the same rows, through the tree's read and through depmod's files.
mkdir -p "$h/lib/modules/$REL/updates/dkms"
cp "$FIXTURES/demo/oot/fxdma.ko" "$h/lib/modules/$REL/updates/dkms/"
t_expect headers-dkms 0 env KSYMCHECK_NO_INDEX=1 KSYMCHECK_NO_DEPMOD=1 "$KSC" check -v -k "$h" "$amd"
"$DEPMOD" -b "$h" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null
KSYMCHECK_NO_INDEX=1 KSYMCHECK_DEBUG=1 "$KSC" check -k "$h" "$amd" 2>&1 > /dev/null |
	sed -n "s|^ksymcheck: debug: $h/lib/modules/$REL: depmod's files not used: ||p" > "$T_TMP/why"
t_eq "... depmod's files used" "" "$(cat "$T_TMP/why")"
t_expect headers-dkms-depmod 0 env KSYMCHECK_NO_INDEX=1 "$KSC" check -v -k "$h" "$amd"
t_diff "... the same output both ways" "$T_EXPECTED/headers-dkms.out" "$T_EXPECTED/headers-dkms-depmod.out"

# The headers' Module.symvers, its rows kept beside the index (ksc-symvers-cache.c): the
# run that finds the index's folder keeps them, the next takes them from there; the same
# output as the tree's read. Module.symvers edited in place (its times put back) is read
# again; a kept file that does not add up is not used.
sv=$h/lib/modules/$REL/build/Module.symvers
whole() { # FILE: the whole output without depmod's files, index or kept rows
	KSYMCHECK_NO_INDEX=1 KSYMCHECK_NO_DEPMOD=1 "$KSC" check -v -k "$h" "$amd" > "$1" 2>&1
	echo "exit $?" >> "$1"
}
kept() { # FILE: the whole output with them
	"$KSC" check -v -k "$h" "$amd" > "$1" 2>&1
	echo "exit $?" >> "$1"
}
rm -rf "$XDG_CACHE_HOME"
kept "$T_TMP/k1"
kept "$T_TMP/k2"
kept "$T_TMP/k3"
whole "$T_TMP/w"
t_eq "Module.symvers' rows kept beside the index" 1 \
	"$(find "$XDG_CACHE_HOME/ksymcheck/tree" -name "$REL-*.symvers" 2> /dev/null | wc -l)"
t_diff "... taken from there: the same output" "$T_TMP/w" "$T_TMP/k3"
cp -p "$sv" "$T_TMP/symvers.orig"
sed 's/^0x[0-9a-f]*\t\([^\t]*\)\tvmlinux/0x12345678\t\1\tvmlinux/' "$T_TMP/symvers.orig" > "$sv"
touch -r "$T_TMP/symvers.orig" "$sv"
kept "$T_TMP/k4"
whole "$T_TMP/w4"
t_diff "Module.symvers edited in place: read again" "$T_TMP/w4" "$T_TMP/k4"
t_eq "... its new CRCs judged" 1 "$(cmp -s "$T_TMP/k3" "$T_TMP/k4" || echo 1)"
kept "$T_TMP/k5"
t_diff "... and kept again" "$T_TMP/w4" "$T_TMP/k5"
c=$(find "$XDG_CACHE_HOME/ksymcheck/tree" -name "$REL-*.symvers")
for cut in 20 100 1000; do
	head -c "$cut" "$c" > "$T_TMP/cut" && cat "$T_TMP/cut" > "$c"
	kept "$T_TMP/k6"
	t_diff "the kept rows cut to $cut bytes: not used" "$T_TMP/w4" "$T_TMP/k6"
done
kept "$T_TMP/k7"
printf '\377' | dd of="$c" bs=1 seek=200 conv=notrunc 2> /dev/null
kept "$T_TMP/k8"
t_diff "a byte of the kept rows changed: not used" "$T_TMP/w4" "$T_TMP/k8"
printf 'x\tbad line\n' >> "$sv"
kept "$T_TMP/k9"
whole "$T_TMP/w9"
t_diff "a Module.symvers with a bad line: its message said" "$T_TMP/w9" "$T_TMP/k9"
kept "$T_TMP/k10"
t_diff "... on every run (not kept)" "$T_TMP/w9" "$T_TMP/k10"
t_eq "... its message" 1 "$(grep -c 'Module.symvers:[0-9]*:' "$T_TMP/k10")"
cp -p "$T_TMP/symvers.orig" "$sv"
