//! Correctly rounded f64 fused multiply-add, division, reciprocal and square root in every
//! rounding mode (spec §9.7.3.5 `fma.rnd.f64`, §9.7.3.8 `div.rnd.f64`, §9.7.3.9 `rcp.rnd.f64`,
//! §9.7.3.11 `sqrt.rnd.f64`), computed on the integer significands: Vulkan and WebGPU let `fma`
//! be unfused (lavapipe's is), promise f64 division and square root only at single precision
//! (WGSL not even that), and let a device flush subnormals, so no float operation of the target
//! is used at all.
//!
//! - Multiply-add: the 106-bit product of the significands is exact in 128 bits; the addend is
//!   aligned to it (the operand of lower weight shifted right, the bits shifted out ORed into
//!   the lowest bit), added or subtracted, and normalized.
//! - Division: the 53-bit significands (subnormals normalized first) are divided by long
//!   division in 64-bit integers, 11 quotient bits per step (the remainder stays below the
//!   divisor < 2^53, so remainder · 2^11 fits), giving 56 quotient bits and a sticky remainder.
//! - Square root: the digit-by-digit (restoring) method on the significand scaled to an even
//!   exponent, 56 result bits and a sticky remainder, unrolled (a loop would spend the
//!   iteration budget of drivers that cut long loops, see `loop_cut`).
//! - Each rounds its 56 bits (3 below the 53-bit significand, plus the sticky bit) once, in the
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
    /// (Emitted once per kernel as a function, see `FnLower::outlined`.)
    pub fn f64_div_rounded(&mut self, a: Operand, b: Operand, mode: Rounding) -> Operand {
        self.outlined(&format!("f64_div_{mode:?}"), &[a, b], &[Ty::F64, Ty::F64], Ty::F64, |s, x| s.f64_div_rounded_inline(x[0], x[1], mode))
    }

    fn f64_div_rounded_inline(&mut self, a: Operand, b: Operand, mode: Rounding) -> Operand {
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
    /// (Emitted once per kernel as a function, see `FnLower::outlined`.)
    pub fn f64_sqrt_rounded(&mut self, a: Operand, mode: Rounding) -> Operand {
        self.outlined(&format!("f64_sqrt_{mode:?}"), &[a], &[Ty::F64], Ty::F64, |s, x| s.f64_sqrt_rounded_inline(x[0], mode))
    }

    fn f64_sqrt_rounded_inline(&mut self, a: Operand, mode: Rounding) -> Operand {
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
        let (q, r) = self.sqrt_digits(Ty::U64, m, 27, 56);
        let sticky = self.cmp(CmpOp::Ne, Ty::U64, r, c(0));
        let res = self.f64_round_pack(q, exp, sticky, c(0), mode);
        // −0 has its sign bit set but is its own root: the zero test comes after.
        let res = self.select(Ty::U64, neg_or_nan, c(NAN), res);
        let res = self.select(Ty::U64, zero, ab, res);
        let res = self.select(Ty::U64, pinf, ab, res);
        self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, res)
    }
}

/// A 128-bit unsigned integer as two `U64` halves.
#[derive(Clone, Copy)]
struct U128 {
    hi: Operand,
    lo: Operand,
}

impl FnLower {
    fn add128(&mut self, x: U128, y: U128) -> U128 {
        let lo = self.bin(BinaryOp::Add, Ty::U64, x.lo, y.lo);
        let carry = self.cmp(CmpOp::LtU, Ty::U64, lo, x.lo);
        let carry = self.select(Ty::U64, carry, FnLower::u64c(1), FnLower::u64c(0));
        let hi = self.bin(BinaryOp::Add, Ty::U64, x.hi, y.hi);
        let hi = self.bin(BinaryOp::Add, Ty::U64, hi, carry);
        U128 { hi, lo }
    }

