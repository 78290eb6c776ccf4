//! Named barriers for part of the CTA and `bar.arrive` (PTX ISA §9.7.13.1, issue 10), run
//! through the CTA barrier scheduler (lower/src/scheduler.rs): CUTLASS-style warp-specialised
//! kernels (tests/simt/src/named_barriers.cu, PTX from nvcc 13.5 and clang-16 through
//! tests/simt/regen.sh) on both backends, checked against the kernels' definitions computed on
//! the CPU; undefined programs (a count never reached) end with a fault instead of hanging.
//!   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test named_barriers

mod simt_util;
use ptxcross::Backend;
use ptxcross_lower::abi;
use simt_util::*;

const FILES: [&str; 2] = ["named_barriers.sm80.ptx", "named_barriers.clang.ptx"];

fn ptx(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("simt/ptx").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Deterministic pseudo-random words (xorshift32).
fn words(seed: u32, n: usize) -> Vec<u32> {
    std::iter::successors(Some(seed), |&x| {
        let x = x ^ (x << 13);
        let x = x ^ (x >> 17);
        Some(x ^ (x << 5))
    })
    .skip(1)
    .take(n)
    .collect()
}

/// `handoff`: producers (warps 0-1) swap values through `bar.sync 3, 64`, then `bar.arrive 1,
/// 128` after filling the buffer, consumers
/// (warps 2-3, first in program order) `bar.sync 1, 128` and read it; threads from 128 on
/// wait at `bar.sync 2` (every non-exited warp) until the others exited. Blocks 128, 160 and
/// 144 (a partial last warp), two CTAs.
#[test]
fn producer_warps_arrive_and_consumer_warps_wait_for_them() {
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    for block in [128usize, 160, 144] {
        let total = block * grid;
        let input = words(0x2468_ace1 ^ block as u32, total);
        let want: Vec<u32> = (0..total)
            .map(|gid| match gid % block {
                t if (64..128).contains(&t) => (input[gid - t + ((t - 64) ^ 1)] ^ 0x5a5a).wrapping_mul(3).wrapping_add(1),
                t if t < 64 => input[gid].wrapping_add(7),
                _ => gid as u32,
            })
            .collect();
        for file in FILES {
            let program = program_of(file, &ptx(file), [block as u32, 1, 1], "handoff");
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let (inp, out) = (run.buffer(&u32s(&input)), run.zeros(total * 4));
                run.launch(&program, "handoff", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
                assert_eq!(run.read_u32(out, total), want, "{file}, block {block}, {backend}");
            }
        }
    }
}

/// `pipeline`: two slots, FULL barriers 1-2 (producers arrive, consumers sync), EMPTY barriers
/// 3-4 (consumers arrive, producers sync before reusing a slot), ids held in registers, the
/// consumers slowed by an exchange through `bar.sync 5, 64` per stage, for
/// 1, 2, 3 and 9 stages (nvcc unrolls the consumer loop by four), two CTAs of 128.
#[test]
fn a_pipeline_with_full_and_empty_barriers_over_several_stages() {
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (128usize, 2usize);
    for iters in [1usize, 2, 3, 9] {
        let input = words(0x1357_9bdf ^ iters as u32, 64 * iters * grid);
        let mut want = vec![0u32; block * grid];
        for c in 0..grid {
            for t in 0..block {
                want[c * block + t] = if t < 64 {
                    iters as u32
                } else {
                    let x = |i: usize, lane: usize| input[c * 64 * iters + 64 * i + lane].wrapping_add(i as u32);
                    (0..iters).fold(0u32, |acc, i| acc.wrapping_mul(31).wrapping_add(x(i, t - 64)).wrapping_add(x(i, (t - 64) ^ 32) >> 3))
                };
            }
        }
        for file in FILES {
            let program = program_of(file, &ptx(file), [block as u32, 1, 1], "pipeline");
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let (inp, out) = (run.buffer(&u32s(&input)), run.zeros(block * grid * 4));
                let args = [inp.to_le_bytes().to_vec(), (iters as u32).to_le_bytes().to_vec(), out.to_le_bytes().to_vec()];
                let args: Vec<&[u8]> = args.iter().map(|a| &a[..]).collect();
                run.launch(&program, "pipeline", [grid as u32, 1, 1], &args, backend);
                assert_eq!(run.read_u32(out, block * grid), want, "{file}, {iters} stages, {backend}");
            }
        }
    }
}

