//! Correctly rounded f64 division, reciprocal and square root in every rounding mode (spec
//! §9.7.3.8 `div.rnd.f64`, §9.7.3.9 `rcp.rnd.f64`, §9.7.3.11 `sqrt.rnd.f64`), computed on the
//! integer significands: Vulkan promises f64 division and square root only at single precision
//! and WGSL not even that, so no float operation of the target is used at all (which also makes
//! the result independent of whether the device keeps f64 subnormals).
//!
//! - Division: the 53-bit significands (subnormals normalized first) are divided by long
//!   division in 64-bit integers, 11 quotient bits per step (the remainder stays below the
//!   divisor < 2^53, so remainder · 2^11 fits), giving 56 quotient bits and a sticky remainder.
//! - Square root: the digit-by-digit (restoring) method on the significand scaled to an even
//!   exponent, 56 result bits and a sticky remainder, unrolled (a loop would spend the
//!   iteration budget of drivers that cut long loops, see `loop_cut`).
//! - Both round the 56 bits (3 below the 53-bit significand, plus the sticky bit) once, in the
//!   instruction's mode, to a normal or subnormal f64 or to the overflow value of the mode.

use super::half::Rounding;
use crate::function::FnLower;
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Operand, Ty, UnaryOp};

const SIGN: u64 = 1 << 63;
const EXP_MASK: u64 = 0x7ff0_0000_0000_0000;
const FRAC_MASK: u64 = (1 << 52) - 1;
const HIDDEN: u64 = 1 << 52;
/// The NaN these operations produce ("unspecified NaN" in the spec; PTX's canonical one).
const NAN: u64 = 0x7fff_ffff_ffff_ffff;
/// Result bits below the 53-bit significand before rounding.
const GUARD_BITS: u32 = 3;

impl FnLower {
    fn and64(&mut self, a: Operand, b: u64) -> Operand {
        self.bin(BinaryOp::And, Ty::U64, a, FnLower::u64c(b))
    }

    /// The significand (in [2^52, 2^53)) and the exponent (biased; below 1 for subnormals, as a
    /// wrapping `U32`) of a finite nonzero f64 magnitude `m` (`U64` bits).
    fn f64_unpack(&mut self, m: Operand) -> (Operand, Operand) {
        let u = FnLower::u32c;
        let field = self.bin(BinaryOp::ShrU, Ty::U64, m, u(52));
        let field = self.resize(field, Ty::U64, Ty::U32, false);
        let frac = self.and64(m, FRAC_MASK);
        let normal_sig = self.bin(BinaryOp::Or, Ty::U64, frac, FnLower::u64c(HIDDEN));
        // Subnormal: shift the leading one up to bit 52; the exponent goes below 1 as much.
        let lz = self.un(UnaryOp::CountLeadingZeros, Ty::U64, frac);
        let shift = self.bin(BinaryOp::Sub, Ty::U32, lz, u(11));
        let shift = self.bin(BinaryOp::And, Ty::U32, shift, u(63));
        let sub_sig = self.bin(BinaryOp::Shl, Ty::U64, frac, shift);
        let sub_exp = self.bin(BinaryOp::Sub, Ty::U32, u(1), shift);
        let is_sub = self.cmp(CmpOp::Eq, Ty::U32, field, u(0));
        let sig = self.select(Ty::U64, is_sub, sub_sig, normal_sig);
        let exp = self.select(Ty::U32, is_sub, sub_exp, field);
        (sig, exp)
    }

    /// Whether rounding away from zero is the direction of `mode` for a result of sign
    /// `negative` (directed modes; nearest decides on the bits).
    fn away_from_zero(mode: Rounding, negative: Operand, s: &mut Self) -> Operand {
        match mode {
            Rounding::Nearest => Operand::Const(Const::Bool(true)),
            Rounding::Zero => Operand::Const(Const::Bool(false)),
            Rounding::Up => s.un(UnaryOp::Not, Ty::Bool, negative),
            Rounding::Down => negative,
        }
    }

