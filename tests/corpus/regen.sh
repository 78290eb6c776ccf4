#!/usr/bin/env bash
# Regenerates the conformance corpus exactly as committed:
#   ptx/<k>.sm80.ptx   nvcc 13.5.37 (PyPI), -arch=sm_80 -ptx, default optimisation (-O3)
#   ptx/<k>.sm52.ptx   NVRTC 12.9.86 (PyPI nvidia-cuda-nvrtc-cu12), --gpu-architecture=compute_52
#   every PTX file is checked by ptxas: sm80 files with ptxas 13.5.37 -arch=sm_80; sm52 files with
#   ptxas 12.9.86 -arch=sm_52 (13.x dropped sm_52) and with ptxas 13.5.37 -arch=sm_80
#   data/, specs/      written by the independent CPU reference, reference/gen.py
# Then reference/hostcheck.sh (if g++ is there) runs the CUDA sources on the host through a shim
# and compares them with the reference's expected outputs.
#
# The compilers live in a virtual environment outside the repository:
#   $PTXCROSS_CUDA_VENV (default ~/.cache/ptxcross/cuda-venv). Needs python3 (3.9+) and gcc
#   (nvcc runs the host preprocessor even with -ptx). Afterwards `git status tests/corpus`
#   should show no change.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

KERNELS="saxpy vecadd transpose reduce mandelbrot hash"
PY="${PYTHON:-python3}"
. ../cuda-env.sh nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-nvcc-cu12==12.9.86
export PATH="$CUDA_BIN:$PATH"
NVCC="$CUDA_BIN/nvcc"
PTXAS="$CUDA_BIN/ptxas"
# ptxas 13.x no longer knows sm_52 (CUDA 13 dropped Maxwell); the cu12 nvcc wheel ships ptxas 12.9.
PTXAS12="$SITE/nvidia/cuda_nvcc/bin/ptxas"
LIBNVRTC="$SITE/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"
export PATH="$CUDA_BIN:$PATH"

"$NVCC" --version | tail -n 2
mkdir -p ptx
for k in $KERNELS; do
    # nvcc 13.5: PTX ISA 9.5, target sm_80.
    "$NVCC" -arch=sm_80 -ptx "src/$k.cu" -o "ptx/$k.sm80.ptx"
    echo "  nvcc -arch=sm_80 -ptx: src/$k.cu -> ptx/$k.sm80.ptx"
    # NVRTC 12.9: PTX ISA 8.8, target sm_52 (prints a deprecation warning for pre-sm_75 targets
    # into its log only; the PTX is unaffected).
    "$VENV/bin/python" nvrtc_ptx.py "$LIBNVRTC" "src/$k.cu" "ptx/$k.sm52.ptx" \
        --gpu-architecture=compute_52
done

for k in $KERNELS; do
    "$PTXAS" -arch=sm_80 "ptx/$k.sm80.ptx" -o /dev/null
    "$PTXAS12" -arch=sm_52 "ptx/$k.sm52.ptx" -o /dev/null
    "$PTXAS" -arch=sm_80 "ptx/$k.sm52.ptx" -o /dev/null
done
echo "ptxas: all PTX files assemble ($("$PTXAS" --version | grep -o "V[0-9][0-9.]*"), $("$PTXAS12" --version | grep -o "V[0-9][0-9.]*"))"

"$PY" reference/gen.py

if command -v g++ >/dev/null 2>&1; then
    bash reference/hostcheck.sh
else
    echo "g++ not found: skipped reference/hostcheck.sh"
fi
