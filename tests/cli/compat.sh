# SPDX-License-Identifier: LGPL-2.1-or-later
# ksymcheck compat: one module, several kernels. Three small kernels given by their
# Module.symvers (the one fx-user was built for, 6.1.0-57-amd64, and two later ones whose
# exports differ), fixture modules, and a Kbuild-like source folder with version
# conditionals. Whole outputs are compared with tests/expected/compat/ (t_expect; make
# regen-expected); the checks after each say what it shows.
. tests/lib.sh
X=$FIXTURES/x86_64
D=$FIXTURES/demo
sv() { printf '0x%08x\t%s\t%s\t%s\t%s\n' "$@"; }
{
	sv 0x1ea9b2c1 _printk vmlinux EXPORT_SYMBOL ""
	sv 0x037a0cba kfree vmlinux EXPORT_SYMBOL ""
	sv 0xdeb0f5d1 debugfs_create_dir vmlinux EXPORT_SYMBOL_GPL ""
	sv 0xd3ab0f00 dma_buf_get vmlinux EXPORT_SYMBOL_GPL DMA_BUF
	sv 0x6e0a7d3c module_layout vmlinux EXPORT_SYMBOL ""
} > "$T_TMP/6.1.symvers"
# 6.12: kfree gone, _printk GPL-only, debugfs_create_dir moved into DEBUGFS
{
	sv 0 _printk vmlinux EXPORT_SYMBOL_GPL ""
	sv 0 debugfs_create_dir vmlinux EXPORT_SYMBOL_GPL DEBUGFS
	sv 0 dma_buf_get vmlinux EXPORT_SYMBOL_GPL DMA_BUF
	sv 0 anon_inode_make_secure_inode vmlinux EXPORT_SYMBOL ""
	sv 0 kfree_noprof vmlinux EXPORT_SYMBOL ""
} > "$T_TMP/6.12.symvers"
# 7.2: kfree gone, _printk in PRINTK (a string in MODULE_IMPORT_NS from 6.13), debugfs
# restricted to kvm, anon_inode_make_secure_inode GPL-only
{
	sv 0 _printk vmlinux EXPORT_SYMBOL PRINTK
	sv 0 debugfs_create_dir vmlinux EXPORT_SYMBOL_GPL module:kvm
	sv 0 dma_buf_get vmlinux EXPORT_SYMBOL_GPL DMA_BUF
	sv 0 anon_inode_make_secure_inode vmlinux EXPORT_SYMBOL_GPL ""
} > "$T_TMP/7.2.symvers"
# The prop/kvm demo module (Proprietary) was built for 6.16.0.
{
	sv 0x4a0de5ec anon_inode_make_secure_inode vmlinux EXPORT_SYMBOL ""
} > "$T_TMP/6.16.symvers"
K=(-s "$T_TMP/6.1.symvers" --kver 6.1.0-57-amd64 -s "$T_TMP/6.12.symvers" --kver 6.12.0
   -s "$T_TMP/7.2.symvers" --kver 7.2.0)

# ---- without the source: every change to an import may fail the build ----
t_expect matrix 0 "$KSC" compat "${K[@]}" "$X/fx-user.ko"
t_grep "... one row per module, one column per kernel" \
	"fx_user  built-for:loads  may-fail  may-fail" "$T_TMP/out"
t_grep "... the import line in 6.12's syntax" "fix: MODULE_IMPORT_NS(DEBUGFS);" "$T_TMP/out"
t_grep "... and in 7.2's" "fix: MODULE_IMPORT_NS(\"PRINTK\");" "$T_TMP/out"
t_grep "... the export removed, with the kernel that had it" \
	"kfree: error: no longer exported (by vmlinux in 6.1.0-57-amd64) [export-removed]" "$T_TMP/out"
t_grep "... module-restricted" "debugfs_create_dir: error: restricted to the modules kvm [became-module-restricted]" "$T_TMP/out"
t_grep "... the limits said" "limits: the exports, and where both kernels' BTF is known" "$T_TMP/out"

