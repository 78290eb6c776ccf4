//! Single/double-precision rules (spec §9.7.3, §9.7.9.21 `cvt`), on raw bits. Rust's `f32`
//! and `f64` arithmetic is IEEE 754 round-to-nearest-even, which is what `.rn` means.

use crate::sweep::Expect;

pub const F32_MIN_NORMAL: f32 = f32::MIN_POSITIVE;

/// Subnormal (nonzero with a zero exponent field).
pub fn is_subnormal(x: f32) -> bool {
    x != 0.0 && x.abs() < F32_MIN_NORMAL
}

/// `.ftz`: "flush subnormal inputs and results to sign-preserving zero" (§9.7.3).
pub fn ftz(x: f32) -> f32 {
    if is_subnormal(x) {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// `mul.ftz`: whether the exact product `p` (of flushed operands) is flushed. §9.7.3: ".ftz
/// flushes subnormal inputs and results to sign-preserving zero", without saying whether a
/// result is subnormal before or after rounding. Observed on an NVIDIA H200, driver 580: `mul`
/// (f32, f16, every rounding mode) flushes when the exact product is below the smallest normal
/// (0x00800000 × 0x3f7fffff gives +0, not 0x00800000); add/sub/fma flush after rounding.
pub fn mul_ftz_tiny(p: f64, min_normal: f64) -> bool {
    p.abs() < min_normal
}

/// `fma.rn.ftz.f32`: whether the result is flushed. Observed on an NVIDIA H200, driver 580: when
/// the exact a·b + c, rounded to nearest at 24 bits with an unbounded exponent, is below 2^-126
/// (IEEE 754 tininess after rounding), i.e. |a·b + c| < 2^-126·(1 − 2^-25): 0x00800000 ×
/// 0x3f7fffff + 0 gives +0, 0x00800000 × 0x00800000 − 2^-126 gives −2^-126. Computed in quad
/// precision, exact for the sums that can land there.
pub fn fma_ftz_tiny(v: &[f32]) -> bool {
    use rustc_apfloat::ieee::{Quad, Single};
    use rustc_apfloat::{Float, FloatConvert, Round};
    let q: Vec<Quad> = v.iter().map(|x| Single::from_bits(x.to_bits() as u128).convert_r(Round::NearestTiesToEven, &mut false).value).collect();
    let exact = q[0].mul_add_r(q[1], q[2], Round::NearestTiesToEven).value;
    let band: Quad = rustc_apfloat::ieee::Double::from_bits((2f64.powi(-126) * (1.0 - 2f64.powi(-25))).to_bits() as u128)
        .convert_r(Round::NearestTiesToEven, &mut false)
        .value;
    exact.is_finite() && !exact.is_zero() && exact.abs() < band
}

/// `.sat` on f32: "clamps the result to [0.0, 1.0]. NaN results are flushed to +0.0f"
/// (§9.7.3.1). −0.0 is not in [+0.0, 1.0]: it becomes +0.0.
pub fn sat_f32(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        x
    }
}

pub fn sat_f64(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        x
    }
}

/// The expectation for an f32 result: single-precision instructions "return an unspecified
/// NaN" (§9.7.3), so any NaN matches a NaN.
pub fn exact_f32(x: f32) -> Expect {
    if x.is_nan() {
        Expect::AnyNanF32
    } else {
        Expect::Bits(x.to_bits() as u64)
    }
}

pub fn exact_f64(x: f64) -> Expect {
    if x.is_nan() {
        Expect::AnyNanF64
    } else {
        Expect::Bits(x.to_bits())
    }
}

/// The size of one unit in the last place of an f32 of magnitude `x` (subnormal spacing below
/// the smallest normal).
pub fn ulp_f32_at(x: f64) -> f64 {
    let a = x.abs();
    if a < F32_MIN_NORMAL as f64 {
        return 2f64.powi(-149);
    }
    let e = a.log2().floor() as i32;
    // log2 can be off by one right at a power of two: fix it up.
    let e = if 2f64.powi(e) > a { e - 1 } else if 2f64.powi(e + 1) <= a { e + 1 } else { e };
    2f64.powi(e.min(127) - 23)
}

/// The integer rounding modifiers of `cvt` (§9.7.9.21 "Integer Notes").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntRound {
    /// `.rni`: nearest, ties to even.
    Rni,
    /// `.rzi`: toward zero.
    Rzi,
    /// `.rmi`: toward −∞.
    Rmi,
    /// `.rpi`: toward +∞.
    Rpi,
}

