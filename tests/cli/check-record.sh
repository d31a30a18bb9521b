# SPDX-License-Identifier: LGPL-2.1-or-later
# `check -k ROOT MODULE` where MODULE is one of ROOT's installed modules: with the index
# current (ksc_kernel_root_read_module(), lib/kernel/ksc-kernel-open.c), the module comes
# from its record, not from its file, and every output is the file's read byte for byte:
# text -v, JSON, SARIF and the kernel's lines, messages and exit status included, the
# path printed the one given (the tree's, a relative one, a link or a hard link from
# outside the tree), the signature verdict from the record's digest (a key of --cert, a
# signed module edited afterwards) and a parameter's mode (R42). A file edited in place
# with its times put back, a copy outside the tree and a module the reader refuses are
# read. Whole outputs against tests/expected/check-record/.
. tests/lib.sh
REL=6.16.0-demo
M=$FIXTURES/demo/modset
S=$FIXTURES/signed
DEPMOD=$(PATH=$PATH:/usr/sbin:/sbin command -v depmod || true)
export LC_ALL=C

if [ ! -f "$S/demo-kvm-amd-ec.ko" ] || ! command -v xz > /dev/null; then
	t_skip "check from the index's records" "no signed fixtures or no xz"
	exit 0
fi
root=$T_TMP/root
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"
k=$root/lib/modules/$REL
mkdir -p "$k/kernel/arch/x86/kvm" "$k/kernel/fx"
cp "$S/demo-kvm-rsa.ko" "$k/kernel/arch/x86/kvm/kvm.ko"
xz -c "$S/demo-kvm-amd-ec.ko" > "$k/kernel/arch/x86/kvm/kvm-amd.ko.xz"
cp "$S/fx-user-edited.ko" "$k/kernel/fx/fx-user.ko"
cp "$FIXTURES/bad/versions-size.ko" "$k/kernel/fx/versions-size.ko"
mods=("$k/kernel/arch/x86/kvm/kvm-amd.ko.xz" "$k/kernel/fx/fx-user.ko"
      "$k/kernel/virt/kvm/fx-modns.ko" "$k/kernel/fx/versions-size.ko")
# a parameter with execute bits (R42), when clang is here to assemble its __param table
if command -v clang > /dev/null; then
	cat > "$T_TMP/fx-param.S" <<'ASM'
#include "kmod-asm.h"
IMPORT(kfree)
MODINFO(license, "GPL")
MODINFO(parmtype, "debug:int")
MODINFO(name, "fx_param")
MODINFO(vermagic, "6.16.0 SMP preempt mod_unload modversions ")
THIS_MODULE("fx_param")
	.section .rodata.str1.1, "aMS", @progbits, 1
.Ldebug: .asciz "debug"
	.data
.Lv: .zero 8
	.section __param, "a"
	.balign 8
	.quad .Ldebug, __this_module, kfree
	.short 0111
	.byte -1, 0
	.long 0
	.quad .Lv
ASM
	clang --target=x86_64-linux-gnu -c -I tests/fixtures/src "$T_TMP/fx-param.S" \
		-o "$k/kernel/fx/fx-param.ko" && mods+=("$k/kernel/fx/fx-param.ko")
fi
# modules.dep and modules.symbols when kmod's depmod is here (the road of depmod's files);
# without them the whole tree is read, each module from the index all the same
[ -n "$DEPMOD" ] && "$DEPMOD" -b "$root" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null
# the files a second older, so that the index's keys are not racy
find "$root" -type f -exec touch -d '-1 minute' {} +
KEYS=(--cert "$S/rsa.pem" --cert "$S/ec.pem")

# run NAME OUT [ARGS...]: check every module of "${mods[@]}" (or $CHECKED), stdout, stderr
# and exit status into OUT
run() {
	local out=$2; shift 2
	"$KSC" check -k "$root" "${KEYS[@]}" "$@" "${CHECKED[@]:-${mods[@]}}" > "$out" 2> "$out.err"
	echo "exit $?" >> "$out"
	cat "$out.err" >> "$out"
}
# from_index: how many modules the last debug run took from the index's records
from_index() {
	KSYMCHECK_DEBUG=1 "$KSC" check -k "$root" "${KEYS[@]}" "${CHECKED[@]:-${mods[@]}}" 2>&1 \
		>/dev/null | grep -c ": from the index's record of " || true
}

