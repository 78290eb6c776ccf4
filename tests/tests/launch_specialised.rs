//! Launch-specialised translations (issue 11, `ptxcross_lower::launch_proof`): a launch whose
//! parameters, grid and heap satisfy the kernel's launch precondition runs the variant without
//! heap fault recording (observable: `Context::last_launch_specialised`), bit-exactly; a launch
//! that does not still runs the checked kernel and faults at the right instruction: `n` larger
//! than the buffer, a misaligned pointer, a 32-bit index that wraps (sign-extended by
//! `mul.wide.s32`), a guard on another variable than the index, `<=` instead of `<`, a tile
//! loop whose last tile reads past the heap.
//! Expected values: a CPU reference of each kernel; expected faults: PTX's rules (an access
//! outside every allocation or not aligned to its size is an error, §9.7.9.8), placed by
//! putting the buffer at the very end of the heap.

use ptxcross::runtime::{DevicePtr, Error};
use ptxcross::{translate, Backend, Context, ContextOptions, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::{abi, LowerOptions};
use ptxcross_tests::launch::gpu_or_skip;

const HEAP: u64 = 1 << 20;

/// Translation options for `gpu`: exact f32 also where a backend flushes subnormals (NVIDIA's
/// WGSL path does; without it the runtime refuses a kernel whose results depend on them).
/// `PTXCROSS_TEST_FLUSHED_F32=1` takes that mode on any device (lavapipe keeps subnormals).
fn options(gpu: &std::sync::Arc<ptxcross::Gpu>, block: [u32; 3]) -> LowerOptions {
    let flushed_f32 = std::env::var_os("PTXCROSS_TEST_FLUSHED_F32").is_some() || Backend::ALL.iter().any(|&b| gpu.flushes_f32(b));
    LowerOptions { block: Some(block), flushed_f32, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) }
}

fn program(gpu: &std::sync::Arc<ptxcross::Gpu>, name: &str, ptx: &str) -> Program {
    let file = SourceFile::new(name.to_string(), ptx.to_string());
    let options = options(gpu, [256, 1, 1]);
    translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()))
}

