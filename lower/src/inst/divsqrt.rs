//! Correctly rounded f32 division, reciprocal and square root in every rounding mode
//! (spec §9.7.3.8 `div.rnd`, §9.7.3.9 `rcp.rnd`, §9.7.3.11 `sqrt.rnd`). Vulkan's and WGSL's
//! f32 division is only 2.5 ulp and their sqrt is not correctly rounded either, so:
//!
//! 1. an approximation q of the result comes from the target's f64 division / sqrt;
//! 2. c = q truncated to f32 is then off by a few f32 ulps at most from the true truncation
//!    (see `CORRECTION_STEPS`);
//! 3. the exact residual (a − c·b for division, a − c² for sqrt: products of two 24-bit
//!    significands are exact in f64, and so is the small difference) tells which way to move
//!    c by one ulp (repeated), and then — against the residual of the rounding boundary — whether the
//!    chosen mode rounds up.
//!
//! Where the target has no f64 (`FnLower::no_float64`), `divsqrt_u32` computes the same
//! results on 32-bit integers.
//!
//! All f32 → f64 widenings are done on the bits, so nothing depends on how the device treats
//! f32 subnormals.

use super::half::{Rounding, F32, F64};
use crate::function::FnLower;
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Operand, Ty, UnaryOp};
use super::half::Clamp;

/// What a division's operands say before any arithmetic: the magnitudes' bits, and whether
/// the result is NaN (NaN operand, 0/0, ∞/∞), infinite (∞/x, x/0) or zero (0/x, x/∞).
pub(super) struct DivCases {
    pub am: Operand,
    pub bm: Operand,
    pub nan: Operand,
    pub inf_case: Operand,
    pub zero_case: Operand,
    /// Any of the three.
    pub special: Operand,
}

/// Correction steps of one ulp each. Vulkan only promises double-precision division and
/// square root "at least as precise as single precision" (2.5 ulp of f32 for division), so
/// the truncated estimate may be up to three f32 ulps off; each step moves it one ulp closer.
const CORRECTION_STEPS: usize = 3;

