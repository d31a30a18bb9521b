#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The in-tree-only rule (--require-intree, doc/rules.md R25 and R40) against the real
# patched kernel: scripts/intree-kernel.sh builds sid's linux-source-7.2 with the rule
# applied by scripts/intree-patch.sh (our own edit of verify_namespace_is_imported() and
# check_exports(), as the proposed, never merged patch "module: Restrict module namespace
# access to in-tree modules" describes them), plus modpost from the unpatched source.
# Cached: a cold build takes ~15-20 min on 2 cores, a warm one seconds.
#
# Test modules, 25: each calls ksc_restricted (built into vmlinux, exported for
# "kscu_*,ksc-d*,ksc_e*") or, one control, a plain GPL export. Names: kscu_* (matches
# both halves), ksc_d* files (the loader matches, '-' and '_' equal; modpost compares the
# file name exactly and does not), ksc-e* files (the other way round), kscx_* (no
# match); .modinfo intree "Y", "N" or absent; built with make M= and in the kernel tree
# (ksctest/, obj-m from the command line).
#
# modpost: each build kind is made three times (patched modpost, patched with -N via
# KBUILD_NSDEPS=1, unpatched via MODPOST=) and the "modpost:" lines about the test
# modules are compared with `ksymcheck check --view modpost --format kernel` given
# --require-intree (not for the unpatched one), -N, and --external-build or
# --in-tree-build. Loader: the -N builds of all 25 are loaded in one boot of the patched
# kernel under qemu (scripts/qemu-load.sh) and the errnos and the kernel's lines are
# compared with `check --view loader --format kernel --require-intree` (insmod's own
# lines, which are not the kernel's, left out). Only kernel lines about the test modules
# are compared: modpost lines are kept when they name one of them; log lines when they
# start with one of their names, or are the loader's once-per-boot "Disabling lock
# debugging due to kernel taint"; every other line is listed as a TAP comment.
# Real kernels: sid
# shellcheck disable=SC2034 # read by scripts/real-env.sh's helpers
REAL_TESTS=("intree: the patched 7.2 kernel and modpost against --require-intree")
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
skip_all() { for n in "${REAL_TESTS[@]}"; do t_skip "$n" "$1"; done; exit 0; }

start=$SECONDS
rc=0
KD=$("$TOP/scripts/intree-kernel.sh" 2> "$T_TMP/kernel.err") || rc=$?
[ $rc -eq 3 ] && skip_all "no patched kernel: $(tail -n 1 "$T_TMP/kernel.err")"
if [ $rc -ne 0 ]; then
	t_fail "${REAL_TESTS[0]}" "scripts/intree-kernel.sh failed: $(tail -n 3 "$T_TMP/kernel.err")"
	exit 1
