# SPDX-License-Identifier: LGPL-2.1-or-later
# The size and circle limits of lib/, tools/ and util/ (tests/structure.py, which lists
# today's exceptions with their reasons): no file over 1,500 lines, no function over 120,
# no #include circle, no new call circle between the library's files (nm on the objects
# in $BUILD/lib). First on a made-up tree that breaks each limit once, so that a checker
# that passes everything fails here.
. tests/lib.sh

bad=$T_TMP/bad
mkdir -p "$bad/lib" "$bad/tools" "$bad/util"
{
	echo '#include "b.h"'
	echo 'int f(void)'
	echo '{'
	for i in $(seq 121); do echo "	x($i);"; done
	echo '}'
	for i in $(seq 1400); do echo "/* $i */"; done
} > "$bad/lib/a.c"
echo '#include "c.h"' > "$bad/lib/b.h"
echo '#include "b.h"' > "$bad/lib/c.h"
python3 tests/structure.py "$bad" > "$T_TMP/bad.out" 2>&1
rc=$?
t_eq "a tree with a long file, a long function and an include circle fails each check" \
	"1 3 lib/a.c: 1525 lib/a.c:2: f() has 121 lib/b.h -> lib/c.h" \
	"$rc $(grep -c '^not ok' "$T_TMP/bad.out") $(grep -o 'lib/a.c: [0-9]*' "$T_TMP/bad.out") $(grep -o 'lib/a.c:2: f() has [0-9]*' "$T_TMP/bad.out") $(grep -o 'lib/b.h -> lib/c.h' "$T_TMP/bad.out")"

# Two library files that call each other: a call circle no exception covers.
mkdir -p "$T_TMP/obj/lib"
printf 'int ksc_x_a(void);\nint ksc_x_b(void) { return ksc_x_a(); }\n' > "$T_TMP/x-b.c"
printf 'int ksc_x_b(void);\nint ksc_x_a(void) { return ksc_x_b(); }\n' > "$T_TMP/x-a.c"
if ${CC:-cc} -c -o "$T_TMP/obj/lib/ksc-x-a.o" "$T_TMP/x-a.c" &&
	${CC:-cc} -c -o "$T_TMP/obj/lib/ksc-x-b.o" "$T_TMP/x-b.c"; then
	python3 tests/structure.py --build "$T_TMP/obj" "$T_TMP/obj" > "$T_TMP/calls.out" 2>&1
	t_eq "two library files that call each other fail the call circle check" "1 2" \
		"$? $(grep -c 'lib/ksc-x-[ab].c calls lib/ksc-x-[ab].c' "$T_TMP/calls.out")"
else
	t_fail "two library files that call each other fail the call circle check" "cc failed"
fi

python3 tests/structure.py --build "$BUILD" . > "$T_TMP/out" 2>&1
rc=$?
cat "$T_TMP/out"
[ $rc -eq 0 ] || grep -q '^not ok' "$T_TMP/out" || t_fail "tests/structure.py ran" "exit status $rc"
