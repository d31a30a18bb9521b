#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ksymcheck src scan`, `src migrate` and `nsdeps` on the source fixtures of
# tests/fixtures/srctree (see its README.md): golden outputs (the fixture folder's, written
# from the sources, and tests/expected/src/: t_expect, make regen-expected), exact diffs,
# idempotence,
# and that a read-only file, a full disk and a file that is not what was read leave every
# original intact. (A file edited between read and rename is tested in
# tests/unit/test-src.c, test_commit, through the library's before_replace callback.)
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

FX=$TOP/tests/fixtures/srctree
export LC_ALL=C

# Every file below $1, with its mode and content hash: "nothing changed" is an equal list.
snapshot() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r stat -c '%a %n' && find . -type f -print0 | sort -z | xargs -0 -r sha1sum); }

# ---- src scan ------------------------------------------------------------------------
cd "$FX/scan"
t_run "scan: text" 0 "$KSC" src scan .
t_diff "scan: text output" "$FX/scan.txt" "$T_TMP/out"
t_run "scan: json" 0 "$KSC" src scan --format json .
t_diff "scan: json output" "$FX/scan.json" "$T_TMP/out"
t_run "scan: symvers" 0 "$KSC" src scan --format symvers .
t_diff "scan: symvers output" "$FX/scan.symvers" "$T_TMP/out"
t_run "scan: mentions" 0 "$KSC" src scan --mentions .
t_diff "scan: mentions output" "$FX/scan-mentions.txt" "$T_TMP/out"
t_run "scan: one thread" 0 "$KSC" src scan -j 1 .
t_diff "scan: one thread gives the same" "$FX/scan.txt" "$T_TMP/out"
# A file alone gets its folder's Makefile flags.
t_expect scan-file-alone 0 "$KSC" src scan defns/a.c
# The output is valid JSON with one object per record.
if command -v python3 > /dev/null; then
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["records"]))' "$FX/scan.json")
	t_eq "scan: json parses, one object per record" "$(wc -l < "$FX/scan.txt")" "$n"
fi
cd "$TOP"
t_expect scan-missing-path 4 "$KSC" src scan "$T_TMP/nope.c"
t_expect scan-no-path 2 "$KSC" src scan
t_expect scan-bad-format 2 "$KSC" src scan --format kernel .
t_expect src-unknown-subcommand 2 "$KSC" src frob
t_expect src-help 0 "$KSC" src --help

# ---- src migrate ---------------------------------------------------------------------
W=$T_TMP/w
fresh() { cd "$T_TMP" && rm -rf "$W" && mkdir -p "$W" && cp -r "$FX/migrate" "$W/" && chmod -R u+w "$W" && cd "$W"; }

fresh
before=$(snapshot "$W")
t_run "migrate old->6.17: dry run finds changes" 1 "$KSC" src migrate --to 6.17 migrate/old
t_diff "migrate old->6.17: exact diff" "$FX/migrate-old-6.17.diff" "$T_TMP/out"
t_diff "migrate old->6.17: notes" "$FX/migrate-old-6.17.notes" "$T_TMP/err"
t_eq "migrate: a dry run changes nothing" "$before" "$(snapshot "$W")"
# The diff applies with patch -p1 and gives what --write writes.
HAVE_PATCH=0
command -v patch > /dev/null && HAVE_PATCH=1
if [ $HAVE_PATCH = 1 ]; then
	cp -r "$W/migrate" "$T_TMP/patched" && (cd "$T_TMP" && mkdir -p p && mv patched p/migrate &&
		cd p && patch -s -p1 < "$FX/migrate-old-6.17.diff") > "$T_TMP/patch.log" 2>&1
	t_eq "migrate: the diff applies with patch -p1" "0" "$?"
else
	t_skip "migrate: the diff applies with patch -p1" "patch is not installed"
fi
chmod 0640 migrate/old/fx-drv.c
touch -d '2001-01-01 00:00:00' migrate/old/fx-drv.c
t_expect migrate-old-6.17-write 1 "$KSC" src migrate --to 6.17 --write migrate/old
if [ $HAVE_PATCH = 0 ]; then
	t_skip "migrate --write writes what the diff says" "patch is not installed"
