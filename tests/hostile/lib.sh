# SPDX-License-Identifier: LGPL-2.1-or-later
# Helpers of the hostile-input catalogue (after tests/lib.sh).
H_REL=6.16.0-demo
H_DEMO=$FIXTURES/demo

# h_tree ROOT: the sample kernel and two demo modules.
h_tree() {
	local m=$1/lib/modules/$H_REL
	scripts/mk-sample-kernel.sh "$FIXTURES" "$1"
	mkdir -p "$m/kernel"
	cp "$H_DEMO/intree/kvm.ko" "$H_DEMO/intree/kvm-amd.ko" "$m/kernel/"
}

# h_case NAME RC STDERR CMD...: CMD's exit status is RC and its whole stderr is STDERR,
# each of its lines after "ksymcheck: " (stdout in $T_TMP/out, stderr in $T_TMP/err). A
# timeout of 20 s catches a hang.
h_case() {
	local name=$1 want=$2 err rc
	err=$(printf '%s' "$3" | sed '/^ksymcheck: /!s/^./ksymcheck: &/')
	shift 3
	timeout 20 "$@" > "$T_TMP/out" 2> "$T_TMP/err" < /dev/null
	rc=$?
	if [ "$rc" != "$want" ]; then
		t_fail "$name" "exit status $rc, expected $want" "stderr: $(head -c 600 "$T_TMP/err")"
	elif [ "$(cat "$T_TMP/err")" != "$err" ]; then
		t_fail "$name" "stderr: $(head -c 600 "$T_TMP/err")" "expected: $err"
	else
		t_ok "$name"
	fi
}

# h_kind NAME TYPE PATH: PATH is of TYPE (test(1) letters: f, d, p, S, c, L)
h_kind() {
	if [ -"$2" "$3" ] && { [ "$2" = L ] || [ ! -L "$3" ]; }; then t_ok "$1"; else
		t_fail "$1" "$3 is not -$2: $(ls -ld "$3" 2>&1)"; fi
}

# h_nsdeps_tree DIR: a copy of the nsdeps source fixture in DIR/nsdeps with its module
# built (false without clang), and MODNS, what nsdeps says of that module's import.
h_nsdeps_tree() {
	mkdir -p "$1" && cp -r "$TOP/tests/fixtures/srctree/nsdeps" "$1/" &&
		command -v "${CLANG:-clang}" > /dev/null &&
		"${CLANG:-clang}" --target=x86_64-linux-gnu -c -I "$TOP/tests/fixtures/src" \
			-o "$1/nsdeps/fx-nsuser/fx-nsuser.ko" "$1/nsdeps/fx-nsuser.S" 2> /dev/null || return 1
	MODNS="$1/nsdeps/fx-nsuser/fx-nsuser.ko: uses anon_inode_make_secure_inode from the module-restricted namespace module:kvm: not importing it; rename is not a fix: this export is restricted to modules matching kvm"
}

# A small Module.symvers (modpost's format: crc, symbol, module, export type, namespace).
H_SYMVERS=$T_TMP/Module.symvers
printf '0x1a2b3c4d\tkvm_hook\tvmlinux\tEXPORT_SYMBOL_GPL\t\n0x00000001\tprintk\tvmlinux\tEXPORT_SYMBOL\t\n0x00000002\tdma_fn\tdrivers/dma/dma\tEXPORT_SYMBOL_GPL\tDMA_BUF\n' > "$H_SYMVERS"

# h_cost NAME CMD...: after an h_case-like run of CMD (stdout, stderr and status thrown
# away), its peak memory is under 600 MiB and its time under 10 s, the catalogue's bound
# per case (GNU time: package time, scripts/install-deps.sh --test). Skipped without GNU
# time and under ASan (its shadow and quarantine add their own).
h_cost() {
	local name=$1 kb s
	shift
	if [ ! -x /usr/bin/time ]; then
		t_skip "$name: under 600 MiB and 10 s" "GNU time is not installed"
		return
	fi
	/usr/bin/time -o "$T_TMP/cost" -f "%M %e" timeout 60 "$@" > /dev/null 2>&1 < /dev/null
	read -r kb s < <(tail -n 1 "$T_TMP/cost")
	case "$kb$s" in *[!0-9.]* | "") kb=0 s=timeout ;; esac
	echo "# $name: peak RSS $((kb / 1024)) MiB, $s s"
	if grep -qa __asan_init "$1"; then
		t_skip "$name: under 600 MiB and 10 s" "built with ASan"
	else
		t_eq "$name: under 600 MiB and 10 s" yes "$([ "$s" != timeout ] &&
			[ "$kb" -lt $((600 << 10)) ] &&
			awk -v s="$s" 'BEGIN { exit !(s < 10) }' && echo yes ||
			echo "no: $kb KiB, $s s")"
	fi
}
