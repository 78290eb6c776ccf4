//! Integer arithmetic and bit manipulation (spec §9.7.1, §9.7.7, §9.7.8).

use super::{int_type, operands, Mods};
use crate::function::{unsupported, FnLower, LResult};
use crate::ir::{BinaryOp, CmpOp, Operand, Ty, UnaryOp};
use crate::ptx_types::{self, value_ty};
use ptxcross_frontend::ast::ScalarType;
use ptxcross_frontend::Diagnostic;

impl FnLower {
    fn int_ty(&self, t: ScalarType, m: &Mods) -> LResult<Ty> {
        int_type(t, m.inst.span, &m.name())?;
        value_ty(t).ok_or_else(|| unsupported(format!("`{}`", m.name()), m.inst.span))
    }

    pub(super) fn int_arith(&mut self, m: &Mods) -> LResult<()> {
        let name = m.inst.opcode.name.as_str();
        if let Some(r) = self.packed_int(m) {
            return r;
        }
        match name {
            "add" | "sub" | "mad" if m.has("cc") => return self.carry_arith(m),
            "mad" if m.has("sat") => return self.mad_hi_sat(m),
            "mul" | "mad" => m.only(&["lo", "hi", "wide"])?,
            "add" | "sub" if m.has("sat") => return self.add_sat(m),
            _ => m.only(&[])?,
        }
        let t = m.ty()?;
        let ty = self.int_ty(t, m)?;
        let signed = ptx_types::is_signed(t);
        let ops = &m.inst.operands;
        match name {
            "add" | "sub" | "min" | "max" | "div" | "rem" => {
                let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
                let (a, b) = (self.read(a, t)?, self.read(b, t)?);
                let r = match name {
                    "add" => self.bin(BinaryOp::Add, ty, a, b),
                    "sub" => self.bin(BinaryOp::Sub, ty, a, b),
                    "min" => self.bin(if signed { BinaryOp::MinS } else { BinaryOp::MinU }, ty, a, b),
                    "max" => self.bin(if signed { BinaryOp::MaxS } else { BinaryOp::MaxU }, ty, a, b),
                    _ => self.int_div(name == "rem", signed, ty, a, b),
                };
                self.write(d, t, r)
            }
            "abs" | "neg" => {
                let [d, a] = operands(m.inst, 2)? else { unreachable!() };
                let a = self.read(a, t)?;
                let n = self.un(UnaryOp::Neg, ty, a);
                let r = if name == "neg" {
                    n
                } else {
                    if !signed {
                        return Err(Diagnostic::new("`abs` needs a signed type", m.inst.span));
                    }
                    let neg = self.cmp(CmpOp::LtS, ty, a, FnLower::int_const(ty, 0));
                    self.select(ty, neg, n, a)
                };
                self.write(d, t, r)
            }
            "mul" | "mad" => {
                let n = if name == "mad" { 4 } else { 3 };
                if ops.len() != n {
                    return Err(Diagnostic::new(format!("`{}` takes {n} operands", m.name()), m.inst.span));
                }
                let (a, b) = (self.read(&ops[1], t)?, self.read(&ops[2], t)?);
                let mode = m.one_of(&["lo", "hi", "wide"]).unwrap_or("lo");
                let bits = ptx_types::bits(t);
                let (r, rt) = match mode {
                    "lo" => (self.bin(BinaryOp::Mul, ty, a, b), t),
                    "hi" if bits == 16 => {
                        let p = self.bin(BinaryOp::Mul, Ty::U32, a, b);
                        let op = if signed { BinaryOp::ShrS } else { BinaryOp::ShrU };
                        (self.bin(op, Ty::U32, p, FnLower::u32c(16)), t)
                    }
                    "hi" => (self.bin(if signed { BinaryOp::MulHiS } else { BinaryOp::MulHiU }, ty, a, b), t),
                    _ => {
                        // .wide: the full product in the doubled type.
                        let wide_t = widen(t).ok_or_else(|| Diagnostic::new(format!("`{}` needs a 16- or 32-bit type", m.name()), m.inst.span))?;
                        if bits == 16 {
                            (self.bin(BinaryOp::Mul, Ty::U32, a, b), wide_t)
                        } else {
                            let a = self.resize(a, Ty::U32, Ty::U64, signed);
                            let b = self.resize(b, Ty::U32, Ty::U64, signed);
                            (self.bin(BinaryOp::Mul, Ty::U64, a, b), wide_t)
                        }
                    }
                };
                let r = if name == "mad" {
                    let c = self.read(&ops[3], rt)?;
                    let rty = value_ty(rt).unwrap_or(ty);
                    self.bin(BinaryOp::Add, rty, r, c)
                } else {
                    r
                };
                self.write(&ops[0], rt, r)
            }
            _ => Err(unsupported(format!("`{}`", m.name()), m.inst.span)),
        }
    }