t_expect matrix-verbose 0 "$KSC" compat -v "${K[@]}" "$X/fx-user.ko"
t_grep "... a change without effect on a GPL module, as a note" \
	"_printk: note: became GPL-only [became-gpl-only]" "$T_TMP/out"
t_grep "... the loader's own finding as built" \
	"as built: debugfs_create_dir: namespace DEBUGFS is not imported [ns-missing]" "$T_TMP/out"

# ---- with the source: what it names for each kernel's version ----
mkdir -p "$T_TMP/src/sub"
cat > "$T_TMP/src/fxuser.c" <<'C'
#include <linux/version.h>
/* debugfs_create_dir is only mentioned in this comment */
static const char *s = "kfree";
void fx_user_work(void *p)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 0, 0)
	kfree(p);
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(7, 1, 0)
	kvfree(p);
#else
	vfree(p);
#endif
}
C
cat > "$T_TMP/src/sub/fxuser.h" <<'C'
#ifdef CONFIG_FX_DEBUG
#define FX_LOG(x) _printk(x)
#endif
C
t_expect source 1 "$KSC" compat --src "$T_TMP/src" "${K[@]}" "$X/fx-user.ko"
t_grep "... a symbol named under the version the kernel takes: fails" \
	"fx_user  built-for:loads  fails   fails" "$T_TMP/out"
t_grep "... on 6.12 kfree is named (the #if branch 6.12 takes)" \
	"kfree: error: no longer exported (by vmlinux in 6.1.0-57-amd64) [export-removed] (named in the source)" \
	"$T_TMP/out"
t_grep "... a name in a #define under an unknown #ifdef counts" \
	"_printk: error: moved into namespace PRINTK [namespace-moved] (named in the source)" "$T_TMP/out"

t_expect source-json 1 "$KSC" compat --json --src "$T_TMP/src" "${K[@]}" "$X/fx-user.ko"
t_eq "... named in the source, per kernel: kfree on 6.12 only; comments and strings do not count" \
	"6.12.0 kfree True | 7.2.0 kfree False | 6.12.0 debugfs_create_dir False" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = {(x["release"], f["symbol"]): f for x in d["modules"][0]["cells"] for f in x["findings"]}
print(" | ".join("%s %s %s" % (r, s, c[(r, s)]["named_in_source"]) for r, s in
      (("6.12.0", "kfree"), ("7.2.0", "kfree"), ("6.12.0", "debugfs_create_dir"))))' "$T_TMP/out")"
t_eq "... both kernels' facts of a finding" \
	"6.1.0-57-amd64 True  -> 7.2.0 True module:kvm" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["modules"][0]["cells"][2]["findings"] if f["symbol"] == "debugfs_create_dir"][0]
print(f["from"]["release"], f["from"]["gpl_only"], f["from"]["namespace"], "->",
      f["to"]["release"], f["to"]["gpl_only"], f["to"]["namespace"])' "$T_TMP/out")"

# Only the old branch names kfree: 7.2 cannot fail on it.
sed -i 's/debugfs_create_dir is only/nothing is/' "$T_TMP/src/fxuser.c"
t_run "a source that names nothing changed for 7.2 but kfree in an old branch" 1 \
	"$KSC" compat --src "$T_TMP/src/fxuser.c" "${K[@]}" "$X/fx-user.ko"
t_grep "... 7.2: may-fail (debugfs_create_dir is not named)" \
	"fx_user  built-for:loads  fails   may-fail" "$T_TMP/out"

# kfree only under an #ifdef (a configure-style check decides): may fail, not fails;
# a header's include guard is no such condition.
mkdir -p "$T_TMP/ifsrc"
printf '#ifdef FX_HAVE_KFREE\nvoid f(void *p) { kfree(p); }\n#endif\n' > "$T_TMP/ifsrc/a.c"
t_run "a removed export named only under an #ifdef" 0 "$KSC" compat --src "$T_TMP/ifsrc" "${K[@]}" "$X/fx-user.ko"
t_grep "... may fail: the configuration decides" \
	"kfree: warning: no longer exported (by vmlinux in 6.1.0-57-amd64); the source names it only under conditions not evaluated here (#ifdef): the configuration decides [export-removed] (named in the source)" \
	"$T_TMP/out"
