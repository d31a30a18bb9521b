#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The real module loader as the oracle of `ksymcheck check --view loader`: Debian's own
# 6.1 kernel is booted under qemu (scripts/qemu-load.sh, software emulation) and loads
# sets of modules, each set in a fixed order in one boot; what finit_module(2) returned
# and what the kernel logged are kept under $OUT/loader/<set>/ and compared with
# ksymcheck's prediction. tests/real/LOADER.md has the harness and the observed output.
#
# Sets (one boot each):
#   kbuild    the test modules of tests/real/kmods built by scripts/kbuild-modules.sh
#             into $OUT/kbuild. Cases that modpost rejects have no .ko there; they are
#             rebuilt here ($OUT/loader/force/<case>) with modpost's errors turned off
#             (KBUILD_MODPOST_WARN=1, KBUILD_NSDEPS=1 for -N, and a GPL-compatible
#             stand-in license that is patched back to the case's own license in the
#             .ko's .modinfo afterwards), so the loader can be asked about them too.
#             crc_victim.ko is loaded twice: as crc_symbol.ko (one __versions CRC
#             flipped) and as crc_layout.ko (the module_layout CRC flipped).
#   debian-a  real Debian modules: clean ones, a missing dependency, CRC/namespace/
#   debian-b  license/intree/vermagic/__versions edits, signature kept or stripped,
#   debian-c  forced load (no __versions), weak symbols, proprietary providers,
#   debian-d  duplicate exports, .modinfo name vs struct module name, staging/retpoline.
#             Edited copies are written to $OUT/loader/<set>/mods/.
#
# Per set: one TAP line for the boot; one per module checking the errno the loader gave
# against the value recorded in this file (the oracle must not drift silently); then, if
# `ksymcheck check` is there, `check --kernel $KDIR --kver $KVER --view loader
# --format kernel MODULES...` must print exactly dmesg.txt, and `--format json` must give
# each module the errno of results.txt and kernel_lines equal to dmesg-<module>.txt
# (tests/real/loadcmp.py, shared with loader72.sh).
# Without `check`, those lines are SKIPs and the oracle is printed as TAP comments.
#
# KSC_LOADER_SETS="kbuild debian-a" picks sets (default: all).
REAL_TESTS=("loader: Debian 6.1 under qemu loads the test modules (scripts/qemu-load.sh)")
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

if [ -f "$TOP/scripts/real-env.sh" ]; then
	# shellcheck source=scripts/real-env.sh
	. "$TOP/scripts/real-env.sh"
else
	rc=0
	KDIR=$("$TOP/scripts/fetch-debian-kernel.sh" 2> "$T_TMP/fetch.err") || rc=$?
	if [ $rc -eq 3 ]; then
		t_skip "${REAL_TESTS[0]}" "no Debian kernel packages ($(tail -n 1 "$T_TMP/fetch.err"))"
		exit 0
	elif [ $rc -ne 0 ]; then
		t_fail "${REAL_TESTS[0]}" "scripts/fetch-debian-kernel.sh failed: $(tail -n 2 "$T_TMP/fetch.err")"
		exit 1
	fi
	if [ -f "$KDIR/.kver" ]; then KVER=$(cat "$KDIR/.kver"); else
		KVER=$(basename "$(find "$KDIR/lib/modules" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)")
	fi
	MODDIR=$KDIR/lib/modules/$KVER
fi
export KDIR KVER

