//! `.approx` transcendentals (spec §9.7.3.16–22 `rsqrt`, `sin`, `cos`, `lg2`, `ex2`, `tanh`;
//! §9.7.4.9/10 half-precision `tanh`/`ex2`).
//!
//! The targets' built-ins (GLSL.std.450 `Sin`, `Exp2`, `Log2`, `InverseSqrt`, WGSL `sin`, …)
//! have driver-dependent accuracy that is looser than PTX's bounds (GLSL `sin` is 2^-11
//! absolute), so none is used. Each function here is built only from operations whose results
//! are fully determined — correctly rounded f32 add/sub/mul (the backends keep targets from
//! contracting them into fmas), exact `roundEven`, f32 ↔ integer conversions of integral
//! values, integer bit manipulation and selects — so SPIR-V and WGSL give the same bits on
//! every device. No table: a near-minimax polynomial (Chebyshev fit with mpmath's
//! `chebyfit`, coefficients rounded to f32) after an exact range reduction, evaluated by
//! Horner's rule.
//!
//! **Subnormals.** Every sequence is independent of whether the device keeps f32 subnormals,
//! so the instructions do not set `Features::f32_subnormals` (with or without `.ftz`):
//! subnormal inputs are normalized or passed through with integer operations, subnormal
//! results of `ex2` are rounded on the integer significand, and the only arithmetic results
//! that can be subnormal are products of a tiny reduced argument that are then added to a
//! term at least 2^20 times larger, where they are below half an ulp: flushing them gives
//! the same sum (each function's comment says where).
//!
//! Accuracy measured over all 2^32 inputs (README "Accuracy of `.approx`" has the table;
//! `tests/tests/approx_sweep.rs` checks the spec's bounds).

use super::half::{half_format, Clamp, Rounding, BF16, F32};
use super::{operands, Mods};
use crate::function::{unsupported, FnLower, LResult};
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Operand, Ty, UnaryOp};
use ptxcross_frontend::ast::ScalarType;
use ptxcross_frontend::Diagnostic;

fn f32c(x: f32) -> Operand {
    Operand::Const(Const::F32(x.to_bits()))
}
fn u32c(x: u32) -> Operand {
    FnLower::u32c(x)
}

/// 2^f ≈ 1 + f·Q(f) on f ∈ [−1/2, 1/2]: relative error of the polynomial 2^-32.
const EXP2_Q: [f32; 6] = [std::f32::consts::LN_2, 0.2402265, 0.05550357, 0.009618083, 0.0013390863, 0.00015453163];
/// log2(1 + u) ≈ u·Q(u) on u ∈ [√2/2 − 1, √2 − 1]: error of Q 2^-26.9.
const LOG2_Q: [f32; 10] = [std::f32::consts::LOG2_E, -0.72134733, 0.48089853, -0.36069655, 0.28855255, -0.23960812, 0.20485765, -0.19138838, 0.18476033, -0.10749789];
/// sin r ≈ r + r³·S(r²) on |r| ≤ π/4: error of S 2^-25.6.
const SIN_S: [f32; 3] = [-0.16666664, 0.008332748, -0.0001958789];
/// cos r ≈ 1 + r²·C(r²) on |r| ≤ π/4: error of C 2^-31.6.
const COS_C: [f32; 4] = [-0.5, 0.04166665, -0.0013887589, 2.4463789e-5];
/// tanh x ≈ x + x³·T(x²) on |x| ≤ 0.56: error of T 2^-25.9.
const TANH_T: [f32; 5] = [-0.3333333, 0.13333082, -0.05390335, 0.021272749, -0.006542542];
/// 2/(1 + e) ≈ G(e) on e ∈ [0, 1/3 + 1/100]: error 2^-28.1.
const TANH_G: [f32; 8] = [2.0, -1.9999987, 1.9999197, -1.9980787, 1.9770137, -1.8461239, 1.3955767, -0.5880239];

/// π/2 in three parts for Cody–Waite reduction: P1 and P2 have 12 significant bits, so
/// k·P1 and k·P2 are exact f32 products for |k| < 2^12; P3 is the rest rounded to f32.
/// (Derived in the test `pio2_split` from π/2 in f64.)
const PIO2_1: f32 = 1.570_312_5;
const PIO2_2: f32 = 4.837_513e-4;
const PIO2_3: f32 = 7.549_79e-8;

/// PTX's canonical f32 NaN.
const NAN_BITS: u32 = 0x7fff_ffff;

impl FnLower {
    /// `rsqrt/sin/cos/lg2/ex2/tanh .approx` (f32 and half types) and the f64 `.approx` forms of
    /// `rsqrt`/`rcp`. Returns `None` when `m` is not one of them.
    pub(super) fn approx_transcendental(&mut self, m: &Mods) -> Option<LResult<()>> {
        let name = m.inst.opcode.name.as_str();
        if matches!(name, "rcp" | "rsqrt") && m.has("approx") && m.types() == [ScalarType::F64] {
            return Some(self.approx_f64(m, name));
        }
        if !matches!(name, "rsqrt" | "sin" | "cos" | "lg2" | "ex2" | "tanh") {
            return None;
        }
        Some(self.approx_inst(m, name))
    }

