//! `add`/`sub`/`mul`/`fma.rn` on one `.f16` or `.bf16` lane (§9.7.4.1–4), exactly, in f32 and
//! 32-bit integers only: the same code runs where the target has 64-bit floats and where it
//! has none (WebGPU, Vulkan devices without `shaderFloat64`), and no device that flushes f32
//! subnormals changes a result.
//!
//! The exact result is rounded once to the half format. Where it is no f32, it is first
//! rounded to odd in f32 ([`FnLower::add_round_to_odd`]): the f32's 24 bits are at least p + 2
//! (p = 11 for f16, 8 for bf16), so rounding that to nearest is the rounding of the exact value
//! (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
//! rounding to odd", IEEE TC 2008). Rounding twice to nearest is not, for fma.
//!
//! - f16: an f16 is an f32 multiple of 2^-24 below 2^16, a product of two a multiple of 2^-48
//!   below 2^32 with at most 22 significant bits: products are exact f32 normals, and a product
//!   plus an f16 (with every intermediate of TwoSum on them, multiples of 2^-48 below 2^34) is
//!   zero or an f32 normal. No overflow, underflow or flushing anywhere.
//! - bf16 has f32's exponent range: its products overflow and underflow f32, and its
//!   subnormals are f32 subnormals. Each operand is split on its bits into a significand in
//!   [1, 2) and an integer exponent ([`FnLower::split_f32`]); the significands' product (at most
//!   16 bits, in [1, 4)) is exact; the two terms of a sum are scaled by the same power of two,
//!   the larger to its significand, and summed rounded to odd; the exponent is added back on
//!   the bits when rounding to bf16 ([`FnLower::round_scaled_to_format`]). A term more than
//!   [`MAX_SCALE_DOWN`] binades below the other is scaled by 2^-60 only: the larger one's f32
//!   neighbours lie at least 2^-24 from it, so a term below 2^-58 decides the rounding to odd
//!   by its sign alone. Every f32 value on the way is then zero, infinite, NaN or a normal of
//!   magnitude at least 2^-75.

use super::half::{Clamp, Format, Rounding, BF16, F16, F32};
use crate::function::FnLower;
use crate::ir::{BinaryOp, CmpOp, ConvertOp, Operand, Ty};
use ptxcross_frontend::ast::ScalarType;

/// The exponent [`FnLower::split_f32`] gives a zero: far below any finite term's (a bf16
/// product's is at least 2·(−133)), so a zero never sets the scale of a sum.
const ZERO_EXP: i32 = -1000;
/// The most binades a term of a bf16 sum is scaled down (see the module doc).
const MAX_SCALE_DOWN: i32 = 60;

impl FnLower {
    /// `name` (`add`, `sub`, `mul`, `fma`) with `.rn` on one lane of `fmt`: the operands' bits
    /// in the low 16 bits of `U32`s (flushed already under `.ftz`), the result's bits. `.ftz`
    /// and `.sat` are f16 only (checked by the caller).
    pub(super) fn half_add_sub_mul_fma(&mut self, name: &str, fmt: Format, xs: &[Operand], ftz: bool, sat: bool, relu: bool) -> Operand {
        if fmt == BF16 {
            let what = format!("bf16_{name}{}", if relu { "_relu" } else { "" });
            let tys = vec![Ty::U32; xs.len()];
            return self.outlined(&what, xs, &tys, Ty::U32, |s, x| s.bf16_arith(name, x, relu));
        }
        let w: Vec<Operand> = xs.iter().map(|&x| self.half_to_f32(x, F16)).collect();
        let x = match name {
            // Rounded to nearest in f32, then to f16: double rounding is innocuous for +, − and
            // × where the wide precision is at least 2p + 2 bits (Figueroa, "When is double
            // rounding innocuous?", 1995): 24 ≥ 2·11 + 2.
            "add" => self.bin(BinaryOp::FAdd, Ty::F32, w[0], w[1]),
            "sub" => self.bin(BinaryOp::FSub, Ty::F32, w[0], w[1]),
            // Exact.
            "mul" => self.bin(BinaryOp::FMul, Ty::F32, w[0], w[1]),
            _ => {
                let p = self.bin(BinaryOp::FMul, Ty::F32, w[0], w[1]);
                self.add_round_to_odd(Ty::F32, p, w[2])
            }
        };
        // `.sat` commutes with the roundings: 0 and 1 are in both formats.
        let x = if sat { self.saturate(x, ScalarType::F32) } else { x };
        let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
        // `.ftz` flushes results tiny after rounding (see `flush_tiny_product`); sums of halves
        // that land below f16's normals are exact, so only mul/fma can differ.
        let bits = if ftz && matches!(name, "mul" | "fma") { self.flush_tiny_f32_bits(bits, F16) } else { bits };
        let r = self.round_to_format(bits, F32, F16, Rounding::Nearest, Clamp { satfinite: false, relu });
        if ftz {
            self.half_ftz(r, F16)
        } else {
            r
        }
    }

