#!/usr/bin/env bash
# Regenerates the wmma test kernels exactly as committed:
#   ptx/wmma.sm80.ptx   nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
# and checks it with ptxas 13.5.37. The compilers are the pinned ones of tests/cuda-env.sh.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../cuda-env.sh
mkdir -p ptx
"$CUDA_BIN/nvcc" -arch=sm_80 -ptx src/wmma.cu -o ptx/wmma.sm80.ptx
"$CUDA_BIN/ptxas" -arch=sm_80 ptx/wmma.sm80.ptx -o /dev/null
echo "  wmma: nvcc PTX assembles"