elif diff -r "$T_TMP/p/migrate/old" migrate/old > "$T_TMP/d"; then
	t_ok "migrate --write writes what the diff says"
else
	t_fail "migrate --write writes what the diff says" "$(head -n 20 "$T_TMP/d")"
fi
t_eq "migrate --write keeps the permission bits" "640" "$(stat -c %a migrate/old/fx-drv.c)"
if [ "$(stat -c %Y migrate/old/fx-drv.c)" -gt 978307200 ]; then
	t_ok "migrate --write gives the file a new mtime"
else
	t_fail "migrate --write gives the file a new mtime"
fi
t_eq "migrate --write leaves no temporary files" "Makefile fx-drv.c" "$(ls -A migrate/old | tr '\n' ' ' | sed 's/ $//')"
after=$(snapshot "$W")
# a second run finds nothing to change: no diff, still the note
t_expect migrate-old-6.17-again 1 "$KSC" src migrate --to 6.17 migrate/old
t_run "migrate: a second --write" 1 "$KSC" src migrate --to 6.17 --write migrate/old
t_eq "migrate: a second --write changes nothing" "$after" "$(snapshot "$W")"

fresh
t_run "migrate new->6.12" 1 "$KSC" src migrate --to 6.12 migrate/new
t_diff "migrate new->6.12: exact diff" "$FX/migrate-new-6.12.diff" "$T_TMP/out"
t_diff "migrate new->6.12: notes" "$FX/migrate-new-6.12.notes" "$T_TMP/err"
t_run "migrate new->6.16" 1 "$KSC" src migrate --to 6.16 migrate/new
t_diff "migrate new->6.16: exact diff" "$FX/migrate-new-6.16.diff" "$T_TMP/out"
t_run "migrate new->6.16 --write" 1 "$KSC" src migrate --to 6.16 --write migrate/new
t_expect migrate-new-6.16-again 1 "$KSC" src migrate --to 6.16 migrate/new
t_run "migrate new->6.17 (back)" 1 "$KSC" src migrate --to 6.17 --write migrate/new
if diff -r "$FX/migrate/new" migrate/new > "$T_TMP/d"; then
	t_ok "migrate 6.17 -> 6.16 -> 6.17 gives the original back"
else
	t_fail "migrate 6.17 -> 6.16 -> 6.17 gives the original back" "$(head -n 20 "$T_TMP/d")"
fi
t_expect migrate-no-to 2 "$KSC" src migrate migrate/new
t_expect migrate-bad-to 2 "$KSC" src migrate --to latest migrate/new

# A read-only file is left alone (even for root), the others are written.
fresh
chmod 0444 migrate/old/fx-drv.c
ro_before=$(sha1sum migrate/old/fx-drv.c)
t_expect migrate-read-only-file 5 "$KSC" src migrate --to 6.17 --write migrate/old
t_eq "migrate: the read-only file is intact" "$ro_before" "$(sha1sum migrate/old/fx-drv.c)"
t_eq "migrate: the read-only file keeps its mode" "444" "$(stat -c %a migrate/old/fx-drv.c)"
t_grep "migrate: the writable Makefile is rewritten" "'\"FX_DRV\"'" migrate/old/Makefile
t_eq "migrate: no temporary files after a refusal" "Makefile fx-drv.c" "$(ls -A migrate/old | tr '\n' ' ' | sed 's/ $//')"
chmod 0644 migrate/old/fx-drv.c

# A read-only folder: no temporary file can be made; nothing changes.
# Root writes any folder: as root, run it as nobody (setpriv, util-linux).
fresh
as_user=()
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	chmod 755 "$T_TMP"
	chmod -R a+rX "$W"
	as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
	chmod 0555 migrate/old
	before=$(snapshot "$W")
	t_run "migrate --write in a read-only folder" 5 "${as_user[@]}" "$KSC" src migrate --to 6.17 --write migrate/old
	t_eq "migrate: a read-only folder keeps every original" "$before" "$(snapshot "$W")"
	chmod 0755 migrate/old
else
	t_skip "migrate --write in a read-only folder" "needs a non-root user: root writes any folder, and setpriv is missing"
fi

