//! Facts about a device that only running code can tell, measured once per device and backend.
//!
//! - **Fused fma.** Vulkan and WebGPU let `fma` be an unfused multiply-add (lavapipe does
//!   that), while PTX's `fma.rn` rounds once. `lower` emulates it exactly unless told the
//!   target fuses (`LowerOptions::native_fma`); the probe computes `fma(a, a, -(a*a))` for
//!   `a = 1 + 2^-12`, which is `2^-24` when fused and `0` when not. The inputs come from the
//!   parameter buffer, so no compiler can fold them.
//! - **Loops cut short.** lavapipe ends every loop of a thread after 65,535 back-edges in total
//!   (see `ptxcross_lower`'s `loop_cut`). The probe counts to [`LOOP_PROBE_TRIPS`] in one loop
//!   (the trip count comes from the parameters); a smaller count means the driver cuts loops,
//!   and kernels for it get the check that reports such a cut as a fault
//!   (`LowerOptions::detect_cut_loops`).
//! - **Fences that lose threads.** lavapipe of Mesa 22.x (Debian 12's 22.3.6) abandons a
//!   thread that passes a memory fence (`OpMemoryBarrier`, or an atomic with acquire/release
//!   semantics) more often than another thread of its workgroup: the code after the fence
//!   never runs (`simt_atomics a_device_fence_in_a_loop_one_thread_runs`, docs/simt.md). The
//!   probe runs such a loop in one thread of a 64-thread workgroup and counts its trips; a
//!   wrong count makes kernels for the device emit fences as sink-word atomics instead
//!   (`LowerOptions::fences_as_sink_atomics`).
//! - **Subnormals kept.** Vulkan and WebGPU let a device flush subnormal floats to zero, and
//!   some do: NVIDIA's Vulkan driver flushes f32 unless the SPIR-V module declares
//!   `DenormPreserve` (our SPIR-V backend does; WGSL, through naga, cannot). The probe
//!   computes results that are subnormal, and results from subnormal operands, for add, sub,
//!   mul, fma, comparisons, min/max, neg, floor and f32 ↔ f64 conversion (and add, mul and a
//!   comparison in f64 where the device has f64), every operand derived from a parameter word.
//!   A kernel whose results depend on a flushed format (`Features::f32_subnormals`, decided
//!   by `lower`) is refused on that device and backend (`Error::SubnormalsFlushed`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ptxcross_lower::build::*;
use ptxcross_lower::{abi, ir::*};

use super::{Backend, Context, ContextOptions, Error, Gpu};

/// `1 + 2^-12`: its square needs 25 significant bits.
const A_BITS: u32 = 0x3f80_0800;

fn probe_kernel(name: &str, vars: &[Ty], stmts: Vec<Stmt>) -> Kernel {
    Kernel {
        name: name.into(),
        entry_point: format!("k_{name}"),
        workgroup_size: [1, 1, 1],
        vars: vars.iter().map(|&ty| VarInfo { ty, name: "probe".into() }).collect(),
        body: Block { stmts },
        shared_words: 0,
        local_words: 0,
        local_placement: Default::default(),
        fault_site_var: None,
        fault_sites: Vec::new(),
        params: vec![
            ParamSlot { name: "out_word".into(), offset: 0, size: 4, align: 4 },
            ParamSlot { name: "input".into(), offset: 4, size: 4, align: 4 },
        ],
        param_bytes: 8,
        features: Features::default(),
        functions: Vec::new(),
        printf: Vec::new(),
    }
}

/// Parameter word `w` after the header.
fn p(w: u32) -> Operand {
    c32(abi::PARAM_HEADER_WORDS + w)
}

fn fma_probe() -> Kernel {
    let v = |i: u32| VarId(i);
    let (a, sq, neg, r) = (var(v(2)), var(v(3)), var(v(4)), var(v(5)));
    let stmts = vec![
        assign(v(0), load(Memory::Param, p(0))),
        assign(v(1), load(Memory::Param, p(1))),
        assign(v(2), conv(ConvertOp::Bitcast, Ty::U32, Ty::F32, v(1))),
        assign(v(3), bin(BinaryOp::FMul, Ty::F32, a, a)),
        assign(v(4), un(UnaryOp::FNeg, Ty::F32, sq)),
        assign(v(5), Expr::Fma { ty: Ty::F32, a, b: a, c: neg }),
        assign(v(6), conv(ConvertOp::Bitcast, Ty::F32, Ty::U32, r)),
        store(Memory::Heap, v(0), v(6)),
    ];
    let types = [Ty::U32, Ty::U32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, Ty::U32];
    probe_kernel("ptxcross_fma_probe", &types, stmts)
}

