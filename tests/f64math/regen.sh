#!/usr/bin/env bash
# Regenerates the f64 division corpus exactly as committed:
#   ptx/f64math.nvcc.ptx    nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
#   ptx/f64math.nvcc-G.ptx  the same with -G (device debug, no optimisation)
# Both are checked by ptxas 13.5.37 -arch=sm_80. The expected outputs are computed in the test
# (tests/tests/f64_divsqrt.rs) with Rust's f64 `/` and `sqrt`, which are IEEE correctly rounded.
#
# Compiler: the virtual environment of tests/corpus/regen.sh ($PTXCROSS_CUDA_VENV, default
# ~/.cache/ptxcross/cuda-venv; installed here when missing). Afterwards `git status tests/f64math`
# shows no change.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

VENV="${PTXCROSS_CUDA_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxcross/cuda-venv}"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
    nvidia-cuda-nvcc==13.5.37 nvidia-nvvm==13.5.37 nvidia-cuda-crt==13.5.37 \
    nvidia-cuda-runtime==13.5.37 nvidia-cuda-cccl==13.3.5.0.6
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
export PATH="$SITE/nvidia/cu13/bin:$PATH"
nvcc --version | tail -n 1

mkdir -p ptx
nvcc -arch=sm_80 -ptx src/f64math.cu -o ptx/f64math.nvcc.ptx
nvcc -arch=sm_80 -G -ptx src/f64math.cu -o ptx/f64math.nvcc-G.ptx
ptxas -arch=sm_80 ptx/f64math.nvcc.ptx -o /dev/null
ptxas -arch=sm_80 ptx/f64math.nvcc-G.ptx -o /dev/null
echo "  f64math: nvcc, nvcc -G (ptxas ok)"
