#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The real module loader as an oracle: boot Debian's own 6.1 kernel under qemu (software
# emulation, no KVM needed) with a throw-away initramfs that loads the given modules, in
# the given order, each with one finit_module(2) call, then dumps the kernel log and
# powers off. See tests/real/LOADER.md.
#
# Usage: scripts/qemu-load.sh OUTDIR MODULE.ko...
#
# Environment:
#   KDIR, KVER        the unpacked Debian packages and the kernel release (as set by
#                     scripts/real-env.sh); found with scripts/fetch-debian-kernel.sh when
#                     unset. The kernel booted is $KDIR/boot/vmlinuz-$KVER, else (the
#                     usrmerged packages of 6.12 on) $KDIR/usr/lib/modules/$KVER/vmlinuz.
#   KSC_VMLINUZ       boot this kernel image instead.
#   KSC_QEMU_CPU      qemu's -cpu model (default: qemu's own; "max" offers SVM, so
#                     kvm-amd can load under TCG).
#   KSC_QEMU_TIMEOUT  hard limit for one boot in seconds (default 120).
#   KSC_QEMU_ACCEL    qemu accelerator (default tcg).
#   KSC_QEMU_MEM      guest memory (default 512M).
#   KSC_QEMU_HALT     how the guest ends: poweroff (default) or reboot (qemu runs with
#                     -no-reboot, so it exits: for a kernel without ACPI, which can only
#                     halt where it should power off).
#   KSC_CACHE         cache folder (default ~/.cache/ksymcheck); the static guest helper
#                     is built into $KSC_CACHE/qemu-harness/.
#
# Writes into OUTDIR:
#   results.txt          one line per module: <basename> TAB <rc> TAB <OK|ERRNO-NAME>
#                        (rc = finit_module's result: 0 or -errno; "none" and
#                        KILLED-BY-SIGNAL-<n> when the loading process was killed, e.g.
#                        by an oops in the module's init function)
#   dmesg.txt            the text of every kernel log record from the first module's
#                        marker to the end of the loads, markers left out: exactly the
#                        printk text, no timestamp or "[...]" prefix
#   dmesg-<basename>.txt the records between that module's marker and the next marker
#   dmesg-raw.txt        dmesg.txt with each line's syslog priority: "<4>text"
#   taints.txt           <basename> TAB <tainted after the call> TAB <taint letters>
#   modules.txt          /proc/modules at the end; module-taints.txt /sys/module/*/taint
#   kmsg.txt             every record of the boot, raw: "prio,seq,usec,flags;text"
#   console.log          the whole serial console; qemu.stderr; timing.txt
#
# Exit status: 0 when the guest booted, ran every load and dumped its log (whatever the
# loads returned); 1 when the harness failed (no boot, timeout, missing output); 2 on bad
# usage or a missing module file.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
if [ $# -ge 1 ] && { [ "$1" = -h ] || [ "$1" = --help ]; }; then usage; exit 0; fi
if [ $# -lt 2 ]; then usage >&2; exit 2; fi

top=$(cd "$(dirname "$0")/.." && pwd)
outdir=$1; shift
timeout_s=${KSC_QEMU_TIMEOUT:-120}
accel=${KSC_QEMU_ACCEL:-tcg}
mem=${KSC_QEMU_MEM:-512M}
cpu_args=()
[ -z "${KSC_QEMU_CPU:-}" ] || cpu_args=(-cpu "$KSC_QEMU_CPU")
cache=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}

die() { echo "qemu-load: $*" >&2; exit 1; }

# --- the modules: unique basenames, files that exist --------------------------------------
declare -A seen=()
for m in "$@"; do
	[ -f "$m" ] || { echo "qemu-load: $m: no such file" >&2; exit 2; }
	b=$(basename "$m")
	case "$b" in
	*[!A-Za-z0-9._+-]*) echo "qemu-load: $b: unsupported characters in the file name" >&2; exit 2 ;;
	esac
	[ -z "${seen[$b]:-}" ] || { echo "qemu-load: $b given twice (basenames must be unique)" >&2; exit 2; }
	seen[$b]=1
done

