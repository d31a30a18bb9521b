# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile module trees for `tree -b ROOT`, depmod's files and `audit` (issue 23):
#  - depmod.d kernel-version patterns that glibc's regcomp() compiles in gigabytes (one
#    line "((a{1,255}){1,255}){1,255}" took 4 GB): refused past 4,096 copies or 32 nested
#    groups with a warning, a plain pattern still matched;
#  - symbolic links in ROOT: a link to / (before: the host's / walked, host paths in
#    modules.dep) is ROOT itself, a loop; an absolute link to a folder of ROOT is followed
#    inside ROOT; a link into /proc is not followed;
#  - .modinfo aliases that forge a modules.alias line (a blank, empty, a leading '#'),
#    which depmod writes as they are: left out and reported;
#  - two modules importing from each other and one needing them: refused by tree, check
#    -k and audit alike (before: all "would load");
#  - every module's verdict the same in tree, check -k and audit, over the sample tree
#    and the trees above.
. tests/lib.sh
. tests/hostile/lib.sh

CLANG=${CLANG:-clang}
# capped at 1 GB: what the old code took (4 GB) is not taken again here (not under ASan,
# whose shadow memory needs more address space than that)
CAP=(bash -c 'ulimit -v 1000000; exec "$@"' cap)
grep -qa __asan_init "$KSC" && CAP=()

# ---- depmod.d patterns ---------------------------------------------------------------
re=$T_TMP/re
h_tree "$re"
m=$re/lib/modules/$H_REL
mkdir -p "$re/etc/depmod.d" "$m/extra"
cp "$H_DEMO/intree/kvm.ko" "$m/extra/kvm.ko"
deep=$(printf '(%.0s' $(seq 40))a$(printf ')%.0s' $(seq 40))
printf '%s\n' 'override kvm ((a{1,255}){1,255}){1,255} extra' "override kvm $deep extra" \
	'override kvm ^6\.16\.0-d[a-z]+$ extra' > "$re/etc/depmod.d/x.conf"
mkdir "$T_TMP/re-out"
h_case "tree: depmod.d patterns too costly to compile" 0 \
	"warning: $re/etc/depmod.d/x.conf:1: kernel version pattern '((a{1,255}){1,255}){1,255}' compiles to more than 4096 instructions: line ignored
warning: $re/etc/depmod.d/x.conf:2: kernel version pattern '$deep' nests more than 32 groups: line ignored" \
	"${CAP[@]}" "$KSC" tree -b "$re" "$H_REL" --no-index --no-check --write-depmod "$T_TMP/re-out"
t_eq "tree: ... a plain pattern still matches" "extra/kvm.ko: kernel/virt/kvm/fx-modns.ko" \
	"$(grep '^extra' "$T_TMP/re-out/modules.dep" 2> /dev/null)"

# ---- symbolic links ------------------------------------------------------------------
ln1=$T_TMP/ln1
h_tree "$ln1"
m=$ln1/lib/modules/$H_REL
ln -s / "$m/kernel/host"
mkdir "$T_TMP/ln1-out"
h_case "tree: a link to / is ROOT, not the host's /" 4 \
	"$m/kernel/host/lib/modules/$H_REL: symbolic link loop" \
	"$KSC" tree -b "$ln1" "$H_REL" --no-index --no-check -q --write-depmod "$T_TMP/ln1-out"
t_eq "tree: ... modules.dep holds the tree's modules only" "kernel/kvm-amd.ko: kernel/virt/kvm/fx-modns.ko
kernel/kvm.ko: kernel/virt/kvm/fx-modns.ko
kernel/virt/kvm/fx-modns.ko:" "$(LC_ALL=C sort "$T_TMP/ln1-out/modules.dep" 2> /dev/null)"

ln2=$T_TMP/ln2
h_tree "$ln2"
m=$ln2/lib/modules/$H_REL
mkdir -p "$ln2/opt/weak"
cp "$H_DEMO/intree/kvm.ko" "$ln2/opt/weak/weak.ko"
ln -s /opt/weak "$m/kernel/weak"
ln -s /proc/self/fd "$m/kernel/fd"
mkdir "$T_TMP/ln2-out"
h_case "tree: an absolute link followed inside ROOT, /proc not" 4 \
	"$m/kernel/fd: dangling symbolic link" \
	"$KSC" tree -b "$ln2" "$H_REL" --no-index --no-check -q --write-depmod "$T_TMP/ln2-out"
t_eq "tree: ... the module below the link is in modules.dep" \
	"kernel/weak/weak.ko: kernel/virt/kvm/fx-modns.ko" \
	"$(grep '^kernel/weak' "$T_TMP/ln2-out/modules.dep" 2> /dev/null)"
