#!/usr/bin/env bash
# Regenerates the parse corpus's compiler output (see README.md):
#   real/nvcc/    nvcc 13.5.37 (PyPI): every src/*.cu at sm_75, sm_80, sm_90a; sm_90a -lineinfo;
#                 templates.cu with -G (DWARF .section + .loc)
#   real/nvrtc/   NVRTC 12.9.86 (PyPI nvidia-cuda-nvrtc-cu12), compute_52, header-free sources
#   real/clang/   Debian clang-16: CUDA (--cuda-device-only -nocudainc -nocudalib + clang_shim.h,
#                 -O2 and -O2 -g) and OpenCL C (nvptx64-nvidia-nvcl and nvptx64-nvidia-cuda)
#   real/numba/   numba-cuda 0.30.4 (numba.cuda.compile_ptx, NVVM from nvidia-nvvm 13.5.37)
#   real/triton/  triton 3.9.0 (triton.compile with GPUTarget("cuda", 80|90, 32), no GPU needed)
#   large/cub_zoo.sm_80.ptx  nvcc 13.5.37 -arch=sm_80 of large/src/cub_zoo.cu (CUB + Thrust,
#                 ~13 MB; not committed, see large/.gitignore)
# and checks that the spec examples are up to date (spec/extract.py --check).
#
# usage: regen.sh            everything (needs network for the first pip install, and clang-16:
#                            apt-get install -y clang-16)
#        regen.sh --large    only the large file; uses $NVCC if set (no venv, no network)
#
# The Python tools live in a virtual environment outside the repository:
#   $PTXCROSS_PARSE_VENV (default ~/.cache/ptxcross/parse-corpus-venv); needs python3 (3.10+)
#   and gcc (nvcc runs the host preprocessor even with -ptx).
# Compilers run in a fixed build folder, /tmp/ptxcross-parse-corpus (sources copied there, the
# venv and CUDA reached through symlinks), so that the paths they write into `.file`
# directives and DWARF are the same on every machine: running this twice, or on another
# machine, leaves `git status tests/parse-corpus` clean.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

MODE="${1:-all}"
VENV="${PTXCROSS_PARSE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxcross/parse-corpus-venv}"
PY="${PYTHON:-python3}"
B=/tmp/ptxcross-parse-corpus
LARGE_OUT="$HERE/large/cub_zoo.sm_80.ptx"

compile_large() {
    local nvcc="$1"
    mkdir -p "$B/large"
    cp large/src/cub_zoo.cu "$B/large/"
    echo "nvcc -arch=sm_80 -ptx large/src/cub_zoo.cu (takes about a minute)"
    (cd "$B/large" && "$nvcc" -arch=sm_80 -ptx cub_zoo.cu -o cub_zoo.sm_80.ptx)
    cp "$B/large/cub_zoo.sm_80.ptx" "$LARGE_OUT.tmp"
    mv "$LARGE_OUT.tmp" "$LARGE_OUT"
    echo "  large/cub_zoo.sm_80.ptx: $(wc -c < "$LARGE_OUT") bytes"
}

if [ "$MODE" = "--large" ] && [ -n "${NVCC:-}" ]; then
    mkdir -p "$B"
    compile_large "$NVCC"
    exit 0
fi

if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
    nvidia-cuda-nvcc==13.5.37 nvidia-nvvm==13.5.37 nvidia-cuda-crt==13.5.37 \
    nvidia-cuda-runtime==13.5.37 nvidia-cuda-cccl==13.3.5.0.6 \
    nvidia-cuda-nvrtc-cu12==12.9.86 \
    numba-cuda==0.30.4 numba==0.68.1 llvmlite==0.50.0 triton==3.9.0

SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
rm -rf "$B"
mkdir -p "$B/src" "$B/out"/{nvcc,nvrtc,clang,numba,triton}
ln -s "$SITE/nvidia/cu13" "$B/cuda"
ln -s "$VENV" "$B/venv"
NVCC="$B/cuda/bin/nvcc"
PTXAS="$B/cuda/bin/ptxas"
LIBNVRTC="$SITE/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"
VPY="$B/venv/bin/python"
"$NVCC" --version | tail -n 2

if [ "$MODE" = "--large" ]; then
    compile_large "$NVCC"
    exit 0
fi

CLANG="${CLANG:-clang-16}"
if ! command -v "$CLANG" >/dev/null 2>&1; then
    echo "regen.sh: $CLANG not found (apt-get install -y clang-16)" >&2
    exit 1