/// `pairs`' results by its definition (tests/simt/src/named_barriers.cu).
fn pairs_results(input: &[u32], block: usize, grid: usize) -> Vec<u32> {
    let mut want = vec![0u32; block * grid];
    for c in 0..grid {
        let at = |t: usize| input[c * block + t];
        let mut x: Vec<u32> = (64..128.min(block)).map(at).collect();
        for k in 0..at(0) % 4 + 2 {
            x = (0..x.len()).map(|i| x[i].wrapping_mul(3).wrapping_add(x[i ^ 32]).wrapping_add(k)).collect();
        }
        let r = |t: usize| match t / 32 {
            0 | 1 => at(t ^ 32).wrapping_add(1),
            2 | 3 => x[t - 64],
            _ => ((c * block + (t ^ 1)) as u32).wrapping_mul(5).wrapping_add(1),
        };
        for t in 0..block {
            want[c * block + t] = r(t).wrapping_add(r((t + 1) % block));
        }
    }
    want
}

/// `pairs`: warps 0-1 meet at `bar.sync 1, 64`, warps 2-3 at `bar.sync 2, count` (a count
/// held in a register) in a loop whose trip count is read from memory, while warp 4 (blocks
/// 160 and 144; warps 4-9 in blocks of 320, past the 8 warps whose bookkeeping the scheduler
/// does without a loop) swaps neighbours' values through `bar.warp.sync -1` and goes on to
/// `__syncthreads()`. Two CTAs.
#[test]
fn barriers_for_pairs_of_warps_while_other_warps_go_on() {
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    for block in [128usize, 160, 144, 320] {
        let total = block * grid;
        let input = words(0x0bad_cafe ^ block as u32, total);
        let want = pairs_results(&input, block, grid);
        for file in FILES {
            let program = program_of(file, &ptx(file), [block as u32, 1, 1], "pairs");
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let (inp, out) = (run.buffer(&u32s(&input)), run.zeros(total * 4));
                let (count, stall) = (64u32.to_le_bytes(), 0u32.to_le_bytes());
                run.launch(&program, "pairs", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &count, &stall, &out.to_le_bytes()], backend);
                assert_eq!(run.read_u32(out, total), want, "{file}, block {block}, {backend}");
            }
        }
    }
}

/// Undefined programs end: in `pairs` with `stall`, warp 0 returns before `bar.sync 1, 64`,
/// so warp 1 waits for a count that is never reached and the others for it at
/// `__syncthreads()`: the launch ends with `abi::FAULT_BARRIER_DEADLOCK` at one of those
/// barriers (on NVIDIA it would hang). A register count that is no multiple of 32 (48) faults
/// with `abi::FAULT_BARRIER_COUNT` at its barrier (and the barrier then waits for every warp,
/// which deadlocks too). The same program with valid arguments still runs afterwards.
#[test]
fn barriers_whose_count_is_never_reached_end_the_launch_with_a_fault() {
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (128usize, 2usize);
    let total = block * grid;
    let input = words(0x600d_f00d, total);
    for file in FILES {
        let text = ptx(file);
        let line_of = |needle: &str| text.lines().position(|l| l.trim_start().starts_with(needle)).unwrap_or_else(|| panic!("{file}: {needle}")) + 1;
        let pair_line = line_of("bar.sync 1, 64;");
        let all_line = line_of("bar.sync \t0;");
        let count_line = line_of("bar.sync 2, %r");
        let program = program_of(file, &text, [block as u32, 1, 1], "pairs");
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let (inp, out) = (run.buffer(&u32s(&input)), run.zeros(total * 4));
            let launch = |run: &mut Run, count: u32, stall: u32| {
                let (count, stall) = (count.to_le_bytes(), stall.to_le_bytes());
                run.ctx.launch(&program, "pairs", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &count, &stall, &out.to_le_bytes()], backend)
            };
            let e = launch(&mut run, 64, 1).expect_err("a deadlocked launch must fault");
            let ptxcross::Error::KernelFault { bits, site, .. } = &e else { panic!("{file} {backend}: not a kernel fault: {e}") };
            assert_eq!(*bits, abi::FAULT_BARRIER_DEADLOCK, "{file} {backend}: {e}");
            let sites = [format!("{file}:{pair_line}:2 (`bar.sync`)"), format!("{file}:{all_line}:2 (`bar.sync`)")];
            assert!(site.as_ref().is_some_and(|s| sites.contains(s)), "{file} {backend}: site {site:?}, want one of {sites:?}");
            assert!(e.to_string().contains("could no longer be reached"), "{file} {backend}: {e}");

            let e = launch(&mut run, 48, 0).expect_err("an invalid count must fault");
            let ptxcross::Error::KernelFault { bits, site, .. } = &e else { panic!("{file} {backend}: not a kernel fault: {e}") };
            assert!(bits & abi::FAULT_BARRIER_COUNT != 0, "{file} {backend}: {e}");
            // The count's fault comes first (the deadlock is found rounds later).
            assert_eq!(site.as_deref(), Some(format!("{file}:{count_line}:2 (`bar.sync`)").as_str()), "{file} {backend}: {e}");

            launch(&mut run, 64, 0).unwrap_or_else(|e| panic!("{file} {backend}: {e}"));
            assert_eq!(run.read_u32(out, total), pairs_results(&input, block, grid), "{file} {backend}: after the faults");
        }
    }
}

