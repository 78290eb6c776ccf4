#!/usr/bin/env python3
"""PTX from numba-cuda (no GPU needed: numba.cuda.compile_ptx drives NVVM directly).

usage: python numba_kernels.py OUTDIR
Writes numba_<kernel>.<cc>.ptx for a few kernels at sm_75 and sm_80, plus one with
lineinfo=True and one with debug=True (DWARF sections).
"""
import math
import os
import sys

from numba import cuda, float32, float64, int32, int64, uint32, void


def axpy(r, a, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = a * x[i] + y[i]


def block_sum(x, out):
    tmp = cuda.shared.array(256, dtype=float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    tmp[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            tmp[t] += tmp[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(out, 0, tmp[0])


def math_mix(x, y):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        y[i] = math.sin(v) * math.exp(-v) + math.sqrt(abs(v)) + math.atan2(v, 1.5) + math.erf(v)


def histogram2d(xs, ys, bins):
    i, j = cuda.grid(2)
    if i < xs.shape[0] and j < xs.shape[1]:
        bx = min(int(xs[i, j] * 8.0), 7)
        by = min(int(ys[i, j] * 8.0), 7)
        cuda.atomic.add(bins, (bx, by), 1)


def local_sort(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        buf = cuda.local.array(16, dtype=int64)
        for k in range(16):
            buf[k] = a[i, k]
        for p in range(16):
            for q in range(15 - p):
                if buf[q] > buf[q + 1]:
                    buf[q], buf[q + 1] = buf[q + 1], buf[q]
        for k in range(16):
            a[i, k] = buf[k]


def warp_vote(x, out):
    i = cuda.grid(1)
    if i < x.size:
        mask = cuda.activemask()
        b = cuda.ballot_sync(mask, x[i] > 0)
        v = cuda.shfl_down_sync(mask, x[i], 1)
        out[i] = b ^ uint32(v) ^ cuda.popc(b) + cuda.clz(uint32(x[i]))


KERNELS = [
    ("axpy", axpy, void(float32[:], float32, float32[:], float32[:])),
    ("block_sum", block_sum, void(float32[:], float32[:])),
    ("math_mix", math_mix, void(float64[:], float64[:])),
    ("histogram2d", histogram2d, void(float32[:, :], float32[:, :], int32[:, :])),
    ("local_sort", local_sort, void(int64[:, :])),
    ("warp_vote", warp_vote, void(int32[:], uint32[:])),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, fn, sig in KERNELS:
        for cc in [(7, 5), (8, 0)]:
            ptx, _ = cuda.compile_ptx(fn, sig, cc=cc)
            write(out, f"numba_{name}.sm_{cc[0]}{cc[1]}.ptx", ptx)
    ptx, _ = cuda.compile_ptx(block_sum, KERNELS[1][2], cc=(8, 0), lineinfo=True)
    write(out, "numba_block_sum.sm_80.lineinfo.ptx", ptx)
    ptx, _ = cuda.compile_ptx(axpy, KERNELS[0][2], cc=(8, 0), debug=True, opt=False)
    write(out, "numba_axpy.sm_80.debug.ptx", ptx)


def write(out, name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)
    print(f"  numba-cuda: {name}")


if __name__ == "__main__":
    main()