/// A context whose heap is one allocation from the first free byte to the segment's end;
/// returns it and the allocation's base.
fn context(gpu: &std::sync::Arc<ptxcross::Gpu>) -> (Context, u64, u64) {
    let mut ctx = Context::new(ContextOptions { heap_bytes: HEAP, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
    // These launches are small: let them specialise (by default only launches of
    // `LAUNCH_SPECIALISATION_THREADS` threads or more do).
    ctx.set_launch_specialisation_threshold(0);
    let size = HEAP - abi::HEAP_RESERVED_WORDS as u64 * 4;
    let base = ctx.alloc(size).unwrap().0;
    (ctx, base, base + size)
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn fault(r: Result<(), Error>, what: &str) -> (u32, String) {
    match r {
        Err(Error::KernelFault { bits, site, .. }) => {
            if site.is_none() {
                eprintln!("{what}: a fault without a site: bits {bits:#x}");
            }
            (bits, site.unwrap_or_default())
        }
        other => panic!("{what}: expected a kernel fault, got {other:?}"),
    }
}

const SAXPY: &str = include_str!("../corpus/ptx/saxpy.sm80.ptx");

/// saxpy.sm80.ptx: `i = ctaid.x * ntid.x + tid.x` (mad.lo.s32), `if (i <s n)`, `mul.wide.s32`,
/// `cvta.to.global`, then x[i], y[i] loaded and y[i] = fma(a, x[i], y[i]) stored.
#[test]
fn saxpy_runs_unchecked_when_in_range_and_checked_otherwise() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program(&gpu, "saxpy.sm80.ptx", SAXPY);
    for backend in Backend::ALL {
        let (mut ctx, base, end) = context(&gpu);
        let n = 3000usize;
        let x: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 1e3).collect();
        let y: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos() / 3.0).collect();
        let a = 1.000_123_4f32;
        // x at the start of the heap, y ending exactly at the heap's end.
        let (xp, yp) = (base, end - 4 * n as u64);
        ctx.write(DevicePtr(xp), &f32s(&x)).unwrap();
        ctx.write(DevicePtr(yp), &f32s(&y)).unwrap();
        let args = |n: u32, xp: u64, yp: u64| (n.to_le_bytes(), a.to_le_bytes(), xp.to_le_bytes(), yp.to_le_bytes());
        let (p0, p1, p2, p3) = args(n as u32, xp, yp);
        let grid = [(n as u32).div_ceil(256), 1, 1];
        ctx.launch(&prog, "saxpy", grid, &[&p0, &p1, &p2, &p3], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(ctx.last_launch_specialised(), "{backend}: the in-range launch runs the variant");
        let got = ctx.read(DevicePtr(yp), 4 * n as u64).unwrap();
        let want: Vec<u8> = f32s(&(0..n).map(|i| a.mul_add(x[i], y[i])).collect::<Vec<_>>());
        assert_eq!(got, want, "{backend}: y = fma(a, x, y), one rounding");

        // By default a launch this small runs the checked kernel.
        ctx.set_launch_specialisation_threshold(ptxcross::runtime::LAUNCH_SPECIALISATION_THREADS);
        ctx.launch(&prog, "saxpy", grid, &[&p0, &p1, &p2, &p3], backend).unwrap();
        assert!(!ctx.last_launch_specialised(), "{backend}: {n} threads are below the default threshold");
        ctx.set_launch_specialisation_threshold(0);

        // More threads than elements, all stopped by `i < n`: still the variant.
        let big = [grid[0] + 7, 1, 1];
        ctx.launch(&prog, "saxpy", big, &[&p0, &p1, &p2, &p3], backend).unwrap();
        assert!(ctx.last_launch_specialised(), "{backend}: surplus threads stop at the guard");

        // n one larger than y: thread n - 1 reads and writes the word after the heap's end.
        let (q0, q1, q2, q3) = args(n as u32 + 1, xp, yp);
        let r = ctx.launch(&prog, "saxpy", [(n as u32 + 1).div_ceil(256), 1, 1], &[&q0, &q1, &q2, &q3], backend);
        let (bits, site) = fault(r, "n past the buffer");
        assert!(!ctx.last_launch_specialised(), "{backend}: the checked kernel ran");
        assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
        assert!(site.contains("ld.global.f32"), "{backend}: site {site}");

        // A misaligned x.
        let (q0, q1, q2, q3) = args(16, xp + 2, yp);
        let r = ctx.launch(&prog, "saxpy", [1, 1, 1], &[&q0, &q1, &q2, &q3], backend);
        let (bits, site) = fault(r, "misaligned x");
        assert!(!ctx.last_launch_specialised(), "{backend}");
        assert_eq!(bits, abi::FAULT_MISALIGNED, "{backend}");
        assert!(site.contains(":45:") && site.contains("ld.global.f32"), "{backend}: the load of x, {site}");
    }
}

/// The index `i + k` in 32 bits, sign-extended: with `k` = 2^31 - 16 it passes 2^31 for
/// `i >= 16`, the address goes 8 GiB below `x`, out of every segment.
const WRAP: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry wrap(.param .u32 n, .param .u32 k, .param .u64 x)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [n];
    ld.param.u32 %r2, [k];
    ld.param.u64 %rd1, [x];
    mov.u32 %r3, %tid.x;
    setp.ge.s32 %p1, %r3, %r1;
    @%p1 bra DONE;
    add.s32 %r4, %r3, %r2;
    mul.wide.s32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
DONE:
    ret;
}
"#;

#[test]
fn an_index_that_wraps_is_not_proven() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program(&gpu, "wrap.ptx", WRAP);
    for backend in Backend::ALL {
        let (mut ctx, base, _) = context(&gpu);
        let x = base + 4096;
        // k = 0: x[tid] = tid for tid < 64, proven.
        ctx.launch(&prog, "wrap", [1, 1, 1], &[&64u32.to_le_bytes(), &0u32.to_le_bytes(), &x.to_le_bytes()], backend).unwrap();
        assert!(ctx.last_launch_specialised(), "{backend}");
        let got = ctx.read(DevicePtr(x), 256).unwrap();
        assert_eq!(got, (0..64u32).flat_map(|t| t.to_le_bytes()).collect::<Vec<_>>(), "{backend}");
        // k = 2^31 - 16: tid + k wraps past 2^31 for tid >= 16.
        let r = ctx.launch(&prog, "wrap", [1, 1, 1], &[&64u32.to_le_bytes(), &0x7fff_fff0u32.to_le_bytes(), &x.to_le_bytes()], backend);
        let (bits, site) = fault(r, "wrapped index");
        assert!(!ctx.last_launch_specialised(), "{backend}");
        assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
        assert!(site.contains("st.global.u32"), "{backend}: {site}");
    }
}

