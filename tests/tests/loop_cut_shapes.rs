//! Loops past lavapipe's loop limit (65,535 back-edges per SIMD vector, shared by all loops:
//! `lower/src/loop_cut.rs`) in the shapes of a device allocator: a loop of `atom.cas` attempts,
//! a search with an early exit on a found bit inside a function (inlined, and through the call
//! stack at inlining budget 0), nested loops, and a long loop of half the threads between
//! barriers, in CTAs of whole and partial SIMD vectors (20, 33, 64 threads) and 3 CTAs.
//! A launch must give the exact result (a CPU model written from the PTX) or, on a driver that
//! cuts loops, the loop-cut fault: never a wrong result without a fault (issue 10). Each
//! kernel also runs short of the limit, where it must be exact everywhere.

use ptxcross::{translate, Backend, Context, ContextOptions, Gpu};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::launch::{bytes, gpu_or_skip, words};
use std::sync::Arc;

const HEADER: &str = ".version 8.5\n.target sm_80\n.address_size 64\n";
const BLOCKS: [u32; 3] = [20, 33, 64];
const GRID: u32 = 3;

/// The global thread index in `%r4` (`%r1` tid, `%r2` ctaid, `%r3` ntid), `%rd1` the first parameter.
const PROLOGUE: &str = "ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n \
                        mov.u32 %r3, %ntid.x;\n mad.lo.s32 %r4, %r2, %r3, %r1;\n";
/// Stores `%r5` to `out[%r4]`.
const STORE: &str = "mul.wide.u32 %rd8, %r4, 4;\n add.s64 %rd9, %rd1, %rd8;\n st.global.u32 [%rd9], %r5;\n";

fn entry(name: &str, params: &str, body: &str) -> String {
    format!(
        ".visible .entry {name}({params})\n{{\n.reg .pred %p<8>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<12>;\n\
         .shared .align 4 .b32 sh[64];\n{PROLOGUE}{body}\n{STORE} ret;\n}}\n"
    )
}

/// How a launch ended: the exact result, or the loop-cut fault.
#[derive(Debug, PartialEq)]
enum Outcome {
    Exact,
    Cut,
}

/// Runs kernel `kernel` of `ptx` (parameters: pointers to `buffers`) on `backend`, translated
/// as the host does, with `inline_budget`: every buffer after the launch, or `None` for the
/// loop-cut fault (only right on a driver that cuts loops).
fn run(gpu: &Arc<Gpu>, ptx: &str, kernel: &str, block: u32, grid: u32, buffers: &[Vec<u8>], backend: Backend, inline_budget: Option<usize>) -> Option<Vec<Vec<u8>>> {
    run_with(gpu, ptx, kernel, block, grid, buffers, &[], backend, inline_budget).0
}

