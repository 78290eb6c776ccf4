#!/usr/bin/env bash
# Regenerates the device-function corpus exactly as committed:
#   ptx/<k>.nvcc.ptx    nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
#   ptx/<k>.nvcc-G.ptx  the same with -G (device debug: no optimisation, local-memory frames)
#   ptx/<k>.clang.ptx   Debian clang-16, CUDA without the SDK (src/clang_shim.h), sm_80, -O2
# Every file is checked by ptxas 13.5.37 -arch=sm_80. The expected outputs are computed in the
# end-to-end test (tests/tests/calls_e2e.rs) by CPU implementations of the kernels, not here.
#
# Compilers: the pinned compilers of tests/cuda-env.sh (a venv in $PTXCROSS_CUDA_VENV, default
# ~/.cache/ptxcross/cuda-venv; this script installs the nvcc wheels there when missing) and
# clang-16 (apt-get install -y clang-16). Afterwards `git status tests/calls` shows no change,
# except in the -G files when run from another checkout: their DWARF holds the absolute source
# path (they were generated in /work/wt/calls).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

KERNELS="noinline recursion mutual byval fnptr trap switch collective"
. ../cuda-env.sh
export PATH="$CUDA_BIN:$PATH"
need_clang
nvcc --version | tail -n 1

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
