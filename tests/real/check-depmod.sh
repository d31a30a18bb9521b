# SPDX-License-Identifier: LGPL-2.1-or-later
# `check -k ROOT` from depmod's files (ksc_kernel_open_for_modules()) against the whole
# tree's read, for every module of a Debian tree: kmod's depmod runs on a copy of the
# unpacked packages (Debian's packages ship no modules.dep; an installed system has one
# because depmod ran), then every module is checked both ways, in groups of
# $KSC_DEPMOD_BATCH (8; 1 checks each module alone) modules per command, two at a time,
# and the whole outputs (stdout, stderr, exit status) must be equal. The tree's read is
# KSYMCHECK_NO_DEPMOD=1 (through the index `tree` keeps, which stands for
# ksc_kernel_open(): tests/real/check-tree.sh).
# Real kernels: trixie
. tests/lib.sh
REAL_TESTS=("check (${KSC_REAL_KERNEL:-6.1}): depmod's files give the tree's verdicts"
	"check (${KSC_REAL_KERNEL:-6.1}): depmod's files are used"
	"check (${KSC_REAL_KERNEL:-6.1}): depmod's files and the index's records give them too")
. "$TOP/scripts/real-env.sh"
export LC_ALL=C
batch=${KSC_DEPMOD_BATCH:-8}
if [ -z "${KMOD_DEPMOD:-}" ]; then real_skip_all "kmod's depmod not installed"; fi

root=$T_TMP/root
mkdir -p "$root"
for d in boot usr lib; do
	[ -e "$KDIR/$d" ] && cp -a "$KDIR/$d" "$root/"
done
# kmod before 31 searches lib/modules only: the usrmerged packages' folder through a link
[ -e "$root/lib" ] || ln -s usr/lib "$root/lib"
"$KMOD_DEPMOD" -b "$root" "$KVER" 2> "$T_TMP/depmod.err" ||
	real_fail_all "depmod -b failed: $(head -3 "$T_TMP/depmod.err")"
mdir=$root/lib/modules/$KVER
(cd "$mdir" && find kernel -type f -name '*.ko*' | sort) > "$T_TMP/list"
n=$(wc -l < "$T_TMP/list")
echo "# $REAL_LABEL ($KVER): $n modules, $batch per command"

first=$mdir/$(head -n 1 "$T_TMP/list")
KSYMCHECK_NO_INDEX=1 KSYMCHECK_DEBUG=1 "$KSC" check -k "$root" --kver "$KVER" "$first" 2>&1 >/dev/null |
	grep "depmod's .*files not used" > "$T_TMP/why"
if [ -s "$T_TMP/why" ]; then
	t_fail "${REAL_TESTS[1]}" "$(cat "$T_TMP/why")"
else
	t_ok "${REAL_TESTS[1]}"
fi
# the index of the tree's read, made once before the commands that use it run two at a time
KSYMCHECK_NO_DEPMOD=1 "$KSC" check -q -k "$root" --kver "$KVER" "$first" > /dev/null 2>&1

mkdir -p "$T_TMP/fast" "$T_TMP/full"
run_group() { # OUTDIR FILE...: one check, its whole output into OUTDIR/<first file's name>
	local out=$1 name; shift
	name=$(echo "$1" | tr / _)
	{ KSYMCHECK_NO_INDEX=$no_index "$KSC" check -k "$root" --kver "$KVER" "$@" 2>&1; echo "exit $?"; } \
		| sed "s|$root|ROOT|g" > "$out/$name"
}
export -f run_group
export KSC root KVER
# depmod's files alone first: no index, every file they need read
export no_index=1
start=$(real_now)
(cd "$mdir" && xargs -a "$T_TMP/list" -n "$batch" -P 2 bash -c 'run_group "$0" "$@"' "$T_TMP/fast")
t_fast=$(real_elapsed "$start")
start=$(real_now)
(cd "$mdir" && KSYMCHECK_NO_DEPMOD=1 no_index=0 xargs -a "$T_TMP/list" -n "$batch" -P 2 \
	bash -c 'run_group "$0" "$@"' "$T_TMP/full")
t_full=$(real_elapsed "$start")
# depmod's files again, the facts from the records of the tree's index where the file is
# the one the record was read from (the providers, the checked modules themselves)
mkdir -p "$T_TMP/warm"
start=$(real_now)
(cd "$mdir" && no_index=0 xargs -a "$T_TMP/list" -n "$batch" -P 2 \
	bash -c 'run_group "$0" "$@"' "$T_TMP/warm")
t_warm=$(real_elapsed "$start")
echo "# depmod's files: ${t_fast}s; with the index's records: ${t_warm}s; the tree's index: ${t_full}s"
groups=$(find "$T_TMP/full" -type f | wc -l)
if diff -r "$T_TMP/full" "$T_TMP/fast" > "$T_TMP/diff" && [ "$groups" -gt 0 ]; then
	t_ok "${REAL_TESTS[0]} ($groups commands)"
else
	t_fail "${REAL_TESTS[0]}" "$groups commands" "$(head -n 20 "$T_TMP/diff")"
fi
if diff -r "$T_TMP/full" "$T_TMP/warm" > "$T_TMP/diff-warm" && [ "$groups" -gt 0 ]; then
	t_ok "${REAL_TESTS[2]} ($groups commands)"
else
	t_fail "${REAL_TESTS[2]}" "$groups commands" "$(head -n 20 "$T_TMP/diff-warm")"
fi
