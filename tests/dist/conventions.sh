# SPDX-License-Identifier: LGPL-2.1-or-later
# The conventions of a system tool, for every command `ksymcheck --help` lists: --json is
# --format json wherever --format takes json; a write error on stdout (/dev/full) is an
# error with a message; colour only on a terminal and never with NO_COLOR; --version
# gives the version (the Makefile's, the header's and debian/changelog's) and the
# compiled-in features.
. tests/lib.sh
root=$T_TMP/root
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"
X=$FIXTURES/x86_64
D=$FIXTURES/demo
commands=$("$KSC" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\)  .*/\1/p')

# --json, generically: every command whose --format lists json takes --json (with the
# subcommand its usage line names first, as in "ksymcheck src scan").
for cmd in $commands; do
	"$KSC" "$cmd" --help > "$T_TMP/help" 2>&1 || continue
	sed -n '/--format/,/^ *-/p' "$T_TMP/help" | grep -qw json || continue
	sub=$(sed -n "s/^\(Usage:\)\{0,1\}[[:space:]]*ksymcheck $cmd \([a-z][a-z0-9-]*\).*/\2/p" "$T_TMP/help" | head -n 1)
	t_run "$cmd${sub:+ $sub} takes --json (its --format takes json)" 0 "$KSC" "$cmd" $sub --json --help
done
# ... and gives exactly what --format json gives.
json_same() { # NAME RC CMD ARGS... (--json goes right after CMD)
	local name=$1 rc=$2 cmd=$3
	shift 3
	"$KSC" "$cmd" --format json "$@" > "$T_TMP/a" 2>&1
	local rc_a=$?
	"$KSC" "$cmd" --json "$@" > "$T_TMP/b" 2>&1
	local rc_b=$?
	if [ "$rc_a $rc_b" = "$rc $rc" ] && cmp -s "$T_TMP/a" "$T_TMP/b" && [ -s "$T_TMP/b" ]; then
		t_ok "$name: --json is --format json"
	else
		t_fail "$name: --json is --format json" "exit $rc_a / $rc_b (want $rc)" "$(diff "$T_TMP/a" "$T_TMP/b" | head -n 5)"
	fi
}
json_same "check" 1 check -k "$root" --kver 6.16.0-demo "$D/oot/fxdma.ko"
json_same "modinfo" 0 modinfo "$X/fx-kvm-amd.ko"
json_same "imports" 0 imports "$X/fx-user.ko.zst"
json_same "exports" 0 exports "$X/fx-modns.ko" "$root/boot/vmlinux-6.16.0-demo"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T_TMP/b" && t_ok "... valid JSON" || t_fail "... valid JSON"
t_run "--json after -- is an operand, not an option" 4 "$KSC" imports -- --json
t_grep "... reported as a path" "--json:" "$T_TMP/err"
t_run "--json and --format: the last one counts, as for any repeated option" 0 "$KSC" exports --json --format symvers "$X/fx-modns.ko"
t_grep "... Module.symvers lines" "$(printf 'fxm_plain\t')" "$T_TMP/out"

# stdout write errors, in every command (their --help goes to stdout too).
if [ -w /dev/full ]; then
	for args in "--help" "--version" $(printf '%s\n' $commands | sed 's/$/:--help/'); do
		"$KSC" ${args/:/ } > /dev/full 2> "$T_TMP/err"
		rc=$?
		if [ $rc -ne 0 ] && grep -q "^ksymcheck: write error: No space left on device" "$T_TMP/err"; then
			t_ok "ksymcheck ${args/:/ } > /dev/full: exit $rc, with a message"
		else
			t_fail "ksymcheck ${args/:/ } > /dev/full: nonzero, with a message" "exit $rc, stderr: $(head -c 300 "$T_TMP/err")"
		fi
	done
	"$KSC" check -k "$root" --kver 6.16.0-demo --format kernel "$D/oot/fxdma.ko" > /dev/full 2> "$T_TMP/err"
	rc=$?
	t_eq "check's findings > /dev/full: status 5 (findings 1 + write error 4), with one message" "5 1" \
		"$rc $(grep -c 'write error' "$T_TMP/err")"
else
	t_skip "stdout write errors" "no /dev/full"
fi

# Colour: only on a terminal (script(1) gives one), never with NO_COLOR, never for TERM=dumb.
if command -v script > /dev/null && script -qec true /dev/null > /dev/null 2>&1; then
	on_tty() { env "$@" script -qec "'$KSC' frobnicate" /dev/null < /dev/null > "$T_TMP/tty" 2>&1; }
	esc=$(printf '\033')
	on_tty -u NO_COLOR TERM=xterm
	grep -q "$esc\[" "$T_TMP/tty" && t_ok "a usage error is coloured on a terminal" ||
		t_fail "a usage error is coloured on a terminal" "$(od -c "$T_TMP/tty" | head -n 3)"
	grep -q "unknown command 'frobnicate'" "$T_TMP/tty" && t_ok "... with the same words" ||
		t_fail "... with the same words" "$(cat -v "$T_TMP/tty")"
	on_tty TERM=xterm NO_COLOR=1
	grep -q "$esc" "$T_TMP/tty" && t_fail "NO_COLOR=1: no colour" "$(cat -v "$T_TMP/tty")" ||
		t_ok "NO_COLOR=1: no colour"
	on_tty TERM=xterm NO_COLOR=
	grep -q "$esc\[" "$T_TMP/tty" && t_ok "NO_COLOR set but empty: colour (no-color.org)" ||
		t_fail "NO_COLOR set but empty: colour"
	on_tty -u NO_COLOR TERM=dumb
	grep -q "$esc" "$T_TMP/tty" && t_fail "TERM=dumb: no colour" || t_ok "TERM=dumb: no colour"
else
	t_skip "colour on a terminal" "no terminal to open (script(1) missing, or no /dev/pts)"
fi
TERM=xterm NO_COLOR='' "$KSC" frobnicate > "$T_TMP/out" 2> "$T_TMP/err"
grep -q "$(printf '\033')" "$T_TMP/err" && t_fail "not a terminal: no colour" || t_ok "not a terminal: no colour"
for cmd in $commands; do
	"$KSC" "$cmd" --help 2>&1 | grep -q "$(printf '\033')" && t_fail "$cmd --help has no colour when piped" ||
		t_ok "$cmd --help has no colour when piped"
done

# --version.
t_run "--version" 0 "$KSC" --version
make_version=$(sed -n 's/^VERSION := //p' Makefile)
header_version=$(sed -n 's/^#define KSC_VERSION_STRING "\(.*\)"/\1/p' lib/ksymcheck.h)
deb_version=$(sed -n '1s/^ksymcheck (\([^-)]*\).*/\1/p' debian/changelog)
t_eq "one version: Makefile, ksymcheck.h, debian/changelog" "$make_version $make_version" "$header_version $deb_version"
t_grep "... which --version prints" "ksymcheck $make_version " "$T_TMP/out"
for feature in +XZ +ZSTD +ZLIB +JSON; do
	grep -qw -- "$feature" "$T_TMP/out" && t_ok "--version lists $feature" || t_fail "--version lists $feature" "$(cat "$T_TMP/out")"
done
t_run "-V" 0 "$KSC" -V
