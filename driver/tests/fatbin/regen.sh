#!/usr/bin/env bash
# Rebuilds the fatbins and the reference PTX from add.cu with nvcc (CUDA 13: the
# nvidia-cuda-nvcc wheel, see docs/ and design.md). The test compares the PTX ptxcross takes
# out of each fatbin with add.ptx, written by nvcc -ptx.
set -euo pipefail
cd "$(dirname "$0")"
nvcc -ptx -arch=compute_80 add.cu -o add.ptx
# PTX only (compressed with zstd: nvcc's default).
nvcc -fatbin -gencode arch=compute_80,code=compute_80 add.cu -o ptx80.fatbin
# PTX only, uncompressed.
nvcc -fatbin -gencode arch=compute_80,code=compute_80 --no-compress add.cu -o ptx80-plain.fatbin
# SASS and PTX (what -arch=sm_80 embeds), and SASS only.
nvcc -fatbin -arch=sm_80 add.cu -o sm80.fatbin
nvcc -fatbin -gencode arch=compute_80,code=sm_80 add.cu -o sass-only.fatbin
# PTX only, LZ4-compressed (the fatbin flag 0x2000; older nvcc's default).
nvcc -fatbin -gencode arch=compute_80,code=compute_80 -compress-mode=speed add.cu -o ptx80-lz4.fatbin
