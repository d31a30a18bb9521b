# SPDX-License-Identifier: LGPL-2.1-or-later
# make install into a temporary DESTDIR with every path variable set: exactly the expected
# files, modes and symbolic links; ksymcheck.pc with the install paths; the installed tool
# runs; the shared library exports only ksc_ names, each at a KSYMCHECK_0.N node, declared in
# ksymcheck.h; examples/check-one.c, built against the *installed* library through
# pkg-config (PKG_CONFIG_PATH, PKG_CONFIG_SYSROOT_DIR) and run with LD_LIBRARY_PATH, gives
# real verdicts on fixture modules; make uninstall removes every file again. Then the
# defaults: every path follows PREFIX.
. tests/lib.sh
version=$("$KSC" --version | awk '{ print $2 }')
dest=$T_TMP/dest
paths=(PREFIX=/opt/ksc BINDIR=/opt/ksc/sbin LIBDIR=/opt/ksc/lib64 INCLUDEDIR=/opt/ksc/inc
	MANDIR=/opt/ksc/man PKGCONFIGDIR=/opt/ksc/pc BASHCOMPDIR=/opt/ksc/compl
	DKMSHOOKDIR=/opt/ksc/hooks/dkms DOCDIR=/opt/ksc/doc)
# MAKEFLAGS from `make check` (SANITIZE=1, ...) carry over, so this installs what was
# built; but not the paths a caller gave to make check (dh_auto_test passes PREFIX=/usr
# LIBDIR=...), which reach here in MAKEFLAGS and in the environment.
path_vars=(PREFIX BINDIR LIBDIR INCLUDEDIR MANDIR DATADIR PKGCONFIGDIR BASHCOMPDIR PKGDATADIR
	DKMSHOOKDIR DOCDIR DESTDIR)
make_install() {
	local flags v unset=()
	flags=$(sed -E "s/(^| )($(IFS='|'; echo "${path_vars[*]}"))=[^ ]*//g" <<< "${MAKEFLAGS:-}")
	for v in "${path_vars[@]}"; do unset+=(-u "$v"); done
	env "${unset[@]}" MAKEFLAGS="$flags" make -C "$TOP" --no-print-directory BUILD="$BUILD" \
		DESTDIR="$1" "${@:2}" > "$T_TMP/make.log" 2>&1
}

if make_install "$dest" "${paths[@]}" install; then t_ok "make install DESTDIR=... with every path variable"
else t_fail "make install" "$(tail -n 20 "$T_TMP/make.log")"; fi

(cd "$dest" && find . ! -type d -printf '%p %M %l\n' | sort) > "$T_TMP/files"
sort > "$T_TMP/want" <<EOF
./opt/ksc/compl/ksymcheck -rw-r--r-- 
./opt/ksc/doc/rules.md -rw-r--r-- 
./opt/ksc/hooks/dkms/ksymcheck-post-build -rwxr-xr-x 
./opt/ksc/inc/ksymcheck.h -rw-r--r-- 
./opt/ksc/inc/ksymcheck/base.h -rw-r--r-- 
./opt/ksc/inc/ksymcheck/engine.h -rw-r--r-- 
./opt/ksc/inc/ksymcheck/kernel.h -rw-r--r-- 
./opt/ksc/inc/ksymcheck/readers.h -rw-r--r-- 
./opt/ksc/inc/ksymcheck/report.h -rw-r--r-- 
./opt/ksc/inc/ksymcheck/source.h -rw-r--r-- 
./opt/ksc/inc/ksymcheck/tree.h -rw-r--r-- 
./opt/ksc/lib64/libksymcheck.a -rw-r--r-- 
./opt/ksc/lib64/libksymcheck.so lrwxrwxrwx libksymcheck.so.0
./opt/ksc/lib64/libksymcheck.so.0 lrwxrwxrwx libksymcheck.so.$version
./opt/ksc/lib64/libksymcheck.so.$version -rw-r--r-- 
./opt/ksc/man/man1/ksymcheck.1 -rw-r--r-- 
./opt/ksc/man/man3/libksymcheck.3 -rw-r--r-- 
./opt/ksc/pc/ksymcheck.pc -rw-r--r-- 
./opt/ksc/sbin/ksymcheck -rwxr-xr-x 
./opt/ksc/share/ksymcheck/ksymcheck.schema.json -rw-r--r-- 
EOF
t_diff "exactly these files, modes and links, each where its variable says" "$T_TMP/want" "$T_TMP/files"
cmp -s completion/bash/ksymcheck "$dest/opt/ksc/compl/ksymcheck" && t_ok "the completion is installed as is" ||
	t_fail "the completion is installed as is"

