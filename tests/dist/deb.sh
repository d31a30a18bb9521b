# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian packages (make check-dist): dpkg-buildpackage -us -uc -b in a copy of the
# tree builds ksymcheck, libksymcheck0 and libksymcheck-dev; lintian reports no errors and
# no warnings (the counts are printed); the packages hold what they should, with a
# symbols file and the -dev package depending on every Requires.private of ksymcheck.pc;
# then, as root (or with sudo), they are installed and used: ksymcheck check on fixture
# modules, the man pages, the completion, the DKMS hook, and the example program built
# with the installed pkg-config file. Packages that were not installed before are purged
# at the end (KSC_DIST_KEEP=1 keeps them).
# The artifacts stay in $BUILD/dist/ (debs, .changes, build.log, lintian.log).
# KSC_DIST_CHECK=1 runs the test suite inside the package build too (default: nocheck,
# as make check has run already).
. tests/lib.sh
dist=$TOP/$BUILD/dist
[ "${BUILD#/}" != "$BUILD" ] && dist=$BUILD/dist
D=$TOP/$FIXTURES/demo
[ "${FIXTURES#/}" != "$FIXTURES" ] && D=$FIXTURES/demo
version=$(sed -n 's/^VERSION := //p' Makefile)
debversion=$(sed -n '1s/^ksymcheck (\([^)]*\)).*/\1/p' debian/changelog)
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

missing=""
for t in dpkg-buildpackage dh lintian; do command -v $t > /dev/null || missing="$missing $t"; done
if [ -n "$missing" ]; then
	t_fail "packaging tools are installed" "missing:$missing (scripts/install-deps.sh --test installs them)"
	exit 0
fi

# 1. A copy of the tree: the files git knows (tracked, and new ones not ignored), no build
# folders; or, outside git, everything but those.
rm -rf "$dist"
src=$dist/ksymcheck-$version
mkdir -p "$src"
if git -C "$TOP" rev-parse --git-dir > /dev/null 2>&1; then
	git -C "$TOP" ls-files -z --cached --others --exclude-standard | grep -zv '^build' |
		(cd "$TOP" && tar -c --null -T - 2> /dev/null) | tar -x -C "$src"
else
	(cd "$TOP" && tar -c --exclude='./build*' --exclude=./.git .) | tar -x -C "$src"
fi
if [ -x "$src/debian/rules" ]; then t_ok "a copy of the tree in $dist"; else t_fail "a copy of the tree"; exit 0; fi

if (cd "$src" && dpkg-checkbuilddeps) > "$T_TMP/deps" 2>&1; then t_ok "Build-Depends are installed"
else t_fail "Build-Depends are installed" "$(cat "$T_TMP/deps")"; fi

# 2. Build.
opts="parallel=$(nproc)"
[ "${KSC_DIST_CHECK:-0}" = 1 ] || opts="nocheck $opts"
if (cd "$src" && DEB_BUILD_OPTIONS="$opts" dpkg-buildpackage -us -uc -b) > "$dist/build.log" 2>&1; then
	t_ok "dpkg-buildpackage -us -uc -b (DEB_BUILD_OPTIONS=$opts)"
else
	t_fail "dpkg-buildpackage -us -uc -b" "$(tail -n 30 "$dist/build.log")"
	exit 0
fi
for p in ksymcheck libksymcheck0 libksymcheck-dev; do
	deb=$dist/${p}_${debversion}_$arch.deb
	if [ -s "$deb" ]; then t_ok "$p package built"; else t_fail "$p package built" "no $deb"; fi
done
changes=$dist/ksymcheck_${debversion}_$arch.changes
# Compiler warnings in the build log (the Makefile's warning flags with dpkg's).
t_eq "no compiler warnings in the package build" "" "$(grep -E '(warning|error): ' "$dist/build.log" |
	grep -vE '^(dpkg[a-z-]*|dh[a-z_]*|lintian|make(\[[0-9]+\])?): ' | head -n 5)"

# 3. lintian.
lintian --display-info --pedantic --show-overrides "$changes" > "$dist/lintian.log" 2> "$T_TMP/lintian.err"
count() { grep -c "^$1: " "$dist/lintian.log"; }
e=$(count E) w=$(count W) i=$(count I) p=$(count P) o=$(count O)
echo "# lintian: $e errors, $w warnings, $i info, $p pedantic; $o overridden (see $dist/lintian.log)"
sed 's/^/#   /' "$dist/lintian.log"
t_eq "lintian: no errors" 0 "$e"
t_eq "lintian: no warnings" 0 "$w"

# 4. Contents.
for p in ksymcheck libksymcheck0 libksymcheck-dev; do
	dpkg-deb -c "$dist/${p}_${debversion}_$arch.deb" | awk '{ print $6 }' | sed 's,^\./,/,' > "$T_TMP/$p.files"
