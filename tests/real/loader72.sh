#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The real loader of a kernel with module-restricted exports (6.16 on: sid's 7.2 and
# experimental's 7.3) as the oracle of `ksymcheck check --view loader`. Debian's own kernel is booted under qemu
# (scripts/qemu-load.sh, software emulation, `-cpu max` so that kvm-amd finds SVM) and
# loads sets of modules, each set in a fixed order in one boot: Debian's kvm, its
# dependencies and kvm-amd/kvm-intel, edited copies of them (struct module name, .modinfo
# name, license, import_ns, signature kept or stripped, file renamed), and the test
# modules that the 7.2 kbuild lane built in a sid root (tests/real/kbuild72.sh), when
# they are there; on 7.3 also binfmt_misc and vmw_vsock_virtio_transport_common, whose
# exports 7.3 restricted, renamed. What finit_module(2) returned and what the kernel logged are kept under
# $OUT/loader72-<kernel>/<set>/ and compared with ksymcheck's prediction for the same
# modules in the same order, twice: with `--kernel ROOT --kver KVER` and with
# `--vmlinux VMLINUX --config CONFIG`.
#
# Unrelated kernel lines are filtered explicitly, never by a broad pattern: INIT_NOISE
# below lists the lines the modules' own init functions print (they are not the loader's
# and ksymcheck does not predict them). A module whose init function fails (kvm-intel
# without VMX: -EOPNOTSUPP) has its errno recorded with "/init": the loader's verdict,
# and so ksymcheck's, is 0.
#
# Per set: a TAP line for the boot; one per module for the errno against the value
# recorded here (the oracle must not drift silently); per way of naming the kernel: the
# --format kernel output against the filtered log, and per module the JSON errno and
# kernel_lines. tests/real/LOADER.md and doc/rules.md ("What the real kernels showed")
# have the observations.
#
# KSC_LOADER72_SETS="kvm-a kvm-b" picks sets (default: all).
# Real kernels: sid experimental
# shellcheck disable=SC2034 # read by scripts/real-env.sh
REAL_TESTS=("loader72: the real loader under qemu loads kvm and edited copies")
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

