#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Sign a kernel module for the test fixtures, with the openssl command line only, so that a
# fresh machine makes the signed fixtures without the kernel's scripts/sign-file (which
# would need a kernel package from the network).
#
#     sign-module.sh [-k] HASH KEY CERT MODULE DEST
#
# The same arguments as the kernel's sign-file, and the same result:
#   MODULE || PKCS#7 || struct module_signature || "~Module signature appended~\n"
# - PKCS#7 is a detached CMS SignedData in DER over the whole module, with no embedded
#   certificates, no signed attributes and no S/MIME capabilities; its SignerInfo names the
#   signer by issuer and serial number, or with -k by subjectKeyIdentifier (CMS version 3).
# - struct module_signature (include/linux/module_signature.h) is 12 bytes: algo, hash,
#   id_type (2: PKEY_ID_PKCS7), signer_len, key_id_len, 3 bytes of padding (all 0 but
#   id_type), then the PKCS#7's length as a big-endian 32-bit number.
# DEST is written through a temporary file in its folder and renamed into place.
set -eu

keyid=
if [ "${1:-}" = "-k" ]; then
	keyid=-keyid
	shift
fi
if [ $# -ne 5 ]; then
	echo "usage: $0 [-k] HASH KEY CERT MODULE DEST" >&2
	exit 2
fi
hash=$1 key=$2 cert=$3 module=$4 dest=$5

tmp=$(mktemp "$dest.XXXXXX")
trap 'rm -f "$tmp" "$tmp.p7"' EXIT

# shellcheck disable=SC2086 # $keyid is empty or one word
openssl cms -sign -binary -noattr -nocerts -nosmimecap $keyid -md "$hash" \
	-signer "$cert" -inkey "$key" -in "$module" -outform DER -out "$tmp.p7"

len=$(wc -c < "$tmp.p7")
# a byte as a printf octal escape
# shellcheck disable=SC2059 # the format is the escape itself
byte() { printf "\\$(printf '%03o' "$1")"; }
{
	cat "$module" "$tmp.p7"
	byte 0; byte 0; byte 2; byte 0; byte 0; byte 0; byte 0; byte 0
	byte $(((len >> 24) & 255)); byte $(((len >> 16) & 255))
	byte $(((len >> 8) & 255)); byte $((len & 255))
	printf '~Module signature appended~\n'
} > "$tmp"
mv "$tmp" "$dest"
trap - EXIT
rm -f "$tmp.p7"
