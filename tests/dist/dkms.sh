# SPDX-License-Identifier: LGPL-2.1-or-later
# contrib/dkms/ksymcheck-post-build, called the way dkms calls it, without dkms: a DKMS
# tree ($dkms_tree/MODULE/VERSION/{source,build,KERNELVER/ARCH/module}) holding fixture
# modules, dkms.conf read as dkms reads it (sourced with kernelver and arch set), then
# POST_BUILD run as dkms 3.0.10 runs it (cd build; exec $run: the status is ignored there)
# and as dkms 3.1.5+ does (cd build && $run, output to make.log, the status fails the
# build), and PRE_INSTALL as every dkms runs it (cd source; a failure aborts the install).
# The kernel is the sample 6.16 kernel (scripts/mk-sample-kernel.sh), given to the hook by
# KSYMCHECK_ROOT; KSYMCHECK is the ksymcheck under test.
. tests/lib.sh
root=$T_TMP/root
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"
kver=6.16.0-demo
arch=x86_64
D=$FIXTURES/demo
hook=$TOP/contrib/dkms/ksymcheck-post-build
export KSYMCHECK=$KSC KSYMCHECK_ROOT=$root
unset KSYMCHECK_DKMS_STRICT KSYMCHECK_DKMS_WARN_ONLY

# dkms_tree MODULE MODULES...: lay out what dkms has after building MODULE 1.0: the source
# in /usr/src (dkms.conf, and the hook as a symbolic link to the one in the tree), the
# "source" link to it, the "build" copy (cp -a, as dkms makes it) and the built modules.
dkms_tree=$T_TMP/var/lib/dkms
mk_tree() {
	local module=$1
	shift
	local src=$T_TMP/usr/src/$module-1.0
	rm -rf "${src:?}" "${dkms_tree:?}/${module:?}"
	mkdir -p "$src" "$dkms_tree/$module/1.0/$kver/$arch/module"
	sed -e "s/\"mymod\"/\"$module\"/" contrib/dkms/dkms.conf.example > "$src/dkms.conf"
	ln -s "$hook" "$src/ksymcheck-post-build"
	ln -s "$src" "$dkms_tree/$module/1.0/source"
	cp -a "$src" "$dkms_tree/$module/1.0/build"
	cp "$@" "$dkms_tree/$module/1.0/$kver/$arch/module/"
}
# read_conf MODULE: POST_BUILD and PRE_INSTALL as dkms expands them in dkms.conf.
read_conf() {
	module=$1 module_version=1.0 kernelver=$kver kernel_source_dir=/lib/modules/$kver/build
	POST_BUILD="" PRE_INSTALL=""
	. "$dkms_tree/$1/1.0/source/dkms.conf"
}
# dkms 3.0.10's run_build_script: cd, then exec the words of $run; stdout+stderr -> out.
run_build_script() { # TYPE SCRIPT
	local script_type=source
	case $1 in pre_build | post_build) script_type=build ;; esac
	local run="$dkms_tree/$module/$module_version/$script_type/$2"
	[ -x "${run%% *}" ] || { echo "The $1 script is not executable."; return 0; }
	(
		cd "$dkms_tree/$module/$module_version/$script_type/" || exit 15
		exec $run
	)
}
# dkms 3.1.5+: invoke_command "cd $dir && $run" "..." "$build_log" background.
run_build_script_logged() { # TYPE SCRIPT LOG
	local run="$dkms_tree/$module/$module_version/build/$2"
	bash -c "cd $dkms_tree/$module/$module_version/build/ && $run" >> "$3" 2>&1
}

mk_tree fxdma "$D/oot/fxdma.ko"
read_conf fxdma
t_eq "dkms.conf.example: POST_BUILD as dkms expands it" "ksymcheck-post-build $kver $arch" "$POST_BUILD"
t_eq "dkms.conf.example: PRE_INSTALL too" "ksymcheck-post-build $kver $arch" "$PRE_INSTALL"

