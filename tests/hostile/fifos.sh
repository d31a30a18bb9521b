# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile special files given as paths: a FIFO (nobody writing to it), a socket, a
# character device. No open blocks: a module or source file that is not a regular file
# is refused by kind, a text input (Module.symvers) that is a FIFO is read once to its
# end - empty without a writer, and said so - and the command goes on with the next
# path; the exit status has 4. A pipe (`<(cat Module.symvers)`) is read whole (before:
# without its first two bytes, sniffed by a first open).
. tests/lib.sh
. tests/hostile/lib.sh

mkfifo "$T_TMP/fifo"
F=$T_TMP/fifo
K=$H_DEMO/intree/kvm.ko
h_case "fifo: modinfo FIFO MODULE" 4 "$F: not a regular file (a FIFO)" \
	"$KSC" modinfo -F name "$F" "$K"
t_eq "fifo: modinfo still shows the module" kvm "$(cat "$T_TMP/out")"
h_case "fifo: imports FIFO" 4 "$F: not a regular file (a FIFO)" "$KSC" imports "$F"
h_case "fifo: exports FIFO" 4 "$F: empty file: no exports" "$KSC" exports "$F"
h_case "fifo: check -s FIFO" 4 "$F: empty file: no exports" \
	"$KSC" check -s "$F" "$K"
h_tree "$T_TMP/root"
# (tree prints a kernel source's problem twice: the library's log and its problem list)
h_case "fifo: tree -E FIFO" 4 "$F: empty file: no exports
$F: empty file: no exports" \
	"$KSC" tree -b "$T_TMP/root" "$H_REL" --no-index -E "$F" -q
h_case "fifo: src scan FIFO" 4 "$F: not a regular file (a FIFO)" \
	"$KSC" src scan "$F"
h_case "fifo: a FIFO named Module.symvers" 4 \
	"$T_TMP/s/Module.symvers: empty file: no exports" \
	bash -c 'mkdir -p "$1/s" && mkfifo "$1/s/Module.symvers" && "$2" exports "$1/s/Module.symvers"' \
	- "$T_TMP" "$KSC"

# A pipe: read once, whole.
"$KSC" exports "$H_SYMVERS" > "$T_TMP/want"
h_case "fifo: exports <(cat Module.symvers)" 0 "" \
	bash -c '"$1" exports <(cat "$2")' - "$KSC" "$H_SYMVERS"
t_diff "fifo: ... every row, the first one whole" "$T_TMP/want" "$T_TMP/out"

# An empty Module.symvers says so (before: every import unresolved, no word why).
: > "$T_TMP/empty.symvers"
h_case "fifo: check -s EMPTY" 4 "$T_TMP/empty.symvers: empty file: no exports" \
	"$KSC" check -s "$T_TMP/empty.symvers" "$K"

# A socket and a character device: refused by kind.
if python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
	"$T_TMP/sock" 2> /dev/null; then
	h_case "fifo: modinfo SOCKET" 4 "$T_TMP/sock: not a regular file (a socket)" \
		"$KSC" modinfo "$T_TMP/sock"
else
	t_skip "fifo: modinfo SOCKET" "no python3 to make a socket"
fi
h_case "fifo: modinfo /dev/zero" 4 "/dev/zero: not a regular file (a character device)" \
	"$KSC" modinfo /dev/zero
h_case "fifo: exports /dev/zero" 4 "/dev/zero: not a regular file (a character device)" \
	"$KSC" exports /dev/zero

# A FIFO in a module tree: reported by kind (before: "unsupported file type 10000", the
# raw S_IFMT bits in octal), the modules around it read.
h_tree "$T_TMP/ftree"
mkfifo "$T_TMP/ftree/lib/modules/$H_REL/kernel/pipe.ko"
h_case "fifo: a FIFO in the module tree" 4 \
	"$T_TMP/ftree/lib/modules/$H_REL/kernel/pipe.ko: unsupported file type (a FIFO)" \
	"$KSC" tree -b "$T_TMP/ftree" "$H_REL" --no-index --no-check -q

# A FIFO in the place of the built-in keys' cache (beside the tree's index): not opened
# for reading (before: the check hung), not replaced; the keys read from the image.
h_tree "$T_TMP/ktree"
touch -d '1 hour ago' "$T_TMP/ktree/boot/vmlinux-$H_REL"
KX=$T_TMP/kx
S=$FIXTURES/x86_64/fx-user-signed.ko
XDG_CACHE_HOME=$KX "$KSC" check -k "$T_TMP/ktree" "$S" > "$T_TMP/want" 2> /dev/null
keys=$(find "$KX" -name '*.keys' | head -n 1)
if [ -n "$keys" ]; then
	rm "$keys" && mkfifo "$keys"
	# (the sample kernel's image holds no built-in key, and says so)
	h_case "fifo: a FIFO as the keys cache" 0 \
		"$T_TMP/ktree/boot/vmlinux-$H_REL: no built-in key found" \
		env XDG_CACHE_HOME="$KX" "$KSC" check -k "$T_TMP/ktree" "$S"
	t_diff "fifo: ... the same check" "$T_TMP/want" "$T_TMP/out"
	h_kind "fifo: ... the FIFO left alone" p "$keys"
