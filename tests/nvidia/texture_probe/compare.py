#!/usr/bin/env python3
"""Compares two texture_probe output files (e.g. NVIDIA's and ptxcross's) record by record.

    python3 compare.py texture_measured.bin texture_ptxcross.bin [--all] [--config SUBSTRING]

Prints per config the number of differing records, then the differing records (inputs and
outputs as hex and float). The record format is documented in texture_probe.c."""
import struct
import sys


def load(path):
    b = open(path, "rb").read()
    assert b[:8] == b"TXPROBE1", path
    ver, nrec, ncfg = struct.unpack_from("<3I", b, 8)
    cfgs = []
    for i in range(ncfg):
        at = 20 + 64 * i
        cfgs.append(b[at + 4:at + 64].split(b"\0")[0].decode())
    base = 20 + 64 * ncfg
    recs = [struct.unpack_from("<12I", b, base + 48 * i) for i in range(nrec)]
    return cfgs, recs


def f(w):
    return struct.unpack("<f", struct.pack("<I", w))[0]


def show(r):
    return "st=%d in=[%s] out=[%s]" % (
        r[3], " ".join("%08x(%g)" % (w, f(w)) for w in r[4:7]),
        " ".join("%08x(%.9g)" % (w, f(w)) for w in r[8:12]))


def main():
    a, b = sys.argv[1], sys.argv[2]
    show_all = "--all" in sys.argv
    only = sys.argv[sys.argv.index("--config") + 1] if "--config" in sys.argv else None
    ca, ra = load(a)
    cb, rb = load(b)
    if ca != cb:
        print("config tables differ")
    per = {}
    diffs = []
    for x, y in zip(ra, rb):
        if x != y:
            name = ca[x[0]]
            per[name] = per.get(name, 0) + 1
            diffs.append((name, x, y))
    for name in ca:
        if name in per:
            print("%6d  %s" % (per[name], name))
    print("%d of %d records differ (%d vs %d records)" % (len(diffs), len(ra), len(ra), len(rb)))
    shown = 0
    for name, x, y in diffs:
        if only and only not in name:
            continue
        if not show_all and shown >= 60:
            break
        shown += 1
        print("%s #%d\n   A %s\n   B %s" % (name, x[2], show(x), show(y)))


if __name__ == "__main__":
    main()
