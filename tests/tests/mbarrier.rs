//! `mbarrier` objects (PTX ISA 8.5 §9.7.14.15; lower/src/inst/mbarrier.rs): nvcc 13.5 kernels
//! using `cuda::barrier<thread_scope_block>` and inline `mbarrier` PTX (tests/mbarrier/src/
//! mbarrier.cu, PTX for sm_80 (`test_wait` loops) and sm_90 (`try_wait` loops) by
//! tests/mbarrier/regen.sh), on both backends, checked against the kernels' definitions
//! computed on the CPU; and hand-written PTX for the edge cases of the ISA text.
//!   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test mbarrier

mod simt_util;
use ptxcross::Backend;
use ptxcross_lower::abi;
use simt_util::*;

const FILES: [&str; 2] = ["mbarrier.sm80.ptx", "mbarrier.sm90.ptx"];

fn ptx(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mbarrier/ptx").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn input(seed: u32, n: usize) -> Vec<u32> {
    words(seed).take(n).collect()
}

/// `kernel` of each file run on each backend over `grid` CTAs of `block` threads, with the
/// arguments ([input,] output, scalars…): the output words of each run, with its label.
fn outputs(gpu: &std::sync::Arc<ptxcross::Gpu>, kernel: &str, block: usize, grid: usize, inp: Option<&[u32]>, scalars: &[u32]) -> Vec<(String, Vec<u32>)> {
    let total = block * grid;
    let mut runs = Vec::new();
    for file in FILES {
        let program = program_of(file, &ptx(file), [block as u32, 1, 1], kernel);
        for backend in Backend::ALL {
            let mut run = Run::new(gpu);
            let mut args: Vec<Vec<u8>> = Vec::new();
            if let Some(inp) = inp {
                args.push(run.buffer(&u32s(inp)).to_le_bytes().to_vec());
            }
            let o = run.zeros(total * 4);
            args.push(o.to_le_bytes().to_vec());
            args.extend(scalars.iter().map(|v| v.to_le_bytes().to_vec()));
            let args: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
            run.launch(&program, kernel, [grid as u32, 1, 1], &args, backend);
            runs.push((format!("{file}, block {block}, {backend}"), run.read_u32(o, total)));
        }
    }
    runs
}

/// `stencil`: a three-point stencil over several phases, each ended by `arrive_and_wait`.
#[test]
fn block_barrier_arrive_and_wait_over_several_phases() {
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    for block in [48usize, 100, 256] {
        let inp = input(0x51ce_0001 ^ block as u32, block * grid);
        for phases in [1u32, 4] {
            let mut want = Vec::new();
            for c in 0..grid {
                let mut cur: Vec<u32> = inp[c * block..(c + 1) * block].to_vec();
                for p in 0..phases {
                    cur = (0..block)
                        .map(|t| {
                            let (l, r) = (cur[(t + block - 1) % block], cur[(t + 1) % block]);
                            l.wrapping_mul(3).wrapping_add(cur[t].wrapping_mul(5)).wrapping_add(r ^ p)
                        })
                        .collect();
                }
                want.extend(cur);
            }
            for (label, got) in outputs(&gpu, "stencil", block, grid, Some(&inp), &[phases]) {
                assert_eq!(got, want, "{label}, {phases} phases");
            }
        }
    }
}

/// `copy_async`: `cuda::memcpy_async` into shared memory completing on the barrier
/// (`cp.async` + `cp.async.mbarrier.arrive`), then `arrive_and_wait`.
#[test]
fn memcpy_async_completes_on_the_barrier() {
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    for block in [48usize, 256] {
        let inp = input(0xc0c0_0002 ^ block as u32, block * grid);
        let want: Vec<u32> = (0..block * grid)
            .map(|g| {
                let (c, t) = (g / block, g % block);
                inp[c * block + (t + 1) % block].wrapping_mul(2).wrapping_add(inp[g])
            })
            .collect();
        for (label, got) in outputs(&gpu, "copy_async", block, grid, Some(&inp), &[]) {
            assert_eq!(got, want, "{label}");
        }
    }
}