    /// Rounds `sig · 2^(exp − 1023 − 52 − GUARD_BITS)` (plus a nonzero tail below it when `sticky`),
    /// with `sig` in [2^55, 2^56) and `exp` a biased exponent (wrapping `U32`, any sign), to
    /// f64 bits in `mode`, sign bit from `sign` (`U64`). Subnormal results are denormalized
    /// before the one rounding; overflow gives infinity or the largest finite by the mode.
    fn f64_round_pack(&mut self, sig: Operand, exp: Operand, sticky: Operand, sign: Operand, mode: Rounding) -> Operand {
        let u = FnLower::u32c;
        let negative = self.cmp(CmpOp::Ne, Ty::U64, sign, FnLower::u64c(0));
        // Bits to drop: the guard bits, plus 1 − exp more for a subnormal result (at most 63:
        // everything then goes into the sticky part).
        let below = self.bin(BinaryOp::Sub, Ty::U32, u(1), exp);
        let below = self.bin(BinaryOp::MaxS, Ty::U32, below, u(0));
        let drop = self.bin(BinaryOp::MinU, Ty::U32, below, u(63 - GUARD_BITS));
        let drop = self.bin(BinaryOp::Add, Ty::U32, drop, u(GUARD_BITS));
        let kept = self.bin(BinaryOp::ShrU, Ty::U64, sig, drop);
        let back = self.bin(BinaryOp::Shl, Ty::U64, kept, drop);
        let lost = self.bin(BinaryOp::Sub, Ty::U64, sig, back);
        let lost_any = self.cmp(CmpOp::Ne, Ty::U64, lost, FnLower::u64c(0));
        let inexact = self.bin(BinaryOp::Or, Ty::Bool, lost_any, sticky);
        let up = match mode {
            Rounding::Nearest => {
                let h = self.bin(BinaryOp::Sub, Ty::U32, drop, u(1));
                let half = self.bin(BinaryOp::Shl, Ty::U64, FnLower::u64c(1), h);
                let above = self.cmp(CmpOp::GtU, Ty::U64, lost, half);
                let at = self.cmp(CmpOp::Eq, Ty::U64, lost, half);
                let odd = self.and64(kept, 1);
                let odd = self.cmp(CmpOp::Ne, Ty::U64, odd, FnLower::u64c(0));
                let tie_up = self.bin(BinaryOp::Or, Ty::Bool, sticky, odd);
                let tie_up = self.bin(BinaryOp::And, Ty::Bool, at, tie_up);
                self.bin(BinaryOp::Or, Ty::Bool, above, tie_up)
            }
            _ => {
                let away = Self::away_from_zero(mode, negative, self);
                self.bin(BinaryOp::And, Ty::Bool, inexact, away)
            }
        };
        let one = self.select(Ty::U64, up, FnLower::u64c(1), FnLower::u64c(0));
        let kept = self.bin(BinaryOp::Add, Ty::U64, kept, one);
        // A normal result: exponent field exp − 1 plus the hidden bit (a carry out of the
        // significand moves into the exponent); a subnormal one: the kept bits alone (a carry
        // makes it the least normal).
        let field = self.bin(BinaryOp::MaxS, Ty::U32, exp, u(1));
        let field = self.bin(BinaryOp::Sub, Ty::U32, field, u(1));
        let field = self.bin(BinaryOp::MinU, Ty::U32, field, u(2047));
        let field = self.resize(field, Ty::U32, Ty::U64, false);
        let base = self.bin(BinaryOp::Shl, Ty::U64, field, u(52));
        let bits = self.bin(BinaryOp::Add, Ty::U64, base, kept);
        let huge = self.cmp(CmpOp::GtS, Ty::U32, exp, u(2046));
        let carried = self.cmp(CmpOp::GeU, Ty::U64, bits, FnLower::u64c(EXP_MASK));
        let overflow = self.bin(BinaryOp::Or, Ty::Bool, huge, carried);
        let away = Self::away_from_zero(mode, negative, self);
        let big = self.select(Ty::U64, away, FnLower::u64c(EXP_MASK), FnLower::u64c(EXP_MASK - 1));
        let bits = self.select(Ty::U64, overflow, big, bits);
        self.bin(BinaryOp::Or, Ty::U64, bits, sign)
    }

