//! The `.approx` transcendentals (§9.7.3.16–22, §9.7.4.9/10) as *bounds*: for each input the
//! spec's special-value table gives exact results, and elsewhere the result must lie within
//! the stated maximum error of the true value, computed in f64 (Rust's f64 `sin`, `exp2`,
//! `log2`, `tanh` are within an ulp of f64, far inside the f32 bounds).
//!
//! How each bound is read from the spec text:
//! - `ex2` "2^-22.5 absolute for fraction in the primary range": the fraction's 2^f ∈ [1, 2) is
//!   off by at most 2^-22.5, so 2^x = 2^⌊x⌋·2^f by at most 2^-22.5·2^⌊x⌋. Results below 2^-126
//!   without `.ftz` (subnormals are "supported") may add one subnormal ulp (2^-149).
//! - `lg2` "2^-22.6 absolute for mantissa": log2 of the mantissa (x ∈ [1, 2)) is off by at most
//!   2^-22.6; for other x the exponent is added, which may round by half an ulp of the result.
//! - `sin`/`cos` "2^-20.9 absolute in quadrant 00": ptxcross keeps that bound for
//!   |x| ≤ [`SIN_COS_RANGE`] (see lower/src/inst/approx.rs); beyond, only |result| ≤ 1.
//! - `rsqrt` "2^-22.4 absolute over the range 1.0–4.0": 1/√(4^j·m) = 2^-j/√m, so 2^-22.4·2^-j
//!   for x = 4^j·m, m ∈ [1, 4).
//! - `tanh.f32` has no stated bound: ptxcross's own, [`TANH_F32_ULPS`] ulp, is checked.
//! - half `ex2`: 2^-9.9 (f16) / 2^-7 (bf16) relative; `tanh`: 2^-10.987 (f16) / 2^-8 (bf16)
//!   absolute. Subnormal half results may add half an ulp of the format's subnormals.

/// What a result must be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Want {
    /// These bits.
    Bits(u32),
    /// Any NaN of the destination format.
    AnyNan,
    /// |got − exact| ≤ tol, with an infinity counted as `inf_as` (the first value of the binade
    /// past the largest finite) and NaN never accepted.
    Within { exact: f64, tol: f64 },
    /// `Within`, or this exact bits (a result flushed by `.ftz`, or a bound straddling it).
    WithinOr { exact: f64, tol: f64, or: u32 },
    /// Only |got| ≤ 1 and not NaN (sin/cos beyond [`SIN_COS_RANGE`]).
    UnitRange,
}

/// The formats a result can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    F32,
    F16,
    Bf16,
}

impl Fmt {
    fn to_f64(self, bits: u32) -> f64 {
        match self {
            Fmt::F32 => f32::from_bits(bits) as f64,
            Fmt::Bf16 => f32::from_bits((bits & 0xffff) << 16) as f64,
            Fmt::F16 => f16_to_f64(bits as u16),
        }
    }
    /// Infinity counts as this magnitude (2^(emax+1)).
    fn inf_as(self) -> f64 {
        match self {
            Fmt::F32 | Fmt::Bf16 => 2f64.powi(128),
            Fmt::F16 => 2f64.powi(16),
        }
    }
}

pub fn f16_to_f64(h: u16) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    s * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

impl Want {
    pub fn holds(self, got: u32, fmt: Fmt) -> bool {
        let g = fmt.to_f64(got);
        let within = |exact: f64, tol: f64| {
            if g.is_nan() || exact.is_nan() {
                return false;
            }
            let g = if g.is_infinite() { fmt.inf_as().copysign(g) } else { g };
            let e = if exact.is_infinite() { fmt.inf_as().copysign(exact) } else { exact };
            (g - e).abs() <= tol
        };
        match self {
            Want::Bits(b) => b == got,
            Want::AnyNan => g.is_nan(),
            Want::Within { exact, tol } => within(exact, tol),
            Want::WithinOr { exact, tol, or } => got == or || within(exact, tol),
            Want::UnitRange => g.abs() <= 1.0,
        }
    }

