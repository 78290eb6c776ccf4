//! `cvt` (spec §9.7.9.21): integer resizing, float ↔ integer with rounding and saturation,
//! float ↔ float.

use super::Mods;
use crate::function::{invalid, FnLower, LResult};
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Operand, Ty, UnaryOp};
use super::half::{Clamp, Format, Rounding, F32, F64};
use crate::ptx_types::{self, value_ty};
use ptxcross_frontend::ast::ScalarType;
use ptxcross_frontend::Diagnostic;

impl FnLower {
    pub(super) fn cvt(&mut self, m: &Mods) -> LResult<()> {
        if m.has("pack") {
            return self.cvt_pack(m);
        }
        let types = m.types();
        let [dt, st] = types.as_slice() else {
            // A type this lowering does not know (`.e2m1x2`, `.ue8m0x2`, …) is not supported
            // yet rather than missing.
            m.only(&["rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi", "ftz", "sat", "relu", "satfinite"])?;
            return Err(Diagnostic::new("`cvt` takes a destination and a source type", m.inst.span));
        };
        let (dt, st) = (*dt, *st);
        // §9.7.10.20: `cvt` converts between integer and float types, never a bit-size one
        // (ptxas: "Unexpected instruction types"; `cvt.pack`'s `.b32` is its own form).
        if let Some(b) = [dt, st].into_iter().find(|&t| ptx_types::is_bits(t)) {
            return Err(invalid(format!("`cvt` has no .{} type (§9.7.10.20: integer and float types only)", b.suffix()), m.inst.span));
        }
        if super::fp8::is_alternate(dt) || super::fp8::is_alternate(st) {
            return self.cvt_alternate(m, dt, st);
        }
        if ptx_types::is_half(dt) || ptx_types::is_half(st) {
            return self.cvt_half(m, dt, st);
        }
        m.only(&["rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "ftz", "sat"])?;
        let [d, a] = super::operands(m.inst, 2)? else { unreachable!() };
        let v = self.read_relaxed(a, st)?;
        let rounding = m.one_of(&["rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"]);
        let sat = m.has("sat");
        let r = match (ptx_types::is_float(dt), ptx_types::is_float(st)) {
            (false, false) => {
                if rounding.is_some() {
                    return Err(Diagnostic::new("integer-to-integer `cvt` takes no rounding modifier", m.inst.span));
                }
                let from = value_ty(st).unwrap_or(Ty::U32);
                let to = value_ty(dt).unwrap_or(Ty::U32);
                let v = if sat { self.saturate_int(v, from, st, dt) } else { v };
                let r = self.resize(v, from, to, ptx_types::is_signed(st));
                self.canonicalize(r, dt)
            }
            (false, true) => {
                let round = match rounding {
                    Some("rni") => UnaryOp::FRoundEven,
                    Some("rzi") => UnaryOp::FTrunc,
                    Some("rmi") => UnaryOp::FFloor,
                    Some("rpi") => UnaryOp::FCeil,
                    _ => return Err(Diagnostic::new("float-to-integer `cvt` needs .rni/.rzi/.rmi/.rpi", m.inst.span)),
                };
                let v = if m.has("ftz") { self.flush_denormal(v, st) } else { v };
                self.float_to_int(v, st, st, dt, round)
            }
            (true, false) => {
                let from = value_ty(st).unwrap_or(Ty::U32);
                let to = value_ty(dt).unwrap_or(Ty::F32);
                let op = if ptx_types::is_signed(st) { ConvertOp::SintToFloat } else { ConvertOp::UintToFloat };
                let r = match rounding {
                    // Exact: every 32-bit integer is an f64.
                    Some("rn") if from == Ty::U32 && to == Ty::F64 => self.convert(op, from, to, v),
                    // WGSL and Vulkan leave the rounding direction of an inexact conversion open
                    // (either neighbour), while f32 addition is trusted to round to nearest even:
                    // x = hi + lo with both halves exact in f32, and the one rounding is the add's.
                    Some("rn") if from == Ty::U32 => self.int32_to_f32_rn(v, ptx_types::is_signed(st)),
                    Some("rn") => {
                        let (fmt, bty) = if to == Ty::F64 { (F64, Ty::U64) } else { (F32, Ty::U32) };
                        let bits = self.int64_to_float_bits(v, ptx_types::is_signed(st), fmt, Rounding::Nearest);
                        self.convert(ConvertOp::Bitcast, bty, to, bits)
                    }
                    // Without f64 (`no_float64`), to f32: rounded on the integer widened to 64
                    // bits (exactly), as 64-bit sources are just below; the same correctly
                    // rounded value as through f64.
                    Some(r @ ("rz" | "rm" | "rp")) if from == Ty::U32 && to == Ty::F32 && self.no_float64 => {
                        let mode = Rounding::from_modifier(r).unwrap_or(Rounding::Nearest);
                        let signed = ptx_types::is_signed(st);
                        let wide = self.resize(v, Ty::U32, Ty::U64, signed);
                        let bits = self.int64_to_float_bits(wide, signed, F32, mode);
                        self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, bits)
                    }
                    // A 32-bit integer is exact in f64: widening is exact, narrowing rounds once.
                    Some(r @ ("rz" | "rm" | "rp")) if from == Ty::U32 => {
                        let mode = Rounding::from_modifier(r).unwrap_or(Rounding::Nearest);
                        let x = self.convert(op, from, Ty::F64, v);
                        if to == Ty::F64 {
                            x
                        } else {
                            let b = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, x);
                            let f = self.round_to_format(b, F64, F32, mode, Clamp::default());
                            self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, f)
                        }
                    }
                    // 64-bit integers: rounded on the integer itself.
                    Some(r @ ("rz" | "rm" | "rp")) => {
                        let mode = Rounding::from_modifier(r).unwrap_or(Rounding::Nearest);
                        let (fmt, bty) = if to == Ty::F64 { (F64, Ty::U64) } else { (F32, Ty::U32) };
                        let bits = self.int64_to_float_bits(v, ptx_types::is_signed(st), fmt, mode);
                        self.convert(ConvertOp::Bitcast, bty, to, bits)
                    }
                    _ => return Err(Diagnostic::new("integer-to-float `cvt` needs .rn/.rz/.rm/.rp", m.inst.span)),
                };
                if sat {
                    self.saturate(r, dt)
                } else {
                    r
                }
            }
            (true, true) => {
                let from = value_ty(st).unwrap_or(Ty::F32);
                let to = value_ty(dt).unwrap_or(Ty::F32);
                let v = if m.has("ftz") { self.flush_denormal(v, st) } else { v };
                let r = if from == to {
                    match rounding {
                        None => v,
                        Some("rni") => self.un(UnaryOp::FRoundEven, to, v),
                        Some("rzi") => self.un(UnaryOp::FTrunc, to, v),
                        Some("rmi") => self.un(UnaryOp::FFloor, to, v),
                        Some("rpi") => self.un(UnaryOp::FCeil, to, v),
                        Some(r) => return Err(Diagnostic::new(format!("`.{r}` is not valid here"), m.inst.span)),
                    }
                } else if to == Ty::F64 {
                    // Widening is exact.
                    self.convert(ConvertOp::FloatToFloat, from, to, v)
                } else {
                    match rounding {
                        // Under `.ftz` the rounding is done on the bits, so that a result
                        // that rounds up to the least normal is never the device's to flush.
                        Some("rn") if !m.has("ftz") => self.convert(ConvertOp::FloatToFloat, from, to, v),
                        Some(r @ ("rn" | "rz" | "rm" | "rp")) => {
                            let mode = Rounding::from_modifier(r).unwrap_or(Rounding::Nearest);
                            let b = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, v);
                            let f = self.round_to_format(b, F64, F32, mode, Clamp::default());
                            self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, f)
                        }
                        _ => return Err(Diagnostic::new("narrowing `cvt` needs a rounding modifier", m.inst.span)),
                    }
                };
                let r = if sat { self.saturate(r, dt) } else { r };
                if m.has("ftz") {
                    self.flush_denormal(r, dt)
                } else {
                    r
                }
            }
        };
        self.write_relaxed(d, dt, r)
    }

    /// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}` (§9.7.10.21): a and b clamped to
    /// convertType's range, packed as d's low bits (a above b); with c (the 2-, 4- and 8-bit
    /// types) the remaining high bits of d are c's low bits.
    fn cvt_pack(&mut self, m: &Mods) -> LResult<()> {
        const NARROW: [(&str, u32, bool); 8] = [
            ("u16", 16, false),
            ("s16", 16, true),
            ("u8", 8, false),
            ("s8", 8, true),
            ("u4", 4, false),
            ("s4", 4, true),
            ("u2", 2, false),
            ("s2", 2, true),
        ];
        let span = m.inst.span;
        let mods: Vec<&str> = m.inst.modifiers.iter().map(|x| x.text.as_str()).collect();
        let shape = |mods: &[&str]| -> Option<(u32, bool, bool)> {
            let (head, rest) = mods.split_at(2.min(mods.len()));
            if head != ["pack", "sat"] {
                return None;
            }
            let (&ct, rest) = rest.split_first()?;
            let &(_, bits, signed) = NARROW.iter().find(|n| n.0 == ct)?;
            let with_c = bits < 16;
            let want: &[&str] = if with_c { &["s32", "b32"] } else { &["s32"] };
            (rest == want).then_some((bits, signed, with_c))
        };
        let Some((bits, signed, with_c)) = shape(&mods) else {
            return Err(Diagnostic::new(
                format!("`{}`: expected cvt.pack.sat.{{u16,s16}}.s32 or cvt.pack.sat.{{u2,s2,u4,s4,u8,s8}}.s32.b32", m.name()),
                span,
            ));
        };
        let ops = super::operands(m.inst, if with_c { 4 } else { 3 })?;
        let (lo, hi): (i32, i32) = if signed { (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) } else { (0, (1 << bits) - 1) };
        let u = FnLower::u32c;
        let mut fields = Vec::new();
        for op in &ops[1..3] {
            let v = self.read_relaxed(op, ScalarType::S32)?;
            let v = self.bin(BinaryOp::MaxS, Ty::U32, v, u(lo as u32));
            let v = self.bin(BinaryOp::MinS, Ty::U32, v, u(hi as u32));
            fields.push(self.bin(BinaryOp::And, Ty::U32, v, u((1u32 << bits) - 1)));
        }
        let ta = self.bin(BinaryOp::Shl, Ty::U32, fields[0], u(bits));
        let mut r = self.bin(BinaryOp::Or, Ty::U32, ta, fields[1]);
        if with_c {
            let c = self.read_relaxed(&ops[3], ScalarType::B32)?;
            let c = self.bin(BinaryOp::Shl, Ty::U32, c, u(2 * bits));
            r = self.bin(BinaryOp::Or, Ty::U32, r, c);
        }
        self.write_relaxed(&ops[0], ScalarType::U32, r)
    }

    /// A 32-bit integer (two's complement if `signed`) rounded to the nearest f32, ties to
    /// even: its high 16 bits (a multiple of 2^16, sign included) and low 16 bits (0..65535)
    /// convert exactly, and their f32 sum rounds once. The operands are integers, never
    /// subnormal, so the add does not make the kernel depend on subnormal support.
    fn int32_to_f32_rn(&mut self, v: Operand, signed: bool) -> Operand {
        let op = if signed { ConvertOp::SintToFloat } else { ConvertOp::UintToFloat };
        let hi = self.bin(BinaryOp::And, Ty::U32, v, FnLower::u32c(0xffff_0000));
        let lo = self.bin(BinaryOp::And, Ty::U32, v, FnLower::u32c(0xffff));
        let hi = self.convert(op, Ty::U32, Ty::F32, hi);
        let lo = self.convert(ConvertOp::UintToFloat, Ty::U32, Ty::F32, lo);
        let outer = self.subnormal_exempt;
        self.subnormal_exempt.f32 = true;
        let r = self.bin(BinaryOp::FAdd, Ty::F32, hi, lo);
        self.subnormal_exempt = outer;
        r
    }

    /// A 64-bit integer (`v`, a U64; two's complement if `signed`) rounded to float format
    /// `fmt` (f32, f64 or bf16: formats whose range holds every 64-bit integer, so nothing
    /// overflows and nothing is subnormal) with `mode`, computed on the integer: normalize by
    /// the leading zeros, keep the significand's bits, round on the dropped ones. The bits of
    /// the result: a U64 for f64, else a U32. Only integer operations, so it also runs where
    /// 64-bit integers are split (`int64`).
    pub(super) fn int64_to_float_bits(&mut self, v: Operand, signed: bool, fmt: Format, mode: Rounding) -> Operand {
        debug_assert!(fmt.bias() >= 127, "the format's range holds every 64-bit integer");
        let u = FnLower::u32c;
        let c = FnLower::u64c;
        let sign = if signed {
            let s = self.bin(BinaryOp::ShrU, Ty::U64, v, u(63));
            self.resize(s, Ty::U64, Ty::U32, false)
        } else {
            u(0)
        };
        let negative = self.cmp(CmpOp::Ne, Ty::U32, sign, u(0));
        let neg = self.un(UnaryOp::Neg, Ty::U64, v);
        // |i64::MIN| = 2^63 is right as an unsigned magnitude.
        let mag = self.select(Ty::U64, negative, neg, v);
        let lz = self.un(UnaryOp::CountLeadingZeros, Ty::U64, mag);
        let zero = self.cmp(CmpOp::Eq, Ty::U32, lz, u(64));
        let sh = self.bin(BinaryOp::And, Ty::U32, lz, u(63));
        let n = self.bin(BinaryOp::Shl, Ty::U64, mag, sh);
        let drop = 63 - fmt.mant_bits;
        let q = self.bin(BinaryOp::ShrU, Ty::U64, n, u(drop));
        let rem = self.bin(BinaryOp::And, Ty::U64, n, c((1u64 << drop) - 1));
        let half = c(1u64 << (drop - 1));
        // q carries the leading bit at 2^mant_bits, so the exponent field is (e + bias - 1):
        // an increment that carries out of the significand moves to the next binade.
        let e = self.bin(BinaryOp::Sub, Ty::U32, u(63 + fmt.bias() as u32 - 1), lz);
        let e = self.resize(e, Ty::U32, Ty::U64, false);
        let base = self.bin(BinaryOp::Shl, Ty::U64, e, u(fmt.mant_bits));
        let r = self.bin(BinaryOp::Add, Ty::U64, base, q);
        let inexact = self.cmp(CmpOp::Ne, Ty::U64, rem, c(0));
        let inc = match mode {
            Rounding::Nearest => {
                let above = self.cmp(CmpOp::GtU, Ty::U64, rem, half);
                let tie = self.cmp(CmpOp::Eq, Ty::U64, rem, half);
                let lsb = self.bin(BinaryOp::And, Ty::U64, q, c(1));
                let odd = self.cmp(CmpOp::Ne, Ty::U64, lsb, c(0));
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
        let r1 = self.bin(BinaryOp::Add, Ty::U64, r, c(1));
        let r = self.select(Ty::U64, inc, r1, r);
        let (ty, r) = if fmt == F64 { (Ty::U64, r) } else { (Ty::U32, self.resize(r, Ty::U64, Ty::U32, false)) };
        let sb = self.resize(sign, Ty::U32, ty, false);
        let sb = self.bin(BinaryOp::Shl, ty, sb, u(fmt.width() - 1));
        let r = self.bin(BinaryOp::Or, ty, r, sb);
        self.select(ty, zero, FnLower::int_const(ty, 0), r)
    }

    /// `.sat` of an integer conversion (§9.7.9.21): the source value (of type `st`, held in
    /// `from`) clamped to the destination type's range, computed in 64 bits.
    fn saturate_int(&mut self, v: Operand, from: Ty, st: ScalarType, dt: ScalarType) -> Operand {
        let s_signed = ptx_types::is_signed(st);
        let d_signed = ptx_types::is_signed(dt);
        let bits = ptx_types::bits(dt);
        let (lo, hi): (i128, i128) =
            if d_signed { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
        let w = self.resize(v, from, Ty::U64, s_signed);
        let w = if s_signed {
            // The source is an i64: clamp with signed comparisons (a bound beyond i64 cannot bind).
            let w = if lo > i64::MIN as i128 { self.bin(BinaryOp::MaxS, Ty::U64, w, FnLower::u64c(lo as i64 as u64)) } else { w };
            if hi < i64::MAX as i128 { self.bin(BinaryOp::MinS, Ty::U64, w, FnLower::u64c(hi as u64)) } else { w }
        } else if hi < u64::MAX as i128 {
            self.bin(BinaryOp::MinU, Ty::U64, w, FnLower::u64c(hi as u64))
        } else {
            w
        };
        self.resize(w, Ty::U64, from, false)
    }

    /// Float → integer: round to integral, then saturate to the destination's range; NaN →
    /// NVIDIA's bits ([`nan_to_int_bits`]; the spec says 0)
    /// (spec §9.7.9.21: float-to-integer conversions saturate).
    ///
    /// `ptx_source` is the instruction's source type (`st`, or `.f16`/`.bf16` when a half was
    /// widened to `st`): NVIDIA's NaN results depend on it (see [`nan_to_int_bits`]).
    pub(super) fn float_to_int(&mut self, v: Operand, st: ScalarType, ptx_source: ScalarType, dt: ScalarType, round: UnaryOp) -> Operand {
        let fty = value_ty(st).unwrap_or(Ty::F32);
        let ity = value_ty(dt).unwrap_or(Ty::U32);
        let bits = ptx_types::bits(dt);
        let signed = ptx_types::is_signed(dt);
        let (lo, hi): (f64, f64) = if signed {
            (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1))
        } else {
            (0.0, 2f64.powi(bits as i32))
        };
        let fc = |x: f64| -> Operand {
            if fty == Ty::F64 {
                Operand::Const(Const::F64(x.to_bits()))
            } else {
                Operand::Const(Const::F32((x as f32).to_bits()))
            }
        };
        let r = self.un(round, fty, v);
        // In range: lo <= r < hi (both bounds are powers of two, exact in f32 and f64).
        let below = self.cmp(CmpOp::FLt, fty, r, fc(lo));
        let above = self.cmp(CmpOp::FGe, fty, r, fc(hi));
        let nan = self.is_nan(v, st);
        let out = self.bin(BinaryOp::Or, Ty::Bool, below, above);
        let out = self.bin(BinaryOp::Or, Ty::Bool, out, nan);
        let safe = self.select(fty, out, fc(0.0), r);
        let (op, conv_to) = if signed {
            (ConvertOp::FloatToSint, ity)
        } else {
            (ConvertOp::FloatToUint, ity)
        };
        let x = self.convert(op, fty, conv_to, safe);
        let max = if signed { (1u64 << (bits - 1)) - 1 } else { u64::MAX >> (64 - bits) };
        let min = if signed { (1u64 << (bits - 1)).wrapping_neg() } else { 0 };
        // Canonical (sign-extended) forms of the bounds for sub-word destinations.
        let min = if ity == Ty::U32 { min & 0xffff_ffff } else { min };
        let x = self.select(ity, above, FnLower::int_const(ity, max), x);
        let x = self.select(ity, below, FnLower::int_const(ity, min), x);
        let nan_value = nan_to_int_bits(ptx_source, dt);
        let nan_value = if ity == Ty::U32 { nan_value & 0xffff_ffff } else { nan_value };
        self.select(ity, nan, FnLower::int_const(ity, nan_value), x)
    }
}

/// The bits `cvt.{rni,rzi,rmi,rpi}{.sat}.<dt>.<source>` gives for a NaN input, sign-extended to
/// 64 bits for signed destinations.
///
/// §9.7.9.21 says "NaN inputs are converted to 0". NVIDIA's hardware does not always (sm_90,
/// H100 and H200, driver 580; every NaN alike — quiet, signalling, either sign — and every
/// rounding mode, with or without `.sat`/`.ftz`; measured through the CUDA driver's PTX JIT,
/// `tests/src/nvidia.rs`, on 2026-11-23 and 2026-11-26):
/// - from `.f64`: the destination's top bit alone (`0x80` for `.s8` and `.u8`, …,
///   `1 << 63` for `.s64`/`.u64`), i.e. the signed minimum, sign-extended for signed types;
/// - from `.f32` and `.f16`: 0 for 8- to 32-bit destinations, `1 << 63` for `.s64`/`.u64`;
/// - from `.bf16`: 0 (measured for `.u64`, `.s32`, `.u16`, `.s8`).
///
/// Kernels must give NVIDIA's bits, so these are what ptxcross computes.
pub(crate) fn nan_to_int_bits(source: ScalarType, dt: ScalarType) -> u64 {
    let bits = ptx_types::bits(dt);
    let top = 1u64 << (bits - 1);
    let sign_extended_top = if ptx_types::is_signed(dt) { top.wrapping_neg() } else { top };
    match source {
        ScalarType::F64 => sign_extended_top,
        ScalarType::F32 | ScalarType::F16 if bits == 64 => top,
        _ => 0,
    }
}
