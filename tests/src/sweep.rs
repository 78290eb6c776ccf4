//! Instruction sweeps: one PTX instruction (or a short sequence) run as ONE launch over many
//! threads, each thread reading its own operands from global memory and writing its results,
//! checked against the spec reference in [`crate::ptx_ref`].
//!
//! A variant is a PTX body over registers `%s0..` (sources) and `%d0..` (destinations) with
//! their PTX types; the harness declares them, loads the sources, stores the destinations.
//! Every operand has a slot of 8 bytes per thread (little-endian, low bytes used).

use ptxcross::translate;
use ptxcross::{Backend, Context, ContextOptions, Gpu};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use std::sync::Arc;
use std::time::Instant;

/// Threads per CTA of every sweep kernel.
pub const BLOCK: u32 = 256;
/// Threads of one launch at most (keeps the buffers well under the heap's binding limit).
pub const MAX_THREADS: usize = 1 << 20;
/// Bytes of input and output slots of one launch at most.
pub const MAX_LAUNCH_BYTES: usize = 96 << 20;

/// One instruction variant: `body` uses `%s0..` of the types `srcs` and writes `%d0..` of the
/// types `dsts` (PTX type suffixes: `b16`, `u32`, `f32`, `f64`, `pred`, …).
#[derive(Clone, Debug)]
pub struct Variant {
    pub body: String,
    pub srcs: Vec<&'static str>,
    pub dsts: Vec<&'static str>,
}

impl Variant {
    /// `inst d0, s0, s1, …;` with the destination type `dst` and source types `srcs`.
    pub fn inst(inst: &str, dst: &'static str, srcs: &[&'static str]) -> Variant {
        let mut body = format!("{inst} %d0");
        for i in 0..srcs.len() {
            body.push_str(&format!(", %s{i}"));
        }
        body.push(';');
        Variant { body, srcs: srcs.to_vec(), dsts: vec![dst] }
    }

    pub fn ptx(&self) -> String {
        self.ptx_for("8.5", "sm_90")
    }

    /// The kernel in a module of ISA `version` for `target` (`"2.3"`, `"sm_13"`).
    pub fn ptx_for(&self, version: &str, target: &str) -> String {
        let mut decl = String::new();
        let mut loads = String::new();
        let mut stores = String::new();
        let reg_ty = |t: &str| if t == "pred" { "pred".to_string() } else { t.to_string() };
        for (i, t) in self.srcs.iter().enumerate() {
            decl.push_str(&format!("    .reg .{} %s{i};\n", reg_ty(t)));
            if *t == "pred" {
                loads.push_str(&format!("    ld.global.u32 %t, [%rdin+{}];\n    setp.ne.u32 %s{i}, %t, 0;\n", 8 * i));
            } else {
                loads.push_str(&format!("    ld.global.{} %s{i}, [%rdin+{}];\n", mem_ty(t), 8 * i));
            }
        }
        for (i, t) in self.dsts.iter().enumerate() {
            decl.push_str(&format!("    .reg .{} %d{i};\n", reg_ty(t)));
            if *t == "pred" {
                stores.push_str(&format!("    selp.u32 %t, 1, 0, %d{i};\n    st.global.u32 [%rdout+{}], %t;\n", 8 * i));
            } else {
                stores.push_str(&format!("    st.global.{} [%rdout+{}], %d{i};\n", mem_ty(t), 8 * i));
            }
        }
        format!(
            ".version {version}\n.target {target}\n.address_size 64\n\
.visible .entry sweep(.param .u64 out, .param .u64 in, .param .u32 n)\n{{\n\
    .reg .pred %p;\n    .reg .b32 %xtid, %xcta, %i, %n, %t;\n    .reg .b64 %rd<4>, %rdin, %rdout;\n{decl}\
    mov.u32 %xtid, %tid.x;\n    mov.u32 %xcta, %ctaid.x;\n    mad.lo.u32 %i, %xcta, {BLOCK}, %xtid;\n\
    ld.param.u32 %n, [n];\n    setp.ge.u32 %p, %i, %n;\n    @%p ret;\n\
    ld.param.u64 %rd1, [in];\n    mul.wide.u32 %rd2, %i, {};\n    add.s64 %rdin, %rd1, %rd2;\n\
    ld.param.u64 %rd1, [out];\n    mul.wide.u32 %rd2, %i, {};\n    add.s64 %rdout, %rd1, %rd2;\n\
{loads}    {}\n{stores}    ret;\n}}\n",
            8 * self.srcs.len().max(1),
            8 * self.dsts.len(),
            self.body
        )
    }
}

