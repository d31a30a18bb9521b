#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ksymcheck modinfo` against kmod's modinfo(8) on Debian's real modules: 6.1's .ko files,
# and the .ko.xz files of 6.12, 7.2 and 7.3 (both tools decompress them).
#
# Sample: a fixed-seed shuffle of the tree (scripts/real-env.sh real_sample), by default
# every module; KSC_REAL_SAMPLE=N takes the first N of the shuffle.
#
# 1. For every module and every distinct key of its .modinfo (read here with an ELF reader
#    of our own, split as kmod splits it), plus "filename" and "name": `modinfo -F KEY`
#    and `ksymcheck modinfo -F KEY` must print the same bytes. For a compressed tree
#    (6.12 on: .ko.xz) both tools read the tree's own files for "filename" and "name",
#    and for the other keys uncompressed copies written here (Python's lzma: the bytes
#    both tools decompress): each tool takes about 8 s of CPU to decompress a whole .ko.xz
#    tree, 24 keys would take 6 minutes a kernel on two cores. The .ko.xz files
#    themselves are read by both for every key in test 2 (the listing prints every key)
#    and by ksymcheck in test 3. Both tools are run on
#    batches of files (one process per key and batch, both print the files' values in
#    argument order); each output is cut into per-module pieces using the line count the
#    .modinfo predicts, and a batch whose output does not have that count is run again one
#    module at a time. Signed modules also get the signature keys (sig_id, signer,
#    sig_key, sig_hashalgo, signature) that kmod decodes from the appended PKCS#7 block;
#    sig_key and signature values wrap onto lines starting with two tabs, so for them a
#    value is a line plus its continuation lines.
# 2. The full text listing (no -F), signature lines included, equals kmod's.
# 3. --format json gives, for every module, the .modinfo entries in file order and the
#    name fields, consistent with the ELF reader here.
# Real kernels: 6.1 trixie sid experimental
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
REAL_TESTS=("modinfo (${KSC_REAL_KERNEL:-6.1}): -F KEY equals kmod's modinfo -F KEY for every key of the sample"
	"modinfo (${KSC_REAL_KERNEL:-6.1}): text listing equals kmod's (signature lines included)"
	"modinfo (${KSC_REAL_KERNEL:-6.1}): --format json lists every .modinfo entry in file order")
# shellcheck source=scripts/real-env.sh
. "$TOP/scripts/real-env.sh"

python3 -c 'import json' 2> /dev/null || real_fail_all "python3 with the json module is needed"

real_sample "${KSC_REAL_SAMPLE:-0}" > "$T_TMP/sample"
echo "# $REAL_LABEL ($KVER): $(wc -l < "$T_TMP/sample") modules"

KSC=$KSC KMOD_MODINFO=$KMOD_MODINFO COPY=$T_TMP/copy python3 - "$T_TMP/sample" "${REAL_TESTS[@]}" <<'EOF'
import concurrent.futures as cf
import gzip, json, lzma, os, struct, subprocess, sys, time

sample_file, names = sys.argv[1], sys.argv[2:]
KSC, KMOD = os.environ["KSC"], os.environ["KMOD_MODINFO"]
SIG_KEYS = ("sig_id", "signer", "sig_key", "sig_hashalgo", "signature")
SIG_KEYS_B = tuple(k.encode() for k in SIG_KEYS)
WRAPPED = (b"sig_key", b"signature")  # hex values continued on "\t\t" lines
BATCH = 400
JOBS = max(1, min(8, os.cpu_count() or 1))

def read_module(path):
    with open(path, "rb") as f:
        d = f.read()
    if d[:6] == b"\xfd7zXZ\0":
        return lzma.decompress(d), "xz"
    if d[:2] == b"\x1f\x8b":
        return gzip.decompress(d), "gzip"
    if d[:4] == b"\x28\xb5\x2f\xfd":
        r = subprocess.run(["zstd", "-dcq"], input=d, stdout=subprocess.PIPE, check=True)
        return r.stdout, "zstd"
    return d, "none"