/// Why the scheduler: `handoff` with every barrier turned into a full-CTA `bar.sync` (what a
/// translation with only workgroup barriers can run; the SIMT pass then executes the
/// consumers' branch, first in program order, before the producers') reads the buffer before
/// the producers wrote it, so every consumer's result differs from the kernel's definition
/// that the scheduled translation meets (`producer_warps_arrive_and_consumer_warps_wait_for_them`).
#[test]
fn the_same_hand_off_with_full_cta_barriers_reads_too_early() {
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (128usize, 1usize);
    let input = words(0x2468_ace1 ^ block as u32, block * grid);
    // nvcc's PTX only: with clang-16's the SIMT pass happens to run the producers' branch
    // first (its consumers read the right values).
    for file in ["named_barriers.sm80.ptx"] {
        let original = ptx(file);
        assert!(original.find("bar.sync 1, 128;") < original.find("bar.arrive 1, 128;"), "{file}: the consumers' barrier comes first");
        let text = original.replace("bar.arrive 1, 128;", "bar.sync 1;").replace("bar.sync 1, 128;", "bar.sync 1;").replace("bar.sync 3, 64;", "bar.sync 3;");
        assert!(!text.contains("bar.arrive 1, 128"), "{file}");
        let program = program_of(file, &text, [block as u32, 1, 1], "handoff");
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let (inp, out) = (run.buffer(&u32s(&input)), run.zeros(block * 4));
            run.launch(&program, "handoff", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
            let got = run.read_u32(out, block);
            for t in 64..128 {
                let want = (input[(t - 64) ^ 1] ^ 0x5a5a).wrapping_mul(3).wrapping_add(1);
                assert_ne!(got[t], want, "{file} {backend}: thread {t} read the producers' value through full-CTA barriers");
            }
        }
    }
}

/// Long pipelines (3,000 and 16,000 stages, about 5 scheduler rounds each) translated as the
/// host does on a device whose driver cuts long loops (`LowerOptions::detect_cut_loops`:
/// lavapipe stops a thread's loops after 65,535 iterations in all, and every scheduler round is
/// one): the right results, or where the driver cut a loop, a launch that faults with
/// `abi::FAULT_LOOP_CUT`, never wrong results. On lavapipe (2026-11-27) 3,000 and 8,000 stages
/// ran, 14,000 and 16,000 faulted.
#[test]
fn a_long_pipeline_gives_the_right_results_or_faults_where_the_driver_cuts_loops() {
    let Some(gpu) = gpu() else { return };
    for iters in [3000usize, 16000] {
        long_pipeline(&gpu, iters);
    }
}

