//! Exact f32 on targets that flush subnormals (issue #9; `LowerOptions::flushed_f32`).
//!
//! Vulkan and WebGPU let a device flush f32 subnormal operands and results to zero (WGSL
//! cannot ask for `DenormPreserve`; wgpu's DX12 path and many mobile GPUs flush), while PTX
//! keeps them unless an instruction says `.ftz`. The host's probe (`runtime::probe` in the
//! host crate) tells which devices flush; for those, `lower` emits f32 code whose results are
//! PTX's bits anyway. The model of a flushing device (the probe's checks, and the simulation in
//! `flush_sim` that tests this on devices that keep subnormals): any native f32 operation may
//! see a subnormal operand as a zero (of either sign) and may return a zero for a result whose
//! magnitude is below 2^-126 — or, where tininess is decided before rounding, for one that
//! rounds to 2^-126. Integer operations, bit casts, selects, loads and stores move bits.
//!
//! The design: keep subnormals in integer registers until an operation needs them, and give
//! every such operation one of two shapes.
//! - **On the bits, always** (cheap enough to need no fast path): comparisons (`setp`, `set`,
//!   `.sat`, `slct` already) compare order keys built from the bits; min/max select on the
//!   same keys; neg/abs flip or clear the sign bit; rounding to an integral value (`cvt.rmi`,
//!   `cvt.rpi`, …) takes the native result except for a subnormal operand, whose result
//!   (±0 or ±1) is chosen from its sign; f32 → f64 widens the bits (`f32_bits_to_f64`) and
//!   f64 → f32 rounds the bits (`round_to_format`). `FnLower::cmp`, `bin`, `un` and `convert`
//!   emit these forms for every f32 operation of a kernel lowered in this mode, so no
//!   instruction lowering has to remember them.
//! - **A native fast path and a rare exact path** for add, sub, mul and fma to nearest: the
//!   native result is exact unless an operand is subnormal or the exact result is below
//!   2^-126 in magnitude, and a flushing device can only spoil results by giving a zero or a
//!   value of magnitude at most 2^-126. So the native result stands unless an operand or the
//!   result has a magnitude of at most 2^-126 (zero included: a flushed subnormal result is a
//!   zero); then an `If` recomputes it on integers (`f32_fma_on_integers`: a + b = a·1 + b,
//!   a − b = a·1 + (−b), a·b = a·b + (−0), which keeps the sign of zero products). That path
//!   is taken only by threads that meet zeros or tiny values, so its cost is mostly code size.
//!   The directed roundings (`.rz/.rm/.rp`) already compute in f64 and round the bits; with
//!   the exact widening above they need nothing more.
//!
//! What is not covered (division, reciprocal, square root, `atom.add.f32`, half-precision
//! conversions from f32, …) still marks the kernel as depending on f32 subnormals, naming the
//! first such instruction, and the host refuses it on a flushing device.

use super::half::{Clamp, Rounding, F32, F64};
use super::Mods;
use crate::function::FnLower;
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Expr, Operand, Ty, UnaryOp};
use ptxcross_frontend::ast::ScalarType;

/// The bits of 2^-126, the least normal f32: magnitudes up to it may differ on a flushing
/// device.
const LEAST_NORMAL: u32 = 0x0080_0000;

impl FnLower {
    /// The magnitude bits (`U32`) of the f32 `x`.
    fn f32_magnitude_bits(&mut self, x: Operand) -> Operand {
        let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
        self.bin(BinaryOp::And, Ty::U32, b, FnLower::u32c(0x7fff_ffff))
    }

    /// A key whose signed (`U32` read as two's complement) order is the order of the f32 `x`'s
    /// values, with −0 and +0 equal (−x maps to 2^31 − bits), and whether `x` is NaN.
    fn f32_order_key(&mut self, x: Operand) -> (Operand, Operand) {
        let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
        let mag = self.bin(BinaryOp::And, Ty::U32, b, FnLower::u32c(0x7fff_ffff));
        let nan = self.cmp(CmpOp::GtU, Ty::U32, mag, FnLower::u32c(0x7f80_0000));
        let negative = self.cmp(CmpOp::LtS, Ty::U32, b, FnLower::u32c(0));
        let flipped = self.bin(BinaryOp::Sub, Ty::U32, FnLower::u32c(0x8000_0000), b);
        (self.select(Ty::U32, negative, flipped, b), nan)
    }

