#!/usr/bin/env python3
"""Writes the launch specs of the wgmma test kernels (tests/nvidia/wgmma/*.json): inputs and
expected outputs from a CPU reference written from the ISA, independent of ptxcross.

- wgmma: D = A·B over K = 64 (four k16 steps; the first with scale-d = 0, so D's initial
  registers are discarded), A 64×64 and B 64×N of small integers, exact in f16/bf16 and in
  every accumulation order. `imm-scale-a = -1` (the f16-accumulator kernel) negates A; the
  A-in-registers kernel has `imm-scale-b = -1` and N = 24.
- stmatrix (§9.7.15.4.16, Figure 82): lane t's register i holds the 16-bit values
  2·(32i + t) (low) and 2·(32i + t) + 1 (high): row t/4, elements 2·(t%4), 2·(t%4)+1 of
  matrix i. Row r of matrix i is stored at byte 256·i + 32·r (the row addresses the kernel's
  lanes give); `.trans` stores column r there instead.

Run: python3 gen_specs.py (from this folder). The same specs are the lavapipe test
(tests/tests/wgmma.rs) and the NVIDIA check (tests/nvidia/run_specs.py).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "nvidia", "wgmma")
PTX = "../../wgmma/ptx/wgmma.sm90a.ptx"
SWIZZLES = {0: "none", 1: "sw128", 2: "sw64", 3: "sw32"}


def a_value(m, k):
    return (m * 3 + k * 5) % 7 - 3


def b_value(k, n):
    return (k * 2 + n * 7) % 5 - 2


def matmul(n_cols, sign_a=1, sign_b=1, n_mem=None):
    """D[m][n] = Σ_k (sign_a·A[m][k])·(sign_b·B[k][n]), m < 64, n < n_cols, k < 64."""
    return [[sum(sign_a * a_value(m, k) * sign_b * b_value(k, n) for k in range(64)) for n in range(n_cols)] for m in range(64)]


def write(name, spec):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(spec, f)
        f.write("\n")


def a_buffer(ty):
    return {"type": ty, "values": [str(a_value(m, k)) for m in range(64) for k in range(64)]}


def b_buffer(ty, n_cols):
    return {"type": ty, "values": [str(b_value(k, n)) for k in range(64) for n in range(n_cols)]}


def mma_spec(kernel, in_ty, d_ty, n_cols, swz, d_values, b_cols_in_memory=None):
    b_cols = b_cols_in_memory or n_cols
    return {
        "ptx": PTX,
        "kernel": kernel,
        "grid": [1, 1, 1],
        "block": [128, 1, 1],
        "dynamic_shared_bytes": 0,
        "buffers": {
            "a": a_buffer(in_ty),
            "b": b_buffer(in_ty, b_cols),
            "d": {"zeros": 64 * n_cols * (4 if d_ty == "f32" else 2)},
        },
        "args": [{"buffer": "a"}, {"buffer": "b"}, {"buffer": "d"}, {"type": "u32", "value": swz}],
        "expect": {"d": {"type": d_ty, "values": [str(v) for row in d_values for v in row]}},
    }


def main():
    d = matmul(64)
    for swz, sname in SWIZZLES.items():
        for ta in (0, 1):
            for tb in (0, 1):
                write(f"wgmma_f16_t{ta}{tb}_{sname}", mma_spec(f"wgmma_f16_t{ta}{tb}", "f16", "f32", 64, swz, d))
        write(f"wgmma_bf16_t01_{sname}", mma_spec("wgmma_bf16_t01", "bf16", "f32", 64, swz, d))
        write(f"wgmma_f16acc_t01_{sname}", mma_spec("wgmma_f16acc_t01", "f16", "f16", 64, swz, matmul(64, sign_a=-1)))
        write(f"wgmma_rega_{sname}", mma_spec("wgmma_rega", "f16", "f32", 24, swz, matmul(24, sign_b=-1), b_cols_in_memory=64))
    for trans in (0, 1):
        tile = [0xBEEF, 0xDEAD] * (4 * 8 * 8)  # 16-bit elements, little-endian halves of 0xdeadbeef
        for i in range(4):
            for t in range(32):
                for e in range(2):
                    value = 2 * (32 * i + t) + e
                    row, col = t // 4, 2 * (t % 4) + e
                    if trans:
                        row, col = col, row
                    tile[(256 * i + 32 * row) // 2 + col] = value
        words = [tile[2 * w] | tile[2 * w + 1] << 16 for w in range(len(tile) // 2)]
        write(f"stmatrix_x4{'_trans' if trans else ''}", {
            "ptx": PTX,
            "kernel": "stmatrix_x4",
            "grid": [1, 1, 1],
            "block": [32, 1, 1],
            "dynamic_shared_bytes": 0,
            "buffers": {"out": {"zeros": 4 * len(words)}},
            "args": [{"buffer": "out"}, {"type": "u32", "value": trans}],
            "expect": {"out": {"type": "u32", "values": [f"0x{w:08x}" for w in words]}},
        })


main()