fi
command -v qemu-system-x86_64 > /dev/null || skip_all "no qemu-system-x86_64 (scripts/install-deps.sh --test)"
echo "# kernel: $KD ($((SECONDS - start)) s)"
B=$KD/build
CC=$(command -v gcc-12 || command -v gcc)
KSC_ABS=$KSC
case "$KSC" in /*) ;; *) KSC_ABS=$TOP/$KSC ;; esac

W=$TOP/$OUT/intree
case "$OUT" in /*) W=$OUT/intree ;; esac
rm -rf "$W"
mkdir -p "$W/ext"

# --- the test modules ---------------------------------------------------------------------
# name kind: u d e x (see above), intree: y n a, build: m t; plus kscu_mp (the control).
mods_m=() mods_t=()
source_of() { # $1 file name without .c, $2 intree (y n a), $3 symbol
	local info=
	case $2 in y) info='MODULE_INFO(intree, "Y");' ;; n) info='MODULE_INFO(intree, "N");' ;; esac
	cat <<C
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
int $3(void);
static int __init ksc_init(void)
{
	return $3() > 0 ? 0 : -EIO;
}
module_init(ksc_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck intree lane");
$info
C
}
for b in m t; do
	for k in u d e x; do
		for i in y n a; do
			case $k in u) f=kscu_$b$i ;; d) f=ksc_d$b$i ;; e) f=ksc-e$b$i ;; x) f=kscx_$b$i ;; esac
			if [ $b = m ]; then
				source_of "$f" $i ksc_restricted > "$W/ext/$f.c"; mods_m+=("$f")
			else
				source_of "$f" $i ksc_restricted > "$KD/src/ksctest/$f.c"; mods_t+=("$f")
			fi
		done
	done
done
source_of kscu_mp a ksc_plain > "$W/ext/kscu_mp.c"
mods_m+=(kscu_mp)
obj_m=$(printf '%s.o ' "${mods_m[@]}")
echo "obj-m := $obj_m" > "$W/ext/Kbuild"
rm -f "$KD/src/ksctest/"*.o "$KD/src/ksctest/"*.ko
mk=(make -C "$KD/src" O="$B" ARCH=x86_64 CC="$CC" HOSTCC="$CC" -j2)
tree_mods=$(printf '%s.o ' "${mods_t[@]}")

# build KIND VARIANT: make output in $W/make-KIND-VARIANT.log, .ko files copied to
# $W/ko-KIND-VARIANT/. VARIANT: patched, nsdeps (-N), unpatched.
build() {
	local kind=$1 variant=$2 extra=() log=$W/make-$1-$2.log
	case $variant in
	nsdeps) extra=(KBUILD_NSDEPS=1) ;;
	unpatched) extra=(MODPOST="$KD/modpost-unpatched") ;;
	esac
	if [ "$kind" = m ]; then
		"${mk[@]}" M="$W/ext" "${extra[@]}" modules > "$log" 2>&1 || true
		mkdir -p "$W/ko-$kind-$variant"
		cp "$W/ext/"*.ko "$W/ko-$kind-$variant/" 2> /dev/null || true
		rm -f "$W/ext/"*.ko "$W/ext/Module.symvers"
	else
		"${mk[@]}" KSC_INTREE_MODS="$tree_mods" "${extra[@]}" modules > "$log" 2>&1 || true
		mkdir -p "$W/ko-$kind-$variant"
		cp "$B/ksctest/"*.ko "$W/ko-$kind-$variant/" 2> /dev/null || true
		rm -f "$B/ksctest/"*.ko
	fi
}
t0=$SECONDS
for kind in m t; do
	for variant in patched unpatched nsdeps; do build $kind $variant; done
done
echo "# 6 builds of the test modules: $((SECONDS - t0)) s"
nko=$(find "$W/ko-m-nsdeps" "$W/ko-t-nsdeps" -name '*.ko' | wc -l)
if [ "$nko" -ne 25 ]; then
	t_fail "${REAL_TESTS[0]}" "the -N builds gave $nko modules, not 25" \
		"$(grep -h -m3 -i error "$W"/make-*-nsdeps.log)"
	exit 1
fi

# --- modpost ------------------------------------------------------------------------------
names_re=$(printf '%s|' "${mods_m[@]}" "${mods_t[@]}")
names_re="(${names_re%|})"
K=(-s "$B/Module.symvers" --config "$B/.config" --policy 7.2)
cmp_total=0 cmp_lines=0 cmp_bad=0
modpost_compare() { # KIND VARIANT KSC-OPTIONS...
	local kind=$1 variant=$2; shift 2
	local -a mods=() files=()
	if [ "$kind" = m ]; then mods=("${mods_m[@]}"); else mods=("${mods_t[@]}"); fi
	for m in "${mods[@]}"; do files+=("$W/ko-$kind-nsdeps/$m.ko"); done
	grep -E '^(ERROR|WARNING): modpost: ' "$W/make-$kind-$variant.log" |
		grep -E "[ '\"/\[]$names_re([ .'\"]|\.ko|$)" > "$W/modpost-$kind-$variant.real" || true
	grep -E '^(ERROR|WARNING): modpost: ' "$W/make-$kind-$variant.log" |
		grep -vE "[ '\"/\[]$names_re([ .'\"]|\.ko|$)" | sed 's/^/# not about the test modules: /' || true
	"$KSC_ABS" check "${K[@]}" --view modpost --format kernel "$@" "${files[@]}" \
		> "$W/modpost-$kind-$variant.ksc" 2> "$W/modpost-$kind-$variant.err"
	cmp_total=$((cmp_total + 1))
	cmp_lines=$((cmp_lines + $(wc -l < "$W/modpost-$kind-$variant.real")))
	if diff -u "$W/modpost-$kind-$variant.real" "$W/modpost-$kind-$variant.ksc" > "$W/modpost-$kind-$variant.diff"; then
		t_ok "modpost, $kind build, $variant: $(wc -l < "$W/modpost-$kind-$variant.real") lines as predicted"
	else
		cmp_bad=$((cmp_bad + $(grep -c '^[-+][^-+]' "$W/modpost-$kind-$variant.diff")))
		t_fail "modpost, $kind build, $variant" "$(head -n 30 "$W/modpost-$kind-$variant.diff")"
	fi
}
modpost_compare m patched --require-intree --external-build
modpost_compare m nsdeps --require-intree --external-build -N
modpost_compare m unpatched --external-build
modpost_compare t patched --require-intree --in-tree-build
modpost_compare t nsdeps --require-intree --in-tree-build -N
modpost_compare t unpatched --in-tree-build

# --- the loader ---------------------------------------------------------------------------
files=()
for m in "${mods_m[@]}"; do files+=("$W/ko-m-nsdeps/$m.ko"); done
for m in "${mods_t[@]}"; do files+=("$W/ko-t-nsdeps/$m.ko"); done
t0=$SECONDS
if KSC_VMLINUZ=$B/vmlinux KSC_QEMU_HALT=reboot KSC_QEMU_TIMEOUT=120 "$TOP/scripts/qemu-load.sh" "$W/boot" "${files[@]}" \
	> "$W/qemu.log" 2>&1; then
	t_ok "the patched kernel booted and loaded 25 modules ($((SECONDS - t0)) s)"
else
	t_fail "the patched kernel booted under qemu" "$(tail -n 5 "$W/qemu.log")"
	exit 1
fi
"$KSC_ABS" check "${K[@]}" --view loader --format kernel --require-intree "${files[@]}" \
	> "$W/loader.ksc.all" 2> "$W/loader.err"
grep -v '^insmod: ERROR: ' "$W/loader.ksc.all" > "$W/loader.ksc"
lnames=$(printf '%s|' "${mods_m[@]}" "${mods_t[@]}" | tr - _)
lnames="(${lnames%|})"
grep -E "^$lnames: |^Disabling lock debugging due to kernel taint$" "$W/boot/dmesg.txt" > "$W/loader.real" || true
grep -vE "^$lnames: |^Disabling lock debugging due to kernel taint$" "$W/boot/dmesg.txt" |
	sed 's/^/# not about the test modules: /' || true
if diff -u "$W/loader.real" "$W/loader.ksc" > "$W/loader.diff"; then
	t_ok "loader: $(wc -l < "$W/loader.real") kernel lines as predicted"
else
	t_fail "loader: the kernel's lines" "$(head -n 30 "$W/loader.diff")"
fi
"$KSC_ABS" check "${K[@]}" --view loader --json --require-intree "${files[@]}" > "$W/loader.json" 2> /dev/null
python3 - "$W/loader.json" "$W/boot/results.txt" > "$W/errnos" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
pred = {os.path.basename(m["path"]): m["loader"]["errno"] for m in d["modules"]}
bad = n = 0
for line in open(sys.argv[2]):
    f, rc, name = line.rstrip("\n").split("\t")
    n += 1
    if str(pred.get(f)) != rc:
        bad += 1
        print("# %s: the kernel returned %s (%s), ksymcheck says %s" % (f, rc, name, pred.get(f)))
print("%d %d" % (n, bad))
PY
read -r nerr nbad < <(tail -n 1 "$W/errnos")
grep '^#' "$W/errnos" || true
if [ "$nerr" = 25 ] && [ "$nbad" = 0 ]; then t_ok "loader: 25 errnos as predicted"
else t_fail "loader: errnos" "$nbad of $nerr differ"; fi
refused=$(awk -F'\t' '$2 != 0' "$W/boot/results.txt" | wc -l)
echo "# intree lane: 25 modules, 1 boot; modpost: $cmp_total comparisons, $cmp_lines lines," \
	"$cmp_bad lines differ; loader: $nerr errnos ($refused refused), $nbad differ," \
	"$(wc -l < "$W/loader.real") log lines; $((SECONDS - start)) s"
