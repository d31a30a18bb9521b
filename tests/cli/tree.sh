# SPDX-License-Identifier: LGPL-2.1-or-later
# ksymcheck tree on trees made of the fixtures: depmod's files byte for byte as kmod's
# real depmod writes them (when it is installed), the index (reuse, a touched module
# read again, a corrupt index rebuilt), a broken tree processed fully with exit status 4,
# runs killed midway leaving no partial file and no corrupt index, the progress bar only
# on a terminal, usage errors. Whole outputs (stdout, stderr, exit status) are compared
# with tests/expected/tree/ (t_expect; make regen-expected), JSON with the timing's
# numbers written as 0; the checks after each run say what it shows.
. tests/lib.sh
REL=6.16.0-demo
D=$FIXTURES/demo
X=$FIXTURES/x86_64
DEPMOD=$(PATH=$PATH:/usr/sbin:/sbin command -v depmod || true)

# A tree: modules in folders, compressed ones, one in updates/ shadowing one in kernel/,
# a modules.order that lists some of them, the sample kernel's vmlinux and config.
make_tree() { # $1 root
	local r=$1 m=$1/lib/modules/$REL
	mkdir -p "$m/kernel/virt/kvm" "$m/kernel/arch/x86/kvm" "$m/kernel/drivers/dma" \
		"$m/kernel/fx" "$m/updates" "$m/extra" "$r/boot"
	cp "$D/intree/kvm.ko" "$m/kernel/virt/kvm/kvm.ko"
	cp "$D/intree/kvm-amd.ko" "$m/kernel/arch/x86/kvm/kvm-amd.ko"
	cp "$D/intree/kvm_intel.ko" "$m/kernel/arch/x86/kvm/kvm_intel.ko"
	cp "$D/intree/fx-patterns.ko" "$m/kernel/virt/kvm/fx-patterns.ko"
	cp "$D/oot/fxdma.ko" "$m/kernel/drivers/dma/fxdma.ko"
	cp "$D/oot/kvm.ko" "$m/updates/kvm.ko"
	cp "$D/extra/kvm-evil.ko" "$m/extra/kvm-evil.ko"
	for f in fx-65 fx-modns fx-ptr3 fx-prel32-ns fx-kflagstab fx-user-ext; do
		cp "$X/$f.ko" "$m/kernel/fx/$f.ko"
	done
	cp "$X/fx-user.ko.xz" "$m/kernel/fx/fx-user.ko.xz"
	cp "$X/fx-kvm-amd.ko.zst" "$m/kernel/fx/fx-kvm-amd.ko.zst"
	printf '%s\n' kernel/virt/kvm/kvm.ko kernel/arch/x86/kvm/kvm-amd.ko \
		kernel/fx/fx-user.ko kernel/fx/fx-65.ko kernel/arch/x86/kvm/kvm_intel.ko \
		> "$m/modules.order"
	cp "$X/fx-vmlinux-prel32" "$r/boot/vmlinux-$REL"
	printf 'CONFIG_MODVERSIONS=y\n# CONFIG_MODULE_SIG is not set\n' > "$r/boot/config-$REL"
	find "$r" -exec touch -h -d '2 days ago' {} +
}
FILES="modules.dep modules.symbols modules.alias modules.softdep modules.devname"

# tree_json CMD...: CMD's standard output with the numbers of "timing" (seconds, the job
# count, bytes: they change from run to run and machine to machine) as 0; CMD's status.
tree_json() {
	local rc
	"$@" > "$T_TMP/raw"
	rc=$?
	sed -E '/^  "timing": \{/,/^  \}/ s/(": )[0-9][0-9.e+-]*/\10/' "$T_TMP/raw"
	return $rc
}

root=$T_TMP/root
make_tree "$root"
mkdir -p "$T_TMP/dout"
t_expect fixtures 1 "$KSC" tree -b "$root" "$REL" --no-index --write-depmod "$T_TMP/dout"
t_grep "... summary" "$root/lib/modules/$REL: 14 modules (14 read, 0 from the index, 0 unreadable); kernel exports: $root/boot/vmlinux-$REL" "$T_TMP/out"
t_grep "... judged by the rules of 6.16" "14 judged (rules of 6.16)" "$T_TMP/out"
t_grep "... findings per code" "findings: " "$T_TMP/out"
t_grep "... the modpost finding of kvm_intel" "kernel/arch/x86/kvm/kvm_intel.ko: fxm_for_kvm_family: modpost: refused" "$T_TMP/out"
t_eq "... updates/kvm.ko wins over kernel/virt/kvm/kvm.ko" "updates/kvm.ko:" "$(grep -E '^(updates|kernel/virt/kvm)/kvm.ko:' "$T_TMP/dout/modules.dep")"

