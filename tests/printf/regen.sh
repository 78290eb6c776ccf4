#!/usr/bin/env bash
# Regenerates the device-side printf corpus exactly as committed:
#   ptx/printf.nvcc.ptx  nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
# checked by ptxas 13.5.37 -arch=sm_80. The expected text is computed in the end-to-end test
# (tests/tests/printf_e2e.rs) by the host C library's snprintf on values computed there.
# Compilers: the pinned nvcc of tests/cuda-env.sh (installed there when missing).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../cuda-env.sh
export PATH="$CUDA_BIN:$PATH"
nvcc --version | tail -n 1
mkdir -p ptx
nvcc -arch=sm_80 -ptx src/printf.cu -o ptx/printf.nvcc.ptx
ptxas -arch=sm_80 ptx/printf.nvcc.ptx -o /dev/null
echo "  printf: nvcc (ptxas ok)"