impl IntRound {
    pub const ALL: [IntRound; 4] = [IntRound::Rni, IntRound::Rzi, IntRound::Rmi, IntRound::Rpi];
    pub fn suffix(self) -> &'static str {
        match self {
            IntRound::Rni => "rni",
            IntRound::Rzi => "rzi",
            IntRound::Rmi => "rmi",
            IntRound::Rpi => "rpi",
        }
    }
    pub fn f32(self, x: f32) -> f32 {
        match self {
            IntRound::Rni => x.round_ties_even(),
            IntRound::Rzi => x.trunc(),
            IntRound::Rmi => x.floor(),
            IntRound::Rpi => x.ceil(),
        }
    }
    pub fn f64(self, x: f64) -> f64 {
        match self {
            IntRound::Rni => x.round_ties_even(),
            IntRound::Rzi => x.trunc(),
            IntRound::Rmi => x.floor(),
            IntRound::Rpi => x.ceil(),
        }
    }
}

/// `cvt{.irnd}{.ftz}{.sat}.f32.f32` (§9.7.9.21): `.ftz` flushes the input and the result,
/// `.sat` clamps to [+0.0, 1.0] with NaN → +0.0.
pub fn cvt_f32_f32(a: u32, round: Option<IntRound>, ftz_: bool, sat: bool) -> Expect {
    let mut x = f32::from_bits(a);
    if ftz_ {
        x = ftz(x);
    }
    if let Some(r) = round {
        x = r.f32(x);
    }
    if sat {
        x = sat_f32(x);
    }
    if ftz_ {
        x = ftz(x);
    }
    exact_f32(x)
}

/// `div.approx{.ftz}.f32` (§9.7.3.8): "computed as d = a * (1/b)", at most 2 ulp from a/b
/// for |b| in [2^-126, 2^126]; for 2^126 < |b| < 2^128, NaN if a is infinite, else 0;
/// "division by zero creates a value of infinity (with same sign as a)". Subnormals: "sm_20+:
/// By default, subnormal numbers are supported"; `.ftz` flushes subnormal inputs and results to
/// sign-preserving zero. Observed on an NVIDIA H200, driver 580: without `.ftz`, subnormal
/// operands and results are kept (0x00800000 / 0x00000001 = 2^23, 0 / 0x00000001 = +0), and
/// the quotient stays within the bound; the huge-divisor zero holds with and without `.ftz`.
pub fn div_approx_f32(a: u32, b: u32, ftz_: bool) -> Vec<Expect> {
    let flush = |x: f32| if ftz_ { ftz(x) } else { x };
    let (x, y) = (flush(f32::from_bits(a)), flush(f32::from_bits(b)));
    let huge = (y.abs() as f64) > 2f64.powi(126);
    if x.is_nan() || y.is_nan() {
        return vec![Expect::AnyNanF32];
    }
    if y == 0.0 {
        // "Division by zero creates a value of infinity (with same sign as a)"; observed on an
        // NVIDIA H200, driver 580: the sign is IEEE's, sign(a) XOR sign(b) (1 / −0 = −inf).
        // 0 · inf has no value: NaN.
        return vec![if x == 0.0 { Expect::AnyNanF32 } else { Expect::Bits((x / y).to_bits() as u64) }];
    }
    if huge && y.is_finite() {
        if x.is_infinite() {
            return vec![Expect::AnyNanF32];
        }
        // "returns 0": the sign of that zero is not stated, both are accepted.
        return vec![Expect::Either(0, 0x8000_0000)];
    }
    div_within_2ulp(x, y, ftz_)
}

/// `div.full{.ftz}.f32` (§9.7.3.8): at most 2 ulp "across the full range of inputs"; with
/// `.ftz` subnormal inputs and results flushed, without it kept (observed the same on an NVIDIA
/// H200, driver 580: 0x00000001 / 0x3f800000 = 0x00000001).
pub fn div_full_f32(a: u32, b: u32, ftz_: bool) -> Vec<Expect> {
    let flush = |x: f32| if ftz_ { ftz(x) } else { x };
    let (x, y) = (flush(f32::from_bits(a)), flush(f32::from_bits(b)));
    if x.is_nan() || y.is_nan() || (x == 0.0 && y == 0.0) || (x.is_infinite() && y.is_infinite()) {
        return vec![Expect::AnyNanF32];
    }
    div_within_2ulp(x, y, ftz_)
}