# 1. A module the loader refuses (no MODULE_IMPORT_NS for DMA_BUF).
run_build_script post_build "$POST_BUILD" > "$T_TMP/out" 2>&1
rc=$?
t_eq "POST_BUILD (dkms 3.0.10): a refused module fails the hook" 1 $rc
want_lines=("fxdma: module uses symbol (dma_buf_get) from namespace DMA_BUF, but does not import it."
	"fxdma: Unknown symbol dma_buf_get (err -22)"
	"insmod: ERROR: could not insert module $dkms_tree/fxdma/1.0/$kver/$arch/module/fxdma.ko: Invalid parameters"
	"fxdma: dma_buf_get: loader: refused: namespace DMA_BUF is not imported [ns-missing]"
	'    fix: add MODULE_IMPORT_NS("DMA_BUF");'
	"ksymcheck-post-build: error: the $kver kernel would refuse the modules above; failing the DKMS build")
for l in "${want_lines[@]}"; do t_grep "... says: ${l:0:60}" "$l" "$T_TMP/out"; done
t_grep "... checks DKMS's copies of the modules for that kernel" \
	"checking the modules in $dkms_tree/fxdma/1.0/$kver/$arch/module against $kver" "$T_TMP/out"

log=$T_TMP/make.log
: > "$log"
run_build_script_logged post_build "$POST_BUILD" "$log"
t_eq "POST_BUILD (dkms 3.1.5+, output to make.log): fails the build" 1 $?
t_grep "... the kernel's lines in make.log" "${want_lines[0]}" "$log"

run_build_script pre_install "$PRE_INSTALL" > "$T_TMP/out" 2>&1
t_eq "PRE_INSTALL (from the source folder): fails, so dkms aborts the install" 1 $?
t_grep "... same modules" "insmod: ERROR: could not insert module $dkms_tree/fxdma/1.0/$kver/$arch/module/fxdma.ko" "$T_TMP/out"
t_grep "... says the install fails" "failing the DKMS install" "$T_TMP/out"

# 2. Modules that load, compressed the way dkms compresses them.
mk_tree kvm "$D/intree/kvm.ko" "$D/intree/kvm-amd.ko"
xz "$dkms_tree/kvm/1.0/$kver/$arch/module/kvm.ko"
zstd -q --rm "$dkms_tree/kvm/1.0/$kver/$arch/module/kvm-amd.ko"
read_conf kvm
run_build_script post_build "$POST_BUILD" > "$T_TMP/out" 2>&1
t_eq "POST_BUILD: modules that load (.ko.xz, .ko.zst) pass" 0 $?
t_grep "... and it says so" "every module would load on $kver" "$T_TMP/out"

# 2b. A package of several modules (xone: xone_dongle uses xone_gip and sorts before it):
# loaded as modprobe would, dependencies first.
mk_tree fxbus "$D/dkms/fxdongle.ko" "$D/dkms/fxgip.ko"
read_conf fxbus
run_build_script post_build "$POST_BUILD" > "$T_TMP/out" 2>&1
t_eq "a package whose driver sorts before the module it uses: passes" "0 1" \
	"$? $(grep -c "every module would load on $kver" "$T_TMP/out")"
# 2c. jool: the core is refused (a symbol the kernel does not export); the refusal comes
# first, and the module that needs the core says so once.
mk_tree fxjool "$D/dkms/fxjool.ko" "$D/dkms/fxjool_common.ko"
read_conf fxjool
run_build_script post_build "$POST_BUILD" > "$T_TMP/out" 2>&1
t_eq "a package whose core is refused: fails" 1 $?
t_eq "... the first refusal names the missing kernel symbol" \
	"fxjool_common: snmp_fold_field: loader: refused: no one exports this symbol [unresolved]" \
	"$(grep -m 1 ': loader: refused: ' "$T_TMP/out")"
t_eq "... the module that needs the core says so once" "1 0" \
	"$(grep -c '^fxjool: 2 symbols: loader: refused: exported by fxjool_common, which would be refused (see above) \[dep-refused\]$' "$T_TMP/out") $(grep -c '^fxjool: .*\[unresolved\]$' "$T_TMP/out")"

