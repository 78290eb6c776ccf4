#!/usr/bin/env bash
# Regenerates the wgmma test kernels exactly as committed:
#   src/wgmma.cu            gen_cu.py (the accumulator register lists are long)
#   ptx/wgmma.sm90a.ptx     nvcc 13.5.37 (PyPI), -arch=sm_90a -ptx, default optimisation (-O3)
# and checks it with ptxas 13.5.37. The compilers are the pinned ones of tests/cuda-env.sh.
# The launch specs for the NVIDIA check (tests/nvidia/wgmma/*.json) are written by
# `cargo test -p ptxcross-tests --test wgmma write_nvidia_specs -- --ignored`.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../cuda-env.sh
python3 gen_cu.py
mkdir -p ptx
"$CUDA_BIN/nvcc" -arch=sm_90a -ptx src/wgmma.cu -o ptx/wgmma.sm90a.ptx
"$CUDA_BIN/ptxas" -arch=sm_90a ptx/wgmma.sm90a.ptx -o /dev/null
echo "  wgmma: nvcc PTX assembles"
