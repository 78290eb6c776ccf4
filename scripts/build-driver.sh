#!/usr/bin/env bash
# Builds the CUDA driver library: target/release/libcuda.so.1 (soname libcuda.so.1) with a
# libcuda.so link beside it. Point programs at it with
#   LD_LIBRARY_PATH=$PWD/target/release python3 my_numba_program.py
# Extra arguments go to cargo (e.g. --profile dev writes into target/debug instead).
set -euo pipefail
cd "$(dirname "$0")/.."
profile_dir=release
args=(--release)
if [ "${1:-}" = "--debug" ]; then
    profile_dir=debug
    args=()
    shift
fi
cargo build "${args[@]}" -p ptxcross-driver "$@"
out="${CARGO_TARGET_DIR:-target}/$profile_dir"
# cargo writes libcuda.so; the dynamic linker and cuda-python look for libcuda.so.1.
cp -f "$out/libcuda.so" "$out/libcuda.so.1.tmp"
mv -f "$out/libcuda.so.1.tmp" "$out/libcuda.so.1"
ln -sfn libcuda.so.1 "$out/libcuda.so"
echo "$out/libcuda.so.1"