    /// The error of `got` against this want's exact value, in units of its tolerance (0 for
    /// exact expectations): for reporting the worst case of a sweep.
    pub fn error_ratio(self, got: u32, fmt: Fmt) -> f64 {
        match self {
            Want::WithinOr { or, .. } if got == or => 0.0,
            Want::Within { exact, tol } | Want::WithinOr { exact, tol, .. } if exact.is_finite() => {
                let g = fmt.to_f64(got);
                let g = if g.is_infinite() { fmt.inf_as().copysign(g) } else { g };
                (g - exact).abs() / tol
            }
            _ => 0.0,
        }
    }

    /// The absolute error of `got` (0 for exact expectations).
    pub fn abs_error(self, got: u32, fmt: Fmt) -> f64 {
        match self {
            Want::WithinOr { or, .. } if got == or => 0.0,
            Want::Within { exact, .. } | Want::WithinOr { exact, .. } if exact.is_finite() => {
                let g = fmt.to_f64(got);
                let g = if g.is_infinite() { fmt.inf_as().copysign(g) } else { g };
                (g - exact).abs()
            }
            _ => 0.0,
        }
    }
}

/// |x| below which sin/cos keep the 2^-20.9 bound in ptxcross (see `sin_cos_f32` in
/// lower/src/inst/approx.rs: its Cody–Waite reduction is exact for |x| < 2^12·π/2 and loses
/// about |x|·2^-36 beyond, until k·π/2's first part rounds near 10^5).
pub const SIN_COS_RANGE: f64 = 32768.0;
/// ptxcross's own bound for `tanh.approx.f32` (the spec states none), in ulp of the result.
pub const TANH_F32_ULPS: f64 = 2.0;

fn is_sub(b: u32) -> bool {
    b & 0x7f80_0000 == 0 && b & 0x7f_ffff != 0
}
fn flush(b: u32, ftz: bool) -> u32 {
    if ftz && is_sub(b) {
        b & 0x8000_0000
    } else {
        b
    }
}
fn half_ulp_f32(t: f64) -> f64 {
    0.5 * crate::ptx_ref::float::ulp_f32_at(t)
}

/// `ex2.approx{.ftz}.f32` (§9.7.3.21).
pub fn ex2_f32(a: u32, ftz: bool) -> Want {
    let a = flush(a, ftz);
    let x = f32::from_bits(a);
    if x.is_nan() {
        return Want::AnyNan;
    }
    if x == f32::NEG_INFINITY {
        return Want::Bits(0);
    }
    if x == f32::INFINITY {
        return Want::Bits(0x7f80_0000);
    }
    if x == 0.0 || is_sub(a) {
        // Table: ±0 and ±subnormal → +1.0 (2^x rounds to 1 for every subnormal x).
        return Want::Bits(0x3f80_0000);
    }
    let x = x as f64;
    let t = x.exp2();
    if t >= 2f64.powi(128) {
        return Want::Bits(0x7f80_0000);
    }
    let tol = 2f64.powf(-22.5) * 2f64.powf(x.floor());
    if t < 2f64.powi(-126) {
        if ftz {
            // Flushed, or (right at the boundary) the least normal within the bound.
            return Want::WithinOr { exact: t, tol, or: 0 };
        }
        return Want::Within { exact: t, tol: tol + 2f64.powi(-149) };
    }
    Want::Within { exact: t, tol }
}

/// `lg2.approx{.ftz}.f32` (§9.7.3.20).
pub fn lg2_f32(a: u32, ftz: bool) -> Want {
    let a = flush(a, ftz);
    let x = f32::from_bits(a);
    if x.is_nan() {
        return Want::AnyNan;
    }
    if x == 0.0 {
        return Want::Bits(0xff80_0000);
    }
    if x < 0.0 {
        // Negative numbers (subnormals too, which are numbers without .ftz) and −inf.
        return Want::AnyNan;
    }
    if x == f32::INFINITY {
        return Want::Bits(0x7f80_0000);
    }
    let x = x as f64;
    let t = x.log2();
    let tol = 2f64.powf(-22.6) + if (1.0..2.0).contains(&x) { 0.0 } else { half_ulp_f32(t) };
    Want::Within { exact: t, tol }
}