/// The f64 counterpart of [`fma_probe`]: `y = (1 + 2^-12)^3` (37 significant bits, exact)
/// and `fma(y, y, -(y*y))`, nonzero only when fused (y² needs 73 bits); and `fma(y, 2^-1070,
/// 2^-1060)`, a subnormal unless the native f64 fma flushes (as NVIDIA's Vulkan driver's f32 one
/// does). The word stored is nonzero only when both are. `LowerOptions::native_fma` maps both
/// f32 and f64 `fma.rn` to the native op, so both must be exact (a device may fuse one and not
/// the other).
fn fma_f64_probe() -> Kernel {
    let v = |i: u32| VarId(i);
    let stmts = vec![
        assign(v(0), load(Memory::Param, p(0))),
        assign(v(1), load(Memory::Param, p(1))),
        assign(v(2), conv(ConvertOp::Bitcast, Ty::U32, Ty::F32, v(1))),
        assign(v(3), conv(ConvertOp::FloatToFloat, Ty::F32, Ty::F64, v(2))),
        assign(v(4), bin(BinaryOp::FMul, Ty::F64, v(3), v(3))),
        assign(v(5), bin(BinaryOp::FMul, Ty::F64, v(4), v(3))),
        assign(v(6), bin(BinaryOp::FMul, Ty::F64, v(5), v(5))),
        assign(v(7), un(UnaryOp::FNeg, Ty::F64, v(6))),
        assign(v(8), Expr::Fma { ty: Ty::F64, a: var(v(5)), b: var(v(5)), c: var(v(7)) }),
        assign(v(9), conv(ConvertOp::Bitcast, Ty::F64, Ty::U64, v(8))),
        assign(v(10), bin(BinaryOp::ShrU, Ty::U64, v(9), c32(32))),
        assign(v(11), bin(BinaryOp::Or, Ty::U64, v(9), v(10))),
        assign(v(12), conv(ConvertOp::Truncate, Ty::U64, Ty::U32, v(11))),
        assign(v(13), Expr::Fma { ty: Ty::F64, a: var(v(5)), b: cf64(2f64.powi(-1070)), c: cf64(2f64.powi(-1060)) }),
        assign(v(14), conv(ConvertOp::Bitcast, Ty::F64, Ty::U64, v(13))),
        assign(v(15), conv(ConvertOp::Truncate, Ty::U64, Ty::U32, v(14))),
        assign(v(16), cmp(CmpOp::Ne, Ty::U32, v(15), c32(0))),
        assign(v(17), Expr::Select { ty: Ty::U32, cond: var(v(16)), a: var(v(12)), b: c32(0) }),
        store(Memory::Heap, v(0), v(17)),
    ];
    let types = [
        Ty::U32, Ty::U32, Ty::F32, Ty::F64, Ty::F64, Ty::F64, Ty::F64, Ty::F64, Ty::F64, Ty::U64, Ty::U64, Ty::U64, Ty::U32,
        Ty::F64, Ty::U64, Ty::U32, Ty::Bool, Ty::U32,
    ];
    let mut kernel = probe_kernel("ptxcross_fma_f64_probe", &types, stmts);
    kernel.features.int64 = true;
    kernel.features.float64 = true;
    kernel
}

/// Trip count of the loop probe: above lavapipe's 65,535.
pub const LOOP_PROBE_TRIPS: u32 = 70_000;

/// `out = number of iterations of a loop that runs `input` times`.
fn loop_probe() -> Kernel {
    let v = |i: u32| VarId(i);
    let stmts = vec![
        assign(v(0), load(Memory::Param, p(0))),
        assign(v(1), load(Memory::Param, p(1))),
        copy(v(2), c32(0)),
        loop_(vec![
            assign(v(3), cmp(CmpOp::GeU, Ty::U32, v(2), v(1))),
            if_(v(3), vec![Stmt::Break], vec![]),
            assign(v(2), bin(BinaryOp::Add, Ty::U32, v(2), c32(1))),
        ]),
        store(Memory::Heap, v(0), v(2)),
    ];
    probe_kernel("ptxcross_loop_probe", &[Ty::U32, Ty::U32, Ty::U32, Ty::Bool], stmts)
}

/// Workgroup size of the fence probe: several of lavapipe's 8- or 16-wide coroutines.
const FENCE_PROBE_THREADS: u32 = 64;
/// Trip count of the fence probe's loop (from the parameters): more fences than any other
/// thread of the workgroup passes.
pub const FENCE_PROBE_TRIPS: u32 = 32;

