"""cuda-python (cuda.bindings.driver) with NVRTC from PyPI: compile a kernel to PTX, load it
through libcuda.so.1 = ptxcross, launch it, check the result with NumPy."""
import ctypes
import sys

import numpy as np
from cuda.bindings import driver as cu
from cuda.bindings import nvrtc

SOURCE = r"""
extern "C" __global__ void saxpy_clamp(float a, const float *x, float *y, int n, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = a * x[i] + y[i];
        y[i] = fminf(fmaxf(v, lo), hi);
    }
}
"""


def ok(result):
    err, *rest = result
    if isinstance(err, cu.CUresult) and err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"driver error {err.name}")
    if isinstance(err, nvrtc.nvrtcResult) and err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"nvrtc error {err}")
    return rest[0] if len(rest) == 1 else rest


def compile_ptx():
    prog = ok(nvrtc.nvrtcCreateProgram(SOURCE.encode(), b"saxpy_clamp.cu", 0, [], []))
    opts = [b"--gpu-architecture=compute_75", b"--fmad=false"]
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        size = ok(nvrtc.nvrtcGetProgramLogSize(prog))
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(log.decode())
    size = ok(nvrtc.nvrtcGetPTXSize(prog))
    ptx = b" " * size
    ok(nvrtc.nvrtcGetPTX(prog, ptx))
    return ptx


def main():
    ptx = compile_ptx()
    ok(cu.cuInit(0))
    dev = ok(cu.cuDeviceGet(0))
    ctx = ok(cu.cuDevicePrimaryCtxRetain(dev))
    ok(cu.cuCtxSetCurrent(ctx))
    name = ok(cu.cuDeviceGetName(256, dev))
    print("device:", name.split(b"\0")[0].decode())
    module = ok(cu.cuModuleLoadData(ptx))
    kernel = ok(cu.cuModuleGetFunction(module, b"saxpy_clamp"))

    n = 3000
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    nbytes = x.nbytes
    dx = ok(cu.cuMemAlloc(nbytes))
    dy = ok(cu.cuMemAlloc(nbytes))
    stream = ok(cu.cuStreamCreate(0))
    ok(cu.cuMemcpyHtoDAsync(dx, x.ctypes.data, nbytes, stream))
    ok(cu.cuMemcpyHtoDAsync(dy, y.ctypes.data, nbytes, stream))
    a, lo, hi = np.float32(1.75), np.float32(-1.0), np.float32(2.0)
    # (values, ctypes types): cuda-python packs each argument as its C type.
    args = ((a, int(dx), int(dy), n, lo, hi),
            (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_float, ctypes.c_float))
    ok(cu.cuLaunchKernel(kernel, (n + 255) // 256, 1, 1, 256, 1, 1, 0, stream, args, 0))
    out = np.empty_like(y)
    ok(cu.cuMemcpyDtoHAsync(out.ctypes.data, dy, nbytes, stream))
    ok(cu.cuStreamSynchronize(stream))
    # --fmad=false: a*x rounds, then +y rounds: exactly NumPy's float32 arithmetic.
    want = np.minimum(np.maximum(a * x + y, lo), hi)
    if not np.array_equal(out, want):
        i = np.flatnonzero(out != want)[0]
        print(f"MISMATCH at {i}: got {out[i]}, want {want[i]}")
        return 1
    ok(cu.cuMemFree(dx))
    ok(cu.cuMemFree(dy))
    ok(cu.cuModuleUnload(module))
    ok(cu.cuDevicePrimaryCtxRelease(dev))
    print("cuda-python + NVRTC saxpy_clamp: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
