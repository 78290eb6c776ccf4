//! Shorthand constructors for IR written by hand: backend tests, the host's probe kernels.
//! Lowering itself builds IR through `function::FnLower`, which also folds constants.

use crate::ir::*;

pub fn c32(v: u32) -> Operand {
    Operand::Const(Const::U32(v))
}
pub fn c64(v: u64) -> Operand {
    Operand::Const(Const::U64(v))
}
pub fn cf32(v: f32) -> Operand {
    Operand::Const(Const::F32(v.to_bits()))
}
pub fn cf64(v: f64) -> Operand {
    Operand::Const(Const::F64(v.to_bits()))
}
pub fn cbool(v: bool) -> Operand {
    Operand::Const(Const::Bool(v))
}
pub fn var(v: VarId) -> Operand {
    Operand::Var(v)
}
pub fn assign(dst: VarId, expr: Expr) -> Stmt {
    Stmt::Assign { dst, expr }
}
pub fn copy(dst: VarId, o: impl Into<Operand>) -> Stmt {
    assign(dst, Expr::Use(o.into()))
}
pub fn un(op: UnaryOp, ty: Ty, arg: impl Into<Operand>) -> Expr {
    Expr::Unary { op, ty, arg: arg.into() }
}
pub fn bin(op: BinaryOp, ty: Ty, lhs: impl Into<Operand>, rhs: impl Into<Operand>) -> Expr {
    Expr::Binary { op, ty, lhs: lhs.into(), rhs: rhs.into() }
}
pub fn cmp(op: CmpOp, ty: Ty, lhs: impl Into<Operand>, rhs: impl Into<Operand>) -> Expr {
    Expr::Compare { op, ty, lhs: lhs.into(), rhs: rhs.into() }
}
pub fn conv(op: ConvertOp, from: Ty, to: Ty, arg: impl Into<Operand>) -> Expr {
    Expr::Convert { op, from, to, arg: arg.into() }
}
pub fn load(memory: Memory, index: impl Into<Operand>) -> Expr {
    Expr::LoadWord { memory, index: index.into() }
}
pub fn store(memory: Memory, index: impl Into<Operand>, value: impl Into<Operand>) -> Stmt {
    Stmt::StoreWord { memory, index: index.into(), value: value.into() }
}
pub fn if_(cond: impl Into<Operand>, then_body: Vec<Stmt>, else_body: Vec<Stmt>) -> Stmt {
    Stmt::If { cond: cond.into(), then_body: Block { stmts: then_body }, else_body: Block { stmts: else_body } }
}
pub fn loop_(body: Vec<Stmt>) -> Stmt {
    Stmt::Loop { body: Block { stmts: body } }
}
pub fn module(kernels: Vec<Kernel>) -> Module {
    Module { kernels, globals: GlobalSegment::default() }
}
