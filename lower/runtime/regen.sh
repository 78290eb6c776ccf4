#!/usr/bin/env bash
# Regenerates lower/runtime/malloc.ptx (CUDA's device-side malloc/free for ptxcross) exactly
# as committed: nvcc 13.5.37 (PyPI, the pinned compilers of tests/cuda-env.sh), -arch=sm_75
# -rdc=true -ptx (-O3), checked by ptxas 13.5.37 -arch=sm_75 -c.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../../tests/cuda-env.sh
export PATH="$CUDA_BIN:$PATH"
nvcc --version | tail -n 1
nvcc -arch=sm_75 -rdc=true -ptx malloc.cu -o malloc.ptx
ptxas -arch=sm_75 -c malloc.ptx -o /dev/null
echo "  malloc: nvcc (ptxas ok)"