# check -k walks the module folder by the same rules (the module set's search, before:
# the host's / and /proc walked through kernel/host, /opt/weak read from the host).
h_case "check -k: a link to / is ROOT, not the host's /" 4 \
	"$ln1/lib/modules/$H_REL/kernel/host/lib/modules/$H_REL: symbolic link loop" \
	env KSYMCHECK_NO_INDEX=1 KSYMCHECK_NO_DEPMOD=1 \
	"$KSC" check -q -k "$ln1" --kver "$H_REL" "$H_DEMO/intree/kvm-amd.ko"
h_case "check -k: an absolute link followed inside ROOT, /proc not" 4 \
	"$m/kernel/fd: dangling symbolic link" \
	env KSYMCHECK_NO_INDEX=1 KSYMCHECK_NO_DEPMOD=1 \
	"$KSC" check -q -k "$ln2" --kver "$H_REL" "$H_DEMO/intree/kvm-amd.ko"

# ---- aliases that forge a modules.alias line -----------------------------------------
al=$T_TMP/al
h_tree "$al"
m=$al/lib/modules/$H_REL/kernel
# kvm.ko's description becomes an alias with a blank, its srcversion an empty alias, and
# kvm-amd.ko's description an alias starting with '#' (NUL-padded to keep every offset).
perl -0777 -pe 'sub pad { my ($o, $n) = @_; $n . "\0" x (length($o) - length($n)) }
	s/(description=Kernel-based Virtual Machine \(demo\))/pad($1, "alias=pci:v* evil")/e;
	s/(srcversion=0A1B2C3D4E5F60718293A4B)/pad($1, "alias=")/e' \
	"$H_DEMO/intree/kvm.ko" > "$m/kvm.ko"
perl -0777 -pe 'sub pad { my ($o, $n) = @_; $n . "\0" x (length($o) - length($n)) }
	s/(description=KVM for AMD \(demo\))/pad($1, "alias=#x")/e' \
	"$H_DEMO/intree/kvm-amd.ko" > "$m/kvm-amd.ko"
mkdir "$T_TMP/al-out"
h_case "tree: aliases with a blank, empty or '#' left out of modules.alias" 4 \
	"$m/kvm-amd.ko: alias \"#x\": a leading '#': left out of modules.alias
$m/kvm.ko: alias \"pci:v* evil\": a space: left out of modules.alias
$m/kvm.ko: alias \"\": empty: left out of modules.alias" \
	"$KSC" tree -b "$al" "$H_REL" --no-index --no-check -q --write-depmod "$T_TMP/al-out"
t_eq "tree: ... modules.alias holds no forged line" \
	"# Aliases extracted from modules themselves." "$(cat "$T_TMP/al-out/modules.alias")"

# ---- dependency cycles ---------------------------------------------------------------
# cya and cyb import each other's function, cyc imports cya's.
cy=$T_TMP/cy
h_tree "$cy"
m=$cy/lib/modules/$H_REL/kernel
mkdir -p "$m/cy"
for x in a:b b:a c:a; do
	t_cy_module "$m/cy/cy${x%%:*}.ko" "${x%%:*}" "cy${x#*:}_fn"
done
cyc="cya -> cyb -> cya"
want="kernel/cy/cya.ko: cyb_fn: loader: refused: from cyb, which modprobe cannot load: dependency cycle $cyc [dep-cycle]
kernel/cy/cyb.ko: cya_fn: loader: refused: from cya, which modprobe cannot load: dependency cycle $cyc [dep-cycle]
kernel/cy/cyc.ko: cya_fn: loader: refused: from cya, which modprobe cannot load: dependency cycle $cyc [dep-cycle]"
h_case "tree: a dependency cycle" 1 "" "$KSC" tree -b "$cy" "$H_REL" --no-index -q
t_eq "tree: ... its two modules and the one needing them refused" "$want" \
	"$(grep dep-cycle "$T_TMP/out" | LC_ALL=C sort)"
h_case "check -k: a dependency cycle" 1 "" "$KSC" check -k "$cy" --kver "$H_REL" -q \
	"$m/cy/cya.ko" "$m/cy/cyb.ko" "$m/cy/cyc.ko"
t_eq "check -k: ... the same three refused" "$(sed 's/^[^:]*:/X:/' <<< "$want" | LC_ALL=C sort)" \
	"$(grep dep-cycle "$T_TMP/out" | sed 's/^cy.:/X:/' | LC_ALL=C sort)"
