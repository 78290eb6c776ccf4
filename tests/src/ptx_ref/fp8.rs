//! `cvt` with the alternate formats `.e4m3x2`, `.e5m2x2` and `.tf32` (spec §5.2.3, §9.7.9.21).
//! The 8-bit encodings and their rounding come from rustc_apfloat's `Float8E4M3FN` and
//! `Float8E5M2` (LLVM's APFloat); `.satfinite`, `.relu` and NaN rules are written here from
//! the spec text. tf32 is rounded here in f64 arithmetic (apfloat has no tf32).

use crate::ptx_ref::half::Fmt;
use crate::sweep::{Expect, Half8 as Lane8};
use rustc_apfloat::ieee::{Double, Float8E4M3FN, Float8E5M2, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

/// The two 8-bit formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fp8 {
    /// bias 7, no infinities, NaN = S.1111.111, MAX_NORM 448.
    E4m3,
    /// bias 15, IEEE-like, MAX_NORM 57344.
    E5m2,
}

impl Fp8 {
    pub fn suffix(self) -> &'static str {
        match self {
            Fp8::E4m3 => "e4m3x2",
            Fp8::E5m2 => "e5m2x2",
        }
    }
    pub fn max_norm(self) -> u8 {
        match self {
            Fp8::E4m3 => 0x7e,
            Fp8::E5m2 => 0x7b,
        }
    }
    pub fn is_nan(self, b: u8) -> bool {
        b & 0x7f > self.nan_above()
    }
    /// The magnitudes above this are NaN (e4m3: only 0x7f; e5m2: 0x7d..0x7f).
    pub fn nan_above(self) -> u8 {
        match self {
            Fp8::E4m3 => 0x7e,
            Fp8::E5m2 => 0x7c,
        }
    }
    /// The exact value of an 8-bit float.
    pub fn to_f64(self, b: u8) -> f64 {
        let mut lose = false;
        let d: Double = match self {
            Fp8::E4m3 => Float8E4M3FN::from_bits(b as u128).convert_r(Round::NearestTiesToEven, &mut lose).value,
            Fp8::E5m2 => Float8E5M2::from_bits(b as u128).convert_r(Round::NearestTiesToEven, &mut lose).value,
        };
        f64::from_bits(d.to_bits() as u64)
    }
    /// A finite `x` of at most MAX_NORM's magnitude (after rounding) rounded to nearest even.
    fn round<F: FloatConvert<Float8E4M3FN> + FloatConvert<Float8E5M2>>(self, x: F) -> u8 {
        let mut lose = false;
        let rn = Round::NearestTiesToEven;
        match self {
            Fp8::E4m3 => FloatConvert::<Float8E4M3FN>::convert_r(x, rn, &mut lose).value.to_bits() as u8,
            Fp8::E5m2 => FloatConvert::<Float8E5M2>::convert_r(x, rn, &mut lose).value.to_bits() as u8,
        }
    }
}

/// One 8-bit lane of `cvt.rn.satfinite{.relu}.f8x2type.{f32,f16x2}` from the exact value `x`
/// (`rounded`: `x` rounded to nearest even by apfloat, meaningful where |x| <= MAX_NORM):
/// NaN gives a NaN of the format (with `.relu` the canonical NaN, taken as 0x7f: all ones
/// but the sign, like PTX's 0x7fff and 0x7fffffff); |x| > MAX_NORM (infinities too) gives
/// ±MAX_NORM; `.relu` makes negative results +0.
fn finish_fp8(f: Fp8, x: f64, rounded: u8, relu: bool) -> Lane8 {
    if x.is_nan() {
        return if relu { Lane8::Bits(0x7f) } else { Lane8::AnyNan(f.nan_above()) };
    }
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    let r = if x.abs() > f.to_f64(f.max_norm()) { sign | f.max_norm() } else { rounded };
    if relu && r & 0x80 != 0 {
        // "clamps the result to 0 if negative": −0 is not negative, the spec leaves its sign.
        return if r == 0x80 { Lane8::Either(0, 0x80) } else { Lane8::Bits(0) };
    }
    Lane8::Bits(r)
}

/// An f32 (bits) to one 8-bit lane.
pub fn f32_to_fp8(a: u32, f: Fp8, relu: bool) -> Lane8 {
    let x = f32::from_bits(a);
    let rounded = if x.is_finite() { f.round(Single::from_bits(a as u128)) } else { 0 };
    finish_fp8(f, x as f64, rounded, relu)
}

/// An f16 (bits) to one 8-bit lane (apfloat rounds from f16 directly).
pub fn f16_to_fp8(h: u16, f: Fp8, relu: bool) -> Lane8 {
    let x = Fmt::F16.to_f64(h);
    let rounded = if x.is_finite() { f.round(Half::from_bits(h as u128)) } else { 0 };
    finish_fp8(f, x, rounded, relu)
}

