#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ksymcheck imports --format json` against kmod's `modprobe --dump-modversions` (which
# prints "0x%08lx\t%s" for every __versions entry, in file order) on Debian's real 6.1
# modules, and against the undefined symbols of .symtab read here with a small ELF reader.
#
# Sample: the fixed-seed shuffle of scripts/real-env.sh (every module by default;
# KSC_REAL_SAMPLE=N takes the first N).
#  1. "versions" equals the dump line for line (names, CRCs, order).
#  2. every import's "crc" equals the dump's CRC for that name, and an import has a CRC
#     exactly when the dump lists its name; the imports without a CRC are counted.
#  3. "imports" lists the .symtab entries with st_shndx == SHN_UNDEF and a non-empty name,
#     in .symtab order, with their binding (global/weak).
REAL_TESTS=("imports: versions equal modprobe --dump-modversions (names, CRCs, order)"
	"imports: every import's crc equals its __versions CRC"
	"imports: names, order and binding equal the undefined symbols of .symtab")
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

python3 -c 'import json' 2> /dev/null || real_fail_all "python3 with the json module is needed"

real_sample "${KSC_REAL_SAMPLE:-0}" > "$T_TMP/sample"

KSC=$KSC KMOD_MODPROBE=$KMOD_MODPROBE python3 - "$T_TMP/sample" "${REAL_TESTS[@]}" <<'EOF'
import concurrent.futures as cf
import gzip, json, lzma, os, struct, subprocess, sys, time

sample_file, names = sys.argv[1], sys.argv[2:]
KSC, MODPROBE = os.environ["KSC"], os.environ["KMOD_MODPROBE"]
BATCH = 400
JOBS = max(1, min(8, os.cpu_count() or 1))
paths = [l for l in open(sample_file).read().split("\n") if l]

def read_module(path):
    with open(path, "rb") as f:
        d = f.read()
    if d[:6] == b"\xfd7zXZ\0":
        return lzma.decompress(d)
    if d[:2] == b"\x1f\x8b":
        return gzip.decompress(d)
    if d[:4] == b"\x28\xb5\x2f\xfd":
        return subprocess.run(["zstd", "-dcq"], input=d, stdout=subprocess.PIPE, check=True).stdout
    return d

def undefined_symbols(d):
    """[(name, 'global'|'weak')] of .symtab entries with SHN_UNDEF and a name, in order."""
    e = "<" if d[5] == 1 else ">"
    is64 = d[4] == 2
    if is64:
        shoff, = struct.unpack_from(e + "Q", d, 0x28)
        shentsize, shnum, _ = struct.unpack_from(e + "HHH", d, 0x3A)
        shfmt, symfmt, symsize = e + "IIQQQQIIQQ", e + "IBBHQQ", 24
    else:
        shoff, = struct.unpack_from(e + "I", d, 0x20)
        shentsize, shnum, _ = struct.unpack_from(e + "HHH", d, 0x2E)
        shfmt, symfmt, symsize = e + "IIIIIIIIII", e + "IIIBBH", 16
    secs = [struct.unpack_from(shfmt, d, shoff + i * shentsize) for i in range(shnum)]
    out = []
    for s in secs:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        stroff = secs[s[6]][4]
        for off in range(s[4] + symsize, s[4] + s[5], symsize):  # entry 0 is the null symbol
            if is64:
                name, info, other, shndx, value, size = struct.unpack_from(symfmt, d, off)
            else:
                name, value, size, info, other, shndx = struct.unpack_from(symfmt, d, off)
            if shndx != 0 or name == 0:
                continue
            n = d[stroff + name:d.index(b"\0", stroff + name)].decode()
            if not n:
                continue
            bind = info >> 4
            out.append((n, "weak" if bind == 2 else "global"))
    return out

