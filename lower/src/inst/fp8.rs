//! `cvt` to and from the alternate formats `.e4m3x2`, `.e5m2x2` and `.tf32` (spec §5.2.3,
//! §9.7.9.21), on integers only, so every device gives the same bits (and nothing needs
//! 64-bit types: the forms work under `split_int64` unchanged).
//!
//! 8-bit floats go through [`FnLower::round_to_format`] from the exact f32 of the source
//! (f16 widens exactly) and back through [`FnLower::small_float_to_f32_bits`] (every e4m3
//! and e5m2 value is exact in f16).

use super::half::{Clamp, Format, Rounding, F16, F32};
use super::{operands, Mods};
use crate::function::{unsupported, FnLower, LResult};
use crate::ir::{BinaryOp, CmpOp, ConvertOp, Ty};
use ptxcross_frontend::ast::ScalarType;
use ptxcross_frontend::Diagnostic;

/// `e4m3`: bias 7, no infinities, NaN only S.1111.111, MAX_NORM 448 (0x7e).
pub const E4M3: Format = Format { exp_bits: 4, mant_bits: 3, no_inf: true };
/// `e5m2`: IEEE-like (bias 15, infinities, NaNs), MAX_NORM 57344 (0x7b).
pub const E5M2: Format = Format { exp_bits: 5, mant_bits: 2, no_inf: false };

/// Whether `t` is a type only [`FnLower::cvt_alternate`] converts.
pub fn is_alternate(t: ScalarType) -> bool {
    matches!(t, ScalarType::Tf32 | ScalarType::E4m3 | ScalarType::E5m2 | ScalarType::E4m3x2 | ScalarType::E5m2x2)
}

fn fp8_format(t: ScalarType) -> Option<Format> {
    match t {
        ScalarType::E4m3x2 => Some(E4M3),
        ScalarType::E5m2x2 => Some(E5M2),
        _ => None,
    }
}

impl FnLower {
    /// `cvt` where a side is `.tf32`, `.e4m3x2` or `.e5m2x2`.
    pub(super) fn cvt_alternate(&mut self, m: &Mods, dt: ScalarType, st: ScalarType) -> LResult<()> {
        match (dt, st) {
            (ScalarType::Tf32, ScalarType::F32) => self.cvt_tf32(m),
            (ScalarType::E4m3x2 | ScalarType::E5m2x2, ScalarType::F32 | ScalarType::F16x2) => self.cvt_to_fp8(m, dt, st),
            (ScalarType::F16x2, ScalarType::E4m3x2 | ScalarType::E5m2x2) => self.cvt_from_fp8(m, st),
            _ => Err(unsupported(format!("`{}`", m.name()), m.inst.span)),
        }
    }

