//! Tests only (`LowerOptions::simulate_flushed_f32`): makes every f32 float operation of a
//! kernel act as on a device that flushes f32 subnormals, so that the exact mode
//! (`LowerOptions::flushed_f32`, `inst::flushed`) can be checked, adversarially, on a device
//! that keeps them (lavapipe).
//!
//! The model is the one the host's subnormal probe checks: every f32 operand of an arithmetic
//! operation, comparison, min/max, neg/abs, rounding to integral or conversion is flushed to the
//! zero of its sign before the operation, and every f32 result after it. The flush is built
//! from integer operations (bit cast, mask, compare, select), which any device runs exactly.
//! Bit casts, selects, copies, loads and stores move bits and are left alone.

use crate::ir::{BinaryOp, Block, CmpOp, Const, ConvertOp, Expr, Kernel, Operand, Stmt, Ty, UnaryOp, VarId, VarInfo};

/// Rewrites every f32 float operation of `kernel` to flush its operands and its result.
pub fn simulate_flushed_f32(kernel: &mut Kernel) {
    let mut body = std::mem::take(&mut kernel.body);
    rewrite(&mut body, &mut kernel.vars, false);
    kernel.body = body;
}

/// Rewrites every f32 `fma` of `kernel` alone to flush its operands and its result
/// (`LowerOptions::simulate_flushed_fma`: NVIDIA's Vulkan driver under `DenormPreserve`).
pub fn simulate_flushed_fma(kernel: &mut Kernel) {
    let mut body = std::mem::take(&mut kernel.body);
    rewrite(&mut body, &mut kernel.vars, true);
    kernel.body = body;
}

fn rewrite(block: &mut Block, vars: &mut Vec<VarInfo>, fma_only: bool) {
    let stmts = std::mem::take(&mut block.stmts);
    for mut s in stmts {
        match &mut s {
            Stmt::Assign { dst, expr } => {
                let (operands_f32, result_f32) =
                    if fma_only && !matches!(expr, Expr::Fma { .. }) { (false, false) } else { f32_roles(expr) };
                if operands_f32 || result_f32 {
                    let mut out = Vec::new();
                    if operands_f32 {
                        for o in operands_mut(expr) {
                            *o = flush(*o, vars, &mut out);
                        }
                    }
                    if result_f32 {
                        let raw = new_var(vars, Ty::F32);
                        out.push(Stmt::Assign { dst: raw, expr: expr.clone() });
                        let flushed = flush(Operand::Var(raw), vars, &mut out);
                        out.push(Stmt::Assign { dst: *dst, expr: Expr::Use(flushed) });
                    } else {
                        out.push(Stmt::Assign { dst: *dst, expr: expr.clone() });
                    }
                    block.stmts.extend(out);
                    continue;
                }
            }
            Stmt::If { then_body, else_body, .. } => {
                rewrite(then_body, vars, fma_only);
                rewrite(else_body, vars, fma_only);
            }
            Stmt::Switch { cases, default, .. } => {
                for c in cases.iter_mut() {
                    rewrite(&mut c.body, vars, fma_only);
                }
                rewrite(default, vars, fma_only);
            }
            Stmt::Loop { body } => rewrite(body, vars, fma_only),
            _ => {}
        }
        block.stmts.push(s);
    }
}

/// Whether `expr` is a float operation with f32 operands, and whether its result is an f32.
fn f32_roles(expr: &Expr) -> (bool, bool) {
    use BinaryOp as B;
    use ConvertOp as C;
    use UnaryOp as U;
    let f32 = |t: &Ty| *t == Ty::F32;
    match expr {
        Expr::Binary { op: B::FAdd | B::FSub | B::FMul | B::FDiv | B::FMin | B::FMax, ty, .. } => (f32(ty), f32(ty)),
        Expr::Unary { op: U::FNeg | U::FAbs | U::FSqrt | U::FFloor | U::FCeil | U::FTrunc | U::FRoundEven, ty, .. } => {
            (f32(ty), f32(ty))
        }
        Expr::Fma { ty, .. } => (f32(ty), f32(ty)),
        Expr::Compare { op: CmpOp::FEq | CmpOp::FNe | CmpOp::FLt | CmpOp::FLe | CmpOp::FGt | CmpOp::FGe, ty, .. } => {
            (f32(ty), false)
        }
        Expr::Convert { op: C::FloatToFloat | C::FloatToSint | C::FloatToUint | C::SintToFloat | C::UintToFloat, from, to, .. } => {
            (f32(from), f32(to))
        }
        _ => (false, false),
    }
}

fn operands_mut(expr: &mut Expr) -> Vec<&mut Operand> {
    match expr {
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => vec![lhs, rhs],
        Expr::Unary { arg, .. } | Expr::Convert { arg, .. } => vec![arg],
        Expr::Fma { a, b, c, .. } => vec![a, b, c],
        _ => Vec::new(),
    }
}

fn new_var(vars: &mut Vec<VarInfo>, ty: Ty) -> VarId {
    crate::ir::push_var(vars, ty, "flush_sim")
}

/// `x` (f32) with a subnormal replaced by the zero of its sign; statements go to `out`.
fn flush(x: Operand, vars: &mut Vec<VarInfo>, out: &mut Vec<Stmt>) -> Operand {
    if let Operand::Const(Const::F32(bits)) = x {
        let flushed = if bits & 0x7f80_0000 == 0 { bits & 0x8000_0000 } else { bits };
        return Operand::Const(Const::F32(flushed));
    }
    let mut let_ = |ty: Ty, expr: Expr| {
        let v = new_var(vars, ty);
        out.push(Stmt::Assign { dst: v, expr });
        Operand::Var(v)
    };
    let u = |v: u32| Operand::Const(Const::U32(v));
    let bits = let_(Ty::U32, Expr::Convert { op: ConvertOp::Bitcast, from: Ty::F32, to: Ty::U32, arg: x });
    let exp = let_(Ty::U32, Expr::Binary { op: BinaryOp::And, ty: Ty::U32, lhs: bits, rhs: u(0x7f80_0000) });
    let tiny = let_(Ty::Bool, Expr::Compare { op: CmpOp::Eq, ty: Ty::U32, lhs: exp, rhs: u(0) });
    let sign = let_(Ty::U32, Expr::Binary { op: BinaryOp::And, ty: Ty::U32, lhs: bits, rhs: u(0x8000_0000) });
    let r = let_(Ty::U32, Expr::Select { ty: Ty::U32, cond: tiny, a: sign, b: bits });
    let_(Ty::F32, Expr::Convert { op: ConvertOp::Bitcast, from: Ty::U32, to: Ty::F32, arg: r })
}
