//! Correctly rounded f32 division and square root on 32-bit integers only, for targets
//! without 64-bit floats (`FnLower::no_float64`: WebGPU in browsers, Vulkan devices without
//! `shaderFloat64`) and without 64-bit integers (`split_int64`) alike, so one path serves
//! both. Same results as the f64 path of `divsqrt` (spec §9.7.3.8 `div.rnd`, §9.7.3.11
//! `sqrt.rnd`), bit for bit:
//!
//! - the operands' significands are normalised to 24 bits (subnormals by their leading zeros);
//! - restoring long division / digit-by-digit square root produce 26 result bits (the 24 of
//!   the significand, a guard and a round bit) and the remainder tells whether more follow
//!   (sticky): every intermediate stays below 2^29;
//! - `f32_round_pack` rounds that to an f32 in the given mode, subnormal and overflowing
//!   results included.
//!
//! No native f32 arithmetic is used, so nothing depends on the driver's precision or on how
//! it treats subnormals.

use super::half::Rounding;
use crate::function::FnLower;
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Operand, Ty, UnaryOp};

/// Bits a result carries below its 24-bit significand before rounding (guard and round); the
/// remainder of the long division / square root is the sticky bit.
const EXTRA_BITS: u32 = 2;
/// Result bits produced: significand and the extra bits.
const RESULT_BITS: u32 = 24 + EXTRA_BITS;

impl FnLower {
    /// The f32 bits (sign included) of sign · s · 2^(be − 127 − 25) rounded in `mode`, where
    /// `s` holds `RESULT_BITS` bits with its top one set, `sticky` says whether nonzero bits
    /// follow below `s`, and `be` (a signed `U32`) is the biased exponent of the result
    /// before rounding. Subnormal results shift further right (their lost bits join the
    /// rounding); too large ones become infinity or the largest finite by the direction.
    pub(super) fn f32_round_pack(&mut self, sign: Operand, negative: Operand, be: Operand, s: Operand, sticky: Operand, mode: Rounding) -> Operand {
        let u = FnLower::u32c;
        let or = |x: &mut Self, p: Operand, q: Operand| x.bin(BinaryOp::Or, Ty::Bool, p, q);
        let and = |x: &mut Self, p: Operand, q: Operand| x.bin(BinaryOp::And, Ty::Bool, p, q);
        let normal = self.cmp(CmpOp::GeS, Ty::U32, be, u(1));
        // Normal: the implicit bit (bit 23 of the kept part) adds 1 to exponent field be − 1,
        // and a rounding carry moves into the exponent (up to infinity) on its own.
        let be_1 = self.bin(BinaryOp::Sub, Ty::U32, be, u(1));
        let base = self.bin(BinaryOp::Shl, Ty::U32, be_1, u(23));
        let base = self.select(Ty::U32, normal, base, u(0));
        // Subnormal: shift by EXTRA_BITS + (1 − be), at most 31 (then everything is lost).
        let sub_shift = self.bin(BinaryOp::Sub, Ty::U32, u(EXTRA_BITS + 1), be);
        let sub_shift = self.bin(BinaryOp::MinU, Ty::U32, sub_shift, u(31));
        let shift = self.select(Ty::U32, normal, u(EXTRA_BITS), sub_shift);
        let keep = self.bin(BinaryOp::ShrU, Ty::U32, s, shift);
        let one_at = self.bin(BinaryOp::Shl, Ty::U32, u(1), shift);
        let lost_mask = self.bin(BinaryOp::Sub, Ty::U32, one_at, u(1));
        let lost = self.bin(BinaryOp::And, Ty::U32, s, lost_mask);
        let inexact = self.cmp(CmpOp::Ne, Ty::U32, lost, u(0));
        let inexact = or(self, inexact, sticky);
        let away = self.rounds_away(mode, negative);
        let up = match mode {
            Rounding::Nearest => {
                let half = self.bin(BinaryOp::ShrU, Ty::U32, one_at, u(1));
                let above = self.cmp(CmpOp::GtU, Ty::U32, lost, half);
                let at = self.cmp(CmpOp::Eq, Ty::U32, lost, half);
                let lsb = self.bin(BinaryOp::And, Ty::U32, keep, u(1));
                let odd = self.cmp(CmpOp::Ne, Ty::U32, lsb, u(0));
                let odd_or_sticky = or(self, odd, sticky);
                let at_up = and(self, at, odd_or_sticky);
                or(self, above, at_up)
            }
            Rounding::Zero => Operand::Const(Const::Bool(false)),
            _ => and(self, inexact, away),
        };
        let inc = self.select(Ty::U32, up, u(1), u(0));
        let mag = self.bin(BinaryOp::Add, Ty::U32, base, keep);
        let mag = self.bin(BinaryOp::Add, Ty::U32, mag, inc);
        let overflow = self.cmp(CmpOp::GeS, Ty::U32, be, u(255));
        let big = self.select(Ty::U32, away, u(0x7f80_0000), u(0x7f7f_ffff));
        let mag = self.select(Ty::U32, overflow, big, mag);
        self.bin(BinaryOp::Or, Ty::U32, mag, sign)
    }