# 2d. Signed by DKMS's key (KSYMCHECK_DKMS_KEY): trusted when mokutil says it is
# enrolled, else one note. The kernel has CONFIG_MODULE_SIG and its own key built in.
sroot=$T_TMP/sroot
scripts/mk-sample-kernel.sh "$FIXTURES" "$sroot"
sed -i 's/# CONFIG_MODULE_SIG is not set/CONFIG_MODULE_SIG=y/' "$sroot/boot/config-$kver"
cp "$FIXTURES/signed/fx-vmlinux-rsa" "$sroot/boot/vmlinux-$kver"
mkdir -p "$T_TMP/smods" "$T_TMP/bin"
cp "$FIXTURES/signed/demo-kvm-amd-ec.ko" "$T_TMP/smods/kvm-amd.ko"
cat > "$T_TMP/bin/mokutil" <<'SH'
#!/bin/sh
[ "$1" = --test-key ] || exit 2
if [ "${FAKE_MOK_ENROLLED:-0}" = 1 ]; then echo "$2 is already enrolled"; else echo "$2 is not enrolled"; exit 1; fi
SH
chmod +x "$T_TMP/bin/mokutil"
sig_hook() { # ENROLLED
	PATH=$T_TMP/bin:$PATH FAKE_MOK_ENROLLED=$1 KSYMCHECK_ROOT=$sroot \
		KSYMCHECK_DKMS_KEY=$FIXTURES/signed/ec.der "$hook" --modules "$T_TMP/smods" "$kver"
}
sig_hook 1 > "$T_TMP/out" 2>&1
t_eq "DKMS's key enrolled: passes, no signature line" "0 0 0" \
	"$? $(grep -c 'verification failed' "$T_TMP/out") $(grep -c 'note:' "$T_TMP/out")"
sig_hook 0 > "$T_TMP/out" 2>&1
t_eq "... not enrolled: passes, one note, the kernel's taint line once" "0 1 1" \
	"$? $(grep -c "^ksymcheck-post-build: note: the modules are signed with DKMS's key" "$T_TMP/out") $(grep -c 'verification failed' "$T_TMP/out")"

# 3. Options.
read_conf fxdma
(cd "$dkms_tree/fxdma/1.0/build" && ./ksymcheck-post-build --warn-only "$kver" "$arch") > "$T_TMP/out" 2>&1
t_eq "--warn-only: reports, exit 0" "0 1" "$? $(grep -c 'would refuse the modules above (--warn-only)' "$T_TMP/out")"
(cd "$dkms_tree/fxdma/1.0/build" && ./ksymcheck-post-build "$kver" "$arch" -- --policy 6.12 --view both) > "$T_TMP/out" 2>&1
t_eq "options after -- go to ksymcheck check" 1 $?
t_grep "... (6.12 syntax)" '    fix: add MODULE_IMPORT_NS(DMA_BUF);' "$T_TMP/out"
t_grep "... (modpost's verdict too)" "ERROR: modpost: module fxdma uses symbol dma_buf_get from namespace DMA_BUF" "$T_TMP/out"
"$hook" --modules "$D/intree" "$kver" > "$T_TMP/out" 2>&1
t_eq "--modules DIR, called by hand" 0 $?
(cd "$D/oot" && "$hook" "$kver") > "$T_TMP/out" 2>&1
t_eq "outside a DKMS tree: the modules below the current folder" 1 $?
t_grep "... fxdma found" "fxdma: Unknown symbol dma_buf_get" "$T_TMP/out"

# 4. When it cannot check, it does not break the build (unless --strict).
(cd "$dkms_tree/fxdma/1.0/build" && KSYMCHECK=$T_TMP/no-ksymcheck ./ksymcheck-post-build "$kver" "$arch") > "$T_TMP/out" 2>&1
t_eq "ksymcheck missing: a warning, exit 0" "0 1" "$? $(grep -c 'is not installed; modules not checked' "$T_TMP/out")"
(cd "$dkms_tree/fxdma/1.0/build" && KSYMCHECK=$T_TMP/no-ksymcheck ./ksymcheck-post-build --strict "$kver" "$arch") > /dev/null 2>&1
t_eq "... --strict: exit 1" 1 $?
mods=$dkms_tree/fxdma/1.0/$kver/$arch/module
(cd "$dkms_tree/fxdma/1.0/build" && ./ksymcheck-post-build --modules "$mods" 9.9.9-none "$arch") > "$T_TMP/out" 2>&1
t_eq "a kernel whose exports are not installed: a warning, exit 0" "0 1" "$? $(grep -c 'could not read everything' "$T_TMP/out")"
(cd "$dkms_tree/fxdma/1.0/build" && KSYMCHECK_DKMS_STRICT=1 ./ksymcheck-post-build --modules "$mods" 9.9.9-none "$arch") > /dev/null 2>&1
t_eq "... KSYMCHECK_DKMS_STRICT=1: exit 1" 1 $?
"$hook" --modules "$T_TMP/empty-nothing" "$kver" > "$T_TMP/out" 2>&1
t_eq "no modules folder: a warning, exit 0" 0 $?
"$hook" --bogus > "$T_TMP/out" 2>&1
t_eq "a bad option: usage, exit 2" "2 1" "$? $(grep -c '^Usage: ksymcheck-post-build' "$T_TMP/out")"
"$hook" --help > "$T_TMP/out" 2>&1
t_eq "--help" "0 1" "$? $(grep -c 'POST_BUILD="ksymcheck-post-build ${kernelver} ${arch}"' "$T_TMP/out")"
# The help and the README agree: PRE_INSTALL for every dkms; the cache is documented.
t_eq "--help: PRE_INSTALL set for every dkms, as the README says" "1 1 0" \
	"$(grep -c '^Set both: ' "$T_TMP/out") $(grep -c '^   whatever the dkms version' contrib/dkms/README.md) $(grep -c 'for dkms < 3.1.5' "$T_TMP/out")"