printf '#ifndef FX_B_H\n#define FX_B_H\nstatic inline void g(void *p) { kfree(p); }\n#endif\n' > "$T_TMP/ifsrc/b.h"
t_run "... and in a header, inside its include guard" 1 "$KSC" compat --src "$T_TMP/ifsrc" "${K[@]}" "$X/fx-user.ko"
t_grep "... an include guard is no condition: the build fails" \
	"kfree: error: no longer exported (by vmlinux in 6.1.0-57-amd64) [export-removed] (named in the source)" "$T_TMP/out"

# ---- types: two kernels' BTF (clang writes .BTF for the bpf target) ----
if clang --target=bpf -g -c -x c /dev/null -o "$T_TMP/probe.o" 2> /dev/null; then
	cat > "$T_TMP/old.c" <<'C'
struct fx_state { int a; long buf[4]; void (*notify)(unsigned long err, void *ctx); };
typedef unsigned int fx_u32;
int debugfs_create_dir(const char *name, struct fx_state *s, fx_u32 flags) { return s->a; }
int dma_buf_get(int fd) { return fd; }
int _printk(const unsigned char *fmt) { return *fmt; }
void kfree(const void *p) { }
C
	cat > "$T_TMP/new.c" <<'C'
int _printk(const void *fmt) { return fmt != 0; }
struct fx_state { int a; void (*notify)(unsigned long err, void *ctx, _Bool more); };
typedef unsigned int fx_flags_t;
int debugfs_create_dir(const char *name, struct fx_state *s, fx_flags_t flags, int mode) { return s->a; }
typedef int fx_fd_t;
int dma_buf_get(fx_fd_t fd) { return fd; }
void kfree_noprof(const void *p) { }
C
	clang --target=bpf -g -O2 -c "$T_TMP/old.c" -o "$T_TMP/old.btf"
	clang --target=bpf -g -O2 -c "$T_TMP/new.c" -o "$T_TMP/new.btf"
	B=(-s "$T_TMP/6.1.symvers" --kver 6.1.0-57-amd64 --btf "$T_TMP/old.btf"
	   -s "$T_TMP/6.12.symvers" --kver 6.12.0 --btf "$T_TMP/new.btf")
	t_expect btf 0 "$KSC" compat -v "${B[@]}" "$X/fx-user.ko"
	cp "$T_TMP/out" "$T_TMP/btf.first"
	t_run "the same again: the types from the cache" 0 "$KSC" compat -v "${B[@]}" "$X/fx-user.ko"
	t_diff "... the same output" "$T_TMP/btf.first" "$T_TMP/out"
	t_eq "... kept in \$XDG_CACHE_HOME/ksymcheck/compat" "yes" \
		"$(ls "$XDG_CACHE_HOME"/ksymcheck/compat/*.memo > /dev/null 2>&1 && echo yes)"
	t_run "--no-cache" 0 "$KSC" compat -v --no-cache "${B[@]}" "$X/fx-user.ko"
	t_diff "... the same output" "$T_TMP/btf.first" "$T_TMP/out"
	for f in "$XDG_CACHE_HOME"/ksymcheck/compat/*.memo; do printf 'ksc-compat-memo 1\nT\tbroken' > "$f"; done
	t_run "a cache cut short" 0 "$KSC" compat -v "${B[@]}" "$X/fx-user.ko"
	t_diff "... is read anew: the same output" "$T_TMP/btf.first" "$T_TMP/out"
	cp "$T_TMP/btf.first" "$T_TMP/out"
	t_grep "... a removed export's likely successor: a name alike, the same prototype" \
		"    hint: maybe kfree_noprof (a name alike, the same prototype)" "$T_TMP/out"
	t_grep "... the prototype, both sides as C" \
		"    now: int debugfs_create_dir(const char *name, struct fx_state *s, fx_flags_t flags, int mode)" "$T_TMP/out"
	t_grep "... a struct it takes lost a member and a callback changed: a note" \
		"debugfs_create_dir: note: struct fx_state (through debugfs_create_dir): members buf removed, notify changed [struct-changed]" "$T_TMP/out"
	if grep -q "dma_buf_get.*type-changed" "$T_TMP/out"; then
		t_fail "... a new typedef of the same type is no change"
	else
		t_ok "... a new typedef of the same type is no change"
	fi
	if grep -q "_printk.*type-changed" "$T_TMP/out"; then
		t_fail "... a parameter that became a void pointer is no change"
	else
		t_ok "... a parameter that became a void pointer is no change"
	fi
	printf 'int fx(struct fx_state *s) { return s->buf[0] + debugfs_create_dir("x", s, 0); }\n' \
		> "$T_TMP/src/fxuser.c"
	t_expect btf-source 1 "$KSC" compat --src "$T_TMP/src" "${B[@]}" "$X/fx-user.ko"
	t_grep "... named in the source: the prototype fails the build" \
		"debugfs_create_dir: error: prototype changed [type-changed] (named in the source)" "$T_TMP/out"
	t_grep "... a member it reaches through a variable of that struct is gone: an error" \
		"debugfs_create_dir: error: struct fx_state (through debugfs_create_dir): members buf removed, notify changed, reached in the source [struct-changed] (named in the source)" \
		"$T_TMP/out"
	# The source as a maintainer adapts it: the call under #ifdef inside its arguments,
	# dma_buf_get only as a value, the struct's member not reached.
	cat > "$T_TMP/src/fxuser.c" <<'C'
#include <linux/version.h>
static int (*get)(int) = dma_buf_get;
int fx(struct fx_state *s, struct other *o)
{
	return o->buf[0] + debugfs_create_dir("x", s,
#ifdef FX_HAVE_MODE
		0, 0
#else
		0
#endif
		);
}
C
	t_expect btf-adapted 1 "$KSC" compat -v --src "$T_TMP/src" "${B[@]}" "$X/fx-user.ko"
	t_grep "... a call with a conditional in its arguments: may fail" \
		"debugfs_create_dir: warning: prototype changed; the source names it under conditions not evaluated here (#ifdef): it may adapt to it [type-changed] (named in the source)" \
		"$T_TMP/out"
	t_grep "... a member of another struct of the same name is not reached" \
		"debugfs_create_dir: note: struct fx_state (through debugfs_create_dir): members buf removed, notify changed [struct-changed]" \
		"$T_TMP/out"
	# Version conditionals joined with && and ||, the call differing by version
	cat > "$T_TMP/src/fxuser.c" <<'C'
#include <linux/version.h>
int fx(struct fx_state *s)
{
#if (LINUX_VERSION_CODE >= KERNEL_VERSION(6,8,2)) || \
	((LINUX_VERSION_CODE >= KERNEL_VERSION(6,1,83)) && (LINUX_VERSION_CODE < KERNEL_VERSION(6,2,0)))
	return debugfs_create_dir("x", s, 0, 0);
#else
	return debugfs_create_dir("x", s, 0);
#endif
}
C
	t_expect btf-versions 1 "$KSC" compat -v --src "$T_TMP/src" "${B[@]}" "$X/fx-user.ko"
	t_grep "... another call for the new version (|| and && evaluated): adapted, a note" \
		"debugfs_create_dir: note: prototype changed; the source names it in other places for this kernel (version conditionals): adapted to it, as far as seen [type-changed] (named in the source)" \
		"$T_TMP/out"
	sed -i 's/KERNEL_VERSION(6,8,2)/KERNEL_VERSION(7,8,2)/' "$T_TMP/src/fxuser.c"
	t_run "the same source whose new branch is for a later kernel" 1 \
		"$KSC" compat --src "$T_TMP/src" "${B[@]}" "$X/fx-user.ko"
	t_grep "... the old call on both kernels: the build fails" \
		"debugfs_create_dir: error: prototype changed [type-changed] (named in the source)" "$T_TMP/out"
	t_expect btf-unreadable 4 "$KSC" compat -s "$T_TMP/6.1.symvers" --kver 6.1.0-57-amd64 \
		--btf "$T_TMP/old.c" -s "$T_TMP/6.12.symvers" --kver 6.12.0 --btf "$T_TMP/new.btf" \
		"$X/fx-user.ko"
	t_grep "... said, and the types are not compared" "types: BTF for 6.12.0; none for 6.1.0-57-amd64 (--btf FILE)" "$T_TMP/out"
else
	t_skip "BTF" "clang cannot build for the bpf target"
fi

# ---- the target's headers: a removed export they define is a note ----
mkdir -p "$T_TMP/hdr/include/linux" "$T_TMP/hdr/include/uapi/linux" "$T_TMP/hdr/arch/x86/include/asm"
cat > "$T_TMP/hdr/include/linux/slab.h" <<'C'
#define kfree(p) kfree_noprof(p)
C
cat > "$T_TMP/hdr/include/uapi/linux/debugfs.h" <<'C'
#define debugfs_create_dir(n) 0
C
cat > "$T_TMP/hdr/arch/x86/include/asm/printk.h" <<'C'
static __always_inline __attribute__((unused)) int
_printk(const char *fmt, ...) { return 0; }
C
t_expect headers 0 "$KSC" compat -v -s "$T_TMP/6.1.symvers" --kver 6.1.0-57-amd64 \
	-s "$T_TMP/6.12.symvers" --kver 6.12.0 --headers "$T_TMP/hdr" "$X/fx-user.ko"
t_grep "... a macro of that name: a note, not a failure" \
	"kfree: note: no longer exported, but the headers define it" "$T_TMP/out"
t_grep "... the headers read" "headers read: 6.12.0 (2 files)" "$T_TMP/out"
cp "$T_TMP/out" "$T_TMP/headers.first"
t_run "the headers' scan again, from the cache" 0 "$KSC" compat -v -s "$T_TMP/6.1.symvers" \
	--kver 6.1.0-57-amd64 -s "$T_TMP/6.12.symvers" --kver 6.12.0 --headers "$T_TMP/hdr" "$X/fx-user.ko"
t_diff "... the same output" "$T_TMP/headers.first" "$T_TMP/out"
echo '#define kfree_sensitive(p) kfree(p)' > "$T_TMP/hdr/include/linux/slab2.h"
t_run "a header folder changed: scanned anew" 0 "$KSC" compat -v -s "$T_TMP/6.1.symvers" \
	--kver 6.1.0-57-amd64 -s "$T_TMP/6.12.symvers" --kver 6.12.0 --headers "$T_TMP/hdr" "$X/fx-user.ko"
t_grep "... three files read" "headers read: 6.12.0 (3 files)" "$T_TMP/out"
rm "$T_TMP/hdr/include/linux/slab2.h"
# A header edited in place: the same inode, its folder's times unchanged (no file added,
# removed or renamed), yet what it defines is gone.
t_run "the headers again, cached" 0 "$KSC" compat -v -s "$T_TMP/6.1.symvers" \
	--kver 6.1.0-57-amd64 -s "$T_TMP/6.12.symvers" --kver 6.12.0 --headers "$T_TMP/hdr" "$X/fx-user.ko"
before=$(stat -c '%i' "$T_TMP/hdr/include/linux/slab.h")/$(stat -c '%y' "$T_TMP/hdr/include/linux")
printf '/* kfree: a function again */\n' > "$T_TMP/hdr/include/linux/slab.h"
after=$(stat -c '%i' "$T_TMP/hdr/include/linux/slab.h")/$(stat -c '%y' "$T_TMP/hdr/include/linux")
t_eq "... edited in place (inode and folder time kept)" "$before" "$after"
t_run "a header edited in place: scanned anew" 0 "$KSC" compat -v -s "$T_TMP/6.1.symvers" \
	--kver 6.1.0-57-amd64 -s "$T_TMP/6.12.symvers" --kver 6.12.0 --headers "$T_TMP/hdr" "$X/fx-user.ko"
