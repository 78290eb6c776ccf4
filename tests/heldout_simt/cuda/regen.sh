#!/usr/bin/env bash
# Regenerates the held-out SIMT CUDA kernels exactly as committed:
#   warp_cuda.sm90.ptx   nvcc 13.5.37 (PyPI), -arch=sm_90 -ptx (cooperative groups, cuda_fp16/bf16)
#   warp_cuda.clang.ptx  Debian clang-16, --cuda-device-only -nocudainc -nocudalib, sm_80, PTX 7.5,
#                        -O2, with tests/simt/src/clang_shim.h and clang_extra.h (the kernels that
#                        need no CUDA headers: HELDOUT_CLANG)
# and checks both with ptxas 13.5.37. Then `python3 ../gen.py` rewrites the specs.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../../cuda-env.sh
need_clang
"$CUDA_BIN/nvcc" -arch=sm_90 -ptx warp_cuda.cu -o warp_cuda.sm90.ptx
"$CLANG" --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -O2 -S \
    -Xclang -target-feature -Xclang +ptx75 -DHELDOUT_CLANG \
    -include ../../simt/src/clang_shim.h -include clang_extra.h warp_cuda.cu -o warp_cuda.clang.ptx
"$CUDA_BIN/ptxas" -arch=sm_90 warp_cuda.sm90.ptx -o /dev/null
"$CUDA_BIN/ptxas" -arch=sm_80 warp_cuda.clang.ptx -o /dev/null
echo "warp_cuda: nvcc and clang-16 PTX assemble"
