# SPDX-License-Identifier: LGPL-2.1-or-later
# depmod's .bin tries as `check -k` reads them (lib/readers/ksc-depmod-bin.c, issue 26):
# a tree whose modules.dep.bin or modules.symbols.bin loops, shares a node, points past
# its end, counts more values than it holds, is cut short, is deeper than the reader
# goes or is too large is not used: the text files answer, with the output of a run
# without the .bin files, in bounded time, the reason at debug level. A trie of the same
# keys laid out otherwise than depmod lays it (a node per byte) is used.
. tests/lib.sh
. tests/hostile/lib.sh
export LC_ALL=C

DEPMOD=$(PATH=$PATH:/usr/sbin:/sbin command -v depmod || true)
if [ -z "$DEPMOD" ]; then
	t_skip "depbin: hostile .bin files" "kmod's depmod not installed"
	exit 0
fi
root=$T_TMP/root
h_tree "$root"
k=$root/lib/modules/$H_REL
"$DEPMOD" -b "$root" -C "$T_TMP/none" "$H_REL" 2> /dev/null
amd=$T_TMP/kvm-amd.ko
cp "$H_DEMO/intree/kvm-amd.ko" "$amd"
cp "$k/modules.dep.bin" "$k/modules.symbols.bin" "$T_TMP/"

# mkbin OUT dep|symbols [loop|dag|past|huge|deep]: kmod's index format written from the
# text file, a node per key byte (no prefixes), children after their parent; then made
# hostile as asked.
mkbin() {
	python3 - "$k" "$@" <<'PY'
import os, struct, sys
k, out, which = sys.argv[1:4]
how = sys.argv[4] if len(sys.argv) > 4 else ""
sys.setrecursionlimit(100000)
keys = {}
for line in open(os.path.join(k, "modules." + which)):
    line = line.rstrip("\n")
    if which == "dep":
        base = line.split(":", 1)[0].rsplit("/", 1)[-1].split(".", 1)[0]
        keys[base.replace("-", "_")] = line
    elif line.startswith("alias "):
        key, owner = line[6:].split(" ", 1)
        keys[key] = owner
if how in ("loop", "dag"):
    keys["Z"] = "z"
if how == "deep":
    keys["z" * 5000] = "z"
trie = {}
for key, value in keys.items():
    n = trie
    for ch in key.encode():
        n = n.setdefault(ch, {})
    n[None] = value
buf = bytearray(struct.pack(">III", 0xB007F457, 0x00020001, 0))
def node(n):
    off, kids = len(buf), sorted(c for c in n if c is not None)
    flags = (0x20000000 if kids else 0) | (0x40000000 if None in n else 0)
    if kids:
        first, last = kids[0], kids[-1]
        buf.extend(bytes([first, last]))
        table = len(buf)
        buf.extend(bytes(4 * (last - first + 1)))
    if None in n:
        count = 0xFFFFFFFF if how == "huge" else 1
        buf.extend(struct.pack(">II", count, 0) + n[None].encode() + b"\0")
    for c in kids:
        at = table + 4 * (c - first)
        buf[at:at + 4] = struct.pack(">I", node(n[c]))
    return off | flags
buf[8:12] = struct.pack(">I", node(trie))
root_first = buf[12]
def slot(ch):
    return 14 + 4 * (ord(ch) - root_first)
if how == "loop":    # 'Z' leads back to the root
    buf[slot("Z"):slot("Z") + 4] = buf[8:12]
elif how == "dag":   # 'Z' leads to the node of 'k' too
    buf[slot("Z"):slot("Z") + 4] = buf[slot("k"):slot("k") + 4]
elif how == "past":  # every child of the root past the end
    for c in range(buf[12], buf[13] + 1):
        buf[14 + 4 * (c - root_first):18 + 4 * (c - root_first)] = \
            struct.pack(">I", 0x2FFFFFF0)
open(out, "wb").write(buf)
PY
}

# The output without the .bin files: what every case must say
mv "$k/modules.dep.bin" "$k/modules.symbols.bin" "$T_TMP/"
KSYMCHECK_NO_INDEX=1 "$KSC" check -v -k "$root" "$amd" > "$T_TMP/want.out" 2> "$T_TMP/want.err"
echo "exit $?" >> "$T_TMP/want.out"
cat "$T_TMP/want.err" >> "$T_TMP/want.out"

# bin_case NAME WHY: check -k with the .bin files as they are now: the same output as
# without them, in at most 20 s; WHY the debug line on the .bin files (empty: used)
bin_case() {
	local name=$1 why=$2
	find "$k" -name 'modules.*.bin' -exec touch {} +
	timeout 20 env KSYMCHECK_NO_INDEX=1 "$KSC" check -v -k "$root" "$amd" > "$T_TMP/out" \
		2> "$T_TMP/err"
	echo "exit $?" >> "$T_TMP/out"
	cat "$T_TMP/err" >> "$T_TMP/out"
	t_diff "depbin: $name: the output without the .bin files" "$T_TMP/want.out" "$T_TMP/out"
	timeout 20 env KSYMCHECK_NO_INDEX=1 KSYMCHECK_DEBUG=1 "$KSC" check -k "$root" "$amd" 2>&1 \
		> /dev/null | sed -n "s|^ksymcheck: debug: $k: \(depmod's .*not used: \)|\1|p" \
		> "$T_TMP/why"
	t_eq "depbin: $name: said at debug level" "$why" "$(cat "$T_TMP/why")"
}
real_bins() { cp "$T_TMP/modules.dep.bin" "$T_TMP/modules.symbols.bin" "$k/"; }

real_bins
bin_case "depmod's own" ""
mkbin "$k/modules.dep.bin" dep
mkbin "$k/modules.symbols.bin" symbols
bin_case "a node per byte, children after their parent" ""
NOT="depmod's .bin files not used: a .bin file not as depmod writes it"
for how in loop dag deep; do
	real_bins
	mkbin "$k/modules.dep.bin" dep "$how"
	case $how in
	loop) what="modules.dep.bin with a child that leads back to the root" ;;
	dag) what="modules.dep.bin with a node two children lead to" ;;
	deep) what="modules.dep.bin with a key of 5,000 nodes" ;;
	esac
	bin_case "$what" "$NOT"
done
for how in past huge; do
	real_bins
	mkbin "$k/modules.symbols.bin" symbols "$how"
	case $how in
	past) what="modules.symbols.bin with the root's children past the end" ;;
	huge) what="modules.symbols.bin counting 4,294,967,295 values a key" ;;
	esac
	bin_case "$what" "$NOT"
done
size=$(stat -c %s "$T_TMP/modules.symbols.bin")
for cut in 11 12 100 $((size / 2)) $((size - 1)); do
	real_bins
	head -c "$cut" "$T_TMP/modules.symbols.bin" > "$k/modules.symbols.bin"
	bin_case "modules.symbols.bin cut to $cut of $size bytes" "$NOT"
done
real_bins
truncate -s 100M "$k/modules.dep.bin"
bin_case "modules.dep.bin of 100 MiB (sparse)" "$NOT"
KSYMCHECK_NO_INDEX=1 h_cost "depbin: modules.dep.bin of 100 MiB" "$KSC" check -k "$root" "$amd"
real_bins
printf 'x' | dd of="$k/modules.symbols.bin" bs=1 seek=5 conv=notrunc 2> /dev/null
bin_case "modules.symbols.bin of major version 120" "$NOT"
