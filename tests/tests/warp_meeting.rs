//! Warp collectives at different instructions in divergent branches (tests/simt/ptx/
//! divergent_collectives.ptx, meeting_sm70.ptx; the NVIDIA probe is tests/nvidia/probes/). On
//! sm_70+ a collective waits for "all non-exited threads corresponding to membermask" to
//! execute a collective of the same kind, qualifiers and membermask (ISA 8.5 §9.7.8.6
//! `shfl.sync`, the same for `vote.sync`, `match`, `redux`, `bar.warp.sync`): lanes 0-15 and
//! 16-31 running their own `shfl.sync.bfly … -1` / `vote.sync.ballot … -1` meet (an H200 gave
//! the meeting values through the CUDA driver). Kernels whose collectives the static proof
//! (`lower/src/meeting.rs`) cannot clear run through the CTA barrier scheduler, where they
//! meet; for `.target sm_6x` or below (meeting undefined there) they keep the run-time check,
//! which records `abi::FAULT_WARP_DIVERGED` instead of a wrong result. Programs whose missing
//! membermask lanes have exited, exit later without a collective, or lie beyond a partial warp,
//! and partial membermasks equal to the branch's lanes, give the spec's values either way.
//!   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test warp_meeting

mod simt_util;
use ptxcross::Backend;
use ptxcross_lower::abi;
use simt_util::*;

fn ptx() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("simt/ptx/divergent_collectives.ptx");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The 1-based line of the `n`th line of `text` containing `needle`.
fn lines_of(text: &str, needle: &str) -> Vec<usize> {
    text.lines().enumerate().filter(|(_, l)| l.contains(needle)).map(|(i, _)| i + 1).collect()
}

/// `text` with its `.target sm_NN` line naming `target` instead.
fn for_target(text: &str, target: &str) -> String {
    let out: Vec<String> = text.lines().map(|l| if l.starts_with(".target sm_") { format!(".target {target}") } else { l.to_string() }).collect();
    assert!(out.iter().any(|l| *l == format!(".target {target}")), "no `.target sm_NN` line");
    out.join("\n")
}

/// The probe kernels, on both backends, through the translation the device gets and through
/// the native lowering with simulated subgroups (both run them in the CTA barrier scheduler):
/// the two halves meet, giving what the H200 gave (tests/nvidia/probes/divergent_*.json, and
/// §9.7.8.6/§9.7.12.1/§9.7.13.2 computed here): `shfl_bfly` lane t gets lane t ^ 16's value
/// (10 t below 16, 100 t above), every lane's `ballot` is the lanes with t & 3 = 1 of both
/// halves, and `syncwarp`'s lanes read the word their partner stored before its own
/// `bar.warp.sync`.
#[test]
fn collectives_of_both_halves_at_different_instructions_meet() {
    let Some(gpu) = gpu() else { return };
    let text = ptx();
    let want = |kernel: &str, t: u32| match kernel {
        "shfl_bfly" | "syncwarp" => {
            let p = t ^ 16;
            if p < 16 { p * 10 } else { p * 100 }
        }
        _ => (0..32).filter(|l| l & 3 == 1).fold(0u32, |b, l| b | 1 << l),
    };
    let programs = [("simulated native", simulated_native_program("divergent_collectives.ptx", &text, [32, 1, 1]))];
    for kernel in ["shfl_bfly", "ballot", "syncwarp"] {
        let device = ("device", program_of("divergent_collectives.ptx", &text, [32, 1, 1], kernel));
        for (path, program) in [&device].into_iter().chain(&programs) {
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let out = run.zeros(32 * 4);
                for attempt in 0..2 {
                    run.launch(program, kernel, [1, 1, 1], &[&out.to_le_bytes()], backend);
                    let got = run.read_u32(out, 32);
                    let want: Vec<u32> = (0..32).map(|t| want(kernel, t)).collect();
                    assert_eq!(got, want, "{kernel} {path} {backend} #{attempt}");
                }
            }
        }
    }
}

/// The same probes for `.target sm_61`, where lanes of a membermask must run the same
/// instruction (§9.7.8.6: "For .target sm_6x or below, all threads in membermask must execute
/// the same shfl.sync instruction in convergence … Otherwise, the behavior is undefined"): the
/// checked lowering stays, and the launch faults with `FAULT_WARP_DIVERGED` at one of the two
/// collectives (and again: not a stale state).
#[test]
fn on_sm6x_targets_collectives_at_different_instructions_fault() {
    let Some(gpu) = gpu() else { return };
    let text = for_target(&ptx(), "sm_61");
    for (kernel, needle) in [
        ("shfl_bfly", "shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1"),
        ("ballot", "vote.sync.ballot.b32 %r3, %p2, -1"),
        ("syncwarp", "bar.warp.sync -1;"),
    ] {
        let sites: Vec<String> = lines_of(&text, needle).iter().map(|l| format!("divergent_collectives.ptx:{l}:5")).collect();
        assert_eq!(sites.len(), 2, "{kernel}");
        let program = program_of("divergent_collectives.ptx", &text, [32, 1, 1], kernel);
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let out = run.zeros(32 * 4);
            for attempt in 0..2 {
                let e = run.ctx.launch(&program, kernel, [1, 1, 1], &[&out.to_le_bytes()], backend).expect_err("lanes meeting at two instructions must fault");
                let ptxcross::Error::KernelFault { bits, site, .. } = &e else { panic!("{kernel} {backend}: not a kernel fault: {e}") };
                assert_eq!(*bits, abi::FAULT_WARP_DIVERGED, "{kernel} {backend} #{attempt}: {e}");
                assert!(site.as_ref().is_some_and(|s| sites.iter().any(|w| s.starts_with(w.as_str()))), "{kernel} {backend}: site {site:?}, want one of {sites:?}");
                assert!(e.to_string().contains("membermask lanes are at another instruction"), "{e}");
            }
        }
    }
}

/// `defined` (see the PTX): exits, lanes that skip the collectives and exit, partial
/// membermasks equal to each branch's lanes, partial warps (blocks 32, 48, 100, two CTAs): no
/// fault, and the values of the spec's semantics computed here.
#[test]
fn missing_lanes_that_exit_partial_masks_and_partial_warps_do_not_fault() {
    let Some(gpu) = gpu() else { return };
    let text = ptx();
    for block in [32usize, 48, 100] {
        let programs = [
            ("device", program_of("divergent_collectives.ptx", &text, [block as u32, 1, 1], "defined")),
            ("simulated native", simulated_native_program("divergent_collectives.ptx", &text, [block as u32, 1, 1])),
        ];
        let v = |t: usize| (t as u32).wrapping_mul(7).wrapping_add(3);
        for (path, program) in &programs {
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let grid = 2usize;
                let out = run.zeros(grid * block * 12);
                // CTAs write the same words (the output is indexed by %tid): both must agree.
                run.launch(program, "defined", [grid as u32, 1, 1], &[&out.to_le_bytes()], backend);
                let got = run.read_u32(out, block * 3);
                for t in 0..block {
                    let (w, lane) = (t / 32 * 32, t % 32);
                    let want = match lane {
                        24.. => [0, 0, 0],
                        16..24 => [0xbeef, t as u32, 0],
                        _ => {
                            let live = (0..16).filter(|l| w + l < block);
                            let sum = live.clone().map(|l| v(w + l)).fold(0u32, u32::wrapping_add);
                            let ballot = live.filter(|l| l % 2 == 1).fold(0u32, |b, l| b | 1 << l);
                            // lane ^ 4 stays in the branch's 8 lanes; beyond the CTA its value is
                            // undefined (an inactive source lane): not checked.
                            let shfl = if t ^ 4 < block { v(t ^ 4) } else { got[3 * t] };
                            [shfl, sum, ballot]
                        }
                    };
                    assert_eq!(got[3 * t..3 * t + 3], want, "thread {t}, block {block}, {path}, {backend}");
                }
            }
        }
    }
}

fn proof_ptx() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("simt/ptx/meeting_proof.ptx");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Kernel `kernel` of `text` lowered for `block` (emulated and native warps), `meeting` as said:
/// its census (see [`census_of`]).
fn lowered(name: &str, text: &str, block: [u32; 3], kernel: &str, meeting: ptxcross_lower::Meeting) -> [(usize, usize, usize); 2] {
    [false, true].map(|native_warps| {
        let file = ptxcross_frontend::SourceFile::new(name, text);
        let options = ptxcross_lower::LowerOptions { block: Some(block), kernel: Some(kernel.into()), native_warps, meeting, ..Default::default() };
        let module = ptxcross::translate::frontend(&file, &options).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        census_of(&module)
    })
}

/// Collectives that keep the meeting check in kernel `kernel` of `text` lowered for `block`
/// (emulated and native warps) where kernels that may meet keep it (`Meeting::Check`): what the
/// static proof decides. Such a kernel runs in the CTA barrier scheduler by default, which the
/// tests that call this check too ([`scheduled`]).
fn checks_kept(name: &str, text: &str, block: [u32; 3], kernel: &str) -> [usize; 2] {
    lowered(name, text, block, kernel, ptxcross_lower::Meeting::Check).map(|c| c.0)
}

/// Whether kernel `kernel` of `text` runs in the CTA barrier scheduler, as lowered by default
/// (emulated and native warps; no meeting check left either way).
fn scheduled(name: &str, text: &str, block: [u32; 3], kernel: &str) -> [bool; 2] {
    lowered(name, text, block, kernel, ptxcross_lower::Meeting::default()).map(|(checks, _, scheduled)| checks == 0 && scheduled == 1)
}

/// The static proof (`lower/src/meeting.rs`) keeps the check where lanes of a warp may be at
/// two collectives: the probes (collectives in the two arms of a branch that splits warps)
/// and `after_loop` (a collective after a lane-dependent loop in one arm, reached by the other
/// arm after its own collective); it leaves it out of `warp_branches` (branches and a loop
/// that are the same in every lane of a warp, lanes that exit first) and of the SIMT kernels
/// without divergent collectives.
#[test]
fn the_static_proof_keeps_the_check_exactly_where_lanes_may_meet() {
    let (probes, proof) = (ptx(), proof_ptx());
    for kernel in ["shfl_bfly", "ballot", "syncwarp"] {
        let kept = checks_kept("divergent_collectives.ptx", &probes, [32, 1, 1], kernel);
        assert!(kept.iter().all(|&n| n >= 2), "{kernel}: {kept:?}");
        assert_eq!(scheduled("divergent_collectives.ptx", &probes, [32, 1, 1], kernel), [true; 2], "{kernel}");
    }
    let kept = checks_kept("meeting_proof.ptx", &proof, [64, 1, 1], "after_loop");
    assert!(kept.iter().all(|&n| n == 2), "after_loop: {kept:?}");
    assert_eq!(scheduled("meeting_proof.ptx", &proof, [64, 1, 1], "after_loop"), [true; 2]);
    assert_eq!(checks_kept("meeting_proof.ptx", &proof, [64, 1, 1], "warp_branches"), [0, 0]);
    assert_eq!(scheduled("meeting_proof.ptx", &proof, [64, 1, 1], "warp_branches"), [false; 2]);
    let sweep = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("simt/ptx/shfl_sweep.ptx")).unwrap();
    let names: Vec<&str> = sweep.lines().filter_map(|l| l.split(".entry ").nth(1)).map(|l| l.split('(').next().unwrap().trim()).collect();
    assert!(!names.is_empty());
    for kernel in names {
        assert_eq!(checks_kept("shfl_sweep.ptx", &sweep, [64, 1, 1], kernel), [0, 0], "{kernel}");
    }
}

