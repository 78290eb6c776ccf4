//! Launch preconditions (`launch_proof`): which launches may run the variant without heap
//! fault recording. Expected verdicts come from the launch's own arithmetic, worked out by
//! hand below for each kernel (the addresses every thread computes), not from ptxcross.

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::ir::Kernel;
use ptxcross_lower::launch_proof::{analyse, specialise, LaunchValues};
use ptxcross_lower::{abi, lower, LowerOptions};

fn kernel(ptx: &str, block: [u32; 3]) -> Kernel {
    let file = SourceFile::new("t.ptx".to_string(), ptx.to_string());
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    let options = LowerOptions { block: Some(block), ..Default::default() };
    let module = lower(&ast, &file, &options).unwrap_or_else(|e| panic!("lower: {}", e[0].render(&file)));
    module.kernels.into_iter().next().unwrap()
}

const SEGMENT: u32 = 0;
fn heap_address(byte: u64) -> u64 {
    abi::HEAP_BASE + byte
}

/// The parameter buffer as the host builds it (header: the segment number; then `args`).
fn params(k: &Kernel, args: &[(u32, u64, u32)]) -> Vec<u32> {
    let mut words = vec![0u32; (abi::PARAM_HEADER_WORDS + k.param_bytes.div_ceil(4)) as usize];
    words[abi::PARAM_HEAP_SEGMENT_WORD as usize] = SEGMENT;
    for &(offset, value, size) in args {
        let w = (abi::PARAM_HEADER_WORDS + offset / 4) as usize;
        words[w] = value as u32;
        if size == 8 {
            words[w + 1] = (value >> 32) as u32;
        }
    }
    words
}

pub const SAXPY: &str = include_str!("../../tests/corpus/ptx/saxpy.sm80.ptx");

#[test]
fn saxpy_in_range_launch_holds() {
    let k = kernel(SAXPY, [256, 1, 1]);
    let proof = analyse(&k).expect("saxpy has a precondition");
    eprintln!("{} claims, {} nodes", proof.claims.len(), proof.nodes.len());
    let n = 1000u64;
    let heap_words = 64 + 2 * n + 100;
    let x = heap_address(256);
    let y = heap_address(256 + 4 * n);
    let p = params(&k, &[(0, n, 4), (4, 0x4000_0000, 4), (8, x, 8), (16, y, 8)]);
    let launch = LaunchValues { params: &p, grid: [4, 1, 1], heap_words };
    assert_eq!(proof.failing_claims(launch), Vec::<usize>::new(), "{proof:#?}");
    let v = specialise(&k, &proof).expect("a variant");
    assert!(!v.defers_faults());
}

/// saxpy with `n` elements at `x` and `y` (byte offsets in the segment), `grid` blocks of 256,
/// a heap of `heap_words`: whether the precondition holds.
fn saxpy_holds(n: u64, x: u64, y: u64, grid: u32, heap_words: u64) -> bool {
    let k = kernel(SAXPY, [256, 1, 1]);
    let proof = analyse(&k).unwrap();
    let p = params(&k, &[(0, n, 4), (4, 0x4000_0000, 4), (8, heap_address(x), 8), (16, heap_address(y), 8)]);
    proof.holds(LaunchValues { params: &p, grid: [grid, 1, 1], heap_words })
}

