#!/usr/bin/env python3
"""Runs `ptxcross run` launch specs through the CUDA driver on an NVIDIA GPU and judges the
outputs against the specs' own expectations.

usage: python3 tests/nvidia/run_specs.py SPEC_OR_DIR... [--out FILE]

The expectations of the held-out specs (tests/heldout), the corpus specs and the differential
regressions were computed independently of ptxcross (exact Python arithmetic from the ISA text,
CPU references, the fuzzer's model). Running the same PTX through NVIDIA's own PTX JIT (CuPy's
RawModule: cuModuleLoadData) checks those references against the hardware: a disagreement means
either the reference or NVIDIA departs from the spec, and ptxcross (which passes them on every
backend) would then differ from NVIDIA.

Spec format: host/src/spec.rs. Supported here: buffers given as `zeros` or typed `values` (hex
bit patterns or numbers), `file` buffers, buffer arguments (with `offset`) and typed scalar
arguments, expectations as typed values (with `any_nan`) or files. Specs this runner cannot
express (32-bit address modules, whose pointer parameters are 4-byte offsets) are skipped and
counted. A DIFF that matches a known NVIDIA JIT bug (`KNOWN_BY_NAME`, or a PTX form ptxas is
known to miscompile) is counted as "known", with the reason.
"""
import json
import os
import re
import struct
import sys
from fractions import Fraction

import cupy as cp
import numpy as np

SIZES = {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "s16": 2, "b16": 2, "f16": 2, "bf16": 2,
         "u32": 4, "s32": 4, "b32": 4, "f32": 4, "u64": 8, "s64": 8, "b64": 8, "f64": 8}
FLOATS = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23), "f64": (11, 52)}


def float_bits(ty, text):
    """Decimal text -> bits of `ty`, rounded to nearest even exactly (as host/src/spec.rs)."""
    t = text.strip().lower()
    e, m = FLOATS[ty]
    bias = (1 << (e - 1)) - 1
    inf = ((1 << e) - 1) << m
    if t in ("nan", "+nan"):
        return inf | (1 << (m - 1))
    if t in ("inf", "+inf", "infinity"):
        return inf
    if t in ("-inf", "-infinity"):
        return inf | (1 << (e + m))
    neg = t.startswith("-")
    q = abs(Fraction(t))
    sign = (1 << (e + m)) if neg else 0
    if q == 0:
        return sign
    # exponent of the leading bit
    x = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** x > q:
        x -= 1
    x = max(x, 1 - bias)  # subnormals share the smallest exponent
    scaled = q / Fraction(2) ** (x - m)  # significand with m fraction bits
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n & 1):
        n += 1
    if n >= (2 << m):
        n >>= 1
        x += 1
    if x + bias >= (1 << e) - 1:
        return sign | inf
    if n < (1 << m):  # subnormal
        return sign | n
    return sign | ((x + bias) << m) | (n - (1 << m))


def encode(ty, v):
    size = SIZES[ty]
    if isinstance(v, str) and v.strip().lower().startswith("0x"):
        bits = int(v.replace("_", ""), 16)
    elif ty in FLOATS:
        bits = float_bits(ty, str(v))
    else:
        iv = int(Fraction(str(v)))
        bits = iv & ((1 << (8 * size)) - 1)
    return bits.to_bytes(size, "little")


def values_bytes(ty, values):
    return b"".join(encode(ty, v) for v in values)


def is_nan(ty, raw):
    e, m = FLOATS[ty]
    bits = int.from_bytes(raw, "little")
    exp = (bits >> m) & ((1 << e) - 1)
    return exp == (1 << e) - 1 and bits & ((1 << m) - 1) != 0


def scalar(ty, v):
    raw = encode(ty, v)
    np_ty = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[len(raw)]
    return np_ty(int.from_bytes(raw, "little"))


# The newest PTX ISA the CUDA 13.0 driver (580) JIT-compiles.
DRIVER_ISA = "9.0"


# Paths of the PTX files that were run from a cubin instead (PTXCROSS_CUBIN_DIR).
FROM_CUBIN = set()


