#!/usr/bin/env bash
# All tests: unit, property, parse-corpus, backend validation and end-to-end runs on the
# available GPU (lavapipe on a machine without one).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# End-to-end tests must not skip silently: the deps above give every machine an adapter.
export PTXCROSS_REQUIRE_GPU=${PTXCROSS_REQUIRE_GPU:-1}
# The driver library's real clients (numba-cuda, cuda-python, a C program) must run, not skip.
export PTXCROSS_REQUIRE_CLIENTS=${PTXCROSS_REQUIRE_CLIENTS:-1}
# SPIR-V is validated in-process: a build that could not link SPIRV-Tools must fail, not fall
# back to running spirv-val.
export PTXCROSS_REQUIRE_SPIRV_TOOLS=${PTXCROSS_REQUIRE_SPIRV_TOOLS:-1}
# Every corpus kernel must compile in Chromium's WebGPU (tests/tests/browser_tint.rs), not skip.
export PTXCROSS_REQUIRE_BROWSER=${PTXCROSS_REQUIRE_BROWSER:-1}
# Translation cache and SPIR-V validation records of the tests' own modules stay in the build
# directory, not in the user's ~/.cache (tests that need their own directory set it).
export PTXCROSS_CACHE_DIR=${PTXCROSS_CACHE_DIR:-$PWD/target/ptxcross-cache}
# Every PTX source the tests translate is collected (ptxcross::ptx_dump) for the browser
# check of every SIMT kernel below.
dump=$PWD/target/ptx-dump
rm -rf "$dump"
PTXCROSS_PTX_DUMP=$dump cargo test --workspace --no-fail-fast "$@"
# Issue 10: Tint's uniformity analysis over every SIMT kernel the run above translated, the
# PTX written inside Rust tests included (tests/tests/browser_tint_collected.rs). Only after a
# full run: a filtered one collects too few kernels.
if [ $# -eq 0 ]; then
    PTXCROSS_TINT_COLLECTED=$dump nice cargo test -p ptxcross-tests --test browser_tint_collected -- --ignored
fi
