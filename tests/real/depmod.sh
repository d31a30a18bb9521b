#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksymcheck tree against kmod's real depmod on Debian's real trees (scripts/real-env.sh):
#  - every kernel: modules.dep, modules.symbols, modules.alias, modules.softdep and
#    modules.devname of `tree --write-depmod` identical to depmod's (diff empty) for the
#    package's own tree (6.1's .ko files, the .ko.xz files of 6.12, 7.2 and 7.3); no
#    unreadable module, no refusal, no cycle. Both tools read a private root of hard
#    links laid out as the package is: ROOT/lib/modules/KVER for 6.1, and for the
#    usrmerged packages (6.12 on) ROOT/usr/lib/modules/KVER. kmod 30's depmod -b only
#    looks in ROOT/lib/modules, so it runs while the root has the link lib -> usr/lib
#    that a usrmerged system has; the link is removed before ksymcheck reads the root
#    as the package unpacks, without it;
#  - 6.1 only, the costly part: the same for xz and zstd copies (made once, cached next
#    to the packages; bench/read-tree.sh's xz copy when it is there, whose modules.order
#    names .ko.xz files); the gzip copy (Debian's kmod is built without zlib, so its depmod
#    skips .ko.gz) gives ksymcheck's uncompressed files with the suffix changed; the index
#    reused; a broken copy (corrupt, unreadable, symbolic link loop, dangling symbolic
#    link, empty folder) processed fully with exit status 4, the files as depmod's; runs
#    killed midway (timeout -s KILL): no partial file, no corrupt index.
# Usage: BUILD=build TOOL=build/ksymcheck [KSC_REAL_KERNEL=sid] bash tests/real/depmod.sh
# Real kernels: 6.1 trixie sid experimental
. "$(dirname "$0")/../lib.sh"
REAL_TESTS=("real/depmod (${KSC_REAL_KERNEL:-6.1})")
. "$TOP/scripts/real-env.sh"

FILES="modules.dep modules.symbols modules.alias modules.softdep modules.devname"
work=$T_TMP
ncpu=$(nproc)
n=$(find "$MODDIR/kernel" -type f -name '*.ko*' | wc -l)
echo "# $REAL_LABEL ($KVER): $n modules"