SIGNED = set()     # paths whose (decompressed) contents end with a module signature

def signed(path):
    return path in SIGNED

def modinfo_section(d):
    """Bytes of .modinfo (None when absent), from the section headers."""
    if d[:4] != b"\x7fELF":
        raise ValueError("not ELF")
    e = "<" if d[5] == 1 else ">"
    if d[4] == 2:
        shoff, = struct.unpack_from(e + "Q", d, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", d, 0x3A)
        sh = lambda i: struct.unpack_from(e + "IIQQQQ", d, shoff + i * shentsize)
    else:
        shoff, = struct.unpack_from(e + "I", d, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", d, 0x2E)
        sh = lambda i: struct.unpack_from(e + "IIIIII", d, shoff + i * shentsize)
    stroff = sh(shstrndx)[4]
    for i in range(shnum):
        name, _, _, _, off, size = sh(i)
        n = d[stroff + name:d.index(b"\0", stroff + name)]
        if n == b".modinfo":
            return d[off:off + size]
    return None

def kmod_split(sec):
    """.modinfo strings as kmod_elf_get_strings() cuts them: NUL runs are one separator."""
    return [s for s in sec.split(b"\0") if s]

def keyval(s):
    k, eq, v = s.partition(b"=")
    return k, v

t0 = time.time()
paths = [l for l in open(sample_file).read().split("\n") if l]
mods = []          # (path, [(key, value)...]) as bytes
compression = []
f_path = []     # what -F reads: the file itself, or its uncompressed copy
for p in paths:
    d, comp = read_module(p)
    if d.endswith(b"~Module signature appended~\n"):
        SIGNED.add(p)
    mods.append((p, [keyval(s) for s in kmod_split(modinfo_section(d) or b"")]))
    compression.append(comp)
    if comp == "none":
        f_path.append(p)
        continue
    # the same folders below COPY, the same name without the compression suffix
    q = os.path.join(os.environ["COPY"], os.path.relpath(p, "/").rsplit(".", 1)[0])
    os.makedirs(os.path.dirname(q), exist_ok=True)
    with open(q, "wb") as f:
        f.write(d)
    f_path.append(q)
    del d
READS_ORIGINAL = (b"filename", b"name")
print("# read %d modules (%s) in %.1f s" % (len(mods), ", ".join(
    "%d %s" % (compression.count(c), c) for c in sorted(set(compression))), time.time() - t0))

def expected_lines(entries, key, path):
    if key == b"filename":
        return 1
    if key in SIG_KEYS_B:
        # the .modinfo entries of that name (none in practice) + kmod's one value
        return sum(1 for k, v in entries if k == key) + (1 if signed(path) else 0)
    if key == b"parm":
        # one line per parameter name (kmod merges parm= and parmtype=, the last value of
        # each kind wins), plus the newlines inside the values
        params = {}
        for k, v in entries:
            if k in (b"parm", b"parmtype") and b":" in v:
                name, text = v.split(b":", 1)
                params.setdefault(name, {})[k] = text
        return sum(1 + sum(t.count(b"\n") for t in p.values()) for p in params.values())
    return sum(v.count(b"\n") + 1 for k, v in entries if k == key)

# (module index, key) pairs to compare, grouped by key
by_key = {}
for i, (p, entries) in enumerate(mods):
    keys = {k for k, v in entries} | {b"filename", b"name"}
    if signed(p):
        keys |= set(SIG_KEYS_B)
    for k in keys:
        by_key.setdefault(k, []).append(i)

def kmod_name(p):
    return os.path.basename(p).split(".", 1)[0].replace("-", "_")

def batches(idx):
    """Batches of at most BATCH modules whose kmod names are distinct (kmod keeps one
    module object per name in a context and refuses a second path for it)."""
    out, cur, seen = [], [], set()
    for i in idx:
        n = kmod_name(mods[i][0])
        if len(cur) == BATCH or n in seen:
            out.append(cur)
            cur, seen = [], set()
        cur.append(i)
        seen.add(n)
    if cur:
        out.append(cur)
    return out

def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout, r.stderr

def split_output(out, counts, wrapped=False):
    lines = out.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    else:
        return None  # output must end with a newline
    if wrapped:
        # one logical line per value: a line and the "\t\t" lines that continue it
        logical = []
        for l in lines:
            if l.startswith(b"\t\t") and logical:
                logical[-1] += b"\n" + l
            else:
                logical.append(l)
        lines = logical
    if len(lines) != sum(counts):
        return None
    pieces, pos = [], 0
    for c in counts:
        pieces.append(lines[pos:pos + c])
        pos += c
    return pieces

def compare_batch(key, idx):
    """Returns (compared, mismatches, processes run)."""
    k = key.decode("utf-8", "surrogateescape")
    files = [mods[i][0] for i in idx]
    read = files if key in READS_ORIGINAL else [f_path[i] for i in idx]
    counts = [expected_lines(mods[i][1], key, mods[i][0]) for i in idx]
    rk, ok_, ek = run([KMOD, "-F", k] + read)
    rs, os_, es = run([KSC, "modinfo", "-F", k] + read)
    nproc = 2
    pk, ps = split_output(ok_, counts, key in WRAPPED), split_output(os_, counts, key in WRAPPED)
    if rk == 0 and rs == 0 and pk is not None and ps is not None:
        mism = [(files[j], k, pk[j], ps[j], b"") for j in range(len(idx)) if pk[j] != ps[j]]
        return len(idx), mism, nproc
    # One module at a time: exact per-module outputs.
    fallbacks.append("-F %s, %d files from %s: kmod exit %d (%s), ksymcheck exit %d, lines %s/%s of %d"
                     % (k, len(files), files[0], rk, ek.strip()[:100], rs,
                        "ok" if pk is not None else "bad", "ok" if ps is not None else "bad",
                        sum(counts)))
    mism = []
    for i in idx:
        f = mods[i][0] if key in READS_ORIGINAL else f_path[i]
        rk, ok_, ek = run([KMOD, "-F", k, f])
        rs, os_, es = run([KSC, "modinfo", "-F", k, f])
        nproc += 2
        if ok_ != os_ or rk != 0 or rs != 0:
            note = b"kmod exit %d, ksymcheck exit %d %s" % (rk, rs, es.strip()[:200])
            mism.append((f, k, ok_.split(b"\n"), os_.split(b"\n"), note))
    return len(idx), mism, nproc

fallbacks = []
jobs = [(k, b) for k in sorted(by_key) for b in batches(by_key[k])]
compared, mismatches, nproc = 0, [], 0
with cf.ThreadPoolExecutor(JOBS) as ex:
    for c, m, n in ex.map(lambda kb: compare_batch(*kb), jobs):
        compared += c
        mismatches += m
        nproc += n
t1 = time.time()

def show(lines):
    return repr(b"\n".join(lines))[:300]

if mismatches:
    print("not ok - %s" % names[0])
else:
    print("ok - %s" % names[0])
print("# modules %d, keys compared %d, mismatches %d" % (len(mods), compared, len(mismatches)))
print("# %d distinct keys: %s" % (len(by_key), " ".join(sorted(k.decode() for k in by_key))))
n_signed = sum(1 for p, e in mods if signed(p))
n_sig_compared = sum(len(by_key.get(k, [])) for k in SIG_KEYS_B)
print("# signed modules %d; signature keys compared %d (%s)"
      % (n_signed, n_sig_compared, "/".join(SIG_KEYS)))
print("# %d processes, %.1f s (%d workers)" % (nproc, t1 - t0, JOBS))
for fb in fallbacks[:5]:
    print("# batch run again per module: %s" % fb)
for f, k, a, b, note in mismatches[:10]:
    print("#   %s -F %s%s" % (f, k, (" (" + note.decode(errors="replace") + ")") if note else ""))
    print("#     kmod:      %s" % show(a))
    print("#     ksymcheck: %s" % show(b))

# 2. Full listing, batched: kmod's output as it is, signature lines included.

def text_batch(idx):
    files = [mods[i][0] for i in idx]
    rk, ok_, ek = run([KMOD] + files)
    rs, os_, es = run([KSC, "modinfo"] + files)
    if rk == 0 and rs == 0 and ok_ == os_:
        return []
    bad = []
    for f in files:
        rk, ok_, ek = run([KMOD, f])
        rs, os_, es = run([KSC, "modinfo", f])
        a, b = ok_, os_
        if a != b or rk != 0 or rs != 0:
            al, bl = a.split(b"\n"), b.split(b"\n")
            j = next((j for j in range(min(len(al), len(bl))) if al[j] != bl[j]), min(len(al), len(bl)))
            bad.append((f, rk, rs, al[j:j + 2], bl[j:j + 2]))
    return bad

t0 = time.time()
text_bad = []
with cf.ThreadPoolExecutor(JOBS) as ex:
    for b in ex.map(text_batch, batches(range(len(mods)))):
        text_bad += b
print("%s - %s" % ("not ok" if text_bad else "ok", names[1]))
print("# modules %d, listings that differ %d (%.1f s)" % (len(mods), len(text_bad), time.time() - t0))
for f, rk, rs, a, b in text_bad[:5]:
    print("#   %s (kmod exit %d, ksymcheck exit %d): first difference" % (f, rk, rs))
    print("#     kmod:      %s" % show(a))
    print("#     ksymcheck: %s" % show(b))

# 3. JSON: entries and names.
t0 = time.time()
json_bad = []
def json_batch(idx):
    files = [mods[i][0] for i in idx]
    rs, os_, es = run([KSC, "modinfo", "--format", "json"] + files)
    bad = []
    try:
        objs = json.loads(os_)["modules"]
    except ValueError as e:
        return [("batch of %d from %s" % (len(files), files[0]), "invalid JSON: %s" % e)]
    if rs != 0 or len(objs) != len(files):
        return [("batch of %d from %s" % (len(files), files[0]),
                 "exit %d, %d objects" % (rs, len(objs)))]
    for i, o in zip(idx, objs):
        p, entries = mods[i]
        want = [{"key": k.decode(), "value": v.decode()} for k, v in entries]
        d = dict(entries)
        problems = []
        if o.get("path") != p:
            problems.append("path %r" % o.get("path"))
        if o.get("modinfo") != want:
            problems.append("modinfo entries differ")
        mname = dict(entries).get(b"name")
        if o.get("modinfo_name") != (mname.decode() if mname is not None else None):
            problems.append("modinfo_name %r" % o.get("modinfo_name"))
        if o.get("kmod_name") != kmod_name(p):
            problems.append("kmod_name %r" % o.get("kmod_name"))
        if o.get("intree") != (b"intree" in d):
            problems.append("intree %r" % o.get("intree"))
        vm = d.get(b"vermagic")
        if o.get("vermagic") != (vm.decode() if vm is not None else None):
            problems.append("vermagic %r" % o.get("vermagic"))
        if o.get("name") != o.get("struct_name"):
            problems.append("name %r != struct_name %r" % (o.get("name"), o.get("struct_name")))
        if o.get("compression") != compression[i]:
            problems.append("compression %r" % o.get("compression"))
        if problems:
            bad.append((p, "; ".join(problems)))
    return bad
with cf.ThreadPoolExecutor(JOBS) as ex:
    for b in ex.map(json_batch, batches(range(len(mods)))):
        json_bad += b
print("%s - %s" % ("not ok" if json_bad else "ok", names[2]))
print("# modules %d, objects with problems %d (%.1f s)" % (len(mods), len(json_bad), time.time() - t0))
for p, why in json_bad[:5]:
    print("#   %s: %s" % (p, why))
EOF
