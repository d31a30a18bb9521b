# SPDX-License-Identifier: LGPL-2.1-or-later
# Kept signature verdicts (lib/readers/ksc-sig-memo.c): check -k of signed modules against
# a kernel whose image holds the signing key writes a verdict for each beside the key
# cache; the second run takes them (no key parsed, no signature verified) and prints
# exactly what the first, computing, run printed, with its exit status. The hostile
# records are tests/hostile/sigmemo.sh's.
. tests/lib.sh

S=$FIXTURES/signed
if [ ! -f "$S/rsa.der" ] || ! command -v "${OBJCOPY:-objcopy}" > /dev/null; then
	t_skip "sigmemo: kept verdicts" "no signed fixtures or no objcopy"
	exit 0
fi
R=$T_TMP/sigroot
t_signed_root "$R"

# valid (RSA), another key (ECDSA), edited after signing, unsigned
MODS=("$S/demo-kvm-rsa.ko" "$S/demo-kvm-amd-ec.ko" "$S/fx-user-edited.ko" "$FIXTURES/x86_64/fx-user.ko")
export XDG_CACHE_HOME=$T_TMP/xdg
t_expect sigmemo-first 1 "$KSC" check -k "$R" -v "${MODS[@]}"
cp "$T_TMP/out" "$T_TMP/first.out"
cp "$T_TMP/err" "$T_TMP/first.err"
t_eq "sigmemo: a verdict kept for each signed module" 3 \
	"$(find "$XDG_CACHE_HOME" -path '*.sigs/*' -type f | wc -l)"
t_expect sigmemo-first 1 "$KSC" check -k "$R" -v "${MODS[@]}"
t_diff "sigmemo: the kept run prints what the computing one printed" "$T_TMP/first.out" "$T_TMP/out"
t_diff "... on stderr too" "$T_TMP/first.err" "$T_TMP/err"
t_expect sigmemo-first-json 1 "$KSC" check -k "$R" --format json "${MODS[@]}"
rm -rf "$XDG_CACHE_HOME"
t_expect sigmemo-first-json 1 "$KSC" check -k "$R" --format json "${MODS[@]}"
exit 0
