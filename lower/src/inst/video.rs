//! Video instructions (spec §9.7.18): the scalar `vadd vsub vabsdiff vmin vmax vshl vshr vmad
//! vset` with operand selectors, `.sat`, a secondary operation or a sub-word merge, and the SIMD
//! `vadd2/vsub2/vavrg2/vabsdiff2/vmin2/vmax2/vset2` and `…4` forms with masks and `.add`
//! accumulation. All of it is ordinary integer IR.
//!
//! Where the spec's pseudo-code and its prose disagree or leave a case open, the choice is
//! written where it is made (search "Ambiguous"); `tests/src/ptx_ref/video.rs` follows the same
//! reading, written independently. The scalar ops' saturation, `vset`'s secondary operation and
//! merges, secondary operations and `vmad` follow NVIDIA's hardware where it differs from the
//! pseudo-code (issue #9; measured on sm_90, see `video_scalar` and `vmad`); the one form whose
//! hardware result is not determined by the measurements is refused: an unsigned `vabsdiff`
//! with `.sat` and `.min/.max`.
//!
//! The intermediate values (`.s33` operands, `.s34` results) are kept in 64 bits (exact, but
//! `vshl` modulo 2^64), and the low 32 bits are what is written.

use super::{operands, Mods};
use crate::function::{unsupported, FnLower, LResult};
use crate::ir::{BinaryOp, CmpOp, Operand, Ty, UnaryOp};
use ptxcross_frontend::ast::{self, OperandKind, ScalarType};
use ptxcross_frontend::Diagnostic;

/// A scalar operand selector (`.b0..b3`, `.h0/.h1`), or the whole word.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Word,
    Byte(u32),
    Half(u32),
}

/// The largest and smallest value of an operand part once extended (§9.7.18.1: the selected
/// byte, half or word, sign- or zero-extended by its type).
fn part_range(p: Part, signed: bool) -> (i64, i64) {
    let bits = match p {
        Part::Word => 32,
        Part::Half(_) => 16,
        Part::Byte(_) => 8,
    };
    if signed {
        ((1 << (bits - 1)) - 1, -(1 << (bits - 1)))
    } else {
        ((1 << bits) - 1, 0)
    }
}

impl Part {
    fn parse(s: &str) -> Option<Part> {
        Some(match s {
            "b0" | "b1" | "b2" | "b3" => Part::Byte(s.as_bytes()[1] as u32 - b'0' as u32),
            "h0" | "h1" => Part::Half(s.as_bytes()[1] as u32 - b'0' as u32),
            _ => return None,
        })
    }
}

/// Whether a register component is a video selector or mask (`b…`/`h…` with digits), not a
/// vector element (`x y z w r g b a`).
fn is_selector(c: &str) -> bool {
    c.len() >= 2 && (c.starts_with('b') || c.starts_with('h')) && c[1..].bytes().all(|b| b.is_ascii_digit())
}

/// A video source operand: its 32-bit value, its selector text, and whether it was negated.
struct Src {
    value: Operand,
    sel: Option<String>,
    neg: bool,
}

fn cmp_of(m: &Mods) -> LResult<&'static str> {
    m.one_of(&["eq", "ne", "lt", "le", "gt", "ge"])
        .ok_or_else(|| Diagnostic::new(format!("`{}` needs a comparison (.eq .ne .lt .le .gt .ge)", m.name()), m.inst.span))
}

fn signed_of(t: ScalarType, m: &Mods) -> LResult<bool> {
    match t {
        ScalarType::U32 => Ok(false),
        ScalarType::S32 => Ok(true),
        _ => Err(Diagnostic::new(format!("`{}` takes .u32/.s32 types, found .{}", m.name(), t.suffix()), m.inst.span)),
    }
}

