//! `mov`, `cvta`, `setp`, `selp` (spec §9.7.9.x, §9.7.3).

use super::{operands, Mods};
use crate::abi;
use crate::function::{invalid, unsupported, FnLower, LResult, Symbol};
use crate::operand_types::Check;
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Operand, Ty, UnaryOp};
use crate::ptx_types::{self, value_ty};
use ptxcross_frontend::ast::{self, OperandKind, ScalarType};
use ptxcross_frontend::Diagnostic;

impl FnLower {
    pub(super) fn mov(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["v2", "v4"])?;
        let t = m.ty()?;
        // §9.7.10.3: `mov`'s types (and `.b128`, §9.7.10.4); not the 8-bit or half ones (ptxas:
        // "Unexpected instruction types").
        let spec_types = {
            use ScalarType::{Pred, B128, B16, B32, B64, F32, F64, S16, S32, S64, U16, U32, U64};
            [Pred, B16, B32, B64, B128, U16, U32, U64, S16, S32, S64, F32, F64]
        };
        if !spec_types.contains(&t) {
            return Err(invalid(format!("`mov` has no .{} type (§9.7.10.3)", t.suffix()), m.inst.span));
        }
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        if let Some(v) = m.one_of(&["v2", "v4"]) {
            return self.mov_vector(m, t, if v == "v2" { 2 } else { 4 }, d, a);
        }
        if t == ScalarType::B128 {
            return self.mov_b128(m, d, a);
        }
        match (&d.kind, &a.kind) {
            // mov.b64 %rd, {lo, hi} / mov.b32 %r, {h0, h1}: pack.
            (_, OperandKind::Vector(parts)) => {
                let (pt, n) = split_type(t, parts.len(), m)?;
                let mut acc = FnLower::int_const(value_ty(t).unwrap_or(Ty::U32), 0);
                let wide = value_ty(t) == Some(Ty::U64);
                let ty = if wide { Ty::U64 } else { Ty::U32 };
                for (i, p) in parts.iter().enumerate() {
                    undefined_element(self, p, pt)?;
                    let v = self.read(p, pt)?;
                    let v = self.resize(v, Ty::U32, ty, false);
                    let v = if ptx_types::bits(pt) < 32 {
                        let mask = FnLower::int_const(ty, (1u64 << ptx_types::bits(pt)) - 1);
                        self.bin(BinaryOp::And, ty, v, mask)
                    } else {
                        v
                    };
                    let sh = self.bin(BinaryOp::Shl, ty, v, FnLower::u32c((i as u32) * n));
                    acc = self.bin(BinaryOp::Or, ty, acc, sh);
                }
                self.write(d, t, acc)
            }
            // mov.b64 {lo, hi}, %rd: unpack.
            (OperandKind::Vector(parts), _) => {
                let (pt, n) = split_type(t, parts.len(), m)?;
                let wide = value_ty(t) == Some(Ty::U64);
                let ty = if wide { Ty::U64 } else { Ty::U32 };
                let v = self.read(a, bits_type(t))?;
                for p in parts.iter() {
                    undefined_element(self, p, pt)?;
                }
                for (i, p) in parts.iter().enumerate() {
                    let sh = self.bin(BinaryOp::ShrU, ty, v, FnLower::u32c(i as u32 * n));
                    let part = self.resize(sh, ty, Ty::U32, false);
                    let part = if n < 32 { self.bin(BinaryOp::And, Ty::U32, part, FnLower::u32c(((1u64 << n) - 1) as u32)) } else { part };
                    self.write(p, pt, part)?;
                }
                Ok(())
            }
            _ => {
                let v = self.read_bits(a, t)?;
                self.check_operand(d, t, Check::Strict)?;
                self.write(d, bit_move_type(t), v)
            }
        }
    }

    /// `mov.v2/.v4.type d, a`: element by element, between vector registers, `{a, b, …}`
    /// lists and vector special registers (`mov.v4.u32 %rx, %clusterid;`, whose fourth
    /// element is 0).
    fn mov_vector(&mut self, m: &Mods, t: ScalarType, n: usize, d: &ast::Operand, a: &ast::Operand) -> LResult<()> {
        let elements = |s: &Self, op: &ast::Operand| -> Option<Vec<ast::Operand>> {
            match &op.kind {
                OperandKind::Vector(parts) => Some(parts.clone()),
                OperandKind::Symbol { name, component: None } if name.starts_with('%') && s.lookup(name.as_str()).is_none() => {
                    // A vector special register, read by components.
                    let c = ["x", "y", "z", "w"];
                    Some(c[..n].iter().map(|c| ast::Operand { kind: OperandKind::Symbol { name: name.clone(), component: Some((*c).into()) }, span: op.span }).collect())
                }
                _ => s.vector_register_elements(op),
            }
        };
        let bad = || Diagnostic::new(format!("`{}` moves between vectors of {n} elements", m.name()), m.inst.span);
        let dst = self.vector_register_elements(d).or_else(|| match &d.kind {
            OperandKind::Vector(parts) => Some(parts.clone()),
            _ => None,
        });
        let (Some(dst), Some(src)) = (dst, elements(self, a)) else { return Err(bad()) };
        if dst.len() != n || src.len() != n {
            return Err(bad());
        }
        // Read every element before writing any (the vectors may overlap).
        let values = src.iter().map(|e| self.read_bits(e, t)).collect::<LResult<Vec<_>>>()?;
        let t = bit_move_type(t);
        for (e, v) in dst.iter().zip(values) {
            self.write(e, t, v)?;
        }
        Ok(())
    }

    /// `cvta.space.size d, a` (to generic) / `cvta.to.space.size d, a` (from generic).
    pub(super) fn cvta(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["to", "global", "shared", "local", "const", "param", "shared::cta", "shared::cluster", "param::entry"])?;
        let t = m.ty()?;
        if !matches!(t, ScalarType::U32 | ScalarType::U64) {
            return Err(Diagnostic::new("`cvta` takes .u32 or .u64", m.inst.span));
        }
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        // `cvta.param var` (§9.7.10.19: `.param` is `.param::entry`) names a kernel parameter;
        // a device function's or a call's `.param` variable (`.param::func`, in local memory
        // here) has no generic address in PTX. (ptxas 13.5 accepts it and gives the generic
        // address of the *kernel* parameter at that offset: nvdisasm shows the callee reading
        // the kernel's parameter bank. Not a value to copy.)
        if m.one_of(&["param", "param::entry"]).is_some() {
            if let Some(name) = base_symbol(a) {
                if matches!(self.lookup(name), Some(Symbol::Local { .. })) {
                    return Err(Diagnostic::new(
                        format!(
                            "`cvta.param` takes the address of a kernel parameter (PTX ISA §9.7.10.19: .param is \
                             .param::entry); `{name}` is a device-function or call parameter"
                        ),
                        a.span,
                    ));
                }
            }
        }
        let v = self.read(a, t)?;
        let v = self.resize(v, value_ty(t).unwrap_or(Ty::U64), Ty::U64, false);
        // The windows of the module's address map (`abi`: 32-bit ones in `.address_size 32`).
        let (shared, local, param) = if self.address_size == 64 {
            (abi::SHARED_WINDOW_BASE, abi::LOCAL_WINDOW_BASE, abi::PARAM_WINDOW_BASE)
        } else {
            (abi::SHARED_WINDOW_BASE_32 as u64, abi::LOCAL_WINDOW_BASE_32 as u64, abi::PARAM_WINDOW_BASE_32 as u64)
        };
        let base = match m.one_of(&["global", "shared", "shared::cta", "shared::cluster", "local", "const", "param", "param::entry"]) {
            // Global (and const/param, which live in the heap) addresses are generic addresses.
            Some("global") | Some("const") => 0,
            // Without cluster launches a CTA is its own cluster: its shared::cluster addresses
            // are its shared::cta ones.
            Some("shared") | Some("shared::cta") | Some("shared::cluster") => shared,
            Some("local") => local,
            // Kernel parameters (`.param`, `.param::entry`): their generic window, in the
            // kernel and in device functions alike (a register there holds a kernel
            // parameter's address that the kernel passed in, or `cvta.to.param` gave).
            Some(_) => param,
            None => return Err(Diagnostic::new("`cvta` needs a state space", m.inst.span)),
        };
        let r = if base == 0 {
            v
        } else if m.has("to") {
            self.bin(BinaryOp::Sub, Ty::U64, v, FnLower::u64c(base))
        } else {
            self.bin(BinaryOp::Add, Ty::U64, v, FnLower::u64c(base))
        };
        let r = self.resize(r, Ty::U64, value_ty(t).unwrap_or(Ty::U64), false);
        self.write(d, t, r)
    }

    /// `setp.cmp[.bool].type p[|q], a, b[, {!}c]`.
    pub(super) fn setp(&mut self, m: &Mods) -> LResult<()> {
        const CMPS: [&str; 20] = [
            "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num",
            "nan", "", "",
        ];
        let mut allowed: Vec<&str> = CMPS.iter().copied().filter(|s| !s.is_empty()).collect();
        allowed.extend(["and", "or", "xor", "ftz"]);
        m.only(&allowed)?;
        let t = m.ty()?;
        let cmp = m
            .one_of(&CMPS[..18])
            .ok_or_else(|| Diagnostic::new("`setp` needs a comparison (.eq, .lt, …)", m.inst.span))?;
        let bool_op = m.one_of(&["and", "or", "xor"]);
        let ops = &m.inst.operands;
        let expected = if bool_op.is_some() { 4 } else { 3 };
        if ops.len() != expected {
            return Err(Diagnostic::new(format!("`{}` takes {expected} operands", m.name()), m.inst.span));
        }
        if matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2) {
            // §9.7.8.2: p = BoolOp(low lanes' comparison, c), q = BoolOp(high lanes', c).
            let [lo, hi] = self.compare_combine_lanes(m, t, cmp, bool_op)?;
            let OperandKind::Pair(p, q) = &ops[0].kind else {
                return Err(Diagnostic::new(format!("`{}` writes two predicates `p|q`", m.name()), m.inst.span));
            };
            self.write(p, ScalarType::Pred, lo)?;
            return self.write(q, ScalarType::Pred, hi);
        }
        let (r, nr) = self.compare_combine(m, t, cmp, bool_op)?;
        match &ops[0].kind {
            OperandKind::Pair(p, q) => {
                self.write(p, ScalarType::Pred, r)?;
                self.write(q, ScalarType::Pred, nr)
            }
            _ => self.write(&ops[0], ScalarType::Pred, r),
        }
    }

    /// `set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, c}` (§9.7.6.1, §9.7.8.1): like `setp`,
    /// with the result written as all ones (integer `dtype`) or 1.0 (float `dtype`) for true,
    /// 0 for false; packed-half sources give one such 16-bit result per lane.
    pub(super) fn set(&mut self, m: &Mods) -> LResult<()> {
        const CMPS: [&str; 18] = [
            "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num",
            "nan",
        ];
        let mut allowed: Vec<&str> = CMPS.to_vec();
        allowed.extend(["and", "or", "xor", "ftz"]);
        m.only(&allowed)?;
        let types = m.types();
        let [dt, st] = types.as_slice() else {
            return Err(Diagnostic::new("`set` takes a destination and a source type", m.inst.span));
        };
        let (dt, st) = (*dt, *st);
        let cmp = m.one_of(&CMPS).ok_or_else(|| Diagnostic::new("`set` needs a comparison (.eq, .lt, …)", m.inst.span))?;
        let bool_op = m.one_of(&["and", "or", "xor"]);
        let expected = if bool_op.is_some() { 4 } else { 3 };
        if m.inst.operands.len() != expected {
            return Err(Diagnostic::new(format!("`{}` takes {expected} operands", m.name()), m.inst.span));
        }
        if matches!(st, ScalarType::F16x2 | ScalarType::Bf16x2) {
            // §9.7.8.1's semantics reads "dtype == .f16x2 || stype == .bf16x2" for 1.0 lanes;
            // its syntax (dtype .bf16x2, .u32 or .s32 for bf16x2) shows the second is the
            // dtype too: 1.0 lanes for a packed-half dtype, 0xffff lanes for u32/s32.
            let lane_truth = match dt {
                ScalarType::U32 | ScalarType::S32 | ScalarType::B32 => 0xffff,
                _ if dt == st => if st == ScalarType::F16x2 { 0x3c00 } else { 0x3f80 },
                _ => return Err(Diagnostic::new(format!("`{}`: packed-half `set` writes .{} or .u32/.s32", m.name(), st.suffix()), m.inst.span)),
            };
            let lanes = self.compare_combine_lanes(m, st, cmp, bool_op)?;
            let mut d = FnLower::u32c(0);
            for (r, shift) in lanes.into_iter().zip([0, 16]) {
                let v = self.select(Ty::U32, r, FnLower::u32c(lane_truth << shift), FnLower::u32c(0));
                d = self.bin(BinaryOp::Or, Ty::U32, d, v);
            }
            return self.write(&m.inst.operands[0], dt, d);
        }
        let truth = match dt {
            ScalarType::U32 | ScalarType::S32 | ScalarType::B32 => FnLower::u32c(u32::MAX),
            ScalarType::U16 | ScalarType::S16 | ScalarType::B16 => FnLower::u32c(0xffff),
            ScalarType::F32 => Operand::Const(crate::ir::Const::F32(1f32.to_bits())),
            // 1.0 in f16 and bf16 (§9.7.8.1).
            ScalarType::F16 => FnLower::u32c(0x3c00),
            ScalarType::Bf16 => FnLower::u32c(0x3f80),
            _ => return Err(unsupported(format!("`{}` (destination .{})", m.name(), dt.suffix()), m.inst.span)),
        };
        let (r, _) = self.compare_combine(m, st, cmp, bool_op)?;
        let ty = value_ty(dt).unwrap_or(Ty::U32);
        let zero = if ty == Ty::F32 { Operand::Const(crate::ir::Const::F32(0)) } else { FnLower::u32c(0) };
        let d = self.select(ty, r, truth, zero);
        self.write(&m.inst.operands[0], dt, d)
    }

    /// The comparison of operands 1 and 2 as `t`, combined with predicate operand 3 by
    /// `bool_op`; gives the result and the result of the negated comparison (for `p|q`).
    fn compare_combine(&mut self, m: &Mods, t: ScalarType, cmp: &str, bool_op: Option<&str>) -> LResult<(Operand, Operand)> {
        let ops = &m.inst.operands;
        let a = self.read(&ops[1], t)?;
        let b = self.read(&ops[2], t)?;
        let a = if m.has("ftz") { self.flush_denormal(a, t) } else { a };
        let b = if m.has("ftz") { self.flush_denormal(b, t) } else { b };
        let r = self.compare(cmp, t, a, b, m)?;
        let (r, nr) = match bool_op {
            None => {
                let nr = self.un(UnaryOp::Not, Ty::Bool, r);
                (r, nr)
            }
            Some(bop) => {
                let c = self.read(&ops[3], ScalarType::Pred)?;
                let op = match bop {
                    "and" => BinaryOp::And,
                    "or" => BinaryOp::Or,
                    _ => BinaryOp::Xor,
                };
                let nr0 = self.un(UnaryOp::Not, Ty::Bool, r);
                (self.bin(op, Ty::Bool, r, c), self.bin(op, Ty::Bool, nr0, c))
            }
        };
        Ok((r, nr))
    }

    /// The comparisons of both lanes of packed halves (operands 1 and 2 as `t`), each combined
    /// with predicate operand 3 by `bool_op`; low lane first.
    fn compare_combine_lanes(&mut self, m: &Mods, t: ScalarType, cmp: &str, bool_op: Option<&str>) -> LResult<[Operand; 2]> {
        if t == ScalarType::Bf16x2 && m.has("ftz") {
            return Err(Diagnostic::new(format!("`{}`: .ftz applies to f16 only", m.name()), m.inst.span));
        }
        let ops = &m.inst.operands;
        let a = self.read(&ops[1], t)?;
        let b = self.read(&ops[2], t)?;
        let mut lanes = self.packed_half_compare(cmp, t, a, b, m)?;
        if let Some(bop) = bool_op {
            let c = self.read(&ops[3], ScalarType::Pred)?;
            let op = match bop {
                "and" => BinaryOp::And,
                "or" => BinaryOp::Or,
                _ => BinaryOp::Xor,
            };
            for r in lanes.iter_mut() {
                *r = self.bin(op, Ty::Bool, *r, c);
            }
        }
        Ok(lanes)
    }

    /// One comparison `a cmp b` of PTX type `t` (spec §9.7.1 Table "Operators for signed/
    /// unsigned integer, bit-size and floating-point comparisons").
    pub fn compare(&mut self, cmp: &str, t: ScalarType, a: Operand, b: Operand, m: &Mods) -> LResult<Operand> {
        let ty = value_ty(t).ok_or_else(|| unsupported(format!("comparisons of .{}", t.suffix()), m.inst.span))?;
        if let Some(fmt) = super::half::half_format(t).filter(|_| matches!(t, ScalarType::F16 | ScalarType::Bf16)) {
            if t == ScalarType::Bf16 && m.has("ftz") {
                return Err(Diagnostic::new(format!("`{}`: .ftz applies to f16 only", m.name()), m.inst.span));
            }
            return self.half_compare(cmp, fmt, a, b, m.inst.span);
        }
        if ptx_types::is_half(t) {
            return Err(unsupported(format!("`{}` on packed half-precision values", m.name()), m.inst.span));
        }
        if ptx_types::is_float(t) {
            let ordered = |s: &mut FnLower, op: CmpOp| s.cmp(op, ty, a, b);
            let unordered = |s: &mut FnLower, op: CmpOp| {
                // x u-op y = !(x inverse-ordered-op y): true when either is NaN.
                let r = s.cmp(op, ty, a, b);
                s.un(UnaryOp::Not, Ty::Bool, r)
            };
            return Ok(match cmp {
                "eq" => ordered(self, CmpOp::FEq),
                "ne" => ordered(self, CmpOp::FNe),
                "lt" => ordered(self, CmpOp::FLt),
                "le" => ordered(self, CmpOp::FLe),
                "gt" => ordered(self, CmpOp::FGt),
                "ge" => ordered(self, CmpOp::FGe),
                "equ" => {
                    // equ = !(a ne b) where ne is ordered: true if equal or unordered.
                    unordered(self, CmpOp::FNe)
                }
                "neu" => unordered(self, CmpOp::FEq),
                "ltu" => unordered(self, CmpOp::FGe),
                "leu" => unordered(self, CmpOp::FGt),
                "gtu" => unordered(self, CmpOp::FLe),
                "geu" => unordered(self, CmpOp::FLt),
                "num" => {
                    let na = self.is_nan(a, t);
                    let nb = self.is_nan(b, t);
                    let any = self.bin(BinaryOp::Or, Ty::Bool, na, nb);
                    self.un(UnaryOp::Not, Ty::Bool, any)
                }
                "nan" => {
                    let na = self.is_nan(a, t);
                    let nb = self.is_nan(b, t);
                    self.bin(BinaryOp::Or, Ty::Bool, na, nb)
                }
                _ => return Err(Diagnostic::new(format!("`.{cmp}` does not apply to floats"), m.inst.span)),
            });
        }
        if ty == Ty::Bool {
            return Ok(match cmp {
                "eq" => {
                    let x = self.bin(BinaryOp::Xor, Ty::Bool, a, b);
                    self.un(UnaryOp::Not, Ty::Bool, x)
                }
                "ne" => self.bin(BinaryOp::Xor, Ty::Bool, a, b),
                _ => return Err(Diagnostic::new(format!("`.{cmp}` does not apply to predicates"), m.inst.span)),
            });
        }
        let signed = ptx_types::is_signed(t);
        let bitsize = matches!(t, ScalarType::B8 | ScalarType::B16 | ScalarType::B32 | ScalarType::B64);
        let op = match cmp {
            "eq" => CmpOp::Eq,
            "ne" => CmpOp::Ne,
            _ if bitsize => {
                return Err(Diagnostic::new(format!("`.{cmp}` does not apply to bit-size types"), m.inst.span))
            }
            "lt" if signed => CmpOp::LtS,
            "le" if signed => CmpOp::LeS,
            "gt" if signed => CmpOp::GtS,
            "ge" if signed => CmpOp::GeS,
            "lt" | "lo" => CmpOp::LtU,
            "le" | "ls" => CmpOp::LeU,
            "gt" | "hi" => CmpOp::GtU,
            "ge" | "hs" => CmpOp::GeU,
            _ => return Err(Diagnostic::new(format!("`.{cmp}` does not apply to .{}", t.suffix()), m.inst.span)),
        };
        Ok(self.cmp(op, ty, a, b))
    }

    /// NaN test on the bits (robust where a target's float compare is not).
    pub fn is_nan(&mut self, v: Operand, t: ScalarType) -> Operand {
        if t == ScalarType::F64 {
            let b = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, v);
            let a = self.bin(BinaryOp::And, Ty::U64, b, FnLower::u64c(0x7fff_ffff_ffff_ffff));
            self.cmp(CmpOp::GtU, Ty::U64, a, FnLower::u64c(0x7ff0_0000_0000_0000))
        } else {
            let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, v);
            let a = self.bin(BinaryOp::And, Ty::U32, b, FnLower::u32c(0x7fff_ffff));
            self.cmp(CmpOp::GtU, Ty::U32, a, FnLower::u32c(0x7f80_0000))
        }
    }

    /// `slct.dtype.ctype d, a, b, c` (§9.7.7.4): d = (c >= 0) ? a : b, decided on c's bits:
    /// −0 counts as zero, NaN selects b, and with `.ftz` a subnormal c selects a (it is a
    /// signed zero); no float comparison, so the device's subnormal handling cannot matter.
    pub(super) fn slct(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["ftz"])?;
        let types = m.types();
        let [dt, ct] = types.as_slice() else {
            return Err(Diagnostic::new("`slct` takes a destination and a comparison type", m.inst.span));
        };
        let (dt, ct) = (*dt, *ct);
        if m.has("ftz") && ct != ScalarType::F32 {
            return Err(Diagnostic::new("`.ftz` applies to slct with an .f32 comparison", m.inst.span));
        }
        let u = FnLower::u32c;
        let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
        if value_ty(dt) == Some(Ty::Bool) || ptx_types::is_half(dt) {
            return Err(Diagnostic::new(format!("`{}`: invalid destination type", m.name()), m.inst.span));
        }
        let (a, b) = (self.read_bits(a, dt)?, self.read_bits(b, dt)?);
        let dt = bit_move_type(dt);
        let ty = value_ty(dt).ok_or_else(|| unsupported(format!("`{}`", m.name()), m.inst.span))?;
        let take_a = match ct {
            ScalarType::S32 => {
                let c = self.read(c, ct)?;
                self.cmp(CmpOp::GeS, Ty::U32, c, u(0))
            }
            ScalarType::F32 => {
                let c = self.read(c, ScalarType::B32)?;
                let mag = self.bin(BinaryOp::And, Ty::U32, c, u(0x7fff_ffff));
                let positive = self.cmp(CmpOp::LtU, Ty::U32, c, u(0x8000_0000));
                let not_nan = self.cmp(CmpOp::LeU, Ty::U32, mag, u(0x7f80_0000));
                let non_negative = self.bin(BinaryOp::And, Ty::Bool, positive, not_nan);
                let zero_max = if m.has("ftz") { 0x007f_ffff } else { 0 };
                let zero = self.cmp(CmpOp::LeU, Ty::U32, mag, u(zero_max));
                self.bin(BinaryOp::Or, Ty::Bool, non_negative, zero)
            }
            _ => return Err(Diagnostic::new("`slct` compares an .s32 or .f32 operand", m.inst.span)),
        };
        let r = self.select(ty, take_a, a, b);
        self.write(d, dt, r)
    }

    /// `isspacep.space p, a` (§9.7.10.18): whether generic address a lies in the space's
    /// window. Generic addresses resolve as `ld`/`st` resolve them (see `abi`): the shared and
    /// local windows, everything else global. Without cluster launches a CTA is its own
    /// cluster, so `.shared::cluster` is `.shared::cta`. `.param` is the kernel parameters'
    /// window, in modules that take such addresses (`cvta.param`); false elsewhere.
    pub(super) fn isspacep(&mut self, m: &Mods) -> LResult<()> {
        const SPACES: [&str; 8] = ["global", "shared", "shared::cta", "shared::cluster", "local", "param", "param::entry", "const"];
        m.only(&SPACES)?;
        let [p, a] = operands(m.inst, 2)? else { unreachable!() };
        let space = m.one_of(&SPACES).ok_or_else(|| Diagnostic::new("`isspacep` needs a state space", m.inst.span))?;
        if !m.types().is_empty() {
            return Err(Diagnostic::new("`isspacep` takes no type", m.inst.span));
        }
        let a = if self.address_size == 64 {
            if let OperandKind::Symbol { name, component: None } = &a.kind {
                if matches!(self.lookup(name), Some(crate::function::Symbol::Reg { ty, .. }) if ptx_types::bits(*ty) < 64) {
                    // ptxas accepts it; what a narrower address means, PTX does not say.
                    return Err(unsupported(format!("register `{name}` narrower than 64 bits as `isspacep`'s address with .address_size 64"), a.span));
                }
            }
            self.read(a, ScalarType::U64)?
        } else {
            let a32 = self.read(a, ScalarType::U32)?;
            self.widen_address32(a32, true, true)
        };
        let in_window = |s: &mut Self, base: u64| {
            let rel = s.bin(BinaryOp::Sub, Ty::U64, a, FnLower::u64c(base));
            s.cmp(CmpOp::LtU, Ty::U64, rel, FnLower::u64c(abi::WINDOW_SIZE))
        };
        let r = match space {
            "shared" | "shared::cta" | "shared::cluster" => in_window(self, abi::SHARED_WINDOW_BASE),
            "local" => in_window(self, abi::LOCAL_WINDOW_BASE),
            "param" | "param::entry" if self.has_param_window => in_window(self, abi::PARAM_WINDOW_BASE),
            // `.const` variables are in the globals segment, laid out together after the
            // `.global` ones: the constant window is their range there.
            "const" => match self.const_window {
                Some((start, len)) => {
                    let base = self.globals_base();
                    let lo = self.bin(BinaryOp::Add, Ty::U64, base, FnLower::u64c(start));
                    let rel = self.bin(BinaryOp::Sub, Ty::U64, a, lo);
                    self.cmp(CmpOp::LtU, Ty::U64, rel, FnLower::u64c(len))
                }
                None => Operand::Const(crate::ir::Const::Bool(false)),
            },
            "global" => {
                let sh = in_window(self, abi::SHARED_WINDOW_BASE);
                let lo = in_window(self, abi::LOCAL_WINDOW_BASE);
                let mut either = self.bin(BinaryOp::Or, Ty::Bool, sh, lo);
                if self.has_param_window {
                    let pa = in_window(self, abi::PARAM_WINDOW_BASE);
                    either = self.bin(BinaryOp::Or, Ty::Bool, either, pa);
                }
                self.un(UnaryOp::Not, Ty::Bool, either)
            }
            _ => Operand::Const(crate::ir::Const::Bool(false)),
        };
        self.write(p, ScalarType::Pred, r)
    }

    /// `createpolicy.* .b64 policy, …` (§9.7.10.17): a cache policy is an opaque hint that
    /// every instruction here ignores (`.L2::cache_hint`), so any value will do: 0.
    pub(super) fn createpolicy(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["fractional", "range", "cvt", "global", "L2", "L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged"])?;
        if m.ty()? != ScalarType::B64 || m.inst.operands.is_empty() {
            return Err(Diagnostic::new(format!("`{}`: expected `.b64 policy, …`", m.name()), m.inst.span));
        }
        self.write(&m.inst.operands[0], ScalarType::B64, FnLower::u64c(0))
    }

    /// Operand `op` of a data move of type `t`, as the bits of [`bit_move_type`]: a float
    /// immediate (decimal ones rounded per `t` first) becomes its integer bits here, a float
    /// register is reinterpreted.
    fn read_bits(&mut self, op: &ast::Operand, t: ScalarType) -> LResult<Operand> {
        let v = self.read(op, t)?;
        Ok(match (v, t) {
            (Operand::Const(Const::F32(bits)), _) => Operand::Const(Const::U32(bits)),
            (Operand::Const(Const::F64(bits)), _) => Operand::Const(Const::U64(bits)),
            (v, ScalarType::F32) => self.fit(v, Ty::F32, Ty::U32, ScalarType::B32),
            (v, ScalarType::F64) => self.fit(v, Ty::F64, Ty::U64, ScalarType::B64),
            (v, _) => v,
        })
    }

    /// `selp.type d, a, b, c`: d = c ? a : b.
    pub(super) fn selp(&mut self, m: &Mods) -> LResult<()> {
        m.only(&[])?;
        let t = m.ty()?;
        let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
        let (a, b, c) = (self.read_bits(a, t)?, self.read_bits(b, t)?, self.read(c, ScalarType::Pred)?);
        self.check_operand(d, t, Check::Strict)?;
        let t = bit_move_type(t);
        let ty = value_ty(t).ok_or_else(|| unsupported(format!("`selp.{}`", t.suffix()), m.inst.span))?;
        let r = self.select(ty, c, a, b);
        self.write(d, t, r)
    }
}