/// [`run`] with `scalars` (`u32` parameters after the buffers' pointers); also whether the
/// launch ran a launch-specialised variant.
fn run_with(
    gpu: &Arc<Gpu>,
    ptx: &str,
    kernel: &str,
    block: u32,
    grid: u32,
    buffers: &[Vec<u8>],
    scalars: &[u32],
    backend: Backend,
    inline_budget: Option<usize>,
) -> (Option<Vec<Vec<u8>>>, bool) {
    let what = format!("{kernel}, CTAs of {block}, {backend}, inline budget {inline_budget:?}");
    let file = SourceFile::new(format!("{kernel}.ptx"), ptx);
    let options =
        LowerOptions { block: Some([block, 1, 1]), kernel: Some(kernel.into()), inline_budget, ..gpu.lower_options(&[backend]) };
    let program = translate::build_program(&file, &options, &[backend], true).unwrap_or_else(|e| panic!("{what}: {}", e.render()));
    // Room for the device `malloc` heap (8 MiB) of the allocator kernel.
    let heap: u64 = buffers.iter().map(|b| (b.len() as u64).next_multiple_of(256)).sum();
    let mut ctx = Context::new(ContextOptions { heap_bytes: heap + (16 << 20), timeout: None, gpu: Some(gpu.clone()) }).expect("context");
    let ptrs: Vec<_> = buffers
        .iter()
        .map(|b| {
            let p = ctx.alloc(b.len() as u64).expect("alloc");
            ctx.write(p, b).expect("write");
            p
        })
        .collect();
    let args: Vec<[u8; 8]> = ptrs.iter().map(|p| p.to_le_bytes()).collect();
    let scalars: Vec<[u8; 4]> = scalars.iter().map(|v| v.to_le_bytes()).collect();
    let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).chain(scalars.iter().map(|a| a.as_slice())).collect();
    let r = ctx.launch(&program, kernel, [grid, 1, 1], &refs, backend);
    let specialised = ctx.last_launch_specialised();
    let out = match r {
        // Other fault bits may come with it (a cut return dispatch overflows the call stack).
        Err(ptxcross::Error::KernelFault { bits, faults, .. }) if bits & ptxcross_lower::abi::FAULT_LOOP_CUT != 0 => {
            assert!(gpu.cuts_long_loops(backend), "{what}: a loop-cut fault on a driver that does not cut loops");
            // The report leads with the cut, and says that faults after it may follow from it.
            assert!(faults[0].contains("loop was cut"), "{what}: {faults:?}");
            assert!(faults.len() == 1 || faults[1].contains("may follow from the cut"), "{what}: {faults:?}");
            None
        }
        Err(e) => panic!("{what}: {e}"),
        Ok(()) => Some(buffers.iter().zip(&ptrs).map(|(b, &p)| ctx.read(p, b.len() as u64).expect("read")).collect()),
    };
    (out, specialised)
}

/// [`run`], checking buffer 0 (words) against `expected` when the launch passes.
fn launch(
    gpu: &Arc<Gpu>,
    ptx: &str,
    kernel: &str,
    block: u32,
    buffers: &[Vec<u8>],
    backend: Backend,
    inline_budget: Option<usize>,
    expected: &[u32],
) -> Outcome {
    let Some(out) = run(gpu, ptx, kernel, block, GRID, buffers, backend, inline_budget) else { return Outcome::Cut };
    let got = words(&out[0]);
    let bad: Vec<usize> = (0..expected.len()).filter(|&i| got[i] != expected[i]).collect();
    assert!(
        bad.is_empty(),
        "{kernel}, CTAs of {block}, {backend}, inline budget {inline_budget:?}: WRONG RESULT WITHOUT A FAULT in {} of {} words, \
         first: thread {} got {:#x}, expected {:#x}",
        bad.len(),
        expected.len(),
        bad[0],
        got[bad[0]],
        expected[bad[0]]
    );
    Outcome::Exact
}

/// Runs every backend, every CTA size: exact, or cut where `long` (the loops pass the limit)
/// on a driver that cuts loops.
fn check(name: &str, ptx: &str, long: bool, inline_budget: Option<usize>, buffers: impl Fn(u32) -> Vec<Vec<u8>>, model: impl Fn(u32, u32) -> Vec<u32>) {
    check_blocks(&BLOCKS, name, ptx, long, inline_budget, buffers, model)
}

/// [`check`] for CTAs of `blocks` threads.
fn check_blocks(
    blocks: &[u32],
    name: &str,
    ptx: &str,
    long: bool,
    inline_budget: Option<usize>,
    buffers: impl Fn(u32) -> Vec<Vec<u8>>,
    model: impl Fn(u32, u32) -> Vec<u32>,
) {
    let Some(gpu) = gpu_or_skip() else { return };
    for backend in Backend::ALL {
        for &block in blocks {
            let expected = model(block, block * GRID);
            let got = launch(&gpu, ptx, name, block, &buffers(block), backend, inline_budget, &expected);
            if !long {
                assert_eq!(got, Outcome::Exact, "{name}, CTAs of {block}, {backend}: short of the limit");
            } else if gpu.cuts_long_loops(backend) {
                // Past 65,535 back-edges in every SIMD vector: the driver cut a loop, so the
                // exact result is out of reach and only the fault is right.
                assert_eq!(got, Outcome::Cut, "{name}, CTAs of {block}, {backend}: past the limit");
            }
        }
    }
}

