#!/usr/bin/env bash
# Builds the texture probe (x86-64, glibc; needs only libc, opens libcuda.so.1 with dlopen)
# and, with an argument, copies it and the PTX it loads to that folder with the command to
# run there (texture_probe.cmd):
#   tests/nvidia/texture_probe/build.sh [/work/nvidia-in]
# cuda.h comes from the client venv (scripts/install-deps.sh: target/pyenv, or $PTXCROSS_PYENV).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
PYENV="${PTXCROSS_PYENV:-$ROOT/target/pyenv}"
INC="$(ls -d "$PYENV"/lib/python3*/site-packages/nvidia/cu13/include | head -n 1)"
OUTDIR="$ROOT/target/texture_probe"
mkdir -p "$OUTDIR"
gcc -O2 -std=gnu11 -Wall -Wextra -I"$INC" "$HERE/texture_probe.c" -o "$OUTDIR/texture_probe" -ldl
echo "built $OUTDIR/texture_probe"
if [ $# -ge 1 ]; then
    cp "$OUTDIR/texture_probe" "$1/texture_probe"
    cp "$ROOT/tests/texture/ptx/texture.nvcc.ptx" "$1/texture.nvcc.ptx"
    echo 'timeout 120 ./texture_probe texture.nvcc.ptx $OUT/texture_nvidia.bin > $OUT/texture_probe.log 2>&1; tail -n 3 $OUT/texture_probe.log' > "$1/texture_probe.cmd"
    echo "copied to $1"
fi