/// The type a slot is loaded/stored with (half types live in 16-bit registers).
fn mem_ty(t: &str) -> &str {
    match t {
        "f16" | "bf16" => "b16",
        "f16x2" | "bf16x2" => "b32",
        t => t,
    }
}

/// A compiled variant on one device, ready to run many batches.
pub struct Sweep {
    gpu: Arc<Gpu>,
    program: ptxcross::Program,
    pub variant: Variant,
    /// The module translated (its header names the ISA version and target the variant was
    /// built for): what `PTXCROSS_SWEEP_DUMP` writes and the CUDA driver replays.
    ptx: String,
}

/// The shared GPU, or `None` (test skipped) when there is none and `PTXCROSS_REQUIRE_GPU` is
/// not `1`.
pub fn gpu() -> Option<Arc<Gpu>> {
    crate::launch::gpu_or_skip()
}

/// Lowering options as the host picks them for both backends (`Gpu::lower_options`): on a
/// device that flushes f32 subnormals on some backend, the exact mode for such devices (the
/// sweeps then check it on that hardware); the driver workarounds the launch insists on.
fn host_options(gpu: &Arc<Gpu>) -> LowerOptions {
    gpu.lower_options(&Backend::ALL)
}

impl Sweep {
    /// Translates the variant for both backends and validates both modules.
    pub fn new(gpu: &Arc<Gpu>, variant: Variant) -> Result<Sweep, String> {
        Sweep::with_options(gpu, variant, host_options(gpu))
    }

    pub fn with_options(gpu: &Arc<Gpu>, variant: Variant, options: LowerOptions) -> Result<Sweep, String> {
        Sweep::translate(gpu, variant.ptx(), variant, options)
    }

    /// The variant translated as for a device without 64-bit floats (`options` has
    /// `no_float64` or `split_int64`): first checked to need none (as `ptxcross translate
    /// --no-float64` refuses a kernel that does), then built for both backends. Panics (a
    /// test's failure) where it does not translate or needs f64.
    pub fn without_f64(gpu: &Arc<Gpu>, variant: Variant, options: &LowerOptions) -> Sweep {
        let body = variant.body.clone();
        let file = SourceFile::new("sweep.ptx", variant.ptx());
        let module = translate::frontend(&file, options).unwrap_or_else(|e| panic!("`{body}` does not translate without f64: {e}"));
        translate::refuse_float64(&module, &file).unwrap_or_else(|e| panic!("`{body}`: {e}"));
        Sweep::with_options(gpu, variant, options.clone()).unwrap_or_else(|e| panic!("`{body}` does not translate without f64: {e}"))
    }

    /// The variant in a module of another ISA version and target (`"2.3"`, `"sm_13"`): what an
    /// instruction means may depend on them (lower's `inst::legacy`).
    pub fn for_target(gpu: &Arc<Gpu>, variant: Variant, version: &str, target: &str) -> Result<Sweep, String> {
        Sweep::translate(gpu, variant.ptx_for(version, target), variant, host_options(gpu))
    }

    fn translate(gpu: &Arc<Gpu>, ptx: String, variant: Variant, options: LowerOptions) -> Result<Sweep, String> {
        let file = SourceFile::new("sweep.ptx", ptx.clone());
        let options = LowerOptions { block: Some([BLOCK, 1, 1]), ..options };
        let module = translate::frontend(&file, &options).map_err(|e| e.render())?;
        let program = translate::build_program_from_ir("sweep.ptx", module, &Backend::ALL, true).map_err(|e| e.render())?;
        Ok(Sweep { gpu: gpu.clone(), program, variant, ptx })
    }

