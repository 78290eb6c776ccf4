#!/usr/bin/env bash
# Regenerates the local-memory corpus exactly as committed:
#   ptx/<k>.nvcc.ptx    nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
# Every file is checked by ptxas 13.5.37 -arch=sm_80. The expected outputs are computed in the
# end-to-end test (tests/tests/local_memory.rs) by CPU implementations of the kernels.
#
# Compiler: the virtual environment of tests/corpus/regen.sh ($PTXCROSS_CUDA_VENV, default
# ~/.cache/ptxcross/cuda-venv; installed here when missing). Afterwards
# `git status tests/localmem` shows no change.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

KERNELS="local_array"
VENV="${PTXCROSS_CUDA_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxcross/cuda-venv}"
PY="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
    nvidia-cuda-nvcc==13.5.37 nvidia-nvvm==13.5.37 nvidia-cuda-crt==13.5.37 \
    nvidia-cuda-runtime==13.5.37 nvidia-cuda-cccl==13.3.5.0.6
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
CUDA_BIN="$SITE/nvidia/cu13/bin"
export PATH="$CUDA_BIN:$PATH"
nvcc --version | tail -n 1

mkdir -p ptx
for k in $KERNELS; do
    nvcc -arch=sm_80 -ptx "src/$k.cu" -o "ptx/$k.nvcc.ptx"
    ptxas -arch=sm_80 "ptx/$k.nvcc.ptx" -o /dev/null
    echo "  $k: nvcc (ptxas ok)"
done