/// For `mov` packing: the element type and bit width of each of `n` parts of `t`.
fn split_type(t: ScalarType, n: usize, m: &Mods) -> LResult<(ScalarType, u32)> {
    let total = ptx_types::bits(t);
    let part = match (total, n) {
        (64, 2) => ScalarType::B32,
        (64, 4) | (32, 2) => ScalarType::B16,
        (32, 4) | (16, 2) => ScalarType::B8,
        _ => return Err(Diagnostic::new(format!("`{}` cannot split into {n} parts", m.name()), m.inst.span)),
    };
    Ok((part, total / n as u32))
}

/// The type a data move (`mov`, `selp`, `slct`) carries an `.f32`/`.f64` value as: its bits.
/// These instructions copy bits (a signaling NaN stays signaling), and a float-typed select
/// or constant is not safe from drivers: NVIDIA's Vulkan driver (H200, driver 580) quieted
/// the constant 0fFF800001 in `selp.f32` (to 0xffc00001) on the SPIR-V path, where lavapipe
/// kept it (tests/differential/regressions, float seed 0x4e560131).
fn bit_move_type(t: ScalarType) -> ScalarType {
    match t {
        ScalarType::F32 => ScalarType::B32,
        ScalarType::F64 => ScalarType::B64,
        t => t,
    }
}