fn long_pipeline(gpu: &std::sync::Arc<ptxcross::runtime::Gpu>, iters: usize) {
    let (block, grid) = (128usize, 1usize);
    let input = words(0x7777_1234, 64 * iters * grid);
    let x = |i: usize, lane: usize| input[64 * i + lane].wrapping_add(i as u32);
    let want: Vec<u32> = (0..block)
        .map(|t| if t < 64 { iters as u32 } else { (0..iters).fold(0u32, |acc, i| acc.wrapping_mul(31).wrapping_add(x(i, t - 64)).wrapping_add(x(i, (t - 64) ^ 32) >> 3)) })
        .collect();
    let file = FILES[0];
    let source = ptxcross_frontend::SourceFile::new(file, ptx(file));
    for backend in Backend::ALL {
        let options = ptxcross_lower::LowerOptions {
            block: Some([block as u32, 1, 1]),
            kernel: Some("pipeline".into()),
            detect_cut_loops: true,
            ..Default::default()
        };
        let module = ptxcross::translate::frontend(&source, &options).unwrap_or_else(|e| panic!("{}", e.render()));
        let program = ptxcross::translate::build_program_from_ir(file, module, &[backend], true).unwrap_or_else(|e| panic!("{e}"));
        let mut run = Run::new(gpu);
        let (inp, out) = (run.buffer(&u32s(&input)), run.zeros(block * 4));
        let args = [inp.to_le_bytes().to_vec(), (iters as u32).to_le_bytes().to_vec(), out.to_le_bytes().to_vec()];
        let args: Vec<&[u8]> = args.iter().map(|a| &a[..]).collect();
        match run.ctx.launch(&program, "pipeline", [grid as u32, 1, 1], &args, backend) {
            Ok(()) => {
                assert_eq!(run.read_u32(out, block), want, "{iters} stages, {backend}");
                eprintln!("{iters} stages, {backend}: right results");
            }
            Err(ptxcross::Error::KernelFault { bits, .. }) if gpu.cuts_long_loops(backend) => {
                assert_eq!(bits, abi::FAULT_LOOP_CUT, "{iters} stages, {backend}");
                eprintln!("{iters} stages, {backend}: the driver cut a loop (FAULT_LOOP_CUT)");
            }
            Err(e) => panic!("{iters} stages, {backend}: {e}"),
        }
    }
}

/// What the scheduler costs against a workgroup barrier, on one kernel both translate: a loop
/// of shared-memory exchanges between neighbours with two `bar.sync 1, count` per iteration,
/// the count an immediate naming the whole CTA (today's lowering: workgroup barriers) or held
/// in a register (the scheduler, which also checks the count at run time). Results checked
/// against the CPU; launch times (after a warm-up launch each), interleaved, medians of 7
/// (`COST_ITERS` sets the iterations, default 100; `COST_BLOCK` the CTA's threads, default 128):
///   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test named_barriers scheduler_cost -- --ignored --nocapture
/// lavapipe, 2026-11-27, load 5-8 on 2 cores, 64 CTAs of 128: 100 iterations 5.6 vs 675 ms
/// (SPIR-V), 9.8 vs 742 ms (WGSL); 10 iterations 0.8 vs 51-59 ms; 1 iteration 0.3 vs 5.4 ms:
/// about 40 µs per scheduler round and CTA there, against under 1 µs per workgroup barrier.
#[test]
#[ignore]
fn scheduler_cost() {
    let Some(gpu) = gpu() else { return };
    let iters: u32 = std::env::var("COST_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    let block: usize = std::env::var("COST_BLOCK").ok().and_then(|v| v.parse().ok()).unwrap_or(128);
    assert!(block.is_multiple_of(32) && (32..=1024).contains(&block), "COST_BLOCK: whole warps, at most 1024");
    let grid = 64usize;
    let ptx = |count: &str| {
        format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry cost(.param .u64 pout, .param .u32 pcount, .param .u32 piters) {{\n\
             .reg .b32 %r<20>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n.shared .align 4 .b32 sh[{block}];\n\
             ld.param.u64 %rd1, [pout];\nld.param.u32 %r9, [pcount];\nld.param.u32 %r10, [piters];\n\
             mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nmov.u32 %r3, sh;\nadd.u32 %r4, %r3, %r2;\n\
             mov.u32 %r5, %r1;\nmov.u32 %r6, 0;\nxor.b32 %r7, %r1, 1;\nshl.b32 %r7, %r7, 2;\nadd.u32 %r7, %r3, %r7;\n\
             $L_loop:\nst.shared.u32 [%r4], %r5;\nbar.sync 1, {count};\nld.shared.u32 %r8, [%r7];\n\
             add.u32 %r5, %r5, %r8;\nmul.lo.u32 %r5, %r5, 3;\nbar.sync 1, {count};\n\
             add.u32 %r6, %r6, 1;\nsetp.lt.u32 %p1, %r6, %r10;\n@%p1 bra $L_loop;\n\
             mov.u32 %r11, %ctaid.x;\nmad.lo.u32 %r12, %r11, {block}, %r1;\n\
             mul.wide.u32 %rd2, %r12, 4;\nadd.u64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r5;\nret;\n}}\n"
        )
    };
    let mut want = vec![0u32; block];
    let mut v: Vec<u32> = (0..block as u32).collect();
    for _ in 0..iters {
        v = (0..block).map(|t| v[t].wrapping_add(v[t ^ 1]).wrapping_mul(3)).collect();
    }
    want.copy_from_slice(&v);
    let want: Vec<u32> = (0..grid).flat_map(|_| want.iter().copied()).collect();
    let programs = [("workgroup barriers", program("cost.ptx", &ptx(&block.to_string()), [block as u32, 1, 1])), ("scheduler", program("cost.ptx", &ptx("%r9"), [block as u32, 1, 1]))];
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let out = run.zeros(block * grid * 4);
        let args = [out.to_le_bytes().to_vec(), (block as u32).to_le_bytes().to_vec(), iters.to_le_bytes().to_vec()];
        let args: Vec<&[u8]> = args.iter().map(|a| &a[..]).collect();
        let mut times = [Vec::new(), Vec::new()];
        for round in 0..8 {
            for (i, (name, program)) in programs.iter().enumerate() {
                let t = std::time::Instant::now();
                run.launch(program, "cost", [grid as u32, 1, 1], &args, backend);
                let dt = t.elapsed().as_secs_f64() * 1e3;
                assert_eq!(run.read_u32(out, block * grid), want, "{name} {backend}");
                if round > 0 {
                    times[i].push(dt);
                }
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(|a, b| a.total_cmp(b));
            v[v.len() / 2]
        };
        let (a, b) = (median(&mut times[0]), median(&mut times[1]));
        eprintln!("{backend}: {grid} CTAs x {block} threads, {iters} iterations x 2 barriers: workgroup barriers {a:.2} ms, scheduler {b:.2} ms ({:.2}x)", b / a);
    }
}