    /// Runs `inputs` (row-major: thread k's sources are `inputs[k*S..(k+1)*S]`, S = number of
    /// sources) in launches of up to [`MAX_THREADS`] threads; returns the destinations the same
    /// way (zero-extended bits).
    pub fn run(&self, backend: Backend, inputs: &[u64]) -> Vec<u64> {
        let ns = self.variant.srcs.len().max(1);
        // Input and output slots of one launch stay within MAX_LAUNCH_BYTES (a launch's heap
        // is one storage binding: 128 MiB on lavapipe).
        let threads = MAX_THREADS.min(MAX_LAUNCH_BYTES / (8 * (ns + self.variant.dsts.len())));
        let mut out = Vec::new();
        for chunk in inputs.chunks(threads * ns) {
            out.extend(self.run_chunk(backend, chunk));
        }
        out
    }

    fn run_chunk(&self, backend: Backend, inputs: &[u64]) -> Vec<u64> {
        let ns = self.variant.srcs.len().max(1);
        let n = inputs.len() / ns;
        let nd = self.variant.dsts.len();
        let in_bytes = (n * ns * 8) as u64;
        let out_bytes = (n * nd * 8) as u64;
        let mut ctx = Context::new(ContextOptions {
            heap_bytes: in_bytes + out_bytes + (1 << 16),
            timeout: None,
            gpu: Some(self.gpu.clone()),
        })
        .expect("context");
        let data: Vec<u8> = inputs.iter().flat_map(|x| x.to_le_bytes()).collect();
        let inp = ctx.alloc(in_bytes).unwrap();
        ctx.write(inp, &data).unwrap();
        let out = ctx.alloc(out_bytes.max(1)).unwrap();
        let grid = (n as u32).div_ceil(BLOCK);
        ctx.launch(
            &self.program,
            "sweep",
            [grid, 1, 1],
            &[&out.to_le_bytes(), &inp.to_le_bytes(), &(n as u32).to_le_bytes()],
            backend,
        )
        .unwrap_or_else(|e| panic!("{backend}: launch of `{}` failed: {e}", self.variant.body));
        let bytes = ctx.read(out, out_bytes).unwrap();
        bytes.chunks(8).map(|w| u64::from_le_bytes(w.try_into().unwrap())).collect()
    }
}

/// What the reference says a destination must hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expect {
    /// These bits exactly (the slot's low bits; unused high bits are ignored).
    Bits(u64),
    /// One of two bit patterns (where the spec leaves, e.g., the sign of a zero open).
    Either(u64, u64),
    /// Any f32 NaN (the spec's "unspecified NaN").
    AnyNanF32,
    AnyNanF64,
    /// Two 16-bit lanes (high, low) of a packed result.
    Pair16(Half16, Half16),
    /// Any NaN of a 16-bit format with this exponent mask (0x7c00: f16, 0x7f80: bf16).
    AnyNanHalf(u16),
    /// Two 8-bit lanes (high, low) of a packed 16-bit result.
    Pair8(Half8, Half8),
    /// An f32 within `ulps` units in the last place of the exact value `exact` (an f64 close
    /// enough to it); an infinity counts as 2^128, the next binade's first value.
    F32Within { exact: f64, ulps: f64 },
    /// Like `F32Within`, or a zero with the sign of `exact` (a result flushed by `.ftz`).
    F32WithinOrZero { exact: f64, ulps: f64 },
}

impl Expect {
    /// Whether the device's `got` (the slot's bits) satisfies this, for a destination of
    /// `bits` width.
    pub fn holds(self, got: u64, bits: u32) -> bool {
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let got = got & mask;
        let within = |exact: f64, ulps: f64| {
            let g = f32::from_bits(got as u32);
            if g.is_nan() || exact.is_nan() {
                return g.is_nan() && exact.is_nan();
            }
            let g = if g.is_infinite() { 2f64.powi(128).copysign(g as f64) } else { g as f64 };
            let ulp = crate::ptx_ref::float::ulp_f32_at(exact);
            (g - exact).abs() <= ulps * ulp
        };
        match self {
            Expect::Bits(b) => b & mask == got,
            Expect::Either(a, b) => a & mask == got || b & mask == got,
            Expect::AnyNanF32 => f32::from_bits(got as u32).is_nan(),
            Expect::AnyNanF64 => f64::from_bits(got).is_nan(),
            Expect::AnyNanHalf(e) => (got as u16) & 0x7fff > e && got >> 16 == 0,
            Expect::Pair16(hi, lo) => got >> 32 == 0 && hi.holds((got >> 16) as u16) && lo.holds(got as u16),
            Expect::Pair8(hi, lo) => got >> 16 == 0 && hi.holds((got >> 8) as u8) && lo.holds(got as u8),
            Expect::F32Within { exact, ulps } => within(exact, ulps),
            Expect::F32WithinOrZero { exact, ulps } => {
                within(exact, ulps) || got == if exact.is_sign_negative() { 0x8000_0000 } else { 0 }
            }
        }
    }
}