/// Signedness of d, a and b from the instruction's types: `.dtype.atype.btype`, or
/// `.atype.btype` for `vset` forms, whose result (and c) are unsigned (§9.7.18.1.4).
fn video_signedness(m: &Mods, set: bool) -> LResult<(bool, bool, bool)> {
    let (dsigned, at, bt) = match (set, m.types().as_slice()) {
        (false, [d, a, b]) => (signed_of(*d, m)?, *a, *b),
        (true, [a, b]) => (false, *a, *b),
        _ => {
            let n = if set { "two" } else { "three" };
            return Err(Diagnostic::new(format!("`{}` takes {n} types (.u32/.s32)", m.name()), m.inst.span));
        }
    };
    Ok((dsigned, signed_of(at, m)?, signed_of(bt, m)?))
}

impl FnLower {
    pub(super) fn video(&mut self, m: &Mods) -> LResult<()> {
        let name = m.inst.opcode.name.as_str();
        match name {
            "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vset" => self.video_scalar(m),
            "vmad" => self.vmad(m),
            _ => self.video_simd(m),
        }
    }

    /// Reads a source operand with its optional selector (`%r.b1`) and negation (`-%r`).
    fn video_src(&mut self, op: &ast::Operand) -> LResult<Src> {
        let (op, neg) = match &op.kind {
            OperandKind::Neg(inner) => (&**inner, true),
            _ => (op, false),
        };
        match &op.kind {
            OperandKind::Symbol { name, component: Some(c) } if is_selector(c) => {
                let base = ast::Operand { kind: OperandKind::Symbol { name: name.clone(), component: None }, span: op.span };
                Ok(Src { value: self.read(&base, ScalarType::U32)?, sel: Some(c.to_string()), neg })
            }
            _ => Ok(Src { value: self.read(op, ScalarType::U32)?, sel: None, neg }),
        }
    }

    /// The destination register and its selector/mask text.
    fn video_dst(op: &ast::Operand) -> (ast::Operand, Option<String>) {
        match &op.kind {
            OperandKind::Symbol { name, component: Some(c) } if is_selector(c) => (
                ast::Operand { kind: OperandKind::Symbol { name: name.clone(), component: None }, span: op.span },
                Some(c.to_string()),
            ),
            _ => (op.clone(), None),
        }
    }

    /// Field `[lo, lo + width)` of the U32 `x`, sign- or zero-extended to a U32.
    fn video_field32(&mut self, x: Operand, lo: u32, width: u32, signed: bool) -> Operand {
        if width == 32 {
            return x;
        }
        let l = self.bin(BinaryOp::Shl, Ty::U32, x, Self::u32c(32 - lo - width));
        self.bin(if signed { BinaryOp::ShrS } else { BinaryOp::ShrU }, Ty::U32, l, Self::u32c(32 - width))
    }

    /// `partSelectSignExtend(x, type, sel)` (§9.7.18.1) as an exact U64 (an `.s33` value).
    fn video_part(&mut self, x: Operand, part: Part, signed: bool) -> Operand {
        let v = match part {
            Part::Word => x,
            Part::Byte(i) => self.video_field32(x, 8 * i, 8, signed),
            Part::Half(i) => self.video_field32(x, 16 * i, 16, signed),
        };
        self.resize(v, Ty::U32, Ty::U64, signed)
    }

    fn video_sel(&self, src: &Src, span: ast::Span) -> LResult<Part> {
        match &src.sel {
            None => Ok(Part::Word),
            Some(s) => Part::parse(s).ok_or_else(|| Diagnostic::new(format!("`.{s}` is no operand selector (.b0..b3, .h0, .h1)"), span)),
        }
    }

    /// Clamps the exact U64 `v` (signed) into `[lo, hi]`. Compares and selects rather than
    /// 64-bit min/max with a constant, since `cmp` hides the constant from the driver (the
    /// operands are often sign-extended 32-bit values: see `FnLower::cmp` for the lavapipe
    /// bug that works around).
    fn clamp_s64(&mut self, v: Operand, lo: i64, hi: i64) -> Operand {
        let (lo, hi) = (Self::u64c(lo as u64), Self::u64c(hi as u64));
        let below = self.cmp(CmpOp::LtS, Ty::U64, v, lo);
        let v = self.select(Ty::U64, below, lo, v);
        let above = self.cmp(CmpOp::GtS, Ty::U64, v, hi);
        self.select(Ty::U64, above, hi, v)
    }