case $RULES in
[0-5].* | 6.[0-9] | 6.1[0-5]) real_skip_all "$REAL_LABEL has no module-restricted exports (6.16 on)" ;;
esac
LDIR=$TOP/$OUT/loader72-$REAL_KERNEL
case "$OUT" in /*) LDIR=$OUT/loader72-$REAL_KERNEL ;; esac
mkdir -p "$LDIR"
SETS=${KSC_LOADER72_SETS:-kvm-a kvm-b kvm-c x73 built}
export KDIR KVER KSC_QEMU_CPU=max

kpatch() { python3 "$TOP/tests/helpers/kpatch.py" "$@"; }

# Lines the modules' init functions print, exactly (one regular expression a line, each
# anchored): not the loader's, so left out of the comparison and listed in the log.
INIT_NOISE=(
	'^kvm_amd: Nested Virtualization enabled$'
	'^kvm_amd: Nested Paging enabled$'
	'^kvm_amd: Virtual GIF supported$'
	'^kvm_amd: PMU virtualization is disabled$'
	'^kvm_intel: VMX not supported by CPU 0$'
	'^NET: Registered PF_VSOCK protocol family$'
)

# Per set: module files and expected errno ("-95/init": finit_module's errno came from
# the module's init function; the loader, and ksymcheck, say 0).
declare -A SET_MODS=() SET_WANT=()
add_mod() { # SET FILE WANT
	SET_MODS[$1]+="$2"$'\n'
	SET_WANT[$1]+="$(basename "$2")"$'\t'"$3"$'\n'
}

# The uncompressed copy of a module of the tree (finit_module gets flags 0: no
# in-kernel decompression), made once per kernel.
plain() { # PATH relative to $MODDIR/kernel, without .ko*
	local dst=$LDIR/plain/$1.ko src
	if [ ! -s "$dst" ]; then
		src=$(find "$(dirname "$MODDIR/kernel/$1")" -maxdepth 1 -name "$(basename "$1").ko*" | head -n 1)
		[ -n "$src" ] || return 1
		mkdir -p "$(dirname "$dst")"
		case $src in
		*.xz) xz -dc "$src" > "$dst.tmp" ;;
		*.zst) zstd -qdc "$src" > "$dst.tmp" ;;
		*.gz) gzip -dc "$src" > "$dst.tmp" ;;
		*) cp "$src" "$dst.tmp" ;;
		esac || { rm -f "$dst.tmp"; return 1; }
		mv "$dst.tmp" "$dst"
	fi
	echo "$dst"
}

# put SET DEST SOURCE WANT OPS...: the set's DEST is the file SOURCE edited by OPS
# (tests/helpers/kpatch.py), loaded expecting WANT
put() {
	local set=$1 dest=$LDIR/$1/mods/$2 src=$3 want=$4
	shift 4
	mkdir -p "$LDIR/$set/mods"
	if ! kpatch "$src" "$dest" "$@" 2> "$T_TMP/kpatch.err"; then
		t_fail "loader72 $set: make $(basename "$dest")" "$(cat "$T_TMP/kpatch.err")"
		return 0
	fi
	add_mod "$set" "$dest" "$want"
}

# mk SET DEST SOURCE WANT OPS...: DEST is SOURCE (relative to $MODDIR/kernel) edited
mk() {
	local set=$1 dest=$2 rel=$3 want=$4 src
	shift 4
	if ! src=$(plain "$rel"); then
		echo "# $set: $rel is not in this kernel tree; $dest left out"
		return 0
	fi
	put "$set" "$dest" "$src" "$want" "$@"
}

KVM=arch/x86/kvm
AMD_DESC='description=KVM support for SVM (AMD-V) extensions'
setup_kvm_a() {
	local s=kvm-a
	rm -rf "$LDIR/$s/mods"
	mk $s irqbypass.ko virt/lib/irqbypass 0
	mk $s ccp.ko drivers/crypto/ccp/ccp 0
	mk $s kvm.ko $KVM/kvm 0
	# another struct module name, still signed: the signature no longer verifies
	mk $s kvm-amd-sig.ko $KVM/kvm-amd -129 "thismod|kvm_amd|kvm_xmd"
	# another struct module and .modinfo name, unsigned: every module:kvm-amd,kvm-intel
	# export is denied
	mk $s kvm-amd-other.ko $KVM/kvm-amd -22 strip "thismod|kvm_amd|kvm_xmd" "modinfo|name=kvm_amd|name=kvm_xmd"
	# importing a module: namespace is refused outright
	mk $s kvm-amd-import.ko $KVM/kvm-amd -1 strip "modinfo|$AMD_DESC|import_ns=module:kvm"
	# the file name does not matter to the loader: kvm_amd.ko is kvm_amd as kvm-amd.ko is
	mk $s kvm_amd.ko $KVM/kvm-amd 0
	mk $s kvm-amd.ko $KVM/kvm-amd -17
	# no VMX under TCG: kvm_intel's init function fails
	mk $s kvm-intel.ko $KVM/kvm-intel -95/init
}

setup_kvm_b() {
	local s=kvm-b
	rm -rf "$LDIR/$s/mods"
	mk $s irqbypass.ko virt/lib/irqbypass 0
	mk $s ccp.ko drivers/crypto/ccp/ccp 0
	mk $s kvm.ko $KVM/kvm 0
	# kvm_intel named kvm-amd: the list "kvm-amd,kvm-intel" grants it (its init then
	# fails: no VMX)
	mk $s kvm-intel-as-amd.ko $KVM/kvm-intel -95/init strip "thismod|kvm_intel|kvm-amd" \
		"modinfo|name=kvm_intel|name=kvm-amd"
	# upper case: no item matches
	mk $s kvm-intel-upper.ko $KVM/kvm-intel -22 strip "thismod|kvm_intel|KVM_INTEL" \
		"modinfo|name=kvm_intel|name=KVM_INTEL"
	# a prefix of a listed name: no item matches (no "*")
	mk $s kvm-intel-prefix.ko $KVM/kvm-intel -22 strip "thismod|kvm_intel|kvm_inte" \
		"modinfo|name=kvm_intel|name=kvm_inte"
	# only the .modinfo name differs: struct module's name decides
	mk $s kvm-amd-modinfo.ko $KVM/kvm-amd 0 strip "modinfo|name=kvm_amd|name=kvm_xmd"
	mk $s kvm-amd.ko $KVM/kvm-amd -17
}

setup_kvm_c() {
	local s=kvm-c
	rm -rf "$LDIR/$s/mods"
	mk $s irqbypass.ko virt/lib/irqbypass 0
	mk $s ccp.ko drivers/crypto/ccp/ccp 0
	mk $s kvm.ko $KVM/kvm 0
	# Proprietary: the restricted exports are GPL-only; the first unsigned module
	mk $s kvm-amd-prop.ko $KVM/kvm-amd -2 strip "modinfo|license=GPL|" "modinfo|$AMD_DESC|license=Proprietary"
	# a list item "kvm-amd" and the name kvm_amd (Debian's own module, signed)
	mk $s kvm-amd.ko $KVM/kvm-amd 0
}

# 7.3's new restrictions: binfmt_misc's inc_ucount/dec_ucount and
# vmw_vsock_virtio_transport_common's iov_iter_restore
setup_x73() {
	local s=x73
	case $RULES in 7.[0-2]) t_skip "loader72 $s: 7.3's new module: exports" "$REAL_LABEL has not got them"; return 1 ;; esac
	rm -rf "$LDIR/$s/mods"
	local vc=vmw_vsock_virtio_transport_common
	mk $s binfmt_mis.ko fs/binfmt_misc -22 strip "thismod|binfmt_misc|binfmt_mis" "modinfo|name=binfmt_misc|name=binfmt_mis"
	mk $s binfmt_misc.ko fs/binfmt_misc 0
	mk $s vsock.ko net/vmw_vsock/vsock 0
	mk $s $vc-x.ko net/vmw_vsock/$vc -22 strip "thismod|$vc|${vc%n}x" "modinfo|name=$vc|name=${vc%n}x"
	# hyphens for underscores: granted; the original then exports the same symbols
	mk $s vmw-vsock.ko net/vmw_vsock/$vc 0 strip "thismod|$vc|${vc//_/-}" "modinfo|name=$vc|name=${vc//_/-}"
	mk $s $vc.ko net/vmw_vsock/$vc -8
}

# The modules tests/real/kbuild72.sh built in the sid root (its lenient builds, so that
# what modpost refused has a .ko too), with ccp from the tree for kvm-amd's export.
# bmk SET DEST CASE/FILE WANT OPS...
bmk() {
	local set=$1 dest=$2 src=$BUILT/$3 want=$4
	shift 4
	if [ ! -f "$src" ]; then
		t_fail "loader72 $set: $src was not built (tests/real/kbuild72.sh)"
		return 0
	fi
	put "$set" "$dest" "$src" "$want" "$@"
}

setup_built() {
	local s=built
	BUILT=$TOP/$OUT/kbuild72-$REAL_KERNEL/lenient
	case "$OUT" in /*) BUILT=$OUT/kbuild72-$REAL_KERNEL/lenient ;; esac
	if [ ! -f "$BUILT/patterns/ksc_prov.ko" ]; then
		t_skip "loader72 $s: the modules built by the kbuild72 lane" \
			"$BUILT has none (tests/real/kbuild72.sh builds them, for sid)"
		return 1
	fi
	rm -rf "$LDIR/$s/mods"
	mkdir -p "$LDIR/$s/mods"
	mk $s ccp.ko drivers/crypto/ccp/ccp 0
	bmk $s ksc_prov.ko patterns/ksc_prov.ko 0
	# "*" and "ksc_a, ksc_b" grant; "kvm*", "", "KSC_A" and "*_a" do not
	bmk $s ksc_a.ko patterns/ksc_a.ko -22
	# "*" grants; " ksc_b" (the space) does not
	bmk $s ksc_b.ko patterns/ksc_b.ko -22
	# a wrong vermagic fails before any symbol is looked at
	bmk $s kvm_pat-vermagic.ko patterns/kvm_pat.ko -8 "modinfo-sub|vermagic| preempt | preemxt "
	bmk $s kvm_pat.ko patterns/kvm_pat.ko 0
	# file ksc-three-names, struct module name ksc_thre, .modinfo name ksc_three
	bmk $s ksc-three-names.ko patterns/ksc-three.ko -22 "thismod|ksc_three|ksc_thre"
	# file ksc-three, struct module ksc_three: "ksc-three" and "ksc_three" both grant
	bmk $s ksc-three.ko patterns/ksc-three.ko 0
	bmk $s ksc_user.ko restricted_user/ksc_user.ko -22
	# modpost refused kvm_amd.ko ("kvm_amd" is not "kvm-amd"); the loader grants it
	bmk $s kvm_amd.ko name_under/kvm_amd.ko 0
	bmk $s kvm-amd.ko name_dash/kvm-amd.ko -17
}

# filter_noise IN OUT: IN without the INIT_NOISE lines; prints how many were left out
filter_noise() {
	local re
	re=$(IFS='|'; echo "${INIT_NOISE[*]}")
	grep -Ev -- "$re" "$1" > "$2" || true
	grep -Ec -- "$re" "$1" || true
}

LINES_COMPARED=0 MODS_LOADED=0 BOOTS=0
run_set() { # SET
	local s=$1 d=$LDIR/$1
	[ -n "${SET_MODS[$s]:-}" ] || return 0
	local -a mods=()
	mapfile -t mods < <(printf '%s' "${SET_MODS[$s]}")
	if bash "$TOP/scripts/qemu-load.sh" "$d" "${mods[@]}" > "$d.log" 2>&1; then
		t_ok "loader72 $s: $REAL_LABEL boots under qemu and loads ${#mods[@]} modules ($(awk '$1 == "wall_seconds" { print $2 }' "$d/timing.txt") s)"
	else
		t_fail "loader72 $s: $REAL_LABEL boots under qemu and loads ${#mods[@]} modules" "$(tail -n 8 "$d.log")"
		return 0
	fi
	BOOTS=$((BOOTS + 1)) MODS_LOADED=$((MODS_LOADED + ${#mods[@]}))

	# the oracle against the errno recorded here; the loader's verdict for ksymcheck
	local b want rc name
	: > "$d/verdict.txt"
	while IFS=$'\t' read -r b want; do
		rc=$(awk -F'\t' -v b="$b" '$1 == b { print $2 }' "$d/results.txt")
		t_eq "loader72 $s/$b: the real loader returns ${want%/init}" "${want%/init}" "$rc"
		case $want in */init) rc=0 ;; esac
		printf '%s\t%s\n' "$b" "$rc" >> "$d/verdict.txt"
	done < <(printf '%s' "${SET_WANT[$s]}")

	local n
	n=$(filter_noise "$d/dmesg.txt" "$d/dmesg-loader.txt")
	echo "# loader72 $s: $n init-function lines left out, $(wc -l < "$d/dmesg-loader.txt") loader lines kept"
	for b in $(cut -f1 "$d/results.txt"); do
		filter_noise "$d/dmesg-$b.txt" "$d/dmesg-loader-$b.txt" > /dev/null
	done

	# the four predictions run side by side (--kernel reads the compressed image: seconds)
	local how
	for how in kernel vmlinux; do
		local -a args=(check --view loader --insmod)
		if [ $how = kernel ]; then args+=(--kernel "$KDIR" --kver "$KVER")
		else args+=(--vmlinux "$VMLINUX" --config "$CONFIG"); fi
		"$KSC" "${args[@]}" --format kernel "${mods[@]}" > "$d/ksc-$how.out" 2> "$d/ksc-$how.err" &
		"$KSC" "${args[@]}" --format json "${mods[@]}" > "$d/ksc-$how.json" 2> "$d/ksc-$how-json.err" &
	done
	wait
	for how in kernel vmlinux; do
		# insmod's own error lines are userspace output, not kernel log
		grep -v '^insmod: ' "$d/ksc-$how.out" > "$d/ksc-$how.txt" || true
		t_diff "loader72 $s: check --$how --format kernel prints exactly the kernel's log" \
			"$d/dmesg-loader.txt" "$d/ksc-$how.txt"
		LINES_COMPARED=$((LINES_COMPARED + $(wc -l < "$d/dmesg-loader.txt")))
		python3 "$TOP/tests/real/loadcmp.py" --label "loader72 $s" --who="--$how" \
			--results verdict.txt --dmesg 'dmesg-loader-{}.txt' --json "ksc-$how.json" \
			--json-err "ksc-$how-json.err" "$d" "${mods[@]}"
	done
}

start=$(real_now)
for s in $SETS; do
	case $s in
	kvm-a) setup_kvm_a ;;
	kvm-b) setup_kvm_b ;;
	kvm-c) setup_kvm_c ;;
	x73) setup_x73 || continue ;;
	built) setup_built || continue ;;
	*) t_fail "loader72: unknown set $s (KSC_LOADER72_SETS)"; continue ;;
	esac
	run_set "$s"
done
echo "# loader72 $REAL_LABEL: $BOOTS boots, $MODS_LOADED loads, $LINES_COMPARED kernel lines compared (both ways of naming the kernel), $(real_elapsed "$start") s"
