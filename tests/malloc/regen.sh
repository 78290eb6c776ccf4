#!/usr/bin/env bash
# Regenerates the device-side malloc/free corpus exactly as committed:
#   ptx/malloc.nvcc.ptx  nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
# checked by ptxas 13.5.37 -arch=sm_80. Expected values: tests/tests/malloc_e2e.rs (CPU).
# Compilers: the pinned nvcc of tests/cuda-env.sh (installed there when missing).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../cuda-env.sh
export PATH="$CUDA_BIN:$PATH"
nvcc --version | tail -n 1
mkdir -p ptx
nvcc -arch=sm_80 -ptx src/malloc.cu -o ptx/malloc.nvcc.ptx
ptxas -arch=sm_80 ptx/malloc.nvcc.ptx -o /dev/null
echo "  malloc: nvcc (ptxas ok)"
