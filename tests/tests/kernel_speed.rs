//! Kernel speed of the emitted code (issue 11): nvcc's PTX of five kernels run through ptxcross
//! on both backends and hand-written WGSL of the same algorithms, in one process on one device,
//! timed by GPU timestamps (`Context::last_kernel_time` for ptxcross, the same timestamp queries
//! around the compute pass for the hand-written side).
//!
//! Every output is checked: ptxcross's bit-exactly against a CPU reference of the kernel
//! (written here from the CUDA source, independent of ptxcross), the hand-written side within a
//! tolerance (its float code may be contracted or reassociated by the driver).
//!
//! - `smoke` (in the normal suite): tiny sizes, every check, timings printed but not asserted.
//! - `kernel_speed` (ignored): sizes that take ≥ 100 ms per launch on lavapipe, launches
//!   interleaved (the three sides in rotating order) and repeated, printing per kernel the
//!   median GPU times and the ratios ptxcross/hand-written, WGSL statement counts (ptxcross vs
//!   hand-written) and first-launch times at the benchmark's own grid (`1st`: a fresh
//!   context's and program's first launch minus a steady launch, which builds and runs the
//!   launch-specialised variant, vs. a fresh hand-written pipeline's; the buffers' upload
//!   excluded), with a line of its parts (a fresh program in a used context, the variant's
//!   build, and the checked kernel's first launch on one block); see `FirstLaunch`:
//!
//!   `MESA_SHADER_CACHE_DISABLE=true PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test kernel_speed kernel_speed -- --ignored --nocapture`
//!
//!   `PTXCROSS_SPEED_REPS=N` (default 5) sets the repetitions, `PTXCROSS_SPEED_KERNELS=saxpy,reduce`
//!   a subset, `PTXCROSS_SPEED_SCALE=F` multiplies the problem sizes (default 1),
//!   `PTXCROSS_SPEED_SEGMENT=1` puts ptxcross's buffers into the second heap segment (a
//!   context with more memory than one storage binding); `PTXCROSS_SPEED_SEGMENT=split` puts
//!   each buffer into a segment of its own, so every launch runs the kernel's translation for
//!   several segments (one binding per buffer, a compare chain per access).
//!   `PTXCROSS_SPEED_FLUSHED_F32=1` adds the kernels translated in the exact mode for devices
//!   that flush f32 subnormals (`LowerOptions::flushed_f32`) as two more sides, `flushed-f32`
//!   on each backend (the smoke run always checks them, and the same mode under simulated
//!   flushing, bit-exactly).
//!   `PTXCROSS_SPEED_FMA=emulated` translates `fma.rn.f32` with the exact emulation where the
//!   host would use the native fma behind a guard (`FmaMode::Guarded`: a fused fma that flushes
//!   subnormals, NVIDIA's), to compare the two in alternating runs.
//!
//!   `PTXCROSS_SPEED_VARIANTS=DIR` (an experiment switch for decomposing the cost, not a
//!   result): every `DIR/<kernel>.<label>.wgsl` and `DIR/<kernel>.<label>.spvasm` (hand edits of
//!   what `ptxcross translate --to wgsl|spirv` emits, assembled with `spirv-as`) runs as one
//!   more side with ptxcross's kernel interface, interleaved with the others; its output is
//!   compared with the reference and a mismatch is printed, not fatal; its first-launch
//!   pipeline time (fresh program, used context) is printed with it.
//!   `PTXCROSS_SPEED_NO_OUTLINE=1` translates with every long expansion inlined
//!   (`LowerOptions::no_outline`: the code before `lower` outlined them into functions), for
//!   before/after comparisons with one binary.
//!   `PTXCROSS_SPEED_DUMP=DIR` writes the code the ptxcross sides run (`<kernel>.wgsl`,
//!   `<kernel>.spv`, and the launch-specialised variant's `<kernel>.specialised.wgsl|spv`) into
//!   DIR, and with `PTXCROSS_SPEED_FLUSHED_F32=1` the exact-f32 sides' code as
//!   `<kernel>.flushed-f32.wgsl|spv` (the launch-specialised variant where there is one).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ptxcross::{translate, Backend, Context, ContextOptions, Gpu, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::launch::{gpu_or_skip, words};

/// One kernel at one size: what both sides run and what they must produce.
struct Case {
    name: &'static str,
    ptx_path: &'static str,
    block: [u32; 3],
    grid: [u32; 3],
    dynamic_shared: u32,
    /// Device buffers (initial contents); the kernel's pointer arguments point at them.
    buffers: Vec<Vec<u8>>,
    /// The kernel's parameters in order.
    args: Vec<Arg>,
    /// The buffer the kernel writes, and its expected words (CPU reference).
    out: usize,
    expect: Vec<u32>,
    /// Hand-written WGSL: entry `main`, buffer `i` at `@binding(i)`, then the scalar
    /// parameters as a uniform at `@binding(buffers.len())`.
    hand_wgsl: &'static str,
    hand_uniform: Vec<u8>,
    hand_grid: [u32; 3],
    /// Accepts the hand-written side's output (not exact).
    tolerance: fn(expect: &[u32], got: &[u32]) -> Result<(), String>,
}

enum Arg {
    Buf(usize),
    Bytes(Vec<u8>),
}

fn corpus_ptx(path: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Deterministic pseudo-random f32 in [-1, 1).
fn rand_f32(state: &mut u64) -> f32 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 40) as u32 as f32) / (1u32 << 23) as f32 - 1.0
}