fn div_within_2ulp(x: f32, y: f32, ftz_: bool) -> Vec<Expect> {
    // a/b in f64 is within 2^-53 relative of the true quotient: far below the bound's slack.
    let q = x as f64 / y as f64;
    if q.abs() >= 2f64.powi(128) || q == 0.0 || x.is_infinite() || y.is_infinite() {
        // Overflow (beyond the last binade, so no error bound reaches back) and exact cases.
        return vec![exact_f32(q as f32)];
    }
    if ftz_ && q.abs() < F32_MIN_NORMAL as f64 * (1.0 + 2f64.powi(-21)) {
        // A result at or near the subnormal range: flushed (sign-preserving zero) or, just above
        // the boundary, within the bound.
        return vec![Expect::F32WithinOrZero { exact: q, ulps: 2.0 }];
    }
    vec![Expect::F32Within { exact: q, ulps: 2.0 }]
}

/// add/sub/mul/fma of f32 with any rounding direction (§9.7.3.3–6: `.rn/.rz/.rm/.rp`
/// round the exact result once), by rustc_apfloat, with `.ftz` and `.sat` applied as the spec
/// says (flush inputs and result; clamp to [+0.0, 1.0], NaN → +0.0).
pub fn arith_f32(op: &str, round: rustc_apfloat::Round, xs: &[u64], ftz_: bool, sat: bool) -> Expect {
    use rustc_apfloat::ieee::Single;
    use rustc_apfloat::Float;
    let v: Vec<Single> = xs
        .iter()
        .map(|&x| {
            let f = f32::from_bits(x as u32);
            Single::from_bits((if ftz_ { ftz(f) } else { f }).to_bits() as u128)
        })
        .collect();
    let r = match op {
        "add" => v[0].add_r(v[1], round).value,
        "sub" => v[0].sub_r(v[1], round).value,
        "mul" => v[0].mul_r(v[1], round).value,
        _ => v[0].mul_add_r(v[1], v[2], round).value,
    };
    let mut f = f32::from_bits(r.to_bits() as u32);
    if ftz_ {
        f = ftz(f);
    }
    let (a, b) = (f32::from_bits(v[0].to_bits() as u32), f32::from_bits(v[1].to_bits() as u32));
    if ftz_ && op == "mul" && mul_ftz_tiny(a as f64 * b as f64, F32_MIN_NORMAL as f64) {
        f = f32::from_bits(f.to_bits() & 0x8000_0000);
    }
    if ftz_ && op == "fma" && round == rustc_apfloat::Round::NearestTiesToEven && fma_ftz_tiny(&[a, b, f32::from_bits(v[2].to_bits() as u32)]) {
        f = f32::from_bits(f.to_bits() & 0x8000_0000);
    }
    if sat {
        f = sat_f32(f);
    }
    exact_f32(f)
}

/// `cvt.frnd.f32.f64` and `cvt.frnd.f32.{s32,u32,s64,u64}` (§9.7.9.21), by rustc_apfloat.
pub fn cvt_f32_from(src: &str, round: rustc_apfloat::Round, a: u64) -> Expect {
    use rustc_apfloat::ieee::{Double, Single};
    use rustc_apfloat::{Float, FloatConvert};
    let s: Single = match src {
        "f64" => {
            let mut lose = false;
            FloatConvert::<Single>::convert_r(Double::from_bits(a as u128), round, &mut lose).value
        }
        "s32" => Single::from_i128_r(a as u32 as i32 as i128, round).value,
        "s64" => Single::from_i128_r(a as i64 as i128, round).value,
        "u64" => Single::from_u128_r(a as u128, round).value,
        _ => Single::from_u128_r(a as u32 as u128, round).value,
    };
    exact_f32(f32::from_bits(s.to_bits() as u32))
}