# --- host tools, installed on demand ------------------------------------------------------
need_pkgs=()
command -v qemu-system-x86_64 > /dev/null || need_pkgs+=(qemu-system-x86)
static_busybox() { # prints the first statically linked busybox
	local b
	for b in /bin/busybox /usr/bin/busybox; do
		[ -x "$b" ] || continue
		case "$(LC_ALL=C readelf -l "$b" 2> /dev/null || echo INTERP)" in *INTERP*) ;; *) echo "$b"; return ;; esac
	done
}
busybox=$(static_busybox)
[ -n "$busybox" ] || need_pkgs+=(busybox-static)
command -v cc > /dev/null || need_pkgs+=(gcc libc6-dev)
command -v python3 > /dev/null || need_pkgs+=(python3)
command -v readelf > /dev/null || need_pkgs+=(binutils)
if [ ${#need_pkgs[@]} -gt 0 ]; then
	echo "qemu-load: installing ${need_pkgs[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends "${need_pkgs[@]}" > /dev/null 2>&1 || {
		apt-get update -qq > /dev/null 2>&1 || true
		apt-get install -y -q --no-install-recommends "${need_pkgs[@]}" >&2
	} || die "could not install ${need_pkgs[*]}"
	busybox=$(static_busybox)
fi
[ -n "$busybox" ] || die "no statically linked busybox (apt-get install busybox-static)"

# --- the kernel ----------------------------------------------------------------------------
# Booting the bzImage spends ~11 s of emulated time in the xz decompressor alone. Debian's
# kernel has CONFIG_PVH=y, so qemu can start the already extracted ELF vmlinux (same kernel
# code, entered through its PVH note) and skip that; KSC_QEMU_BOOT=bzimage forces the
# bzImage. $KDIR/vmlinux is the file scripts/real-env.sh extracts (made here when missing).
vmlinuz=${KSC_VMLINUZ:-}
boot_mode=${KSC_QEMU_BOOT:-pvh}
if [ -z "$vmlinuz" ]; then
	if [ -z "${KDIR:-}" ]; then
		KDIR=$("$top/scripts/fetch-debian-kernel.sh") || die "scripts/fetch-debian-kernel.sh failed"
	fi
	if [ -z "${KVER:-}" ]; then
		if [ -f "$KDIR/.kver" ]; then KVER=$(cat "$KDIR/.kver")
		else KVER=$(basename "$(find "$KDIR/lib/modules" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)"); fi
	fi
	vmlinuz=$KDIR/boot/vmlinuz-$KVER
	[ -f "$vmlinuz" ] || vmlinuz=$KDIR/usr/lib/modules/$KVER/vmlinuz
	[ -f "$vmlinuz" ] || vmlinuz=$KDIR/lib/modules/$KVER/vmlinuz
	[ -f "$vmlinuz" ] || die "$KDIR/boot/vmlinuz-$KVER: no kernel image"
	if [ "$boot_mode" = pvh ]; then
		if [ ! -s "$KDIR/vmlinux" ] && [ -x "$top/scripts/extract-vmlinux.sh" ]; then
			"$top/scripts/extract-vmlinux.sh" "$vmlinuz" "$KDIR/vmlinux" 2> /dev/null || true
		fi
		# the PVH entry point note: owner "Xen", type 18 (XEN_ELFNOTE_PHYS32_ENTRY)
		notes=$(LC_ALL=C readelf -n "$KDIR/vmlinux" 2> /dev/null || true)
		if [ -s "$KDIR/vmlinux" ] && grep -q 'Xen.*(0x00000012)' <<< "$notes"; then
			vmlinuz=$KDIR/vmlinux
		else
			boot_mode=bzimage
		fi
	fi
else
	boot_mode=given
fi
[ -f "$vmlinuz" ] || die "$vmlinuz: no kernel image"

# --- the static guest helper ---------------------------------------------------------------
hdir=$cache/qemu-harness
mkdir -p "$hdir"
src=$top/tests/helpers/finit.c
sum=$(sha256sum "$src" | cut -c1-16)
finit=$hdir/finit-$sum
if [ ! -x "$finit" ]; then
	tmpbin=$(mktemp "$hdir/.finit.XXXXXX")
	cc -static -O2 -o "$tmpbin" "$src" || { rm -f "$tmpbin"; die "could not build $src as a static binary"; }
	mv -f "$tmpbin" "$finit"
fi

# --- the initramfs -------------------------------------------------------------------------
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
rm -f "$outdir"/dmesg-*.txt "$outdir"/dmesg.txt "$outdir"/results.txt "$outdir"/taints.txt \
	"$outdir"/modules.txt "$outdir"/module-taints.txt "$outdir"/kmsg.txt "$outdir"/timing.txt
work=$(mktemp -d "${TMPDIR:-/tmp}/ksc-qemu.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat > "$work/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec < /dev/console > /dev/console 2>&1
/bin/busybox --install -s /bin
export PATH=/bin
# No modprobe in here: keep the kernel from spawning one (request_module fails quietly).
echo > /proc/sys/kernel/modprobe
echo "ksc-guest: userspace up at $(cut -d' ' -f1 /proc/uptime) s"
echo KSC-BEGIN-RESULTS
while read -r f; do
	/bin/finit "/mod/$f"
	st=$?
	# killed (an oops in the module's init): say so instead of leaving a gap
	[ $st -lt 128 ] || echo "ksc-result: $f rc=none KILLED-BY-SIGNAL-$((st - 128)) taint=$(cat /proc/sys/kernel/tainted)"
done < /modules.list
/bin/finit --mark done
echo KSC-END-RESULTS
echo KSC-BEGIN-MODULES
cat /proc/modules
echo KSC-END-MODULES
echo KSC-BEGIN-MODTAINT
for d in /sys/module/*; do
	[ -f "$d/taint" ] && [ -n "$(cat "$d/taint")" ] && echo "${d##*/} $(cat "$d/taint")"
done
echo KSC-END-MODTAINT
echo KSC-BEGIN-KMSG
/bin/finit --dump-kmsg
echo KSC-END-KMSG
echo "ksc-guest: powering off at $(cut -d' ' -f1 /proc/uptime) s"
poweroff -f
EOF

case ${KSC_QEMU_HALT:-poweroff} in
poweroff) ;;
reboot) sed -i 's/^poweroff -f$/reboot -f/' "$work/init" ;;
*) echo "qemu-load: KSC_QEMU_HALT must be poweroff or reboot" >&2; exit 2 ;;
esac