LDIR=$TOP/$OUT/loader
case "$OUT" in /*) LDIR=$OUT/loader ;; esac
mkdir -p "$LDIR"
SETS=${KSC_LOADER_SETS:-kbuild debian-a debian-b debian-c debian-d}

# ---------------------------------------------------------------------------------------
# kpatch IN OUT OP...: copy a module, editing it (tests/helpers/kpatch.py lists the ops)
kpatch() { python3 "$TOP/tests/helpers/kpatch.py" "$@"; }

# Per set: parallel arrays of module files and expected errno (empty: not checked).
declare -A SET_MODS=() SET_WANT=()
add_mod() { # SET FILE WANT
	SET_MODS[$1]+="$2"$'\n'
	SET_WANT[$1]+="$(basename "$2")"$'\t'"$3"$'\n'
}

# ---------------------------------------------------------------------------------------
# debian-* sets: DEST SOURCE(relative to $MODDIR/kernel) WANT OPS...
mk_debian() {
	local set=$1 dest=$2 src=$MODDIR/kernel/$3 want=$4
	shift 4
	local dir=$LDIR/$set/mods
	mkdir -p "$dir"
	if [ ! -f "$src" ]; then
		echo "# $set: $src is not in this kernel tree; $dest left out"
		return 0
	fi
	if ! kpatch "$src" "$dir/$dest" "$@" 2> "$T_TMP/kpatch.err"; then
		echo "# $set: $dest: $(cat "$T_TMP/kpatch.err"); left out"
		return 0
	fi
	add_mod "$set" "$dir/$dest" "$want"
}

setup_debian_a() {
	local s=debian-a
	rm -rf "$LDIR/$s/mods"
	mk_debian $s crc7.ko lib/crc7.ko 0
	mk_debian $s crc8.ko lib/crc8.ko 0
	mk_debian $s cordic.ko lib/math/cordic.ko 0
	# its dependency crc64 is not loaded yet
	mk_debian $s crc64_rocksoft_generic.ko crypto/crc64_rocksoft_generic.ko -2
	# edited but still signed: the signature check fails before anything else
	mk_debian $s ts_kmp-crcsig.ko lib/ts_kmp.ko -129 "crc|textsearch_register"
	mk_debian $s ts_bm-layout.ko lib/ts_bm.ko -8 strip "crc|module_layout"
	mk_debian $s ts_kmp-crc.ko lib/ts_kmp.ko -22 strip "crc|textsearch_register"
	mk_debian $s crc-itu-t-unsigned.ko lib/crc-itu-t.ko 0 strip
	mk_debian $s ofb-ns.ko crypto/ofb.ko -22 strip "modinfo-sub|import_ns|CRYPTO_INTERNAL|CRYPTO_INTERNAX"
	mk_debian $s michael_mic-lic.ko crypto/michael_mic.ko -2 strip "modinfo|license=GPL v2|license=GPL-v2"
	mk_debian $s crc64-oot.ko lib/crc64.ko 0 strip "modinfo|intree=Y|xntree=Y"
	mk_debian $s crc64_rocksoft_generic-2.ko crypto/crc64_rocksoft_generic.ko 0
}

setup_debian_b() {
	local s=debian-b
	rm -rf "$LDIR/$s/mods"
	mk_debian $s crc7-vermagic.ko lib/crc7.ko -8 strip "modinfo-sub|vermagic| preempt | preemxt "
	mk_debian $s crc8-allthree.ko lib/crc8.ko 0 strip "modinfo|intree=Y|xntree=Y" \
		"modinfo|license=Dual BSD/GPL|license=Dual BSD/XPL"
	mk_debian $s ts_fsm-mix.ko lib/ts_fsm.ko -22 strip "strtab|memcpy|memcpx" "crc|textsearch_register"
	mk_debian $s ts_kmp-mix.ko lib/ts_kmp.ko -2 strip "crc|textsearch_unregister" \
		"strtab|textsearch_register|textsearch_registex"
	# Debian's kernel fails a symbol with no __versions entry (patch "module: Disable
	# matching missing version CRC"); upstream only warns once and loads.
	mk_debian $s ts_kmp-nover.ko lib/ts_kmp.ko -22 strip "vername|textsearch_register|xextsearch_register"
	mk_debian $s ts_bm-nover.ko lib/ts_bm.ko -22 strip "vername|textsearch_register|xextsearch_register"
	mk_debian $s cordic-hicrc.ko lib/math/cordic.ko -22 strip "crchigh|__fentry__"
	mk_debian $s crc7.ko lib/crc7.ko 0
	mk_debian $s crc7-dup.ko lib/crc7.ko -17
}

setup_debian_c() {
	local s=debian-c
	rm -rf "$LDIR/$s/mods"
	# no __versions at all: forced load (CONFIG_MODULE_FORCE_LOAD=y), taint F
	mk_debian $s crc8-forced.ko lib/crc8.ko 0 strip "shstrtab|__versions|__xersions"
	mk_debian $s ts_fsm-weak.ko lib/ts_fsm.ko 0 strip "strtab|memcpy|memcpx" "weak|memcpx"
	mk_debian $s ts_bm-weakcrc.ko lib/ts_bm.ko -22 strip "weak|textsearch_register" "crc|textsearch_register"
	mk_debian $s crc64-prop.ko lib/crc64.ko 0 strip "modinfo|license=GPL v2|license=GPL-v2"
	mk_debian $s crc64_rocksoft_generic.ko crypto/crc64_rocksoft_generic.ko -2
	mk_debian $s crct10dif_common-prop.ko crypto/crct10dif_common.ko 0 strip "modinfo|license=GPL|license=BSD"
	mk_debian $s crct10dif_generic.ko crypto/crct10dif_generic.ko -2
}

setup_debian_d() {
	local s=debian-d
	rm -rf "$LDIR/$s/mods"
	mk_debian $s crc7.ko lib/crc7.ko 0
	# another name, same export: "exports duplicate symbol crc7_be (owned by crc7)"
	mk_debian $s crc7-dupexp.ko lib/crc7.ko -8 strip "modinfo|name=crc7|name=crc9" "thismod|crc7|crc9"
	# .modinfo name differs from struct module's: the CRC message uses the first, the
	# "Unknown symbol" line the second
	mk_debian $s crc8-modname.ko lib/crc8.ko -22 strip "modinfo|name=crc8|name=crcX" "crc|__x86_return_thunk"
	# retpoline=Y becomes staging=Y: both warnings, taint C
	mk_debian $s cordic-staging.ko lib/math/cordic.ko 0 strip "modinfo|retpoline=Y|staging=Y"
}

# ---------------------------------------------------------------------------------------
# kbuild set
KMODS=${KSC_KMODS:-$TOP/tests/real/kmods}
# Fixed load order; cases not listed here follow in name order. Expected errno per
# module file (empty: not checked here).
KBUILD_ORDER=(
	clean/clean.ko:0
	dual_bsd/dual_bsd.ko:0
	ns_present/ns_present.ko:0
	weak_unresolved/weak_unresolved.ko:0
	crc_victim/crc_symbol.ko:-22
	crc_victim/crc_layout.ko:-8
	ns_missing/ns_missing.ko:-22
	unresolved/unresolved.ko:-2
	many_unresolved/many_unresolved.ko:-2
	license_twice/license_twice.ko:0
	proprietary_provider/prop_provider.ko:0
	proprietary_provider/gpl_user_of_prop.ko:-2
	proprietary_provider/prop_user_then_gpl.ko:-2
	gplonly_misuse/gplonly_misuse.ko:-2
	gplv2_string/gplv2_string.ko:-2
	no_license/no_license.ko:-2
	no_license_unresolved/no_license_unresolved.ko:-2
	ns_gpl_proprietary/ns_gpl_proprietary.ko:-2
	mixed_errors/mixed_errors.ko:-2
)

# The kbuild dir scripts/kbuild-modules.sh prepares (an overlay of the headers package).
kbuild_overlay() {
	local k
	k=$(cd "$KDIR" && pwd -P)
	echo "$(dirname "$k")/kbuild-$KVER"
}

# force_build CASE: build a case modpost rejects, see the header. Prints the folder.
force_build() {
	local c=$1 dst=$LDIR/force/$1 ovl
	ovl=$(kbuild_overlay)
	[ -f "$ovl/Makefile" ] || { echo "no kbuild dir $ovl" > "$T_TMP/force-$c.err"; return 1; }
	local hash
	hash=$( { echo "force recipe 1 $KVER $ovl"; (cd "$KMODS/$c" && find . -type f | LC_ALL=C sort | xargs sha256sum); } | sha256sum | cut -c1-32)
	if [ "$(cat "$dst/.ksc-force" 2> /dev/null)" = "$hash" ]; then echo "$dst"; return 0; fi
	rm -rf "$dst"
	mkdir -p "$dst"
	cp -R "$KMODS/$c/." "$dst/"
	# Stand-in licenses: each GPL-incompatible MODULE_LICENSE/MODULE_INFO(license, ...)
	# string becomes a GPL-compatible one at least as long (unique per file); a file with
	# none gets MODULE_LICENSE("GPL"). .license-map: FILE TAB STAND-IN TAB ORIGINAL
	# (ORIGINAL empty: the entry is removed again).
	python3 - "$dst" > "$dst/.license-map" <<'EOF' || return 1
import glob, os, re, sys
OK = ["GPL", "GPL v2", "Dual BSD/GPL", "Dual MIT/GPL", "Dual MPL/GPL", "GPL and additional rights"]
pat = re.compile(r'(MODULE_LICENSE\(\s*"|MODULE_INFO\(\s*license\s*,\s*")([^"]*)(")')
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.c"))):
    src = open(path).read()
    comments = [m.span() for m in re.finditer(r"//[^\n]*|/\*.*?\*/", src, re.S)]
    def in_comment(m):
        return any(a <= m.start() < b for a, b in comments)
    used = set(m.group(2) for m in pat.finditer(src) if m.group(2) in OK and not in_comment(m))
    base = os.path.basename(path)[:-2]
    def sub(m):
        lic = m.group(2)
        if lic in OK or in_comment(m):
            return m.group(0)
        alt = next(x for x in OK if len(x) >= len(lic) and x not in used)
        used.add(alt)
        print("%s\t%s\t%s" % (base, alt, lic))
        return m.group(1) + alt + m.group(3)
    new = pat.sub(sub, src)
    if not any(not in_comment(m) for m in pat.finditer(src)):
        new += '\nMODULE_LICENSE("GPL");\n'
        print("%s\tGPL\t" % base)
    if new != src:
        open(path, "w").write(new)