/// `n` attempts of `atom.cas` incrementing one word shared by all threads, each retried
/// (`@p bra` back) until it wins: every thread counts its wins; the word ends at threads × n.
fn cas_loop(n: u32) {
    let body = format!(
        "ld.param.u64 %rd2, [ctr];\n mov.u32 %r5, 0;\n mov.u32 %r6, 0;\n\
         ATTEMPT:\n ld.volatile.global.u32 %r7, [%rd2];\n add.u32 %r8, %r7, 1;\n\
         atom.global.cas.b32 %r9, [%rd2], %r7, %r8;\n setp.ne.u32 %p1, %r9, %r7;\n @%p1 bra ATTEMPT;\n\
         add.u32 %r5, %r5, 1;\n add.u32 %r6, %r6, 1;\n setp.lt.u32 %p2, %r6, {n};\n @%p2 bra ATTEMPT;\n\
         mov.u32 %r10, %r5;\n"
    );
    let ptx = format!("{HEADER}{}", entry("cas", ".param .u64 out, .param .u64 ctr", &body));
    let Some(gpu) = gpu_or_skip() else { return };
    for backend in Backend::ALL {
        for block in BLOCKS {
            let threads = block * GRID;
            let buffers = vec![vec![0u8; threads as usize * 4], vec![0u8; 4]];
            let got = launch(&gpu, &ptx, "cas", block, &buffers, backend, None, &vec![n; threads as usize]);
            if n <= 4096 {
                assert_eq!(got, Outcome::Exact, "cas {n}, CTAs of {block}, {backend}");
            } else if gpu.cuts_long_loops(backend) {
                assert_eq!(got, Outcome::Cut, "cas {n}, CTAs of {block}, {backend}");
            }
        }
    }
}

#[test]
fn cas_attempts_short_of_the_limit() {
    cas_loop(500);
}

#[test]
fn cas_attempts_past_the_limit() {
    cas_loop(70_000);
}

/// The allocator's page scan: `search(bm, bit, target)` returns the first index `j >= target`
/// of the 2,048-word bitmap whose word has bit `bit` set (2,048 when none), scanning from 0
/// each call; each thread calls it `rounds` times and hashes the answers.
fn search_ptx(rounds: u32) -> String {
    let func = ".func (.param .b32 res) search(.param .b64 bm, .param .b32 bit, .param .b32 target)\n{\n\
        .reg .pred %q<4>;\n.reg .b32 %s<10>;\n.reg .b64 %sd<4>;\n\
        ld.param.u64 %sd0, [bm];\n ld.param.u32 %s8, [bit];\n ld.param.u32 %s9, [target];\n mov.u32 %s1, 0;\n\
        SCAN:\n mul.wide.u32 %sd1, %s1, 4;\n add.s64 %sd2, %sd0, %sd1;\n ld.global.u32 %s2, [%sd2];\n\
        shr.u32 %s3, %s2, %s8;\n and.b32 %s3, %s3, 1;\n setp.ne.u32 %q1, %s3, 0;\n setp.ge.u32 %q2, %s1, %s9;\n\
        and.pred %q3, %q1, %q2;\n @%q3 bra FOUND;\n add.u32 %s1, %s1, 1;\n setp.lt.u32 %q1, %s1, 2048;\n @%q1 bra SCAN;\n\
        FOUND:\n st.param.b32 [res], %s1;\n ret;\n}\n";
    let body = format!(
        "ld.param.u64 %rd2, [bm];\n and.b32 %r10, %r4, 31;\n mov.u32 %r5, 0;\n mov.u32 %r6, 0;\n\
         ROUND:\n mul.lo.u32 %r11, %r6, 97;\n mad.lo.u32 %r11, %r4, 13, %r11;\n and.b32 %r11, %r11, 2047;\n\
         {{\n .param .b64 a0;\n .param .b32 a1;\n .param .b32 a2;\n .param .b32 rv;\n\
         st.param.b64 [a0], %rd2;\n st.param.b32 [a1], %r10;\n st.param.b32 [a2], %r11;\n\
         call (rv), search, (a0, a1, a2);\n ld.param.b32 %r12, [rv];\n }}\n\
         mad.lo.u32 %r5, %r5, 31, %r12;\n add.u32 %r6, %r6, 1;\n setp.lt.u32 %p2, %r6, {rounds};\n @%p2 bra ROUND;\n"
    );
    format!("{HEADER}{func}{}", entry("find", ".param .u64 out, .param .u64 bm", &body))
}