/// `reds`: `bar.red.popc` over warps 0-1 (`1, 64`), `bar.red.and` over warps 2-3 (`2, 64`), and
/// `bar.red.popc` over the warps from 4 on with a count held in a register, each group's
/// result in its threads only; blocks 128, 160 and 144 (a partial last warp), two CTAs.
#[test]
fn barrier_reductions_over_parts_of_the_cta() {
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    for block in [128usize, 160, 144] {
        let total = block * grid;
        let mut input = words(0x0f0f_1234 ^ block as u32, total);
        // CTA 0's AND is true (no multiple of 3 among warps 2-3's values), CTA 1's random.
        for x in &mut input[64..128] {
            if *x % 3 == 0 {
                *x = if *x == 0 { 1 } else { *x - 1 };
            }
        }
        let mut want = vec![0u32; total];
        for c in 0..grid {
            let at = |t: usize| input[c * block + t];
            let low = (0..64).filter(|&t| at(t) & 1 != 0).count() as u32;
            let mid = (64..128).all(|t| at(t) % 3 != 0) as u32;
            let high = (128..block).filter(|&t| at(t) & 2 != 0).count() as u32;
            for t in 0..block {
                want[c * block + t] = match t / 32 {
                    0 | 1 => low,
                    2 | 3 => mid,
                    _ => high,
                };
            }
        }
        assert_eq!((want[64], want[block + 64]), (1, 0), "the AND is true in one CTA only");
        for file in FILES {
            let program = program_of(file, &ptx(file), [block as u32, 1, 1], "reds");
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let (inp, out) = (run.buffer(&u32s(&input)), run.zeros(total * 4));
                let count = (32 * (block.div_ceil(32) as u32).saturating_sub(4)).max(32);
                run.launch(&program, "reds", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &count.to_le_bytes(), &out.to_le_bytes()], backend);
                assert_eq!(run.read_u32(out, total), want, "{file}, block {block}, {backend}");
            }
        }
    }
}