/// `sin.approx{.ftz}.f32` / `cos.approx{.ftz}.f32` (§9.7.3.18/19).
pub fn sin_cos_f32(a: u32, ftz: bool, cos: bool) -> Want {
    let a = flush(a, ftz);
    let x = f32::from_bits(a);
    if !x.is_finite() {
        return Want::AnyNan;
    }
    if x == 0.0 {
        return Want::Bits(if cos { 0x3f80_0000 } else { a });
    }
    if cos && is_sub(a) {
        return Want::Bits(0x3f80_0000);
    }
    let x = x as f64;
    if x.abs() > SIN_COS_RANGE {
        return Want::UnitRange;
    }
    let t = if cos { x.cos() } else { x.sin() };
    Want::Within { exact: t, tol: 2f64.powf(-20.9) }
}

/// `rsqrt.approx{.ftz}.f32` (§9.7.3.16).
pub fn rsqrt_f32(a: u32, ftz: bool) -> Want {
    let a = flush(a, ftz);
    let x = f32::from_bits(a);
    if x.is_nan() {
        return Want::AnyNan;
    }
    if x == 0.0 {
        return Want::Bits((a & 0x8000_0000) | 0x7f80_0000);
    }
    if x < 0.0 {
        return Want::AnyNan;
    }
    if x == f32::INFINITY {
        return Want::Bits(0);
    }
    let x = x as f64;
    let t = 1.0 / x.sqrt();
    // x = 4^j·m, m ∈ [1, 4).
    let j = (x.log2().floor() as i32).div_euclid(2);
    let j = if 4f64.powi(j) > x { j - 1 } else if 4f64.powi(j + 1) <= x { j + 1 } else { j };
    Want::Within { exact: t, tol: 2f64.powf(-22.4) * 2f64.powi(-j) }
}

/// `tanh.approx.f32` (§9.7.3.22).
pub fn tanh_f32(a: u32) -> Want {
    let x = f32::from_bits(a);
    if x.is_nan() {
        return Want::AnyNan;
    }
    if x.is_infinite() {
        return Want::Bits((a & 0x8000_0000) | 0x3f80_0000);
    }
    if x == 0.0 || is_sub(a) {
        // "The subnormal inputs gets passed through to the output."
        return Want::Bits(a);
    }
    let t = (x as f64).tanh();
    Want::Within { exact: t, tol: TANH_F32_ULPS * crate::ptx_ref::float::ulp_f32_at(t) }
}

/// `ex2.approx{.ftz}.f16` (§9.7.4.10; subnormal inputs supported, `.ftz` flushes) and
/// `ex2.approx.ftz.bf16`, one 16-bit lane.
pub fn ex2_half(h: u16, fmt: Fmt, ftz: bool) -> Want {
    let (x, sub) = half_value(h, fmt);
    let one = if fmt == Fmt::F16 { 0x3c00 } else { 0x3f80 };
    let inf = if fmt == Fmt::F16 { 0x7c00 } else { 0x7f80 };
    if x.is_nan() {
        return Want::AnyNan;
    }
    if x == f64::NEG_INFINITY {
        return Want::Bits(0);
    }
    if x == f64::INFINITY {
        return Want::Bits(inf);
    }
    if x == 0.0 || (sub && ftz) {
        return Want::Bits(one);
    }
    let t = x.exp2();
    if t >= fmt.inf_as() {
        return Want::Bits(inf);
    }
    let (rel, min_normal, sub_half_ulp) = match fmt {
        Fmt::F16 => (2f64.powf(-9.9), 2f64.powi(-14), 2f64.powi(-25)),
        _ => (2f64.powi(-7), 2f64.powi(-126), 0.0),
    };
    if t < min_normal {
        if ftz {
            return Want::WithinOr { exact: t, tol: rel * t, or: 0 };
        }
        return Want::Within { exact: t, tol: rel * t + sub_half_ulp };
    }
    Want::Within { exact: t, tol: rel * t }
}