/// The expectation of one 16-bit lane of a packed result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Half16 {
    Bits(u16),
    Either(u16, u16),
    /// Any NaN of the format with this exponent mask.
    AnyNan(u16),
}

impl Half16 {
    pub fn holds(self, got: u16) -> bool {
        match self {
            Half16::Bits(b) => b == got,
            Half16::Either(a, b) => a == got || b == got,
            Half16::AnyNan(e) => got & 0x7fff > e,
        }
    }
}

/// The expectation of one 8-bit lane of a packed result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Half8 {
    Bits(u8),
    Either(u8, u8),
    /// Any byte whose magnitude (low 7 bits) is above this (the format's NaNs).
    AnyNan(u8),
}

impl Half8 {
    pub fn holds(self, got: u8) -> bool {
        match self {
            Half8::Bits(b) => b == got,
            Half8::Either(a, b) => a == got || b == got,
            Half8::AnyNan(m) => got & 0x7f > m,
        }
    }
}

/// Destination widths in bits.
pub fn width(t: &str) -> u32 {
    match t {
        "pred" => 1,
        "b8" | "u8" | "s8" => 8,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 16,
        "b64" | "u64" | "s64" | "f64" => 64,
        _ => 32,
    }
}

/// The outcome of checking one batch on one backend.
#[derive(Default)]
pub struct Report {
    pub checked: u64,
    pub mismatches: u64,
    /// The first few mismatches, described.
    pub failures: Vec<String>,
    pub seconds: f64,
}

impl Report {
    pub fn per_second(&self) -> f64 {
        self.checked as f64 / self.seconds.max(1e-9)
    }
    pub fn add(&mut self, other: Report) {
        self.checked += other.checked;
        self.mismatches += other.mismatches;
        self.seconds += other.seconds;
        for f in other.failures {
            if self.failures.len() < 10 {
                self.failures.push(f);
            }
        }
    }
}

/// Reference of a variant: one expectation per destination, from the sources' bits.
pub type Reference<'r> = &'r (dyn Fn(&[u64]) -> Vec<Expect> + Sync);

/// Runs `inputs` (row-major, see [`Sweep::run`]) through the variant on `backend` and compares
/// every destination with the reference. Keeps the first 10 failures.
pub fn check(sweep: &Sweep, backend: Backend, inputs: &[u64], reference: Reference) -> Report {
    let start = Instant::now();
    let ns = sweep.variant.srcs.len().max(1);
    let nd = sweep.variant.dsts.len();
    let ptx = &sweep.ptx;
    crate::nvidia::dump_case(ptx, inputs, ns, nd);
    // With PTXCROSS_SWEEP_NVIDIA, NVIDIA's outputs are judged instead (see `crate::nvidia`).
    let (got, backend) = match crate::nvidia::nvidia_outputs(ptx, inputs) {
        Some(Ok(out)) => (out, "nvidia".to_string()),
        Some(Err(why)) => {
            // Nothing to judge: NVIDIA's JIT refuses this PTX for the dump's target (e.g.
            // `shl.s32`, which ptxcross accepts leniently, or forms of a later sm).
            eprintln!("not judged on nvidia: `{}`: {why}", sweep.variant.body);
            return Report::default();
        }
        None => {
            // A device that flushes subnormals refuses variants that depend on them: that is
            // the right outcome there, not a mismatch (tests/tests/subnormals.rs checks it).
            if let Err(e) = sweep.gpu.check_subnormals(&sweep.program.module().kernels[0], backend) {
                eprintln!("skipped on {backend}: {e}");
                return Report::default();
            }
            (sweep.run(backend, inputs), backend.to_string())
        }
    };
    let mut report = Report::default();
    for (row, g) in inputs.chunks(ns).zip(got.chunks(nd)) {
        let want = reference(&row[..sweep.variant.srcs.len()]);
        assert_eq!(want.len(), nd, "the reference gives one expectation per destination");
        for (k, (w, &gv)) in want.iter().zip(g).enumerate() {
            report.checked += 1;
            if !w.holds(gv, width(sweep.variant.dsts[k])) {
                report.mismatches += 1;
                if report.mismatches <= MISMATCH_LOG_PER_VARIANT {
                    log_mismatch(&backend, &sweep.variant.body, row, k, gv, w);
                }
                if report.failures.len() < 10 {
                    let row: Vec<String> = row.iter().map(|x| format!("{x:#x}")).collect();
                    report.failures.push(format!(
                        "{backend}: `{}` inputs [{}]: d{k} = {gv:#x}, expected {w:x?}",
                        sweep.variant.body,
                        row.join(", ")
                    ));
                }
            }
        }
    }
    report.seconds = start.elapsed().as_secs_f64();
    report
}