# newc archive written here (no root, no cpio(1) needed), mtimes 0: byte-identical inputs
# give a byte-identical initramfs.
python3 - "$work/initramfs.cpio" "$work/init" "$busybox" "$finit" "$@" <<'EOF'
import os, sys
out, init, busybox, finit, mods = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
ino = [1000]
def entry(f, name, mode, data=b"", rdev=(0, 0), nlink=1):
    ino[0] += 1
    hdr = "070701" + "".join("%08X" % v for v in (
        ino[0], mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1], len(name) + 1, 0))
    f.write(hdr.encode() + name.encode() + b"\0")
    f.write(b"\0" * ((4 - (110 + len(name) + 1) % 4) % 4))
    f.write(data)
    f.write(b"\0" * ((4 - len(data) % 4) % 4))
def read(p):
    with open(p, "rb") as fh:
        return fh.read()
with open(out, "wb") as f:
    for d in ("bin", "dev", "proc", "sys", "tmp", "mod"):
        entry(f, d, 0o040755, nlink=2)
    entry(f, "dev/console", 0o020600, rdev=(5, 1))
    entry(f, "dev/null", 0o020666, rdev=(1, 3))
    entry(f, "init", 0o100755, read(init))
    entry(f, "bin/busybox", 0o100755, read(busybox))
    entry(f, "bin/finit", 0o100755, read(finit))
    entry(f, "bin/sh", 0o120777, b"busybox")
    names = []
    for m in mods:
        b = os.path.basename(m)
        names.append(b)
        entry(f, "mod/" + b, 0o100644, read(m))
    entry(f, "modules.list", 0o100644, "".join(n + "\n" for n in names).encode())
    entry(f, "TRAILER!!!", 0, nlink=1)
EOF

# --- boot ----------------------------------------------------------------------------------
# tsc=unstable: no delayed TSC refinement or clocksource switch (and no watchdog verdict
# on the emulated TSC) can log in the middle of the loads.
append="console=ttyS0 panic=-1 quiet loglevel=3 printk.devkmsg=on log_buf_len=4M tsc=unstable rdinit=/init"
start=$(date +%s.%N)
qrc=0
timeout --kill-after=5 "$timeout_s" qemu-system-x86_64 \
	-accel "$accel" ${cpu_args[@]+"${cpu_args[@]}"} -m "$mem" -smp 1 -nodefaults -no-user-config -display none \
	-serial stdio -monitor none -no-reboot \
	-kernel "$vmlinuz" -initrd "$work/initramfs.cpio" -append "$append" \
	< /dev/null > "$work/console.raw" 2> "$outdir/qemu.stderr" || qrc=$?
elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
tr -d '\r' < "$work/console.raw" > "$outdir/console.log"

if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	tail -n 20 "$outdir/console.log" >&2
	die "qemu did not power off within ${timeout_s}s (console: $outdir/console.log)"
fi
[ $qrc -eq 0 ] || { tail -n 5 "$outdir/qemu.stderr" >&2; die "qemu exited with status $qrc"; }

# --- parse the console ---------------------------------------------------------------------
python3 - "$outdir" "$elapsed" "$accel" "$boot_mode $vmlinuz" "$@" <<'EOF' || exit 1
import os, re, sys
outdir, elapsed, accel, kernel = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
expected = [os.path.basename(m) for m in sys.argv[5:]]
lines = open(os.path.join(outdir, "console.log"), encoding="utf-8", errors="replace").read().split("\n")

