# SPDX-License-Identifier: LGPL-2.1-or-later
# The command line of every command: options before, between and after the operands give
# the same output and exit status (GNU getopt's permutation); "--" ends the options;
# --json is --format json; the old spellings of the kernel options are aliases of the
# new ones; -q prints only errors and refusals; every message on standard error starts
# with "ksymcheck: "; a folder with no module in it is an error.
. tests/lib.sh
REL=6.16.0-demo
D=$FIXTURES/demo
S=tests/fixtures/srctree
root=$T_TMP/root
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"
m=$root/lib/modules/$REL
mkdir -p "$m/kernel/arch/x86/kvm" "$m/extra"
cp "$D/intree/kvm.ko" "$D/intree/kvm-amd.ko" "$m/kernel/arch/x86/kvm/"
cp "$D/extra/kvm-evil.ko" "$m/extra/"
OOT=$D/oot/kvm.ko FXDMA=$D/oot/fxdma.ko AMD=$D/intree/kvm-amd.ko

# t_same NAME RC ARGS... [:: ARGS...]...: ksymcheck with each ARGS list exits RC, and
# every list gives byte for byte the stdout and stderr of the first, which is not empty.
t_same() {
	local name=$1 rc=$2 n=0 i
	shift 2
	local -a args=()
	while :; do
		if [ $# -eq 0 ] || [ "$1" = "::" ]; then
			"$KSC" "${args[@]}" > "$T_TMP/same.out.$n" 2> "$T_TMP/same.err.$n"
			echo $? > "$T_TMP/same.rc.$n"
			n=$((n + 1))
			args=()
			[ $# -eq 0 ] && break
		else
			args+=("$1")
		fi
		shift
	done
	local bad=""
	[ -s "$T_TMP/same.out.0" ] || bad="$bad; the first one prints nothing"
	for ((i = 0; i < n; i++)); do
		[ "$(cat "$T_TMP/same.rc.$i")" = "$rc" ] ||
			bad="$bad; variant $((i + 1)) exits $(cat "$T_TMP/same.rc.$i"), not $rc: $(head -c 300 "$T_TMP/same.err.$i")"
		cmp -s "$T_TMP/same.out.0" "$T_TMP/same.out.$i" ||
			bad="$bad; variant $((i + 1)): other stdout: $(diff "$T_TMP/same.out.0" "$T_TMP/same.out.$i" | head -n 6)"
		cmp -s "$T_TMP/same.err.0" "$T_TMP/same.err.$i" ||
			bad="$bad; variant $((i + 1)): other stderr: $(diff "$T_TMP/same.err.0" "$T_TMP/same.err.$i" | head -n 6)"
	done
	if [ -z "$bad" ]; then t_ok "$name ($n variants, exit $rc)"; else t_fail "$name" "${bad#; }"; fi
}

# ---- options before, between and after the operands ---------------------------------

t_same "check: option order" 1 \
	check -v -k "$root" --kver "$REL" "$OOT" "$FXDMA" :: \
	check "$OOT" -v -k "$root" "$FXDMA" --kver "$REL" :: \
	check "$OOT" "$FXDMA" -k "$root" --kver "$REL" -v :: \
	check "$OOT" --kernel="$root" "$FXDMA" --kver="$REL" --verbose
t_same "audit: option order" 1 \
	audit -k "$root" --cert "$FIXTURES/signed/ec.pem" "$REL" :: \
	audit "$REL" -k "$root" --cert "$FIXTURES/signed/ec.pem" :: \
	audit --cert "$FIXTURES/signed/ec.pem" "$REL" --kernel "$root"

sv() { printf '0x%08x\t%s\t%s\t%s\t%s\n' "$@"; }
{
	sv 1 gone vmlinux EXPORT_SYMBOL ""
	sv 2 c_gpl vmlinux EXPORT_SYMBOL ""
	sv 0xd3ab0f00 dma_buf_get vmlinux EXPORT_SYMBOL_GPL DMA_BUF
	sv 0x6e0a7d3c module_layout vmlinux EXPORT_SYMBOL ""
} > "$T_TMP/old.symvers"
{
	sv 2 c_gpl vmlinux EXPORT_SYMBOL_GPL ""
	sv 3 new vmlinux EXPORT_SYMBOL ""
	sv 0xd3ab0f00 dma_buf_get vmlinux EXPORT_SYMBOL_GPL ""
	sv 0x6e0a7d3c module_layout vmlinux EXPORT_SYMBOL ""
} > "$T_TMP/new.symvers"
OLD=$T_TMP/old.symvers NEW=$T_TMP/new.symvers
t_same "diff: option order" 1 \
	diff --policy-old 6.12 --policy-new 6.16 "$OLD" "$NEW" :: \
	diff "$OLD" --policy-old 6.12 "$NEW" --policy-new 6.16 :: \
	diff "$OLD" "$NEW" --policy-new=6.16 --policy-old=6.12
t_same "diff with modules: option order" 1 \
	diff -v --policy-old 6.16 "$NEW" "$OLD" "$FXDMA" :: \
	diff "$NEW" -v "$OLD" --policy-old 6.16 "$FXDMA" :: \
	diff "$NEW" "$OLD" "$FXDMA" --policy-old 6.16 -v
t_same "modinfo: option order" 0 \
	modinfo -F license "$OOT" "$FXDMA" :: \
	modinfo "$OOT" -F license "$FXDMA" :: \
	modinfo "$OOT" "$FXDMA" --field=license
t_same "imports: option order" 0 \
	imports -f json "$OOT" "$FXDMA" :: \
	imports "$OOT" -f json "$FXDMA" :: \
	imports "$OOT" "$FXDMA" --format json
t_same "exports: option order" 0 \
	exports -f symvers "$root/boot/vmlinux-$REL" "$m" :: \
	exports "$root/boot/vmlinux-$REL" --format symvers "$m" :: \
	exports "$root/boot/vmlinux-$REL" "$m" -fsymvers
t_same "src scan: option order" 0 \
	src scan -j 1 --mentions "$S/scan" "$S/migrate/old" :: \
	src scan "$S/scan" -j 1 "$S/migrate/old" --mentions :: \
	src scan "$S/scan" "$S/migrate/old" --mentions --jobs=1
t_same "src migrate: option order" 1 \
	src migrate --to 6.17 "$S/migrate/old" :: \
	src migrate "$S/migrate/old" --to 6.17 :: \
	src migrate "$S/migrate/old" -t6.17

# nsdeps: fxdma uses dma_buf_get from DMA_BUF without importing it.
mkdir -p "$T_TMP/fxdma"
printf '#include <linux/module.h>\n\nMODULE_LICENSE("GPL");\n' > "$T_TMP/fxdma/fxdma.c"
t_same "nsdeps: option order" 1 \
	nsdeps -k "$root" --kver "$REL" --src "$T_TMP/fxdma" "$FXDMA" :: \
	nsdeps "$FXDMA" --src "$T_TMP/fxdma" -k "$root" --kver "$REL" :: \
	nsdeps --src "$T_TMP/fxdma" "$FXDMA" --kver "$REL" --kernel "$root"
t_grep "... the diff adds the import" '+MODULE_IMPORT_NS("DMA_BUF");' "$T_TMP/same.out.0"

t_same "explain: option order" 0 \
	explain -f json R16 gpl-only :: explain R16 -f json gpl-only :: explain R16 gpl-only --format=json

t_same "tree: option order" 0 \
	tree -k "$root" --no-index -v "$REL" :: \
	tree "$REL" --no-index -k "$root" -v :: \
	tree --no-index "$REL" -v --kernel="$root"

# ---- "--" ends the options ------------------------------------------------------------

mkdir -p "$T_TMP/dash"
cp "$FXDMA" "$T_TMP/dash/-v"
cp "$FXDMA" "$T_TMP/dash/fxdma.ko"
(cd "$T_TMP/dash" && "$KSC" imports fxdma.ko > "$T_TMP/plain.out")
sed 's|^fxdma.ko |-v |' "$T_TMP/plain.out" > "$T_TMP/want"
(cd "$T_TMP/dash" && t_run "imports -- -v: a module named -v" 0 "$KSC" imports -- -v)
t_diff "... listed as that file" "$T_TMP/want" "$T_TMP/out"
(cd "$T_TMP/dash" && t_run "imports -v: without --, -v is an option" 2 "$KSC" imports -v)
(cd "$T_TMP/dash" && t_same "check: -- -v is the module ./-v" 1 \
	check -k "$root" --kver "$REL" -- -v :: check ./-v -k "$root" --kver "$REL")
(cd "$T_TMP/dash" && t_run "check: after --, -k is an operand" 5 "$KSC" check -k "$root" --kver "$REL" -- -v -k)
t_grep "... reported as a file" "ksymcheck: -k: No such file or directory" "$T_TMP/err"

# ---- --json is --format json ----------------------------------------------------------

t_same "check --json" 1 \
	check -k "$root" --kver "$REL" --format json "$OOT" "$FXDMA" :: \
	check -k "$root" --kver "$REL" "$OOT" "$FXDMA" --json
t_same "audit --json" 1 audit -k "$root" --format json "$REL" :: audit "$REL" -k "$root" --json
t_same "diff --json" 1 diff "$OLD" "$NEW" --format=json :: diff --json "$OLD" "$NEW"
t_same "modinfo --json" 0 modinfo -f json "$OOT" :: modinfo "$OOT" --json
t_same "imports --json" 0 imports --format json "$FXDMA" :: imports "$FXDMA" --json
t_same "exports --json" 0 exports --format json "$m" :: exports "$m" --json
t_same "src scan --json" 0 src scan --format json "$S/scan" :: src scan "$S/scan" --json
t_same "explain --json" 0 explain --format json ns-missing :: explain ns-missing --json
# tree's JSON has the time each step took: compared without it.
untimed() { python3 -c 'import json, sys; d = json.load(sys.stdin); d.pop("timing"); print(json.dumps(d, indent=1))'; }
"$KSC" tree -k "$root" --no-index --format json "$REL" | untimed > "$T_TMP/want"
"$KSC" tree --json -k "$root" "$REL" --no-index | untimed > "$T_TMP/got"
t_diff "tree --json" "$T_TMP/want" "$T_TMP/got"
t_grep "... a JSON document" '"release": "6.16.0-demo"' "$T_TMP/got"
t_run "src migrate has no --format, so no --json" 2 "$KSC" src migrate --to 7.2 --json "$S/migrate/old"
printf '%s\n' "ksymcheck: unrecognized option '--json'" "Try 'ksymcheck src migrate --help'." > "$T_TMP/want"
t_diff "... and says so with the option the user typed" "$T_TMP/want" "$T_TMP/err"

# ---- the old spellings ----------------------------------------------------------------

"$KSC" exports --format symvers "$root/boot/vmlinux-$REL" > "$T_TMP/vmlinux.symvers"
t_same "check: -b and --basedir are -k" 1 \
	check -k "$root" --kver "$REL" "$FXDMA" :: \
	check -b "$root" --kver "$REL" "$FXDMA" :: \
	check --basedir "$root" --kver "$REL" "$FXDMA"
t_same "nsdeps: -b is -k" 1 \
	nsdeps -k "$root" --kver "$REL" --src "$T_TMP/fxdma" "$FXDMA" :: \
	nsdeps -b "$root" --kver "$REL" --src "$T_TMP/fxdma" "$FXDMA"
t_same "audit: -b is -k, --kver is the KVER operand" 1 \
	audit -k "$root" "$REL" :: audit -b "$root" "$REL" :: audit --basedir "$root" --kver "$REL"
t_same "tree: -b is -k, --kver is the KVER operand" 0 \
	tree -k "$root" --no-index "$REL" :: \
	tree -b "$root" --no-index "$REL" :: \
	tree --basedir "$root" --no-index --kver "$REL"
t_same "tree: -E is -s and --symvers (depmod's)" 1 \
	tree -k "$root" --no-index --no-kernel-search -s "$T_TMP/vmlinux.symvers" "$REL" :: \
	tree -k "$root" --no-index --no-kernel-search --symvers "$T_TMP/vmlinux.symvers" "$REL" :: \
	tree -k "$root" --no-index --no-kernel-search -E "$T_TMP/vmlinux.symvers" "$REL"
t_same "src scan: --threads is -j and --jobs" 0 \
	src scan -j 2 "$S/scan" :: src scan --jobs 2 "$S/scan" :: src scan --threads 2 "$S/scan"
t_run "tree: KVER twice is a usage error" 2 "$KSC" tree -k "$root" --kver "$REL" "$REL"
t_run "check: -F is not System.map" 2 "$KSC" check -F x -k "$root" "$FXDMA"

# ---- -q, --quiet ----------------------------------------------------------------------

t_run "check: the full text" 1 "$KSC" check -k "$root" --kver "$REL" "$OOT" "$FXDMA"
grep -F ': refused: ' "$T_TMP/out" > "$T_TMP/want"
t_grep "... has warnings" ': warning: ' "$T_TMP/out"
t_run "check -q" 1 "$KSC" check -q -k "$root" --kver "$REL" "$OOT" "$FXDMA"
t_diff "... only the refusals of the full text" "$T_TMP/want" "$T_TMP/out"
t_same "check -q: --json is printed whole" 1 \
	check -k "$root" --kver "$REL" --json "$OOT" "$FXDMA" :: \
	check -k "$root" --kver "$REL" --json "$OOT" "$FXDMA" --quiet

t_run "audit: the full text" 1 "$KSC" audit -k "$root" "$REL"
grep -E ': (warning|error): .* \[[a-z0-9-]+\]$' "$T_TMP/out" > "$T_TMP/want"
t_run "audit -q" 1 "$KSC" audit -q -k "$root" "$REL"
t_diff "... only the warnings and errors found" "$T_TMP/want" "$T_TMP/out"

t_run "diff: the full text" 1 "$KSC" diff "$OLD" "$NEW"
grep -v '^changes:' "$T_TMP/out" > "$T_TMP/want"
t_run "diff -q" 1 "$KSC" diff -q "$OLD" "$NEW"
t_diff "... the changes without the counts" "$T_TMP/want" "$T_TMP/out"
t_run "diff with modules: the full text" 1 "$KSC" diff --policy-old 6.16 "$NEW" "$OLD" "$FXDMA" "$AMD"
grep '^fxdma: loader: loads -> E[A-Z]*; modpost: pass -> fail$' "$T_TMP/out" > "$T_TMP/want"
t_grep "... kvm-amd is refused on both: no break" \
	"kvm_amd (file kvm-amd.ko; modpost matches the file name): loader: ENOENT -> ENOENT; modpost: fail -> fail" \
	"$T_TMP/out"
t_run "diff -q with modules" 1 "$KSC" diff -q --policy-old 6.16 "$NEW" "$OLD" "$FXDMA" "$AMD"
t_diff "... only the verdicts of the module that breaks" "$T_TMP/want" "$T_TMP/out"
t_eq "... which is fxdma" 1 "$(wc -l < "$T_TMP/want")"

for cmd in modinfo imports exports; do
	t_run "$cmd -q: a readable module and a bad one" 4 "$KSC" "$cmd" "$FXDMA" "$FIXTURES/bad/empty.ko" -q
	t_eq "... nothing on stdout" "" "$(cat "$T_TMP/out")"
	t_eq "... the error on stderr" "ksymcheck: $FIXTURES/bad/empty.ko: empty file" "$(cat "$T_TMP/err")"
	t_run "$cmd -q: only readable modules" 0 "$KSC" "$cmd" -q "$m"
	t_eq "... print nothing" "" "$(cat "$T_TMP/out" "$T_TMP/err")"
done
t_run "explain -q: known ids" 0 "$KSC" explain -q R16 gpl-only
t_eq "... print nothing" "" "$(cat "$T_TMP/out" "$T_TMP/err")"
t_run "explain -q: an unknown id" 2 "$KSC" explain R16 -q no-such-code
t_eq "... is still reported" "ksymcheck: explain: unknown rule or code 'no-such-code'" "$(head -n 1 "$T_TMP/err")"
t_run "src scan -q" 0 "$KSC" src scan -q "$S/scan"
t_eq "... prints nothing" "" "$(cat "$T_TMP/out" "$T_TMP/err")"
t_run "src migrate -q" 1 "$KSC" src migrate -q --to 6.17 "$S/migrate/old"
t_eq "... no diff" "" "$(cat "$T_TMP/out")"
grep -v 'to change for 6.17$' "$S/migrate-old-6.17.notes" | sed "s|^ksymcheck: note: migrate/|ksymcheck: note: $S/migrate/|" > "$T_TMP/want"
t_diff "... only the note on what cannot be rewritten, no summary" "$T_TMP/want" "$T_TMP/err"
t_run "nsdeps -q" 1 "$KSC" nsdeps -q -k "$root" --kver "$REL" --src "$T_TMP/fxdma" "$FXDMA"
t_eq "... prints nothing: the exit status says imports are missing" "" "$(cat "$T_TMP/out" "$T_TMP/err")"

# ---- messages on standard error -------------------------------------------------------

t_run "a missing file" 4 "$KSC" imports "$T_TMP/nowhere.ko"
t_eq "... ksymcheck: PATH: reason" "ksymcheck: $T_TMP/nowhere.ko: No such file or directory" "$(cat "$T_TMP/err")"
t_run "a kernel image given as a module" 4 "$KSC" check -k "$root" --kver "$REL" "$root/boot/vmlinux-$REL"
t_eq "... ksymcheck: PATH: reason" "ksymcheck: $root/boot/vmlinux-$REL: not a module" "$(cat "$T_TMP/err")"
printf 'not an index' > "$T_TMP/bad.idx"
t_run "tree: a corrupt index" 0 "$KSC" tree -k "$root" "$REL" --index "$T_TMP/bad.idx"
t_grep "... is a warning: ksymcheck: warning: PATH: reason" "ksymcheck: warning: $T_TMP/bad.idx: " "$T_TMP/err"
printf 'not an index' > "$T_TMP/bad.idx"
t_run "tree -q: a corrupt index" 0 "$KSC" tree -q -k "$root" "$REL" --index "$T_TMP/bad.idx"
t_eq "... no warning" "" "$(cat "$T_TMP/err")"
t_run "nsdeps: a namespace to import" 1 "$KSC" nsdeps -k "$root" --kver "$REL" --src "$T_TMP/fxdma" "$FXDMA"
printf '%s\n' "ksymcheck: note: $FXDMA: uses dma_buf_get from namespace DMA_BUF, not imported" \
	"ksymcheck: note: the diff is relative to $T_TMP/fxdma: apply it there with 'patch -p1'" > "$T_TMP/want"
t_diff "... is a note, and so is where the diff applies" "$T_TMP/want" "$T_TMP/err"

# Usage errors name the option as it was typed.
usage() { # NAME WANT ARGS...: exit status 2, the message, then how to get help
	local name=$1 want=$2 cmd=$3
	shift 2
	t_run "$name" 2 "$KSC" "$@"
	printf '%s\n' "ksymcheck: $want" "Try 'ksymcheck $cmd --help'." > "$T_TMP/want"
	t_diff "... $want" "$T_TMP/want" "$T_TMP/err"
}
usage "an unknown long option" "unrecognized option '--bogus'" check --bogus "$FXDMA"
usage "an unknown short option" "invalid option -- 'x'" check -k "$root" -vx "$FXDMA"
usage "an ambiguous option" "option '--v' is ambiguous" check --v "$FXDMA"
usage "a missing argument (short)" "option requires an argument -- 'k'" check "$FXDMA" -k
usage "a missing argument (long)" "option '--kver' requires an argument" tree --kver
usage "an argument where none is taken" "option '--quiet' doesn't allow an argument" audit --quiet=yes
usage "a bad --jobs" "--jobs needs a number from 1 to 256" tree -j 0

# ---- a folder with no module ----------------------------------------------------------

mkdir -p "$T_TMP/empty/sub"
touch "$T_TMP/empty/sub/readme.txt"
for cmd in modinfo imports exports; do
	"$KSC" "$cmd" "$FXDMA" > "$T_TMP/want"
	t_run "$cmd: a folder with no module among modules" 4 "$KSC" "$cmd" "$T_TMP/empty" "$FXDMA"
	t_eq "... is an error" "ksymcheck: $T_TMP/empty: no module found" "$(cat "$T_TMP/err")"
	t_diff "... the other operands still done" "$T_TMP/want" "$T_TMP/out"
done
t_run "check: a folder with no module" 5 "$KSC" check -k "$root" --kver "$REL" "$FXDMA" "$T_TMP/empty"
t_eq "... is an error" "ksymcheck: $T_TMP/empty: no module found" "$(cat "$T_TMP/err")"
t_grep "... the module is still checked" "1 module checked" "$T_TMP/out"
