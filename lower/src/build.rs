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
/// `dst` = the linear thread id `(tid.z * ntid.y + tid.y) * ntid.x + tid.x` in a block of
/// `workgroup_size`, with `tmp` as a temporary.
pub fn linear_thread_id(dst: VarId, tmp: VarId, workgroup_size: [u32; 3]) -> Vec<Stmt> {
    let [bx, by, _] = workgroup_size;
    vec![
        assign(dst, Expr::Builtin(Builtin::ThreadId(2))),
        assign(dst, bin(BinaryOp::Mul, Ty::U32, dst, c32(by))),
        assign(tmp, Expr::Builtin(Builtin::ThreadId(1))),
        assign(dst, bin(BinaryOp::Add, Ty::U32, dst, tmp)),
        assign(dst, bin(BinaryOp::Mul, Ty::U32, dst, c32(bx))),
        assign(tmp, Expr::Builtin(Builtin::ThreadId(0))),
        assign(dst, bin(BinaryOp::Add, Ty::U32, dst, tmp)),
    ]
}

pub fn module(kernels: Vec<Kernel>) -> Module {
    Module { kernels, globals: GlobalSegment::default() }
}
