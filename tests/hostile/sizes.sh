# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile sizes: a compressed module that expands past what any real module needs (the
# largest in Debian's trees, amdgpu.ko of 7.3, is 46 MiB) is refused with the limit named,
# without allocating more than it; a kernel image has a larger limit of its own. A large
# file that is not ELF is refused from its first bytes, not read whole.
. tests/lib.sh
. tests/hostile/lib.sh

# 300 MiB of zeros: a zstd file of ~10 KB.
head -c $((300 << 20)) /dev/zero | zstd -q -c > "$T_TMP/bomb.ko.zst"
h_case "size: a zstd bomb module" 4 \
	"$T_TMP/bomb.ko.zst: decompresses to more than 256 MiB (limit for modules)" \
	"$KSC" modinfo "$T_TMP/bomb.ko.zst"
head -c $((300 << 20)) /dev/zero | gzip -1 -c > "$T_TMP/bomb.ko.gz"
h_case "size: a gzip bomb module, next to a good one" 4 \
	"$T_TMP/bomb.ko.gz: decompresses to more than 256 MiB (limit for modules)" \
	"$KSC" modinfo -F name "$T_TMP/bomb.ko.gz" "$H_DEMO/intree/kvm.ko"
t_eq "size: the good module is still shown" kvm "$(cat "$T_TMP/out")"
# A kernel image is allowed more, by what the command reads, not by the file's name: the
# same bomb as an operand of exports (a module or an image) is decompressed, then found
# not to be ELF (the error is the ELF reader's, not the limit's); as an operand of
# modinfo (a module) it gets the module limit, named vmlinuz or not (before: 2 GiB).
cp "$T_TMP/bomb.ko.zst" "$T_TMP/vmlinuz-bomb"
h_case "size: the same bomb as a kernel image is under its limit" 4 \
	"$T_TMP/vmlinuz-bomb: not an ELF file" \
	"$KSC" exports "$T_TMP/vmlinuz-bomb"
h_case "size: a module named vmlinuz-* gets the module limit" 4 \
	"$T_TMP/vmlinuz-bomb: decompresses to more than 256 MiB (limit for modules)" \
	"$KSC" modinfo "$T_TMP/vmlinuz-bomb"

# A tree of bombs at -j2: each refused, the good module read, memory bounded.
h_tree "$T_TMP/root"
m=$T_TMP/root/lib/modules/$H_REL/kernel
# 1 GiB of zeros (~32 KB of zstd): before the limit, each worker took all of it.
head -c $((1 << 30)) /dev/zero | zstd -q -c > "$m/bomb1.ko.zst"
cp "$T_TMP/bomb.ko.gz" "$m/bomb2.ko.gz"
# GNU time measures the peak RSS (package time; scripts/install-deps.sh --test)
measure=()
[ -x /usr/bin/time ] && measure=(/usr/bin/time -o "$T_TMP/rss" -f %M)
"${measure[@]}" "$KSC" tree -b "$T_TMP/root" "$H_REL" -j2 \
	--no-index --no-check -q > /dev/null 2> "$T_TMP/err"
t_eq "size: tree -j2 on two bombs: exit status 4" 4 "$?"
sort "$T_TMP/err" > "$T_TMP/err.sorted"
printf 'ksymcheck: %s\n' \
	"$m/bomb1.ko.zst: decompresses to more than 256 MiB (limit for modules)" \
	"$m/bomb2.ko.gz: decompresses to more than 256 MiB (limit for modules)" > "$T_TMP/want"
