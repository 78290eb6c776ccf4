//! Warp-level matrix instructions (`lower/src/inst/matrix.rs`): `ldmatrix` and `mma.sync`,
//! hand-written kernels on both backends, warp collectives emulated (as lavapipe runs them)
//! and native (subgroup shuffles simulated through shared memory, so the native lowering
//! runs on any device). Expected values come from the spec's fragment layouts written here
//! forwards — lane and element index → (row, column), ISA 8.5 §9.7.15.4.3/7/8 and Figure 80
//! (§9.7.15.4.15) — building the whole matrices, multiplying them on the CPU and reading
//! the results back through the same layouts; the lowering solves those formulas the other
//! way round.

mod simt_util;
use ptxcross::Backend;
use simt_util::*;

/// Every way warp matrix instructions are translated: emulated through shared memory,
/// emulated through the scratch buffer (where shared memory cannot hold the exchange), and
/// the native lowering with its subgroup operations simulated.
type Build = fn(&str, &str, [u32; 3]) -> ptxcross::Program;
/// As [`Build`], for one kernel of a file.
type BuildKernel = fn(&str, &str, [u32; 3], &str) -> ptxcross::Program;

const BUILDERS: [(&str, Build); 3] = [
    ("emulated", emulated_program),
    ("emulated, exchange in the scratch buffer", scratch_exchange_program),
    ("native (simulated)", simulated_native_program),
];

/// Emulated warp collectives in the exact f32 mode for devices that flush f32 subnormals
/// (`LowerOptions::flushed_f32`, what NVIDIA's WGSL path runs), with that flushing simulated on
/// every native f32 operation (`simulate_flushed_f32`): the mode checked on any device.
fn flushed_program(name: &str, ptx: &str, block: [u32; 3]) -> ptxcross::Program {
    emulated_program_with(name, ptx, block, |o| {
        o.flushed_f32 = true;
        o.simulate_flushed_f32 = true;
    }, |k| assert!(!k.features.f32_subnormals, "{name}: kernel `{}` is not exact in the flushed-f32 mode", k.name))
}

/// Emulated warp collectives with the warp matrix exchange in the launch's scratch buffer, as
/// on a device whose shared memory cannot hold it (`LowerOptions::max_shared_bytes`; 0 here,
/// so every kernel with an exchange gets it there).
fn scratch_exchange_program(name: &str, ptx: &str, block: [u32; 3]) -> ptxcross::Program {
    emulated_program_with(name, ptx, block, |o| o.max_shared_bytes = Some(0), |k| {
        assert!(k.features.scratch_exchange_words > 0, "{name}: kernel `{}` keeps its exchange in shared memory", k.name)
    })
}

