//! 64-bit integers on targets without them: every `U64` variable becomes two `U32` halves and
//! every 64-bit operation a sequence of 32-bit ones, so the kernel needs no `Int64` capability.
//!
//! WebGPU has no 64-bit integers at all (browsers), and some Vulkan devices lack
//! `shaderInt64`; yet every nvcc kernel computes 64-bit addresses. The host asks for this pass
//! (`LowerOptions::split_int64`) where the target has no 64-bit integers; elsewhere the native
//! ops are used and this pass leaves the kernel alone.
//!
//! A split variable keeps its id for the low half (its type becomes `U32`) and gains a new
//! variable for the high half. Each result is computed into fresh temporaries before the
//! destination's halves are written, so `a = a op b` reads the old `a`. The semantics are the
//! IR's (`ir.rs`): wrapping arithmetic, shifts by less than 64, division only by non-zero
//! (and not `MIN / -1`), float → integer conversion only of values that fit. 64-bit floats are
//! out of scope: a kernel that moves bits between `U64` and `F64` is refused (a target without
//! 64-bit integers has no 64-bit floats either).

use crate::build::*;
use crate::ir::*;

/// Splits every 64-bit integer of `k`; `Err` names what cannot be split.
/// On a refusal: what could not be split, and the variable whose assignment needed it (for
/// `lower` to name the instruction that made it).
pub fn split_int64(k: &mut Kernel) -> Result<(), (String, Option<VarId>)> {
    if !k.vars.iter().any(|v| v.ty == Ty::U64) && !mentions_u64(&k.body) {
        return Ok(()); // Nothing 64-bit: the kernel stays as it is.
    }
    let n = k.vars.len();
    let mut hi = vec![None; n];
    let mut high_halves = Vec::new();
    for (i, v) in k.vars.iter_mut().enumerate() {
        if v.ty == Ty::U64 {
            v.ty = Ty::U32;
            hi[i] = Some(VarId((n + high_halves.len()) as u32));
            high_halves.push(VarInfo { ty: Ty::U32, name: format!("{}.hi", v.name).into() });
        }
    }
    k.vars.extend(high_halves);
    let body = std::mem::take(&mut k.body);
    let mut s = Splitter { vars: &mut k.vars, hi, assigning: None };
    k.body = s.block(body).map_err(|what| (what, s.assigning))?;
    Ok(())
}

/// Whether any statement uses a 64-bit integer constant or type (kernels whose variables are
/// all 32-bit may still compare or convert through 64 bits).
fn mentions_u64(b: &Block) -> bool {
    b.stmts.iter().any(|s| match s {
        Stmt::Assign { expr, .. } => expr_mentions_u64(expr),
        Stmt::If { then_body, else_body, .. } => mentions_u64(then_body) || mentions_u64(else_body),
        Stmt::Switch { cases, default, .. } => cases.iter().any(|c| mentions_u64(&c.body)) || mentions_u64(default),
        Stmt::Loop { body } => mentions_u64(body),
        _ => false,
    })
}

fn expr_mentions_u64(e: &Expr) -> bool {
    let is64 = |o: &Operand| matches!(o, Operand::Const(Const::U64(_)));
    match e {
        Expr::Use(o) => is64(o),
        Expr::Unary { ty, arg, .. } => *ty == Ty::U64 || is64(arg),
        Expr::Binary { ty, lhs, rhs, .. } | Expr::Compare { ty, lhs, rhs, .. } => *ty == Ty::U64 || is64(lhs) || is64(rhs),
        Expr::Select { ty, a, b, .. } => *ty == Ty::U64 || is64(a) || is64(b),
        Expr::Convert { from, to, .. } => *from == Ty::U64 || *to == Ty::U64,
        _ => false,
    }
}

/// A 64-bit value as its halves.
#[derive(Clone, Copy)]
struct Pair {
    lo: Operand,
    hi: Operand,
}

struct Splitter<'a> {
    vars: &'a mut Vec<VarInfo>,
    /// The high half of each split variable.
    hi: Vec<Option<VarId>>,
    /// The destination of the assignment being split.
    assigning: Option<VarId>,
}

/// Statements being built for one expanded assignment.
type Out = Vec<Stmt>;