    /// `optSaturate`'s range for a signed/unsigned destination of `bits`.
    fn video_range(signed: bool, bits: u32) -> (i64, i64) {
        if signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        }
    }

    fn video_scalar(&mut self, m: &Mods) -> LResult<()> {
        let name = m.inst.opcode.name.as_str();
        let shift = matches!(name, "vshl" | "vshr");
        let set = name == "vset";
        let mut allowed = vec!["add", "min", "max"];
        if set {
            allowed.extend(["eq", "ne", "lt", "le", "gt", "ge"]);
        } else {
            allowed.push("sat");
        }
        if shift {
            allowed.extend(["clamp", "wrap"]);
        }
        m.only(&allowed)?;
        let (dsigned, asigned, bsigned) = video_signedness(m, set)?;
        if shift && bsigned {
            return Err(Diagnostic::new(format!("`{}`: the shift amount's type must be .u32", m.name()), m.inst.span));
        }
        let secop = m.one_of(&["add", "min", "max"]);
        if [m.has("add"), m.has("min"), m.has("max")].iter().filter(|x| **x).count() > 1 {
            return Err(Diagnostic::new(format!("`{}` takes one secondary operation", m.name()), m.inst.span));
        }
        let mode = if shift {
            Some(m.one_of(&["clamp", "wrap"]).ok_or_else(|| {
                Diagnostic::new(format!("`{}` needs a shift mode (.clamp or .wrap)", m.name()), m.inst.span)
            })?)
        } else {
            None
        };
        let ops = &m.inst.operands;
        let (d, dsel) = Self::video_dst(&ops[0]);
        let dpart = match &dsel {
            None => Part::Word,
            Some(s) => Part::parse(s).ok_or_else(|| Diagnostic::new(format!("`.{s}` is no destination selector"), ops[0].span))?,
        };
        let want = if secop.is_some() || dpart != Part::Word { 4 } else { 3 };
        if secop.is_some() && dpart != Part::Word {
            return Err(Diagnostic::new(
                format!("`{}`: a secondary operation and a merge selector exclude each other", m.name()),
                m.inst.span,
            ));
        }
        operands(m.inst, want)?;
        let a = self.video_src(&ops[1])?;
        let b = self.video_src(&ops[2])?;
        if a.neg || b.neg {
            return Err(Diagnostic::new(format!("`{}` takes no negated operands", m.name()), m.inst.span));
        }
        let (apart, bpart) = (self.video_sel(&a, ops[1].span)?, self.video_sel(&b, ops[2].span)?);
        // NVIDIA's sm_90 (an H100 replay of 2,898 scalar forms, 2026-11-26) leaves one rule
        // open: an unsigned `vabsdiff` with `.sat` and `.min/.max` (which of the saturated and
        // the wrapped value is compared and written is not determined): refused, not guessed.
        if name == "vabsdiff" && !dsigned && m.has("sat") && matches!(secop, Some("min" | "max")) {
            return Err(unsupported(
                format!(
                    "`{}` with an unsigned dtype, `.sat` and `.{}` (NVIDIA's results differ from the spec's pseudo-code, §9.7.18.1; not yet reproduced)",
                    m.name(),
                    secop.unwrap_or_default()
                ),
                m.inst.span,
            ));
        }
        // The wrap at 2^32 of `.sat` on an unsigned word result (below) was measured on sm_90
        // for vadd/vsub with one signed operand only. Where a result at or above 2^32 is
        // possible in a form never measured — vadd of two unsigned operands, vabsdiff of mixed
        // signedness — which of the wrap and the spec's clamp sm_90 gives is not known:
        // refused, not guessed.
        if !dsigned && m.has("sat") && dpart == Part::Word && secop.is_none() {
            let (amax, amin) = part_range(apart, asigned);
            let (bmax, bmin) = part_range(bpart, bsigned);
            let unmeasured = match name {
                "vadd" => !asigned && !bsigned && amax + bmax >= 1 << 32,
                "vabsdiff" => asigned != bsigned && (amax - bmin).max(bmax - amin) >= 1 << 32,
                _ => false,
            };
            if unmeasured {
                return Err(unsupported(
                    format!(
                        "`{}`: an unsigned saturated result that can reach 2^32 (NVIDIA's results differ from the spec's pseudo-code there in the forms measured, §9.7.18.1; this one was not measured: wrapped or clamped is not known)",
                        m.name()
                    ),
                    m.inst.span,
                ));
            }
        }
        let ta = self.video_part(a.value, apart, asigned);
        let tb = self.video_part(b.value, bpart, bsigned);
        let tmp = match name {
            "vadd" => self.bin(BinaryOp::Add, Ty::U64, ta, tb),
            "vsub" => self.bin(BinaryOp::Sub, Ty::U64, ta, tb),
            "vabsdiff" => {
                let d1 = self.bin(BinaryOp::Sub, Ty::U64, ta, tb);
                let d2 = self.bin(BinaryOp::Sub, Ty::U64, tb, ta);
                self.bin(BinaryOp::MaxS, Ty::U64, d1, d2)
            }
            "vmin" => self.bin(BinaryOp::MinS, Ty::U64, ta, tb),
            "vmax" => self.bin(BinaryOp::MaxS, Ty::U64, ta, tb),
            "vshl" | "vshr" => {
                // tb is the zero-extended (u32) selected part: `.clamp` limits it to 32,
                // `.wrap` keeps its low 5 bits (§9.7.18.1.2).
                let n = self.convert(crate::ir::ConvertOp::Truncate, Ty::U64, Ty::U32, tb);
                let n = if mode == Some("clamp") {
                    self.bin(BinaryOp::MinU, Ty::U32, n, Self::u32c(32))
                } else {
                    self.bin(BinaryOp::And, Ty::U32, n, Self::u32c(31))
                };
                if name == "vshr" {
                    // An arithmetic shift of the extended value: sign fill for signed a.
                    self.bin(BinaryOp::ShrS, Ty::U64, ta, n)
                } else {
                    // The exact `ta << n` modulo 2^64 (n <= 32: below 2^64 for every
                    // unsigned ta); saturation reads it wrapped to 34 bits (below).
                    self.bin(BinaryOp::Shl, Ty::U64, ta, n)
                }
            }
            _ => {
                let cmp = match cmp_of(m)? {
                    "eq" => CmpOp::Eq,
                    "ne" => CmpOp::Ne,
                    "lt" => CmpOp::LtS,
                    "le" => CmpOp::LeS,
                    "gt" => CmpOp::GtS,
                    _ => CmpOp::GeS,
                };
                let c = self.cmp(cmp, Ty::U64, ta, tb);
                self.select(Ty::U64, c, Self::u64c(1), Self::u64c(0))
            }
        };
        // What follows is NVIDIA's hardware (sm_90, driver 580.159.04, measured 2026-11-26 on
        // an H100; tests/tests/video_nvidia_replay.rs), where it differs from the spec's
        // pseudo-code (§9.7.18.1), as `tests/src/ptx_ref/video.rs` (`scalar`) documents.
        //
        // `.sat` to the 32-bit range of dtype: spec §9.7.18.1 clamps the exact value; sm_90
        // clamps it wrapped to 34 bits (the spec's `.s34`; only vshl reaches beyond).
        let sat32 = |s: &mut Self, x: Operand| {
            let x = if name == "vshl" {
                let l = s.bin(BinaryOp::Shl, Ty::U64, x, Self::u32c(30));
                s.bin(BinaryOp::ShrS, Ty::U64, l, Self::u32c(30))
            } else {
                x
            };
            let (lo, hi) = Self::video_range(dsigned, 32);
            s.clamp_s64(x, lo, hi)
        };
        // `.sat` of a word result: an unsigned vadd/vsub/vabsdiff clamps below at 0 and wraps at
        // 2^32 (sm_90; spec: clamps to U32_MAX); the others as `sat32`.
        let sat_word = |s: &mut Self, x: Operand| {
            if !dsigned && matches!(name, "vadd" | "vsub" | "vabsdiff") {
                let neg = s.cmp(CmpOp::LtS, Ty::U64, x, Self::u64c(0));
                let low = s.bin(BinaryOp::And, Ty::U64, x, Self::u64c(0xffff_ffff));
                s.select(Ty::U64, neg, Self::u64c(0), low)
            } else {
                sat32(s, x)
            }
        };
        let t = if m.has("sat") && dpart == Part::Word { sat_word(self, tmp) } else { tmp };
        let t32 = self.convert(crate::ir::ConvertOp::Truncate, Ty::U64, Ty::U32, t);
        let result = if let Some(op2) = secop {
            let c = self.read(&ops[3], ScalarType::U32)?;
            let min = op2 == "min";
            match op2 {
                "add" => self.bin(BinaryOp::Add, Ty::U32, t32, c),
                _ if set => {
                    // Spec: c unsigned. sm_90: atype's sign; signed, the low 32 bits as s32;
                    // unsigned, the exact value against c as u32.
                    if asigned {
                        self.bin(if min { BinaryOp::MinS } else { BinaryOp::MaxS }, Ty::U32, t32, c)
                    } else {
                        let c64 = self.resize(c, Ty::U32, Ty::U64, false);
                        let r = self.bin(if min { BinaryOp::MinU } else { BinaryOp::MaxU }, Ty::U64, t, c64);
                        self.convert(crate::ir::ConvertOp::Truncate, Ty::U64, Ty::U32, r)
                    }
                }
                _ => {
                    // Spec: the `.s34` result and c (dtype's sign) compare. sm_90: a 64-bit key
                    // against c extended by dtype's sign, compared signed for a signed dtype and
                    // as unsigned 64-bit patterns for an unsigned one (a negative key lies above
                    // every c); the key is the low 32 bits as s32 for vadd/vsub and saturated
                    // shifts, else the exact value (vshl's modulo 2^64).
                    let key = if matches!(name, "vadd" | "vsub") || (shift && m.has("sat")) {
                        self.resize(t32, Ty::U32, Ty::U64, true)
                    } else {
                        t
                    };
                    let c64 = self.resize(c, Ty::U32, Ty::U64, dsigned);
                    let op = match (min, dsigned) {
                        (true, true) => CmpOp::LtS,
                        (true, false) => CmpOp::LtU,
                        (false, true) => CmpOp::GtS,
                        (false, false) => CmpOp::GtU,
                    };
                    let take = self.cmp(op, Ty::U64, key, c64);
                    self.select(Ty::U32, take, t32, c)
                }
            }
        } else {
            match dpart {
                Part::Word => t32,
                Part::Byte(i) | Part::Half(i) => {
                    let w = if matches!(dpart, Part::Byte(_)) { 8 } else { 16 };
                    let field = ((1u64 << w) - 1) as u32;
                    // Merge with `.sat`: spec, the result clamped to the field's range
                    // (dtype's sign). sm_90: vshl/vshr clamp to dtype's 32-bit range; the other
                    // ops clamp the exact value read as unsigned (negative: above the bound)
                    // to the field's maximum only.
                    let v = if !m.has("sat") {
                        t32
                    } else if shift {
                        let v = sat32(self, tmp);
                        self.convert(crate::ir::ConvertOp::Truncate, Ty::U64, Ty::U32, v)
                    } else {
                        let hi = if dsigned { field >> 1 } else { field };
                        let above = self.cmp(CmpOp::GtU, Ty::U64, tmp, Self::u64c(hi as u64));
                        let v = self.select(Ty::U64, above, Self::u64c(hi as u64), tmp);
                        self.convert(crate::ir::ConvertOp::Truncate, Ty::U64, Ty::U32, v)
                    };
                    let c = self.read(&ops[3], ScalarType::U32)?;
                    // The field into its place in c: the low byte/half-word moved up, as the
                    // spec says, except `.h1`, which takes bits 16..31 in place (sm_90).
                    let t = if dpart == Part::Half(1) {
                        self.bin(BinaryOp::And, Ty::U32, v, Self::u32c(0xffff_0000))
                    } else {
                        let t = self.bin(BinaryOp::And, Ty::U32, v, Self::u32c(field));
                        self.bin(BinaryOp::Shl, Ty::U32, t, Self::u32c(w * i))
                    };
                    let keep = self.bin(BinaryOp::And, Ty::U32, c, Self::u32c(!(field << (w * i))));
                    self.bin(BinaryOp::Or, Ty::U32, t, keep)
                }
            }
        };
        self.write(&d, if dsigned { ScalarType::S32 } else { ScalarType::U32 }, result)
    }

    /// `vmad` (§9.7.18.1.3) as NVIDIA's sm_90 computes it (measured 2026-11-26 on an H100, every
    /// row of 576 forms; `tests/src/ptx_ref/video.rs`, `vmad_hw`, says where the spec's
    /// pseudo-code differs): the selected, extended operands multiplied as 32-bit signed values
    /// (a `.u32` word with bit 31 set counts as negative), the product or c negated, `.po`'s
    /// +1, c sign-extended, a 64-bit sum (exact), `.shr7/.shr15` arithmetic for a signed final
    /// result and logical for an unsigned one, `.sat` clamping that 64-bit value (as signed) to
    /// the final sign's 32-bit range. dtype does not enter.
    fn vmad(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["sat", "po", "shr7", "shr15"])?;
        let types = m.types();
        let [_, at, bt] = types.as_slice() else {
            return Err(Diagnostic::new(format!("`{}` takes three types (.u32/.s32)", m.name()), m.inst.span));
        };
        let dsigned = signed_of(types[0], m)?;
        let (asigned, bsigned) = (signed_of(*at, m)?, signed_of(*bt, m)?);
        if m.has("shr7") && m.has("shr15") {
            return Err(Diagnostic::new(format!("`{}` takes one scale", m.name()), m.inst.span));
        }
        let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
        let (a, b) = (self.video_src(a)?, self.video_src(b)?);
        let (apart, bpart) = (self.video_sel(&a, m.inst.operands[1].span)?, self.video_sel(&b, m.inst.operands[2].span)?);
        let (cop, cneg) = match &c.kind {
            OperandKind::Neg(inner) => (&**inner, true),
            _ => (c, false),
        };
        let cv = self.read(cop, ScalarType::U32)?;
        let po = m.has("po");
        let pneg = a.neg ^ b.neg;
        if po && (a.neg || b.neg || cneg) {
            return Err(Diagnostic::new("`vmad.po` takes no negated operands", m.inst.span));
        }
        if pneg && cneg {
            // Not among the spec's operand combinations (§9.7.18.1.3), and its pseudo-code
            // would silently ignore the negation of c; not measured on hardware either.
            return Err(unsupported("`vmad` with both the product and c negated", m.inst.span));
        }
        let (d, dsel) = Self::video_dst(d);
        if dsel.is_some() {
            return Err(Diagnostic::new("`vmad` takes no destination selector", m.inst.span));
        }
        let signed_final = asigned || bsigned || pneg || cneg;
        // Each operand's selected field, extended by its type to 32 bits, then read as s32.
        let operand = |s: &mut Self, x: Operand, part: Part, signed: bool| {
            let v = match part {
                Part::Word => x,
                Part::Byte(i) => s.video_field32(x, 8 * i, 8, signed),
                Part::Half(i) => s.video_field32(x, 16 * i, 16, signed),
            };
            s.resize(v, Ty::U32, Ty::U64, true)
        };
        let ta = operand(self, a.value, apart, asigned);
        let tb = operand(self, b.value, bpart, bsigned);
        // |ta·tb| <= 2^62: the low 64 bits of the product are exact.
        let mut p = self.bin(BinaryOp::Mul, Ty::U64, ta, tb);
        if pneg {
            p = self.un(UnaryOp::Neg, Ty::U64, p);
        }
        let mut c64 = self.resize(cv, Ty::U32, Ty::U64, true);
        if cneg {
            c64 = self.un(UnaryOp::Neg, Ty::U64, c64);
        }
        let mut sum = self.bin(BinaryOp::Add, Ty::U64, p, c64);
        if po {
            sum = self.bin(BinaryOp::Add, Ty::U64, sum, Self::u64c(1));
        }
        let scale = if m.has("shr7") { 7 } else if m.has("shr15") { 15 } else { 0 };
        let mut result = sum;
        if scale > 0 {
            let op = if signed_final { BinaryOp::ShrS } else { BinaryOp::ShrU };
            result = self.bin(op, Ty::U64, sum, Self::u32c(scale));
        }
        if m.has("sat") {
            let (lo, hi) = Self::video_range(signed_final, 32);
            result = self.clamp_s64(result, lo, hi);
        }
        let r = self.convert(crate::ir::ConvertOp::Truncate, Ty::U64, Ty::U32, result);
        self.write(&d, if dsigned { ScalarType::S32 } else { ScalarType::U32 }, r)
    }

    /// The SIMD forms (§9.7.18.2): `vop2` on two half-words, `vop4` on four bytes.
    fn video_simd(&mut self, m: &Mods) -> LResult<()> {
        let name = m.inst.opcode.name.as_str();
        let (op, n) = match name.strip_suffix('2') {
            Some(op) => (op, 2u32),
            None => (name.strip_suffix('4').unwrap_or(name), 4u32),
        };
        if !matches!(op, "vadd" | "vsub" | "vavrg" | "vabsdiff" | "vmin" | "vmax" | "vset") {
            return Err(unsupported(format!("instruction `{}`", m.name()), m.inst.span));
        }
        let set = op == "vset";
        let w = 32 / n;
        if set {
            m.only(&["add", "eq", "ne", "lt", "le", "gt", "ge"])?;
        } else {
            m.only(&["add", "sat"])?;
        }
        if m.has("sat") && m.has("add") {
            return Err(Diagnostic::new(
                format!("`{}`: saturation cannot be used with the accumulate operation", m.name()),
                m.inst.span,
            ));
        }
        let (dsigned, asigned, bsigned) = video_signedness(m, set)?;
        let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
        let (d, mask) = Self::video_dst(d);
        let (aspan, bspan) = (a.span, b.span);
        let (a, b) = (self.video_src(a)?, self.video_src(b)?);
        if a.neg || b.neg {
            return Err(Diagnostic::new(format!("`{}` takes no negated operands", m.name()), m.inst.span));
        }
        let c = self.read(c, ScalarType::U32)?;
        let letter = if n == 2 { 'h' } else { 'b' };
        // Selectors `.hxy` / `.bxyzw`: the first digit picks lane n-1's element (of the 2n
        // elements of b:a), the last lane 0's. Defaults .h10/.h32, .b3210/.b7654.
        let lanes_of = |sel: &Option<String>, default: &str, span| -> LResult<Vec<u32>> {
            let s = sel.as_deref().unwrap_or(default);
            let digits: Vec<u32> = s[1..].bytes().map(|x| (x - b'0') as u32).collect();
            if !s.starts_with(letter) || digits.len() != n as usize || digits.iter().any(|&x| x >= 2 * n) {
                return Err(Diagnostic::new(format!("`.{s}` is no selector of `{name}`"), span));
            }
            Ok(digits.into_iter().rev().collect())
        };
        let (asel, bsel) = if n == 2 { ("h10", "h32") } else { ("b3210", "b7654") };
        let asel = lanes_of(&a.sel, asel, aspan)?;
        let bsel = lanes_of(&b.sel, bsel, bspan)?;
        // The mask: the lanes named, digits in descending order, each at most once.
        let mask: Vec<bool> = match &mask {
            None => vec![true; n as usize],
            Some(s) => {
                let digits: Vec<u32> = s[1..].bytes().map(|x| (x - b'0') as u32).collect();
                let ok = s.starts_with(letter)
                    && !digits.is_empty()
                    && digits.iter().all(|&x| x < n)
                    && digits.windows(2).all(|p| p[0] > p[1]);
                if !ok {
                    return Err(Diagnostic::new(format!("`.{s}` is no mask of `{name}`"), m.inst.operands[0].span));
                }
                (0..n).map(|i| digits.contains(&i)).collect()
            }
        };
        let element = |s: &mut Self, k: u32, signed: bool| {
            let word = if k < n { a.value } else { b.value };
            s.video_field32(word, w * (k % n), w, signed)
        };
        let cmp = if set {
            Some(match cmp_of(m)? {
                "eq" => CmpOp::Eq,
                "ne" => CmpOp::Ne,
                "lt" => CmpOp::LtS,
                "le" => CmpOp::LeS,
                "gt" => CmpOp::GtS,
                _ => CmpOp::GeS,
            })
        } else {
            None
        };
        let mut acc = if m.has("add") { c } else { Self::u32c(0) };
        for i in 0..n {
            if !mask[i as usize] {
                if !m.has("add") {
                    // Merge: lane i of c. Ambiguous: §9.7.18.2.2/4 (vset2/vset4) say "from
                    // source operand b" in the prose, but their pseudo-code (and every other
                    // SIMD op's prose) takes c's lane (`Vc[i]`): we follow the pseudo-code.
                    let keep = self.bin(BinaryOp::And, Ty::U32, c, Self::u32c((((1u64 << w) - 1) as u32) << (w * i)));
                    acc = self.bin(BinaryOp::Or, Ty::U32, acc, keep);
                }
                continue;
            }
            // Lanes are at most 17-bit signed values: exact in 32 bits.
            let va = element(self, asel[i as usize], asigned);
            let vb = element(self, bsel[i as usize], bsigned);
            let mut t = match (op, cmp) {
                (_, Some(cmp)) => {
                    let p = self.cmp(cmp, Ty::U32, va, vb);
                    self.select(Ty::U32, p, Self::u32c(1), Self::u32c(0))
                }
                ("vadd", _) => self.bin(BinaryOp::Add, Ty::U32, va, vb),
                ("vsub", _) => self.bin(BinaryOp::Sub, Ty::U32, va, vb),
                ("vavrg", _) => {
                    // (s + 1) >> 1 for s >= 0, s >> 1 below (arithmetic shifts).
                    let s = self.bin(BinaryOp::Add, Ty::U32, va, vb);
                    let neg = self.bin(BinaryOp::ShrU, Ty::U32, s, Self::u32c(31));
                    let one = self.bin(BinaryOp::Xor, Ty::U32, neg, Self::u32c(1));
                    let s1 = self.bin(BinaryOp::Add, Ty::U32, s, one);
                    self.bin(BinaryOp::ShrS, Ty::U32, s1, Self::u32c(1))
                }
                ("vabsdiff", _) => {
                    let d1 = self.bin(BinaryOp::Sub, Ty::U32, va, vb);
                    let d2 = self.bin(BinaryOp::Sub, Ty::U32, vb, va);
                    self.bin(BinaryOp::MaxS, Ty::U32, d1, d2)
                }
                ("vmin", _) => self.bin(BinaryOp::MinS, Ty::U32, va, vb),
                _ => self.bin(BinaryOp::MaxS, Ty::U32, va, vb),
            };
            if m.has("sat") {
                let (lo, hi) = Self::video_range(dsigned, w);
                let x = self.bin(BinaryOp::MaxS, Ty::U32, t, Self::u32c(lo as i32 as u32));
                t = self.bin(BinaryOp::MinS, Ty::U32, x, Self::u32c(hi as i32 as u32));
            }
            acc = if m.has("add") {
                // Accumulate: the lane's exact (signed) result added to c.
                self.bin(BinaryOp::Add, Ty::U32, acc, t)
            } else {
                // Merge: the lane's result, truncated to the lane, in its place. (The
                // pseudo-code's `d |= t[i]` leaves the placement implicit.)
                let t = self.bin(BinaryOp::And, Ty::U32, t, Self::u32c(((1u64 << w) - 1) as u32));
                let t = self.bin(BinaryOp::Shl, Ty::U32, t, Self::u32c(w * i));
                self.bin(BinaryOp::Or, Ty::U32, acc, t)
            };
        }
        let dt = if dsigned { ScalarType::S32 } else { ScalarType::U32 };
        self.write(&d, dt, acc)
    }
}
