# SPDX-License-Identifier: LGPL-2.1-or-later
# `src migrate --write` on files it must not or cannot replace: a file with two hard
# links, a symbolic link, a read-only file and a write that fails (a file size limit, as
# a full disk fails it). Each is left as it was with its reason, and counted as rewritten
# only when it was. (An edit made in the instant before the switch: tests/unit/test-src.c,
# through the library's after_check callback.)
. tests/lib.sh
. tests/hostile/lib.sh

mkdir "$T_TMP/s"
cd "$T_TMP/s" || exit 1
src='#include <linux/module.h>
int fx_a(void) { return 0; }
EXPORT_SYMBOL_NS(fx_a, FX_NS);
MODULE_LICENSE("GPL");'
for f in a b c d; do echo "$src" > $f.c; done
ln b.c b2.c
ln -s c.c link.c
chmod a-w d.c
h_case "migrate: --write on a file, a hard link, a symbolic link, a read-only file" 4 \
	"b.c: has several hard links, replacing it would split them; left unchanged
link.c: a symbolic link, replacing it would replace the link; left unchanged
d.c: read-only (no write permission); left unchanged
4 files with namespace or export macros, 1 rewritten for 6.17" \
	"$KSC" src migrate --to 6.17 --write a.c b.c link.c d.c
t_eq "migrate: ... only the plain file rewritten" "a.c: 1 change written" "$(cat "$T_TMP/out")"
t_eq "migrate: ... the others as they were" "$src
$src
$src
$src" "$(cat b2.c link.c c.c d.c)"
t_eq "migrate: ... the link still a link" "c.c" "$(readlink link.c)"

# A write that fails: a file size limit of 1 KiB (SIGXFSZ ignored: write() fails with
# EFBIG) and a 1.5 KiB source.
{ printf '/* %s */\n' "$(head -c 1500 /dev/zero | tr '\0' x)"; echo "$src"; } > big.c
cp big.c big.orig
(
	trap '' XFSZ
	ulimit -f 1
	"$KSC" src migrate --to 6.17 --write big.c > "$T_TMP/out" 2> "$T_TMP/err"
	echo $? > "$T_TMP/rc"
)
t_eq "migrate: a failing write: exit status 4, said, not counted" \
	"4
ksymcheck: big.c: cannot write the new content: File too large; left unchanged
ksymcheck: 1 file with namespace or export macros, 0 rewritten for 6.17" \
	"$(cat "$T_TMP/rc" "$T_TMP/err" "$T_TMP/out")"
t_eq "migrate: ... the file as it was, no temporary file left" "same 0" \
	"$(cmp -s big.c big.orig && echo same) $(find . -name '.*ksc-*' | wc -l)"
exit 0
