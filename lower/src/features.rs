//! What a kernel needs from the target, read off its IR.

use crate::ir::{Block, Const, Expr, Features, Kernel, Memory, Operand, Stmt, Ty};

pub fn compute(kernel: &Kernel) -> Features {
    let mut f = Features::default();
    for v in &kernel.vars {
        note_ty(v.ty, &mut f);
    }
    walk(&kernel.body, &mut f);
    f
}

fn note_ty(t: Ty, f: &mut Features) {
    match t {
        Ty::U64 => f.int64 = true,
        Ty::F64 => f.float64 = true,
        _ => {}
    }
}

fn operand(o: &Operand, f: &mut Features) {
    if let Operand::Const(c) = o {
        match c {
            Const::U64(_) => f.int64 = true,
            Const::F64(_) => f.float64 = true,
            _ => {}
        }
    }
}

fn walk(b: &Block, f: &mut Features) {
    for s in &b.stmts {
        match s {
            Stmt::Assign { expr, .. } => match expr {
                Expr::AtomicWord { memory, index, value, comparand, .. } => {
                    match memory {
                        Memory::Heap => f.heap_atomics = true,
                        Memory::Shared => f.shared_atomics = true,
                        _ => {}
                    }
                    operand(index, f);
                    operand(value, f);
                    if let Some(c) = comparand {
                        operand(c, f);
                    }
                }
                Expr::Use(a) | Expr::Unary { arg: a, .. } | Expr::Convert { arg: a, .. } => {
                    operand(a, f);
                    if let Expr::Convert { from, to, .. } = expr {
                        note_ty(*from, f);
                        note_ty(*to, f);
                    }
                }
                Expr::Binary { lhs, rhs, ty, .. } | Expr::Compare { lhs, rhs, ty, .. } => {
                    note_ty(*ty, f);
                    operand(lhs, f);
                    operand(rhs, f)
                }
                Expr::Fma { ty, a, b, c } => {
                    note_ty(*ty, f);
                    [a, b, c].into_iter().for_each(|o| operand(o, f))
                }
                Expr::Select { ty, cond, a, b } => {
                    note_ty(*ty, f);
                    [cond, a, b].into_iter().for_each(|o| operand(o, f))
                }
                Expr::AtomicDword { index, value, comparand, .. } => {
                    f.heap_atomics64 = true;
                    f.int64 = true;
                    operand(index, f);
                    operand(value, f);
                    if let Some(c) = comparand {
                        operand(c, f);
                    }
                }
                Expr::Builtin(_) => {}
                Expr::LoadWord { index, .. } | Expr::SharedUniformLoad { index } => operand(index, f),
            },
            Stmt::StoreWord { index, value, .. } => {
                operand(index, f);
                operand(value, f)
            }
            Stmt::If { cond, then_body, else_body } => {
                operand(cond, f);
                walk(then_body, f);
                walk(else_body, f)
            }
            Stmt::Switch {
                selector,
                cases,
                default,
            } => {
                operand(selector, f);
                cases.iter().for_each(|c| walk(&c.body, f));
                walk(default, f)
            }
            Stmt::Loop { body } => walk(body, f),
            _ => {}
        }
    }
}