/// `wspec`'s results by its definition (tests/simt/src/named_barriers.cu): warp 0 produces
/// buf and reduces its own inputs; the other warps reduce their inputs over the whole warp,
/// then their lanes exit where in % 7 == 3, the others
/// read buf after `bar.sync 1, count` and reduce over their warp's live lanes.
fn wspec_results(input: &[u32], block: usize, grid: usize) -> Vec<u32> {
    let mut want = vec![0u32; block * grid];
    for c in 0..grid {
        let at = |t: usize| input[c * block + t];
        let buf: Vec<u32> = (0..block).map(|i| at(i).wrapping_mul(3).wrapping_add(1)).collect();
        let total0 = (0..32).fold(0u32, |a, t| a.wrapping_add(at(t)));
        for t in 0..32 {
            want[c * block + t] = total0.wrapping_add(at(t ^ 5));
        }
        for w in 1..block.div_ceil(32) {
            let lanes = (block - 32 * w).min(32);
            let live: Vec<bool> = (0..lanes).map(|l| at(32 * w + l) % 7 != 3).collect();
            assert!(live.iter().any(|&b| b), "CTA {c} warp {w}: some lane must stay (else the whole-CTA count is moot)");
            let m = (0..lanes).filter(|&l| live[l]).fold(0u32, |m, l| m | 1 << l);
            let v: Vec<u32> = (0..lanes).map(|l| buf[(5 * (32 * w + l) + 3) % block]).collect();
            let mut s = v.clone();
            for d in [16, 8, 4, 2, 1] {
                // Every live lane reads the value before this step (a shuffle); a source lane
                // that is not live is not added.
                s = (0..lanes).map(|l| if l + d < 32 && m >> (l + d) & 1 != 0 { s[l].wrapping_add(s[l + d]) } else { s[l] }).collect();
            }
            let ballot = (0..lanes).filter(|&l| live[l] && v[l] & 1 != 0).fold(0u32, |b, l| b | 1 << l);
            let sum = (0..lanes).filter(|&l| live[l]).fold(0u32, |a, l| a.wrapping_add(v[l]));
            let pre = (0..lanes).fold(0u32, |a, l| a.wrapping_add(at(32 * w + l)));
            for l in 0..lanes {
                let t = 32 * w + l;
                want[c * block + t] = if live[l] { s[l] ^ ballot ^ (sum << 3) ^ pre.wrapping_mul(7) } else { pre.wrapping_add(t as u32) };
            }
        }
    }
    want
}

