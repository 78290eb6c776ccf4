#!/usr/bin/env bash
# Regenerates ptx/fp8_roundtrip.sm90.ptx exactly as committed: nvcc 13.5.37 (PyPI, the pinned
# compilers of tests/cuda-env.sh), -arch=sm_90 -ptx (FP8 conversions need sm_89+), checked with
# ptxas 13.5.37.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../cuda-env.sh
"$CUDA_BIN/nvcc" -arch=sm_90 -ptx src/fp8_roundtrip.cu -o ptx/fp8_roundtrip.sm90.ptx
"$CUDA_BIN/ptxas" -arch=sm_90 ptx/fp8_roundtrip.sm90.ptx -o /dev/null
echo "  fp8_roundtrip: nvcc PTX assembles"