done
has() { # PACKAGE PATH...
	local p=$1 f missing=""
	shift
	for f in "$@"; do grep -qxF "$f" "$T_TMP/$p.files" || missing="$missing $f"; done
	t_eq "$p contains $*" "" "$missing"
}
has ksymcheck /usr/bin/ksymcheck /usr/share/man/man1/ksymcheck.1.gz \
	/usr/share/bash-completion/completions/ksymcheck /usr/share/ksymcheck/dkms/ksymcheck-post-build \
	/usr/share/ksymcheck/ksymcheck.schema.json \
	/usr/share/doc/ksymcheck/dkms/dkms.conf.example /usr/share/doc/ksymcheck/copyright \
	/usr/share/doc/ksymcheck/rules.md
has libksymcheck0 "/usr/lib/$multiarch/libksymcheck.so.$version" "/usr/lib/$multiarch/libksymcheck.so.0"
has libksymcheck-dev /usr/include/ksymcheck.h /usr/include/ksymcheck/tree.h "/usr/lib/$multiarch/libksymcheck.so" \
	"/usr/lib/$multiarch/libksymcheck.a" "/usr/lib/$multiarch/pkgconfig/ksymcheck.pc" \
	/usr/share/man/man3/libksymcheck.3.gz /usr/share/doc/libksymcheck-dev/examples/check-one.c

x=$T_TMP/x
mkdir -p "$x"
for p in libksymcheck0 libksymcheck-dev; do dpkg-deb -x "$dist/${p}_${debversion}_$arch.deb" "$x"; done
dpkg-deb --ctrl-tarfile "$dist/libksymcheck0_${debversion}_$arch.deb" | tar -x -O ./symbols > "$T_TMP/symbols"
objdump -T "$x/usr/lib/$multiarch/libksymcheck.so.$version" |
	awk '$2 == "g" && $(NF-2) != "*UND*" && $NF ~ /^ksc_/ { print $NF }' | sort > "$T_TMP/exported"
sed -n 's/^ \(ksc_[a-z0-9_]*\)@KSYMCHECK_0\.[0-9]* .*/\1/p' "$T_TMP/symbols" | sort > "$T_TMP/listed"
if [ -s "$T_TMP/listed" ]; then t_ok "libksymcheck0 has a symbols file ($(wc -l < "$T_TMP/listed") symbols)"
else t_fail "libksymcheck0 has a symbols file"; fi
t_diff "... listing every exported symbol" "$T_TMP/exported" "$T_TMP/listed"
# libcrypto is loaded with dlopen() (lib/readers/ksc-crypto.h), which dpkg-shlibdeps cannot see:
# the library's package must name the one that holds it.
soname=$(grep -aoE 'libcrypto\.so\.[0-9]+' "$x/usr/lib/$multiarch/libksymcheck.so.$version" | head -n 1)
owner=$(dpkg -S "/usr/lib/$multiarch/$soname" "/lib/$multiarch/$soname" 2> /dev/null | head -n 1 | cut -d: -f1)
for p in libksymcheck0 ksymcheck; do
	depends=$(dpkg-deb -f "$dist/${p}_${debversion}_$arch.deb" Depends)
	case ", $depends," in
	*", $owner"[,\ :]*) t_ok "$p depends on $owner (it loads $soname)" ;;
	*) t_fail "$p depends on the package of $soname (${owner:-unknown})" "Depends: $depends" ;;
	esac
done
depends=$(dpkg-deb -f "$dist/libksymcheck-dev_${debversion}_$arch.deb" Depends)
for m in $(sed -n 's/^Requires.private://p' "$x/usr/lib/$multiarch/pkgconfig/ksymcheck.pc" | tr ',' ' '); do
	owner=$(dpkg -S "/usr/lib/$multiarch/pkgconfig/$m.pc" "/usr/lib/pkgconfig/$m.pc" "/usr/share/pkgconfig/$m.pc" 2> /dev/null |
		head -n 1 | cut -d: -f1)
	case ", $depends," in
	*", $owner"[,\ :]*) t_ok "libksymcheck-dev depends on $owner (Requires.private: $m)" ;;
	*) t_fail "libksymcheck-dev depends on the package of Requires.private $m (${owner:-unknown})" "Depends: $depends" ;;
	esac
done

# 5. Install and use them.
sudo=""
if [ "$(id -u)" != 0 ]; then
	if sudo -n true 2> /dev/null; then sudo="sudo -n"; else
		t_skip "installing the packages" "not root and no sudo"
		exit 0
	fi
fi
was_installed=""
for p in ksymcheck libksymcheck0 libksymcheck-dev; do
	dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'install ok installed' && was_installed="$was_installed $p"