/// Warp specialisation with warp collectives (`wspec`): warp 0 fills a shared buffer and
/// `bar.arrive`s, then reduces its inputs with `redux.sync` and `shfl.sync.bfly`; the other
/// warps (the consumers, first in program order) sum their inputs with `redux.sync`, lose the
/// lanes whose input is 3 mod 7 to an early exit (their values stay in the collectives'
/// scratch), `bar.sync` on the same id (a count in a register), and reduce what they read
/// with a `__shfl_down_sync` tree over the live lanes' ballot, `__ballot_sync` and
/// `__reduce_add_sync`. Blocks 100 and 48 (partial last warps), two CTAs; every collective is
/// a point of the CTA barrier scheduler. Also built with native warp collectives asked for
/// (`LowerOptions::native_warps`): a scheduler kernel's collectives stay emulated.
#[test]
fn warp_specialised_consumers_reduce_with_warp_collectives() {
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    for block in [100usize, 48] {
        let total = block * grid;
        let input = words(0x5eed_c011 ^ block as u32, total);
        let want = wspec_results(&input, block, grid);
        assert!((32..total).any(|g| g % block >= 32 && input[g] % 7 == 3), "some lanes exit");
        for file in FILES {
            let mut programs = vec![("", program_of(file, &ptx(file), [block as u32, 1, 1], "wspec"))];
            if block == 100 {
                let only = ptx(file);
                programs.push((" (native warps asked for)", native_program(file, &only, [block as u32, 1, 1])));
            }
            for (how, program) in &programs {
                for backend in Backend::ALL {
                    let mut run = Run::new(&gpu);
                    let (inp, out) = (run.buffer(&u32s(&input)), run.zeros(total * 4));
                    run.launch(program, "wspec", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
                    assert_eq!(run.read_u32(out, total), want, "{file}{how}, block {block}, {backend}");
                }
            }
        }
    }
}

/// `split`'s results by its definition (tests/simt/src/named_barriers.cu).
fn split_results(input: &[u32], block: usize, grid: usize) -> Vec<u32> {
    let mut want = vec![0u32; block * grid];
    for c in 0..grid {
        let at = |t: usize| input[c * block + t];
        let low: Vec<u32> = (0..16).map(|l| at(l).wrapping_add(at(l + 32).wrapping_mul(9).wrapping_add(1))).collect();
        let x: Vec<u32> = (0..32).map(|l| if l < 16 { low[l].wrapping_mul(3).wrapping_add(low[l ^ 1]) } else { at(l) ^ 0x1234 }).collect();
        let b = (0..32).filter(|&l| x[l] & 1 != 0).fold(0u32, |b, l| b | 1 << l);
        let s = x.iter().fold(0u32, |a, &v| a.wrapping_add(v));
        for l in 0..32 {
            want[c * block + l] = s ^ b ^ x[(7 * l) & 31].wrapping_mul(5);
        }
        let lanes = block - 32;
        let active = if lanes == 32 { !0 } else { (1u32 << lanes) - 1 };
        for t in 32..block {
            want[c * block + t] = active ^ at(t).wrapping_add(2);
        }
    }
    want
}

/// A warp collective whose lanes get there in different scheduler rounds (`split`): lanes
/// 0-15 of warp 0 wait at `barrier.sync 1, 64` for warp 1 (held back by a `__syncwarp()`),
/// then exchange among themselves (`shfl.sync` with membermask 0xffff), while lanes 16-31
/// `barrier.arrive` and wait at the whole warp's `vote.sync.ballot` rounds earlier; then
/// `redux.sync` and `shfl.sync.idx` over the warp; warp 1 reads `activemask` (its live lanes:
/// 16 in a block of 48). Blocks 64 and 48, two CTAs.
#[test]
fn a_collective_whose_lanes_arrive_in_different_rounds() {
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    for block in [64usize, 48] {
        let total = block * grid;
        let input = words(0x0dd5_1de5 ^ block as u32, total);
        let want = split_results(&input, block, grid);
        for file in FILES {
            let program = program_of(file, &ptx(file), [block as u32, 1, 1], "split");
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let (inp, out) = (run.buffer(&u32s(&input)), run.zeros(total * 4));
                run.launch(&program, "split", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
                assert_eq!(run.read_u32(out, total), want, "{file}, block {block}, {backend}");
            }
        }
    }
}

/// Hand-written: in a scheduler kernel (warp 0 `bar.arrive 1, 64`, warp 1 `bar.sync 1, 64`),
/// warp 0's halves run two different `shfl.sync.bfly.b32 d, a, 16, 31, -1` instructions: the
/// same qualifiers and membermask, so they meet (§9.7.10.6: each thread waits "until all
/// non-exited threads corresponding to membermask have executed shfl.sync with the same
/// qualifiers and same membermask value") and lane l reads lane l ^ 16's value. With `mode` 1
/// lanes 16-31 run `shfl.sync.idx` instead: the two halves wait for each other forever
/// (undefined; a hang on NVIDIA): the launch ends with `abi::FAULT_BARRIER_DEADLOCK` at one of
/// the waiting instructions, and the same program runs right afterwards.
#[test]
fn collectives_meet_across_instructions_of_one_kind_and_a_collective_never_completed_faults() {
    let Some(gpu) = gpu() else { return };
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .visible .entry coll(.param .u64 pout, .param .u32 pmode) {\n\
        .reg .b32 %r<20>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n\
        ld.param.u64 %rd1, [pout];\nld.param.u32 %r9, [pmode];\n\
        mov.u32 %r1, %tid.x;\nand.b32 %r2, %r1, 31;\nmad.lo.u32 %r3, %r1, 3, 7;\n\
        setp.ge.u32 %p1, %r1, 32;\n@%p1 bra $WARP1;\n\
        setp.lt.u32 %p2, %r2, 16;\n@%p2 bra $LOW;\n\
        setp.ne.u32 %p3, %r9, 0;\n@%p3 bra $OTHER;\n\
        shfl.sync.bfly.b32 %r4, %r3, 16, 31, -1;\nbra.uni $JOIN;\n\
        $OTHER:\nshfl.sync.idx.b32 %r4, %r3, 0, 31, -1;\nbra.uni $JOIN;\n\
        $LOW:\nshfl.sync.bfly.b32 %r4, %r3, 16, 31, -1;\n\
        $JOIN:\nbar.arrive 1, 64;\nbra.uni $STORE;\n\
        $WARP1:\nbar.sync 1, 64;\nmov.u32 %r4, 5;\n\
        $STORE:\nmul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r4;\nret;\n}\n";
    let line_of = |needle: &str| text.lines().position(|l| l.starts_with(needle)).unwrap_or_else(|| panic!("{needle}")) + 1;
    let (idx_line, bfly_lines) = (line_of("shfl.sync.idx"), [line_of("shfl.sync.bfly"), line_of("$LOW:") + 1]);
    let block = 64usize;
    let want: Vec<u32> = (0..block as u32).map(|t| if t < 32 { (t ^ 16) * 3 + 7 } else { 5 }).collect();
    let program = program("coll.ptx", text, [block as u32, 1, 1]);
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let out = run.zeros(block * 4);
        let launch = |run: &mut Run, mode: u32| run.ctx.launch(&program, "coll", [1, 1, 1], &[&out.to_le_bytes(), &mode.to_le_bytes()], backend);
        launch(&mut run, 0).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert_eq!(run.read_u32(out, block), want, "{backend}");
        let e = launch(&mut run, 1).expect_err("a collective that never completes must fault");
        let ptxcross::Error::KernelFault { bits, site, .. } = &e else { panic!("{backend}: not a kernel fault: {e}") };
        assert_eq!(*bits, abi::FAULT_BARRIER_DEADLOCK, "{backend}: {e}");
        let sites = [
            format!("coll.ptx:{idx_line}:1 (`shfl.sync.idx"),
            format!("coll.ptx:{}:1 (`shfl.sync.bfly", bfly_lines[1]),
            format!("coll.ptx:{}:1 (`bar.sync`)", line_of("bar.sync 1, 64;")),
        ];
        assert!(site.as_ref().is_some_and(|s| sites.iter().any(|w| s.starts_with(w.as_str()))), "{backend}: site {site:?}, want one of {sites:?}");
        assert!(e.to_string().contains("never joined"), "{backend}: {e}");
        run.ctx.write(out, &vec![0u8; block * 4]).expect("write");
        launch(&mut run, 0).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert_eq!(run.read_u32(out, block), want, "{backend}: after the fault");
    }
}

