#!/usr/bin/env python3
"""Runs every launch spec in ../specs against the CUDA sources compiled for the host
(hostcheck/kernels.cpp -> a shared library) and compares the final buffers with the spec's
expectations. It checks reference/gen.py against the kernels' own source, and it is a small,
complete reading of the spec format (buffers, offsets, scalar types, expect, any_nan).

usage: hostcheck.py LIBHOSTCHECK.so SPEC.json...
"""
import ctypes
import json
import math
import os
import struct
import sys

TYPES = {  # name -> (struct code, size)
    "u8": ("B", 1), "s8": ("b", 1), "u16": ("H", 2), "s16": ("h", 2),
    "u32": ("I", 4), "s32": ("i", 4), "u64": ("Q", 8), "s64": ("q", 8),
    "f16": ("e", 2), "bf16": (None, 2), "f32": ("f", 4), "f64": ("d", 8),
    "b8": ("B", 1), "b16": ("H", 2), "b32": ("I", 4), "b64": ("Q", 8),
}
QUIET_NAN = {"f16": 0x7E00, "bf16": 0x7FC0, "f32": 0x7FC00000, "f64": 0x7FF8000000000000}


def encode(ty, v):
    code, size = TYPES[ty]
    if isinstance(v, str) and v.lower().startswith("0x"):
        return int(v, 16).to_bytes(size, "little")
    if isinstance(v, str):
        v = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v.lower()]
        if math.isnan(v):
            return QUIET_NAN[ty].to_bytes(size, "little")
    if ty == "bf16":  # round to nearest even from binary32
        b = struct.unpack("<I", struct.pack("<f", v))[0]
        b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
        return b.to_bytes(2, "little")
    if code in "ef d":
        return struct.pack("<" + code, float(v))
    return struct.pack("<" + code, int(v))


def load_data(base, desc):
    if "file" in desc:
        with open(os.path.join(base, desc["file"]), "rb") as f:
            return f.read()
    if "zeros" in desc:
        return bytes(desc["zeros"])
    return b"".join(encode(desc["type"], v) for v in desc["values"])


def is_nan(ty, raw):
    b = int.from_bytes(raw, "little")
    if ty == "f32":
        return (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF) != 0
    if ty == "f64":
        return (b >> 52) & 0x7FF == 0x7FF and (b & ((1 << 52) - 1)) != 0
    if ty in ("f16",):
        return (b & 0x7C00) == 0x7C00 and (b & 0x3FF) != 0
    if ty == "bf16":
        return (b & 0x7F80) == 0x7F80 and (b & 0x7F) != 0
    raise ValueError(ty)


def same(got, want, any_nan):
    if got == want:
        return True
    if not any_nan or len(got) != len(want):
        return False
    size = TYPES[any_nan][1]
    for i in range(0, len(want), size):
        g, w = got[i:i + size], want[i:i + size]
        if g != w and not (is_nan(any_nan, w) and is_nan(any_nan, g)):
            return False
    return True


def run(lib, path):
    base = os.path.dirname(os.path.abspath(path))
    with open(path) as f:
        spec = json.load(f)
    bufs = {}
    for name, desc in spec["buffers"].items():
        data = load_data(base, desc)
        bufs[name] = ctypes.create_string_buffer(data, len(data))
    keep, argv = [], []
    for a in spec["args"]:
        if "buffer" in a:
            addr = ctypes.addressof(bufs[a["buffer"]]) + a.get("offset", 0)
            cell = ctypes.c_uint64(addr)
        else:
            raw = encode(a["type"], a["value"])
            cell = ctypes.create_string_buffer(raw, len(raw))
        keep.append(cell)
        argv.append(ctypes.cast(ctypes.pointer(cell), ctypes.c_void_p))
    args = (ctypes.c_void_p * len(argv))(*argv)
    grid = (ctypes.c_uint * 3)(*spec["grid"])
    block = (ctypes.c_uint * 3)(*spec["block"])
    rc = lib.hc_launch(spec["kernel"].encode(), grid, block, spec["dynamic_shared_bytes"], args)
    if rc != 0:
        return "launch failed (%d)" % rc
    for name, desc in spec["expect"].items():
        got = bufs[name].raw
        want = load_data(base, desc)
        if not same(got, want, desc.get("any_nan")):
            first = next(i for i in range(min(len(got), len(want))) if got[i] != want[i]) \
                if len(got) == len(want) else -1
            return "buffer %s differs (first differing byte %d)" % (name, first)
    return None


def main():
    lib = ctypes.CDLL(os.path.abspath(sys.argv[1]))
    passed = failed = 0
    for path in sys.argv[2:]:
        err = run(lib, path)
        if err:
            failed += 1
            print("FAIL %s: %s" % (os.path.basename(path), err))
        else:
            passed += 1
            print("ok   %s" % os.path.basename(path))
    print("hostcheck: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