# pkg-config, without and with the sysroot.
export PKG_CONFIG_PATH=$dest/opt/ksc/pc
t_eq "ksymcheck.pc: the install paths and the version" "/opt/ksc /opt/ksc/lib64 /opt/ksc/inc $version" \
	"$(pkg-config --variable=prefix ksymcheck) $(pkg-config --variable=libdir ksymcheck) $(pkg-config --variable=includedir ksymcheck) $(pkg-config --modversion ksymcheck)"
export PKG_CONFIG_SYSROOT_DIR=$dest
flags=" $(pkg-config --cflags --libs ksymcheck | xargs) "
case $flags in
*" -I$dest/opt/ksc/inc "*" -L$dest/opt/ksc/lib64 -lksymcheck "*) t_ok "pkg-config --cflags --libs with the DESTDIR as sysroot" ;;
*) t_fail "pkg-config --cflags --libs with the DESTDIR as sysroot" "$flags" ;;
esac
if pkg-config --static --libs ksymcheck > "$T_TMP/static" 2>&1; then t_ok "pkg-config --static resolves Requires.private"
else t_fail "pkg-config --static --libs ksymcheck" "$(cat "$T_TMP/static")"; fi

# The installed tool runs, from the DESTDIR.
root=$T_TMP/root
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"
D=$FIXTURES/demo
t_run "installed ksymcheck --version" 0 "$dest/opt/ksc/sbin/ksymcheck" --version
t_grep "... $version with its features" "ksymcheck $version +" "$T_TMP/out"
t_run "installed ksymcheck check refuses a module without its namespace import" 1 \
	"$dest/opt/ksc/sbin/ksymcheck" check -k "$root" --kver 6.16.0-demo "$D/oot/fxdma.ko"
t_grep "... ns-missing" "fxdma: dma_buf_get: loader: refused: namespace DMA_BUF is not imported [ns-missing]" "$T_TMP/out"

# The shared library's interface.
lib=$dest/opt/ksc/lib64/libksymcheck.so.$version
t_eq "soname" "libksymcheck.so.0" "$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
objdump -T "$lib" | awk '$2 == "g" && $NF != "" && $(NF-2) != "*UND*" { print $(NF-1), $NF }' |
	awk '$1 != $2' | sort -u > "$T_TMP/dynsyms" # without the version nodes themselves
if [ -s "$T_TMP/dynsyms" ]; then t_ok "the library exports $(wc -l < "$T_TMP/dynsyms") symbols"
else t_fail "the library exports symbols"; fi
t_eq "... every one named ksc_*, at a version KSYMCHECK_0.N" "" \
	"$(grep -v '^KSYMCHECK_0\.[0-9]* ksc_[a-z0-9_]*$' "$T_TMP/dynsyms" | xargs)"
t_eq "... the catalogue's functions, and only those, at KSYMCHECK_0.2" \
	"KSYMCHECK_0.2 ksc_code_get ksc_code_get_count ksc_code_lookup ksc_rule_get ksc_rule_get_count ksc_rule_lookup" \
	"$(awk '$1 == "KSYMCHECK_0.2" { print $2 }' "$T_TMP/dynsyms" | sort | xargs -r echo KSYMCHECK_0.2)"
