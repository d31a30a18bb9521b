#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The real modpost of a kernel with module-restricted exports (sid's 7.2) as the oracle
# of `ksymcheck check --view modpost`. 7.2's headers need gcc-16, so the cases of
# tests/real/kmods72/ are built in a sid root (scripts/sid-root.sh: debootstrap, make,
# linux-headers-KVER; cached outside git) with
#     make -C /usr/src/linux-headers-KVER M=<case folder> modules
# the case folder bound into the root at the same absolute path. From 6.13 kbuild runs
# modpost inside the M= folder, so modpost names modules relative to it ("kvm", "[kvm.ko]").
#
# Per case, under $OUT/kbuild72-<kernel>/<case>/ (build.log, modpost.txt, status):
# 1. "kbuild72 <case>: modpost output as recorded": make's status and modpost's lines
#    equal tests/real/kmods72/<case>/modpost.expected (first line "status=N").
# 2. "kbuild72 <case>: ksymcheck check --view modpost agrees": run in the case folder,
#    `check --symvers <headers' Module.symvers> --config <their .config> --policy RULES
#    --view modpost --format kernel FILE...` prints exactly modpost's lines; FILE... are
#    the modules of modules.order: <name>.ko when built, else the <name>.o modpost read.
# Then every case is built again into lenient/<case> with KBUILD_MODPOST_WARN=1 and
# KBUILD_NSDEPS=1 (modpost -w -N: unresolved symbols and missing namespace imports are
# warnings), so that tests/real/loader72.sh can load what modpost refused; GPL-only misuse
# and an explicit module: import stay errors (no .ko).
# A case is rebuilt only when its sources, the root or this recipe changed.
# tests/run.sh --real takes the lanes in name order: this one runs before loader72.sh.
# Real kernels: sid
# shellcheck disable=SC2034 # read by scripts/real-env.sh
REAL_TESTS=("kbuild72: build the test modules against the real kbuild in a sid root")
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

case $RULES in
[0-5].* | 6.[0-9] | 6.1[0-5]) real_skip_all "$REAL_LABEL has no module-restricted exports (6.16 on)" ;;
esac
start=$(real_now)
rc=0
ROOT=$("$TOP/scripts/sid-root.sh" --suite "$REAL_KERNEL" "$KVER" 2> "$T_TMP/root.err") || rc=$?
if [ $rc -eq 3 ]; then
	real_skip_all "no $REAL_KERNEL root to build in ($(grep '^SKIP: ' "$T_TMP/root.err" | tail -n 1 | sed 's/^SKIP: //'))"
elif [ $rc -ne 0 ]; then
	real_fail_all "scripts/sid-root.sh failed (status $rc): $(tail -n 3 "$T_TMP/root.err" | tr '\n' ' ')"
fi
t_ok "${REAL_TESTS[0]} ($(basename "$ROOT"), $(real_elapsed "$start") s)"

KMODS=$TOP/tests/real/kmods72
MDIR=$TOP/$OUT/kbuild72-$REAL_KERNEL
case "$OUT" in /*) MDIR=$OUT/kbuild72-$REAL_KERNEL ;; esac
mkdir -p "$MDIR"
MDIR=$(cd "$MDIR" && pwd -P)
HEADERS=/usr/src/linux-headers-$KVER
RECIPE=1

# build CASE DEST [MAKE-VARIABLE...]: the case built into DEST (reused when unchanged)
build() {
	local c=$1 dst=$2 hash
	shift 2
	hash=$( { echo "recipe $RECIPE $KVER $(basename "$ROOT") $*";
		(cd "$KMODS/$c" && find . -type f ! -name modpost.expected | LC_ALL=C sort | xargs sha256sum); } |
		sha256sum | cut -c1-32)
	[ "$(cat "$dst/.ksc-hash" 2> /dev/null)" = "$hash" ] && return 0
	rm -rf "$dst"
	mkdir -p "$dst"
	cp -R "$KMODS/$c/." "$dst/"
	rm -f "$dst/modpost.expected"
	local st=0
	KSC_ROOT_BIND="$dst:$dst" "$TOP/scripts/sid-root.sh" --suite "$REAL_KERNEL" "$KVER" -- \
		make -C "$HEADERS" M="$dst" "$@" modules > "$dst/build.log" 2>&1 || st=$?
	echo "$st" > "$dst/status"
	grep -E '^(ERROR|WARNING): modpost: ' "$dst/build.log" > "$dst/modpost.txt" || true
	echo "$hash" > "$dst/.ksc-hash"
}

# The module files of a built case, in modules.order order: the .ko if built, else the .o
case_files() { # $1 case folder; names relative to it
	local o
	while IFS= read -r o; do
		o=${o%.ko}
		o=${o%.o}
		if [ -f "$1/$o.ko" ]; then echo "$o.ko"; else echo "$o.o"; fi
	done < "$1/modules.order"
}

LINES=0 CASES=0
for kb in "$KMODS"/*/Kbuild; do
	c=$(basename "$(dirname "$kb")")
	m=$MDIR/$c
	t0=$(real_now)
	build "$c" "$m"
	CASES=$((CASES + 1))
	echo "# $c: make status $(cat "$m/status") ($(real_elapsed "$t0") s); modpost said:"
	if [ -s "$m/modpost.txt" ]; then sed 's/^/#   /' "$m/modpost.txt"; else echo "#   (nothing)"; fi
	if [ ! -f "$m/modules.order" ]; then
		t_fail "kbuild72 $c: built" "no modules.order: $(tail -n 5 "$m/build.log")"
		continue
	fi

	{ echo "status=$(cat "$m/status")"; cat "$m/modpost.txt"; } > "$T_TMP/got"
	sed "s|@M@|$m|g" "$KMODS/$c/modpost.expected" > "$T_TMP/want" 2> /dev/null || : > "$T_TMP/want"
	t_diff "kbuild72 $c: modpost output as recorded" "$T_TMP/want" "$T_TMP/got"

	mapfile -t files < <(case_files "$m")
	krc=0
	(cd "$m" && "$KSC" check --symvers "$SYMVERS" --config "$(dirname "$SYMVERS")/.config" \
		--policy "$RULES" --view modpost --format kernel "${files[@]}") > "$m/ksymcheck.txt" 2> "$m/ksymcheck.err" || krc=$?
	echo "# ksymcheck check exited with status $krc for $c (${files[*]})"
	t_diff "kbuild72 $c: ksymcheck check --view modpost prints modpost's lines" "$m/modpost.txt" "$m/ksymcheck.txt"
	LINES=$((LINES + $(wc -l < "$m/modpost.txt")))

	build "$c" "$MDIR/lenient/$c" KBUILD_MODPOST_WARN=1 KBUILD_NSDEPS=1
	echo "# $c, lenient: make status $(cat "$MDIR/lenient/$c/status"), $(cd "$MDIR/lenient/$c" && ls ./*.ko 2> /dev/null | wc -l) .ko"
done
echo "# kbuild72 $REAL_LABEL: $CASES cases, $LINES modpost lines compared, $(real_elapsed "$start") s"
