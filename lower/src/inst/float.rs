//! Floating-point arithmetic (spec §9.7.3). Only what can be made bit-exact (or within the
//! documented error of `.approx`/`.full`) on every target is accepted; the rest is reported.

use super::{operands, Mods};
use crate::function::{unsupported, FnLower, LResult};
use crate::ir::{BinaryOp, CmpOp, ConvertOp, Expr, Operand, Ty, UnaryOp};
use super::half::{Clamp, Rounding, F32, F64};
use crate::ptx_types::{self, value_ty};
use ptxcross_frontend::ast::ScalarType;
use ptxcross_frontend::Diagnostic;

impl FnLower {
    fn float_ty(&self, t: ScalarType, m: &Mods) -> LResult<Ty> {
        if ptx_types::is_half(t) {
            return Err(unsupported(format!("half-precision `{}`", m.name()), m.inst.span));
        }
        match value_ty(t) {
            Some(ty @ (Ty::F32 | Ty::F64)) => Ok(ty),
            _ => Err(Diagnostic::new(format!("`{}` needs .f32 or .f64", m.name()), m.inst.span)),
        }
    }

    /// The directed rounding mode (`.rz/.rm/.rp`) of an instruction, if any. Vulkan and WebGPU
    /// round arithmetic to nearest only: f32 is emulated through f64 (see `f32_directed`; on
    /// integers without f64), f64 on the integer significands (see `f64_directed`).
    fn directed(&self, m: &Mods) -> Option<Rounding> {
        m.one_of(&["rz", "rm", "rp"]).and_then(Rounding::from_modifier)
    }