fn bitmap() -> Vec<u32> {
    // Sparse bits (about 1 in 8 per position), so scans run long.
    let mut x = 0x2545_f491u32;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    (0..2048).map(|_| next() & next() & next()).collect()
}

fn search_model(bm: &[u32], threads: u32, rounds: u32) -> Vec<u32> {
    (0..threads)
        .map(|g| {
            let bit = g & 31;
            (0..rounds).fold(0u32, |acc, r| {
                let target = (r.wrapping_mul(97).wrapping_add(g.wrapping_mul(13))) & 2047;
                let j = (target..2048).find(|&j| (bm[j as usize] >> bit) & 1 != 0).unwrap_or(2048);
                acc.wrapping_mul(31).wrapping_add(j)
            })
        })
        .collect()
}

fn search(rounds: u32, long: bool, inline_budget: Option<usize>) {
    let bm = bitmap();
    check(
        "find",
        &search_ptx(rounds),
        long,
        inline_budget,
        |block| vec![vec![0u8; (block * GRID) as usize * 4], bytes(&bm)],
        |_, threads| search_model(&bm, threads, rounds),
    );
}

#[test]
fn page_scans_short_of_the_limit() {
    search(12, false, None);
    search(12, false, Some(0));
}

#[test]
fn page_scans_past_the_limit_inlined() {
    search(100, true, None);
}

#[test]
fn page_scans_past_the_limit_through_the_call_stack() {
    search(100, true, Some(0));
}

/// An `m` × `m` loop nest: `acc = acc * 3 + (i ^ j)` from the thread index.
fn nest(m: u32, long: bool) {
    let body = format!(
        "mov.u32 %r5, %r4;\n mov.u32 %r6, 0;\n OUTER:\n mov.u32 %r7, 0;\n\
         INNER:\n xor.b32 %r9, %r6, %r7;\n mad.lo.u32 %r5, %r5, 3, %r9;\n add.u32 %r7, %r7, 1;\n\
         setp.lt.u32 %p1, %r7, {m};\n @%p1 bra INNER;\n add.u32 %r6, %r6, 1;\n setp.lt.u32 %p2, %r6, {m};\n @%p2 bra OUTER;\n"
    );
    let ptx = format!("{HEADER}{}", entry("nest", ".param .u64 out", &body));
    let model = |_, threads: u32| {
        (0..threads)
            .map(|g| (0..m).flat_map(|i| (0..m).map(move |j| i ^ j)).fold(g, |a, x| a.wrapping_mul(3).wrapping_add(x)))
            .collect()
    };
    check("nest", &ptx, long, None, |block| vec![vec![0u8; (block * GRID) as usize * 4]], model);
}

#[test]
fn loop_nests_short_and_past_the_limit() {
    nest(100, false);
    nest(300, true);
}