t_grep "... its macro gone: an error again" \
	"kfree: error: no longer exported (by vmlinux in 6.1.0-57-amd64) [export-removed]" "$T_TMP/out"

# ---- a proprietary module: became GPL-only is an error ----
t_expect proprietary 0 "$KSC" compat -s "$T_TMP/6.16.symvers" --kver 6.16.0 \
	-s "$T_TMP/7.2.symvers" --kver 7.2.0 "$D/prop/kvm.ko"
t_grep "... became GPL-only for a Proprietary module" \
	"anon_inode_make_secure_inode: error: became GPL-only [became-gpl-only]" "$T_TMP/out"

# ---- the kernel it was built for not given: the targets' facts only ----
t_expect no-base 0 "$KSC" compat -s "$T_TMP/6.12.symvers" --kver 6.12.0 "$X/fx-user.ko" \
	"$X/fx-kvm-amd.ko"
t_grep "... said" "fx_user: the kernel it was built for (6.1.0-57-amd64 SMP preempt mod_unload modversions ) is not among those given" "$T_TMP/out"

# ---- a kernel root (the sample kernel) next to a Module.symvers ----
scripts/mk-sample-kernel.sh "$FIXTURES" "$T_TMP/root" > /dev/null 2>&1
t_expect root 0 "$KSC" compat -k "$T_TMP/root" -s "$T_TMP/7.2.symvers" --kver 7.2.0 \
	"$D/oot/fxdma.ko" "$D/extra/fx-grabber.ko"