t_diff "size: tree -j2 names each bomb and its limit" "$T_TMP/want" "$T_TMP/err.sorted"
# Two workers, each at most the limit and a doubling step: under 800 MiB (was 3.7 GB).
rss=$(tail -n 1 "$T_TMP/rss" 2> /dev/null)
[ -n "$rss" ] && echo "# tree -j2 on a 1 GiB and a 300 MiB bomb: peak RSS $((rss / 1024)) MiB"
if [ ${#measure[@]} -eq 0 ]; then
	t_skip "size: tree -j2 on two bombs stays under 800 MiB" "GNU time is not installed"
elif grep -qa __asan_init "$KSC"; then # ASan's shadow and quarantine add their own
	t_skip "size: tree -j2 on two bombs stays under 800 MiB" "built with ASan"
else
	t_eq "size: tree -j2 on two bombs stays under 800 MiB" yes \
		"$([ "$rss" -lt $((800 << 10)) ] && echo yes || echo "no: $rss KiB")"
fi

# Four bombs at -j4: the workers share one budget of 256 MiB for what they decompress
# (before it: each worker up to 256 MiB, 918 MiB peak here). The bound is the budget, a
# buffer's doubling step and what the thread arenas keep before they are trimmed: 340 MiB
# on a quiet host, up to 471 MiB under load, so 600 MiB, well under the 918 of no budget.
cp "$m/bomb1.ko.zst" "$m/bomb3.ko.zst"
head -c $((300 << 20)) /dev/zero | xz -0 -T1 -c > "$m/bomb4.ko.xz"
"${measure[@]}" "$KSC" tree -b "$T_TMP/root" "$H_REL" -j4 \
	--no-index --no-check -q > /dev/null 2> "$T_TMP/err"
t_eq "size: tree -j4 on four bombs: exit status 4" 4 "$?"
printf 'ksymcheck: %s: decompresses to more than 256 MiB (limit for modules)\n' \
	"$m/bomb1.ko.zst" "$m/bomb2.ko.gz" "$m/bomb3.ko.zst" "$m/bomb4.ko.xz" > "$T_TMP/want"
sort "$T_TMP/err" > "$T_TMP/err.sorted"
t_diff "size: tree -j4 names each of the four bombs" "$T_TMP/want" "$T_TMP/err.sorted"
rss=$(tail -n 1 "$T_TMP/rss" 2> /dev/null)
[ -n "$rss" ] && echo "# tree -j4 on four bombs: peak RSS $((rss / 1024)) MiB"
if [ ${#measure[@]} -eq 0 ]; then
	t_skip "size: tree -j4 on four bombs stays under 600 MiB" "GNU time is not installed"
elif grep -qa __asan_init "$KSC"; then
	t_skip "size: tree -j4 on four bombs stays under 600 MiB" "built with ASan"
else
	t_eq "size: tree -j4 on four bombs stays under 600 MiB" yes \
		"$([ "$rss" -lt $((600 << 10)) ] && echo yes || echo "no: $rss KiB")"
fi
# Many compressed modules at once at -j8: every one read, none waits forever.
for i in $(seq 40); do cp "$FIXTURES/x86_64/fx-user.ko.zst" "$m/many$i.ko.zst"; done
rm -f "$m"/bomb*
h_case "size: 40 compressed modules at -j8 share the budget" 0 "" \
	"$KSC" tree -b "$T_TMP/root" "$H_REL" -j8 --no-index --no-check -q

# 200 MiB that is not ELF (sparse: no disk used): refused at once, not read whole.
truncate -s 200M "$T_TMP/big.ko"
h_case "size: a 200 MiB non-ELF file" 4 "$T_TMP/big.ko: not an ELF file" \
	"$KSC" exports "$T_TMP/big.ko"
if command -v strace > /dev/null; then
	strace -f -e trace=read,pread64 -o "$T_TMP/trace" "$KSC" exports "$T_TMP/big.ko" \
		> /dev/null 2>&1
	big=$(awk -F'= ' '/read/ && $NF+0 > 1048576 { n++ } END { print n+0 }' "$T_TMP/trace")
	t_eq "size: no read of more than 1 MiB of it" 0 "$big"
else
	t_skip "size: no read of more than 1 MiB of it" "strace not installed"
fi

# Limits by what is read, not by name (issue 23): 1 GiB of zeros in 33 KB of zstd, inside
# an x86 bzImage header. A module is never unwrapped as a bzImage (kmod does not): not
# ELF, nothing decompressed (before: 1 GiB decompressed, 1.06 GB peak).
M=$BUILD/tests/helpers/elfmangle
head -c $((1 << 30)) /dev/zero | zstd -q -c > "$T_TMP/bomb1g.zst"
"$M" bzimage "$T_TMP/bomb1g.zst" "$T_TMP/bz.ko"
h_case "size: modinfo of a bomb in a bzImage header" 4 "$T_TMP/bz.ko: not an ELF file" \
	"$KSC" modinfo "$T_TMP/bz.ko"
h_cost "size: modinfo of a bomb in a bzImage header" "$KSC" modinfo "$T_TMP/bz.ko"
# Three such files in a tree at -j3, named like kernel images: modules, the module limit,
# one shared budget (before: the image limit each, outside the budget, 1.8 GB).
h_tree "$T_TMP/nroot"
n=$T_TMP/nroot/lib/modules/$H_REL/kernel
cp "$T_TMP/bomb1g.zst" "$n/vmlinux-a.ko.zst"
cp "$T_TMP/bomb1g.zst" "$n/Image-b.ko.zst"
cp "$T_TMP/bz.ko" "$n/bzImage-c.ko"
"$KSC" tree -b "$T_TMP/nroot" "$H_REL" -j3 --no-index --no-check -q > /dev/null \
	2> "$T_TMP/err"
t_eq "size: tree -j3 on bombs named like kernel images: exit status 4" 4 "$?"
printf 'ksymcheck: %s\n' \
	"$n/Image-b.ko.zst: decompresses to more than 256 MiB (limit for modules)" \
	"$n/bzImage-c.ko: not an ELF file" \
	"$n/vmlinux-a.ko.zst: decompresses to more than 256 MiB (limit for modules)" \
	> "$T_TMP/want"
sort "$T_TMP/err" > "$T_TMP/err.sorted"
t_diff "size: ... each a module, with the module limit" "$T_TMP/want" "$T_TMP/err.sorted"
h_cost "size: tree -j3 on bombs named like kernel images" \
	"$KSC" tree -b "$T_TMP/nroot" "$H_REL" -j3 --no-index --no-check -q

# check -k reads the kernel's modules as tree (and kmod) do: a provider wrapped in a
# bzImage header is not ELF, so its exports resolve nothing (before: check -k unwrapped
# it and said "would load" where tree said "refused").
h_tree "$T_TMP/kroot"
k=$T_TMP/kroot/lib/modules/$H_REL/kernel
zstd -q -c "$k/virt/kvm/fx-modns.ko" > "$T_TMP/modns.zst"
"$M" bzimage "$T_TMP/modns.zst" "$k/virt/kvm/fx-modns.ko"
h_case "size: check -k with a provider in a bzImage header" 5 \
	"$k/virt/kvm/fx-modns.ko: not an ELF file" \
	"$KSC" check -k "$T_TMP/kroot" --kver "$H_REL" "$k/kvm-amd.ko"
t_eq "size: ... kvm-amd refused by check -k" 1 \
	"$(grep -c '^kvm_amd.*fxm_for_kvm_family: loader: refused' "$T_TMP/out")"
"$KSC" tree -b "$T_TMP/kroot" "$H_REL" --no-index > "$T_TMP/tree.out" 2> /dev/null
t_eq "size: ... and by tree" 1 \
	"$(grep -c '^kernel/kvm-amd.ko: fxm_for_kvm_family: loader: refused' "$T_TMP/tree.out")"

# Files larger than their limit, sparse (no disk used): refused by their size, nothing
# read (before: read whole, 1 GB for the module, 2.1 GB for each text file).
cp "$H_DEMO/intree/kvm.ko" "$T_TMP/sparse.ko"
truncate -s 1G "$T_TMP/sparse.ko"
h_case "size: a 1 GiB sparse module" 4 \
	"$T_TMP/sparse.ko: too large (1073741824 bytes, limit 268435456)" \
	"$KSC" modinfo "$T_TMP/sparse.ko"
h_cost "size: a 1 GiB sparse module" "$KSC" modinfo "$T_TMP/sparse.ko"
truncate -s 2G "$T_TMP/sparse.symvers"
h_case "size: a 2 GiB sparse Module.symvers" 4 \
	"$T_TMP/sparse.symvers: too large (2147483648 bytes, limit 67108864)" \
	"$KSC" check -s "$T_TMP/sparse.symvers" -q "$H_DEMO/intree/kvm.ko"
h_cost "size: a 2 GiB sparse Module.symvers" \
	"$KSC" check -s "$T_TMP/sparse.symvers" -q "$H_DEMO/intree/kvm.ko"
h_tree "$T_TMP/sroot"
truncate -s 2G "$T_TMP/sroot/lib/modules/$H_REL/modules.order"
h_case "size: a 2 GiB sparse modules.order" 0 \
	"warning: $T_TMP/sroot/lib/modules/$H_REL/modules.order: too large (2147483648 bytes, limit 67108864)" \
	"$KSC" tree -b "$T_TMP/sroot" "$H_REL" --no-index --no-check
h_cost "size: a 2 GiB sparse modules.order" \
	"$KSC" tree -b "$T_TMP/sroot" "$H_REL" --no-index --no-check
rm "$T_TMP/sroot/lib/modules/$H_REL/modules.order"
mkdir -p "$T_TMP/sroot/etc/depmod.d"
truncate -s 2G "$T_TMP/sroot/etc/depmod.d/big.conf"
h_case "size: a 2 GiB sparse depmod.d file" 0 \
	"$T_TMP/sroot/etc/depmod.d/big.conf: too large (2147483648 bytes, limit 67108864)" \
	"$KSC" tree -b "$T_TMP/sroot" "$H_REL" --no-index --no-check -q
h_cost "size: a 2 GiB sparse depmod.d file" \
	"$KSC" tree -b "$T_TMP/sroot" "$H_REL" --no-index --no-check -q

# A 2 GiB sparse .c among a folder's sources: refused by its size before it is read
# (before: 1 GiB read into memory, then refused), the other files scanned.
mkdir -p "$T_TMP/ssrc"
printf 'EXPORT_SYMBOL(foo);\n' > "$T_TMP/ssrc/a.c"
truncate -s 2G "$T_TMP/ssrc/big.c"
h_case "size: src scan, a 2 GiB sparse source" 4 "$T_TMP/ssrc/big.c: File too large" \
	"$KSC" src scan "$T_TMP/ssrc"
t_eq "size: ... the other file scanned" "$T_TMP/ssrc/a.c:1: export foo EXPORT_SYMBOL" \
	"$(cat "$T_TMP/out")"
h_cost "size: src scan, a 2 GiB sparse source" "$KSC" src scan "$T_TMP/ssrc"
