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
//!   value of magnitude at most 2^-126. So the native result stands unless a cheap test on
//!   the bits finds such a case possible (`f32_arith_flushed`: for sums an operand below
//!   2^-102, Sterbenz-like; for products a subnormal operand or a result of at most 2^-126
//!   from nonzero factors; zeros never, since real kernels are full of them); then an `If`
//!   recomputes it exactly (`f32_sum_of_tiny`: scaled by 2^64 on the bits;
//!   `f32_mul_on_integers`: the 48-bit product of the significands on 32-bit integers, rounded
//!   once; fma in f64 with the exact conversions, or on integers where the target has no
//!   f64, `f32_fma_on_integers`). That path is taken only by threads that meet tiny values, so on
//!   a GPU its cost is mostly code size (lavapipe runs it masked anyway: README "Performance").
//!   The directed roundings (`.rz/.rm/.rp`) already compute in f64 and round the bits; with
//!   the exact widening above they need nothing more. `atom.add.f32` on shared memory uses the
//!   same add in its CAS loop (on global memory it flushes by the spec).
//!
//! Division, reciprocal, square root, the `.approx` functions and the half-precision rules
//! already compute on the bits or in f64, so they use no native f32 operation the device could
//! spoil once the conversions are exact. Whatever still does (an instruction whose lowering
//! emits a native f32 operation outside the forms above) marks the kernel as depending on f32
//! subnormals, naming the first such instruction, and the host refuses it on a flushing device:
//! none is known (`flushed_f32` test `uncovered_instructions_are_named_for_the_refusal`).

use super::half::{Clamp, Rounding, F32, F64};
use super::Mods;
use crate::function::FnLower;
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Expr, Operand, Ty, UnaryOp};
use ptxcross_frontend::ast::ScalarType;

/// The bits of 2^-126, the least normal f32: magnitudes up to it may differ on a flushing
/// device.
const LEAST_NORMAL: u32 = 0x0080_0000;

