#!/usr/bin/env bash
# Regenerates b128.sm_80.ptx exactly as committed: nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx,
# checked by ptxas 13.5.37. Compiler: the pinned nvcc of tests/cuda-env.sh. The expected
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
