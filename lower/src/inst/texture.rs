//! `tex` and `txq` on texture objects (unified mode, PTX ISA §9.7.10.3 "Texture
//! Instructions"): a texture object is the heap address of a descriptor the driver wrote
//! (`abi::texture`); sampling is ordinary bounds-checked heap loads of the descriptor and of
//! the texels, plus the arithmetic of the CUDA C++ Programming Guide's appendix "Texture
//! Fetching" (nearest point, linear filtering with 8-bit fractional weights, address modes).
//!
//! Where the guide leaves NVIDIA's exact arithmetic open we take the reading its text gives,
//! each listed in docs/nvidia.md for confirmation on a real GPU:
//! - α (and β, γ) = frac(x − 0.5) rounded to the nearest multiple of 1/256, ties up (as
//!   NVIDIA's texture units do: measured on an H200, docs/nvidia.md);
//!   corner weights are exact products, each `weight × texel` is rounded to f32 and the terms
//!   summed in the guide's order (x fastest, then y, then z);
//! - address modes act on integer texel indices (for linear filtering on i and i + 1);
//!   wrap and mirror need normalized coordinates, without them they clamp;
//! - a NaN coordinate reads as 0; 8/16-bit integers read as normalized floats are the
//!   correctly rounded quotient by 2^n − 1 (2^(n−1) − 1 signed, then at least −1);
//! - channels a format lacks read as 0; out of range under the border mode, the border texel
//!   (the border colour converted to the format by the driver, read like a texel).
//!
//! Refused by name: `.texref` references and independent (sampler) mode, layered, cubemap and
//! multisample geometries, `.grad`, `tld4`, `.f16` results (f16 texels read as f32), a predicate destination, and every
//! `txq` query but width, height and depth. Mipmapped resources are refused when created, so
//! `tex.level` reads level 0, the only one there is.

use super::half::{Rounding, F16};
use super::{operands, Mods};
use crate::abi::texture as desc;
use crate::function::{unsupported, FnLower, LResult, Symbol};
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Expr, Operand, Ty, UnaryOp};
use ptxcross_frontend::ast::{self, OperandKind, ScalarType};
use ptxcross_frontend::Diagnostic;

/// Largest extent the sampling arithmetic takes: a (forged) descriptor's wider extent reads as
/// this one, which keeps every index computation (wrap, mirror, i + 1) inside s32.
const MAX_EXTENT: u32 = 1 << 28;
/// Float coordinates are clamped to ±2^30 before they become indices.
const INDEX_LIMIT: f32 = (1u32 << 30) as f32;

fn f32c(v: f32) -> Operand {
    Operand::Const(Const::F32(v.to_bits()))
}
fn u(v: u32) -> Operand {
    FnLower::u32c(v)
}

/// A descriptor's fields as the kernel read them (all U32 but `base`, U64).
struct Fields {
    base: Operand,
    kind: Operand,
    channel_bytes: Operand,
    channels: Operand,
    size: Vec<Operand>,
    /// Bytes per step in each dimension: texel size, row pitch, slice pitch.
    stride: Vec<Operand>,
    modes: Vec<Operand>,
    flags: Operand,
    border: Vec<Operand>,
}

impl FnLower {
    /// A 32-bit load at 64-bit global address `a`, checked like `ld.global`.
    fn global_word(&mut self, a: Operand) -> LResult<Operand> {
        let r = self.new_var(Ty::U32, "texword");
        let place = self.heap_place(a);
        self.on_place(place, |s, mem, off| {
            let v = s.load_bytes(mem, off, 4);
            s.assign(r, Expr::Use(v));
            Ok(())
        })?;
        Ok(Operand::Var(r))
    }

    fn descriptor_word(&mut self, handle: Operand, word: u32) -> LResult<Operand> {
        let a = self.bin(BinaryOp::Add, Ty::U64, handle, FnLower::u64c(4 * u64::from(word)));
        self.global_word(a)
    }

    fn flag(&mut self, flags: Operand, bit: u32) -> Operand {
        let b = self.bin(BinaryOp::And, Ty::U32, flags, u(bit));
        self.cmp(CmpOp::Ne, Ty::U32, b, u(0))
    }

