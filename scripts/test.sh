#!/usr/bin/env bash
# All tests: unit, property, parse-corpus, backend validation and end-to-end runs on the
# available GPU (lavapipe on a machine without one).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo test --workspace --no-fail-fast "$@"
