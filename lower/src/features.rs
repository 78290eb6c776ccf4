//! What a kernel needs from the target, read off its IR.

use crate::ir::{Block, Const, Expr, Features, Kernel, Memory, Operand, Stmt, Ty};

pub fn compute(kernel: &Kernel) -> Features {
    let mut f = Features::default();
    for v in &kernel.vars {
        note_ty(v.ty, &mut f);
    }
    walk(&kernel.body, &mut f);
    // Called functions' operations are the kernel's (their types and constants too).
    for func in &kernel.functions {
        for v in &func.vars {
            note_ty(v.ty, &mut f);
        }
        note_ty(func.result_ty, &mut f);
        operand(&func.result, &mut f);
        walk(&func.body, &mut f);
    }
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

/// Whether assigning `expr` to a variable of type `ty` needs 64-bit floats (as `compute`
/// counts them), for `FnLower::float64_site`.
pub fn needs_float64(ty: Ty, e: &Expr) -> bool {
    let mut f = Features::default();
    note_ty(ty, &mut f);
    note_expr(e, &mut f);
    f.float64
}

fn walk(b: &Block, f: &mut Features) {
    for s in &b.stmts {
        match s {
            Stmt::Assign { expr, .. } => note_expr(expr, f),
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
            Stmt::Fence { .. } => f.fences = true,
            _ => {}
        }
    }
}

fn note_expr(expr: &Expr, f: &mut Features) {
    match expr {
        Expr::AtomicWord { memory, index, value, comparand, .. } => {
            match memory {
                Memory::Heap | Memory::Segment(_) => f.heap_atomics = true,
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
        Expr::AtomicDword { memory, index, value, comparand, .. } => {
            match memory {
                Memory::Shared => f.shared_atomics64 = true,
                _ => f.heap_atomics64 = true,
            }
            f.int64 = true;
            operand(index, f);
            operand(value, f);
            if let Some(c) = comparand {
                operand(c, f);
            }
        }
        Expr::Builtin(_) => {}
        Expr::LoadWord { memory: Memory::Param, index: Operand::Const(Const::U32(w)) }
            if *w == crate::abi::PARAM_GLOBALS_BASE_WORD =>
        {
            f.globals = true
        }
        Expr::LoadWord { index, .. } | Expr::SharedUniformLoad { index } | Expr::WarpBallot { pred: index } => operand(index, f),
        Expr::WarpShuffle { value, lane } => {
            operand(value, f);
            operand(lane, f)
        }
        Expr::LoadDword { index, .. } => {
            f.int64 = true;
            operand(index, f)
        }
        Expr::Call { ty, args, .. } => {
            note_ty(*ty, f);
            args.iter().for_each(|o| operand(o, f))
        }
    }
}

/// Which float formats' subnormals an IR expression's result can depend on, `(f32, f64)`,
/// were the target to flush them (Vulkan and WebGPU let a device do so: NVIDIA's driver flushes
/// f32 unless SPIR-V asks for `DenormPreserve`, which WGSL cannot).
///
/// Arithmetic, comparisons, min/max, neg/abs and rounding to integral all may see or make a
/// subnormal. Conversions between floats are counted on their f32 side only: widening f32
/// gives a normal f64, and an f64 subnormal narrows to a zero of f32 either way. Float ↔
/// integer conversions cannot tell: truncating a subnormal gives 0 whether it was flushed or
/// not (the rounding before it is a `Unary` and counted), and an integer never converts to a
/// subnormal. Bit casts, selects and copies move bits.
pub fn subnormal_use(expr: &Expr) -> (bool, bool) {
    use crate::ir::{BinaryOp as B, ConvertOp as C, UnaryOp as U};
    let by_ty = |t: Ty| (t == Ty::F32, t == Ty::F64);
    match expr {
        Expr::Binary { op: B::FAdd | B::FSub | B::FMul | B::FDiv | B::FMin | B::FMax, ty, .. } => by_ty(*ty),
        Expr::Unary { op: U::FNeg | U::FAbs | U::FSqrt | U::FFloor | U::FCeil | U::FTrunc | U::FRoundEven, ty, .. } => {
            by_ty(*ty)
        }
        Expr::Compare { ty, .. } => by_ty(*ty),
        Expr::Fma { ty, .. } => by_ty(*ty),
        Expr::Convert { op: C::FloatToFloat, .. } => (true, false),
        _ => (false, false),
    }
}