    /// `cvt.rn.satfinite{.relu}.f8x2type.f32 d, a, b` (d[15:8] from a, d[7:0] from b) and
    /// `cvt.rn.satfinite{.relu}.f8x2type.f16x2 d, a` (d[15:8] from a[31:16]).
    fn cvt_to_fp8(&mut self, m: &Mods, dt: ScalarType, st: ScalarType) -> LResult<()> {
        m.only(&["rn", "satfinite", "relu"])?;
        if !m.has("rn") || !m.has("satfinite") {
            return Err(Diagnostic::new(format!("`{}` needs .rn and .satfinite (§9.7.9.21)", m.name()), m.inst.span));
        }
        let fmt = fp8_format(dt).unwrap_or(E4M3);
        let (d, f32s) = if st == ScalarType::F32 {
            let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
            let mut v = Vec::new();
            for op in [a, b] {
                let x = self.read(op, ScalarType::F32)?;
                v.push(self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x));
            }
            (d, v)
        } else {
            let [d, a] = operands(m.inst, 2)? else { unreachable!() };
            let x = self.read(a, ScalarType::B32)?;
            let hi = self.bin(BinaryOp::ShrU, Ty::U32, x, FnLower::u32c(16));
            let hi = self.small_float_to_f32_bits(hi, F16);
            let lo = self.small_float_to_f32_bits(x, F16);
            (d, vec![hi, lo])
        };
        // .satfinite: |x| > MAX_NORM (infinities too) gives ±MAX_NORM, NaN the format's NaN
        // (0x7f); .relu: negatives give +0, NaN the canonical NaN (0x7f again).
        let clamp = Clamp { satfinite: true, relu: m.has("relu") };
        let hi = self.round_to_format(f32s[0], F32, fmt, Rounding::Nearest, clamp);
        let lo = self.round_to_format(f32s[1], F32, fmt, Rounding::Nearest, clamp);
        let hi = self.bin(BinaryOp::Shl, Ty::U32, hi, FnLower::u32c(8));
        let r = self.bin(BinaryOp::Or, Ty::U32, hi, lo);
        self.write(d, ScalarType::B16, r)
    }

    /// `cvt.rn{.relu}.f16x2.f8x2type d, a`: d[31:16] from a[15:8], d[15:0] from a[7:0]; exact
    /// (NaN gives f16's canonical NaN 0x7fff).
    fn cvt_from_fp8(&mut self, m: &Mods, st: ScalarType) -> LResult<()> {
        m.only(&["rn", "relu"])?;
        if !m.has("rn") {
            return Err(Diagnostic::new(format!("`{}` needs .rn (§9.7.9.21)", m.name()), m.inst.span));
        }
        let fmt = fp8_format(st).unwrap_or(E4M3);
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        let x = self.read(a, ScalarType::B16)?;
        let clamp = Clamp { satfinite: false, relu: m.has("relu") };
        let mut r = FnLower::u32c(0);
        for shift in [8, 0] {
            let byte = self.bin(BinaryOp::ShrU, Ty::U32, x, FnLower::u32c(shift));
            let f = self.small_float_to_f32_bits(byte, fmt);
            let h = self.round_to_format(f, F32, F16, Rounding::Nearest, clamp);
            let h = self.bin(BinaryOp::Shl, Ty::U32, h, FnLower::u32c(shift * 2));
            r = self.bin(BinaryOp::Or, Ty::U32, r, h);
        }
        self.write(d, ScalarType::F16x2, r)
    }

    /// `cvt.rna{.satfinite}.tf32.f32` and `cvt.{rn,rz}{.relu}.tf32.f32` (§9.7.9.21). The tf32
    /// layout is implementation-defined (§5.2.3); this gives what NVIDIA's headers and CUTLASS
    /// read back as an f32: the f32 rounded to 10 mantissa bits, its low 13 bits zero. tf32
    /// has f32's exponent range, so rounding the magnitude's bit pattern at bit 13 rounds the
    /// value, subnormals included: a carry moves to the next binade, out of the top one to
    /// infinity.
    ///
    /// NaN: the spec says a NaN (canonical with `.relu`); NVIDIA's sm_90 gives, for every NaN
    /// (measured through the CUDA driver's PTX JIT on an H100, driver 580, 2026-11-26):
    /// `.rn`/`.rz` (`.relu` or not) 0x7fffe000; `.rna` the input with its low 13 bits cleared
    /// (a signalling NaN whose payload sits in those bits becomes ±infinity), and with
    /// `.satfinite` a result whose exponent is all ones (infinity or NaN alike) then loses one
    /// tf32 ulp (0x7f800000 → MAX_NORM 0x7f7fe000, NaN 0x7fc00000 → 0x7fbfe000). Kernels give
    /// NVIDIA's bits. (`.rn`/`.rz` with `.satfinite`, which that driver refuses for sm_90, give
    /// 0x7fffe000 for NaN like the other `.rn`/`.rz` forms.)
    fn cvt_tf32(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["rna", "rn", "rz", "relu", "satfinite"])?;
        let span = m.inst.span;
        let mode = m
            .one_of(&["rna", "rn", "rz"])
            .ok_or_else(|| Diagnostic::new(format!("`{}` needs .rna, .rn or .rz", m.name()), span))?;
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        let u = FnLower::u32c;
        let x = self.read(a, ScalarType::F32)?;
        let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x);
        let mag = self.bin(BinaryOp::And, Ty::U32, bits, u(0x7fff_ffff));
        let sign = self.bin(BinaryOp::And, Ty::U32, bits, u(0x8000_0000));
        let nan = self.cmp(CmpOp::GtU, Ty::U32, mag, u(0x7f80_0000));
        let add = match mode {
            // Ties away: half an ulp (not for NaN: NVIDIA truncates those); ties to even: just
            // under half, plus the kept lsb.
            "rna" => self.select(Ty::U32, nan, u(0), u(0x1000)),
            "rn" => {
                let lsb = self.bin(BinaryOp::ShrU, Ty::U32, mag, u(13));
                let lsb = self.bin(BinaryOp::And, Ty::U32, lsb, u(1));
                self.bin(BinaryOp::Add, Ty::U32, lsb, u(0xfff))
            }
            _ => u(0),
        };
        let r = self.bin(BinaryOp::Add, Ty::U32, mag, add);
        let r = self.bin(BinaryOp::And, Ty::U32, r, u(0xffff_e000));
        // .satfinite: beyond MAX_NORM (0x7f7fe000), infinity included, gives MAX_NORM; for
        // `.rna` NVIDIA takes one ulp off any all-ones exponent, NaN included (see above).
        let r = if m.has("satfinite") {
            let top = self.bin(BinaryOp::And, Ty::U32, r, u(0x7f80_0000));
            let top = self.cmp(CmpOp::Eq, Ty::U32, top, u(0x7f80_0000));
            let less = self.bin(BinaryOp::Sub, Ty::U32, r, u(0x2000));
            self.select(Ty::U32, top, less, r)
        } else {
            r
        };
        let r = self.bin(BinaryOp::Or, Ty::U32, r, sign);
        let r = if m.has("relu") {
            let neg = self.cmp(CmpOp::Ne, Ty::U32, sign, u(0));
            self.select(Ty::U32, neg, u(0), r)
        } else {
            r
        };
        let r = if mode == "rna" { r } else { self.select(Ty::U32, nan, u(0x7fff_e000), r) };
        self.write(d, ScalarType::B32, r)
    }
}
