#!/usr/bin/env bash
# Regenerates the f64 division corpus exactly as committed:
#   ptx/f64math.nvcc.ptx    nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
#   ptx/f64math.nvcc-G.ptx  the same with -G (device debug, no optimisation; the checkout path
#                           in its DWARF file table is made relative so any checkout regenerates
#                           the same bytes)
# Both are checked by ptxas 13.5.37 -arch=sm_80. The expected outputs are computed in the test
# (tests/tests/f64_divsqrt.rs) with Rust's f64 `/` and `sqrt`, which are IEEE correctly rounded.
#
# Compiler: the pinned nvcc of tests/cuda-env.sh (a venv in $PTXCROSS_CUDA_VENV, default
# ~/.cache/ptxcross/cuda-venv, filled when missing). Afterwards `git status tests/f64math`
# shows no change.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

. ../cuda-env.sh
export PATH="$CUDA_BIN:$PATH"
nvcc --version | tail -n 1

mkdir -p ptx
nvcc -arch=sm_80 -ptx src/f64math.cu -o ptx/f64math.nvcc.ptx
nvcc -arch=sm_80 -G -ptx src/f64math.cu -o ptx/f64math.nvcc-G.ptx
sed -i "s|\"$HERE/|\"|" ptx/f64math.nvcc-G.ptx
ptxas -arch=sm_80 ptx/f64math.nvcc.ptx -o /dev/null
ptxas -arch=sm_80 ptx/f64math.nvcc-G.ptx -o /dev/null
echo "  f64math: nvcc, nvcc -G (ptxas ok)"