/// Mismatches written per variant and backend to `PTXCROSS_SWEEP_MISMATCHES`.
const MISMATCH_LOG_PER_VARIANT: u64 = 4000;

/// With `PTXCROSS_SWEEP_MISMATCHES=FILE`, appends every mismatch (up to
/// [`MISMATCH_LOG_PER_VARIANT`] per variant) as one tab-separated line — backend, the variant's
/// body on one line, the input row, the destination, the value seen and the expectation — so
/// that a run against NVIDIA's outputs yields the whole disagreement, not the first ten.
fn log_mismatch(backend: &str, body: &str, row: &[u64], k: usize, got: u64, want: &Expect) {
    use std::io::Write;
    static FILE: std::sync::OnceLock<Option<std::sync::Mutex<std::fs::File>>> = std::sync::OnceLock::new();
    let file = FILE.get_or_init(|| {
        let path = std::env::var_os("PTXCROSS_SWEEP_MISMATCHES")?;
        let f = std::fs::OpenOptions::new().create(true).append(true).open(path).expect("PTXCROSS_SWEEP_MISMATCHES: open");
        Some(std::sync::Mutex::new(f))
    });
    if let Some(f) = file {
        let body = body.split_whitespace().collect::<Vec<_>>().join(" ");
        let row: Vec<String> = row.iter().map(|x| format!("{x:#x}")).collect();
        let mut f = f.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(f, "{backend}\t{body}\t{}\td{k}\t{got:#x}\t{want:x?}", row.join(","));
    }
}

/// Checks `inputs` on both backends; panics listing the mismatches. Returns one report per
/// backend (in [`Backend::ALL`] order).
pub fn check_both(sweep: &Sweep, inputs: &[u64], reference: Reference) -> Vec<Report> {
    let reports: Vec<Report> = Backend::ALL.iter().map(|&b| check(sweep, b, inputs, reference)).collect();
    let deferred = DEFERRED.with(|d| {
        let mut d = d.borrow_mut();
        let list = d.as_mut()?;
        list.extend(reports.iter().flat_map(|r| r.failures.iter().cloned()));
        Some(())
    });
    if deferred.is_none() {
        assert_ok(&reports);
    }
    reports
}