fn rand_vec(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n).map(|_| rand_f32(&mut s)).collect()
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32_words(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Every element within `rel` relative (or `abs` absolute) error of the reference.
fn close_f32(expect: &[u32], got: &[u32], rel: f32, abs: f32) -> Result<(), String> {
    if expect.len() != got.len() {
        return Err(format!("{} words, expected {}", got.len(), expect.len()));
    }
    for (i, (&e, &g)) in expect.iter().zip(got).enumerate() {
        let (e, g) = (f32::from_bits(e), f32::from_bits(g));
        if !((e - g).abs() <= abs || (e - g).abs() <= rel * e.abs()) {
            return Err(format!("element {i}: {g} against {e}"));
        }
    }
    Ok(())
}

fn exact(expect: &[u32], got: &[u32]) -> Result<(), String> {
    match expect.iter().zip(got).position(|(e, g)| e != g) {
        _ if expect.len() != got.len() => Err(format!("{} words, expected {}", got.len(), expect.len())),
        Some(i) => Err(format!("word {i}: {:#010x} against {:#010x}", got[i], expect[i])),
        None => Ok(()),
    }
}

fn uniform(parts: &[[u8; 4]]) -> Vec<u8> {
    let mut u: Vec<u8> = parts.iter().flatten().copied().collect();
    u.resize(u.len().next_multiple_of(16).max(16), 0);
    u
}

// ------------------------------------------------------------------------------------ saxpy

const SAXPY_WGSL: &str = "
struct Params { n: u32, a: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < p.n) {
        y[i] = fma(p.a, x[i], y[i]);
    }
}
";

fn saxpy(n: usize) -> Case {
    let a = 1.3f32;
    let x = rand_vec(n, 1);
    let y = rand_vec(n, 2);
    // saxpy.cu: y[i] = fmaf(a, x[i], y[i]), one rounding.
    let expect: Vec<f32> = x.iter().zip(&y).map(|(&x, &y)| a.mul_add(x, y)).collect();
    let blocks = n.div_ceil(256) as u32;
    Case {
        name: "saxpy",
        ptx_path: "corpus/ptx/saxpy.sm80.ptx",
        block: [256, 1, 1],
        grid: [blocks, 1, 1],
        dynamic_shared: 0,
        buffers: vec![f32_bytes(&x), f32_bytes(&y)],
        args: vec![Arg::Bytes((n as i32).to_le_bytes().to_vec()), Arg::Bytes(a.to_le_bytes().to_vec()), Arg::Buf(0), Arg::Buf(1)],
        out: 1,
        expect: f32_words(&expect),
        hand_wgsl: SAXPY_WGSL,
        hand_uniform: uniform(&[(n as u32).to_le_bytes(), a.to_le_bytes()]),
        hand_grid: [blocks, 1, 1],
        // An unfused multiply-add is off by at most an ulp of the product.
        tolerance: |e, g| close_f32(e, g, 1e-6, 1e-6),
    }
}

// -------------------------------------------------------------------------------- transpose

const TRANSPOSE_WGSL: &str = "
struct Params { width: u32, height: u32 }
@group(0) @binding(0) var<storage, read_write> dst: array<f32>;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> tile: array<array<f32, 33>, 32>;

@compute @workgroup_size(32, 8)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    var x = wg.x * 32u + lid.x;
    var y = wg.y * 32u + lid.y;
    for (var j = 0u; j < 32u; j += 8u) {
        if (x < p.width && y + j < p.height) {
            tile[lid.y + j][lid.x] = src[(y + j) * p.width + x];
        }
    }
    workgroupBarrier();
    x = wg.y * 32u + lid.x;
    y = wg.x * 32u + lid.y;
    for (var j = 0u; j < 32u; j += 8u) {
        if (x < p.height && y + j < p.width) {
            dst[(y + j) * p.height + x] = tile[lid.x][lid.y + j];
        }
    }
}
";

fn transpose(width: usize, height: usize) -> Case {
    let input = rand_vec(width * height, 3);
    let mut expect = vec![0f32; width * height];
    for r in 0..height {
        for c in 0..width {
            expect[c * height + r] = input[r * width + c];
        }
    }
    let grid = [width.div_ceil(32) as u32, height.div_ceil(32) as u32, 1];
    Case {
        name: "transpose",
        ptx_path: "corpus/ptx/transpose.sm80.ptx",
        block: [32, 8, 1],
        grid,
        dynamic_shared: 0,
        buffers: vec![vec![0u8; width * height * 4], f32_bytes(&input)],
        args: vec![
            Arg::Buf(0),
            Arg::Buf(1),
            Arg::Bytes((width as i32).to_le_bytes().to_vec()),
            Arg::Bytes((height as i32).to_le_bytes().to_vec()),
        ],
        out: 0,
        expect: f32_words(&expect),
        hand_wgsl: TRANSPOSE_WGSL,
        hand_uniform: uniform(&[(width as u32).to_le_bytes(), (height as u32).to_le_bytes()]),
        hand_grid: grid,
        tolerance: exact,
    }
}

// ----------------------------------------------------------------------------------- reduce

const REDUCE_WGSL: &str = "
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> sdata: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let tid = lid.x;
    let i = wg.x * 256u + tid;
    sdata[tid] = select(0.0, src[min(i, p.n - 1u)], i < p.n);
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        workgroupBarrier();
    }
    if (tid == 0u) {
        dst[wg.x] = sdata[0];
    }
}
";

fn reduce(n: usize) -> Case {
    let input = rand_vec(n, 4);
    let blocks = n.div_ceil(256);
    // reduce.cu's tree, in its order: step s adds sdata[tid + s] into sdata[tid] for tid < s.
    let expect: Vec<f32> = (0..blocks)
        .map(|b| {
            let mut s: Vec<f32> = (0..256).map(|t| input.get(b * 256 + t).copied().unwrap_or(0.0)).collect();
            let mut step = 128;
            while step > 0 {
                for t in 0..step {
                    s[t] += s[t + step];
                }
                step /= 2;
            }
            s[0]
        })
        .collect();
    Case {
        name: "reduce",
        ptx_path: "corpus/ptx/reduce.sm80.ptx",
        block: [256, 1, 1],
        grid: [blocks as u32, 1, 1],
        dynamic_shared: 1024,
        buffers: vec![f32_bytes(&input), vec![0u8; blocks * 4]],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::Bytes((n as u32).to_le_bytes().to_vec())],
        out: 1,
        expect: f32_words(&expect),
        hand_wgsl: REDUCE_WGSL,
        hand_uniform: uniform(&[(n as u32).to_le_bytes()]),
        hand_grid: [blocks as u32, 1, 1],
        tolerance: |e, g| close_f32(e, g, 1e-5, 1e-4),
    }
}

