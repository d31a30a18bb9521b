# SPDX-License-Identifier: LGPL-2.1-or-later
# The index read in place (issue 26: ksc_kidx_map(), ksc_kidx_find(), the warm path of
# `check -k`): its lookup table leads to one record, which alone is read and checked. The
# index lives in a user's cache and may be cut short, edited or replaced while it is
# open: no SIGBUS (it is read, never mapped), no record that is not the one the table
# names, and an index of the previous format is not used but rebuilt.
# kidx-probe (tests/helpers) opens the index, damages it as asked, then looks names up.
. tests/lib.sh
. tests/hostile/lib.sh
export LC_ALL=C

probe=$BUILD/tests/helpers/kidx-probe
case $probe in /*) ;; *) probe=$TOP/$probe ;; esac
if [ ! -x "$probe" ]; then
	t_skip "index read in place" "$probe is not built (make $BUILD/tests/helpers/kidx-probe)"
	exit 0
fi
root=$T_TMP/root
h_tree "$root"
find "$root" -exec touch -h -d '-1 hour' {} +
idx=$T_TMP/tree.idx
"$KSC" tree -b "$root" "$H_REL" --index "$idx" -q > /dev/null 2>&1
t_eq "index-map: index written" yes "$([ -s "$idx" ] && echo yes)"
cp "$idx" "$T_TMP/good.idx"
amd=$(stat -c %s "$root/lib/modules/$H_REL/kernel/kvm-amd.ko")
kvm=$(stat -c %s "$root/lib/modules/$H_REL/kernel/kvm.ko")
CORRUPT="index corrupt, truncated or of another format"

# probe NAME RC EXPECTED-STDOUT ARGS...: kidx-probe's status and whole output (a signal
# would be 128 + its number: 135 for SIGBUS)
probe_case() {
	local name=$1 want=$2 out=$3 rc
	shift 3
	cp "$T_TMP/good.idx" "$idx"
	timeout 20 "$probe" "$@" > "$T_TMP/out" 2> "$T_TMP/err" < /dev/null
	rc=$?
	if [ "$rc" != "$want" ]; then
		t_fail "$name" "exit status $rc, expected $want" "$(head -c 400 "$T_TMP/out" "$T_TMP/err")"
	elif [ "$(cat "$T_TMP/out")" != "$out" ]; then
		t_fail "$name" "stdout: $(cat "$T_TMP/out")" "expected: $out"
	else
		t_ok "$name"
	fi
}

probe_case "index-map: found by kmod name, '-' as '_'" 0 \
	"kvm_amd: kernel/kvm-amd.ko $amd
kvm-amd: kernel/kvm-amd.ko $amd
kvm: kernel/kvm.ko $kvm" "$idx" kvm_amd kvm-amd kvm
probe_case "index-map: a name not in the table" 1 \
	"nosuch: No such file or directory" "$idx" nosuch
size=$(stat -c %s "$T_TMP/good.idx")
probe_case "index-map: cut to half its size while open: lookups refused, no SIGBUS" 1 \
	"kvm_amd: $CORRUPT
kvm: $CORRUPT" --cut $((size / 2)) "$idx" kvm_amd kvm
probe_case "index-map: cut to 0 bytes while open" 1 \
	"kvm: $CORRUPT" --cut 0 "$idx" kvm

# a byte of kvm-amd's record (its path in its own string table: the second of the three
# copies, after the header's and before the lookup table's) changed in place while open
off=$(python3 - "$T_TMP/good.idx" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
at, found = -1, []
while True:
    at = d.find(b"kernel/kvm-amd.ko\0", at + 1)
    if at < 0:
        break
    found.append(at)
print(found[1] + 7 if len(found) == 3 else -1)
PY
)
t_eq "index-map: the record's bytes found" yes "$([ "$off" -gt 0 ] && echo yes)"
probe_case "index-map: a record edited while open: that one refused, the other found" 1 \
	"kvm_amd: $CORRUPT
kvm: kernel/kvm.ko $kvm" --flip "$off" "$idx" kvm_amd kvm

# replaced (rename over it, as a concurrent run saves its index): the open file's bytes
printf 'not an index\n' > "$T_TMP/other"
probe_case "index-map: replaced while open: the file opened still answers" 0 \
	"kvm: kernel/kvm.ko $kvm" --replace "$T_TMP/other" "$idx" kvm

# the lookup table edited at rest: refused when opened
python3 - "$T_TMP/good.idx" "$T_TMP/lk.idx" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[-9] ^= 0x20
open(sys.argv[2], "wb").write(d)
PY
timeout 20 "$probe" "$T_TMP/lk.idx" kvm > "$T_TMP/out" 2>&1
t_eq "index-map: the lookup table edited: not opened (exit 2)" \
	"2 $T_TMP/lk.idx: $CORRUPT" "$? $(cat "$T_TMP/out")"

# an index of the previous format (8): not opened; `tree` rebuilds it and says the same
python3 - "$T_TMP/good.idx" "$T_TMP/v8.idx" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("=I", d, 8, 8)
open(sys.argv[2], "wb").write(d)
PY
timeout 20 "$probe" "$T_TMP/v8.idx" kvm > "$T_TMP/out" 2>&1
t_eq "index-map: an index of format 8: not opened (exit 2)" \
	"2 $T_TMP/v8.idx: $CORRUPT" "$? $(cat "$T_TMP/out")"
"$KSC" tree -b "$root" "$H_REL" --no-index > "$T_TMP/fresh" 2> "$T_TMP/fresh.err"
echo "exit $?" >> "$T_TMP/fresh"
cat "$T_TMP/fresh.err" >> "$T_TMP/fresh"
"$KSC" tree -b "$root" "$H_REL" --index "$T_TMP/v8.idx" > "$T_TMP/old" 2> "$T_TMP/old.err"
echo "exit $?" >> "$T_TMP/old"
t_grep "index-map: tree says the old index is rebuilt" \
	"$T_TMP/v8.idx: $CORRUPT, rebuilt" "$T_TMP/old.err"
grep -v "$T_TMP/v8.idx: " "$T_TMP/old.err" >> "$T_TMP/old"
grep -v ' from the index, ' "$T_TMP/fresh" > "$T_TMP/fresh.v"
grep -v ' from the index, ' "$T_TMP/old" > "$T_TMP/old.v"
t_diff "index-map: with the old index, tree says what it says without one" \
	"$T_TMP/fresh.v" "$T_TMP/old.v"
timeout 20 "$probe" "$T_TMP/v8.idx" kvm > "$T_TMP/out" 2>&1
t_eq "index-map: the rebuilt index answers" "0 kvm: kernel/kvm.ko $kvm" "$? $(cat "$T_TMP/out")"

# A signed module's record keeps the digest of its signed bytes (made when it was read):
# the module replaced in place by one changed after signing, same size, mtime put back,
# is read again, and its signature judged from its new bytes, not the kept digest.
signed=$FIXTURES/signed
if [ ! -f "$signed/fx-user-edited.ko" ]; then
	t_skip "index-map: a signed module edited in place" "no signed fixtures (openssl)"
	exit 0
fi
sroot=$T_TMP/sroot
h_tree "$sroot"
sm=$sroot/lib/modules/$H_REL/kernel/fx-user.ko
cp "$signed/fx-user-rsa.ko" "$sm"
find "$sroot" -exec touch -h -d '-1 hour' {} +
sidx=$T_TMP/signed.idx
stree() {
	"$KSC" tree -b "$sroot" "$H_REL" --cert "$signed/rsa.pem" "$@" > "$T_TMP/s.out" 2>&1
	echo "exit $?" >> "$T_TMP/s.out"
	grep -v ' from the index, ' "$T_TMP/s.out"
}
stree --index "$sidx" > "$T_TMP/s-before"
touch -r "$sm" "$T_TMP/sstamp"
cat "$signed/fx-user-edited.ko" > "$sm" # in place: the same inode
touch -r "$T_TMP/sstamp" "$sm"
stree --no-index > "$T_TMP/s-fresh"
stree --index "$sidx" > "$T_TMP/s-indexed"
if cmp -s "$T_TMP/s-before" "$T_TMP/s-fresh"; then
	t_fail "index-map: the edit changes the signature's verdict (the case tests something)"
else
	t_ok "index-map: the edit changes the signature's verdict (the case tests something)"
fi
t_diff "index-map: a signed module edited in place is judged from its bytes, not the kept digest" \
	"$T_TMP/s-fresh" "$T_TMP/s-indexed"
