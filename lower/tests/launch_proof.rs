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

pub const TRANSPOSE: &str = include_str!("../../tests/corpus/ptx/transpose.sm80.ptx");

/// transpose (32×8 threads, params `out, in, width, height`): thread (x, y + 8j) with
/// `x < width`, `y + 8j < height` reads `in[(y + 8j) * width + x]`; the last word read is
/// `in + 4 * (width * height - 1)` when the grid covers the matrix.
fn transpose_holds(width: u64, height: u64, out: u64, inp: u64, grid: [u32; 2], heap_words: u64) -> bool {
    let k = kernel(TRANSPOSE, [32, 8, 1]);
    let proof = analyse(&k).unwrap();
    let p = params(&k, &[(0, heap_address(out), 8), (8, heap_address(inp), 8), (16, width, 4), (20, height, 4)]);
    proof.holds(LaunchValues { params: &p, grid: [grid[0], grid[1], 1], heap_words })
}

#[test]
fn transpose_verdicts_follow_the_launch() {
    let (w, h) = (100u64, 75u64);
    let grid = [4, 3];
    let hw = 64 + 2 * w * h;
    let (out, inp) = (256, 256 + 4 * w * h);
    assert!(transpose_holds(w, h, out, inp, grid, hw), "both matrices end inside the heap");
    assert!(!transpose_holds(w, h + 1, out, inp, grid, hw), "one row more: in's last row is past the heap");
    assert!(!transpose_holds(w + 1, h, out, inp, grid, hw), "one column more");
    // A grid too small for the matrix touches less: still in range with a short heap.
    assert!(transpose_holds(w, h, out, inp, [1, 1], 64 + 2 * w * h - 2 * w));
    assert!(!transpose_holds(w, h, out + 2, inp, grid, hw), "misaligned out");
    // width * height past 2^31: the s32 index may wrap, nothing proven.
    assert!(!transpose_holds(1 << 16, (1 << 15) + 8, out, inp, [1 << 11, (1 << 10) + 1], 1 << 30));
}

/// A byte index `tid + k` sign-extended (`cvt.s64.s32`): with `k = 2^31 - 16` it passes 2^31
/// (negative as s32) for `tid >= 16`, so the address goes 2 GiB *below* `x`. Read as an
/// unsigned 32-bit value it would stay within a 4 GiB heap: the sign extension must be taken
/// into account.
const BYTES: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry bytes(.param .u32 k, .param .u64 x)
{
    .reg .b16 %h<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [k];
    ld.param.u64 %rd1, [x];
    mov.u32 %r2, %tid.x;
    add.s32 %r3, %r2, %r1;
    cvt.s64.s32 %rd2, %r3;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u8 %h1, [%rd3];
    st.global.u8 [%rd1], %h1;
    ret;
}
"#;

#[test]
fn a_sign_extended_index_that_wraps_is_not_proven() {
    let k = kernel(BYTES, [64, 1, 1]);
    let proof = analyse(&k).expect("claims");
    let holds = |kk: u32| {
        let p = params(&k, &[(0, kk as u64, 4), (8, heap_address(1 << 12), 8)]);
        proof.holds(LaunchValues { params: &p, grid: [1, 1, 1], heap_words: 1 << 30 })
    };
    assert!(holds(0), "x + tid");
    assert!(holds(1 << 20), "x + 1 MiB + tid");
    assert!(!holds(0x7fff_fff0), "x + sext(2^31 - 16 + tid): 2 GiB below x for tid >= 16");
}