/// `after_loop` meets (both backends, the device's translation and the simulated native
/// lowering, both in the CTA barrier scheduler): lanes 0-15's first ballot (all true) meets
/// lanes 16-31's ballot at JOIN (odd lanes), giving 0xaaaaffff to all of them; then lanes
/// 0-15 run JOIN's ballot alone (lanes 16-31 exited): their odd lanes, 0xaaaa (§9.7.12.1).
/// `warp_branches` gives the spec's values: warp 0's `redux.max` of 7t+3 over its 32 lanes,
/// warp 1's `redux.add` over its 18 live lanes (threads 50-63 exited), and the sum of lanes
/// 0..=w's values broadcast.
#[test]
fn a_collective_after_a_divergent_loop_meets_and_warp_uniform_branches_run() {
    let Some(gpu) = gpu() else { return };
    let text = proof_ptx();
    let v = |t: usize| (t as u32).wrapping_mul(7).wrapping_add(3);
    for kernel in ["after_loop", "warp_branches"] {
        let programs = [
            ("device", program_of("meeting_proof.ptx", &text, [64, 1, 1], kernel)),
            ("simulated native", simulated_native_program_of("meeting_proof.ptx", &text, [64, 1, 1], kernel)),
        ];
        for (path, program) in &programs {
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let out = run.zeros(64 * 8);
                run.launch(program, kernel, [1, 1, 1], &[&out.to_le_bytes()], backend);
                let got = run.read_u32(out, 128);
                for t in 0..64 {
                    let want = match (kernel, t) {
                        ("after_loop", t) if t % 32 < 16 => [0xaaaa_ffff, 0xaaaa],
                        ("after_loop", _) => [0, 0xaaaa_ffff],
                        (_, 50..) => [0, 0],
                        (_, 32..) => [(32..50).map(v).fold(0u32, u32::wrapping_add), v(32) + v(33)],
                        _ => [(0..32).map(v).max().unwrap(), v(0)],
                    };
                    assert_eq!(got[2 * t..2 * t + 2], want, "{kernel} thread {t}, {path}, {backend}");
                }
            }
        }
    }
}

/// `kernels` of `meeting_rules.ptx` (block 64) as the device gets them, one program each, and
/// the whole file through the native lowering with simulated subgroups.
fn rules_programs(text: &str, kernels: &[&str]) -> Vec<(&'static str, ptxcross::Program)> {
    let mut programs: Vec<_> = kernels.iter().map(|k| ("device", program_of("meeting_rules.ptx", text, [64, 1, 1], k))).collect();
    programs.push(("simulated native", simulated_native_program("meeting_rules.ptx", text, [64, 1, 1])));
    programs
}

fn rules_ptx() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("simt/ptx/meeting_rules.ptx");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Two rules of the static proof and their twins (`tests/simt/ptx/meeting_rules.ptx`, block
/// 64): a `shfl.idx` whose source lane and clamp are registers set to constants just before
/// (nvcc's form) is a broadcast, and `bar.red`'s result is the same in every thread, so the
/// branches on them split no warp: no check. The twins (a source lane of `%tid.x & 1`, a count
/// taken from each thread's own `atom.shared.add`) keep the check at every shuffle.
#[test]
fn register_lane_broadcasts_and_bar_red_results_clear_the_check_and_their_twins_keep_it() {
    let text = rules_ptx();
    for kernel in ["idx_lane_in_register", "bar_red_count", "mask_of_branch"] {
        assert_eq!(checks_kept("meeting_rules.ptx", &text, [64, 1, 1], kernel), [0, 0], "{kernel}");
    }
    for (kernel, shuffles) in [("idx_lane_per_thread", 3), ("atomic_count_per_thread", 2), ("mask_beyond_branch", 2)] {
        assert_eq!(checks_kept("meeting_rules.ptx", &text, [64, 1, 1], kernel), [shuffles; 2], "{kernel}");
        assert_eq!(scheduled("meeting_rules.ptx", &text, [64, 1, 1], kernel), [true; 2], "{kernel}");
    }
}

/// The kernels of `meeting_rules.ptx` on both backends, the device's translation and the
/// simulated native lowering: the cleared kernels give the spec's values (warp 0 broadcasts an
/// odd value and takes the `bfly` arm, warp 1 an even one and takes the `down` arm; the
/// `bar.red` count is 33, then 0, taking each arm once), and the twins, which now run in the
/// CTA barrier scheduler, end with `FAULT_BARRIER_DEADLOCK`: lanes 0 and 1 of warp 0 hold
/// values of different parity, 16 atomic places split a warp, so lanes of one warp wait at the
/// `bfly` and at the `down` shuffle, which never meet (different qualifiers, §9.7.8.6: a hang
/// on NVIDIA), and lane 25 of `mask_beyond_branch` never runs the shuffle naming it.
#[test]
fn register_lane_broadcasts_and_bar_red_results_run_and_their_twins_never_complete() {
    let Some(gpu) = gpu() else { return };
    let text = rules_ptx();
    // Odd for even t, and for t = 31 (warp 0's lane 31 odd, warp 1's even).
    let mixed: Vec<u32> = (0..64u32).map(|t| (t * 7 + 3) ^ u32::from(t == 31)).collect();
    let even: Vec<u32> = (0..64u32).map(|t| t * 2).collect();
    // §9.7.10.6 with c = 31 and no segment: `bfly 1` reads lane ^ 1, `down 1` reads lane + 1,
    // or its own value at lane 31.
    let bfly = |input: &[u32], t: usize| input[t ^ 1].wrapping_add(1000);
    let down = |input: &[u32], t: usize| if t % 32 == 31 { input[t] } else { input[t + 1] };
    let kernels = ["idx_lane_in_register", "bar_red_count", "mask_of_branch", "idx_lane_per_thread", "atomic_count_per_thread", "mask_beyond_branch"];
    for (path, program) in &rules_programs(&text, &kernels) {
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let has = |k: &str| program.kernel(k).is_some();
            if has("idx_lane_in_register") {
                let (out, input) = (run.zeros(128 * 4), run.buffer(&u32s(&mixed)));
                run.launch(program, "idx_lane_in_register", [1, 1, 1], &[&out.to_le_bytes(), &input.to_le_bytes()], backend);
                let got = run.read_u32(out, 128);
                for t in 0..64 {
                    let lane31 = mixed[t / 32 * 32 + 31];
                    let x = if lane31 % 2 == 1 { bfly(&mixed, t) } else { down(&mixed, t) };
                    assert_eq!([got[t], got[64 + t]], [x, lane31], "idx_lane_in_register thread {t}, {path}, {backend}");
                }
            }
            if has("bar_red_count") {
                for input in [&mixed, &even] {
                    let count = input.iter().filter(|v| *v % 2 == 1).count() as u32;
                    let (out, buf) = (run.zeros(128 * 4), run.buffer(&u32s(input)));
                    run.launch(program, "bar_red_count", [1, 1, 1], &[&out.to_le_bytes(), &buf.to_le_bytes()], backend);
                    let got = run.read_u32(out, 128);
                    for t in 0..64 {
                        let x = if count > 20 { bfly(input, t) } else { down(input, t) };
                        assert_eq!([got[t], got[64 + t]], [x, count], "bar_red_count thread {t}, count {count}, {path}, {backend}");
                    }
                }
            }
            if has("mask_of_branch") {
                let (out, input) = (run.zeros(128 * 4), run.buffer(&u32s(&mixed)));
                run.launch(program, "mask_of_branch", [1, 1, 1], &[&out.to_le_bytes(), &input.to_le_bytes()], backend);
                let got = run.read_u32(out, 128);
                for t in 0..64 {
                    let x = match t {
                        ..24 => mixed[t + 1],
                        24 => mixed[24],
                        _ => 7,
                    };
                    let w = t / 32 * 32;
                    let ballot = (0..32).filter(|l| mixed[w + l] % 2 == 1).fold(0u32, |b, l| b | 1 << l);
                    assert_eq!([got[t], got[64 + t]], [x, ballot], "mask_of_branch thread {t}, {path}, {backend}");
                }
            }
            for kernel in ["idx_lane_per_thread", "atomic_count_per_thread", "mask_beyond_branch"] {
                if !has(kernel) {
                    continue;
                }
                let (out, input) = (run.zeros(128 * 4), run.buffer(&u32s(&mixed)));
                let e = run.ctx.launch(program, kernel, [1, 1, 1], &[&out.to_le_bytes(), &input.to_le_bytes()], backend).expect_err("collectives that never complete must fault");
                let ptxcross::Error::KernelFault { bits, .. } = &e else { panic!("{kernel} {path} {backend}: not a kernel fault: {e}") };
                assert_eq!(*bits, abi::FAULT_BARRIER_DEADLOCK, "{kernel} {path} {backend}: {e}");
            }
        }
    }
}

/// `kernel` of `meeting_rules.ptx` (`text`) keeps no check and runs outside the scheduler;
/// its `twins` of `meeting_sm70.ptx` keep the check at both of their collectives and run in
/// the scheduler (block 64, emulated and native warps).
fn cleared_and_twins_scheduled(text: &str, kernel: &str, twins: &[&str]) {
    assert_eq!(checks_kept("meeting_rules.ptx", text, [64, 1, 1], kernel), [0, 0], "{kernel}");
    assert_eq!(scheduled("meeting_rules.ptx", text, [64, 1, 1], kernel), [false; 2], "{kernel}");
    let sm70 = sm70_ptx();
    for twin in twins {
        assert_eq!(checks_kept("meeting_sm70.ptx", &sm70, [64, 1, 1], twin), [2, 2], "{twin}");
        assert_eq!(scheduled("meeting_sm70.ptx", &sm70, [64, 1, 1], twin), [true; 2], "{twin}");
    }
}

/// `kernel` of `meeting_rules.ptx` (`text`; parameters `out`, `in`), one CTA of 64 threads
/// reading `input`, writes `want` on both backends, as the device gets it and through the
/// simulated native lowering.
fn rules_kernel_gives(gpu: &std::sync::Arc<ptxcross::Gpu>, text: &str, kernel: &str, input: &[u32], want: &[u32]) {
    for (path, program) in &rules_programs(text, &[kernel]) {
        for backend in Backend::ALL {
            let mut run = Run::new(gpu);
            let (out, buf) = (run.zeros(want.len() * 4), run.buffer(&u32s(input)));
            run.launch(program, kernel, [1, 1, 1], &[&out.to_le_bytes(), &buf.to_le_bytes()], backend);
            assert_eq!(run.read_u32(out, want.len()), want, "{kernel}, {path}, {backend}");
        }
    }
}