if [ -n "$DEPMOD" ]; then
	cp -a "$root" "$T_TMP/droot"
	"$DEPMOD" -b "$T_TMP/droot" "$REL" 2> "$T_TMP/depmod.err"
	for f in $FILES; do
		t_diff "tree: $f byte for byte as kmod's depmod" "$T_TMP/droot/lib/modules/$REL/$f" "$T_TMP/dout/$f"
	done
else
	for f in $FILES; do t_skip "tree: $f byte for byte as kmod's depmod" "depmod not installed"; done
fi

# Each module's verdict is what `check` says of it alone (modprobe into a fresh boot).
"$KSC" tree -b "$root" "$REL" --no-index -v > "$T_TMP/tree.txt" 2> /dev/null
diffs=""
while read -r rel; do
	"$KSC" check -k "$root" --kver "$REL" -v "$root/lib/modules/$REL/$rel" > "$T_TMP/check.txt" 2> /dev/null
	grep -v '^ \|module.* checked' "$T_TMP/check.txt" | sed 's/^[^:]*: //' | sort > "$T_TMP/c1"
	grep "^$rel: " "$T_TMP/tree.txt" | grep -v ' \[depmod-' | sed 's/^[^:]*: //' | sort > "$T_TMP/c2"
	cmp -s "$T_TMP/c1" "$T_TMP/c2" || diffs="$diffs $rel"
done < <(sed -n 's/^\([^:]*\):.*/\1/p' "$T_TMP/dout/modules.dep")
t_eq "tree: every module's findings are check's for that module alone" "" "$diffs"

t_expect no-check 0 "$KSC" tree -b "$root" "$REL" --no-index --no-check
t_expect format-json 1 tree_json "$KSC" tree -b "$root" "$REL" --no-index --format json
python3 - "$T_TMP/out" > "$T_TMP/j" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["schema"], d["command"], d["module_count"], d["read"], d["cached"], d["index"],
      d["policy"], d["verdicts"]["judged"], len(d["problems"]), sorted(d["timing"])[:3],
      d["counts"]["modns-denied"])
# Each module with findings, with the finding object of check --json.
m = [m for m in d["modules"] if m["module"] == "kvm_intel"][0]
f = [f for f in m["findings"] if f["view"] == "modpost"][0]
print(m["path"].endswith("/kvm_intel.ko"), m["loader"]["result"], m["modpost"]["result"],
      f["module"], f["symbol"], f["verdict"], f["code"], f["kernel_lines"])
PY
t_eq "... the summary and the modules' findings" "ksymcheck/1 tree 14 14 0 none 6.16 14 0 ['bytes_decompressed', 'bytes_read', 'check'] {'note': 0, 'warning': 0, 'error': 4}
True loads fail kvm_intel fxm_for_kvm_family error modns-denied ['ERROR: modpost: module kvm_intel uses symbol fxm_for_kvm_family from namespace module:kvm,kvm-*, but does not import it.']" "$(cat "$T_TMP/j")"
"$KSC" tree -b "$root" "$REL" --no-index 2> /dev/null |
	grep -E ': (loader|modpost): refused: |^Cycle detected: ' > "$T_TMP/refused"
t_expect quiet 1 "$KSC" tree -b "$root" "$REL" --no-index -q
t_diff "... the refused lines of the full output, nothing else" "$T_TMP/refused" "$T_TMP/out"
t_grep "... such as fx-65's" "kernel/fx/fx-65.ko: module_layout: loader: refused:" "$T_TMP/out"
t_eq "... no progress bar on a pipe" "" "$(tr -d '\n' < "$T_TMP/err" | tr -dc '\r')"
# A terminal, where script(1) can open one (a root without /dev/pts has none).
if command -v script > /dev/null && script -qec true /dev/null > /dev/null 2>&1; then
	script -q -c "'$KSC' tree -b '$root' $REL --no-index > /dev/null" "$T_TMP/tty" < /dev/null > /dev/null 2>&1 || true
	t_grep "... a progress bar on a terminal" "read    [" "$T_TMP/tty"