/// Guards that do not bound the index: `tid < n` guarding `x[ctaid * ntid + tid]`, and
/// `i <= n` guarding `x[i]`.
const GUARDS: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry other_var(.param .u32 n, .param .u64 x)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [n];
    ld.param.u64 %rd1, [x];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
DONE:
    ret;
}
.visible .entry less_equal(.param .u32 n, .param .u64 x)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [n];
    ld.param.u64 %rd1, [x];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    setp.gt.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
DONE:
    ret;
}
"#;

#[test]
fn guards_on_another_variable_or_with_le_are_not_proven() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program(&gpu, "guards.ptx", GUARDS);
    for backend in Backend::ALL {
        let (mut ctx, _, end) = context(&gpu);
        let n = 1000u32;
        let x = end - 4 * n as u64;
        let args = [n.to_le_bytes().to_vec(), x.to_le_bytes().to_vec()];
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
        // other_var: one block of 256 with tid < n: proven; 8 blocks reach index 2047.
        ctx.launch(&prog, "other_var", [1, 1, 1], &args, backend).unwrap();
        assert!(ctx.last_launch_specialised(), "{backend}");
        let r = ctx.launch(&prog, "other_var", [8, 1, 1], &args, backend);
        let (bits, site) = fault(r, "guard on tid");
        assert!(!ctx.last_launch_specialised(), "{backend}");
        assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
        assert!(site.contains("st.global.u32"), "{backend}: {site}");
        // less_equal: n - 1 would be proven; n lets thread n store past the heap's end.
        let m = (n - 1).to_le_bytes();
        ctx.launch(&prog, "less_equal", [4, 1, 1], &[&m, args[1]], backend).unwrap();
        assert!(ctx.last_launch_specialised(), "{backend}");
        let got = ctx.read(DevicePtr(x), 4 * n as u64).unwrap();
        assert_eq!(got, (0..n).flat_map(|t| t.to_le_bytes()).collect::<Vec<_>>(), "{backend}");
        let r = ctx.launch(&prog, "less_equal", [4, 1, 1], &args, backend);
        let (bits, _) = fault(r, "guard <=");
        assert!(!ctx.last_launch_specialised(), "{backend}");
        assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
    }
}

const TRANSPOSE: &str = include_str!("../corpus/ptx/transpose.sm80.ptx");

/// transpose.sm80.ptx (32×32 tiles, 32×8 threads, four rows per thread): 2-D indices
/// `y * width + x` with `x = ctaid.x * 32 + tid.x` (`shl`), guards `x < width || y + 8j <
/// height` as one `or.pred` branch, shared-memory tile in between. `in` ends at the heap's end,
/// so a height one too large reads past it.
#[test]
fn transpose_runs_unchecked_when_in_range_and_checked_otherwise() {
    let Some(gpu) = gpu_or_skip() else { return };
    let file = SourceFile::new("transpose.sm80.ptx".to_string(), TRANSPOSE.to_string());
    let options = options(&gpu, [32, 8, 1]);
    let prog = translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()));
    let (w, h) = (100usize, 75usize);
    let input: Vec<f32> = (0..w * h).map(|i| i as f32 * 0.5 - 7.25).collect();
    for backend in Backend::ALL {
        let (mut ctx, base, end) = context(&gpu);
        let (out, inp) = (base, end - 4 * (w * h) as u64);
        ctx.write(DevicePtr(inp), &f32s(&input)).unwrap();
        let launch = |ctx: &mut Context, height: usize| {
            let grid = [w.div_ceil(32) as u32, height.div_ceil(32) as u32, 1];
            let (a, b, c, d) = (out.to_le_bytes(), inp.to_le_bytes(), (w as u32).to_le_bytes(), (height as u32).to_le_bytes());
            ctx.launch(&prog, "transpose", grid, &[&a, &b, &c, &d], backend)
        };
        launch(&mut ctx, h).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(ctx.last_launch_specialised(), "{backend}");
        let got = ctx.read(DevicePtr(out), 4 * (w * h) as u64).unwrap();
        let mut want = vec![0f32; w * h];
        for r in 0..h {
            for c in 0..w {
                want[c * h + r] = input[r * w + c];
            }
        }
        assert_eq!(got, f32s(&want), "{backend}: out[c][r] = in[r][c]");
        let (bits, site) = fault(launch(&mut ctx, h + 1), "one row too many");
        assert!(!ctx.last_launch_specialised(), "{backend}");
        assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
        assert!(site.contains("ld.global.f32"), "{backend}: {site}");
    }
}