/// Emulated warp collectives for `block`, with the device's options changed by `change`; every
/// kernel is checked by `check` before both backends are built (and validated).
fn emulated_program_with(
    name: &str,
    ptx: &str,
    block: [u32; 3],
    change: impl FnOnce(&mut ptxcross_lower::LowerOptions),
    check: impl Fn(&ptxcross_lower::ir::Kernel),
) -> ptxcross::Program {
    use ptxcross::translate;
    let mut options =
        ptxcross_lower::LowerOptions { block: Some(block), native_warps: false, ..ptxcross_tests::launch::device_options(&Backend::ALL) };
    change(&mut options);
    let file = ptxcross_frontend::SourceFile::new(name, ptx);
    let module = translate::frontend(&file, &options).unwrap_or_else(|e| panic!("{name}: {}", e.render()));
    module.kernels.iter().for_each(check);
    translate::build_program_from_ir(name, module, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {e}"))
}

const HEADER: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";

// ---- ldmatrix ----------------------------------------------------------------------------

/// Each warp fills 32 rows of 8 b16 elements (16 bytes each, distinct values) in shared
/// memory, lane l's row at the scattered slot (5·l + 3) % 32, so the row a lane gets must come
/// from the lane that gives its address. Then every form: x1, x2, x4, each plain and `.trans`
/// (14 result words per thread).
fn ldmatrix_ptx() -> String {
    let mut body = String::new();
    let forms = [("x1", 1, ""), ("x2", 2, ""), ("x4", 4, ""), ("x1", 1, ".trans"), ("x2", 2, ".trans"), ("x4", 4, ".trans")];
    let mut slot = 0;
    for (num, n, trans) in forms {
        let regs: Vec<String> = (0..n).map(|i| format!("%d{}", slot + i)).collect();
        body += &format!("\tldmatrix.sync.aligned.m8n8.{num}{trans}.shared.b16 {{{}}}, [%row];\n", regs.join(", "));
        slot += n;
    }
    for i in 0..slot {
        body += &format!("\tst.global.b32 [%out+{}], %d{i};\n", 4 * i);
    }
    format!(
        "{HEADER}
.visible .entry ldm(.param .u64 inp, .param .u64 outp)
{{
\t.shared .align 16 .b8 rows[2048];
\t.reg .b32 %r<12>;
\t.reg .b32 %d<14>;
\t.reg .b32 %row;
\t.reg .b64 %rd<8>;
\t.reg .b64 %out;
\tld.param.u64 %rd1, [inp];
\tld.param.u64 %rd2, [outp];
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, %ctaid.x;
\tmad.lo.u32 %r3, %r2, 64, %r1;
\t// this thread's 16-byte row of input: 4 words
\tmul.wide.u32 %rd3, %r3, 16;
\tadd.u64 %rd4, %rd1, %rd3;
\tld.global.v4.b32 {{%r4, %r5, %r6, %r7}}, [%rd4];
\tand.b32 %r8, %r1, 31;
\tmad.lo.u32 %r9, %r8, 5, 3;
\tand.b32 %r9, %r9, 31;
\tand.b32 %r10, %r1, 32;
\tadd.u32 %r9, %r9, %r10;
\tshl.b32 %r9, %r9, 4;
\tmov.u32 %r11, rows;
\tadd.u32 %row, %r11, %r9;
\tst.shared.v4.b32 [%row], {{%r4, %r5, %r6, %r7}};
\tbar.sync 0;
\tmul.wide.u32 %rd5, %r3, 56;
\tadd.u64 %out, %rd2, %rd5;
{body}\tret;
}}
"
    )
}

/// The spec's layout (§9.7.15.4.15): matrix i's rows are those whose addresses lanes
/// 8i..8i+7 give; Figure 80: lane t receives row t/4, elements 2(t%4) and 2(t%4)+1 (low half
/// first); `.trans` reads the matrix column-major: column t/4, rows 2(t%4) and 2(t%4)+1.
fn ldmatrix_ref(rows_of_lane: &dyn Fn(usize) -> [u16; 8], lane: usize, matrix: usize, trans: bool) -> u32 {
    let row = |r: usize| rows_of_lane(8 * matrix + r);
    let (lo, hi) = if trans {
        (row(2 * (lane % 4))[lane / 4], row(2 * (lane % 4) + 1)[lane / 4])
    } else {
        let r = row(lane / 4);
        (r[2 * (lane % 4)], r[2 * (lane % 4) + 1])
    };
    lo as u32 | (hi as u32) << 16
}

#[test]
fn ldmatrix_every_form_gets_its_rows_from_the_lanes_that_give_their_addresses() {
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (64usize, 2usize);
    let total = block * grid;
    let input: Vec<u32> = words(0x1d3a).take(total * 4).collect();
    let row_of = |gid: usize| -> [u16; 8] { std::array::from_fn(|e| (input[4 * gid + e / 2] >> (16 * (e % 2))) as u16) };
    let ptx = ldmatrix_ptx();
    for (how, build) in BUILDERS {
        let program = build("ldmatrix.ptx", &ptx, [block as u32, 1, 1]);
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let inp = run.buffer(&u32s(&input));
            let out = run.zeros(total * 56);
            run.launch(&program, "ldm", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
            let got = run.read_u32(out, total * 14);
            for gid in 0..total {
                let (warp_base, lane) = (gid - gid % 32, gid % 32);
                let rows_of_lane = |l: usize| row_of(warp_base + l);
                let mut k = 0;
                for (n, trans) in [(1, false), (2, false), (4, false), (1, true), (2, true), (4, true)] {
                    for matrix in 0..n {
                        let want = ldmatrix_ref(&rows_of_lane, lane, matrix, trans);
                        assert_eq!(got[14 * gid + k], want, "{how} on {backend}: thread {gid}, .x{n}{}, matrix {matrix}", if trans { ".trans" } else { "" });
                        k += 1;
                    }
                }
            }
        }
    }
}

#[test]
fn ldmatrix_refusals_name_the_form() {
    for (form, what) in [
        ("ldmatrix.sync.aligned.m8n8.x4.b16 {%d0, %d1, %d2, %d3}, [%rd1];", "generic address"),
        ("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%d0}, [%rd1];", "m16n16"),
        ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%d0, %d1, %d2, %d3}, {%d0, %d1, %d2, %d3}, {%d0, %d1}, {%d0, %d1, %d2, %d3};", "m16n8k32"),
        ("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%d0, %d1}, {%d0, %d1, %d2, %d3}, {%d0, %d1}, {%d0, %d1};", "f16.f16.f16.f16"),
        ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%d0, %d1, %d2, %d3}, {%d0, %d1, %d2, %d3}, {%d0, %d1}, {%d0, %d1, %d2, %d3};", "tf32"),
        ("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%d0, %d1}, {%d0, %d1}, {%d0, %d1, %d2, %d3}, %d0, 0;", ".sp"),
        // wmma (`lower/src/inst/wmma.rs`, tests/tests/wmma.rs): tf32, f64, sub-byte, the
        // floating-point `.satfinite` ISA 6.5 removed, local memory.
        ("wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32 {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, {%d0, %d1, %d2, %d3}, {%d0, %d1, %d2, %d3}, {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7};", "m16n16k8"),
        ("wmma.load.a.sync.aligned.m16n16k8.row.tf32 {%d0, %d1, %d2, %d3}, [%rd1];", "m16n16k8"),
        ("wmma.mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%rd0, %rd1}, {%rd0}, {%rd0}, {%rd0, %rd1};", "m8n8k4"),
        ("wmma.mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {%d0, %d1}, {%d0}, {%d0}, {%d0, %d1};", "m8n8k32"),
        ("wmma.mma.xor.popc.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32 {%d0, %d1}, {%d0}, {%d0}, {%d0, %d1};", "m8n8k128"),
        ("wmma.mma.sync.aligned.m16n16k16.row.col.f32.f32.satfinite {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7};", "satfinite"),
        ("wmma.load.a.sync.aligned.m16n16k16.local.row.f16 {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, [%rd1];", "local"),
    ] {
        let ptx = format!("{HEADER}.visible .entry k(.param .u64 p)\n{{\n\t.reg .b32 %d<8>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\t{form}\n\tret;\n}}\n");
        let file = ptxcross_frontend::SourceFile::new("refuse.ptx", &ptx);
        let options = ptxcross_lower::LowerOptions { block: Some([32, 1, 1]), ..Default::default() };
        let err = match ptxcross::translate::frontend(&file, &options) {
            Ok(_) => panic!("`{form}` was translated"),
            Err(e) => e.render(),
        };
        assert!(err.contains("not supported yet") && err.contains(what) && err.contains("refuse.ptx:9:"), "`{form}`: {err}");
    }
}

