//! Constants a driver could misread, hidden from it (a driver workaround).
//!
//! **Selects.** Mesa's algebraic rules match constants by value, float patterns included, on selects
//! whatever their type: `select(c, 1.0, 0.0)` becomes a bool-to-float conversion, and it fired
//! on the bits of 1.0 and −0.0, so the −0.0 came out +0.0 (lavapipe, Mesa 22.3, both
//! backends, integer selects on the bits too: `max.f64 d, -0.0, x` of a negative x and
//! `selp.f64 d, 1.0, -0.0, p` gave +0; differential case `float-seed-00000000f10a0032`).
//! The constant reaches the select directly or through copies and bitcasts of it (WGSL's
//! `px_opaque_T` is inlined), so this runs on the final IR and follows values to their
//! constant. A constant with only the sign bit set (−0.0 of the select's width), or a zero
//! opposite a ±1.0, is replaced by itself XOR a zero the compiler cannot know (the parameter
//! header's zero word, `abi::PARAM_ZERO_WORD`), so no pattern can match it.
//!
//! **Float arithmetic.** Lavapipe folds `x - (-0.0)` to `x` in SPIR-V although the op is
//! `NoContraction` and even when the module declares `SignedZeroInfNanPreserve` (tried; −0 − −0 gave −0; IEEE
//! and PTX say +0: differential cases `float-seed-…f10a0007`, `…0008`, `…004b`, where an fma
//! with a zero factor and an infinite other factor also gave the addend instead of NaN). The
//! identities a compiler may apply to a zero, infinite or NaN operand are not IEEE-exact in
//! every case, so such constant operands of add, sub, mul, div, min, max and fma are hidden
//! the same way (the WGSL backend's contraction guard hides constants too; this covers both
//! backends at the IR). Other constants stay plain: the folds they allow (`x * 1.0`,
//! `x / 2.0 → x * 0.5`) are exact.

use crate::abi;
use crate::interp;
use crate::ir::BinaryOp::{FAdd, FDiv, FMax, FMin, FMul, FSub};
use crate::ir::{BinaryOp, Block, Const, ConvertOp, Expr, Kernel, Memory, Operand, Stmt, Ty, UnaryOp, VarId, VarInfo};

/// Rewrites the operands of `kernel` a driver could misread (see the module comment). Leaves
/// the kernel unchanged when it has none.
pub fn hide_misread_constants(kernel: &mut Kernel) {
    let values = kernel.value_vars();
    // The constant bits of each value that is a constant, a copy of one or a bitcast of one.
    let mut known: Vec<Option<u64>> = vec![None; kernel.vars.len()];
    fn learn(b: &Block, values: &[bool], known: &mut Vec<Option<u64>>) {
        for s in &b.stmts {
            if let Stmt::Assign { dst, expr } = s {
                if values.get(dst.index()).copied().unwrap_or(false) {
                    known[dst.index()] = match expr {
                        Expr::Use(o) => bits(*o, known),
                        // Bitcasts and f32 ↔ f64 conversions of a constant (the exact emulations
                        // widen their operands), and its negation: the IR's own rules for them.
                        Expr::Convert { op: op @ (ConvertOp::Bitcast | ConvertOp::FloatToFloat), from, to, arg } => {
                            bits(*arg, known).map(|v| interp::convert(*op, *from, *to, v))
                        }
                        Expr::Unary { op: UnaryOp::FNeg, ty, arg } => bits(*arg, known).map(|v| interp::unary(UnaryOp::FNeg, *ty, v)),
                        _ => None,
                    };
                }
            }
            for body in s.bodies() {
                learn(body, values, known);
            }
        }
    }
    learn(&kernel.body, &values, &mut known);

    let mut cx = Cx { known, vars: &mut kernel.vars, zero: None };
    rewrite(&mut kernel.body, &mut cx);
    if let Some(z) = cx.zero {
        kernel.body.stmts.insert(
            0,
            Stmt::Assign { dst: z, expr: Expr::LoadWord { memory: Memory::Param, index: Operand::Const(Const::U32(abi::PARAM_ZERO_WORD)) } },
        );
    }
}

fn bits(o: Operand, known: &[Option<u64>]) -> Option<u64> {
    match o {
        Operand::Const(Const::U32(v) | Const::F32(v)) => Some(v as u64),
        Operand::Const(Const::U64(v) | Const::F64(v)) => Some(v),
        Operand::Const(Const::Bool(_)) => None,
        Operand::Var(v) => known.get(v.index()).copied().flatten(),
    }
}

struct Cx<'a> {
    known: Vec<Option<u64>>,
    vars: &'a mut Vec<VarInfo>,
    /// The u32 zero word, loaded at the kernel's start once some operand needs it.
    zero: Option<VarId>,
}

