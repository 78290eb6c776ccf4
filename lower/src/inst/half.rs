//! Half precision (spec §9.7.4 "Half Precision Floating-Point Instructions", §9.7.9.21 `cvt`):
//! `.f16`, `.bf16` and their packed `x2` forms, emulated bit-exactly with integer and
//! f32/f64 operations, so nothing depends on the target's f16 support (SHADER_F16) or its
//! rounding of narrow types.
//!
//! The core is [`FnLower::round_to_format`]: an f32 or f64 (as bits) rounded to a narrower
//! binary format with any of the four IEEE rounding modes, subnormals and overflow included.
//! Arithmetic (`half_arith`) computes the exact result, or one rounded to odd (which a later
//! rounding to a format at least two bits narrower cannot tell from the exact one), in f32 and
//! rounds once.

use super::{operands, Mods};
use crate::function::{invalid, unsupported, FnLower, LResult};
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Operand, Ty, UnaryOp};
use ptxcross_frontend::ast::{ScalarType, Span};
use ptxcross_frontend::Diagnostic;

/// A binary floating-point format: exponent and stored-mantissa widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub exp_bits: u32,
    pub mant_bits: u32,
    /// No infinities: the all-ones exponent holds normal numbers, and only the all-ones
    /// pattern (either sign) is NaN (`e4m3`, §5.2.3).
    pub no_inf: bool,
}

pub const F16: Format = Format { exp_bits: 5, mant_bits: 10, no_inf: false };
pub const BF16: Format = Format { exp_bits: 8, mant_bits: 7, no_inf: false };
pub const F32: Format = Format { exp_bits: 8, mant_bits: 23, no_inf: false };
pub const F64: Format = Format { exp_bits: 11, mant_bits: 52, no_inf: false };

impl Format {
    pub fn bias(self) -> i64 {
        (1 << (self.exp_bits - 1)) - 1
    }
    /// Unbiased exponent of the smallest normal.
    pub fn emin(self) -> i64 {
        1 - self.bias()
    }
    pub fn width(self) -> u32 {
        1 + self.exp_bits + self.mant_bits
    }
    /// The all-ones exponent field (infinity's bits where the format has infinities).
    pub fn inf_bits(self) -> u64 {
        ((1u64 << self.exp_bits) - 1) << self.mant_bits
    }
    /// The largest finite magnitude (MAX_NORM).
    pub fn max_bits(self) -> u64 {
        if self.no_inf {
            self.nan_bits() - 1
        } else {
            self.inf_bits() - 1
        }
    }
    /// The canonical NaN (all exponent and mantissa bits set, sign clear), as PTX's
    /// half-precision instructions produce it.
    pub fn nan_bits(self) -> u64 {
        (1u64 << (self.width() - 1)) - 1
    }
    pub fn sign_bit(self) -> u64 {
        1u64 << (self.width() - 1)
    }
}

/// IEEE rounding direction (`.rn`, `.rz`, `.rm`, `.rp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    Nearest,
    Zero,
    Down,
    Up,
}

impl Rounding {
    pub fn from_modifier(m: &str) -> Option<Rounding> {
        Some(match m {
            "rn" => Rounding::Nearest,
            "rz" => Rounding::Zero,
            "rm" => Rounding::Down,
            "rp" => Rounding::Up,
            _ => return None,
        })
    }
}

/// What happens around the rounding of a conversion to a narrow format.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clamp {
    /// `.satfinite`: NaN stays NaN, magnitudes beyond the largest finite (infinities too)
    /// become the largest finite of the same sign.
    pub satfinite: bool,
    /// `.relu`: negative results (and −0) become +0; NaN becomes the canonical NaN.
    pub relu: bool,
}

/// The element format of a half type.
pub fn half_format(t: ScalarType) -> Option<Format> {
    match t {
        ScalarType::F16 | ScalarType::F16x2 => Some(F16),
        ScalarType::Bf16 | ScalarType::Bf16x2 => Some(BF16),
        _ => None,
    }
}

impl FnLower {
    fn ic(ty: Ty, v: u64) -> Operand {
        FnLower::int_const(ty, v)
    }

    /// Rounds the float whose bits are `bits` (format `src`: F32 in a `U32` or F64 in a `U64`)
    /// to format `dst` (narrower) with `mode`; the result's bits in a `U32`.
    ///
    /// With s = the significand including its leading bit and `shift` the number of its low
    /// bits that do not fit (more for results in `dst`'s subnormal range), the truncated
    /// result is `base + (s >> shift)`, where `base` holds the exponent minus one: the leading
    /// bit of `s` adds the missing one, and an increment that carries out of the mantissa
    /// moves to the next binade (or from the largest subnormal to the smallest normal) by
    /// itself.
    pub fn round_to_format(&mut self, bits: Operand, src: Format, dst: Format, mode: Rounding, clamp: Clamp) -> Operand {
        self.round_scaled_to_format(bits, None, src, dst, mode, clamp)
    }

