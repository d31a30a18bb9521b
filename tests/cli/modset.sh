# SPDX-License-Identifier: LGPL-2.1-or-later
# Which file is the module of a name (lib/modset/ksc-modset-search.c, doc/kernels.md "Which module
# wins"): an impostor kvm.ko in updates/dkms/ replaces the in-tree kvm for the loader, so
# `audit` flags it, `check` of kvm-amd says what the loader does with it and agrees with
# `tree`, `diff` from a tree that keeps the in-tree kvm shows kvm-amd breaking; depmod.d's override, exclude and search change the winner, and the tree's
# modules.dep equals kmod's depmod's for each configuration (when depmod is installed).
# Whole outputs are compared with tests/expected/modset/ (regenerate:
# KSC_REGEN=1 bash tests/cli/modset.sh, then review the git diff).
. tests/lib.sh
REL=6.16.0-demo
M=$FIXTURES/demo/modset
EXP=$TOP/tests/expected/modset
DEPMOD=$(PATH=$PATH:/usr/sbin:/sbin command -v depmod || true)
export LC_ALL=C

# expect NAME FILE: the last command's stdout (root folder shown as ROOT) is EXP/FILE
expect() {
	sed "s|$T_TMP/[a-z0-9]*|ROOT|g" "$T_TMP/out" > "$T_TMP/out.rel"
	if [ -n "${KSC_REGEN:-}" ]; then cp "$T_TMP/out.rel" "$EXP/$2"; fi
	t_diff "$1" "$EXP/$2" "$T_TMP/out.rel"
}

# The sample 6.16 kernel with the module-set fixtures: kvm and kvm-amd in kernel/,
# the impostor as updates/dkms/kvm.ko.
make_root() { # $1 root
	scripts/mk-sample-kernel.sh "$FIXTURES" "$1"
	local k=$1/lib/modules/$REL
	mkdir -p "$k/kernel/arch/x86/kvm" "$k/updates/dkms"
	cp "$M/kvm.ko" "$M/kvm-amd.ko" "$k/kernel/arch/x86/kvm/"
	cp "$M/kvm-dkms.ko" "$k/updates/dkms/kvm.ko"
}

