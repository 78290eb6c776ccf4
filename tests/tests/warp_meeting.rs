//! Warp collectives at different instructions in divergent branches (tests/simt/ptx/
//! divergent_collectives.ptx; the NVIDIA probe is tests/nvidia/probes/). On sm_70+ a collective
//! waits for "all non-exited threads corresponding to membermask" to execute a collective of
//! the same kind and membermask (ISA 8.5 §9.7.8.6 `shfl.sync`, the same for `vote.sync`):
//! lanes 0-15 and 16-31 running their own `shfl.sync.bfly … -1` / `vote.sync.ballot … -1` meet
//! (an H200 gave the meeting values through the CUDA driver). Outside the CTA barrier scheduler
//! the emulation and the native subgroup path cannot meet them: they record
//! `abi::FAULT_WARP_DIVERGED` instead of a wrong result. Programs whose missing membermask
//! lanes have exited, exit later without a collective, or lie beyond a partial warp, and
//! partial membermasks equal to the branch's lanes, must not fault and give the spec's values.
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

/// Both probe kernels, on both backends, through the translation the device gets (native where
/// its subgroups hold warps) and through the native lowering with simulated subgroups: the
/// launch faults with `FAULT_WARP_DIVERGED` at one of the two collectives, and the program
/// runs again (the same fault, not a stale state).
#[test]
fn collectives_of_both_halves_at_different_instructions_fault_instead_of_a_wrong_result() {
    let Some(gpu) = gpu() else { return };
    let text = ptx();
    for (kernel, needle) in [
        ("shfl_bfly", "shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1"),
        ("ballot", "vote.sync.ballot.b32 %r3, %p2, -1"),
        ("syncwarp", "bar.warp.sync -1;"),
    ] {
        let sites: Vec<String> = lines_of(&text, needle).iter().map(|l| format!("divergent_collectives.ptx:{l}:5")).collect();
        assert_eq!(sites.len(), 2, "{kernel}");
        let programs = [
            ("device", program_of("divergent_collectives.ptx", &text, [32, 1, 1], kernel)),
            ("simulated native", simulated_native_program("divergent_collectives.ptx", &text, [32, 1, 1])),
        ];
        for (path, program) in &programs {
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let out = run.zeros(32 * 4);
                for attempt in 0..2 {
                    let e = run.ctx.launch(program, kernel, [1, 1, 1], &[&out.to_le_bytes()], backend).expect_err("lanes meeting at two instructions must fault");
                    let ptxcross::Error::KernelFault { bits, site, .. } = &e else { panic!("{kernel} {path} {backend}: not a kernel fault: {e}") };
                    assert_eq!(*bits, abi::FAULT_WARP_DIVERGED, "{kernel} {path} {backend} #{attempt}: {e}");
                    assert!(site.as_ref().is_some_and(|s| sites.iter().any(|w| s.starts_with(w.as_str()))), "{kernel} {path} {backend}: site {site:?}, want one of {sites:?}");
                    assert!(e.to_string().contains("membermask lanes are at another instruction"), "{e}");
                }
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