/// The bits of 2^-102: addends at least this large (or zero) cannot make a subnormal sum.
const TINY_ADDEND: u32 = 25 << 23;

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
        // Against a normal constant c the native comparison is exact: a subnormal operand read
        // as a zero of either sign lies on the same side of c as the subnormal itself (|c| is
        // above both), and neither equals c; every other operand is not changed by flushing.
        if [a, b].into_iter().any(|x| matches!(f32_const_magnitude(x), Some(m) if (LEAST_NORMAL..0x7f80_0000).contains(&m))) {
            let saved = std::mem::replace(&mut self.subnormal_exempt.f32, true);
            let r = self.value(Ty::Bool, Expr::Compare { op, ty: Ty::F32, lhs: a, rhs: b });
            self.subnormal_exempt.f32 = saved;
            return r;
        }
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
    /// integers only where a flushing device can differ (see the module comment):
    /// - add/sub: an operand with 0 < |x| < 2^-102. Otherwise both operands are zero or have
    ///   an ulp of at least 2^-125, so the exact sum is 0 or at least 2^-125 in magnitude: no
    ///   subnormal is seen or made (a zero operand is harmless: the sum is the other operand).
    /// - mul/fma: a subnormal operand, or a result of magnitude at most 2^-126 (a flushed result
    ///   is a zero) when neither factor is zero (a zero product is exact: ±0, or c's value).
    pub(super) fn f32_arith_flushed(&mut self, op: &str, xs: &[Operand]) -> Operand {
        let u = FnLower::u32c;
        // The fast path as on a device that keeps subnormals (native operations).
        let saved = std::mem::replace(&mut self.flushed_f32, false);
        let fast = match op {
            "add" => self.bin(BinaryOp::FAdd, Ty::F32, xs[0], xs[1]),
            "sub" => self.bin(BinaryOp::FSub, Ty::F32, xs[0], xs[1]),
            "mul" => self.bin(BinaryOp::FMul, Ty::F32, xs[0], xs[1]),
            // A fused native fma is exact here even if it flushes: the guard below covers
            // what flushing can spoil (`LowerOptions::native_fma_guarded`).
            _ if self.native_fma || self.native_fma_guarded => {
                self.value(Ty::F32, Expr::Fma { ty: Ty::F32, a: xs[0], b: xs[1], c: xs[2] })
            }
            _ => self.fma(Ty::F32, xs[0], xs[1], xs[2]),
        };
        self.flushed_f32 = saved;
        // |x| − 1 (wrapping): a zero operand becomes the largest value, out of every range.
        let below = |s: &mut Self, x: Operand| {
            let m = s.f32_magnitude_bits(x);
            s.bin(BinaryOp::Sub, Ty::U32, m, u(1))
        };
        // Cheaper tests where an operand is known (each one implies the general test below
        // whenever the native result can differ from PTX's, so no case needing the exact path
        // is missed):
        // - add/sub: a constant operand that is zero or at least 2^-102 is no reason for the
        //   exact path (the general test ignores such operands), so only the other is tested;
        //   two such constants need no exact path at all.
        // - mul of a value by itself: x·x is subnormal or at most 2^-126 only if
        //   |x| ≤ 2^-63, and a subnormal x is below that too: one range test, 0 < |x| ≤ 2^-63.
        // - mul by a constant c that is zero, or at least 1 in magnitude (infinities
        //   included): the result of a normal (or zero, infinite, NaN) other factor is exact
        //   (|x·c| ≥ 2^-126 before rounding, or a zero, an infinity, a NaN), so only a
        //   subnormal other factor needs the exact path.
        let known = |x: Operand| f32_const_magnitude(x);
        let rare = if matches!(op, "add" | "sub") {
            let harmless = |x: Operand| matches!(known(x), Some(m) if m == 0 || m >= TINY_ADDEND);
            let tested: Vec<Operand> = xs.iter().copied().filter(|&x| !harmless(x)).collect();
            match tested.as_slice() {
                [] => None,
                [x] => {
                    let a = below(self, *x);
                    Some(self.cmp(CmpOp::LtU, Ty::U32, a, u(TINY_ADDEND - 1)))
                }
                _ => {
                    let a = below(self, xs[0]);
                    let b = below(self, xs[1]);
                    let least = self.bin(BinaryOp::MinU, Ty::U32, a, b);
                    Some(self.cmp(CmpOp::LtU, Ty::U32, least, u(TINY_ADDEND - 1)))
                }
            }
        } else if op == "mul" && xs[0] == xs[1] {
            let a = below(self, xs[0]);
            Some(self.cmp(CmpOp::LeU, Ty::U32, a, u(((127 - 63) << 23) - 1)))
        } else if let (true, Some(other)) = (
            op == "mul",
            [(xs[0], xs[1]), (xs[1], xs[0])]
                .into_iter()
                .find(|&(c, _)| matches!(known(c), Some(m) if m == 0 || m >= 0x3f80_0000 && m <= 0x7f80_0000))
                .map(|(_, x)| x),
        ) {
            let a = below(self, other);
            Some(self.cmp(CmpOp::LtU, Ty::U32, a, u(LEAST_NORMAL - 1)))
        } else {
            let a = below(self, xs[0]);
            let b = below(self, xs[1]);
            let factors = self.bin(BinaryOp::MinU, Ty::U32, a, b);
            let least = match xs.get(2) {
                Some(&c) => {
                    let c = below(self, c);
                    self.bin(BinaryOp::MinU, Ty::U32, factors, c)
                }
                None => factors,
            };
            let subnormal = self.cmp(CmpOp::LtU, Ty::U32, least, u(LEAST_NORMAL - 1));
            let nonzero = self.cmp(CmpOp::Ne, Ty::U32, factors, u(u32::MAX));
            let r = self.f32_magnitude_bits(fast);
            let tiny = self.cmp(CmpOp::LeU, Ty::U32, r, u(LEAST_NORMAL));
            let tiny = self.bin(BinaryOp::And, Ty::Bool, tiny, nonzero);
            Some(self.bin(BinaryOp::Or, Ty::Bool, subnormal, tiny))
        };
        let Some(rare) = rare else { return fast };
        let result = self.new_var(Ty::F32, "flushed");
        self.assign(result, Expr::Use(fast));
        let xs = xs.to_vec();
        let exact = self.collect(|s| {
            // The rare path, emitted once per kernel as a function (`FnLower::outlined`); the
            // fast path and the test stay inline.
            let tys = vec![Ty::F32; xs.len()];
            let r = s.outlined(&format!("f32_flushed_exact_{op}"), &xs, &tys, Ty::F32, |s, xs| match op {
                "add" => s.f32_sum_of_tiny(xs[0], xs[1]),
                "sub" => {
                    let neg = s.f32_sign_exact(UnaryOp::FNeg, xs[1]);
                    s.f32_sum_of_tiny(xs[0], neg)
                }
                "mul" => s.f32_mul_on_integers(xs[0], xs[1]),
                _ if s.no_float64 => s.f32_fma_on_integers(xs[0], xs[1], xs[2]),
                // The emulated fma (rounded to odd in f64) with the exact conversions.
                _ => {
                    let odd = s.f32_fma_to_odd(xs[0], xs[1], xs[2]);
                    s.f32_narrow_exact(odd)
                }
            });
            s.assign(result, Expr::Use(r));
            Ok(())
        });
        if let Ok(exact) = exact {
            self.emit_if(rare, exact, crate::ir::Block::new());
        }
        Operand::Var(result)
    }
}