undeclared=""
for s in $(awk '{ print $2 }' "$T_TMP/dynsyms"); do
	cat "$dest/opt/ksc/inc/ksymcheck.h" "$dest"/opt/ksc/inc/ksymcheck/*.h |
		grep -qE "[ *]$s\(" || undeclared="$undeclared $s"
done
t_eq "... and declared in the installed ksymcheck.h and its parts" "" "$undeclared"
# Its extern "C" blocks promise C++ callers a header they can include.
if command -v c++ > /dev/null; then
	if echo '#include <ksymcheck.h>' | c++ -std=c++11 -Wall -Wextra -Werror -pedantic \
		-fsyntax-only -I"$dest/opt/ksc/inc" -x c++ - > "$T_TMP/cxx.log" 2>&1; then
		t_ok "the installed ksymcheck.h compiles as C++ too"
	else
		t_fail "the installed ksymcheck.h compiles as C++" "$(head -n 20 "$T_TMP/cxx.log")"
	fi
else
	t_skip "the installed ksymcheck.h compiles as C++" "no C++ compiler"
fi

# examples/ against the installed library, through pkg-config.
cp -r examples "$T_TMP/examples"
rm -f "$T_TMP/examples/check-one"
ex_cflags="-O2 -g -Wall -Wextra -Werror"
# A sanitizer build (make check SANITIZE=1) installs an instrumented library.
readelf -d "$lib" | grep -q 'libasan' && ex_cflags="$ex_cflags -fsanitize=address,undefined"
if make -C "$T_TMP/examples" --no-print-directory CFLAGS="$ex_cflags" > "$T_TMP/ex.log" 2>&1; then
	t_ok "examples/ builds against the installed library with pkg-config"
else
	t_fail "examples/ builds against the installed library" "$(tail -n 20 "$T_TMP/ex.log")"
fi
ex=$T_TMP/examples/check-one
export LD_LIBRARY_PATH=$dest/opt/ksc/lib64
t_eq "check-one is linked to the installed libksymcheck.so.0" "$dest/opt/ksc/lib64/libksymcheck.so.0" \
	"$(ldd "$ex" 2>/dev/null | awk '$1 == "libksymcheck.so.0" { print $3 }')"
# The sample kernel's Module.symvers: its vmlinux's exports and its one module's.
"$KSC" exports --format symvers "$root/boot/vmlinux-6.16.0-demo" "$root/lib/modules/6.16.0-demo/kernel" > "$T_TMP/Module.symvers"
t_run "check-one: a driver without MODULE_IMPORT_NS is refused" 1 "$ex" "$T_TMP/Module.symvers" "$D/oot/fxdma.ko"
t_grep "... with the finding" "fxdma: dma_buf_get: loader: refused: namespace DMA_BUF is not imported [ns-missing]" "$T_TMP/out"
t_grep "... and the fix in the syntax of its kernel (6.16)" 'fxdma:     fix: add MODULE_IMPORT_NS("DMA_BUF");' "$T_TMP/out"
t_run "check-one --policy 6.12: the 6.12 syntax" 1 "$ex" --policy 6.12 "$T_TMP/Module.symvers" "$D/oot/fxdma.ko"
t_grep "... identifier form" 'fxdma:     fix: add MODULE_IMPORT_NS(DMA_BUF);' "$T_TMP/out"
t_run "check-one: in-tree kvm, which imports from vmlinux and from a module, loads" 0 "$ex" "$T_TMP/Module.symvers" "$D/intree/kvm.ko"
t_grep "... says so" "kvm: loader: loads" "$T_TMP/out"
t_run "check-one: an out-of-tree kvm loads too" 0 "$ex" "$T_TMP/Module.symvers" "$D/oot/kvm.ko"
t_grep "... flagged as taking a module-restricted export by its name alone" "kvm: anon_inode_make_secure_inode: loader: warning: granted only by its name: an out-of-tree module matching kvm [modns-impostor]" "$T_TMP/out"
t_run "check-one: an unreadable module" 4 "$ex" "$T_TMP/Module.symvers" "$FIXTURES/bad/truncated-header.ko"
t_grep "... reported as path: reason by the library's log callback" "check-one: $FIXTURES/bad/truncated-header.ko: truncated ELF header" "$T_TMP/err"
t_run "check-one: usage" 2 "$ex"
unset LD_LIBRARY_PATH PKG_CONFIG_SYSROOT_DIR

if make_install "$dest" "${paths[@]}" uninstall; then t_ok "make uninstall"
else t_fail "make uninstall" "$(tail -n 20 "$T_TMP/make.log")"; fi
t_eq "... leaves no file behind" "" "$(cd "$dest" && find . ! -type d | xargs)"
t_eq "... and removes its own folder" "" "$(find "$dest" -path '*/hooks/dkms' | xargs)"

# Defaults: everything follows PREFIX.
dest2=$T_TMP/dest2
make_install "$dest2" PREFIX=/usr install || t_fail "make install PREFIX=/usr" "$(tail -n 20 "$T_TMP/make.log")"
(cd "$dest2" && find . ! -type d | sort | xargs) > "$T_TMP/files2"
t_eq "PREFIX=/usr alone puts everything below /usr" \
	"./usr/bin/ksymcheck ./usr/include/ksymcheck.h ./usr/include/ksymcheck/base.h ./usr/include/ksymcheck/engine.h ./usr/include/ksymcheck/kernel.h ./usr/include/ksymcheck/readers.h ./usr/include/ksymcheck/report.h ./usr/include/ksymcheck/source.h ./usr/include/ksymcheck/tree.h ./usr/lib/libksymcheck.a ./usr/lib/libksymcheck.so ./usr/lib/libksymcheck.so.0 ./usr/lib/libksymcheck.so.$version ./usr/lib/pkgconfig/ksymcheck.pc ./usr/share/bash-completion/completions/ksymcheck ./usr/share/doc/ksymcheck/rules.md ./usr/share/ksymcheck/dkms/ksymcheck-post-build ./usr/share/ksymcheck/ksymcheck.schema.json ./usr/share/man/man1/ksymcheck.1 ./usr/share/man/man3/libksymcheck.3" \
	"$(cat "$T_TMP/files2")"
t_grep "... and ksymcheck.pc says /usr" "libdir=/usr/lib" "$dest2/usr/lib/pkgconfig/ksymcheck.pc"
make_install "$dest2" PREFIX=/usr uninstall
t_eq "... make uninstall PREFIX=/usr empties it again" "" "$(cd "$dest2" && find . ! -type d | xargs)"
t_eq "... with /usr/share/ksymcheck and /usr/include/ksymcheck gone" "" "$(find "$dest2" -name ksymcheck -type d | xargs)"