/// Odd threads run `odd_trips` of `x = 3x + 1` (even ones 10), then a barrier, then each thread
/// takes its neighbour's value from shared memory, runs 300 trips of `y = 5y + i`, a barrier.
fn divergent(odd_trips: u32, long: bool) {
    let body = format!(
        "and.b32 %r7, %r1, 1;\n setp.ne.u32 %p1, %r7, 0;\n selp.u32 %r8, {odd_trips}, 10, %p1;\n\
         mov.u32 %r5, %r4;\n mov.u32 %r6, 0;\n\
         LONG:\n mad.lo.u32 %r5, %r5, 3, 1;\n add.u32 %r6, %r6, 1;\n setp.lt.u32 %p2, %r6, %r8;\n @%p2 bra LONG;\n\
         mov.u32 %r20, sh;\n shl.b32 %r21, %r1, 2;\n add.u32 %r22, %r20, %r21;\n st.shared.u32 [%r22], %r5;\n\
         bar.sync 0;\n add.u32 %r9, %r1, 1;\n rem.u32 %r9, %r9, %r3;\n shl.b32 %r9, %r9, 2;\n add.u32 %r9, %r20, %r9;\n\
         ld.shared.u32 %r5, [%r9];\n mov.u32 %r6, 0;\n\
         SHORT:\n mad.lo.u32 %r5, %r5, 5, %r6;\n add.u32 %r6, %r6, 1;\n setp.lt.u32 %p3, %r6, 300;\n @%p3 bra SHORT;\n\
         bar.sync 0;\n"
    );
    let ptx = format!("{HEADER}{}", entry("diverge", ".param .u64 out", &body));
    let model = |block: u32, threads: u32| {
        let first = |g: u32| {
            let trips = if g % block % 2 == 1 { odd_trips } else { 10 };
            (0..trips).fold(g, |x, _| x.wrapping_mul(3).wrapping_add(1))
        };
        (0..threads)
            .map(|g| {
                let (cta, t) = (g / block, g % block);
                let y = first(cta * block + (t + 1) % block);
                (0..300).fold(y, |y, i| y.wrapping_mul(5).wrapping_add(i))
            })
            .collect()
    };
    check("diverge", &ptx, long, None, |block| vec![vec![0u8; (block * GRID) as usize * 4]], model);
}

#[test]
fn divergent_loops_between_barriers_short_and_past_the_limit() {
    divergent(2_000, false);
    divergent(70_000, true);
}

/// The device `malloc` (`lower/runtime/malloc.cu`) called `k` times by thread 0 of one CTA
/// (the others leave at once), each pointer stored: the heap of 2,048 pages of 4 KiB serves
/// one thread first fit, in order from its start, each search scanning from the heap's start
/// (page runs) or round all used pages from the class's last (small blocks), so the searches'
/// loops add up far past the limit. Size 12,000 (3-page runs): 682 blocks 12,288 bytes apart,
/// then NULL; 2,048 (2 per page): 4,096 blocks 2,048 bytes apart, then NULL.
fn allocations(k: u32, size: u32, served: u32, apart: u64, block: u32, long: bool, inline_budget: Option<usize>) {
    let Some(gpu) = gpu_or_skip() else { return };
    let body = format!(
        "add.s64 %rd10, %rd1, 8;\n setp.ne.u32 %p1, %r1, 0;\n @%p1 bra DONE;\n mov.u32 %r6, 0;\n\
         NEXT:\n {{\n .param .b64 a;\n .param .b64 r;\n st.param.b64 [a], {size};\n call (r), malloc, (a);\n ld.param.b64 %rd5, [r];\n }}\n\
         mul.wide.u32 %rd6, %r6, 8;\n add.s64 %rd7, %rd10, %rd6;\n st.global.u64 [%rd7], %rd5;\n\
         add.u32 %r6, %r6, 1;\n setp.lt.u32 %p2, %r6, {k};\n @%p2 bra NEXT;\n DONE:\n mov.u32 %r5, 7;\n mov.u32 %r4, 0;\n"
    );
    let ptx = format!("{HEADER}.extern .func (.param .b64 r) malloc (.param .b64 n);\n{}", entry("alloc", ".param .u64 out", &body));
    for backend in Backend::ALL {
        let what = format!("{k} × malloc({size}) in a CTA of {block} on {backend}, inline budget {inline_budget:?}");
        let buffers = vec![vec![0u8; 8 * (k as usize + 1)]];
        let Some(out) = run(&gpu, &ptx, "alloc", block, 1, &buffers, backend, inline_budget) else {
            assert!(long, "{what}: a loop-cut fault short of the limit");
            continue;
        };
        let p: Vec<u64> = out[0].chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(p[0], 7, "{what}: the kernel's last store");
        let expected: Vec<u64> = (0..k as u64).map(|i| if i < served as u64 { p[1] + i * apart } else { 0 }).collect();
        assert!(p[1] != 0, "{what}: the first block is NULL");
        let bad = (0..k as usize).find(|&i| p[i + 1] != expected[i]);
        assert!(bad.is_none(), "{what}: WRONG RESULT WITHOUT A FAULT: block {} is {:#x}, expected {:#x}", bad.unwrap(), p[bad.unwrap() + 1], expected[bad.unwrap()]);
        assert!(!long || !gpu.cuts_long_loops(backend), "{what}: exact past the limit on a driver that cuts loops");
    }
}