/// `out = number of iterations of a loop with a device fence that thread 1 alone runs
/// `input` times`.
fn fence_probe() -> Kernel {
    let v = |i: u32| VarId(i);
    let stmts = vec![
        assign(v(0), load(Memory::Param, p(0))),
        assign(v(1), load(Memory::Param, p(1))),
        assign(v(4), Expr::Builtin(Builtin::ThreadId(0))),
        assign(v(5), cmp(CmpOp::Eq, Ty::U32, v(4), c32(1))),
        if_(
            v(5),
            vec![
                copy(v(2), c32(0)),
                loop_(vec![
                    Stmt::Fence { scope: Scope::Device },
                    assign(v(2), bin(BinaryOp::Add, Ty::U32, v(2), c32(1))),
                    assign(v(3), cmp(CmpOp::GeU, Ty::U32, v(2), v(1))),
                    if_(v(3), vec![Stmt::Break], vec![]),
                ]),
                store(Memory::Heap, v(0), v(2)),
            ],
            vec![],
        ),
    ];
    let mut kernel = probe_kernel("ptxcross_fence_probe", &[Ty::U32, Ty::U32, Ty::U32, Ty::Bool, Ty::U32, Ty::Bool], stmts);
    kernel.workgroup_size = [FENCE_PROBE_THREADS, 1, 1];
    kernel
}

/// What the subnormal probe found on one device and backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subnormals {
    /// Every f32 check gave the exact IEEE result.
    pub f32_kept: bool,
    /// The same for f64; `None` where the device has no f64.
    pub f64_kept: Option<bool>,
    /// The checks that failed, one bit each (see [`SUBNORMAL_CHECKS`]); all ones when the
    /// probe could not run (which counts as flushing: kernels that need subnormals are then
    /// refused rather than risked).
    pub failed: u32,
}

impl Subnormals {
    /// A device that keeps every subnormal (the IEEE 754 default), e.g. for tests.
    pub const KEPT: Subnormals = Subnormals { f32_kept: true, f64_kept: Some(true), failed: 0 };
    /// A device that flushes f32 subnormals (as NVIDIA's Vulkan driver does for WGSL) and keeps
    /// f64 ones, e.g. to test the refusal on a device that keeps them.
    pub const F32_FLUSHED: Subnormals = Subnormals { f32_kept: false, f64_kept: Some(true), failed: F32_CHECKS };

    /// The native `fma` alone flushing does not make f32 subnormals lost: kernels then get the
    /// exact emulation instead ([`Gpu::native_fma_usable`]), built from operations that keep
    /// them. (NVIDIA's Vulkan driver on an H100, driver 580: every f32 check passes on SPIR-V
    /// with `DenormPreserve` except `fma` to a subnormal.)
    fn from_failed(failed: u32, has_f64: bool) -> Subnormals {
        let f32_failed = failed & F32_CHECKS & !FMA_SUBNORMAL_CHECK;
        Subnormals { f32_kept: f32_failed == 0, f64_kept: has_f64.then_some(failed & !F32_CHECKS == 0), failed }
    }

    /// Whether the native f32 `fma` kept its subnormal result.
    pub fn native_fma_keeps_subnormals(&self) -> bool {
        self.failed & FMA_SUBNORMAL_CHECK == 0
    }

    /// The names of the failed checks.
    pub fn failed_checks(&self) -> Vec<&'static str> {
        SUBNORMAL_CHECKS.iter().enumerate().filter(|(i, _)| self.failed >> i & 1 != 0).map(|(_, n)| *n).collect()
    }
}

/// How `fma.rn` is translated on a device and backend, from the probes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FmaMode {
    /// The native fma (`LowerOptions::native_fma`): fused in f32 and f64, keeping subnormals.
    Native,
    /// The native fma behind the exact-f32 mode's guard (`LowerOptions::native_fma_guarded`):
    /// fused in f32 and f64 (the f64 one keeping subnormals), but the f32 one flushes subnormal
    /// results. NVIDIA's Vulkan driver 580 on H100/H200 (SPIR-V), although every SPIR-V module
    /// with f32 declares `DenormPreserve 32` (the backend emits it; the probes run through the
    /// same backend, so the subnormal probe's fma check already runs under that mode).
    Guarded,
    /// The exact emulation: the native fma is not fused in f32 or f64 (lavapipe), or a probe
    /// could not run.
    Emulated,
}