#[test]
fn saxpy_verdicts_follow_the_launch() {
    // Threads i < min(n, 256 * grid) read x[i], y[i] and write y[i]: the last word is at
    // byte max(x, y) + 4 * (min(n, 256 grid) - 1), which must lie below 4 * heap_words.
    let hw = 64 + 2000;
    assert!(saxpy_holds(1000, 256, 4256, 4, hw));
    // y's last element is the heap's last word: still in range.
    assert!(saxpy_holds(1000, 256, 4 * hw - 4000, 4, hw));
    // One word past the heap.
    assert!(!saxpy_holds(1000, 256, 4 * hw - 3996, 4, hw));
    // `n` larger than the buffers, but the grid covers only 1000 threads: in range.
    assert!(saxpy_holds(5000, 256, 4256, 4, 64 + 2 * 1024));
    // `n` larger than the buffers and threads that reach it.
    assert!(!saxpy_holds(5000, 256, 4256, 20, hw));
    // Misaligned pointer.
    assert!(!saxpy_holds(1000, 258, 4256, 4, hw));
    assert!(!saxpy_holds(1000, 256, 4258, 4, hw));
    // x in the reserved words.
    assert!(!saxpy_holds(1000, 252, 4256, 4, hw));
    // n <= 0 (as s32): no thread accesses anything.
    assert!(saxpy_holds(0, 0, 0, 4, hw));
    assert!(saxpy_holds(0xffff_fff0, 0, 0, 4, hw));
    // A grid whose thread index passes 2^31 (negative as s32, so `mul.wide.s32` sign-extends):
    // not proven even where n is large.
    assert!(!saxpy_holds(0x7fff_ffff, 256, 4256, (1 << 23) + 1, 1 << 28));
}

#[test]
#[ignore]
fn print_corpus_claims() {
    for f in ["vecadd", "saxpy", "transpose", "reduce", "mandelbrot", "hash"] {
        let ptx = std::fs::read_to_string(format!("../tests/corpus/ptx/{f}.sm80.ptx")).unwrap();
        let k = kernel(&ptx, [256, 1, 1]);
        match analyse(&k) {
            Some(p) => {
                let v = specialise(&k, &p);
                eprintln!("{f}: {} claims {:?}, variant {} defers {:?}", p.claims.len(), p.claims.iter().map(|c| (c.var.0, c.value, c.guards.len())).collect::<Vec<_>>(), v.is_some(), v.map(|v| v.defers_faults()));
            }
            None => eprintln!("{f}: none"),
        }
    }
}

/// What the host pays per launch to evaluate a precondition (`cargo test -p ptxcross-lower
/// --test launch_proof evaluation_cost -- --ignored --nocapture`).
#[test]
#[ignore]
fn evaluation_cost() {
    for (f, block) in [("saxpy", [256, 1, 1]), ("transpose", [32, 8, 1])] {
        let ptx = std::fs::read_to_string(format!("../tests/corpus/ptx/{f}.sm80.ptx")).unwrap();
        let k = kernel(&ptx, block);
        let proof = analyse(&k).unwrap();
        let p = params(&k, &[(0, heap_address(256), 8), (8, heap_address(1 << 20), 8), (16, 100, 4), (20, 75, 4)]);
        let launch = LaunchValues { params: &p, grid: [4, 3, 1], heap_words: 1 << 20 };
        let t = std::time::Instant::now();
        let n = 2000;
        for _ in 0..n {
            std::hint::black_box(proof.holds(launch));
        }
        eprintln!("{f}: {} claims, {} nodes: {:.1} µs per launch", proof.claims.len(), proof.nodes.len(), t.elapsed().as_secs_f64() * 1e6 / n as f64);
    }
}

/// Analysis time on every kernel of the CUB/Thrust file (`cargo test -p ptxcross-lower --test
/// launch_proof analysis_time_on_cub -- --ignored --nocapture`).
#[test]
#[ignore]
fn analysis_time_on_cub() {
    let ptx = std::fs::read_to_string("../tests/parse-corpus/large/cub_zoo.sm_80.ptx").unwrap();
    let file = SourceFile::new("cub.ptx".to_string(), ptx);
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    let module = lower(&ast, &file, &LowerOptions::default()).unwrap_or_else(|e| panic!("lower: {}", e[0].render(&file)));
    let t = std::time::Instant::now();
    let (mut with, mut claims, mut worst) = (0, 0, std::time::Duration::ZERO);
    for k in &module.kernels {
        let t = std::time::Instant::now();
        if let Some(p) = analyse(k) {
            with += 1;
            claims += p.claims.len();
            let _ = specialise(k, &p);
        }
        worst = worst.max(t.elapsed());
    }
    eprintln!("{} kernels, {with} with a precondition, {claims} claims: {:?} in all, worst kernel {worst:?}", module.kernels.len(), t.elapsed());
}
