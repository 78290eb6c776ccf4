#!/usr/bin/env python3
"""cudafuzz: random CUDA C kernels (gen.py) through real nvcc 13.5 and clang-16, run by ptxcross
on both backends, compared bit for bit with the same source compiled for the host (cf.h, host.cpp).

usage: fuzz.py [--seed S] [--count N] [--seconds T] [--variants a,b,...] [--per-program K]
               [--keep DIR] [--ptxcross BIN] [--save-case DIR]
  Programs use seeds S, S+1, ...; each is compiled for the host once and, for the device, with K
  variants drawn from --variants (all of VARIANTS by default), rotating so every variant runs.
  Wrong results (ptxcross exit 1) and errors (exit 2, e.g. a refusal) are kept under
  DIR/<seed>-<variant>/ with the source, the PTX, inputs, expected output and ptxcross's log;
  ptxcross refusals are counted separately (a refusal is allowed, a wrong result never).
  --save-case DIR writes each program as a committed regression case (used by regen.sh);
  --source FILE.cu runs a kept program (found/) instead of gen.py's.
Needs: the CUDA venv of tests/cuda-env.sh, clang-16, g++ >= 11, a built ptxcross.
"""
import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen  # noqa: E402

VENV = os.environ.get("PTXCROSS_CUDA_VENV", os.path.expanduser("~/.cache/ptxcross/cuda-venv"))
CLANG = os.environ.get("CLANG", "clang-16")


def nvcc_bin():
    import glob
    hits = glob.glob(os.path.join(VENV, "lib", "python3*", "site-packages", "nvidia", "cu13", "bin"))
    if not hits:
        sys.exit("no nvcc 13.5 in %s (source tests/cuda-env.sh once)" % VENV)
    return hits[0]


# -ffp-contract=off: clang-16 rewrites llvm.nvvm.{add,mul}.rn.* into plain fadd/fmul that keep
# the call's `contract` flag, so `__dsub_rn(-__dmul_rn(a, b), c)` became fma.rn.f64 (one ulp off;
# found by this fuzzer, seed 0xc0da0103): the _rn intrinsics promise no contraction.
CLANG_FLAGS = ["--cuda-device-only", "-nocudainc", "-nocudalib", "-S", "-Wno-unknown-cuda-version",
               "-ffp-contract=off"]
# label -> compiler command (without input/output)
VARIANTS = {
    "nvcc-sm80": ["nvcc", "-arch=sm_80", "-ptx"],
    "nvcc-sm90": ["nvcc", "-arch=sm_90", "-ptx"],
    "nvcc-sm75-nofma": ["nvcc", "-arch=sm_75", "-ptx", "-fmad=false"],
    "nvcc-sm80-G": ["nvcc", "-arch=sm_80", "-ptx", "-G"],
    "clang-sm52": [CLANG, "--cuda-gpu-arch=sm_52", "-O3"] + CLANG_FLAGS,
    "clang-sm80": [CLANG, "--cuda-gpu-arch=sm_80", "-O2"] + CLANG_FLAGS,
    "clang-sm70-O0": [CLANG, "--cuda-gpu-arch=sm_70", "-O0"] + CLANG_FLAGS,
}