t_grep "... the root's release is a column" "6.16.0-demo" "$T_TMP/out"

# ---- in-tree evidence: what the kernel's own modules took up instead ----
# Three roots, each with a Module.symvers and in-tree modules (fx-user's copies, an
# import renamed): in 6.1 fxa and fxb import kfree as fx-user does, fxc..fxf kfrex. In
# 6.12 fxa and fxb import vfree instead: one name stands out, though fxc, a bystander,
# took it up too (a share of the others weighs it down). In 7.2 fxa imports vfree, fxb
# kfrei: two candidates, weak evidence, said so.
mkroot() { # ROOT REL SYMVERS
	mkdir -p "$1/lib/modules/$2/kernel/fx" "$1/lib/modules/$2/build"
	cp "$3" "$1/lib/modules/$2/build/Module.symvers"
}
sv 0 vfree vmlinux EXPORT_SYMBOL "" >> "$T_TMP/6.12.symvers"
{
	cat "$T_TMP/7.2.symvers"
	sv 0 vfree vmlinux EXPORT_SYMBOL ""
	sv 0 kfrei vmlinux EXPORT_SYMBOL ""
} > "$T_TMP/7.2v.symvers"
mkroot "$T_TMP/r61" 6.1.0-57-amd64 "$T_TMP/6.1.symvers"
mkroot "$T_TMP/r612" 6.12.0 "$T_TMP/6.12.symvers"
mkroot "$T_TMP/r72" 7.2.0 "$T_TMP/7.2v.symvers"
for to in vfree kfrei kfrex; do
	python3 tests/helpers/kpatch.py "$X/fx-user.ko" "$T_TMP/$to.ko" "strtab|kfree|$to"