impl Splitter<'_> {
    fn block(&mut self, b: Block) -> Result<Block, String> {
        let mut stmts = Vec::with_capacity(b.stmts.len());
        for s in b.stmts {
            match s {
                Stmt::Assign { dst, expr } => {
                    let dst_split = self.hi.get(dst.0 as usize).copied().flatten().is_some();
                    if dst_split || expr_mentions_u64(&expr) || self.reads_split(&expr) {
                        self.assigning = Some(dst);
                        self.assign(dst, expr, &mut stmts)?;
                        self.assigning = None;
                    } else {
                        stmts.push(Stmt::Assign { dst, expr });
                    }
                }
                Stmt::If { cond, then_body, else_body } => {
                    stmts.push(Stmt::If { cond, then_body: self.block(then_body)?, else_body: self.block(else_body)? })
                }
                Stmt::Switch { selector, cases, default } => {
                    let cases = cases
                        .into_iter()
                        .map(|c| Ok(SwitchCase { values: c.values, body: self.block(c.body)? }))
                        .collect::<Result<_, String>>()?;
                    stmts.push(Stmt::Switch { selector, cases, default: self.block(default)? })
                }
                Stmt::Loop { body } => stmts.push(Stmt::Loop { body: self.block(body)? }),
                other => stmts.push(other),
            }
        }
        Ok(Block { stmts })
    }

    fn is_split(&self, o: &Operand) -> bool {
        matches!(o, Operand::Var(v) if self.hi.get(v.0 as usize).copied().flatten().is_some())
    }

    fn reads_split(&self, e: &Expr) -> bool {
        match e {
            Expr::Use(o) | Expr::Unary { arg: o, .. } | Expr::Convert { arg: o, .. } => self.is_split(o),
            Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => self.is_split(lhs) || self.is_split(rhs),
            Expr::Select { a, b, .. } => self.is_split(a) || self.is_split(b),
            _ => false,
        }
    }

    fn pair(&self, o: Operand) -> Pair {
        match o {
            Operand::Const(Const::U64(v)) => Pair { lo: c32(v as u32), hi: c32((v >> 32) as u32) },
            Operand::Var(v) => match self.hi.get(v.0 as usize).copied().flatten() {
                Some(h) => Pair { lo: Operand::Var(v), hi: Operand::Var(h) },
                None => Pair { lo: o, hi: c32(0) },
            },
            other => Pair { lo: other, hi: c32(0) },
        }
    }

    fn tmp(&mut self, ty: Ty, name: &str) -> VarId {
        self.vars.push(VarInfo { ty, name: format!("int64.{name}").into() });
        VarId(self.vars.len() as u32 - 1)
    }

    fn let_(&mut self, out: &mut Out, ty: Ty, e: Expr) -> Operand {
        let t = self.tmp(ty, "t");
        out.push(assign(t, e));
        Operand::Var(t)
    }

    fn op(&mut self, out: &mut Out, op: BinaryOp, a: Operand, b: Operand) -> Operand {
        self.let_(out, Ty::U32, bin(op, Ty::U32, a, b))
    }

    fn cmp32(&mut self, out: &mut Out, op: CmpOp, a: Operand, b: Operand) -> Operand {
        self.let_(out, Ty::Bool, cmp(op, Ty::U32, a, b))
    }

    fn sel(&mut self, out: &mut Out, ty: Ty, c: Operand, a: Operand, b: Operand) -> Operand {
        self.let_(out, ty, Expr::Select { ty, cond: c, a, b })
    }

    fn sel_pair(&mut self, out: &mut Out, c: Operand, a: Pair, b: Pair) -> Pair {
        Pair { lo: self.sel(out, Ty::U32, c, a.lo, b.lo), hi: self.sel(out, Ty::U32, c, a.hi, b.hi) }
    }

    fn bool_and(&mut self, out: &mut Out, a: Operand, b: Operand) -> Operand {
        self.let_(out, Ty::Bool, bin(BinaryOp::And, Ty::Bool, a, b))
    }

    fn bool_or(&mut self, out: &mut Out, a: Operand, b: Operand) -> Operand {
        self.let_(out, Ty::Bool, bin(BinaryOp::Or, Ty::Bool, a, b))
    }

    /// 1 if `c`, else 0.
    fn as_u32(&mut self, out: &mut Out, c: Operand) -> Operand {
        self.sel(out, Ty::U32, c, c32(1), c32(0))
    }

    fn add(&mut self, out: &mut Out, a: Pair, b: Pair) -> Pair {
        let lo = self.op(out, BinaryOp::Add, a.lo, b.lo);
        let carry = self.cmp32(out, CmpOp::LtU, lo, a.lo);
        let carry = self.as_u32(out, carry);
        let hi = self.op(out, BinaryOp::Add, a.hi, b.hi);
        let hi = self.op(out, BinaryOp::Add, hi, carry);
        Pair { lo, hi }
    }

    fn sub(&mut self, out: &mut Out, a: Pair, b: Pair) -> Pair {
        let lo = self.op(out, BinaryOp::Sub, a.lo, b.lo);
        let borrow = self.cmp32(out, CmpOp::LtU, a.lo, b.lo);
        let borrow = self.as_u32(out, borrow);
        let hi = self.op(out, BinaryOp::Sub, a.hi, b.hi);
        let hi = self.op(out, BinaryOp::Sub, hi, borrow);
        Pair { lo, hi }
    }

    fn neg(&mut self, out: &mut Out, a: Pair) -> Pair {
        self.sub(out, Pair { lo: c32(0), hi: c32(0) }, a)
    }

    /// `a` is negative (as a signed 64-bit value).
    fn is_negative(&mut self, out: &mut Out, a: Pair) -> Operand {
        self.let_(out, Ty::Bool, cmp(CmpOp::LtS, Ty::U32, a.hi, c32(0)))
    }

    fn abs(&mut self, out: &mut Out, a: Pair, negative: Operand) -> Pair {
        let n = self.neg(out, a);
        self.sel_pair(out, negative, n, a)
    }

    /// `x + y` as a sum and a carry (0 or 1).
    fn add_carry(&mut self, out: &mut Out, x: Operand, y: Operand) -> (Operand, Operand) {
        let s = self.op(out, BinaryOp::Add, x, y);
        let c = self.cmp32(out, CmpOp::LtU, s, x);
        (s, self.as_u32(out, c))
    }

    fn mul_lo(&mut self, out: &mut Out, a: Pair, b: Pair) -> Pair {
        let lo = self.op(out, BinaryOp::Mul, a.lo, b.lo);
        let h0 = self.op(out, BinaryOp::MulHiU, a.lo, b.lo);
        let h1 = self.op(out, BinaryOp::Mul, a.lo, b.hi);
        let h2 = self.op(out, BinaryOp::Mul, a.hi, b.lo);
        let hi = self.op(out, BinaryOp::Add, h0, h1);
        let hi = self.op(out, BinaryOp::Add, hi, h2);
        Pair { lo, hi }
    }

    /// The high 64 bits of the unsigned 128-bit product: schoolbook on 32-bit limbs.
    fn mul_hi_u(&mut self, out: &mut Out, a: Pair, b: Pair) -> Pair {
        let p0h = self.op(out, BinaryOp::MulHiU, a.lo, b.lo);
        let p1l = self.op(out, BinaryOp::Mul, a.lo, b.hi);
        let p1h = self.op(out, BinaryOp::MulHiU, a.lo, b.hi);
        let p2l = self.op(out, BinaryOp::Mul, a.hi, b.lo);
        let p2h = self.op(out, BinaryOp::MulHiU, a.hi, b.lo);
        let p3l = self.op(out, BinaryOp::Mul, a.hi, b.hi);
        let p3h = self.op(out, BinaryOp::MulHiU, a.hi, b.hi);
        // Limb 1 = p0h + p1l + p2l: only its carries matter.
        let (l1, c1a) = self.add_carry(out, p0h, p1l);
        let (_, c1b) = self.add_carry(out, l1, p2l);
        // Limb 2 = p1h + p2h + p3l + carries of limb 1.
        let (l2, c2a) = self.add_carry(out, p1h, p2h);
        let (l2, c2b) = self.add_carry(out, l2, p3l);
        let c1 = self.op(out, BinaryOp::Add, c1a, c1b);
        let (l2, c2c) = self.add_carry(out, l2, c1);
        // Limb 3 = p3h + carries of limb 2 (cannot overflow: the product fits 128 bits).
        let l3 = self.op(out, BinaryOp::Add, p3h, c2a);
        let l3 = self.op(out, BinaryOp::Add, l3, c2b);
        let l3 = self.op(out, BinaryOp::Add, l3, c2c);
        Pair { lo: l2, hi: l3 }
    }

    /// Signed high half: the unsigned one, less `b` if `a < 0` and less `a` if `b < 0`.
    fn mul_hi_s(&mut self, out: &mut Out, a: Pair, b: Pair) -> Pair {
        let u = self.mul_hi_u(out, a, b);
        let zero = Pair { lo: c32(0), hi: c32(0) };
        let an = self.is_negative(out, a);
        let bn = self.is_negative(out, b);
        let fix_a = self.sel_pair(out, an, b, zero);
        let fix_b = self.sel_pair(out, bn, a, zero);
        let r = self.sub(out, u, fix_a);
        self.sub(out, r, fix_b)
    }

    /// Shifts by `s` (a `U32` below 64). The carried bits use `(x >> 1) >> (31 - s)`, which is
    /// 0 for `s = 0` without a shift by 32 (not allowed on `U32`).
    fn shl(&mut self, out: &mut Out, a: Pair, s: Operand) -> Pair {
        let s5 = self.op(out, BinaryOp::And, s, c32(31));
        let inv = self.op(out, BinaryOp::Sub, c32(31), s5);
        let big = self.cmp32(out, CmpOp::GeU, s, c32(32));
        let lo_s = self.op(out, BinaryOp::Shl, a.lo, s5);
        let hi_s = self.op(out, BinaryOp::Shl, a.hi, s5);
        let half = self.op(out, BinaryOp::ShrU, a.lo, c32(1));
        let carried = self.op(out, BinaryOp::ShrU, half, inv);
        let hi_small = self.op(out, BinaryOp::Or, hi_s, carried);
        let lo = self.sel(out, Ty::U32, big, c32(0), lo_s);
        let hi = self.sel(out, Ty::U32, big, lo_s, hi_small);
        Pair { lo, hi }
    }

    fn shr(&mut self, out: &mut Out, a: Pair, s: Operand, signed: bool) -> Pair {
        let shift = if signed { BinaryOp::ShrS } else { BinaryOp::ShrU };
        let s5 = self.op(out, BinaryOp::And, s, c32(31));
        let inv = self.op(out, BinaryOp::Sub, c32(31), s5);
        let big = self.cmp32(out, CmpOp::GeU, s, c32(32));
        let lo_s = self.op(out, BinaryOp::ShrU, a.lo, s5);
        let hi_s = self.op(out, shift, a.hi, s5);
        let doubled = self.op(out, BinaryOp::Shl, a.hi, c32(1));
        let carried = self.op(out, BinaryOp::Shl, doubled, inv);
        let lo_small = self.op(out, BinaryOp::Or, lo_s, carried);
        let fill = if signed { self.op(out, BinaryOp::ShrS, a.hi, c32(31)) } else { c32(0) };
        let lo = self.sel(out, Ty::U32, big, hi_s, lo_small);
        let hi = self.sel(out, Ty::U32, big, fill, hi_s);
        Pair { lo, hi }
    }

    fn compare(&mut self, out: &mut Out, op: CmpOp, a: Pair, b: Pair) -> Result<Operand, String> {
        Ok(match op {
            CmpOp::Eq => {
                let eq_hi = self.cmp32(out, CmpOp::Eq, a.hi, b.hi);
                let eq_lo = self.cmp32(out, CmpOp::Eq, a.lo, b.lo);
                self.bool_and(out, eq_hi, eq_lo)
            }
            CmpOp::Ne => {
                let ne_lo = self.cmp32(out, CmpOp::Ne, a.lo, b.lo);
                let ne_hi = self.cmp32(out, CmpOp::Ne, a.hi, b.hi);
                self.bool_or(out, ne_hi, ne_lo)
            }
            // The high halves decide (signed or not), the low halves (always unsigned) break a tie.
            CmpOp::LtU | CmpOp::LeU | CmpOp::GtU | CmpOp::GeU | CmpOp::LtS | CmpOp::LeS | CmpOp::GtS | CmpOp::GeS => {
                let (strict_hi, lo_op) = match op {
                    CmpOp::LtU => (CmpOp::LtU, CmpOp::LtU),
                    CmpOp::LeU => (CmpOp::LtU, CmpOp::LeU),
                    CmpOp::GtU => (CmpOp::GtU, CmpOp::GtU),
                    CmpOp::GeU => (CmpOp::GtU, CmpOp::GeU),
                    CmpOp::LtS => (CmpOp::LtS, CmpOp::LtU),
                    CmpOp::LeS => (CmpOp::LtS, CmpOp::LeU),
                    CmpOp::GtS => (CmpOp::GtS, CmpOp::GtU),
                    _ => (CmpOp::GtS, CmpOp::GeU),
                };
                let hi_decides = self.cmp32(out, strict_hi, a.hi, b.hi);
                let eq_hi = self.cmp32(out, CmpOp::Eq, a.hi, b.hi);
                let lo = self.cmp32(out, lo_op, a.lo, b.lo);
                let tie = self.bool_and(out, eq_hi, lo);
                self.bool_or(out, hi_decides, tie)
            }
            other => return Err(format!("64-bit integer comparison {other:?}")),
        })
    }

    /// Unsigned quotient and remainder (`b != 0`): 32-bit division when both fit 32 bits,
    /// else restoring binary long division, one quotient bit per iteration.
    fn divrem_u(&mut self, out: &mut Out, a: Pair, b: Pair) -> Result<(Pair, Pair), String> {
        let q = (self.tmp(Ty::U32, "q.lo"), self.tmp(Ty::U32, "q.hi"));
        let r = (self.tmp(Ty::U32, "r.lo"), self.tmp(Ty::U32, "r.hi"));
        let i = self.tmp(Ty::U32, "bit");
        let mut fast = Vec::new();
        fast.push(assign(q.0, bin(BinaryOp::DivU, Ty::U32, a.lo, b.lo)));
        fast.push(assign(r.0, bin(BinaryOp::RemU, Ty::U32, a.lo, b.lo)));
        fast.extend([copy(q.1, c32(0)), copy(r.1, c32(0))]);

        let mut slow = vec![copy(q.0, c32(0)), copy(q.1, c32(0)), copy(r.0, c32(0)), copy(r.1, c32(0)), copy(i, c32(64))];
        let mut body = Vec::new();
        let done = self.cmp32(&mut body, CmpOp::Eq, Operand::Var(i), c32(0));
        body.push(if_(done, vec![Stmt::Break], vec![]));
        body.push(assign(i, bin(BinaryOp::Sub, Ty::U32, i, c32(1))));
        // r = (r << 1) | bit i of a
        let high = self.cmp32(&mut body, CmpOp::GeU, Operand::Var(i), c32(32));
        let word = self.sel(&mut body, Ty::U32, high, a.hi, a.lo);
        let i5 = self.op(&mut body, BinaryOp::And, Operand::Var(i), c32(31));
        let shifted = self.op(&mut body, BinaryOp::ShrU, word, i5);
        let bit = self.op(&mut body, BinaryOp::And, shifted, c32(1));
        let top = self.op(&mut body, BinaryOp::ShrU, Operand::Var(r.0), c32(31));
        let rh = self.op(&mut body, BinaryOp::Shl, Operand::Var(r.1), c32(1));
        body.push(assign(r.1, bin(BinaryOp::Or, Ty::U32, rh, top)));
        let rl = self.op(&mut body, BinaryOp::Shl, Operand::Var(r.0), c32(1));
        body.push(assign(r.0, bin(BinaryOp::Or, Ty::U32, rl, bit)));
        // if r >= b { r -= b; q |= 1 << i }
        let rp = Pair { lo: Operand::Var(r.0), hi: Operand::Var(r.1) };
        let ge = self.compare(&mut body, CmpOp::GeU, rp, b)?;
        let mut take = Vec::new();
        let diff = self.sub(&mut take, rp, b);
        take.extend([copy(r.0, diff.lo), copy(r.1, diff.hi)]);
        let one = self.op(&mut take, BinaryOp::Shl, c32(1), i5);
        let into_hi = self.sel(&mut take, Ty::U32, high, one, c32(0));
        let into_lo = self.sel(&mut take, Ty::U32, high, c32(0), one);
        take.push(assign(q.0, bin(BinaryOp::Or, Ty::U32, q.0, into_lo)));
        take.push(assign(q.1, bin(BinaryOp::Or, Ty::U32, q.1, into_hi)));
        body.push(if_(ge, take, vec![]));
        slow.push(loop_(body));

        let a_small = self.cmp32(out, CmpOp::Eq, a.hi, c32(0));
        let b_small = self.cmp32(out, CmpOp::Eq, b.hi, c32(0));
        let both = self.bool_and(out, a_small, b_small);
        out.push(if_(both, fast, slow));
        Ok((Pair { lo: Operand::Var(q.0), hi: Operand::Var(q.1) }, Pair { lo: Operand::Var(r.0), hi: Operand::Var(r.1) }))
    }

    /// Signed: on magnitudes; the quotient is negative when the signs differ, the remainder
    /// has the dividend's sign (truncating division).
    fn divrem_s(&mut self, out: &mut Out, a: Pair, b: Pair) -> Result<(Pair, Pair), String> {
        let an = self.is_negative(out, a);
        let bn = self.is_negative(out, b);
        let ma = self.abs(out, a, an);
        let mb = self.abs(out, b, bn);
        let (q, r) = self.divrem_u(out, ma, mb)?;
        let differ = self.let_(out, Ty::Bool, cmp(CmpOp::Ne, Ty::Bool, an, bn));
        let q = self.abs(out, q, differ);
        let r = self.abs(out, r, an);
        Ok((q, r))
    }

    /// Unsigned 64-bit → f32, rounded to nearest even: the top 32 significant bits, with a
    /// sticky bit for the rest in bit 0 (below f32's rounding position), converted once and
    /// scaled by an exact power of two.
    fn u64_to_f32(&mut self, out: &mut Out, a: Pair) -> Operand {
        let small = self.let_(out, Ty::F32, conv(ConvertOp::UintToFloat, Ty::U32, Ty::F32, a.lo));
        let n = self.let_(out, Ty::U32, un(UnaryOp::CountLeadingZeros, Ty::U32, a.hi));
        let norm = self.shl(out, a, n);
        let sticky = self.cmp32(out, CmpOp::Ne, norm.lo, c32(0));
        let sticky = self.as_u32(out, sticky);
        let m = self.op(out, BinaryOp::Or, norm.hi, sticky);
        let f = self.let_(out, Ty::F32, conv(ConvertOp::UintToFloat, Ty::U32, Ty::F32, m));
        // 2^(32 - n) as f32 bits: exponent field 127 + 32 - n.
        let e = self.op(out, BinaryOp::Sub, c32(159), n);
        let e = self.op(out, BinaryOp::Shl, e, c32(23));
        let scale = self.let_(out, Ty::F32, conv(ConvertOp::Bitcast, Ty::U32, Ty::F32, e));
        let big = self.let_(out, Ty::F32, bin(BinaryOp::FMul, Ty::F32, f, scale));
        let fits = self.cmp32(out, CmpOp::Eq, a.hi, c32(0));
        self.sel(out, Ty::F32, fits, small, big)
    }

    /// f32 → unsigned 64-bit, truncating (the IR's precondition: not NaN, fits): 32-bit
    /// conversion below 2^32, else the significand shifted into place.
    fn f32_to_u64(&mut self, out: &mut Out, x: Operand) -> Pair {
        let fits = self.let_(out, Ty::Bool, cmp(CmpOp::FLt, Ty::F32, x, cf32(4294967296.0)));
        // Clamped so the 32-bit conversion's own precondition holds on the other path too.
        let clamped = self.sel(out, Ty::F32, fits, x, cf32(0.0));
        let small = self.let_(out, Ty::U32, conv(ConvertOp::FloatToUint, Ty::F32, Ty::U32, clamped));
        let bits = self.let_(out, Ty::U32, conv(ConvertOp::Bitcast, Ty::F32, Ty::U32, x));
        let e = self.op(out, BinaryOp::ShrU, bits, c32(23));
        let e = self.op(out, BinaryOp::And, e, c32(0xff));
        let m = self.op(out, BinaryOp::And, bits, c32(0x7f_ffff));
        let m = self.op(out, BinaryOp::Or, m, c32(0x80_0000));
        // value = m * 2^(e - 150); e ≥ 159 here, and < 191 since the value fits.
        let s = self.op(out, BinaryOp::Sub, e, c32(150));
        let s = self.op(out, BinaryOp::And, s, c32(63));
        let big = self.shl(out, Pair { lo: m, hi: c32(0) }, s);
        self.sel_pair(out, fits, Pair { lo: small, hi: c32(0) }, big)
    }

    /// Expands `dst = expr` where 64-bit integers are involved.
    fn assign(&mut self, dst: VarId, expr: Expr, stmts: &mut Out) -> Result<(), String> {
        let mut out = Vec::new();
        enum R {
            Pair(Pair),
            One(Operand),
        }
        let r = match expr {
            Expr::Use(o) => {
                let p = self.pair(o);
                if self.hi[dst.0 as usize].is_some() {
                    R::Pair(p)
                } else {
                    R::One(p.lo)
                }
            }
            Expr::Unary { op, ty: Ty::U64, arg } => {
                let a = self.pair(arg);
                match op {
                    UnaryOp::Not => R::Pair(Pair {
                        lo: self.let_(&mut out, Ty::U32, un(UnaryOp::Not, Ty::U32, a.lo)),
                        hi: self.let_(&mut out, Ty::U32, un(UnaryOp::Not, Ty::U32, a.hi)),
                    }),
                    UnaryOp::Neg => R::Pair(self.neg(&mut out, a)),
                    UnaryOp::Popcount => {
                        let l = self.let_(&mut out, Ty::U32, un(UnaryOp::Popcount, Ty::U32, a.lo));
                        let h = self.let_(&mut out, Ty::U32, un(UnaryOp::Popcount, Ty::U32, a.hi));
                        R::One(self.op(&mut out, BinaryOp::Add, l, h))
                    }
                    UnaryOp::CountLeadingZeros => {
                        let l = self.let_(&mut out, Ty::U32, un(UnaryOp::CountLeadingZeros, Ty::U32, a.lo));
                        let l = self.op(&mut out, BinaryOp::Add, l, c32(32));
                        let h = self.let_(&mut out, Ty::U32, un(UnaryOp::CountLeadingZeros, Ty::U32, a.hi));
                        let hi_zero = self.cmp32(&mut out, CmpOp::Eq, a.hi, c32(0));
                        R::One(self.sel(&mut out, Ty::U32, hi_zero, l, h))
                    }
                    UnaryOp::BitReverse => R::Pair(Pair {
                        lo: self.let_(&mut out, Ty::U32, un(UnaryOp::BitReverse, Ty::U32, a.hi)),
                        hi: self.let_(&mut out, Ty::U32, un(UnaryOp::BitReverse, Ty::U32, a.lo)),
                    }),
                    other => return Err(format!("64-bit integer operation {other:?}")),
                }
            }
            Expr::Binary { op, ty: Ty::U64, lhs, rhs } => {
                let a = self.pair(lhs);
                let shift_amount = rhs;
                let b = self.pair(rhs);
                R::Pair(match op {
                    BinaryOp::Add => self.add(&mut out, a, b),
                    BinaryOp::Sub => self.sub(&mut out, a, b),
                    BinaryOp::Mul => self.mul_lo(&mut out, a, b),
                    BinaryOp::MulHiU => self.mul_hi_u(&mut out, a, b),
                    BinaryOp::MulHiS => self.mul_hi_s(&mut out, a, b),
                    BinaryOp::DivU => self.divrem_u(&mut out, a, b)?.0,
                    BinaryOp::RemU => self.divrem_u(&mut out, a, b)?.1,
                    BinaryOp::DivS => self.divrem_s(&mut out, a, b)?.0,
                    BinaryOp::RemS => self.divrem_s(&mut out, a, b)?.1,
                    BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
                        Pair { lo: self.op(&mut out, op, a.lo, b.lo), hi: self.op(&mut out, op, a.hi, b.hi) }
                    }
                    BinaryOp::Shl => self.shl(&mut out, a, shift_amount),
                    BinaryOp::ShrU => self.shr(&mut out, a, shift_amount, false),
                    BinaryOp::ShrS => self.shr(&mut out, a, shift_amount, true),
                    BinaryOp::MinU | BinaryOp::MinS | BinaryOp::MaxU | BinaryOp::MaxS => {
                        let c = match op {
                            BinaryOp::MinU => CmpOp::LtU,
                            BinaryOp::MinS => CmpOp::LtS,
                            BinaryOp::MaxU => CmpOp::GtU,
                            _ => CmpOp::GtS,
                        };
                        let first = self.compare(&mut out, c, a, b)?;
                        self.sel_pair(&mut out, first, a, b)
                    }
                    other => return Err(format!("64-bit integer operation {other:?}")),
                })
            }
            Expr::Compare { op, ty: Ty::U64, lhs, rhs } => {
                let (a, b) = (self.pair(lhs), self.pair(rhs));
                R::One(self.compare(&mut out, op, a, b)?)
            }
            Expr::Select { ty: Ty::U64, cond, a, b } => {
                let (a, b) = (self.pair(a), self.pair(b));
                R::Pair(self.sel_pair(&mut out, cond, a, b))
            }
            Expr::Convert { op, from, to, arg } => match (op, from, to) {
                (ConvertOp::Truncate, Ty::U64, Ty::U32) => R::One(self.pair(arg).lo),
                (ConvertOp::ZeroExtend, Ty::U32, Ty::U64) => R::Pair(Pair { lo: arg, hi: c32(0) }),
                (ConvertOp::SignExtend, Ty::U32, Ty::U64) => {
                    R::Pair(Pair { lo: arg, hi: self.op(&mut out, BinaryOp::ShrS, arg, c32(31)) })
                }
                (ConvertOp::UintToFloat, Ty::U64, Ty::F32) => {
                    let a = self.pair(arg);
                    R::One(self.u64_to_f32(&mut out, a))
                }
                (ConvertOp::SintToFloat, Ty::U64, Ty::F32) => {
                    let a = self.pair(arg);
                    let n = self.is_negative(&mut out, a);
                    let m = self.abs(&mut out, a, n);
                    let f = self.u64_to_f32(&mut out, m);
                    let neg = self.let_(&mut out, Ty::F32, un(UnaryOp::FNeg, Ty::F32, f));
                    R::One(self.sel(&mut out, Ty::F32, n, neg, f))
                }
                (ConvertOp::FloatToUint, Ty::F32, Ty::U64) => R::Pair(self.f32_to_u64(&mut out, arg)),
                (ConvertOp::FloatToSint, Ty::F32, Ty::U64) => {
                    let n = self.let_(&mut out, Ty::Bool, cmp(CmpOp::FLt, Ty::F32, arg, cf32(0.0)));
                    let m = self.let_(&mut out, Ty::F32, un(UnaryOp::FAbs, Ty::F32, arg));
                    let u = self.f32_to_u64(&mut out, m);
                    R::Pair(self.abs(&mut out, u, n))
                }
                (op, from, to) if from == Ty::U64 || to == Ty::U64 => {
                    return Err(format!("64-bit floats (here a {op:?} from {from:?} to {to:?})"))
                }
                (op, from, to) => {
                    // Not 64-bit itself; reached because an operand was a 64-bit constant.
                    R::One(self.let_(&mut out, to, Expr::Convert { op, from, to, arg }))
                }
            },
            // The target's 64-bit atomics on the heap's u64 view or on shared doublewords
            // (`shared64`): nothing to split them into.
            Expr::AtomicDword { .. } | Expr::LoadDword { .. } => return Err("a 64-bit atomic whose old value is used (or an f64 atomic add)".into()),
            other => return Err(format!("64-bit integers in {other:?}")),
        };
        stmts.extend(out);
        match (r, self.hi[dst.0 as usize]) {
            (R::Pair(p), Some(h)) => {
                stmts.push(copy(dst, p.lo));
                stmts.push(copy(h, p.hi));
            }
            (R::One(o), None) => stmts.push(copy(dst, o)),
            (R::Pair(_), None) | (R::One(_), Some(_)) => {
                return Err(format!("a 64-bit value assigned to a variable of another width ({})", self.vars[dst.0 as usize].name))
            }
        }
        Ok(())
    }
}
