#!/usr/bin/env bash
# Runs on a machine with an NVIDIA GPU, from the repository root, after tests/nvidia/pack.sh
# made .dev/bins.tar.xz here (x86-64, glibc ≥ 2.36): the translated kernels through NVIDIA's
# Vulkan driver, the launch specs and the sweep cases through the CUDA driver's PTX JIT (CuPy),
# judged by the independent references on the spot. Output: $OUT/tests.log, $OUT/specs.tsv
# (every spec's verdict through CUDA), $OUT/full.log (every test binary's whole output) and $OUT/mm.tar.xz (every sweep disagreement,
# `PTXCROSS_SWEEP_MISMATCHES` format). BUDGET=seconds bounds the whole run; PARTS picks parts.
# Vulkan loader: unpack libvulkan1 etc. first where the machine has none (.gl/*.deb).
set -u
# A glob with no match (tests/differential/open/*.json once every open case is fixed) expands to nothing.
shopt -s nullglob
T0=$(date +%s); REPO=$PWD; OUT=${OUT:-/tmp/ptxcross-nvidia}; mkdir -p "$OUT"
for f in .gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done; ldconfig 2>/dev/null
# NVIDIA's ICD (libGLX_nvidia) needs libglvnd's libGLdispatch: bring libglvnd0 and friends in .gl.
for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
    [ -f "$icd" ] && { export VK_DRIVER_FILES=$icd; break; }
done
export PTXCROSS_REQUIRE_GPU=1 RUST_BACKTRACE=0
# The test binaries find their data through the path they were built in.
[ -e /work/main ] || { mkdir -p /work && ln -sfn "$REPO" /work/main; }
(cd .dev && tar xJf bins.tar.xz)
B=$REPO/.dev/bin; D=/tmp/dump
exec > >(tee -a "$OUT/tests.log") 2>&1
PARTS=${PARTS:-"devices native barriers specs sweeps fuzz e2e speed"}  # also: recent
left() { echo $(( ${BUDGET:-300} - ($(date +%s) - T0) )); }
part() { [[ " $PARTS " == *" $1 "* ]] && echo "##### $1 at $(( $(date +%s) - T0 )) s"; }
# r LIMIT BINARY ARGS...: a test binary, bounded by LIMIT and what is left of BUDGET.
r() {
    local cap=$1 b=$2; shift 2; local l; l=$(left); [ "$l" -lt 10 ] && { echo "=== $b SKIPPED"; return; }; [ "$l" -gt "$cap" ] && l=$cap
    echo "=== $b $* (limit $l s)"; echo "=== $b $*" >> "$OUT/full.log"
    (cd tests && timeout "$l" "$B/$b" "$@" 2>&1 | tee -a "$OUT/full.log" | grep -E "test result|FAILED|panicked|Some\\(|mismatch|Subnormals|error|programs|GPU time|round|site|ratio|×" | cut -c1-300 | head -40)
}
if part devices; then echo "ICD: ${VK_DRIVER_FILES:-none found}"; "$B/ptxcross" devices || VK_LOADER_DEBUG=error "$B/ptxcross" devices 2>&1 | head -20; nvidia-smi -L; fi
if part native; then
    (cd tests && PTXCROSS_EXPECT_NATIVE_WARPS=1 timeout 60 "$B/simt_kernels" native_warp --nocapture --test-threads=1 2>&1 | grep -E "Some|test result|FAILED|panicked")
fi
if part barriers; then
    r 90 named_barriers
    r 60 named_barriers scheduler_cost --ignored --nocapture
