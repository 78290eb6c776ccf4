#!/usr/bin/env bash
# Regenerates ptrinit.sm_80.ptx and gridconst.sm_80.ptx exactly as committed: nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx,
# checked by ptxas 13.5.37. Compiler: the pinned nvcc of tests/cuda-env.sh (a venv in
# $PTXCROSS_CUDA_VENV, default ~/.cache/ptxcross/cuda-venv; installed here when missing).
# The expected outputs are computed in tests/tests/module_globals.rs by a CPU version of the
# kernels.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../cuda-env.sh
export PATH="$CUDA_BIN:$PATH"
nvcc --version | tail -n 1
for k in ptrinit gridconst; do
    nvcc -arch=sm_80 -ptx $k.cu -o $k.sm_80.ptx
    ptxas -arch=sm_80 $k.sm_80.ptx -o /dev/null
    echo "  $k: nvcc (ptxas ok)"
done