    /// An ordered f32 comparison (`CmpOp::FEq` … `FGe`) on the bits.
    pub(crate) fn f32_compare_exact(&mut self, op: CmpOp, a: Operand, b: Operand) -> Operand {
        let (ka, na) = self.f32_order_key(a);
        let (kb, nb) = self.f32_order_key(b);
        let int_op = match op {
            CmpOp::FEq => CmpOp::Eq,
            CmpOp::FNe => CmpOp::Ne,
            CmpOp::FLt => CmpOp::LtS,
            CmpOp::FLe => CmpOp::LeS,
            CmpOp::FGt => CmpOp::GtS,
            _ => CmpOp::GeS,
        };
        let r = self.value(Ty::Bool, Expr::Compare { op: int_op, ty: Ty::U32, lhs: ka, rhs: kb });
        let nan = self.bin(BinaryOp::Or, Ty::Bool, na, nb);
        let ordered = self.un(UnaryOp::Not, Ty::Bool, nan);
        self.bin(BinaryOp::And, Ty::Bool, r, ordered)
    }

    /// `BinaryOp::FMin`/`FMax` of f32 on the bits, under the IR op's precondition (no NaN, not
    /// a pair of zeros).
    pub(crate) fn f32_min_max_exact(&mut self, is_min: bool, a: Operand, b: Operand) -> Operand {
        let (ka, _) = self.f32_order_key(a);
        let (kb, _) = self.f32_order_key(b);
        let lt = self.value(Ty::Bool, Expr::Compare { op: CmpOp::LtS, ty: Ty::U32, lhs: ka, rhs: kb });
        if is_min {
            self.select(Ty::F32, lt, a, b)
        } else {
            self.select(Ty::F32, lt, b, a)
        }
    }