# The module folder below a root: usr/lib/modules/KVER when the package is usrmerged.
case $MODDIR in
*/usr/lib/modules/*) SUB=usr/lib/modules/$KVER ;;
*) SUB=lib/modules/$KVER ;;
esac

# A private root with hard links to the cached modules (depmod writes into the tree):
# $1 source module folder, $2 new root.
make_root() {
	local dst=$2/$SUB f
	mkdir -p "$dst"
	cp -al "$1/kernel" "$dst/" 2> /dev/null || cp -a "$1/kernel" "$dst/"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -f "$1/$f" ] && cp "$1/$f" "$dst/"
	done
	return 0
}

# A compressed copy of the tree, made once and cached: $1 name, $2 suffix, $3... command
cached_copy() {
	local name=$1 sfx=$2; shift 2
	local base=$KDIR/tree-$name dst=$KDIR/tree-$name/lib/modules/$KVER
	if [ ! -f "$base/.complete" ]; then
		echo "# making the $name copy of the tree in $base (once)" >&2
		rm -rf "$base"
		mkdir -p "$dst"
		# shellcheck disable=SC2016
		(cd "$MODDIR" && find kernel -type f -name '*.ko' -print0) |
			MODDIR=$MODDIR DST=$dst SFX=$sfx xargs -0 -r -n 64 -P "$ncpu" sh -c '
				for f; do
					mkdir -p "$DST/$(dirname "$f")"
					'"$*"' < "$MODDIR/$f" > "$DST/$f$SFX" || exit 255
				done' sh || return 1
		# modules.order keeps the .ko names, as installed trees have them
		for f in modules.order modules.builtin modules.builtin.modinfo; do cp "$MODDIR/$f" "$dst/"; done
		touch "$base/.complete"
	fi
	echo "$dst"
}

compare_with_depmod() { # $1 label, $2 source moddir
	local label=$1 root=$work/$1
	make_root "$2" "$root"
	[ "$SUB" = "lib/modules/$KVER" ] || ln -s usr/lib "$root/lib"
	"$KMOD_DEPMOD" -b "$root" "$KVER" 2> "$work/$label.depmod.err"
	[ "$SUB" = "lib/modules/$KVER" ] || rm "$root/lib"
	mkdir -p "$work/$label.out"
	local t0
	t0=$(real_now)
	t_run "$label: ksymcheck tree" 0 "$KSC" tree -b "$root" "$KVER" --no-index -E "$SYMVERS" \
		--config "$CONFIG" --write-depmod "$work/$label.out"
	echo "# $label: ksymcheck tree took $(real_elapsed "$t0") s"
	t_grep "$label: every module read, none unreadable" "$n modules ($n read, 0 from the index, 0 unreadable)" "$T_TMP/out"
	t_grep "$label: no refusal, no unresolved symbol, no cycle" "unresolved symbols: 0; dependency cycles: 0; problems: 0" "$T_TMP/out"
	for f in $FILES; do
		t_diff "$label: $f identical to depmod's" "$root/$SUB/$f" "$work/$label.out/$f"
	done
}

label=ko
[ "$REAL_KERNEL" = 6.1 ] || label=$REAL_KERNEL
compare_with_depmod "$label" "$MODDIR"
t_grep "$label: $n judged, all would load and pass modpost" "$n judged (rules of $RULES): loader: $n would load, 0 refused; modpost: $n pass, 0 fail" "$T_TMP/out"
[ "$REAL_KERNEL" = 6.1 ] || exit 0

if command -v zstd > /dev/null && zst=$(cached_copy zst .zst zstd -q -3 -c); then
	compare_with_depmod zst "$zst"
else
	t_skip "zst: ksymcheck tree" "no zstd"
fi
if [ -f "$KDIR/bench-xz/.complete" ]; then
	compare_with_depmod xz "$KDIR/bench-xz/lib/modules/$KVER"
elif command -v xz > /dev/null && xz=$(cached_copy xz .xz xz -c --check=crc32 --lzma2=dict=1MiB); then
	compare_with_depmod xz "$xz"
else
	t_skip "xz: ksymcheck tree" "no xz"
fi
if command -v gzip > /dev/null && gz=$(cached_copy gz .gz gzip -c -6); then
	make_root "$gz" "$work/gz"
	mkdir -p "$work/gz.out"
	t_run "gz: ksymcheck tree" 0 "$KSC" tree -b "$work/gz" "$KVER" --no-index -E "$SYMVERS" \
		--config "$CONFIG" --write-depmod "$work/gz.out"
	sed 's/\.ko\([: ]\)/.ko.gz\1/g; s/\.ko$/.ko.gz/' "$work/ko.out/modules.dep" > "$work/gz.want"
	t_diff "gz: modules.dep is the uncompressed tree's with .ko.gz" "$work/gz.want" "$work/gz.out/modules.dep"
	for f in modules.symbols modules.alias modules.softdep modules.devname; do
		t_diff "gz: $f as for the uncompressed tree" "$work/ko.out/$f" "$work/gz.out/$f"
	done
fi

# The index on the real tree.
idx=$work/idx/tree.idx
t_run "index: cold run" 0 "$KSC" tree -b "$work/ko" "$KVER" --index "$idx" -E "$SYMVERS" --config "$CONFIG" -q
t_run "index: warm run" 0 "$KSC" tree -b "$work/ko" "$KVER" --index "$idx" -E "$SYMVERS" --config "$CONFIG" -f json --write-depmod "$work/ko.out"
t_eq "index: warm run reads nothing" "used 0 $n $n" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["index"], d["read"], d["cached"], d["verdicts"]["judged"])' "$T_TMP/out")"
for f in $FILES; do
	t_diff "index: $f after a warm run still depmod's" "$work/ko/lib/modules/$KVER/$f" "$work/ko.out/$f"
done

# A broken copy: corrupt, unreadable, loop, dangling link, empty folder; exit status 4.
b=$work/broken
make_root "$MODDIR" "$b"
bm=$b/lib/modules/$KVER
rm "$bm/kernel/fs/btrfs/btrfs.ko"
head -c 3000 "$MODDIR/kernel/fs/btrfs/btrfs.ko" > "$bm/kernel/fs/btrfs/btrfs.ko"
rm "$bm/kernel/fs/fat/vfat.ko"
cp "$MODDIR/kernel/fs/fat/vfat.ko" "$bm/kernel/fs/fat/vfat.ko"
chmod 000 "$bm/kernel/fs/fat/vfat.ko"
ln -s ../.. "$bm/kernel/fs/loop"
ln -s gone.ko "$bm/kernel/fs/dangling.ko"
mkdir -p "$bm/kernel/empty"
as_user=()
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	chmod 755 "$work"
	chmod -R a+rX "$b" 2> /dev/null
	chmod 000 "$bm/kernel/fs/fat/vfat.ko"
	chmod a+rx "$(dirname "$SYMVERS")" "$SYMVERS" "$CONFIG" 2> /dev/null
	as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
mkdir -p "$work/broken.out" && chmod 777 "$work/broken.out"
t_run "broken: processed fully, exit status 4" 4 "${as_user[@]}" "$KSC" tree -b "$b" "$KVER" --no-index \
	-E "$SYMVERS" --config "$CONFIG" --write-depmod "$work/broken.out"
t_grep "broken: the corrupt module reported" "$bm/kernel/fs/btrfs/btrfs.ko: " "$T_TMP/err"
if [ ${#as_user[@]} -gt 0 ] || [ "$(id -u)" != 0 ]; then
	t_grep "broken: the unreadable module reported" "$bm/kernel/fs/fat/vfat.ko: Permission denied" "$T_TMP/err"
fi
t_grep "broken: the loop reported" "$bm/kernel/fs/loop: symbolic link loop" "$T_TMP/err"
t_grep "broken: the dangling link reported" "$bm/kernel/fs/dangling.ko: dangling symbolic link" "$T_TMP/err"
t_grep "broken: the other modules read" "$n modules ($n read, 0 from the index, 2 unreadable)" "$T_TMP/out"
cp -a "$b" "$work/dbroken"
rm "$work/dbroken/lib/modules/$KVER/kernel/fs/loop"
chmod 777 "$work/dbroken/lib/modules/$KVER"
"${as_user[@]}" "$KMOD_DEPMOD" -b "$work/dbroken" "$KVER" 2> /dev/null
for f in modules.dep modules.symbols modules.alias; do
	t_diff "broken: $f complete, as depmod's" "$work/dbroken/lib/modules/$KVER/$f" "$work/broken.out/$f"
done
chmod 644 "$bm/kernel/fs/fat/vfat.ko"
chmod 700 "$work"

# Killed midway: each file complete or absent, the index valid or absent.
bad=""
for delay in 0.02 0.05 0.1 0.15 0.2 0.3 0.4 0.5 0.6 0.8 1.0 1.5; do
	rm -rf "$work/kout" "$work/kidx"
	mkdir -p "$work/kout"
	{ timeout -s KILL "$delay" "$KSC" tree -b "$work/ko" "$KVER" -E "$SYMVERS" --config "$CONFIG" \
		-q --index "$work/kidx/tree.idx" --write-depmod "$work/kout"; } > /dev/null 2>&1
	for f in $FILES; do
		if [ -e "$work/kout/$f" ] && ! cmp -s "$work/kout/$f" "$work/ko/lib/modules/$KVER/$f"; then
			bad="$bad $delay:$f"
		fi
	done
	if [ -e "$work/kidx/tree.idx" ]; then
		state=$("$KSC" tree -b "$work/ko" "$KVER" --no-check -f json --index "$work/kidx/tree.idx" 2> /dev/null |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["index"])')
		[ "$state" = used ] || bad="$bad $delay:index-$state"
	fi
done
t_eq "killed midway (12 times): no partial file, no corrupt index" "" "$bad"
