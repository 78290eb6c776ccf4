#!/usr/bin/env bash
# The main job: translate the bundled example kernels (tests/corpus) to SPIR-V and WGSL, run
# them through wgpu on both backends, and print a verification table.
set -euo pipefail
cd "$(dirname "$0")/.."
PTXCROSS_SKIP_PYENV=1 bash scripts/install-deps.sh || echo "ptxcross: could not install the Vulkan driver; kernels will be translated and validated but not run" >&2
cargo build --release --bin ptxcross
exec target/release/ptxcross verify tests/corpus/specs