def load(ptx_path, kernel, version=None):
    """The kernel through the driver's JIT. Comments may hold non-ASCII text (`§`, `→`),
    which the driver's PTX parser refuses (CUDA_ERROR_INVALID_PTX, seen with driver 580) while
    ptxas accepts it: they become `?` in a temporary copy.

    `PTXCROSS_CUBIN_DIR=DIR`: where `DIR/<name of the .ptx>.cubin` exists (made elsewhere by
    another ptxas, e.g. `ptxas -arch=sm_90 -o DIR/x.cubin x.ptx`), that cubin runs instead of
    the driver's JIT: tells a JIT bug from a wrong expectation."""
    import re
    import tempfile
    cubins = os.environ.get("PTXCROSS_CUBIN_DIR")
    if cubins:
        cubin = os.path.join(cubins, os.path.splitext(os.path.basename(ptx_path))[0] + ".cubin")
        if os.path.exists(cubin):
            FROM_CUBIN.add(ptx_path)
            return cp.RawModule(path=cubin).get_function(kernel)
    text = open(ptx_path, encoding="utf-8", errors="replace").read()
    text = text.encode("ascii", "replace").decode("ascii")
    if version:
        text = re.sub(r"^(\s*)\.version\s+\d+\.\d+", lambda m: f"{m.group(1)}.version {version}", text, count=1, flags=re.M)
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(text)
    try:
        return cp.RawModule(path=f.name).get_function(kernel)
    finally:
        os.unlink(f.name)


def ptxas_says(ptx_path):
    """The first error of the machine's own ptxas on a PTX file the driver refused (the
    driver's JIT gives no reason), or nothing where there is no ptxas."""
    import shutil
    import subprocess
    exe = shutil.which("ptxas") or next((p for p in ("/usr/local/cuda/bin/ptxas",) if os.path.exists(p)), None)
    if not exe:
        return ""
    arch = "sm_" + cp.cuda.Device().compute_capability  # e.g. "90"
    r = subprocess.run([exe, "-arch=" + arch, ptx_path, "-o", "/dev/null"], capture_output=True, text=True)
    first = next((l for l in (r.stderr + r.stdout).splitlines() if "error" in l.lower() or "fatal" in l.lower()), "")
    return f" | ptxas: {first.strip()[:200]}" if first else ""


# NVIDIA PTX JIT bugs pinned down on an H200 (driver 580, ptxas 13.5; tests/nvidia/README.md).
# A DIFF of a spec that shows one of them is reported as "known" with the reason, still
# printed, so a run's summary separates them from disagreements nobody has explained. Only
# the probes written to show a bug are named; generated programs are matched by the PTX form
# ptxas miscompiles, so a DIFF there names the suspect but must still be replayed by hand.
KNOWN_BY_NAME = {
    "irreducible_loop_predicate.json": "a predicate set inside an irreducible loop is stale in the next pass",
    "irreducible_setp_4e56011f.json": "a predicate set inside an irreducible loop is stale in the next pass",
    "irreducible_setp_4e56012c.json": "a predicate set inside an irreducible loop is stale in the next pass",
    "predicated_testp.json": "ptxas drops the guard of a predicated testp",
    "predicated_testp_stale.json": "ptxas drops the guard of a predicated testp",
}
GUARDED_TESTP = re.compile(r"@!?%\w+\s+testp\.")


def known_jit_bug(path, ptx):
    """The known NVIDIA JIT bug a DIFF of this spec may be, or None."""
    name = KNOWN_BY_NAME.get(os.path.basename(path))
    if name:
        return name
    if GUARDED_TESTP.search(ptx):
        return "suspect: the PTX has a predicated testp, whose guard ptxas drops (replay by hand)"
    return None