// ------------------------------------------------------------------------------- mandelbrot

const MANDELBROT_WGSL: &str = "
struct Params { width: u32, height: u32, x0: f32, y0: f32, dx: f32, dy: f32, max_iter: u32 }
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= p.width || gid.y >= p.height) {
        return;
    }
    let cr = p.x0 + f32(gid.x) * p.dx;
    let ci = p.y0 + f32(gid.y) * p.dy;
    var zr = 0.0;
    var zi = 0.0;
    var it = 0u;
    for (; it < p.max_iter; it++) {
        let zr2 = zr * zr;
        let zi2 = zi * zi;
        if (zr2 + zi2 > 4.0) {
            break;
        }
        let t = zr2 - zi2 + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
    }
    dst[gid.y * p.width + gid.x] = it;
}
";

fn mandelbrot(width: usize, height: usize, max_iter: u32) -> Case {
    let (x0, y0) = (-2.25f32, -1.25f32);
    let (dx, dy) = (3.0f32 / width as f32, 2.5f32 / height as f32);
    let mut expect = vec![0u32; width * height];
    for py in 0..height {
        for px in 0..width {
            // mandelbrot.cu: every operation rounded on its own (__fadd_rn, __fmul_rn).
            let cr = x0 + px as f32 * dx;
            let ci = y0 + py as f32 * dy;
            let (mut zr, mut zi) = (0f32, 0f32);
            let mut it = 0;
            while it < max_iter {
                let zr2 = zr * zr;
                let zi2 = zi * zi;
                if zr2 + zi2 > 4.0 {
                    break;
                }
                let t = (zr2 - zi2) + cr;
                zi = (2.0 * zr) * zi + ci;
                zr = t;
                it += 1;
            }
            expect[py * width + px] = it;
        }
    }
    let grid = [width.div_ceil(16) as u32, height.div_ceil(16) as u32, 1];
    let b = |x: f32| Arg::Bytes(x.to_le_bytes().to_vec());
    let i = |x: u32| Arg::Bytes(x.to_le_bytes().to_vec());
    Case {
        name: "mandelbrot",
        ptx_path: "corpus/ptx/mandelbrot.sm80.ptx",
        block: [16, 16, 1],
        grid,
        dynamic_shared: 0,
        buffers: vec![vec![0u8; width * height * 4]],
        args: vec![Arg::Buf(0), i(width as u32), i(height as u32), b(x0), b(y0), b(dx), b(dy), i(max_iter)],
        out: 0,
        expect,
        hand_wgsl: MANDELBROT_WGSL,
        hand_uniform: uniform(&[
            (width as u32).to_le_bytes(),
            (height as u32).to_le_bytes(),
            x0.to_le_bytes(),
            y0.to_le_bytes(),
            dx.to_le_bytes(),
            dy.to_le_bytes(),
            max_iter.to_le_bytes(),
        ]),
        hand_grid: grid,
        // Contracted or reassociated float code changes the escape iteration of points near
        // the set's boundary: at most 2% of the pixels may differ.
        tolerance: |e, g| {
            let differ = e.iter().zip(g).filter(|(a, b)| a != b).count();
            if e.len() != g.len() || differ * 50 > e.len() {
                return Err(format!("{differ} of {} pixels differ", e.len()));
            }
            Ok(())
        },
    }
}

// ----------------------------------------------------------------------------------- matmul

const MATMUL_WGSL: &str = "
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

var<workgroup> as_: array<array<f32, 16>, 16>;
var<workgroup> bs: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let tx = lid.x;
    let ty = lid.y;
    let row = wg.y * 16u + ty;
    let col = wg.x * 16u + tx;
    var sum = 0.0;
    for (var t = 0u; t < p.n; t += 16u) {
        as_[ty][tx] = a[row * p.n + t + tx];
        bs[ty][tx] = b[(t + ty) * p.n + col];
        workgroupBarrier();
        for (var k = 0u; k < 16u; k++) {
            sum = fma(as_[ty][k], bs[k][tx], sum);
        }
        workgroupBarrier();
    }
    c[row * p.n + col] = sum;
}
";

fn matmul(n: usize) -> Case {
    assert!(n.is_multiple_of(16));
    let a = rand_vec(n * n, 5);
    let b = rand_vec(n * n, 6);
    let mut expect = vec![0f32; n * n];
    for r in 0..n {
        for c in 0..n {
            // matmul.cu: sum = fmaf(a[r][k], b[k][c], sum) in k order.
            let mut sum = 0f32;
            for k in 0..n {
                sum = a[r * n + k].mul_add(b[k * n + c], sum);
            }
            expect[r * n + c] = sum;
        }
    }
    let grid = [(n / 16) as u32, (n / 16) as u32, 1];
    Case {
        name: "matmul",
        ptx_path: "speed/ptx/matmul.sm80.ptx",
        block: [16, 16, 1],
        grid,
        dynamic_shared: 0,
        buffers: vec![f32_bytes(&a), f32_bytes(&b), vec![0u8; n * n * 4]],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2), Arg::Bytes((n as i32).to_le_bytes().to_vec())],
        out: 2,
        expect: f32_words(&expect),
        hand_wgsl: MATMUL_WGSL,
        hand_uniform: uniform(&[(n as u32).to_le_bytes()]),
        hand_grid: grid,
        tolerance: |e, g| close_f32(e, g, 1e-4, 1e-4),
    }
}

// ------------------------------------------------------------------------------- the sides

