# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile write targets: every file ksymcheck writes by a rename (the tree index,
# --write-depmod's files, --html reports) replaces only a regular file or a symbolic
# link. A device, FIFO, socket or folder in its place is reported as
# "PATH: not a regular file; not replaced", left as it was, the exit status has 4, and
# the rest of the work is done. An existing file keeps its permission bits. (With -q the
# warning that an unreadable index is rebuilt is not shown.)
. tests/lib.sh
. tests/hostile/lib.sh

h_tree "$T_TMP/root"
T="$KSC tree -b $T_TMP/root $H_REL"

mkfifo "$T_TMP/fifo"
h_case "write: tree --index FIFO" 4 \
	"$T_TMP/fifo: not a regular file; not replaced" $T --index "$T_TMP/fifo" -q
h_kind "write: the FIFO is still a FIFO" p "$T_TMP/fifo"

mkdir "$T_TMP/folder"
h_case "write: tree --index FOLDER" 4 \
	"$T_TMP/folder: not a regular file; not replaced" $T --index "$T_TMP/folder" -q
h_kind "write: the folder is still a folder" d "$T_TMP/folder"

if python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
	"$T_TMP/sock" 2> /dev/null; then
	h_case "write: tree --index SOCKET" 4 \
		"$T_TMP/sock: not a regular file; not replaced" $T --index "$T_TMP/sock" -q
	h_kind "write: the socket is still a socket" S "$T_TMP/sock"
else
	t_skip "write: tree --index SOCKET" "no python3 to make a socket"
fi

# A character device of our own is only possible as root (or through sudo); /dev/null is
# never touched.
sudo=()
[ "$(id -u)" = 0 ] || ! command -v sudo > /dev/null || ! sudo -n true 2> /dev/null || sudo=(sudo -n)
if { [ "$(id -u)" = 0 ] || [ ${#sudo[@]} -gt 0 ]; } && "${sudo[@]}" mknod "$T_TMP/null" c 1 3 2> /dev/null; then
	h_case "write: tree --index CHARDEV" 4 \
		"$T_TMP/null: not a regular file; not replaced" $T --index "$T_TMP/null" -q
	h_kind "write: the device is still a device" c "$T_TMP/null"
else
	t_skip "write: tree --index CHARDEV" "mknod needs root or sudo"
fi

# --write-depmod: one of the five files is a FIFO: none is replaced, the index is written.
mkdir "$T_TMP/dm"
mkfifo "$T_TMP/dm/modules.symbols"
h_case "write: --write-depmod with a FIFO among the files" 4 \
	"$T_TMP/dm/modules.symbols: not a regular file; not replaced" \
	$T --index "$T_TMP/idx" --write-depmod "$T_TMP/dm" -q
h_kind "write: the depmod FIFO is still a FIFO" p "$T_TMP/dm/modules.symbols"
t_eq "write: no depmod file written beside it" "modules.symbols" "$(ls "$T_TMP/dm")"
h_kind "write: the index was still written" f "$T_TMP/idx"

# A regular file keeps its mode; a symbolic link is replaced by the file.
rm "$T_TMP/dm/modules.symbols"
: > "$T_TMP/dm/modules.dep"
chmod 600 "$T_TMP/dm/modules.dep"
rm -f "$T_TMP/dm/modules.alias"
ln -s nowhere "$T_TMP/dm/modules.alias"
h_case "write: --write-depmod over a 0600 file and a symbolic link" 0 "" \
	$T --no-index --no-check --write-depmod "$T_TMP/dm" -q
t_eq "write: modules.dep stays 0600" 600 "$(stat -c %a "$T_TMP/dm/modules.dep")"
h_kind "write: the symbolic link was replaced by the file" f "$T_TMP/dm/modules.alias"
chmod 640 "$T_TMP/idx"
h_case "write: tree --index over a 0640 index" 0 "" $T --index "$T_TMP/idx" --no-check -q
t_eq "write: the index stays 0640" 640 "$(stat -c %a "$T_TMP/idx")"

# --html of diff and audit.
rm -f "$T_TMP/fifo"
mkfifo "$T_TMP/fifo"
h_case "write: diff --html FIFO" 4 "ksymcheck: $T_TMP/fifo: not a regular file; not replaced" \
	"$KSC" diff --html "$T_TMP/fifo" "$H_SYMVERS" "$H_SYMVERS"
h_kind "write: the --html FIFO is still a FIFO" p "$T_TMP/fifo"
h_case "write: audit --html FOLDER" 4 \
	"ksymcheck: $T_TMP/folder: not a regular file; not replaced" \
	$KSC audit -b "$T_TMP/root" --html "$T_TMP/folder" "$H_REL"
t_eq "write: audit still printed its report" yes "$([ -s "$T_TMP/out" ] && echo yes)"
: > "$T_TMP/r.html"
chmod 600 "$T_TMP/r.html"
h_case "write: diff --html over a 0600 report" 0 "" \
	"$KSC" diff --html "$T_TMP/r.html" "$H_SYMVERS" "$H_SYMVERS"
t_eq "write: the report stays 0600" 600 "$(stat -c %a "$T_TMP/r.html")"
t_grep "write: the report was written" "</html>" "$T_TMP/r.html"

# nsdeps --write edits only files below its source folder (--src DIR, else the module's
# folder), whatever kbuild's MODULE.mod names: an absolute path, a ../ path or a path
# through a symbolic link out of the folder is refused (before: edited silently); the
# module's own files are still edited.
NS=$T_TMP/ns
if h_nsdeps_tree "$NS"; then
	D=$NS/nsdeps/fx-nsuser
	mkdir -p "$NS/outside" "$NS/out2"
	cp "$D/main.c" "$NS/outside/abs.c"
	cp "$D/main.c" "$NS/outside/up.c"
	cp "$D/main.c" "$NS/out2/linked.c"
	ln -s "$NS/out2" "$D/sub"
	cp "$D/main.c" "$T_TMP/main.orig"
	printf '%s\n' "$NS/outside/abs.o" ../../outside/up.o sub/linked.o main.o > "$D/fx-nsuser.mod"
	h_case "write: nsdeps --write, MODULE.mod names files outside --src" 5 "$MODNS
$NS/outside/abs.c: outside --src $D: not written
$D/../../outside/up.c: outside --src $D: not written
$D/sub/linked.c: outside --src $D: not written" \
		"$KSC" nsdeps -q --symvers "$NS/nsdeps/Module.symvers" --src "$D" --write "$D/fx-nsuser.ko"
	t_eq "write: ... none of them edited" "same same same" \
		"$(for f in outside/abs.c outside/up.c out2/linked.c; do
			cmp -s "$T_TMP/main.orig" "$NS/$f" && echo same || echo "$f changed"; done | tr '\n' ' ' | sed 's/ $//')"
	t_eq "write: ... the module's own source edited" "edited" \
		"$(cmp -s "$T_TMP/main.orig" "$D/main.c" && echo same || echo edited)"
else
	t_skip "write: nsdeps --write, MODULE.mod names files outside --src" "cannot assemble the module fixture"
fi