#[test]
fn page_runs_short_of_the_limit() {
    allocations(60, 12_000, 682, 12_288, 1, false, None);
    allocations(60, 12_000, 682, 12_288, 20, false, Some(0));
}

#[test]
fn page_runs_past_the_limit() {
    allocations(700, 12_000, 682, 12_288, 1, true, None);
    allocations(700, 12_000, 682, 12_288, 20, true, None);
    allocations(700, 12_000, 682, 12_288, 20, true, Some(0));
}

#[test]
fn small_blocks_past_the_limit() {
    allocations(4_100, 2_048, 4_096, 2_048, 33, true, None);
    allocations(4_100, 2_048, 4_096, 2_048, 7, true, Some(0));
}

/// A counted loop of `n` (a parameter) steps whose body retries without stepping while the
/// thread's countdown word in memory is not zero (as a CAS loop retries an attempt): the
/// back-edges are `n` plus the countdown, which no launch value bounds. With a small `n` and a
/// countdown of 70,000, a launch-specialised variant must keep the check.
#[test]
fn retries_that_do_not_step_a_counted_loop() {
    let Some(gpu) = gpu_or_skip() else { return };
    let body = "ld.param.u64 %rd2, [count];\n ld.param.u32 %r8, [n];\n mul.wide.u32 %rd3, %r4, 4;\n add.s64 %rd3, %rd2, %rd3;\n\
         mov.u32 %r5, 0;\n mov.u32 %r6, 0;\n\
         STEP:\n ld.volatile.global.u32 %r7, [%rd3];\n setp.ne.u32 %p1, %r7, 0;\n @!%p1 bra ADVANCE;\n\
         sub.u32 %r7, %r7, 1;\n st.volatile.global.u32 [%rd3], %r7;\n add.u32 %r5, %r5, 1;\n bra STEP;\n\
         ADVANCE:\n add.u32 %r6, %r6, 1;\n setp.lt.u32 %p2, %r6, %r8;\n @%p2 bra STEP;\n add.u32 %r5, %r5, %r6;\n";
    let ptx = format!("{HEADER}{}", entry("retry", ".param .u64 out, .param .u64 count, .param .u32 n", body));
    for backend in Backend::ALL {
        for (block, countdown) in [(20u32, 70_000u32), (64, 70_000), (64, 100)] {
            let threads = (block * GRID) as usize;
            let buffers = vec![vec![0u8; threads * 4], bytes(&vec![countdown; threads])];
            let what = format!("countdown {countdown}, CTAs of {block}, {backend}");
            let (out, specialised) = run_with(&gpu, &ptx, "retry", block, GRID, &buffers, &[10], backend, None);
            eprintln!("{what}: launch-specialised {specialised}, cut {}", out.is_none());
            let Some(out) = out else { continue };
            assert_eq!(words(&out[0]), vec![countdown + 10; threads], "{what}: WRONG RESULT WITHOUT A FAULT");
            assert!(countdown < 60_000 || !gpu.cuts_long_loops(backend), "{what}: exact past the limit on a driver that cuts loops");
        }
    }
}