/// The `activemask` rule of the static proof (`Site::member_is_active`): `active_mask_arms`
/// (`meeting_rules.ptx`, block 64) runs `redux`, `vote.ballot` and `bar.warp.sync` in two
/// data-dependent arms, each with the `activemask` taken in its own block as membermask, so
/// the proof clears it (no check, not scheduled) and it gives the spec's values on both
/// backends, the device's translation and the simulated native lowering: per warp, lanes with
/// x % 5 = 0 exited; each arm's mask is its lanes (x even or odd), the even arm's `redux.add`
/// (§9.7.14.12) and the odd arm's `redux.max.u32` of x over them, and the ballot (§9.7.14.9)
/// of x & 2 over them. Its twins, whose lanes of one mask run two instructions, stay in the
/// scheduler and meet (`collectives_at_different_instructions_meet_as_on_sm70`).
#[test]
fn active_masks_of_the_block_clear_the_check() {
    let text = rules_ptx();
    cleared_and_twins_scheduled(&text, "active_mask_arms", &["active_mask_before_branch", "active_mask_guarded"]);
    let Some(gpu) = gpu() else { return };
    // Some lanes of each warp exit (x % 5 = 0); both parities in each warp.
    let input: Vec<u32> = words(0x51f1_5eed).take(64).collect();
    assert!((0..2).all(|w| (0..32).any(|l| input[32 * w + l].is_multiple_of(5)) && (0..2).all(|p| (0..32).any(|l| input[32 * w + l] % 2 == p && !input[32 * w + l].is_multiple_of(5)))));
    let mut want = vec![0u32; 192];
    for w in 0..2 {
        for odd in [0, 1] {
            let group: Vec<usize> = (32 * w..32 * w + 32).filter(|&t| !input[t].is_multiple_of(5) && input[t] % 2 == odd).collect();
            let mask = group.iter().fold(0u32, |b, &t| b | 1 << (t % 32));
            let r = if odd == 0 { group.iter().fold(0u32, |s, &t| s.wrapping_add(input[t])) } else { group.iter().map(|&t| input[t]).max().unwrap() };
            let ballot = group.iter().filter(|&&t| input[t] & 2 != 0).fold(0u32, |b, &t| b | 1 << (t % 32));
            for &t in &group {
                (want[t], want[64 + t], want[128 + t]) = (mask, r, ballot);
            }
        }
    }
    rules_kernel_gives(&gpu, &text, "active_mask_arms", &input, &want);
}

/// The lane guard rule of the static proof (`Graph::guard_holds_members`, and branches on
/// `%laneid`): `lane_halves` (`meeting_rules.ptx`, block 64) runs collectives guarded by, and
/// in the arms of a branch on, `%laneid < 16`, each with the membermask of its half, so the
/// proof clears it, and it gives the spec's values on both backends, the device's translation
/// and the simulated native lowering: per warp, lanes 0-15 get the `redux.add` (§9.7.14.12) of
/// their x and the ballot (§9.7.14.9) of x odd over lanes 0-15, lanes 16-31 the `redux.max.u32`
/// of theirs and lane 20's x (§9.7.8.6 `shfl.idx`). Its twin `lane_guarded_full_mask` stays in
/// the scheduler and meets (`collectives_at_different_instructions_meet_as_on_sm70`).
#[test]
fn lane_guards_holding_their_membermask_clear_the_check() {
    let text = rules_ptx();
    cleared_and_twins_scheduled(&text, "lane_halves", &["lane_guarded_full_mask"]);
    let Some(gpu) = gpu() else { return };
    let input: Vec<u32> = words(0x1a2e_5eed).take(64).collect();
    let mut want = vec![0u32; 128];
    for t in 0..64 {
        let (w, low) = (t / 32 * 32, t % 32 < 16);
        let half: Vec<usize> = if low { (w..w + 16).collect() } else { (w + 16..w + 32).collect() };
        want[t] = if low { half.iter().fold(0u32, |s, &u| s.wrapping_add(input[u])) } else { half.iter().map(|&u| input[u]).max().unwrap() };
        want[64 + t] = if low { half.iter().filter(|&&u| input[u] % 2 == 1).fold(0u32, |b, &u| b | 1 << (u % 32)) } else { input[w + 20] };
    }
    rules_kernel_gives(&gpu, &text, "lane_halves", &input, &want);
}

/// Waiting collectives that keep the meeting check (one `FAULT_WARP_DIVERGED` fault each),
/// kernels that may meet (some check kept), and scheduler kernels (a `FAULT_BARRIER_DEADLOCK`),
/// in `module`.
fn census_of(module: &ptxcross_lower::ir::Module) -> (usize, usize, usize) {
    use ptxcross_lower::ir::{Block, Stmt};
    fn faults(b: &Block, code: u32) -> usize {
        b.stmts
            .iter()
            .map(|s| match s {
                Stmt::Fault { code: c } => usize::from(*c == code),
                Stmt::If { then_body, else_body, .. } => faults(then_body, code) + faults(else_body, code),
                Stmt::Loop { body } => faults(body, code),
                Stmt::Switch { cases, default, .. } => cases.iter().map(|c| faults(&c.body, code)).sum::<usize>() + faults(default, code),
                _ => 0,
            })
            .sum()
    }
    let k = module.kernels.iter().filter(|k| !k.features.warp_fallback);
    let checks: Vec<usize> = k.clone().map(|k| faults(&k.body, abi::FAULT_WARP_DIVERGED)).collect();
    let scheduled = k.filter(|k| faults(&k.body, abi::FAULT_BARRIER_DEADLOCK) > 0).count();
    (checks.iter().sum(), checks.iter().filter(|&&c| c > 0).count(), scheduled)
}

/// The census behind docs/simt.md's figures for the static proof (`lower/src/meeting.rs`):
/// for every SIMT test file, the held-out SIMT cases (`tests/heldout_simt/cases`, totals and
/// the files with a kernel that may meet) and the CUB file (`tests/parse-corpus/large/cub_zoo.sm_80.ptx`,
/// `regen.sh --large`), with the meeting check at every collective (as before the proof), at
/// the collectives of kernels that may meet (before they went to the CTA barrier scheduler),
/// and as lowered now: the waiting collectives keeping the check, the kernels keeping one, the
/// scheduler kernels, (SIMT files) the SPIR-V/WGSL bytes, and the time lowering (and for the
/// SIMT files emitting) took, block 128, emulated warps. With `PTXCROSS_MEETING_WHY=1` `lower`
/// prints, for each kernel the proof cannot clear, the collective it stops at and why.
///   cargo test -p ptxcross-tests --test warp_meeting census -- --ignored --nocapture
#[test]
#[ignore]
fn census() {
    use ptxcross::translate;
    use ptxcross_lower::{LowerOptions, Meeting};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("simt/ptx")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut heldout: Vec<_> = std::fs::read_dir(root.join("heldout_simt/cases")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "ptx")).collect();
    heldout.sort();
    let simt_files = files.len();
    files.extend(heldout);
    files.push(root.join("parse-corpus/large/cub_zoo.sm_80.ptx"));
    // Per group (SIMT test PTX, held-out cases, CUB), per mode.
    let mut totals = [[[0usize; 6]; 3]; 3];
    for (index, path) in files.iter().enumerate().filter(|(_, p)| p.exists()) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let large = name.starts_with("cub_zoo");
        let group = if large { 2 } else { usize::from(index >= simt_files) };
        let file = ptxcross_frontend::SourceFile::new(&name, std::fs::read_to_string(path).unwrap());
        let ast = translate::parse(&file).unwrap();
        let mut row = Vec::new();
        for (i, meeting) in [Meeting::CheckEverywhere, Meeting::Check, Meeting::Meet].into_iter().enumerate() {
            let start = std::time::Instant::now();
            let options = LowerOptions { block: Some([128, 1, 1]), meeting, ..Default::default() };
            let names: Vec<String> = match translate::module_facts(&ast, &file, &options) {
                Ok(f) => f.kernels.iter().map(|k| k.name.clone()).collect(),
                Err(_) => continue,
            };
            let (mut checks, mut meeting_kernels, mut scheduled, mut kernels, mut spirv, mut wgsl) = (0, 0, 0, 0, 0, 0);
            for module in translate::lower_each(&ast, &file, &options, &names).into_iter().flatten() {
                let (c, m, s) = census_of(&module);
                (checks, meeting_kernels, scheduled, kernels) = (checks + c, meeting_kernels + m, scheduled + s, kernels + 1);
                if !large {
                    spirv += translate::emit_spirv(&module).map(|w| w.len() * 4).unwrap_or(0);
                    wgsl += translate::emit_wgsl(&module, translate::Profile::Wgpu).map(|t| t.len()).unwrap_or(0);
                }
            }
            let t = &mut totals[group][i];
            for (slot, v) in t.iter_mut().zip([checks, meeting_kernels, scheduled, kernels, spirv, wgsl]) {
                *slot += v;
            }
            let secs = start.elapsed().as_secs_f64();
            row.push(format!("{checks} checks in {meeting_kernels}/{kernels} kernels, {scheduled} scheduled, {spirv}/{wgsl} B, {secs:.2} s"));
        }
        if group != 1 || row.iter().any(|r| !r.starts_with("0 checks in 0/")) {
            println!("{name}: {}", row.join("  →  "));
        }
    }
    for (group, t) in ["SIMT test PTX", "held-out SIMT cases", "CUB"].iter().zip(totals) {
        println!("total, {group} (checks, kernels keeping one, scheduled, kernels, SPIR-V B, WGSL B; per mode): {t:?}");
    }
}

/// Look-back status words for `lookback_*` (`meeting_rules.ptx`): word (j, t) for j < `n`, t <
/// 64, never 0, with bit 31 (the look-back ends there) set on about a quarter of them and on all
/// of j = 0, bit 30 otherwise, and low bits from 1 to 997.
fn lookback_words(n: usize) -> Vec<u32> {
    (0..n * 64)
        .map(|i| {
            let small = (i as u32 * 37) % 997 + 1;
            let ends = i < 64 || (i as u32).wrapping_mul(2_654_435_761) >> 30 == 0;
            small | if ends { 0x8000_0000 } else { 0x4000_0000 }
        })
        .collect()
}

/// CUB's look-back (`lookback_ballot`) computed from §9.7.12.1 `vote.sync` warp by warp: every
/// lane still walking runs the ballot with the previous ballot as membermask; a lane stops
/// where its word's bit 31 is set. Per thread: the sum of the low 30 bits, the last ballot it
/// ran, and the ballot of the sums' parities after the loop.
fn lookback_reference(words: &[u32], n: usize) -> Vec<[u32; 3]> {
    let mut out = vec![[0u32; 3]; 64];
    for w in 0..2 {
        let (mut walking, mut member) = (u32::MAX, u32::MAX);
        for j in (0..n).rev() {
            let word = |l: usize| words[j * 64 + w * 32 + l];
            let mut ballot = 0;
            for l in (0..32).filter(|l| walking >> l & 1 == 1) {
                out[w * 32 + l][0] = out[w * 32 + l][0].wrapping_add(word(l) & 0x3fff_ffff);
                if (word(l) as i32) > -1 && member >> l & 1 == 1 {
                    ballot |= 1 << l;
                }
            }
            let ran = walking;
            for l in (0..32).filter(|l| ran >> l & 1 == 1) {
                out[w * 32 + l][1] = ballot;
                if (word(l) as i32) < 0 {
                    walking &= !(1 << l);
                }
            }
            member = ballot;
        }
        let odd = (0..32).filter(|l| out[w * 32 + l][0] % 2 == 1).fold(0u32, |b, l| b | 1 << l);
        for l in 0..32 {
            out[w * 32 + l][2] = odd;
        }
    }
    out
}

