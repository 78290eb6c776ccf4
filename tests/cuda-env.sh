# Sourced by the corpus regen scripts: the pinned compilers they share.
#   - nvcc/ptxas/nvlink 13.5.37 from PyPI in a virtual environment outside the repository,
#     $PTXCROSS_CUDA_VENV (default ~/.cache/ptxcross/cuda-venv), created and filled on first use;
#     extra pinned wheels may be passed as arguments (`. ../cuda-env.sh pkg==ver ...`);
#   - Debian's clang-16 ($CLANG), which the scripts that need it check with `need_clang`.
# Sets VENV, SITE (the venv's site-packages) and CUDA_BIN (nvcc 13.5's bin/). PATH is left
# alone: clang picks its PTX version by the CUDA it finds there, so each script chooses.
# Needs python3 (3.9+) and gcc (nvcc runs the host preprocessor even with -ptx).
VENV="${PTXCROSS_CUDA_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxcross/cuda-venv}"
CLANG="${CLANG:-clang-16}"
if [ ! -x "$VENV/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
    nvidia-cuda-nvcc==13.5.37 nvidia-nvvm==13.5.37 nvidia-cuda-crt==13.5.37 \
    nvidia-cuda-runtime==13.5.37 nvidia-cuda-cccl==13.3.5.0.6 "$@"
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
CUDA_BIN="$SITE/nvidia/cu13/bin"

need_clang() {
    if ! command -v "$CLANG" >/dev/null 2>&1; then
        echo "regen.sh: $CLANG not found (apt-get install -y clang-16)" >&2
        exit 1
    fi
    "$CLANG" --version | head -n 1
}
