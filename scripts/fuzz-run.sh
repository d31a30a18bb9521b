#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run every libFuzzer target in build-fuzz/ for RUNS executions (default 1,000,000), seeded
# from the test fixtures when they exist. Prints one line per target with its exec count.
# Usage: scripts/fuzz-run.sh [RUNS]   (FUZZ_SECONDS=N also stops each target after N seconds)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-${FUZZ_RUNS:-1000000}}
status=0
for f in build-fuzz/fuzz-*; do
	[ -x "$f" ] || continue
	name=$(basename "$f")
	corpus=build-fuzz/corpus-$name
	mkdir -p "$corpus"
	seeds=()
	case $name in
	fuzz-module) for d in build/fixtures build-san/fixtures; do [ -d $d ] && seeds+=("$d"); done ;;
	fuzz-symvers) seeds+=(tests/fixtures/text) ;;
	fuzz-sig) for d in build/fixtures/signed build-san/fixtures/signed; do [ -d $d ] && seeds+=("$d"); done ;;
	fuzz-src) seeds+=(tests/fixtures/srctree) ;;
	fuzz-index)
		# an index of a tree of the x86_64 fixtures, as the tool writes it; the first
		# byte is the target's flag (0: as is, 1: checksums fixed after mutation)
		if [ -x build/ksymcheck ] && [ -d build/fixtures/x86_64 ]; then
			sd=build-fuzz/seeds-fuzz-index
			rm -rf "$sd" && mkdir -p "$sd/root/lib/modules/6.16.0-fx/kernel/fx"
			cp build/fixtures/x86_64/*.ko "$sd/root/lib/modules/6.16.0-fx/kernel/fx/"
			if build/ksymcheck tree -b "$sd/root" 6.16.0-fx --index "$sd/idx" -q > /dev/null 2>&1 ||
				[ -s "$sd/idx" ]; then
				{ printf '\000'; cat "$sd/idx"; } > "$sd/seed-0"
				{ printf '\001'; cat "$sd/idx"; } > "$sd/seed-1"
				rm -rf "$sd/root" "$sd/idx"
				seeds+=("$sd")
			fi
		fi ;;
	fuzz-svcache)
		# the first byte is the target's mode (fuzz/fuzz-svcache.c): 1, Module.symvers
		# text kept and loaded back; 14, a cache file whose key, string size and
		# checksum the target fixes (two rows, then their strings)
		sd=build-fuzz/seeds-fuzz-svcache
		mkdir -p "$sd"
		printf '\001\060x1ea9b2c1\t_printk\tvmlinux\tEXPORT_SYMBOL\t\n0x0\tdma_buf_get\tdma-buf\tEXPORT_SYMBOL_GPL\tDMA_BUF\n' > "$sd/seed-text"
		printf '\001' > "$sd/seed-empty"
		python3 -c 'import struct, sys
rows = struct.pack("<5I", 0, 4, 12, 0x1ea9b2c1, 0) + struct.pack("<5I", 13, 4, 17, 0, 1)
strs = b"abc\0vmlinux\0\0xyz\0DMA_BUF\0"
sys.stdout.buffer.write(b"\x0e" + struct.pack("<8sII", b"KSCSYMV\n", 1, 2) + bytes(48) + rows + strs)' > "$sd/seed-rows"
		seeds+=("$sd") ;;
	fuzz-depbin)
		# kmod's depmod's modules.dep.bin and modules.symbols.bin of the demo's
		# in-tree modules, each after a key (its length, then the key)
		sd=build-fuzz/seeds-fuzz-depbin
		dm=$(PATH=$PATH:/usr/sbin:/sbin command -v depmod || true)
		if [ -n "$dm" ] && [ -d build/fixtures/demo/intree ]; then
			rm -rf "$sd" && mkdir -p "$sd/root/lib/modules/6.16.0-fx/kernel"
			cp build/fixtures/demo/intree/*.ko "$sd/root/lib/modules/6.16.0-fx/kernel/"
			if "$dm" -b "$sd/root" -C "$sd/none" 6.16.0-fx 2> /dev/null; then
				m=$sd/root/lib/modules/6.16.0-fx
				{ printf '\007kvm_amd'; cat "$m/modules.dep.bin"; } > "$sd/seed-dep"
				{ printf '\017symbol:kvm_init'; cat "$m/modules.symbols.bin"; } > "$sd/seed-sym"
				seeds+=("$sd")
			fi
			rm -rf "$sd/root"
		fi ;;
	fuzz-reloc)
		# the module with no relocation section added, with one, and with two that
		# share one blob of its six relocations (fuzz/fuzz-reloc.c)
		sd=build-fuzz/seeds-fuzz-reloc
		mkdir -p "$sd"
		blob=
		for e in 0 1; do
			for rel in "$((e * 12)) $((2 + e)) 0" "$((e * 12 + 4)) 1 $((e * 5))" \
				"$((e * 12 + 8)) 1 9"; do
				read -r roff rsym radd <<< "$rel"
				blob+=$(printf '\\x%02x\\x00\\x00\\x00\\x00\\x00\\x00\\x00' "$roff")
				blob+='\x02\x00\x00\x00'$(printf '\\x%02x\\x00\\x00\\x00' "$rsym")
				blob+=$(printf '\\x%02x\\x00\\x00\\x00\\x00\\x00\\x00\\x00' "$radd")
			done
		done
		rec='\x00\x00\x90\x00\x00\x00'
		printf '\x00\x00' > "$sd/seed-0"
		printf "\\x00\\x01$rec$blob" > "$sd/seed-1"
		printf "\\x00\\x02$rec$rec$blob" > "$sd/seed-2"
		seeds+=("$sd") ;;
	esac
	# fuzz-walk builds and walks a folder per run (tens of runs a second): fewer runs
	n=$runs
	[ "$name" = fuzz-walk ] && [ "$n" -gt 5000 ] && n=5000
	existing=()
	for s in "${seeds[@]}"; do [ -d "$s" ] && existing+=("$s"); done
	log=build-fuzz/$name.log
	if "$f" -runs="$n" -max_total_time="${FUZZ_SECONDS:-0}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$corpus" ${existing[@]+"${existing[@]}"} > "$log" 2>&1; then
		execs=$(grep -ao 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}')
		[ -n "$execs" ] || execs=$(grep -aEo '^#[0-9]+' "$log" | tail -1 | tr -d '#')
		echo "$name: ok, $execs executions"
	else
		echo "$name: FAILED (see $log)"
		tail -n 30 "$log"
		status=1
	fi
done
exit $status
