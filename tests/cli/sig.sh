# SPDX-License-Identifier: LGPL-2.1-or-later
# Module signatures on the command line: modinfo's signature fields (against kmod's own
# modinfo when it is there), check --cert and what the loader view makes of a valid, an
# edited, a foreign and a missing signature. The signed fixtures come from
# tests/fixtures/signed.mk (openssl and tests/helpers/sign-module.sh); without them
# these tests skip. Whole outputs are compared with tests/expected/sig/ (t_expect; make
# regen-expected), but for what changes with the keys each fixture build makes (the
# signature bytes, the ECDSA certificate's random serial number).
. tests/lib.sh
S=$FIXTURES/signed
X=$FIXTURES/x86_64

# ---- libcrypto is loaded when a signature is first looked at (lib/readers/ksc-crypto.h) ----------
# glibc's loader lists every library it loads under LD_DEBUG=files.
crypto_loads() {
	LD_DEBUG=files "$@" 2>&1 > /dev/null |
		grep -cE 'file=libcrypto\.so[.0-9]* \[[0-9]+\]; +(needed|dynamically loaded) by'
}
t_eq "--version does not load libcrypto" "0" "$(crypto_loads "$KSC" --version)"
t_eq "check of an unsigned module does not load it" "0" "$(crypto_loads "$KSC" check "$X/fx-user.ko")"
t_eq "modinfo of a module with a PKCS#7 block loads it, once" "1" "$(crypto_loads "$KSC" modinfo "$X/fx-user-signed.ko")"

if [ ! -f "$S/fx-user-rsa.ko" ] || [ ! -f "$S/two.pem" ]; then
	t_skip "signature CLI tests" "no signed fixtures: the openssl command is not installed (tests/fixtures/signed.mk)"
	exit 0
fi

# ---- modinfo -------------------------------------------------------------------------

# the issuer's CN, in argument order; the serial number as kmod prints it; sha512, then
# sha256 of the compressed copy; PKCS#7
t_expect modinfo-F-signer 0 "$KSC" modinfo -F signer "$S/fx-user-rsa.ko" "$S/fx-user-ec.ko"
t_expect modinfo-F-sig_key 0 "$KSC" modinfo -F sig_key "$S/fx-user-rsa.ko"
t_expect modinfo-F-sig_hashalgo 0 "$KSC" modinfo -F sig_hashalgo "$S/fx-user-rsa512.ko" "$S/fx-user-rsa.ko.xz"
t_expect modinfo-F-sig_id 0 "$KSC" modinfo -F sig_id "$S/fx-user-ec.ko"
t_run "modinfo -F signature" 0 "$KSC" modinfo -F signature "$S/fx-user-rsa.ko"
# 256 bytes: 12 full lines of 20 and one of 16; every line but the first starts with 2 tabs
t_eq "... 256 bytes wrapped as kmod wraps them" "13 12 20 16" \
	"$(awk -F: 'NR > 1 && /^\t\t/ { c++ } { n = NF - (NR < 13) } NR == 1 { f = n } END { print NR, c, f, n }' "$T_TMP/out")"
t_expect modinfo-F-signer-unsigned 0 "$KSC" modinfo -F signer "$X/fx-user.ko"
# a made-up PKCS#7 block: no signature lines (as kmod)
t_expect modinfo-made-up-pkcs7 0 "$KSC" modinfo "$X/fx-user-signed.ko"
t_run "modinfo --format json" 0 "$KSC" modinfo --format json "$S/fx-user-rsa.ko" "$X/fx-user.ko"
t_eq "... a signature object, null when unsigned" "PKCS#7|ksymcheck test RSA key|12:34:AB:CD|sha256|256 None" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["modules"]; s=j[0]["signature"]; print("|".join([s["id_type"], s["signer"], s["key_id"], s["hash_algo"], str(len(s["signature"].split(":")))]), j[1]["signature"])' "$T_TMP/out")"

