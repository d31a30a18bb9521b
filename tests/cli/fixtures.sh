#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Check the test fixtures themselves, independently of libksymcheck: every fixture that
# `make fixtures` builds exists, has the intended ELF class, byte order, type and machine,
# and agrees with tests/fixtures/expected/. Module exports are checked through the local
# labels the kernel's macros leave in .symtab (__ksymtab_<sym>, __kstrtab_<sym>,
# __kstrtabns_<sym>, __crc_<sym>, __flags_<sym>), the vmlinux tables by decoding them;
# imports with readelf; .modinfo with `readelf -p`; compressed and signed copies byte for
# byte against their originals; malformed inputs for the one defect each should have.
# This catches fixture rot, not reader bugs.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"

EXP=tests/fixtures/expected
X86=$FIXTURES/x86_64
MODULES="fx-ptr2 fx-prel32-2 fx-ns54 fx-ptr3-54 fx-prel32-ns fx-ptr3 fx-65 fx-modns
	fx-kflagstab fx-kflagstab-missing fx-user fx-user-ext fx-kvm-amd"
CROSS_MODULES="fx-prel32-ns fx-ptr3 fx-modns fx-kflagstab fx-user fx-user-ext"
CROSS_ARCHES="i386 aarch64 s390x powerpc"

for tool in readelf od xz zstd gzip; do
	if ! command -v "$tool" > /dev/null; then
		t_skip "fixtures" "$tool not installed"
		exit 0
	fi
done
if [ ! -d "$FIXTURES" ]; then
	t_fail "fixtures built" "$FIXTURES does not exist (run make fixtures)"
	exit 0
fi

# ---- reading ELF files ------------------------------------------------------------------

# Printable ASCII by code, to turn bytes into strings without a process per character.
CHR=()
for c in {32..126}; do printf -v o '%03o' "$c"; printf -v "CHR[c]" '%b' "\\0$o"; done

# load FILE: BYTES (one number per byte), BE (0/1), PTR (4/8), CLASS, ETYPE, MACHINE
load() {
	read -r -d '' -a BYTES < <(od -An -v -tu1 "$1")
	CLASS=0 BE=0 PTR=0 ETYPE=-1 MACHINE=-1
	[ "${#BYTES[@]}" -ge 20 ] && [ "${BYTES[0]}" = 127 ] || return 0
	CLASS=$((BYTES[4] == 2 ? 64 : 32)) BE=$((BYTES[5] == 2)) PTR=$((BYTES[4] == 2 ? 8 : 4))
	ETYPE=$(uint 16 2) MACHINE=$(uint 18 2)
}

# uint OFFSET WIDTH: the unsigned integer at OFFSET in the file's byte order (a 64-bit
# value may print negative; compare such values only as numbers)
uint() {
	local off=$1 n=$2 v=0 i
	for ((i = 0; i < n; i++)); do
		if ((BE)); then v=$((v << 8 | BYTES[off + i]))
		else v=$((v << 8 | BYTES[off + n - 1 - i])); fi
	done
	echo "$v"
}
s32() { local v; v=$(uint "$1" 4); echo $(((v ^ 0x80000000) - 0x80000000)); }
crc_at() { printf '0x%08x' "$(uint "$1" 4)"; }