def f32b(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def inputs(seed):
    """Input tables: edge values of every type, then random ones."""
    r = random.Random(seed * 7919 + 17)
    n = gen.TABLE
    def ints(bits, signed):
        m = (1 << bits) - 1
        sp = [0, 1, 2, 3, m, m - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1, (1 << (bits - 1)) + 1,
              0xFF, 0x100, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 31, 32, 33, 63, 64]
        v = [x & m for x in sp]
        while len(v) < n:
            v.append(r.getrandbits(r.choice([3, 8, 16, 31, bits, bits])))
        v = v[:n]
        r.shuffle(v)
        fmt = {32: "<I", 64: "<Q"}[bits]
        return b"".join(struct.pack(fmt, x & m) for x in v)
    f32sp = [0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
             0x7fa00001, 0xffc12345, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0x4f000000,
             0xcf000000, 0x4f800000, 0x5f000000, 0xdf000000, 0x3effffff, 0x3f000000, 0x3fc00000,
             0x40200000, 0x4b000001, 0xcb7fffff, 0x3f7fffff, 0x33800000]
    f64sp = [0, 1 << 63, 0x3ff0000000000000, 0xbff0000000000000, 0x7ff0000000000000,
             0xfff0000000000000, 0x7ff8000000000000, 0x7ff4000000000001, 0x1, 0x800fffffffffffff,
             0x0010000000000000, 0x7fefffffffffffff, 0x41e0000000000000, 0xc1e0000000000000,
             0x41f0000000000000, 0x43e0000000000000, 0xc3e0000000000000, 0x43f0000000000000,
             0x3fdfffffffffffff, 0x3fe0000000000000, 0x3ff8000000000000, 0x4330000000000001,
             0x3fefffffffffffff, 0x3ca0000000000000, 0x41dfffffffc00000, 0x47efffffe0000000]
    def floats(sp, bits):
        v = list(sp)
        while len(v) < n:
            k = r.random()
            if k < 0.2:
                v.append(r.getrandbits(bits))
            elif bits == 32:
                v.append(f32b(r.choice([1, -1]) * r.uniform(0, 2) * 2.0 ** r.randint(-30, 40)))
            else:
                v.append(struct.unpack("<Q", struct.pack("<d", r.choice([1, -1]) * r.uniform(0, 2)
                                                         * 2.0 ** r.randint(-80, 80)))[0])
        r.shuffle(v)
        return b"".join(struct.pack("<I" if bits == 32 else "<Q", x) for x in v[:n])
    return {"in_u32": ints(32, False), "in_s32": ints(32, True), "in_u64": ints(64, False),
            "in_s64": ints(64, True), "in_f32": floats(f32sp, 32), "in_f64": floats(f64sp, 64)}


def launch(seed):
    r = random.Random(seed ^ 0x5eed)
    block = r.choice([32, 64, 96, 128])
    grid = r.choice([1, 2, 3])
    n = grid * block - r.randint(1, 5)
    p64 = r.getrandbits(64)
    return grid, block, n, p64


def run(cmd, cwd=None, timeout=300, env=None):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def prepare(seed, d, source=None):
    """Writes DIR/prog.cu (gen.py's, or the file `source`), inputs, out.init.bin,
    out.expected.bin (host run). Returns the launch."""
    if source:
        with open(source) as f:
            src = f.read()
    else:
        src = gen.generate(seed)
    with open(os.path.join(d, "prog.cu"), "w") as f:
        f.write(src)
    for name, data in inputs(seed).items():
        with open(os.path.join(d, name + ".bin"), "wb") as f:
            f.write(data)
    grid, block, n, p64 = launch(seed)
    words = grid * block * gen.NOUT + 4  # sentinel words past the end too
    with open(os.path.join(d, "out.init.bin"), "wb") as f:
        f.write(struct.pack("<Q", 0xdeadbeefdeadbeef) * words)
    exe = os.path.join(d, "host")
    cxx = os.environ.get("CXX", "g++")
    # -O0: nothing moves across the fesetround calls of the rounding-direction intrinsics.
    p = run([cxx, "-std=c++20", "-O0", "-frounding-math", "-ffp-contract=off", "-fno-fast-math",
             "-w", "-I", HERE, "-x", "c++", os.path.join(d, "prog.cu"), "-x", "c++",
             os.path.join(HERE, "host.cpp"), "-o", exe])
    if p.returncode != 0:
        raise RuntimeError("host compile failed for seed %d:\n%s" % (seed, p.stderr[-3000:]))
    p = run([exe, d, str(grid), str(block), str(n), str(p64)])
    if p.returncode != 0:
        raise RuntimeError("host run failed for seed %d:\n%s" % (seed, p.stderr[-3000:]))
    os.remove(exe)
    return grid, block, n, p64


def compile_ptx(variant, d, out_ptx):
    cmd = list(VARIANTS[variant])
    env = dict(os.environ)
    if cmd[0] == "nvcc":
        cmd[0] = os.path.join(nvcc_bin(), "nvcc")
    cmd += ["-I", HERE, os.path.join(d, "prog.cu"), "-o", out_ptx]
    p = run(cmd, env=env)
    if p.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), p.stderr[-3000:]))