// ---- mma ---------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Elem {
    S8,
    U8,
    F16,
    Bf16,
}

impl Elem {
    fn suffix(self) -> &'static str {
        match self {
            Elem::S8 => "s8",
            Elem::U8 => "u8",
            Elem::F16 => "f16",
            Elem::Bf16 => "bf16",
        }
    }
    fn bits(self) -> usize {
        match self {
            Elem::S8 | Elem::U8 => 8,
            _ => 16,
        }
    }
    /// The value of an element's bits.
    fn value(self, b: u32) -> f64 {
        match self {
            Elem::S8 => b as u8 as i8 as f64,
            Elem::U8 => b as u8 as f64,
            Elem::F16 => ptxcross_tests::ptx_ref::approx::f16_to_f64(b as u16),
            Elem::Bf16 => f32::from_bits(b << 16) as f64,
        }
    }
}

/// The f16 / bf16 bits of a small integer (exact in both).
fn small_int_bits(v: i32, e: Elem) -> u32 {
    let f = (v as f32).to_bits();
    match e {
        Elem::Bf16 => f >> 16,
        _ if v == 0 => 0,
        _ => {
            let exp = ((f >> 23) & 0xff) as i32 - 127 + 15;
            (f >> 16 & 0x8000) | (exp as u32) << 10 | (f & 0x7f_ffff) >> 13
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Mma {
    shape: &'static str,
    elem: Elem,
    /// B's element type (integer forms may mix `.s8` and `.u8`).
    belem: Elem,
    satfinite: bool,
}

impl Mma {
    fn m(self) -> usize {
        if self.shape == "m8n8k16" { 8 } else { 16 }
    }
    fn k(self) -> usize {
        if self.shape == "m16n8k8" { 8 } else { 16 }
    }
    fn integer(self) -> bool {
        self.elem.bits() == 8
    }
    /// Registers of A, B, C/D.
    fn regs(self) -> (usize, usize, usize) {
        match self.shape {
            "m8n8k16" => (1, 1, 2),
            "m16n8k8" => (2, 1, 4),
            _ => (4, 2, 4),
        }
    }
    fn name(self) -> String {
        let (acc, sat) = if self.integer() { ("s32", if self.satfinite { ".satfinite" } else { "" }) } else { ("f32", "") };
        format!("mma.sync.aligned.{}.row.col{sat}.{acc}.{}.{}.{acc}", self.shape, self.elem.suffix(), self.belem.suffix())
    }

    /// (row, col) of A's element a_i held by `lane`, as the spec's formulas say.
    fn a_pos(self, lane: usize, i: usize) -> (usize, usize) {
        let (g, q) = (lane >> 2, lane % 4);
        match self.shape {
            // §9.7.15.4.3: row = groupID, col = threadID_in_group * 4 + i.
            "m8n8k16" => (g, q * 4 + i),
            // §9.7.15.4.7: row = groupID for a0, a1, groupID + 8 for a2, a3;
            // col = threadID_in_group * 2 + (i & 1).
            "m16n8k8" => (if i < 2 { g } else { g + 8 }, q * 2 + (i & 1)),
            // §9.7.15.4.8: row = groupID for 0 <= i < 2 || 4 <= i < 6, else groupID + 8;
            // col = threadID_in_group * 2 + (i & 1), + 8 for i >= 4.
            _ => (if i < 2 || (4..6).contains(&i) { g } else { g + 8 }, q * 2 + (i & 1) + if i >= 4 { 8 } else { 0 }),
        }
    }
    /// (row, col) of B's element b_i held by `lane`.
    fn b_pos(self, lane: usize, i: usize) -> (usize, usize) {
        let (g, q) = (lane >> 2, lane % 4);
        match self.shape {
            "m8n8k16" => (q * 4 + i, g),
            "m16n8k8" => (q * 2 + i, g),
            // row = threadID_in_group * 2 + (i & 1) for i < 2, + 8 for i >= 2.
            _ => (q * 2 + (i & 1) + if i >= 2 { 8 } else { 0 }, g),
        }
    }
    /// (row, col) of C/D's element c_i held by `lane`.
    fn c_pos(self, lane: usize, i: usize) -> (usize, usize) {
        let (g, q) = (lane >> 2, lane % 4);
        match self.shape {
            "m8n8k16" => (g, q * 2 + i),
            _ => (if i < 2 { g } else { g + 8 }, q * 2 + (i & 1)),
        }
    }

    /// The kernel: each thread loads its fragments (12 input words: a at 0, b at 4, c at 8),
    /// runs the mma, stores d (4 output words).
    fn ptx(self) -> String {
        let (ar, br, cr) = self.regs();
        let acc = if self.integer() { "s32" } else { "f32" };
        let list = |p: &str, n: usize| (0..n).map(|i| format!("%{p}{i}")).collect::<Vec<_>>().join(", ");
        let mut body = String::new();
        for i in 0..ar {
            body += &format!("\tld.global.b32 %a{i}, [%rd4+{}];\n", 4 * i);
        }
        for i in 0..br {
            body += &format!("\tld.global.b32 %b{i}, [%rd4+{}];\n", 16 + 4 * i);
        }
        for i in 0..cr {
            body += &format!("\tld.global.{acc} %c{i}, [%rd4+{}];\n", 32 + 4 * i);
        }
        body += &format!("\t{} {{{}}}, {{{}}}, {{{}}}, {{{}}};\n", self.name(), list("d", cr), list("a", ar), list("b", br), list("c", cr));
        for i in 0..cr {
            body += &format!("\tst.global.{acc} [%rd5+{}], %d{i};\n", 4 * i);
        }
        format!(
            "{HEADER}
.visible .entry mma(.param .u64 inp, .param .u64 outp)
{{
\t.reg .b32 %a<4>;
\t.reg .b32 %b<2>;
\t.reg .{acc} %c<4>;
\t.reg .{acc} %d<4>;
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<8>;
\tld.param.u64 %rd1, [inp];
\tld.param.u64 %rd2, [outp];
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, %ctaid.x;
\tmad.lo.u32 %r3, %r2, 64, %r1;
\tmul.wide.u32 %rd3, %r3, 48;
\tadd.u64 %rd4, %rd1, %rd3;
\tmul.wide.u32 %rd3, %r3, 16;
\tadd.u64 %rd5, %rd2, %rd3;
{body}\tret;
}}
"
        )
    }

    /// One warp's D fragments (4 words per lane) from its input words (12 per lane), by the
    /// spec: the matrices assembled from the lanes' fragments, D = A·B + C exactly (f64 is
    /// exact for these integer sums, and the float tests compare within a bound), read back
    /// through C/D's layout. Integer: wrapped to 32 bits, or with `.satfinite` clamped.
    fn reference(self, warp: &[u32]) -> Vec<f64> {
        let (m, n, k) = (self.m(), 8, self.k());
        let (ar, br, cr) = self.regs();
        let (ae, be) = (self.elem, self.belem);
        let per = 32 / ae.bits();
        let mut a = vec![vec![f64::NAN; k]; m];
        let mut b = vec![vec![f64::NAN; n]; k];
        let mut c = vec![vec![f64::NAN; n]; m];
        let field = |w: u32, i: usize, bits: usize| (w >> (bits * (i % per))) & ((1u64 << bits) - 1) as u32;
        for lane in 0..32 {
            let x = &warp[12 * lane..12 * lane + 12];
            for i in 0..ar * per {
                let (r, col) = self.a_pos(lane, i);
                a[r][col] = ae.value(field(x[i / per], i, ae.bits()));
            }
            for i in 0..br * per {
                let (r, col) = self.b_pos(lane, i);
                b[r][col] = be.value(field(x[4 + i / per], i, be.bits()));
            }
            for i in 0..cr {
                let (r, col) = self.c_pos(lane, i);
                c[r][col] = if self.integer() { x[8 + i] as i32 as f64 } else { f32::from_bits(x[8 + i]) as f64 };
            }
        }
        let mut out = vec![0.0; 32 * 4];
        for lane in 0..32 {
            for i in 0..cr {
                let (r, col) = self.c_pos(lane, i);
                let dot: f64 = (0..k).map(|kk| a[r][kk] * b[kk][col]).sum();
                let d = c[r][col] + dot;
                out[4 * lane + i] = if !self.integer() {
                    d
                } else if self.satfinite {
                    d.clamp(i32::MIN as f64, i32::MAX as f64)
                } else {
                    (d as i64 as u32) as i32 as f64
                };
            }
        }
        out
    }
    /// Σ|a·b| + |c| of each D element (for the float bound).
    fn magnitude(self, warp: &[u32]) -> Vec<f64> {
        let abs = |v: &[u32]| v.iter().map(|&w| if self.integer() { w } else { f32::from_bits(w).abs().to_bits() }).collect::<Vec<u32>>();
        let mut absolute: Vec<u32> = Vec::new();
        for lane in 0..32 {
            let x = &warp[12 * lane..12 * lane + 12];
            // Clear the sign bits of every half element, and of c.
            let sign = if self.elem == Elem::F16 || self.elem == Elem::Bf16 { 0x7fff_7fffu32 } else { !0 };
            absolute.extend(x[..8].iter().map(|w| w & sign));
            absolute.extend(abs(&x[8..12]));
        }
        self.reference(&absolute)
    }
}

/// Runs `mma` on `input` (12 words per thread, 128 threads) both ways on both backends and
/// checks each D word with `check(lane_of_total, got, want, bound)`.
fn run_mma(mma: Mma, input: &[u32], exact: bool) {
    run_mma_with(&BUILDERS, mma, input, exact);
}

fn run_mma_with(builders: &[(&str, Build)], mma: Mma, input: &[u32], exact: bool) {
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (64usize, 2usize);
    let total = block * grid;
    assert_eq!(input.len(), total * 12);
    let (_, _, cr) = mma.regs();
    let ptx = mma.ptx();
    for &(how, build) in builders {
        let program = build("mma.ptx", &ptx, [block as u32, 1, 1]);
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let inp = run.buffer(&u32s(input));
            let out = run.zeros(total * 16);
            run.launch(&program, "mma", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
            let got = run.read_u32(out, total * 4);
            for w in 0..total / 32 {
                let warp = &input[w * 32 * 12..(w + 1) * 32 * 12];
                let want = mma.reference(warp);
                let size = mma.magnitude(warp);
                for lane in 0..32 {
                    for i in 0..cr {
                        let g = got[(32 * w + lane) * 4 + i];
                        let wv = want[4 * lane + i];
                        let what = format!("{how} on {backend}: `{}` warp {w} lane {lane} d{i}", mma.name());
                        if mma.integer() {
                            assert_eq!(g as i32 as f64, wv, "{what}");
                        } else if exact {
                            assert_eq!(g, (wv as f32).to_bits(), "{what}: got {}, want {wv}", f32::from_bits(g));
                        } else {
                            // §9.7.15.4.14 leaves the order and rounding of the accumulation
                            // to the implementation, "at least single precision": any order of
                            // the K + 1 f32 additions, each within one f32 ulp (2^-23
                            // relative), is within (K + 1)·2^-23·(|c| + Σ|a·b|) of the exact
                            // value (first order; the products are exact). A lost, doubled or
                            // misplaced element changes the value by a whole product instead.
                            let bound = (mma.k() + 1) as f64 * 2f64.powi(-23) * size[4 * lane + i] * 1.01;
                            let gv = f32::from_bits(g) as f64;
                            assert!((gv - wv).abs() <= bound, "{what}: got {gv}, want {wv} ± {bound}");
                        }
                    }
                }
            }
        }
    }
}

/// Integer mma, bit-exact: random bytes with the extremes (-128, 127, 0, 255) over-represented,
/// and c near both limits of s32, so that sums wrap (without `.satfinite`) or clamp (with).
#[test]
fn mma_m8n8k16_integer_wraps_and_saturates_bit_exact() {
    let total = 128;
    for (ai, elem) in [Elem::S8, Elem::U8].into_iter().enumerate() {
        for (bi, belem) in [Elem::S8, Elem::U8].into_iter().enumerate() {
            for satfinite in [false, true] {
                let mut r = words(0x3a11 + 17 * ai as u32 + 5 * bi as u32 + satfinite as u32);
                let mut input = vec![0u32; total * 12];
                for t in 0..total {
                    let mode = r.next().unwrap() % 4;
                    for i in 0..2 {
                        // Each warp's lanes 0..7 carry only extreme bytes.
                        input[12 * t + 4 * i] = if t % 32 < 8 || mode == 0 {
                            (0..4).map(|k| [0x80u32, 0x7f, 0xff, 0x00, 0x81][(r.next().unwrap() % 5) as usize] << (8 * k)).sum()
                        } else {
                            r.next().unwrap()
                        };
                    }
                    for i in 0..2 {
                        let x = r.next().unwrap();
                        input[12 * t + 8 + i] = match (t + i) % 4 {
                            0 => i32::MAX as u32 - x % 400_000,
                            1 => (i32::MIN as u32).wrapping_add(x % 400_000),
                            2 => x,
                            _ => x % 1000,
                        };
                    }
                }
                run_mma(Mma { shape: "m8n8k16", elem, belem, satfinite }, &input, true);
            }
        }
    }
}

const FLOAT_FORMS: [(&str, Elem); 4] = [("m16n8k16", Elem::F16), ("m16n8k16", Elem::Bf16), ("m16n8k8", Elem::F16), ("m16n8k8", Elem::Bf16)];

/// f16/bf16 mma on small integers (-8..=8, c in -1000..=1000): every partial sum is an
/// integer below 2^24, exact in f32, so every order and rounding of the accumulation gives
/// the same bits.
#[test]
fn mma_f16_bf16_bit_exact_where_every_order_agrees() {
    let total = 128;
    for (shape, elem) in FLOAT_FORMS {
        let mut r = words(0x51f3 + elem.bits() as u32 + shape.len() as u32);
        let mut input = vec![0u32; total * 12];
        for t in 0..total {
            for i in 0..6 {
                let lo = small_int_bits((r.next().unwrap() % 17) as i32 - 8, elem);
                let hi = small_int_bits((r.next().unwrap() % 17) as i32 - 8, elem);
                input[12 * t + i] = lo | hi << 16;
            }
            for i in 0..4 {
                input[12 * t + 8 + i] = (((r.next().unwrap() % 2001) as i32 - 1000) as f32).to_bits();
            }
        }
        run_mma(Mma { shape, elem, belem: elem, satfinite: false }, &input, true);
    }
}

/// bf16 mma whose products, c and sums are f32 subnormals or just above (a = k·2^-70,
/// b = j·2^-60, c = m·2^-130, |k|, |j| ≤ 8, |m| ≤ 1000: every partial sum is a multiple of
/// 2^-130 below 2^-110, exact in f32 in any order), bit-exact, also in the exact mode for
/// devices that flush f32 subnormals under simulated flushing (NVIDIA's WGSL path keeps
/// `mma` since that mode covers it). Without the mode's exact add/mul the simulated flush
/// zeroes the products.
#[test]
fn mma_bf16_subnormal_products_and_sums_bit_exact() {
    let total = 128;
    let bf16 = |v: f32| v.to_bits() >> 16;
    for (shape, elem) in FLOAT_FORMS.into_iter().filter(|&(_, e)| e == Elem::Bf16) {
        let mut r = words(0x5b0f + shape.len() as u32);
        let mut small = |scale: i32| bf16(((r.next().unwrap() % 17) as i32 - 8) as f32 * 2f32.powi(scale));
        let mut input = vec![0u32; total * 12];
        for t in 0..total {
            for i in 0..6 {
                // Words 0..4 hold a (scaled 2^-70), words 4..6 b (2^-60); see `Mma::regs`.
                let scale = if i < 4 { -70 } else { -60 };
                input[12 * t + i] = small(scale) | small(scale) << 16;
            }
        }
        let mut r = words(0x5b1f + shape.len() as u32);
        for t in 0..total {
            for i in 0..4 {
                input[12 * t + 8 + i] = (((r.next().unwrap() % 2001) as i32 - 1000) as f32 * 2f32.powi(-130)).to_bits();
            }
        }
        run_mma_with(&[BUILDERS[0], ("emulated, exact f32 under simulated flushing", flushed_program)], Mma { shape, elem, belem: elem, satfinite: false }, &input, true);
    }
}

/// f16/bf16 mma on random values (magnitudes 2^-6..2^2 in both signs, f32 c in ±8),
/// within the bound any accumulation order meets (see `run_mma`).
#[test]
fn mma_f16_bf16_random_within_the_accumulation_bound() {
    let total = 128;
    for (shape, elem) in FLOAT_FORMS {
        let mut r = words(0x7ab1 + elem.bits() as u32 + shape.len() as u32);
        let element = |r: &mut dyn Iterator<Item = u32>| -> u32 {
            let x = r.next().unwrap();
            let sign = x & 1;
            match elem {
                // exponent field 9..=17 (2^-6..2^2), random 10-bit significand.
                Elem::F16 => sign << 15 | (9 + (x >> 1) % 9) << 10 | (x >> 8) & 0x3ff,
                _ => sign << 15 | (121 + (x >> 1) % 9) << 7 | (x >> 8) & 0x7f,
            }
        };
        let mut input = vec![0u32; total * 12];
        for t in 0..total {
            for i in 0..6 {
                let lo = element(&mut r);
                let hi = element(&mut r);
                input[12 * t + i] = lo | hi << 16;
            }
            for i in 0..4 {
                let x = r.next().unwrap();
                input[12 * t + 8 + i] = ((x as i32 as f64 / 2f64.powi(28)) as f32).to_bits();
            }
        }
        run_mma(Mma { shape, elem, belem: elem, satfinite: false }, &input, false);
    }
}

/// nvcc 13.5's `mma_bf16_ldmatrix` (tests/parse-corpus/real/src/mma.cu, sm_80): `cp.async`
/// of two tiles into shared memory, `ldmatrix.x4` (lanes 16..31 repeat the addresses of lanes
/// 0..15) and `ldmatrix.x2.trans`, one `mma.m16n8k16.f32.bf16.bf16.f32` and one
/// `mma.m8n8k16.s32.s8.s8.s32` of the same registers read as bytes; out = (d0 + r0, d1 + r1,
/// d2, d3) per lane. Expected from the kernel's source and the spec's layouts: tiles of
/// bf16 small integers (their bytes as s8 are 0x00, 0x3f, 0x40, 0xbf, 0xc0, 0x80), so every
/// sum is an integer below 2^24 and the result exact in any order.
#[test]
fn nvcc_mma_bf16_ldmatrix_kernel() {
    let Some(gpu) = gpu() else { return };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("parse-corpus/real/nvcc/mma.sm_80.ptx");
    let ptx = std::fs::read_to_string(&path).unwrap();
    let kernel = "_Z17mma_bf16_ldmatrixPKjS0_Pf";
    let mut r = words(0xb16);
    let mut pair = || (0..2).map(|h| small_int_bits((r.next().unwrap() % 9) as i32 - 4, Elem::Bf16) << (16 * h)).sum::<u32>();
    let ga: Vec<u32> = (0..128).map(|_| pair()).collect();
    let gb: Vec<u32> = (0..64).map(|_| pair()).collect();
    // The rows each lane's ldmatrix address points at (16 bytes: 8 b16 elements).
    let row = |tile: &[u32], word: usize| -> [u16; 8] { std::array::from_fn(|e| (tile[word + e / 2] >> (16 * (e % 2))) as u16) };
    let a_row = |lane: usize| row(&ga, (lane % 16) * 8);
    let b_row = |lane: usize| row(&gb, (lane % 8) * 8);
    let mut frag = vec![0u32; 32 * 12];
    for lane in 0..32 {
        for i in 0..4 {
            frag[12 * lane + i] = ldmatrix_ref(&a_row, lane, i, false);
        }
        for i in 0..2 {
            frag[12 * lane + 4 + i] = ldmatrix_ref(&b_row, lane, i, true);
        }
    }
    let bf16 = Mma { shape: "m16n8k16", elem: Elem::Bf16, belem: Elem::Bf16, satfinite: false }.reference(&frag);
    let int8 = Mma { shape: "m8n8k16", elem: Elem::S8, belem: Elem::S8, satfinite: false }.reference(&frag);
    let want: Vec<u32> = (0..32)
        .flat_map(|l| [bf16[4 * l] + int8[4 * l], bf16[4 * l + 1] + int8[4 * l + 1], bf16[4 * l + 2], bf16[4 * l + 3]])
        .map(|v| (v as f32).to_bits())
        .collect();
    let builders: [(&str, BuildKernel); 2] =
        [("as the device asks", program_of), ("native (simulated)", simulated_native_program_of)];
    for (how, build) in builders {
        let program = build("mma.sm_80.ptx", &ptx, [32, 1, 1], kernel);
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let a = run.buffer(&u32s(&ga));
            let b = run.buffer(&u32s(&gb));
            let out = run.zeros(128 * 4);
            run.launch(&program, kernel, [1, 1, 1], &[&a.to_le_bytes(), &b.to_le_bytes(), &out.to_le_bytes()], backend);
            let got = run.read_u32(out, 128);
            for i in 0..128 {
                assert_eq!(got[i], want[i], "{how} on {backend}: out[{i}] = {}, want {}", f32::from_bits(got[i]), f32::from_bits(want[i]));
            }
        }
    }
}

/// The emulated path's cost per `mma.m16n8k16` on this device: a loop of n mma (d fed back
/// as c) in 4 CTAs of 128 threads, timed at n = 0 and n = N after a warm-up launch (pipeline
/// creation excluded), per backend.
///
///   PTXCROSS_REQUIRE_GPU=1 cargo test --release -p ptxcross-tests --test warp_matrix mma_cost -- --ignored --nocapture
#[test]
#[ignore]
fn mma_cost() {
    let Some(gpu) = gpu() else { return };
    let ptx = format!(
        "{HEADER}
.visible .entry mma_loop(.param .u64 outp, .param .u32 n)
{{
\t.reg .b32 %a<4>;
\t.reg .b32 %b<2>;
\t.reg .f32 %c<4>;
\t.reg .b32 %r<4>;
\t.reg .pred %p;
\t.reg .b64 %rd<4>;
\tld.param.u64 %rd1, [outp];
\tld.param.u32 %r1, [n];
\tmov.u32 %r2, %tid.x;
\tmov.b32 %a0, 0x3c003c00;
\tmov.b32 %a1, %r2;
\tmov.b32 %a2, 0x3c003c00;
\tmov.b32 %a3, 0x00013c00;
\tmov.b32 %b0, 0x3c003c00;
\tmov.b32 %b1, %r2;
\tmov.f32 %c0, 0f00000000;
\tmov.f32 %c1, 0f00000000;
\tmov.f32 %c2, 0f00000000;
\tmov.f32 %c3, 0f00000000;
\tmov.u32 %r3, 0;
LOOP:
\tsetp.ge.u32 %p, %r3, %r1;
\t@%p bra DONE;
\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{%c0, %c1, %c2, %c3}}, {{%a0, %a1, %a2, %a3}}, {{%b0, %b1}}, {{%c0, %c1, %c2, %c3}};
\tadd.u32 %r3, %r3, 1;
\tbra LOOP;
DONE:
\tmul.wide.u32 %rd2, %r2, 16;
\tadd.u64 %rd3, %rd1, %rd2;
\tst.global.v4.f32 [%rd3], {{%c0, %c1, %c2, %c3}};
\tret;
}}
"
    );
    let (block, grid, n) = (128u32, 4u32, 2000u32);
    let builders: [(&str, Build); 2] = [("shared", emulated_program), ("scratch buffer", scratch_exchange_program)];
    for (place, build) in builders {
        let program = build("mma_loop.ptx", &ptx, [block, 1, 1]);
        for backend in Backend::ALL {
            let (t0, tn, per) = loop_cost(&gpu, &program, "mma_loop", grid, block, block as usize * 16, n, backend);
            eprintln!(
                "{backend}, exchange in {place}: {n} mma.m16n8k16 in {} warps: {tn:.3} s (empty loop {t0:.3} s): {:.2} µs per mma per warp",
                grid * block / 32,
                per * 1e6
            );
        }
    }
}