EOF
	env -u KBUILD_EXTRA_SYMBOLS -u KBUILD_OUTPUT -u O -u ARCH -u CROSS_COMPILE -u CC -u LD \
		-u W -u C -u V -u KBUILD_VERBOSE -u KCFLAGS -u KCPPFLAGS -u KAFLAGS -u KBUILD_EXTRA_WARN \
		-u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u GNUMAKEFLAGS \
		LC_ALL=C make -C "$ovl" M="$dst" KBUILD_MODPOST_WARN=1 KBUILD_NSDEPS=1 modules \
		> "$dst/build.log" 2>&1 || { tail -n 5 "$dst/build.log" > "$T_TMP/force-$c.err"; return 1; }
	local f alt orig
	while IFS=$'\t' read -r f alt orig; do
		[ -f "$dst/$f.ko" ] || continue
		kpatch "$dst/$f.ko" "$dst/$f.ko.tmp" "modinfo|license=$alt|${orig:+license=$orig}" \
			2> "$T_TMP/force-$c.err" || return 1
		mv "$dst/$f.ko.tmp" "$dst/$f.ko"
	done < "$dst/.license-map"
	echo "$hash" > "$dst/.ksc-force"
	echo "$dst"
}

setup_kbuild() {
	local s=kbuild kb=$TOP/$OUT/kbuild rc=0
	case "$OUT" in /*) kb=$OUT/kbuild ;; esac
	if [ ! -f "$TOP/scripts/kbuild-modules.sh" ]; then
		t_skip "loader kbuild: test modules" "scripts/kbuild-modules.sh is not there yet"
		return 1
	fi
	KDIR=$KDIR bash "$TOP/scripts/kbuild-modules.sh" "$kb" > "$LDIR/kbuild-modules.log" 2>&1 || rc=$?
	if [ $rc -eq 3 ]; then
		t_skip "loader kbuild: test modules" "$(grep '^SKIP: ' "$LDIR/kbuild-modules.log" | tail -n 1)"
		return 1
	elif [ $rc -ne 0 ]; then
		echo "# scripts/kbuild-modules.sh exited $rc; see $LDIR/kbuild-modules.log"
	fi
	local dir=$LDIR/$s/mods
	rm -rf "$dir"
	mkdir -p "$dir"
	declare -A folder=()
	local c res
	for c in $(cd "$KMODS" && for d in */; do [ -f "$d/Kbuild" ] && echo "${d%/}"; done); do
		res=$(cat "$kb/$c/result" 2> /dev/null || echo missing)
		case $res in
		ko) folder[$c]=$kb/$c ;;
		modpost-failed)
			if folder[$c]=$(force_build "$c"); then :; else
				t_fail "loader kbuild: build $c with modpost errors off" "$(cat "$T_TMP/force-$c.err" 2> /dev/null)"
				unset "folder[$c]"
			fi ;;
		*) echo "# loader kbuild: case $c: $res in $kb; left out" ;;
		esac
	done
	# the load list
	local e rel want ko
	local order=("${KBUILD_ORDER[@]}")
	for c in $(printf '%s\n' "${!folder[@]}" | LC_ALL=C sort); do
		while IFS= read -r ko; do
			rel="$c/$(basename "$ko")"
			[ "$rel" = crc_victim/crc_victim.ko ] && continue # loaded as crc_symbol/crc_layout
			case " ${KBUILD_ORDER[*]} " in *" $rel:"*) ;; *) order+=("$rel:") ;; esac
		done < "${folder[$c]}/modules.order"
	done
	for e in "${order[@]}"; do
		rel=${e%:*} want=${e##*:}
		c=${rel%%/*}
		[ -n "${folder[$c]:-}" ] || continue
		case $rel in
		crc_victim/crc_symbol.ko | crc_victim/crc_layout.ko)
			local victim=${folder[$c]}/crc_victim.ko sym
			[ -f "$victim" ] || continue
			if [ "$rel" = crc_victim/crc_layout.ko ]; then sym=module_layout; else
				sym=$(LC_ALL=C "${KMOD_MODPROBE:-modprobe}" --dump-modversions "$victim" 2> /dev/null |
					awk '$2 == "debugfs_create_dir" { print $2 }')
				[ -n "$sym" ] || sym=$(LC_ALL=C "${KMOD_MODPROBE:-modprobe}" --dump-modversions "$victim" 2> /dev/null |
					awk '$2 != "module_layout" { print $2; exit }')
			fi
			kpatch "$victim" "$dir/$(basename "$rel")" strip "crc|$sym" ||
				{ t_fail "loader kbuild: patch $rel"; continue; }
			echo "# loader kbuild: $(basename "$rel") = crc_victim.ko with the CRC of $sym flipped"
			add_mod $s "$dir/$(basename "$rel")" "$want"
			;;
		*)
			[ -f "${folder[$c]}/$(basename "$rel")" ] || continue
			cp "${folder[$c]}/$(basename "$rel")" "$dir/"
			add_mod $s "$dir/$(basename "$rel")" "$want"
			;;
		esac
	done
}

# ---------------------------------------------------------------------------------------
have_check=0
"$KSC" check --help > /dev/null 2>&1 && have_check=1

run_set() { # SET
	local s=$1 d=$LDIR/$1
	[ -n "${SET_MODS[$s]:-}" ] || return 0
	local -a mods=()
	mapfile -t mods < <(printf '%s' "${SET_MODS[$s]}")
	local stamp
	stamp=$(cd / && sha256sum "${mods[@]}" "$TOP/scripts/qemu-load.sh" "$TOP/tests/helpers/finit.c" |
		sed 's|  .*/|  |' | sha256sum | cut -c1-32)
	if [ -n "${KSC_LOADER_REUSE:-}" ] && [ "$(cat "$d/.ksc-stamp" 2> /dev/null)" = "$stamp" ] &&
		[ -f "$d/results.txt" ]; then
		t_ok "loader $s: qemu boot with ${#mods[@]} modules (reused: KSC_LOADER_REUSE)"
	elif bash "$TOP/scripts/qemu-load.sh" "$d" "${mods[@]}" > "$d.log" 2>&1; then
		echo "$stamp" > "$d/.ksc-stamp"
		t_ok "loader $s: qemu boot with ${#mods[@]} modules ($(awk '$1 == "wall_seconds" { print $2 }' "$d/timing.txt") s)"
	else
		rm -f "$d/.ksc-stamp"
		t_fail "loader $s: qemu boot with ${#mods[@]} modules" "$(tail -n 8 "$d.log")"
		return 0
	fi

	# the oracle against the errno recorded here
	local b want rc name
	while IFS=$'\t' read -r b want; do
		[ -n "$want" ] || continue
		rc=$(awk -F'\t' -v b="$b" '$1 == b { print $2 }' "$d/results.txt")
		t_eq "loader $s/$b: the real loader returns $want" "$want" "$rc"
	done < <(printf '%s' "${SET_WANT[$s]}")

	if [ $have_check -eq 0 ]; then
		t_skip "loader $s: ksymcheck check --view loader agrees with the real loader" \
			"\`ksymcheck check\` is not there yet; the oracle follows"
		while IFS=$'\t' read -r b rc name; do
			echo "# $s/$b: rc=$rc $name"
			sed 's/^/#   | /' "$d/dmesg-$b.txt"
		done < "$d/results.txt"
		return 0
	fi

	# --insmod: the guest loads nothing but vmlinux and these modules, in this order.
	# Signatures are verified with the built-in keys ksymcheck finds in the kernel image
	# under --kernel (a signed module edited afterwards: -EKEYREJECTED, no message).
	local -a args=(check --kernel "$KDIR" --kver "$KVER" --view loader --insmod)
	local -a kmods=("${mods[@]}")
	"$KSC" "${args[@]}" --format kernel "${kmods[@]}" > "$d/ksymcheck-kernel.out" 2> "$d/ksymcheck-kernel.err"
	"$KSC" "${args[@]}" --format json "${kmods[@]}" > "$d/ksymcheck.json" 2> "$d/ksymcheck-json.err"
	# insmod's own "insmod: ERROR: could not insert module ..." lines are userspace output,
	# not kernel log: they are compared with nothing here (kept in ksymcheck-insmod.txt).
	grep -v '^insmod: ' "$d/ksymcheck-kernel.out" > "$d/ksymcheck-kernel.txt" || true
	grep '^insmod: ' "$d/ksymcheck-kernel.out" > "$d/ksymcheck-insmod.txt" || true
	t_diff "loader $s: ksymcheck --format kernel prints exactly the kernel's log" \
		"$d/dmesg.txt" "$d/ksymcheck-kernel.txt"
	python3 "$TOP/tests/real/loadcmp.py" --label "loader $s" --who ksymcheck \
		--results results.txt --dmesg 'dmesg-{}.txt' --json ksymcheck.json \
		--json-err ksymcheck-json.err "$d" "${kmods[@]}"
}

for s in $SETS; do
	case $s in
	kbuild) setup_kbuild || continue ;;
	debian-a) setup_debian_a ;;
	debian-b) setup_debian_b ;;
	debian-c) setup_debian_c ;;
	debian-d) setup_debian_d ;;
	*) t_fail "loader: unknown set $s (KSC_LOADER_SETS)"; continue ;;
	esac
	run_set "$s"
done
