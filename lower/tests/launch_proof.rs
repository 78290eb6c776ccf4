//! Launch preconditions (`launch_proof`): which launches may run the variant without heap
//! fault recording. Expected verdicts come from the launch's own arithmetic, worked out by
//! hand below for each kernel (the addresses every thread computes), not from ptxcross.

use ptxcross_lower::ir::Kernel;
use ptxcross_lower::launch_proof::{analyse, specialise, LaunchValues};
use ptxcross_lower::{abi, LowerOptions};

mod support;

fn kernel(ptx: &str, block: [u32; 3]) -> Kernel {
    support::lower_kernel(ptx, block)
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
    let module = support::lower_module(&ptx, &LowerOptions::default());
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

// ------------------------------------------------------------------------------------------
// Loop-carried indices (`induction`).

pub const MATMUL: &str = include_str!("../../tests/speed/ptx/matmul.sm80.ptx");

/// The 16×16-tile matmul (params `a, b, c, n`, 16×16 threads): thread (tx, ty) of block
/// (bx, by), `row = 16 by + ty`, `col = 16 bx + tx`, runs the tile loop for `k0 = 0, 16, …`
/// while `k0 < n` (`ceil(n / 16)` iterations when `n >= 1`), reading `a[row n + k0 + tx]`
/// and `b[(k0 + ty) n + col]`, then writes `c[row n + col]`.
fn matmul_holds(n: u64, a: u64, b: u64, c: u64, grid: [u32; 2], heap_words: u64) -> bool {
    let k = kernel(MATMUL, [16, 16, 1]);
    let proof = analyse(&k).unwrap();
    let p = params(&k, &[(0, heap_address(a), 8), (8, heap_address(b), 8), (16, heap_address(c), 8), (24, n, 4)]);
    proof.holds(LaunchValues { params: &p, grid: [grid[0], grid[1], 1], heap_words })
}

#[test]
fn matmul_loop_indices_follow_the_launch() {
    let k = kernel(MATMUL, [16, 16, 1]);
    let proof = analyse(&k).unwrap();
    assert_eq!(proof.loops.len(), 1, "the tile loop is bounded (the shared-memory prologue has no loop: isolation.rs writes its two rounds out)");
    // The loop's two loads (segment, alignment and range tests each) are claimed, and the
    // variant of a launch that holds has no deferred fault left for them.
    assert_eq!(proof.claims.len(), 9, "{:?}", proof.claims);
    let n = 256u64;
    let nn = n * n;
    // a, b, c back to back from byte 256; the heap ends at c's last element.
    let (a, b, c) = (256, 256 + 4 * nn, 256 + 8 * nn);
    let hw = 64 + 3 * nn;
    assert!(matmul_holds(n, a, b, c, [16, 16], hw));
    // b last: its last element, b[255 n + 255], is read in the 16th iteration (k0 = 240,
    // ty = 15): in range exactly when the heap holds it.
    assert!(matmul_holds(n, a, c, b, [16, 16], hw));
    assert!(!matmul_holds(n, a, c, b, [16, 16], hw - 1));
    // a last: a[255 n + 240 + 15], also the 16th iteration.
    assert!(matmul_holds(n, b, c, a, [16, 16], hw));
    assert!(!matmul_holds(n, b, c, a, [16, 16], hw - 1));
    // Misaligned a or b.
    assert!(!matmul_holds(n, a + 2, b, c, [16, 16], hw + 1));
    assert!(!matmul_holds(n, a, b + 2, c, [16, 16], hw + 1));
    // n = 24 (not a multiple of 16) on one block: two iterations (k0 = 0, 16), so b is read
    // up to b[(16 + 15) 24 + 15] = b[759], past its 576 elements: the heap must hold it.
    let n = 24u64;
    let (a, c, b) = (256, 256 + 4 * 576, 256 + 8 * 576);
    assert!(matmul_holds(n, a, b, c, [1, 1], 64 + 2 * 576 + 760));
    assert!(!matmul_holds(n, a, b, c, [1, 1], 64 + 2 * 576 + 759));
    // n <= 0: the loop is skipped, c[row n + col] = c[col] (n = 0) only.
    assert!(matmul_holds(0, 1 << 20, 1 << 20, 256, [1, 1], 64 + 16));
}

/// A do-while loop over a pointer and a separate counter (the shape of nvcc's matmul loop):
/// thread `tid` of 64 stores to `x[tid + 64 j]` in iteration `j`, then `p += 256`,
/// `i += s`, and goes on while `i OP n` (OP filled in for CMPOP). With `s = 1`, `i < n` runs
/// iterations `0 .. n - 1` for `n >= 1` (the last word written `x[63 + 64 (n - 1)]`),
/// `i <= n` one more.
const POINTER_LOOP: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry ploop(.param .u64 x, .param .u32 n, .param .u32 s)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x];
    ld.param.u32 %r1, [n];
    ld.param.u32 %r2, [s];
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r4, 0;
LOOP:
    st.global.u32 [%rd3], %r4;
    BODY
    add.s64 %rd3, %rd3, 256;
    add.s32 %r4, %r4, %r2;
    setp.CMPOP %p1, %r4, %r1;
    @%p1 bra LOOP;
    ret;
}
"#;