fi
if part specs; then
    echo "=== ptxcross verify tests/heldout/cases (NVIDIA Vulkan)"
    timeout 120 "$B/ptxcross" verify tests/heldout/cases 2>&1 | grep -v -E " pass +[0-9.]+ ms$" | tail -25
    echo "=== the same specs through the CUDA driver, judged by their own expectations"
    timeout 120 python3 tests/nvidia/run_specs.py tests/heldout/cases tests/corpus/specs tests/differential/regressions tests/differential/open tests/nvidia/probes --out "$OUT/specs.tsv" 2>&1 | tail -40
    echo "=== probes on Vulkan"; "$B/ptxcross" verify tests/nvidia/probes 2>&1 | grep -E "pass|FAIL|ERROR|refused|passed" | head
    for s in tests/differential/open/*.json; do echo "open case on Vulkan: $s: $("$B/ptxcross" run --spec "$s" 2>&1 | grep -c -i -E "differ|mismatch|FAIL") differing lines"; done
fi
if part sweeps; then
    for b in inst_sweep half_sweep; do
        (cd tests && PTXCROSS_SWEEP_DUMP=$D/$b timeout 90 "$B/$b" -q 2>&1 | grep -E "test result|FAILED" | head -4)
        timeout 90 python3 tests/nvidia/run_sweeps.py "$D/$b" 2>&1 | tail -3
        (cd tests && PTXCROSS_SWEEP_MISMATCHES=/tmp/mm-$b.tsv PTXCROSS_SWEEP_NVIDIA=$D/$b timeout 90 "$B/$b" -q > /tmp/replay-$b.log 2>&1)
        echo "replay $b: $(cat /tmp/mm-$b.tsv 2>/dev/null | wc -l) mismatches"
    done
    (cd /tmp && tar cJf "$OUT/mm.tar.xz" mm-*.tsv replay-*.log 2>/dev/null)
fi
if part recent; then
    # What changed since the last NVIDIA check (docs/nvidia.md): signaling-NaN moves, the open
    # lavapipe cases, the tensor-core paths with native warps, memory attacks, calls, meeting
    # rules, the nvcc/clang fuzz set, and the fault-site probes.
    echo "=== snan_moves on Vulkan"; "$B/ptxcross" run --spec tests/nvidia/probes/snan_moves.json 2>&1 | tail -4
    echo "=== open cases and probes through the CUDA driver"
    timeout 90 python3 tests/nvidia/run_specs.py tests/nvidia/probes tests/differential/open tests/differential/regressions ${EXTRA_SPECS:-} --out "$OUT/specs.tsv" 2>&1 | tail -25
    # Cubins made by another ptxas (pack them into .dev/cubins): a JIT bug or a wrong expectation?
    [ -d .dev/cubins ] && { echo "=== the same through cubins from .dev/cubins"; PTXCROSS_CUBIN_DIR=.dev/cubins timeout 60 python3 tests/nvidia/run_specs.py tests/nvidia/probes tests/differential/open 2>&1 | grep -v "^pass"; }
    echo "=== probes on Vulkan"; "$B/ptxcross" verify tests/nvidia/probes 2>&1 | grep -E "pass|FAIL|ERROR|passed" | grep -v divergent
    for s in tests/differential/open/*.json; do echo "=== open case on Vulkan: $s"; "$B/ptxcross" run --spec "$s" 2>&1 | grep -v "^ *[0-9]" | head -8; done
    for s in tests/nvidia/fault_probes/*.json; do echo "=== fault probe $s"; "$B/ptxcross" run --spec "$s" 2>&1 | grep -i -E "fault|pass|FAIL|error" | head -4; done
    PTXCROSS_EXPECT_NATIVE_WARPS=1 r 150 triton_e2e --include-ignored
    PTXCROSS_EXPECT_NATIVE_WARPS=1 r 90 warp_matrix
    PTXCROSS_EXPECT_NATIVE_WARPS=1 r 90 wmma
    r 60 memory_attacks
    r 60 differential call_programs_match_the_model open_bugs --include-ignored
    for b in warp_meeting cudafuzz; do r 60 "$b"; done
fi
if part fuzz; then
    # Each generator for a while on this GPU (warp collectives native); every passing program
    # is also dumped as a spec and run through the CUDA driver: NVIDIA's results judged by the
    # fuzzer's model (and the model by NVIDIA).
    for g in simt:0x4e560101 random:0x4e560102 float:0x4e560103 xint:0x4e560104 hx:0x4e560105; do
        PTXCROSS_WARPS=native PTXCROSS_DIFF_SECONDS=${FUZZ_SECONDS:-25} PTXCROSS_DIFF_SEED=${g#*:} PTXCROSS_DIFF_SAVE=/tmp/fuzz PTXCROSS_DIFF_DUMP=/tmp/dump-fuzz r 45 differential "${g%%:*}_programs" --nocapture
    done
    [ -d /tmp/fuzz ] && tar cJf "$OUT/fuzz.tar.xz" -C /tmp fuzz
    echo "=== the fuzz programs through the CUDA driver, judged by the model"
    [ -d /tmp/dump-fuzz ] && timeout 150 python3 tests/nvidia/run_specs.py /tmp/dump-fuzz --out "$OUT/fuzz-cuda.tsv" 2>&1 | tail -15
fi
if part e2e; then
    for b in warp_meeting simt_attacks outlined launch_proof_attacks heap_checks fault_sites launch_specialised driver_workarounds control_flow_e2e simt_atomics corpus_e2e calls_e2e module_globals address_size32 segments; do r 60 "$b"; done
    r 120 simt_kernels --include-ignored --skip native_warps_speed --skip fallback_cost
fi
if part speed; then
    # Kernel time against hand-written WGSL on this GPU (sizes made for lavapipe: small here).
    (cd tests && PTXCROSS_SPEED_REPS=5 timeout 150 "$B/kernel_speed" kernel_speed --ignored --nocapture 2>&1 | grep -v "^$" | tail -22)
    (cd tests && timeout 60 "$B/simt_kernels" native_warps_speed --ignored --nocapture 2>&1 | grep "GPU time")
fi
echo "total $(( $(date +%s) - T0 )) s"