    /// [`round_to_format`](Self::round_to_format) of the float whose bits are `bits` times
    /// 2^`scale` (an i32 in a `U32`; `None`: 1), the scale added to the exponent on integers: a
    /// result of a wider exponent range than `src`'s (as bf16 products are in f32) is rounded
    /// once, to a normal, subnormal, zero or infinity of `dst` as its exact value asks.
    pub fn round_scaled_to_format(&mut self, bits: Operand, scale: Option<Operand>, src: Format, dst: Format, mode: Rounding, clamp: Clamp) -> Operand {
        let ity = if src == F64 { Ty::U64 } else { Ty::U32 };
        let w = src.width();
        let c = |v: u64| FnLower::ic(ity, v);
        let abs_mask = (1u64 << (w - 1)) - 1;
        let a = self.bin(BinaryOp::And, ity, bits, c(abs_mask));
        let sign = self.bin(BinaryOp::ShrU, ity, bits, FnLower::u32c(w - 1));
        let sign = self.resize(sign, ity, Ty::U32, false);
        let negative = self.cmp(CmpOp::Ne, Ty::U32, sign, FnLower::u32c(0));
        let is_nan = self.cmp(CmpOp::GtU, ity, a, c(src.inf_bits()));
        let is_inf = self.cmp(CmpOp::Eq, ity, a, c(src.inf_bits()));
        let e = self.bin(BinaryOp::ShrU, ity, a, FnLower::u32c(src.mant_bits));
        let e = self.resize(e, ity, Ty::U32, false);
        let mant = self.bin(BinaryOp::And, ity, a, c((1u64 << src.mant_bits) - 1));
        let sub = self.cmp(CmpOp::Eq, Ty::U32, e, FnLower::u32c(0));
        let lead = self.bin(BinaryOp::Or, ity, mant, c(1u64 << src.mant_bits));
        let s = self.select(ity, sub, mant, lead);
        // Unbiased exponent (two's complement in a U32); a subnormal source has emin.
        let e1 = self.select(Ty::U32, sub, FnLower::u32c(1), e);
        let ue = self.bin(BinaryOp::Sub, Ty::U32, e1, FnLower::u32c(src.bias() as u32));
        let ue = match scale {
            None => ue,
            Some(k) => {
                // A zero keeps its exponent: scaled, it would become a normal's base.
                let scaled = self.bin(BinaryOp::Add, Ty::U32, ue, k);
                let zero = self.cmp(CmpOp::Eq, ity, s, c(0));
                self.select(Ty::U32, zero, ue, scaled)
            }
        };
        let normal = self.cmp(CmpOp::GeS, Ty::U32, ue, FnLower::u32c(dst.emin() as i32 as u32));
        let drop = src.mant_bits - dst.mant_bits;
        // Below dst's normal range: drop (emin - ue) more bits, at most all of s and one more
        // (then everything is sticky and the half-way bit lies above s).
        let extra = self.bin(BinaryOp::Sub, Ty::U32, FnLower::u32c((drop as i64 + dst.emin()) as u32), ue);
        let extra = self.bin(BinaryOp::MinU, Ty::U32, extra, FnLower::u32c(src.mant_bits + 2));
        let shift = self.select(Ty::U32, normal, FnLower::u32c(drop), extra);
        let q = self.bin(BinaryOp::ShrU, ity, s, shift);
        let back = self.bin(BinaryOp::Shl, ity, q, shift);
        let rem = self.bin(BinaryOp::Sub, ity, s, back);
        let sm1 = self.bin(BinaryOp::Sub, Ty::U32, shift, FnLower::u32c(1));
        let half = self.bin(BinaryOp::Shl, ity, c(1), sm1);
        // base = (ue + bias - 1) << mant_bits for normal results, 0 otherwise.
        let be = self.bin(BinaryOp::Add, Ty::U32, ue, FnLower::u32c((dst.bias() - 1) as u32));
        let be = self.resize(be, Ty::U32, ity, false);
        let base = self.bin(BinaryOp::Shl, ity, be, FnLower::u32c(dst.mant_bits));
        let base = self.select(ity, normal, base, c(0));
        let r = self.bin(BinaryOp::Add, ity, base, q);
        let inexact = self.cmp(CmpOp::Ne, ity, rem, c(0));
        let inc = match mode {
            Rounding::Nearest => {
                let above = self.cmp(CmpOp::GtU, ity, rem, half);
                let tie = self.cmp(CmpOp::Eq, ity, rem, half);
                let lsb = self.bin(BinaryOp::And, ity, q, c(1));
                let odd = self.cmp(CmpOp::Ne, ity, lsb, c(0));
                let tie_odd = self.bin(BinaryOp::And, Ty::Bool, tie, odd);
                self.bin(BinaryOp::Or, Ty::Bool, above, tie_odd)
            }
            Rounding::Zero => Operand::Const(Const::Bool(false)),
            Rounding::Up => {
                let pos = self.un(UnaryOp::Not, Ty::Bool, negative);
                self.bin(BinaryOp::And, Ty::Bool, inexact, pos)
            }
            Rounding::Down => self.bin(BinaryOp::And, Ty::Bool, inexact, negative),
        };
        let r1 = self.bin(BinaryOp::Add, ity, r, c(1));
        let r = self.select(ity, inc, r1, r);
        let r = self.resize(r, ity, Ty::U64, false);
        let overflow = self.cmp(CmpOp::GtU, Ty::U64, r, FnLower::u64c(dst.max_bits()));
        let u = |v: u64| FnLower::u32c(v as u32);
        // Overflow goes to infinity (NaN without infinities) when rounding away from zero, else
        // to the largest finite.
        let huge = if dst.no_inf { dst.nan_bits() } else { dst.inf_bits() };
        let away = match mode {
            Rounding::Nearest => Operand::Const(Const::Bool(true)),
            Rounding::Zero => Operand::Const(Const::Bool(false)),
            Rounding::Up => self.un(UnaryOp::Not, Ty::Bool, negative),
            Rounding::Down => negative,
        };
        let big = if clamp.satfinite { u(dst.max_bits()) } else { self.select(Ty::U32, away, u(huge), u(dst.max_bits())) };
        let r = self.resize(r, Ty::U64, Ty::U32, false);
        let r = self.select(Ty::U32, overflow, big, r);
        let inf = if clamp.satfinite { u(dst.max_bits()) } else { u(huge) };
        let r = self.select(Ty::U32, is_inf, inf, r);
        let sb = self.bin(BinaryOp::Shl, Ty::U32, sign, FnLower::u32c(dst.width() - 1));
        let r = self.bin(BinaryOp::Or, Ty::U32, r, sb);
        let r = if clamp.relu { self.select(Ty::U32, negative, u(0), r) } else { r };
        self.select(Ty::U32, is_nan, u(dst.nan_bits()), r)
    }