/// WGSL statements inside function bodies: lines ending in `;` plus the lines opening `if`,
/// `loop`, `for`, `while`, `switch` and `case`/`default` (one statement per line, as both the
/// WGSL backend and the hand-written kernels here write them).
fn wgsl_statements(text: &str) -> usize {
    let (mut depth, mut in_fn, mut n) = (0i32, false, 0);
    for line in text.lines() {
        let t = line.split("//").next().unwrap_or("").trim();
        if depth == 0 && (t.starts_with("fn ") || t.contains(" fn ") || t.starts_with("@compute")) {
            in_fn = true;
        }
        if in_fn && depth > 0 {
            let control = ["if ", "if(", "loop", "for ", "for(", "while ", "switch ", "case ", "default"];
            if t.ends_with(';') || control.iter().any(|c| t.starts_with(c)) {
                n += 1;
            }
        }
        depth += t.matches('{').count() as i32 - t.matches('}').count() as i32;
        if depth == 0 && t.ends_with('}') {
            in_fn = false;
        }
    }
    n
}

/// SPIR-V instructions inside functions.
fn spirv_function_instructions(words: &[u32]) -> usize {
    let (mut i, mut inside, mut n) = (5, false, 0);
    while i < words.len() {
        let (count, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        match op {
            54 => inside = true,
            56 => inside = false,
            _ if inside => n += 1,
            _ => {}
        }
        i += count.max(1);
    }
    n
}

/// ptxcross's side of a case: a program per backend (translated with the device's probed
/// facts, as the CLI and the driver library do), a context holding the buffers.
struct Ptx {
    programs: Vec<(Backend, Program)>,
    ctx: Context,
    ptrs: Vec<ptxcross::DevicePtr>,
    /// Whether the last [`Ptx::launch`] ran the launch-specialised variant.
    specialised: bool,
}

fn translate_case(gpu: &Arc<Gpu>, case: &Case, backend: Backend) -> Program {
    translate_with(gpu, case, backend, LowerOptions::default())
}

fn translate_with(gpu: &Arc<Gpu>, case: &Case, backend: Backend, extra: LowerOptions) -> Program {
    let ptx = corpus_ptx(case.ptx_path);
    let file = SourceFile::new(case.ptx_path.to_string(), ptx);
    let options = LowerOptions {
        kernel: Some(case.name.to_string()),
        block: Some(case.block),
        dynamic_shared_bytes: case.dynamic_shared,
        native_fma: gpu.native_fma_usable(backend),
        // `PTXCROSS_SPEED_FMA=emulated`: the exact emulation where the host would guard the
        // native fma (a device whose fused fma flushes subnormals), to compare the two.
        native_fma_guarded: gpu.fma_mode(backend) == ptxcross::runtime::FmaMode::Guarded
            && std::env::var("PTXCROSS_SPEED_FMA").as_deref() != Ok("emulated"),
        detect_cut_loops: gpu.cuts_long_loops(backend),
        fences_as_sink_atomics: gpu.fences_lose_threads(backend),
        flushed_f32: extra.flushed_f32 || gpu.flushes_f32(backend),
        no_outline: extra.no_outline || std::env::var("PTXCROSS_SPEED_NO_OUTLINE").as_deref() == Ok("1"),
        ..extra
    };
    translate::build_program(&file, &options, &[backend], true)
        .unwrap_or_else(|e| panic!("{} ({backend}): {}", case.name, e.render()))
}

/// The exact mode for devices that flush f32 subnormals as more sides (see the module
/// comment): labels starting with `flushed` must be bit-exact.
fn flushed_sides(gpu: &Arc<Gpu>, case: &Case, simulated: bool) -> Vec<(String, Backend, Program)> {
    let mut out = Vec::new();
    for backend in Backend::ALL {
        let mode = LowerOptions { flushed_f32: true, ..LowerOptions::default() };
        out.push(("flushed-f32".to_string(), backend, translate_with(gpu, case, backend, mode)));
        if simulated {
            let mode = LowerOptions { flushed_f32: true, simulate_flushed_f32: true, ..LowerOptions::default() };
            out.push(("flushed-f32-simulated".to_string(), backend, translate_with(gpu, case, backend, mode)));
        }
    }
    out
}

impl Ptx {
    fn new(gpu: &Arc<Gpu>, case: &Case) -> Ptx {
        let programs = Backend::ALL.iter().map(|&b| (b, translate_case(gpu, case, b))).collect();
        let heap: u64 = case.buffers.iter().map(|b| (b.len() as u64).next_multiple_of(256)).sum::<u64>() + (1 << 16);
        // `PTXCROSS_SPEED_SEGMENT=1`: the buffers go into the heap's second segment (a filler
        // takes the first), as in a context whose memory exceeds one storage binding.
        let mode = std::env::var("PTXCROSS_SPEED_SEGMENT").unwrap_or_default();
        let (second, split) = (mode == "1", mode == "split");
        let seg = gpu.max_segment_bytes();
        let heap = if second { seg + heap } else { heap };
        let heap = if split { seg * case.buffers.len() as u64 } else { heap };
        let mut ctx = Context::new(ContextOptions { heap_bytes: heap, timeout: None, gpu: Some(gpu.clone()) }).expect("context");
        if second {
            ctx.alloc(seg - ptxcross::runtime::HEAP_RESERVED_BYTES).expect("filler");
        }
        ctx.time_launches(true);
        // `split`: each buffer takes a whole segment (its first bytes are the buffer).
        let size = |b: &Vec<u8>| if split { seg - ptxcross::runtime::HEAP_RESERVED_BYTES } else { b.len() as u64 };
        let ptrs = case.buffers.iter().map(|b| ctx.alloc(size(b)).expect("alloc")).collect();
        Ptx { programs, ctx, ptrs, specialised: false }
    }

    fn reset(&mut self, case: &Case) {
        for (b, &p) in case.buffers.iter().zip(&self.ptrs) {
            self.ctx.write(p, b).expect("write");
        }
    }

    /// One launch on `backend`: its GPU time.
    fn launch(&mut self, case: &Case, backend: Backend) -> Duration {
        let program = &self.programs.iter().find(|(b, _)| *b == backend).unwrap().1;
        let t = Self::launch_program_with(&mut self.ctx, &self.ptrs, case, program, backend, true);
        self.specialised = self.ctx.last_launch_specialised();
        t
    }

    /// [`Ptx::launch`] of the checked translation even where the launch-specialised variant
    /// (`ptxcross_lower::launch_proof`) could run: the "before" side of that change.
    fn launch_checked(&mut self, case: &Case, backend: Backend) -> Duration {
        let program = &self.programs.iter().find(|(b, _)| *b == backend).unwrap().1;
        Self::launch_program(&mut self.ctx, &self.ptrs, case, program, backend)
    }

    /// One launch of `program` as it is (never its launch-specialised variant: hand-edited
    /// variants carry the original IR, from which that would be rebuilt).
    fn launch_program(ctx: &mut Context, ptrs: &[ptxcross::DevicePtr], case: &Case, program: &Program, backend: Backend) -> Duration {
        Self::launch_program_with(ctx, ptrs, case, program, backend, false)
    }

    fn launch_program_with(
        ctx: &mut Context,
        ptrs: &[ptxcross::DevicePtr],
        case: &Case,
        program: &Program,
        backend: Backend,
        specialise: bool,
    ) -> Duration {
        ctx.set_launch_specialisation(specialise);
        let args: Vec<Vec<u8>> = case
            .args
            .iter()
            .map(|a| match a {
                Arg::Buf(i) => ptrs[*i].to_le_bytes().to_vec(),
                Arg::Bytes(b) => b.clone(),
            })
            .collect();
        let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
        ctx.launch(program, case.name, case.grid, &refs, backend)
            .unwrap_or_else(|e| panic!("{} on {backend}: {e}", case.name));
        ctx.last_kernel_time().expect("timestamp queries")
    }

    fn output(&self, case: &Case) -> Vec<u32> {
        words(&self.ctx.read(self.ptrs[case.out], case.buffers[case.out].len() as u64).expect("read"))
    }
}

/// `PTXCROSS_SPEED_VARIANTS`: hand-edited code of `case` as extra programs (see the module
/// comment), each with the backend it runs on and its label.
fn variants(case: &Case, ptx: &Ptx) -> Vec<(String, Backend, Program)> {
    ptxcross_tests::launch::hand_edited_variants("PTXCROSS_SPEED_VARIANTS", case.name, |backend| {
        ptx.programs.iter().find(|(b, _)| *b == backend).unwrap().1.module().clone()
    })
}

/// The hand-written side: its own buffers, pipeline and timestamp queries on the same device.
struct Hand {
    gpu: Arc<Gpu>,
    buffers: Vec<wgpu::Buffer>,
    pipeline: wgpu::ComputePipeline,
    uniform: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    staging: wgpu::Buffer,
}

fn map_read(gpu: &Gpu, buffer: &wgpu::Buffer) -> Vec<u8> {
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    gpu.device().poll(wgpu::PollType::Wait { submission_index: None, timeout: None }).expect("poll");
    rx.recv().expect("map callback").expect("map");
    let out = buffer.slice(..).get_mapped_range().expect("mapped range").to_vec();
    buffer.unmap();
    out
}

/// The hand-written shader's module and pipeline (what a first launch creates).
fn hand_pipeline(gpu: &Gpu, case: &Case) -> wgpu::ComputePipeline {
    let device = gpu.device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(case.name),
        source: wgpu::ShaderSource::Wgsl(case.hand_wgsl.into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(case.name),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    })
}