/// The onesweep rules (`meeting_rules.ptx`, block 64): a shared word loaded right after
/// `bar.sync` at a fixed address is the same in the whole CTA (`tile_from_shared`), and a
/// `vote.ballot` membermask carried through a loop that lanes leave only with their bit clear
/// names just the lanes running it (`lookback_ballot`): no check. Their twins, a word chosen
/// by the lane's parity, a guarded load, and a loop that lanes leave with their bit set, keep
/// it at both shuffles and both ballots.
#[test]
fn onesweep_tile_index_and_lookback_ballot_clear_the_check_and_their_twins_keep_it() {
    let text = rules_ptx();
    for kernel in ["tile_from_shared", "lookback_ballot"] {
        assert_eq!(checks_kept("meeting_rules.ptx", &text, [64, 1, 1], kernel), [0, 0], "{kernel}");
    }
    for kernel in ["tile_per_lane_word", "tile_guarded_load", "lookback_leaves_early"] {
        assert_eq!(checks_kept("meeting_rules.ptx", &text, [64, 1, 1], kernel), [2, 2], "{kernel}");
        assert_eq!(scheduled("meeting_rules.ptx", &text, [64, 1, 1], kernel), [true; 2], "{kernel}");
    }
}

/// The onesweep kernels of `meeting_rules.ptx` on both backends, the device's translation and
/// the simulated native lowering: `tile_from_shared` on 4 CTAs (each shuffles its tile's
/// inputs in the arm of its tile's parity) and `lookback_ballot` give the spec's values
/// computed here; the twins, which now run in the CTA barrier scheduler, end with
/// `FAULT_BARRIER_DEADLOCK` (lanes of one warp hold values of both parities and wait at the
/// `bfly` and the `down` shuffle, which never meet; lanes of the next membermask leave the loop
/// and wait at a ballot of another membermask: both hang on NVIDIA).
#[test]
fn onesweep_tile_index_and_lookback_ballot_run_and_their_twins_never_complete() {
    let Some(gpu) = gpu() else { return };
    let text = rules_ptx();
    let input: Vec<u32> = (0..256u32).map(|i| i.wrapping_mul(2_246_822_519).rotate_left(7)).collect();
    let n = 4usize;
    let words = lookback_words(n);
    let want = lookback_reference(&words, n);
    let kernels = ["tile_from_shared", "lookback_ballot", "tile_per_lane_word", "tile_guarded_load", "lookback_leaves_early"];
    for (path, program) in &rules_programs(&text, &kernels) {
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let has = |k: &str| program.kernel(k).is_some();
            if has("tile_from_shared") {
                let (out, buf, counter) = (run.zeros(512 * 4), run.buffer(&u32s(&input)), run.zeros(4));
                run.launch(program, "tile_from_shared", [4, 1, 1], &[&out.to_le_bytes(), &buf.to_le_bytes(), &counter.to_le_bytes()], backend);
                let got = run.read_u32(out, 512);
                for tile in 0..4 {
                    let x = |t: usize| input[tile * 64 + t];
                    for t in 0..64 {
                        // §9.7.10.6, c = 31: `bfly 1` reads lane ^ 1, `down 1` lane + 1 (lane 31 its own).
                        let arm = if tile % 2 == 1 { x(t ^ 1).wrapping_add(1000) } else if t % 32 == 31 { x(t) } else { x(t + 1) };
                        assert_eq!([got[tile * 64 + t], got[256 + tile * 64 + t]], [arm, tile as u32], "tile_from_shared tile {tile} thread {t}, {path}, {backend}");
                    }
                }
            }
            if has("lookback_ballot") {
                let (out, buf) = (run.zeros(192 * 4), run.buffer(&u32s(&words)));
                run.launch(program, "lookback_ballot", [1, 1, 1], &[&out.to_le_bytes(), &buf.to_le_bytes(), &(n as u32).to_le_bytes()], backend);
                let got = run.read_u32(out, 192);
                for t in 0..64 {
                    assert_eq!([got[t], got[64 + t], got[128 + t]], want[t], "lookback_ballot thread {t}, {path}, {backend}");
                }
            }
            for kernel in ["tile_per_lane_word", "tile_guarded_load", "lookback_leaves_early"] {
                if !has(kernel) {
                    continue;
                }
                let (out, counter) = (run.zeros(1024 * 4), run.zeros(4));
                let tiles = kernel.starts_with("tile");
                let (buf, last) = if tiles {
                    (run.buffer(&u32s(&input)), counter.to_le_bytes().to_vec())
                } else {
                    (run.buffer(&u32s(&words)), (n as u32).to_le_bytes().to_vec())
                };
                let grid = if tiles { [2, 1, 1] } else { [1, 1, 1] };
                let e = run.ctx.launch(program, kernel, grid, &[&out.to_le_bytes(), &buf.to_le_bytes(), &last], backend).expect_err("collectives that never complete must fault");
                let ptxcross::Error::KernelFault { bits, .. } = &e else { panic!("{kernel} {path} {backend}: not a kernel fault: {e}") };
                assert_eq!(*bits, abi::FAULT_BARRIER_DEADLOCK, "{kernel} {path} {backend}: {e}");
            }
        }
    }
}

fn sm70_ptx() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("simt/ptx/meeting_sm70.ptx");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The kernels of `meeting_sm70.ptx` that meet, and the words each thread writes.
const SM70_KERNELS: [(&str, usize); 8] = [
    ("shfl_arms", 1),
    ("syncwarp_arms", 1),
    ("ballot_loop", 2),
    ("redux_match_arms", 2),
    ("partial_mask", 1),
    ("active_mask_before_branch", 2),
    ("active_mask_guarded", 1),
    ("lane_guarded_full_mask", 1),
];

/// What sm_70+ gives for `kernel` of `meeting_sm70.ptx` on CTAs of `block` threads reading
/// `input` (one word per thread), computed from the spec: a collective completes once every
/// non-exited lane of its membermask has run *a* collective of the same kind, qualifiers and
/// membermask (§9.7.8.6 `shfl.sync`, §9.7.12.1 `vote`, §9.7.12.9 `match`, §9.7.12.10 `redux`,
/// §9.7.13.2 `bar.warp.sync`), so with one membermask per group each lane's k-th collective
/// meets the others' k-th. Per output word; `None` where the spec leaves it undefined (a
/// `shfl` from a lane beyond the CTA) or the kernel stores nothing (exited lanes keep 0).
fn sm70_model(kernel: &str, input: &[u32], block: usize) -> Vec<Option<u32>> {
    let per = SM70_KERNELS.iter().find(|k| k.0 == kernel).unwrap().1;
    let mut out = vec![Some(0); input.len() * per];
    for base in (0..input.len()).step_by(block) {
        for w in (0..block).step_by(32) {
            let lanes: Vec<usize> = (0..32).filter(|l| w + l < block).collect();
            let t = |l: usize| base + w + l;
            let x = |l: usize| input[t(l)];
            let has = |l: usize| w + l < block;
            match kernel {
                // Lanes l % 7 = 2 exit; lane 0 and lane 31 (never exited) are the sources.
                "shfl_arms" => {
                    for &l in lanes.iter().filter(|l| *l % 7 != 2) {
                        out[t(l)] = if l < 16 { Some(x(0)) } else { has(31).then(|| x(31).wrapping_mul(3).wrapping_add(1)) };
                    }
                }
                "syncwarp_arms" => {
                    for &l in &lanes {
                        let p = l ^ 16;
                        out[t(l)] = has(p).then(|| if p < 16 { x(p) } else { x(p).wrapping_add(1000) });
                    }
                }
                "ballot_loop" => {
                    let xs: Vec<u32> = lanes.iter().map(|&l| x(l)).collect();
                    for (l, (acc, last)) in loop_ballots(&xs).into_iter().enumerate() {
                        out[2 * t(l)] = Some(acc);
                        out[2 * t(l) + 1] = Some(last);
                    }
                }
                // Lanes l % 5 = 4 exit; even lanes reduce 2x and match x & 3, odd lanes x and
                // (x >> 2) & 3.
                "redux_match_arms" => {
                    let live: Vec<usize> = lanes.iter().copied().filter(|l| l % 5 != 4).collect();
                    let value = |l: usize| if l.is_multiple_of(2) { x(l).wrapping_mul(2) } else { x(l) };
                    let key = |l: usize| if l.is_multiple_of(2) { x(l) & 3 } else { x(l) >> 2 & 3 };
                    let sum = live.iter().fold(0u32, |s, &l| s.wrapping_add(value(l)));
                    for &l in &live {
                        out[2 * t(l)] = Some(sum);
                        out[2 * t(l) + 1] = Some(live.iter().filter(|&&m| key(m) == key(l)).fold(0, |b, &m| b | 1 << m));
                    }
                }
                // `bfly 8` (c = 31: j = lane ^ 8, §9.7.8.6) within lanes 0-15 (x below 8,
                // x + 500 above) and within lanes 16-31 (5x).
                "partial_mask" => {
                    for &l in &lanes {
                        let j = l ^ 8;
                        out[t(l)] = has(j).then(|| match j {
                            ..8 => x(j),
                            8..16 => x(j).wrapping_add(500),
                            _ => x(j).wrapping_mul(5),
                        });
                    }
                }
                // The mask: the warp's lanes (taken before the exits); lanes l % 7 = 2 exit,
                // lanes 0-15 reduce x and lanes 16-31 3x in one meeting.
                "active_mask_before_branch" => {
                    let mask = lanes.iter().fold(0u32, |b, &l| b | 1 << l);
                    let live: Vec<usize> = lanes.iter().copied().filter(|l| l % 7 != 2).collect();
                    let sum = live.iter().fold(0u32, |s, &l| s.wrapping_add(if l < 16 { x(l) } else { x(l).wrapping_mul(3) }));
                    for &l in &live {
                        out[2 * t(l)] = Some(sum);
                        out[2 * t(l) + 1] = Some(mask);
                    }
                }
                // Odd lanes' x and even lanes' 2x in one meeting of the warp's lanes.
                "active_mask_guarded" => {
                    let sum = lanes.iter().fold(0u32, |s, &l| s.wrapping_add(if l % 2 == 1 { x(l) } else { x(l).wrapping_mul(2) }));
                    for &l in &lanes {
                        out[t(l)] = Some(sum);
                    }
                }
                // Lanes 0-15's x and lanes 16-31's 3x in one meeting of the warp's lanes.
                "lane_guarded_full_mask" => {
                    let sum = lanes.iter().fold(0u32, |s, &l| s.wrapping_add(if l < 16 { x(l) } else { x(l).wrapping_mul(3) }));
                    for &l in &lanes {
                        out[t(l)] = Some(sum);
                    }
                }
                _ => unreachable!("{kernel}"),
            }
        }
    }
    out
}

/// A warp whose existing lanes 0.. hold `xs` running `for i < x & 7: b = ballot(bit i + 3 of
/// x)` then `ballot(x & 7 odd)`, all with the full mask: on sm_70+ each lane's k-th ballot meets
/// the others' k-th (lanes with fewer have exited). Per lane: its loop's ballots folded
/// (acc = 33 acc + b) and its last ballot.
fn loop_ballots(xs: &[u32]) -> Vec<(u32, u32)> {
    let trips = |l: usize| (xs[l] & 7) as usize;
    let last = (0..xs.len()).map(trips).max().unwrap_or(0);
    let ballots: Vec<u32> = (0..=last)
        .map(|k| {
            let pred = |l: usize| if k < trips(l) { xs[l] >> (k + 3) & 1 == 1 } else { trips(l) % 2 == 1 };
            (0..xs.len()).filter(|&l| trips(l) >= k && pred(l)).fold(0, |b, l| b | 1 << l)
        })
        .collect();
    (0..xs.len())
        .map(|l| (ballots[..trips(l)].iter().fold(0u32, |a, &b| a.wrapping_mul(33).wrapping_add(b)), ballots[trips(l)]))
        .collect()
}