    fn sub128(&mut self, x: U128, y: U128) -> U128 {
        let lo = self.bin(BinaryOp::Sub, Ty::U64, x.lo, y.lo);
        let borrow = self.cmp(CmpOp::LtU, Ty::U64, x.lo, y.lo);
        let borrow = self.select(Ty::U64, borrow, FnLower::u64c(1), FnLower::u64c(0));
        let hi = self.bin(BinaryOp::Sub, Ty::U64, x.hi, y.hi);
        let hi = self.bin(BinaryOp::Sub, Ty::U64, hi, borrow);
        U128 { hi, lo }
    }

    fn lt128(&mut self, x: U128, y: U128) -> Operand {
        let hi_lt = self.cmp(CmpOp::LtU, Ty::U64, x.hi, y.hi);
        let hi_eq = self.cmp(CmpOp::Eq, Ty::U64, x.hi, y.hi);
        let lo_lt = self.cmp(CmpOp::LtU, Ty::U64, x.lo, y.lo);
        let both = self.bin(BinaryOp::And, Ty::Bool, hi_eq, lo_lt);
        self.bin(BinaryOp::Or, Ty::Bool, hi_lt, both)
    }

    fn select128(&mut self, cond: Operand, x: U128, y: U128) -> U128 {
        U128 { hi: self.select(Ty::U64, cond, x.hi, y.hi), lo: self.select(Ty::U64, cond, x.lo, y.lo) }
    }

    /// `x << n` for `n` in 0..64 (a `U32`), bits shifted out of the top dropped.
    fn shl128_small(&mut self, x: U128, n: Operand) -> U128 {
        let u = FnLower::u32c;
        let hi = self.bin(BinaryOp::Shl, Ty::U64, x.hi, n);
        let back = self.bin(BinaryOp::Sub, Ty::U32, u(64), n);
        let back = self.bin(BinaryOp::And, Ty::U32, back, u(63));
        let spill = self.bin(BinaryOp::ShrU, Ty::U64, x.lo, back);
        let zero = self.cmp(CmpOp::Eq, Ty::U32, n, u(0));
        let spill = self.select(Ty::U64, zero, FnLower::u64c(0), spill);
        let hi = self.bin(BinaryOp::Or, Ty::U64, hi, spill);
        let lo = self.bin(BinaryOp::Shl, Ty::U64, x.lo, n);
        U128 { hi, lo }
    }

    /// `x >> n` for any `n` (a `U32`), with every bit shifted out ORed into bit 0 ("jamming":
    /// the result is then inexact exactly when `x` was not a multiple of 2^n).
    fn shr128_jam(&mut self, x: U128, n: Operand) -> U128 {
        let u = FnLower::u32c;
        let c = FnLower::u64c;
        let small = self.cmp(CmpOp::LtU, Ty::U32, n, u(64));
        let n63 = self.bin(BinaryOp::And, Ty::U32, n, u(63));
        // n < 64.
        let lo = self.bin(BinaryOp::ShrU, Ty::U64, x.lo, n63);
        let back = self.bin(BinaryOp::Sub, Ty::U32, u(64), n63);
        let back = self.bin(BinaryOp::And, Ty::U32, back, u(63));
        let down = self.bin(BinaryOp::Shl, Ty::U64, x.hi, back);
        let zero = self.cmp(CmpOp::Eq, Ty::U32, n63, u(0));
        let down = self.select(Ty::U64, zero, c(0), down);
        let lo_small = self.bin(BinaryOp::Or, Ty::U64, lo, down);
        let hi_small = self.bin(BinaryOp::ShrU, Ty::U64, x.hi, n63);
        let kept = self.bin(BinaryOp::Shl, Ty::U64, lo, n63);
        let lost_small = self.cmp(CmpOp::Ne, Ty::U64, kept, x.lo);
        // 64 <= n < 128 (n63 = n − 64), and n >= 128.
        let lo_big = self.bin(BinaryOp::ShrU, Ty::U64, x.hi, n63);
        let kept_hi = self.bin(BinaryOp::Shl, Ty::U64, lo_big, n63);
        let lost_hi = self.cmp(CmpOp::Ne, Ty::U64, kept_hi, x.hi);
        let lost_lo = self.cmp(CmpOp::Ne, Ty::U64, x.lo, c(0));
        let lost_big = self.bin(BinaryOp::Or, Ty::Bool, lost_hi, lost_lo);
        let huge = self.cmp(CmpOp::GeU, Ty::U32, n, u(128));
        let lo_big = self.select(Ty::U64, huge, c(0), lo_big);
        let any_hi = self.cmp(CmpOp::Ne, Ty::U64, x.hi, c(0));
        let lost_huge = self.bin(BinaryOp::Or, Ty::Bool, any_hi, lost_lo);
        let lost_big = self.select(Ty::Bool, huge, lost_huge, lost_big);
        let hi = self.select(Ty::U64, small, hi_small, c(0));
        let lo = self.select(Ty::U64, small, lo_small, lo_big);
        let lost = self.select(Ty::Bool, small, lost_small, lost_big);
        let jam = self.select(Ty::U64, lost, c(1), c(0));
        let lo = self.bin(BinaryOp::Or, Ty::U64, lo, jam);
        U128 { hi, lo }
    }