fn bind_group(gpu: &Gpu, pipeline: &wgpu::ComputePipeline, buffers: &[wgpu::Buffer], uniform: &wgpu::Buffer) -> wgpu::BindGroup {
    let mut entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() })
        .collect();
    entries.push(wgpu::BindGroupEntry { binding: buffers.len() as u32, resource: uniform.as_entire_binding() });
    gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("hand-written"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    })
}

impl Hand {
    fn new(gpu: &Arc<Gpu>, case: &Case) -> Hand {
        let device = gpu.device();
        let buffers: Vec<wgpu::Buffer> = case
            .buffers
            .iter()
            .map(|b| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("hand-written data"),
                    size: b.len().max(4) as u64,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                })
            })
            .collect();
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hand-written parameters"),
            size: case.hand_uniform.len() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        gpu.queue().write_buffer(&uniform, 0, &case.hand_uniform);
        let pipeline = hand_pipeline(gpu, case);
        let bind_group = bind_group(gpu, &pipeline, &buffers, &uniform);
        let queries =
            device.create_query_set(&wgpu::QuerySetDescriptor { label: Some("hand-written time"), ty: wgpu::QueryType::Timestamp, count: 2 });
        let resolved = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hand-written time"),
            size: 16,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hand-written time"),
            size: 16,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Hand { gpu: gpu.clone(), buffers, pipeline, uniform, bind_group, queries, resolved, staging }
    }

    /// A fresh pipeline (and bind group) of the same shader, as a first launch creates it.
    fn new_pipeline(&mut self, case: &Case) {
        self.pipeline = hand_pipeline(&self.gpu, case);
        self.bind_group = bind_group(&self.gpu, &self.pipeline, &self.buffers, &self.uniform);
    }

    fn reset(&self, case: &Case) {
        for (b, data) in self.buffers.iter().zip(&case.buffers) {
            self.gpu.queue().write_buffer(b, 0, data);
        }
    }

    fn launch(&self, case: &Case) -> Duration {
        let device = self.gpu.device();
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("hand-written") });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(case.name),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &self.queries,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(case.hand_grid[0], case.hand_grid[1], case.hand_grid[2]);
        }
        enc.resolve_query_set(&self.queries, 0..2, &self.resolved, 0);
        enc.copy_buffer_to_buffer(&self.resolved, 0, &self.staging, 0, 16);
        self.gpu.queue().submit([enc.finish()]);
        let t = map_read(&self.gpu, &self.staging);
        let begin = u64::from_le_bytes(t[..8].try_into().unwrap());
        let end = u64::from_le_bytes(t[8..].try_into().unwrap());
        Duration::from_nanos((end.saturating_sub(begin) as f64 * self.gpu.queue().get_timestamp_period() as f64) as u64)
    }

    fn output(&self, case: &Case) -> Vec<u32> {
        let device = self.gpu.device();
        let size = case.buffers[case.out].len() as u64;
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hand-written output"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("read") });
        enc.copy_buffer_to_buffer(&self.buffers[case.out], 0, &staging, 0, size);
        self.gpu.queue().submit([enc.finish()]);
        words(&map_read(&self.gpu, &staging))
    }
}