/// `split_and_drop`: token-based `arrive` then `wait` with work in between, for the threads
/// below `keep`; the others `arrive_and_drop` in the first phase, shrinking the expected count.
#[test]
fn split_arrive_wait_and_arrive_and_drop() {
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    for (block, keep) in [(100usize, 37usize), (256, 256), (256, 64)] {
        let total = block * grid;
        let inp = input(0xd00d_0003 ^ block as u32 ^ keep as u32, total);
        for phases in [1u32, 3] {
            let mut want = vec![0u32; total];
            for c in 0..grid {
                let mut sm0: Vec<u32> = inp[c * block..(c + 1) * block].to_vec();
                let mut sm1 = vec![0u32; block];
                for t in keep..block {
                    want[c * block + t] = sm0[t].wrapping_add(1);
                }
                for p in 0..phases {
                    let (src, dst) = if p & 1 == 0 { (&sm0, &mut sm1) } else { (&sm1, &mut sm0) };
                    let next: Vec<u32> = (0..keep).map(|t| src[(t + 1) % keep].wrapping_add(p)).collect();
                    dst[..keep].copy_from_slice(&next);
                }
                let fin = if phases & 1 == 0 { &sm0 } else { &sm1 };
                for t in 0..keep {
                    let mut acc = (t as u32).wrapping_mul(7);
                    for _ in 0..5 * phases {
                        acc = acc.wrapping_mul(1664525).wrapping_add(1013904223);
                    }
                    want[c * block + t] = fin[t] ^ acc;
                }
            }
            for (label, got) in outputs(&gpu, "split_and_drop", block, grid, Some(&inp), &[keep as u32, phases]) {
                assert_eq!(got, want, "{label}, keep {keep}, {phases} phases");
            }
        }
    }
}

/// `parity`: `mbarrier.test_wait.parity` loops over several phases.
#[test]
fn parity_waits_over_several_phases() {
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    for block in [48usize, 256] {
        let inp = input(0xbabe_0004 ^ block as u32, block * grid);
        for phases in [1u32, 2, 5] {
            let mut want = Vec::new();
            for c in 0..grid {
                let mut cur: Vec<u32> = inp[c * block..(c + 1) * block].to_vec();
                for _ in 0..phases {
                    cur = (0..block).map(|t| cur[(t + 3) % block].wrapping_add(cur[t])).collect();
                }
                want.extend(cur);
            }
            for (label, got) in outputs(&gpu, "parity", block, grid, Some(&inp), &[phases]) {
                assert_eq!(got, want, "{label}, {phases} phases");
            }
        }
    }
}

/// `pending`: the pending counts that `mbarrier.arrive.noComplete` tokens hold (§9.7.14.15.17:
/// the count before the arrive-on): the CTA's threads see n + 2, n + 1, …, 3 in some order.
#[test]
fn pending_count_of_no_complete_arrivals() {
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    for block in [48usize, 256] {
        let want: Vec<u32> = (3..block as u32 + 3).collect();
        for (label, got) in outputs(&gpu, "pending", block, grid, None, &[]) {
            for c in 0..grid {
                let mut seen = got[c * block..(c + 1) * block].to_vec();
                seen.sort_unstable();
                assert_eq!(seen, want, "{label}, CTA {c}");
            }
        }
    }
}

fn edge() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mbarrier/edge.ptx");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The waiting threads' branch comes first in program order (and in the structurized
/// order), the producer's second, and the producer comes late (four rounds of its own named
/// barrier first): the CTA barrier scheduler parks the waiters until the phase completes and
/// runs the producer, so the waiters read its store (§9.7.14.15.16's ordering 1).
#[test]
fn consumers_waiting_before_the_producer_in_program_order_see_its_data() {
    let Some(gpu) = gpu() else { return };
    let text = edge();
    // `consumer_in_function`: the same with the wait, guarded, in a device function.
    for kernel in ["consumer_first", "consumer_in_function"] {
        let program = program_of("edge.ptx", &text, [64, 1, 1], kernel);
        for (backend, value) in Backend::ALL.into_iter().zip([12345u32, 67890]) {
            let want: Vec<u32> = (0..64).map(|t| if t < 32 { value } else { 7 }).collect();
            let mut run = Run::new(&gpu);
            let o = run.zeros(64 * 4);
            run.launch(&program, kernel, [1, 1, 1], &[&o.to_le_bytes(), &value.to_le_bytes()], backend);
            assert_eq!(run.read_u32(o, 64), want, "{kernel}, {backend}");
        }
    }
}

/// Pending counts and phases by the ISA's rules (§9.7.14.15.6, .13, .14, .17): see `counts`
/// in tests/mbarrier/edge.ptx.
#[test]
fn pending_counts_phases_and_arrive_drop_follow_the_isa() {
    let Some(gpu) = gpu() else { return };
    let program = program_of("edge.ptx", &edge(), [1, 1, 1], "counts");
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let o = run.zeros(5 * 4);
        run.launch(&program, "counts", [1, 1, 1], &[&o.to_le_bytes()], backend);
        assert_eq!(run.read_u32(o, 5), vec![3, 2, 1, 2, 1], "{backend}");
    }
}