# A full disk: a small tmpfs, filled up; every original stays as it was.
full_disk_test() {
	local mnt=$T_TMP/full
	mkdir -p "$mnt"
	cat > "$T_TMP/full.sh" <<-EOF
	set -u
	mount -t tmpfs -o size=64k tmpfs "$mnt" || exit 77
	cp -r "$FX/migrate" "$mnt/"
	# fill what is left, leaving less than the new files need
	dd if=/dev/zero of="$mnt/filler" bs=1k count=1000 2> /dev/null
	rm -f "$mnt/filler.small"; dd if=/dev/zero of="$mnt/filler.small" bs=1 count=100 2> /dev/null
	(cd "$mnt" && find migrate -type f -print0 | sort -z | xargs -0 sha1sum) > "$T_TMP/full.before"
	(cd "$mnt" && "$KSC" src migrate --to 6.17 --write migrate/old) > "$T_TMP/full.out" 2> "$T_TMP/full.err"
	echo \$? > "$T_TMP/full.rc"
	(cd "$mnt" && find migrate -type f -print0 | sort -z | xargs -0 sha1sum) > "$T_TMP/full.after"
	ls -A "$mnt/migrate/old" > "$T_TMP/full.ls"
	umount "$mnt"
	EOF
	# In a mount namespace of its own where it can be had; else root mounts it here (and
	# unmounts it), and a user with sudo through sudo.
	if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null && unshare -m true 2> /dev/null; then
		unshare -m bash "$T_TMP/full.sh"
	elif [ "$(id -u)" = 0 ]; then
		bash "$T_TMP/full.sh"
	elif command -v unshare > /dev/null && unshare -Urm true 2> /dev/null; then
		unshare -Urm bash "$T_TMP/full.sh"
	elif command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
		sudo -n bash "$T_TMP/full.sh"
	else
		return 77
	fi
}
full_disk_test
rc=$?
if [ $rc = 77 ] || [ ! -f "$T_TMP/full.rc" ]; then
	t_skip "migrate --write on a full disk" "cannot mount a small tmpfs here (needs root, sudo or user namespaces)"
else
	t_eq "migrate --write on a full disk: exit status 4 (+1 for the note)" "5" "$(cat "$T_TMP/full.rc")"
	t_grep "migrate: the full disk is reported" "No space left on device; left unchanged" "$T_TMP/full.err"
	if cmp -s "$T_TMP/full.before" "$T_TMP/full.after"; then
		t_ok "migrate: a full disk leaves every original intact"
	else
		t_fail "migrate: a full disk leaves every original intact" "$(diff "$T_TMP/full.before" "$T_TMP/full.after")"
	fi
	t_eq "migrate: no temporary files on the full disk" "Makefile fx-drv.c" "$(tr '\n' ' ' < "$T_TMP/full.ls" | sed 's/ $//')"
fi

# ---- nsdeps --------------------------------------------------------------------------
cd "$TOP"
CLANG=${CLANG:-clang}
N=$T_TMP/n
nfresh() { cd "$T_TMP" && rm -rf "$N" && mkdir -p "$N" && cp -r "$FX/nsdeps" "$N/" && cd "$N"; }
nfresh
if ! command -v "$CLANG" > /dev/null ||
	! "$CLANG" --target=x86_64-linux-gnu -Werror -c -I "$TOP/tests/fixtures/src" \
		-o "$N/nsdeps/fx-nsuser.ko" "$FX/nsdeps/fx-nsuser.S" 2> "$T_TMP/clang.err"; then
	t_skip "nsdeps" "cannot assemble the module fixture with $CLANG: $(head -c 200 "$T_TMP/clang.err")"
	exit 0