def dump(path):
    r = subprocess.run([MODPROBE, "--dump-modversions", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rows = []
    for line in r.stdout.decode().split("\n"):
        if line:
            crc, name = line.split("\t", 1)
            rows.append((name, crc))
    return r.returncode, rows, r.stderr.decode().strip()

def ksc_batch(files):
    r = subprocess.run([KSC, "imports", "--format", "json"] + files,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        objs = json.loads(r.stdout)["modules"]
    except ValueError as e:
        objs = None
    return r.returncode, objs, r.stderr.decode().strip()

t0 = time.time()
with cf.ThreadPoolExecutor(JOBS) as ex:
    dumps = list(ex.map(dump, paths))
    t_dump = time.time() - t0
    t1 = time.time()
    batches = [paths[i:i + BATCH] for i in range(0, len(paths), BATCH)]
    results = list(ex.map(ksc_batch, batches))
t_ksc = time.time() - t1

objs, setup_errors = [], []
for files, (rc, o, err) in zip(batches, results):
    if o is None or rc != 0 or len(o) != len(files):
        setup_errors.append("ksymcheck imports on %d files from %s: exit %d, %s; %s"
                            % (len(files), files[0], rc,
                               "invalid JSON" if o is None else "%d objects" % len(o), err[:300]))
        objs += [None] * len(files)
    else:
        objs += o

bad_versions, bad_crcs, bad_undef = list(setup_errors), list(setup_errors), list(setup_errors)
n_versions = n_imports = n_nocrc = n_weak = 0
t2 = time.time()
for p, (rc, rows, err), o in zip(paths, dumps, objs):
    if o is None:
        continue
    if o.get("path") != p:
        bad_versions.append("%s: object for path %r" % (p, o.get("path")))
        continue
    if rc != 0:
        bad_versions.append("%s: modprobe --dump-modversions exit %d: %s" % (p, rc, err))
        continue
    versions = [(v["name"], v["crc"]) for v in (o.get("versions") or [])]
    n_versions += len(rows)
    if versions != rows:
        j = next((j for j in range(min(len(rows), len(versions))) if rows[j] != versions[j]),
                 min(len(rows), len(versions)))
        bad_versions.append("%s: %d dump lines, %d versions; first difference at %d: dump %r, "
                            "ksymcheck %r" % (p, len(rows), len(versions), j,
                                              rows[j] if j < len(rows) else None,
                                              versions[j] if j < len(versions) else None))
    crc_of = {}
    for name, crc in rows:
        crc_of.setdefault(name, crc)
    imports = o.get("imports") or []
    for im in imports:
        n_imports += 1
        want = crc_of.get(im["name"])
        if im["crc"] is None:
            n_nocrc += 1
        if im["crc"] != want:
            bad_crcs.append("%s: %s: crc %r, __versions %r" % (p, im["name"], im["crc"], want))
    undef = undefined_symbols(read_module(p))
    got = [(im["name"], im["bind"]) for im in imports]
    n_weak += sum(1 for n, b in undef if b == "weak")
    if got != undef:
        j = next((j for j in range(min(len(got), len(undef))) if got[j] != undef[j]),
                 min(len(got), len(undef)))
        bad_undef.append("%s: %d undefined in .symtab, %d imports; first difference at %d: "
                         ".symtab %r, ksymcheck %r" % (p, len(undef), len(got), j,
                                                       undef[j] if j < len(undef) else None,
                                                       got[j] if j < len(got) else None))
t_check = time.time() - t2

def report(name, bad, counts):
    print("%s - %s" % ("not ok" if bad else "ok", name))
    print("# " + counts)
    for b in bad[:8]:
        print("#   " + b)

report(names[0], bad_versions,
       "modules %d, dump lines %d, modules that differ %d; modprobe %.1f s (%d processes), "
       "ksymcheck %.1f s (%d processes)" % (len(paths), n_versions, len(bad_versions), t_dump,
                                            len(paths), t_ksc, len(batches)))
report(names[1], bad_crcs,
       "imports %d, without a CRC %d, CRC mismatches %d" % (n_imports, n_nocrc, len(bad_crcs)))
report(names[2], bad_undef,
       "modules %d, imports %d (weak %d), modules that differ %d (%.1f s)"
       % (len(paths), n_imports, n_weak, len(bad_undef), t_check))
EOF