/// Undefined uses fault instead of hanging or going on with a broken object: a zero count, a
/// misaligned object, more arrivals than pending (`FAULT_BARRIER_COUNT`,
/// `FAULT_MISALIGNED`), a wait for a phase that can never complete (`FAULT_BARRIER_DEADLOCK`
/// at the wait; a hang on NVIDIA), an object outside shared memory; and a count that is valid
/// PTX (up to 2^20 - 1) but above the 32,767 that ptxcross's object holds faults too
/// (`FAULT_BARRIER_COUNT`) rather than counting wrong.
#[test]
fn undefined_uses_of_an_mbarrier_fault() {
    let Some(gpu) = gpu() else { return };
    let text = edge();
    let wait_line = text.lines().position(|l| l.trim_start().starts_with("mbarrier.try_wait.shared.b64")).unwrap() + 1;
    let program = program_of("edge.ptx", &text, [32, 1, 1], "misuse");
    let cases = [
        (0u32, abi::FAULT_BARRIER_COUNT),
        (1, abi::FAULT_MISALIGNED),
        (2, abi::FAULT_BARRIER_COUNT),
        (3, abi::FAULT_BARRIER_DEADLOCK),
        (4, abi::FAULT_SHARED_OUT_OF_RANGE),
        (5, abi::FAULT_BARRIER_COUNT),
    ];
    for backend in Backend::ALL {
        for (mode, fault) in cases {
            let mut run = Run::new(&gpu);
            let o = run.zeros(4);
            let e = run.ctx.launch(&program, "misuse", [1, 1, 1], &[&o.to_le_bytes(), &mode.to_le_bytes()], backend).expect_err("must fault");
            let ptxcross::Error::KernelFault { bits, site, .. } = &e else { panic!("mode {mode} {backend}: not a kernel fault: {e}") };
            assert_eq!(*bits & fault, fault, "mode {mode} {backend}: {e}");
            if mode == 3 {
                assert_eq!(site.as_deref(), Some(format!("edge.ptx:{wait_line}:5 (`mbarrier.try_wait.shared.b64`)").as_str()), "{backend}: {e}");
            }
        }
    }
}

/// What is not supported is refused by name: the tx-count and `.shared::cluster` objects.
#[test]
fn tx_count_and_cluster_objects_are_refused_by_name() {
    use ptxcross_frontend::{parse, SourceFile};
    use ptxcross_lower::{lower, LowerOptions};
    for (inst, says) in [
        ("mbarrier.expect_tx.relaxed.cta.shared.b64 [bar], 16;", "tx-count"),
        ("mbarrier.arrive.expect_tx.shared.b64 _, [bar], 16;", "tx-count"),
        ("mbarrier.complete_tx.shared.b64 [bar], 16;", "tx-count"),
        ("mbarrier.arrive.shared::cluster.b64 _, [%r1];", "shared::cluster"),
    ] {
        let text = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<2>;\n.shared .align 8 .b64 bar;\nmov.u32 %r1, bar;\n{inst}\nret;\n}}\n"
        );
        let file = SourceFile::new("tx.ptx", &text);
        let ast = parse(&file).expect("parses");
        let err = lower(&ast, &file, &LowerOptions { block: Some([32, 1, 1]), ..Default::default() }).expect_err(inst);
        let msg = format!("{err:?}");
        assert!(msg.contains("not supported") && msg.contains(says), "{inst}: {msg}");
    }
}

/// What a phase of `arrive_and_wait` costs: `stencil` (sm_90 PTX, 128 threads, 16 CTAs) timed
/// at 0 and 100 phases after a warm-up launch; prints milliseconds and µs per phase and CTA.
///   cargo test -p ptxcross-tests --test mbarrier wait_cost -- --ignored --nocapture
#[test]
#[ignore]
fn wait_cost() {
    let Some(gpu) = gpu() else { return };
    let (block, grid, phases) = (128u32, 16u32, 100u32);
    let file = FILES[1];
    let program = program_of(file, &ptx(file), [block, 1, 1], "stencil");
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let i = run.buffer(&u32s(&input(7, (block * grid) as usize)));
        let o = run.zeros((block * grid) as usize * 4);
        let mut time = |n: u32| {
            let t = std::time::Instant::now();
            run.launch(&program, "stencil", [grid, 1, 1], &[&i.to_le_bytes(), &o.to_le_bytes(), &n.to_le_bytes()], backend);
            t.elapsed().as_secs_f64()
        };
        time(1);
        let (t0, tn) = (time(0), time(phases));
        let per = (tn - t0) / (phases * grid) as f64 * 1e6;
        println!("{backend}: 0 phases {:.1} ms, {phases} phases {:.1} ms: {per:.1} µs per phase and CTA", t0 * 1e3, tn * 1e3);
    }
}