    /// Correctly rounded `a / b` of two f64 (IEEE 754 special cases; NaN results are
    /// the canonical NaN).
    pub fn f64_div_rounded(&mut self, a: Operand, b: Operand, mode: Rounding) -> Operand {
        let u = FnLower::u32c;
        let c = FnLower::u64c;
        let ab = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, a);
        let bb = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, b);
        let x = self.bin(BinaryOp::Xor, Ty::U64, ab, bb);
        let sign = self.and64(x, SIGN);
        let super::divsqrt::DivCases { am, bm, nan, inf_case, zero_case, special } = self.div_cases(ab, bb, Ty::U64);
        // Finite nonzero operands from here (1.0 stands in for the special cases).
        let am = self.select(Ty::U64, special, c(1f64.to_bits()), am);
        let bm = self.select(Ty::U64, special, c(1f64.to_bits()), bm);
        let (ma, ea) = self.f64_unpack(am);
        let (mb, eb) = self.f64_unpack(bm);
        // ma/mb in [1, 2) after doubling ma when it is the smaller.
        let smaller = self.cmp(CmpOp::LtU, Ty::U64, ma, mb);
        let ma2 = self.bin(BinaryOp::Shl, Ty::U64, ma, u(1));
        let ma = self.select(Ty::U64, smaller, ma2, ma);
        let exp = self.bin(BinaryOp::Sub, Ty::U32, ea, eb);
        let exp = self.bin(BinaryOp::Add, Ty::U32, exp, u(1023));
        let dec = self.select(Ty::U32, smaller, u(1), u(0));
        let exp = self.bin(BinaryOp::Sub, Ty::U32, exp, dec);
        // Long division: the leading quotient bit is 1, then 5 × 11 bits (56 in all).
        let mut q = c(1);
        let mut r = self.bin(BinaryOp::Sub, Ty::U64, ma, mb);
        for _ in 0..5 {
            let r11 = self.bin(BinaryOp::Shl, Ty::U64, r, u(11));
            let d = self.bin(BinaryOp::DivU, Ty::U64, r11, mb);
            let dm = self.bin(BinaryOp::Mul, Ty::U64, d, mb);
            r = self.bin(BinaryOp::Sub, Ty::U64, r11, dm);
            let qs = self.bin(BinaryOp::Shl, Ty::U64, q, u(11));
            q = self.bin(BinaryOp::Or, Ty::U64, qs, d);
        }
        let sticky = self.cmp(CmpOp::Ne, Ty::U64, r, c(0));
        let res = self.f64_round_pack(q, exp, sticky, sign, mode);
        let inf_bits = self.bin(BinaryOp::Or, Ty::U64, sign, c(EXP_MASK));
        let res = self.select(Ty::U64, zero_case, sign, res);
        let res = self.select(Ty::U64, inf_case, inf_bits, res);
        let res = self.select(Ty::U64, nan, c(NAN), res);
        self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, res)
    }

    /// Correctly rounded square root of an f64 (NaN for negative operands and NaN; ±0 and
    /// +inf are their own roots).
    pub fn f64_sqrt_rounded(&mut self, a: Operand, mode: Rounding) -> Operand {
        let u = FnLower::u32c;
        let c = FnLower::u64c;
        let ab = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, a);
        let am = self.and64(ab, !SIGN);
        let zero = self.cmp(CmpOp::Eq, Ty::U64, am, c(0));
        let pinf = self.cmp(CmpOp::Eq, Ty::U64, ab, c(EXP_MASK));
        let neg_or_nan = self.cmp(CmpOp::GtU, Ty::U64, ab, c(EXP_MASK));
        let special = self.bin(BinaryOp::Or, Ty::Bool, zero, pinf);
        let special = self.bin(BinaryOp::Or, Ty::Bool, special, neg_or_nan);
        let am = self.select(Ty::U64, special, c(1f64.to_bits()), am);
        let (sig, e) = self.f64_unpack(am);
        // a = sig · 2^(e − 1023 − 52): make the unbiased exponent even (m then in [2^52, 2^54));
        // √a = √(m · 2^58) · 2^((e − 1023 − 110)/2), and √(m · 2^58) lies in [2^55, 2^56).
        let unbiased = self.bin(BinaryOp::Sub, Ty::U32, e, u(1023));
        let odd = self.bin(BinaryOp::And, Ty::U32, unbiased, u(1));
        let m = self.bin(BinaryOp::Shl, Ty::U64, sig, odd);
        let even = self.bin(BinaryOp::Sub, Ty::U32, unbiased, odd);
        let half = self.bin(BinaryOp::ShrS, Ty::U32, even, u(1));
        let exp = self.bin(BinaryOp::Add, Ty::U32, half, u(1023));
        // Digit by digit over the 112 bits of m · 2^58, two at a time (the last 29 pairs are 0).
        let mut q = c(0);
        let mut r = c(0);
        for i in 0..56u32 {
            let r4 = self.bin(BinaryOp::Shl, Ty::U64, r, u(2));
            let r4 = if i <= 26 {
                let pair = self.bin(BinaryOp::ShrU, Ty::U64, m, u(52 - 2 * i));
                let pair = self.and64(pair, 3);
                self.bin(BinaryOp::Or, Ty::U64, r4, pair)
            } else {
                r4
            };
            let q4 = self.bin(BinaryOp::Shl, Ty::U64, q, u(2));
            let t = self.bin(BinaryOp::Or, Ty::U64, q4, c(1));
            let fits = self.cmp(CmpOp::GeU, Ty::U64, r4, t);
            let rt = self.bin(BinaryOp::Sub, Ty::U64, r4, t);
            r = self.select(Ty::U64, fits, rt, r4);
            let bit = self.select(Ty::U64, fits, c(1), c(0));
            let q2 = self.bin(BinaryOp::Shl, Ty::U64, q, u(1));
            q = self.bin(BinaryOp::Or, Ty::U64, q2, bit);
        }
        let sticky = self.cmp(CmpOp::Ne, Ty::U64, r, c(0));
        let res = self.f64_round_pack(q, exp, sticky, c(0), mode);
        // −0 has its sign bit set but is its own root: the zero test comes after.
        let res = self.select(Ty::U64, neg_or_nan, c(NAN), res);
        let res = self.select(Ty::U64, zero, ab, res);
        let res = self.select(Ty::U64, pinf, ab, res);
        self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, res)
    }
}
