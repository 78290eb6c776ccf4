"""Ordinary numba-cuda kernels run through libcuda.so.1 = ptxcross; every result is checked
against NumPy. numba compiles with NVIDIA's NVVM from PyPI (no GPU needed) and reaches the
driver through cuda-python. Run with LD_LIBRARY_PATH pointing at the library (see README)."""
import os
import sys

import numpy as np
from numba import cuda

failures = []


def check(name, got, want):
    if np.array_equal(got, want):
        print(f"{name}: ok")
    else:
        bad = np.flatnonzero(np.asarray(got).ravel() != np.asarray(want).ravel())
        i = bad[0]
        failures.append(name)
        print(f"{name}: MISMATCH at {i}: got {np.asarray(got).ravel()[i]}, want {np.asarray(want).ravel()[i]} ({bad.size} wrong)")


@cuda.jit
def axpb(out, x, y, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def reverse_blocks(out, x):
    # Shared memory + syncthreads: each block reverses its slice.
    tile = cuda.shared.array(128, dtype=np.int32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * 128
    tile[t] = x[base + t]
    cuda.syncthreads()
    out[base + t] = tile[127 - t]


@cuda.jit
def histogram(hist, x):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(hist, x[i] % 16, 1)


@cuda.jit
def block_sums(out, x):
    # Tree reduction in shared memory, one partial sum per block, combined with an atomic.
    # (int32: 64-bit atomics, atom.add.u64, are not translated yet.)
    buf = cuda.shared.array(256, dtype=np.int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(out, 0, buf[0])


@cuda.jit
def transpose_scale(out, m, k):
    # A 2-D grid of 2-D blocks.
    r, c = cuda.grid(2)
    if r < m.shape[0] and c < m.shape[1]:
        out[c, r] = m[r, c] * k


clamp_mix = cuda.declare_device("clamp_mix", "int32(int32, int32)")
HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "numba_link_helper.cu")


@cuda.jit(link=[HELPER])
def linked_call(out, x, hi):
    # Two PTX modules (numba's and NVRTC's from the .cu file) linked by cuLinkComplete.
    i = cuda.grid(1)
    if i < x.size:
        out[i] = clamp_mix(x[i], hi)


def main():
    rng = np.random.default_rng(8)
    dev = cuda.get_current_device()
    print(f"device: {dev.name.decode() if isinstance(dev.name, bytes) else dev.name}, cc {dev.compute_capability}")
    free, total = cuda.current_context().get_memory_info()
    assert total > 0 and 0 < free <= total, (free, total)

    n = 10_000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = cuda.device_array(n, dtype=np.float32)
    axpb[(n + 255) // 256, 256](out, cuda.to_device(x), cuda.to_device(y), np.float32(2.5))
    # numba contracts a*x+y into fma.rn.f32: one rounding, which NumPy's float64 computation
    # rounded once to float32 reproduces exactly.
    want = (np.float64(2.5) * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)
    check("elementwise a*x+y", out.copy_to_host(), want)

    v = np.arange(128 * 20, dtype=np.int32) * 7
    d_out = cuda.device_array_like(v)
    reverse_blocks[20, 128](d_out, cuda.to_device(v))
    check("shared memory + syncthreads", d_out.copy_to_host(), v.reshape(20, 128)[:, ::-1].ravel())

    keys = rng.integers(0, 1 << 20, size=5000).astype(np.int32)
    hist = cuda.to_device(np.zeros(16, dtype=np.int32))
    histogram[(keys.size + 127) // 128, 128](hist, cuda.to_device(keys))
    check("atomic histogram", hist.copy_to_host(), np.bincount(keys % 16, minlength=16).astype(np.int32))

    vals = rng.integers(-1000, 1000, size=70_000).astype(np.int32)
    total_d = cuda.to_device(np.zeros(1, dtype=np.int32))
    block_sums[(vals.size + 255) // 256, 256](total_d, cuda.to_device(vals))
    check("shared-memory reduction", total_d.copy_to_host(), np.array([vals.sum()], dtype=np.int32))

    m = rng.integers(-50, 50, size=(37, 53)).astype(np.int32)
    t_out = cuda.device_array((53, 37), dtype=np.int32)
    transpose_scale[(3, 4), (16, 16)](t_out, cuda.to_device(m), np.int32(3))
    check("2-D grid transpose", t_out.copy_to_host(), (m * 3).T)

    xs = rng.integers(-3000, 3000, size=4000).astype(np.int32)
    l_out = cuda.device_array_like(xs)
    linked_call[(xs.size + 127) // 128, 128](l_out, cuda.to_device(xs), np.int32(2000))
    check("link= a CUDA C device function", l_out.copy_to_host(), np.minimum((xs ^ 0x5A) * 3, 2000).astype(np.int32))

    if failures:
        print(f"FAILED: {', '.join(failures)}")
        return 1
    print("all numba kernels passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