/// `div.rnd{.ftz}.f32` / `rcp.rnd{.ftz}.f32` (§9.7.3.8/9): IEEE division, correctly rounded in
/// the given direction (rustc_apfloat); `.ftz` flushes inputs and result.
pub fn div_rounded_f32(a: u64, b: u64, round: rustc_apfloat::Round, ftz_: bool) -> Expect {
    use rustc_apfloat::ieee::Single;
    use rustc_apfloat::Float;
    let f = |x: u64| {
        let v = f32::from_bits(x as u32);
        Single::from_bits((if ftz_ { ftz(v) } else { v }).to_bits() as u128)
    };
    let r = f32::from_bits(f(a).div_r(f(b), round).value.to_bits() as u32);
    // Observed on an NVIDIA H200, driver 580 (inst_sweep through the CUDA driver's PTX JIT):
    // `div.rn.ftz` flushes when the exact quotient is below 2^-126, before rounding, as `mul.ftz` does
    // (0x3f7fffff / 0x7e800000 gives +0, not 0x00800000); rcp is taken to follow.
    let (x, y) = (f32::from_bits(f(a).to_bits() as u32) as f64, f32::from_bits(f(b).to_bits() as u32) as f64);
    if ftz_ && x.abs() < 2f64.powi(-126) * y.abs() {
        return Expect::Bits(r.to_bits() as u64 & 0x8000_0000);
    }
    exact_f32(if ftz_ { ftz(r) } else { r })
}

/// `sqrt.rnd{.ftz}.f32` (§9.7.3.11): the f64 square root (correctly rounded by IEEE 754) is
/// never on an f32 rounding boundary unless the root is exact (53 ≥ 2·24 + 2 bits), so
/// rounding it to f32 in the given direction is the correctly rounded f32 root.
pub fn sqrt_rounded_f32(a: u64, round: rustc_apfloat::Round, ftz_: bool) -> Expect {
    use rustc_apfloat::ieee::{Double, Single};
    use rustc_apfloat::{Float, FloatConvert};
    let v = f32::from_bits(a as u32);
    let v = if ftz_ { ftz(v) } else { v };
    let s = (v as f64).sqrt();
    let mut lose = false;
    let r: Single = FloatConvert::<Single>::convert_r(Double::from_bits(s.to_bits() as u128), round, &mut lose).value;
    let r = f32::from_bits(r.to_bits() as u32);
    exact_f32(if ftz_ { ftz(r) } else { r })
}

/// `div.rnd.f64` / `rcp.rnd.f64` (§9.7.3.8/9): IEEE division correctly rounded in the given
/// direction (rustc_apfloat's soft float, exact in every mode); NaN results are "unspecified".
pub fn div_rounded_f64(a: u64, b: u64, round: rustc_apfloat::Round) -> Expect {
    use rustc_apfloat::ieee::Double;
    use rustc_apfloat::Float;
    let r = Double::from_bits(a as u128).div_r(Double::from_bits(b as u128), round).value;
    exact_f64(f64::from_bits(r.to_bits() as u64))
}

/// `add/sub/mul.rnd.f64` (§9.7.3.1–3): IEEE arithmetic rounded in the given direction
/// (rustc_apfloat, exact in every mode).
pub fn arith_rounded_f64(op: &str, a: u64, b: u64, round: rustc_apfloat::Round) -> Expect {
    use rustc_apfloat::ieee::Double;
    use rustc_apfloat::Float;
    let (x, y) = (Double::from_bits(a as u128), Double::from_bits(b as u128));
    let r = match op {
        "add" => x.add_r(y, round),
        "sub" => x.sub_r(y, round),
        _ => x.mul_r(y, round),
    }
    .value;
    exact_f64(f64::from_bits(r.to_bits() as u64))
}

/// `fma.rnd.f64` (§9.7.3.5): a·b + c with one rounding in the given direction (rustc_apfloat's
/// fused multiply-add, exact in every mode).
pub fn fma_rounded_f64(a: u64, b: u64, c: u64, round: rustc_apfloat::Round) -> Expect {
    use rustc_apfloat::ieee::Double;
    use rustc_apfloat::Float;
    let d = |x: u64| Double::from_bits(x as u128);
    let r = d(a).mul_add_r(d(b), d(c), round).value;
    exact_f64(f64::from_bits(r.to_bits() as u64))
}

/// `sqrt.rnd.f64` (§9.7.3.11): Rust's `sqrt` is IEEE's correctly rounded root to nearest; the
/// directed modes step from it by the sign of r² − a, computed exactly in quad precision (a
/// 53-bit square needs 106 bits).
pub fn sqrt_rounded_f64(a: u64, round: rustc_apfloat::Round) -> Expect {
    use rustc_apfloat::ieee::{Double, Quad};
    use rustc_apfloat::{Float, FloatConvert, Round};
    let x = f64::from_bits(a);
    let r = x.sqrt();
    if !r.is_finite() || r == 0.0 || round == Round::NearestTiesToEven {
        return exact_f64(r);
    }
    let quad = |v: f64| -> Quad { Double::from_bits(v.to_bits() as u128).convert_r(Round::NearestTiesToEven, &mut false).value };
    let sq = quad(r).mul_r(quad(r), Round::NearestTiesToEven).value;
    let (rb, xq) = (r.to_bits(), quad(x));
    let below = sq < xq; // r < √a
    let above = sq > xq;
    exact_f64(f64::from_bits(match round {
        Round::TowardPositive if below => rb + 1,
        Round::TowardZero | Round::TowardNegative if above => rb - 1,
        _ => rb,
    }))
}