# cstr OFFSET: the NUL-terminated string at OFFSET
cstr() {
	local off=$1 s=""
	while ((off < ${#BYTES[@]} && BYTES[off] != 0)); do s+=${CHR[BYTES[off]]-?}; ((off++)); done
	printf '%s' "$s"
}

# sections FILE: SEC_TYPE, SEC_ADDR, SEC_OFF, SEC_SIZE, SEC_FLAGS by name; SEC_NAME by index
sections() {
	unset SEC_TYPE SEC_ADDR SEC_OFF SEC_SIZE SEC_FLAGS SEC_NAME
	declare -gA SEC_TYPE SEC_ADDR SEC_OFF SEC_SIZE SEC_FLAGS
	declare -ga SEC_NAME
	local idx name type addr off size es rest
	local -a more
	while read -r idx name type addr off size es rest; do
		read -r -a more <<< "$rest" # [flags] link info align
		SEC_NAME[idx]=$name SEC_TYPE[$name]=$type SEC_ADDR[$name]=$((0x$addr))
		SEC_OFF[$name]=$((0x$off)) SEC_SIZE[$name]=$((0x$size))
		SEC_FLAGS[$name]=""
		[ ${#more[@]} = 4 ] && SEC_FLAGS[$name]=${more[0]}
	done < <(readelf -SW "$1" 2> /dev/null | sed -n 's/^ *\[ *\([1-9][0-9]*\)\] /\1 /p')
}

# symbols FILE: SYM_VAL and SYM_SEC (section name or ABS) of the defined symbols by name;
# UNDEFS: the named undefined symbols in .symtab order, as "name BIND"
symbols() {
	unset SYM_VAL SYM_SEC
	declare -gA SYM_VAL SYM_SEC
	UNDEFS=()
	local val size type bind ndx name
	while read -r val size type bind _ ndx name; do
		[ -n "$name" ] || continue
		case $ndx in
		UND) UNDEFS+=("$name $bind"); continue ;;
		ABS|COM) SYM_SEC[$name]=$ndx ;;
		*) SYM_SEC[$name]=${SEC_NAME[ndx]} ;;
		esac
		SYM_VAL[$name]=$((0x$val))
	done < <(readelf -sW "$1" 2> /dev/null | sed -n 's/^ *[0-9]*: //p')
}

# ---- what each fixture should be ----------------------------------------------------------

# arch_ident ARCH: "class byte-order e_machine" of the fixtures built for ARCH
arch_ident() {
	case $1 in
	x86_64) echo "64 0 62" ;;
	i386) echo "32 0 3" ;;
	aarch64) echo "64 0 183" ;;
	s390x) echo "64 1 22" ;;
	powerpc) echo "32 1 20" ;;
	esac
}

# layout NAME: the export table layout of a fixture source
layout() {
	case $1 in
	fx-ptr2) echo ptr2 ;;
	fx-prel32-2) echo prel32-2 ;;
	fx-ns54) echo ns54 ;;
	fx-ptr3-54) echo ptr3-54 ;;
	fx-ptr3|fx-vmlinux-ptr) echo ptr3 ;;
	*) echo prel32 ;;
	esac
}

# entry_size LAYOUT: bytes per struct kernel_symbol (uses PTR)
entry_size() {
	case $1 in
	ptr2) echo $((2 * PTR)) ;;
	prel32-2) echo 8 ;;
	ptr3|ptr3-54) echo $((3 * PTR)) ;;
	*) echo 12 ;;
	esac
}

# ---- checks of one file: LABEL names it in messages, NAME is its expected/ stem ---------