/// Collectives at different instructions that meet on sm_70+ (`meeting_sm70.ptx`): `__shfl_sync`
/// with a full mask and different sources in an if/else, `__syncwarp()` in both arms
/// exchanging through shared memory, `vote.ballot` in a loop whose trip count differs per lane
/// then after it, `redux` and `match` at two sites, a membermask that is not full, and the two
/// twins of the `activemask` rule (a mask taken before the branch, guarded reductions in its
/// block: [`active_masks_of_the_block_clear_the_check`]) and of the lane guard rule (the full
/// mask under `%laneid < 16` guards: [`lane_guards_holding_their_membermask_clear_the_check`]),
/// with exited lanes and partial warps (blocks 48 and 100, two CTAs): both backends give the values
/// of [`sm70_model`]. The static proof cannot clear any of them, so each runs in the CTA
/// barrier scheduler; lowered with the checked fallback instead (`Meeting::Check`, the lowering
/// they had before, and still where the scheduler refuses a kernel) each faults with
/// `FAULT_WARP_DIVERGED` (block 48, SPIR-V). `kinds_differ` (a ballot and a shuffle, which
/// never meet: undefined, a hang on NVIDIA) ends with `FAULT_BARRIER_DEADLOCK`.
#[test]
fn collectives_at_different_instructions_meet_as_on_sm70() {
    let text = sm70_ptx();
    for (kernel, _) in SM70_KERNELS.iter().chain(&[("kinds_differ", 1)]) {
        assert!(checks_kept("meeting_sm70.ptx", &text, [48, 1, 1], kernel).iter().all(|&n| n >= 1), "{kernel}");
        assert_eq!(scheduled("meeting_sm70.ptx", &text, [48, 1, 1], kernel), [true; 2], "{kernel}");
    }
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    let input: Vec<u32> = words(0x9e37_79b9).take(grid * 48).collect();
    for &(kernel, per) in &SM70_KERNELS {
        let program = program_meeting("meeting_sm70.ptx", &text, [48, 1, 1], kernel, ptxcross_lower::Meeting::Check);
        let mut run = Run::new(&gpu);
        let (out, buf) = (run.zeros(grid * 48 * per * 4), run.buffer(&u32s(&input)));
        let e = run.ctx.launch(&program, kernel, [grid as u32, 1, 1], &[&out.to_le_bytes(), &buf.to_le_bytes()], Backend::Spirv).expect_err("the checked lowering faults");
        let ptxcross::Error::KernelFault { bits, .. } = &e else { panic!("{kernel}: not a kernel fault: {e}") };
        assert_eq!(*bits, abi::FAULT_WARP_DIVERGED, "{kernel} checked: {e}");
    }
    for block in [48usize, 100] {
        let input: Vec<u32> = words(0x9e37_79b9 ^ block as u32).take(grid * block).collect();
        for &(kernel, per) in &SM70_KERNELS {
            let program = program_of("meeting_sm70.ptx", &text, [block as u32, 1, 1], kernel);
            let want = sm70_model(kernel, &input, block);
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let (out, buf) = (run.zeros(grid * block * per * 4), run.buffer(&u32s(&input)));
                run.launch(&program, kernel, [grid as u32, 1, 1], &[&out.to_le_bytes(), &buf.to_le_bytes()], backend);
                let got = run.read_u32(out, want.len());
                for (i, w) in want.iter().enumerate() {
                    if let Some(w) = w {
                        assert_eq!(got[i], *w, "{kernel} block {block} word {i} (thread {}), {backend}", i / per);
                    }
                }
            }
        }
        let program = program_of("meeting_sm70.ptx", &text, [block as u32, 1, 1], "kinds_differ");
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let out = run.zeros(grid * block * 4);
            let e = run.ctx.launch(&program, "kinds_differ", [grid as u32, 1, 1], &[&out.to_le_bytes(), &out.to_le_bytes()], backend).expect_err("collectives that never meet must fault");
            let ptxcross::Error::KernelFault { bits, .. } = &e else { panic!("kinds_differ {backend}: not a kernel fault: {e}") };
            assert_eq!(*bits, abi::FAULT_BARRIER_DEADLOCK, "kinds_differ block {block} {backend}: {e}");
        }
    }
}

/// What meeting in the CTA barrier scheduler costs against the checked lowering it replaces
/// (a measurement; prints, checks nothing), in one process, translated as the host does for
/// the shared device:
/// - the CUB kernels that keep the check (`tests/parse-corpus/large/cub_zoo.sm_80.ptx`, the
///   segmented ones), each kernel's own block shape: translation (lowering, emission of both
///   backends, spirv-val and naga), code size, and, for the kernels whose name contains
///   `PTXCROSS_COST_PIPELINES` (lavapipe takes minutes for some), first-launch pipeline time
///   per backend (`PTXCROSS_COST_BACKENDS=spirv|wgsl`: one only; `create`: `Context::prepare`;
///   `dispatch`: the first launch of one CTA with null parameters minus a second, as
///   `pipeline_build` measures);
/// - kernel time (`Context::last_kernel_time`, the fastest of 9 after a warm-up) and the
///   pipeline's first-launch time (a new program each run, as above) of `warp_misc`
///   (block 100, 64 CTAs: its groups never meet; the proof clears it since meet5, before it ran
///   in the scheduler) and of `meeting_sm70.ptx`'s `ballot_loop` (checked: it faults; so timed on `.target
///   sm_61`, where the same lowering runs, with inputs whose trip counts are the same in each
///   warp), each checked (`Meeting::CheckEverywhere`) and as lowered by default.
///   MESA_SHADER_CACHE_DISABLE=true PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test warp_meeting meeting_cost -- --ignored --nocapture
#[test]
#[ignore]
fn meeting_cost() {
    use ptxcross::{translate, Context, ContextOptions};
    use ptxcross_lower::{LowerOptions, Meeting};
    use std::time::{Duration, Instant};
    let Some(gpu) = gpu() else { return };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let device = ptxcross_tests::launch::device_options(&Backend::ALL);
    let cub = root.join("parse-corpus/large/cub_zoo.sm_80.ptx");
    // The module and pipeline (`Context::prepare`), then what the first launch of one CTA with
    // null parameters costs more than a second (lavapipe compiles at the first dispatch).
    let pipeline_time = |program: &ptxcross::Program, name: &str, backend: Backend| {
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).expect("context");
        let t = Instant::now();
        ctx.prepare(program, name, backend).unwrap_or_else(|e| panic!("{name} ({backend}): {e}"));
        let create = t.elapsed();
        let params = vec![0u8; program.kernel(name).unwrap().param_bytes as usize];
        let mut launch = || {
            let t = Instant::now();
            let _ = ctx.launch_packed(program, name, [1, 1, 1], &params, backend);
            t.elapsed()
        };
        let first = launch();
        let again = launch();
        format!("create {:.0} ms, first dispatch +{:.0} ms", ms(create), ms(first.saturating_sub(again)))
    };
    let backends: Vec<Backend> = match std::env::var("PTXCROSS_COST_BACKENDS").as_deref() {
        Ok("spirv") => vec![Backend::Spirv],
        Ok("wgsl") => vec![Backend::Wgsl],
        _ => Backend::ALL.to_vec(),
    };
    if cub.exists() {
        let file = ptxcross_frontend::SourceFile::new("cub_zoo.sm_80.ptx", std::fs::read_to_string(&cub).unwrap());
        let ast = translate::parse(&file).unwrap();
        let checked = LowerOptions { meeting: Meeting::Check, ..device.clone() };
        let names: Vec<String> = translate::module_facts(&ast, &file, &checked).unwrap().kernels.iter().map(|k| k.name.clone()).collect();
        // CUB's 12 segmented kernels (the ones that kept a check before their offset loads were
        // given to whole warps, `lower/src/warp_loads.rs`), and any kernel keeping one now.
        let keep: Vec<String> = translate::lower_each(&ast, &file, &checked, &names)
            .into_iter()
            .flatten()
            .filter(|m| census_of(m).1 > 0 || m.kernels[0].name.contains("Segmented"))
            .map(|m| m.kernels[0].name.clone())
            .collect();
        // `PTXCROSS_COST_KERNELS=N`: the first N only (0: kernel times alone).
        let limit: usize = std::env::var("PTXCROSS_COST_KERNELS").ok().and_then(|v| v.parse().ok()).unwrap_or(usize::MAX);
        for name in keep.iter().take(limit) {
            // `CheckEverywhere`: the checked lowering (the segmented kernels' fallback before).
            for meeting in [Meeting::CheckEverywhere, Meeting::Meet, Meeting::MeetAlways] {
                let options = LowerOptions { kernel: Some(name.clone()), meeting, ..device.clone() };
                let t = Instant::now();
                let program = translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {}", e.render()));
                let translation = t.elapsed();
                let k = program.kernel(name).unwrap();
                let mut line = format!(
                    "{meeting:?} {name:.48} block {:?}: translate {:.0} ms, SPIR-V {} B, WGSL {} B, shared {} B",
                    k.workgroup_size,
                    ms(translation),
                    program.spirv().map_or(0, <[u32]>::len) * 4,
                    program.wgsl().map_or(0, str::len),
                    k.shared_words * 4
                );
                let pipelines = std::env::var("PTXCROSS_COST_PIPELINES").is_ok_and(|p| !p.is_empty() && name.contains(&p));
                for &backend in backends.iter().filter(|_| pipelines) {
                    line += &format!("; {backend}: {}", pipeline_time(&program, name, backend));
                }
                println!("{line}");
            }
        }
    }
    let timed = |program: &ptxcross::Program, kernel: &str, grid: u32, args: &[&[u8]], backend: Backend| {
        let mut run = Run::new(&gpu);
        run.ctx.time_launches(true);
        let _ = run.ctx.launch(program, kernel, [grid, 1, 1], args, backend);
        // The fastest of 9: the machine is shared, and other work only adds time.
        (0..9)
            .map(|_| {
                run.ctx.launch(program, kernel, [grid, 1, 1], args, backend).unwrap_or_else(|e| panic!("{kernel} {backend}: {e}"));
                ms(run.ctx.last_kernel_time().expect("timed"))
            })
            .fold(f64::INFINITY, f64::min)
    };
    let misc = std::fs::read_to_string(root.join("simt/ptx/warp_misc.ptx")).unwrap();
    let sm70 = sm70_ptx();
    let grid = 64usize;
    let x: Vec<u32> = words(0x3c1d).take(grid * 100).collect();
    // ballot_loop with the trip count (x & 7) the same across each warp: nothing meets.
    let uniform: Vec<u32> = (0..grid * 128).map(|i| (x[i % x.len()] & !7) | (i / 32 % 8) as u32).collect();
    for backend in Backend::ALL {
        let mut row = Vec::new();
        // `CheckEverywhere`: the checked lowering, whether or not the proof clears the kernel.
        for meeting in [Meeting::CheckEverywhere, Meeting::Meet] {
            let misc_p = program_meeting("warp_misc.ptx", &misc, [100, 1, 1], "warp_misc", meeting);
            // Before any launch: the device caches a program's pipelines.
            let misc_pipeline = pipeline_time(&misc_p, "warp_misc", backend);
            let mut run = Run::new(&gpu);
            let (inp, out) = (run.buffer(&u32s(&x)), run.zeros(grid * 100 * 32));
            let t_misc = timed(&misc_p, "warp_misc", grid as u32, &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
            let text = if meeting == Meeting::CheckEverywhere { for_target(&sm70, "sm_61") } else { sm70.clone() };
            let loop_p = program_meeting("meeting_sm70.ptx", &text, [128, 1, 1], "ballot_loop", meeting);
            let loop_pipeline = pipeline_time(&loop_p, "ballot_loop", backend);
            let (inp, out) = (run.buffer(&u32s(&uniform)), run.zeros(grid * 128 * 8));
            let t_loop = timed(&loop_p, "ballot_loop", grid as u32, &[&out.to_le_bytes(), &inp.to_le_bytes()], backend);
            row.push(format!(
                "{meeting:?}: warp_misc {t_misc:.3} ms (pipeline: {misc_pipeline}), ballot_loop {t_loop:.3} ms (pipeline: {loop_pipeline})"
            ));
        }
        println!("{backend} kernel time, {grid} CTAs ({}): {}", gpu.describe(), row.join("; "));
    }
}

