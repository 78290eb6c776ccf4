//! 64-bit shifts left by 31 hidden from a driver that narrows them wrongly (a driver
//! workaround).
//!
//! NVIDIA's Vulkan driver (580.159, H100 and H200, 2026-11-27) computes `(i64)x << 31` for a
//! sign-extended 32-bit `x` as `-(x << 31)`, on both backends (our SPIR-V and naga's from our
//! WGSL; lavapipe computes it right). The values fit rewriting the shift into a 32 × 32 → 64-bit
//! signed multiply by `1 << 31`, a constant that as a signed 32-bit number is −2^31. Found by
//! the cudafuzz case `tests/cudafuzz/cases/0xc0da5001` (clang's `__hadd`: `cvt.s64.s32`,
//! `shl.b64 …, 31`, `add.s64`, `shr.s64 …, 32`), pinned down by dumping that chain on the
//! device (`docs/nvidia.md`). The rule here: every 64-bit `shl` by the constant 31 shifts by
//! `31 ^ zero` instead, with the parameter header's zero word (`abi::PARAM_ZERO_WORD`) that
//! no compiler can know, so no pattern can match; and a 64-bit multiply by the constant 2^31
//! (the same operation; unconfirmed on the device, hidden for the same reason) multiplies by
//! `2^31 ^ zero`. The cost is one load per kernel and one XOR per such operation, in the
//! kernels that have one (rare: `__hadd`-like idioms). Kernel bodies only: a function
//! outlined by `lower` cannot read the parameter header (its zero comes from the caller), and
//! none of their rules shifts a 64-bit value by 31.

use crate::abi;
use crate::ir::{push_var, BinaryOp, Block, Const, ConvertOp, Expr, Kernel, Memory, Operand, Stmt, Ty, VarId, VarInfo};

/// The constant operand of `e` that the driver may narrow wrongly: the amount of a 64-bit
/// `shl` by 31, or a 64-bit multiply's factor 2^31. `true` for the right-hand operand.
fn narrowed_operand(e: &Expr) -> Option<bool> {
    match *e {
        Expr::Binary { op: BinaryOp::Shl, ty: Ty::U64, rhs: Operand::Const(Const::U32(31) | Const::U64(31)), .. } => Some(true),
        Expr::Binary { op: BinaryOp::Mul, ty: Ty::U64, lhs, rhs } => {
            let two31 = |o: Operand| matches!(o, Operand::Const(Const::U64(0x8000_0000)));
            if two31(rhs) {
                Some(true)
            } else if two31(lhs) {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Rewrites the operations of `kernel`'s body that a driver may narrow wrongly (see the module
/// comment). Leaves the kernel unchanged when it has none.
pub fn hide_narrowed_shifts(kernel: &mut Kernel) {
    if !kernel.body.any_assign(&|e| narrowed_operand(e).is_some()) {
        return;
    }
    let z = push_var(&mut kernel.vars, Ty::U32, "narrowed_shifts.zero");
    let z64 = push_var(&mut kernel.vars, Ty::U64, "narrowed_shifts.zero");
    fn rewrite(b: &mut Block, vars: &mut Vec<VarInfo>, z: VarId, z64: VarId) {
        let mut out = Vec::with_capacity(b.stmts.len());
        for mut s in std::mem::take(&mut b.stmts) {
            if let Stmt::Assign { expr, .. } = &mut s {
                if let (Some(right), Expr::Binary { lhs, rhs, .. }) = (narrowed_operand(expr), &mut *expr) {
                    let o = if right { rhs } else { lhs };
                    let Operand::Const(c) = *o else { unreachable!("narrowed_operand gives constants") };
                    let ty = c.ty();
                    let zero = Operand::Var(if ty == Ty::U32 { z } else { z64 });
                    let hidden = push_var(vars, ty, "narrowed_shifts.hidden");
                    out.push(Stmt::Assign { dst: hidden, expr: Expr::Binary { op: BinaryOp::Xor, ty, lhs: *o, rhs: zero } });
                    *o = Operand::Var(hidden);
                }
            }
            for body in s.bodies_mut() {
                rewrite(body, vars, z, z64);
            }
            out.push(s);
        }
        b.stmts = out;
    }
    rewrite(&mut kernel.body, &mut kernel.vars, z, z64);
    let index = Operand::Const(Const::U32(abi::PARAM_ZERO_WORD));
    let prologue = [
        Stmt::Assign { dst: z, expr: Expr::LoadWord { memory: Memory::Param, index } },
        Stmt::Assign { dst: z64, expr: Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: Operand::Var(z) } },
    ];
    kernel.body.stmts.splice(0..0, prologue);
}