    /// Correctly rounded `a·b + c` of three f64 (one rounding, in `mode`; IEEE 754 special cases;
    /// NaN results are the canonical NaN). The product of the 53-bit significands is exact in
    /// 128 bits; both addends, 20 bits above their lowest, are aligned by shifting the one of
    /// lower weight right with jamming, added or subtracted, normalized and rounded once.
    /// (Emitted once per kernel as a function, see `FnLower::outlined`.)
    pub fn f64_fma_rounded(&mut self, a: Operand, b: Operand, c: Operand, mode: Rounding) -> Operand {
        self.outlined(&format!("f64_fma_{mode:?}"), &[a, b, c], &[Ty::F64, Ty::F64, Ty::F64], Ty::F64, |s, x| s.f64_fma_rounded_inline(x[0], x[1], x[2], mode))
    }

    fn f64_fma_rounded_inline(&mut self, a: Operand, b: Operand, c: Operand, mode: Rounding) -> Operand {
        let bits = |s: &mut Self, x: Operand| s.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, x);
        let (ab, bb, cb) = (bits(self, a), bits(self, b), bits(self, c));
        let res = self.f64_fma_bits(ab, bb, cb, mode);
        self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, res)
    }

    /// [`FnLower::f64_fma_rounded`] on the operands' bits (`U64`), giving the result's bits:
    /// integer operations only.
    fn f64_fma_bits(&mut self, ab: Operand, bb: Operand, cb: Operand, mode: Rounding) -> Operand {
        let u = FnLower::u32c;
        let k = FnLower::u64c;
        let (am, bm, cm) = (self.and64(ab, !SIGN), self.and64(bb, !SIGN), self.and64(cb, !SIGN));
        let test = |s: &mut Self, op: CmpOp, v: Operand, x: u64| s.cmp(op, Ty::U64, v, FnLower::u64c(x));
        let or = |s: &mut Self, p: Operand, q: Operand| s.bin(BinaryOp::Or, Ty::Bool, p, q);
        let and = |s: &mut Self, p: Operand, q: Operand| s.bin(BinaryOp::And, Ty::Bool, p, q);
        let (a_nan, b_nan, c_nan) = (test(self, CmpOp::GtU, am, EXP_MASK), test(self, CmpOp::GtU, bm, EXP_MASK), test(self, CmpOp::GtU, cm, EXP_MASK));
        let (a_inf, b_inf, c_inf) = (test(self, CmpOp::Eq, am, EXP_MASK), test(self, CmpOp::Eq, bm, EXP_MASK), test(self, CmpOp::Eq, cm, EXP_MASK));
        let (a_zero, b_zero, c_zero) = (test(self, CmpOp::Eq, am, 0), test(self, CmpOp::Eq, bm, 0), test(self, CmpOp::Eq, cm, 0));
        let sp = self.bin(BinaryOp::Xor, Ty::U64, ab, bb);
        let sp = self.and64(sp, SIGN);
        let sc = self.and64(cb, SIGN);
        let opposite = self.cmp(CmpOp::Ne, Ty::U64, sp, sc);
        // Special cases: NaN in, ∞·0, ∞ − ∞; an infinite product; an infinite c; a zero product.
        let p_inf = or(self, a_inf, b_inf);
        let p_zero = or(self, a_zero, b_zero);
        let inf_zero = and(self, p_inf, p_zero);
        let inf_inf = and(self, p_inf, c_inf);
        let inf_inf = and(self, inf_inf, opposite);
        let nan = or(self, a_nan, b_nan);
        let nan = or(self, nan, c_nan);
        let nan = or(self, nan, inf_zero);
        let nan = or(self, nan, inf_inf);
        let p_special = or(self, p_inf, p_zero);
        let special = or(self, p_special, c_inf);
        let special = or(self, special, nan);
        let one = k(1f64.to_bits());
        let am = self.select(Ty::U64, special, one, am);
        let bm = self.select(Ty::U64, special, one, bm);
        let cm = self.select(Ty::U64, special, one, cm);
        let (ma, ea) = self.f64_unpack(am);
        let (mb, eb) = self.f64_unpack(bm);
        let (mc, ec) = self.f64_unpack(cm);
        // x = ma·mb·2^20 in [2^124, 2^126), weight 2^(ea + eb − 2170); y = mc·2^73, weight
        // 2^(ec − 1148) (a zero c: 0 at x's weight).
        let p = U128 { hi: self.bin(BinaryOp::MulHiU, Ty::U64, ma, mb), lo: self.bin(BinaryOp::Mul, Ty::U64, ma, mb) };
        let x = self.shl128_small(p, u(20));
        let ex = self.bin(BinaryOp::Add, Ty::U32, ea, eb);
        let ex = self.bin(BinaryOp::Sub, Ty::U32, ex, u(2170));
        let mc9 = self.bin(BinaryOp::Shl, Ty::U64, mc, u(9));
        let y = U128 { hi: mc9, lo: k(0) };
        let ey = self.bin(BinaryOp::Sub, Ty::U32, ec, u(1148));
        let y = self.select128(c_zero, U128 { hi: k(0), lo: k(0) }, y);
        let ey = self.select(Ty::U32, c_zero, ex, ey);
        // Align on the larger weight.
        let x_lower = self.cmp(CmpOp::LtS, Ty::U32, ex, ey);
        let dxy = self.bin(BinaryOp::Sub, Ty::U32, ey, ex);
        let dyx = self.bin(BinaryOp::Sub, Ty::U32, ex, ey);
        let xs = self.shr128_jam(x, dxy);
        let ys = self.shr128_jam(y, dyx);
        let x = self.select128(x_lower, xs, x);
        let y = self.select128(x_lower, y, ys);
        let e = self.select(Ty::U32, x_lower, ey, ex);
        // Same signs: add; else subtract the smaller magnitude (the sign is the larger's).
        let sum = self.add128(x, y);
        let y_bigger = self.lt128(x, y);
        let xy = self.sub128(x, y);
        let yx = self.sub128(y, x);
        let diff = self.select128(y_bigger, yx, xy);
        let s = self.select128(opposite, diff, sum);
        let sign = self.select(Ty::U64, y_bigger, sc, sp);
        let sign = self.select(Ty::U64, opposite, sign, sp);
        // Normalize to 56 bits with its leading one at bit 55 (jamming what is shifted out).
        let lz_hi = self.un(UnaryOp::CountLeadingZeros, Ty::U64, s.hi);
        let lz_lo = self.un(UnaryOp::CountLeadingZeros, Ty::U64, s.lo);
        let hi_zero = self.cmp(CmpOp::Eq, Ty::U64, s.hi, k(0));
        let lz_lo = self.bin(BinaryOp::Add, Ty::U32, lz_lo, u(64));
        let lz = self.select(Ty::U32, hi_zero, lz_lo, lz_hi);
        let right = self.bin(BinaryOp::Sub, Ty::U32, u(72), lz);
        let right = self.bin(BinaryOp::MaxS, Ty::U32, right, u(0));
        let left = self.bin(BinaryOp::Sub, Ty::U32, lz, u(72));
        let left = self.bin(BinaryOp::MaxS, Ty::U32, left, u(0));
        let down = self.shr128_jam(s, right);
        let up = self.shl128_small(s, left);
        let shifted_left = self.cmp(CmpOp::GtS, Ty::U32, lz, u(72));
        let sig = self.select(Ty::U64, shifted_left, up.lo, down.lo);
        // The jammed bit 0 is below the 3 guard bits: it is the sticky bit.
        let sticky = self.and64(sig, 1);
        let sticky = self.cmp(CmpOp::Ne, Ty::U64, sticky, k(0));
        let sig = self.and64(sig, !1);
        // Weight of bit 0 of sig: 2^(e + 72 − lz); round_pack's: 2^(exp − 1078).
        let exp = self.bin(BinaryOp::Add, Ty::U32, e, u(72 + 1078));
        let exp = self.bin(BinaryOp::Sub, Ty::U32, exp, lz);
        let res = self.f64_round_pack(sig, exp, sticky, sign, mode);
        // An exact zero sum of opposite signs is +0, −0 when rounding down (IEEE 754 §6.3).
        let s_zero = self.bin(BinaryOp::Or, Ty::U64, s.hi, s.lo);
        let s_zero = self.cmp(CmpOp::Eq, Ty::U64, s_zero, k(0));
        let zero_sign = k(if mode == Rounding::Down { SIGN } else { 0 });
        let res = self.select(Ty::U64, s_zero, zero_sign, res);
        // A zero product: c itself, or a zero whose sign follows the same rule.
        let both_zero = self.select(Ty::U64, opposite, zero_sign, sp);
        let pz = self.select(Ty::U64, c_zero, both_zero, cb);
        let res = self.select(Ty::U64, p_zero, pz, res);
        let inf_p = self.bin(BinaryOp::Or, Ty::U64, sp, k(EXP_MASK));
        let res = self.select(Ty::U64, c_inf, cb, res);
        let res = self.select(Ty::U64, p_inf, inf_p, res);
        self.select(Ty::U64, nan, k(NAN), res)
    }

    /// `fma.rn.f32` with integer operations only, for targets without 64-bit floats (WebGPU):
    /// the operands widened exactly to f64 bits, the f64 fma rounded to odd (toward zero, then
    /// the last bit set if that was inexact: the fma rounded away from zero differs), then
    /// narrowed to f32 to nearest even. Round-to-odd at 53 bits makes the second rounding to 24
    /// bits innocuous (Boldo & Melquiond, see `fma`). Slow, but exact on any device.
    /// (Emitted once per kernel as a function, see `FnLower::outlined`.)
    pub fn f32_fma_on_integers(&mut self, a: Operand, b: Operand, c: Operand) -> Operand {
        self.outlined("f32_fma_int", &[a, b, c], &[Ty::F32, Ty::F32, Ty::F32], Ty::F32, |s, x| s.f32_fma_on_integers_inline(x[0], x[1], x[2], false))
    }

    /// `add/sub/mul/fma.{rz,rm,rp}.f32` with integer operations only, for targets without
    /// 64-bit floats: `a·b + c` of the operands widened exactly to f64 bits, rounded by
    /// `f64_fma_bits` in `mode`, then to f32 in the same `mode` (`round_to_format`). Rounding
    /// twice in one directed mode is rounding once: every f32 (subnormals included) is an f64,
    /// so for any f32 g, g ≤ x ⇔ g ≤ RD64(x) (and ≥ for RU; RZ is one of them by sign), and an
    /// f32 sum or product never overflows or underflows f64's normal range. The exact zero of
    /// opposite signs is −0 under `.rm` (IEEE 754 §6.3) in `f64_fma_bits` already; a NaN gives
    /// the canonical 0x7fffffff. add is a·1 + b, sub a·1 + (−b), mul a·b + (±0 of the
    /// product's sign, so that a zero product keeps it), as `f64_directed` in `float` does.
    /// (Emitted once per kernel and mode as a function, see `FnLower::outlined`.)
    pub fn f32_fma_directed_on_integers(&mut self, a: Operand, b: Operand, c: Operand, mode: Rounding) -> Operand {
        debug_assert!(mode != Rounding::Nearest, "nearest needs rounding to odd (f32_fma_on_integers)");
        self.outlined(&format!("f32_fma_{mode:?}_int"), &[a, b, c], &[Ty::F32, Ty::F32, Ty::F32], Ty::F32, |s, x| {
            let widen = |s: &mut Self, x: Operand| {
                let bits = s.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
                s.f32_bits_to_f64_bits(bits)
            };
            let (ab, bb, cb) = (widen(s, x[0]), widen(s, x[1]), widen(s, x[2]));
            let r = s.f64_fma_bits(ab, bb, cb, mode);
            let bits = s.round_to_format(r, super::half::F64, super::half::F32, mode, super::half::Clamp::default());
            s.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, bits)
        })
    }

    /// `fma.rn.ftz.f32` on integers: `f32_fma_on_integers` with the tininess rule of the f64
    /// path (`flush_tiny_product(odd, F32, true)` in `float`): a sum rounded to odd below
    /// 2^-126·(1 − 2^-25) rounds, with an unbounded exponent, below the least normal and
    /// becomes a zero of its sign. Finite nonnegative f64 values order as their bits, so the
    /// comparison of magnitudes is one of integers (NaN and infinity bits lie above).
    pub fn f32_fma_ftz_on_integers(&mut self, a: Operand, b: Operand, c: Operand) -> Operand {
        self.outlined("f32_fma_ftz_int", &[a, b, c], &[Ty::F32, Ty::F32, Ty::F32], Ty::F32, |s, x| s.f32_fma_on_integers_inline(x[0], x[1], x[2], true))
    }

    fn f32_fma_on_integers_inline(&mut self, a: Operand, b: Operand, c: Operand, flush_tiny: bool) -> Operand {
        let widen = |s: &mut Self, x: Operand| {
            let bits = s.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
            s.f32_bits_to_f64_bits(bits)
        };
        let (ab, bb, cb) = (widen(self, a), widen(self, b), widen(self, c));
        let rz = self.f64_fma_bits(ab, bb, cb, Rounding::Zero);
        // The same sum with the sign of rz flipped into a and c, rounded up: the magnitude
        // rounded away from zero (f32 operands never overflow or underflow f64 here).
        let s = self.and64(rz, SIGN);
        let an = self.bin(BinaryOp::Xor, Ty::U64, ab, s);
        let cn = self.bin(BinaryOp::Xor, Ty::U64, cb, s);
        let away = self.f64_fma_bits(an, bb, cn, Rounding::Up);
        let mag_rz = self.and64(rz, !SIGN);
        let mag_away = self.and64(away, !SIGN);
        let inexact = self.cmp(CmpOp::Ne, Ty::U64, mag_rz, mag_away);
        let odd = self.bin(BinaryOp::Or, Ty::U64, rz, FnLower::u64c(1));
        let rz_nan = self.cmp(CmpOp::GtU, Ty::U64, mag_rz, FnLower::u64c(EXP_MASK));
        let not_nan = self.un(UnaryOp::Not, Ty::Bool, rz_nan);
        let set_odd = self.bin(BinaryOp::And, Ty::Bool, inexact, not_nan);
        let to_odd = self.select(Ty::U64, set_odd, odd, rz);
        let to_odd = if flush_tiny {
            let bound = (2f64.powi(-126) * (1.0 - 2f64.powi(-25))).to_bits();
            let mag = self.and64(to_odd, !SIGN);
            let tiny = self.cmp(CmpOp::LtU, Ty::U64, mag, FnLower::u64c(bound));
            let zero = self.and64(to_odd, SIGN);
            self.select(Ty::U64, tiny, zero, to_odd)
        } else {
            to_odd
        };
        let bits = self.f64_bits_to_f32_bits_rn(to_odd);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, bits)
    }

    /// f32 bits → the f64 bits of the same value (exact; subnormals normalized, NaN payloads
    /// kept in the high fraction bits).
    fn f32_bits_to_f64_bits(&mut self, x: Operand) -> Operand {
        let u = FnLower::u32c;
        let wide = |s: &mut Self, v: Operand| s.resize(v, Ty::U32, Ty::U64, false);
        let sign = self.bin(BinaryOp::And, Ty::U32, x, u(0x8000_0000));
        let sign = wide(self, sign);
        let sign = self.bin(BinaryOp::Shl, Ty::U64, sign, u(32));
        let e = self.bin(BinaryOp::ShrU, Ty::U32, x, u(23));
        let e = self.bin(BinaryOp::And, Ty::U32, e, u(0xff));
        let m = self.bin(BinaryOp::And, Ty::U32, x, u(0x7f_ffff));
        // Normal: exponent + 896, fraction << 29. Inf/NaN: exponent 2047.
        let e_normal = self.bin(BinaryOp::Add, Ty::U32, e, u(896));
        let special = self.cmp(CmpOp::Eq, Ty::U32, e, u(0xff));
        let e_normal = self.select(Ty::U32, special, u(2047), e_normal);
        // Subnormal: shift the leading one to bit 23 (shift = clz − 8); exponent 897 − shift.
        let lz = self.un(UnaryOp::CountLeadingZeros, Ty::U32, m);
        let shift = self.bin(BinaryOp::Sub, Ty::U32, lz, u(8));
        let shift = self.bin(BinaryOp::And, Ty::U32, shift, u(31));
        let m_sub = self.bin(BinaryOp::Shl, Ty::U32, m, shift);
        let m_sub = self.bin(BinaryOp::And, Ty::U32, m_sub, u(0x7f_ffff));
        let e_sub = self.bin(BinaryOp::Sub, Ty::U32, u(897), shift);
        let is_sub = self.cmp(CmpOp::Eq, Ty::U32, e, u(0));
        let m_zero = self.cmp(CmpOp::Eq, Ty::U32, m, u(0));
        let zero = self.bin(BinaryOp::And, Ty::Bool, is_sub, m_zero);
        let frac = self.select(Ty::U32, is_sub, m_sub, m);
        let exp = self.select(Ty::U32, is_sub, e_sub, e_normal);
        let exp = self.select(Ty::U32, zero, u(0), exp);
        let exp = wide(self, exp);
        let exp = self.bin(BinaryOp::Shl, Ty::U64, exp, u(52));
        let frac = wide(self, frac);
        let frac = self.bin(BinaryOp::Shl, Ty::U64, frac, u(29));
        let mag = self.bin(BinaryOp::Or, Ty::U64, exp, frac);
        self.bin(BinaryOp::Or, Ty::U64, sign, mag)
    }

    /// f64 bits → f32 bits rounded to nearest even (subnormal results denormalized before the
    /// one rounding, overflow to infinity); a NaN gives PTX's canonical f32 NaN.
    fn f64_bits_to_f32_bits_rn(&mut self, x: Operand) -> Operand {
        let u = FnLower::u32c;
        let k = FnLower::u64c;
        let sign = self.bin(BinaryOp::ShrU, Ty::U64, x, u(32));
        let sign = self.resize(sign, Ty::U64, Ty::U32, false);
        let sign = self.bin(BinaryOp::And, Ty::U32, sign, u(0x8000_0000));
        let mag = self.and64(x, !SIGN);
        let e = self.bin(BinaryOp::ShrU, Ty::U64, mag, u(52));
        let e = self.resize(e, Ty::U64, Ty::U32, false);
        let frac = self.and64(mag, FRAC_MASK);
        let sig = self.bin(BinaryOp::Or, Ty::U64, frac, k(HIDDEN));
        // f32 biased exponent of a normal result; below 1: subnormal (drop more bits).
        let e32 = self.bin(BinaryOp::Sub, Ty::U32, e, u(896));
        let below = self.bin(BinaryOp::Sub, Ty::U32, u(1), e32);
        let below = self.bin(BinaryOp::MaxS, Ty::U32, below, u(0));
        let drop = self.bin(BinaryOp::Add, Ty::U32, below, u(29));
        let drop = self.bin(BinaryOp::MinU, Ty::U32, drop, u(63));
        let kept = self.bin(BinaryOp::ShrU, Ty::U64, sig, drop);
        let back = self.bin(BinaryOp::Shl, Ty::U64, kept, drop);
        let lost = self.bin(BinaryOp::Sub, Ty::U64, sig, back);
        let h = self.bin(BinaryOp::Sub, Ty::U32, drop, u(1));
        let half = self.bin(BinaryOp::Shl, Ty::U64, k(1), h);
        let above = self.cmp(CmpOp::GtU, Ty::U64, lost, half);
        let at = self.cmp(CmpOp::Eq, Ty::U64, lost, half);
        let odd = self.and64(kept, 1);
        let odd = self.cmp(CmpOp::Ne, Ty::U64, odd, k(0));
        let tie_up = self.bin(BinaryOp::And, Ty::Bool, at, odd);
        let up = self.bin(BinaryOp::Or, Ty::Bool, above, tie_up);
        let one = self.select(Ty::U64, up, k(1), k(0));
        let kept = self.bin(BinaryOp::Add, Ty::U64, kept, one);
        let kept = self.resize(kept, Ty::U64, Ty::U32, false);
        // Normal: field e32 − 1 plus the hidden bit (a carry moves into the exponent);
        // subnormal: the kept bits alone (a carry makes the least normal).
        let field = self.bin(BinaryOp::MaxS, Ty::U32, e32, u(1));
        let field = self.bin(BinaryOp::Sub, Ty::U32, field, u(1));
        let field = self.bin(BinaryOp::MinU, Ty::U32, field, u(255));
        let base = self.bin(BinaryOp::Shl, Ty::U32, field, u(23));
        let bits = self.bin(BinaryOp::Add, Ty::U32, base, kept);
        let huge = self.cmp(CmpOp::GtS, Ty::U32, e32, u(254));
        let carried = self.cmp(CmpOp::GeU, Ty::U32, bits, u(0x7f80_0000));
        let overflow = self.bin(BinaryOp::Or, Ty::Bool, huge, carried);
        let bits = self.select(Ty::U32, overflow, u(0x7f80_0000), bits);
        // Zero, infinity, NaN.
        let is_zero = self.cmp(CmpOp::Eq, Ty::U64, mag, k(0));
        let bits = self.select(Ty::U32, is_zero, u(0), bits);
        let is_inf = self.cmp(CmpOp::Eq, Ty::U64, mag, k(EXP_MASK));
        let bits = self.select(Ty::U32, is_inf, u(0x7f80_0000), bits);
        let bits = self.bin(BinaryOp::Or, Ty::U32, bits, sign);
        let is_nan = self.cmp(CmpOp::GtU, Ty::U64, mag, k(EXP_MASK));
        self.select(Ty::U32, is_nan, u(0x7fff_ffff), bits)
    }
}