def section(tag):
    try:
        a = lines.index("KSC-BEGIN-" + tag)
        b = lines.index("KSC-END-" + tag, a)
    except ValueError:
        sys.exit("qemu-load: the console has no complete %s section (see %s/console.log)" % (tag, outdir))
    return lines[a + 1:b]

# Results: lines may share the console with kernel messages; take only ours.
res = {}
order = []
for l in section("RESULTS"):
    m = re.search(r"ksc-result: (\S+) rc=(-?\d+|none) (\S+) taint=(-?\d+)", l)
    if m:
        res[m.group(1)] = (m.group(2), m.group(3), int(m.group(4)))
        order.append(m.group(1))
missing = [b for b in expected if b not in res]
if missing:
    sys.exit("qemu-load: no result for " + " ".join(missing))

TAINT = "PFSRMBUDAWCIOELKXT"
def letters(t):
    return "".join(c for i, c in enumerate(TAINT) if t >= 0 and t >> i & 1)

with open(os.path.join(outdir, "results.txt"), "w") as f:
    for b in expected:
        rc, name, _ = res[b]
        f.write("%s\t%s\t%s\n" % (b, rc, name))
with open(os.path.join(outdir, "taints.txt"), "w") as f:
    for b in expected:
        f.write("%s\t%d\t%s\n" % (b, res[b][2], letters(res[b][2])))
with open(os.path.join(outdir, "modules.txt"), "w") as f:
    f.write("".join(l + "\n" for l in section("MODULES")))
with open(os.path.join(outdir, "module-taints.txt"), "w") as f:
    f.write("".join(l + "\n" for l in section("MODTAINT")))

# Kernel log records.
def unescape(s):
    return re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]),
                  s.encode("utf-8", "surrogateescape")).decode("utf-8", "replace")
recs = []
raw = []
for l in section("KMSG"):
    i = l.find("ksc-kmsg: ")
    if i < 0:
        continue
    body = l[i + len("ksc-kmsg: "):]
    raw.append(body)
    prefix, sep, text = body.partition(";")
    if not sep:
        continue
    fields = prefix.split(",")
    try:
        prio, seq, usec = int(fields[0]), int(fields[1]), int(fields[2])
    except (ValueError, IndexError):
        continue
    recs.append((prio >> 3, prio & 7, seq, usec, unescape(text)))
with open(os.path.join(outdir, "kmsg.txt"), "w") as f:
    f.write("".join(r + "\n" for r in raw))

def marker(r):
    return r[0] == 1 and r[4].startswith("ksc-harness: ")

first = next((i for i, r in enumerate(recs) if marker(r) and r[4].startswith("ksc-harness: load ")), None)
done = next((i for i, r in enumerate(recs) if marker(r) and r[4] == "ksc-harness: done"), None)
if done is None:
    sys.exit("qemu-load: the kernel log has no end marker (log overwritten?)")
if first is None:
    first = done
text = lambda r: r[4] + "\n"
with open(os.path.join(outdir, "dmesg.txt"), "w") as f:
    f.write("".join(text(r) for r in recs[first:done] if not marker(r)))
# The same window with the syslog priority, as `dmesg -r` prints it minus the timestamp:
# "<N>text", N = facility * 8 + level (the loader's messages: 3 err, 4 warning, 5 notice).
with open(os.path.join(outdir, "dmesg-raw.txt"), "w") as f:
    f.write("".join("<%d>%s" % (r[0] * 8 + r[1], text(r)) for r in recs[first:done] if not marker(r)))
cur = None
per = {}
for r in recs[first:done + 1]:
    if marker(r):
        cur = r[4][len("ksc-harness: load "):] if r[4].startswith("ksc-harness: load ") else None
        if cur is not None:
            per[cur] = []
        continue
    if cur is not None:
        per[cur].append(text(r))
for b in expected:
    with open(os.path.join(outdir, "dmesg-%s.txt" % b), "w") as f:
        f.write("".join(per.get(b, [])))

# Timing: kernel time when the first marker was logged, wall time of the whole boot.
up = next((l for l in lines if l.startswith("ksc-guest: userspace up at ")), "")
off = next((l for l in lines if l.startswith("ksc-guest: powering off at ")), "")
with open(os.path.join(outdir, "timing.txt"), "w") as f:
    f.write("accel\t%s\n" % accel)
    f.write("kernel\t%s\n" % kernel)
    f.write("wall_seconds\t%s\n" % elapsed)
    if up:
        f.write("guest_userspace_up_seconds\t%s\n" % up.split()[4])
    if off:
        f.write("guest_poweroff_seconds\t%s\n" % off.split()[4])
    f.write("modules\t%d\n" % len(expected))
EOF
echo "qemu-load: ${#}-module boot in ${elapsed}s, results in $outdir" >&2