else
	t_skip "... a progress bar on a terminal" "no terminal to open (script(1) missing, or no /dev/pts)"
fi

# The index.
idx=$T_TMP/cache/tree.idx
t_expect index-first-run 1 tree_json "$KSC" tree -b "$root" "$REL" --index "$idx" -f json
t_eq "... index absent, then written" "absent yes" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["index"])' "$T_TMP/out") $([ -s "$idx" ] && echo yes)"
t_expect index-second-run 1 tree_json "$KSC" tree -b "$root" "$REL" --index "$idx" -f json
t_eq "... nothing read again" "used 0 14" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["index"], d["read"], d["cached"])' "$T_TMP/out")"
touch -d '1 day ago' "$root/lib/modules/$REL/kernel/fx/fx-65.ko"
t_expect index-one-touched 1 tree_json "$KSC" tree -b "$root" "$REL" --index "$idx" -f json
t_eq "... only it read again" "used 1 13" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["index"], d["read"], d["cached"])' "$T_TMP/out")"
printf 'garbage' | dd of="$idx" bs=1 seek=200 conv=notrunc 2> /dev/null
t_expect index-corrupt 1 tree_json "$KSC" tree -b "$root" "$REL" --index "$idx" -f json
t_grep "... is reported" "$idx: index corrupt" "$T_TMP/err"
t_eq "... and rebuilt, not used" "rebuilt 14" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["index"], d["read"])' "$T_TMP/out")"
t_expect index-after-rebuild 1 tree_json "$KSC" tree -b "$root" "$REL" --index "$idx" -f json
t_eq "... used again" "used 0" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["index"], d["read"])' "$T_TMP/out")"
# The index's walk: with folders older than the clock's granularity, a re-check takes the
# last run's module list and checks each folder; a module added or removed changes its
# folder, and the tree is walked again.
wroot=$T_TMP/walkroot
cp -a "$root" "$wroot"
widx=$T_TMP/cache/walk.idx
wm=$wroot/lib/modules/$REL
find "$wroot" -exec touch -h -d '1 hour ago' {} +
"$KSC" tree -b "$wroot" "$REL" --index "$widx" --no-check -q 2> /dev/null
t_expect walk-nothing-changed 0 tree_json "$KSC" tree -b "$wroot" "$REL" --index "$widx" --no-check -f json
t_eq "... nothing read again" "used 0 14" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["index"], d["read"], d["cached"])' "$T_TMP/out")"
cp "$wm/kernel/fx/fx-65.ko" "$wm/kernel/drivers/dma/fx-added.ko"
mkdir -p "$T_TMP/wout" "$T_TMP/wfresh"
t_expect walk-module-added 0 tree_json "$KSC" tree -b "$wroot" "$REL" --index "$widx" --no-check -f json --write-depmod "$T_TMP/wout"
t_eq "... found (the folder changed: walked again), only it read" "15 1 14" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["module_count"], d["read"], d["cached"])' "$T_TMP/out")"
"$KSC" tree -b "$wroot" "$REL" --no-index --no-check -q --write-depmod "$T_TMP/wfresh" 2> /dev/null
t_eq "... modules.dep as without the index" "" "$(diff "$T_TMP/wout/modules.dep" "$T_TMP/wfresh/modules.dep" 2>&1)"
find "$wroot" -exec touch -h -d '1 hour ago' {} +
"$KSC" tree -b "$wroot" "$REL" --index "$widx" --no-check -q 2> /dev/null
rm "$wm/kernel/drivers/dma/fx-added.ko"
t_expect walk-module-removed 0 tree_json "$KSC" tree -b "$wroot" "$REL" --index "$widx" --no-check -f json
t_eq "... gone" "14 0 14" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["module_count"], d["read"], d["cached"])' "$T_TMP/out")"
mkdir "$wm/kernel/newdir"
cp "$wm/kernel/fx/fx-65.ko" "$wm/kernel/newdir/fx-new.ko"
t_expect walk-new-folder 0 tree_json "$KSC" tree -b "$wroot" "$REL" --index "$widx" --no-check -f json
t_eq "... found" "15 1" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["module_count"], d["read"])' "$T_TMP/out")"
# The same index corrupt in its derived records (the end of its hot part): its folders and
# modules are stat'ed from it while the rest of it is checked; found corrupt, it is not used.
find "$wroot" -exec touch -h -d '1 hour ago' {} +
"$KSC" tree -b "$wroot" "$REL" --index "$widx" --no-check -q 2> /dev/null
hot_end=$(python3 -c 'import struct,sys; print(struct.unpack_from("<Q", open(sys.argv[1], "rb").read(), 128)[0])' "$widx")
printf 'X' | dd of="$widx" bs=1 seek=$((hot_end - 8)) conv=notrunc 2> /dev/null
t_expect walk-derived-corrupt 0 tree_json "$KSC" tree -b "$wroot" "$REL" --index "$widx" --no-check -f json
t_grep "... is reported" "$widx: index corrupt" "$T_TMP/err"
t_eq "... and not used: every module read" "rebuilt 15 0" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["index"], d["read"], d["cached"])' "$T_TMP/out")"
t_expect walk-rebuilt 0 tree_json "$KSC" tree -b "$wroot" "$REL" --index "$widx" --no-check -f json
t_eq "... used" "used 0" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["index"], d["read"])' "$T_TMP/out")"