/// The 16-bit result `d[15:8] = hi, d[7:0] = lo` of a conversion to `.f8x2type` (the
/// harness stores the `.b16` register zero-extended).
pub fn pack8(hi: Lane8, lo: Lane8) -> Expect {
    match (hi, lo) {
        (Lane8::Bits(h), Lane8::Bits(l)) => Expect::Bits((h as u64) << 8 | l as u64),
        _ => Expect::Pair8(hi, lo),
    }
}

/// One f16 lane of `cvt.rn{.relu}.f16x2.f8x2type` from an 8-bit value: exact; NaN gives an
/// f16 NaN (with `.relu` the canonical 0x7fff); `.relu` makes negatives +0.
pub fn fp8_to_f16(b: u8, f: Fp8, relu: bool) -> crate::sweep::Half16 {
    use crate::sweep::Half16;
    if f.is_nan(b) {
        return if relu { Half16::Bits(0x7fff) } else { Half16::AnyNan(0x7c00) };
    }
    let x = f.to_f64(b);
    let h = Fmt::F16.round(x, Round::NearestTiesToEven);
    assert_eq!(Fmt::F16.to_f64(h), x, "every 8-bit float is exact in f16");
    if relu && h & 0x8000 != 0 {
        return if h == 0x8000 { Half16::Either(0, 0x8000) } else { Half16::Bits(0) };
    }
    Half16::Bits(h)
}

/// tf32 rounding mode of `cvt`: `.rna` (ties away), `.rn` (ties to even), `.rz`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tf32Round {
    Rna,
    Rn,
    Rz,
}

/// `cvt.{rna,rn,rz}{.relu}{.satfinite}.tf32.f32` (§9.7.9.21). tf32 has f32's range and 10
/// mantissa bits (§5.2.3: ">= 10 bits"; its layout is implementation-defined, taken as the f32
/// bits with the low 13 zero, which is how CUDA's headers and CUTLASS read it back). So the
/// value is rounded to a multiple of 2^(max(e, -126) - 10) for |x| in [2^e, 2^(e+1));
/// a result of 2^128 or more is infinity. `.satfinite`: |x| > MAX_NORM = (2 - 2^-10)·2^127
/// gives ±MAX_NORM. NaN: the spec says a NaN (canonical with `.relu`); these are NVIDIA's bits
/// (sm_90, H100, driver 580, through the CUDA driver's PTX JIT, 2026-11-26): `.rn`/`.rz` give
/// 0x7fffe000 (the canonical NaN cut to tf32), `.rna` truncates the NaN to tf32 (so a NaN
/// with payload only in the low 13 bits becomes ±infinity), and `.rna.satfinite` then makes
/// any all-ones exponent one tf32 ulp smaller (infinity → MAX_NORM, 0x7fc00000 → 0x7fbfe000).
pub fn cvt_tf32(a: u32, mode: Tf32Round, relu: bool, satfinite: bool) -> Expect {
    let x = f32::from_bits(a) as f64;
    if x.is_nan() {
        if mode != Tf32Round::Rna {
            return Expect::Bits(0x7fff_e000);
        }
        let t = a & 0xffff_e000;
        let t = if satfinite && t & 0x7f80_0000 == 0x7f80_0000 { t - 0x2000 } else { t };
        return Expect::Bits(t as u64);
    }
    let max_norm = (2.0 - 2f64.powi(-10)) * 2f64.powi(127);
    let r = if satfinite && x.abs() > max_norm {
        max_norm.copysign(x)
    } else if x.is_infinite() || x == 0.0 {
        x
    } else {
        let e = x.abs().log2().floor() as i32;
        // log2 of a value near a power of two may land on the wrong side: fix e exactly.
        let e = if 2f64.powi(e) > x.abs() { e - 1 } else if 2f64.powi(e + 1) <= x.abs() { e + 1 } else { e };
        let ulp = 2f64.powi(e.max(-126) - 10);
        let q = x / ulp; // exact: a power-of-two scaling
        let q = match mode {
            Tf32Round::Rna => q.round(),
            Tf32Round::Rn => q.round_ties_even(),
            Tf32Round::Rz => q.trunc(),
        };
        let r = q * ulp;
        if r.abs() >= 2f64.powi(128) {
            f64::INFINITY.copysign(x)
        } else {
            r
        }
    };
    let bits = (r as f32).to_bits();
    assert_eq!((r as f32) as f64, r, "tf32 values are exact in f32");
    if relu && bits & 0x8000_0000 != 0 {
        return if bits == 0x8000_0000 { Expect::Either(0, 0x8000_0000) } else { Expect::Bits(0) };
    }
    Expect::Bits(bits as u64)
}

/// A half-precision comparison of `setp`/`set` (§9.7.8): the values' comparison per
/// [`crate::ptx_ref::float::compare`], after `.ftz` (f16: subnormal inputs become zeros).
pub fn half_compare(cmp: &str, fmt: Fmt, a: u16, b: u16, ftz: bool) -> bool {
    let v = |h: u16| fmt.to_f64(if ftz { fmt.ftz(h) } else { h });
    crate::ptx_ref::float::compare(cmp, v(a), v(b))
}