impl Cx<'_> {
    fn var(&mut self, ty: Ty, name: &str) -> VarId {
        self.vars.push(VarInfo { ty, name: name.into() });
        VarId(self.vars.len() as u32 - 1)
    }

    /// Whether operand `x` of a select of `ty` could be misread, `y` being the other one.
    fn risky(&self, ty: Ty, x: Operand, y: Operand) -> bool {
        let sign = 1u64 << (ty.bits() - 1);
        let one = if ty.bits() == 32 { 0x3f80_0000 } else { 0x3ff0_0000_0000_0000 };
        match bits(x, &self.known) {
            Some(v) if v == sign => true,
            Some(0) => bits(y, &self.known).is_some_and(|w| w & !sign == one),
            _ => false,
        }
    }

    /// Whether `x` is a constant ±0, ±infinity or NaN of float type `ty`.
    fn special_float(&self, ty: Ty, x: Operand) -> bool {
        let Some(v) = bits(x, &self.known) else { return false };
        let (sign, exponent) = if ty == Ty::F64 { (1u64 << 63, 0x7ffu64 << 52) } else { (1 << 31, 0xffu64 << 23) };
        v & !sign == 0 || v & exponent == exponent
    }

    /// Statements computing `x` (a constant of `ty`, or a value known to be one) through an
    /// XOR with the unknown zero. A value is hidden itself, not replaced by its constant (a
    /// NaN's payload is the device's conversion's, not ours).
    fn hidden(&mut self, ty: Ty, x: Operand, out: &mut Vec<Stmt>) -> Operand {
        let zero = match self.zero {
            Some(z) => z,
            None => {
                let z = self.var(Ty::U32, "misread_constants.zero");
                self.zero = Some(z);
                z
            }
        };
        let ity = if ty.bits() == 32 { Ty::U32 } else { Ty::U64 };
        let z = if ity == Ty::U32 {
            Operand::Var(zero)
        } else {
            let z64 = self.var(Ty::U64, "misread_constants.zero64");
            out.push(Stmt::Assign { dst: z64, expr: Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: Operand::Var(zero) } });
            Operand::Var(z64)
        };
        let k = match x {
            Operand::Const(Const::U32(v) | Const::F32(v)) => Operand::Const(Const::U32(v)),
            Operand::Const(Const::U64(v) | Const::F64(v)) => Operand::Const(Const::U64(v)),
            _ if ity == ty => x,
            _ => {
                let t = self.var(ity, "misread_constants.bits");
                out.push(Stmt::Assign { dst: t, expr: Expr::Convert { op: ConvertOp::Bitcast, from: ty, to: ity, arg: x } });
                Operand::Var(t)
            }
        };
        let h = self.var(ity, "misread_constants.hidden");
        out.push(Stmt::Assign { dst: h, expr: Expr::Binary { op: BinaryOp::Xor, ty: ity, lhs: k, rhs: z } });
        if ity == ty {
            return Operand::Var(h);
        }
        let f = self.var(ty, "misread_constants.hidden");
        out.push(Stmt::Assign { dst: f, expr: Expr::Convert { op: ConvertOp::Bitcast, from: ity, to: ty, arg: Operand::Var(h) } });
        Operand::Var(f)
    }
}

fn rewrite(b: &mut Block, cx: &mut Cx) {
    let mut i = 0;
    while i < b.stmts.len() {
        for body in b.stmts[i].bodies_mut() {
            rewrite(body, cx);
        }
        let mut before = Vec::new();
        if let Stmt::Assign { expr, .. } = &mut b.stmts[i] {
            match expr {
                Expr::Select { ty, a, b: other, .. } if *ty != Ty::Bool => {
                    let ty = *ty;
                    let (ra, rb) = (cx.risky(ty, *a, *other), cx.risky(ty, *other, *a));
                    if ra {
                        *a = cx.hidden(ty, *a, &mut before);
                    }
                    if rb {
                        *other = cx.hidden(ty, *other, &mut before);
                    }
                }
                Expr::Binary { op: FAdd | FSub | FMul | FDiv | FMin | FMax, ty: ty @ (Ty::F32 | Ty::F64), lhs, rhs } => {
                    let ty = *ty;
                    for o in [lhs, rhs] {
                        if cx.special_float(ty, *o) {
                            *o = cx.hidden(ty, *o, &mut before);
                        }
                    }
                }
                Expr::Fma { ty, a, b: f, c } => {
                    let ty = *ty;
                    for o in [a, f, c] {
                        if cx.special_float(ty, *o) {
                            *o = cx.hidden(ty, *o, &mut before);
                        }
                    }
                }
                _ => {}
            }
        }
        let n = before.len();
        b.stmts.splice(i..i, before);
        i += n + 1;
    }
}