const MATMUL: &str = include_str!("../speed/ptx/matmul.sm80.ptx");

/// `if c { fault }` statements (lone faults: the segment, alignment and range tests of plain
/// heap accesses) in `b`, nested ones included.
fn lone_faults(b: &ptxcross_lower::ir::Block) -> usize {
    use ptxcross_lower::ir::Stmt;
    b.stmts
        .iter()
        .map(|s| match s {
            Stmt::If { then_body, else_body, .. } if else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { .. }]) => 1,
            s => s.bodies().map(lone_faults).sum(),
        })
        .sum()
}

/// The 16×16-tile matmul of the speed benchmark (`tests/speed/`; params `a, b, c, n`): its
/// heap loads sit in the tile loop, through two pointers nvcc steps by `64` and `64 n` bytes
/// per iteration beside a counter `k0 += 16` tested `k0 < n` (proven through `induction`).
/// `b` ends at the heap's end, so the last iteration's load of `b[(n - 1) n + col]` is the
/// heap's last word; a matrix size that is no multiple of 16 makes the last tile read past it.
#[test]
fn matmul_tile_loop_runs_unchecked_when_in_range_and_checked_otherwise() {
    let Some(gpu) = gpu_or_skip() else { return };
    let file = SourceFile::new("matmul.sm80.ptx".to_string(), MATMUL.to_string());
    let options = options(&gpu, [16, 16, 1]);
    let prog = translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()));
    let n = 48usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7 % 113) as f32 - 56.0) / 17.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 13 % 97) as f32 - 48.0) / 11.0).collect();
    // matmul.cu: sum = fmaf(a[r][k], b[k][c], sum) in k order, one rounding each.
    let mut want = vec![0f32; n * n];
    for r in 0..n {
        for c in 0..n {
            let mut sum = 0f32;
            for k in 0..n {
                sum = a[r * n + k].mul_add(b[k * n + c], sum);
            }
            want[r * n + c] = sum;
        }
    }
    for backend in Backend::ALL {
        let (mut ctx, base, end) = context(&gpu);
        let (ap, cp, bp) = (base, base + 4 * (n * n) as u64, end - 4 * (n * n) as u64);
        ctx.write(DevicePtr(ap), &f32s(&a)).unwrap();
        ctx.write(DevicePtr(bp), &f32s(&b)).unwrap();
        let launch = |ctx: &mut Context, m: usize, grid: u32| {
            let (p0, p1, p2, p3) = (ap.to_le_bytes(), bp.to_le_bytes(), cp.to_le_bytes(), (m as u32).to_le_bytes());
            ctx.launch(&prog, "matmul", [grid, grid, 1], &[&p0, &p1, &p2, &p3], backend)
        };
        launch(&mut ctx, n, (n / 16) as u32).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(ctx.last_launch_specialised(), "{backend}: the in-range launch runs the variant");
        let variant = prog.launch_specialised("matmul").expect("the variant");
        assert_eq!(lone_faults(&variant.kernel("matmul").unwrap().body), 0, "{backend}: no heap fault recording left, in the loop or after it");
        let got = ctx.read(DevicePtr(cp), 4 * (n * n) as u64).unwrap();
        assert_eq!(got, f32s(&want), "{backend}: c = a b");
        // n = 40 on a 2×2 grid (32×32 threads): three tiles (k0 = 0, 16, 32), the last
        // reading up to b[(32 + 15) 40 + 31] = b[1911], inside the 48 × 48 = 2304 words that
        // end at the heap's end: in range, the variant (its values are not checked: rows past
        // 40 of the 40-wide matrices are other data).
        launch(&mut ctx, 40, 2).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(ctx.last_launch_specialised(), "{backend}: n = 40 stays inside b's 48 × 48 words");
        // n = 56 on a 3×3 grid: four tiles (k0 = 0..48), the last reading b[(48 + 15) 56 +
        // 47] = b[3575], past b's 2304 words and the heap's end.
        let (bits, site) = fault(launch(&mut ctx, 56, 3), "the last tile past the heap");
        assert!(!ctx.last_launch_specialised(), "{backend}: the checked kernel ran");
        assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
        assert!(site.contains("ld.global.f32"), "{backend}: site {site}");
        // A misaligned a.
        let (p0, p1, p2, p3) = ((ap + 2).to_le_bytes(), bp.to_le_bytes(), cp.to_le_bytes(), 16u32.to_le_bytes());
        let (bits, _) = fault(ctx.launch(&prog, "matmul", [1, 1, 1], &[&p0, &p1, &p2, &p3], backend), "misaligned a");
        assert!(!ctx.last_launch_specialised(), "{backend}");
        assert_eq!(bits, abi::FAULT_MISALIGNED, "{backend}");
    }
}

