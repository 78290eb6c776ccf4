#!/usr/bin/env bash
# Regenerates the separate-compilation corpus exactly as committed:
#   ptx/<unit>.nvcc.ptx   nvcc 13.5.37 (PyPI), -arch=sm_80 -rdc=true -ptx (-O3)
#   ptx/<unit>.clang.ptx  Debian clang-16, CUDA without the SDK (src/clang_shim.h), sm_80, -O2,
#                         -fgpu-rdc
# for the two translation units src/kernel.cu and src/helper.cu, which only work once linked.
# Every file is checked by ptxas 13.5.37 -arch=sm_80 -c (relocatable), and each compiler's pair
# by nvlink, so the inputs are ones NVIDIA's own linker accepts. The expected outputs are
# computed by a CPU implementation in tests/tests/link_e2e.rs, not here.
#
# Compilers: the virtual environment of tests/corpus/regen.sh ($PTXCROSS_CUDA_VENV, default
# ~/.cache/ptxcross/cuda-venv; this script installs the nvcc wheels there when missing) and
# clang-16 (apt-get install -y clang-16). Afterwards `git status tests/link` shows no change.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

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
export PATH="$SITE/nvidia/cu13/bin:$PATH"
command -v "$CLANG" >/dev/null 2>&1 || { echo "regen.sh: $CLANG not found (apt-get install -y clang-16)" >&2; exit 1; }
nvcc --version | tail -n 1
"$CLANG" --version | head -n 1

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p ptx
for u in kernel helper; do
    nvcc -arch=sm_80 -rdc=true -ptx "src/$u.cu" -o "ptx/$u.nvcc.ptx"
    "$CLANG" --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -fgpu-rdc \
        -Xclang -target-feature -Xclang +ptx75 -O2 -S -include src/clang_shim.h \
        "src/$u.cu" -o "ptx/$u.clang.ptx"
    for c in nvcc clang; do
        ptxas -arch=sm_80 -c "ptx/$u.$c.ptx" -o "$TMP/$u.$c.o"
    done
done
for c in nvcc clang; do
    nvlink -arch=sm_80 "$TMP/kernel.$c.o" "$TMP/helper.$c.o" -o "$TMP/linked.$c.cubin"
    echo "  $c: kernel + helper (ptxas -c ok, nvlink ok)"
done