# The reference: every file read, no index
t_expect files 4 env KSYMCHECK_NO_INDEX=1 "$KSC" check -v -k "$root" "${KEYS[@]}" "${mods[@]}"
t_grep "... the edited signed module: its signature does not verify" "intree-bad-signature" "$T_TMP/out"
t_grep "... the unreadable module is said" "versions-size.ko: __versions size" "$T_TMP/err"
[ ${#mods[@]} -eq 5 ] && t_grep "... the parameter's mode (R42)" "param-perm" "$T_TMP/out"
t_eq "... no index: nothing from one" 0 "$(KSYMCHECK_NO_INDEX=1 from_index)"
# tree checks every module from its record: the parameter's mode is in the record
if [ ${#mods[@]} -eq 5 ]; then
	"$KSC" tree -b "$root" "$REL" --no-index > "$T_TMP/tree.out" 2>&1
	t_grep "tree: the parameter's mode from the record (R42)" \
		"kernel/fx/fx-param.ko: loader: warning: parameter debug has mode 0111" "$T_TMP/tree.out"
fi

# The first run with an index keeps the records it reads; then the modules come from them
run cold "$T_TMP/cold" -v
t_diff "no index yet: the same output" <(cat "$T_EXPECTED/files.out"; echo "exit 4"; cat "$T_EXPECTED/files.err") \
	<(t_normalize "$T_TMP/cold")
n=$(from_index)
# every module but the one the reader refuses
t_eq "the index kept: the modules from its records" $((${#mods[@]} - 1)) "$n"
for fmt in "-v" "--json" "--format sarif" "--format kernel" "-q"; do
	# shellcheck disable=SC2086
	KSYMCHECK_NO_INDEX=1 run ref "$T_TMP/ref" $fmt
	# shellcheck disable=SC2086
	run warm "$T_TMP/warm" $fmt
	t_diff "from the records, $fmt: the file's output byte for byte" "$T_TMP/ref" "$T_TMP/warm"
done

# nsdeps takes the same road: depmod's files, the modules from their records (the
# readable ones), the output of their files; and (at the end) the tree's whole read's
good=("${mods[@]/*versions-size.ko}")
good=(${good[@]})
nsdeps_same() { # NAME ENV...: nsdeps of "${good[@]}" with ENV, then as is: the same
	local name=$1 fmt; shift
	for fmt in "" "--json"; do
		# shellcheck disable=SC2086
		env "$@" "$KSC" nsdeps -k "$root" $fmt "${good[@]}" > "$T_TMP/ref" 2>&1
		echo "exit $?" >> "$T_TMP/ref"
		# shellcheck disable=SC2086
		"$KSC" nsdeps -k "$root" $fmt "${good[@]}" > "$T_TMP/warm" 2>&1
		echo "exit $?" >> "$T_TMP/warm"
		t_diff "nsdeps ${fmt:-text}: $name" "$T_TMP/ref" "$T_TMP/warm"
	done
}
nsdeps_same "from the records, the files' output" KSYMCHECK_NO_INDEX=1
t_eq "... the modules from the index" ${#good[@]} \
	"$(KSYMCHECK_DEBUG=1 "$KSC" nsdeps -k "$root" "${good[@]}" 2>&1 >/dev/null |
		grep -c ": from the index's record of ")"
if [ -n "$DEPMOD" ]; then
	t_eq "... and the kernel from depmod's files" 0 \
		"$(KSYMCHECK_DEBUG=1 "$KSC" nsdeps -k "$root" "${good[@]}" 2>&1 >/dev/null |
			grep -c "depmod's files not used")"
fi

# The path given is the path printed: relative, through a link or a hard link outside the
# tree (the same file: its record), a copy (another file: read)
ln -s "$k/kernel/arch/x86/kvm/kvm-amd.ko.xz" "$T_TMP/link-amd.ko.xz"
ln "$k/kernel/arch/x86/kvm/kvm-amd.ko.xz" "$T_TMP/hard-amd.ko.xz"
cp -p "$k/kernel/arch/x86/kvm/kvm-amd.ko.xz" "$T_TMP/copy-amd.ko.xz"
for how in link hard copy; do
	CHECKED=("$T_TMP/$how-amd.ko.xz")
	KSYMCHECK_NO_INDEX=1 run ref "$T_TMP/ref" --json
	run warm "$T_TMP/warm" --json
	t_diff "kvm-amd by a $how: the same output" "$T_TMP/ref" "$T_TMP/warm"
	t_grep "... its path as given" "\"$T_TMP/$how-amd.ko.xz\"" "$T_TMP/warm"
	t_eq "... from the index: $how" "$([ $how = copy ] && echo 0 || echo 1)" "$(from_index)"
done
CHECKED=("kvm/kvm-amd.ko.xz")
(cd "$k/kernel/arch/x86" && KSYMCHECK_NO_INDEX=1 run ref "$T_TMP/ref" -v)
(cd "$k/kernel/arch/x86" && run warm "$T_TMP/warm" -v)
t_diff "a relative path: the same output" "$T_TMP/ref" "$T_TMP/warm"
t_eq "... from the index" 1 "$(cd "$k/kernel/arch/x86" && from_index)"

# A module edited in place, its times put back: the record is stale, the file is read
CHECKED=("$k/kernel/virt/kvm/fx-modns.ko")
t_eq "fx-modns: from the index" 1 "$(from_index)"
f=$k/kernel/virt/kvm/fx-modns.ko
cp -p "$f" "$T_TMP/modns.orig"
cat "$FIXTURES/x86_64/fx-user.ko" > "$f"
touch -r "$T_TMP/modns.orig" "$f"
KSYMCHECK_NO_INDEX=1 run ref "$T_TMP/ref" -v
run warm "$T_TMP/warm" -v
t_diff "edited in place, its mtime put back: its new bytes judged" "$T_TMP/ref" "$T_TMP/warm"
t_eq "... not from the stale record" 0 "$(from_index)"
t_grep "... which are another module's" "fx_user" "$T_TMP/warm"

# A module outside the tree (a DKMS build in the current folder) is read as before
CHECKED=("fx-modns.ko")
cp "$T_TMP/modns.orig" "$T_TMP/fx-modns.ko"
(cd "$T_TMP" && KSYMCHECK_NO_INDEX=1 run ref "$T_TMP/ref" -v)
(cd "$T_TMP" && run warm "$T_TMP/warm" -v)
t_diff "a module outside the tree: the same output" "$T_TMP/ref" "$T_TMP/warm"
t_eq "... read from its file" 0 "$(cd "$T_TMP" && from_index)"

# A tree whose modules all read (depmod run again): nsdeps from depmod's files and the
# index's records says what the whole tree's read says
rm "$k/kernel/fx/versions-size.ko"
[ -n "$DEPMOD" ] && "$DEPMOD" -b "$root" -C "$T_TMP/no-such-folder" "$REL" 2> /dev/null
cat "$T_TMP/modns.orig" > "$f"
touch -r "$T_TMP/modns.orig" "$f"
nsdeps_same "the whole tree's output" KSYMCHECK_NO_DEPMOD=1 KSYMCHECK_NO_INDEX=1