    fn descriptor(&mut self, handle: Operand, dims: usize) -> LResult<Fields> {
        let lo = self.descriptor_word(handle, desc::BASE_LO)?;
        let hi = self.descriptor_word(handle, desc::BASE_HI)?;
        let lo = self.resize(lo, Ty::U32, Ty::U64, false);
        let hi = self.resize(hi, Ty::U32, Ty::U64, false);
        let hi = self.bin(BinaryOp::Shl, Ty::U64, hi, u(32));
        let base = self.bin(BinaryOp::Or, Ty::U64, hi, lo);
        let format = self.descriptor_word(handle, desc::FORMAT)?;
        let kind = self.bin(BinaryOp::And, Ty::U32, format, u(0xff));
        let cb = self.bin(BinaryOp::ShrU, Ty::U32, format, u(8));
        let channel_bytes = self.bin(BinaryOp::And, Ty::U32, cb, u(0xff));
        let ch = self.bin(BinaryOp::ShrU, Ty::U32, format, u(16));
        let channels = self.bin(BinaryOp::And, Ty::U32, ch, u(0xff));
        let mut size = Vec::new();
        for k in 0..dims {
            let n = self.descriptor_word(handle, desc::WIDTH + k as u32)?;
            let n = self.bin(BinaryOp::MaxU, Ty::U32, n, u(1));
            size.push(self.bin(BinaryOp::MinU, Ty::U32, n, u(MAX_EXTENT)));
        }
        let mut stride = vec![self.bin(BinaryOp::Mul, Ty::U32, channel_bytes, channels)];
        for k in 1..dims {
            stride.push(self.descriptor_word(handle, desc::ROW_PITCH + k as u32 - 1)?);
        }
        let mode_word = self.descriptor_word(handle, desc::ADDRESS_MODES)?;
        let mut modes = Vec::new();
        for k in 0..dims {
            let m = self.bin(BinaryOp::ShrU, Ty::U32, mode_word, u(4 * k as u32));
            modes.push(self.bin(BinaryOp::And, Ty::U32, m, u(0xf)));
        }
        let flags = self.descriptor_word(handle, desc::FLAGS)?;
        let mut border = Vec::new();
        for c in 0..4 {
            border.push(self.descriptor_word(handle, desc::BORDER + c)?);
        }
        Ok(Fields { base, kind, channel_bytes, channels, size, stride, modes, flags, border })
    }

    /// Texel index `i` (s32 in a U32) of an extent-`n` dimension under address mode `mode`:
    /// the index to read and whether it is inside (only the border mode leaves it).
    fn address_mode(&mut self, i: Operand, n: Operand, mode: Operand, normalized: Operand) -> (Operand, Operand) {
        // Wrap and mirror need normalized coordinates (guide, "Texture Memory"); otherwise clamp.
        let wrap = self.cmp(CmpOp::Eq, Ty::U32, mode, u(desc::MODE_WRAP));
        let mirror = self.cmp(CmpOp::Eq, Ty::U32, mode, u(desc::MODE_MIRROR));
        let border = self.cmp(CmpOp::Eq, Ty::U32, mode, u(desc::MODE_BORDER));
        let wrap = self.bin(BinaryOp::And, Ty::Bool, wrap, normalized);
        let mirror = self.bin(BinaryOp::And, Ty::Bool, mirror, normalized);
        let last = self.bin(BinaryOp::Sub, Ty::U32, n, u(1));
        let c = self.bin(BinaryOp::MaxS, Ty::U32, i, u(0));
        let clamped = self.bin(BinaryOp::MinS, Ty::U32, c, last);
        // i mod n and i mod 2n, made non-negative (n ≤ 2^28, |i| ≤ 2^30 + 1).
        let positive_mod = |s: &mut Self, m: Operand| {
            let r = s.bin(BinaryOp::RemS, Ty::U32, i, m);
            let neg = s.cmp(CmpOp::LtS, Ty::U32, r, u(0));
            let up = s.bin(BinaryOp::Add, Ty::U32, r, m);
            s.select(Ty::U32, neg, up, r)
        };
        let wrapped = positive_mod(self, n);
        let n2 = self.bin(BinaryOp::Add, Ty::U32, n, n);
        let p = positive_mod(self, n2);
        let back = self.bin(BinaryOp::Sub, Ty::U32, n2, u(1));
        let back = self.bin(BinaryOp::Sub, Ty::U32, back, p);
        let first_half = self.cmp(CmpOp::LtU, Ty::U32, p, n);
        let mirrored = self.select(Ty::U32, first_half, p, back);
        let in_range = self.cmp(CmpOp::LtU, Ty::U32, i, n);
        let out = self.un(UnaryOp::Not, Ty::Bool, in_range);
        let outside = self.bin(BinaryOp::And, Ty::Bool, border, out);
        let inside = self.un(UnaryOp::Not, Ty::Bool, outside);
        let idx = self.select(Ty::U32, mirror, mirrored, clamped);
        let idx = self.select(Ty::U32, wrap, wrapped, idx);
        let idx = self.select(Ty::U32, outside, u(0), idx);
        (idx, inside)
    }