fn pointer_loop(op: &str, body: &str) -> Kernel {
    kernel(&POINTER_LOOP.replace("CMPOP", op).replace("BODY", body), [64, 1, 1])
}

/// Whether the pointer loop's precondition holds with `x` at byte 256 and a heap of
/// `64 + words` words.
fn pointer_loop_holds(k: &Kernel, n: u32, s: u32, words: u64) -> bool {
    let Some(proof) = analyse(k) else { return false };
    let p = params(k, &[(0, heap_address(256), 8), (8, n as u64, 4), (12, s as u64, 4)]);
    proof.holds(LaunchValues { params: &p, grid: [1, 1, 1], heap_words: 64 + words })
}

#[test]
fn loop_trip_counts_are_exact() {
    let lt = pointer_loop("lt.u32", "");
    // n = 10, s = 1: iterations 0..=9, last word x[63 + 576] = x[639].
    assert!(pointer_loop_holds(&lt, 10, 1, 640));
    assert!(!pointer_loop_holds(&lt, 10, 1, 639));
    // s = 3: i = 3, 6, 9 pass, 12 fails: iterations 0..=3, last word x[63 + 192].
    assert!(pointer_loop_holds(&lt, 10, 3, 256));
    assert!(!pointer_loop_holds(&lt, 10, 3, 255));
    // n = 0: one iteration (do-while).
    assert!(pointer_loop_holds(&lt, 0, 1, 64));
    assert!(!pointer_loop_holds(&lt, 0, 1, 63));
    // `<=`: one iteration more than `<` (x[63 + 640]).
    let le = pointer_loop("le.u32", "");
    assert!(pointer_loop_holds(&le, 10, 1, 704));
    assert!(!pointer_loop_holds(&le, 10, 1, 703));
    // Signed `<`: the same, and a negative n is one iteration.
    let lts = pointer_loop("lt.s32", "");
    assert!(pointer_loop_holds(&lts, 10, 1, 640));
    assert!(!pointer_loop_holds(&lts, 10, 1, 639));
    assert!(pointer_loop_holds(&lts, (-5i32) as u32, 1, 64));
    // `!=` with a step that divides n - 0: i = 2, 4, .., 10 stops at 10: iterations 0..=4.
    let ne = pointer_loop("ne.s32", "");
    assert!(pointer_loop_holds(&ne, 10, 2, 320));
    assert!(!pointer_loop_holds(&ne, 10, 2, 319));
    // `!=` where the step skips n (i = 4, 8, 12, ...): runs until i wraps; not proven.
    assert!(!pointer_loop_holds(&ne, 10, 4, 1 << 28));
    // `!=` with a step that is no power of two: not proven.
    assert!(!pointer_loop_holds(&ne, 9, 3, 1 << 28));
}

#[test]
fn loops_that_may_not_end_are_not_proven() {
    let lt = pointer_loop("lt.u32", "");
    // Step 0: i stays 0 < n, the loop never ends (the pointer runs past any heap).
    assert!(!pointer_loop_holds(&lt, 10, 0, 1 << 28));
    // A step that wraps: i = 0xc000_0000, 0x8000_0000, 0x4000_0000, 0, ... all below n.
    // Bounded by the arithmetic alone (i <= n - 1 gives one pass) it would look like two
    // iterations, which a heap of 128 words holds.
    assert!(!pointer_loop_holds(&lt, 0xf000_0000, 0xc000_0000, 128));
    assert!(!pointer_loop_holds(&lt, 0xf000_0000, 0xc000_0000, 1 << 28));
    // Signed: i = 2^30, then 2^31 wraps to negative, which passes `< n` too.
    let lts = pointer_loop("lt.s32", "");
    assert!(!pointer_loop_holds(&lts, 0x7fff_ffff, 0x4000_0000, 1 << 28));
    // The same without a wrap: n = 2^31 - 1 with s = 2^30 + 1 ... passes once more only when
    // i = 2^30 + 1 < n, then 2^31 + 2 wraps: not proven either.
    assert!(!pointer_loop_holds(&lts, 0x7fff_ffff, 0x4000_0001, 1 << 28));
}