/// First-launch figures of one kernel (the wall time a first launch takes beyond a steady
/// launch of the same grid), per backend `[spirv, wgsl]` unless said.
///
/// The first launch is what a user waits for: at the benchmark's own grid (the one the
/// kernel-time columns run, ≥ `LAUNCH_SPECIALISATION_THREADS`) it builds the
/// launch-specialised variant (`ptxcross_lower::launch_proof`: analysis, specialisation,
/// emission, validation) and creates that variant's module and pipeline only (the runtime
/// picks the variant before making the checked kernel's pipeline), and on lavapipe the
/// driver's code generation, which llvmpipe defers to the first dispatch. Device probes ran
/// before (`translate_case` asks for them), so they are not counted, nor is the translation of
/// the PTX, nor the upload of the buffers' contents.
struct FirstLaunch {
    /// A fresh context's and fresh program's first launch at the real grid (what a program's
    /// first launch costs).
    fresh: [Duration; 2],
    /// A fresh program's first launch at the real grid in a context that has launched before
    /// (the program's own cost, as `hand` counts).
    used: [Duration; 2],
    /// Of `used`: building the launch-specialised variant (`Program::launch_specialised` on a
    /// fresh program; CPU only, no pipeline).
    variant_build: [Duration; 2],
    /// A fresh program's first launch on a one-block grid in a used context: the checked
    /// kernel's pipeline, below the specialisation threshold (the `pipe2` column before
    /// issue 11's speed12).
    checked_one_block: [Duration; 2],
    /// The hand-written shader: a fresh pipeline's first launch at its real grid.
    hand: Duration,
    /// Whether the first launches at the real grid ran the specialised variant.
    specialised: [bool; 2],
}

/// Measures [`FirstLaunch`]: each first launch minus the median of three later launches of the
/// same program and grid (wall times, with the buffers left as the first launch wrote them).
/// `fresh`, `used` and `hand` are medians of `samples` rounds (fresh contexts, programs and
/// pipelines each round, the sides in turn), the rest one sample.
fn first_launch_times(gpu: &Arc<Gpu>, case: &Case, hand: &mut Hand, samples: usize) -> FirstLaunch {
    let small = Case { grid: [1, 1, 1], hand_grid: [1, 1, 1], ..shallow(case) };
    let zero = [Duration::ZERO; 2];
    let mut out =
        FirstLaunch { fresh: zero, used: zero, variant_build: zero, checked_one_block: zero, hand: Duration::ZERO, specialised: [true; 2] };
    let (mut fresh_t, mut used_t, mut hand_t) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()], Vec::new());
    for round in 0..samples {
        for (slot, &backend) in Backend::ALL.iter().enumerate() {
            let mut p = Ptx::new(gpu, case);
            p.reset(case);
            // `Context::write` is staged until the next submission: a read submits it here, so
            // that the first launch does not count the upload of the buffers' contents (the
            // hand-written side's were uploaded long before its figure too).
            p.ctx.read(p.ptrs[0], 4).expect("read");
            let t = Instant::now();
            p.launch(case, backend);
            let first = t.elapsed();
            out.specialised[slot] &= p.specialised;
            fresh_t[slot].push(first.saturating_sub(typical(|| p.launch(case, backend))));
            // A second translation: a new program (its own variant, module and pipeline), same
            // context.
            let fresh = translate_case(gpu, case, backend);
            let t = Instant::now();
            Ptx::launch_program_with(&mut p.ctx, &p.ptrs, case, &fresh, backend, true);
            let first = t.elapsed();
            used_t[slot]
                .push(first.saturating_sub(typical(|| Ptx::launch_program_with(&mut p.ctx, &p.ptrs, case, &fresh, backend, true))));
            if round > 0 {
                continue;
            }
            let fresh = translate_case(gpu, case, backend);
            let t = Instant::now();
            fresh.launch_specialised(case.name);
            out.variant_build[slot] = t.elapsed();
            // The checked kernel of a third translation on one block.
            let fresh = translate_case(gpu, case, backend);
            let t = Instant::now();
            Ptx::launch_program(&mut p.ctx, &p.ptrs, &small, &fresh, backend);
            let first = t.elapsed();
            out.checked_one_block[slot] =
                first.saturating_sub(fastest(|| Ptx::launch_program(&mut p.ctx, &p.ptrs, &small, &fresh, backend)));
        }
        let t = Instant::now();
        hand.new_pipeline(case);
        hand.launch(case);
        let first = t.elapsed();
        hand_t.push(first.saturating_sub(typical(|| hand.launch(case))));
    }
    for slot in 0..2 {
        out.fresh[slot] = median(&mut fresh_t[slot]);
        out.used[slot] = median(&mut used_t[slot]);
    }
    out.hand = median(&mut hand_t);
    out
}

/// The wall times of three runs of `f`.
fn three_runs(mut f: impl FnMut() -> Duration) -> Vec<Duration> {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect()
}

/// The median wall time of three runs of `f`.
fn typical(f: impl FnMut() -> Duration) -> Duration {
    median(&mut three_runs(f))
}

/// The shortest wall time of three runs of `f`.
fn fastest(f: impl FnMut() -> Duration) -> Duration {
    three_runs(f).into_iter().min().unwrap()
}