    /// add/sub/mul/fma of f64 operands rounded with a directed `mode`, as one exact fused
    /// multiply-add: a + b = a·1 + b, a − b = a·1 + (−b), a·b = a·b + z with z the zero of the
    /// product's sign (so that a zero product keeps its sign in every mode).
    fn f64_directed(&mut self, op: &str, mode: Rounding, xs: &[Operand]) -> Operand {
        let one = Operand::Const(crate::ir::Const::F64(1f64.to_bits()));
        match op {
            "add" => self.f64_fma_rounded(xs[0], one, xs[1], mode),
            "sub" => {
                let bb = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, xs[1]);
                let nb = self.bin(BinaryOp::Xor, Ty::U64, bb, FnLower::u64c(1 << 63));
                let nb = self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, nb);
                self.f64_fma_rounded(xs[0], one, nb, mode)
            }
            "mul" => {
                let ab = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, xs[0]);
                let bb = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, xs[1]);
                let x = self.bin(BinaryOp::Xor, Ty::U64, ab, bb);
                let sign = self.bin(BinaryOp::And, Ty::U64, x, FnLower::u64c(1 << 63));
                let z = self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, sign);
                self.f64_fma_rounded(xs[0], xs[1], z, mode)
            }
            _ => self.f64_fma_rounded(xs[0], xs[1], xs[2], mode),
        }
    }

    /// add/sub/mul/fma of f32 operands rounded with a directed `mode`: the exact result (mul)
    /// or the one rounded to odd in f64 (sums; Boldo & Melquiond) rounded once to f32. An
    /// exact zero sum of operands of opposite signs is −0 when rounding down (IEEE 754 §6.3).
    fn f32_directed(&mut self, op: &str, mode: Rounding, xs: &[Operand]) -> Operand {
        if self.no_float64 {
            return self.f32_directed_on_integers(op, mode, xs);
        }
        let w: Vec<Operand> = xs.iter().map(|&x| self.convert(ConvertOp::FloatToFloat, Ty::F32, Ty::F64, x)).collect();
        let (r, addends) = match op {
            "add" => (self.add_round_to_odd(Ty::F64, w[0], w[1]), Some((w[0], w[1]))),
            "sub" => {
                let nb = self.un(UnaryOp::FNeg, Ty::F64, w[1]);
                (self.add_round_to_odd(Ty::F64, w[0], nb), Some((w[0], nb)))
            }
            "mul" => (self.bin(BinaryOp::FMul, Ty::F64, w[0], w[1]), None),
            _ => {
                let p = self.bin(BinaryOp::FMul, Ty::F64, w[0], w[1]);
                (self.add_round_to_odd(Ty::F64, p, w[2]), Some((p, w[2])))
            }
        };
        let r = match (mode, addends) {
            (Rounding::Down, Some((x, y))) => {
                let zero = self.cmp(CmpOp::FEq, Ty::F64, r, Operand::Const(crate::ir::Const::F64(0)));
                let xb = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, x);
                let yb = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, y);
                let signs = self.bin(BinaryOp::Or, Ty::U64, xb, yb);
                let sign = self.bin(BinaryOp::And, Ty::U64, signs, FnLower::u64c(1 << 63));
                let z = self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, sign);
                self.select(Ty::F64, zero, z, r)
            }
            _ => r,
        };
        let bits = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, r);
        let f = self.round_to_format(bits, F64, F32, mode, Clamp::default());
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, f)
    }

    /// `f32_directed` without f64: each operation as one fused multiply-add on integers
    /// (`f32_fma_directed_on_integers`), with the operands `f64_directed` gives it.
    fn f32_directed_on_integers(&mut self, op: &str, mode: Rounding, xs: &[Operand]) -> Operand {
        let one = Operand::Const(crate::ir::Const::F32(1f32.to_bits()));
        let u = FnLower::u32c;
        let bits = |s: &mut Self, x: Operand| s.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
        let float = |s: &mut Self, x: Operand| s.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, x);
        match op {
            "add" => self.f32_fma_directed_on_integers(xs[0], one, xs[1], mode),
            "sub" => {
                let bb = bits(self, xs[1]);
                let nb = self.bin(BinaryOp::Xor, Ty::U32, bb, u(0x8000_0000));
                let nb = float(self, nb);
                self.f32_fma_directed_on_integers(xs[0], one, nb, mode)
            }
            "mul" => {
                let (ab, bb) = (bits(self, xs[0]), bits(self, xs[1]));
                let x = self.bin(BinaryOp::Xor, Ty::U32, ab, bb);
                let sign = self.bin(BinaryOp::And, Ty::U32, x, u(0x8000_0000));
                let z = float(self, sign);
                self.f32_fma_directed_on_integers(xs[0], xs[1], z, mode)
            }
            _ => self.f32_fma_directed_on_integers(xs[0], xs[1], xs[2], mode),
        }
    }

    pub(super) fn float_arith(&mut self, m: &Mods) -> LResult<()> {
        let name = m.inst.opcode.name.as_str();
        let t = m.ty()?;
        if ptx_types::is_half(t) {
            return self.half_arith(m);
        }
        let ty = self.float_ty(t, m)?;
        let ftz = m.has("ftz");
        if ftz && ty == Ty::F64 {
            return Err(Diagnostic::new("`.ftz` applies to .f32 only", m.inst.span));
        }
        match name {
            "add" | "sub" | "mul" => {
                m.only(&["rn", "rz", "rm", "rp", "ftz", "sat"])?;
                if let Some(mode) = self.directed(m) {
                    let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
                    let a = self.read_float(a, t, ftz)?;
                    let b = self.read_float(b, t, ftz)?;
                    if ty == Ty::F64 {
                        let r = self.f64_directed(name, mode, &[a, b]);
                        return self.write_float(d, t, r, false, m.has("sat"));
                    }
                    let r = self.f32_directed(name, mode, &[a, b]);
                    let r = if ftz && name == "mul" { self.flush_tiny_f32_product(a, b, r) } else { r };
                    return self.write_float(d, t, r, ftz, m.has("sat"));
                }
                let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
                let a = self.read_float(a, t, ftz)?;
                let b = self.read_float(b, t, ftz)?;
                let op = match name {
                    "add" => BinaryOp::FAdd,
                    "sub" => BinaryOp::FSub,
                    _ => BinaryOp::FMul,
                };
                let r = if self.flushed_f32 && ty == Ty::F32 && !ftz {
                    self.f32_arith_flushed(name, &[a, b])
                } else {
                    self.bin(op, ty, a, b)
                };
                let r = if ftz && name == "mul" { self.flush_tiny_f32_product(a, b, r) } else { r };
                self.write_float(d, t, r, ftz, m.has("sat"))
            }
            "fma" | "mad" => {
                m.only(&["rn", "rz", "rm", "rp", "ftz", "sat"])?;
                if let Some(mode) = self.directed(m) {
                    let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
                    let a = self.read_float(a, t, ftz)?;
                    let b = self.read_float(b, t, ftz)?;
                    let c = self.read_float(c, t, ftz)?;
                    let r = if ty == Ty::F64 { self.f64_directed("fma", mode, &[a, b, c]) } else { self.f32_directed("fma", mode, &[a, b, c]) };
                    return self.write_float(d, t, r, ftz, m.has("sat"));
                }
                // §9.7.3.7, PTX ISA notes: "Legacy mad.f64 instructions having no rounding
                // modifier will map to mad.rn.f64" (and mad.f64 "is the same as fma.f64"). A
                // mad.f32 without one has its rounding from `inst::legacy` by now.
                let legacy_mad_f64 = name == "mad" && ty == Ty::F64;
                if !m.has("rn") && !legacy_mad_f64 {
                    return Err(Diagnostic::new(format!("`{}` needs a rounding modifier (§9.7.3.6)", m.name()), m.inst.span));
                }
                let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
                let a = self.read_float(a, t, ftz)?;
                let b = self.read_float(b, t, ftz)?;
                let c = self.read_float(c, t, ftz)?;
                let r = if ftz {
                    // `.ftz`: a result tiny after rounding with an unbounded exponent is flushed
                    // (observed on an NVIDIA H200, driver 580: 0x00800000 × 0x3f7fffff + 0 gives
                    // +0); the rounded-to-odd f64 sum decides that exactly.
                    if self.no_float64 {
                        self.f32_fma_ftz_on_integers(a, b, c)
                    } else {
                        let odd = self.f32_fma_to_odd(a, b, c);
                        let odd = self.flush_tiny_product(odd, F32, true);
                        self.convert(ConvertOp::FloatToFloat, Ty::F64, Ty::F32, odd)
                    }
                } else if self.flushed_f32 && ty == Ty::F32 {
                    self.f32_arith_flushed("fma", &[a, b, c])
                } else {
                    self.fma(ty, a, b, c)
                };
                self.write_float(d, t, r, ftz, m.has("sat"))
            }
            "div" => {
                m.only(&["approx", "full", "rn", "rz", "rm", "rp", "ftz"])?;
                if let Some(r) = m.one_of(&["rn", "rz", "rm", "rp"]) {
                    let mode = Rounding::from_modifier(r).unwrap_or(Rounding::Nearest);
                    let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
                    let a = self.read_float(a, t, ftz)?;
                    let b = self.read_float(b, t, ftz)?;
                    if ty == Ty::F64 {
                        let r = self.f64_div_rounded(a, b, mode);
                        return self.write_float(d, t, r, false, false);
                    }
                    let r = self.f32_div_rounded(a, b, mode);
                    let r = if ftz { self.flush_tiny_f32_quotient(a, b, r) } else { r };
                    return self.write_float(d, t, r, ftz, false);
                }
                if ty == Ty::F64 || !(m.has("approx") || m.has("full")) {
                    // PTX 1.4 and later require one (§9.7.3.8; the PTX 1.0–1.3 defaults: `inst::legacy`).
                    let what = if ty == Ty::F64 { "a rounding modifier" } else { ".approx, .full or a rounding modifier" };
                    return Err(Diagnostic::new(format!("`{}` needs {what}", m.name()), m.inst.span));
                }
                let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
                // Spec §9.7.3.8 "sm_20+: By default, subnormal numbers are supported"; `.ftz`
                // flushes them (observed the same on an NVIDIA H200, driver 580).
                let a = self.read_float(a, t, ftz)?;
                let b = self.read_float(b, t, ftz)?;
                let r = match (m.has("approx"), ftz) {
                    (true, true) => self.div_approx(a, b),
                    (true, false) => self.div_approx_subnormal(a, b),
                    (false, _) => self.div_full(a, b),
                };
                self.write_float(d, t, r, ftz, false)
            }
            "min" | "max" => {
                m.only(&["ftz", "NaN", "xorsign", "abs"])?;
                if m.has("xorsign") != m.has("abs") {
                    return Err(Diagnostic::new("`.xorsign` and `.abs` go together", m.inst.span));
                }
                let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
                let a = self.read_float(a, t, ftz)?;
                let b = self.read_float(b, t, ftz)?;
                let r = self.min_max_modifiers(name == "min", t, a, b, m.has("NaN"), m.has("xorsign"));
                self.write_float(d, t, r, ftz, false)
            }
            "abs" | "neg" => {
                m.only(&["ftz"])?;
                let [d, a] = operands(m.inst, 2)? else { unreachable!() };
                let a = self.read_float(a, t, ftz)?;
                let op = if name == "abs" { UnaryOp::FAbs } else { UnaryOp::FNeg };
                let r = self.un(op, ty, a);
                // §9.7.3.8/9 leave a NaN result unspecified for `neg` and `abs.f32` ("passed
                // through unchanged" for `abs.f64`). NVIDIA compiles both to an add of -0
                // with an operand modifier (ptxas 13.5, sm_75..sm_120: `FADD`/`DADD R, -RZ,
                // |x|` / `-x`), so a NaN input comes out as that add's NaN: the canonical
                // 0x7fffffff for f32 (`.ftz` or not), and for f64 the input quieted with its
                // own sign and payload, neither flipped nor cleared (measured through the
                // CUDA driver's PTX JIT on H100s, driver 580: f32 on 2026-11-26, f64 on
                // 2026-11-27). Kernels give NVIDIA's bits.
                let r = if t == ScalarType::F32 {
                    let nan = self.is_nan(a, t);
                    let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, r);
                    let bits = self.select(Ty::U32, nan, FnLower::u32c(0x7fff_ffff), bits);
                    self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, bits)
                } else {
                    let nan = self.is_nan(a, t);
                    let a_bits = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, a);
                    let quiet = self.bin(BinaryOp::Or, Ty::U64, a_bits, FnLower::u64c(1 << 51));
                    let bits = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, r);
                    let bits = self.select(Ty::U64, nan, quiet, bits);
                    self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, bits)
                };
                self.write_float(d, t, r, ftz, false)
            }
            _ => Err(unsupported(format!("`{}`", m.name()), m.inst.span)),
        }
    }

    /// `a*b+c` with a single rounding (spec §9.7.3.5 `fma.rn`).
    ///
    /// Unless the target's fma is known to be fused (and keeping subnormals; if it may flush
    /// them, `native_fma_guarded`, see there), f32 is computed exactly in f64: the
    /// product of two f32 is exact in f64; the sum is rounded to f64 *to odd* (TwoSum gives the
    /// exact error; an inexact result with an even last bit moves one ulp towards the error),
    /// and rounding that to f32 is then the correctly rounded result (Boldo & Melquiond,
    /// "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd",
    /// IEEE TC 2008: round-to-odd with ≥ 2 extra bits makes the second rounding innocuous).
    /// f64 is computed on the integer significands (`f64_fma_rounded`).
    pub(super) fn fma(&mut self, ty: Ty, a: Operand, b: Operand, c: Operand) -> Operand {
        if self.native_fma || (self.native_fma_guarded && ty == Ty::F64) {
            return self.value(ty, Expr::Fma { ty, a, b, c });
        }
        if self.native_fma_guarded {
            // Fused, but subnormal operands and results may be flushed: the native result
            // stands unless one could be involved (`f32_arith_flushed`, whose fast path is
            // then the native fma).
            return self.f32_arith_flushed("fma", &[a, b, c]);
        }
        if ty == Ty::F64 {
            return self.f64_fma_rounded(a, b, c, Rounding::Nearest);
        }
        if self.no_float64 {
            return self.f32_fma_on_integers(a, b, c);
        }
        // Emitted once per kernel as a function (see `FnLower::outlined`).
        self.outlined("f32_fma", &[a, b, c], &[Ty::F32, Ty::F32, Ty::F32], Ty::F32, |s, x| {
            let odd = s.f32_fma_to_odd(x[0], x[1], x[2]);
            s.convert(ConvertOp::FloatToFloat, Ty::F64, Ty::F32, odd)
        })
    }

    /// a·b + c of f32 operands in f64, rounded to odd (see `fma`).
    pub(super) fn f32_fma_to_odd(&mut self, a: Operand, b: Operand, c: Operand) -> Operand {
        let wide = |s: &mut Self, x: Operand| s.convert(ConvertOp::FloatToFloat, Ty::F32, Ty::F64, x);
        let (pa, pb, pc) = (wide(self, a), wide(self, b), wide(self, c));
        let p = self.bin(BinaryOp::FMul, Ty::F64, pa, pb);
        self.add_round_to_odd(Ty::F64, p, pc)
    }

    /// `div.approx.f32` is "computed as d = a * (1/b)" (spec §9.7.3.8); the reciprocal of a
    /// divisor with 2^126 < |b| < 2^128 is subnormal and flushed, so the quotient is 0 (NaN
    /// for an infinite `a`), as the spec states.
    /// "Division by zero creates a value of infinity (with same sign as a)": a zero divisor
    /// counts as +0. The targets' division is only specified for |b| ≤ 2^126 and for zero, so
    /// the reciprocal of a larger (or infinite) divisor is the zero it flushes to, directly.
    fn div_approx(&mut self, a: Operand, b: Operand) -> Operand {
        let f = |x: f32| Operand::Const(crate::ir::Const::F32(x.to_bits()));
        let mag = self.un(UnaryOp::FAbs, Ty::F32, b);
        let huge = self.cmp(CmpOp::FGt, Ty::F32, mag, f(2f32.powi(126)));
        // A correctly rounded reciprocal keeps a·(1/b) within the 2-ulp bound (the targets'
        // 2.5-ulp division would not).
        let r = self.f32_div_rounded(f(1.0), b, Rounding::Nearest);
        let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, b);
        let sign = self.bin(BinaryOp::And, Ty::U32, bits, FnLower::u32c(0x8000_0000));
        let signed_zero = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, sign);
        let r = self.select(Ty::F32, huge, signed_zero, r);
        self.bin(BinaryOp::FMul, Ty::F32, a, r)
    }

    /// `div.approx.f32` without `.ftz`: subnormal operands and results are kept, so 1/b may
    /// overflow where a/b does not; the correctly rounded quotient is within the 2-ulp bound.
    /// A divisor with 2^126 < |b| still gives a·0 (0, or NaN for an infinite a), as the spec
    /// states and an NVIDIA H200 (driver 580) does.
    fn div_approx_subnormal(&mut self, a: Operand, b: Operand) -> Operand {
        let f = |x: f32| Operand::Const(crate::ir::Const::F32(x.to_bits()));
        let mag = self.un(UnaryOp::FAbs, Ty::F32, b);
        let huge = self.cmp(CmpOp::FGt, Ty::F32, mag, f(2f32.powi(126)));
        let q = self.f32_div_rounded(a, b, Rounding::Nearest);
        let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, b);
        let sign = self.bin(BinaryOp::And, Ty::U32, bits, FnLower::u32c(0x8000_0000));
        let z = if self.flushed_f32 {
            // a·(±0) on the bits (`inst::flushed`): the zero of the XOR of the signs, NaN for
            // an infinite or NaN a.
            let ab = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, a);
            let x = self.bin(BinaryOp::Xor, Ty::U32, ab, sign);
            let zero = self.bin(BinaryOp::And, Ty::U32, x, FnLower::u32c(0x8000_0000));
            let mag = self.bin(BinaryOp::And, Ty::U32, ab, FnLower::u32c(0x7fff_ffff));
            let special = self.cmp(CmpOp::GeU, Ty::U32, mag, FnLower::u32c(0x7f80_0000));
            let z = self.select(Ty::U32, special, FnLower::u32c(0x7fff_ffff), zero);
            self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, z)
        } else {
            let signed_zero = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, sign);
            self.bin(BinaryOp::FMul, Ty::F32, a, signed_zero)
        };
        self.select(Ty::F32, huge, z, q)
    }

    /// `div.full.f32`: at most 2 ulp over the full range (spec §9.7.3.8): the correctly
    /// rounded quotient.
    fn div_full(&mut self, a: Operand, b: Operand) -> Operand {
        self.f32_div_rounded(a, b, Rounding::Nearest)
    }

    /// min/max with `.NaN` (any NaN operand gives the canonical NaN) and `.xorsign.abs` (the
    /// minimum of the magnitudes, with the XOR of the operands' signs unless it is NaN), as
    /// the semantics of §9.7.3.11/12 (and §9.7.4.7/8 for halves) spell out.
    pub(super) fn min_max_modifiers(
        &mut self,
        is_min: bool,
        t: ScalarType,
        a: Operand,
        b: Operand,
        nan_mode: bool,
        xorsign: bool,
    ) -> Operand {
        let ty = value_ty(t).unwrap_or(Ty::F32);
        let (ity, sign_bit, canonical) =
            if ty == Ty::F64 { (Ty::U64, 1u64 << 63, 0x7fff_ffff_ffff_ffffu64) } else { (Ty::U32, 1 << 31, 0x7fff_ffff) };
        let ab = self.convert(ConvertOp::Bitcast, ty, ity, a);
        let bb = self.convert(ConvertOp::Bitcast, ty, ity, b);
        let xs = self.bin(BinaryOp::Xor, ity, ab, bb);
        let xs = self.bin(BinaryOp::And, ity, xs, FnLower::int_const(ity, sign_bit));
        let (a, b) = if xorsign { (self.un(UnaryOp::FAbs, ty, a), self.un(UnaryOp::FAbs, ty, b)) } else { (a, b) };
        let r = self.float_min_max(is_min, t, ty, a, b);
        let nan = self.is_nan(r, t);
        let r = if xorsign {
            let rb = self.convert(ConvertOp::Bitcast, ty, ity, r);
            let signed = self.bin(BinaryOp::Or, ity, rb, xs);
            let signed = self.convert(ConvertOp::Bitcast, ity, ty, signed);
            self.select(ty, nan, r, signed)
        } else {
            r
        };
        if nan_mode {
            let na = self.is_nan(a, t);
            let nb = self.is_nan(b, t);
            let any = self.bin(BinaryOp::Or, Ty::Bool, na, nb);
            let c = self.convert(ConvertOp::Bitcast, ity, ty, FnLower::int_const(ity, canonical));
            self.select(ty, any, c, r)
        } else {
            r
        }
    }

    /// PTX min/max (spec §9.7.3.11/12): a NaN operand yields the other; two NaNs yield the
    /// canonical NaN; `+0.0 > -0.0`.
    pub(super) fn float_min_max(&mut self, is_min: bool, t: ScalarType, ty: Ty, a: Operand, b: Operand) -> Operand {
        let (ity, sign_free, canonical_nan) = if ty == Ty::F64 {
            (Ty::U64, 0x7fff_ffff_ffff_ffffu64, 0x7fff_ffff_ffff_ffffu64)
        } else {
            (Ty::U32, 0x7fff_ffff, 0x7fff_ffff)
        };
        let na = self.is_nan(a, t);
        let nb = self.is_nan(b, t);
        let ai = self.convert(ConvertOp::Bitcast, ty, ity, a);
        let bi = self.convert(ConvertOp::Bitcast, ty, ity, b);
        // Both zero: min ORs the sign bits, max ANDs them.
        let az = self.bin(BinaryOp::And, ity, ai, FnLower::int_const(ity, sign_free));
        let bz = self.bin(BinaryOp::And, ity, bi, FnLower::int_const(ity, sign_free));
        let either = self.bin(BinaryOp::Or, ity, az, bz);
        let zeros = self.cmp(CmpOp::Eq, ity, either, FnLower::int_const(ity, 0));
        let zr = self.bin(if is_min { BinaryOp::Or } else { BinaryOp::And }, ity, ai, bi);
        let zr = self.convert(ConvertOp::Bitcast, ity, ty, zr);
        // The IR op's precondition (no NaN, no ±0 pair) holds wherever its result is used;
        // feed it safe operands elsewhere.
        let any_nan = self.bin(BinaryOp::Or, Ty::Bool, na, nb);
        let bad = self.bin(BinaryOp::Or, Ty::Bool, any_nan, zeros);
        let one = if ty == Ty::F64 {
            Operand::Const(crate::ir::Const::F64(1f64.to_bits()))
        } else {
            Operand::Const(crate::ir::Const::F32(1f32.to_bits()))
        };
        let sa = self.select(ty, bad, one, a);
        let sb = self.select(ty, bad, one, b);
        let r = self.bin(if is_min { BinaryOp::FMin } else { BinaryOp::FMax }, ty, sa, sb);
        let r = self.select(ty, zeros, zr, r);
        let nan = if ty == Ty::F64 {
            // Observed on an NVIDIA H200, driver 580 (inst_sweep through the CUDA driver's PTX
            // JIT, all nine pairs of 0x7ff8000000000000, 0xfff8000000000001, 0x7ff0000000000001):
            // `min.f64` of two NaNs is the second operand, quieted (§9.7.3.11 says canonical NaN; f32
            // and the halves do give it). `max.f64` runs on the same instruction (DMNMX) and
            // was not reached by that run: it follows here.
            let q = self.bin(BinaryOp::Or, ity, bi, FnLower::int_const(ity, 1 << 51));
            self.convert(ConvertOp::Bitcast, ity, ty, q)
        } else {
            self.convert(ConvertOp::Bitcast, ity, ty, FnLower::int_const(ity, canonical_nan))
        };
        let both = self.bin(BinaryOp::And, Ty::Bool, na, nb);
        let r = self.select(ty, nb, a, r);
        let r = self.select(ty, na, b, r);
        self.select(ty, both, nan, r)
    }

    pub(super) fn float_special(&mut self, m: &Mods) -> LResult<()> {
        let name = m.inst.opcode.name.as_str();
        if name == "testp" {
            return self.testp(m);
        }
        if let Some(r) = self.approx_transcendental(m) {
            return r;
        }
        let t = m.ty()?;
        let ty = self.float_ty(t, m)?;
        let ftz = m.has("ftz");
        match name {
            "sqrt" | "rcp" if ty == Ty::F32 => {
                // §9.7.3.9/11: `.rnd` forms are correctly rounded; `.approx` allows 1 ulp
                // (rcp) / 2^-23 relative (sqrt), which the correctly rounded result meets
                // (the targets' own sqrt and division do not promise it).
                m.only(&["approx", "rn", "rz", "rm", "rp", "ftz"])?;
                let mode = match m.one_of(&["rn", "rz", "rm", "rp"]) {
                    Some(r) => Rounding::from_modifier(r).unwrap_or(Rounding::Nearest),
                    None if m.has("approx") => Rounding::Nearest,
                    None => return Err(Diagnostic::new(format!("`{}` needs .approx or a rounding modifier", m.name()), m.inst.span)),
                };
                let [d, a] = operands(m.inst, 2)? else { unreachable!() };
                let a = self.read_float(a, t, ftz)?;
                let r = if name == "sqrt" {
                    self.f32_sqrt_rounded(a, mode)
                } else {
                    let one = Operand::Const(crate::ir::Const::F32(1f32.to_bits()));
                    let r = self.f32_div_rounded(one, a, mode);
                    if ftz {
                        self.flush_tiny_f32_quotient(one, a, r)
                    } else {
                        r
                    }
                };
                self.write_float(d, t, r, ftz, false)
            }
            "sqrt" | "rcp" => {
                // §9.7.3.9/11: `.rnd` forms of f64 are correctly rounded (`rcp.approx.ftz.f64`
                // is in approx.rs).
                m.only(&["rn", "rz", "rm", "rp"])?;
                let mode = m
                    .one_of(&["rn", "rz", "rm", "rp"])
                    .and_then(Rounding::from_modifier)
                    .ok_or_else(|| Diagnostic::new(format!("`{}` needs a rounding modifier", m.name()), m.inst.span))?;
                let [d, a] = operands(m.inst, 2)? else { unreachable!() };
                let a = self.read(a, t)?;
                let r = if name == "sqrt" {
                    self.f64_sqrt_rounded(a, mode)
                } else {
                    let one = Operand::Const(crate::ir::Const::F64(1f64.to_bits()));
                    self.f64_div_rounded(one, a, mode)
                };
                self.write(d, t, r)
            }
            "copysign" => {
                // §9.7.3.2: "Copy sign bit of a into value of b" (NaN payloads of b kept).
                m.only(&[])?;
                let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
                let (a, b) = (self.read(a, t)?, self.read(b, t)?);
                let (ity, sign) = if ty == Ty::F64 { (Ty::U64, 1u64 << 63) } else { (Ty::U32, 1 << 31) };
                let ab = self.convert(ConvertOp::Bitcast, ty, ity, a);
                let bb = self.convert(ConvertOp::Bitcast, ty, ity, b);
                // b with its sign bit flipped where the signs differ: the same bits as
                // (a & sign) | (b & !sign), which lavapipe (LLVM 15) miscompiled under a
                // predicate as it did bfi's masked or (it computed (a & sign) | (a & !b & !sign);
                // differential case xint-seed-000000001e7b0084).
                let diff = self.bin(BinaryOp::Xor, ity, ab, bb);
                let differ = self.cmp(CmpOp::LtS, ity, diff, FnLower::int_const(ity, 0));
                let flipped = self.bin(BinaryOp::Xor, ity, bb, FnLower::int_const(ity, sign));
                let r = self.select(ity, differ, flipped, bb);
                let r = self.convert(ConvertOp::Bitcast, ity, ty, r);
                self.write(d, t, r)
            }
            _ => Err(unsupported(format!("`{}`", m.name()), m.inst.span)),
        }
    }

    /// `testp.op.type p, a` (§9.7.3.1): classifies a float; `.subnormal` and `.normal`
    /// exclude zero, `.number` excludes NaN, `.finite` excludes NaN and infinities.
    pub(super) fn testp(&mut self, m: &Mods) -> LResult<()> {
        const OPS: [&str; 6] = ["finite", "infinite", "number", "notanumber", "normal", "subnormal"];
        m.only(&OPS)?;
        let t = m.ty()?;
        let ty = self.float_ty(t, m)?;
        let op = m.one_of(&OPS).ok_or_else(|| Diagnostic::new("`testp` needs .finite/.infinite/…", m.inst.span))?;
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        let a = self.read(a, t)?;
        let (ity, abs_mask, inf, min_normal) = if ty == Ty::F64 {
            (Ty::U64, u64::MAX >> 1, 0x7ff0_0000_0000_0000u64, 1u64 << 52)
        } else {
            (Ty::U32, 0x7fff_ffff, 0x7f80_0000, 1 << 23)
        };
        let bits = self.convert(ConvertOp::Bitcast, ty, ity, a);
        let mag = self.bin(BinaryOp::And, ity, bits, FnLower::int_const(ity, abs_mask));
        let c = |v: u64| FnLower::int_const(ity, v);
        let r = match op {
            "finite" => self.cmp(CmpOp::LtU, ity, mag, c(inf)),
            "infinite" => self.cmp(CmpOp::Eq, ity, mag, c(inf)),
            "number" => self.cmp(CmpOp::LeU, ity, mag, c(inf)),
            "notanumber" => self.cmp(CmpOp::GtU, ity, mag, c(inf)),
            "normal" => {
                // "As a special case, positive and negative zero are considered normal numbers"
                // (§9.7.3.1; confirmed on an NVIDIA H200, driver 580).
                let lo = self.cmp(CmpOp::GeU, ity, mag, c(min_normal));
                let zero = self.cmp(CmpOp::Eq, ity, mag, c(0));
                let lo = self.bin(BinaryOp::Or, Ty::Bool, lo, zero);
                let hi = self.cmp(CmpOp::LtU, ity, mag, c(inf));
                self.bin(BinaryOp::And, Ty::Bool, lo, hi)
            }
            _ => {
                let lo = self.cmp(CmpOp::Ne, ity, mag, c(0));
                let hi = self.cmp(CmpOp::LtU, ity, mag, c(min_normal));
                self.bin(BinaryOp::And, Ty::Bool, lo, hi)
            }
        };
        self.write(d, ScalarType::Pred, r)
    }

    fn read_float(&mut self, op: &ptxcross_frontend::ast::Operand, t: ScalarType, ftz: bool) -> LResult<Operand> {
        let v = self.read(op, t)?;
        Ok(if ftz { self.flush_denormal(v, t) } else { v })
    }

    fn write_float(
        &mut self,
        d: &ptxcross_frontend::ast::Operand,
        t: ScalarType,
        r: Operand,
        ftz: bool,
        sat: bool,
    ) -> LResult<()> {
        let r = if sat { self.saturate(r, t) } else { r };
        let r = if ftz { self.flush_denormal(r, t) } else { r };
        self.write(d, t, r)
    }

    /// `.sat`: clamp to [+0.0, 1.0], NaN → +0.0 (spec §9.7.3 "Saturation modifier": the
    /// result is clamped to [0.0, 1.0]; −0.0 lies outside that range, so it becomes +0.0).
    pub fn saturate(&mut self, r: Operand, t: ScalarType) -> Operand {
        let ty = value_ty(t).unwrap_or(Ty::F32);
        let (zero, one) = if ty == Ty::F64 {
            (crate::ir::Const::F64(0), crate::ir::Const::F64(1f64.to_bits()))
        } else {
            (crate::ir::Const::F32(0), crate::ir::Const::F32(1f32.to_bits()))
        };
        let (zero, one) = (Operand::Const(zero), Operand::Const(one));
        // `<=`, not `<`: −0.0 compares equal to +0.0 and must leave as +0.0.
        let lt = self.cmp(CmpOp::FLe, ty, r, zero);
        let r1 = self.select(ty, lt, zero, r);
        let gt = self.cmp(CmpOp::FGt, ty, r1, one);
        let r2 = self.select(ty, gt, one, r1);
        let nan = self.is_nan(r, t);
        self.select(ty, nan, zero, r2)
    }

    /// `mul.ftz.f32`: §9.7.3 says ".ftz flushes subnormal inputs and results to sign-preserving
    /// zero" without saying when a result counts as subnormal. Observed on an NVIDIA H200, driver
    /// 580: `mul` decides before rounding (0x00800000 × 0x3f7fffff, whose exact product is just
    /// below 2^-126, gives +0 in every rounding mode), while add/sub/fma decide after rounding.
    /// The f32 product is exact in f64, so `r` (the rounded product) becomes a signed zero when
    /// |a·b| < 2^-126 there.
    /// Without f64 (`no_float64`) the same test runs on integers (`f32_product_tiny_on_integers`).
    fn flush_tiny_f32_product(&mut self, a: Operand, b: Operand, r: Operand) -> Operand {
        let tiny = if self.no_float64 {
            self.f32_product_tiny_on_integers(a, b)
        } else {
            let wa = self.convert(ConvertOp::FloatToFloat, Ty::F32, Ty::F64, a);
            let wb = self.convert(ConvertOp::FloatToFloat, Ty::F32, Ty::F64, b);
            let p = self.bin(BinaryOp::FMul, Ty::F64, wa, wb);
            let p = self.flush_tiny_product(p, F32, false);
            self.cmp(CmpOp::FEq, Ty::F64, p, Operand::Const(crate::ir::Const::F64(0)))
        };
        // The sign from the operands' bits, not from `r`, which a flushing device may have
        // made a zero of either sign.
        let ab = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, a);
        let bb = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, b);
        let bits = self.bin(BinaryOp::Xor, Ty::U32, ab, bb);
        let sign = self.bin(BinaryOp::And, Ty::U32, bits, FnLower::u32c(0x8000_0000));
        let zero = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, sign);
        self.select(Ty::F32, tiny, zero, r)
    }

    /// `div.rnd.ftz.f32` (and `rcp.rnd.ftz.f32`, division of 1): like `mul`, the flush is
    /// decided before rounding. Observed on an NVIDIA H200, driver 580
    /// (inst_sweep through the CUDA driver's PTX JIT): 0x3f7fffff / 0x7e800000, whose exact
    /// quotient (1 − 2^-24)·2^-126 rounds to the least normal 0x00800000, gives +0. (`rcp` was
    /// not reached by that run; as a division of 1 it is taken to follow until a replay says.)
    /// |a/b| < 2^-126 ⇔ |a| < 2^-126·|b|, both sides exact in f64; a NaN never compares, and
    /// an infinite divisor gives the zero the quotient is anyway.
    fn flush_tiny_f32_quotient(&mut self, a: Operand, b: Operand, r: Operand) -> Operand {
        let ab = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, a);
        let bb = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, b);
        let am = self.bin(BinaryOp::And, Ty::U32, ab, FnLower::u32c(0x7fff_ffff));
        let bm = self.bin(BinaryOp::And, Ty::U32, bb, FnLower::u32c(0x7fff_ffff));
        let tiny = if self.no_float64 {
            self.f32_quotient_tiny_on_integers(am, bm)
        } else {
            let aw = self.f32_bits_to_f64(am);
            let bw = self.f32_bits_to_f64(bm);
            let bound = self.bin(BinaryOp::FMul, Ty::F64, bw, Operand::Const(crate::ir::Const::F64(2f64.powi(-126).to_bits())));
            self.cmp(CmpOp::FLt, Ty::F64, aw, bound)
        };
        let x = self.bin(BinaryOp::Xor, Ty::U32, ab, bb);
        let sign = self.bin(BinaryOp::And, Ty::U32, x, FnLower::u32c(0x8000_0000));
        let zero = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, sign);
        self.select(Ty::F32, tiny, zero, r)
    }

    /// An exact (or rounded-to-odd) f64 result `p` whose magnitude is below the smallest normal
    /// of `fmt` becomes a zero of its sign; with `unbounded_rn`, below the smallest normal after
    /// rounding to nearest at `fmt`'s precision with an unbounded exponent, that is below
    /// min_normal·(1 − 2^-(p+1)) (the tie rounds up to min_normal, which is even).
    pub(super) fn flush_tiny_product(&mut self, p: Operand, fmt: super::half::Format, unbounded_rn: bool) -> Operand {
        let mut min_normal = 2f64.powi(fmt.emin() as i32);
        if unbounded_rn {
            min_normal *= 1.0 - 2f64.powi(-(fmt.mant_bits as i32 + 2));
        }
        let mag = self.un(UnaryOp::FAbs, Ty::F64, p);
        let tiny = self.cmp(CmpOp::FLt, Ty::F64, mag, Operand::Const(crate::ir::Const::F64(min_normal.to_bits())));
        let bits = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, p);
        let sign = self.bin(BinaryOp::And, Ty::U64, bits, FnLower::u64c(1 << 63));
        let zero = self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, sign);
        self.select(Ty::F64, tiny, zero, p)
    }

    /// `.ftz`: a subnormal f32 (or f16) becomes a zero of the same sign.
    pub fn flush_denormal(&mut self, v: Operand, t: ScalarType) -> Operand {
        if t == ScalarType::F16 {
            return self.half_ftz(v, super::half::F16);
        }
        if t != ScalarType::F32 {
            return v;
        }
        let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, v);
        let exp = self.bin(BinaryOp::And, Ty::U32, bits, FnLower::u32c(0x7f80_0000));
        let den = self.cmp(CmpOp::Eq, Ty::U32, exp, FnLower::u32c(0));
        let sign = self.bin(BinaryOp::And, Ty::U32, bits, FnLower::u32c(0x8000_0000));
        let r = self.select(Ty::U32, den, sign, bits);
        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r)
    }
}
