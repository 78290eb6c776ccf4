//! Half precision (spec §9.7.4, §9.7.9.21 `cvt`), with rustc_apfloat (LLVM's APFloat, an
//! independent IEEE 754 implementation of every format and rounding direction) for the
//! rounding itself, and the spec's rules for `.ftz`, `.sat`, `.relu`, `.satfinite` and NaNs
//! written here.

use crate::sweep::Expect;
use rustc_apfloat::ieee::{BFloat, Double, Half, Quad, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

/// The two 16-bit formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    F16,
    Bf16,
}

impl Fmt {
    pub fn suffix(self) -> &'static str {
        match self {
            Fmt::F16 => "f16",
            Fmt::Bf16 => "bf16",
        }
    }
    pub fn max_norm(self) -> u16 {
        match self {
            Fmt::F16 => 0x7bff,
            Fmt::Bf16 => 0x7f7f,
        }
    }
    pub fn exp_mask(self) -> u16 {
        match self {
            Fmt::F16 => 0x7c00,
            Fmt::Bf16 => 0x7f80,
        }
    }
    pub fn is_nan(self, h: u16) -> bool {
        h & 0x7fff > self.exp_mask()
    }
    /// The exact value of a half as f64.
    pub fn to_f64(self, h: u16) -> f64 {
        let mut lose = false;
        let d: Double = match self {
            Fmt::F16 => Half::from_bits(h as u128).convert_r(Round::NearestTiesToEven, &mut lose).value,
            Fmt::Bf16 => BFloat::from_bits(h as u128).convert_r(Round::NearestTiesToEven, &mut lose).value,
        };
        f64::from_bits(d.to_bits() as u64)
    }
    /// `x` (an f64) rounded to this format.
    pub fn round(self, x: f64, r: Round) -> u16 {
        let mut lose = false;
        let d = Double::from_bits(x.to_bits() as u128);
        match self {
            Fmt::F16 => FloatConvert::<Half>::convert_r(d, r, &mut lose).value.to_bits() as u16,
            Fmt::Bf16 => FloatConvert::<BFloat>::convert_r(d, r, &mut lose).value.to_bits() as u16,
        }
    }
    /// `.ftz` on a half: subnormals become the zero of their sign.
    pub fn ftz(self, h: u16) -> u16 {
        if h & self.exp_mask() == 0 {
            h & 0x8000
        } else {
            h
        }
    }
}

/// An f32 rounded to f16 with apfloat (no detour through f64: a direct reference).
pub fn f32_to_half(x: u32, fmt: Fmt, r: Round) -> u16 {
    let mut lose = false;
    let s = Single::from_bits(x as u128);
    match fmt {
        Fmt::F16 => FloatConvert::<Half>::convert_r(s, r, &mut lose).value.to_bits() as u16,
        Fmt::Bf16 => FloatConvert::<BFloat>::convert_r(s, r, &mut lose).value.to_bits() as u16,
    }
}

pub fn round_of(m: &str) -> Round {
    match m {
        "rn" => Round::NearestTiesToEven,
        "rz" => Round::TowardZero,
        "rm" => Round::TowardNegative,
        _ => Round::TowardPositive,
    }
}

/// The expectation of a rounded half result `h` of the exact input `x`, after `.relu` and
/// `.satfinite` (§9.7.9.21): satfinite maps |x| > MAX_NORM (infinities too) to ±MAX_NORM and
/// keeps NaN a NaN; relu clamps negative results to 0 and NaN to the canonical NaN 0x7fff.
/// Without either, a NaN result is an unspecified NaN.
pub fn finish(fmt: Fmt, x: f64, h: u16, relu: bool, satfinite: bool) -> Expect {
    let mut h = h;
    if x.is_nan() {
        return if relu { Expect::Bits(0x7fff) } else { Expect::AnyNanHalf(fmt.exp_mask()) };
    }
    if satfinite && x.abs() > fmt.to_f64(fmt.max_norm()) {
        h = (h & 0x8000) | fmt.max_norm();
    }
    if relu && h & 0x8000 != 0 {
        // "clamps the result to 0 if negative": −0 is not negative, the spec leaves its sign.
        return if h == 0x8000 { Expect::Either(0, 0x8000) } else { Expect::Bits(0) };
    }
    Expect::Bits(h as u64)
}

/// `cvt.frnd{.relu}{.satfinite}.{f16,bf16}.f32`.
pub fn cvt_half_f32(a: u32, fmt: Fmt, r: Round, relu: bool, satfinite: bool) -> Expect {
    finish(fmt, f32::from_bits(a) as f64, f32_to_half(a, fmt, r), relu, satfinite)
}

/// `cvt.frnd.{f16,bf16}.f64`.
pub fn cvt_half_f64(a: u64, fmt: Fmt, r: Round) -> Expect {
    let x = f64::from_bits(a);
    finish(fmt, x, fmt.round(x, r), false, false)
}

/// `cvt.f32.{f16,bf16}`: exact; NaN → unspecified NaN ("For cvt.f32.bf16, NaN input yields
/// unspecified NaN").
pub fn cvt_f32_half(h: u16, fmt: Fmt) -> Expect {
    let x = fmt.to_f64(h);
    crate::ptx_ref::float::exact_f32(x as f32)
}