fn bits_type(t: ScalarType) -> ScalarType {
    match ptx_types::bits(t) {
        64 => ScalarType::B64,
        16 => ScalarType::B16,
        _ => ScalarType::B32,
    }
}

/// The variable an operand names, bare or as `var+imm`.
fn base_symbol(op: &ast::Operand) -> Option<&str> {
    match &op.kind {
        ast::OperandKind::Symbol { name, component: None } => Some(name),
        ast::OperandKind::Expr(ast::Expr::Symbol { name, .. }) => Some(name),
        ast::OperandKind::Expr(ast::Expr::Binary { lhs, .. }) => match &**lhs {
            ast::Expr::Symbol { name, .. } => Some(name),
            _ => None,
        },
        _ => None,
    }
}

/// ptxas accepts a predicate register as an element of `mov`'s vector operand, and a `0f`
/// literal as a 16-bit one; PTX defines neither (§9.7.9.10: the elements have the element
/// type).
fn undefined_element(fl: &FnLower, p: &ast::Operand, pt: ScalarType) -> LResult<()> {
    let what = match &p.kind {
        OperandKind::Symbol { name, component: None }
            if matches!(fl.lookup(name), Some(crate::function::Symbol::Reg { ty: ScalarType::Pred, .. })) =>
        {
            "a predicate register"
        }
        OperandKind::Expr(e) if matches!(crate::consts::eval(e), Ok(crate::consts::ConstValue::F32(_) | crate::consts::ConstValue::F64(_))) && ptx_types::bits(pt) < 32 => {
            "a floating-point literal"
        }
        _ => return Ok(()),
    };
    Err(unsupported(format!("{what} as a .{} element of a vector operand", pt.suffix()), p.span))
}