    /// `rcp.approx.ftz.f64` (§9.7.3.14) and `rsqrt.approx.ftz.f64` (§9.7.3.17): the function of
    /// the upper word of `a` read as a 1.11.20 float, placed in the upper word of `d` (1.11.20),
    /// the lower word zero. Subnormal inputs and results are flushed; NaN inputs give
    /// 0x7fffffff00000000. The spec gives no bound ("a fast, gross approximation"): ptxcross
    /// computes 1/tmp correctly rounded and 1/√tmp within 2^-22.4 (`rsqrt_f32`) in f32 on the
    /// 21-bit significand, then rounds to 20 fraction bits (nearest even): within 2^-20.9
    /// (rcp: 2^-21 and the f32 rounding before it) and 2^-20.2 (rsqrt) relative. `rsqrt.approx.f64` (full precision, subnormals kept, "emulated in software")
    /// is not done yet.
    fn approx_f64(&mut self, m: &Mods, name: &str) -> LResult<()> {
        if !m.has("ftz") {
            if name == "rsqrt" {
                return self.rsqrt_f64(m);
            }
            return Err(Diagnostic::new(format!("`{}` needs .ftz (§9.7.3.14)", m.name()), m.inst.span));
        }
        m.only(&["approx", "ftz"])?;
        // Everything below works on the bits or on normal f32 values in [1/4, 4].
        self.subnormal_exempt.f32 = true;
        self.subnormal_exempt.f64 = true;
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        let a = self.read(a, ScalarType::F64)?;
        let bits = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, a);
        let hi = self.bin(BinaryOp::ShrU, Ty::U64, bits, u32c(32));
        let hi = self.convert(ConvertOp::Truncate, Ty::U64, Ty::U32, hi);
        let sign = self.bin(BinaryOp::And, Ty::U32, hi, u32c(0x8000_0000));
        let e = self.bin(BinaryOp::ShrU, Ty::U32, hi, u32c(20));
        let e = self.bin(BinaryOp::And, Ty::U32, e, u32c(0x7ff));
        let frac = self.bin(BinaryOp::And, Ty::U32, hi, u32c(0xf_ffff));
        let frac = self.bin(BinaryOp::Shl, Ty::U32, frac, u32c(3));
        let rsqrt = name == "rsqrt";
        // The significand as an f32 m ∈ [1, 2) (rcp), or m·2^(e odd) ∈ [1, 4) (rsqrt); the
        // result's exponent offset `k` (result = f(m)·2^k).
        let (mexp, k) = if rsqrt {
            // e − 1023 = 2j + odd; 1/√(m·2^(2j+odd)) = 2^-j/√(m·2^odd).
            let odd = self.bin(BinaryOp::And, Ty::U32, e, u32c(1));
            let odd = self.bin(BinaryOp::Xor, Ty::U32, odd, u32c(1));
            let mexp = self.bin(BinaryOp::Add, Ty::U32, odd, u32c(127));
            let j2 = self.bin(BinaryOp::Sub, Ty::U32, e, u32c(1023));
            let j2 = self.bin(BinaryOp::Sub, Ty::U32, j2, odd);
            let j = self.bin(BinaryOp::ShrS, Ty::U32, j2, u32c(1));
            (mexp, self.un(UnaryOp::Neg, Ty::U32, j))
        } else {
            (u32c(127), self.bin(BinaryOp::Sub, Ty::U32, u32c(1023), e))
        };
        let mexp = self.bin(BinaryOp::Shl, Ty::U32, mexp, u32c(23));
        let mb = self.bin(BinaryOp::Or, Ty::U32, frac, mexp);
        let mf = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, mb);
        let r = if rsqrt { self.rsqrt_f32(mf) } else { self.f32_div_rounded(f32c(1.0), mf, Rounding::Nearest) };
        // r ∈ (1/4, 1]: its 23 fraction bits rounded to 20 (nearest even; a carry moves to the
        // exponent by itself), then the exponent rebiased to f64's and offset by k.
        let rb = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, r);
        let lsb = self.bin(BinaryOp::ShrU, Ty::U32, rb, u32c(3));
        let lsb = self.bin(BinaryOp::And, Ty::U32, lsb, u32c(1));
        let rr = self.bin(BinaryOp::Add, Ty::U32, rb, u32c(3));
        let rr = self.bin(BinaryOp::Add, Ty::U32, rr, lsb);
        let rr = self.bin(BinaryOp::ShrU, Ty::U32, rr, u32c(3));
        let re = self.bin(BinaryOp::ShrU, Ty::U32, rr, u32c(20));
        let e64 = self.bin(BinaryOp::Add, Ty::U32, re, u32c(1023 - 127));
        let e64 = self.bin(BinaryOp::Add, Ty::U32, e64, k);
        let rfrac = self.bin(BinaryOp::And, Ty::U32, rr, u32c(0xf_ffff));
        let ehi = self.bin(BinaryOp::Shl, Ty::U32, e64, u32c(20));
        let out = self.bin(BinaryOp::Or, Ty::U32, ehi, rfrac);
        // A result below the least normal is flushed (rcp of |tmp| ≥ 2^1022 only).
        let tiny = self.cmp(CmpOp::LeS, Ty::U32, e64, u32c(0));
        let out = self.select(Ty::U32, tiny, u32c(0), out);
        let out = if rsqrt { out } else { self.bin(BinaryOp::Or, Ty::U32, out, sign) };
        // Special values: zero/subnormal tmp → ±inf; infinite → ±0 (rcp), +0 (rsqrt of +inf);
        // NaN a → canonical NaN; rsqrt of a negative (non-zero, non-subnormal) value → NaN.
        let inf = self.bin(BinaryOp::Or, Ty::U32, sign, u32c(0x7ff0_0000));
        let zero_in = self.cmp(CmpOp::Eq, Ty::U32, e, u32c(0));
        let top = self.cmp(CmpOp::Eq, Ty::U32, e, u32c(0x7ff));
        let out = self.select(Ty::U32, top, if rsqrt { u32c(0) } else { sign }, out);
        let nan_hi = u32c(0x7fff_ffff);
        let out = if rsqrt {
            let neg = self.cmp(CmpOp::Ne, Ty::U32, sign, u32c(0));
            self.select(Ty::U32, neg, nan_hi, out)
        } else {
            out
        };
        let out = self.select(Ty::U32, zero_in, inf, out);
        let mag = self.bin(BinaryOp::And, Ty::U64, bits, FnLower::u64c(u64::MAX >> 1));
        let nan = self.cmp(CmpOp::GtU, Ty::U64, mag, FnLower::u64c(0x7ff0_0000_0000_0000));
        let out = self.select(Ty::U32, nan, nan_hi, out);
        let out = self.convert(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, out);
        let out = self.bin(BinaryOp::Shl, Ty::U64, out, u32c(32));
        let out = self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, out);
        self.write(d, ScalarType::F64, out)
    }

    fn approx_inst(&mut self, m: &Mods, name: &str) -> LResult<()> {
        let t = m.ty()?;
        // See the module comment: nothing below depends on the device's f32 subnormals.
        self.subnormal_exempt.f32 = true;
        if let Some(fmt) = half_format(t) {
            return self.approx_half(m, name, t, fmt);
        }
        if !m.has("approx") {
            return Err(Diagnostic::new(format!("`{}` needs .approx", m.name()), m.inst.span));
        }
        if t != ScalarType::F32 {
            return Err(Diagnostic::new(format!("`{}` needs .f32", m.name()), m.inst.span));
        }
        if name == "tanh" {
            if m.has("ftz") {
                return Err(Diagnostic::new(format!("`{}`: tanh has no .ftz (§9.7.3.22)", m.name()), m.inst.span));
            }
            m.only(&["approx"])?;
        } else {
            m.only(&["approx", "ftz"])?;
        }
        let ftz = m.has("ftz");
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        let a = self.read(a, t)?;
        let a = if ftz { self.flush_denormal(a, t) } else { a };
        // Emitted once per kernel as a function (see `FnLower::outlined`).
        let r = self.outlined(&format!("{name}_approx_f32{}", if ftz { "_ftz" } else { "" }), &[a], &[Ty::F32], Ty::F32, |s, x| match name {
            "ex2" => s.ex2_f32(x[0], ftz),
            "lg2" => s.lg2_f32(x[0]),
            "sin" => s.sin_cos_f32(x[0], false),
            "cos" => s.sin_cos_f32(x[0], true),
            "rsqrt" => s.rsqrt_f32(x[0]),
            _ => s.tanh_f32(x[0]),
        });
        let r = if ftz { self.flush_denormal(r, t) } else { r };
        self.write(d, t, r)
    }

    /// `ex2.approx.{f16,f16x2}`, `ex2.approx.ftz.{bf16,bf16x2}`,
    /// `tanh.approx.{f16,f16x2,bf16,bf16x2}`: the exact f32 of each half, the f32 function
    /// (ex2: 1.2 ulp of f32; tanh: see `tanh_f32`), rounded to nearest to the half format.
    /// The bounds (§9.7.4.9/10: ex2 2^-9.9 relative for f16, 2^-7 for bf16; tanh 2^-10.987 /
    /// 2^-8 absolute) leave room for the half-ulp of that rounding (2^-11 / 2^-8 relative).
    fn approx_half(&mut self, m: &Mods, name: &str, t: ScalarType, fmt: super::half::Format) -> LResult<()> {
        match name {
            "ex2" if fmt == BF16 => {
                m.only(&["approx", "ftz"])?;
                if !m.has("ftz") {
                    return Err(Diagnostic::new(format!("`{}` needs .ftz (§9.7.4.10)", m.name()), m.inst.span));
                }
            }
            "ex2" => {
                // §9.7.4.10: `ex2.approx.atype` (f16, f16x2) has no .ftz (ptxas 13.5 refuses it).
                if m.has("ftz") {
                    return Err(Diagnostic::new(format!("`{}`: .ftz applies to bf16 ex2 only (§9.7.4.10)", m.name()), m.inst.span));
                }
                m.only(&["approx"])?
            }
            "tanh" => {
                if m.has("ftz") {
                    return Err(Diagnostic::new(format!("`{}`: tanh has no .ftz (§9.7.4.9)", m.name()), m.inst.span));
                }
                m.only(&["approx"])?
            }
            _ => return Err(unsupported(format!("half-precision `{}`", m.name()), m.inst.span)),
        }
        if !m.has("approx") {
            return Err(Diagnostic::new(format!("`{}` needs .approx", m.name()), m.inst.span));
        }
        // f16 ex2 keeps subnormal inputs (§9.7.4.10); bf16 ex2 is .ftz only.
        let ftz = m.has("ftz");
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        let src = self.read(a, t)?;
        let packed = matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2);
        let lanes: &[u32] = if packed { &[0, 16] } else { &[0] };
        let mut result = u32c(0);
        for &lane in lanes {
            let h = self.bin(BinaryOp::ShrU, Ty::U32, src, u32c(lane));
            let h = self.bin(BinaryOp::And, Ty::U32, h, u32c(0xffff));
            let h = if ftz { self.half_ftz(h, fmt) } else { h };
            let x = self.half_to_f32(h, fmt);
            let r = if name == "ex2" {
                // A bf16 input that is an f32 subnormal was flushed above (.ftz); f16 values
                // are normal in f32.
                self.ex2_f32(x, true)
            } else {
                self.tanh_f32(x)
            };
            let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, r);
            let r = self.round_to_format(bits, F32, fmt, Rounding::Nearest, Clamp::default());
            let r = if ftz { self.half_ftz(r, fmt) } else { r };
            let r = self.bin(BinaryOp::Shl, Ty::U32, r, u32c(lane));
            result = self.bin(BinaryOp::Or, Ty::U32, result, r);
        }
        self.write(d, t, result)
    }

    /// c[0] + x·(c[1] + x·(… + x·c[n−1])).
    fn horner_f32(&mut self, x: Operand, c: &[f32]) -> Operand {
        let mut r = f32c(c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            let p = self.bin(BinaryOp::FMul, Ty::F32, x, r);
            r = self.bin(BinaryOp::FAdd, Ty::F32, p, f32c(k));
        }
        r
    }

    /// `ex2.approx.f32` (§9.7.3.21: 2^-22.5 absolute "for fraction in the primary range",
    /// i.e. relative to the binade of the result; −inf → +0, ±0 → 1, +inf → +inf, NaN → NaN).
    /// x = n + f with n = roundEven(x) and f ∈ [−1/2, 1/2] exact (x clamped to ±160 first); 2^f ≈ p = 1 + f·Q(f) ∈
    /// [0.70, 1.42]; the result is p with n added to its exponent field. Results below 2^-126
    /// are rounded to nearest on the integer significand (without `.ftz`; with it the caller
    /// flushes them), so no arithmetic ever sees a subnormal: a subnormal `x` gives f = x or
    /// (flushed) 0, and 1 + f·Q is 1 either way. Measured: ≤ 0.82 of the bound (1.15 ulp).
    pub(super) fn ex2_f32(&mut self, x: Operand, ftz: bool) -> Operand {
        // Clamp to [−160, 160] on the bits (±inf and NaN too; NaN is replaced at the end), so
        // that no arithmetic sees an infinity or a NaN: 2^x is 0 below and +inf above.
        let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
        let mag = self.bin(BinaryOp::And, Ty::U32, b, u32c(0x7fff_ffff));
        let nan = self.cmp(CmpOp::GtU, Ty::U32, mag, u32c(0x7f80_0000));
        let big = self.cmp(CmpOp::GtU, Ty::U32, mag, u32c(0x4320_0000)); // 160
        let sign = self.bin(BinaryOp::And, Ty::U32, b, u32c(0x8000_0000));
        let edge = self.bin(BinaryOp::Or, Ty::U32, sign, u32c(0x4320_0000));
        let xc = self.select(Ty::U32, big, edge, b);
        let xc = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, xc);
        let n = self.un(UnaryOp::FRoundEven, Ty::F32, xc);
        let f = self.bin(BinaryOp::FSub, Ty::F32, xc, n);
        let q = self.horner_f32(f, &EXP2_Q);
        let fq = self.bin(BinaryOp::FMul, Ty::F32, f, q);
        let p = self.bin(BinaryOp::FAdd, Ty::F32, fq, f32c(1.0));
        let pb = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, p);
        let ni = self.convert(ConvertOp::FloatToSint, Ty::F32, Ty::U32, n);
        // The result's biased exponent field, as a signed integer.
        let pe = self.bin(BinaryOp::ShrU, Ty::U32, pb, u32c(23));
        let ef = self.bin(BinaryOp::Add, Ty::U32, pe, ni);
        let shifted = self.bin(BinaryOp::Shl, Ty::U32, ni, u32c(23));
        let normal = self.bin(BinaryOp::Add, Ty::U32, pb, shifted);
        let is_normal = self.cmp(CmpOp::GtS, Ty::U32, ef, u32c(0));
        let tiny = if ftz {
            u32c(0)
        } else {
            // Significand 1.m · 2^(ef−127) with ef ≤ 0: shift right by s = 1 − ef ≥ 1 (at most
            // 31; from 25 on the result is 0) and round to nearest even.
            let mant = self.bin(BinaryOp::And, Ty::U32, pb, u32c(0x7f_ffff));
            let mant = self.bin(BinaryOp::Or, Ty::U32, mant, u32c(0x80_0000));
            let s = self.bin(BinaryOp::Sub, Ty::U32, u32c(1), ef);
            let s = self.bin(BinaryOp::MinU, Ty::U32, s, u32c(31));
            self.shift_right_rne(mant, s)
        };
        let r = self.select(Ty::U32, is_normal, normal, tiny);
        let overflow = self.cmp(CmpOp::GtS, Ty::U32, ef, u32c(254));
        let r = self.select(Ty::U32, overflow, u32c(0x7f80_0000), r);
        let r = self.select(Ty::U32, nan, u32c(NAN_BITS), r);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r)
    }

    /// `rsqrt.approx.f64` (§9.7.3.16; no bound stated, "emulated in software", subnormals
    /// supported): x = 4^j·m with m ∈ [1, 4) by integer operations (subnormals normalized with
    /// a 64-bit clz), y0 = `rsqrt_f32` of m rounded to f32 (2^-21 relative), two Newton steps
    /// y ← y·(3/2 − (m/2)·y·y) in f64 (2^-42, then the f64 roundings), 2^-j put into the
    /// exponent. Every intermediate is a normal number in [1/4, 4], so the result does not
    /// depend on the device's subnormal mode. Special values as for f32: ±0 → ±inf, negative
    /// (subnormals too) → NaN, +inf → +0, NaN → canonical NaN. Measured within 2^-51.2
    /// relative (tests/tests/approx_sweep.rs; the f64 reference itself is within 2^-52).
    fn rsqrt_f64(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["approx"])?;
        self.subnormal_exempt.f32 = true;
        self.subnormal_exempt.f64 = true;
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        let a = self.read(a, ScalarType::F64)?;
        let u64c = FnLower::u64c;
        let b = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, a);
        let ef = self.bin(BinaryOp::ShrU, Ty::U64, b, u32c(52));
        let ef = self.convert(ConvertOp::Truncate, Ty::U64, Ty::U32, ef);
        let ef = self.bin(BinaryOp::And, Ty::U32, ef, u32c(0x7ff));
        let sub = self.cmp(CmpOp::Eq, Ty::U32, ef, u32c(0));
        let mag = self.bin(BinaryOp::And, Ty::U64, b, u64c(u64::MAX >> 1));
        // Subnormal: shift the leading one up to bit 52; exponent field 1 − shift.
        let lz = self.un(UnaryOp::CountLeadingZeros, Ty::U64, mag);
        let sh = self.bin(BinaryOp::Sub, Ty::U32, lz, u32c(11));
        let sh = self.select(Ty::U32, sub, sh, u32c(0));
        let sh = self.bin(BinaryOp::And, Ty::U32, sh, u32c(63));
        let norm = self.bin(BinaryOp::Shl, Ty::U64, mag, sh);
        let frac = self.bin(BinaryOp::And, Ty::U64, norm, u64c((1 << 52) - 1));
        let e1 = self.select(Ty::U32, sub, u32c(1), ef);
        let e = self.bin(BinaryOp::Sub, Ty::U32, e1, sh);
        // e − 1023 = 2j + odd.
        let ub = self.bin(BinaryOp::Sub, Ty::U32, e, u32c(1023));
        let odd = self.bin(BinaryOp::And, Ty::U32, ub, u32c(1));
        let j2 = self.bin(BinaryOp::Sub, Ty::U32, ub, odd);
        let j = self.bin(BinaryOp::ShrS, Ty::U32, j2, u32c(1));
        let mexp = self.bin(BinaryOp::Add, Ty::U32, odd, u32c(1023));
        let mexp = self.convert(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, mexp);
        let mexp = self.bin(BinaryOp::Shl, Ty::U64, mexp, u32c(52));
        let mb = self.bin(BinaryOp::Or, Ty::U64, frac, mexp);
        let mf = self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, mb);
        let m32 = self.convert(ConvertOp::FloatToFloat, Ty::F64, Ty::F32, mf);
        let y32 = self.rsqrt_f32(m32);
        let mut y = self.convert(ConvertOp::FloatToFloat, Ty::F32, Ty::F64, y32);
        let f64c = |x: f64| Operand::Const(Const::F64(x.to_bits()));
        let h = self.bin(BinaryOp::FMul, Ty::F64, mf, f64c(0.5));
        for _ in 0..2 {
            let hy = self.bin(BinaryOp::FMul, Ty::F64, h, y);
            let hyy = self.bin(BinaryOp::FMul, Ty::F64, hy, y);
            let c = self.bin(BinaryOp::FSub, Ty::F64, f64c(1.5), hyy);
            y = self.bin(BinaryOp::FMul, Ty::F64, y, c);
        }
        let yb = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, y);
        let js = self.convert(ConvertOp::SignExtend, Ty::U32, Ty::U64, j);
        let js = self.bin(BinaryOp::Shl, Ty::U64, js, u32c(52));
        let r = self.bin(BinaryOp::Sub, Ty::U64, yb, js);
        // Special values on the bits.
        let zero = self.cmp(CmpOp::Eq, Ty::U64, mag, u64c(0));
        let sign = self.bin(BinaryOp::And, Ty::U64, b, u64c(1 << 63));
        let inf = self.bin(BinaryOp::Or, Ty::U64, sign, u64c(0x7ff0_0000_0000_0000));
        let bad = self.cmp(CmpOp::GtU, Ty::U64, b, u64c(0x7ff0_0000_0000_0000));
        let pos_inf = self.cmp(CmpOp::Eq, Ty::U64, b, u64c(0x7ff0_0000_0000_0000));
        let r = self.select(Ty::U64, pos_inf, u64c(0), r);
        let r = self.select(Ty::U64, bad, u64c(0x7fff_ffff_ffff_ffff), r);
        let r = self.select(Ty::U64, zero, inf, r);
        let r = self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, r);
        self.write(d, ScalarType::F64, r)
    }

    /// `v >> s` rounded to nearest even (1 ≤ s ≤ 31).
    fn shift_right_rne(&mut self, v: Operand, s: Operand) -> Operand {
        let q = self.bin(BinaryOp::ShrU, Ty::U32, v, s);
        let one_s = self.bin(BinaryOp::Shl, Ty::U32, u32c(1), s);
        let mask = self.bin(BinaryOp::Sub, Ty::U32, one_s, u32c(1));
        let rem = self.bin(BinaryOp::And, Ty::U32, v, mask);
        let half = self.bin(BinaryOp::ShrU, Ty::U32, one_s, u32c(1));
        // Round up when rem > half, or rem == half and q is odd: rem + (q & 1) > half.
        let odd = self.bin(BinaryOp::And, Ty::U32, q, u32c(1));
        let key = self.bin(BinaryOp::Add, Ty::U32, rem, odd);
        let up = self.cmp(CmpOp::GtU, Ty::U32, key, half);
        let inc = self.select(Ty::U32, up, u32c(1), u32c(0));
        self.bin(BinaryOp::Add, Ty::U32, q, inc)
    }

    /// A positive finite non-zero f32 (bits `b`, subnormals included) as 2^e · m, by integer
    /// operations: the biased exponent `e + 127` (U32, may be ≤ 0 as a signed value) and the
    /// 23 fraction bits of m ∈ [1, 2).
    fn f32_unpack(&mut self, b: Operand) -> (Operand, Operand) {
        let expf = self.bin(BinaryOp::ShrU, Ty::U32, b, u32c(23));
        let sub = self.cmp(CmpOp::Eq, Ty::U32, expf, u32c(0));
        // Subnormal: the leading one at bit 31 − clz moves to bit 23; exponent 1 − (clz − 8).
        let lz = self.un(UnaryOp::CountLeadingZeros, Ty::U32, b);
        let sh = self.bin(BinaryOp::Sub, Ty::U32, lz, u32c(8));
        let sh = self.select(Ty::U32, sub, sh, u32c(0));
        let norm = self.bin(BinaryOp::Shl, Ty::U32, b, sh);
        let frac = self.bin(BinaryOp::And, Ty::U32, norm, u32c(0x7f_ffff));
        let e1 = self.select(Ty::U32, sub, u32c(1), expf);
        let e = self.bin(BinaryOp::Sub, Ty::U32, e1, sh);
        (e, frac)
    }

    /// `lg2.approx.f32` (§9.7.3.20: 2^-22.6 absolute "for mantissa"; ±0 → −inf, negative →
    /// NaN, +inf → +inf). x = 2^e · m with m ∈ [√2/2, √2) by integer operations (subnormals
    /// normalized; `.ftz` flushed them before), u = m − 1 exact, log2 m ≈ u·Q(u), and the
    /// result is e + u·Q(u) rounded once: within 2^-22.6 of log2 x for x ∈ [√2/2, √2) (e = 0),
    /// and that plus half an ulp of the result elsewhere. Measured: see README.
    fn lg2_f32(&mut self, x: Operand) -> Operand {
        let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
        let (e, frac) = self.f32_unpack(b);
        // m ≥ √2 (fraction above 0x3504f3): halve it and add one to e.
        let big = self.cmp(CmpOp::GtU, Ty::U32, frac, u32c(0x35_04f3));
        let mexp = self.select(Ty::U32, big, u32c(126 << 23), u32c(127 << 23));
        let mb = self.bin(BinaryOp::Or, Ty::U32, frac, mexp);
        let inc = self.select(Ty::U32, big, u32c(1), u32c(0));
        let e = self.bin(BinaryOp::Add, Ty::U32, e, inc);
        let e = self.bin(BinaryOp::Sub, Ty::U32, e, u32c(127));
        let m = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, mb);
        let u = self.bin(BinaryOp::FSub, Ty::F32, m, f32c(1.0));
        let q = self.horner_f32(u, &LOG2_Q);
        let l = self.bin(BinaryOp::FMul, Ty::F32, u, q);
        let ef = self.convert(ConvertOp::SintToFloat, Ty::U32, Ty::F32, e);
        let r = self.bin(BinaryOp::FAdd, Ty::F32, ef, l);
        let r = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, r);
        // Special values on the bits: +inf → +inf; +NaN and everything with the sign set
        // (negative numbers, −NaN) → NaN; then ±0 → −inf.
        let mag = self.bin(BinaryOp::And, Ty::U32, b, u32c(0x7fff_ffff));
        let zero = self.cmp(CmpOp::Eq, Ty::U32, mag, u32c(0));
        let pos_inf = self.cmp(CmpOp::Eq, Ty::U32, b, u32c(0x7f80_0000));
        let r = self.select(Ty::U32, pos_inf, b, r);
        let bad = self.cmp(CmpOp::GtU, Ty::U32, b, u32c(0x7f80_0000));
        let r = self.select(Ty::U32, bad, u32c(NAN_BITS), r);
        let r = self.select(Ty::U32, zero, u32c(0xff80_0000), r);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r)
    }

    /// `sin.approx.f32` / `cos.approx.f32` (§9.7.3.18/19: 2^-20.9 absolute "in quadrant 00";
    /// ±inf and NaN → NaN; sin keeps the sign of a zero, cos of a zero is 1).
    ///
    /// Cody–Waite reduction: k = roundEven(x·2/π), r = ((x − k·P1) − k·P2) − k·P3 with π/2 =
    /// P1 + P2 + P3 to 60 bits; P1 has 8 significant bits and P2 12, so k·P1 is exact for
    /// |k| < 2^16 and k·P2 for |k| < 2^12, and x − k·P1 is exact (Sterbenz): r is within
    /// 2^-26 of x − k·π/2 for |x| < 2^12·π/2 ≈ 6434 (measured worst 0.17 of the bound), and
    /// k·P2's rounding adds about |x|·2^-36 beyond, so the bound holds for |x| < 2^15
    /// (measured 0.96 of it in [2^14, 2^15), exhaustively on an f32 model of this sequence).
    /// From |x| ≈ 10^5 on k·P1 rounds too and the error grows like |x|·2^-24 (an NVIDIA GPU's
    /// reduction, a multiply by 1/2π in f32, loses about as much); r is clamped to ±0.8 and
    /// the quadrant taken from k mod 4 (k = 0 for |k| ≥ 2^30, where k is a multiple of 4
    /// anyway), so every finite x gives a value in [−1, 1]. Then sin r ≈ r + r³·S(r²), cos r ≈ 1 + r²·C(r²), chosen and negated by the
    /// quadrant. Subnormals: sin passes a subnormal x through unchanged (sin x = x there),
    /// cos gives 1 for it either way; every r of a normal x is normal (x is at least 2^-30
    /// from a non-zero multiple of π/2), and r², r³ only meet terms 2^20 larger.
    fn sin_cos_f32(&mut self, x: Operand, cos: bool) -> Operand {
        let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
        let mag = self.bin(BinaryOp::And, Ty::U32, b, u32c(0x7fff_ffff));
        let special = self.cmp(CmpOp::GeU, Ty::U32, mag, u32c(0x7f80_0000));
        let xs = self.select(Ty::F32, special, f32c(0.0), x);
        let kx = self.bin(BinaryOp::FMul, Ty::F32, xs, f32c(std::f32::consts::FRAC_2_PI));
        let k = self.un(UnaryOp::FRoundEven, Ty::F32, kx);
        let ka = self.un(UnaryOp::FAbs, Ty::F32, k);
        let small = self.cmp(CmpOp::FLt, Ty::F32, ka, f32c(1073741824.0));
        let kq = self.select(Ty::F32, small, k, f32c(0.0));
        let ki = self.convert(ConvertOp::FloatToSint, Ty::F32, Ty::U32, kq);
        let mut r = xs;
        for p in [PIO2_1, PIO2_2, PIO2_3] {
            let kp = self.bin(BinaryOp::FMul, Ty::F32, k, f32c(p));
            r = self.bin(BinaryOp::FSub, Ty::F32, r, kp);
        }
        // |r| ≤ π/4 + 0.005 for |x| < 2^16 (x·2/π rounds by up to an ulp of 2^15, which moves
        // k by 2^-8); beyond, keep it in range (no NaN here: x was finite).
        let r = self.bin(BinaryOp::FMax, Ty::F32, r, f32c(-0.8));
        let r = self.bin(BinaryOp::FMin, Ty::F32, r, f32c(0.8));
        let z = self.bin(BinaryOp::FMul, Ty::F32, r, r);
        let quadrant = if cos { self.bin(BinaryOp::Add, Ty::U32, ki, u32c(1)) } else { ki };
        let s_poly = self.horner_f32(z, &SIN_S);
        let rz = self.bin(BinaryOp::FMul, Ty::F32, r, z);
        let s_tail = self.bin(BinaryOp::FMul, Ty::F32, rz, s_poly);
        let s = self.bin(BinaryOp::FAdd, Ty::F32, r, s_tail);
        let c_poly = self.horner_f32(z, &COS_C);
        let c_tail = self.bin(BinaryOp::FMul, Ty::F32, z, c_poly);
        let c = self.bin(BinaryOp::FAdd, Ty::F32, c_tail, f32c(1.0));
        let odd = self.bin(BinaryOp::And, Ty::U32, quadrant, u32c(1));
        let use_cos = self.cmp(CmpOp::Ne, Ty::U32, odd, u32c(0));
        let v = self.select(Ty::F32, use_cos, c, s);
        let vb = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, v);
        // Quadrants 2 and 3 negate: bit 1 of the quadrant moved to the sign bit.
        let neg = self.bin(BinaryOp::Shl, Ty::U32, quadrant, u32c(30));
        let neg = self.bin(BinaryOp::And, Ty::U32, neg, u32c(0x8000_0000));
        let r = self.bin(BinaryOp::Xor, Ty::U32, vb, neg);
        let r = if cos {
            r
        } else {
            // sin x = x for subnormal x (and ±0).
            let tiny = self.cmp(CmpOp::LtU, Ty::U32, mag, u32c(0x80_0000));
            self.select(Ty::U32, tiny, b, r)
        };
        let r = self.select(Ty::U32, special, u32c(NAN_BITS), r);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r)
    }

    /// `rsqrt.approx.f32` (§9.7.3.16: 2^-22.4 absolute over [1, 4), i.e. relative to the
    /// result's scale elsewhere; ±0 → ±inf, negative → NaN, +inf → +0, NaN → NaN). x =
    /// 4^j · m with m ∈ [1, 4) by integer operations (subnormals normalized), y ≈ 1/√m from
    /// the classic integer seed (0x5f3759df − bits/2, 3.4 % off) and three Newton steps y ←
    /// y·(3/2 − (m/2)·y·y), then 2^-j put into the exponent: the result is always normal.
    fn rsqrt_f32(&mut self, x: Operand) -> Operand {
        let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
        let (e, frac) = self.f32_unpack(b);
        // e is biased; e − 127 = 2j + odd. (e − 127) & 1 = (e + 1) & 1.
        let ub = self.bin(BinaryOp::Sub, Ty::U32, e, u32c(127));
        let odd = self.bin(BinaryOp::And, Ty::U32, ub, u32c(1));
        let mexp = self.bin(BinaryOp::Add, Ty::U32, odd, u32c(127));
        let mexp = self.bin(BinaryOp::Shl, Ty::U32, mexp, u32c(23));
        let mb = self.bin(BinaryOp::Or, Ty::U32, frac, mexp);
        let j2 = self.bin(BinaryOp::Sub, Ty::U32, ub, odd);
        let j = self.bin(BinaryOp::ShrS, Ty::U32, j2, u32c(1));
        let m = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, mb);
        let h = self.bin(BinaryOp::FMul, Ty::F32, m, f32c(0.5));
        let half_mb = self.bin(BinaryOp::ShrU, Ty::U32, mb, u32c(1));
        let yb = self.bin(BinaryOp::Sub, Ty::U32, u32c(0x5f37_59df), half_mb);
        let mut y = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, yb);
        for _ in 0..3 {
            let hy = self.bin(BinaryOp::FMul, Ty::F32, h, y);
            let hyy = self.bin(BinaryOp::FMul, Ty::F32, hy, y);
            let c = self.bin(BinaryOp::FSub, Ty::F32, f32c(1.5), hyy);
            y = self.bin(BinaryOp::FMul, Ty::F32, y, c);
        }
        let yb = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, y);
        let js = self.bin(BinaryOp::Shl, Ty::U32, j, u32c(23));
        let r = self.bin(BinaryOp::Sub, Ty::U32, yb, js);
        // Special values on the bits.
        let mag = self.bin(BinaryOp::And, Ty::U32, b, u32c(0x7fff_ffff));
        let zero = self.cmp(CmpOp::Eq, Ty::U32, mag, u32c(0));
        let sign = self.bin(BinaryOp::And, Ty::U32, b, u32c(0x8000_0000));
        let inf = self.bin(BinaryOp::Or, Ty::U32, sign, u32c(0x7f80_0000));
        let negative = self.cmp(CmpOp::GtU, Ty::U32, b, u32c(0x8000_0000));
        let pos_nan = self.cmp(CmpOp::GtU, Ty::U32, b, u32c(0x7f80_0000));
        let bad = self.bin(BinaryOp::Or, Ty::Bool, negative, pos_nan);
        let pos_inf = self.cmp(CmpOp::Eq, Ty::U32, b, u32c(0x7f80_0000));
        let r = self.select(Ty::U32, pos_inf, u32c(0), r);
        let r = self.select(Ty::U32, bad, u32c(NAN_BITS), r);
        let r = self.select(Ty::U32, zero, inf, r);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r)
    }

    /// `tanh.approx.f32` (§9.7.3.22 states no bound; ±0 and subnormals pass through, ±inf →
    /// ±1, NaN → NaN). On a = |x|: a < 2^-12 gives x itself (tanh x = x to 2^-25 relative);
    /// a < 0.55: a + a³·T(a²); else e = 2^(−2a·log2 e) ∈ (0, 1/3] by `ex2_f32` (a clamped to
    /// 9.1, where tanh is 1 in f32) and tanh a = 1 − e·G(e) with G(e) ≈ 2/(1 + e). The sign of
    /// x is put back on the bits. Measured: see README.
    fn tanh_f32(&mut self, x: Operand) -> Operand {
        let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
        let mag = self.bin(BinaryOp::And, Ty::U32, b, u32c(0x7fff_ffff));
        let sign = self.bin(BinaryOp::And, Ty::U32, b, u32c(0x8000_0000));
        let nan = self.cmp(CmpOp::GtU, Ty::U32, mag, u32c(0x7f80_0000));
        let tiny = self.cmp(CmpOp::LtU, Ty::U32, mag, u32c(0x3980_0000)); // 2^-12
        // a: |x| with NaN made 0 (replaced at the end), at most 9.1, on the bits (so that no
        // arithmetic sees an infinity).
        let a = self.select(Ty::U32, nan, u32c(0), mag);
        let a = self.select(Ty::U32, tiny, u32c(0x3980_0000), a);
        let a = self.bin(BinaryOp::MinU, Ty::U32, a, u32c(9.1f32.to_bits()));
        let a = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, a);
        // Small: a + a³·T(a²).
        let z = self.bin(BinaryOp::FMul, Ty::F32, a, a);
        let t = self.horner_f32(z, &TANH_T);
        let az = self.bin(BinaryOp::FMul, Ty::F32, a, z);
        let tail = self.bin(BinaryOp::FMul, Ty::F32, az, t);
        let small = self.bin(BinaryOp::FAdd, Ty::F32, a, tail);
        // Large: 1 − e·G(e).
        let arg = self.bin(BinaryOp::FMul, Ty::F32, a, f32c(-2.0 * std::f32::consts::LOG2_E));
        let e = self.ex2_f32(arg, true);
        let g = self.horner_f32(e, &TANH_G);
        let eg = self.bin(BinaryOp::FMul, Ty::F32, e, g);
        let large = self.bin(BinaryOp::FSub, Ty::F32, f32c(1.0), eg);
        let is_small = self.cmp(CmpOp::FLt, Ty::F32, a, f32c(0.55));
        let r = self.select(Ty::F32, is_small, small, large);
        let rb = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, r);
        let r = self.bin(BinaryOp::Or, Ty::U32, rb, sign);
        let r = self.select(Ty::U32, tiny, b, r);
        let r = self.select(Ty::U32, nan, u32c(NAN_BITS), r);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r)
    }
}

#[cfg(test)]
mod tests {
    /// The constants are what their comments say.
    #[test]
    fn pio2_split() {
        let p = std::f64::consts::FRAC_PI_2;
        let keep12 = |v: f64| {
            let e = v.abs().log2().floor() as i32;
            let sc = 2f64.powi(11 - e);
            (v * sc).trunc() / sc
        };
        let p1 = keep12(p);
        let p2 = keep12(p - p1);
        let p3 = (p - p1 - p2) as f32;
        assert_eq!((p1 as f32, p2 as f32, p3), (super::PIO2_1, super::PIO2_2, super::PIO2_3));
    }
}
