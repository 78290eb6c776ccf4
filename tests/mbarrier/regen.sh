#!/usr/bin/env bash
# Regenerates tests/mbarrier/ptx/mbarrier.{sm80,sm90}.ptx exactly as committed: nvcc 13.5.37
# (PyPI, the pinned compilers of tests/cuda-env.sh), -ptx, default optimisation, and checks
# both with ptxas 13.5.37.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
. ../cuda-env.sh
mkdir -p ptx
for sm in 80 90; do
    "$CUDA_BIN/nvcc" -arch=sm_$sm -ptx src/mbarrier.cu -o ptx/mbarrier.sm$sm.ptx
    "$CUDA_BIN/ptxas" -arch=sm_$sm ptx/mbarrier.sm$sm.ptx -o /dev/null
    echo "  mbarrier.sm$sm.ptx assembles"
done