fi
"$CLANG" --version | head -n 1

cp real/src/* "$B/src/"
# One NVRTC driver for both corpora.
cp ../corpus/nvrtc_ptx.py "$B/"
cd "$B/src"

# --- nvcc 13.5 ---------------------------------------------------------------------------------
NVCC_SOURCES="warp atomics half mma coop templates texture"
for s in $NVCC_SOURCES; do
    for arch in sm_75 sm_80 sm_90a; do
        "$NVCC" -arch=$arch -ptx "$s.cu" -o "$B/out/nvcc/$s.$arch.ptx"
    done
    "$NVCC" -arch=sm_90a -lineinfo -ptx "$s.cu" -o "$B/out/nvcc/$s.sm_90a.lineinfo.ptx"
    echo "  nvcc: $s.cu -> sm_75, sm_80, sm_90a, sm_90a -lineinfo"
done
"$NVCC" -arch=sm_80 -G -ptx templates.cu -o "$B/out/nvcc/templates.sm_80.G.ptx"
echo "  nvcc: templates.cu -> sm_80 -G"

# --- NVRTC 12.9 (header-free sources) ----------------------------------------------------------
for s in warp atomics templates; do
    "$VPY" "$B/nvrtc_ptx.py" "$LIBNVRTC" "$s.cu" "$B/out/nvrtc/$s.compute_52.ptx" \
        --gpu-architecture=compute_52
done

# --- clang-16: CUDA without the CUDA SDK, and OpenCL C -----------------------------------------
CLANG_CUDA=(--cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80
            -Xclang -target-feature -Xclang +ptx75 -O2 -S)
"$CLANG" "${CLANG_CUDA[@]}" clang_cuda.cu -o "$B/out/clang/clang_cuda.sm_80.ptx"
"$CLANG" "${CLANG_CUDA[@]}" -g clang_cuda.cu -o "$B/out/clang/clang_cuda.sm_80.g.ptx"
"$CLANG" -x cl -cl-std=CL2.0 -target nvptx64-nvidia-nvcl -O2 -S opencl.cl \
    -o "$B/out/clang/opencl.nvcl.ptx"
"$CLANG" -x cl -cl-std=CL2.0 -target nvptx64-nvidia-cuda -O2 -S opencl.cl \
    -o "$B/out/clang/opencl.nvptx64-cuda.ptx"
echo "  clang: clang_cuda.cu (-O2, -O2 -g), opencl.cl (nvcl, cuda)"

# --- numba-cuda and triton (no GPU needed) -----------------------------------------------------
"$VPY" numba_kernels.py "$B/out/numba"
TRITON_CACHE_DIR="$B/triton-cache" TRITON_DEFAULT_FP_FUSION=1 TRITON_HOME="$B/triton-home" \
    "$VPY" triton_kernels.py "$B/out/triton" 2>&1 | grep -v "UserWarning\|warn_once" || true
[ -s "$B/out/triton/triton_add.sm_80.ptx" ] || { echo "regen.sh: triton produced nothing" >&2; exit 1; }

# --- every file must assemble with ptxas 13.5 ---------------------------------------------------
for f in "$B"/out/*/*.ptx; do
    target="$(grep -m1 -o '^\.target [a-z_0-9]*' "$f" | cut -d' ' -f2)"
    case "$target" in
        sm_90a|sm_90) arch=sm_90a ;;
        sm_75) arch=sm_75 ;;
        *) arch=sm_80 ;;   # sm_30/35/52 (old clang, NVRTC) and sm_80
    esac
    "$PTXAS" -arch=$arch "$f" -o /dev/null 2> "$B/ptxas.log" || {
        echo "regen.sh: ptxas -arch=$arch rejects $f:" >&2; cat "$B/ptxas.log" >&2; exit 1; }
done
echo "ptxas $("$PTXAS" --version | grep -o "V[0-9][0-9.]*"): all $(ls "$B"/out/*/*.ptx | wc -l) files assemble"

cd "$HERE"
for d in nvcc nvrtc clang numba triton; do
    rm -rf "real/$d"
    mkdir -p "real/$d"
    cp "$B/out/$d"/*.ptx "real/$d/"
done
echo "real/: $(ls real/*/*.ptx | wc -l) files, $(cat real/*/*.ptx | wc -c) bytes"

compile_large "$NVCC"

if "$PY" spec/extract.py --check; then :; else
    echo "regen.sh: spec examples are stale: run spec/extract.py" >&2
    exit 1
fi