XDG_CACHE_HOME=$T_TMP/xdg t_expect default-index-xdg 1 "$KSC" tree -b "$root" "$REL" -q
t_eq "... one index file" "1" "$(find "$T_TMP/xdg/ksymcheck/tree" -name "$REL-*.idx" | wc -l)"

# A broken tree: a corrupt module, an unreadable one, a symbolic link loop, a dangling
# symbolic link, an empty folder. Everything else is read; each problem reported; exit 4.
broken=$T_TMP/broken
mkdir -p "$broken/lib/modules/$REL/kernel/ok" "$broken/boot"
cp "$D/intree/kvm.ko" "$broken/lib/modules/$REL/kernel/ok/kvm.ko"
cp "$D/intree/kvm-amd.ko" "$broken/lib/modules/$REL/kernel/ok/kvm-amd.ko"
cp "$X/fx-modns.ko" "$broken/lib/modules/$REL/kernel/ok/fx-modns.ko"
cp "$FIXTURES/bad/truncated-header.ko" "$broken/lib/modules/$REL/kernel/ok/corrupt.ko"
cp "$D/intree/kvm.ko" "$broken/lib/modules/$REL/kernel/ok/unreadable.ko"
chmod 000 "$broken/lib/modules/$REL/kernel/ok/unreadable.ko"
ln -s .. "$broken/lib/modules/$REL/kernel/ok/loop"
ln -s nowhere.ko "$broken/lib/modules/$REL/kernel/ok/dangling.ko"
mkdir -p "$broken/lib/modules/$REL/kernel/empty"
cp "$X/fx-vmlinux-prel32" "$broken/boot/vmlinux-$REL"
printf 'CONFIG_MODVERSIONS=y\nCONFIG_MODULE_FORCE_LOAD=y\n' > "$broken/boot/config-$REL"
bm=$broken/lib/modules/$REL
mkdir -p "$T_TMP/bout"
as_user=()
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	# root reads any file: run as nobody so that chmod 000 means unreadable
	chmod 755 "$T_TMP"
	chmod -R a+rX "$T_TMP/broken" "$FIXTURES" 2> /dev/null || true
	chmod 000 "$bm/kernel/ok/unreadable.ko"
	chmod 777 "$T_TMP/bout"
	as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