impl FmaMode {
    /// The decision from the probes: `f32_fused` ([`Gpu::fma_is_fused`]); `f64_fused`
    /// ([`Gpu::fma_f64_is_fused`]: fused and keeping subnormals; `None` without f64); and the
    /// subnormal probe's fma check. A guard makes a flushing fused fma exact (see
    /// `ptxcross_lower`'s `inst::flushed`); an unfused one has no cheap fix.
    pub fn decide(f32_fused: bool, f64_fused: Option<bool>, subnormals: &Subnormals) -> FmaMode {
        if !f32_fused || f64_fused == Some(false) {
            FmaMode::Emulated
        } else if subnormals.native_fma_keeps_subnormals() {
            FmaMode::Native
        } else {
            FmaMode::Guarded
        }
    }
}

/// The check of the native f32 `fma` with a subnormal result (bit 3 of [`SUBNORMAL_CHECKS`]).
const FMA_SUBNORMAL_CHECK: u32 = 1 << 3;

/// The subnormal probe's checks, by bit: f32 ones in the low half, f64 ones from bit 16.
pub const SUBNORMAL_CHECKS: [&str; 20] = [
    "f32 add of subnormals",
    "f32 sub to a subnormal",
    "f32 mul to a subnormal",
    "f32 fma to a subnormal",
    "f32 compare of a subnormal",
    "f32 min of subnormals",
    "f32 max of subnormals",
    "f32 neg of a subnormal",
    "f32 floor of a negative subnormal",
    "f32 subnormal widened to f64",
    "f64 narrowed to an f32 subnormal",
    "", "", "", "", "",
    "f64 add of subnormals",
    "f64 mul to a subnormal",
    "f64 compare of a subnormal",
    "",
];
const F32_CHECKS: u32 = 0xffff;

/// Builds a probe body: fresh variables, and a mask of failed checks.
struct ProbeBody {
    vars: Vec<Ty>,
    stmts: Vec<Stmt>,
    failed: Operand,
}

impl ProbeBody {
    fn new() -> ProbeBody {
        ProbeBody { vars: Vec::new(), stmts: Vec::new(), failed: c32(0) }
    }
    fn let_(&mut self, ty: Ty, e: Expr) -> Operand {
        let v = VarId(self.vars.len() as u32);
        self.vars.push(ty);
        self.stmts.push(assign(v, e));
        var(v)
    }
    /// `one · bits` as a value of `ty` (U32 → F32, U64 → F64 by bits): no compiler knows `one`.
    fn float(&mut self, one: Operand, ty: Ty, bits: u64) -> Operand {
        if ty == Ty::F64 {
            let w = self.let_(Ty::U64, conv(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, one));
            let x = self.let_(Ty::U64, bin(BinaryOp::Mul, Ty::U64, w, c64(bits)));
            self.let_(Ty::F64, conv(ConvertOp::Bitcast, Ty::U64, Ty::F64, x))
        } else {
            let x = self.let_(Ty::U32, bin(BinaryOp::Mul, Ty::U32, one, c32(bits as u32)));
            self.let_(Ty::F32, conv(ConvertOp::Bitcast, Ty::U32, Ty::F32, x))
        }
    }
    /// Check number `bit` holds when `ok` is true.
    fn check(&mut self, bit: u32, ok: Operand) {
        let miss = self.let_(Ty::U32, Expr::Select { ty: Ty::U32, cond: ok, a: c32(0), b: c32(1 << bit) });
        let failed = self.failed;
        self.failed = self.let_(Ty::U32, bin(BinaryOp::Or, Ty::U32, failed, miss));
    }
    /// Check `bit`: the float `x` has the bits `one · expected`.
    fn check_bits(&mut self, bit: u32, one: Operand, x: Operand, ty: Ty, expected: u64) {
        let (ity, want) = if ty == Ty::F64 { (Ty::U64, self.float(one, Ty::F64, expected)) } else { (Ty::U32, self.float(one, Ty::F32, expected)) };
        let got = self.let_(ity, conv(ConvertOp::Bitcast, ty, ity, x));
        let want = self.let_(ity, conv(ConvertOp::Bitcast, ty, ity, want));
        let ok = self.let_(Ty::Bool, cmp(CmpOp::Eq, ity, got, want));
        self.check(bit, ok);
    }
}