/// A copy of `case`'s launch description (not its data).
fn shallow(case: &Case) -> Case {
    Case {
        name: case.name,
        ptx_path: case.ptx_path,
        block: case.block,
        grid: case.grid,
        dynamic_shared: case.dynamic_shared,
        buffers: Vec::new(),
        args: case
            .args
            .iter()
            .map(|a| match a {
                Arg::Buf(i) => Arg::Buf(*i),
                Arg::Bytes(b) => Arg::Bytes(b.clone()),
            })
            .collect(),
        out: case.out,
        expect: Vec::new(),
        hand_wgsl: case.hand_wgsl,
        hand_uniform: case.hand_uniform.clone(),
        hand_grid: case.hand_grid,
        tolerance: case.tolerance,
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs `cases`: checks every side's output, then times `reps` interleaved rounds; prints the
/// table.
fn run(gpu: &Arc<Gpu>, cases: &[Case], reps: usize, check_flushed: bool) {
    println!(
        "device: {}; {} rounds, GPU timestamps, median per launch",
        gpu.adapter_info().name,
        reps
    );
    println!(
        "{:<11} {:>10} {:>10} {:>10} {:>7} {:>7} | {:>9} {:>9} {:>9} | {:>10} {:>10} {:>10} | {:>9} {:>7}",
        "kernel", "spirv ms", "wgsl ms", "hand ms", "spv/h", "wgsl/h", "wgsl stm", "hand stm", "spv insts", "1st spv ms", "wgsl ms", "hand ms",
        "1st spv/h", "wgsl/h"
    );
    for case in cases {
        let mut ptx = Ptx::new(gpu, case);
        let mut hand = Hand::new(gpu, case);
        // Checks: every side's first launch.
        for backend in Backend::ALL {
            ptx.reset(case);
            ptx.launch(case, backend);
            let got = ptx.output(case);
            exact(&case.expect, &got).unwrap_or_else(|e| panic!("{} on {backend} is not bit-exact: {e}", case.name));
        }
        hand.reset(case);
        hand.launch(case);
        (case.tolerance)(&case.expect, &hand.output(case))
            .unwrap_or_else(|e| panic!("hand-written {} is off: {e}", case.name));

        if let Ok(dir) = std::env::var("PTXCROSS_SPEED_DUMP") {
            // The code the ptxcross sides run (a starting point for variants).
            // The launch-specialised variants as `<kernel>.specialised.wgsl|spv`.
            for (_, p) in &ptx.programs {
                let specialised = p.launch_specialised(case.name);
                for (suffix, p) in [("", Some(p)), (".specialised", specialised.as_deref())] {
                    let Some(p) = p else { continue };
                    if let Some(w) = p.wgsl() {
                        std::fs::write(Path::new(&dir).join(format!("{}{suffix}.wgsl", case.name)), w).expect("dump");
                    }
                    if let Some(s) = p.spirv() {
                        let bytes: Vec<u8> = s.iter().flat_map(|w| w.to_le_bytes()).collect();
                        std::fs::write(Path::new(&dir).join(format!("{}{suffix}.spv", case.name)), bytes).expect("dump");
                    }
                }
            }
        }
        let mut extra = variants(case, &ptx);
        if check_flushed || std::env::var("PTXCROSS_SPEED_FLUSHED_F32").is_ok_and(|v| v == "1") {
            extra.extend(flushed_sides(gpu, case, check_flushed));
        }
        for (label, backend, program) in &extra {
            ptx.reset(case);
            Ptx::launch_program(&mut ptx.ctx, &ptx.ptrs, case, program, *backend);
            if let Err(e) = exact(&case.expect, &ptx.output(case)) {
                assert!(!label.starts_with("flushed"), "{} {label} on {backend} is not bit-exact: {e}", case.name);
                println!("  variant {label} ({backend}) is not bit-exact: {e}");
            }
        }
        // The last two sides: the checked translations (SPIR-V, WGSL) of the same programs.
        let checked_side = 3 + extra.len();
        let sides = checked_side + 2;
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); sides];
        for r in 0..reps {
            for k in 0..sides {
                let side = (r + k) % sides;
                match side {
                    0 | 1 => {
                        ptx.reset(case);
                        times[side].push(ptx.launch(case, Backend::ALL[side]));
                    }
                    2 => {
                        hand.reset(case);
                        times[2].push(hand.launch(case));
                    }
                    _ if side >= checked_side => {
                        ptx.reset(case);
                        times[side].push(ptx.launch_checked(case, Backend::ALL[side - checked_side]));
                    }
                    _ => {
                        let (_, backend, program) = &extra[side - 3];
                        ptx.reset(case);
                        times[side].push(Ptx::launch_program(&mut ptx.ctx, &ptx.ptrs, case, program, *backend));
                    }
                }
            }
        }
        let med: Vec<Duration> = times.iter_mut().map(|t| median(t)).collect();
        let (s, w, h) = (med[0], med[1], med[2]);
        let wgsl_text = ptx.programs.iter().find_map(|(_, p)| p.wgsl()).unwrap_or("");
        let spirv = ptx.programs.iter().find_map(|(_, p)| p.spirv()).unwrap_or(&[]);
        let first = first_launch_times(gpu, case, &mut hand, reps);
        // The first-launch figures must time the code the kernel-time columns ran.
        assert!(
            !ptx.specialised || first.specialised == [true; 2],
            "{}: the timed launches ran the specialised variant, the first launches did not",
            case.name
        );
        // The variants' first-launch pipeline creation, measured as `first_launch_times` does
        // for the checked kernel (fresh
        // programs of the same code).
        let small = Case { grid: [1, 1, 1], hand_grid: [1, 1, 1], ..shallow(case) };
        let variant_pipes: Vec<Duration> = variants(case, &ptx)
            .iter()
            .map(|(_, backend, program)| {
                let t = Instant::now();
                Ptx::launch_program(&mut ptx.ctx, &ptx.ptrs, &small, program, *backend);
                let first = t.elapsed();
                first.saturating_sub(fastest(|| Ptx::launch_program(&mut ptx.ctx, &ptx.ptrs, &small, program, *backend)))
            })
            .collect();
        println!(
            "{:<11} {:>10.2} {:>10.2} {:>10.2} {:>7.2} {:>7.2} | {:>9} {:>9} {:>9} | {:>10.1} {:>10.1} {:>10.1} | {:>9.2} {:>7.2}",
            case.name,
            ms(s),
            ms(w),
            ms(h),
            s.as_secs_f64() / h.as_secs_f64(),
            w.as_secs_f64() / h.as_secs_f64(),
            wgsl_statements(wgsl_text),
            wgsl_statements(case.hand_wgsl),
            spirv_function_instructions(spirv),
            ms(first.fresh[0]),
            ms(first.fresh[1]),
            ms(first.hand),
            first.fresh[0].as_secs_f64() / first.hand.as_secs_f64(),
            first.fresh[1].as_secs_f64() / first.hand.as_secs_f64(),
        );
        let ran = |s: bool| if s { "the specialised variant" } else { "the checked kernel" };
        println!(
            "  first launch (spirv ran {}, wgsl ran {}): used context spirv {:.1} ms, wgsl {:.1} ms; the variant's build (CPU) spirv {:.1} ms, wgsl {:.1} ms; checked kernel on one block (used context) spirv {:.1} ms, wgsl {:.1} ms",
            ran(first.specialised[0]),
            ran(first.specialised[1]),
            ms(first.used[0]),
            ms(first.used[1]),
            ms(first.variant_build[0]),
            ms(first.variant_build[1]),
            ms(first.checked_one_block[0]),
            ms(first.checked_one_block[1]),
        );
        println!(
            "  checked (no launch specialisation; the sides above {}): spirv {:>8.2} ms {:>5.2}, wgsl {:>8.2} ms {:>5.2}",
            if ptx.specialised { "ran the specialised variant" } else { "could not specialise" },
            ms(med[checked_side]),
            med[checked_side].as_secs_f64() / h.as_secs_f64(),
            ms(med[checked_side + 1]),
            med[checked_side + 1].as_secs_f64() / h.as_secs_f64(),
        );
        // (`extra` is the hand-edited variants, then the exact-f32 sides, which have no
        // pipeline figure: a zip with `variant_pipes` alone would drop their times.)
        for (k, ((label, backend, _), t)) in extra.iter().zip(&med[3..]).enumerate() {
            let pipe = variant_pipes.get(k).map_or(String::new(), |p| format!(" | pipeline {:>7.1} ms", ms(*p)));
            println!("  variant {label:<24} ({backend}) {:>10.2} ms {:>7.2}{pipe}", ms(*t), t.as_secs_f64() / h.as_secs_f64());
        }
        // The exact-f32 sides' sizes (WGSL statements of the checked kernel, as `wgsl stm`);
        // `PTXCROSS_SPEED_DUMP` writes the code they run as `<kernel>.<label>.wgsl|spv`.
        for (label, backend, program) in extra.iter().filter(|(l, _, _)| l.starts_with("flushed")) {
            let specialised = program.launch_specialised(case.name);
            let run = specialised.as_deref().unwrap_or(program);
            if let Some(w) = program.wgsl() {
                println!("  {label} ({backend}): {} WGSL statements (`wgsl stm` above: {})", wgsl_statements(w), wgsl_statements(wgsl_text));
            }
            if let Ok(dir) = std::env::var("PTXCROSS_SPEED_DUMP") {
                if let Some(w) = run.wgsl() {
                    std::fs::write(Path::new(&dir).join(format!("{}.{label}.wgsl", case.name)), w).expect("dump");
                }
                if let Some(sp) = run.spirv() {
                    let bytes: Vec<u8> = sp.iter().flat_map(|w| w.to_le_bytes()).collect();
                    std::fs::write(Path::new(&dir).join(format!("{}.{label}.spv", case.name)), bytes).expect("dump");
                }
            }
        }
    }
}