fi
cp "$N/nsdeps/fx-nsuser.ko" "$T_TMP/fx-nsuser.ko"
cd "$N"
SV=nsdeps/Module.symvers
before=$(snapshot "$N")
t_run "nsdeps 6.16: dry run" 1 "$KSC" nsdeps --symvers $SV --src nsdeps/fx-nsuser nsdeps/fx-nsuser.ko
t_diff "nsdeps 6.16: exact diff (sorted into the existing block)" "$FX/nsdeps-6.16.diff" "$T_TMP/out"
t_diff "nsdeps 6.16: messages (module: explained, not imported)" "$FX/nsdeps-6.16.err" "$T_TMP/err"
t_eq "nsdeps: a dry run changes nothing" "$before" "$(snapshot "$N")"
t_expect nsdeps-6.16-write 1 "$KSC" nsdeps --symvers $SV --src nsdeps/fx-nsuser --write nsdeps/fx-nsuser.ko
# The diff's paths are relative to the source folder: patch -p1 applies it there.
[ $HAVE_PATCH = 1 ] && (cd "$T_TMP" && rm -rf np && mkdir np && cp -r "$FX/nsdeps" np/ &&
	cd np/nsdeps/fx-nsuser && patch -s -p1 < "$FX/nsdeps-6.16.diff") > /dev/null 2>&1
if [ $HAVE_PATCH = 0 ]; then
	t_skip "nsdeps --write writes what the diff says (patch -p1)" "patch is not installed"
elif cmp -s "$T_TMP/np/nsdeps/fx-nsuser/main.c" nsdeps/fx-nsuser/main.c; then
	t_ok "nsdeps --write writes what the diff says (patch -p1)"
else
	t_fail "nsdeps --write writes what the diff says (patch -p1)" "$(diff "$T_TMP/np/nsdeps/fx-nsuser/main.c" nsdeps/fx-nsuser/main.c | head)"
fi
t_eq "nsdeps: the file without MODULE_LICENSE() is not touched" \
	"$(sha1sum < "$FX/nsdeps/fx-nsuser/helper.c")" "$(sha1sum < nsdeps/fx-nsuser/helper.c)"
after=$(snapshot "$N")
t_expect nsdeps-6.16-again 1 "$KSC" nsdeps --symvers $SV --src nsdeps/fx-nsuser --write nsdeps/fx-nsuser.ko
t_eq "nsdeps: a second run changes nothing" "$after" "$(snapshot "$N")"

# The rules (and so the syntax) come from the kernel: a Module.symvers in Debian's
# headers folder names its release, over the module's own vermagic (6.16).
nfresh
cp "$T_TMP/fx-nsuser.ko" nsdeps/
mkdir -p "$T_TMP/hdr/usr/src/linux-headers-6.12.0-test"
cp "$SV" "$T_TMP/hdr/usr/src/linux-headers-6.12.0-test/Module.symvers"
# 6.12's identifier syntax, not the vermagic's 6.16
t_expect nsdeps-headers-release 1 "$KSC" nsdeps \
	--symvers "$T_TMP/hdr/usr/src/linux-headers-6.12.0-test/Module.symvers" \
	--src nsdeps/fx-nsuser nsdeps/fx-nsuser.ko

# applies NAME DIR DIFF: patch -p1 --dry-run and git apply --check accept DIFF in DIR
applies() {
	local rc
	if [ $HAVE_PATCH = 1 ]; then
		(cd "$2" && patch -p1 --dry-run < "$3") > "$T_TMP/patch.log" 2>&1
		rc=$?
		t_eq "$1: patch -p1 --dry-run in that folder" "0" "$rc$(grep -iv '^checking file' "$T_TMP/patch.log")"
	else
		t_skip "$1: patch -p1 --dry-run in that folder" "patch is not installed"
	fi
	if command -v git > /dev/null; then
		(cd "$2" && git init -q . && git apply --check "$3") > "$T_TMP/patch.log" 2>&1
		rc=$?
		rm -rf "$2/.git"
		t_eq "$1: git apply --check in that folder" "0" "$rc$(cat "$T_TMP/patch.log")"
	else
		t_skip "$1: git apply --check in that folder" "git is not installed"
	fi
}

