# SPDX-License-Identifier: LGPL-2.1-or-later
# The size and layering limits of lib/, tools/ and util/ (tests/structure.py, which lists
# today's exceptions with their reasons): no file over 1,000 lines, no function over 100,
# one home for getopt_long(), realloc() and stderr, no #include circle, no include or call
# (nm on the objects in $BUILD) from a lower wing to a higher one, no circle of calls
# between the files of one wing, no read of another wing's private struct, nor of a
# struct private to its file outside that file. First on a
# made-up tree that breaks each limit once, so that a checker that passes everything
# fails here.
. tests/lib.sh

bad=$T_TMP/bad
mkdir -p "$bad/lib/readers" "$bad/lib/tree" "$bad/lib/engine" "$bad/lib/source" "$bad/tools" "$bad/util"
{
	echo '#include "readers/b.h"'
	echo 'int f(void)'
	echo '{'
	for i in $(seq 121); do echo "	x($i);"; done
	echo '}'
	for i in $(seq 1400); do echo "/* $i */"; done
} > "$bad/lib/readers/a.c"
echo '#include "readers/c.h"' > "$bad/lib/readers/b.h"
echo '#include "readers/b.h"' > "$bad/lib/readers/c.h"
echo '/* the tree wing */' > "$bad/lib/tree/tree.h"
echo '/* the engine wing */' > "$bad/lib/engine/engine.h"
echo '#include "tree/tree.h"' > "$bad/lib/readers/d.c"
echo '#include "engine/engine.h"' > "$bad/lib/source/e.c"
echo '#include "readers/b.h"' > "$bad/tools/t.c"
python3 tests/structure.py "$bad" > "$T_TMP/bad.out" 2>&1
rc=$?
t_eq "a tree with a long file, a long function, an include circle and wings out of order fails each check" \
	"1 4 lib/readers/a.c: 1525 lib/readers/a.c:2: f() has 121 lib/readers/b.h -> lib/readers/c.h 3" \
	"$rc $(grep -c '^not ok' "$T_TMP/bad.out") $(grep -o 'lib/readers/a.c: [0-9]*' "$T_TMP/bad.out") $(grep -o 'lib/readers/a.c:2: f() has [0-9]*' "$T_TMP/bad.out") $(grep -o 'lib/readers/b.h -> lib/readers/c.h' "$T_TMP/bad.out") $(grep -c -e 'lib/readers/d.c includes lib/tree/tree.h: the readers wing is below the tree wing' -e 'lib/source/e.c includes lib/engine/engine.h: the source and engine wings are siblings' -e 'tools/t.c includes lib/readers/b.h: tools/ uses the library through lib/ksymcheck.h only' "$T_TMP/bad.out")"

# A reader that calls into the tree wing: a call from a lower wing to a higher one.
mkdir -p "$T_TMP/obj/lib/readers" "$T_TMP/obj/lib/tree"
# (sources beside their objects: an object whose source is gone is not checked)
printf 'int ksc_x_a(void);\nint ksc_x_b(void) { return ksc_x_a(); }\n' > "$T_TMP/obj/lib/tree/x-b.c"
printf 'int ksc_x_b(void);\nint ksc_x_a(void) { return ksc_x_b(); }\n' > "$T_TMP/obj/lib/readers/x-a.c"
printf 'int ksc_x_b(void);\nint ksc_x_c(void) { return ksc_x_b(); }\n' > "$T_TMP/x-c.c"
if ${CC:-cc} -c -o "$T_TMP/obj/lib/readers/x-a.o" "$T_TMP/obj/lib/readers/x-a.c" &&
	${CC:-cc} -c -o "$T_TMP/obj/lib/tree/x-b.o" "$T_TMP/obj/lib/tree/x-b.c" &&
	${CC:-cc} -c -o "$T_TMP/obj/lib/readers/x-stale.o" "$T_TMP/x-c.c"; then
	python3 tests/structure.py --build "$T_TMP/obj" "$T_TMP/obj" > "$T_TMP/calls.out" 2>&1
	rc=$?
	t_eq "a tree file may call a reader; a reader that calls the tree fails; a stale object is not code" "1 0 1 0" \
		"$rc $(grep -c 'lib/tree/x-b.c calls' "$T_TMP/calls.out") $(grep -c 'lib/readers/x-a.c calls lib/tree/x-b.c: the readers wing is below the tree wing' "$T_TMP/calls.out") $(grep -c 'x-stale' "$T_TMP/calls.out")"