# same_as_depmod NAME ROOT: the tree's modules.dep is what kmod's depmod writes for ROOT
# with ROOT's depmod.d (depmod itself reads the machine's folders: -C names ROOT's).
same_as_depmod() {
	local name=$1 r=$2 conf=()
	rm -rf "$T_TMP/dout" && mkdir -p "$T_TMP/dout"
	"$KSC" tree -b "$r" "$REL" --no-index --no-check -q --write-depmod "$T_TMP/dout" 2> /dev/null
	if [ -z "$DEPMOD" ]; then t_skip "$name" "depmod not installed"; return; fi
	rm -rf "$T_TMP/droot" && cp -a "$r" "$T_TMP/droot"
	for d in etc run usr/local/lib usr/lib lib; do
		[ -d "$T_TMP/droot/$d/depmod.d" ] && conf+=(-C "$T_TMP/droot/$d/depmod.d")
	done
	[ ${#conf[@]} -gt 0 ] || conf=(-C "$T_TMP/droot/no-such-folder")
	"$DEPMOD" -b "$T_TMP/droot" "${conf[@]}" "$REL" 2> "$T_TMP/depmod.err"
	t_diff "$name" "$T_TMP/droot/lib/modules/$REL/modules.dep" "$T_TMP/dout/modules.dep"
}

root=$T_TMP/imp
make_root "$root"
amd=$root/lib/modules/$REL/kernel/arch/x86/kvm/kvm-amd.ko

# ---- the impostor: updates/dkms/kvm.ko, no depmod.d ------------------------------------
t_run "audit: the impostor in updates/dkms" 1 "$KSC" audit -b "$root" "$REL"
expect "... flagged as replacing the in-tree kvm (modns-replaced) and as an impostor" audit-impostor.out
t_run "check kvm-amd: refused, as kvm is the impostor" 1 "$KSC" check -v -k "$root" --kver "$REL" "$amd"
expect "... the CRC of the impostor's export, and which file the loader gets" check-impostor.out
t_run "tree: the same verdict for kvm-amd" 1 "$KSC" tree -b "$root" "$REL" --no-index
expect "... and the impostor's own findings" tree-impostor.out
"$KSC" check -k "$root" --kver "$REL" "$amd" | sed -n 's/^kvm_amd\( (file [^)]*)\)\{0,1\}: //p' > "$T_TMP/c1"
grep '^kernel/arch/x86/kvm/kvm-amd.ko: ' "$T_TMP/out" | sed 's/^[^:]*: //' > "$T_TMP/c2"
t_diff "tree and check agree on kvm-amd" "$T_TMP/c1" "$T_TMP/c2"
t_eq "... the tree lists updates/dkms/kvm.ko, not the in-tree kvm" "updates/dkms/kvm.ko" \
	"$(grep -o '[a-z/]*kvm\.ko' "$T_TMP/out" | sort -u | tr '\n' ' ' | sed 's/ $//')"
same_as_depmod "tree: modules.dep as kmod's depmod, updates/ first" "$root"

# diff from the same tree with the in-tree kvm kept (an override) to the impostor's.
good=$T_TMP/good
make_root "$good"
mkdir -p "$good/etc/depmod.d"
echo "override kvm * kernel/arch/x86/kvm" > "$good/etc/depmod.d/kvm.conf"
t_run "diff: the in-tree kvm's tree to the impostor's" 1 "$KSC" diff "$good" "$root" "$amd"
expect "... kvm_fx_init's CRC changes, and kvm-amd breaks" diff-impostor.out
t_run "diff --view loader: the loader's verdicts only" 1 "$KSC" diff --view loader "$good" "$root" "$amd"
expect "... kvm-amd breaks, no modpost line" diff-impostor-loader.out
t_run "diff --view modpost: modpost's only" 0 "$KSC" diff --view modpost "$good" "$root" "$amd"
expect "... nothing breaks for modpost, which checks no CRC" diff-impostor-modpost.out
t_run "diff --view: an unknown view" 2 "$KSC" diff --view kernel "$good" "$root" "$amd"
t_grep "... says which" "ksymcheck: unknown --view 'kernel'" "$T_TMP/err"

# ---- through the index `tree` keeps (the runs above made it): the same outputs ---------
t_eq "check, audit and diff keep the index, one per tree" "2" \
	"$(ls "$XDG_CACHE_HOME"/ksymcheck/tree/ | grep -c "^$REL-.*\.idx$")"
# Files modified within the last two seconds are read again on every run (their mtime may
# not have ticked yet): the tree's are made older.
find "$root" "$good" -exec touch -h -d '2024-01-01 00:00' {} +
same_without_index() { # NAME ARGS...: index and no index, byte for byte, and the status
	local name=$1 a b
	shift
	"$KSC" "$@" > "$T_TMP/with" 2>&1; a=$?
	KSYMCHECK_NO_INDEX=1 "$KSC" "$@" > "$T_TMP/without" 2>&1; b=$?
	t_diff "$name" "$T_TMP/without" "$T_TMP/with"
	t_eq "... the same exit status" "$b" "$a"
}
same_without_index "index: check -v kvm-amd as without it" check -v -k "$root" --kver "$REL" "$amd"
same_without_index "index: audit as without it" audit -b "$root" "$REL" --format json
same_without_index "index: diff as without it" diff -v "$good" "$root" "$amd"
t_run "tree: the index check made, used as is" 1 "$KSC" tree -b "$root" "$REL"
t_grep "... nothing read again" "(0 read, " "$T_TMP/out"
# A progress bar while check, audit, nsdeps or diff read a tree: on a terminal only, not with
# --quiet or JSON (each run with a new index, so that the tree is read).
bar() { # ARGS...: 1 when the run, on a terminal, drew tree's progress bar, else 0
	local x=$T_TMP/xdg-bar-$RANDOM$RANDOM
	XDG_CACHE_HOME=$x script -q -c "$(printf "'%s' " "$KSC" "$@") > /dev/null" "$T_TMP/tty" \
		< /dev/null > /dev/null 2>&1 || true
	grep -c 'read    \[' "$T_TMP/tty" | sed 's/^[1-9][0-9]*$/1/'
}
if command -v script > /dev/null && script -qec true /dev/null > /dev/null 2>&1; then
	t_eq "progress bar: check, audit, nsdeps and diff on a terminal" "1 1 1 1" \
		"$(bar check -k "$root" --kver "$REL" "$amd") $(bar audit -b "$root" "$REL") $(bar nsdeps -k "$root" --kver "$REL" "$amd") $(bar diff "$good" "$root" "$amd")"
	t_eq "... none with --quiet or JSON" "0 0 0 0" \
		"$(bar check -q -k "$root" --kver "$REL" "$amd") $(bar check --json -k "$root" --kver "$REL" "$amd") $(bar audit -q -b "$root" "$REL") $(bar diff --json "$good" "$root" "$amd")"
else
	t_skip "progress bar: check, audit, nsdeps and diff on a terminal" "no terminal to open (script(1) missing, or no /dev/pts)"
fi
XDG_CACHE_HOME=$T_TMP/xdg-pipe "$KSC" check -k "$root" --kver "$REL" "$amd" > /dev/null 2> "$T_TMP/err"
t_eq "... none on a pipe" "" "$(tr -dc '\r' < "$T_TMP/err")"
# A cache that cannot be written (/proc/sys: not even by root): the tree is read whole, as
# without an index, with nothing said about it.
XDG_CACHE_HOME=/proc/sys/ksymcheck-test same_without_index \
	"an unwritable cache: the same output, nothing on stderr" check -v -k "$root" --kver "$REL" "$amd"

mkdir -p "$root/etc/depmod.d"
echo "override kvm * kernel/arch/x86/kvm" > "$root/etc/depmod.d/kvm.conf"
t_run "override: check kvm-amd loads" 0 "$KSC" check -k "$root" --kver "$REL" "$amd"
t_run "override: audit flags no replacement" 0 "$KSC" audit -b "$root" "$REL"
expect "... nothing to say" audit-override.out
same_as_depmod "override: modules.dep as kmod's depmod" "$root"
t_run "override: the index notices the new rules" 0 "$KSC" tree -b "$root" "$REL" --index "$T_TMP/idx" -q
echo "# no rule" > "$root/etc/depmod.d/kvm.conf"
t_run "... and when they go, the impostor is back" 1 "$KSC" tree -b "$root" "$REL" --index "$T_TMP/idx"
t_grep "... kvm-amd refused again" "kernel/arch/x86/kvm/kvm-amd.ko: kvm_fx_init: loader: refused" "$T_TMP/out"

# An override for another kernel release (an extended regex) is ignored.
echo "override kvm 5\.10\..* kernel/arch/x86/kvm" > "$root/etc/depmod.d/kvm.conf"
t_run "override for 5.10 only: the impostor stays" 1 "$KSC" check -k "$root" --kver "$REL" "$amd"
same_as_depmod "... modules.dep as kmod's depmod" "$root"

# etc/depmod.d hides a file of the same name in usr/lib/depmod.d.
mkdir -p "$root/usr/lib/depmod.d"
echo "override kvm * kernel/arch/x86/kvm" > "$root/usr/lib/depmod.d/kvm.conf"
t_run "usr/lib's kvm.conf hidden by etc's" 1 "$KSC" check -k "$root" --kver "$REL" "$amd"
rm "$root/etc/depmod.d/kvm.conf"
t_run "... and read without it" 0 "$KSC" check -k "$root" --kver "$REL" "$amd"
rm -r "$root/usr/lib/depmod.d"

# ---- exclude dkms, and search built-in updates ------------------------------------------
echo "exclude dkms" > "$root/etc/depmod.d/dkms.conf"
t_run "exclude dkms: check kvm-amd loads" 0 "$KSC" check -k "$root" --kver "$REL" "$amd"
t_run "... audit sees the in-tree kvm" 0 "$KSC" audit -b "$root" "$REL"
same_as_depmod "exclude: modules.dep as kmod's depmod" "$root"
echo "search built-in updates" > "$root/etc/depmod.d/dkms.conf"
t_run "search built-in updates: check kvm-amd loads" 0 "$KSC" check -k "$root" --kver "$REL" "$amd"
same_as_depmod "search: modules.dep as kmod's depmod" "$root"
printf 'search updates built-in\noverride kvm * updates/dkms\n' > "$root/etc/depmod.d/dkms.conf"
t_run "an override of updates/dkms: the impostor, by the override" 1 "$KSC" audit -b "$root" "$REL"
t_grep "... named in the finding" "updates/dkms/kvm.ko replaces kernel/arch/x86/kvm/kvm.ko for the loader (depmod.d: override kvm * updates/dkms)" "$T_TMP/out"
same_as_depmod "... modules.dep as kmod's depmod" "$root"