impl FnLower {
    /// The exact f64 of the f32 whose bits are `b` (a `U32`), built from the bits.
    pub(super) fn f32_bits_to_f64(&mut self, b: Operand) -> Operand {
        let u = FnLower::u32c;
        let sign = self.bin(BinaryOp::And, Ty::U32, b, u(0x8000_0000));
        let sign = self.resize(sign, Ty::U32, Ty::U64, false);
        let sign = self.bin(BinaryOp::Shl, Ty::U64, sign, u(32));
        let e = self.bin(BinaryOp::ShrU, Ty::U32, b, u(23));
        let e = self.bin(BinaryOp::And, Ty::U32, e, u(0xff));
        let m = self.bin(BinaryOp::And, Ty::U32, b, u(0x7f_ffff));
        let m64 = self.resize(m, Ty::U32, Ty::U64, false);
        // Normal: rebias; inf/NaN: all-ones exponent (payload kept).
        let special = self.cmp(CmpOp::Eq, Ty::U32, e, u(0xff));
        let ne = self.bin(BinaryOp::Add, Ty::U32, e, u(1023 - 127));
        let ne = self.select(Ty::U32, special, u(0x7ff), ne);
        let ne = self.resize(ne, Ty::U32, Ty::U64, false);
        let ne = self.bin(BinaryOp::Shl, Ty::U64, ne, u(52));
        let nm = self.bin(BinaryOp::Shl, Ty::U64, m64, u(29));
        let normal = self.bin(BinaryOp::Or, Ty::U64, ne, nm);
        // Subnormal m · 2^-149 with its top bit at p: 2^(p-149) · 1.xxx.
        let lz = self.un(UnaryOp::CountLeadingZeros, Ty::U32, m);
        let p = self.bin(BinaryOp::Sub, Ty::U32, u(31), lz);
        let se = self.bin(BinaryOp::Add, Ty::U32, p, u(1023 - 149));
        let se = self.resize(se, Ty::U32, Ty::U64, false);
        let se = self.bin(BinaryOp::Shl, Ty::U64, se, u(52));
        let up = self.bin(BinaryOp::Sub, Ty::U32, u(52), p);
        let up = self.bin(BinaryOp::And, Ty::U32, up, u(63));
        let sm = self.bin(BinaryOp::Shl, Ty::U64, m64, up);
        let sm = self.bin(BinaryOp::And, Ty::U64, sm, FnLower::u64c((1 << 52) - 1));
        let sub = self.bin(BinaryOp::Or, Ty::U64, se, sm);
        let zero = self.cmp(CmpOp::Eq, Ty::U32, m, u(0));
        let sub = self.select(Ty::U64, zero, FnLower::u64c(0), sub);
        let is_sub = self.cmp(CmpOp::Eq, Ty::U32, e, u(0));
        let r = self.select(Ty::U64, is_sub, sub, normal);
        let r = self.bin(BinaryOp::Or, Ty::U64, r, sign);
        self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, r)
    }

    /// The size of one ulp of the non-negative finite f32 with bits `c`, as an f64.
    fn f32_ulp(&mut self, c: Operand) -> Operand {
        let e = self.bin(BinaryOp::ShrU, Ty::U32, c, FnLower::u32c(23));
        let e = self.bin(BinaryOp::MaxU, Ty::U32, e, FnLower::u32c(1));
        let e = self.bin(BinaryOp::Add, Ty::U32, e, FnLower::u32c(1023 - 150));
        let e = self.resize(e, Ty::U32, Ty::U64, false);
        let bits = self.bin(BinaryOp::Shl, Ty::U64, e, FnLower::u32c(52));
        self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, bits)
    }

    fn f64c(x: f64) -> Operand {
        Operand::Const(Const::F64(x.to_bits()))
    }

    /// f32 bits of the magnitude of an f64 approximation `q`, truncated.
    fn truncate_to_f32(&mut self, q: Operand) -> Operand {
        let qb = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, q);
        self.round_to_format(qb, F64, F32, Rounding::Zero, Clamp { satfinite: true, relu: false })
    }

    /// Whether a rounding of a result with sign `negative` moves an inexact magnitude up.
    pub(super) fn rounds_away(&mut self, mode: Rounding, negative: Operand) -> Operand {
        match mode {
            Rounding::Nearest | Rounding::Zero => Operand::Const(Const::Bool(mode == Rounding::Nearest)),
            Rounding::Up => self.un(UnaryOp::Not, Ty::Bool, negative),
            Rounding::Down => negative,
        }
    }

    /// The IEEE 754 special cases of a division of the float bits `ab` / `bb` (`ity`: U32 for
    /// f32, U64 for f64), and the operands' magnitudes.
    pub(super) fn div_cases(&mut self, ab: Operand, bb: Operand, ity: Ty) -> DivCases {
        let (abs_mask, inf) = if ity == Ty::U64 { (u64::MAX >> 1, 0x7ff0_0000_0000_0000) } else { (0x7fff_ffff, 0x7f80_0000) };
        let k = |v: u64| FnLower::int_const(ity, v);
        let am = self.bin(BinaryOp::And, ity, ab, k(abs_mask));
        let bm = self.bin(BinaryOp::And, ity, bb, k(abs_mask));
        let a_nan = self.cmp(CmpOp::GtU, ity, am, k(inf));
        let b_nan = self.cmp(CmpOp::GtU, ity, bm, k(inf));
        let a_inf = self.cmp(CmpOp::Eq, ity, am, k(inf));
        let b_inf = self.cmp(CmpOp::Eq, ity, bm, k(inf));
        let a_zero = self.cmp(CmpOp::Eq, ity, am, k(0));
        let b_zero = self.cmp(CmpOp::Eq, ity, bm, k(0));
        let or = |s: &mut Self, p: Operand, q: Operand| s.bin(BinaryOp::Or, Ty::Bool, p, q);
        let and = |s: &mut Self, p: Operand, q: Operand| s.bin(BinaryOp::And, Ty::Bool, p, q);
        let nan_in = or(self, a_nan, b_nan);
        let zz = and(self, a_zero, b_zero);
        let ii = and(self, a_inf, b_inf);
        let nan = or(self, nan_in, zz);
        let nan = or(self, nan, ii);
        let inf_case = or(self, a_inf, b_zero);
        let zero_case = or(self, a_zero, b_inf);
        let special = or(self, inf_case, zero_case);
        let special = or(self, special, nan);
        DivCases { am, bm, nan, inf_case, zero_case, special }
    }

    /// Correctly rounded `a / b` of two f32 (IEEE 754 special cases included; NaN results are
    /// the canonical NaN, single precision's "unspecified NaN").
    /// (Emitted once per kernel as a function, see `FnLower::outlined`.)
    pub fn f32_div_rounded(&mut self, a: Operand, b: Operand, mode: Rounding) -> Operand {
        self.outlined(&format!("f32_div_{mode:?}"), &[a, b], &[Ty::F32, Ty::F32], Ty::F32, |s, x| s.f32_div_rounded_inline(x[0], x[1], mode))
    }

    fn f32_div_rounded_inline(&mut self, a: Operand, b: Operand, mode: Rounding) -> Operand {
        let u = FnLower::u32c;
        let ab = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, a);
        let bb = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, b);
        let x = self.bin(BinaryOp::Xor, Ty::U32, ab, bb);
        let sign = self.bin(BinaryOp::And, Ty::U32, x, u(0x8000_0000));
        let negative = self.cmp(CmpOp::Ne, Ty::U32, sign, u(0));
        let inf = u(0x7f80_0000);
        let DivCases { am, bm, nan, inf_case, zero_case, special } = self.div_cases(ab, bb, Ty::U32);
        let or = |s: &mut Self, p: Operand, q: Operand| s.bin(BinaryOp::Or, Ty::Bool, p, q);
        let and = |s: &mut Self, p: Operand, q: Operand| s.bin(BinaryOp::And, Ty::Bool, p, q);
        let am = self.select(Ty::U32, special, u(0x3f80_0000), am);
        let bm = self.select(Ty::U32, special, u(0x3f80_0000), bm);
        if self.no_float64 {
            let res = self.f32_div_on_integers(am, bm, sign, negative, mode);
            let inf_bits = self.bin(BinaryOp::Or, Ty::U32, sign, inf);
            let res = self.select(Ty::U32, zero_case, sign, res);
            let res = self.select(Ty::U32, inf_case, inf_bits, res);
            let res = self.select(Ty::U32, nan, u(0x7fff_ffff), res);
            return self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, res);
        }
        let aw = self.f32_bits_to_f64(am);
        let bw = self.f32_bits_to_f64(bm);
        let q = self.bin(BinaryOp::FDiv, Ty::F64, aw, bw);
        let c = self.truncate_to_f32(q);
        // One step to the true truncation: residual a − c·b, exact.
        let residual = |s: &mut Self, c: Operand| {
            let cw = s.f32_bits_to_f64(c);
            let p = s.bin(BinaryOp::FMul, Ty::F64, cw, bw);
            s.bin(BinaryOp::FSub, Ty::F64, aw, p)
        };
        let mut c = c;
        for _ in 0..CORRECTION_STEPS {
            let r = residual(self, c);
            let ulp = self.f32_ulp(c);
            let ub = self.bin(BinaryOp::FMul, Ty::F64, ulp, bw);
            let too_big = self.cmp(CmpOp::FLt, Ty::F64, r, Self::f64c(0.0));
            let too_small = self.cmp(CmpOp::FGe, Ty::F64, r, ub);
            let down = self.bin(BinaryOp::Sub, Ty::U32, c, u(1));
            let upc = self.bin(BinaryOp::Add, Ty::U32, c, u(1));
            let upc = self.bin(BinaryOp::MinU, Ty::U32, upc, inf);
            let next = self.select(Ty::U32, too_small, upc, c);
            c = self.select(Ty::U32, too_big, down, next);
        }
        let overflow = self.cmp(CmpOp::GeU, Ty::U32, c, inf);
        let safe_c = self.select(Ty::U32, overflow, u(0x7f7f_ffff), c);
        let r = residual(self, safe_c);
        let ulp = self.f32_ulp(safe_c);
        let ub = self.bin(BinaryOp::FMul, Ty::F64, ulp, bw);
        let inexact = self.cmp(CmpOp::FNe, Ty::F64, r, Self::f64c(0.0));
        let up = match mode {
            Rounding::Nearest => {
                let r2 = self.bin(BinaryOp::FAdd, Ty::F64, r, r);
                let above = self.cmp(CmpOp::FGt, Ty::F64, r2, ub);
                let tie = self.cmp(CmpOp::FEq, Ty::F64, r2, ub);
                let lsb = self.bin(BinaryOp::And, Ty::U32, safe_c, u(1));
                let odd = self.cmp(CmpOp::Ne, Ty::U32, lsb, u(0));
                let tie_odd = and(self, tie, odd);
                or(self, above, tie_odd)
            }
            Rounding::Zero => Operand::Const(Const::Bool(false)),
            _ => {
                let away = self.rounds_away(mode, negative);
                and(self, inexact, away)
            }
        };
        let c1 = self.bin(BinaryOp::Add, Ty::U32, safe_c, u(1));
        let mag = self.select(Ty::U32, up, c1, safe_c);
        // Beyond the largest finite (before or after rounding): infinity or the largest
        // finite, by the direction.
        let away = self.rounds_away(mode, negative);
        let big = self.select(Ty::U32, away, inf, u(0x7f7f_ffff));
        let mag = self.select(Ty::U32, overflow, big, mag);
        let res = self.bin(BinaryOp::Or, Ty::U32, mag, sign);
        let inf_bits = self.bin(BinaryOp::Or, Ty::U32, sign, inf);
        let res = self.select(Ty::U32, zero_case, sign, res);
        let res = self.select(Ty::U32, inf_case, inf_bits, res);
        let res = self.select(Ty::U32, nan, u(0x7fff_ffff), res);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, res)
    }

    /// Correctly rounded square root of an f32 (NaN for negative operands and NaN; ±0 and
    /// +inf are their own roots).
    /// (Emitted once per kernel as a function, see `FnLower::outlined`.)
    pub fn f32_sqrt_rounded(&mut self, a: Operand, mode: Rounding) -> Operand {
        self.outlined(&format!("f32_sqrt_{mode:?}"), &[a], &[Ty::F32], Ty::F32, |s, x| s.f32_sqrt_rounded_inline(x[0], mode))
    }

    fn f32_sqrt_rounded_inline(&mut self, a: Operand, mode: Rounding) -> Operand {
        let u = FnLower::u32c;
        let ab = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, a);
        let am = self.bin(BinaryOp::And, Ty::U32, ab, u(0x7fff_ffff));
        let zero = self.cmp(CmpOp::Eq, Ty::U32, am, u(0));
        let pinf = self.cmp(CmpOp::Eq, Ty::U32, ab, u(0x7f80_0000));
        let neg_or_nan = self.cmp(CmpOp::GtU, Ty::U32, ab, u(0x7f80_0000));
        let special = self.bin(BinaryOp::Or, Ty::Bool, zero, pinf);
        let special = self.bin(BinaryOp::Or, Ty::Bool, special, neg_or_nan);
        let am = self.select(Ty::U32, special, u(0x3f80_0000), am);
        if self.no_float64 {
            let res = self.f32_sqrt_on_integers(am, mode);
            return self.sqrt_specials(ab, zero, pinf, neg_or_nan, res);
        }
        let aw = self.f32_bits_to_f64(am);
        let q = self.un(UnaryOp::FSqrt, Ty::F64, aw);
        let c = self.truncate_to_f32(q);
        let residual = |s: &mut Self, c: Operand| {
            let cw = s.f32_bits_to_f64(c);
            let p = s.bin(BinaryOp::FMul, Ty::F64, cw, cw);
            s.bin(BinaryOp::FSub, Ty::F64, aw, p)
        };
        let mut c = c;
        for _ in 0..CORRECTION_STEPS {
            let r = residual(self, c);
            let upc = self.bin(BinaryOp::Add, Ty::U32, c, u(1));
            let r_next = residual(self, upc);
            let too_big = self.cmp(CmpOp::FLt, Ty::F64, r, Self::f64c(0.0));
            let too_small = self.cmp(CmpOp::FGe, Ty::F64, r_next, Self::f64c(0.0));
            let down = self.bin(BinaryOp::Sub, Ty::U32, c, u(1));
            let next = self.select(Ty::U32, too_small, upc, c);
            c = self.select(Ty::U32, too_big, down, next);
        }
        let up = match mode {
            Rounding::Nearest => {
                // Above the midpoint c + ulp/2 (never exactly on it: a square root of an f32
                // is never a midpoint).
                let cw = self.f32_bits_to_f64(c);
                let ulp = self.f32_ulp(c);
                let half = self.bin(BinaryOp::FMul, Ty::F64, ulp, Self::f64c(0.5));
                let mid = self.bin(BinaryOp::FAdd, Ty::F64, cw, half);
                let m2 = self.bin(BinaryOp::FMul, Ty::F64, mid, mid);
                let d = self.bin(BinaryOp::FSub, Ty::F64, aw, m2);
                self.cmp(CmpOp::FGt, Ty::F64, d, Self::f64c(0.0))
            }
            Rounding::Up => {
                let r = residual(self, c);
                self.cmp(CmpOp::FNe, Ty::F64, r, Self::f64c(0.0))
            }
            _ => Operand::Const(Const::Bool(false)),
        };
        let c1 = self.bin(BinaryOp::Add, Ty::U32, c, u(1));
        let res = self.select(Ty::U32, up, c1, c);
        self.sqrt_specials(ab, zero, pinf, neg_or_nan, res)
    }

    /// The square root's special cases over the root `res` of a positive finite operand.
    fn sqrt_specials(&mut self, ab: Operand, zero: Operand, pinf: Operand, neg_or_nan: Operand, res: Operand) -> Operand {
        // −0 has its sign bit set but is its own root: the zero test comes after.
        let res = self.select(Ty::U32, neg_or_nan, FnLower::u32c(0x7fff_ffff), res);
        let res = self.select(Ty::U32, zero, ab, res);
        let res = self.select(Ty::U32, pinf, ab, res);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, res)
    }
}