done
cleanup() {
	[ "${KSC_DIST_KEEP:-0}" = 1 ] && return
	local purge="" p
	for p in ksymcheck libksymcheck-dev libksymcheck0; do
		case " $was_installed " in *" $p "*) ;; *) purge="$purge $p" ;; esac
	done
	[ -n "$purge" ] && $sudo dpkg --purge $purge > /dev/null 2>&1
}
trap 'cleanup; rm -rf "$T_TMP"' EXIT
if $sudo dpkg -i "$dist/ksymcheck_${debversion}_$arch.deb" "$dist/libksymcheck0_${debversion}_$arch.deb" \
	"$dist/libksymcheck-dev_${debversion}_$arch.deb" > "$T_TMP/dpkg.log" 2>&1; then
	t_ok "dpkg -i the three packages"
else
	t_fail "dpkg -i the three packages" "$(tail -n 20 "$T_TMP/dpkg.log")"
	exit 0
fi

root=$T_TMP/root
scripts/mk-sample-kernel.sh "$(dirname "$D")" "$root"
K=(-k "$root" --kver 6.16.0-demo)
t_eq "ksymcheck is /usr/bin/ksymcheck" /usr/bin/ksymcheck "$(command -v ksymcheck)"
t_run "ksymcheck --version" 0 /usr/bin/ksymcheck --version
t_grep "... $version" "ksymcheck $version " "$T_TMP/out"
t_run "ksymcheck explain R16" 0 /usr/bin/ksymcheck explain R16
t_grep "... names the installed rules.md" "See /usr/share/doc/ksymcheck/rules.md, R16." "$T_TMP/out"
[ -f /usr/share/doc/ksymcheck/rules.md ] && t_ok "... which is there" || t_fail "... which is there"
t_run "ksymcheck check: in-tree kvm and kvm-amd load" 0 /usr/bin/ksymcheck check "${K[@]}" "$D/intree/kvm.ko" "$D/intree/kvm-amd.ko"
t_grep "... summary" "2 modules checked (rules of 6.16, from the kernel's release): loader: 2 would load, 0 refused" "$T_TMP/out"
t_run "ksymcheck check: a driver without MODULE_IMPORT_NS is refused" 1 /usr/bin/ksymcheck check "${K[@]}" --format kernel "$D/oot/fxdma.ko"
t_grep "... with the kernel's line" "fxdma: module uses symbol (dma_buf_get) from namespace DMA_BUF, but does not import it." "$T_TMP/out"
if command -v man > /dev/null; then
	t_eq "man ksymcheck, man 3 libksymcheck" "/usr/share/man/man1/ksymcheck.1.gz /usr/share/man/man3/libksymcheck.3.gz" \
		"$(man -w ksymcheck) $(man -w 3 libksymcheck)"
else
	t_skip "man -w" "no man"
fi
t_eq "bash completion from /usr/share/bash-completion" "check" \
	"$(bash --norc -c '. /usr/share/bash-completion/completions/ksymcheck; COMP_WORDS=(ksymcheck ch); COMP_CWORD=1; _ksymcheck; echo "${COMPREPLY[*]}"')"
KSYMCHECK_ROOT=$root /usr/share/ksymcheck/dkms/ksymcheck-post-build --modules "$D/oot" 6.16.0-demo > "$T_TMP/out" 2>&1
t_eq "the installed DKMS hook fails on a refused module" 1 $?

cp -r /usr/share/doc/libksymcheck-dev/examples "$T_TMP/examples"
if env -u PKG_CONFIG_PATH make -C "$T_TMP/examples" > "$T_TMP/ex.log" 2>&1; then
	t_ok "the packaged example builds with the packaged pkg-config file"
else
	t_fail "the packaged example builds" "$(tail -n 20 "$T_TMP/ex.log")"
fi
t_eq "... linked to the packaged library" "$(readlink -f "/usr/lib/$multiarch/libksymcheck.so.0")" \
	"$(readlink -f "$(env -u LD_LIBRARY_PATH ldd "$T_TMP/examples/check-one" | awk '$1 == "libksymcheck.so.0" { print $3 }')")"
/usr/bin/ksymcheck exports --format symvers "$root/boot/vmlinux-6.16.0-demo" "$root/lib/modules/6.16.0-demo/kernel" > "$T_TMP/Module.symvers"
t_run "... and gives a verdict: refused" 1 env -u LD_LIBRARY_PATH "$T_TMP/examples/check-one" "$T_TMP/Module.symvers" "$D/oot/fxdma.ko"
t_grep "... ns-missing" "[ns-missing]" "$T_TMP/out"
t_run "... loads" 0 env -u LD_LIBRARY_PATH "$T_TMP/examples/check-one" "$T_TMP/Module.symvers" "$D/intree/kvm.ko"

cleanup
for p in ksymcheck libksymcheck0 libksymcheck-dev; do
	case " $was_installed " in *" $p "*) continue ;; esac
	[ "${KSC_DIST_KEEP:-0}" = 1 ] && continue
	dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'install ok installed' &&
		t_fail "$p purged again" || t_ok "$p purged again"
done
trap 'rm -rf "$T_TMP"' EXIT
rm -rf "$src"