h_case "audit: a dependency cycle" 1 "" "$KSC" audit -b "$cy" "$H_REL"
t_eq "audit: ... the same three listed" "cya: error: in or behind the dependency cycle $cyc: modprobe cannot load it [dep-cycle]
cyb: error: in or behind the dependency cycle $cyc: modprobe cannot load it [dep-cycle]
cyc: error: in or behind the dependency cycle $cyc: modprobe cannot load it [dep-cycle]" \
	"$(grep dep-cycle "$T_TMP/out" | LC_ALL=C sort)"

# With the index: the cycle made, then broken, by cyb alone; cya's and cyc's verdicts
# follow though their files did not change.
idx=$T_TMP/cy.idx
cp "$m/cy/cyb.ko" "$T_TMP/cyb-cycle.ko"
t_cy_module "$T_TMP/cyb0.ko" b _printk
verdicts() {
	cp "$1" "$m/cy/cyb.ko"
	"$KSC" tree -b "$cy" "$H_REL" --index "$idx" 2> /dev/null |
		sed -n 's/^.*loader: \([0-9]* would load, [0-9]* refused\);.*/\1/p'
}
got="$(verdicts "$T_TMP/cyb0.ko") | $(verdicts "$T_TMP/cyb-cycle.ko")"
got+=" | $(verdicts "$T_TMP/cyb0.ko")"
t_eq "tree --index: verdicts follow a cycle made and broken by one module" \
	"6 would load, 0 refused | 3 would load, 3 refused | 6 would load, 0 refused" "$got"
cp "$T_TMP/cyb-cycle.ko" "$m/cy/cyb.ko"

# ---- one verdict per module in tree, check -k and audit -------------------------------
# Every module of the tree (its files, and EXTRA) by file name: tree --json's loader and modpost
# results and findings (a module it does not list loads and passes with none), check -k
# --json's for the module checked alone (one boot per module, as tree judges each), and
# audit --json's dep-cycle modules, which must be the ones refused for a cycle. EXTRA: a
# module below a link, by a path the machine can open.
same_verdicts() {
	local root=$1 name=$2 n=$3 extra=${4:-} md=$1/lib/modules/$H_REL
	"$KSC" tree -b "$root" "$H_REL" --no-index --json > "$T_TMP/tree.json" 2> /dev/null
	"$KSC" audit -b "$root" "$H_REL" --json > "$T_TMP/audit.json" 2> /dev/null
	: > "$T_TMP/check.jsonl"
	for p in $(find "$md" -name '*.ko' -printf '%P\n') $extra; do
		"$KSC" check -k "$root" --kver "$H_REL" --json "$md/$p" >> "$T_TMP/check.jsonl" \
			2> /dev/null
		echo >> "$T_TMP/check.jsonl"
	done
	python3 - "$T_TMP/tree.json" "$T_TMP/check.jsonl" "$T_TMP/audit.json" > "$T_TMP/cmp" <<'EOF'
import json, sys
def key(m):
    return (m["loader"]["result"], m["loader"]["errno"], m["modpost"]["result"],
            sorted((f["view"], f["code"], f["symbol"] or "") for f in m["findings"]))
name = lambda m: m["path"].rsplit("/", 1)[1]
tree = {name(m): key(m) for m in json.load(open(sys.argv[1]))["modules"]}
check = {}
for doc in open(sys.argv[2]).read().split("\n\n"):
    if doc.strip():
        for m in json.loads(doc)["modules"]:
            check[name(m)] = key(m)
clean = ("loads", 0, "pass", [])
audit = {name(f) for f in json.load(open(sys.argv[3]))["findings"] if f["code"] == "dep-cycle"}
cyc = {n for n, k in check.items() if any(c == "dep-cycle" for _, c, _ in k[3])}
bad = [n for n in check if tree.get(n, clean) != check[n]] + [n for n in tree if n not in check]
print(len(check), "modules,", len(bad), "differ:", " ".join(sorted(bad)) or "-",
      "| audit dep-cycle", "same" if audit == cyc else "differs: %s vs %s" % (sorted(audit), sorted(cyc)))
EOF
	t_eq "verdicts: $name: tree, check -k and audit agree" \
		"$n modules, 0 differ: - | audit dep-cycle same" "$(cat "$T_TMP/cmp")"
}
smp=$T_TMP/sample
h_tree "$smp"
same_verdicts "$smp" "the sample tree" 3
same_verdicts "$cy" "a dependency cycle" 6
same_verdicts "$al" "forged aliases" 3
same_verdicts "$ln2" "links inside ROOT" 4 ../../../opt/weak/weak.ko
exit 0
