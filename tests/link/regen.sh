#!/usr/bin/env bash
# Regenerates the separate-compilation corpus exactly as committed:
#   ptx/<unit>.nvcc.ptx   nvcc 13.5.37 (PyPI), -arch=sm_80 -rdc=true -ptx (-O3)
#   ptx/<unit>.clang.ptx  Debian clang-16, CUDA without the SDK (../calls/src/clang_shim.h), sm_80, -O2,
#                         -fgpu-rdc
# for the two translation units src/kernel.cu and src/helper.cu, which only work once linked.
# Every file is checked by ptxas 13.5.37 -arch=sm_80 -c (relocatable), and each compiler's pair
# by nvlink, so the inputs are ones NVIDIA's own linker accepts. The expected outputs are
# computed by a CPU implementation in tests/tests/link_e2e.rs, not here.
#
# Compilers: the pinned compilers of tests/cuda-env.sh (a venv in $PTXCROSS_CUDA_VENV, default
# ~/.cache/ptxcross/cuda-venv; this script installs the nvcc wheels there when missing) and
# clang-16 (apt-get install -y clang-16). Afterwards `git status tests/link` shows no change.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

. ../cuda-env.sh
export PATH="$CUDA_BIN:$PATH"
need_clang
nvcc --version | tail -n 1

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p ptx
for u in kernel helper; do
    nvcc -arch=sm_80 -rdc=true -ptx "src/$u.cu" -o "ptx/$u.nvcc.ptx"
    "$CLANG" --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -fgpu-rdc \
        -Xclang -target-feature -Xclang +ptx75 -O2 -S -include ../calls/src/clang_shim.h \
        "src/$u.cu" -o "ptx/$u.clang.ptx"
    for c in nvcc clang; do
        ptxas -arch=sm_80 -c "ptx/$u.$c.ptx" -o "$TMP/$u.$c.o"
    done
done
for c in nvcc clang; do
    nvlink -arch=sm_80 "$TMP/kernel.$c.o" "$TMP/helper.$c.o" -o "$TMP/linked.$c.cubin"
    echo "  $c: kernel + helper (ptxas -c ok, nvlink ok)"
done