else
	t_fail "a reader that calls the tree fails the wing check" "cc failed"
fi

# Two files of the tree wing that call each other: a circle inside one wing.
mkdir -p "$T_TMP/loop/lib/tree"
printf 'int ksc_y_d(void);\nint ksc_y_c(void) { return ksc_y_d(); }\n' > "$T_TMP/loop/lib/tree/y-c.c"
printf 'int ksc_y_c(void);\nint ksc_y_e(void);\nint ksc_y_d(void) { return ksc_y_c() + ksc_y_e(); }\n' > "$T_TMP/loop/lib/tree/y-d.c"
printf 'int ksc_y_e(void) { return 0; }\n' > "$T_TMP/loop/lib/tree/y-e.c"
if ${CC:-cc} -c -o "$T_TMP/loop/lib/tree/y-c.o" "$T_TMP/loop/lib/tree/y-c.c" &&
	${CC:-cc} -c -o "$T_TMP/loop/lib/tree/y-d.o" "$T_TMP/loop/lib/tree/y-d.c" &&
	${CC:-cc} -c -o "$T_TMP/loop/lib/tree/y-e.o" "$T_TMP/loop/lib/tree/y-e.c"; then
	python3 tests/structure.py --build "$T_TMP/loop" "$T_TMP/loop" > "$T_TMP/loop.out" 2>&1
	rc=$?
	t_eq "two files of one wing that call each other fail; a call down does not" \
		"1 1 lib/tree/y-c.c <-> lib/tree/y-d.c" \
		"$rc $(grep -c '^not ok' "$T_TMP/loop.out") $(grep -o '^#   lib/tree/y-.*' "$T_TMP/loop.out" | sed 's/^#   //')"
else
	t_fail "a circle of calls inside a wing fails" "cc failed"
fi

# A report that reads a field of the kernel wing's struct kexp, one through a variable
# of the same name in a comment and a string (not code), and one that calls a function.
mkdir -p "$T_TMP/reach/lib/kernel" "$T_TMP/reach/lib/report"
printf '%s\n' 'struct kexp {' '	const char *name;' '	struct kown *owner, *prev;' '};' \
	'const char *ksc_kexp_name(const struct kexp *p);' > "$T_TMP/reach/lib/kernel/kernel.h"
printf '%s\n' '#include "kernel/kernel.h"' 'const char *r1(const struct kexp *a, int n)' '{' \
	'	return n ? a[n].name : ksc_kexp_name(a);' '}' '' 'void *r2(struct kexp *q, struct kexp *p)' '{' \
	'	/* p->name */' '	return "p->owner" ? p->prev : q;' '}' \
	'const char *r3(const struct kexp *p)' '{' '	return ksc_kexp_name(p);' '}' \
	> "$T_TMP/reach/lib/report/r.c"
python3 tests/structure.py "$T_TMP/reach" > "$T_TMP/reach.out" 2>&1
rc=$?
t_eq "a report that reads the fields of the kernel wing's struct fails, once per read" \
	"1 1 lib/report/r.c:4: a[n].name lib/report/r.c:10: p->prev" \
	"$rc $(grep -c '^not ok' "$T_TMP/reach.out") $(grep -o 'lib/report/r.c:[0-9]*: [^ ]*' "$T_TMP/reach.out" | tr '\n' ' ' | sed 's/ $//')"

# Each job outside its home: getopt_long() and stderr in a tools/ file that is not
# options.c or message.c, realloc() in a reader; the same words in a comment or a string
# do not count, nor the homes themselves. And tools/ has the stricter limits: a function
# of 101 lines, a file of 1,001.
# put FILE LINE...: a made-up source file, its folders made.
put() { mkdir -p "${1%/*}"; local f=$1; shift; printf '%s\n' "$@" > "$f"; }
put "$T_TMP/homes/tools/t.c" 'int g(int argc, char **argv)' '{' \
	'	/* getopt_long(argc, argv) and realloc(p, n) in a comment, fprintf(stderr, ...) */' \
	'	puts("getopt_long( realloc( stderr");' \
	'	while (getopt_long(argc, argv, "h", NULL, NULL) != -1)' '		fputs("x", stderr);' \
	$(seq -f 'x(%g);' 97) '}'