const MANDELBROT: &str = include_str!("../corpus/ptx/mandelbrot.sm80.ptx");

/// mandelbrot.cu on the CPU: the escape count of pixel `(px, py)`, every operation one f32
/// rounding (`__fmul_rn`/`__fadd_rn`/`__fsub_rn`), as the CUDA source fixes them.
fn mandelbrot_ref(w: usize, h: usize, x0: f32, y0: f32, dx: f32, dy: f32, max_iter: i32) -> Vec<u32> {
    let mut out = vec![0u32; w * h];
    for py in 0..h {
        for px in 0..w {
            let cr = x0 + (px as f32) * dx;
            let ci = y0 + (py as f32) * dy;
            let (mut zr, mut zi, mut it) = (0f32, 0f32, 0i32);
            while it < max_iter {
                let (zr2, zi2) = (zr * zr, zi * zi);
                if zr2 + zi2 > 4.0 {
                    break;
                }
                let t = (zr2 - zi2) + cr;
                zi = (2.0 * zr) * zi + ci;
                zr = t;
                it += 1;
            }
            out[py * w + px] = it as u32;
        }
    }
    out
}

/// The loop budget (`launch_proof::NestLoop`): with the loop-cut check on (what the host adds
/// where the driver cuts long loops, lavapipe), mandelbrot's variant leaves the check out when
/// every thread's back-edges stay within `LOOP_BUDGET` (32,768): the structurizer's single-pass
/// loop (1) and the escape loop (`max_iter` iterations at most, `it < max_iter` after `++it`).
/// `max_iter` = 32,767 is the largest that fits; 32,768 runs the checked kernel (right
/// results: no driver cuts a loop that short); 70,000 on pixels that never escape runs the
/// checked kernel, which reports the cut where the driver cuts (lavapipe) and is right
/// elsewhere.
#[test]
fn mandelbrot_leaves_out_the_loop_cut_check_within_the_loop_budget() {
    let Some(gpu) = gpu_or_skip() else { return };
    let file = SourceFile::new("mandelbrot.sm80.ptx".to_string(), MANDELBROT.to_string());
    let options = LowerOptions { detect_cut_loops: true, ..options(&gpu, [16, 16, 1]) };
    let prog = translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()));
    let (w, h) = (32usize, 16usize);
    for backend in Backend::ALL {
        let (mut ctx, base, _) = context(&gpu);
        let launch = |ctx: &mut Context, x0: f32, dx: f32, max_iter: i32| {
            let (p0, p1, p2) = (base.to_le_bytes(), (w as u32).to_le_bytes(), (h as u32).to_le_bytes());
            let (p3, p4, p5, p6, p7) = (x0.to_le_bytes(), (-1.0f32).to_le_bytes(), dx.to_le_bytes(), (2.0f32 / h as f32).to_le_bytes(), max_iter.to_le_bytes());
            ctx.launch(&prog, "mandelbrot", [2, 1, 1], &[&p0, &p1, &p2, &p3, &p4, &p5, &p6, &p7], backend)
        };
        let read = |ctx: &mut Context| -> Vec<u32> {
            ctx.read(DevicePtr(base), 4 * (w * h) as u64).unwrap().chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
        };
        // The whole set: escaping and bounded pixels.
        let (x0, dx) = (-2.0f32, 3.0f32 / w as f32);
        for max_iter in [200, 32_767] {
            launch(&mut ctx, x0, dx, max_iter).unwrap_or_else(|e| panic!("{backend}, {max_iter}: {e}"));
            assert!(ctx.last_launch_specialised(), "{backend}: max_iter {max_iter} is within the budget");
            assert_eq!(read(&mut ctx), mandelbrot_ref(w, h, x0, -1.0, dx, 2.0 / h as f32, max_iter), "{backend}, max_iter {max_iter}");
        }
        let variant = prog.launch_specialised("mandelbrot").expect("the variant");
        assert_eq!(lone_faults(&variant.kernel("mandelbrot").unwrap().body), 0, "{backend}: neither heap faults nor the loop-cut check left");
        launch(&mut ctx, x0, dx, 32_768).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(!ctx.last_launch_specialised(), "{backend}: max_iter 32,768 is one past the budget");
        assert_eq!(read(&mut ctx), mandelbrot_ref(w, h, x0, -1.0, dx, 2.0 / h as f32, 32_768), "{backend}, max_iter 32,768");
        // Pixels around c = -0.1 + 0i never escape: 70,000 iterations each.
        let (x0, dx) = (-0.1f32, 1.0 / 1024.0);
        let r = launch(&mut ctx, x0, dx, 70_000);
        assert!(!ctx.last_launch_specialised(), "{backend}: 70,000 iterations are past the budget");
        if gpu.cuts_long_loops(backend) {
            let (bits, _) = fault(r, "70,000 iterations on a driver that cuts loops");
            assert_eq!(bits, abi::FAULT_LOOP_CUT, "{backend}");
        } else {
            r.unwrap_or_else(|e| panic!("{backend}: {e}"));
            assert_eq!(read(&mut ctx), mandelbrot_ref(w, h, x0, -1.0, dx, 2.0 / h as f32, 70_000), "{backend}, max_iter 70,000");
        }
    }
}

