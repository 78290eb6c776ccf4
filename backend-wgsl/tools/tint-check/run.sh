#!/usr/bin/env bash
# Compiles every webgpu-profile WGSL that the backend's tests emit with Chromium's WebGPU
# (Tint), the strict check naga is not (barrier uniformity, loop exits, const-expressions),
# then runs the execution tests in the browser too (serve.mjs).
# Needs Debian's chromium (`apt-get install -y chromium`) and npm (installs playwright-core
# into a cache folder outside the repository).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
cache="${PTXCROSS_TOOLS_CACHE:-${TMPDIR:-/tmp}/ptxcross-tint-check}"
exe="${CHROMIUM:-/usr/lib/chromium/chromium}"
[ -x "$exe" ] || { echo "no chromium at $exe (apt-get install -y chromium, or set CHROMIUM)"; exit 2; }
if [ ! -d "$cache/node_modules/playwright-core" ]; then
    mkdir -p "$cache"
    (cd "$cache" && npm install --silent --no-audit --no-fund playwright-core@1 >/dev/null)
fi
dump="$(mktemp -d)"
trap 'rm -rf "$dump"' EXIT
(cd "$repo" && PTXCROSS_WGSL_DUMP="$dump" cargo test -q -p ptxcross-wgsl >/dev/null)
NODE_PATH="$cache/node_modules" node "$here/check.mjs" "$dump" "$exe"
# The execution tests once more, dispatched in the browser (Tint + SwiftShader) instead of wgpu.
echo "execution tests in Chromium's WebGPU:"
(cd "$repo" && PTXCROSS_WGSL_TEST_BROWSER=1 PTXCROSS_TOOLS_CACHE="$cache" CHROMIUM="$exe" \
    cargo test -q -p ptxcross-wgsl --test exec --test exec_mem 2>&1 | grep -E "test result|panicked|wrong|^[A-Z][a-z]+\(" || true)