    /// The exact f32 of a half value (`bits` in the low 16 bits of a `U32`), by integer
    /// operations: f16 subnormals are normalized, NaN payloads kept.
    pub fn half_to_f32(&mut self, bits: Operand, fmt: Format) -> Operand {
        let r = self.small_float_to_f32_bits(bits, fmt);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r)
    }

    /// The bits (in a `U32`) of the exact f32 of a value of a format narrower than f32 (in the
    /// low bits of a `U32`; higher bits ignored), by integer operations: subnormals are
    /// normalized, NaN payloads kept (a format without infinities gives 0x7fffffff for NaN).
    pub fn small_float_to_f32_bits(&mut self, bits: Operand, fmt: Format) -> Operand {
        let u = FnLower::u32c;
        let w = fmt.width();
        let bits = self.bin(BinaryOp::And, Ty::U32, bits, u((1u32 << w) - 1));
        if fmt == BF16 {
            return self.bin(BinaryOp::Shl, Ty::U32, bits, u(16));
        }
        let m = fmt.mant_bits;
        let sign = self.bin(BinaryOp::And, Ty::U32, bits, u(fmt.sign_bit() as u32));
        let sign = self.bin(BinaryOp::Shl, Ty::U32, sign, u(32 - w));
        let e = self.bin(BinaryOp::ShrU, Ty::U32, bits, u(m));
        let e = self.bin(BinaryOp::And, Ty::U32, e, u((1 << fmt.exp_bits) - 1));
        let mant = self.bin(BinaryOp::And, Ty::U32, bits, u((1 << m) - 1));
        // Normal: rebias the exponent; inf/NaN: all-ones exponent.
        let ne = self.bin(BinaryOp::Add, Ty::U32, e, u((127 - fmt.bias()) as u32));
        let ne = if fmt.no_inf {
            ne
        } else {
            let special = self.cmp(CmpOp::Eq, Ty::U32, e, u((1 << fmt.exp_bits) - 1));
            self.select(Ty::U32, special, u(0xff), ne)
        };
        let ne = self.bin(BinaryOp::Shl, Ty::U32, ne, u(23));
        let nm = self.bin(BinaryOp::Shl, Ty::U32, mant, u(23 - m));
        let normal = self.bin(BinaryOp::Or, Ty::U32, ne, nm);
        // Subnormal: mant · 2^(emin-m) with its top bit at p = 31 - clz(mant) becomes the f32
        // 2^(p+emin-m) · 1.xxx: exponent field p + emin - m + 127, mantissa shifted up by 23 - p.
        let lz = self.un(UnaryOp::CountLeadingZeros, Ty::U32, mant);
        let p = self.bin(BinaryOp::Sub, Ty::U32, u(31), lz);
        let se = self.bin(BinaryOp::Add, Ty::U32, p, u((127 + fmt.emin() - m as i64) as u32));
        let se = self.bin(BinaryOp::Shl, Ty::U32, se, u(23));
        let up = self.bin(BinaryOp::Sub, Ty::U32, u(23), p);
        let up = self.bin(BinaryOp::And, Ty::U32, up, u(31));
        let sm = self.bin(BinaryOp::Shl, Ty::U32, mant, up);
        let sm = self.bin(BinaryOp::And, Ty::U32, sm, u(0x7f_ffff));
        let subn = self.bin(BinaryOp::Or, Ty::U32, se, sm);
        let zero = self.cmp(CmpOp::Eq, Ty::U32, mant, u(0));
        let subn = self.select(Ty::U32, zero, u(0), subn);
        let is_sub = self.cmp(CmpOp::Eq, Ty::U32, e, u(0));
        let r = self.select(Ty::U32, is_sub, subn, normal);
        let r = self.bin(BinaryOp::Or, Ty::U32, r, sign);
        if fmt.no_inf {
            let mag = self.bin(BinaryOp::And, Ty::U32, bits, u(fmt.nan_bits() as u32));
            let nan = self.cmp(CmpOp::Eq, Ty::U32, mag, u(fmt.nan_bits() as u32));
            self.select(Ty::U32, nan, u(0x7fff_ffff), r)
        } else {
            r
        }
    }

    /// `.ftz` on a half value: a subnormal becomes the zero of its sign.
    pub(super) fn half_ftz(&mut self, bits: Operand, fmt: Format) -> Operand {
        let u = FnLower::u32c;
        let exp = self.bin(BinaryOp::And, Ty::U32, bits, u((fmt.inf_bits()) as u32));
        let den = self.cmp(CmpOp::Eq, Ty::U32, exp, u(0));
        let sign = self.bin(BinaryOp::And, Ty::U32, bits, u(fmt.sign_bit() as u32));
        self.select(Ty::U32, den, sign, bits)
    }

    /// An f64 rounded to `fmt`.
    fn f64_to_format(&mut self, x: Operand, fmt: Format, mode: Rounding, clamp: Clamp) -> Operand {
        let b = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, x);
        self.round_to_format(b, F64, fmt, mode, clamp)
    }

    /// `p + c` rounded to odd in `ty` (`F32` or `F64`; Boldo & Melquiond, see `fma`): one more
    /// rounding to a format at least two bits narrower is the correct rounding of the exact
    /// sum. TwoSum (Knuth) gives the sum's exact error where the additions round to nearest
    /// and nothing overflows or is flushed (callers make sure); the backends keep drivers from
    /// fusing or reassociating it (SPIR-V `NoContraction`, WGSL's opaque operands).
    ///
    /// Decided on bits, in few integer operations (this runs once per `fma.rn.f32` on devices
    /// whose `fma` is unfused). The sum is inexact exactly when the error is finite and not
    /// zero: where the sum `s` is infinite or NaN, so is `s - p` or `s - (s - p)` (∞ − ∞), and
    /// the error is NaN, so `s` stays as it is. An inexact `s` moves to its neighbour with an
    /// odd last bit on the error's side: `s | 1` when the error has `s`'s sign (`s + 1` for an
    /// even `s`, `s` itself for an odd one), `(s - 1) | 1` when the signs differ (`s - 1` for
    /// an even `s`, again `s` for an odd one). `s` is not zero there (a sum that rounds to
    /// zero is exact).
    pub fn add_round_to_odd(&mut self, ty: Ty, p: Operand, c: Operand) -> Operand {
        let (ity, fmt) = if ty == Ty::F64 { (Ty::U64, F64) } else { (Ty::U32, F32) };
        let k = |v: u64| FnLower::ic(ity, v);
        let s = self.bin(BinaryOp::FAdd, ty, p, c);
        let bb = self.bin(BinaryOp::FSub, ty, s, p);
        let t1 = self.bin(BinaryOp::FSub, ty, s, bb);
        let t2 = self.bin(BinaryOp::FSub, ty, p, t1);
        let t3 = self.bin(BinaryOp::FSub, ty, c, bb);
        let e = self.bin(BinaryOp::FAdd, ty, t2, t3);
        let sb = self.convert(ConvertOp::Bitcast, ty, ity, s);
        let eb = self.convert(ConvertOp::Bitcast, ty, ity, e);
        // 0 < |e| < ∞ on the bits: |e| − 1 wraps for a zero.
        let e_mag = self.bin(BinaryOp::And, ity, eb, k(fmt.sign_bit() - 1));
        let e_less = self.bin(BinaryOp::Sub, ity, e_mag, k(1));
        let inexact = self.cmp(CmpOp::LtU, ity, e_less, k(fmt.inf_bits() - 1));
        let signs = self.bin(BinaryOp::Xor, ity, eb, sb);
        let differ = self.bin(BinaryOp::ShrU, ity, signs, FnLower::u32c(fmt.sign_bit().trailing_zeros()));
        let toward = self.bin(BinaryOp::Sub, ity, sb, differ);
        let moved = self.bin(BinaryOp::Or, ity, toward, k(1));
        let odd = self.select(ity, inexact, moved, sb);
        self.convert(ConvertOp::Bitcast, ity, ty, odd)
    }

    /// The f32 `v` (flushed first under `.ftz`) rounded once on its bits to `fmt`: no float
    /// operation, so no f64 and no device flushing is involved.
    fn f32_to_half_bits(&mut self, v: Operand, ftz: bool, fmt: Format, mode: Rounding, clamp: Clamp) -> Operand {
        let v = if ftz { self.flush_denormal(v, ScalarType::F32) } else { v };
        let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, v);
        self.round_to_format(bits, F32, fmt, mode, clamp)
    }

    /// `cvt` where a side is a half type (called from `cvt`; `rounding` is the modifier).
    pub(super) fn cvt_half(&mut self, m: &Mods, dt: ScalarType, st: ScalarType) -> LResult<()> {
        m.only(&["rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "ftz", "sat", "relu", "satfinite"])?;
        let span = m.inst.span;
        let check = crate::operand_types::cvt_check(dt, st);
        let rounding = m.one_of(&["rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"]);
        let clamp = Clamp { satfinite: m.has("satfinite"), relu: m.has("relu") };
        if (clamp.satfinite || clamp.relu) && half_format(dt).is_none() {
            return Err(Diagnostic::new("`.relu`/`.satfinite` need a half-precision destination", span));
        }
        // §9.7.10.20 lists `.relu` for half destinations only with .f32 sources (ptxas, CUDA 13,
        // refuses `cvt.rn.relu.f16.s32`, `.bf16.f16`, `.f16.f64`: "Unexpected instruction types").
        if clamp.relu && st != ScalarType::F32 {
            return Err(invalid(format!("`.relu` on `{}`: a conversion to a half type takes `.relu` only from .f32 (§9.7.10.20)", m.name()), span));
        }
        let packed = matches!(dt, ScalarType::F16x2 | ScalarType::Bf16x2);
        if packed || matches!(st, ScalarType::F16x2 | ScalarType::Bf16x2) {
            if !packed || st != ScalarType::F32 {
                return Err(unsupported(format!("`{}`", m.name()), span));
            }
            let mode = rounding.and_then(Rounding::from_modifier).ok_or_else(|| {
                Diagnostic::new("conversions to packed halves need .rn/.rz/.rm/.rp", span)
            })?;
            let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
            let fmt = half_format(dt).unwrap_or(F16);
            let mut halves = [Operand::Const(Const::U32(0)); 2];
            for (h, op) in halves.iter_mut().zip([a, b]) {
                let v = self.read_checked(op, ScalarType::F32, check)?;
                *h = self.f32_to_half_bits(v, m.has("ftz"), fmt, mode, clamp);
            }
            let hi = self.bin(BinaryOp::Shl, Ty::U32, halves[0], FnLower::u32c(16));
            let r = self.bin(BinaryOp::Or, Ty::U32, hi, halves[1]);
            return self.write_checked(d, dt, r, check);
        }
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        // `.sat` limits float results to [0, 1] (f16/f32/f64 destinations); on an integer
        // destination of a float source it is redundant (§9.7.10.20: float-to-integer
        // conversions clamp by default). bf16 destinations have no `.sat`.
        let sat_float = m.has("sat") && matches!(dt, ScalarType::F16 | ScalarType::F32 | ScalarType::F64);
        if m.has("sat") && !sat_float && !(crate::ptx_types::is_int(dt) && half_format(st).is_some()) {
            return Err(Diagnostic::new(format!("`.sat` does not apply to `{}`", m.name()), span));
        }
        let float_rounding = rounding.is_none_or(|r| !r.ends_with('i'));
        if float_rounding && !m.has("sat") {
            // Between a half type and f32 no f64 is needed (devices and browsers without 64-bit
            // floats run these): a half widens exactly, and an f32 rounds once on its bits.
            // `.ftz` flushes f32 inputs and results (§9.7.10.20: "applies only to single
            // precision (.f32) inputs and results"): a bf16 subnormal is an f32 subnormal.
            if let (Some(fmt), ScalarType::F32) = (half_format(st), dt) {
                let v = self.read_checked(a, st, check)?;
                let f = self.half_to_f32(v, fmt);
                let f = if m.has("ftz") { self.flush_denormal(f, dt) } else { f };
                return self.write_checked(d, dt, f, check);
            }
            if let (ScalarType::F32, Some(fmt)) = (st, half_format(dt)) {
                let mode = rounding.and_then(Rounding::from_modifier).ok_or_else(|| {
                    Diagnostic::new(format!("`{}` needs a rounding modifier", m.name()), span)
                })?;
                let v = self.read_checked(a, st, check)?;
                let r = self.f32_to_half_bits(v, m.has("ftz"), fmt, mode, clamp);
                return self.write_checked(d, dt, r, check);
            }
        }
        if st != ScalarType::F64 && dt != ScalarType::F64 {
            let r = self.cvt_half_in_f32(m, a, dt, st, rounding, clamp)?;
            return self.write_checked(d, dt, r, check);
        }
        // An f64 side: the half side converts exactly to or from f64.
        let v = self.read_checked(a, st, check)?;
        let r = if let Some(fmt) = half_format(dt) {
            let x = if m.has("sat") { self.saturate(v, ScalarType::F64) } else { v };
            let mode = rounding.and_then(Rounding::from_modifier).ok_or_else(|| {
                Diagnostic::new(format!("`{}` needs .rn/.rz/.rm/.rp", m.name()), span)
            })?;
            self.f64_to_format(x, fmt, mode, clamp)
        } else {
            if rounding.is_some_and(|r| r.ends_with('i')) {
                return Err(Diagnostic::new("integer rounding needs the same source and destination type", span));
            }
            let f = self.half_to_f32(v, half_format(st).unwrap_or(F16));
            let x = self.convert(ConvertOp::FloatToFloat, Ty::F32, Ty::F64, f);
            if m.has("sat") {
                self.saturate(x, ScalarType::F64)
            } else {
                x
            }
        };
        self.write_checked(d, dt, r, check)
    }

    /// `cvt` with a half side and no f64 side (see `cvt_half`), in f32 and 32-bit integers, so it
    /// also runs without 64-bit floats: the source as an exact f32 (a half widens exactly; an
    /// integer bound for f16 is first clamped to ±2^17, beyond which every rounding of it to f16
    /// is the same, and an integer bound for bf16 is rounded on its bits), then rounded once.
    /// The result's bits (a `U32`, or the destination's value).
    fn cvt_half_in_f32(&mut self, m: &Mods, a: &ptxcross_frontend::ast::Operand, dt: ScalarType, st: ScalarType, rounding: Option<&str>, clamp: Clamp) -> LResult<Operand> {
        let span = m.inst.span;
        let int_rounding_op = rounding.filter(|r| r.ends_with('i')).map(int_rounding);
        let mode = rounding.and_then(Rounding::from_modifier);
        let v = self.read_checked(a, st, crate::operand_types::cvt_check(dt, st))?;
        if crate::ptx_types::is_int(st) {
            let fmt = half_format(dt).ok_or_else(|| unsupported(format!("`{}`", m.name()), span))?;
            let mode = mode.ok_or_else(|| Diagnostic::new(format!("`{}` needs .rn/.rz/.rm/.rp", m.name()), span))?;
            let signed = crate::ptx_types::is_signed(st);
            let wide = crate::ptx_types::bits(st) == 64;
            if fmt == BF16 {
                // bf16's range holds every 64-bit integer: rounded on the integer.
                let v = if wide { v } else { self.resize(v, Ty::U32, Ty::U64, signed) };
                let r = self.int64_to_float_bits(v, signed, BF16, mode);
                if !clamp.relu {
                    return Ok(r);
                }
                // `.relu`: a negative result (never NaN or −0 here) becomes +0.
                let neg = self.cmp(CmpOp::GeU, Ty::U32, r, FnLower::u32c(0x8000));
                return Ok(self.select(Ty::U32, neg, FnLower::u32c(0), r));
            }
            // f16: |x| ≥ 2^17 rounds like ±2^17 in every mode (to infinity or MAX_NORM); the
            // clamped integer is exact in f32.
            let lim = 1u64 << 17;
            let ity = if wide { Ty::U64 } else { Ty::U32 };
            let k = |x: u64| FnLower::int_const(ity, x);
            let c = if signed {
                let c = self.bin(BinaryOp::MinS, ity, v, k(lim));
                self.bin(BinaryOp::MaxS, ity, c, k(lim.wrapping_neg()))
            } else {
                self.bin(BinaryOp::MinU, ity, v, k(lim))
            };
            let c = if wide { self.resize(c, Ty::U64, Ty::U32, false) } else { c };
            let op = if signed { ConvertOp::SintToFloat } else { ConvertOp::UintToFloat };
            let x = self.convert(op, Ty::U32, Ty::F32, c);
            let x = if m.has("sat") { self.saturate(x, ScalarType::F32) } else { x };
            return Ok(self.f32_to_half_bits(x, false, F16, mode, clamp));
        }
        let x = match half_format(st) {
            Some(fmt) => self.half_to_f32(v, fmt),
            None if st == ScalarType::F32 => {
                if m.has("ftz") {
                    self.flush_denormal(v, st)
                } else {
                    v
                }
            }
            None => return Err(unsupported(format!("`{}`", m.name()), span)),
        };
        if crate::ptx_types::is_int(dt) {
            // Half → integer: the exact f32 with cvt's integer rounding.
            let op = int_rounding_op.ok_or_else(|| Diagnostic::new("float-to-integer `cvt` needs .rni/.rzi/.rmi/.rpi", span))?;
            return Ok(self.float_to_int(x, ScalarType::F32, st, dt, op));
        }
        let x = match int_rounding_op {
            Some(_) if st != dt => return Err(Diagnostic::new("integer rounding needs the same source and destination type", span)),
            // Integral values of a half are halves: rounding back is exact.
            Some(op) => self.un(op, Ty::F32, x),
            None => x,
        };
        let x = if m.has("sat") { self.saturate(x, ScalarType::F32) } else { x };
        match half_format(dt) {
            Some(fmt) => {
                let mode = match mode {
                    Some(mode) => mode,
                    // Same type (integer rounding, `.ftz`/`.sat` only): exact.
                    None if st == dt => Rounding::Nearest,
                    None => return Err(Diagnostic::new(format!("`{}` needs a rounding modifier", m.name()), span)),
                };
                Ok(self.f32_to_half_bits(x, false, fmt, mode, clamp))
            }
            // Half → f32 (`.sat`): exact.
            None => Ok(if m.has("ftz") { self.flush_denormal(x, dt) } else { x }),
        }
    }

    /// add/sub/mul/fma/min/max/neg/abs on `.f16`, `.bf16` and the packed forms (§9.7.4).
    pub(super) fn half_arith(&mut self, m: &Mods) -> LResult<()> {
        let name = m.inst.opcode.name.as_str();
        let t = m.ty()?;
        let fmt = half_format(t).ok_or_else(|| Diagnostic::new(format!("`{}` needs a half type", m.name()), m.inst.span))?;
        let packed = matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2);
        let ftz = m.has("ftz");
        let sat = m.has("sat");
        let relu = m.has("relu");
        let nan_mode = m.has("NaN");
        if fmt == BF16 && (ftz || sat) {
            return Err(Diagnostic::new(format!("`{}`: .ftz/.sat apply to f16 only", m.name()), m.inst.span));
        }
        let arity = match name {
            "add" | "sub" | "mul" => {
                m.only(&["rn", "ftz", "sat"])?;
                2
            }
            "fma" => {
                m.only(&["rn", "ftz", "sat", "relu"])?;
                if !m.has("rn") {
                    return Err(Diagnostic::new("half-precision `fma` needs .rn", m.inst.span));
                }
                3
            }
            "min" | "max" => {
                m.only(&["ftz", "NaN", "xorsign", "abs"])?;
                if m.has("xorsign") != m.has("abs") {
                    return Err(Diagnostic::new("`.xorsign` and `.abs` go together", m.inst.span));
                }
                2
            }
            "neg" | "abs" => {
                m.only(&["ftz"])?;
                1
            }
            _ => return Err(unsupported(format!("`{}`", m.name()), m.inst.span)),
        };
        let ops = operands(m.inst, arity + 1)?;
        let mut srcs = Vec::new();
        for op in &ops[1..] {
            srcs.push(self.read(op, t)?);
        }
        let lanes: &[u32] = if packed { &[0, 16] } else { &[0] };
        let mut result = FnLower::u32c(0);
        for &lane in lanes {
            let mut xs = Vec::new();
            for &s in &srcs {
                let h = self.bin(BinaryOp::ShrU, Ty::U32, s, FnLower::u32c(lane));
                let h = self.bin(BinaryOp::And, Ty::U32, h, FnLower::u32c(0xffff));
                xs.push(if ftz { self.half_ftz(h, fmt) } else { h });
            }
            let r = match name {
                "neg" | "abs" => {
                    // "NaN inputs yield an unspecified NaN" (§9.7.4.5/6); observed on an NVIDIA
                    // H200, driver 580: every NaN input of neg/abs .f16/.bf16 gives the
                    // canonical NaN 0x7fff (the sign flip applies to numbers only).
                    let sb = fmt.sign_bit() as u32;
                    let r = if name == "neg" {
                        self.bin(BinaryOp::Xor, Ty::U32, xs[0], FnLower::u32c(sb))
                    } else {
                        self.bin(BinaryOp::And, Ty::U32, xs[0], FnLower::u32c(!sb & 0xffff))
                    };
                    let mag = self.bin(BinaryOp::And, Ty::U32, xs[0], FnLower::u32c(!sb & 0xffff));
                    let nan = self.cmp(CmpOp::GtU, Ty::U32, mag, FnLower::u32c(fmt.inf_bits() as u32));
                    self.select(Ty::U32, nan, FnLower::u32c(0x7fff), r)
                }
                "min" | "max" => {
                    // The f32 rules of min/max (NaN → the other operand, two NaNs → canonical
                    // NaN, −0 < +0) on exact widenings; the result is one of the operands (or
                    // the canonical NaN), so narrowing it back is exact.
                    let a = self.half_to_f32(xs[0], fmt);
                    let b = self.half_to_f32(xs[1], fmt);
                    let r = self.min_max_modifiers(name == "min", ScalarType::F32, a, b, nan_mode, m.has("xorsign"));
                    self.f32_to_half_bits(r, false, fmt, Rounding::Nearest, Clamp::default())
                }
                _ => self.half_add_sub_mul_fma(name, fmt, &xs, ftz, sat, relu),
            };
            let r = self.bin(BinaryOp::Shl, Ty::U32, r, FnLower::u32c(lane));
            result = self.bin(BinaryOp::Or, Ty::U32, result, r);
        }
        self.write(&ops[0], t, result)
    }
}