/// The subnormal probe: `out = failed checks` (see [`SUBNORMAL_CHECKS`]) for `input = 1`.
fn subnormal_probe(with_f64: bool) -> Kernel {
    let mut k = ProbeBody::new();
    let out = k.let_(Ty::U32, load(Memory::Param, p(0)));
    let one = k.let_(Ty::U32, load(Memory::Param, p(1)));
    let f = |k: &mut ProbeBody, bits: u32| k.float(one, Ty::F32, bits as u64);
    let (s1, s3) = (f(&mut k, 1), f(&mut k, 3)); // 2^-149, 3·2^-149
    let x = f(&mut k, 27 << 23); // 2^-100
    let y = f(&mut k, 97 << 23); // 2^-30
    let (n1, n0) = (f(&mut k, 0x0080_0001), f(&mut k, 0x0080_0000)); // least normal (+ 1 ulp)
    let r = k.let_(Ty::F32, bin(BinaryOp::FAdd, Ty::F32, s3, s1));
    k.check_bits(0, one, r, Ty::F32, 4);
    let r = k.let_(Ty::F32, bin(BinaryOp::FSub, Ty::F32, n1, n0));
    k.check_bits(1, one, r, Ty::F32, 1);
    let r = k.let_(Ty::F32, bin(BinaryOp::FMul, Ty::F32, x, y));
    k.check_bits(2, one, r, Ty::F32, 0x0008_0000); // 2^-130
    let r = k.let_(Ty::F32, Expr::Fma { ty: Ty::F32, a: x, b: y, c: s1 });
    k.check_bits(3, one, r, Ty::F32, 0x0008_0001);
    let lt = k.let_(Ty::Bool, cmp(CmpOp::FLt, Ty::F32, s1, s3));
    let gt = k.let_(Ty::Bool, cmp(CmpOp::FGt, Ty::F32, s1, cf32(0.0)));
    let both = k.let_(Ty::Bool, bin(BinaryOp::And, Ty::Bool, lt, gt));
    k.check(4, both);
    let r = k.let_(Ty::F32, bin(BinaryOp::FMin, Ty::F32, s3, s1));
    k.check_bits(5, one, r, Ty::F32, 1);
    let r = k.let_(Ty::F32, bin(BinaryOp::FMax, Ty::F32, s1, s3));
    k.check_bits(6, one, r, Ty::F32, 3);
    let r = k.let_(Ty::F32, un(UnaryOp::FNeg, Ty::F32, s3));
    k.check_bits(7, one, r, Ty::F32, 0x8000_0003);
    let ns = k.let_(Ty::F32, un(UnaryOp::FNeg, Ty::F32, s1));
    let r = k.let_(Ty::F32, un(UnaryOp::FFloor, Ty::F32, ns));
    k.check_bits(8, one, r, Ty::F32, (-1f32).to_bits() as u64);
    if with_f64 {
        let r = k.let_(Ty::F64, conv(ConvertOp::FloatToFloat, Ty::F32, Ty::F64, s3));
        k.check_bits(9, one, r, Ty::F64, (3.0 * 2f64.powi(-149)).to_bits());
        let d = k.float(one, Ty::F64, (3.0 * 2f64.powi(-149)).to_bits());
        let r = k.let_(Ty::F32, conv(ConvertOp::FloatToFloat, Ty::F64, Ty::F32, d));
        k.check_bits(10, one, r, Ty::F32, 3);
        let (d1, d3) = (k.float(one, Ty::F64, 1), k.float(one, Ty::F64, 3));
        let r = k.let_(Ty::F64, bin(BinaryOp::FAdd, Ty::F64, d3, d1));
        k.check_bits(16, one, r, Ty::F64, 4);
        let dx = k.float(one, Ty::F64, 2f64.powi(-1000).to_bits());
        let dy = k.float(one, Ty::F64, 2f64.powi(-30).to_bits());
        let r = k.let_(Ty::F64, bin(BinaryOp::FMul, Ty::F64, dx, dy));
        k.check_bits(17, one, r, Ty::F64, 1 << 44); // 2^-1030
        let gt = k.let_(Ty::Bool, cmp(CmpOp::FGt, Ty::F64, d1, cf64(0.0)));
        k.check(18, gt);
    }
    let failed = k.failed;
    k.stmts.push(store(Memory::Heap, out, failed));
    let name = if with_f64 { "ptxcross_subnormal_probe_f64" } else { "ptxcross_subnormal_probe" };
    let mut kernel = probe_kernel(name, &k.vars, k.stmts);
    kernel.features.int64 = with_f64;
    kernel.features.float64 = with_f64;
    kernel
}