/// min/max{.ftz}{.NaN}{.xorsign.abs} on f16/f32/f64 bits (`bits` 16, 32 or 64), the semantics of
/// §9.7.3.11/12 step by step ("If values of both inputs are 0.0, then +0.0 > -0.0"; two NaNs,
/// or any NaN with `.NaN`, give the canonical NaN).
pub fn min_max(is_min: bool, bits: u32, a: u64, b: u64, nan_mode: bool, xorsign: bool, ftz_: bool) -> Expect {
    let sign = 1u64 << (bits - 1);
    let (canonical, exp_mask) = match bits {
        64 => (0x7fff_ffff_ffff_ffffu64, 0x7ff0_0000_0000_0000u64),
        32 => (0x7fff_ffff, 0x7f80_0000),
        _ => (0x7fff, 0x7c00),
    };
    let flush = |x: u64| if ftz_ && bits < 64 && x & exp_mask == 0 { x & sign } else { x };
    let (mut a, mut b) = (flush(a), flush(b));
    let is_nan = |x: u64| x & (sign - 1) > exp_mask;
    let as_f64 = |x: u64| match bits {
        64 => f64::from_bits(x),
        32 => f32::from_bits(x as u32) as f64,
        _ => crate::ptx_ref::half::Fmt::F16.to_f64(x as u16),
    };
    let xs = (a ^ b) & sign;
    if xorsign {
        a &= sign - 1;
        b &= sign - 1;
    }
    let d = if bits == 64 && !nan_mode && is_nan(a) && is_nan(b) {
        // Observed on an NVIDIA H200, driver 580 (inst_sweep through the CUDA driver's PTX JIT):
        // min.f64 of two NaNs gives the second operand, quieted (0x7ff8000000000000, 0x7ff0000000000001
        // → 0x7ff8000000000001), not the canonical NaN of the spec text; max.f64 is taken to
        // behave alike (the same instruction; that run stopped before it).
        return Expect::Bits(b | 1 << 51);
    } else if is_nan(a) && is_nan(b) || (nan_mode && (is_nan(a) || is_nan(b))) {
        return Expect::Bits(canonical);
    } else if is_nan(a) {
        b
    } else if is_nan(b) {
        a
    } else {
        let (x, y) = (as_f64(a), as_f64(b));
        // a < b with −0 below +0.
        let a_less = x < y || (x == y && a & sign != 0 && b & sign == 0);
        if a_less == is_min {
            a
        } else {
            b
        }
    };
    Expect::Bits(if xorsign { (d & (sign - 1)) | xs } else { d })
}

/// `testp.class` (§9.7.3.1) of the f32 (`is_f64` false: the low 32 bits) or f64 `bits`:
/// finite, infinite, number (not NaN), notanumber, normal, subnormal. "As a special case,
/// positive and negative zero are considered normal numbers" (observed the same on an
/// NVIDIA H200, driver 580).
pub fn testp(class: &str, bits: u64, is_f64: bool) -> bool {
    let (x, normal, subnormal) = if is_f64 {
        let x = f64::from_bits(bits);
        (x, x.is_normal(), x.is_subnormal())
    } else {
        let x = f32::from_bits(bits as u32);
        (x as f64, x.is_normal(), x.is_subnormal())
    };
    match class {
        "finite" => x.is_finite(),
        "infinite" => x.is_infinite(),
        "number" => !x.is_nan(),
        "notanumber" => x.is_nan(),
        "normal" => normal || x == 0.0,
        "subnormal" => subnormal,
        _ => panic!("no testp class {class}"),
    }
}

/// A floating-point comparison of `setp`/`set` (§9.7.6.1 Table "Floating-point comparison
/// operators"): ordered ones are false on NaN, the `u` forms true; `num`/`nan` test for NaN.
pub fn compare(cmp: &str, x: f64, y: f64) -> bool {
    let un = x.is_nan() || y.is_nan();
    match cmp {
        "eq" => x == y,
        "ne" => !un && x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        "ge" => x >= y,
        "equ" => un || x == y,
        "neu" => x != y,
        "ltu" => un || x < y,
        "leu" => un || x <= y,
        "gtu" => un || x > y,
        "geu" => un || x >= y,
        "num" => !un,
        _ => un,
    }
}

