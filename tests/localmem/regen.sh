#!/usr/bin/env bash
# Regenerates the local-memory corpus exactly as committed:
#   ptx/<k>.nvcc.ptx    nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
# Every file is checked by ptxas 13.5.37 -arch=sm_80. The expected outputs are computed in the
# end-to-end test (tests/tests/local_memory.rs) by CPU implementations of the kernels.
#
# Compiler: the pinned nvcc of tests/cuda-env.sh (a venv in $PTXCROSS_CUDA_VENV, default
# ~/.cache/ptxcross/cuda-venv; installed here when missing). Afterwards
# `git status tests/localmem` shows no change.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

KERNELS="local_array"
. ../cuda-env.sh
export PATH="$CUDA_BIN:$PATH"
nvcc --version | tail -n 1

mkdir -p ptx
for k in $KERNELS; do
    nvcc -arch=sm_80 -ptx "src/$k.cu" -o "ptx/$k.nvcc.ptx"
    ptxas -arch=sm_80 "ptx/$k.nvcc.ptx" -o /dev/null
    echo "  $k: nvcc (ptxas ok)"
done