/// Runs a probe kernel on `backend` with `input` and returns the word it wrote.
fn run_probe(gpu: &Arc<Gpu>, backend: Backend, kernel: Kernel, input: u32) -> Result<u32, Error> {
    let name = kernel.name.clone();
    let program = crate::translate::build_program_from_ir(&name, module(vec![kernel]), &[backend], true)
        .map_err(|e| Error::Pipeline { kernel: name.clone(), backend, message: e.to_string() })?;
    let mut ctx = Context::new(ContextOptions { heap_bytes: 64 << 10, timeout: None, gpu: Some(gpu.clone()) })?;
    let out = ctx.alloc(4)?;
    let word = ((out.0 - abi::HEAP_BASE) / 4) as u32;
    let params = [word.to_le_bytes(), input.to_le_bytes()].concat();
    let launched = ctx.launch_packed(&program, &name, [1, 1, 1], &params, backend);
    gpu.forget_program(program.id());
    launched?;
    let bits = ctx.read(out, 4)?;
    Ok(u32::from_le_bytes([bits[0], bits[1], bits[2], bits[3]]))
}

impl Gpu {
    /// Whether `fma` on `backend` rounds once on this device (measured on first use; a probe
    /// that cannot run counts as "not fused", which only costs speed).
    pub fn fma_is_fused(self: &Arc<Self>, backend: Backend) -> bool {
        self.probed(&self.fma_fused, backend, || {
            run_probe(self, backend, fma_probe(), A_BITS).map(|bits| bits != 0).unwrap_or(false)
        })
    }

    /// Whether the f64 `fma` on `backend` rounds once and keeps subnormal results on this device
    /// (measured on first use; a probe that cannot run, e.g. without f64, counts as "not
    /// fused").
    pub fn fma_f64_is_fused(self: &Arc<Self>, backend: Backend) -> bool {
        self.probed(&self.fma_f64_fused, backend, || {
            run_probe(self, backend, fma_f64_probe(), A_BITS).map(|bits| bits != 0).unwrap_or(false)
        })
    }

    /// Whether `fma.rn` may map to the native fma on `backend`: it rounds once in f32
    /// ([`Gpu::fma_is_fused`]) and, where the device has f64, in f64 too
    /// ([`Gpu::fma_f64_is_fused`]: `native_fma` covers both), and keeps subnormal results
    /// (NVIDIA's Vulkan driver flushes them in fma alone, `DenormPreserve` or not); otherwise
    /// lowering emulates it exactly.
    pub fn native_fma_usable(self: &Arc<Self>, backend: Backend) -> bool {
        self.fma_mode(backend) == FmaMode::Native
    }

    /// How `fma.rn` is translated for `backend` on this device (see [`FmaMode::decide`]).
    pub fn fma_mode(self: &Arc<Self>, backend: Backend) -> FmaMode {
        let has_f64 = self.features().contains(wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_INT64);
        let f32_fused = self.fma_is_fused(backend);
        let f64_fused = (has_f64 && f32_fused).then(|| self.fma_f64_is_fused(backend));
        FmaMode::decide(f32_fused, f64_fused, &self.subnormals(backend))
    }

    /// Whether the driver ends long loops on its own on `backend` (measured on first use; a
    /// probe that cannot run counts as "cuts loops", which only adds a cheap check).
    pub fn cuts_long_loops(self: &Arc<Self>, backend: Backend) -> bool {
        self.probed(&self.loops_cut, backend, || {
            run_probe(self, backend, loop_probe(), LOOP_PROBE_TRIPS).map(|n| n != LOOP_PROBE_TRIPS).unwrap_or(true)
        })
    }

    /// Whether a memory fence that one thread of a workgroup passes more often than the others
    /// loses that thread's later work on `backend` (measured on first use; only SPIR-V has
    /// such fences, WGSL refuses them; a probe that cannot run counts as "no": the probe
    /// kernel itself only fails to run where fences cannot be translated at all).
    pub fn fences_lose_threads(self: &Arc<Self>, backend: Backend) -> bool {
        backend == Backend::Spirv
            && self.probed(&self.fences_lose_threads, backend, || {
                run_probe(self, backend, fence_probe(), FENCE_PROBE_TRIPS).is_ok_and(|n| n != FENCE_PROBE_TRIPS)
            })
    }