/// 70,000 trips of a loop with a barrier in it, every thread alike: each adds its neighbour's
/// shared word to its own (`x[t] += x[(t + 1) % ntid]`, two barriers a trip).
fn barrier_loop(trips: u32, long: bool) {
    let body = format!(
        "mov.u32 %r20, sh;\n shl.b32 %r21, %r1, 2;\n add.u32 %r22, %r20, %r21;\n st.shared.u32 [%r22], %r4;\n\
         add.u32 %r9, %r1, 1;\n rem.u32 %r9, %r9, %r3;\n shl.b32 %r9, %r9, 2;\n add.u32 %r9, %r20, %r9;\n mov.u32 %r6, 0;\n\
         TRIP:\n bar.sync 0;\n ld.shared.u32 %r10, [%r9];\n ld.shared.u32 %r11, [%r22];\n bar.sync 0;\n\
         add.u32 %r11, %r11, %r10;\n st.shared.u32 [%r22], %r11;\n add.u32 %r6, %r6, 1;\n setp.lt.u32 %p1, %r6, {trips};\n @%p1 bra TRIP;\n\
         bar.sync 0;\n ld.shared.u32 %r5, [%r22];\n"
    );
    let ptx = format!("{HEADER}{}", entry("barriers", ".param .u64 out", &body));
    let model = |block: u32, threads: u32| {
        (0..threads / block)
            .flat_map(|cta| {
                let mut x: Vec<u32> = (0..block).map(|t| cta * block + t).collect();
                for _ in 0..trips {
                    x = (0..block as usize).map(|t| x[t].wrapping_add(x[(t + 1) % block as usize])).collect();
                }
                x
            })
            .collect()
    };
    check("barriers", &ptx, long, None, |block| vec![vec![0u8; (block * GRID) as usize * 4]], model);
}

#[test]
fn loops_with_barriers_short_and_past_the_limit() {
    barrier_loop(1_000, false);
    barrier_loop(70_000, true);
}

/// Recursion without a loop in the PTX: `fib(n)` by two recursive calls, through the call
/// stack, whose return dispatch is the only loop (one trip per call and return): fib(24) makes
/// 75,025 × 2 − 1 calls. Threads take `n = base + (thread & 1)`.
fn recursion(base: u32, long: bool) {
    let func = ".func (.param .b32 r) fib(.param .b32 n)\n{\n.reg .pred %q<2>;\n.reg .b32 %s<8>;\n\
        ld.param.u32 %s1, [n];\n setp.lt.u32 %q1, %s1, 2;\n @%q1 bra BASE;\n sub.u32 %s2, %s1, 1;\n\
        { .param .b32 a;\n .param .b32 b;\n st.param.b32 [a], %s2;\n call (b), fib, (a);\n ld.param.b32 %s3, [b];\n }\n\
        sub.u32 %s2, %s1, 2;\n\
        { .param .b32 a;\n .param .b32 b;\n st.param.b32 [a], %s2;\n call (b), fib, (a);\n ld.param.b32 %s4, [b];\n }\n\
        add.u32 %s5, %s3, %s4;\n st.param.b32 [r], %s5;\n ret;\n BASE:\n st.param.b32 [r], %s1;\n ret;\n}\n";
    let body = format!(
        "and.b32 %r6, %r4, 1;\n add.u32 %r6, %r6, {base};\n\
         {{ .param .b32 a;\n .param .b32 b;\n st.param.b32 [a], %r6;\n call (b), fib, (a);\n ld.param.b32 %r5, [b];\n }}\n"
    );
    let ptx = format!("{HEADER}.func (.param .b32 r) fib(.param .b32 n);\n{func}{}", entry("fib", ".param .u64 out", &body));
    let fib = |n: u32| (0..n).fold((0u32, 1u32), |(a, b), _| (b, a.wrapping_add(b))).0;
    let model = |_, threads: u32| (0..threads).map(|g| fib(base + (g & 1))).collect();
    check("fib", &ptx, long, None, |block| vec![vec![0u8; (block * GRID) as usize * 4]], model);
}

#[test]
fn recursion_short_and_past_the_limit() {
    recursion(12, false);
    recursion(24, true);
}