/// A tree sum over 256 shared words by 256 threads, its stride `s` halving from a parameter
/// (`for (s = s0; s != 0; s >>= 1) if (tid < s) sh[tid] += sh[tid + s]`): the load of
/// `sh[tid + s]` is claimed in range at launch (`launch_proof::Claim::shared_index`: under
/// `tid < s` with `s <= s0`, `tid + s < 2 s0`), so for `s0 <= 128` the variant loads it
/// without a check. `s0 = 256` reads past the array: the checked kernel faults there.
const TREE: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry tree(.param .u64 out, .param .u32 s0)
{
	.shared .align 4 .b32 sh[256];
	.reg .pred %p<5>;
	.reg .b32 %r<8>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u32 %r1, [s0];
	mov.u32 %r2, %tid.x;
	shl.b32 %r3, %r2, 2;
	mov.u32 %r4, sh;
	add.u32 %r5, %r4, %r3;
	cvt.rn.f32.u32 %f1, %r2;
	st.shared.f32 [%r5], %f1;
	bar.sync 0;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra DONE;
LOOP:
	setp.ge.u32 %p2, %r2, %r1;
	@%p2 bra SKIP;
	shl.b32 %r6, %r1, 2;
	add.u32 %r7, %r5, %r6;
	ld.shared.f32 %f2, [%r5];
	ld.shared.f32 %f3, [%r7];
	add.f32 %f2, %f2, %f3;
	st.shared.f32 [%r5], %f2;
SKIP:
	bar.sync 0;
	shr.u32 %r1, %r1, 1;
	setp.ne.u32 %p3, %r1, 0;
	@%p3 bra LOOP;
DONE:
	setp.ne.u32 %p4, %r2, 0;
	@%p4 bra END;
	ld.shared.f32 %f1, [sh];
	st.global.f32 [%rd1], %f1;
END:
	ret;
}
"#;

#[test]
fn a_halving_shared_index_is_claimed_in_range() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program(&gpu, "tree.ptx", TREE);
    for backend in Backend::ALL {
        let (mut ctx, base, _) = context(&gpu);
        let launch = |ctx: &mut Context, s0: u32| ctx.launch(&prog, "tree", [1, 1, 1], &[&base.to_le_bytes(), &s0.to_le_bytes()], backend);
        // s0 = 128: all 256 words summed; 64: the first 128 (integers, exact in f32).
        for (s0, sum) in [(128u32, (0..256).sum::<u32>()), (64, (0..128).sum::<u32>())] {
            launch(&mut ctx, s0).unwrap_or_else(|e| panic!("{backend}, s0 {s0}: {e}"));
            assert!(ctx.last_launch_specialised(), "{backend}: s0 = {s0} keeps tid + s below 256");
            assert_eq!(ctx.read(DevicePtr(base), 4).unwrap(), (sum as f32).to_le_bytes(), "{backend}, s0 {s0}");
        }
        let variant = prog.launch_specialised("tree").expect("the variant");
        assert!(!variant.kernel("tree").unwrap().defers_faults(), "{backend}: the claimed load defers no fault");
        let (bits, site) = fault(launch(&mut ctx, 256), "s0 = 256");
        assert!(!ctx.last_launch_specialised(), "{backend}: the checked kernel ran");
        assert_eq!(bits, abi::FAULT_SHARED_OUT_OF_RANGE, "{backend}");
        assert!(site.contains("ld.shared.f32"), "{backend}: site {site}");
    }
}
