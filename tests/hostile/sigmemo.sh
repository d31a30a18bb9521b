# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile kept signature verdicts (lib/readers/ksc-sig-memo.c: the CACHE.sigs folder
# beside the kernel's key cache, under XDG_CACHE_HOME). A record truncated, corrupted
# (its checksum no longer adds up), forged (another module's whole record, checksum
# valid, put in a tampered module's place), huge (a 1 GiB sparse file) or a FIFO is not
# taken: each check gives the output and exit status of a check with no memo at all,
# without a crash or a hang, and within the catalogue's cost.
. tests/lib.sh
. tests/hostile/lib.sh

S=$FIXTURES/signed
if [ ! -f "$S/rsa.der" ] || ! command -v "${OBJCOPY:-objcopy}" > /dev/null; then
	t_skip "sigmemo: hostile kept verdicts" "no signed fixtures or no objcopy"
	exit 0
fi
# the sample kernel, its image holding rsa.der as its built-in key, signatures verified
R=$T_TMP/sigroot
t_signed_root "$R"

# check -k of MODULES with a cache folder XDG (made empty first when FRESH is "fresh")
run() {
	local xdg=$1 fresh=$2
	shift 2
	[ "$fresh" = fresh ] && rm -rf "$xdg"
	XDG_CACHE_HOME=$xdg timeout 20 "$KSC" check -k "$R" -v "$@" > "$T_TMP/o" 2>&1 < /dev/null
	echo $? >> "$T_TMP/o"
}
records() { find "$1" -path '*.sigs/*' -type f 2> /dev/null | sort; }
# h_same NAME XDG MODULES...: the output of a check with XDG as it is is that of one with
# no memo at all (a new cache folder)
h_same() {
	local name=$1 xdg=$2
	shift 2
	run "$T_TMP/none" fresh "$@"
	mv "$T_TMP/o" "$T_TMP/want"
	run "$xdg" kept "$@"
	t_diff "$name" "$T_TMP/want" "$T_TMP/o"
}

MODS=("$S/demo-kvm-rsa.ko" "$S/demo-kvm-amd-ec.ko" "$S/fx-user-edited.ko")
X=$T_TMP/xdg
run "$X" fresh "${MODS[@]}"
t_eq "sigmemo: a record for each signed module" 3 "$(records "$X" | wc -l)"

for f in $(records "$X"); do head -c 40 "$f" > "$f.t" && mv "$f.t" "$f"; done
h_same "sigmemo: truncated records: the output of no memo" "$X" "${MODS[@]}"

run "$X" fresh "${MODS[@]}"
for f in $(records "$X"); do printf 'Z' | dd of="$f" bs=1 seek=200 conv=notrunc 2> /dev/null; done
h_same "sigmemo: corrupted records (checksum): the output of no memo" "$X" "${MODS[@]}"

# the good module's whole record (checksum valid) in the place of the edited one's
run "$X" fresh "$S/fx-user-rsa.ko"
good=$(records "$X")
run "$X" kept "$S/fx-user-edited.ko"
bad=$(records "$X" | grep -vxF "$good")
t_eq "sigmemo: the edited module has a record of its own" 1 "$(echo "$bad" | grep -c .)"
cp "$good" "$bad"
h_same "sigmemo: forged record (another module's): still refused" "$X" "$S/fx-user-edited.ko"
t_grep "... sig-rejected" "[sig-rejected]" "$T_TMP/o"

run "$X" fresh "${MODS[@]}"
for f in $(records "$X"); do rm -f "$f" && truncate -s 1G "$f"; done
h_same "sigmemo: huge records (1 GiB, sparse): the output of no memo" "$X" "${MODS[@]}"
XDG_CACHE_HOME=$X h_cost "sigmemo: huge records" "$KSC" check -k "$R" "${MODS[@]}"

run "$X" fresh "${MODS[@]}"
for f in $(records "$X"); do rm -f "$f" && mkfifo "$f"; done
h_same "sigmemo: FIFOs in the records' place: no hang, the output of no memo" "$X" "${MODS[@]}"
h_kind "sigmemo: ... the FIFO left as it is" p "$(find "$X" -path '*.sigs/*' -type p | head -n 1)"
exit 0