impl FnLower {
    /// `a cmp b` on two half values (`fmt`, in the low 16 bits of `U32`s) by their value
    /// (§9.7.8: ordered comparisons are false with a NaN operand, the unordered ones true,
    /// −0 equals +0), on integers: a magnitude above the exponent mask is NaN, and the
    /// sign-magnitude bits map to a signed integer (−mag for negative values) ordered like
    /// the values. Exact on any device, subnormals included.
    pub(super) fn half_compare(&mut self, cmp: &str, fmt: Format, a: Operand, b: Operand, span: Span) -> LResult<Operand> {
        let u = FnLower::u32c;
        let mut keys = Vec::new();
        let mut nans = Vec::new();
        for x in [a, b] {
            let mag = self.bin(BinaryOp::And, Ty::U32, x, u(0x7fff));
            nans.push(self.cmp(CmpOp::GtU, Ty::U32, mag, u(fmt.inf_bits() as u32)));
            let s = self.bin(BinaryOp::And, Ty::U32, x, u(0x8000));
            let neg = self.cmp(CmpOp::Ne, Ty::U32, s, u(0));
            let minus = self.bin(BinaryOp::Sub, Ty::U32, u(0), mag);
            keys.push(self.select(Ty::U32, neg, minus, mag));
        }
        let unordered = self.bin(BinaryOp::Or, Ty::Bool, nans[0], nans[1]);
        let base = cmp.strip_suffix('u').filter(|b| b.len() == 2).unwrap_or(cmp);
        let op = match base {
            "eq" => CmpOp::Eq,
            "ne" => CmpOp::Ne,
            "lt" => CmpOp::LtS,
            "le" => CmpOp::LeS,
            "gt" => CmpOp::GtS,
            "ge" => CmpOp::GeS,
            "num" => return Ok(self.un(UnaryOp::Not, Ty::Bool, unordered)),
            "nan" => return Ok(unordered),
            _ => return Err(Diagnostic::new(format!("`.{cmp}` does not apply to half-precision values"), span)),
        };
        let r = self.cmp(op, Ty::U32, keys[0], keys[1]);
        Ok(if base != cmp {
            self.bin(BinaryOp::Or, Ty::Bool, r, unordered)
        } else {
            let ordered = self.un(UnaryOp::Not, Ty::Bool, unordered);
            self.bin(BinaryOp::And, Ty::Bool, r, ordered)
        })
    }