else
	t_fail "fifo: a FIFO as the keys cache" "no keys cache written under $KX"
fi

# nsdeps reads kbuild's MODULE.mod: a FIFO there (before: hung), a link to /dev/zero
# (before: read until memory ran out) is refused by kind, the module's other files used.
NS=$T_TMP/ns
if h_nsdeps_tree "$NS"; then
	D=$NS/nsdeps/fx-nsuser
	rm "$D/fx-nsuser.mod" && mkfifo "$D/fx-nsuser.mod"
	h_case "fifo: nsdeps, a FIFO as MODULE.mod" 5 "$MODNS
$D/fx-nsuser.mod: not a regular file (a FIFO)" \
		"$KSC" nsdeps -q --symvers "$NS/nsdeps/Module.symvers" "$D/fx-nsuser.ko"
	rm "$D/fx-nsuser.mod" && ln -s /dev/zero "$D/fx-nsuser.mod"
	# (600 MB of address space bounds a reader that reads it whole; ASan reserves more)
	lim=600000
	grep -qa __asan_init "$KSC" && lim=unlimited
	h_case "fifo: nsdeps, MODULE.mod a link to /dev/zero" 5 "$MODNS
$D/fx-nsuser.mod: not a regular file (a character device)" \
		bash -c 'ulimit -v "$1"; shift; exec "$@"' - "$lim" \
		"$KSC" nsdeps -q --symvers "$NS/nsdeps/Module.symvers" "$D/fx-nsuser.ko"
else
	t_skip "fifo: nsdeps, a FIFO as MODULE.mod" "cannot assemble the module fixture"
fi

# diff's operands: a FIFO nobody writes to is read once, empty, and said so (before:
# hung); a pipe is read whole (before: its first bytes eaten by the format sniff, then
# read as empty); a character device is refused by kind.
printf '0x00000001\tkvm_hook\tvmlinux\tEXPORT_SYMBOL\t\n' > "$T_TMP/new.symvers"
h_case "fifo: diff FIFO NEW" 4 "$F: empty file: no exports" \
	"$KSC" diff "$F" "$T_TMP/new.symvers"
"$KSC" diff "$H_SYMVERS" "$T_TMP/new.symvers" > "$T_TMP/want"
h_case "fifo: diff <(cat OLD) <(cat NEW)" 1 "" \
	bash -c '"$1" diff <(cat "$2") <(cat "$3")' - "$KSC" "$H_SYMVERS" "$T_TMP/new.symvers"
t_diff "fifo: ... the same changes as from the files" "$T_TMP/want" "$T_TMP/out"
"$KSC" diff "$FIXTURES/x86_64/fx-vmlinux-prel32" "$T_TMP/new.symvers" > "$T_TMP/want"
h_case "fifo: diff <(cat vmlinux) NEW" 1 "" \
	bash -c '"$1" diff <(cat "$2") "$3"' - "$KSC" "$FIXTURES/x86_64/fx-vmlinux-prel32" \
	"$T_TMP/new.symvers"
t_diff "fifo: ... the image read from the pipe" "$T_TMP/want" "$T_TMP/out"
h_case "fifo: diff /dev/zero NEW" 4 "/dev/zero: not a regular file (a character device)" \
	"$KSC" diff /dev/zero "$T_TMP/new.symvers"

# compat reads a source file named by --src and a kernel root's headers Makefile
# (usr/src/linux-headers-KVER/Makefile, which names the -common package's): a FIFO in
# either place is not opened blocking (before: both hung). --src is refused by kind; a
# headers Makefile that is not a regular file names no headers, as a missing one.
S=$T_TMP/compat.symvers
printf '0x00000001\tprintk\tvmlinux\tEXPORT_SYMBOL\t\n' > "$S"
h_case "fifo: compat --src FIFO" 4 "$F: not a regular file (a FIFO)" \
	"$KSC" compat --src "$F" -s "$S" --kver 7.2.0 "$FIXTURES/x86_64/fx-user.ko"
CR=$T_TMP/croot
scripts/mk-sample-kernel.sh "$FIXTURES" "$CR" > /dev/null 2>&1
"$KSC" compat -k "$CR" "$FIXTURES/x86_64/fx-user.ko" > "$T_TMP/want" 2>&1
mkdir -p "$CR/usr/src/linux-headers-6.16.0-demo"
mkfifo "$CR/usr/src/linux-headers-6.16.0-demo/Makefile"
h_case "fifo: compat -k ROOT, a FIFO as the headers' Makefile" 0 "" \
	"$KSC" compat -k "$CR" "$FIXTURES/x86_64/fx-user.ko"
t_diff "fifo: ... the same matrix" "$T_TMP/want" "$T_TMP/out"
