#!/usr/bin/env bash
# Builds the release test binaries and packs the ones an NVIDIA check needs into
# .dev/bins.tar.xz (git ignores .dev; see tests/nvidia/README.md for the whole procedure).
# usage: bash tests/nvidia/pack.sh [TEST ...]   (default: the SIMT, sweep and e2e tests)
set -euo pipefail
cd "$(dirname "$0")/../.."
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(simt_kernels simt_atomics named_barriers video_sweep inst_sweep half_sweep adversarial int64_split module_globals address_size32 differential driver_workarounds corpus_e2e calls_e2e control_flow_e2e launch_specialised kernel_speed warp_meeting simt_attacks outlined launch_proof_attacks heap_checks fault_sites)
log=$(mktemp)
# Only the named test binaries: building the whole suite in release takes far longer.
cargo test --release -p ptxcross-tests $(printf -- '--test %s ' "${tests[@]}") --no-run 2>&1 | tee "$log" | grep -E '^error' && exit 1
# The host crate's tests that a check needs (HOST_TESTS, default: segments and memory_attacks).
host_tests=(${HOST_TESTS:-segments memory_attacks})
cargo test --release -p ptxcross $(printf -- '--test %s ' "${host_tests[@]}") --no-run 2>&1 | tee -a "$log" >/dev/null
cargo build --release -p ptxcross --bins
mkdir -p .dev && rm -rf .dev/bin && mkdir .dev/bin
grep -q '^/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >> .git/info/exclude
for t in "${tests[@]}" "${host_tests[@]}"; do
    exe=$(grep -o "(target/release/deps/$t-[0-9a-f]*)" "$log" | tr -d '()' | head -1)
    [ -n "$exe" ] && strip -o ".dev/bin/$t" "$exe" || echo "no test binary for $t" >&2
done
strip -o .dev/bin/ptxcross target/release/ptxcross
tar cf - -C .dev bin | xz -6 -T2 --lzma2=dict=128MiB > .dev/bins.tar.xz
ls -la .dev/bins.tar.xz