    /// The comparisons of the two lanes of packed halves `a` and `b` (type `t`, §9.7.8): low
    /// lane first; `.ftz` (f16x2 only) flushes subnormal inputs.
    pub(super) fn packed_half_compare(&mut self, cmp: &str, t: ScalarType, a: Operand, b: Operand, m: &Mods) -> LResult<[Operand; 2]> {
        let fmt = half_format(t).unwrap_or(F16);
        let mut out = [Operand::Const(Const::Bool(false)); 2];
        for (lane, o) in [0, 16].into_iter().zip(out.iter_mut()) {
            let mut xs = [a, b];
            for x in xs.iter_mut() {
                let h = self.bin(BinaryOp::ShrU, Ty::U32, *x, FnLower::u32c(lane));
                let h = self.bin(BinaryOp::And, Ty::U32, h, FnLower::u32c(0xffff));
                *x = if m.has("ftz") { self.half_ftz(h, fmt) } else { h };
            }
            *o = self.half_compare(cmp, fmt, xs[0], xs[1], m.inst.span)?;
        }
        Ok(out)
    }
}

fn int_rounding(r: &str) -> UnaryOp {
    match r {
        "rni" => UnaryOp::FRoundEven,
        "rzi" => UnaryOp::FTrunc,
        "rmi" => UnaryOp::FFloor,
        _ => UnaryOp::FCeil,
    }
}