/// `cvt.frnd.{f32,f64,f16,bf16}.{s64,u64}` (§9.7.10.20; narrower integers sign- or
/// zero-extended to 64 bits first): the integer rounded once in the given direction
/// (rustc_apfloat); the result's bits.
pub fn cvt_from_int64(dst: &str, signed: bool, round: rustc_apfloat::Round, a: u64) -> u64 {
    use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
    use rustc_apfloat::Float;
    fn conv<F: Float>(signed: bool, round: rustc_apfloat::Round, a: u64) -> u128 {
        if signed {
            F::from_i128_r(a as i64 as i128, round).value.to_bits()
        } else {
            F::from_u128_r(a as u128, round).value.to_bits()
        }
    }
    (match dst {
        "f32" => conv::<Single>(signed, round, a),
        "f64" => conv::<Double>(signed, round, a),
        "f16" => conv::<Half>(signed, round, a),
        _ => conv::<BFloat>(signed, round, a),
    }) as u64
}

/// What float-to-integer `cvt` (any integer rounding, with or without `.sat`/`.ftz`) gives for a
/// NaN input, as the destination type's bits (signed results sign-extended to 64 bits).
///
/// §9.7.9.21: "In float-to-integer conversion, NaN inputs are converted to 0." NVIDIA's sm_90
/// (H100 and H200, driver 580, through the CUDA driver's PTX JIT; every NaN alike) differs, and
/// kernels must give NVIDIA's bits (measured 2026-11-23 and 2026-11-26, README "On a real
/// NVIDIA GPU"):
/// - `.f64` sources give the destination's sign bit alone (`0x80` for `.s8` and `.u8` alike,
///   `0x8000_0000` for `.u32`, …);
/// - `.f32` and `.f16` sources give 0, except `1 << 63` for 64-bit destinations;
/// - `.bf16` sources give 0.
pub fn cvt_nan_to_int(source: &str, dst: &str) -> u64 {
    let bits: u32 = dst[1..].parse().expect("an integer type");
    let top = 1u64 << (bits - 1);
    match (source, bits) {
        ("f64", _) if dst.starts_with('s') => top.wrapping_neg(),
        ("f64", _) => top,
        ("f32" | "f16", 64) => top,
        _ => 0,
    }
}

/// `redux.sync.{min,max}{.abs}{.NaN}.f32` over the participating threads' inputs (raw bits),
/// from the text of `redux.sync` in PTX ISA 8.6+ (not in this project's ISA 8.5 copy; public
/// docs, "Parallel Synchronization and Communication Instructions: redux.sync"): "For .f32
/// instruction type, if the input value is 0.0 then +0.0 > -0.0. If .abs qualifier is
/// specified, then the absolute value of the input is considered for the reduction operation.
/// If the .NaN qualifier is specified, then the result of the reduction operation is canonical
/// NaN if the input to the reduction operation from any participating thread is NaN. In the
/// absence of .NaN qualifier, only non-NaN values are considered for the reduction operation
/// and the result will be canonical NaN when all inputs are NaNs." The canonical f32 NaN is
/// 0x7fffffff (as for `min`/`max`). With `.abs` the result is the absolute value considered.
pub fn redux_sync_f32(is_max: bool, abs: bool, nan_mode: bool, inputs: &[u32]) -> u32 {
    const CANONICAL: u32 = 0x7fff_ffff;
    let vals: Vec<f32> = inputs.iter().map(|&b| f32::from_bits(if abs { b & 0x7fff_ffff } else { b })).collect();
    if vals.is_empty() || (nan_mode && vals.iter().any(|v| v.is_nan())) {
        return CANONICAL;
    }
    // x < y, with −0 below +0.
    let less = |x: f32, y: f32| x < y || (x == 0.0 && y == 0.0 && x.is_sign_negative() && y.is_sign_positive());
    let mut best: Option<f32> = None;
    for v in vals.into_iter().filter(|v| !v.is_nan()) {
        best = Some(match best {
            None => v,
            Some(b) if is_max && less(b, v) => v,
            Some(b) if !is_max && less(v, b) => v,
            Some(b) => b,
        });
    }
    best.map_or(CANONICAL, f32::to_bits)
}