# The same files through kmod's modinfo, when it decodes signatures (kmod with OpenSSL).
KMOD_MODINFO=$(command -v modinfo || ls /sbin/modinfo /usr/sbin/modinfo 2> /dev/null | head -n 1)
if [ -n "$KMOD_MODINFO" ] && "$KMOD_MODINFO" --version 2>&1 | grep -qE '\+(LIBCRYPTO|OPENSSL)'; then
	bad=""
	for f in "$S"/fx-user-*.ko "$S/fx-user-rsa.ko.xz" "$X/fx-user-signed.ko" "$X/fx-user.ko"; do
		# kmod prints the path as given when it is absolute
		case $f in /*) g=$f ;; *) g=$PWD/$f ;; esac
		"$KMOD_MODINFO" "$g" > "$T_TMP/kmod" 2>&1
		"$KSC" modinfo "$g" > "$T_TMP/ksc" 2>&1
		cmp -s "$T_TMP/kmod" "$T_TMP/ksc" || bad="$bad $(basename "$f")"
		for k in sig_id signer sig_key sig_hashalgo signature; do
			"$KMOD_MODINFO" -F $k "$g" > "$T_TMP/kmod" 2>&1
			"$KSC" modinfo -F $k "$g" > "$T_TMP/ksc" 2>&1
			cmp -s "$T_TMP/kmod" "$T_TMP/ksc" || bad="$bad $(basename "$f"):$k"
		done
	done
	t_eq "modinfo equals kmod's modinfo on every signed fixture (listing and -F)" "" "$bad"
else
	t_skip "modinfo equals kmod's modinfo on every signed fixture" "no kmod modinfo with OpenSSL"
fi

# ---- check ---------------------------------------------------------------------------

printf '0x1ea9b2c1\t_printk\tvmlinux\tEXPORT_SYMBOL\t\n0x037a0cba\tkfree\tvmlinux\tEXPORT_SYMBOL\t\n0xdeb0f5d1\tdebugfs_create_dir\tvmlinux\tEXPORT_SYMBOL_GPL\t\n0xd3ab0f00\tdma_buf_get\tvmlinux\tEXPORT_SYMBOL_GPL\tDMA_BUF\n' > "$T_TMP/Module.symvers"
printf 'CONFIG_MODVERSIONS=y\nCONFIG_MODULE_SIG=y\n' > "$T_TMP/config"
printf 'CONFIG_MODVERSIONS=y\nCONFIG_MODULE_SIG=y\nCONFIG_MODULE_SIG_FORCE=y\n' > "$T_TMP/config-force"
K=(check -s "$T_TMP/Module.symvers" --view loader)

t_expect check-valid 0 "$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$S/rsa.pem" -v "$S/fx-user-rsa.ko"

# EKEYREJECTED, and the kernel prints nothing; sig-rejected, under the loader's name
t_expect check-edited-kernel 1 "$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$S/rsa.pem" --format kernel "$S/fx-user-edited.ko"
t_expect check-edited-text 1 "$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$S/rsa.der" "$S/fx-user-edited.ko"
t_run "... json" 1 "$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$S/rsa.pem" --format json "$S/fx-user-edited.ko"
t_eq "... errno -129" "-129 EKEYREJECTED" "$(python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["modules"][0]["loader"]; print(l["errno"], l["errno_name"])' "$T_TMP/out")"

# loads, tainted as if unsigned
t_expect check-other-key-kernel 0 "$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$S/rsa.pem" --format kernel "$S/fx-user-ec.ko"
t_run "... text" 0 "$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$S/rsa.pem" "$S/fx-user-ec.ko"
t_grep "... the intree claim is flagged" "fx_user (file fx-user-ec.ko; modpost matches the file name): loader: warning: claims to be in-tree (intree in .modinfo) but is signed by a key that is not among the kernel's keys [intree-foreign-key]" "$T_TMP/out"
# with both keys (a PEM with two certificates), or --cert twice: valid, nothing printed
t_expect check-two-pem 0 "$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$S/two.pem" --format kernel "$S/fx-user-ec.ko"
t_expect check-cert-twice 0 "$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$S/rsa.pem" --cert "$S/ec.der" --format kernel "$S/fx-user-ec.ko"

t_expect check-unsigned 0 "$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$S/rsa.pem" "$X/fx-user.ko"

# refused with the kernel's notice
t_expect check-enforced-other-key 1 "$KSC" "${K[@]}" --config "$T_TMP/config-force" --cert "$S/rsa.pem" --format kernel "$S/fx-user-ec.ko"

# assumed valid, -v says so, with the way out
t_expect check-no-keys-edited 0 "$KSC" "${K[@]}" --config "$T_TMP/config" -v "$S/fx-user-edited.ko"
# EBADMSG needs no key
t_expect check-no-keys-broken-pkcs7 1 "$KSC" "${K[@]}" --config "$T_TMP/config" "$X/fx-user-signed.ko"

t_expect check-cert-missing-file 4 "$KSC" "${K[@]}" --cert "$T_TMP/nonexistent.pem" "$S/fx-user-rsa.ko"
t_expect check-cert-no-certificate 4 "$KSC" "${K[@]}" --cert "$T_TMP/config" "$S/fx-user-rsa.ko"

# A kernel image that holds no built-in key, as --cert or --vmlinux: said once, however
# many signed modules are judged (before: silent, every signature "not among the trusted
# keys"); the verdicts and the exit status as without it. Not said for unsigned modules.
NK=$FIXTURES/x86_64/fx-vmlinux-prel32
"$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$S/rsa.pem" "$S/fx-user-rsa.ko" \
	"$S/fx-user-ec.ko" > "$T_TMP/want" 2>&1
rc=$?
t_run "check --cert IMAGE without a built-in key, two signed modules" "$rc" \
	"$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$NK" --cert "$S/rsa.pem" \
	"$S/fx-user-rsa.ko" "$S/fx-user-ec.ko"
t_eq "... said once" "ksymcheck: $NK: no built-in key found" "$(cat "$T_TMP/err")"
t_diff "... the same verdicts" "$T_TMP/want" "$T_TMP/out"
t_run "check --vmlinux IMAGE without a built-in key" 0 \
	"$KSC" check --vmlinux "$NK" --view loader --format kernel "$S/fx-user-rsa.ko"
t_eq "... said" "ksymcheck: $NK: no built-in key found" "$(cat "$T_TMP/err")"
t_run "check --cert IMAGE without a built-in key, an unsigned module" 0 \
	"$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$NK" --format kernel "$X/fx-user.ko"
t_eq "... not said" "" "$(cat "$T_TMP/err")"
t_run "check --cert IMAGE with a built-in key" 0 \
	"$KSC" "${K[@]}" --config "$T_TMP/config" --cert "$S/fx-vmlinux-rsa" --format kernel \
	"$S/fx-user-rsa.ko"
t_eq "... nothing said" "" "$(cat "$T_TMP/err")"

# ---- Debian's kernel: its built-in key, from the bzImage under --kernel -----------------
# The cache scripts/fetch-debian-kernel.sh fills (nothing is fetched here).
KDIR=${KSC_CACHE:-${XDG_CACHE_HOME:+$XDG_CACHE_HOME/ksymcheck}}
KDIR=${KDIR:-$HOME/.cache/ksymcheck}/debian-6.1
KVER=$(cat "$KDIR/.kver" 2> /dev/null)
MODDIR=$KDIR/lib/modules/$KVER
if [ -n "$KVER" ] && [ -f "$MODDIR/kernel/lib/crc7.ko" ] && [ -f "$KDIR/boot/vmlinuz-$KVER" ]; then
	cp "$MODDIR/kernel/lib/crc7.ko" "$T_TMP/crc7.ko"
	cp "$T_TMP/crc7.ko" "$T_TMP/crc7-edited.ko"
	printf '\001' | dd of="$T_TMP/crc7-edited.ko" bs=1 seek=12 conv=notrunc status=none
	t_run "check --kernel: Debian's module verifies with the image's key" 0 "$KSC" check --kernel "$KDIR" --kver "$KVER" --view loader --insmod --format kernel "$T_TMP/crc7.ko"
	t_eq "... nothing printed" "" "$(cat "$T_TMP/out")"
	t_run "check --kernel: edited after signing" 1 "$KSC" check --kernel "$KDIR" --kver "$KVER" --view loader --insmod --format kernel "$T_TMP/crc7-edited.ko"
	t_eq "... EKEYREJECTED" "insmod: ERROR: could not insert module $T_TMP/crc7-edited.ko: Key was rejected by service" "$(cat "$T_TMP/out")"
else
	t_skip "check --kernel: Debian's module verifies with the image's key" "needs the network: no Debian 6.1 kernel in the cache (make check-real fetches it)"
fi
