#!/usr/bin/env bash
# Regenerates the texture-object corpus exactly as committed:
#   ptx/texture.nvcc.ptx  nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
# checked by ptxas 13.5.37 -arch=sm_80. Expected values: tests/tests/texture_e2e.rs (CPU).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../cuda-env.sh
export PATH="$CUDA_BIN:$PATH"
nvcc --version | tail -n 1
mkdir -p ptx
nvcc -arch=sm_80 -ptx src/texture.cu -o ptx/texture.nvcc.ptx
ptxas -arch=sm_80 ptx/texture.nvcc.ptx -o /dev/null
echo "  texture: nvcc (ptxas ok)"