# report WHAT: ok when ERRS is empty, else a failure listing ERRS
report() {
	if [ ${#ERRS[@]} -eq 0 ]; then t_ok "$LABEL: $1"; else t_fail "$LABEL: $1" "${ERRS[@]}"; fi
}

# size_is SECTION BYTES: the section has BYTES bytes (0: the section must be absent)
size_is() {
	local have=${SEC_SIZE[$1]-absent} want=$2
	[ "$want" = 0 ] && want=absent
	[ "$have" = "$want" ] || ERRS+=("$1: size $have, expected $want")
}

# check_ident ARCH ETYPE: ELF class, byte order, machine, type
check_ident() {
	t_eq "$LABEL: class, byte order, machine, type" "$(arch_ident "$1") $2" \
		"$CLASS $BE $MACHINE $ETYPE"
}

# check_modinfo FILE: the .modinfo strings, in order
check_modinfo() {
	readelf -p .modinfo "$1" 2> /dev/null | sed -n 's/^ *\[ *[0-9a-f]*\]  //p' > "$T_TMP/modinfo"
	t_diff "$LABEL: .modinfo" "$EXP/$NAME.modinfo" "$T_TMP/modinfo"
}

# check_this_module: .gnu.linkonce.this_module has the struct size and the name= name
check_this_module() {
	local want name_at=$((SEC_OFF[.gnu.linkonce.this_module] + (PTR == 8 ? 24 : 12)))
	want=$(sed -n 's/^name=//p' "$EXP/$NAME.modinfo")
	t_eq "$LABEL: struct module" "$((PTR == 8 ? 0x380 : 0x200)) $want" \
		"${SEC_SIZE[.gnu.linkonce.this_module]-absent} $(cstr "$name_at")"
}

# check_imports: undefined symbols in .symtab order, __versions, extended versions
check_imports() {
	local name bind crc ext i off names
	local -a vers=() ext_vers=() want_vers=() want_ext=()
	ERRS=()
	[ "$(cut -f1,2 "$EXP/$NAME.imports" | tr '\t' ' ')" = "$(printf '%s\n' "${UNDEFS[@]}")" ] ||
		ERRS+=("undefined symbols: ${UNDEFS[*]}")
	while IFS=$'\t' read -r name bind crc ext; do
		[ "$crc" = - ] || want_vers+=("$name $crc")
		[ "$ext" = - ] || want_ext+=("$name $ext")
	done < "$EXP/$NAME.imports"
	# modpost appends module_layout after the imports
	[ ${#want_vers[@]} = 0 ] || want_vers+=("module_layout 0x6e0a7d3c")
	[ ${#want_ext[@]} = 0 ] || want_ext+=("module_layout 0x6e0a7d3c")
	if [ -n "${SEC_SIZE[__versions]-}" ]; then
		off=${SEC_OFF[__versions]}
		for ((i = 0; i < SEC_SIZE[__versions] / 64; i++, off += 64)); do
			vers+=("$(cstr "$((off + PTR))") $(printf '0x%08x' "$(uint "$off" "$PTR")")")
		done
		((SEC_SIZE[__versions] % 64 == 0)) || ERRS+=("__versions: size ${SEC_SIZE[__versions]}")
	fi
	[ "${vers[*]}" = "${want_vers[*]}" ] || ERRS+=("__versions: ${vers[*]}")
	if [ -n "${SEC_SIZE[__version_ext_crcs]-}" ]; then
		off=${SEC_OFF[__version_ext_names]}
		for ((i = 0; i < SEC_SIZE[__version_ext_crcs] / 4; i++)); do
			name=$(cstr "$off")
			off=$((off + ${#name} + 1))
			ext_vers+=("$name $(crc_at "$((SEC_OFF[__version_ext_crcs] + 4 * i))")")
		done
		# the names end with one more NUL (the C string's terminator)
		names=$((SEC_OFF[__version_ext_names] + SEC_SIZE[__version_ext_names]))
		[ $((off + 1)) = "$names" ] || ERRS+=("__version_ext_names: length")
	fi
	[ "${ext_vers[*]}" = "${want_ext[*]}" ] || ERRS+=("extended versions: ${ext_vers[*]}")
	report "imports and versions"
}

# What the labels of an ET_REL fixture say (`-` when the label does not exist):
# label_entry LABEL ENTRY_SIZE: "section index" of a ksymtab entry label
label_entry() {
	local v=${SYM_VAL[$1]-}
	if [ -n "$v" ]; then echo "${SYM_SEC[$1]} $((v % $2 ? -1 : v / $2))"; else echo -; fi
}
# label_str LABEL: the string at a __ksymtab_strings label
label_str() {
	local v=${SYM_VAL[$1]-}
	if [ -n "$v" ] && [ "${SYM_SEC[$1]}" = __ksymtab_strings ]; then
		cstr $((SEC_OFF[__ksymtab_strings] + v))
	else
		echo -
	fi
}
# label_crc SYM: "section index crc" of __crc_SYM
label_crc() {
	local v=${SYM_VAL[__crc_$1]-} sec=${SYM_SEC[__crc_$1]-}
	if [ -n "$v" ]; then echo "$sec $((v / 4)) $(crc_at $((SEC_OFF[$sec] + v)))"; else echo -; fi
}
# label_flags SYM: "index bit0" of __flags_SYM in __kflagstab
label_flags() {
	local v=${SYM_VAL[__flags_$1]-}
	if [ -n "$v" ]; then echo "$v $(($(uint $((SEC_OFF[__kflagstab] + v)) 1) & 1))"; else echo -; fi
}

# check_relocs LAYOUT KFLAGS: one relocation per non-NULL field of each ksymtab entry
# (.rela on x86_64, arm64, s390x, powerpc; .rel on i386), all self-relative for the
# PREL32 layouts, all absolute for the pointer layouts; adds to ERRS
check_relocs() {
	local lay=$1 kflags=$2 fields=3 kind=absolute want got
	case $lay in ptr2|prel32-2) fields=2 ;; esac
	case $lay in prel32*|ns54) kind=self-relative ;; esac
	# per table: the entries' fields, less the NULL namespace of 5.4 entries without one
	want=$(awk -F'\t' -v k="$kflags" -v f="$fields" -v l="$lay" '
		{ n[k || $2 == "-"] += f - ((l == "ns54" || l == "ptr3-54") && $3 == "-") }
		END { printf "__ksymtab %d %s, __ksymtab_gpl %d %s", n[1], kind, n[0], kind }
		' kind="$kind" "$EXP/$NAME.exports")
	got=$(readelf -rW "$FILE" | awk '
		/^Relocation section/ { sec = $3; gsub(/\047|\.rela?/, "", sec) }
		/^[0-9a-f]+ / { n[sec]++; k[sec] = k[sec] ($3 ~ /(PC32|PREL32|REL32)$/ ? "s" : "a") }
		function kind(s) {
			if (k[s] ~ /^s+$/) return "self-relative"
			return k[s] ~ /^a*$/ ? "absolute" : "mixed"
		}
		END { printf "__ksymtab %d %s, __ksymtab_gpl %d %s", n["__ksymtab"],
		      kind("__ksymtab"), n["__ksymtab_gpl"], kind("__ksymtab_gpl") }')
	# an empty table has no relocations of either kind
	got=${got// 0 absolute/ 0 $kind}
	[ "$got" = "$want" ] || ERRS+=("relocations: $got, expected $want")
}

# check_module_exports: the export tables of an ET_REL fixture, through its labels
check_module_exports() {
	local exp=$EXP/$NAME.exports lay es kflags=0 name gpl ns crc tab label nslabel i want got
	local n_all n_plain c_plain c_gpl
	local -A index=()
	lay=$(layout "$NAME") es=$(entry_size "$lay")
	case $NAME in fx-kflagstab*) kflags=1 ;; esac # 7.1: everything in __ksymtab
	ERRS=()
	# entries, entries in __ksymtab, CRCs in __kcrctab, CRCs in __kcrctab_gpl
	read -r n_all n_plain c_plain c_gpl < <(awk -F'\t' -v k=$kflags '
		{ p = k || $2 == "-"; n++; np += p; cp += p && $4 != "-"; cg += !p && $4 != "-" }
		END { print n + 0, np + 0, cp + 0, cg + 0 }' "$exp")
	size_is __ksymtab $((n_plain * es))
	size_is __ksymtab_gpl $(((n_all - n_plain) * es))
	size_is __kcrctab $((c_plain * 4))
	size_is __kcrctab_gpl $((c_gpl * 4))
	size_is __kflagstab "$([ "$NAME" = fx-kflagstab ] && echo "$n_all" || echo 0)"
	if [ "$n_all" -gt 0 ]; then
		# C arrays up to 5.4, mergeable strings from asm since 5.5
		case $lay in
		ptr2|prel32-2|ns54|ptr3-54) want=A ;;
		*) want=AMS ;;
		esac
		[ "${SEC_FLAGS[__ksymtab_strings]}" = $want ] ||
			ERRS+=("__ksymtab_strings: flags ${SEC_FLAGS[__ksymtab_strings]}, expected $want")
	fi
	check_relocs "$lay" "$kflags"
	while IFS=$'\t' read -r name gpl ns crc; do
		tab=__ksymtab
		[ "$gpl" = GPL ] && ((!kflags)) && tab=__ksymtab_gpl
		i=${index[$tab]-0}
		index[$tab]=$((i + 1))
		# labels: 5.4 marks namespaced entries __ksymtab_<sym>.<NS> with the namespace in
		# __kstrtab_ns_<sym>; 5.5+ gives every entry a __kstrtabns_<sym>, "" for none
		label=__ksymtab_$name nslabel=""
		case $lay in
		ns54|ptr3-54) [ "$ns" = - ] || label=$label.$ns nslabel=__kstrtab_ns_$name ;;
		prel32|ptr3) nslabel=__kstrtabns_$name ;;
		esac
		want="$tab $i|$name|-"
		[ "$crc" = - ] || want="$tab $i|$name|${tab/ksymtab/kcrctab} $i $crc"
		got="$(label_entry "$label" "$es")|$(label_str "__kstrtab_$name")|$(label_crc "$name")"
		if [ -n "$nslabel" ]; then
			want+="|${ns#-}" got+="|$(label_str "$nslabel")"
		else # no namespace string at all
			want+="|$ns" got+="|-"
			[ -z "${SYM_VAL[__kstrtabns_$name]-}${SYM_VAL[__kstrtab_ns_$name]-}" ] ||
				got+=" (but a namespace string)"
		fi
		if [ "$NAME" = fx-kflagstab ]; then
			want+="|$i $([ "$gpl" = GPL ] && echo 1 || echo 0)" got+="|$(label_flags "$name")"
		fi
		[ "$got" = "$want" ] || ERRS+=("$name: labels say '$got', expected '$want'")
	done < "$exp"
	report "export tables"
}

# check_module NAME ARCH: one module fixture
check_module() {
	local f=$FIXTURES/$2/$1.ko
	NAME=$1 LABEL=$2/$1.ko FILE=$f
	if [ ! -f "$f" ]; then
		t_fail "$LABEL: exists" "$f is missing"
		return
	fi
	load "$f"; sections "$f"; symbols "$f"
	check_ident "$2" 1
	check_modinfo "$f"
	check_this_module
	check_imports
	check_module_exports
}

# va_off SECTION VA: the file offset of a virtual address inside SECTION
va_off() { echo $(($2 - SEC_ADDR[$1] + SEC_OFF[$1])); }

# check_vmlinux NAME: an ET_EXEC without relocations whose decoded tables are as expected
check_vmlinux() {
	local f=$X86/$1 lay es tab i entry va name ns gpl
	NAME=$1 LABEL=x86_64/$1
	if [ ! -f "$f" ]; then
		t_fail "$LABEL: exists" "$f is missing"
		return
	fi
	load "$f"; sections "$f"
	check_ident x86_64 2
	ERRS=()
	for tab in "${!SEC_TYPE[@]}"; do
		case ${SEC_TYPE[$tab]} in REL|RELA) ERRS+=("relocation section $tab") ;; esac
	done
	size_is .modinfo 0
	report "no relocations, no .modinfo"
	lay=$(layout "$1") es=$(entry_size "$lay")
	: > "$T_TMP/exports"
	for tab in __ksymtab __ksymtab_gpl; do
		gpl=$([ $tab = __ksymtab_gpl ] && echo GPL || echo -)
		for ((i = 0; i < ${SEC_SIZE[$tab]-0} / es; i++)); do
			entry=$((SEC_OFF[$tab] + i * es)) va=$((SEC_ADDR[$tab] + i * es))
			if [ "$lay" = prel32 ]; then # target = address of the field + its s32 value
				name=$(cstr "$(va_off __ksymtab_strings $((va + 4 + $(s32 "$((entry + 4))"))))")
				ns=$(cstr "$(va_off __ksymtab_strings $((va + 8 + $(s32 "$((entry + 8))"))))")
			else
				name=$(cstr "$(va_off __ksymtab_strings "$(uint "$((entry + PTR))" "$PTR")")")
				ns=$(cstr "$(va_off __ksymtab_strings "$(uint "$((entry + 2 * PTR))" "$PTR")")")
			fi
			printf '%s\t%s\t%s\t%s\n' "$name" "$gpl" "${ns:--}" \
				"$(crc_at "$((SEC_OFF[${tab/ksymtab/kcrctab}] + 4 * i))")" >> "$T_TMP/exports"
		done
	done
	t_diff "$LABEL: decoded export tables" "$EXP/$1.exports" "$T_TMP/exports"
}

# check_copy FILE ORIGINAL MAGIC DECOMPRESS...: a compressed copy of ORIGINAL
check_copy() {
	local f=$1 orig=$2 magic=$3 got
	shift 3
	got=$(od -An -tx1 -N$((${#magic} / 2)) "$f" 2> /dev/null | tr -d ' \n')
	if [ "$got" != "$magic" ]; then
		t_fail "${f#"$FIXTURES"/}: magic" "starts with '$got', expected $magic"
	elif "$@" < "$f" 2> /dev/null | cmp -s - "$orig"; then
		t_ok "${f#"$FIXTURES"/}: decompresses to $(basename "$orig")"
	else
		t_fail "${f#"$FIXTURES"/}: decompresses to $(basename "$orig")"
	fi
}

# ---- modules and vmlinux ------------------------------------------------------------------

for name in $MODULES; do check_module "$name" x86_64; done
for arch in $CROSS_ARCHES; do
	for name in $CROSS_MODULES; do check_module "$name" "$arch"; done
done
check_vmlinux fx-vmlinux-prel32
check_vmlinux fx-vmlinux-ptr

# ---- compressed and signed copies ---------------------------------------------------------

XZ=fd377a585a00 ZST=28b52ffd GZ=1f8b
check_copy "$X86/fx-user.ko.xz" "$X86/fx-user.ko" $XZ xz -dc
check_copy "$X86/fx-modns.ko.xz" "$X86/fx-modns.ko" $XZ xz -dc
check_copy "$X86/fx-user-signed.ko.xz" "$X86/fx-user-signed.ko" $XZ xz -dc
check_copy "$X86/fx-user.ko.zst" "$X86/fx-user.ko" $ZST zstd -dcq
check_copy "$X86/fx-kvm-amd.ko.zst" "$X86/fx-kvm-amd.ko" $ZST zstd -dcq
check_copy "$X86/fx-user.ko.gz" "$X86/fx-user.ko" $GZ gzip -dc
check_copy "$X86/fx-user-is-xz.ko" "$X86/fx-user.ko" $XZ xz -dc
check_copy "$X86/fx-user-is-zst.ko.gz" "$X86/fx-user.ko" $ZST zstd -dcq
t_eq "x86_64/fx-user.ko.xz: CRC32 check, as the kernel's modules use" CRC32 \
	"$(xz --robot --list "$X86/fx-user.ko.xz" 2> /dev/null | awk '$1 == "file" { print $7 }')"

# the module, a 64-byte signature, struct module_signature (id_type 2 at +2, be32
# sig_len at +8), the magic
f=$X86/fx-user-signed.ko
orig=$(stat -c %s "$X86/fx-user.ko" 2> /dev/null || echo 0)
load "$f"
BE=1
t_eq "x86_64/fx-user-signed.ko: fx-user.ko + signature trailer" \
	"$((orig + 104)) same 2 64 ~Module signature appended~|" \
	"${#BYTES[@]} $(head -c "$orig" "$f" | cmp -s - "$X86/fx-user.ko" && echo same) \
$(uint "$((orig + 66))" 1) $(uint "$((orig + 72))" 4) $(tail -c 28 "$f" | tr '\n' '|')"

# ---- malformed inputs ---------------------------------------------------------------------

t_eq "bad/: exactly the files of tests/fixtures/bad.list" \
	"$(cut -f1 tests/fixtures/bad.list | sort)" "$(cd "$FIXTURES" && printf '%s\n' bad/* | sort)"

# bad_is FILE WHAT WANT CMD...: `CMD FILE` prints WANT, the value of WHAT
bad_is() {
	local name=$1 what=$2 want=$3
	shift 3
	t_eq "bad/$name: $what = $want" "$want" "$("$@" "$FIXTURES/bad/$name" 2> /dev/null)"
}
file_size() { stat -c %s "$1"; }
elf_ident() { load "$1"; echo "$ETYPE $MACHINE"; }
shoff_past_end() { load "$1"; echo $(($(uint 40 8) - ${#BYTES[@]})); }
section_names() { readelf -SW "$1" | grep -o '<corrupt>'; }
first_import() { readelf -sW "$1" | awk '$7 == "UND" && $8 != "" { print $8; exit }'; }
modinfo_last_byte() {
	load "$1"; sections "$1"
	cstr $((SEC_OFF[.modinfo] + SEC_SIZE[.modinfo] - 1))
}
versions_rest() { sections "$1"; echo $((SEC_SIZE[__versions] % 64)); }
modinfo_past_end() {
	sections "$1"
	echo $((SEC_OFF[.modinfo] + SEC_SIZE[.modinfo] - $(file_size "$1")))
}
rela_offset_past() {
	load "$1"; sections "$1"
	echo $(($(uint "${SEC_OFF[.rela__ksymtab]}" 8) - SEC_SIZE[__ksymtab]))
}
rela_sym_past() {
	load "$1"; sections "$1"
	echo $((($(uint "$((SEC_OFF[.rela__ksymtab] + 8))" 8) >> 32) - SEC_SIZE[.symtab] / 24))
}
stream() { "${@:1:$#-1}" < "${!#}" > /dev/null 2>&1 && echo intact || echo broken; }
is_dir() { [ -d "$1" ] && echo yes; }
elf_exec() { load "$1"; case $ETYPE in 2|3) echo yes ;; esac; }
has_modinfo() { sections "$1"; [ -n "${SEC_SIZE[.modinfo]-}" ] && echo yes || echo no; }

bad_is empty.ko "size" 0 file_size
bad_is truncated-header.ko "size" 20 file_size
bad_is shoff-past-eof.ko "e_shoff - file size" 4096 shoff_past_end
bad_is shstr-name-oob.ko "section name" "<corrupt>" section_names
bad_is symname-oob.ko "first import's name" "<corrupt>" first_import
bad_is modinfo-unterminated.ko "last .modinfo byte" x modinfo_last_byte
bad_is versions-size.ko "__versions size % 64" 56 versions_rest
bad_is section-past-eof.ko ".modinfo end - file size" 64 modinfo_past_end
bad_is reloc-oob.ko "r_offset - __ksymtab size" 8 rela_offset_past
bad_is reloc-sym-oob.ko "symbol index - .symtab count" 16 rela_sym_past
for kind in corrupt truncated; do
	bad_is $kind.ko.xz "stream" broken stream xz -dc
	bad_is $kind.ko.zst "stream" broken stream zstd -dcq
	bad_is $kind.ko.gz "stream" broken stream gzip -dc
done
bad_is dir.ko "directory" yes is_dir
bad_is text.ko "text" "This is a text file, not a kernel module." cat
bad_is not-kernel-exec.ko "ELF executable" yes elf_exec
bad_is not-kernel-exec.ko ".modinfo" no has_modinfo
bad_is not-a-module.ko "e_type, e_machine" "1 62" elf_ident
bad_is not-a-module.ko ".modinfo" no has_modinfo
bad_is unsupported-machine.ko "e_type, e_machine (EM_BPF)" "1 247" elf_ident
bad_is unsupported-machine.ko ".modinfo" yes has_modinfo
