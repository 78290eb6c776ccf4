#!/usr/bin/env bash
# Compiles the corpus's CUDA sources for the host (g++ >= 11, C++20) through hostcheck/shim.h
# and runs every spec in ../specs on them: the expected outputs written by gen.py must match
# what the kernels' own source computes.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"${CXX:-g++}" -std=c++20 -O2 -ffp-contract=off -fno-fast-math -fPIC -shared -pthread \
    -Wall -Wno-unused-function -o "$TMP/libhostcheck.so" "$HERE/hostcheck/kernels.cpp"
"${PYTHON:-python3}" "$HERE/hostcheck.py" "$TMP/libhostcheck.so" "$HERE"/../specs/*.json