/// `tests/simt/src/meeting.cu` compiled by nvcc and clang-16 (`tests/simt/regen.sh`): two
/// `__shfl_sync` in an if/else (lane 0's x below lane 16, lane 31's 3x + 1 above), then
/// `__ballot_sync` in a loop whose trip count x & 7 differs per lane and once after it, blocks
/// 48 and 100 on two CTAs, both backends, against the model of sm_70+ (each lane's k-th ballot
/// meets the others' k-th). Both compilers keep the two shuffle sites and the two ballot sites,
/// so the proof cannot clear the kernel: it runs in the CTA barrier scheduler (and faulted
/// before, checked with `PTXCROSS_MEETING=check`).
#[test]
fn compiled_if_else_shuffles_and_loop_ballots_meet() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(gpu) = gpu() else { return };
    for file in ["meeting.sm80.ptx", "meeting.clang.ptx"] {
        let text = std::fs::read_to_string(root.join("simt/ptx").join(file)).unwrap();
        assert_eq!(scheduled(file, &text, [48, 1, 1], "meeting_arms"), [true; 2], "{file}");
        for block in [48usize, 100] {
            let grid = 2usize;
            let input: Vec<u32> = words(0x51ed ^ block as u32).take(grid * block).collect();
            let mut want = vec![None; 2 * input.len()];
            for base in (0..input.len()).step_by(block) {
                for w in (0..block).step_by(32) {
                    let lanes: Vec<usize> = (0..32).filter(|l| w + l < block).collect();
                    let x = |l: usize| input[base + w + l];
                    let xs: Vec<u32> = lanes.iter().map(|&l| x(l)).collect();
                    for (l, (acc, last)) in loop_ballots(&xs).into_iter().enumerate() {
                        let g = base + w + l;
                        // Lane 31 is the source above lane 15; beyond the CTA it does not exist
                        // (an inactive source lane: undefined).
                        want[2 * g] = if l < 16 { Some(x(0)) } else { lanes.contains(&31).then(|| x(31).wrapping_mul(3).wrapping_add(1)) };
                        want[2 * g + 1] = Some(acc.wrapping_add(last));
                    }
                }
            }
            let program = program_of(file, &text, [block as u32, 1, 1], "meeting_arms");
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let (buf, out) = (run.buffer(&u32s(&input)), run.zeros(grid * block * 8));
                run.launch(&program, "meeting_arms", [grid as u32, 1, 1], &[&buf.to_le_bytes(), &out.to_le_bytes()], backend);
                let got = run.read_u32(out, want.len());
                for (i, w) in want.iter().enumerate() {
                    if let Some(w) = w {
                        assert_eq!(got[i], *w, "{file} block {block} word {i} (thread {}), {backend}", i / 2);
                    }
                }
            }
        }
    }
}

/// `long_meeting` (`meeting_sm70.ptx`, block 64): 100 and 70,000 meetings in a loop, each a
/// round of the CTA barrier scheduler, translated as the host does (`detect_cut_loops` where
/// the driver cuts long loops): the values of `acc = 31 acc + acc of lane ^ 16` (§9.7.8.6
/// `bfly`, c = 31), or, where the driver cut a loop (lavapipe: 65,535 iterations per thread),
/// a launch that faults with `FAULT_LOOP_CUT`, never wrong results.
#[test]
fn a_long_run_of_meetings_gives_the_right_results_or_faults_where_the_driver_cuts_loops() {
    let Some(gpu) = gpu() else { return };
    let text = sm70_ptx();
    let block = 64usize;
    let input: Vec<u32> = words(0x1234_5678).take(block).collect();
    let program = program_of("meeting_sm70.ptx", &text, [block as u32, 1, 1], "long_meeting");
    for n in [100u32, 70_000] {
        let mut want = input.clone();
        for _ in 0..n {
            want = (0..block).map(|t| want[t].wrapping_mul(31).wrapping_add(want[t ^ 16])).collect();
        }
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let (out, buf) = (run.zeros(block * 4), run.buffer(&u32s(&input)));
            match run.ctx.launch(&program, "long_meeting", [1, 1, 1], &[&out.to_le_bytes(), &buf.to_le_bytes(), &n.to_le_bytes()], backend) {
                Ok(()) => {
                    assert_eq!(run.read_u32(out, block), want, "{n} meetings, {backend}");
                    eprintln!("{n} meetings, {backend}: right results");
                }
                Err(ptxcross::Error::KernelFault { bits, .. }) if gpu.cuts_long_loops(backend) => {
                    assert_eq!(bits, abi::FAULT_LOOP_CUT, "{n} meetings, {backend}");
                    assert!(n > 60_000, "{n} meetings cut on {backend}");
                    eprintln!("{n} meetings, {backend}: the driver cut a loop (FAULT_LOOP_CUT)");
                }
                Err(e) => panic!("{n} meetings, {backend}: {e}"),
            }
        }
    }
}

/// A kernel whose loop runs `k` steps `acc = 31 acc + (acc of lane ^ s)`, each step's
/// `shfl.sync.bfly` (s = step % 5 + 1, c = 31, full mask) in the arm of the lane's half of
/// the warp: `n` iterations, out[t] = acc from acc = t (block 64).
fn shuffles_in_a_loop(k: usize) -> String {
    let steps: String = (0..k)
        .map(|i| {
            let s = i % 5 + 1;
            format!(
                "    setp.lt.u32 %p2, %r2, 16;\n    @%p2 bra A{i};\n    shfl.sync.bfly.b32 %r7, %r6, {s}, 31, -1;\n    bra.uni J{i};\nA{i}:\n    shfl.sync.bfly.b32 %r7, %r6, {s}, 31, -1;\nJ{i}:\n    mad.lo.u32 %r6, %r6, 31, %r7;\n"
            )
        })
        .collect();
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry shuffles(.param .u64 out, .param .u32 n)\n{{\n    .reg .pred %p<4>;\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<8>;\n    ld.param.u64 %rd1, [out];\n    ld.param.u32 %r9, [n];\n    cvta.to.global.u64 %rd1, %rd1;\n    mov.u32 %r1, %tid.x;\n    and.b32 %r2, %r1, 31;\n    mov.u32 %r6, %r1;\n    mov.u32 %r5, 0;\nLOOP:\n    setp.ge.u32 %p1, %r5, %r9;\n    @%p1 bra END;\n{steps}    add.u32 %r5, %r5, 1;\n    bra.uni LOOP;\nEND:\n    mul.wide.u32 %rd3, %r1, 4;\n    add.s64 %rd5, %rd1, %rd3;\n    st.global.u32 [%rd5], %r6;\n    ret;\n}}\n"
    )
}

/// The size rule of meeting in the scheduler (`kernel::too_big_to_meet`): 4 divergent shuffle
/// pairs in a loop grow about 7× in the scheduler (137 KB of SPIR-V against 19 KB) and are
/// scheduled, giving the values of §9.7.8.6 (`bfly`, each lane's k-th shuffle meets the
/// others') on both backends, 3 iterations; 400 pairs (scheduler code past 40,000 statements
/// and 3× the checked lowering's) keep the checked lowering, which `Meeting::MeetAlways` would
/// schedule.
#[test]
fn shuffles_in_a_loop_meet_unless_the_scheduler_code_grows_too_large() {
    let text = shuffles_in_a_loop(4);
    assert_eq!(scheduled("shuffles.ptx", &text, [64, 1, 1], "shuffles"), [true; 2]);
    let huge = shuffles_in_a_loop(400);
    let [(checks, _, sched), _] = lowered("huge.ptx", &huge, [64, 1, 1], "shuffles", ptxcross_lower::Meeting::Meet);
    assert_eq!((checks, sched), (800, 0), "the checked lowering");
    let [(checks, _, sched), _] = lowered("huge.ptx", &huge, [64, 1, 1], "shuffles", ptxcross_lower::Meeting::MeetAlways);
    assert_eq!((checks, sched), (0, 1), "scheduled regardless of size");
    let Some(gpu) = gpu() else { return };
    let n = 3;
    let mut want: Vec<u32> = (0..64).collect();
    for _ in 0..n {
        for i in 0..4 {
            want = (0..64).map(|t| want[t].wrapping_mul(31).wrapping_add(want[t ^ (i % 5 + 1)])).collect();
        }
    }
    let program = program_of("shuffles.ptx", &text, [64, 1, 1], "shuffles");
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let out = run.zeros(64 * 4);
        run.launch(&program, "shuffles", [1, 1, 1], &[&out.to_le_bytes(), &(n as u32).to_le_bytes()], backend);
        assert_eq!(run.read_u32(out, 64), want, "{backend}");
    }
}

/// Three loops in a row around warp collectives with the full membermask: the first runs
/// `t = x & 3` times around `redux.sync.add.u32` of x, the second `3 - t` times around one of
/// 2x, so every lane runs three reductions, its k-th meeting the other lanes' k-th at
/// whichever of the two instructions they are (§9.7.12.10 `redux.sync`: "all non-exited
/// threads corresponding to membermask have executed redux.sync with the same qualifiers and
/// same membermask value"); the third runs `u = (x >> 2) & 3` times around
/// `vote.sync.ballot.b32` of bit 4 + i of x, and a lane leaves (and exits) after its u-th, so
/// the i-th ballot is that of the lanes with u > i (exited lanes are not waited for).
/// out[t] = the sums, then the thread's ballots, folded (acc = 31 acc + v). Found by the
/// meeting family of the differential tester (seeds 0x7df and 0x7ef of
/// `meet_programs_match_the_model`: two or three loops in a row around collectives; this
/// kernel runs, the failing shape is [`loops_of_reductions_in_a_row_meet_in_one_warp_ctas`]).
fn consecutive_loops() -> &'static str {
    ".version 8.0
.target sm_80
.address_size 64
.visible .entry consecutive_loops(.param .u64 out, .param .u64 in)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mov.u32 %r11, %ctaid.x;
    mov.u32 %r12, %ntid.x;
    mad.lo.u32 %r11, %r11, %r12, %r1;
    mul.wide.u32 %rd3, %r11, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r3, [%rd4];
    add.s64 %rd5, %rd1, %rd3;
    and.b32 %r4, %r3, 3;
    mov.u32 %r6, 0;
    mov.u32 %r5, %r4;
FIRST:
    setp.eq.u32 %p1, %r5, 0;
    @%p1 bra SECOND_INIT;
    redux.sync.add.u32 %r7, %r3, -1;
    mad.lo.u32 %r6, %r6, 31, %r7;
    sub.u32 %r5, %r5, 1;
    bra FIRST;
SECOND_INIT:
    sub.u32 %r5, 3, %r4;
    shl.b32 %r8, %r3, 1;