seq -f '/* %g */' 897 >> "$T_TMP/homes/tools/t.c"
put "$T_TMP/homes/lib/readers/r.c" 'void *r(void *p)' '{' '	return realloc(p, 8);' '}'
put "$T_TMP/homes/tools/options.c" 'int o(void)' '{' '	return getopt_long(0, 0, "", 0, 0);' '}'
put "$T_TMP/homes/tools/message.c" 'void m(void)' '{' '	fputc(0, stderr);' '}'
put "$T_TMP/homes/util/array.c" 'void *a(void *p)' '{' '	return realloc(p, 8);' '}'
python3 tests/structure.py "$T_TMP/homes" > "$T_TMP/homes.out" 2>&1
rc=$?
t_eq "getopt_long, realloc and stderr outside their homes fail, and tools/ has its own limits" \
	"1 3 3 tools/t.c: 1001 tools/t.c:1: g() has 101 lib/readers/r.c:3: realloc in r() tools/t.c:5: getopt in g() tools/t.c:6: stderr in g()" \
	"$rc $(grep -c '^not ok' "$T_TMP/homes.out") $(grep -c '^#   .* outside its home' "$T_TMP/homes.out") $(echo $(grep -o -e 'tools/t.c:[0-9]*: [a-z]* in g()' -e 'lib/readers/r.c:[0-9]*: [a-z]* in r()' -e 'tools/t.c: [0-9]*' -e 'tools/t.c:1: g() has [0-9]*' "$T_TMP/homes.out"))"

# struct ksc_module is ksc-module.c's alone (OWNED_STRUCTS): a reader of its own wing
# that reads a field fails, and so does a header that defines it again; a file that
# only passes it on to the owner's functions does not.
put "$T_TMP/own/lib/readers/ksc-module.c" 'struct ksc_module {' '	int refcount;' \
	'	const char *path;' '};' 'const char *ksc_module_get_path(const struct ksc_module *mod)' '{' \
	'	return mod->path;' '}'
put "$T_TMP/own/lib/readers/ksc-x.c" 'int x(struct ksc_module *m, const struct ksc_module *n)' '{' \
	'	/* m->path */' '	return m->refcount + !ksc_module_get_path(n);' '}'
put "$T_TMP/own/lib/readers/r.h" 'struct ksc_module {' '	int refcount;' '};'
python3 tests/structure.py "$T_TMP/own" > "$T_TMP/own.out" 2>&1
rc=$?
t_eq "a reader that reads struct ksc_module's fields, or a header that defines it, fails" \
	"1 1 lib/readers/r.h defines struct ksc_module lib/readers/ksc-x.c:4: m->refcount" \
	"$rc $(grep -c '^not ok' "$T_TMP/own.out") $(echo $(grep -o -e 'lib/readers/ksc-x.c:[0-9]*: [^ ]*' -e 'lib/readers/r.h defines struct [a-z_]*' "$T_TMP/own.out"))"

python3 tests/structure.py --build "$BUILD" . > "$T_TMP/out" 2>&1
rc=$?
cat "$T_TMP/out"
[ $rc -eq 0 ] || grep -q '^not ok' "$T_TMP/out" || t_fail "tests/structure.py ran" "exit status $rc"

# The road of -k ROOT (tests/road.py): from the CLI's open_root() the calls go down the
# wings and never up: the CLI enters the library once, at the kernel wing, and the tree
# is not on the road.
if [ "$(uname -m)" != x86_64 ] || ! command -v objdump > /dev/null; then
	t_skip "the road of -k ROOT goes down the wings" "objdump's x86-64 relocations needed"
elif [ ! -e "$BUILD/tools/util.o" ]; then
	t_skip "the road of -k ROOT goes down the wings" "no objects in $BUILD/tools"
else
	python3 tests/road.py "$BUILD" > "$T_TMP/road.out" 2>&1
	rc=$?
	t_eq "the road of -k ROOT goes down the wings, into the library at the kernel wing only" \
		"0 1 0 calls up a wing: 0" \
		"$rc $(grep -c '^  tools .* -> ' "$T_TMP/road.out") $(grep -c '^wings reached: .*tree' "$T_TMP/road.out") $(grep '^calls up a wing' "$T_TMP/road.out")"
fi
