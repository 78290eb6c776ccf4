#!/usr/bin/env bash
# Regenerates the kernel-speed benchmark's extra kernel (tests/tests/kernel_speed.rs; the other
# four are the conformance corpus's): ptx/matmul.sm80.ptx with nvcc 13.5.37 (PyPI),
# -arch=sm_80 -ptx, default optimisation, checked by ptxas 13.5.37.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../cuda-env.sh
"$CUDA_BIN/nvcc" -arch=sm_80 -ptx src/matmul.cu -o ptx/matmul.sm80.ptx
"$CUDA_BIN/ptxas" -arch=sm_80 ptx/matmul.sm80.ptx -o /dev/null
echo "ptx/matmul.sm80.ptx: $("$CUDA_BIN/nvcc" --version | tail -n 1)"