    /// `FNeg`/`FAbs` of f32 on the sign bit.
    pub(crate) fn f32_sign_exact(&mut self, op: UnaryOp, a: Operand) -> Operand {
        let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, a);
        let r = if op == UnaryOp::FNeg {
            self.bin(BinaryOp::Xor, Ty::U32, b, FnLower::u32c(0x8000_0000))
        } else {
            self.bin(BinaryOp::And, Ty::U32, b, FnLower::u32c(0x7fff_ffff))
        };
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r)
    }

    /// f32 rounding to an integral value (`FFloor`, `FCeil`, `FTrunc`, `FRoundEven`): the
    /// native result (an integer, ±0, infinity or NaN: never subnormal), except for a subnormal
    /// operand, which a flushing device sees as a zero: floor gives −1 or +0, ceil −0 or +1,
    /// the others the zero of its sign.
    pub(crate) fn f32_round_integral_exact(&mut self, op: UnaryOp, a: Operand) -> Operand {
        let native = self.value(Ty::F32, Expr::Unary { op, ty: Ty::F32, arg: a });
        let u = FnLower::u32c;
        let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, a);
        let sign = self.bin(BinaryOp::And, Ty::U32, b, u(0x8000_0000));
        let one = match op {
            UnaryOp::FFloor => {
                let negative = self.cmp(CmpOp::Ne, Ty::U32, sign, u(0));
                self.select(Ty::U32, negative, u(0x3f80_0000), u(0))
            }
            UnaryOp::FCeil => {
                let positive = self.cmp(CmpOp::Eq, Ty::U32, sign, u(0));
                self.select(Ty::U32, positive, u(0x3f80_0000), u(0))
            }
            _ => u(0),
        };
        let special = self.bin(BinaryOp::Or, Ty::U32, sign, one);
        let special = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, special);
        let subnormal = self.f32_is_subnormal(a);
        self.select(Ty::F32, subnormal, special, native)
    }

    /// Whether the f32 `x` is subnormal (nonzero with a zero exponent field).
    fn f32_is_subnormal(&mut self, x: Operand) -> Operand {
        let mag = self.f32_magnitude_bits(x);
        let below = self.bin(BinaryOp::Sub, Ty::U32, mag, FnLower::u32c(1));
        self.cmp(CmpOp::LtU, Ty::U32, below, FnLower::u32c(0x007f_ffff))
    }

    /// f32 → f64 from the bits (exact; a subnormal becomes a normal f64).
    pub(crate) fn f32_widen_exact(&mut self, a: Operand) -> Operand {
        let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, a);
        self.f32_bits_to_f64(b)
    }

    /// f64 → f32 rounded to nearest even on the bits (subnormal results kept).
    pub(crate) fn f32_narrow_exact(&mut self, a: Operand) -> Operand {
        let b = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, a);
        let f = self.round_to_format(b, F64, F32, Rounding::Nearest, Clamp::default());
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, f)
    }

    /// `add`/`sub`/`mul`/`fma` of f32 rounded to nearest, exact on a flushing target: the
    /// native result (the emulated fma where the native one is not used), recomputed on
    /// integers when an operand or that result has a magnitude of at most 2^-126 (see the
    /// module comment).
    pub(super) fn f32_arith_flushed(&mut self, op: &str, xs: &[Operand]) -> Operand {
        // The fast path as on a device that keeps subnormals (native operations).
        let saved = std::mem::replace(&mut self.flushed_f32, false);
        let fast = match op {
            "add" => self.bin(BinaryOp::FAdd, Ty::F32, xs[0], xs[1]),
            "sub" => self.bin(BinaryOp::FSub, Ty::F32, xs[0], xs[1]),
            "mul" => self.bin(BinaryOp::FMul, Ty::F32, xs[0], xs[1]),
            _ => self.fma(Ty::F32, xs[0], xs[1], xs[2]),
        };
        self.flushed_f32 = saved;
        let mut least = self.f32_magnitude_bits(fast);
        for &x in xs {
            let m = self.f32_magnitude_bits(x);
            least = self.bin(BinaryOp::MinU, Ty::U32, least, m);
        }
        let rare = self.cmp(CmpOp::LeU, Ty::U32, least, FnLower::u32c(LEAST_NORMAL));
        let result = self.new_var(Ty::F32, "flushed");
        self.assign(result, Expr::Use(fast));
        let xs = xs.to_vec();
        let exact = self.collect(|s| {
            let one = Operand::Const(Const::F32(1f32.to_bits()));
            let r = match op {
                "add" => s.f32_fma_on_integers(xs[0], one, xs[1]),
                "sub" => {
                    let neg = s.f32_sign_exact(UnaryOp::FNeg, xs[1]);
                    s.f32_fma_on_integers(xs[0], one, neg)
                }
                "mul" => s.f32_fma_on_integers(xs[0], xs[1], Operand::Const(Const::F32(0x8000_0000))),
                _ => s.f32_fma_on_integers(xs[0], xs[1], xs[2]),
            };
            s.assign(result, Expr::Use(r));
            Ok(())
        });
        if let Ok(exact) = exact {
            self.emit_if(rare, exact, crate::ir::Block::new());
        }
        Operand::Var(result)
    }
}

/// Whether `m` is an f32 instruction this mode computes exactly on a flushing target (its
/// native operations then cannot change its result; `inst::subnormal_exemption`).
pub(super) fn covered(m: &Mods) -> bool {
    use crate::ptx_types::is_half;
    let types = m.types();
    let plain = |t: &ScalarType| !is_half(*t) && !matches!(t, ScalarType::Tf32) && !super::fp8::is_alternate(*t);
    match m.inst.opcode.name.as_str() {
        "add" | "sub" | "mul" | "fma" | "mad" | "min" | "max" | "abs" | "neg" => types == [ScalarType::F32],
        "setp" | "set" => types.last() == Some(&ScalarType::F32),
        "cvt" => !m.has("pack") && types.len() == 2 && types.iter().all(plain),
        _ => false,
    }
}