/// add/sub/mul/fma `.rn{.ftz}{.sat}{.relu}` on one half lane (§9.7.4.1–4): the exact result
/// rounded once to nearest even; `.ftz` flushes subnormal inputs and results; `.sat` clamps to
/// [+0, 1] with NaN → +0; `.relu` clamps negatives to 0 and NaN to the canonical NaN.
pub fn arith(op: &str, fmt: Fmt, xs: &[u16], ftz: bool, sat: bool, relu: bool) -> Expect {
    let xs: Vec<u16> = xs.iter().map(|&h| if ftz { fmt.ftz(h) } else { h }).collect();
    macro_rules! run {
        ($t:ty) => {{
            let v: Vec<$t> = xs.iter().map(|&h| <$t>::from_bits(h as u128)).collect();
            let rn = Round::NearestTiesToEven;
            let r = match op {
                "add" => v[0].add_r(v[1], rn).value,
                "sub" => v[0].sub_r(v[1], rn).value,
                "mul" => v[0].mul_r(v[1], rn).value,
                _ => v[0].mul_add_r(v[1], v[2], rn).value,
            };
            r.to_bits() as u16
        }};
    }
    let mut h = match fmt {
        Fmt::F16 => run!(Half),
        Fmt::Bf16 => run!(BFloat),
    };
    if ftz {
        h = fmt.ftz(h);
    }
    // `.ftz` flushes a result that is tiny after rounding with an unbounded exponent (IEEE 754's
    // "after rounding" tininess; §9.7.4 only says subnormal results are flushed). Observed on an
    // NVIDIA H200, driver 580: mul.rn.ftz.f16 0x0400 × 0x3bff (exactly 0x0400·(1 − 2^-11))
    // gives +0, fma.rn.ftz.f16 0x0400 × 0x0400 + 0x8400 gives 0x8400. Rounded to nearest at
    // precision p, that is |exact| < min_normal·(1 − 2^-(p+1)). The exact result is computed in
    // quad precision (exact for f16; for bf16 far closer than that band needs).
    if ftz && (op == "mul" || op == "fma") {
        let quad = |x: f64| -> Quad { FloatConvert::<Quad>::convert_r(Double::from_bits(x.to_bits() as u128), Round::NearestTiesToEven, &mut false).value };
        let q: Vec<Quad> = xs.iter().map(|&h| quad(fmt.to_f64(h))).collect();
        let rn = Round::NearestTiesToEven;
        let exact = if op == "mul" { q[0].mul_r(q[1], rn).value } else { q[0].mul_add_r(q[1], q[2], rn).value };
        let min_normal = fmt.to_f64(fmt.exp_mask() & fmt.exp_mask().wrapping_neg());
        let precision = if fmt == Fmt::F16 { 11 } else { 8 };
        let band = quad(min_normal * (1.0 - 2f64.powi(-(precision + 1))));
        if exact.is_finite() && exact.abs() < band {
            h &= 0x8000;
        }
    }
    if fmt.is_nan(h) {
        return if sat {
            Expect::Bits(0)
        } else if relu {
            Expect::Bits(0x7fff)
        } else {
            Expect::AnyNanHalf(fmt.exp_mask())
        };
    }
    if sat {
        let x = fmt.to_f64(h);
        h = if x <= 0.0 { 0 } else if x > 1.0 { fmt.round(1.0, Round::NearestTiesToEven) } else { h };
    }
    if relu && h & 0x8000 != 0 {
        return if h == 0x8000 { Expect::Either(0, 0x8000) } else { Expect::Bits(0) };
    }
    Expect::Bits(h as u64)
}

/// neg/abs on one half lane (§9.7.4.5/6): the sign bit flipped or cleared; "NaN inputs yield
/// an unspecified NaN", and observed on an NVIDIA H200, driver 580, that NaN is always the
/// canonical 0x7fff (for f16 and bf16).
pub fn neg_abs(neg: bool, fmt: Fmt, h: u16) -> u16 {
    if fmt.is_nan(h) {
        0x7fff
    } else if neg {
        h ^ 0x8000
    } else {
        h & 0x7fff
    }
}

/// min/max{.NaN} on one half lane (§9.7.4.9/10): a NaN operand yields the other, two NaNs
/// (or any NaN with `.NaN`) the canonical NaN; −0 is below +0.
pub fn min_max(is_min: bool, fmt: Fmt, a: u16, b: u16, nan_mode: bool) -> Expect {
    let (na, nb) = (fmt.is_nan(a), fmt.is_nan(b));
    if (na && nb) || (nan_mode && (na || nb)) {
        return Expect::Bits(0x7fff);
    }
    if na {
        return Expect::Bits(b as u64);
    }
    if nb {
        return Expect::Bits(a as u64);
    }
    let key = |h: u16| {
        let x = fmt.to_f64(h);
        (x, h & 0x8000 == 0)
    };
    let (ka, kb) = (key(a), key(b));
    let a_less = ka.0 < kb.0 || (ka.0 == kb.0 && !ka.1 && kb.1);
    let pick = if is_min == a_less { a } else { b };
    Expect::Bits(pick as u64)
}
