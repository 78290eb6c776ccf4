#!/usr/bin/env bash
# Regenerates the `.address_size 32` kernels exactly as committed: Debian clang-16's 32-bit
# nvptx target (nvcc no longer writes 32-bit PTX) compiling OpenCL C, at -O2 and -O0 (-O0
# keeps generic pointers: cvta.local/.shared/.global). Run by tests/tests/address_size32.rs
# against a CPU version of the kernel.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
CLANG="${CLANG:-clang-16}"
"$CLANG" --version | head -n 1
for o in 2 0; do
    "$CLANG" -cl-std=CL2.0 -target nvptx-nvidia-cuda -O$o -S mix32.cl -o mix32.O$o.ptx
done