    /// The options every translation for this device and `backends` needs, from what the probes
    /// found: fused `fma`, cut loops, flushed f32 subnormals, 64-bit integers, native warps,
    /// shared memory and heap limits. The CLI, the driver's modules and the tests start from
    /// these (`..gpu.lower_options(&[backend])`) and add what is theirs (kernel, block, dynamic
    /// shared memory). Where backends differ, the safe side wins: native `fma` only if every
    /// backend fuses, the exact f32 mode if any flushes (exact on the others too, only slower).
    pub fn lower_options(self: &Arc<Self>, backends: &[Backend]) -> ptxcross_lower::LowerOptions {
        ptxcross_lower::LowerOptions {
            native_fma: backends.iter().all(|&b| self.native_fma_usable(b)),
            native_fma_guarded: !backends.iter().all(|&b| self.native_fma_usable(b))
                && backends.iter().all(|&b| self.fma_mode(b) != FmaMode::Emulated),
            detect_cut_loops: backends.iter().any(|&b| self.cuts_long_loops(b)),
            fences_as_sink_atomics: backends.iter().any(|&b| self.fences_lose_threads(b)),
            max_global_bytes: Some(self.max_segment_bytes().saturating_sub(super::HEAP_RESERVED_BYTES + super::ALLOC_ALIGN)),
            split_int64: !self.features().contains(wgpu::Features::SHADER_INT64),
            no_float64: !self.features().contains(wgpu::Features::SHADER_F64),
            native_warps: self.native_warps(),
            flushed_f32: backends.iter().any(|&b| self.flushes_f32(b)),
            max_shared_bytes: Some(self.limits().max_compute_workgroup_storage_size),
            ..Default::default()
        }
    }

    /// Whether f32 code for `backend` must be translated in the exact mode for devices that
    /// flush f32 subnormals (`LowerOptions::flushed_f32`): the probe found them flushed.
    pub fn flushes_f32(self: &Arc<Self>, backend: Backend) -> bool {
        !self.subnormals(backend).f32_kept
    }

    /// Whether this device keeps subnormals on `backend` (measured on first use, unless
    /// [`Gpu::assume_subnormals`] said it first). `PTXCROSS_ASSUME_FLUSHED` (a comma-separated
    /// list of backends, `spirv`, `wgsl`) makes the answer "f32 and f64 flushed" on those
    /// backends without probing: the refusal a flushing device gives (NVIDIA's WGSL path) can
    /// then be exercised anywhere. It can only add refusals, never let a kernel run.
    pub fn subnormals(self: &Arc<Self>, backend: Backend) -> Subnormals {
        if let Some(known) = self.subnormals.lock().ok().and_then(|m| m.get(&backend).copied()) {
            return known;
        }
        let has_f64 = self.features().contains(wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_INT64);
        if assumed_flushed(backend) {
            let flushed = Subnormals { f32_kept: false, f64_kept: has_f64.then_some(false), failed: u32::MAX };
            self.assume_subnormals(backend, flushed);
            return flushed;
        }
        let failed = run_probe(self, backend, subnormal_probe(has_f64), 1).unwrap_or(u32::MAX);
        let found = Subnormals::from_failed(failed, has_f64);
        self.assume_subnormals(backend, found);
        found
    }

    /// `Err(SubnormalsFlushed)` when `kernel`'s results depend on subnormals that this device
    /// flushes on `backend` (the launch would be silently wrong).
    pub fn check_subnormals(self: &Arc<Self>, kernel: &Kernel, backend: Backend) -> Result<(), Error> {
        let f = &kernel.features;
        if !(f.f32_subnormals || f.f64_subnormals) {
            return Ok(());
        }
        let s = self.subnormals(backend);
        let lost = if f.f32_subnormals && !s.f32_kept {
            "f32"
        } else if f.f64_subnormals && s.f64_kept == Some(false) {
            "f64"
        } else {
            return Ok(());
        };
        let site = if lost == "f32" {
            kernel
                .recorded_site(f.f32_subnormals_site)
                .map(|s| format!("`{}` at line {}:{}", s.instruction, s.line, s.col))
        } else {
            None
        };
        Err(Error::SubnormalsFlushed {
            kernel: kernel.name.clone(),
            device: self.adapter_info().name.clone(),
            backend,
            format: lost,
            site,
            exact_mode: f.flushed_f32 && lost == "f32",
        })
    }

    /// `Err(MissingWorkaround)` when `kernel` was lowered without a driver workaround that this
    /// device needs on `backend` (a hand-built `LowerOptions` rather than [`Gpu::lower_options`]):
    /// a loop without the cut check where the driver cuts loops, a fence not emitted as a sink
    /// atomic where fences lose threads. The probes run only for kernels that have such code
    /// (the probes' own kernels, built as IR here, record neither: no recursion).
    pub fn check_workarounds(self: &Arc<Self>, kernel: &Kernel, backend: Backend) -> Result<(), Error> {
        let f = &kernel.features;
        let missing = if f.loops && !f.loops_checked && self.cuts_long_loops(backend) {
            Some(("detect_cut_loops", "it ends every loop of a thread after 65,535 back-edges"))
        } else if f.fences && !f.fences_as_sink_atomics && self.fences_lose_threads(backend) {
            Some(("fences_as_sink_atomics", "it abandons threads at memory fences in loops"))
        } else {
            None
        };
        match missing {
            Some((option, why)) => Err(Error::MissingWorkaround {
                kernel: kernel.name.clone(),
                device: self.adapter_info().name.clone(),
                backend,
                option,
                why,
            }),
            None => Ok(()),
        }
    }

