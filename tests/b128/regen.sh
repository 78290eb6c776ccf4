#!/usr/bin/env bash
# Regenerates b128.sm_80.ptx and atomic128.sm_90.ptx exactly as committed: nvcc 13.5.37
# (PyPI), -arch=sm_80 (sm_90 for the 128-bit atomics) -ptx, checked by ptxas 13.5.37. Compiler: the pinned nvcc of tests/cuda-env.sh. The expected
# outputs are computed in tests/tests/b128.rs by a CPU version of the kernels.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../cuda-env.sh
export PATH="$CUDA_BIN:$PATH"
nvcc --version | tail -n 1
nvcc -arch=sm_80 -ptx b128.cu -o b128.sm_80.ptx
ptxas -arch=sm_80 b128.sm_80.ptx -o /dev/null
echo "  b128: nvcc (ptxas ok)"
nvcc -arch=sm_90 -ptx atomic128.cu -o atomic128.sm_90.ptx
ptxas -arch=sm_90 atomic128.sm_90.ptx -o /dev/null
echo "  atomic128: nvcc (ptxas ok)"