done
M=lib/modules
for m in fxa fxb; do cp "$X/fx-user.ko" "$T_TMP/r61/$M/6.1.0-57-amd64/kernel/fx/$m.ko"; done
for m in fxc fxd fxe fxf; do cp "$T_TMP/kfrex.ko" "$T_TMP/r61/$M/6.1.0-57-amd64/kernel/fx/$m.ko"; done
for m in fxa fxb fxc; do cp "$T_TMP/vfree.ko" "$T_TMP/r612/$M/6.12.0/kernel/fx/$m.ko"; done
for m in fxa fxc; do cp "$T_TMP/vfree.ko" "$T_TMP/r72/$M/7.2.0/kernel/fx/$m.ko"; done
cp "$T_TMP/kfrei.ko" "$T_TMP/r72/$M/7.2.0/kernel/fx/fxb.ko"
for m in fxd fxe fxf; do
	cp "$T_TMP/kfrex.ko" "$T_TMP/r612/$M/6.12.0/kernel/fx/$m.ko"
	cp "$T_TMP/kfrex.ko" "$T_TMP/r72/$M/7.2.0/kernel/fx/$m.ko"
done
R=(-k "$T_TMP/r61" --kver 6.1.0-57-amd64 -k "$T_TMP/r612" --kver 6.12.0 -k "$T_TMP/r72" --kver 7.2.0)
t_expect intree 0 "$KSC" compat "${R[@]}" "$X/fx-user.ko"
t_grep "... one name stands out" \
	"in-tree: vfree: imported in 6.12.0 by 2 of the 2 in-tree modules that imported kfree in 6.1.0-57-amd64 (fxa, fxb)" "$T_TMP/out"