/// A count naming the whole CTA (`bar.sync 1, 128` beside `bar.arrive 1, 128`, §9.7.13.1: the
/// barrier completes once all 4 warps arrived) after the arriving warps exited: warps 0-1
/// write shared words, `bar.arrive` and exit at once; warp 2 gets to `bar.sync 1, 128` one
/// round later (after `bar.sync 3, 32`), warp 3 two rounds later (after two `bar.sync 2, 32`),
/// having written its words (`seed`-dependent, so an earlier launch's values do not pass). Warp
/// 2 must wait for warp 3 (counting the live warps against all arrivals released it early,
/// before warp 3's words were written): out[t] = warp 2: (t + 32) * 5 + seed + (t - 64) * 7 + 1,
/// warp 3: (t - 96) * 7 + 1, warps 0-1: 1.
#[test]
fn a_cta_wide_count_waits_for_every_live_warp_after_arriving_warps_exit() {
    let Some(gpu) = gpu() else { return };
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .visible .entry late(.param .u64 pout, .param .u32 pseed) {\n\
        .reg .b32 %r<20>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .align 4 .b32 sh[128];\n\
        ld.param.u64 %rd1, [pout];\nld.param.u32 %r9, [pseed];\n\
        mov.u32 %r1, %tid.x;\nshr.u32 %r2, %r1, 5;\nmov.u32 %r3, sh;\nshl.b32 %r4, %r1, 2;\nadd.u32 %r5, %r3, %r4;\n\
        setp.ge.u32 %p1, %r2, 2;\n@%p1 bra $LATE;\n\
        mad.lo.u32 %r6, %r1, 7, 1;\nst.shared.u32 [%r5], %r6;\nbar.arrive 1, 128;\nmov.u32 %r7, 1;\nbra.uni $STORE;\n\
        $LATE:\nsetp.eq.u32 %p2, %r2, 3;\n@%p2 bra $W3;\n\
        bar.sync 3, 32;\nbar.sync 1, 128;\nld.shared.u32 %r7, [%r5+128];\nld.shared.u32 %r8, [%r5+-256];\nadd.u32 %r7, %r7, %r8;\nbra.uni $STORE;\n\
        $W3:\nbar.sync 2, 32;\nbar.sync 2, 32;\nmad.lo.u32 %r6, %r1, 5, %r9;\nst.shared.u32 [%r5], %r6;\n\
        bar.sync 1, 128;\nld.shared.u32 %r7, [%r5+-384];\n\
        $STORE:\nmul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r7;\nret;\n}\n";
    let block = 128u32;
    let program = program("late.ptx", text, [block, 1, 1]);
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let out = run.zeros(block as usize * 4);
        for seed in [11u32, 0x1234_5677] {
            let want: Vec<u32> = (0..block)
                .map(|t| match t / 32 {
                    0 | 1 => 1,
                    2 => ((t + 32) * 5 + seed).wrapping_add((t - 64) * 7 + 1),
                    _ => (t - 96) * 7 + 1,
                })
                .collect();
            run.launch(&program, "late", [1, 1, 1], &[&out.to_le_bytes(), &seed.to_le_bytes()], backend);
            assert_eq!(run.read_u32(out, block as usize), want, "{backend}, seed {seed}");
        }
    }
}