t_run "tree: a broken tree, processed fully" 4 "${as_user[@]}" "$KSC" tree -b "$broken" "$REL" --no-index --write-depmod "$T_TMP/bout"
t_grep "... the corrupt module" "$bm/kernel/ok/corrupt.ko: truncated ELF header" "$T_TMP/err"
if [ ${#as_user[@]} -gt 0 ] || [ "$(id -u)" != 0 ]; then
	t_grep "... the unreadable module" "$bm/kernel/ok/unreadable.ko: Permission denied" "$T_TMP/err"
else
	t_skip "... the unreadable module" "root without setpriv reads every file"
fi
t_grep "... the symbolic link loop" "$bm/kernel/ok/loop: symbolic link loop" "$T_TMP/err"
t_grep "... the dangling symbolic link" "$bm/kernel/ok/dangling.ko: dangling symbolic link" "$T_TMP/err"
t_grep "... the good modules still judged" "3 judged (rules of 6.16)" "$T_TMP/out"
t_grep "... problems counted" "problems: 4" "$T_TMP/out"
cp "$T_TMP/out" "$T_TMP/broken.out"
if [ -n "$DEPMOD" ]; then
	# depmod on the same tree without the loop (it would recurse into it until it runs out of file descriptors)
	# (a user cannot copy the mode-000 module: it is copied readable, then made unreadable)
	chmod 644 "$bm/kernel/ok/unreadable.ko"
	cp -a "$broken" "$T_TMP/dbroken"
	chmod 000 "$bm/kernel/ok/unreadable.ko" "$T_TMP/dbroken/lib/modules/$REL/kernel/ok/unreadable.ko"
	rm "$T_TMP/dbroken/lib/modules/$REL/kernel/ok/loop"
	chmod 777 "$T_TMP/dbroken/lib/modules/$REL"
	"${as_user[@]}" "$DEPMOD" -b "$T_TMP/dbroken" "$REL" 2> /dev/null
	for f in modules.dep modules.symbols modules.alias; do
		t_diff "... $f complete, as kmod's depmod" "$T_TMP/dbroken/lib/modules/$REL/$f" "$T_TMP/bout/$f"
	done
else
	t_grep "... modules.dep lists the unreadable modules too" "kernel/ok/corrupt.ko:" "$T_TMP/bout/modules.dep"
fi
chmod 644 "$bm/kernel/ok/unreadable.ko"
chmod 700 "$T_TMP"

# Runs killed at any moment: depmod's files complete or absent, the index valid or absent.
big=$T_TMP/big
mkdir -p "$big/lib/modules/$REL/kernel" "$big/boot"
for i in $(seq 1 150); do
	cp "$D/intree/kvm.ko" "$big/lib/modules/$REL/kernel/kvm$i.ko"
	cp "$X/fx-user.ko.xz" "$big/lib/modules/$REL/kernel/fxu$i.ko.xz"
	cp "$X/fx-65.ko" "$big/lib/modules/$REL/kernel/fx65-$i.ko"
done
cp "$X/fx-vmlinux-prel32" "$big/boot/vmlinux-$REL"
find "$big" -exec touch -h -d '2 days ago' {} +
mkdir -p "$T_TMP/kref" "$T_TMP/kout"
"$KSC" tree -b "$big" "$REL" --no-index -q --write-depmod "$T_TMP/kref" || true
kidx=$T_TMP/kill/tree.idx
bad=""
for delay in 0.005 0.01 0.02 0.03 0.04 0.05 0.06 0.08 0.1 0.12 0.15 0.2 0.3 0.5; do
	rm -rf "$T_TMP/kout" "$T_TMP/kill"
	mkdir -p "$T_TMP/kout"
	{ timeout -s KILL "$delay" "$KSC" tree -b "$big" "$REL" -q --index "$kidx" --write-depmod "$T_TMP/kout"; } > /dev/null 2>&1
	for f in $FILES; do
		if [ -e "$T_TMP/kout/$f" ] && ! cmp -s "$T_TMP/kout/$f" "$T_TMP/kref/$f"; then
			bad="$bad $delay:$f-partial"
		fi
	done
	if [ -e "$kidx" ]; then
		state=$("$KSC" tree -b "$big" "$REL" --index "$kidx" --no-check -f json 2> /dev/null |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["index"])')
		[ "$state" = used ] || bad="$bad $delay:index-$state"
	fi
done
t_eq "tree killed midway (14 times): no partial file, no corrupt index" "" "$bad"
"$KSC" tree -b "$big" "$REL" -q --index "$kidx" --write-depmod "$T_TMP/kout" || true
t_eq "... the next run removes stale temporary files" "" "$(find "$T_TMP/kout" "$T_TMP/kill" -name '*.ksymcheck-tmp-*')"

# Signatures, verified as check and audit verify them: with the built-in keys of the
# kernel image under ROOT (kept beside the index), with --cert, and without any key (a
# well-formed signature is then assumed valid: sig-unverified notes).
S=$FIXTURES/signed
if [ -f "$S/fx-vmlinux-rsa" ]; then
	sroot=$T_TMP/sigroot
	scripts/mk-sample-kernel.sh "$FIXTURES" "$sroot"
	sm=$sroot/lib/modules/$REL/kernel
	mkdir -p "$sm/arch/x86/kvm" "$sm/fx"
	cp "$S/fx-modns-rsa.ko" "$sm/virt/kvm/fx-modns.ko"
	cp "$S/demo-kvm-rsa.ko" "$sm/arch/x86/kvm/kvm.ko"
	sed -i 's/^# CONFIG_MODULE_SIG is not set$/CONFIG_MODULE_SIG=y/' "$sroot/boot/config-$REL"
	cp "$S/fx-vmlinux-rsa" "$sroot/boot/vmlinux-$REL"
	find "$sroot" -exec touch -h -d '2 days ago' {} +
	XDG_CACHE_HOME=$T_TMP/sxdg t_expect sig-builtin-key 0 "$KSC" tree -b "$sroot" "$REL" -v
	t_eq "... a clean tree: both verify, no sig-unverified" "" "$(grep -e '\[sig-' -e '-foreign-key\]' "$T_TMP/out")"
	XDG_CACHE_HOME=$T_TMP/sxdg t_run "... again, from the index" 0 "$KSC" tree -b "$sroot" "$REL" -f json
	t_eq "... the same verdicts, nothing read again" "used 0 ['no-versions']" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["index"], d["read"], sorted(d["counts"]))' "$T_TMP/out")"
	t_eq "... the image's keys kept beside the index" 1 "$(find "$T_TMP/sxdg/ksymcheck/tree" -name "$REL-*.keys" | wc -l)"
	"$KSC" tree -b "$sroot" "$REL" --no-index -f sarif > "$T_TMP/clean.sarif"
	t_eq "... and no SARIF result but the one warning" "no-versions" "$(python3 -c 'import json,sys; print(" ".join(r["ruleId"] for r in json.load(open(sys.argv[1]))["runs"][0]["results"]))' "$T_TMP/clean.sarif")"
	cp "$S/fx-user-ec.ko" "$sm/fx/fx-user-ec.ko"
	cp "$S/fx-user-edited.ko" "$sm/fx/fx-user-edited.ko"
	XDG_CACHE_HOME=$T_TMP/sxdg t_expect sig-foreign-and-edited 1 "$KSC" tree -b "$sroot" "$REL" -v
	cp "$FIXTURES/x86_64/fx-vmlinux-prel32" "$sroot/boot/vmlinux-$REL"
	t_expect sig-no-key 0 "$KSC" tree -b "$sroot" "$REL" --no-index -v
	t_expect sig-cert 1 "$KSC" tree -b "$sroot" "$REL" --no-index -v --cert "$S/rsa.pem"
	sed -i 's/^CONFIG_MODULE_SIG=y$/# CONFIG_MODULE_SIG is not set/' "$sroot/boot/config-$REL"
	t_expect sig-cert-not-a-certificate 4 "$KSC" tree -b "$sroot" "$REL" --no-index --cert "$sroot/boot/config-$REL"
else
	t_skip "tree: signatures verified with the kernel's keys" "no signed fixtures (openssl, objcopy)"
fi

# Usage.
t_expect usage-bad-release 2 "$KSC" tree -b "$root" banana
t_expect usage-index-no-index 2 "$KSC" tree -b "$root" "$REL" --index x --no-index
t_expect usage-two-export-sources 2 "$KSC" tree -b "$root" "$REL" -E a -F b
t_expect no-module-folder 4 "$KSC" tree -b "$T_TMP/nowhere" "$REL" --no-index
t_grep "... reported" "ksymcheck: $T_TMP/nowhere: No such file or directory" "$T_TMP/err"
t_expect help 0 "$KSC" tree --help
t_grep "... documents --write-depmod" "--write-depmod DIR" "$T_TMP/out"