/// An endless loop (`bra` back, no exit but `exit`) that each thread leaves by storing its
/// value and exiting after its own trip count: `odd_trips` for odd threads, 5 for even ones.
fn endless(odd_trips: u32, long: bool) {
    let body = format!(
        "and.b32 %r7, %r1, 1;\n setp.ne.u32 %p1, %r7, 0;\n selp.u32 %r8, {odd_trips}, 5, %p1;\n\
         mov.u32 %r5, %r4;\n mov.u32 %r6, 0;\n\
         AGAIN:\n mad.lo.u32 %r5, %r5, 3, 1;\n add.u32 %r6, %r6, 1;\n setp.eq.u32 %p2, %r6, %r8;\n @%p2 bra LEAVE;\n bra AGAIN;\n\
         LEAVE:\n {STORE} exit;\n"
    );
    // (`entry`'s own store and `ret` after it are unreachable.)
    let ptx = format!("{HEADER}{}", entry("endless", ".param .u64 out", &body));
    let model = |block: u32, threads: u32| {
        (0..threads).map(|g| (0..if g % block % 2 == 1 { odd_trips } else { 5 }).fold(g, |x, _| x.wrapping_mul(3).wrapping_add(1))).collect()
    };
    check("endless", &ptx, long, None, |block| vec![vec![0u8; (block * GRID) as usize * 4]], model);
}

#[test]
fn loops_left_by_exit_short_and_past_the_limit() {
    endless(3_000, false);
    endless(70_000, true);
}

/// Odd threads run `odd_trips` of `x = 3x + 1` (even ones 10), then each adds the value of
/// the lane beside it in its warp (`shfl.sync.bfly` by 1): whole warps (32 and 64 threads).
fn long_loop_then_shuffle(odd_trips: u32, long: bool) {
    let body = format!(
        "and.b32 %r7, %r1, 1;\n setp.ne.u32 %p1, %r7, 0;\n selp.u32 %r8, {odd_trips}, 10, %p1;\n\
         mov.u32 %r5, %r4;\n mov.u32 %r6, 0;\n\
         LONG:\n mad.lo.u32 %r5, %r5, 3, 1;\n add.u32 %r6, %r6, 1;\n setp.lt.u32 %p2, %r6, %r8;\n @%p2 bra LONG;\n\
         shfl.sync.bfly.b32 %r9, %r5, 1, 31, -1;\n add.u32 %r5, %r5, %r9;\n"
    );
    let ptx = format!("{HEADER}{}", entry("shuffle", ".param .u64 out", &body));
    let model = |block: u32, threads: u32| {
        let first = |g: u32| (0..if g % block % 2 == 1 { odd_trips } else { 10 }).fold(g, |x, _| x.wrapping_mul(3).wrapping_add(1));
        (0..threads).map(|g| first(g).wrapping_add(first(g ^ 1))).collect()
    };
    check_blocks(&[32, 64], "shuffle", &ptx, long, None, |block| vec![vec![0u8; (block * GRID) as usize * 4]], model);
}

#[test]
fn long_loops_before_a_warp_shuffle() {
    long_loop_then_shuffle(2_000, false);
    long_loop_then_shuffle(70_000, true);
}

/// `trips` of `x = 3x + shfl.sync.bfly(x, 1) + i` (`i` the trip), every thread alike; the
/// result depends on the last trips' `i`, so a cut at any trip changes it.
fn shuffles_in_a_long_loop(trips: u32, long: bool) {
    let body = format!(
        "mov.u32 %r5, %r4;\n mov.u32 %r6, 0;\n\
         TRIP:\n shfl.sync.bfly.b32 %r9, %r5, 1, 31, -1;\n mad.lo.u32 %r5, %r5, 3, %r9;\n add.u32 %r5, %r5, %r6;\n\
         add.u32 %r6, %r6, 1;\n setp.lt.u32 %p2, %r6, {trips};\n @%p2 bra TRIP;\n"
    );
    let ptx = format!("{HEADER}{}", entry("shuffles", ".param .u64 out", &body));
    let model = |_, threads: u32| {
        let mut x: Vec<u32> = (0..threads).collect();
        for i in 0..trips {
            x = (0..threads as usize).map(|g| x[g].wrapping_mul(3).wrapping_add(x[g ^ 1]).wrapping_add(i)).collect();
        }
        x
    };
    check_blocks(&[32, 64], "shuffles", &ptx, long, None, |block| vec![vec![0u8; (block * GRID) as usize * 4]], model);
}

#[test]
fn warp_shuffles_in_a_long_loop() {
    shuffles_in_a_long_loop(1_000, false);
    shuffles_in_a_long_loop(70_000, true);
}