def run_spec(path):
    spec = json.load(open(path))
    base = os.path.dirname(path)
    ptx = open(os.path.join(base, spec["ptx"])).read()
    if ".address_size 32" in ptx:
        return "skip", "32-bit addresses"
    bufs = {}
    for name, b in spec.get("buffers", {}).items():
        if "zeros" in b:
            data = bytes(b["zeros"])
        elif "file" in b:
            data = open(os.path.join(base, b["file"]), "rb").read()
        else:
            data = values_bytes(b["type"], b["values"])
        host = np.frombuffer(data + bytes((-len(data)) % 8), dtype=np.uint8)
        bufs[name] = (cp.asarray(host), len(data))
    args = []
    for a in spec["args"]:
        if "buffer" in a:
            arr, _ = bufs[a["buffer"]]
            args.append(np.uint64(arr.data.ptr + a.get("offset", 0)))
        else:
            args.append(scalar(a["type"], a["value"]))
    ptx_path = os.path.join(base, spec["ptx"])
    note = ""
    try:
        fn = load(ptx_path, spec["kernel"])
    except Exception as e:
        if "UNSUPPORTED_PTX_VERSION" not in str(e):
            return "load", str(e).splitlines()[0][:200] + ptxas_says(ptx_path)
        # PTX from a newer nvcc than the driver: its ISA version lowered to the driver's (the
        # kernels here use nothing newer; a real newer-only form would fail to load instead).
        try:
            fn = load(ptx_path, spec["kernel"], version=DRIVER_ISA)
            note = f" (loaded as .version {DRIVER_ISA})"
        except Exception as e2:
            return "load", str(e2).splitlines()[0][:200] + ptxas_says(ptx_path)
    shared = spec.get("dynamic_shared_bytes", 0)
    try:
        fn(tuple(spec["grid"]), tuple(spec["block"]), tuple(args), shared_mem=shared)
        cp.cuda.Device().synchronize()
    except Exception as e:
        return "launch", str(e).splitlines()[0][:200]
    diffs = []
    for name, ex in spec.get("expect", {}).items():
        arr, n = bufs[name]
        got = cp.asnumpy(arr).tobytes()[:n]
        if "file" in ex:
            want = open(os.path.join(base, ex["file"]), "rb").read()
            ty = ex.get("type", "u8")
        else:
            ty = ex["type"]
            want = values_bytes(ty, ex["values"])
        any_nan = ex.get("any_nan")
        size = SIZES[ty]
        for i in range(0, min(len(want), len(got)), size):
            w, g = want[i:i + size], got[i:i + size]
            if w == g:
                continue
            if any_nan and is_nan(any_nan, w) and is_nan(any_nan, g):
                continue
            diffs.append(f"{name}[{i // size}]: want 0x{int.from_bytes(w, 'little'):0{2*size}x} "
                         f"NVIDIA 0x{int.from_bytes(g, 'little'):0{2*size}x}")
        if len(got) < len(want):
            diffs.append(f"{name}: {len(got)} bytes, expected {len(want)}")
    if diffs and known_jit_bug(path, ptx):
        return "known", f"NVIDIA JIT bug ({known_jit_bug(path, ptx)}): " + "; ".join(diffs[:3]) + note
    return ("pass", note) if not diffs else ("DIFF", "; ".join(diffs[:6]) + (f" (+{len(diffs) - 6})" if len(diffs) > 6 else "") + note)


def main():
    argv = sys.argv[1:]
    out = None
    if "--out" in argv:
        i = argv.index("--out")
        out = open(argv[i + 1], "w")
        del argv[i:i + 2]
    specs = []
    for a in argv:
        if not os.path.exists(a):
            # A folder that is empty today is deleted by git (tests/differential/open).
            print(f"run_specs: {a}: no such file or folder, skipped")
            continue
        if os.path.isdir(a):
            specs += sorted(os.path.join(a, f) for f in os.listdir(a) if f.endswith(".json") and f != "index.json")
        else:
            specs.append(a)
    counts = {}
    for s in specs:
        try:
            verdict, why = run_spec(s)
        except Exception as e:  # a spec this runner cannot express is counted, not fatal
            verdict, why = "error", f"{type(e).__name__}: {e}"[:200]
        counts[verdict] = counts.get(verdict, 0) + 1
        if FROM_CUBIN:
            why = f"[from the cubin] {why}"
            FROM_CUBIN.clear()
        line = f"{verdict}\t{s}\t{why}"
        if out:
            print(line, file=out)
        if verdict != "pass":
            print(line)
    print("run_specs:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), f"of {len(specs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