#[test]
fn loop_variables_that_are_not_induction_variables_give_no_bound() {
    // The counter is also changed inside the body (doubled by a second add).
    let twice = pointer_loop("lt.u32", "setp.eq.u32 %p2, %r3, 5;\n    @%p2 add.s32 %r4, %r4, 7;");
    assert!(!pointer_loop_holds(&twice, 10, 1, 1 << 20));
    // A bound tested on another variable: `i * 2` (not an induction variable) against n.
    let other = POINTER_LOOP.replace("setp.CMPOP %p1, %r4, %r1;", "shl.b32 %r5, %r4, 1;\n    setp.lt.u32 %p1, %r5, %r1;").replace("BODY", "");
    assert!(!pointer_loop_holds(&kernel(&other, [64, 1, 1]), 10, 1, 1 << 20));
    // A `continue` (back to the loop head) that skips the increments for some threads.
    let skip = POINTER_LOOP
        .replace("BODY", "setp.eq.u32 %p2, %r3, 5;\n    @%p2 bra LOOP;")
        .replace("setp.CMPOP", "setp.lt.u32");
    assert!(!pointer_loop_holds(&kernel(&skip, [64, 1, 1]), 10, 1, 1 << 20));
    // A break that leaves the loop early only shortens it: still proven.
    let brk = POINTER_LOOP.replace("BODY", "setp.eq.u32 %p2, %r3, 5;\n    @%p2 bra DONE;").replace("setp.CMPOP", "setp.lt.u32").replace("    ret;\n}", "DONE:\n    ret;\n}");
    let brk = kernel(&brk, [64, 1, 1]);
    assert!(pointer_loop_holds(&brk, 10, 1, 640));
    assert!(!pointer_loop_holds(&brk, 10, 1, 639));
}

/// A grid-stride loop tested at its head (`for (i = tid; i < n; i += s) x[i] = i`): the
/// index is the tested induction variable, bounded by the test that dominates the access.
const GRID_STRIDE: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry gs(.param .u64 x, .param .u32 n, .param .u32 s)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x];
    ld.param.u32 %r1, [n];
    ld.param.u32 %r2, [s];
    mov.u32 %r3, %tid.x;
LOOP:
    setp.ge.u32 %p1, %r3, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    add.s32 %r3, %r3, %r2;
    bra LOOP;
DONE:
    ret;
}
"#;

#[test]
fn a_grid_stride_loop_is_bounded_by_its_test() {
    let k = kernel(GRID_STRIDE, [64, 1, 1]);
    let holds = |n: u32, s: u32, words: u64| pointer_loop_holds(&k, n, s, words);
    // x[i] for i < n: the heap must hold n words.
    assert!(holds(1000, 64, 1000));
    assert!(!holds(1000, 64, 999));
    assert!(holds(1000, 1, 1000));
    // Step 0: threads below n loop for ever on x[tid] (the loop has no bound, `j` may be
    // anything): in range all the same, since i = tid + j * 0.
    assert!(holds(1000, 0, 1000));
    assert!(!holds(1000, 0, 63));
    // Step 2^32 - 64: i = tid, then tid - 64 + 2^32 >= n leaves: in range.
    assert!(holds(1000, 0u32.wrapping_sub(64), 1000));
    // n past the buffer, with threads that reach it.
    assert!(!holds(2000, 64, 1000));
}

fn kernel_cut(ptx: &str, block: [u32; 3]) -> Kernel {
    // Dynamic shared memory for reduce's `sdata[]`: one word per thread.
    let dynamic_shared_bytes = 4 * block.iter().product::<u32>();
    support::lower_kernel_with(ptx, &LowerOptions { block: Some(block), detect_cut_loops: true, dynamic_shared_bytes, ..Default::default() })
}

/// Lone `if c { fault(code) }` statements of `code` in `b`.
fn faults_of(b: &ptxcross_lower::ir::Block, code: u32) -> usize {
    use ptxcross_lower::ir::Stmt;
    b.stmts
        .iter()
        .map(|s| match s {
            Stmt::If { then_body, else_body, .. }
                if else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { code: c }] if *c == code) =>
            {
                1
            }
            s => s.bodies().map(|b| faults_of(b, code)).sum(),
        })
        .sum()
}

/// `out[tid] = outer * inner`, counted in a do-while nest (host/tests/loop_cut.rs's kernel),
/// and the same with the inner bound loaded from the heap (`BOUND` replaced).
const COUNT_NEST: &str = ".version 7.0\n.target sm_70\n.address_size 64
.visible .entry count(.param .u64 out, .param .u32 outer, .param .u32 inner)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u32 %r1, [outer];
	BOUND
	mov.u32 %r2, 0;
	mov.u32 %r5, 0;
OUTER:
	mov.u32 %r3, 0;
INNER:
	add.u32 %r5, %r5, 1;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, %r6;
	@%p1 bra INNER;
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p2, %r2, %r1;
	@%p2 bra OUTER;
	mov.u32 %r7, %tid.x;
	mul.wide.u32 %rd2, %r7, 4;
	add.u64 %rd3, %rd1, %rd2;
	ATOMIC
	ret;
}
";