# kbuild's .mod names the sources by absolute path (as an M= build of an external module
# writes it) and there is no --src: the diff is still relative to the module's folder.
nfresh
cp "$T_TMP/fx-nsuser.ko" nsdeps/fx-nsuser/
printf '%s\n' "$N/nsdeps/fx-nsuser/main.o" "$N/nsdeps/fx-nsuser/helper.o" > nsdeps/fx-nsuser/fx-nsuser.mod
cd "$T_TMP"
t_expect nsdeps-absolute-mod 1 "$KSC" nsdeps --symvers "$N/$SV" "$N/nsdeps/fx-nsuser/fx-nsuser.ko"
t_diff "nsdeps: a/ b/ paths relative to the module's folder" "$FX/nsdeps-6.16.diff" "$T_TMP/out"
cp "$T_TMP/out" "$T_TMP/abs.diff"
applies "nsdeps: absolute .mod" "$N/nsdeps/fx-nsuser" "$T_TMP/abs.diff"
# The same module given by a relative path from elsewhere, and a --src with "./" and "//".
(cd "$N/nsdeps" && "$KSC" nsdeps --symvers Module.symvers --src .//fx-nsuser/ ./fx-nsuser/fx-nsuser.ko) > "$T_TMP/out" 2> /dev/null
t_diff "nsdeps: --src .//fx-nsuser/ gives the same diff" "$FX/nsdeps-6.16.diff" "$T_TMP/out"

# Two modules in two folders, no --src: one diff, relative to the folder holding both.
nfresh
for m in m1 m2; do
	mkdir -p "two/$m" && cp nsdeps/fx-nsuser/* "two/$m/" && cp "$T_TMP/fx-nsuser.ko" "two/$m/"
done
t_expect nsdeps-two-folders 1 "$KSC" nsdeps --symvers $SV two/m1/fx-nsuser.ko two/m2/fx-nsuser.ko
t_diff "nsdeps: two folders: paths relative to their common folder" "$TOP/tests/expected/nsdeps/two-folders.diff" "$T_TMP/out"
cp "$T_TMP/out" "$T_TMP/two.diff"
applies "nsdeps: two folders" "$N/two" "$T_TMP/two.diff"
# A source outside the module's folder (named so by the .mod) keeps its path, and says so.
mkdir other m3 && cp two/m1/*.c other/ && cp "$T_TMP/fx-nsuser.ko" m3/
printf '%s\n' "$N/other/main.o" "$N/other/helper.o" > m3/fx-nsuser.mod
# keeps its path in the diff, and says so
t_expect nsdeps-source-outside 1 "$KSC" nsdeps --symvers $SV m3/fx-nsuser.ko
cd "$N"

# 6.1: identifiers, no .mod file (the one .c with MODULE_LICENSE()), no imports yet.
nfresh
cp "$T_TMP/fx-nsuser.ko" nsdeps/
# module:kvm is explained, not imported
t_expect nsdeps-6.1 1 "$KSC" nsdeps --symvers $SV --policy 6.1 --src nsdeps/single nsdeps/fx-nsuser.ko
t_diff "nsdeps 6.1: exact diff (after MODULE_LICENSE, identifiers)" "$FX/nsdeps-6.1.diff" "$T_TMP/out"
# A read-only source: left alone.
chmod 0444 nsdeps/single/fx-nsuser.c
t_expect nsdeps-read-only-source 5 "$KSC" nsdeps --symvers $SV --policy 6.1 --src nsdeps/single --write nsdeps/fx-nsuser.ko
t_eq "nsdeps: the read-only source is intact" \
	"$(sha1sum < "$FX/nsdeps/single/fx-nsuser.c")" "$(sha1sum < nsdeps/single/fx-nsuser.c)"
chmod 0644 nsdeps/single/fx-nsuser.c
# Several files with MODULE_LICENSE() and no .mod: which one is ambiguous.
t_expect nsdeps-ambiguous-sources 5 "$KSC" nsdeps --symvers $SV --src "$FX/scan" nsdeps/fx-nsuser.ko
if [ ! -d "/lib/modules/$(uname -r)" ] && [ ! -d "/usr/lib/modules/$(uname -r)" ]; then
	t_run "nsdeps: no kernel option means this machine's (none here)" 4 "$KSC" nsdeps nsdeps/fx-nsuser.ko
	t_grep "... the running release is looked for" "/lib/modules/$(uname -r): no such module directory" "$T_TMP/err"
fi
t_expect nsdeps-no-module 2 "$KSC" nsdeps --symvers $SV
t_expect nsdeps-help 0 "$KSC" nsdeps --help
# Nothing missing: exit 0, no output.
t_expect nsdeps-nothing-to-add 0 "$KSC" nsdeps --symvers "$TOP/tests/fixtures/srctree/scan.symvers" --src nsdeps/single nsdeps/fx-nsuser.ko
