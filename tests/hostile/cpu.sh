# SPDX-License-Identifier: LGPL-2.1-or-later
# CPU bombs: small inputs that made the work grow faster than the input. Each case runs
# under a 10 s limit (the catalogue's bound per case): before, a 16 KB xz image of
# nothing but DER "30 82" headers took a minute in the built-in-key scan (d2i_X509() tried
# at every one), and one symbol listed 160,000 times in Module.symvers took 40 s (its
# providers chained by walking the chain for each one).
. tests/lib.sh
. tests/hostile/lib.sh

# c_case NAME RC WANT_ERR CMD...: CMD ends within 10 s with status RC and the stderr in
# the file WANT_ERR (stdout in $T_TMP/out).
c_case() {
	local name=$1 want=$2 err=$3 rc
	shift 3
	timeout 10 "$@" > "$T_TMP/out" 2> "$T_TMP/err" < /dev/null
	rc=$?
	if [ "$rc" = 124 ]; then
		t_fail "$name" "not done within 10 s"
	elif [ "$rc" != "$want" ]; then
		t_fail "$name" "exit status $rc, expected $want" "stderr: $(head -c 600 "$T_TMP/err")"
	elif ! cmp -s "$err" "$T_TMP/err"; then
		t_fail "$name" "stderr: $(head -c 600 "$T_TMP/err")" "expected: $(head -c 600 "$err")"
	else
		t_ok "$name"
	fi
}

# A kernel image of 100 MiB of "30 82 01 00" (15 KB as xz), and a signed module: its
# check reads the image's built-in keys. Only what has a certificate's outline goes to
# OpenSSL, so the scan is a memchr() pass.
R=$T_TMP/kroot
h_tree "$R"
"$KSC" exports --format symvers "$R/boot/vmlinux-$H_REL" > "$T_TMP/kernel.symvers"
mkdir -p "$R/lib/modules/$H_REL/build"
mv "$T_TMP/kernel.symvers" "$R/lib/modules/$H_REL/build/Module.symvers"
rm "$R/boot/vmlinux-$H_REL"
printf '\060\202\001\000%.0s' $(seq 4096) > "$T_TMP/unit" # 16 KiB
for _ in 1 2 3 4 5 6; do cat "$T_TMP/unit" "$T_TMP/unit" > "$T_TMP/unit2"; mv "$T_TMP/unit2" "$T_TMP/unit"; done
for _ in $(seq 100); do cat "$T_TMP/unit"; done | xz -0 -T1 -c > "$R/boot/vmlinuz-$H_REL"
t_eq "cpu: the image is small" 1 "$([ "$(stat -c %s "$R/boot/vmlinuz-$H_REL")" -lt 65536 ] && echo 1)"
: > "$T_TMP/none"
echo "ksymcheck: $R/boot/vmlinuz-$H_REL: no built-in key found" > "$T_TMP/nokey"
c_case "cpu: check -k, an image of 30 82 headers" 0 "$T_TMP/nokey" \
	env XDG_CACHE_HOME="$T_TMP/cache" "$KSC" check -k "$R" "$FIXTURES/x86_64/fx-user-signed.ko"
t_grep "cpu: ... the module checked" "1 module checked" "$T_TMP/out"

# One symbol 160,000 times: each repetition said (modpost's and depmod's views differ on
# which counts), the check done.
n=160000
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "0x00000001\tdup\tvmlinux\tEXPORT_SYMBOL\t\n" }' \
	> "$T_TMP/dup.symvers"
awk -v n=$n -v f="$T_TMP/dup.symvers" 'BEGIN { for (i = 2; i <= n; i++)
	printf "ksymcheck: %s:%d: dup listed again (first at line 1): depmod'"'"'s view takes this later entry, the loader'"'"'s and modpost'"'"'s views the first\n", f, i }' \
	> "$T_TMP/dup.err"
c_case "cpu: check -s, one symbol listed $n times" 5 "$T_TMP/dup.err" \
	"$KSC" check -s "$T_TMP/dup.symvers" "$H_DEMO/intree/kvm.ko"
t_grep "cpu: ... the module checked" "1 module checked" "$T_TMP/out"

# 100 MiB of certificate outlines (SEQUENCE { tbsCertificate, algorithm, BIT STRING },
# 14 bytes each) that are no certificate, as --cert: OpenSSL tries at most 4096 of them.
printf '\060\202\000\012\060\201\003\002\001\000\060\000\003\000%.0s' $(seq 1024) > "$T_TMP/fake"
for _ in 1 2 3 4 5 6; do cat "$T_TMP/fake" "$T_TMP/fake" > "$T_TMP/fake2"; mv "$T_TMP/fake2" "$T_TMP/fake"; done
for _ in $(seq 117); do cat "$T_TMP/fake"; done | xz -0 -T1 -c > "$T_TMP/fake.xz"
c_case "cpu: check --cert, an image of 100 MiB of certificate outlines" 1 "$T_TMP/none" \
	"$KSC" check --cert "$T_TMP/fake.xz" -s "$H_SYMVERS" "$FIXTURES/x86_64/fx-user.ko"
t_grep "cpu: ... the module checked" "1 module checked" "$T_TMP/out"
