#!/usr/bin/env bash
# Runs on a machine with an NVIDIA GPU, from the repository root, after tests/nvidia/pack.sh
# made .dev/bins.tar.xz here (x86-64, glibc ≥ 2.36): the translated kernels through NVIDIA's
# Vulkan driver, and the sweep cases replayed through the CUDA driver's PTX JIT (CuPy) and
# judged by the spec references on the spot. Output: $OUT/tests.log and $OUT/mm.tar.xz (every
# disagreement, `PTXCROSS_SWEEP_MISMATCHES` format). BUDGET=seconds bounds the whole run.
# Vulkan loader: unpack libvulkan1 etc. first where the machine has none (.gl/*.deb).
set -u
T0=$(date +%s); REPO=$PWD; OUT=${OUT:-/tmp/ptxcross-nvidia}; mkdir -p "$OUT"
for f in .gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done; ldconfig 2>/dev/null
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export PTXCROSS_REQUIRE_GPU=1 RUST_BACKTRACE=0
# The test binaries find their data through the path they were built in.
[ -e /work/main ] || { mkdir -p /work && ln -sfn "$REPO" /work/main; }
(cd .dev && tar xJf bins.tar.xz)
B=$REPO/.dev/bin; D=/tmp/dump
exec > >(tee -a "$OUT/tests.log") 2>&1
left() { echo $(( ${BUDGET:-300} - ($(date +%s) - T0) )); }
r() {
    local b=$1; shift; local l; l=$(left); [ "$l" -lt 10 ] && { echo "=== $b SKIPPED"; return; }; [ "$l" -gt 120 ] && l=120
    echo "=== $b $*"; (cd tests && timeout "$l" "$B/$b" "$@" 2>&1 | grep -E "test result|FAILED|panicked|Some\(|mismatch|Subnormals|error" | cut -c1-300 | head -30)
}
"$B/ptxcross" devices
(cd tests && PTXCROSS_EXPECT_NATIVE_WARPS=1 timeout 60 "$B/simt_kernels" native_warp --nocapture --test-threads=1 2>&1 | grep -E "Some|test result|FAILED")
r simt_kernels --include-ignored --skip native_warps_speed --skip fallback_cost
r simt_atomics
for b in inst_sweep half_sweep int64_split adversarial video_sweep; do
    (cd tests && PTXCROSS_SWEEP_DUMP=$D/$b timeout 90 "$B/$b" -q 2>&1 | grep -E "test result|FAILED" | head -4)
    timeout 90 python3 tests/nvidia/run_sweeps.py "$D/$b" 2>&1 | tail -1
    (cd tests && PTXCROSS_SWEEP_MISMATCHES=/tmp/mm-$b.tsv PTXCROSS_SWEEP_NVIDIA=$D/$b timeout 90 "$B/$b" -q > /tmp/replay-$b.log 2>&1)
    echo "replay $b: $(cat /tmp/mm-$b.tsv 2>/dev/null | wc -l) mismatches"
done
(cd /tmp && tar cJf "$OUT/mm.tar.xz" mm-*.tsv replay-*.log 2>/dev/null)
for b in segments module_globals address_size32 calls_e2e differential corpus_e2e; do r "$b"; done
echo "total $(( $(date +%s) - T0 )) s"
