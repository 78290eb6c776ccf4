//! `cvt` (spec §9.7.9.21): integer resizing, float ↔ integer with rounding and saturation,
//! float ↔ float.

use super::Mods;
use crate::function::{unsupported, FnLower, LResult};
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Operand, Ty, UnaryOp};
use super::half::{Clamp, Rounding, F32, F64};
use crate::ptx_types::{self, value_ty};
use ptxcross_frontend::ast::ScalarType;
use ptxcross_frontend::Diagnostic;

impl FnLower {
    pub(super) fn cvt(&mut self, m: &Mods) -> LResult<()> {
        let types = m.types();
        let [dt, st] = types.as_slice() else {
            // A type this lowering does not know (`.e2m1x2`, `.ue8m0x2`, …) is not supported
            // yet rather than missing.
            m.only(&["rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi", "ftz", "sat", "relu", "satfinite"])?;
            return Err(Diagnostic::new("`cvt` takes a destination and a source type", m.inst.span));
        };
        let (dt, st) = (*dt, *st);
        if super::fp8::is_alternate(dt) || super::fp8::is_alternate(st) {
            return self.cvt_alternate(m, dt, st);
        }
        if ptx_types::is_half(dt) || ptx_types::is_half(st) {
            return self.cvt_half(m, dt, st);
        }
        m.only(&["rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "ftz", "sat"])?;
        let [d, a] = super::operands(m.inst, 2)? else { unreachable!() };
        let v = self.read(a, st)?;
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
                self.float_to_int(v, st, dt, round)
            }
            (true, false) => {
                let from = value_ty(st).unwrap_or(Ty::U32);
                let to = value_ty(dt).unwrap_or(Ty::F32);
                let op = if ptx_types::is_signed(st) { ConvertOp::SintToFloat } else { ConvertOp::UintToFloat };
                let r = match rounding {
                    Some("rn") => self.convert(op, from, to, v),
                    // A 32-bit integer is exact in f64, so f32 rounds once from there.
                    Some(r @ ("rz" | "rm" | "rp")) if from == Ty::U32 || to == Ty::F64 => {
                        let mode = Rounding::from_modifier(r).unwrap_or(Rounding::Nearest);
                        if to == Ty::F64 && from == Ty::U32 {
                            self.convert(op, from, to, v)
                        } else if to == Ty::F64 {
                            return Err(unsupported(format!("`{}` (64-bit integer to f64 with .{r})", m.name()), m.inst.span));
                        } else {
                            let x = self.convert(op, from, Ty::F64, v);
                            let b = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, x);
                            let f = self.round_to_format(b, F64, F32, mode, Clamp::default());
                            self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, f)
                        }
                    }
                    Some(r @ ("rz" | "rm" | "rp")) => {
                        return Err(unsupported(format!("`{}` (64-bit integer to f32 with .{r})", m.name()), m.inst.span))
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
        self.write(d, dt, r)
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

    /// Float → integer: round to integral, then saturate to the destination's range; NaN → 0
    /// (spec §9.7.9.21: float-to-integer conversions saturate).
    pub(super) fn float_to_int(&mut self, v: Operand, st: ScalarType, dt: ScalarType, round: UnaryOp) -> Operand {
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
        // §9.7.9.21: "NaN inputs are converted to 0". Observed on an NVIDIA H200, driver 580
        // (inst_sweep through the CUDA driver's PTX JIT, tests/src/nvidia.rs):
        // `cvt.rni.s8.f64` gives 0x80 for every NaN (quiet, signalling, either sign), while
        // the f32 → s8 forms give 0. NaN is not rounded, so the other rounding modes of
        // s8.f64 follow; the other f64 → integer forms were not reached by that run.
        let nan_value = if fty == Ty::F64 && dt == ScalarType::S8 { min } else { 0 };
        self.select(ity, nan, FnLower::int_const(ity, nan_value), x)
    }
}
