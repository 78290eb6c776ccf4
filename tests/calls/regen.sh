#!/usr/bin/env bash
# Regenerates the device-function corpus exactly as committed:
#   ptx/<k>.nvcc.ptx    nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
#   ptx/<k>.nvcc-G.ptx  the same with -G (device debug: no optimisation, local-memory frames)
#   ptx/<k>.clang.ptx   Debian clang-16, CUDA without the SDK (src/clang_shim.h), sm_80, -O2
# Every file is checked by ptxas 13.5.37 -arch=sm_80. The expected outputs are computed in the
# end-to-end test (tests/tests/calls_e2e.rs) by CPU implementations of the kernels, not here.
#
# Compilers: the virtual environment of tests/corpus/regen.sh ($PTXCROSS_CUDA_VENV, default
# ~/.cache/ptxcross/cuda-venv; this script installs the nvcc wheels there when missing) and
# clang-16 (apt-get install -y clang-16). Afterwards `git status tests/calls` shows no change.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

KERNELS="noinline recursion mutual byval fnptr trap switch"
VENV="${PTXCROSS_CUDA_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxcross/cuda-venv}"
PY="${PYTHON:-python3}"
CLANG="${CLANG:-clang-16}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
    nvidia-cuda-nvcc==13.5.37 nvidia-nvvm==13.5.37 nvidia-cuda-crt==13.5.37 \
    nvidia-cuda-runtime==13.5.37 nvidia-cuda-cccl==13.3.5.0.6
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
CUDA_BIN="$SITE/nvidia/cu13/bin"
export PATH="$CUDA_BIN:$PATH"
if ! command -v "$CLANG" >/dev/null 2>&1; then
    echo "regen.sh: $CLANG not found (apt-get install -y clang-16)" >&2
    exit 1
fi
nvcc --version | tail -n 1
"$CLANG" --version | head -n 1

mkdir -p ptx
for k in $KERNELS; do
    nvcc -arch=sm_80 -ptx "src/$k.cu" -o "ptx/$k.nvcc.ptx"
    nvcc -arch=sm_80 -G -ptx "src/$k.cu" -o "ptx/$k.nvcc-G.ptx"
    "$CLANG" --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 \
        -Xclang -target-feature -Xclang +ptx75 -O2 -S -include src/clang_shim.h \
        "src/$k.cu" -o "ptx/$k.clang.ptx"
    ptxas -arch=sm_80 "ptx/$k.nvcc.ptx" -o /dev/null
    ptxas -arch=sm_80 "ptx/$k.nvcc-G.ptx" -o /dev/null
    ptxas -arch=sm_80 "ptx/$k.clang.ptx" -o /dev/null
    echo "  $k: nvcc, nvcc -G, clang-16 (ptxas ok)"
done
