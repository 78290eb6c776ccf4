#!/usr/bin/env bash
# Regenerates the SIMT test kernels exactly as committed:
#   ptx/<k>.sm80.ptx   nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
#   ptx/<k>.clang.ptx  Debian clang-16, --cuda-device-only -nocudainc -nocudalib, sm_80, PTX 7.5, -O2
#   ptx/{cub,lookback_scan}.sm80.ptx   nvcc only (CUB needs the CUDA headers: the cccl wheel's,
#                      through nvcc)
#   ptx/{histogram64,warp}.nvrtc.ptx  NVRTC 12.9.86 (PyPI nvidia-cuda-nvrtc-cu12), compute_60
#                      (through tests/corpus/nvrtc_ptx.py), checked with ptxas 13.5.37 -arch=sm_80
# and checks every file with ptxas 13.5.37. The compilers are the pinned ones of tests/cuda-env.sh, in the same virtual environment
# as tests/corpus/regen.sh ($PTXCROSS_CUDA_VENV, default ~/.cache/ptxcross/cuda-venv).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
KERNELS="histogram histogram64 shared64 fence reduce_guard tiled_sum warp bar_red sort match named_barriers meeting"
. ../cuda-env.sh nvidia-cuda-nvrtc-cu12==12.9.86
NVCC="$CUDA_BIN/nvcc"
PTXAS="$CUDA_BIN/ptxas"
mkdir -p ptx
for k in $KERNELS; do
    "$NVCC" -arch=sm_80 -ptx "src/$k.cu" -o "ptx/$k.sm80.ptx"
    clang-16 --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -O2 -S \
        -Xclang -target-feature -Xclang +ptx75 \
        -include src/clang_shim.h "src/$k.cu" -o "ptx/$k.clang.ptx"
    "$PTXAS" -arch=sm_80 "ptx/$k.sm80.ptx" -o /dev/null
    "$PTXAS" -arch=sm_80 "ptx/$k.clang.ptx" -o /dev/null
    echo "  $k: nvcc and clang-16 PTX assemble"
done
for k in cub lookback_scan; do
    "$NVCC" -arch=sm_80 -ptx "src/$k.cu" -o "ptx/$k.sm80.ptx"
    "$PTXAS" -arch=sm_80 "ptx/$k.sm80.ptx" -o /dev/null
    echo "  $k: nvcc PTX assembles"
done
for k in histogram64 warp; do
    "$VENV/bin/python" ../corpus/nvrtc_ptx.py "$SITE/nvidia/cuda_nvrtc/lib/libnvrtc.so.12" \
        "src/$k.cu" "ptx/$k.nvrtc.ptx" --gpu-architecture=compute_60
    "$PTXAS" -arch=sm_80 "ptx/$k.nvrtc.ptx" -o /dev/null
    echo "  $k: NVRTC PTX assembles"
done