fn count_nest(bound: &str, atomic: bool) -> Kernel {
    let store = if atomic { "atom.global.add.u32 %r4, [%rd3], %r5;" } else { "st.global.u32 [%rd3], %r5;" };
    kernel_cut(&COUNT_NEST.replace("BOUND", bound).replace("ATOMIC", store), [32, 1, 1])
}

/// The loop budget (`launch_proof::NestLoop`): a thread of the nest takes at most
/// `outer + outer · inner` back-edges (the outer loop's iterations, and the inner loop's
/// `inner` per outer iteration), which must stay within `LOOP_BUDGET` = 32,768 for the variant
/// to leave out the loop-cut check. Worked by hand at the boundary.
#[test]
fn the_loop_budget_bounds_every_thread_of_a_nest() {
    let k = count_nest("ld.param.u32 %r6, [inner];", false);
    let proof = analyse(&k).expect("a precondition");
    assert!(proof.loop_budget.is_some(), "every loop is counted");
    let holds = |outer: u32, inner: u32| {
        let p = params(&k, &[(0, heap_address(256), 8), (8, outer as u64, 4), (12, inner as u64, 4)]);
        proof.holds(LaunchValues { params: &p, grid: [1, 1, 1], heap_words: 1 << 16 })
    };
    assert!(holds(1, 32_767), "1 + 32,767");
    assert!(!holds(1, 32_768), "1 + 32,768");
    assert!(holds(128, 255), "128 + 128 · 255 = 32,768");
    assert!(!holds(128, 256), "128 + 128 · 256");
    assert!(!holds(65_536, 1), "65,536 + 65,536");
    // A do-while loop runs its body once even for a bound of 0.
    assert!(holds(1, 0));
    let v = specialise(&k, &proof).expect("a variant");
    assert!(faults_of(&k.body, abi::FAULT_LOOP_CUT) > 0, "the checked kernel has the check");
    assert_eq!(faults_of(&v.body, abi::FAULT_LOOP_CUT), 0, "the variant leaves it out");
    assert!(!v.defers_faults(), "nothing left to flush");

    // A bound loaded from the heap proves nothing: no budget, the variant keeps the check.
    let k = count_nest("ld.global.u32 %r6, [%rd1];", false);
    let proof = analyse(&k).expect("a precondition");
    assert!(proof.loop_budget.is_none());
    let v = specialise(&k, &proof).expect("a variant");
    assert_eq!(faults_of(&v.body, abi::FAULT_LOOP_CUT), faults_of(&k.body, abi::FAULT_LOOP_CUT), "the check stays");
    // An atomic may loop in the backends (compare-exchange): no budget either.
    let k = count_nest("ld.param.u32 %r6, [inner];", true);
    assert!(analyse(&k).is_none_or(|p| p.loop_budget.is_none()));
}

pub const REDUCE: &str = include_str!("../../tests/corpus/ptx/reduce.sm80.ptx");

/// reduce's tree loop `for (s = ntid / 2; s > 0; s >>= 1)` is a halving loop
/// (`induction::halving_loop`): 256 threads give `s = 128, 64, …, 1`, eight iterations, far
/// within the budget, so its variant leaves out the loop-cut check; and `s <= 128` in the loop
/// bounds its shared index.
#[test]
fn a_halving_loop_is_within_the_budget() {
    let k = kernel_cut(REDUCE, [256, 1, 1]);
    let proof = analyse(&k).expect("a precondition");
    let nest = proof.loop_budget.as_ref().expect("every loop is bounded");
    assert!(nest.iter().any(|l| matches!(l.trips, ptxcross_lower::launch_proof::Trips::Halving { shift: 1, .. })), "{nest:?}");
    let n = 4096u64;
    let p = params(&k, &[(0, heap_address(256), 8), (8, heap_address(256 + 4 * n), 8), (16, n, 4)]);
    assert!(proof.loop_budget_holds(LaunchValues { params: &p, grid: [16, 1, 1], heap_words: 1 << 16 }));
    let v = specialise(&k, &proof).expect("a variant");
    assert_eq!(faults_of(&v.body, abi::FAULT_LOOP_CUT), 0);
    // The tree loop's `sdata[tid + s]` under `tid < s`, `s <= 128`: claimed below 256 words
    // (`Claim::shared_index`), so with the launch holding nothing is deferred at all.
    assert_eq!(proof.claims.iter().filter(|c| c.shared_index).count(), 1, "{:?}", proof.claims);
    assert_eq!(proof.failing_claims(LaunchValues { params: &p, grid: [16, 1, 1], heap_words: 1 << 16 }), Vec::<usize>::new());
    assert!(!v.defers_faults(), "no flush left");
}