SECOND:
    setp.eq.u32 %p1, %r5, 0;
    @%p1 bra DONE;
    redux.sync.add.u32 %r7, %r8, -1;
    mad.lo.u32 %r6, %r6, 31, %r7;
    sub.u32 %r5, %r5, 1;
    bra SECOND;
DONE:
    shr.b32 %r5, %r3, 2;
    and.b32 %r5, %r5, 3;
    mov.u32 %r9, 4;
THIRD:
    setp.eq.u32 %p1, %r5, 0;
    @%p1 bra END;
    shr.b32 %r10, %r3, %r9;
    and.b32 %r10, %r10, 1;
    setp.eq.u32 %p2, %r10, 1;
    vote.sync.ballot.b32 %r7, %p2, -1;
    mad.lo.u32 %r6, %r6, 31, %r7;
    add.u32 %r9, %r9, 1;
    sub.u32 %r5, %r5, 1;
    bra THIRD;
END:
    st.global.u32 [%rd5], %r6;
    ret;
}
"
}

/// [`consecutive_loops`] on 2 CTAs of 32, 48 and 64 threads, both backends, against the
/// values computed here warp by warp: the kernel runs in the CTA barrier scheduler.
#[test]
fn consecutive_loops_of_collectives_with_per_lane_trip_counts_meet() {
    let text = consecutive_loops();
    for block in [32u32, 48, 64] {
        assert_eq!(scheduled("consecutive_loops.ptx", text, [block, 1, 1], "consecutive_loops"), [true; 2], "block {block}");
    }
    let Some(gpu) = gpu() else { return };
    for block in [32usize, 48, 64] {
        let grid = 2usize;
        let input: Vec<u32> = words(0x5eed_7df ^ block as u32).take(grid * block).collect();
        let mut want = vec![0u32; input.len()];
        for w in (0..input.len()).step_by(block).flat_map(|cta| (cta..cta + block).step_by(32)) {
            let lanes: Vec<usize> = (w..(w + 32).min((w / block + 1) * block)).collect();
            let mut acc = 0u32;
            for k in 0..3 {
                let sum = lanes.iter().map(|&t| if k < input[t] & 3 { input[t] } else { input[t].wrapping_mul(2) }).fold(0u32, u32::wrapping_add);
                acc = acc.wrapping_mul(31).wrapping_add(sum);
            }
            let u = |t: usize| input[t] >> 2 & 3;
            for &t in &lanes {
                want[t] = (0..u(t)).fold(acc, |a, i| {
                    let ballot = lanes.iter().filter(|&&l| u(l) > i && input[l] >> (4 + i) & 1 == 1).fold(0u32, |b, &l| b | 1 << (l - w));
                    a.wrapping_mul(31).wrapping_add(ballot)
                });
            }
        }
        let program = program_of("consecutive_loops.ptx", text, [block as u32, 1, 1], "consecutive_loops");
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let (out, buf) = (run.zeros(input.len() * 4), run.buffer(&u32s(&input)));
            run.launch(&program, "consecutive_loops", [grid as u32, 1, 1], &[&out.to_le_bytes(), &buf.to_le_bytes()], backend);
            assert_eq!(run.read_u32(out, input.len()), want, "block {block}, {backend}");
        }
    }
}

/// Three loops in a row around `redux.sync.max.u32 … -1` in the differential tester's frame
/// (`tests/src/difftest`: registers, predicates, local and shared words loaded from the inputs
/// and stored at the exit), one CTA of 32 threads: the first loop runs `t = %r7 & 3` times, the
/// second `3 - t` (every lane runs three reductions there, its k-th meeting the others' k-th
/// at whichever instruction), the third `%r0 & 3` times, after which a lane exits (the i-th
/// reduction is over the lanes with more than i iterations: exited lanes are not waited for,
/// §9.7.12.10). Found by the meeting family of the differential tester (seeds 0x7df, 0x7ef of
/// `meet_programs_match_the_model`); compared with its model (`difftest::model`, the sm_70
/// rule written from the spec). With blocks of 64, or without the frame's local and shared
/// words, the kernel runs in the CTA barrier scheduler and matches. With 32 the scheduler's
/// lowering is refused (`kernel::lower_kernel` finishing it: `simt::check_structured`, "a
/// barrier (or warp collective) under thread-dependent control flow"), the checked lowering
/// runs, and the launch faults with `FAULT_WARP_DIVERGED` ("… it refused this kernel"): a
/// defined sm_70+ program that does not run. Seen with a debug print in `simt.rs`: the
/// structurizer emitted the scheduler's kernel as its state machine (the resume `switch`
/// enters the three loops in their middle), whose state follows the per-thread resume point,
/// so the scheduler's round barriers sit under thread-dependent control. Whether that happens
/// depends on the code's size and shape (the fuzzer's full programs hit it with blocks of 48
/// and 64 too: about 1 program in 15). Cause (sched6): the region of the scheduler's round loop
/// could not be structured within its duplication budget, which grows with the round's own code
/// (thread 0's bookkeeping is unrolled per warp, so one-warp CTAs have the smallest), and the
/// whole region became the state machine. Fixed in `lower/src/structurize.rs`: such a region is
/// cut at its entry's post-dominators, so the round barriers stay at the loop's top level.
#[test]
fn loops_of_reductions_in_a_row_meet_in_one_warp_ctas() {
    use ptxcross_tests::difftest::program::*;
    use ptxcross_tests::difftest::{Case, Runner, Verdict};
    let Some(gpu) = ptxcross_tests::launch::gpu_or_skip() else { return };
    let redux = |d: u8| Stmt::Coll(Coll::Redux { op: ReduxOp::Max, signed: false, d, a: 5, m: Mask::Full });
    let trip = |reg: u8| Trip { reg, mask: 3, add: 0 };
    let body = vec![
        Stmt::Ins(None, Ins::Bin { op: Bin::And, ty: IntTy::U32, d: Reg::R(7), a: Src::Reg(Reg::R(7)), b: Src::Imm(3) }),
        Stmt::Loop { do_while: false, trip: trip(7), body: vec![redux(4)] },
        Stmt::Ins(None, Ins::Bin { op: Bin::Sub, ty: IntTy::U32, d: Reg::R(7), a: Src::Imm(3), b: Src::Reg(Reg::R(7)) }),
        Stmt::Loop { do_while: false, trip: trip(7), body: vec![redux(3)] },
        Stmt::Loop { do_while: false, trip: trip(0), body: vec![redux(2)] },
    ];
    let mut runner = Runner::new(gpu);
    let mut verdicts = Vec::new();
    for block in [64u32, 32] {
        let n = block as usize;
        let input: Vec<u32> = words(0x7df ^ block).take(n * NIN).collect();
        let scratch: Vec<u32> = words(0x7ef ^ block).take(n * NG).collect();
        let case = Case { program: Program { body: body.clone(), grid: 1, block, funcs: Vec::new() }, input, scratch };
        let e = case.expected().expect("a defined program");
        assert!(!e.deadlock && e.meetings > 0, "block {block}: the lanes meet");
        verdicts.push((block, runner.check(&case)));
    }
    assert!(verdicts.iter().all(|(_, v)| *v == Verdict::Pass), "{verdicts:#?}");
}

/// CUB's segmented reduction in small (`lower/src/warp_loads.rs`; block 64, one segment per
/// CTA): `begin[ctaid]`/`end[ctaid]` loaded, a branch on the segment's size, then a strided loop
/// and `redux.sync.add` (more than 64 elements) or one element per lane and a
/// `shfl.sync.bfly` sum. Thread t of CTA c writes its warp's sum and the `end` it read to
/// `out[2(64c + t)]`, `out[2(64c + t) + 1]`. With `race` ≠ 0, thread 37 (warp 1) of each CTA
/// first sets the next CTA's `end` to that CTA's `begin + race`, while that CTA may be reading
/// it.
const SEGMENTED_SUM: &str = ".version 8.5\n.target sm_80\n.address_size 64\n\
.visible .entry segmented_sum(.param .u64 out, .param .u64 begin, .param .u64 end, .param .u64 data, .param .u32 race)\n{\n\
    .reg .pred %p<8>;\n    .reg .b32 %r<32>;\n    .reg .b64 %rd<16>;\n\
    ld.param.u64 %rd1, [out];\n    ld.param.u64 %rd2, [begin];\n    ld.param.u64 %rd3, [end];\n    ld.param.u64 %rd4, [data];\n\
    ld.param.u32 %r20, [race];\n    mov.u32 %r1, %tid.x;\n    mov.u32 %r2, %ctaid.x;\n    mul.wide.u32 %rd5, %r2, 4;\n\
    add.s64 %rd6, %rd2, %rd5;\n    ld.global.u32 %r3, [%rd6];\n    add.s64 %rd7, %rd3, %rd5;\n    ld.global.u32 %r4, [%rd7];\n\
    setp.ne.u32 %p5, %r20, 0;\n    setp.eq.u32 %p6, %r1, 37;\n    and.pred %p5, %p5, %p6;\n    @!%p5 bra NO_RACE;\n\
    mov.u32 %r21, %nctaid.x;\n    add.u32 %r22, %r2, 1;\n    rem.u32 %r22, %r22, %r21;\n    mul.wide.u32 %rd12, %r22, 4;\n\
    add.s64 %rd13, %rd2, %rd12;\n    ld.global.u32 %r23, [%rd13];\n    add.u32 %r24, %r23, %r20;\n    add.s64 %rd14, %rd3, %rd12;\n\
    st.global.u32 [%rd14], %r24;\nNO_RACE:\n\
    sub.s32 %r5, %r4, %r3;\n    mov.u32 %r6, 0;\n    setp.gt.s32 %p1, %r5, 64;\n    @%p1 bra LARGE;\n\
    setp.lt.s32 %p2, %r1, %r5;\n    @!%p2 bra SMALL_SUM;\n    add.s32 %r7, %r3, %r1;\n    mul.wide.s32 %rd8, %r7, 4;\n\
    add.s64 %rd9, %rd4, %rd8;\n    ld.global.u32 %r6, [%rd9];\nSMALL_SUM:\n\
    shfl.sync.bfly.b32 %r8, %r6, 16, 31, -1;\n    add.s32 %r6, %r6, %r8;\n    shfl.sync.bfly.b32 %r8, %r6, 8, 31, -1;\n    add.s32 %r6, %r6, %r8;\n\
    shfl.sync.bfly.b32 %r8, %r6, 4, 31, -1;\n    add.s32 %r6, %r6, %r8;\n    shfl.sync.bfly.b32 %r8, %r6, 2, 31, -1;\n    add.s32 %r6, %r6, %r8;\n\
    shfl.sync.bfly.b32 %r8, %r6, 1, 31, -1;\n    add.s32 %r6, %r6, %r8;\n    bra.uni STORE;\n\
LARGE:\n    add.s32 %r7, %r3, %r1;\nLOOP:\n    setp.ge.s32 %p3, %r7, %r4;\n    @%p3 bra LARGE_SUM;\n    mul.wide.s32 %rd8, %r7, 4;\n\
    add.s64 %rd9, %rd4, %rd8;\n    ld.global.u32 %r8, [%rd9];\n    add.s32 %r6, %r6, %r8;\n    add.s32 %r7, %r7, 64;\n    bra.uni LOOP;\n\
LARGE_SUM:\n    redux.sync.add.u32 %r6, %r6, -1;\n\
STORE:\n    shl.b32 %r25, %r2, 6;\n    add.u32 %r25, %r25, %r1;\n    mul.wide.u32 %rd10, %r25, 8;\n    add.s64 %rd11, %rd1, %rd10;\n\
    st.global.v2.u32 [%rd11], {%r6, %r4};\n    ret;\n}\n";