t_grep "... two candidates: weak evidence, said so" \
	"in-tree: weak evidence, 2 candidates imported in 7.2.0 by the 2 in-tree modules that imported kfree in 6.1.0-57-amd64 (fxa, fxb): kfrei (1), vfree (1)" "$T_TMP/out"
t_expect intree-json 0 "$KSC" compat --json "${R[@]}" "$X/fx-user.ko"
cp "$T_TMP/out" "$T_TMP/intree.json"
t_run "the in-tree evidence again, from the cache" 0 "$KSC" compat --json "${R[@]}" "$X/fx-user.ko"
t_diff "... the same JSON" "$T_TMP/intree.json" "$T_TMP/out"
t_run "... and read anew" 0 "$KSC" compat --json --no-cache "${R[@]}" "$X/fx-user.ko"
t_diff "... the same JSON" "$T_TMP/intree.json" "$T_TMP/out"

# Untrusted names in the evidence: a module file named with markup and a terminal escape.
cp -r "$T_TMP/r61" "$T_TMP/r61e" && cp -r "$T_TMP/r612" "$T_TMP/r612e"
mv "$T_TMP/r61e/$M/6.1.0-57-amd64/kernel/fx/fxa.ko" "$T_TMP/r61e/$M/6.1.0-57-amd64/kernel/fx/<b>"$'\e'"[31m.ko"
mv "$T_TMP/r612e/$M/6.12.0/kernel/fx/fxa.ko" "$T_TMP/r612e/$M/6.12.0/kernel/fx/<b>"$'\e'"[31m.ko"
RE=(-k "$T_TMP/r61e" --kver 6.1.0-57-amd64 -k "$T_TMP/r612e" --kver 6.12.0)
t_run "a module name with markup and an escape" 0 "$KSC" compat --html "$T_TMP/intree.html" \
	"${RE[@]}" "$X/fx-user.ko"
t_grep "... escaped in the text" "modules that imported kfree in 6.1.0-57-amd64 (<b>\\x1b[31m, fxb)" "$T_TMP/out"
if grep -q $'\e' "$T_TMP/out" || grep -qF '<b>' "$T_TMP/intree.html"; then
	t_fail "... no raw escape in the text, no markup in the page"
else
	t_ok "... no raw escape in the text, no markup in the page"
fi
"$KSC" compat --json "${RE[@]}" "$X/fx-user.ko" > "$T_TMP/intree-e.json"
t_eq "... the JSON holds the name as it is" "ok" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
h = [f["intree"] for m in d["modules"] for c in m["cells"] for f in c["findings"] if f["intree"]]
print("ok" if len(h) == 1 and "(<b>\x1b[31m, fxb)" in h[0] else h)' "$T_TMP/intree-e.json")"