t_eq "--help and README document the cache" "1 1" \
	"$(grep -c 'index of the kernel.s modules under \$XDG_CACHE_HOME/ksymcheck' "$T_TMP/out") $(grep -c '^## The cache' contrib/dkms/README.md)"

# --compat: the modules and the source tree DKMS runs the hook in against another kernel
# (here the sample kernel again, under another release), advice that never fails.
cp -a "$root" "$T_TMP/root72"
mv "$T_TMP/root72/lib/modules/$kver" "$T_TMP/root72/lib/modules/7.2.0-demo"
for f in "$T_TMP/root72/boot/"*"-$kver"; do mv "$f" "${f%-"$kver"}-7.2.0-demo"; done
mk_tree fxok "$D/intree/kvm.ko"
(cd "$dkms_tree/fxok/1.0/build" && ./ksymcheck-post-build --compat "$T_TMP/root72" "$kver" "$arch") > "$T_TMP/out" 2>&1
t_eq "--compat DIR: compat's matrix after the check, both kernels its columns" "0 1 1" \
	"$? $(grep -cE "^MODULE +$kver +7\.2\.0-demo" "$T_TMP/out") $(grep -c '^ksymcheck-post-build: compat: no build fails on the kernels named' "$T_TMP/out")"
(cd "$dkms_tree/fxok/1.0/build" && KSYMCHECK_DKMS_COMPAT="$T_TMP/root72 $T_TMP/nowhere" ./ksymcheck-post-build "$kver" "$arch") > "$T_TMP/out" 2>&1
t_eq "KSYMCHECK_DKMS_COMPAT with a kernel that is not there: a warning, the check's status" "0 1" \
	"$? $(grep -c '^ksymcheck-post-build: warning: compat could not be done' "$T_TMP/out")"

# 5. A dangling link (ksymcheck not installed on the machine building the module): dkms
# only warns that the script is not executable.
mk_tree dangling "$D/oot/fxdma.ko"
ln -sfn "$T_TMP/nowhere/ksymcheck-post-build" "$dkms_tree/dangling/1.0/build/ksymcheck-post-build"
read_conf dangling
run_build_script post_build "$POST_BUILD" > "$T_TMP/out" 2>&1
t_eq "a dangling link to the hook: dkms warns and goes on" "0 1" "$? $(grep -c 'not executable' "$T_TMP/out")"

if command -v shellcheck > /dev/null; then
	shellcheck "$hook" > "$T_TMP/out" 2>&1 && t_ok "shellcheck ksymcheck-post-build" ||
		t_fail "shellcheck ksymcheck-post-build" "$(head -n 20 "$T_TMP/out")"
	shellcheck -s bash completion/bash/ksymcheck > "$T_TMP/out" 2>&1 && t_ok "shellcheck completion/bash/ksymcheck" ||
		t_fail "shellcheck completion/bash/ksymcheck" "$(head -n 20 "$T_TMP/out")"
else
	t_skip "shellcheck" "no shellcheck"
fi
sh -n "$hook" && t_ok "the hook is POSIX sh (sh -n)" || t_fail "the hook is POSIX sh (sh -n)"