    /// `add.sat.s32` / `sub.sat.s32` (§9.7.1.1/2): the exact result clamped to
    /// MININT..MAXINT.
    fn add_sat(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["sat"])?;
        let t = m.ty()?;
        if t != ScalarType::S32 {
            return Err(Diagnostic::new("`.sat` applies to .s32 only", m.inst.span));
        }
        let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
        let (a, b) = (self.read(a, t)?, self.read(b, t)?);
        let a = self.resize(a, Ty::U32, Ty::U64, true);
        let b = self.resize(b, Ty::U32, Ty::U64, true);
        let op = if m.inst.opcode.name.as_str() == "add" { BinaryOp::Add } else { BinaryOp::Sub };
        let r = self.bin(op, Ty::U64, a, b);
        let r = self.clamp_s64_to_s32(r);
        self.write(d, t, r)
    }

    /// `mad.hi.sat.s32` (§9.7.1.4): the high half of the product plus c, limited to
    /// MININT..MAXINT.
    fn mad_hi_sat(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["hi", "sat"])?;
        let t = m.ty()?;
        if t != ScalarType::S32 || !m.has("hi") {
            return Err(Diagnostic::new("`.sat` applies to mad.hi.s32 only", m.inst.span));
        }
        let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
        let (a, b, c) = (self.read(a, t)?, self.read(b, t)?, self.read(c, t)?);
        let hi = self.bin(BinaryOp::MulHiS, Ty::U32, a, b);
        let hi = self.resize(hi, Ty::U32, Ty::U64, true);
        let c = self.resize(c, Ty::U32, Ty::U64, true);
        let r = self.bin(BinaryOp::Add, Ty::U64, hi, c);
        let r = self.clamp_s64_to_s32(r);
        self.write(d, t, r)
    }

    /// The extended-precision instructions (§9.7.2): add.cc, addc, sub.cc, subc, mad.cc,
    /// madc. The condition code's carry flag CC.CF is a function-wide variable (0 or 1, of
    /// the instruction's width) that `.cc` forms write and `c` forms read; for sub/subc it
    /// holds the borrow, as the spec's semantics say (`d = a - (b + CC.CF)`).
    pub(super) fn carry_arith(&mut self, m: &Mods) -> LResult<()> {
        let name = m.inst.opcode.name.as_str();
        let (base, carry_in) = match name {
            "addc" => ("add", true),
            "subc" => ("sub", true),
            "madc" => ("mad", true),
            other => (other, false),
        };
        m.only(if base == "mad" { &["cc", "lo", "hi"] } else { &["cc"] })?;
        let carry_out = m.has("cc");
        let t = m.ty()?;
        if !matches!(t, ScalarType::U32 | ScalarType::S32 | ScalarType::U64 | ScalarType::S64) {
            return Err(Diagnostic::new(format!("`{}` takes .u32/.s32/.u64/.s64", m.name()), m.inst.span));
        }
        let ty = self.int_ty(t, m)?;
        let ops = operands(m.inst, if base == "mad" { 4 } else { 3 })?;
        let x = self.read(&ops[1], t)?;
        let y = self.read(&ops[2], t)?;
        // The addend pair: (x, y) for add/sub; (the product's half, c) for mad.
        let (x, y) = if base == "mad" {
            let hi = match m.one_of(&["lo", "hi"]) {
                Some(mode) => mode == "hi",
                None => return Err(Diagnostic::new(format!("`{}` needs .lo or .hi", m.name()), m.inst.span)),
            };
            let p = if hi {
                self.bin(if ptx_types::is_signed(t) { BinaryOp::MulHiS } else { BinaryOp::MulHiU }, ty, x, y)
            } else {
                self.bin(BinaryOp::Mul, ty, x, y)
            };
            (p, self.read(&ops[3], t)?)
        } else {
            (x, y)
        };
        let cf = self.carry_flag();
        let zero = FnLower::int_const(ty, 0);
        let cin = if carry_in {
            let c = Operand::Var(cf);
            self.resize(c, Ty::U32, ty, false)
        } else {
            zero
        };
        let lt = |s: &mut Self, a: Operand, b: Operand| s.cmp(CmpOp::LtU, ty, a, b);
        let (r, out) = if base == "sub" {
            let t1 = self.bin(BinaryOp::Sub, ty, x, y);
            let b1 = lt(self, x, y);
            let r = self.bin(BinaryOp::Sub, ty, t1, cin);
            let b2 = lt(self, t1, cin);
            (r, self.bin(BinaryOp::Or, Ty::Bool, b1, b2))
        } else {
            let t1 = self.bin(BinaryOp::Add, ty, x, y);
            let c1 = lt(self, t1, x);
            let r = self.bin(BinaryOp::Add, ty, t1, cin);
            let c2 = lt(self, r, t1);
            (r, self.bin(BinaryOp::Or, Ty::Bool, c1, c2))
        };
        if carry_out {
            let v = self.select(Ty::U32, out, FnLower::u32c(1), FnLower::u32c(0));
            self.assign(cf, crate::ir::Expr::Use(v));
        }
        self.write(&ops[0], t, r)
    }

    /// The variable holding CC.CF (created on first use in the function's outermost scope;
    /// variables start at 0). `cc.cf` cannot clash with a PTX identifier.
    fn carry_flag(&mut self) -> crate::ir::VarId {
        if let Some(crate::function::Symbol::Reg { var, .. }) = self.scopes[0].get("cc.cf") {
            return *var;
        }
        let var = self.new_var(Ty::U32, "CC.CF");
        self.scopes[0].insert("cc.cf".into(), crate::function::Symbol::Reg { var, ty: ScalarType::U32 });
        var
    }

    /// A signed 64-bit value clamped to the s32 range, as a U32.
    pub(super) fn clamp_s64_to_s32(&mut self, r: Operand) -> Operand {
        let r = self.bin(BinaryOp::MinS, Ty::U64, r, FnLower::u64c(i32::MAX as u64));
        let r = self.bin(BinaryOp::MaxS, Ty::U64, r, FnLower::u64c(i32::MIN as i64 as u64));
        self.resize(r, Ty::U64, Ty::U32, false)
    }

    /// mul24 / mad24 (§9.7.1.5/6): the 48-bit product of the operands' low 24 bits (sign-
    /// extended for .s32); `.lo` takes bits 31..0, `.hi` bits 47..16; mad24 adds `c` (with
    /// `.sat`, only in `.hi.s32`, the addition saturates).
    pub(super) fn mul24(&mut self, m: &Mods) -> LResult<()> {
        let mad = m.inst.opcode.name.as_str() == "mad24";
        m.only(if mad { &["lo", "hi", "sat"] } else { &["lo", "hi"] })?;
        let t = m.ty()?;
        if !matches!(t, ScalarType::U32 | ScalarType::S32) {
            return Err(Diagnostic::new(format!("`{}` takes .u32 or .s32", m.name()), m.inst.span));
        }
        let hi = match m.one_of(&["lo", "hi"]) {
            Some(mode) => mode == "hi",
            None => return Err(Diagnostic::new(format!("`{}` needs .lo or .hi", m.name()), m.inst.span)),
        };
        let sat = m.has("sat");
        if sat && !(hi && t == ScalarType::S32) {
            return Err(Diagnostic::new("`.sat` applies to mad24.hi.s32 only", m.inst.span));
        }
        let ops = operands(m.inst, if mad { 4 } else { 3 })?;
        let signed = t == ScalarType::S32;
        let mut xs = Vec::new();
        for op in &ops[1..3] {
            let v = self.read(op, t)?;
            let v = self.bin(BinaryOp::Shl, Ty::U32, v, FnLower::u32c(8));
            let v = self.bin(if signed { BinaryOp::ShrS } else { BinaryOp::ShrU }, Ty::U32, v, FnLower::u32c(8));
            xs.push(self.resize(v, Ty::U32, Ty::U64, signed));
        }
        let p = self.bin(BinaryOp::Mul, Ty::U64, xs[0], xs[1]);
        let p = if hi { self.bin(BinaryOp::ShrU, Ty::U64, p, FnLower::u32c(16)) } else { p };
        let part = self.resize(p, Ty::U64, Ty::U32, false);
        let r = if !mad {
            part
        } else {
            let c = self.read(&ops[3], t)?;
            if sat {
                let pw = self.resize(part, Ty::U32, Ty::U64, true);
                let cw = self.resize(c, Ty::U32, Ty::U64, true);
                let s = self.bin(BinaryOp::Add, Ty::U64, pw, cw);
                self.clamp_s64_to_s32(s)
            } else {
                self.bin(BinaryOp::Add, Ty::U32, part, c)
            }
        };
        self.write(&ops[0], t, r)
    }

    /// `sad.type d, a, b, c` (§9.7.1.7): d = c + ((a<b) ? b-a : a-b), wrapping.
    pub(super) fn sad(&mut self, m: &Mods) -> LResult<()> {
        m.only(&[])?;
        let t = m.ty()?;
        let ty = self.int_ty(t, m)?;
        let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
        let (a, b, c) = (self.read(a, t)?, self.read(b, t)?, self.read(c, t)?);
        let lt = self.cmp(if ptx_types::is_signed(t) { CmpOp::LtS } else { CmpOp::LtU }, ty, a, b);
        let ba = self.bin(BinaryOp::Sub, ty, b, a);
        let ab = self.bin(BinaryOp::Sub, ty, a, b);
        let diff = self.select(ty, lt, ba, ab);
        let r = self.bin(BinaryOp::Add, ty, c, diff);
        let r = self.canonicalize(r, t);
        self.write(d, t, r)
    }

    /// `bfind{.shiftamt}.type d, a` (§9.7.1.16): position of the most significant non-sign
    /// bit, 0xffffffff if none; `.shiftamt` gives msb − position instead.
    pub(super) fn bfind(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["shiftamt"])?;
        let t = m.ty()?;
        let ty = self.int_ty(t, m)?;
        let w = ptx_types::bits(t);
        if w < 32 {
            return Err(Diagnostic::new("`bfind` takes 32- or 64-bit types", m.inst.span));
        }
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        let a = self.read(a, t)?;
        let a = if ptx_types::is_signed(t) {
            let neg = self.cmp(CmpOp::LtS, ty, a, FnLower::int_const(ty, 0));
            let na = self.un(UnaryOp::Not, ty, a);
            self.select(ty, neg, na, a)
        } else {
            a
        };
        let lz = self.un(UnaryOp::CountLeadingZeros, ty, a);
        let none = self.cmp(CmpOp::Eq, Ty::U32, lz, FnLower::u32c(w));
        let r = if m.has("shiftamt") { lz } else { self.bin(BinaryOp::Sub, Ty::U32, FnLower::u32c(w - 1), lz) };
        let r = self.select(Ty::U32, none, FnLower::u32c(u32::MAX), r);
        self.write(d, ScalarType::U32, r)
    }

    /// `bmsk.mode.b32 d, a, b` (§9.7.1.22), the spec's semantics step by step.
    pub(super) fn bmsk(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["clamp", "wrap"])?;
        let clamp = match m.one_of(&["clamp", "wrap"]) {
            Some(mode) => mode == "clamp",
            None => return Err(Diagnostic::new("`bmsk` needs .clamp or .wrap", m.inst.span)),
        };
        if m.ty()? != ScalarType::B32 {
            return Err(Diagnostic::new("`bmsk` takes .b32", m.inst.span));
        }
        let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
        let (a, b) = (self.read(a, ScalarType::U32)?, self.read(b, ScalarType::U32)?);
        let u = FnLower::u32c;
        let a1 = self.bin(BinaryOp::And, Ty::U32, a, u(31));
        let b1 = self.bin(BinaryOp::And, Ty::U32, b, u(31));
        let mask0 = self.bin(BinaryOp::Shl, Ty::U32, u(u32::MAX), a1);
        let sum = self.bin(BinaryOp::Add, Ty::U32, a1, b1);
        let sum_ovf = self.cmp(CmpOp::GeU, Ty::U32, sum, u(32));
        let sum_safe = self.bin(BinaryOp::And, Ty::U32, sum, u(31));
        let mask1 = self.bin(BinaryOp::Shl, Ty::U32, u(u32::MAX), sum_safe);
        let (mask0, zero1) = if clamp {
            let pos_ovf = self.cmp(CmpOp::GeU, Ty::U32, a, u(32));
            let width_ovf = self.cmp(CmpOp::GeU, Ty::U32, b, u(32));
            let mask0 = self.select(Ty::U32, pos_ovf, u(0), mask0);
            let any = self.bin(BinaryOp::Or, Ty::Bool, sum_ovf, pos_ovf);
            (mask0, self.bin(BinaryOp::Or, Ty::Bool, any, width_ovf))
        } else {
            (mask0, sum_ovf)
        };
        let b_zero = self.cmp(CmpOp::Eq, Ty::U32, b1, u(0));
        let mask1 = self.select(Ty::U32, b_zero, u(u32::MAX), mask1);
        let mask1 = self.select(Ty::U32, zero1, u(0), mask1);
        let nm1 = self.un(UnaryOp::Not, Ty::U32, mask1);
        let r = self.bin(BinaryOp::And, Ty::U32, mask0, nm1);
        // ptxas types `d` .u32 (it refuses a floating-point register), although the
        // instruction is `.b32`.
        self.write(d, ScalarType::U32, r)
    }

    /// `szext.mode.type d, a, b` (§9.7.1.21). The spec's semantics build
    /// `d = (a & ~mask) | (sign_bit ? mask : 0)` with `mask = ~0 << (b & 31)` and the sign bit
    /// taken from `a` itself; lavapipe's LLVM 15 miscompiled exactly that shape (a masked or
    /// of `a` with a bit of `a`, like `bfi.b64` and `copysign` before it): a predicated
    /// in-place `szext.wrap.s32 r, r, 31` gave `r | (r << 1)` on both backends
    /// (differential case `xint-seed-000000001e7f0190`, 0x337b5359 → 0x77fff7fb). So the same
    /// bits are computed without masks, by two shifts: with `n = b & 31` in 1..31 and
    /// `s = 32 - n`, the low `n` bits of `a` moved to the top and back down arithmetically
    /// (`.s32`: bit n−1 replicated upward) or logically (`.u32`: zero-extended). `n == 0`
    /// gives 0 (the spec's mask is then all ones and the sign bit false), and `.clamp` with
    /// `b >= 32` gives `a` (mask 0, sign bit false) — the spec's cases, one select each.
    pub(super) fn szext(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["clamp", "wrap"])?;
        let clamp = match m.one_of(&["clamp", "wrap"]) {
            Some(mode) => mode == "clamp",
            None => return Err(Diagnostic::new("`szext` needs .clamp or .wrap", m.inst.span)),
        };
        let t = m.ty()?;
        if !matches!(t, ScalarType::U32 | ScalarType::S32) {
            return Err(Diagnostic::new("`szext` takes .u32 or .s32", m.inst.span));
        }
        let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
        let (a, b) = (self.read(a, t)?, self.read(b, ScalarType::U32)?);
        let u = FnLower::u32c;
        let n = self.bin(BinaryOp::And, Ty::U32, b, u(31));
        // (32 - n) & 31: in range for every n (0 when n == 0, whose result the select below sets).
        let s = self.bin(BinaryOp::Sub, Ty::U32, u(32), n);
        let s = self.bin(BinaryOp::And, Ty::U32, s, u(31));
        let up = self.bin(BinaryOp::Shl, Ty::U32, a, s);
        let down = if t == ScalarType::S32 { BinaryOp::ShrS } else { BinaryOp::ShrU };
        let ext = self.bin(down, Ty::U32, up, s);
        let none = self.cmp(CmpOp::Eq, Ty::U32, n, u(0));
        let mut r = self.select(Ty::U32, none, u(0), ext);
        if clamp {
            let too_large = self.cmp(CmpOp::GeU, Ty::U32, b, u(32));
            r = self.select(Ty::U32, too_large, a, r);
        }
        self.write(d, t, r)
    }

    /// dp4a / dp2a (§9.7.1.23/24): byte (and half-word) dot products accumulated into c,
    /// wrapping in 32 bits.
    pub(super) fn dot(&mut self, m: &Mods) -> LResult<()> {
        let dp2 = m.inst.opcode.name.as_str() == "dp2a";
        m.only(if dp2 { &["lo", "hi"] } else { &[] })?;
        let types = m.types();
        let [at, bt] = types.as_slice() else {
            return Err(Diagnostic::new(format!("`{}` takes two types", m.name()), m.inst.span));
        };
        let (at, bt) = (*at, *bt);
        for x in [at, bt] {
            if !matches!(x, ScalarType::U32 | ScalarType::S32) {
                return Err(Diagnostic::new(format!("`{}` takes .u32/.s32 types", m.name()), m.inst.span));
            }
        }
        let b_select = if dp2 {
            match m.one_of(&["lo", "hi"]) {
                Some("hi") => 2,
                Some(_) => 0,
                None => return Err(Diagnostic::new("`dp2a` needs .lo or .hi", m.inst.span)),
            }
        } else {
            0
        };
        let ct = if at == ScalarType::U32 && bt == ScalarType::U32 { ScalarType::U32 } else { ScalarType::S32 };
        let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
        let (a, b, c) = (self.read(a, ScalarType::U32)?, self.read(b, ScalarType::U32)?, self.read(c, ct)?);
        // Element i of width w of x, sign- or zero-extended to 32 bits.
        let elem = |s: &mut Self, x: Operand, i: u32, w: u32, signed: bool| {
            let l = s.bin(BinaryOp::Shl, Ty::U32, x, FnLower::u32c(32 - w * (i + 1)));
            s.bin(if signed { BinaryOp::ShrS } else { BinaryOp::ShrU }, Ty::U32, l, FnLower::u32c(32 - w))
        };
        let (n, aw) = if dp2 { (2, 16) } else { (4, 8) };
        let mut acc = c;
        for i in 0..n {
            let va = elem(self, a, i, aw, at == ScalarType::S32);
            let vb = elem(self, b, b_select + i, 8, bt == ScalarType::S32);
            let p = self.bin(BinaryOp::Mul, Ty::U32, va, vb);
            acc = self.bin(BinaryOp::Add, Ty::U32, acc, p);
        }
        self.write(d, ct, acc)
    }

    /// Division / remainder with PTX's undefined cases pinned down (spec §9.7.1.8 leaves
    /// division by zero "unspecified"): `x / 0` gives all ones, `x % 0` gives `x`,
    /// `MIN / -1` gives `MIN` and `MIN % -1` gives 0 — the wrap-around values.
    fn int_div(&mut self, rem: bool, signed: bool, ty: Ty, a: Operand, b: Operand) -> Operand {
        let zero = FnLower::int_const(ty, 0);
        let one = FnLower::int_const(ty, 1);
        let is_zero = self.cmp(CmpOp::Eq, ty, b, zero);
        let mut safe_b = self.select(ty, is_zero, one, b);
        if signed {
            let min = FnLower::int_const(ty, if ty == Ty::U64 { 1 << 63 } else { 1 << 31 });
            let all = FnLower::int_const(ty, u64::MAX);
            let a_min = self.cmp(CmpOp::Eq, ty, a, min);
            let b_m1 = self.cmp(CmpOp::Eq, ty, b, all);
            let ovf = self.bin(BinaryOp::And, Ty::Bool, a_min, b_m1);
            safe_b = self.select(ty, ovf, one, safe_b);
        }
        let op = match (rem, signed) {
            (false, false) => BinaryOp::DivU,
            (false, true) => BinaryOp::DivS,
            (true, false) => BinaryOp::RemU,
            (true, true) => BinaryOp::RemS,
        };
        let r = self.bin(op, ty, a, safe_b);
        let on_zero = if rem { a } else { FnLower::int_const(ty, u64::MAX) };
        self.select(ty, is_zero, on_zero, r)
    }

    /// A shift with PTX's clamping (spec §9.7.8.7/8: amounts above the width clamp to it).
    pub fn shift(&mut self, op: BinaryOp, ty: Ty, width: u32, a: Operand, amount: Operand) -> Operand {
        let ok = self.cmp(CmpOp::LtU, Ty::U32, amount, FnLower::u32c(width));
        if op == BinaryOp::ShrS {
            let amt = self.select(Ty::U32, ok, amount, FnLower::u32c(width - 1));
            self.bin(op, ty, a, amt)
        } else {
            let amt = self.select(Ty::U32, ok, amount, FnLower::u32c(0));
            let r = self.bin(op, ty, a, amt);
            self.select(ty, ok, r, FnLower::int_const(ty, 0))
        }
    }

    pub(super) fn bitwise(&mut self, m: &Mods) -> LResult<()> {
        let name = m.inst.opcode.name.as_str();
        match name {
            "shf" => m.only(&["l", "r", "wrap", "clamp"])?,
            _ => m.only(&[])?,
        }
        let t = m.ty()?;
        let ty = value_ty(t).ok_or_else(|| unsupported(format!("`{}`", m.name()), m.inst.span))?;
        match name {
            "and" | "or" | "xor" => {
                let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
                let (a, b) = (self.read(a, t)?, self.read(b, t)?);
                let op = match name {
                    "and" => BinaryOp::And,
                    "or" => BinaryOp::Or,
                    _ => BinaryOp::Xor,
                };
                let r = self.bin(op, ty, a, b);
                self.write(d, t, r)
            }
            "not" | "cnot" | "popc" | "clz" | "brev" => {
                let [d, a] = operands(m.inst, 2)? else { unreachable!() };
                let a = self.read(a, t)?;
                let (r, rt) = match name {
                    "not" => (self.un(UnaryOp::Not, ty, a), t),
                    "cnot" => {
                        let z = self.cmp(CmpOp::Eq, ty, a, FnLower::int_const(ty, 0));
                        (self.select(ty, z, FnLower::int_const(ty, 1), FnLower::int_const(ty, 0)), t)
                    }
                    "popc" => (self.un(UnaryOp::Popcount, ty, a), ScalarType::U32),
                    "clz" => (self.un(UnaryOp::CountLeadingZeros, ty, a), ScalarType::U32),
                    _ => (self.un(UnaryOp::BitReverse, ty, a), t),
                };
                self.write(d, rt, r)
            }
            "shl" | "shr" => {
                let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
                int_type(t, m.inst.span, &m.name())?;
                let a = self.read(a, t)?;
                let b = self.read(b, ScalarType::U32)?;
                let op = match (name, ptx_types::is_signed(t)) {
                    ("shl", _) => BinaryOp::Shl,
                    (_, true) => BinaryOp::ShrS,
                    _ => BinaryOp::ShrU,
                };
                let r = self.shift(op, ty, ptx_types::bits(t), a, b);
                self.write(d, t, r)
            }
            "shf" => {
                // shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of the 64-bit b:a.
                let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
                let (a, b, c) = (self.read(a, t)?, self.read(b, t)?, self.read(c, ScalarType::U32)?);
                let n = if m.has("wrap") {
                    self.bin(BinaryOp::And, Ty::U32, c, FnLower::u32c(31))
                } else {
                    self.bin(BinaryOp::MinU, Ty::U32, c, FnLower::u32c(32))
                };
                let lo = self.resize(a, Ty::U32, Ty::U64, false);
                let hi = self.resize(b, Ty::U32, Ty::U64, false);
                let hi = self.bin(BinaryOp::Shl, Ty::U64, hi, FnLower::u32c(32));
                let x = self.bin(BinaryOp::Or, Ty::U64, hi, lo);
                let r = if m.has("l") {
                    let s = self.bin(BinaryOp::Shl, Ty::U64, x, n);
                    self.bin(BinaryOp::ShrU, Ty::U64, s, FnLower::u32c(32))
                } else {
                    self.bin(BinaryOp::ShrU, Ty::U64, x, n)
                };
                let r = self.resize(r, Ty::U64, Ty::U32, false);
                self.write(d, t, r)
            }
            "bfe" => self.bfe(m, t, ty),
            "bfi" => self.bfi(m, t, ty),
            _ => Err(unsupported(format!("`{}`", m.name()), m.inst.span)),
        }
    }

    /// The position and length operands of `bfe`/`bfi` (the last two operands of `m`) as the
    /// hardware reads them. Spec §9.7.1.19/20: "Operands b and c [...] are restricted to the range
    /// 0..255"; the low 8 bits are used. Observed on an NVIDIA H200, driver 580: the 32-bit forms
    /// use the low 8 bits, the 64-bit forms use the whole 32-bit value (position 256 is past the
    /// width; measured up to 511), and the PTX JIT refuses immediates above 255, so we do too.
    fn bit_field(&mut self, m: &Mods, w: u32, pos: Operand, len: Operand) -> LResult<(Operand, Operand)> {
        let n = m.inst.operands.len();
        for (op, what) in m.inst.operands[n - 2..].iter().zip(["position", "length"]) {
            if let Some(v) = super::imm_u64(op).filter(|&v| v > 255) {
                let msg = format!("`{}`: {what} immediate out of range: {v} (the PTX JIT accepts 0..255; use a register)", m.name());
                return Err(Diagnostic::new(msg, op.span));
            }
        }
        if w == 64 {
            return Ok((pos, len));
        }
        let pos = self.bin(BinaryOp::And, Ty::U32, pos, FnLower::u32c(0xff));
        let len = self.bin(BinaryOp::And, Ty::U32, len, FnLower::u32c(0xff));
        Ok((pos, len))
    }

    /// `bfe.type d, a, pos, len` (spec §9.7.8.15).
    fn bfe(&mut self, m: &Mods, t: ScalarType, ty: Ty) -> LResult<()> {
        let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
        let (a, b, c) = (self.read(a, t)?, self.read(b, ScalarType::U32)?, self.read(c, ScalarType::U32)?);
        let w = ptx_types::bits(t);
        let signed = ptx_types::is_signed(t);
        let (pos, len) = self.bit_field(m, w, b, c)?;
        let shr = if signed { BinaryOp::ShrS } else { BinaryOp::ShrU };
        let shifted = self.shift(shr, ty, w, a, pos);
        // Keep the low `len` bits, filling above with the sign bit (signed) or zeros.
        let full = self.cmp(CmpOp::GeU, Ty::U32, len, FnLower::u32c(w));
        let is0 = self.cmp(CmpOp::Eq, Ty::U32, len, FnLower::u32c(0));
        let up = self.bin(BinaryOp::Sub, Ty::U32, FnLower::u32c(w), len);
        let up = self.select(Ty::U32, full, FnLower::u32c(0), up);
        let up = self.select(Ty::U32, is0, FnLower::u32c(0), up);
        let l = self.bin(BinaryOp::Shl, ty, shifted, up);
        let r = self.bin(shr, ty, l, up);
        let r = self.select(ty, is0, FnLower::int_const(ty, 0), r);
        // Observed on an NVIDIA H200, driver 580: the PTX JIT folds `bfe.s32` with an immediate
        // position ≥ 32 and a nonzero immediate length to all ones, whatever `a` holds (the
        // register form gives the sign bit of `a`, as the spec says). Match the bits.
        let n = m.inst.operands.len();
        let (ip, il) = (super::imm_u64(&m.inst.operands[n - 2]), super::imm_u64(&m.inst.operands[n - 1]));
        if let (true, 32, Some(p), Some(l)) = (signed, w, ip, il) {
            if p >= 32 && l != 0 {
                return self.write(d, t, FnLower::int_const(ty, u64::MAX));
            }
        }
        self.write(d, t, r)
    }

    /// `bfi.type d, f, b, pos, len` (spec §9.7.8.16).
    fn bfi(&mut self, m: &Mods, t: ScalarType, ty: Ty) -> LResult<()> {
        let [d, f, b, c, l] = operands(m.inst, 5)? else { unreachable!() };
        let (f, b) = (self.read(f, t)?, self.read(b, t)?);
        let (c, l) = (self.read(c, ScalarType::U32)?, self.read(l, ScalarType::U32)?);
        let w = ptx_types::bits(t);
        let (pos, len) = self.bit_field(m, w, c, l)?;
        let ones = FnLower::int_const(ty, u64::MAX);
        // mask = ((1 << len) - 1) << pos, clipped to the width.
        let low = self.shift(BinaryOp::Shl, ty, w, ones, len);
        let low = self.un(UnaryOp::Not, ty, low);
        let mask = self.shift(BinaryOp::Shl, ty, w, low, pos);
        let fs = self.shift(BinaryOp::Shl, ty, w, f, pos);
        // b ^ ((b ^ fs) & mask), not (b & ~mask) | (fs & mask) (same bits): lavapipe (LLVM 15)
        // computed the latter, for `bfi.b64` with a constant field under a predicate or select,
        // as if mask and ~mask were exchanged, through both backends (fuzzer seeds 0x26120584,
        // 0x261208ff, tests/differential/regressions); this shape gave the right bits.
        let x = self.bin(BinaryOp::Xor, ty, b, fs);
        let x = self.bin(BinaryOp::And, ty, x, mask);
        let r = self.bin(BinaryOp::Xor, ty, b, x);
        self.write(d, t, r)
    }

}

fn widen(t: ScalarType) -> Option<ScalarType> {
    Some(match t {
        ScalarType::U16 => ScalarType::U32,
        ScalarType::S16 => ScalarType::S32,
        ScalarType::U32 => ScalarType::U64,
        ScalarType::S32 => ScalarType::S64,
        _ => return None,
    })
}