/// `SEGMENTED_SUM` where lanes 0-2 of each warp exit first (so the lowest lane executing the
/// loads is lane 3) and the small arm sums with `redux.sync.add` (its bfly shuffles would read
/// exited lanes, §9.7.8.6: unpredictable).
fn segmented_sum_with_exits() -> String {
    let mut text = SEGMENTED_SUM.to_string();
    for k in [16, 8, 4, 2, 1] {
        // Each shuffle adds 0 instead; the first one becomes the sum.
        let shfl = format!("shfl.sync.bfly.b32 %r8, %r6, {k}, 31, -1;");
        assert!(text.contains(&shfl));
        let sum = if k == 16 { "redux.sync.add.u32 %r6, %r6, -1;\n    " } else { "" };
        text = text.replace(&shfl, &format!("{sum}mov.u32 %r8, 0;"));
    }
    let entry = "mov.u32 %r2, %ctaid.x;\n";
    assert!(text.contains(entry));
    text.replace(entry, &format!("{entry}    and.b32 %r26, %r1, 31;\n    setp.lt.u32 %p7, %r26, 3;\n    @%p7 exit;\n"))
}

/// The sum warp `w` of `segmented_sum` computes for a segment `begin..end` of `data` (written
/// from the kernel's arms: signed size and bounds as `setp.*.s32` compares them), over its
/// lanes from `first`.
fn segmented_sum_reference(data: &[u32], begin: u32, end: u32, w: usize, first: usize) -> u32 {
    let (b, e) = (begin as i32, end as i32);
    let lanes = 32 * w as i32 + first as i32..32 * w as i32 + 32;
    if e.wrapping_sub(b) > 64 {
        lanes.flat_map(|t| (b + t..e).step_by(64)).fold(0u32, |s, i| s.wrapping_add(data[i as usize]))
    } else {
        lanes.filter(|&t| t < e.wrapping_sub(b)).fold(0u32, |s, t| s.wrapping_add(data[(b + t) as usize]))
    }
}

/// A segmented reduction shaped like CUB's (`SEGMENTED_SUM`): the proof clears it once its two
/// offset loads, per CTA and before any store of the thread, are given to whole warps
/// (`lower/src/warp_loads.rs`): no meeting check, not scheduled (before, like CUB's 12, it ran in
/// the CTA barrier scheduler). On both backends, the device's translation and the simulated
/// native lowering, 6 CTAs with segments of 10, 190, 64, 1, 0 and 135 elements give the sums
/// computed here. Then the race: thread 37 of each CTA rewrites the next CTA's `end` during the
/// launch (sizes become 100, crossing the branch), 4 launches per program and backend; each
/// warp must read one value, the old `end` or the new one (all its lanes agree, as one NVIDIA
/// load per lane could give), and sum its segment accordingly. The same where lanes 0-2 of each
/// warp exit first ([`segmented_sum_with_exits`]: the value comes from lane 3).
#[test]
fn segment_offsets_loaded_once_per_warp_clear_the_check_and_survive_a_race() {
    let name = "segmented_sum.ptx";
    let with_exits = segmented_sum_with_exits();
    for text in [SEGMENTED_SUM, &with_exits] {
        assert_eq!(lowered(name, text, [64, 1, 1], "segmented_sum", ptxcross_lower::Meeting::Check).map(|c| c.0), [0, 0]);
        assert_eq!(scheduled(name, text, [64, 1, 1], "segmented_sum"), [false; 2]);
    }
    let Some(gpu) = gpu() else { return };
    let begin: [u32; 6] = [0, 10, 200, 264, 265, 265];
    let end: [u32; 6] = [10, 200, 264, 265, 265, 400];
    let race = 100u32;
    let data: Vec<u32> = words(0x5e6_5eed).map(|x| x & 0xffff).take(600).collect();
    for (text, first) in [(SEGMENTED_SUM, 0), (with_exits.as_str(), 3)] {
        let programs = [
            ("device", program_of(name, text, [64, 1, 1], "segmented_sum")),
            ("simulated native", simulated_native_program_of(name, text, [64, 1, 1], "segmented_sum")),
        ];
        for (path, program) in &programs {
            for backend in Backend::ALL {
                for (race, launches) in [(0, 1), (race, 4)] {
                    for _ in 0..launches {
                        let mut run = Run::new(&gpu);
                        let out = run.zeros(6 * 64 * 8);
                        let (b, e, d) = (run.buffer(&u32s(&begin)), run.buffer(&u32s(&end)), run.buffer(&u32s(&data)));
                        let args: [&[u8]; 5] = [&out.to_le_bytes(), &b.to_le_bytes(), &e.to_le_bytes(), &d.to_le_bytes(), &race.to_le_bytes()];
                        run.launch(program, "segmented_sum", [6, 1, 1], &args, backend);
                        let got = run.read_u32(out, 6 * 64 * 2);
                        for c in 0..6 {
                            for w in 0..2 {
                                let lane = |l: usize| (got[2 * (64 * c + 32 * w + l)], got[2 * (64 * c + 32 * w + l) + 1]);
                                let seen = lane(first).1;
                                let allowed = if race == 0 { vec![end[c]] } else { vec![end[c], begin[c] + race] };
                                let at = format!("{path}, {backend}, lanes from {first}, race {race}: CTA {c} warp {w}");
                                assert!(allowed.contains(&seen), "{at} read end {seen}");
                                let want = segmented_sum_reference(&data, begin[c], seen, w, first);
                                for l in 0..32 {
                                    assert_eq!(lane(l), if l < first { (0, 0) } else { (want, seen) }, "{at} lane {l}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Loops of collectives in a row whose per-lane trip counts complement each other (`t = %r7 &
/// 3`, then `3 - t`, `t`, `3 - t`), in the differential tester's frame: every lane runs the same
/// number of collectives (2 and 4 loops), each at whichever loop's instruction, so a warp's
/// lanes meet across the loops (sm_70+, §9.7.12.10 `redux`, §9.7.8.6 `shfl`, §9.7.12.1 `vote`). 2, 3 and 4 loops,
/// while and do-while loops (a do-while runs `t + 1`), `redux`, `shfl.bfly` and `vote.ballot`
/// alone or together in one body, CTAs of 32, 48, 96 and 100 threads (partial warps), both
/// backends; each result feeds the next collective's source, so a lane meeting the wrong
/// iteration shows. Expected values: the model (`Case::expected`, the sm_70 rule written from
/// the spec). Each kernel must run in the CTA barrier scheduler: before sched6 the one-warp
/// CTAs' scheduler kernel was refused and the launch faulted with `FAULT_WARP_DIVERGED`.
#[test]
fn loops_of_collectives_in_a_row_meet_whatever_the_cta_size() {
    use ptxcross_tests::difftest::program::*;
    use ptxcross_tests::difftest::{Case, Runner, Verdict};
    #[derive(Clone, Copy, Debug)]
    enum K {
        Redux,
        Shfl,
        Vote,
    }
    let coll = |k: K| -> Vec<Stmt> {
        let c = match k {
            K::Redux => Coll::Redux { op: ReduxOp::Add, signed: false, d: 4, a: 5, m: Mask::Full },
            K::Shfl => Coll::Shfl { mode: ShflMode::Bfly, d: 4, p: None, a: 5, b: Src::Imm(1), c: 31, m: Mask::Full },
            K::Vote => Coll::Vote { mode: VoteMode::Ballot, d: 4, a: Guard { p: 1, neg: false }, m: Mask::Full },
        };
        let r = |i| Src::Reg(Reg::R(i));
        vec![
            Stmt::Coll(c),
            // %r6 = %r6 * 31 + %r4 (every result counts, in order); the next source depends on it.
            Stmt::Ins(None, Ins::Bin { op: Bin::MulLo, ty: IntTy::U32, d: Reg::R(6), a: r(6), b: Src::Imm(31) }),
            Stmt::Ins(None, Ins::Bin { op: Bin::Add, ty: IntTy::U32, d: Reg::R(6), a: r(6), b: r(4) }),
            Stmt::Ins(None, Ins::Bin { op: Bin::Xor, ty: IntTy::U32, d: Reg::R(5), a: r(5), b: r(6) }),
        ]
    };
    let program = |loops: usize, do_while: &[bool], kinds: &[K], block: u32| {
        let r = |i| Src::Reg(Reg::R(i));
        let mut body = vec![Stmt::Ins(None, Ins::Bin { op: Bin::And, ty: IntTy::U32, d: Reg::R(7), a: r(7), b: Src::Imm(3) })];
        for i in 0..loops {
            if i > 0 {
                body.push(Stmt::Ins(None, Ins::Bin { op: Bin::Sub, ty: IntTy::U32, d: Reg::R(7), a: Src::Imm(3), b: r(7) }));
            }
            let dw = do_while[i % do_while.len()];
            let trip = Trip { reg: 7, mask: 3, add: dw as u32 };
            body.push(Stmt::Loop { do_while: dw, trip, body: kinds.iter().flat_map(|&k| coll(k)).collect() });
        }
        Program { body, grid: 2, block, funcs: Vec::new() }
    };
    // Do-while patterns keep a lane's total the same for 2 and 4 loops; with 3 the lanes of
    // larger `t` run their last collectives among themselves once the others exited (`redux` and
    // `vote` only: a shuffle from an exited lane is undefined).
    let cases: &[(usize, &[bool], &[K], u32)] = &[
        (2, &[false], &[K::Redux], 32),
        (3, &[false], &[K::Redux], 32),
        (4, &[true], &[K::Redux], 32),
        (2, &[true], &[K::Vote], 32),
        (4, &[false], &[K::Shfl], 32),
        (4, &[false, true], &[K::Redux, K::Vote, K::Shfl], 32),
        (3, &[true], &[K::Redux, K::Vote], 48),
        (2, &[true], &[K::Shfl], 48),
        (4, &[true, false], &[K::Vote], 96),
        (2, &[false], &[K::Shfl, K::Vote], 100),
        (2, &[true, false], &[K::Redux], 100),
        (3, &[false], &[K::Vote, K::Redux], 100),
    ];
    let gpu = ptxcross_tests::launch::gpu_or_skip();
    let mut runner = gpu.map(Runner::new);
    let mut failures = Vec::new();
    for (n, &(loops, dw, kinds, block)) in cases.iter().enumerate() {
        let threads = 2 * block as usize;
        let input: Vec<u32> = words(0x5c6e_d600 ^ n as u32).take(threads * NIN).collect();
        let scratch: Vec<u32> = words(0x5c6e_d6ff ^ n as u32).take(threads * NG).collect();
        let case = Case { program: program(loops, dw, kinds, block), input, scratch };
        let what = format!("{loops} loops, do-while {dw:?}, {kinds:?}, block {block}");
        let e = case.expected().unwrap_or_else(|why| panic!("{what}: a defined program: {why}"));
        assert!(!e.deadlock && e.meetings > 0, "{what}: the lanes meet");
        assert_eq!(scheduled("difftest.ptx", &case.ptx(), [block, 1, 1], "difftest"), [true; 2], "{what}: the CTA barrier scheduler runs it");
        if let Some(runner) = runner.as_mut() {
            let v = runner.check(&case);
            if v != Verdict::Pass {
                failures.push((what, v));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