thread_local! {
    static DEFERRED: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `body` with every [`check_both`] in it recording its mismatches instead of stopping at
/// the first variant that has some; then fails listing them all (so that one run against
/// NVIDIA's outputs reports every variant that differs, not only the first).
pub fn all_variants(body: impl FnOnce()) {
    DEFERRED.with(|d| *d.borrow_mut() = Some(Vec::new()));
    body();
    let fails = DEFERRED.with(|d| d.borrow_mut().take()).unwrap_or_default();
    assert!(fails.is_empty(), "{} mismatches:\n{}", fails.len(), fails.join("\n"));
}

pub fn assert_ok(reports: &[Report]) {
    let n: u64 = reports.iter().map(|r| r.mismatches).sum();
    let fails: Vec<&str> = reports.iter().flat_map(|r| r.failures.iter().map(|s| s.as_str())).collect();
    assert!(n == 0, "{n} mismatches, the first:\n{}", fails.join("\n"));
}

/// A small deterministic generator (xorshift64*), so sampled sweeps are reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Edge cases of f32 operands: signed zeros, subnormals, the normal range's ends, values near
/// 1 and near rounding ties, integer-range bounds, huge magnitudes, infinities, NaN payloads.
pub const F32_EDGES: &[u32] = &[
    0x0000_0000, 0x8000_0000, 0x0000_0001, 0x8000_0001, 0x007f_ffff, 0x807f_ffff, 0x005f_3ec4, 0x805f_3ec4,
    0x0080_0000, 0x8080_0000, 0x0080_0001, 0x3f80_0000, 0xbf80_0000, 0x3f00_0000, 0xbf00_0000, 0x3eff_ffff,
    0xbeff_ffff, 0x3f00_0001, 0x3fc0_0000, 0xbfc0_0000, 0x4020_0000, 0xc020_0000, 0x3f7f_ffff, 0x3f80_0001,
    0xbec4_978c, 0x3ec4_978c, 0x4b00_0000, 0x4b7f_ffff, 0xcb00_0001, 0x4f00_0000, 0xcf00_0000, 0x4f80_0000,
    0x5f00_0000, 0xdf00_0000, 0x5f80_0000, 0x7e80_0000, 0x7e80_0001, 0xfe80_0001, 0x7f00_0000, 0xff3a_7781,
    0x57520a57, 0x7f7f_ffff, 0xff7f_ffff, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000, 0x7f80_0001,
    0x7fa1_2345, 0xff81_2345, 0x0100_0000, 0x3380_0000, 0x4000_0000, 0xc040_0000,
];

/// Edge cases of f64 operands.
pub const F64_EDGES: &[u64] = &[
    0,
    1 << 63,
    1,
    (1 << 63) | 1,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x3fe0_0000_0000_0000,
    0xbfe0_0000_0000_0000,
    0xbfd8_0000_0000_0000,
    0x3ff8_0000_0000_0000,
    0x4004_0000_0000_0000,
    0x3fef_ffff_ffff_ffff,
    0x3ff0_0000_0000_0001,
    0x3690_0000_0000_0000,
    0xb690_0000_0000_0000,
    0x47ef_ffff_e000_0000,
    0x47ef_ffff_f000_0000,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0001,
    0x7ff0_0000_0000_0001,
];

/// Edge cases of 32-bit integers (as bits): extremes, ±1, carries, byte and half boundaries.
pub const U32_EDGES: &[u32] = &[
    0, 1, 2, 3, 7, 8, 15, 16, 23, 24, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 257, 303, 291, 0x7f, 0x80, 0xff,
    0x7fff, 0x8000, 0xffff, 0x1_0000, 0x7f_ffff, 0x80_0000, 0xff_ffff, 0x100_0000, 0x7fff_ffff, 0x8000_0000,
    0x8000_0001, 0xffff_fffe, 0xffff_ffff, 0xdead_beef, 0x1234_5678, 0x8765_4321,
];

/// Edge cases of 64-bit integers.
pub const U64_EDGES: &[u64] = &[
    0,
    1,
    2,
    63,
    64,
    0xff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    0x8000_0000_0000_0001,
    0xffff_ffff_ffff_fffe,
    0xffff_ffff_ffff_ffff,
    0xdead_beef_0bad_f00d,
    0x0123_4567_89ab_cdef,
];

/// Rows of `arity` operands: every combination of `edges` (as many as fit in `limit` rows,
/// leading operands varying slowest) followed by `random` rows of `gen` values.
pub fn rows(arity: usize, edges: &[u64], limit: usize, random: usize, gen: &mut dyn FnMut() -> u64) -> Vec<u64> {
    let mut out = Vec::new();
    let total = edges.len().checked_pow(arity as u32).unwrap_or(usize::MAX).min(limit);
    for k in 0..total {
        let mut x = k;
        let mut row = vec![0; arity];
        for slot in row.iter_mut().rev() {
            *slot = edges[x % edges.len()];
            x /= edges.len();
        }
        out.extend(row);
    }
    for _ in 0..random * arity {
        out.push(gen());
    }
    out
}