    /// The four channels of texel `idx` (in range by construction) as U32 bits: float bits
    /// for float results (read mode applied), the (sign-extended) integer otherwise. Where
    /// not `inside`, the border texel (the descriptor's raw border bits, read like a texel:
    /// NVIDIA's border colour for integer reads is the colour's f32 bits cut to the channel),
    /// or 0 with `outside_zero` (integer coordinates). Channels the format lacks read 0, at
    /// the border too (measured on an H200, docs/nvidia.md).
    fn texel(&mut self, f: &Fields, idx: &[Operand], inside: Operand, float_result: bool, outside_zero: bool) -> LResult<[Operand; 4]> {
        let mut addr = f.base;
        for (k, &i) in idx.iter().enumerate() {
            let i = self.resize(i, Ty::U32, Ty::U64, false);
            let s = self.resize(f.stride[k], Ty::U32, Ty::U64, false);
            let off = self.bin(BinaryOp::Mul, Ty::U64, i, s);
            addr = self.bin(BinaryOp::Add, Ty::U64, addr, off);
        }
        let one = self.cmp(CmpOp::Eq, Ty::U32, f.channel_bytes, u(1));
        let two = self.cmp(CmpOp::Eq, Ty::U32, f.channel_bytes, u(2));
        let mask = self.select(Ty::U32, two, u(0xffff), u(u32::MAX));
        let mask = self.select(Ty::U32, one, u(0xff), mask);
        let ext_shift = self.select(Ty::U32, two, u(16), u(0));
        let ext_shift = self.select(Ty::U32, one, u(24), ext_shift);
        let signed = self.cmp(CmpOp::Eq, Ty::U32, f.kind, u(desc::KIND_SIGNED));
        let float_kind = self.cmp(CmpOp::Eq, Ty::U32, f.kind, u(desc::KIND_FLOAT));
        let normalized_read = self.flag(f.flags, desc::FLAG_NORMALIZED_READ);
        let not_float = self.un(UnaryOp::Not, Ty::Bool, float_kind);
        let normalize = self.bin(BinaryOp::And, Ty::Bool, normalized_read, not_float);
        let mut out = [u(0); 4];
        for c in 0..4u32 {
            let raw = self.new_var(Ty::U32, "texel");
            let has = self.cmp(CmpOp::LtU, Ty::U32, u(c), f.channels);
            let outside_value = if outside_zero { u(0) } else { self.bin(BinaryOp::And, Ty::U32, f.border[c as usize], mask) };
            let initial = self.select(Ty::U32, has, outside_value, u(0));
            self.assign(raw, Expr::Use(initial));
            let present = self.bin(BinaryOp::And, Ty::Bool, has, inside);
            let body = self.collect(|s| {
                let at = s.bin(BinaryOp::Mul, Ty::U32, f.channel_bytes, u(c));
                let at = s.resize(at, Ty::U32, Ty::U64, false);
                let a = s.bin(BinaryOp::Add, Ty::U64, addr, at);
                // The aligned word holding the channel (channels are aligned to their size).
                let aligned = s.bin(BinaryOp::And, Ty::U64, a, FnLower::u64c(!3));
                let w = s.global_word(aligned)?;
                let byte = s.resize(a, Ty::U64, Ty::U32, false);
                let byte = s.bin(BinaryOp::And, Ty::U32, byte, u(3));
                let sh = s.bin(BinaryOp::Mul, Ty::U32, byte, u(8));
                let v = s.bin(BinaryOp::ShrU, Ty::U32, w, sh);
                let v = s.bin(BinaryOp::And, Ty::U32, v, mask);
                s.assign(raw, Expr::Use(v));
                Ok(())
            })?;
            self.emit_if(present, body, crate::ir::Block::new());
            let raw = Operand::Var(raw);
            let up = self.bin(BinaryOp::Shl, Ty::U32, raw, ext_shift);
            let sext = self.bin(BinaryOp::ShrS, Ty::U32, up, ext_shift);
            let int = self.select(Ty::U32, signed, sext, raw);
            let value = if float_result {
                // Read mode "normalized float" (guide, "Read Mode"): u → u / (2^n − 1),
                // s → max(s / (2^(n−1) − 1), −1).
                let uf = self.convert(ConvertOp::UintToFloat, Ty::U32, Ty::F32, raw);
                let umax = self.convert(ConvertOp::UintToFloat, Ty::U32, Ty::F32, mask);
                let uq = self.f32_div_rounded(uf, umax, Rounding::Nearest);
                let sf = self.convert(ConvertOp::SintToFloat, Ty::U32, Ty::F32, sext);
                let half = self.bin(BinaryOp::ShrU, Ty::U32, mask, u(1));
                let smax = self.convert(ConvertOp::SintToFloat, Ty::U32, Ty::F32, half);
                let sq = self.f32_div_rounded(sf, smax, Rounding::Nearest);
                let sq = self.bin(BinaryOp::FMax, Ty::F32, sq, f32c(-1.0));
                let q = self.select(Ty::F32, signed, sq, uq);
                let q = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, q);
                let v = self.select(Ty::U32, normalize, q, int);
                // Half texels read as their exact f32.
                let h = self.small_float_to_f32_bits(raw, F16);
                let half = self.bin(BinaryOp::And, Ty::Bool, float_kind, two);
                self.select(Ty::U32, half, h, v)
            } else {
                int
            };
            out[c as usize] = value;
        }
        Ok(out)
    }

    /// f32 `add`, `sub` or `mul` rounded to nearest, exact on a target that flushes
    /// subnormals when the kernel is lowered with `LowerOptions::flushed_f32`
    /// (`f32_arith_flushed`; `tex` is `flushed::covered`): a subnormal coordinate (−2^-140
    /// normalized lies in texel −1), texel or border colour, or a subnormal weighted term, keeps
    /// its value. The other f32 operations of sampling are exact in the mode already
    /// (comparisons, min/max and ⌊⌋ through `FnLower::cmp`/`bin`/`un`; conversions from
    /// integers, whose results are integers; the normalized read's division on the bits).
    fn f32_op(&mut self, op: &str, a: Operand, b: Operand) -> Operand {
        if self.flushed_f32 {
            return self.f32_arith_flushed(op, &[a, b]);
        }
        let op = match op {
            "add" => BinaryOp::FAdd,
            "sub" => BinaryOp::FSub,
            _ => BinaryOp::FMul,
        };
        self.bin(op, Ty::F32, a, b)
    }

    /// ⌊x⌋ of a non-NaN f32 as s32, clamped to ±2^30.
    fn floor_index(&mut self, x: Operand) -> Operand {
        let fl = self.un(UnaryOp::FFloor, Ty::F32, x);
        let fl = self.bin(BinaryOp::FMin, Ty::F32, fl, f32c(INDEX_LIMIT));
        let fl = self.bin(BinaryOp::FMax, Ty::F32, fl, f32c(-INDEX_LIMIT));
        self.convert(ConvertOp::FloatToSint, Ty::F32, Ty::U32, fl)
    }

    /// Samples at `coords` (F32, or U32 integer texel indices): four U32 channel bits.
    fn sample(&mut self, handle: Operand, coords: &[Operand], float_coords: bool, float_result: bool) -> LResult<[Operand; 4]> {
        let dims = coords.len();
        let f = self.descriptor(handle, dims)?;
        if !float_coords {
            // Integer coordinates: texel indices, never normalized nor filtered; out of range
            // reads 0 whatever the address mode and border colour (`tex1Dfetch`, and
            // `tex.2d.v4.f32.s32` on arrays as an H200 does, docs/nvidia.md).
            let mut idx = Vec::new();
            let mut inside = Operand::Const(Const::Bool(true));
            for (k, &i) in coords.iter().enumerate() {
                let (ix, ins) = self.address_mode(i, f.size[k], u(desc::MODE_BORDER), Operand::Const(Const::Bool(false)));
                idx.push(ix);
                inside = self.bin(BinaryOp::And, Ty::Bool, inside, ins);
            }
            return self.texel(&f, &idx, inside, float_result, true);
        }
        let normalized = self.flag(f.flags, desc::FLAG_NORMALIZED_COORDS);
        let mut scaled = Vec::new();
        for (k, &x) in coords.iter().enumerate() {
            let ordered = self.cmp(CmpOp::FEq, Ty::F32, x, x);
            let x = self.select(Ty::F32, ordered, x, f32c(0.0));
            let n = self.convert(ConvertOp::UintToFloat, Ty::U32, Ty::F32, f.size[k]);
            let xn = self.f32_op("mul", x, n);
            scaled.push(self.select(Ty::F32, normalized, xn, x));
        }
        let result: Vec<_> = (0..4).map(|_| self.new_var(Ty::U32, "sample")).collect();
        let point = self.collect(|s| {
            let mut idx = Vec::new();
            let mut inside = Operand::Const(Const::Bool(true));
            for (k, &x) in scaled.iter().enumerate() {
                let i = s.floor_index(x);
                let (ix, ins) = s.address_mode(i, f.size[k], f.modes[k], normalized);
                idx.push(ix);
                inside = s.bin(BinaryOp::And, Ty::Bool, inside, ins);
            }
            let v = s.texel(&f, &idx, inside, float_result, false)?;
            for c in 0..4 {
                s.assign(result[c], Expr::Use(v[c]));
            }
            Ok(())
        })?;
        if !float_result {
            self.push_block(point);
            return Ok(std::array::from_fn(|c| Operand::Var(result[c])));
        }
        let linear = self.collect(|s| {
            // Guide, "Linear Filtering": x_B = x − 0.5, i = ⌊x_B⌋, α = frac(x_B) in 9-bit
            // fixed point with 8 fractional bits.
            let mut lo = Vec::new();
            let mut alpha = Vec::new();
            for &x in &scaled {
                let xb = s.f32_op("sub", x, f32c(0.5));
                let fl = s.un(UnaryOp::FFloor, Ty::F32, xb);
                let frac = s.f32_op("sub", xb, fl);
                // ±∞ leaves ∞ − ∞: no fraction.
                let ordered = s.cmp(CmpOp::FEq, Ty::F32, frac, frac);
                let frac = s.select(Ty::F32, ordered, frac, f32c(0.0));
                // Rounded half up, as NVIDIA's texture units do (an H200 measured on
                // 2026-11-28, tests/nvidia/texture_measured.bin: frac = k/256 + 1/512 gives
                // α = k + 1 for every k; α = 256 puts the whole weight on texel i + 1).
                // frac·256 < 256 has at most 24 significant bits, so + 0.5 is exact.
                let a = s.f32_op("mul", frac, f32c(256.0));
                let a = s.f32_op("add", a, f32c(0.5));
                let a = s.un(UnaryOp::FFloor, Ty::F32, a);
                alpha.push(s.convert(ConvertOp::FloatToUint, Ty::F32, Ty::U32, a));
                lo.push(s.floor_index(xb));
            }
            let scale = f32c(1.0 / (1u32 << (8 * scaled.len())) as f32);
            let mut acc = [f32c(0.0); 4];
            for corner in 0..1u32 << scaled.len() {
                let mut idx = Vec::new();
                let mut inside = Operand::Const(Const::Bool(true));
                let mut weight = u(1);
                for k in 0..scaled.len() {
                    let upper = corner >> k & 1 == 1;
                    let i = if upper { s.bin(BinaryOp::Add, Ty::U32, lo[k], u(1)) } else { lo[k] };
                    let (ix, ins) = s.address_mode(i, f.size[k], f.modes[k], normalized);
                    idx.push(ix);
                    inside = s.bin(BinaryOp::And, Ty::Bool, inside, ins);
                    let wk = if upper { alpha[k] } else { s.bin(BinaryOp::Sub, Ty::U32, u(256), alpha[k]) };
                    weight = s.bin(BinaryOp::Mul, Ty::U32, weight, wk);
                }
                // Exact: at most 256^3 = 2^24.
                let w = s.convert(ConvertOp::UintToFloat, Ty::U32, Ty::F32, weight);
                let w = s.f32_op("mul", w, scale);
                let v = s.texel(&f, &idx, inside, true, false)?;
                for c in 0..4 {
                    let t = s.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, v[c]);
                    let term = s.f32_op("mul", w, t);
                    acc[c] = if corner == 0 { term } else { s.f32_op("add", acc[c], term) };
                }
            }
            for c in 0..4 {
                let bits = s.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, acc[c]);
                s.assign(result[c], Expr::Use(bits));
            }
            Ok(())
        })?;
        let filtered = self.flag(f.flags, desc::FLAG_LINEAR);
        self.emit_if(filtered, linear, point);
        Ok(std::array::from_fn(|c| Operand::Var(result[c])))
    }

    /// The texture object operand: a 64-bit register (`.texref` variables are refused).
    fn texture_handle(&mut self, op: &ast::Operand) -> LResult<Operand> {
        if let OperandKind::Symbol { name, component: None } = &op.kind {
            if let Some(Symbol::Global { .. }) = self.lookup(name) {
                return Err(unsupported(
                    format!("texture/surface reference `{name}` (.texref/.surfref, bound mode): only texture objects are"),
                    op.span,
                ));
            }
        }
        self.read(op, ScalarType::U64)
    }

    pub(super) fn tex(&mut self, m: &Mods) -> LResult<()> {
        let inst = m.inst;
        for (q, what) in [
            ("a1d", "layered textures"),
            ("a2d", "layered textures"),
            ("cube", "cubemap textures"),
            ("acube", "cubemap textures"),
            ("2dms", "multisample textures"),
            ("a2dms", "multisample textures"),
            ("grad", "explicit gradients"),
        ] {
            if m.has(q) {
                return Err(unsupported(format!("{what} (`.{q}` on `{}`)", m.name()), inst.span));
            }
        }
        m.only(&["1d", "2d", "3d", "v4", "base", "level"])?;
        let dims = match m.one_of(&["1d", "2d", "3d"]) {
            Some("1d") => 1,
            Some("2d") => 2,
            Some(_) => 3,
            None => return Err(Diagnostic::new(format!("`{}` needs a geometry (.1d, .2d, .3d)", m.name()), inst.span)),
        };
        if !m.has("v4") {
            return Err(unsupported(format!("`{}` without .v4", m.name()), inst.span));
        }
        let [dtype, ctype] = m.types()[..] else {
            return Err(Diagnostic::new(format!("`{}` takes a result and a coordinate type", m.name()), inst.span));
        };
        if !matches!(dtype, ScalarType::F32 | ScalarType::S32 | ScalarType::U32) {
            return Err(unsupported(format!(".{} results of `{}`", dtype.suffix(), m.name()), inst.span));
        }
        if !matches!(ctype, ScalarType::F32 | ScalarType::S32) {
            return Err(Diagnostic::new(format!("`{}`: coordinates are .s32 or .f32", m.name()), inst.span));
        }
        let level = m.has("level");
        if level && ctype != ScalarType::F32 {
            return Err(Diagnostic::new(format!("`{}`: `.level` takes .f32 coordinates", m.name()), inst.span));
        }
        let ops = operands(inst, 2 + usize::from(level))?;
        let dst = match &ops[0].kind {
            OperandKind::Vector(v) if v.len() == 4 => v.clone(),
            OperandKind::Pair(..) => return Err(unsupported(format!("a predicate destination of `{}`", m.name()), ops[0].span)),
            _ => return Err(Diagnostic::new(format!("`{}` writes a vector of four registers", m.name()), ops[0].span)),
        };
        let OperandKind::Address(parts) = &ops[1].kind else {
            return Err(Diagnostic::new(format!("`{}` takes `[texture, {{coordinates}}]`", m.name()), ops[1].span));
        };
        let (handle, coords) = match parts.as_slice() {
            [h, c] => (h, c),
            [_, _, _] => return Err(unsupported(format!("independent texture mode (a separate sampler) in `{}`", m.name()), ops[1].span)),
            _ => return Err(Diagnostic::new(format!("`{}` takes `[texture, {{coordinates}}]`", m.name()), ops[1].span)),
        };
        let want = if dims == 3 { 4 } else { dims };
        let coords = match &coords.kind {
            OperandKind::Vector(v) if v.len() == want => v[..dims].to_vec(),
            _ => return Err(Diagnostic::new(format!("`{}` takes {want} coordinate(s) in braces", m.name()), coords.span)),
        };
        let h = self.texture_handle(handle)?;
        let mut c = Vec::new();
        for op in &coords {
            c.push(self.read(op, ctype)?);
        }
        if level {
            // Level of detail: resources have one level (mipmapped ones are refused at creation).
            self.read(&ops[2], ScalarType::F32)?;
        }
        if dims == 1 && ctype == ScalarType::F32 {
            // NVIDIA samples a 1D texture as a 2D one of height 1 at y = 0: linear filtering
            // then blends rows −1 and 0 equally, so under the border mode half of every
            // sample is the border colour (an H200: x = 0.5 reads (T₀ + border) / 2,
            // docs/nvidia.md); clamp, wrap and mirror map row −1 to row 0.
            c.push(f32c(0.0));
        }
        let float_result = dtype == ScalarType::F32;
        let v = self.sample(h, &c, ctype == ScalarType::F32, float_result)?;
        for (d, bits) in dst.iter().zip(v) {
            if matches!(d.kind, OperandKind::Sink) {
                continue;
            }
            let value = if float_result { self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, bits) } else { bits };
            self.write(d, dtype, value)?;
        }
        Ok(())
    }

    /// `suld.b` / `sust.b` on surface objects (§9.7.12.1–2): unformatted loads and stores of
    /// `.v{1,2,4}` elements of `.b8`–`.b64` at byte `x` of row `y` of slice `z`. Out of
    /// bounds, `.trap` faults (`abi::FAULT_TRAP`) and accesses nothing, `.clamp` accesses the
    /// nearest location, `.zero` loads zeros / drops the store. A byte x the access (all its
    /// elements together) is not aligned to is undefined (§9.7.12.1); NVIDIA faults
    /// (`CUDA_ERROR_MISALIGNED_ADDRESS`, an H200 on 2026-11-28, docs/nvidia.md), so it faults
    /// here too (`abi::FAULT_MISALIGNED`, like a misaligned `ld`/`st`), whatever the boundary
    /// mode, and accesses nothing.
    pub(super) fn surface(&mut self, m: &Mods, load: bool) -> LResult<()> {
        let inst = m.inst;
        for q in ["a1d", "a2d"] {
            if m.has(q) {
                return Err(unsupported(format!("layered surfaces (`.{q}` on `{}`)", m.name()), inst.span));
            }
        }
        if m.has("p") {
            return Err(unsupported(format!("formatted surface stores (`{}`)", m.name()), inst.span));
        }
        m.only(&["b", "1d", "2d", "3d", "v2", "v4", "trap", "clamp", "zero", "ca", "cg", "cs", "cv", "wb", "wt"])?;
        if !m.has("b") {
            return Err(Diagnostic::new(format!("`{}` needs `.b`", m.name()), inst.span));
        }
        let dims = match m.one_of(&["1d", "2d", "3d"]) {
            Some("1d") => 1,
            Some("2d") => 2,
            Some(_) => 3,
            None => return Err(Diagnostic::new(format!("`{}` needs a geometry (.1d, .2d, .3d)", m.name()), inst.span)),
        };
        let t = m.ty()?;
        let size = match t {
            ScalarType::B8 => 1,
            ScalarType::B16 => 2,
            ScalarType::B32 => 4,
            ScalarType::B64 => 8,
            _ => return Err(Diagnostic::new(format!("`{}` takes .b8, .b16, .b32 or .b64", m.name()), inst.span)),
        };
        let Some(oob) = m.one_of(&["trap", "clamp", "zero"]) else {
            return Err(Diagnostic::new(format!("`{}` needs .trap, .clamp or .zero", m.name()), inst.span));
        };
        let n = if m.has("v4") { 4 } else if m.has("v2") { 2 } else { 1 };
        let ops = operands(inst, 2)?;
        let (data, addr) = if load { (&ops[0], &ops[1]) } else { (&ops[1], &ops[0]) };
        let elems: Vec<ast::Operand> = match &data.kind {
            OperandKind::Vector(v) => v.clone(),
            _ => vec![data.clone()],
        };
        if elems.len() != n {
            return Err(Diagnostic::new(format!("`{}` takes {n} element(s)", m.name()), data.span));
        }
        let OperandKind::Address(parts) = &addr.kind else {
            return Err(Diagnostic::new(format!("`{}` takes `[surface, {{coordinates}}]`", m.name()), addr.span));
        };
        let [handle, coords] = parts.as_slice() else {
            return Err(Diagnostic::new(format!("`{}` takes `[surface, {{coordinates}}]`", m.name()), addr.span));
        };
        let want = if dims == 3 { 4 } else { dims };
        let coords = match &coords.kind {
            OperandKind::Vector(v) if v.len() == want => v[..dims].to_vec(),
            _ if dims == 1 => vec![coords.clone()],
            _ => return Err(Diagnostic::new(format!("`{}` takes {want} coordinate(s) in braces", m.name()), coords.span)),
        };
        let h = self.texture_handle(handle)?;
        let mut c = Vec::new();
        for op in &coords {
            c.push(self.read(op, ScalarType::S32)?);
        }
        let values = if load {
            Vec::new()
        } else {
            let mut v = Vec::new();
            for e in &elems {
                v.push(self.read_relaxed(e, t)?);
            }
            v
        };
        let f = self.descriptor(h, dims)?;
        let total = n as u32 * size;
        // x: a byte offset (aligned, or the access faults below); y, z: rows and slices.
        let x = c[0];
        let low = self.bin(BinaryOp::And, Ty::U32, x, u(total - 1));
        let misaligned = self.cmp(CmpOp::Ne, Ty::U32, low, u(0));
        let n0 = self.resize(f.size[0], Ty::U32, Ty::U64, false);
        let s0 = self.resize(f.stride[0], Ty::U32, Ty::U64, false);
        let row_bytes = self.bin(BinaryOp::Mul, Ty::U64, n0, s0);
        let xs = self.resize(x, Ty::U32, Ty::U64, true);
        let xu = self.resize(x, Ty::U32, Ty::U64, false);
        let end = self.bin(BinaryOp::Add, Ty::U64, xu, FnLower::u64c(u64::from(total)));
        let mut inside = self.cmp(CmpOp::LeU, Ty::U64, end, row_bytes);
        // The last whole access of the row (0 where none fits).
        let fits = self.cmp(CmpOp::GeU, Ty::U64, row_bytes, FnLower::u64c(u64::from(total)));
        let last = self.bin(BinaryOp::Sub, Ty::U64, row_bytes, FnLower::u64c(u64::from(total)));
        let last = self.bin(BinaryOp::And, Ty::U64, last, FnLower::u64c(!(u64::from(total) - 1)));
        let last = self.select(Ty::U64, fits, last, FnLower::u64c(0));
        let xc = self.bin(BinaryOp::MaxS, Ty::U64, xs, FnLower::u64c(0));
        let xc = self.bin(BinaryOp::MinU, Ty::U64, xc, last);
        let mut offset = if oob == "clamp" { xc } else { xu };
        for (k, &ck) in c.iter().enumerate().skip(1) {
            let (i, ins) = self.address_mode(ck, f.size[k], u(desc::MODE_BORDER), Operand::Const(Const::Bool(false)));
            let clamped = self.address_mode(ck, f.size[k], u(desc::MODE_CLAMP), Operand::Const(Const::Bool(false))).0;
            inside = self.bin(BinaryOp::And, Ty::Bool, inside, ins);
            let i = if oob == "clamp" { clamped } else { i };
            let i = self.resize(i, Ty::U32, Ty::U64, false);
            let p = self.resize(f.stride[k], Ty::U32, Ty::U64, false);
            let o = self.bin(BinaryOp::Mul, Ty::U64, i, p);
            offset = self.bin(BinaryOp::Add, Ty::U64, offset, o);
        }
        let base = self.bin(BinaryOp::Add, Ty::U64, f.base, offset);
        let raw_ty = if size == 8 { Ty::U64 } else { Ty::U32 };
        let zero = if size == 8 { FnLower::u64c(0) } else { u(0) };
        let results: Vec<_> = (0..n).map(|_| self.new_var(raw_ty, "surface")).collect();
        for r in &results {
            self.assign(*r, Expr::Use(zero));
        }
        let access = self.collect(|s| {
            for i in 0..n {
                let a = s.bin(BinaryOp::Add, Ty::U64, base, FnLower::u64c(u64::from(i as u32 * size)));
                let place = s.heap_place(a);
                s.on_place(place, |s, mem, off| {
                    if load {
                        let v = s.load_bytes(mem, off, size);
                        s.assign(results[i], Expr::Use(v));
                    } else {
                        let v = s.fit(values[i], s.operand_ty(values[i]), raw_ty, t);
                        s.store_bytes(mem, off, size, v);
                    }
                    Ok(())
                })?;
            }
            Ok(())
        })?;
        let bounded = self.collect(|s| {
            match oob {
                "clamp" => s.push_block(access),
                "trap" => {
                    let fault = crate::ir::Block { stmts: vec![crate::ir::Stmt::Fault { code: crate::abi::FAULT_TRAP }] };
                    s.emit_if(inside, access, fault);
                }
                _ => s.emit_if(inside, access, crate::ir::Block::new()),
            }
            Ok(())
        })?;
        let fault = crate::ir::Block { stmts: vec![crate::ir::Stmt::Fault { code: crate::abi::FAULT_MISALIGNED }] };
        self.emit_if(misaligned, fault, bounded);
        if load {
            let ty = crate::ptx_types::value_ty(t).unwrap_or(Ty::U32);
            for (d, r) in elems.iter().zip(results) {
                let v = self.fit(Operand::Var(r), raw_ty, ty, t);
                self.write_relaxed(d, t, v)?;
            }
        }
        Ok(())
    }

    /// `txq.{width,height,depth}.b32 d, [texture]` (§9.7.10.5); other queries are refused.
    pub(super) fn txq(&mut self, m: &Mods) -> LResult<()> {
        let inst = m.inst;
        let (word, absent) = match m.one_of(&["width", "height", "depth"]) {
            Some("width") => (desc::WIDTH, None),
            Some("height") => (desc::WIDTH + 1, Some(desc::FLAG_QUERY_NO_HEIGHT)),
            Some(_) => (desc::WIDTH + 2, Some(desc::FLAG_QUERY_NO_DEPTH)),
            None => return Err(unsupported(format!("`{}` (only width, height and depth are queried)", m.name()), inst.span)),
        };
        m.only(&["width", "height", "depth", "b32"])?;
        let ops = operands(inst, 2)?;
        let OperandKind::Address(parts) = &ops[1].kind else {
            return Err(Diagnostic::new(format!("`{}` takes `[texture]`", m.name()), ops[1].span));
        };
        let [h] = parts.as_slice() else {
            return Err(Diagnostic::new(format!("`{}` takes `[texture]`", m.name()), ops[1].span));
        };
        let h = self.texture_handle(h)?;
        let mut v = self.descriptor_word(h, word)?;
        if let Some(bit) = absent {
            let flags = self.descriptor_word(h, desc::FLAGS)?;
            let none = self.flag(flags, bit);
            v = self.select(Ty::U32, none, u(0), v);
        }
        self.write(&ops[0], ScalarType::B32, v)
    }
}