    /// For the nonzero finite f32 magnitudes `am`, `bm`: significands ma ∈ [mb, 2·mb) and mb
    /// (24 bits) with |a|/|b| = ma/mb · 2^(be − 127), and that biased exponent `be` (signed).
    fn f32_quotient_scaled(&mut self, am: Operand, bm: Operand) -> (Operand, Operand, Operand) {
        let u = FnLower::u32c;
        let (ma, ea) = self.f32_significand(am);
        let (mb, eb) = self.f32_significand(bm);
        // ma/mb ∈ [1, 2) after doubling a smaller ma (one less in the exponent).
        let smaller = self.cmp(CmpOp::LtU, Ty::U32, ma, mb);
        let ma2 = self.bin(BinaryOp::Shl, Ty::U32, ma, u(1));
        let ma = self.select(Ty::U32, smaller, ma2, ma);
        let dec = self.select(Ty::U32, smaller, u(1), u(0));
        let be = self.bin(BinaryOp::Sub, Ty::U32, ea, eb);
        let be = self.bin(BinaryOp::Add, Ty::U32, be, u(127));
        let be = self.bin(BinaryOp::Sub, Ty::U32, be, dec);
        (ma, mb, be)
    }

    /// Whether the exact |a| / |b| is below the smallest normal f32 (2^-126), for f32
    /// magnitudes `am`, `bm`: false where either is zero, infinite or NaN.
    pub(super) fn f32_quotient_tiny_on_integers(&mut self, am: Operand, bm: Operand) -> Operand {
        let u = FnLower::u32c;
        let or = |x: &mut Self, p: Operand, q: Operand| x.bin(BinaryOp::Or, Ty::Bool, p, q);
        let a_zero = self.cmp(CmpOp::Eq, Ty::U32, am, u(0));
        let b_zero = self.cmp(CmpOp::Eq, Ty::U32, bm, u(0));
        let a_big = self.cmp(CmpOp::GeU, Ty::U32, am, u(0x7f80_0000));
        let b_big = self.cmp(CmpOp::GeU, Ty::U32, bm, u(0x7f80_0000));
        let special = or(self, a_zero, b_zero);
        let special = or(self, special, a_big);
        let special = or(self, special, b_big);
        let (_, _, be) = self.f32_quotient_scaled(am, bm);
        let tiny = self.cmp(CmpOp::LeS, Ty::U32, be, u(0));
        let finite = self.un(UnaryOp::Not, Ty::Bool, special);
        self.bin(BinaryOp::And, Ty::Bool, tiny, finite)
    }