# ---- SARIF and HTML ----
t_expect sarif 1 "$KSC" compat --format sarif --src "$T_TMP/src/fxuser.c" "${K[@]}" "$X/fx-user.ko"
cp "$T_TMP/out" "$T_TMP/compat.sarif"
"$KSC" compat --json --src "$T_TMP/src/fxuser.c" "${K[@]}" "$X/fx-user.ko" > "$T_TMP/compat.json"
t_eq "... one result per finding --json has (notes aside), with its kernel and build" "ok" "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"]
d = json.load(open(sys.argv[2]))
want = [(f["symbol"], f["code"], f["verdict"], c["release"], c["build"]) for m in d["modules"]
        for c in m["cells"] for f in c["findings"] if f["verdict"] != "note"]
got = [(x["locations"][0]["logicalLocations"][1]["name"], x["ruleId"], x["level"],
        x["properties"]["release"], x["properties"]["build"]) for x in r]
print("ok" if want == got and want else "%s != %s" % (got, want))' "$T_TMP/compat.sarif" "$T_TMP/compat.json")"
if python3 -c 'import jsonschema' 2> /dev/null && SCHEMA=$(scripts/sarif-schema.sh --check 2> /dev/null); then
	if python3 -c 'import json, sys, jsonschema
s, d = (json.load(open(p)) for p in sys.argv[1:3])
jsonschema.validators.validator_for(s)(s).validate(d)' "$SCHEMA" "$T_TMP/out" 2> "$T_TMP/v.err"; then
		t_ok "... valid SARIF 2.1.0 (the published schema)"
	else
		t_fail "... valid SARIF 2.1.0 (the published schema)" "$(tail -c 600 "$T_TMP/v.err")"
	fi
else
	t_skip "... valid SARIF 2.1.0 (the published schema)" "no python3-jsonschema or no cached schema (scripts/sarif-schema.sh)"
fi
# A module whose path holds HTML: the page embeds it escaped, the document intact.
cp "$X/fx-user.ko" "$T_TMP/a<!--<script>.ko"
t_run "--html FILE next to the text" 0 "$KSC" compat --html "$T_TMP/compat.html" "${K[@]}" \
	"$T_TMP/a<!--<script>.ko"
t_grep "... the page is compat's" 'data-kind="compat"' "$T_TMP/compat.html"
if grep -qF '<!--<script>' "$T_TMP/compat.html"; then
	t_fail "... the path's markup is escaped" "the page holds <!--<script> as it is"
else
	t_ok "... the path's markup is escaped"
fi
t_eq "... the embedded document is compat's JSON" "compat 1 3" "$(python3 -c '
import json, re, sys
t = open(sys.argv[1]).read()
d = json.loads(re.search(r"<script type=\"application/json\" id=\"ksc-data\">(.*?)</script>", t, re.S).group(1))
print(d["command"], len(d["modules"]), len(d["kernels"]))' "$T_TMP/compat.html")"
t_expect html-unwritable 4 "$KSC" compat --html "$T_TMP/nodir/x.html" "${K[@]}" "$X/fx-user.ko"

# ---- usage and bad input ----
t_expect no-kernel 2 "$KSC" compat "$X/fx-user.ko"
t_expect kver-first 2 "$KSC" compat --kver 7.2 -s "$T_TMP/7.2.symvers" "$X/fx-user.ko"
cp "$T_TMP/7.2.symvers" "$T_TMP/symvers"
t_expect no-release 2 "$KSC" compat -s "$T_TMP/symvers" "$X/fx-user.ko"
t_expect no-module 2 "$KSC" compat "${K[@]}"
t_expect unreadable-module 4 "$KSC" compat "${K[@]}" "$T_TMP/missing.ko" "$X/fx-user.ko"
t_expect unreadable-kernel 4 "$KSC" compat -s "$T_TMP/missing.symvers" --kver 7.2 "$X/fx-user.ko"
t_expect missing-src 4 "$KSC" compat --src "$T_TMP/nosrc" "${K[@]}" "$X/fx-user.ko"
t_run "--help" 0 "$KSC" compat --help
t_grep "... says what is not seen" "Not seen (a compiler would): macros and inline functions" "$T_TMP/out"