/// `tanh.approx.{f16,bf16}`, one lane (§9.7.4.9: absolute error 2^-10.987 / 2^-8).
pub fn tanh_half(h: u16, fmt: Fmt) -> Want {
    let (x, _) = half_value(h, fmt);
    let h = h as u32;
    let one = if fmt == Fmt::F16 { 0x3c00 } else { 0x3f80 };
    if x.is_nan() {
        return Want::AnyNan;
    }
    if x.is_infinite() || x == 0.0 {
        return Want::Bits(if x == 0.0 { h } else { (h & 0x8000) | one });
    }
    let tol = if fmt == Fmt::F16 { 2f64.powf(-10.987) } else { 2f64.powi(-8) };
    Want::Within { exact: x.tanh(), tol }
}

/// A half value and whether it is subnormal.
fn half_value(h: u16, fmt: Fmt) -> (f64, bool) {
    match fmt {
        Fmt::F16 => (f16_to_f64(h), h & 0x7c00 == 0 && h & 0x3ff != 0),
        _ => (f32::from_bits((h as u32) << 16) as f64, h & 0x7f80 == 0 && h & 0x7f != 0),
    }
}

/// `rcp.approx.ftz.f64` (§9.7.3.14) / `rsqrt.approx.ftz.f64` (§9.7.3.17): the upper word of
/// `a` (1.11.20) as the operand; the result's lower word zero; subnormals flushed; NaN →
/// 0x7fffffff00000000. The spec states no bound ("gross approximation"): ptxcross's own,
/// [`F64_HI_REL`] relative, is checked. Returns the exact expected bits or the value and
/// tolerance (the result's low word must be zero either way).
pub fn hi_word_f64(a: u64, rsqrt: bool) -> Result<u64, (f64, f64)> {
    let x = f64::from_bits(a);
    if x.is_nan() {
        return Ok(0x7fff_ffff_0000_0000);
    }
    let hi = a >> 32;
    let sign = hi & 0x8000_0000;
    let e = (hi >> 20) & 0x7ff;
    let tmp = f64::from_bits(hi << 32);
    if e == 0 {
        return Ok((sign | 0x7ff0_0000) << 32);
    }
    if rsqrt && sign != 0 {
        return Ok(0x7fff_ffff_0000_0000);
    }
    if e == 0x7ff {
        return Ok(sign << 32);
    }
    let t = if rsqrt { 1.0 / tmp.sqrt() } else { 1.0 / tmp };
    if t.abs() < f64::MIN_POSITIVE {
        return Ok(sign << 32);
    }
    Err((t, t.abs() * F64_HI_REL))
}

/// ptxcross's bound for the 1.11.20 results of `rcp/rsqrt.approx.ftz.f64`: half an ulp of
/// the 20-bit fraction (2^-21) plus the f32 result's error before that rounding (2^-22.4 for
/// rsqrt, relative to a result ≥ 1/2).
pub const F64_HI_REL: f64 = 8.4e-7; // 2^-21 + 2^-21.4 ≈ 2^-20.2

/// `rsqrt.approx.f64` (§9.7.3.16; subnormals supported, no bound stated): the f32 table's
/// special values, else within [`RSQRT_F64_REL`] relative (ptxcross's own bound; the f64
/// reference 1/√x itself is within 2^-52).
pub fn rsqrt_f64(a: u64) -> Result<u64, (f64, f64)> {
    let x = f64::from_bits(a);
    if x.is_nan() {
        return Ok(0x7fff_ffff_ffff_ffff);
    }
    if x == 0.0 {
        return Ok((a & (1 << 63)) | 0x7ff0_0000_0000_0000);
    }
    if x < 0.0 {
        return Ok(0x7fff_ffff_ffff_ffff);
    }
    if x == f64::INFINITY {
        return Ok(0);
    }
    let t = 1.0 / x.sqrt();
    Err((t, t * RSQRT_F64_REL))
}

/// ptxcross's bound for `rsqrt.approx.f64`: 2^-50 relative (a few f64 ulp).
pub const RSQRT_F64_REL: f64 = 1.0 / (1u64 << 50) as f64;