def write_spec(d, ptx_name, launch_, spec_name):
    grid, block, n, p64 = launch_
    spec = {
        "ptx": ptx_name, "kernel": "k", "grid": [grid, 1, 1], "block": [block, 1, 1],
        "dynamic_shared_bytes": 0,
        "buffers": {b: {"file": b + ".bin"} for b in
                    ["in_u32", "in_s32", "in_u64", "in_s64", "in_f32", "in_f64"]},
        "args": [{"buffer": b} for b in ["in_u32", "in_s32", "in_u64", "in_s64", "in_f32",
                                          "in_f64", "out"]]
        + [{"type": "u32", "value": n}, {"type": "u64", "value": "0x%x" % p64}],
        "expect": {"out": {"file": "out.expected.bin"}},
    }
    spec["buffers"]["out"] = {"file": "out.init.bin"}
    with open(os.path.join(d, spec_name), "w") as f:
        json.dump(spec, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", default="0xc0da0000")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--per-program", type=int, default=2)
    ap.add_argument("--keep", default=os.path.join(ROOT, "target", "cudafuzz-failures"))
    ap.add_argument("--ptxcross", default=os.path.join(ROOT, "target", "debug", "ptxcross"))
    ap.add_argument("--save-case", default=None)
    ap.add_argument("--source", default=None, help="run this .cu (a kept failure) instead of "
                    "gen.py's program; the seed still picks inputs and launch")
    a = ap.parse_args()
    seed0 = random.getrandbits(32) if a.seed == "random" else int(a.seed, 0)
    variants = a.variants.split(",")
    t0 = time.time()
    stats = {}
    fails = []
    i = 0
    rot = 0
    while (a.seconds and time.time() - t0 < a.seconds) or (not a.seconds and i < a.count):
        seed = seed0 + i
        i += 1
        d = tempfile.mkdtemp(prefix="cudafuzz-")
        try:
            t1 = time.time()
            lau = prepare(seed, d, a.source)
            chosen = [variants[(rot + j) % len(variants)] for j in range(min(a.per_program, len(variants)))]
            rot += a.per_program
            for v in chosen:
                ptx = "prog.%s.ptx" % v
                compile_ptx(v, d, os.path.join(d, ptx))
                spec = "prog.%s.json" % v
                write_spec(d, ptx, lau, spec)
                t2 = time.time()
                p = run([a.ptxcross, "run", "--spec", os.path.join(d, spec)], timeout=900)
                verdict = {0: "ok", 1: "WRONG"}.get(p.returncode, "error")
                st = stats.setdefault(v, {"ok": 0, "WRONG": 0, "error": 0, "s": 0.0})
                st[verdict] += 1
                st["s"] += time.time() - t2
                print("seed 0x%x %-16s %-5s %.1fs" % (seed, v, verdict, time.time() - t2), flush=True)
                if verdict != "ok":
                    keep = os.path.join(a.keep, "0x%x-%s" % (seed, v))
                    shutil.rmtree(keep, ignore_errors=True)
                    shutil.copytree(d, keep)
                    with open(os.path.join(keep, "ptxcross.log"), "w") as f:
                        f.write(p.stdout + p.stderr)
                    fails.append((seed, v, verdict, (p.stdout + p.stderr)[-600:]))
                    print((p.stdout + p.stderr)[-1500:], flush=True)
            if a.save_case:
                out = os.path.join(a.save_case, os.path.splitext(os.path.basename(a.source))[0]
                                   if a.source else "0x%x" % seed)
                os.makedirs(out, exist_ok=True)
                for f in os.listdir(d):
                    if not (a.source and f == "prog.cu"):  # the source stays in found/ only
                        shutil.copy(os.path.join(d, f), out)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print("seed 0x%x: %s" % (seed, e), flush=True)
            fails.append((seed, "-", "harness", str(e)[-600:]))
        finally:
            shutil.rmtree(d, ignore_errors=True)
    print("\n%d programs in %.0f s from seed 0x%x" % (i, time.time() - t0, seed0))
    for v, st in sorted(stats.items()):
        runs = st["ok"] + st["WRONG"] + st["error"]
        print("  %-16s %3d runs: %d ok, %d WRONG, %d error; %.1f s per run" %
              (v, runs, st["ok"], st["WRONG"], st["error"], st["s"] / max(runs, 1)))
    for f in fails:
        print("  FAILED seed 0x%x %s %s" % f[:3])
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