impl FnLower {
    /// a + b rounded to nearest where an operand is tiny (the slow path of `f32_arith_flushed`),
    /// with f32 and integer operations that never see nor make a subnormal: if the larger
    /// magnitude is at least 2^-60, the other one (below 2^-102) is less than a quarter ulp of
    /// it, so the sum rounds to the larger operand; otherwise both are scaled by 2^64 on the
    /// bits (a subnormal through the exact conversion of its integer significand), added
    /// natively (normal operands; a sum that is subnormal unscaled is exact, Hauser, so the
    /// scaled one is exact too) and scaled back on the bits (a subnormal result by an exact
    /// right shift of the significand).
    fn f32_sum_of_tiny(&mut self, a: Operand, b: Operand) -> Operand {
        let u = FnLower::u32c;
        let ma = self.f32_magnitude_bits(a);
        let mb = self.f32_magnitude_bits(b);
        let a_larger = self.cmp(CmpOp::GeU, Ty::U32, ma, mb);
        let larger = self.select(Ty::F32, a_larger, a, b);
        let large = self.bin(BinaryOp::MaxU, Ty::U32, ma, mb);
        let large = self.cmp(CmpOp::GeU, Ty::U32, large, u((127 - 60) << 23));
        let sa = self.f32_scale_up_64(a);
        let sb = self.f32_scale_up_64(b);
        let sum = self.value(Ty::F32, Expr::Binary { op: BinaryOp::FAdd, ty: Ty::F32, lhs: sa, rhs: sb });
        let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, sum);
        let sign = self.bin(BinaryOp::And, Ty::U32, bits, u(0x8000_0000));
        let e = self.bin(BinaryOp::ShrU, Ty::U32, bits, u(23));
        let e = self.bin(BinaryOp::And, Ty::U32, e, u(0xff));
        let normal = self.bin(BinaryOp::Sub, Ty::U32, bits, u(64 << 23));
        // Subnormal unscaled (0 < e ≤ 64): significand · 2^(e − 150 − 64) = (sig >> (65 − e)) · 2^-149.
        let frac = self.bin(BinaryOp::And, Ty::U32, bits, u(0x007f_ffff));
        let sig = self.bin(BinaryOp::Or, Ty::U32, frac, u(0x0080_0000));
        let shift = self.bin(BinaryOp::Sub, Ty::U32, u(65), e);
        let shift = self.bin(BinaryOp::MinU, Ty::U32, shift, u(31));
        let sub = self.bin(BinaryOp::ShrU, Ty::U32, sig, shift);
        let sub = self.bin(BinaryOp::Or, Ty::U32, sub, sign);
        let is_normal = self.cmp(CmpOp::GtU, Ty::U32, e, u(64));
        let r = self.select(Ty::U32, is_normal, normal, sub);
        // A zero sum (x + (−x)) is the native one's zero.
        let zero = self.cmp(CmpOp::Eq, Ty::U32, e, u(0));
        let r = self.select(Ty::U32, zero, bits, r);
        let r = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r);
        self.select(Ty::F32, large, larger, r)
    }

    /// a · b rounded to nearest even on 32-bit integers only (the slow path of
    /// `f32_arith_flushed` for `mul`; any operands): the 24-bit significands (subnormals
    /// normalized) multiplied exactly into 48 bits (`Mul` and `MulHiU`), shifted so that the
    /// leading one is bit 31 of a word `m` (the bits below it kept as a sticky flag), then
    /// `m` rounded once at bit 8 for a normal result or further right for a subnormal one.
    fn f32_mul_on_integers(&mut self, a: Operand, b: Operand) -> Operand {
        let u = FnLower::u32c;
        let ab = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, a);
        let bb = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, b);
        let x = self.bin(BinaryOp::Xor, Ty::U32, ab, bb);
        let sign = self.bin(BinaryOp::And, Ty::U32, x, u(0x8000_0000));
        let ma = self.bin(BinaryOp::And, Ty::U32, ab, u(0x7fff_ffff));
        let mb = self.bin(BinaryOp::And, Ty::U32, bb, u(0x7fff_ffff));
        let (siga, expa) = self.f32_significand(ma);
        let (sigb, expb) = self.f32_significand(mb);
        // The exact product, below 2^48: hi · 2^32 + lo.
        let lo = self.bin(BinaryOp::Mul, Ty::U32, siga, sigb);
        let hi = self.bin(BinaryOp::MulHiU, Ty::U32, siga, sigb);
        // Leading one at bit 47 (hi ≥ 2^15) or 46: shift by n = 16 or 17 to bit 63.
        let top = self.cmp(CmpOp::GeU, Ty::U32, hi, u(1 << 15));
        let n = self.select(Ty::U32, top, u(16), u(17));
        let hi_part = self.bin(BinaryOp::Shl, Ty::U32, hi, n);
        let back = self.bin(BinaryOp::Sub, Ty::U32, u(32), n);
        let lo_part = self.bin(BinaryOp::ShrU, Ty::U32, lo, back);
        let m = self.bin(BinaryOp::Or, Ty::U32, hi_part, lo_part);
        let rest = self.bin(BinaryOp::Shl, Ty::U32, lo, n);
        let sticky = self.cmp(CmpOp::Ne, Ty::U32, rest, u(0));
        // a·b = m · 2^(e − 158) with e = expa + expb − 110 − n, the biased exponent of a
        // normal result (signed; below 1: subnormal).
        let e = self.bin(BinaryOp::Add, Ty::U32, expa, expb);
        let e = self.bin(BinaryOp::Sub, Ty::U32, e, u(110));
        let e = self.bin(BinaryOp::Sub, Ty::U32, e, n);
        let normal = self.cmp(CmpOp::GeS, Ty::U32, e, u(1));
        let em1 = self.bin(BinaryOp::Sub, Ty::U32, e, u(1));
        let base = self.bin(BinaryOp::Shl, Ty::U32, em1, u(23));
        let base = self.select(Ty::U32, normal, base, u(0));
        // Bits of m dropped: 8, or 9 − e for a subnormal result; 32 or more: m is shifted
        // right by one first (its last bit joins the sticky flag); 33 or more: the value is
        // below half the least subnormal and rounds to 0.
        let d = self.bin(BinaryOp::Sub, Ty::U32, u(9), e);
        let d = self.select(Ty::U32, normal, u(8), d);
        let wide = self.cmp(CmpOp::GeS, Ty::U32, d, u(32));
        let m_half = self.bin(BinaryOp::ShrU, Ty::U32, m, u(1));
        let m_last = self.bin(BinaryOp::And, Ty::U32, m, u(1));
        let m_last = self.cmp(CmpOp::Ne, Ty::U32, m_last, u(0));
        let m_last = self.bin(BinaryOp::And, Ty::Bool, wide, m_last);
        let sticky = self.bin(BinaryOp::Or, Ty::Bool, sticky, m_last);
        let m = self.select(Ty::U32, wide, m_half, m);
        let d1 = self.bin(BinaryOp::Sub, Ty::U32, d, u(1));
        let d = self.select(Ty::U32, wide, d1, d);
        let d = self.bin(BinaryOp::MinU, Ty::U32, d, u(31));
        let kept = self.bin(BinaryOp::ShrU, Ty::U32, m, d);
        let mask = self.bin(BinaryOp::Shl, Ty::U32, u(1), d);
        let mask = self.bin(BinaryOp::Sub, Ty::U32, mask, u(1));
        let rem = self.bin(BinaryOp::And, Ty::U32, m, mask);
        let half = self.bin(BinaryOp::ShrU, Ty::U32, mask, u(1));
        let half = self.bin(BinaryOp::Add, Ty::U32, half, u(1));
        let above = self.cmp(CmpOp::GtU, Ty::U32, rem, half);
        let at = self.cmp(CmpOp::Eq, Ty::U32, rem, half);
        let odd = self.bin(BinaryOp::And, Ty::U32, kept, u(1));
        let odd = self.cmp(CmpOp::Ne, Ty::U32, odd, u(0));
        let tie_up = self.bin(BinaryOp::Or, Ty::Bool, sticky, odd);
        let tie_up = self.bin(BinaryOp::And, Ty::Bool, at, tie_up);
        let up = self.bin(BinaryOp::Or, Ty::Bool, above, tie_up);
        let up = self.select(Ty::U32, up, u(1), u(0));
        let r = self.bin(BinaryOp::Add, Ty::U32, base, kept);
        let r = self.bin(BinaryOp::Add, Ty::U32, r, up);
        let too_small = self.cmp(CmpOp::LtS, Ty::U32, e, u(-23i32 as u32));
        let r = self.select(Ty::U32, too_small, u(0), r);
        let huge = self.cmp(CmpOp::GtS, Ty::U32, e, u(254));
        let carried = self.cmp(CmpOp::GeU, Ty::U32, r, u(0x7f80_0000));
        let overflow = self.bin(BinaryOp::Or, Ty::Bool, huge, carried);
        let r = self.select(Ty::U32, overflow, u(0x7f80_0000), r);
        // Zeros, infinities and NaNs (0 · ∞ is NaN).
        let za = self.cmp(CmpOp::Eq, Ty::U32, ma, u(0));
        let zb = self.cmp(CmpOp::Eq, Ty::U32, mb, u(0));
        let zero = self.bin(BinaryOp::Or, Ty::Bool, za, zb);
        let r = self.select(Ty::U32, zero, u(0), r);
        let ia = self.cmp(CmpOp::Eq, Ty::U32, ma, u(0x7f80_0000));
        let ib = self.cmp(CmpOp::Eq, Ty::U32, mb, u(0x7f80_0000));
        let inf = self.bin(BinaryOp::Or, Ty::Bool, ia, ib);
        let r = self.select(Ty::U32, inf, u(0x7f80_0000), r);
        let r = self.bin(BinaryOp::Or, Ty::U32, r, sign);
        let na = self.cmp(CmpOp::GtU, Ty::U32, ma, u(0x7f80_0000));
        let nb = self.cmp(CmpOp::GtU, Ty::U32, mb, u(0x7f80_0000));
        let inf_zero = self.bin(BinaryOp::And, Ty::Bool, inf, zero);
        let nan = self.bin(BinaryOp::Or, Ty::Bool, na, nb);
        let nan = self.bin(BinaryOp::Or, Ty::Bool, nan, inf_zero);
        let r = self.select(Ty::U32, nan, u(0x7fff_ffff), r);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r)
    }

    /// The 24-bit significand (leading one at bit 23) and the biased exponent (below 1 for a
    /// subnormal, as a wrapping `U32`) of a finite nonzero f32 magnitude `m`.
    pub(super) fn f32_significand(&mut self, m: Operand) -> (Operand, Operand) {
        let u = FnLower::u32c;
        let field = self.bin(BinaryOp::ShrU, Ty::U32, m, u(23));
        let frac = self.bin(BinaryOp::And, Ty::U32, m, u(0x007f_ffff));
        let normal_sig = self.bin(BinaryOp::Or, Ty::U32, frac, u(0x0080_0000));
        let lz = self.un(UnaryOp::CountLeadingZeros, Ty::U32, frac);
        let shift = self.bin(BinaryOp::Sub, Ty::U32, lz, u(8));
        let shift = self.bin(BinaryOp::And, Ty::U32, shift, u(31));
        let sub_sig = self.bin(BinaryOp::Shl, Ty::U32, frac, shift);
        let sub_exp = self.bin(BinaryOp::Sub, Ty::U32, u(1), shift);
        let is_sub = self.cmp(CmpOp::Eq, Ty::U32, field, u(0));
        let sig = self.select(Ty::U32, is_sub, sub_sig, normal_sig);
        let exp = self.select(Ty::U32, is_sub, sub_exp, field);
        (sig, exp)
    }

    /// x · 2^64 for a finite f32 with |x| < 2^-60, exactly, without a subnormal: a normal x
    /// gets 64 more in its exponent field; a subnormal (or zero) x = m · 2^-149 becomes the
    /// exact float of m times 2^-85, with x's sign.
    fn f32_scale_up_64(&mut self, x: Operand) -> Operand {
        let u = FnLower::u32c;
        let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
        let normal = self.bin(BinaryOp::Add, Ty::U32, bits, u(64 << 23));
        let m = self.bin(BinaryOp::And, Ty::U32, bits, u(0x007f_ffff));
        let fm = self.convert(ConvertOp::UintToFloat, Ty::U32, Ty::F32, m);
        let scaled = self.value(Ty::F32, Expr::Binary { op: BinaryOp::FMul, ty: Ty::F32, lhs: fm, rhs: Operand::Const(Const::F32(2f32.powi(-85).to_bits())) });
        let scaled = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, scaled);
        let sign = self.bin(BinaryOp::And, Ty::U32, bits, u(0x8000_0000));
        let sub = self.bin(BinaryOp::Or, Ty::U32, scaled, sign);
        let e = self.bin(BinaryOp::And, Ty::U32, bits, u(0x7f80_0000));
        let is_sub = self.cmp(CmpOp::Eq, Ty::U32, e, u(0));
        let r = self.select(Ty::U32, is_sub, sub, normal);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r)
    }
}

