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
# Every corpus kernel must compile in Chromium's WebGPU (tests/tests/browser_tint.rs), not skip.
export PTXCROSS_REQUIRE_BROWSER=${PTXCROSS_REQUIRE_BROWSER:-1}
cargo test --workspace --no-fail-fast "$@"
