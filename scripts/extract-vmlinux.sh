#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Extract the ELF vmlinux from a compressed kernel image (x86 bzImage and the like).
#
# Usage: scripts/extract-vmlinux.sh VMLINUZ OUT
#
# Looks for the magic bytes of every compressed format the kernel supports (gzip, xz, zstd,
# bzip2, lz4 legacy and frame, lzo, lzma; a format is skipped when its decompressor is not
# installed), tries to decompress from each match in turn and keeps the first result that
# starts with the ELF magic. An input that already is an ELF file is copied. OUT is written
# atomically (a temporary file in the same folder, then rename).
# Exit status: 0 done, 1 no ELF found, 2 usage error.
set -euo pipefail
export LC_ALL=C

if [ $# -ne 2 ]; then
	echo "usage: $0 VMLINUZ OUT" >&2
	exit 2
fi
in=$1 out=$2
if [ ! -f "$in" ] || [ ! -r "$in" ]; then
	echo "extract-vmlinux: $in: not a readable file" >&2
	exit 2
fi

outdir=$(dirname -- "$out")
mkdir -p -- "$outdir"
tmp=$(mktemp "$outdir/.vmlinux.XXXXXX")
trap 'rm -f "$tmp"' EXIT

is_elf() { [ "$(head -c 4 -- "$1" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; }

finish() { # $1: how it was found
	chmod 0644 "$tmp"
	mv -f -- "$tmp" "$out"
	trap - EXIT
	echo "extract-vmlinux: $in: $1 -> $out ($(stat -c %s -- "$out") bytes)" >&2
	exit 0
}

if is_elf "$in"; then
	cp -- "$in" "$tmp"
	finish "already an ELF file"
fi

# Tried in this order; lzma last, its 3-byte magic (properties 0x5d, then the low bytes of
# the dictionary size) matches often by chance.
# name|grep -P pattern|decompressor (reads stdin, writes stdout)|program that must exist
formats=(
	'xz|\xfd7zXZ\x00|xz -dc --single-stream|xz'
	'gzip|\x1f\x8b\x08|gzip -dc|gzip'
	'zstd|\x28\xb5\x2f\xfd|zstd -dcq|zstd'
	'bzip2|BZh[1-9]1AY&SY|bzip2 -dc|bzip2'
	'lz4|\x02\x21\x4c\x18|lz4 -dcq|lz4'
	'lz4 frame|\x04\x22\x4d\x18|lz4 -dcq|lz4'
	'lzo|\x89\x4c\x5a\x4f\x00\x0d\x0a\x1a\x0a|lzop -dcq|lzop'
	'lzma|\x5d\x00\x00|xz -dc --format=lzma|xz'
)

tried=0
for f in "${formats[@]}"; do
	IFS='|' read -r name pattern cmd prog <<< "$f"
	if ! command -v "$prog" > /dev/null; then
		echo "extract-vmlinux: $prog not installed, $name payloads not tried" >&2
		continue
	fi
	# Byte offsets of every match (grep -b counts from 0; tail -c +N from 1).
	while IFS=: read -r off _; do
		[ -n "$off" ] || continue
		tried=$((tried + 1))
		# Trailing data after the payload makes some decompressors fail after they
		# wrote everything; the ELF check below decides.
		# shellcheck disable=SC2086 # $cmd is a command line with options
		tail -c "+$((off + 1))" -- "$in" | $cmd > "$tmp" 2> /dev/null || true
		if [ -s "$tmp" ] && is_elf "$tmp"; then
			finish "$name payload at offset $off"
		fi
	done < <(grep -obUaP -- "$pattern" "$in" || true)
done

echo "extract-vmlinux: $in: no compressed ELF image found ($tried candidate offsets tried)" >&2
exit 1