/// The magnitude bits of `x` if it is an f32 constant.
fn f32_const_magnitude(x: Operand) -> Option<u32> {
    match x {
        Operand::Const(Const::F32(bits)) => Some(bits & 0x7fff_ffff),
        _ => None,
    }
}

/// Whether `m` is an f32 instruction this mode computes exactly on a flushing target (its
/// native operations then cannot change its result; `inst::subnormal_exemption`).
pub(super) fn covered(m: &Mods) -> bool {
    use crate::ptx_types::is_half;
    let types = m.types();
    let plain = |t: &ScalarType| !is_half(*t) && !matches!(t, ScalarType::Tf32) && !super::fp8::is_alternate(*t);
    let plain_or_half = |t: &ScalarType| plain(t) || matches!(t, ScalarType::F16 | ScalarType::Bf16);
    match m.inst.opcode.name.as_str() {
        "add" | "sub" | "mul" | "fma" | "mad" | "min" | "max" | "abs" | "neg" => types == [ScalarType::F32],
        "setp" | "set" => types.last() == Some(&ScalarType::F32),
        // Also a half to an integer: the half widens to f32 on the bits, and the rounding to
        // an integral value is exact in the mode (`FnLower::un`).
        "cvt" => {
            let half_to_int = |d: &ScalarType, s: &ScalarType| {
                crate::ptx_types::is_int(*d) && matches!(s, ScalarType::F16 | ScalarType::Bf16)
            };
            !m.has("pack") && matches!(types.as_slice(), [d, s] if (plain(d) && plain(s)) || half_to_int(d, s))
        }
        // The CAS loop's add (`atom.add.f32` on global memory flushes by the spec already).
        "atom" | "red" => m.has("add") && types == [ScalarType::F32],
        // Products and sums through this mode's exact add and mul (`FnLower::f32_rn`), halves
        // widened and f16 results rounded on the bits (`mma_element`, `wmma`'s accumulators).
        "mma" => types.iter().all(plain_or_half),
        "wmma" => m.has("mma") && types.iter().all(plain_or_half),
        // Sampling's sums and products through this mode's exact add and mul (`FnLower::f32_op`
        // in `texture`); the rest of it moves bits, converts integers or compares on the bits.
        "tex" => true,
        _ => false,
    }
}
