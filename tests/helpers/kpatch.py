#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""kpatch: copy a kernel module (x86_64 ELF, uncompressed), editing it, for the real
loader lanes (tests/real/loader*.sh).

Usage: kpatch.py IN OUT OP...    Ops ("|" separates the arguments):
  strip                  drop the appended signature (done first; patching a signed
                         module without it makes the load fail with -EKEYREJECTED)
  crc|SYM                flip bit 0 of SYM's __versions CRC
  crchigh|SYM            set bit 32 of SYM's 8-byte __versions entry (CRC unchanged)
  vername|OLD|NEW        rename a __versions entry (NEW no longer than OLD)
  modinfo|OLD|NEW        replace the .modinfo entry OLD ("key=value") by NEW, padded
                         with NULs (NEW no longer than OLD; empty NEW removes it)
  modinfo-sub|KEY|OLD|NEW  replace OLD by NEW (same length) in KEY's value
  strtab|OLD|NEW, shstrtab|OLD|NEW  rename a symbol or a section (same length)
  thismod|OLD|NEW        rename the module in struct module (NEW no longer than OLD,
                         padded with NULs)
  weak|SYM               make the undefined symbol SYM weak
Exit status 0, 1 when an edit cannot be made (OUT is not written), 2 bad usage.
"""
import struct, sys
MAGIC = b"~Module signature appended~\n"
def die(msg):
    sys.exit("kpatch: %s: %s" % (sys.argv[1], msg))
def sections(d):
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
    shs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
    stro = shs[shstrndx][4]
    def name(o):
        return bytes(d[stro + o:d.index(b"\0", stro + o)]).decode()
    return {name(s[0]): s for s in shs}
def sec(d, n):
    s = sections(d).get(n)
    if s is None:
        die("no section " + n)
    return s[4], s[5]
def versions(d, sym):
    off, size = sec(d, "__versions")
    for e in range(off, off + size, 64):
        if bytes(d[e + 8:e + 64]).split(b"\0")[0].decode() == sym:
            return e
    die("no __versions entry " + sym)
def rename(d, secname, old, new):
    if len(old) != len(new):
        die("%s -> %s: lengths differ" % (old, new))
    off, size = sec(d, secname)
    i = bytes(d[off:off + size]).find(b"\0" + old.encode() + b"\0")
    if i < 0:
        die("no %s in %s" % (old, secname))
    d[off + i + 1:off + i + 1 + len(old)] = new.encode()
def modinfo_entries(d):
    off, size = sec(d, ".modinfo")
    i = off
    while i < off + size:
        j = d.index(b"\0", i)
        if j > i:
            yield i, bytes(d[i:j]).decode()
        i = j + 1
def op(d, spec):
    a = spec.split("|")
    if a[0] == "crc":
        e = versions(d, a[1]); crc, = struct.unpack_from("<Q", d, e)
        struct.pack_into("<Q", d, e, crc ^ 1)
    elif a[0] == "crchigh":
        e = versions(d, a[1]); crc, = struct.unpack_from("<Q", d, e)
        struct.pack_into("<Q", d, e, crc | 1 << 32)
    elif a[0] == "vername":
        if len(a[2]) > len(a[1]):
            die("vername: longer name")
        e = versions(d, a[1]); d[e + 8:e + 64] = a[2].encode().ljust(56, b"\0")
    elif a[0] == "modinfo":
        if len(a[2]) > len(a[1]):
            die("modinfo: longer entry")
        for i, s in modinfo_entries(d):
            if s == a[1]:
                d[i:i + len(s)] = a[2].encode().ljust(len(s), b"\0")
                return
        die("no .modinfo entry " + a[1])
    elif a[0] == "modinfo-sub":
        if len(a[2]) != len(a[3]):
            die("modinfo-sub: lengths differ")
        for i, s in modinfo_entries(d):
            if s.startswith(a[1] + "=") and a[2] in s:
                s2 = s.replace(a[2], a[3], 1)
                d[i:i + len(s)] = s2.encode()
                return
        die("no %s in .modinfo %s" % (a[2], a[1]))
    elif a[0] in ("strtab", "shstrtab"):
        rename(d, "." + a[0], a[1], a[2])
    elif a[0] == "thismod":
        # the name in struct module (.gnu.linkonce.this_module), padded with NULs; the
        # first occurrence followed by a NUL (the name field comes first in the struct)
        off, size = sec(d, ".gnu.linkonce.this_module")
        i = bytes(d[off:off + size]).find(a[1].encode() + b"\0")
        if i < 0 or len(a[2]) > len(a[1]):
            die("thismod: no %s or a longer name" % a[1])
        d[off + i:off + i + len(a[1])] = a[2].encode().ljust(len(a[1]), b"\0")
    elif a[0] == "weak":
        so, ss = sec(d, ".symtab"); to, _ = sec(d, ".strtab")
        for o in range(so, so + ss, 24):
            n, info = struct.unpack_from("<IB", d, o)
            if bytes(d[to + n:d.index(b"\0", to + n)]).decode() == a[1]:
                d[o + 4] = 2 << 4 | info & 0xf
                return
        die("no symbol " + a[1])
    else:
        die("unknown op " + spec)
if len(sys.argv) < 3:
    sys.stderr.write(__doc__)
    sys.exit(2)
inp, out, ops = sys.argv[1], sys.argv[2], sys.argv[3:]
d = bytearray(open(inp, "rb").read())
if "strip" in ops:
    ops = [o for o in ops if o != "strip"]
    if d.endswith(MAGIC):
        sig_len, = struct.unpack(">I", d[-len(MAGIC) - 4:-len(MAGIC)])
        d = d[:len(d) - len(MAGIC) - 12 - sig_len]
for o in ops:
    op(d, o)
with open(out, "wb") as f:
    f.write(d)
