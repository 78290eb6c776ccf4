#!/usr/bin/env bash
# Regenerates ptx/fastmath.sm80.ptx exactly as committed: nvcc 13.5.37 (PyPI, the pinned
# compilers of tests/cuda-env.sh), -arch=sm_80 -use_fast_math -ptx (tanh.approx needs sm_75+),
# checked with ptxas 13.5.37.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../cuda-env.sh
"$CUDA_BIN/nvcc" -arch=sm_80 -use_fast_math -ptx src/fastmath.cu -o ptx/fastmath.sm80.ptx
"$CUDA_BIN/ptxas" -arch=sm_80 ptx/fastmath.sm80.ptx -o /dev/null
echo "  fastmath: nvcc PTX assembles"
