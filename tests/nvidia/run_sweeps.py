#!/usr/bin/env python3
"""Runs the instruction-sweep cases dumped by PTXCROSS_SWEEP_DUMP on an NVIDIA GPU.

usage: python3 tests/nvidia/run_sweeps.py DIR

For every DIR/<key>.ptx (a kernel `sweep(.param .u64 out, .param .u64 in, .param .u32 n)`,
256 threads per CTA) with its <key>.in and <key>.shape, loads the PTX through the CUDA driver
(CuPy's RawModule: cuModuleLoadData, so the driver's own PTX JIT compiles it), runs it and
writes <key>.out. Then PTXCROSS_SWEEP_NVIDIA=DIR makes the sweep tests judge these outputs with
the spec references (see tests/src/nvidia.rs).
"""
import glob
import os
import sys

import cupy as cp
import numpy as np

BLOCK = 256


def main():
    d = sys.argv[1]
    cases = sorted(glob.glob(os.path.join(d, "*.ptx")))
    failed = 0
    for ptx_path in cases:
        base = ptx_path[:-4]
        ns, nd, n = (int(x) for x in open(base + ".shape").read().split())
        inputs = np.fromfile(base + ".in", dtype=np.uint64)
        assert inputs.size == ns * n, base
        try:
            mod = cp.RawModule(path=ptx_path)
            fn = mod.get_function("sweep")
        except Exception as e:  # a PTX the driver refuses is reported, not fatal
            print(f"{os.path.basename(base)}: load failed: {e}")
            with open(base + ".err", "w") as f:
                f.write(f"the CUDA driver refused the PTX: {e}\n")
            failed += 1
            continue
        d_in = cp.asarray(inputs)
        d_out = cp.zeros(max(n * nd, 1), dtype=cp.uint64)
        grid = (n + BLOCK - 1) // BLOCK
        fn((grid,), (BLOCK,), (d_out, d_in, np.uint32(n)))
        cp.cuda.Device().synchronize()
        cp.asnumpy(d_out)[: n * nd].tofile(base + ".out")
    print(f"{len(cases)} cases run, {failed} not loaded")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