    /// Sets what [`Gpu::subnormals`] answers for `backend` instead of probing: for tests of
    /// the refusal on devices that keep subnormals, and for drivers known better than the probe.
    pub fn assume_subnormals(&self, backend: Backend, s: Subnormals) {
        if let Ok(mut m) = self.subnormals.lock() {
            m.insert(backend, s);
        }
    }

    fn probed(&self, cache: &Mutex<HashMap<Backend, bool>>, backend: Backend, measure: impl FnOnce() -> bool) -> bool {
        if let Some(known) = cache.lock().ok().and_then(|m| m.get(&backend).copied()) {
            return known;
        }
        let value = measure();
        if let Ok(mut m) = cache.lock() {
            m.insert(backend, value);
        }
        value
    }
}

/// `backend` is named in `PTXCROSS_ASSUME_FLUSHED` (see [`Gpu::subnormals`]).
fn assumed_flushed(backend: Backend) -> bool {
    let name = match backend {
        Backend::Spirv => "spirv",
        Backend::Wgsl => "wgsl",
    };
    std::env::var("PTXCROSS_ASSUME_FLUSHED").is_ok_and(|v| v.split(',').any(|b| b.trim().eq_ignore_ascii_case(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NVIDIA's H100 on SPIR-V (driver 580): only the native fma flushes. f32 subnormals then
    /// count as kept (fma is emulated from operations that keep them), the fma does not.
    #[test]
    fn a_flushing_fma_alone_keeps_f32_subnormals_but_not_the_native_fma() {
        let s = Subnormals::from_failed(FMA_SUBNORMAL_CHECK, true);
        assert!(s.f32_kept);
        assert_eq!(s.f64_kept, Some(true));
        assert!(!s.native_fma_keeps_subnormals());
        assert_eq!(s.failed_checks(), ["f32 fma to a subnormal"]);
        // Any other f32 check failing still means flushed.
        let s = Subnormals::from_failed(FMA_SUBNORMAL_CHECK | 1, true);
        assert!(!s.f32_kept);
        assert!(Subnormals::from_failed(0, false).native_fma_keeps_subnormals());
        assert!(!Subnormals::from_failed(u32::MAX, true).f32_kept);
    }

    /// The fma decision with each answer of the probes.
    #[test]
    fn fma_mode_from_the_probes() {
        let nvidia = Subnormals::from_failed(FMA_SUBNORMAL_CHECK, true);
        let kept = Subnormals::KEPT;
        // NVIDIA (H100/H200, driver 580, SPIR-V): fused, but the fma flushes a subnormal result.
        assert_eq!(FmaMode::decide(true, Some(true), &nvidia), FmaMode::Guarded);
        // NVIDIA's WGSL path: every f32 check fails, fused: guarded too (in the exact-f32 mode).
        assert_eq!(FmaMode::decide(true, Some(true), &Subnormals::F32_FLUSHED), FmaMode::Guarded);
        // A device that fuses and keeps subnormals.
        assert_eq!(FmaMode::decide(true, Some(true), &kept), FmaMode::Native);
        assert_eq!(FmaMode::decide(true, None, &kept), FmaMode::Native);
        assert_eq!(FmaMode::decide(true, None, &nvidia), FmaMode::Guarded);
        // lavapipe: an unfused fma (whatever the subnormals) is emulated.
        assert_eq!(FmaMode::decide(false, None, &kept), FmaMode::Emulated);
        assert_eq!(FmaMode::decide(false, Some(true), &nvidia), FmaMode::Emulated);
        // An f64 fma that is not fused, or flushes, keeps both emulated (one option covers both).
        assert_eq!(FmaMode::decide(true, Some(false), &kept), FmaMode::Emulated);
        assert_eq!(FmaMode::decide(true, Some(false), &nvidia), FmaMode::Emulated);
        // A subnormal probe that could not run: guarded, never the bare native fma.
        assert_eq!(FmaMode::decide(true, Some(true), &Subnormals::from_failed(u32::MAX, true)), FmaMode::Guarded);
    }
}