    /// Whether the exact product a·b of the f32 `a`, `b` is below 2^-126 in magnitude (zero
    /// included), as `flush_tiny_f32_product`'s f64 test decides it: false where either is
    /// infinite or NaN. With 24-bit significands sa, sb and biased exponents ea, eb
    /// (`f32_significand`), |a·b| = sa·sb · 2^(ea+eb−300) and sa·sb ∈ [2^46, 2^48), so with
    /// k = ea + eb it is tiny iff sa·sb < 2^(174−k): always for k ≤ 126, never for k ≥ 128,
    /// and for k = 127 iff sa·sb < 2^47, i.e. its high 32 bits are below 2^15. A zero operand
    /// has significand 0 and a small k: tiny, as 0 is.
    pub(super) fn f32_product_tiny_on_integers(&mut self, a: Operand, b: Operand) -> Operand {
        let u = FnLower::u32c;
        let and = |x: &mut Self, p: Operand, q: Operand| x.bin(BinaryOp::And, Ty::Bool, p, q);
        let ab = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, a);
        let bb = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, b);
        let am = self.bin(BinaryOp::And, Ty::U32, ab, u(0x7fff_ffff));
        let bm = self.bin(BinaryOp::And, Ty::U32, bb, u(0x7fff_ffff));
        let a_finite = self.cmp(CmpOp::LtU, Ty::U32, am, u(0x7f80_0000));
        let b_finite = self.cmp(CmpOp::LtU, Ty::U32, bm, u(0x7f80_0000));
        let finite = and(self, a_finite, b_finite);
        let (sa, ea) = self.f32_significand(am);
        let (sb, eb) = self.f32_significand(bm);
        let k = self.bin(BinaryOp::Add, Ty::U32, ea, eb);
        let below = self.cmp(CmpOp::LtS, Ty::U32, k, u(127));
        let at = self.cmp(CmpOp::Eq, Ty::U32, k, u(127));
        let hi = self.bin(BinaryOp::MulHiU, Ty::U32, sa, sb);
        let small = self.cmp(CmpOp::LtU, Ty::U32, hi, u(1 << 15));
        let at_small = and(self, at, small);
        let tiny = self.bin(BinaryOp::Or, Ty::Bool, below, at_small);
        and(self, tiny, finite)
    }

    /// |a| / |b| rounded in `mode` with the sign `sign` (bits of the f32 magnitudes `am`, `bm`,
    /// both nonzero and finite).
    pub(super) fn f32_div_on_integers(&mut self, am: Operand, bm: Operand, sign: Operand, negative: Operand, mode: Rounding) -> Operand {
        let u = FnLower::u32c;
        let (mut r, mb, be) = self.f32_quotient_scaled(am, bm);
        // Restoring division: q = ⌊r · 2^25 / mb⌋ ∈ [2^25, 2^26); r < 2·mb < 2^25 throughout.
        let mut q = u(0);
        for _ in 0..RESULT_BITS {
            let ge = self.cmp(CmpOp::GeU, Ty::U32, r, mb);
            let bit = self.select(Ty::U32, ge, u(1), u(0));
            let q2 = self.bin(BinaryOp::Shl, Ty::U32, q, u(1));
            q = self.bin(BinaryOp::Or, Ty::U32, q2, bit);
            let sub = self.bin(BinaryOp::Sub, Ty::U32, r, mb);
            let r1 = self.select(Ty::U32, ge, sub, r);
            r = self.bin(BinaryOp::Shl, Ty::U32, r1, u(1));
        }
        let sticky = self.cmp(CmpOp::Ne, Ty::U32, r, u(0));
        self.f32_round_pack(sign, negative, be, q, sticky, mode)
    }

    /// Digit-by-digit integer square root, two radicand bits a step, of `m` (of type `ty`,
    /// `2·pairs` bits) followed by zero pairs, `steps` steps in all: the root q (`steps` bits)
    /// and the remainder r (nonzero: the root goes on). r ≤ 2q, so r·4 must fit in `ty`.
    pub(super) fn sqrt_digits(&mut self, ty: Ty, m: Operand, pairs: u32, steps: u32) -> (Operand, Operand) {
        let u = FnLower::u32c;
        let c = |v: u64| FnLower::int_const(ty, v);
        let mut q = c(0);
        let mut r = c(0);
        for i in 0..steps {
            let r4 = self.bin(BinaryOp::Shl, ty, r, u(2));
            let r4 = if i < pairs {
                let pair = self.bin(BinaryOp::ShrU, ty, m, u(2 * (pairs - 1 - i)));
                let pair = self.bin(BinaryOp::And, ty, pair, c(3));
                self.bin(BinaryOp::Or, ty, r4, pair)
            } else {
                r4
            };
            let q4 = self.bin(BinaryOp::Shl, ty, q, u(2));
            let t = self.bin(BinaryOp::Or, ty, q4, c(1));
            let fits = self.cmp(CmpOp::GeU, ty, r4, t);
            let rt = self.bin(BinaryOp::Sub, ty, r4, t);
            r = self.select(ty, fits, rt, r4);
            let bit = self.select(ty, fits, c(1), c(0));
            let q2 = self.bin(BinaryOp::Shl, ty, q, u(1));
            q = self.bin(BinaryOp::Or, ty, q2, bit);
        }
        (q, r)
    }

    /// √a rounded in `mode` for the bits `am` of a positive finite f32 (sign clear, nonzero).
    pub(super) fn f32_sqrt_on_integers(&mut self, am: Operand, mode: Rounding) -> Operand {
        let u = FnLower::u32c;
        let (m, e) = self.f32_significand(am);
        // a = m · 2^(e − 150); with an even exponent t and m' = m·2^(e−150−t) ∈ [2^24, 2^26),
        // √a = √(m' · 2^26) · 2^(t/2 − 13): m' = 2m for odd e (150 is even), else 4m.
        let odd_bit = self.bin(BinaryOp::And, Ty::U32, e, u(1));
        let odd = self.cmp(CmpOp::Ne, Ty::U32, odd_bit, u(0));
        let shift = self.select(Ty::U32, odd, u(1), u(2));
        let m2 = self.bin(BinaryOp::Shl, Ty::U32, m, shift);
        // Biased exponent of √(m'·2^26) ∈ [2^25, 2^26): (t/2 − 13 + 25) + 127 with
        // t = e − 150 − shift, i.e. (e + 128 − shift) / 2 (positive: e ≥ −22).
        let be = self.bin(BinaryOp::Add, Ty::U32, e, u(128));
        let be = self.bin(BinaryOp::Sub, Ty::U32, be, shift);
        let be = self.bin(BinaryOp::ShrU, Ty::U32, be, u(1));
        // The 52-bit radicand m'·2^26: 13 pairs of m' then 13 zero pairs (r ≤ 2q < 2^27).
        let (q, r) = self.sqrt_digits(Ty::U32, m2, 13, RESULT_BITS);
        let sticky = self.cmp(CmpOp::Ne, Ty::U32, r, u(0));
        self.f32_round_pack(u(0), Operand::Const(Const::Bool(false)), be, q, sticky, mode)
    }
}