    /// `.ftz`'s flush of a result tiny after rounding to `fmt` (IEEE 754 tininess after
    /// rounding with an unbounded exponent: below min_normal·(1 − 2^-(p+1)), the tie rounding up
    /// to min_normal, which is even; see `flush_tiny_product`), on the bits of an f32 that is
    /// the exact result or its rounding to odd. The bound is an f32 with an even last bit, so
    /// a value rounded to odd is below it exactly when the exact value is.
    fn flush_tiny_f32_bits(&mut self, bits: Operand, fmt: Format) -> Operand {
        let band = 2f64.powi(fmt.emin() as i32) * (1.0 - 2f64.powi(-(fmt.mant_bits as i32 + 2)));
        let u = FnLower::u32c;
        let mag = self.bin(BinaryOp::And, Ty::U32, bits, u(0x7fff_ffff));
        // A NaN's magnitude is above every bound.
        let tiny = self.cmp(CmpOp::LtU, Ty::U32, mag, u((band as f32).to_bits()));
        let sign = self.bin(BinaryOp::And, Ty::U32, bits, u(0x8000_0000));
        self.select(Ty::U32, tiny, sign, bits)
    }

    /// One bf16 lane of `add`/`sub`/`mul`/`fma.rn{.relu}` (see the module doc).
    fn bf16_arith(&mut self, name: &str, xs: &[Operand], relu: bool) -> Operand {
        let outer = self.subnormal_exempt;
        // Every f32 operation below sees zeros, infinities, NaN and normals only.
        self.subnormal_exempt.f32 = true;
        let mut terms = Vec::new();
        for (i, &x) in xs.iter().enumerate() {
            // a − b = a + (−b), signed zeros included (−0 − +0 = −0 + −0).
            let x = if name == "sub" && i == 1 { self.bin(BinaryOp::Xor, Ty::U32, x, FnLower::u32c(0x8000)) } else { x };
            let f = self.bin(BinaryOp::Shl, Ty::U32, x, FnLower::u32c(16));
            terms.push(self.split_f32(f));
        }
        let (p, ep) = if matches!(name, "add" | "sub") {
            terms[0]
        } else {
            let p = self.bin(BinaryOp::FMul, Ty::F32, terms[0].0, terms[1].0);
            (p, self.bin(BinaryOp::Add, Ty::U32, terms[0].1, terms[1].1))
        };
        let addend = match name {
            "add" | "sub" => Some(terms[1]),
            "fma" => Some(terms[2]),
            _ => None,
        };
        let (s, scale) = match addend {
            None => (p, ep),
            Some((c, ec)) => {
                let m = self.bin(BinaryOp::MaxS, Ty::U32, ep, ec);
                let p = self.scale_down(p, ep, m);
                let c = self.scale_down(c, ec, m);
                (self.add_round_to_odd(Ty::F32, p, c), m)
            }
        };
        self.subnormal_exempt = outer;
        let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, s);
        self.round_scaled_to_format(bits, Some(scale), F32, BF16, Rounding::Nearest, Clamp { satfinite: false, relu })
    }

    /// `v`·2^(e − m) for exponents e ≤ m (`U32`s holding i32), the factor no smaller than
    /// 2^-[`MAX_SCALE_DOWN`]: a multiplication by a power of two built on bits, exact on the
    /// terms of `bf16_arith` (infinities, NaN and zeros stay what they are).
    fn scale_down(&mut self, v: Operand, e: Operand, m: Operand) -> Operand {
        let k = self.bin(BinaryOp::Sub, Ty::U32, e, m);
        let k = self.bin(BinaryOp::MaxS, Ty::U32, k, FnLower::u32c(-MAX_SCALE_DOWN as u32));
        let f = self.bin(BinaryOp::Add, Ty::U32, k, FnLower::u32c(127));
        let f = self.bin(BinaryOp::Shl, Ty::U32, f, FnLower::u32c(23));
        let f = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, f);
        self.bin(BinaryOp::FMul, Ty::F32, v, f)
    }

    /// The f32 whose bits are `f` as (d, e), an F32 and an i32 (in a `U32`) with value d·2^e:
    /// a finite nonzero one with d in ±[1, 2), subnormals normalized (on integers, so a device
    /// that flushes f32 subnormals never sees one); a zero as itself with e = [`ZERO_EXP`];
    /// infinities and NaN as themselves with e = 0.
    fn split_f32(&mut self, f: Operand) -> (Operand, Operand) {
        let u = FnLower::u32c;
        let sign = self.bin(BinaryOp::And, Ty::U32, f, u(0x8000_0000));
        let mag = self.bin(BinaryOp::And, Ty::U32, f, u(0x7fff_ffff));
        let (sig, be) = self.f32_significand(mag);
        let frac = self.bin(BinaryOp::And, Ty::U32, sig, u(0x7f_ffff));
        let d = self.bin(BinaryOp::Or, Ty::U32, frac, u(0x3f80_0000));
        let d = self.bin(BinaryOp::Or, Ty::U32, d, sign);
        let ex = self.bin(BinaryOp::Sub, Ty::U32, be, u(127));
        let special = self.cmp(CmpOp::GeU, Ty::U32, mag, u(0x7f80_0000));
        let zero = self.cmp(CmpOp::Eq, Ty::U32, mag, u(0));
        let d = self.select(Ty::U32, special, f, d);
        let d = self.select(Ty::U32, zero, sign, d);
        let ex = self.select(Ty::U32, special, u(0), ex);
        let ex = self.select(Ty::U32, zero, u(ZERO_EXP as u32), ex);
        (self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, d), ex)
    }
}