fn selected(cases: Vec<Case>) -> Vec<Case> {
    match std::env::var("PTXCROSS_SPEED_KERNELS") {
        Ok(list) => cases.into_iter().filter(|c| list.split(',').any(|k| k.trim() == c.name)).collect(),
        Err(_) => cases,
    }
}

/// CI smoke run: tiny sizes, every output checked, one timed round (not asserted).
#[test]
fn smoke() {
    let Some(gpu) = gpu_or_skip() else { return };
    if !gpu.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
        return eprintln!("skipped: the device has no timestamp queries");
    }
    let cases = vec![saxpy(1000), transpose(100, 75), reduce(5000), mandelbrot(67, 45, 256), matmul(48)];
    run(&gpu, &selected(cases), 1, true);
}

/// The benchmark (see the module comment for the command).
#[test]
#[ignore]
fn kernel_speed() {
    let Some(gpu) = gpu_or_skip() else { return };
    assert!(gpu.features().contains(wgpu::Features::TIMESTAMP_QUERY), "the benchmark needs timestamp queries");
    let reps = std::env::var("PTXCROSS_SPEED_REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let scale: f64 = std::env::var("PTXCROSS_SPEED_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let sz = |n: usize| ((n as f64 * scale) as usize).max(16);
    let cases = selected(vec![
        saxpy(sz(12 << 20)),
        transpose(sz(2048), 2048),
        reduce(sz(2 << 20)),
        mandelbrot(sz(1280), 1024, 256),
        matmul(sz(256) / 16 * 16),
    ]);
    run(&gpu, &cases, reps, false);
}

#[test]
fn statement_counter_counts_statements() {
    assert_eq!(wgsl_statements(SAXPY_WGSL), 3);
    let text = "struct S { a: u32 }\nfn f(x: u32) -> u32 {\n    var y = x; // c\n    loop {\n        if (y > 3u) {\n            break;\n        }\n        y += 1u;\n    }\n    return y;\n}\n";
    assert_eq!(wgsl_statements(text), 6);
}
